/* net/nd_relay.c: neighbour discovery reports carried to core 0 (see header). */
#include "net/nd_relay.h"

#include <string.h>

#include "dma.h"
#include "err.h"
#include "init.h"
#include "loop.h"
#include "net/dad6.h"
#include "net/nexthop6.h"
#include "net/ra6.h"
#include "param.h"
#include "spsc.h"
#include "time.h"

/* One report in flight: which port it came from, and what it said. */
struct nd_note {
    uint16_t port;
    struct net6_learn learn;
};

/*
 * One ring per producing core. The ring carries pointers into `notes`, which has twice the
 * ring's slots: spsc_pop_burst frees n ring slots before core 0 reads the n notes they point
 * at, and with 2 x ND_RELAY_RING notes used in turn the producer's next ND_RELAY_RING writes can
 * never reach those n.
 */
struct nd_relay {
    struct spsc_ring ring;
    void *slots[ND_RELAY_RING];
    struct nd_note notes[2 * ND_RELAY_RING];
    uint32_t next; /* producer only: the note to write next */
};

static struct nd_relay *nd_relays; /* [ncores]; entry 0 unused (core 0 applies its own) */
static unsigned nd_ncores;

/* nd_relay_apply: core 0 acts on a report, as the frame's own core would if it were core 0. */
static void nd_relay_apply(unsigned port, const struct net6_learn *l, uint64_t now)
{
    if (l->valid) {
        nexthop6_learn(port, l, now);
    } else if (l->claims_ours) {
        dad6_claimed(port, l, now);
    }
    if (l->router_solicited) {
        ra6_solicited(port, now); /* its sender, if any, was learned above */
    }
}

void nd_relay_report(unsigned core, unsigned port, const struct net6_learn *l, uint64_t now,
                     uint64_t *relayed, uint64_t *dropped)
{
    if (core == 0) {
        nd_relay_apply(port, l, now);
        return;
    }
    struct nd_relay *r = core < nd_ncores ? &nd_relays[core] : NULL;
    struct nd_note *n = r ? &r->notes[r->next % (2 * ND_RELAY_RING)] : NULL;
    if (n == NULL) {
        (*dropped)++;
        return;
    }
    n->port = (uint16_t)port;
    n->learn = *l;
    if (!spsc_push(&r->ring, n)) {
        (*dropped)++;
        return;
    }
    r->next++;
    (*relayed)++;
    loop_kick(0); /* core 0 may be halted (adaptive mode) */
}

unsigned nd_relay_drain(void)
{
    unsigned done = 0;
    uint64_t now = time_ns();
    for (unsigned c = 1; c < nd_ncores; c++) {
        void *got[ND_RELAY_RING];
        unsigned n = spsc_pop_burst(&nd_relays[c].ring, got, ND_RELAY_RING);
        for (unsigned i = 0; i < n; i++) {
            const struct nd_note *note = got[i];
            nd_relay_apply(note->port, &note->learn, now);
        }
        done += n;
    }
    return done;
}

/* Core 0's pass: every report the other cores posted. */
static unsigned nd_relay_poll(unsigned core)
{
    (void)core;
    return nd_relay_drain();
}

/* Before core 0 halts: a report already waiting keeps it awake (the kick may have come before
 * the halt was armed). */
static bool nd_relay_arm(unsigned core)
{
    (void)core;
    for (unsigned c = 1; c < nd_ncores; c++) {
        if (spsc_count(&nd_relays[c].ring) != 0) {
            return true;
        }
    }
    return false;
}

int nd_relay_init(unsigned ncores)
{
    nd_relays = dma_alloc(ncores * sizeof(*nd_relays), 64);
    if (nd_relays == NULL) {
        return WS_ERR_NO_MEMORY;
    }
    for (unsigned c = 0; c < ncores; c++) {
        spsc_init(&nd_relays[c].ring, nd_relays[c].slots, ND_RELAY_RING);
    }
    nd_ncores = ncores;
    return WS_OK;
}

WS_POLLER(nd_relay, .order = POLLER_ORDER_HOUSEKEEPING, .runs_on = poller_on_core0,
          .poll = nd_relay_poll, .arm = nd_relay_arm);

static int nd_relay_init_step(struct init_ctx *ctx)
{
    return nd_relay_init(ctx->ncores);
}
WS_INIT(nd_relay, INIT_NET + 12, true, nd_relay_init_step);
