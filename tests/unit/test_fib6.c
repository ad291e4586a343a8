/*
 * tests/unit/test_fib6.c: the IPv6 longest-prefix-match table (net/fib6.c: one hash over every
 * route, probed per present length behind a per-/16 first level) against a reference that knows
 * nothing of hashes or first levels: a list of routes, scanned linearly and matched byte by
 * byte. Beside the lookups, a few tests read the table's own arrays (the first level, the
 * slots) to check that a refused add leaves them untouched and that deleting every route
 * leaves them exactly as fib6_init did.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/err.h"
#include "net/fib6.h"

/* --- helpers ------------------------------------------------------------------------------- */

struct a6 {
    uint8_t b[16];
};

static uint64_t rng_state;

/* splitmix64: deterministic, so a failure reproduces. */
static uint64_t rnd64(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t rnd32(void)
{
    return (uint32_t)(rnd64() >> 32);
}

/* An address from its text form (the C library's parser: nothing of fib6.c). */
static struct a6 A(const char *text)
{
    struct a6 a;
    if (inet_pton(AF_INET6, text, a.b) != 1) {
        fail_msg("bad IPv6 literal in the test: %s", text);
    }
    return a;
}

static const char *fmt6(const struct a6 *a, char *buf)
{
    return inet_ntop(AF_INET6, a->b, buf, INET6_ADDRSTRLEN) ? buf : "?";
}

/* The bits of byte i that a /len prefix fixes. */
static uint8_t byte_mask(unsigned len, unsigned i)
{
    if (len >= 8 * (i + 1)) {
        return 0xff;
    }
    if (len <= 8 * i) {
        return 0;
    }
    return (uint8_t)(0xff << (8 - (len - 8 * i)));
}

static struct a6 masked(struct a6 a, unsigned len)
{
    for (unsigned i = 0; i < 16; i++) {
        a.b[i] &= byte_mask(len, i);
    }
    return a;
}

/* The last address of prefix/len: every host bit set. */
static struct a6 last_of(struct a6 a, unsigned len)
{
    for (unsigned i = 0; i < 16; i++) {
        a.b[i] |= (uint8_t)~byte_mask(len, i);
    }
    return a;
}

/* Host bits of a/len replaced by random ones. */
static struct a6 random_inside(struct a6 a, unsigned len)
{
    for (unsigned i = 0; i < 16; i++) {
        uint8_t m = byte_mask(len, i);
        a.b[i] = (uint8_t)((a.b[i] & m) | ((uint8_t)rnd32() & ~m));
    }
    return a;
}

/* a + 1 and a - 1, as 128-bit numbers (wrapping). */
static struct a6 next_of(struct a6 a)
{
    for (int i = 15; i >= 0 && ++a.b[i] == 0; i--) {
    }
    return a;
}

static struct a6 prev_of(struct a6 a)
{
    for (int i = 15; i >= 0 && a.b[i]-- == 0; i--) {
    }
    return a;
}

/* A table in heap memory, deliberately misaligned to check fib6_init's alignment. */
struct table {
    struct fib6 f;
    unsigned char *mem;
    size_t bytes;
};

static void table_init(struct table *t, unsigned max_routes)
{
    t->bytes = fib6_mem_bytes(max_routes);
    assert_true(t->bytes > 0);
    t->mem = malloc(t->bytes + 1);
    assert_non_null(t->mem);
    /* Garbage first: fib6_init must clear what it uses. */
    memset(t->mem, 0xa5, t->bytes + 1);
    assert_int_equal(fib6_init(&t->f, t->mem + 1, t->bytes, max_routes), 0);
}

static void table_free(struct table *t)
{
    free(t->mem);
}

static uint64_t table_slots(const struct table *t)
{
    return t->f.slot_mask + 1;
}

/* The table as fib6_init leaves it: no first-level entry, no used slot, no per-/16 count, no
 * present length. */
static void expect_empty_state(const struct table *t)
{
    for (uint32_t i = 0; i < FIB6_L1_ENTRIES; i++) {
        if (t->f.l1[i] != 0 || t->f.short_depth[i] != 0 || t->f.long_count[i] != 0) {
            fail_msg("/16 %04x not empty: entry %08x, short depth %u, long routes %u", i,
                     t->f.l1[i], t->f.short_depth[i], t->f.long_count[i]);
        }
    }
    for (uint64_t i = 0; i < table_slots(t); i++) {
        assert_int_equal(t->f.slots[i].depth, 0);
    }
    for (unsigned len = 0; len <= FIB6_MAX_LEN; len++) {
        assert_int_equal(t->f.len_count[len], 0);
    }
    assert_int_equal(t->f.nplens, 0);
    assert_int_equal(fib6_route_count(&t->f), 0);
}

static void expect_at(const struct table *t, struct a6 dst, int want)
{
    int got = fib6_lookup(&t->f, dst.b);
    if (got != want) {
        char buf[INET6_ADDRSTRLEN];
        fail_msg("dst %s: fib6 says %d, expected %d", fmt6(&dst, buf), got, want);
    }
}

#define AT(t, text, want) expect_at((t), A(text), (want))
#define ADD(t, text, len, nh) fib6_add(&(t)->f, A(text).b, (len), (nh))
#define DEL(t, text, len) fib6_del(&(t)->f, A(text).b, (len))

/* --- the reference ------------------------------------------------------------------------- */

#define REF_MAX 8192

struct ref_route {
    struct a6 p;
    uint8_t len;
    uint16_t nh;
};

struct ref {
    struct ref_route r[REF_MAX];
    unsigned n;
    unsigned max_routes; /* the table's: where the reference predicts WS_ERR_NO_MEMORY */
};

static struct ref *ref_new(unsigned max_routes)
{
    struct ref *ref = calloc(1, sizeof(*ref));
    assert_non_null(ref);
    assert_true(max_routes <= REF_MAX);
    ref->max_routes = max_routes;
    return ref;
}

static bool ref_covers(const struct a6 *p, unsigned len, const struct a6 *dst)
{
    for (unsigned i = 0; i < 16; i++) {
        if ((p->b[i] ^ dst->b[i]) & byte_mask(len, i)) {
            return false;
        }
    }
    return true;
}

static bool ref_valid(const struct a6 *p, unsigned len)
{
    if (len > 128) {
        return false;
    }
    for (unsigned i = 0; i < 16; i++) {
        if (p->b[i] & ~byte_mask(len, i)) {
            return false;
        }
    }
    return true;
}

static int ref_find(const struct ref *ref, const struct a6 *p, unsigned len)
{
    for (unsigned i = 0; i < ref->n; i++) {
        if (ref->r[i].len == len && memcmp(ref->r[i].p.b, p->b, 16) == 0) {
            return (int)i;
        }
    }
    return -1;
}

static int ref_lookup(const struct ref *ref, const struct a6 *dst)
{
    int best_len = -1, nh = -1;
    for (unsigned i = 0; i < ref->n; i++) {
        const struct ref_route *r = &ref->r[i];
        if ((int)r->len > best_len && ref_covers(&r->p, r->len, dst)) {
            best_len = r->len;
            nh = r->nh;
        }
    }
    return nh;
}

/* What fib6_add must return for this route; the reference takes the route if it succeeds. */
static int ref_add(struct ref *ref, struct a6 p, unsigned len, uint16_t nh)
{
    if (!ref_valid(&p, len)) {
        return WS_ERR_INVAL;
    }
    int i = ref_find(ref, &p, len);
    if (i >= 0) {
        ref->r[i].nh = nh;
        return 0;
    }
    if (ref->n >= ref->max_routes) {
        return WS_ERR_NO_MEMORY;
    }
    ref->r[ref->n++] = (struct ref_route){ p, (uint8_t)len, nh };
    return 0;
}

static int ref_del(struct ref *ref, struct a6 p, unsigned len)
{
    if (!ref_valid(&p, len)) {
        return WS_ERR_INVAL;
    }
    int i = ref_find(ref, &p, len);
    if (i < 0) {
        return WS_ERR_NOT_FOUND;
    }
    ref->r[i] = ref->r[--ref->n];
    return 0;
}

/* Both sides get the same add or del: the table's return code must be the reference's. */
static int both_add(struct table *t, struct ref *ref, struct a6 p, unsigned len, uint16_t nh)
{
    int want = ref_add(ref, p, len, nh);
    int got = fib6_add(&t->f, p.b, (uint8_t)len, nh);
    if (got != want) {
        char buf[INET6_ADDRSTRLEN];
        fail_msg("fib6_add %s/%u: %d, expected %d", fmt6(&p, buf), len, got, want);
    }
    return got;
}

static int both_del(struct table *t, struct ref *ref, struct a6 p, unsigned len)
{
    int want = ref_del(ref, p, len);
    int got = fib6_del(&t->f, p.b, (uint8_t)len);
    if (got != want) {
        char buf[INET6_ADDRSTRLEN];
        fail_msg("fib6_del %s/%u: %d, expected %d", fmt6(&p, buf), len, got, want);
    }
    return got;
}

static void check(const struct table *t, const struct ref *ref, struct a6 dst)
{
    expect_at(t, dst, ref_lookup(ref, &dst));
}

/* Route i's first and last address, the one before and the one beyond. */
static void check_edges(const struct table *t, const struct ref *ref, unsigned i)
{
    const struct ref_route *r = &ref->r[i];
    struct a6 last = last_of(r->p, r->len);
    check(t, ref, r->p);
    check(t, ref, last);
    check(t, ref, prev_of(r->p));
    check(t, ref, next_of(last));
}

static void check_all_edges(const struct table *t, const struct ref *ref)
{
    for (unsigned i = 0; i < ref->n; i++) {
        check_edges(t, ref, i);
    }
}

/* --- init ---------------------------------------------------------------------------------- */

/* What fib6.h promises: 24 B per slot, slots = the power of two >= 2 * max_routes, 576 KiB of
 * per-/16 arrays, 63 bytes to align. */
static size_t expected_bytes(uint64_t slots)
{
    return 65536 * 4 + (size_t)slots * 24 + 65536 * 4 + 65536 + 63;
}

static void test_mem_bytes(void **state)
{
    (void)state;
    assert_int_equal(sizeof(struct fib6_slot), 24);
    assert_int_equal(fib6_mem_bytes(0), 0);
    assert_int_equal(fib6_mem_bytes(FIB6_MAX_ROUTES + 1), 0);
    assert_int_equal(fib6_mem_bytes(~0u), 0);
    assert_int_equal(fib6_mem_bytes(1), expected_bytes(2));
    assert_int_equal(fib6_mem_bytes(2), expected_bytes(4));
    assert_int_equal(fib6_mem_bytes(3), expected_bytes(8));
    assert_int_equal(fib6_mem_bytes(1000), expected_bytes(2048));
    assert_int_equal(fib6_mem_bytes(1024), expected_bytes(2048));
    assert_int_equal(fib6_mem_bytes(1025), expected_bytes(4096));
    assert_int_equal(fib6_mem_bytes(FIB6_MAX_ROUTES), expected_bytes(2ull * FIB6_MAX_ROUTES));
}

static void test_init_errors(void **state)
{
    (void)state;
    struct fib6 f;
    /* Far too small for any table: a write into it is an ASan report. */
    static unsigned char tiny[64];
    size_t bytes = fib6_mem_bytes(16);
    unsigned char *mem = malloc(bytes);
    assert_non_null(mem);

    assert_int_equal(fib6_init(NULL, mem, bytes, 16), WS_ERR_INVAL);
    assert_int_equal(fib6_init(&f, NULL, bytes, 16), WS_ERR_INVAL);
    assert_int_equal(fib6_init(&f, mem, bytes - 1, 16), WS_ERR_INVAL);
    assert_int_equal(fib6_init(&f, mem, 0, 16), WS_ERR_INVAL);
    assert_int_equal(fib6_init(&f, tiny, sizeof(tiny), 1), WS_ERR_INVAL);
    /* A max_routes that fib6_mem_bytes refuses, whatever memory is claimed. */
    assert_int_equal(fib6_init(&f, tiny, (size_t)-1, 0), WS_ERR_INVAL);
    assert_int_equal(fib6_init(&f, tiny, (size_t)-1, FIB6_MAX_ROUTES + 1), WS_ERR_INVAL);
    assert_int_equal(fib6_init(&f, tiny, (size_t)-1, ~0u), WS_ERR_INVAL);
    /* Enough for 16 routes, claimed for 17: too little. */
    assert_int_equal(fib6_init(&f, mem, bytes, 17), WS_ERR_INVAL);

    /* Exactly fib6_mem_bytes, at every misalignment. */
    unsigned char *big = malloc(bytes + 64);
    assert_non_null(big);
    for (unsigned off = 0; off < 64; off += 7) {
        memset(big, 0xff, bytes + 64);
        assert_int_equal(fib6_init(&f, big + off, bytes, 16), 0);
        assert_int_equal((uintptr_t)f.l1 % 64, 0);
        assert_true((unsigned char *)f.l1 >= big + off);
        assert_true(f.short_depth + FIB6_L1_ENTRIES <= big + off + bytes);
        assert_int_equal(f.slot_mask + 1, 32);
        assert_int_equal(fib6_route_count(&f), 0);
        assert_int_equal(fib6_lookup(&f, A("::").b), -1);
        assert_int_equal(fib6_add(&f, A("2001:db8::1").b, 128, 3), 0);
        assert_int_equal(fib6_lookup(&f, A("2001:db8::1").b), 3);
    }
    free(big);
    free(mem);
}

/* The largest table fib6_mem_bytes allows: 48 MiB of slots. */
static void test_init_max_routes(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, FIB6_MAX_ROUTES);
    assert_int_equal(table_slots(&t), 2ull * FIB6_MAX_ROUTES);
    AT(&t, "2001:db8::1", -1);
    assert_int_equal(ADD(&t, "2001:db8::", 32, 1), 0);
    assert_int_equal(ADD(&t, "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", 128, 2), 0);
    AT(&t, "2001:db8::1", 1);
    AT(&t, "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", 2);
    AT(&t, "2001:db8:ffff:ffff:ffff:ffff:ffff:fffe", 1);
    table_free(&t);
}

static void test_empty_table(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 8);
    expect_empty_state(&t);
    static const char *const probes[] = {
        "::", "::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2001:db8::1", "fe80::1", "ff02::1",
    };
    for (unsigned i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
        AT(&t, probes[i], -1);
    }
    table_free(&t);
}

/* --- fixed cases --------------------------------------------------------------------------- */

static void test_default_route(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 8);
    /* Next hop 0 is a real next hop, not "no route". */
    assert_int_equal(ADD(&t, "::", 0, 0), 0);
    AT(&t, "::", 0);
    AT(&t, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 0);
    AT(&t, "2001:db8::1", 0);
    /* Replacing the identical prefix updates its next hop, the highest one too. */
    assert_int_equal(ADD(&t, "::", 0, 65535), 0);
    AT(&t, "2001:db8::1", 65535);
    AT(&t, "::", 65535);
    assert_int_equal(fib6_route_count(&t.f), 1);
    /* A more specific route wins over it; the default covers the rest. */
    assert_int_equal(ADD(&t, "2001:db8::", 32, 7), 0);
    AT(&t, "2001:db8::1", 7);
    AT(&t, "2001:db9::1", 65535);
    assert_int_equal(DEL(&t, "::", 0), 0);
    AT(&t, "2001:db8::1", 7);
    AT(&t, "2001:db9::1", -1);
    AT(&t, "::", -1);
    assert_int_equal(DEL(&t, "2001:db8::", 32), 0);
    expect_empty_state(&t);
    table_free(&t);
}

static void test_short_routes(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 16);
    /* Longer first: the shorter ones must fill around them. */
    assert_int_equal(ADD(&t, "2a03::", 16, 4), 0);
    assert_int_equal(ADD(&t, "2001::", 16, 2), 0);
    assert_int_equal(ADD(&t, "2a02::", 15, 3), 0);
    assert_int_equal(ADD(&t, "2000::", 3, 1), 0);
    assert_int_equal(ADD(&t, "8000::", 1, 5), 0);
    assert_int_equal(ADD(&t, "fe80::", 10, 6), 0);

    AT(&t, "1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", -1);
    AT(&t, "2000::", 1);
    AT(&t, "2000:ffff::1", 1);
    AT(&t, "2001::", 2);
    AT(&t, "2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 2);
    AT(&t, "2002::", 1);
    AT(&t, "2a01:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 1);
    AT(&t, "2a02::", 3);
    AT(&t, "2a02:ffff::", 3);
    AT(&t, "2a03::", 4);
    AT(&t, "2a03:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 4);
    AT(&t, "2a04::", 1);
    AT(&t, "3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 1);
    AT(&t, "4000::", -1);
    AT(&t, "7fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", -1);
    AT(&t, "8000::", 5);
    AT(&t, "fe7f:ffff::", 5);
    AT(&t, "fe80::1", 6);
    AT(&t, "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 6);
    AT(&t, "fec0::", 5);
    AT(&t, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 5);

    /* Deleting the /15 uncovers the /3 under 2a02 and leaves the /16 inside it. */
    assert_int_equal(DEL(&t, "2a02::", 15), 0);
    AT(&t, "2a02::", 1);
    AT(&t, "2a03::", 4);
    /* Deleting the /3 leaves its /16 alone, and its addresses with no route. */
    assert_int_equal(DEL(&t, "2000::", 3), 0);
    AT(&t, "2000::", -1);
    AT(&t, "2001::1", 2);
    AT(&t, "2a02::", -1);
    AT(&t, "2a03::1", 4);
    /* Adding it back fills around the /16s again. */
    assert_int_equal(ADD(&t, "2000::", 3, 9), 0);
    AT(&t, "2000::", 9);
    AT(&t, "2001::1", 2);
    AT(&t, "2a02::", 9);
    assert_int_equal(fib6_route_count(&t.f), 5);
    table_free(&t);
}

static void test_long_routes(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 32);
    assert_int_equal(ADD(&t, "::", 0, 8), 0);
    assert_int_equal(ADD(&t, "2001::", 16, 7), 0);
    assert_int_equal(ADD(&t, "2001:db8::", 32, 1), 0);
    assert_int_equal(ADD(&t, "2001:db8:1::", 48, 2), 0);
    assert_int_equal(ADD(&t, "2001:db8:1:2::", 64, 3), 0);
    assert_int_equal(ADD(&t, "2001:db8:1:2::", 127, 4), 0);
    assert_int_equal(ADD(&t, "2001:db8:1:2::1", 128, 5), 0);
    assert_int_equal(ADD(&t, "2001:db8:1:2::3", 128, 6), 0);
    assert_int_equal(ADD(&t, "2001:db8:1:2:8000::", 65, 9), 0);
    assert_int_equal(ADD(&t, "2001:db8:1:4::", 63, 10), 0);
    assert_int_equal(ADD(&t, "2001:8000::", 17, 11), 0);
    assert_int_equal(fib6_route_count(&t.f), 11);

    AT(&t, "2001:db8:1:2::", 4);
    AT(&t, "2001:db8:1:2::1", 5);
    AT(&t, "2001:db8:1:2::2", 3);
    AT(&t, "2001:db8:1:2::3", 6);
    AT(&t, "2001:db8:1:2::4", 3);
    AT(&t, "2001:db8:1:2:7fff:ffff:ffff:ffff", 3);
    AT(&t, "2001:db8:1:2:8000::", 9);
    AT(&t, "2001:db8:1:2:ffff:ffff:ffff:ffff", 9);
    AT(&t, "2001:db8:1:3::", 2);
    AT(&t, "2001:db8:1:4::", 10);
    AT(&t, "2001:db8:1:5:ffff:ffff:ffff:ffff", 10);
    AT(&t, "2001:db8:1:6::", 2);
    AT(&t, "2001:db8:1:ffff:ffff:ffff:ffff:ffff", 2);
    AT(&t, "2001:db8:2::", 1);
    AT(&t, "2001:db8:0:ffff:ffff:ffff:ffff:ffff", 1);
    AT(&t, "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", 1);
    AT(&t, "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", 7);
    AT(&t, "2001:db9::", 7);
    AT(&t, "2001:7fff:ffff:ffff:ffff:ffff:ffff:ffff", 7);
    AT(&t, "2001:8000::", 11);
    AT(&t, "2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 11);
    AT(&t, "2002::", 8);
    AT(&t, "2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 8);
    /* The same low bits under another /16: no route but the default. */
    AT(&t, "2002:db8:1:2::1", 8);
    AT(&t, "3001:db8:1:2::1", 8);
    table_free(&t);
}

/* The same long routes in a /16 with no short route, and in one with lengths no other /16
 * has: the per-/16 length bounds must not hide a route. */
static void test_long_routes_per_16(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 32);
    assert_int_equal(ADD(&t, "2a00:1450::", 32, 1), 0);
    assert_int_equal(ADD(&t, "2a00:1450:4001::", 48, 2), 0);
    assert_int_equal(ADD(&t, "2a01::", 20, 3), 0);
    assert_int_equal(ADD(&t, "2a01:0:0:1::", 64, 4), 0);
    assert_int_equal(ADD(&t, "2a01::1", 128, 5), 0);
    assert_int_equal(ADD(&t, "2a02:8000::", 17, 6), 0);
    assert_int_equal(ADD(&t, "2a02:8000:1::", 48, 7), 0);

    AT(&t, "2a00:1450::1", 1);
    AT(&t, "2a00:1450:4001::1", 2);
    AT(&t, "2a00:1451::", -1);
    AT(&t, "2a01::", 3);
    AT(&t, "2a01::1", 5);
    AT(&t, "2a01::2", 3);
    AT(&t, "2a01:0:0:1::9", 4);
    AT(&t, "2a01:fff:ffff:ffff:ffff:ffff:ffff:ffff", 3);
    AT(&t, "2a01:1000::", -1);
    AT(&t, "2a02::", -1);
    AT(&t, "2a02:8000::", 6);
    AT(&t, "2a02:8000:1::1", 7);
    AT(&t, "2a02:ffff::", 6);
    /* A /128 exists globally, but not under 2a00: */
    AT(&t, "2a00:1450:4001::1", 2);
    table_free(&t);
}

static void test_replace_next_hop(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 8);
    assert_int_equal(ADD(&t, "2000::", 3, 5), 0);
    assert_int_equal(ADD(&t, "2001::", 16, 3), 0);
    assert_int_equal(ADD(&t, "2001:db8::", 32, 1), 0);
    assert_int_equal(ADD(&t, "2001:db8::1", 128, 10), 0);
    assert_int_equal(fib6_route_count(&t.f), 4);

    assert_int_equal(ADD(&t, "2001:db8::", 32, 2), 0);
    assert_int_equal(ADD(&t, "2001:db8::1", 128, 11), 0);
    AT(&t, "2001:db8::2", 2);
    AT(&t, "2001:db8::1", 11);
    /* Replacing a short route changes exactly the entries it holds: not the /16 inside it. */
    assert_int_equal(ADD(&t, "2000::", 3, 6), 0);
    AT(&t, "2002::", 6);
    AT(&t, "2001::1", 3);
    assert_int_equal(ADD(&t, "2001::", 16, 4), 0);
    AT(&t, "2001::1", 4);
    AT(&t, "2002::", 6);
    AT(&t, "2001:db8::2", 2);
    assert_int_equal(fib6_route_count(&t.f), 4);
    /* The replaced next hops survive a deletion nearby. */
    assert_int_equal(DEL(&t, "2001:db8::", 32), 0);
    AT(&t, "2001:db8::2", 4);
    AT(&t, "2001:db8::1", 11);
    assert_int_equal(DEL(&t, "2001::", 16), 0);
    AT(&t, "2001:db8::2", 6);
    table_free(&t);
}

static void test_invalid_prefixes(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 8);
    static const uint8_t lens[] = { 129, 130, 200, 255 };
    for (unsigned i = 0; i < sizeof(lens); i++) {
        assert_int_equal(ADD(&t, "::", lens[i], 1), WS_ERR_INVAL);
        assert_int_equal(ADD(&t, "2001:db8::1", lens[i], 1), WS_ERR_INVAL);
        assert_int_equal(DEL(&t, "::", lens[i]), WS_ERR_INVAL);
    }
    /* Bits beyond the length, in either half and in the first level's bits. */
    assert_int_equal(ADD(&t, "::1", 0, 1), WS_ERR_INVAL);
    assert_int_equal(ADD(&t, "8000::", 0, 1), WS_ERR_INVAL);
    assert_int_equal(ADD(&t, "2001::", 15, 1), WS_ERR_INVAL);
    assert_int_equal(ADD(&t, "2001:db8::", 16, 1), WS_ERR_INVAL);
    assert_int_equal(ADD(&t, "2001:db8::", 17, 1), WS_ERR_INVAL);
    assert_int_equal(ADD(&t, "2001:db8::1", 64, 1), WS_ERR_INVAL);
    assert_int_equal(ADD(&t, "2001:db8:0:0:8000::", 64, 1), WS_ERR_INVAL);
    assert_int_equal(ADD(&t, "2001:db8::1", 127, 1), WS_ERR_INVAL);
    assert_int_equal(ADD(&t, "2001:db8:0:1::", 63, 1), WS_ERR_INVAL);
    assert_int_equal(ADD(&t, "2001:db8:0:0:1::", 65, 1), WS_ERR_INVAL);
    assert_int_equal(DEL(&t, "2001:db8::1", 64), WS_ERR_INVAL);
    assert_int_equal(DEL(&t, "::1", 0), WS_ERR_INVAL);
    assert_int_equal(fib6_route_count(&t.f), 0);
    expect_empty_state(&t);
    AT(&t, "2001:db8::1", -1);
    /* Any /128 is valid, and the prefix beyond a length is all that is refused. */
    assert_int_equal(ADD(&t, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 128, 1), 0);
    assert_int_equal(ADD(&t, "2001:db8:0:0:8000::", 65, 2), 0);
    assert_int_equal(fib6_route_count(&t.f), 2);
    table_free(&t);
}

static void test_not_found(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 8);
    assert_int_equal(DEL(&t, "::", 0), WS_ERR_NOT_FOUND);
    assert_int_equal(DEL(&t, "2001:db8::", 32), WS_ERR_NOT_FOUND);
    assert_int_equal(ADD(&t, "2001:db8::", 32, 1), 0);
    assert_int_equal(ADD(&t, "2001::", 16, 2), 0);
    assert_int_equal(ADD(&t, "2001:db8::1", 128, 3), 0);
    /* The same bits at another length, or the same length elsewhere, are other routes. */
    assert_int_equal(DEL(&t, "2001:db8::", 31), WS_ERR_NOT_FOUND);
    assert_int_equal(DEL(&t, "2001:db8::", 33), WS_ERR_NOT_FOUND);
    assert_int_equal(DEL(&t, "2001:db8::", 64), WS_ERR_NOT_FOUND);
    assert_int_equal(DEL(&t, "2001:db8::", 128), WS_ERR_NOT_FOUND);
    assert_int_equal(DEL(&t, "2001:db9::", 32), WS_ERR_NOT_FOUND);
    assert_int_equal(DEL(&t, "2001::", 17), WS_ERR_NOT_FOUND);
    assert_int_equal(DEL(&t, "2000::", 15), WS_ERR_NOT_FOUND);
    assert_int_equal(DEL(&t, "2002::", 16), WS_ERR_NOT_FOUND);
    assert_int_equal(DEL(&t, "2001:db8::2", 128), WS_ERR_NOT_FOUND);
    assert_int_equal(DEL(&t, "::", 0), WS_ERR_NOT_FOUND);
    assert_int_equal(fib6_route_count(&t.f), 3);
    AT(&t, "2001:db8::1", 3);
    AT(&t, "2001:db8::2", 1);
    AT(&t, "2001:1::", 2);
    /* Deleting twice: the second finds nothing. */
    assert_int_equal(DEL(&t, "2001:db8::1", 128), 0);
    assert_int_equal(DEL(&t, "2001:db8::1", 128), WS_ERR_NOT_FOUND);
    assert_int_equal(DEL(&t, "2001::", 16), 0);
    assert_int_equal(DEL(&t, "2001::", 16), WS_ERR_NOT_FOUND);
    assert_int_equal(fib6_route_count(&t.f), 1);
    table_free(&t);
}

/* --- a full table -------------------------------------------------------------------------- */

static const char *const full_probes[] = {
    "::",          "2001::1",     "2001:db8::",   "2001:db8::1", "2001:db8::2", "2001:db8:1::",
    "2002::",      "4000::",      "2001:db8::3",  "2001:db9::",  "fe80::1",     "ffff::",
};
#define FULL_PROBES (sizeof(full_probes) / sizeof(full_probes[0]))

struct snapshot {
    int nh[FULL_PROBES];
    uint32_t *l1;
    struct fib6_slot *slots;
    struct fib6 f;
};

static void take_snapshot(const struct table *t, struct snapshot *s)
{
    for (unsigned i = 0; i < FULL_PROBES; i++) {
        s->nh[i] = fib6_lookup(&t->f, A(full_probes[i]).b);
    }
    s->l1 = malloc(FIB6_L1_ENTRIES * sizeof(uint32_t));
    s->slots = malloc(table_slots(t) * sizeof(struct fib6_slot));
    assert_non_null(s->l1);
    assert_non_null(s->slots);
    memcpy(s->l1, t->f.l1, FIB6_L1_ENTRIES * sizeof(uint32_t));
    memcpy(s->slots, t->f.slots, table_slots(t) * sizeof(struct fib6_slot));
    memcpy(&s->f, &t->f, sizeof(s->f)); /* with its padding, for the byte compare */
}

static void expect_snapshot(const struct table *t, struct snapshot *s)
{
    for (unsigned i = 0; i < FULL_PROBES; i++) {
        AT(t, full_probes[i], s->nh[i]);
    }
    assert_memory_equal(s->l1, t->f.l1, FIB6_L1_ENTRIES * sizeof(uint32_t));
    assert_memory_equal(s->slots, t->f.slots, table_slots(t) * sizeof(struct fib6_slot));
    assert_memory_equal(&s->f, &t->f, sizeof(t->f));
    free(s->l1);
    free(s->slots);
}

static void test_no_memory(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 4);
    assert_int_equal(ADD(&t, "::", 0, 1), 0);
    assert_int_equal(ADD(&t, "2001::", 16, 2), 0);
    assert_int_equal(ADD(&t, "2001:db8::", 32, 3), 0);
    assert_int_equal(ADD(&t, "2001:db8::1", 128, 4), 0);
    assert_int_equal(fib6_route_count(&t.f), 4);

    struct snapshot s;
    take_snapshot(&t, &s);
    /* Every kind of new route is refused, short ones too: they take a slot each. */
    assert_int_equal(ADD(&t, "2001:db8::2", 128, 5), WS_ERR_NO_MEMORY);
    assert_int_equal(ADD(&t, "2001:db8:1::", 48, 5), WS_ERR_NO_MEMORY);
    assert_int_equal(ADD(&t, "2002::", 16, 5), WS_ERR_NO_MEMORY);
    assert_int_equal(ADD(&t, "4000::", 2, 5), WS_ERR_NO_MEMORY);
    assert_int_equal(ADD(&t, "2001:db8::", 33, 5), WS_ERR_NO_MEMORY);
    /* Invalid is still invalid when full. */
    assert_int_equal(ADD(&t, "2001:db8::1", 64, 5), WS_ERR_INVAL);
    expect_snapshot(&t, &s);
    assert_int_equal(fib6_route_count(&t.f), 4);
    /* A refused add is not remembered. */
    assert_int_equal(DEL(&t, "2001:db8::2", 128), WS_ERR_NOT_FOUND);
    assert_int_equal(DEL(&t, "2002::", 16), WS_ERR_NOT_FOUND);

    /* Replacing a known prefix needs no memory. */
    assert_int_equal(ADD(&t, "2001:db8::", 32, 30), 0);
    assert_int_equal(ADD(&t, "2001::", 16, 20), 0);
    AT(&t, "2001:db8::5", 30);
    AT(&t, "2001::5", 20);
    assert_int_equal(fib6_route_count(&t.f), 4);

    /* A deletion makes room for exactly one. */
    assert_int_equal(DEL(&t, "2001:db8::1", 128), 0);
    assert_int_equal(ADD(&t, "2001:db8:1::", 48, 6), 0);
    assert_int_equal(ADD(&t, "2001:db8::2", 128, 5), WS_ERR_NO_MEMORY);
    AT(&t, "2001:db8:1::1", 6);
    AT(&t, "2001:db8::1", 30);
    AT(&t, "2001:db8::2", 30);
    table_free(&t);
}

/* One route: the hash has two slots, and the one route fills the table. */
static void test_one_route_table(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 1);
    assert_int_equal(table_slots(&t), 2);
    for (unsigned len = 0; len <= 128; len++) {
        struct a6 p = masked(A("2001:db8:8421:8421:8421:8421:8421:8421"), len);
        assert_int_equal(fib6_add(&t.f, p.b, (uint8_t)len, (uint16_t)len), 0);
        assert_int_equal(fib6_add(&t.f, A("3000::").b, 4, 1), WS_ERR_NO_MEMORY);
        expect_at(&t, p, (int)len);
        expect_at(&t, last_of(p, len), (int)len);
        expect_at(&t, prev_of(p), len == 0 ? 0 : -1);
        assert_int_equal(fib6_del(&t.f, p.b, (uint8_t)len), 0);
        expect_at(&t, p, -1);
        expect_empty_state(&t);
    }
    table_free(&t);
}

/* --- deletion ------------------------------------------------------------------------------ */

static void test_del_falls_back(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 16);
    assert_int_equal(ADD(&t, "::", 0, 1), 0);
    assert_int_equal(ADD(&t, "2000::", 3, 2), 0);
    assert_int_equal(ADD(&t, "2001::", 16, 3), 0);
    assert_int_equal(ADD(&t, "2001:db8::", 32, 4), 0);
    assert_int_equal(ADD(&t, "2001:db8:1::", 48, 5), 0);
    assert_int_equal(ADD(&t, "2001:db8:1:2::", 64, 6), 0);
    assert_int_equal(ADD(&t, "2001:db8:1:2::9", 128, 7), 0);
    const char *dst = "2001:db8:1:2::9";
    AT(&t, dst, 7);
    /* From the middle out: each deletion uncovers the next shorter route. */
    assert_int_equal(DEL(&t, "2001:db8:1::", 48), 0);
    AT(&t, dst, 7);
    AT(&t, "2001:db8:1:2::8", 6);
    AT(&t, "2001:db8:1:3::", 4);
    assert_int_equal(DEL(&t, "2001:db8:1:2::9", 128), 0);
    AT(&t, dst, 6);
    assert_int_equal(DEL(&t, "2001:db8:1:2::", 64), 0);
    AT(&t, dst, 4);
    assert_int_equal(DEL(&t, "2001:db8::", 32), 0);
    AT(&t, dst, 3);
    assert_int_equal(DEL(&t, "2001::", 16), 0);
    AT(&t, dst, 2);
    assert_int_equal(DEL(&t, "2000::", 3), 0);
    AT(&t, dst, 1);
    AT(&t, "2002::", 1);
    assert_int_equal(DEL(&t, "::", 0), 0);
    AT(&t, dst, -1);
    expect_empty_state(&t);
    table_free(&t);
}

/* The last route longer than /16 under a /16 leaves: the /16's entry is its short route
 * alone again (or nothing), and the other /16s keep their long routes. */
static void test_last_long_route_under_16(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 16);
    const uint32_t b2001 = 0x2001, b2a00 = 0x2a00, b2a01 = 0x2a01;
    assert_int_equal(ADD(&t, "2001::", 16, 1), 0);
    assert_int_equal(ADD(&t, "2001:db8::", 32, 2), 0);
    assert_int_equal(ADD(&t, "2001:db8:1::", 48, 3), 0);
    assert_int_equal(ADD(&t, "2a00:1::", 48, 4), 0);
    assert_int_equal(ADD(&t, "2a01:1::", 48, 5), 0);
    assert_int_equal(t.f.l1[b2001] & FIB6_E_SHORT_MASK, FIB6_E_SHORT | 1);
    assert_int_not_equal(t.f.l1[b2001] & ~FIB6_E_SHORT_MASK, 0);

    assert_int_equal(DEL(&t, "2001:db8:1::", 48), 0);
    AT(&t, "2001:db8:1::1", 2);
    assert_int_equal(DEL(&t, "2001:db8::", 32), 0);
    AT(&t, "2001:db8:1::1", 1);
    AT(&t, "2001:db8::1", 1);
    assert_int_equal(t.f.l1[b2001], FIB6_E_SHORT | 1);
    assert_int_equal(t.f.long_count[b2001], 0);

    /* A /16 without a short route: its entry is empty again; the /48 length stays present
     * for the other /16. */
    assert_int_equal(DEL(&t, "2a00:1::", 48), 0);
    assert_int_equal(t.f.l1[b2a00], 0);
    AT(&t, "2a00:1::1", -1);
    AT(&t, "2a01:1::1", 5);
    assert_int_equal(t.f.nplens, 1);
    assert_int_equal(DEL(&t, "2a01:1::", 48), 0);
    assert_int_equal(t.f.l1[b2a01], 0);
    assert_int_equal(t.f.nplens, 0);
    AT(&t, "2a01:1::1", -1);
    /* A long route comes back under the /16. */
    assert_int_equal(ADD(&t, "2001:db8:1::", 64, 6), 0);
    AT(&t, "2001:db8:1::1", 6);
    AT(&t, "2001:db8:2::1", 1);
    table_free(&t);
}

/* After churn the per-/16 bounds may be wider than the routes (fib6.h): a lookup may probe
 * lengths no route under the /16 has, and must still answer right. */
static void test_stale_bounds(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 16);
    assert_int_equal(ADD(&t, "2001::", 16, 1), 0);
    assert_int_equal(ADD(&t, "2001::", 20, 2), 0);
    assert_int_equal(ADD(&t, "2001:db8::1", 128, 3), 0);
    assert_int_equal(ADD(&t, "2001:db8:1::", 64, 4), 0);
    assert_int_equal(DEL(&t, "2001:db8::1", 128), 0);
    assert_int_equal(DEL(&t, "2001::", 20), 0);
    AT(&t, "2001:db8::1", 1);
    AT(&t, "2001:db8:1::1", 4);
    /* New routes inside the stale range and outside it. */
    assert_int_equal(ADD(&t, "2001:db8::", 32, 5), 0);
    assert_int_equal(ADD(&t, "2001:db8:1::", 17, 6), WS_ERR_INVAL);
    assert_int_equal(ADD(&t, "2001::", 17, 6), 0);
    AT(&t, "2001:db8::1", 5);
    AT(&t, "2001:db8:1::1", 4);
    AT(&t, "2001:db8:2::1", 5);
    AT(&t, "2001:db7::1", 6);
    AT(&t, "2001:8000::1", 1);
    table_free(&t);
}

/* --- addresses at any alignment ------------------------------------------------------------ */

static void test_unaligned(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 8);
    uint8_t buf[64];
    struct a6 p48 = A("2001:db8:1::"), p128 = A("2001:db8:1::1");
    for (unsigned off = 0; off < 32; off++) {
        memcpy(buf + off, p48.b, 16);
        assert_int_equal(fib6_add(&t.f, buf + off, 48, (uint16_t)off), 0);
        memcpy(buf + off, p128.b, 16);
        assert_int_equal(fib6_add(&t.f, buf + off, 128, (uint16_t)(100 + off)), 0);
        for (unsigned o2 = 0; o2 < 17; o2++) {
            memcpy(buf + o2, p128.b, 16);
            assert_int_equal(fib6_lookup(&t.f, buf + o2), (int)(100 + off));
            struct a6 other = A("2001:db8:1::2");
            memcpy(buf + o2 + 1, other.b, 16);
            assert_int_equal(fib6_lookup(&t.f, buf + o2 + 1), (int)off);
        }
        memcpy(buf + off, p128.b, 16);
        assert_int_equal(fib6_del(&t.f, buf + off, 128), 0);
    }
    /* At the very end of a buffer: nothing beyond the 16 bytes is read (ASan). */
    uint8_t *tight = malloc(16 + 3);
    assert_non_null(tight);
    memcpy(tight + 3, p48.b, 16);
    assert_int_equal(fib6_lookup(&t.f, tight + 3), 31);
    assert_int_equal(fib6_del(&t.f, tight + 3, 48), 0);
    assert_int_equal(fib6_lookup(&t.f, tight + 3), -1);
    free(tight);
    expect_empty_state(&t);
    table_free(&t);
}

static void test_route_count(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 3);
    assert_int_equal(fib6_route_count(&t.f), 0);
    assert_int_equal(ADD(&t, "2001:db8::", 32, 1), 0);
    assert_int_equal(fib6_route_count(&t.f), 1);
    assert_int_equal(ADD(&t, "2001:db8::", 32, 2), 0); /* replace */
    assert_int_equal(fib6_route_count(&t.f), 1);
    assert_int_equal(ADD(&t, "2001:db8::", 33, 2), 0); /* same bits, other length */
    assert_int_equal(fib6_route_count(&t.f), 2);
    assert_int_equal(ADD(&t, "2001:db8::1", 32, 2), WS_ERR_INVAL);
    assert_int_equal(fib6_route_count(&t.f), 2);
    assert_int_equal(ADD(&t, "::", 0, 3), 0);
    assert_int_equal(fib6_route_count(&t.f), 3);
    assert_int_equal(ADD(&t, "2002::", 16, 3), WS_ERR_NO_MEMORY);
    assert_int_equal(fib6_route_count(&t.f), 3);
    assert_int_equal(DEL(&t, "2002::", 16), WS_ERR_NOT_FOUND);
    assert_int_equal(fib6_route_count(&t.f), 3);
    assert_int_equal(DEL(&t, "2001:db8::", 32), 0);
    assert_int_equal(fib6_route_count(&t.f), 2);
    assert_int_equal(DEL(&t, "::", 0), 0);
    assert_int_equal(DEL(&t, "2001:db8::", 33), 0);
    assert_int_equal(fib6_route_count(&t.f), 0);
    expect_empty_state(&t);
    table_free(&t);
}

/* --- every insertion and deletion order of nested routes ------------------------------------ */

static const struct {
    const char *p;
    uint8_t len;
    uint16_t nh;
} nested[] = {
    { "::", 0, 1 },           { "2000::", 3, 2 },           { "2001::", 16, 3 },
    { "2001::", 17, 4 },      { "2001:0:1::", 48, 5 },      { "2001:0:1:2::", 64, 6 },
    { "2001:0:1:2::1", 128, 7 },
};
#define NESTED_N (sizeof(nested) / sizeof(nested[0]))

/* Next permutation in lexicographic order; false after the last. */
static bool next_perm(unsigned *a, unsigned n)
{
    int i = (int)n - 2;
    while (i >= 0 && a[i] >= a[i + 1]) {
        i--;
    }
    if (i < 0) {
        return false;
    }
    int j = (int)n - 1;
    while (a[j] <= a[i]) {
        j--;
    }
    unsigned tmp = a[i];
    a[i] = a[j];
    a[j] = tmp;
    for (unsigned lo = (unsigned)i + 1, hi = n - 1; lo < hi; lo++, hi--) {
        tmp = a[lo];
        a[lo] = a[hi];
        a[hi] = tmp;
    }
    return true;
}

static void check_nested(const struct table *t, const struct ref *ref)
{
    static const char *const extra[] = {
        "2001:0:1:2::2", "2001:0:1:3::", "2001:0:2::", "2001:8000::", "2002::", "1fff::", "4000::",
    };
    for (unsigned i = 0; i < NESTED_N; i++) {
        struct a6 p = A(nested[i].p), last = last_of(p, nested[i].len);
        check(t, ref, p);
        check(t, ref, last);
        check(t, ref, prev_of(p));
        check(t, ref, next_of(last));
    }
    for (unsigned i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
        check(t, ref, A(extra[i]));
    }
    assert_int_equal(fib6_route_count(&t->f), ref->n);
}

/* All 5040 orders: add in that order, then delete in that order, checking after every step.
 * The table is reused, so each pass also proves deletion leaves it exactly empty. */
static void test_nested_every_order(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, NESTED_N);
    struct ref *ref = ref_new(NESTED_N);
    unsigned perm[NESTED_N];
    for (unsigned i = 0; i < NESTED_N; i++) {
        perm[i] = i;
    }
    unsigned orders = 0;
    do {
        for (unsigned i = 0; i < NESTED_N; i++) {
            both_add(&t, ref, A(nested[perm[i]].p), nested[perm[i]].len, nested[perm[i]].nh);
            check_nested(&t, ref);
        }
        for (unsigned i = 0; i < NESTED_N; i++) {
            both_del(&t, ref, A(nested[perm[i]].p), nested[perm[i]].len);
            check_nested(&t, ref);
        }
        if (orders % 97 == 0) { /* the full state scan is 600 KiB: a sample of the orders */
            expect_empty_state(&t);
        }
        orders++;
    } while (next_perm(perm, NESTED_N));
    assert_int_equal(orders, 5040);
    expect_empty_state(&t);
    free(ref);
    table_free(&t);
}

/* --- random routes against the reference --------------------------------------------------- */

#define CLUSTERS 6

struct gen {
    struct a6 cluster[CLUSTERS]; /* the /16s most routes live under */
};

static void gen_init(struct gen *g)
{
    for (unsigned c = 0; c < CLUSTERS; c++) {
        memset(&g->cluster[c], 0, sizeof(g->cluster[c]));
        uint32_t top = 0x2000 | (rnd32() & 0x0fff); /* global unicast, 2000::/4 */
        g->cluster[c].b[0] = (uint8_t)(top >> 8);
        g->cluster[c].b[1] = (uint8_t)top;
    }
    /* Two neighbours, so that /15s and shorter cover more than one cluster. */
    g->cluster[1].b[0] = g->cluster[0].b[0];
    g->cluster[1].b[1] = g->cluster[0].b[1] ^ 1;
}

/* A random length in 17..128, weighted to where tables live (32..64) with every length
 * possible. */
static unsigned random_long_len(void)
{
    unsigned r = rnd32() % 100;
    if (r < 60) {
        return 32 + rnd32() % 33;
    }
    if (r < 75) {
        return 120 + rnd32() % 9;
    }
    return 17 + rnd32() % 112;
}

/* A random valid route: mostly under the clusters, some nested inside existing routes (so
 * chains of fallbacks exist), a few short ones over clusters or anywhere. */
static void gen_route(const struct gen *g, const struct ref *ref, struct a6 *p, unsigned *len)
{
    unsigned r = rnd32() % 100;
    if (r < 4) {
        *len = rnd32() % 17;
        *p = (rnd32() & 1) ? g->cluster[rnd32() % CLUSTERS] : random_inside(A("::"), 0);
    } else if (r < 40 && ref->n != 0) {
        const struct ref_route *base = &ref->r[rnd32() % ref->n];
        if (base->len == 128) {
            *len = 128;
            *p = base->p;
            p->b[15] ^= (uint8_t)(1 + rnd32() % 255);
        } else {
            *len = base->len + 1 + rnd32() % (128u - base->len);
            *p = random_inside(base->p, base->len);
        }
    } else {
        *len = random_long_len();
        *p = random_inside(g->cluster[rnd32() % CLUSTERS], 16);
    }
    *p = masked(*p, *len);
}

/* A destination: inside a route we hold (at its edges, or anywhere in it), under a cluster,
 * or anywhere. */
static struct a6 random_dst(const struct gen *g, const struct ref *ref)
{
    unsigned r = rnd32() % 100;
    if (ref->n != 0 && r < 70) {
        const struct ref_route *rt = &ref->r[rnd32() % ref->n];
        switch (rnd32() % 6) {
        case 0:
            return rt->p;
        case 1:
            return last_of(rt->p, rt->len);
        case 2:
            return prev_of(rt->p);
        case 3:
            return next_of(last_of(rt->p, rt->len));
        case 4: { /* one bit of the prefix flipped: a sibling */
            struct a6 a = random_inside(rt->p, rt->len);
            unsigned bit = rt->len ? rnd32() % rt->len : 0;
            a.b[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
            return a;
        }
        default:
            return random_inside(rt->p, rt->len);
        }
    }
    if (r < 90) {
        return random_inside(g->cluster[rnd32() % CLUSTERS], 16);
    }
    return random_inside(A("::"), 0);
}

static void add_random(struct table *t, struct ref *ref, const struct gen *g, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        struct a6 p;
        unsigned len;
        gen_route(g, ref, &p, &len);
        both_add(t, ref, p, len, (uint16_t)rnd32());
        check(t, ref, p);
    }
}

/* A second reference, written the other way round (lengths from /128 down, the first match
 * wins): ref_lookup must agree with it before it is trusted. */
static int ref_lookup_reverse(const struct ref *ref, const struct a6 *dst)
{
    for (int len = 128; len >= 0; len--) {
        for (unsigned i = ref->n; i-- > 0;) {
            if (ref->r[i].len == len && ref_covers(&ref->r[i].p, (unsigned)len, dst)) {
                return ref->r[i].nh;
            }
        }
    }
    return -1;
}

#define RANDOM_MAX 4096
#define RANDOM_ROUTES 3000

static void test_random_against_reference(void **state)
{
    (void)state;
    rng_state = 6;
    struct table t;
    table_init(&t, RANDOM_MAX);
    struct ref *ref = ref_new(RANDOM_MAX);
    struct gen g;
    gen_init(&g);

    /* A few thousand routes; the reference is checked against the second one. */
    add_random(&t, ref, &g, RANDOM_ROUTES);
    assert_true(ref->n > RANDOM_ROUTES * 9 / 10);
    assert_int_equal(fib6_route_count(&t.f), ref->n);
    for (unsigned i = 0; i < 500; i++) {
        struct a6 dst = random_dst(&g, ref);
        assert_int_equal(ref_lookup(ref, &dst), ref_lookup_reverse(ref, &dst));
    }
    check_all_edges(&t, ref);

    /* Churn: deletions of held routes and of absent ones, new routes and replaced next hops,
     * each followed by lookups in and around the route it touched. */
    unsigned dels = 0, adds = 0, absent = 0;
    for (unsigned op = 0; op < 6000; op++) {
        unsigned r = rnd32() % 100;
        struct a6 p;
        unsigned len;
        if (r < 45 && ref->n != 0) {
            const struct ref_route *rt = &ref->r[rnd32() % ref->n];
            p = rt->p;
            len = rt->len;
            assert_int_equal(both_del(&t, ref, p, len), 0);
            dels++;
        } else if (r < 55) {
            gen_route(&g, ref, &p, &len);
            absent += both_del(&t, ref, p, len) == WS_ERR_NOT_FOUND;
        } else if (r < 65 && ref->n != 0) {
            const struct ref_route *rt = &ref->r[rnd32() % ref->n];
            p = rt->p;
            len = rt->len;
            assert_int_equal(both_add(&t, ref, p, len, (uint16_t)rnd32()), 0);
        } else {
            gen_route(&g, ref, &p, &len);
            adds += both_add(&t, ref, p, len, (uint16_t)rnd32()) == 0;
        }
        assert_int_equal(fib6_route_count(&t.f), ref->n);
        check(&t, ref, p);
        check(&t, ref, last_of(p, len));
        check(&t, ref, random_inside(p, len));
        check(&t, ref, random_dst(&g, ref));
    }
    assert_true(dels > 2000 && adds > 1500 && absent > 300);

    /* Lookups: every route's edges, then random destinations. */
    check_all_edges(&t, ref);
    for (unsigned i = 0; i < 30000; i++) {
        check(&t, ref, random_dst(&g, ref));
    }

    /* Everything out, in random order: the table is as fib6_init left it. */
    while (ref->n != 0) {
        const struct ref_route rt = ref->r[rnd32() % ref->n];
        assert_int_equal(both_del(&t, ref, rt.p, rt.len), 0);
        if (ref->n % 16 == 0) {
            check(&t, ref, random_inside(rt.p, rt.len));
            check(&t, ref, random_dst(&g, ref));
        }
    }
    expect_empty_state(&t);
    for (unsigned i = 0; i < 1000; i++) {
        expect_at(&t, random_dst(&g, ref), -1);
    }
    free(ref);
    table_free(&t);
}

/* A small table under random churn: it fills (WS_ERR_NO_MEMORY exactly when the reference
 * holds max_routes), its probe runs wrap around the end of a 16-slot hash, and deletions
 * shift runs back over the wrap. */
static void test_random_small_table(void **state)
{
    (void)state;
    rng_state = 61;
    enum { MAX = 8 };
    struct table t;
    table_init(&t, MAX);
    struct ref *ref = ref_new(MAX);
    struct gen g;
    gen_init(&g);
    unsigned full = 0;
    for (unsigned op = 0; op < 30000; op++) {
        struct a6 p;
        unsigned len;
        if (rnd32() % 100 < 40 && ref->n != 0) {
            const struct ref_route *rt = &ref->r[rnd32() % ref->n];
            p = rt->p;
            len = rt->len;
            assert_int_equal(both_del(&t, ref, p, len), 0);
        } else {
            gen_route(&g, ref, &p, &len);
            full += both_add(&t, ref, p, len, (uint16_t)rnd32()) == WS_ERR_NO_MEMORY;
        }
        assert_int_equal(fib6_route_count(&t.f), ref->n);
        check(&t, ref, p);
        check(&t, ref, random_dst(&g, ref));
        if (op % 512 == 0) {
            check_all_edges(&t, ref);
        }
    }
    assert_true(full > 1000);
    while (ref->n != 0) {
        assert_int_equal(both_del(&t, ref, ref->r[0].p, ref->r[0].len), 0);
        check_all_edges(&t, ref);
    }
    expect_empty_state(&t);
    free(ref);
    table_free(&t);
}

/* Invalid arguments mixed into random routes: refused without a trace. */
static void test_random_invalid(void **state)
{
    (void)state;
    rng_state = 62;
    struct table t;
    table_init(&t, 256);
    struct ref *ref = ref_new(256);
    struct gen g;
    gen_init(&g);
    add_random(&t, ref, &g, 200);
    for (unsigned i = 0; i < 5000; i++) {
        struct a6 p = random_dst(&g, ref);
        unsigned len = rnd32() % 2 ? rnd32() % 256 : rnd32() % 129;
        if (rnd32() % 2) {
            both_add(&t, ref, p, len, (uint16_t)rnd32());
        } else {
            both_del(&t, ref, p, len);
        }
        assert_int_equal(fib6_route_count(&t.f), ref->n);
        check(&t, ref, p);
    }
    check_all_edges(&t, ref);
    free(ref);
    table_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mem_bytes),
        cmocka_unit_test(test_init_errors),
        cmocka_unit_test(test_init_max_routes),
        cmocka_unit_test(test_empty_table),
        cmocka_unit_test(test_default_route),
        cmocka_unit_test(test_short_routes),
        cmocka_unit_test(test_long_routes),
        cmocka_unit_test(test_long_routes_per_16),
        cmocka_unit_test(test_replace_next_hop),
        cmocka_unit_test(test_invalid_prefixes),
        cmocka_unit_test(test_not_found),
        cmocka_unit_test(test_no_memory),
        cmocka_unit_test(test_one_route_table),
        cmocka_unit_test(test_del_falls_back),
        cmocka_unit_test(test_last_long_route_under_16),
        cmocka_unit_test(test_stale_bounds),
        cmocka_unit_test(test_unaligned),
        cmocka_unit_test(test_route_count),
        cmocka_unit_test(test_nested_every_order),
        cmocka_unit_test(test_random_against_reference),
        cmocka_unit_test(test_random_small_table),
        cmocka_unit_test(test_random_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
