/*
 * kernel/loop.h: the per-core run-to-completion loop, and the poller table it runs. The loop
 * knows no app and no driver: whatever must run on a core's pass registers a poller (WS_POLLER,
 * as iPXE's PERMANENT_PROCESS), beside the code it runs. One indirect call per poller per pass;
 * the per-packet path inside a poller stays direct calls.
 */
#ifndef WS_LOOP_H
#define WS_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "table.h"

/*
 * struct poller: one thing a core does on its pass. Every hook but poll may be NULL.
 *   order     passes run pollers by rising order (datapath first, console and timers last)
 *   runs_on   asked once per core, after loop_release: does this core run it? (NULL: all)
 *   poll      one bounded, non-blocking pass on `core`; returns the units of work it did
 *             (frames, buffers): 0 on every poller for poll.idle_us makes the core halt
 *   period_us 0: every pass; else at most once per period (housekeeping)
 *   arm       before a halt (adaptive mode): arm this poller's wake-ups, then say whether work
 *             is already waiting (true: the core does not halt)
 *   disarm    after the halt, or after a halt that arm called off
 *   wake_us   the longest this core may stay halted for this poller (0: no limit)
 *   awake_us  how long this core should keep polling after its last work for this poller,
 *             when that is longer than poll.idle_us (0: poll.idle_us): a poller that expects
 *             its next work soon (the sink while a test runs) spares it the halt and the wake
 */
struct poller {
    const char *name;
    int order;
    bool (*runs_on)(unsigned core);
    unsigned (*poll)(unsigned core);
    uint32_t period_us;
    bool (*arm)(unsigned core);
    void (*disarm)(unsigned core);
    uint32_t (*wake_us)(unsigned core);
    uint32_t (*awake_us)(unsigned core);
};

/* Orders of the pollers that exist: a new one picks its place among them. */
enum poller_order {
    POLLER_ORDER_FWD = 10,         /* apps/fwd: RX burst -> decide -> TX burst, every port */
    POLLER_ORDER_HANDOFF = 20,     /* buffers the sink core handed back */
    POLLER_ORDER_SINK = 30,        /* the sink core: lwIP and its services */
    POLLER_ORDER_NIC_IRQ = 40,     /* queue interrupts, armed for the halt */
    POLLER_ORDER_CONSOLE = 50,     /* console input and output */
    POLLER_ORDER_HOUSEKEEPING = 60, /* link state and hardware counters (drivers/nic) */
    POLLER_ORDER_STATS_WATCH = 70, /* per-second counter deltas */
};

/* WS_POLLER(id, .field = ..., ...): register a poller named `id` (an identifier). */
#define WS_POLLER(id, ...)                                                                         static const struct poller poller_##id WS_TABLE_ENTRY(ws_pollers) = { .name = #id,                                                                                 __VA_ARGS__ }

/* poller_on_core0: runs_on for what only the boot core does (console, housekeeping). */
static inline bool poller_on_core0(unsigned core)
{
    return core == 0;
}

/* core_loop: run this core's pollers, pass after pass; in adaptive mode halt after an idle
 * spell. Never returns; every core ends here. Application processors wait in it until
 * loop_release() before touching any port. */
void core_loop(void) __attribute__((noreturn));
/* loop_release: let every core start its datapath. Boot core, after all devices are up. */
void loop_release(void);
/* loop_init: a wake-up vector on each of ncores cores. Boot core, before loop_release. */
int loop_init(unsigned ncores);
/* loop_kick: wake `core` if it is halted (adaptive mode) because something was put on one of
 * its rings; costs one IPI per sleep. Any core. */
void loop_kick(unsigned core);

#endif
