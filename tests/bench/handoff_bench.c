/*
 * tests/bench/handoff_bench.c: what handing a frame to the sink core costs, with the real
 * net/handoff.c and kernel/pkb.c on two host threads pinned to two CPUs: a receiving core
 * hands buffers over, the sink core takes them in bursts and gives each back, the receiving
 * core reclaims them into its pool. Prints TSC cycles per frame for that round trip, first on
 * one thread (the code alone), then on two (with cache-line transfers and waiting): the whole
 * price of running lwIP on one core instead of steering with NIC filters
 * (docs/architecture.md, "The sink"). On a busy host the two-thread figure mostly measures
 * the scheduler.
 * Usage: handoff_bench [frames]   (default 20,000,000)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

#include "net/handoff.h"

#define POOL 4096
#define RX_CORE 1
#define SINK_CORE 0

static struct pkb_pool pool;
static volatile int done;
static unsigned long frames;

void loop_kick(unsigned core)
{
    (void)core; /* both threads spin: nobody sleeps */
}

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *sink_thread(void *arg)
{
    struct pkb *b[64];
    (void)arg;
    pin(SINK_CORE);
    while (!done) {
        unsigned n = handoff_take(b, 64);
        for (unsigned i = 0; i < n; i++) {
            handoff_buffer_done(b[i]);
        }
    }
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* single_thread: the same path with both roles on one thread, burst by burst: what the code
 * costs without cache-line transfers or waiting for the other core (a lower bound). */
static void single_thread(void)
{
    struct pkb *b[32];
    unsigned long done = 0;
    uint64_t c0 = __rdtsc();
    while (done < frames) {
        for (int i = 0; i < 32; i++) {
            handoff_to_sink(RX_CORE, pkb_alloc(&pool));
        }
        unsigned n = handoff_take(b, 32);
        for (unsigned i = 0; i < n; i++) {
            handoff_buffer_done(b[i]);
        }
        handoff_reclaim(RX_CORE);
        done += 32;
    }
    uint64_t c1 = __rdtsc();
    printf("handoff, one thread: %.1f TSC cycles per frame (lower bound: no cache-line "
           "transfers), pool full again: %s\n", (double)(c1 - c0) / done,
           pool.nfree == POOL ? "yes" : "NO");
}

int main(int argc, char **argv)
{
    frames = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000000UL;
    struct pkb *meta = calloc(POOL, sizeof(*meta));
    struct pkb **stack = calloc(POOL, sizeof(*stack));
    uint8_t *data = aligned_alloc(2048, (size_t)POOL * PKB_DATA_BYTES);
    if (!meta || !stack || !data || handoff_init(2, SINK_CORE, POOL) != 0) {
        fprintf(stderr, "handoff_bench: out of memory\n");
        return 1;
    }
    pkb_pool_init(&pool, RX_CORE, meta, stack, data, POOL);
    single_thread();
    uint64_t handed0 = handoff_stats_of(RX_CORE)->handed;
    pthread_t t;
    pthread_create(&t, NULL, sink_thread, NULL);
    pin(RX_CORE);

    unsigned long sent = 0;
    double t0 = now_s();
    uint64_t c0 = __rdtsc();
    while (sent < frames) {
        /* Never more in flight than the ring holds: measure the path, not the drop. */
        bool room = POOL - pool.nfree + 32 <= HANDOFF_RING;
        for (int i = 0; room && i < 32 && sent < frames; i++) { /* an RX burst's worth */
            struct pkb *b = pkb_alloc(&pool);
            if (b == NULL) {
                break;
            }
            handoff_to_sink(RX_CORE, b);
            sent++;
        }
        handoff_reclaim(RX_CORE);
    }
    while (pool.nfree != POOL) {
        handoff_reclaim(RX_CORE);
    }
    uint64_t c1 = __rdtsc();
    double t1 = now_s();
    done = 1;
    pthread_join(t, NULL);
    const struct handoff_stats *st = handoff_stats_of(RX_CORE);
    printf("handoff: %lu frames, %lu handed, %lu ring-full drops, %.1f ns and %.1f TSC cycles "
           "per frame (hand over + take + give back + reclaim), pool full again: %s\n",
           sent, (unsigned long)(st->handed - handed0), (unsigned long)st->ring_full,
           (t1 - t0) * 1e9 / sent, (double)(c1 - c0) / sent, pool.nfree == POOL ? "yes" : "NO");
    return pool.nfree == POOL ? 0 : 1;
}
