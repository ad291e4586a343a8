/* net/handoff.c: the rings between every core and the sink core (see header). */
#include "handoff.h"

#include <stdlib.h>

#include "err.h"
#include "loop.h"
#include "param.h"
#include "spsc.h"

static struct spsc_ring to_sink[WS_MAX_CPUS];   /* producer: core c; consumer: sink core */
static struct spsc_ring to_owner[WS_MAX_CPUS];  /* producer: sink core; consumer: core c */
static struct handoff_stats handoff_stats[WS_MAX_CPUS];
static int handoff_sink = -1;   /* read-only after init */
static unsigned handoff_ncores; /* read-only after init */
static unsigned handoff_next;   /* sink core: where the next take starts (fairness) */

static uint32_t pow2_at_least(uint32_t n)
{
    uint32_t p = 1;
    while (p < n) {
        p <<= 1;
    }
    return p;
}

int handoff_init(unsigned ncores, unsigned sink_core, uint32_t pool_buffers)
{
    uint32_t back = pow2_at_least(pool_buffers);
    for (unsigned c = 0; c < ncores; c++) {
        void **a = calloc(HANDOFF_RING, sizeof(void *));
        void **b = calloc(back, sizeof(void *));
        if (a == NULL || b == NULL) {
            return WS_ERR_NO_MEMORY;
        }
        spsc_init(&to_sink[c], a, HANDOFF_RING);
        spsc_init(&to_owner[c], b, back);
    }
    handoff_ncores = ncores;
    handoff_sink = (int)sink_core;
    return WS_OK;
}

int handoff_sink_core(void)
{
    return handoff_sink;
}

void handoff_to_sink(unsigned core, struct pkb *b)
{
    struct handoff_stats *st = &handoff_stats[core];
    if (handoff_sink < 0) {
        st->no_sink++;
        pkb_free(b, (uint16_t)core);
        return;
    }
    if (!spsc_push(&to_sink[core], b)) {
        st->ring_full++;
        pkb_free(b, (uint16_t)core);
        return;
    }
    st->handed++;
    if ((int)core != handoff_sink) {
        loop_kick((unsigned)handoff_sink);
    }
}

unsigned handoff_take(struct pkb **out, unsigned max)
{
    unsigned n = 0;
    for (unsigned i = 0; i < handoff_ncores && n < max; i++) {
        unsigned c = (handoff_next + i) % handoff_ncores;
        n += spsc_pop_burst(&to_sink[c], (void **)out + n, max - n);
    }
    handoff_next = (handoff_next + 1) % (handoff_ncores ? handoff_ncores : 1);
    return n;
}

bool handoff_pending(void)
{
    for (unsigned c = 0; c < handoff_ncores; c++) {
        if (spsc_count(&to_sink[c])) {
            return true;
        }
    }
    return false;
}

void handoff_buffer_done(struct pkb *b)
{
    unsigned owner = b->owner;
    if ((int)owner == handoff_sink) {
        pkb_free(b, (uint16_t)owner);
        handoff_stats[owner].reclaimed++;
        return;
    }
    /* Cannot fail: the ring holds as many entries as the owner has buffers. */
    spsc_push(&to_owner[owner], b);
    loop_kick(owner);
}

unsigned handoff_reclaim(unsigned core)
{
    void *b[64];
    unsigned total = 0, n;
    if (core >= handoff_ncores) {
        return 0;
    }
    do {
        n = spsc_pop_burst(&to_owner[core], b, 64);
        for (unsigned i = 0; i < n; i++) {
            pkb_free(b[i], (uint16_t)core);
        }
        total += n;
    } while (n == 64);
    handoff_stats[core].reclaimed += total;
    return total;
}

bool handoff_returns_pending(unsigned core)
{
    return core < handoff_ncores && spsc_count(&to_owner[core]) != 0;
}

const struct handoff_stats *handoff_stats_of(unsigned core)
{
    return &handoff_stats[core];
}

/* Every core frees what the sink core handed back; returned buffers waiting keep it awake. */
WS_POLLER(handoff, .order = POLLER_ORDER_HANDOFF, .poll = handoff_reclaim,
          .arm = handoff_returns_pending);
