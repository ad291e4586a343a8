/*
 * net/handoff.h: how frames for the appliance's own TCP/UDP reach the sink core, and how
 * their buffers go home. RSS spreads flows over every core, but lwIP runs on one, so each core
 * has a single-producer ring to the sink core (its frames, in arrival order), and the sink core
 * has one ring back to each core for the buffers lwIP has finished with: a buffer is only ever
 * freed into its pool by its owner (kernel/pkb.h). Neither side locks or waits; a core asleep in
 * adaptive mode is woken by an IPI when something is put on its ring (loop_kick).
 *
 * The return ring of a core holds as many entries as that core has buffers, so a return can
 * never find it full. A full handoff ring drops the frame on the producing core, counted.
 */
#ifndef WS_HANDOFF_H
#define WS_HANDOFF_H

#include <stdbool.h>
#include <stdint.h>

#include "pkb.h"

/* Per producing core; written by that core only (except `returned`: the owner core, too). */
struct handoff_stats {
    uint64_t handed;        /* frames put on the ring to the sink core */
    uint64_t ring_full;     /* frames dropped: the ring to the sink core was full */
    uint64_t no_sink;       /* frames dropped: no sink running (sink off, or not up yet) */
    uint64_t reclaimed;     /* buffers the sink core gave back, freed into this core's pool */
} __attribute__((aligned(64)));

#define HANDOFF_RING 1024 /* frames in flight from one core to the sink core */

/* handoff_init: rings for ncores cores, the sink on sink_core; pool_buffers bounds what a
 * core can ever have lent out. Boot core, before the loops start. */
int handoff_init(unsigned ncores, unsigned sink_core, uint32_t pool_buffers);
/* handoff_sink_core: the sink core, or -1 when there is no sink. */
int handoff_sink_core(void);

/* handoff_to_sink: from `core`, pass b to the sink core. Consumes b: on failure it is freed
 * here and counted. */
void handoff_to_sink(unsigned core, struct pkb *b);
/* handoff_take: sink core; up to max frames, taking turns among the producing cores. */
unsigned handoff_take(struct pkb **out, unsigned max);
/* handoff_pending: sink core; true if any ring holds a frame (before halting). */
bool handoff_pending(void);
/* handoff_buffer_done: sink core; b goes back to its owner (its own pool if that is us). */
void handoff_buffer_done(struct pkb *b);
/* handoff_reclaim: on `core`, free the buffers the sink core returned; returns how many. */
unsigned handoff_reclaim(unsigned core);
/* handoff_returns_pending: true if the sink core has returned buffers `core` has not
 * freed yet (adaptive mode re-checks this before halting). */
bool handoff_returns_pending(unsigned core);

const struct handoff_stats *handoff_stats_of(unsigned core);

#endif
