/* kernel/irq.c: per-core interrupt vector tables (see header). */
#include "irq.h"

#include <string.h>

#include "lapic.h"
#include "param.h"
#include "percpu.h"
#include "trap.h"

/* One table per core; a core's table is written at init by the boot core, then only its
 * counters change, and only on that core. */
static struct irq_slot irq_tables[WS_MAX_CPUS][IRQ_VECTORS];

int irq_alloc(unsigned core, irq_handler_fn fn, void *arg, const char *name)
{
    if (core >= WS_MAX_CPUS) {
        return -1;
    }
    for (unsigned i = 0; i < IRQ_VECTORS; i++) {
        struct irq_slot *s = &irq_tables[core][i];
        if (s->fn == NULL) {
            s->arg = arg;
            s->count = 0;
            strncpy(s->name, name, sizeof(s->name) - 1);
            s->fn = fn;
            return (int)(IRQ_FIRST_VECTOR + i);
        }
    }
    return -1;
}

int irq_dispatch(unsigned vector)
{
    if (vector < IRQ_FIRST_VECTOR || vector > IRQ_LAST_VECTOR) {
        return 0;
    }
    struct irq_slot *s = &irq_tables[this_cpu()->index][vector - IRQ_FIRST_VECTOR];
    if (s->fn == NULL) {
        return 0;
    }
    s->count++;
    s->fn(s->arg);
    lapic_eoi();
    return 1;
}

void irq_wake_core(unsigned core)
{
    if (core < WS_MAX_CPUS && percpu_blocks[core].online) {
        lapic_send_fixed(percpu_blocks[core].apic_id, VEC_WAKE);
    }
}

const struct irq_slot *irq_slot_of(unsigned core, unsigned vector)
{
    if (core >= WS_MAX_CPUS || vector < IRQ_FIRST_VECTOR || vector > IRQ_LAST_VECTOR) {
        return NULL;
    }
    return &irq_tables[core][vector - IRQ_FIRST_VECTOR];
}
