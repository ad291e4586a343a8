/*
 * net/nd_relay.h: what neighbour discovery tells a core that does not own the IPv6 tables,
 * carried to the one that does. RSS spreads IPv6 flows over every core (so neighbour
 * solicitations, advertisements and router solicitations arrive on any of them), but the
 * neighbour cache, duplicate address detection and router advertisements have one writer,
 * core 0. A core other than 0 posts each report (struct net6_learn) on its ring to core 0, which
 * applies it on its next pass; a full ring drops the report, counted (the neighbour is asked
 * again, or announces itself again). Core 0 applies its own at once.
 */
#ifndef WS_ND_RELAY_H
#define WS_ND_RELAY_H

#include <stdint.h>

#include "net/local6.h"

#define ND_RELAY_RING 64 /* reports in flight from one core to core 0 */

/* nd_relay_report: what net_local6_input reported about a frame from port, on core (any):
 * applied now on core 0, else posted to core 0 (counted in *relayed, or in *dropped when the
 * ring is full). `now` in ns. */
void nd_relay_report(unsigned core, unsigned port, const struct net6_learn *l, uint64_t now,
                     uint64_t *relayed, uint64_t *dropped);

/* nd_relay_drain: core 0 applies every report posted to it; returns how many (its poller's
 * pass; the host simulation calls it as the loop would). Core 0. */
unsigned nd_relay_drain(void);

/* nd_relay_init: rings for ncores cores. Boot core, before the loops start. */
int nd_relay_init(unsigned ncores);

#endif
