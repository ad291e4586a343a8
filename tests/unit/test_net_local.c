/*
 * tests/unit/test_net_local.c: the own-address input path (net/local.c) and the Internet
 * checksum helpers (net/inet.h). Each malformed frame must end in exactly its one named counter;
 * replies are checked byte by byte or by recomputing their checksums independently; a seeded
 * mutation loop feeds thousands of damaged frames and checks conservation of counters.
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
#include "net/local.h"
#include "net/neigh.h"

#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))
#define BUF_BYTES 2048

static const uint8_t our_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t peer_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
static const uint8_t bcast_mac[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
#define OUR_IP IP4(10, 0, 0, 1)
#define PEER_IP IP4(10, 0, 0, 2)

static const struct net_iface ifc = {
    .mac = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 },
    .ip = OUR_IP,
    .prefix_len = 24,
    .port = 0,
};

static struct neigh_table neigh;
static struct net_local_stats st;
static uint8_t buf[BUF_BYTES];

static int setup(void **state)
{
    (void)state;
    neigh_init(&neigh);
    memset(&st, 0, sizeof(st));
    memset(buf, 0, sizeof(buf));
    return 0;
}

/* --- reference checksum: the plain 16-bit loop of RFC 1071 section 4.1, independent of
 * inet_csum_add's 32-bit strides ------------------------------------------------------------ */

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

/* --- frame builders --------------------------------------------------------------------------- */

static void put_eth(uint8_t *f, const uint8_t *dst, const uint8_t *src, uint16_t type)
{
    memcpy(f, dst, 6);
    memcpy(f + 6, src, 6);
    inet_store_be16(f + 12, type);
}

/* An Ethernet/IPv4 ARP packet; returns 42 (unpadded). */
static uint16_t build_arp(uint8_t *f, const uint8_t *eth_dst, uint16_t op, const uint8_t *sha,
                          uint32_t spa, const uint8_t *tha, uint32_t tpa)
{
    put_eth(f, eth_dst, sha, INET_ETHERTYPE_ARP);
    uint8_t *a = f + 14;
    inet_store_be16(a, 1);
    inet_store_be16(a + 2, 0x0800);
    a[4] = 6;
    a[5] = 4;
    inet_store_be16(a + 6, op);
    memcpy(a + 8, sha, 6);
    inet_store_be32(a + 14, spa);
    memcpy(a + 18, tha, 6);
    inet_store_be32(a + 24, tpa);
    return 42;
}

static uint16_t arp_request_for(uint8_t *f, uint32_t tpa)
{
    static const uint8_t zero[6] = { 0 };
    return build_arp(f, bcast_mac, INET_ARP_OP_REQUEST, peer_mac, PEER_IP, zero, tpa);
}

static void fix_ip_csum(uint8_t *f)
{
    uint8_t *ip = f + 14;
    size_t hlen = (size_t)(ip[0] & 0x0f) * 4;
    inet_store_be16(ip + 10, 0);
    inet_store_be16(ip + 10, ref_csum(ip, hlen));
}

/* IPv4 with opt_bytes of NOP options (a multiple of 4) and payload_len bytes of payload
 * (0x00, 0x01, ...); returns the frame length. The header checksum is valid. */
static uint16_t build_ipv4(uint8_t *f, const uint8_t *eth_dst, uint32_t src, uint32_t dst,
                           uint8_t proto, unsigned opt_bytes, unsigned payload_len)
{
    put_eth(f, eth_dst, peer_mac, INET_ETHERTYPE_IPV4);
    uint8_t *ip = f + 14;
    unsigned hlen = 20 + opt_bytes;
    ip[0] = (uint8_t)(0x40 | (hlen / 4));
    ip[1] = 0xb9; /* DSCP 46 (EF) + ECN CE bits set: the reply must keep DSCP, clear ECN */
    inet_store_be16(ip + 2, (uint16_t)(hlen + payload_len));
    inet_store_be16(ip + 4, 0x1234);
    inet_store_be16(ip + 6, 0);
    ip[8] = 57;
    ip[9] = proto;
    inet_store_be32(ip + 12, src);
    inet_store_be32(ip + 16, dst);
    memset(ip + 20, 1 /* NOP */, opt_bytes);
    for (unsigned i = 0; i < payload_len; i++) {
        ip[hlen + i] = (uint8_t)i;
    }
    fix_ip_csum(f);
    return (uint16_t)(14 + hlen + payload_len);
}

static void fix_icmp_csum(uint8_t *f)
{
    uint8_t *ip = f + 14;
    size_t hlen = (size_t)(ip[0] & 0x0f) * 4;
    size_t icmp_len = inet_load_be16(ip + 2) - hlen;
    uint8_t *icmp = ip + hlen;
    inet_store_be16(icmp + 2, 0);
    inet_store_be16(icmp + 2, ref_csum(icmp, icmp_len));
}

/* ICMP echo request from the peer to dst with data_len bytes of data. */
static uint16_t build_echo_to(uint8_t *f, uint32_t dst, unsigned opt_bytes, unsigned data_len)
{
    uint16_t len = build_ipv4(f, our_mac, PEER_IP, dst, INET_PROTO_ICMP, opt_bytes, 8 + data_len);
    uint8_t *icmp = f + 14 + 20 + opt_bytes;
    icmp[0] = INET_ICMP_ECHO_REQUEST;
    icmp[1] = 0;
    inet_store_be16(icmp + 4, 0xbeef); /* id */
    inet_store_be16(icmp + 6, 0x0007); /* seq */
    for (unsigned i = 0; i < data_len; i++) {
        icmp[8 + i] = (uint8_t)(0x30 + i * 7);
    }
    fix_icmp_csum(f);
    return len;
}

static uint16_t build_echo(uint8_t *f, unsigned opt_bytes, unsigned data_len)
{
    return build_echo_to(f, OUR_IP, opt_bytes, data_len);
}

/* --- assertions ------------------------------------------------------------------------------- */

static enum net_verdict feed(uint16_t len, uint16_t buf_bytes, uint16_t *out_len)
{
    return net_local_input(&ifc, &neigh, buf, len, buf_bytes, out_len, &st, 1000);
}

static uint64_t drop_counter(const struct net_local_stats *s, const char *name)
{
    for (size_t i = 0; i < net_drop_counter_count; i++) {
        if (strcmp(net_drop_counters[i].name, name) == 0) {
            uint64_t v;
            memcpy(&v, (const uint8_t *)&s->drop + net_drop_counters[i].offset, sizeof(v));
            return v;
        }
    }
    fail_msg("no drop counter named %s", name);
    return 0;
}

/* Exactly one frame was seen and it ended as drop `name`: that counter is 1, all others 0. */
static void assert_only_drop(const char *name)
{
    for (size_t i = 0; i < net_drop_counter_count; i++) {
        uint64_t v = drop_counter(&st, net_drop_counters[i].name);
        if (strcmp(net_drop_counters[i].name, name) == 0) {
            assert_int_equal(v, 1);
        } else if (v != 0) {
            fail_msg("expected only %s, but %s = %llu", name, net_drop_counters[i].name,
                     (unsigned long long)v);
        }
    }
    assert_int_equal(net_local_total(&st), 1);
}

/* Feed the frame now in buf, expect drop `name` and an untouched frame. */
static void expect_drop(uint16_t len, uint16_t buf_bytes, const char *name)
{
    uint8_t before[BUF_BYTES];
    memcpy(before, buf, sizeof(buf));
    uint16_t out_len = 0xdead;
    memset(&st, 0, sizeof(st));
    assert_int_equal(feed(len, buf_bytes, &out_len), NET_DROP);
    assert_only_drop(name);
    assert_int_equal(out_len, 0xdead);
    assert_memory_equal(buf, before, sizeof(buf));
}

/* --- checksum helpers ------------------------------------------------------------------------- */

static void test_csum_rfc1071_example(void **state)
{
    (void)state;
    /* RFC 1071 section 3, "Numerical Examples": the sum of these bytes is ddf2. */
    static const uint8_t b[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
    assert_int_equal(inet_checksum(b, sizeof(b)), (uint16_t)~0xddf2);
    assert_int_equal(inet_csum_add(0, b, 8) % 0xffff, 0xddf2);
    /* chaining: even-length pieces give the same sum; an odd tail is padded on the right */
    assert_int_equal(inet_csum_fold(inet_csum_add(inet_csum_add(0, b, 2), b + 2, 6)),
                     inet_checksum(b, 8));
    assert_int_equal(inet_checksum(b, 7), ref_csum(b, 7));
    assert_int_equal(inet_checksum(b, 0), 0xffff);
}

static void test_csum_ipv4_header(void **state)
{
    (void)state;
    /* 192.168.0.1 -> 192.168.0.199, UDP, total length 0x73: checksum 0xb861 */
    uint8_t h[20] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                      0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };
    assert_int_equal(inet_checksum(h, 20), 0xb861);
    inet_store_be16(h + 10, 0xb861);
    assert_int_equal(inet_checksum(h, 20), 0); /* verification: 0 over the whole header */
}

static void test_csum_matches_reference(void **state)
{
    (void)state;
    uint8_t b[1501];
    uint32_t x = 1;
    for (size_t i = 0; i < sizeof(b); i++) {
        x = x * 1664525u + 1013904223u;
        b[i] = (uint8_t)(x >> 24);
    }
    for (size_t len = 0; len <= sizeof(b); len += 37) {
        assert_int_equal(inet_checksum(b, len), ref_csum(b, len));
    }
    memset(b, 0xff, sizeof(b));
    assert_int_equal(inet_checksum(b, sizeof(b) - 1), ref_csum(b, sizeof(b) - 1));
}

/* inet_csum_native (lwIP's LWIP_CHKSUM) at every alignment and length up to 600 bytes, plus a
 * jumbo frame's worth and all-ones data (carries in every 64-bit add): its bytes swapped, it is
 * the reference's uncomplemented big-endian sum. */
static void test_csum_native_every_alignment(void **state)
{
    (void)state;
    static uint8_t b[9100];
    uint32_t x = 7;
    for (size_t i = 0; i < sizeof(b); i++) {
        x = x * 1664525u + 1013904223u;
        b[i] = (uint8_t)(x >> 24);
    }
    for (int pass = 0; pass < 2; pass++) {
        for (size_t off = 0; off < 8; off++) {
            for (size_t len = 0; len <= 600; len++) {
                uint16_t want = (uint16_t)~ref_csum(b + off, len);
                assert_int_equal(inet_csum_native(b + off, len), __builtin_bswap16(want));
            }
            size_t big = sizeof(b) - 8 - off;
            assert_int_equal(inet_csum_native(b + off, big),
                             __builtin_bswap16((uint16_t)~ref_csum(b + off, big)));
        }
        memset(b, 0xff, sizeof(b));
    }
    memset(b, 0, sizeof(b));
    assert_int_equal(inet_csum_native(b, 1500), 0); /* lwIP's convention: zeros sum to 0 */
}

static void test_csum_incremental(void **state)
{
    (void)state;
    /* RFC 1624 section 4 example: HC 0xdd2f, m 0x5555 -> m' 0x3285 gives HC' 0x0000 */
    assert_int_equal(inet_csum_update16(0xdd2f, 0x5555, 0x3285), 0x0000);

    /* against recomputation, for random edits of a random 40-byte header-like block */
    uint32_t x = 7;
    for (int n = 0; n < 1000; n++) {
        uint8_t b[40];
        for (int i = 0; i < 40; i++) {
            x = x * 1664525u + 1013904223u;
            b[i] = (uint8_t)(x >> 24);
        }
        inet_store_be16(b + 10, 0);
        inet_store_be16(b + 10, ref_csum(b, 40));
        unsigned w = (x >> 8) % 20;
        if (w == 5) {
            w = 6; /* not the checksum word itself */
        }
        uint16_t old = inet_load_be16(b + 2 * w);
        uint16_t new = (uint16_t)(x >> 3);
        inet_store_be16(b + 2 * w, new);
        inet_store_be16(b + 10, inet_csum_update16(inet_load_be16(b + 10), old, new));
        assert_int_equal(ref_csum(b, 40), 0);
        uint32_t old32 = inet_load_be32(b + 12);
        inet_store_be32(b + 12, x);
        inet_store_be16(b + 10, inet_csum_update32(inet_load_be16(b + 10), old32, x));
        assert_int_equal(ref_csum(b, 40), 0);
    }
}

static void test_byte_order_helpers(void **state)
{
    (void)state;
    uint8_t b[7] = { 0 };
    inet_store_be32(b + 1, 0x0a000001); /* unaligned on purpose */
    assert_int_equal(b[1], 10);
    assert_int_equal(b[4], 1);
    assert_int_equal(inet_load_be32(b + 1), 0x0a000001);
    inet_store_be16(b + 5, 0x0806);
    assert_int_equal(inet_load_be16(b + 5), 0x0806);
    assert_int_equal(inet_htons(0x0800), 0x0008);
    assert_int_equal(inet_ntohl(inet_htonl(0x01020304)), 0x01020304);
    assert_true(inet_ipv4_is_martian(IP4(127, 0, 0, 1)));
    assert_true(inet_ipv4_is_martian(IP4(0, 1, 2, 3)));
    assert_true(inet_ipv4_is_martian(0xffffffffu));
    assert_false(inet_ipv4_is_martian(IP4(10, 0, 0, 1)));
    assert_true(inet_ipv4_is_multicast(IP4(224, 0, 0, 251)));
}

/* --- counters --------------------------------------------------------------------------------- */

static void test_counter_table(void **state)
{
    (void)state;
    assert_int_equal(net_drop_counter_count * sizeof(uint64_t), sizeof(struct net_drop_stats));
    for (size_t i = 0; i < net_drop_counter_count; i++) {
        assert_int_equal(net_drop_counters[i].offset, i * sizeof(uint64_t));
        assert_true(strlen(net_drop_counters[i].why) > 0);
        for (size_t j = 0; j < i; j++) {
            assert_string_not_equal(net_drop_counters[i].name, net_drop_counters[j].name);
        }
    }
    drop_counter(&st, "ip_bad_checksum"); /* names from the brief exist */
    drop_counter(&st, "arp_malformed");
    drop_counter(&st, "icmp_unsupported_type");
}

/* --- ARP -------------------------------------------------------------------------------------- */

static void test_arp_request_answered(void **state)
{
    (void)state;
    uint16_t len = arp_request_for(buf, OUR_IP);
    memset(buf + len, 0xaa, 60 - len); /* the sender's padding: must not leak into the reply */
    uint16_t out_len = 0;
    assert_int_equal(feed(60, BUF_BYTES, &out_len), NET_REPLY);
    assert_int_equal(out_len, 60);

    static const uint8_t want[60] = {
        0x02, 0x00, 0x00, 0x00, 0x00, 0x02,  /* to the requester */
        0x02, 0x00, 0x00, 0x00, 0x00, 0x01,  /* from us */
        0x08, 0x06,                          /* ARP */
        0x00, 0x01, 0x08, 0x00, 0x06, 0x04, /* Ethernet, IPv4, 6, 4 */
        0x00, 0x02,                          /* reply */
        0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 10, 0, 0, 1, /* sender: us */
        0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 10, 0, 0, 2, /* target: the requester */
        /* 18 bytes of zero padding */
    };
    assert_memory_equal(buf, want, 60);
    assert_int_equal(st.arp_requests_answered, 1);
    assert_int_equal(net_local_total(&st), 1);

    uint8_t mac[6];
    assert_true(neigh_lookup(&neigh, PEER_IP, mac)); /* the requester was learned */
    assert_memory_equal(mac, peer_mac, 6);
}

static void test_arp_request_unpadded_and_unicast(void **state)
{
    (void)state;
    /* 42 bytes as a virtual NIC delivers it, sent unicast (RFC 1122 2.3.2.1 polling) */
    uint16_t len = arp_request_for(buf, OUR_IP);
    memcpy(buf, our_mac, 6);
    memset(buf + len, 0x55, BUF_BYTES - len);
    uint16_t out_len = 0;
    assert_int_equal(feed(len, BUF_BYTES, &out_len), NET_REPLY);
    assert_int_equal(out_len, 60);
    for (int i = 42; i < 60; i++) {
        assert_int_equal(buf[i], 0);
    }
    assert_memory_equal(buf, peer_mac, 6);
    assert_int_equal(inet_load_be16(buf + 20), INET_ARP_OP_REPLY);
}

static void test_arp_probe_answered_not_learned(void **state)
{
    (void)state;
    static const uint8_t zero[6] = { 0 };
    uint16_t len = build_arp(buf, bcast_mac, INET_ARP_OP_REQUEST, peer_mac, 0, zero, OUR_IP);
    uint16_t out_len = 0;
    assert_int_equal(feed(len, BUF_BYTES, &out_len), NET_REPLY);
    assert_int_equal(inet_load_be32(buf + 38), 0); /* target protocol address: the prober's 0 */
    assert_memory_equal(buf + 32, peer_mac, 6);
    assert_int_equal(neigh.stats.inserted, 0);
}

static void test_arp_for_other_ip_not_answered(void **state)
{
    (void)state;
    uint16_t len = arp_request_for(buf, IP4(10, 0, 0, 77));
    expect_drop(len, BUF_BYTES, "arp_not_for_us");
    uint8_t mac[6];
    assert_false(neigh_lookup(&neigh, PEER_IP, mac)); /* unknown senders are not learned */

    /* ... but a known sender is refreshed (RFC 826 merge) */
    static const uint8_t new_mac[6] = { 0x02, 0, 0, 0, 0, 0x99 };
    assert_int_equal(neigh_update(&neigh, PEER_IP, peer_mac, 1), 0);
    static const uint8_t zero[6] = { 0 };
    len = build_arp(buf, bcast_mac, 1, new_mac, PEER_IP, zero, IP4(10, 0, 0, 77));
    expect_drop(len, BUF_BYTES, "arp_not_for_us");
    assert_true(neigh_lookup(&neigh, PEER_IP, mac));
    assert_memory_equal(mac, new_mac, 6);
}

static void test_arp_reply_learned(void **state)
{
    (void)state;
    uint16_t len = build_arp(buf, our_mac, INET_ARP_OP_REPLY, peer_mac, PEER_IP, our_mac, OUR_IP);
    uint16_t out_len = 0xdead;
    assert_int_equal(feed(len, BUF_BYTES, &out_len), NET_CONSUMED);
    assert_int_equal(out_len, 0xdead);
    assert_int_equal(st.arp_replies_learned, 1);
    assert_int_equal(net_local_total(&st), 1);
    uint8_t mac[6];
    assert_true(neigh_lookup(&neigh, PEER_IP, mac));
    assert_memory_equal(mac, peer_mac, 6);
}

static void test_arp_gratuitous_learned(void **state)
{
    (void)state;
    static const uint8_t zero[6] = { 0 };
    uint32_t ip = IP4(10, 0, 0, 5);
    uint16_t len = build_arp(buf, bcast_mac, INET_ARP_OP_REQUEST, peer_mac, ip, zero, ip);
    assert_int_equal(feed(len, BUF_BYTES, NULL), NET_CONSUMED);
    assert_int_equal(st.arp_gratuitous_learned, 1);
    uint8_t mac[6];
    assert_true(neigh_lookup(&neigh, ip, mac));

    /* an announcement from off our subnet teaches nothing */
    len = build_arp(buf, bcast_mac, INET_ARP_OP_REPLY, peer_mac, IP4(10, 9, 0, 5), zero,
                    IP4(10, 9, 0, 5));
    expect_drop(len, BUF_BYTES, "arp_sender_ip_unusable");
}

static void test_arp_malformed(void **state)
{
    (void)state;
    uint16_t len = arp_request_for(buf, OUR_IP);
    expect_drop(41, BUF_BYTES, "arp_truncated");
    expect_drop(14, BUF_BYTES, "arp_truncated");

    buf[14 + 4] = 8; /* hlen */
    expect_drop(len, BUF_BYTES, "arp_malformed");
    arp_request_for(buf, OUR_IP);
    buf[14 + 5] = 16; /* plen */
    expect_drop(len, BUF_BYTES, "arp_malformed");
    arp_request_for(buf, OUR_IP);
    inet_store_be16(buf + 14, 6); /* htype: IEEE 802 */
    expect_drop(len, BUF_BYTES, "arp_malformed");
    arp_request_for(buf, OUR_IP);
    inet_store_be16(buf + 16, 0x86dd); /* ptype */
    expect_drop(len, BUF_BYTES, "arp_malformed");

    arp_request_for(buf, OUR_IP);
    inet_store_be16(buf + 20, 3); /* RARP request */
    expect_drop(len, BUF_BYTES, "arp_unsupported_op");
    inet_store_be16(buf + 20, 0);
    expect_drop(len, BUF_BYTES, "arp_unsupported_op");

    arp_request_for(buf, OUR_IP);
    buf[14 + 8] = 0x01; /* sender MAC multicast (Ethernet source left valid) */
    expect_drop(len, BUF_BYTES, "arp_bad_sender_mac");
    arp_request_for(buf, OUR_IP);
    memset(buf + 14 + 8, 0, 6);
    expect_drop(len, BUF_BYTES, "arp_bad_sender_mac");

    arp_request_for(buf, OUR_IP);
    inet_store_be32(buf + 28, OUR_IP); /* someone claims our address */
    expect_drop(len, BUF_BYTES, "arp_sender_ip_is_ours");

    build_arp(buf, our_mac, INET_ARP_OP_REPLY, peer_mac, IP4(192, 168, 9, 9), our_mac, OUR_IP);
    expect_drop(len, BUF_BYTES, "arp_sender_ip_unusable");
    assert_int_equal(neigh.stats.inserted, 0); /* nothing malformed was learned */
}

/* On a core that does not own the table (neigh NULL): answer, never learn, count the rest. */
static void test_arp_without_table(void **state)
{
    (void)state;
    uint16_t len = arp_request_for(buf, OUR_IP);
    uint16_t out_len = 0;
    assert_int_equal(net_local_input(&ifc, NULL, buf, len, BUF_BYTES, &out_len, &st, 0),
                     NET_REPLY);
    assert_int_equal(out_len, 60);
    assert_int_equal(st.arp_requests_answered, 1);

    static const uint8_t zero[6] = { 0 };
    static const struct {
        uint16_t op;
        uint32_t spa, tpa;
        const char *counter;
    } cases[] = {
        { INET_ARP_OP_REPLY, PEER_IP, OUR_IP, "arp_not_writer_core" },
        { INET_ARP_OP_REQUEST, IP4(10, 0, 0, 5), IP4(10, 0, 0, 5), "arp_not_writer_core" },
        { INET_ARP_OP_REQUEST, PEER_IP, IP4(10, 0, 0, 9), "arp_not_for_us" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        len = build_arp(buf, bcast_mac, cases[i].op, peer_mac, cases[i].spa, zero, cases[i].tpa);
        memset(&st, 0, sizeof(st));
        assert_int_equal(net_local_input(&ifc, NULL, buf, len, BUF_BYTES, &out_len, &st, 0),
                         NET_DROP);
        assert_only_drop(cases[i].counter);
    }
}

static void test_arp_reply_needs_room(void **state)
{
    (void)state;
    uint16_t len = arp_request_for(buf, OUR_IP);
    expect_drop(len, 59, "reply_no_room"); /* the padded reply is 60 bytes */
}

/* --- ICMP echo -------------------------------------------------------------------------------- */

/* Check an echo reply to a request that had data_len bytes of data: addresses, fields, both
 * checksums by independent recomputation, and the data byte for byte. */
static void check_echo_reply(uint16_t out_len, unsigned data_len)
{
    unsigned ip_len = 20 + 8 + data_len;
    unsigned want_len = 14 + ip_len < 60 ? 60 : 14 + ip_len;
    assert_int_equal(out_len, want_len);
    assert_memory_equal(buf, peer_mac, 6);
    assert_memory_equal(buf + 6, our_mac, 6);
    assert_int_equal(inet_load_be16(buf + 12), INET_ETHERTYPE_IPV4);

    const uint8_t *ip = buf + 14;
    assert_int_equal(ip[0], 0x45);
    assert_int_equal(ip[1], 0xb8); /* DSCP kept, ECN cleared */
    assert_int_equal(inet_load_be16(ip + 2), ip_len);
    assert_int_equal(inet_load_be16(ip + 6), INET_IPV4_FLAG_DF);
    assert_int_equal(ip[8], 64);
    assert_int_equal(ip[9], INET_PROTO_ICMP);
    assert_int_equal(inet_load_be32(ip + 12), OUR_IP);
    assert_int_equal(inet_load_be32(ip + 16), PEER_IP);
    assert_int_equal(ref_csum(ip, 20), 0);

    const uint8_t *icmp = ip + 20;
    assert_int_equal(icmp[0], INET_ICMP_ECHO_REPLY);
    assert_int_equal(icmp[1], 0);
    assert_int_equal(inet_load_be16(icmp + 4), 0xbeef);
    assert_int_equal(inet_load_be16(icmp + 6), 0x0007);
    assert_int_equal(ref_csum(icmp, 8 + data_len), 0);
    for (unsigned i = 0; i < data_len; i++) {
        assert_int_equal(icmp[8 + i], (uint8_t)(0x30 + i * 7));
    }
    for (unsigned i = 14 + ip_len; i < want_len; i++) {
        assert_int_equal(buf[i], 0);
    }
    assert_int_equal(st.icmp_echo_answered, 1);
    assert_int_equal(net_local_total(&st), 1);
}

static void test_echo_small(void **state)
{
    (void)state;
    uint16_t len = build_echo(buf, 0, 56); /* ping's default */
    uint16_t out_len = 0;
    assert_int_equal(feed(len, BUF_BYTES, &out_len), NET_REPLY);
    check_echo_reply(out_len, 56);
}

static void test_echo_1472(void **state)
{
    (void)state;
    uint16_t len = build_echo(buf, 0, 1472); /* ping -s 1472: a full 1500-byte datagram */
    assert_int_equal(len, 1514);
    uint16_t out_len = 0;
    assert_int_equal(feed(len, 1514, &out_len), NET_REPLY); /* buffer exactly the frame */
    check_echo_reply(out_len, 1472);
}

static void test_echo_with_options(void **state)
{
    (void)state;
    uint16_t len = build_echo(buf, 40, 100); /* IHL 15 */
    uint16_t out_len = 0;
    assert_int_equal(feed(len, BUF_BYTES, &out_len), NET_REPLY);
    check_echo_reply(out_len, 100); /* options gone, data moved up intact */
}

/* A frame longer than its datagram: padding is neither checksummed nor echoed. */
static void test_echo_padded_frame(void **state)
{
    (void)state;
    uint16_t len = build_echo(buf, 0, 0); /* 42 bytes */
    memset(buf + len, 0xee, 60 - len);
    uint16_t out_len = 0;
    assert_int_equal(feed(60, BUF_BYTES, &out_len), NET_REPLY);
    check_echo_reply(out_len, 0);

    setup(NULL);
    len = build_echo(buf, 0, 10);
    memset(buf + len, 0x77, 200);
    assert_int_equal(feed((uint16_t)(len + 200), BUF_BYTES, &out_len), NET_REPLY);
    check_echo_reply(out_len, 10);
}

static void test_echo_malformed(void **state)
{
    (void)state;
    uint16_t len = build_echo(buf, 0, 16);
    buf[14 + 20 + 8] ^= 0x01; /* data corrupted: ICMP checksum fails */
    expect_drop(len, BUF_BYTES, "icmp_bad_checksum");

    len = build_ipv4(buf, our_mac, PEER_IP, OUR_IP, INET_PROTO_ICMP, 0, 4);
    expect_drop(len, BUF_BYTES, "icmp_truncated");
    len = build_ipv4(buf, our_mac, PEER_IP, OUR_IP, INET_PROTO_ICMP, 0, 0);
    expect_drop(len, BUF_BYTES, "icmp_truncated");

    len = build_echo(buf, 0, 16);
    buf[14 + 20] = INET_ICMP_ECHO_REPLY; /* not a request */
    fix_icmp_csum(buf);
    expect_drop(len, BUF_BYTES, "icmp_unsupported_type");
    buf[14 + 20] = 13; /* timestamp */
    fix_icmp_csum(buf);
    expect_drop(len, BUF_BYTES, "icmp_unsupported_type");

    len = build_echo(buf, 0, 16);
    buf[14 + 21] = 1; /* echo code must be 0 */
    fix_icmp_csum(buf);
    expect_drop(len, BUF_BYTES, "icmp_malformed");

    len = build_echo(buf, 0, 0);
    expect_drop(len, 59, "reply_no_room");
}

/* --- Ethernet and IPv4 ------------------------------------------------------------------------ */

static void test_runts_and_ethernet(void **state)
{
    (void)state;
    uint16_t len = build_echo(buf, 0, 8);
    expect_drop(0, BUF_BYTES, "eth_runt");
    expect_drop(1, BUF_BYTES, "eth_runt");
    expect_drop(13, BUF_BYTES, "eth_runt");
    expect_drop(14, BUF_BYTES, "ip_truncated");
    expect_drop(33, BUF_BYTES, "ip_truncated");
    expect_drop(len, (uint16_t)(len - 1), "frame_exceeds_buffer");

    static const uint8_t other[6] = { 0x02, 0, 0, 0, 0, 0x42 };
    static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb };
    memcpy(buf, other, 6);
    expect_drop(len, BUF_BYTES, "eth_dst_not_us");
    memcpy(buf, mcast, 6);
    expect_drop(len, BUF_BYTES, "eth_dst_multicast");
    memcpy(buf, our_mac, 6);
    memcpy(buf + 6, mcast, 6);
    expect_drop(len, BUF_BYTES, "eth_src_group");
    memcpy(buf + 6, peer_mac, 6);
    inet_store_be16(buf + 12, 0x86dd);
    expect_drop(len, BUF_BYTES, "eth_unsupported_type");
    inet_store_be16(buf + 12, 0x8100);
    expect_drop(len, BUF_BYTES, "eth_unsupported_type");
    inet_store_be16(buf + 12, 0x0026); /* an 802.3 length field */
    expect_drop(len, BUF_BYTES, "eth_unsupported_type");
}

static void test_ipv4_header_checks(void **state)
{
    (void)state;
    uint16_t len = build_echo(buf, 0, 8);

    buf[14] = 0x65; /* version 6 */
    fix_ip_csum(buf);
    expect_drop(len, BUF_BYTES, "ip_bad_version");

    build_echo(buf, 0, 8);
    buf[14] = 0x44; /* IHL 4 */
    expect_drop(len, BUF_BYTES, "ip_bad_ihl");
    buf[14] = 0x40;
    expect_drop(len, BUF_BYTES, "ip_bad_ihl");

    len = build_ipv4(buf, our_mac, PEER_IP, OUR_IP, INET_PROTO_ICMP, 0, 20); /* total 40 */
    buf[14] = 0x4f; /* IHL 15 = 60 bytes > total length 40 */
    expect_drop(len, BUF_BYTES, "ip_bad_ihl");

    len = build_echo(buf, 0, 8);
    inet_store_be16(buf + 16, (uint16_t)(len - 14 + 1)); /* one byte past the frame */
    fix_ip_csum(buf);
    expect_drop(len, BUF_BYTES, "ip_bad_total_length");
    inet_store_be16(buf + 16, 0xffff);
    fix_ip_csum(buf);
    expect_drop(len, BUF_BYTES, "ip_bad_total_length");

    len = build_echo(buf, 0, 8);
    buf[14 + 10] ^= 0x40;
    expect_drop(len, BUF_BYTES, "ip_bad_checksum");

    len = build_echo(buf, 0, 8);
    inet_store_be16(buf + 20, INET_IPV4_FLAG_MF);
    fix_ip_csum(buf);
    expect_drop(len, BUF_BYTES, "ip_fragment");
    inet_store_be16(buf + 20, 185); /* last fragment: offset only */
    fix_ip_csum(buf);
    expect_drop(len, BUF_BYTES, "ip_fragment");
    inet_store_be16(buf + 20, INET_IPV4_FLAG_DF); /* DF alone is fine */
    fix_ip_csum(buf);
    uint16_t out_len;
    memset(&st, 0, sizeof(st));
    assert_int_equal(feed(len, BUF_BYTES, &out_len), NET_REPLY);
}

static void test_ipv4_addresses(void **state)
{
    (void)state;
    static const struct {
        uint32_t src, dst;
        const char *counter;
    } cases[] = {
        { IP4(127, 0, 0, 1), OUR_IP, "ip_src_martian" },
        { IP4(0, 0, 0, 0), OUR_IP, "ip_src_martian" },
        { IP4(224, 0, 0, 5), OUR_IP, "ip_src_martian" },
        { IP4(255, 255, 255, 255), OUR_IP, "ip_src_martian" },
        { IP4(10, 0, 0, 255), OUR_IP, "ip_src_martian" },
        { OUR_IP, OUR_IP, "ip_src_is_ours" },
        { PEER_IP, IP4(255, 255, 255, 255), "ip_dst_broadcast" },
        { PEER_IP, IP4(10, 0, 0, 255), "ip_dst_broadcast" },
        { PEER_IP, IP4(224, 0, 0, 1), "ip_dst_multicast" },
        { PEER_IP, IP4(127, 0, 0, 1), "ip_dst_martian" },
        { PEER_IP, IP4(0, 0, 0, 0), "ip_dst_martian" },
        { PEER_IP, IP4(240, 0, 0, 1), "ip_dst_martian" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint16_t len = build_ipv4(buf, our_mac, cases[i].src, cases[i].dst, INET_PROTO_ICMP, 0, 8);
        expect_drop(len, BUF_BYTES, cases[i].counter);
    }

    /* a unicast datagram in an Ethernet broadcast: neither answered nor forwarded */
    uint16_t len = build_echo(buf, 0, 8);
    memcpy(buf, bcast_mac, 6);
    expect_drop(len, BUF_BYTES, "ip_l2_broadcast");
    len = build_echo_to(buf, IP4(192, 168, 1, 1), 0, 8);
    memcpy(buf, bcast_mac, 6);
    expect_drop(len, BUF_BYTES, "ip_l2_broadcast");

    len = build_ipv4(buf, our_mac, PEER_IP, OUR_IP, INET_PROTO_UDP, 0, 30);
    expect_drop(len, BUF_BYTES, "ip_proto_unsupported");
    len = build_ipv4(buf, our_mac, PEER_IP, OUR_IP, INET_PROTO_TCP, 0, 30);
    expect_drop(len, BUF_BYTES, "ip_proto_unsupported");
}

static void test_ipv4_pass(void **state)
{
    (void)state;
    uint16_t len = build_echo_to(buf, IP4(192, 168, 1, 1), 0, 8);
    uint8_t before[BUF_BYTES];
    memcpy(before, buf, sizeof(buf));
    uint16_t out_len = 0xdead;
    assert_int_equal(feed(len, BUF_BYTES, &out_len), NET_PASS);
    assert_int_equal(st.ip_passed, 1);
    assert_int_equal(net_local_total(&st), 1);
    assert_int_equal(out_len, 0xdead);
    assert_memory_equal(buf, before, sizeof(buf));
}

/* With the sink on, TCP, UDP and fragments to us are handed over unchanged (NET_SINK); other
 * protocols and everything with the sink off keep their drop reasons. */
static void test_sink_handoff(void **state)
{
    (void)state;
    struct net_iface sink_ifc = ifc;
    sink_ifc.sink = true;
    static const struct {
        uint8_t proto;
        uint16_t frag;
        bool sink_on;
        enum net_verdict want;
        const char *drop;
    } cases[] = {
        { INET_PROTO_TCP, 0, true, NET_SINK, NULL },
        { INET_PROTO_UDP, 0, true, NET_SINK, NULL },
        { INET_PROTO_ICMP, 0x2000, true, NET_SINK, NULL }, /* first fragment of a big ping */
        { INET_PROTO_UDP, 185, true, NET_SINK, NULL },     /* last fragment */
        { 47 /* GRE */, 0, true, NET_DROP, "ip_proto_unsupported" },
        { INET_PROTO_TCP, 0, false, NET_DROP, "ip_proto_unsupported" },
        { INET_PROTO_UDP, 0x2000, false, NET_DROP, "ip_fragment" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        memset(&st, 0, sizeof(st));
        uint16_t len = build_ipv4(buf, our_mac, PEER_IP, OUR_IP, cases[i].proto, 0, 40);
        inet_store_be16(buf + 20, cases[i].frag);
        fix_ip_csum(buf);
        uint8_t before[BUF_BYTES];
        memcpy(before, buf, sizeof(buf));
        uint16_t out_len = 0;
        enum net_verdict v = net_local_input(cases[i].sink_on ? &sink_ifc : &ifc, &neigh, buf,
                                             len, BUF_BYTES, &out_len, &st, 1000);
        assert_int_equal(v, cases[i].want);
        assert_int_equal(net_local_total(&st), 1);
        assert_memory_equal(buf, before, sizeof(buf));
        if (cases[i].drop) {
            assert_only_drop(cases[i].drop);
        } else {
            assert_int_equal(st.ip_to_sink, 1);
        }
    }
}

/* Another interface's address (also_ours, router.answer_any_address): an echo to it is
 * answered from it, a TCP datagram to it goes to the sink, a datagram from it is a spoof; ARP
 * for it is not answered (no proxy ARP), and without also_ours it is passed on like any host. */
static void test_other_interface_address(void **state)
{
    (void)state;
    const uint32_t other = IP4(192, 0, 2, 1);
    struct net_iface any = ifc;
    any.sink = true;
    any.n_also_ours = 1;
    any.also_ours[0] = other;
    uint16_t out_len = 0;

    uint16_t len = build_echo_to(buf, other, 0, 56);
    assert_int_equal(net_local_input(&any, &neigh, buf, len, BUF_BYTES, &out_len, &st, 1000),
                     NET_REPLY);
    assert_int_equal(st.icmp_echo_answered, 1);
    assert_int_equal(inet_load_be32(buf + 14 + 12), other); /* RFC 1122 3.2.2.6 */
    assert_int_equal(inet_load_be32(buf + 14 + 16), PEER_IP);
    assert_int_equal(ref_csum(buf + 14, 20), 0);

    memset(&st, 0, sizeof(st));
    len = build_ipv4(buf, our_mac, PEER_IP, other, INET_PROTO_TCP, 0, 40);
    assert_int_equal(net_local_input(&any, &neigh, buf, len, BUF_BYTES, &out_len, &st, 1000),
                     NET_SINK);
    assert_int_equal(st.ip_to_sink, 1);

    memset(&st, 0, sizeof(st));
    len = build_ipv4(buf, our_mac, other, PEER_IP, INET_PROTO_UDP, 0, 40);
    assert_int_equal(net_local_input(&any, &neigh, buf, len, BUF_BYTES, &out_len, &st, 1000),
                     NET_DROP);
    assert_only_drop("ip_src_is_ours");

    memset(&st, 0, sizeof(st));
    len = arp_request_for(buf, other);
    assert_int_equal(net_local_input(&any, &neigh, buf, len, BUF_BYTES, &out_len, &st, 1000),
                     NET_DROP);
    assert_only_drop("arp_not_for_us");

    memset(&st, 0, sizeof(st));
    len = build_echo_to(buf, other, 0, 56);
    assert_int_equal(feed(len, BUF_BYTES, &out_len), NET_PASS);
    assert_int_equal(st.ip_passed, 1);

    /* An interface without an address of its own answers for no other either (found by
     * tests/fuzz/fuzz_net_local.c). */
    struct net_iface unnumbered = any;
    unnumbered.ip = 0;
    memset(&st, 0, sizeof(st));
    len = build_echo_to(buf, other, 0, 56);
    assert_int_equal(net_local_input(&unnumbered, &neigh, buf, len, BUF_BYTES, &out_len, &st,
                                     1000),
                     NET_PASS);
}

/* An interface without an address answers nothing at IP or ARP level. */
static void test_unnumbered_interface(void **state)
{
    (void)state;
    struct net_iface none = ifc;
    none.ip = 0;
    static const uint8_t zero[6] = { 0 };
    uint16_t len = build_arp(buf, bcast_mac, INET_ARP_OP_REQUEST, peer_mac, PEER_IP, zero, 0);
    assert_int_equal(net_local_input(&none, &neigh, buf, len, BUF_BYTES, NULL, &st, 0), NET_DROP);
    assert_only_drop("arp_not_for_us");
}

/* --- mutation loop ---------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rng(void)
{
    /* xorshift64*: deterministic, good enough to pick mutations */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

static uint16_t seed_frame(uint8_t *f, unsigned which)
{
    static const uint8_t zero[6] = { 0 };
    switch (which % 9) {
    case 0: return arp_request_for(f, OUR_IP);
    case 1: return build_arp(f, our_mac, INET_ARP_OP_REPLY, peer_mac, PEER_IP, our_mac, OUR_IP);
    case 2: return build_arp(f, bcast_mac, 1, peer_mac, IP4(10, 0, 0, 9), zero, IP4(10, 0, 0, 9));
    case 3: return build_echo(f, 0, rng() % 200);
    case 4: return build_echo(f, 4 * (1 + rng() % 10), rng() % 64);
    case 5: return build_echo(f, 0, 1464);
    case 6: return build_ipv4(f, our_mac, PEER_IP, OUR_IP, INET_PROTO_UDP, 0, 40);
    case 7: return build_echo_to(f, IP4(8, 8, 8, 8), 0, 32);
    default: return arp_request_for(f, IP4(10, 0, 0, 50));
    }
}

/* Damage a frame: bit flips (mostly in the headers), byte stores, truncation, extension, or
 * plain noise; sometimes repair checksums so the damage reaches deeper layers. */
static uint16_t mutate(uint8_t *f, uint16_t len)
{
    switch (rng() % 6) {
    case 0:
    case 1:
        for (unsigned k = 1 + rng() % 4; k > 0; k--) {
            unsigned span = (rng() & 1) && len > 64 ? len : (len < 64 ? len : 64);
            if (span > 0) {
                unsigned at = rng() % span;
                f[at] ^= (uint8_t)(1u << (rng() % 8));
            }
        }
        break;
    case 2:
        if (len > 0) {
            f[rng() % (len < 60 ? len : 60)] = (uint8_t)rng();
        }
        break;
    case 3:
        len = (uint16_t)(rng() % (len + 1u));
        break;
    case 4: {
        unsigned extra = rng() % 100;
        for (unsigned i = 0; i < extra && len < 1600; i++) {
            f[len++] = (uint8_t)rng();
        }
        break;
    }
    default:
        len = (uint16_t)(rng() % 130);
        for (unsigned i = 0; i < len; i++) {
            f[i] = (uint8_t)rng();
        }
        break;
    }
    if (len >= 34 && (rng() & 1)) {
        unsigned hlen = (f[14] & 0x0f) * 4u;
        unsigned total = inet_load_be16(f + 16);
        if (hlen >= 20 && 14u + hlen <= len) {
            fix_ip_csum(f);
            if (total >= hlen + 4 && 14u + total <= len && (rng() & 1)) {
                fix_icmp_csum(f);
            }
        }
    }
    return len;
}

/* A reply must itself be a well-formed frame. */
static void check_reply(const uint8_t *f, uint16_t out_len, uint16_t buf_bytes)
{
    assert_true(out_len >= 60 && out_len <= buf_bytes);
    assert_false(inet_eth_is_group(f));
    assert_memory_equal(f + 6, our_mac, 6);
    if (inet_load_be16(f + 12) == INET_ETHERTYPE_ARP) {
        assert_int_equal(inet_load_be16(f + 20), INET_ARP_OP_REPLY);
        return;
    }
    assert_int_equal(inet_load_be16(f + 12), INET_ETHERTYPE_IPV4);
    unsigned total = inet_load_be16(f + 16);
    assert_true(14 + total <= out_len);
    assert_int_equal(ref_csum(f + 14, 20), 0);
    assert_int_equal(ref_csum(f + 34, total - 20), 0);
}

struct fuzz_side {
    struct net_local_stats st;
    struct neigh_table neigh;
    uint64_t verdicts[4];
};

/* Feed one frame to both sides, in heap buffers of exactly the stated size (ASan catches any
 * overrun) holding different junk after the frame: the outcome must not depend on that junk. */
static void fuzz_one(struct fuzz_side side[2], const uint8_t *frame, uint16_t len, unsigned n)
{
    /* buffers from exactly the frame up to 2 KiB, now and then one byte too small */
    uint16_t buf_bytes = (uint16_t)(len + rng() % (BUF_BYTES - len + 1u));
    if (rng() % 50 == 0 && len > 0) {
        buf_bytes = (uint16_t)(len - 1);
    }
    size_t alloc = buf_bytes > len ? buf_bytes : len;
    uint8_t *b[2];
    enum net_verdict v[2];
    uint16_t out_len[2] = { 0, 0 };
    for (int s = 0; s < 2; s++) {
        b[s] = malloc(alloc ? alloc : 1);
        assert_non_null(b[s]);
        memcpy(b[s], frame, len);
        memset(b[s] + len, s ? 0xff : 0x00, alloc - len);
        /* every eighth frame as if on a core without the neighbour table */
        struct neigh_table *nt = n % 8 == 7 ? NULL : &side[s].neigh;
        v[s] = net_local_input(&ifc, nt, b[s], len, buf_bytes, &out_len[s], &side[s].st, n);
        assert_true(v[s] >= NET_REPLY && v[s] <= NET_PASS);
        side[s].verdicts[v[s]]++;
        assert_int_equal(net_local_total(&side[s].st), n + 1); /* one counter per frame */
    }
    assert_int_equal(v[0], v[1]);
    if (v[0] == NET_REPLY) {
        assert_int_equal(out_len[0], out_len[1]);
        assert_memory_equal(b[0], b[1], out_len[0]);
        check_reply(b[0], out_len[0], buf_bytes);
    } else {
        assert_memory_equal(b[0], frame, len); /* frames not answered stay untouched */
    }
    free(b[0]);
    free(b[1]);
}

static void test_mutation_loop(void **state)
{
    (void)state;
    enum { FRAMES = 6000 };
    static struct fuzz_side side[2];
    static uint8_t frame[BUF_BYTES];
    memset(side, 0, sizeof(side));
    neigh_init(&side[0].neigh);
    neigh_init(&side[1].neigh);

    for (unsigned n = 0; n < FRAMES; n++) {
        uint16_t len = mutate(frame, seed_frame(frame, rng()));
        fuzz_one(side, frame, len, n);
    }

    /* conservation: verdicts add up to the frames fed, and match the counters */
    assert_memory_equal(&side[0].st, &side[1].st, sizeof(side[0].st));
    struct net_local_stats *s = &side[0].st;
    uint64_t *vc = side[0].verdicts;
    assert_int_equal(vc[0] + vc[1] + vc[2] + vc[3], FRAMES);
    assert_int_equal(net_local_total(s), FRAMES);
    assert_int_equal(vc[NET_REPLY], s->arp_requests_answered + s->icmp_echo_answered);
    assert_int_equal(vc[NET_CONSUMED], s->arp_replies_learned + s->arp_gratuitous_learned);
    assert_int_equal(vc[NET_PASS], s->ip_passed);
    uint64_t drops = 0;
    for (size_t i = 0; i < net_drop_counter_count; i++) {
        drops += drop_counter(s, net_drop_counters[i].name);
    }
    assert_int_equal(vc[NET_DROP], drops);
    /* the loop reached every layer */
    assert_true(s->icmp_echo_answered > 0 && s->arp_requests_answered > 0 && s->ip_passed > 0);
    assert_true(s->drop.ip_bad_checksum > 0 && s->drop.icmp_bad_checksum > 0);
    print_message("mutation loop: reply %llu consumed %llu drop %llu pass %llu\n",
                  (unsigned long long)vc[NET_REPLY], (unsigned long long)vc[NET_CONSUMED],
                  (unsigned long long)vc[NET_DROP], (unsigned long long)vc[NET_PASS]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csum_rfc1071_example),
        cmocka_unit_test(test_csum_ipv4_header),
        cmocka_unit_test(test_csum_matches_reference),
        cmocka_unit_test(test_csum_incremental),
        cmocka_unit_test(test_csum_native_every_alignment),
        cmocka_unit_test(test_byte_order_helpers),
        cmocka_unit_test_setup(test_counter_table, setup),
        cmocka_unit_test_setup(test_sink_handoff, setup),
        cmocka_unit_test_setup(test_other_interface_address, setup),
        cmocka_unit_test_setup(test_arp_request_answered, setup),
        cmocka_unit_test_setup(test_arp_request_unpadded_and_unicast, setup),
        cmocka_unit_test_setup(test_arp_probe_answered_not_learned, setup),
        cmocka_unit_test_setup(test_arp_for_other_ip_not_answered, setup),
        cmocka_unit_test_setup(test_arp_reply_learned, setup),
        cmocka_unit_test_setup(test_arp_gratuitous_learned, setup),
        cmocka_unit_test_setup(test_arp_malformed, setup),
        cmocka_unit_test_setup(test_arp_without_table, setup),
        cmocka_unit_test_setup(test_arp_reply_needs_room, setup),
        cmocka_unit_test_setup(test_echo_small, setup),
        cmocka_unit_test_setup(test_echo_1472, setup),
        cmocka_unit_test_setup(test_echo_with_options, setup),
        cmocka_unit_test_setup(test_echo_padded_frame, setup),
        cmocka_unit_test_setup(test_echo_malformed, setup),
        cmocka_unit_test_setup(test_runts_and_ethernet, setup),
        cmocka_unit_test_setup(test_ipv4_header_checks, setup),
        cmocka_unit_test_setup(test_ipv4_addresses, setup),
        cmocka_unit_test_setup(test_ipv4_pass, setup),
        cmocka_unit_test_setup(test_unnumbered_interface, setup),
        cmocka_unit_test_setup(test_mutation_loop, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
