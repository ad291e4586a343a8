/*
 * drivers/nic/ixgbe.c: Intel 82599 driver. Bring-up follows the 82599 10 GbE Controller Datasheet
 * (rev 3.x) §4.6.3 "Initialization Sequence", one function per step, plus its Specification Update
 * where that changes a step; registers are in ixgbe_regs.h. Rings and descriptors are the family's
 * shared code (intel_ring.c), as for the 82576 (igb.c).
 */
#include "ixgbe.h"

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "console.h"
#include "drivers/nic/ixgbe_int.h"
#include "drivers/nic/ixgbe_regs.h"
#include "drivers/nic/nic.h"
#include "drivers/nic/nic_hw.h"
#include "err.h"
#include "time.h"

#define IXGBE_VENDOR_INTEL 0x8086
#define IXGBE_BAR_MMIO 0
#define IXGBE_BAR_MIN_BYTES 0x20000 /* the register space is 128 KiB */
#define IXGBE_MAX_QUEUES 16         /* RSS alone (MRQC.MRQE = 0001b) spreads over 16 queues */
#define IXGBE_RAR_ENTRIES 128       /* receive address registers RAL/RAH 0..127 */
#define IXGBE_TX_PTHRESH 32         /* TXDCTL prefetch threshold (see ixgbe_init_tx_queue) */
#define IXGBE_TX_HTHRESH 1
#define IXGBE_TX_WTHRESH 1

/*
 * The 82599 boards we drive. None needs an external PHY:
 *  - SFP+ (SFI): the MAC drives the module's serial lanes itself; the driver reads the module
 *    over I2C, sets its laser, the NVM's init sequence and the mode its speed needs
 *    (ixgbe_sfp.c; docs/hardware.md lists what was tested against which module).
 *  - backplane (KX4/KX/KR): the EEPROM-loaded AUTOC/AUTOC2 select clause 73 auto-negotiation,
 *    which runs in the MAC.
 * Left out: T3 LOM 0x151C (external 10GBASE-T PHY set up over MDIO), CX4 0x10F9 and XAUI LOM
 * 0x10FC (parallel XAUI with, on the LOM, an external PHY), QSFP/quad-port 0x1558/0x154A and LS
 * 0x154F (media handled specially by Linux, no board to check against), the virtual function
 * 0x10ED (a different register set).
 */
static const struct ixgbe_id {
    uint16_t device;
    bool sfp;
} ixgbe_ids[] = {
    { IXGBE_DEV_ID_82599_SFP, true },           { IXGBE_DEV_ID_82599_SFP_EM, true },
    { IXGBE_DEV_ID_82599_SFP_FCOE, true },      { IXGBE_DEV_ID_82599_SFP_SF2, true },
    { IXGBE_DEV_ID_82599EN_SFP, true },         { IXGBE_DEV_ID_82599_KX4, false },
    { IXGBE_DEV_ID_82599_KX4_MEZZ, false },     { IXGBE_DEV_ID_82599_COMBO_BACKPLANE, false },
    { IXGBE_DEV_ID_82599_KR, false },           { IXGBE_DEV_ID_82599_BACKPLANE_FCOE, false },
};

/* ixgbe_id: d's entry in ixgbe_ids, or NULL if we do not drive it. */
static const struct ixgbe_id *ixgbe_id(const struct pci_dev *d)
{
    size_t n = d->vendor == IXGBE_VENDOR_INTEL ? sizeof(ixgbe_ids) / sizeof(ixgbe_ids[0]) : 0;
    for (size_t i = 0; i < n; i++) {
        if (ixgbe_ids[i].device == d->device) {
            return &ixgbe_ids[i];
        }
    }
    return NULL;
}

bool ixgbe_supports(const struct pci_dev *d)
{
    return ixgbe_id(d) != NULL;
}

/* ---- §4.6.3 steps 1-4: quiesce, reset, wait for the EEPROM and DMA ----------------------- */

/* §4.6.3.1: mask every cause and vector and drop whatever is latched. Before and after reset. */
static void ixgbe_disable_irqs(struct nic_port *p)
{
    nic_wr(p, IXGBE_EIMC, IXGBE_EIMC_ALL_CAUSES);
    nic_wr(p, IXGBE_EIMC_EX(0), NIC_ALL_ONES);
    nic_wr(p, IXGBE_EIMC_EX(1), NIC_ALL_ONES);
    (void)nic_rd(p, IXGBE_EICR); /* clear-on-read outside MSI-X mode (reset state) */
}

/* Specification Update "Master Disable Flow": with master requests stuck, flush the transmit
 * path (loopback on, RX off, GCR_EXT.Buffers_Clear_Func for 20 us) before resetting. */
static void ixgbe_flush_buffers(struct nic_port *p)
{
    nic_set(p, IXGBE_HLREG0, IXGBE_HLREG0_LPBK);
    nic_clear(p, IXGBE_RXCTRL, IXGBE_RXCTRL_RXEN);
    nic_set(p, IXGBE_GCR_EXT, IXGBE_GCR_EXT_BUFFERS_CLEAR);
    time_delay_us(IXGBE_BUFFERS_CLEAR_US);
    nic_clear(p, IXGBE_GCR_EXT, IXGBE_GCR_EXT_BUFFERS_CLEAR);
    nic_clear(p, IXGBE_HLREG0, IXGBE_HLREG0_LPBK);
}

/* §5.2.5.3.2 "Master Disable": stop new DMA and wait for outstanding requests before the reset.
 * A firmware (PXE ROM) may have left the port running. If STATUS.GIO never clears, the
 * Specification Update says: flush, then reset twice; *resets says how many resets follow. */
static int ixgbe_master_disable(struct nic_port *p, unsigned *resets)
{
    uint32_t ctrl = nic_rd(p, IXGBE_CTRL), st;
    if (ctrl == NIC_ALL_ONES) {
        return nic_fail(p, "master disable (CTRL)", IXGBE_CTRL, ctrl, "a readable register");
    }
    nic_wr(p, IXGBE_CTRL, ctrl | IXGBE_CTRL_GIO_DIS);
    *resets = 1;
    if (nic_poll(p, IXGBE_STATUS, IXGBE_STATUS_GIO, 0, IXGBE_MASTER_DISABLE_TIMEOUT_US, &st)) {
        return WS_OK;
    }
    if (st == NIC_ALL_ONES) {
        return nic_fail(p, "master disable (STATUS.GIO)", IXGBE_STATUS, st, "GIO clear");
    }
    kprintf("%s: note: STATUS.GIO still set %u ms after CTRL.GIO_DIS (STATUS 0x%08x); flushing "
            "and resetting twice\n", p->name, IXGBE_MASTER_DISABLE_TIMEOUT_US / 1000, st);
    ixgbe_flush_buffers(p);
    *resets = 2;
    return WS_OK;
}

/* §4.6.3.2: global reset. RST resets the device but keeps the link for manageability; LRST
 * resets the link too. Nothing shares these ports with us and a boot should start from a known
 * link state, so both at boot; a reset of a running port whose link is up (a hung queue: the
 * link is not the problem) keeps it, as Linux's ixgbe_reset_hw_82599 does, instead of
 * retraining it for up to a second. Both bits self-clear; then the datasheet asks for 10 ms of
 * quiet. */
static int ixgbe_global_reset(struct nic_port *p, unsigned resets, bool keep_link)
{
    /* Management firmware that must keep its link (MNG_VETO) gets a MAC-only reset. */
    keep_link = keep_link || (nic_rd(p, IXGBE_MMNGC) & IXGBE_MMNGC_MNG_VETO);
    uint32_t bits = keep_link ? IXGBE_CTRL_RST : IXGBE_CTRL_RST | IXGBE_CTRL_LRST;
    for (unsigned i = 0; i < resets; i++) {
        nic_set(p, IXGBE_CTRL, bits);
        time_delay_us(IXGBE_RESET_DELAY_US);
        int err = nic_wait(p, "global reset (CTRL.RST/LRST self-clear)", IXGBE_CTRL,
                             IXGBE_CTRL_RST | IXGBE_CTRL_LRST, 0, IXGBE_RESET_TIMEOUT_US);
        if (err != WS_OK) {
            return err;
        }
        time_delay_us(IXGBE_RESET_SETTLE_US);
    }
    return WS_OK;
}

/* §4.6.3 steps 3-4: the EEPROM auto-read (MAC address, AUTOC ...) and the DMA init must be done
 * before anything is configured. Unlike the 82576 (igb.c), a missing auto-read is fatal: the
 * 82599 takes its link mode from the EEPROM too. */
static int ixgbe_wait_eeprom_and_dma(struct nic_port *p)
{
    int err = nic_wait(p, "EEPROM auto-read (EEC.ARD)", IXGBE_EEC, IXGBE_EEC_ARD,
                         IXGBE_EEC_ARD, IXGBE_EEC_ARD_TIMEOUT_US);
    if (err == WS_OK) {
        err = nic_wait(p, "DMA init (RDRXCTL.DMAIDONE)", IXGBE_RDRXCTL, IXGBE_RDRXCTL_DMAIDONE,
                         IXGBE_RDRXCTL_DMAIDONE, IXGBE_DMAIDONE_TIMEOUT_US);
    }
    return err;
}

/* The EEPROM loads the port's address into receive address 0 (§8.2.3.7, RAL/RAH). */
static int ixgbe_read_mac(struct nic_port *p)
{
    uint32_t hi;
    int err = nic_read_mac(p, IXGBE_RAL(0), IXGBE_RAH(0), &hi);
    if (err != WS_OK) {
        return err;
    }
    if (!(hi & IXGBE_RAH_AV)) {
        nic_wr(p, IXGBE_RAH(0), hi | IXGBE_RAH_AV); /* a good address the filter ignores */
    }
    /* Firmware (manageability) learns that a driver owns the port now (§8.2.3.1.3). */
    nic_set(p, IXGBE_CTRL_EXT, IXGBE_CTRL_EXT_DRV_LOAD);
    return WS_OK;
}

/* ---- §4.6.4 link setup ------------------------------------------------------------------ */

static const char *ixgbe_link_mode(uint32_t autoc, uint32_t autoc2)
{
    uint32_t pma = autoc2 & IXGBE_AUTOC2_10G_SERIAL_PMA_PMD_MASK;
    switch (autoc & IXGBE_AUTOC_LMS_MASK) {
    case IXGBE_AUTOC_LMS_10G_SERIAL:
        return pma == IXGBE_AUTOC2_10G_SFI ? "10G SFI" : pma == IXGBE_AUTOC2_10G_KR ? "10G KR"
                                                                                   : "10G XFI";
    case IXGBE_AUTOC_LMS_KX4_KX_KR:
    case IXGBE_AUTOC_LMS_KX4_KX_KR_1G_AN:
    case IXGBE_AUTOC_LMS_KX4_KX_KR_SGMII:
        return "KX4/KX/KR auto-negotiation";
    case IXGBE_AUTOC_LMS_10G_LINK_NO_AN:
        return "10G parallel, no auto-negotiation";
    case IXGBE_AUTOC_LMS_1G_LINK_NO_AN:
        return "1G, no auto-negotiation";
    case IXGBE_AUTOC_LMS_1G_AN:
        return "1G clause 37 auto-negotiation";
    default:
        return "SGMII";
    }
}

/* ixgbe_lesm_enabled: does the NVM's firmware section say the firmware's link state machine
 * (LESM) shares AUTOC with us? An absent section means no. */
static bool ixgbe_lesm_enabled(struct nic_port *p)
{
    uint16_t fw, lesm, state;
    return ixgbe_nvm_read(p, IXGBE_FW_PTR, &fw) == WS_OK && fw != 0 && fw != 0xFFFF &&
           ixgbe_nvm_read(p, (unsigned)fw + IXGBE_FW_LESM_PARAMETERS_PTR, &lesm) == WS_OK &&
           lesm != 0 && lesm != 0xFFFF &&
           ixgbe_nvm_read(p, (unsigned)lesm + IXGBE_FW_LESM_STATE_1, &state) == WS_OK &&
           (state & IXGBE_FW_LESM_STATE_ENABLED);
}

/*
 * ixgbe_autoc_write: a new link mode, applied the way the 82599 Specification Update's
 * "pipeline reset" asks (a restart alone can leave the MAC's link pipeline stuck): AUTOC with
 * LMS bit 2 flipped and Restart_AN, wait for the link state machine to leave state 0 (ANLP1),
 * then the wanted AUTOC with Restart_AN. Under the MAC CSR semaphore when the firmware's LESM
 * shares AUTOC. Nothing at all while the management firmware vetoes link resets (MNG_VETO).
 */
void ixgbe_autoc_write(struct nic_port *p, uint32_t autoc)
{
    if (nic_rd(p, IXGBE_MMNGC) & IXGBE_MMNGC_MNG_VETO) {
        kprintf("%s: management firmware vetoes link resets (MMNGC.MNG_VETO): link mode left "
                "as it is (AUTOC 0x%08x, wanted 0x%08x)\n", p->name, nic_rd(p, IXGBE_AUTOC),
                autoc);
        return;
    }
    bool lesm = ixgbe_lesm_enabled(p);
    if (lesm && !ixgbe_swfw_take(p, IXGBE_GSSR_MAC_CSR_SM)) {
        return; /* said why; the EEPROM's mode stays */
    }
    autoc |= IXGBE_AUTOC_AN_RESTART;
    nic_wr(p, IXGBE_AUTOC, autoc ^ (0x4UL << IXGBE_AUTOC_LMS_SHIFT));
    uint64_t deadline = time_deadline_us(IXGBE_PIPELINE_RESET_TIMEOUT_US);
    uint32_t anlp1;
    while (((anlp1 = nic_rd(p, IXGBE_ANLP1)) & IXGBE_ANLP1_AN_STATE_MASK) == 0 &&
           !time_after(deadline)) {
    }
    if ((anlp1 & IXGBE_ANLP1_AN_STATE_MASK) == 0) {
        kprintf("%s: note: link pipeline reset: ANLP1 stayed in state 0 (0x%08x) for %u ms\n",
                p->name, anlp1, IXGBE_PIPELINE_RESET_TIMEOUT_US / 1000);
    }
    nic_wr(p, IXGBE_AUTOC, autoc);
    if (lesm) {
        ixgbe_swfw_give(p, IXGBE_GSSR_MAC_CSR_SM);
    }
}

/* AUTOC2's link-disable bits, if the NVM loaded them (at every reset), hold the link off for
 * good: clear them (Linux does so after every reset too), and say so. */
static void ixgbe_enable_link(struct nic_port *p)
{
    uint32_t autoc2 = nic_rd(p, IXGBE_AUTOC2);
    if (autoc2 & IXGBE_AUTOC2_LINK_DISABLE_MASK) {
        kprintf("%s: the NVM left the link disabled (AUTOC2 0x%08x): enabling it\n", p->name,
                autoc2);
        nic_wr(p, IXGBE_AUTOC2, autoc2 & ~IXGBE_AUTOC2_LINK_DISABLE_MASK);
    }
}

/* §4.6.4: the EEPROM has set AUTOC/AUTOC2 for this board. An SFP+ board gets the mode its
 * module needs (ixgbe_sfp.c: 10G SFI, or 1G); backplane boards keep their KX4/KX/KR
 * auto-negotiation. AUTOC.Restart_AN applies the setting and (re)starts the link; it comes up
 * asynchronously while RX and TX are set up, and ixgbe_wait_link waits for it at the end. */
static int ixgbe_setup_link(struct nic_port *p)
{
    uint32_t autoc = nic_rd(p, IXGBE_AUTOC);

    if (autoc == NIC_ALL_ONES) {
        return nic_fail(p, "link setup (AUTOC)", IXGBE_AUTOC, autoc, "a readable register");
    }
    if (p->media.cage) {
        ixgbe_sfp_setup(p, &autoc);
        if (!p->media.present || p->media.refused) {
            return WS_OK; /* nothing to train against; housekeeping watches the cage */
        }
    }
    ixgbe_autoc_write(p, autoc);
    return WS_OK;
}

/* §4.6.4: bounded wait for LINKS.LINK_UP. Down is not a failure (no cable yet, a peer still
 * booting): say so, and housekeeping reports the link when it comes up. */
static int ixgbe_wait_link(struct nic_port *p)
{
    uint32_t links;
    if (p->media.cage && (!p->media.present || p->media.refused)) {
        return WS_OK; /* no module to wait for: said so already */
    }
    if (nic_poll(p, IXGBE_LINKS, IXGBE_LINKS_UP, IXGBE_LINKS_UP, IXGBE_LINK_UP_TIMEOUT_US,
                   &links)) {
        return WS_OK;
    }
    if (links == NIC_ALL_ONES) {
        return nic_fail(p, "link up (LINKS)", IXGBE_LINKS, links, "a readable register");
    }
    uint32_t autoc = nic_rd(p, IXGBE_AUTOC);
    kprintf("%s: link down %u ms after setup (LINKS 0x%08x, AUTOC 0x%08x: %s); continuing, "
            "the link is reported when it comes up\n", p->name, IXGBE_LINK_UP_TIMEOUT_US / 1000,
            links, autoc, ixgbe_link_mode(autoc, nic_rd(p, IXGBE_AUTOC2)));
    return WS_OK;
}

/* ---- §3.7.7 flow control ---------------------------------------------------------------- */

/*
 * IEEE 802.3x PAUSE as nic.flow_control says (bit 0: obey, bit 1: send), one traffic class.
 * Sending: XOFF (the longest pause, 0xFFFF quanta, refreshed at half of it) once the RX packet
 * buffer is within IXGBE_FC_HEADROOM of full (room for what is still in flight when the peer
 * stops: two maximum frames and the wire at 10 Gb/s are far below 48 KiB), XON once it has
 * drained IXGBE_FC_HYSTERESIS below that. Received PAUSE frames never reach the host (DPF).
 * Our queues keep SRRCTL.DROP_EN, so a queue whose core falls behind drops its own frames
 * instead of filling the shared buffer: XOFF goes out only when the NIC as a whole cannot
 * keep up (PCIe, memory), and one slow core never pauses the whole port.
 */
#define IXGBE_FC_HEADROOM (48u * 1024)
#define IXGBE_FC_HYSTERESIS (64u * 1024)
#define IXGBE_FC_HIGH_WATER (IXGBE_RXPBSIZE_MAX - IXGBE_FC_HEADROOM) /* bytes, 32-byte units */
#define IXGBE_FC_LOW_WATER (IXGBE_FC_HIGH_WATER - IXGBE_FC_HYSTERESIS)
#define IXGBE_FC_PAUSE_TIME 0xFFFFu
#define IXGBE_FC_TC_REGS 8 /* FCRTL/FCRTH per traffic class; only class 0 is used */

/* §4.6.11.3 (DCB off): packet buffer 0 gets all of RX and TX, the others none (written first,
 * so the sizes never add up to more than there is); TX starts a frame once it has the room for
 * the largest one. Before RX and TX are enabled. */
static void ixgbe_init_packet_buffers(struct nic_port *p)
{
    for (unsigned i = IXGBE_MAX_PB - 1; i > 0; i--) {
        nic_wr(p, IXGBE_RXPBSIZE(i), 0);
        nic_wr(p, IXGBE_TXPBSIZE(i), 0);
        nic_wr(p, IXGBE_TXPBTHRESH(i), 0);
    }
    nic_wr(p, IXGBE_RXPBSIZE(0), IXGBE_RXPBSIZE_MAX);
    nic_wr(p, IXGBE_TXPBSIZE(0), IXGBE_TXPBSIZE_MAX);
    nic_wr(p, IXGBE_TXPBTHRESH(0), (IXGBE_TXPBSIZE_MAX >> 10) - IXGBE_TXPKT_SIZE_MAX);
}

/* nic.flow_control: bit 0 obey PAUSE, bit 1 send it. */
static void ixgbe_init_flow_control(struct nic_port *p)
{
    static const char *const names[] = { "off", "rx", "tx", "full" };
    unsigned mode = CONFIG_NIC_FLOW_CONTROL;

    nic_wr(p, IXGBE_MFLCN, IXGBE_MFLCN_DPF | ((mode & 1) ? IXGBE_MFLCN_RFCE : 0));
    nic_wr(p, IXGBE_FCCFG, (mode & 2) ? IXGBE_FCCFG_TFCE_802_3X : 0);
    for (unsigned tc = 0; tc < IXGBE_FC_TC_REGS; tc++) {
        bool on = tc == 0 && (mode & 2);
        nic_wr(p, IXGBE_FCRTL_82599(tc), on ? IXGBE_FC_LOW_WATER | IXGBE_FCRTL_XONE : 0);
        nic_wr(p, IXGBE_FCRTH_82599(tc), on ? IXGBE_FC_HIGH_WATER | IXGBE_FCRTH_FCEN : 0);
    }
    for (unsigned i = 0; i < IXGBE_FC_TC_REGS / 2; i++) {
        nic_wr(p, IXGBE_FCTTV(i), IXGBE_FC_PAUSE_TIME * 0x00010001u);
    }
    nic_wr(p, IXGBE_FCRTV, IXGBE_FC_PAUSE_TIME / 2);
    p->flow_control = names[mode & 3];
}

/* ---- §4.6.5 statistics ------------------------------------------------------------------ */

/* Map RX queue q's per-queue counters to set q (RQSMR), then read every counter we use once:
 * they are clear-on-read, so the totals start at zero. */
static void ixgbe_init_stats(struct nic_port *p)
{
    static const uint32_t regs[] = { IXGBE_CRCERRS, IXGBE_GPRC,      IXGBE_BPRC,
                                     IXGBE_MPRC,    IXGBE_GPTC,      IXGBE_GORCL,
                                     IXGBE_GORCH,   IXGBE_GOTCL,     IXGBE_GOTCH,
                                     IXGBE_RUC,     IXGBE_ROC,       IXGBE_LXONTXC,
                                     IXGBE_LXOFFTXC, IXGBE_LXONRXCNT, IXGBE_LXOFFRXCNT };
    for (unsigned i = 0; i < IXGBE_QSTAT_SETS / 4; i++) {
        uint32_t v = 0;
        for (unsigned b = 0; b < 4; b++) {
            v |= (uint32_t)(4 * i + b) << (8 * b);
        }
        nic_wr(p, IXGBE_RQSMR(i), v);
    }
    for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
        (void)nic_rd(p, regs[i]);
    }
    for (unsigned i = 0; i < IXGBE_PACKET_BUFFERS; i++) {
        (void)nic_rd(p, IXGBE_MPC(i));
        (void)nic_rd(p, IXGBE_RNBC(i));
    }
    for (unsigned i = 0; i < IXGBE_QSTAT_SETS; i++) {
        (void)nic_rd(p, IXGBE_QPRDC(i));
    }
}

/* ---- rings ------------------------------------------------------------------------------ */

/* ixgbe_alloc_queue: descriptor and software rings for queue q, owned by core q. */
static int ixgbe_alloc_queue(struct nic_port *p, unsigned q)
{
    int err = nic_alloc_queue(p, q, IXGBE_RDT(q), IXGBE_TDT(q));
    if (err == WS_OK) {
        /* The 82599's error bits differ from the 82576's (intel_desc.h). */
        iring_rx_set_err_mask(&p->q[q].rx, IDESC_RX_ERR_FRAME_82599);
        /* The 82599's RXCSUM has no TCP/UDP enable bit: it checks whenever it can (Linux's
         * ixgbe relies on the same). Only a reported success is trusted, so its UDP
         * zero-checksum erratum (L4E on a datagram without checksum) costs a software check,
         * never a drop. */
        iring_rx_trust_l4_csum(&p->q[q].rx, IDESC_RX_ERR_82599_L4E);
        /* The IPv4 header checksum likewise, always checked (IPCS), IPE when it failed. */
        iring_rx_trust_ipv4_csum(&p->q[q].rx, IDESC_RX_ERR_82599_IPE);
    }
    return err;
}

/* ---- §4.6.7 receive --------------------------------------------------------------------- */

/* §4.6.7: address filters. Receive address 0 is ours (pool 0); every other one is cleared so
 * that no stale valid bit accepts frames for someone else. Broadcast is accepted (ARP); a
 * wire-mode port is a bump in the wire and takes every frame (unicast and multicast
 * promiscuous), and one with IPv6 every multicast frame (MPE: neighbour discovery's groups,
 * sorted in software). MCSTCTRL.MFE stays 0, so the multicast table is not consulted. */
static void ixgbe_init_rx_filters(struct nic_port *p)
{
    nic_wr(p, IXGBE_MPSAR_LO(0), 1);
    for (unsigned i = 1; i < IXGBE_RAR_ENTRIES; i++) {
        nic_wr(p, IXGBE_RAH(i), 0);
        nic_wr(p, IXGBE_RAL(i), 0);
    }
    uint32_t promisc = (nic_cfg.promiscuous ? IXGBE_FCTRL_UPE | IXGBE_FCTRL_MPE : 0) |
                       (nic_cfg.all_multicast ? IXGBE_FCTRL_MPE : 0);
    nic_wr(p, IXGBE_FCTRL, IXGBE_FCTRL_BAM | promisc);
}

/* §4.6.7: strip the FCS, and say so twice (HLREG0.RXCRCSTRP and RDRXCTL.CRCSTRIP must agree);
 * jumbo frames (HLREG0.JUMBOEN, MAXFRS.MFS) only when the config's largest MTU is above 1500,
 * up to its frame, which one PKB_DATA_BYTES buffer holds. RDRXCTL: RSCFRSTSIZE to 0 and
 * RSCACKC/FCOE_WRFIX to 1, as the datasheet asks instead of their reset values. The RX packet
 * buffer keeps its reset size: all 512 KB in RXPBSIZE[0], which is what a port without DCB or
 * virtualization wants (§4.6.11). */
static void ixgbe_init_rx_offloads(struct nic_port *p)
{
    uint32_t hl = (nic_rd(p, IXGBE_HLREG0) | IXGBE_HLREG0_RXCRCSTRP) & ~IXGBE_HLREG0_JUMBOEN;
    if (NIC_JUMBO) {
        nic_wr(p, IXGBE_MAXFRS, (uint32_t)NIC_MAX_FRAME_BYTES << IXGBE_MHADD_MFS_SHIFT);
        hl |= IXGBE_HLREG0_JUMBOEN;
    }
    nic_wr(p, IXGBE_HLREG0, hl);
    uint32_t rdrx = nic_rd(p, IXGBE_RDRXCTL) & ~IXGBE_RDRXCTL_RSCFRSTSIZE;
    nic_wr(p, IXGBE_RDRXCTL, rdrx | IXGBE_RDRXCTL_CRCSTRIP | IXGBE_RDRXCTL_RSCACKC |
                                   IXGBE_RDRXCTL_FCOE_WRFIX);
}

/* RSS (§7.1.2.8): hash IPv4 addresses and TCP/UDP ports with the key, look the low 7 bits of
 * the hash up in the 128-entry redirection table. Entry i -> queue i mod nqueues: flows spread
 * evenly and a flow always lands on the same queue, hence the same core. Kept on with one
 * queue too (the table is all zeroes then), so every descriptor carries the hash. */
static void ixgbe_init_rss(struct nic_port *p)
{
    for (unsigned i = 0; i < IXGBE_RSSRK_REGS; i++) {
        nic_wr(p, IXGBE_RSSRK(i), nic_rss_key_word(i));
    }
    for (unsigned i = 0; i < IXGBE_RETA_REGS; i++) {
        nic_wr(p, IXGBE_RETA(i), nic_reta_word(i, p->nqueues));
    }
    /* PCSD: the descriptor's checksum field carries the RSS hash instead (RXCSUM). */
    nic_set(p, IXGBE_RXCSUM, IXGBE_RXCSUM_PCSD);
    /* IPv4 and IPv6 flows both spread (net/nd_relay.h: neighbour discovery to core 0). */
    nic_wr(p, IXGBE_MRQC, IXGBE_MRQC_RSSEN | IXGBE_MRQC_RSS_FIELD_IPV4 |
                                IXGBE_MRQC_RSS_FIELD_IPV4_TCP | IXGBE_MRQC_RSS_FIELD_IPV4_UDP |
                                IXGBE_MRQC_RSS_FIELD_IPV6 | IXGBE_MRQC_RSS_FIELD_IPV6_TCP |
                                IXGBE_MRQC_RSS_FIELD_IPV6_UDP);
}

/* §4.6.7, per queue: ring base and length, one PKB_DATA_BYTES buffer per advanced descriptor,
 * drop (and count in QPRDC) instead of stalling the packet buffer when this queue has no
 * descriptor, enable, and wait until the enable reads back: the tail must not be written
 * before. Then, at probe (fill), post buffers, which writes RDT = ring size - 1; after a reset
 * the ring stays empty (RDT 0) until its own core refills it (nic.c). */
static int ixgbe_init_rx_queue(struct nic_port *p, unsigned q, bool fill)
{
    nic_ring_base(p, IXGBE_RDBAL(q), IXGBE_RDBAH(q), IXGBE_RDLEN(q), IXGBE_RDH(q), IXGBE_RDT(q),
                  (const void *)p->q[q].rx.desc, IRING_DESC_MEM_BYTES(CONFIG_NIC_RX_DESCS));
    nic_wr(p, IXGBE_SRRCTL(q), (PKB_DATA_BYTES >> IXGBE_SRRCTL_BSIZEPKT_SHIFT) |
                                   IXGBE_SRRCTL_DESCTYPE_ADV_ONEBUF | IXGBE_SRRCTL_DROP_EN);
    nic_clear(p, IXGBE_DCA_RXCTRL(q), IXGBE_DCA_RXCTRL_BIT12); /* §4.6.7, last step */
    nic_set(p, IXGBE_RXDCTL(q), IXGBE_RXDCTL_ENABLE | (p->vlan_hw ? IXGBE_RXDCTL_VME : 0));
    char step[48];
    snprintf(step, sizeof(step), "RX queue %u enable (RXDCTL.ENABLE)", q);
    int err = nic_wait(p, step, IXGBE_RXDCTL(q), IXGBE_RXDCTL_ENABLE, IXGBE_RXDCTL_ENABLE,
                         IXGBE_QUEUE_ENABLE_TIMEOUT_US);
    if (err == WS_OK && fill && iring_rx_fill(&p->q[q].rx) == 0) {
        kprintf("%s: init failed at RX queue %u fill: pool of core %u is empty\n", p->name, q, q);
        err = WS_ERR_NO_MEMORY;
    }
    return err;
}

/* §4.6.7 step 11: RXEN only with the RX security path halted and drained (SECRXCTRL.RX_DIS,
 * then SECRXSTAT.SECRX_RDY). A drain that never reports ready is noted, not fatal (Linux
 * carries on the same way). */
static void ixgbe_enable_rx(struct nic_port *p)
{
    uint32_t st;
    nic_set(p, IXGBE_SECRXCTRL, IXGBE_SECRXCTRL_RX_DIS);
    if (!nic_poll(p, IXGBE_SECRXSTAT, IXGBE_SECRXSTAT_SECRX_RDY, IXGBE_SECRXSTAT_SECRX_RDY,
                    IXGBE_SECRX_RDY_TIMEOUT_US, &st)) {
        kprintf("%s: note: SECRXSTAT.SECRX_RDY not set (0x%08x); enabling RX anyway\n",
                p->name, st);
    }
    nic_set(p, IXGBE_RXCTRL, IXGBE_RXCTRL_RXEN);
    nic_clear(p, IXGBE_SECRXCTRL, IXGBE_SECRXCTRL_RX_DIS);
}

/* §4.6.7 in the datasheet's order: receive off, filters and offloads, RSS, the queues, the
 * closing CTRL_EXT.NS_DIS (no-snoop off: our buffers are cache-coherent WB memory), then on. */
static int ixgbe_init_rx(struct nic_port *p, bool fill)
{
    nic_clear(p, IXGBE_RXCTRL, IXGBE_RXCTRL_RXEN);
    ixgbe_init_rx_filters(p);
    ixgbe_init_rx_offloads(p);
    ixgbe_init_rss(p);
    for (unsigned q = 0; q < p->nqueues; q++) {
        int err = ixgbe_init_rx_queue(p, q, fill);
        if (err != WS_OK) {
            return err;
        }
    }
    nic_set(p, IXGBE_CTRL_EXT, IXGBE_CTRL_EXT_NS_DIS);
    ixgbe_enable_rx(p);
    return WS_OK;
}

/* ---- §4.6.8 transmit -------------------------------------------------------------------- */

/* §4.6.8, per queue. TXDCTL thresholds (§8.2.3.9.10): prefetch when fewer than 32 descriptors
 * are cached and at least 1 is in host memory; WTHRESH 1 writes each done descriptor back at
 * once, which suits a ring that sets RS on every descriptor and reclaims by DD. PTHRESH +
 * WTHRESH stay within the 40 descriptors the queue caches on chip (Linux uses the same). */
static int ixgbe_init_tx_queue(struct nic_port *p, unsigned q)
{
    nic_ring_base(p, IXGBE_TDBAL(q), IXGBE_TDBAH(q), IXGBE_TDLEN(q), IXGBE_TDH(q), IXGBE_TDT(q),
                  (const void *)p->q[q].tx.desc, IRING_DESC_MEM_BYTES(CONFIG_NIC_TX_DESCS));
    nic_wr(p, IXGBE_TXDCTL(q), (IXGBE_TX_PTHRESH << IXGBE_TXDCTL_PTHRESH_SHIFT) |
                                     (IXGBE_TX_HTHRESH << IXGBE_TXDCTL_HTHRESH_SHIFT) |
                                     (IXGBE_TX_WTHRESH << IXGBE_TXDCTL_WTHRESH_SHIFT) |
                                     IXGBE_TXDCTL_ENABLE);
    char step[48];
    snprintf(step, sizeof(step), "TX queue %u enable (TXDCTL.ENABLE)", q);
    return nic_wait(p, step, IXGBE_TXDCTL(q), IXGBE_TXDCTL_ENABLE, IXGBE_TXDCTL_ENABLE,
                      IXGBE_QUEUE_ENABLE_TIMEOUT_US);
}

/* §4.6.8: append the FCS and pad short frames (HLREG0); leave the reset layout (64 queues, one
 * 160 KB packet buffer) with the arbiter running (RTTDCS.ARBDIS 1 then 0, as the datasheet
 * brackets that layout); DMATXCTL.TE before any queue is enabled; then the queues. */
static int ixgbe_init_tx(struct nic_port *p)
{
    nic_set(p, IXGBE_HLREG0, IXGBE_HLREG0_TXCRCEN | IXGBE_HLREG0_TXPADEN);
    nic_set(p, IXGBE_RTTDCS, IXGBE_RTTDCS_ARBDIS);
    nic_clear(p, IXGBE_RTTDCS, IXGBE_RTTDCS_ARBDIS);
    nic_set(p, IXGBE_DMATXCTL, IXGBE_DMATXCTL_TE);
    for (unsigned q = 0; q < p->nqueues; q++) {
        int err = ixgbe_init_tx_queue(p, q);
        if (err != WS_OK) {
            return err;
        }
    }
    return WS_OK;
}

/* ---- §4.6.3.1 / §7.3 interrupts --------------------------------------------------------- */

/* EITR from nic.rx_usecs: 2.048 us units in bits 11:3, rounded up so a small nonzero setting
 * still throttles; a setting beyond the field's 1022 us is capped, never wrapped. */
static uint32_t ixgbe_eitr(void)
{
    uint32_t usecs = CONFIG_NIC_RX_USECS > IXGBE_EITR_MAX_US ? IXGBE_EITR_MAX_US
                                                             : CONFIG_NIC_RX_USECS;
    return (((usecs + 1) / 2) << IXGBE_EITR_ITR_INT_SHIFT) & IXGBE_EITR_ITR_INT_MASK;
}

/* IVAR (§7.3): RX queue q and TX queue q -> vector q; IVAR_MISC byte 1: other causes (link
 * change) -> vector nqueues. Two queues per IVAR register. */
static void ixgbe_init_ivar(struct nic_port *p)
{
    for (unsigned i = 0; i < (p->nqueues + 1) / 2; i++) {
        uint32_t v = 0;
        for (unsigned half = 0; half < 2 && 2 * i + half < p->nqueues; half++) {
            uint32_t ent = (2 * i + half) | IXGBE_IVAR_ALLOC_VAL;
            v |= (ent | (ent << 8)) << (16 * half); /* RX byte, then TX byte */
        }
        nic_wr(p, IXGBE_IVAR(i), v);
    }
    nic_wr(p, IXGBE_IVAR_MISC, (p->nqueues | IXGBE_IVAR_ALLOC_VAL) << 8);
}

/*
 * §4.6.3.1 / §7.3: MSI-X mode with one vector per queue pair (RX and TX queue q share entry q,
 * aimed at core q) plus one for the link (entry nqueues, core 0). Queue vectors (all below 16,
 * as nqueues <= 16) auto-clear their EICR bit (EIAC) and auto-mask (EIAM_EX with GPIE.EIAME)
 * when their message is sent; the adaptive loop re-enables them through irq_arm. EICR and EIAC
 * only have bits for vectors 0-15. The link vector is enabled for good: EIMS.LSC plus its
 * EIMS_EX bit (GPIE.OCD set as Linux does in MSI-X mode); housekeeping clears EICR.LSC itself
 * (write 1), so the next link change raises a new message whatever OCD leaves latched.
 */
/* ixgbe_program_irqs: the NIC's side of the interrupt set-up above (the MSI-X table, in its
 * own BAR, survives CTRL.RST: only these registers need writing again after a reset). */
static void ixgbe_program_irqs(struct nic_port *p)
{
    uint32_t queues = 0;
    nic_wr(p, IXGBE_GPIE, IXGBE_GPIE_MSIX_MODE | IXGBE_GPIE_PBA_SUPPORT | IXGBE_GPIE_EIAME |
                                IXGBE_GPIE_OCD);
    for (unsigned v = 0; v <= p->nqueues; v++) {
        nic_wr(p, IXGBE_EITR(v), v < p->nqueues ? ixgbe_eitr() : 0);
        queues |= v < p->nqueues ? 1U << v : 0;
    }
    ixgbe_init_ivar(p);
    nic_wr(p, IXGBE_EIAC, queues & IXGBE_EICR_RTX_QUEUE);
    nic_wr(p, IXGBE_EIAM_EX(0), queues);
    nic_wr(p, IXGBE_EICR, IXGBE_EIMC_ALL_CAUSES); /* start from no latched cause */
    nic_wr(p, IXGBE_EIMS, IXGBE_EIMS_LSC);
    nic_wr(p, IXGBE_EIMS_EX(p->nqueues / 32), 1U << (p->nqueues % 32));
}

/* irq_arm / irq_disarm: owning core, adaptive mode. EIMS_EX and EIMC_EX are write-1-to-set
 * and write-1-to-clear, so cores arming their own vectors never race on a read-modify-write. */
static void ixgbe_irq_arm(struct nic_port *p, unsigned q)
{
    unsigned v = p->q[q].msix_entry;
    if (v < 16) {
        nic_wr(p, IXGBE_EICR, 1U << v); /* forget a cause latched while disarmed: the ring is
                                           * re-checked after arming */
    }
    nic_wr(p, IXGBE_EIMS_EX(v / 32), 1U << (v % 32));
}

static void ixgbe_irq_disarm(struct nic_port *p, unsigned q)
{
    unsigned v = p->q[q].msix_entry;
    nic_wr(p, IXGBE_EIMC_EX(v / 32), 1U << (v % 32));
}

/* ---- housekeeping: link and statistics (core 0) ----------------------------------------- */

/* A 36-bit octet counter: low half, then bits 35:32 from the high register (both RC). */
static uint64_t ixgbe_rd36(const struct nic_port *p, uint32_t lo, uint32_t hi)
{
    uint64_t l = nic_rd(p, lo);
    return l | ((uint64_t)(nic_rd(p, hi) & IXGBE_STAT36_HIGH_MASK) << 32);
}

/* §8.2.3.23: every register read here is clear-on-read, so each read is the increment since
 * the last one. MPC/RNBC exist per packet buffer; without DCB only buffer 0 takes traffic, but
 * all eight are summed so nothing is lost if that changes. Linux subtracts MPC from GPRC for a
 * "hardware counting issue"; we report GPRC as read. */
static void ixgbe_accumulate_stats(struct nic_port *p)
{
    struct nic_hw_stats acc = p->hw, *s = &acc; /* kept only if the device is still there */
    s->rx_packets += nic_rd(p, IXGBE_GPRC);
    s->rx_broadcast += nic_rd(p, IXGBE_BPRC);
    s->rx_multicast += nic_rd(p, IXGBE_MPRC);
    s->rx_bytes += ixgbe_rd36(p, IXGBE_GORCL, IXGBE_GORCH);
    for (unsigned i = 0; i < IXGBE_PACKET_BUFFERS; i++) {
        s->rx_missed_errors += nic_rd(p, IXGBE_MPC(i));
        s->rx_no_buffer_count += nic_rd(p, IXGBE_RNBC(i));
    }
    s->rx_crc_errors += nic_rd(p, IXGBE_CRCERRS);
    s->rx_undersize += nic_rd(p, IXGBE_RUC);
    s->rx_oversize += nic_rd(p, IXGBE_ROC);
    /* The 82599 counts the PAUSE frames it sends as good frames (64 bytes each, FCS
     * included): take them out, so tx_packets is the frames we sent. */
    uint32_t xon = nic_rd(p, IXGBE_LXONTXC), xoff = nic_rd(p, IXGBE_LXOFFTXC);
    s->tx_xon += xon;
    s->tx_xoff += xoff;
    s->rx_xon += nic_rd(p, IXGBE_LXONRXCNT);
    s->rx_xoff += nic_rd(p, IXGBE_LXOFFRXCNT);
    /* A PAUSE sent between these reads is taken out one look late; the totals (modulo 2^64)
     * stay exact. */
    s->tx_packets = s->tx_packets + nic_rd(p, IXGBE_GPTC) - ((uint64_t)xon + xoff);
    s->tx_bytes = s->tx_bytes + ixgbe_rd36(p, IXGBE_GOTCL, IXGBE_GOTCH) -
                  64ull * ((uint64_t)xon + xoff);
    for (unsigned q = 0; q < p->nqueues; q++) {
        s->rx_queue_drops[q] += nic_rd(p, IXGBE_QPRDC(q)); /* set q = queue q (RQSMR) */
    }
    /* A device that left the bus while we read returned all-ones for counts: drop them (the
     * next presence check finds it gone). */
    if (nic_rd(p, IXGBE_STATUS) != NIC_ALL_ONES) {
        p->hw = acc;
    }
}

static void ixgbe_update_link(struct nic_port *p, uint32_t links)
{
    uint32_t sp = links & IXGBE_LINKS_SPEED_82599;
    bool up = (links & IXGBE_LINKS_UP) != 0;
    uint32_t speed = sp == IXGBE_LINKS_SPEED_10G_82599  ? 10000
                     : sp == IXGBE_LINKS_SPEED_1G_82599 ? 1000
                     : sp == IXGBE_LINKS_SPEED_100_82599 ? 100
                                                         : 0;
    nic_wr(p, IXGBE_EICR, IXGBE_EICR_LSC); /* re-arm the link interrupt (GPIE.OCD: W1C) */
    if (up == p->link_up && (!up || speed == p->speed_mbps)) {
        return;
    }
    p->link_up = up;
    p->speed_mbps = up ? speed : 0;
    p->link_changes++;
    if (up) {
        kprintf("%s: link up %u Mb/s full duplex\n", p->name, speed);
    } else {
        kprintf("%s: link down\n", p->name);
    }
}

/* ixgbe_present: STATUS reads all-ones once the device has dropped off the bus (surprise
 * removal, a dead link to the slot); nic.c then reports it once and never touches it again. */
static bool ixgbe_present(struct nic_port *p)
{
    return nic_rd(p, IXGBE_STATUS) != NIC_ALL_ONES;
}

/* Core 0: every 100 ms from the loop (kernel/loop.c) and before every `stats` view, on a port
 * nic.c found present. A LINKS read of all-ones (the device left since) changes nothing. */
static void ixgbe_housekeeping(struct nic_port *p)
{
    uint32_t links = nic_rd(p, IXGBE_LINKS);
    if (links != NIC_ALL_ONES) {
        ixgbe_sfp_poll(p);
        ixgbe_update_link(p, links);
        ixgbe_accumulate_stats(p);
    }
}

static void ixgbe_ring_heads(struct nic_port *p, unsigned q, uint32_t *rdh, uint32_t *rdt,
                             uint32_t *tdh, uint32_t *tdt)
{
    *rdh = nic_rd(p, IXGBE_RDH(q));
    *rdt = nic_rd(p, IXGBE_RDT(q));
    *tdh = nic_rd(p, IXGBE_TDH(q));
    *tdt = nic_rd(p, IXGBE_TDT(q));
}

/* Registers for `regs <port>`: configuration and status only. EICR and the statistics are
 * clear-on-read, so reading them here would lose causes and counts: they are not listed. */
static void ixgbe_dump_regs(struct nic_port *p)
{
    static const struct nic_reg regs[] = {
        { "CTRL", IXGBE_CTRL },         { "STATUS", IXGBE_STATUS },
        { "CTRL_EXT", IXGBE_CTRL_EXT }, { "EEC", IXGBE_EEC },
        { "ESDP", IXGBE_ESDP },         { "MMNGC", IXGBE_MMNGC },
        { "AUTOC", IXGBE_AUTOC },       { "AUTOC2", IXGBE_AUTOC2 },
        { "LINKS", IXGBE_LINKS },       { "HLREG0", IXGBE_HLREG0 },
        { "RXCTRL", IXGBE_RXCTRL },     { "RDRXCTL", IXGBE_RDRXCTL },
        { "FCTRL", IXGBE_FCTRL },       { "SECRXCTRL", IXGBE_SECRXCTRL },
        { "MFLCN", IXGBE_MFLCN },       { "FCCFG", IXGBE_FCCFG },
        { "FCRTH0", IXGBE_FCRTH_82599(0) }, { "FCRTL0", IXGBE_FCRTL_82599(0) },
        { "RXCSUM", IXGBE_RXCSUM },     { "MRQC", IXGBE_MRQC },
        { "DMATXCTL", IXGBE_DMATXCTL }, { "GPIE", IXGBE_GPIE },
        { "EIMS", IXGBE_EIMS },         { "EIAC", IXGBE_EIAC },
        { "EIMS_EX0", IXGBE_EIMS_EX(0) }, { "IVAR_MISC", IXGBE_IVAR_MISC },
        { "RAL0", IXGBE_RAL(0) },       { "RAH0", IXGBE_RAH(0) },
        { "SRRCTL0", IXGBE_SRRCTL(0) }, { "RXDCTL0", IXGBE_RXDCTL(0) },
        { "TXDCTL0", IXGBE_TXDCTL(0) }, { "EITR0", IXGBE_EITR(0) },
    };
    nic_print_regs(p, regs, sizeof(regs) / sizeof(regs[0]));
}

static int ixgbe_reset(struct nic_port *p);

static const struct nic_ops ixgbe_ops = {
    .chip = "82599",
    .irq_arm = ixgbe_irq_arm,
    .irq_disarm = ixgbe_irq_disarm,
    .housekeeping = ixgbe_housekeeping,
    .dump_regs = ixgbe_dump_regs,
    .ring_heads = ixgbe_ring_heads,
    .present = ixgbe_present,
    .reset = ixgbe_reset,
};

/* ---- probe ------------------------------------------------------------------------------ */

/* §4.6.3 steps 1-4 and the MAC address: everything before the port is configured. */
static int ixgbe_reset_and_identify(struct nic_port *p, bool keep_link)
{
    unsigned resets;
    ixgbe_disable_irqs(p);
    int err = ixgbe_master_disable(p, &resets);
    err = err ? err : ixgbe_global_reset(p, resets, keep_link);
    if (err == WS_OK) {
        ixgbe_disable_irqs(p); /* the reset restored the interrupt registers */
        err = ixgbe_wait_eeprom_and_dma(p);
    }
    if (err == WS_OK) {
        ixgbe_enable_link(p); /* every reset reloads AUTOC2 from the NVM */
    }
    return err ? err : ixgbe_read_mac(p);
}

/* §4.6.3 steps 5-9: link, statistics, rings, receive, transmit, interrupts. */
static int ixgbe_configure(struct nic_port *p)
{
    int err = ixgbe_setup_link(p);
    if (err == WS_OK) {
        ixgbe_init_packet_buffers(p);
        ixgbe_init_flow_control(p);
        ixgbe_init_stats(p);
    }
    for (unsigned q = 0; err == WS_OK && q < p->nqueues; q++) {
        err = ixgbe_alloc_queue(p, q);
    }
    err = err ? err : ixgbe_init_rx(p, true);
    err = err ? err : ixgbe_init_tx(p);
    return err ? err : nic_msix_route(p, ixgbe_program_irqs);
}

/*
 * ixgbe_reset (nic_ops.reset): the probe's sequence again on a running port that no core uses
 * any more (a hung TX queue): steps 1-4 (interrupts off, master disable, CTRL.RST, EEPROM and
 * DMA init, MAC), then statistics, receive and transmit with every ring empty (their buffers are
 * their cores' to release and refill), and the NIC's interrupt registers; the rings' memory,
 * MSI-X table and IDT vectors are kept. A link that is up is kept (RST without LRST, no
 * AUTOC.Restart_AN), so traffic resumes at once; a link that is down is reset and set up again
 * as at boot, and housekeeping reports it when it comes up.
 */
static int ixgbe_reset(struct nic_port *p)
{
    bool keep_link = (nic_rd(p, IXGBE_LINKS) & IXGBE_LINKS_UP) != 0;
    int err = ixgbe_reset_and_identify(p, keep_link);
    if (err == WS_OK && !(keep_link && (nic_rd(p, IXGBE_LINKS) & IXGBE_LINKS_UP))) {
        err = ixgbe_setup_link(p);
    }
    if (err == WS_OK) {
        ixgbe_init_packet_buffers(p);
        ixgbe_init_flow_control(p);
        ixgbe_init_stats(p);
        err = ixgbe_init_rx(p, false);
    }
    err = err ? err : ixgbe_init_tx(p);
    if (err == WS_OK) {
        ixgbe_program_irqs(p);
    }
    return err;
}

/* The queues' control registers, for nic_release_queues (§4.6.7.1 / §4.6.8.1: a queue is
 * stopped by clearing ENABLE and waiting for it to read 0). */
static uint32_t ixgbe_rxdctl(unsigned q)
{
    return IXGBE_RXDCTL(q);
}

static uint32_t ixgbe_txdctl(unsigned q)
{
    return IXGBE_TXDCTL(q);
}

/* ixgbe_quiesce: after a failed bring-up, leave the port silent: no interrupts, no DMA. */
static void ixgbe_quiesce(struct nic_port *p)
{
    if (p->bar0 == 0 || nic_rd(p, IXGBE_STATUS) == NIC_ALL_ONES) {
        return; /* a device that is gone DMAs nothing more; its buffers stay where they are */
    }
    ixgbe_disable_irqs(p);
    nic_clear(p, IXGBE_RXCTRL, IXGBE_RXCTRL_RXEN);
    nic_clear(p, IXGBE_DMATXCTL, IXGBE_DMATXCTL_TE);
    nic_release_queues(p, ixgbe_rxdctl, ixgbe_txdctl, IXGBE_QUEUE_ENABLE_TIMEOUT_US);
}

/*
 * The sequence, as §4.6.3 lists it:
 *   1 disable interrupts          §4.6.3.1  EIMC, EIMC_EX, EICR       ixgbe_disable_irqs
 *     master disable              §5.2.5.3.2 CTRL.GIO_DIS, STATUS.GIO ixgbe_master_disable
 *   2 global reset                §4.6.3.2  CTRL.RST|LRST             ixgbe_global_reset
 *     disable interrupts again    §4.6.3.1                            ixgbe_disable_irqs
 *   3 EEPROM auto-read done       §4.6.3    EEC.ARD                   ixgbe_wait_eeprom_and_dma
 *   4 DMA init done               §4.6.3    RDRXCTL.DMAIDONE          ixgbe_wait_eeprom_and_dma
 *     MAC address, driver loaded  §8.2.3.7  RAL0/RAH0, CTRL_EXT       ixgbe_read_mac
 *     NVM checksum                §6.3.4    EERD                      ixgbe_nvm_check
 *   5 link setup                  §4.6.4    AUTOC, AUTOC2             ixgbe_setup_link
 *     (SFP+: module over I2C,     §8.2.3.1  I2CCTL, ESDP, CORECTL     ixgbe_sfp_setup)
 *      laser, init sequence)
 *   6 statistics                  §4.6.5    RQSMR, clear-on-read reads ixgbe_init_stats
 *   7 receive                     §4.6.7    RXCTRL ... RDT            ixgbe_init_rx
 *   8 transmit                    §4.6.8    HLREG0, DMATXCTL, TXDCTL  ixgbe_init_tx
 *   9 interrupts                  §4.6.3.1  GPIE, IVAR, EITR, EIMS    nic_msix_route
 *     link up (bounded)           §4.6.4    LINKS.LINK_UP             ixgbe_wait_link
 */
int ixgbe_probe(struct pci_dev *d, unsigned ncores)
{
    struct nic_port *p;
    unsigned nq = ncores < IXGBE_MAX_QUEUES ? ncores : IXGBE_MAX_QUEUES;
    int err = nic_hw_begin(d, &ixgbe_ops, nq, IXGBE_BAR_MMIO, IXGBE_BAR_MIN_BYTES, &p);
    if (p == NULL) {
        return err;
    }
    p->media.cage = ixgbe_id(d)->sfp;
    err = err ? err : ixgbe_reset_and_identify(p, false);
    err = err ? err : ixgbe_nvm_check(p);
    err = err ? err : ixgbe_configure(p);
    err = err ? err : ixgbe_wait_link(p);
    if (err != WS_OK) {
        ixgbe_quiesce(p);
        nic_abandon_port(p);
        return err;
    }
    ixgbe_update_link(p, nic_rd(p, IXGBE_LINKS));
    return WS_OK;
}

WS_NIC_DRIVER(ixgbe, .supports = ixgbe_supports, .probe = ixgbe_probe);
