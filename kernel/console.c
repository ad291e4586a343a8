/* kernel/console.c: console output (locked per write) and input dispatch. See console.h. */
#include "console.h"

#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "config.h"
#include "console_line.h"
#include "loop.h"
#include "percpu.h"
#include "spinlock.h"
#include "time.h"
#include "uart.h"

#define CONSOLE_PROMPT "wirespeed> "
#define CONSOLE_FMT_BYTES 512
/* Bytes handled per poll: bounds the time the console takes from core 0's loop. */
#define CONSOLE_POLL_BYTES 64
/* ~ a few ms of spinning: long enough for any sane holder, short enough to still print. */
#define CONSOLE_PANIC_LOCK_SPINS 10000000ULL

/* Output is buffered once the console core runs its loop: a core that prints only copies bytes
 * into this ring (under the lock, briefly), and the console core moves them to the UART as its
 * FIFO has room, so no core ever waits for the serial line (at 115200 baud a 2 KB burst would
 * otherwise hold a forwarding core for 180 ms). A full ring drops bytes and counts them. */
#define CONSOLE_TX_RING_BYTES (256 * 1024)

static struct spinlock console_lock = SPINLOCK_INIT("console");
static struct console_line console_input; /* owned by the console core */
static bool console_input_ready;
/* guarded by console_lock */
static char console_tx_ring[CONSOLE_TX_RING_BYTES];
static uint32_t console_tx_head, console_tx_tail; /* free-running; head - tail = bytes queued */
static bool console_async;
static uint64_t console_dropped_bytes;

/*
 * The console's UART, chosen at console_init: the configured port if a 16550 answers there,
 * else the first of COM1 and COM2 that does (a BMC's Serial-over-LAN is usually COM2); the
 * firmware's SPCR may then move it (console_adopt_spcr). None at all: output is dropped and
 * input never polled, so no core reads the all-ones an absent port returns as "data".
 */
#define CONSOLE_COM1 0x3F8
#define CONSOLE_COM2 0x2F8
static uint16_t console_port; /* 0: no UART */
static uint32_t console_baud;
static const char *console_chosen_by = "none answers";

static void console_put_sync(char c)
{
    if (c == '\n') {
        uart_putc(console_port, '\r');
    }
    uart_putc(console_port, (uint8_t)c);
}

/* console_enqueue: add c (as CR LF for LF) to the ring, or count it dropped. Lock held. */
static void console_enqueue(char c)
{
    uint32_t need = c == '\n' ? 2 : 1;
    if (CONSOLE_TX_RING_BYTES - (console_tx_head - console_tx_tail) < need) {
        console_dropped_bytes++;
        return;
    }
    if (c == '\n') {
        console_tx_ring[console_tx_head++ % CONSOLE_TX_RING_BYTES] = '\r';
    }
    console_tx_ring[console_tx_head++ % CONSOLE_TX_RING_BYTES] = c;
}

static void console_put_bytes(const char *s, size_t len)
{
    if (console_port == 0) {
        return; /* no UART: nothing is queued, so nothing waits to be drained */
    }
    for (size_t i = 0; i < len; i++) {
        if (console_async) {
            console_enqueue(s[i]);
        } else {
            console_put_sync(s[i]);
        }
    }
}

/* console_drain_sync: everything queued goes out now, waiting for the UART. Lock held. */
static void console_drain_sync(void)
{
    while (console_tx_tail != console_tx_head) {
        uart_putc(console_port,
                  (uint8_t)console_tx_ring[console_tx_tail++ % CONSOLE_TX_RING_BYTES]);
    }
}

void console_flush(void)
{
    spin_lock(&console_lock);
    console_drain_sync();
    spin_unlock(&console_lock);
}

void console_start_async(void)
{
    spin_lock(&console_lock);
    console_async = true;
    spin_unlock(&console_lock);
}

bool console_output_pending(void)
{
    return console_tx_head != console_tx_tail;
}

uint64_t console_output_dropped(void)
{
    return console_dropped_bytes;
}

/* console_drain: move what fits into the UART's FIFO, without waiting. Console core. */
static void console_drain(void)
{
    if (console_tx_head == console_tx_tail) {
        return;
    }
    spin_lock(&console_lock);
    unsigned room = uart_tx_fifo_room(console_port);
    while (room-- > 0 && console_tx_tail != console_tx_head) {
        uart_putc_nowait(console_port,
                         (uint8_t)console_tx_ring[console_tx_tail++ % CONSOLE_TX_RING_BYTES]);
    }
    spin_unlock(&console_lock);
}

void console_init(void)
{
    static const uint16_t candidates[] = { CONFIG_CONSOLE_PORT, CONSOLE_COM1, CONSOLE_COM2 };
    for (unsigned i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
        if (uart_present(candidates[i])) {
            console_port = candidates[i];
            console_chosen_by = i == 0 ? "the config" : "probing COM1, COM2";
            break;
        }
    }
    console_baud = CONFIG_CONSOLE_BAUD;
    if (console_port != 0) {
        uart_init(console_port, console_baud);
    }
    console_line_reset(&console_input);
    console_input_ready = console_port != 0;
}

void console_adopt_spcr(uint16_t port, uint32_t baud)
{
    if (port == 0 || (port == console_port && (baud == 0 || baud == console_baud))) {
        return;
    }
    if (!uart_present(port)) {
        kprintf("console: the firmware's SPCR names a UART at 0x%x that does not answer; "
                "staying where it is\n", port);
        return;
    }
    kprintf("console: moving to 0x%x%s, as the firmware's SPCR says\n", port,
            port == console_port ? " (new speed)" : "");
    console_flush();
    console_port = port;
    console_baud = baud ? baud : console_baud;
    console_chosen_by = "the firmware's SPCR";
    uart_init(console_port, console_baud);
    console_input_ready = true;
}

void console_report(void)
{
    if (console_port == 0) {
        return; /* nobody would read it */
    }
    const char *name = console_port == CONSOLE_COM1 ? "COM1 " : console_port == CONSOLE_COM2
                                                                    ? "COM2 "
                                                                    : "";
    kprintf("console: %s0x%x at %u 8N1, chosen by %s\n", name, console_port,
            (unsigned)console_baud, console_chosen_by);
}

void console_write(const char *s, size_t len)
{
    spin_lock(&console_lock);
    console_put_bytes(s, len);
    spin_unlock(&console_lock);
}

void console_write_panic(const char *s, size_t len)
{
    bool locked = spin_lock_timeout(&console_lock, CONSOLE_PANIC_LOCK_SPINS);
    console_drain_sync(); /* what was queued before, in order */
    console_async = false;  /* from now on, write through: the machine is stopping */
    console_put_bytes(s, len);
    if (locked) {
        spin_unlock(&console_lock);
    }
}

int kvprintf(const char *fmt, va_list ap)
{
    char buf[CONSOLE_FMT_BYTES];
    int n = vsnprintf(buf, sizeof(buf), fmt, ap);

    if (n < 0) {
        return n;
    }
    if ((size_t)n >= sizeof(buf)) {
        n = sizeof(buf) - 1; /* truncated: still print what fits, as one unit */
    }
    console_write(buf, (size_t)n);
    return n;
}

int kprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = kvprintf(fmt, ap);
    va_end(ap);
    return n;
}

void console_prompt(void)
{
    console_write(CONSOLE_PROMPT, strlen(CONSOLE_PROMPT));
}

static void console_line_finished(enum cline_action a)
{
    console_write("\n", 1);
    if (a == CLINE_TOO_LONG) {
        kprintf("error: line longer than %d characters, ignored\n", WS_CONSOLE_LINE_BYTES - 1);
    } else if (a == CLINE_BAD_BYTE) {
        kprintf("error: control or non-ASCII byte 0x%02x in line, ignored\n",
                console_input.bad_byte);
    } else {
        commands_run_line(console_input.buf);
    }
    console_line_reset(&console_input);
    console_prompt();
}

static void console_handle_byte(uint8_t c)
{
    enum cline_action a = console_line_feed(&console_input, c);
    char ch = (char)c;

    switch (a) {
    case CLINE_NOTHING:
        break;
    case CLINE_ECHO:
        console_write(&ch, 1);
        break;
    case CLINE_ERASE:
        console_write("\b \b", 3);
        break;
    case CLINE_KILL:
        console_write("^C\n", 3);
        console_prompt();
        break;
    default:
        console_line_finished(a);
        break;
    }
}

#define CONSOLE_TYPING_NS 100000000ULL /* input within this long counts as "someone typing" */
static uint64_t console_last_input_ns;  /* console core only */

bool console_input_recent(void)
{
    return console_last_input_ns != 0 && time_ns() - console_last_input_ns < CONSOLE_TYPING_NS;
}

void console_poll(void)
{
    console_drain();
    if (!console_input_ready) {
        return;
    }
    for (int i = 0; i < CONSOLE_POLL_BYTES; i++) {
        int c = uart_getc(console_port);
        if (c < 0) {
            return;
        }
        console_last_input_ns = time_ns();
        console_handle_byte((uint8_t)c);
    }
}

/* A halted core 0 still answers the console within 10 ms; while someone is typing (input in
 * the last 100 ms) it wakes every 1 ms: a 16550's 16-byte FIFO fills in 1.4 ms at 115200 baud,
 * and a halted core must not let it overrun. */
#define CONSOLE_WAKE_US 10000
#define CONSOLE_TYPING_WAKE_US 1000

static unsigned console_poll_core(unsigned core)
{
    (void)core;
    console_poll();
    return 0;
}

static bool console_arm(unsigned core)
{
    (void)core;
    return console_output_pending(); /* the console core keeps draining output to the UART */
}

static uint32_t console_wake_us(unsigned core)
{
    (void)core;
    return console_input_recent() ? CONSOLE_TYPING_WAKE_US : CONSOLE_WAKE_US;
}

WS_POLLER(console, .order = POLLER_ORDER_CONSOLE, .runs_on = poller_on_core0,
          .poll = console_poll_core, .arm = console_arm, .wake_us = console_wake_us);
