/*
 * net/nexthop.h: where an IPv4 destination leaves the appliance. One FIB (net/fib, DIR-16-8-8)
 * over the ports' subnets, the appliance's own addresses and its subnets' broadcast addresses
 * (/32 entries, so one lookup decides local, drop or forward) and the baked routes; a next-hop
 * table the FIB's results index; the neighbour table ARP fills (net/neigh); and resolution of a
 * destination to an egress port and MAC, with ARP requests for what is unknown.
 *
 * Built once at boot (the net init level), read lock-free by every core afterwards. The
 * neighbour table has one writer, core 0: ARP is not IP, so RSS always delivers it to queue 0.
 * The forwarding path (apps/fwd) and lwIP's netif (net/lwip-port) both resolve through here.
 */
#ifndef WS_NEXTHOP_H
#define WS_NEXTHOP_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/nic/nic.h" /* nic_pool */
#include "net/fib.h"
#include "net/neigh.h"
#include "param.h"

struct nic_port;
struct pkb;

/* What a FIB entry leads to. */
enum nexthop_kind {
    NEXTHOP_FORWARD,             /* out of port, to gateway (or the destination itself) */
    NEXTHOP_LOCAL,               /* one of our addresses: the local stack */
    NEXTHOP_DIRECTED_BROADCAST,  /* a connected subnet's broadcast address: never forwarded */
};

struct net_port;

struct nexthop {
    struct nic_port *port;      /* the egress port */
    const struct net_port *ifc; /* the egress interface: the port's own, or a VLAN's on it */
    uint32_t gateway; /* 0: directly connected, the destination itself is the next hop */
    uint8_t kind;     /* enum nexthop_kind */
};

/* ARP requests for next hops, per egress port and sending core; written by that core only. */
struct nexthop_stats {
    uint64_t arp_requests_sent; /* at most one per next hop per 100 ms per core */
    uint64_t alloc_fail;        /* no buffer for an ARP request */
} __attribute__((aligned(64)));

/* read-only after boot (the FIB is NULL in wire mode: nothing is routed) */
extern struct fib *nexthop_fib;
extern struct nexthop nexthop_table[];
/* written by core 0 only (ARP), read by every core */
extern struct neigh_table nexthop_neighbours;

/* nexthop_lookup: the FIB's next-hop index for dst, or -1. Any core, fast path. */
static inline int nexthop_lookup(uint32_t dst)
{
    return nexthop_fib ? fib_lookup(nexthop_fib, dst) : -1;
}

/* nexthop_arp_request: ask for ip on interface ifc (an ARP request, tagged on a VLAN, through
 * core's TX batch), at most once per 100 ms per next hop per core. `now` in ns. Owning core. */
void nexthop_arp_request(unsigned core, const struct net_port *ifc, uint32_t ip, uint64_t now);

/* nexthop_send: frame b out of interface ifc through core's TX batch, tagged if ifc is a VLAN
 * (counted in its net_vlan_stats); false, b freed and counted, if the tag did not fit. */
bool nexthop_send(unsigned core, const struct net_port *ifc, struct pkb *b);

/* nexthop_frame_alloc: a buffer from core's pool for a frame we originate (ARP, ND, router
 * advertisements), marked as ours, not forwarded; NULL, counted in *alloc_fail, if the pool is
 * empty. */
static inline struct pkb *nexthop_frame_alloc(unsigned core, uint64_t *alloc_fail)
{
    struct pkb *b = pkb_alloc(nic_pool(core));
    if (b == NULL) {
        (*alloc_fail)++;
        return NULL;
    }
    pkb_tx_own(b); /* pkb_alloc leaves the last user's marks */
    return b;
}

enum nexthop_result {
    NEXTHOP_OK,         /* *port and mac filled */
    NEXTHOP_NO_ROUTE,   /* no route, or the address is ours or a broadcast, or the route
                         * leaves by a VLAN sub-interface (the sink speaks untagged only) */
    NEXTHOP_PORT_DOWN,  /* the egress port's link is down, or it has no queue for this core */
    NEXTHOP_UNRESOLVED, /* the next hop's MAC is unknown: an ARP request was sent */
};

/* nexthop_resolve: the port and MAC a datagram to dst leaves by, from `core` (lwIP's output:
 * the FIB, not lwIP's netif, decides). Owning core. */
enum nexthop_result nexthop_resolve(unsigned core, uint32_t dst, unsigned *port, uint8_t mac[6]);

/* nexthop_neighbour_known: dst's next hop has a MAC (the SYN-flood defence asks). Any core. */
bool nexthop_neighbour_known(uint32_t dst);

/* nexthop_stats_of: the ARP counters of port sent from core. */
const struct nexthop_stats *nexthop_stats_of(unsigned port, unsigned core);

/* nexthop_init: the neighbour table, and (router mode) the FIB from the ports' addresses and
 * the baked routes. Boot core, after the ports are up. */
int nexthop_init(void);

#endif
