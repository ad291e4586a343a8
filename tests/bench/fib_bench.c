/*
 * tests/bench/fib_bench.c: nanoseconds and instructions per IPv4 route lookup (net/fib.c).
 * A host program; numbers only, never pass/fail. tests/bench/fib_bench.sh builds it with -O2,
 * runs the timings, then counts instructions with callgrind.
 *
 *   fib_bench                         time every (table, destinations, method) case: 10 million
 *                                     lookups each, best of 3 runs, ns per lookup
 *   fib_bench one TABLE DSTS METHOD N run N lookups of one case once, through bench_run (the
 *                                     function callgrind's --toggle-collect counts), and print
 *                                     the checksum; TABLE = random10k | realistic,
 *                                     DSTS = uniform | hit24 | mixed | inside,
 *                                     METHOD = single | burst | empty (harness only)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel/err.h"
#include "net/fib.h"

#define BENCH_DSTS (1u << 20)   /* destination array: 4 MiB, streamed sequentially */
#define BENCH_LOOKUPS 10000000u /* per timed case */
#define BENCH_CHUNK 1024u       /* results buffer: stays in L1 */
#define BENCH_RUNS 3            /* best of */
#define RANDOM_ROUTES 10000
#define RANDOM_GROUPS 16384

struct route {
    uint32_t prefix;
    uint8_t len;
};

struct table {
    const char *name;
    struct fib f;
    void *mem;
    struct route routes[RANDOM_ROUTES + 1024];
    unsigned nroutes;
};

static uint64_t rng_state = 1;

static uint32_t rnd32(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static uint32_t mask_of(unsigned len)
{
    return len ? ~0u << (32 - len) : 0;
}

static void die(const char *what, int rc)
{
    fprintf(stderr, "fib_bench: %s: %d\n", what, rc);
    exit(1);
}

static void table_add(struct table *t, uint32_t prefix, uint8_t len)
{
    int rc = fib_add(&t->f, prefix, len, (uint16_t)(t->nroutes + 1));
    if (rc != 0) {
        die("fib_add", rc);
    }
    t->routes[t->nroutes++] = (struct route){ prefix, len };
}

static void table_init(struct table *t, const char *name)
{
    memset(t, 0, sizeof(*t));
    t->name = name;
    size_t bytes = fib_mem_bytes(RANDOM_GROUPS);
    t->mem = malloc(bytes);
    if (t->mem == NULL) {
        die("malloc", 0);
    }
    int rc = fib_init(&t->f, t->mem, bytes, RANDOM_GROUPS);
    if (rc != 0) {
        die("fib_init", rc);
    }
}

/* 10,000 random routes, lengths as in the unit test: 80% in 8..28, the rest 0..32. */
static void build_random(struct table *t)
{
    table_init(t, "random10k");
    for (unsigned i = 0; i < RANDOM_ROUTES; i++) {
        uint8_t len = (rnd32() % 100 < 80) ? (uint8_t)(8 + rnd32() % 21) : (uint8_t)(rnd32() % 33);
        table_add(t, rnd32() & mask_of(len), len);
    }
}

/* A default route, 50 /16s, and 500 /24s clustered in 40 /16 blocks (20 of them also routed as
 * /16s): the shape of an enterprise or small ISP edge table. */
static void build_realistic(struct table *t)
{
    table_init(t, "realistic");
    uint32_t block[40];
    table_add(t, 0, 0);
    for (unsigned i = 0; i < 40; i++) {
        block[i] = rnd32() & 0xffff0000u;
        if (i < 20) {
            table_add(t, block[i], 16);
        }
    }
    for (unsigned i = 0; i < 30; i++) {
        table_add(t, rnd32() & 0xffff0000u, 16);
    }
    for (unsigned i = 0; i < 500; i++) {
        table_add(t, block[rnd32() % 40] | (rnd32() & 0x0000ff00u), 24);
    }
}

/* A random route of length len (any length if len > 32). */
static const struct route *pick_route(const struct table *t, unsigned len)
{
    for (;;) {
        const struct route *r = &t->routes[rnd32() % t->nroutes];
        if (len > 32 || r->len == len) {
            return r;
        }
    }
}

/*
 * Destination kinds. uniform: any address (in the realistic table almost all take the default
 * route: one load, perfectly predictable). hit24: inside a random /24 route (two loads, also
 * predictable). mixed: a third uniform, a third inside a /16 route, a third inside a /24 (the
 * lookup's path changes at random). inside: inside a random route of any length.
 */
static void make_dsts(const struct table *t, const char *kind, uint32_t *dst, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        const struct route *r;
        if (strcmp(kind, "uniform") == 0) {
            dst[i] = rnd32();
            continue;
        } else if (strcmp(kind, "hit24") == 0) {
            r = pick_route(t, 24);
        } else if (strcmp(kind, "mixed") == 0) {
            static const unsigned lens[3] = { 0, 16, 24 };
            r = pick_route(t, lens[rnd32() % 3]);
        } else {
            r = pick_route(t, 33);
        }
        dst[i] = r->prefix | (rnd32() & ~mask_of(r->len));
    }
}

/* How bench_run looks destinations up. */
enum bench_method {
    BENCH_EMPTY,  /* no lookup: out[i] = dst[i], the harness's own cost (callgrind baseline) */
    BENCH_SINGLE, /* fib_lookup, one at a time */
    BENCH_BURST,  /* fib_lookup_burst, BENCH_CHUNK at a time */
};

/* The measured function: n lookups from dst (wrapping around its BENCH_DSTS entries). Kept out
 * of line so callgrind can count exactly it (--toggle-collect=bench_run). */
__attribute__((noinline)) uint64_t bench_run(const struct fib *f, const uint32_t *dst, unsigned n,
                                             enum bench_method method)
{
    static int out[BENCH_CHUNK];
    uint64_t sum = 0;
    for (unsigned done = 0; done < n; done += BENCH_CHUNK) {
        const uint32_t *d = &dst[done % BENCH_DSTS];
        unsigned m = n - done < BENCH_CHUNK ? n - done : BENCH_CHUNK;
        if (method == BENCH_BURST) {
            fib_lookup_burst(f, d, out, m);
        } else if (method == BENCH_SINGLE) {
            for (unsigned i = 0; i < m; i++) {
                out[i] = fib_lookup(f, d[i]);
            }
        } else {
            for (unsigned i = 0; i < m; i++) {
                out[i] = (int)d[i];
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

static void time_case(const struct table *t, const char *kind, uint32_t *dst)
{
    make_dsts(t, kind, dst, BENCH_DSTS);
    for (int method = BENCH_SINGLE; method <= BENCH_BURST; method++) {
        double best = 1e30;
        uint64_t sum = 0;
        for (int run = 0; run < BENCH_RUNS; run++) {
            double t0 = now_ns();
            sum = bench_run(&t->f, dst, BENCH_LOOKUPS, (enum bench_method)method);
            double ns = (now_ns() - t0) / BENCH_LOOKUPS;
            best = ns < best ? ns : best;
        }
        printf("%-10s %-8s %-6s %6.2f ns/lookup  (groups used %u, checksum %llu)\n", t->name, kind,
               method == BENCH_BURST ? "burst" : "single", best,
               RANDOM_GROUPS - fib_groups_free(&t->f), (unsigned long long)sum);
    }
}

/* "one" mode: a single case, sized for callgrind (only the table it needs, n destinations). */
static int run_one(char **argv)
{
    static struct table t;
    unsigned n = (unsigned)strtoul(argv[5], NULL, 10);
    unsigned ndst = n < BENCH_DSTS ? n : BENCH_DSTS;
    uint32_t *dst = malloc((ndst ? ndst : 1) * sizeof(*dst));
    if (dst == NULL || n % BENCH_CHUNK != 0) {
        fprintf(stderr, "fib_bench: N must be a multiple of %u\n", BENCH_CHUNK);
        return 2;
    }
    if (strcmp(argv[2], "realistic") == 0) {
        build_realistic(&t);
    } else {
        build_random(&t);
    }
    enum bench_method method = strcmp(argv[4], "burst") == 0    ? BENCH_BURST
                               : strcmp(argv[4], "single") == 0 ? BENCH_SINGLE
                                                                : BENCH_EMPTY;
    make_dsts(&t, argv[3], dst, ndst);
    uint64_t sum = bench_run(&t.f, dst, n, method);
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
        fprintf(stderr, "usage: fib_bench [one TABLE DSTS METHOD N]\n");
        return 2;
    }
    static struct table tables[2];
    uint32_t *dst = malloc(BENCH_DSTS * sizeof(*dst));
    if (dst == NULL) {
        die("malloc", 0);
    }
    build_random(&tables[0]);
    build_realistic(&tables[1]);
    printf("%u lookups per case, best of %d; destinations from a %u-entry array\n", BENCH_LOOKUPS,
           BENCH_RUNS, BENCH_DSTS);
    time_case(&tables[0], "uniform", dst);
    time_case(&tables[0], "inside", dst);
    time_case(&tables[1], "uniform", dst);
    time_case(&tables[1], "hit24", dst);
    time_case(&tables[1], "mixed", dst);
    return 0;
}
