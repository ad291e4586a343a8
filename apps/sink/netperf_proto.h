/*
 * apps/sink/netperf_proto.h: netperf 2.7.0's control messages, the pure part of the
 * netserver personality (no lwIP, host-tested in tests/unit/test_netperf_proto.c).
 * Spec: docs/netperf-iperf3-protocol.md section 1; the truth is netperf 2.7.0's
 * nettest_bsd.h (omni_*_struct) and netlib.c (send_response_n, recv_request_n).
 *
 * Every message is exactly 656 bytes: a type word, a serv_errno (or CPU affinity) word and 162
 * body words. The sender byte-swaps only the two header words and the first N body words
 * (N = 38 request, 18 response, 27 results); the rest (strings) travels in its own order.
 */
#ifndef WS_NETPERF_PROTO_H
#define WS_NETPERF_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NETPERF_MSG_BYTES 656

/* Message types (netlib.h). */
#define NETPERF_MSG_CPU_CALIBRATE 5
#define NETPERF_MSG_PASSPHRASE 6 /* netserver without -Z ignores it: never answered */
#define NETPERF_MSG_DO_OMNI 97
#define NETPERF_MSG_OMNI_RESPONSE 98
#define NETPERF_MSG_OMNI_RESULTS 99
/* netperf 2.7.0 runs TCP_CC with the classic protocol (not migrated to omni). */
#define NETPERF_MSG_DO_TCP_CC 300
#define NETPERF_MSG_TCP_CC_RESPONSE 301
#define NETPERF_MSG_TCP_CC_RESULTS 302

/* serv_errno values. The client prints "netperf: remote error N" plus strerror(N) of its own
 * (Linux) errno table, so these are Linux numbers, not newlib's. */
#define NETPERF_SERV_EUNKNOWN 998 /* unknown request type, as netserver answers */
#define NETPERF_SERV_ENOMEM 12
#define NETPERF_SERV_EINVAL 22
#define NETPERF_SERV_EPROTONOSUPPORT 93
#define NETPERF_SERV_EOPNOTSUPP 95
#define NETPERF_SERV_EAFNOSUPPORT 97
#define NETPERF_SERV_EADDRINUSE 98
#define NETPERF_SERV_ENOBUFS 105

/* DO_OMNI request flags (nettest_bsd.h OMNI_*); only these change what the sink does. */
#define NETPERF_FLAG_NODELAY 0x1u
#define NETPERF_FLAG_CONNECT_TEST 0x4u /* TCP_CRR/TCP_CC: a new connection per transaction */
#define NETPERF_FLAG_MEASURE_CPU 0x8u
#define NETPERF_FLAG_WANT_REM_CONG 0x20u /* also "routing allowed"; asks for cong_control */

/* direction: the server's role (NETPERF_XMIT/NETPERF_RECV). */
#define NETPERF_DIR_XMIT 2u
#define NETPERF_DIR_RECV 4u

#define NETPERF_NF_UNSPEC 0u
#define NETPERF_NF_INET 4u
#define NETPERF_NF_INET6 6u
#define NETPERF_IPPROTO_TCP 6u
#define NETPERF_IPPROTO_UDP 17u

#define NETPERF_MAERTS_SEND_BYTES 16384u    /* netserver's send size when the request says -1 */
#define NETPERF_TCP_RR_MAX_BYTES (1u << 20) /* our bound on one TCP request or response */
#define NETPERF_UDP_MAX_BYTES 65507u        /* largest UDP payload over IPv4; also what
                                             * netserver sends when the client leaves it */
#define NETPERF_PAD_S 4                     /* netserver's PAD_TIME: receive-side slack */

/* The test a DO_OMNI asks for, from protocol and direction. */
enum netperf_test {
    NETPERF_TCP_STREAM, /* server receives */
    NETPERF_TCP_MAERTS, /* server sends */
    NETPERF_TCP_RR,     /* request/response over one connection */
    NETPERF_UDP_STREAM, /* server receives datagrams; a zero-length one ends the test */
    NETPERF_UDP_RR,     /* one response datagram per request datagram */
    NETPERF_TCP_CRR,    /* per connection: one request, one response, the server closes */
    NETPERF_TCP_CC,     /* per connection: no data, the server closes */
    NETPERF_UDP_MAERTS, /* server sends datagrams to the client (omni -d receive -T udp) */
};

static inline bool netperf_udp_test(enum netperf_test t)
{
    return t == NETPERF_UDP_STREAM || t == NETPERF_UDP_RR || t == NETPERF_UDP_MAERTS;
}

/* netperf_connection_test: a test whose every transaction is a connection of its own. */
static inline bool netperf_connection_test(enum netperf_test t)
{
    return t == NETPERF_TCP_CRR || t == NETPERF_TCP_CC;
}

/* The fields of a DO_OMNI request the sink acts on (or echoes), in host order. */
struct netperf_omni_req {
    enum netperf_test test;
    uint32_t flags;
    int32_t test_length;    /* > 0 seconds; < 0: -(bytes or transactions); 0: until the end */
    uint32_t request_size;  /* RR: bytes per request (validated for TCP) */
    uint32_t response_size; /* RR: bytes per response (validated) */
    uint32_t send_size;     /* MAERTS: bytes per send, 16384 when the client left it to us */
    uint32_t receive_size;  /* as requested (0xffffffff: server chooses) */
    uint32_t send_width, recv_width;
    uint16_t data_port; /* 0: any; else the port to try first (-i iterations reuse it) */
    uint16_t netperf_port; /* UDP_MAERTS: the client's data port, where datagrams go */
    uint32_t netperf_ip;   /* UDP_MAERTS: its IPv4 address as the client saw it (a.b.c.d =
                            * 0xaabbccdd; 0.0.0.0 when its socket was not bound to one) */
    bool ipv6;             /* the client asked for IPv6 (-6): UDP_MAERTS answers the control
                            * connection's peer, netperf_ip is not read */
    int32_t socket_prio, socket_tos; /* echoed */
};

/* What the server reports in its OMNI_RESPONSE. */
struct netperf_omni_resp {
    uint32_t recv_buf_bytes; /* receive window / buffer, shown as "Recv Socket Size" */
    uint32_t send_buf_bytes; /* send buffer, shown as "Send Socket Size" */
    uint32_t flags;          /* NETPERF_FLAG_NODELAY if honoured, _MEASURE_CPU if reported */
    uint16_t data_port;      /* where the client connects or sends: never 0 */
};

/* What the server reports in its results, once per test. */
struct netperf_results {
    uint64_t bytes_received, bytes_sent;
    uint32_t recv_calls; /* UDP: datagrams (end markers not counted) */
    uint32_t send_calls;
    uint32_t trans_received;
    uint32_t recv_buf_bytes, send_buf_bytes;
    float elapsed_s;
    bool cpu_reported;  /* only if the response carried NETPERF_FLAG_MEASURE_CPU */
    float cpu_util_pct; /* > 0 when reported: the client substitutes its own on 0.0 */
    uint32_t num_cpus;
    int32_t transport_retrans; /* -1 for UDP, as netserver sends */
    const char *cong_control;  /* NULL or up to 15 characters, sent raw */
};

/* Control-stream framing: bytes accumulate until one 656-byte message is whole. */
struct netperf_rx {
    uint8_t buf[NETPERF_MSG_BYTES];
    uint16_t len;
};

/* netperf_rx_feed: take up to the rest of one message from data[0..n); returns the bytes
 * taken (0 when a whole message is already waiting to be consumed). */
size_t netperf_rx_feed(struct netperf_rx *rx, const void *data, size_t n);

static inline bool netperf_rx_whole(const struct netperf_rx *rx)
{
    return rx->len == NETPERF_MSG_BYTES;
}

/* netperf_msg_type: the request type word of a whole message. */
uint32_t netperf_msg_type(const uint8_t msg[NETPERF_MSG_BYTES]);

/* netperf_parse_omni: decode and validate a DO_OMNI. Returns 0, or the serv_errno to answer
 * with: unsupported family, protocol or direction (a connection test is TCP_CRR or TCP_CC
 * only), or sizes out of bounds. */
uint32_t netperf_parse_omni(const uint8_t msg[NETPERF_MSG_BYTES], struct netperf_omni_req *req);

/* netperf_parse_tcp_cc: decode a DO_TCP_CC (tcp_cc_request_struct) into the omni form:
 * test NETPERF_TCP_CC, test_length, data_port, NODELAY/MEASURE_CPU as asked. Returns 0 or
 * the serv_errno to answer with (family, port). */
uint32_t netperf_parse_tcp_cc(const uint8_t msg[NETPERF_MSG_BYTES], struct netperf_omni_req *req);

/* netperf_build_cc_response, netperf_build_cc_results: TCP_CC's classic answers, with what the
 * omni ones would carry. */
void netperf_build_cc_response(uint8_t out[NETPERF_MSG_BYTES], const struct netperf_omni_req *req,
                               const struct netperf_omni_resp *resp);
void netperf_build_cc_results(uint8_t out[NETPERF_MSG_BYTES], const struct netperf_results *res);

/* netperf_build_response: the OMNI_RESPONSE for a request the server accepted. */
void netperf_build_response(uint8_t out[NETPERF_MSG_BYTES], const struct netperf_omni_req *req,
                            const struct netperf_omni_resp *resp);

/* netperf_build_results: the results message (type 99, serv_errno 0). */
void netperf_build_results(uint8_t out[NETPERF_MSG_BYTES], const struct netperf_results *res);

/* netperf_build_error: a message of `type` carrying only serv_errno (netserver's answer to an
 * unknown type is 998, with the connection kept open). */
void netperf_build_error(uint8_t out[NETPERF_MSG_BYTES], uint32_t type, uint32_t serv_errno);

/* netperf_build_cpu_calibrate: the CPU_CALIBRATE answer: f32 rate and CPU count. */
void netperf_build_cpu_calibrate(uint8_t out[NETPERF_MSG_BYTES], float rate, uint32_t ncpus);

/* netperf_test_name: "TCP_STREAM", ... for messages. */
const char *netperf_test_name(enum netperf_test t);

#endif
