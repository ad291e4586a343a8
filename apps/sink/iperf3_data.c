/*
 * apps/sink/iperf3_data.c: the iperf3 server's data (see iperf3.c for the tests and their
 * control connections): what -R sends, over TCP (the constant payload, referenced, never
 * copied) and UDP (paced datagrams), and the UDP streams: their connect datagrams and what they
 * carry. Spec: docs/netperf-iperf3-protocol.md sections 2-4. Sink core, in lwIP's context.
 */
#include "apps/sink/iperf3_int.h"

#include <string.h>

#include "lwip/pbuf.h"
#include "time.h"

/* --- sending (-R) --------------------------------------------------------------------------- */

/* iperf3_tcp_fill: queue the constant payload (referenced, not copied) while the send buffer
 * has room for a full segment and the pacing allows; then tcp_output, unless lwIP is about to
 * (in_sent: from the sent callback, which tcp_input follows with tcp_output; each call walks
 * the whole unacknowledged queue). */
void iperf3_tcp_fill(struct iperf3_test *t, struct iperf3_stream *s, uint32_t now, bool in_sent)
{
    struct tcp_pcb *pcb = s->conn.pcb;
    if (!pcb) {
        return;
    }
    uint64_t allow = UINT64_MAX;
    if (t->params.rate_bps) {
        uint64_t due = iperf3_pace_bytes(t->params.rate_bps, now - t->start_ms);
        allow = due > s->queued ? due - s->queued : 0;
    }
    bool wrote = false;
    for (;;) {
        /* Each write goes on where the last ended (wrapping at the end): lwIP extends a
         * segment's reference over contiguous writes, so the NIC reads one piece per segment. */
        uint64_t off = s->queued % IPERF3_PAYLOAD_BYTES;
        uint64_t n = tcp_sndbuf(pcb);
        n = n < IPERF3_PAYLOAD_BYTES ? n : IPERF3_PAYLOAD_BYTES;
        n = n < allow ? n : allow;
        if (n < TCP_MSS) {
            break; /* more room comes with ACKs (sent callback), more budget with time (poll) */
        }
        n = n < IPERF3_PAYLOAD_BYTES - off ? n : IPERF3_PAYLOAD_BYTES - off;
        if (tcp_write(pcb, iperf3_payload + off, (u16_t)n, 0) != ERR_OK) {
            break;
        }
        s->queued += n;
        allow -= n;
        wrote = true;
    }
    if (wrote && !in_sent) {
        tcp_output(pcb);
    }
}

/* iperf3_udp_datagram: header (written) + payload (referenced) for the stream's next send. */
static struct pbuf *iperf3_udp_datagram(const struct iperf3_test *t, uint64_t seq)
{
    size_t hl = iperf3_udp_hdr_bytes(t->params.udp64);
    struct pbuf *p = pbuf_alloc(PBUF_TRANSPORT, (u16_t)hl, PBUF_RAM);
    if (!p) {
        return NULL;
    }
    iperf3_udp_hdr_write(p->payload, time_ns(), seq, t->params.udp64);
    for (size_t rest = t->params.len - hl; rest > 0;) {
        size_t n = rest < IPERF3_PAYLOAD_BYTES ? rest : IPERF3_PAYLOAD_BYTES;
        struct pbuf *r = pbuf_alloc(PBUF_RAW, (u16_t)n, PBUF_ROM);
        if (!r) {
            pbuf_free(p);
            return NULL;
        }
        r->payload = iperf3_payload;
        pbuf_cat(p, r);
        rest -= n;
    }
    return p;
}

/* iperf3_udp_send_due: -u -R (or --bidir): each sending stream's datagrams due by now at the
 * requested rate, at most IPERF3_UDP_BURST per pass. Returns whether anything was sent. */
bool iperf3_udp_send_due(struct iperf3_test *t, uint32_t now)
{
    uint64_t allow = UINT64_MAX;
    if (t->params.rate_bps) {
        allow = iperf3_pace_bytes(t->params.rate_bps, now - t->start_ms);
    }
    bool sent = false;
    for (unsigned i = 0; i < t->nstreams; i++) {
        struct iperf3_stream *s = &t->streams[i];
        for (unsigned b = 0; b < IPERF3_UDP_BURST && s->udp_held && s->sender; b++) {
            if (s->queued + t->params.len > allow) {
                break;
            }
            struct pbuf *p = iperf3_udp_datagram(t, s->packets + 1);
            if (!p) {
                break;
            }
            err_t err = udp_sendto(iperf3_udp, p, &s->addr, s->port);
            pbuf_free(p);
            if (err != ERR_OK) {
                break; /* no buffer or TX room: the same datagram again next pass */
            }
            s->packets++;
            s->queued += t->params.len;
            sent = true;
            if (!t->omitting) {
                s->bytes += t->params.len;
                IPERF3_STATS->tx_datagrams++;
                IPERF3_STATS->tx_bytes += t->params.len;
            }
        }
    }
    return sent;
}

/* --- UDP streams ---------------------------------------------------------------------------- */

static struct iperf3_stream *iperf3_udp_stream(const ip_addr_t *addr, u16_t port,
                                               struct iperf3_test **tp)
{
    for (unsigned i = 0; i < IPERF3_MAX_TESTS; i++) {
        struct iperf3_test *t = &iperf3_tests[i];
        if (t->params.proto != IPERF3_PROTO_UDP ||
            (t->phase != IPERF3_STREAMS && t->phase != IPERF3_RUNNING)) {
            continue;
        }
        for (unsigned k = 0; k < t->nstreams; k++) {
            struct iperf3_stream *s = &t->streams[k];
            if (s->udp_held && s->port == port && ip_addr_cmp(&s->addr, addr)) {
                *tp = t;
                return s;
            }
        }
    }
    return NULL;
}

/* The 4-byte connect datagram: the next stream of a UDP test from that host, answered with
 * the bytes reversed (the reply constant in the client's own byte order). False if no test
 * waits for it. */
static bool iperf3_udp_hello(struct pbuf *p, const ip_addr_t *addr, u16_t port)
{
    struct iperf3_test *t = NULL;
    for (unsigned i = 0; i < IPERF3_MAX_TESTS && !t; i++) {
        struct iperf3_test *c = &iperf3_tests[i];
        if (c->phase == IPERF3_STREAMS && c->params.proto == IPERF3_PROTO_UDP &&
            c->nstreams < c->params.nstreams && c->ctl.pcb &&
            ip_addr_cmp(&c->ctl.pcb->remote_ip, addr)) {
            t = c;
        }
    }
    uint8_t in[4], out[4];
    if (!t || pbuf_copy_partial(p, in, 4, 0) != 4) {
        return false; /* late, or not iperf3 */
    }
    iperf3_udp_hello_reply(in, out);
    struct pbuf *r = pbuf_alloc(PBUF_TRANSPORT, 4, PBUF_RAM);
    err_t err = ERR_MEM;
    if (r) {
        memcpy(r->payload, out, 4);
        err = udp_sendto(iperf3_udp, r, addr, port);
        pbuf_free(r);
    }
    if (err != ERR_OK) {
        iperf3_ctl_error(t, IPERF3_IE_STREAMACCEPT, 0); /* the client would wait 30 s */
        return true;
    }
    unsigned k = t->nstreams++;
    struct iperf3_stream *s = &t->streams[k];
    memset(s, 0, sizeof(*s));
    s->sender = iperf3_server_sends(&t->params, k);
    s->udp_held = true;
    ip_addr_copy(s->addr, *addr);
    s->port = port;
    iperf3_hold(+1);
    if (t->nstreams == t->params.nstreams) {
        iperf3_test_start(t);
    }
    return true;
}

void iperf3_on_udp(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr,
                          u16_t port)
{
    (void)arg;
    (void)pcb;
    struct iperf3_test *t;
    struct iperf3_stream *s = iperf3_udp_stream(addr, port, &t);
    if (!s) {
        if (p->tot_len != 4 || !iperf3_udp_hello(p, addr, port)) {
            IPERF3_STATS->rx_ignored++; /* late (after TEST_END), early, or not ours */
        }
        pbuf_free(p);
        return;
    }
    if (t->phase != IPERF3_RUNNING || s->sender) {
        /* before the start or after the end of its test, or on a stream the server sends */
        IPERF3_STATS->rx_ignored++;
    } else {
        uint8_t buf[16];
        size_t hl = iperf3_udp_hdr_bytes(t->params.udp64);
        const uint8_t *h = p->len >= hl ? p->payload : buf;
        if (h == buf) {
            hl = pbuf_copy_partial(p, buf, (u16_t)hl, 0);
        }
        if (!iperf3_udp_rx_datagram(&s->udp, h, hl, t->params.udp64, time_ns())) {
            IPERF3_STATS->protocol_errors++; /* shorter than its header */
        } else if (t->omitting) {
            IPERF3_STATS->rx_ignored++;
        } else {
            s->bytes += p->tot_len;
            IPERF3_STATS->rx_bytes += p->tot_len;
            IPERF3_STATS->rx_datagrams++;
        }
    }
    pbuf_free(p);
}
