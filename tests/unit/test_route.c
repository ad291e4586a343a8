/*
 * tests/unit/test_route.c: the router's per-packet decisions (net/route.c). Forwarded headers are
 * compared with a full checksum recompute (random headers with options, every checksum value,
 * RFC 1624's 0x0000/0xFFFF corner); every malformed or unforwardable frame must end in exactly
 * its one counter and stay untouched; ICMP errors are checked field by field with independently
 * recomputed checksums; the rate limiter runs on a fake clock; a seeded mutation loop feeds
 * thousands of damaged frames in buffers of their exact size (so ASan sees any over-read); the
 * fast path's one-pass check and TTL update are held to the full check on the same frames.
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
#include "net/route.h"

#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))
#define BUF_BYTES 2048
#define MS 1000000ull /* ns */

static const uint8_t our_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t peer_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
static const uint8_t next_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x03 };
static const uint8_t bcast_mac[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t mcast_mac[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
#define OUR_IP IP4(10, 0, 0, 1)
#define SRC_IP IP4(10, 0, 0, 2)
#define DST_IP IP4(192, 0, 2, 77)

static struct route_drop_stats st;
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

/* --- reference checksum: RFC 1071 section 4.1's plain 16-bit loop ----------------------------- */

static uint16_t ref_csum(const uint8_t *p, size_t len)
{
    uint32_t sum = 0;
    while (len > 1) {
        sum += (uint32_t)p[0] << 8 | p[1];
        p += 2;
        len -= 2;
    }
    if (len > 0) {
        sum += (uint32_t)p[0] << 8;
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return (uint16_t)~sum;
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

/* --- frame builders --------------------------------------------------------------------------- */

static size_t ip_hlen(const uint8_t *f)
{
    return (size_t)(f[14] & 0x0f) * 4;
}

static void fix_ip_csum(uint8_t *f)
{
    uint8_t *ip = f + 14;
    inet_store_be16(ip + 10, 0);
    inet_store_be16(ip + 10, ref_csum(ip, ip_hlen(f)));
}

/* Ethernet (peer -> eth_dst) + IPv4 with opt_bytes of options (a multiple of 4: NOPs then an
 * End) and payload_len bytes of payload (0x00, 0x01, ...). TTL 57. Returns the frame length. */
static uint16_t build_ipv4(uint8_t *f, const uint8_t *eth_dst, uint32_t src, uint32_t dst,
                           uint8_t proto, unsigned opt_bytes, unsigned payload_len)
{
    memcpy(f, eth_dst, 6);
    memcpy(f + 6, peer_mac, 6);
    inet_store_be16(f + 12, INET_ETHERTYPE_IPV4);
    uint8_t *ip = f + 14;
    unsigned hlen = 20 + opt_bytes;
    ip[0] = (uint8_t)(0x40 | (hlen / 4));
    ip[1] = 0x28;
    inet_store_be16(ip + 2, (uint16_t)(hlen + payload_len));
    inet_store_be16(ip + 4, 0x1234);
    inet_store_be16(ip + 6, 0);
    ip[8] = 57;
    ip[9] = proto;
    inet_store_be32(ip + 12, src);
    inet_store_be32(ip + 16, dst);
    memset(ip + 20, 1 /* NOP */, opt_bytes);
    if (opt_bytes > 0) {
        ip[hlen - 1] = 0; /* End of Option List */
    }
    for (unsigned i = 0; i < payload_len; i++) {
        ip[hlen + i] = (uint8_t)i;
    }
    fix_ip_csum(f);
    return (uint16_t)(14 + hlen + payload_len);
}

/* The everyday case: UDP from SRC_IP to DST_IP, 20-byte header, 40 bytes of payload. */
static uint16_t build_udp(uint8_t *f)
{
    return build_ipv4(f, our_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 0, 40);
}

static void set_frag(uint8_t *f, uint16_t frag)
{
    inet_store_be16(f + 14 + 6, frag);
    fix_ip_csum(f);
}

/* ICMP message of the given type in the payload of a frame built by build_ipv4. */
static uint16_t build_icmp(uint8_t *f, uint8_t type, unsigned data_len)
{
    uint16_t len = build_ipv4(f, our_mac, SRC_IP, DST_IP, INET_PROTO_ICMP, 0, 8 + data_len);
    uint8_t *icmp = f + 14 + 20;
    icmp[0] = type;
    icmp[1] = 0;
    inet_store_be16(icmp + 2, 0);
    inet_store_be16(icmp + 2, ref_csum(icmp, 8 + data_len));
    return len;
}

/* --- counter assertions ----------------------------------------------------------------------- */

static uint64_t counter_at(const struct route_drop_stats *s, size_t i)
{
    uint64_t v;
    memcpy(&v, (const uint8_t *)s + route_drop_counters[i].offset, sizeof(v));
    return v;
}

static size_t counter_index(const char *name)
{
    for (size_t i = 0; i < route_drop_counter_count; i++) {
        if (strcmp(route_drop_counters[i].name, name) == 0) {
            return i;
        }
    }
    fail_msg("no route counter named %s", name);
    return 0;
}

/* Every counter is 0 except `name` (if not NULL), which is 1. */
static void assert_only_counter(const char *name)
{
    if (name != NULL) {
        (void)counter_index(name); /* a misspelt name fails here, not silently */
    }
    for (size_t i = 0; i < route_drop_counter_count; i++) {
        uint64_t v = counter_at(&st, i);
        uint64_t want = name != NULL && strcmp(route_drop_counters[i].name, name) == 0;
        if (v != want) {
            fail_msg("expected only %s, but %s = %llu", name ? name : "(none)",
                     route_drop_counters[i].name, (unsigned long long)v);
        }
    }
}

/* Feed the frame now in buf, expect ROUTE_DROP counted as `name`, an untouched frame and an
 * untouched *dst_out. */
static void expect_drop(uint16_t len, const char *name)
{
    static uint8_t before[BUF_BYTES];
    memcpy(before, buf, sizeof(buf));
    memset(&st, 0, sizeof(st));
    uint32_t dst = 0xdeadbeef;
    assert_int_equal(route_ipv4_check_and_decrement(buf, len, &st, &dst), ROUTE_DROP);
    assert_only_counter(name);
    assert_int_equal(route_frame_drops_total(&st), 1);
    assert_int_equal(dst, 0xdeadbeef);
    assert_memory_equal(buf, before, sizeof(buf));
}

/* ICMP error about the frame in buf must be refused and counted as `name`; out untouched. */
static void expect_no_error(uint16_t len, uint8_t type, uint8_t code, uint32_t our_ip,
                            uint16_t out_bytes, const char *name)
{
    static uint8_t before[BUF_BYTES];
    memset(out, 0xa5, sizeof(out));
    memcpy(before, buf, sizeof(buf));
    memset(&st, 0, sizeof(st));
    assert_int_equal(route_icmp_error(out, out_bytes, buf, len, type, code, our_ip, our_mac, &st),
                     0);
    assert_only_counter(name);
    assert_int_equal(route_frame_drops_total(&st), 0);
    for (size_t i = 0; i < sizeof(out); i++) {
        assert_int_equal(out[i], 0xa5);
    }
    assert_memory_equal(buf, before, sizeof(buf));
}

/* --- counter table ---------------------------------------------------------------------------- */

static void test_counter_table(void **state)
{
    (void)state;
    assert_int_equal(route_drop_counter_count * sizeof(uint64_t), sizeof(struct route_drop_stats));
    assert_true(route_frame_drop_counter_count < route_drop_counter_count);
    assert_string_equal(route_drop_counters[0].name, "ip_truncated");
    assert_string_equal(route_drop_counters[route_frame_drop_counter_count - 1].name,
                        "ttl_expired");
    assert_string_equal(route_drop_counters[route_frame_drop_counter_count].name,
                        "icmp_unsupported_type");
    for (size_t i = 0; i < route_drop_counter_count; i++) {
        assert_int_equal(route_drop_counters[i].offset, i * sizeof(uint64_t));
        assert_true(strlen(route_drop_counters[i].why) > 10);
        for (size_t j = 0; j < i; j++) {
            assert_true(strcmp(route_drop_counters[i].name, route_drop_counters[j].name) != 0);
        }
    }
    /* route_frame_drops_total sums the frame drops only */
    st.ip_truncated = 2;
    st.ttl_expired = 3;
    st.icmp_no_room = 100;
    assert_int_equal(route_frame_drops_total(&st), 5);
}

/* --- forwarding ------------------------------------------------------------------------------- */

/* Feed buf (len bytes), expect ROUTE_FORWARD with dst, the TTL one lower, a checksum equal to a
 * full recompute, and no other byte changed. */
static void expect_forward(uint16_t len, uint32_t dst)
{
    static uint8_t before[BUF_BYTES];
    memcpy(before, buf, sizeof(buf));
    struct route_drop_stats s0 = st;
    uint32_t got = 0;
    assert_int_equal(route_ipv4_check_and_decrement(buf, len, &st, &got), ROUTE_FORWARD);
    assert_int_equal(got, dst);
    assert_memory_equal(&s0, &st, sizeof(st));

    uint8_t *ip = buf + 14;
    assert_int_equal(ip[8], (uint8_t)(before[14 + 8] - 1));
    uint16_t fwd_csum = inet_load_be16(ip + 10);
    inet_store_be16(ip + 10, 0);
    uint16_t full = ref_csum(ip, ip_hlen(buf));
    if (fwd_csum != full) {
        fail_msg("incremental %04x != full recompute %04x (old %04x, ttl %u)", fwd_csum, full,
                 inet_load_be16(before + 14 + 10), before[14 + 8]);
    }
    inet_store_be16(ip + 10, fwd_csum);
    assert_int_equal(ref_csum(ip, ip_hlen(buf)), 0);
    /* nothing but TTL (byte 8) and checksum (10, 11) changed */
    before[14 + 8] = buf[14 + 8];
    before[14 + 10] = buf[14 + 10];
    before[14 + 11] = buf[14 + 11];
    assert_memory_equal(buf, before, sizeof(buf));
}

static void test_forward_basic(void **state)
{
    (void)state;
    uint16_t len = build_udp(buf);
    expect_forward(len, DST_IP);
    assert_int_equal(buf[14 + 8], 56);
    /* TTL 2 is the smallest that is forwarded; 255 the largest */
    buf[14 + 8] = 2;
    fix_ip_csum(buf);
    expect_forward(len, DST_IP);
    assert_int_equal(buf[14 + 8], 1);
    buf[14 + 8] = 255;
    fix_ip_csum(buf);
    expect_forward(len, DST_IP);
    assert_int_equal(st.ttl_expired, 0);
}

/* A frame longer than its datagram (Ethernet padding, trailers) is forwarded as it is. */
static void test_forward_padded(void **state)
{
    (void)state;
    uint16_t len = build_ipv4(buf, our_mac, SRC_IP, DST_IP, INET_PROTO_TCP, 0, 6);
    assert_int_equal(len, 40);
    memset(buf + len, 0xee, 20);
    expect_forward(60, DST_IP);
    expect_forward(1514, DST_IP);
}

/* A router forwards fragments unchanged: MF, an offset, both, and DF. */
static void test_forward_fragments(void **state)
{
    (void)state;
    const uint16_t frags[] = { INET_IPV4_FLAG_MF, 185, INET_IPV4_FLAG_MF | 1, 0x1fff,
                               INET_IPV4_FLAG_DF, INET_IPV4_FLAG_DF | INET_IPV4_FLAG_MF | 7 };
    for (size_t i = 0; i < sizeof(frags) / sizeof(frags[0]); i++) {
        uint16_t len = build_udp(buf);
        set_frag(buf, frags[i]);
        expect_forward(len, DST_IP);
        assert_int_equal(inet_load_be16(buf + 14 + 6), frags[i]);
    }
}

/* Unicast addresses near every excluded range are forwarded. */
static void test_forward_address_edges(void **state)
{
    (void)state;
    const uint32_t ok[] = {
        IP4(1, 0, 0, 0),    IP4(126, 255, 255, 255), IP4(128, 0, 0, 0),
        IP4(169, 253, 255, 255), IP4(169, 255, 0, 0), IP4(223, 255, 255, 255),
        IP4(172, 16, 0, 1), IP4(100, 64, 0, 1),      IP4(10, 255, 255, 255),
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        uint16_t len = build_ipv4(buf, our_mac, ok[i], DST_IP, INET_PROTO_UDP, 0, 8);
        expect_forward(len, DST_IP);
        len = build_ipv4(buf, our_mac, SRC_IP, ok[i], INET_PROTO_UDP, 0, 8);
        expect_forward(len, ok[i]);
    }
}

static uint32_t random_unicast(void)
{
    for (;;) {
        uint32_t a = rng();
        uint32_t first = a >> 24;
        if (first != 0 && first != 127 && first < 224 && (a >> 16) != 0xa9fe) {
            return a;
        }
    }
}

/* Random headers: IHL 5..15 with random option bytes, random TOS/ID/flags/TTL/protocol, random
 * payload and padding. Every one must forward with a checksum equal to a full recompute. */
static void test_forward_random_headers(void **state)
{
    (void)state;
    for (int n = 0; n < 20000; n++) {
        unsigned hlen = 20 + 4 * (rng() % 11);
        unsigned payload = rng() % 200;
        memcpy(buf, next_mac, 6);
        memcpy(buf + 6, peer_mac, 6);
        inet_store_be16(buf + 12, INET_ETHERTYPE_IPV4);
        uint8_t *ip = buf + 14;
        for (unsigned i = 0; i < hlen + payload + 20; i++) {
            ip[i] = (uint8_t)rng();
        }
        ip[0] = (uint8_t)(0x40 | hlen / 4);
        inet_store_be16(ip + 2, (uint16_t)(hlen + payload));
        ip[8] = (uint8_t)(2 + rng() % 254);
        inet_store_be32(ip + 12, random_unicast());
        uint32_t dst = random_unicast();
        inet_store_be32(ip + 16, dst);
        fix_ip_csum(buf);
        uint16_t len = (uint16_t)(14 + hlen + payload + rng() % 21);
        expect_forward(len, dst);
    }
}

/*
 * Every possible received checksum value: sweep the ID through all 65536 values (the checksum
 * then takes every value but 0xFFFF, which a full compute never yields), TTL varying too. Where
 * the received checksum is 0x0000, also try its "negative zero" 0xFFFF, which verifies just the
 * same. And build headers whose post-decrement checksum is 0x0000 on purpose.
 */
static void test_forward_checksum_corners(void **state)
{
    (void)state;
    unsigned zero_in = 0, zero_out = 0;
    for (uint32_t id = 0; id <= 0xffff; id++) {
        uint16_t len = build_udp(buf);
        inet_store_be16(buf + 14 + 4, (uint16_t)id);
        buf[14 + 8] = (uint8_t)(2 + id % 254);
        fix_ip_csum(buf);
        if (inet_load_be16(buf + 14 + 10) == 0) {
            zero_in++;
            uint8_t copy[BUF_BYTES];
            memcpy(copy, buf, sizeof(buf));
            inet_store_be16(buf + 14 + 10, 0xffff);
            assert_int_equal(ref_csum(buf + 14, 20), 0); /* 0xFFFF verifies */
            expect_forward(len, DST_IP);
            memcpy(buf, copy, sizeof(buf));
        }
        expect_forward(len, DST_IP);
        zero_out += inet_load_be16(buf + 14 + 10) == 0;
    }
    assert_true(zero_in > 0);
    assert_true(zero_out > 0);

    /* By construction: choose the ID so the decremented header sums to 0xFFFF (checksum 0). */
    for (unsigned ttl = 2; ttl <= 255; ttl++) {
        uint16_t len = build_udp(buf);
        uint8_t *ip = buf + 14;
        ip[8] = (uint8_t)(ttl - 1);
        inet_store_be16(ip + 4, 0);
        inet_store_be16(ip + 10, 0);
        uint16_t sum_wo_id = (uint16_t)~ref_csum(ip, 20);
        inet_store_be16(ip + 4, (uint16_t)~sum_wo_id); /* sum + ~sum = 0xFFFF */
        assert_int_equal(ref_csum(ip, 20), 0);
        ip[8] = (uint8_t)ttl;
        fix_ip_csum(buf);
        expect_forward(len, DST_IP);
        assert_int_equal(inet_load_be16(ip + 10), 0x0000);
    }
}

static void test_ttl_expired(void **state)
{
    (void)state;
    for (unsigned ttl = 0; ttl <= 1; ttl++) {
        uint16_t len = build_udp(buf);
        buf[14 + 8] = (uint8_t)ttl;
        fix_ip_csum(buf);
        uint8_t before[BUF_BYTES];
        memcpy(before, buf, sizeof(buf));
        memset(&st, 0, sizeof(st));
        uint32_t dst = 0xdeadbeef;
        assert_int_equal(route_ipv4_check_and_decrement(buf, len, &st, &dst), ROUTE_TTL_EXPIRED);
        assert_only_counter("ttl_expired");
        assert_int_equal(route_frame_drops_total(&st), 1);
        assert_int_equal(dst, 0xdeadbeef);
        assert_memory_equal(buf, before, sizeof(buf));
    }
    /* a fragment with TTL 1 expires too (the error is the builder's business) */
    uint16_t len = build_udp(buf);
    buf[14 + 8] = 1;
    set_frag(buf, 100);
    memset(&st, 0, sizeof(st));
    uint32_t dst;
    assert_int_equal(route_ipv4_check_and_decrement(buf, len, &st, &dst), ROUTE_TTL_EXPIRED);
}

static void test_header_checks(void **state)
{
    (void)state;
    uint16_t len = build_udp(buf);

    expect_drop(0, "ip_truncated");
    expect_drop(13, "ip_truncated");
    expect_drop(33, "ip_truncated");

    inet_store_be16(buf + 12, 0x86dd);
    expect_drop(len, "eth_not_ipv4");
    inet_store_be16(buf + 12, INET_ETHERTYPE_ARP);
    expect_drop(len, "eth_not_ipv4");

    const uint8_t versions[] = { 0x65, 0x05, 0x55, 0xf5 };
    for (size_t i = 0; i < sizeof(versions); i++) {
        build_udp(buf);
        buf[14] = versions[i];
        fix_ip_csum(buf);
        expect_drop(len, "ip_bad_version");
    }

    for (uint8_t ihl = 0; ihl < 5; ihl++) {
        build_udp(buf);
        buf[14] = (uint8_t)(0x40 | ihl);
        expect_drop(len, "ip_bad_ihl");
    }
    build_udp(buf); /* total length below the 20-byte header */
    inet_store_be16(buf + 14 + 2, 19);
    fix_ip_csum(buf);
    expect_drop(len, "ip_bad_ihl");
    build_ipv4(buf, our_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 40, 0); /* IHL 15 */
    inet_store_be16(buf + 14 + 2, 56);                            /* < 60 */
    fix_ip_csum(buf);
    expect_drop(len, "ip_bad_ihl");

    len = build_udp(buf);
    expect_drop((uint16_t)(len - 1), "ip_bad_total_length");
    inet_store_be16(buf + 14 + 2, 0xffff);
    fix_ip_csum(buf);
    expect_drop(len, "ip_bad_total_length");
    /* IHL 15 and total length 60, but only 40 bytes after Ethernet: the checksum would read
     * past the frame if the total length were not checked first */
    uint16_t l60 = build_ipv4(buf, our_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 40, 0);
    assert_int_equal(l60, 74);
    expect_drop(54, "ip_bad_total_length");

    len = build_udp(buf);
    buf[14 + 10] ^= 0x01;
    expect_drop(len, "ip_bad_checksum");
    build_udp(buf);
    buf[14 + 12] ^= 0x80; /* a damaged address */
    expect_drop(len, "ip_bad_checksum");
    len = build_ipv4(buf, our_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 8, 20);
    buf[14 + 22] ^= 0x40; /* a damaged option byte is inside the checksum */
    expect_drop(len, "ip_bad_checksum");

    /* Ethernet group destinations carrying unicast IP (RFC 1812 5.3.4) */
    len = build_ipv4(buf, bcast_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 0, 8);
    expect_drop(len, "eth_dst_group");
    len = build_ipv4(buf, mcast_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 0, 8);
    expect_drop(len, "eth_dst_group");
}

struct addr_case {
    uint32_t addr;
    const char *as_src;
    const char *as_dst;
};

static void test_address_checks(void **state)
{
    (void)state;
    const struct addr_case cases[] = {
        { IP4(255, 255, 255, 255), "ip_src_broadcast", "ip_dst_broadcast" },
        { IP4(224, 0, 0, 1), "ip_src_multicast", "ip_dst_multicast" },
        { IP4(239, 255, 255, 255), "ip_src_multicast", "ip_dst_multicast" },
        { IP4(232, 1, 2, 3), "ip_src_multicast", "ip_dst_multicast" },
        { IP4(0, 0, 0, 0), "ip_src_martian", "ip_dst_martian" },
        { IP4(0, 1, 2, 3), "ip_src_martian", "ip_dst_martian" },
        { IP4(127, 0, 0, 1), "ip_src_martian", "ip_dst_martian" },
        { IP4(127, 255, 255, 255), "ip_src_martian", "ip_dst_martian" },
        { IP4(240, 0, 0, 1), "ip_src_martian", "ip_dst_martian" },
        { IP4(255, 255, 255, 254), "ip_src_martian", "ip_dst_martian" },
        { IP4(169, 254, 0, 0), "ip_src_link_local", "ip_dst_link_local" },
        { IP4(169, 254, 1, 1), "ip_src_link_local", "ip_dst_link_local" },
        { IP4(169, 254, 255, 255), "ip_src_link_local", "ip_dst_link_local" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint16_t len = build_ipv4(buf, our_mac, cases[i].addr, DST_IP, INET_PROTO_UDP, 0, 8);
        expect_drop(len, cases[i].as_src);
        len = build_ipv4(buf, our_mac, SRC_IP, cases[i].addr, INET_PROTO_UDP, 0, 8);
        expect_drop(len, cases[i].as_dst);
        /* bad addresses win over an expiring TTL: no time exceeded for them */
        buf[14 + 8] = 1;
        fix_ip_csum(buf);
        expect_drop(len, cases[i].as_dst);
    }
    /* both bad: the source is checked first */
    uint16_t len =
        build_ipv4(buf, our_mac, IP4(127, 0, 0, 1), IP4(224, 0, 0, 5), INET_PROTO_UDP, 0, 8);
    expect_drop(len, "ip_src_martian");
}

static void test_eth_rewrite(void **state)
{
    (void)state;
    uint16_t len = build_udp(buf);
    uint8_t before[BUF_BYTES];
    memcpy(before, buf, sizeof(buf));
    route_eth_rewrite(buf, our_mac, next_mac);
    assert_memory_equal(buf, next_mac, 6);
    assert_memory_equal(buf + 6, our_mac, 6);
    assert_memory_equal(buf + 12, before + 12, sizeof(buf) - 12);
    uint32_t dst;
    assert_int_equal(route_ipv4_check_and_decrement(buf, len, &st, &dst), ROUTE_FORWARD);
}

/* --- ICMP errors ------------------------------------------------------------------------------ */

/*
 * Check an ICMP error frame field by field: Ethernet back to the offender's MAC from ours, a
 * fresh IPv4 header (checksum recomputed here), ICMP type/code/unused with its checksum
 * recomputed here, and a quote equal to the first quote_len bytes of the offending datagram.
 */
static void check_icmp_error(const uint8_t *f, uint16_t flen, const uint8_t *orig,
                             uint8_t type, uint8_t code, uint16_t quote_len)
{
    assert_int_equal(flen, 14 + 20 + 8 + quote_len);
    assert_true(flen >= 60);
    assert_memory_equal(f, orig + 6, 6);   /* dst = offender's source MAC */
    assert_memory_equal(f + 6, our_mac, 6);
    assert_int_equal(inet_load_be16(f + 12), 0x0800);

    const uint8_t *ip = f + 14;
    assert_int_equal(ip[0], 0x45);
    assert_int_equal(ip[1], 0xc0);
    assert_int_equal(inet_load_be16(ip + 2), 20 + 8 + quote_len);
    assert_true(inet_load_be16(ip + 2) <= 576);
    assert_int_equal(inet_load_be16(ip + 4), 0);      /* ID */
    assert_int_equal(inet_load_be16(ip + 6), 0x4000); /* DF, offset 0 */
    assert_int_equal(ip[8], 64);
    assert_int_equal(ip[9], 1);
    assert_int_equal(inet_load_be32(ip + 12), OUR_IP);
    assert_int_equal(inet_load_be32(ip + 16), inet_load_be32(orig + 14 + 12));
    uint8_t hdr[20];
    memcpy(hdr, ip, 20);
    inet_store_be16(hdr + 10, 0);
    assert_int_equal(inet_load_be16(ip + 10), ref_csum(hdr, 20));

    const uint8_t *icmp = ip + 20;
    assert_int_equal(icmp[0], type);
    assert_int_equal(icmp[1], code);
    assert_int_equal(inet_load_be32(icmp + 4), 0); /* unused */
    static uint8_t msg[BUF_BYTES];
    memcpy(msg, icmp, 8u + quote_len);
    inet_store_be16(msg + 2, 0);
    assert_int_equal(inet_load_be16(icmp + 2), ref_csum(msg, 8u + quote_len));

    assert_memory_equal(icmp + 8, orig + 14, quote_len);
    /* at least the header + 8 bytes (RFC 792), or all of a shorter datagram */
    size_t hlen = ip_hlen(orig);
    size_t total = inet_load_be16(orig + 14 + 2);
    assert_true(quote_len >= (hlen + 8 < total ? hlen + 8 : total));
}

static void expect_error(uint16_t len, uint8_t type, uint8_t code, uint16_t out_bytes,
                         uint16_t quote_len)
{
    static uint8_t before[BUF_BYTES];
    memcpy(before, buf, sizeof(buf));
    memset(out, 0xa5, sizeof(out));
    memset(&st, 0, sizeof(st));
    uint16_t n = route_icmp_error(out, out_bytes, buf, len, type, code, OUR_IP, our_mac, &st);
    check_icmp_error(out, n, buf, type, code, quote_len);
    assert_only_counter(NULL);
    assert_memory_equal(buf, before, sizeof(buf)); /* the offending frame is left alone */
    for (size_t i = n; i < sizeof(out); i++) {
        assert_int_equal(out[i], 0xa5); /* nothing written beyond the frame */
    }
}

static void test_icmp_time_exceeded(void **state)
{
    (void)state;
    uint16_t len = build_udp(buf); /* 60-byte datagram: quoted entire */
    buf[14 + 8] = 1;
    fix_ip_csum(buf);
    expect_error(len, ROUTE_ICMP_TIME_EXCEEDED, ROUTE_ICMP_CODE_TTL_EXCEEDED, BUF_BYTES, 60);
    /* the TTL-0 and reassembly codes too */
    expect_error(len, ROUTE_ICMP_TIME_EXCEEDED, ROUTE_ICMP_CODE_REASSEMBLY_EXCEEDED, BUF_BYTES,
                 60);
}

static void test_icmp_unreachable(void **state)
{
    (void)state;
    uint16_t len = build_ipv4(buf, our_mac, SRC_IP, DST_IP, INET_PROTO_TCP, 0, 100);
    /* after a forward verdict (TTL decremented): the quote is the datagram as it is now */
    uint32_t dst;
    assert_int_equal(route_ipv4_check_and_decrement(buf, len, &st, &dst), ROUTE_FORWARD);
    expect_error(len, ROUTE_ICMP_DEST_UNREACH, ROUTE_ICMP_CODE_NET_UNREACH, BUF_BYTES, 120);
    expect_error(len, ROUTE_ICMP_DEST_UNREACH, ROUTE_ICMP_CODE_HOST_UNREACH, BUF_BYTES, 120);
    expect_error(len, ROUTE_ICMP_DEST_UNREACH, 13, BUF_BYTES, 120); /* admin. prohibited */
}

/* A full-size datagram: quoted up to 548 bytes, so the error is exactly 576 bytes of IP. */
static void test_icmp_quote_capped_at_576(void **state)
{
    (void)state;
    uint16_t len = build_ipv4(buf, our_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 0, 1480);
    expect_error(len, ROUTE_ICMP_TIME_EXCEEDED, 0, BUF_BYTES, 548);
    assert_int_equal(inet_load_be16(out + 14 + 2), 576);
    expect_error(len, ROUTE_ICMP_TIME_EXCEEDED, 0, ROUTE_ICMP_ERROR_MAX_FRAME_BYTES, 548);
    /* a 549-byte datagram loses its last byte; 548 fits exactly */
    len = build_ipv4(buf, our_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 0, 529);
    expect_error(len, ROUTE_ICMP_TIME_EXCEEDED, 0, BUF_BYTES, 548);
    len = build_ipv4(buf, our_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 0, 528);
    expect_error(len, ROUTE_ICMP_TIME_EXCEEDED, 0, BUF_BYTES, 548);
}

/* Options are quoted with the header; tiny payloads are quoted entire; padding is not quoted. */
static void test_icmp_quote_shapes(void **state)
{
    (void)state;
    uint16_t len = build_ipv4(buf, our_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 40, 8);
    expect_error(len, ROUTE_ICMP_TIME_EXCEEDED, 0, BUF_BYTES, 68);
    len = build_ipv4(buf, our_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 0, 3);
    expect_error(len, ROUTE_ICMP_TIME_EXCEEDED, 0, BUF_BYTES, 23);
    len = build_ipv4(buf, our_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 0, 0);
    expect_error(len, ROUTE_ICMP_TIME_EXCEEDED, 0, BUF_BYTES, 20);
    assert_int_equal(len, 34);
    memset(buf + len, 0xee, 26); /* padded to 60 on the wire */
    expect_error(60, ROUTE_ICMP_TIME_EXCEEDED, 0, BUF_BYTES, 20);
    /* a first fragment (MF, offset 0) gets its error */
    len = build_udp(buf);
    set_frag(buf, INET_IPV4_FLAG_MF);
    expect_error(len, ROUTE_ICMP_TIME_EXCEEDED, 0, BUF_BYTES, 60);
    /* a link-local source is one host on the ingress link: answered */
    len = build_ipv4(buf, our_mac, IP4(169, 254, 9, 9), DST_IP, INET_PROTO_UDP, 0, 8);
    expect_error(len, ROUTE_ICMP_TIME_EXCEEDED, 0, BUF_BYTES, 28);
}

/* The output buffer bounds the quote, down to header + 8 bytes; below that nothing is sent. */
static void test_icmp_output_room(void **state)
{
    (void)state;
    uint16_t len = build_ipv4(buf, our_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 4, 300);
    /* 42 bytes of headers + 24 + 8 minimum quote = 74 */
    expect_error(len, ROUTE_ICMP_TIME_EXCEEDED, 0, 74, 32);
    expect_error(len, ROUTE_ICMP_TIME_EXCEEDED, 0, 200, 158);
    expect_no_error(len, ROUTE_ICMP_TIME_EXCEEDED, 0, OUR_IP, 73, "icmp_no_room");
    expect_no_error(len, ROUTE_ICMP_TIME_EXCEEDED, 0, OUR_IP, 0, "icmp_no_room");
    /* a 23-byte datagram needs only 42 + 23 */
    len = build_ipv4(buf, our_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 0, 3);
    expect_error(len, ROUTE_ICMP_TIME_EXCEEDED, 0, 65, 23);
    expect_no_error(len, ROUTE_ICMP_TIME_EXCEEDED, 0, OUR_IP, 64, "icmp_no_room");
}

/* Built in place: the error replaces the offending frame in its own buffer. */
static void test_icmp_in_place(void **state)
{
    (void)state;
    static uint8_t orig[BUF_BYTES];
    uint16_t len = build_ipv4(buf, our_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 12, 700);
    memcpy(orig, buf, sizeof(buf));
    uint16_t n = route_icmp_error(buf, BUF_BYTES, buf, len, ROUTE_ICMP_TIME_EXCEEDED, 0, OUR_IP,
                                  our_mac, &st);
    check_icmp_error(buf, n, orig, ROUTE_ICMP_TIME_EXCEEDED, 0, 548);
    assert_only_counter(NULL);
}

/* ICMP errors are never sent about ICMP errors; ICMP queries do get them. */
static void test_icmp_about_icmp(void **state)
{
    (void)state;
    const uint8_t errors[] = { 3, 4, 5, 11, 12 };
    for (size_t i = 0; i < sizeof(errors); i++) {
        uint16_t len = build_icmp(buf, errors[i], 28);
        expect_no_error(len, ROUTE_ICMP_TIME_EXCEEDED, 0, OUR_IP, BUF_BYTES,
                        "icmp_about_icmp_error");
    }
    const uint8_t queries[] = { 0, 8, 13, 14, 17, 18, 42 };
    for (size_t i = 0; i < sizeof(queries); i++) {
        uint16_t len = build_icmp(buf, queries[i], 20);
        expect_error(len, ROUTE_ICMP_TIME_EXCEEDED, 0, BUF_BYTES, 48);
    }
    /* ICMP without even a type byte: cannot tell, stay silent */
    uint16_t len = build_ipv4(buf, our_mac, SRC_IP, DST_IP, INET_PROTO_ICMP, 0, 0);
    expect_no_error(len, ROUTE_ICMP_DEST_UNREACH, 0, OUR_IP, BUF_BYTES, "icmp_about_icmp_error");
    /* one byte of ICMP is enough to see an echo request */
    len = build_ipv4(buf, our_mac, SRC_IP, DST_IP, INET_PROTO_ICMP, 0, 1);
    buf[14 + 20] = 8;
    expect_error(len, ROUTE_ICMP_DEST_UNREACH, 0, BUF_BYTES, 21);
    /* a non-initial ICMP fragment: counted as a fragment (its type is not there to read) */
    len = build_icmp(buf, 3, 28);
    set_frag(buf, 3);
    expect_no_error(len, ROUTE_ICMP_TIME_EXCEEDED, 0, OUR_IP, BUF_BYTES, "icmp_about_fragment");
}

static void test_icmp_suppressed(void **state)
{
    (void)state;
    uint16_t len = build_udp(buf);
    /* type/code we do not build */
    expect_no_error(len, 5, 0, OUR_IP, BUF_BYTES, "icmp_unsupported_type");
    expect_no_error(len, 12, 0, OUR_IP, BUF_BYTES, "icmp_unsupported_type");
    expect_no_error(len, 0, 0, OUR_IP, BUF_BYTES, "icmp_unsupported_type");
    expect_no_error(len, 3, 4, OUR_IP, BUF_BYTES, "icmp_unsupported_type");
    expect_no_error(len, 3, 16, OUR_IP, BUF_BYTES, "icmp_unsupported_type");
    expect_no_error(len, 11, 2, OUR_IP, BUF_BYTES, "icmp_unsupported_type");
    /* no address on the ingress port */
    expect_no_error(len, 11, 0, 0, BUF_BYTES, "icmp_no_source_address");

    /* non-initial fragments, with or without MF */
    set_frag(buf, 1);
    expect_no_error(len, 11, 0, OUR_IP, BUF_BYTES, "icmp_about_fragment");
    set_frag(buf, INET_IPV4_FLAG_MF | 0x1fff);
    expect_no_error(len, 11, 0, OUR_IP, BUF_BYTES, "icmp_about_fragment");

    /* link-layer group frames, either side */
    len = build_ipv4(buf, bcast_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 0, 40);
    expect_no_error(len, 11, 0, OUR_IP, BUF_BYTES, "icmp_l2_group");
    len = build_ipv4(buf, mcast_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 0, 40);
    expect_no_error(len, 11, 0, OUR_IP, BUF_BYTES, "icmp_l2_group");
    len = build_udp(buf);
    buf[6] |= 0x01;
    expect_no_error(len, 11, 0, OUR_IP, BUF_BYTES, "icmp_l2_group");

    /* sources that name no single host; broadcast and multicast destinations */
    const struct addr_case cases[] = {
        { IP4(255, 255, 255, 255), "icmp_src_broadcast", "icmp_dst_broadcast" },
        { IP4(224, 0, 0, 1), "icmp_src_multicast", "icmp_dst_multicast" },
        { IP4(239, 1, 1, 1), "icmp_src_multicast", "icmp_dst_multicast" },
        { IP4(0, 0, 0, 0), "icmp_src_martian", NULL },
        { IP4(0, 9, 9, 9), "icmp_src_martian", NULL },
        { IP4(127, 0, 0, 1), "icmp_src_martian", NULL },
        { IP4(240, 0, 0, 1), "icmp_src_martian", NULL },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        len = build_ipv4(buf, our_mac, cases[i].addr, DST_IP, INET_PROTO_UDP, 0, 40);
        expect_no_error(len, 11, 0, OUR_IP, BUF_BYTES, cases[i].as_src);
        if (cases[i].as_dst != NULL) {
            len = build_ipv4(buf, our_mac, SRC_IP, cases[i].addr, INET_PROTO_UDP, 0, 40);
            expect_no_error(len, 3, 1, OUR_IP, BUF_BYTES, cases[i].as_dst);
        }
    }

    /* not a valid datagram (RFC 1812 5.2.2 failures never provoke errors) */
    len = build_udp(buf);
    expect_no_error(33, 11, 0, OUR_IP, BUF_BYTES, "icmp_quote_malformed");
    expect_no_error(0, 11, 0, OUR_IP, BUF_BYTES, "icmp_quote_malformed");
    expect_no_error((uint16_t)(len - 1), 11, 0, OUR_IP, BUF_BYTES, "icmp_quote_malformed");
    buf[14 + 11] ^= 0x10;
    expect_no_error(len, 11, 0, OUR_IP, BUF_BYTES, "icmp_quote_malformed");
    build_udp(buf);
    buf[14] = 0x44;
    fix_ip_csum(buf);
    expect_no_error(len, 11, 0, OUR_IP, BUF_BYTES, "icmp_quote_malformed");
    build_udp(buf);
    buf[14] = 0x65;
    expect_no_error(len, 11, 0, OUR_IP, BUF_BYTES, "icmp_quote_malformed");
    build_udp(buf);
    inet_store_be16(buf + 12, 0x86dd);
    expect_no_error(len, 11, 0, OUR_IP, BUF_BYTES, "icmp_quote_malformed");
}

/* The intended flow on a TTL-expired frame: verdict, limiter, error. */
static void test_icmp_after_expiry(void **state)
{
    (void)state;
    uint16_t len = build_ipv4(buf, our_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 0, 12);
    buf[14 + 8] = 1;
    fix_ip_csum(buf);
    uint32_t dst;
    assert_int_equal(route_ipv4_check_and_decrement(buf, len, &st, &dst), ROUTE_TTL_EXPIRED);
    struct route_ratelimit rl;
    route_ratelimit_init(&rl, 100, 10, 0);
    assert_true(route_ratelimit_allow(&rl, 1));
    uint16_t n = route_icmp_error(out, BUF_BYTES, buf, len, ROUTE_ICMP_TIME_EXCEEDED,
                                  ROUTE_ICMP_CODE_TTL_EXCEEDED, OUR_IP, our_mac, &st);
    check_icmp_error(out, n, buf, 11, 0, 32);
    assert_int_equal(n, 74);
    assert_only_counter("ttl_expired");
}

/* --- rate limiter ----------------------------------------------------------------------------- */

static unsigned allowed_between(struct route_ratelimit *rl, uint64_t from, uint64_t to,
                                uint64_t step)
{
    unsigned n = 0;
    for (uint64_t t = from; t < to; t += step) {
        n += route_ratelimit_allow(rl, t);
    }
    return n;
}

static void test_ratelimit_burst_then_rate(void **state)
{
    (void)state;
    struct route_ratelimit rl;
    uint64_t t0 = 5000 * MS;
    route_ratelimit_init(&rl, 10, 5, t0);
    /* a full bucket: the burst at once, then nothing */
    for (int i = 0; i < 5; i++) {
        assert_true(route_ratelimit_allow(&rl, t0));
    }
    assert_false(route_ratelimit_allow(&rl, t0));
    assert_false(route_ratelimit_allow(&rl, t0 + 99 * MS));
    /* one token per 100 ms */
    assert_true(route_ratelimit_allow(&rl, t0 + 100 * MS));
    assert_false(route_ratelimit_allow(&rl, t0 + 100 * MS));
    assert_false(route_ratelimit_allow(&rl, t0 + 199 * MS));
    assert_true(route_ratelimit_allow(&rl, t0 + 200 * MS));
    /* steady asking every millisecond for 10 s: exactly the rate (tokens due at 300 ms, 400 ms,
     * ..., 10200 ms after t0) */
    assert_int_equal(allowed_between(&rl, t0 + 201 * MS, t0 + 10201 * MS, MS), 100);
    uint64_t t1 = t0 + 10201 * MS;
    /* a long quiet spell refills only up to the burst */
    uint64_t t2 = t1 + 3600000 * MS;
    assert_int_equal(allowed_between(&rl, t2, t2 + 1, 1), 1);
    for (int i = 0; i < 4; i++) {
        assert_true(route_ratelimit_allow(&rl, t2));
    }
    assert_false(route_ratelimit_allow(&rl, t2));
}

static void test_ratelimit_steady_rates(void **state)
{
    (void)state;
    const uint32_t rates[] = { 1, 3, 7, 100, 1000, 999983, 3000000 };
    for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
        struct route_ratelimit rl;
        /* burst 2: asking at 10x the rate never meets a full bucket, so no refill is lost */
        route_ratelimit_init(&rl, rates[i], 2, 0);
        assert_true(route_ratelimit_allow(&rl, 0)); /* empty the bucket */
        assert_true(route_ratelimit_allow(&rl, 0));
        assert_false(route_ratelimit_allow(&rl, 0));
        /* 100 s of asking at 10x the rate (at most every 1 ms) */
        uint64_t step = 100000000ull / rates[i];
        if (step > MS) {
            step = MS;
        }
        if (step == 0) {
            step = 1;
        }
        uint64_t span = 100000 * MS;
        if (rates[i] > 1000) {
            span = 100 * MS; /* keep the loop short; still 10^5 tokens */
        }
        unsigned n = allowed_between(&rl, step, span + 1, step);
        uint64_t last_ask = span / step * step;
        uint64_t want = (uint64_t)rates[i] * last_ask / 1000000000ull;
        /* exact: no rounding of the rate */
        if (n != want) {
            fail_msg("rate %u: %u allowed in %llu ns, want %llu", rates[i], n,
                     (unsigned long long)span, (unsigned long long)want);
        }
    }
}

static void test_ratelimit_edges(void **state)
{
    (void)state;
    struct route_ratelimit rl;
    /* rate 0 or burst 0: errors off */
    route_ratelimit_init(&rl, 0, 10, 0);
    assert_int_equal(allowed_between(&rl, 0, 10000 * MS, 7 * MS), 0);
    assert_false(route_ratelimit_allow(&rl, UINT64_MAX));
    route_ratelimit_init(&rl, 10, 0, 0);
    assert_int_equal(allowed_between(&rl, 0, 10000 * MS, 7 * MS), 0);
    /* a clock stepping back credits nothing, and the limiter goes on from there */
    route_ratelimit_init(&rl, 10, 1, 1000 * MS);
    assert_true(route_ratelimit_allow(&rl, 1000 * MS));
    assert_false(route_ratelimit_allow(&rl, 10 * MS));
    assert_false(route_ratelimit_allow(&rl, 109 * MS));
    assert_true(route_ratelimit_allow(&rl, 110 * MS));
    /* huge elapsed times and a clock near its end do not overflow */
    route_ratelimit_init(&rl, 1000, UINT32_MAX, 0);
    assert_true(route_ratelimit_allow(&rl, UINT64_MAX - 1));
    assert_true(route_ratelimit_allow(&rl, UINT64_MAX));
    route_ratelimit_init(&rl, UINT32_MAX, UINT32_MAX, 0); /* above 1e9/s: unlimited */
    assert_int_equal(allowed_between(&rl, 0, 1000, 1), 1000);
    route_ratelimit_init(&rl, 1, 1, UINT64_MAX - 10);
    assert_true(route_ratelimit_allow(&rl, UINT64_MAX));
    assert_false(route_ratelimit_allow(&rl, UINT64_MAX));
}

/* --- mutation loop ---------------------------------------------------------------------------- */

/* A valid frame of assorted shape: options, protocols, fragments, padding, TTLs near 1. */
static uint16_t seed_frame(uint8_t *f)
{
    unsigned opt = 4 * (rng() % 11);
    unsigned payload = rng() % 1500 > 1400 ? 1400 : rng() % 120;
    uint8_t proto = (uint8_t[]){ INET_PROTO_UDP, INET_PROTO_TCP, INET_PROTO_ICMP, 47 }[rng() % 4];
    uint16_t len = build_ipv4(f, rng() % 8 ? our_mac : bcast_mac, rng() % 16 ? SRC_IP : 0,
                              rng() % 16 ? DST_IP : IP4(169, 254, 1, 1), proto, opt, payload);
    if (proto == INET_PROTO_ICMP && payload > 0) {
        f[14 + 20 + opt] = (uint8_t)(rng() % 16);
    }
    f[14 + 8] = (uint8_t)(rng() % 4 ? rng() % 4 : rng());
    if (rng() % 4 == 0) {
        inet_store_be16(f + 14 + 6, (uint16_t)rng());
    }
    fix_ip_csum(f);
    return (uint16_t)(len + rng() % 3 * (rng() % 30));
}

/* Damage: flip bits, overwrite bytes, truncate; sometimes repair the checksum so the damage
 * reaches the checks behind it. */
static uint16_t mutate(uint8_t *f, uint16_t len)
{
    unsigned edits = rng() % 5;
    for (unsigned i = 0; i < edits; i++) {
        unsigned at = rng() % (rng() % 2 ? 40 : len + 1u);
        if (at >= BUF_BYTES) {
            continue;
        }
        if (rng() % 2) {
            f[at] ^= (uint8_t)(1u << (rng() % 8));
        } else {
            f[at] = (uint8_t)rng();
        }
    }
    if (rng() % 3 == 0 && (f[14] & 0x0f) >= 5) {
        fix_ip_csum(f);
    }
    if (rng() % 4 == 0) {
        len = (uint16_t)(rng() % (len + 1u));
    }
    return len;
}

/* One frame through both entry points, in heap buffers of its exact size (ASan's red zones then
 * catch any read or write past it), with conservation of counters checked. */
static void feed_one(const uint8_t *frame, uint16_t len, unsigned *verdicts, unsigned *sent)
{
    uint8_t *f = malloc(len ? len : 1);
    assert_non_null(f);
    memcpy(f, frame, len);
    struct route_drop_stats s0 = st;
    uint64_t drops0 = route_frame_drops_total(&st);
    uint32_t dst = 0;

    enum route_verdict v = route_ipv4_check_and_decrement(f, len, &st, &dst);
    assert_true(v == ROUTE_FORWARD || v == ROUTE_TTL_EXPIRED || v == ROUTE_DROP);
    verdicts[v]++;
    assert_int_equal(route_frame_drops_total(&st), drops0 + (v != ROUTE_FORWARD));
    if (v == ROUTE_FORWARD) {
        assert_int_equal(ref_csum(f + 14, ip_hlen(f)), 0);
        assert_int_equal(f[14 + 8], (uint8_t)(frame[14 + 8] - 1));
        assert_int_equal(dst, inet_load_be32(f + 14 + 16));
    } else {
        assert_memory_equal(f, frame, len);
    }
    if (v == ROUTE_TTL_EXPIRED) {
        assert_int_equal(st.ttl_expired, s0.ttl_expired + 1);
    }

    uint16_t out_bytes = (uint16_t)(rng() % 2 ? ROUTE_ICMP_ERROR_MAX_FRAME_BYTES : rng() % 120);
    uint8_t *o = malloc(out_bytes ? out_bytes : 1);
    assert_non_null(o);
    uint64_t supp0 = 0, supp1 = 0;
    for (size_t i = route_frame_drop_counter_count; i < route_drop_counter_count; i++) {
        supp0 += counter_at(&s0, i);
        supp1 += counter_at(&st, i);
    }
    struct route_drop_stats s1 = st;
    uint8_t type = rng() % 2 ? ROUTE_ICMP_TIME_EXCEEDED : ROUTE_ICMP_DEST_UNREACH;
    uint16_t n = route_icmp_error(o, out_bytes, f, len, type, 0, OUR_IP, our_mac, &st);
    uint64_t supp2 = 0;
    for (size_t i = route_frame_drop_counter_count; i < route_drop_counter_count; i++) {
        supp2 += counter_at(&st, i);
    }
    assert_int_equal(supp1, supp0);
    assert_int_equal(supp2, supp1 + (n == 0));
    assert_int_equal(route_frame_drops_total(&st), route_frame_drops_total(&s1));
    if (n != 0) {
        (*sent)++;
        assert_true(n <= out_bytes && n >= 62);
        uint16_t quote = (uint16_t)(n - 42);
        check_icmp_error(o, n, f, type, 0, quote);
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
    for (int n = 0; n < 6000; n++) {
        memset(frame, 0, sizeof(frame));
        uint16_t len = mutate(frame, seed_frame(frame));
        feed_one(frame, len, verdicts, &sent);
        calls++;
    }
    /* pure noise, with the EtherType sometimes right */
    for (int n = 0; n < 3000; n++) {
        uint16_t len = (uint16_t)(rng() % 200);
        for (unsigned i = 0; i < len; i++) {
            frame[i] = (uint8_t)rng();
        }
        if (len >= 14 && rng() % 2) {
            inet_store_be16(frame + 12, INET_ETHERTYPE_IPV4);
        }
        feed_one(frame, len, verdicts, &sent);
        calls++;
    }
    /* every frame got exactly one verdict, and the counters agree */
    assert_int_equal(verdicts[0] + verdicts[1] + verdicts[2], calls);
    assert_int_equal(route_frame_drops_total(&st), verdicts[ROUTE_TTL_EXPIRED] +
                                                        verdicts[ROUTE_DROP]);
    assert_int_equal(st.ttl_expired, verdicts[ROUTE_TTL_EXPIRED]);
    /* the loop reached every outcome */
    assert_true(verdicts[ROUTE_FORWARD] > 0 && verdicts[ROUTE_TTL_EXPIRED] > 0);
    assert_true(st.ip_bad_checksum > 0 && st.ip_bad_ihl > 0 && st.eth_dst_group > 0);
    assert_true(sent > 0 && st.icmp_about_icmp_error > 0 && st.icmp_about_fragment > 0 &&
                st.icmp_no_room > 0);
    print_message("mutation loop: forward %u expired %u drop %u, icmp built %u\n",
                  verdicts[ROUTE_FORWARD], verdicts[ROUTE_TTL_EXPIRED], verdicts[ROUTE_DROP],
                  sent);
}

/* --- the fast path's check and TTL update ------------------------------------------------------ */

/*
 * The TTL update against RFC 1624 eqn. 3 as inet_csum_update16 does it (host order, the old
 * and new words), for every checksum value a header can carry, several TTLs and protocols.
 */
static void test_ttl_decrement_every_checksum(void **state)
{
    (void)state;
    static const uint8_t ttls[] = { 2, 3, 64, 128, 255 };
    uint8_t ip[20];
    for (uint32_t hc = 0; hc <= 0xffff; hc++) {
        for (size_t t = 0; t < sizeof(ttls); t++) {
            memset(ip, 0x11, sizeof(ip));
            ip[8] = ttls[t];
            ip[9] = (uint8_t)(hc * 7 + t);
            inet_store_be16(ip + 10, (uint16_t)hc);
            uint16_t m = (uint16_t)(ip[8] << 8 | ip[9]);
            uint16_t want = inet_csum_update16((uint16_t)hc, m, (uint16_t)(m - 0x100));
            route_ipv4_ttl_decrement(ip);
            if (inet_load_be16(ip + 10) != want || ip[8] != ttls[t] - 1) {
                fail_msg("checksum 0x%04x TTL %u: got 0x%04x TTL %u, RFC 1624 eqn. 3 gives "
                         "0x%04x", hc, ttls[t], inet_load_be16(ip + 10), ip[8], want);
            }
        }
    }
}

/* One frame through the fast check (both ways: summing the header itself, and trusting the
 * NIC's verdict) and the full check, in exact-size heap buffers. Whenever the fast check passes
 * a frame, the full check forwards it to the same destination, and the TTL update gives the
 * same bytes; it never writes. With the NIC's verdict its answer differs only on a header whose
 * checksum does not verify, which the full check then drops for exactly that. */
static void fast_against_full(const uint8_t *frame, uint16_t len, unsigned *fast,
                              unsigned *full_only)
{
    uint8_t *a = malloc(len ? len : 1), *b = malloc(len ? len : 1);
    assert_true(a != NULL && b != NULL);
    memcpy(a, frame, len);
    memcpy(b, frame, len);
    uint32_t fd = route_ipv4_fast_check(a, len, false);
    uint32_t fd_nic = route_ipv4_fast_check(a, len, true);
    assert_memory_equal(a, frame, len);
    struct route_drop_stats s;
    memset(&s, 0, sizeof(s));
    uint32_t dst = 0;
    enum route_verdict v = route_ipv4_check_and_decrement(b, len, &s, &dst);
    if (fd != 0) {
        assert_int_equal(fd_nic, fd);
        assert_int_equal(v, ROUTE_FORWARD);
        assert_int_equal(dst, fd);
        route_ipv4_ttl_decrement(a + 14);
        assert_memory_equal(a, b, len);
        (*fast)++;
    } else if (fd_nic != 0) {
        assert_int_equal(ref_csum(frame + 14, 20) != 0, 1);
        assert_int_equal(v, ROUTE_DROP);
        assert_int_equal(s.ip_bad_checksum, 1);
    } else if (v == ROUTE_FORWARD) {
        (*full_only)++;
    }
    free(a);
    free(b);
}

/* Damaged frames (the mutation loop's, and plain ones) and headers of every address class: the fast check
 * against the full one. Both outcomes must be reached. */
static void test_fast_check_against_full(void **state)
{
    (void)state;
    rng_state = 0x5eed5eed5eed5eedull;
    static uint8_t frame[BUF_BYTES];
    unsigned fast = 0, full_only = 0;
    for (int n = 0; n < 20000; n++) {
        memset(frame, 0, sizeof(frame));
        uint16_t len = rng() % 2 ? seed_frame(frame)
                                 : build_ipv4(frame, our_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 0,
                                              rng() % 100);
        if (rng() % 2) {
            inet_store_be32(frame + 14 + 12, rng());
            inet_store_be32(frame + 14 + 16, rng());
            fix_ip_csum(frame);
        }
        if (rng() % 2) {
            len = mutate(frame, len);
        }
        fast_against_full(frame, len, &fast, &full_only);
    }
    assert_true(fast > 1000 && full_only > 100);
    print_message("fast check: %u forwarded by it, %u by the full check only\n", fast,
                  full_only);
}

/* --- fragmentation needed and fragmentation ---------------------------------------------------- */

static void test_icmp_frag_needed(void **state)
{
    (void)state;
    uint16_t len = build_ipv4(buf, our_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 0, 1400);
    set_frag(buf, INET_IPV4_FLAG_DF);
    memset(&st, 0, sizeof(st));
    uint16_t n = route_icmp_frag_needed(out, BUF_BYTES, buf, len, 1280, OUR_IP, our_mac, &st);
    assert_int_equal(n, 14 + 576);
    const uint8_t *icmp = out + 14 + 20;
    assert_int_equal(icmp[0], 3);
    assert_int_equal(icmp[1], 4);
    assert_int_equal(inet_load_be16(icmp + 4), 0);    /* unused half (RFC 1191 section 4) */
    assert_int_equal(inet_load_be16(icmp + 6), 1280); /* the next-hop MTU */
    assert_int_equal(ref_csum(icmp, 576 - 20), 0);
    assert_memory_equal(icmp + 8, buf + 14, 576 - 20 - 8);
    assert_only_counter(NULL);
    /* the same suppressions as every error: not about a non-initial fragment */
    set_frag(buf, INET_IPV4_FLAG_DF | 7);
    assert_int_equal(route_icmp_frag_needed(out, BUF_BYTES, buf, len, 1280, OUR_IP, our_mac, &st),
                     0);
    assert_only_counter("icmp_about_fragment");
}

/* Every fragment of frame (len bytes) cut for mtu: checked one by one, then their data put
 * back together must be the datagram's. Returns how many there were. */
static unsigned cut_and_check(const uint8_t *frame, uint16_t mtu, unsigned later_hlen)
{
    static uint8_t frag[BUF_BYTES], data[65536];
    const uint8_t *ip = frame + 14;
    unsigned hlen = ip_hlen(frame), total = inet_load_be16(ip + 2);
    unsigned base = (inet_load_be16(ip + 6) & INET_IPV4_FRAG_OFFSET_MASK) * 8u;
    bool orig_mf = (inet_load_be16(ip + 6) & INET_IPV4_FLAG_MF) != 0;
    struct route_frag f;
    assert_true(route_frag_init(&f, frame, mtu));
    unsigned count = 0, got = 0;
    bool last_mf = true;
    for (uint16_t n; (n = route_frag_next(&f, frag, BUF_BYTES)) != 0; count++) {
        const uint8_t *fip = frag + 14;
        unsigned fh = ip_hlen(frag), ftotal = inet_load_be16(fip + 2);
        unsigned off = (inet_load_be16(fip + 6) & INET_IPV4_FRAG_OFFSET_MASK) * 8u;
        assert_true(last_mf); /* nothing after the last fragment */
        assert_memory_equal(frag, frame, 14);   /* Ethernet header copied */
        assert_int_equal(fh, count == 0 ? hlen : later_hlen);
        assert_memory_equal(fip + 12, ip + 12, 8); /* addresses */
        assert_int_equal(inet_load_be16(fip + 4), inet_load_be16(ip + 4)); /* one ID */
        assert_int_equal(fip[8], ip[8]);
        assert_int_equal(fip[9], ip[9]);
        assert_true(ftotal <= mtu);
        assert_int_equal(ref_csum(fip, fh), 0);
        assert_int_equal(n, ftotal + 14 < 60 ? 60 : ftotal + 14);
        assert_int_equal(off, base + got);      /* contiguous, in order */
        last_mf = (inet_load_be16(fip + 6) & INET_IPV4_FLAG_MF) != 0;
        if (last_mf && got + ftotal - fh < total - hlen) {
            assert_int_equal((ftotal - fh) % 8, 0); /* only the last may end off a multiple */
        }
        memcpy(data + got, fip + fh, ftotal - fh);
        got += ftotal - fh;
    }
    assert_int_equal(got, total - hlen);
    assert_memory_equal(data, ip + hlen, got);
    assert_int_equal(last_mf, orig_mf); /* the last keeps the datagram's own MF */
    assert_int_equal(route_frag_next(&f, frag, BUF_BYTES), 0);
    return count;
}

static void test_fragment_plain(void **state)
{
    (void)state;
    build_ipv4(buf, next_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 0, 1480);
    /* 1480 bytes in 576: (576 - 20) & ~7 = 552 per fragment: 552 + 552 + 376 */
    assert_int_equal(cut_and_check(buf, 576, 20), 3);
    assert_int_equal(cut_and_check(buf, 1280, 20), 2);
    assert_int_equal(cut_and_check(buf, 68, 20), 1480 / 48 + 1);
    assert_int_equal(cut_and_check(buf, 1499, 20), 2);
}

static void test_fragment_options_copied_or_not(void **state)
{
    (void)state;
    build_ipv4(buf, next_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 12, 1000);
    uint8_t *opt = buf + 14 + 20;
    static const uint8_t opts[12] = { 0x94, 4, 0, 0,             /* router alert: copied */
                                      0x07, 7, 4, 0, 0, 0, 0,    /* record route: not */
                                      0x00 };
    memcpy(opt, opts, sizeof(opts));
    fix_ip_csum(buf);
    assert_int_equal(cut_and_check(buf, 576, 24), 2); /* later headers: 20 + 4 */
    static uint8_t frag[BUF_BYTES];
    struct route_frag f;
    assert_true(route_frag_init(&f, buf, 576));
    assert_true(route_frag_next(&f, frag, BUF_BYTES) > 0);
    assert_memory_equal(frag + 14 + 20, opts, 12);     /* the first keeps them all */
    assert_true(route_frag_next(&f, frag, BUF_BYTES) > 0);
    assert_memory_equal(frag + 14 + 20, opts, 4);      /* later: the copied one only */
}

static void test_fragment_of_a_fragment(void **state)
{
    (void)state;
    build_ipv4(buf, next_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 0, 1200);
    set_frag(buf, INET_IPV4_FLAG_MF | 100); /* bytes 800.. of a larger datagram */
    assert_int_equal(cut_and_check(buf, 576, 20), 3);
    set_frag(buf, 100); /* its last piece: the last new fragment has MF clear */
    assert_int_equal(cut_and_check(buf, 576, 20), 3);
}

static void test_fragment_refused(void **state)
{
    (void)state;
    struct route_frag f;
    build_ipv4(buf, next_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 0, 1400);
    set_frag(buf, INET_IPV4_FLAG_DF);
    assert_false(route_frag_init(&f, buf, 576));              /* DF */
    build_ipv4(buf, next_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 40, 1000);
    assert_false(route_frag_init(&f, buf, 67));               /* 60-byte header, no 8 */
    assert_true(route_frag_init(&f, buf, 68));
    build_ipv4(buf, next_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 0, 1400);
    set_frag(buf, 8100);                                      /* 64800 + 1400 > 65535 */
    assert_false(route_frag_init(&f, buf, 576));
    /* a hostile option length only ends the copy: nothing beyond the header is read */
    build_ipv4(buf, next_mac, SRC_IP, DST_IP, INET_PROTO_UDP, 8, 600);
    uint8_t *opt = buf + 14 + 20;
    opt[0] = 0x94, opt[1] = 200;
    fix_ip_csum(buf);
    assert_int_equal(cut_and_check(buf, 576, 20), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_counter_table, setup),
        cmocka_unit_test_setup(test_icmp_frag_needed, setup),
        cmocka_unit_test_setup(test_fragment_plain, setup),
        cmocka_unit_test_setup(test_fragment_options_copied_or_not, setup),
        cmocka_unit_test_setup(test_fragment_of_a_fragment, setup),
        cmocka_unit_test_setup(test_fragment_refused, setup),
        cmocka_unit_test_setup(test_forward_basic, setup),
        cmocka_unit_test_setup(test_forward_padded, setup),
        cmocka_unit_test_setup(test_forward_fragments, setup),
        cmocka_unit_test_setup(test_forward_address_edges, setup),
        cmocka_unit_test_setup(test_forward_random_headers, setup),
        cmocka_unit_test_setup(test_forward_checksum_corners, setup),
        cmocka_unit_test_setup(test_ttl_expired, setup),
        cmocka_unit_test_setup(test_header_checks, setup),
        cmocka_unit_test_setup(test_address_checks, setup),
        cmocka_unit_test_setup(test_eth_rewrite, setup),
        cmocka_unit_test_setup(test_icmp_time_exceeded, setup),
        cmocka_unit_test_setup(test_icmp_unreachable, setup),
        cmocka_unit_test_setup(test_icmp_quote_capped_at_576, setup),
        cmocka_unit_test_setup(test_icmp_quote_shapes, setup),
        cmocka_unit_test_setup(test_icmp_output_room, setup),
        cmocka_unit_test_setup(test_icmp_in_place, setup),
        cmocka_unit_test_setup(test_icmp_about_icmp, setup),
        cmocka_unit_test_setup(test_icmp_suppressed, setup),
        cmocka_unit_test_setup(test_icmp_after_expiry, setup),
        cmocka_unit_test_setup(test_ratelimit_burst_then_rate, setup),
        cmocka_unit_test_setup(test_ratelimit_steady_rates, setup),
        cmocka_unit_test_setup(test_ratelimit_edges, setup),
        cmocka_unit_test_setup(test_mutation_loop, setup),
        cmocka_unit_test_setup(test_ttl_decrement_every_checksum, setup),
        cmocka_unit_test_setup(test_fast_check_against_full, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
