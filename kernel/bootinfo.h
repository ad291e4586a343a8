/*
 * kernel/bootinfo.h: what the Multiboot loader tells us (Multiboot 0.6.96 §3.3, Multiboot2
 * 2.0 §3.6), copied into one struct so the loader's memory can be reused after parsing.
 */
#ifndef WS_BOOTINFO_H
#define WS_BOOTINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memmap.h"
#include "physmem.h"

/* EAX on entry (Multiboot 0.6.96 §3.2, Multiboot2 §3.3). */
#define BOOTINFO_MB1_MAGIC 0x2BADB002u
#define BOOTINFO_MB2_MAGIC 0x36D76289u

#define BOOTINFO_CMDLINE_BYTES 128
#define BOOTINFO_LOADER_BYTES 64
#define BOOTINFO_SOURCE_BYTES 24
#define BOOTINFO_RSDP_BYTES 36 /* an ACPI 2.0+ RSDP */

/*
 * Sanity caps on loader-declared sizes. Real ones are a few KiB (an OVMF memory map with a few
 * hundred 48-byte descriptors included); the caps keep a garbage length from making us walk
 * gigabytes of RAM as entries.
 */
#define BOOTINFO_MB1_MMAP_MAX_BYTES (64 * 1024)
#define BOOTINFO_MB2_MAX_BYTES (1024 * 1024)

/* Filled once by the BSP at boot; read-only afterwards. */
struct bootinfo {
    int mb_version;                       /* 1 or 2 */
    char cmdline[BOOTINFO_CMDLINE_BYTES]; /* "" if the loader passed none */
    bool cmdline_truncated;
    char loader[BOOTINFO_LOADER_BYTES];   /* boot loader name, "" if none */

    /*
     * Normalized memory map. Loader memory counts as usable (the loader is done with it), so
     * the caller must still memmap_reserve() the kernel image and anything else it keeps.
     */
    struct memmap mm;
    char mm_source[BOOTINFO_SOURCE_BYTES]; /* "multiboot2 tag 17", "multiboot1 mmap", ... */

    /* ACPI RSDP copied by a Multiboot 2 loader; absent with Multiboot 1 (scan for it). */
    bool has_rsdp;
    uint8_t rsdp[BOOTINFO_RSDP_BYTES];
    size_t rsdp_len;
    char rsdp_source[BOOTINFO_SOURCE_BYTES]; /* "multiboot2 tag 14" or "multiboot2 tag 15" */

    bool efi;               /* booted by UEFI: EFI system table, image handle or memory map */
    bool efi_boot_services; /* tag 18: boot services not exited, so their memory is not ours */
};

/*
 * bootinfo_parse_mb1: parses the Multiboot 1 information structure at info_phys (and the
 * command line, loader name and memory map it points to, all through pm). Uses the mmap
 * (flag 6) if present, else mem_lower/mem_upper (flag 0).
 * Returns 0, or a negative WS_ERR_* with a one-line reason in err[errlen] for malformed or
 * unreadable input or no usable memory. BSP, boot, before anything else allocates.
 */
int bootinfo_parse_mb1(const struct physmem *pm, uint32_t info_phys, struct bootinfo *out,
                       char *err, size_t errlen);

/*
 * bootinfo_parse_mb2: same for the Multiboot 2 information at info_phys (8-byte aligned,
 * total_size then 8-byte aligned tags up to an end tag). Memory comes from the EFI memory map
 * (tag 17) if present, else the Multiboot map (tag 6), else basic meminfo (tag 4).
 * Unknown tags are skipped; the first tag of each known type is used.
 */
int bootinfo_parse_mb2(const struct physmem *pm, uint32_t info_phys, struct bootinfo *out,
                       char *err, size_t errlen);

/* bootinfo_parse: picks one of the above by the magic value the loader left in EAX. */
int bootinfo_parse(const struct physmem *pm, uint32_t magic, uint32_t info_phys,
                   struct bootinfo *out, char *err, size_t errlen);

#endif
