/*
 * apps/sink/netperf.c: the netserver (netperf 2.7.0) personality on lwIP's raw API, sink core
 * only. Spec: docs/netperf-iperf3-protocol.md sections 1, 3 and 4; the messages
 * themselves are built and parsed in netperf_proto.c.
 *
 * One session per control connection (at most CONFIG_SINK_MAX_TESTS; the next one is reset and
 * counted as refused). A session answers DO_OMNI requests one after another (-i iterations):
 * open the data endpoint (TCP listener or UDP pcb), answer with its port, run the data phase,
 * close the data endpoint and send the results. Connection tests (TCP_CRR, TCP_CC) keep the
 * listener for the whole test and serve one connection at a time, each one transaction that
 * the server ends by closing (as netserver: the TIME_WAIT is ours, and lwIP recycles the
 * oldest when its pcbs run out). Nothing here blocks: callbacks count and answer,
 * netperf_poll() handles the deadlines and refills what the appliance sends.
 */
#include "sink.h"

#include <string.h>

#include "config.h"
#include "console.h"
#include "netperf_proto.h"
#include "percpu.h"

#include "lwip/ip_addr.h"
#include "lwip/pbuf.h"
#include "lwip/tcp.h"
#include "lwip/udp.h"
#include "net/lwip-port/sink_netif.h"
#include "net/lwip-port/tcp_hooks.h"

#define NP_CTL_IDLE_MS 30000u      /* no whole request for this long: the session is dropped */
#define NP_WATCHDOG_MS 600000u     /* tests without a time limit (-l 0, -l -N) */
#define NP_MAX_TEST_S 86400        /* longer test_length values are capped for deadlines */
#define NP_DRAIN_MS 30000u         /* MAERTS: the client acks what was queued (or FINs) */
#define NP_FILL_BYTES 65535u       /* tcp_write takes at most a u16_t */
#define NP_CPU_FLOOR_PCT 0.01f     /* 0.0 makes the client substitute its own CPU figures */
#define NP_CONG_CONTROL "reno"     /* lwIP's congestion control (RFC 5681) */
#define NP_OWED_FOREVER UINT64_MAX /* MAERTS: send until the deadline */
#define NP_UDP_BURST 32            /* UDP_MAERTS: datagrams per pass, then the others' turn */
#define NP_UDP_END_MARKERS 3       /* zero-length datagrams that end a UDP test, as netserver */

enum np_state {
    NP_FREE,  /* slot unused */
    NP_IDLE,  /* control connection open, no test: waiting for a request */
    NP_TEST,  /* data endpoint open: waiting for the client or moving data */
    NP_DRAIN, /* MAERTS: sending stopped, waiting for the queued bytes to be acked */
};

enum np_end {
    NP_END_CLIENT,  /* FIN, zero-length datagram, or all bytes of a counted MAERTS acked */
    NP_END_TIMEOUT, /* the server-side deadline passed */
    NP_END_RESET,   /* the data connection was reset or could not be served */
};

/* One control connection and its current test. Owned by the sink core. */
struct np_session {
    enum np_state state;
    struct tcp_pcb *ctl;
    ip_addr_t peer; /* the client, for the console */
    struct netperf_rx rx;
    uint32_t idle_since_ms;

    struct netperf_omni_req req;
    bool classic; /* TCP_CC's classic messages (DO_TCP_CC), not omni's */
    uint32_t resp_flags;
    uint16_t data_port;
    struct tcp_pcb *listen; /* TCP tests until the client connects */
    struct tcp_pcb *data;
    struct udp_pcb *udp;
    ip_addr_t udp_to; /* UDP_MAERTS: where the datagrams go */
    uint32_t start_ms, deadline_ms, send_end_ms;
    bool send_timed; /* MAERTS: send_end_ms applies */
    bool pad;        /* timed receive-side test: a timeout reports elapsed - 4 s */

    uint64_t rx_bytes, tx_bytes; /* received; sent and acknowledged (UDP: sent) */
    uint64_t tx_owed;            /* bytes still to hand to tcp_write */
    uint32_t recv_calls, send_calls, trans;
    uint32_t conn_trans0; /* connection tests: trans when the current connection came */
    uint32_t rr_have;  /* TCP_RR: bytes of the current request received so far */
    uint32_t fill_off; /* where the next write starts in np_fill */
    uint64_t busy0, idle0;
};

static struct np_session np_sessions[CONFIG_SINK_MAX_TESTS];
static struct tcp_pcb *np_listener;
/* The pcb a helper aborted, so the callback running on it returns ERR_ABRT to lwIP. */
static struct tcp_pcb *np_aborted;
/* What MAERTS and the responses send: never written, so segments can point into it. */
static uint8_t np_fill[NP_FILL_BYTES];

#define NP_STATS (&sink_stats[SINK_NETPERF])
#define NP_MIN(a, b) ((a) < (b) ? (a) : (b))

static void np_process(struct np_session *s);

static bool np_reached(uint32_t now, uint32_t t)
{
    return (int32_t)(now - t) >= 0;
}

/* --- pcb ownership ------------------------------------------------------------------------ */

static void np_hold(void)
{
    NP_STATS->active++;
}

static void np_unhold(void)
{
    NP_STATS->active--;
}

/* np_tcp_release: detach our callbacks and close `pcb` (lwIP finishes the FIN handshake on its
 * own), or reset it if asked or if closing fails for lack of memory. */
static void np_tcp_release(struct tcp_pcb *pcb, bool reset)
{
    tcp_arg(pcb, NULL);
    if (pcb->state == LISTEN) {
        tcp_accept(pcb, NULL);
    } else {
        tcp_recv(pcb, NULL);
        tcp_sent(pcb, NULL);
        tcp_err(pcb, NULL);
    }
    np_unhold();
    if (!reset && tcp_close(pcb) == ERR_OK) {
        return;
    }
    tcp_abort(pcb);
    np_aborted = pcb;
}

/* np_data_release: free whatever data endpoint the test holds. */
static void np_data_release(struct np_session *s, bool reset)
{
    if (s->listen != NULL) {
        np_tcp_release(s->listen, false);
        s->listen = NULL;
    }
    if (s->data != NULL) {
        np_tcp_release(s->data, reset);
        s->data = NULL;
    }
    if (s->udp != NULL) {
        udp_remove(s->udp);
        s->udp = NULL;
        np_unhold();
    }
}

/* np_session_free: the client is done, gone or misbehaved: drop any test and the control
 * connection (reset if asked). One console line per client says why and what is still held. */
static void np_session_free(struct np_session *s, bool reset, const char *why)
{
    bool testing = s->state == NP_TEST || s->state == NP_DRAIN;
    if (testing) {
        NP_STATS->tests_failed++;
    }
    np_data_release(s, true);
    if (s->ctl != NULL) {
        np_tcp_release(s->ctl, reset);
        s->ctl = NULL;
    }
    s->state = NP_FREE;
    char addr[IPADDR_STRLEN_MAX];
    kprintf("netperf: client %s %s%s%s; %llu connections held\n",
            ipaddr_ntoa_r(&s->peer, addr, sizeof(addr)), why,
            testing ? " during " : "", testing ? netperf_test_name(s->req.test) : "",
            (unsigned long long)NP_STATS->active);
}

/* np_ctl_send: queue one message on the control connection. A client that does not read its
 * answers (no room for 656 bytes) is dropped. Returns false if the session was freed. */
static bool np_ctl_send(struct np_session *s, const uint8_t msg[NETPERF_MSG_BYTES])
{
    if (tcp_sndbuf(s->ctl) < NETPERF_MSG_BYTES ||
        tcp_write(s->ctl, msg, NETPERF_MSG_BYTES, TCP_WRITE_FLAG_COPY) != ERR_OK) {
        NP_STATS->protocol_errors++;
        np_session_free(s, true, "not reading its answers");
        return false;
    }
    tcp_output(s->ctl);
    return true;
}

/* --- CPU utilization from the sink core's own cycle counters ------------------------------ */

static void np_cpu_sample(uint64_t *busy, uint64_t *idle)
{
    struct percpu *cpu = this_cpu(); /* the sink core: everything here runs on it */
    *busy = cpu->busy_cycles;
    *idle = cpu->idle_cycles;
}

static float np_cpu_util(const struct np_session *s)
{
    uint64_t busy, idle;
    np_cpu_sample(&busy, &idle);
    busy -= s->busy0;
    idle -= s->idle0;
    float pct = busy + idle ? (float)busy * 100.0f / (float)(busy + idle) : 0.0f;
    return pct < NP_CPU_FLOOR_PCT ? NP_CPU_FLOOR_PCT : pct;
}

/* --- end of a test ------------------------------------------------------------------------ */

static void np_log_end(const struct np_session *s, enum np_end how, float elapsed)
{
    static const char *const how_names[] = { "done", "timed out", "reset" };
    unsigned ms = (unsigned)(elapsed * 1000.0f);
    kprintf("netperf: %s on port %u %s after %u.%03u s: rx %llu B in %u, tx %llu B in %u, "
            "%u trans\n",
            netperf_test_name(s->req.test), (unsigned)s->data_port, how_names[how], ms / 1000,
            ms % 1000,
            (unsigned long long)s->rx_bytes, (unsigned)s->recv_calls,
            (unsigned long long)s->tx_bytes, (unsigned)s->send_calls, (unsigned)s->trans);
}

/* np_test_end: close the data endpoint, then send the results (netperf's client waits for
 * the data connection to close before it reads them). Returns false if the session was
 * freed. */
static bool np_test_end(struct np_session *s, enum np_end how)
{
    bool udp = netperf_udp_test(s->req.test);
    float elapsed = (float)(sink_now_ms() - s->start_ms) / 1000.0f;
    if (how == NP_END_TIMEOUT && s->pad) {
        elapsed -= (float)NETPERF_PAD_S; /* as netserver: the pad was only waiting */
    }
    struct netperf_results res = {
        .bytes_received = s->rx_bytes,
        .bytes_sent = s->tx_bytes,
        .recv_calls = s->recv_calls,
        .send_calls = s->send_calls,
        .trans_received = s->trans,
        .recv_buf_bytes = udp ? 0 : TCP_WND,
        .send_buf_bytes = udp ? 0 : TCP_SND_BUF,
        .elapsed_s = elapsed > 0.0f ? elapsed : 0.0f,
        /* -1 = not measured, as netserver without TCP_INFO: lwIP keeps no per-connection
         * retransmission count (lwIP's MIB counters have the appliance-wide one) */
        .transport_retrans = -1,
        .cong_control = !udp && (s->req.flags & NETPERF_FLAG_WANT_REM_CONG) ? NP_CONG_CONTROL
                                                                              : NULL,
    };
    if (s->resp_flags & NETPERF_FLAG_MEASURE_CPU) {
        res.cpu_reported = true;
        res.cpu_util_pct = np_cpu_util(s);
        res.num_cpus = 1; /* the sink core: service demand is its time per unit */
    }
    np_data_release(s, how == NP_END_RESET);
    /* A lost UDP end marker is normal (netserver's pad timer exists for it), and a connection
     * test has no end marker at all: its server's timer ends it. */
    bool timer_ends = udp || netperf_connection_test(s->req.test);
    if (how == NP_END_CLIENT || (how == NP_END_TIMEOUT && timer_ends)) {
        NP_STATS->tests_done++;
    } else {
        NP_STATS->tests_failed++;
    }
    np_log_end(s, how, res.elapsed_s);
    s->state = NP_IDLE;
    s->idle_since_ms = sink_now_ms();
    uint8_t msg[NETPERF_MSG_BYTES];
    if (s->classic) {
        netperf_build_cc_results(msg, &res);
    } else {
        netperf_build_results(msg, &res);
    }
    if (!np_ctl_send(s, msg)) {
        return false;
    }
    if (netperf_rx_whole(&s->rx)) {
        np_process(s); /* a request that arrived during the test */
    }
    return s->state != NP_FREE;
}

/* --- sending: MAERTS and RR responses over TCP -------------------------------------------- */

/* np_tcp_pump: hand owed bytes to lwIP from the constant buffer while the send buffer and
 * queue have room. No copy: the segments point into np_fill, and consecutive writes are
 * contiguous there so lwIP extends its last reference instead of allocating another. Then
 * tcp_output, unless called from the sent callback (in_sent): tcp_input calls it right after
 * the callbacks, and each call walks the whole unacknowledged queue (lwIP 2.1.3). */
static bool np_tcp_pump_from(struct np_session *s, bool in_sent)
{
    struct tcp_pcb *pcb = s->data;
    uint32_t mss = tcp_mss(pcb) ? tcp_mss(pcb) : 536;
    bool wrote = false;
    while (s->tx_owed > 0) {
        /* each new segment takes two queue entries (header and data reference) */
        uint32_t qlen = tcp_sndqueuelen(pcb);
        uint32_t segs = qlen + 2 < TCP_SND_QUEUELEN ? (TCP_SND_QUEUELEN - qlen) / 2 : 0;
        uint32_t n = s->req.test == NETPERF_TCP_MAERTS ? s->req.send_size : NP_FILL_BYTES;
        n = NP_MIN(n, NP_FILL_BYTES - s->fill_off);
        n = NP_MIN(n, tcp_sndbuf(pcb));
        n = NP_MIN(n, segs * mss);
        if (n > s->tx_owed) {
            n = (uint32_t)s->tx_owed;
        }
        if (n == 0 || tcp_write(pcb, np_fill + s->fill_off, (u16_t)n,
                                s->tx_owed > n ? TCP_WRITE_FLAG_MORE : 0) != ERR_OK) {
            break; /* retried from the sent callback or netperf_poll */
        }
        s->fill_off = s->fill_off + n == NP_FILL_BYTES ? 0 : s->fill_off + n;
        if (s->tx_owed != NP_OWED_FOREVER) {
            s->tx_owed -= n;
        }
        if (netperf_connection_test(s->req.test)) {
            /* counted when written: the connection closes behind it (np_data_sent) */
            s->tx_bytes += n;
            NP_STATS->tx_bytes += n;
        }
        s->send_calls++;
        wrote = true;
    }
    if (wrote && !in_sent) {
        tcp_output(pcb);
    }
    return wrote;
}

static bool np_tcp_pump(struct np_session *s)
{
    return np_tcp_pump_from(s, false);
}

/* MAERTS: stop sending; netperf_poll ends the test once everything queued is acked (or at
 * the deadline, or on the client's FIN). */
static void np_maerts_stop(struct np_session *s)
{
    s->tx_owed = 0;
    s->state = NP_DRAIN;
    s->deadline_ms = sink_now_ms() + NP_DRAIN_MS;
}

/* --- data connection callbacks ------------------------------------------------------------ */

/* TCP_RR: requests are a byte stream (split or coalesced); each whole one owes a response. */
static void np_rr_consume(struct np_session *s, uint32_t n)
{
    uint64_t have = (uint64_t)s->rr_have + n;
    uint64_t whole = have / s->req.request_size; /* RR only, once per segment */
    s->rr_have = (uint32_t)(have - whole * s->req.request_size);
    s->trans += (uint32_t)whole;
    s->tx_owed += whole * s->req.response_size;
}

/* --- connection tests: one transaction per connection ------------------------------------ */

/* np_conn_close: the server ends the current connection (netserver closes first: the client
 * waits for our FIN), then the test if it was counted (-l -N) and this was the last one. */
static void np_conn_close(struct np_session *s)
{
    if (s->req.test == NETPERF_TCP_CC) {
        s->trans++; /* no request to count it by */
    }
    np_tcp_release(s->data, false);
    s->data = NULL;
    int32_t len = s->req.test_length;
    if (len < 0 && s->trans >= (uint32_t)-(int64_t)len) {
        np_test_end(s, NP_END_CLIENT);
    }
}

/* np_conn_progress: TCP_CRR's connection is done once a request came and every byte owed for
 * it is written. */
static void np_conn_progress(struct np_session *s)
{
    if (s->data != NULL && s->trans > s->conn_trans0 && s->tx_owed == 0) {
        np_conn_close(s);
    }
}

/* np_conn_lost: the client closed or reset its side first (its timer fired mid-transaction):
 * that connection is over, the test is not. */
static void np_conn_lost(struct np_session *s, bool reset)
{
    if (reset) {
        s->data = NULL; /* lwIP freed it */
        np_unhold();
        return;
    }
    np_tcp_release(s->data, false);
    s->data = NULL;
}

static err_t np_data_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    struct np_session *s = arg;
    np_aborted = NULL;
    if (p == NULL && netperf_connection_test(s->req.test)) {
        np_conn_lost(s, false);
        return np_aborted == pcb ? ERR_ABRT : ERR_OK;
    }
    if (p == NULL) {
        /* The client's FIN: the end of every TCP test (MAERTS: its timer fired first). */
        np_test_end(s, NP_END_CLIENT);
        return np_aborted == pcb ? ERR_ABRT : ERR_OK;
    }
    if (err != ERR_OK) {
        pbuf_free(p);
        return err;
    }
    uint16_t n = p->tot_len;
    s->rx_bytes += n;
    s->recv_calls++;
    NP_STATS->rx_bytes += n;
    tcp_recved(pcb, n);
    pbuf_free(p);
    if (s->req.test == NETPERF_TCP_RR || s->req.test == NETPERF_TCP_CRR) {
        np_rr_consume(s, n);
        np_tcp_pump(s);
    }
    if (s->req.test == NETPERF_TCP_CRR) {
        np_conn_progress(s);
    }
    return np_aborted == pcb ? ERR_ABRT : ERR_OK;
}

/* Acknowledged bytes. Never ends the test here: with window scaling lwIP reports one ACK in
 * 64 KiB slices, one call each, and all of them must be counted (netperf_poll ends it). */
static err_t np_data_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
    struct np_session *s = arg;
    np_aborted = NULL;
    if (netperf_connection_test(s->req.test)) {
        np_tcp_pump_from(s, true); /* a response larger than the send buffer */
        np_conn_progress(s);
        return np_aborted == pcb ? ERR_ABRT : ERR_OK;
    }
    s->tx_bytes += len;
    NP_STATS->tx_bytes += len;
    if (s->state == NP_TEST) {
        if (s->req.test == NETPERF_TCP_MAERTS && s->tx_owed == 0) {
            np_maerts_stop(s); /* counted MAERTS (-l -N): everything written */
        } else {
            np_tcp_pump_from(s, true);
        }
    }
    return ERR_OK;
}

static void np_data_err(void *arg, err_t err)
{
    struct np_session *s = arg;
    (void)err;
    if (netperf_connection_test(s->req.test)) {
        np_conn_lost(s, true);
        return;
    }
    s->data = NULL; /* lwIP freed it */
    np_unhold();
    np_test_end(s, NP_END_RESET);
}

static err_t np_data_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
    struct np_session *s = arg;
    np_aborted = NULL;
    if (err != ERR_OK || pcb == NULL) {
        return ERR_VAL;
    }
    if (s->data != NULL || s->listen == NULL) {
        /* netserver accepts one data connection per test, or (connection tests) one at a time */
        tcp_abort(pcb);
        return ERR_ABRT;
    }
    s->data = pcb;
    np_hold();
    tcp_arg(pcb, s);
    tcp_recv(pcb, np_data_recv);
    tcp_sent(pcb, np_data_sent);
    tcp_err(pcb, np_data_err);
    if (s->resp_flags & NETPERF_FLAG_NODELAY) {
        tcp_nagle_disable(pcb);
    }
    if (netperf_connection_test(s->req.test)) {
        /* TCP_CC's connection is closed by netperf_poll: closing it in here would leave
         * lwIP's handling of the handshake's last segment with a pcb it no longer expects */
        s->conn_trans0 = s->trans;
        return ERR_OK;
    }
    np_tcp_release(s->listen, false); /* safe here: lwIP is done with the listener */
    s->listen = NULL;
    if (s->req.test == NETPERF_TCP_MAERTS) {
        lwport_tcp_offload_segments(pcb); /* it sends np_fill only: the NIC cuts its segments */
        np_tcp_pump(s);
    }
    return ERR_OK;
}

/* --- UDP data ----------------------------------------------------------------------------- */

static void np_udp_respond(struct np_session *s, const ip_addr_t *addr, u16_t port)
{
    struct pbuf *p = pbuf_alloc(PBUF_TRANSPORT, (u16_t)s->req.response_size, PBUF_REF);
    if (p == NULL) {
        return; /* netserver counts these as failed sends; the client sees a lost transaction */
    }
    p->payload = np_fill;
    if (udp_sendto(s->udp, p, addr, port) == ERR_OK) {
        s->tx_bytes += s->req.response_size;
        s->send_calls++;
        NP_STATS->tx_bytes += s->req.response_size;
        NP_STATS->tx_datagrams++;
    }
    pbuf_free(p);
}

static void np_udp_recv(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr,
                        u16_t port)
{
    struct np_session *s = arg;
    (void)pcb;
    uint16_t n = p->tot_len;
    pbuf_free(p);
    if (n == 0 && s->req.test != NETPERF_UDP_MAERTS) {
        np_test_end(s, NP_END_CLIENT); /* netperf's end marker; the next two hit no pcb */
        return;
    }
    s->rx_bytes += n;
    s->recv_calls++;
    NP_STATS->rx_bytes += n;
    NP_STATS->rx_datagrams++;
    if (s->req.test == NETPERF_UDP_RR) {
        s->trans++; /* one request per datagram, whatever its size (netserver) */
        np_udp_respond(s, addr, port);
    }
}

/* --- starting a test ---------------------------------------------------------------------- */

/* np_open_tcp: a listener for the data connection on `port` (0: any), reusable at once for
 * the next -i iteration (SO_REUSEADDR: the previous one may be in LAST_ACK or TIME_WAIT). */
static struct tcp_pcb *np_open_tcp(uint16_t port)
{
    struct tcp_pcb *pcb = tcp_new_ip_type(IPADDR_TYPE_ANY); /* -4 or -6 */
    if (pcb == NULL) {
        return NULL;
    }
    ip_set_option(pcb, SOF_REUSEADDR);
    struct tcp_pcb *lpcb = NULL;
    if (tcp_bind(pcb, IP_ANY_TYPE, port) == ERR_OK) {
        lpcb = tcp_listen_with_backlog(pcb, 1);
    }
    if (lpcb == NULL) {
        tcp_close(pcb); /* never connected: cannot fail, frees it */
    }
    return lpcb;
}

static struct udp_pcb *np_open_udp(uint16_t port)
{
    struct udp_pcb *pcb = udp_new_ip_type(IPADDR_TYPE_ANY);
    if (pcb == NULL) {
        return NULL;
    }
    /* No SO_REUSEADDR: a removed UDP pcb frees its port at once, and with the flag two tests
     * asking for one port would share it (udp_bind lets flagged pcbs overlap). */
    if (udp_bind(pcb, IP_ANY_TYPE, port) != ERR_OK) {
        udp_remove(pcb);
        return NULL;
    }
    return pcb;
}

/* np_open_data: the data endpoint, on the requested port if it is free, else on any port
 * (the client connects wherever the response says). Returns the port, or 0. */
static uint16_t np_open_data(struct np_session *s)
{
    bool udp = netperf_udp_test(s->req.test);
    uint16_t ports[2] = { s->req.data_port, 0 };
    for (unsigned i = s->req.data_port ? 0 : 1; i < 2; i++) {
        if (udp) {
            s->udp = np_open_udp(ports[i]);
            if (s->udp != NULL) {
                udp_recv(s->udp, np_udp_recv, s);
                np_hold();
                return s->udp->local_port;
            }
        } else {
            s->listen = np_open_tcp(ports[i]);
            if (s->listen != NULL) {
                tcp_arg(s->listen, s);
                tcp_accept(s->listen, np_data_accept);
                np_hold();
                return s->listen->local_port;
            }
        }
    }
    return 0;
}

/* np_deadlines: netserver's timer (test_length, + 4 s unless the server only sends); our
 * watchdog for tests it would let run forever. */
static void np_deadlines(struct np_session *s)
{
    int32_t len = s->req.test_length;
    s->send_timed = false;
    s->pad = false;
    if (len <= 0) {
        s->deadline_ms = s->start_ms + NP_WATCHDOG_MS;
        return;
    }
    uint32_t len_ms = (uint32_t)(len > NP_MAX_TEST_S ? NP_MAX_TEST_S : len) * 1000u;
    if (s->req.test == NETPERF_TCP_MAERTS || s->req.test == NETPERF_UDP_MAERTS) {
        s->send_timed = true;
        s->send_end_ms = s->start_ms + len_ms;
        s->deadline_ms = s->send_end_ms + NP_DRAIN_MS;
    } else {
        s->pad = true;
        s->deadline_ms = s->start_ms + len_ms + NETPERF_PAD_S * 1000u;
    }
}

/* np_start: answer a DO_OMNI (or a classic DO_TCP_CC): open the data endpoint, then the
 * response naming its port. */
static void np_start(struct np_session *s, bool classic)
{
    uint8_t msg[NETPERF_MSG_BYTES];
    uint32_t resp_type = classic ? NETPERF_MSG_TCP_CC_RESPONSE : NETPERF_MSG_OMNI_RESPONSE;
    s->classic = classic;
    uint32_t serv_errno = classic ? netperf_parse_tcp_cc(s->rx.buf, &s->req)
                                  : netperf_parse_omni(s->rx.buf, &s->req);
    uint16_t port = 0;
    if (serv_errno == 0) {
        port = np_open_data(s);
        serv_errno = port ? 0 : NETPERF_SERV_ENOBUFS;
    } else {
        NP_STATS->protocol_errors++; /* a test we do not run: the client prints the errno */
    }
    if (serv_errno != 0) {
        netperf_build_error(msg, resp_type, serv_errno);
        np_ctl_send(s, msg);
        return;
    }
    bool udp = netperf_udp_test(s->req.test);
    s->resp_flags = s->req.flags & NETPERF_FLAG_MEASURE_CPU;
    if (!udp) {
        s->resp_flags |= s->req.flags & NETPERF_FLAG_NODELAY;
    }
    struct netperf_omni_resp resp = {
        .recv_buf_bytes = udp ? 0 : TCP_WND, /* UDP: no socket buffer, the NIC ring is it */
        .send_buf_bytes = udp ? 0 : TCP_SND_BUF,
        .flags = s->resp_flags,
        .data_port = port,
    };
    if (classic) {
        netperf_build_cc_response(msg, &s->req, &resp);
    } else {
        netperf_build_response(msg, &s->req, &resp);
    }
    if (!np_ctl_send(s, msg)) {
        return;
    }
    s->state = NP_TEST;
    s->data_port = port;
    s->start_ms = sink_now_ms();
    np_deadlines(s);
    s->rx_bytes = s->tx_bytes = 0;
    s->recv_calls = s->send_calls = s->trans = s->conn_trans0 = s->rr_have = s->fill_off = 0;
    s->tx_owed = 0;
    if (s->req.test == NETPERF_TCP_MAERTS || s->req.test == NETPERF_UDP_MAERTS) {
        int32_t len = s->req.test_length;
        uint64_t sz = s->req.send_size;
        /* -l -N: netserver sends whole send_size units until N bytes are covered */
        s->tx_owed = len < 0 ? ((uint64_t)-(int64_t)len + sz - 1) / sz * sz : NP_OWED_FOREVER;
    }
    if (s->req.test == NETPERF_UDP_MAERTS) {
        /* the client's address as its socket saw it; unbound (0.0.0.0, netserver would send
         * to its own host) means the control connection's peer */
        if (s->req.netperf_ip != 0 && !s->req.ipv6 && IP_IS_V4(&s->peer)) {
            ip_addr_set_ip4_u32(&s->udp_to, lwip_htonl(s->req.netperf_ip));
        } else {
            ip_addr_copy(s->udp_to, s->peer);
        }
    }
    np_cpu_sample(&s->busy0, &s->idle0);
    NP_STATS->tests_run++;
}

/* np_process: one whole message from the control connection, while no test runs. Only whole
 * messages keep a session alive: one trickled a byte at a time still times out. */
static void np_process(struct np_session *s)
{
    uint8_t msg[NETPERF_MSG_BYTES];
    uint32_t type = netperf_msg_type(s->rx.buf);
    s->idle_since_ms = sink_now_ms();
    switch (type) {
    case NETPERF_MSG_DO_OMNI:
        np_start(s, false);
        break;
    case NETPERF_MSG_DO_TCP_CC:
        np_start(s, true);
        break;
    case NETPERF_MSG_PASSPHRASE:
        break; /* netserver without -Z ignores it, and the client expects no answer */
    case NETPERF_MSG_CPU_CALIBRATE:
        netperf_build_cpu_calibrate(msg, 0.0f, 1); /* no calibration needed: idle counter */
        np_ctl_send(s, msg);
        break;
    default:
        NP_STATS->protocol_errors++;
        netperf_build_error(msg, type, NETPERF_SERV_EUNKNOWN);
        np_ctl_send(s, msg);
        break;
    }
    s->rx.len = 0;
}

/* --- control connection callbacks --------------------------------------------------------- */

/* np_ctl_feed: reassemble 656-byte messages from one segment's bytes. A legitimate client
 * sends nothing while a test runs; one message is kept for later, more is an error. */
static void np_ctl_feed(struct np_session *s, const uint8_t *data, size_t n)
{
    while (n > 0 && s->state != NP_FREE) {
        size_t taken = netperf_rx_feed(&s->rx, data, n);
        data += taken;
        n -= taken;
        if (!netperf_rx_whole(&s->rx)) {
            continue;
        }
        if (s->state == NP_IDLE) {
            np_process(s);
        } else if (n > 0) {
            NP_STATS->protocol_errors++;
            np_session_free(s, true, "sent data during a test");
        }
    }
}

static err_t np_ctl_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    struct np_session *s = arg;
    np_aborted = NULL;
    if (p == NULL) {
        /* The client closed control: normal after the last results, else it gave up. A
         * message cut short is a protocol error. */
        if (s->rx.len != 0 && !netperf_rx_whole(&s->rx)) {
            NP_STATS->protocol_errors++;
        }
        np_session_free(s, false, s->rx.len ? "closed mid-message" : "closed");
        return np_aborted == pcb ? ERR_ABRT : ERR_OK;
    }
    if (err != ERR_OK) {
        pbuf_free(p);
        return err;
    }
    tcp_recved(pcb, p->tot_len);
    for (struct pbuf *q = p; q != NULL && s->state != NP_FREE; q = q->next) {
        np_ctl_feed(s, q->payload, q->len);
    }
    pbuf_free(p);
    return np_aborted == pcb ? ERR_ABRT : ERR_OK;
}

static void np_ctl_err(void *arg, err_t err)
{
    struct np_session *s = arg;
    s->ctl = NULL; /* lwIP freed it */
    np_unhold();
    np_session_free(s, true, err == ERR_RST ? "reset" : "lost");
}

static err_t np_ctl_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
    (void)arg;
    if (err != ERR_OK || pcb == NULL) {
        return ERR_VAL;
    }
    struct np_session *s = NULL;
    for (unsigned i = 0; i < CONFIG_SINK_MAX_TESTS && s == NULL; i++) {
        if (np_sessions[i].state == NP_FREE) {
            s = &np_sessions[i];
        }
    }
    if (s == NULL) {
        NP_STATS->refused++; /* over sink.max_tests: reset, the client reports it */
        tcp_abort(pcb);
        return ERR_ABRT;
    }
    memset(s, 0, sizeof(*s));
    s->state = NP_IDLE;
    s->ctl = pcb;
    ip_addr_copy(s->peer, pcb->remote_ip);
    s->idle_since_ms = sink_now_ms();
    np_hold();
    tcp_arg(pcb, s);
    tcp_recv(pcb, np_ctl_recv);
    tcp_err(pcb, np_ctl_err);
    tcp_nagle_disable(pcb); /* each answer goes out at once */
    ip_set_option(pcb, SOF_KEEPALIVE); /* a client that vanished without a word is found */
    return ERR_OK;
}

/* --- entry points ------------------------------------------------------------------------- */

void netperf_init(void)
{
    if (CONFIG_SINK_NETPERF_PORT == 0) {
        return;
    }
    sink_netif_constant(np_fill, sizeof(np_fill)); /* MAERTS and responses leave by reference */
    struct tcp_pcb *pcb = tcp_new_ip_type(IPADDR_TYPE_ANY); /* netperf -4 and -6 */
    if (pcb == NULL || tcp_bind(pcb, IP_ANY_TYPE, CONFIG_SINK_NETPERF_PORT) != ERR_OK) {
        kprintf("netperf: cannot bind TCP port %u; netperf server off\n",
                (unsigned)CONFIG_SINK_NETPERF_PORT);
        if (pcb != NULL) {
            tcp_close(pcb);
        }
        return;
    }
    np_listener = tcp_listen_with_backlog(pcb, CONFIG_SINK_MAX_TESTS);
    if (np_listener == NULL) {
        kprintf("netperf: cannot listen on TCP port %u; netperf server off\n",
                (unsigned)CONFIG_SINK_NETPERF_PORT);
        tcp_close(pcb);
        return;
    }
    tcp_accept(np_listener, np_ctl_accept);
}

/* np_udp_pump: UDP_MAERTS: up to a burst of send_size datagrams from the constant buffer
 * (referenced, not copied; lwIP fragments the large ones); once the time or the bytes are
 * done, the end markers and the results. A datagram lwIP cannot send now (no buffer, ring
 * full) is tried again next pass and not counted, as netserver counts only sends that went. */
static bool np_udp_pump(struct np_session *s, uint32_t now)
{
    if (s->tx_owed == 0 || (s->send_timed && np_reached(now, s->send_end_ms))) {
        for (unsigned i = 0; i < NP_UDP_END_MARKERS; i++) {
            struct pbuf *p = pbuf_alloc(PBUF_TRANSPORT, 0, PBUF_RAM);
            if (p != NULL) {
                udp_sendto(s->udp, p, &s->udp_to, s->req.netperf_port);
                pbuf_free(p);
            }
        }
        np_test_end(s, NP_END_CLIENT);
        return true;
    }
    bool sent = false;
    for (unsigned b = 0; b < NP_UDP_BURST && s->tx_owed > 0; b++) {
        uint32_t n = s->req.send_size;
        struct pbuf *p = pbuf_alloc(PBUF_TRANSPORT, (u16_t)n, PBUF_REF);
        if (p == NULL) {
            break;
        }
        p->payload = np_fill;
        err_t err = udp_sendto(s->udp, p, &s->udp_to, s->req.netperf_port);
        pbuf_free(p);
        if (err != ERR_OK) {
            break;
        }
        if (s->tx_owed != NP_OWED_FOREVER) {
            s->tx_owed = s->tx_owed > n ? s->tx_owed - n : 0;
        }
        s->tx_bytes += n;
        s->send_calls++;
        NP_STATS->tx_bytes += n;
        NP_STATS->tx_datagrams++;
        sent = true;
    }
    return sent;
}

/* np_poll_connection: TCP_CC's accepted connection is closed here; TCP_CRR's response is
 * refilled if the send buffer was full. */
static bool np_poll_connection(struct np_session *s)
{
    if (s->req.test == NETPERF_TCP_CC) {
        np_conn_close(s);
        return true;
    }
    bool wrote = s->tx_owed > 0 && np_tcp_pump(s);
    np_conn_progress(s);
    return wrote;
}

/* np_poll_one: one session's deadlines and refills. Returns true if it did something. */
static bool np_poll_one(struct np_session *s, uint32_t now)
{
    switch (s->state) {
    case NP_IDLE:
        if (np_reached(now, s->idle_since_ms + NP_CTL_IDLE_MS)) {
            np_session_free(s, false, "idle too long");
            return true;
        }
        return false;
    case NP_TEST:
        if (np_reached(now, s->deadline_ms)) {
            np_test_end(s, NP_END_TIMEOUT);
            return true;
        }
        if (s->req.test == NETPERF_UDP_MAERTS) {
            return np_udp_pump(s, now);
        }
        if (s->data == NULL || s->req.test == NETPERF_TCP_STREAM) {
            return false;
        }
        if (netperf_connection_test(s->req.test)) {
            return np_poll_connection(s);
        }
        if (s->send_timed && np_reached(now, s->send_end_ms)) {
            np_maerts_stop(s);
            return true;
        }
        return s->tx_owed > 0 && np_tcp_pump(s);
    case NP_DRAIN:
        /* everything acked: the client has it all; or it stopped acking: what it acked */
        if (tcp_sndqueuelen(s->data) == 0 || np_reached(now, s->deadline_ms)) {
            np_test_end(s, NP_END_CLIENT);
            return true;
        }
        return false;
    case NP_FREE:
        break;
    }
    return false;
}

bool netperf_poll(uint32_t now_ms)
{
    bool worked = false;
    for (unsigned i = 0; i < CONFIG_SINK_MAX_TESTS; i++) {
        np_aborted = NULL;
        worked |= np_poll_one(&np_sessions[i], now_ms);
    }
    return worked;
}

bool netperf_idle(void)
{
    for (unsigned i = 0; i < CONFIG_SINK_MAX_TESTS; i++) {
        if (np_sessions[i].state != NP_FREE) {
            return false;
        }
    }
    return true;
}
