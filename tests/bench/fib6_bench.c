/*
 * tests/bench/fib6_bench.c: nanoseconds and instructions per IPv6 route lookup (net/fib6.c).
 * A host program; numbers only, never pass/fail. tests/bench/fib6_bench.sh builds it with -O2,
 * runs the timings, then counts instructions with callgrind.
 *
 *   fib6_bench                         time every (table, destinations) case: 2 Mi lookups each,
 *                                      best of 3 runs, ns per lookup and lookups per second
 *   fib6_bench one TABLE DSTS METHOD N run N lookups of one case once, through bench_run (the
 *                                      function callgrind's --toggle-collect counts), and print
 *                                      the checksum; TABLE = dfz1k | dfz100k | edge,
 *                                      DSTS = inside | hit48 | hit32 | in16 | uniform,
 *                                      METHOD = single | empty (harness only)
 *
 * The tables. dfz1k and dfz100k: exactly 1,000 and 100,000 routes shaped like the IPv6
 * default-free zone (no default route): allocations of /19../36 (mostly /32 and /29; one per
 * five routes) under 53 of the /16s the RIRs hand out, four in five also announced as
 * themselves, and more-specifics inside them in the DFZ's proportions: about half /48, then
 * /32, /44, /40, /29, /46, /47, some /56../64 and a few /128; in tables for 1,024 and 131,072
 * routes (2 Ki and 256 Ki slots), above the firmware's 256 (what the design costs as the table
 * grows: the "lookup cost for 1k and 100k routes"). edge: a site's border router: a
 * default route, two /32s and a /40, 40 connected /64s with three /128 neighbours each,
 * customers' /48s and /56s up to 200 routes; in a table of the firmware's capacity (256
 * routes, NEXTHOP6_FIB_ROUTES in net/nexthop6.c).
 *
 * Every table is built from its own seed and every destination array from one seed, so the
 * "one" mode's table and its first N destinations are those of the timed case.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel/err.h"
#include "net/fib6.h"

#define BENCH_DSTS (1u << 20)     /* destination array: 16 MiB, streamed sequentially */
#define BENCH_LOOKUPS (1u << 21)  /* per timed case */
#define BENCH_CHUNK 1024u         /* results buffer: stays in L1 */
#define BENCH_RUNS 3              /* best of */
#define DFZ_ALLOC_SHARE 5u        /* dfz*: an allocation (/19../36) per 5 routes */
#define EDGE_MAX_ROUTES 256u      /* edge's: the firmware's (net/nexthop6.c), 12 KiB of slots */

struct route {
    uint8_t p[16];
    uint8_t len;
};

struct table {
    const char *name;
    struct fib6 f;
    void *mem;
    struct route *routes; /* every distinct route added */
    unsigned nroutes;
    unsigned by_len[FIB6_MAX_LEN + 1];
};

static uint64_t rng_state = 1;

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

static void die(const char *what, int rc)
{
    fprintf(stderr, "fib6_bench: %s: %d\n", what, rc);
    exit(1);
}

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

/* dst = p with its bits beyond len random. */
static void random_inside(uint8_t *dst, const uint8_t *p, unsigned len)
{
    for (unsigned i = 0; i < 16; i++) {
        uint8_t m = byte_mask(len, i);
        dst[i] = (uint8_t)((p[i] & m) | ((uint8_t)rnd32() & ~m));
    }
}

/* A table for max_routes routes: its hash has the power of two >= 2 * max_routes slots, so the
 * capacity, not the routes held, sets the memory a missing probe lands in. */
static void table_init(struct table *t, const char *name, unsigned max_routes)
{
    memset(t, 0, sizeof(*t));
    t->name = name;
    size_t bytes = fib6_mem_bytes(max_routes);
    t->mem = malloc(bytes);
    t->routes = malloc(max_routes * sizeof(*t->routes));
    if (t->mem == NULL || t->routes == NULL) {
        die("malloc", 0);
    }
    int rc = fib6_init(&t->f, t->mem, bytes, max_routes);
    if (rc != 0) {
        die("fib6_init", rc);
    }
}

/* Add p masked to len; a prefix already there is not counted twice. */
static void table_add(struct table *t, const uint8_t *p, unsigned len)
{
    struct route r;
    for (unsigned i = 0; i < 16; i++) {
        r.p[i] = p[i] & byte_mask(len, i);
    }
    r.len = (uint8_t)len;
    unsigned before = fib6_route_count(&t->f);
    int rc = fib6_add(&t->f, r.p, r.len, (uint16_t)(t->nroutes + 1));
    if (rc != 0) {
        die("fib6_add", rc);
    }
    if (fib6_route_count(&t->f) == before) {
        return; /* there already: only its next hop changed */
    }
    t->routes[t->nroutes++] = r;
    t->by_len[len]++;
}

/* A length from a table of (length, weight). */
struct len_weight {
    uint8_t len;
    uint16_t weight;
};

static unsigned pick_len(const struct len_weight *w, unsigned n)
{
    unsigned total = 0;
    for (unsigned i = 0; i < n; i++) {
        total += w[i].weight;
    }
    unsigned x = rnd32() % total;
    for (unsigned i = 0; i < n; i++) {
        if (x < w[i].weight) {
            return w[i].len;
        }
        x -= w[i].weight;
    }
    return w[n - 1].len;
}

/* The /16s routes live under: 2001 (the early allocations) and the RIRs' /12s, the busiest
 * (RIPE's 2a00::/12, ARIN's 2600::/12, APNIC's 2400::/12) in full. */
static unsigned dfz_16s(uint16_t *out)
{
    unsigned n = 0;
    out[n++] = 0x2001;
    for (unsigned i = 0; i < 16; i++) {
        out[n++] = (uint16_t)(0x2a00 + i);
        out[n++] = (uint16_t)(0x2400 + i);
    }
    for (unsigned i = 0; i < 12; i++) {
        out[n++] = (uint16_t)(0x2600 + i);
    }
    for (unsigned i = 0; i < 6; i++) {
        out[n++] = (uint16_t)(0x2800 + i);
    }
    out[n++] = 0x2c0f;
    out[n++] = 0x2c0e;
    return n;
}

/* Weights per mille, after the DFZ's shape (2020s: /48 about half, /32 the next, /44 and /40;
 * /29 the usual allocation since 2012). */
static const struct len_weight dfz_alloc_lens[] = {
    { 19, 2 }, { 20, 5 }, { 22, 3 }, { 24, 5 }, { 26, 4 }, { 27, 3 }, { 28, 40 },
    { 29, 190 }, { 30, 20 }, { 31, 15 }, { 32, 650 }, { 33, 20 }, { 34, 18 }, { 35, 10 },
    { 36, 15 },
};
static const struct len_weight dfz_more_lens[] = {
    { 37, 6 },  { 38, 10 }, { 39, 8 },  { 40, 70 }, { 41, 8 },  { 42, 15 }, { 43, 8 },
    { 44, 100 }, { 45, 15 }, { 46, 35 }, { 47, 35 }, { 48, 640 }, { 52, 4 }, { 56, 20 },
    { 60, 3 },  { 64, 20 }, { 96, 1 },  { 112, 1 }, { 124, 1 }, { 127, 1 }, { 128, 6 },
};
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* A DFZ-shaped table of exactly routes routes, in a table for max_routes (>= routes). */
static void build_dfz(struct table *t, const char *name, unsigned routes, unsigned max_routes,
                      uint64_t seed)
{
    rng_state = seed;
    table_init(t, name, max_routes);
    uint16_t s16[64];
    unsigned n16 = dfz_16s(s16);
    unsigned nalloc = routes / DFZ_ALLOC_SHARE;
    unsigned busy = nalloc / 20 ? nalloc / 20 : 1; /* the allocations holding many routes */
    /* Allocations: 1 in 5 announced only through more-specifics (kept out of the table). */
    struct route *alloc = malloc(nalloc * sizeof(*alloc));
    if (alloc == NULL) {
        die("malloc", 0);
    }
    for (unsigned i = 0; i < nalloc; i++) {
        uint8_t p[16] = { 0 };
        uint16_t top = s16[rnd32() % n16];
        p[0] = (uint8_t)(top >> 8);
        p[1] = (uint8_t)top;
        random_inside(p, p, 16);
        unsigned len = pick_len(dfz_alloc_lens, N_OF(dfz_alloc_lens));
        for (unsigned b = 0; b < 16; b++) {
            alloc[i].p[b] = p[b] & byte_mask(len, b);
        }
        alloc[i].len = (uint8_t)len;
        if (rnd32() % 5 != 0) {
            table_add(t, alloc[i].p, len);
        }
    }
    /* More-specifics: inside an allocation, a few allocations holding many of them. */
    while (t->nroutes < routes) {
        unsigned a = rnd32() % 4 == 0 ? rnd32() % busy : rnd32() % nalloc;
        unsigned len = pick_len(dfz_more_lens, N_OF(dfz_more_lens));
        if (len <= alloc[a].len) {
            continue;
        }
        uint8_t p[16];
        random_inside(p, alloc[a].p, alloc[a].len);
        table_add(t, p, len);
    }
    free(alloc);
    if (fib6_route_count(&t->f) != routes) {
        die("route count", (int)fib6_route_count(&t->f));
    }
}

static void build_dfz1k(struct table *t)
{
    build_dfz(t, "dfz1k", 1000, 1024, 1);
}

static void build_dfz100k(struct table *t)
{
    build_dfz(t, "dfz100k", 100000, 131072, 2);
}

static void parse6(const char *text, uint8_t *out)
{
    if (inet_pton(AF_INET6, text, out) != 1) {
        die("bad literal", 0);
    }
}

/* A site's border router: default route, the provider's and the site's aggregates, 40
 * connected /64s with 3 neighbours (/128) each, and customers' /48s and /56s inside the site's
 * /32 up to 200 routes. */
static void build_edge(struct table *t)
{
    rng_state = 3;
    table_init(t, "edge", EDGE_MAX_ROUTES);
    uint8_t p[16];
    parse6("::", p);
    table_add(t, p, 0);
    parse6("2001:db8::", p);
    table_add(t, p, 32);
    parse6("2a00:1450::", p);
    table_add(t, p, 32);
    parse6("2001:db8:100::", p);
    table_add(t, p, 40);
    for (unsigned i = 0; i < 40; i++) {
        parse6("2001:db8:100::", p);
        p[6] = (uint8_t)(i >> 8);
        p[7] = (uint8_t)i;
        table_add(t, p, 64);
        for (unsigned h = 1; h <= 3; h++) {
            p[15] = (uint8_t)h;
            table_add(t, p, 128);
        }
    }
    while (t->nroutes < 200) {
        parse6("2001:db8:200::", p);
        p[4] = (uint8_t)rnd32();
        p[5] = (uint8_t)rnd32();
        p[6] = (uint8_t)rnd32();
        table_add(t, p, rnd32() % 2 ? 48 : 56);
    }
}

/* A random route of length len (any length if len > 128). */
static const struct route *pick_route(const struct table *t, unsigned len)
{
    if (len <= FIB6_MAX_LEN && t->by_len[len] == 0) {
        len = FIB6_MAX_LEN + 1;
    }
    for (;;) {
        const struct route *r = &t->routes[rnd32() % t->nroutes];
        if (len > FIB6_MAX_LEN || r->len == len) {
            return r;
        }
    }
}

/*
 * Destination kinds. inside: inside a random route of any length (the longest match is that
 * route or a longer one inside it). hit48: inside a random /48 (dfz*: the common case of real
 * traffic, a probe per present length from /128 down to /48). hit32: inside a random /32
 * (more probes before the match). in16: anywhere under the /16 of a random route (matches an
 * allocation, or nothing). uniform: any address (almost every one misses the first level).
 */
static void make_dsts(const struct table *t, const char *kind, uint8_t (*dst)[16], unsigned n)
{
    rng_state = 4;
    for (unsigned i = 0; i < n; i++) {
        const struct route *r;
        unsigned len;
        if (strcmp(kind, "uniform") == 0) {
            uint64_t a = rnd64(), b = rnd64();
            memcpy(dst[i], &a, 8);
            memcpy(dst[i] + 8, &b, 8);
            continue;
        } else if (strcmp(kind, "hit48") == 0) {
            r = pick_route(t, 48);
            len = r->len;
        } else if (strcmp(kind, "hit32") == 0) {
            r = pick_route(t, 32);
            len = r->len;
        } else if (strcmp(kind, "in16") == 0) {
            r = pick_route(t, FIB6_MAX_LEN + 1);
            len = r->len < 16 ? r->len : 16;
        } else {
            r = pick_route(t, FIB6_MAX_LEN + 1);
            len = r->len;
        }
        random_inside(dst[i], r->p, len);
    }
}

/* How bench_run looks destinations up. */
enum bench_method {
    BENCH_EMPTY,  /* no lookup: out[i] = a byte of dst[i], the harness's own cost */
    BENCH_SINGLE, /* fib6_lookup, one at a time */
};

/* The measured function: n lookups from dst (wrapping around its BENCH_DSTS entries). Kept out
 * of line so callgrind can count exactly it (--toggle-collect=bench_run). */
__attribute__((noinline)) uint64_t bench_run(const struct fib6 *f, const uint8_t (*dst)[16],
                                             unsigned n, enum bench_method method)
{
    static int out[BENCH_CHUNK];
    uint64_t sum = 0;
    for (unsigned done = 0; done < n; done += BENCH_CHUNK) {
        const uint8_t (*d)[16] = &dst[done % BENCH_DSTS];
        unsigned m = n - done < BENCH_CHUNK ? n - done : BENCH_CHUNK;
        if (method == BENCH_SINGLE) {
            for (unsigned i = 0; i < m; i++) {
                out[i] = fib6_lookup(f, d[i]);
            }
        } else {
            for (unsigned i = 0; i < m; i++) {
                out[i] = d[i][15];
            }
        }
        /* Consume the results so the lookups cannot be optimized away. */
        for (unsigned i = 0; i < m; i++) {
            sum += (uint32_t)out[i];
        }
    }
    return sum;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* What the destinations ask of the table: the share that finds a route, and the mean number
 * of present lengths inside their /16's bounds (the most probes a lookup can make there). */
static void dst_profile(const struct table *t, const uint8_t (*dst)[16], unsigned n,
                        double *hit_share, double *range)
{
    unsigned hits = 0;
    uint64_t lens = 0;
    for (unsigned i = 0; i < n; i++) {
        uint32_t e = t->f.l1[(uint32_t)dst[i][0] << 8 | dst[i][1]];
        unsigned max = (e >> FIB6_E_MAX_SHIFT) & FIB6_E_CODE_MASK;
        unsigned min = (e >> FIB6_E_MIN_SHIFT) & FIB6_E_CODE_MASK;
        unsigned first = t->f.first_le[max], end = t->f.end_ge[min];
        lens += end > first ? end - first : 0;
        hits += fib6_lookup(&t->f, dst[i]) >= 0;
    }
    *hit_share = 100.0 * hits / n;
    *range = (double)lens / n;
}

static void time_case(const struct table *t, const char *kind, uint8_t (*dst)[16])
{
    make_dsts(t, kind, dst, BENCH_DSTS);
    double hit, range;
    dst_profile(t, (const uint8_t (*)[16])dst, BENCH_DSTS, &hit, &range);
    double best = 1e30;
    uint64_t sum = 0;
    for (int run = 0; run < BENCH_RUNS; run++) {
        double t0 = now_ns();
        sum = bench_run(&t->f, (const uint8_t (*)[16])dst, BENCH_LOOKUPS, BENCH_SINGLE);
        double ns = (now_ns() - t0) / BENCH_LOOKUPS;
        best = ns < best ? ns : best;
    }
    printf("%-7s %-8s %7.2f ns/lookup %7.2f M lookups/s  (found %5.1f%%, lengths in range "
           "%5.1f, checksum %llu)\n",
           t->name, kind, best, 1e3 / best, hit, range, (unsigned long long)sum);
}

static void describe(const struct table *t)
{
    printf("%s: %u routes, %u lengths > /16 present; by length:", t->name,
           fib6_route_count(&t->f), t->f.nplens);
    unsigned shown = 0;
    for (unsigned len = 0; len <= FIB6_MAX_LEN; len++) {
        if (t->by_len[len] * 200u >= t->nroutes) { /* >= 0.5% */
            printf("%s /%u %.1f%%", shown++ % 8 ? "," : "\n   ", len,
                   100.0 * t->by_len[len] / t->nroutes);
        }
    }
    printf("\n");
}

/* "one" mode: a single case, sized for callgrind (only the table it needs, n destinations). */
static int run_one(char **argv)
{
    static struct table t;
    unsigned n = (unsigned)strtoul(argv[5], NULL, 10);
    unsigned ndst = n < BENCH_DSTS ? n : BENCH_DSTS;
    uint8_t (*dst)[16] = malloc((ndst ? ndst : 1) * sizeof(*dst));
    if (dst == NULL || n % BENCH_CHUNK != 0) {
        fprintf(stderr, "fib6_bench: N must be a multiple of %u\n", BENCH_CHUNK);
        return 2;
    }
    if (strcmp(argv[2], "edge") == 0) {
        build_edge(&t);
    } else if (strcmp(argv[2], "dfz1k") == 0) {
        build_dfz1k(&t);
    } else if (strcmp(argv[2], "dfz100k") == 0) {
        build_dfz100k(&t);
    } else {
        fprintf(stderr, "fib6_bench: TABLE is dfz1k, dfz100k or edge\n");
        return 2;
    }
    enum bench_method method = strcmp(argv[4], "single") == 0 ? BENCH_SINGLE : BENCH_EMPTY;
    make_dsts(&t, argv[3], dst, ndst);
    uint64_t sum = bench_run(&t.f, (const uint8_t (*)[16])dst, n, method);
    printf("%s %s %s: %u lookups, checksum %llu\n", t.name, argv[3], argv[4], n,
           (unsigned long long)sum);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "one") == 0) {
        return run_one(argv);
    }
    if (argc != 1) {
        fprintf(stderr, "usage: fib6_bench [one TABLE DSTS METHOD N]\n");
        return 2;
    }
    static struct table tables[3];
    uint8_t (*dst)[16] = malloc(BENCH_DSTS * sizeof(*dst));
    if (dst == NULL) {
        die("malloc", 0);
    }
    build_dfz1k(&tables[0]);
    double t0 = now_ns();
    build_dfz100k(&tables[1]);
    double build_ms = (now_ns() - t0) / 1e6;
    build_edge(&tables[2]);
    describe(&tables[0]);
    describe(&tables[1]);
    printf("   (built in %.0f ms: %.2f us per fib6_add)\n", build_ms,
           build_ms * 1e3 / tables[1].nroutes);
    describe(&tables[2]);
    printf("%u lookups per case, best of %d; destinations from a %u-entry array\n", BENCH_LOOKUPS,
           BENCH_RUNS, BENCH_DSTS);
    static const char *const dfz_kinds[] = { "inside", "hit48", "hit32", "in16", "uniform" };
    for (unsigned t = 0; t < 2; t++) {
        for (unsigned k = 0; k < N_OF(dfz_kinds); k++) {
            time_case(&tables[t], dfz_kinds[k], dst);
        }
    }
    time_case(&tables[2], "inside", dst);
    time_case(&tables[2], "hit48", dst);
    time_case(&tables[2], "uniform", dst);
    return 0;
}
