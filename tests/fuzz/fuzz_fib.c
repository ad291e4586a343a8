/*
 * tests/fuzz/fuzz_fib.c: libFuzzer harness for net/fib.c, the DIR-16-8-8 longest-prefix-match
 * table. The input is a program of add / del / lookup operations run against both the table and
 * a reference that holds the routes in an array and answers a lookup by a linear scan for the
 * longest match.
 *
 * Build with -DFIB_MAX_ROUTES=64 (tests/fuzz/run.sh does): the route memory then fills after a
 * few hundred input bytes and its probe runs wrap the small hash, which the firmware's 16384
 * routes would never let the fuzzer reach. The group pool is small too (byte 0), for the same
 * reason. The code paths are the same; only the sizes differ.
 *
 * Input: byte 0: group pool size (1 + byte % 64); then operations, 1 opcode byte each:
 *   op % 8 == 0, 1  add: prefix (4 bytes, host bits cleared unless op & 0x80), len byte % 34
 *                   (33: invalid; below 8 only with op & 0x40, as they are slow to write),
 *                   next hop (2 bytes)
 *   op % 8 == 2     del of a route we hold (index byte), or with op & 0x80 of prefix/len bytes
 *   op % 8 == 3, 4  lookup of an address inside / at the edges of a route we hold
 *   op % 8 == 5     lookup of a raw address (4 bytes)
 *   op % 8 == 6     burst lookup of 1 + (byte % 16) addresses around routes we hold
 *   op % 8 == 7     add of a route with a length near a level boundary (16, 17, 24, 25, 32)
 *
 * Invariants: every return code is what the reference predicts (WS_ERR_INVAL, WS_ERR_NO_MEMORY
 * for a full route memory or group pool, WS_ERR_NOT_FOUND); every lookup (single and burst)
 * equals the reference; fib_route_count equals the reference's count; fib_groups_free equals
 * the pool minus the groups the routes need (one per /16 holding a prefix longer than /16, one
 * per /24 holding one longer than /24), so no group leaks; at the end, edge lookups for every
 * route, then deletion of all routes gives back the whole pool and an empty first level.
 */
#include <stdbool.h>
#include <string.h>

#include "kernel/err.h"
#include "net/fib.h"
#include "tests/fuzz/fuzz.h"

#define FF_MAX_GROUPS 64
#define FF_MAX_OPS 4096

struct ff_route {
    uint32_t prefix;
    uint8_t len;
    uint16_t nh;
};

struct ff_ctx {
    struct fib fib;
    void *mem;
    unsigned max_groups;
    unsigned n;                          /* routes in the reference */
    struct ff_route ref[FIB_MAX_ROUTES]; /* the reference, in no particular order */
};

static uint32_t ff_mask(unsigned len)
{
    return len == 0 ? 0 : ~0u << (32 - len);
}

FUZZ_UNTRACED static int ff_ref_lookup(const struct ff_ctx *c, uint32_t dst)
{
    int best_len = -1, nh = -1;
    for (unsigned i = 0; i < c->n; i++) {
        const struct ff_route *r = &c->ref[i];
        if ((dst & ff_mask(r->len)) == r->prefix && (int)r->len > best_len) {
            best_len = r->len;
            nh = r->nh;
        }
    }
    return nh;
}

FUZZ_UNTRACED static int ff_ref_find(const struct ff_ctx *c, uint32_t prefix, uint8_t len)
{
    for (unsigned i = 0; i < c->n; i++) {
        if (c->ref[i].prefix == prefix && c->ref[i].len == len) {
            return (int)i;
        }
    }
    return -1;
}

/* Does any route other than `skip` (-1: none) put a prefix longer than `level` bits inside the
 * /level block that holds addr? That is what keeps a group for that block. */
FUZZ_UNTRACED static bool ff_ref_needs_group(const struct ff_ctx *c, uint32_t addr, unsigned level,
                                            int skip)
{
    for (unsigned i = 0; i < c->n; i++) {
        const struct ff_route *r = &c->ref[i];
        if ((int)i != skip && r->len > level &&
            (r->prefix & ff_mask(level)) == (addr & ff_mask(level))) {
            return true;
        }
    }
    return false;
}

FUZZ_UNTRACED static unsigned ff_ref_groups_used(const struct ff_ctx *c)
{
    unsigned used = 0;
    for (unsigned i = 0; i < c->n; i++) {
        const struct ff_route *r = &c->ref[i];
        /* Count each block once: at its first route (in array order) that needs it. */
        for (unsigned level = 16; level <= 24; level += 8) {
            if (r->len <= level) {
                continue;
            }
            bool first = true;
            for (unsigned j = 0; j < i && first; j++) {
                const struct ff_route *o = &c->ref[j];
                first = !(o->len > level &&
                          (o->prefix & ff_mask(level)) == (r->prefix & ff_mask(level)));
            }
            used += first;
        }
    }
    return used;
}

static void ff_check_counts(const struct ff_ctx *c)
{
    FUZZ_CHECK(fib_route_count(&c->fib) == c->n);
    FUZZ_CHECK(fib_groups_free(&c->fib) == c->max_groups - ff_ref_groups_used(c));
}

static void ff_check_lookup(const struct ff_ctx *c, uint32_t dst)
{
    int want = ff_ref_lookup(c, dst);
    FUZZ_CHECK(fib_lookup(&c->fib, dst) == want);
    int burst;
    fib_lookup_burst(&c->fib, &dst, &burst, 1);
    FUZZ_CHECK(burst == want);
}

static void ff_add(struct ff_ctx *c, uint32_t prefix, uint8_t len, uint16_t nh)
{
    int rc = fib_add(&c->fib, prefix, len, nh);
    if (len > 32 || (prefix & ~ff_mask(len)) != 0) {
        FUZZ_CHECK(rc == WS_ERR_INVAL);
        return;
    }
    int at = ff_ref_find(c, prefix, len);
    if (at >= 0) {
        FUZZ_CHECK(rc == 0); /* replaces the next hop; needs nothing new */
        c->ref[at].nh = nh;
        return;
    }
    unsigned need = (len > 16 && !ff_ref_needs_group(c, prefix, 16, -1)) +
                    (len > 24 && !ff_ref_needs_group(c, prefix, 24, -1));
    if (c->n == FIB_MAX_ROUTES || need > c->max_groups - ff_ref_groups_used(c)) {
        FUZZ_CHECK(rc == WS_ERR_NO_MEMORY);
        return;
    }
    FUZZ_CHECK(rc == 0);
    c->ref[c->n++] = (struct ff_route){ prefix, len, nh };
}

static void ff_del(struct ff_ctx *c, uint32_t prefix, uint8_t len)
{
    int rc = fib_del(&c->fib, prefix, len);
    if (len > 32 || (prefix & ~ff_mask(len)) != 0) {
        FUZZ_CHECK(rc == WS_ERR_INVAL);
        return;
    }
    int at = ff_ref_find(c, prefix, len);
    if (at < 0) {
        FUZZ_CHECK(rc == WS_ERR_NOT_FOUND);
        return;
    }
    FUZZ_CHECK(rc == 0);
    c->ref[at] = c->ref[--c->n];
}

/* An address inside, or just outside, route k: where off-by-one expansions would show. */
static uint32_t ff_addr_near(const struct ff_ctx *c, unsigned k, uint8_t how, uint32_t bits)
{
    const struct ff_route *r = &c->ref[k];
    uint32_t host = ~ff_mask(r->len);
    switch (how % 6) {
    case 0:
        return r->prefix;
    case 1:
        return r->prefix | host;
    case 2:
        return r->prefix - 1;
    case 3:
        return (r->prefix | host) + 1;
    case 4:
        return r->prefix | (bits & host);
    default:
        return r->prefix ^ (1u << (bits % 32));
    }
}

static void ff_run(struct ff_ctx *c, struct fuzz_in *in)
{
    static const uint8_t boundary_lens[8] = { 16, 17, 24, 25, 32, 15, 23, 8 };

    for (unsigned ops = 0; in->n != 0 && ops < FF_MAX_OPS; ops++) {
        uint8_t op = fuzz_u8(in);
        switch (op % 8) {
        case 0:
        case 1:
        case 7: {
            uint32_t prefix = fuzz_u32(in);
            uint8_t len = op % 8 == 7 ? boundary_lens[fuzz_u8(in) % 8] : fuzz_u8(in) % 34;
            if (len < 8 && !(op & 0x40)) {
                len += 8; /* /0../7 fill 2^9..2^16 entries each: keep them the rarer case */
            }
            uint16_t nh = fuzz_u16(in);
            if (!(op & 0x80) && len <= 32) {
                prefix &= ff_mask(len);
            }
            ff_add(c, prefix, len, nh);
            ff_check_counts(c);
            break;
        }
        case 2:
            if ((op & 0x80) || c->n == 0) {
                uint32_t prefix = fuzz_u32(in);
                ff_del(c, prefix, fuzz_u8(in) % 34);
            } else {
                const struct ff_route r = c->ref[fuzz_u8(in) % c->n];
                ff_del(c, r.prefix, r.len);
            }
            ff_check_counts(c);
            break;
        case 3:
        case 4:
            if (c->n != 0) {
                unsigned k = fuzz_u8(in) % c->n;
                uint8_t how = fuzz_u8(in);
                ff_check_lookup(c, ff_addr_near(c, k, how, fuzz_u32(in)));
            }
            break;
        case 5:
            ff_check_lookup(c, fuzz_u32(in));
            break;
        default: {
            uint32_t dst[16];
            int got[16];
            unsigned n = 1 + fuzz_u8(in) % 16;
            for (unsigned i = 0; i < n; i++) {
                dst[i] = c->n != 0 ? ff_addr_near(c, fuzz_u8(in) % c->n, (uint8_t)i, fuzz_u32(in))
                                   : fuzz_u32(in);
            }
            fib_lookup_burst(&c->fib, dst, got, n);
            for (unsigned i = 0; i < n; i++) {
                FUZZ_CHECK(got[i] == ff_ref_lookup(c, dst[i]));
                FUZZ_CHECK(got[i] == fib_lookup(&c->fib, dst[i]));
            }
            break;
        }
        }
    }
}

/* All first-level entries ORed together (65536 of them: untraced, see fuzz.h). */
FUZZ_UNTRACED static uint32_t ff_first_level_or(const struct ff_ctx *c)
{
    uint32_t acc = 0;
    for (uint32_t i = 0; i < FIB_TBL16_ENTRIES; i++) {
        acc |= c->fib.tbl[i];
    }
    return acc;
}

/* The end state: every route's edges look up right; then deleting everything returns the
 * table to empty, every group to the pool. */
static void ff_finish(struct ff_ctx *c)
{
    for (unsigned k = 0; k < c->n; k++) {
        for (uint8_t how = 0; how < 4; how++) {
            ff_check_lookup(c, ff_addr_near(c, k, how, 0));
        }
    }
    while (c->n != 0) {
        const struct ff_route r = c->ref[c->n - 1];
        ff_del(c, r.prefix, r.len);
        ff_check_counts(c);
    }
    FUZZ_CHECK(fib_groups_free(&c->fib) == c->max_groups);
    FUZZ_CHECK(ff_first_level_or(c) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    /* The table's memory is allocated once and rewritten completely below: a fresh 600 KiB
     * heap block per input costs more (page faults behind ASan's quarantine) than the run. */
    static void *mem;
    if (mem == NULL) {
        mem = malloc(fib_mem_bytes(FF_MAX_GROUPS));
        if (mem == NULL) {
            abort();
        }
    }
    struct ff_ctx *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        abort();
    }
    c->max_groups = 1 + fuzz_u8(&in) % FF_MAX_GROUPS;
    size_t bytes = fib_mem_bytes(c->max_groups);
    c->mem = mem;
    /* Groups are filled when handed out, so their memory starts as garbage: make it loud,
     * and the same for every run, so nothing of the previous input can matter. */
    memset(c->mem, 0xa5, bytes);
    FUZZ_CHECK(fib_init(&c->fib, c->mem, bytes, c->max_groups) == 0);
    FUZZ_CHECK(fib_init(&c->fib, c->mem, bytes - 1, c->max_groups) == WS_ERR_INVAL);
    FUZZ_CHECK(fib_init(&c->fib, c->mem, bytes, c->max_groups) == 0);

    ff_run(c, &in);
    ff_finish(c);

    free(c);
    return 0;
}
