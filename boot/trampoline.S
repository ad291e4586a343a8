/*
 * boot/trampoline.S: application processor (AP) start-up code.
 *
 * Contract: the BSP copies [ap_trampoline_start, ap_trampoline_end) to AP_TRAMPOLINE_PHYS and
 * fills the parameter block at its end (struct ap_boot_params in kernel/smp.c) before each
 * INIT-SIPI-SIPI. The AP starts in real mode at CS:IP = (AP_TRAMPOLINE_PHYS >> 4):0 (SDM 3A
 * 8.4.4.1), goes to protected mode with a flat temporary GDT, enables PAE, loads the BSP's CR3,
 * sets EFER.LME and paging (SDM 3A 9.8.5), far-jumps to 64-bit code, loads its stack and calls
 * ap_params.entry(ap_params.cpu_index). Code here is position dependent on AP_TRAMPOLINE_PHYS:
 * every absolute address is computed as (label - ap_trampoline_start + AP_TRAMPOLINE_PHYS).
 */
#include "boot/bootdefs.h"

#define TRAMP(x) ((x) - ap_trampoline_start + AP_TRAMPOLINE_PHYS)

    .section .rodata
    .global ap_trampoline_start, ap_trampoline_end, ap_trampoline_params
    .code16
ap_trampoline_start:
    cli
    cld
    xorw %ax, %ax
    movw %ax, %ds
    lgdtl TRAMP(tramp_gdt_ptr)
    movl %cr0, %eax
    orl $CR0_PE, %eax
    movl %eax, %cr0
    ljmpl $BOOT_CS32, $TRAMP(tramp_prot32)

    .code32
tramp_prot32:
    movw $BOOT_DS, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %ss
    movl %cr4, %eax
    orl $(CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT), %eax
    movl %eax, %cr4
    movl TRAMP(ap_trampoline_params), %eax      /* params.cr3 (below 4 GiB) */
    movl %eax, %cr3
    movl $MSR_EFER, %ecx
    rdmsr
    orl $EFER_LME, %eax
    wrmsr
    movl %cr0, %eax
    andl $~CR0_EM, %eax
    orl $(CR0_PG | CR0_MP | CR0_NE), %eax
    movl %eax, %cr0
    ljmpl $BOOT_CS64, $TRAMP(tramp_long64)

    .code64
tramp_long64:
    movw $BOOT_DS, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %ss
    xorw %ax, %ax
    movw %ax, %fs
    movw %ax, %gs
    movq TRAMP(ap_trampoline_params) + 8, %rsp   /* params.stack_top */
    xorq %rbp, %rbp
    movq TRAMP(ap_trampoline_params) + 24, %rdi  /* params.cpu_index */
    movq TRAMP(ap_trampoline_params) + 16, %rax  /* params.entry */
    call *%rax
1:  cli
    hlt
    jmp 1b

    .align 16
tramp_gdt:
    .quad 0
    .quad 0x00AF9A000000FFFF    /* BOOT_CS64 */
    .quad 0x00CF92000000FFFF    /* BOOT_DS */
    .quad 0x00CF9A000000FFFF    /* BOOT_CS32 */
tramp_gdt_ptr:
    .short tramp_gdt_ptr - tramp_gdt - 1
    .long TRAMP(tramp_gdt)

    .align 8
ap_trampoline_params:   /* struct ap_boot_params: cr3, stack_top, entry, cpu_index */
    .quad 0, 0, 0, 0
ap_trampoline_end:
