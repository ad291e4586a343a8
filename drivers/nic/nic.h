/*
 * drivers/nic/nic.h: a port, whatever its chip. Each port has one RX and one TX queue per core
 * (queue index == core index), each queue with its own MSI-X vector aimed at that core. The
 * chip drivers (igb.c now, ixgbe.c later) fill in a port and its ops; the per-core loop and the
 * console see only this.
 */
#ifndef WS_NIC_H
#define WS_NIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/nic/intel_ring.h"
#include "drivers/pci/msix.h"
#include "net/local.h"
#include "net/pkb.h"
#include "param.h"

#define NIC_MAX_PORTS WS_MAX_PORTS
#define NIC_NAME_BYTES 8

struct nic_port;

struct nic_ops {
    const char *chip;
    /* arm / disarm the queue's interrupt (adaptive polling). Owning core. */
    void (*irq_arm)(struct nic_port *p, unsigned queue);
    void (*irq_disarm)(struct nic_port *p, unsigned queue);
    /* housekeeping: link state and hardware statistics. Core 0, slow path. */
    void (*housekeeping)(struct nic_port *p);
    /* register dump for `regs` and head/tail for `rings`. Console core. */
    void (*dump_regs)(struct nic_port *p);
    void (*ring_heads)(struct nic_port *p, unsigned queue, uint32_t *rdh, uint32_t *rdt,
                       uint32_t *tdh, uint32_t *tdt);
};

/* Hardware statistics as 64-bit totals (registers are clear-on-read; core 0 accumulates). */
struct nic_hw_stats {
    uint64_t rx_packets, rx_bytes, rx_broadcast, rx_multicast;
    uint64_t rx_missed_errors;    /* MPC: no room in the NIC's packet buffer */
    uint64_t rx_no_buffer_count;  /* RNBC: no free descriptor on the target queue */
    uint64_t rx_crc_errors, rx_undersize, rx_oversize;
    uint64_t tx_packets, tx_bytes;
    uint64_t rx_queue_drops[WS_MAX_CPUS]; /* RQDPC: per-queue drops (DROP_EN) */
};

/* One queue pair, owned by core `index` of its port. Cache-line aligned: no sharing. */
struct nic_queue {
    struct iring_rx rx;
    struct iring_tx tx;
    uint8_t msix_entry; /* MSI-X table entry == EICR bit */
    uint8_t vector;     /* IDT vector on the owning core */
    struct net_local_stats local; /* ARP/ICMP answered, drops by reason */
    uint64_t no_address;          /* frames on a port without an address: dropped */
} __attribute__((aligned(64)));

struct nic_port {
    /* read-only after init */
    unsigned index;
    char name[NIC_NAME_BYTES]; /* "port0" */
    const struct nic_ops *ops;
    struct pci_dev *pci;
    uintptr_t bar0;
    struct msix msix;
    uint8_t mac[6];
    unsigned nqueues;
    struct net_iface ifc;
    bool has_address;
    struct nic_queue *q; /* nqueues entries */

    /* written by core 0 (housekeeping) */
    volatile bool link_up;
    volatile uint32_t speed_mbps;
    uint64_t link_changes;
    struct nic_hw_stats hw;
};

/* nic_probe_all: find supported NICs on PCI, bring each up with one queue per core
 * (ncores), in PCI order as port0, port1, ... Prints one line per port. Boot core, after
 * PCI and per-core pools. Returns the number of ports up. */
unsigned nic_probe_all(unsigned ncores);
unsigned nic_port_count(void);
struct nic_port *nic_port(unsigned i);
/* nic_alloc_port: a chip driver takes the next port slot (named port<N>) to bring up;
 * nic_abandon_port gives it back when bring-up failed. Boot core. */
struct nic_port *nic_alloc_port(void);
void nic_abandon_port(struct nic_port *p);
/* nic_pool: core c's packet-buffer pool (created by nic_pools_init). */
struct pkb_pool *nic_pool(unsigned core);
int nic_pools_init(unsigned ncores);

/* nic_arm_core / nic_disarm_core: interrupts for this core's queues (adaptive mode); arm
 * returns true if a frame is already waiting (then do not halt). */
bool nic_arm_core(unsigned core);
void nic_disarm_core(unsigned core);
/* One named register for a chip's `regs <port>` table. */
struct nic_reg {
    const char *name;
    uint32_t offset; /* in BAR0 */
};

/* nic_print_regs: print name, offset and current value of each register (console core). Only
 * registers whose read has no side effect belong in such a table (no clear-on-read ones). */
void nic_print_regs(const struct nic_port *p, const struct nic_reg *regs, size_t n);

/* nic_housekeeping: link state and hardware counters of every port. Core 0, slow path. */
void nic_housekeeping(void);

#endif
