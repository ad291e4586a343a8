/* apps/fwd/fwd.c: router and wire-mode forwarding, run to completion per core (see header). */
#include "fwd.h"

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "console.h"
#include "dma.h"
#include "drivers/nic/nic.h"
#include "drivers/nic/nic_tx.h"
#include "err.h"
#include "init.h"
#include "loop.h"
#include "net/fib.h"
#include "net/handoff.h"
#include "net/iface.h"
#include "net/inet.h"
#include "net/inet6.h"
#include "net/local.h"
#include "net/neigh.h"
#include "net/nexthop.h"
#include "net/nd_relay.h"
#include "net/nexthop6.h"
#include "net/vlan.h"
#include "time.h"

#define ETH_HDR 14
#define ETH_TYPE_OFF 12
#define IP_DST_OFF (ETH_HDR + 16)

/* Per-core state: the ICMP error limiter. (Frames go out through the NIC layer's TX batcher,
 * next hops and neighbours are net/nexthop's.) */
struct fwd_core {
    struct route_ratelimit icmp;
} __attribute__((aligned(64)));

static struct fwd_core fwd_cores[WS_MAX_CPUS];
/* written only by core c in column c */
static struct fwd_stats fwd_stats[WS_MAX_PORTS][WS_MAX_CPUS];

const struct fwd_stats *fwd_stats_of(unsigned port, unsigned core)
{
    return &fwd_stats[port][core];
}

/* --- init (boot core) ------------------------------------------------------------------------ */

int fwd_init(unsigned ncores)
{
    uint64_t now = time_ns();

    for (unsigned c = 0; c < ncores; c++) {
        route_ratelimit_init(&fwd_cores[c].icmp, CONFIG_ROUTER_ICMP_PER_SEC,
                             CONFIG_ROUTER_ICMP_BURST, now);
    }
    return WS_OK;
}

/* A wire-mode port is a bump in the wire: it must take every frame, whoever it is for. A router
 * with IPv6 takes every multicast frame: neighbour solicitations go to solicited-node groups
 * (net/local6 keeps the groups of our addresses and counts the rest). */
static int fwd_configure_nics(struct init_ctx *ctx)
{
    static const struct {
        int has;
        uint8_t addr[16];
        int prefix;
    } addrs6[] = CONFIG_PORT_ADDRESSES6;
    bool ipv6 = false;
    for (unsigned i = 0; i < sizeof(addrs6) / sizeof(addrs6[0]); i++) {
        ipv6 |= addrs6[i].has != 0;
    }
    (void)ctx;
    struct nic_config cfg = { .rss_key = NULL, .promiscuous = CONFIG_MODE_WIRE,
                              .all_multicast = CONFIG_MODE_ROUTER && ipv6 };
    /* wire mode never touches a tag: only a router's ports with sub-interfaces strip them */
    for (unsigned i = 0; i < NIC_MAX_PORTS; i++) {
        cfg.vlan_hw[i] = CONFIG_MODE_ROUTER && CONFIG_VLAN_OFFLOAD && net_iface_port_has_vlans(i);
    }
    nic_configure(&cfg);
    return 0;
}
WS_INIT(fwd_nics, INIT_CONFIG, false, fwd_configure_nics);

static int fwd_init_step(struct init_ctx *ctx)
{
    return fwd_init(ctx->ncores);
}
WS_INIT(fwd, INIT_APPS, true, fwd_init_step); /* routing table from the baked routes */

/* --- router mode ----------------------------------------------------------------------------- */

/* fwd_icmp_error: turn frame b, received on interface np of port `in`, into an ICMP error
 * about itself and send it back out of that interface, if the limiter allows; else free it.
 * mtu: the next-hop MTU of a "fragmentation needed" (type 3 code 4), unused otherwise. */
static void fwd_icmp_error(struct fwd_core *fc, struct fwd_stats *st, const struct net_port *np,
                           unsigned core, struct pkb *b, uint8_t type, uint8_t code, uint16_t mtu,
                           uint64_t now)
{
    uint16_t n = 0;
    if (!route_ratelimit_allow(&fc->icmp, now)) {
        st->icmp_ratelimited++;
    } else if (type == ROUTE_ICMP_DEST_UNREACH && code == ROUTE_ICMP_CODE_FRAG_NEEDED) {
        n = route_icmp_frag_needed(b->data, PKB_DATA_BYTES, b->data, b->len, mtu, np->ifc.ip,
                                   np->ifc.mac, &st->route);
    } else {
        n = route_icmp_error(b->data, PKB_DATA_BYTES, b->data, b->len, type, code, np->ifc.ip,
                             np->ifc.mac, &st->route);
    }
    if (n == 0) {
        pkb_free(b, (uint16_t)core);
        return;
    }
    b->len = n;
    st->icmp_errors_sent++;
    nexthop_send(core, np, b);
}

/* fwd_fragment: datagram b, Ethernet addresses rewritten, cut into fragments for hop's MTU
 * and sent (f prepared by route_frag_init); one outcome for the datagram. Consumes b. */
static void fwd_fragment(struct fwd_stats *st, const struct nexthop *hop, unsigned core,
                         struct pkb *b, struct route_frag *f)
{
    bool whole = true;
    for (;;) {
        struct pkb *fr = pkb_alloc(nic_pool(core));
        if (fr == NULL) {
            whole = false; /* the pool's alloc_fail counts it too */
            break;
        }
        /* room for a tag: nexthop_send puts one on for a VLAN */
        uint16_t n = route_frag_next(f, fr->data, PKB_DATA_BYTES - NET_VLAN_TAG_BYTES);
        if (n == 0) {
            pkb_free(fr, (uint16_t)core);
            break;
        }
        fr->len = n;
        pkb_tx_own(fr); /* fragments are not the datagram: counted here, not at completion */
        st->fragments_sent++;
        nexthop_send(core, hop->ifc, fr);
    }
    if (whole) {
        st->fragmented++;
    } else {
        st->frag_failed++;
    }
    pkb_free(b, (uint16_t)core);
}

/* fwd_too_big: datagram b (checked, TTL lowered) is larger than hop's MTU: fragmented (RFC 791
 * 2.3), or with DF set dropped with ICMP fragmentation needed giving the MTU (RFC 1191 section
 * 4, RFC 1812 5.2.6). Consumes b. */
static void fwd_too_big(struct fwd_core *fc, struct fwd_stats *st, const struct net_port *np,
                        const struct nexthop *hop, unsigned core, struct pkb *b,
                        const uint8_t mac[6], uint64_t now)
{
    uint16_t frag = inet_load_be16(b->data + INET_ETH_HDR_BYTES + 6);
    struct route_frag f;
    if ((frag & INET_IPV4_FLAG_DF) != 0) {
        st->frag_needed++;
        fwd_icmp_error(fc, st, np, core, b, ROUTE_ICMP_DEST_UNREACH, ROUTE_ICMP_CODE_FRAG_NEEDED,
                       hop->ifc->mtu, now);
    } else if (!route_frag_init(&f, b->data, hop->ifc->mtu)) {
        st->frag_failed++;
        pkb_free(b, (uint16_t)core);
    } else {
        route_eth_rewrite(b->data, hop->port->mac, mac);
        fwd_fragment(st, hop, core, b, &f);
    }
}

/* fwd_route_one: a frame the router may forward (IPv4, not for us), received on interface np;
 * nh is the FIB's answer for its destination, looked up before the header was checked.
 * Consumes b. */
static void fwd_route_one(struct fwd_core *fc, struct fwd_stats *st, const struct net_port *np,
                          unsigned core, struct pkb *b, uint64_t now, int nh)
{
    uint32_t dst;
    enum route_verdict v = route_ipv4_check_and_decrement(b->data, b->len, &st->route, &dst);
    if (v == ROUTE_TTL_EXPIRED) {
        fwd_icmp_error(fc, st, np, core, b, ROUTE_ICMP_TIME_EXCEEDED, ROUTE_ICMP_CODE_TTL_EXCEEDED,
                       0, now);
        return;
    }
    if (v != ROUTE_FORWARD) {
        pkb_free(b, (uint16_t)core);
        return;
    }
    if (nh < 0) {
        st->no_route++;
        fwd_icmp_error(fc, st, np, core, b, ROUTE_ICMP_DEST_UNREACH, ROUTE_ICMP_CODE_NET_UNREACH,
                       0, now);
        return;
    }
    const struct nexthop *hop = &nexthop_table[nh];
    if (hop->kind == NEXTHOP_DIRECTED_BROADCAST) {
        st->dst_directed_broadcast++; /* RFC 2644: not forwarded by default */
        pkb_free(b, (uint16_t)core);
        return;
    }
    struct nic_port *out = hop->port;
    uint32_t next = hop->gateway ? hop->gateway : dst;
    uint8_t mac[6];
    if (core >= out->nqueues) {
        st->egress_no_queue++;
    } else if (!out->link_up || !nic_queue_usable(out, core)) {
        st->egress_link_down++; /* or the port is being reset, or dead */
    } else if (!neigh_lookup_use(&nexthop_neighbours, next, mac)) {
        st->arp_unresolved++;
        nexthop_arp_request(core, hop->ifc, next, now);
    } else if (inet_load_be16(b->data + INET_ETH_HDR_BYTES + 2) > hop->ifc->mtu) {
        fwd_too_big(fc, st, np, hop, core, b, mac, now);
        return;
    } else {
        route_eth_rewrite(b->data, out->mac, mac);
        b->forwarded = 1;
        st->forwarded++; /* a tag that did not fit is counted again, in tx_no_room (a bug) */
        nexthop_send(core, hop->ifc, b);
        return;
    }
    pkb_free(b, (uint16_t)core);
}

/* --- router mode, IPv6 ------------------------------------------------------------------------ */

/* fwd_icmp6_error: turn frame b, received on interface np, into an ICMPv6 error about itself
 * from np's global address (so traceroute6 names the hop) and send it back, if the limiter
 * allows; else free it. param: the MTU of a packet too big, else 0. */
static void fwd_icmp6_error(struct fwd_core *fc, struct fwd_stats *st, const struct net_port *np,
                            unsigned core, struct pkb *b, uint8_t type, uint8_t code,
                            uint32_t param, uint64_t now)
{
    uint16_t n = 0;
    if (!route_ratelimit_allow(&fc->icmp, now)) {
        st->icmp_ratelimited++;
    } else {
        n = route6_icmp_error(b->data, PKB_DATA_BYTES, b->data, b->len, type, code, param,
                              np->ifc6.global, np->ifc6.mac, &st->route6);
    }
    if (n == 0) {
        pkb_free(b, (uint16_t)core);
        return;
    }
    b->len = n;
    st->icmp_errors_sent++;
    nexthop_send(core, np, b);
}

/* fwd_route6_out: datagram b (checked, hop limit lowered) to FIB entry hop: out of its port
 * to the next hop's MAC, or a counted drop (a solicitation for an unknown next hop, packet too
 * big for the egress MTU). Consumes b. */
static void fwd_route6_out(struct fwd_core *fc, struct fwd_stats *st, const struct net_port *np,
                           unsigned core, struct pkb *b, uint64_t now,
                           const struct nexthop6 *hop, const uint8_t *dst)
{
    struct nic_port *out = hop->port;
    const uint8_t *next = nexthop6_next(hop, dst);
    uint8_t mac[6];
    unsigned ip_len = INET_IPV6_HDR_BYTES + inet_load_be16(b->data + INET_ETH_HDR_BYTES + 4);
    if (core >= out->nqueues) {
        st->egress_no_queue++;
    } else if (!out->link_up || !nic_queue_usable(out, core)) {
        st->egress_link_down++;
    } else if (!neigh_lookup_use_key(&nexthop6_neighbours, nexthop6_key(out->index, next), mac)) {
        st->nd_unresolved++;
        nexthop6_solicit(core, hop->ifc, next, now);
    } else if (ip_len > hop->ifc->mtu) {
        st->pkt_too_big++; /* RFC 8200 section 5: only the source fragments */
        fwd_icmp6_error(fc, st, np, core, b, INET6_ICMP_PACKET_TOO_BIG, 0, hop->ifc->mtu, now);
        return;
    } else {
        route_eth_rewrite(b->data, out->mac, mac);
        b->forwarded = 1;
        st->forwarded++;
        nexthop_send(core, hop->ifc, b);
        return;
    }
    pkb_free(b, (uint16_t)core);
}

/* fwd_route6_one: an IPv6 frame for another host, received on interface np: checked, hop limit
 * lowered, looked up and sent on, or answered with an ICMPv6 error. Consumes b. */
static void fwd_route6_one(struct fwd_core *fc, struct fwd_stats *st, const struct net_port *np,
                           unsigned core, struct pkb *b, uint64_t now)
{
    const uint8_t *dst;
    enum route6_verdict v = route6_check_and_decrement(b->data, b->len, &st->route6, &dst);
    if (v == ROUTE6_HOP_LIMIT_EXPIRED) {
        fwd_icmp6_error(fc, st, np, core, b, INET6_ICMP_TIME_EXCEEDED, INET6_ICMP_CODE_HOP_LIMIT,
                        0, now);
        return;
    }
    if (v != ROUTE6_FORWARD) {
        pkb_free(b, (uint16_t)core);
        return;
    }
    int nh = nexthop6_lookup(dst);
    if (nh < 0) {
        st->no_route++;
        fwd_icmp6_error(fc, st, np, core, b, INET6_ICMP_DEST_UNREACH, INET6_ICMP_CODE_NO_ROUTE, 0,
                        now);
        return;
    }
    if (nexthop6_table[nh].kind == NEXTHOP_LOCAL) {
        st->dst_other_port_address++; /* ours on another port, router.answer_any_address = no */
        pkb_free(b, (uint16_t)core);
        return;
    }
    fwd_route6_out(fc, st, np, core, b, now, &nexthop6_table[nh], dst);
}

/* fwd_router_frame6: an IPv6 frame of interface np: the local stack first (neighbour
 * discovery, echo, our addresses), which hands back what is for another host. What it learned
 * about a neighbour goes to the cache on its writer core, a router solicitation to net/ra6. */
static void fwd_router_frame6(struct fwd_core *fc, struct nic_port *in, const struct net_port *np,
                              unsigned core, struct pkb *b, uint64_t now)
{
    struct net_queue_stats *ns = net_queue_stats_of(in->index, core);
    if (!np->has_address6) {
        ns->no_address6++;
        pkb_free(b, (uint16_t)core);
        return;
    }
    struct net6_learn learn = { .valid = false };
    uint16_t out_len = 0;
    enum net_verdict v = net_local6_input(&np->ifc6, b->data, b->len, PKB_DATA_BYTES, &out_len,
                                          &ns->local6, &learn);
    if (learn.valid || learn.claims_ours || learn.router_solicited) {
        /* the IPv6 tables' writer is core 0: applied here there, else posted to it */
        nd_relay_report(core, in->index, &learn, now, &ns->nd_relayed, &ns->nd_relay_full);
    }
    if (v == NET_REPLY) {
        b->len = out_len;
        nexthop_send(core, np, b);
    } else if (v == NET_PASS) {
        fwd_route6_one(fc, &fwd_stats[in->index][core], np, core, b, now);
    } else if (v == NET_SINK) {
        handoff_to_sink(core, b); /* TCP/UDP to our address: lwIP's core (apps/sink) */
    } else {
        pkb_free(b, (uint16_t)core);
    }
}

/* fwd_vlan_of: the interface VLAN ID vid on port `in` belongs to (a priority tag, VID 0: the
 * port itself), or NULL, counted, when it has none. */
static const struct net_port *fwd_vlan_of(const struct nic_port *in, unsigned core, uint16_t vid)
{
    const struct net_port *np = vid == 0 ? net_port(in->index) : net_vlan_iface(in->index, vid);
    if (np == NULL) {
        net_queue_stats_of(in->index, core)->vlan_unknown++;
    }
    return np;
}

/* fwd_vlan_ingress: the interface a tagged frame from port `in` belongs to, its tag removed;
 * NULL (the frame freed, counted on the port) when it has none. */
static __attribute__((noinline)) const struct net_port *
fwd_vlan_ingress(const struct nic_port *in, unsigned core, struct pkb *b)
{
    const struct net_port *np = NULL;
    if (b->len < NET_VLAN_TAGGED_HDR_BYTES) {
        net_queue_stats_of(in->index, core)->vlan_truncated++;
    } else {
        np = fwd_vlan_of(in, core, net_vlan_vid(b->data));
    }
    if (np == NULL) {
        pkb_free(b, (uint16_t)core);
        return NULL;
    }
    net_vlan_pop(b->data, &b->len);
    if (np->vid != 0) {
        net_vlan_stats_of(np, core)->rx++;
    }
    return np;
}

/* The VLAN a burst's frames with a stripped tag came for, remembered from the last such frame
 * (most of a burst is one VLAN's). */
struct fwd_vlan_memo {
    uint32_t vid;               /* FWD_VLAN_NONE: nothing remembered */
    const struct net_port *np;  /* its interface */
    struct net_vlan_stats *vs;  /* its counters on this core; NULL for a priority tag */
};
#define FWD_VLAN_NONE 0x10000u /* above every TCI: no VLAN, no tag */

/* fwd_vlan_ingress_hw_slow: fwd_vlan_memo for the VLAN ID vid: its interface, or NULL (b
 * freed, counted on the port) when it has none. */
static __attribute__((noinline)) const struct net_port *
fwd_vlan_ingress_hw_slow(const struct nic_port *in, unsigned core, struct pkb *b, uint16_t vid,
                         struct fwd_vlan_memo *vm)
{
    const struct net_port *np = fwd_vlan_of(in, core, vid);
    if (np == NULL) {
        pkb_free(b, (uint16_t)core);
        return NULL;
    }
    *vm = (struct fwd_vlan_memo){ .vid = vid, .np = np,
                                  .vs = np->vid != 0 ? net_vlan_stats_of(np, core) : NULL };
    return np;
}

/* fwd_vlan_ingress_hw: fwd_vlan_ingress for a frame whose tag the NIC took off (in b->vlan). */
static inline __attribute__((always_inline)) const struct net_port *
fwd_vlan_ingress_hw(const struct nic_port *in, unsigned core, struct pkb *b,
                    struct fwd_vlan_memo *vm)
{
    uint16_t vid = b->vlan & NET_VLAN_VID_MASK;
    if (vid != vm->vid && fwd_vlan_ingress_hw_slow(in, core, b, vid, vm) == NULL) {
        return NULL;
    }
    if (vm->vs != NULL) {
        vm->vs->rx++;
        vm->vs->rx_hw++;
    }
    return vm->np;
}

/* fwd_router_frame: a frame of interface np (port `in`'s own, or a VLAN's with the tag
 * already off) to the local stack (ARP, our addresses, everything not IPv4) or routed. */
static void fwd_router_frame(struct fwd_core *fc, struct nic_port *in, const struct net_port *np,
                             unsigned core, struct pkb *b, uint64_t now)
{
    struct fwd_stats *st = &fwd_stats[in->index][core];
    uint16_t type = b->len >= INET_ETH_HDR_BYTES ? inet_load_be16(b->data + ETH_TYPE_OFF) : 0;
    if (type == INET_ETHERTYPE_IPV6 && np->vid == 0) {
        fwd_router_frame6(fc, in, np, core, b, now);
        return;
    }
    bool ipv4 = b->len >= IP_DST_OFF + 4 && type == INET_ETHERTYPE_IPV4;
    if (ipv4 && np->has_address) {
        /* addressed interfaces exist only in router mode, which always has a FIB */
        int nh = fib_lookup(nexthop_fib, inet_load_be32(b->data + IP_DST_OFF));
        if (nh < 0 || nexthop_table[nh].kind != NEXTHOP_LOCAL) {
            fwd_route_one(fc, st, np, core, b, now, nh);
            return;
        }
        if (nexthop_table[nh].ifc != np && !CONFIG_ROUTER_ANSWER_ANY_ADDRESS) {
            st->dst_other_port_address++;
            pkb_free(b, (uint16_t)core);
            return;
        }
    }
    uint16_t out_len = 0;
    enum net_verdict v = NET_DROP;
    struct net_queue_stats *ns = net_queue_stats_of(in->index, core);
    if (!np->has_address) {
        ns->no_address++;
    } else {
        v = net_local_input(&np->ifc, core == 0 ? &nexthop_neighbours : NULL, b->data, b->len,
                            PKB_DATA_BYTES, &out_len, &ns->local, now);
    }
    if (v == NET_REPLY) {
        b->len = out_len;
        nexthop_send(core, np, b);
    } else if (v == NET_SINK) {
        handoff_to_sink(core, b); /* to lwIP's core; the buffer comes back to us later */
    } else {
        pkb_free(b, (uint16_t)core);
    }
}

/*
 * The router's fast path: a frame that route_ipv4_fast_check passes, bound for a FIB entry that
 * forwards out of a usable port to a next hop whose MAC is known, is forwarded here with the
 * same counters the full path would give it (forwarded, on the ingress port). Anything else,
 * and any doubt, goes to fwd_router_frame unchanged. A tagged frame takes it too once its tag
 * is off (fwd_vlan_ingress), and a next hop on a VLAN gets its tag after the rewrite.
 *
 * Most of a router's traffic goes to few next hops, so the burst remembers the last one it
 * resolved: its egress port (checked usable), its MAC (one neighbour lookup per next hop per
 * burst, as read at that lookup), the 12 bytes of Ethernet addresses a frame to it gets and its
 * interface's VLAN. Fast frames gather in runs, in the burst's own array, and go to the egress
 * ring as the wire path's do (nic_tx_forward). A run is handed on when the egress changes,
 * before a frame that takes the full path (which queues through the batcher: a later run would
 * overtake it), and at the burst's end, so frames leave each port in the order they came.
 */
struct fwd_burst_hop {
    int nh;               /* the FIB result it was resolved for; -1: nothing remembered */
    uint32_t next;        /* the next hop's address */
    struct nic_port *out; /* its egress port */
    const struct net_port *ifc; /* its egress interface */
    uint16_t vid;         /* ifc's VLAN: the tag frames to it get, 0 for none */
    uint16_t mtu;         /* ifc's MTU: a larger datagram takes the full path */
    bool nic_tags;        /* out's NIC puts the tag on (vlan.offload) */
    struct net_vlan_stats *vs; /* ifc's counters on this core, for a VLAN */
    uint8_t eth[12];      /* destination then source MAC, as a frame's first 12 bytes */
};

/* fwd_fast_resolve: remember next hop `next` of FIB entry nh (a FORWARD one) if the fast path
 * can send to it now: its port's link is up, this core's queue on it usable, its MAC known. */
static bool fwd_fast_resolve(unsigned core, int nh, uint32_t next, struct fwd_burst_hop *memo)
{
    struct nic_port *out = nexthop_table[nh].port;
    memo->nh = -1;
    if (!out->link_up || !nic_queue_usable(out, core) ||
        !neigh_lookup_use(&nexthop_neighbours, next, memo->eth)) {
        return false;
    }
    __builtin_memcpy(memo->eth + 6, out->mac, 6);
    memo->nh = nh;
    memo->next = next;
    memo->out = out;
    memo->ifc = nexthop_table[nh].ifc;
    memo->vid = memo->ifc->vid;
    memo->mtu = memo->ifc->mtu;
    memo->nic_tags = out->vlan_hw;
    memo->vs = memo->vid != 0 ? net_vlan_stats_of(memo->ifc, core) : NULL;
    return true;
}

/* fwd_fast_rewrite: what forwarding does to a fast frame: TTL, then the Ethernet addresses. */
static inline __attribute__((always_inline)) void fwd_fast_rewrite(struct pkb *b,
                                                                   const struct fwd_burst_hop *memo)
{
    route_ipv4_ttl_decrement(b->data + INET_ETH_HDR_BYTES);
    __builtin_memcpy(b->data, memo->eth, sizeof(memo->eth));
}

/* fwd_fast_vlan_out: the fast path's end for a next hop on a VLAN whose NIC does not insert
 * tags: rewritten and tagged in memory, or NULL (b untouched, for the full path to count) if
 * the tag would not fit. */
static __attribute__((noinline, cold)) struct nic_port *
fwd_fast_vlan_out(struct pkb *b, const struct fwd_burst_hop *memo)
{
    if ((unsigned)b->len + NET_VLAN_TAG_BYTES > PKB_DATA_BYTES) {
        return NULL;
    }
    fwd_fast_rewrite(b, memo);
    net_vlan_push(b->data, &b->len, PKB_DATA_BYTES, memo->vid);
    memo->vs->tx++;
    return memo->out;
}

/* fwd_fast_nic_tag: the fast path's end for a next hop on a VLAN whose NIC inserts the tag:
 * rewritten and marked for it (fwd_fast_run_send), forwarded (the first of a run may go by
 * the ring's checked path). */
static inline __attribute__((always_inline)) struct nic_port *
fwd_fast_nic_tag(struct pkb *b, const struct fwd_burst_hop *memo)
{
    fwd_fast_rewrite(b, memo);
    b->tx_flags = PKB_TX_VLAN;
    b->forwarded = 1;
    b->vlan = memo->vid;
    memo->vs->tx++;
    memo->vs->tx_hw++;
    return memo->out;
}

/* fwd_router_fast: forward b if the fast path can (TTL and Ethernet addresses rewritten, tagged
 * for a VLAN) and return its egress port; NULL, b untouched, for the full path to decide.
 * csum_ok: the NIC verified the IPv4 header checksum. */
static inline __attribute__((always_inline)) struct nic_port *
fwd_router_fast(unsigned core, struct pkb *b, bool csum_ok, struct fwd_burst_hop *memo)
{
    uint32_t dst = route_ipv4_fast_check(b->data, b->len, csum_ok);
    int nh = dst != 0 ? fib_lookup(nexthop_fib, dst) : -1;
    if (nh < 0 || nexthop_table[nh].kind != NEXTHOP_FORWARD) {
        return NULL;
    }
    uint32_t gw = nexthop_table[nh].gateway;
    uint32_t next = gw != 0 ? gw : dst;
    if ((nh != memo->nh || next != memo->next) && !fwd_fast_resolve(core, nh, next, memo)) {
        return NULL;
    }
    if (inet_load_be16(b->data + INET_ETH_HDR_BYTES + 2) > memo->mtu) {
        return NULL; /* too big for the egress: fragmented or refused by the full path */
    }
    if (__builtin_expect(memo->vid != 0, 0)) {
        return memo->nic_tags ? fwd_fast_nic_tag(b, memo) : fwd_fast_vlan_out(b, memo);
    }
    fwd_fast_rewrite(b, memo);
    return memo->out;
}

/* fwd_router_fast_untagged: fwd_router_fast for a frame whose tag came off here (its checksum
 * is summed: what a NIC reports for a tagged frame is not relied on), out of line. */
static __attribute__((noinline)) struct nic_port *
fwd_router_fast_untagged(unsigned core, struct pkb *b, struct fwd_burst_hop *memo)
{
    return fwd_router_fast(core, b, false, memo);
}

/*
 * The IPv6 fast path, on the same terms as IPv4's: a frame route6_fast_check passes (global or
 * unique-local addresses, no extension header, hop limit above 1), not from one of our
 * addresses, bound for a FIB6 entry that forwards out of a usable port to a next hop whose MAC
 * is known, within the egress MTU, is forwarded here; anything else goes to the full path
 * (net/local6 first) unchanged. Local6 never sees these frames: its ip6_passed counts only the
 * full path's. IPv6 interfaces are ports, never VLANs (net/iface), so no tag is involved.
 */
struct fwd_burst_hop6 {
    int nh;               /* the FIB6 result it was resolved for; -1: nothing remembered */
    uint8_t next[16];     /* the next hop's address */
    struct nic_port *out; /* its egress port */
    uint16_t mtu;         /* its interface's MTU */
    uint8_t eth[12];      /* destination then source MAC, as a frame's first 12 bytes */
};

/* fwd_fast6_src_ours: src is one of our global addresses (a loop or a spoof: the full path
 * drops it as ip6_src_is_ours). Link-local ones never pass route6_fast_check. */
static inline bool fwd_fast6_src_ours(const struct net_iface6 *ifc, const uint8_t *src)
{
    if (ifc->has_global && inet6_eq(src, ifc->global)) {
        return true;
    }
    for (unsigned i = 0; i < ifc->n_also_ours; i++) {
        if (inet6_eq(src, ifc->also_ours[i])) {
            return true;
        }
    }
    return false;
}

/* fwd_fast6_resolve: remember next hop `next` of FIB6 entry nh (a FORWARD one) if the fast
 * path can send to it now: its port's link is up, this core's queue on it usable, its MAC
 * known. */
static bool fwd_fast6_resolve(unsigned core, int nh, const uint8_t *next,
                              struct fwd_burst_hop6 *memo)
{
    const struct nexthop6 *hop = &nexthop6_table[nh];
    struct nic_port *out = hop->port;
    memo->nh = -1;
    if (hop->ifc->vid != 0 || !out->link_up || !nic_queue_usable(out, core) ||
        !neigh_lookup_use_key(&nexthop6_neighbours, nexthop6_key(out->index, next), memo->eth)) {
        return false;
    }
    __builtin_memcpy(memo->eth + 6, out->mac, 6);
    __builtin_memcpy(memo->next, next, 16);
    memo->nh = nh;
    memo->out = out;
    memo->mtu = hop->ifc->mtu;
    return true;
}

/* fwd_router_fast6: forward b if the IPv6 fast path can (hop limit and Ethernet addresses
 * rewritten) and return its egress port; NULL, b untouched, for the full path to decide. */
static __attribute__((noinline)) struct nic_port *
fwd_router_fast6(unsigned core, struct pkb *b, const struct net_iface6 *ifc,
                 struct fwd_burst_hop6 *memo)
{
    const uint8_t *dst = route6_fast_check(b->data, b->len);
    uint8_t *ip6 = b->data + INET_ETH_HDR_BYTES;
    if (dst == NULL || fwd_fast6_src_ours(ifc, ((const struct inet_ipv6_hdr *)ip6)->src)) {
        return NULL;
    }
    int nh = nexthop6_lookup(dst);
    if (nh < 0 || nexthop6_table[nh].kind != NEXTHOP_FORWARD) {
        return NULL;
    }
    const uint8_t *next = nexthop6_next(&nexthop6_table[nh], dst);
    if ((nh != memo->nh || !inet6_eq(next, memo->next)) &&
        !fwd_fast6_resolve(core, nh, next, memo)) {
        return NULL;
    }
    if (INET_IPV6_HDR_BYTES + inet_load_be16(ip6 + 4) > memo->mtu) {
        return NULL; /* packet too big: the full path answers it */
    }
    route6_hop_limit_decrement(ip6);
    __builtin_memcpy(b->data, memo->eth, sizeof(memo->eth));
    return memo->out;
}

/* fwd_run_tag: the tag the NIC is to put on fast frame b, or FWD_VLAN_NONE for none. */
static inline uint32_t fwd_run_tag(const struct pkb *b)
{
    return (b->tx_flags & PKB_TX_VLAN) ? b->vlan : FWD_VLAN_NONE;
}

/* fwd_fast_run_send_tagged: a run to a port whose NIC inserts VLAN tags, where frames may ask
 * for one (fwd_fast_nic_tag): in stretches of one tag (or none), each to the ring as such. */
static __attribute__((noinline)) void fwd_fast_run_send_tagged(unsigned core, struct nic_port *out,
                                                               struct pkb **run, unsigned n)
{
    for (unsigned k = 0, j; k < n; k = j) {
        uint32_t tag = fwd_run_tag(run[k]);
        for (j = k + 1; j < n && fwd_run_tag(run[j]) == tag; j++) {
        }
        if (tag == FWD_VLAN_NONE) {
            nic_tx_forward(core, out, run + k, j - k);
        } else {
            nic_tx_forward_tagged(core, out, run + k, j - k, (uint16_t)tag);
        }
    }
}

/* fwd_fast_run_send: a run of fast-path frames to their egress ring. */
static inline void fwd_fast_run_send(unsigned core, struct nic_port *out, struct pkb **run,
                                     unsigned n)
{
    if (n == 0) {
        return;
    }
    if (__builtin_expect(out->vlan_hw, 0)) {
        fwd_fast_run_send_tagged(core, out, run, n);
    } else {
        nic_tx_forward(core, out, run, n);
    }
}

/* fwd_router_burst_of: a burst from port `in`, each frame by the fast path or the full one, a
 * tagged one once its tag is off: here (strips false) or by the NIC (strips: the port's NIC
 * takes tags off, and each frame's status is looked at first). Instantiated once for each,
 * so a port without sub-interfaces pays nothing for the look. */
static inline __attribute__((always_inline)) void
fwd_router_burst_of(struct fwd_core *fc, struct nic_port *in, unsigned core, struct pkb **rx,
                    unsigned n, uint64_t now, const bool strips)
{
    const struct net_port *port_ifc = net_port(in->index);
    const bool port_addressed = port_ifc->has_address;
    const bool port_addressed6 = port_ifc->has_address6;
    struct nic_rx_ipv4_verdict v = nic_rx_ipv4_verdict_of(in, core);
    const uint32_t stripped = nic_rx_vlan_mask(in);
    struct fwd_vlan_memo vmemo = { .vid = FWD_VLAN_NONE };
    struct fwd_burst_hop memo = { .nh = -1 };
    struct fwd_burst_hop6 memo6 = { .nh = -1 };
    struct nic_port *run_out = NULL;
    unsigned run = 0, w = 0; /* the current run is rx[run..w); w <= k: fast frames move down */
    for (unsigned k = 0; k < n; k++) {
        __builtin_prefetch(rx[k]->data);
    }
    for (unsigned k = 0; k < n; k++) {
        struct pkb *b = rx[k];
        const struct net_port *np = port_ifc;
        struct nic_port *out = NULL;
        if (strips && (b->rx_status & stripped)) {
            /* the NIC took its tag off: the frame looks untagged, but is its VLAN's */
            if ((np = fwd_vlan_ingress_hw(in, core, b, &vmemo)) == NULL) {
                continue; /* counted and freed: nothing to keep in order */
            }
            /* the NIC parsed past the tag: its checksum verdict holds */
            out = np->has_address ? fwd_router_fast(core, b, nic_rx_ipv4_csum_ok(v, b), &memo)
                                  : NULL;
        } else if (port_addressed) {
            /* a tagged frame never passes the fast check as it came (its EtherType is the
             * TPID): only a frame that did not is looked at for a tag */
            out = fwd_router_fast(core, b, nic_rx_ipv4_csum_ok(v, b), &memo);
        }
        if (out == NULL && np == port_ifc && port_addressed6 && b->len >= INET_ETH_HDR_BYTES &&
            inet_load_be16(b->data + ETH_TYPE_OFF) == INET_ETHERTYPE_IPV6) {
            out = fwd_router_fast6(core, b, &port_ifc->ifc6, &memo6);
        }
        if (out == NULL && np == port_ifc && net_vlan_is_tagged(b->data, b->len)) {
            if ((np = fwd_vlan_ingress(in, core, b)) == NULL) {
                continue; /* counted and freed: nothing to keep in order */
            }
            out = np->has_address ? fwd_router_fast_untagged(core, b, &memo) : NULL;
        }
        if (out != run_out || out == NULL) {
            fwd_fast_run_send(core, run_out, rx + run, w - run);
            run = w;
            run_out = out;
        }
        if (out != NULL) {
            rx[w++] = b;
        } else {
            fwd_router_frame(fc, in, np, core, b, now);
        }
    }
    fwd_fast_run_send(core, run_out, rx + run, w - run);
    fwd_stats[in->index][core].forwarded += w;
}

static __attribute__((noinline)) void fwd_router_burst_stripped(struct fwd_core *fc,
                                                                struct nic_port *in,
                                                                unsigned core, struct pkb **rx,
                                                                unsigned n, uint64_t now)
{
    fwd_router_burst_of(fc, in, core, rx, n, now, true);
}

/* fwd_router_burst: a burst from port `in`, by the loop for a port whose NIC strips tags or
 * the one for the others. */
static void fwd_router_burst(struct fwd_core *fc, struct nic_port *in, unsigned core,
                             struct pkb **rx, unsigned n, uint64_t now)
{
    if (nic_rx_vlan_mask(in) != 0) {
        fwd_router_burst_stripped(fc, in, core, rx, n, now);
    } else {
        fwd_router_burst_of(fc, in, core, rx, n, now, false);
    }
}

/* --- wire mode ------------------------------------------------------------------------------- */

/* fwd_wire_drop: the whole burst is dropped for one reason, counted in *why. */
static void fwd_wire_drop(unsigned core, struct pkb **rx, unsigned n, uint64_t *why)
{
    *why += n;
    for (unsigned k = 0; k < n; k++) {
        pkb_free(rx[k], (uint16_t)core);
    }
}

/* fwd_wire_burst: a burst from port `in` to its peer's TX ring as it came (rewritten only if
 * the config says so). Every frame of a burst goes the same way, so the peer and its queue are
 * judged once per burst. */
static void fwd_wire_burst(struct nic_port *in, unsigned core, struct pkb **rx, unsigned n)
{
    static const int peer_of[WS_MAX_PORTS] = CONFIG_WIRE_PEER;
    static const struct {
        int has;
        uint8_t mac[6];
    } next_hop[WS_MAX_PORTS] = CONFIG_PORT_NEXT_HOP_MACS;
    struct fwd_stats *st = &fwd_stats[in->index][core];
    int peer = peer_of[in->index];
    struct nic_port *out = peer >= 0 ? nic_port((unsigned)peer) : NULL;

    if (out == NULL) {
        fwd_wire_drop(core, rx, n, &st->wire_no_peer);
    } else if (core >= out->nqueues) {
        fwd_wire_drop(core, rx, n, &st->egress_no_queue);
    } else if (!nic_queue_usable(out, core)) {
        fwd_wire_drop(core, rx, n, &st->egress_link_down); /* the peer is being reset, or dead */
    } else {
        if (CONFIG_WIRE_REWRITE_MAC) {
            for (unsigned k = 0; k < n; k++) {
                route_eth_rewrite(rx[k]->data, out->mac, next_hop[peer].mac);
            }
        }
        st->forwarded += n;
        nic_tx_forward(core, out, rx, n);
    }
}

/* --- the per-core pass ------------------------------------------------------------------------ */

unsigned fwd_poll_core(unsigned core)
{
    struct fwd_core *fc = &fwd_cores[core];
    struct pkb *rx[CONFIG_NIC_BURST];
    unsigned total = 0, nports = nic_port_count();
    uint64_t now = time_ns();

    nic_core_sync(core); /* a port reset or gone: follow it before touching any queue */
    for (unsigned i = 0; i < nports; i++) {
        struct nic_port *p = nic_port(i);
        if (!nic_queue_usable(p, core)) {
            continue;
        }
        unsigned n = nic_rx_burst(p, core, rx, CONFIG_NIC_BURST);
        if (n == 0) {
            continue;
        }
        if (CONFIG_MODE_WIRE) {
            fwd_wire_burst(p, core, rx, n);
        } else {
            fwd_router_burst(fc, p, core, rx, n, now);
        }
        total += n;
    }
    nic_tx_pass_end(core);
    return total;
}

WS_POLLER(fwd, .order = POLLER_ORDER_FWD, .poll = fwd_poll_core);

/* --- console views (console core) ------------------------------------------------------------- */

