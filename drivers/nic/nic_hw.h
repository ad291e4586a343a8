/*
 * drivers/nic/nic_hw.h: what the two Intel chip drivers (igb.c: 82576, ixgbe.c: 82599) share
 * in bringing a port up: register access through the port's BAR, the bounded register wait and
 * its one failure message, the BAR check, ring memory, a ring's base registers, the MAC from
 * receive address 0, the RSS key and redirection table words, the MSI-X routing loop and the
 * queue stop on a failed bring-up. The register offsets stay the chips'; the steps are one.
 * Boot core (or core 0 for a port reset), slow path.
 */
#ifndef WS_NIC_HW_H
#define WS_NIC_HW_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/nic/nic.h"
#include "mmio.h"

#define NIC_ALL_ONES 0xFFFFFFFFU /* what a read returns once the device is gone */
/* RXDCTL.ENABLE / TXDCTL.ENABLE: bit 25 on both chips (82576 8.10.x, 82599 8.2.3.8.6/9.10) */
#define NIC_QUEUE_ENABLE 0x02000000UL

static inline uint32_t nic_rd(const struct nic_port *p, uint32_t reg)
{
    return mmio_read32(p->bar0 + reg);
}

static inline void nic_wr(const struct nic_port *p, uint32_t reg, uint32_t v)
{
    mmio_write32(p->bar0 + reg, v);
}

/* nic_set / nic_clear: read-modify-write. Never on a register with clear-on-read or
 * write-1-to-clear bits (EICR, statistics): the write-back would clear what was read. */
static inline void nic_set(const struct nic_port *p, uint32_t reg, uint32_t bits)
{
    nic_wr(p, reg, nic_rd(p, reg) | bits);
}

static inline void nic_clear(const struct nic_port *p, uint32_t reg, uint32_t bits)
{
    nic_wr(p, reg, nic_rd(p, reg) & ~bits);
}

/* nic_fail: the one init-failure message ("portN: init failed at STEP: register R = V,
 * expected WHAT"); WS_ERR_DEVICE if V is all-ones (the device is gone), else WS_ERR_TIMEDOUT. */
int nic_fail(const struct nic_port *p, const char *step, uint32_t reg, uint32_t v,
             const char *expected);

/* nic_poll: bounded poll until (reg & mask) == want; true if it got there. *last is the final
 * value read; an all-ones read ends the poll at once (it will not change). */
bool nic_poll(const struct nic_port *p, uint32_t reg, uint32_t mask, uint32_t want,
              uint64_t timeout_us, uint32_t *last);

/* nic_wait: nic_poll that fails the step with nic_fail's message. */
int nic_wait(const struct nic_port *p, const char *step, uint32_t reg, uint32_t mask,
             uint32_t want, uint64_t timeout_us);

/* nic_hw_begin: the first steps of every probe: a port for d with ops and nqueues queues (and
 * their memory), the device's memory decoding and bus mastering on (pci_enable), and BAR `bar`
 * (an implemented memory BAR of at least bar_min bytes) mapped uncached as p->bar0. *out is
 * NULL only when no port was left; otherwise a nonzero return leaves *out for the chip to quiesce
 * and abandon (nic_abandon_port). */
int nic_hw_begin(struct pci_dev *d, const struct nic_ops *ops, unsigned nqueues, unsigned bar,
                 uint64_t bar_min, struct nic_port **out);

/* nic_alloc_queue: descriptor and software rings for queue q (owned by core q, buffers from its
 * pool), with tail registers rdt and tdt. The chip's error bits are the caller's to set. */
int nic_alloc_queue(struct nic_port *p, unsigned q, uint32_t rdt, uint32_t tdt);

/* nic_ring_base: a ring's descriptor base (BAL, BAH), length in bytes, head and tail 0. */
void nic_ring_base(const struct nic_port *p, uint32_t bal, uint32_t bah, uint32_t len,
                   uint32_t head, uint32_t tail, const void *desc, uint32_t bytes);

/* nic_read_mac: the address the NVM loaded into receive address 0 (RAL0 at ral, RAH0 at rah)
 * into p->mac; fails on an all-ones read, a zero or a multicast address. *rah_out: RAH0 as
 * read, for the chip's own handling of its Address Valid bit. */
int nic_read_mac(struct nic_port *p, uint32_t ral, uint32_t rah, uint32_t *rah_out);

/* nic_rss_key_word: word i of the configured RSS key as RSSRK(i) takes it (both chips: key
 * byte 4i in bits 7:0). nic_reta_word: redirection table word i, entries 4i..4i+3 -> queue
 * entry mod nqueues, one byte each. */
uint32_t nic_rss_key_word(unsigned i);
uint32_t nic_reta_word(unsigned i, unsigned nqueues);

/* nic_msix_route: MSI-X on, with at least nqueues + 1 entries; entry q (RX and TX queue q)
 * -> a fresh IDT vector on core q, entry nqueues (link) -> core 0, each unmasked at the table;
 * then program(p) sets the NIC's own side (cause-to-entry map, throttling, masks). The vectors
 * only wake a halted core. */
int nic_msix_route(struct nic_port *p, void (*program)(struct nic_port *p));

/* nic_release_queues: after a failed bring-up, stop every queue that was set up (clear
 * ENABLE in RXDCTL/TXDCTL, wait for it to read 0, bounded) and only then give its buffers
 * back: a skipped port must keep no share of any pool, nor a ring the NIC could still write.
 * rxdctl(q) / txdctl(q): the chip's register offsets. */
void nic_release_queues(struct nic_port *p, uint32_t (*rxdctl)(unsigned q),
                        uint32_t (*txdctl)(unsigned q), uint64_t timeout_us);

#endif
