/*
 * apps/fwd/fwd.h: the forwarding application: every core's datapath pass. Router mode (IPv4,
 * static routes, like DPDK l3fwd) or wire mode (port pairs, like XDP_REDIRECT / l2fwd), chosen
 * by the baked config. A frame is received, decided and transmitted by the same core, on that
 * core's own queues: no locks, no migration, per-flow order kept (RSS pins a flow to a core).
 */
#ifndef WS_FWD_H
#define WS_FWD_H

#include <stdbool.h>
#include <stdint.h>

#include "net/route.h"
#include "net/route6.h"
#include "param.h"

/* Per (ingress port, core) counters: written only by that core. Every received frame ends in
 * exactly one outcome: the local stack (counted by net/local), forwarded, or a drop here or in
 * route (ROUTE_FRAME_DROPS). */
struct fwd_stats {
    uint64_t forwarded;         /* handed to the egress TX ring (sent: egress tx_forwarded) */
    uint64_t no_route;          /* no FIB entry: dropped (ICMP net unreachable, rate limited) */
    uint64_t arp_unresolved;    /* next hop's MAC unknown: dropped, ARP request sent */
    uint64_t nd_unresolved;     /* IPv6 next hop's MAC unknown: dropped, solicitation sent */
    uint64_t dst_directed_broadcast; /* a connected subnet's broadcast address: not forwarded */
    uint64_t dst_other_port_address; /* to one of our addresses on another port: dropped
                                      * (router.answer_any_address = no) */
    uint64_t egress_no_queue;   /* the egress port has no TX queue for this core */
    uint64_t egress_link_down;  /* the egress port's link is down */
    uint64_t wire_no_peer;      /* wire mode: the port is in no pair */
    uint64_t frag_needed;       /* larger than the egress MTU with DF set: dropped (ICMP
                                 * fragmentation needed, with the MTU, rate limited) */
    uint64_t fragmented;        /* larger than the egress MTU: sent on as fragments */
    uint64_t frag_failed;       /* larger than the egress MTU and not cut (options leave no
                                 * room, an offset past 65535) or a buffer ran out: dropped */
    uint64_t pkt_too_big;       /* IPv6 larger than the egress MTU: dropped (ICMPv6 packet too
                                 * big, with the MTU, rate limited; routers never fragment) */
    uint64_t fragments_sent;    /* the fragments those made (not frame outcomes) */
    uint64_t icmp_errors_sent;  /* time exceeded / unreachable sent (not frame outcomes) */
    uint64_t icmp_ratelimited;  /* ICMP errors refused by the rate limiter */
    struct route_drop_stats route;
    struct route6_drop_stats route6;
} __attribute__((aligned(64)));

/* fwd_drops_total: frames the forwarder itself dropped (its own reasons above, not route's). */
static inline uint64_t fwd_drops_total(const struct fwd_stats *st)
{
    return st->no_route + st->arp_unresolved + st->nd_unresolved + st->dst_directed_broadcast +
           st->dst_other_port_address + st->egress_no_queue + st->egress_link_down +
           st->wire_no_peer + st->frag_needed + st->fragmented + st->frag_failed +
           st->pkt_too_big;
}

/* fwd_frame_outcomes: frames of (port, core) st accounts for: forwarded, dropped here, or
 * dropped by the IPv4 or IPv6 router checks. With net_queue_outcomes (the local stacks'), the
 * frames that queue received. */
static inline uint64_t fwd_frame_outcomes(const struct fwd_stats *st)
{
    return st->forwarded + fwd_drops_total(st) + route_frame_drops_total(&st->route) +
           route6_frame_drops_total(&st->route6);
}

/* fwd_init: per-core state (the ICMP error limiters). The FIB and neighbours are
 * net/nexthop's. Boot core, after the ports are up. Returns 0. */
int fwd_init(unsigned ncores);
/* fwd_poll_core: one pass over this core's RX queues on every port; returns frames received.
 * Fast path, core `core`. */
unsigned fwd_poll_core(unsigned core);
/* fwd_stats_of: counters of (port, core), for the console. */
const struct fwd_stats *fwd_stats_of(unsigned port, unsigned core);

#endif
