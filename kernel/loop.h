/* kernel/loop.h: the per-core run-to-completion loop. */
#ifndef WS_LOOP_H
#define WS_LOOP_H

/* core_loop: poll this core's queues on every port, then (core 0) the console and
 * housekeeping; in adaptive mode halt after an idle spell. Never returns; every core ends here.
 * Application processors wait in it until loop_release() before touching any port. */
void core_loop(void) __attribute__((noreturn));
/* loop_release: let every core start its datapath. Boot core, after all devices are up. */
void loop_release(void);
/* loop_init: a wake-up vector on each of ncores cores. Boot core, before loop_release. */
int loop_init(unsigned ncores);
/* loop_kick: wake `core` if it is halted (adaptive mode) because something was put on one of
 * its rings; costs one IPI per sleep. Any core. */
void loop_kick(unsigned core);

#endif
