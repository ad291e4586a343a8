/*
 * apps/stats/fmt.h: number formatting for the console's counter views, and hardware counter
 * arithmetic. Pure code: host-tested.
 */
#ifndef WS_STATS_FMT_H
#define WS_STATS_FMT_H

#include <stddef.h>
#include <stdint.h>

/* fmt_u64_grouped: v with thousands separators ("18,446,744,073,709,551,615"); returns length.
 * out must hold at least FMT_U64_GROUPED_BYTES. */
#define FMT_U64_GROUPED_BYTES 27
size_t fmt_u64_grouped(char *out, uint64_t v);

/* fmt_rate_per_sec: delta events over elapsed_ns as events per second, rounded to nearest;
 * 0 when elapsed_ns is 0. Exact for every 64-bit delta (128-bit intermediate). */
uint64_t fmt_rate_per_sec(uint64_t delta, uint64_t elapsed_ns);

/* hwcount_delta: how much a free-running hardware counter `bits` wide (32, 36, 48 ...) advanced
 * from prev to now, across at most one wrap. Registers that are not clear-on-read are read
 * this way into 64-bit totals (total += hwcount_delta(prev, now, bits); prev = now). */
static inline uint64_t hwcount_delta(uint64_t prev, uint64_t now, unsigned bits)
{
    uint64_t mask = bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
    return (now - prev) & mask;
}

/* stats_sum_u64: sum of the uint64_t at `offset` in n structs `stride` bytes apart (counters
 * written per core, summed only when read). */
uint64_t stats_sum_u64(const void *base, size_t stride, size_t n, size_t offset);

#endif
