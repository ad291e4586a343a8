/* apps/sink/sink_core.h: the sink as the loop and the console see it (see sink.h for the
 * services' side). */
#ifndef WS_SINK_CORE_H
#define WS_SINK_CORE_H

#include <stdbool.h>
#include <stdint.h>

/* TCP counters the hook sees that lwIP's MIB-II counters do not have. Sink core only. */
struct sink_tcp_stats {
    uint64_t out_of_order;     /* data segments beyond the next expected byte */
    uint64_t dup_acks;         /* duplicate ACKs received (RFC 5681) */
    uint64_t resets_received;  /* segments with RST for a known connection */
    uint64_t half_open_evicted; /* SYN_RCVD connections reset to let a new SYN in (flood) */
    uint64_t persist_stopped;  /* persist timers lwIP left running with nothing to send,
                                * stopped before they reach its assertion (sink.c) */
};
extern struct sink_tcp_stats sink_tcp_stats;

/* sink_init: choose the core, start lwIP, its interfaces and the services. Boot core, after
 * the ports and the forwarder are up and before the loops are released. */
int sink_init(unsigned ncores);
/* sink_running: lwIP and the services are up. */
bool sink_running(void);
/* sink_is_core: true on the core that runs lwIP. */
bool sink_is_core(unsigned core);
/* sink_poll: one pass of the sink core (see sink.c); true if it did anything. */
bool sink_poll(void);
/* sink_test_running: some service holds a connection (the sink core then wakes more often). */
bool sink_test_running(void);
/* sink_has_work: frames are waiting for the sink core (checked before it halts). */
bool sink_has_work(void);

#endif
