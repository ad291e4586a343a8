/*
 * tests/fuzz/fuzz_iperf3.c: the iperf3 server's handling of what a client sends
 * (apps/sink/iperf3_proto.c with Debian's cJSON): the control stream as the server reads it
 * (cookie, params JSON, state bytes, the client's results), in arbitrary splits; the params
 * parser; the results built from what was accepted; UDP datagram headers.
 *
 * Input: byte 0 = sink.max_streams - 1 (mod 128), byte 1 = split size (0: all at once),
 * bytes 2-3 = length L of the control stream, then L bytes of it, then UDP datagrams as
 * (length byte, bytes) until the end; a datagram's first byte also says 64-bit counters.
 */
#include "tests/fuzz/fuzz.h"

#include "apps/sink/iperf3_proto.h"
#include "cJSON.h"

static char json_buf[IPERF3_PARAMS_MAX_BYTES + 1];

/* The results built for accepted params parse back with every stream, in order. */
FUZZ_UNTRACED static void check_results(const struct iperf3_params *p, uint32_t seed)
{
    static struct iperf3_stream_result r[128];
    FUZZ_CHECK(p->nstreams >= 1 && p->nstreams <= 128);
    for (uint32_t i = 0; i < p->nstreams; i++) {
        r[i] = (struct iperf3_stream_result){ .id = iperf3_stream_id(i),
                                              .sender = p->bidir ? i >= p->parallel : p->reverse,
                                              .bytes = (uint64_t)seed * (i + 1),
                                              .packets = seed >> 3,
                                              .errors = i,
                                              .jitter_ns = seed };
    }
    size_t len = 0;
    char *js = iperf3_results_json(r, p->nstreams, seed & 0xffff,
                                   (enum iperf3_server_output)(seed % 3), &len);
    FUZZ_CHECK(js != NULL && len == strlen(js));
    cJSON *j = cJSON_Parse(js);
    FUZZ_CHECK(j != NULL);
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(j, "streams");
    FUZZ_CHECK(cJSON_GetArraySize(arr) == (int)p->nstreams);
    for (uint32_t i = 0; i < p->nstreams; i++) {
        const cJSON *s = cJSON_GetArrayItem(arr, (int)i);
        FUZZ_CHECK(cJSON_GetObjectItemCaseSensitive(s, "id")->valuedouble == r[i].id);
        FUZZ_CHECK(cJSON_GetObjectItemCaseSensitive(s, "bytes")->valuedouble ==
                   (double)r[i].bytes);
    }
    cJSON_Delete(j);
    iperf3_json_free(js);
}

/* One message from the reader, handled as the server does; returns the next expectation. */
static enum iperf3_want on_event(struct iperf3_ctl_rx *rx, int ev, uint32_t max_streams,
                                 bool *udp64)
{
    switch (ev) {
    case IPERF3_RX_COOKIE:
        FUZZ_CHECK(iperf3_cookie_valid(rx->cookie));
        return IPERF3_WANT_JSON;
    case IPERF3_RX_JSON: {
        FUZZ_CHECK(rx->len > 0 && rx->len <= IPERF3_PARAMS_MAX_BYTES && rx->buf[rx->len] == 0);
        struct iperf3_params p;
        int rc = iperf3_params_parse(rx->buf, rx->len, max_streams, &p);
        FUZZ_CHECK(rc == IPERF3_PARAMS_MALFORMED || rc == 0 || rc == IPERF3_IE_NUMSTREAMS ||
                   rc == IPERF3_IE_BLOCKSIZE || rc == IPERF3_IE_UDPBLOCKSIZE ||
                   rc == IPERF3_IE_UNIMP);
        if (rc == 0) {
            FUZZ_CHECK(p.parallel >= 1 && p.nstreams <= max_streams);
            /* --bidir: twice -P streams, the client's senders first, over TCP or UDP */
            FUZZ_CHECK(p.nstreams == (p.bidir ? 2 * p.parallel : p.parallel));
            FUZZ_CHECK(!p.bidir ||
                       (!iperf3_server_sends(&p, p.parallel - 1) &&
                        iperf3_server_sends(&p, p.parallel)));
            FUZZ_CHECK(p.proto == IPERF3_PROTO_TCP ? p.len >= 1 && p.len <= IPERF3_TCP_LEN_MAX_BYTES
                                                   : p.len >= IPERF3_UDP_LEN_MIN_BYTES &&
                                                         p.len <= IPERF3_UDP_LEN_MAX_BYTES);
            *udp64 = p.udp64;
            check_results(&p, rx->len * 2654435761u);
            uint64_t a = iperf3_pace_bytes(p.rate_bps, p.time_s);
            FUZZ_CHECK(iperf3_pace_bytes(p.rate_bps, p.time_s + 1) >= a);
        }
        return IPERF3_WANT_STATE;
    }
    case IPERF3_RX_STATE:
        return rx->state == IPERF3_TEST_END ? IPERF3_WANT_JSON_DISCARD : IPERF3_WANT_STATE;
    default: /* IPERF3_RX_JSON_DISCARDED */
        FUZZ_CHECK(rx->got == rx->len && rx->len <= IPERF3_RESULTS_MAX_BYTES);
        return IPERF3_WANT_STATE;
    }
}

static bool control(const uint8_t *d, size_t n, size_t split, uint32_t max_streams)
{
    struct iperf3_ctl_rx rx;
    bool udp64 = false;
    iperf3_ctl_rx_init(&rx, json_buf, IPERF3_PARAMS_MAX_BYTES);
    while (n > 0) {
        size_t give = split && split < n ? split : n, used = 0;
        int ev = iperf3_ctl_rx_feed(&rx, d, give, &used);
        FUZZ_CHECK(used <= give && (used > 0 || ev < 0));
        if (ev == IPERF3_RX_MORE) {
            FUZZ_CHECK(used == give);
        }
        d += used;
        n -= used;
        if (ev < 0) {
            FUZZ_CHECK(ev == IPERF3_RX_BAD_COOKIE || ev == IPERF3_RX_BAD_LENGTH);
            break; /* the server drops the connection */
        }
        if (ev != IPERF3_RX_MORE) {
            iperf3_ctl_rx_expect(&rx, on_event(&rx, ev, max_streams, &udp64));
        }
    }
    return udp64;
}

static void datagrams(struct fuzz_in *in, bool udp64)
{
    struct iperf3_udp_rx s = { 0 };
    uint64_t now = 0, maxseq = 0;
    while (in->n > 0) {
        size_t len = fuzz_u8(in);
        len = len < in->n ? len : in->n;
        uint8_t *dg = fuzz_alloc_copy(in->p, len, len);
        in->p += len;
        in->n -= len;
        now += 1000 + (len << 10);
        bool c64 = udp64 || (len > 0 && (dg[0] & 1));
        uint64_t before = s.packets;
        bool ok = iperf3_udp_rx_datagram(&s, dg, len, c64, now);
        FUZZ_CHECK(ok == (len >= iperf3_udp_hdr_bytes(c64)));
        FUZZ_CHECK(s.packets >= before);
        if (ok) {
            /* the sequence number read back is the one a sender writes (32 bits of it) */
            uint8_t hdr[16];
            uint64_t seq = s.packets > before ? s.packets : before + 1;
            iperf3_udp_hdr_write(hdr, now, seq, c64);
            struct iperf3_udp_rx t = { 0 };
            FUZZ_CHECK(iperf3_udp_rx_datagram(&t, hdr, 16, c64, now) &&
                       t.packets == (c64 ? seq : (uint32_t)seq));
            maxseq = s.packets > maxseq ? s.packets : maxseq;
        }
        FUZZ_CHECK(s.packets == maxseq && s.errors <= s.packets);
        free(dg);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    uint32_t max_streams = 1 + fuzz_u8(&in) % 128;
    size_t split = fuzz_u8(&in);
    size_t clen = fuzz_u16(&in);
    clen = clen < in.n ? clen : in.n;
    uint8_t *ctl = fuzz_alloc_copy(in.p, clen, clen);
    in.p += clen;
    in.n -= clen;
    bool udp64 = control(ctl, clen, split, max_streams);
    free(ctl);
    datagrams(&in, udp64);
    return 0;
}
