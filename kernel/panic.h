/* kernel/panic.h: stopping the machine on a broken invariant, and rebooting. */
#ifndef WS_PANIC_H
#define WS_PANIC_H

#include <stdbool.h>

/* panic: print core, caller and message on the console, stop every core, then halt or reboot
 * as the baked config says. Any core, any context. */
void panic(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* panic_claim: become the one core that reports and stops the machine, or, if another core
 * already is, park this one (an NMI sent to every core, a fault on two cores at once: one
 * register dump, not several interleaved). */
void panic_claim(void);
/* panic_stop_machine: the end of every fatal path (panic, unhandled exception). */
void panic_stop_machine(void) __attribute__((noreturn));
/* machine_reboot: reset the machine (keyboard controller, then triple fault). */
void machine_reboot(void) __attribute__((noreturn));
/* panic_halt_requested: true once some core has stopped the machine (read by the NMI handler). */
bool panic_halt_requested(void);
/* panic_park_this_core: interrupts off, halt forever (NMI-safe). */
void panic_park_this_core(void) __attribute__((noreturn));

#endif
