/*
 * tests/unit/test_fib.c: the DIR-16-8-8 longest-prefix-match table (net/fib.c) against a
 * reference that knows nothing of tries: a list of routes scanned linearly (and, for the
 * million-lookup runs, a per-length hash of the same list, itself checked against the scan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/err.h"
#include "net/fib.h"

#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

/* --- helpers ------------------------------------------------------------------------------- */

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

static uint32_t mask_of(unsigned len)
{
    return len ? ~0u << (32 - len) : 0;
}

/* A table in heap memory, deliberately misaligned to check fib_init's alignment. */
struct table {
    struct fib f;
    unsigned char *mem;
};

static void table_init(struct table *t, unsigned max_groups)
{
    size_t bytes = fib_mem_bytes(max_groups);
    assert_true(bytes > 0);
    t->mem = malloc(bytes + 1);
    assert_non_null(t->mem);
    assert_int_equal(fib_init(&t->f, t->mem + 1, bytes, max_groups), 0);
}

static void table_free(struct table *t)
{
    free(t->mem);
}

/* --- the reference ------------------------------------------------------------------------- */

#define REF_MAX 20000
#define REF_HASH_SLOTS 65536 /* power of two, >= 2 * REF_MAX */

struct ref_route {
    uint32_t prefix;
    uint8_t len;
    uint16_t nh;
};

struct ref {
    struct ref_route r[REF_MAX];
    unsigned n;
    /* per-length hash, rebuilt by ref_index: slot holds route index + 1, 0 = free */
    uint32_t slot[REF_HASH_SLOTS];
    bool indexed;
};

static struct ref *ref_new(void)
{
    struct ref *ref = calloc(1, sizeof(*ref));
    assert_non_null(ref);
    return ref;
}

static int ref_find(const struct ref *ref, uint32_t prefix, uint8_t len)
{
    for (unsigned i = 0; i < ref->n; i++) {
        if (ref->r[i].prefix == prefix && ref->r[i].len == len) {
            return (int)i;
        }
    }
    return -1;
}

static void ref_add(struct ref *ref, uint32_t prefix, uint8_t len, uint16_t nh)
{
    int i = ref_find(ref, prefix, len);
    if (i < 0) {
        assert_true(ref->n < REF_MAX);
        i = (int)ref->n++;
    }
    ref->r[i] = (struct ref_route){ prefix, len, nh };
    ref->indexed = false;
}

static void ref_del(struct ref *ref, uint32_t prefix, uint8_t len)
{
    int i = ref_find(ref, prefix, len);
    assert_true(i >= 0);
    ref->r[i] = ref->r[--ref->n];
    ref->indexed = false;
}

static int ref_lookup_linear(const struct ref *ref, uint32_t dst)
{
    int best_len = -1, nh = -1;
    for (unsigned i = 0; i < ref->n; i++) {
        const struct ref_route *r = &ref->r[i];
        if ((dst & mask_of(r->len)) == r->prefix && (int)r->len > best_len) {
            best_len = r->len;
            nh = r->nh;
        }
    }
    return nh;
}

static uint32_t ref_home(uint32_t prefix, unsigned len)
{
    return (uint32_t)(((uint64_t)prefix * 33 + len) * 0xd6e8feb86659fd93ull >> 48) &
           (REF_HASH_SLOTS - 1);
}

static void ref_index(struct ref *ref)
{
    memset(ref->slot, 0, sizeof(ref->slot));
    for (unsigned i = 0; i < ref->n; i++) {
        uint32_t h = ref_home(ref->r[i].prefix, ref->r[i].len);
        while (ref->slot[h] != 0) {
            h = (h + 1) & (REF_HASH_SLOTS - 1);
        }
        ref->slot[h] = i + 1;
    }
    ref->indexed = true;
}

/* Same answer as ref_lookup_linear, ~33 hash probes instead of n compares. */
static int ref_lookup_fast(struct ref *ref, uint32_t dst)
{
    if (!ref->indexed) {
        ref_index(ref);
    }
    for (int len = 32; len >= 0; len--) {
        uint32_t prefix = dst & mask_of((unsigned)len);
        for (uint32_t h = ref_home(prefix, (unsigned)len); ref->slot[h] != 0;
             h = (h + 1) & (REF_HASH_SLOTS - 1)) {
            const struct ref_route *r = &ref->r[ref->slot[h] - 1];
            if (r->prefix == prefix && r->len == len) {
                return r->nh;
            }
        }
    }
    return -1;
}

/* Both sides add the same route; the table must accept it. */
static void both_add(struct table *t, struct ref *ref, uint32_t prefix, uint8_t len, uint16_t nh)
{
    assert_int_equal(fib_add(&t->f, prefix, len, nh), 0);
    ref_add(ref, prefix, len, nh);
}

static void both_del(struct table *t, struct ref *ref, uint32_t prefix, uint8_t len)
{
    assert_int_equal(fib_del(&t->f, prefix, len), 0);
    ref_del(ref, prefix, len);
}

static void expect_at(const struct table *t, uint32_t dst, int want)
{
    int got = fib_lookup(&t->f, dst);
    if (got != want) {
        fail_msg("dst %u.%u.%u.%u: fib says %d, reference %d", dst >> 24, (dst >> 16) & 0xff,
                 (dst >> 8) & 0xff, dst & 0xff, got, want);
    }
}

/* Every route's first and last address, the one before and the one beyond, by linear scan. */
static void check_edges_linear(const struct table *t, const struct ref *ref)
{
    for (unsigned i = 0; i < ref->n; i++) {
        uint32_t first = ref->r[i].prefix, last = first | ~mask_of(ref->r[i].len);
        uint32_t probes[4] = { first, last, first - 1, last + 1 };
        for (unsigned p = 0; p < 4; p++) {
            expect_at(t, probes[p], ref_lookup_linear(ref, probes[p]));
        }
    }
}

/* n destinations: half uniform, half inside a random route (so long prefixes get hit). */
static uint32_t random_dst(const struct ref *ref)
{
    if (ref->n == 0 || (rnd32() & 1)) {
        return rnd32();
    }
    const struct ref_route *r = &ref->r[rnd32() % ref->n];
    return r->prefix | (rnd32() & ~mask_of(r->len));
}

static void check_random(const struct table *t, struct ref *ref, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint32_t dst = random_dst(ref);
        expect_at(t, dst, ref_lookup_fast(ref, dst));
    }
}

/* Random length 0..32, 80% of them in 8..28 (where real tables live). */
static uint8_t random_len(void)
{
    return (rnd32() % 100 < 80) ? (uint8_t)(8 + rnd32() % 21) : (uint8_t)(rnd32() % 33);
}

/* --- fixed cases --------------------------------------------------------------------------- */

static void test_init_args(void **state)
{
    (void)state;
    struct fib f;
    static unsigned char small[1024];
    assert_int_equal(fib_mem_bytes(FIB_DEFAULT_GROUPS),
                     256 * 1024 + FIB_DEFAULT_GROUPS * 1024 + FIB_RULE_SLOTS * 8 + 63);
    assert_int_equal(fib_mem_bytes(FIB_MAX_GROUPS + 1), 0);
    assert_int_equal(fib_init(&f, small, sizeof(small), 0), WS_ERR_INVAL);
    assert_int_equal(fib_init(&f, NULL, fib_mem_bytes(0), 0), WS_ERR_INVAL);
    assert_int_equal(fib_init(&f, small, (size_t)-1, FIB_MAX_GROUPS + 1), WS_ERR_INVAL);

    struct table t;
    table_init(&t, 4);
    assert_int_equal((uintptr_t)t.f.tbl % 64, 0);
    assert_int_equal(fib_groups_free(&t.f), 4);
    assert_int_equal(fib_route_count(&t.f), 0);
    expect_at(&t, 0, -1);
    expect_at(&t, 0xffffffff, -1);
    expect_at(&t, IP4(10, 1, 2, 3), -1);
    table_free(&t);
}

static void test_invalid_prefixes(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 4);
    assert_int_equal(fib_add(&t.f, 0, 33, 1), WS_ERR_INVAL);
    assert_int_equal(fib_add(&t.f, IP4(10, 0, 0, 1), 24, 1), WS_ERR_INVAL);
    assert_int_equal(fib_add(&t.f, IP4(1, 0, 0, 0), 0, 1), WS_ERR_INVAL);
    assert_int_equal(fib_add(&t.f, IP4(10, 0, 128, 0), 16, 1), WS_ERR_INVAL);
    assert_int_equal(fib_del(&t.f, IP4(10, 0, 0, 1), 24), WS_ERR_INVAL);
    assert_int_equal(fib_del(&t.f, 0, 40), WS_ERR_INVAL);
    assert_int_equal(fib_del(&t.f, IP4(10, 0, 0, 0), 24), WS_ERR_NOT_FOUND);
    assert_int_equal(fib_route_count(&t.f), 0);
    assert_int_equal(fib_groups_free(&t.f), 4);
    expect_at(&t, IP4(10, 0, 0, 1), -1);
    table_free(&t);
}

static void test_default_route(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 4);
    /* Next hop 0 is a real next hop, not "no route". */
    assert_int_equal(fib_add(&t.f, 0, 0, 0), 0);
    expect_at(&t, 0, 0);
    expect_at(&t, 0xffffffff, 0);
    expect_at(&t, IP4(192, 0, 2, 1), 0);
    /* Replacing the identical prefix updates its next hop, including the highest one. */
    assert_int_equal(fib_add(&t.f, 0, 0, 65535), 0);
    expect_at(&t, IP4(192, 0, 2, 1), 65535);
    assert_int_equal(fib_route_count(&t.f), 1);
    assert_int_equal(fib_del(&t.f, 0, 0), 0);
    expect_at(&t, IP4(192, 0, 2, 1), -1);
    table_free(&t);
}

static void test_host_routes(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 8);
    assert_int_equal(fib_add(&t.f, 0, 32, 1), 0);
    assert_int_equal(fib_add(&t.f, 0xffffffff, 32, 2), 0);
    assert_int_equal(fib_add(&t.f, IP4(192, 168, 1, 1), 32, 3), 0);
    expect_at(&t, 0, 1);
    expect_at(&t, 1, -1);
    expect_at(&t, 0xffffffff, 2);
    expect_at(&t, 0xfffffffe, -1);
    expect_at(&t, IP4(192, 168, 1, 1), 3);
    expect_at(&t, IP4(192, 168, 1, 0), -1);
    expect_at(&t, IP4(192, 168, 1, 2), -1);
    /* A default route added afterwards fills around the host routes, not over them. */
    assert_int_equal(fib_add(&t.f, 0, 0, 9), 0);
    expect_at(&t, 0, 1);
    expect_at(&t, 1, 9);
    expect_at(&t, IP4(192, 168, 1, 1), 3);
    expect_at(&t, IP4(192, 168, 1, 2), 9);
    /* Each host route took a second- and a third-level group. */
    assert_int_equal(fib_groups_free(&t.f), 8 - 6);
    table_free(&t);
}

static void test_16_and_24_boundaries(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 8);
    assert_int_equal(fib_add(&t.f, IP4(172, 16, 0, 0), 16, 1), 0);
    assert_int_equal(fib_add(&t.f, IP4(192, 168, 1, 0), 24, 2), 0);
    assert_int_equal(fib_add(&t.f, IP4(10, 2, 0, 0), 15, 3), 0);
    assert_int_equal(fib_add(&t.f, IP4(10, 8, 2, 0), 23, 4), 0);

    expect_at(&t, IP4(172, 15, 255, 255), -1);
    expect_at(&t, IP4(172, 16, 0, 0), 1);
    expect_at(&t, IP4(172, 16, 255, 255), 1);
    expect_at(&t, IP4(172, 17, 0, 0), -1);

    expect_at(&t, IP4(192, 168, 0, 255), -1);
    expect_at(&t, IP4(192, 168, 1, 0), 2);
    expect_at(&t, IP4(192, 168, 1, 255), 2);
    expect_at(&t, IP4(192, 168, 2, 0), -1);

    expect_at(&t, IP4(10, 1, 255, 255), -1);
    expect_at(&t, IP4(10, 2, 0, 0), 3);
    expect_at(&t, IP4(10, 3, 255, 255), 3);
    expect_at(&t, IP4(10, 4, 0, 0), -1);

    expect_at(&t, IP4(10, 8, 1, 255), -1);
    expect_at(&t, IP4(10, 8, 2, 0), 4);
    expect_at(&t, IP4(10, 8, 3, 255), 4);
    expect_at(&t, IP4(10, 8, 4, 0), -1);

    /* /16 and shorter cost no group; a /23 or /24 costs one. */
    assert_int_equal(fib_groups_free(&t.f), 8 - 2);
    table_free(&t);
}

static void test_17_and_25_crossings(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 8);
    /* Longer first: the /16 and /24 must fill around them. */
    assert_int_equal(fib_add(&t.f, IP4(172, 16, 128, 0), 17, 2), 0);
    assert_int_equal(fib_add(&t.f, IP4(192, 168, 1, 128), 25, 4), 0);
    assert_int_equal(fib_add(&t.f, IP4(172, 16, 0, 0), 16, 1), 0);
    assert_int_equal(fib_add(&t.f, IP4(192, 168, 1, 0), 24, 3), 0);
    assert_int_equal(fib_add(&t.f, IP4(172, 17, 0, 0), 17, 5), 0);

    expect_at(&t, IP4(172, 16, 0, 0), 1);
    expect_at(&t, IP4(172, 16, 127, 255), 1);
    expect_at(&t, IP4(172, 16, 128, 0), 2);
    expect_at(&t, IP4(172, 16, 255, 255), 2);
    expect_at(&t, IP4(172, 17, 0, 0), 5);
    expect_at(&t, IP4(172, 17, 127, 255), 5);
    expect_at(&t, IP4(172, 17, 128, 0), -1);

    expect_at(&t, IP4(192, 168, 1, 0), 3);
    expect_at(&t, IP4(192, 168, 1, 127), 3);
    expect_at(&t, IP4(192, 168, 1, 128), 4);
    expect_at(&t, IP4(192, 168, 1, 255), 4);
    expect_at(&t, IP4(192, 168, 2, 0), -1);

    /* Deleting the longer ones uncovers the shorter ones and returns every group. */
    assert_int_equal(fib_del(&t.f, IP4(172, 16, 128, 0), 17), 0);
    assert_int_equal(fib_del(&t.f, IP4(192, 168, 1, 128), 25), 0);
    expect_at(&t, IP4(172, 16, 128, 0), 1);
    expect_at(&t, IP4(192, 168, 1, 128), 3);
    assert_int_equal(fib_del(&t.f, IP4(192, 168, 1, 0), 24), 0);
    assert_int_equal(fib_del(&t.f, IP4(172, 17, 0, 0), 17), 0);
    assert_int_equal(fib_groups_free(&t.f), 8);
    expect_at(&t, IP4(192, 168, 1, 128), -1);
    expect_at(&t, IP4(172, 16, 200, 0), 1);
    table_free(&t);
}

/* --- every insertion and deletion order of nested routes ------------------------------------ */

static const struct ref_route nested[] = {
    { 0, 0, 1 },
    { IP4(10, 0, 0, 0), 8, 2 },
    { IP4(10, 1, 0, 0), 16, 3 },
    { IP4(10, 1, 0, 0), 17, 4 },
    { IP4(10, 1, 2, 0), 24, 5 },
    { IP4(10, 1, 2, 128), 25, 6 },
    { IP4(10, 1, 2, 130), 32, 7 },
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

static void check_nested_probes(const struct table *t, const struct ref *ref)
{
    static const uint32_t extra[] = {
        IP4(9, 255, 255, 255), IP4(10, 1, 2, 129), IP4(10, 1, 2, 131), IP4(10, 1, 127, 255),
        IP4(10, 1, 128, 0),    IP4(10, 1, 3, 0),   IP4(11, 0, 0, 0),   IP4(10, 2, 0, 0),
    };
    for (unsigned i = 0; i < NESTED_N; i++) {
        uint32_t first = nested[i].prefix, last = first | ~mask_of(nested[i].len);
        expect_at(t, first, ref_lookup_linear(ref, first));
        expect_at(t, last, ref_lookup_linear(ref, last));
        expect_at(t, first - 1, ref_lookup_linear(ref, first - 1));
        expect_at(t, last + 1, ref_lookup_linear(ref, last + 1));
    }
    for (unsigned i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
        expect_at(t, extra[i], ref_lookup_linear(ref, extra[i]));
    }
}

/* All 5040 orders: add in that order, then delete in that order, checking after every step.
 * The table is reused, so each pass also proves deletion leaves it exactly empty. */
static void test_nested_every_order(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 4);
    struct ref *ref = ref_new();
    static const uint32_t zero[FIB_TBL16_ENTRIES];
    unsigned perm[NESTED_N];
    for (unsigned i = 0; i < NESTED_N; i++) {
        perm[i] = i;
    }
    unsigned orders = 0;
    do {
        for (unsigned i = 0; i < NESTED_N; i++) {
            const struct ref_route *r = &nested[perm[i]];
            both_add(&t, ref, r->prefix, r->len, r->nh);
            check_nested_probes(&t, ref);
        }
        assert_int_equal(fib_groups_free(&t.f), 4 - 2);
        for (unsigned i = 0; i < NESTED_N; i++) {
            const struct ref_route *r = &nested[perm[i]];
            both_del(&t, ref, r->prefix, r->len);
            check_nested_probes(&t, ref);
        }
        assert_int_equal(fib_groups_free(&t.f), 4);
        assert_int_equal(fib_route_count(&t.f), 0);
        assert_memory_equal(t.f.tbl, zero, sizeof(zero));
        orders++;
    } while (next_perm(perm, NESTED_N));
    assert_int_equal(orders, 5040);
    free(ref);
    table_free(&t);
}

/* --- pool exhaustion ----------------------------------------------------------------------- */

static const uint32_t pool_probes[] = {
    IP4(10, 0, 0, 0), IP4(10, 0, 0, 127),   IP4(10, 0, 0, 128), IP4(10, 0, 1, 0),
    IP4(10, 1, 0, 0), IP4(10, 1, 127, 255), IP4(10, 1, 128, 0), IP4(10, 2, 0, 0),
    IP4(10, 3, 0, 0), IP4(10, 3, 0, 1),     IP4(10, 0, 5, 7),   IP4(0, 0, 0, 0),
};
#define POOL_PROBES (sizeof(pool_probes) / sizeof(pool_probes[0]))

static void snapshot(const struct table *t, int *out)
{
    for (unsigned i = 0; i < POOL_PROBES; i++) {
        out[i] = fib_lookup(&t->f, pool_probes[i]);
    }
}

static void test_pool_exhaustion(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 3);
    assert_int_equal(fib_add(&t.f, 0, 0, 1), 0);
    assert_int_equal(fib_add(&t.f, IP4(10, 0, 0, 0), 25, 2), 0); /* two groups */
    assert_int_equal(fib_add(&t.f, IP4(10, 1, 0, 0), 17, 3), 0); /* the third */
    assert_int_equal(fib_groups_free(&t.f), 0);

    int before[POOL_PROBES], after[POOL_PROBES];
    snapshot(&t, before);
    assert_int_equal(fib_add(&t.f, IP4(10, 2, 0, 0), 17, 4), WS_ERR_NO_MEMORY);
    assert_int_equal(fib_add(&t.f, IP4(10, 0, 1, 0), 25, 4), WS_ERR_NO_MEMORY);
    assert_int_equal(fib_add(&t.f, IP4(10, 3, 0, 0), 32, 4), WS_ERR_NO_MEMORY);
    snapshot(&t, after);
    assert_memory_equal(before, after, sizeof(before));
    assert_int_equal(fib_route_count(&t.f), 3);
    /* A failed add is not remembered: deleting it finds nothing. */
    assert_int_equal(fib_del(&t.f, IP4(10, 2, 0, 0), 17), WS_ERR_NOT_FOUND);

    /* Routes whose groups exist, and /16 or shorter, still go in. */
    assert_int_equal(fib_add(&t.f, IP4(10, 0, 0, 0), 24, 5), 0);
    assert_int_equal(fib_add(&t.f, IP4(10, 0, 5, 0), 24, 6), 0);
    assert_int_equal(fib_add(&t.f, IP4(10, 0, 0, 128), 25, 7), 0);
    assert_int_equal(fib_add(&t.f, IP4(10, 4, 0, 0), 16, 8), 0);
    expect_at(&t, IP4(10, 0, 0, 127), 2);
    expect_at(&t, IP4(10, 0, 0, 128), 7);
    expect_at(&t, IP4(10, 0, 5, 7), 6);

    /* Deleting the /17 returns its group, and it can be used again. */
    assert_int_equal(fib_del(&t.f, IP4(10, 1, 0, 0), 17), 0);
    assert_int_equal(fib_groups_free(&t.f), 1);
    assert_int_equal(fib_add(&t.f, IP4(10, 2, 0, 0), 17, 4), 0);
    expect_at(&t, IP4(10, 2, 0, 0), 4);
    expect_at(&t, IP4(10, 1, 0, 0), 1);
    table_free(&t);
}

static void test_no_groups_at_all(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 0);
    assert_int_equal(fib_add(&t.f, IP4(10, 0, 0, 0), 8, 1), 0);
    assert_int_equal(fib_add(&t.f, IP4(10, 1, 0, 0), 16, 2), 0);
    assert_int_equal(fib_add(&t.f, IP4(10, 1, 1, 0), 24, 3), WS_ERR_NO_MEMORY);
    expect_at(&t, IP4(10, 1, 1, 1), 2);
    expect_at(&t, IP4(10, 2, 1, 1), 1);
    table_free(&t);
}

/* Random routes into a small pool: every refusal must leave the table equal to the reference
 * without that route. */
static void test_pool_exhaustion_random(void **state)
{
    (void)state;
    rng_state = 7;
    struct table t;
    table_init(&t, 64);
    struct ref *ref = ref_new();
    unsigned refused = 0;
    for (unsigned i = 0; i < 2000; i++) {
        uint8_t len = random_len();
        uint32_t prefix = rnd32() & mask_of(len);
        uint16_t nh = (uint16_t)rnd32();
        int rc = fib_add(&t.f, prefix, len, nh);
        if (rc == WS_ERR_NO_MEMORY) {
            refused++;
            expect_at(&t, prefix, ref_lookup_linear(ref, prefix));
            expect_at(&t, prefix | ~mask_of(len), ref_lookup_linear(ref, prefix | ~mask_of(len)));
        } else {
            assert_int_equal(rc, 0);
            ref_add(ref, prefix, len, nh);
        }
    }
    assert_true(refused > 100);
    assert_int_equal(fib_groups_free(&t.f), 0);
    check_edges_linear(&t, ref);
    check_random(&t, ref, 100000);
    free(ref);
    table_free(&t);
}

static void test_route_memory_full(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, 0);
    for (uint32_t i = 0; i < FIB_MAX_ROUTES; i++) {
        assert_int_equal(fib_add(&t.f, i << 16, 16, (uint16_t)i), 0);
    }
    assert_int_equal(fib_add(&t.f, (uint32_t)FIB_MAX_ROUTES << 16, 16, 1), WS_ERR_NO_MEMORY);
    expect_at(&t, (uint32_t)FIB_MAX_ROUTES << 16, -1);
    /* Replacing a known prefix needs no new memory. */
    assert_int_equal(fib_add(&t.f, 5u << 16, 16, 500), 0);
    expect_at(&t, 5u << 16, 500);
    assert_int_equal(fib_del(&t.f, 7u << 16, 16), 0);
    assert_int_equal(fib_add(&t.f, (uint32_t)FIB_MAX_ROUTES << 16, 16, 1), 0);
    expect_at(&t, (uint32_t)FIB_MAX_ROUTES << 16, 1);
    expect_at(&t, 7u << 16, -1);
    for (uint32_t i = 0; i < FIB_MAX_ROUTES; i++) {
        if (i != 7) {
            expect_at(&t, i << 16 | 0x1234, i == 5 ? 500 : (int)i);
        }
    }
    table_free(&t);
}

/* --- 10,000 random routes ------------------------------------------------------------------ */

#define RANDOM_ROUTES 10000
#define RANDOM_GROUPS 16384 /* random routes are the worst case: ~0.75 group per route */

static void add_random_routes(struct table *t, struct ref *ref, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint8_t len = random_len();
        both_add(t, ref, rnd32() & mask_of(len), len, (uint16_t)rnd32());
    }
}

static void test_random_routes(void **state)
{
    (void)state;
    rng_state = 42;
    struct table t;
    table_init(&t, RANDOM_GROUPS);
    struct ref *ref = ref_new();
    add_random_routes(&t, ref, RANDOM_ROUTES);
    assert_int_equal(fib_route_count(&t.f), ref->n);

    /* The fast reference agrees with the linear scan before it is trusted. */
    for (unsigned i = 0; i < 20000; i++) {
        uint32_t dst = random_dst(ref);
        assert_int_equal(ref_lookup_fast(ref, dst), ref_lookup_linear(ref, dst));
    }
    check_edges_linear(&t, ref);
    check_random(&t, ref, 1000000);
    free(ref);
    table_free(&t);
}

static void test_burst_matches_single(void **state)
{
    (void)state;
    rng_state = 43;
    struct table t;
    table_init(&t, RANDOM_GROUPS);
    struct ref *ref = ref_new();
    add_random_routes(&t, ref, RANDOM_ROUTES);

    enum { N = 4099 }; /* odd sizes: nothing is written past n */
    uint32_t *dst = malloc(N * sizeof(*dst));
    int *nh = malloc(N * sizeof(*nh));
    assert_non_null(dst);
    assert_non_null(nh);
    for (unsigned i = 0; i < N; i++) {
        dst[i] = random_dst(ref);
    }
    for (unsigned n = 0; n <= N; n += (n < 70 ? 1 : 1013)) {
        memset(nh, 0x55, N * sizeof(*nh));
        fib_lookup_burst(&t.f, dst, nh, n);
        for (unsigned i = 0; i < n; i++) {
            assert_int_equal(nh[i], fib_lookup(&t.f, dst[i]));
        }
        if (n < N) {
            assert_int_equal(nh[n], 0x55555555); /* nothing written past n */
        }
    }
    free(nh);
    free(dst);
    free(ref);
    table_free(&t);
}

/* Delete routes in random order: their addresses must fall back exactly as the reference says,
 * and deleting everything must hand back every group. */
static void test_random_delete(void **state)
{
    (void)state;
    rng_state = 44;
    struct table t;
    table_init(&t, RANDOM_GROUPS);
    struct ref *ref = ref_new();
    add_random_routes(&t, ref, RANDOM_ROUTES);
    unsigned groups_full = fib_groups_free(&t.f);

    /* Half of them, checking a few addresses of each deleted route's range as we go. */
    while (ref->n > RANDOM_ROUTES / 2) {
        struct ref_route r = ref->r[rnd32() % ref->n];
        both_del(&t, ref, r.prefix, r.len);
        assert_int_equal(fib_del(&t.f, r.prefix, r.len), WS_ERR_NOT_FOUND);
        uint32_t last = r.prefix | ~mask_of(r.len);
        uint32_t inside = r.prefix | (rnd32() & ~mask_of(r.len));
        expect_at(&t, r.prefix, ref_lookup_fast(ref, r.prefix));
        expect_at(&t, last, ref_lookup_fast(ref, last));
        expect_at(&t, inside, ref_lookup_fast(ref, inside));
    }
    assert_int_equal(fib_route_count(&t.f), ref->n);
    assert_true(fib_groups_free(&t.f) > groups_full);
    check_edges_linear(&t, ref);
    check_random(&t, ref, 300000);

    /* Put some back (re-adds reuse freed groups), then remove everything. */
    add_random_routes(&t, ref, 2000);
    check_random(&t, ref, 100000);
    while (ref->n > 0) {
        struct ref_route r = ref->r[rnd32() % ref->n];
        both_del(&t, ref, r.prefix, r.len);
    }
    assert_int_equal(fib_groups_free(&t.f), RANDOM_GROUPS);
    assert_int_equal(fib_route_count(&t.f), 0);
    check_random(&t, ref, 10000);
    free(ref);
    table_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_args),
        cmocka_unit_test(test_invalid_prefixes),
        cmocka_unit_test(test_default_route),
        cmocka_unit_test(test_host_routes),
        cmocka_unit_test(test_16_and_24_boundaries),
        cmocka_unit_test(test_17_and_25_crossings),
        cmocka_unit_test(test_nested_every_order),
        cmocka_unit_test(test_pool_exhaustion),
        cmocka_unit_test(test_no_groups_at_all),
        cmocka_unit_test(test_pool_exhaustion_random),
        cmocka_unit_test(test_route_memory_full),
        cmocka_unit_test(test_random_routes),
        cmocka_unit_test(test_burst_matches_single),
        cmocka_unit_test(test_random_delete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
