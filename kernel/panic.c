/*
 * kernel/panic.c: fatal stops. The first core to panic sends an NMI to every other core (NMI
 * gets through even with interrupts off, SDM 3A 10.6.1), they park, and it then halts or reboots
 * per the baked config (`panic = halt|reboot`).
 */
#include "panic.h"

#include <stdarg.h>
#include <stdio.h>

#include "config.h"
#include "console.h"
#include "lapic.h"
#include "percpu.h"
#include "x86.h"

static volatile int panic_owner = -1; /* first core to panic; others just park */

bool panic_halt_requested(void)
{
    return panic_owner >= 0;
}

void panic_park_this_core(void)
{
    irq_disable();
    for (;;) {
        cpu_halt();
    }
}

void machine_reboot(void)
{
    irq_disable();
    /* 8042 keyboard controller "pulse reset line" (command 0xFE on port 0x64). */
    for (int i = 0; i < 100000 && (inb(0x64) & 0x02); i++) {
        cpu_relax();
    }
    outb(0x64, 0xFE);
    for (volatile int i = 0; i < 10000000; i++) {
    }
    /* Still here: load an empty IDT and fault; the triple fault resets the CPU. */
    struct {
        uint16_t limit;
        uint64_t base;
    } __attribute__((packed)) empty = { 0, 0 };
    __asm__ volatile("lidt %0; int3" : : "m"(empty));
    panic_park_this_core();
}

void panic_claim(void)
{
    int self = (int)this_cpu()->index;
    int expected = -1;

    if (!__atomic_compare_exchange_n(&panic_owner, &expected, self, false, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST) &&
        expected != self) {
        panic_park_this_core(); /* another core is already stopping the machine */
    }
}

void panic_stop_machine(void)
{
    panic_claim();
    lapic_send_nmi_all_but_self();
    if (CONFIG_PANIC_REBOOT) {
        console_write_panic("panic: rebooting (config panic=reboot)\n", 39);
        machine_reboot();
    }
    console_write_panic("panic: all cores halted (config panic=halt)\n", 44);
    panic_park_this_core();
}

void panic(const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    int n = snprintf(buf, sizeof(buf), "\npanic: core %u: ", this_cpu()->index);

    va_start(ap, fmt);
    n += vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof(buf) - 1) {
        n = sizeof(buf) - 2;
    }
    buf[n++] = '\n';
    console_write_panic(buf, (size_t)n);
    panic_stop_machine();
}
