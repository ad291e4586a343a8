/*
 * tests/fuzz/fuzz_route6.c: libFuzzer harness for the IPv6 router's per-frame decisions in
 * net/route6.c: route6_check_and_decrement, route6_fast_check (+ route6_hop_limit_decrement)
 * and route6_icmp_error (into a separate buffer of exactly out_bytes, and in place over a copy
 * of the frame).
 *
 * Input: 8 header bytes, then the frame:
 *   byte 0  bits 0-1  output buffer: ROUTE6_ICMP_ERROR_MAX_FRAME_BYTES / 6 x byte 1 / the
 *                     frame's length / 62 + (byte 1 & 63)
 *           bit 2     also build the error in place (buffer: the frame + (byte 1 & 63))
 *           bits 3-4  our source: 2001:db8:1::1 / fe80::1 / one that is not unicast (byte 2
 *                     picks ::, ff02::1, ::1 or ::ffff:192.0.2.1) / the frame's own destination
 *                     field (aliasing the buffer the error is built in)
 *           bits 5-7  error asked for: 3/0, 3/1, 1/(byte 2 & 7), 2/0 with the MTU, 4/(byte 2
 *                     & 3) with the pointer, raw (byte 3 type, byte 2 code), 1/0, 4/2
 *   byte 1  a size; byte 2 a code; byte 3 a type
 *   bytes 4-7  param (Packet Too Big: 1280 + its low 12 bits unless byte 3 bit 7, then raw)
 *   The error is asked for on every verdict but ROUTE6_FORWARD, and on a forward when byte 3
 *   bit 6 is set (an unreachable destination or a too-big packet after the decrement).
 *
 * Invariants: the fast check never writes, and whenever it passes a frame the full check
 * forwards it to the same destination with the same bytes after route6_hop_limit_decrement;
 * the full check's verdict equals a reference written here from RFC 8200 3-4 and RFC 4291
 * 2.5-2.7 (validity, address classes, the extension chain, hop limit); on ROUTE6_FORWARD only
 * the hop limit changed, by one; otherwise the frame and *dst_out are untouched; exactly one
 * frame-drop counter per frame not forwarded (route6_frame_drops_total). An ICMPv6 error is
 * built exactly when a reference of RFC 4443 2.4(e) says it may be and it fits; it is then
 * <= out_bytes, 102 .. 14 + 1280 bytes, addressed back to the sender from our source, hop limit
 * 64, with a checksum that verifies (by a sum written here, and by inet6_upper_csum) and the
 * packet quoted from its IPv6 header on, as much as fits 1280 bytes and the buffer; otherwise
 * exactly one suppression counter grew and the buffer is untouched. Built in place it is the
 * same frame, byte for byte.
 */
#include <stdbool.h>
#include <string.h>

#include "net/inet.h"
#include "net/inet6.h"
#include "net/route6.h"
#include "tests/fuzz/fuzz.h"

#define R6_MAX_FRAME_BYTES 4096
#define R6_OUT_MASK 0x03
#define R6_IN_PLACE 0x04
#define R6_SRC_SHIFT 3
#define R6_TYPE_SHIFT 5
#define R6_ON_FORWARD 0x40 /* in byte 3 */
#define R6_RAW_MTU 0x80    /* in byte 3 */
#define R6_FILL 0xa5

static const uint8_t r6_our_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t r6_our_ip[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, [15] = 1 };
static const uint8_t r6_our_ll[16] = { 0xfe, 0x80, [15] = 1 };
static const uint8_t r6_not_unicast[4][16] = {
    { 0 },
    { 0xff, 0x02, [15] = 1 },
    { [15] = 1 },
    { [10] = 0xff, [11] = 0xff, 192, 0, 2, 1 },
};

/* --- a reference of the RFC rules, written independently of net/route6.c and net/inet6.c --- */

FUZZ_UNTRACED static bool r6_all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != 0) {
            return false;
        }
    }
    return true;
}

enum r6_class { R6_UNICAST, R6_MULTICAST, R6_UNSPEC, R6_LOOP, R6_MAPPED, R6_LINK_LOCAL };

FUZZ_UNTRACED static enum r6_class r6_class(const uint8_t *a)
{
    if (a[0] == 0xff) {
        return R6_MULTICAST; /* RFC 4291 2.7 */
    }
    if (a[0] == 0xfe && a[1] >= 0x80 && a[1] <= 0xbf) {
        return R6_LINK_LOCAL; /* 2.5.6: fe80::/10 */
    }
    if (r6_all_zero(a, 15)) {
        return a[15] == 0 ? R6_UNSPEC : a[15] == 1 ? R6_LOOP : R6_UNICAST;
    }
    if (r6_all_zero(a, 10) && a[10] == 0xff && a[11] == 0xff) {
        return R6_MAPPED; /* 2.5.5.2 */
    }
    return R6_UNICAST;
}

struct r6_ref {
    bool valid;        /* Ethernet/IPv6, version 6, payload within the frame */
    uint16_t pkt_len;  /* 40 + payload length */
    int chain;         /* 0 ok, 1 truncated, 2 too long, 3 Hop-by-Hop not first */
    uint8_t proto;     /* after the chain */
    uint32_t off;      /* of proto's header */
    bool later_frag;   /* a fragment with a non-zero offset was met */
};

/* RFC 8200 4: walk at most 8 headers within the packet. */
FUZZ_UNTRACED static void r6_ref_chain(const uint8_t *ip, struct r6_ref *r)
{
    uint8_t nh = ip[6];
    uint32_t off = 40;
    unsigned seen = 0;
    r->chain = 0;
    r->later_frag = false;
    for (;;) {
        bool ext = nh == 0 || nh == 43 || nh == 44 || nh == 51 || nh == 60 || nh == 135 ||
                   nh == 139 || nh == 140;
        if (!ext) {
            break;
        }
        if (seen == 8) {
            r->chain = 2;
            return;
        }
        if (nh == 0 && seen > 0) {
            r->chain = 3;
            return;
        }
        if (off + 2 > r->pkt_len) {
            r->chain = 1;
            return;
        }
        uint32_t n = nh == 44 ? 8 : nh == 51 ? (ip[off + 1] + 2u) * 4 : (ip[off + 1] + 1u) * 8;
        if (off + n > r->pkt_len) {
            r->chain = 1;
            return;
        }
        seen++;
        uint8_t next = ip[off];
        if (nh == 44 && ((ip[off + 2] << 8 | ip[off + 3]) >> 3) != 0) {
            r->later_frag = true;
            nh = next;
            off += n;
            break;
        }
        nh = next;
        off += n;
    }
    r->proto = nh;
    r->off = off;
}

FUZZ_UNTRACED static struct r6_ref r6_ref_parse(const uint8_t *f, uint16_t len)
{
    struct r6_ref r;
    memset(&r, 0, sizeof(r));
    if (len < 54 || f[12] != 0x86 || f[13] != 0xdd || (f[14] >> 4) != 6) {
        return r;
    }
    uint32_t payload = (uint32_t)f[18] << 8 | f[19];
    if (40 + payload > len - 14u) {
        return r;
    }
    r.valid = true;
    r.pkt_len = (uint16_t)(40 + payload);
    r6_ref_chain(f + 14, &r);
    return r;
}

/* The verdict RFC 8200 and RFC 4291 give a router for this frame. */
FUZZ_UNTRACED static enum route6_verdict r6_ref_verdict(const uint8_t *f, uint16_t len)
{
    struct r6_ref r = r6_ref_parse(f, len);
    if (!r.valid || (f[0] & 1) || r6_class(f + 22) != R6_UNICAST ||
        r6_class(f + 38) != R6_UNICAST || r.chain != 0) {
        return ROUTE6_DROP;
    }
    return f[21] <= 1 ? ROUTE6_HOP_LIMIT_EXPIRED : ROUTE6_FORWARD;
}

FUZZ_UNTRACED static bool r6_ref_type_ok(uint8_t type, uint8_t code, uint32_t param)
{
    return (type == 1 && code <= 6) || (type == 2 && code == 0 && param >= 1280) ||
           (type == 3 && code <= 1) || (type == 4 && code <= 2);
}

/* RFC 4443 2.2 and 2.4(e): may an error about this frame be sent from our_src at all? */
FUZZ_UNTRACED static bool r6_ref_may_error(const uint8_t *f, uint16_t len, uint8_t type,
                                           uint8_t code, uint32_t param, const uint8_t *our_src,
                                           struct r6_ref *r)
{
    *r = r6_ref_parse(f, len);
    enum r6_class me = r6_class(our_src);
    if (!r6_ref_type_ok(type, code, param) || (me != R6_UNICAST && me != R6_LINK_LOCAL)) {
        return false;
    }
    if (!r->valid || r->chain != 0 || (f[6] & 1)) {
        return false;
    }
    bool group_ok = type == 2 || (type == 4 && code == 2);
    if (!group_ok && ((f[0] & 1) || f[38] == 0xff)) {
        return false;
    }
    enum r6_class src = r6_class(f + 22);
    if (src != R6_UNICAST && src != R6_LINK_LOCAL) {
        return false;
    }
    const uint8_t *ip = f + 14;
    if (r->later_frag) {
        bool maybe_icmp = r->proto == 58 || r->proto == 0 || r->proto == 43 || r->proto == 44 ||
                          r->proto == 51 || r->proto == 60 || r->proto == 135 ||
                          r->proto == 139 || r->proto == 140;
        return !maybe_icmp;
    }
    if (r->proto == 58) {
        if (r->off >= r->pkt_len) {
            return false;
        }
        uint8_t t = ip[r->off];
        if (t < 128 || (t >= 133 && t <= 137)) {
            return false;
        }
    }
    return true;
}

/* --- checks --------------------------------------------------------------------------------- */

/* The ICMPv6 checksum over the pseudo-header (RFC 8200 8.1) of the header at ip6 and the
 * message: 0 when it verifies. */
FUZZ_UNTRACED static uint16_t r6_icmp6_csum(const uint8_t *ip6, const uint8_t *msg, size_t len)
{
    uint32_t sum = 0;
    for (int i = 8; i < 40; i += 2) {
        sum += (uint32_t)ip6[i] << 8 | ip6[i + 1];
    }
    sum += (uint32_t)(len >> 16) + (uint32_t)(len & 0xffff) + 58;
    for (size_t i = 0; i + 1 < len; i += 2) {
        sum += (uint32_t)msg[i] << 8 | msg[i + 1];
    }
    if (len & 1) {
        sum += (uint32_t)msg[len - 1] << 8;
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return (uint16_t)~sum;
}

FUZZ_UNTRACED static uint64_t r6_counter(const struct route6_drop_stats *st, size_t i)
{
    uint64_t v;
    memcpy(&v, (const uint8_t *)st + route6_drop_counters[i].offset, sizeof(v));
    return v;
}

/* Of the counters [from, to): how many moved between a and b (each by exactly one). */
FUZZ_UNTRACED static unsigned r6_moved(const struct route6_drop_stats *a,
                                       const struct route6_drop_stats *b, size_t from, size_t to)
{
    unsigned moved = 0;
    for (size_t i = from; i < to; i++) {
        uint64_t va = r6_counter(a, i), vb = r6_counter(b, i);
        if (va != vb) {
            FUZZ_CHECK(vb == va + 1);
            moved++;
        }
    }
    return moved;
}

/* The frame through the fast and the full check. Returns the verdict; f is left as the full
 * check left it. */
static enum route6_verdict r6_check_forward(uint8_t *f, const uint8_t *in, uint16_t len)
{
    struct route6_drop_stats st;
    memset(&st, 0, sizeof(st));
    const uint8_t sentinel = 0;
    const uint8_t *dst = &sentinel;

    const uint8_t *fast = route6_fast_check(f, len);
    FUZZ_CHECK(memcmp(f, in, len) == 0);
    FUZZ_CHECK(fast == NULL || fast == f + 14 + 24);
    enum route6_verdict v = route6_check_and_decrement(f, len, &st, &dst);
    FUZZ_CHECK(v == ROUTE6_FORWARD || v == ROUTE6_HOP_LIMIT_EXPIRED || v == ROUTE6_DROP);
    FUZZ_CHECK(fast == NULL || (v == ROUTE6_FORWARD && dst == fast));
    FUZZ_CHECK(v == r6_ref_verdict(in, len));

    FUZZ_CHECK(route6_frame_drops_total(&st) == (v == ROUTE6_FORWARD ? 0u : 1u));
    struct route6_drop_stats zero;
    memset(&zero, 0, sizeof(zero));
    FUZZ_CHECK(r6_moved(&zero, &st, 0, route6_frame_drop_counter_count) ==
               (v == ROUTE6_FORWARD ? 0u : 1u));
    FUZZ_CHECK(r6_moved(&zero, &st, route6_frame_drop_counter_count,
                        route6_drop_counter_count) == 0);
    FUZZ_CHECK((v == ROUTE6_HOP_LIMIT_EXPIRED) == (st.hop_limit_expired == 1));
    if (v != ROUTE6_FORWARD) {
        FUZZ_CHECK(memcmp(f, in, len) == 0 && dst == &sentinel);
        return v;
    }
    FUZZ_CHECK(dst == f + 14 + 24);
    FUZZ_CHECK(in[21] > 1 && f[21] == in[21] - 1);
    for (uint16_t i = 0; i < len; i++) {
        FUZZ_CHECK(f[i] == in[i] || i == 21);
    }
    if (fast != NULL) {
        uint8_t *g = fuzz_alloc_copy(in, len, len);
        route6_hop_limit_decrement(g + 14);
        FUZZ_CHECK(memcmp(g, f, len) == 0);
        free(g);
    }
    return v;
}

/* A built error (n bytes in o, out_bytes long) about the frame in (len bytes), from src. */
static void r6_check_error_frame(const uint8_t *o, uint16_t n, uint16_t out_bytes,
                                 const uint8_t *in, const struct r6_ref *r, uint8_t type,
                                 uint8_t code, uint32_t param, const uint8_t *src)
{
    FUZZ_CHECK(n <= out_bytes);
    FUZZ_CHECK(n >= 102 && n <= ROUTE6_ICMP_ERROR_MAX_FRAME_BYTES);
    uint32_t quote = r->pkt_len;
    if (quote > 1232) {
        quote = 1232;
    }
    if (quote > out_bytes - 62u) {
        quote = out_bytes - 62u;
    }
    FUZZ_CHECK(n == 62 + quote);
    FUZZ_CHECK(memcmp(o, in + 6, 6) == 0 && memcmp(o + 6, r6_our_mac, 6) == 0);
    FUZZ_CHECK(o[12] == 0x86 && o[13] == 0xdd);
    const uint8_t *ip = o + 14;
    FUZZ_CHECK(ip[0] == 0x60 && ip[1] == 0 && ip[2] == 0 && ip[3] == 0);
    FUZZ_CHECK((ip[4] << 8 | ip[5]) == n - 54);
    FUZZ_CHECK(40 + (ip[4] << 8 | ip[5]) <= 1280);
    FUZZ_CHECK(ip[6] == 58 && ip[7] == 64);
    FUZZ_CHECK(memcmp(ip + 8, src, 16) == 0);
    FUZZ_CHECK(memcmp(ip + 24, in + 22, 16) == 0);
    const uint8_t *icmp = ip + 40;
    FUZZ_CHECK(icmp[0] == type && icmp[1] == code);
    uint32_t word = (uint32_t)icmp[4] << 24 | (uint32_t)icmp[5] << 16 | (uint32_t)icmp[6] << 8 |
                    icmp[7];
    FUZZ_CHECK(word == (type == 2 || type == 4 ? param : 0));
    FUZZ_CHECK(r6_icmp6_csum(ip, icmp, n - 54u) == 0);
    FUZZ_CHECK(inet6_upper_csum(ip, icmp, n - 54u, INET6_NH_ICMPV6) == 0);
    FUZZ_CHECK(memcmp(icmp + 8, in + 14, quote) == 0);
}

/* The error into a separate buffer of exactly out_bytes. Returns the buffer (n: its frame's
 * length, 0 if none). */
static uint8_t *r6_error_separate(const uint8_t *f, uint16_t len, uint16_t out_bytes,
                                  uint8_t type, uint8_t code, uint32_t param,
                                  const uint8_t *src_arg, uint16_t *n)
{
    uint8_t src[16];
    memcpy(src, src_arg, 16);
    uint8_t *o = fuzz_alloc_copy(NULL, out_bytes, 0);
    if (out_bytes != 0) {
        memset(o, R6_FILL, out_bytes);
    }
    uint8_t *in = fuzz_alloc_copy(f, len, len);
    struct route6_drop_stats st, st0;
    memset(&st, 0, sizeof(st));
    st0 = st;
    *n = route6_icmp_error(o, out_bytes, in, len, type, code, param, src_arg, r6_our_mac, &st);
    FUZZ_CHECK(memcmp(in, f, len) == 0); /* the offending frame is only read */
    FUZZ_CHECK(route6_frame_drops_total(&st) == 0);
    unsigned moved = r6_moved(&st0, &st, route6_frame_drop_counter_count,
                              route6_drop_counter_count);
    struct r6_ref r;
    bool may = r6_ref_may_error(f, len, type, code, param, src, &r);
    bool room = r.valid && out_bytes >= 62u + (r.pkt_len < 48 ? r.pkt_len : 48u);
    FUZZ_CHECK((*n != 0) == (may && room));
    if (*n == 0) {
        FUZZ_CHECK(moved == 1);
        for (uint16_t i = 0; i < out_bytes; i++) {
            FUZZ_CHECK(o[i] == R6_FILL);
        }
    } else {
        FUZZ_CHECK(moved == 0);
        r6_check_error_frame(o, *n, out_bytes, f, &r, type, code, param, src);
        for (uint16_t i = *n; i < out_bytes; i++) {
            FUZZ_CHECK(o[i] == R6_FILL);
        }
    }
    free(in);
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    uint8_t mode = fuzz_u8(&in);
    uint8_t sz = fuzz_u8(&in);
    uint8_t b2 = fuzz_u8(&in);
    uint8_t b3 = fuzz_u8(&in);
    uint32_t param = fuzz_u32(&in);
    uint16_t len = in.n > R6_MAX_FRAME_BYTES ? R6_MAX_FRAME_BYTES : (uint16_t)in.n;

    uint8_t *orig = fuzz_alloc_copy(in.p, len, len);
    uint8_t *frame = fuzz_alloc_copy(in.p, len, len); /* exactly len: ASan sees over-reads */
    enum route6_verdict v = r6_check_forward(frame, orig, len);
    if (v == ROUTE6_FORWARD && !(b3 & R6_ON_FORWARD)) {
        free(frame);
        free(orig);
        return 0;
    }

    uint16_t out_bytes;
    switch (mode & R6_OUT_MASK) {
    case 0:
        out_bytes = ROUTE6_ICMP_ERROR_MAX_FRAME_BYTES;
        break;
    case 1:
        out_bytes = (uint16_t)(6u * sz);
        break;
    case 2:
        out_bytes = len;
        break;
    default:
        out_bytes = (uint16_t)(62u + (sz & 63u));
        break;
    }
    uint8_t type, code;
    switch (mode >> R6_TYPE_SHIFT) {
    case 0:
        type = 3, code = 0;
        break;
    case 1:
        type = 3, code = 1;
        break;
    case 2:
        type = 1, code = b2 & 7;
        break;
    case 3:
        type = 2, code = 0;
        if (!(b3 & R6_RAW_MTU)) {
            param = 1280 + (param & 0xfff);
        }
        break;
    case 4:
        type = 4, code = b2 & 3;
        break;
    case 5:
        type = b3, code = b2;
        break;
    case 6:
        type = 1, code = 0;
        break;
    default:
        type = 4, code = 2;
        break;
    }
    unsigned src_sel = (mode >> R6_SRC_SHIFT) & 3;
    const uint8_t *src = src_sel == 0   ? r6_our_ip
                         : src_sel == 1 ? r6_our_ll
                         : src_sel == 2 ? r6_not_unicast[b2 >> 6]
                                        : NULL;
    /* the frame's own destination field (only where there is one) */
    bool alias = src == NULL && len >= 54;
    if (src == NULL) {
        src = len >= 54 ? frame + 14 + 24 : r6_our_ip;
    }

    uint16_t n;
    uint8_t *sep = r6_error_separate(frame, len, out_bytes, type, code, param, src, &n);

    if (mode & R6_IN_PLACE) {
        /* In place, in a buffer that holds the frame and (byte 1 & 63) bytes more: the same
         * result as built apart into a buffer of that size. */
        uint16_t buf_bytes = (uint16_t)(len + (sz & 63u));
        uint8_t *b = fuzz_alloc_copy(frame, buf_bytes, len);
        if (buf_bytes > len) {
            memset(b + len, R6_FILL, buf_bytes - len);
        }
        uint8_t src_copy[16];
        memcpy(src_copy, src, 16);
        uint16_t want_n;
        uint8_t *want = r6_error_separate(frame, len, buf_bytes, type, code, param, src_copy,
                                          &want_n);
        struct route6_drop_stats st;
        memset(&st, 0, sizeof(st));
        const uint8_t *src_in_place = alias ? b + 14 + 24 : src;
        uint16_t got = route6_icmp_error(b, buf_bytes, b, len, type, code, param, src_in_place,
                                         r6_our_mac, &st);
        FUZZ_CHECK(got == want_n);
        if (got != 0) {
            FUZZ_CHECK(memcmp(b, want, got) == 0);
        } else {
            FUZZ_CHECK(memcmp(b, frame, len) == 0); /* nothing written */
        }
        free(want);
        free(b);
    }
    free(sep);
    free(frame);
    free(orig);
    return 0;
}
