/*
 * tests/fuzz/fuzz_sink_services.c: libFuzzer harness for the sink's services as state machines:
 * apps/sink/iperf3.c (iperf3 3.12 server) and apps/sink/netperf.c (netserver 2.7.0), with
 * basic.c's discard and echo, listening on lwIP as sink_init starts them and polled on every
 * sink pass (sink_poll) with the fake clock. The input scripts clients from one host
 * (198.18.0.2): TCP connections to the services' ports and to the data ports they hand out,
 * payload bytes from the input (cookies, length-prefixed JSON, state bytes, netperf's 656-byte
 * requests, in any order and split at any point), UDP datagrams, FIN, RST, a client that
 * vanishes, and time passing so that the services' timeouts and lwIP's fire. The parsers have
 * their own harnesses (fuzz_iperf3, fuzz_netperf_proto) and lwIP's input path has fuzz_lwip;
 * this one is for what lies between: accept, cookie, params, streams, the test's phases,
 * errors and aborts in any phase. Frames go straight to the sink's handoff (fuzz_lwip covers
 * net/local.c); tests/hostsim/sink_peer.c builds them with valid checksums.
 *
 * Input: records, one op byte each; op & 7 is the kind, op >> 3 a slot (of 32) for TCP
 * connections (a client socket; frames from core slot % 4) or a source port for UDP:
 *   0 connect: a dest byte (below); the three-way handshake, then a sink pass after each step.
 *   1 data: u16 length (big-endian, at most 4096), that many bytes from the input, sent in
 *     segments of at most 1460 bytes.
 *   2 filler: next byte n: 64 * n bytes of pattern (a stream's bulk data), same segments.
 *   3 control: next byte c: c % 8 = 0 ACK, 1 FIN, 2 RST, 3 window = c >> 3 (units of 2 KiB
 *     with scale 7; 0 shuts it) and an ACK, 4 the client vanishes (sends nothing more, not
 *     even the final reset), 5 filler of c >> 3 * 64 bytes carrying FIN, 6 and 7 ACK.
 *   4 UDP datagram from port 50000 + slot: a dest byte, u16 length (at most 1472), the bytes.
 *   5 clock: next byte n: n < 192: n * 50 ms in 250 ms steps; else (n - 191) * 10 s in 1 s
 *     steps, a sink pass each; at most 1800 s per input.
 *   6 a sink pass.
 *   7 half-open: a dest byte; SYN only (the client answers nothing until its next segment).
 * A dest byte d: 0 iperf3's port, 1 netperf's, 2 discard, 3 echo; 255: a u16 port follows;
 * else the ((d - 4) mod n)-th of the n TCP listeners (UDP: bound UDP pcbs) in lwIP's lists:
 * how the input reaches the data ports netperf hands out, whatever number lwIP chose.
 * Clients acknowledge what they received after every sink pass (their window, 16 KiB unless
 * set, paces what the sink sends).
 *
 * Invariants: no crash, no ASan/UBSan report, no lwIP assertion (a panic, which aborts); every
 * frame the sink sends is IPv4 from our address with checksums that verify; after every pass
 * each service's `active` gauge stays within what its tables can hold (a gauge counted down
 * twice wraps), and the tests still open (run - done - failed) are at most one per test slot
 * (iperf3, netperf) and exactly one per connection (discard, echo). At the end, once the open
 * clients have reset their connections, 2 s of timers have run and every remaining pcb is
 * aborted: iperf3 and netperf idle at once (iperf3_idle, netperf_idle: a test's state hangs
 * on its connections, never on a timeout alone). After 700 s more of timers, past every
 * service deadline: every pool full, every handed buffer released by lwIP, lwIP's memp pools
 * and heap back to their level after start-up, no pcb left but the services' own listeners
 * and UDP pcbs, every service's `active` gauge 0 and tests_run == tests_done + tests_failed.
 *
 * State: lwIP cannot be initialised twice, so everything is brought up on the first input and
 * each input must leave it as it found it (the invariants). As in fuzz_lwip, each input starts
 * at the same phase of the ISN clock and of lwIP's TCP timer, and here also of the handoff's
 * round robin, so it behaves the same every run.
 * netperf.c reads the sink core's cycle counters through this_cpu() (%gs:0): GS base points
 * at a host percpu block, as kernel/cpu.c points it at the core's own.
 */
#include <asm/prctl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "net/handoff.h"
#include "apps/sink/sink.h"
#include "apps/sink/sink_core.h"
#include "config.h"
#include "drivers/nic/nic.h"
#include "lwip/init.h"
#include "lwip/memp.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/stats.h"
#include "lwip/tcp.h"
#include "lwip/udp.h"
#include "net/iface.h"
#include "net/lwip-port/sink_netif.h"
#include "percpu.h"
#include "tests/fakes/fake_sink_platform.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_sink.h"
#include "tests/hostsim/sink_peer.h"

#define FZ_SINK_CORE 3
#define FZ_POOL 256 /* per core: also bounds the frames the sink sends in one pass */
#define FZ_SERVER 0xc6120001u /* 198.18.0.1, port0 */
#define FZ_CLIENT 0xc6120002u /* 198.18.0.2 */
#define FZ_CONNS 32 /* all that op >> 3 names: two iperf3 tests, one with 16 streams */
#define FZ_MAX_RECORDS 256
#define FZ_MAX_DATA 4096
#define FZ_MAX_UDP 1472
#define FZ_SEG 1460
#define FZ_WND_DEFAULT 0x80        /* x 2^7 = 16 KiB */
#define FZ_CLOCK_BUDGET_MS 1800000 /* per input: beyond it clock records do nothing */
#define FZ_END_TIMERS_MS 700000    /* past netperf's 600 s watchdog, iperf3's 40 s grace */
/* Bounds of the `active` gauges: iperf3 holds 8 pending connections and per test a control
 * connection and its streams; netperf per session a control connection and one data endpoint
 * (the listener is let go when the data connection comes); basic.c its connection slots. */
#define FZ_IPERF3_MAX_HELD (8 + CONFIG_SINK_MAX_TESTS * (1 + CONFIG_SINK_MAX_STREAMS))
#define FZ_NETPERF_MAX_HELD (2 * CONFIG_SINK_MAX_TESTS)

enum fz_kind { FZ_CONNECT, FZ_DATA, FZ_FILLER, FZ_CONTROL, FZ_UDP, FZ_CLOCK, FZ_PASS, FZ_HALF };

_Static_assert(FZ_CONNS == 256 >> 3, "op >> 3 names every slot");

struct fz_conn {
    struct sink_tcp tcp;
    bool open;      /* answered with a SYN-ACK and not reset by either side since */
    bool gone;      /* the client vanished: it sends nothing more */
    uint32_t acked; /* rcv_nxt of our last ACK */
    uint16_t gen;   /* connections made on this slot: each gets its own source port */
};

struct fz {
    struct sink_peer peer[FSP_CORES]; /* one client host, its frames arriving on each core */
    struct fz_conn conn[FZ_CONNS];
    uint32_t clock_ms; /* spent of FZ_CLOCK_BUDGET_MS */
};

static bool fz_up;
static struct fuzz_lwip_level fz_level;
static unsigned fz_listeners_base, fz_udp_base;
static struct percpu fz_cpu; /* this_cpu() for netperf's CPU figures */
static unsigned long fz_takes; /* sink passes so far: each takes from the handoff once */

static unsigned fz_count_listeners(void)
{
    unsigned n = 0;
    for (struct tcp_pcb_listen *l = tcp_listen_pcbs.listen_pcbs; l != NULL; l = l->next) {
        n++;
    }
    return n;
}

static unsigned fz_count_udp(void)
{
    unsigned n = 0;
    for (struct udp_pcb *u = udp_pcbs; u != NULL; u = u->next) {
        n++;
    }
    return n;
}

/* fz_setup: the sink as sink_init brings it up with config/default.conf, less the random ISN
 * key (see the top). */
static void fz_setup(void)
{
    fz_cpu.self = &fz_cpu;
    FUZZ_CHECK(syscall(SYS_arch_prctl, ARCH_SET_GS, &fz_cpu) == 0);
    fsp_setup(FZ_POOL, true);
    FUZZ_CHECK(handoff_init(FSP_CORES, FZ_SINK_CORE, CONFIG_NIC_POOL_BUFFERS) == 0);
    lwip_init();
    FUZZ_CHECK(sink_netif_init(FZ_SINK_CORE) == 2);
    sink_basic_init();
    iperf3_init();
    netperf_init();
    fuzz_lwip_level_take(&fz_level);
    fz_listeners_base = fz_count_listeners();
    fz_udp_base = fz_count_udp();
    FUZZ_CHECK(fz_listeners_base == 4 && fz_udp_base == 3); /* 9, 7, 5201, 12865; UDP 9, 7, 5201 */
    fz_up = true;
}

/* fz_output: what the sink sent: checked, then shown to the client connections. */
static void fz_output(struct fz *z)
{
    struct pkb *b[64];
    unsigned port[64], n;
    while ((n = fsp_tx_take(b, port, 64)) != 0) {
        for (unsigned i = 0; i < n; i++) {
            struct sink_seg s;
            FUZZ_CHECK(b[i]->owner == FZ_SINK_CORE || b[i]->owner == FSP_WIRE_OWNER); /* a TSO segment */
            FUZZ_CHECK(sink_peer_parse(b[i]->data, b[i]->len, &s));
            FUZZ_CHECK(s.ip_csum_ok);
            FUZZ_CHECK((s.frag & 0x3fff) != 0 || s.l4_csum_ok);
            FUZZ_CHECK(s.src == net_port(0)->ifc.ip && s.dst == FZ_CLIENT && port[i] == 0);
            for (unsigned c = 0; c < FZ_CONNS; c++) {
                struct fz_conn *k = &z->conn[c];
                if (k->open && sink_tcp_input(&k->tcp, &s)) {
                    k->open = !k->tcp.rst_received;
                    break;
                }
            }
            fsp_tx_done(b[i]);
        }
    }
}

static uint64_t fz_tests_open(enum sink_service s)
{
    const struct sink_service_stats *st = &sink_stats[s];
    return st->tests_run - st->tests_done - st->tests_failed;
}

/* fz_gauges_bounded: after every pass. A gauge counted down once too often wraps to 2^64 - 1;
 * a test counted as ended twice, or never, shows in the tests still open: at most one per
 * test slot (iperf3, netperf), exactly one per connection (discard and echo). */
static void fz_gauges_bounded(void)
{
    FUZZ_CHECK(sink_stats[SINK_IPERF3].active <= FZ_IPERF3_MAX_HELD);
    FUZZ_CHECK(sink_stats[SINK_NETPERF].active <= FZ_NETPERF_MAX_HELD);
    FUZZ_CHECK(sink_stats[SINK_DISCARD].active + sink_stats[SINK_ECHO].active <=
               CONFIG_SINK_MAX_CONNECTIONS);
    FUZZ_CHECK(fz_tests_open(SINK_IPERF3) <= CONFIG_SINK_MAX_TESTS);
    FUZZ_CHECK(fz_tests_open(SINK_NETPERF) <= CONFIG_SINK_MAX_TESTS);
    FUZZ_CHECK(fz_tests_open(SINK_DISCARD) == sink_stats[SINK_DISCARD].active);
    FUZZ_CHECK(fz_tests_open(SINK_ECHO) == sink_stats[SINK_ECHO].active);
}

static void fz_hand(struct fz_conn *k, struct pkb *b)
{
    if (b != NULL) { /* NULL: the core's pool is empty, the NIC would have had no buffer */
        sink_peer_hand(k->tcp.peer, b);
    }
}

/* fz_acks: every client that is still there acknowledges what it has received. */
static void fz_acks(struct fz *z)
{
    for (unsigned c = 0; c < FZ_CONNS; c++) {
        struct fz_conn *k = &z->conn[c];
        if (k->open && !k->gone && k->tcp.rcv_nxt != k->acked) {
            k->acked = k->tcp.rcv_nxt;
            fz_hand(k, sink_tcp_ack(&k->tcp));
        }
    }
}

/* fz_pass: one pass of the sink core's loop, what it sent delivered, the buffers returned. */
static void fz_pass(struct fz *z)
{
    if (sink_poll()) {
        fz_cpu.busy_cycles += 1000;
    }
    fz_takes++;
    fz_output(z);
    for (unsigned c = 0; c < FSP_CORES; c++) {
        handoff_reclaim(c);
    }
    fz_gauges_bounded();
    fz_acks(z);
}

static void fz_clock(struct fz *z, uint64_t ms, uint64_t step)
{
    while (ms > 0) {
        uint64_t d = ms < step ? ms : step;
        fsp_clock_advance_ms(d);
        fz_cpu.idle_cycles += d * 1000;
        fz_pass(z);
        ms -= d;
    }
}

/* fz_dest: a dest byte (see the top) and what follows it: the port it names. */
static uint16_t fz_dest(struct fuzz_in *in, bool udp)
{
    static const uint16_t fixed[] = { CONFIG_SINK_IPERF3_PORT, CONFIG_SINK_NETPERF_PORT, 9, 7 };
    uint8_t d = fuzz_u8(in);
    if (d < 4) {
        return fixed[d];
    }
    if (d == 0xff) {
        return fuzz_u16(in);
    }
    unsigned n = udp ? fz_count_udp() : fz_count_listeners();
    unsigned k = n ? (d - 4u) % n : 0;
    if (udp) {
        struct udp_pcb *u = udp_pcbs;
        for (; u != NULL && k > 0; k--) {
            u = u->next;
        }
        return u ? u->local_port : fixed[0];
    }
    struct tcp_pcb_listen *l = tcp_listen_pcbs.listen_pcbs;
    for (; l != NULL && k > 0; k--) {
        l = l->next;
    }
    return l ? l->local_port : fixed[0];
}

/* fz_connect: a new connection on a slot not in use: SYN, and unless half-open the ACK of the
 * SYN-ACK. A reset (nobody listens, or the service is full) leaves the slot closed. */
static void fz_connect(struct fz *z, unsigned slot, uint16_t dport, bool half_open)
{
    struct fz_conn *k = &z->conn[slot];
    if (k->open && !k->gone) {
        return;
    }
    k->gen++;
    uint16_t sport = (uint16_t)(20000 + k->gen * FZ_CONNS + slot);
    sink_tcp_init(&k->tcp, &z->peer[slot % FSP_CORES], sport, dport,
                  0x01000000u * (slot + 1) + 0x10000u * k->gen);
    k->tcp.wnd = FZ_WND_DEFAULT;
    k->open = true;
    k->gone = false;
    k->acked = 0;
    fz_hand(k, sink_tcp_syn(&k->tcp));
    fz_pass(z);
    if (!k->tcp.established || k->tcp.rst_received) {
        k->open = false;
        return;
    }
    k->acked = k->tcp.rcv_nxt;
    if (!half_open) {
        fz_hand(k, sink_tcp_ack(&k->tcp));
        fz_pass(z);
    }
}

static bool fz_can_send(const struct fz_conn *k)
{
    return k->open && !k->gone;
}

/* fz_send: len bytes (data, or the pattern if NULL) in segments of at most FZ_SEG. */
static void fz_send(struct fz_conn *k, const uint8_t *data, unsigned len)
{
    while (len > 0) {
        uint16_t n = (uint16_t)(len < FZ_SEG ? len : FZ_SEG);
        fz_hand(k, sink_tcp_data(&k->tcp, data, n));
        data = data ? data + n : NULL;
        len -= n;
    }
    k->acked = k->tcp.rcv_nxt; /* data segments carry the ACK */
}

static void fz_data(struct fz *z, unsigned slot, struct fuzz_in *in)
{
    unsigned len = fuzz_u16(in) % (FZ_MAX_DATA + 1);
    len = len < in->n ? len : (unsigned)in->n;
    const uint8_t *data = in->p;
    in->p += len;
    in->n -= len;
    if (fz_can_send(&z->conn[slot])) {
        fz_send(&z->conn[slot], data, len);
    }
}

/* fz_control: a segment without data of our own choosing (see the top). */
static void fz_control(struct fz *z, unsigned slot, uint8_t c)
{
    struct fz_conn *k = &z->conn[slot];
    if (!fz_can_send(k)) {
        return;
    }
    switch (c % 8) {
    case 1:
        fz_hand(k, sink_tcp_fin(&k->tcp));
        break;
    case 2:
        fz_hand(k, sink_tcp_rst(&k->tcp));
        k->open = false;
        break;
    case 3:
        k->tcp.wnd = (uint16_t)((c >> 3) * 16);
        fz_hand(k, sink_tcp_ack(&k->tcp));
        break;
    case 4:
        k->gone = true;
        break;
    case 5: {
        uint16_t n = (uint16_t)((c >> 3) * 64);
        struct pkb *b = sink_tcp_segment(&k->tcp, SP_TCP_ACK | SP_TCP_PSH | SP_TCP_FIN,
                                         k->tcp.snd_nxt, k->tcp.rcv_nxt, NULL, 0, NULL, n);
        if (b != NULL) {
            k->tcp.snd_nxt += n + 1u;
            fz_hand(k, b);
        }
        break;
    }
    default:
        fz_hand(k, sink_tcp_ack(&k->tcp));
        break;
    }
    k->acked = k->tcp.rcv_nxt;
}

static void fz_udp(struct fz *z, unsigned slot, struct fuzz_in *in)
{
    uint16_t dport = fz_dest(in, true);
    uint16_t len = (uint16_t)(fuzz_u16(in) % (FZ_MAX_UDP + 1));
    len = len < in->n ? len : (uint16_t)in->n;
    struct sink_peer *p = &z->peer[slot % FSP_CORES];
    struct pkb *b = sink_peer_udp(p, (uint16_t)(50000 + slot), dport, in->p, len);
    in->p += len;
    in->n -= len;
    if (b != NULL) {
        sink_peer_hand(p, b);
    }
}

static void fz_clock_record(struct fz *z, uint8_t n)
{
    uint32_t ms = n < 192 ? n * 50u : (n - 191u) * 10000u;
    if (ms > FZ_CLOCK_BUDGET_MS - z->clock_ms) {
        ms = FZ_CLOCK_BUDGET_MS - z->clock_ms;
    }
    z->clock_ms += ms;
    fz_clock(z, ms, n < 192 ? 250 : 1000);
}

/* fz_end: close everything, let every timer run out, and check that nothing is left. */
static void fz_end(struct fz *z)
{
    for (unsigned c = 0; c < FZ_CONNS; c++) {
        struct fz_conn *k = &z->conn[c];
        if (fz_can_send(k)) {
            fz_hand(k, sink_tcp_rst(&k->tcp));
            k->open = false;
        }
    }
    fz_clock(z, 2000, 250);
    fuzz_sink_abort_all(); /* vanished clients, half-open ones: their err callbacks */
    /* Every test's state hangs on its connections: with them gone nothing may be left
     * waiting for a timeout (a slot held that long turns real clients away). */
    fz_pass(z);
    FUZZ_CHECK(iperf3_idle());
    FUZZ_CHECK(netperf_idle());
    fz_clock(z, FZ_END_TIMERS_MS, 70000);
    fsp_tx_flush();

    fuzz_sink_all_home();
    FUZZ_CHECK(fz_count_listeners() == fz_listeners_base); /* netperf's data listeners closed */
    FUZZ_CHECK(fz_count_udp() == fz_udp_base);             /* and its UDP data pcbs */
    fuzz_lwip_level_check(&fz_level);
    FUZZ_CHECK(iperf3_idle());
    FUZZ_CHECK(netperf_idle());
    for (unsigned s = 0; s < SINK_SERVICE_COUNT; s++) {
        const struct sink_service_stats *st = &sink_stats[s];
        FUZZ_CHECK(st->active == 0);
        FUZZ_CHECK(st->tests_run == st->tests_done + st->tests_failed);
    }
}

/* fz_report: with FUZZ_SVC_VERBOSE set, what an input did (to check that a seed reaches what
 * it is named for): lwIP's allocation failures and each service's counters over the input. */
static uint64_t fz_lwip_mem_errors(void)
{
    uint64_t n = lwip_stats.mem.err;
    for (unsigned i = 0; i < MEMP_MAX; i++) {
        n += lwip_stats.memp[i]->err;
    }
    return n;
}

static void fz_report(const struct sink_service_stats *before, uint64_t mem_errors_before)
{
    fprintf(stderr, "fuzz_sink_services: lwIP allocation failures %" PRIu64 "\n",
            fz_lwip_mem_errors() - mem_errors_before);
    static const char *const names[] = { "discard", "echo", "iperf3", "netperf" };
    for (unsigned s = 0; s < SINK_SERVICE_COUNT; s++) {
        const struct sink_service_stats *a = &before[s], *b = &sink_stats[s];
        fprintf(stderr,
                "fuzz_sink_services: %-7s run %" PRIu64 " done %" PRIu64 " failed %" PRIu64
                " refused %" PRIu64 " errors %" PRIu64 ", rx %" PRIu64 " B %" PRIu64
                " dgrams (%" PRIu64 " ignored), tx %" PRIu64 " B %" PRIu64 " dgrams\n",
                names[s], b->tests_run - a->tests_run, b->tests_done - a->tests_done,
                b->tests_failed - a->tests_failed, b->refused - a->refused,
                b->protocol_errors - a->protocol_errors, b->rx_bytes - a->rx_bytes,
                b->rx_datagrams - a->rx_datagrams, b->rx_ignored - a->rx_ignored,
                b->tx_bytes - a->tx_bytes, b->tx_datagrams - a->tx_datagrams);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!fz_up) {
        fz_setup();
    }
    fuzz_sink_same_phase();
    /* And of the handoff's round robin (handoff.c: each take starts one core further): the
     * order in which frames of different cores reach lwIP. An empty take only moves it on. */
    for (; fz_takes % FSP_CORES != 0; fz_takes++) {
        handoff_take(NULL, 0);
    }
    static int verbose = -1;
    if (verbose < 0) {
        verbose = getenv("FUZZ_SVC_VERBOSE") != NULL;
    }
    struct sink_service_stats before[SINK_SERVICE_COUNT];
    memcpy(before, sink_stats, sizeof(before));
    uint64_t mem_errors = fz_lwip_mem_errors();

    static struct fz z;
    memset(&z, 0, sizeof(z));
    for (unsigned c = 0; c < FSP_CORES; c++) {
        z.peer[c] = (struct sink_peer){ .ip = FZ_CLIENT, .server_ip = FZ_SERVER, .port = 0,
                                        .core = c };
    }
    struct fuzz_in in = { data, size };
    for (unsigned r = 0; r < FZ_MAX_RECORDS && in.n > 0; r++) {
        uint8_t op = fuzz_u8(&in);
        unsigned slot = op >> 3;
        switch ((enum fz_kind)(op & 7)) {
        case FZ_CONNECT:
            fz_connect(&z, slot, fz_dest(&in, false), false);
            break;
        case FZ_DATA:
            fz_data(&z, slot, &in);
            break;
        case FZ_FILLER: {
            unsigned n = 64u * fuzz_u8(&in);
            if (fz_can_send(&z.conn[slot])) {
                fz_send(&z.conn[slot], NULL, n);
            }
            break;
        }
        case FZ_CONTROL:
            fz_control(&z, slot, fuzz_u8(&in));
            break;
        case FZ_UDP:
            fz_udp(&z, op >> 3, &in);
            break;
        case FZ_CLOCK:
            fz_clock_record(&z, fuzz_u8(&in));
            break;
        case FZ_PASS:
            fz_pass(&z);
            break;
        case FZ_HALF:
            fz_connect(&z, slot, fz_dest(&in, false), true);
            break;
        }
    }
    fz_end(&z);
    if (verbose) {
        fz_report(before, mem_errors);
    }
    return 0;
}
