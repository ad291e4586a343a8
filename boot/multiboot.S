/*
 * boot/multiboot.S: Multiboot 1 and Multiboot 2 headers.
 *
 * Contract: the image is linked and loaded at physical 1 MiB (linker/kernel.ld), one PT_LOAD
 * segment whose file layout equals its memory layout. QEMU's -kernel loads only Multiboot 1 and
 * refuses 64-bit ELF, so the Multiboot 1 header sets the "address kludge" (flags bit 16) and names
 * load/bss/entry addresses itself (Multiboot 0.6.96 section 3.1.3). GRUB's multiboot2 command
 * loads the ELF64 by its program headers (Multiboot 2.0 section 3.1). Both enter _start in 32-bit
 * protected mode, paging off: EAX = loader magic, EBX = physical address of the boot information.
 */
#define MB1_MAGIC 0x1BADB002
#define MB1_FLAGS ((1 << 0) | (1 << 1) | (1 << 16)) /* page-align modules, mem info, addresses */
#define MB2_MAGIC 0xE85250D6
#define MB2_ARCH_I386 0

    .section .multiboot, "a"
    .code32

    /* Multiboot 1: within the first 8 KiB of the file, 4-byte aligned. */
    .align 4
mb1_header:
    .long MB1_MAGIC
    .long MB1_FLAGS
    .long -(MB1_MAGIC + MB1_FLAGS)
    .long mb1_header        /* header_addr */
    .long __image_start     /* load_addr */
    .long __load_end        /* load_end_addr: file bytes end here */
    .long __image_end       /* bss_end_addr: loader zeroes up to here */
    .long _start            /* entry_addr */

    /* Multiboot 2: within the first 32 KiB, 8-byte aligned; tags 8-byte aligned. */
    .align 8
mb2_header:
    .long MB2_MAGIC
    .long MB2_ARCH_I386
    .long mb2_header_end - mb2_header
    .long -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))

    /* Information request (type 1), optional (flags bit 0): memory map, ACPI old and new RSDP. */
    .align 8
mb2_info_req:
    .short 1
    .short 1
    .long mb2_info_req_end - mb2_info_req
    .long 6
    .long 14
    .long 15
mb2_info_req_end:

    /* Console flags (type 4): we have a console of our own (the serial port); EGA text is fine. */
    .align 8
    .short 4
    .short 1
    .long 12
    .long 2

    /* End tag. */
    .align 8
    .short 0
    .short 0
    .long 8
mb2_header_end:
