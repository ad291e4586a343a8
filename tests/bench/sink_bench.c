/*
 * tests/bench/sink_bench.c: what one received 1448-byte TCP segment costs the sink core, on the
 * host, with the firmware's own glue (apps/sink, net/lwip-port) and lwIP compiled like the
 * firmware (tests/bench/sink_bench.sh builds and runs it; numbers in tests/bench/README.md).
 *
 * A scripted client (tests/hostsim/sink_peer.c) on core 2 opens a connection to the discard
 * service and streams --segments in-order segments of 1448 payload bytes with correct
 * checksums, --burst per pass: core 2 hands them over (handoff_to_sink), the sink core (core 3)
 * runs one sink_poll (handoff rings, the custom-pbuf wrap, lwIP's IPv4 and TCP input, discard's
 * recv and tcp_recved, the ACKs lwIP sends: pbuf to frame copy and the TX burst, lwIP's
 * timers), the client reads the ACKs and keeps within the window they open, and core 2
 * reclaims the buffers the sink core returned. The fake clock moves at 10 Gbit/s line rate (one
 * 1518-byte frame: 1.23 us), so lwIP's timers fire as often as on the wire.
 *
 * Printed: TSC cycles per segment inside sink_poll (the sink core): the median pass of a full
 * burst divided by the burst (robust against the host preempting us mid-pass), and the mean;
 * and inside handoff_to_sink + handoff_reclaim (the producing core); rdtsc overhead taken
 * off. For callgrind, the script toggles collection on sb_measured_poll (the measured stream's
 * sink_poll calls) and off again inside the fake TX queue (iring_tx_burst).
 * Checked (exit 1 otherwise): every byte acknowledged and counted by discard, no segment lost,
 * the connection closed and every buffer home at the end.
 *
 * --udp BYTES: datagrams of BYTES payload to discard's UDP port instead (netperf's UDP_STREAM
 * -m 64 in miniature), --segments of them; every one must be counted and every buffer home.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "net/handoff.h"
#include "apps/sink/sink.h"
#include "apps/sink/sink_core.h"
#include "net/lwip-port/sink_netif.h"
#include "tests/fakes/fake_sink_platform.h"
#include "tests/hostsim/sink_peer.h"

#define SB_MSS 1448
#define SB_POOL 4096
#define SB_CLIENT_CORE 2
#define SB_FRAME_NS 1231 /* 1518 + 20 bytes (preamble, IFG) at 10 Gbit/s */

struct sb {
    struct sink_peer peer;
    struct sink_tcp conn;
    uint8_t payload[SB_MSS];
    uint64_t segments, burst;
    uint64_t sink_tsc, hand_tsc, passes, hand_calls, rdtsc_cost;
    uint64_t acks;
    uint64_t *pass_tsc; /* each timed pass's cycles (full bursts only), for the median */
    uint64_t npass_tsc, max_pass_tsc;
    bool timing; /* the measured stream (else: handshake, warm-up, end) */
    bool quiet;
    bool nic_checked; /* frames carry the NIC's checksum verdict (nic_rx_l4_csum_ok) */
    uint64_t write_bytes; /* the sender's write size: PSH on a write's last segment (0: all) */
    uint16_t udp_bytes;   /* --udp: datagrams of this many payload bytes instead of TCP */
};

static inline uint64_t sb_tsc(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

/* sb_rdtsc_cost: the cheapest back-to-back timed pair, taken off each timed call. */
static uint64_t sb_rdtsc_cost(void)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 1000; i++) {
        uint64_t t0 = sb_tsc();
        uint64_t d = sb_tsc() - t0;
        best = d < best ? d : best;
    }
    return best;
}

/* sb_tx: the frames the sink core sent: the client reads them (ACKs, window), then the NIC
 * "completes" them. */
static void sb_tx(struct sb *b)
{
    struct pkb *f[64];
    unsigned n;
    while ((n = fsp_tx_take(f, NULL, 64)) != 0) {
        for (unsigned i = 0; i < n; i++) {
            struct sink_seg s;
            if (sink_peer_parse(f[i]->data, f[i]->len, &s) && sink_tcp_input(&b->conn, &s)) {
                b->acks++;
            }
            fsp_tx_done(f[i]);
        }
    }
}

/* sb_measured_poll: the sink core's pass during the measured stream only: callgrind's
 * --toggle-collect names it, so the handshake, warm-up and end are not counted. */
static __attribute__((noinline)) void sb_measured_poll(void)
{
    sink_poll();
    __asm__ volatile("" ::: "memory"); /* not a tail call: the toggle must see it return */
}

/* sb_sink_pass: one pass of the sink core (timed in the measured stream); k: frames handed
 * before it. */
static void sb_sink_pass(struct sb *b, unsigned k)
{
    if (!b->timing) {
        sink_poll();
        sb_tx(b);
        return;
    }
    uint64_t t0 = sb_tsc();
    sb_measured_poll();
    uint64_t d = sb_tsc() - t0 - b->rdtsc_cost;
    b->sink_tsc += d;
    b->passes++;
    if (k == b->burst && b->npass_tsc < b->max_pass_tsc) {
        b->pass_tsc[b->npass_tsc++] = d;
    }
    sb_tx(b);
}

static int sb_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void sb_hand(struct sb *b, struct pkb *p)
{
    if (b->nic_checked) { /* as igb and the 82599 report a verified TCP checksum */
        p->rx_status = IDESC_RX_STATUS_L4I; /* checked, no L4E: nic_rx_l4_csum_ok says yes */
    }
    uint64_t t0 = sb_tsc();
    handoff_to_sink(SB_CLIENT_CORE, p);
    b->hand_tsc += sb_tsc() - t0 - b->rdtsc_cost;
    b->hand_calls++;
}

static void sb_reclaim(struct sb *b)
{
    uint64_t t0 = sb_tsc();
    handoff_reclaim(SB_CLIENT_CORE);
    b->hand_tsc += sb_tsc() - t0 - b->rdtsc_cost;
    b->hand_calls++;
}

static int sb_fail(const char *what)
{
    fprintf(stderr, "sink_bench: FAIL: %s\n", what);
    return 1;
}

/* sb_stream: n segments; returns false if the window stayed shut. */
static bool sb_stream(struct sb *b, uint64_t n)
{
    struct sink_tcp *c = &b->conn;
    uint64_t sent = 0, stalls = 0;
    while (sent < n) {
        unsigned k = 0;
        while (k < b->burst && sent < n &&
               (uint32_t)(c->snd_nxt + SB_MSS - c->snd_una) <= c->snd_wnd) {
            /* Linux sets PSH on the last segment of each write (tcp_push), as iperf3's 128 KiB
             * writes make it every 91st segment here */
            uint64_t off = sent * SB_MSS;
            bool push = b->write_bytes == 0 || (off + SB_MSS) / b->write_bytes != off / b->write_bytes;
            struct pkb *p = sink_tcp_segment(c, SP_TCP_ACK | (push ? SP_TCP_PSH : 0), c->snd_nxt,
                                             c->rcv_nxt, NULL, 0, b->payload, SB_MSS);
            if (p != NULL) {
                c->snd_nxt += SB_MSS;
            }
            if (p == NULL) {
                return false; /* core 2's pool is empty: buffers are not coming home */
            }
            sb_hand(b, p);
            k++;
            sent++;
        }
        fsp_clock_set_ns(fsp_clock_ns() + (k ? k : 1) * (uint64_t)SB_FRAME_NS);
        sb_sink_pass(b, k);
        sb_reclaim(b);
        stalls = k ? 0 : stalls + 1;
        if (stalls > 1000000) {
            return false;
        }
    }
    return true;
}

/* sb_idle_second: a second with nothing handed over, in four passes 250 ms apart (lwIP's
 * fast timer: delayed ACKs and FINs go out, closes complete). */
static void sb_idle_second(struct sb *b)
{
    for (int i = 0; i < 4; i++) {
        fsp_clock_advance_ms(250);
        sb_sink_pass(b, 0);
    }
}

/* sb_udp_stream: n datagrams of udp_bytes to the discard service's UDP port (netperf's
 * UDP_STREAM -m 64 in miniature); false if core 2's pool ran dry (buffers not coming home). */
static bool sb_udp_stream(struct sb *b, uint64_t n)
{
    /* a 64-byte frame on the wire is 84 bytes with preamble and gap: 67 ns at 10 Gbit/s */
    uint64_t frame_ns = (uint64_t)(b->udp_bytes + 42 + 4 + 20) * 8 / 10;
    uint64_t sent = 0;
    while (sent < n) {
        unsigned k = 0;
        while (k < b->burst && sent < n) {
            struct pkb *p = sink_peer_udp(&b->peer, 40001, 9, b->payload, b->udp_bytes);
            if (p == NULL) {
                return false;
            }
            sb_hand(b, p);
            k++;
            sent++;
        }
        fsp_clock_set_ns(fsp_clock_ns() + k * frame_ns);
        sb_sink_pass(b, k);
        sb_reclaim(b);
    }
    return true;
}

/* sb_udp_main: the --udp run: a warm-up, the measured stream, every datagram counted, every
 * buffer home. */
static int sb_udp_main(struct sb *b)
{
    if (!sb_udp_stream(b, 1000)) {
        return sb_fail("warm-up stalled");
    }
    uint64_t rx0 = sink_stats[SINK_DISCARD].rx_datagrams;
    b->timing = true;
    bool ok = sb_udp_stream(b, b->segments);
    b->timing = false;
    sb_idle_second(b);
    handoff_reclaim(SB_CLIENT_CORE);
    fsp_tx_flush();
    int fails = ok ? 0 : sb_fail("stream stalled");
    if (sink_stats[SINK_DISCARD].rx_datagrams - rx0 != b->segments) {
        fails += sb_fail("discard did not count every datagram");
    }
    if (!fsp_pools_full()) {
        fails += sb_fail("buffers not home");
    }
    printf("sink_bench: %" PRIu64 " UDP datagrams of %u bytes, burst %" PRIu64 ": sink core "
           "%.1f cycles/datagram (mean) in sink_poll, producing core %.1f cycles/datagram%s\n",
           b->segments, b->udp_bytes, b->burst, (double)b->sink_tsc / (double)b->segments,
           (double)b->hand_tsc / (double)b->segments, fails ? " FAILED" : "");
    return fails ? 1 : 0;
}

static void sb_usage(void)
{
    fputs("usage: sink_bench [--segments N] [--burst N] [--write BYTES] [--udp BYTES] [--quiet]"
          " [--nic-checked]\n",
          stderr);
    exit(2);
}

int main(int argc, char **argv)
{
    static struct sb b;
    b.segments = 200000;
    b.burst = 32;
    b.write_bytes = 128 * 1024; /* iperf3's default block */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--segments") && i + 1 < argc) {
            b.segments = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--burst") && i + 1 < argc) {
            b.burst = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--write") && i + 1 < argc) {
            b.write_bytes = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--quiet")) {
            b.quiet = true;
        } else if (!strcmp(argv[i], "--udp") && i + 1 < argc) {
            b.udp_bytes = (uint16_t)strtoul(argv[++i], NULL, 0);
            if (b.udp_bytes == 0 || b.udp_bytes > SB_MSS) {
                sb_usage();
            }
        } else if (!strcmp(argv[i], "--nic-checked")) {
            b.nic_checked = true;
        } else {
            sb_usage();
        }
    }
    if (b.burst == 0 || b.burst > 64) {
        sb_usage();
    }
    fsp_setup(SB_POOL, b.quiet);
    if (sink_init(FSP_CORES) != 0 || !sink_is_core(3)) {
        return sb_fail("sink_init");
    }
    for (unsigned i = 0; i < SB_MSS; i++) {
        b.payload[i] = (uint8_t)(i * 31 + 7);
    }
    b.peer = (struct sink_peer){ .ip = 0xc6120002u, .server_ip = 0xc6120001u, .port = 0,
                                 .core = SB_CLIENT_CORE };
    b.rdtsc_cost = sb_rdtsc_cost();
    if (b.udp_bytes) {
        return sb_udp_main(&b);
    }

    /* The handshake, then a warm-up of 1000 segments, untimed. */
    struct sink_tcp *c = &b.conn;
    sink_tcp_init(c, &b.peer, 40000, 9, 0x12345678u);
    handoff_to_sink(SB_CLIENT_CORE, sink_tcp_syn(c));
    sink_poll();
    sb_tx(&b);
    if (!c->established) {
        return sb_fail("no SYN-ACK");
    }
    handoff_to_sink(SB_CLIENT_CORE, sink_tcp_ack(c));
    if (!sb_stream(&b, 1000)) {
        return sb_fail("warm-up stalled");
    }
    uint64_t rx0 = sink_stats[SINK_DISCARD].rx_bytes;
    b.sink_tsc = b.hand_tsc = b.passes = b.hand_calls = b.acks = 0;
    b.max_pass_tsc = b.segments / b.burst + 1;
    b.pass_tsc = calloc(b.max_pass_tsc, sizeof(uint64_t));
    if (b.pass_tsc == NULL) {
        return sb_fail("out of memory");
    }

    b.timing = true;
    if (!sb_stream(&b, b.segments)) {
        return sb_fail("stream stalled");
    }
    b.timing = false;
    uint64_t sink_tsc = b.sink_tsc, hand_tsc = b.hand_tsc, passes = b.passes, acks = b.acks;
    double median = 0;
    if (b.npass_tsc > 0) {
        qsort(b.pass_tsc, b.npass_tsc, sizeof(uint64_t), sb_cmp_u64);
        median = (double)b.pass_tsc[b.npass_tsc / 2] / (double)b.burst;
    }

    /* The end: everything acknowledged, counted, closed, home. */
    sb_idle_second(&b);
    int fails = 0;
    if (c->snd_una != c->snd_nxt) {
        fails += sb_fail("not every byte acknowledged");
    }
    if (sink_stats[SINK_DISCARD].rx_bytes - rx0 != b.segments * SB_MSS) {
        fails += sb_fail("discard did not count every byte");
    }
    handoff_to_sink(SB_CLIENT_CORE, sink_tcp_fin(c));
    sb_idle_second(&b);
    handoff_to_sink(SB_CLIENT_CORE, sink_tcp_ack(c));
    sb_idle_second(&b);
    handoff_reclaim(SB_CLIENT_CORE);
    fsp_tx_flush();
    if (!c->fin_received || sink_stats[SINK_DISCARD].active != 0) {
        fails += sb_fail("the connection did not close");
    }
    if (!fsp_pools_full()) {
        fails += sb_fail("buffers not home");
    }
    printf("sink_bench: %" PRIu64 " segments of %d bytes, burst %" PRIu64 ", %" PRIu64
           " passes, %" PRIu64 " ACKs (%.2f per segment): sink core %.1f cycles/segment "
           "(median pass; mean %.1f) in sink_poll, producing core %.1f cycles/segment (mean, "
           "handoff_to_sink + reclaim)%s\n",
           b.segments, SB_MSS, b.burst, passes, acks, (double)acks / (double)b.segments, median,
           (double)sink_tsc / (double)b.segments, (double)hand_tsc / (double)b.segments,
           fails ? " FAILED" : "");
    free(b.pass_tsc);
    return fails ? 1 : 0;
}
