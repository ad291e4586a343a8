/* net/lwip-port/siphash.c: SipHash-2-4 over 64-bit words (see header). */
#include "siphash.h"

static inline uint64_t siphash_rotl(uint64_t x, int b)
{
    return (x << b) | (x >> (64 - b));
}

static void siphash_round(uint64_t v[4])
{
    v[0] += v[1];
    v[1] = siphash_rotl(v[1], 13);
    v[1] ^= v[0];
    v[0] = siphash_rotl(v[0], 32);
    v[2] += v[3];
    v[3] = siphash_rotl(v[3], 16);
    v[3] ^= v[2];
    v[0] += v[3];
    v[3] = siphash_rotl(v[3], 21);
    v[3] ^= v[0];
    v[2] += v[1];
    v[1] = siphash_rotl(v[1], 17);
    v[1] ^= v[2];
    v[2] = siphash_rotl(v[2], 32);
}

uint64_t siphash24(const uint64_t key[2], const uint64_t *m, unsigned n)
{
    uint64_t v[4] = { key[0] ^ 0x736f6d6570736575ULL, key[1] ^ 0x646f72616e646f6dULL,
                      key[0] ^ 0x6c7967656e657261ULL, key[1] ^ 0x7465646279746573ULL };
    /* The final block: the message length mod 256 in its top byte, no tail bytes (whole words). */
    uint64_t last = (uint64_t)(n * 8) << 56;
    for (unsigned i = 0; i <= n; i++) {
        uint64_t w = i < n ? m[i] : last;
        v[3] ^= w;
        siphash_round(v);
        siphash_round(v);
        v[0] ^= w;
    }
    v[2] ^= 0xff;
    for (int i = 0; i < 4; i++) {
        siphash_round(v);
    }
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}
