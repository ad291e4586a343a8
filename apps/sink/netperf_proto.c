/*
 * apps/sink/netperf_proto.c: netperf 2.7.0 control messages (see netperf_proto.h). Offsets are
 * absolute byte offsets into the 656-byte message; field layout per nettest_bsd.h 2.7.0.
 */
#include "netperf_proto.h"

#include <string.h>

/* Words converted to network order by the sender (2 header words + N body words). */
#define NP_REQ_BE_BYTES (4 * (2 + 38))
#define NP_RESP_BE_BYTES (4 * (2 + 18))
#define NP_RES_BE_BYTES (4 * (2 + 27))

/* DO_OMNI request (omni_request_struct). */
#define NP_REQ_SEND_SIZE 12
#define NP_REQ_SEND_WIDTH 24
#define NP_REQ_REQUEST_SIZE 28
#define NP_REQ_RECEIVE_SIZE 36
#define NP_REQ_RECV_WIDTH 48
#define NP_REQ_RESPONSE_SIZE 52
#define NP_REQ_FLAGS 56
#define NP_REQ_TEST_LENGTH 64
#define NP_REQ_DATA_PORT 88
#define NP_REQ_NETPERF_PORT 108
#define NP_REQ_NETPERF_IP 120
#define NP_REQ_IPFAMILY 92
#define NP_REQ_PROTOCOL 100
#define NP_REQ_DIRECTION 104
#define NP_REQ_SOCKET_PRIO 152
#define NP_REQ_SOCKET_TOS 156

/* OMNI_RESPONSE (omni_response_struct). */
#define NP_RESP_RECV_BUF 8
#define NP_RESP_RECEIVE_SIZE 12
#define NP_RESP_RECV_WIDTH 16
#define NP_RESP_SEND_BUF 20
#define NP_RESP_SEND_SIZE 24
#define NP_RESP_SEND_WIDTH 28
#define NP_RESP_FLAGS 32
#define NP_RESP_DATA_PORT 52
#define NP_RESP_SOCKET_PRIO 72
#define NP_RESP_SOCKET_TOS 76

/* Results (omni_results_struct). */
#define NP_RES_BYTES_RX_HI 8
#define NP_RES_BYTES_RX_LO 12
#define NP_RES_RECV_CALLS 16
#define NP_RES_RECV_BUF 20
#define NP_RES_BYTES_TX_HI 24
#define NP_RES_BYTES_TX_LO 28
#define NP_RES_SEND_CALLS 32
#define NP_RES_SEND_BUF 36
#define NP_RES_TRANS 44
#define NP_RES_ELAPSED 48
#define NP_RES_CPU_UTIL 52
#define NP_RES_CPU_METHOD 80
#define NP_RES_NUM_CPUS 84
#define NP_RES_PEAK_CPU_UTIL 92
#define NP_RES_TRANSPORT_RETRANS 112
#define NP_RES_CONG_CONTROL 276 /* char[16], raw */
#define NP_RES_CONG_CONTROL_BYTES 16

/* TCP_CC's classic messages (nettest_bsd.h tcp_cc_*_struct): every body word converted. */
#define NP_CC_REQ_NO_DELAY 40
#define NP_CC_REQ_MEASURE_CPU 44
#define NP_CC_REQ_TEST_LENGTH 52
#define NP_CC_REQ_PORT 64
#define NP_CC_REQ_IPFAMILY 68
#define NP_CC_RESP_RECV_BUF 8
#define NP_CC_RESP_NO_DELAY 12
#define NP_CC_RESP_MEASURE_CPU 16
#define NP_CC_RESP_TEST_LENGTH 20
#define NP_CC_RESP_SEND_BUF 24
#define NP_CC_RESP_DATA_PORT 28
#define NP_CC_RES_BYTES_RX 8
#define NP_CC_RES_RECV_CALLS 12
#define NP_CC_RES_TRANS 16
#define NP_CC_RES_ELAPSED 20
#define NP_CC_RES_CPU_UTIL 24
#define NP_CC_RES_SERV_DEM 28
#define NP_CC_RES_CPU_METHOD 32
#define NP_CC_RES_NUM_CPUS 36

/* netlib.h: cpu_method 1 = HP_IDLE_COUNTER, printed 'I': utilization from idle time. */
#define NP_CPU_METHOD_IDLE_COUNTER 1

/* The last converted word of each message, and the raw strings after them. */
_Static_assert(NP_REQ_SOCKET_TOS + 4 == NP_REQ_BE_BYTES, "request: 38 converted body words");
_Static_assert(NP_RESP_SOCKET_TOS + 4 == NP_RESP_BE_BYTES, "response: 18 converted body words");
_Static_assert(NP_RES_TRANSPORT_RETRANS + 4 == NP_RES_BE_BYTES, "results: 27 converted words");
_Static_assert(NP_RES_CONG_CONTROL >= NP_RES_BE_BYTES &&
                   NP_RES_CONG_CONTROL + NP_RES_CONG_CONTROL_BYTES <= NETPERF_MSG_BYTES,
               "results strings lie in the raw region");

static uint32_t np_get32(const uint8_t *m, unsigned off)
{
    return (uint32_t)m[off] << 24 | (uint32_t)m[off + 1] << 16 | (uint32_t)m[off + 2] << 8 |
           m[off + 3];
}

static void np_put32(uint8_t *m, unsigned off, uint32_t v)
{
    m[off] = (uint8_t)(v >> 24);
    m[off + 1] = (uint8_t)(v >> 16);
    m[off + 2] = (uint8_t)(v >> 8);
    m[off + 3] = (uint8_t)v;
}

/* An f32 travels as its IEEE-754 bit pattern in a converted word. */
static void np_putf(uint8_t *m, unsigned off, float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof(bits));
    np_put32(m, off, bits);
}

static void np_header(uint8_t *out, uint32_t type, uint32_t serv_errno)
{
    memset(out, 0, NETPERF_MSG_BYTES);
    np_put32(out, 0, type);
    np_put32(out, 4, serv_errno);
}

size_t netperf_rx_feed(struct netperf_rx *rx, const void *data, size_t n)
{
    size_t room = NETPERF_MSG_BYTES - rx->len;
    size_t take = n < room ? n : room;
    memcpy(rx->buf + rx->len, data, take);
    rx->len = (uint16_t)(rx->len + take);
    return take;
}

uint32_t netperf_msg_type(const uint8_t msg[NETPERF_MSG_BYTES])
{
    return np_get32(msg, 0);
}

/* The test from protocol, the server's direction and whether each transaction is a
 * connection of its own; the serv_errno if unsupported. */
static uint32_t np_pick_test(uint32_t protocol, uint32_t direction, bool connect,
                             enum netperf_test *t)
{
    const uint32_t both = NETPERF_DIR_XMIT | NETPERF_DIR_RECV;
    if (protocol == NETPERF_IPPROTO_TCP && connect) {
        if (direction == both) {
            *t = NETPERF_TCP_CRR;
        } else if (direction == 0) {
            *t = NETPERF_TCP_CC; /* connect and close, no data */
        } else {
            return NETPERF_SERV_EOPNOTSUPP; /* a stream per connection: not a netperf test */
        }
        return 0;
    }
    if (protocol == NETPERF_IPPROTO_TCP) {
        if (direction == NETPERF_DIR_RECV) {
            *t = NETPERF_TCP_STREAM;
        } else if (direction == NETPERF_DIR_XMIT) {
            *t = NETPERF_TCP_MAERTS;
        } else if (direction == both) {
            *t = NETPERF_TCP_RR;
        } else {
            return NETPERF_SERV_EOPNOTSUPP; /* neither direction without a connection test */
        }
        return 0;
    }
    if (protocol == NETPERF_IPPROTO_UDP && !connect) {
        if (direction == NETPERF_DIR_RECV) {
            *t = NETPERF_UDP_STREAM;
        } else if (direction == both) {
            *t = NETPERF_UDP_RR;
        } else if (direction == NETPERF_DIR_XMIT) {
            *t = NETPERF_UDP_MAERTS;
        } else {
            return NETPERF_SERV_EOPNOTSUPP;
        }
        return 0;
    }
    return protocol == NETPERF_IPPROTO_UDP ? NETPERF_SERV_EOPNOTSUPP
                                           : NETPERF_SERV_EPROTONOSUPPORT;
}

/* RR sizes: a request and a response of at least one byte, bounded per protocol. */
static uint32_t np_check_rr(struct netperf_omni_req *req, uint32_t rq, uint32_t rs)
{
    uint32_t max = req->test == NETPERF_UDP_RR ? NETPERF_UDP_MAX_BYTES : NETPERF_TCP_RR_MAX_BYTES;
    /* UDP: the server answers each datagram, whatever its size; only the answer is ours. */
    if (req->test != NETPERF_UDP_RR && (rq == 0 || rq > max)) {
        return NETPERF_SERV_EINVAL;
    }
    if (rs == 0 || rs > max) {
        return NETPERF_SERV_EINVAL;
    }
    req->request_size = rq;
    req->response_size = rs;
    return 0;
}

/* np_family_ok: netperf's address family codes (nettest_bsd.h nf_to_af): unspecified, IPv4,
 * IPv6; the sink listens on both. */
static bool np_family_ok(uint32_t family)
{
    return family == NETPERF_NF_UNSPEC || family == NETPERF_NF_INET ||
           family == NETPERF_NF_INET6;
}

uint32_t netperf_parse_omni(const uint8_t msg[NETPERF_MSG_BYTES], struct netperf_omni_req *req)
{
    memset(req, 0, sizeof(*req));
    uint32_t family = np_get32(msg, NP_REQ_IPFAMILY);
    if (!np_family_ok(family)) {
        return NETPERF_SERV_EAFNOSUPPORT;
    }
    req->ipv6 = family == NETPERF_NF_INET6;
    req->flags = np_get32(msg, NP_REQ_FLAGS);
    uint32_t err = np_pick_test(np_get32(msg, NP_REQ_PROTOCOL), np_get32(msg, NP_REQ_DIRECTION),
                                (req->flags & NETPERF_FLAG_CONNECT_TEST) != 0, &req->test);
    if (err != 0) {
        return err;
    }
    if (req->test == NETPERF_TCP_RR || req->test == NETPERF_UDP_RR ||
        req->test == NETPERF_TCP_CRR) {
        err = np_check_rr(req, np_get32(msg, NP_REQ_REQUEST_SIZE),
                          np_get32(msg, NP_REQ_RESPONSE_SIZE));
        if (err != 0) {
            return err;
        }
    }
    req->send_size = np_get32(msg, NP_REQ_SEND_SIZE);
    if (req->test == NETPERF_UDP_MAERTS) {
        uint32_t to = np_get32(msg, NP_REQ_NETPERF_PORT);
        if (to == 0 || to > 65535) {
            return NETPERF_SERV_EINVAL; /* nowhere to send to */
        }
        req->netperf_port = (uint16_t)to;
        req->netperf_ip = np_get32(msg, NP_REQ_NETPERF_IP);
        if (req->send_size == UINT32_MAX || req->send_size == 0) {
            req->send_size = NETPERF_UDP_MAX_BYTES;
        } else if (req->send_size > NETPERF_UDP_MAX_BYTES) {
            return NETPERF_SERV_EINVAL;
        }
    }
    if (req->test == NETPERF_TCP_MAERTS) {
        if (req->send_size == UINT32_MAX || req->send_size == 0) {
            req->send_size = NETPERF_MAERTS_SEND_BYTES;
        } else if (req->send_size > NETPERF_TCP_RR_MAX_BYTES) {
            return NETPERF_SERV_EINVAL;
        }
    }
    uint32_t port = np_get32(msg, NP_REQ_DATA_PORT);
    if (port > 65535) {
        return NETPERF_SERV_EINVAL;
    }
    req->data_port = (uint16_t)port;
    req->test_length = (int32_t)np_get32(msg, NP_REQ_TEST_LENGTH);
    req->receive_size = np_get32(msg, NP_REQ_RECEIVE_SIZE);
    req->send_width = np_get32(msg, NP_REQ_SEND_WIDTH);
    req->recv_width = np_get32(msg, NP_REQ_RECV_WIDTH);
    req->socket_prio = (int32_t)np_get32(msg, NP_REQ_SOCKET_PRIO);
    req->socket_tos = (int32_t)np_get32(msg, NP_REQ_SOCKET_TOS);
    return 0;
}

uint32_t netperf_parse_tcp_cc(const uint8_t msg[NETPERF_MSG_BYTES], struct netperf_omni_req *req)
{
    memset(req, 0, sizeof(*req));
    uint32_t family = np_get32(msg, NP_CC_REQ_IPFAMILY);
    if (!np_family_ok(family)) {
        return NETPERF_SERV_EAFNOSUPPORT;
    }
    req->ipv6 = family == NETPERF_NF_INET6;
    uint32_t port = np_get32(msg, NP_CC_REQ_PORT);
    if (port > 65535) {
        return NETPERF_SERV_EINVAL;
    }
    req->test = NETPERF_TCP_CC;
    req->data_port = (uint16_t)port;
    req->test_length = (int32_t)np_get32(msg, NP_CC_REQ_TEST_LENGTH);
    req->flags = (np_get32(msg, NP_CC_REQ_NO_DELAY) ? NETPERF_FLAG_NODELAY : 0) |
                 (np_get32(msg, NP_CC_REQ_MEASURE_CPU) ? NETPERF_FLAG_MEASURE_CPU : 0) |
                 NETPERF_FLAG_CONNECT_TEST;
    return 0;
}

void netperf_build_cc_response(uint8_t out[NETPERF_MSG_BYTES], const struct netperf_omni_req *req,
                               const struct netperf_omni_resp *resp)
{
    np_header(out, NETPERF_MSG_TCP_CC_RESPONSE, 0);
    np_put32(out, NP_CC_RESP_RECV_BUF, resp->recv_buf_bytes);
    np_put32(out, NP_CC_RESP_NO_DELAY, (resp->flags & NETPERF_FLAG_NODELAY) ? 1 : 0);
    np_put32(out, NP_CC_RESP_MEASURE_CPU, (resp->flags & NETPERF_FLAG_MEASURE_CPU) ? 1 : 0);
    np_put32(out, NP_CC_RESP_TEST_LENGTH, (uint32_t)req->test_length);
    np_put32(out, NP_CC_RESP_SEND_BUF, resp->send_buf_bytes);
    np_put32(out, NP_CC_RESP_DATA_PORT, resp->data_port);
    /* cpu_rate 0.0 (no calibration: idle counter), no copy avoidance */
}

void netperf_build_cc_results(uint8_t out[NETPERF_MSG_BYTES], const struct netperf_results *res)
{
    np_header(out, NETPERF_MSG_TCP_CC_RESULTS, 0);
    np_put32(out, NP_CC_RES_BYTES_RX, (uint32_t)res->bytes_received);
    np_put32(out, NP_CC_RES_RECV_CALLS, res->recv_calls);
    np_put32(out, NP_CC_RES_TRANS, res->trans_received);
    np_putf(out, NP_CC_RES_ELAPSED, res->elapsed_s);
    np_putf(out, NP_CC_RES_CPU_UTIL, res->cpu_reported ? res->cpu_util_pct : -1.0f);
    np_putf(out, NP_CC_RES_SERV_DEM, -1.0f); /* the client computes service demand itself */
    np_put32(out, NP_CC_RES_CPU_METHOD, res->cpu_reported ? NP_CPU_METHOD_IDLE_COUNTER : 0);
    np_put32(out, NP_CC_RES_NUM_CPUS, res->cpu_reported ? res->num_cpus : 1);
}

/* netserver's buffer-ring width: as requested, else buffer / size + 1 and at least 2. */
static uint32_t np_width(uint32_t requested, uint32_t buf_bytes, uint32_t size)
{
    if (requested != 0) {
        return requested;
    }
    uint32_t w = (size ? buf_bytes / size : 0) + 1;
    return w < 2 ? 2 : w;
}

void netperf_build_response(uint8_t out[NETPERF_MSG_BYTES], const struct netperf_omni_req *req,
                            const struct netperf_omni_resp *resp)
{
    bool rr = req->test == NETPERF_TCP_RR || req->test == NETPERF_UDP_RR ||
              req->test == NETPERF_TCP_CRR;
    bool maerts = req->test == NETPERF_TCP_MAERTS || req->test == NETPERF_UDP_MAERTS;
    bool sends = rr || maerts;
    bool receives = !maerts && req->test != NETPERF_TCP_CC;
    /* The sizes and widths say how netserver would size its buffers; the client only shows
     * them. A side the server does not use echoes the request (e.g. send_size -1). */
    uint32_t send_size = req->send_size, send_width = req->send_width;
    if (sends) {
        send_size = rr ? req->response_size : req->send_size;
        send_width = rr ? (req->send_width ? req->send_width : 1)
                        : np_width(req->send_width, resp->send_buf_bytes, send_size);
    }
    uint32_t recv_size = req->receive_size, recv_width = req->recv_width;
    if (receives) {
        if (rr) {
            recv_size = req->request_size;
            recv_width = req->recv_width ? req->recv_width : 1;
        } else {
            if (recv_size == UINT32_MAX) {
                recv_size = resp->recv_buf_bytes ? resp->recv_buf_bytes : 4096;
            }
            recv_width = np_width(req->recv_width, resp->recv_buf_bytes, recv_size);
        }
    }
    np_header(out, NETPERF_MSG_OMNI_RESPONSE, 0);
    np_put32(out, NP_RESP_RECV_BUF, resp->recv_buf_bytes);
    np_put32(out, NP_RESP_RECEIVE_SIZE, recv_size);
    np_put32(out, NP_RESP_RECV_WIDTH, recv_width);
    np_put32(out, NP_RESP_SEND_BUF, resp->send_buf_bytes);
    np_put32(out, NP_RESP_SEND_SIZE, send_size);
    np_put32(out, NP_RESP_SEND_WIDTH, send_width);
    np_put32(out, NP_RESP_FLAGS, resp->flags);
    np_put32(out, NP_RESP_DATA_PORT, resp->data_port);
    np_put32(out, NP_RESP_SOCKET_PRIO, (uint32_t)req->socket_prio);
    np_put32(out, NP_RESP_SOCKET_TOS, (uint32_t)req->socket_tos);
    /* cpu_rate 0.0, test_length 0, system/cpu model strings empty: the client ignores them */
}

void netperf_build_results(uint8_t out[NETPERF_MSG_BYTES], const struct netperf_results *res)
{
    /* Type 99 in network order, not netserver's double-swapped 98: the client never reads it.
     * Fields netserver leaves stale (quirk B) are zero here. */
    np_header(out, NETPERF_MSG_OMNI_RESULTS, 0);
    np_put32(out, NP_RES_BYTES_RX_HI, (uint32_t)(res->bytes_received >> 32));
    np_put32(out, NP_RES_BYTES_RX_LO, (uint32_t)res->bytes_received);
    np_put32(out, NP_RES_RECV_CALLS, res->recv_calls);
    np_put32(out, NP_RES_RECV_BUF, res->recv_buf_bytes);
    np_put32(out, NP_RES_BYTES_TX_HI, (uint32_t)(res->bytes_sent >> 32));
    np_put32(out, NP_RES_BYTES_TX_LO, (uint32_t)res->bytes_sent);
    np_put32(out, NP_RES_SEND_CALLS, res->send_calls);
    np_put32(out, NP_RES_SEND_BUF, res->send_buf_bytes);
    np_put32(out, NP_RES_TRANS, res->trans_received);
    np_putf(out, NP_RES_ELAPSED, res->elapsed_s);
    if (res->cpu_reported) {
        np_putf(out, NP_RES_CPU_UTIL, res->cpu_util_pct);
        np_put32(out, NP_RES_CPU_METHOD, NP_CPU_METHOD_IDLE_COUNTER);
        np_put32(out, NP_RES_NUM_CPUS, res->num_cpus);
        np_putf(out, NP_RES_PEAK_CPU_UTIL, res->cpu_util_pct);
    }
    np_put32(out, NP_RES_TRANSPORT_RETRANS, (uint32_t)res->transport_retrans);
    if (res->cong_control != NULL) {
        /* raw bytes past the converted words; always NUL-terminated */
        size_t n = strlen(res->cong_control);
        if (n > NP_RES_CONG_CONTROL_BYTES - 1) {
            n = NP_RES_CONG_CONTROL_BYTES - 1;
        }
        memcpy(out + NP_RES_CONG_CONTROL, res->cong_control, n);
    }
}

void netperf_build_error(uint8_t out[NETPERF_MSG_BYTES], uint32_t type, uint32_t serv_errno)
{
    np_header(out, type, serv_errno);
}

void netperf_build_cpu_calibrate(uint8_t out[NETPERF_MSG_BYTES], float rate, uint32_t ncpus)
{
    /* netserver copies the float and the count into the body and converts every word */
    np_header(out, NETPERF_MSG_CPU_CALIBRATE, 0);
    np_putf(out, 8, rate);
    np_put32(out, 12, ncpus);
}

const char *netperf_test_name(enum netperf_test t)
{
    switch (t) {
    case NETPERF_TCP_STREAM:
        return "TCP_STREAM";
    case NETPERF_TCP_MAERTS:
        return "TCP_MAERTS";
    case NETPERF_TCP_RR:
        return "TCP_RR";
    case NETPERF_UDP_STREAM:
        return "UDP_STREAM";
    case NETPERF_UDP_RR:
        return "UDP_RR";
    case NETPERF_TCP_CRR:
        return "TCP_CRR";
    case NETPERF_TCP_CC:
        return "TCP_CC";
    case NETPERF_UDP_MAERTS:
        return "UDP_MAERTS";
    }
    return "?";
}
