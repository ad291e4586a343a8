/* apps/sink/sink_core.h: the sink as the loop and the console see it (see sink.h for the
 * services' side). */
#ifndef WS_SINK_CORE_H
#define WS_SINK_CORE_H

#include <stdbool.h>
#include <stdint.h>

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
