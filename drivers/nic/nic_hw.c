/* drivers/nic/nic_hw.c: the bring-up steps igb and ixgbe share (see header). */
#include "drivers/nic/nic_hw.h"

#include <stdio.h>

#include "config.h"
#include "console.h"
#include "dma.h"
#include "drivers/nic/rss.h"
#include "err.h"
#include "irq.h"
#include "percpu.h"
#include "smp.h"
#include "time.h"
#include "vm.h"
#include "x86.h"

int nic_fail(const struct nic_port *p, const char *step, uint32_t reg, uint32_t v,
             const char *expected)
{
    bool gone = v == NIC_ALL_ONES;
    kprintf("%s: init failed at %s: register 0x%05x = 0x%08x, expected %s%s\n", p->name, step,
            reg, v, expected, gone ? " (read all-ones: device gone)" : "");
    return gone ? WS_ERR_DEVICE : WS_ERR_TIMEDOUT;
}

bool nic_poll(const struct nic_port *p, uint32_t reg, uint32_t mask, uint32_t want,
              uint64_t timeout_us, uint32_t *last)
{
    uint64_t deadline = time_deadline_us(timeout_us);
    for (;;) {
        uint32_t v = nic_rd(p, reg);
        *last = v;
        if (v != NIC_ALL_ONES && (v & mask) == want) {
            return true;
        }
        if (v == NIC_ALL_ONES || time_after(deadline)) {
            return false;
        }
        cpu_relax();
    }
}

int nic_wait(const struct nic_port *p, const char *step, uint32_t reg, uint32_t mask,
             uint32_t want, uint64_t timeout_us)
{
    char expected[80];
    uint32_t v;
    if (nic_poll(p, reg, mask, want, timeout_us, &v)) {
        return WS_OK;
    }
    snprintf(expected, sizeof(expected), "bits 0x%08x to read 0x%08x within %u us", mask, want,
             (unsigned)timeout_us);
    return nic_fail(p, step, reg, v, expected);
}

static int nic_map_bar0(struct nic_port *p, unsigned bar, uint64_t min_bytes)
{
    const struct pci_bar *b = &p->pci->bar[bar];
    if (b->io || b->base == 0 || b->size < min_bytes) {
        kprintf("%s: init failed at BAR%u: base 0x%llx size 0x%llx (need memory, >= %llu KiB)\n",
                p->name, bar, (unsigned long long)b->base, (unsigned long long)b->size,
                (unsigned long long)(min_bytes >> 10));
        return WS_ERR_DEVICE;
    }
    if (vm_map_mmio(b->base, b->size) != WS_OK) {
        kprintf("%s: init failed at BAR%u mapping 0x%llx\n", p->name, bar,
                (unsigned long long)b->base);
        return WS_ERR_NO_MEMORY;
    }
    p->bar0 = (uintptr_t)b->base;
    return WS_OK;
}

int nic_hw_begin(struct pci_dev *d, const struct nic_ops *ops, unsigned nqueues, unsigned bar,
                 uint64_t bar_min, struct nic_port **out)
{
    struct nic_port *p = nic_alloc_port();
    *out = p;
    if (p == NULL) {
        return WS_ERR_NO_MEMORY;
    }
    p->pci = d;
    p->ops = ops;
    p->nqueues = nqueues;
    p->q = dma_alloc(p->nqueues * sizeof(struct nic_queue), 64);
    pci_enable(d);
    return p->q ? nic_map_bar0(p, bar, bar_min) : WS_ERR_NO_MEMORY;
}

int nic_alloc_queue(struct nic_port *p, unsigned q, uint32_t rdt, uint32_t tdt)
{
    struct nic_queue *nq = &p->q[q];
    /* Queue q is core q's: what only the core touches lies in its node. The descriptors are
     * what the NIC reads and writes for every frame: they lie in the NIC's node when the
     * firmware says which (as DPDK places a port's rings by its socket), so its DMA stays on
     * its own socket; otherwise in the core's. */
    uint32_t node = smp_core_node(q);
    uint32_t dnode = p->pci->has_node ? p->pci->node : node;
    void *rxd = dma_alloc_node(IRING_DESC_MEM_BYTES(CONFIG_NIC_RX_DESCS), IRING_ALIGN_BYTES, dnode);
    void *txd = dma_alloc_node(IRING_DESC_MEM_BYTES(CONFIG_NIC_TX_DESCS), IRING_ALIGN_BYTES, dnode);
    struct pkb **rxsw = dma_alloc_node(CONFIG_NIC_RX_DESCS * sizeof(struct pkb *), 64, node);
    struct pkb **txsw = dma_alloc_node(CONFIG_NIC_TX_DESCS * sizeof(struct pkb *), 64, node);
    struct iring_tx_mark *marks =
        dma_alloc_node(CONFIG_NIC_TX_DESCS * sizeof(struct iring_tx_mark), 64, node);

    if (rxd == NULL || txd == NULL || rxsw == NULL || txsw == NULL || marks == NULL) {
        kprintf("%s: init failed at ring allocation for queue %u: out of memory\n", p->name, q);
        return WS_ERR_NO_MEMORY;
    }
    int err = iring_rx_init(&nq->rx, rxd, rxsw, CONFIG_NIC_RX_DESCS, p->bar0 + rdt, nic_pool(q),
                            (uint16_t)q, (uint16_t)p->index);
    if (err == WS_OK) {
        err = iring_tx_init(&nq->tx, txd, txsw, marks, CONFIG_NIC_TX_DESCS, p->bar0 + tdt,
                            nic_pool(q), (uint16_t)q, (uint16_t)p->index);
    }
    if (err != WS_OK) {
        kprintf("%s: init failed at ring setup for queue %u: %s\n", p->name, q, err_name(err));
    }
    return err;
}

void nic_ring_base(const struct nic_port *p, uint32_t bal, uint32_t bah, uint32_t len,
                   uint32_t head, uint32_t tail, const void *desc, uint32_t bytes)
{
    uint64_t ring = dma_addr(desc);
    nic_wr(p, bal, (uint32_t)ring);
    nic_wr(p, bah, (uint32_t)(ring >> 32));
    nic_wr(p, len, bytes);
    nic_wr(p, head, 0);
    nic_wr(p, tail, 0);
}

int nic_read_mac(struct nic_port *p, uint32_t ral, uint32_t rah, uint32_t *rah_out)
{
    uint32_t lo = nic_rd(p, ral), hi = nic_rd(p, rah);
    for (int i = 0; i < 4; i++) {
        p->mac[i] = (uint8_t)(lo >> (8 * i));
    }
    p->mac[4] = (uint8_t)hi;
    p->mac[5] = (uint8_t)(hi >> 8);
    *rah_out = hi;
    if (lo == NIC_ALL_ONES || hi == NIC_ALL_ONES) {
        return nic_fail(p, "MAC address (RAH0)", rah, hi, "a readable register");
    }
    if ((lo | (hi & 0xFFFF)) == 0 || (p->mac[0] & 1)) {
        kprintf("%s: init failed at MAC address: RAL0 0x%08x RAH0 0x%08x (zero or multicast; "
                "EEPROM not programmed?)\n", p->name, lo, hi);
        return WS_ERR_DEVICE;
    }
    return WS_OK;
}

uint32_t nic_rss_key_word(unsigned i)
{
    const uint8_t *key = nic_cfg.rss_key ? nic_cfg.rss_key : rss_default_key;
    return (uint32_t)key[4 * i] | ((uint32_t)key[4 * i + 1] << 8) |
           ((uint32_t)key[4 * i + 2] << 16) | ((uint32_t)key[4 * i + 3] << 24);
}

uint32_t nic_reta_word(unsigned i, unsigned nqueues)
{
    uint32_t v = 0;
    for (unsigned b = 0; b < 4; b++) {
        v |= (uint32_t)((4 * i + b) % nqueues) << (8 * b);
    }
    return v;
}

/* Queue interrupts only wake a halted core: the loop polls. The IRQ slot counts them. */
static void nic_irq_wake(void *arg)
{
    (void)arg;
}

int nic_msix_route(struct nic_port *p, void (*program)(struct nic_port *p))
{
    char why[96];
    int err = msix_init(&p->msix, p->pci, why, sizeof(why));
    if (err == WS_OK && p->msix.nvec < p->nqueues + 1) {
        snprintf(why, sizeof(why), "table has %u entries, need %u", p->msix.nvec, p->nqueues + 1);
        err = WS_ERR_RANGE;
    }
    if (err != WS_OK) {
        kprintf("%s: init failed at MSI-X: %s\n", p->name, why);
        return err;
    }
    for (unsigned v = 0; v <= p->nqueues; v++) {
        unsigned core = v < p->nqueues ? v : 0;
        char name[IRQ_NAME_BYTES];
        if (percpu_blocks[core].apic_id > MSIX_MAX_APIC_ID) {
            /* An MSI message names at most APIC ID 255 without interrupt remapping: this
             * entry stays masked and the core polls (nic_arm_core keeps it from halting). */
            kprintf("%s: MSI-X entry %u: core %u has APIC ID %u, beyond what MSI reaches "
                    "without interrupt remapping; %s\n", p->name, v, core,
                    percpu_blocks[core].apic_id,
                    v < p->nqueues ? "the core polls this queue, never sleeps on it"
                                   : "link changes are seen by housekeeping only");
            if (v < p->nqueues) {
                p->q[v].no_irq = true;
            }
            continue;
        }
        snprintf(name, sizeof(name), v < p->nqueues ? "%sq%u" : "%slink", p->name, v);
        int vec = irq_alloc(core, nic_irq_wake, p, name);
        if (vec < 0 || msix_route(&p->msix, v, percpu_blocks[core].apic_id, (uint8_t)vec)) {
            kprintf("%s: init failed at MSI-X vector for %s on core %u\n", p->name, name, core);
            return WS_ERR_NO_MEMORY;
        }
        msix_unmask(&p->msix, v);
        if (v < p->nqueues) {
            p->q[v].msix_entry = (uint8_t)v;
            p->q[v].vector = (uint8_t)vec;
        }
    }
    program(p);
    return WS_OK;
}

void nic_release_queues(struct nic_port *p, uint32_t (*rxdctl)(unsigned q),
                        uint32_t (*txdctl)(unsigned q), uint64_t timeout_us)
{
    for (unsigned q = 0; p->q != NULL && q < p->nqueues; q++) {
        struct nic_queue *nq = &p->q[q];
        if (nq->rx.desc != NULL) {
            nic_clear(p, rxdctl(q), NIC_QUEUE_ENABLE);
            if (nic_wait(p, "RX queue disable (RXDCTL.ENABLE)", rxdctl(q), NIC_QUEUE_ENABLE, 0,
                         timeout_us) == WS_OK) {
                iring_rx_release(&nq->rx);
            }
        }
        if (nq->tx.desc != NULL) {
            nic_clear(p, txdctl(q), NIC_QUEUE_ENABLE);
            if (nic_wait(p, "TX queue disable (TXDCTL.ENABLE)", txdctl(q), NIC_QUEUE_ENABLE, 0,
                         timeout_us) == WS_OK) {
                iring_tx_release(&nq->tx);
            }
        }
    }
}
