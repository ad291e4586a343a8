/*
 * kernel/spinlock.h: ticket spinlock for slow paths only (console output, init). Records the
 * owner core; taking a lock the same core already holds is a bug and panics rather than hangs.
 */
#ifndef WS_SPINLOCK_H
#define WS_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct spinlock {
    volatile uint32_t next;  /* ticket dispenser */
    volatile uint32_t owner; /* ticket being served */
    volatile int holder;     /* core index holding it, -1 if free */
    const char *name;
};

#define SPINLOCK_INIT(n) { 0, 0, -1, (n) }

void spin_lock(struct spinlock *l);
void spin_unlock(struct spinlock *l);
/* spin_lock_timeout: like spin_lock but gives up after max_spins; returns true if taken. */
bool spin_lock_timeout(struct spinlock *l, uint64_t max_spins);

#endif
