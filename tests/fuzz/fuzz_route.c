/*
 * tests/fuzz/fuzz_route.c: libFuzzer harness for the router's per-frame decisions in
 * net/route.c: route_ipv4_check_and_decrement, route_frag_init/route_frag_next and
 * route_icmp_error (into a separate buffer of exactly out_bytes, and in place over the frame
 * itself).
 *
 * Input: 5 header bytes, then the frame:
 *   byte 0  bits 0-1  separate output buffer: ROUTE_ICMP_ERROR_MAX_FRAME_BYTES / byte 1 bytes /
 *                     the frame's length / 60 + byte 1
 *           bits 2-3  in-place buffer: the frame exactly / + (byte 1 & 63) / PKB_DATA_BYTES /
 *                     + 600
 *           bit 4     the port has no IPv4 address (our_ip 0)
 *           bits 5-7  error asked for: 11/0, 11/1, 3/0, 3/1, 3/(byte 2 & 15), 3/4, raw (byte 3
 *                     type, byte 2 code), 11/(byte 2)
 *   byte 1  a size (also the MTU a forwarded datagram is cut for: 68 + 6 x byte 1);
 *           byte 2 a code; byte 3 a type
 *   byte 4  bit 0: the harness rewrites the frame's IPv4 header checksum first (a fuzzer cannot
 *           keep it valid by itself; see fuzz_fix_checksums)
 *
 * Invariants: the fast path's check (route_ipv4_fast_check) never passes what the full check
 * would not forward, and its TTL update gives the same bytes; forwarding's verdict equals a reference written from RFC 1812 5.2.2/5.3.7/5.3.4
 * (validity, address classes, TTL); on ROUTE_FORWARD the TTL is one less, only TTL and checksum
 * changed, the checksum verifies and equals a full recompute; otherwise the frame and *dst_out
 * are untouched and exactly one frame-drop counter grew (route_frame_drops_total + 1); a
 * forwarded datagram cut into fragments gives them back whole (fr_check_fragments). An ICMP
 * error is built exactly when a reference of RFC 1812 4.3.2.7 says it may be and it fits; then
 * it is <= out_bytes, at least 62 bytes, addressed back to the sender, with valid IPv4 and ICMP
 * checksums and the datagram quoted from its header on (RFC 792's minimum up to 548 bytes);
 * otherwise exactly one suppression counter grew. Built in place it is the same frame, byte for
 * byte, as built into a separate buffer of the same size.
 */
#include <stdbool.h>
#include <string.h>

#include "net/inet.h"
#include "pkb.h"
#include "net/route.h"
#include "tests/fuzz/fuzz.h"

#define FR_MAX_FRAME_BYTES (PKB_DATA_BYTES + 64)
#define FR_OUT_MASK 0x03
#define FR_INPLACE_SHIFT 2
#define FR_NO_IP 0x10
#define FR_TYPE_SHIFT 5
#define FR_OUR_IP 0x0a000001u /* 10.0.0.1 */
#define FR_QUOTE_MAX (ROUTE_ICMP_ERROR_MAX_IP_BYTES - 20 - ROUTE_ICMP_ERROR_HDR_BYTES)

static const uint8_t fr_our_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

/* --- a reference of the RFC rules, written independently of net/route.c ------------------- */

struct fr_ref {
    bool valid;      /* RFC 1812 5.2.2: would be accepted as IPv4 at all */
    uint16_t hlen;   /* when valid */
    uint16_t total;  /* when valid */
};

static struct fr_ref fr_ref_parse(const uint8_t *f, uint16_t len)
{
    struct fr_ref r = { false, 0, 0 };
    if (len < 34 || inet_load_be16(f + 12) != INET_ETHERTYPE_IPV4 || (f[14] >> 4) != 4) {
        return r;
    }
    r.hlen = (uint16_t)((f[14] & 15) * 4);
    r.total = inet_load_be16(f + 16);
    r.valid = r.hlen >= 20 && r.total >= r.hlen && r.total <= len - 14 &&
              fuzz_csum(f + 14, r.hlen) == 0;
    return r;
}

static bool fr_unicast(uint32_t a) /* one host somewhere: none of 5.3.7's classes */
{
    uint32_t b = a >> 24;
    return !(b == 0 || b == 127 || b >= 224);
}

static bool fr_link_local(uint32_t a)
{
    return (a >> 16) == 0xa9fe;
}

static bool fr_ref_forwards(const uint8_t *f, uint16_t len)
{
    struct fr_ref r = fr_ref_parse(f, len);
    if (!r.valid || (f[0] & 1)) {
        return false;
    }
    uint32_t src = inet_load_be32(f + 26), dst = inet_load_be32(f + 30);
    return fr_unicast(src) && !fr_link_local(src) && fr_unicast(dst) && !fr_link_local(dst);
}

static bool fr_ref_icmp_type_ok(uint8_t type, uint8_t code)
{
    return (type == 11 && code <= 1) || (type == 3 && code <= 15 && code != 4);
}

/* RFC 1812 4.3.2.7 / RFC 1122 3.2.2: may an error be sent about this frame at all? */
static bool fr_ref_may_error(const uint8_t *f, uint16_t len, struct fr_ref *r)
{
    *r = fr_ref_parse(f, len);
    if (!r->valid || (f[0] & 1) || (f[6] & 1)) {
        return false;
    }
    if ((inet_load_be16(f + 20) & 0x1fff) != 0) {
        return false;
    }
    uint32_t src = inet_load_be32(f + 26), dst = inet_load_be32(f + 30);
    if (!fr_unicast(src) || dst == 0xffffffffu || (dst >> 28) == 0xe) {
        return false;
    }
    if (f[23] == INET_PROTO_ICMP) {
        if (r->total == r->hlen) {
            return false;
        }
        uint8_t t = f[14 + r->hlen];
        if (t == 3 || t == 4 || t == 5 || t == 11 || t == 12) {
            return false;
        }
    }
    return true;
}

/* --- checks ------------------------------------------------------------------------------- */

FUZZ_UNTRACED static uint64_t fr_suppressions(const struct route_drop_stats *st)
{
    uint64_t n = 0;
    for (size_t i = route_frame_drop_counter_count; i < route_drop_counter_count; i++) {
        uint64_t v;
        memcpy(&v, (const uint8_t *)st + route_drop_counters[i].offset, sizeof(v));
        n += v;
    }
    return n;
}

/*
 * fr_check_fragments: a datagram the router forwards (f, len), cut for mtu: route_frag_init
 * refuses exactly DF, no room for 8 data bytes after the header, no data, an offset past 65535;
 * otherwise each fragment fits the MTU and out_bytes, has a valid checksum, the datagram's
 * addresses, ID, TTL and protocol, a 20-byte-or-longer header, data at contiguous offsets in
 * multiples of 8 but the last, MF on all but the last (which keeps the datagram's), and the
 * data put back together is the datagram's. A fragment's buffer is exactly 14 + mtu bytes.
 */
static FUZZ_UNTRACED void fr_check_fragments(const uint8_t *f, uint16_t mtu)
{
    static uint8_t data[65536];
    const uint8_t *ip = f + 14;
    unsigned hlen = (ip[0] & 15u) * 4, total = inet_load_be16(ip + 2);
    unsigned fw = inet_load_be16(ip + 6), base = (fw & 0x1fffu) * 8;
    bool refuse = (fw & 0x4000u) != 0 || mtu < hlen + 8 || total == hlen ||
                  base + (total - hlen) > 0xffffu;
    struct route_frag fr;
    FUZZ_CHECK(route_frag_init(&fr, f, mtu) == !refuse);
    if (refuse) {
        return;
    }
    uint16_t out_bytes = (uint16_t)(14 + mtu);
    uint8_t *out = malloc(out_bytes);
    FUZZ_CHECK(out != NULL);
    unsigned got = 0;
    bool mf = true;
    for (uint16_t n; (n = route_frag_next(&fr, out, out_bytes)) != 0;) {
        const uint8_t *o = out + 14;
        unsigned oh = (o[0] & 15u) * 4, ot = inet_load_be16(o + 2);
        unsigned ofw = inet_load_be16(o + 6);
        FUZZ_CHECK(mf && (o[0] >> 4) == 4 && oh >= 20 && ot > oh && ot <= mtu);
        FUZZ_CHECK(n <= out_bytes && n == (ot + 14 < 60 ? 60 : ot + 14));
        FUZZ_CHECK(memcmp(out, f, 14) == 0 && memcmp(o + 12, ip + 12, 8) == 0);
        FUZZ_CHECK(memcmp(o + 4, ip + 4, 2) == 0 && o[8] == ip[8] && o[9] == ip[9]);
        FUZZ_CHECK(inet_checksum(o, oh) == 0);
        FUZZ_CHECK((ofw & 0x1fffu) * 8 == base + got && (ofw & 0x4000u) == 0);
        mf = (ofw & 0x2000u) != 0;
        FUZZ_CHECK(got + (ot - oh) <= total - hlen);
        memcpy(data + got, o + oh, ot - oh);
        got += ot - oh;
        FUZZ_CHECK(got == total - hlen || (mf && (ot - oh) % 8 == 0));
    }
    FUZZ_CHECK(got == total - hlen && memcmp(data, ip + hlen, got) == 0);
    FUZZ_CHECK(mf == ((fw & 0x2000u) != 0));
    free(out);
}

static void fr_check_forward(const uint8_t *in, uint16_t len, uint16_t mtu)
{
    uint8_t *f = fuzz_alloc_copy(in, len, len);
    struct route_drop_stats st;
    memset(&st, 0, sizeof(st));
    const uint32_t sentinel = 0xdeadbeefu;
    uint32_t dst = sentinel;

    /* The fast path's check reads only, and passes nothing the full check would not forward
     * to the same destination; its TTL update gives the full check's bytes (below). */
    uint32_t fast_dst = route_ipv4_fast_check(f, len, false);
    FUZZ_CHECK(memcmp(f, in, len) == 0);
    enum route_verdict v = route_ipv4_check_and_decrement(f, len, &st, &dst);
    FUZZ_CHECK(fast_dst == 0 || (v == ROUTE_FORWARD && dst == fast_dst));

    FUZZ_CHECK(v == ROUTE_FORWARD || v == ROUTE_TTL_EXPIRED || v == ROUTE_DROP);
    FUZZ_CHECK(route_frame_drops_total(&st) == (v == ROUTE_FORWARD ? 0u : 1u));
    FUZZ_CHECK(fr_suppressions(&st) == 0);
    FUZZ_CHECK((v == ROUTE_TTL_EXPIRED) == (st.ttl_expired == 1));
    bool ok = fr_ref_forwards(in, len);
    FUZZ_CHECK(ok == (v != ROUTE_DROP));
    if (v != ROUTE_FORWARD) {
        FUZZ_CHECK(memcmp(f, in, len) == 0 && dst == sentinel);
        FUZZ_CHECK(v != ROUTE_TTL_EXPIRED || in[22] <= 1);
        free(f);
        return;
    }
    uint16_t hlen = (uint16_t)((in[14] & 15) * 4);
    FUZZ_CHECK(in[22] > 1 && f[22] == in[22] - 1);
    FUZZ_CHECK(dst == inet_load_be32(in + 30));
    for (uint16_t i = 0; i < len; i++) {
        FUZZ_CHECK(f[i] == in[i] || i == 22 || i == 24 || i == 25);
    }
    FUZZ_CHECK(inet_checksum(f + 14, hlen) == 0);
    FUZZ_CHECK(inet_ipv4_hdr_csum_ok(f + 14, hlen));
    /* net/route.c claims the incremental update always equals a full recompute. */
    uint8_t hdr[60];
    memcpy(hdr, f + 14, hlen);
    hdr[10] = hdr[11] = 0;
    FUZZ_CHECK(inet_checksum(hdr, hlen) == inet_load_be16(f + 24));
    if (fast_dst != 0) {
        uint8_t *g = fuzz_alloc_copy(in, len, len);
        route_ipv4_ttl_decrement(g + 14);
        FUZZ_CHECK(memcmp(g, f, len) == 0);
        free(g);
    }
    fr_check_fragments(f, mtu);
    free(f);
}

/* A built error frame (n bytes in out, out_bytes long) about in_frame. */
static void fr_check_error_frame(const uint8_t *out, uint16_t n, uint16_t out_bytes,
                                 const uint8_t *in, const struct fr_ref *r, uint8_t type,
                                 uint8_t code)
{
    FUZZ_CHECK(n <= out_bytes);
    FUZZ_CHECK(n >= 62 && n >= INET_ETH_MIN_FRAME_BYTES);
    FUZZ_CHECK(memcmp(out, in + 6, 6) == 0 && memcmp(out + 6, fr_our_mac, 6) == 0);
    FUZZ_CHECK(inet_load_be16(out + 12) == INET_ETHERTYPE_IPV4);
    const uint8_t *ip = out + 14;
    FUZZ_CHECK(ip[0] == 0x45 && inet_load_be16(ip + 2) == n - 14u);
    FUZZ_CHECK((inet_load_be16(ip + 6) & (INET_IPV4_FLAG_MF | INET_IPV4_FRAG_OFFSET_MASK)) == 0);
    FUZZ_CHECK(ip[8] > 0 && ip[9] == INET_PROTO_ICMP);
    FUZZ_CHECK(inet_checksum(ip, 20) == 0 && fuzz_csum(ip, 20) == 0);
    FUZZ_CHECK(inet_load_be32(ip + 12) == FR_OUR_IP);
    FUZZ_CHECK(memcmp(ip + 16, in + 26, 4) == 0);
    const uint8_t *icmp = ip + 20;
    uint16_t icmp_len = (uint16_t)(n - 34);
    FUZZ_CHECK(icmp[0] == type && icmp[1] == code);
    FUZZ_CHECK(icmp[4] == 0 && icmp[5] == 0 && icmp[6] == 0 && icmp[7] == 0);
    FUZZ_CHECK(inet_checksum(icmp, icmp_len) == 0 && fuzz_csum(icmp, icmp_len) == 0);
    uint16_t quote = (uint16_t)(n - ROUTE_ICMP_ERROR_HEADROOM_BYTES);
    uint32_t want = r->total;
    want = want < FR_QUOTE_MAX ? want : FR_QUOTE_MAX;
    want = want < out_bytes - 42u ? want : out_bytes - 42u;
    FUZZ_CHECK(quote == want);
    FUZZ_CHECK(quote >= (r->hlen + 8u < r->total ? r->hlen + 8u : r->total));
    FUZZ_CHECK(memcmp(icmp + 8, in + 14, quote) == 0);
}

/* route_icmp_error into a fresh buffer of exactly out_bytes; returns the buffer (caller frees)
 * after checking the outcome against the reference. */
static uint8_t *fr_error_separate(const uint8_t *in, uint16_t len, uint16_t out_bytes,
                                  uint8_t type, uint8_t code, uint32_t our_ip, uint16_t *n_out)
{
    uint8_t *out = fuzz_alloc_copy(in, out_bytes, 0);
    memset(out, 0x5a, out_bytes);
    struct route_drop_stats st;
    memset(&st, 0, sizeof(st));
    uint16_t n = route_icmp_error(out, out_bytes, in, len, type, code, our_ip, fr_our_mac, &st);

    FUZZ_CHECK(route_frame_drops_total(&st) == 0);
    FUZZ_CHECK(fr_suppressions(&st) == (n == 0 ? 1u : 0u));
    struct fr_ref r;
    bool may = fr_ref_icmp_type_ok(type, code) && our_ip != 0 && fr_ref_may_error(in, len, &r);
    bool fits = may && out_bytes >= 42u + (r.hlen + 8u < r.total ? r.hlen + 8u : r.total);
    FUZZ_CHECK((n != 0) == fits);
    if (n != 0) {
        fr_check_error_frame(out, n, out_bytes, in, &r, type, code);
    } else {
        for (uint16_t i = 0; i < out_bytes; i++) {
            FUZZ_CHECK(out[i] == 0x5a); /* nothing written when nothing is sent */
        }
    }
    *n_out = n;
    return out;
}

static void fr_error_in_place(const uint8_t *in, uint16_t len, uint16_t buf_bytes, uint8_t type,
                              uint8_t code, uint32_t our_ip)
{
    uint16_t n_sep;
    uint8_t *sep = fr_error_separate(in, len, buf_bytes, type, code, our_ip, &n_sep);

    uint8_t *buf = fuzz_alloc_copy(in, buf_bytes, len);
    if (buf_bytes > len) {
        memset(buf + len, 0x5a, buf_bytes - len);
    }
    struct route_drop_stats st;
    memset(&st, 0, sizeof(st));
    uint16_t n = route_icmp_error(buf, buf_bytes, buf, len, type, code, our_ip, fr_our_mac, &st);

    FUZZ_CHECK(n == n_sep);
    FUZZ_CHECK(fr_suppressions(&st) == (n == 0 ? 1u : 0u));
    if (n != 0) {
        FUZZ_CHECK(memcmp(buf, sep, n) == 0);
    } else {
        FUZZ_CHECK(memcmp(buf, in, len) == 0); /* refused: the frame is left as it was */
    }
    free(buf);
    free(sep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    uint8_t variant = fuzz_u8(&in);
    uint8_t size_b = fuzz_u8(&in);
    uint8_t code_b = fuzz_u8(&in);
    uint8_t type_b = fuzz_u8(&in);
    uint8_t fix = fuzz_u8(&in);
    uint16_t len = in.n > FR_MAX_FRAME_BYTES ? FR_MAX_FRAME_BYTES : (uint16_t)in.n;
    uint8_t *frame = fuzz_alloc_copy(in.p, len, len); /* exact size: over-reads show */
    fuzz_fix_checksums(frame, len, fix & 1, 0);

    uint16_t out_bytes;
    switch (variant & FR_OUT_MASK) {
    case 0:
        out_bytes = ROUTE_ICMP_ERROR_MAX_FRAME_BYTES;
        break;
    case 1:
        out_bytes = size_b;
        break;
    case 2:
        out_bytes = len;
        break;
    default:
        out_bytes = (uint16_t)(60 + size_b);
        break;
    }
    uint16_t buf_bytes;
    switch ((variant >> FR_INPLACE_SHIFT) & 3) {
    case 0:
        buf_bytes = len;
        break;
    case 1:
        buf_bytes = (uint16_t)(len + (size_b & 63));
        break;
    case 2:
        buf_bytes = len > PKB_DATA_BYTES ? len : PKB_DATA_BYTES;
        break;
    default:
        buf_bytes = (uint16_t)(len + 600);
        break;
    }
    static const uint8_t types[8][2] = { { 11, 0 }, { 11, 1 }, { 3, 0 }, { 3, 1 },
                                         { 3, 0 },  { 3, 4 },  { 0, 0 }, { 11, 0 } };
    unsigned sel = variant >> FR_TYPE_SHIFT;
    uint8_t type = types[sel][0], code = types[sel][1];
    if (sel == 4) {
        code = code_b & 15;
    } else if (sel == 6) {
        type = type_b;
        code = code_b;
    } else if (sel == 7) {
        code = code_b;
    }
    uint32_t our_ip = (variant & FR_NO_IP) ? 0 : FR_OUR_IP;

    fr_check_forward(frame, len, (uint16_t)(ROUTE_MIN_MTU + size_b * 6)); /* 68..1598 */

    uint16_t n;
    free(fr_error_separate(frame, len, out_bytes, type, code, our_ip, &n));
    fr_error_in_place(frame, len, buf_bytes, type, code, our_ip);

    free(frame);
    return 0;
}
