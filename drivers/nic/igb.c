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
#include "drivers/nic/igb_regs.h"
#include "drivers/nic/nic.h"
#include "drivers/nic/nic_hw.h"
#include "err.h"
#include "time.h"

#define IGB_BAR_MMIO 0
#define IGB_BAR_MIN_BYTES 0x20000 /* the register space is 128 KiB */
#define IGB_RX_BUF_KB (PKB_DATA_BYTES / 1024)

bool igb_supports(const struct pci_dev *d)
{
    return d->vendor == IGB_VENDOR_INTEL &&
           (d->device == IGB_DEVICE_82576 || d->device == IGB_DEVICE_82576_FIBER ||
            d->device == IGB_DEVICE_82576_SERDES || d->device == IGB_DEVICE_82576_NS);
}

static void igb_mask_all_irqs(struct nic_port *p)
{
    nic_wr(p, IGB_IMC, IGB_IMC_ALL);
    nic_wr(p, IGB_EIMC, 0xFFFFFFFFU); /* every vector */
    (void)nic_rd(p, IGB_ICR); /* clear anything latched */
}

/* 4.5.1 and 4.5.2: interrupts off, global reset, wait for the NVM auto-read, interrupts off
 * again (the reset reloads them). A missing auto-read-done is not fatal: a board without an
 * NVM never sets it (Linux's igb carries on the same way), and QEMU's model does not set it
 * either; the MAC address check that follows catches a port that really has no NVM data. */
static int igb_reset(struct nic_port *p)
{
    igb_mask_all_irqs(p);
    nic_wr(p, IGB_RCTL, 0);
    nic_wr(p, IGB_TCTL, 0);
    nic_wr(p, IGB_CTRL, nic_rd(p, IGB_CTRL) | IGB_CTRL_RST);
    time_delay_us(IGB_RESET_DELAY_US);
    int err = nic_wait(p, "reset (CTRL.RST self-clear)", IGB_CTRL, IGB_CTRL_RST, 0,
                       IGB_RESET_TIMEOUT_US);
    if (err != WS_OK) {
        return err;
    }
    uint32_t eecd;
    if (!nic_poll(p, IGB_EECD, IGB_EECD_AUTO_RD, IGB_EECD_AUTO_RD, IGB_EECD_TIMEOUT_US, &eecd)) {
        kprintf("%s: note: EECD.AUTO_RD not set %u ms after reset (EECD 0x%08x); continuing\n",
                p->name, IGB_EECD_TIMEOUT_US / 1000, eecd);
    }
    igb_mask_all_irqs(p);
    nic_wr(p, IGB_CTRL_EXT, nic_rd(p, IGB_CTRL_EXT) | IGB_CTRL_EXT_DRV_LOAD);
    return WS_OK;
}

/* The NVM loads the port's address into receive address register 0 (8.10.x RAL/RAH). */
static int igb_read_mac(struct nic_port *p)
{
    uint32_t rah;
    int err = nic_read_mac(p, IGB_RAL0, IGB_RAH0, &rah);
    if (err == WS_OK && !(rah & IGB_RAH_AV)) {
        kprintf("%s: init failed at MAC address: RAH0 0x%08x has Address Valid clear\n",
                p->name, rah);
        err = WS_ERR_DEVICE;
    }
    return err;
}

/* igb_mdic: one MII management transaction with the internal PHY (8.2.5); bounded. */
static int igb_mdic(struct nic_port *p, uint32_t op, unsigned reg, uint16_t data, uint16_t *out)
{
    nic_wr(p, IGB_MDIC, op | ((uint32_t)reg << IGB_MDIC_REG_SHIFT) |
                            (IGB_MDIC_PHY_INTERNAL << IGB_MDIC_PHY_SHIFT) | data);
    int err = nic_wait(p, "PHY access (MDIC.READY)", IGB_MDIC, IGB_MDIC_READY, IGB_MDIC_READY,
                       IGB_MDIC_TIMEOUT_US);
    uint32_t v = nic_rd(p, IGB_MDIC);
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
    nic_wr(p, IGB_CTRL, nic_rd(p, IGB_CTRL) | IGB_CTRL_SLU);
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
        (void)nic_rd(p, regs[i]);
    }
    for (unsigned q = 0; q < IGB_MAX_QUEUES; q++) {
        (void)nic_rd(p, IGB_RXQ_BASE(q) + IGB_RQDPC);
    }
}

/* igb_alloc_queue: descriptor rings and software rings for queue q, owned by core q. */
static int igb_alloc_queue(struct nic_port *p, unsigned q)
{
    int err = nic_alloc_queue(p, q, IGB_RXQ_BASE(q) + IGB_RDT, IGB_TXQ_BASE(q) + IGB_TDT);
    if (err == WS_OK) {
        iring_rx_trust_l4_csum(&p->q[q].rx, IDESC_RX_ERR_82576_L4E); /* RXCSUM.TUOFL is set */
        iring_rx_trust_ipv4_csum(&p->q[q].rx, IDESC_RX_ERR_82576_IPE); /* and IPOFL */
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

    nic_ring_base(p, base + IGB_RDBAL, base + IGB_RDBAH, base + IGB_RDLEN, base + IGB_RDH,
                  base + IGB_RDT, (const void *)p->q[q].rx.desc,
                  IRING_DESC_MEM_BYTES(CONFIG_NIC_RX_DESCS));
    nic_wr(p, base + IGB_SRRCTL,
           (IGB_RX_BUF_KB << IGB_SRRCTL_BSIZEPKT_SHIFT) | IGB_SRRCTL_DESCTYPE_ADV_ONEBUF |
               IGB_SRRCTL_DROP_EN);
    nic_wr(p, base + IGB_RXDCTL, nic_rd(p, base + IGB_RXDCTL) | IGB_RXDCTL_ENABLE);
    int err = nic_wait(p, "RX queue enable (RXDCTL.ENABLE)", base + IGB_RXDCTL,
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

    nic_ring_base(p, base + IGB_TDBAL, base + IGB_TDBAH, base + IGB_TDLEN, base + IGB_TDH,
                  base + IGB_TDT, (const void *)p->q[q].tx.desc,
                  IRING_DESC_MEM_BYTES(CONFIG_NIC_TX_DESCS));
    nic_wr(p, base + IGB_TXDCTL, nic_rd(p, base + IGB_TXDCTL) | IGB_TXDCTL_ENABLE);
    return nic_wait(p, "TX queue enable (TXDCTL.ENABLE)", base + IGB_TXDCTL, IGB_TXDCTL_ENABLE,
                    IGB_TXDCTL_ENABLE, IGB_QUEUE_ENABLE_TIMEOUT_US);
}

/* RSS (8.10.14): hash IPv4 addresses and TCP/UDP ports with the key, look the low 7 bits of
 * the hash up in the 128-entry redirection table. Entry i -> queue i mod nqueues, so flows
 * spread evenly and a flow always lands on the same queue, hence the same core. */
static void igb_init_rss(struct nic_port *p)
{
    for (unsigned i = 0; i < IGB_RSSRK_REGS; i++) {
        nic_wr(p, IGB_RSSRK(i), nic_rss_key_word(i));
    }
    for (unsigned i = 0; i < IGB_RETA_ENTRIES / 4; i++) {
        nic_wr(p, IGB_RETA(i), nic_reta_word(i, p->nqueues));
    }
    /* PCSD: the descriptor's checksum field carries the RSS hash instead (8.10.x RXCSUM). */
    nic_wr(p, IGB_RXCSUM,
           nic_rd(p, IGB_RXCSUM) | IGB_RXCSUM_PCSD | IGB_RXCSUM_TUOFL | IGB_RXCSUM_IPOFL);
    /* IPv4 and IPv6 flows both spread (neighbour discovery then arrives on any core:
     * net/nd_relay.h carries what it learns to core 0). */
    nic_wr(p, IGB_MRQC, p->nqueues > 1 ? IGB_MRQC_ENABLE_RSS | IGB_MRQC_RSS_IPV4 |
                                             IGB_MRQC_RSS_IPV4_TCP | IGB_MRQC_RSS_IPV4_UDP |
                                             IGB_MRQC_RSS_IPV6 | IGB_MRQC_RSS_IPV6_TCP |
                                             IGB_MRQC_RSS_IPV6_UDP
                                       : 0);
}

static int igb_init_rx(struct nic_port *p, bool fill)
{
    nic_wr(p, IGB_RCTL, 0);
    if (p->vlan_hw) {
        nic_set(p, IGB_CTRL, IGB_CTRL_VME); /* for every queue: CTRL is global */
    }
    for (unsigned i = 0; i < IGB_MTA_REGS; i++) {
        nic_wr(p, IGB_MTA(i), 0); /* no multicast groups: the appliance joins none */
    }
    igb_init_rss(p);
    for (unsigned q = 0; q < p->nqueues; q++) {
        int err = igb_init_rx_queue(p, q, fill);
        if (err != WS_OK) {
            return err;
        }
    }
    uint32_t promisc = (nic_cfg.promiscuous ? IGB_RCTL_UPE | IGB_RCTL_MPE : 0) |
                       (nic_cfg.all_multicast ? IGB_RCTL_MPE : 0);
    /* Jumbo frames: long packets up to the largest MTU's frame (RLPML counts the FCS) */
    uint32_t lpe = NIC_JUMBO ? IGB_RCTL_LPE : 0;
    if (NIC_JUMBO) {
        nic_wr(p, IGB_RLPML, NIC_MAX_FRAME_BYTES);
    }
    nic_wr(p, IGB_RCTL, IGB_RCTL_EN | IGB_RCTL_BAM | IGB_RCTL_SECRC | lpe | promisc);
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
    nic_wr(p, IGB_TCTL, nic_rd(p, IGB_TCTL) | IGB_TCTL_EN | IGB_TCTL_PSP);
    return WS_OK;
}

/* 4.5.1 / 7.3: MSI-X mode with one vector per queue pair (RX and TX queue q share entry q,
 * aimed at core q) plus one for link changes (entry nqueues, core 0). EIAC clears a vector's
 * EICR bit when its message is sent, so the next cause raises a new message. */
/* igb_program_irqs: the NIC's side of the set-up above: GPIE, throttling, which cause goes to
 * which entry, auto-clear, the link cause. The MSI-X table lives in its own BAR and survives
 * CTRL.RST, so after a reset only these registers need writing again. */
static void igb_program_irqs(struct nic_port *p)
{
    nic_wr(p, IGB_GPIE, IGB_GPIE_MSIX_MODE | IGB_GPIE_PBA | IGB_GPIE_NSICR);
    /* The interval field holds at most 8191 us; a larger configured value is capped, not
     * wrapped (nic.rx_usecs accepts up to 10000). */
    uint32_t usecs = CONFIG_NIC_RX_USECS > IGB_EITR_MAX_US ? IGB_EITR_MAX_US : CONFIG_NIC_RX_USECS;
    uint32_t eitr = (usecs << IGB_EITR_INTERVAL_SHIFT) & IGB_EITR_INTERVAL_MASK;
    uint32_t eiac = 0;
    for (unsigned q = 0; q <= p->nqueues; q++) {
        nic_wr(p, IGB_EITR(q), eitr);
        eiac |= 1U << q;
    }
    for (unsigned q = 0; q < p->nqueues; q++) {
        uint32_t ent = (uint32_t)(q | IGB_IVAR_VALID);
        nic_wr(p, IGB_IVAR0(q), ent | (ent << 8)); /* RX q and TX q -> entry q */
    }
    nic_wr(p, IGB_IVAR_MISC, (uint32_t)(p->nqueues | IGB_IVAR_VALID) << 8);
    nic_wr(p, IGB_EIAC, eiac);
    nic_wr(p, IGB_IMS, IGB_ICR_LSC);
    nic_wr(p, IGB_EIMS, 1U << p->nqueues); /* link vector always on; queue vectors when armed */
}

static void igb_irq_arm(struct nic_port *p, unsigned q)
{
    uint32_t bit = 1U << p->q[q].msix_entry;
    nic_wr(p, IGB_EICR, bit); /* forget a cause latched while disarmed: the ring is re-checked */
    nic_wr(p, IGB_EIMS, bit);
}

static void igb_irq_disarm(struct nic_port *p, unsigned q)
{
    nic_wr(p, IGB_EIMC, 1U << p->q[q].msix_entry);
}

/* Low then high: reading the high half clears the pair (8.19). */
static uint64_t igb_rd64(struct nic_port *p, uint32_t lo)
{
    uint64_t l = nic_rd(p, lo);
    return l | ((uint64_t)nic_rd(p, lo + 4) << 32);
}

static void igb_accumulate_stats(struct nic_port *p)
{
    struct nic_hw_stats acc = p->hw, *s = &acc; /* kept only if the device is still there */
    s->rx_packets += nic_rd(p, IGB_GPRC);
    s->rx_broadcast += nic_rd(p, IGB_BPRC);
    s->rx_multicast += nic_rd(p, IGB_MPRC);
    s->rx_bytes += igb_rd64(p, IGB_GORCL);
    s->rx_missed_errors += nic_rd(p, IGB_MPC);
    s->rx_no_buffer_count += nic_rd(p, IGB_RNBC);
    s->rx_crc_errors += nic_rd(p, IGB_CRCERRS);
    s->rx_undersize += nic_rd(p, IGB_RUC);
    s->rx_oversize += nic_rd(p, IGB_ROC);
    s->tx_packets += nic_rd(p, IGB_GPTC);
    s->tx_bytes += igb_rd64(p, IGB_GOTCL);
    for (unsigned q = 0; q < p->nqueues; q++) {
        s->rx_queue_drops[q] += nic_rd(p, IGB_RXQ_BASE(q) + IGB_RQDPC);
    }
    /* A device that left the bus while we read returned all-ones for counts: drop them (the
     * next presence check finds it gone). */
    if (nic_rd(p, IGB_STATUS) != NIC_ALL_ONES) {
        p->hw = acc;
    }
}

static void igb_update_link(struct nic_port *p)
{
    uint32_t st = nic_rd(p, IGB_STATUS);
    if (st == NIC_ALL_ONES) {
        return; /* gone since nic.c looked: the next housekeeping says so */
    }
    (void)nic_rd(p, IGB_ICR); /* clear LSC so the next change raises a new interrupt */
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
    *rdh = nic_rd(p, IGB_RXQ_BASE(q) + IGB_RDH);
    *rdt = nic_rd(p, IGB_RXQ_BASE(q) + IGB_RDT);
    *tdh = nic_rd(p, IGB_TXQ_BASE(q) + IGB_TDH);
    *tdt = nic_rd(p, IGB_TXQ_BASE(q) + IGB_TDT);
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
    return nic_rd(p, IGB_STATUS) != NIC_ALL_ONES;
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


/* The queues' control registers, for nic_release_queues. */
static uint32_t igb_rxdctl(unsigned q)
{
    return IGB_RXQ_BASE(q) + IGB_RXDCTL;
}

static uint32_t igb_txdctl(unsigned q)
{
    return IGB_TXQ_BASE(q) + IGB_TXDCTL;
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
        if (nic_rd(p, IGB_STATUS) & IGB_STATUS_LU) {
            nic_wr(p, IGB_CTRL, nic_rd(p, IGB_CTRL) | IGB_CTRL_SLU);
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

/*
 * The sequence, in the order of the 82576 datasheet's section 4.5 (initialization):
 *   1 disable interrupts        4.5.1  IMC, EIMC, ICR                 igb_mask_all_irqs
 *   2 global reset              4.5.1  CTRL.RST (self-clearing)       igb_reset
 *     NVM auto-read done        4.5.2  EECD.AUTO_RD (a note if not)   igb_reset
 *     disable interrupts again  4.5.1  (the reset reloads them)       igb_mask_all_irqs
 *     driver loaded                    CTRL_EXT.DRV_LOAD              igb_reset
 *     MAC address                      RAL0/RAH0, Address Valid       igb_read_mac
 *     ring memory                      (host memory, per queue)       nic_alloc_queue
 *   3 statistics                4.5.5  clear-on-read reads            igb_clear_stats
 *   4 link setup (copper)       4.5.4  CTRL.SLU, PHY BMCR over MDIC (8.2.5)   igb_setup_link
 *   5 transmit                  4.5.7  TDBAL..TDT, TXDCTL, TCTL       igb_init_tx
 *   6 receive                   4.5.6  RCTL, MTA, RSS (8.10.14), SRRCTL, RXDCTL  igb_init_rx
 *   7 interrupts                7.3    MSI-X table, GPIE, EITR, IVAR, EIAC, EIMS  nic_msix_route
 * A failure at any step quiesces the port (interrupts off, RCTL/TCTL 0, queues stopped and
 * their buffers returned) and the port is skipped.
 */
int igb_probe(struct pci_dev *d, unsigned ncores)
{
    struct nic_port *p;
    unsigned nq = ncores < IGB_MAX_QUEUES ? ncores : IGB_MAX_QUEUES;
    int err = nic_hw_begin(d, &igb_ops, nq, IGB_BAR_MMIO, IGB_BAR_MIN_BYTES, &p);
    if (p == NULL) {
        return err;
    }
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
    err = err ? err : nic_msix_route(p, igb_program_irqs);
    if (err != WS_OK) {
        if (p->bar0 && nic_rd(p, IGB_STATUS) != NIC_ALL_ONES) {
            igb_mask_all_irqs(p);
            nic_wr(p, IGB_RCTL, 0);
            nic_wr(p, IGB_TCTL, 0);
            nic_release_queues(p, igb_rxdctl, igb_txdctl, IGB_QUEUE_ENABLE_TIMEOUT_US);
        }
        nic_abandon_port(p);
        return err;
    }
    igb_update_link(p);
    return WS_OK;
}

WS_NIC_DRIVER(igb, .supports = igb_supports, .probe = igb_probe);
