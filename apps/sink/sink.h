/*
 * apps/sink/sink.h: the TCP/UDP sink. lwIP (NO_SYS, raw API) runs on one core, the sink core
 * (config sink.core); frames for the appliance's own addresses reach it from every core and
 * its buffers go back to their owners (docs/architecture.md, "The sink"). The services run on
 * lwIP's raw API in that core's context only: nothing here is called from any other core.
 */
#ifndef WS_SINK_H
#define WS_SINK_H

#include <stdbool.h>
#include <stdint.h>

enum sink_service {
    SINK_DISCARD, /* RFC 863, TCP and UDP 9 */
    SINK_ECHO,    /* RFC 862, TCP and UDP 7 */
    SINK_IPERF3,  /* iperf3 3.12 server personality, config sink.iperf3_port */
    SINK_NETPERF, /* netserver 2.7.0 personality, config sink.netperf_port */
    SINK_SERVICE_COUNT
};

/* One service's counters. Written by the sink core only; read by the console. Payload bytes
 * only (no headers). For discard/echo a "test" is one TCP connection or one UDP datagram. */
struct sink_service_stats {
    uint64_t tests_run;    /* tests (or connections) started */
    uint64_t tests_done;   /* ... that ended normally */
    uint64_t tests_failed; /* ... that ended in an error, a timeout or a vanished client */
    uint64_t refused;      /* clients turned away: over a configured bound, or busy */
    uint64_t active;       /* gauge: connections (control + data) held right now */
    uint64_t rx_bytes;
    uint64_t tx_bytes;
    uint64_t rx_datagrams; /* UDP payloads received (netperf's zero-length end marker is not) */
    uint64_t tx_datagrams;
    uint64_t protocol_errors; /* malformed control messages (bad cookie, bad JSON, bad type) */
    uint64_t rx_ignored;   /* UDP datagrams taken in but not measured (see sink_stats.c) */
};

extern struct sink_service_stats sink_stats[SINK_SERVICE_COUNT];

/* sink_now_ms: lwIP's clock (sys_now), milliseconds since boot, from the TSC. */
uint32_t sink_now_ms(void);

/* Service entry points, called on the sink core: _init once after lwIP is up (binds its
 * listeners per the config; a port of 0 means off), _poll on every pass of the sink core's
 * loop (deadlines, pacing of data the appliance sends). _poll returns true if it did work. */
void sink_basic_init(void); /* discard and echo */
void iperf3_init(void);
bool iperf3_poll(uint32_t now_ms);
void netperf_init(void);
bool netperf_poll(uint32_t now_ms);
/* For tests (tests/fuzz/fuzz_sink_services.c), read-only: the service holds nothing: every test
 * slot free, no connection pending or queued control byte. A slot left taken with no
 * connection behind it would lock clients out until its timeout, or for good. */
bool iperf3_idle(void);
bool netperf_idle(void);

#endif
