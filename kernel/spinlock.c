/* kernel/spinlock.c: ticket spinlock with owner tracking (slow paths only; see header). */
#include "spinlock.h"

#include "panic.h"
#include "percpu.h"
#include "x86.h"

static int spin_self(void)
{
    return (int)this_cpu()->index;
}

void spin_lock(struct spinlock *l)
{
    if (l->holder == spin_self()) {
        panic("spinlock '%s' taken twice by core %d", l->name, spin_self());
    }
    uint32_t ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
    while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket) {
        cpu_relax();
    }
    l->holder = spin_self();
}

bool spin_lock_timeout(struct spinlock *l, uint64_t max_spins)
{
    for (uint64_t i = 0; i < max_spins; i++) {
        uint32_t owner = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
        uint32_t want = owner;
        /* Take a ticket only when it would be served at once, so giving up leaves no hole. */
        if (__atomic_load_n(&l->next, __ATOMIC_RELAXED) == owner &&
            __atomic_compare_exchange_n(&l->next, &want, owner + 1, false, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED)) {
            l->holder = spin_self();
            return true;
        }
        cpu_relax();
    }
    return false;
}

void spin_unlock(struct spinlock *l)
{
    l->holder = -1;
    __atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
}
