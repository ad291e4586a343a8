/*
 * kernel/bootinfo.c: parsers for the Multiboot 1 (spec 0.6.96 §3.3) and Multiboot2 (spec 2.0
 * §3.6) boot information. All loader memory is read through struct physmem and every length,
 * count and offset is checked before use; malformed input is an error with a message.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bootinfo.h"
#include "err.h"

/* Defined in err.c; the prototype moves to err.h once that header takes it. */
void err_vfmt(char *buf, size_t len, const char *fmt, va_list ap);

/* Multiboot 0.6.96 §3.3: flag bits and the offsets of the fields they guard. */
#define MB1_FLAG_MEM (1u << 0)     /* mem_lower at 4, mem_upper at 8 (KiB) */
#define MB1_FLAG_CMDLINE (1u << 2) /* cmdline at 16: physical address of a C string */
#define MB1_FLAG_MMAP (1u << 6)    /* mmap_length at 44, mmap_addr at 48 */
#define MB1_FLAG_LOADER (1u << 9)  /* boot_loader_name at 64 */
#define MB1_OFF_FLAGS 0
#define MB1_OFF_MEM_LOWER 4
#define MB1_OFF_MEM_UPPER 8
#define MB1_OFF_CMDLINE 16
#define MB1_OFF_MMAP_LENGTH 44
#define MB1_OFF_MMAP_ADDR 48
#define MB1_OFF_LOADER 64
/* An mmap entry: u32 size (not counting itself), then u64 base, u64 length, u32 type. */
#define MB1_MMAP_MIN_SIZE 20

/* Multiboot2 §3.6: tag types we read (§3.6.2 - §3.6.22). */
#define MB2_TAG_END 0
#define MB2_TAG_CMDLINE 1
#define MB2_TAG_LOADER 2
#define MB2_TAG_BASIC_MEM 4
#define MB2_TAG_MMAP 6
#define MB2_TAG_EFI32 11
#define MB2_TAG_EFI64 12
#define MB2_TAG_ACPI_OLD 14
#define MB2_TAG_ACPI_NEW 15
#define MB2_TAG_EFI_MMAP 17
#define MB2_TAG_EFI_BS 18
#define MB2_TAG_EFI32_IH 19
#define MB2_TAG_EFI64_IH 20
#define MB2_TAG_TYPES 22         /* 0..21 as of spec 2.0; larger types are skipped unread */
#define MB2_TAG_HDR_BYTES 8      /* u32 type, u32 size */
#define MB2_TAG_ALIGN 8
#define MB2_MAP_HDR_BYTES 16     /* tags 6 and 17: header, u32 entry size, u32 version */
#define MB2_MMAP_ENTRY_MIN 24    /* §3.6.8: u64 base, u64 length, u32 type, u32 reserved */
#define MB2_EFI_DESC_MIN 40      /* UEFI 2.10 §7.2.3 EFI_MEMORY_DESCRIPTOR */

/* e820 / Multiboot memory types (Multiboot2 §3.6.8; ACPI 6.5 §15.1 address range types). */
#define E820_USABLE 1
#define E820_ACPI_RECLAIM 3
#define E820_ACPI_NVS 4
#define E820_BAD 5

/* UEFI 2.10 §7.2.3 EFI_MEMORY_TYPE values we treat specially; 4 KiB pages. */
#define EFI_LOADER_CODE 1
#define EFI_LOADER_DATA 2
#define EFI_BOOT_SERVICES_CODE 3
#define EFI_BOOT_SERVICES_DATA 4
#define EFI_CONVENTIONAL 7
#define EFI_UNUSABLE 8
#define EFI_ACPI_RECLAIM 9
#define EFI_ACPI_NVS 10
#define EFI_PAGE_SHIFT 12

/* A tag found by the Multiboot2 walk: where it is and how big it says it is. */
struct bootinfo_tag {
    const uint8_t *p; /* NULL: absent */
    uint32_t size;
    uint32_t off;
};

static int __attribute__((format(printf, 4, 5)))
bootinfo_fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    err_vfmt(err, errlen, fmt, ap);
    va_end(ap);
    return code;
}

static uint32_t bootinfo_rd32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

static uint64_t bootinfo_rd64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

/* Copies a string of at most srclen bytes (NUL-terminated or not); true if it was cut. */
static bool bootinfo_copy_str(char *dst, size_t dstlen, const uint8_t *src, size_t srclen)
{
    size_t n = 0;

    while (n < srclen && src[n] != '\0' && n + 1 < dstlen) {
        dst[n] = (char)src[n];
        n++;
    }
    dst[n] = '\0';
    return n < srclen && src[n] != '\0';
}

static uint32_t bootinfo_e820_type(uint32_t type)
{
    switch (type) {
    case E820_USABLE:
        return MEMMAP_USABLE;
    case E820_ACPI_RECLAIM:
        return MEMMAP_ACPI_RECLAIM;
    case E820_ACPI_NVS:
        return MEMMAP_ACPI_NVS;
    case E820_BAD:
        return MEMMAP_BAD;
    default: /* 2 and anything a newer firmware invents (persistent memory, ...) */
        return MEMMAP_RESERVED;
    }
}

/*
 * The mapping of ACPI 6.5 §15.3 Table 15.6 (UEFI memory type to address range type): loader
 * and boot services memory is free because GRUB calls ExitBootServices before jumping to us,
 * unless tag 18 says boot services are still running. Runtime services, MMIO, persistent and
 * unaccepted memory (types 5, 6, 11-15) stay reserved.
 */
static uint32_t bootinfo_efi_type(uint32_t type, bool boot_services_running)
{
    switch (type) {
    case EFI_CONVENTIONAL:
    case EFI_LOADER_CODE:
    case EFI_LOADER_DATA:
        return MEMMAP_USABLE;
    case EFI_BOOT_SERVICES_CODE:
    case EFI_BOOT_SERVICES_DATA:
        return boot_services_running ? MEMMAP_RESERVED : MEMMAP_USABLE;
    case EFI_UNUSABLE:
        return MEMMAP_BAD;
    case EFI_ACPI_RECLAIM:
        return MEMMAP_ACPI_RECLAIM;
    case EFI_ACPI_NVS:
        return MEMMAP_ACPI_NVS;
    default:
        return MEMMAP_RESERVED;
    }
}

/* memmap_add with the loader's words for failures; a full table is counted, not fatal. */
static int bootinfo_add(struct bootinfo *out, uint64_t base, uint64_t len, uint32_t type,
                        unsigned idx, char *err, size_t errlen)
{
    int rc = memmap_add(&out->mm, base, len, type);

    if (rc == WS_ERR_RANGE) {
        return bootinfo_fail(err, errlen, rc, "%s entry %u: base 0x%lx length 0x%lx wraps",
                             out->mm_source, idx, base, len);
    }
    return rc == WS_ERR_NO_MEMORY ? 0 : rc;
}

static void bootinfo_begin(struct bootinfo *out, int version, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    memmap_init(&out->mm);
    out->mb_version = version;
    if (err != NULL && errlen > 0) {
        err[0] = '\0';
    }
}

/* Normalizes the map; without usable RAM there is nothing to run in. */
static int bootinfo_finish(struct bootinfo *out, char *err, size_t errlen)
{
    memmap_normalize(&out->mm);
    if (memmap_usable_bytes(&out->mm) == 0) {
        return bootinfo_fail(err, errlen, WS_ERR_NOT_FOUND, "%s: no usable memory",
                             out->mm_source);
    }
    return 0;
}

/* ---- Multiboot 1 ---- */

/* Reads the u32 field at info_phys + off; each field is mapped on its own so only the fields
 * the flags vouch for are ever touched. */
static int bootinfo_mb1_u32(const struct physmem *pm, uint32_t info_phys, unsigned off,
                            uint32_t *v, char *err, size_t errlen)
{
    const uint8_t *p = physmem_map(pm, (uint64_t)info_phys + off, sizeof(*v));

    if (p == NULL) {
        return bootinfo_fail(err, errlen, WS_ERR_RANGE,
                             "multiboot1 info at 0x%x: field at +%u not in mapped memory",
                             info_phys, off);
    }
    *v = bootinfo_rd32(p);
    return 0;
}

/* Copies the C string at phys, one mapped byte at a time since its length is unknown. */
static int bootinfo_mb1_str(const struct physmem *pm, uint32_t phys, char *dst, size_t dstlen,
                            bool *truncated, const char *what, char *err, size_t errlen)
{
    size_t i = 0;

    *truncated = false;
    for (;; i++) {
        const uint8_t *c = physmem_map(pm, (uint64_t)phys + i, 1);
        if (c == NULL) {
            dst[i] = '\0';
            return bootinfo_fail(err, errlen, WS_ERR_RANGE,
                                 "multiboot1 %s at 0x%x: byte %zu not in mapped memory", what,
                                 phys, i);
        }
        if (*c == '\0' || i + 1 == dstlen) {
            *truncated = *c != '\0';
            break;
        }
        dst[i] = (char)*c;
    }
    dst[i] = '\0';
    return 0;
}

/* §3.3 mmap: entries of 4 + size bytes; size may exceed 20 (future fields), never be less. */
static int bootinfo_mb1_mmap(const struct physmem *pm, uint32_t addr, uint32_t length,
                             struct bootinfo *out, char *err, size_t errlen)
{
    const uint8_t *p = physmem_map(pm, addr, length);
    unsigned idx = 0;
    int rc = 0;

    if (length == 0 || length > BOOTINFO_MB1_MMAP_MAX_BYTES) {
        return bootinfo_fail(err, errlen, WS_ERR_INVAL,
                             "multiboot1 mmap at 0x%x: mmap_length %u outside 1..%u", addr,
                             length, BOOTINFO_MB1_MMAP_MAX_BYTES);
    }
    if (p == NULL) {
        return bootinfo_fail(err, errlen, WS_ERR_RANGE,
                             "multiboot1 mmap at 0x%x: %u bytes not in mapped memory", addr,
                             length);
    }
    /* Each entry is at least 24 bytes, so the walk ends after length / 24 steps. */
    for (size_t off = 0; off < length && rc == 0; idx++) {
        uint32_t size = length - off < 4 ? 0 : bootinfo_rd32(p + off);
        if (length - off < 4 || size > length - off - 4) {
            return bootinfo_fail(err, errlen, WS_ERR_TRUNCATED,
                                 "multiboot1 mmap entry %u at +%zu: runs past mmap_length %u",
                                 idx, off, length);
        }
        if (size < MB1_MMAP_MIN_SIZE) {
            return bootinfo_fail(err, errlen, WS_ERR_INVAL,
                                 "multiboot1 mmap entry %u at +%zu: size %u < 20", idx, off,
                                 size);
        }
        rc = bootinfo_add(out, bootinfo_rd64(p + off + 4), bootinfo_rd64(p + off + 12),
                          bootinfo_e820_type(bootinfo_rd32(p + off + 20)), idx, err, errlen);
        off += 4 + (size_t)size;
    }
    return rc;
}

/* The mmap if flag 6 says there is one, else the two basic sizes (§3.3 mem_lower/upper). */
static int bootinfo_mb1_memory(const struct physmem *pm, uint32_t info_phys, uint32_t flags,
                               struct bootinfo *out, char *err, size_t errlen)
{
    uint32_t a, b;
    int rc;

    if (flags & MB1_FLAG_MMAP) {
        strcpy(out->mm_source, "multiboot1 mmap");
        rc = bootinfo_mb1_u32(pm, info_phys, MB1_OFF_MMAP_LENGTH, &a, err, errlen);
        if (rc == 0) {
            rc = bootinfo_mb1_u32(pm, info_phys, MB1_OFF_MMAP_ADDR, &b, err, errlen);
        }
        return rc != 0 ? rc : bootinfo_mb1_mmap(pm, b, a, out, err, errlen);
    }
    if ((flags & MB1_FLAG_MEM) == 0) {
        return bootinfo_fail(err, errlen, WS_ERR_NOT_FOUND,
                             "multiboot1 info at 0x%x: flags 0x%x give no memory information",
                             info_phys, flags);
    }
    strcpy(out->mm_source, "multiboot1 mem_lower");
    rc = bootinfo_mb1_u32(pm, info_phys, MB1_OFF_MEM_LOWER, &a, err, errlen);
    if (rc == 0) {
        rc = bootinfo_mb1_u32(pm, info_phys, MB1_OFF_MEM_UPPER, &b, err, errlen);
    }
    if (rc == 0) { /* lower memory from 0, upper memory from 1 MiB, both in KiB */
        rc = bootinfo_add(out, 0, (uint64_t)a << 10, MEMMAP_USABLE, 0, err, errlen);
    }
    return rc != 0 ? rc : bootinfo_add(out, 1ULL << 20, (uint64_t)b << 10, MEMMAP_USABLE, 1,
                                       err, errlen);
}

int bootinfo_parse_mb1(const struct physmem *pm, uint32_t info_phys, struct bootinfo *out,
                       char *err, size_t errlen)
{
    uint32_t flags, phys;
    bool cut;
    int rc;

    bootinfo_begin(out, 1, err, errlen);
    rc = bootinfo_mb1_u32(pm, info_phys, MB1_OFF_FLAGS, &flags, err, errlen);
    if (rc == 0 && (flags & MB1_FLAG_CMDLINE)) {
        rc = bootinfo_mb1_u32(pm, info_phys, MB1_OFF_CMDLINE, &phys, err, errlen);
        if (rc == 0) {
            rc = bootinfo_mb1_str(pm, phys, out->cmdline, sizeof(out->cmdline),
                                  &out->cmdline_truncated, "cmdline", err, errlen);
        }
    }
    if (rc == 0 && (flags & MB1_FLAG_LOADER)) {
        rc = bootinfo_mb1_u32(pm, info_phys, MB1_OFF_LOADER, &phys, err, errlen);
        if (rc == 0) {
            rc = bootinfo_mb1_str(pm, phys, out->loader, sizeof(out->loader), &cut,
                                  "boot_loader_name", err, errlen);
        }
    }
    if (rc == 0) {
        rc = bootinfo_mb1_memory(pm, info_phys, flags, out, err, errlen);
    }
    return rc != 0 ? rc : bootinfo_finish(out, err, errlen);
}

/* ---- Multiboot2 ---- */

/*
 * §3.6.1-2: walks the tags (each >= 8 bytes, inside total_size, next one at the following
 * 8-byte boundary) up to the end tag, remembering the first tag of each known type.
 */
static int bootinfo_mb2_walk(const uint8_t *info, uint32_t total, struct bootinfo_tag *tags,
                             char *err, size_t errlen)
{
    size_t off = MB2_TAG_HDR_BYTES; /* after total_size and reserved */

    while (total - off >= MB2_TAG_HDR_BYTES) {
        uint32_t type = bootinfo_rd32(info + off), size = bootinfo_rd32(info + off + 4);
        if (size < MB2_TAG_HDR_BYTES) {
            return bootinfo_fail(err, errlen, WS_ERR_INVAL,
                                 "multiboot2 tag %u at offset %zu: size %u < 8", type, off, size);
        }
        if (size > total - off) {
            return bootinfo_fail(err, errlen, WS_ERR_TRUNCATED,
                                 "multiboot2 tag %u at offset %zu: size %u runs past "
                                 "total_size %u", type, off, size, total);
        }
        if (type == MB2_TAG_END) {
            return 0;
        }
        if (type < MB2_TAG_TYPES && tags[type].p == NULL) {
            tags[type] = (struct bootinfo_tag){ info + off, size, (uint32_t)off };
        }
        /* Padding is not counted in size; a last tag whose padding overshoots total_size
         * leaves no room for the end tag. */
        off += ((size_t)size + MB2_TAG_ALIGN - 1) & ~(size_t)(MB2_TAG_ALIGN - 1);
        if (off > total) {
            break;
        }
    }
    return bootinfo_fail(err, errlen, WS_ERR_TRUNCATED,
                         "multiboot2: no end tag within total_size %u", total);
}

/*
 * Tags 6 and 17 share a shape: 16-byte header with the entry size at +8, then whole entries.
 * Checks it and returns the entry size and count.
 */
static int bootinfo_mb2_entries(const struct bootinfo_tag *t, unsigned type, uint32_t min_esize,
                                uint32_t *esize, size_t *n, char *err, size_t errlen)
{
    if (t->size < MB2_MAP_HDR_BYTES) {
        return bootinfo_fail(err, errlen, WS_ERR_TRUNCATED,
                             "multiboot2 tag %u at offset %u: size %u < 16", type, t->off,
                             t->size);
    }
    *esize = bootinfo_rd32(t->p + 8);
    if (*esize < min_esize) {
        return bootinfo_fail(err, errlen, WS_ERR_INVAL,
                             "multiboot2 tag %u at offset %u: entry size %u < %u", type, t->off,
                             *esize, min_esize);
    }
    if ((t->size - MB2_MAP_HDR_BYTES) % *esize != 0) {
        return bootinfo_fail(err, errlen, WS_ERR_TRUNCATED,
                             "multiboot2 tag %u at offset %u: %u bytes of entries, not a "
                             "multiple of %u", type, t->off, t->size - MB2_MAP_HDR_BYTES,
                             *esize);
    }
    *n = (t->size - MB2_MAP_HDR_BYTES) / *esize;
    return 0;
}

/* §3.6.8 memory map: e820-style entries. */
static int bootinfo_mb2_mmap(const struct bootinfo_tag *t, struct bootinfo *out, char *err,
                             size_t errlen)
{
    uint32_t esize;
    size_t n;
    int rc = bootinfo_mb2_entries(t, MB2_TAG_MMAP, MB2_MMAP_ENTRY_MIN, &esize, &n, err, errlen);

    for (size_t i = 0; i < n && rc == 0; i++) {
        const uint8_t *e = t->p + MB2_MAP_HDR_BYTES + i * esize;
        rc = bootinfo_add(out, bootinfo_rd64(e), bootinfo_rd64(e + 8),
                          bootinfo_e820_type(bootinfo_rd32(e + 16)), (unsigned)i, err, errlen);
    }
    return rc;
}

/* §3.6.19 EFI memory map: EFI_MEMORY_DESCRIPTORs (type +0, start +8, pages +24). */
static int bootinfo_mb2_efi_mmap(const struct bootinfo_tag *t, struct bootinfo *out, char *err,
                                 size_t errlen)
{
    uint32_t esize;
    size_t n;
    int rc = bootinfo_mb2_entries(t, MB2_TAG_EFI_MMAP, MB2_EFI_DESC_MIN, &esize, &n, err,
                                  errlen);

    for (size_t i = 0; i < n && rc == 0; i++) {
        const uint8_t *d = t->p + MB2_MAP_HDR_BYTES + i * esize;
        uint64_t pages = bootinfo_rd64(d + 24);
        if (pages > UINT64_MAX >> EFI_PAGE_SHIFT) { /* byte length would not fit in 64 bits */
            return bootinfo_fail(err, errlen, WS_ERR_RANGE,
                                 "multiboot2 tag 17 descriptor %zu: 0x%lx pages", i, pages);
        }
        rc = bootinfo_add(out, bootinfo_rd64(d + 8), pages << EFI_PAGE_SHIFT,
                          bootinfo_efi_type(bootinfo_rd32(d), out->efi_boot_services),
                          (unsigned)i, err, errlen);
    }
    return rc;
}

/* §3.6.3 basic memory information: the Multiboot 1 mem_lower/mem_upper pair, in KiB. */
static int bootinfo_mb2_basic_mem(const struct bootinfo_tag *t, struct bootinfo *out, char *err,
                                  size_t errlen)
{
    int rc;

    if (t->size < 16) {
        return bootinfo_fail(err, errlen, WS_ERR_TRUNCATED,
                             "multiboot2 tag 4 at offset %u: size %u < 16", t->off, t->size);
    }
    rc = bootinfo_add(out, 0, (uint64_t)bootinfo_rd32(t->p + 8) << 10, MEMMAP_USABLE, 0, err,
                      errlen);
    return rc != 0 ? rc : bootinfo_add(out, 1ULL << 20, (uint64_t)bootinfo_rd32(t->p + 12) << 10,
                                       MEMMAP_USABLE, 1, err, errlen);
}

/* The EFI map is the firmware's own; tag 6 is the loader's translation of it, or of e820. */
static int bootinfo_mb2_memory(const struct bootinfo_tag *tags, struct bootinfo *out, char *err,
                               size_t errlen)
{
    if (tags[MB2_TAG_EFI_MMAP].p != NULL) {
        strcpy(out->mm_source, "multiboot2 tag 17");
        return bootinfo_mb2_efi_mmap(&tags[MB2_TAG_EFI_MMAP], out, err, errlen);
    }
    if (tags[MB2_TAG_MMAP].p != NULL) {
        strcpy(out->mm_source, "multiboot2 tag 6");
        return bootinfo_mb2_mmap(&tags[MB2_TAG_MMAP], out, err, errlen);
    }
    if (tags[MB2_TAG_BASIC_MEM].p != NULL) {
        strcpy(out->mm_source, "multiboot2 tag 4");
        return bootinfo_mb2_basic_mem(&tags[MB2_TAG_BASIC_MEM], out, err, errlen);
    }
    return bootinfo_fail(err, errlen, WS_ERR_NOT_FOUND,
                         "multiboot2: no memory map (tags 17, 6 or 4)");
}

/* §3.6.16-17: a copy of the RSDP; the new one (ACPI 2.0+, with the XSDT) is preferred. */
static int bootinfo_mb2_rsdp(const struct bootinfo_tag *tags, struct bootinfo *out, char *err,
                             size_t errlen)
{
    unsigned type = tags[MB2_TAG_ACPI_NEW].p != NULL ? MB2_TAG_ACPI_NEW : MB2_TAG_ACPI_OLD;
    const struct bootinfo_tag *t = &tags[type];
    uint32_t need = type == MB2_TAG_ACPI_NEW ? 36 : 20;
    size_t len;

    if (t->p == NULL) {
        return 0;
    }
    if (t->size - MB2_TAG_HDR_BYTES < need) {
        return bootinfo_fail(err, errlen, WS_ERR_TRUNCATED,
                             "multiboot2 tag %u at offset %u: %u bytes of RSDP, need %u", type,
                             t->off, t->size - MB2_TAG_HDR_BYTES, need);
    }
    /* Copied, not pointed to: the info block is loader memory we may reuse. */
    len = t->size - MB2_TAG_HDR_BYTES;
    out->rsdp_len = len < sizeof(out->rsdp) ? len : sizeof(out->rsdp);
    memcpy(out->rsdp, t->p + MB2_TAG_HDR_BYTES, out->rsdp_len);
    out->has_rsdp = true;
    strcpy(out->rsdp_source, type == MB2_TAG_ACPI_NEW ? "multiboot2 tag 15" : "multiboot2 tag 14");
    return 0;
}

/* Strings and flags: tags whose content cannot be malformed beyond their (checked) size. */
static void bootinfo_mb2_simple(const struct bootinfo_tag *tags, struct bootinfo *out)
{
    const struct bootinfo_tag *c = &tags[MB2_TAG_CMDLINE], *l = &tags[MB2_TAG_LOADER];

    if (c->p != NULL) {
        out->cmdline_truncated = bootinfo_copy_str(out->cmdline, sizeof(out->cmdline),
                                                   c->p + MB2_TAG_HDR_BYTES,
                                                   c->size - MB2_TAG_HDR_BYTES);
    }
    if (l->p != NULL) {
        (void)bootinfo_copy_str(out->loader, sizeof(out->loader), l->p + MB2_TAG_HDR_BYTES,
                                l->size - MB2_TAG_HDR_BYTES);
    }
    out->efi = tags[MB2_TAG_EFI32].p != NULL || tags[MB2_TAG_EFI64].p != NULL ||
               tags[MB2_TAG_EFI_MMAP].p != NULL || tags[MB2_TAG_EFI32_IH].p != NULL ||
               tags[MB2_TAG_EFI64_IH].p != NULL;
    out->efi_boot_services = tags[MB2_TAG_EFI_BS].p != NULL;
}

/* §3.6.1: the fixed part (u32 total_size, u32 reserved), 8-byte aligned, then the tags. */
static int bootinfo_mb2_map(const struct physmem *pm, uint32_t info_phys, const uint8_t **info,
                            uint32_t *total, char *err, size_t errlen)
{
    const uint8_t *hdr = physmem_map(pm, info_phys, MB2_TAG_HDR_BYTES);

    if (info_phys % MB2_TAG_ALIGN != 0 || hdr == NULL) {
        return bootinfo_fail(err, errlen, WS_ERR_INVAL,
                             "multiboot2 info at 0x%x: misaligned or not in mapped memory",
                             info_phys);
    }
    *total = bootinfo_rd32(hdr);
    if (*total < 2 * MB2_TAG_HDR_BYTES || *total > BOOTINFO_MB2_MAX_BYTES) {
        return bootinfo_fail(err, errlen, WS_ERR_INVAL,
                             "multiboot2 info at 0x%x: total_size %u outside 16..%u", info_phys,
                             *total, BOOTINFO_MB2_MAX_BYTES);
    }
    *info = physmem_map(pm, info_phys, *total);
    if (*info == NULL) {
        return bootinfo_fail(err, errlen, WS_ERR_TRUNCATED,
                             "multiboot2 info at 0x%x: total_size %u runs past mapped memory",
                             info_phys, *total);
    }
    return 0;
}

int bootinfo_parse_mb2(const struct physmem *pm, uint32_t info_phys, struct bootinfo *out,
                       char *err, size_t errlen)
{
    struct bootinfo_tag tags[MB2_TAG_TYPES];
    const uint8_t *info = NULL;
    uint32_t total = 0;
    int rc;

    bootinfo_begin(out, 2, err, errlen);
    memset(tags, 0, sizeof(tags));
    rc = bootinfo_mb2_map(pm, info_phys, &info, &total, err, errlen);
    if (rc == 0) {
        rc = bootinfo_mb2_walk(info, total, tags, err, errlen);
    }
    if (rc == 0) {
        bootinfo_mb2_simple(tags, out);
        rc = bootinfo_mb2_rsdp(tags, out, err, errlen);
    }
    if (rc == 0) {
        rc = bootinfo_mb2_memory(tags, out, err, errlen);
    }
    return rc != 0 ? rc : bootinfo_finish(out, err, errlen);
}

int bootinfo_parse(const struct physmem *pm, uint32_t magic, uint32_t info_phys,
                   struct bootinfo *out, char *err, size_t errlen)
{
    if (magic == BOOTINFO_MB1_MAGIC) {
        return bootinfo_parse_mb1(pm, info_phys, out, err, errlen);
    }
    if (magic == BOOTINFO_MB2_MAGIC) {
        return bootinfo_parse_mb2(pm, info_phys, out, err, errlen);
    }
    bootinfo_begin(out, 0, err, errlen);
    return bootinfo_fail(err, errlen, WS_ERR_INVAL,
                         "boot magic 0x%x is neither Multiboot 1 nor Multiboot 2", magic);
}
