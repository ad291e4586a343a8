/*
 * net/nexthop6.h: where an IPv6 destination leaves the appliance: the IPv6 FIB (net/fib6) over
 * the ports' prefixes, the appliance's global addresses (/128 entries: local) and the baked
 * route6 lines; the IPv6 next-hop table its results index; the neighbour cache that neighbour
 * discovery fills (net/neigh, keyed as below); and resolution, with neighbour solicitations
 * for what is unknown. The IPv6 counterpart of net/nexthop, built at the same init level.
 *
 * Link-local addresses are only unique on their link, so a link-local neighbour's key carries
 * its interface: bits 16..31 of fe80::/10, zero in every link-local address (RFC 4291 2.5.6),
 * hold the interface number + 1 (the "embedded scope" of BSD's stacks). Global addresses are
 * keyed as they are.
 *
 * One writer of the neighbour cache, core 0: RSS spreads IPv6 over every core, and what the
 * others learn reaches core 0 through net/nd_relay.h.
 */
#ifndef WS_NEXTHOP6_H
#define WS_NEXTHOP6_H

#include <stdbool.h>
#include <stdint.h>

#include "net/fib6.h"
#include "net/neigh.h"
#include "net/nexthop.h"

struct nic_port;
struct net_port;
struct net6_learn;

struct nexthop6 {
    struct nic_port *port;      /* the egress port */
    const struct net_port *ifc; /* the egress interface */
    uint8_t gateway[16];        /* the next hop, when has_gateway; else the destination is */
    bool has_gateway;
    uint8_t kind;               /* enum nexthop_kind (net/nexthop.h): FORWARD or LOCAL */
};

/* Neighbour solicitations, per egress port and sending core; written by that core only. */
struct nexthop6_stats {
    uint64_t ns_sent;    /* at most one per next hop per 100 ms per core, and probes */
    uint64_t alloc_fail; /* no buffer for a solicitation */
} __attribute__((aligned(64)));

/* read-only after boot (NULL: IPv6 routes nothing, no port has an IPv6 address) */
extern struct fib6 *nexthop6_fib;
extern struct nexthop6 nexthop6_table[];
/* written by core 0 only (neighbour discovery), read by every core */
extern struct neigh_table nexthop6_neighbours;

/* nexthop6_lookup: the FIB's next-hop index for dst (16 bytes), or -1. Any core. */
static inline int nexthop6_lookup(const uint8_t *dst)
{
    return nexthop6_fib ? fib6_lookup(nexthop6_fib, dst) : -1;
}

/* nexthop6_key: the neighbour-cache key of address a on interface iface (see above). */
struct neigh_key nexthop6_key(unsigned iface, const uint8_t *a);

/* nexthop6_next: the address a datagram to dst leaves hop for: its gateway, or dst itself. */
static inline const uint8_t *nexthop6_next(const struct nexthop6 *hop, const uint8_t *dst)
{
    return hop->has_gateway ? hop->gateway : dst;
}

/* nexthop6_solicit: ask for target on interface ifc (a neighbour solicitation to its
 * solicited-node group through core's TX batch), at most once per 100 ms per target per core.
 * `now` in ns. Owning core. */
void nexthop6_solicit(unsigned core, const struct net_port *ifc, const uint8_t *target,
                      uint64_t now);

/* nexthop6_learn: apply what net_local6_input reported (a neighbour's link-layer address from
 * a solicitation or an advertisement, RFC 4861 7.2.3 and 7.2.5) to the cache. Core 0 only. */
void nexthop6_learn(unsigned iface, const struct net6_learn *l, uint64_t now);

/* nexthop6_resolve: the port and MAC a datagram to dst (16 bytes) leaves by, from `core`
 * (lwIP's IPv6 output: the FIB decides, as nexthop_resolve for IPv4); an unknown next hop gets
 * a solicitation and NEXTHOP_UNRESOLVED. Link-local destinations have no FIB entry: no route.
 * Owning core. */
enum nexthop_result nexthop6_resolve(unsigned core, const uint8_t *dst, unsigned *port,
                                     uint8_t mac[6]);

/* nexthop6_neighbour_known: dst's next hop has a MAC (the SYN-flood defence asks). Any core. */
bool nexthop6_neighbour_known(const uint8_t *dst);

/* nexthop6_stats_of: the solicitation counters of port sent from core. */
const struct nexthop6_stats *nexthop6_stats_of(unsigned port, unsigned core);

/* nexthop6_routes_view: the IPv6 rows of the console's `routes` (nothing without IPv6).
 * Console core. */
void nexthop6_routes_view(void);

/* nexthop6_init: the cache, and (router mode, some port with an IPv6 address) the FIB from the
 * ports' addresses and the baked route6 lines. Boot core, after the interfaces. */
int nexthop6_init(void);

#endif
