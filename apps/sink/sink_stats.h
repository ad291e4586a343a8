/* apps/sink/sink_stats.h: the sink's counters, for the console's walk (apps/stats): groups of
 * named counters, each with a doc string for `stats doc`. Keeps lwIP's headers out of the
 * console code. Read on the console core while the sink core writes: every value is one
 * aligned load, so a reading is a recent value, never a torn one. */
#ifndef WS_SINK_STATS_H
#define WS_SINK_STATS_H

#include <stdbool.h>
#include <stdint.h>

struct sink_stats_sink {
    void *ctx;
    void (*group)(void *ctx, const char *name, bool begin); /* begin, then end, of a group */
    void (*counter)(void *ctx, const char *name, uint64_t value);
    void (*attr)(void *ctx, const char *name, uint64_t value); /* a gauge, not a counter */
};

/* sink_stats_walk: every sink counter, in a fixed order; nothing when the sink is off. */
void sink_stats_walk(const struct sink_stats_sink *s);
/* sink_stats_doc: one call per counter (group "" prefix included in name). */
void sink_stats_doc(void (*row)(const char *group, const char *name, const char *doc));

#endif
