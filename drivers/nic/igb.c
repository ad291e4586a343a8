/*
 * drivers/nic/igb.c: Intel 82576 driver. Initialization follows the 82576 datasheet (rev 2.x)
 * section 4.5, "Software Initialization Sequence", one function per step; registers are in
 * igb_regs.h. Rings and descriptor handling are the family's shared code (intel_ring.c).
 */
#include "igb.h"

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "console.h"
#include "dma.h"
#include "drivers/nic/igb_regs.h"
#include "drivers/nic/nic.h"
#include "err.h"
#include "irq.h"
#include "mmio.h"
#include "drivers/nic/rss.h"
#include "percpu.h"
#include "time.h"
#include "vm.h"
#include "x86.h"

#define IGB_BAR_MMIO 0
#define IGB_RX_BUF_KB (PKB_DATA_BYTES / 1024)
#define IGB_ALL_ONES 0xFFFFFFFFU /* what a read returns once the device is gone */

static uint32_t igb_rd(const struct nic_port *p, uint32_t reg)
{
    return mmio_read32(p->bar0 + reg);
}

static void igb_wr(const struct nic_port *p, uint32_t reg, uint32_t v)
{
    mmio_write32(p->bar0 + reg, v);
}

/* igb_wait: bounded poll until (reg & mask) == want; logs step, register and last value. */
static int igb_wait(const struct nic_port *p, const char *step, uint32_t reg, uint32_t mask,
                    uint32_t want, uint64_t timeout_us)
{
    uint64_t deadline = time_deadline_us(timeout_us);
    uint32_t v;
    while (((v = igb_rd(p, reg)) & mask) != want) {
        if (v == IGB_ALL_ONES || time_after(deadline)) {
            kprintf("%s: init failed at %s: register 0x%05x = 0x%08x, waited for bits 0x%08x "
                    "to read 0x%08x%s\n", p->name, step, reg, v, mask, want,
                    v == IGB_ALL_ONES ? " (device gone: all-ones)" : "");
            return WS_ERR_TIMEDOUT;
        }
        cpu_relax();
    }
    return WS_OK;
}

bool igb_supports(const struct pci_dev *d)
{
    return d->vendor == IGB_VENDOR_INTEL &&
           (d->device == IGB_DEVICE_82576 || d->device == IGB_DEVICE_82576_FIBER ||
            d->device == IGB_DEVICE_82576_SERDES || d->device == IGB_DEVICE_82576_NS);
}

static void igb_mask_all_irqs(struct nic_port *p)
{
    igb_wr(p, IGB_IMC, IGB_IMC_ALL);
    igb_wr(p, IGB_EIMC, 0xFFFFFFFFU); /* every vector */
    (void)igb_rd(p, IGB_ICR); /* clear anything latched */
}

/* 4.5.1 and 4.5.2: interrupts off, global reset, wait for the NVM auto-read, interrupts off
 * again (the reset reloads them). A missing auto-read-done is not fatal: a board without an
 * NVM never sets it (Linux's igb carries on the same way), and QEMU's model does not set it
 * either; the MAC address check that follows catches a port that really has no NVM data. */
static int igb_reset(struct nic_port *p)
{
    igb_mask_all_irqs(p);
    igb_wr(p, IGB_RCTL, 0);
    igb_wr(p, IGB_TCTL, 0);
    igb_wr(p, IGB_CTRL, igb_rd(p, IGB_CTRL) | IGB_CTRL_RST);
    time_delay_us(IGB_RESET_DELAY_US);
    int err = igb_wait(p, "reset (CTRL.RST self-clear)", IGB_CTRL, IGB_CTRL_RST, 0,
                       IGB_RESET_TIMEOUT_US);
    if (err != WS_OK) {
        return err;
    }
    uint64_t deadline = time_deadline_us(IGB_EECD_TIMEOUT_US);
    while (!(igb_rd(p, IGB_EECD) & IGB_EECD_AUTO_RD) && !time_after(deadline)) {
        cpu_relax();
    }
    if (!(igb_rd(p, IGB_EECD) & IGB_EECD_AUTO_RD)) {
        kprintf("%s: note: EECD.AUTO_RD not set %u ms after reset (EECD 0x%08x); continuing\n",
                p->name, IGB_EECD_TIMEOUT_US / 1000, igb_rd(p, IGB_EECD));
    }
    igb_mask_all_irqs(p);
    igb_wr(p, IGB_CTRL_EXT, igb_rd(p, IGB_CTRL_EXT) | IGB_CTRL_EXT_DRV_LOAD);
    return WS_OK;
}

/* The NVM loads the port's address into receive address register 0 (8.10.x RAL/RAH). */
static int igb_read_mac(struct nic_port *p)
{
    uint32_t lo = igb_rd(p, IGB_RAL0), hi = igb_rd(p, IGB_RAH0);
    for (int i = 0; i < 4; i++) {
        p->mac[i] = (uint8_t)(lo >> (8 * i));
    }
    p->mac[4] = (uint8_t)hi;
    p->mac[5] = (uint8_t)(hi >> 8);
    bool zero = (lo | (hi & 0xFFFF)) == 0;
    if (!(hi & IGB_RAH_AV) || zero || (p->mac[0] & 1)) {
        kprintf("%s: init failed at MAC address: RAL0 0x%08x RAH0 0x%08x (not valid, zero or "
                "multicast)\n", p->name, lo, hi);
        return WS_ERR_DEVICE;
    }
    return WS_OK;
}

/* igb_mdic: one MII management transaction with the internal PHY (8.2.5); bounded. */
static int igb_mdic(struct nic_port *p, uint32_t op, unsigned reg, uint16_t data, uint16_t *out)
{
    igb_wr(p, IGB_MDIC, op | ((uint32_t)reg << IGB_MDIC_REG_SHIFT) |
                            (IGB_MDIC_PHY_INTERNAL << IGB_MDIC_PHY_SHIFT) | data);
    int err = igb_wait(p, "PHY access (MDIC.READY)", IGB_MDIC, IGB_MDIC_READY, IGB_MDIC_READY,
                       IGB_MDIC_TIMEOUT_US);
    uint32_t v = igb_rd(p, IGB_MDIC);
    if (err == WS_OK && (v & IGB_MDIC_ERROR)) {
        kprintf("%s: init failed at PHY register %u: MDIC 0x%08x has ERROR set\n", p->name, reg,
                v);
        err = WS_ERR_DEVICE;
    }
    if (out != NULL) {
        *out = (uint16_t)(v & IGB_MDIC_DATA_MASK);
    }
    return err;
}

/* 4.5.4: link setup for copper: set link up in the MAC and (re)start the PHY's
 * auto-negotiation; the link comes up asynchronously and housekeeping reports it. */
static int igb_setup_link(struct nic_port *p)
{
    uint16_t bmcr;
    igb_wr(p, IGB_CTRL, igb_rd(p, IGB_CTRL) | IGB_CTRL_SLU);
    int err = igb_mdic(p, IGB_MDIC_OP_READ, IGB_PHY_BMCR, 0, &bmcr);
    if (err == WS_OK) {
        err = igb_mdic(p, IGB_MDIC_OP_WRITE, IGB_PHY_BMCR,
                       bmcr | IGB_PHY_BMCR_AUTOEN | IGB_PHY_BMCR_ANRESTART, NULL);
    }
    return err;
}

/* 4.5.5: statistics registers are clear-on-read; read them once so totals start at zero. */
static void igb_clear_stats(struct nic_port *p)
{
    static const uint32_t regs[] = { IGB_CRCERRS, IGB_MPC,   IGB_RUC,   IGB_ROC,   IGB_RNBC,
                                     IGB_GPRC,    IGB_BPRC,  IGB_MPRC,  IGB_GPTC,  IGB_GORCL,
                                     IGB_GORCH,   IGB_GOTCL, IGB_GOTCH, IGB_TPR,   IGB_TPT };
    for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
        (void)igb_rd(p, regs[i]);
    }
    for (unsigned q = 0; q < IGB_MAX_QUEUES; q++) {
        (void)igb_rd(p, IGB_RXQ_BASE(q) + IGB_RQDPC);
    }
}

/* igb_alloc_queue: descriptor rings and software rings for queue q, owned by core q. */
static int igb_alloc_queue(struct nic_port *p, unsigned q)
{
    struct nic_queue *nq = &p->q[q];
    void *rxd = dma_alloc(CONFIG_NIC_RX_DESCS * 16, IRING_ALIGN_BYTES);
    void *txd = dma_alloc(CONFIG_NIC_TX_DESCS * 16, IRING_ALIGN_BYTES);
    struct pkb **rxsw = dma_alloc(CONFIG_NIC_RX_DESCS * sizeof(struct pkb *), 64);
    struct pkb **txsw = dma_alloc(CONFIG_NIC_TX_DESCS * sizeof(struct pkb *), 64);

    if (rxd == NULL || txd == NULL || rxsw == NULL || txsw == NULL) {
        kprintf("%s: init failed at ring allocation for queue %u: out of memory\n", p->name, q);
        return WS_ERR_NO_MEMORY;
    }
    int err = iring_rx_init(&nq->rx, rxd, rxsw, CONFIG_NIC_RX_DESCS,
                            p->bar0 + IGB_RXQ_BASE(q) + IGB_RDT, nic_pool(q), (uint16_t)q,
                            (uint16_t)p->index);
    if (err == WS_OK) {
        iring_rx_trust_l4_csum(&nq->rx, IDESC_RX_ERR_82576_L4E); /* RXCSUM.TUOFL is set */
        err = iring_tx_init(&nq->tx, txd, txsw, CONFIG_NIC_TX_DESCS,
                            p->bar0 + IGB_TXQ_BASE(q) + IGB_TDT, (uint16_t)q, (uint16_t)p->index);
    }
    return err;
}

/* 4.5.6 (per queue): base, length, one 2 KiB buffer per advanced descriptor, drop instead of
 * stalling when the queue has no descriptor, enable and wait for the enable to latch; at probe
 * (fill) post the buffers. After a reset the ring stays empty (RDT 0) until its own core
 * refills it (nic.c). */
static int igb_init_rx_queue(struct nic_port *p, unsigned q, bool fill)
{
    uint32_t base = IGB_RXQ_BASE(q);
    uint64_t ring = dma_addr((const void *)p->q[q].rx.desc);

    igb_wr(p, base + IGB_RDBAL, (uint32_t)ring);
    igb_wr(p, base + IGB_RDBAH, (uint32_t)(ring >> 32));
    igb_wr(p, base + IGB_RDLEN, CONFIG_NIC_RX_DESCS * 16);
    igb_wr(p, base + IGB_SRRCTL,
           (IGB_RX_BUF_KB << IGB_SRRCTL_BSIZEPKT_SHIFT) | IGB_SRRCTL_DESCTYPE_ADV_ONEBUF |
               IGB_SRRCTL_DROP_EN);
    igb_wr(p, base + IGB_RDH, 0);
    igb_wr(p, base + IGB_RDT, 0);
    igb_wr(p, base + IGB_RXDCTL, igb_rd(p, base + IGB_RXDCTL) | IGB_RXDCTL_ENABLE);
    int err = igb_wait(p, "RX queue enable (RXDCTL.ENABLE)", base + IGB_RXDCTL,
                       IGB_RXDCTL_ENABLE, IGB_RXDCTL_ENABLE, IGB_QUEUE_ENABLE_TIMEOUT_US);
    if (err == WS_OK && fill && iring_rx_fill(&p->q[q].rx) == 0) {
        kprintf("%s: init failed at RX queue %u fill: pool of core %u is empty\n", p->name, q, q);
        err = WS_ERR_NO_MEMORY;
    }
    return err;
}

/* 4.5.7 (per queue). */
static int igb_init_tx_queue(struct nic_port *p, unsigned q)
{
    uint32_t base = IGB_TXQ_BASE(q);
    uint64_t ring = dma_addr((const void *)p->q[q].tx.desc);

    igb_wr(p, base + IGB_TDBAL, (uint32_t)ring);
    igb_wr(p, base + IGB_TDBAH, (uint32_t)(ring >> 32));
    igb_wr(p, base + IGB_TDLEN, CONFIG_NIC_TX_DESCS * 16);
    igb_wr(p, base + IGB_TDH, 0);
    igb_wr(p, base + IGB_TDT, 0);
    igb_wr(p, base + IGB_TXDCTL, igb_rd(p, base + IGB_TXDCTL) | IGB_TXDCTL_ENABLE);
    return igb_wait(p, "TX queue enable (TXDCTL.ENABLE)", base + IGB_TXDCTL, IGB_TXDCTL_ENABLE,
                    IGB_TXDCTL_ENABLE, IGB_QUEUE_ENABLE_TIMEOUT_US);
}

/* RSS (8.10.14): hash IPv4 addresses and TCP/UDP ports with the key, look the low 7 bits of
 * the hash up in the 128-entry redirection table. Entry i -> queue i mod nqueues, so flows
 * spread evenly and a flow always lands on the same queue, hence the same core. */
static void igb_init_rss(struct nic_port *p)
{
    const uint8_t *key = rss_default_key;
    for (unsigned i = 0; i < IGB_RSSRK_REGS; i++) {
        igb_wr(p, IGB_RSSRK(i), (uint32_t)key[4 * i] | ((uint32_t)key[4 * i + 1] << 8) |
                                    ((uint32_t)key[4 * i + 2] << 16) |
                                    ((uint32_t)key[4 * i + 3] << 24));
    }
    for (unsigned i = 0; i < IGB_RETA_ENTRIES / 4; i++) {
        uint32_t v = 0;
        for (unsigned b = 0; b < 4; b++) {
            v |= (uint32_t)((4 * i + b) % p->nqueues) << (8 * b);
        }
        igb_wr(p, IGB_RETA(i), v);
    }
    /* PCSD: the descriptor's checksum field carries the RSS hash instead (8.10.x RXCSUM). */
    igb_wr(p, IGB_RXCSUM, igb_rd(p, IGB_RXCSUM) | IGB_RXCSUM_PCSD | IGB_RXCSUM_TUOFL);
    igb_wr(p, IGB_MRQC, p->nqueues > 1 ? IGB_MRQC_ENABLE_RSS | IGB_MRQC_RSS_IPV4 |
                                             IGB_MRQC_RSS_IPV4_TCP | IGB_MRQC_RSS_IPV4_UDP
                                       : 0);
}

static int igb_init_rx(struct nic_port *p, bool fill)
{
    igb_wr(p, IGB_RCTL, 0);
    for (unsigned i = 0; i < IGB_MTA_REGS; i++) {
        igb_wr(p, IGB_MTA(i), 0); /* no multicast groups: the appliance joins none */
    }
    igb_init_rss(p);
    for (unsigned q = 0; q < p->nqueues; q++) {
        int err = igb_init_rx_queue(p, q, fill);
        if (err != WS_OK) {
            return err;
        }
    }
    /* A wire-mode port is a bump in the wire: it must take every frame, whoever it is for. */
    uint32_t promisc = CONFIG_MODE_WIRE ? IGB_RCTL_UPE | IGB_RCTL_MPE : 0;
    igb_wr(p, IGB_RCTL, IGB_RCTL_EN | IGB_RCTL_BAM | IGB_RCTL_SECRC | promisc);
    return WS_OK;
}

static int igb_init_tx(struct nic_port *p)
{
    for (unsigned q = 0; q < p->nqueues; q++) {
        int err = igb_init_tx_queue(p, q);
        if (err != WS_OK) {
            return err;
        }
    }
    igb_wr(p, IGB_TCTL, igb_rd(p, IGB_TCTL) | IGB_TCTL_EN | IGB_TCTL_PSP);
    return WS_OK;
}

/* Queue interrupts only wake a halted core: the loop polls. The slot counts them. */
static void igb_irq_wake(void *arg)
{
    (void)arg;
}

static void igb_program_irqs(struct nic_port *p);

/* 4.5.1 / 7.3: MSI-X mode with one vector per queue pair (RX and TX queue q share entry q,
 * aimed at core q) plus one for link changes (entry nqueues, core 0). EIAC clears a vector's
 * EICR bit when its message is sent, so the next cause raises a new message. */
static int igb_init_msix(struct nic_port *p)
{
    char why[96];
    int err = msix_init(&p->msix, p->pci, why, sizeof(why));
    if (err != WS_OK) {
        kprintf("%s: init failed at MSI-X: %s\n", p->name, why);
        return err;
    }
    for (unsigned q = 0; q <= p->nqueues; q++) {
        unsigned core = q < p->nqueues ? q : 0;
        char name[IRQ_NAME_BYTES];
        snprintf(name, sizeof(name), q < p->nqueues ? "%sq%u" : "%slink", p->name, q);
        int vec = irq_alloc(core, igb_irq_wake, p, name);
        if (vec < 0 || msix_route(&p->msix, q, percpu_blocks[core].apic_id, (uint8_t)vec)) {
            kprintf("%s: init failed at MSI-X vector for %s on core %u\n", p->name, name, core);
            return WS_ERR_NO_MEMORY;
        }
        msix_unmask(&p->msix, q);
        if (q < p->nqueues) {
            p->q[q].msix_entry = (uint8_t)q;
            p->q[q].vector = (uint8_t)vec;
        }
    }
    igb_program_irqs(p);
    return WS_OK;
}

/* igb_program_irqs: the NIC's side of the set-up above: GPIE, throttling, which cause goes to
 * which entry, auto-clear, the link cause. The MSI-X table lives in its own BAR and survives
 * CTRL.RST, so after a reset only these registers need writing again. */
static void igb_program_irqs(struct nic_port *p)
{
    igb_wr(p, IGB_GPIE, IGB_GPIE_MSIX_MODE | IGB_GPIE_PBA | IGB_GPIE_NSICR);
    /* The interval field holds at most 8191 us; a larger configured value is capped, not
     * wrapped (nic.rx_usecs accepts up to 10000). */
    uint32_t usecs = CONFIG_NIC_RX_USECS > IGB_EITR_MAX_US ? IGB_EITR_MAX_US : CONFIG_NIC_RX_USECS;
    uint32_t eitr = (usecs << IGB_EITR_INTERVAL_SHIFT) & IGB_EITR_INTERVAL_MASK;
    uint32_t eiac = 0;
    for (unsigned q = 0; q <= p->nqueues; q++) {
        igb_wr(p, IGB_EITR(q), eitr);
        eiac |= 1U << q;
    }
    for (unsigned q = 0; q < p->nqueues; q++) {
        uint32_t ent = (uint32_t)(q | IGB_IVAR_VALID);
        igb_wr(p, IGB_IVAR0(q), ent | (ent << 8)); /* RX q and TX q -> entry q */
    }
    igb_wr(p, IGB_IVAR_MISC, (uint32_t)(p->nqueues | IGB_IVAR_VALID) << 8);
    igb_wr(p, IGB_EIAC, eiac);
    igb_wr(p, IGB_IMS, IGB_ICR_LSC);
    igb_wr(p, IGB_EIMS, 1U << p->nqueues); /* link vector always on; queue vectors when armed */
}

static void igb_irq_arm(struct nic_port *p, unsigned q)
{
    uint32_t bit = 1U << p->q[q].msix_entry;
    igb_wr(p, IGB_EICR, bit); /* forget a cause latched while disarmed: the ring is re-checked */
    igb_wr(p, IGB_EIMS, bit);
}

static void igb_irq_disarm(struct nic_port *p, unsigned q)
{
    igb_wr(p, IGB_EIMC, 1U << p->q[q].msix_entry);
}

/* Low then high: reading the high half clears the pair (8.19). */
static uint64_t igb_rd64(struct nic_port *p, uint32_t lo)
{
    uint64_t l = igb_rd(p, lo);
    return l | ((uint64_t)igb_rd(p, lo + 4) << 32);
}

static void igb_accumulate_stats(struct nic_port *p)
{
    struct nic_hw_stats acc = p->hw, *s = &acc; /* kept only if the device is still there */
    s->rx_packets += igb_rd(p, IGB_GPRC);
    s->rx_broadcast += igb_rd(p, IGB_BPRC);
    s->rx_multicast += igb_rd(p, IGB_MPRC);
    s->rx_bytes += igb_rd64(p, IGB_GORCL);
    s->rx_missed_errors += igb_rd(p, IGB_MPC);
    s->rx_no_buffer_count += igb_rd(p, IGB_RNBC);
    s->rx_crc_errors += igb_rd(p, IGB_CRCERRS);
    s->rx_undersize += igb_rd(p, IGB_RUC);
    s->rx_oversize += igb_rd(p, IGB_ROC);
    s->tx_packets += igb_rd(p, IGB_GPTC);
    s->tx_bytes += igb_rd64(p, IGB_GOTCL);
    for (unsigned q = 0; q < p->nqueues; q++) {
        s->rx_queue_drops[q] += igb_rd(p, IGB_RXQ_BASE(q) + IGB_RQDPC);
    }
    /* A device that left the bus while we read returned all-ones for counts: drop them (the
     * next presence check finds it gone). */
    if (igb_rd(p, IGB_STATUS) != IGB_ALL_ONES) {
        p->hw = acc;
    }
}

static void igb_update_link(struct nic_port *p)
{
    uint32_t st = igb_rd(p, IGB_STATUS);
    if (st == IGB_ALL_ONES) {
        return; /* gone since nic.c looked: the next housekeeping says so */
    }
    (void)igb_rd(p, IGB_ICR); /* clear LSC so the next change raises a new interrupt */
    bool up = (st & IGB_STATUS_LU) != 0;
    uint32_t speed = (st & IGB_STATUS_SPEED_MASK) == IGB_STATUS_SPEED_1000  ? 1000
                     : (st & IGB_STATUS_SPEED_MASK) == IGB_STATUS_SPEED_100 ? 100
                                                                            : 10;
    if (up == p->link_up && (!up || speed == p->speed_mbps)) {
        return;
    }
    p->link_up = up;
    p->speed_mbps = up ? speed : 0;
    p->link_changes++;
    if (up) {
        kprintf("%s: link up %u Mb/s %s duplex\n", p->name, speed,
                (st & IGB_STATUS_FD) ? "full" : "half");
    } else {
        kprintf("%s: link down\n", p->name);
    }
}

static void igb_housekeeping(struct nic_port *p)
{
    igb_update_link(p);
    igb_accumulate_stats(p);
}

static void igb_ring_heads(struct nic_port *p, unsigned q, uint32_t *rdh, uint32_t *rdt,
                           uint32_t *tdh, uint32_t *tdt)
{
    *rdh = igb_rd(p, IGB_RXQ_BASE(q) + IGB_RDH);
    *rdt = igb_rd(p, IGB_RXQ_BASE(q) + IGB_RDT);
    *tdh = igb_rd(p, IGB_TXQ_BASE(q) + IGB_TDH);
    *tdt = igb_rd(p, IGB_TXQ_BASE(q) + IGB_TDT);
}

static void igb_dump_regs(struct nic_port *p)
{
    static const struct nic_reg regs[] = {
        { "CTRL", IGB_CTRL }, { "STATUS", IGB_STATUS }, { "CTRL_EXT", IGB_CTRL_EXT },
        { "RCTL", IGB_RCTL }, { "TCTL", IGB_TCTL },     { "RXCSUM", IGB_RXCSUM },
        { "MRQC", IGB_MRQC }, { "GPIE", IGB_GPIE },     { "EIMS", IGB_EIMS },
        { "EIAC", IGB_EIAC }, { "IMS", IGB_IMS },       { "IVAR_MISC", IGB_IVAR_MISC },
        { "RAL0", IGB_RAL0 }, { "RAH0", IGB_RAH0 },
    };
    nic_print_regs(p, regs, sizeof(regs) / sizeof(regs[0]));
}

/* igb_present: STATUS reads all-ones once the device has left the bus. */
static bool igb_present(struct nic_port *p)
{
    return igb_rd(p, IGB_STATUS) != IGB_ALL_ONES;
}

static int igb_reset_port(struct nic_port *p);

static const struct nic_ops igb_ops = {
    .chip = "82576",
    .irq_arm = igb_irq_arm,
    .irq_disarm = igb_irq_disarm,
    .housekeeping = igb_housekeeping,
    .dump_regs = igb_dump_regs,
    .ring_heads = igb_ring_heads,
    .present = igb_present,
    .reset = igb_reset_port,
};

/* igb_map_bar0: the register BAR must be an implemented memory BAR of at least 128 KiB. */
static int igb_map_bar0(struct nic_port *p)
{
    const struct pci_bar *b = &p->pci->bar[IGB_BAR_MMIO];
    if (b->io || b->base == 0 || b->size < 0x20000) {
        kprintf("%s: init failed at BAR0: base 0x%llx size 0x%llx (need memory, >= 128 KiB)\n",
                p->name, (unsigned long long)b->base, (unsigned long long)b->size);
        return WS_ERR_DEVICE;
    }
    if (vm_map_mmio(b->base, b->size) != WS_OK) {
        kprintf("%s: init failed at BAR0 mapping 0x%llx\n", p->name, (unsigned long long)b->base);
        return WS_ERR_NO_MEMORY;
    }
    p->bar0 = (uintptr_t)b->base;
    return WS_OK;
}

/* igb_release_queues: after a failed bring-up, stop every queue that was set up (clear
 * ENABLE, bounded wait for it to read 0) and give its buffers back to the cores' pools. */
static void igb_release_queues(struct nic_port *p)
{
    for (unsigned q = 0; p->q != NULL && q < p->nqueues; q++) {
        struct nic_queue *nq = &p->q[q];
        uint32_t rx = IGB_RXQ_BASE(q) + IGB_RXDCTL, tx = IGB_TXQ_BASE(q) + IGB_TXDCTL;
        if (nq->rx.desc != NULL) {
            igb_wr(p, rx, igb_rd(p, rx) & ~IGB_RXDCTL_ENABLE);
            if (igb_wait(p, "RX queue disable (RXDCTL.ENABLE)", rx, IGB_RXDCTL_ENABLE, 0,
                         IGB_QUEUE_ENABLE_TIMEOUT_US) == WS_OK) {
                iring_rx_release(&nq->rx);
            }
        }
        if (nq->tx.desc != NULL) {
            igb_wr(p, tx, igb_rd(p, tx) & ~IGB_TXDCTL_ENABLE);
            if (igb_wait(p, "TX queue disable (TXDCTL.ENABLE)", tx, IGB_TXDCTL_ENABLE, 0,
                         IGB_QUEUE_ENABLE_TIMEOUT_US) == WS_OK) {
                iring_tx_release(&nq->tx);
            }
        }
    }
}

/*
 * igb_reset_port (nic_ops.reset): the probe's sequence again on a port no core uses any more:
 * 4.5.1-4.5.2 reset, MAC, statistics, 4.5.4 link, 4.5.7 transmit, 4.5.6 receive with every ring
 * empty (their cores release and refill them), and the NIC's interrupt registers; ring memory,
 * MSI-X table and IDT vectors are kept. CTRL.RST leaves the PHY alone (that is CTRL.PHY_RST),
 * so a link still up after it is kept (set link up in the MAC, no new auto-negotiation); a link
 * that is down gets the boot's set-up.
 */
static int igb_reset_port(struct nic_port *p)
{
    int err = igb_reset(p);
    err = err ? err : igb_read_mac(p);
    if (err == WS_OK) {
        igb_clear_stats(p);
        if (igb_rd(p, IGB_STATUS) & IGB_STATUS_LU) {
            igb_wr(p, IGB_CTRL, igb_rd(p, IGB_CTRL) | IGB_CTRL_SLU);
        } else {
            err = igb_setup_link(p);
        }
    }
    err = err ? err : igb_init_tx(p);
    err = err ? err : igb_init_rx(p, false);
    if (err == WS_OK) {
        igb_program_irqs(p);
    }
    return err;
}

int igb_probe(struct pci_dev *d, unsigned ncores)
{
    struct nic_port *p = nic_alloc_port();
    if (p == NULL) {
        return WS_ERR_NO_MEMORY;
    }
    p->pci = d;
    p->ops = &igb_ops;
    p->nqueues = ncores < IGB_MAX_QUEUES ? ncores : IGB_MAX_QUEUES;
    p->q = dma_alloc(p->nqueues * sizeof(struct nic_queue), 64);
    pci_enable(d);
    int err = p->q ? igb_map_bar0(p) : WS_ERR_NO_MEMORY;
    err = err ? err : igb_reset(p);
    err = err ? err : igb_read_mac(p);
    for (unsigned q = 0; err == WS_OK && q < p->nqueues; q++) {
        err = igb_alloc_queue(p, q);
    }
    if (err == WS_OK) {
        igb_clear_stats(p);
        err = igb_setup_link(p);
    }
    if (err == WS_OK) {
        err = igb_init_tx(p);
    }
    err = err ? err : igb_init_rx(p, true);
    err = err ? err : igb_init_msix(p);
    if (err != WS_OK) {
        if (p->bar0 && igb_rd(p, IGB_STATUS) != IGB_ALL_ONES) {
            igb_mask_all_irqs(p);
            igb_wr(p, IGB_RCTL, 0);
            igb_wr(p, IGB_TCTL, 0);
            igb_release_queues(p);
        }
        nic_abandon_port(p);
        return err;
    }
    igb_update_link(p);
    return WS_OK;
}
