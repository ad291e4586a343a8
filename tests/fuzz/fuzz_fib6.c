/*
 * tests/fuzz/fuzz_fib6.c: libFuzzer harness for net/fib6.c, the IPv6 longest-prefix-match
 * table (one hash of every route, probed per present length behind a per-/16 first level).
 * The input is a program of add / del / lookup operations run against both the table and a
 * reference that holds the routes in an array and answers a lookup by a linear scan for the
 * longest match, comparing addresses byte by byte.
 *
 * The table is small (byte 0: 1..32 routes, so 2..64 hash slots): it fills after a few
 * operations, and its probe runs wrap around the end of the hash and are shifted back over
 * the wrap by deletions, which a firmware-sized table would almost never let the fuzzer reach.
 * No build flag is needed for that: max_routes is fib6_init's argument.
 *
 * Input: byte 0: max_routes (1 + byte % 32); then operations, 1 opcode byte each:
 *   op % 8 == 0, 1  add: an address (below), len byte % 130 (129: invalid; below 8 only with
 *                   op & 0x40, as they are slow to write), next hop (2 bytes); the address's
 *                   bits beyond len are cleared unless op & 0x80
 *   op % 8 == 2     del of a route we hold (index byte), or with op & 0x80 (or none held) of an
 *                   address and len byte % 130, bits beyond len cleared unless op & 0x40
 *   op % 8 == 3, 4  lookup of an address inside / at the edges of a route we hold (index, how,
 *                   4 bytes of bits)
 *   op % 8 == 5     lookup of an address
 *   op % 8 == 6     add as 0, 1, but the len byte picks one where the code changes behaviour
 *                   (0, 1, 15, 16, 17, 32, 48, 63, 64, 65, 127, 128)
 *   op % 8 == 7     new next hop (2 bytes) for a route we hold (index byte)
 * An address is a form byte, then:
 *   form % 4 == 0   16 bytes
 *   form % 4 == 1   one of 4 /16s (form >> 2), then bytes 2..9 (8 bytes; 10..15 zero)
 *   form % 4 == 2   a held route's prefix (index byte) with one bit (byte % 128) flipped
 *   form % 4 == 3   a held route's prefix (index byte), the host bits of the 8 bytes from
 *                   where it ends (bytes 8..15 past /64) taken from 8 bytes
 *                   (forms 2 and 3 with no route held: as form 0)
 * Lookups read the address at an offset (op >> 4 & 7) in a buffer that ends with it, so loads
 * at every alignment, and none past its 16 bytes, are checked.
 *
 * Invariants: every return code is what the reference predicts (WS_ERR_INVAL for len > 128 or
 * bits beyond len, WS_ERR_NO_MEMORY when max_routes distinct prefixes are held, WS_ERR_NOT_FOUND;
 * replacing a held prefix always succeeds); every lookup equals the reference; the route count
 * equals the reference's; the first level's length bounds of every /16 cover its routes longer
 * than /16 (fib6.h: bounds, possibly stale, never too narrow); at the end, edge lookups for every
 * route, then deleting all routes leaves the first level all zero, no present length and every
 * hash slot free.
 */
#include <stdbool.h>
#include <string.h>

#include "kernel/err.h"
#include "net/fib6.h"
#include "tests/fuzz/fuzz.h"

#define FF6_MAX_ROUTES 32
#define FF6_MAX_OPS 4096

struct ff6_addr {
    uint8_t b[16];
};

struct ff6_route {
    struct ff6_addr p;
    uint8_t len;
    uint16_t nh;
};

struct ff6_ctx {
    struct fib6 fib;
    unsigned max_routes;
    unsigned n;                           /* routes in the reference */
    struct ff6_route ref[FF6_MAX_ROUTES]; /* the reference, in no particular order */
};

/* The bits of byte i that a /len prefix fixes. */
static uint8_t ff6_byte_mask(unsigned len, unsigned i)
{
    if (len >= 8 * (i + 1)) {
        return 0xff;
    }
    if (len <= 8 * i) {
        return 0;
    }
    return (uint8_t)(0xff << (8 - (len - 8 * i)));
}

static struct ff6_addr ff6_masked(struct ff6_addr a, unsigned len)
{
    for (unsigned i = 0; i < 16; i++) {
        a.b[i] &= ff6_byte_mask(len, i);
    }
    return a;
}

FUZZ_UNTRACED static bool ff6_covers(const struct ff6_route *r, const struct ff6_addr *dst)
{
    for (unsigned i = 0; i < 16; i++) {
        if ((r->p.b[i] ^ dst->b[i]) & ff6_byte_mask(r->len, i)) {
            return false;
        }
    }
    return true;
}

FUZZ_UNTRACED static bool ff6_valid(const struct ff6_addr *p, unsigned len)
{
    if (len > FIB6_MAX_LEN) {
        return false;
    }
    for (unsigned i = 0; i < 16; i++) {
        if (p->b[i] & ~ff6_byte_mask(len, i)) {
            return false;
        }
    }
    return true;
}

FUZZ_UNTRACED static int ff6_ref_lookup(const struct ff6_ctx *c, const struct ff6_addr *dst)
{
    int best_len = -1, nh = -1;
    for (unsigned i = 0; i < c->n; i++) {
        if ((int)c->ref[i].len > best_len && ff6_covers(&c->ref[i], dst)) {
            best_len = c->ref[i].len;
            nh = c->ref[i].nh;
        }
    }
    return nh;
}

FUZZ_UNTRACED static int ff6_ref_find(const struct ff6_ctx *c, const struct ff6_addr *p,
                                      unsigned len)
{
    for (unsigned i = 0; i < c->n; i++) {
        if (c->ref[i].len == len && memcmp(c->ref[i].p.b, p->b, 16) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* The top 16 bits, as the first level indexes them. */
static uint32_t ff6_top16(const struct ff6_addr *a)
{
    return (uint32_t)a->b[0] << 8 | a->b[1];
}

/* Every route longer than /16 lies inside its /16's length bounds. */
FUZZ_UNTRACED static void ff6_check_bounds(const struct ff6_ctx *c)
{
    for (unsigned i = 0; i < c->n; i++) {
        const struct ff6_route *r = &c->ref[i];
        if (r->len <= FIB6_L1_BITS) {
            continue;
        }
        uint32_t e = c->fib.l1[ff6_top16(&r->p)];
        unsigned max = (e >> FIB6_E_MAX_SHIFT) & FIB6_E_CODE_MASK;
        unsigned min = (e >> FIB6_E_MIN_SHIFT) & FIB6_E_CODE_MASK;
        unsigned code = r->len - FIB6_L1_BITS;
        FUZZ_CHECK(min != 0 && min <= code && code <= max);
    }
}

static void ff6_check_counts(const struct ff6_ctx *c)
{
    FUZZ_CHECK(fib6_route_count(&c->fib) == c->n);
    ff6_check_bounds(c);
}

/* Look dst up from offset off of a buffer that ends where the address does. */
static void ff6_check_lookup(const struct ff6_ctx *c, const struct ff6_addr *dst, unsigned off)
{
    uint8_t *buf = fuzz_alloc_copy(NULL, off + 16, 0);
    memcpy(buf + off, dst->b, 16);
    int got = fib6_lookup(&c->fib, buf + off);
    free(buf);
    FUZZ_CHECK(got == ff6_ref_lookup(c, dst));
}

static void ff6_add(struct ff6_ctx *c, const struct ff6_addr *p, uint8_t len, uint16_t nh)
{
    int rc = fib6_add(&c->fib, p->b, len, nh);
    if (!ff6_valid(p, len)) {
        FUZZ_CHECK(rc == WS_ERR_INVAL);
        return;
    }
    int at = ff6_ref_find(c, p, len);
    if (at >= 0) {
        FUZZ_CHECK(rc == 0); /* replaces the next hop; needs no memory */
        c->ref[at].nh = nh;
    } else if (c->n == c->max_routes) {
        FUZZ_CHECK(rc == WS_ERR_NO_MEMORY);
    } else {
        FUZZ_CHECK(rc == 0);
        c->ref[c->n++] = (struct ff6_route){ *p, len, nh };
    }
    ff6_check_lookup(c, p, 0);
}

static void ff6_del(struct ff6_ctx *c, const struct ff6_addr *p, uint8_t len)
{
    int rc = fib6_del(&c->fib, p->b, len);
    if (!ff6_valid(p, len)) {
        FUZZ_CHECK(rc == WS_ERR_INVAL);
        return;
    }
    int at = ff6_ref_find(c, p, len);
    if (at < 0) {
        FUZZ_CHECK(rc == WS_ERR_NOT_FOUND);
        return;
    }
    FUZZ_CHECK(rc == 0);
    c->ref[at] = c->ref[--c->n];
    ff6_check_lookup(c, p, 0);
}

static const uint8_t ff6_bases[4][2] = { { 0x20, 0x01 }, { 0x20, 0x00 }, { 0x2a, 0x00 },
                                         { 0xff, 0xff } };

static struct ff6_addr ff6_addr(const struct ff6_ctx *c, struct fuzz_in *in)
{
    struct ff6_addr a;
    memset(&a, 0, sizeof(a));
    uint8_t form = fuzz_u8(in);
    if (form % 4 == 0 || (form % 4 >= 2 && c->n == 0)) {
        for (unsigned i = 0; i < 16; i++) {
            a.b[i] = fuzz_u8(in);
        }
        return a;
    }
    if (form % 4 == 1) {
        a.b[0] = ff6_bases[(form >> 2) % 4][0];
        a.b[1] = ff6_bases[(form >> 2) % 4][1];
        for (unsigned i = 2; i < 10; i++) {
            a.b[i] = fuzz_u8(in);
        }
        return a;
    }
    const struct ff6_route *r = &c->ref[fuzz_u8(in) % c->n];
    a = r->p;
    if (form % 4 == 2) {
        unsigned bit = fuzz_u8(in) % 128;
        a.b[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
        return a;
    }
    /* The 8 bytes from where the prefix ends (or the last 8), the prefix's bits kept. */
    unsigned start = r->len / 8 < 8 ? r->len / 8 : 8;
    for (unsigned at = start; at < start + 8; at++) {
        uint8_t m = ff6_byte_mask(r->len, at);
        a.b[at] = (uint8_t)((a.b[at] & m) | (fuzz_u8(in) & ~m));
    }
    return a;
}

/* An address inside, or just outside, route k: where an off-by-one in a mask would show. */
static struct ff6_addr ff6_addr_near(const struct ff6_ctx *c, unsigned k, uint8_t how,
                                     uint32_t bits)
{
    const struct ff6_route *r = &c->ref[k];
    struct ff6_addr a = r->p;
    switch (how % 6) {
    case 0: /* first */
        return a;
    case 1: /* last */
    case 3: /* one beyond the last */
        for (unsigned i = 0; i < 16; i++) {
            a.b[i] |= (uint8_t)~ff6_byte_mask(r->len, i);
        }
        if (how % 6 == 3) {
            for (int i = 15; i >= 0 && ++a.b[i] == 0; i--) {
            }
        }
        return a;
    case 2: /* one before the first */
        for (int i = 15; i >= 0 && a.b[i]-- == 0; i--) {
        }
        return a;
    case 4: /* inside: host bits from bits, repeated */
        for (unsigned i = 0; i < 16; i++) {
            uint8_t m = ff6_byte_mask(r->len, i);
            a.b[i] = (uint8_t)((a.b[i] & m) | ((uint8_t)(bits >> (8 * (i % 4))) & ~m));
        }
        return a;
    default: /* one prefix bit flipped (or any bit of a /0) */
        if (r->len != 0) {
            unsigned bit = bits % r->len;
            a.b[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
        } else {
            a.b[bits % 16] ^= (uint8_t)(bits >> 8);
        }
        return a;
    }
}

static void ff6_run(struct ff6_ctx *c, struct fuzz_in *in)
{
    static const uint8_t boundary_lens[12] = { 0, 1, 15, 16, 17, 32, 48, 63, 64, 65, 127, 128 };

    for (unsigned ops = 0; in->n != 0 && ops < FF6_MAX_OPS; ops++) {
        uint8_t op = fuzz_u8(in);
        unsigned off = (op >> 4) & 7;
        switch (op % 8) {
        case 0:
        case 1:
        case 6: {
            struct ff6_addr p = ff6_addr(c, in);
            uint8_t len = op % 8 == 6 ? boundary_lens[fuzz_u8(in) % 12] : fuzz_u8(in) % 130;
            if (len < 8 && !(op & 0x40)) {
                len += 8; /* /0../7 rewrite 2^9..2^16 entries each: keep them the rarer case */
            }
            uint16_t nh = fuzz_u16(in);
            if (!(op & 0x80)) {
                p = ff6_masked(p, len);
            }
            ff6_add(c, &p, len, nh);
            ff6_check_counts(c);
            break;
        }
        case 2:
            if ((op & 0x80) || c->n == 0) {
                struct ff6_addr p = ff6_addr(c, in);
                uint8_t len = fuzz_u8(in) % 130;
                if (!(op & 0x40)) {
                    p = ff6_masked(p, len);
                }
                ff6_del(c, &p, len);
            } else {
                const struct ff6_route r = c->ref[fuzz_u8(in) % c->n];
                ff6_del(c, &r.p, r.len);
            }
            ff6_check_counts(c);
            break;
        case 3:
        case 4:
            if (c->n != 0) {
                unsigned k = fuzz_u8(in) % c->n;
                uint8_t how = fuzz_u8(in);
                struct ff6_addr a = ff6_addr_near(c, k, how, fuzz_u32(in));
                ff6_check_lookup(c, &a, off);
            }
            break;
        case 5: {
            struct ff6_addr a = ff6_addr(c, in);
            ff6_check_lookup(c, &a, off);
            break;
        }
        default:
            if (c->n != 0) {
                const struct ff6_route r = c->ref[fuzz_u8(in) % c->n];
                ff6_add(c, &r.p, r.len, fuzz_u16(in));
                ff6_check_counts(c);
            }
            break;
        }
    }
}

/* The table as fib6_init leaves it: the per-/16 arrays compared with zeros in one memcmp each
 * (a loop over their 65536 entries each would cost more than the run), then every slot. */
FUZZ_UNTRACED static bool ff6_table_empty(const struct ff6_ctx *c)
{
    static const uint32_t zero[FIB6_L1_ENTRIES];
    uint32_t acc = 0;
    for (uint64_t i = 0; i <= c->fib.slot_mask; i++) {
        acc |= c->fib.slots[i].depth;
    }
    return acc == 0 && c->fib.nplens == 0 &&
           memcmp(c->fib.l1, zero, sizeof(zero)) == 0 &&
           memcmp(c->fib.long_count, zero, sizeof(zero)) == 0 &&
           memcmp(c->fib.short_depth, zero, FIB6_L1_ENTRIES) == 0;
}

/* The end state: every route's edges look up right; then deleting everything (most recent
 * first) empties the table. */
static void ff6_finish(struct ff6_ctx *c)
{
    for (unsigned k = 0; k < c->n; k++) {
        for (uint8_t how = 0; how < 4; how++) {
            struct ff6_addr a = ff6_addr_near(c, k, how, 0);
            ff6_check_lookup(c, &a, how);
        }
    }
    while (c->n != 0) {
        const struct ff6_route r = c->ref[c->n - 1];
        ff6_del(c, &r.p, r.len);
        ff6_check_counts(c);
    }
    FUZZ_CHECK(ff6_table_empty(c));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    /* The table's memory is allocated once and rewritten below: a fresh 600 KiB heap block
     * per input costs more (page faults behind ASan's quarantine) than the run. */
    static void *mem;
    if (mem == NULL) {
        mem = malloc(fib6_mem_bytes(FF6_MAX_ROUTES));
        if (mem == NULL) {
            abort();
        }
    }
    struct ff6_ctx *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        abort();
    }
    c->max_routes = 1 + fuzz_u8(&in) % FF6_MAX_ROUTES;
    size_t bytes = fib6_mem_bytes(c->max_routes);
    /* Garbage first, the same for every input: fib6_init must clear all it uses. */
    memset(mem, 0xa5, bytes);
    FUZZ_CHECK(fib6_init(&c->fib, mem, bytes - 1, c->max_routes) == WS_ERR_INVAL);
    FUZZ_CHECK(fib6_init(&c->fib, mem, bytes, c->max_routes) == 0);
    FUZZ_CHECK(c->fib.slot_mask + 1 >= 2ull * c->max_routes);

    ff6_run(c, &in);
    ff6_finish(c);

    free(c);
    return 0;
}
