/*
 * apps/sink/iperf3_proto.h: the iperf3 3.12 wire protocol as the server sees it, without lwIP:
 * the control-stream reader (cookie, state bytes, length-prefixed JSON), the params and results
 * JSON (cJSON), UDP datagram headers, loss and jitter bookkeeping, and send pacing. The spec is
 * docs/netperf-iperf3-protocol.md section 2; iperf3 3.12's iperf_api.c, iperf_udp.c
 * and iperf_server_api.c are the truth. Pure functions and caller-owned state: host-testable
 * (tests/unit/test_iperf3_proto.c); apps/sink/iperf3.c puts it on lwIP's raw API.
 */
#ifndef WS_IPERF3_PROTO_H
#define WS_IPERF3_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IPERF3_COOKIE_BYTES 37          /* 36 chars of [a-z2-7] and a NUL */
#define IPERF3_PARAMS_MAX_BYTES 4096    /* longest params JSON accepted (3.12 sends ~150 B) */
#define IPERF3_RESULTS_MAX_BYTES 262144 /* longest client results JSON read (and discarded) */
#define IPERF3_TCP_LEN_MAX_BYTES (1024 * 1024)  /* iperf3 MAX_BLOCKSIZE */
#define IPERF3_UDP_LEN_MIN_BYTES 16             /* iperf3 MIN_UDP_BLOCKSIZE */
#define IPERF3_UDP_LEN_MAX_BYTES (65535 - 8 - 20) /* iperf3 MAX_UDP_BLOCKSIZE */
#define IPERF3_TCP_LEN_DEFAULT_BYTES 131072
#define IPERF3_UDP_LEN_DEFAULT_BYTES 1460

/* The 4-byte UDP "connect" datagram and its reply, in the sender's host byte order. */
#define IPERF3_UDP_CONNECT_MSG 0x36373839u
#define IPERF3_UDP_CONNECT_REPLY 0x39383736u

/* State bytes on the control connection (iperf_api.h); signed on the wire. */
enum iperf3_state {
    IPERF3_TEST_START = 1,
    IPERF3_TEST_RUNNING = 2,
    IPERF3_TEST_END = 4,
    IPERF3_PARAM_EXCHANGE = 9,
    IPERF3_CREATE_STREAMS = 10,
    IPERF3_SERVER_TERMINATE = 11,
    IPERF3_CLIENT_TERMINATE = 12,
    IPERF3_EXCHANGE_RESULTS = 13,
    IPERF3_DISPLAY_RESULTS = 14,
    IPERF3_IPERF_DONE = 16,
    IPERF3_ACCESS_DENIED = -1,
    IPERF3_SERVER_ERROR = -2, /* followed by two BE32: iperf error code, errno */
};

/* iperf error codes (i_errno, iperf_api.h) the server sends after SERVER_ERROR; the client
 * prints its own text for each (iperf_error.c). */
#define IPERF3_IE_NUMSTREAMS 6     /* "number of parallel streams too large" */
#define IPERF3_IE_BLOCKSIZE 7      /* "block size too large" */
#define IPERF3_IE_UNIMP 13         /* "an option you are trying to set is not implemented yet" */
#define IPERF3_IE_UDPBLOCKSIZE 20  /* "block size invalid" */
#define IPERF3_IE_MESSAGE 110      /* "received an unknown control message" */
#define IPERF3_IE_RECVPARAMS 114   /* "unable to receive parameters from client" */
#define IPERF3_IE_STREAMACCEPT 204 /* "unable to accept stream connection" */

/* iperf3_cookie_valid: 36 characters of iperf3's base32 alphabet and a NUL. */
bool iperf3_cookie_valid(const uint8_t cookie[IPERF3_COOKIE_BYTES]);

/* iperf3_stream_id: the id iperf3 gives the k-th stream (k from 0): 1, 3, 4, 5, ... */
uint32_t iperf3_stream_id(unsigned k);

/* --- control-stream reader ------------------------------------------------------------------
 * The server knows from its state what comes next on the control connection: the cookie, a
 * JSON message (params; or the client's results, which are counted and discarded), or state
 * bytes. The caller says which (iperf3_ctl_rx_expect) and feeds bytes as they arrive, in any
 * split; the reader returns one complete message at a time. */
enum iperf3_want {
    IPERF3_WANT_COOKIE,
    IPERF3_WANT_JSON,         /* params: kept in the caller's buffer, NUL-terminated */
    IPERF3_WANT_JSON_DISCARD, /* the client's results: length-checked, not kept */
    IPERF3_WANT_STATE,
};

enum iperf3_rx_event {
    IPERF3_RX_MORE = 0,   /* every byte given was consumed; the message is not complete */
    IPERF3_RX_COOKIE = 1, /* rx->cookie holds 37 valid bytes */
    IPERF3_RX_JSON = 2,   /* rx->buf[0..rx->len) is the JSON, rx->buf[rx->len] == 0 */
    IPERF3_RX_JSON_DISCARDED = 3,
    IPERF3_RX_STATE = 4, /* rx->state holds the byte */
    IPERF3_RX_BAD_COOKIE = -1,
    IPERF3_RX_BAD_LENGTH = -2, /* a JSON length of 0 or over the limit */
};

struct iperf3_ctl_rx {
    uint8_t want;   /* enum iperf3_want */
    uint8_t hdr_n;  /* bytes of the BE32 length (or of the cookie) collected */
    uint8_t hdr[4];
    int8_t state;   /* the last state byte */
    uint32_t len;   /* JSON length announced */
    uint32_t got;   /* JSON bytes collected (or skipped) */
    uint8_t cookie[IPERF3_COOKIE_BYTES];
    char *buf;      /* caller's buffer for IPERF3_WANT_JSON, cap + 1 bytes */
    uint32_t cap;   /* longest JSON kept; a longer one is IPERF3_RX_BAD_LENGTH */
};

/* iperf3_ctl_rx_init: a reader expecting the cookie; buf (cap + 1 bytes) may be NULL if the
 * caller never asks for IPERF3_WANT_JSON. */
void iperf3_ctl_rx_init(struct iperf3_ctl_rx *rx, char *buf, uint32_t cap);
void iperf3_ctl_rx_expect(struct iperf3_ctl_rx *rx, enum iperf3_want want);
/* iperf3_ctl_rx_feed: consume bytes from data up to the end of the next message; *used says how
 * many. Returns an enum iperf3_rx_event; after an event > 0 the reader expects the same kind of
 * message again until told otherwise; after an error (< 0) the connection must be dropped. */
int iperf3_ctl_rx_feed(struct iperf3_ctl_rx *rx, const uint8_t *data, size_t len, size_t *used);

/* iperf3_be32_put: the SERVER_ERROR body and JSON length prefixes. */
void iperf3_be32_put(uint8_t *p, uint32_t v);

/* --- params (client -> server) and results (server -> client) -------------------------------- */
enum iperf3_proto { IPERF3_PROTO_TCP, IPERF3_PROTO_UDP };

struct iperf3_params {
    uint8_t proto;     /* enum iperf3_proto */
    bool reverse;      /* -R: the server sends */
    bool bidir;        /* --bidir: the first `parallel` streams send to the server, the next
                        * `parallel` receive from it (iperf3's server accepts them so) */
    bool udp64;        /* --udp-counters-64bit: 64-bit UDP sequence numbers */
    uint32_t parallel; /* -P: streams per direction */
    uint32_t nstreams; /* streams to expect: parallel, twice that with --bidir */
    bool server_output; /* --get-server-output: the results carry the server's report */
    uint32_t len;      /* block (TCP) or datagram (UDP) size when the server sends */
    uint64_t rate_bps; /* per stream; 0 = unpaced (also when absent: `-u -b 0` omits it) */
    uint32_t time_s;   /* the client's test length (for the server's watchdog) */
    uint32_t omit_s;
};

/* iperf3_server_sends: whether the server sends on the k-th stream the client opens. */
static inline bool iperf3_server_sends(const struct iperf3_params *p, unsigned k)
{
    return p->bidir ? k >= p->parallel : p->reverse;
}

#define IPERF3_PARAMS_MALFORMED (-1) /* not a JSON object, or a key of the wrong type */

/* iperf3_params_parse: the params JSON, json[len] == 0 (as iperf3_ctl_rx leaves it). Returns 0 with *out filled;
 * IPERF3_PARAMS_MALFORMED; or a positive iperf error code (IPERF3_IE_*) for a well-formed
 * request the server refuses: more than max_streams streams (--bidir's 2 x -P counted),
 * SCTP, a bad length.
 * Keys it does not need (window, MSS, title, authtoken, ...) are ignored as by a stock server
 * without authentication. */
int iperf3_params_parse(const char *json, size_t len, uint32_t max_streams,
                        struct iperf3_params *out);

/* One stream's line in the results. */
struct iperf3_stream_result {
    uint32_t id;
    bool sender;       /* the server sent on it (its bytes are sent, else received) */
    uint64_t bytes;    /* received (forward) or sent (reverse) while the test ran */
    uint64_t packets;  /* UDP: highest sequence number received, or datagrams sent */
    uint64_t errors;   /* UDP: datagrams lost */
    uint64_t jitter_ns;
};

/* What the results carry of the server's own report (--get-server-output). */
enum iperf3_server_output {
    IPERF3_SO_NONE,
    IPERF3_SO_TEXT, /* "server_output_text": the report as iperf3's server prints it */
    IPERF3_SO_JSON, /* "server_output_json": the same as a JSON object (iperf3 -s -J's) */
};

/* iperf3_results_json: the server's results object, unformatted, malloc'd (free with
 * iperf3_json_free); *len = its length without the NUL. duration_ms is TEST_RUNNING to
 * TEST_END (the streams' end_time); so: the server's report to add, if any. NULL if out of
 * memory. */
char *iperf3_results_json(const struct iperf3_stream_result *streams, size_t n,
                          uint32_t duration_ms, enum iperf3_server_output so, size_t *len);
void iperf3_json_free(char *json);

/* --- UDP streams ---------------------------------------------------------------------------- */

/* iperf3_udp_hello_reply: the reply to a 4-byte connect datagram: its bytes reversed, which is
 * the reply constant in the client's own byte order whatever that order is. */
void iperf3_udp_hello_reply(const uint8_t in[4], uint8_t out[4]);

/* Receive bookkeeping of one UDP stream, as iperf_udp_recv does it. */
struct iperf3_udp_rx {
    uint64_t packets;    /* highest sequence number seen ("packets" in the results) */
    uint64_t errors;     /* gaps, less one per late datagram, never below 0 */
    uint64_t outoforder; /* datagrams whose sequence number went backwards */
    uint64_t jitter16_ns; /* RFC 3550 A.8 estimator, scaled by 16 */
    int64_t prev_transit_ns;
    bool started;
};

/* iperf3_udp_hdr_bytes: the header in front of each datagram: sec, usec, sequence number. */
static inline size_t iperf3_udp_hdr_bytes(bool udp64)
{
    return udp64 ? 16 : 12;
}
/* iperf3_udp_rx_datagram: account one datagram (its first bytes in hdr, hdr_len of them) that
 * arrived at arrival_ns (the server's monotonic clock). Returns false, changing nothing, if it
 * is too short to hold the header. */
bool iperf3_udp_rx_datagram(struct iperf3_udp_rx *s, const uint8_t *hdr, size_t hdr_len,
                            bool udp64, uint64_t arrival_ns);
static inline uint64_t iperf3_udp_rx_jitter_ns(const struct iperf3_udp_rx *s)
{
    return (s->jitter16_ns + 8) >> 4;
}
/* iperf3_udp_hdr_write: the header of a datagram the server sends (reverse mode), stamped with
 * now_ns (the server's monotonic clock, as iperf3 stamps its own). */
void iperf3_udp_hdr_write(uint8_t *buf, uint64_t now_ns, uint64_t seq, bool udp64);

/* iperf3_pace_bytes: bytes a stream paced at rate_bps may have sent elapsed_ms after it
 * started (iperf3 catches up the same way: it sends while its average is below the rate).
 * Rates above IPERF3_PACE_MAX_BPS count as that rate (unpaced in practice). */
#define IPERF3_PACE_MAX_BPS (UINT64_C(1) << 40)
uint64_t iperf3_pace_bytes(uint64_t rate_bps, uint32_t elapsed_ms);

#endif
