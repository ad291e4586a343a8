/*
 * tests/fuzz/fuzz_net_local6.c: libFuzzer harness for the IPv6 own-address input path,
 * net/local6.c's net_local6_input (with net/inet6.c and net/inet.c), on frames from the input.
 *
 * Input: byte 0 picks the interface and the buffer, byte 1 holds a size (bits 0-5) and two
 * helps (bits 6, 7), the rest is the frame (or, with L6_MULTI, up to L6_MAX_FRAMES frames, each
 * after a 2-byte big-endian length):
 *   byte 0  bits 0-1  buffer: exactly the frame / frame + (byte 1 & 63) / 1600 bytes (or the
 *                     frame) / shorter than the frame by 1 + (byte 1 & 7) (the caller-bug path)
 *           bit 2     IPv6 off on the interface
 *           bit 3     no global address
 *           bit 4     the sink is on (TCP and UDP to us: NET_SINK), and the interface
 *                     advertises (router solicitations reported, not dropped)
 *           bit 5     another port's address (2001:db8:2::1) is also ours
 *           bit 6     no link-local address (all zeros)
 *           bit 7     several frames (L6_MULTI), sharing one set of counters
 *   byte 1  bit 7     the harness rewrites each frame's ICMPv6 checksum (a fuzzer cannot keep it
 *                     valid by itself; without it NS, NA and echo stay out of reach)
 *           bit 6     the harness sets the Ethernet destination to what the IPv6 destination
 *                     calls for: the group's 33:33 MAC, or ours
 * Our interface: 02:00:00:00:00:01, fe80::ff:fe00:1 (its EUI-64 address), 2001:db8:1::a:1.
 *
 * Invariants: one verdict per call, counted once (net_local6_total grows by exactly 1, in the
 * counter that matches the verdict; at most one drop counter, by one); *out_len written only
 * for NET_REPLY, then 62 .. buf_bytes, nothing written past it (but an echo request's own type
 * and checksum bytes, left behind a chain longer than its message), and nothing at all for
 * other verdicts; the buffer is allocated with exactly buf_bytes, so ASan sees any access past it;
 * replies well formed: a neighbour advertisement (86 bytes, hop limit 255, from the target to
 * the solicitor or all-nodes, R/S/O as RFC 4861 7.2.4 and RFC 4862 5.4.3 say, our MAC in a
 * target link-layer option) for a solicitation of one of our addresses, an echo reply (from
 * the address asked to the asker, hop limit 64, DSCP kept, identifier, sequence and data
 * returned whole) for an echo request to one of ours; every reply's ICMPv6 checksum verifies by
 * a sum written here and equals a full recompute; learn cleared on every call and filled only
 * by an answered solicitation with a source link-layer option, an advertisement about another
 * node or a reported router solicitation with that option (from its sender), router_solicited
 * set exactly for a reported router solicitation (advertising interface, hop limit 255, type
 * 133, code 0) and claims_ours exactly for the drop dad_conflict (an advertisement for one of
 * our addresses: the address and the claimant's MAC); a disabled interface drops everything.
 */
#include <stdbool.h>
#include <string.h>

#include "net/inet.h"
#include "net/inet6.h"
#include "net/local6.h"
#include "tests/fuzz/fuzz.h"

#define L6_BUF_MASK 0x03
#define L6_BUF_TIGHT 0
#define L6_BUF_SLACK 1
#define L6_BUF_BIG 2
#define L6_DISABLED 0x04
#define L6_NO_GLOBAL 0x08
#define L6_SINK 0x10
#define L6_ALSO 0x20
#define L6_NO_LL 0x40
#define L6_MULTI 0x80
#define L6_FIX_CSUM 0x80 /* in byte 1 */
#define L6_FIX_ETH 0x40  /* in byte 1 */
#define L6_BIG_BYTES 1600
#define L6_MAX_FRAMES 16
#define L6_MAX_FRAME_BYTES 4096
#define L6_FILL 0xa5

static const uint8_t l6_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t l6_ll[16] = { 0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 0x01 };
static const uint8_t l6_global[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, [13] = 0x0a,
                                       [15] = 0x01 };
static const uint8_t l6_also[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x02, [15] = 0x01 };
static const uint8_t l6_all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };

struct l6_ctx {
    struct net_iface6 ifc;
    struct net_local6_stats st;
};

/* --- helpers written apart from net/inet6.c --------------------------------------------------- */

FUZZ_UNTRACED static bool l6_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != 0) {
            return false;
        }
    }
    return true;
}

static bool l6_eq(const uint8_t *a, const uint8_t *b)
{
    return memcmp(a, b, 16) == 0;
}

/* ::, ::1 or an IPv4-mapped address: names no node on a wire (RFC 4291 2.5.2, 2.5.3, 2.5.5.2). */
static bool l6_nowhere(const uint8_t *a)
{
    return (l6_zero(a, 15) && a[15] <= 1) || (l6_zero(a, 10) && a[10] == 0xff && a[11] == 0xff);
}

/* The addresses NS is answered for (this interface's), and those echo is answered for. */
static bool l6_mine(const struct net_iface6 *i, const uint8_t *a)
{
    if (l6_zero(a, 16)) {
        return false;
    }
    return l6_eq(a, i->link_local) || (i->has_global && l6_eq(a, i->global));
}

static bool l6_ours(const struct net_iface6 *i, const uint8_t *a)
{
    return l6_mine(i, a) || (i->n_also_ours == 1 && !l6_zero(a, 16) && l6_eq(a, i->also_ours[0]));
}

/* The ICMPv6 checksum over the pseudo-header (RFC 8200 8.1) and the message: 0 when it
 * verifies. */
FUZZ_UNTRACED static uint16_t l6_icmp6_csum(const uint8_t *ip6, const uint8_t *msg, size_t len)
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

/* Where the upper layer starts in an IPv6 frame of len bytes: a bounded walk of RFC 8200 4's
 * chain. Returns false when the frame is no walkable IPv6 packet; *ip6_len: 40 + payload. */
FUZZ_UNTRACED static bool l6_upper(const uint8_t *f, size_t len, uint8_t *proto, uint32_t *off,
                                   uint32_t *ip6_len)
{
    if (len < 54 || f[12] != 0x86 || f[13] != 0xdd) {
        return false;
    }
    const uint8_t *ip = f + 14;
    *ip6_len = 40 + ((uint32_t)ip[4] << 8 | ip[5]);
    if (*ip6_len > len - 14) {
        return false;
    }
    uint8_t nh = ip[6];
    uint32_t o = 40;
    for (int n = 0; n < 9; n++) {
        bool ext = nh == 0 || nh == 43 || nh == 44 || nh == 51 || nh == 60 || nh == 135 ||
                   nh == 139 || nh == 140;
        if (!ext) {
            *proto = nh;
            *off = o;
            return true;
        }
        if (o + 2 > *ip6_len) {
            return false;
        }
        uint32_t hl = nh == 44 ? 8 : nh == 51 ? (ip[o + 1] + 2u) * 4 : (ip[o + 1] + 1u) * 8;
        if (o + hl > *ip6_len) {
            return false;
        }
        nh = ip[o];
        o += hl;
    }
    return false;
}

/* Rewrite the ICMPv6 checksum of the frame, where there is a whole ICMPv6 header to hold it. */
FUZZ_UNTRACED static void l6_fix_csum(uint8_t *f, size_t len)
{
    uint8_t proto;
    uint32_t off, ip6_len;
    if (!l6_upper(f, len, &proto, &off, &ip6_len) || proto != 58 || off + 4 > ip6_len) {
        return;
    }
    uint8_t *ip = f + 14, *m = ip + off;
    m[2] = m[3] = 0;
    uint16_t c = l6_icmp6_csum(ip, m, ip6_len - off);
    m[2] = (uint8_t)(c >> 8);
    m[3] = (uint8_t)c;
}

static void l6_fix_eth(uint8_t *f, size_t len)
{
    if (len < 54) {
        return;
    }
    const uint8_t *dst = f + 14 + 24;
    if (dst[0] == 0xff) {
        f[0] = f[1] = 0x33;
        memcpy(f + 2, dst + 12, 4);
    } else {
        memcpy(f, l6_mac, 6);
    }
}

/* --- checks ----------------------------------------------------------------------------------- */

/* The drop counter that moved in this call: its index, or -1; at most one, by exactly one. */
FUZZ_UNTRACED static int l6_moved_drop(const struct net_drop6_stats *a,
                                       const struct net_drop6_stats *b)
{
    int moved = -1;
    for (size_t i = 0; i < net_drop6_counter_count; i++) {
        uint64_t va, vb;
        memcpy(&va, (const uint8_t *)a + net_drop6_counters[i].offset, sizeof(va));
        memcpy(&vb, (const uint8_t *)b + net_drop6_counters[i].offset, sizeof(vb));
        if (va != vb) {
            FUZZ_CHECK(vb == va + 1 && moved < 0);
            moved = (int)i;
        }
    }
    return moved;
}

static bool l6_drop_is(int moved, const char *name)
{
    return moved >= 0 && strcmp(net_drop6_counters[moved].name, name) == 0;
}

/* The reply's common part: Ethernet from us, IPv6 version 6 carrying all of it as ICMPv6, a
 * checksum that verifies and equals a full recompute. */
static void l6_check_icmp6_reply(const struct l6_ctx *c, const uint8_t *f, uint16_t out_len)
{
    FUZZ_CHECK(memcmp(f + 6, c->ifc.mac, 6) == 0);
    FUZZ_CHECK(f[12] == 0x86 && f[13] == 0xdd);
    const uint8_t *ip = f + 14;
    FUZZ_CHECK((ip[0] >> 4) == 6 && (ip[1] & 0x0f) == 0 && ip[2] == 0 && ip[3] == 0);
    FUZZ_CHECK(((uint32_t)ip[4] << 8 | ip[5]) == out_len - 54u);
    FUZZ_CHECK(ip[6] == 58);
    uint32_t mlen = out_len - 54u;
    FUZZ_CHECK(mlen >= 8);
    FUZZ_CHECK(l6_icmp6_csum(ip, ip + 40, mlen) == 0);
    FUZZ_CHECK(inet6_upper_csum(ip, ip + 40, mlen, INET6_NH_ICMPV6) == 0);
    uint8_t *m = fuzz_alloc_copy(ip + 40, mlen, mlen);
    m[2] = m[3] = 0;
    FUZZ_CHECK(l6_icmp6_csum(ip, m, mlen) == ((uint16_t)ip[42] << 8 | ip[43]));
    free(m);
    /* no reply goes from a group or ::, nor to ::, ::1 or a v4-mapped address */
    FUZZ_CHECK(ip[8] != 0xff && !l6_zero(ip + 8, 16));
    FUZZ_CHECK(!l6_nowhere(ip + 24));
    FUZZ_CHECK(!inet_eth_is_group(f) || (f[0] == 0x33 && f[1] == 0x33));
}

/* A neighbour advertisement for the solicitation req. */
static void l6_check_na(const struct l6_ctx *c, const uint8_t *req, uint16_t len,
                        const uint8_t *f, uint16_t out_len, const struct net6_learn *learn,
                        bool learned)
{
    uint8_t proto;
    uint32_t off, ip6_len;
    FUZZ_CHECK(l6_upper(req, len, &proto, &off, &ip6_len) && proto == 58);
    const uint8_t *qip = req + 14, *q = qip + off;
    FUZZ_CHECK(ip6_len - off >= 24 && q[0] == 135 && q[1] == 0 && qip[7] == 255);
    const uint8_t *target = q + 8;
    FUZZ_CHECK(l6_mine(&c->ifc, target));
    bool dad = l6_zero(qip + 8, 16);

    FUZZ_CHECK(out_len == 86);
    l6_check_icmp6_reply(c, f, out_len);
    const uint8_t *ip = f + 14, *m = ip + 40;
    static const uint8_t all_nodes_mac[6] = { 0x33, 0x33, 0, 0, 0, 1 };
    FUZZ_CHECK(memcmp(f, dad ? all_nodes_mac : req + 6, 6) == 0);
    FUZZ_CHECK(ip[7] == 255);
    FUZZ_CHECK(l6_eq(ip + 8, target));
    FUZZ_CHECK(l6_eq(ip + 24, dad ? l6_all_nodes : qip + 8));
    FUZZ_CHECK(m[0] == 136 && m[1] == 0);
    FUZZ_CHECK(m[4] == (dad ? 0xa0 : 0xe0) && m[5] == 0 && m[6] == 0 && m[7] == 0);
    FUZZ_CHECK(l6_eq(m + 8, target));
    FUZZ_CHECK(m[24] == 2 && m[25] == 1 && memcmp(m + 26, c->ifc.mac, 6) == 0);
    /* the sender learned exactly when it said its MAC */
    FUZZ_CHECK(learn->valid == learned);
    if (learned) {
        FUZZ_CHECK(!dad && !learn->from_na && l6_eq(learn->ip, qip + 8));
        FUZZ_CHECK(!inet_eth_is_group(learn->mac) && !l6_zero(learn->mac, 6));
        FUZZ_CHECK(!learn->solicited && !learn->override_flag && !learn->router);
    }
}

/* An echo reply for the request req. */
static void l6_check_echo(const struct l6_ctx *c, const uint8_t *req, uint16_t len,
                          const uint8_t *f, uint16_t out_len)
{
    uint8_t proto;
    uint32_t off, ip6_len;
    FUZZ_CHECK(l6_upper(req, len, &proto, &off, &ip6_len) && proto == 58);
    const uint8_t *qip = req + 14, *q = qip + off;
    uint32_t mlen = ip6_len - off;
    FUZZ_CHECK(mlen >= 8 && q[0] == 128 && q[1] == 0);
    FUZZ_CHECK(l6_ours(&c->ifc, qip + 24) && qip[24] != 0xff);
    FUZZ_CHECK(!l6_zero(qip + 8, 16) && !l6_ours(&c->ifc, qip + 8));

    FUZZ_CHECK(out_len == 54 + mlen);
    l6_check_icmp6_reply(c, f, out_len);
    const uint8_t *ip = f + 14, *m = ip + 40;
    FUZZ_CHECK(memcmp(f, req + 6, 6) == 0);
    /* DSCP kept, ECN cleared, flow label 0 */
    uint8_t qtc = (uint8_t)((qip[0] & 0x0f) << 4 | qip[1] >> 4);
    uint8_t tc = (uint8_t)((ip[0] & 0x0f) << 4 | ip[1] >> 4);
    FUZZ_CHECK(tc == (qtc & 0xfc));
    FUZZ_CHECK(ip[7] == 64);
    FUZZ_CHECK(l6_eq(ip + 8, qip + 24) && l6_eq(ip + 24, qip + 8));
    FUZZ_CHECK(m[0] == 129 && m[1] == 0);
    FUZZ_CHECK(memcmp(m + 4, q + 4, mlen - 4) == 0);
}

/* A reported router solicitation (RFC 4861 6.1.1) and what it taught: its sender and the MAC
 * of its first source link-layer option, if it came from a specified address with one. */
static void l6_check_rs(const struct l6_ctx *c, const uint8_t *req, uint16_t len,
                        const struct net6_learn *learn, bool learned)
{
    uint8_t proto;
    uint32_t off, ip6_len;
    FUZZ_CHECK(l6_upper(req, len, &proto, &off, &ip6_len) && proto == 58);
    const uint8_t *qip = req + 14, *q = qip + off;
    uint32_t mlen = ip6_len - off;
    FUZZ_CHECK(c->ifc.advertise && learn->router_solicited && !learn->claims_ours);
    FUZZ_CHECK(mlen >= 8 && q[0] == 133 && q[1] == 0 && qip[7] == 255);
    FUZZ_CHECK(!l6_ours(&c->ifc, qip + 8));
    const uint8_t *slla = NULL;
    for (uint32_t i = 8; i + 8 <= mlen && slla == NULL; i += q[i + 1] * 8u) {
        FUZZ_CHECK(q[i + 1] != 0);
        slla = q[i] == 1 ? q + i + 2 : NULL;
    }
    FUZZ_CHECK(!(slla != NULL && l6_zero(qip + 8, 16))); /* 6.1.1: none from :: */
    FUZZ_CHECK(learn->valid == learned && learned == (slla != NULL));
    if (learned) {
        FUZZ_CHECK(!learn->from_na && l6_eq(learn->ip, qip + 8));
        FUZZ_CHECK(memcmp(learn->mac, slla, 6) == 0 && !inet_eth_is_group(learn->mac));
    }
}

/* One frame through net_local6_input, and every check that applies to its outcome. */
static void l6_one_frame(struct l6_ctx *c, const uint8_t *bytes, uint16_t len, uint8_t variant,
                         uint8_t help)
{
    uint32_t buf_bytes;
    switch (variant & L6_BUF_MASK) {
    case L6_BUF_TIGHT:
        buf_bytes = len;
        break;
    case L6_BUF_SLACK:
        buf_bytes = (uint32_t)len + (help & 63u);
        break;
    case L6_BUF_BIG:
        buf_bytes = len > L6_BIG_BYTES ? len : L6_BIG_BYTES;
        break;
    default:
        buf_bytes = len > (help & 7u) ? len - 1u - (help & 7u) : 0;
        break;
    }

    uint8_t *req = fuzz_alloc_copy(bytes, len, len); /* the frame as sent */
    if (help & L6_FIX_ETH) {
        l6_fix_eth(req, len);
    }
    if (help & L6_FIX_CSUM) {
        l6_fix_csum(req, len);
    }
    /* Exactly buf_bytes on the heap: the frame, then a fill pattern. */
    uint8_t *buf = fuzz_alloc_copy(req, buf_bytes, len);
    if (buf_bytes > len) {
        memset(buf + len, L6_FILL, buf_bytes - len);
    }
    uint8_t *orig = fuzz_alloc_copy(buf, buf_bytes, buf_bytes);

    struct net_local6_stats st0 = c->st;
    uint64_t total0 = net_local6_total(&c->st);
    const uint16_t sentinel = 0xbeef;
    uint16_t out_len = sentinel;
    struct net6_learn learn;
    memset(&learn, 0x5a, sizeof(learn));

    enum net_verdict v = net_local6_input(&c->ifc, buf, len, (uint16_t)buf_bytes, &out_len,
                                          &c->st, &learn);

    FUZZ_CHECK(v == NET_REPLY || v == NET_CONSUMED || v == NET_DROP || v == NET_PASS ||
               v == NET_SINK);
    FUZZ_CHECK(net_local6_total(&c->st) == total0 + 1);
    int moved = l6_moved_drop(&st0.drop, &c->st.drop);
    uint64_t ns = c->st.ns_answered - st0.ns_answered;
    uint64_t echo = c->st.echo6_answered - st0.echo6_answered;
    uint64_t na = c->st.na_learned - st0.na_learned;
    uint64_t rs = c->st.rs_reported - st0.rs_reported;
    uint64_t rs_learned = c->st.rs_learned - st0.rs_learned;
    uint64_t passed = c->st.ip6_passed - st0.ip6_passed;
    uint64_t sunk = c->st.ip6_to_sink - st0.ip6_to_sink;
    uint64_t ns_learned = c->st.ns_learned - st0.ns_learned;
    FUZZ_CHECK((v == NET_DROP) == (moved >= 0));
    FUZZ_CHECK((v == NET_REPLY) == (ns + echo == 1));
    FUZZ_CHECK((v == NET_CONSUMED) == (na + rs == 1));
    FUZZ_CHECK(learn.router_solicited == (rs == 1));
    FUZZ_CHECK(rs_learned <= rs);
    FUZZ_CHECK((v == NET_PASS) == (passed == 1));
    FUZZ_CHECK((v == NET_SINK) == (sunk == 1));
    FUZZ_CHECK(ns_learned <= ns);
    FUZZ_CHECK((len > buf_bytes) == l6_drop_is(moved, "frame_exceeds_buffer"));
    FUZZ_CHECK(c->ifc.enabled || v == NET_DROP);

    /* learn: cleared on every call, filled only by an answered NS or a learned NA, or (not
     * valid then) an NA claiming one of our addresses, the drop dad_conflict */
    if (!learn.valid && !learn.claims_ours && !learn.router_solicited) {
        struct net6_learn zero;
        memset(&zero, 0, sizeof(zero));
        FUZZ_CHECK(memcmp(&learn, &zero, sizeof(zero)) == 0);
    }
    FUZZ_CHECK(learn.claims_ours == l6_drop_is(moved, "dad_conflict"));
    if (learn.claims_ours) {
        uint8_t proto;
        uint32_t off, ip6_len;
        FUZZ_CHECK(!learn.valid);
        FUZZ_CHECK(l6_upper(req, len, &proto, &off, &ip6_len) && proto == 58);
        const uint8_t *q = req + 14 + off;
        FUZZ_CHECK(q[0] == 136 && l6_eq(learn.ip, q + 8) && l6_ours(&c->ifc, learn.ip));
        /* the claimant's MAC: from a target link-layer option, or the Ethernet source */
        bool from_option = false;
        for (uint32_t i = 24; i + 8 <= ip6_len - off; i += 8) {
            from_option |= q[i] == 2 && q[i + 1] == 1 && memcmp(q + i + 2, learn.mac, 6) == 0;
        }
        FUZZ_CHECK(from_option || memcmp(learn.mac, req + 6, 6) == 0);
    }
    FUZZ_CHECK(!learn.valid || v == NET_CONSUMED || (v == NET_REPLY && ns == 1));
    FUZZ_CHECK((v == NET_REPLY && ns == 1) ? learn.valid == (ns_learned == 1) : true);

    if (v == NET_REPLY) {
        FUZZ_CHECK(out_len >= 62 && out_len <= buf_bytes);
        /* Nothing written past the reply, but for the request's own type and checksum bytes:
         * an echo reply is made in the request's message (type, checksum by RFC 1624) and then
         * moved up over the extension headers, so behind a chain longer than the message those
         * bytes stay changed, inside the received frame, past the reply. */
        uint8_t proto;
        uint32_t off = 0, ip6_len;
        bool echo_ext = ns == 0 && l6_upper(req, len, &proto, &off, &ip6_len) && off > 40;
        for (uint32_t i = out_len; i < buf_bytes; i++) {
            uint32_t at = i - 14 - off;
            FUZZ_CHECK(buf[i] == orig[i] ||
                       (echo_ext && i >= 14 + off && (at == 0 || at == 2 || at == 3)));
        }
        if (ns == 1) {
            l6_check_na(c, req, len, buf, out_len, &learn, ns_learned == 1);
        } else {
            l6_check_echo(c, req, len, buf, out_len);
        }
    } else {
        FUZZ_CHECK(out_len == sentinel);
        FUZZ_CHECK(memcmp(buf, orig, buf_bytes) == 0); /* a frame not answered is unchanged */
    }

    const uint8_t *qip = req + 14;
    if (v == NET_CONSUMED && rs == 1) {
        l6_check_rs(c, req, len, &learn, rs_learned == 1);
    } else if (v == NET_CONSUMED) {
        uint8_t proto;
        uint32_t off, ip6_len;
        FUZZ_CHECK(l6_upper(req, len, &proto, &off, &ip6_len) && proto == 58);
        const uint8_t *q = qip + off;
        FUZZ_CHECK(q[0] == 136 && qip[7] == 255);
        FUZZ_CHECK(learn.valid && learn.from_na && l6_eq(learn.ip, q + 8));
        FUZZ_CHECK(!l6_ours(&c->ifc, learn.ip) && learn.ip[0] != 0xff && !l6_nowhere(learn.ip));
        /* a solicited one without a target link-layer option only confirms: no MAC */
        FUZZ_CHECK(learn.confirm_only ? learn.solicited && l6_zero(learn.mac, 6)
                                      : !inet_eth_is_group(learn.mac) && !l6_zero(learn.mac, 6));
        FUZZ_CHECK(learn.solicited == ((q[4] & 0x40) != 0));
        FUZZ_CHECK(learn.override_flag == ((q[4] & 0x20) != 0));
        FUZZ_CHECK(learn.router == ((q[4] & 0x80) != 0));
        FUZZ_CHECK(!(learn.solicited && qip[24] == 0xff));
    }
    if (v == NET_PASS) {
        /* valid unicast for another host, from a usable source, to our MAC */
        FUZZ_CHECK(memcmp(req, c->ifc.mac, 6) == 0);
        FUZZ_CHECK(qip[24] != 0xff && !l6_ours(&c->ifc, qip + 24));
        FUZZ_CHECK(!l6_nowhere(qip + 24));
        FUZZ_CHECK(qip[8] != 0xff && !l6_nowhere(qip + 8) && !l6_ours(&c->ifc, qip + 8));
        FUZZ_CHECK((qip[0] >> 4) == 6);
    }
    if (v == NET_SINK) {
        uint8_t proto;
        uint32_t off, ip6_len;
        FUZZ_CHECK(c->ifc.sink);
        FUZZ_CHECK(l6_upper(req, len, &proto, &off, &ip6_len) && (proto == 6 || proto == 17));
        FUZZ_CHECK(l6_ours(&c->ifc, qip + 24));
        FUZZ_CHECK(!l6_zero(qip + 8, 16) && !l6_ours(&c->ifc, qip + 8));
    }

    free(orig);
    free(buf);
    free(req);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    uint8_t variant = fuzz_u8(&in);
    uint8_t help = fuzz_u8(&in);

    struct l6_ctx c;
    memset(&c, 0, sizeof(c));
    memcpy(c.ifc.mac, l6_mac, 6);
    c.ifc.enabled = !(variant & L6_DISABLED);
    if (!(variant & L6_NO_LL)) {
        inet6_link_local_from_mac(c.ifc.link_local, c.ifc.mac);
        FUZZ_CHECK(memcmp(c.ifc.link_local, l6_ll, 16) == 0);
    }
    c.ifc.has_global = !(variant & L6_NO_GLOBAL);
    if (c.ifc.has_global) {
        memcpy(c.ifc.global, l6_global, 16);
    }
    c.ifc.prefix_len = 64;
    c.ifc.sink = (variant & L6_SINK) != 0;
    c.ifc.advertise = (variant & L6_SINK) != 0;
    if (variant & L6_ALSO) {
        c.ifc.n_also_ours = 1;
        memcpy(c.ifc.also_ours[0], l6_also, 16);
    }

    unsigned frames = 0;
    if (!(variant & L6_MULTI)) {
        uint16_t len = in.n > L6_MAX_FRAME_BYTES ? L6_MAX_FRAME_BYTES : (uint16_t)in.n;
        l6_one_frame(&c, in.p, len, variant, help);
        frames = 1;
    } else {
        while (in.n >= 2 && frames < L6_MAX_FRAMES) {
            uint16_t want = fuzz_u16(&in) % (L6_MAX_FRAME_BYTES + 1);
            uint16_t len = want < in.n ? want : (uint16_t)in.n;
            l6_one_frame(&c, in.p, len, variant, help);
            in.p += len;
            in.n -= len;
            frames++;
        }
    }
    FUZZ_CHECK(net_local6_total(&c.st) == frames);
    return 0;
}
