/*
 * kernel/pkb.h: packet buffers. Each core owns a pool of fixed-size buffers carved at boot from
 * memory it alone touches; the fast path only pops and pushes that core's free stack (no
 * allocation, no locks, no shared cache lines). A buffer always returns to its owner's pool.
 */
#ifndef WS_PKB_H
#define WS_PKB_H

#include <stdbool.h>
#include <stdint.h>

#define PKB_DATA_BYTES 2048 /* one RX buffer: a full 1518-byte frame (+VLAN) fits; 1 KiB units */

/* One buffer's metadata; the data area lies elsewhere (data points into the pool's region). */
struct pkb {
    uint8_t *data;    /* start of the frame (DMA target; identity mapped: also the bus address) */
    uint16_t len;     /* frame length in bytes */
    uint16_t port;    /* input port index */
    uint16_t queue;   /* input queue (== owning core on the fast path) */
    uint16_t owner;   /* core whose pool it belongs to */
    uint32_t rss_hash; /* from the RX descriptor write-back, 0 if none */
    uint32_t rx_status; /* raw status/error word from the RX write-back */
    uint32_t flags;     /* PKB_F_*: set by the application, cleared on receive */
    struct pkb_pool *pool; /* pool it returns to */
    /* The sink wraps a buffer handed to lwIP as a custom pbuf living here, so wrapping needs
     * no allocation (net/lwip-port/sink_netif.c checks that it fits). */
    uint64_t stack_wrap[4];
};

/* The frame is being forwarded: its TX completion counts as "forwarded" (see iring_tx_stats). */
#define PKB_F_FORWARDED 0x1U
/* The NIC checked this frame's TCP/UDP checksum and found it right (see intel_ring.h). */
#define PKB_F_L4_CSUM_OK 0x2U

/* A core's pool. Owned (written) by one core only. */
struct pkb_pool {
    struct pkb **free;   /* stack of free buffers */
    uint32_t nfree;
    uint32_t size;       /* total buffers */
    uint16_t owner;
    const uint8_t *data_base; /* where its buffers' data lie (for the console: which node) */
    uint64_t alloc_fail; /* pkb_alloc found the pool empty */
    uint64_t foreign_free; /* a core freed a buffer it does not own (a bug; buffer leaked) */
    uint64_t double_free;  /* pkb_free found the stack already full: a buffer freed twice (a
                            * bug; the extra free is ignored instead of overrunning the stack) */
};

/* pkb_pool_init: build a pool of n buffers from caller-provided memory: meta (n structs),
 * stack (n pointers) and data (n * PKB_DATA_BYTES, 2 KiB aligned). Init time only. The first
 * pkb_alloc returns meta[0] (data), the next meta[1], and so on. */
void pkb_pool_init(struct pkb_pool *pool, uint16_t owner, struct pkb *meta, struct pkb **stack,
                   uint8_t *data, uint32_t n);
/* pkb_alloc: a free buffer from this pool, or NULL (counted in alloc_fail). Owner core only.
 * data, owner and pool are set; the other fields hold whatever the last user left there. */
struct pkb *pkb_alloc(struct pkb_pool *pool);
/* pkb_free: give a buffer back to its pool; `core` is the calling core. A buffer freed by a core
 * that does not own it is counted (foreign_free) and leaked rather than corrupting another
 * core's stack (cross-core returns go through SPSC rings, added with the sink). */
void pkb_free(struct pkb *p, uint16_t core);

#endif
