/*
 * apps/sink/iperf3_int.h: what the iperf3 server's two files share (iperf3.c: tests, control
 * and TCP connections, deadlines; iperf3_data.c: what -R sends, and the UDP streams). Not for
 * the rest of the firmware: its interface is sink.h's iperf3_init / iperf3_poll / iperf3_idle.
 * Everything here is the sink core's.
 */
#ifndef WS_IPERF3_INT_H
#define WS_IPERF3_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "apps/sink/iperf3_proto.h"
#include "apps/sink/sink.h"
#include "config.h"
#include "lwip/ip_addr.h"
#include "lwip/tcp.h"
#include "lwip/udp.h"

#define IPERF3_MAX_TESTS CONFIG_SINK_MAX_TESTS
#define IPERF3_MAX_STREAMS CONFIG_SINK_MAX_STREAMS
#define IPERF3_PENDING_CONNS 8            /* connections not yet known by their cookie */
#define IPERF3_HELLO_TIMEOUT_MS 10000     /* accept -> cookie; PARAM_EXCHANGE -> params */
#define IPERF3_DENY_LINGER_MS 2000        /* a refused client's cookie is awaited, then FIN */
#define IPERF3_STREAMS_TIMEOUT_MS 30000   /* CREATE_STREAMS -> last stream (the client's UDP
                                           * hello waits 30 s) */
#define IPERF3_GRACE_MS 40000             /* after time + omit: iperf3's own server watchdog */
#define IPERF3_RESULTS_TIMEOUT_MS 10000   /* each step after TEST_END */
#define IPERF3_PAYLOAD_BYTES 16384        /* what -R sends, referenced by lwIP, never copied */
#define IPERF3_UDP_BURST 64               /* datagrams per stream per poll */
#define IPERF3_ETIMEDOUT 110              /* Linux errno the client prints after an error */

#define IPERF3_STATS (&sink_stats[SINK_IPERF3])

enum iperf3_conn_kind {
    IPERF3_CONN_FREE,
    IPERF3_CONN_PENDING, /* accepted, reading the cookie */
    IPERF3_CONN_DENIED,  /* answered ACCESS_DENIED; FIN after its cookie or a linger */
    IPERF3_CONN_CTL,
    IPERF3_CONN_STREAM,
};

/* A TCP connection we hold; tcp_arg points at it. It lives in a pending slot, in a test (the
 * control connection) or in a stream, and moves when the cookie says which. */
struct iperf3_conn {
    struct tcp_pcb *pcb; /* NULL: not held */
    uint8_t kind;        /* enum iperf3_conn_kind */
    uint8_t test;        /* CTL, STREAM: index in iperf3_tests */
    uint16_t stream;     /* STREAM: index in the test's streams */
    uint32_t since_ms;   /* PENDING, DENIED: accepted at */
    uint32_t got;        /* DENIED: bytes received */
};

struct iperf3_pending {
    struct iperf3_conn conn;
    struct iperf3_ctl_rx rx; /* the cookie */
};

struct iperf3_stream {
    struct iperf3_conn conn; /* TCP; pcb NULL once closed */
    bool udp_held;           /* UDP: (addr, port) is this stream's */
    uint16_t port;
    ip_addr_t addr;
    bool sender;      /* the server sends on it (-R, or --bidir's second half) */
    uint64_t bytes;   /* counted into the results: received, or sent (TCP: acked) */
    uint64_t packets; /* UDP -R: datagrams sent (the sequence number) */
    uint64_t queued;  /* -R: bytes handed to lwIP (pacing) */
    struct iperf3_udp_rx udp;
};

enum iperf3_phase {
    IPERF3_FREE,
    IPERF3_PARAMS,    /* PARAM_EXCHANGE sent, reading the params */
    IPERF3_STREAMS,   /* CREATE_STREAMS sent, collecting streams */
    IPERF3_RUNNING,   /* TEST_RUNNING sent, counting (and sending, -R) */
    IPERF3_RESULTS,   /* EXCHANGE_RESULTS sent, reading the client's results */
    IPERF3_DONE_WAIT, /* DISPLAY_RESULTS sent, waiting for IPERF_DONE or EOF */
    IPERF3_CLOSING,   /* ended; the last control bytes are still queued */
};

enum iperf3_outcome { IPERF3_OUT_DONE, IPERF3_OUT_FAILED };

struct iperf3_test {
    uint8_t phase;   /* enum iperf3_phase */
    bool counted;    /* tests_run was counted: the end counts as done or failed */
    struct iperf3_conn ctl;
    struct iperf3_params params;
    uint8_t cookie[IPERF3_COOKIE_BYTES];
    uint32_t phase_ms; /* the current phase began */
    uint32_t start_ms; /* TEST_RUNNING */
    uint32_t measure_ms; /* start_ms + omit: counting starts (iperf3 resets its stats then) */
    uint32_t end_ms;   /* TEST_END */
    bool omitting;     /* before measure_ms: nothing is counted */
    unsigned nstreams;
    char *out;         /* control bytes lwIP has not taken yet (malloc, control path only) */
    size_t out_len, out_off;
    struct iperf3_ctl_rx rx;
    char json[IPERF3_PARAMS_MAX_BYTES + 1];
    struct iperf3_stream streams[IPERF3_MAX_STREAMS];
};

extern struct iperf3_test iperf3_tests[IPERF3_MAX_TESTS];
extern struct udp_pcb *iperf3_udp; /* every UDP stream, on sink.iperf3_port */
extern uint8_t iperf3_payload[IPERF3_PAYLOAD_BYTES]; /* what -R sends, referenced by lwIP */

/* iperf3.c */
void iperf3_hold(int d); /* one more (+1) or one fewer (-1) connection or UDP stream held */
void iperf3_ctl_error(struct iperf3_test *t, uint32_t code, uint32_t err); /* SERVER_ERROR */
void iperf3_test_start(struct iperf3_test *t); /* every stream is there: TEST_RUNNING */

/* iperf3_data.c */
/* iperf3_tcp_fill: -R over TCP: queue the payload on stream s as room and pacing allow;
 * in_sent: called from the sent callback (lwIP sends what was queued right after it). */
void iperf3_tcp_fill(struct iperf3_test *t, struct iperf3_stream *s, uint32_t now, bool in_sent);
/* iperf3_udp_send_due: -u -R: the datagrams due by now; whether anything was sent. */
bool iperf3_udp_send_due(struct iperf3_test *t, uint32_t now);
/* iperf3_on_udp: lwIP's receive callback of iperf3_udp (connect datagrams and data). */
void iperf3_on_udp(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr,
                   u16_t port);

#endif
