/*
 * tests/model/ixgbe_model.c: one 82599 port, modelled from the Intel 82599 10 GbE Controller
 * Datasheet (331520, rev 3.x): register file and dispatch, reset and init-time status, link,
 * statistics registers, time, the public API. The SFP+ cage (I2C, SDP pins, module init
 * sequences, what the link needs) is in ixgbe_model_sfp.c, flow control in ixgbe_model_fc.c.
 * Queue ring registers and enable latching are in ixgbe_model_queue.c, RX in ixgbe_model_rx.c,
 * TX in ixgbe_model_tx.c, interrupts and MSI-X in ixgbe_model_irq.c. Register map and state:
 * ixgbe_model_int.h.
 *
 * MODELLED (section numbers are the datasheet's):
 *  - Software reset CTRL.RST and link reset CTRL.LRST (§4.2, §8.2.3.1.1): every register back to
 *    its reset value at once, the bit reads 1 for IXGBE_MODEL_RESET_NS, writes in that window are
 *    misuse and are dropped; then EEC.ARD (§8.2.3.2.1) and RDRXCTL.DMAIDONE (§8.2.3.8) come up;
 *    RAL[0]/RAH[0] hold the EEPROM MAC with AV set (§4.6.3.2). CTRL.RST keeps an established
 *    link, LRST drops it. CTRL.GIO_DIS → STATUS.GIO clears at once (nothing is ever in flight);
 *    while set the model does no DMA (RX drops, TX waits).
 *  - Link (§4.6.4, LINKS §8.2.3.22): training starts at power-on, after a reset that left the link
 *    down, on AUTOC.Restart_AN (which also drops an up link; the bit self-clears), and on
 *    plugging the cable; LINKS reads Link_Up|10G (1G in the 1G modes) IXGBE_MODEL_LINK_UP_NS
 *    later, if what the link needs is there when training completes (on an SFP+ board: the
 *    module, its laser, the mode and init sequence it needs, see ixgbe_model_sfp.c; on every
 *    board: AUTOC2's link-disable bits clear); otherwise training fails. Every link change
 *    raises EICR.LSC. AUTOC/AUTOC2 reset to what the board's EEPROM loads (ixgbe_model_config:
 *    an SFP+ port, LMS 10G serial + SFI, unless told otherwise); in the backplane
 *    auto-negotiation modes LINKS also reports KX_AN_COMP once the link is up.
 *  - EEPROM reads through EERD (§8.2.3.2.2), completing at once, from the board's image or the
 *    model's own (valid checksum, module pointers absent); EEC.EE_SIZE matches the image.
 *  - MDIO (MSCA/MSRWD, §8.2.3.22.11/12): commands complete at once; no PHY answers (all ones).
 *  - SWSM.SMBI (§8.2.3.4): a read that finds it clear sets it. FDIRCTRL.INIT_DONE reads 1.
 *    An NVM whose firmware section enables LESM (the config's lesm, or the image's own) makes
 *    an AUTOC write without GSSR's software MAC CSR bit misuse (the write still lands).
 *    ANLP1.AN_STATE reads 1 (not 0) once an AUTOC.Restart_AN ran since the last reset: the
 *    pipeline reset of the Specification Update waits for it; other states are not modelled.
 *    FWSM.FW_VAL reads 1 once the EEPROM auto-read is done (Linux warns "firmware error"
 *    otherwise: on real boards the management firmware always loads).
 *  - Queue enable latching (§4.6.7.1, §4.6.8.1): RX/TXDCTL.ENABLE reads back the new value at the
 *    next advance(); enabling a queue whose base or length registers were never written is
 *    misuse and the queue stays disabled. RDH/TDH may only be written while the queue is
 *    disabled; RDT/TDT beyond the ring are misuse (the write is dropped); RDLEN/TDLEN must be a
 *    multiple of 128 bytes; RDBAL/TDBAL bits 6:0 read 0.
 *  - Reserved bits that must be written 0 (§8.1 register conventions): RXDCTL (all but ENABLE,
 *    bit 26, VME), TXDCTL (7, 15, 24:23, 31:27), SRRCTL (7:5, 21:14, 31:29). Misuse, and the
 *    reserved bits are not stored.
 *  - RX, TX, RSS, interrupts, MSI-X, flow control (ixgbe_model_fc.c): see the other files'
 *    headers.
 *  - Statistics (§8.2.3.23): clear-on-read; GORC/GOTC/TOR/QBRC/QBTC are 36-bit counters read as
 *    a low register (bits 31:0, read first) and a high register (bits 3:0 valid); each read
 *    clears the half it returned, so low-then-high reads an exact 36-bit value.
 *  - A fixed-capacity log of register accesses and model-side counters for tests.
 *
 * NOT MODELLED (reads return what was written unless said otherwise):
 *  - INTx and MSI (interrupts due outside GPIE MSI-X mode are only counted), TCP timer, EITR
 *    low-latency interrupts and CNT_WDIS, EIAM auto-mask on EICR read/EICS write, the MSI-X
 *    function mask and enable (PCI config space: the embedder's business).
 *  - EEPROM writes (EEWR) and bit-banging, flash, firmware/manageability (no firmware ever holds
 *    SWSM.SWESMBI or a GSSR bit; MMNGC.MNG_VETO is a board option, ixgbe_model_sfp.c), an
 *    external PHY, 100M, priority flow control, LinkSec, IPsec, FCoE, DCB, VMDq/SR-IOV
 *    (MRQC.MRQE other than 0/1 is reported "not modelled"), flow director beyond INIT_DONE
 *    (filters are stored, never matched: RSS decides), 5-tuple/EtherType/SYN filters, VLAN
 *    filtering (VLNCTRL.VFE, VFTA) and double VLAN (DMATXCTL.GDV).
 *  - RX: legacy and header-split descriptors, RSC, TCP/UDP checksum offload (L4I stays 0, so a
 *    driver must not trust it; the IPv4 header's IPCS/IPE are modelled), CRC errors (injected
 *    frames are always good), per-packet-buffer sizing other than RXPBSIZE[0] (the sizes' sum
 *    is checked), descriptor prefetch/write-back thresholds (write-back is immediate), DCA,
 *    RDRXCTL's own bits, VLAN-tagged length limits (+4). (VLAN stripping, RXDCTL.VME, and
 *    insertion, DCMD.VLE with DMATXCTL.VT, are modelled.)
 *  - TX: legacy descriptors, LinkSec/timestamp requests, IPsec/iSCSI offloads
 *    (all reported "not modelled"; TSO and the IPv4/TCP/UDP checksum offloads are modelled:
 *    ixgbe_model_tx.c), software FCS (IFCS clear), WTHRESH batching, TX rate limiting, loopback
 *    (HLREG0.LPBK), TX packet buffer sizing (only its sum is checked) and TXPBTHRESH.
 *  - PCIe itself: config space, function-level reset, MSI-X table reset (kept across CTRL.RST).
 *  - Register access widths other than 32 bits.
 *
 * MODEL CHOICES (where the model has to pick, it picks the strict or the simple reading):
 *  - Timing constants in ixgbe_model.h are far shorter than a real chip's; drivers must poll.
 *  - Reset values are given for the registers the model interprets; HLREG0 resets to TXCRCEN |
 *    RXCRCSTRP | TXPADEN, RDRXCTL to 0 (apart from DMAIDONE), DMATXCTL to VT 0x8100, VLNCTRL
 *    to VET 0x8100, others to 0.
 *  - Vectors 16..63 have no readable cause bit, so their cause always auto-clears on sending.
 *  - GPRC/GORC count every good frame that passed the L2 filters (missed ones too); byte
 *    counters (GORC, GOTC, TOR, QBRC, QBTC) count wire bytes including the 4-byte FCS.
 *  - RNBC is an 82598 register (Linux reads it only there); on the 82599 the model counts
 *    "no descriptor" drops in QPRDC and packet-buffer overflow in MPC[0].
 *  - Section numbers follow the rev 3.x layout to the depth given (e.g. §8.2.3.8 = the receive
 *    DMA register group); register offsets and bits were cross-checked against Linux 6.1
 *    ixgbe_type.h (the 82599 aliases MRQC/RETA/RSSRK at 0x5818/0x5C00/0x5C80 are accepted too).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/model/ixgbe_model_int.h"

#define IXM_PB_SLOTS 8192u /* RX packet buffer frame slots: 512 KiB / 64-byte frames */

/* ---- helpers shared with the other files --------------------------------------------- */

/* ixm_misuse: count, keep and report one misuse message. */
void ixm_misuse(struct ixgbe_model *m, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(m->last_misuse, sizeof(m->last_misuse), fmt, ap);
    va_end(ap);
    m->cnt.misuse++;
    if (m->ops.misuse) {
        m->ops.misuse(m->ops.ctx, m->last_misuse);
    }
}

uint32_t ixm_reg(const struct ixgbe_model *m, uint32_t off)
{
    return m->regs[off / 4];
}

bool ixm_gone(const struct ixgbe_model *m)
{
    return m->faults[IXGBE_MODEL_FAULT_DEVICE_GONE];
}

/* ixm_stat_add: a 32-bit statistics register counts n more (wrapping). */
void ixm_stat_add(struct ixgbe_model *m, uint32_t off, uint32_t n)
{
    m->regs[off / 4] += n;
}

void ixm_ctr36_add(struct ixm_ctr36 *c, uint64_t n)
{
    c->v = (c->v + n) & ((1ull << 36) - 1);
}

/* Offsets of queue q's register reg (IXM_RDBAL..): the two RX ranges, the one TX range. */
uint32_t ixm_rxq_reg_off(unsigned q, uint32_t reg)
{
    return (q < 64 ? IXM_RXQ_LO_BASE + IXM_RXQ_STRIDE * q
                   : IXM_RXQ_HI_BASE + IXM_RXQ_STRIDE * (q - 64)) + reg;
}

uint32_t ixm_txq_reg_off(unsigned q, uint32_t reg)
{
    return IXM_TXQ_BASE + IXM_TXQ_STRIDE * q + reg;
}

/* ---- log ----------------------------------------------------------------------------- */

static void ixm_log(struct ixgbe_model *m, unsigned bar, uint32_t off, uint32_t v, bool rd)
{
    if (m->log_n == IXGBE_MODEL_LOG_ENTRIES) {
        m->log_lost++;
        return;
    }
    m->log[m->log_n++] = (struct ixgbe_model_log_entry){
        .time_ns = m->now, .offset = off, .value = v, .bar = (uint8_t)bar, .is_read = rd};
}

/* ---- reset (§4.2.1, §4.6.3.2) -------------------------------------------------------- */

/* Reset values of the registers the model interprets; everything else resets to 0. */
static void ixm_regs_reset(struct ixgbe_model *m)
{
    uint32_t esdp = m->regs[IXM_ESDP / 4]; /* kept: the SDP pins are NVM-set at power-on only */

    memset(m->regs, 0, sizeof(m->regs));
    m->regs[IXM_ESDP / 4] = esdp;
    m->regs[IXM_AUTOC / 4] = m->autoc_reset; /* EEPROM-loaded: the board's link mode */
    m->regs[IXM_AUTOC2 / 4] = m->autoc2_reset;
    m->regs[IXM_HLREG0 / 4] = IXM_HLREG0_TXCRCEN | IXM_HLREG0_RXCRCSTRP | IXM_HLREG0_TXPADEN;
    m->regs[IXM_DMATXCTL / 4] = IXM_DMATXCTL_VT_RESET;
    m->regs[IXM_VLNCTRL / 4] = IXM_VLNCTRL_RESET;
    m->regs[IXM_MAXFRS / 4] = IXM_MAXFRS_RESET;
    m->regs[IXM_RXPBSIZE(0) / 4] = IXM_RXPBSIZE_RESET0;
    m->regs[IXM_TXPBSIZE(0) / 4] = IXM_TXPBSIZE_RESET0;
    for (unsigned q = 0; q < IXGBE_MODEL_QUEUES; q++) {
        m->regs[ixm_rxq_reg_off(q, IXM_SRRCTL) / 4] = IXM_SRRCTL_RESET;
    }
    /* RAR[0] from the EEPROM's MAC address, valid (§4.6.3.2; RAL/RAH §8.2.3.7). */
    m->regs[IXM_RAL(0) / 4] = (uint32_t)m->mac[0] | (uint32_t)m->mac[1] << 8 |
                              (uint32_t)m->mac[2] << 16 | (uint32_t)m->mac[3] << 24;
    m->regs[IXM_RAH(0) / 4] = (uint32_t)m->mac[4] | (uint32_t)m->mac[5] << 8 | IXM_RAH_AV;
}

/* ixm_start_training: the MAC starts bringing the link up (if a cable is plugged in). Whether
 * it succeeds (module, laser, mode: ixgbe_model_sfp.c) is decided when training completes. */
static void ixm_start_training(struct ixgbe_model *m, uint64_t from)
{
    if (!m->cable) {
        return;
    }
    m->training = true;
    m->link_up_at = from + IXGBE_MODEL_LINK_UP_NS;
}

static void ixm_link_change(struct ixgbe_model *m, bool up)
{
    if (m->link_up == up) {
        return;
    }
    m->link_up = up;
    ixm_irq_other_event(m, IXM_EICR_LSC); /* EICR.LSC (§7.3.1, §8.2.3.5.1) */
    if (up) {
        ixm_tx_run_all(m);
    }
}

/*
 * ixm_link_recheck: something the link needs may have changed (a module, the laser, AUTOC2).
 * An up link that lost it goes down; with may_start, a down link that now has everything starts
 * training by itself (SFI has no auto-negotiation: the PCS locks once light arrives).
 */
void ixm_link_recheck(struct ixgbe_model *m, bool may_start)
{
    bool ok = ixm_sfp_link_ok(m);
    if (m->link_up && !ok) {
        ixm_link_change(m, false);
    } else if (may_start && ok && !m->link_up && !m->training && !m->resetting) {
        ixm_start_training(m, m->now);
    }
}

/* ixm_reset_start: CTRL.RST or CTRL.LRST written. State resets now; the bit reads 1 for
 * IXGBE_MODEL_RESET_NS, then EEPROM auto-read and DMA init run (§4.2.1, §4.6.3.2). */
static void ixm_reset_start(struct ixgbe_model *m, bool lrst)
{
    ixm_regs_reset(m);
    memset(m->rxq, 0, sizeof(m->rxq));
    memset(m->txq, 0, sizeof(m->txq));
    ixm_rx_flush(m);
    ixm_irq_reset(m);
    memset(&m->gorc, 0, sizeof(m->gorc));
    memset(&m->gotc, 0, sizeof(m->gotc));
    memset(&m->tor, 0, sizeof(m->tor));
    memset(m->qbrc, 0, sizeof(m->qbrc));
    memset(m->qbtc, 0, sizeof(m->qbtc));
    m->ard = false;
    m->dmaidone = false;
    m->an_started = false;
    m->paused_until = 0;
    m->xoff_sent = false;
    m->resetting = true;
    m->reset_was_lrst = lrst;
    m->reset_done_at = m->now + IXGBE_MODEL_RESET_NS;
    if (lrst) {
        /* A link reset takes the link down; no LSC: EICR was just cleared by the reset. */
        m->link_up = false;
        m->training = false;
    }
}

static void ixm_reset_finish(struct ixgbe_model *m)
{
    uint64_t t = m->reset_done_at;

    m->resetting = false;
    m->ard_at = t + IXGBE_MODEL_EEPROM_NS;
    m->dmaidone_at = t + IXGBE_MODEL_DMA_INIT_NS;
    if (!m->link_up && !m->training) {
        ixm_start_training(m, t);
    }
}

/* ---- EEPROM, MDIO, link mode ------------------------------------------------------- */

/* Does AUTOC.LMS select a mode with backplane auto-negotiation (KX, KX4/KX/KR)? */
static bool ixm_autoneg_mode(const struct ixgbe_model *m)
{
    switch (ixm_reg(m, IXM_AUTOC) & IXM_AUTOC_LMS_MASK) {
    case IXM_AUTOC_LMS_1G_AN:
    case IXM_AUTOC_LMS_KX4_KX_KR:
    case IXM_AUTOC_LMS_KX4_KX_KR_1G_AN:
    case IXM_AUTOC_LMS_KX4_KX_KR_SGMII:
        return true;
    default:
        return false;
    }
}

/* EERD (§8.2.3.2.2): a START write reads one word at once; DONE and DATA come back with it. */
static void ixm_eerd_write(struct ixgbe_model *m, uint32_t val)
{
    uint32_t addr = (val >> IXM_EERD_ADDR_SHIFT) & IXM_EERD_ADDR_MASK;
    uint16_t word = 0xFFFFu;

    if (!(val & IXM_EERD_START)) {
        m->regs[IXM_EERD / 4] = val & ~IXM_EERD_DONE;
        return;
    }
    if (addr < IXM_EEPROM_WORDS) {
        word = m->eeprom[addr];
    } else {
        ixm_misuse(m, "EERD read of word 0x%x beyond the EEPROM (%u words, EEC.EE_SIZE)", addr,
                   IXM_EEPROM_WORDS);
    }
    m->regs[IXM_EERD / 4] = (uint32_t)word << IXM_EERD_DATA_SHIFT |
                            addr << IXM_EERD_ADDR_SHIFT | IXM_EERD_DONE;
}

/* MSCA (§8.2.3.22.11): commands complete at once. No PHY answers on the port's MDIO bus (an SFP+
 * or backplane board has none), so reads return all ones, as an undriven MDIO line does. */
static void ixm_msca_write(struct ixgbe_model *m, uint32_t val)
{
    uint32_t op = val & IXM_MSCA_OP_MASK;

    m->regs[IXM_MSCA / 4] = val & ~IXM_MSCA_MDI_COMMAND;
    if ((val & IXM_MSCA_MDI_COMMAND) && (op == IXM_MSCA_OP_READ || op == IXM_MSCA_OP_READ_INC)) {
        m->regs[IXM_MSRWD / 4] = (m->regs[IXM_MSRWD / 4] & 0xFFFFu) |
                                 0xFFFFu << IXM_MSRWD_READ_SHIFT;
    }
}

/* The model's own EEPROM image: module pointers absent, PBA 000000-000, the SFP+ init list
 * at word 0x80 (ixgbe_model_sfp.c), valid checksum. */
static void ixm_eeprom_default(struct ixgbe_model *m, bool lesm)
{
    uint16_t sum = 0;

    memset(m->eeprom, 0, sizeof(m->eeprom));
    for (unsigned w = IXM_EEPROM_PTR_FIRST; w <= 0x0Fu; w++) {
        m->eeprom[w] = 0xFFFFu; /* no analog/core/PHY/firmware modules */
    }
    for (unsigned w = 0x40; w < IXM_EEPROM_WORDS; w++) {
        m->eeprom[w] = 0xFFFFu;
    }
    ixm_sfp_eeprom_list(m->eeprom, 0x80);
    if (lesm) { /* a firmware section at 0x1C0 whose LESM parameters at 0x1D0 enable it */
        m->eeprom[IXM_EEPROM_FW_PTR] = 0x1C0;
        m->eeprom[0x1C0 + IXM_EEPROM_LESM_PTR] = 0x1D0;
        m->eeprom[0x1D0 + IXM_EEPROM_LESM_STATE] = IXM_EEPROM_LESM_ENABLED;
    }
    for (unsigned w = 0; w < IXM_EEPROM_CHECKSUM_WORD; w++) {
        sum = (uint16_t)(sum + m->eeprom[w]);
    }
    m->eeprom[IXM_EEPROM_CHECKSUM_WORD] = (uint16_t)(IXM_EEPROM_SUM - sum);
}

/* ixm_nvm_lesm: does the NVM's firmware section enable LESM? */
static bool ixm_nvm_lesm(const struct ixgbe_model *m)
{
    unsigned fw = m->eeprom[IXM_EEPROM_FW_PTR], lesm;
    if (fw == 0 || fw == 0xFFFFu || fw + IXM_EEPROM_LESM_PTR >= IXM_EEPROM_WORDS) {
        return false;
    }
    lesm = m->eeprom[fw + IXM_EEPROM_LESM_PTR];
    return lesm != 0 && lesm != 0xFFFFu && lesm + IXM_EEPROM_LESM_STATE < IXM_EEPROM_WORDS &&
           (m->eeprom[lesm + IXM_EEPROM_LESM_STATE] & IXM_EEPROM_LESM_ENABLED);
}

/* ---- register read/write dispatch ---------------------------------------------------- */

/* Map the 82598-compatible alias addresses the 82599 keeps onto the model's canonical ones. */
static uint32_t ixm_canonical(uint32_t off)
{
    if (off >= IXM_RAR_ALIAS_BASE && off < IXM_RAR_ALIAS_END) {
        return IXM_RAL(0) + (off - IXM_RAR_ALIAS_BASE);
    }
    if (off >= IXM_SRRCTL_ALIAS && off < IXM_SRRCTL_ALIAS + 16 * 4) {
        return ixm_rxq_reg_off((off - IXM_SRRCTL_ALIAS) / 4, IXM_SRRCTL);
    }
    if (off >= IXM_DCA_RXCTRL_ALIAS && off < IXM_DCA_RXCTRL_ALIAS + 16 * 4) {
        return ixm_rxq_reg_off((off - IXM_DCA_RXCTRL_ALIAS) / 4, IXM_DCA_RXCTRL);
    }
    if (off == IXM_MRQC_ALIAS) {
        return IXM_MRQC;
    }
    if (off >= IXM_RETA_ALIAS && off < IXM_RETA_ALIAS + 32 * 4) {
        return IXM_RETA(0) + (off - IXM_RETA_ALIAS);
    }
    if (off >= IXM_RSSRK_ALIAS && off < IXM_RSSRK_ALIAS + 10 * 4) {
        return IXM_RSSRK(0) + (off - IXM_RSSRK_ALIAS);
    }
    return off;
}

/* The 36-bit counter pair an offset belongs to, or NULL; *hi says which half. */
static struct ixm_ctr36 *ixm_ctr36_at(struct ixgbe_model *m, uint32_t off, bool *hi)
{
    *hi = false;
    switch (off) {
    case IXM_GORCH:
        *hi = true; /* fall through */
    case IXM_GORCL:
        return &m->gorc;
    case IXM_GOTCH:
        *hi = true; /* fall through */
    case IXM_GOTCL:
        return &m->gotc;
    case IXM_TORH:
        *hi = true; /* fall through */
    case IXM_TORL:
        return &m->tor;
    default:
        break;
    }
    for (unsigned i = 0; i < IXM_STAT_QUEUES; i++) {
        if (off == IXM_QBRC_L(i) || off == IXM_QBRC_H(i)) {
            *hi = off == IXM_QBRC_H(i);
            return &m->qbrc[i];
        }
        if (off == IXM_QBTC_L(i) || off == IXM_QBTC_H(i)) {
            *hi = off == IXM_QBTC_H(i);
            return &m->qbtc[i];
        }
    }
    return NULL;
}

static uint32_t ixm_ctr36_read(struct ixm_ctr36 *c, bool hi, bool peek)
{
    const uint64_t mask = (1ull << 36) - 1;
    uint32_t v;

    if (!hi) {
        v = (uint32_t)c->v;
        if (!peek) {
            c->v -= v;
            c->hi_latched = (uint8_t)((c->v >> 32) & 0xF);
            c->latched = true;
        }
        return v;
    }
    v = c->latched ? c->hi_latched : (uint32_t)((c->v >> 32) & 0xF);
    if (!peek) {
        c->v = (c->v - ((uint64_t)v << 32)) & mask;
        c->latched = false;
    }
    return v;
}

/* Clear-on-read 32-bit statistics (§8.2.3.23): the two MAC blocks and the per-queue ones. */
static bool ixm_is_stat(uint32_t off)
{
    if ((off >= 0x03F00u && off < 0x04100u) || off == IXM_LXONRXCNT || off == IXM_LXOFFRXCNT) {
        return true;
    }
    for (unsigned i = 0; i < IXM_STAT_QUEUES; i++) {
        if (off == IXM_QPRC(i) || off == IXM_QPRDC(i) || off == IXM_QPTC(i)) {
            return true;
        }
    }
    return false;
}

static uint32_t ixm_reg_read(struct ixgbe_model *m, uint32_t off, bool peek)
{
    uint32_t v;
    struct ixm_ctr36 *c;
    bool hi;

    off = ixm_canonical(off);
    if (ixm_irq_read(m, off, peek, &v)) {
        return v;
    }
    if ((c = ixm_ctr36_at(m, off, &hi)) != NULL) {
        return ixm_ctr36_read(c, hi, peek);
    }
    if (ixm_is_stat(off)) {
        v = m->regs[off / 4];
        if (!peek) {
            m->regs[off / 4] = 0;
        }
        return v;
    }
    if (ixm_queue_read(m, off, &v)) {
        return v;
    }
    if (ixm_sfp_read(m, off, &v)) {
        return v;
    }
    v = m->regs[off / 4];
    switch (off) {
    case IXM_CTRL:
        return v | (m->resetting ? (m->reset_was_lrst ? IXM_CTRL_LRST : IXM_CTRL_RST) : 0);
    case IXM_STATUS: /* LAN ID 0; master enable status follows CTRL.GIO_DIS at once */
        return (ixm_reg(m, IXM_CTRL) & IXM_CTRL_GIO_DIS) ? 0 : IXM_STATUS_GIO;
    case IXM_EEC: /* EE_SIZE 3: 2^(3+6) = 512 words, IXM_EEPROM_WORDS */
        return (v & IXM_EEC_SW_MASK) | ((v & IXM_EEC_REQ) ? IXM_EEC_GNT : 0) | IXM_EEC_PRES |
               (m->ard ? IXM_EEC_ARD : 0) | 3u << IXM_EEC_SIZE_SHIFT;
    case IXM_RDRXCTL:
        return (v & ~IXM_RDRXCTL_DMAIDONE) | (m->dmaidone ? IXM_RDRXCTL_DMAIDONE : 0);
    case IXM_LINKS: /* backplane modes report their clause 73 auto-negotiation done too */
        return m->link_up ? IXM_LINKS_UP | ixm_sfp_links_speed(m) |
                                (ixm_autoneg_mode(m) ? IXM_LINKS_KX_AN_COMP : 0)
                          : 0;
    case IXM_SWSM: /* a read that finds SMBI clear takes the semaphore (§10.5.1 style) */
        if (!peek) {
            m->regs[off / 4] |= IXM_SWSM_SMBI;
        }
        return v;
    case IXM_FWSM: /* the firmware is valid once the EEPROM has loaded it */
        return m->ard ? IXM_FWSM_FW_VAL : 0;
    case IXM_ANLP1: /* the link state machine's state: not 0 once an AUTOC restart ran */
        return (v & ~IXM_ANLP1_AN_STATE_STARTED) | (m->an_started ? IXM_ANLP1_AN_STATE_STARTED : 0);
    case IXM_FDIRCTRL: /* flow director tables are initialised at once (not modelled beyond) */
        return v | IXM_FDIRCTRL_INIT_DONE;
    case IXM_SECRXSTAT: /* the RX security path is idle (ready) while SECRXCTRL.RX_DIS holds it */
        return (ixm_reg(m, IXM_SECRXCTRL) & IXM_SECRXCTRL_RX_DIS) ? IXM_SECRXSTAT_SECRX_RDY : 0;
    default:
        return v;
    }
}

/* The packet buffers' sizes (§8.2.3.8 RXPBSIZE, §8.2.3.9 TXPBSIZE) share 512 KiB (RX) and
 * 160 KiB (TX): a set of sizes adding up to more is misuse. */
static void ixm_pb_sizes_check(struct ixgbe_model *m, bool tx)
{
    uint32_t sum = 0;
    for (unsigned i = 0; i < IXM_PACKET_BUFFERS; i++) {
        sum += ixm_reg(m, tx ? IXM_TXPBSIZE(i) : IXM_RXPBSIZE(i)) & IXM_PBSIZE_BYTES;
    }
    if (sum > (tx ? IXM_TX_PB_TOTAL : IXM_RX_PB_TOTAL)) {
        ixm_misuse(m, "%sPBSIZE[0..7] add up to %u KiB: more than the %u KiB packet buffer "
                   "(§8.2.3.%s)", tx ? "TX" : "RX", sum / 1024,
                   (tx ? IXM_TX_PB_TOTAL : IXM_RX_PB_TOTAL) / 1024, tx ? "9" : "8");
    }
}

static void ixm_reg_write(struct ixgbe_model *m, uint32_t off, uint32_t val)
{
    uint32_t old;

    if (m->resetting && off != IXM_CTRL) {
        ixm_misuse(m, "write 0x%08x to 0x%05x while CTRL.RST is in progress: wait for it to "
                      "clear (§4.2.1, §4.6.3.2)", val, off);
        return;
    }
    off = ixm_canonical(off);
    if (ixm_irq_write(m, off, val)) {
        return;
    }
    if (ixm_is_stat(off) || ixm_ctr36_at(m, off, &(bool){false}) != NULL) {
        return; /* statistics are read-only (and some sit inside the queue blocks) */
    }
    if (ixm_queue_write(m, off, val) || ixm_sfp_write(m, off, val)) {
        return;
    }
    old = m->regs[off / 4];
    switch (off) {
    case IXM_CTRL:
        m->regs[off / 4] = val & ~(IXM_CTRL_RST | IXM_CTRL_LRST);
        if ((val & IXM_CTRL_LRST) && ixm_mng_veto_refuses(m, "CTRL.LRST")) {
            val = (val & ~IXM_CTRL_LRST) | IXM_CTRL_RST; /* the MAC resets, the link stays */
        }
        if (val & (IXM_CTRL_RST | IXM_CTRL_LRST)) {
            ixm_reset_start(m, (val & IXM_CTRL_LRST) != 0);
        } else if ((old & IXM_CTRL_GIO_DIS) && !(val & IXM_CTRL_GIO_DIS)) {
            ixm_rx_drain(m);
            ixm_tx_run_all(m);
        }
        return;
    case IXM_STATUS:
    case IXM_LINKS:
    case IXM_FWSM:
        return; /* read-only */
    case IXM_EEC:
        m->regs[off / 4] = val & IXM_EEC_SW_MASK;
        return;
    case IXM_RDRXCTL:
        m->regs[off / 4] = val & ~IXM_RDRXCTL_DMAIDONE;
        return;
    case IXM_EERD:
        ixm_eerd_write(m, val);
        return;
    case IXM_MSCA:
        ixm_msca_write(m, val);
        return;
    case IXM_SWSM:
        m->regs[off / 4] = val & (IXM_SWSM_SMBI | IXM_SWSM_SWESMBI);
        return;
    case IXM_AUTOC:
        if ((val != old || (val & IXM_AUTOC_RESTART_AN)) &&
            ixm_mng_veto_refuses(m, "an AUTOC write")) {
            return;
        }
        if (m->lesm && !(ixm_reg(m, IXM_GSSR) & IXM_GSSR_SW_MAC_CSR_SM)) {
            ixm_misuse(m, "AUTOC written without SW_FW_SYNC's MAC CSR semaphore while the NVM "
                          "enables the firmware's LESM, which shares AUTOC (§10.5)");
        }
        m->regs[off / 4] = val & ~IXM_AUTOC_RESTART_AN;
        if (val & IXM_AUTOC_RESTART_AN) { /* §4.6.4: apply settings, restart the link */
            m->an_started = true;
            ixm_link_change(m, false);
            m->training = false;
            ixm_start_training(m, m->now);
        }
        return;
    case IXM_MRQC:
        m->regs[off / 4] = val;
        if ((val & IXM_MRQC_MRQE) > IXM_MRQC_MRQE_RSS) {
            ixm_misuse(m, "not modelled: MRQC.MRQE = %u (DCB/VMDq); only 0 and 1 (RSS)",
                       val & IXM_MRQC_MRQE);
        }
        return;
    case IXM_RXCTRL:
        m->regs[off / 4] = val;
        ixm_rx_drain(m);
        return;
    case IXM_DMATXCTL:
        m->regs[off / 4] = val;
        ixm_tx_run_all(m);
        return;
    case IXM_RXPBSIZE(0) ... IXM_RXPBSIZE(7):
    case IXM_TXPBSIZE(0) ... IXM_TXPBSIZE(7):
        m->regs[off / 4] = val;
        ixm_pb_sizes_check(m, off >= IXM_TXPBSIZE(0));
        return;
    default:
        m->regs[off / 4] = val;
        return;
    }
}

/* ---- public API ---------------------------------------------------------------------- */

static bool ixm_access_ok(struct ixgbe_model *m, unsigned bar, uint32_t off, const char *what)
{
    uint32_t size = bar == IXGBE_MODEL_BAR_REGS ? IXGBE_MODEL_REGS_BYTES
                    : bar == IXGBE_MODEL_BAR_MSIX ? IXGBE_MODEL_MSIX_BYTES
                                                  : 0;

    if (off >= size || (off & 3)) {
        ixm_misuse(m, "%s of BAR %u offset 0x%x: outside the BAR or not 32-bit aligned", what,
                   bar, off);
        return false;
    }
    return true;
}

uint32_t ixgbe_model_read(struct ixgbe_model *m, unsigned bar, uint32_t offset)
{
    uint32_t v;

    if (!ixm_access_ok(m, bar, offset, "read")) {
        return 0;
    }
    if (ixm_gone(m)) {
        v = 0xFFFFFFFFu; /* the device no longer answers: all-ones completions */
    } else if (bar == IXGBE_MODEL_BAR_MSIX) {
        v = ixm_msix_read(m, offset);
    } else {
        v = ixm_reg_read(m, offset, false);
    }
    if (m->log_reads) {
        ixm_log(m, bar, offset, v, true);
    }
    return v;
}

uint32_t ixgbe_model_peek(const struct ixgbe_model *m, unsigned bar, uint32_t offset)
{
    if ((bar != IXGBE_MODEL_BAR_REGS && bar != IXGBE_MODEL_BAR_MSIX) || (offset & 3) ||
        offset >= (bar ? IXGBE_MODEL_MSIX_BYTES : IXGBE_MODEL_REGS_BYTES)) {
        return 0;
    }
    if (bar == IXGBE_MODEL_BAR_MSIX) {
        return ixm_msix_read(m, offset);
    }
    /* A peek never changes state; the cast lets the read path share the code. */
    return ixm_reg_read((struct ixgbe_model *)m, offset, true);
}

void ixgbe_model_write(struct ixgbe_model *m, unsigned bar, uint32_t offset, uint32_t value)
{
    if (!ixm_access_ok(m, bar, offset, "write")) {
        return;
    }
    ixm_log(m, bar, offset, value, false);
    if (ixm_gone(m)) {
        return;
    }
    if (bar == IXGBE_MODEL_BAR_MSIX) {
        ixm_msix_write(m, offset, value);
    } else {
        ixm_reg_write(m, offset, value);
    }
}

int ixgbe_model_inject(struct ixgbe_model *m, const uint8_t *frame, size_t len)
{
    return ixm_rx_inject(m, frame, len);
}

void ixgbe_model_advance(struct ixgbe_model *m, uint64_t now_ns)
{
    if (now_ns > m->now) {
        m->now = now_ns;
    }
    if (ixm_gone(m)) {
        return;
    }
    if (m->resetting && m->now >= m->reset_done_at) {
        ixm_reset_finish(m);
    }
    if (!m->resetting && !m->ard && m->now >= m->ard_at &&
        !m->faults[IXGBE_MODEL_FAULT_EEPROM_NEVER_DONE]) {
        m->ard = true;
    }
    if (!m->resetting && !m->dmaidone && m->now >= m->dmaidone_at &&
        !m->faults[IXGBE_MODEL_FAULT_DMA_INIT_NEVER_DONE]) {
        m->dmaidone = true;
    }
    if (m->training && !m->resetting && m->now >= m->link_up_at &&
        !m->faults[IXGBE_MODEL_FAULT_LINK_NEVER_UP]) {
        m->training = false; /* it failed if the media is not ready: a restart tries again */
        ixm_link_change(m, ixm_sfp_link_ok(m));
    }
    ixm_fc_advance(m); /* a PAUSE that ran out */
    ixm_queue_latches(m); /* a TX queue that latches enabled runs then */
    ixm_irq_poll(m);
    ixm_rx_drain(m);
    /* TX waiting for link, TE, GIO or an enable latch restarts on that event itself, so no
     * sweep of all 128 queues here (it cost a QEMU embedder per received frame). */
}

uint64_t ixgbe_model_next_event(const struct ixgbe_model *m)
{
    uint64_t t = UINT64_MAX;

    if (ixm_gone(m)) {
        return t;
    }
    if (m->resetting) {
        return m->reset_done_at; /* everything else waits for it */
    }
    if (!m->ard && !m->faults[IXGBE_MODEL_FAULT_EEPROM_NEVER_DONE] && m->ard_at < t) {
        t = m->ard_at;
    }
    if (!m->dmaidone && !m->faults[IXGBE_MODEL_FAULT_DMA_INIT_NEVER_DONE] &&
        m->dmaidone_at < t) {
        t = m->dmaidone_at;
    }
    if (m->training && !m->faults[IXGBE_MODEL_FAULT_LINK_NEVER_UP] && m->link_up_at < t) {
        t = m->link_up_at;
    }
    for (unsigned q = 0; m->latches_pending && q < IXGBE_MODEL_QUEUES; q++) {
        if (m->rxq[q].latch_due || m->txq[q].latch_due) {
            return m->now; /* latches complete at the next advance */
        }
    }
    return ixm_irq_next_event(m, ixm_fc_next_event(m, t));
}

void ixgbe_model_set_link(struct ixgbe_model *m, bool up)
{
    m->cable = up;
    if (!up) {
        m->training = false;
        ixm_link_change(m, false);
    } else if (!m->link_up && !m->training && !m->resetting) {
        ixm_start_training(m, m->now);
    }
}

void ixgbe_model_fault(struct ixgbe_model *m, enum ixgbe_model_fault f, bool on)
{
    if ((unsigned)f < IXGBE_MODEL_FAULT_COUNT) {
        m->faults[f] = on;
        if (!on && f == IXGBE_MODEL_FAULT_TX_STOPS_COMPLETING) {
            ixm_tx_run_all(m); /* descriptors written meanwhile go now */
        }
    }
}

struct ixgbe_model *ixgbe_model_new(const struct ixgbe_model_ops *ops, const uint8_t mac[6])
{
    struct ixgbe_model_config cfg = {.autoc = IXGBE_MODEL_AUTOC_SFI,
                                     .autoc2 = IXGBE_MODEL_AUTOC2_SFI,
                                     .sfp_cage = true,
                                     .module = IXGBE_MODEL_MODULE_SR};

    if (!mac) {
        return NULL;
    }
    memcpy(cfg.mac, mac, 6);
    return ixgbe_model_new_config(ops, &cfg);
}

struct ixgbe_model *ixgbe_model_new_config(const struct ixgbe_model_ops *ops,
                                           const struct ixgbe_model_config *cfg)
{
    struct ixgbe_model *m;

    if (!ops || !ops->dma_read || !ops->dma_write || !cfg ||
        cfg->eeprom_words > IXGBE_MODEL_EEPROM_WORDS) {
        return NULL;
    }
    m = calloc(1, sizeof(*m));
    if (!m) {
        goto err_model;
    }
    m->log = calloc(IXGBE_MODEL_LOG_ENTRIES, sizeof(*m->log));
    if (!m->log) {
        goto err_log;
    }
    m->tso_buf = malloc(IXM_TSO_MAX_BYTES);
    if (!m->tso_buf) {
        goto err_tso;
    }
    m->pb_cap = IXM_PB_SLOTS;
    m->pb = calloc(m->pb_cap, sizeof(*m->pb));
    if (!m->pb) {
        goto err_pb;
    }
    m->ops = *ops;
    memcpy(m->mac, cfg->mac, 6);
    m->autoc_reset = cfg->autoc;
    m->autoc2_reset = cfg->autoc2;
    if (cfg->eeprom) {
        memset(m->eeprom, 0xFF, sizeof(m->eeprom));
        memcpy(m->eeprom, cfg->eeprom, cfg->eeprom_words * sizeof(uint16_t));
    } else {
        ixm_eeprom_default(m, cfg->lesm);
    }
    m->lesm = ixm_nvm_lesm(m);
    ixm_sfp_init(m, cfg);
    /* Power-on: the device has long finished its own reset, auto-read and DMA init. */
    ixm_regs_reset(m);
    ixm_irq_reset(m);
    for (unsigned v = 0; v < IXGBE_MODEL_MSIX_VECTORS; v++) {
        m->msix[v][3] = 1; /* vector control: masked after reset (PCI MSI-X) */
    }
    m->ard = true;
    m->dmaidone = true;
    m->cable = true;
    ixm_start_training(m, 0);
    return m;

err_pb:
    free(m->tso_buf);
err_tso:
    free(m->log);
err_log:
    free(m);
err_model:
    return NULL;
}

void ixgbe_model_free(struct ixgbe_model *m)
{
    if (!m) {
        return;
    }
    ixm_rx_flush(m);
    free(m->pb);
    free(m->tso_buf);
    free(m->log);
    free(m);
}

void ixgbe_model_counters(const struct ixgbe_model *m, struct ixgbe_model_counters *out)
{
    *out = m->cnt;
    out->rx_pb_frames = m->pb_count;
}

const char *ixgbe_model_last_misuse(const struct ixgbe_model *m)
{
    return m->last_misuse;
}

const struct ixgbe_model_log_entry *ixgbe_model_log(const struct ixgbe_model *m, size_t *n,
                                                    uint64_t *lost)
{
    *n = m->log_n;
    if (lost) {
        *lost = m->log_lost;
    }
    return m->log;
}

void ixgbe_model_log_clear(struct ixgbe_model *m)
{
    m->log_n = 0;
    m->log_lost = 0;
}

void ixgbe_model_log_reads(struct ixgbe_model *m, bool on)
{
    m->log_reads = on;
}

uint64_t ixgbe_model_now(const struct ixgbe_model *m)
{
    return m->now;
}
