/* apps/sink/sink_stats.c: the sink's counters as named groups (see header). */
#include "sink_stats.h"

#include <stddef.h>

#include "apps/sink/sink.h"
#include "apps/sink/sink_core.h"
#include "lwip/memp.h"
#include "lwip/stats.h"
#include "net/lwip-port/sink_netif.h"
#include "net/lwip-port/tcp_hooks.h"

#define N(t) (sizeof(t) / sizeof((t)[0]))

struct u64_row {
    const char *name;
    size_t offset;
    const char *doc;
    bool gauge; /* a level, not a running total: an attribute, never cleared or rated */
};

#define SV(f, doc) { #f, offsetof(struct sink_service_stats, f), doc, false }
static const struct u64_row service_rows[] = {
    SV(tests_run, "tests started (discard/echo: TCP connections accepted)"),
    SV(tests_done, "of those, ended normally"),
    SV(tests_failed, "of those, ended by an error, a timeout or a client that vanished"),
    SV(refused, "clients turned away: over sink.max_* or busy"),
    { "active", offsetof(struct sink_service_stats, active),
      "gauge: connections held now (0 when idle; a leak shows here)", true },
    SV(rx_bytes, "payload bytes received"),
    SV(tx_bytes, "payload bytes sent"),
    SV(rx_datagrams, "UDP datagrams received (netperf's empty end marker not counted)"),
    SV(tx_datagrams, "UDP datagrams sent"),
    SV(protocol_errors, "malformed control messages (bad cookie, JSON or request)"),
    SV(rx_ignored, "UDP datagrams dropped unmeasured: no running test of theirs (early, late or "
       "an unknown peer) or iperf3's --omit period"),
};

#define NV(f, doc) { #f, offsetof(struct sink_netif_stats, f), doc, false }
static const struct u64_row netif_rows[] = {
    NV(rx_wrapped, "frames handed to lwIP, each wrapped in place (zero copy)"),
    NV(rx_released, "of those, buffers lwIP has released back to their owning core"),
    NV(rx_csum_offloaded, "of those, TCP/UDP checksum verified by the NIC (not recomputed)"),
    NV(rx_csum_sw_verified, "of those, TCP checksum verified by the sink's own sum before they "
       "joined an aggregate (no NIC verdict; lwIP does not check them again)"),
    NV(rx_held_max, "most driver buffers lwIP held at once (out-of-order and reassembly queues)"),
    NV(rx_no_netif, "frames from a port without an lwIP interface: dropped"),
    NV(rx_hold_limit, "frames dropped: lwIP already held half of their core's pool (TCP resends)"),
    NV(rx_gro_aggregates, "runs of in-order TCP segments of one connection given to lwIP as one "
       "segment (software receive offload)"),
    NV(rx_gro_merged, "segments that joined such a run after its first (rx_wrapped counts each "
       "frame still)"),
    NV(rx_acks_superseded, "pure ACKs released without lwIP seeing them: a later ACK of the same "
       "connection in the same burst acknowledged more (ACK compression; frames handed over = "
       "rx_wrapped + this + rx_no_netif + rx_hold_limit)"),
    NV(tx_frames, "frames queued for the NIC: one per datagram lwIP sent, or the parts of a "
       "larger segment (tx_tso_frames, tx_split_frames)"),
    NV(tx_bytes, "their IP bytes (a TSO frame's headers once)"),
    NV(tx_csum_offloaded, "of those, TCP segments whose checksum the NIC completes (TX checksum "
       "offload: the sink primes the pseudo-header sum, the NIC sums the rest)"),
    NV(tx_csum_sw, "of those, TCP segments whose checksum the sink summed (an egress port "
       "without the offload, or IPv6)"),
    NV(tx_ip_csum_offloaded, "of those, IPv4 datagrams whose header checksum the NIC computed "
       "(offloaded TCP segments the NIC need not pad); the sink sums the others'"),
    NV(tx_by_reference, "of those, TCP segments whose data the NIC read straight from a "
       "service's constant payload (netperf, iperf3 -R): only the headers were copied"),
    NV(tx_tso_frames, "of those, parts of a larger segment of an offloaded connection "
       "(netperf TCP_MAERTS, iperf3 -R) that the NIC cuts into segments of the peer's MSS "
       "(TCP segmentation offload; each segment counts in the port's tx_packets)"),
    NV(tx_split_frames, "of those, parts of such a segment cut here at the peer's MSS (data "
       "lwIP copied, or a port that cannot cut)"),
    NV(tx_no_route, "lwIP output dropped: no route"),
    NV(tx_port_down, "lwIP output dropped: egress link down"),
    NV(tx_unresolved, "lwIP output dropped: next hop MAC unknown (ARP request sent)"),
    NV(tx_no_buffer, "lwIP output dropped: the sink core's pool was empty"),
    NV(tx_too_big, "lwIP output dropped: larger than a buffer"),
};

#define TV(f, doc) { #f, offsetof(struct lwport_tcp_stats, f), doc, false }
static const struct u64_row tcp_extra_rows[] = {
    TV(out_of_order, "data segments that arrived beyond the next expected byte (a hole)"),
    TV(dup_acks, "duplicate ACKs received (RFC 5681)"),
    TV(resets_received, "RST segments received for a known connection"),
    TV(half_open_evicted, "half-open connections reset because a listener's backlog "
                          "(64 half-open) was full: a SYN flood, answered without refusing clients"),
    TV(persist_stopped, "zero-window persist timers lwIP left running with nothing to send, "
                        "stopped (an lwIP 2.1.3 bug that would fail its assertion)"),
    TV(burst_acks, "ACKs lwIP had delayed, sent at the end of a receive burst instead (so a "
                   "client's small writes are never held back by its Nagle algorithm)"),
    TV(ooseq_past_window, "out-of-order segments that end past our receive window, dropped (an "
                          "lwIP 2.1.3 bug would queue them whole and fail its assertion later)"),
    TV(tso_connections, "connections whose segments the NIC cuts (TCP segmentation offload: "
                        "lwIP builds segments of up to 16 KiB for them)"),
};

struct u32_row {
    const char *name;
    const uint32_t *value;
    const char *doc;
};

static const struct u32_row tcp_rows[] = {
    { "segments_in", &lwip_stats.mib2.tcpinsegs, "TCP segments received (MIB-II tcpInSegs)" },
    { "segments_out", &lwip_stats.mib2.tcpoutsegs, "TCP segments sent (tcpOutSegs)" },
    { "retransmits", &lwip_stats.mib2.tcpretranssegs, "segments retransmitted (tcpRetransSegs)" },
    { "resets_sent", &lwip_stats.mib2.tcpoutrsts, "segments sent with RST (tcpOutRsts)" },
    { "passive_opens", &lwip_stats.mib2.tcppassiveopens, "connections accepted" },
    { "attempt_fails", &lwip_stats.mib2.tcpattemptfails, "handshakes that failed" },
    { "established_resets", &lwip_stats.mib2.tcpestabresets, "direct moves to CLOSED from "
      "ESTABLISHED or CLOSE-WAIT (tcpEstabResets: our close after the peer's FIN counts too)" },
    { "in_errors", &lwip_stats.mib2.tcpinerrs, "segments dropped as bad (tcpInErrs)" },
    { "checksum_errors", &lwip_stats.tcp.chkerr, "segments with a bad TCP checksum" },
    { "memory_errors", &lwip_stats.tcp.memerr, "segments lwIP could not queue for lack of memory" },
};

static const struct u32_row udp_rows[] = {
    { "datagrams_in", &lwip_stats.mib2.udpindatagrams, "UDP datagrams delivered to a service" },
    { "datagrams_out", &lwip_stats.mib2.udpoutdatagrams, "UDP datagrams sent" },
    { "no_port", &lwip_stats.mib2.udpnoports, "to a port nobody listens on (ICMP port "
                                              "unreachable answered)" },
    { "in_errors", &lwip_stats.mib2.udpinerrors, "dropped as bad (checksum, length)" },
};

static const struct u32_row ip_rows[] = {
    { "fragments_in", &lwip_stats.mib2.ipreasmreqds, "fragments received for reassembly" },
    { "reassembled", &lwip_stats.mib2.ipreasmoks, "datagrams reassembled" },
    { "reassembly_failed", &lwip_stats.mib2.ipreasmfails, "datagrams given up (timeout after "
                                                           "5 s, or out of reassembly memory)" },
    { "fragmented_out", &lwip_stats.mib2.ipfragoks, "datagrams we sent in fragments" },
};

/* The pools of lwIP's PBUF_RAM memory (net/lwip-port/lwippools.h: lwIP names each after its
 * size, and the MSS-sized one follows the MSS). */
#if TCP_MSS <= 1460
#define SINK_MEMP_RAM_MSS MEMP_POOL_1664
#else
#define SINK_MEMP_RAM_MSS MEMP_POOL_9216
#endif

/* The lwIP pools whose exhaustion a test or an attack could reach. */
static const struct {
    const char *name;
    memp_t pool;
} memp_rows[] = {
    { "tcp_pcb", MEMP_TCP_PCB },     { "tcp_listen", MEMP_TCP_PCB_LISTEN },
    { "tcp_seg", MEMP_TCP_SEG },     { "udp_pcb", MEMP_UDP_PCB },
    { "pbuf_ref", MEMP_PBUF },       { "reassembly", MEMP_REASSDATA },
    { "frag_pbuf", MEMP_FRAG_PBUF }, { "pbuf_pool", MEMP_PBUF_POOL },
    { "ram_headers", MEMP_POOL_256 }, { "ram_segments", SINK_MEMP_RAM_MSS },
    { "ram_datagrams", MEMP_POOL_65520 },
};

static const char *const service_names[SINK_SERVICE_COUNT] = { "discard", "echo", "iperf3",
                                                               "netperf" };

static void walk_u64(const struct sink_stats_sink *s, const void *base, const struct u64_row *t,
                     size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t v = *(const volatile uint64_t *)((const char *)base + t[i].offset);
        if (t[i].gauge) {
            s->attr(s->ctx, t[i].name, v);
        } else {
            s->counter(s->ctx, t[i].name, v);
        }
    }
}

static void walk_u32(const struct sink_stats_sink *s, const struct u32_row *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        s->counter(s->ctx, t[i].name, *(const volatile uint32_t *)t[i].value);
    }
}

static void walk_memory(const struct sink_stats_sink *s)
{
    char name[40];
    for (size_t i = 0; i < N(memp_rows); i++) {
        const struct stats_mem *m = lwip_stats.memp[memp_rows[i].pool];
        __builtin_snprintf(name, sizeof(name), "%s_max", memp_rows[i].name);
        s->attr(s->ctx, name, m->max);
        __builtin_snprintf(name, sizeof(name), "%s_fail", memp_rows[i].name);
        s->counter(s->ctx, name, m->err);
    }
    s->attr(s->ctx, "heap_max_bytes", lwip_stats.mem.max);
    s->counter(s->ctx, "heap_fail", lwip_stats.mem.err);
}

void sink_stats_walk(const struct sink_stats_sink *s)
{
    if (!sink_running()) {
        return;
    }
    for (unsigned i = 0; i < SINK_SERVICE_COUNT; i++) {
        s->group(s->ctx, service_names[i], true);
        walk_u64(s, &sink_stats[i], service_rows, N(service_rows));
        s->group(s->ctx, service_names[i], false);
    }
    s->group(s->ctx, "tcp", true);
    walk_u32(s, tcp_rows, N(tcp_rows));
    walk_u64(s, &lwport_tcp_stats, tcp_extra_rows, N(tcp_extra_rows));
    s->group(s->ctx, "tcp", false);
    s->group(s->ctx, "udp", true);
    walk_u32(s, udp_rows, N(udp_rows));
    s->group(s->ctx, "udp", false);
    s->group(s->ctx, "ip", true);
    walk_u32(s, ip_rows, N(ip_rows));
    s->group(s->ctx, "ip", false);
    s->group(s->ctx, "netif", true);
    walk_u64(s, &sink_netif_stats, netif_rows, N(netif_rows));
    s->group(s->ctx, "netif", false);
    s->group(s->ctx, "memory", true);
    walk_memory(s);
    s->group(s->ctx, "memory", false);
}

void sink_stats_doc(void (*row)(const char *group, const char *name, const char *doc))
{
    char name[40];
    for (size_t i = 0; i < N(service_rows); i++) {
        row("discard, echo, iperf3, netperf", service_rows[i].name, service_rows[i].doc);
    }
    for (size_t i = 0; i < N(tcp_rows); i++) {
        row("tcp", tcp_rows[i].name, tcp_rows[i].doc);
    }
    for (size_t i = 0; i < N(tcp_extra_rows); i++) {
        row("tcp", tcp_extra_rows[i].name, tcp_extra_rows[i].doc);
    }
    for (size_t i = 0; i < N(udp_rows); i++) {
        row("udp", udp_rows[i].name, udp_rows[i].doc);
    }
    for (size_t i = 0; i < N(ip_rows); i++) {
        row("ip", ip_rows[i].name, ip_rows[i].doc);
    }
    for (size_t i = 0; i < N(netif_rows); i++) {
        row("netif", netif_rows[i].name, netif_rows[i].doc);
    }
    for (size_t i = 0; i < N(memp_rows); i++) {
        __builtin_snprintf(name, sizeof(name), "%s_max / %s_fail", memp_rows[i].name,
                           memp_rows[i].name);
        row("memory", name, "lwIP pool: most in use at once (gauge) / allocations that failed");
    }
    row("memory", "heap_max_bytes / heap_fail", "lwIP's PBUF_RAM memory (fixed-size pools, "
                                                "net/lwip-port/lwippools.h): most bytes in use / "
                                                "allocations that failed");
}
