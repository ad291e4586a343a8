/*
 * kernel/aml.c: finds PCI root bridges and their _SEG, _BBN and _PXM in AML without
 * interpreting it (ACPI 6.5 §20.2: the grammar; §6.1.5, §6.2.14, §6.5.5, §6.5.6: the objects).
 *
 * Why a scanner: the one fact needed, a root bridge's NUMA node, is almost always a constant
 * (QEMU writes Name(_PXM, n); server firmware Name or a Method that returns a literal), while
 * an interpreter is tens of thousands of lines the fast path would never use. Every Device
 * (ExtOpPrefix 0x5B, DeviceOp 0x82) in the block is found by its opcode; its body is read term
 * by term for Name and Method declarations, stepping over nested Devices, Methods, Buffers and
 * Packages by their PkgLength, so a child's or a resource template's bytes are never taken for
 * the bridge's own. What is not a constant stays unknown, and the caller says so.
 */
#include "aml.h"

#include <string.h>

#define AML_NAME_OP 0x08
#define AML_METHOD_OP 0x14
#define AML_EXT_PREFIX 0x5B
#define AML_DEVICE_OP 0x82 /* after AML_EXT_PREFIX */
#define AML_IF_OP 0xA0
#define AML_ELSE_OP 0xA1
#define AML_WHILE_OP 0xA2
#define AML_RETURN_OP 0xA4
#define AML_ZERO_OP 0x00
#define AML_ONE_OP 0x01
#define AML_BYTE_PREFIX 0x0A
#define AML_WORD_PREFIX 0x0B
#define AML_DWORD_PREFIX 0x0C
#define AML_STRING_PREFIX 0x0D
#define AML_QWORD_PREFIX 0x0E
#define AML_BUFFER_OP 0x11
#define AML_PACKAGE_OP 0x12
#define AML_VAR_PACKAGE_OP 0x13
#define AML_ROOT_CHAR 0x5C   /* '\' */
#define AML_PARENT_CHAR 0x5E /* '^' */
#define AML_DUAL_NAME_PREFIX 0x2E
#define AML_MULTI_NAME_PREFIX 0x2F
#define AML_NAME_SEG_BYTES 4
#define AML_MAX_STRING_BYTES 64 /* a _HID string is 7 or 8 characters */

/* EISA IDs compressed as AML writes EisaId("PNP0A03") (§19.6.35): PCI and PCI Express roots. */
#define AML_EISA_PNP0A03 0x030AD041u
#define AML_EISA_PNP0A08 0x080AD041u

/* A bounded view of the bytes still to read. */
struct aml_cursor {
    const uint8_t *p;
    const uint8_t *end;
};

/* What one Device's own declarations said. */
struct aml_device {
    bool pci_root;
    struct aml_pci_root r;
};

size_t aml_pkg_length(const uint8_t *p, size_t avail, uint32_t *len)
{
    if (avail == 0) {
        return 0;
    }
    size_t follow = p[0] >> 6; /* bits 7:6: how many bytes follow the lead byte */
    if (follow == 0) {
        *len = p[0] & 0x3F;
        return *len >= 1 ? 1 : 0;
    }
    if (avail < follow + 1 || (p[0] & 0x30) != 0) { /* bits 5:4 must be 0 when bytes follow */
        return 0;
    }
    uint32_t v = p[0] & 0x0F;
    for (size_t i = 0; i < follow; i++) {
        v |= (uint32_t)p[1 + i] << (4 + 8 * i);
    }
    *len = v;
    return v >= follow + 1 ? follow + 1 : 0;
}

static bool aml_lead_char(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') || c == '_';
}

static bool aml_name_seg_ok(const uint8_t *s)
{
    if (!aml_lead_char(s[0])) {
        return false;
    }
    for (unsigned i = 1; i < AML_NAME_SEG_BYTES; i++) {
        if (!aml_lead_char(s[i]) && !(s[i] >= '0' && s[i] <= '9')) {
            return false;
        }
    }
    return true;
}

/* aml_name_string: steps over a NameString (§20.2.2), leaving its last NameSeg in seg (empty
 * for the NullName). False if it is malformed or runs past the end. */
static bool aml_name_string(struct aml_cursor *c, char seg[5])
{
    const uint8_t *p = c->p;
    unsigned nsegs = 1;

    if (p < c->end && *p == AML_ROOT_CHAR) {
        p++;
    }
    while (p < c->end && *p == AML_PARENT_CHAR) {
        p++;
    }
    if (p >= c->end) {
        return false;
    }
    if (*p == 0x00) { /* NullName */
        seg[0] = '\0';
        c->p = p + 1;
        return true;
    }
    if (*p == AML_DUAL_NAME_PREFIX) {
        nsegs = 2, p++;
    } else if (*p == AML_MULTI_NAME_PREFIX) {
        if (c->end - p < 2 || p[1] == 0) {
            return false;
        }
        nsegs = p[1], p += 2;
    }
    if ((size_t)(c->end - p) < (size_t)nsegs * AML_NAME_SEG_BYTES) {
        return false;
    }
    for (unsigned i = 0; i < nsegs; i++, p += AML_NAME_SEG_BYTES) {
        if (!aml_name_seg_ok(p)) {
            return false;
        }
    }
    memcpy(seg, p - AML_NAME_SEG_BYTES, AML_NAME_SEG_BYTES);
    seg[4] = '\0';
    c->p = p;
    return true;
}

/* aml_integer: a constant integer (§20.2.3 ComputationalData), consumed; false if the next
 * term is not one. */
static bool aml_integer(struct aml_cursor *c, uint64_t *v)
{
    static const uint8_t width[] = { [AML_BYTE_PREFIX] = 1, [AML_WORD_PREFIX] = 2,
                                     [AML_DWORD_PREFIX] = 4, [AML_QWORD_PREFIX] = 8 };
    if (c->p >= c->end) {
        return false;
    }
    uint8_t op = *c->p;
    if (op == AML_ZERO_OP || op == AML_ONE_OP) {
        *v = op, c->p++;
        return true;
    }
    if (op >= sizeof(width) || width[op] == 0 || (size_t)(c->end - c->p) < 1u + width[op]) {
        return false;
    }
    *v = 0;
    for (unsigned i = 0; i < width[op]; i++) {
        *v |= (uint64_t)c->p[1 + i] << (8 * i);
    }
    c->p += 1 + width[op];
    return true;
}

/* aml_skip_pkg: steps over PkgLength and what it covers; false if it does not fit. */
static bool aml_skip_pkg(struct aml_cursor *c)
{
    uint32_t len;
    size_t used = aml_pkg_length(c->p, (size_t)(c->end - c->p), &len);
    if (used == 0 || len > (size_t)(c->end - c->p)) {
        return false;
    }
    c->p += len;
    return true;
}

/* aml_is_pci_id: one _HID/_CID value (an EisaId integer or a string) names a PCI root. */
static bool aml_is_pci_id(struct aml_cursor *c)
{
    uint64_t v;
    if (aml_integer(c, &v)) {
        return v == AML_EISA_PNP0A03 || v == AML_EISA_PNP0A08;
    }
    if (c->p >= c->end || *c->p != AML_STRING_PREFIX) {
        return false;
    }
    const uint8_t *s = ++c->p;
    while (c->p < c->end && *c->p != 0 && c->p - s < AML_MAX_STRING_BYTES) {
        c->p++;
    }
    size_t n = (size_t)(c->p - s);
    if (c->p >= c->end || *c->p != 0) {
        return false;
    }
    c->p++;
    return n == 7 && (memcmp(s, "PNP0A03", 7) == 0 || memcmp(s, "PNP0A08", 7) == 0);
}

/* aml_id_object: a _HID/_CID's object: one ID, or (for _CID) a Package of them (§6.1.2). */
static bool aml_id_object(struct aml_cursor *c)
{
    if (c->p >= c->end || *c->p != AML_PACKAGE_OP) {
        return aml_is_pci_id(c);
    }
    struct aml_cursor pkg = { c->p + 1, c->end };
    uint32_t len;
    size_t used = aml_pkg_length(pkg.p, (size_t)(pkg.end - pkg.p), &len);
    if (used == 0 || len > (size_t)(pkg.end - pkg.p) || len < used + 1) {
        return false;
    }
    pkg.end = pkg.p + len;
    pkg.p += used + 1; /* NumElements: the elements are bounded by the PkgLength anyway */
    c->p = pkg.end;
    bool pci = false;
    while (pkg.p < pkg.end) {
        const uint8_t *before = pkg.p;
        pci |= aml_is_pci_id(&pkg);
        if (pkg.p == before) {
            break; /* an element we cannot step over: stop looking */
        }
    }
    return pci;
}

/* aml_skip_data: steps over a Name's DataRefObject we do not need; false if unknown. */
static bool aml_skip_data(struct aml_cursor *c)
{
    uint64_t v;
    if (c->p >= c->end) {
        return false;
    }
    switch (*c->p) {
    case AML_BUFFER_OP:
    case AML_PACKAGE_OP:
    case AML_VAR_PACKAGE_OP:
        c->p++;
        return aml_skip_pkg(c);
    case AML_STRING_PREFIX:
        (void)aml_is_pci_id(c); /* steps over the string whatever it says */
        return true;
    default:
        return aml_integer(c, &v);
    }
}

/* The three numbers a root bridge's placement needs; where each goes. */
static void aml_set_number(struct aml_device *d, const char *seg, bool constant, uint64_t v)
{
    if (strcmp(seg, "_PXM") == 0) {
        d->r.has_node = constant && v <= UINT32_MAX;
        d->r.node_computed = !d->r.has_node;
        d->r.node = (uint32_t)v;
    } else if (strcmp(seg, "_BBN") == 0) {
        d->r.has_bus = constant && v <= 0xFF;
        d->r.bus_computed |= !d->r.has_bus;
        d->r.bus = (uint8_t)v;
    } else if (strcmp(seg, "_SEG") == 0) {
        d->r.bus_computed |= !(constant && v <= 0xFFFF);
        d->r.segment = (uint16_t)v;
    }
}

static bool aml_is_number_name(const char *seg)
{
    return strcmp(seg, "_PXM") == 0 || strcmp(seg, "_BBN") == 0 || strcmp(seg, "_SEG") == 0;
}

/* aml_name_decl: Name(seg, object) at c->p (just past NameOp); false if not one. */
static bool aml_name_decl(struct aml_cursor *c, struct aml_device *d)
{
    char seg[5];
    uint64_t v = 0;

    if (!aml_name_string(c, seg)) {
        return false;
    }
    if (strcmp(seg, "_HID") == 0 || strcmp(seg, "_CID") == 0) {
        const uint8_t *before = c->p;
        d->pci_root |= aml_id_object(c);
        return c->p != before;
    }
    if (aml_is_number_name(seg)) {
        bool constant = aml_integer(c, &v);
        aml_set_number(d, seg, constant, v);
        return constant;
    }
    return aml_skip_data(c);
}

/* aml_method_decl: Method(seg, flags) { body } at c->p (just past MethodOp); a _PXM, _BBN or
 * _SEG whose whole body is Return(integer) is that constant. False if malformed. */
static bool aml_method_decl(struct aml_cursor *c, struct aml_device *d)
{
    struct aml_cursor m = { c->p, c->end };
    uint32_t len;
    size_t used = aml_pkg_length(m.p, (size_t)(m.end - m.p), &len);
    char seg[5];
    uint64_t v = 0;

    if (used == 0 || len > (size_t)(m.end - m.p)) {
        return false;
    }
    m.end = m.p + len;
    m.p += used;
    if (!aml_name_string(&m, seg) || m.p >= m.end) {
        return false;
    }
    c->p = m.end;
    if (aml_is_number_name(seg)) {
        m.p++; /* MethodFlags */
        bool constant = m.p < m.end && *m.p++ == AML_RETURN_OP && aml_integer(&m, &v) &&
                        m.p == m.end;
        aml_set_number(d, seg, constant, v);
    }
    return true;
}

/* aml_is_block_op: If, Else and While (§20.2.5.3): what they declare is conditional, so it is
 * stepped over by its PkgLength and never taken for a constant. */
static bool aml_is_block_op(uint8_t op)
{
    return op == AML_IF_OP || op == AML_ELSE_OP || op == AML_WHILE_OP;
}

/*
 * aml_device_body: the Device's own Name and Method declarations in [c->p, c->end). Each term
 * or byte looked at costs one unit of *budget; at 0 the body is left (well-formed AML never
 * gets there: see aml_find_pci_roots).
 */
static void aml_device_body(struct aml_cursor c, struct aml_device *d, size_t *budget)
{
    while (c.p < c.end && *budget > 0) {
        const uint8_t *at = c.p;
        uint8_t op = *c.p++;
        bool stepped = false;
        if (op == AML_NAME_OP) {
            stepped = aml_name_decl(&c, d);
        } else if (op == AML_METHOD_OP || aml_is_block_op(op)) {
            stepped = op == AML_METHOD_OP ? aml_method_decl(&c, d) : aml_skip_pkg(&c);
        } else if (op == AML_EXT_PREFIX && c.p < c.end && *c.p == AML_DEVICE_OP) {
            c.p++;
            stepped = aml_skip_pkg(&c); /* a child Device: its names are its own */
        }
        if (!stepped) {
            c.p = at + 1; /* not a term we read: look at the next byte */
        }
        (*budget)--; /* one term or byte: bounded work (a PkgLength skip is O(1)) */
    }
}

/* aml_device_at: the Device whose DeviceOp is at p[0..1], if it parses; false otherwise. */
static bool aml_device_at(const uint8_t *p, const uint8_t *end, struct aml_device *d,
                          size_t *budget)
{
    struct aml_cursor c = { p + 2, end };
    uint32_t len;
    size_t used = aml_pkg_length(c.p, (size_t)(c.end - c.p), &len);

    if (used == 0 || len > (size_t)(c.end - c.p)) {
        return false;
    }
    c.end = c.p + len;
    c.p += used;
    memset(d, 0, sizeof(*d));
    if (!aml_name_string(&c, d->r.name)) {
        return false;
    }
    aml_device_body(c, d, budget);
    return true;
}

/*
 * In well-formed AML every byte lies in the direct body of at most one Device, so the body
 * scans together look at no more bytes than the block has. Hostile AML can make Devices
 * overlap (or hide in Buffers) so that the same bytes are scanned again and again: a budget of
 * a few times the block's size bounds the whole scan, and what is found before it runs out is
 * kept.
 */
#define AML_BUDGET_PER_BYTE 4
#define AML_BUDGET_MIN 4096

unsigned aml_find_pci_roots(const uint8_t *aml, size_t len, struct aml_pci_root *out,
                            unsigned max, unsigned *n, unsigned *dropped)
{
    const uint8_t *end = aml + len;
    size_t budget = len * AML_BUDGET_PER_BYTE + AML_BUDGET_MIN;
    unsigned found = 0;
    struct aml_device d;

    for (const uint8_t *p = aml; len >= 2 && p < end - 1 && budget > 0; p++) {
        if (p[0] != AML_EXT_PREFIX || p[1] != AML_DEVICE_OP ||
            !aml_device_at(p, end, &d, &budget) || !d.pci_root) {
            continue;
        }
        found++;
        if (*n < max) {
            out[(*n)++] = d.r;
        } else {
            (*dropped)++;
        }
    }
    return found;
}
