/*
 * tests/unit/test_route6.c: the IPv6 router's per-packet decisions (net/route6.c). Forwarded
 * frames must come out with the hop limit one lower and not another byte changed; every
 * malformed or unforwardable frame must end in exactly its one counter and stay untouched;
 * ICMPv6 errors (RFC 4443) are checked field by field with checksums recomputed here over a
 * pseudo-header built here, and their size held to 2.4(c)'s 1280 bytes; every suppression of
 * 2.4(e) has its counter; the fast path's one-pass check is held to the full check; a seeded
 * mutation loop feeds thousands of damaged frames in buffers of their exact size (so ASan sees
 * any over-read) and checks that the counters add up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "net/inet.h"
#include "net/inet6.h"
#include "net/route.h"
#include "net/route6.h"

#define BUF_BYTES 2048

/* A 16-byte address from eight groups, in the order they are written. */
#define A6(a, b, c, d, e, f, g, h)                                                               \
    {                                                                                            \
        (uint8_t)((a) >> 8), (uint8_t)(a), (uint8_t)((b) >> 8), (uint8_t)(b),                    \
            (uint8_t)((c) >> 8), (uint8_t)(c), (uint8_t)((d) >> 8), (uint8_t)(d),                \
            (uint8_t)((e) >> 8), (uint8_t)(e), (uint8_t)((f) >> 8), (uint8_t)(f),                \
            (uint8_t)((g) >> 8), (uint8_t)(g), (uint8_t)((h) >> 8), (uint8_t)(h)                 \
    }

static const uint8_t our_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t peer_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
static const uint8_t bcast_mac[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t v6_group_mac[6] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t v4_group_mac[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };

static const uint8_t our_ip[16] = A6(0x2001, 0xdb8, 1, 0, 0, 0, 0, 1);  /* the router's */
static const uint8_t our_ll[16] = A6(0xfe80, 0, 0, 0, 0, 0, 0, 1);     /* ... link-local */
static const uint8_t src_ip[16] = A6(0x2001, 0xdb8, 1, 0, 0, 0, 0, 2);  /* a host behind it */
static const uint8_t dst_ip[16] = A6(0x2001, 0xdb8, 0x99, 0, 0, 0, 0, 7);
static const uint8_t ula_ip[16] = A6(0xfd12, 0x3456, 0x789a, 1, 0, 0, 0, 1);
static const uint8_t unspec[16] = A6(0, 0, 0, 0, 0, 0, 0, 0);
static const uint8_t loopback[16] = A6(0, 0, 0, 0, 0, 0, 0, 1);
static const uint8_t v4_mapped[16] = A6(0, 0, 0, 0, 0, 0xffff, 0xc000, 0x0201);
static const uint8_t link_local[16] = A6(0xfe80, 0, 0, 0, 0x1234, 0, 0, 9);
static const uint8_t ll_top[16] = A6(0xfebf, 0xffff, 0, 0, 0, 0, 0, 9);
static const uint8_t all_nodes[16] = A6(0xff02, 0, 0, 0, 0, 0, 0, 1);
static const uint8_t mc_global[16] = A6(0xff0e, 0, 0, 0, 0, 0, 0, 0x101);

static struct route6_drop_stats st;
static uint8_t buf[BUF_BYTES];
static uint8_t out[BUF_BYTES];

static int setup(void **state)
{
    (void)state;
    memset(&st, 0, sizeof(st));
    memset(buf, 0, sizeof(buf));
    memset(out, 0xa5, sizeof(out));
    return 0;
}

/* xorshift64: a fixed-seed generator independent of the C library's rand(). */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* --- reference checksum: RFC 1071 4.1's 16-bit loop over a pseudo-header (RFC 8200 8.1) built
 * here, independent of inet6_pseudo_sum and inet_csum_add ------------------------------------ */

static uint16_t ref_icmp6_csum(const uint8_t *ip6, const uint8_t *msg, size_t mlen)
{
    uint32_t sum = 0;
    for (int i = 8; i < 40; i += 2) { /* source, destination */
        sum += (uint32_t)ip6[i] << 8 | ip6[i + 1];
    }
    sum += (uint32_t)(mlen >> 16) + (uint32_t)(mlen & 0xffff) + 58;
    for (size_t i = 0; i + 1 < mlen; i += 2) {
        sum += (uint32_t)msg[i] << 8 | msg[i + 1];
    }
    if (mlen & 1) {
        sum += (uint32_t)msg[mlen - 1] << 8;
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return (uint16_t)~sum;
}

/* --- frame builders --------------------------------------------------------------------------- */

/* Ethernet (peer -> eth_dst), IPv6 (traffic class 0xb9, flow label 0x12345, hop limit 57),
 * ext_len bytes of extension headers copied from ext (first: the header's next header; the
 * chain's last next-header byte must name proto), then payload bytes 0x00, 0x01, ... Returns the
 * frame length. */
static uint16_t build6x(uint8_t *f, const uint8_t *eth_dst, const uint8_t *src, const uint8_t *dst,
                        uint8_t first, const uint8_t *ext, size_t ext_len, unsigned payload)
{
    memcpy(f, eth_dst, 6);
    memcpy(f + 6, peer_mac, 6);
    inet_store_be16(f + 12, INET_ETHERTYPE_IPV6);
    uint8_t *ip = f + 14;
    inet_store_be32(ip, 6u << 28 | 0xb9u << 20 | 0x12345);
    inet_store_be16(ip + 4, (uint16_t)(ext_len + payload));
    ip[6] = first;
    ip[7] = 57;
    memcpy(ip + 8, src, 16);
    memcpy(ip + 24, dst, 16);
    if (ext_len > 0) {
        memcpy(ip + 40, ext, ext_len);
    }
    for (unsigned i = 0; i < payload; i++) {
        ip[40 + ext_len + i] = (uint8_t)i;
    }
    return (uint16_t)(14 + 40 + ext_len + payload);
}

static uint16_t build6(uint8_t *f, const uint8_t *eth_dst, const uint8_t *src, const uint8_t *dst,
                       uint8_t next, unsigned payload)
{
    return build6x(f, eth_dst, src, dst, next, NULL, 0, payload);
}

/* The everyday case: 40 bytes of UDP from src_ip to dst_ip. */
static uint16_t build_udp(uint8_t *f)
{
    return build6(f, our_mac, src_ip, dst_ip, INET6_NH_UDP, 40);
}

/* An ICMPv6 message of type/code with data_len bytes of data and a valid checksum, behind
 * ext_len bytes of extension headers. */
static uint16_t build_icmp6x(uint8_t *f, uint8_t type, uint8_t code, unsigned data_len,
                             uint8_t first, const uint8_t *ext, size_t ext_len)
{
    uint16_t len = build6x(f, our_mac, src_ip, dst_ip, first, ext, ext_len, 8 + data_len);
    uint8_t *ip = f + 14;
    uint8_t *m = ip + 40 + ext_len;
    m[0] = type;
    m[1] = code;
    m[2] = m[3] = 0;
    inet_store_be16(m + 2, ref_icmp6_csum(ip, m, 8 + data_len));
    return len;
}

static uint16_t build_icmp6(uint8_t *f, uint8_t type, uint8_t code, unsigned data_len)
{
    return build_icmp6x(f, type, code, data_len, INET6_NH_ICMPV6, NULL, 0);
}

static void set_hop(uint8_t *f, uint8_t hop)
{
    f[14 + 7] = hop;
}

/* An 8-byte Destination Options (or Hop-by-Hop, or Routing) header naming next: one PadN. */
static void ext8(uint8_t *h, uint8_t next)
{
    memset(h, 0, 8);
    h[0] = next;
    h[1] = 0;
    h[2] = 1;
    h[3] = 4;
}

static void frag_hdr(uint8_t *h, uint8_t next, uint16_t offset_units, bool more)
{
    memset(h, 0, 8);
    h[0] = next;
    inet_store_be16(h + 2, (uint16_t)(offset_units << 3 | (more ? 1 : 0)));
    inet_store_be32(h + 4, 0x01020304);
}

/* --- counter assertions ----------------------------------------------------------------------- */

static uint64_t counter_at(const struct route6_drop_stats *s, size_t i)
{
    uint64_t v;
    memcpy(&v, (const uint8_t *)s + route6_drop_counters[i].offset, sizeof(v));
    return v;
}

static size_t counter_index(const char *name)
{
    for (size_t i = 0; i < route6_drop_counter_count; i++) {
        if (strcmp(route6_drop_counters[i].name, name) == 0) {
            return i;
        }
    }
    fail_msg("no route6 counter named %s", name);
    return 0;
}

/* Every counter is 0 except `name` (if not NULL), which is 1. */
static void assert_only_counter(const char *name)
{
    if (name != NULL) {
        (void)counter_index(name); /* a misspelt name fails here, not silently */
    }
    for (size_t i = 0; i < route6_drop_counter_count; i++) {
        uint64_t v = counter_at(&st, i);
        uint64_t want = name != NULL && strcmp(route6_drop_counters[i].name, name) == 0;
        if (v != want) {
            fail_msg("expected only %s, but %s = %llu", name ? name : "(none)",
                     route6_drop_counters[i].name, (unsigned long long)v);
        }
    }
}

static uint64_t suppressions(const struct route6_drop_stats *s)
{
    uint64_t n = 0;
    for (size_t i = route6_frame_drop_counter_count; i < route6_drop_counter_count; i++) {
        n += counter_at(s, i);
    }
    return n;
}

/* Run the frame in buf (len bytes) through the full check in an exactly-sized heap copy, so
 * that ASan catches a read past the frame; copy the result back. */
static enum route6_verdict check(uint16_t len, const uint8_t **dst_out)
{
    uint8_t *f = malloc(len ? len : 1);
    assert_non_null(f);
    memcpy(f, buf, len);
    const uint8_t *d = NULL;
    enum route6_verdict v = route6_check_and_decrement(f, len, &st, &d);
    memcpy(buf, f, len);
    if (v == ROUTE6_FORWARD) {
        assert_ptr_equal(d, f + 14 + 24);
        *dst_out = buf + 14 + 24;
    } else {
        assert_null(d); /* untouched */
    }
    free(f);
    return v;
}

/* Feed the frame now in buf, expect verdict `want` counted as `name` alone, an untouched frame
 * and an untouched *dst_out. */
static void expect_verdict(uint16_t len, enum route6_verdict want, const char *name)
{
    static uint8_t before[BUF_BYTES];
    memcpy(before, buf, sizeof(buf));
    memset(&st, 0, sizeof(st));
    const uint8_t *dst = (const uint8_t *)0x1; /* a sentinel */
    enum route6_verdict v = route6_check_and_decrement(buf, len, &st, &dst);
    if (v != want) {
        fail_msg("verdict %d, expected %d (%s)", (int)v, (int)want, name);
    }
    assert_only_counter(name);
    assert_int_equal(route6_frame_drops_total(&st), 1);
    assert_ptr_equal(dst, (const uint8_t *)0x1);
    assert_memory_equal(buf, before, sizeof(buf));
    /* and again in a buffer of exactly len bytes */
    memset(&st, 0, sizeof(st));
    const uint8_t *d2 = NULL;
    assert_int_equal(check(len, &d2), want);
    assert_only_counter(name);
}

static void expect_drop(uint16_t len, const char *name)
{
    expect_verdict(len, ROUTE6_DROP, name);
}

/* Feed buf (len bytes), expect ROUTE6_FORWARD, *dst_out at the frame's destination, the hop
 * limit one lower, no counter, no other byte changed. */
static void expect_forward(uint16_t len)
{
    static uint8_t before[BUF_BYTES];
    memcpy(before, buf, sizeof(buf));
    struct route6_drop_stats s0 = st;
    const uint8_t *dst = NULL;
    assert_int_equal(route6_check_and_decrement(buf, len, &st, &dst), ROUTE6_FORWARD);
    assert_ptr_equal(dst, buf + 14 + 24);
    assert_memory_equal(&s0, &st, sizeof(st));
    assert_int_equal(buf[14 + 7], (uint8_t)(before[14 + 7] - 1));
    before[14 + 7] = buf[14 + 7];
    assert_memory_equal(buf, before, sizeof(buf));
    /* and in an exactly-sized buffer, from the same starting bytes */
    buf[14 + 7]++;
    const uint8_t *d2 = NULL;
    assert_int_equal(check(len, &d2), ROUTE6_FORWARD);
    assert_memory_equal(buf, before, sizeof(buf));
    assert_memory_equal(&s0, &st, sizeof(st));
}

/* --- the counter table ------------------------------------------------------------------------ */

static void test_counter_table(void **state)
{
    (void)state;
    assert_int_equal(route6_drop_counter_count * sizeof(uint64_t),
                     sizeof(struct route6_drop_stats));
    assert_true(route6_frame_drop_counter_count < route6_drop_counter_count);
    assert_string_equal(route6_drop_counters[0].name, "ip6_truncated");
    assert_string_equal(route6_drop_counters[route6_frame_drop_counter_count - 1].name,
                        "hop_limit_expired");
    assert_string_equal(route6_drop_counters[route6_frame_drop_counter_count].name,
                        "icmp6_unsupported_type");
    assert_string_equal(route6_drop_counters[route6_drop_counter_count - 1].name,
                        "icmp6_no_room");
    for (size_t i = 0; i < route6_drop_counter_count; i++) {
        assert_int_equal(route6_drop_counters[i].offset, i * sizeof(uint64_t));
        assert_true(strlen(route6_drop_counters[i].why) > 10);
        for (size_t j = 0; j < i; j++) {
            assert_true(strcmp(route6_drop_counters[i].name, route6_drop_counters[j].name) != 0);
        }
        /* route6.h: every name differs from every IPv4 name, so both print side by side */
        for (size_t j = 0; j < route_drop_counter_count; j++) {
            if (strcmp(route6_drop_counters[i].name, route_drop_counters[j].name) == 0) {
                fail_msg("%s is an IPv4 counter name too", route6_drop_counters[i].name);
            }
        }
    }
}

/* route6_frame_drops_total sums the frame drops, each of them, and no suppression. */
static void test_frame_drops_total(void **state)
{
    (void)state;
    assert_int_equal(route6_frame_drops_total(&st), 0);
    uint64_t want = 0;
    for (size_t i = 0; i < route6_drop_counter_count; i++) {
        uint64_t v = (uint64_t)(i + 1) * 1000003u;
        memcpy((uint8_t *)&st + route6_drop_counters[i].offset, &v, sizeof(v));
        if (i < route6_frame_drop_counter_count) {
            want += v;
        }
    }
    assert_int_equal(route6_frame_drops_total(&st), want);
    memset(&st, 0, sizeof(st));
    st.ip6_truncated = 2;
    st.hop_limit_expired = 3;
    st.ip6_ext_bad = 4;
    st.icmp6_no_room = 100;
    st.icmp6_about_error = 100;
    assert_int_equal(route6_frame_drops_total(&st), 9);
}

/* --- forwarding ------------------------------------------------------------------------------- */

static void test_forward_basic(void **state)
{
    (void)state;
    uint16_t len = build_udp(buf);
    expect_forward(len);
    assert_int_equal(buf[14 + 7], 56);
    /* TCP, ICMPv6 */
    len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_TCP, 20);
    expect_forward(len);
    len = build_icmp6(buf, INET6_ICMP_ECHO_REQUEST, 0, 56);
    expect_forward(len);
    /* hop limit 2 is the smallest forwarded (it leaves with 1); 255 the largest */
    len = build_udp(buf);
    set_hop(buf, 2);
    expect_forward(len);
    assert_int_equal(buf[14 + 7], 1);
    set_hop(buf, 255);
    expect_forward(len);
    assert_int_equal(buf[14 + 7], 254);
    /* a payload length of 0 (a bare header) */
    len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_NONE, 0);
    assert_int_equal(len, 54);
    expect_forward(len);
    /* traffic class and flow label are not ours to change */
    len = build_udp(buf);
    expect_forward(len);
    assert_int_equal(inet_load_be32(buf + 14), 6u << 28 | 0xb9u << 20 | 0x12345);
    assert_int_equal(st.hop_limit_expired, 0);
}

/* A frame longer than its packet (Ethernet padding, trailers) is forwarded as it is. */
static void test_forward_padded(void **state)
{
    (void)state;
    uint16_t len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_UDP, 0);
    memset(buf + len, 0xee, 100);
    expect_forward(60);
    expect_forward(len + 100);
    assert_int_equal(buf[len], 0xee);
}

/* Unicast near every excluded class is forwarded; so is what RFC 4291 names no class for. */
static void test_forward_address_edges(void **state)
{
    (void)state;
    static const uint8_t ok[][16] = {
        A6(0x2000, 0, 0, 0, 0, 0, 0, 0),           A6(0x3fff, 0xffff, 0, 0, 0, 0, 0, 1),
        A6(0xfc00, 0, 0, 0, 0, 0, 0, 1),           A6(0xfd00, 0, 0, 0, 0, 0, 0, 1),
        A6(0xfe7f, 0xffff, 0, 0, 0, 0, 0, 1),      A6(0xfec0, 0, 0, 0, 0, 0, 0, 1),
        A6(0xfeff, 0xffff, 0, 0, 0, 0, 0, 1),      A6(0, 0, 0, 0, 0, 0, 0, 2),
        A6(0, 0, 0, 0, 0, 0xfffe, 0xc000, 0x0201), A6(0, 0, 0, 0, 0, 0, 0xc000, 0x0201),
        A6(0x0100, 0, 0, 0, 0, 0, 0, 1),           A6(0x64, 0xff9b, 0, 0, 0, 0, 0xc000, 0x201),
        A6(0x4000, 0, 0, 0, 0, 0, 0, 1),           A6(0x1, 0, 0, 0, 0, 0, 0, 0),
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        uint16_t len = build6(buf, our_mac, ok[i], dst_ip, INET6_NH_UDP, 8);
        expect_forward(len);
        len = build6(buf, our_mac, src_ip, ok[i], INET6_NH_UDP, 8);
        expect_forward(len);
    }
    uint16_t len = build6(buf, our_mac, ula_ip, ula_ip, INET6_NH_TCP, 20);
    expect_forward(len);
}

/* Extension headers are walked, not acted on (RFC 8200 4.3, 4.4): forwarded as they are. */
static void test_forward_ext_headers(void **state)
{
    (void)state;
    uint8_t ext[128];
    /* Hop-by-Hop, Destination Options, Routing (segments left 3: not ours to process) */
    ext8(ext, INET6_NH_DEST_OPTS);
    ext8(ext + 8, INET6_NH_ROUTING);
    ext8(ext + 16, INET6_NH_UDP);
    ext[16 + 3] = 3;
    uint16_t len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_HOP_BY_HOP, ext, 24, 16);
    expect_forward(len);
    /* a first fragment and a later one (whose data happen to look like a bad chain) */
    frag_hdr(ext, INET6_NH_UDP, 0, true);
    len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_FRAGMENT, ext, 8, 16);
    expect_forward(len);
    frag_hdr(ext, INET6_NH_HOP_BY_HOP, 100, false);
    len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_FRAGMENT, ext, 8, 16);
    buf[14 + 48 + 1] = 0xff;
    expect_forward(len);
    /* ESP ends the walk: its bytes are opaque */
    len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_ESP, 3);
    expect_forward(len);
    /* AH (4-byte units): 24 bytes, then TCP */
    memset(ext, 0, 24);
    ext[0] = INET6_NH_TCP;
    ext[1] = 4;
    len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_AH, ext, 24, 20);
    expect_forward(len);
    /* INET6_MAX_EXT_HEADERS of them is still fine */
    for (int i = 0; i < INET6_MAX_EXT_HEADERS; i++) {
        ext8(ext + 8 * i, i == INET6_MAX_EXT_HEADERS - 1 ? INET6_NH_UDP : INET6_NH_DEST_OPTS);
    }
    len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_DEST_OPTS, ext,
                  8 * INET6_MAX_EXT_HEADERS, 8);
    expect_forward(len);
}

static void test_hop_limit_expired(void **state)
{
    (void)state;
    uint16_t len = build_udp(buf);
    set_hop(buf, 1);
    expect_verdict(len, ROUTE6_HOP_LIMIT_EXPIRED, "hop_limit_expired");
    set_hop(buf, 0);
    expect_verdict(len, ROUTE6_HOP_LIMIT_EXPIRED, "hop_limit_expired");
    /* behind extension headers too */
    uint8_t ext[8];
    ext8(ext, INET6_NH_UDP);
    len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_HOP_BY_HOP, ext, 8, 8);
    set_hop(buf, 1);
    expect_verdict(len, ROUTE6_HOP_LIMIT_EXPIRED, "hop_limit_expired");
    /* checked last: an unforwardable packet with hop limit 1 is dropped for its fault */
    len = build6(buf, our_mac, link_local, dst_ip, INET6_NH_UDP, 8);
    set_hop(buf, 1);
    expect_drop(len, "ip6_src_link_local");
    len = build6(buf, our_mac, src_ip, all_nodes, INET6_NH_UDP, 8);
    set_hop(buf, 0);
    expect_drop(len, "ip6_dst_multicast");
    ext8(ext, INET6_NH_HOP_BY_HOP);
    len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_DEST_OPTS, ext, 8, 8);
    set_hop(buf, 1);
    expect_drop(len, "ip6_ext_bad");
}

static void test_header_checks(void **state)
{
    (void)state;
    /* fewer than 14 + 40 bytes */
    uint16_t len = build_udp(buf);
    static const uint16_t short_lens[] = { 0, 1, 13, 14, 15, 53 };
    for (size_t i = 0; i < sizeof(short_lens) / sizeof(short_lens[0]); i++) {
        expect_drop(short_lens[i], "ip6_truncated");
    }
    /* not IPv6 by EtherType: IPv4, ARP, a VLAN tag, the bytes swapped */
    static const uint16_t types[] = { 0x0800, 0x0806, 0x8100, 0xdd86, 0x86dc, 0x0000 };
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        build_udp(buf);
        inet_store_be16(buf + 12, types[i]);
        expect_drop(len, "eth_not_ipv6");
    }
    /* a group Ethernet destination: broadcast, an IPv6 group, an IPv4 group, any I/G bit */
    const uint8_t *groups[] = { bcast_mac, v6_group_mac, v4_group_mac };
    for (size_t i = 0; i < 3; i++) {
        len = build6(buf, groups[i], src_ip, dst_ip, INET6_NH_UDP, 40);
        expect_drop(len, "ip6_eth_dst_group");
    }
    len = build_udp(buf);
    buf[0] |= 1;
    expect_drop(len, "ip6_eth_dst_group");
    /* version: only 6 */
    for (unsigned v = 0; v < 16; v++) {
        if (v == 6) {
            continue;
        }
        len = build_udp(buf);
        buf[14] = (uint8_t)(v << 4 | (buf[14] & 0x0f));
        expect_drop(len, "ip6_bad_version");
    }
    /* payload length: up to the end of the frame, not a byte beyond */
    len = build_udp(buf);
    inet_store_be16(buf + 14 + 4, 41);
    expect_drop(len, "ip6_bad_payload_length");
    inet_store_be16(buf + 14 + 4, 0xffff);
    expect_drop(len, "ip6_bad_payload_length");
    inet_store_be16(buf + 14 + 4, 40);
    expect_forward(len);
    len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_UDP, 0);
    inet_store_be16(buf + 14 + 4, 1);
    expect_drop(len, "ip6_bad_payload_length");
    expect_drop(54, "ip6_bad_payload_length");
    /* the order: truncation, EtherType, Ethernet group, version, payload length */
    len = build6(buf, bcast_mac, src_ip, dst_ip, INET6_NH_UDP, 8);
    inet_store_be16(buf + 12, 0x0800);
    expect_drop(len, "eth_not_ipv6");
    len = build6(buf, bcast_mac, src_ip, dst_ip, INET6_NH_UDP, 8);
    buf[14] = 0x40;
    expect_drop(len, "ip6_eth_dst_group");
    len = build_udp(buf);
    buf[14] = 0x40;
    inet_store_be16(buf + 14 + 4, 0xffff);
    expect_drop(len, "ip6_bad_version");
    len = build6(buf, our_mac, all_nodes, all_nodes, INET6_NH_UDP, 8);
    inet_store_be16(buf + 14 + 4, 0xffff);
    expect_drop(len, "ip6_bad_payload_length");
}

/* The source classes, then the destination classes, each to its counter. */
static void test_address_checks(void **state)
{
    (void)state;
    struct {
        const uint8_t *addr;
        const char *as_src, *as_dst;
    } cases[] = {
        { all_nodes, "ip6_src_multicast", "ip6_dst_multicast" },
        { mc_global, "ip6_src_multicast", "ip6_dst_multicast" },
        { unspec, "ip6_src_unspecified", "ip6_dst_unspecified" },
        { loopback, "ip6_src_loopback", "ip6_dst_loopback" },
        { v4_mapped, "ip6_src_v4_mapped", "ip6_dst_v4_mapped" },
        { link_local, "ip6_src_link_local", "ip6_dst_link_local" },
        { ll_top, "ip6_src_link_local", "ip6_dst_link_local" },
        { our_ll, "ip6_src_link_local", "ip6_dst_link_local" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint16_t len = build6(buf, our_mac, cases[i].addr, dst_ip, INET6_NH_UDP, 8);
        expect_drop(len, cases[i].as_src);
        len = build6(buf, our_mac, src_ip, cases[i].addr, INET6_NH_UDP, 8);
        expect_drop(len, cases[i].as_dst);
        /* the source is checked first */
        len = build6(buf, our_mac, cases[i].addr, loopback, INET6_NH_UDP, 8);
        expect_drop(len, cases[i].as_src);
        /* addresses before the chain */
        uint8_t ext[8];
        ext8(ext, INET6_NH_HOP_BY_HOP);
        len = build6x(buf, our_mac, src_ip, cases[i].addr, INET6_NH_DEST_OPTS, ext, 8, 0);
        expect_drop(len, cases[i].as_dst);
    }
}

static void test_ext_checks(void **state)
{
    (void)state;
    uint8_t ext[128];
    /* a header that runs past the packet: its length, or no room for its first two bytes */
    ext8(ext, INET6_NH_UDP);
    ext[1] = 1; /* 16 bytes claimed, 8 present */
    uint16_t len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_DEST_OPTS, ext, 8, 0);
    expect_drop(len, "ip6_ext_truncated");
    len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_ROUTING, 1);
    expect_drop(len, "ip6_ext_truncated");
    len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_HOP_BY_HOP, 0);
    expect_drop(len, "ip6_ext_truncated");
    /* ... even when the frame's padding would hold it: the packet's bytes count, not the
     * frame's */
    ext8(ext, INET6_NH_UDP);
    ext[1] = 1;
    len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_DEST_OPTS, ext, 8, 0);
    memset(buf + len, 0, 40);
    expect_drop((uint16_t)(len + 40), "ip6_ext_truncated");
    /* a first fragment without the whole chain (RFC 7112) */
    frag_hdr(ext, INET6_NH_DEST_OPTS, 0, true);
    ext8(ext + 8, INET6_NH_TCP);
    ext[8 + 1] = 3; /* 32 bytes, 8 present */
    len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_FRAGMENT, ext, 16, 0);
    expect_drop(len, "ip6_ext_truncated");
    /* one header too many */
    for (int i = 0; i <= INET6_MAX_EXT_HEADERS; i++) {
        ext8(ext + 8 * i, i == INET6_MAX_EXT_HEADERS ? INET6_NH_UDP : INET6_NH_DEST_OPTS);
    }
    len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_DEST_OPTS, ext,
                  8 * (INET6_MAX_EXT_HEADERS + 1), 8);
    expect_drop(len, "ip6_ext_too_long");
    /* Hop-by-Hop not first */
    ext8(ext, INET6_NH_HOP_BY_HOP);
    ext8(ext + 8, INET6_NH_UDP);
    len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_ROUTING, ext, 16, 8);
    expect_drop(len, "ip6_ext_bad");
}

/* --- the fast path's check -------------------------------------------------------------------- */

/* One frame through route6_fast_check and the full check, in exact-size heap buffers: the fast
 * check never writes, and whatever it passes the full check forwards to the same destination,
 * with the same bytes after route6_hop_limit_decrement. */
static void fast_against_full(const uint8_t *frame, uint16_t len, unsigned *fast,
                              unsigned *full_only)
{
    uint8_t *a = malloc(len ? len : 1), *b = malloc(len ? len : 1);
    assert_true(a != NULL && b != NULL);
    memcpy(a, frame, len);
    memcpy(b, frame, len);
    const uint8_t *fd = route6_fast_check(a, len);
    assert_memory_equal(a, frame, len);
    struct route6_drop_stats s;
    memset(&s, 0, sizeof(s));
    const uint8_t *dst = NULL;
    enum route6_verdict v = route6_check_and_decrement(b, len, &s, &dst);
    assert_int_equal(route6_frame_drops_total(&s), v == ROUTE6_FORWARD ? 0 : 1);
    if (fd != NULL) {
        assert_ptr_equal(fd, a + 14 + 24);
        assert_int_equal(v, ROUTE6_FORWARD);
        assert_ptr_equal(dst, b + 14 + 24);
        route6_hop_limit_decrement(a + 14);
        assert_memory_equal(a, b, len);
        (*fast)++;
    } else if (v == ROUTE6_FORWARD) {
        (*full_only)++;
    }
    free(a);
    free(b);
}

static void mutate(uint8_t *f, uint16_t *len)
{
    unsigned n = 1 + rng() % 3;
    for (unsigned i = 0; i < n; i++) {
        switch (rng() % 6) {
        case 0: /* a random byte of the headers */
            f[rng() % 62] = (uint8_t)rng();
            break;
        case 1: /* a bit anywhere in the headers */
            f[rng() % 62] ^= (uint8_t)(1u << (rng() % 8));
            break;
        case 2: /* the next header */
            f[14 + 6] = (uint8_t)(rng() % 2 ? rng() : (rng() % 64));
            break;
        case 3: /* the hop limit */
            f[14 + 7] = (uint8_t)(rng() % 4);
            break;
        case 4: /* the first byte of an address */
            f[14 + (rng() % 2 ? 8 : 24)] = (uint8_t)rng();
            break;
        default: /* the length */
            *len = (uint16_t)(rng() % (*len + 20));
            break;
        }
    }
}

static uint16_t random_frame(uint8_t *f)
{
    uint8_t ext[16];
    switch (rng() % 5) {
    case 0:
        return build_icmp6(f, (uint8_t)(rng() % 2 ? 128 : rng()), 0, rng() % 64);
    case 1:
        ext8(ext, INET6_NH_TCP);
        return build6x(f, our_mac, src_ip, dst_ip, INET6_NH_HOP_BY_HOP, ext, 8, rng() % 64);
    case 2:
        frag_hdr(ext, INET6_NH_UDP, (uint16_t)(rng() % 3), rng() % 2);
        return build6x(f, our_mac, src_ip, dst_ip, INET6_NH_FRAGMENT, ext, 8, rng() % 64);
    default:
        return build6(f, our_mac, src_ip, rng() % 2 ? dst_ip : ula_ip,
                      rng() % 2 ? INET6_NH_UDP : INET6_NH_TCP, rng() % 100);
    }
}

static void test_fast_check_against_full(void **state)
{
    (void)state;
    static uint8_t frame[BUF_BYTES];
    unsigned fast = 0, full_only = 0;
    /* a fixed set first: each class the fast check sends to the full one */
    const uint8_t *addrs[] = { src_ip, ula_ip, link_local, all_nodes, unspec, loopback,
                               v4_mapped, our_ll };
    for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
        for (size_t j = 0; j < sizeof(addrs) / sizeof(addrs[0]); j++) {
            uint16_t len = build6(frame, our_mac, addrs[i], addrs[j], INET6_NH_UDP, 10);
            fast_against_full(frame, len, &fast, &full_only);
        }
    }
    assert_int_equal(fast, 4); /* global and ULA, both ways */
    for (unsigned nh = 0; nh < 256; nh++) {
        uint16_t len = build6(frame, our_mac, src_ip, dst_ip, (uint8_t)nh, 64);
        fast_against_full(frame, len, &fast, &full_only);
    }
    assert_int_equal(fast, 4 + 3); /* TCP, UDP, ICMPv6 */
    for (unsigned hop = 0; hop < 4; hop++) {
        uint16_t len = build_udp(frame);
        set_hop(frame, (uint8_t)hop);
        fast_against_full(frame, len, &fast, &full_only);
    }
    /* then random and damaged frames */
    rng_state = 0x5eed5eed5eed5eedull;
    for (int n = 0; n < 30000; n++) {
        memset(frame, 0, sizeof(frame));
        uint16_t len = random_frame(frame);
        if (rng() % 2) {
            frame[14 + 8] = (uint8_t)rng();
            frame[14 + 24] = (uint8_t)rng();
        }
        if (rng() % 3) {
            mutate(frame, &len);
        }
        fast_against_full(frame, len, &fast, &full_only);
    }
    assert_true(fast > 1000 && full_only > 100);
    print_message("fast check: %u forwarded by it, %u by the full check only\n", fast,
                  full_only);
}

/* --- ICMPv6 errors ---------------------------------------------------------------------------- */

/*
 * Check an ICMPv6 error frame field by field: Ethernet back to the offender's MAC from ours, a
 * fresh IPv6 header from our_src to the offender's source, hop limit 64, traffic class and flow
 * 0; ICMPv6 type/code/word with its checksum recomputed here; the whole IPv6 packet within 1280
 * bytes; a quote equal to the first quote_len bytes of the offending packet.
 */
static void check_icmp6_error(const uint8_t *f, uint16_t flen, const uint8_t *orig,
                              const uint8_t *from, uint8_t type, uint8_t code, uint32_t word,
                              uint16_t quote_len)
{
    assert_int_equal(flen, 14 + 40 + 8 + quote_len);
    assert_true(flen >= 102);
    assert_true(flen <= ROUTE6_ICMP_ERROR_MAX_FRAME_BYTES);
    assert_memory_equal(f, orig + 6, 6); /* dst = the offender's source MAC */
    assert_memory_equal(f + 6, our_mac, 6);
    assert_int_equal(inet_load_be16(f + 12), 0x86dd);

    const uint8_t *ip = f + 14;
    assert_int_equal(inet_load_be32(ip), 0x60000000u);
    assert_int_equal(inet_load_be16(ip + 4), 8 + quote_len);
    assert_true(40u + inet_load_be16(ip + 4) <= 1280u); /* RFC 4443 2.4(c) */
    assert_int_equal(ip[6], 58);
    assert_int_equal(ip[7], 64);
    assert_memory_equal(ip + 8, from, 16);
    assert_memory_equal(ip + 24, orig + 14 + 8, 16); /* to the offending source */

    const uint8_t *icmp = ip + 40;
    assert_int_equal(icmp[0], type);
    assert_int_equal(icmp[1], code);
    assert_int_equal(inet_load_be32(icmp + 4), word);
    static uint8_t msg[BUF_BYTES];
    memcpy(msg, icmp, 8u + quote_len);
    msg[2] = msg[3] = 0;
    assert_int_equal(inet_load_be16(icmp + 2), ref_icmp6_csum(ip, msg, 8u + quote_len));
    assert_int_equal(ref_icmp6_csum(ip, icmp, 8u + quote_len), 0);
    assert_int_equal(inet6_upper_csum(ip, icmp, 8u + quote_len, 58), 0);

    assert_memory_equal(icmp + 8, orig + 14, quote_len);
    /* the quote: as much of the packet as fits, at least its header + 8 bytes */
    size_t pkt = 40u + inet_load_be16(orig + 14 + 4);
    assert_true(quote_len <= pkt);
    assert_true(quote_len >= (pkt < 48 ? pkt : 48));
}

static uint16_t icmp_error(uint16_t out_bytes, uint16_t len, uint8_t type, uint8_t code,
                           uint32_t param, const uint8_t *from)
{
    memset(out, 0xa5, sizeof(out));
    memset(&st, 0, sizeof(st));
    return route6_icmp_error(out, out_bytes, buf, len, type, code, param, from, our_mac, &st);
}

/* The error about buf must be built, checked as above, with nothing written beyond it and the
 * offending frame left alone. */
static void expect_error_from(uint16_t len, uint8_t type, uint8_t code, uint32_t param,
                              uint32_t word, uint16_t out_bytes, uint16_t quote_len,
                              const uint8_t *from)
{
    static uint8_t before[BUF_BYTES];
    memcpy(before, buf, sizeof(buf));
    uint16_t n = icmp_error(out_bytes, len, type, code, param, from);
    check_icmp6_error(out, n, buf, from, type, code, word, quote_len);
    assert_true(n <= out_bytes);
    assert_only_counter(NULL);
    assert_memory_equal(buf, before, sizeof(buf));
    for (size_t i = n; i < sizeof(out); i++) {
        assert_int_equal(out[i], 0xa5);
    }
    /* the same in an output buffer of exactly out_bytes and an input of exactly len */
    uint8_t *o = malloc(out_bytes ? out_bytes : 1), *in = malloc(len ? len : 1);
    assert_true(o != NULL && in != NULL);
    memcpy(in, buf, len);
    assert_int_equal(route6_icmp_error(o, out_bytes, in, len, type, code, param, from, our_mac,
                                       &st),
                     n);
    assert_memory_equal(o, out, n);
    free(o);
    free(in);
}

static void expect_error(uint16_t len, uint8_t type, uint8_t code, uint32_t param,
                         uint32_t word, uint16_t out_bytes, uint16_t quote_len)
{
    expect_error_from(len, type, code, param, word, out_bytes, quote_len, our_ip);
}

/* The error about buf must be refused and counted as `name` alone; out untouched. */
static void expect_no_error_from(uint16_t len, uint8_t type, uint8_t code, uint32_t param,
                                 const uint8_t *from, uint16_t out_bytes, const char *name)
{
    static uint8_t before[BUF_BYTES];
    memcpy(before, buf, sizeof(buf));
    assert_int_equal(icmp_error(out_bytes, len, type, code, param, from), 0);
    assert_only_counter(name);
    assert_int_equal(route6_frame_drops_total(&st), 0);
    for (size_t i = 0; i < sizeof(out); i++) {
        assert_int_equal(out[i], 0xa5);
    }
    assert_memory_equal(buf, before, sizeof(buf));
}

static void expect_no_error(uint16_t len, uint8_t type, uint8_t code, const char *name)
{
    expect_no_error_from(len, type, code, 0, our_ip, BUF_BYTES, name);
}

static void test_icmp_time_exceeded(void **state)
{
    (void)state;
    uint16_t len = build_udp(buf); /* an 80-byte packet: quoted entire */
    set_hop(buf, 1);
    assert_int_equal(route6_check_and_decrement(buf, len, &st, &(const uint8_t *){ NULL }),
                     ROUTE6_HOP_LIMIT_EXPIRED);
    expect_error(len, INET6_ICMP_TIME_EXCEEDED, INET6_ICMP_CODE_HOP_LIMIT, 0, 0, BUF_BYTES, 80);
    /* the layout, byte by byte for the fixed part */
    assert_int_equal(out[14 + 40], 3);
    assert_int_equal(out[14 + 41], 0);
    /* param is ignored for type 3: the word is "Unused" */
    expect_error(len, INET6_ICMP_TIME_EXCEEDED, INET6_ICMP_CODE_REASSEMBLY, 0xdeadbeef, 0,
                 BUF_BYTES, 80);
    /* from our link-local address, as for a link-local offender */
    expect_error_from(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, 0, BUF_BYTES, 80, our_ll);
}

static void test_icmp_types(void **state)
{
    (void)state;
    uint16_t len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_TCP, 100);
    /* Destination Unreachable, codes 0..6; param ignored */
    for (uint8_t code = 0; code <= 6; code++) {
        expect_error(len, INET6_ICMP_DEST_UNREACH, code, 77, 0, BUF_BYTES, 140);
    }
    /* Packet Too Big: the MTU in the word, at least 1280 */
    expect_error(len, INET6_ICMP_PACKET_TOO_BIG, 0, 1280, 1280, BUF_BYTES, 140);
    expect_error(len, INET6_ICMP_PACKET_TOO_BIG, 0, 1500, 1500, BUF_BYTES, 140);
    expect_error(len, INET6_ICMP_PACKET_TOO_BIG, 0, 0xffffffffu, 0xffffffffu, BUF_BYTES, 140);
    /* Parameter Problem: the pointer in the word, codes 0..2 */
    for (uint8_t code = 0; code <= 2; code++) {
        expect_error(len, INET6_ICMP_PARAM_PROBLEM, code, 6, 6, BUF_BYTES, 140);
    }
    expect_error(len, INET6_ICMP_PARAM_PROBLEM, 0, 0x12345678, 0x12345678, BUF_BYTES, 140);
    /* anything else is not built */
    static const uint8_t bad[][2] = { { 1, 7 },   { 1, 255 }, { 2, 1 },  { 3, 2 },   { 4, 3 },
                                      { 0, 0 },   { 5, 0 },   { 127, 0 }, { 128, 0 }, { 129, 0 },
                                      { 135, 0 }, { 255, 0 } };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        expect_no_error_from(len, bad[i][0], bad[i][1], 1280, our_ip, BUF_BYTES,
                             "icmp6_unsupported_type");
    }
    /* a Packet Too Big MTU below the IPv6 minimum */
    expect_no_error_from(len, INET6_ICMP_PACKET_TOO_BIG, 0, 1279, our_ip, BUF_BYTES,
                         "icmp6_unsupported_type");
    expect_no_error_from(len, INET6_ICMP_PACKET_TOO_BIG, 0, 0, our_ip, BUF_BYTES,
                         "icmp6_unsupported_type");
}

/* RFC 4443 2.4(c): as much as keeps the error's IPv6 packet within 1280 bytes. */
static void test_icmp_quote_capped_at_1280(void **state)
{
    (void)state;
    /* a 1500-byte packet: quoted up to 1232 bytes */
    uint16_t len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_UDP, 1460);
    expect_error(len, INET6_ICMP_DEST_UNREACH, 0, 0, 0, BUF_BYTES, 1232);
    assert_int_equal(40 + inet_load_be16(out + 14 + 4), 1280);
    expect_error(len, INET6_ICMP_DEST_UNREACH, 0, 0, 0, ROUTE6_ICMP_ERROR_MAX_FRAME_BYTES, 1232);
    assert_int_equal(ROUTE6_ICMP_ERROR_MAX_FRAME_BYTES, 14 + 1280);
    assert_int_equal(ROUTE6_ICMP_ERROR_MAX_QUOTE_BYTES, 1232);
    /* a 1233-byte packet loses its last byte; 1232 fits exactly */
    len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_UDP, 1193);
    expect_error(len, INET6_ICMP_DEST_UNREACH, 0, 0, 0, BUF_BYTES, 1232);
    len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_UDP, 1192);
    expect_error(len, INET6_ICMP_DEST_UNREACH, 0, 0, 0, BUF_BYTES, 1232);
    len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_UDP, 1191);
    expect_error(len, INET6_ICMP_DEST_UNREACH, 0, 0, 0, BUF_BYTES, 1231);
    /* the largest payload length a frame here can hold */
    len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_UDP, BUF_BYTES - 54);
    expect_error(len, INET6_ICMP_PACKET_TOO_BIG, 0, 1280, 1280, BUF_BYTES, 1232);
}

/* Extension headers are quoted with the header; short packets entire; padding never. */
static void test_icmp_quote_shapes(void **state)
{
    (void)state;
    uint8_t ext[16];
    ext8(ext, INET6_NH_DEST_OPTS);
    ext8(ext + 8, INET6_NH_UDP);
    uint16_t len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_HOP_BY_HOP, ext, 16, 8);
    expect_error(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, 0, BUF_BYTES, 64);
    /* a bare 40-byte header: the smallest error, 102 bytes, needs no padding */
    len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_NONE, 0);
    expect_error(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, 0, BUF_BYTES, 40);
    memset(buf + len, 0xee, 6); /* padded to 60 on the wire */
    expect_error(60, INET6_ICMP_TIME_EXCEEDED, 0, 0, 0, BUF_BYTES, 40);
    assert_int_equal(out[14 + 40 + 8 + 39], buf[14 + 39]);
    /* a first fragment gets its error; a later fragment of UDP does too (its data quoted) */
    frag_hdr(ext, INET6_NH_UDP, 0, true);
    len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_FRAGMENT, ext, 8, 16);
    expect_error(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, 0, BUF_BYTES, 64);
    frag_hdr(ext, INET6_NH_UDP, 3, false);
    len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_FRAGMENT, ext, 8, 16);
    expect_error(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, 0, BUF_BYTES, 64);
    /* a link-local source is one node on the ingress link: answered, e.g. beyond scope */
    len = build6(buf, our_mac, link_local, dst_ip, INET6_NH_UDP, 8);
    expect_error_from(len, INET6_ICMP_DEST_UNREACH, INET6_ICMP_CODE_BEYOND_SCOPE, 0, 0,
                      BUF_BYTES, 48, our_ll);
    /* ESP, whose upper layer is hidden: answered */
    len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_ESP, 24);
    expect_error(len, INET6_ICMP_DEST_UNREACH, 0, 0, 0, BUF_BYTES, 64);
}

/* The output buffer bounds the quote, down to the header + 8 bytes; below that, nothing. */
static void test_icmp_output_room(void **state)
{
    (void)state;
    uint16_t len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_UDP, 300);
    /* 62 bytes of headers + 40 + 8 minimum quote = 110 */
    expect_error(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, 0, 110, 48);
    expect_error(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, 0, 111, 49);
    expect_error(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, 0, 200, 138);
    expect_no_error_from(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, our_ip, 109, "icmp6_no_room");
    expect_no_error_from(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, our_ip, 62, "icmp6_no_room");
    expect_no_error_from(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, our_ip, 0, "icmp6_no_room");
    /* a 43-byte packet needs only 62 + 43 */
    len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_UDP, 3);
    expect_error(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, 0, 105, 43);
    expect_no_error_from(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, our_ip, 104, "icmp6_no_room");
    /* a bare header: 102 */
    len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_NONE, 0);
    expect_error(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, 0, 102, 40);
    expect_no_error_from(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, our_ip, 101, "icmp6_no_room");
    /* room is the last check: an unsupported type in a tiny buffer is unsupported */
    expect_no_error_from(len, 9, 0, 0, our_ip, 10, "icmp6_unsupported_type");
}

/* Built in place, or into a buffer overlapping the frame: the same error as built apart. */
static void test_icmp_in_place_and_overlap(void **state)
{
    (void)state;
    static uint8_t area[3 * BUF_BYTES], orig[BUF_BYTES], want[BUF_BYTES];
    uint16_t len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_UDP, 1400);
    memcpy(orig, buf, sizeof(buf));
    uint16_t n0 = route6_icmp_error(want, BUF_BYTES, orig, len, INET6_ICMP_TIME_EXCEEDED, 0, 0,
                                    our_ip, our_mac, &st);
    assert_int_equal(n0, 14 + 1280);
    check_icmp6_error(want, n0, orig, our_ip, INET6_ICMP_TIME_EXCEEDED, 0, 0, 1232);

    /* in place */
    memset(&st, 0, sizeof(st));
    uint16_t n = route6_icmp_error(buf, BUF_BYTES, buf, len, INET6_ICMP_TIME_EXCEEDED, 0, 0,
                                   our_ip, our_mac, &st);
    assert_int_equal(n, n0);
    assert_memory_equal(buf, want, n);
    assert_only_counter(NULL);

    /* out before or after the frame, overlapping it by various amounts */
    static const int shifts[] = { -100, -62, -48, -14, -1, 1, 14, 48, 62, 100 };
    for (size_t i = 0; i < sizeof(shifts) / sizeof(shifts[0]); i++) {
        uint8_t *in = area + BUF_BYTES;
        memcpy(in, orig, len);
        uint8_t *o = in + shifts[i];
        memset(&st, 0, sizeof(st));
        n = route6_icmp_error(o, BUF_BYTES, in, len, INET6_ICMP_TIME_EXCEEDED, 0, 0, our_ip,
                              our_mac, &st);
        assert_int_equal(n, n0);
        assert_memory_equal(o, want, n);
    }
    /* our_src taken from the frame itself (its destination field), as a caller may */
    memcpy(buf, orig, len);
    uint8_t from[16];
    memcpy(from, buf + 14 + 24, 16);
    n = route6_icmp_error(buf, BUF_BYTES, buf, len, INET6_ICMP_TIME_EXCEEDED, 0, 0,
                          buf + 14 + 24, our_mac, &st);
    assert_int_equal(n, n0);
    assert_memory_equal(buf + 14 + 8, from, 16);
}

/* 2.4(e.1), (e.2): no error about an ICMPv6 error, a Redirect or ND, or what may be one. */
static void test_icmp_about_error(void **state)
{
    (void)state;
    static const uint8_t errors[] = { 1, 2, 3, 4, 0, 100, 101, 127 };
    for (size_t i = 0; i < sizeof(errors); i++) {
        uint16_t len = build_icmp6(buf, errors[i], 0, 48);
        expect_no_error(len, INET6_ICMP_TIME_EXCEEDED, 0, "icmp6_about_error");
        expect_no_error_from(len, INET6_ICMP_PACKET_TOO_BIG, 0, 1280, our_ip, BUF_BYTES,
                             "icmp6_about_error");
    }
    for (uint8_t t = INET6_ICMP_ROUTER_SOLICIT; t <= INET6_ICMP_REDIRECT; t++) {
        uint16_t len = build_icmp6(buf, t, 0, 24);
        expect_no_error(len, INET6_ICMP_DEST_UNREACH, 0, "icmp6_about_error");
    }
    /* informational messages do get errors */
    static const uint8_t info[] = { 128, 129, 130, 131, 132, 138, 143, 200, 255 };
    for (size_t i = 0; i < sizeof(info); i++) {
        uint16_t len = build_icmp6(buf, info[i], 0, 20);
        expect_error(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, 0, BUF_BYTES, 68);
    }
    /* ICMPv6 without a type byte: cannot tell, stay silent */
    uint16_t len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_ICMPV6, 0);
    expect_no_error(len, INET6_ICMP_DEST_UNREACH, 0, "icmp6_about_error");
    /* one byte of ICMPv6 is enough to see an echo request */
    len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_ICMPV6, 1);
    buf[14 + 40] = 128;
    expect_error(len, INET6_ICMP_DEST_UNREACH, 0, 0, 0, BUF_BYTES, 41);
    buf[14 + 40] = 1;
    expect_no_error(len, INET6_ICMP_DEST_UNREACH, 0, "icmp6_about_error");
    /* an error behind extension headers is still an error */
    uint8_t ext[16];
    ext8(ext, INET6_NH_DEST_OPTS);
    ext8(ext + 8, INET6_NH_ICMPV6);
    len = build_icmp6x(buf, 1, 0, 40, INET6_NH_HOP_BY_HOP, ext, 16);
    expect_no_error(len, INET6_ICMP_TIME_EXCEEDED, 0, "icmp6_about_error");
    len = build_icmp6x(buf, 128, 0, 40, INET6_NH_HOP_BY_HOP, ext, 16);
    expect_error(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, 0, BUF_BYTES, 104);
    /* behind a first fragment, the type is there to read */
    frag_hdr(ext, INET6_NH_ICMPV6, 0, true);
    len = build_icmp6x(buf, 3, 0, 40, INET6_NH_FRAGMENT, ext, 8);
    expect_no_error(len, INET6_ICMP_TIME_EXCEEDED, 0, "icmp6_about_error");
    len = build_icmp6x(buf, 128, 0, 40, INET6_NH_FRAGMENT, ext, 8);
    expect_error(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, 0, BUF_BYTES, 96);
    /* a later fragment of ICMPv6, or of what starts with another extension header: its type is
     * not in it, so stay silent */
    frag_hdr(ext, INET6_NH_ICMPV6, 2, false);
    len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_FRAGMENT, ext, 8, 40);
    buf[14 + 48] = 128; /* data that look like an echo request say nothing */
    expect_no_error(len, INET6_ICMP_TIME_EXCEEDED, 0, "icmp6_about_error");
    frag_hdr(ext, INET6_NH_DEST_OPTS, 2, true);
    len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_FRAGMENT, ext, 8, 40);
    expect_no_error(len, INET6_ICMP_TIME_EXCEEDED, 0, "icmp6_about_error");
    frag_hdr(ext, INET6_NH_TCP, 2, true);
    len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_FRAGMENT, ext, 8, 40);
    expect_error(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, 0, BUF_BYTES, 88);
}

static void test_icmp_suppressed(void **state)
{
    (void)state;
    uint16_t len = build_udp(buf);
    /* our source: not ::, multicast, ::1 or v4-mapped */
    const uint8_t *bad_src[] = { unspec, all_nodes, mc_global, loopback, v4_mapped };
    for (size_t i = 0; i < sizeof(bad_src) / sizeof(bad_src[0]); i++) {
        expect_no_error_from(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, bad_src[i], BUF_BYTES,
                             "icmp6_no_source_address");
    }
    expect_error_from(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, 0, BUF_BYTES, 80, ula_ip);

    /* no valid IPv6 packet to quote */
    expect_no_error_from(53, INET6_ICMP_TIME_EXCEEDED, 0, 0, our_ip, BUF_BYTES,
                         "icmp6_quote_malformed");
    expect_no_error_from(0, INET6_ICMP_TIME_EXCEEDED, 0, 0, our_ip, BUF_BYTES,
                         "icmp6_quote_malformed");
    inet_store_be16(buf + 12, 0x0800);
    expect_no_error(len, INET6_ICMP_TIME_EXCEEDED, 0, "icmp6_quote_malformed");
    len = build_udp(buf);
    buf[14] = 0x45;
    expect_no_error(len, INET6_ICMP_TIME_EXCEEDED, 0, "icmp6_quote_malformed");
    len = build_udp(buf);
    inet_store_be16(buf + 14 + 4, 41);
    expect_no_error(len, INET6_ICMP_TIME_EXCEEDED, 0, "icmp6_quote_malformed");
    uint8_t ext[8 * (INET6_MAX_EXT_HEADERS + 1)];
    ext8(ext, INET6_NH_HOP_BY_HOP);
    ext8(ext + 8, INET6_NH_UDP);
    len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_DEST_OPTS, ext, 16, 8);
    expect_no_error(len, INET6_ICMP_PARAM_PROBLEM, 1, "icmp6_quote_malformed");
    len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_DEST_OPTS, 4);
    expect_no_error(len, INET6_ICMP_PARAM_PROBLEM, 0, "icmp6_quote_malformed");
    for (int i = 0; i <= INET6_MAX_EXT_HEADERS; i++) {
        ext8(ext + 8 * i, i == INET6_MAX_EXT_HEADERS ? INET6_NH_UDP : INET6_NH_DEST_OPTS);
    }
    len = build6x(buf, our_mac, src_ip, dst_ip, INET6_NH_DEST_OPTS, ext, sizeof(ext), 8);
    expect_no_error(len, INET6_ICMP_PARAM_PROBLEM, 0, "icmp6_quote_malformed");

    /* a group Ethernet source */
    len = build_udp(buf);
    buf[6] |= 1;
    expect_no_error(len, INET6_ICMP_TIME_EXCEEDED, 0, "icmp6_l2_src_group");
    memcpy(buf + 6, bcast_mac, 6);
    expect_no_error_from(len, INET6_ICMP_PACKET_TOO_BIG, 0, 1280, our_ip, BUF_BYTES,
                         "icmp6_l2_src_group");

    /* multicast destination, or an Ethernet group destination (2.4(e.3)-(e.5)) */
    len = build6(buf, our_mac, src_ip, mc_global, INET6_NH_UDP, 40);
    expect_no_error(len, INET6_ICMP_TIME_EXCEEDED, 0, "icmp6_dst_multicast");
    expect_no_error(len, INET6_ICMP_DEST_UNREACH, 0, "icmp6_dst_multicast");
    expect_no_error_from(len, INET6_ICMP_PARAM_PROBLEM, 0, 0, our_ip, BUF_BYTES,
                         "icmp6_dst_multicast");
    expect_no_error_from(len, INET6_ICMP_PARAM_PROBLEM, 1, 0, our_ip, BUF_BYTES,
                         "icmp6_dst_multicast");
    len = build6(buf, v6_group_mac, src_ip, dst_ip, INET6_NH_UDP, 40);
    expect_no_error(len, INET6_ICMP_TIME_EXCEEDED, 0, "icmp6_dst_multicast");
    len = build6(buf, bcast_mac, src_ip, dst_ip, INET6_NH_UDP, 40);
    expect_no_error(len, INET6_ICMP_DEST_UNREACH, 3, "icmp6_dst_multicast");
    /* ... except Packet Too Big and Parameter Problem code 2 */
    len = build6(buf, v6_group_mac, src_ip, mc_global, INET6_NH_UDP, 40);
    expect_error(len, INET6_ICMP_PACKET_TOO_BIG, 0, 1400, 1400, BUF_BYTES, 80);
    expect_error(len, INET6_ICMP_PARAM_PROBLEM, 2, 40, 40, BUF_BYTES, 80);

    /* an offending source that names no single node (2.4(e.6)) */
    const uint8_t *no_node[] = { unspec, all_nodes, mc_global, loopback, v4_mapped };
    for (size_t i = 0; i < sizeof(no_node) / sizeof(no_node[0]); i++) {
        len = build6(buf, our_mac, no_node[i], dst_ip, INET6_NH_UDP, 40);
        expect_no_error(len, INET6_ICMP_TIME_EXCEEDED, 0, "icmp6_src_not_unicast");
        expect_no_error_from(len, INET6_ICMP_PACKET_TOO_BIG, 0, 1280, our_ip, BUF_BYTES,
                             "icmp6_src_not_unicast");
    }

    /* the order of the checks: type, our source, the quote, L2 source, destination, source,
     * about an error, room */
    len = build6(buf, bcast_mac, unspec, mc_global, INET6_NH_ICMPV6, 0);
    buf[6] |= 1;
    expect_no_error_from(len, 200, 0, 0, unspec, 10, "icmp6_unsupported_type");
    expect_no_error_from(len, 3, 0, 0, unspec, 10, "icmp6_no_source_address");
    expect_no_error_from(len - 1, 3, 0, 0, our_ip, 10, "icmp6_quote_malformed");
    expect_no_error_from(len, 3, 0, 0, our_ip, 10, "icmp6_l2_src_group");
    buf[6] &= (uint8_t)~1;
    expect_no_error_from(len, 3, 0, 0, our_ip, 10, "icmp6_dst_multicast");
    memcpy(buf + 14 + 24, dst_ip, 16);
    memcpy(buf, our_mac, 6);
    expect_no_error_from(len, 3, 0, 0, our_ip, 10, "icmp6_src_not_unicast");
    memcpy(buf + 14 + 8, src_ip, 16);
    expect_no_error_from(len, 3, 0, 0, our_ip, 10, "icmp6_about_error");
    buf[14 + 6] = INET6_NH_UDP;
    expect_no_error_from(len, 3, 0, 0, our_ip, 10, "icmp6_no_room");
    expect_error(len, 3, 0, 0, 0, BUF_BYTES, 40);
}

/* The usual sequences: expiry then time exceeded; forwarding then unreachable (the quote is the
 * packet as it is now, hop limit already one lower). */
static void test_icmp_after_verdicts(void **state)
{
    (void)state;
    uint16_t len = build6(buf, our_mac, src_ip, dst_ip, INET6_NH_TCP, 100);
    const uint8_t *dst = NULL;
    assert_int_equal(route6_check_and_decrement(buf, len, &st, &dst), ROUTE6_FORWARD);
    assert_int_equal(buf[14 + 7], 56);
    expect_error(len, INET6_ICMP_DEST_UNREACH, INET6_ICMP_CODE_NO_ROUTE, 0, 0, BUF_BYTES, 140);
    assert_int_equal(out[62 + 7], 56);
    expect_error(len, INET6_ICMP_PACKET_TOO_BIG, 0, 1280, 1280, BUF_BYTES, 140);

    len = build_icmp6(buf, INET6_ICMP_ECHO_REQUEST, 0, 1000);
    set_hop(buf, 1);
    memset(&st, 0, sizeof(st));
    assert_int_equal(route6_check_and_decrement(buf, len, &st, &dst), ROUTE6_HOP_LIMIT_EXPIRED);
    expect_error(len, INET6_ICMP_TIME_EXCEEDED, 0, 0, 0, BUF_BYTES, 1048);
    assert_int_equal(out[62 + 7], 1);
}

/* --- a mutation loop -------------------------------------------------------------------------- */

/* One frame: the full check in an exact-size buffer, then (for a verdict that is not
 * FORWARD, and for some that are) an ICMPv6 error into an exact-size output buffer. The counters
 * must tell the same story as the return values. */
static void feed_one(const uint8_t *frame, uint16_t len, unsigned verdicts[3], unsigned *sent,
                     struct route6_drop_stats *acc)
{
    uint8_t *f = malloc(len ? len : 1);
    assert_non_null(f);
    memcpy(f, frame, len);
    struct route6_drop_stats s;
    memset(&s, 0, sizeof(s));
    const uint8_t *dst = NULL;
    enum route6_verdict v = route6_check_and_decrement(f, len, &s, &dst);
    assert_true(v <= ROUTE6_DROP);
    verdicts[v]++;
    assert_int_equal(route6_frame_drops_total(&s), v == ROUTE6_FORWARD ? 0 : 1);
    assert_int_equal(s.hop_limit_expired, v == ROUTE6_HOP_LIMIT_EXPIRED);
    if (v != ROUTE6_FORWARD) {
        assert_memory_equal(f, frame, len);
    }
    static const uint8_t types[][2] = { { 3, 0 }, { 1, 0 }, { 1, 3 }, { 2, 0 }, { 4, 0 },
                                        { 4, 2 } };
    size_t t = rng() % 6;
    uint16_t out_bytes = (uint16_t)(rng() % 2 ? ROUTE6_ICMP_ERROR_MAX_FRAME_BYTES : rng() % 300);
    uint8_t *o = malloc(out_bytes ? out_bytes : 1);
    assert_non_null(o);
    struct route6_drop_stats s1 = s;
    uint16_t n = route6_icmp_error(o, out_bytes, f, len, types[t][0], types[t][1], 1280, our_ip,
                                   our_mac, &s);
    assert_int_equal(route6_frame_drops_total(&s), route6_frame_drops_total(&s1));
    assert_int_equal(suppressions(&s), n == 0 ? 1 : 0);
    if (n != 0) {
        (*sent)++;
        assert_true(n <= out_bytes && n >= 102 && n <= ROUTE6_ICMP_ERROR_MAX_FRAME_BYTES);
        assert_int_equal(inet_load_be16(o + 14 + 4), n - 54);
        assert_int_equal(ref_icmp6_csum(o + 14, o + 54, n - 54u), 0);
        assert_memory_equal(o + 62, f + 14, n - 62u);
        assert_memory_equal(o + 14 + 24, f + 14 + 8, 16);
    }
    for (size_t i = 0; i < route6_drop_counter_count; i++) {
        uint64_t a = counter_at(acc, i) + counter_at(&s, i);
        memcpy((uint8_t *)acc + route6_drop_counters[i].offset, &a, sizeof(a));
    }
    free(o);
    free(f);
}

static void test_mutation_loop(void **state)
{
    (void)state;
    rng_state = 0x0123456789abcdefull;
    static uint8_t frame[BUF_BYTES];
    unsigned verdicts[3] = { 0 }, sent = 0, calls = 0;
    struct route6_drop_stats acc;
    memset(&acc, 0, sizeof(acc));
    for (int n = 0; n < 20000; n++) {
        memset(frame, 0, sizeof(frame));
        uint16_t len = random_frame(frame);
        if (rng() % 4 == 0) {
            set_hop(frame, (uint8_t)(rng() % 3));
        }
        mutate(frame, &len);
        feed_one(frame, len, verdicts, &sent, &acc);
        calls++;
    }
    /* pure noise, with the EtherType and version sometimes right */
    for (int n = 0; n < 5000; n++) {
        uint16_t len = (uint16_t)(rng() % 200);
        for (unsigned i = 0; i < len; i++) {
            frame[i] = (uint8_t)rng();
        }
        if (len >= 15 && rng() % 2) {
            inet_store_be16(frame + 12, INET_ETHERTYPE_IPV6);
            frame[14] = 0x60;
            frame[0] &= 0xfe;
        }
        feed_one(frame, len, verdicts, &sent, &acc);
        calls++;
    }
    assert_int_equal(verdicts[0] + verdicts[1] + verdicts[2], calls);
    assert_int_equal(route6_frame_drops_total(&acc),
                     verdicts[ROUTE6_HOP_LIMIT_EXPIRED] + verdicts[ROUTE6_DROP]);
    assert_int_equal(acc.hop_limit_expired, verdicts[ROUTE6_HOP_LIMIT_EXPIRED]);
    assert_int_equal(suppressions(&acc) + sent, calls);
    /* the loop reached every outcome */
    assert_true(verdicts[ROUTE6_FORWARD] > 0 && verdicts[ROUTE6_HOP_LIMIT_EXPIRED] > 0);
    assert_true(acc.ip6_bad_version > 0 && acc.ip6_ext_truncated > 0 &&
                acc.ip6_eth_dst_group > 0 && acc.ip6_bad_payload_length > 0);
    assert_true(sent > 0 && acc.icmp6_about_error > 0 && acc.icmp6_no_room > 0 &&
                acc.icmp6_quote_malformed > 0);
    print_message("mutation loop: forward %u expired %u drop %u, icmp6 built %u\n",
                  verdicts[ROUTE6_FORWARD], verdicts[ROUTE6_HOP_LIMIT_EXPIRED],
                  verdicts[ROUTE6_DROP], sent);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_counter_table, setup),
        cmocka_unit_test_setup(test_frame_drops_total, setup),
        cmocka_unit_test_setup(test_forward_basic, setup),
        cmocka_unit_test_setup(test_forward_padded, setup),
        cmocka_unit_test_setup(test_forward_address_edges, setup),
        cmocka_unit_test_setup(test_forward_ext_headers, setup),
        cmocka_unit_test_setup(test_hop_limit_expired, setup),
        cmocka_unit_test_setup(test_header_checks, setup),
        cmocka_unit_test_setup(test_address_checks, setup),
        cmocka_unit_test_setup(test_ext_checks, setup),
        cmocka_unit_test_setup(test_fast_check_against_full, setup),
        cmocka_unit_test_setup(test_icmp_time_exceeded, setup),
        cmocka_unit_test_setup(test_icmp_types, setup),
        cmocka_unit_test_setup(test_icmp_quote_capped_at_1280, setup),
        cmocka_unit_test_setup(test_icmp_quote_shapes, setup),
        cmocka_unit_test_setup(test_icmp_output_room, setup),
        cmocka_unit_test_setup(test_icmp_in_place_and_overlap, setup),
        cmocka_unit_test_setup(test_icmp_about_error, setup),
        cmocka_unit_test_setup(test_icmp_suppressed, setup),
        cmocka_unit_test_setup(test_icmp_after_verdicts, setup),
        cmocka_unit_test_setup(test_mutation_loop, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
