/*
 * tests/unit/test_rss.c: the Toeplitz hash against Microsoft's published verification suite:
 * "Verifying the RSS Hash Calculation" (MicrosoftDocs/windows-driver-docs:
 * windows-driver-docs-pr/network/verifying-the-rss-hash-calculation.md), whose IPv4 table the
 * 82599 datasheet repeats in its RSS verification section.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "net/inet.h"
#include "drivers/nic/rss.h"

#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

struct rss_v4_vector {
    uint32_t dst, src;
    uint16_t dport, sport;
    uint32_t ipv4_only, ipv4_tcp;
};

/* The table's five IPv4 rows (destination, source, "IPv4 only", "IPv4 with TCP"). */
static const struct rss_v4_vector v4[] = {
    { IP4(161, 142, 100, 80), IP4(66, 9, 149, 187), 1766, 2794, 0x323e8fc2, 0x51ccc178 },
    { IP4(65, 69, 140, 83), IP4(199, 92, 111, 2), 4739, 14230, 0xd718262a, 0xc626b0ea },
    { IP4(12, 22, 207, 184), IP4(24, 19, 198, 95), 38024, 12898, 0xd2d0a5de, 0x5c2b394a },
    { IP4(209, 142, 163, 6), IP4(38, 27, 205, 30), 2217, 48228, 0x82989176, 0xafc7327f },
    { IP4(202, 188, 127, 2), IP4(153, 39, 163, 191), 1303, 44251, 0x5d1809c5, 0x10e828a2 },
};

static void test_key_is_the_published_one(void **state)
{
    (void)state;
    static const uint8_t ms[RSS_KEY_BYTES] = {
        0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
        0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
        0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
    };
    assert_memory_equal(rss_default_key, ms, RSS_KEY_BYTES);
}

static void test_ipv4_only(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(v4) / sizeof(v4[0]); i++) {
        assert_int_equal(rss_hash_ipv4(rss_default_key, v4[i].src, v4[i].dst), v4[i].ipv4_only);
    }
}

static void test_ipv4_with_tcp(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(v4) / sizeof(v4[0]); i++) {
        assert_int_equal(rss_hash_ipv4_l4(rss_default_key, v4[i].src, v4[i].dst, v4[i].sport,
                                          v4[i].dport),
                         v4[i].ipv4_tcp);
    }
}

/* The helpers are only byte-string builders: the generic function gives the same answer. */
static void test_generic_matches_helpers(void **state)
{
    (void)state;
    uint8_t in[12];
    inet_store_be32(&in[0], v4[0].src);
    inet_store_be32(&in[4], v4[0].dst);
    inet_store_be16(&in[8], v4[0].sport);
    inet_store_be16(&in[10], v4[0].dport);
    assert_int_equal(rss_toeplitz(rss_default_key, RSS_KEY_BYTES, in, 8), v4[0].ipv4_only);
    assert_int_equal(rss_toeplitz(rss_default_key, RSS_KEY_BYTES, in, 12), v4[0].ipv4_tcp);
}

/* The same page's IPv6 rows, through the generic function (36- and 32-byte inputs). */
struct rss_v6_vector {
    uint8_t dst[16], src[16];
    uint16_t dport, sport;
    uint32_t ipv6_only, ipv6_tcp;
};

static const struct rss_v6_vector v6[] = {
    { /* 3ffe:2501:200:3::1 (1766) <- 3ffe:2501:200:1fff::7 (2794) */
      { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 0x01 },
      { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x07 },
      1766, 2794, 0x2cc18cd5, 0x40207d3d },
    { /* ff02::1 (4739) <- 3ffe:501:8::260:97ff:fe40:efab (14230) */
      { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01 },
      { 0x3f, 0xfe, 0x05, 0x01, 0x00, 0x08, 0, 0, 0x02, 0x60, 0x97, 0xff, 0xfe, 0x40, 0xef, 0xab },
      4739, 14230, 0x0f0c461c, 0xdde51bbf },
    { /* fe80::200:f8ff:fe21:67cf (38024) <- 3ffe:1900:4545:3:200:f8ff:fe21:67cf (44251) */
      { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x00, 0xf8, 0xff, 0xfe, 0x21, 0x67, 0xcf },
      { 0x3f, 0xfe, 0x19, 0x00, 0x45, 0x45, 0x00, 0x03, 0x02, 0x00, 0xf8, 0xff, 0xfe, 0x21, 0x67,
        0xcf },
      38024, 44251, 0x4b61e985, 0x02d1feef },
};

static void test_ipv6_rows(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(v6) / sizeof(v6[0]); i++) {
        uint8_t in[36];
        memcpy(&in[0], v6[i].src, 16);
        memcpy(&in[16], v6[i].dst, 16);
        inet_store_be16(&in[32], v6[i].sport);
        inet_store_be16(&in[34], v6[i].dport);
        assert_int_equal(rss_toeplitz(rss_default_key, RSS_KEY_BYTES, in, 32), v6[i].ipv6_only);
        assert_int_equal(rss_toeplitz(rss_default_key, RSS_KEY_BYTES, in, 36), v6[i].ipv6_tcp);
    }
}

/* Toeplitz is linear over GF(2): h(a ^ b) == h(a) ^ h(b), and h(0) == 0. */
static void test_linearity(void **state)
{
    (void)state;
    uint32_t x = 12345;
    for (int n = 0; n < 200; n++) {
        uint8_t a[12], b[12], ab[12];
        for (int i = 0; i < 12; i++) {
            x = x * 1103515245u + 12345u;
            a[i] = (uint8_t)(x >> 16);
            x = x * 1103515245u + 12345u;
            b[i] = (uint8_t)(x >> 16);
            ab[i] = a[i] ^ b[i];
        }
        uint32_t ha = rss_toeplitz(rss_default_key, RSS_KEY_BYTES, a, 12);
        uint32_t hb = rss_toeplitz(rss_default_key, RSS_KEY_BYTES, b, 12);
        assert_int_equal(rss_toeplitz(rss_default_key, RSS_KEY_BYTES, ab, 12), ha ^ hb);
    }
    static const uint8_t zero[12];
    assert_int_equal(rss_toeplitz(rss_default_key, RSS_KEY_BYTES, zero, 12), 0);
}

/* A single set bit selects exactly the 32 key bits starting at its position; bits past the
 * key's end read as zero. */
static void test_single_bits_and_short_key(void **state)
{
    (void)state;
    uint8_t in[1] = { 0x80 };
    assert_int_equal(rss_toeplitz(rss_default_key, RSS_KEY_BYTES, in, 1), 0x6d5a56da);
    in[0] = 0x01; /* bit 7: key bits 7..38 */
    uint32_t want = (uint32_t)((inet_load_be32(rss_default_key) << 7) |
                               (rss_default_key[4] >> 1));
    assert_int_equal(rss_toeplitz(rss_default_key, RSS_KEY_BYTES, in, 1), want);
    /* a 4-byte key hashes one byte: the window shifts in zeros */
    in[0] = 0x01;
    assert_int_equal(rss_toeplitz(rss_default_key, 4, in, 1), inet_load_be32(rss_default_key) << 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_is_the_published_one),
        cmocka_unit_test(test_ipv4_only),
        cmocka_unit_test(test_ipv4_with_tcp),
        cmocka_unit_test(test_generic_matches_helpers),
        cmocka_unit_test(test_ipv6_rows),
        cmocka_unit_test(test_linearity),
        cmocka_unit_test(test_single_bits_and_short_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
