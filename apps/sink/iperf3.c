/*
 * apps/sink/iperf3.c: an `iperf3 -s` (iperf3 3.12) on lwIP's raw API, on the sink core. One
 * TCP listener on sink.iperf3_port carries control connections and TCP streams, told apart by
 * their first 37 bytes (the cookie); one UDP pcb on the same port carries every UDP stream,
 * told apart by the peer's address and port. The bytes on the wire are iperf3_proto.c's
 * business, what -R sends and the UDP streams iperf3_data.c's; this file holds the tests'
 * state, the TCP connections' callbacks and the deadlines.
 * Spec: docs/netperf-iperf3-protocol.md sections 2-4.
 *
 * Every callback runs in lwIP's context on the sink core: no locks. A callback that aborts
 * its own pcb must return ERR_ABRT, so every abort goes through iperf3_pcb_drop, which notes
 * it (iperf3_cb).
 */
#include "sink.h"

#include <stdlib.h>
#include <string.h>

#include "apps/sink/iperf3_int.h"
#include "console.h"
#include "lwip/pbuf.h"
#include "net/lwip-port/sink_netif.h"
#include "net/lwip-port/tcp_hooks.h"
#include "time.h"

/* All of it owned by the sink core. */
struct iperf3_test iperf3_tests[IPERF3_MAX_TESTS];
static struct iperf3_pending iperf3_pending[IPERF3_PENDING_CONNS];
struct udp_pcb *iperf3_udp;
static bool iperf3_up;
static uint64_t iperf3_held; /* connections and UDP streams held: the `active` gauge */
uint8_t iperf3_payload[IPERF3_PAYLOAD_BYTES]; /* filled once; lwIP references it */
static struct {
    struct tcp_pcb *pcb; /* whose callback is running */
    bool aborted;        /* ... and it was aborted: the callback returns ERR_ABRT */
} iperf3_cb;

static void iperf3_conn_eof(struct iperf3_conn *c);
static void iperf3_test_end(struct iperf3_test *t, enum iperf3_outcome out);
static err_t iperf3_on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err);
static err_t iperf3_on_sent(void *arg, struct tcp_pcb *pcb, u16_t len);
static void iperf3_on_err(void *arg, err_t err);

static bool iperf3_due(uint32_t now, uint32_t since, uint32_t ms)
{
    return now - since >= ms;
}

/* iperf3_hold: one more (+1) or one fewer (-1) connection or UDP stream held. The gauge is
 * assigned, not incremented, so a console `clear` cannot leave it wrong. */
void iperf3_hold(int d)
{
    iperf3_held += (uint64_t)(int64_t)d;
    IPERF3_STATS->active = iperf3_held;
}

/* --- connections ------------------------------------------------------------------------------ */

static void iperf3_cb_begin(struct tcp_pcb *pcb)
{
    iperf3_cb.pcb = pcb;
    iperf3_cb.aborted = false;
}

static err_t iperf3_cb_end(void)
{
    iperf3_cb.pcb = NULL;
    return iperf3_cb.aborted ? ERR_ABRT : ERR_OK;
}

static void iperf3_conn_attach(struct iperf3_conn *c, struct tcp_pcb *pcb, uint8_t kind)
{
    c->pcb = pcb;
    c->kind = kind;
    tcp_arg(pcb, c);
    tcp_recv(pcb, iperf3_on_recv);
    tcp_sent(pcb, iperf3_on_sent);
    tcp_err(pcb, iperf3_on_err);
}

/* iperf3_conn_move: the pcb changes owner (pending -> control or stream); `active` is kept. */
static void iperf3_conn_move(struct iperf3_conn *from, struct iperf3_conn *to, uint8_t kind)
{
    iperf3_conn_attach(to, from->pcb, kind);
    from->pcb = NULL;
    from->kind = IPERF3_CONN_FREE;
}

/* iperf3_conn_drop: let go of the connection: FIN after what is queued (graceful; lwIP itself
 * resets it if data still arrives), or RST. */
static void iperf3_conn_drop(struct iperf3_conn *c, bool graceful)
{
    struct tcp_pcb *pcb = c->pcb;
    if (!pcb) {
        return;
    }
    c->pcb = NULL;
    c->kind = IPERF3_CONN_FREE;
    iperf3_hold(-1);
    tcp_arg(pcb, NULL);
    tcp_recv(pcb, NULL);
    tcp_sent(pcb, NULL);
    tcp_err(pcb, NULL);
    if (graceful && tcp_close(pcb) == ERR_OK) {
        return;
    }
    tcp_abort(pcb);
    if (pcb == iperf3_cb.pcb) {
        iperf3_cb.aborted = true;
    }
}

/* iperf3_conn_write: a few control bytes (copied); false if lwIP cannot take them now. */
static bool iperf3_conn_write(struct iperf3_conn *c, const void *data, size_t len)
{
    if (!c->pcb || tcp_sndbuf(c->pcb) < len ||
        tcp_write(c->pcb, data, (u16_t)len, TCP_WRITE_FLAG_COPY) != ERR_OK) {
        return false;
    }
    tcp_output(c->pcb);
    return true;
}

static struct iperf3_test *iperf3_test_of(const struct iperf3_conn *c)
{
    return &iperf3_tests[c->test];
}

/* --- the control connection's output ---------------------------------------------------------- */

static void iperf3_ctl_flush(struct iperf3_test *t)
{
    struct tcp_pcb *pcb = t->ctl.pcb;
    bool wrote = false;
    while (pcb && t->out_off < t->out_len) {
        size_t n = t->out_len - t->out_off;
        size_t room = tcp_sndbuf(pcb);
        n = n < room ? n : room;
        n = n < 0xffff ? n : 0xffff;
        if (n == 0 || tcp_write(pcb, t->out + t->out_off, (u16_t)n, TCP_WRITE_FLAG_COPY) != ERR_OK) {
            break; /* the rest goes from the sent callback or the poll */
        }
        t->out_off += n;
        wrote = true;
    }
    if (wrote) {
        tcp_output(pcb);
    }
    if (t->out_off == t->out_len) {
        free(t->out);
        t->out = NULL;
        t->out_len = t->out_off = 0;
    }
}

/* iperf3_ctl_send: queue control bytes in order; false only if out of memory. */
static bool iperf3_ctl_send(struct iperf3_test *t, const void *data, size_t len)
{
    if (t->out_len == 0 && iperf3_conn_write(&t->ctl, data, len)) {
        return true;
    }
    char *buf = realloc(t->out, t->out_len + len);
    if (!buf) {
        return false;
    }
    memcpy(buf + t->out_len, data, len);
    t->out = buf;
    t->out_len += len;
    iperf3_ctl_flush(t);
    return true;
}

static bool iperf3_ctl_state(struct iperf3_test *t, enum iperf3_state s)
{
    uint8_t b = (uint8_t)s;
    return iperf3_ctl_send(t, &b, 1);
}

/* iperf3_ctl_error: SERVER_ERROR with an iperf error code the client prints, then the end. */
void iperf3_ctl_error(struct iperf3_test *t, uint32_t code, uint32_t err)
{
    uint8_t msg[9];
    msg[0] = (uint8_t)IPERF3_SERVER_ERROR;
    iperf3_be32_put(msg + 1, code);
    iperf3_be32_put(msg + 5, err);
    iperf3_ctl_send(t, msg, sizeof(msg));
    iperf3_test_end(t, IPERF3_OUT_FAILED);
}

/* --- tests ---------------------------------------------------------------------------------- */

static struct iperf3_test *iperf3_test_alloc(void)
{
    for (unsigned i = 0; i < IPERF3_MAX_TESTS; i++) {
        struct iperf3_test *t = &iperf3_tests[i];
        if (t->phase == IPERF3_FREE) {
            t->counted = false;
            t->nstreams = 0;
            t->ctl.test = (uint8_t)i;
            return t;
        }
    }
    return NULL;
}

static bool iperf3_awaiting_tcp_streams(void)
{
    for (unsigned i = 0; i < IPERF3_MAX_TESTS; i++) {
        const struct iperf3_test *t = &iperf3_tests[i];
        if (t->phase == IPERF3_STREAMS && t->params.proto == IPERF3_PROTO_TCP) {
            return true;
        }
    }
    return false;
}

static struct iperf3_test *iperf3_test_by_cookie(const uint8_t *cookie)
{
    for (unsigned i = 0; i < IPERF3_MAX_TESTS; i++) {
        struct iperf3_test *t = &iperf3_tests[i];
        if (t->phase != IPERF3_FREE && memcmp(t->cookie, cookie, IPERF3_COOKIE_BYTES) == 0) {
            return t;
        }
    }
    return NULL;
}

static void iperf3_stream_release(struct iperf3_stream *s, bool graceful)
{
    iperf3_conn_drop(&s->conn, graceful);
    if (s->udp_held) {
        s->udp_held = false;
        iperf3_hold(-1);
    }
}

/* iperf3_test_end: count the outcome (if the test was counted as run), let go of every stream
 * and of the control connection once its queued bytes are out. */
static void iperf3_test_end(struct iperf3_test *t, enum iperf3_outcome out)
{
    if (t->phase == IPERF3_CLOSING || t->phase == IPERF3_FREE) {
        return;
    }
    if (t->counted) {
        if (out == IPERF3_OUT_DONE) {
            IPERF3_STATS->tests_done++;
        } else {
            IPERF3_STATS->tests_failed++;
        }
        t->counted = false;
    }
    for (unsigned i = 0; i < t->nstreams; i++) {
        iperf3_stream_release(&t->streams[i], out == IPERF3_OUT_DONE);
    }
    if (t->ctl.pcb && t->out_len > 0) {
        t->phase = IPERF3_CLOSING; /* the sent callback or the poll finishes it */
        t->phase_ms = sink_now_ms();
        return;
    }
    iperf3_conn_drop(&t->ctl, true);
    free(t->out);
    t->out = NULL;
    t->out_len = t->out_off = 0;
    t->phase = IPERF3_FREE;
}

static void iperf3_closing_done(struct iperf3_test *t, bool graceful)
{
    iperf3_conn_drop(&t->ctl, graceful);
    free(t->out);
    t->out = NULL;
    t->out_len = t->out_off = 0;
    t->phase = IPERF3_FREE;
}

/* --- the test's steps ------------------------------------------------------------------------- */

void iperf3_test_start(struct iperf3_test *t)
{
    const uint8_t msg[2] = { IPERF3_TEST_START, IPERF3_TEST_RUNNING };
    if (!iperf3_ctl_send(t, msg, sizeof(msg))) {
        iperf3_test_end(t, IPERF3_OUT_FAILED);
        return;
    }
    t->phase = IPERF3_RUNNING;
    t->start_ms = t->phase_ms = t->measure_ms = sink_now_ms();
    t->omitting = t->params.omit_s > 0;
    for (unsigned i = 0; t->params.proto == IPERF3_PROTO_TCP && i < t->nstreams; i++) {
        if (t->streams[i].sender) {
            iperf3_tcp_fill(t, &t->streams[i], t->start_ms, false);
        }
    }
}

static void iperf3_on_params(struct iperf3_test *t)
{
    int rc = iperf3_params_parse(t->json, t->rx.len, IPERF3_MAX_STREAMS, &t->params);
    if (rc == IPERF3_PARAMS_MALFORMED) {
        IPERF3_STATS->protocol_errors++;
        iperf3_ctl_error(t, IPERF3_IE_RECVPARAMS, 0);
        return;
    }
    if (rc > 0) {
        IPERF3_STATS->refused++; /* over a bound (-P) or an option we do not have */
        iperf3_ctl_error(t, (uint32_t)rc, 0);
        return;
    }
    IPERF3_STATS->tests_run++;
    t->counted = true;
    t->phase = IPERF3_STREAMS;
    t->phase_ms = sink_now_ms();
    iperf3_ctl_rx_expect(&t->rx, IPERF3_WANT_STATE);
    if (!iperf3_ctl_state(t, IPERF3_CREATE_STREAMS)) {
        iperf3_test_end(t, IPERF3_OUT_FAILED);
    }
}

/* TEST_END: freeze the counts, let go of the streams, ask for the client's results. */
static void iperf3_on_test_end(struct iperf3_test *t)
{
    t->end_ms = sink_now_ms();
    t->phase = IPERF3_RESULTS;
    t->phase_ms = t->end_ms;
    for (unsigned i = 0; i < t->nstreams; i++) {
        iperf3_stream_release(&t->streams[i], true);
    }
    iperf3_ctl_rx_expect(&t->rx, IPERF3_WANT_JSON_DISCARD);
    if (!iperf3_ctl_state(t, IPERF3_EXCHANGE_RESULTS)) {
        iperf3_test_end(t, IPERF3_OUT_FAILED);
    }
}

static void iperf3_send_results(struct iperf3_test *t)
{
    static struct iperf3_stream_result r[IPERF3_MAX_STREAMS]; /* sink core only */
    for (unsigned i = 0; i < t->nstreams; i++) {
        const struct iperf3_stream *s = &t->streams[i];
        bool udp = t->params.proto == IPERF3_PROTO_UDP;
        r[i] = (struct iperf3_stream_result){
            .id = iperf3_stream_id(i),
            .sender = s->sender,
            .bytes = s->bytes,
            .packets = !udp ? 0 : s->sender ? s->packets : s->udp.packets,
            .errors = udp && !s->sender ? s->udp.errors : 0,
            .jitter_ns = udp && !s->sender ? iperf3_udp_rx_jitter_ns(&s->udp) : 0,
        };
    }
    size_t len;
    uint32_t ran_ms = t->omitting ? 0 : t->end_ms - t->measure_ms;
    /* the form is the server's choice, as iperf3 -s [-J]: the client does not say */
    enum iperf3_server_output so = !t->params.server_output ? IPERF3_SO_NONE
                                   : CONFIG_SINK_IPERF3_JSON ? IPERF3_SO_JSON
                                                             : IPERF3_SO_TEXT;
    char *js = iperf3_results_json(r, t->nstreams, ran_ms, so, &len);
    uint8_t hdr[4];
    iperf3_be32_put(hdr, (uint32_t)len);
    bool ok = js && iperf3_ctl_send(t, hdr, 4) && iperf3_ctl_send(t, js, len) &&
              iperf3_ctl_state(t, IPERF3_DISPLAY_RESULTS);
    iperf3_json_free(js);
    if (!ok) {
        iperf3_test_end(t, IPERF3_OUT_FAILED);
        return;
    }
    t->phase = IPERF3_DONE_WAIT;
    t->phase_ms = sink_now_ms();
    iperf3_ctl_rx_expect(&t->rx, IPERF3_WANT_STATE);
}

static void iperf3_on_state(struct iperf3_test *t, int8_t state)
{
    if (state == IPERF3_CLIENT_TERMINATE) {
        iperf3_test_end(t, IPERF3_OUT_FAILED); /* Ctrl-C: no results (iperf3 drops the test) */
    } else if (state == IPERF3_TEST_END && t->phase == IPERF3_RUNNING) {
        iperf3_on_test_end(t);
    } else if (state == IPERF3_IPERF_DONE && t->phase == IPERF3_DONE_WAIT) {
        iperf3_test_end(t, IPERF3_OUT_DONE);
    } else {
        IPERF3_STATS->protocol_errors++;
        iperf3_ctl_error(t, IPERF3_IE_MESSAGE, 0);
    }
}

/* iperf3_ctl_bytes: control bytes; returns how many were used. */
static size_t iperf3_ctl_bytes(struct iperf3_test *t, const uint8_t *d, size_t n)
{
    size_t used;
    if (t->phase == IPERF3_CLOSING) {
        return n; /* ended: whatever the client still says is dropped */
    }
    int ev = iperf3_ctl_rx_feed(&t->rx, d, n, &used);
    switch (ev) {
    case IPERF3_RX_MORE:
        break;
    case IPERF3_RX_JSON:
        if (t->phase == IPERF3_PARAMS) {
            iperf3_on_params(t);
        }
        break;
    case IPERF3_RX_JSON_DISCARDED:
        if (t->phase == IPERF3_RESULTS) {
            iperf3_send_results(t);
        }
        break;
    case IPERF3_RX_STATE:
        iperf3_on_state(t, t->rx.state);
        break;
    default: /* a JSON length of 0 or over its bound */
        IPERF3_STATS->protocol_errors++;
        iperf3_ctl_error(t, IPERF3_IE_MESSAGE, 0);
        return n;
    }
    return used;
}

/* --- connections whose cookie decides ---------------------------------------------------------- */

/* iperf3_deny: ACCESS_DENIED, then FIN (now, or once the cookie is in: a FIN or RST before the
 * client has written its cookie can hide the answer). */
static void iperf3_deny(struct iperf3_conn *c, bool cookie_read)
{
    const uint8_t b = (uint8_t)IPERF3_ACCESS_DENIED;
    iperf3_conn_write(c, &b, 1);
    if (cookie_read) {
        iperf3_conn_drop(c, true);
    } else {
        c->kind = IPERF3_CONN_DENIED;
        c->got = 0;
    }
}

/* iperf3_on_cookie: a control connection for a new test, a stream of a test that waits for
 * streams, or turned away. Returns the connection's new home (NULL: dropped). */
static struct iperf3_conn *iperf3_on_cookie(struct iperf3_pending *pd)
{
    struct iperf3_test *t = iperf3_test_by_cookie(pd->rx.cookie);
    if (t && t->phase == IPERF3_STREAMS && t->params.proto == IPERF3_PROTO_TCP &&
        t->nstreams < t->params.nstreams) {
        unsigned k = t->nstreams++;
        struct iperf3_stream *s = &t->streams[k];
        memset(s, 0, sizeof(*s));
        s->sender = iperf3_server_sends(&t->params, k);
        s->conn.test = t->ctl.test;
        s->conn.stream = (uint16_t)k;
        iperf3_conn_move(&pd->conn, &s->conn, IPERF3_CONN_STREAM);
        tcp_nagle_enable(s->conn.pcb);
        if (s->sender) { /* it sends iperf3_payload only: the NIC cuts its segments */
            lwport_tcp_offload_segments(s->conn.pcb);
        }
        if (t->nstreams == t->params.nstreams) {
            iperf3_test_start(t);
        }
        return &s->conn;
    }
    if (!t && (t = iperf3_test_alloc()) != NULL) {
        memcpy(t->cookie, pd->rx.cookie, IPERF3_COOKIE_BYTES);
        iperf3_conn_move(&pd->conn, &t->ctl, IPERF3_CONN_CTL);
        iperf3_ctl_rx_init(&t->rx, t->json, IPERF3_PARAMS_MAX_BYTES);
        iperf3_ctl_rx_expect(&t->rx, IPERF3_WANT_JSON);
        t->phase = IPERF3_PARAMS;
        t->phase_ms = sink_now_ms();
        if (!iperf3_ctl_state(t, IPERF3_PARAM_EXCHANGE)) {
            iperf3_test_end(t, IPERF3_OUT_FAILED);
            return NULL;
        }
        return &t->ctl;
    }
    /* A test's cookie at the wrong time, or a stream with a wrong cookie while one is awaited
     * (iperf3: 0xff and close): protocol errors. No slot, nothing awaited: busy. */
    if (t || iperf3_awaiting_tcp_streams()) {
        IPERF3_STATS->protocol_errors++;
    } else {
        IPERF3_STATS->refused++;
    }
    iperf3_deny(&pd->conn, true);
    return NULL;
}

/* iperf3_conn_bytes: bytes for a connection that is not a stream. Returns the connection that
 * holds the pcb afterwards (it moves when the cookie places it), NULL if let go; *used says
 * how many bytes it took. */
static struct iperf3_conn *iperf3_conn_bytes(struct iperf3_conn *c, const uint8_t *d, size_t n,
                                             size_t *used)
{
    *used = n;
    if (c->kind == IPERF3_CONN_DENIED) {
        c->got += (uint32_t)n;
        if (c->got >= IPERF3_COOKIE_BYTES) {
            iperf3_conn_drop(c, true);
            return NULL;
        }
        return c;
    }
    if (c->kind == IPERF3_CONN_CTL) {
        struct iperf3_test *t = iperf3_test_of(c);
        *used = iperf3_ctl_bytes(t, d, n);
        return t->phase == IPERF3_FREE ? NULL : c;
    }
    struct iperf3_pending *pd = (struct iperf3_pending *)c; /* conn is its first member */
    int ev = iperf3_ctl_rx_feed(&pd->rx, d, n, used);
    if (ev == IPERF3_RX_MORE) {
        return c;
    }
    if (ev == IPERF3_RX_COOKIE) {
        return iperf3_on_cookie(pd);
    }
    IPERF3_STATS->protocol_errors++; /* not an iperf3 cookie */
    iperf3_deny(c, true);
    return NULL;
}

/* iperf3_stream_bytes: stream data, counted while the test runs (iperf_tcp_recv). */
static void iperf3_stream_bytes(struct iperf3_conn *c, size_t n)
{
    struct iperf3_test *t = iperf3_test_of(c);
    if (t->phase == IPERF3_RUNNING && !t->streams[c->stream].sender && !t->omitting) {
        t->streams[c->stream].bytes += n;
        IPERF3_STATS->rx_bytes += n;
    }
}

static void iperf3_conn_input(struct iperf3_conn *c, struct pbuf *p)
{
    struct tcp_pcb *pcb = c->pcb;
    size_t done = 0;
    for (struct pbuf *q = p; q; q = q->next) {
        const uint8_t *d = q->payload;
        size_t n = q->len;
        while (n > 0) {
            if (c->kind == IPERF3_CONN_STREAM) {
                iperf3_stream_bytes(c, p->tot_len - done); /* the rest, after the cookie */
                return;
            }
            size_t used;
            c = iperf3_conn_bytes(c, d, n, &used);
            if (!c || c->pcb != pcb) {
                return;
            }
            d += used;
            n -= used;
            done += used;
        }
    }
}

/* --- lwIP callbacks ---------------------------------------------------------------------------- */

static err_t iperf3_on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    struct iperf3_conn *c = arg;
    (void)err;
    iperf3_cb_begin(pcb);
    if (!p) {
        iperf3_conn_eof(c);
        return iperf3_cb_end();
    }
    tcp_recved(pcb, p->tot_len); /* first: the handling below may let go of the pcb */
    if (c->kind == IPERF3_CONN_STREAM) {
        iperf3_stream_bytes(c, p->tot_len); /* the fast path: one add per segment */
    } else {
        iperf3_conn_input(c, p);
    }
    pbuf_free(p);
    return iperf3_cb_end();
}

/* The peer's FIN. */
static void iperf3_conn_eof(struct iperf3_conn *c)
{
    if (c->kind != IPERF3_CONN_CTL) {
        iperf3_conn_drop(c, true); /* a stream, a pending or a denied connection */
        return;
    }
    struct iperf3_test *t = iperf3_test_of(c);
    if (t->phase == IPERF3_CLOSING) {
        iperf3_closing_done(t, true);
    } else {
        /* after the results the client may just close; before, it vanished */
        iperf3_test_end(t, t->phase == IPERF3_DONE_WAIT ? IPERF3_OUT_DONE : IPERF3_OUT_FAILED);
    }
}

static err_t iperf3_on_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
    struct iperf3_conn *c = arg;
    iperf3_cb_begin(pcb);
    struct iperf3_test *t = iperf3_test_of(c); /* meaningful for CTL and STREAM only */
    if (c->kind == IPERF3_CONN_CTL) {
        iperf3_ctl_flush(t);
        if (t->phase == IPERF3_CLOSING && t->out_len == 0) {
            iperf3_closing_done(t, true);
        }
    } else if (c->kind == IPERF3_CONN_STREAM && t->phase == IPERF3_RUNNING &&
               t->streams[c->stream].sender) {
        /* sent bytes count when the client has them (acknowledged), not when queued */
        if (!t->omitting) {
            t->streams[c->stream].bytes += len;
            IPERF3_STATS->tx_bytes += len;
        }
        iperf3_tcp_fill(t, &t->streams[c->stream], sink_now_ms(), true);
    }
    return iperf3_cb_end();
}

/* The pcb is gone (RST, or lwIP's retransmission/keepalive timeout): the client vanished. */
static void iperf3_on_err(void *arg, err_t err)
{
    struct iperf3_conn *c = arg;
    (void)err;
    if (!c || !c->pcb) {
        return;
    }
    c->pcb = NULL;
    iperf3_hold(-1);
    uint8_t kind = c->kind;
    c->kind = IPERF3_CONN_FREE;
    if (kind == IPERF3_CONN_CTL || kind == IPERF3_CONN_STREAM) {
        struct iperf3_test *t = iperf3_test_of(c);
        if (t->phase == IPERF3_CLOSING) {
            iperf3_closing_done(t, false);
        } else if (kind == IPERF3_CONN_STREAM && t->ctl.pcb) {
            const uint8_t b = (uint8_t)IPERF3_SERVER_TERMINATE;
            iperf3_ctl_send(t, &b, 1); /* the client prints its summary and says why */
            iperf3_test_end(t, IPERF3_OUT_FAILED);
        } else {
            iperf3_test_end(t, t->phase == IPERF3_DONE_WAIT ? IPERF3_OUT_DONE : IPERF3_OUT_FAILED);
        }
    }
}

static err_t iperf3_on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
    (void)arg;
    if (err != ERR_OK || !pcb) {
        return ERR_VAL;
    }
    /* A free slot, else the connection that has waited longest: idle connections cannot lock
     * real clients out (one sends its cookie within a round trip), they only evict each other. */
    struct iperf3_pending *pd = &iperf3_pending[0];
    for (unsigned i = 0; i < IPERF3_PENDING_CONNS && pd->conn.pcb; i++) {
        struct iperf3_pending *q = &iperf3_pending[i];
        if (!q->conn.pcb || (int32_t)(q->conn.since_ms - pd->conn.since_ms) < 0) {
            pd = q;
        }
    }
    if (pd->conn.pcb) {
        IPERF3_STATS->refused++; /* the oldest one not yet placed, turned away (RST) */
        iperf3_conn_drop(&pd->conn, false);
    }
    iperf3_hold(+1);
    iperf3_conn_attach(&pd->conn, pcb, IPERF3_CONN_PENDING);
    pd->conn.since_ms = sink_now_ms();
    iperf3_ctl_rx_init(&pd->rx, NULL, 0);
    tcp_nagle_disable(pcb); /* control messages are single bytes, as iperf3's TCP_NODELAY */
    bool slot = false;
    for (unsigned i = 0; i < IPERF3_MAX_TESTS; i++) {
        slot |= iperf3_tests[i].phase == IPERF3_FREE;
    }
    if (!slot && !iperf3_awaiting_tcp_streams()) {
        IPERF3_STATS->refused++; /* busy: iperf3 answers without reading */
        iperf3_deny(&pd->conn, false);
    }
    return ERR_OK;
}

/* --- entry points ----------------------------------------------------------------------------- */

void iperf3_init(void)
{
    for (size_t i = 0; i < sizeof(iperf3_payload); i++) {
        iperf3_payload[i] = (uint8_t)(i * 131 + 7);
    }
    sink_netif_constant(iperf3_payload, sizeof(iperf3_payload)); /* never written again */
    struct tcp_pcb *pcb = tcp_new_ip_type(IPADDR_TYPE_ANY); /* IPv4 and IPv6 */
    err_t err = pcb ? ERR_OK : ERR_MEM;
    if (pcb) {
        ip_set_option(pcb, SOF_KEEPALIVE); /* inherited: a client that vanishes is found */
        err = tcp_bind(pcb, IP_ANY_TYPE, CONFIG_SINK_IPERF3_PORT);
    }
    struct tcp_pcb *lpcb = err == ERR_OK ? tcp_listen(pcb) : NULL;
    if (!lpcb) {
        kprintf("iperf3: cannot listen on TCP port %d (lwIP error %d); iperf3 off\n",
                CONFIG_SINK_IPERF3_PORT, err);
        if (pcb) {
            tcp_close(pcb);
        }
        return;
    }
    tcp_accept(lpcb, iperf3_on_accept);
    iperf3_udp = udp_new_ip_type(IPADDR_TYPE_ANY);
    err = iperf3_udp ? udp_bind(iperf3_udp, IP_ANY_TYPE, CONFIG_SINK_IPERF3_PORT) : ERR_MEM;
    if (err != ERR_OK) {
        kprintf("iperf3: cannot bind UDP port %d (lwIP error %d); TCP tests only\n",
                CONFIG_SINK_IPERF3_PORT, err);
        if (iperf3_udp) {
            udp_remove(iperf3_udp);
        }
        iperf3_udp = NULL;
    } else {
        udp_recv(iperf3_udp, iperf3_on_udp, NULL);
    }
    iperf3_up = true;
}

/* iperf3_omit_end: --omit seconds are over: counting starts now (iperf_reset_stats: the
 * sequence bookkeeping goes on, the jitter starts afresh). */
static void iperf3_omit_end(struct iperf3_test *t, uint32_t now)
{
    t->omitting = false;
    t->measure_ms = now;
    for (unsigned i = 0; i < t->nstreams; i++) {
        t->streams[i].udp.jitter16_ns = 0;
    }
}

/* iperf3_test_poll: one test's deadlines and -R sending. */
static bool iperf3_test_poll(struct iperf3_test *t, uint32_t now)
{
    if (t->out_len > 0) {
        iperf3_ctl_flush(t);
    }
    switch (t->phase) {
    case IPERF3_PARAMS:
        if (iperf3_due(now, t->phase_ms, IPERF3_HELLO_TIMEOUT_MS)) {
            IPERF3_STATS->protocol_errors++; /* no params: not a working iperf3 client */
            iperf3_test_end(t, IPERF3_OUT_FAILED);
            return true;
        }
        return false;
    case IPERF3_STREAMS:
        if (iperf3_due(now, t->phase_ms, IPERF3_STREAMS_TIMEOUT_MS)) {
            iperf3_ctl_error(t, IPERF3_IE_STREAMACCEPT, IPERF3_ETIMEDOUT);
            return true;
        }
        return false;
    case IPERF3_RUNNING:
        if (t->params.time_s &&
            iperf3_due(now, t->start_ms,
                       (t->params.time_s + t->params.omit_s) * 1000u + IPERF3_GRACE_MS)) {
            const uint8_t b = (uint8_t)IPERF3_SERVER_TERMINATE;
            iperf3_ctl_send(t, &b, 1);
            iperf3_test_end(t, IPERF3_OUT_FAILED);
            return true;
        }
        if (t->omitting && iperf3_due(now, t->start_ms, t->params.omit_s * 1000u)) {
            iperf3_omit_end(t, now);
        }
        if (t->params.proto == IPERF3_PROTO_UDP) {
            return (t->params.reverse || t->params.bidir) && iperf3_udp_send_due(t, now);
        }
        for (unsigned i = 0; i < t->nstreams; i++) {
            /* paced: the budget grows with time; unpaced: ACKs refill, this only resumes a
             * stream whose last tcp_write found no memory */
            if (t->streams[i].sender) {
                iperf3_tcp_fill(t, &t->streams[i], now, false);
            }
        }
        return false;
    case IPERF3_RESULTS:
    case IPERF3_DONE_WAIT:
        if (iperf3_due(now, t->phase_ms, IPERF3_RESULTS_TIMEOUT_MS)) {
            /* the client got its report if we were waiting only for IPERF_DONE */
            iperf3_test_end(t, t->phase == IPERF3_DONE_WAIT ? IPERF3_OUT_DONE : IPERF3_OUT_FAILED);
            return true;
        }
        return false;
    case IPERF3_CLOSING:
        if (t->out_len == 0 || iperf3_due(now, t->phase_ms, IPERF3_RESULTS_TIMEOUT_MS)) {
            iperf3_closing_done(t, t->out_len == 0);
            return true;
        }
        return false;
    default:
        return false;
    }
}

bool iperf3_poll(uint32_t now_ms)
{
    if (!iperf3_up || iperf3_held == 0) {
        return false;
    }
    bool work = false;
    for (unsigned i = 0; i < IPERF3_PENDING_CONNS; i++) {
        struct iperf3_conn *c = &iperf3_pending[i].conn;
        if (!c->pcb) {
            continue;
        }
        if (c->kind == IPERF3_CONN_PENDING &&
            iperf3_due(now_ms, c->since_ms, IPERF3_HELLO_TIMEOUT_MS)) {
            IPERF3_STATS->protocol_errors++; /* connected, never sent a cookie */
            iperf3_conn_drop(c, false);
            work = true;
        } else if (c->kind == IPERF3_CONN_DENIED &&
                   iperf3_due(now_ms, c->since_ms, IPERF3_DENY_LINGER_MS)) {
            iperf3_conn_drop(c, true);
            work = true;
        }
    }
    for (unsigned i = 0; i < IPERF3_MAX_TESTS; i++) {
        if (iperf3_tests[i].phase != IPERF3_FREE) {
            work |= iperf3_test_poll(&iperf3_tests[i], now_ms);
        }
    }
    return work;
}

bool iperf3_idle(void)
{
    for (unsigned i = 0; i < IPERF3_PENDING_CONNS; i++) {
        if (iperf3_pending[i].conn.pcb) {
            return false;
        }
    }
    for (unsigned i = 0; i < IPERF3_MAX_TESTS; i++) {
        if (iperf3_tests[i].phase != IPERF3_FREE || iperf3_tests[i].out) {
            return false;
        }
    }
    return iperf3_held == 0;
}
