/* apps/stats/fmt.c: counter formatting and arithmetic (see header). */
#include "fmt.h"

size_t fmt_u64_grouped(char *out, uint64_t v)
{
    char rev[FMT_U64_GROUPED_BYTES];
    size_t n = 0;
    unsigned digits = 0;

    do {
        if (digits != 0 && digits % 3 == 0) {
            rev[n++] = ',';
        }
        rev[n++] = (char)('0' + v % 10);
        v /= 10;
        digits++;
    } while (v != 0);
    for (size_t i = 0; i < n; i++) {
        out[i] = rev[n - 1 - i];
    }
    out[n] = '\0';
    return n;
}

uint64_t fmt_rate_per_sec(uint64_t delta, uint64_t elapsed_ns)
{
    if (elapsed_ns == 0) {
        return 0;
    }
    unsigned __int128 r = ((unsigned __int128)delta * 1000000000ULL + elapsed_ns / 2) / elapsed_ns;
    return r > ~0ULL ? ~0ULL : (uint64_t)r;
}

uint64_t stats_sum_u64(const void *base, size_t stride, size_t n, size_t offset)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += *(const volatile uint64_t *)((const char *)base + i * stride + offset);
    }
    return sum;
}
