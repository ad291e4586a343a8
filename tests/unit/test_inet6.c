/*
 * tests/unit/test_inet6.c: the IPv6 helpers of net/inet6.c: the address classes of RFC 4291
 * 2.4, prefix matching, the solicited-node group (2.7.1) and its 33:33 MAC (RFC 2464 7), the
 * modified EUI-64 link-local address (RFC 4291 appendix A), the text form (RFC 5952, against
 * its own examples and against the C library's inet_ntop on random addresses), the bounded
 * extension-header walk (RFC 8200 4, in buffers of their exact size so that ASan sees any
 * over-read) and the upper-layer checksum with its pseudo-header (8.1), held to a reference sum
 * written here and to a checksum worked out by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "net/inet.h"
#include "net/inet6.h"

/* A 16-byte address from eight groups, in the order they are written. */
#define A6(a, b, c, d, e, f, g, h)                                                               \
    {                                                                                            \
        (uint8_t)((a) >> 8), (uint8_t)(a), (uint8_t)((b) >> 8), (uint8_t)(b),                    \
            (uint8_t)((c) >> 8), (uint8_t)(c), (uint8_t)((d) >> 8), (uint8_t)(d),                \
            (uint8_t)((e) >> 8), (uint8_t)(e), (uint8_t)((f) >> 8), (uint8_t)(f),                \
            (uint8_t)((g) >> 8), (uint8_t)(g), (uint8_t)((h) >> 8), (uint8_t)(h)                 \
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

/* An exactly-sized heap copy, so that ASan reports a read one byte past the end. */
static uint8_t *exact_copy(const uint8_t *p, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    assert_non_null(c);
    memcpy(c, p, n);
    return c;
}

/* --- address classes -------------------------------------------------------------------------- */

static void test_address_classes(void **state)
{
    (void)state;
    static const uint8_t unspec[16] = A6(0, 0, 0, 0, 0, 0, 0, 0);
    static const uint8_t loop[16] = A6(0, 0, 0, 0, 0, 0, 0, 1);
    static const uint8_t two[16] = A6(0, 0, 0, 0, 0, 0, 0, 2);
    static const uint8_t high_one[16] = A6(0x100, 0, 0, 0, 0, 0, 0, 1);
    static const uint8_t mapped[16] = A6(0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304);
    static const uint8_t not_mapped1[16] = A6(0, 0, 0, 0, 0, 0xfffe, 0x0102, 0x0304);
    static const uint8_t not_mapped2[16] = A6(0, 0, 0, 0, 1, 0xffff, 0x0102, 0x0304);
    static const uint8_t translated[16] = A6(0, 0, 0, 0, 0xffff, 0, 0x0102, 0x0304);
    static const uint8_t ll[16] = A6(0xfe80, 0, 0, 0, 0x1, 0x2, 0x3, 0x4);
    static const uint8_t ll_top[16] = A6(0xfebf, 0xffff, 0, 0, 0, 0, 0, 1);
    static const uint8_t site[16] = A6(0xfec0, 0, 0, 0, 0, 0, 0, 1); /* deprecated site-local */
    static const uint8_t below_ll[16] = A6(0xfe7f, 0xffff, 0, 0, 0, 0, 0, 1);
    static const uint8_t mc_all[16] = A6(0xff02, 0, 0, 0, 0, 0, 0, 1);
    static const uint8_t mc_glob[16] = A6(0xff0e, 0, 0, 0, 0, 0, 0, 0x101);
    static const uint8_t almost_mc[16] = A6(0xfeff, 0, 0, 0, 0, 0, 0, 1);
    static const uint8_t gua[16] = A6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1);

    assert_true(inet6_is_unspecified(unspec));
    assert_false(inet6_is_unspecified(loop));
    assert_false(inet6_is_unspecified(high_one));
    assert_true(inet6_is_loopback(loop));
    assert_false(inet6_is_loopback(unspec));
    assert_false(inet6_is_loopback(two));
    assert_false(inet6_is_loopback(high_one));

    assert_true(inet6_is_v4_mapped(mapped));
    assert_false(inet6_is_v4_mapped(not_mapped1));
    assert_false(inet6_is_v4_mapped(not_mapped2));
    assert_false(inet6_is_v4_mapped(translated));
    assert_false(inet6_is_v4_mapped(unspec));

    assert_true(inet6_is_link_local(ll));
    assert_true(inet6_is_link_local(ll_top));
    assert_false(inet6_is_link_local(site));
    assert_false(inet6_is_link_local(below_ll));
    assert_false(inet6_is_link_local(mc_all));
    assert_false(inet6_is_link_local(gua));

    assert_true(inet6_is_multicast(mc_all));
    assert_true(inet6_is_multicast(mc_glob));
    assert_false(inet6_is_multicast(almost_mc));
    assert_false(inet6_is_multicast(ll));
    assert_false(inet6_is_multicast(gua));

    /* the classes are exclusive for these */
    const uint8_t *all[] = { unspec, loop, mapped, ll, mc_all, gua };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        int n = inet6_is_unspecified(all[i]) + inet6_is_loopback(all[i]) +
                inet6_is_v4_mapped(all[i]) + inet6_is_link_local(all[i]) +
                inet6_is_multicast(all[i]);
        assert_true(n <= 1);
    }

    /* inet6_eq looks at every byte, at any alignment */
    uint8_t raw[40];
    for (unsigned off = 0; off < 8; off++) {
        memcpy(raw + off, gua, 16);
        assert_true(inet6_eq(raw + off, gua));
        for (unsigned i = 0; i < 16; i++) {
            raw[off + i] ^= 0x10;
            assert_false(inet6_eq(raw + off, gua));
            assert_false(inet6_eq(gua, raw + off));
            raw[off + i] ^= 0x10;
        }
    }
}

/* --- prefixes --------------------------------------------------------------------------------- */

/* Bit i (0 = the most significant of byte 0) of a. */
static bool bit_of(const uint8_t *a, unsigned i)
{
    return (a[i / 8] >> (7 - i % 8)) & 1;
}

static bool ref_prefix_match(const uint8_t *a, const uint8_t *b, unsigned len)
{
    for (unsigned i = 0; i < len && i < 128; i++) {
        if (bit_of(a, i) != bit_of(b, i)) {
            return false;
        }
    }
    return true;
}

static void test_prefix_match(void **state)
{
    (void)state;
    static const unsigned lens[] = { 0, 1, 7, 8, 63, 64, 127, 128 };
    static const uint8_t base[16] =
        A6(0x2001, 0xdb8, 0x1234, 0x5678, 0x9abc, 0xdef0, 0x1111, 0x2222);
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        unsigned len = lens[i];
        uint8_t *a = exact_copy(base, 16), *b = exact_copy(base, 16);
        assert_true(inet6_prefix_match(a, b, len));
        if (len > 0) {
            /* the last bit inside the prefix differs: no match at len, a match at len - 1 */
            b[(len - 1) / 8] ^= (uint8_t)(0x80 >> ((len - 1) % 8));
            assert_false(inet6_prefix_match(a, b, len));
            assert_false(inet6_prefix_match(b, a, len));
            assert_true(inet6_prefix_match(a, b, len - 1));
            b[(len - 1) / 8] ^= (uint8_t)(0x80 >> ((len - 1) % 8));
        }
        if (len < 128) {
            /* the first bit after the prefix differs: still a match at len, none at len + 1 */
            b[len / 8] ^= (uint8_t)(0x80 >> (len % 8));
            assert_true(inet6_prefix_match(a, b, len));
            assert_false(inet6_prefix_match(a, b, len + 1));
            /* and every bit after it too */
            for (unsigned j = len + 1; j < 128; j++) {
                b[j / 8] ^= (uint8_t)(0x80 >> (j % 8));
            }
            assert_true(inet6_prefix_match(a, b, len));
            assert_false(inet6_prefix_match(a, b, 128));
            /* the first bit after agrees again: only bits len + 1 .. 127 differ */
            b[len / 8] ^= (uint8_t)(0x80 >> (len % 8));
            assert_true(inet6_prefix_match(a, b, len + 1));
            assert_int_equal(inet6_prefix_match(a, b, 128), len == 127);
        }
        free(a);
        free(b);
    }
    /* /0 matches anything, even wholly different addresses */
    static const uint8_t zeros[16], ones[16] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                                 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    assert_true(inet6_prefix_match(zeros, ones, 0));
    assert_false(inet6_prefix_match(zeros, ones, 1));

    /* random pairs sharing a random number of leading bits, every length 0..128 */
    rng_state = 0x1234567887654321ull;
    for (int n = 0; n < 4000; n++) {
        uint8_t a[16], b[16];
        for (int i = 0; i < 16; i++) {
            a[i] = (uint8_t)rng();
            b[i] = (uint8_t)rng();
        }
        unsigned common = rng() % 129;
        for (unsigned j = 0; j < common; j++) {
            b[j / 8] = (uint8_t)((b[j / 8] & ~(0x80 >> (j % 8))) | (a[j / 8] & (0x80 >> (j % 8))));
        }
        uint8_t *pa = exact_copy(a, 16), *pb = exact_copy(b, 16);
        for (unsigned len = 0; len <= 128; len++) {
            if (inet6_prefix_match(pa, pb, len) != ref_prefix_match(a, b, len)) {
                fail_msg("prefix_match /%u disagrees with the bitwise reference", len);
            }
        }
        free(pa);
        free(pb);
    }
}

/* --- multicast mapping, EUI-64 ---------------------------------------------------------------- */

static void test_solicited_node(void **state)
{
    (void)state;
    static const uint8_t addr[16] = A6(0x2001, 0xdb8, 0, 0, 0x1, 0x2, 0x3467, 0x89ab);
    static const uint8_t want[16] = A6(0xff02, 0, 0, 0, 0, 0x1, 0xff67, 0x89ab);
    uint8_t g[16];
    memset(g, 0xee, sizeof(g));
    inet6_solicited_node(g, addr);
    assert_memory_equal(g, want, 16);
    assert_true(inet6_is_multicast(g));
    assert_true(inet6_is_solicited_node_of(want, addr));

    /* the group depends only on the low 24 bits */
    static const uint8_t same_low[16] = A6(0xfe80, 0, 0, 0, 0xaaaa, 0xbbbb, 0xcc67, 0x89ab);
    assert_true(inet6_is_solicited_node_of(want, same_low));
    uint8_t g2[16];
    inet6_solicited_node(g2, same_low);
    assert_memory_equal(g2, want, 16);
    for (unsigned i = 13; i < 16; i++) {
        uint8_t other[16];
        memcpy(other, addr, 16);
        other[i] ^= 1;
        assert_false(inet6_is_solicited_node_of(want, other));
    }
    /* a group that is not ff02::1:ff00:0/104 is no one's solicited-node group */
    for (unsigned i = 0; i < 13; i++) {
        uint8_t bad[16];
        memcpy(bad, want, 16);
        bad[i] ^= 0x04;
        assert_false(inet6_is_solicited_node_of(bad, addr));
    }
    /* :: and ::1 have their groups too (ff02::1:ff00:0 and ff02::1:ff00:1) */
    static const uint8_t loop[16] = A6(0, 0, 0, 0, 0, 0, 0, 1);
    static const uint8_t loop_sn[16] = A6(0xff02, 0, 0, 0, 0, 1, 0xff00, 1);
    inet6_solicited_node(g, loop);
    assert_memory_equal(g, loop_sn, 16);
    /* out may alias addr: only its last three bytes are read, and written back as they are */
    uint8_t alias[16];
    memcpy(alias, addr, 16);
    inet6_solicited_node(alias, alias);
    assert_memory_equal(alias, want, 16);
}

static void test_multicast_mac(void **state)
{
    (void)state;
    static const uint8_t all_nodes[16] = A6(0xff02, 0, 0, 0, 0, 0, 0, 1);
    static const uint8_t sn[16] = A6(0xff02, 0, 0, 0, 0, 1, 0xff67, 0x89ab);
    static const uint8_t wide[16] = A6(0xff0e, 0x1234, 0, 0, 0, 0, 0xdead, 0xbeef);
    uint8_t mac[6];
    inet6_multicast_mac(mac, all_nodes);
    assert_memory_equal(mac, ((const uint8_t[]){ 0x33, 0x33, 0, 0, 0, 1 }), 6);
    inet6_multicast_mac(mac, sn);
    assert_memory_equal(mac, ((const uint8_t[]){ 0x33, 0x33, 0xff, 0x67, 0x89, 0xab }), 6);
    inet6_multicast_mac(mac, wide);
    assert_memory_equal(mac, ((const uint8_t[]){ 0x33, 0x33, 0xde, 0xad, 0xbe, 0xef }), 6);
    assert_true(inet_eth_is_group(mac));
    assert_false(inet_eth_is_broadcast(mac));
}

static void test_link_local_from_mac(void **state)
{
    (void)state;
    char s[INET6_STR_BYTES];
    uint8_t ll[16];

    /* A universal (globally administered) MAC: U/L bit 0, set in the identifier. */
    static const uint8_t intel[6] = { 0x00, 0x1b, 0x21, 0x0a, 0x0b, 0x0c };
    static const uint8_t want_intel[16] = A6(0xfe80, 0, 0, 0, 0x021b, 0x21ff, 0xfe0a, 0x0b0c);
    inet6_link_local_from_mac(ll, intel);
    assert_memory_equal(ll, want_intel, 16);
    assert_string_equal(inet6_str(s, ll), "fe80::21b:21ff:fe0a:b0c");
    assert_true(inet6_is_link_local(ll));

    /* A locally administered MAC: U/L bit 1, cleared in the identifier. */
    static const uint8_t local[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
    static const uint8_t want_local[16] = A6(0xfe80, 0, 0, 0, 0x0000, 0x00ff, 0xfe00, 0x0001);
    inet6_link_local_from_mac(ll, local);
    assert_memory_equal(ll, want_local, 16);
    assert_string_equal(inet6_str(s, ll), "fe80::ff:fe00:1");

    /* Only the U/L bit (0x02 of the first byte) flips; the I/G bit and the rest stay. */
    for (unsigned b0 = 0; b0 < 256; b0++) {
        uint8_t mac[6] = { (uint8_t)b0, 0x11, 0x22, 0x33, 0x44, 0x55 };
        inet6_link_local_from_mac(ll, mac);
        static const uint8_t prefix[8] = { 0xfe, 0x80 };
        assert_memory_equal(ll, prefix, 8);
        assert_int_equal(ll[8], b0 ^ 0x02);
        assert_int_equal(ll[9], 0x11);
        assert_int_equal(ll[10], 0x22);
        assert_int_equal(ll[11], 0xff);
        assert_int_equal(ll[12], 0xfe);
        assert_int_equal(ll[13], 0x33);
        assert_int_equal(ll[14], 0x44);
        assert_int_equal(ll[15], 0x55);
    }
}

/* --- text form (RFC 5952) --------------------------------------------------------------------- */

/* inet6_str into an exactly 40-byte heap buffer (ASan sees a 41st byte), checked for length. */
static void expect_str(const uint8_t *addr, const char *want)
{
    char *buf = malloc(INET6_STR_BYTES);
    assert_non_null(buf);
    memset(buf, 'X', INET6_STR_BYTES);
    char *r = inet6_str(buf, addr);
    assert_ptr_equal(r, buf);
    assert_true(memchr(buf, '\0', INET6_STR_BYTES) != NULL);
    if (strcmp(buf, want) != 0) {
        fail_msg("inet6_str gave \"%s\", RFC 5952 wants \"%s\"", buf, want);
    }
    free(buf);
}

static void test_str_rfc5952(void **state)
{
    (void)state;
    struct {
        uint8_t a[16];
        const char *s;
    } cases[] = {
        /* 4.1: leading zeros suppressed; 4.3: lower case */
        { A6(0x2001, 0x0db8, 0, 0, 0, 0, 0, 0x0001), "2001:db8::1" },
        { A6(0x2001, 0x0DB8, 0xAAAA, 0xBBBB, 0xCCCC, 0xDDDD, 0xEEEE, 0xFFFF),
          "2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff" },
        { A6(0x2001, 0x0db8, 0x00a0, 0x000b, 0x0c00, 0x0001, 0x0010, 0x0100),
          "2001:db8:a0:b:c00:1:10:100" },
        /* 4.2.2: a single 16-bit 0 field is not shortened */
        { A6(0x2001, 0xdb8, 0, 1, 1, 1, 1, 1), "2001:db8:0:1:1:1:1:1" },
        { A6(0x2001, 0xdb8, 1, 1, 1, 1, 1, 0), "2001:db8:1:1:1:1:1:0" },
        { A6(0, 0x2001, 1, 1, 1, 1, 1, 1), "0:2001:1:1:1:1:1:1" },
        { A6(1, 0, 1, 0, 1, 0, 1, 0), "1:0:1:0:1:0:1:0" },
        /* 4.2.1: shortened as much as possible */
        { A6(0x2001, 0xdb8, 0, 0, 0, 0, 2, 1), "2001:db8::2:1" },
        /* 4.2.3: the longest run is shortened ... */
        { A6(0x2001, 0, 0, 1, 0, 0, 0, 1), "2001:0:0:1::1" },
        { A6(1, 0, 0, 2, 0, 0, 0, 0), "1:0:0:2::" },
        /* ... and of equal runs the first */
        { A6(0x2001, 0xdb8, 0, 0, 1, 0, 0, 1), "2001:db8::1:0:0:1" },
        { A6(1, 0, 0, 2, 3, 0, 0, 4), "1::2:3:0:0:4" },
        { A6(0, 0, 1, 0, 0, 1, 0, 0), "::1:0:0:1:0:0" },
        /* runs at either end, and the whole address */
        { A6(0, 0, 0, 0, 0, 0, 0, 0), "::" },
        { A6(0, 0, 0, 0, 0, 0, 0, 1), "::1" },
        { A6(1, 0, 0, 0, 0, 0, 0, 0), "1::" },
        { A6(0, 0, 0, 0, 0, 0, 1, 0), "::1:0" },
        { A6(0, 1, 0, 0, 0, 0, 0, 0), "0:1::" },
        { A6(0xfe80, 0, 0, 0, 0, 0, 0, 0), "fe80::" },
        { A6(0xff02, 0, 0, 0, 0, 0, 0, 1), "ff02::1" },
        { A6(0xff02, 0, 0, 0, 0, 1, 0xff00, 1), "ff02::1:ff00:1" },
        { A6(0, 0, 0, 0, 0, 0, 0x0102, 0x0304), "::102:304" },
        /* the longest possible text: 39 characters and the NUL, exactly the buffer */
        { A6(0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff),
          "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff" },
        { A6(0x1000, 0x2000, 0x3000, 0x4000, 0x5000, 0x6000, 0x7000, 0x8000),
          "1000:2000:3000:4000:5000:6000:7000:8000" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        expect_str(cases[i].a, cases[i].s);
    }
    char s[INET6_STR_BYTES];
    assert_int_equal(strlen(inet6_str(s, cases[sizeof(cases) / sizeof(cases[0]) - 2].a)),
                     INET6_STR_BYTES - 1);
}

/* RFC 5952 section 5 recommends "::ffff:192.0.2.1" for IPv4-mapped addresses; inet6.h promises
 * only the hexadecimal rules of section 4. Either form is accepted, nothing else. */
static void test_str_v4_mapped(void **state)
{
    (void)state;
    static const uint8_t mapped[16] = A6(0, 0, 0, 0, 0, 0xffff, 0xc000, 0x0201);
    char s[INET6_STR_BYTES];
    inet6_str(s, mapped);
    if (strcmp(s, "::ffff:c000:201") != 0 && strcmp(s, "::ffff:192.0.2.1") != 0) {
        fail_msg("IPv4-mapped as \"%s\"", s);
    }
}

/* Random addresses, rich in zero groups, against the C library's inet_ntop (glibc follows RFC
 * 5952 section 4 too: lower case, longest run, first of equal runs, no single-group "::"). The
 * C library writes some addresses with a dotted IPv4 tail, which inet6.h does not promise:
 * those are skipped. Every text must also parse back to the address. */
static void test_str_against_libc(void **state)
{
    (void)state;
    rng_state = 0xfeedfacecafebeefull;
    unsigned compared = 0;
    for (int n = 0; n < 200000; n++) {
        uint8_t a[16];
        for (int g = 0; g < 8; g++) {
            uint16_t v;
            switch (rng() % 4) {
            case 0:
            case 1:
                v = 0;
                break;
            case 2:
                v = (uint16_t)(rng() % 16);
                break;
            default:
                v = (uint16_t)rng();
                break;
            }
            a[2 * g] = (uint8_t)(v >> 8);
            a[2 * g + 1] = (uint8_t)v;
        }
        char ours[INET6_STR_BYTES], libc[INET6_ADDRSTRLEN];
        inet6_str(ours, a);
        assert_non_null(inet_ntop(AF_INET6, a, libc, sizeof(libc)));
        uint8_t back[16];
        if (inet_pton(AF_INET6, ours, back) != 1 || memcmp(back, a, 16) != 0) {
            fail_msg("\"%s\" does not parse back to the address", ours);
        }
        for (const char *p = ours; *p; p++) {
            assert_true((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || *p == ':');
        }
        assert_null(strstr(ours, ":::"));
        if (strchr(libc, '.') != NULL) {
            continue;
        }
        if (strcmp(ours, libc) != 0) {
            fail_msg("inet6_str \"%s\", inet_ntop \"%s\"", ours, libc);
        }
        compared++;
    }
    assert_true(compared > 190000);
}

/* --- extension headers (RFC 8200 section 4) --------------------------------------------------- */

#define PKT_MAX 512

/* A packet under construction: the fixed header (addresses of no consequence) and a chain. */
struct pkt {
    uint8_t b[PKT_MAX];
    size_t len;
    size_t last_next; /* where the next-header byte to patch is */
};

static void pkt_init(struct pkt *p, uint8_t first)
{
    memset(p, 0, sizeof(*p));
    p->b[0] = 0x60;
    p->b[6] = first;
    p->b[7] = 64;
    p->b[8] = 0x20;
    p->b[24] = 0x20;
    p->len = 40;
    p->last_next = 6;
}

/* Append an extension header of type nh (already named by the previous next-header byte) of
 * `bytes` bytes (a multiple of 8; AH a multiple of 4 of at least 12), its next header `next`. */
static void pkt_ext(struct pkt *p, uint8_t nh, size_t bytes, uint8_t next)
{
    uint8_t *h = p->b + p->len;
    memset(h, 0, bytes);
    h[0] = next;
    if (nh == INET6_NH_AH) {
        h[1] = (uint8_t)(bytes / 4 - 2);
    } else if (nh != INET6_NH_FRAGMENT) {
        h[1] = (uint8_t)(bytes / 8 - 1);
        if (nh == INET6_NH_HOP_BY_HOP || nh == INET6_NH_DEST_OPTS) {
            h[2] = 1; /* PadN over the rest */
            h[3] = (uint8_t)(bytes - 4);
        }
    }
    p->last_next = p->len;
    p->len += bytes;
}

static void pkt_frag(struct pkt *p, uint8_t next, uint16_t offset_units, bool more)
{
    uint8_t *h = p->b + p->len;
    pkt_ext(p, INET6_NH_FRAGMENT, INET6_FRAG_HDR_BYTES, next);
    inet_store_be16(h + 2, (uint16_t)(offset_units << 3 | (more ? 1 : 0)));
    inet_store_be32(h + 4, 0xabcdef01);
}

static void pkt_payload(struct pkt *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        p->b[p->len + i] = (uint8_t)(0x40 + i);
    }
    p->len += n;
    inet_store_be16(p->b + 4, (uint16_t)(p->len - 40));
}

/* Walk the first len bytes of p in a buffer of exactly len bytes. */
static enum inet6_walk_result walk(const struct pkt *p, size_t len, struct inet6_ext_walk *w)
{
    uint8_t *c = exact_copy(p->b, len);
    enum inet6_walk_result r = inet6_walk_ext(c, len, w);
    free(c);
    return r;
}

static void expect_walk_ok(const struct pkt *p, uint8_t proto, unsigned headers, bool fragment,
                           bool later, uint16_t off)
{
    struct inet6_ext_walk w;
    memset(&w, 0xee, sizeof(w));
    assert_int_equal(walk(p, p->len, &w), INET6_WALK_OK);
    assert_int_equal(w.proto, proto);
    assert_int_equal(w.headers, headers);
    assert_int_equal(w.fragment, fragment);
    assert_int_equal(w.later_fragment, later);
    assert_int_equal(w.off, off);
}

/* A walk that fails leaves w as it was. */
static void expect_walk_fail(const struct pkt *p, size_t len, enum inet6_walk_result want)
{
    struct inet6_ext_walk w, before;
    memset(&w, 0xee, sizeof(w));
    before = w;
    assert_int_equal(walk(p, len, &w), want);
    assert_memory_equal(&w, &before, sizeof(w));
}

static void test_is_ext_header(void **state)
{
    (void)state;
    for (unsigned nh = 0; nh < 256; nh++) {
        bool want = nh == 0 || nh == 43 || nh == 44 || nh == 51 || nh == 60 || nh == 135 ||
                    nh == 139 || nh == 140;
        assert_int_equal(inet6_is_ext_header((uint8_t)nh), want);
    }
    assert_false(inet6_is_ext_header(INET6_NH_ESP));
    assert_false(inet6_is_ext_header(INET6_NH_NONE));
}

static void test_walk_no_ext(void **state)
{
    (void)state;
    struct pkt p;
    pkt_init(&p, INET6_NH_UDP);
    pkt_payload(&p, 8);
    expect_walk_ok(&p, INET6_NH_UDP, 0, false, false, 40);
    /* a bare header (no payload at all) */
    pkt_init(&p, INET6_NH_TCP);
    expect_walk_ok(&p, INET6_NH_TCP, 0, false, false, 40);
    /* the walk stops at ESP and No Next Header, whatever follows */
    pkt_init(&p, INET6_NH_ESP);
    pkt_payload(&p, 3);
    expect_walk_ok(&p, INET6_NH_ESP, 0, false, false, 40);
    pkt_init(&p, INET6_NH_NONE);
    expect_walk_ok(&p, INET6_NH_NONE, 0, false, false, 40);
    /* fewer than 40 bytes is no IPv6 packet */
    pkt_init(&p, INET6_NH_UDP);
    for (size_t len = 0; len < 40; len++) {
        expect_walk_fail(&p, len, INET6_WALK_TRUNCATED);
    }
}

static void test_walk_chain(void **state)
{
    (void)state;
    struct pkt p;
    /* Hop-by-Hop (8), Destination Options (16), Routing (24), then UDP */
    pkt_init(&p, INET6_NH_HOP_BY_HOP);
    pkt_ext(&p, INET6_NH_HOP_BY_HOP, 8, INET6_NH_DEST_OPTS);
    pkt_ext(&p, INET6_NH_DEST_OPTS, 16, INET6_NH_ROUTING);
    pkt_ext(&p, INET6_NH_ROUTING, 24, INET6_NH_UDP);
    pkt_payload(&p, 12);
    expect_walk_ok(&p, INET6_NH_UDP, 3, false, false, 40 + 48);
    /* the chain may end exactly at the end of the bytes */
    p.len = 40 + 48;
    expect_walk_ok(&p, INET6_NH_UDP, 3, false, false, 88);

    /* AH counts its length in 4-byte units less 2 (RFC 4302 2.2): 24 bytes here */
    pkt_init(&p, INET6_NH_AH);
    pkt_ext(&p, INET6_NH_AH, 24, INET6_NH_TCP);
    pkt_payload(&p, 20);
    expect_walk_ok(&p, INET6_NH_TCP, 1, false, false, 64);
    /* an AH of 12 bytes: not a multiple of 8 */
    pkt_init(&p, INET6_NH_DEST_OPTS);
    pkt_ext(&p, INET6_NH_DEST_OPTS, 8, INET6_NH_AH);
    pkt_ext(&p, INET6_NH_AH, 12, INET6_NH_ICMPV6);
    pkt_payload(&p, 8);
    expect_walk_ok(&p, INET6_NH_ICMPV6, 2, false, false, 60);

    /* Mobility, HIP and Shim6 are stepped over as 8-byte-unit headers */
    pkt_init(&p, INET6_NH_MOBILITY);
    pkt_ext(&p, INET6_NH_MOBILITY, 16, INET6_NH_HIP);
    pkt_ext(&p, INET6_NH_HIP, 8, INET6_NH_SHIM6);
    pkt_ext(&p, INET6_NH_SHIM6, 8, INET6_NH_NONE);
    expect_walk_ok(&p, INET6_NH_NONE, 3, false, false, 72);

    /* ESP after a header ends the walk there */
    pkt_init(&p, INET6_NH_DEST_OPTS);
    pkt_ext(&p, INET6_NH_DEST_OPTS, 8, INET6_NH_ESP);
    pkt_payload(&p, 30);
    expect_walk_ok(&p, INET6_NH_ESP, 1, false, false, 48);

    /* a protocol number no one knows is the upper layer */
    pkt_init(&p, INET6_NH_ROUTING);
    pkt_ext(&p, INET6_NH_ROUTING, 8, 253);
    expect_walk_ok(&p, 253, 1, false, false, 48);
}

static void test_walk_fragment(void **state)
{
    (void)state;
    struct pkt p;
    /* A first fragment (offset 0, M set): the walk goes on behind it */
    pkt_init(&p, INET6_NH_FRAGMENT);
    pkt_frag(&p, INET6_NH_UDP, 0, true);
    pkt_payload(&p, 16);
    expect_walk_ok(&p, INET6_NH_UDP, 1, true, false, 48);
    /* an atomic fragment (offset 0, M clear, RFC 6946) just the same */
    pkt_init(&p, INET6_NH_HOP_BY_HOP);
    pkt_ext(&p, INET6_NH_HOP_BY_HOP, 8, INET6_NH_FRAGMENT);
    pkt_frag(&p, INET6_NH_DEST_OPTS, 0, false);
    pkt_ext(&p, INET6_NH_DEST_OPTS, 8, INET6_NH_ICMPV6);
    pkt_payload(&p, 8);
    expect_walk_ok(&p, INET6_NH_ICMPV6, 3, true, false, 64);

    /* A later fragment: the walk stops behind its header; what follows is data, not a
     * header, even when the next-header value names one, and even when it would not fit. */
    pkt_init(&p, INET6_NH_FRAGMENT);
    pkt_frag(&p, INET6_NH_UDP, 185, true);
    pkt_payload(&p, 16);
    expect_walk_ok(&p, INET6_NH_UDP, 1, true, true, 48);
    pkt_init(&p, INET6_NH_FRAGMENT);
    pkt_frag(&p, INET6_NH_DEST_OPTS, 1, false);
    pkt_payload(&p, 1);
    p.b[48 + 1] = 0xff; /* as a header, 2048 bytes */
    expect_walk_ok(&p, INET6_NH_DEST_OPTS, 1, true, true, 48);
    pkt_init(&p, INET6_NH_FRAGMENT);
    pkt_frag(&p, INET6_NH_HOP_BY_HOP, 0x1fff, false); /* would be Hop-by-Hop not first */
    expect_walk_ok(&p, INET6_NH_HOP_BY_HOP, 1, true, true, 48);

    /* RFC 7112: a first fragment must hold the whole chain */
    pkt_init(&p, INET6_NH_FRAGMENT);
    pkt_frag(&p, INET6_NH_DEST_OPTS, 0, true);
    pkt_ext(&p, INET6_NH_DEST_OPTS, 32, INET6_NH_TCP);
    expect_walk_fail(&p, 48 + 31, INET6_WALK_TRUNCATED);
    expect_walk_fail(&p, 48 + 1, INET6_WALK_TRUNCATED);
    expect_walk_fail(&p, 48, INET6_WALK_TRUNCATED);
    /* and a fragment header must be whole itself */
    expect_walk_fail(&p, 47, INET6_WALK_TRUNCATED);
    expect_walk_fail(&p, 41, INET6_WALK_TRUNCATED);
}

static void test_walk_truncated(void **state)
{
    (void)state;
    struct pkt p;
    pkt_init(&p, INET6_NH_HOP_BY_HOP);
    pkt_ext(&p, INET6_NH_HOP_BY_HOP, 8, INET6_NH_DEST_OPTS);
    pkt_ext(&p, INET6_NH_DEST_OPTS, 24, INET6_NH_UDP);
    pkt_payload(&p, 8);
    /* every length that cuts into the chain: no next-header/length bytes, or too few */
    for (size_t len = 40; len < 40 + 32; len++) {
        expect_walk_fail(&p, len, INET6_WALK_TRUNCATED);
    }
    for (size_t len = 40 + 32; len <= p.len; len++) {
        struct inet6_ext_walk w;
        assert_int_equal(walk(&p, len, &w), INET6_WALK_OK);
        assert_int_equal(w.off, 72);
    }
    /* a length field claiming 2048 bytes in a short packet */
    pkt_init(&p, INET6_NH_DEST_OPTS);
    pkt_ext(&p, INET6_NH_DEST_OPTS, 8, INET6_NH_UDP);
    p.b[41] = 0xff;
    pkt_payload(&p, 100);
    expect_walk_fail(&p, p.len, INET6_WALK_TRUNCATED);
    /* AH with its largest length (1028 bytes) */
    pkt_init(&p, INET6_NH_AH);
    pkt_ext(&p, INET6_NH_AH, 12, INET6_NH_UDP);
    p.b[41] = 0xff;
    pkt_payload(&p, 200);
    expect_walk_fail(&p, p.len, INET6_WALK_TRUNCATED);
    /* a header of exactly the remaining bytes is fine; one byte more is not */
    pkt_init(&p, INET6_NH_ROUTING);
    pkt_ext(&p, INET6_NH_ROUTING, 40, INET6_NH_NONE);
    expect_walk_ok(&p, INET6_NH_NONE, 1, false, false, 80);
    expect_walk_fail(&p, 79, INET6_WALK_TRUNCATED);
}

static void test_walk_too_long(void **state)
{
    (void)state;
    struct pkt p;
    /* INET6_MAX_EXT_HEADERS headers are walked ... */
    pkt_init(&p, INET6_NH_DEST_OPTS);
    for (int i = 0; i < INET6_MAX_EXT_HEADERS; i++) {
        pkt_ext(&p, INET6_NH_DEST_OPTS, 8,
                i == INET6_MAX_EXT_HEADERS - 1 ? INET6_NH_UDP : INET6_NH_DEST_OPTS);
    }
    pkt_payload(&p, 8);
    expect_walk_ok(&p, INET6_NH_UDP, INET6_MAX_EXT_HEADERS, false, false,
                   (uint16_t)(40 + 8 * INET6_MAX_EXT_HEADERS));
    /* ... one more is a hostile chain, whether or not its bytes are there */
    pkt_init(&p, INET6_NH_DEST_OPTS);
    for (int i = 0; i <= INET6_MAX_EXT_HEADERS; i++) {
        pkt_ext(&p, INET6_NH_DEST_OPTS, 8,
                i == INET6_MAX_EXT_HEADERS ? INET6_NH_UDP : INET6_NH_DEST_OPTS);
    }
    pkt_payload(&p, 8);
    expect_walk_fail(&p, p.len, INET6_WALK_TOO_LONG);
    expect_walk_fail(&p, 40 + 8 * INET6_MAX_EXT_HEADERS, INET6_WALK_TOO_LONG);
    /* a fragment header counts as one */
    pkt_init(&p, INET6_NH_FRAGMENT);
    pkt_frag(&p, INET6_NH_DEST_OPTS, 0, true);
    for (int i = 1; i <= INET6_MAX_EXT_HEADERS; i++) {
        pkt_ext(&p, INET6_NH_DEST_OPTS, 8,
                i == INET6_MAX_EXT_HEADERS ? INET6_NH_UDP : INET6_NH_DEST_OPTS);
    }
    expect_walk_fail(&p, p.len, INET6_WALK_TOO_LONG);
    /* a chain of the maximum with no room for an upper layer behind it is OK */
    pkt_init(&p, INET6_NH_ROUTING);
    for (int i = 0; i < INET6_MAX_EXT_HEADERS; i++) {
        pkt_ext(&p, INET6_NH_ROUTING, 8,
                i == INET6_MAX_EXT_HEADERS - 1 ? INET6_NH_NONE : INET6_NH_ROUTING);
    }
    expect_walk_ok(&p, INET6_NH_NONE, INET6_MAX_EXT_HEADERS, false, false,
                   (uint16_t)p.len);
}

static void test_walk_hop_by_hop_not_first(void **state)
{
    (void)state;
    struct pkt p;
    pkt_init(&p, INET6_NH_DEST_OPTS);
    pkt_ext(&p, INET6_NH_DEST_OPTS, 8, INET6_NH_HOP_BY_HOP);
    pkt_ext(&p, INET6_NH_HOP_BY_HOP, 8, INET6_NH_UDP);
    pkt_payload(&p, 8);
    expect_walk_fail(&p, p.len, INET6_WALK_BAD);
    /* twice Hop-by-Hop */
    pkt_init(&p, INET6_NH_HOP_BY_HOP);
    pkt_ext(&p, INET6_NH_HOP_BY_HOP, 8, INET6_NH_HOP_BY_HOP);
    pkt_ext(&p, INET6_NH_HOP_BY_HOP, 8, INET6_NH_UDP);
    expect_walk_fail(&p, p.len, INET6_WALK_BAD);
    /* behind a first fragment */
    pkt_init(&p, INET6_NH_FRAGMENT);
    pkt_frag(&p, INET6_NH_HOP_BY_HOP, 0, true);
    pkt_ext(&p, INET6_NH_HOP_BY_HOP, 8, INET6_NH_UDP);
    expect_walk_fail(&p, p.len, INET6_WALK_BAD);
    /* Hop-by-Hop first is fine */
    pkt_init(&p, INET6_NH_HOP_BY_HOP);
    pkt_ext(&p, INET6_NH_HOP_BY_HOP, 8, INET6_NH_UDP);
    expect_walk_ok(&p, INET6_NH_UDP, 1, false, false, 48);
}

/* Random chains of random bytes in exact-size buffers: the walk never reads past them, and
 * what it reports stays within the packet. */
static void test_walk_random(void **state)
{
    (void)state;
    static const uint8_t nhs[] = { 0, 43, 44, 51, 60, 135, 139, 140, 6, 17, 58, 50, 59 };
    rng_state = 0xdecafbad00c0ffeeull;
    unsigned ok = 0, results[4] = { 0 };
    for (int n = 0; n < 50000; n++) {
        size_t len = rng() % 160;
        uint8_t *c = malloc(len ? len : 1);
        assert_non_null(c);
        for (size_t i = 0; i < len; i++) {
            c[i] = (uint8_t)rng();
            if (rng() % 3 == 0) {
                c[i] = nhs[rng() % sizeof(nhs)];
            } else if (rng() % 2) {
                c[i] &= 3; /* short headers */
            }
        }
        if (len > 6 && rng() % 2) {
            c[6] = nhs[rng() % sizeof(nhs)];
        }
        struct inet6_ext_walk w;
        enum inet6_walk_result r = inet6_walk_ext(c, len, &w);
        assert_true(r <= INET6_WALK_BAD);
        results[r]++;
        if (r == INET6_WALK_OK) {
            ok++;
            assert_true(len >= 40);
            assert_true(w.off >= 40 && w.off <= len);
            assert_true(w.headers <= INET6_MAX_EXT_HEADERS);
            assert_true(w.later_fragment ? w.fragment : true);
            assert_true(w.later_fragment || !inet6_is_ext_header(w.proto));
            assert_true((w.headers == 0) == (w.off == 40));
        }
        free(c);
    }
    assert_true(ok > 0 && results[INET6_WALK_TRUNCATED] > 0 && results[INET6_WALK_BAD] > 0);
}

/* --- the IPv6 header and the upper-layer checksum --------------------------------------------- */

/* RFC 1071 4.1's 16-bit loop over a pseudo-header built here byte by byte (RFC 8200 8.1:
 * source, destination, 32-bit upper-layer length, 3 zero bytes, next header), then msg. */
static uint16_t ref_upper_csum(const uint8_t *src, const uint8_t *dst, const uint8_t *msg,
                               uint32_t len, uint8_t next)
{
    uint8_t ph[40];
    memcpy(ph, src, 16);
    memcpy(ph + 16, dst, 16);
    ph[32] = (uint8_t)(len >> 24);
    ph[33] = (uint8_t)(len >> 16);
    ph[34] = (uint8_t)(len >> 8);
    ph[35] = (uint8_t)len;
    ph[36] = ph[37] = ph[38] = 0;
    ph[39] = next;
    uint32_t sum = 0;
    for (int i = 0; i < 40; i += 2) {
        sum += (uint32_t)ph[i] << 8 | ph[i + 1];
    }
    for (uint32_t i = 0; i + 1 < len; i += 2) {
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

static void test_ipv6_header(void **state)
{
    (void)state;
    static const uint8_t src[16] = A6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1);
    static const uint8_t dst[16] = A6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 2);
    uint8_t ip[48];
    memset(ip, 0xee, sizeof(ip));
    inet_ipv6_header(ip, 0x1234, INET6_NH_UDP, 33, src, dst);
    static const uint8_t want[8] = { 0x60, 0, 0, 0, 0x12, 0x34, 17, 33 };
    assert_memory_equal(ip, want, 8);
    assert_memory_equal(ip + 8, src, 16);
    assert_memory_equal(ip + 24, dst, 16);
    for (int i = 40; i < 48; i++) {
        assert_int_equal(ip[i], 0xee); /* not a byte more */
    }
    /* src and dst may be the header's own fields (memmove): rewriting a header in place */
    inet_ipv6_header(ip, 8, INET6_NH_ICMPV6, 64, ip + 8, ip + 24);
    assert_int_equal(ip[6], INET6_NH_ICMPV6);
    assert_memory_equal(ip + 8, src, 16);
    assert_memory_equal(ip + 24, dst, 16);
    /* the source taken from the destination field (a reply from the address asked) */
    inet_ipv6_header(ip, 8, INET6_NH_ICMPV6, 64, ip + 24, ip + 24);
    assert_memory_equal(ip + 8, dst, 16);
    assert_memory_equal(ip + 24, dst, 16);
    /* traffic class and flow label are cleared whatever was there */
    memset(ip, 0xff, 4);
    inet_ipv6_header(ip, 0, INET6_NH_NONE, 1, src, dst);
    assert_memory_equal(ip, ((const uint8_t[]){ 0x60, 0, 0, 0, 0, 0, 59, 1 }), 8);
}

/* An echo request whose checksum was worked out by hand:
 *   pseudo-header  2001 + 0db8 + 0001 (src 2001:db8::1) + 2001 + 0db8 + 0002 (dst 2001:db8::2)
 *                  + 0011 (length 17) + 003a (next header 58)
 *   message        8000 (type 128, code 0) + 0000 (checksum) + 1234 (id) + 0001 (seq)
 *                  + 7769 7265 7370 6565 ("wirespee") + 6400 ("d", padded)
 *   sum 0x31498, folded 0x149b, complemented 0xeb64. */
static void test_upper_csum_known(void **state)
{
    (void)state;
    uint8_t pkt[40 + 17];
    static const uint8_t src[16] = A6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1);
    static const uint8_t dst[16] = A6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 2);
    inet_ipv6_header(pkt, 17, INET6_NH_ICMPV6, 64, src, dst);
    uint8_t *m = pkt + 40;
    m[0] = 128;
    m[1] = 0;
    m[2] = m[3] = 0;
    inet_store_be16(m + 4, 0x1234);
    inet_store_be16(m + 6, 0x0001);
    memcpy(m + 8, "wirespeed", 9);

    uint8_t *c = exact_copy(pkt, sizeof(pkt)); /* an odd length: the last byte padded */
    assert_int_equal(inet6_upper_csum(c, c + 40, 17, INET6_NH_ICMPV6), 0xeb64);
    assert_int_equal(ref_upper_csum(src, dst, m, 17, INET6_NH_ICMPV6), 0xeb64);
    /* with the checksum stored, the message verifies */
    inet_store_be16(c + 42, 0xeb64);
    assert_int_equal(inet6_upper_csum(c, c + 40, 17, INET6_NH_ICMPV6), 0);
    /* and any single-bit change is caught, in the addresses or the message (the first 8
     * bytes of the header are not in the sum: length and next header are the arguments) */
    for (unsigned i = 8 * 8; i < sizeof(pkt) * 8; i++) {
        c[i / 8] ^= (uint8_t)(1 << (i % 8));
        assert_int_not_equal(inet6_upper_csum(c, c + 40, 17, INET6_NH_ICMPV6), 0);
        c[i / 8] ^= (uint8_t)(1 << (i % 8));
    }
    for (unsigned i = 0; i < 8 * 8; i++) {
        c[i / 8] ^= (uint8_t)(1 << (i % 8));
        assert_int_equal(inet6_upper_csum(c, c + 40, 17, INET6_NH_ICMPV6), 0);
        c[i / 8] ^= (uint8_t)(1 << (i % 8));
    }
    /* the next header and length in the pseudo-header are the arguments, not the header's */
    assert_int_not_equal(inet6_upper_csum(c, c + 40, 17, INET6_NH_UDP), 0);
    assert_int_not_equal(inet6_upper_csum(c, c + 40, 16, INET6_NH_ICMPV6), 0);
    free(c);

    /* A second one, all-nodes from fe80::1, no data: 0x8237 by the same sum. */
    static const uint8_t ll[16] = A6(0xfe80, 0, 0, 0, 0, 0, 0, 1);
    static const uint8_t all_nodes[16] = A6(0xff02, 0, 0, 0, 0, 0, 0, 1);
    uint8_t p2[48] = { 0 };
    inet_ipv6_header(p2, 8, INET6_NH_ICMPV6, 255, ll, all_nodes);
    p2[40] = 128;
    assert_int_equal(inet6_upper_csum(p2, p2 + 40, 8, INET6_NH_ICMPV6), 0x8237);
}

/* Random messages of every length 0..300, odd and even, at odd addresses, against the
 * reference; inet6_pseudo_sum continued by hand gives the same; lengths above 65535 (Jumbo,
 * RFC 2675) carry their upper half into the sum. */
static void test_upper_csum_random(void **state)
{
    (void)state;
    rng_state = 0x0badc0de0badc0deull;
    static uint8_t area[1 + 40 + 400];
    for (int n = 0; n < 6000; n++) {
        uint32_t len = (uint32_t)(n % 301);
        uint8_t *ip6 = area + (n & 1);
        for (size_t i = 0; i < 40 + len; i++) {
            ip6[i] = (uint8_t)rng();
        }
        uint8_t next = (uint8_t)rng();
        uint16_t want = ref_upper_csum(ip6 + 8, ip6 + 24, ip6 + 40, len, next);
        assert_int_equal(inet6_upper_csum(ip6, ip6 + 40, len, next), want);
        uint32_t s = inet6_pseudo_sum(ip6 + 8, ip6 + 24, len, next);
        assert_int_equal(inet_csum_fold(inet_csum_add(s, ip6 + 40, len)), want);
        /* stored, it verifies (for an even offset of the field, as in every protocol) */
        if (len >= 4) {
            ip6[42] = ip6[43] = 0;
            uint16_t c = ref_upper_csum(ip6 + 8, ip6 + 24, ip6 + 40, len, next);
            inet_store_be16(ip6 + 42, c);
            assert_int_equal(inet6_upper_csum(ip6, ip6 + 40, len, next), 0);
        }
    }
    /* The pseudo-header's length is 32 bits: around 65536 its upper half joins the sum. */
    static const uint8_t a[16] = A6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1);
    static const uint8_t b[16] = A6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 2);
    for (uint32_t len = 0xfff0; len < 0x10010; len++) {
        uint32_t s = inet6_pseudo_sum(a, b, len, INET6_NH_UDP);
        /* the folded pseudo sum against a reference over the pseudo-header alone */
        uint8_t ph[40] = { 0 };
        memcpy(ph, a, 16);
        memcpy(ph + 16, b, 16);
        inet_store_be32(ph + 32, len);
        ph[39] = INET6_NH_UDP;
        uint32_t r = 0;
        for (int i = 0; i < 40; i += 2) {
            r += (uint32_t)ph[i] << 8 | ph[i + 1];
        }
        assert_int_equal(inet_csum_fold(s), inet_csum_fold(r));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_address_classes),
        cmocka_unit_test(test_prefix_match),
        cmocka_unit_test(test_solicited_node),
        cmocka_unit_test(test_multicast_mac),
        cmocka_unit_test(test_link_local_from_mac),
        cmocka_unit_test(test_str_rfc5952),
        cmocka_unit_test(test_str_v4_mapped),
        cmocka_unit_test(test_str_against_libc),
        cmocka_unit_test(test_is_ext_header),
        cmocka_unit_test(test_walk_no_ext),
        cmocka_unit_test(test_walk_chain),
        cmocka_unit_test(test_walk_fragment),
        cmocka_unit_test(test_walk_truncated),
        cmocka_unit_test(test_walk_too_long),
        cmocka_unit_test(test_walk_hop_by_hop_not_first),
        cmocka_unit_test(test_walk_random),
        cmocka_unit_test(test_ipv6_header),
        cmocka_unit_test(test_upper_csum_known),
        cmocka_unit_test(test_upper_csum_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
