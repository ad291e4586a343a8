/*
 * apps/sink/iperf3_proto.c: iperf3 3.12 server-side wire protocol, lwIP-free (see the header;
 * spec: docs/netperf-iperf3-protocol.md section 2).
 */
#include "apps/sink/iperf3_proto.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cJSON.h"

bool iperf3_cookie_valid(const uint8_t cookie[IPERF3_COOKIE_BYTES])
{
    /* iperf3's make_cookie draws from "abcdefghijklmnopqrstuvwxyz234567" */
    for (unsigned i = 0; i < IPERF3_COOKIE_BYTES - 1; i++) {
        uint8_t c = cookie[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '2' && c <= '7'))) {
            return false;
        }
    }
    return cookie[IPERF3_COOKIE_BYTES - 1] == 0;
}

uint32_t iperf3_stream_id(unsigned k)
{
    /* iperf_add_stream: the first stream is 1, the next ones count on from 3 */
    return k == 0 ? 1 : (uint32_t)k + 2;
}

void iperf3_be32_put(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t iperf3_be32_get(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* --- control-stream reader ------------------------------------------------------------------ */

void iperf3_ctl_rx_init(struct iperf3_ctl_rx *rx, char *buf, uint32_t cap)
{
    memset(rx, 0, sizeof(*rx));
    rx->buf = buf;
    rx->cap = buf ? cap : 0;
    rx->want = IPERF3_WANT_COOKIE;
}

void iperf3_ctl_rx_expect(struct iperf3_ctl_rx *rx, enum iperf3_want want)
{
    rx->want = (uint8_t)want;
    rx->hdr_n = 0;
    rx->len = 0;
    rx->got = 0;
}

static int iperf3_rx_cookie(struct iperf3_ctl_rx *rx, const uint8_t *data, size_t len,
                            size_t *used)
{
    size_t n = IPERF3_COOKIE_BYTES - rx->hdr_n;
    if (n > len) {
        n = len;
    }
    memcpy(rx->cookie + rx->hdr_n, data, n);
    rx->hdr_n = (uint8_t)(rx->hdr_n + n);
    *used = n;
    if (rx->hdr_n < IPERF3_COOKIE_BYTES) {
        return IPERF3_RX_MORE;
    }
    rx->hdr_n = 0;
    return iperf3_cookie_valid(rx->cookie) ? IPERF3_RX_COOKIE : IPERF3_RX_BAD_COOKIE;
}

/* A BE32 length, then that many bytes, kept in rx->buf or skipped. */
static int iperf3_rx_json(struct iperf3_ctl_rx *rx, const uint8_t *data, size_t len,
                          size_t *used)
{
    bool keep = rx->want == IPERF3_WANT_JSON;
    size_t off = 0;
    while (rx->hdr_n < 4 && off < len) {
        rx->hdr[rx->hdr_n++] = data[off++];
        if (rx->hdr_n == 4) {
            rx->len = iperf3_be32_get(rx->hdr);
            rx->got = 0;
            uint32_t max = keep ? rx->cap : IPERF3_RESULTS_MAX_BYTES;
            if (rx->len == 0 || rx->len > max) {
                *used = off;
                return IPERF3_RX_BAD_LENGTH;
            }
        }
    }
    if (rx->hdr_n < 4) {
        *used = off;
        return IPERF3_RX_MORE;
    }
    size_t n = rx->len - rx->got;
    if (n > len - off) {
        n = len - off;
    }
    if (keep) {
        memcpy(rx->buf + rx->got, data + off, n);
    }
    rx->got += (uint32_t)n;
    *used = off + n;
    if (rx->got < rx->len) {
        return IPERF3_RX_MORE;
    }
    rx->hdr_n = 0; /* the next message of this kind starts with its own length */
    if (!keep) {
        return IPERF3_RX_JSON_DISCARDED;
    }
    rx->buf[rx->len] = 0;
    return IPERF3_RX_JSON;
}

int iperf3_ctl_rx_feed(struct iperf3_ctl_rx *rx, const uint8_t *data, size_t len, size_t *used)
{
    *used = 0;
    if (len == 0) {
        return IPERF3_RX_MORE;
    }
    switch (rx->want) {
    case IPERF3_WANT_COOKIE:
        return iperf3_rx_cookie(rx, data, len, used);
    case IPERF3_WANT_JSON:
    case IPERF3_WANT_JSON_DISCARD:
        return iperf3_rx_json(rx, data, len, used);
    default:
        rx->state = (int8_t)data[0];
        *used = 1;
        return IPERF3_RX_STATE;
    }
}

/* --- params and results JSON ---------------------------------------------------------------- */

/* A number key: absent leaves *v; present must be a number within [0, max]. */
static bool iperf3_json_u64(const cJSON *obj, const char *key, uint64_t max, uint64_t *v)
{
    const cJSON *it = cJSON_GetObjectItem(obj, key);
    if (!it) {
        return true;
    }
    if (!cJSON_IsNumber(it)) {
        return false;
    }
    double d = it->valuedouble; /* valueint saturates at INT_MAX: bandwidth can exceed it */
    if (!(d >= 0.0 && d <= (double)max)) {
        return false;
    }
    *v = (uint64_t)d;
    return true;
}

/* iperf3_params_check: what the server refuses in a well-formed request (0 = accepted). */
static int iperf3_params_check(const struct iperf3_params *p, uint32_t max_streams)
{
    if (p->parallel < 1 || p->nstreams > max_streams) {
        return IPERF3_IE_NUMSTREAMS;
    }
    if (p->proto == IPERF3_PROTO_TCP && (p->len < 1 || p->len > IPERF3_TCP_LEN_MAX_BYTES)) {
        return IPERF3_IE_BLOCKSIZE;
    }
    if (p->proto == IPERF3_PROTO_UDP &&
        (p->len < IPERF3_UDP_LEN_MIN_BYTES || p->len > IPERF3_UDP_LEN_MAX_BYTES)) {
        return IPERF3_IE_UDPBLOCKSIZE;
    }
    return 0;
}

int iperf3_params_parse(const char *json, size_t len, uint32_t max_streams,
                        struct iperf3_params *out)
{
    /* one JSON value and nothing after it: no NUL inside, the NUL at json[len] ends it */
    if (json[len] != 0 || memchr(json, 0, len) != NULL) {
        return IPERF3_PARAMS_MALFORMED;
    }
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(json, len + 1, &end, true);
    if (!j || !cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return IPERF3_PARAMS_MALFORMED;
    }
    memset(out, 0, sizeof(*out));
    /* get_parameters: presence selects the protocol, later keys win; TCP if none */
    bool udp = cJSON_GetObjectItem(j, "udp") != NULL;
    bool sctp = cJSON_GetObjectItem(j, "sctp") != NULL;
    bool bidir = cJSON_GetObjectItem(j, "bidirectional") != NULL;
    out->proto = udp ? IPERF3_PROTO_UDP : IPERF3_PROTO_TCP;
    out->reverse = cJSON_GetObjectItem(j, "reverse") != NULL;
    out->udp64 = cJSON_GetObjectItem(j, "udp_counters_64bit") != NULL;
    uint64_t parallel = 1, blk = udp ? IPERF3_UDP_LEN_DEFAULT_BYTES : IPERF3_TCP_LEN_DEFAULT_BYTES;
    uint64_t rate = 0, t = 0, omit = 0; /* the client sends no "bandwidth" for -b 0 */
    uint64_t server_output = 0; /* --get-server-output sends 1 */
    bool ok = iperf3_json_u64(j, "parallel", UINT32_MAX, &parallel) &&
              iperf3_json_u64(j, "len", UINT32_MAX, &blk) &&
              iperf3_json_u64(j, "bandwidth", UINT64_C(1) << 48, &rate) &&
              iperf3_json_u64(j, "time", UINT32_MAX, &t) &&
              iperf3_json_u64(j, "omit", UINT32_MAX, &omit) &&
              iperf3_json_u64(j, "get_server_output", UINT32_MAX, &server_output);
    cJSON_Delete(j);
    if (!ok) {
        return IPERF3_PARAMS_MALFORMED;
    }
    out->parallel = (uint32_t)parallel;
    out->bidir = bidir;
    out->nstreams = (uint32_t)(bidir ? 2 * parallel : parallel); /* parallel < 2^32: no wrap */
    out->server_output = server_output != 0;
    out->len = (uint32_t)blk;
    out->rate_bps = rate;
    out->time_s = (uint32_t)t;
    out->omit_s = (uint32_t)omit;
    if (sctp) {
        return IPERF3_IE_UNIMP;
    }
    return iperf3_params_check(out, max_streams);
}

static bool iperf3_json_num(cJSON *obj, const char *key, double v)
{
    return cJSON_AddNumberToObject(obj, key, v) != NULL;
}

static bool iperf3_results_stream(cJSON *arr, const struct iperf3_stream_result *s,
                                  double end_s)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) {
        return false;
    }
    if (!cJSON_AddItemToArray(arr, o)) {
        cJSON_Delete(o);
        return false;
    }
    /* every key but start_time/end_time is required by the client's get_results */
    return iperf3_json_num(o, "id", s->id) && iperf3_json_num(o, "bytes", (double)s->bytes) &&
           iperf3_json_num(o, "retransmits", -1) &&
           iperf3_json_num(o, "jitter", (double)s->jitter_ns / 1e9) &&
           iperf3_json_num(o, "errors", (double)s->errors) &&
           iperf3_json_num(o, "packets", (double)s->packets) &&
           iperf3_json_num(o, "start_time", 0) && iperf3_json_num(o, "end_time", end_s);
}

/* The server's report: per stream and per direction, bytes over the test's length, as
 * iperf3's server sums them up at the end (exact byte counts, then the rate). */
struct iperf3_report_sum {
    uint64_t bytes;
    unsigned streams;
};

static void iperf3_report_sums(const struct iperf3_stream_result *s, size_t n,
                               struct iperf3_report_sum *rx, struct iperf3_report_sum *tx)
{
    *rx = (struct iperf3_report_sum){ 0, 0 };
    *tx = *rx;
    for (size_t i = 0; i < n; i++) {
        struct iperf3_report_sum *d = s[i].sender ? tx : rx;
        d->bytes += s[i].bytes;
        d->streams++;
    }
}

static double iperf3_bps(uint64_t bytes, double secs)
{
    return secs > 0 ? (double)bytes * 8.0 / secs : 0.0;
}

static bool iperf3_text_add(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool iperf3_text_add(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(*buf + *len, *cap - *len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            return false;
        }
        if ((size_t)n < *cap - *len) {
            *len += (size_t)n;
            return true;
        }
        char *more = realloc(*buf, *cap * 2 + (size_t)n);
        if (!more) {
            return false;
        }
        *buf = more;
        *cap = *cap * 2 + (size_t)n;
    }
}

/* iperf3_report_text: the report as lines of text (malloc'd), NULL if out of memory. */
static char *iperf3_report_text(const struct iperf3_stream_result *s, size_t n, double secs)
{
    size_t len = 0, cap = 256;
    char *buf = malloc(cap);
    bool ok = buf && iperf3_text_add(&buf, &len, &cap,
                                     "wirespeed sink: iperf3 test over %.2f s, %zu stream%s\n"
                                     "[ ID] Interval           Transfer (bytes)  Bitrate\n",
                                     secs, n, n == 1 ? "" : "s");
    for (size_t i = 0; ok && i < n; i++) {
        ok = iperf3_text_add(&buf, &len, &cap, "[%3u]   0.00-%-6.2f sec  %14llu  %.0f bits/sec  %s\n",
                             (unsigned)s[i].id, secs, (unsigned long long)s[i].bytes,
                             iperf3_bps(s[i].bytes, secs), s[i].sender ? "sender" : "receiver");
    }
    struct iperf3_report_sum rx, tx;
    iperf3_report_sums(s, n, &rx, &tx);
    if (ok && rx.streams > 1) {
        ok = iperf3_text_add(&buf, &len, &cap, "[SUM]   0.00-%-6.2f sec  %14llu  %.0f bits/sec  "
                             "receiver\n", secs, (unsigned long long)rx.bytes,
                             iperf3_bps(rx.bytes, secs));
    }
    if (ok && tx.streams > 1) {
        ok = iperf3_text_add(&buf, &len, &cap, "[SUM]   0.00-%-6.2f sec  %14llu  %.0f bits/sec  "
                             "sender\n", secs, (unsigned long long)tx.bytes,
                             iperf3_bps(tx.bytes, secs));
    }
    if (!ok) {
        free(buf);
        return NULL;
    }
    return buf;
}

static bool iperf3_report_sum_json(cJSON *end, const char *key, uint64_t bytes, double secs)
{
    cJSON *o = cJSON_AddObjectToObject(end, key);
    return o && iperf3_json_num(o, "start", 0) && iperf3_json_num(o, "end", secs) &&
           iperf3_json_num(o, "seconds", secs) && iperf3_json_num(o, "bytes", (double)bytes) &&
           iperf3_json_num(o, "bits_per_second", iperf3_bps(bytes, secs));
}

/* iperf3_report_json: the report as an object under `key` of j: "end" with a line per stream
 * and each direction's sum, as iperf3's own -J output names them. */
static bool iperf3_report_json(cJSON *j, const struct iperf3_stream_result *s, size_t n,
                               double secs)
{
    cJSON *o = cJSON_AddObjectToObject(j, "server_output_json");
    cJSON *start = o ? cJSON_AddObjectToObject(o, "start") : NULL;
    bool ok = start && cJSON_AddStringToObject(start, "version", "wirespeed sink") != NULL;
    cJSON *end = ok ? cJSON_AddObjectToObject(o, "end") : NULL;
    cJSON *arr = end ? cJSON_AddArrayToObject(end, "streams") : NULL;
    ok = arr != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        cJSON *st = cJSON_CreateObject();
        ok = st && cJSON_AddItemToArray(arr, st);
        if (!ok) {
            cJSON_Delete(st);
            break;
        }
        ok = iperf3_json_num(st, "id", s[i].id) &&
             iperf3_report_sum_json(st, s[i].sender ? "sender" : "receiver", s[i].bytes, secs);
    }
    struct iperf3_report_sum rx, tx;
    iperf3_report_sums(s, n, &rx, &tx);
    return ok && iperf3_report_sum_json(end, "sum_received", rx.bytes, secs) &&
           iperf3_report_sum_json(end, "sum_sent", tx.bytes, secs);
}

static bool iperf3_results_report(cJSON *j, const struct iperf3_stream_result *streams,
                                  size_t n, double secs, enum iperf3_server_output so)
{
    if (so == IPERF3_SO_JSON) {
        return iperf3_report_json(j, streams, n, secs);
    }
    if (so != IPERF3_SO_TEXT) {
        return true;
    }
    char *text = iperf3_report_text(streams, n, secs);
    bool ok = text && cJSON_AddStringToObject(j, "server_output_text", text) != NULL;
    free(text);
    return ok;
}

char *iperf3_results_json(const struct iperf3_stream_result *streams, size_t n,
                          uint32_t duration_ms, enum iperf3_server_output so, size_t *len)
{
    cJSON *j = cJSON_CreateObject();
    if (!j) {
        return NULL;
    }
    /* No CPU measurement (0), and no per-stream retransmit counts: sender_has_retransmits 0
     * keeps the reverse-mode client from printing a Retr column of -1s. */
    bool ok = iperf3_json_num(j, "cpu_util_total", 0) && iperf3_json_num(j, "cpu_util_user", 0) &&
              iperf3_json_num(j, "cpu_util_system", 0) &&
              iperf3_json_num(j, "sender_has_retransmits", 0);
    cJSON *arr = ok ? cJSON_AddArrayToObject(j, "streams") : NULL;
    ok = arr != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        ok = iperf3_results_stream(arr, &streams[i], duration_ms / 1000.0);
    }
    ok = ok && iperf3_results_report(j, streams, n, duration_ms / 1000.0, so);
    char *s = ok ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    if (s) {
        *len = strlen(s);
    }
    return s;
}

void iperf3_json_free(char *json)
{
    cJSON_free(json);
}

/* --- UDP ------------------------------------------------------------------------------------ */

void iperf3_udp_hello_reply(const uint8_t in[4], uint8_t out[4])
{
    out[0] = in[3];
    out[1] = in[2];
    out[2] = in[1];
    out[3] = in[0];
}

bool iperf3_udp_rx_datagram(struct iperf3_udp_rx *s, const uint8_t *hdr, size_t hdr_len,
                            bool udp64, uint64_t arrival_ns)
{
    if (hdr_len < iperf3_udp_hdr_bytes(udp64)) {
        return false;
    }
    uint64_t sent_ns = (uint64_t)iperf3_be32_get(hdr) * 1000000000u +
                       (uint64_t)iperf3_be32_get(hdr + 4) * 1000u;
    uint64_t seq = iperf3_be32_get(hdr + 8);
    if (udp64) {
        seq = seq << 32 | iperf3_be32_get(hdr + 12);
    }
    /* sequence bookkeeping as iperf_udp_recv: gaps are losses until a late one fills them */
    if (seq > s->packets) { /* not seq >= packets + 1: a hostile 2^64 - 1 would wrap it */
        s->errors += seq - 1 - s->packets;
        s->packets = seq;
    } else {
        s->outoforder++;
        if (s->errors > 0) {
            s->errors--;
        }
    }
    /* jitter (RFC 3550 6.4.1, integer form of A.8): the clocks need not agree, only deltas
     * of transit count; the first datagram only sets the previous transit */
    int64_t transit = (int64_t)(arrival_ns - sent_ns);
    if (!s->started) {
        s->started = true;
        s->prev_transit_ns = transit;
    }
    int64_t d = transit - s->prev_transit_ns;
    uint64_t ad = d < 0 ? (uint64_t)-d : (uint64_t)d;
    s->prev_transit_ns = transit;
    s->jitter16_ns = s->jitter16_ns + ad - ((s->jitter16_ns + 8) >> 4);
    return true;
}

void iperf3_udp_hdr_write(uint8_t *buf, uint64_t now_ns, uint64_t seq, bool udp64)
{
    uint64_t sec = now_ns / 1000000000u;
    uint32_t usec = (uint32_t)((now_ns - sec * 1000000000u) / 1000u);
    iperf3_be32_put(buf, (uint32_t)sec);
    iperf3_be32_put(buf + 4, usec);
    if (udp64) {
        iperf3_be32_put(buf + 8, (uint32_t)(seq >> 32));
        iperf3_be32_put(buf + 12, (uint32_t)seq);
    } else {
        iperf3_be32_put(buf + 8, (uint32_t)seq);
    }
}

uint64_t iperf3_pace_bytes(uint64_t rate_bps, uint32_t elapsed_ms)
{
    /* bytes/s <= 2^37 and elapsed < 2^32 ms: split so nothing overflows 64 bits */
    uint64_t bytes_per_s = (rate_bps > IPERF3_PACE_MAX_BPS ? IPERF3_PACE_MAX_BPS : rate_bps) / 8;
    return bytes_per_s * (elapsed_ms / 1000u) + bytes_per_s * (elapsed_ms % 1000u) / 1000u;
}
