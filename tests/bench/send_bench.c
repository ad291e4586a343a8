/*
 * tests/bench/send_bench.c: what one full-sized TCP segment the sink sends costs the sink core,
 * on the host (tests/bench/send_bench.sh runs it under callgrind). A scripted netperf client on
 * core 2 opens the control connection to the sink's netserver (apps/sink/netperf.c), asks for a
 * counted TCP_MAERTS (`netperf -t TCP_MAERTS -l -N`: a DO_OMNI with direction "server sends"
 * and -bytes as the test length), connects its data connection and then reads: every segment's
 * checksum is checked, and one ACK goes back for every second segment (a Linux receiver's
 * delayed ACK under a stream) with an 8 MiB window, so the sender is never held up by the
 * receiver. Everything the sink core does inside the measured passes is counted: netserver
 * refilling lwIP from its constant buffer, lwIP's output and its handling of the ACKs, the
 * glue's frame and the TX queue (the fake TX queue itself, iring_tx_burst, is toggled off, as
 * in sink_bench). The fake clock moves 20 us per pass.
 *
 * Checked (exit 1 otherwise): every byte arrives in order with a correct checksum, the test
 * ends with its results, and every buffer is home at the end.
 *
 * Usage: send_bench [--bytes N] [--quiet]
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <asm/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "apps/sink/netperf_proto.h"
#include "apps/sink/sink.h"
#include "apps/sink/sink_core.h"
#include "net/handoff.h"
#include "net/inet.h"
#include "percpu.h"
#include "tests/fakes/fake_sink_platform.h"
#include "tests/hostsim/sink_peer.h"

#define SE_CLIENT_CORE 2
#define SE_POOL 4096
#define SE_PASS_NS 20000u
#define SE_NETPERF_PORT 12865
#define SE_WARMUP_BYTES (4u << 20) /* slow start over, the window fully open */
#define SE_RCV_WSCALE 7            /* 0xffff << 7: an 8 MiB window */

struct se {
    struct sink_peer peer;
    struct sink_tcp ctl, data;
    uint16_t data_port;
    uint8_t resp[2 * NETPERF_MSG_BYTES];
    uint64_t unacked_segs;  /* data segments taken since our last ACK */
    uint64_t bad_csum;      /* segments whose checksum did not verify */
    uint64_t out_of_order;  /* data segments not at rcv_nxt */
    uint64_t measured_segs; /* data segments sent inside the measured passes */
    uint64_t measured_bytes; /* their payload */
    uint64_t measured_passes;
    bool measuring;
    bool quiet;
};

/* se_measured_poll: the sink core's passes of the measured stream only. */
static __attribute__((noinline)) void se_measured_poll(void)
{
    sink_poll();
    __asm__ volatile("" ::: "memory");
}

/* se_data_segment: the client reads one segment of the data connection. */
static void se_data_segment(struct se *b, const struct sink_seg *s)
{
    uint64_t before = b->data.data_received;
    if (s->len != 0 && s->seq != b->data.rcv_nxt) {
        b->out_of_order++;
    }
    sink_tcp_input(&b->data, s);
    if (b->data.data_received == before) {
        return;
    }
    b->measured_segs += b->measuring;
    b->measured_bytes += b->measuring ? b->data.data_received - before : 0;
    if (++b->unacked_segs == 2) {
        handoff_to_sink(SE_CLIENT_CORE, sink_tcp_ack(&b->data));
        b->unacked_segs = 0;
    }
}

/* se_tx: what the sink sent, read by the client. */
static void se_tx(struct se *b)
{
    struct pkb *f[64];
    unsigned n;
    while ((n = fsp_tx_take(f, NULL, 64)) != 0) {
        for (unsigned i = 0; i < n; i++) {
            struct sink_seg s;
            if (!sink_peer_parse(f[i]->data, f[i]->len, &s)) {
                fsp_tx_done(f[i]);
                continue;
            }
            b->bad_csum += !s.l4_csum_ok || !s.ip_csum_ok;
            uint64_t before = b->ctl.data_received;
            if (sink_tcp_input(&b->ctl, &s)) {
                for (uint64_t at = before; at < b->ctl.data_received; at++) {
                    if (at < sizeof b->resp) {
                        b->resp[at] = s.data[at - before];
                    }
                }
            } else {
                se_data_segment(b, &s);
            }
            fsp_tx_done(f[i]);
        }
    }
}

static void se_pass(struct se *b)
{
    if (b->measuring) {
        b->measured_passes++;
        se_measured_poll();
    } else {
        sink_poll();
    }
    se_tx(b);
    handoff_reclaim(SE_CLIENT_CORE);
    fsp_clock_set_ns(fsp_clock_ns() + SE_PASS_NS);
}

/* se_maerts_request: the DO_OMNI of `netperf -t TCP_MAERTS -l -N` for `bytes` bytes, the send
 * size left to the server (-1: netserver's 16 KiB), words as Debian's client sets them
 * (docs/netperf-iperf3-protocol.md, Appendix A.1). */
static void se_maerts_request(uint8_t *m, uint32_t bytes)
{
    memset(m, 0, NETPERF_MSG_BYTES);
    inet_store_be32(m, NETPERF_MSG_DO_OMNI);
    inet_store_be32(m + 12, UINT32_MAX);                 /* send size: the server's choice */
    inet_store_be32(m + 64, (uint32_t)-(int32_t)bytes);  /* test_length: -N bytes */
    inet_store_be32(m + 92, NETPERF_NF_INET);
    inet_store_be32(m + 100, NETPERF_IPPROTO_TCP);
    inet_store_be32(m + 104, NETPERF_DIR_XMIT);          /* the server sends */
}

static int se_fail(const char *what)
{
    fprintf(stderr, "send_bench: FAIL: %s\n", what);
    return 1;
}

static bool se_handshake(struct se *b, struct sink_tcp *c)
{
    handoff_to_sink(SE_CLIENT_CORE, sink_tcp_syn(c));
    se_pass(b);
    if (!c->established) {
        return false;
    }
    handoff_to_sink(SE_CLIENT_CORE, sink_tcp_ack(c));
    return true;
}

/* se_stream: read until `bytes` arrived (or the sink stops sending for 1000 passes). */
static void se_stream(struct se *b, uint64_t bytes)
{
    unsigned idle = 0;
    while (b->data.data_received < bytes && idle < 1000) {
        uint64_t before = b->data.data_received;
        se_pass(b);
        idle = b->data.data_received == before ? idle + 1 : 0;
        if (idle != 0 && b->unacked_segs != 0) {
            handoff_to_sink(SE_CLIENT_CORE, sink_tcp_ack(&b->data)); /* the delayed ACK fires */
            b->unacked_segs = 0;
        }
    }
}

/* this_cpu() for netperf's CPU figures (%gs:0), as kernel/cpu.c points GS at a core's block */
static struct percpu se_cpu;

static int se_parse_args(struct se *b, int argc, char **argv, uint64_t *bytes)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bytes") && i + 1 < argc) {
            *bytes = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--quiet")) {
            b->quiet = true;
        } else {
            fputs("usage: send_bench [--bytes N] [--quiet]\n", stderr);
            return 2;
        }
    }
    if (*bytes < 2 * SE_WARMUP_BYTES || *bytes > 0x7fffffff) {
        return se_fail("--bytes out of range (8 MiB .. 2 GiB)");
    }
    return 0;
}

/* se_start: the control connection, the request, its response, the data connection. */
static int se_start(struct se *b, uint64_t bytes)
{
    b->peer = (struct sink_peer){ .ip = 0xc6120002u, .server_ip = 0xc6120001u, .port = 0,
                                  .core = SE_CLIENT_CORE };
    sink_tcp_init(&b->ctl, &b->peer, 39999, SE_NETPERF_PORT, 0x12345678u);
    if (!se_handshake(b, &b->ctl)) {
        return se_fail("no control connection");
    }
    uint8_t msg[NETPERF_MSG_BYTES];
    se_maerts_request(msg, (uint32_t)bytes);
    handoff_to_sink(SE_CLIENT_CORE, sink_tcp_data(&b->ctl, msg, NETPERF_MSG_BYTES));
    for (int i = 0; i < 4 && b->ctl.data_received < NETPERF_MSG_BYTES; i++) {
        se_pass(b);
    }
    if (b->ctl.data_received < NETPERF_MSG_BYTES || b->resp[7] != 0) {
        return se_fail("no OMNI_RESPONSE (or an error in it)");
    }
    b->data_port = (uint16_t)(b->resp[54] << 8 | b->resp[55]);
    sink_tcp_init(&b->data, &b->peer, 40000, b->data_port, 0x40000000u);
    b->data.rcv_wscale = SE_RCV_WSCALE;
    return se_handshake(b, &b->data) ? 0 : se_fail("no data connection");
}

int main(int argc, char **argv)
{
    static struct se b;
    se_cpu.self = &se_cpu;
    if (syscall(SYS_arch_prctl, ARCH_SET_GS, &se_cpu) != 0) {
        return se_fail("arch_prctl(ARCH_SET_GS)");
    }
    uint64_t bytes = 64u << 20;
    int rc = se_parse_args(&b, argc, argv, &bytes);
    if (rc != 0) {
        return rc;
    }
    fsp_setup(SE_POOL, b.quiet);
    if (sink_init(FSP_CORES) != 0) {
        return se_fail("sink_init");
    }
    uint64_t run0 = sink_stats[SINK_NETPERF].tests_done;
    if ((rc = se_start(&b, bytes)) != 0) {
        return rc;
    }
    se_stream(&b, SE_WARMUP_BYTES);
    b.measuring = true;
    se_stream(&b, bytes - SE_WARMUP_BYTES);
    b.measuring = false;
    se_stream(&b, bytes);
    /* netserver ends a counted MAERTS once everything is acked: the client's FIN, the results */
    handoff_to_sink(SE_CLIENT_CORE, sink_tcp_ack(&b.data));
    handoff_to_sink(SE_CLIENT_CORE, sink_tcp_fin(&b.data));
    for (int i = 0; i < 8 && b.ctl.data_received < 2 * NETPERF_MSG_BYTES; i++) {
        se_pass(&b);
    }
    int fails = 0;
    if (b.data.data_received != bytes || b.out_of_order != 0) {
        fails += se_fail("the bytes did not all arrive in order");
    }
    if (b.bad_csum != 0) {
        fails += se_fail("a segment's checksum did not verify");
    }
    if (b.ctl.data_received < 2 * NETPERF_MSG_BYTES ||
        sink_stats[SINK_NETPERF].tests_done != run0 + 1) {
        fails += se_fail("no results at the end of the test");
    }
    for (int i = 0; i < 400 && !fsp_pools_full(); i++) {
        fsp_clock_advance_ms(250); /* lwIP's TIME_WAIT and timers let go of the last buffers */
        se_pass(&b);
    }
    if (!fsp_pools_full()) {
        fails += se_fail("buffers not home at the end");
    }
    printf("send_bench: TCP_MAERTS of %" PRIu64 " bytes: %" PRIu64 " received, %" PRIu64
           " data segments in the measured stream (%" PRIu64 " bytes each, %.1f per pass),"
           " %" PRIu64 " bad checksums%s\n",
           bytes, b.data.data_received, b.measured_segs,
           b.measured_segs ? b.measured_bytes / b.measured_segs : 0,
           b.measured_passes ? (double)b.measured_segs / (double)b.measured_passes : 0.0,
           b.bad_csum, fails ? " FAILED" : "");
    return fails ? 1 : 0;
}
