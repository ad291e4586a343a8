/*
 * tests/unit/test_iperf3_proto.c: the iperf3 server's wire protocol without lwIP, against the
 * captures in docs/netperf-iperf3-protocol.md (appendix B) and iperf3 3.12's own
 * bookkeeping (iperf_udp_recv, get_results).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apps/sink/iperf3_proto.h"
#include "cJSON.h"

static const char cookie[] = "zqmxz2dddltgcocuvjtnzygeopaom6k3ohvy"; /* captured, B.1 */

static const char params_tcp[] =
    "{\"tcp\":true,\"omit\":0,\"time\":2,\"num\":0,\"blockcount\":0,\"parallel\":1,\"len\":131072,"
    "\"pacing_timer\":1000,\"client_version\":\"3.12\"}";
static const char params_udp[] =
    "{\"udp\":true,\"omit\":0,\"time\":2,\"num\":0,\"blockcount\":0,\"parallel\":1,\"len\":32768,"
    "\"bandwidth\":10000000,\"pacing_timer\":1000,\"client_version\":\"3.12\"}";
static const char params_rev[] =
    "{\"tcp\":true,\"omit\":0,\"time\":1,\"num\":0,\"blockcount\":0,\"parallel\":2,\"reverse\":true,"
    "\"len\":131072,\"bandwidth\":200000000,\"pacing_timer\":1000,\"client_version\":\"3.12\"}";

static void test_cookie_alphabet(void **state)
{
    (void)state;
    uint8_t c[IPERF3_COOKIE_BYTES];
    memcpy(c, cookie, sizeof(c));
    assert_true(iperf3_cookie_valid(c));
    c[36] = 'a'; /* no NUL */
    assert_false(iperf3_cookie_valid(c));
    c[36] = 0;
    c[5] = '8'; /* not base32 */
    assert_false(iperf3_cookie_valid(c));
    c[5] = 0; /* early NUL */
    assert_false(iperf3_cookie_valid(c));
    c[5] = 'A'; /* upper case is not in the alphabet */
    assert_false(iperf3_cookie_valid(c));
}

static void test_stream_ids_skip_two(void **state)
{
    (void)state;
    assert_int_equal(iperf3_stream_id(0), 1);
    assert_int_equal(iperf3_stream_id(1), 3);
    assert_int_equal(iperf3_stream_id(2), 4);
    assert_int_equal(iperf3_stream_id(127), 129);
}

/* Feed everything, one call per byte when `bytewise`; returns the events seen, in order. */
static int feed_all(struct iperf3_ctl_rx *rx, const uint8_t *data, size_t len, bool bytewise,
                    int *events, int max)
{
    int n = 0;
    while (len > 0 && n < max) {
        size_t used, give = bytewise ? 1 : len;
        int ev = iperf3_ctl_rx_feed(rx, data, give, &used);
        assert_true(used <= give);
        data += used;
        len -= used;
        if (ev != IPERF3_RX_MORE) {
            events[n++] = ev;
            if (ev < 0) {
                break;
            }
        } else {
            assert_int_equal(used, give); /* MORE means everything given was taken */
        }
    }
    return n;
}

static void test_ctl_cookie_then_params_any_split(void **state)
{
    (void)state;
    uint8_t wire[512];
    size_t plen = strlen(params_tcp);
    memcpy(wire, cookie, 37);
    iperf3_be32_put(wire + 37, (uint32_t)plen);
    memcpy(wire + 41, params_tcp, plen);
    size_t total = 41 + plen;
    for (int bytewise = 0; bytewise < 2; bytewise++) {
        static char buf[IPERF3_PARAMS_MAX_BYTES + 1];
        struct iperf3_ctl_rx rx;
        iperf3_ctl_rx_init(&rx, buf, IPERF3_PARAMS_MAX_BYTES);
        size_t used;
        const uint8_t *p = wire;
        size_t left = total;
        int ev = IPERF3_RX_MORE;
        /* the cookie first: the reader stops at its end and leaves the rest */
        while (ev == IPERF3_RX_MORE) {
            ev = iperf3_ctl_rx_feed(&rx, p, bytewise ? 1 : left, &used);
            p += used;
            left -= used;
        }
        assert_int_equal(ev, IPERF3_RX_COOKIE);
        assert_int_equal(left, 4 + plen);
        assert_memory_equal(rx.cookie, cookie, 37);
        iperf3_ctl_rx_expect(&rx, IPERF3_WANT_JSON);
        int evs[4];
        assert_int_equal(feed_all(&rx, p, left, bytewise, evs, 4), 1);
        assert_int_equal(evs[0], IPERF3_RX_JSON);
        assert_int_equal(rx.len, plen);
        assert_string_equal(buf, params_tcp);
    }
}

static void test_ctl_state_bytes_are_signed(void **state)
{
    (void)state;
    struct iperf3_ctl_rx rx;
    iperf3_ctl_rx_init(&rx, NULL, 0);
    iperf3_ctl_rx_expect(&rx, IPERF3_WANT_STATE);
    const uint8_t in[] = { 4, 16, 0xff };
    size_t used;
    assert_int_equal(iperf3_ctl_rx_feed(&rx, in, 3, &used), IPERF3_RX_STATE);
    assert_int_equal(used, 1);
    assert_int_equal(rx.state, IPERF3_TEST_END);
    assert_int_equal(iperf3_ctl_rx_feed(&rx, in + 1, 2, &used), IPERF3_RX_STATE);
    assert_int_equal(rx.state, IPERF3_IPERF_DONE);
    assert_int_equal(iperf3_ctl_rx_feed(&rx, in + 2, 1, &used), IPERF3_RX_STATE);
    assert_int_equal(rx.state, -1);
    assert_int_equal(iperf3_ctl_rx_feed(&rx, in, 0, &used), IPERF3_RX_MORE);
    assert_int_equal(used, 0);
}

static void test_ctl_bad_cookie(void **state)
{
    (void)state;
    struct iperf3_ctl_rx rx;
    iperf3_ctl_rx_init(&rx, NULL, 0);
    uint8_t junk[40];
    memset(junk, 'G', sizeof(junk)); /* e.g. an HTTP client: "GET / ..." */
    size_t used;
    assert_int_equal(iperf3_ctl_rx_feed(&rx, junk, sizeof(junk), &used), IPERF3_RX_BAD_COOKIE);
    assert_int_equal(used, 37);
}

static void test_ctl_json_length_bounds(void **state)
{
    (void)state;
    static char buf[64 + 1];
    struct iperf3_ctl_rx rx;
    uint8_t hdr[4];
    size_t used;

    iperf3_ctl_rx_init(&rx, buf, 64);
    iperf3_ctl_rx_expect(&rx, IPERF3_WANT_JSON);
    iperf3_be32_put(hdr, 0);
    assert_int_equal(iperf3_ctl_rx_feed(&rx, hdr, 4, &used), IPERF3_RX_BAD_LENGTH);

    iperf3_ctl_rx_expect(&rx, IPERF3_WANT_JSON);
    iperf3_be32_put(hdr, 65); /* one over the caller's buffer */
    assert_int_equal(iperf3_ctl_rx_feed(&rx, hdr, 4, &used), IPERF3_RX_BAD_LENGTH);

    iperf3_ctl_rx_expect(&rx, IPERF3_WANT_JSON);
    iperf3_be32_put(hdr, 0xffffffffu); /* what a hostile client would try */
    assert_int_equal(iperf3_ctl_rx_feed(&rx, hdr, 2, &used), IPERF3_RX_MORE);
    assert_int_equal(iperf3_ctl_rx_feed(&rx, hdr + 2, 2, &used), IPERF3_RX_BAD_LENGTH);

    iperf3_ctl_rx_expect(&rx, IPERF3_WANT_JSON);
    iperf3_be32_put(hdr, 64); /* exactly the buffer: accepted, NUL after it */
    assert_int_equal(iperf3_ctl_rx_feed(&rx, hdr, 4, &used), IPERF3_RX_MORE);
    uint8_t body[64];
    memset(body, ' ', sizeof(body));
    assert_int_equal(iperf3_ctl_rx_feed(&rx, body, 64, &used), IPERF3_RX_JSON);
    assert_int_equal(buf[64], 0);
}

static void test_ctl_discard_results_without_buffer(void **state)
{
    (void)state;
    struct iperf3_ctl_rx rx;
    iperf3_ctl_rx_init(&rx, NULL, 0);
    iperf3_ctl_rx_expect(&rx, IPERF3_WANT_JSON_DISCARD);
    /* the client's results (B.1: 0x11a bytes), then IPERF_DONE in the same segment */
    uint8_t wire[4 + 282 + 1];
    iperf3_be32_put(wire, 282);
    memset(wire + 4, 'x', 282);
    wire[286] = IPERF3_IPERF_DONE;
    size_t used;
    assert_int_equal(iperf3_ctl_rx_feed(&rx, wire, sizeof(wire), &used),
                     IPERF3_RX_JSON_DISCARDED);
    assert_int_equal(used, 286);
    iperf3_ctl_rx_expect(&rx, IPERF3_WANT_STATE);
    assert_int_equal(iperf3_ctl_rx_feed(&rx, wire + used, 1, &used), IPERF3_RX_STATE);
    assert_int_equal(rx.state, IPERF3_IPERF_DONE);

    iperf3_ctl_rx_expect(&rx, IPERF3_WANT_JSON_DISCARD);
    iperf3_be32_put(wire, IPERF3_RESULTS_MAX_BYTES + 1);
    assert_int_equal(iperf3_ctl_rx_feed(&rx, wire, 4, &used), IPERF3_RX_BAD_LENGTH);
}

static void test_params_captured(void **state)
{
    (void)state;
    struct iperf3_params p;
    assert_int_equal(iperf3_params_parse(params_tcp, strlen(params_tcp), 16, &p), 0);
    assert_int_equal(p.proto, IPERF3_PROTO_TCP);
    assert_false(p.reverse);
    assert_int_equal(p.parallel, 1);
    assert_int_equal(p.len, 131072);
    assert_int_equal(p.rate_bps, 0);
    assert_int_equal(p.time_s, 2);

    assert_int_equal(iperf3_params_parse(params_udp, strlen(params_udp), 16, &p), 0);
    assert_int_equal(p.proto, IPERF3_PROTO_UDP);
    assert_int_equal(p.len, 32768);
    assert_int_equal(p.rate_bps, 10000000);
    assert_false(p.udp64);

    assert_int_equal(iperf3_params_parse(params_rev, strlen(params_rev), 16, &p), 0);
    assert_true(p.reverse);
    assert_int_equal(p.parallel, 2);
    assert_int_equal(p.rate_bps, 200000000);
}

#define PARSE(js, max, p) iperf3_params_parse(js, strlen(js), max, p)

static void test_params_defaults_and_big_numbers(void **state)
{
    (void)state;
    struct iperf3_params p;
    /* no protocol key: TCP, as the stock server's default; no len: 128 KiB */
    assert_int_equal(PARSE("{\"parallel\":3}", 16, &p), 0);
    assert_int_equal(p.proto, IPERF3_PROTO_TCP);
    assert_int_equal(p.parallel, 3);
    assert_int_equal(p.len, IPERF3_TCP_LEN_DEFAULT_BYTES);
    /* UDP without bandwidth is what `-u -b 0` sends: unpaced, as the stock server takes it */
    assert_int_equal(PARSE("{\"udp\":true,\"parallel\":1}", 16, &p), 0);
    assert_int_equal(p.rate_bps, 0);
    assert_int_equal(p.len, IPERF3_UDP_LEN_DEFAULT_BYTES);
    /* -b 10G is over INT_MAX: kept whole (cJSON's valueint would saturate) */
    assert_int_equal(PARSE("{\"udp\":true,\"parallel\":1,\"bandwidth\":10000000000,"
                           "\"udp_counters_64bit\":1}", 16, &p), 0);
    assert_int_equal(p.rate_bps, 10000000000ull);
    assert_true(p.udp64);
    /* keys a sink does not need, including a username's token, are ignored */
    assert_int_equal(PARSE("{\"tcp\":true,\"parallel\":1,\"window\":1000000,\"MSS\":1000,"
                           "\"title\":\"t\",\"authtoken\":\"abc\",\"get_server_output\":1}",
                           16, &p), 0);
}

static void test_params_refused_with_client_errors(void **state)
{
    (void)state;
    struct iperf3_params p;
    assert_int_equal(PARSE("{\"tcp\":true,\"parallel\":17}", 16, &p), IPERF3_IE_NUMSTREAMS);
    assert_int_equal(PARSE("{\"tcp\":true,\"parallel\":16}", 16, &p), 0);
    assert_int_equal(PARSE("{\"tcp\":true,\"parallel\":0}", 16, &p), IPERF3_IE_NUMSTREAMS);
    assert_int_equal(PARSE("{\"sctp\":true,\"parallel\":1}", 16, &p), IPERF3_IE_UNIMP);
    /* --bidir: twice -P streams, the client's senders first (over TCP and UDP alike) */
    assert_int_equal(PARSE("{\"tcp\":true,\"parallel\":8,\"bidirectional\":true}", 16, &p), 0);
    assert_true(p.bidir && !p.reverse && p.parallel == 8 && p.nstreams == 16);
    assert_int_equal(PARSE("{\"tcp\":true,\"parallel\":9,\"bidirectional\":true}", 16, &p),
                     IPERF3_IE_NUMSTREAMS);
    assert_int_equal(PARSE("{\"udp\":true,\"parallel\":2,\"bidirectional\":true}", 16, &p), 0);
    assert_true(p.bidir && p.proto == IPERF3_PROTO_UDP && p.nstreams == 4);
    assert_true(!iperf3_server_sends(&p, 1) && iperf3_server_sends(&p, 2));
    assert_int_equal(PARSE("{\"tcp\":true,\"parallel\":3}", 16, &p), 0);
    assert_true(!p.bidir && p.nstreams == 3);
    assert_int_equal(PARSE("{\"tcp\":true,\"parallel\":1,\"len\":2000000}", 16, &p),
                     IPERF3_IE_BLOCKSIZE);
    assert_int_equal(PARSE("{\"udp\":true,\"parallel\":1,\"len\":8}", 16, &p),
                     IPERF3_IE_UDPBLOCKSIZE);
    assert_int_equal(PARSE("{\"udp\":true,\"parallel\":1,\"len\":65508}", 16, &p),
                     IPERF3_IE_UDPBLOCKSIZE);
}

static void test_params_malformed(void **state)
{
    (void)state;
    struct iperf3_params p;
    static const char *bad[] = {
        "", "{", "[1,2]", "\"tcp\"", "{\"tcp\":true,\"parallel\":\"4\"}",
        "{\"parallel\":-1}", "{\"parallel\":1e300}", "{\"bandwidth\":-5}", "{\"len\":null}",
        "{\"tcp\":true}garbage",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(PARSE(bad[i], 16, &p), IPERF3_PARAMS_MALFORMED);
    }
    /* a NUL inside the message, or none after it, is malformed too */
    const char js[] = "{\"parallel\":2}\0XXX";
    assert_int_equal(iperf3_params_parse(js, sizeof(js) - 1, 16, &p), IPERF3_PARAMS_MALFORMED);
    assert_int_equal(iperf3_params_parse(js, 10, 16, &p), IPERF3_PARAMS_MALFORMED);
    assert_int_equal(iperf3_params_parse(js, 14, 16, &p), 0);
    assert_int_equal(p.parallel, 2);
}

static double num(const cJSON *o, const char *k)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    assert_non_null(it);
    assert_true(cJSON_IsNumber(it));
    return it->valuedouble;
}

static void test_results_have_every_required_key(void **state)
{
    (void)state;
    const struct iperf3_stream_result s[2] = {
        { .id = 1, .bytes = 6241648640ull },
        { .id = 3, .bytes = 2523136, .packets = 77, .errors = 2, .jitter_ns = 68923 },
    };
    size_t len;
    char *js = iperf3_results_json(s, 2, 2001, IPERF3_SO_NONE, &len);
    assert_non_null(js);
    assert_int_equal(len, strlen(js));
    assert_null(strchr(js, '\n')); /* unformatted, as the client's JSON_read expects */
    cJSON *j = cJSON_Parse(js);
    assert_non_null(j);
    assert_true(num(j, "cpu_util_total") == 0);
    assert_true(num(j, "cpu_util_user") == 0);
    assert_true(num(j, "cpu_util_system") == 0);
    assert_true(num(j, "sender_has_retransmits") == 0);
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(j, "streams");
    assert_int_equal(cJSON_GetArraySize(arr), 2);
    const cJSON *a = cJSON_GetArrayItem(arr, 0), *b = cJSON_GetArrayItem(arr, 1);
    assert_true(num(a, "id") == 1);
    assert_true(num(a, "bytes") == 6241648640.0); /* over 2^32, exact */
    assert_true(num(a, "retransmits") == -1);
    assert_true(num(a, "jitter") == 0);
    assert_true(num(a, "errors") == 0 && num(a, "packets") == 0);
    assert_true(num(a, "start_time") == 0);
    assert_true(num(a, "end_time") == 2.001);
    assert_true(num(b, "id") == 3 && num(b, "packets") == 77 && num(b, "errors") == 2);
    assert_true(num(b, "jitter") > 6.89e-5 && num(b, "jitter") < 6.9e-5);
    assert_non_null(strstr(js, "\"bytes\":6241648640")); /* printed as an integer */
    cJSON_Delete(j);
    iperf3_json_free(js);

    js = iperf3_results_json(NULL, 0, 0, IPERF3_SO_NONE, &len); /* "streams":[] is legal */
    assert_non_null(js);
    assert_non_null(strstr(js, "\"streams\":[]"));
    iperf3_json_free(js);
}

/* --get-server-output: the report the results carry, as text or (-J) as an object whose
 * sums are the streams' bytes by direction. */
static void test_results_carry_the_server_report(void **state)
{
    (void)state;
    const struct iperf3_stream_result s[3] = {
        { .id = 1, .bytes = 1000000 },
        { .id = 3, .bytes = 500000 },
        { .id = 4, .bytes = 250000, .sender = true },
    };
    size_t len;
    char *js = iperf3_results_json(s, 3, 2000, IPERF3_SO_TEXT, &len);
    cJSON *j = cJSON_Parse(js);
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(j, "server_output_text");
    assert_true(cJSON_IsString(text));
    assert_non_null(strstr(text->valuestring, "over 2.00 s, 3 streams"));
    assert_non_null(strstr(text->valuestring, "1000000  4000000 bits/sec  receiver"));
    assert_non_null(strstr(text->valuestring, "250000  1000000 bits/sec  sender"));
    assert_non_null(strstr(text->valuestring, "[SUM]")); /* two receiving streams */
    assert_null(cJSON_GetObjectItemCaseSensitive(j, "server_output_json"));
    cJSON_Delete(j);
    iperf3_json_free(js);

    js = iperf3_results_json(s, 3, 2000, IPERF3_SO_JSON, &len);
    j = cJSON_Parse(js);
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(j, "server_output_json");
    const cJSON *end = cJSON_GetObjectItemCaseSensitive(o, "end");
    assert_true(num(cJSON_GetObjectItemCaseSensitive(end, "sum_received"), "bytes") == 1500000);
    assert_true(num(cJSON_GetObjectItemCaseSensitive(end, "sum_sent"), "bytes") == 250000);
    assert_true(num(cJSON_GetObjectItemCaseSensitive(end, "sum_sent"), "bits_per_second") ==
                1000000);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(end, "streams")), 3);
    assert_null(cJSON_GetObjectItemCaseSensitive(j, "server_output_text"));
    cJSON_Delete(j);
    iperf3_json_free(js);

    js = iperf3_results_json(s, 3, 2000, IPERF3_SO_NONE, &len);
    assert_null(strstr(js, "server_output"));
    iperf3_json_free(js);
}

static void test_udp_hello_reply_is_reversed(void **state)
{
    (void)state;
    const uint8_t le_hello[4] = { 0x39, 0x38, 0x37, 0x36 }; /* captured, B.2 */
    const uint8_t be_hello[4] = { 0x36, 0x37, 0x38, 0x39 };
    uint8_t out[4];
    iperf3_udp_hello_reply(le_hello, out);
    const uint8_t le_reply[4] = { 0x36, 0x37, 0x38, 0x39 };
    assert_memory_equal(out, le_reply, 4);
    uint32_t v;
    memcpy(&v, out, 4); /* this host is little-endian, like the captured client */
    assert_int_equal(v, IPERF3_UDP_CONNECT_REPLY);
    iperf3_udp_hello_reply(be_hello, out);
    const uint8_t be_reply[4] = { 0x39, 0x38, 0x37, 0x36 };
    assert_memory_equal(out, be_reply, 4);
}

static void dgram(uint8_t *h, uint32_t sec, uint32_t usec, uint32_t seq)
{
    iperf3_be32_put(h, sec);
    iperf3_be32_put(h + 4, usec);
    iperf3_be32_put(h + 8, seq);
}

static void test_udp_loss_and_reordering_as_iperf3(void **state)
{
    (void)state;
    struct iperf3_udp_rx s = { 0 };
    uint8_t h[12];
    static const uint32_t seqs[] = { 1, 2, 5, 3, 6, 4, 10 };
    for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
        dgram(h, 840, 0, seqs[i]);
        assert_true(iperf3_udp_rx_datagram(&s, h, sizeof(h), false, 1000));
    }
    /* 5 after 2: 2 lost; 3 late: 1; 6: 1; 4 late: 0; 10: 3 lost (7, 8, 9) */
    assert_int_equal(s.packets, 10);
    assert_int_equal(s.errors, 3);
    assert_int_equal(s.outoforder, 2);
    assert_false(iperf3_udp_rx_datagram(&s, h, 11, false, 1000)); /* too short */
    assert_int_equal(s.packets, 10);
    /* a late datagram with no loss outstanding does not go below 0 */
    struct iperf3_udp_rx t = { 0 };
    dgram(h, 1, 0, 2);
    iperf3_udp_rx_datagram(&t, h, 12, false, 0);
    dgram(h, 1, 0, 1);
    iperf3_udp_rx_datagram(&t, h, 12, false, 0);
    assert_int_equal(t.errors, 0);
    assert_int_equal(t.packets, 2);
}

static void test_udp_jitter(void **state)
{
    (void)state;
    struct iperf3_udp_rx s = { 0 };
    uint8_t h[12];
    /* constant transit: no jitter, whatever the clocks' offset */
    for (uint32_t i = 1; i <= 100; i++) {
        dgram(h, 840, i * 1000, i);
        iperf3_udp_rx_datagram(&s, h, 12, false, 5000000000ull + i * 1000000ull);
    }
    assert_int_equal(iperf3_udp_rx_jitter_ns(&s), 0);
    /* transit alternating by 100 us: J converges to 100 us (J += (|D| - J) / 16) */
    struct iperf3_udp_rx t = { 0 };
    double j = 0;
    for (uint32_t i = 1; i <= 400; i++) {
        dgram(h, 0, i * 1000, i);
        uint64_t arr = i * 1000000ull + (i & 1) * 100000ull;
        iperf3_udp_rx_datagram(&t, h, 12, false, arr);
        if (i > 1) {
            j += (100000.0 - j) / 16.0;
        }
    }
    uint64_t got = iperf3_udp_rx_jitter_ns(&t);
    assert_true(got > 99000 && got <= 100000);
    assert_true(got > j - 20 && got < j + 20); /* the integer form tracks the float one */
}

static void test_udp_header_roundtrip(void **state)
{
    (void)state;
    uint8_t h[16];
    iperf3_udp_hdr_write(h, 840123456789ull, 77, false);
    const uint8_t want[12] = { 0, 0, 3, 0x48, 0, 1, 0xe2, 0x40, 0, 0, 0, 77 };
    assert_memory_equal(h, want, 12); /* 840 s, 123456 us, seq 77 */
    iperf3_udp_hdr_write(h, 1000, (1ull << 32) + 5, true);
    struct iperf3_udp_rx s = { 0 };
    assert_false(iperf3_udp_rx_datagram(&s, h, 12, true, 0));
    assert_true(iperf3_udp_rx_datagram(&s, h, 16, true, 0));
    assert_int_equal(s.packets, (1ull << 32) + 5);
    assert_int_equal(s.errors, (1ull << 32) + 4);
    /* a hostile all-ones sequence number, then any other: packets never goes back (found by
     * fuzz_iperf3: seq >= packets + 1 wrapped) */
    iperf3_udp_hdr_write(h, 1000, UINT64_MAX, true);
    assert_true(iperf3_udp_rx_datagram(&s, h, 16, true, 0));
    iperf3_udp_hdr_write(h, 1000, 3, true);
    assert_true(iperf3_udp_rx_datagram(&s, h, 16, true, 0));
    assert_true(s.packets == UINT64_MAX);
    assert_true(s.errors <= s.packets);
}

static void test_pacing(void **state)
{
    (void)state;
    assert_int_equal(iperf3_pace_bytes(50000000, 0), 0);
    assert_int_equal(iperf3_pace_bytes(50000000, 1000), 6250000);
    assert_int_equal(iperf3_pace_bytes(50000000, 1500), 9375000);
    assert_int_equal(iperf3_pace_bytes(50000000, 1), 6250);
    assert_int_equal(iperf3_pace_bytes(8, 999), 0);
    /* absurd rates and times neither overflow nor go backwards */
    uint64_t a = iperf3_pace_bytes(UINT64_C(1) << 48, UINT32_MAX - 1);
    uint64_t b = iperf3_pace_bytes(UINT64_C(1) << 48, UINT32_MAX);
    assert_true(b >= a && a > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cookie_alphabet),
        cmocka_unit_test(test_stream_ids_skip_two),
        cmocka_unit_test(test_ctl_cookie_then_params_any_split),
        cmocka_unit_test(test_ctl_state_bytes_are_signed),
        cmocka_unit_test(test_ctl_bad_cookie),
        cmocka_unit_test(test_ctl_json_length_bounds),
        cmocka_unit_test(test_ctl_discard_results_without_buffer),
        cmocka_unit_test(test_params_captured),
        cmocka_unit_test(test_params_defaults_and_big_numbers),
        cmocka_unit_test(test_params_refused_with_client_errors),
        cmocka_unit_test(test_params_malformed),
        cmocka_unit_test(test_results_have_every_required_key),
        cmocka_unit_test(test_results_carry_the_server_report),
        cmocka_unit_test(test_udp_hello_reply_is_reversed),
        cmocka_unit_test(test_udp_loss_and_reordering_as_iperf3),
        cmocka_unit_test(test_udp_jitter),
        cmocka_unit_test(test_udp_header_roundtrip),
        cmocka_unit_test(test_pacing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
