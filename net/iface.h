/*
 * net/iface.h: the appliance's own interfaces: one per port (untagged; the address configured
 * for it, port.N.address) and one per VLAN sub-interface (config `vlan = portN.VID a/len`),
 * each with its address and the port's MAC; per (port, core) the local stack's counters and
 * per (sub-interface, core) its tagged frames. The NIC layer knows none of this: ports are
 * devices, interfaces are net's.
 *
 * Interfaces are numbered as the config numbers them: port N is interface N, the j-th `vlan`
 * line is interface WS_MAX_PORTS + j. A route or neighbour names its interface by that number.
 */
#ifndef WS_NET_IFACE_H
#define WS_NET_IFACE_H

#include <stdbool.h>
#include <stdint.h>

#include "net/local.h"
#include "net/local6.h"
#include "param.h"

#define NET_MAX_IFACES (WS_MAX_PORTS + WS_MAX_VLANS)
#define NET_IFACE_NAME_BYTES 12 /* "port3.4094" */

struct net_port {
    struct net_iface ifc; /* ifc.port: the physical port; ifc.sink is set by lwIP's netif at sink
                           * init, before the loops run (ports only: the sink has no VLANs) */
    bool has_address;
    bool present;   /* its port was probed (a sub-interface of an absent port is not) */
    uint16_t vid;   /* 0: the port itself, untagged; 1..4094: a sub-interface, tagged so */
    uint8_t vlan;   /* a sub-interface's index in net_vlan_stats (interface - WS_MAX_PORTS) */
    uint16_t mtu;   /* largest IP datagram it sends (config portN.mtu; a VLAN has its port's) */
    bool has_address6;      /* IPv6 is on (config portN.address6; ports only, router mode) */
    struct net_iface6 ifc6; /* its IPv6 addresses: the global one and the link-local one */
    char name[NET_IFACE_NAME_BYTES]; /* "port0" or "port0.10" */
};

/* Per (port, core): written only by that core. */
struct net_queue_stats {
    struct net_local_stats local; /* ARP/ICMP answered, drops by reason (net/local.c) */
    struct net_local6_stats local6; /* ND/ICMPv6 answered, drops by reason (net/local6.c) */
    uint64_t no_address6;         /* IPv6 frames on a port without an IPv6 address: dropped */
    uint64_t nd_relayed;          /* a neighbour's address, an address claim or a router
                                   * solicitation reported on a core other than 0 (RSS spreads
                                   * IPv6), posted to core 0, their owner (net/nd_relay.h); not
                                   * a frame outcome */
    uint64_t nd_relay_full;       /* such a report dropped: the ring to core 0 was full */
    uint64_t no_address;          /* frames on an interface without an address: dropped */
    uint64_t vlan_unknown;        /* tagged for a VLAN ID with no sub-interface: dropped */
    uint64_t vlan_truncated;      /* TPID 0x8100 but shorter than a tagged header: dropped */
} __attribute__((aligned(64)));

/* Per (sub-interface, core): written only by that core. Its frames' outcomes are counted on
 * the port as any frame's (net_queue_stats, fwd_stats); these say which VLAN they used. */
struct net_vlan_stats {
    uint64_t rx;         /* tagged frames received for it (tag removed, then handled) */
    uint64_t tx;         /* frames sent with its tag: forwarded, replies, ARP, ICMP errors */
    uint64_t tx_no_room; /* a frame to send had no room for the tag: dropped (a bug) */
    uint64_t rx_hw;      /* of rx: the NIC took the tag off (vlan.offload) */
    uint64_t tx_hw;      /* of tx: the NIC put the tag on (vlan.offload) */
} __attribute__((aligned(64)));

/* read-only once the loops run */
extern struct net_port net_ifaces[NET_MAX_IFACES];
extern unsigned net_iface_count; /* WS_MAX_PORTS + the config's VLANs */
extern struct net_queue_stats net_queue_stats[WS_MAX_PORTS][WS_MAX_CPUS];
extern struct net_vlan_stats net_vlan_stats[WS_MAX_VLANS][WS_MAX_CPUS];
/* [port][vid]: 0 = no sub-interface, else its interface number (read on every tagged frame) */
extern uint8_t net_vlan_map[WS_MAX_PORTS][4096];

/* net_port: port N's own (untagged) interface. */
static inline struct net_port *net_port(unsigned port)
{
    return &net_ifaces[port];
}

/* net_iface_at: interface i (a port's, or a sub-interface for i >= WS_MAX_PORTS). */
static inline struct net_port *net_iface_at(unsigned i)
{
    return &net_ifaces[i];
}

/* net_iface_port_has_vlans: the config gives port sub-interfaces (read from the config alone:
 * usable before the ports are probed, to tell the NICs to strip and insert tags). */
bool net_iface_port_has_vlans(unsigned port);

/* net_vlan_iface: port's sub-interface for vid (1..4094), or NULL. Any core. */
static inline struct net_port *net_vlan_iface(unsigned port, uint16_t vid)
{
    uint8_t i = net_vlan_map[port][vid & 0x0fffu];
    return i != 0 ? &net_ifaces[i] : NULL;
}

static inline struct net_queue_stats *net_queue_stats_of(unsigned port, unsigned core)
{
    return &net_queue_stats[port][core];
}

static inline struct net_vlan_stats *net_vlan_stats_of(const struct net_port *np, unsigned core)
{
    return &net_vlan_stats[np->vlan][core];
}

/* net_queue_outcomes: frames st accounts for: the local stacks' and the interface drops. IPv6's
 * local stack sees a frame before the router does and hands on (ip6_passed) what is for
 * another host, which the router then counts: those are not outcomes here. */
static inline uint64_t net_queue_outcomes(const struct net_queue_stats *st)
{
    return net_local_total(&st->local) + net_local6_total(&st->local6) - st->local6.ip6_passed +
           st->no_address + st->no_address6 + st->vlan_unknown + st->vlan_truncated;
}

/* net_iface_init: every probed port's interface from its MAC and the baked addresses, then the
 * VLAN sub-interfaces; one console line each ("portN: address A/L", "portN: no address",
 * "portN.V: address A/L (VLAN V)"). Boot core, after the ports are up. */
int net_iface_init(void);

#endif
