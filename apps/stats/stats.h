/*
 * apps/stats/stats.h: the counters a network engineer reads on the console: `ports`, `stats`,
 * `stats json`, `rings`, `regs`. Every counter is a per-core (or per-queue) uint64_t written by
 * one core and only summed here, on the console core; nothing here runs on the fast path.
 * docs/counters.md describes each counter and the JSON schema.
 */
#ifndef WS_STATS_H
#define WS_STATS_H

#define STATS_JSON_SCHEMA 1

void stats_cmd_ports(int argc, char **argv);
void stats_cmd_stats(int argc, char **argv);
void stats_cmd_rings(int argc, char **argv);
void stats_cmd_regs(int argc, char **argv);
void stats_cmd_clear(int argc, char **argv);
void stats_cmd_watch(int argc, char **argv);
/* stats_cmd_doc: the counter catalogue as Markdown tables (docs/counters.md is made from it). */
void stats_cmd_doc(int argc, char **argv);
/* stats_watch_poll: print per-second deltas when the watch interval has passed. Console core,
 * from its loop; returns at once when watch is off. */
void stats_watch_poll(void);

#endif
