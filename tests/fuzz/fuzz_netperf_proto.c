/*
 * tests/fuzz/fuzz_netperf_proto.c: libFuzzer harness for the netperf server's control messages,
 * apps/sink/netperf_proto.c. The input is what a client sends on the control connection; byte 0
 * picks the size of the pieces it arrives in (1..256 bytes), as TCP may split or join them.
 *
 * Every piece goes through netperf_rx_feed; each whole 656-byte message is then handled as
 * apps/sink/netperf.c does: a DO_OMNI (or a classic DO_TCP_CC) is parsed and, if accepted,
 * answered with a response; a results message is built from numbers taken from the message.
 *
 * Invariants: rx_feed takes min(n, room), never more than 656 bytes buffered, the messages
 * come out exactly as sent; parse returns 0 or one of the five serv_errnos, and 0 only for what
 * a reference reading of the raw words accepts (family 0/4/6; TCP or UDP 2/4/6 directions, or
 * a TCP connection test with 0 or 6; RR sizes and the MAERTS send size in bounds; port <=
 * 65535), with the
 * fields equal to those words; responses, results and errors fill exactly 656 bytes with the
 * header and fields in network order and nothing but zeros past the converted words.
 */
#include <stdbool.h>

#include "apps/sink/netperf_proto.h"
#include "tests/fuzz/fuzz.h"

FUZZ_UNTRACED static uint32_t fn_word(const uint8_t *m, unsigned off)
{
    return (uint32_t)m[off] << 24 | (uint32_t)m[off + 1] << 16 | (uint32_t)m[off + 2] << 8 |
           m[off + 3];
}

/* The reference: would netserver-as-we-built-it accept this request? */
FUZZ_UNTRACED static bool fn_acceptable(const uint8_t *m)
{
    uint32_t family = fn_word(m, 92), flags = fn_word(m, 56), proto = fn_word(m, 100);
    uint32_t dir = fn_word(m, 104), rq = fn_word(m, 28), rs = fn_word(m, 52);
    uint32_t send = fn_word(m, 12), port = fn_word(m, 88);
    if ((family != 0 && family != 4 && family != 6) || port > 65535) {
        return false;
    }
    bool rr_sizes = rq >= 1 && rq <= (1u << 20) && rs >= 1 && rs <= (1u << 20);
    if (flags & 4) { /* connection tests: TCP_CRR, or TCP_CC with neither direction */
        return proto == 6 && (dir == 0 || (dir == 6 && rr_sizes));
    }
    if (proto == 6) {
        if (dir == 6) {
            return rr_sizes;
        }
        if (dir == 2) {
            return send == UINT32_MAX || send <= (1u << 20);
        }
        return dir == 4;
    }
    if (proto == 17) {
        uint32_t to = fn_word(m, 108); /* UDP sent by the server: to the client's port */
        return dir == 4 || (dir == 6 && rs >= 1 && rs <= 65507) ||
               (dir == 2 && to >= 1 && to <= 65535 && (send == UINT32_MAX || send <= 65507));
    }
    return false;
}

FUZZ_UNTRACED static void fn_zero_from(const uint8_t *m, unsigned off)
{
    for (unsigned i = off; i < NETPERF_MSG_BYTES; i++) {
        FUZZ_CHECK(m[i] == 0);
    }
}

static void fn_check_omni(const uint8_t *msg)
{
    struct netperf_omni_req req;
    uint32_t err = netperf_parse_omni(msg, &req);
    bool ok = fn_acceptable(msg);
    FUZZ_CHECK((err == 0) == ok);
    if (err != 0) {
        FUZZ_CHECK(err == NETPERF_SERV_EINVAL || err == NETPERF_SERV_EOPNOTSUPP ||
                   err == NETPERF_SERV_EAFNOSUPPORT || err == NETPERF_SERV_EPROTONOSUPPORT);
        return;
    }
    FUZZ_CHECK(req.ipv6 == (fn_word(msg, 92) == 6));
    bool udp = fn_word(msg, 100) == 17, rr = fn_word(msg, 104) == 6;
    bool connect = fn_word(msg, 56) & 4;
    FUZZ_CHECK(netperf_connection_test(req.test) == connect);
    if (connect) {
        FUZZ_CHECK(req.test == (rr ? NETPERF_TCP_CRR : NETPERF_TCP_CC));
    } else {
        bool sends = fn_word(msg, 104) == 2;
        FUZZ_CHECK(req.test == (udp ? (rr      ? NETPERF_UDP_RR
                                       : sends ? NETPERF_UDP_MAERTS
                                               : NETPERF_UDP_STREAM)
                                    : rr    ? NETPERF_TCP_RR
                                    : sends ? NETPERF_TCP_MAERTS
                                            : NETPERF_TCP_STREAM));
    }
    FUZZ_CHECK(req.flags == fn_word(msg, 56));
    FUZZ_CHECK(req.test_length == (int32_t)fn_word(msg, 64));
    FUZZ_CHECK(req.data_port == fn_word(msg, 88));
    if (rr) {
        FUZZ_CHECK(req.response_size >= 1);
        FUZZ_CHECK(req.response_size <= (udp ? NETPERF_UDP_MAX_BYTES : NETPERF_TCP_RR_MAX_BYTES));
    }
    if (req.test == NETPERF_TCP_MAERTS) {
        FUZZ_CHECK(req.send_size >= 1 && req.send_size <= NETPERF_TCP_RR_MAX_BYTES);
    }
    if (req.test == NETPERF_UDP_MAERTS) {
        FUZZ_CHECK(req.send_size >= 1 && req.send_size <= NETPERF_UDP_MAX_BYTES);
        FUZZ_CHECK(req.netperf_port == fn_word(msg, 108) && req.netperf_ip == fn_word(msg, 120));
    }

    uint8_t *out = fuzz_alloc_copy(NULL, NETPERF_MSG_BYTES, 0);
    struct netperf_omni_resp resp = {
        .recv_buf_bytes = fn_word(msg, 160), /* raw bytes: any value */
        .send_buf_bytes = fn_word(msg, 164),
        .flags = fn_word(msg, 168) & (NETPERF_FLAG_NODELAY | NETPERF_FLAG_MEASURE_CPU),
        .data_port = (uint16_t)(fn_word(msg, 172) | 1),
    };
    netperf_build_response(out, &req, &resp);
    FUZZ_CHECK(fn_word(out, 0) == NETPERF_MSG_OMNI_RESPONSE && fn_word(out, 4) == 0);
    FUZZ_CHECK(fn_word(out, 8) == resp.recv_buf_bytes && fn_word(out, 20) == resp.send_buf_bytes);
    FUZZ_CHECK(fn_word(out, 32) == resp.flags && fn_word(out, 52) == resp.data_port);
    FUZZ_CHECK(fn_word(out, 72) == fn_word(msg, 152) && fn_word(out, 76) == fn_word(msg, 156));
    fn_zero_from(out, 80);
    free(out);
}

/* DO_TCP_CC, the classic TCP_CC request (tcp_cc_request_struct): only family and port can
 * refuse it; what it asks for lands in the omni form and the classic answers carry it. */
static void fn_check_tcp_cc(const uint8_t *msg)
{
    struct netperf_omni_req req;
    uint32_t err = netperf_parse_tcp_cc(msg, &req);
    uint32_t family = fn_word(msg, 68), port = fn_word(msg, 64);
    FUZZ_CHECK((err == 0) == ((family == 0 || family == 4 || family == 6) && port <= 65535));
    if (err != 0) {
        FUZZ_CHECK(err == NETPERF_SERV_EINVAL || err == NETPERF_SERV_EAFNOSUPPORT);
        return;
    }
    FUZZ_CHECK(req.test == NETPERF_TCP_CC && req.data_port == port);
    FUZZ_CHECK(req.ipv6 == (family == 6));
    FUZZ_CHECK(req.test_length == (int32_t)fn_word(msg, 52));
    FUZZ_CHECK(((req.flags & NETPERF_FLAG_NODELAY) != 0) == (fn_word(msg, 40) != 0));
    FUZZ_CHECK(((req.flags & NETPERF_FLAG_MEASURE_CPU) != 0) == (fn_word(msg, 44) != 0));
    uint8_t *out = fuzz_alloc_copy(NULL, NETPERF_MSG_BYTES, 0);
    struct netperf_omni_resp resp = {
        .recv_buf_bytes = fn_word(msg, 160),
        .send_buf_bytes = fn_word(msg, 164),
        .flags = req.flags & (NETPERF_FLAG_NODELAY | NETPERF_FLAG_MEASURE_CPU),
        .data_port = (uint16_t)(fn_word(msg, 172) | 1),
    };
    netperf_build_cc_response(out, &req, &resp);
    FUZZ_CHECK(fn_word(out, 0) == NETPERF_MSG_TCP_CC_RESPONSE && fn_word(out, 4) == 0);
    FUZZ_CHECK(fn_word(out, 8) == resp.recv_buf_bytes && fn_word(out, 24) == resp.send_buf_bytes);
    FUZZ_CHECK(fn_word(out, 20) == (uint32_t)req.test_length);
    FUZZ_CHECK(fn_word(out, 28) == resp.data_port);
    fn_zero_from(out, 44);
    free(out);
}

static void fn_check_results(const uint8_t *msg)
{
    uint8_t *out = fuzz_alloc_copy(NULL, NETPERF_MSG_BYTES, 0);
    char cong[20];
    memcpy(cong, msg + 200, sizeof(cong) - 1);
    cong[sizeof(cong) - 1] = '\0';
    struct netperf_results res = {
        .bytes_received = (uint64_t)fn_word(msg, 8) << 32 | fn_word(msg, 12),
        .bytes_sent = (uint64_t)fn_word(msg, 16) << 32 | fn_word(msg, 20),
        .recv_calls = fn_word(msg, 24),
        .cpu_reported = msg[28] & 1,
        .cpu_util_pct = 12.5f,
        .num_cpus = 1,
        .transport_retrans = (int32_t)fn_word(msg, 32),
        .cong_control = msg[29] & 1 ? cong : NULL,
    };
    netperf_build_results(out, &res);
    FUZZ_CHECK(fn_word(out, 0) == NETPERF_MSG_OMNI_RESULTS && fn_word(out, 4) == 0);
    FUZZ_CHECK(((uint64_t)fn_word(out, 8) << 32 | fn_word(out, 12)) == res.bytes_received);
    FUZZ_CHECK(((uint64_t)fn_word(out, 24) << 32 | fn_word(out, 28)) == res.bytes_sent);
    FUZZ_CHECK(fn_word(out, 16) == res.recv_calls);
    FUZZ_CHECK(fn_word(out, 112) == (uint32_t)res.transport_retrans);
    FUZZ_CHECK((fn_word(out, 84) == 1) == res.cpu_reported);
    /* past the converted words only the congestion control name: a prefix of the one given,
     * NUL-terminated within its 16 bytes */
    if (res.cong_control) {
        size_t n = strnlen((const char *)out + 276, 16);
        FUZZ_CHECK(n < 16 && n == (strlen(cong) < 15 ? strlen(cong) : 15));
        FUZZ_CHECK(memcmp(out + 276, cong, n) == 0);
        memset(out + 276, 0, n);
    }
    fn_zero_from(out, 116);

    netperf_build_error(out, fn_word(msg, 0), fn_word(msg, 4));
    FUZZ_CHECK(fn_word(out, 0) == fn_word(msg, 0) && fn_word(out, 4) == fn_word(msg, 4));
    fn_zero_from(out, 8);
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    size_t piece = (size_t)data[0] + 1;
    const uint8_t *stream = data + 1;
    size_t left = size - 1, done = 0; /* bytes of the stream that made whole messages */
    struct netperf_rx *rx = malloc(sizeof(*rx));
    if (rx == NULL) {
        abort();
    }
    rx->len = 0;
    while (left > 0) {
        size_t n = left < piece ? left : piece;
        uint8_t *copy = fuzz_alloc_copy(stream, n, n); /* exactly n: ASan sees over-reads */
        size_t at = 0;
        while (at < n) {
            size_t len0 = rx->len;
            size_t took = netperf_rx_feed(rx, copy + at, n - at);
            size_t room = NETPERF_MSG_BYTES - len0;
            FUZZ_CHECK(took == (n - at < room ? n - at : room));
            FUZZ_CHECK(rx->len == len0 + took && rx->len <= NETPERF_MSG_BYTES);
            at += took;
            if (netperf_rx_whole(rx)) {
                FUZZ_CHECK(memcmp(rx->buf, data + 1 + done, NETPERF_MSG_BYTES) == 0);
                FUZZ_CHECK(netperf_rx_feed(rx, copy, n) == 0);
                if (netperf_msg_type(rx->buf) == NETPERF_MSG_DO_OMNI) {
                    fn_check_omni(rx->buf);
                }
                if (netperf_msg_type(rx->buf) == NETPERF_MSG_DO_TCP_CC) {
                    fn_check_tcp_cc(rx->buf);
                }
                fn_check_results(rx->buf);
                done += NETPERF_MSG_BYTES;
                rx->len = 0;
            }
        }
        free(copy);
        stream += n;
        left -= n;
    }
    free(rx);
    return 0;
}
