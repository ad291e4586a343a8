/*
 * tests/unit/test_bootinfo.c: Multiboot 1 and 2 information parsing on structures built here
 * from the specs' byte offsets, then broken one way at a time.
 * Build: gcc -std=gnu11 -g -O1 -Wall -Wextra -Werror -fsanitize=address,undefined
 *        -fno-sanitize-recover=all -Ikernel tests/unit/test_bootinfo.c kernel/bootinfo.c
 *        kernel/memmap.c kernel/err.c -lcmocka
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bootinfo.h"
#include "err.h"

/* ---- fake physical memory: one heap buffer at a fake base, so ASan sees any overrun ---- */

#define BASE 0x100000u
#define SIZE 0x10000u
#define MB1_INFO (BASE + 0x0)
#define MB1_CMDLINE (BASE + 0x100)
#define MB1_LOADER (BASE + 0x180)
#define MB1_MMAP (BASE + 0x200)
#define MB2_INFO (BASE + 0x1000)

struct world {
    uint8_t *b;
    struct physmem pm;
    struct bootinfo bi;
    char err[128];
};

static const void *fake_map(const struct physmem *pm, uint64_t phys, size_t len)
{
    uint8_t *buf = pm->ctx;

    if (phys < BASE || phys - BASE > SIZE || len > SIZE - (phys - BASE)) {
        return NULL;
    }
    return buf + (phys - BASE);
}

static uint8_t *at(struct world *w, uint32_t phys)
{
    return w->b + (phys - BASE);
}

static void put32(uint8_t *p, size_t off, uint32_t v)
{
    memcpy(p + off, &v, sizeof(v));
}

static void put64(uint8_t *p, size_t off, uint64_t v)
{
    memcpy(p + off, &v, sizeof(v));
}

static int setup(void **state)
{
    struct world *w = calloc(1, sizeof(*w));

    w->b = calloc(1, SIZE);
    w->pm = (struct physmem){ fake_map, w->b };
    *state = w;
    return 0;
}

static int teardown(void **state)
{
    struct world *w = *state;

    free(w->b);
    free(w);
    return 0;
}

static void expect_region(const struct memmap *mm, unsigned i, uint64_t base, uint64_t len,
                          uint32_t type)
{
    assert_true(i < mm->n);
    assert_int_equal(mm->r[i].base, base);
    assert_int_equal(mm->r[i].len, len);
    assert_int_equal(mm->r[i].type, type);
}

/* A QEMU-like e820 map (type numbers as in the e820 / Multiboot mmap). */
static const struct {
    uint64_t base, len;
    uint32_t type;
} qemu_e820[] = {
    { 0x0, 0x9FC00, 1 },          { 0x9FC00, 0x400, 2 },        { 0xF0000, 0x10000, 2 },
    { 0x100000, 0x7EE0000, 1 },   { 0x7FE0000, 0x20000, 2 },    { 0xFFFC0000, 0x40000, 2 },
};
#define QEMU_E820_N (sizeof(qemu_e820) / sizeof(qemu_e820[0]))

/* Checks the normalized form of qemu_e820. */
static void expect_qemu_map(const struct memmap *mm)
{
    assert_int_equal(mm->n, 6);
    expect_region(mm, 0, 0x0, 0x9F000, MEMMAP_USABLE); /* page-trimmed */
    expect_region(mm, 1, 0x9FC00, 0x400, MEMMAP_RESERVED);
    expect_region(mm, 2, 0xF0000, 0x10000, MEMMAP_RESERVED);
    expect_region(mm, 3, 0x100000, 0x7EE0000, MEMMAP_USABLE);
    expect_region(mm, 5, 0xFFFC0000, 0x40000, MEMMAP_RESERVED);
    assert_int_equal(mm->dropped, 0);
}

/* ---- Multiboot 1 (0.6.96 §3.3) ---- */

/* One mmap entry: size field, then base, length, type; returns the next entry's offset. */
static size_t mb1_entry(uint8_t *p, size_t off, uint32_t size, uint64_t base, uint64_t len,
                        uint32_t type)
{
    put32(p, off, size);
    put64(p, off + 4, base);
    put64(p, off + 12, len);
    put32(p, off + 20, type);
    return off + 4 + size;
}

/* Info with cmdline, loader name and the QEMU map; returns mmap_length. */
static uint32_t mb1_build(struct world *w)
{
    uint8_t *info = at(w, MB1_INFO), *mm = at(w, MB1_MMAP);
    size_t off = 0;

    put32(info, 0, (1u << 0) | (1u << 2) | (1u << 6) | (1u << 9));
    put32(info, 4, 639);
    put32(info, 8, 130048);
    put32(info, 16, MB1_CMDLINE);
    strcpy((char *)at(w, MB1_CMDLINE), "console=ttyS0 selftest");
    put32(info, 64, MB1_LOADER);
    strcpy((char *)at(w, MB1_LOADER), "GRUB 2.06");
    for (size_t i = 0; i < QEMU_E820_N; i++) {
        off = mb1_entry(mm, off, 20, qemu_e820[i].base, qemu_e820[i].len, qemu_e820[i].type);
    }
    put32(info, 44, (uint32_t)off);
    put32(info, 48, MB1_MMAP);
    return (uint32_t)off;
}

static int parse1(struct world *w)
{
    int rc = bootinfo_parse_mb1(&w->pm, MB1_INFO, &w->bi, w->err, sizeof(w->err));

    assert_non_null(memchr(w->err, '\0', sizeof(w->err)));
    return rc;
}

static void test_mb1_with_mmap(void **state)
{
    struct world *w = *state;

    mb1_build(w);
    assert_int_equal(parse1(w), 0);
    assert_string_equal(w->err, "");
    assert_int_equal(w->bi.mb_version, 1);
    assert_string_equal(w->bi.cmdline, "console=ttyS0 selftest");
    assert_false(w->bi.cmdline_truncated);
    assert_string_equal(w->bi.loader, "GRUB 2.06");
    assert_string_equal(w->bi.mm_source, "multiboot1 mmap");
    assert_false(w->bi.has_rsdp);
    assert_false(w->bi.efi);
    expect_qemu_map(&w->bi.mm);
    assert_int_equal(memmap_usable_bytes(&w->bi.mm), 0x9F000 + 0x7EE0000);
}

static void test_mb1_without_mmap_flag(void **state)
{
    struct world *w = *state;
    uint8_t *info = at(w, MB1_INFO);

    mb1_build(w);
    put32(info, 0, 1u << 0); /* mem_lower/upper only */
    put32(info, 48, 0xDEAD0000); /* must not be read */
    put32(info, 16, 0xDEAD0000);
    assert_int_equal(parse1(w), 0);
    assert_string_equal(w->bi.mm_source, "multiboot1 mem_lower");
    assert_string_equal(w->bi.cmdline, "");
    assert_string_equal(w->bi.loader, "");
    assert_int_equal(w->bi.mm.n, 2);
    expect_region(&w->bi.mm, 0, 0, 0x9F000, MEMMAP_USABLE);
    expect_region(&w->bi.mm, 1, 0x100000, 130048ULL << 10, MEMMAP_USABLE);
}

static void test_mb1_no_memory_information(void **state)
{
    struct world *w = *state;

    mb1_build(w);
    put32(at(w, MB1_INFO), 0, 1u << 2);
    assert_int_equal(parse1(w), WS_ERR_NOT_FOUND);
    assert_string_equal(w->err, "multiboot1 info at 0x100000: flags 0x4 give no memory "
                                "information");
}

static void test_mb1_entry_size_too_small(void **state)
{
    struct world *w = *state;

    mb1_build(w);
    put32(at(w, MB1_MMAP), 24, 16); /* entry 1 */
    assert_int_equal(parse1(w), WS_ERR_INVAL);
    assert_string_equal(w->err, "multiboot1 mmap entry 1 at +24: size 16 < 20");
}

static void test_mb1_mmap_length_not_whole_entries(void **state)
{
    struct world *w = *state;
    uint32_t len = mb1_build(w);

    put32(at(w, MB1_INFO), 44, len + 2); /* two stray bytes after the last entry */
    assert_int_equal(parse1(w), WS_ERR_TRUNCATED);
    assert_string_equal(w->err, "multiboot1 mmap entry 6 at +144: runs past mmap_length 146");
    put32(at(w, MB1_INFO), 44, 40); /* cuts entry 1 */
    assert_int_equal(parse1(w), WS_ERR_TRUNCATED);
    assert_string_equal(w->err, "multiboot1 mmap entry 1 at +24: runs past mmap_length 40");
    put32(at(w, MB1_MMAP), 0, 0xFFFFFFF0); /* huge size: must not wrap the offset */
    assert_int_equal(parse1(w), WS_ERR_TRUNCATED);
}

/* Entries may be longer than 20 bytes (the size field says so); the walk must honour it. */
static void test_mb1_larger_entries(void **state)
{
    struct world *w = *state;
    uint8_t *mm = at(w, MB1_MMAP);
    size_t off = 0;

    mb1_build(w);
    memset(mm, 0xEE, 0x100);
    off = mb1_entry(mm, off, 28, 0x0, 0x9FC00, 1);
    off = mb1_entry(mm, off, 28, 0x100000, 0x100000, 1);
    put32(at(w, MB1_INFO), 44, (uint32_t)off);
    assert_int_equal(parse1(w), 0);
    assert_int_equal(w->bi.mm.n, 2);
    expect_region(&w->bi.mm, 1, 0x100000, 0x100000, MEMMAP_USABLE);
}

static void test_mb1_mmap_bad_pointer_or_length(void **state)
{
    struct world *w = *state;
    uint8_t *info = at(w, MB1_INFO);

    mb1_build(w);
    put32(info, 48, BASE + SIZE - 16); /* runs off the mapping */
    assert_int_equal(parse1(w), WS_ERR_RANGE);
    put32(info, 48, MB1_MMAP);
    put32(info, 44, 0);
    assert_int_equal(parse1(w), WS_ERR_INVAL);
    put32(info, 44, 0x80000000);
    assert_int_equal(parse1(w), WS_ERR_INVAL);
    assert_string_equal(w->err, "multiboot1 mmap at 0x100200: mmap_length 2147483648 outside "
                                "1..65536");
}

static void test_mb1_strings(void **state)
{
    struct world *w = *state;
    char *cmd = (char *)at(w, MB1_CMDLINE);

    mb1_build(w);
    memset(cmd, 'a', 0x80); /* 128 a's running on into the loader name: too long */
    assert_int_equal(parse1(w), 0);
    assert_true(w->bi.cmdline_truncated);
    assert_int_equal(strlen(w->bi.cmdline), BOOTINFO_CMDLINE_BYTES - 1);

    put32(at(w, MB1_INFO), 16, BASE + SIZE - 3); /* "xyz" then the end of memory */
    memcpy(at(w, BASE + SIZE - 3), "xyz", 3);
    assert_int_equal(parse1(w), WS_ERR_RANGE);
    assert_string_equal(w->err, "multiboot1 cmdline at 0x10fffd: byte 3 not in mapped memory");

    put32(at(w, MB1_INFO), 16, 0x5000); /* below the mapping */
    assert_int_equal(parse1(w), WS_ERR_RANGE);
}

static void test_mb1_info_unmapped(void **state)
{
    struct world *w = *state;

    assert_int_equal(bootinfo_parse_mb1(&w->pm, 0x2000, &w->bi, w->err, sizeof(w->err)),
                     WS_ERR_RANGE);
    assert_string_equal(w->err, "multiboot1 info at 0x2000: field at +0 not in mapped memory");
    /* Flags say mmap, but the info block ends before mmap_addr. */
    put32(at(w, BASE + SIZE - 8), 0, 1u << 6);
    assert_int_equal(bootinfo_parse_mb1(&w->pm, BASE + SIZE - 8, &w->bi, w->err,
                                        sizeof(w->err)), WS_ERR_RANGE);
}

static void test_mb1_wrapping_entry_and_no_usable(void **state)
{
    struct world *w = *state;
    uint8_t *mm = at(w, MB1_MMAP);

    mb1_build(w);
    mb1_entry(mm, 24, 20, 0xFFFFFFFFFFFFF000ULL, 0x2000, 2);
    assert_int_equal(parse1(w), WS_ERR_RANGE);
    assert_string_equal(w->err, "multiboot1 mmap entry 1: base 0xfffffffffffff000 length "
                                "0x2000 wraps");
    mb1_entry(mm, 0, 20, 0x0, 0x9FC00, 2);
    mb1_entry(mm, 24, 20, 0x100000, 0x1000, 4);
    put32(at(w, MB1_INFO), 44, 48);
    assert_int_equal(parse1(w), WS_ERR_NOT_FOUND);
    assert_string_equal(w->err, "multiboot1 mmap: no usable memory");
}

/* More entries than the table holds: the excess is counted, the parse still succeeds. */
static void test_mb1_more_entries_than_table(void **state)
{
    struct world *w = *state;
    uint8_t *mm = at(w, MB1_MMAP);
    size_t off = 0;

    mb1_build(w);
    for (uint64_t i = 0; i < WS_MAX_MEM_REGIONS + 10; i++) {
        off = mb1_entry(mm, off, 20, 0x1000000 + i * 0x10000, 0x1000, 1);
    }
    put32(at(w, MB1_INFO), 44, (uint32_t)off);
    assert_int_equal(parse1(w), 0);
    assert_int_equal(w->bi.mm.n, WS_MAX_MEM_REGIONS);
    assert_int_equal(w->bi.mm.dropped, 10);
}

/* ---- Multiboot2 (2.0 §3.6) ---- */

struct mb2 {
    uint8_t *p;
    size_t off;
};

static struct mb2 mb2_begin(struct world *w)
{
    return (struct mb2){ at(w, MB2_INFO), 8 };
}

/* Appends a tag with len payload bytes and pads to 8; returns the payload. */
static uint8_t *mb2_tag(struct mb2 *m, uint32_t type, const void *payload, size_t len)
{
    uint8_t *t = m->p + m->off;

    put32(t, 0, type);
    put32(t, 4, (uint32_t)(8 + len));
    if (payload != NULL) {
        memcpy(t + 8, payload, len);
    }
    m->off += (8 + len + 7) & ~(size_t)7;
    return t + 8;
}

static void mb2_end(struct mb2 *m)
{
    mb2_tag(m, 0, NULL, 0);
    put32(m->p, 0, (uint32_t)m->off);
}

/* Tag 6 with the QEMU map and the given entry size. */
static void mb2_mmap(struct mb2 *m, uint32_t esize)
{
    uint8_t *t = mb2_tag(m, 6, NULL, 8 + QEMU_E820_N * esize);

    put32(t, 0, esize);
    put32(t, 4, 0);
    for (size_t i = 0; i < QEMU_E820_N; i++) {
        put64(t, 8 + i * esize, qemu_e820[i].base);
        put64(t, 16 + i * esize, qemu_e820[i].len);
        put32(t, 24 + i * esize, qemu_e820[i].type);
    }
}

static void mb2_rsdp(struct mb2 *m, uint32_t type, size_t len, uint8_t fill)
{
    uint8_t r[36];

    memset(r, fill, sizeof(r));
    memcpy(r, "RSD PTR ", 8);
    mb2_tag(m, type, r, len);
}

/* GRUB-on-BIOS-like: cmdline, loader, an unknown tag, basic meminfo, mmap, both RSDPs. */
static void mb2_build(struct world *w)
{
    struct mb2 m = mb2_begin(w);
    uint32_t basic[2] = { 639, 130048 };

    mb2_tag(&m, 1, "console=ttyS0", 14);
    mb2_tag(&m, 2, "GRUB 2.06-13", 13);
    mb2_tag(&m, 99, "whatever", 5); /* unknown, odd size: padded */
    mb2_tag(&m, 4, basic, sizeof(basic));
    mb2_mmap(&m, 24);
    mb2_rsdp(&m, 14, 20, 0x11);
    mb2_rsdp(&m, 15, 36, 0x22);
    mb2_end(&m);
}

static int parse2(struct world *w)
{
    int rc = bootinfo_parse_mb2(&w->pm, MB2_INFO, &w->bi, w->err, sizeof(w->err));

    assert_non_null(memchr(w->err, '\0', sizeof(w->err)));
    return rc;
}

static void test_mb2_valid(void **state)
{
    struct world *w = *state;

    mb2_build(w);
    assert_int_equal(parse2(w), 0);
    assert_string_equal(w->err, "");
    assert_int_equal(w->bi.mb_version, 2);
    assert_string_equal(w->bi.cmdline, "console=ttyS0");
    assert_string_equal(w->bi.loader, "GRUB 2.06-13");
    assert_string_equal(w->bi.mm_source, "multiboot2 tag 6");
    expect_qemu_map(&w->bi.mm);
    assert_true(w->bi.has_rsdp);
    assert_string_equal(w->bi.rsdp_source, "multiboot2 tag 15");
    assert_int_equal(w->bi.rsdp_len, 36);
    assert_memory_equal(w->bi.rsdp, "RSD PTR ", 8);
    assert_int_equal(w->bi.rsdp[35], 0x22);
    assert_false(w->bi.efi);
}

static void test_mb2_bad_total_size(void **state)
{
    struct world *w = *state;
    uint8_t *info = at(w, MB2_INFO);

    mb2_build(w);
    put32(info, 0, 8);
    assert_int_equal(parse2(w), WS_ERR_INVAL);
    assert_string_equal(w->err, "multiboot2 info at 0x101000: total_size 8 outside "
                                "16..1048576");
    put32(info, 0, 0xFFFFFFF8);
    assert_int_equal(parse2(w), WS_ERR_INVAL);
    put32(info, 0, SIZE); /* within the cap, past the mapping */
    assert_int_equal(parse2(w), WS_ERR_TRUNCATED);
    assert_string_equal(w->err, "multiboot2 info at 0x101000: total_size 65536 runs past "
                                "mapped memory");
    assert_int_equal(bootinfo_parse_mb2(&w->pm, MB2_INFO + 4, &w->bi, w->err, sizeof(w->err)),
                     WS_ERR_INVAL); /* not 8-byte aligned */
    assert_int_equal(bootinfo_parse_mb2(&w->pm, 0x1000, &w->bi, w->err, sizeof(w->err)),
                     WS_ERR_INVAL); /* unmapped */
}

static void test_mb2_tag_size_below_8(void **state)
{
    struct world *w = *state;

    mb2_build(w);
    put32(at(w, MB2_INFO), 12, 4); /* first tag */
    assert_int_equal(parse2(w), WS_ERR_INVAL);
    assert_string_equal(w->err, "multiboot2 tag 1 at offset 8: size 4 < 8");
    put32(at(w, MB2_INFO), 12, 0); /* zero: would loop forever if trusted */
    assert_int_equal(parse2(w), WS_ERR_INVAL);
}

static void test_mb2_tag_past_total_size(void **state)
{
    struct world *w = *state;

    mb2_build(w);
    put32(at(w, MB2_INFO), 12, 0x10000);
    assert_int_equal(parse2(w), WS_ERR_TRUNCATED);
    assert_string_equal(w->err, "multiboot2 tag 1 at offset 8: size 65536 runs past "
                                "total_size 336");
}

static void test_mb2_missing_end_tag(void **state)
{
    struct world *w = *state;
    struct mb2 m = mb2_begin(w);

    mb2_tag(&m, 1, "x", 2);
    mb2_mmap(&m, 24);
    put32(m.p, 0, (uint32_t)m.off); /* no end tag: total_size ends right after the mmap */
    assert_int_equal(parse2(w), WS_ERR_TRUNCATED);
    assert_string_equal(w->err, "multiboot2: no end tag within total_size 184");
    /* A last tag whose padding would overshoot total_size. */
    m = mb2_begin(w);
    mb2_tag(&m, 1, "abc", 3);
    put32(m.p, 0, 8 + 11);
    assert_int_equal(parse2(w), WS_ERR_TRUNCATED);
}

static void test_mb2_unknown_and_duplicate_tags(void **state)
{
    struct world *w = *state;
    struct mb2 m = mb2_begin(w);

    mb2_tag(&m, 0x7FFFFFFF, NULL, 100);
    mb2_tag(&m, 21, "\0\0\0\0", 4); /* load base address: known to the spec, unused here */
    mb2_tag(&m, 1, "first", 6);
    mb2_tag(&m, 1, "second", 7);
    mb2_mmap(&m, 24);
    mb2_end(&m);
    assert_int_equal(parse2(w), 0);
    assert_string_equal(w->bi.cmdline, "first");
    assert_false(w->bi.has_rsdp);
}

static void test_mb2_mmap_entry_size(void **state)
{
    struct world *w = *state;
    struct mb2 m = mb2_begin(w);
    uint8_t *t;

    mb2_mmap(&m, 16);
    mb2_end(&m);
    assert_int_equal(parse2(w), WS_ERR_INVAL);
    assert_string_equal(w->err, "multiboot2 tag 6 at offset 8: entry size 16 < 24");

    m = mb2_begin(w); /* larger entries are fine and stepped over by entry_size */
    mb2_mmap(&m, 32);
    mb2_end(&m);
    assert_int_equal(parse2(w), 0);
    expect_qemu_map(&w->bi.mm);

    m = mb2_begin(w); /* a partial entry at the end */
    t = mb2_tag(&m, 6, NULL, 8 + 24 + 10);
    put32(t, 0, 24);
    mb2_end(&m);
    assert_int_equal(parse2(w), WS_ERR_TRUNCATED);
    assert_string_equal(w->err, "multiboot2 tag 6 at offset 8: 34 bytes of entries, not a "
                                "multiple of 24");

    m = mb2_begin(w); /* too short to hold entry_size */
    mb2_tag(&m, 6, NULL, 4);
    mb2_end(&m);
    assert_int_equal(parse2(w), WS_ERR_TRUNCATED);
}

static void test_mb2_acpi_tags(void **state)
{
    struct world *w = *state;
    struct mb2 m = mb2_begin(w);

    mb2_mmap(&m, 24);
    mb2_rsdp(&m, 14, 20, 0x11);
    mb2_end(&m);
    assert_int_equal(parse2(w), 0);
    assert_true(w->bi.has_rsdp);
    assert_int_equal(w->bi.rsdp_len, 20);
    assert_string_equal(w->bi.rsdp_source, "multiboot2 tag 14");

    m = mb2_begin(w);
    mb2_mmap(&m, 24);
    mb2_rsdp(&m, 15, 20, 0x22); /* a "new" RSDP too short for its XSDT fields */
    mb2_end(&m);
    assert_int_equal(parse2(w), WS_ERR_TRUNCATED);
    assert_string_equal(w->err, "multiboot2 tag 15 at offset 168: 20 bytes of RSDP, need 36");

    m = mb2_begin(w);
    mb2_mmap(&m, 24);
    mb2_rsdp(&m, 14, 12, 0x11);
    mb2_end(&m);
    assert_int_equal(parse2(w), WS_ERR_TRUNCATED);
}

/* §3.6.19 EFI memory map with 48-byte descriptors as OVMF uses. */
static void mb2_efi_map(struct mb2 *m, uint32_t dsize)
{
    static const struct {
        uint32_t type;
        uint64_t start, pages;
    } d[] = {
        { 7, 0x0, 0x9F },          /* conventional */
        { 6, 0x9F000, 0x1 },       /* runtime services data */
        { 2, 0x100000, 0x100 },    /* loader data: free once we run */
        { 3, 0x200000, 0x100 },    /* boot services code */
        { 4, 0x300000, 0x100 },    /* boot services data */
        { 7, 0x400000, 0x7B00 },   /* conventional */
        { 9, 0x7F00000, 0x10 },    /* ACPI reclaim */
        { 10, 0x7F10000, 0x10 },   /* ACPI NVS */
        { 8, 0x7F20000, 0x10 },    /* unusable */
        { 11, 0xFFC00000, 0x400 }, /* MMIO */
    };
    uint8_t *t = mb2_tag(m, 17, NULL, 8 + (sizeof(d) / sizeof(d[0])) * dsize);

    put32(t, 0, dsize);
    put32(t, 4, 1);
    for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
        put32(t, 8 + i * dsize, d[i].type);
        put64(t, 8 + i * dsize + 8, d[i].start);
        put64(t, 8 + i * dsize + 16, 0xFFFF800000000000ULL); /* virtual start: ignored */
        put64(t, 8 + i * dsize + 24, d[i].pages);
        put64(t, 8 + i * dsize + 32, 0xF);
    }
}

static void test_mb2_efi_map(void **state)
{
    struct world *w = *state;
    struct mb2 m = mb2_begin(w);
    uint64_t sys = 0x7FF00000;

    mb2_tag(&m, 12, &sys, 8);
    mb2_mmap(&m, 24); /* GRUB's copy: the EFI map wins */
    mb2_efi_map(&m, 48);
    mb2_end(&m);
    assert_int_equal(parse2(w), 0);
    assert_true(w->bi.efi);
    assert_false(w->bi.efi_boot_services);
    assert_string_equal(w->bi.mm_source, "multiboot2 tag 17");
    assert_int_equal(w->bi.mm.n, 7);
    expect_region(&w->bi.mm, 0, 0x0, 0x9F000, MEMMAP_USABLE);
    expect_region(&w->bi.mm, 1, 0x9F000, 0x1000, MEMMAP_RESERVED);
    expect_region(&w->bi.mm, 2, 0x100000, 0x7E00000, MEMMAP_USABLE); /* merged 1..7 */
    expect_region(&w->bi.mm, 3, 0x7F00000, 0x10000, MEMMAP_ACPI_RECLAIM);
    expect_region(&w->bi.mm, 4, 0x7F10000, 0x10000, MEMMAP_ACPI_NVS);
    expect_region(&w->bi.mm, 5, 0x7F20000, 0x10000, MEMMAP_BAD);
    expect_region(&w->bi.mm, 6, 0xFFC00000, 0x400000, MEMMAP_RESERVED);
}

/* Tag 18: boot services still own their memory. */
static void test_mb2_efi_boot_services_running(void **state)
{
    struct world *w = *state;
    struct mb2 m = mb2_begin(w);

    mb2_efi_map(&m, 48);
    mb2_tag(&m, 18, NULL, 0); /* after the map: order must not matter */
    mb2_end(&m);
    assert_int_equal(parse2(w), 0);
    assert_true(w->bi.efi_boot_services);
    expect_region(&w->bi.mm, 2, 0x100000, 0x100000, MEMMAP_USABLE);
    expect_region(&w->bi.mm, 3, 0x200000, 0x200000, MEMMAP_RESERVED);
    expect_region(&w->bi.mm, 4, 0x400000, 0x7B00000, MEMMAP_USABLE);
}

static void test_mb2_efi_map_bad(void **state)
{
    struct world *w = *state;
    struct mb2 m = mb2_begin(w);
    uint8_t *t;

    mb2_efi_map(&m, 32);
    mb2_end(&m);
    assert_int_equal(parse2(w), WS_ERR_INVAL);
    assert_string_equal(w->err, "multiboot2 tag 17 at offset 8: entry size 32 < 40");

    m = mb2_begin(w);
    t = mb2_tag(&m, 17, NULL, 8 + 40);
    put32(t, 0, 40);
    put32(t, 8, 7);
    put64(t, 8 + 24, 1ULL << 60); /* pages: 2^72 bytes */
    mb2_end(&m);
    assert_int_equal(parse2(w), WS_ERR_RANGE);
    assert_string_equal(w->err, "multiboot2 tag 17 descriptor 0: 0x1000000000000000 pages");
}

static void test_mb2_basic_meminfo_only_and_none(void **state)
{
    struct world *w = *state;
    struct mb2 m = mb2_begin(w);
    uint32_t basic[2] = { 639, 1024 };

    mb2_tag(&m, 4, basic, sizeof(basic));
    mb2_end(&m);
    assert_int_equal(parse2(w), 0);
    assert_string_equal(w->bi.mm_source, "multiboot2 tag 4");
    assert_int_equal(memmap_usable_bytes(&w->bi.mm), 0x9F000 + 0x100000);

    m = mb2_begin(w);
    mb2_tag(&m, 4, basic, 4); /* mem_upper missing */
    mb2_end(&m);
    assert_int_equal(parse2(w), WS_ERR_TRUNCATED);
    assert_string_equal(w->err, "multiboot2 tag 4 at offset 8: size 12 < 16");

    m = mb2_begin(w);
    mb2_tag(&m, 1, "no memory", 10);
    mb2_end(&m);
    assert_int_equal(parse2(w), WS_ERR_NOT_FOUND);
    assert_string_equal(w->err, "multiboot2: no memory map (tags 17, 6 or 4)");
}

/* Strings are bounded by their tag even without a NUL, and cut to the buffer. */
static void test_mb2_strings(void **state)
{
    struct world *w = *state;
    struct mb2 m = mb2_begin(w);
    char longer[200];

    memset(longer, 'c', sizeof(longer));
    mb2_tag(&m, 1, longer, sizeof(longer));
    mb2_tag(&m, 2, "GRUB", 4); /* no NUL */
    mb2_tag(&m, 99, "ZZZZZZZZ", 8);
    mb2_mmap(&m, 24);
    mb2_end(&m);
    assert_int_equal(parse2(w), 0);
    assert_true(w->bi.cmdline_truncated);
    assert_int_equal(strlen(w->bi.cmdline), BOOTINFO_CMDLINE_BYTES - 1);
    assert_string_equal(w->bi.loader, "GRUB");
}

static void test_parse_by_magic(void **state)
{
    struct world *w = *state;

    mb1_build(w);
    mb2_build(w);
    assert_int_equal(bootinfo_parse(&w->pm, BOOTINFO_MB1_MAGIC, MB1_INFO, &w->bi, w->err,
                                    sizeof(w->err)), 0);
    assert_int_equal(w->bi.mb_version, 1);
    assert_int_equal(bootinfo_parse(&w->pm, BOOTINFO_MB2_MAGIC, MB2_INFO, &w->bi, w->err,
                                    sizeof(w->err)), 0);
    assert_int_equal(w->bi.mb_version, 2);
    assert_int_equal(bootinfo_parse(&w->pm, 0x12345678, MB2_INFO, &w->bi, w->err,
                                    sizeof(w->err)), WS_ERR_INVAL);
    assert_string_equal(w->err, "boot magic 0x12345678 is neither Multiboot 1 nor Multiboot 2");
    assert_int_equal(bootinfo_parse(&w->pm, 0x12345678, MB2_INFO, &w->bi, NULL, 0),
                     WS_ERR_INVAL);
}

/* Random bit flips in valid structures: no sanitizer report, a terminated message. */
static void test_random_corruption(void **state)
{
    struct world *w = *state;
    uint32_t seed = 7;

    for (unsigned iter = 0; iter < 4000; iter++) {
        memset(w->b, 0, SIZE);
        mb1_build(w);
        mb2_build(w);
        for (unsigned k = 0; k < 1 + iter % 4; k++) {
            size_t off;
            seed = seed * 1103515245u + 12345u;
            off = iter % 2 ? 0x1000 + (seed >> 8) % 320 : (seed >> 8) % 0x300;
            w->b[off] ^= (uint8_t)(1u << ((seed >> 4) % 8));
        }
        (void)parse1(w);
        (void)parse2(w);
    }
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_mb1_with_mmap),
        T(test_mb1_without_mmap_flag),
        T(test_mb1_no_memory_information),
        T(test_mb1_entry_size_too_small),
        T(test_mb1_mmap_length_not_whole_entries),
        T(test_mb1_larger_entries),
        T(test_mb1_mmap_bad_pointer_or_length),
        T(test_mb1_strings),
        T(test_mb1_info_unmapped),
        T(test_mb1_wrapping_entry_and_no_usable),
        T(test_mb1_more_entries_than_table),
        T(test_mb2_valid),
        T(test_mb2_bad_total_size),
        T(test_mb2_tag_size_below_8),
        T(test_mb2_tag_past_total_size),
        T(test_mb2_missing_end_tag),
        T(test_mb2_unknown_and_duplicate_tags),
        T(test_mb2_mmap_entry_size),
        T(test_mb2_acpi_tags),
        T(test_mb2_efi_map),
        T(test_mb2_efi_boot_services_running),
        T(test_mb2_efi_map_bad),
        T(test_mb2_basic_meminfo_only_and_none),
        T(test_mb2_strings),
        T(test_parse_by_magic),
        T(test_random_corruption),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
