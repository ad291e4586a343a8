/* apps/stats/stats.c: console views of the counters (see header and docs/counters.md). */
#include "stats.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/fwd/fwd.h"
#include "apps/sink/sink_core.h"
#include "apps/sink/sink_stats.h"
#include "apps/stats/fmt.h"
#include "apps/stats/json.h"
#include "commands.h"
#include "config.h"
#include "dma.h"
#include "console.h"
#include "drivers/nic/nic.h"
#include "irq.h"
#include "loop.h"
#include "net/dad6.h"
#include "net/handoff.h"
#include "net/iface.h"
#include "net/inet.h"
#include "net/nexthop.h"
#include "net/nexthop6.h"
#include "net/ra6.h"
#include "percpu.h"
#include "smp.h"
#include "time.h"

#define STATS_JSON_BYTES (128 * 1024)

/* One counter: its name (JSON key and table label), where it lives in its struct, and what it
 * means. This table is the catalogue: `stats doc` prints it, and docs/counters.md is generated
 * from that output (tools/gen-counters-doc), so the two cannot drift. */
struct stats_counter {
    const char *name;
    size_t offset;
    const char *doc;
};

#define QC(name, field, doc) { name, offsetof(struct nic_queue, field), doc }
static const struct stats_counter stats_queue_counters[] = {
    QC("rx_packets", rx.stats.packets,
       "frames received and handed to the core"),
    QC("rx_bytes", rx.stats.bytes,
       "their bytes (CRC stripped)"),
    QC("rx_no_buffer", rx.stats.no_buffer,
       "refills that found the pool empty; the slot stays unposted and is retried"),
    QC("rx_errors", rx.stats.errors,
       "frames dropped for error bits in the descriptor, or spanning several buffers"),
    QC("rx_oversize", rx.stats.oversize,
       "of which spanned several buffers (larger than one 2 KiB buffer)"),
    QC("rx_tail_writes", rx.stats.tail_writes,
       "RDT doorbells (one per burst that refilled anything)"),
    QC("rx_flushed", rx.stats.flushed,
       "frames the NIC had stored that a port reset (or a dead port) discarded before the core took them"),
    QC("tx_packets", tx.stats.packets,
       "frames the NIC reported transmitted (descriptor done; a TSO frame counts each segment)"),
    QC("tx_bytes", tx.stats.bytes,
       "their bytes (a TSO frame's headers once per segment)"),
    QC("tx_ring_full", tx.stats.ring_full,
       "frames dropped because no TX descriptor was free"),
    QC("tx_bad_len", tx.stats.bad_len,
       "frames dropped for an impossible length (a bug)"),
    QC("tx_foreign", tx.stats.foreign,
       "frames dropped because their buffer belongs to another core's pool (a bug)"),
    QC("tx_tail_writes", tx.stats.tail_writes,
       "TDT doorbells (one per burst)"),
    QC("tx_forwarded", tx.stats.forwarded,
       "of `tx_packets`: forwarded frames the NIC reported sent (forwarding counted at completion)"),
    QC("tx_flushed", tx.stats.flushed,
       "frames on the TX ring that a port reset (or a dead port) discarded unsent"),
    QC("tx_flushed_forwarded", tx.stats.flushed_forwarded,
       "of `tx_flushed`: forwarded frames"),
    QC("tx_no_csum_ctx", tx.stats.no_csum_ctx,
       "frames dropped because they asked for a checksum offload the ring holds no context for "
       "(a bug)"),
    QC("tx_tso_frames", tx.stats.tso_frames,
       "TCP segmentation offload: frames placed for the NIC to cut into segments (each segment "
       "counts in `tx_packets`)"),
    QC("tx_bad_tso", tx.stats.bad_tso,
       "frames dropped because they asked for a segmentation the NIC cannot do (a bug)"),
    QC("tx_vlan_inserted", tx.stats.vlan_inserted,
       "frames placed for the NIC to send with an 802.1Q tag it inserts (VLAN sub-interfaces, "
       "vlan.offload)"),
};

/* the local stack's counters of the same (port, core): net/iface.h */
#define NQC(name, field, doc) { name, offsetof(struct net_queue_stats, field), doc }
static const struct stats_counter stats_netq_counters[] = {
    NQC("arp_requests_answered", local.arp_requests_answered,
       "ARP requests for our address, answered"),
    NQC("icmp_echo_answered", local.icmp_echo_answered,
       "ICMP echo requests to our address, answered"),
    NQC("arp_replies_learned", local.arp_replies_learned,
       "ARP replies to us, sender learned"),
    NQC("arp_gratuitous_learned", local.arp_gratuitous_learned,
       "ARP announcements, sender learned"),
    NQC("ip_passed", local.ip_passed,
       "valid IPv4 for another host that reached the local stack (wire mode has no local stack; the router forwards these first): dropped"),
    NQC("ip_to_sink", local.ip_to_sink,
       "TCP, UDP and fragments to our address, handed to the sink core (lwIP)"),
    NQC("no_address", no_address,
       "frames on an interface with no configured address: dropped"),
    NQC("ns_answered", local6.ns_answered,
       "IPv6 neighbour solicitations for our addresses, answered with an advertisement"),
    NQC("echo6_answered", local6.echo6_answered,
       "ICMPv6 echo requests to our addresses, answered"),
    NQC("na_learned", local6.na_learned,
       "neighbour advertisements about another node, handed to the neighbour cache"),
    NQC("rs_reported", local6.rs_reported,
       "router solicitations on a port that advertises, handed to its router advertisements (answered by the next, within 0.5 s, at most one per 3 s)"),
    NQC("ip6_passed", local6.ip6_passed,
       "IPv6 for another host that reached the local stack: routed on (counted again by `fwd_` or `route6_`)"),
    NQC("ip6_to_sink", local6.ip6_to_sink,
       "IPv6 TCP and UDP to our addresses, handed to the sink core"),
    NQC("ns_learned", local6.ns_learned,
       "of `ns_answered`: solicitations whose sender's MAC was learned (not a frame outcome)"),
    NQC("rs_learned", local6.rs_learned,
       "of `rs_reported`: router solicitations whose sender's MAC was learned (not a frame outcome)"),
    NQC("no_address6", no_address6,
       "IPv6 frames on an interface without an IPv6 address (or a VLAN sub-interface): dropped"),
    NQC("nd_relayed", nd_relayed,
       "a neighbour's MAC, an address claim or a router solicitation reported on a core other than 0 and posted to core 0, their owner, which applies it (net/nd_relay.h; not a frame outcome)"),
    NQC("nd_relay_full", nd_relay_full,
       "such a report dropped: the ring to core 0 was full (the neighbour is asked again)"),
    NQC("vlan_unknown", vlan_unknown,
       "802.1Q-tagged for a VLAN ID with no sub-interface on this port (router mode): dropped"),
    NQC("vlan_truncated", vlan_truncated,
       "EtherType 0x8100 but too short to hold the tag (router mode): dropped"),
};

/* a VLAN sub-interface's counters, summed over the cores: net/iface.h */
#define VC(name, field, doc) { name, offsetof(struct net_vlan_stats, field), doc }
static const struct stats_counter stats_vlan_counters[] = {
    VC("vlan_rx", rx,
       "tagged frames received for the sub-interface (their outcomes are counted on the port's queues)"),
    VC("vlan_tx", tx,
       "frames sent with its tag: forwarded, local replies, ARP requests, ICMP errors"),
    VC("vlan_tx_no_room", tx_no_room,
       "a frame to send had no room for the tag: dropped (a bug)"),
    VC("vlan_rx_hw", rx_hw,
       "of vlan_rx: the NIC took the tag off (vlan.offload); the rest were moved in software"),
    VC("vlan_tx_hw", tx_hw,
       "of vlan_tx: the NIC put the tag on (vlan.offload); the rest were moved in software"),
};

#define FC(name, field, doc) { name, offsetof(struct fwd_stats, field), doc }
static const struct stats_counter stats_fwd_counters[] = {
    FC("fwd_forwarded", forwarded,
       "handed to the egress port's TX ring (router: after TTL and MAC rewrite); the egress queue's `tx_forwarded` counts them when actually sent"),
    FC("fwd_no_route", no_route,
       "no route to the destination: dropped; ICMP net unreachable sent (rate limited)"),
    FC("fwd_arp_unresolved", arp_unresolved,
       "the next hop's MAC is not known yet: dropped while an ARP request goes out"),
    FC("fwd_nd_unresolved", nd_unresolved,
       "IPv6: the next hop's MAC is not known yet: dropped while a neighbour solicitation goes out"),
    FC("fwd_dst_directed_broadcast", dst_directed_broadcast,
       "to a connected subnet's broadcast address: not forwarded (RFC 2644)"),
    FC("fwd_dst_other_port_address", dst_other_port_address,
       "to the appliance's address on another port, router.answer_any_address = no: dropped"),
    FC("fwd_egress_no_queue", egress_no_queue,
       "the egress port has no TX queue for this core (or none at all: an absent port)"),
    FC("fwd_egress_link_down", egress_link_down,
       "the egress port's link is down, or the port is being reset or dead"),
    FC("fwd_wire_no_peer", wire_no_peer,
       "wire mode: the ingress port is in no pair"),
    FC("fwd_frag_needed", frag_needed,
       "larger than the egress MTU with DF set: dropped; ICMP fragmentation needed sent with the MTU (rate limited)"),
    FC("fwd_fragmented", fragmented,
       "larger than the egress MTU: sent on as fragments (RFC 791)"),
    FC("fwd_frag_failed", frag_failed,
       "larger than the egress MTU and not cut (its options leave no room, or an offset past 65535) or no buffer for a fragment: dropped"),
    FC("fwd_pkt_too_big", pkt_too_big,
       "IPv6 larger than the egress MTU: dropped; ICMPv6 packet too big sent with the MTU (rate limited)"),
    FC("fwd_fragments_sent", fragments_sent,
       "fragments made of `fwd_fragmented` datagrams (not frame outcomes; counted in `tx_packets`, not `tx_forwarded`)"),
    FC("fwd_icmp_errors_sent", icmp_errors_sent,
       "ICMP time exceeded / destination unreachable sent back"),
    FC("fwd_icmp_ratelimited", icmp_ratelimited,
       "ICMP errors not sent: over `router.icmp_errors_per_sec` (per core)"),
};

/* net/nexthop's ARP requests, under the names they had when forwarding sent them. */
#define XC(name, field, doc) { name, offsetof(struct nexthop_stats, field), doc }
static const struct stats_counter stats_nexthop_counters[] = {
    XC("fwd_arp_requests_sent", arp_requests_sent,
       "ARP requests for next hops (at most one per next hop per 100 ms per core)"),
    XC("fwd_alloc_fail", alloc_fail,
       "no buffer for an ARP request"),
};

/* net/nexthop6's neighbour solicitations. */
#define X6C(name, field, doc) { name, offsetof(struct nexthop6_stats, field), doc }
static const struct stats_counter stats_nexthop6_counters[] = {
    X6C("fwd_ns_sent", ns_sent,
       "IPv6 neighbour solicitations for next hops (at most one per target per 100 ms per core) and probes"),
    X6C("fwd_ns_alloc_fail", alloc_fail,
       "no buffer for a neighbour solicitation"),
};

#define HC(name, field, doc) { name, offsetof(struct nic_hw_stats, field), doc }
static const struct stats_counter stats_hw_counters[] = {
    HC("rx_packets", rx_packets,
       "good packets received (GPRC)"),
    HC("rx_bytes", rx_bytes,
       "good octets received, CRC included (GORC)"),
    HC("rx_broadcast", rx_broadcast,
       "broadcast packets received (BPRC)"),
    HC("rx_multicast", rx_multicast,
       "multicast packets received (MPRC)"),
    HC("rx_missed_errors", rx_missed_errors,
       "dropped for lack of room in the NIC's packet buffer (MPC)"),
    HC("rx_no_buffer_count", rx_no_buffer_count,
       "a frame found no free descriptor on its queue (RNBC)"),
    HC("rx_crc_errors", rx_crc_errors,
       "frames with a bad Ethernet CRC (CRCERRS)"),
    HC("rx_undersize", rx_undersize,
       "frames shorter than 64 bytes with a good CRC (RUC); QEMU counts and pads runts"),
    HC("rx_oversize", rx_oversize,
       "frames longer than the maximum (ROC)"),
    HC("tx_packets", tx_packets,
       "good packets transmitted (GPTC)"),
    HC("tx_bytes", tx_bytes,
       "good octets transmitted (GOTC)"),
    HC("rx_flow_control_xon", rx_xon,
       "IEEE 802.3x XON (pause time 0) received (82599: LXONRXCNT)"),
    HC("rx_flow_control_xoff", rx_xoff,
       "XOFF received: the peer asked us to stop sending (LXOFFRXCNT)"),
    HC("tx_flow_control_xon", tx_xon,
       "XON sent: our receive buffer drained (LXONTXC; not in tx_packets)"),
    HC("tx_flow_control_xoff", tx_xoff,
       "XOFF sent: our receive buffer was nearly full (LXOFFTXC; not in tx_packets)"),
};

#define PC(name, field, doc) { name, offsetof(struct nic_port, field), doc }
static const struct stats_counter stats_port_counters[] = {
    PC("link_changes", link_changes,
       "every link transition the driver saw, the first link-up included"),
    PC("tx_hangs", tx_hangs,
       "TX queues found hung: work pending, link up, no completion for 1 s (each resets the port)"),
    PC("resets", resets,
       "port resets completed without a reboot (chip reset, rings refilled by their cores)"),
    PC("reset_failures", reset_failures,
       "port resets that failed: the port is then dead (no longer used)"),
    PC("device_gone", device_gone,
       "1 once the port read all-ones (left the bus): reported once, never touched again"),
    PC("module_events", module_events,
       "SFP+ modules inserted or removed (82599 SFP+ boards; each is a console line)"),
    PC("xoff_held_ms", xoff_held_ms,
       "time (100 ms housekeeping steps) in which XOFF arrived: TX held by the peer; the TX watchdog does not call a held queue hung"),
};

/* net/ra6: the port's router advertisements. */
#define RAC(name, field, doc) { name, offsetof(struct ra6_stats, field), doc }
static const struct stats_counter stats_ra6_counters[] = {
    RAC("ra6_sent", sent,
        "IPv6 router advertisements sent (advertise6 yes: three in the first 33 s after each link-up, then one every 200..600 s, and answers)"),
    RAC("ra6_solicited", solicited,
        "of `ra6_sent`: those that answered router solicitations (one answers every solicitation since the last)"),
    RAC("ra6_alloc_fail", alloc_fail,
        "no buffer for a router advertisement (tried again 1 s later)"),
};

/* net/dad6: duplicate address detection of the port's IPv6 addresses. */
#define DC(name, field, doc) { name, offsetof(struct dad6_stats, field), doc }
static const struct stats_counter stats_dad6_counters[] = {
    DC("dad6_probes_sent", probes_sent,
       "duplicate address detection solicitations for our IPv6 addresses (two at each link-up)"),
    DC("dad6_conflicts", conflicts,
       "advertisements by another node for one of our IPv6 addresses (each reported, 1 line per 10 s)"),
    DC("dad6_alloc_fail", alloc_fail,
       "no buffer for a duplicate address detection solicitation"),
};

#define NC(name, field, doc) { name, offsetof(struct neigh_stats, field), doc }
static const struct stats_counter stats_neigh_counters[] = {
    NC("inserted", inserted,
       "a new neighbour took a free slot"),
    NC("refreshed", refreshed,
       "a known neighbour confirmed, same MAC"),
    NC("mac_changed", mac_changed,
       "a known neighbour's MAC changed (an ARP from its address said so: failover, or someone on that wire claiming it)"),
    NC("replaced_oldest", replaced_oldest,
       "a new neighbour replaced the stalest entry of its slots (the table is bounded: 256 entries)"),
    NC("replaced_in_use", replaced_in_use,
       "of `replaced_oldest`: every entry there was a next hop in use (otherwise those are kept)"),
    NC("rejected", rejected,
       "an update with address 0 or a zero or group MAC, refused"),
    NC("probes_sent", probes_sent,
       "unicast ARP probes of stale neighbours in use (neigh.reachable_ms after their last ARP)"),
    NC("probe_failed", probe_failed,
       "neighbours forgotten after neigh.probes unanswered probes (gone, or a new MAC: the next frame asks by broadcast)"),
    NC("expired", expired,
       "stale neighbours nothing used for 10 x neigh.reachable_ms, forgotten"),
    NC("flushed", flushed,
       "neighbours forgotten by `neigh flush`"),
    NC("static_kept", static_kept,
       "ARP claimed a static neighbour's address (neigh.static) with another MAC: ignored"),
};

#define CC(name, field, doc) { name, offsetof(struct percpu, field), doc }
static const struct stats_counter stats_core_counters[] = {
    CC("loop_iterations", loop_iterations,
       "passes of the core's run-to-completion loop"),
    CC("busy_cycles", busy_cycles,
       "TSC cycles of loop passes that received at least one frame"),
    CC("idle_cycles", idle_cycles,
       "TSC cycles of passes that received nothing (time halted included)"),
    CC("halts", halts,
       "adaptive mode: times the core armed its interrupts and slept"),
    CC("timer_irqs", timer_irqs,
       "local APIC timer interrupts (core 0 wakes every 10 ms while halted, for the console)"),
    CC("wake_irqs", wake_irqs,
       "wake-up interrupts from core 0 when a port changed state (reset, device gone)"),
    CC("unexpected_irqs", unexpected_irqs,
       "interrupts on a vector nobody owns (should stay 0)"),
};

#define NCOUNTERS(t) (sizeof(t) / sizeof((t)[0]))

static uint64_t stats_at(const void *base, size_t offset)
{
    return *(const volatile uint64_t *)((const char *)base + offset);
}

static uint64_t stats_queue_irqs(const struct nic_queue *q, unsigned core)
{
    const struct irq_slot *s = irq_slot_of(core, q->vector);
    return s ? s->count : 0;
}

/* --- the walk: every counter, in one fixed order ------------------------------------------- */

/* A walk visits every counter once, in the same order every time, numbering them; views
 * (json, table, watch) and `clear` are visitors. Fixed order + numbering is what lets `clear`
 * keep a baseline and `watch` a previous value per counter without naming them. */
enum stats_scope { SC_CORES, SC_CORE, SC_PORTS, SC_PORT, SC_HW, SC_QUEUES, SC_QUEUE, SC_VLANS,
                   SC_VLAN, SC_NEIGH, SC_SINK, SC_SINK_GROUP };

struct stats_visitor {
    void (*begin)(struct stats_visitor *v, enum stats_scope s, unsigned index);
    void (*end)(struct stats_visitor *v, enum stats_scope s);
    void (*attr_u64)(struct stats_visitor *v, const char *key, uint64_t value);
    void (*attr_str)(struct stats_visitor *v, const char *key, const char *value);
    /* value = raw - baseline (since the last `clear`); idx numbers the counter in the walk */
    void (*counter)(struct stats_visitor *v, const char *name, uint64_t value, uint64_t raw,
                    unsigned idx);
    const char *label; /* SC_SINK_GROUP: the group's name, set by the walk before begin */
};

#define STATS_MAX_COUNTERS (WS_MAX_CPUS * (24 + NIC_MAX_PORTS * 160) + NIC_MAX_PORTS * 32 + 256)

/* console core only */
static uint64_t stats_baseline[STATS_MAX_COUNTERS];
static uint64_t stats_cleared_ns;
static unsigned stats_ncounters;

struct stats_walk {
    struct stats_visitor *v;
    unsigned idx;
};

static void walk_counter(struct stats_walk *w, const char *name, uint64_t raw)
{
    unsigned i = w->idx++;
    uint64_t base = i < STATS_MAX_COUNTERS ? stats_baseline[i] : 0;
    w->v->counter(w->v, name, raw - base, raw, i);
}

static void walk_table(struct stats_walk *w, const void *base, const struct stats_counter *t,
                       size_t n, const char *prefix)
{
    char name[48];
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "%s%s", prefix, t[i].name);
        walk_counter(w, name, stats_at(base, t[i].offset));
    }
}

static void walk_core(struct stats_walk *w, unsigned c)
{
    const struct percpu *cpu = &percpu_blocks[c];
    const struct pkb_pool *pool = nic_pool(c);
    w->v->begin(w->v, SC_CORE, c);
    w->v->attr_u64(w->v, "core", c);
    w->v->attr_u64(w->v, "apic_id", cpu->apic_id);
    w->v->attr_u64(w->v, "node", cpu->numa_node);
    /* where its buffers really lie (SRAT's ranges): the node the core asked for, unless that
     * node had no memory left; -1 (as 2^64 - 1) if SRAT names no node for them */
    w->v->attr_u64(w->v, "pool_node", (uint64_t)(int64_t)dma_node_of(pool->data_base));
    walk_table(w, cpu, stats_core_counters, NCOUNTERS(stats_core_counters), "");
    w->v->attr_u64(w->v, "pool_size", pool->size);
    w->v->attr_u64(w->v, "pool_free", pool->nfree);
    walk_counter(w, "pool_alloc_fail", pool->alloc_fail);
    walk_counter(w, "pool_foreign_free", pool->foreign_free);
    walk_counter(w, "pool_double_free", pool->double_free);
    const struct handoff_stats *h = handoff_stats_of(c);
    walk_counter(w, "sink_handed", h->handed);
    walk_counter(w, "sink_ring_full", h->ring_full);
    walk_counter(w, "sink_no_sink", h->no_sink);
    walk_counter(w, "sink_reclaimed", h->reclaimed);
    walk_counter(w, "kicks_received", cpu->kicks_received);
    w->v->end(w->v, SC_CORE);
}

static void walk_queue(struct stats_walk *w, const struct nic_port *p, unsigned qi)
{
    const struct nic_queue *q = &p->q[qi];
    const struct fwd_stats *f = fwd_stats_of(p->index, qi);
    char name[48];
    w->v->begin(w->v, SC_QUEUE, qi);
    w->v->attr_u64(w->v, "queue", qi);
    w->v->attr_u64(w->v, "core", qi);
    w->v->attr_u64(w->v, "ring_node", (uint64_t)(int64_t)dma_node_of((const void *)q->rx.desc));
    walk_counter(w, "irqs", stats_queue_irqs(q, qi));
    const struct net_queue_stats *ns = net_queue_stats_of(p->index, qi);
    walk_table(w, q, stats_queue_counters, NCOUNTERS(stats_queue_counters), "");
    walk_table(w, ns, stats_netq_counters, NCOUNTERS(stats_netq_counters), "");
    walk_table(w, f, stats_fwd_counters, NCOUNTERS(stats_fwd_counters), "");
    walk_table(w, nexthop_stats_of(p->index, qi), stats_nexthop_counters,
               NCOUNTERS(stats_nexthop_counters), "");
    for (size_t i = 0; i < net_drop_counter_count; i++) {
        snprintf(name, sizeof(name), "drop_%s", net_drop_counters[i].name);
        walk_counter(w, name, stats_at(&ns->local.drop, net_drop_counters[i].offset));
    }
    for (size_t i = 0; i < route_drop_counter_count; i++) {
        snprintf(name, sizeof(name), "route_%s", route_drop_counters[i].name);
        walk_counter(w, name, stats_at(&f->route, route_drop_counters[i].offset));
    }
    walk_table(w, nexthop6_stats_of(p->index, qi), stats_nexthop6_counters,
               NCOUNTERS(stats_nexthop6_counters), "");
    for (size_t i = 0; i < net_drop6_counter_count; i++) {
        snprintf(name, sizeof(name), "drop6_%s", net_drop6_counters[i].name);
        walk_counter(w, name, stats_at(&ns->local6.drop, net_drop6_counters[i].offset));
    }
    for (size_t i = 0; i < route6_drop_counter_count; i++) {
        snprintf(name, sizeof(name), "route6_%s", route6_drop_counters[i].name);
        walk_counter(w, name, stats_at(&f->route6, route6_drop_counters[i].offset));
    }
    w->v->end(w->v, SC_QUEUE);
}

static uint64_t stats_queue_drops(const struct nic_port *p)
{
    uint64_t sum = 0;
    for (unsigned qi = 0; qi < p->nqueues; qi++) {
        sum += p->hw.rx_queue_drops[qi];
    }
    return sum;
}

/* stats_module_kind: what is in a port's cage: "none", the type, or "refused <type>". */
static const char *stats_module_kind(const struct nic_media *m)
{
    static char buf[NIC_MEDIA_STR_BYTES + 8];
    if (!m->present) {
        return "none";
    }
    if (!m->refused) {
        return m->kind;
    }
    snprintf(buf, sizeof(buf), "refused %s", m->kind);
    return buf;
}

/* walk_vlans: port p's VLAN sub-interfaces, each one's counters summed over the cores. */
static void walk_vlans(struct stats_walk *w, const struct nic_port *p)
{
    w->v->begin(w->v, SC_VLANS, p->index);
    for (unsigned i = WS_MAX_PORTS; i < net_iface_count; i++) {
        const struct net_port *np = net_iface_at(i);
        if (!np->present || np->ifc.port != p->index) {
            continue;
        }
        struct net_vlan_stats sum = { 0 };
        for (unsigned c = 0; c < smp_cores_online(); c++) {
            /* every field a counter (the padding 0): summed word by word, so none is missed */
            const uint64_t *vs = (const uint64_t *)net_vlan_stats_of(np, c);
            uint64_t *to = (uint64_t *)&sum;
            for (unsigned k = 0; k < sizeof(sum) / sizeof(uint64_t); k++) {
                to[k] += vs[k];
            }
        }
        w->v->label = np->name;
        w->v->begin(w->v, SC_VLAN, np->vid);
        w->v->attr_str(w->v, "name", np->name);
        w->v->attr_u64(w->v, "vid", np->vid);
        walk_table(w, &sum, stats_vlan_counters, NCOUNTERS(stats_vlan_counters), "");
        w->v->end(w->v, SC_VLAN);
    }
    w->v->end(w->v, SC_VLANS);
}

static void walk_port(struct stats_walk *w, const struct nic_port *p)
{
    w->v->begin(w->v, SC_PORT, p->index);
    w->v->attr_u64(w->v, "port", p->index);
    w->v->attr_str(w->v, "name", p->name);
    w->v->attr_str(w->v, "chip", p->ops->chip);
    w->v->attr_str(w->v, "link", p->link_up ? "true" : "false");
    w->v->attr_u64(w->v, "speed_mbps", p->speed_mbps);
    w->v->attr_str(w->v, "state", nic_port_state_name(p));
    if (p->pci->has_node) {
        w->v->attr_u64(w->v, "node", p->pci->node);
    }
    if (p->flow_control) {
        w->v->attr_str(w->v, "flow_control", p->flow_control);
    }
    if (p->media.cage) {
        w->v->attr_str(w->v, "module", stats_module_kind(&p->media));
        w->v->attr_str(w->v, "module_vendor", p->media.vendor);
        w->v->attr_str(w->v, "module_part", p->media.part);
        w->v->attr_str(w->v, "laser", p->media.laser_on ? "true" : "false");
    }
    walk_table(w, p, stats_port_counters, NCOUNTERS(stats_port_counters), "");
    w->v->attr_str(w->v, "dad6", dad6_state_name(p->index));
    walk_table(w, dad6_stats_of(p->index), stats_dad6_counters, NCOUNTERS(stats_dad6_counters),
               "");
    w->v->attr_str(w->v, "ra6", ra6_state_name(p->index));
    walk_table(w, ra6_stats_of(p->index), stats_ra6_counters, NCOUNTERS(stats_ra6_counters), "");
    w->v->begin(w->v, SC_HW, p->index);
    walk_counter(w, "rx_queue_drops", stats_queue_drops(p));
    walk_table(w, &p->hw, stats_hw_counters, NCOUNTERS(stats_hw_counters), "");
    w->v->end(w->v, SC_HW);
    w->v->begin(w->v, SC_QUEUES, p->index);
    for (unsigned qi = 0; qi < p->nqueues; qi++) {
        walk_queue(w, p, qi);
    }
    w->v->end(w->v, SC_QUEUES);
    walk_vlans(w, p);
    w->v->end(w->v, SC_PORT);
}

/* The sink's groups (apps/sink/sink_stats.c) through the same walk. */
static void walk_sink_group(void *ctx, const char *name, bool begin)
{
    struct stats_walk *w = ctx;
    if (begin) {
        w->v->label = name;
        w->v->begin(w->v, SC_SINK_GROUP, 0);
    } else {
        w->v->end(w->v, SC_SINK_GROUP);
    }
}

static void walk_sink_counter(void *ctx, const char *name, uint64_t value)
{
    walk_counter(ctx, name, value);
}

static void walk_sink_attr(void *ctx, const char *name, uint64_t value)
{
    struct stats_walk *w = ctx;
    w->v->attr_u64(w->v, name, value);
}

static void walk_sink(struct stats_walk *w)
{
    const struct sink_stats_sink s = { w, walk_sink_group, walk_sink_counter, walk_sink_attr };
    if (!sink_running()) {
        return;
    }
    w->v->begin(w->v, SC_SINK, 0);
    w->v->attr_u64(w->v, "core", (uint64_t)handoff_sink_core());
    sink_stats_walk(&s);
    w->v->end(w->v, SC_SINK);
}

/* stats_walk_all: fresh hardware counters, then every counter in the fixed order. */
static void stats_walk_all(struct stats_visitor *v)
{
    struct stats_walk w = { v, 0 };
    nic_housekeeping();
    v->begin(v, SC_CORES, 0);
    for (unsigned c = 0; c < smp_cores_online(); c++) {
        walk_core(&w, c);
    }
    v->end(v, SC_CORES);
    v->begin(v, SC_PORTS, 0);
    for (unsigned i = 0; i < nic_port_count(); i++) {
        walk_port(&w, nic_port(i));
    }
    v->end(v, SC_PORTS);
    const struct neigh_table *nt = &nexthop_neighbours;
    v->begin(v, SC_NEIGH, 0);
    v->attr_u64(v, "entries", neigh_count(nt));
    walk_table(&w, &nt->stats, stats_neigh_counters, NCOUNTERS(stats_neigh_counters), "");
    v->attr_u64(v, "nd_entries", neigh_count(&nexthop6_neighbours));
    walk_table(&w, &nexthop6_neighbours.stats, stats_neigh_counters,
               NCOUNTERS(stats_neigh_counters), "nd_");
    v->end(v, SC_NEIGH);
    walk_sink(&w);
    stats_ncounters = w.idx;
}

/* --- stats json ------------------------------------------------------------------------------ */

struct json_visitor {
    struct stats_visitor v;
    struct jw w;
};

static void jv_begin(struct stats_visitor *v, enum stats_scope s, unsigned index)
{
    struct jw *w = &((struct json_visitor *)v)->w;
    (void)index;
    switch (s) {
    case SC_CORES:
        jw_begin_array(w, "cores");
        break;
    case SC_PORTS:
        jw_begin_array(w, "ports");
        break;
    case SC_QUEUES:
        jw_begin_array(w, "queues");
        break;
    case SC_VLANS:
        jw_begin_array(w, "vlans");
        break;
    case SC_HW:
        jw_begin_object(w, "hw");
        break;
    case SC_SINK:
        jw_begin_object(w, "sink");
        break;
    case SC_SINK_GROUP:
        jw_begin_object(w, v->label);
        break;
    case SC_NEIGH:
        jw_begin_object(w, "neigh");
        break;
    default:
        jw_begin_object(w, NULL);
        break;
    }
}

static void jv_end(struct stats_visitor *v, enum stats_scope s)
{
    struct jw *w = &((struct json_visitor *)v)->w;
    if (s == SC_CORES || s == SC_PORTS || s == SC_QUEUES || s == SC_VLANS) {
        jw_end_array(w);
    } else {
        jw_end_object(w);
    }
}

static void jv_attr_u64(struct stats_visitor *v, const char *key, uint64_t value)
{
    jw_u64(&((struct json_visitor *)v)->w, key, value);
}

static void jv_attr_str(struct stats_visitor *v, const char *key, const char *value)
{
    struct jw *w = &((struct json_visitor *)v)->w;
    if (strcmp(value, "true") == 0 || strcmp(value, "false") == 0) {
        jw_bool(w, key, value[0] == 't');
    } else {
        jw_str(w, key, value);
    }
}

static void jv_counter(struct stats_visitor *v, const char *name, uint64_t value, uint64_t raw,
                       unsigned idx)
{
    (void)raw, (void)idx;
    jw_u64(&((struct json_visitor *)v)->w, name, value);
}

static void stats_json(void)
{
    static char buf[STATS_JSON_BYTES]; /* console core only */
    struct json_visitor jv = { { jv_begin, jv_end, jv_attr_u64, jv_attr_str, jv_counter, NULL },
                              { 0 } };

    jw_init(&jv.w, buf, sizeof(buf) - 1);
    jw_begin_object(&jv.w, NULL);
    jw_u64(&jv.w, "schema", STATS_JSON_SCHEMA);
    jw_u64(&jv.w, "uptime_ns", time_ns());
    jw_u64(&jv.w, "tsc_hz", time_tsc_hz());
    jw_u64(&jv.w, "cleared_ns", stats_cleared_ns);
    jw_u64(&jv.w, "console_dropped_bytes", console_output_dropped());
    stats_walk_all(&jv.v);
    jw_end_object(&jv.w);
    if (!jw_ok(&jv.w)) {
        kprintf("error: stats json does not fit in %d bytes\n", STATS_JSON_BYTES);
        return;
    }
    buf[jv.w.len] = '\n';
    console_write(buf, jv.w.len + 1);
}

/* --- clear ----------------------------------------------------------------------------------- */

static void clear_counter(struct stats_visitor *v, const char *name, uint64_t value,
                          uint64_t raw, unsigned idx)
{
    (void)v, (void)name, (void)value;
    if (idx < STATS_MAX_COUNTERS) {
        stats_baseline[idx] = raw;
    }
}

static void nop_begin(struct stats_visitor *v, enum stats_scope s, unsigned index)
{
    (void)v, (void)s, (void)index;
}

static void nop_end(struct stats_visitor *v, enum stats_scope s)
{
    (void)v, (void)s;
}

static void nop_attr_u64(struct stats_visitor *v, const char *key, uint64_t value)
{
    (void)v, (void)key, (void)value;
}

static void nop_attr_str(struct stats_visitor *v, const char *key, const char *value)
{
    (void)v, (void)key, (void)value;
}

void stats_cmd_clear(int argc, char **argv)
{
    (void)argc, (void)argv;
    struct stats_visitor v = { nop_begin, nop_end, nop_attr_u64, nop_attr_str, clear_counter,
                               NULL };
    stats_walk_all(&v);
    stats_cleared_ns = time_ns();
    kprintf("counters cleared (%u software views reset; hardware registers untouched)\n",
            stats_ncounters);
}
/* --- the human table (and watch): grouped, only what is non-zero / changed ------------------- */

/* Which part of the walk a view shows: everything, one port, or one core. */
struct stats_filter {
    int port; /* -1: any */
    int core; /* -1: any */
    bool sink_only; /* only the sink's groups */
};

struct table_visitor {
    struct stats_visitor v;
    struct stats_filter f;
    bool watch;          /* print rates of changed counters instead of non-zero totals */
    bool silent;         /* watch: only record the values (the first sample after `watch on`) */
    uint64_t elapsed_ns; /* watch: since the previous sample */
    int port, core;      /* current position in the walk */
    bool in_core;
    bool in_sink;
    char group[32];      /* label of the current group */
    char line[160];      /* counters of the current group, flushed at its end */
    size_t len;
};

static uint64_t watch_prev[STATS_MAX_COUNTERS]; /* console core: raw values at the last sample */

static bool tv_selected(const struct table_visitor *t)
{
    if (t->f.sink_only || t->in_sink) {
        return t->in_sink && t->f.port < 0 && t->f.core < 0;
    }
    if (t->in_core) {
        return t->f.port < 0 && (t->f.core < 0 || t->f.core == t->core);
    }
    return t->f.core < 0 ? (t->f.port < 0 || t->f.port == t->port) : false;
}

static void tv_flush(struct table_visitor *t)
{
    if (t->len > 0) {
        kprintf("%-12s%s\n", t->group, t->line);
        t->len = 0;
    }
}

static void tv_begin(struct stats_visitor *v, enum stats_scope s, unsigned index)
{
    struct table_visitor *t = (struct table_visitor *)v;
    tv_flush(t);
    if (s == SC_CORE) {
        t->in_core = true, t->core = (int)index;
        snprintf(t->group, sizeof(t->group), "core%u", index);
    } else if (s == SC_PORT) {
        t->in_core = false, t->port = (int)index;
        snprintf(t->group, sizeof(t->group), "port%u", index);
    } else if (s == SC_HW) {
        snprintf(t->group, sizeof(t->group), "port%u hw", index);
    } else if (s == SC_QUEUE) {
        snprintf(t->group, sizeof(t->group), "port%d q%u", t->port, index);
    } else if (s == SC_VLAN) {
        snprintf(t->group, sizeof(t->group), "%s", v->label);
    } else if (s == SC_NEIGH) {
        t->in_core = false, t->port = -1;
        snprintf(t->group, sizeof(t->group), "neigh");
    } else if (s == SC_SINK) {
        t->in_core = false, t->in_sink = true;
    } else if (s == SC_SINK_GROUP) {
        snprintf(t->group, sizeof(t->group), "sink %s", v->label);
    }
}

static void tv_end(struct stats_visitor *v, enum stats_scope s)
{
    (void)s;
    tv_flush((struct table_visitor *)v);
}

static void tv_counter(struct stats_visitor *v, const char *name, uint64_t value, uint64_t raw,
                       unsigned idx)
{
    struct table_visitor *t = (struct table_visitor *)v;
    char num[FMT_U64_GROUPED_BYTES];
    uint64_t shown = value;
    if (t->watch) {
        uint64_t prev = idx < STATS_MAX_COUNTERS ? watch_prev[idx] : raw;
        if (idx < STATS_MAX_COUNTERS) {
            watch_prev[idx] = raw;
        }
        if (raw == prev || t->silent) {
            return;
        }
        shown = fmt_rate_per_sec(raw - prev, t->elapsed_ns);
    } else if (value == 0) {
        return;
    }
    if (!tv_selected(t)) {
        return;
    }
    fmt_u64_grouped(num, shown);
    size_t need = strlen(name) + strlen(num) + 5;
    if (t->len + need >= sizeof(t->line) - 1) {
        tv_flush(t); /* long groups continue on the next line, same label */
    }
    t->len += (size_t)snprintf(t->line + t->len, sizeof(t->line) - t->len, " %s %s%s", name, num,
                               t->watch ? "/s" : "");
}

static void stats_table(struct stats_filter f, bool watch, uint64_t elapsed_ns)
{
    struct table_visitor t = {
        .v = { tv_begin, tv_end, nop_attr_u64, nop_attr_str, tv_counter, NULL },
        .f = f, .watch = watch, .elapsed_ns = elapsed_ns, .port = -1, .core = -1,
    };
    stats_walk_all(&t.v);
}

/* stats_index_arg: "N" below limit -> N, or -1 with an error printed. */
static int stats_index_arg(const char *what, const char *s, unsigned limit)
{
    char *end;
    long n = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || n < 0 || n >= (long)limit) {
        kprintf("error: no %s '%s' (%ss 0..%d)\n", what, s, what, (int)limit - 1);
        return -1;
    }
    return (int)n;
}

/* stats_core_rx: frames core c received on all ports (its queue on each). */
static uint64_t stats_core_rx(unsigned c)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < nic_port_count(); i++) {
        const struct nic_port *p = nic_port(i);
        n += c < p->nqueues ? p->q[c].rx.stats.packets : 0;
    }
    return n;
}

/* CPU cost from inside, like netperf's -c/-C: busy share of the core's cycles, and busy
 * cycles per received frame (since boot: the cycle counters are not cleared). */
static void stats_print_cores_summary(void)
{
    char cpp[FMT_U64_GROUPED_BYTES];
    for (unsigned c = 0; c < smp_cores_online(); c++) {
        const struct percpu *cpu = &percpu_blocks[c];
        uint64_t busy = cpu->busy_cycles, idle = cpu->idle_cycles, rx = stats_core_rx(c);
        uint64_t permille = busy + idle ? busy * 1000 / (busy + idle) : 0;
        fmt_u64_grouped(cpp, rx ? busy / rx : 0);
        kprintf("core%u busy %llu.%llu%%, %s cycles/packet, pool free %u of %u\n", c,
                (unsigned long long)(permille / 10), (unsigned long long)(permille % 10),
                rx ? cpp : "-", nic_pool(c)->nfree, nic_pool(c)->size);
    }
}

void stats_cmd_stats(int argc, char **argv)
{
    struct stats_filter f = { -1, -1, false };
    if (argc == 2 && strcmp(argv[1], "json") == 0) {
        stats_json();
        return;
    }
    if (argc == 2 && strcmp(argv[1], "doc") == 0) {
        stats_cmd_doc(argc, argv);
        return;
    }
    if (argc == 3 && strcmp(argv[1], "port") == 0) {
        if ((f.port = stats_index_arg("port", argv[2], nic_port_count())) < 0) {
            return;
        }
    } else if (argc == 3 && strcmp(argv[1], "core") == 0) {
        if ((f.core = stats_index_arg("core", argv[2], smp_cores_online())) < 0) {
            return;
        }
    } else if (argc == 2 && strcmp(argv[1], "sink") == 0) {
        f.sink_only = true;
    } else if (!(argc == 1 || (argc == 2 && strcmp(argv[1], "all") == 0))) {
        kprintf("error: usage: stats [all | json | doc | port N | core N | sink]\n");
        return;
    }
    kprintf("counters since %s (non-zero only)\n", stats_cleared_ns ? "the last clear" : "boot");
    stats_table(f, false, 0);
    if (f.port < 0 && !f.sink_only) {
        stats_print_cores_summary();
    }
}

/* --- watch: per-second deltas of what changed ------------------------------------------------ */

static uint64_t watch_interval_ns = (uint64_t)CONFIG_CONSOLE_WATCH_SECONDS * 1000000000ULL;
static uint64_t watch_last_ns;

/* watch_sample: print the rates of every counter that changed since the previous sample. */
static void watch_sample(uint64_t now)
{
    uint64_t elapsed = now - watch_last_ns;
    struct stats_filter all = { -1, -1, false };
    char secs[FMT_U64_GROUPED_BYTES];
    watch_last_ns = now;
    fmt_u64_grouped(secs, elapsed / 1000000);
    kprintf("watch: rates over the last %s ms\n", secs);
    stats_table(all, true, elapsed);
}

void stats_watch_poll(void)
{
    if (watch_interval_ns == 0) {
        return;
    }
    uint64_t now = time_ns();
    if (now - watch_last_ns >= watch_interval_ns) {
        watch_sample(now);
    }
}

/* watch_prime: take a silent sample so the first printed one shows only new changes. */
static void watch_prime(void)
{
    struct table_visitor t = {
        .v = { tv_begin, tv_end, nop_attr_u64, nop_attr_str, tv_counter, NULL },
        .f = { -1, -1, false }, .watch = true, .silent = true, .elapsed_ns = 1, .port = -1,
        .core = -1,
    };
    stats_walk_all(&t.v); /* records every value, prints nothing */
    watch_last_ns = time_ns();
}

void stats_cmd_watch(int argc, char **argv)
{
    if (argc == 1) {
        kprintf("watch is %s", watch_interval_ns ? "on" : "off");
        if (watch_interval_ns) {
            kprintf(", every %llu s", (unsigned long long)(watch_interval_ns / 1000000000ULL));
        }
        kprintf("\n");
        return;
    }
    char *end;
    long secs = strtol(argv[1], &end, 10);
    if (strcmp(argv[1], "off") == 0) {
        watch_interval_ns = 0;
    } else if (strcmp(argv[1], "on") == 0 || (*end == '\0' && secs >= 1 && secs <= 3600)) {
        uint64_t s = strcmp(argv[1], "on") == 0 ? 1 : (uint64_t)secs;
        watch_prime();
        watch_interval_ns = s * 1000000000ULL;
    } else {
        kprintf("error: usage: watch [on | off | <seconds 1..3600>]\n");
        return;
    }
    kprintf("watch %s\n", watch_interval_ns ? "on" : "off");
}

void stats_cmd_ports(int argc, char **argv)
{
    (void)argc, (void)argv;
    kprintf("%-6s %-13s %-6s %-17s %-5s %6s %6s  %s\n", "port", "pci", "chip", "mac", "link",
            "Mb/s", "queues", "address");
    for (unsigned i = 0; i < nic_port_count(); i++) {
        const struct nic_port *p = nic_port(i);
        const struct net_port *np = net_port(i);
        char bdf[16], addr[24] = "-", ip[INET_IPV4_STR_BYTES];
        if (np->has_address) {
            snprintf(addr, sizeof(addr), "%s/%u", inet_ipv4_str(ip, np->ifc.ip),
                     np->ifc.prefix_len);
        }
        enum nic_port_state st = nic_port_state(p);
        const char *link = st == NIC_PORT_DEAD      ? "dead"
                           : st == NIC_PORT_STOPPED ? "reset"
                           : p->link_up             ? "up"
                                                    : "down";
        kprintf("%-6s %-13s %-6s %02x:%02x:%02x:%02x:%02x:%02x %-5s %6u %6u  %s\n", p->name,
                pci_bdf(p->pci, bdf), p->ops->chip, p->mac[0], p->mac[1], p->mac[2], p->mac[3],
                p->mac[4], p->mac[5], link, p->speed_mbps, p->nqueues, addr);
        if (p->media.cage) {
            kprintf("%-6s module %s%s%s%s%s, laser %s\n", "", stats_module_kind(&p->media),
                    p->media.vendor[0] ? ", " : "", p->media.vendor,
                    p->media.part[0] ? " " : "", p->media.part, p->media.laser_on ? "on" : "off");
        }
        if (p->flow_control) {
            kprintf("%-6s flow control %s\n", "", p->flow_control);
        }
    }
}

void stats_cmd_rings(int argc, char **argv)
{
    if (argc != 2) {
        kprintf("error: usage: rings <port>\n");
        return;
    }
    int n = stats_index_arg("port", argv[1], nic_port_count());
    if (n < 0) {
        return;
    }
    struct nic_port *p = nic_port((unsigned)n);
    if (nic_port_state(p) == NIC_PORT_DEAD) {
        kprintf("%s is dead: registers not read\n", p->name);
        return;
    }
    kprintf("%-5s %6s %6s %6s %6s | %6s %6s %6s %6s %6s\n", "queue", "RDH", "RDT", "rx_ntc",
            "rx_ntu", "TDH", "TDT", "tx_ntc", "tx_ntu", "flight");
    for (unsigned qi = 0; qi < p->nqueues; qi++) {
        const struct nic_queue *q = &p->q[qi];
        uint32_t rdh, rdt, tdh, tdt;
        p->ops->ring_heads(p, qi, &rdh, &rdt, &tdh, &tdt);
        kprintf("%-5u %6u %6u %6u %6u | %6u %6u %6u %6u %6u\n", qi, rdh, rdt,
                iring_rx_next_to_clean(&q->rx), iring_rx_next_to_use(&q->rx), tdh, tdt,
                iring_tx_next_to_clean(&q->tx), iring_tx_next_to_use(&q->tx),
                iring_tx_in_flight(&q->tx));
    }
}

void stats_cmd_regs(int argc, char **argv)
{
    int n = argc == 2 ? stats_index_arg("port", argv[1], nic_port_count()) : -1;
    if (argc != 2) {
        kprintf("error: usage: regs <port>\n");
    }
    if (n >= 0) {
        struct nic_port *p = nic_port((unsigned)n);
        kprintf("%s (%s) registers:\n", p->name, p->ops->chip);
        if (nic_port_state(p) == NIC_PORT_DEAD) {
            kprintf("  port dead: registers not read\n");
        } else {
            p->ops->dump_regs(p);
        }
    }
}

/* --- stats doc: the catalogue as Markdown ---------------------------------------------------- */

static void doc_rows(const struct stats_counter *t, size_t n, const char *prefix)
{
    for (size_t i = 0; i < n; i++) {
        kprintf("| `%s%s` | %s |\n", prefix, t[i].name, t[i].doc);
    }
}

static void doc_begin(const char *section)
{
    kprintf("<!-- counters:%s -->\n| counter | meaning |\n| --- | --- |\n", section);
}

static void doc_end(const char *section)
{
    kprintf("<!-- /counters:%s -->\n", section);
}

/* The per-core pool and per-queue interrupt counters live outside the tables above. */
static const struct stats_counter stats_doc_extra_core[] = {
    { "node", 0, "the core's NUMA node (the firmware's SRAT; 0 without one)" },
    { "pool_node", 0, "the node the core's packet buffers lie in: its own, unless that node's "
                      "memory ran out (then the nearest by SLIT; 2^64 - 1: in memory SRAT "
                      "assigns to no node)" },
    { "pool_size", 0, "packet buffers in the core's own pool (`nic.pool_buffers`)" },
    { "pool_free", 0, "of which free now; with traffic stopped, `pool_size` minus the buffers "
                      "posted in the core's RX rings" },
    { "pool_alloc_fail", 0, "a buffer was needed and the pool was empty (the ring then counts "
                            "`rx_no_buffer`)" },
    { "pool_foreign_free", 0, "a core freed a buffer it does not own (a bug; the buffer is "
                              "leaked, not corrupted)" },
    { "pool_double_free", 0, "a buffer was freed twice (a bug; the second free is ignored)" },
    { "sink_handed", 0, "frames this core passed to the sink core (TCP/UDP/fragments to us)" },
    { "sink_ring_full", 0, "frames dropped: this core's ring to the sink core was full" },
    { "sink_no_sink", 0, "frames dropped: for the sink, but no sink is running" },
    { "sink_reclaimed", 0, "buffers lwIP released, freed back into this core's pool" },
    { "kicks_received", 0, "wake-up IPIs from other cores (adaptive mode: something was put "
                           "on one of this core's rings while it slept)" },
};

static const struct stats_counter stats_doc_extra_queue[] = {
    { "ring_node", 0, "the NUMA node the queue's descriptor rings lie in: the port's `node` when "
                      "the firmware gives one, else the queue's core's (2^64 - 1: memory SRAT "
                      "assigns to no node)" },
    { "irqs", 0, "interrupts on this queue's MSI-X vector, counted on its core (adaptive mode "
                 "only)" },
};

static const struct stats_counter stats_doc_extra_hw[] = {
    { "rx_queue_drops", 0, "frames dropped per queue because the queue had no descriptor "
                           "(RQDPC, summed)" },
};

static void doc_sink_row(const char *group, const char *name, const char *doc)
{
    kprintf("| %s: `%s` | %s |\n", group, name, doc);
}

void stats_cmd_doc(int argc, char **argv)
{
    (void)argc, (void)argv;
    doc_begin("core");
    doc_rows(stats_core_counters, NCOUNTERS(stats_core_counters), "");
    doc_rows(stats_doc_extra_core, NCOUNTERS(stats_doc_extra_core), "");
    doc_end("core");
    doc_begin("port");
    kprintf("| `node` | the NUMA node the NIC hangs off, from its PCI root bridge's `_PXM` in the "
            "firmware's ACPI namespace; absent when the firmware does not say |\n");
    doc_rows(stats_port_counters, NCOUNTERS(stats_port_counters), "");
    kprintf("| `dad6` | duplicate address detection of its IPv6 addresses: off (none), waiting for link, tentative (1 s after each link-up), done, or duplicate (another node answered) |\n");
    doc_rows(stats_dad6_counters, NCOUNTERS(stats_dad6_counters), "");
    kprintf("| `ra6` | router advertisements: off (advertise6 no, or no address6), waiting for link, initial (the first three after a link-up, 16 s apart) or periodic |\n");
    doc_rows(stats_ra6_counters, NCOUNTERS(stats_ra6_counters), "");
    doc_end("port");
    doc_begin("hw");
    doc_rows(stats_doc_extra_hw, NCOUNTERS(stats_doc_extra_hw), "");
    doc_rows(stats_hw_counters, NCOUNTERS(stats_hw_counters), "");
    doc_end("hw");
    doc_begin("queue");
    doc_rows(stats_doc_extra_queue, NCOUNTERS(stats_doc_extra_queue), "");
    doc_rows(stats_queue_counters, NCOUNTERS(stats_queue_counters), "");
    doc_rows(stats_netq_counters, NCOUNTERS(stats_netq_counters), "");
    doc_end("queue");
    doc_begin("vlan");
    kprintf("| `name` | the sub-interface, portN.VID (in the port's `vlans` list) |\n");
    kprintf("| `vid` | its 802.1Q VLAN ID |\n");
    doc_rows(stats_vlan_counters, NCOUNTERS(stats_vlan_counters), "");
    doc_end("vlan");
    doc_begin("fwd");
    doc_rows(stats_fwd_counters, NCOUNTERS(stats_fwd_counters), "");
    doc_rows(stats_nexthop_counters, NCOUNTERS(stats_nexthop_counters), "");
    doc_rows(stats_nexthop6_counters, NCOUNTERS(stats_nexthop6_counters), "");
    doc_end("fwd");
    doc_begin("neigh");
    kprintf("| `entries` | neighbours in the table now (at most 256) |\n");
    doc_rows(stats_neigh_counters, NCOUNTERS(stats_neigh_counters), "");
    kprintf("| `nd_entries` | IPv6 neighbours in the cache now (at most 256) |\n");
    doc_rows(stats_neigh_counters, NCOUNTERS(stats_neigh_counters), "nd_");
    doc_end("neigh");
    doc_begin("route");
    for (size_t i = 0; i < route_drop_counter_count; i++) {
        kprintf("| `route_%s` | %s |\n", route_drop_counters[i].name, route_drop_counters[i].why);
    }
    doc_end("route");
    doc_begin("route6");
    for (size_t i = 0; i < route6_drop_counter_count; i++) {
        kprintf("| `route6_%s` | %s |\n", route6_drop_counters[i].name,
                route6_drop_counters[i].why);
    }
    doc_end("route6");
    doc_begin("drop");
    for (size_t i = 0; i < net_drop_counter_count; i++) {
        kprintf("| `drop_%s` | %s |\n", net_drop_counters[i].name, net_drop_counters[i].why);
    }
    doc_end("drop");
    doc_begin("drop6");
    for (size_t i = 0; i < net_drop6_counter_count; i++) {
        kprintf("| `drop6_%s` | %s |\n", net_drop6_counters[i].name, net_drop6_counters[i].why);
    }
    doc_end("drop6");
    doc_begin("sink");
    sink_stats_doc(doc_sink_row);
    doc_end("sink");
}

#define STATS_WATCH_POLL_US 100000 /* the watch interval is checked 10 times a second */

static unsigned stats_watch_poll_core(unsigned core)
{
    (void)core;
    stats_watch_poll();
    return 0;
}

WS_POLLER(stats_watch, .order = POLLER_ORDER_STATS_WATCH, .runs_on = poller_on_core0,
          .poll = stats_watch_poll_core, .period_us = STATS_WATCH_POLL_US);

WS_COMMAND(ports, "ports", 0, "ports: PCI address, chip, MAC, link, queues, address",
           stats_cmd_ports);
WS_COMMAND(stats, "stats", 2, "counters: stats [all | json | doc | port N | core N | tcp]",
           stats_cmd_stats);
WS_COMMAND(clear, "clear", 0, "zero the counters' view (hardware registers untouched)",
           stats_cmd_clear);
WS_COMMAND(watch, "watch", 1, "watch [on | off | <seconds>]: per-second rates of what changed",
           stats_cmd_watch);
WS_COMMAND(rings, "rings", 1, "rings <port>: hardware head/tail and software ring indices",
           stats_cmd_rings);
WS_COMMAND(regs, "regs", 1, "regs <port>: register dump", stats_cmd_regs);
