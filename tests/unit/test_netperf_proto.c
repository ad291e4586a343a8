/* tests/unit/test_netperf_proto.c: netperf 2.7.0 control messages against the bytes captured
 * from Debian's netperf/netserver (docs/netperf-iperf3-protocol.md, Appendix A). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apps/sink/netperf_proto.h"

/* A message from "offset: hex bytes" patches over zeros, as the captures print them. */
struct patch {
    unsigned off;
    const char *hex;
};

static void msg_from(uint8_t *m, const struct patch *p, size_t n)
{
    memset(m, 0, NETPERF_MSG_BYTES);
    for (size_t i = 0; i < n; i++) {
        unsigned off = p[i].off;
        for (const char *h = p[i].hex; *h != '\0';) {
            if (*h == ' ') {
                h++;
                continue;
            }
            unsigned byte;
            assert_int_equal(sscanf(h, "%2x", &byte), 1);
            assert_true(off < NETPERF_MSG_BYTES);
            m[off++] = (uint8_t)byte;
            h += 2;
        }
    }
}

#define MSG(m, ...)                                                                             \
    do {                                                                                        \
        static const struct patch p_[] = { __VA_ARGS__ };                                       \
        msg_from((m), p_, sizeof(p_) / sizeof(p_[0]));                                          \
    } while (0)

/* A.1: TCP_STREAM -l 2 request. */
static void a1_request(uint8_t *m)
{
    MSG(m, { 0x00, "00 00 00 61 ff ff ff ff ff ff ff ff ff ff ff ff" },
        { 0x10, "00 00 00 08 00 00 00 00 00 00 00 02 ff ff ff ff" },
        { 0x20, "ff ff ff ff ff ff ff ff 00 00 00 08 00 00 00 00" },
        { 0x30, "00 00 00 00 ff ff ff ff 00 00 00 20 00 00 00 00" },
        { 0x40, "00 00 00 02 00 00 00 00 00 00 00 00 ff ff ff ff" },
        { 0x50, "ff ff ff ff ff ff ff ff 00 00 00 00 00 00 00 04" },
        { 0x60, "00 00 00 01 00 00 00 06 00 00 00 04 00 00 88 39" },
        { 0x90, "00 00 00 00 00 00 00 00 ff ff ff ff ff ff ff ff" });
}

/* A.4: UDP_STREAM -- -m 64 differs from A.1 in send_width, flags, type/protocol, port. */
static void a4_request(uint8_t *m)
{
    a1_request(m);
    uint8_t d[NETPERF_MSG_BYTES];
    MSG(d, { 0x18, "00 00 0d 01" }, { 0x38, "00 00 00 00" },
        { 0x60, "00 00 00 02 00 00 00 11 00 00 00 04 00 00 e2 79" });
    memcpy(m + 0x18, d + 0x18, 4);
    memcpy(m + 0x38, d + 0x38, 4);
    memcpy(m + 0x60, d + 0x60, 16);
}

static void put_be32(uint8_t *m, unsigned off, uint32_t v)
{
    m[off] = (uint8_t)(v >> 24);
    m[off + 1] = (uint8_t)(v >> 16);
    m[off + 2] = (uint8_t)(v >> 8);
    m[off + 3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *m, unsigned off)
{
    return (uint32_t)m[off] << 24 | (uint32_t)m[off + 1] << 16 | (uint32_t)m[off + 2] << 8 |
           m[off + 3];
}

static float f32_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

static void test_a1_tcp_stream_request(void **state)
{
    (void)state;
    uint8_t m[NETPERF_MSG_BYTES];
    a1_request(m);
    assert_int_equal(netperf_msg_type(m), NETPERF_MSG_DO_OMNI);
    struct netperf_omni_req req;
    assert_int_equal(netperf_parse_omni(m, &req), 0);
    assert_int_equal(req.test, NETPERF_TCP_STREAM);
    assert_int_equal(req.flags, 0x20);
    assert_int_equal(req.test_length, 2);
    assert_int_equal(req.data_port, 0);
    assert_int_equal(req.send_size, UINT32_MAX);
    assert_int_equal(req.receive_size, UINT32_MAX);
    assert_int_equal(req.socket_prio, -1);
    assert_int_equal(req.socket_tos, -1);
}

/* A.2: netserver's response to A.1, rebuilt byte for byte from the same inputs. */
static void test_a2_response_bytes(void **state)
{
    (void)state;
    uint8_t m[NETPERF_MSG_BYTES], want[NETPERF_MSG_BYTES], got[NETPERF_MSG_BYTES];
    a1_request(m);
    struct netperf_omni_req req;
    assert_int_equal(netperf_parse_omni(m, &req), 0);
    MSG(want, { 0x00, "00 00 00 62 00 00 00 00 00 02 00 00 00 02 00 00" },
        { 0x10, "00 00 00 02 00 00 40 00 ff ff ff ff 00 00 00 02" },
        { 0x30, "00 00 00 00 00 00 a6 15 00 00 00 00 00 00 00 00" },
        { 0x40, "00 00 00 00 00 00 00 00 ff ff ff ff ff ff ff ff" });
    struct netperf_omni_resp resp = {
        .recv_buf_bytes = 131072, .send_buf_bytes = 16384, .flags = 0, .data_port = 42517
    };
    memset(got, 0xAA, sizeof(got));
    netperf_build_response(got, &req, &resp);
    assert_memory_equal(got, want, NETPERF_MSG_BYTES);
}

/* A.3: the results fields the client reads, as netserver sent them (without quirks A/B). */
static void test_a3_results_bytes(void **state)
{
    (void)state;
    uint8_t want[NETPERF_MSG_BYTES], got[NETPERF_MSG_BYTES];
    MSG(want, { 0x00, "00 00 00 63 00 00 00 00 00 00 00 01 57 26 fc d3" },
        { 0x10, "00 00 ab ab 00 3d 4f b2 00 00 00 00 00 00 00 00" },
        { 0x20, "00 00 00 00 00 3c 1e 00 00 00 00 00 00 00 00 00" },
        { 0x30, "40 00 14 e0" }, { 0x110, "00 00 00 00 62 62 72 00" });
    struct netperf_results res = {
        .bytes_received = 5757140179ull,
        .recv_calls = 43947,
        .recv_buf_bytes = 4018098,
        .send_buf_bytes = 3939840,
        .elapsed_s = f32_bits(0x400014e0),
        .transport_retrans = 0,
        .cong_control = "bbr",
    };
    memset(got, 0xAA, sizeof(got));
    netperf_build_results(got, &res);
    assert_memory_equal(got, want, NETPERF_MSG_BYTES);
}

/* A.4: UDP_STREAM request, response and results. */
static void test_a4_udp_stream(void **state)
{
    (void)state;
    uint8_t m[NETPERF_MSG_BYTES], want[NETPERF_MSG_BYTES], got[NETPERF_MSG_BYTES];
    a4_request(m);
    struct netperf_omni_req req;
    assert_int_equal(netperf_parse_omni(m, &req), 0);
    assert_int_equal(req.test, NETPERF_UDP_STREAM);
    assert_int_equal(req.flags, 0);

    MSG(want, { 0x00, "00 00 00 62 00 00 00 00 00 03 40 00 00 03 40 00" },
        { 0x10, "00 00 00 02 00 03 40 00 ff ff ff ff 00 00 0d 01" },
        { 0x30, "00 00 00 00 00 00 92 9c" }, { 0x48, "ff ff ff ff ff ff ff ff" });
    struct netperf_omni_resp resp = { .recv_buf_bytes = 212992,
                                      .send_buf_bytes = 212992,
                                      .data_port = 37532 };
    netperf_build_response(got, &req, &resp);
    assert_memory_equal(got, want, NETPERF_MSG_BYTES);

    MSG(want, { 0x00, "00 00 00 63 00 00 00 00 00 00 00 00 00 ff fd 40" },
        { 0x10, "00 03 ff f5 00 03 40 00" }, { 0x30, "40 00 01 ea" }, { 0x70, "ff ff ff ff" });
    struct netperf_results res = { .bytes_received = 16776512,
                                   .recv_calls = 262133,
                                   .recv_buf_bytes = 212992,
                                   .elapsed_s = f32_bits(0x400001ea),
                                   .transport_retrans = -1 };
    netperf_build_results(got, &res);
    assert_memory_equal(got, want, NETPERF_MSG_BYTES);
}

/* A.5: TCP_MAERTS: the server picks 16384-byte sends and reports its bytes sent. */
static void test_a5_maerts(void **state)
{
    (void)state;
    uint8_t m[NETPERF_MSG_BYTES], got[NETPERF_MSG_BYTES], want[NETPERF_MSG_BYTES];
    a1_request(m);
    put_be32(m, 104, 2);
    struct netperf_omni_req req;
    assert_int_equal(netperf_parse_omni(m, &req), 0);
    assert_int_equal(req.test, NETPERF_TCP_MAERTS);
    assert_int_equal(req.send_size, 16384);
    struct netperf_omni_resp resp = { .recv_buf_bytes = 131072, .send_buf_bytes = 16384,
                                      .data_port = 1234 };
    netperf_build_response(got, &req, &resp);
    assert_memory_equal(got + 0x18, "\x00\x00\x40\x00", 4);
    /* send_width as requested (2); receive side unused: echoes the request's -1 and width 0 */
    assert_memory_equal(got + 0x1c, "\x00\x00\x00\x02", 4);
    assert_memory_equal(got + 0x0c, "\xff\xff\xff\xff", 4);

    MSG(want, { 0x00, "00 00 00 63" }, { 0x14, "00 02 00 00" },
        { 0x18, "00 00 00 01 7c 71 00 00" }, { 0x20, "00 05 f1 c4 00 40 00 00" });
    struct netperf_results res = { .bytes_sent = 0x17c710000ull,
                                   .send_calls = 0x5f1c4,
                                   .recv_buf_bytes = 0x20000,
                                   .send_buf_bytes = 0x400000 };
    netperf_build_results(got, &res);
    assert_memory_equal(got, want, NETPERF_MSG_BYTES);
}

/* A.6: TCP_RR with 1-byte requests and responses. */
static void test_a6_tcp_rr(void **state)
{
    (void)state;
    uint8_t m[NETPERF_MSG_BYTES], got[NETPERF_MSG_BYTES];
    a1_request(m);
    put_be32(m, 24, 1);
    put_be32(m, 28, 1);
    put_be32(m, 48, 1);
    put_be32(m, 52, 1);
    put_be32(m, 104, 6);
    struct netperf_omni_req req;
    assert_int_equal(netperf_parse_omni(m, &req), 0);
    assert_int_equal(req.test, NETPERF_TCP_RR);
    assert_int_equal(req.request_size, 1);
    assert_int_equal(req.response_size, 1);
    struct netperf_omni_resp resp = { .recv_buf_bytes = 65535, .send_buf_bytes = 65535,
                                      .flags = NETPERF_FLAG_NODELAY, .data_port = 5000 };
    netperf_build_response(got, &req, &resp);
    assert_memory_equal(got + 0x0c, "\x00\x00\x00\x01\x00\x00\x00\x01", 8); /* recv size, w */
    assert_memory_equal(got + 0x18, "\x00\x00\x00\x01\x00\x00\x00\x01", 8); /* send size, w */
    assert_memory_equal(got + 0x20, "\x00\x00\x00\x01", 4);
    assert_memory_equal(got + 0x34, "\x00\x00\x13\x88", 4);

    /* UDP_RR: same sizes over protocol 17 */
    put_be32(m, 100, 17);
    assert_int_equal(netperf_parse_omni(m, &req), 0);
    assert_int_equal(req.test, NETPERF_UDP_RR);
}

/* TCP_CRR is TCP_RR's request with the connection-test flag, TCP_CC the flag with neither
 * direction (nettest_omni.c, scan_omni_args): both accepted, their sizes checked as RR's where
 * they have any; a UDP connection test is refused. */
static void test_connection_tests(void **state)
{
    (void)state;
    uint8_t m[NETPERF_MSG_BYTES], got[NETPERF_MSG_BYTES];
    struct netperf_omni_req req;
    a1_request(m);
    put_be32(m, 28, 100);
    put_be32(m, 52, 200);
    put_be32(m, 56, NETPERF_FLAG_CONNECT_TEST);
    put_be32(m, 104, 6);
    assert_int_equal(netperf_parse_omni(m, &req), 0);
    assert_int_equal(req.test, NETPERF_TCP_CRR);
    assert_true(netperf_connection_test(req.test));
    assert_int_equal(req.request_size, 100);
    assert_int_equal(req.response_size, 200);
    assert_string_equal(netperf_test_name(req.test), "TCP_CRR");
    struct netperf_omni_resp resp = { .recv_buf_bytes = 65535, .send_buf_bytes = 65535,
                                      .data_port = 5000 };
    netperf_build_response(got, &req, &resp);
    assert_memory_equal(got + 0x0c, "\x00\x00\x00\x64", 4); /* receive size: the request */
    assert_memory_equal(got + 0x18, "\x00\x00\x00\xc8", 4); /* send size: the response */
    put_be32(m, 28, 0);
    assert_int_equal(netperf_parse_omni(m, &req), NETPERF_SERV_EINVAL);

    a1_request(m);
    put_be32(m, 56, NETPERF_FLAG_CONNECT_TEST);
    put_be32(m, 104, 0);
    put_be32(m, 28, 0); /* CC has no sizes: none checked */
    assert_int_equal(netperf_parse_omni(m, &req), 0);
    assert_int_equal(req.test, NETPERF_TCP_CC);
    assert_true(netperf_connection_test(req.test));
    assert_string_equal(netperf_test_name(req.test), "TCP_CC");

    put_be32(m, 100, 17);
    assert_int_equal(netperf_parse_omni(m, &req), NETPERF_SERV_EOPNOTSUPP);
    put_be32(m, 104, 6);
    assert_int_equal(netperf_parse_omni(m, &req), NETPERF_SERV_EOPNOTSUPP);
    assert_false(netperf_connection_test(NETPERF_TCP_RR));
}

/* TCP_CC in netperf 2.7.0 is a classic test: DO_TCP_CC (300) with tcp_cc_request_struct, all
 * words converted; answered with TCP_CC_RESPONSE (301) and TCP_CC_RESULTS (302) laid out as
 * nettest_bsd.h's tcp_cc_response_struct and tcp_cc_results_struct. */
static void test_tcp_cc_classic(void **state)
{
    (void)state;
    uint8_t m[NETPERF_MSG_BYTES], got[NETPERF_MSG_BYTES];
    memset(m, 0, sizeof(m));
    put_be32(m, 0, NETPERF_MSG_DO_TCP_CC);
    put_be32(m, 8, UINT32_MAX); /* recv_buf_size: default */
    put_be32(m, 40, 1);         /* no_delay */
    put_be32(m, 44, 1);         /* measure_cpu */
    put_be32(m, 52, 5);         /* test_length */
    put_be32(m, 64, 12866);     /* port */
    put_be32(m, 68, NETPERF_NF_INET);
    struct netperf_omni_req req;
    assert_int_equal(netperf_parse_tcp_cc(m, &req), 0);
    assert_int_equal(req.test, NETPERF_TCP_CC);
    assert_int_equal(req.test_length, 5);
    assert_int_equal(req.data_port, 12866);
    assert_int_equal(req.flags & (NETPERF_FLAG_NODELAY | NETPERF_FLAG_MEASURE_CPU),
                     NETPERF_FLAG_NODELAY | NETPERF_FLAG_MEASURE_CPU);

    struct netperf_omni_resp resp = { .recv_buf_bytes = 524288, .send_buf_bytes = 262144,
                                      .flags = NETPERF_FLAG_MEASURE_CPU, .data_port = 5000 };
    netperf_build_cc_response(got, &req, &resp);
    assert_memory_equal(got, "\x00\x00\x01\x2d\x00\x00\x00\x00", 8); /* 301, errno 0 */
    assert_memory_equal(got + 8, "\x00\x08\x00\x00" /* recv_buf_size */
                                 "\x00\x00\x00\x00" /* no_delay: not granted here */
                                 "\x00\x00\x00\x01" /* measure_cpu */
                                 "\x00\x00\x00\x05" /* test_length */
                                 "\x00\x04\x00\x00" /* send_buf_size */
                                 "\x00\x00\x13\x88", /* data_port_number */
                        24);

    struct netperf_results res = { .trans_received = 1234, .elapsed_s = 5.0f,
                                   .cpu_reported = true, .cpu_util_pct = 50.0f, .num_cpus = 1 };
    netperf_build_cc_results(got, &res);
    assert_memory_equal(got, "\x00\x00\x01\x2e", 4); /* 302 */
    assert_memory_equal(got + 16, "\x00\x00\x04\xd2", 4); /* trans_received */
    assert_float_equal(f32_bits(get_be32(got, 20)), 5.0f, 0.0f);  /* elapsed_time */
    assert_float_equal(f32_bits(get_be32(got, 24)), 50.0f, 0.0f); /* cpu_util */
    assert_memory_equal(got + 32, "\x00\x00\x00\x01\x00\x00\x00\x01", 8); /* method, cpus */

    put_be32(m, 68, NETPERF_NF_INET6); /* -6: served */
    assert_int_equal(netperf_parse_tcp_cc(m, &req), 0);
    assert_true(req.ipv6);
    put_be32(m, 68, 7); /* RDS */
    assert_int_equal(netperf_parse_tcp_cc(m, &req), NETPERF_SERV_EAFNOSUPPORT);
    put_be32(m, 68, NETPERF_NF_INET);
    put_be32(m, 64, 70000);
    assert_int_equal(netperf_parse_tcp_cc(m, &req), NETPERF_SERV_EINVAL);
}

/* omni -d receive -T udp: the server sends datagrams to netperf_port (and netperf_ip, if the
 * client's socket had one), 65507 bytes unless -m says; larger is refused. */
static void test_udp_sent_by_the_server(void **state)
{
    (void)state;
    uint8_t m[NETPERF_MSG_BYTES], got[NETPERF_MSG_BYTES];
    struct netperf_omni_req req;
    a4_request(m);
    put_be32(m, 104, 2);
    put_be32(m, 12, UINT32_MAX);
    memcpy(m + 120, "\xc6\x12\x00\x02", 4); /* 198.18.0.2, network order */
    assert_int_equal(netperf_parse_omni(m, &req), 0);
    assert_int_equal(req.test, NETPERF_UDP_MAERTS);
    assert_true(netperf_udp_test(req.test));
    assert_int_equal(req.netperf_port, 0xe279);
    assert_int_equal(req.netperf_ip, 0xc6120002u);
    assert_int_equal(req.send_size, 65507);
    assert_string_equal(netperf_test_name(req.test), "UDP_MAERTS");
    struct netperf_omni_resp resp = { .data_port = 5000 };
    netperf_build_response(got, &req, &resp);
    assert_memory_equal(got + 0x18, "\x00\x00\xff\xe3", 4); /* send size */
    put_be32(m, 12, 64);
    assert_int_equal(netperf_parse_omni(m, &req), 0);
    assert_int_equal(req.send_size, 64);
    put_be32(m, 12, 65508);
    assert_int_equal(netperf_parse_omni(m, &req), NETPERF_SERV_EINVAL);
}

/* A.7: -i iterations 2+ ask for the data port of iteration 1. */
static void test_a7_iteration_port(void **state)
{
    (void)state;
    uint8_t m[NETPERF_MSG_BYTES];
    a1_request(m);
    memcpy(m + 88, "\x00\x00\x99\x63", 4);
    struct netperf_omni_req req;
    assert_int_equal(netperf_parse_omni(m, &req), 0);
    assert_int_equal(req.data_port, 39267);
}

/* A.8: with -C the request carries 0x8; the results carry util, method and CPU count. */
static void test_a8_cpu_reported(void **state)
{
    (void)state;
    uint8_t got[NETPERF_MSG_BYTES];
    struct netperf_results res = { .cpu_reported = true, .cpu_util_pct = 12.5f, .num_cpus = 1 };
    netperf_build_results(got, &res);
    assert_memory_equal(got + 52, "\x41\x48\x00\x00", 4);    /* 12.5 */
    assert_memory_equal(got + 80, "\x00\x00\x00\x01", 4);    /* 'I': idle counter */
    assert_memory_equal(got + 84, "\x00\x00\x00\x01", 4);    /* one CPU */
    assert_memory_equal(got + 92, "\x41\x48\x00\x00", 4);    /* peak = the one */
    memset(&res, 0, sizeof(res));
    netperf_build_results(got, &res);
    for (unsigned off = 52; off < 112; off++) {
        assert_int_equal(got[off], 0); /* not reported: all CPU fields zero */
    }
}

/* Everything past the 38 converted words is raw: strings there are never byte-swapped. */
static void test_raw_region_ignored(void **state)
{
    (void)state;
    uint8_t m[NETPERF_MSG_BYTES];
    a1_request(m);
    memcpy(m + 160, "cubic", 5);
    memset(m + 300, 0xFF, 300);
    struct netperf_omni_req req;
    assert_int_equal(netperf_parse_omni(m, &req), 0);
    assert_int_equal(req.test, NETPERF_TCP_STREAM);
}

static void test_rejections(void **state)
{
    (void)state;
    static const struct {
        unsigned off;
        uint32_t value;
        uint32_t want;
    } cases[] = {
        { 92, 5, NETPERF_SERV_EAFNOSUPPORT },     /* no such family */
        { 92, 7, NETPERF_SERV_EAFNOSUPPORT },     /* RDS */
        { 56, 0x24, NETPERF_SERV_EOPNOTSUPP },    /* a stream per connection (no such test) */
        { 100, 132, NETPERF_SERV_EPROTONOSUPPORT }, /* SCTP */
        { 104, 0, NETPERF_SERV_EOPNOTSUPP },      /* neither direction, not TCP_CC */
        { 104, 0x80000004, NETPERF_SERV_EOPNOTSUPP },
        { 88, 65536, NETPERF_SERV_EINVAL },       /* port out of range */
    };
    uint8_t m[NETPERF_MSG_BYTES];
    struct netperf_omni_req req;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        a1_request(m);
        put_be32(m, cases[i].off, cases[i].value);
        assert_int_equal(netperf_parse_omni(m, &req), cases[i].want);
    }
    /* UDP with the server sending and nowhere to send to */
    a4_request(m);
    put_be32(m, 104, 2);
    put_be32(m, 108, 0);
    assert_int_equal(netperf_parse_omni(m, &req), NETPERF_SERV_EINVAL);
    /* RR sizes: zero or over the bound */
    static const uint32_t sizes[][3] = {
        /* protocol, request, response */
        { 6, 0, 1 },       { 6, 1, 0 },      { 6, (1u << 20) + 1, 1 }, { 6, 1, UINT32_MAX },
        { 17, 1, 65508 },  { 17, 1, 0 },
    };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        a1_request(m);
        put_be32(m, 100, sizes[i][0]);
        put_be32(m, 104, 6);
        put_be32(m, 28, sizes[i][1]);
        put_be32(m, 52, sizes[i][2]);
        assert_int_equal(netperf_parse_omni(m, &req), NETPERF_SERV_EINVAL);
    }
    /* ...and the largest legal ones */
    put_be32(m, 100, 17);
    put_be32(m, 28, UINT32_MAX); /* UDP: the request size is the client's business */
    put_be32(m, 52, 65507);
    assert_int_equal(netperf_parse_omni(m, &req), 0);
    put_be32(m, 100, 6);
    put_be32(m, 28, 1u << 20);
    put_be32(m, 52, 1u << 20);
    assert_int_equal(netperf_parse_omni(m, &req), 0);
    /* MAERTS send size over the bound */
    a1_request(m);
    put_be32(m, 104, 2);
    put_be32(m, 12, 5u << 20);
    assert_int_equal(netperf_parse_omni(m, &req), NETPERF_SERV_EINVAL);
    put_be32(m, 12, 1000);
    assert_int_equal(netperf_parse_omni(m, &req), 0);
    assert_int_equal(req.send_size, 1000);
}

/* Unknown types are answered with serv_errno 998 and nothing else. */
static void test_error_message(void **state)
{
    (void)state;
    uint8_t got[NETPERF_MSG_BYTES], want[NETPERF_MSG_BYTES];
    memset(got, 0xAA, sizeof(got));
    netperf_build_error(got, 12345, NETPERF_SERV_EUNKNOWN);
    MSG(want, { 0, "00 00 30 39 00 00 03 e6" });
    assert_memory_equal(got, want, NETPERF_MSG_BYTES);

    netperf_build_cpu_calibrate(got, 0.0f, 1);
    MSG(want, { 0, "00 00 00 05 00 00 00 00 00 00 00 00 00 00 00 01" });
    assert_memory_equal(got, want, NETPERF_MSG_BYTES);
}

/* The control stream arrives in any split; exactly 656 bytes make a message. */
static void test_rx_framing(void **state)
{
    (void)state;
    uint8_t two[2 * NETPERF_MSG_BYTES];
    a1_request(two);
    a4_request(two + NETPERF_MSG_BYTES);
    static const size_t chunks[] = { 1, 7, 100, 1000, 1312 };
    for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
        struct netperf_rx rx = { .len = 0 };
        size_t at = 0, msgs = 0;
        while (at < sizeof(two)) {
            size_t n = chunks[c] < sizeof(two) - at ? chunks[c] : sizeof(two) - at;
            size_t taken = netperf_rx_feed(&rx, two + at, n);
            at += taken;
            if (netperf_rx_whole(&rx)) {
                /* a whole message takes nothing more until it is consumed */
                assert_int_equal(netperf_rx_feed(&rx, two + at, 1), 0);
                assert_memory_equal(rx.buf, two + msgs * NETPERF_MSG_BYTES, NETPERF_MSG_BYTES);
                msgs++;
                rx.len = 0;
            } else {
                assert_int_equal(taken, n);
            }
        }
        assert_int_equal(msgs, 2);
        assert_int_equal(rx.len, 0);
    }
}

/* Random messages: every outcome is "accepted" or a known serv_errno, never a crash. */
static void test_random_requests(void **state)
{
    (void)state;
    srand(42);
    uint8_t m[NETPERF_MSG_BYTES];
    for (int i = 0; i < 20000; i++) {
        a1_request(m);
        for (int k = 0; k < 4; k++) {
            unsigned off = 8 + (unsigned)(rand() % 152);
            m[off] = (uint8_t)rand();
        }
        struct netperf_omni_req req;
        uint32_t err = netperf_parse_omni(m, &req);
        if (err == 0) {
            uint8_t out[NETPERF_MSG_BYTES];
            struct netperf_omni_resp resp = { .recv_buf_bytes = (uint32_t)rand(),
                                              .data_port = 1 };
            netperf_build_response(out, &req, &resp);
            assert_int_equal(netperf_msg_type(out), NETPERF_MSG_OMNI_RESPONSE);
            assert_non_null(netperf_test_name(req.test));
        } else {
            assert_true(err == NETPERF_SERV_EINVAL || err == NETPERF_SERV_EOPNOTSUPP ||
                        err == NETPERF_SERV_EAFNOSUPPORT || err == NETPERF_SERV_EPROTONOSUPPORT);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a1_tcp_stream_request),
        cmocka_unit_test(test_a2_response_bytes),
        cmocka_unit_test(test_a3_results_bytes),
        cmocka_unit_test(test_a4_udp_stream),
        cmocka_unit_test(test_a5_maerts),
        cmocka_unit_test(test_a6_tcp_rr),
        cmocka_unit_test(test_connection_tests),
        cmocka_unit_test(test_tcp_cc_classic),
        cmocka_unit_test(test_udp_sent_by_the_server),
        cmocka_unit_test(test_a7_iteration_port),
        cmocka_unit_test(test_a8_cpu_reported),
        cmocka_unit_test(test_raw_region_ignored),
        cmocka_unit_test(test_rejections),
        cmocka_unit_test(test_error_message),
        cmocka_unit_test(test_rx_framing),
        cmocka_unit_test(test_random_requests),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
