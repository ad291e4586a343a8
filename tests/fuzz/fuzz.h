/*
 * tests/fuzz/fuzz.h: what every libFuzzer harness here shares: a reader that takes bytes from
 * the fuzzer's input (zeros once it runs out, so every input means something) and FUZZ_CHECK,
 * which names the broken invariant and aborts, so libFuzzer saves the input as a crash.
 * Most harnesses keep no state between inputs; those of boot-once firmware say how they do
 * (fuzz_sink.h, fuzz_ixgbe_model.c).
 */
#ifndef WS_FUZZ_H
#define WS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* FUZZ_CHECK: an invariant of the code under test; its failure is a finding, never noise. */
#define FUZZ_CHECK(cond)                                                                        \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond);        \
            abort();                                                                            \
        }                                                                                       \
    } while (0)

/* FUZZ_UNTRACED: for a harness's own checking code (reference models, scans): libFuzzer's
 * compare tracing there would cost more than the code under test and guide the fuzzer
 * nowhere. noinline, or the attribute is lost in the instrumented caller. */
#define FUZZ_UNTRACED __attribute__((noinline, no_sanitize("coverage")))

/* The unread part of the input. */
struct fuzz_in {
    const uint8_t *p;
    size_t n;
};

static inline uint8_t fuzz_u8(struct fuzz_in *in)
{
    if (in->n == 0) {
        return 0;
    }
    in->n--;
    return *in->p++;
}

static inline uint16_t fuzz_u16(struct fuzz_in *in)
{
    uint16_t hi = fuzz_u8(in);
    return (uint16_t)(hi << 8 | fuzz_u8(in));
}

static inline uint32_t fuzz_u32(struct fuzz_in *in)
{
    uint32_t hi = fuzz_u16(in);
    return hi << 16 | fuzz_u16(in);
}

/* fuzz_alloc_copy: an exactly-sized heap copy of n bytes (n may be 0), so that ASan reports a
 * read or write one byte past the end. Aborts when out of memory (a harness fault). */
static inline uint8_t *fuzz_alloc_copy(const uint8_t *src, size_t n, size_t copy)
{
    uint8_t *p = malloc(n);
    if (p == NULL && n != 0) {
        abort();
    }
    if (copy > n) {
        copy = n;
    }
    if (copy != 0) {
        memcpy(p, src, copy);
    }
    return p;
}

/* fuzz_csum: the Internet checksum (RFC 1071 section 4.1, 16 bits at a time), written apart
 * from net/inet.c so that a harness does not check the code under test against itself. */
FUZZ_UNTRACED static inline uint16_t fuzz_csum(const uint8_t *p, size_t len)
{
    uint32_t sum = 0;
    for (size_t i = 0; i + 1 < len; i += 2) {
        sum += (uint32_t)p[i] << 8 | p[i + 1];
    }
    if (len & 1) {
        sum += (uint32_t)p[len - 1] << 8;
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return (uint16_t)~sum;
}

/*
 * fuzz_fix_checksums: in an Ethernet/IPv4 frame of len bytes, rewrite the ICMP checksum (icmp:
 * over the whole message, when the total length fits the frame) and then the IPv4 header
 * checksum (ip), where the bytes exist. A mutated frame almost never carries valid checksums,
 * and a fuzzer cannot fix them by itself: without this, everything behind the checksum tests
 * stays out of reach. The harnesses let the input choose, so bad checksums are fuzzed too.
 */
static inline void fuzz_fix_checksums(uint8_t *f, size_t len, int ip, int icmp)
{
    if (len < 14 + 20 || f[12] != 0x08 || f[13] != 0x00) {
        return;
    }
    size_t hlen = (size_t)(f[14] & 0x0f) * 4;
    if (hlen < 20 || 14 + hlen > len) {
        return;
    }
    size_t total = (size_t)f[16] << 8 | f[17];
    if (icmp && f[23] == 1 && total >= hlen + 4 && 14 + total <= len) {
        uint8_t *m = f + 14 + hlen;
        m[2] = m[3] = 0;
        uint16_t c = fuzz_csum(m, total - hlen);
        m[2] = (uint8_t)(c >> 8);
        m[3] = (uint8_t)c;
    }
    if (ip) {
        f[24] = f[25] = 0;
        uint16_t c = fuzz_csum(f + 14, hlen);
        f[24] = (uint8_t)(c >> 8);
        f[25] = (uint8_t)c;
    }
}

#endif
