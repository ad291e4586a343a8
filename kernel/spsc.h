/*
 * kernel/spsc.h: a single-producer single-consumer ring of pointers between two cores. The
 * producer writes only `head`, the consumer only `tail`, each on its own cache line, so the
 * two cores share nothing else; acquire/release ordering makes a slot's contents visible
 * before the index that publishes it. Capacity is a power of two fixed at init.
 */
#ifndef WS_SPSC_H
#define WS_SPSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct spsc_ring {
    uint32_t head __attribute__((aligned(64))); /* next slot to fill: producer only */
    uint32_t tail __attribute__((aligned(64))); /* next slot to take: consumer only */
    void **slot __attribute__((aligned(64)));   /* read-only after init */
    uint32_t mask;
};

/* spsc_init: a ring over caller memory of n pointers; n must be a power of two. */
static inline void spsc_init(struct spsc_ring *r, void **slots, uint32_t n)
{
    r->head = 0;
    r->tail = 0;
    r->slot = slots;
    r->mask = n - 1;
}

/* spsc_push: producer side; false when full (the caller keeps the item). */
static inline bool spsc_push(struct spsc_ring *r, void *item)
{
    uint32_t head = r->head;
    uint32_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
    if (head - tail > r->mask) {
        return false;
    }
    r->slot[head & r->mask] = item;
    __atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
    return true;
}

/* spsc_pop_burst: consumer side; up to max items into out, returns how many. */
static inline unsigned spsc_pop_burst(struct spsc_ring *r, void **out, unsigned max)
{
    uint32_t tail = r->tail;
    uint32_t avail = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - tail;
    unsigned n = avail < max ? avail : max;
    for (unsigned i = 0; i < n; i++) {
        out[i] = r->slot[(tail + i) & r->mask];
    }
    __atomic_store_n(&r->tail, tail + n, __ATOMIC_RELEASE);
    return n;
}

/* spsc_count: items waiting (either side may ask; the answer may be stale at once). */
static inline uint32_t spsc_count(const struct spsc_ring *r)
{
    return __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
}

#endif
