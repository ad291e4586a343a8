/*
 * tests/fuzz/fuzz_lwip.c: libFuzzer harness for lwIP's input path as the sink runs it: IPv4
 * datagrams from the input, framed and checked by the datapath's own net/local.c (only what it
 * hands to the sink, NET_SINK, goes on), handed over from one of four cores
 * (net/handoff.c), wrapped zero-copy by net/lwip-port/sink_netif.c and fed to lwIP
 * (IPv4, reassembly, ICMP, UDP, TCP) with the discard and echo services of apps/sink/basic.c
 * listening. lwIP is built with CHECKSUM_CHECK_TCP/UDP/ICMP = 0 (run.sh), so mutated segments
 * are not stopped at the checksum; the IPv4 header checksum is always rewritten (net/local.c
 * checks it, and fuzz_net_local fuzzes that check). The rest of the firmware is
 * tests/fakes/fake_sink_platform.c; the client is tests/hostsim/sink_peer.c.
 *
 * Input: byte 0: bit 0 opens a connection to discard (TCP 9), bit 1 one to echo (TCP 7), each
 * by a scripted handshake from 198.18.0.2, before anything else. Then records, one op byte each:
 *   op & 3 == 0  datagram: u16 length (big-endian, at most 1500), then that many bytes from the
 *                IPv4 header on. op bits: 2-3 the core that hands it over; 4 set the addresses
 *                (198.18.0.2 -> 198.18.0.1); 5 make it a segment of a connection (protocol TCP,
 *                its ports, sequence and acknowledgment numbers taken as offsets from the
 *                client's snd_nxt and rcv_nxt; implies bit 4; and a TCP checksum that verifies,
 *                so that it may join the segments around it in one aggregate, net/gro.h); 6
 *                which connection (echo, else discard); 7 set the total length to the
 *                datagram's length.
 *   op & 3 == 1  scripted client segment on a connection (bit 6), from core (bits 4-5): bits 2-3
 *                0 data (next byte n: 6 * n bytes, at most 1460; PSH unless bit 7, as a bulk
 *                sender's segments inside a write), 1 ACK, 2 FIN, 3 RST.
 *   op & 3 == 2  the clock: next byte n: n * 50 ms, in steps of at most 250 ms, a sink pass each.
 *   op & 3 == 3  a sink pass; then the cores whose bit (2-5) is set reclaim their returned
 *                buffers (the others let them wait).
 * Every sink pass's output is parsed by the client (ACKs, data, windows).
 *
 * Invariants: no crash, no ASan/UBSan report, no lwIP assertion (a panic, which aborts); every
 * frame the sink sends is well-formed IPv4 from one of our addresses with checksums that verify
 * (but for ICMP echo replies, whose checksum lwIP derives from the request's: with the checks
 * off here, a request with a wrong one gets a reply with a wrong one), in a buffer of the sink
 * core's pool; at the end (the clients reset what they opened, 2 s of timers, every
 * remaining connection aborted, 7 s more for reassembly to time out, every core reclaims):
 * every pool is full, every handed buffer was released by lwIP, lwIP's memp pools and heap are
 * back where they were before the input, no connection is left, no service counts an active
 * one.
 *
 * State: lwIP cannot be initialised twice, so it is brought up on the first input and every
 * input must leave it as it found it (which the invariants check). The TCP ISN key is left
 * zero (sink_random_init is not called) and each input starts at the same phase of the ISN
 * clock and of lwIP's slow TCP timer, so an input behaves the same every time it is run.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "apps/sink/sink.h"
#include "apps/sink/sink_core.h"
#include "config.h"
#include "drivers/nic/nic.h"
#include "lwip/init.h"
#include "lwip/memp.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/stats.h"
#include "lwip/tcp.h"
#include "net/handoff.h"
#include "net/iface.h"
#include "net/inet.h"
#include "net/local.h"
#include "net/lwip-port/sink_netif.h"
#include "net/lwip-port/tcp_hooks.h"
#include "tests/fakes/fake_sink_platform.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_sink.h"
#include "tests/hostsim/sink_peer.h"

#define FZ_SINK_CORE 3
#define FZ_POOL 512
#define FZ_SERVER 0xc6120001u /* 198.18.0.1, port0 */
#define FZ_CLIENT 0xc6120002u /* 198.18.0.2 */
#define FZ_MAX_DGRAM 1500
#define FZ_MAX_RECORDS 128

struct fz {
    struct sink_peer peer[FSP_CORES]; /* one client host, its frames arriving on each core */
    struct sink_tcp conn[2];          /* 0: discard, 1: echo */
    bool open[2];
    struct net_local_stats local[FSP_CORES];
};

static bool fz_up;
static struct fuzz_lwip_level fz_level;

/* fz_setup: the sink as sink_init brings it up, less the random key (see the top). */
static void fz_setup(void)
{
    fsp_setup(FZ_POOL, true);
    FUZZ_CHECK(handoff_init(FSP_CORES, FZ_SINK_CORE, CONFIG_NIC_POOL_BUFFERS) == 0);
    lwip_init();
    FUZZ_CHECK(sink_netif_init(FZ_SINK_CORE) == 2);
    sink_basic_init();
    fuzz_lwip_level_take(&fz_level);
    fz_up = true;
}

/* fz_output: what the sink sent: checked, shown to the client connections, completed. */
static void fz_output(struct fz *z)
{
    struct pkb *b[64];
    unsigned port[64], n;
    _Static_assert(FSP_PORTS == 2, "the address check below");
    while ((n = fsp_tx_take(b, port, 64)) != 0) {
        for (unsigned i = 0; i < n; i++) {
            struct sink_seg s;
            FUZZ_CHECK(b[i]->owner == FZ_SINK_CORE || b[i]->owner == FSP_WIRE_OWNER); /* a TSO segment */
            FUZZ_CHECK(sink_peer_parse(b[i]->data, b[i]->len, &s));
            FUZZ_CHECK(s.ip_csum_ok);
            /* Checksums verify, but for an echo reply: lwIP derives its checksum from the
             * request's (RFC 1624), and this build lets requests with a wrong one through. */
            bool echo_reply = s.proto == SP_PROTO_ICMP && s.icmp_type == 0;
            FUZZ_CHECK((s.frag & 0x3fff) != 0 || s.l4_csum_ok || echo_reply);
            /* From one of our addresses (not necessarily the egress port's: the FIB picks the
             * port towards the destination, whichever address the datagram came to). */
            FUZZ_CHECK(s.src == net_port(0)->ifc.ip || s.src == net_port(1)->ifc.ip);
            FUZZ_CHECK(port[i] < FSP_PORTS);
            for (unsigned c = 0; c < 2; c++) {
                struct sink_tcp *t = &z->conn[c];
                if (z->open[c] && sink_tcp_input(t, &s) && (int32_t)(t->snd_una - t->snd_nxt) > 0) {
                    t->snd_nxt = t->snd_una; /* the sink took bytes the harness made up */
                }
            }
            fsp_tx_done(b[i]);
        }
    }
}

static void fz_pass(struct fz *z, unsigned reclaim_mask)
{
    sink_poll();
    fz_output(z);
    for (unsigned c = 0; c < FSP_CORES; c++) {
        if (reclaim_mask & (1u << c)) {
            handoff_reclaim(c);
        }
    }
}

static void fz_clock(struct fz *z, uint64_t ms, uint64_t step)
{
    while (ms > 0) {
        uint64_t d = ms < step ? ms : step;
        fsp_clock_advance_ms(d);
        fz_pass(z, 0xf);
        ms -= d;
    }
}

/* fz_hand: the datapath's part: net/local.c decides, NET_SINK goes to the sink. */
static void fz_hand(struct fz *z, unsigned core, struct pkb *b)
{
    if (b == NULL) {
        return; /* the core's pool is empty: the NIC would have had no buffer either */
    }
    uint16_t out_len = 0;
    enum net_verdict v = net_local_input(&net_port(b->port)->ifc, NULL, b->data, b->len, PKB_DATA_BYTES,
                                         &out_len, &z->local[core], fsp_clock_ns());
    if (v == NET_SINK) {
        handoff_to_sink(core, b);
    } else {
        pkb_free(b, (uint16_t)core);
    }
}

static void fz_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t fz_get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* fz_tcp_checksum: the TCP checksum of datagram d (header hl bytes, len in hand), over what
 * its total length covers if the datagram holds that much. */
static void fz_tcp_checksum(uint8_t *d, unsigned hl, unsigned len)
{
    unsigned total = (unsigned)d[2] << 8 | d[3];
    if (total < hl + 20 || total > len) {
        return;
    }
    uint8_t *tcp = d + hl;
    tcp[16] = tcp[17] = 0;
    uint32_t sum = inet_csum_add(0, d + 12, 8) + SP_PROTO_TCP + (total - hl);
    uint16_t c = inet_csum_fold(inet_csum_add(sum, tcp, total - hl));
    tcp[16] = (uint8_t)(c >> 8);
    tcp[17] = (uint8_t)c;
}

/* fz_datagram: one datagram record (see the top for the op bits). */
static void fz_datagram(struct fz *z, uint8_t op, struct fuzz_in *in)
{
    uint8_t d[FZ_MAX_DGRAM];
    uint16_t len = fuzz_u16(in) % (FZ_MAX_DGRAM + 1);
    len = len < in->n ? len : (uint16_t)in->n;
    memcpy(d, in->p, len);
    in->p += len;
    in->n -= len;
    unsigned core = (op >> 2) & 3;
    struct sink_tcp *t = &z->conn[(op >> 6) & 1];
    if (len >= 20) {
        unsigned hl = (d[0] & 0x0fu) * 4;
        if (op & 0x30) {
            fz_put32(d + 12, FZ_CLIENT);
            fz_put32(d + 16, FZ_SERVER);
        }
        if (op & 0x80) {
            d[2] = (uint8_t)(len >> 8);
            d[3] = (uint8_t)len;
        }
        if ((op & 0x20) && hl >= 20 && hl + 20 <= len) {
            uint8_t *tcp = d + hl;
            d[9] = SP_PROTO_TCP;
            tcp[0] = (uint8_t)(t->sport >> 8);
            tcp[1] = (uint8_t)t->sport;
            tcp[2] = (uint8_t)(t->dport >> 8);
            tcp[3] = (uint8_t)t->dport;
            fz_put32(tcp + 4, t->snd_nxt + fz_get32(tcp + 4));
            fz_put32(tcp + 8, t->rcv_nxt + fz_get32(tcp + 8));
            fz_tcp_checksum(d, hl, len);
        }
        if (hl >= 20 && hl <= len) { /* net/local.c verifies it; fuzz_net_local fuzzes that */
            d[10] = d[11] = 0;
            uint16_t c = fuzz_csum(d, hl);
            d[10] = (uint8_t)(c >> 8);
            d[11] = (uint8_t)c;
        }
    }
    fz_hand(z, core, sink_peer_raw(&z->peer[core], d, len));
}

/* fz_client: a scripted segment of one of the connections. */
static void fz_client(struct fz *z, uint8_t op, struct fuzz_in *in)
{
    unsigned which = (op >> 6) & 1, core = (op >> 4) & 3;
    struct sink_tcp *t = &z->conn[which];
    if (!z->open[which]) {
        return;
    }
    t->peer = &z->peer[core];
    switch ((op >> 2) & 3) {
    case 0: {
        unsigned n = 6u * fuzz_u8(in);
        uint16_t len = (uint16_t)(n > 1460 ? 1460 : n);
        if (op & 0x80) {
            struct pkb *b = sink_tcp_segment(t, SP_TCP_ACK, t->snd_nxt, t->rcv_nxt, NULL, 0, NULL,
                                             len);
            t->snd_nxt += b != NULL ? len : 0;
            fz_hand(z, core, b);
        } else {
            fz_hand(z, core, sink_tcp_data(t, NULL, len));
        }
        break;
    }
    case 1:
        fz_hand(z, core, sink_tcp_ack(t));
        break;
    case 2:
        fz_hand(z, core, sink_tcp_fin(t));
        break;
    default:
        fz_hand(z, core, sink_tcp_rst(t));
        break;
    }
}

static void fz_connect(struct fz *z, unsigned which, uint16_t dport)
{
    struct sink_tcp *t = &z->conn[which];
    sink_tcp_init(t, &z->peer[0], (uint16_t)(40000 + which), dport, 0x01000000u * (which + 1));
    z->open[which] = true;
    fz_hand(z, 0, sink_tcp_syn(t));
    fz_pass(z, 0xf);
    FUZZ_CHECK(t->established);
    fz_hand(z, 0, sink_tcp_ack(t));
    fz_pass(z, 0xf);
}

/* fz_end: close everything, let every timer run out, and check nothing is left. */
static void fz_end(struct fz *z)
{
    for (unsigned c = 0; c < 2; c++) {
        if (z->open[c]) {
            fz_hand(z, 0, sink_tcp_rst(&z->conn[c]));
        }
    }
    fz_clock(z, 2000, 250);
    fuzz_sink_abort_all();
    fz_clock(z, 7000, 500); /* IP_REASS_MAXAGE: incomplete datagrams are dropped */
    fz_pass(z, 0xf);
    fsp_tx_flush();

    fuzz_sink_all_home();
    fuzz_lwip_level_check(&fz_level);
    for (unsigned s = 0; s < SINK_SERVICE_COUNT; s++) {
        FUZZ_CHECK(sink_stats[s].active == 0);
    }
}

/* fz_report: with FUZZ_LWIP_VERBOSE set, what an input did (to check that a seed does what it
 * is named for): counter deltas over the input. */
struct fz_counts {
    uint64_t to_sink, discard_rx, echo_rx, echo_tx, udp_rx, ooseq, resets, tcp_rx, reass_ok,
        sent, icmp_tx;
};

static void fz_counts(const struct fz *z, struct fz_counts *k)
{
    memset(k, 0, sizeof(*k));
    for (unsigned c = 0; c < FSP_CORES; c++) {
        k->to_sink += z->local[c].ip_to_sink;
    }
    k->discard_rx = sink_stats[SINK_DISCARD].rx_bytes;
    k->echo_rx = sink_stats[SINK_ECHO].rx_bytes;
    k->echo_tx = sink_stats[SINK_ECHO].tx_bytes;
    k->udp_rx = sink_stats[SINK_DISCARD].rx_datagrams + sink_stats[SINK_ECHO].rx_datagrams;
    k->ooseq = lwport_tcp_stats.out_of_order;
    k->resets = lwport_tcp_stats.resets_received;
    k->tcp_rx = lwip_stats.tcp.recv;
    k->reass_ok = lwip_stats.ip_frag.recv;
    k->sent = sink_netif_stats.tx_frames;
    k->icmp_tx = lwip_stats.icmp.xmit;
}

static void fz_report(const struct fz_counts *a, const struct fz_counts *b)
{
    fprintf(stderr,
            "fuzz_lwip: to sink %" PRIu64 ", TCP segments %" PRIu64 ", discard bytes %" PRIu64
            ", echo bytes in %" PRIu64 " out %" PRIu64 ", UDP datagrams %" PRIu64
            ", out of order %" PRIu64 ", resets %" PRIu64 ", fragments %" PRIu64
            ", sent %" PRIu64 " (ICMP %" PRIu64 ")\n",
            b->to_sink - a->to_sink, b->tcp_rx - a->tcp_rx, b->discard_rx - a->discard_rx,
            b->echo_rx - a->echo_rx, b->echo_tx - a->echo_tx, b->udp_rx - a->udp_rx,
            b->ooseq - a->ooseq, b->resets - a->resets, b->reass_ok - a->reass_ok,
            b->sent - a->sent, b->icmp_tx - a->icmp_tx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!fz_up) {
        fz_setup();
    }
    fuzz_sink_same_phase(); /* see the top */

    static struct fz z;
    memset(&z, 0, sizeof(z));
    for (unsigned c = 0; c < FSP_CORES; c++) {
        z.peer[c] = (struct sink_peer){ .ip = FZ_CLIENT, .server_ip = FZ_SERVER, .port = 0,
                                        .core = c };
    }
    static int verbose = -1;
    if (verbose < 0) {
        verbose = getenv("FUZZ_LWIP_VERBOSE") != NULL;
    }
    struct fz_counts k0, k1;
    fz_counts(&z, &k0);
    struct fuzz_in in = { data, size };
    uint8_t pre = fuzz_u8(&in);
    if (pre & 1) {
        fz_connect(&z, 0, 9);
    }
    if (pre & 2) {
        fz_connect(&z, 1, 7);
    }
    for (unsigned r = 0; r < FZ_MAX_RECORDS && in.n > 0; r++) {
        uint8_t op = fuzz_u8(&in);
        switch (op & 3) {
        case 0:
            fz_datagram(&z, op, &in);
            break;
        case 1:
            fz_client(&z, op, &in);
            break;
        case 2:
            fz_clock(&z, 50u * fuzz_u8(&in), 250);
            break;
        default:
            fz_pass(&z, (op >> 2) & 0xf);
            break;
        }
    }
    fz_end(&z);
    if (verbose) {
        fz_counts(&z, &k1);
        fz_report(&k0, &k1);
    }
    return 0;
}
