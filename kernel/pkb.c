/*
 * kernel/pkb.c: per-core packet-buffer pools (API and rules in kernel/pkb.h). A pool is a LIFO stack
 * of free buffers: alloc pops, free pushes, both O(1), and the buffer freed last is handed out
 * first, while its lines are still in this core's cache.
 */
#include "pkb.h"

#include <stddef.h>

void pkb_pool_init(struct pkb_pool *pool, uint16_t owner, struct pkb *meta, struct pkb **stack,
                   uint8_t *data, uint32_t n)
{
    pool->data_base = data;
    pool->free = stack;
    pool->nfree = n;
    pool->size = n;
    pool->owner = owner;
    pool->alloc_fail = 0;
    pool->foreign_free = 0;
    pool->double_free = 0;

    for (uint32_t i = 0; i < n; i++) {
        struct pkb *p = &meta[i];

        p->data = data + (size_t)i * PKB_DATA_BYTES;
        p->len = 0;
        p->port = 0;
        p->queue = 0;
        p->owner = owner;
        p->rx_word = 0;
        p->pool = pool;
        /* Stacked in reverse so that buffers come out in address order: easier to read in a
         * debugger, and the first ring fill walks memory forward. */
        stack[n - 1 - i] = p;
    }
}

struct pkb *pkb_alloc(struct pkb_pool *pool)
{
    if (pool->nfree == 0) {
        pool->alloc_fail++;
        return NULL;
    }
    return pool->free[--pool->nfree];
}

void pkb_free(struct pkb *p, uint16_t core)
{
    struct pkb_pool *pool = p->pool;

    if (p->owner != core) {
        /*
         * Pushing onto another core's stack would race with its owner. Leak the buffer and
         * count it in the owner's pool: several cores may hit this at once, so the one
         * cross-core write is atomic (a slow path: it only happens through a bug).
         */
        __atomic_fetch_add(&pool->foreign_free, 1, __ATOMIC_RELAXED);
        return;
    }
    if (pool->nfree >= pool->size) {
        pool->double_free++;
        return;
    }
    pool->free[pool->nfree++] = p;
}
