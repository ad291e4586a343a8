/* drivers/nic/rss.c: the RSS Toeplitz hash (Microsoft RSS specification, "RSS Hashing Functions"). */
#include "drivers/nic/rss.h"

const uint8_t rss_default_key[RSS_KEY_BYTES] = {
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
    0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
    0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
    0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* rss_put_be: v as n bytes, most significant first (the hash input is in wire order). */
static void rss_put_be(uint8_t *p, uint32_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
    }
}

static uint8_t rss_key_byte(const uint8_t *key, size_t key_len, size_t i)
{
    return i < key_len ? key[i] : 0;
}

/*
 * The specification's ComputeHash: for each input bit b, left to right, if b is set XOR in the
 * left-most 32 bits of K, then shift K left by one. Here `window` holds those left-most 32 bits
 * and the key byte 4 ahead of the input byte supplies the bits shifted in.
 */
uint32_t rss_toeplitz(const uint8_t *key, size_t key_len, const uint8_t *in, size_t len)
{
    uint32_t window = 0;
    for (size_t i = 0; i < 4; i++) {
        window = window << 8 | rss_key_byte(key, key_len, i);
    }

    uint32_t hash = 0;
    for (size_t i = 0; i < len; i++) {
        uint8_t next = rss_key_byte(key, key_len, i + 4);
        for (int bit = 7; bit >= 0; bit--) {
            if ((in[i] >> bit) & 1) {
                hash ^= window;
            }
            window = window << 1 | ((next >> bit) & 1);
        }
    }
    return hash;
}

uint32_t rss_hash_ipv4(const uint8_t key[RSS_KEY_BYTES], uint32_t src, uint32_t dst)
{
    uint8_t in[8];
    rss_put_be(&in[0], src, 4);
    rss_put_be(&in[4], dst, 4);
    return rss_toeplitz(key, RSS_KEY_BYTES, in, sizeof(in));
}

uint32_t rss_hash_ipv4_l4(const uint8_t key[RSS_KEY_BYTES], uint32_t src, uint32_t dst,
                          uint16_t sport, uint16_t dport)
{
    uint8_t in[12];
    rss_put_be(&in[0], src, 4);
    rss_put_be(&in[4], dst, 4);
    rss_put_be(&in[8], sport, 2);
    rss_put_be(&in[10], dport, 2);
    return rss_toeplitz(key, RSS_KEY_BYTES, in, sizeof(in));
}
