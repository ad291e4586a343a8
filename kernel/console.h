/*
 * kernel/console.h: the serial console. Output from any core, one whole line at a time (a
 * line from one core never interleaves with another's); input polled by the console core
 * (core 0) inside its loop, edited by kernel/console_line.c, dispatched to kernel/commands.c.
 */
#ifndef WS_CONSOLE_H
#define WS_CONSOLE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* console_init: set up the console's UART: the baked config's if one answers there, else
 * COM1 or COM2, else none (output dropped, input never polled). Boot core, before any output. */
void console_init(void);
/* console_adopt_spcr: move to the UART the firmware's SPCR table names (port 0: none; baud 0:
 * keep the speed), if one answers there. Boot core, after the ACPI tables are read. */
void console_adopt_spcr(uint16_t port, uint32_t baud);
/* console_report: one line: which UART, what speed, chosen how. */
void console_report(void);
/* kprintf: format and write to the console as one unit. Any core; not on the fast path. */
int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int kvprintf(const char *fmt, va_list ap);
/* console_write: write raw bytes as one unit. Any core. */
void console_write(const char *s, size_t len);
/* console_write_panic: write without waiting long for the lock (a panicking core must print
 * even if another core died holding it). */
void console_write_panic(const char *s, size_t len);
/* console_poll: handle any received bytes; runs commands. Console core only, non-blocking. */
void console_poll(void);
/* console_start_async: from now on output is queued and drained by console_poll (the console
 * core's loop); before, it is written through. Console core, entering its loop. */
void console_start_async(void);
/* console_flush: write out everything queued, waiting for the UART (before a reboot). */
void console_flush(void);
/* console_output_pending: bytes wait to be written (the console core must not halt). */
bool console_output_pending(void);
/* console_output_dropped: bytes lost because the output ring was full. */
uint64_t console_output_dropped(void);
/* console_input_recent: input arrived lately (core 0 then wakes more often). Console core. */
bool console_input_recent(void);
/* console_prompt: print the prompt (after the ready line). */
void console_prompt(void);

#endif
