/*
 * tests/model/ixgbe_model_tx.c: the 82599 transmit path, from the 82599 datasheet (331520
 * rev 3.x): descriptor ring fetch from TDH to TDT (§7.2.1, §7.2.3.3), advanced data
 * descriptors (§7.2.3.2.4: DTALEN, DTYP=0011b, DCMD EOP/IFCS/RS/DEXT, PAYLEN), advanced context
 * descriptors consumed without effect (§7.2.3.2.3), DD write-back for RS descriptors or TX head
 * write-back to TDWBAL/TDWBAH (§7.2.3, §8.2.3.9), padding (HLREG0.TXPADEN) and the transmit
 * statistics (§8.2.3.23).
 *
 * When it runs: synchronously on every TDT write, and on advance() for queues that were waiting.
 * A queue transmits only with DMATXCTL.TE, TXDCTL.ENABLE latched, link up and the master
 * enabled; otherwise descriptors wait (a pulled cable stalls TX, as on the chip). A frame whose
 * EOP descriptor is not yet below TDT waits too. Misuse or a DMA error halts the queue until it
 * is disabled and enabled again (the real chip would fetch garbage or master-abort).
 * The TX queue interrupt cause fires when a descriptor with RS is written back.
 */
#include <string.h>

#include "tests/model/ixgbe_model_int.h"

#define IXM_TX_MAX_DESCS_PER_FRAME 64u

static uint32_t ixm_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void ixm_tx_halt(struct ixgbe_model *m, unsigned q)
{
    m->txq[q].halted = true;
}

/* Descriptor checks for a data descriptor (§7.2.3.2.4); false = reported, queue halted. */
static bool ixm_tx_desc_ok(struct ixgbe_model *m, unsigned q, uint32_t idx, uint32_t cmd,
                           uint32_t olinfo, bool first)
{
    const char *why = NULL;

    if (!(cmd & IXM_TXD_DEXT)) {
        why = "not modelled: legacy TX descriptor (DEXT clear)";
    } else if ((cmd & IXM_TXD_DTYP) != IXM_TXD_DTYP_DATA) {
        why = "descriptor type is neither data (0011b) nor context (0010b)";
    } else if (cmd & IXM_TXD_TSE) {
        why = "not modelled: TSO (DCMD.TSE)";
    } else if (cmd & IXM_TXD_VLE) {
        why = "not modelled: VLAN insertion (DCMD.VLE)";
    } else if (cmd & IXM_TXD_MAC) {
        why = "not modelled: LinkSec/timestamp request (MAC field)";
    } else if (first && (olinfo & IXM_TXD_POPTS)) {
        why = "not modelled: checksum offload (POPTS)";
    } else if (!(cmd & IXM_TXD_IFCS)) {
        why = "not modelled: IFCS clear (frame would leave without a hardware CRC)";
    }
    if (why) {
        ixm_misuse(m, "TX queue %u descriptor %u: %s (§7.2.3.2.4)", q, idx, why);
        ixm_tx_halt(m, q);
        return false;
    }
    return true;
}

static void ixm_tx_count(struct ixgbe_model *m, unsigned q, const uint8_t *f, uint32_t len)
{
    static const uint8_t bcast[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    unsigned si = (ixm_reg(m, IXM_TQSM(q / 4)) >> (8 * (q % 4))) & 0xFu;

    ixm_stat_add(m, IXM_GPTC, 1);
    ixm_stat_add(m, IXM_TPT, 1);
    ixm_ctr36_add(&m->gotc, len + IXM_FCS_BYTES);
    if (len >= 6 && (f[0] & 1)) {
        ixm_stat_add(m, memcmp(f, bcast, 6) == 0 ? IXM_BPTC : IXM_MPTC, 1);
    }
    ixm_stat_add(m, IXM_QPTC(si), 1);
    ixm_ctr36_add(&m->qbtc[si], len + IXM_FCS_BYTES);
    m->cnt.tx_frames++;
    m->cnt.tx_bytes += len;
}

/*
 * ixm_tx_frame: gather, send and complete the frame starting at TDH. Returns 1 if TDH moved,
 * 0 if the frame is not complete below TDT yet, -1 if the queue halted.
 */
static int ixm_tx_frame(struct ixgbe_model *m, unsigned q, uint64_t base, uint32_t size,
                        uint32_t tail, bool *rs_done)
{
    struct ixm_txq *tq = &m->txq[q];
    uint32_t rs_idx[IXM_TX_MAX_DESCS_PER_FRAME];
    uint32_t idx = tq->head, n = 0, nrs = 0, len = 0, paylen = 0;
    uint8_t *buf = m->tx_scratch;
    bool eop = false;

    while (!eop) {
        uint8_t d[IXM_DESC_BYTES];
        uint64_t daddr = base + (uint64_t)idx * IXM_DESC_BYTES, addr = 0;
        uint32_t cmd, olinfo, dlen;

        if (idx == tail) {
            return 0; /* EOP not handed over yet */
        }
        if (m->ops.dma_read(m->ops.ctx, daddr, d, sizeof(d)) != 0) {
            ixm_misuse(m, "TX queue %u descriptor %u at 0x%llx is outside registered memory", q,
                       idx, (unsigned long long)daddr);
            ixm_tx_halt(m, q);
            return -1;
        }
        for (int b = 7; b >= 0; b--) {
            addr = addr << 8 | d[b];
        }
        cmd = ixm_le32(d + 8);
        olinfo = ixm_le32(d + 12);
        if (n == 0 && (cmd & IXM_TXD_DEXT) && (cmd & IXM_TXD_DTYP) == IXM_TXD_DTYP_CTXT) {
            tq->head = (idx + 1) % size; /* context: offloads not modelled, nothing to send */
            return 1;
        }
        if (!ixm_tx_desc_ok(m, q, idx, cmd, olinfo, n == 0)) {
            return -1;
        }
        if (n == 0) {
            paylen = olinfo >> IXM_TXD_PAYLEN_SHIFT;
        }
        dlen = cmd & IXM_TXD_DTALEN;
        if (len + dlen > IXGBE_MODEL_MAX_FRAME_BYTES || n == IXM_TX_MAX_DESCS_PER_FRAME) {
            ixm_misuse(m, "TX queue %u descriptor %u: frame over %u bytes or %u descriptors", q,
                       idx, IXGBE_MODEL_MAX_FRAME_BYTES, IXM_TX_MAX_DESCS_PER_FRAME);
            ixm_tx_halt(m, q);
            return -1;
        }
        if (dlen && m->ops.dma_read(m->ops.ctx, addr, buf + len, dlen) != 0) {
            ixm_misuse(m, "TX queue %u descriptor %u: buffer 0x%llx+%u is outside registered "
                          "memory", q, idx, (unsigned long long)addr, dlen);
            ixm_tx_halt(m, q);
            return -1;
        }
        len += dlen;
        if (cmd & IXM_TXD_RS) {
            rs_idx[nrs++] = idx;
        }
        eop = cmd & IXM_TXD_EOP;
        idx = (idx + 1) % size;
        n++;
    }
    if (paylen != len) { /* non-TSO: PAYLEN in the first descriptor is the whole frame */
        ixm_misuse(m, "TX queue %u: PAYLEN %u in the first descriptor != %u bytes in the frame "
                      "(§7.2.3.2.4)", q, paylen, len);
    }
    if (len < IXM_MIN_FRAME && (ixm_reg(m, IXM_HLREG0) & IXM_HLREG0_TXPADEN)) {
        memset(buf + len, 0, IXM_MIN_FRAME - len);
        len = IXM_MIN_FRAME;
    }
    tq->head = idx;
    ixm_tx_count(m, q, buf, len);
    /* Write-back: DD into each RS descriptor unless head write-back replaces it. */
    if (!(ixm_reg(m, ixm_txq_reg_off(q, IXM_TDWBAL)) & IXM_TDWBAL_HEAD_WB_EN)) {
        for (uint32_t i = 0; i < nrs; i++) {
            uint8_t wb[8] = {0, 0, 0, 0, IXM_TXD_STA_DD, 0, 0, 0};
            m->ops.dma_write(m->ops.ctx, base + (uint64_t)rs_idx[i] * IXM_DESC_BYTES + 8, wb,
                             sizeof(wb));
        }
    }
    *rs_done |= nrs > 0;
    if (m->ops.tx_frame) {
        m->ops.tx_frame(m->ops.ctx, buf, len); /* last: the callback may re-enter */
    }
    return 1;
}

/* Run one queue until TDH reaches TDT or it has to wait. */
static void ixm_tx_queue(struct ixgbe_model *m, unsigned q)
{
    struct ixm_txq *tq = &m->txq[q];
    uint32_t size = (ixm_reg(m, ixm_txq_reg_off(q, IXM_TDLEN)) & 0x000FFF80u) / IXM_DESC_BYTES;
    uint64_t base = (uint64_t)ixm_reg(m, ixm_txq_reg_off(q, IXM_TDBAH)) << 32 |
                    ixm_reg(m, ixm_txq_reg_off(q, IXM_TDBAL));
    bool rs_done = false;

    if (!tq->enabled || tq->halted || size == 0 || ixm_gone(m) || !m->link_up ||
        m->faults[IXGBE_MODEL_FAULT_TX_STOPS_COMPLETING] ||
        !(ixm_reg(m, IXM_DMATXCTL) & IXM_DMATXCTL_TE) ||
        (ixm_reg(m, IXM_CTRL) & IXM_CTRL_GIO_DIS)) {
        return;
    }
    while (tq->head != ixm_reg(m, ixm_txq_reg_off(q, IXM_TDT)) && tq->enabled && !tq->halted) {
        if (ixm_tx_frame(m, q, base, size, ixm_reg(m, ixm_txq_reg_off(q, IXM_TDT)),
                         &rs_done) <= 0) {
            break;
        }
    }
    if (!rs_done) {
        return;
    }
    if (ixm_reg(m, ixm_txq_reg_off(q, IXM_TDWBAL)) & IXM_TDWBAL_HEAD_WB_EN) {
        uint64_t wba = (uint64_t)ixm_reg(m, ixm_txq_reg_off(q, IXM_TDWBAH)) << 32 |
                       (ixm_reg(m, ixm_txq_reg_off(q, IXM_TDWBAL)) & ~3u);
        uint8_t h[4] = {(uint8_t)tq->head, (uint8_t)(tq->head >> 8), 0, 0};

        if (m->ops.dma_write(m->ops.ctx, wba, h, sizeof(h)) != 0) {
            ixm_misuse(m, "TX queue %u: head write-back address 0x%llx is outside registered "
                          "memory", q, (unsigned long long)wba);
        }
    }
    ixm_irq_queue_event(m, q, true);
}

void ixm_tx_run(struct ixgbe_model *m, unsigned q)
{
    if (m->tx_busy) {
        m->tx_deferred = true; /* re-entered from tx_frame: the outer run picks it up */
        return;
    }
    m->tx_busy = true;
    ixm_tx_queue(m, q);
    while (m->tx_deferred) {
        m->tx_deferred = false;
        for (unsigned i = 0; i < IXGBE_MODEL_QUEUES; i++) {
            ixm_tx_queue(m, i);
        }
    }
    m->tx_busy = false;
}

void ixm_tx_run_all(struct ixgbe_model *m)
{
    if (m->tx_busy) {
        m->tx_deferred = true;
        return;
    }
    m->tx_busy = true;
    do {
        m->tx_deferred = false;
        for (unsigned i = 0; i < IXGBE_MODEL_QUEUES; i++) {
            ixm_tx_queue(m, i);
        }
    } while (m->tx_deferred);
    m->tx_busy = false;
}
