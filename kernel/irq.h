/*
 * kernel/irq.h: per-core interrupt vectors. Each core has its own table of handlers for vectors
 * IRQ_FIRST_VECTOR..IRQ_LAST_VECTOR, so the same vector number can mean different queues on
 * different cores (an MSI-X message names both the core and the vector). Handlers run with
 * interrupts off and must be short: the datapath polls; interrupts only wake a halted core.
 */
#ifndef WS_IRQ_H
#define WS_IRQ_H

#include <stdint.h>

#define IRQ_FIRST_VECTOR 0x40
#define IRQ_LAST_VECTOR 0x7F
#define IRQ_VECTORS (IRQ_LAST_VECTOR - IRQ_FIRST_VECTOR + 1)
#define IRQ_NAME_BYTES 16

typedef void (*irq_handler_fn)(void *arg);

struct irq_slot {
    irq_handler_fn fn; /* NULL: free */
    void *arg;
    uint64_t count; /* written by the owning core only */
    char name[IRQ_NAME_BYTES];
};

/* irq_alloc: reserve a vector on core `core` for fn(arg); returns the vector or -1 when that
 * core's table is full. Boot core, init time, before the target core can take it. */
int irq_alloc(unsigned core, irq_handler_fn fn, void *arg, const char *name);
/* irq_dispatch: called by trap_dispatch for vectors in range; true if a handler ran. */
int irq_dispatch(unsigned vector);
/* irq_wake_core: interrupt core `core` (VEC_WAKE), so that a halted core runs its loop and sees
 * what changed (drivers/nic/nic.c's port states). Any core; a no-op for a core not online. */
void irq_wake_core(unsigned core);
/* irq_slot_of: a core's slot for vector v (for counters), or NULL. */
const struct irq_slot *irq_slot_of(unsigned core, unsigned vector);

static inline void irq_enable(void)
{
    __asm__ volatile("sti" ::: "memory");
}

/* irq_wait: enable interrupts and halt in one step (sti's one-instruction shadow means an
 * interrupt pending at this point wakes the hlt instead of being taken before it), then
 * disable them again. */
static inline void irq_wait(void)
{
    __asm__ volatile("sti; hlt; cli" ::: "memory");
}

#endif
