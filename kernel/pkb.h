/*
 * kernel/pkb.h: packet buffers. Each core owns a pool of fixed-size buffers carved at boot from
 * memory it alone touches; the fast path only pops and pushes that core's free stack (no
 * allocation, no locks, no shared cache lines). A buffer always returns to its owner's pool.
 */
#ifndef WS_PKB_H
#define WS_PKB_H

#include <stdbool.h>
#include <stdint.h>

/* One RX buffer: a whole frame with a VLAN tag fits (the NICs take 1 KiB units; the RX ring's
 * length test wants a power of two). The config decides (CONFIG_PKB_DATA_BYTES: 16 KiB with
 * jumbo frames); code built without a config (host tests of the ring and the pools) gets the
 * 2 KiB of a 1500-byte MTU. Every file of one program sees the same value: the firmware's and
 * the host simulations' all have config.h on their include path, the unit tests none. */
#if __has_include("config.h")
#include "config.h"
#endif
#ifdef CONFIG_PKB_DATA_BYTES
#define PKB_DATA_BYTES CONFIG_PKB_DATA_BYTES
#else
#define PKB_DATA_BYTES 2048
#endif
_Static_assert((PKB_DATA_BYTES & (PKB_DATA_BYTES - 1)) == 0 && PKB_DATA_BYTES >= 2048 &&
                   PKB_DATA_BYTES <= 16384,
               "a power of two the NICs' 1 KiB buffer units and 16-bit lengths can express");

/* One buffer's metadata; the data area lies elsewhere (data points into the pool's region).
 * The RX ring writes a received frame's metadata in two stores (rx_meta, rx_word): the unions
 * name those words, and the fields they hold lie in the order the stores fill them. */
struct pkb {
    uint8_t *data; /* start of the frame (DMA target; identity mapped: also the bus address) */
    union {
        struct {
            uint16_t len;   /* frame length in bytes */
            uint16_t port;  /* input port index */
            uint16_t queue; /* input queue (== owning core on the fast path) */
            uint16_t owner; /* core whose pool it belongs to */
        };
        uint64_t rx_meta; /* the four above as one word (little-endian: len in bits 15:0) */
    };
    union {
        struct {
            uint32_t rx_status; /* raw status/error word from the RX write-back */
            uint8_t forwarded;  /* non-zero: the frame is being forwarded, and its TX
                                 * completion counts as forwarded (iring_tx_stats); set by
                                 * the application, 0 on receive, read when it is placed */
            uint8_t tx_flags;   /* PKB_TX_*: what the NIC is to do besides sending the frame;
                                 * 0 on receive (a reply in place asks nothing) */
            uint16_t vlan;      /* an 802.1Q TCI (priority 15:13, DEI 12, VLAN ID 11:0). On
                                 * receive: the tag the NIC took off, where the port strips
                                 * tags and the status says so (nic_rx_vlan_mask); with
                                 * PKB_TX_VLAN: the tag the NIC is to put on. Else stale. */
        };
        uint64_t rx_word; /* the four above as one word: the RX ring stores the write-back's
                           * status and VLAN tag with forwarded and tx_flags 0 */
    };
    struct pkb_pool *pool; /* pool it returns to */
    union {
        /* The sink wraps a buffer handed to lwIP as a custom pbuf living here, so wrapping
         * needs no allocation (net/lwip-port/sink_netif.c checks that it fits). */
        uint64_t stack_wrap[4];
        /* PKB_TX_EXT: the frame goes on after len bytes with ext_len bytes at ext, memory
         * that stays unchanged until the NIC has sent it (the sink's constant payloads). A
         * frame the sink builds is never one it wraps. */
        struct {
            const uint8_t *ext;
            uint32_t ext_len;
            uint16_t mss; /* PKB_TX_TSO: TCP payload bytes per segment on the wire */
        } tx;
    };
};

/* PKB_TX_CSUM_TCP4: an untagged Ethernet frame with a 20-byte IPv4 header and TCP, whose checksum field
 * holds the pseudo-header sum (folded, not inverted): the NIC sums the TCP header and payload
 * onto it and stores the result (TXSM: 82576 §7.2.2.2, 82599 §7.2.5; intel_ring's context 0). */
#define PKB_TX_CSUM_TCP4 1u
/* PKB_TX_EXT: the frame continues at tx.ext (tx.ext_len bytes): a second TX descriptor points the
 * NIC there, so a payload that never changes is not copied into the buffer. */
#define PKB_TX_EXT 2u
/* PKB_TX_CSUM_IP4: with PKB_TX_CSUM_TCP4, the NIC also computes the IPv4 header checksum into its
 * field, left 0 (IXSM, same context). Only for a frame the NIC need not pad (60 bytes or more):
 * QEMU's igb recomputes the IPv4 total length from the frame when it sums the header, and a
 * padded frame would then carry its padding as payload. */
#define PKB_TX_CSUM_IP4 4u
/* PKB_TX_TSO: with PKB_TX_EXT, PKB_TX_CSUM_TCP4 and PKB_TX_CSUM_IP4, the NIC cuts the TCP payload
 * at tx.ext into segments of tx.mss bytes, each sent behind a copy of the headers (the buffer's
 * len bytes: Ethernet, a 20-byte IPv4 header, TCP with its options) with its IPv4 length, ID,
 * checksums and sequence number set, FIN and PSH on the last only (82576 §7.2.4, 82599 §7.2.4).
 * The TCP checksum field holds the pseudo-header sum without the length (the NIC adds each
 * segment's). */
#define PKB_TX_TSO 8u
/* PKB_TX_VLAN: the NIC puts an 802.1Q tag (TPID 0x8100, TCI b->vlan) between the frame's MAC
 * addresses and its EtherType as it sends it (VLE: 82576 §7.2.2.3, 82599 §7.2.3.2.4; the tag
 * rides in a context descriptor). The buffer holds the untagged frame; any offload above
 * applies to it as it is there. */
#define PKB_TX_VLAN 16u

/* pkb_tx_own: b is a frame this core built (not a forwarded one), complete as it is. pkb_alloc
 * leaves the previous user's marks. */
static inline void pkb_tx_own(struct pkb *b)
{
    b->forwarded = 0;
    b->tx_flags = 0;
}

_Static_assert(__builtin_offsetof(struct pkb, owner) - __builtin_offsetof(struct pkb, rx_meta) == 6,
               "rx_meta holds len, port, queue, owner in that order");
_Static_assert(__builtin_offsetof(struct pkb, vlan) - __builtin_offsetof(struct pkb, rx_word) == 6,
               "rx_word holds the write-back's VLAN tag where its upper quadword does (63:48)");


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
/* pkb_alloc_burst: take up to want buffers at once; *taken points at them (valid until the
 * pool is next freed to: copy them out first). Returns how many (fewer when the pool runs dry,
 * counted once in alloc_fail). Owner core only; the RX ring's bulk refill. */
static inline unsigned pkb_alloc_burst(struct pkb_pool *pool, unsigned want, struct pkb ***taken)
{
    unsigned got = want;
    if (got > pool->nfree) {
        got = pool->nfree;
        pool->alloc_fail++;
    }
    pool->nfree -= got;
    *taken = &pool->free[pool->nfree];
    return got;
}

/* pkb_free: give a buffer back to its pool; `core` is the calling core. A buffer freed by a core
 * that does not own it is counted (foreign_free) and leaked rather than corrupting another
 * core's stack (cross-core returns go through SPSC rings, added with the sink). */
void pkb_free(struct pkb *p, uint16_t core);

#endif
