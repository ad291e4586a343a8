/*
 * drivers/nic/nic_tx.h: the one TX batcher. Whatever a core sends on a port (forwarded frames,
 * the router's ICMP errors and ARP requests, lwIP's segments on the sink core) is queued in that
 * core's batch for the port and reaches the core's own TX ring in bursts: one tail write per
 * NIC_TX_BATCH frames, or per flush at the end of the poller's pass. A batch is written by its
 * core only; nothing here is shared.
 */
#ifndef WS_NIC_TX_H
#define WS_NIC_TX_H

#include "config.h"
#include "param.h"
#include "pkb.h"

struct nic_port;

#define NIC_TX_BATCH (2 * CONFIG_NIC_BURST)

/* One core's batches, one per port; written by that core only. The counts sit apart from the
 * frames so that a batch's slots are a power-of-two stride (no multiply on the fast path). */
struct nic_tx_core {
    struct pkb *pkts[WS_MAX_PORTS][NIC_TX_BATCH];
    unsigned n[WS_MAX_PORTS];
} __attribute__((aligned(64)));

extern struct nic_tx_core nic_tx_cores[WS_MAX_CPUS];

/* nic_tx_flush_port: core's batch for port to the port's TX ring (iring_tx_burst takes them
 * all: what finds the ring full is freed and counted there). Owning core. */
void nic_tx_flush_port(unsigned core, unsigned port);

/* nic_tx_flush: every port's batch of this core. Owning core, at the end of a pass. */
void nic_tx_flush(unsigned core);

/* nic_tx_queue: b to go out of port on core's TX queue; the caller has checked that the queue
 * is usable (nic_queue_usable). A full batch is flushed first. Owning core, fast path. */
static inline void nic_tx_queue(unsigned core, unsigned port, struct pkb *b)
{
    struct nic_tx_core *t = &nic_tx_cores[core];
    if (t->n[port] == NIC_TX_BATCH) {
        nic_tx_flush_port(core, port);
    }
    t->pkts[port][t->n[port]++] = b;
}

/* nic_tx_forward: frames core just took from its RX rings (nic_rx_burst), to go out of port
 * `out` on core's queue as they are (iring_tx_burst_forward: marked forwarded, no per-frame
 * checks); the caller has checked that the queue is usable. Anything already batched for the
 * port goes first, so frames leave in the order they were queued. Owning core, fast path. */
void nic_tx_forward(unsigned core, struct nic_port *out, struct pkb **pkts, unsigned n);

/* nic_tx_forward_tagged: nic_tx_forward for frames the NIC is to tag with tci, each marked
 * PKB_TX_VLAN with that vlan and forwarded (iring_tx_burst_forward_tagged). Owning core. */
void nic_tx_forward_tagged(unsigned core, struct nic_port *out, struct pkb **pkts, unsigned n,
                           uint16_t tci);
/* nic_tx_queued: frames waiting in core's batch for port. */
static inline unsigned nic_tx_queued(unsigned core, unsigned port)
{
    return nic_tx_cores[core].n[port];
}

#endif
