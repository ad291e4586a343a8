/*
 * net/iface.h: the appliance's own interfaces, one per port: the address configured for it
 * (port.N.address, router mode) and the port's MAC, and per (port, core) the local stack's
 * counters. The NIC layer knows none of this: ports are devices, interfaces are net's.
 */
#ifndef WS_NET_IFACE_H
#define WS_NET_IFACE_H

#include <stdbool.h>
#include <stdint.h>

#include "net/local.h"
#include "param.h"

struct net_port {
    struct net_iface ifc; /* ifc.sink is set by lwIP's netif at sink init, before the loops run */
    bool has_address;
};

/* Per (port, core): written only by that core. */
struct net_queue_stats {
    struct net_local_stats local; /* ARP/ICMP answered, drops by reason (net/local.c) */
    uint64_t no_address;          /* frames on a port without an address: dropped */
} __attribute__((aligned(64)));

/* read-only once the loops run */
extern struct net_port net_ports[WS_MAX_PORTS];
extern struct net_queue_stats net_queue_stats[WS_MAX_PORTS][WS_MAX_CPUS];

static inline struct net_port *net_port(unsigned port)
{
    return &net_ports[port];
}

static inline struct net_queue_stats *net_queue_stats_of(unsigned port, unsigned core)
{
    return &net_queue_stats[port][core];
}

/* net_iface_init: every probed port's interface from its MAC and the baked addresses; one
 * console line per port ("portN: address A/L" or "portN: no address"). Boot core, after the
 * ports are up. */
int net_iface_init(void);

#endif
