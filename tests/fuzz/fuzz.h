/*
 * tests/fuzz/fuzz.h: what every libFuzzer harness here shares: a reader that takes bytes from
 * the fuzzer's input (zeros once it runs out, so every input means something) and FUZZ_CHECK,
 * which names the broken invariant and aborts, so libFuzzer saves the input as a crash.
 * Harnesses keep no state between inputs: everything they use is set up inside the call.
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

#endif
