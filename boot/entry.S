/*
 * boot/entry.S: 32-bit Multiboot entry to 64-bit long mode on the boot core (BSP).
 *
 * Entry: 32-bit protected mode, paging off, interrupts off, EAX = loader magic, EBX = boot
 * information (physical), stack unknown. Exit: kmain(magic, info) in long mode on the BSP's stack,
 * with 0..4 GiB identity mapped by 2 MiB pages (the top GiB, which holds the LAPIC, I/O APIC,
 * HPET and 32-bit PCI BARs, uncached) and SSE enabled. kernel/vm.c later replaces these tables
 * with ones built from the memory map. Intel SDM Vol. 3A section 9.8.5 (initializing IA-32e mode).
 * The same path serves every loader: QEMU -kernel and iPXE (Multiboot 1), GRUB on BIOS and GRUB on
 * UEFI (Multiboot 2: GRUB calls ExitBootServices, leaves long mode and enters here; docs/deploy.md).
 */
#include "boot/bootdefs.h"
#include "config.h"
#include "kernel/param.h"

/* CR0 bits only this file touches (SDM 3A 2.5). */
#define CR0_TS 0x00000008
#define CR0_NW 0x20000000
#define CR0_CD 0x40000000

/* 16550 registers for the early message (offsets from CONFIG_CONSOLE_PORT; kernel/uart.c has the
 * real driver, which takes over in kmain). */
#define EARLY_UART_DIVISOR (115200 / CONFIG_CONSOLE_BAUD) /* 1.8432 MHz / 16 = 115200 */
#define EARLY_UART_LCR_DLAB 0x80
#define EARLY_UART_LCR_8N1 0x03
#define EARLY_UART_MCR_DTR_RTS 0x03
#define EARLY_UART_LSR_THR_EMPTY 0x20
#define EARLY_VGA_TEXT 0xB8000
#define EARLY_VGA_ALERT 0x4F /* white on red */

    .section .text.boot, "ax"
    .code32
    .global _start
_start:
    cli
    cld
    movl %eax, boot_mb_magic
    movl %ebx, boot_mb_info
    movl $boot_stack32_top, %esp

    /* Zero .bss ourselves: loaders should, but a stale page table would be fatal. */
    movl $__bss_start, %edi
    movl $__bss_end, %ecx
    subl %edi, %ecx
    shrl $2, %ecx
    xorl %eax, %eax
    rep stosl
    movl boot_mb_magic, %eax /* restore: bss zeroing does not touch .data, but be explicit */

    call cpu_has_long_mode
    testl %eax, %eax
    jz no_long_mode

    call build_boot_page_tables
    call enter_long_mode_32
    lgdt boot_gdt_ptr
    ljmp $BOOT_CS64, $long_entry

/* cpu_has_long_mode: EAX = 1 if CPUID reports long mode (ext. leaf 0x80000001 EDX bit 29). */
cpu_has_long_mode:
    movl $0x80000000, %eax
    cpuid
    cmpl $0x80000001, %eax
    jb 1f
    movl $0x80000001, %eax
    cpuid
    btl $29, %edx
    jnc 1f
    movl $1, %eax
    ret
1:  xorl %eax, %eax
    ret

/* build_boot_page_tables: PML4[0] -> PDPT, PDPT[0..3] -> four PDs of 2 MiB pages = 4 GiB. */
build_boot_page_tables:
    movl $boot_pdpt, %eax
    orl $(PTE_P | PTE_W), %eax
    movl %eax, boot_pml4
    xorl %ecx, %ecx
1:  movl %ecx, %eax
    shll $12, %eax
    addl $boot_pd, %eax
    orl $(PTE_P | PTE_W), %eax
    movl %eax, boot_pdpt(, %ecx, 8)
    incl %ecx
    cmpl $4, %ecx
    jb 1b
    xorl %ecx, %ecx             /* ecx = 2 MiB page index 0..2047 */
2:  movl %ecx, %eax
    shll $21, %eax
    orl $(PTE_P | PTE_W | PTE_PS), %eax
    cmpl $1536, %ecx            /* 3 GiB and up: device memory, uncached */
    jb 3f
    orl $(PTE_PCD | PTE_PWT), %eax
3:  movl %eax, boot_pd(, %ecx, 8)
    incl %ecx
    cmpl $2048, %ecx
    jb 2b
    ret

/*
 * enter_long_mode_32: PAE + SSE in CR4, CR3, EFER.LME, then paging (SDM 3A 9.8.5 steps 1-5).
 *
 * Multiboot 2.0 section 3.3 (machine state) defines only EAX, EBX, flat segments, A20 on,
 * CR0.PE = 1, CR0.PG = 0 and EFLAGS.IF/VM = 0; "all other processor registers and flag bits are
 * undefined". Behind GRUB on UEFI they hold what the firmware's long mode left (seen on OVMF:
 * CR0.WP, CR4 = DE|MCE|OSFXSR|OSXMMEXCPT, EFER.NXE). So CR4 is written whole, not OR-ed into: a
 * CR4.LA57 left set (it can only change outside IA-32e mode) would have our 4-level tables walked
 * as 5-level ones, and a CR4.CET left set could enforce shadow stacks we never set up. CR0.TS
 * would fault the first SSE instruction (newlib), CD/NW would run us uncached: cleared. EFER keeps
 * what it has (NXE is harmless; LMA is set by the CPU).
 */
    .global enter_long_mode_32
enter_long_mode_32:
    movl $(CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT), %eax
    movl %eax, %cr4
    movl $boot_pml4, %eax
    movl %eax, %cr3
    movl $MSR_EFER, %ecx
    rdmsr
    orl $EFER_LME, %eax
    wrmsr
    movl %cr0, %eax
    andl $~(CR0_EM | CR0_TS | CR0_CD | CR0_NW), %eax
    orl $(CR0_PG | CR0_PE | CR0_MP | CR0_NE), %eax
    movl %eax, %cr0
    ret

/* no_long_mode: say so on the serial console and VGA text, then stop. Nothing else is set up. */
no_long_mode:
    movl $msg_no_long_mode, %esi
    call early_puts32
1:  cli
    hlt
    jmp 1b

/*
 * early_puts32: write the NUL-terminated string at ESI to the console UART (polled, bounded) and
 * to VGA text row 0. The UART is programmed first (the config's port and speed, 8N1, as
 * kernel/uart.c does later): a loader other than GRUB may have left it at another speed or not set
 * it up at all. Writing 0xB8000 is harmless where there is no text mode (UEFI).
 */
early_puts32:
    movw $(CONFIG_CONSOLE_PORT + 1), %dx    /* IER: no interrupts */
    xorb %al, %al
    outb %al, %dx
    movw $(CONFIG_CONSOLE_PORT + 3), %dx    /* LCR: divisor latch access */
    movb $EARLY_UART_LCR_DLAB, %al
    outb %al, %dx
    movw $(CONFIG_CONSOLE_PORT + 0), %dx    /* DLL, DLM: the divisor */
    movb $(EARLY_UART_DIVISOR & 0xFF), %al
    outb %al, %dx
    movw $(CONFIG_CONSOLE_PORT + 1), %dx
    movb $(EARLY_UART_DIVISOR >> 8), %al
    outb %al, %dx
    movw $(CONFIG_CONSOLE_PORT + 3), %dx    /* LCR: 8N1 */
    movb $EARLY_UART_LCR_8N1, %al
    outb %al, %dx
    movw $(CONFIG_CONSOLE_PORT + 4), %dx    /* MCR: DTR, RTS (some adapters want them) */
    movb $EARLY_UART_MCR_DTR_RTS, %al
    outb %al, %dx
    movl $EARLY_VGA_TEXT, %edi
1:  movb (%esi), %al
    testb %al, %al
    jz 3f
    movb %al, (%edi)
    movb $EARLY_VGA_ALERT, 1(%edi)
    addl $2, %edi
    movw $(CONFIG_CONSOLE_PORT + 5), %dx    /* LSR: wait for transmitter empty (bounded) */
    movl $100000, %ecx
2:  inb %dx, %al
    testb $EARLY_UART_LSR_THR_EMPTY, %al
    loopz 2b
    movw $CONFIG_CONSOLE_PORT, %dx
    movb (%esi), %al
    outb %al, %dx
    incl %esi
    jmp 1b
3:  ret

    .code64
long_entry:
    movw $BOOT_DS, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %ss
    xorw %ax, %ax
    movw %ax, %fs
    movw %ax, %gs
    movq $(cpu_stacks + WS_STACK_BYTES), %rsp  /* cpu 0 stack, kernel/smp.c */
    xorq %rbp, %rbp             /* backtraces stop here */
    movl boot_mb_magic, %edi
    movl boot_mb_info, %esi
    call kmain
1:  cli
    hlt
    jmp 1b

    .section .rodata
msg_no_long_mode:
    .asciz "wirespeed: this CPU has no 64-bit long mode; cannot boot\r\n"

    .section .data
    .align 16
    .global boot_gdt
boot_gdt:
    .quad 0                     /* null */
    .quad 0x00AF9A000000FFFF    /* 0x08: 64-bit code, DPL 0 */
    .quad 0x00CF92000000FFFF    /* 0x10: data, DPL 0 */
    .quad 0x00CF9A000000FFFF    /* 0x18: 32-bit code (AP trampoline) */
boot_gdt_end:
    .global boot_gdt_ptr
boot_gdt_ptr:
    .short boot_gdt_end - boot_gdt - 1
    .quad boot_gdt
    .global boot_mb_magic, boot_mb_info
boot_mb_magic: .long 0
boot_mb_info: .long 0

    .section .bss
    .align 4096
    .global boot_pml4
boot_pml4: .skip 4096
boot_pdpt: .skip 4096
boot_pd: .skip 4 * 4096
    .align 16
boot_stack32: .skip 4096
boot_stack32_top:
