/*
 * tests/unit/test_aml.c: kernel/aml.c's PCI root bridge scan on AML assembled here by hand from
 * ACPI 6.5 §20 (PkgLength, NameString, Name, Method, Device, Scope, Buffer, Package encodings)
 * and §19.6.35 (EisaId compression), so the scanner's constants are checked independently.
 * Each block is scanned from an exactly-sized heap copy, so ASan sees any read past its end.
 * Build: gcc -std=gnu11 -g -O1 -Wall -Wextra -Werror -fsanitize=address,undefined
 *        -fno-sanitize-recover=all -Ikernel tests/unit/test_aml.c kernel/aml.c -lcmocka
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "aml.h"

/* ---- an AML assembler: one growing byte string per definition block or object body ---- */

#define AML_TEST_BYTES 4096

struct aml {
    uint8_t b[AML_TEST_BYTES];
    size_t n;
};

static void put(struct aml *a, const void *p, size_t n)
{
    assert_true(n <= sizeof(a->b) - a->n);
    memcpy(a->b + a->n, p, n);
    a->n += n;
}

static void put8(struct aml *a, uint8_t v)
{
    put(a, &v, 1);
}

static void put_le(struct aml *a, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++) {
        put8(a, (uint8_t)(v >> (8 * i)));
    }
}

/* §20.2.4: the PkgLength of a body of `body` bytes that follows it, written in `bytes` bytes
 * (0: the fewest that hold it); the encoded length counts the PkgLength itself. */
static void pkglen(struct aml *a, size_t body, unsigned bytes)
{
    if (bytes == 0) {
        bytes = body + 1 <= 0x3F ? 1 : body + 2 <= 0xFFF ? 2 : body + 3 <= 0xFFFFF ? 3 : 4;
    }
    uint32_t len = (uint32_t)(body + bytes);
    if (bytes == 1) {
        assert_true(len <= 0x3F);
        put8(a, (uint8_t)len);
        return;
    }
    assert_true(len < 1u << (4 + 8 * (bytes - 1)));
    put8(a, (uint8_t)((bytes - 1) << 6 | (len & 0x0F))); /* bits 5:4 stay 0 */
    for (unsigned i = 1; i < bytes; i++) {
        put8(a, (uint8_t)(len >> (4 + 8 * (i - 1))));
    }
}

/* op (one byte, or 0x5B and one), PkgLength in lenbytes (0: fewest), then the body. */
static void block(struct aml *a, uint16_t op, const struct aml *body, unsigned lenbytes)
{
    if (op > 0xFF) {
        put8(a, (uint8_t)(op >> 8));
    }
    put8(a, (uint8_t)op);
    pkglen(a, body->n, lenbytes);
    put(a, body->b, body->n);
}

#define OP_SCOPE 0x10
#define OP_METHOD 0x14
#define OP_BUFFER 0x11
#define OP_PACKAGE 0x12
#define OP_IF 0xA0
#define OP_DEVICE 0x5B82

/* A NameString given as its raw bytes (prefixes, segments), then what the object holds. */
static void named_block(struct aml *a, uint16_t op, const void *name, size_t nlen,
                        const struct aml *body, unsigned lenbytes)
{
    struct aml *t = calloc(1, sizeof(*t));

    assert_non_null(t);
    put(t, name, nlen);
    put(t, body->b, body->n);
    block(a, op, t, lenbytes);
    free(t);
}

/* Device(name) { body }: name a C string of NameString bytes ("PCI0", "\\PCI0", "^^PCI0"). */
static void device(struct aml *a, const char *name, const struct aml *body)
{
    named_block(a, OP_DEVICE, name, strlen(name), body, 0);
}

static void scope(struct aml *a, const char *name, const struct aml *body)
{
    named_block(a, OP_SCOPE, name, strlen(name), body, 0);
}

/* Method(seg, flags) { body } */
static void method(struct aml *a, const char *seg, uint8_t flags, const struct aml *body)
{
    struct aml *t = calloc(1, sizeof(*t));

    assert_non_null(t);
    put(t, seg, 4);
    put8(t, flags);
    put(t, body->b, body->n);
    block(a, OP_METHOD, t, 0);
    free(t);
}

/* Buffer(n) { bytes } with BufferSize as a ByteConst. */
static void buffer(struct aml *a, const void *bytes, uint8_t n)
{
    struct aml t = { .n = 0 };

    put8(&t, 0x0A);
    put8(&t, n);
    put(&t, bytes, n);
    block(a, OP_BUFFER, &t, 0);
}

/* Package(count) { elements } */
static void package(struct aml *a, uint8_t count, const struct aml *elements)
{
    struct aml t = { .n = 0 };

    put8(&t, count);
    put(&t, elements->b, elements->n);
    block(a, OP_PACKAGE, &t, 0);
}

/* Integers as iASL writes them: Zero, One, then the narrowest prefix. */
static void d_int(struct aml *a, uint64_t v)
{
    if (v <= 1) {
        put8(a, (uint8_t)v); /* ZeroOp, OneOp */
    } else if (v <= 0xFF) {
        put8(a, 0x0A), put_le(a, v, 1);
    } else if (v <= 0xFFFF) {
        put8(a, 0x0B), put_le(a, v, 2);
    } else if (v <= 0xFFFFFFFF) {
        put8(a, 0x0C), put_le(a, v, 4);
    } else {
        put8(a, 0x0E), put_le(a, v, 8);
    }
}

/* An integer with a given prefix (0x0A byte, 0x0B word, 0x0C dword, 0x0E qword). */
static void d_prefixed(struct aml *a, uint8_t prefix, uint64_t v)
{
    static const unsigned width[] = { [0x0A] = 1, [0x0B] = 2, [0x0C] = 4, [0x0E] = 8 };

    put8(a, prefix);
    put_le(a, v, width[prefix]);
}

/* §19.6.35 EisaId("AAA####"): three letters of 5 bits each ('A' = 1), then four hex digits,
 * stored big-endian in a DWordConst. */
static uint32_t eisa(const char *id)
{
    uint16_t letters = (uint16_t)((id[0] - 0x40) << 10 | (id[1] - 0x40) << 5 | (id[2] - 0x40));
    uint16_t product = (uint16_t)strtoul(id + 3, NULL, 16);
    uint8_t be[4] = { (uint8_t)(letters >> 8), (uint8_t)letters, (uint8_t)(product >> 8),
                      (uint8_t)product };
    return (uint32_t)be[0] | (uint32_t)be[1] << 8 | (uint32_t)be[2] << 16 | (uint32_t)be[3] << 24;
}

static void d_eisa(struct aml *a, const char *id)
{
    d_prefixed(a, 0x0C, eisa(id));
}

static void d_str(struct aml *a, const char *s)
{
    put8(a, 0x0D);
    put(a, s, strlen(s) + 1);
}

/* Name(seg, ...): the caller writes the object. */
static void name(struct aml *a, const char *seg)
{
    put8(a, 0x08);
    put(a, seg, 4);
}

static void name_int(struct aml *a, const char *seg, uint64_t v)
{
    name(a, seg);
    d_int(a, v);
}

static void name_eisa(struct aml *a, const char *seg, const char *id)
{
    name(a, seg);
    d_eisa(a, id);
}

static void name_str(struct aml *a, const char *seg, const char *s)
{
    name(a, seg);
    d_str(a, s);
}

/* Method(seg, 0) { Return(v) } with v as d_int writes it. */
static void method_return(struct aml *a, const char *seg, uint64_t v)
{
    struct aml body = { .n = 0 };

    put8(&body, 0xA4);
    d_int(&body, v);
    method(a, seg, 0, &body);
}

/* ---- scanning ---- */

#define MAX_ROOTS 16

struct scan {
    struct aml_pci_root r[MAX_ROOTS + 1]; /* one spare, which must stay untouched */
    unsigned n, dropped, found;
};

static const uint8_t poison[sizeof(struct aml_pci_root)] = {
    [0 ... sizeof(struct aml_pci_root) - 1] = 0xA5
};

/* Scans a's bytes from an exactly-sized heap copy into s (which may already hold roots). */
static unsigned scan_more(const struct aml *a, size_t len, struct scan *s, unsigned max)
{
    uint8_t *copy = malloc(len != 0 ? len : 1);

    assert_non_null(copy);
    assert_true(len <= a->n && max <= MAX_ROOTS);
    memcpy(copy, a->b, len);
    s->found = aml_find_pci_roots(copy, len, s->r, max, &s->n, &s->dropped);
    free(copy);
    assert_true(s->n <= max);
    assert_memory_equal(&s->r[MAX_ROOTS], poison, sizeof(poison));
    return s->found;
}

static unsigned scan(const struct aml *a, struct scan *s)
{
    memset(s, 0xA5, sizeof(*s));
    s->n = s->dropped = 0;
    return scan_more(a, a->n, s, MAX_ROOTS);
}

/* One root, field by field. */
static void expect_root(const struct aml_pci_root *r, const char *nm, uint16_t seg, uint8_t bus,
                        bool has_bus, bool has_node, uint32_t node)
{
    assert_string_equal(r->name, nm);
    assert_int_equal(r->segment, seg);
    assert_int_equal(r->bus, bus);
    assert_int_equal(r->has_bus, has_bus);
    assert_int_equal(r->has_node, has_node);
    if (has_node) {
        assert_int_equal(r->node, node);
    }
}

/* ---- QEMU's shapes: q35's PCI0 and a pxb-pcie root (hw/i386/acpi-build.c) ---- */

/* Word Address Space Descriptor (§6.4.3.5.3) for buses lo..hi, an I/O port, the end tag. */
static void crs(struct aml *a, uint8_t lo, uint8_t hi)
{
    const uint8_t r[] = { 0x88, 0x0D, 0x00, 0x02, 0x0C, 0x00, 0x00, 0x00, lo, 0x00, hi, 0x00,
                          0x00, 0x00, (uint8_t)(hi - lo + 1), 0x00,
                          0x47, 0x01, 0xF8, 0x0C, 0xF8, 0x0C, 0x01, 0x08, 0x79, 0x00 };
    name(a, "_CRS");
    buffer(a, r, sizeof(r));
}

/* Method(_OSC, 4) { CreateDWordField(Arg3, Zero, CDW1) If (LEqual(Arg0, <uuid>)) {...}
 * Return(Arg3) }, in the bytes iASL writes. */
static void osc(struct aml *a)
{
    static const uint8_t uuid[16] = { 0x5B, 0x4D, 0xDB, 0x33, 0xF7, 0x1F, 0x1C, 0x40,
                                      0x96, 0x57, 0x74, 0x41, 0xC0, 0x3D, 0xD7, 0x66 };
    struct aml body = { .n = 0 }, pred = { .n = 0 };

    put(&body, "\x8A\x6B\x00" "CDW1", 7);
    put(&pred, "\x93\x68", 2); /* LEqual(Arg0, */
    buffer(&pred, uuid, sizeof(uuid));
    put(&pred, "\x70\x0A\x1F" "CDW1", 7); /* Store(0x1F, CDW1) */
    block(&body, OP_IF, &pred, 0);
    put(&body, "\xA4\x6B", 2); /* Return(Arg3) */
    method(a, "_OSC", 4, &body);
}

/* _PRT: Package { Package { 0xFFFF, pin, Zero, gsi } x 2 } */
static void prt(struct aml *a)
{
    struct aml outer = { .n = 0 };

    for (unsigned pin = 0; pin < 2; pin++) {
        struct aml e = { .n = 0 };
        d_int(&e, 0xFFFF);
        d_int(&e, pin);
        d_int(&e, 0);
        d_int(&e, 0x10 + pin);
        package(&outer, 4, &e);
    }
    name(a, "_PRT");
    package(a, 2, &outer);
}

static void qemu_dsdt(struct aml *a)
{
    struct aml *pci0 = calloc(1, sizeof(*pci0)), *pc80 = calloc(1, sizeof(*pc80));
    struct aml *sb = calloc(1, sizeof(*sb)), s00 = { .n = 0 };

    assert_true(pci0 != NULL && pc80 != NULL && sb != NULL);
    name_eisa(pci0, "_HID", "PNP0A08");
    name_eisa(pci0, "_CID", "PNP0A03");
    name_int(pci0, "_ADR", 0);
    name_int(pci0, "_UID", 0);
    osc(pci0);
    crs(pci0, 0x00, 0x7F);
    name_int(&s00, "_ADR", 0);
    device(pci0, "S00_", &s00);
    device(sb, "PCI0", pci0);
    scope(a, "\\_SB_", sb);

    sb->n = 0;
    name_int(pc80, "_UID", 0x80);
    name_int(pc80, "_BBN", 0x80);
    name_eisa(pc80, "_HID", "PNP0A08");
    name_eisa(pc80, "_CID", "PNP0A03");
    osc(pc80);
    name_int(pc80, "_PXM", 1);
    prt(pc80);
    crs(pc80, 0x80, 0xFF);
    device(sb, "PC80", pc80);
    scope(a, "\\_SB_", sb);
    free(pci0);
    free(pc80);
    free(sb);
}

/* §20.2.4 decoded here apart from aml.c: the offset just past the Device named nm. */
static size_t device_end(const struct aml *a, const char *nm)
{
    for (size_t i = 0; i + 8 < a->n; i++) {
        if (a->b[i] != 0x5B || a->b[i + 1] != 0x82) {
            continue;
        }
        const uint8_t *p = a->b + i + 2;
        size_t follow = p[0] >> 6, len = follow == 0 ? p[0] & 0x3Fu : p[0] & 0x0Fu;
        for (size_t k = 0; k < follow; k++) {
            len |= (size_t)p[1 + k] << (4 + 8 * k);
        }
        if (memcmp(p + 1 + follow, nm, 4) == 0) {
            return i + 2 + len;
        }
    }
    fail_msg("no Device %s", nm);
    return 0;
}

static void test_qemu_dsdt(void **state)
{
    struct aml *a = calloc(1, sizeof(*a));
    struct scan s;

    (void)state;
    qemu_dsdt(a);
    assert_true(a->n > 64 * 2); /* both devices need 2-byte PkgLengths */
    assert_int_equal(scan(a, &s), 2);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.dropped, 0);
    expect_root(&s.r[0], "PCI0", 0, 0, false, false, 0);
    assert_false(s.r[0].node_computed);
    assert_false(s.r[0].bus_computed);
    expect_root(&s.r[1], "PC80", 0, 0x80, true, true, 1);
    assert_false(s.r[1].node_computed);
    assert_false(s.r[1].bus_computed);
    free(a);
}

/* Every prefix of the block: no read past it, and exactly the roots whose Device fits. */
static void test_qemu_dsdt_every_prefix(void **state)
{
    struct aml *a = calloc(1, sizeof(*a));
    struct scan s;

    (void)state;
    qemu_dsdt(a);
    size_t end0 = device_end(a, "PCI0"), end1 = device_end(a, "PC80");
    assert_true(end0 < end1 && end1 <= a->n);
    for (size_t len = 0; len <= a->n; len++) {
        unsigned want = (len >= end0) + (len >= end1);
        memset(&s, 0, sizeof(s));
        memcpy(&s.r[MAX_ROOTS], poison, sizeof(poison));
        assert_int_equal(scan_more(a, len, &s, MAX_ROOTS), want);
        assert_int_equal(s.n, want);
        if (want >= 1) {
            expect_root(&s.r[0], "PCI0", 0, 0, false, false, 0);
        }
        if (want == 2) {
            expect_root(&s.r[1], "PC80", 0, 0x80, true, true, 1);
        }
    }
    free(a);
}

/* ---- _HID and _CID forms ---- */

/* CXL host bridge (CXL 3.0 §9.18.1): _HID "ACPI0016", _CID Package { PNP0A08, PNP0A03 }. */
static void test_cid_package(void **state)
{
    struct aml a = { .n = 0 }, d = { .n = 0 }, ids = { .n = 0 };
    struct scan s;

    (void)state;
    name_str(&d, "_HID", "ACPI0016");
    d_eisa(&ids, "PNP0A08");
    d_eisa(&ids, "PNP0A03");
    name(&d, "_CID");
    package(&d, 2, &ids);
    name_int(&d, "_UID", 1);
    name_int(&d, "_BBN", 0x35);
    name_int(&d, "_PXM", 2);
    device(&a, "CXL0", &d);

    /* the same with a Package naming no PCI ID: a CXL device that is not a host bridge */
    d.n = ids.n = 0;
    name_str(&d, "_HID", "ACPI0016");
    d_str(&ids, "ACPI0017");
    d_eisa(&ids, "PNP0501");
    name(&d, "_CID");
    package(&d, 2, &ids);
    name_int(&d, "_PXM", 3);
    device(&a, "CXL1", &d);

    /* the PCI ID as the package's second element, after one the scan steps over */
    d.n = ids.n = 0;
    name_eisa(&d, "_HID", "PNP0C02");
    d_str(&ids, "PNP0C01");
    d_str(&ids, "PNP0A03");
    name(&d, "_CID");
    package(&d, 2, &ids);
    device(&a, "CXL2", &d);

    assert_int_equal(scan(&a, &s), 2);
    expect_root(&s.r[0], "CXL0", 0, 0x35, true, true, 2);
    expect_root(&s.r[1], "CXL2", 0, 0, false, false, 0);
}

static void test_hid_forms(void **state)
{
    struct aml a = { .n = 0 }, d = { .n = 0 };
    struct scan s;
    static const char *const not_pci[] = { "PNP0A0", "PNP0A033", "pnp0a03", "PNP0A05" };

    (void)state;
    name_str(&d, "_HID", "PNP0A03");
    name_int(&d, "_PXM", 5);
    device(&a, "STR0", &d);
    for (unsigned i = 0; i < 4; i++) {
        d.n = 0;
        name_str(&d, "_HID", not_pci[i]);
        name_int(&d, "_PXM", 6);
        device(&a, "NOTP", &d);
    }
    d.n = 0;
    name_eisa(&d, "_HID", "PNP0A08"); /* the integer form of each ID, and a neighbour's */
    device(&a, "INT8", &d);
    d.n = 0;
    name_eisa(&d, "_HID", "PNP0A03");
    device(&a, "INT3", &d);
    d.n = 0;
    name_eisa(&d, "_HID", "PNP0A06");
    device(&a, "INT6", &d);
    d.n = 0;
    name_str(&d, "_CID", "PNP0A08"); /* _CID alone is enough */
    device(&a, "CID8", &d);

    assert_int_equal(scan(&a, &s), 4);
    expect_root(&s.r[0], "STR0", 0, 0, false, true, 5);
    expect_root(&s.r[1], "INT8", 0, 0, false, false, 0);
    expect_root(&s.r[2], "INT3", 0, 0, false, false, 0);
    expect_root(&s.r[3], "CID8", 0, 0, false, false, 0);
    assert_int_equal(eisa("PNP0A03"), 0x030AD041);
    assert_int_equal(eisa("PNP0A08"), 0x080AD041);
}

/* ---- _PXM, _BBN, _SEG as methods and as integers of every width ---- */

/* One PCI root (PNP0A08) whose body is `extra`: the root as scanned. */
static struct aml_pci_root one_root(const struct aml *extra)
{
    struct aml a = { .n = 0 }, d = { .n = 0 };
    struct scan s;

    name_eisa(&d, "_HID", "PNP0A08");
    put(&d, extra->b, extra->n);
    device(&a, "PCI9", &d);
    assert_int_equal(scan(&a, &s), 1);
    assert_string_equal(s.r[0].name, "PCI9");
    return s.r[0];
}

static void test_methods(void **state)
{
    struct aml x = { .n = 0 }, body = { .n = 0 };
    struct aml_pci_root r;

    (void)state;
    /* Method(_PXM) { Return(0x02) }: BytePrefix; Return(One): OneOp */
    method_return(&x, "_PXM", 2);
    r = one_root(&x);
    assert_true(r.has_node);
    assert_int_equal(r.node, 2);
    assert_false(r.node_computed);
    x.n = 0;
    method_return(&x, "_PXM", 1);
    r = one_root(&x);
    assert_true(r.has_node);
    assert_int_equal(r.node, 1);

    /* Return(Local0): the node is whatever ran before */
    x.n = 0;
    put(&body, "\x70\x0A\x03\x60" "\xA4\x60", 6); /* Store(3, Local0) Return(Local0) */
    method(&x, "_PXM", 0, &body);
    r = one_root(&x);
    assert_false(r.has_node);
    assert_true(r.node_computed);
    assert_false(r.bus_computed);

    /* If (LEqual(Arg0, Zero)) { Return(1) } Return(2) */
    x.n = body.n = 0;
    struct aml cond = { .n = 0 };
    put(&cond, "\x93\x68\x00" "\xA4\x01", 5);
    block(&body, OP_IF, &cond, 0);
    put(&body, "\xA4\x0A\x02", 3);
    method(&x, "_PXM", 0, &body);
    r = one_root(&x);
    assert_false(r.has_node);
    assert_true(r.node_computed);

    /* Return(2) then a stray Noop: not the whole body */
    x.n = body.n = 0;
    put(&body, "\xA4\x0A\x02\xA3", 4);
    method(&x, "_PXM", 0, &body);
    r = one_root(&x);
    assert_false(r.has_node);
    assert_true(r.node_computed);

    /* _BBN from a field: the root cannot be placed */
    x.n = body.n = 0;
    put(&body, "\xA4" "BB00", 5); /* Return(BB00) */
    method(&x, "_BBN", 0, &body);
    name_int(&x, "_PXM", 1);
    r = one_root(&x);
    assert_false(r.has_bus);
    assert_true(r.bus_computed);
    assert_true(r.has_node);
    assert_false(r.node_computed);

    /* _BBN and _SEG as constant methods */
    x.n = 0;
    method_return(&x, "_BBN", 0x40);
    method_return(&x, "_SEG", 3);
    r = one_root(&x);
    assert_true(r.has_bus);
    assert_int_equal(r.bus, 0x40);
    assert_int_equal(r.segment, 3);
    assert_false(r.bus_computed);
    assert_false(r.has_node);
    assert_false(r.node_computed);

    /* _SEG from a field */
    x.n = body.n = 0;
    put(&body, "\xA4" "SG00", 5);
    method(&x, "_SEG", 0, &body);
    name_int(&x, "_BBN", 0x10);
    r = one_root(&x);
    assert_true(r.bus_computed);
    assert_true(r.has_bus);
}

static void test_integer_widths(void **state)
{
    struct aml x = { .n = 0 };
    struct aml_pci_root r;

    (void)state;
    /* Name(_SEG, 1) is OneOp; Name(_PXM, Zero) a known node 0 */
    name_int(&x, "_SEG", 1);
    name_int(&x, "_PXM", 0);
    r = one_root(&x);
    assert_int_equal(r.segment, 1);
    assert_false(r.bus_computed);
    assert_true(r.has_node);
    assert_int_equal(r.node, 0);
    assert_false(r.has_bus);

    x.n = 0;
    name(&x, "_SEG");
    d_prefixed(&x, 0x0B, 0x0102);
    name(&x, "_BBN");
    d_prefixed(&x, 0x0B, 0x00FE); /* a byte's value in a word */
    name(&x, "_PXM");
    d_prefixed(&x, 0x0C, 0x00010007);
    r = one_root(&x);
    assert_int_equal(r.segment, 0x0102);
    assert_true(r.has_bus);
    assert_int_equal(r.bus, 0xFE);
    assert_true(r.has_node);
    assert_int_equal(r.node, 0x00010007);

    x.n = 0;
    name(&x, "_SEG");
    d_prefixed(&x, 0x0E, 0xFFFF);
    name(&x, "_BBN");
    d_prefixed(&x, 0x0C, 0x81);
    name(&x, "_PXM");
    d_prefixed(&x, 0x0E, 0xFFFFFFFFull);
    r = one_root(&x);
    assert_int_equal(r.segment, 0xFFFF);
    assert_false(r.bus_computed);
    assert_int_equal(r.bus, 0x81);
    assert_true(r.has_node);
    assert_int_equal(r.node, 0xFFFFFFFFu);

    /* out of range: a proximity domain is 32 bits, a bus 8, a segment 16 */
    x.n = 0;
    name(&x, "_PXM");
    d_prefixed(&x, 0x0E, 0x100000000ull);
    r = one_root(&x);
    assert_false(r.has_node);
    assert_true(r.node_computed);
    assert_false(r.bus_computed);

    x.n = 0;
    name(&x, "_BBN");
    d_prefixed(&x, 0x0B, 0x100);
    r = one_root(&x);
    assert_false(r.has_bus);
    assert_true(r.bus_computed);

    x.n = 0;
    name(&x, "_SEG");
    d_prefixed(&x, 0x0C, 0x10000);
    name_int(&x, "_BBN", 2);
    r = one_root(&x);
    assert_true(r.bus_computed);
    assert_true(r.has_bus);
    assert_int_equal(r.bus, 2);

    /* a QWordPrefix cut short by the Device's end: no value at all, so none is kept (the
     * fuzzer found the segment, bus and node taken from an uninitialized variable) */
    static const char *const cut[] = { "_SEG", "_BBN", "_PXM" };
    for (unsigned i = 0; i < 3; i++) {
        x.n = 0;
        name(&x, cut[i]);
        put(&x, "\x0E\xFF\xFF\xFF", 4);
        r = one_root(&x);
        assert_int_equal(r.segment, 0);
        assert_int_equal(r.bus, 0);
        assert_int_equal(r.node, 0);
        assert_false(r.has_bus || r.has_node);
        assert_true(i == 2 ? r.node_computed : r.bus_computed);
    }

    /* Name(_PXM, "1"): not an integer */
    x.n = 0;
    name_str(&x, "_PXM", "1");
    r = one_root(&x);
    assert_false(r.has_node);
    assert_true(r.node_computed);
}

/* ---- what belongs to someone else ---- */

static void test_child_and_other_devices(void **state)
{
    struct aml a = { .n = 0 }, d = { .n = 0 }, c = { .n = 0 };
    struct scan s;

    (void)state;
    /* PCI1 has no _PXM of its own; its child S08 has one */
    name_eisa(&d, "_HID", "PNP0A08");
    name_int(&c, "_ADR", 0x00010000);
    name_int(&c, "_PXM", 3);
    device(&d, "S08_", &c);
    name_int(&d, "_UID", 1);
    device(&a, "PCI1", &d);

    /* PCI2's child comes first, its own _PXM after it */
    d.n = 0;
    device(&d, "S10_", &c);
    name_eisa(&d, "_HID", "PNP0A03");
    name_int(&d, "_PXM", 1);
    device(&a, "PCI2", &d);

    /* a serial port with a _PXM is no root bridge */
    d.n = 0;
    name_eisa(&d, "_HID", "PNP0501");
    name_int(&d, "_PXM", 3);
    name_int(&d, "_BBN", 7);
    device(&a, "COM1", &d);

    /* a root's child that says it is a root bridge is one too, with its own numbers */
    d.n = c.n = 0;
    name_eisa(&c, "_HID", "PNP0A03");
    name_int(&c, "_BBN", 9);
    name_int(&c, "_PXM", 4);
    name_eisa(&d, "_HID", "PNP0A08");
    device(&d, "INNR", &c);
    device(&a, "OUTR", &d);

    assert_int_equal(scan(&a, &s), 4);
    expect_root(&s.r[0], "PCI1", 0, 0, false, false, 0);
    assert_false(s.r[0].node_computed);
    expect_root(&s.r[1], "PCI2", 0, 0, false, true, 1);
    expect_root(&s.r[2], "OUTR", 0, 0, false, false, 0);
    expect_root(&s.r[3], "INNR", 0, 9, true, true, 4);
}

/* The bytes of Name(_PXM, 5) inside a Buffer, a Package and a method's body are data. */
static void test_pxm_bytes_in_data(void **state)
{
    static const uint8_t trap[] = { 0x08, '_', 'P', 'X', 'M', 0x0A, 0x05,
                                    0x08, '_', 'B', 'B', 'N', 0x0A, 0x06 };
    struct aml x = { .n = 0 }, e = { .n = 0 }, body = { .n = 0 };
    struct aml_pci_root r;

    (void)state;
    name(&x, "_CRS");
    buffer(&x, trap, sizeof(trap));
    r = one_root(&x);
    assert_false(r.has_node);
    assert_false(r.node_computed);
    assert_false(r.has_bus);
    assert_false(r.bus_computed);

    x.n = 0;
    put(&e, trap, sizeof(trap)); /* not valid elements, but inside the PkgLength */
    name(&x, "_PRT");
    package(&x, 1, &e);
    r = one_root(&x);
    assert_false(r.has_node);
    assert_false(r.has_bus);

    /* Method(_OSC) { Name(_PXM, 5) Name(_BBN, 6) ... }: locals of the method */
    x.n = 0;
    put(&body, trap, sizeof(trap));
    put(&body, "\xA4\x6B", 2);
    method(&x, "_OSC", 4, &body);
    r = one_root(&x);
    assert_false(r.has_node);
    assert_false(r.node_computed);
    assert_false(r.has_bus);

    /* _PXM after all three is still the root's */
    name_int(&x, "_PXM", 6);
    r = one_root(&x);
    assert_true(r.has_node);
    assert_int_equal(r.node, 6);
}

/* ---- PkgLength ---- */

/* A Name inside If/Else/While is declared only when the condition holds: not a constant. */
static void test_conditional_names(void **state)
{
    static const uint8_t ops[] = { OP_IF, 0xA1 /* Else */, 0xA2 /* While */ };
    struct aml_pci_root r;

    (void)state;
    for (unsigned i = 0; i < sizeof(ops); i++) {
        struct aml x = { .n = 0 }, body = { .n = 0 };
        if (ops[i] != 0xA1) {
            put(&body, "\x93\x68\x00", 3); /* LEqual(Arg0, Zero) */
        }
        name_int(&body, "_PXM", 5);
        block(&x, ops[i], &body, 0);
        r = one_root(&x);
        assert_false(r.has_node);
        assert_int_equal(r.node, 0);
    }
    /* the same Name outside the block is the root's own */
    struct aml x = { .n = 0 }, body = { .n = 0 };
    name_int(&body, "_PXM", 5);
    block(&x, OP_IF, &body, 0);
    name_int(&x, "_PXM", 3);
    r = one_root(&x);
    assert_true(r.has_node);
    assert_int_equal(r.node, 3);
}

/* Devices that overlap without nesting (hostile AML) make the same bytes scanned again and
 * again: 32,768 root bridges 32 bytes apart, each claiming the next 64 KiB, would cost 2^31
 * steps; the work budget (a few steps per byte of the block) ends the scan after a few dozen,
 * keeping what it found. */
static void test_overlapping_devices_bounded(void **state)
{
    static const uint8_t root[] = { 0x5B, 0x82, 0xC0, 0x00, 0x10, 0x00, /* PkgLength 0x10000 */
                                    'R', 'O', 'O', 'T', 0x08, '_', 'H', 'I', 'D',
                                    0x0C, 0x41, 0xD0, 0x0A, 0x08 };
    size_t len = 1u << 20;
    uint8_t *b = calloc(1, len);
    struct aml_pci_root *out = calloc(len / 32, sizeof(*out));
    unsigned n = 0, dropped = 0;

    (void)state;
    assert_non_null(b);
    assert_non_null(out);
    for (size_t i = 0; i + 32 <= len; i += 32) {
        memcpy(b + i, root, sizeof(root));
    }
    unsigned found = aml_find_pci_roots(b, len, out, (unsigned)(len / 32), &n, &dropped);
    assert_in_range(found, 1, 1000);
    assert_int_equal(n, found);
    assert_string_equal(out[0].name, "ROOT");
    free(out);
    free(b);
}

static void test_pkg_length_forms(void **state)
{
    static const struct {
        uint8_t b[4];
        size_t avail, used;
        uint32_t len;
    } ok[] = {
        { { 0x01 }, 1, 1, 1 },
        { { 0x05, 0xEE }, 2, 1, 5 },
        { { 0x3F }, 1, 1, 63 },
        { { 0x42, 0x00 }, 2, 2, 2 },          /* the smallest 2-byte value */
        { { 0x4A, 0x12 }, 2, 2, 0x12A },
        { { 0x4F, 0xFF }, 4, 2, 0xFFF },
        { { 0x85, 0x34, 0x12 }, 3, 3, 0x12345 },
        { { 0x8F, 0xFF, 0xFF }, 3, 3, 0xFFFFF },
        { { 0xC7, 0x56, 0x34, 0x12 }, 4, 4, 0x1234567 },
        { { 0xCF, 0xFF, 0xFF, 0xFF }, 4, 4, 0xFFFFFFF }, /* the largest: 28 bits */
        { { 0xC4, 0x00, 0x00, 0x00 }, 4, 4, 4 },
    };

    (void)state;
    for (unsigned i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        uint32_t len = 0xDEADBEEF;
        assert_int_equal(aml_pkg_length(ok[i].b, ok[i].avail, &len), ok[i].used);
        assert_int_equal(len, ok[i].len);
    }

    /* the assembler's encoder against the decoder, for every size it picks and each forced */
    for (uint32_t body = 0; body < 0x100000; body = body * 3 + 1) {
        for (unsigned bytes = 0; bytes <= 4; bytes++) {
            struct aml a = { .n = 0 };
            uint32_t len = 0;
            if (bytes == 1 && body + 1 > 0x3F) {
                continue;
            }
            if (bytes == 2 && body + 2 > 0xFFF) {
                continue;
            }
            pkglen(&a, body, bytes);
            assert_int_equal(aml_pkg_length(a.b, a.n, &len), a.n);
            assert_int_equal(len, body + a.n);
        }
    }
}

static void test_pkg_length_malformed(void **state)
{
    static const struct {
        uint8_t b[4];
        size_t avail;
    } bad[] = {
        { { 0x00 }, 1 },                   /* 0 cannot count its own byte */
        { { 0x5A, 0x12 }, 2 },             /* bit 4 set with a byte following */
        { { 0x6A, 0x12 }, 2 },             /* bit 5 */
        { { 0xB5, 0x34, 0x12 }, 3 },       /* both */
        { { 0xF7, 0x56, 0x34, 0x12 }, 4 },
        { { 0x40, 0x00 }, 2 },             /* 0 and 1 with two bytes: smaller than itself */
        { { 0x41, 0x00 }, 2 },
        { { 0x82, 0x00, 0x00 }, 3 },
        { { 0xC3, 0x00, 0x00, 0x00 }, 4 },
        { { 0x4A }, 1 },                   /* truncated */
        { { 0x85, 0x34 }, 2 },
        { { 0xC7, 0x56, 0x34 }, 3 },
        { { 0x05 }, 0 },
    };

    (void)state;
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint8_t *p = malloc(bad[i].avail + 1); /* exactly what it may read */
        uint32_t len = 0;
        assert_non_null(p);
        memcpy(p, bad[i].b, bad[i].avail);
        assert_int_equal(aml_pkg_length(p, bad[i].avail, &len), 0);
        free(p);
    }
}

/* Devices with 1-, 2-, 3- and 4-byte PkgLengths, all found; one claiming too much is not. */
static void test_device_pkg_lengths(void **state)
{
    struct aml a = { .n = 0 }, d = { .n = 0 };
    struct scan s;
    static const char *const names[] = { "PKG1", "PKG2", "PKG3", "PKG4" };

    (void)state;
    for (unsigned bytes = 1; bytes <= 4; bytes++) {
        d.n = 0;
        name_eisa(&d, "_HID", "PNP0A08");
        name_int(&d, "_BBN", bytes);
        named_block(&a, OP_DEVICE, names[bytes - 1], 4, &d, bytes);
    }
    assert_int_equal(scan(&a, &s), 4);
    for (unsigned i = 0; i < 4; i++) {
        expect_root(&s.r[i], names[i], 0, (uint8_t)(i + 1), true, false, 0);
    }

    /* a big body: the root's numbers after 310 bytes of buffers */
    static uint8_t big[250];
    a.n = d.n = 0;
    name_eisa(&d, "_HID", "PNP0A08");
    name(&d, "BIG0");
    buffer(&d, big, sizeof(big));
    name(&d, "BIG1");
    buffer(&d, big, 60);
    name_int(&d, "_PXM", 7);
    device(&a, "LONG", &d);
    assert_true(a.b[2] >> 6 == 1); /* a 2-byte PkgLength */
    assert_int_equal(scan(&a, &s), 1);
    expect_root(&s.r[0], "LONG", 0, 0, false, true, 7);

    /* the Device's PkgLength one byte more than the block holds: ignored */
    a.n = d.n = 0;
    name_eisa(&d, "_HID", "PNP0A08");
    name_int(&d, "_PXM", 1);
    device(&a, "OVER", &d);
    a.b[2]++;
    assert_int_equal(scan(&a, &s), 0);
    assert_int_equal(s.n, 0);
    a.b[2]--; /* and as written, found */
    assert_int_equal(scan(&a, &s), 1);
    expect_root(&s.r[0], "OVER", 0, 0, false, true, 1);

    /* a method's PkgLength past the Device's end: the _PXM in it is not a constant method */
    a.n = d.n = 0;
    name_eisa(&d, "_HID", "PNP0A08");
    method_return(&d, "_PXM", 2); /* 14 len _PXM flags A4 0A 02: the Device's last bytes */
    assert_int_equal(d.b[d.n - 10], 0x14);
    d.b[d.n - 9]++;
    device(&a, "MPAS", &d);
    assert_int_equal(scan(&a, &s), 1);
    assert_false(s.r[0].has_node);
}

/* ---- limits ---- */

static void test_max_and_dropped(void **state)
{
    struct aml a = { .n = 0 }, d = { .n = 0 };
    struct scan s;
    char nm[5] = "RB0?";

    (void)state;
    for (unsigned i = 0; i < 5; i++) {
        d.n = 0;
        name_eisa(&d, "_HID", "PNP0A08");
        name_int(&d, "_BBN", 0x10 * i);
        nm[3] = (char)('0' + i);
        device(&a, nm, &d);
    }
    memset(&s, 0xA5, sizeof(s));
    s.n = s.dropped = 0;
    assert_int_equal(scan_more(&a, a.n, &s, 3), 5);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.dropped, 2);
    assert_memory_equal(&s.r[3], poison, sizeof(poison)); /* nothing past max written */
    for (unsigned i = 0; i < 3; i++) {
        nm[3] = (char)('0' + i);
        expect_root(&s.r[i], nm, 0, (uint8_t)(0x10 * i), true, false, 0);
    }

    /* a second table into the same array: the count goes on, nothing fits */
    assert_int_equal(scan_more(&a, a.n, &s, 3), 5);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.dropped, 7);

    /* appending: the second block's roots after the first's */
    assert_int_equal(scan_more(&a, a.n, &s, 8), 5);
    assert_int_equal(s.n, 8);
    assert_int_equal(s.dropped, 7);
    expect_root(&s.r[3], "RB00", 0, 0, true, false, 0);
    expect_root(&s.r[7], "RB04", 0, 0x40, true, false, 0);

    /* max 0: nothing written, out not touched */
    unsigned n = 0, dropped = 0;
    assert_int_equal(aml_find_pci_roots(a.b, a.n, NULL, 0, &n, &dropped), 5);
    assert_int_equal(n, 0);
    assert_int_equal(dropped, 5);
}

/* ---- NameString forms (§20.2.2) for the Device's own name ---- */

static void test_name_strings(void **state)
{
    static const struct {
        const char *ns;
        size_t len;
        const char *last;
    } forms[] = {
        { "\\PCI0", 5, "PCI0" },
        { "^^PCI1", 6, "PCI1" },
        { "\x2E" "_SB_PCI2", 9, "PCI2" },
        { "\\\x2E" "_SB_PCI3", 10, "PCI3" },
        { "\x2F\x03" "_SB_PCI0PCI4", 14, "PCI4" },
        { "^\x2F\x02" "_SB_PCI5", 11, "PCI5" },
        { "\x2F\x01" "PCI6", 6, "PCI6" },
        { "_9Z_", 4, "_9Z_" },
    };
    static const struct {
        const char *ns;
        size_t len;
    } bad[] = {
        { "pci0", 4 },                /* lower case */
        { "0PCI", 4 },                /* a digit first */
        { "\x2F\x00" "PCI0", 6 },     /* zero segments */
        { "\x2E" "_SB_", 5 },          /* a dual name with one segment, the next byte 0x08 */
        { "\\\\PCI0", 6 },            /* the root twice */
    };
    struct aml a = { .n = 0 }, d = { .n = 0 };
    struct scan s;

    (void)state;
    name_eisa(&d, "_HID", "PNP0A08");
    name_int(&d, "_PXM", 1);
    for (unsigned i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        named_block(&a, OP_DEVICE, forms[i].ns, forms[i].len, &d, 0);
    }
    assert_int_equal(scan(&a, &s), sizeof(forms) / sizeof(forms[0]));
    for (unsigned i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        expect_root(&s.r[i], forms[i].last, 0, 0, false, true, 1);
    }

    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        a.n = 0;
        named_block(&a, OP_DEVICE, bad[i].ns, bad[i].len, &d, 0);
        assert_int_equal(scan(&a, &s), 0);
    }

    /* Name's NameString may carry prefixes too: Name(\_SB_.PCI7._PXM) is still a _PXM */
    a.n = d.n = 0;
    name_eisa(&d, "_HID", "PNP0A08");
    put(&d, "\x08\x5C\x2F\x03" "_SB_PCI7_PXM" "\x0A\x04", 18);
    device(&a, "PCI7", &d);
    assert_int_equal(scan(&a, &s), 1);
    expect_root(&s.r[0], "PCI7", 0, 0, false, true, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qemu_dsdt),
        cmocka_unit_test(test_qemu_dsdt_every_prefix),
        cmocka_unit_test(test_cid_package),
        cmocka_unit_test(test_hid_forms),
        cmocka_unit_test(test_methods),
        cmocka_unit_test(test_integer_widths),
        cmocka_unit_test(test_child_and_other_devices),
        cmocka_unit_test(test_pxm_bytes_in_data),
        cmocka_unit_test(test_pkg_length_forms),
        cmocka_unit_test(test_pkg_length_malformed),
        cmocka_unit_test(test_device_pkg_lengths),
        cmocka_unit_test(test_max_and_dropped),
        cmocka_unit_test(test_name_strings),
        cmocka_unit_test(test_conditional_names),
        cmocka_unit_test(test_overlapping_devices_bounded),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
