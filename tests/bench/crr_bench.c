/*
 * tests/bench/crr_bench.c: what one netperf TCP_CRR transaction costs the sink core, on the host
 * (tests/bench/crr_bench.sh runs it under callgrind). A scripted netperf client on core 2 opens
 * the control connection to the sink's netserver (apps/sink/netperf.c), asks for TCP_CRR as the
 * 2.7.0 client does (a DO_OMNI with the connection-test flag, 1-byte request and response), and
 * then runs N transactions as netperf does: a new connection from the next port, the request,
 * the response and the server's FIN, the client's FIN and the last ACK. Everything the sink core
 * does inside those passes is counted (sb_measured_poll is toggled); the control exchange and
 * the end are not. The fake clock moves 20 us per pass; the server's TIME_WAIT pcbs are lwIP's
 * to recycle when its 256 run out, as on the appliance.
 *
 * Usage: crr_bench [--transactions N] [--quiet]
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

#define CB_CLIENT_CORE 2
#define CB_POOL 4096
#define CB_PASS_NS 20000u
#define CB_NETPERF_PORT 12865

struct cb {
    struct sink_peer peer;
    struct sink_tcp ctl, data;
    uint16_t data_port;    /* from the OMNI_RESPONSE */
    uint64_t ctl_bytes;    /* control bytes the sink sent */
    uint8_t resp[NETPERF_MSG_BYTES];
    bool quiet;
};

/* cb_measured_poll: the sink core's passes during the measured transactions only. */
static __attribute__((noinline)) void cb_measured_poll(void)
{
    sink_poll();
    __asm__ volatile("" ::: "memory");
}

/* cb_tx: what the sink sent, read by the client: control bytes kept, the rest to the data
 * connection. */
static void cb_tx(struct cb *b)
{
    struct pkb *f[64];
    unsigned n;
    while ((n = fsp_tx_take(f, NULL, 64)) != 0) {
        for (unsigned i = 0; i < n; i++) {
            struct sink_seg s;
            if (sink_peer_parse(f[i]->data, f[i]->len, &s)) {
                uint64_t before = b->ctl.data_received;
                if (sink_tcp_input(&b->ctl, &s)) {
                    for (uint64_t at = before; at < b->ctl.data_received; at++) {
                        if (at < NETPERF_MSG_BYTES) {
                            b->resp[at] = s.data[at - before];
                        }
                    }
                } else {
                    sink_tcp_input(&b->data, &s);
                }
            }
            fsp_tx_done(f[i]);
        }
    }
}

static void cb_pass(struct cb *b, bool measured)
{
    if (measured) {
        cb_measured_poll();
    } else {
        sink_poll();
    }
    cb_tx(b);
    handoff_reclaim(CB_CLIENT_CORE);
    fsp_clock_set_ns(fsp_clock_ns() + CB_PASS_NS);
}

/* cb_crr_request: the DO_OMNI of `netperf -t TCP_CRR -l -N`: words as Debian's client sets them
 * (docs/netperf-iperf3-protocol.md, Appendix A.1, with direction 6 and the connection flag). */
static void cb_crr_request(uint8_t *m, uint32_t transactions)
{
    memset(m, 0, NETPERF_MSG_BYTES);
    inet_store_be32(m, NETPERF_MSG_DO_OMNI);
    inet_store_be32(m + 28, 1);                           /* request size */
    inet_store_be32(m + 52, 1);                           /* response size */
    inet_store_be32(m + 56, NETPERF_FLAG_CONNECT_TEST);   /* flags */
    inet_store_be32(m + 64, (uint32_t)-(int32_t)transactions); /* test_length: -N transactions */
    inet_store_be32(m + 92, NETPERF_NF_INET);
    inet_store_be32(m + 100, NETPERF_IPPROTO_TCP);
    inet_store_be32(m + 104, NETPERF_DIR_XMIT | NETPERF_DIR_RECV);
}

static int cb_fail(const char *what)
{
    fprintf(stderr, "crr_bench: FAIL: %s\n", what);
    return 1;
}

/* cb_handshake: SYN, SYN-ACK, ACK of connection c (unmeasured or measured passes). */
static bool cb_handshake(struct cb *b, struct sink_tcp *c, bool measured)
{
    handoff_to_sink(CB_CLIENT_CORE, sink_tcp_syn(c));
    cb_pass(b, measured);
    if (!c->established) {
        return false;
    }
    handoff_to_sink(CB_CLIENT_CORE, sink_tcp_ack(c));
    return true;
}

/* cb_transaction: one TCP_CRR transaction from client port sport; false if it did not
 * complete as netserver's would (response, then the server's FIN). */
static bool cb_transaction(struct cb *b, uint16_t sport)
{
    struct sink_tcp *c = &b->data;
    sink_tcp_init(c, &b->peer, sport, b->data_port, 0x40000000u + sport * 7919u);
    if (!cb_handshake(b, c, true)) {
        return false;
    }
    uint8_t req = 'q';
    handoff_to_sink(CB_CLIENT_CORE, sink_tcp_data(c, &req, 1)); /* with the handshake's ACK */
    cb_pass(b, true);
    if (c->data_received != 1 || !c->fin_received) {
        cb_pass(b, true); /* a response or FIN left for the next pass */
    }
    if (c->data_received != 1 || !c->fin_received) {
        return false;
    }
    handoff_to_sink(CB_CLIENT_CORE, sink_tcp_fin(c)); /* acks the server's FIN too */
    cb_pass(b, true);
    return c->snd_una == c->snd_nxt; /* our FIN acknowledged: the server is in TIME_WAIT */
}

/* this_cpu() for netperf's CPU figures (%gs:0), as kernel/cpu.c points GS at a core's block */
static struct percpu cb_cpu;

int main(int argc, char **argv)
{
    static struct cb b;
    cb_cpu.self = &cb_cpu;
    if (syscall(SYS_arch_prctl, ARCH_SET_GS, &cb_cpu) != 0) {
        return cb_fail("arch_prctl(ARCH_SET_GS)");
    }
    uint64_t n = 20000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--transactions") && i + 1 < argc) {
            n = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--quiet")) {
            b.quiet = true;
        } else {
            fputs("usage: crr_bench [--transactions N] [--quiet]\n", stderr);
            return 2;
        }
    }
    if (n == 0 || n > 0x7fffffff) {
        return cb_fail("transactions out of range");
    }
    fsp_setup(CB_POOL, b.quiet);
    if (sink_init(FSP_CORES) != 0) {
        return cb_fail("sink_init");
    }
    b.peer = (struct sink_peer){ .ip = 0xc6120002u, .server_ip = 0xc6120001u, .port = 0,
                                 .core = CB_CLIENT_CORE };
    sink_tcp_init(&b.ctl, &b.peer, 39999, CB_NETPERF_PORT, 0x12345678u);
    if (!cb_handshake(&b, &b.ctl, false)) {
        return cb_fail("no control connection");
    }
    uint8_t msg[NETPERF_MSG_BYTES];
    cb_crr_request(msg, (uint32_t)n);
    handoff_to_sink(CB_CLIENT_CORE, sink_tcp_data(&b.ctl, msg, NETPERF_MSG_BYTES));
    for (int i = 0; i < 4 && b.ctl.data_received < NETPERF_MSG_BYTES; i++) {
        cb_pass(&b, false);
    }
    if (b.ctl.data_received < NETPERF_MSG_BYTES || b.resp[7] != 0) {
        return cb_fail("no OMNI_RESPONSE (or an error in it)");
    }
    b.data_port = (uint16_t)(b.resp[54] << 8 | b.resp[55]);
    uint64_t run0 = sink_stats[SINK_NETPERF].tests_done;
    uint64_t done = 0;
    for (uint64_t t = 0; t < n; t++) {
        uint16_t sport = (uint16_t)(5000 + t % 60000);
        if (!cb_transaction(&b, sport)) {
            break;
        }
        done++;
    }
    /* the results: netperf ends a counted test itself once N connections are served */
    for (int i = 0; i < 4 && b.ctl.data_received < 2 * NETPERF_MSG_BYTES; i++) {
        cb_pass(&b, false);
    }
    int fails = 0;
    if (done != n) {
        fails += cb_fail("a transaction did not complete");
    }
    if (b.ctl.data_received < 2 * NETPERF_MSG_BYTES ||
        sink_stats[SINK_NETPERF].tests_done != run0 + 1) {
        fails += cb_fail("no results after N transactions");
    }
    printf("crr_bench: %" PRIu64 " TCP_CRR transactions (1-byte request and response), %" PRIu64
           " completed; test done: %s%s\n",
           n, done, sink_stats[SINK_NETPERF].tests_done == run0 + 1 ? "yes" : "no",
           fails ? " FAILED" : "");
    return fails ? 1 : 0;
}
