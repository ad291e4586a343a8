/*
 * tests/hostsim/sim_books.c: the checks once traffic has stopped. Every frame put on a wire is
 * accounted for: received by a ring or dropped there as an error; every received frame has
 * exactly one outcome (forwarded, or dropped/answered under a named counter); every forwarded
 * frame completed on the egress TX ring and reached the other host; each malformed kind landed
 * under its own counter; and every buffer is back in its core's pool.
 */
#include <inttypes.h>
#include <string.h>

#include "apps/fwd/fwd.h"
#include "drivers/nic/nic.h"
#include "net/iface.h"
#include "net/nexthop.h"
#include "net/nexthop6.h"
#include "tests/hostsim/fwd_sim.h"

/* --- the books ----------------------------------------------------------------------------- */

static void sim_add_counters(uint64_t *sum, const uint64_t *v, size_t bytes)
{
    for (size_t i = 0; i < bytes / sizeof(uint64_t); i++) {
        sum[i] += v[i];
    }
}

/* sim_books: per (port, core): every frame the ring handed out has exactly one outcome; then
 * the totals. */
void sim_books(struct sim *s, struct sim_totals *t)
{
    memset(t, 0, sizeof(*t));
    for (unsigned p = 0; p < SIM_PORTS; p++) {
        for (unsigned c = 0; c < s->ncores; c++) {
            const struct nic_queue *q = &nic_port(p)->q[c];
            const struct net_queue_stats *ns = net_queue_stats_of(p, c);
            const struct sim_queue *sq = sim_queue(p, c);
            const struct fwd_stats *st = fwd_stats_of(p, c);
            uint64_t out = fwd_frame_outcomes(st) + net_queue_outcomes(ns);
            if (out != q->rx.stats.packets) {
                sim_fail(s, "port%u core %u: %" PRIu64 " frames received but %" PRIu64
                         " outcomes counted", p, c, q->rx.stats.packets, out);
            }
            t->wire_rx += sq->nrx.frames;
            t->missed += sq->nrx.missed;
            t->violations += sq->nrx.violations + sq->ntx.violations;
            t->rx_packets += q->rx.stats.packets;
            t->rx_errors += q->rx.stats.errors;
            t->rx_oversize += q->rx.stats.oversize;
            t->rx_no_buffer += q->rx.stats.no_buffer;
            t->outcomes += out;
            t->forwarded[p] += st->forwarded;
            t->fwd_drops += fwd_drops_total(st);
            t->route_drops += route_frame_drops_total(&st->route);
            t->local += net_local_total(&ns->local);
            t->local6 += net_local6_total(&ns->local6);
            t->no_address += ns->no_address;
            t->route6_drops += route6_frame_drops_total(&st->route6);
            t->no_address6 += ns->no_address6;
            t->nd_relay_full += ns->nd_relay_full;
            t->arp_requests_sent += nexthop_stats_of(p, c)->arp_requests_sent;
            t->ns_sent += nexthop6_stats_of(p, c)->ns_sent;
            t->icmp_sent += st->icmp_errors_sent;
            t->icmp_limited += st->icmp_ratelimited;
            t->alloc_fail += nexthop_stats_of(p, c)->alloc_fail;
            t->alloc_fail += nexthop6_stats_of(p, c)->alloc_fail;
            t->replies += ns->local.arp_requests_answered + ns->local.icmp_echo_answered +
                          ns->local6.ns_answered + ns->local6.echo6_answered;
            t->tx_done[p] += q->tx.stats.packets;
            t->tx_forwarded[p] += q->tx.stats.forwarded;
            t->tx_wire[p] += sq->ntx.frames;
            t->tx_ring_full += q->tx.stats.ring_full;
            t->tx_bad_len += q->tx.stats.bad_len;
            t->no_route += st->no_route;
            t->directed_bcast += st->dst_directed_broadcast;
            t->other_port += st->dst_other_port_address;
            t->arp_unresolved += st->arp_unresolved;
            t->nd_unresolved += st->nd_unresolved;
            sim_add_counters((uint64_t *)&t->route, (const uint64_t *)&st->route,
                             sizeof(t->route));
            sim_add_counters((uint64_t *)&t->route6, (const uint64_t *)&st->route6,
                             sizeof(t->route6));
            sim_add_counters((uint64_t *)&t->local_drop, (const uint64_t *)&ns->local.drop,
                             sizeof(t->local_drop));
            sim_add_counters((uint64_t *)&t->local6_stats, (const uint64_t *)&ns->local6,
                             sizeof(t->local6_stats));
        }
    }
    /* what route6_icmp_error was asked for and did not build: the counters past the drops */
    for (size_t i = route6_frame_drop_counter_count; i < route6_drop_counter_count; i++) {
        uint64_t v;
        memcpy(&v, (const uint8_t *)&t->route6 + route6_drop_counters[i].offset, sizeof(v));
        t->route6_suppressed += v;
    }
}

/* sim6_local6_drops: the frames local6 dropped, by any reason. */
static uint64_t sim6_local6_drops(const struct net_local6_stats *st)
{
    return net_local6_total(st) - st->ns_answered - st->echo6_answered - st->na_learned -
           st->rs_reported - st->ip6_passed - st->ip6_to_sink;
}

/* sim_other_port6_to_fwd: of the frames to port1's address from port0, those fwd drops
 * (dst_other_port_address); with router.answer_any_address the local stack takes them as ours
 * (a UDP datagram, and no sink here: ip6_proto_unsupported). */
static unsigned sim_other_port6_to_fwd(const struct sim *s)
{
    return CONFIG_ROUTER_ANSWER_ANY_ADDRESS ? 0 : s->bad_count[BAD6_OTHER_PORT];
}

/* sim_check_local6_kinds: router6: the local stack sees every IPv6 frame first. It answers host
 * A's solicitation, learns from B's advertisement, drops the kinds that are its to judge and
 * passes on (ip6_passed) the rest: the stream, both probes and the kinds for the router. */
static void sim_check_local6_kinds(struct sim *s, const struct sim_totals *t)
{
    const unsigned *n = s->bad_count;
    const struct net_local6_stats *l6 = &t->local6_stats;
    unsigned other_local = n[BAD6_OTHER_PORT] - sim_other_port6_to_fwd(s);
    sim_expect(s, "local6 ip6_truncated", l6->drop.ip6_truncated, n[BAD6_TRUNCATED]);
    sim_expect(s, "local6 ip6_bad_version", l6->drop.ip6_bad_version, n[BAD6_VERSION]);
    sim_expect(s, "local6 ip6_bad_payload_length", l6->drop.ip6_bad_payload_length,
               n[BAD6_PAYLOAD_LENGTH]);
    sim_expect(s, "local6 eth_dst_multicast", l6->drop.eth_dst_multicast, n[BAD6_ETH_MCAST]);
    sim_expect(s, "local6 ip6_proto_unsupported", l6->drop.ip6_proto_unsupported, other_local);
    uint64_t dropped = n[BAD6_TRUNCATED] + n[BAD6_VERSION] + n[BAD6_PAYLOAD_LENGTH] +
                       n[BAD6_ETH_MCAST] + other_local;
    sim_expect(s, "local6 drops (all reasons)", sim6_local6_drops(l6), dropped);
    sim_expect(s, "local6 ns_answered (host A's solicitation)", l6->ns_answered, 1);
    sim_expect(s, "local6 na_learned (host B's advertisement)", l6->na_learned, 1);
    /* The router's kinds and the first probe (its next hop still unknown) always take the
     * full path; the stream and the second probe may take the fast one, which local6 never
     * sees: ip6_passed counts only the full path's. */
    uint64_t full = 1 + n[BAD6_HOP_LIMIT1] + n[BAD6_SRC_LINK_LOCAL] + n[BAD6_EXT_CHAIN] +
                    n[BAD6_NO_ROUTE] + n[BAD6_UNRESOLVED] + sim_other_port6_to_fwd(s);
    uint64_t may_be_fast = s->nframes + 1;
    if (l6->ip6_passed < full || l6->ip6_passed > full + may_be_fast) {
        sim_fail(s, "local6 ip6_passed %llu: not in [%llu, %llu] (the router's kinds and the "
                 "first probe, plus stream frames and the second probe that took the full path)",
                 (unsigned long long)l6->ip6_passed, (unsigned long long)full,
                 (unsigned long long)(full + may_be_fast));
    }
    sim_expect(s, "local6 outcomes (all)", t->local6, 2 + l6->ip6_passed + dropped);
    sim_expect(s, "IPv4 local outcomes", t->local, 0);
}

/* sim_check_routed6_kinds: router6: what the local stack passed on, judged by route6's checks
 * and fwd, each kind under its own counter; the ICMPv6 errors that hop limit 1 and no route
 * earn all reach host A, or the limiter refused them. */
static void sim_check_routed6_kinds(struct sim *s, const struct sim_totals *t)
{
    const unsigned *n = s->bad_count;
    const struct route6_drop_stats *r6 = &t->route6;
    unsigned other_fwd = sim_other_port6_to_fwd(s);
    sim_expect(s, "route6 hop_limit_expired", r6->hop_limit_expired, n[BAD6_HOP_LIMIT1]);
    sim_expect(s, "route6 ip6_src_link_local", r6->ip6_src_link_local, n[BAD6_SRC_LINK_LOCAL]);
    sim_expect(s, "route6 ip6_ext_too_long", r6->ip6_ext_too_long, n[BAD6_EXT_CHAIN]);
    sim_expect(s, "route6 frame drops (all reasons)", t->route6_drops,
               n[BAD6_HOP_LIMIT1] + n[BAD6_SRC_LINK_LOCAL] + n[BAD6_EXT_CHAIN]);
    sim_expect(s, "route6 ICMPv6 errors not built", t->route6_suppressed, 0);
    sim_expect(s, "IPv4 route frame drops", t->route_drops, 0);
    sim_expect(s, "fwd no_route", t->no_route, n[BAD6_NO_ROUTE]);
    sim_expect(s, "fwd dst_other_port_address", t->other_port, other_fwd);
    sim_expect(s, "fwd nd_unresolved (the setup probe + unresolved)", t->nd_unresolved,
               1 + n[BAD6_UNRESOLVED]);
    sim_expect(s, "fwd drops (all reasons)", t->fwd_drops,
               n[BAD6_NO_ROUTE] + other_fwd + n[BAD6_UNRESOLVED] + 1);
    if (n[BAD6_UNRESOLVED] != 0 && s->p1_ns_nobody == 0) {
        sim_fail(s, "no solicitation for 2001:db8:19::77, though %u frames were sent there",
                 n[BAD6_UNRESOLVED]);
    }
    sim_expect(s, "ICMPv6 errors sent + rate limited", t->icmp_sent + t->icmp_limited,
               n[BAD6_HOP_LIMIT1] + n[BAD6_NO_ROUTE]);
    sim_expect(s, "ICMPv6 errors host A received", s->p0_time_exceeded + s->p0_unreachable,
               t->icmp_sent);
}

/* sim_check_malformed: each kind ended under its own counter (router) or went through (wire). */
void sim_check_malformed(struct sim *s, const struct sim_totals *t)
{
    const unsigned *n = s->bad_count;
    sim_expect(s, "ring errors (rx_error + oversize + zero_len)", t->rx_errors,
               n[BAD_RX_ERROR] + n[BAD_OVERSIZE] + n[BAD_ZERO_LEN]);
    sim_expect(s, "ring oversize", t->rx_oversize, n[BAD_OVERSIZE]);
    if (!CONFIG_MODE_ROUTER) {
        for (unsigned i = 0; i < s->npass; i++) {
            if (!s->pass[i].seen) {
                sim_report_frame(s, i + 1, "wire: malformed frame not passed through",
                                 s->pass[i].bytes, s->pass[i].len);
            }
        }
        return;
    }
    if (SIM_IPV6_STREAM) {
        sim_check_local6_kinds(s, t);
        sim_check_routed6_kinds(s, t);
        return;
    }
    sim_expect(s, "route ip_bad_checksum", t->route.ip_bad_checksum, n[BAD_IP_CSUM]);
    sim_expect(s, "route ttl_expired", t->route.ttl_expired, n[BAD_TTL1]);
    sim_expect(s, "route ip_dst_martian", t->route.ip_dst_martian, n[BAD_DST_MARTIAN]);
    sim_expect(s, "route ip_bad_version", t->route.ip_bad_version, n[BAD_IP_VERSION]);
    sim_expect(s, "route eth_dst_group", t->route.eth_dst_group, n[BAD_ETH_MCAST]);
    sim_expect(s, "route frame drops (all reasons)", t->route_drops,
               n[BAD_IP_CSUM] + n[BAD_TTL1] + n[BAD_DST_MARTIAN] + n[BAD_IP_VERSION] +
                   n[BAD_ETH_MCAST]);
    sim_expect(s, "fwd no_route", t->no_route, n[BAD_NO_ROUTE]);
    sim_expect(s, "fwd dst_directed_broadcast", t->directed_bcast, n[BAD_DIRECTED_BCAST]);
    /* port1's address from port0: answered locally (a UDP datagram, and no sink here: a
     * local ip_proto_unsupported drop), or dropped by fwd with router.answer_any_address off */
    unsigned other_fwd = CONFIG_ROUTER_ANSWER_ANY_ADDRESS ? 0 : n[BAD_OTHER_PORT];
    unsigned other_local = n[BAD_OTHER_PORT] - other_fwd;
    sim_expect(s, "fwd dst_other_port_address", t->other_port, other_fwd);
    sim_expect(s, "fwd arp_unresolved (the setup probe + unresolved)", t->arp_unresolved,
               1 + n[BAD_UNRESOLVED]);
    sim_expect(s, "fwd drops (all reasons)", t->fwd_drops,
               n[BAD_NO_ROUTE] + n[BAD_DIRECTED_BCAST] + other_fwd + n[BAD_UNRESOLVED] + 1);
    if (n[BAD_UNRESOLVED] != 0 && s->p1_arp_nobody == 0) {
        sim_fail(s, "no ARP request for 198.19.0.77, though %u frames were sent there",
                 n[BAD_UNRESOLVED]);
    }
    /* an IPv4 datagram with IPv6's EtherType: the IPv6 stack's (a version-4 header) on a port
     * with an IPv6 address, else IPv4's (not an EtherType it speaks; a VLAN has no IPv6) */
#ifdef SIM_VLAN
    unsigned bad6_local = n[BAD_IPV6];
#else
    unsigned bad6_local = CONFIG_PORT0_HAS_ADDRESS6 ? 0 : n[BAD_IPV6];
#endif
    sim_expect(s, "local eth_unsupported_type", t->local_drop.eth_unsupported_type, bad6_local);
    sim_expect(s, "local6 outcomes (all)", t->local6, n[BAD_IPV6] - bad6_local);
    sim_expect(s, "local ip_truncated", t->local_drop.ip_truncated, n[BAD_SHORT_IPV4]);
    sim_expect(s, "local ip_proto_unsupported", t->local_drop.ip_proto_unsupported, other_local);
    /* local: the 2 ARP frames of the setup, plus the kinds above */
    sim_expect(s, "local outcomes (all)", t->local,
               2 + bad6_local + n[BAD_SHORT_IPV4] + other_local);
    sim_expect(s, "ICMP errors sent + rate limited", t->icmp_sent + t->icmp_limited,
               n[BAD_TTL1] + n[BAD_NO_ROUTE]);
    sim_expect(s, "ICMP errors host A received", s->p0_time_exceeded + s->p0_unreachable,
               t->icmp_sent);
    sim_expect(s, "route6 frame drops", t->route6_drops, 0);
}

/* sim_check_books: conservation from the wire in to the wire out. */
void sim_check_books(struct sim *s, const struct sim_totals *t)
{
    /* A's request, 2 probes, B's answer: ARP, or neighbour discovery (SIM_IPV6) */
    uint64_t setup_frames = CONFIG_MODE_ROUTER ? 4 : 0;
    uint64_t probes = CONFIG_MODE_ROUTER ? 1 : 0; /* the probe forwarded once B was known */

    sim_expect(s, "frames put on the wires", t->wire_rx, s->injected + s->bad_sent + setup_frames);
    sim_expect(s, "fake NIC missed frames", t->missed, 0);
    sim_expect(s, "fake NIC descriptor violations", t->violations, 0);
    sim_expect(s, "frames received + ring errors", t->rx_packets + t->rx_errors, t->wire_rx);
    sim_expect(s, "frames received = outcomes", t->outcomes, t->rx_packets);
    sim_expect(s, "forwarded (port0 ingress)", t->forwarded[0],
               s->nframes + probes + (CONFIG_MODE_ROUTER ? 0 : s->npass));
    sim_expect(s, "forwarded (port1 ingress)", t->forwarded[1], 0);
    sim_expect(s, "egress port1 forwarded TX completions = forwarded", t->tx_forwarded[1],
               t->forwarded[0]);
    sim_expect(s, "egress port0 forwarded TX completions = forwarded", t->tx_forwarded[0],
               t->forwarded[1]);
    sim_expect(s, "egress port1 TX completions = forwarded + ARP requests + solicitations",
               t->tx_done[1], t->forwarded[0] + t->arp_requests_sent + t->ns_sent);
    sim_expect(s, "egress port0 TX completions = replies + ICMP errors", t->tx_done[0],
               t->forwarded[1] + t->replies + t->icmp_sent);
    for (unsigned p = 0; p < SIM_PORTS; p++) {
        sim_expect(s, p ? "port1 frames on the wire = completions"
                        : "port0 frames on the wire = completions",
                   t->tx_wire[p], t->tx_done[p]);
    }
    sim_expect(s, "TX ring_full drops", t->tx_ring_full, 0);
    sim_expect(s, "TX bad_len drops", t->tx_bad_len, 0);
    sim_expect(s, "RX refills short of buffers", t->rx_no_buffer, 0);
    sim_expect(s, "fwd alloc_fail", t->alloc_fail, 0);
    sim_expect(s, "ARP requests sent by the router = seen on port1", t->arp_requests_sent,
               s->p1_arp_requests + s->p1_arp_nobody);
    sim_expect(s, "ARP requests for host B", s->p1_arp_requests, SIM_IPV6_STREAM ? 0 : probes);
    sim_expect(s, "solicitations sent by the router = seen on port1", t->ns_sent,
               s->p1_ns_requests + s->p1_ns_nobody);
    sim_expect(s, "solicitations for host B", s->p1_ns_requests, SIM_IPV6_STREAM ? probes : 0);
    sim_expect(s, "IPv6 frames on a port without an IPv6 address", t->no_address6, 0);
    sim_expect(s, "neighbour reports lost on the way to core 0", t->nd_relay_full, 0);
}

/* sim_check_stream_totals: every flow complete, nothing else on port1 or back on port0. */
void sim_check_stream_totals(struct sim *s)
{
    uint64_t sent = 0;
    for (unsigned f = 0; f < SIM_FLOWS; f++) {
        sent += sim_flow_frames(s->nframes, f);
    }
    sim_expect(s, "stream frames sent (generator self-check)", sent, s->nframes);
    s->lost = s->nframes - s->unique;
    sim_expect(s, "stream frames arrived on port1", s->arrived, s->nframes);
    sim_expect(s, "stream frames lost", s->lost, 0);
    sim_expect(s, "stream frames reordered", s->reordered, 0);
    sim_expect(s, "stream frames duplicated", s->duplicates, 0);
    sim_expect(s, "stream frames with a bad length", s->bad_len, 0);
    sim_expect(s, "stream frames with wrong MACs", s->bad_mac, 0);
    sim_expect(s, "stream frames with a wrong " SIM_TTL_NAME, s->bad_ttl, 0);
    sim_expect(s, "stream frames with a bad IP checksum", s->bad_csum, 0);
    sim_expect(s, "stream frames with changed content", s->bad_payload, 0);
    sim_expect(s, "unexpected frames on port1", s->p1_unexpected, 0);
    sim_expect(s, "unexpected frames on port0", s->p0_unexpected, 0);
    sim_expect(s, "frames out of a port without its VLAN's tag", s->vlan_bad_tag, 0);
    sim_check_vlan_path(s);
}

/* sim_check_vlan_path: router_vlan's tags were moved by the NICs (--nic-vlan) or in software,
 * every one of them: vlan_rx_hw and vlan_tx_hw are all of vlan_rx and vlan_tx, or none. */
void sim_check_vlan_path(struct sim *s)
{
    uint64_t rx = 0, tx = 0, rx_hw = 0, tx_hw = 0;
    for (unsigned i = WS_MAX_PORTS; i < net_iface_count; i++) {
        for (unsigned c = 0; c < s->ncores; c++) {
            const struct net_vlan_stats *vs = net_vlan_stats_of(net_iface_at(i), c);
            rx += vs->rx;
            tx += vs->tx;
            rx_hw += vs->rx_hw;
            tx_hw += vs->tx_hw;
        }
    }
    sim_expect(s, "VLAN frames whose tag the NIC took off", rx_hw, s->nic_vlan ? rx : 0);
    sim_expect(s, "VLAN frames whose tag the NIC put on", tx_hw, s->nic_vlan ? tx : 0);
    if (SIM_VLAN_STREAM && (rx < s->nframes || tx < s->nframes)) {
        sim_fail(s, "VLAN frames: %" PRIu64 " in, %" PRIu64 " out for %" PRIu64 " stream frames",
                 rx, tx, s->nframes);
    }
}

/* sim_check_pools: with traffic stopped, every buffer is in its pool or posted in an RX ring
 * (nothing in flight on TX); then, the rings released, every pool is full. */
void sim_check_pools(struct sim *s)
{
    for (unsigned c = 0; c < s->ncores; c++) {
        struct pkb_pool *pool = nic_pool(c);
        uint64_t held = 0;
        for (unsigned p = 0; p < SIM_PORTS; p++) {
            const struct nic_queue *q = &nic_port(p)->q[c];
            held += iring_rx_posted(&q->rx);
            if (iring_tx_in_flight(&q->tx) != 0) {
                sim_fail(s, "port%u core %u: %u TX buffers still in flight", p, c,
                         iring_tx_in_flight(&q->tx));
            }
        }
        if (pool->nfree + held != pool->size) {
            sim_fail(s, "core %u: pool %" PRIu32 " free + %" PRIu64 " in RX rings != %" PRIu32
                     " (leak)", c, pool->nfree, held, pool->size);
        }
        sim_expect(s, "pool foreign_free", pool->foreign_free, 0);
        sim_expect(s, "pool double_free", pool->double_free, 0);
        sim_expect(s, "pool alloc_fail", pool->alloc_fail, 0);
        for (unsigned p = 0; p < SIM_PORTS; p++) {
            iring_rx_release(&nic_port(p)->q[c].rx);
        }
        if (pool->nfree != pool->size) {
            sim_fail(s, "core %u: pool %" PRIu32 " of %" PRIu32 " after the rings let go", c,
                     pool->nfree, pool->size);
        }
    }
}
