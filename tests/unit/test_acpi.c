/*
 * tests/unit/test_acpi.c: acpi_find_rsdp/acpi_parse on synthetic tables built here from the
 * spec's byte offsets (not from acpi.c's structs, so the layouts are checked independently),
 * then corrupted one way at a time.
 * Build: gcc -std=gnu11 -g -O1 -Wall -Wextra -Werror -fsanitize=address,undefined
 *        -fno-sanitize-recover=all -Ikernel tests/unit/test_acpi.c kernel/acpi.c kernel/err.c
 *        -lcmocka
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "acpi.h"
#include "err.h"

/* ---- fake physical memory: one heap buffer at a fake base, so ASan sees any overrun ---- */

struct fakemem {
    uint64_t base;
    uint8_t *buf;
    size_t size;
};

static const void *fake_map(const struct physmem *pm, uint64_t phys, size_t len)
{
    const struct fakemem *f = pm->ctx;

    if (phys < f->base || phys - f->base > f->size || len > f->size - (phys - f->base)) {
        return NULL;
    }
    return f->buf + (phys - f->base);
}

/* ---- table builders ---- */

#define BASE 0x7FFE0000ULL
#define SIZE 0x4000
#define RSDP_OFF 0x0
#define XSDT_OFF 0x100
#define RSDT_OFF 0x200
#define MADT_OFF 0x400
#define MCFG_OFF 0x1000
#define HPET_OFF 0x1100
#define FADT_OFF 0x1200
#define SPARE_OFF 0x2000

struct world {
    struct fakemem mem;
    struct physmem pm;
    uint8_t *b;
    struct acpi_info info;
    char err[128];
};

static void put16(uint8_t *p, size_t off, uint16_t v)
{
    memcpy(p + off, &v, sizeof(v));
}

static void put32(uint8_t *p, size_t off, uint32_t v)
{
    memcpy(p + off, &v, sizeof(v));
}

static void put64(uint8_t *p, size_t off, uint64_t v)
{
    memcpy(p + off, &v, sizeof(v));
}

static uint8_t sum(const uint8_t *p, size_t n)
{
    uint8_t s = 0;

    while (n-- > 0) {
        s = (uint8_t)(s + *p++);
    }
    return s;
}

/* Makes bytes [0, n) of p sum to 0 by adjusting the byte at csum. */
static void fix_sum(uint8_t *p, size_t n, size_t csum)
{
    p[csum] = 0;
    p[csum] = (uint8_t)(0x100 - sum(p, n));
}

/* §5.2.6 header: sig 0, length 4, revision 8, checksum 9, OEM ID 10, OEM table ID 16. */
static void sdt_begin(uint8_t *t, const char *sig, uint8_t rev)
{
    memcpy(t, sig, 4);
    t[8] = rev;
    memcpy(t + 10, "BOCHS ", 6);
    memcpy(t + 16, "BXPC    ", 8);
}

static void sdt_end(uint8_t *t, uint32_t len)
{
    put32(t, 4, len);
    fix_sum(t, len, 9);
}

/* §5.2.5.3: checksum 8 over 20 bytes, RSDT 16; rev 2: length 20, XSDT 24, ext checksum 32. */
static void build_rsdp(uint8_t *p, uint8_t rev, uint32_t rsdt, uint64_t xsdt)
{
    memset(p, 0, rev >= 2 ? 36 : 20);
    memcpy(p, "RSD PTR ", 8);
    memcpy(p + 9, "BOCHS ", 6);
    p[15] = rev;
    put32(p, 16, rsdt);
    fix_sum(p, 20, 8);
    if (rev >= 2) {
        put32(p, 20, 36);
        put64(p, 24, xsdt);
        fix_sum(p, 36, 32);
    }
}

/* XSDT and RSDT listing the same tables (given as offsets), and a revision 2 RSDP. */
static void build_roots(struct world *w, const size_t *offs, unsigned n)
{
    sdt_begin(w->b + XSDT_OFF, "XSDT", 1);
    sdt_begin(w->b + RSDT_OFF, "RSDT", 1);
    for (unsigned i = 0; i < n; i++) {
        put64(w->b + XSDT_OFF, 36 + 8 * i, BASE + offs[i]);
        put32(w->b + RSDT_OFF, 36 + 4 * i, (uint32_t)(BASE + offs[i]));
    }
    sdt_end(w->b + XSDT_OFF, 36 + 8 * n);
    sdt_end(w->b + RSDT_OFF, 36 + 4 * n);
    build_rsdp(w->b + RSDP_OFF, 2, (uint32_t)(BASE + RSDT_OFF), BASE + XSDT_OFF);
}

/* MADT builder (§5.2.12): fixed part 44 bytes, then subtables appended at len. */
struct madt {
    uint8_t *t;
    size_t len;
};

static struct madt madt_begin(uint8_t *t, uint8_t rev)
{
    sdt_begin(t, "APIC", rev);
    put32(t, 36, 0xFEE00000);
    put32(t, 40, 1); /* PCAT_COMPAT */
    return (struct madt){ t, 44 };
}

static uint8_t *madt_sub(struct madt *m, uint8_t type, uint8_t len)
{
    uint8_t *s = m->t + m->len;

    memset(s, 0, len < 2 ? 2 : len);
    s[0] = type;
    s[1] = len;
    m->len += len < 2 ? 2 : len;
    return s;
}

static void madt_lapic(struct madt *m, uint8_t uid, uint8_t id, uint32_t flags)
{
    uint8_t *s = madt_sub(m, 0, 8);

    s[2] = uid;
    s[3] = id;
    put32(s, 4, flags);
}

static void madt_x2apic(struct madt *m, uint32_t id, uint32_t uid, uint32_t flags)
{
    uint8_t *s = madt_sub(m, 9, 16);

    put32(s, 4, id);
    put32(s, 8, flags);
    put32(s, 12, uid);
}

static void madt_ioapic(struct madt *m, uint8_t id, uint32_t addr, uint32_t gsi)
{
    uint8_t *s = madt_sub(m, 1, 12);

    s[2] = id;
    put32(s, 4, addr);
    put32(s, 8, gsi);
}

static void madt_iso(struct madt *m, uint8_t src, uint32_t gsi, uint16_t flags)
{
    uint8_t *s = madt_sub(m, 2, 10);

    s[3] = src;
    put32(s, 4, gsi);
    put16(s, 8, flags);
}

static void madt_end(struct madt *m)
{
    sdt_end(m->t, (uint32_t)m->len);
}

/* MCFG: 44-byte fixed part, 16-byte entries: base 0, segment 8, bus start 10, bus end 11. */
static void build_mcfg(uint8_t *t, uint64_t base, uint16_t seg, uint8_t b0, uint8_t b1)
{
    sdt_begin(t, "MCFG", 1);
    put64(t, 44, base);
    put16(t, 52, seg);
    t[54] = b0;
    t[55] = b1;
    sdt_end(t, 60);
}

/* HPET: event timer block GAS at 40 (space id 40, address 44); 56 bytes. */
static void build_hpet(uint8_t *t, uint8_t space, uint64_t addr)
{
    sdt_begin(t, "HPET", 1);
    t[40] = space;
    put64(t, 44, addr);
    sdt_end(t, 56);
}

/* FADT: CENTURY 108, Flags 112 (bit 10 RESET_REG_SUP), RESET_REG GAS 116, RESET_VALUE 128. */
static void build_fadt(uint8_t *t, uint32_t len)
{
    sdt_begin(t, "FACP", len > 116 ? 6 : 1);
    t[108] = 0x32;
    if (len > 128) {
        put32(t, 112, 1u << 10);
        t[116] = 1; /* system I/O */
        put64(t, 120, 0xCF9);
        t[128] = 0x06;
    }
    sdt_end(t, len);
}

/* FADT's PM timer: PM_TMR_BLK (I/O port) at 76, PM_TMR_LEN at 91, X_PM_TMR_BLK GAS at 208
 * (space 208, address 212); Flags bit 8 TMR_VAL_EXT. What QEMU's q35 has: port 0x608, 24 bits.
 * The table must be at least 220 bytes long for the GAS. */
static void fadt_pm_timer(uint8_t *t, uint32_t port, uint8_t tmr_len, uint8_t x_space,
                          uint64_t x_addr, bool ext)
{
    uint32_t flags;
    memcpy(&flags, t + 112, 4);
    put32(t, 76, port);
    t[91] = tmr_len;
    t[208] = x_space;
    put64(t, 212, x_addr);
    put32(t, 112, ext ? flags | (1u << 8) : flags & ~(1u << 8));
    uint32_t len;
    memcpy(&len, t + 4, 4);
    sdt_end(t, len);
}

/* SPCR (80 bytes): interface type 36, base address GAS at 40 (space 40, address 44), baud 58. */
static void build_spcr(uint8_t *t, uint8_t type, uint8_t space, uint64_t addr, uint8_t baud)
{
    sdt_begin(t, "SPCR", 2);
    t[36] = type;
    t[40] = space;
    t[41] = 8;
    put64(t, 44, addr);
    t[58] = baud;
    sdt_end(t, 80);
}

/* QEMU q35-like set: ncpu enabled CPUs, one I/O APIC, two overrides, MCFG, HPET, FADT. */
static void build_world(struct world *w, unsigned ncpu)
{
    static const size_t tables[] = { FADT_OFF, MADT_OFF, HPET_OFF, MCFG_OFF };
    struct madt m = madt_begin(w->b + MADT_OFF, 1);

    for (unsigned i = 0; i < ncpu; i++) {
        madt_lapic(&m, (uint8_t)i, (uint8_t)i, 1);
    }
    madt_ioapic(&m, 0, 0xFEC00000, 0);
    madt_iso(&m, 0, 2, 0);
    madt_iso(&m, 9, 9, 0xD);
    madt_end(&m);
    build_mcfg(w->b + MCFG_OFF, 0xB0000000, 0, 0, 255);
    build_hpet(w->b + HPET_OFF, 0, 0xFED00000);
    build_fadt(w->b + FADT_OFF, 244);
    build_roots(w, tables, 4);
}

static int setup(void **state)
{
    struct world *w = calloc(1, sizeof(*w));

    w->b = calloc(1, SIZE);
    w->mem = (struct fakemem){ BASE, w->b, SIZE };
    w->pm = (struct physmem){ fake_map, &w->mem };
    build_world(w, 4);
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

static int parse(struct world *w)
{
    int rc = acpi_parse(&w->pm, w->b + RSDP_OFF, 36, &w->info, w->err, sizeof(w->err));

    assert_non_null(memchr(w->err, '\0', sizeof(w->err)));
    for (unsigned i = 0; i < w->info.nwarn; i++) {
        assert_non_null(memchr(w->info.warn[i], '\0', ACPI_WARNING_BYTES));
    }
    return rc;
}

/* True if some warning line contains s. */
static bool warned(const struct world *w, const char *s)
{
    for (unsigned i = 0; i < w->info.nwarn; i++) {
        if (strstr(w->info.warn[i], s) != NULL) {
            return true;
        }
    }
    return false;
}

/* Re-finishes the MADT after a test appended or changed subtables. */
static struct madt madt_at(struct world *w, uint8_t rev)
{
    return madt_begin(w->b + MADT_OFF, rev);
}

/* ---- valid tables ---- */

static void test_qemu_four_cpus(void **state)
{
    struct world *w = *state;
    const struct acpi_info *a = &w->info;

    assert_int_equal(parse(w), 0);
    assert_string_equal(w->err, "");
    assert_int_equal(a->nwarn, 0);
    assert_int_equal(a->revision, 2);
    assert_string_equal(a->oem_id, "BOCHS ");
    assert_true(a->root_is_xsdt);
    assert_int_equal(a->root_phys, BASE + XSDT_OFF);
    assert_int_equal(a->lapic_phys, 0xFEE00000);
    assert_true(a->pcat_compat);
    assert_int_equal(a->ncpu, 4);
    assert_int_equal(a->ncpu_enabled, 4);
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(a->cpu[i].apic_id, i);
        assert_int_equal(a->cpu[i].uid, i);
        assert_true(a->cpu[i].enabled);
    }
    assert_int_equal(a->nioapic, 1);
    assert_int_equal(a->ioapic[0].phys, 0xFEC00000);
    assert_int_equal(a->ioapic[0].gsi_base, 0);
    assert_int_equal(a->niso, 2);
    assert_int_equal(a->iso[0].source, 0);
    assert_int_equal(a->iso[0].gsi, 2);
    assert_int_equal(a->iso[1].source, 9);
    assert_int_equal(a->iso[1].flags, 0xD);
    assert_int_equal(a->nmcfg, 1);
    assert_int_equal(a->mcfg[0].base, 0xB0000000);
    assert_int_equal(a->mcfg[0].bus_end, 255);
    assert_true(a->has_hpet);
    assert_int_equal(a->hpet_phys, 0xFED00000);
    assert_true(a->has_fadt);
    assert_int_equal(a->century_index, 0x32);
    assert_true(a->reset.valid);
    assert_int_equal(a->reset.space, 1);
    assert_int_equal(a->reset.addr, 0xCF9);
    assert_int_equal(a->reset.value, 6);
}

static void test_two_cpus_one_disabled(void **state)
{
    struct world *w = *state;
    struct madt m = madt_at(w, 1);

    madt_lapic(&m, 0, 0, 1);
    madt_lapic(&m, 1, 1, 0); /* MADT rev 1: a disabled entry is a hot-plug socket */
    madt_lapic(&m, 2, 2, 1);
    madt_ioapic(&m, 0, 0xFEC00000, 0);
    madt_end(&m);
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.ncpu, 3);
    assert_int_equal(w->info.ncpu_enabled, 2);
    assert_int_equal(w->info.cpu[0].apic_id, 0);
    assert_int_equal(w->info.cpu[1].apic_id, 2);
    assert_int_equal(w->info.cpu[2].apic_id, 1);
    assert_false(w->info.cpu[2].enabled);
}

/* MADT revision 5+: flags 0 means unusable (left out), bit 1 means online capable. */
static void test_online_capable(void **state)
{
    struct world *w = *state;
    struct madt m = madt_at(w, 5);

    madt_lapic(&m, 0, 0, 1);
    madt_lapic(&m, 1, 1, 0);
    madt_lapic(&m, 2, 2, 2);
    madt_end(&m);
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.ncpu, 2);
    assert_int_equal(w->info.ncpu_enabled, 1);
    assert_int_equal(w->info.cpu[1].apic_id, 2);
    assert_false(w->info.cpu[1].enabled);
}

static void test_x2apic_entries(void **state)
{
    struct world *w = *state;
    struct madt m = madt_at(w, 4);

    madt_lapic(&m, 0, 0, 1);
    madt_lapic(&m, 1, 0xFF, 1);      /* broadcast ID: not a CPU */
    madt_x2apic(&m, 0, 0, 1);        /* same CPU again as x2APIC: listed once */
    madt_x2apic(&m, 300, 300, 1);    /* IDs above 254 only exist as x2APIC */
    madt_x2apic(&m, 0xFFFFFFFF, 7, 1);
    madt_x2apic(&m, 301, 301, 0);
    madt_end(&m);
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.ncpu_enabled, 2);
    assert_int_equal(w->info.ncpu, 3);
    assert_int_equal(w->info.cpu[0].apic_id, 0);
    assert_int_equal(w->info.cpu[1].apic_id, 300);
    assert_int_equal(w->info.cpu[1].uid, 300);
    assert_int_equal(w->info.cpu[2].apic_id, 301);
}

static void test_lapic_address_override(void **state)
{
    struct world *w = *state;
    struct madt m = madt_at(w, 1);
    uint8_t *s;

    madt_lapic(&m, 0, 0, 1);
    s = madt_sub(&m, 5, 12);
    put64(s, 4, 0x1FEE00000ULL);
    madt_end(&m);
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.lapic_phys, 0x1FEE00000ULL);
}

static void test_rsdp_v1_uses_rsdt(void **state)
{
    struct world *w = *state;

    build_rsdp(w->b + RSDP_OFF, 0, (uint32_t)(BASE + RSDT_OFF), 0);
    assert_int_equal(acpi_parse(&w->pm, w->b, 20, &w->info, w->err, sizeof(w->err)), 0);
    assert_false(w->info.root_is_xsdt);
    assert_int_equal(w->info.root_phys, BASE + RSDT_OFF);
    assert_int_equal(w->info.ncpu_enabled, 4);
    assert_int_equal(w->info.nmcfg, 1);
}

/* A revision 2 RSDP handed over as only 20 bytes (Multiboot 2 tag 14) falls back to the RSDT. */
static void test_rsdp_v2_short_copy(void **state)
{
    struct world *w = *state;

    assert_int_equal(acpi_parse(&w->pm, w->b, 20, &w->info, w->err, sizeof(w->err)), 0);
    assert_false(w->info.root_is_xsdt);
    assert_true(warned(w, "RSDP: revision 2 but only 20 bytes given"));
}

/* ---- fatal problems ---- */

static void test_rsdp_bad_checksum(void **state)
{
    struct world *w = *state;

    w->b[RSDP_OFF + 16] ^= 0x01; /* RSDT address */
    assert_int_equal(parse(w), WS_ERR_CHECKSUM);
    assert_string_equal(w->err, "RSDP: checksum 0x1, expected 0");
}

static void test_rsdp_bad_signature_and_short(void **state)
{
    struct world *w = *state;

    assert_int_equal(acpi_parse(&w->pm, w->b, 19, &w->info, w->err, sizeof(w->err)),
                     WS_ERR_TRUNCATED);
    assert_int_equal(acpi_parse(&w->pm, NULL, 36, &w->info, w->err, sizeof(w->err)),
                     WS_ERR_TRUNCATED);
    w->b[RSDP_OFF] = 'X';
    assert_int_equal(parse(w), WS_ERR_INVAL);
    assert_non_null(strstr(w->err, "signature"));
    /* No error buffer at all must be fine too. */
    assert_int_equal(acpi_parse(&w->pm, w->b, 36, &w->info, NULL, 0), WS_ERR_INVAL);
}

static void test_rsdp_bad_extended_checksum(void **state)
{
    struct world *w = *state;

    w->b[RSDP_OFF + 24] ^= 0x10; /* XSDT address: only the extended checksum covers it */
    assert_int_equal(parse(w), WS_ERR_CHECKSUM);
    assert_string_equal(w->err, "RSDP: extended checksum 0x10, expected 0");
}

static void test_rsdp_length_field_too_big(void **state)
{
    struct world *w = *state;

    put32(w->b + RSDP_OFF, 20, 4096);
    fix_sum(w->b + RSDP_OFF, 36, 32);
    assert_int_equal(parse(w), WS_ERR_TRUNCATED);
    assert_string_equal(w->err, "RSDP: length 4096, have 36 bytes");
}

static void test_rsdp_without_root_address(void **state)
{
    struct world *w = *state;

    build_rsdp(w->b + RSDP_OFF, 0, 0, 0);
    assert_int_equal(parse(w), WS_ERR_NOT_FOUND);
    assert_string_equal(w->err, "RSDP: no RSDT or XSDT address");
}

static void test_xsdt_bad_falls_back_to_rsdt(void **state)
{
    struct world *w = *state;

    w->b[XSDT_OFF + 40] ^= 0x1;
    assert_int_equal(parse(w), 0);
    assert_false(w->info.root_is_xsdt);
    assert_true(warned(w, "XSDT at 0x7ffe0100: checksum 0x1, expected 0; using RSDT"));
    assert_int_equal(w->info.ncpu_enabled, 4);
}

static void test_both_roots_bad(void **state)
{
    struct world *w = *state;

    w->b[XSDT_OFF + 40] ^= 0x1;
    put32(w->b + RSDT_OFF, 4, 30); /* length smaller than the header */
    fix_sum(w->b + RSDT_OFF, 36, 9);
    assert_int_equal(parse(w), WS_ERR_TRUNCATED);
    assert_string_equal(w->err, "RSDT at 0x7ffe0200: length 30, expected 36..1048576");
}

static void test_xsdt_outside_memory_no_rsdt(void **state)
{
    struct world *w = *state;

    build_rsdp(w->b + RSDP_OFF, 2, 0, 0x123456789000ULL);
    assert_int_equal(parse(w), WS_ERR_RANGE);
    assert_string_equal(w->err, "XSDT at 0x123456789000: not in mapped memory");
}

static void test_xsdt_entry_outside_memory(void **state)
{
    struct world *w = *state;

    put64(w->b + XSDT_OFF, 36 + 8 * 2, 0xFFFFFFFFF000ULL); /* was the HPET */
    fix_sum(w->b + XSDT_OFF, 36 + 8 * 4, 9);
    assert_int_equal(parse(w), 0);
    assert_true(warned(w, "XSDT entry 2: table at 0xfffffffff000 not in mapped memory"));
    assert_false(w->info.has_hpet);
    assert_int_equal(w->info.ncpu_enabled, 4);
}

static void test_madt_entry_outside_memory_is_fatal(void **state)
{
    struct world *w = *state;

    put64(w->b + XSDT_OFF, 36 + 8 * 1, BASE + SIZE - 8); /* header would run past the end */
    fix_sum(w->b + XSDT_OFF, 36 + 8 * 4, 9);
    assert_int_equal(parse(w), WS_ERR_NOT_FOUND);
    assert_string_equal(w->err, "no MADT ('APIC') in XSDT at 0x7ffe0100");
}

static void test_madt_shorter_than_header(void **state)
{
    struct world *w = *state;

    put32(w->b + MADT_OFF, 4, 20);
    assert_int_equal(parse(w), WS_ERR_NOT_FOUND);
    assert_string_equal(w->err, "no valid MADT: APIC at 0x7ffe0400: length 20, expected "
                                "44..1048576");
}

/* A MADT whose length runs past the end of readable memory. */
static void test_madt_truncated_by_mapping(void **state)
{
    struct world *w = *state;
    const size_t off = SIZE - 64;
    static const size_t tables[] = { off };
    struct madt m = madt_begin(w->b + off, 1);

    madt_lapic(&m, 0, 0, 1);
    madt_end(&m); /* 52 bytes: fits */
    build_roots(w, tables, 1);
    assert_int_equal(parse(w), 0);
    put32(w->b + off, 4, 100); /* now 36 bytes past the end */
    assert_int_equal(parse(w), WS_ERR_NOT_FOUND);
    assert_string_equal(w->err, "no valid MADT: APIC at 0x7ffe3fc0: length 100 runs past "
                                "mapped memory");
}

static void test_madt_bad_checksum(void **state)
{
    struct world *w = *state;

    w->b[MADT_OFF + 47] ^= 0x80;
    assert_int_equal(parse(w), WS_ERR_NOT_FOUND);
    assert_string_equal(w->err, "no valid MADT: APIC at 0x7ffe0400: checksum 0x80, expected 0");
}

static void test_madt_no_enabled_cpu(void **state)
{
    struct world *w = *state;
    struct madt m = madt_at(w, 1);

    madt_lapic(&m, 0, 0, 0);
    madt_end(&m);
    assert_int_equal(parse(w), WS_ERR_NOT_FOUND);
    assert_string_equal(w->err, "APIC at 0x7ffe0400: no enabled processor");
}

/* ---- MADT subtable framing ---- */

static void test_madt_zero_length_subtable(void **state)
{
    struct world *w = *state;
    struct madt m = madt_at(w, 1);

    madt_lapic(&m, 0, 0, 1);
    madt_sub(&m, 0, 0); /* would loop forever if trusted */
    madt_lapic(&m, 1, 1, 1);
    madt_end(&m);
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.ncpu, 1);
    assert_true(warned(w, "APIC at 0x7ffe0400: type 0 at +52: length 0, table ends at 62"));
}

static void test_madt_subtable_past_end(void **state)
{
    struct world *w = *state;
    struct madt m = madt_at(w, 1);
    uint8_t *s;

    madt_lapic(&m, 0, 0, 1);
    s = madt_sub(&m, 1, 12);
    s[1] = 40; /* claims 40 bytes, table ends after 12 */
    madt_end(&m);
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.nioapic, 0);
    assert_true(warned(w, "type 1 at +52: length 40, table ends at 64"));
}

static void test_madt_stray_byte_and_short_subtable(void **state)
{
    struct world *w = *state;
    struct madt m = madt_at(w, 1);
    uint8_t *s;

    madt_lapic(&m, 0, 0, 1);
    madt_sub(&m, 1, 8); /* I/O APIC needs 12 */
    s = madt_sub(&m, 0x7F, 2);
    m.len -= 1; /* last subtable header cut in half */
    (void)s;
    madt_end(&m);
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.nioapic, 0);
    assert_true(warned(w, "type 1 at +52: length 8 < 12, skipped"));
    assert_true(warned(w, "1 stray bytes at +60"));
}

static void test_more_cpus_than_max(void **state)
{
    struct world *w = *state;
    struct madt m = madt_at(w, 1);

    for (unsigned i = 0; i < 8; i++) { /* disabled sockets listed first */
        madt_x2apic(&m, 1000 + i, 1000 + i, 0);
    }
    for (unsigned i = 0; i < WS_MAX_CPUS + 8; i++) {
        madt_lapic(&m, (uint8_t)i, (uint8_t)i, 1);
    }
    madt_end(&m);
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.ncpu, WS_MAX_CPUS);
    assert_int_equal(w->info.ncpu_enabled, WS_MAX_CPUS);
    assert_int_equal(w->info.cpu_dropped, 16); /* 8 enabled + 8 disabled did not fit */
    assert_int_equal(w->info.cpu[WS_MAX_CPUS - 1].apic_id, WS_MAX_CPUS - 1);
    assert_true(warned(w, "16 processors beyond WS_MAX_CPUS=64 ignored"));
}

static void test_too_many_ioapics_and_overrides(void **state)
{
    struct world *w = *state;
    struct madt m = madt_at(w, 1);

    madt_lapic(&m, 0, 0, 1);
    for (unsigned i = 0; i < WS_MAX_IOAPICS + 1; i++) {
        madt_ioapic(&m, (uint8_t)i, 0xFEC00000 + 0x1000 * i, 24 * i);
    }
    for (unsigned i = 0; i < ACPI_MAX_ISOS + 2; i++) {
        madt_iso(&m, (uint8_t)i, i, 0);
    }
    madt_end(&m);
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.nioapic, WS_MAX_IOAPICS);
    assert_int_equal(w->info.ioapic_dropped, 1);
    assert_int_equal(w->info.niso, ACPI_MAX_ISOS);
    assert_int_equal(w->info.iso_dropped, 2);
    assert_int_equal(w->info.nwarn, 2);
}

/* ---- optional tables ---- */

static void test_mcfg_bad_checksum_is_warning(void **state)
{
    struct world *w = *state;

    w->b[MCFG_OFF + 44] ^= 0x3A;
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.nmcfg, 0);
    assert_int_equal(w->info.nwarn, 1);
    assert_string_equal(w->info.warn[0], "MCFG at 0x7ffe1000: checksum 0x3a, expected 0");
    assert_int_equal(w->info.ncpu_enabled, 4);
    assert_true(w->info.has_hpet);
}

static void test_mcfg_short_and_odd_entries(void **state)
{
    struct world *w = *state;
    uint8_t *t = w->b + MCFG_OFF;

    sdt_end(t, 30);
    assert_int_equal(parse(w), 0);
    assert_true(warned(w, "MCFG at 0x7ffe1000: length 30, expected 44..1048576"));
    build_mcfg(t, 0xB0000000, 0, 0, 255);
    put64(t, 60, 0xC0000000);
    put16(t, 68, 1);
    t[70] = 9; /* bus range 9..3: inverted */
    t[71] = 3;
    sdt_end(t, 80);
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.nmcfg, 1);
    assert_true(warned(w, "MCFG at 0x7ffe1000: entry 1 (base 0xc0000000, buses 9-3) skipped"));
    assert_true(warned(w, "MCFG at 0x7ffe1000: 4 stray bytes after 2 entries"));
}

static void test_mcfg_more_segments_than_max(void **state)
{
    struct world *w = *state;
    uint8_t *t = w->b + MCFG_OFF;
    const unsigned n = WS_MAX_MCFG_SEGMENTS + 2;

    sdt_begin(t, "MCFG", 1);
    for (unsigned i = 0; i < n; i++) {
        put64(t, 44 + 16 * i, 0xB0000000ULL + 0x10000000ULL * i);
        put16(t, 52 + 16 * i, (uint16_t)i);
        t[55 + 16 * i] = 255;
    }
    sdt_end(t, 44 + 16 * n);
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.nmcfg, WS_MAX_MCFG_SEGMENTS);
    assert_int_equal(w->info.mcfg_dropped, 2);
    assert_int_equal(w->info.mcfg[WS_MAX_MCFG_SEGMENTS - 1].segment, WS_MAX_MCFG_SEGMENTS - 1);
    assert_true(warned(w, "MCFG at 0x7ffe1000: 2 entries beyond WS_MAX_MCFG_SEGMENTS=8 ignored"));
}

static void test_hpet_and_fadt_variants(void **state)
{
    struct world *w = *state;

    build_hpet(w->b + HPET_OFF, 1, 0x2000); /* I/O space: unusable */
    build_fadt(w->b + FADT_OFF, 116);        /* ACPI 1.0 size: no reset register */
    assert_int_equal(parse(w), 0);
    assert_false(w->info.has_hpet);
    assert_true(warned(w, "HPET at 0x7ffe1100: base 0x2000 in address space 1, ignored"));
    assert_true(w->info.has_fadt);
    assert_false(w->info.reset.valid);
    assert_int_equal(w->info.century_index, 0x32);
}

static void test_pm_timer_from_fadt(void **state)
{
    struct world *w = *state;
    uint8_t *f = w->b + FADT_OFF;

    fadt_pm_timer(f, 0x608, 4, 0, 0, false); /* QEMU q35: PM_TMR_BLK only, 24 bits */
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.pm_tmr_port, 0x608);
    assert_false(w->info.pm_tmr_32bit);
    fadt_pm_timer(f, 0x608, 4, 1, 0x1808, true); /* X_PM_TMR_BLK wins, 32 bits */
    memset(&w->info, 0, sizeof(w->info));
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.pm_tmr_port, 0x1808);
    assert_true(w->info.pm_tmr_32bit);
    fadt_pm_timer(f, 0x608, 4, 0, 0xFED00000, false); /* in memory space: refused, said so */
    memset(&w->info, 0, sizeof(w->info));
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.pm_tmr_port, 0);
    assert_true(warned(w, "FADT: PM timer at 0xfed00000 in address space 0, not used"));
    fadt_pm_timer(f, 0x608, 2, 0, 0, false); /* PM_TMR_LEN not 4: no timer */
    memset(&w->info, 0, sizeof(w->info));
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.pm_tmr_port, 0);
    fadt_pm_timer(f, 0xFFFE, 4, 0, 0, false); /* a port whose 4 bytes do not fit */
    memset(&w->info, 0, sizeof(w->info));
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.pm_tmr_port, 0);
    build_fadt(f, 116); /* ACPI 1.0 size: PM_TMR_BLK, but no room for the GAS */
    fadt_pm_timer(f, 0x408, 4, 0, 0, false);
    memset(&w->info, 0, sizeof(w->info));
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.pm_tmr_port, 0x408);
}

static void test_spcr_console(void **state)
{
    struct world *w = *state;
    static const size_t tables[] = { FADT_OFF, MADT_OFF, HPET_OFF, MCFG_OFF, SPARE_OFF };
    uint8_t *t = w->b + SPARE_OFF;

    build_roots(w, tables, 5);
    build_spcr(t, 0, 1, 0x2F8, 7); /* a BMC's COM2 at 115200 */
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.spcr_port, 0x2F8);
    assert_int_equal(w->info.spcr_baud, 115200);
    build_spcr(t, 0x12, 1, 0x3F8, 0); /* 16550 by GAS, speed left as it is */
    memset(&w->info, 0, sizeof(w->info));
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.spcr_port, 0x3F8);
    assert_int_equal(w->info.spcr_baud, 0);
    build_spcr(t, 0, 1, 0x3F8, 200); /* an undefined baud code: as it is */
    memset(&w->info, 0, sizeof(w->info));
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.spcr_baud, 0);
    build_spcr(t, 0x0E, 0, 0xFE215040, 7); /* an MMIO UART (type 0x0E, BCM2835): not ours */
    memset(&w->info, 0, sizeof(w->info));
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.spcr_port, 0);
    assert_true(warned(w, "SPCR: type 14 UART at 0xfe215040 (space 0), not a 16550 on I/O ports"));
    build_spcr(t, 0, 1, 0xFFFC, 7); /* a port range past 0xFFFF */
    memset(&w->info, 0, sizeof(w->info));
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.spcr_port, 0);
    sdt_begin(t, "SPCR", 2); /* shorter than its 80 bytes: rejected by the table checks */
    sdt_end(t, 60);
    memset(&w->info, 0, sizeof(w->info));
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.spcr_port, 0);
    assert_true(w->info.nwarn > 0);
    uint32_t seed = 7; /* hostile bytes anywhere in a well-formed SPCR, checksum repaired */
    for (unsigned iter = 0; iter < 2000; iter++) {
        build_spcr(t, 0, 1, 0x2F8, 7);
        for (unsigned k = 0; k < 1 + iter % 4; k++) {
            seed = seed * 1103515245u + 12345u;
            t[36 + (seed >> 16) % 44] = (uint8_t)(seed >> 8);
        }
        fix_sum(t, 80, 9);
        memset(&w->info, 0, sizeof(w->info));
        assert_int_equal(parse(w), 0);
        assert_true(w->info.spcr_port == 0 ||
                    (w->info.spcr_port >= 1 && w->info.spcr_port <= 0xFFF8));
    }
}

/* DMAR: 48-byte header, then structures {u16 type, u16 length}; DRHD (type 0): segment 6,
 * base 8. IVRS: 48-byte header, then blocks {u8 type, u8 flags, u16 length}; IVHD: base 8,
 * segment 16. */
static uint32_t iommu_struct(uint8_t *t, uint32_t at, bool ivrs, uint8_t type, uint16_t len,
                             uint16_t seg, uint64_t base)
{
    memset(t + at, 0, len);
    if (ivrs) {
        t[at] = type;
        put16(t, at + 2, len);
        if (len >= 24) {
            put64(t, at + 8, base);
            put16(t, at + 16, seg);
        }
    } else {
        put16(t, at, type);
        put16(t, at + 2, len);
        if (len >= 16) {
            put16(t, at + 6, seg);
            put64(t, at + 8, base);
        }
    }
    return at + len;
}

static void test_dmar_and_ivrs(void **state)
{
    struct world *w = *state;
    static const size_t tables[] = { FADT_OFF, MADT_OFF, HPET_OFF, MCFG_OFF, SPARE_OFF,
                                     SPARE_OFF + 0x200 };
    uint8_t *d = w->b + SPARE_OFF, *v = w->b + SPARE_OFF + 0x200;

    build_roots(w, tables, 6);
    sdt_begin(d, "DMAR", 1); /* QEMU's: one DRHD (with a device scope), then an RMRR */
    uint32_t at = iommu_struct(d, 48, false, 0, 24, 0, 0xFED90000);
    at = iommu_struct(d, at, false, 1, 24, 0, 0);
    sdt_end(d, at);
    sdt_begin(v, "IVRS", 2); /* QEMU's: the same IOMMU as an IVHD 0x10 and an IVHD 0x11 */
    at = iommu_struct(v, 48, true, 0x10, 24, 0, 0xFED80000);
    at = iommu_struct(v, at, true, 0x11, 40, 0, 0xFED80000);
    at = iommu_struct(v, at, true, 0x20, 32, 0, 0); /* an IVMD: not a unit */
    sdt_end(v, at);
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.niommu, 2);
    assert_int_equal(w->info.iommu[0].kind, ACPI_IOMMU_VTD);
    assert_int_equal(w->info.iommu[0].base, 0xFED90000);
    assert_int_equal(w->info.iommu[1].kind, ACPI_IOMMU_AMD);
    assert_int_equal(w->info.iommu[1].base, 0xFED80000);
    /* hostile lengths: a structure longer than the table, one shorter than its own header */
    sdt_begin(d, "DMAR", 1);
    at = iommu_struct(d, 48, false, 0, 16, 1, 0xFED91000);
    put16(d, at + 2, 4000);
    sdt_end(d, at + 8);
    sdt_begin(v, "IVRS", 2);
    put16(v, 48 + 2, 2);
    sdt_end(v, 56);
    memset(&w->info, 0, sizeof(w->info));
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.niommu, 1);
    assert_int_equal(w->info.iommu[0].segment, 1);
    assert_true(warned(w, "structure at 64 has length 4000; rest ignored"));
    assert_true(warned(w, "block at 48 has length 2; rest ignored"));
    /* more units than kept */
    sdt_begin(d, "DMAR", 1);
    at = 48;
    for (unsigned i = 0; i < ACPI_MAX_IOMMUS + 3; i++) {
        at = iommu_struct(d, at, false, 0, 16, 0, 0xFE000000 + 0x1000 * i);
    }
    sdt_end(d, at);
    memset(&w->info, 0, sizeof(w->info));
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.niommu, ACPI_MAX_IOMMUS);
    assert_int_equal(w->info.iommu_dropped, 3);
}

/* SRAT as QEMU writes it for two nodes: a local APIC affinity per CPU, a memory affinity per
 * node; plus an x2APIC affinity, a disabled entry and hostile lengths. */
static void test_srat_nodes(void **state)
{
    struct world *w = *state;
    static const size_t tables[] = { FADT_OFF, MADT_OFF, HPET_OFF, MCFG_OFF, SPARE_OFF };
    uint8_t *t = w->b + SPARE_OFF;
    uint32_t at = 48;

    build_roots(w, tables, 5);
    sdt_begin(t, "SRAT", 1);
    memset(t + 36, 0, 0x200);
    for (uint8_t cpu = 0; cpu < 2; cpu++) { /* type 0: domain 2, APIC ID 3, flags 4 */
        t[at] = 0, t[at + 1] = 16, t[at + 2] = cpu, t[at + 3] = cpu;
        put32(t, at + 4, 1);
        at += 16;
    }
    t[at] = 0, t[at + 1] = 16, t[at + 2] = 1, t[at + 3] = 9; /* disabled: not kept */
    at += 16;
    t[at] = 2, t[at + 1] = 24; /* type 2: domain 4, x2APIC ID 8, flags 12 */
    put32(t, at + 4, 0x10203), put32(t, at + 8, 300), put32(t, at + 12, 1);
    at += 24;
    for (uint32_t node = 0; node < 2; node++) { /* type 1: domain 2, base 8, length 16, flags 28 */
        t[at] = 1, t[at + 1] = 40;
        put32(t, at + 2, node);
        put64(t, at + 8, 0x10000000ULL * node);
        put64(t, at + 16, 0x10000000ULL);
        put32(t, at + 28, 1);
        at += 40;
    }
    sdt_end(t, at);
    assert_int_equal(parse(w), 0);
    assert_true(w->info.has_srat);
    assert_int_equal(w->info.nnuma_cpu, 3);
    assert_int_equal(acpi_cpu_node(&w->info, 1), 1);
    assert_int_equal(acpi_cpu_node(&w->info, 300), 0x10203);
    assert_int_equal(acpi_cpu_node(&w->info, 9), 0); /* its entry was disabled */
    assert_int_equal(w->info.nnuma_mem, 2);
    assert_int_equal(w->info.numa_mem[1].node, 1);
    assert_int_equal(w->info.numa_mem[1].base, 0x10000000);
    t[48 + 1] = 200; /* a structure running past the table: the walk stops, said so */
    fix_sum(t, at, 9);
    memset(&w->info, 0, sizeof(w->info));
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.nnuma_cpu, 0);
    assert_true(warned(w, "SRAT at 0x7ffe2000: structure at 48 has length 200; rest ignored"));
    t[48 + 1] = 0; /* a zero length would loop forever: refused the same way */
    fix_sum(t, at, 9);
    memset(&w->info, 0, sizeof(w->info));
    assert_int_equal(parse(w), 0);
    assert_true(warned(w, "structure at 48 has length 0; rest ignored"));
}

/* SLIT(w, n): a SLIT of n localities at SPARE_OFF, distance 10 on the diagonal and 21
 * elsewhere (QEMU's -numa dist default is 20; any remote value works); returns the table. */
static uint8_t *slit_build(struct world *w, uint64_t n)
{
    static const size_t tables[] = { FADT_OFF, MADT_OFF, HPET_OFF, MCFG_OFF, SPARE_OFF };
    uint8_t *t = w->b + SPARE_OFF;
    build_roots(w, tables, 5);
    sdt_begin(t, "SLIT", 1);
    put64(t, 36, n);
    for (uint64_t i = 0; i < n && n <= 32; i++) {
        for (uint64_t j = 0; j < n; j++) {
            t[44 + i * n + j] = i == j ? 10 : (uint8_t)(21 + i + j);
        }
    }
    sdt_end(t, (uint32_t)(44 + (n <= 32 ? n * n : 0)));
    memset(&w->info, 0, sizeof(w->info));
    return t;
}

/* SLIT: the distances kept and asked for; without it, local 10 and remote 20. Hostile tables
 * (too many localities for the length, reserved or inconsistent distances) are ignored whole
 * with a warning; more localities than kept are counted. */
static void test_slit_distances(void **state)
{
    struct world *w = *state;
    slit_build(w, 2);
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.nslit, 2);
    assert_int_equal(acpi_node_distance(&w->info, 0, 0), 10);
    assert_int_equal(acpi_node_distance(&w->info, 0, 1), 22);
    assert_int_equal(acpi_node_distance(&w->info, 1, 0), 22);
    assert_int_equal(acpi_node_distance(&w->info, 1, 5), ACPI_SLIT_REMOTE); /* beyond SLIT */
    assert_int_equal(acpi_node_distance(&w->info, 5, 5), ACPI_SLIT_LOCAL);

    slit_build(w, 10); /* more than ACPI_MAX_SLIT_NODES: the first 8 kept, rows cut right */
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.nslit, ACPI_MAX_SLIT_NODES);
    assert_int_equal(w->info.slit_dropped, 2);
    assert_int_equal(acpi_node_distance(&w->info, 7, 2), 21 + 7 + 2);
    assert_int_equal(acpi_node_distance(&w->info, 2, 7), 21 + 2 + 7);

    uint8_t *t = slit_build(w, 3);
    t[44 + 1] = 9; /* reserved */
    fix_sum(t, 44 + 9, 9);
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.nslit, 0);
    assert_true(warned(w, "SLIT at 0x7ffe2000: distance 9 from 0 to 1 is reserved; ignored"));
    t = slit_build(w, 3);
    t[44 + 4] = 30; /* locality 1 not at 10 from itself */
    fix_sum(t, 44 + 9, 9);
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.nslit, 0);
    assert_true(warned(w, "distance 30 from 1 to 1 is not local; ignored"));

    t = slit_build(w, 3);
    put32(t, 4, 44 + 8); /* one distance short */
    fix_sum(t, 44 + 8, 9);
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.nslit, 0);
    assert_true(warned(w, "SLIT at 0x7ffe2000: 3 localities do not fit its 52 bytes; ignored"));
    slit_build(w, 1ULL << 40); /* N * N would overflow: refused before any read */
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.nslit, 0);
    slit_build(w, 0);
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.nslit, 0);
}

/* ---- the DSDT (named by the FADT) and the SSDTs (listed in the root): PCI root bridges ---- */

#define DSDT_OFF (SPARE_OFF + 0x400)
#define SSDT_OFF (SPARE_OFF + 0xC00)

/*
 * Device(name) { Name(_HID, EisaId("PNP0A08") or "PNP0A03") [Name(_BBN, bus)]
 * [Name(_PXM, node)] } at p in AML (ACPI 6.5 §20): 0x5B 0x82, a 1-byte PkgLength counting
 * itself, the NameSeg, then the Names with ByteConst values; bus or node < 0: left out.
 * Returns its size.
 */
static size_t aml_root(uint8_t *p, const char *name, bool str_hid, int bus, int node)
{
    size_t n = 3;

    memcpy(p + n, name, 4);
    n += 4;
    if (str_hid) {
        memcpy(p + n, "\x08_HID\x0DPNP0A03", 14); /* String, NUL-terminated */
        n += 14;
    } else {
        memcpy(p + n, "\x08_HID\x0C\x41\xD0\x0A\x08", 10); /* DWordConst 0x080AD041 */
        n += 10;
    }
    if (bus >= 0) {
        memcpy(p + n, "\x08_BBN\x0A", 6);
        p[n + 6] = (uint8_t)bus;
        n += 7;
    }
    if (node >= 0) {
        memcpy(p + n, "\x08_PXM\x0A", 6);
        p[n + 6] = (uint8_t)node;
        n += 7;
    }
    p[0] = 0x5B, p[1] = 0x82, p[2] = (uint8_t)(n - 2);
    assert_true(n - 2 <= 0x3F);
    return n;
}

/* A DSDT or SSDT at t: Scope(\_SB_) { body } with a 2-byte PkgLength. */
static void aml_table(uint8_t *t, const char *sig, const uint8_t *body, size_t n)
{
    size_t len = 2 + 5 + n; /* the PkgLength counts itself and what follows it */

    assert_true(len <= 0xFFF);
    sdt_begin(t, sig, 2);
    t[36] = 0x10;
    t[37] = (uint8_t)(0x40 | (len & 0x0F));
    t[38] = (uint8_t)(len >> 4);
    memcpy(t + 39, "\\_SB_", 5);
    memcpy(t + 44, body, n);
    sdt_end(t, (uint32_t)(44 + n));
}

/* The FADT's DSDT (offset 40) and X_DSDT (offset 140, when the table reaches it). */
static void fadt_dsdt(struct world *w, uint32_t dsdt, uint64_t x_dsdt)
{
    uint8_t *t = w->b + FADT_OFF;
    uint32_t len;

    memcpy(&len, t + 4, 4);
    put32(t, 40, dsdt);
    if (len >= 148) {
        put64(t, 140, x_dsdt);
    }
    sdt_end(t, len);
}

/* DSDT: PC40 on node 1 (EisaId _HID), and optionally PCI0 without _PXM; SSDT: PC80 on node 2
 * ("PNP0A03" _HID); the SSDT listed in the root table, the DSDT only in the FADT. */
static void build_aml_world(struct world *w, bool with_pci0)
{
    static const size_t tables[] = { FADT_OFF, MADT_OFF, HPET_OFF, MCFG_OFF, SSDT_OFF };
    uint8_t body[128];
    size_t n = 0;

    if (with_pci0) {
        n += aml_root(body + n, "PCI0", false, -1, -1);
    }
    n += aml_root(body + n, "PC40", false, 0x40, 1);
    aml_table(w->b + DSDT_OFF, "DSDT", body, n);
    n = aml_root(body, "PC80", true, 0x80, 2);
    aml_table(w->b + SSDT_OFF, "SSDT", body, n);
    build_roots(w, tables, 5);
}

static void test_pci_roots_from_dsdt_and_ssdt(void **state)
{
    struct world *w = *state;
    const struct acpi_info *a = &w->info;
    uint32_t node = 0;

    build_aml_world(w, false);
    fadt_dsdt(w, 0, BASE + DSDT_OFF); /* X_DSDT only */
    assert_int_equal(parse(w), 0);
    assert_int_equal(a->nwarn, 0);
    assert_int_equal(a->aml_tables, 2);
    assert_int_equal(a->npci_root, 2);
    assert_int_equal(a->pci_root_dropped, 0);
    assert_string_equal(a->pci_root[0].name, "PC40"); /* the DSDT first, as ACPI loads it */
    assert_string_equal(a->pci_root[1].name, "PC80");
    assert_true(acpi_pci_root_node(a, 0, 0x40, &node));
    assert_int_equal(node, 1);
    assert_true(acpi_pci_root_node(a, 0, 0x80, &node));
    assert_int_equal(node, 2);
    assert_false(acpi_pci_root_node(a, 0, 0x41, &node)); /* no root starts there */
    assert_false(acpi_pci_root_node(a, 0, 0x00, &node));
    assert_false(acpi_pci_root_node(a, 1, 0x40, &node)); /* another segment */

    /* the 32-bit field when X_DSDT is 0; PCI0 (bus 0 without _BBN) has no _PXM */
    build_aml_world(w, true);
    fadt_dsdt(w, (uint32_t)(BASE + DSDT_OFF), 0);
    assert_int_equal(parse(w), 0);
    assert_int_equal(a->nwarn, 0);
    assert_int_equal(a->aml_tables, 2);
    assert_int_equal(a->npci_root, 3);
    assert_string_equal(a->pci_root[0].name, "PCI0");
    node = 77;
    assert_false(acpi_pci_root_node(a, 0, 0x00, &node));
    assert_true(acpi_pci_root_node(a, 0, 0x40, &node));
    assert_int_equal(node, 1);
    assert_true(acpi_pci_root_node(a, 0, 0x80, &node));
    assert_int_equal(node, 2);

    /* both set: X_DSDT wins (the 32-bit one points at a table that would be refused) */
    fadt_dsdt(w, (uint32_t)(BASE + SPARE_OFF), BASE + DSDT_OFF);
    assert_int_equal(parse(w), 0);
    assert_int_equal(a->nwarn, 0);
    assert_int_equal(a->npci_root, 3);

    /* an ACPI 1.0 FADT (116 bytes) has no X_DSDT: the 8 bytes at 140 belong to whatever
     * follows it and are not read */
    build_fadt(w->b + FADT_OFF, 116);
    fadt_dsdt(w, (uint32_t)(BASE + DSDT_OFF), 0);
    put64(w->b + FADT_OFF, 140, BASE + SPARE_OFF);
    assert_int_equal(parse(w), 0);
    assert_int_equal(a->nwarn, 0);
    assert_int_equal(a->aml_tables, 2);
    assert_int_equal(a->npci_root, 3);

    /* an SSDT root whose _BBN (0x140, a WordConst) is no bus: not placed, so it cannot answer
     * for bus 0x40 although its low byte matches */
    static const uint8_t pcix[] = { 0x5B, 0x82, 30, 'P', 'C', 'I', 'X',
                                    0x08, '_', 'H', 'I', 'D', 0x0C, 0x41, 0xD0, 0x0A, 0x08,
                                    0x08, '_', 'B', 'B', 'N', 0x0B, 0x40, 0x01,
                                    0x08, '_', 'P', 'X', 'M', 0x0A, 0x07 };
    aml_table(w->b + SSDT_OFF, "SSDT", pcix, sizeof(pcix));
    assert_int_equal(parse(w), 0);
    assert_int_equal(a->npci_root, 3);
    assert_string_equal(a->pci_root[2].name, "PCIX");
    assert_true(a->pci_root[2].bus_computed);
    assert_int_equal(a->pci_root[2].bus, 0x40);
    assert_true(acpi_pci_root_node(a, 0, 0x40, &node));
    assert_int_equal(node, 1);
}

static void test_dsdt_refused(void **state)
{
    struct world *w = *state;
    const struct acpi_info *a = &w->info;
    uint32_t node;

    build_aml_world(w, true);
    fadt_dsdt(w, 0, BASE + DSDT_OFF);
    w->b[DSDT_OFF + 50]++; /* checksum off by one: no roots from it, said so */
    assert_int_equal(parse(w), 0);
    assert_true(warned(w, "DSDT at 0x7ffe2400: checksum 0x1, expected 0"));
    assert_int_equal(a->aml_tables, 1);
    assert_int_equal(a->npci_root, 1); /* the SSDT's */
    assert_false(acpi_pci_root_node(a, 0, 0x40, &node));
    assert_true(acpi_pci_root_node(a, 0, 0x80, &node));

    w->b[DSDT_OFF + 50]--;
    memcpy(w->b + SSDT_OFF, "SSDX", 4); /* not an SSDT: not read, no warning */
    assert_int_equal(parse(w), 0);
    assert_int_equal(a->nwarn, 0);
    assert_int_equal(a->aml_tables, 1);
    assert_int_equal(a->npci_root, 2);

    fadt_dsdt(w, 0, 0xFFFFF000ULL); /* outside memory */
    assert_int_equal(parse(w), 0);
    assert_true(warned(w, "DSDT at 0xfffff000: not in mapped memory"));
    assert_int_equal(a->aml_tables, 0);

    fadt_dsdt(w, 0, BASE + MADT_OFF); /* not a DSDT */
    assert_int_equal(parse(w), 0);
    assert_true(warned(w, "DSDT at 0x7ffe0400: signature 'APIC'"));
    assert_int_equal(a->npci_root, 0);
}

/* Every SSDT is read (not only the first), and roots past ACPI_MAX_PCI_ROOTS are counted. */
static void test_ssdts_and_too_many_roots(void **state)
{
    struct world *w = *state;
    static const size_t tables[] = { FADT_OFF, MADT_OFF, SSDT_OFF, SPARE_OFF + 0xE00 };
    const struct acpi_info *a = &w->info;
    uint8_t body[ACPI_MAX_PCI_ROOTS * 32];
    char name[5] = "R000";
    size_t n = 0;
    uint32_t node;

    for (unsigned i = 0; i < ACPI_MAX_PCI_ROOTS; i++) { /* R000..R031 on buses 0..31 */
        name[2] = (char)('0' + i / 10), name[3] = (char)('0' + i % 10);
        n += aml_root(body + n, name, false, (int)i, (int)(i % 4));
    }
    aml_table(w->b + DSDT_OFF, "DSDT", body, n);
    n = aml_root(body, "PCIA", false, 0xA0, 3);
    n += aml_root(body + n, "PCIB", true, 0xB0, 5);
    aml_table(w->b + SSDT_OFF, "SSDT", body, n);
    n = aml_root(body, "PCIC", false, 0xC0, 6);
    aml_table(w->b + SPARE_OFF + 0xE00, "SSDT", body, n);
    build_roots(w, tables, 4);
    fadt_dsdt(w, 0, BASE + DSDT_OFF);
    assert_int_equal(parse(w), 0);
    assert_int_equal(a->aml_tables, 3);
    assert_int_equal(a->npci_root, ACPI_MAX_PCI_ROOTS);
    assert_int_equal(a->pci_root_dropped, 3); /* the DSDT's 32 came first: the SSDTs' 3 */
    assert_true(acpi_pci_root_node(a, 0, 31, &node));
    assert_int_equal(node, 3);
    assert_true(acpi_pci_root_node(a, 0, 28, &node));
    assert_int_equal(node, 0);
    assert_false(acpi_pci_root_node(a, 0, 0xA0, &node)); /* dropped */
    assert_false(acpi_pci_root_node(a, 0, 0xB0, &node));
    assert_false(acpi_pci_root_node(a, 0, 0xC0, &node));
}

static void test_warnings_overflow_and_null_entries(void **state)
{
    struct world *w = *state;
    static const size_t tables[] = { 0, 0, 0, 0, 0, 0, MADT_OFF };

    build_roots(w, tables, 7);
    for (unsigned i = 0; i < 6; i++) {
        put64(w->b + XSDT_OFF, 36 + 8 * i, 0);
    }
    fix_sum(w->b + XSDT_OFF, 36 + 8 * 7, 9);
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.nwarn, ACPI_MAX_WARNINGS);
    assert_int_equal(w->info.warn_dropped, 2);
    assert_string_equal(w->info.warn[0], "XSDT entry 0: null table address");
    assert_false(w->info.has_hpet);
}

/* Tables with unwanted signatures are only peeked at; a second MADT is ignored. */
static void test_unknown_and_duplicate_tables(void **state)
{
    struct world *w = *state;
    static const size_t tables[] = { SPARE_OFF, MADT_OFF, SPARE_OFF + 0x100 };
    struct madt m = madt_begin(w->b + SPARE_OFF + 0x100, 1);

    sdt_begin(w->b + SPARE_OFF, "WAET", 1);
    put32(w->b + SPARE_OFF, 4, 0xFFFFFFFF); /* never read beyond the header */
    madt_lapic(&m, 0, 42, 1);
    madt_end(&m);
    build_roots(w, tables, 3);
    assert_int_equal(parse(w), 0);
    assert_int_equal(w->info.nwarn, 0);
    assert_int_equal(w->info.ncpu, 4);
}

/*
 * Random corruption, checksums repaired afterwards so the damage reaches the parsers.
 * Passing means no sanitizer report and a NUL-terminated message every time.
 */
static void test_random_corruption(void **state)
{
    struct world *w = *state;
    static const size_t tables[] = { XSDT_OFF, RSDT_OFF, MADT_OFF, MCFG_OFF, HPET_OFF,
                                     FADT_OFF };
    uint32_t seed = 1;

    for (unsigned iter = 0; iter < 4000; iter++) {
        memset(w->b, 0, SIZE);
        build_world(w, 1 + iter % 8);
        for (unsigned k = 0; k < 1 + iter % 6; k++) {
            size_t at;
            seed = seed * 1103515245u + 12345u; /* a bit in the first 96 bytes of a table */
            at = tables[(seed >> 16) % 6] + (seed >> 8) % 96;
            w->b[at] ^= (uint8_t)(1u << ((seed >> 4) % 8));
        }
        for (unsigned i = 0; i < 6 && iter % 4 != 0; i++) {
            uint32_t len;
            memcpy(&len, w->b + tables[i] + 4, 4);
            if (len >= 10 && len <= SIZE - tables[i]) {
                fix_sum(w->b + tables[i], len, 9);
            }
        }
        (void)parse(w);
    }
}

/* ---- RSDP search in low memory (a 1 MiB buffer at physical 0) ---- */

struct lowmem {
    struct fakemem mem;
    struct physmem pm;
};

static void lowmem_init(struct lowmem *l, size_t size)
{
    l->mem = (struct fakemem){ 0, calloc(1, size), size };
    l->pm = (struct physmem){ fake_map, &l->mem };
}

static void test_scan_bios_area_skips_decoy(void **state)
{
    struct lowmem l;
    uint64_t phys = 0;

    (void)state;
    lowmem_init(&l, 0x100000);
    build_rsdp(l.mem.buf + 0xE0000, 0, 0x1234, 0);
    l.mem.buf[0xE0000 + 8] ^= 0xFF;                  /* decoy: bad checksum */
    build_rsdp(l.mem.buf + 0xE1008, 0, 0x1234, 0);   /* not on a 16-byte boundary */
    build_rsdp(l.mem.buf + 0xF5A30, 2, 0x1234, 0x5678);
    assert_int_equal(acpi_find_rsdp(&l.pm, &phys), 0);
    assert_int_equal(phys, 0xF5A30);
    free(l.mem.buf);
}

static void test_scan_ebda_first(void **state)
{
    struct lowmem l;
    uint64_t phys = 0;

    (void)state;
    lowmem_init(&l, 0x100000);
    put16(l.mem.buf, 0x40E, 0x9FC0);
    build_rsdp(l.mem.buf + 0x9FC00 + 0x3E0, 0, 0x1234, 0); /* last slot that fits in 1 KiB */
    build_rsdp(l.mem.buf + 0xF0000, 0, 0x1234, 0);
    assert_int_equal(acpi_find_rsdp(&l.pm, &phys), 0);
    assert_int_equal(phys, 0x9FFE0);
    put16(l.mem.buf, 0x40E, 0x9F80); /* the same RSDP is now past the first KiB */
    assert_int_equal(acpi_find_rsdp(&l.pm, &phys), 0);
    assert_int_equal(phys, 0xF0000);
    free(l.mem.buf);
}

static void test_scan_nothing_and_unmapped(void **state)
{
    struct lowmem l;
    uint64_t phys = 0;

    (void)state;
    lowmem_init(&l, 0x100000);
    put16(l.mem.buf, 0x40E, 0xFFFF); /* EBDA would run past the mapping */
    assert_int_equal(acpi_find_rsdp(&l.pm, &phys), WS_ERR_NOT_FOUND);
    build_rsdp(l.mem.buf + 0xFFFF0 - 16, 0, 0x1234, 0);
    assert_int_equal(acpi_find_rsdp(&l.pm, &phys), 0);
    assert_int_equal(phys, 0xFFFE0);
    free(l.mem.buf);

    lowmem_init(&l, 0x400); /* BDA word and BIOS area both unmapped */
    assert_int_equal(acpi_find_rsdp(&l.pm, &phys), WS_ERR_NOT_FOUND);
    free(l.mem.buf);
}

/* End to end from low memory: find the RSDP, then parse the tables it leads to. */
static void test_scan_then_parse_phys(void **state)
{
    struct lowmem l;
    uint64_t phys = 0;
    struct acpi_info info;
    char err[96];
    struct madt m;

    (void)state;
    lowmem_init(&l, 0x100000);
    m = madt_begin(l.mem.buf + 0x80100, 1);
    madt_lapic(&m, 0, 0, 1);
    madt_lapic(&m, 1, 1, 1);
    madt_end(&m);
    sdt_begin(l.mem.buf + 0x80000, "RSDT", 1);
    put32(l.mem.buf + 0x80000, 36, 0x80100);
    sdt_end(l.mem.buf + 0x80000, 40);
    build_rsdp(l.mem.buf + 0xFFFF0 - 16 * 4, 0, 0x80000, 0);
    assert_int_equal(acpi_find_rsdp(&l.pm, &phys), 0);
    assert_int_equal(acpi_parse_phys(&l.pm, phys, &info, err, sizeof(err)), 0);
    assert_int_equal(info.ncpu_enabled, 2);
    assert_int_equal(info.revision, 0);
    assert_int_equal(acpi_parse_phys(&l.pm, 0x100000, &info, err, sizeof(err)), WS_ERR_RANGE);
    assert_string_equal(err, "RSDP at 0x100000: not in mapped memory");
    /* A revision 0 RSDP in the last 20 bytes of the mapping is still readable. */
    memmove(l.mem.buf + 0xFFFF0 - 4, l.mem.buf + 0xFFFF0 - 64, 20);
    assert_int_equal(acpi_parse_phys(&l.pm, 0xFFFEC, &info, err, sizeof(err)), 0);
    free(l.mem.buf);
}

/* err.c's formatter, which every message above goes through (declared here like in acpi.c). */
void err_vfmt(char *buf, size_t len, const char *fmt, va_list ap);

static void __attribute__((format(printf, 3, 4))) fmt(char *buf, size_t len, const char *f, ...)
{
    va_list ap;

    va_start(ap, f);
    err_vfmt(buf, len, f, ap);
    va_end(ap);
}

static void test_err_name_and_fmt(void **state)
{
    char b[64];

    (void)state;
    assert_string_equal(err_name(WS_ERR_CHECKSUM), "ECHECKSUM");
    assert_string_equal(err_name(0), "OK");
    assert_string_equal(err_name(-999), "EUNKNOWN");
    fmt(b, sizeof(b), "%d %u %x %c %s %%", -2147483647 - 1, 4294967295u, 0xBEEFu, 'z', "ok");
    assert_string_equal(b, "-2147483648 4294967295 beef z ok %");
    fmt(b, sizeof(b), "%lx %llu %zu %ld", 0xFFFFFFFFFFFFFFFFUL, 18446744073709551615ULL,
        (size_t)7, -5L);
    assert_string_equal(b, "ffffffffffffffff 18446744073709551615 7 -5");
    fmt(b, 6, "%s", "truncated");
    assert_string_equal(b, "trunc");
    b[0] = 'x';
    fmt(b, 0, "never written");
    assert_int_equal(b[0], 'x');
    fmt(b, 1, "only the NUL");
    assert_string_equal(b, "");
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_qemu_four_cpus),
        T(test_two_cpus_one_disabled),
        T(test_online_capable),
        T(test_x2apic_entries),
        T(test_lapic_address_override),
        T(test_rsdp_v1_uses_rsdt),
        T(test_rsdp_v2_short_copy),
        T(test_rsdp_bad_checksum),
        T(test_rsdp_bad_signature_and_short),
        T(test_rsdp_bad_extended_checksum),
        T(test_rsdp_length_field_too_big),
        T(test_rsdp_without_root_address),
        T(test_xsdt_bad_falls_back_to_rsdt),
        T(test_both_roots_bad),
        T(test_xsdt_outside_memory_no_rsdt),
        T(test_xsdt_entry_outside_memory),
        T(test_madt_entry_outside_memory_is_fatal),
        T(test_madt_shorter_than_header),
        T(test_madt_truncated_by_mapping),
        T(test_madt_bad_checksum),
        T(test_madt_no_enabled_cpu),
        T(test_madt_zero_length_subtable),
        T(test_madt_subtable_past_end),
        T(test_madt_stray_byte_and_short_subtable),
        T(test_more_cpus_than_max),
        T(test_too_many_ioapics_and_overrides),
        T(test_mcfg_bad_checksum_is_warning),
        T(test_mcfg_short_and_odd_entries),
        T(test_mcfg_more_segments_than_max),
        T(test_hpet_and_fadt_variants),
        T(test_pm_timer_from_fadt),
        T(test_spcr_console),
        T(test_dmar_and_ivrs),
        T(test_srat_nodes),
        T(test_slit_distances),
        T(test_pci_roots_from_dsdt_and_ssdt),
        T(test_dsdt_refused),
        T(test_ssdts_and_too_many_roots),
        T(test_warnings_overflow_and_null_entries),
        T(test_unknown_and_duplicate_tables),
        T(test_random_corruption),
        cmocka_unit_test(test_scan_bios_area_skips_decoy),
        cmocka_unit_test(test_scan_ebda_first),
        cmocka_unit_test(test_scan_nothing_and_unmapped),
        cmocka_unit_test(test_scan_then_parse_phys),
        cmocka_unit_test(test_err_name_and_fmt),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
