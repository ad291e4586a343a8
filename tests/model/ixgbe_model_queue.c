/*
 * tests/model/ixgbe_model_queue.c: the per-queue ring registers of the 82599 and their rules,
 * from the 82599 datasheet (331520 rev 3.x): RX queues 0..63 at 0x01000 + 0x40*n and 64..127 at
 * 0x0D000 + 0x40*(n-64) (§8.2.3.8), TX queues 0..127 at 0x06000 + 0x40*n (§8.2.3.9); the
 * enable latch of §4.6.7.1 / §4.6.8.1 (ENABLE reads back the new state only once the queue has
 * really started or stopped: here at the next advance()); RDH/TDH written only while the queue
 * is disabled; tails within the ring; ring lengths in multiples of 128 bytes; the reserved bits
 * of RXDCTL, TXDCTL and SRRCTL (§8.1: reserved bits are written 0).
 */
#include "tests/model/ixgbe_model_int.h"

/* Decode an offset into an RX queue block: returns the queue or -1; *reg gets the register. */
static int ixm_rxq_decode(uint32_t off, uint32_t *reg)
{
    if (off >= IXM_RXQ_LO_BASE && off < IXM_RXQ_LO_BASE + 64 * IXM_RXQ_STRIDE) {
        *reg = (off - IXM_RXQ_LO_BASE) % IXM_RXQ_STRIDE;
        return (int)((off - IXM_RXQ_LO_BASE) / IXM_RXQ_STRIDE);
    }
    if (off >= IXM_RXQ_HI_BASE && off < IXM_RXQ_HI_BASE + 64 * IXM_RXQ_STRIDE) {
        *reg = (off - IXM_RXQ_HI_BASE) % IXM_RXQ_STRIDE;
        return 64 + (int)((off - IXM_RXQ_HI_BASE) / IXM_RXQ_STRIDE);
    }
    return -1;
}

static int ixm_txq_decode(uint32_t off, uint32_t *reg)
{
    if (off >= IXM_TXQ_BASE && off < IXM_TXQ_BASE + IXGBE_MODEL_QUEUES * IXM_TXQ_STRIDE) {
        *reg = (off - IXM_TXQ_BASE) % IXM_TXQ_STRIDE;
        return (int)((off - IXM_TXQ_BASE) / IXM_TXQ_STRIDE);
    }
    return -1;
}

/* Ring size in descriptors from RDLEN/TDLEN (bytes). */
static uint32_t ixm_ring_descs(const struct ixgbe_model *m, uint32_t len_off)
{
    return (ixm_reg(m, len_off) & 0x000FFF80u) / IXM_DESC_BYTES;
}

/* Common checks for a head/tail/len write; returns false (and reports) if it must be dropped. */
static bool ixm_ring_ptr_ok(struct ixgbe_model *m, const char *name, unsigned q,
                            uint32_t len_off, uint32_t val)
{
    uint32_t n = ixm_ring_descs(m, len_off);

    if (val != 0 && val >= n) {
        ixm_misuse(m, "%s[%u] = %u is beyond the ring (%u descriptors) (§8.2.3.8/9)", name, q,
                   val, n);
        return false;
    }
    return true;
}

static bool ixm_len_ok(struct ixgbe_model *m, const char *name, unsigned q, uint32_t val)
{
    if (val & 0x7Fu) {
        ixm_misuse(m, "%s[%u] = 0x%x is not a multiple of 128 bytes (§8.2.3.8/9)", name, q, val);
        return false;
    }
    return true;
}

static void ixm_rxq_write(struct ixgbe_model *m, unsigned q, uint32_t reg, uint32_t val)
{
    struct ixm_rxq *rq = &m->rxq[q];
    uint32_t off = ixm_rxq_reg_off(q, reg);

    switch (reg) {
    case IXM_RDBAL:
        m->regs[off / 4] = val & ~0x7Fu; /* bits 6:0 ignored: 128-byte aligned ring */
        rq->base_set = true;
        return;
    case IXM_RDLEN:
        if (ixm_len_ok(m, "RDLEN", q, val)) {
            m->regs[off / 4] = val;
            rq->len_set = val != 0;
        }
        return;
    case IXM_RDH:
        if (rq->enabled || (ixm_reg(m, ixm_rxq_reg_off(q, IXM_RXDCTL)) & IXM_RXDCTL_ENABLE)) {
            ixm_misuse(m, "RDH[%u] written while the queue is enabled (§8.2.3.8, §4.6.7.1)", q);
            return;
        }
        if (ixm_ring_ptr_ok(m, "RDH", q, ixm_rxq_reg_off(q, IXM_RDLEN), val)) {
            rq->head = val;
        }
        return;
    case IXM_RDT:
        if (ixm_ring_ptr_ok(m, "RDT", q, ixm_rxq_reg_off(q, IXM_RDLEN), val)) {
            m->regs[off / 4] = val;
            ixm_rx_drain(m);
        }
        return;
    case IXM_SRRCTL:
        if (val & IXM_SRRCTL_RESERVED) {
            ixm_misuse(m, "SRRCTL[%u] = 0x%08x sets reserved bits 0x%08x (§8.2.3.8)", q, val,
                       val & IXM_SRRCTL_RESERVED);
        }
        m->regs[off / 4] = val & ~IXM_SRRCTL_RESERVED;
        return;
    case IXM_RXDCTL:
        if (val & IXM_RXDCTL_RESERVED) {
            ixm_misuse(m, "RXDCTL[%u] = 0x%08x sets reserved bits 0x%08x (§8.2.3.8)", q, val,
                       val & IXM_RXDCTL_RESERVED);
            val &= ~IXM_RXDCTL_RESERVED;
        }
        if ((val & IXM_RXDCTL_ENABLE) && !rq->enabled && !(rq->base_set && rq->len_set)) {
            ixm_misuse(m, "RXDCTL[%u].ENABLE set before RDBAL/RDLEN were programmed (§4.6.7)",
                       q);
            val &= ~IXM_RXDCTL_ENABLE;
        }
        m->regs[off / 4] = val;
        rq->latch_due = true;
        m->latches_pending = true;
        return;
    default:
        m->regs[off / 4] = val;
        return;
    }
}

static void ixm_txq_write(struct ixgbe_model *m, unsigned q, uint32_t reg, uint32_t val)
{
    struct ixm_txq *tq = &m->txq[q];
    uint32_t off = ixm_txq_reg_off(q, reg);

    switch (reg) {
    case IXM_TDBAL:
        m->regs[off / 4] = val & ~0x7Fu;
        tq->base_set = true;
        return;
    case IXM_TDLEN:
        if (ixm_len_ok(m, "TDLEN", q, val)) {
            m->regs[off / 4] = val;
            tq->len_set = val != 0;
        }
        return;
    case IXM_TDH:
        if (tq->enabled || (ixm_reg(m, ixm_txq_reg_off(q, IXM_TXDCTL)) & IXM_TXDCTL_ENABLE)) {
            ixm_misuse(m, "TDH[%u] written while the queue is enabled (§8.2.3.9, §4.6.8.1)", q);
            return;
        }
        if (ixm_ring_ptr_ok(m, "TDH", q, ixm_txq_reg_off(q, IXM_TDLEN), val)) {
            tq->head = val;
        }
        return;
    case IXM_TDT:
        if (ixm_ring_ptr_ok(m, "TDT", q, ixm_txq_reg_off(q, IXM_TDLEN), val)) {
            m->regs[off / 4] = val;
            ixm_tx_run(m, q);
        }
        return;
    case IXM_TXDCTL:
        if (val & IXM_TXDCTL_RESERVED) {
            ixm_misuse(m, "TXDCTL[%u] = 0x%08x sets reserved bits 0x%08x (§8.2.3.9)", q, val,
                       val & IXM_TXDCTL_RESERVED);
            val &= ~IXM_TXDCTL_RESERVED;
        }
        if ((val & IXM_TXDCTL_ENABLE) && !tq->enabled && !(tq->base_set && tq->len_set)) {
            ixm_misuse(m, "TXDCTL[%u].ENABLE set before TDBAL/TDLEN were programmed (§4.6.8)",
                       q);
            val &= ~IXM_TXDCTL_ENABLE;
        }
        m->regs[off / 4] = val;
        tq->latch_due = true;
        m->latches_pending = true;
        return;
    default:
        m->regs[off / 4] = val;
        return;
    }
}

/* Queue enable latches complete at advance() (§4.6.7.1 and §4.6.8.1: poll until set). */
void ixm_queue_latches(struct ixgbe_model *m)
{
    bool pending = false;

    if (!m->latches_pending) {
        return; /* the common case: nothing to look at in 128 queues */
    }
    for (unsigned q = 0; q < IXGBE_MODEL_QUEUES; q++) {
        struct ixm_rxq *rq = &m->rxq[q];
        struct ixm_txq *tq = &m->txq[q];

        if (rq->latch_due) {
            bool want = ixm_reg(m, ixm_rxq_reg_off(q, IXM_RXDCTL)) & IXM_RXDCTL_ENABLE;
            if (!want || !m->faults[IXGBE_MODEL_FAULT_RXQ_ENABLE_NEVER_LATCHES]) {
                rq->latch_due = false;
                if (want && !rq->enabled) {
                    rq->enabled = true;
                    ixm_rxq_check_enable(m, q);
                } else if (!want) {
                    rq->enabled = false;
                }
            }
        }
        if (tq->latch_due) {
            bool want = ixm_reg(m, ixm_txq_reg_off(q, IXM_TXDCTL)) & IXM_TXDCTL_ENABLE;
            if (!want || !m->faults[IXGBE_MODEL_FAULT_TXQ_ENABLE_NEVER_LATCHES]) {
                tq->latch_due = false;
                tq->enabled = want;
                if (!want) {
                    tq->halted = false; /* a disable/enable cycle restarts a halted queue */
                } else {
                    ixm_tx_run(m, q); /* descriptors posted before the latch go now */
                }
            }
        }
    }
    for (unsigned q = 0; q < IXGBE_MODEL_QUEUES && !pending; q++) {
        pending = m->rxq[q].latch_due || m->txq[q].latch_due; /* held by a fault */
    }
    m->latches_pending = pending;
}

/* ixm_queue_read: queue-block registers whose reads differ from the stored value. */
bool ixm_queue_read(const struct ixgbe_model *m, uint32_t off, uint32_t *val)
{
    uint32_t reg;
    int q;

    if ((q = ixm_rxq_decode(off, &reg)) >= 0) {
        *val = ixm_reg(m, off);
        if (reg == IXM_RDH) {
            *val = m->rxq[q].head;
        } else if (reg == IXM_RXDCTL) {
            *val = (*val & ~IXM_RXDCTL_ENABLE) | (m->rxq[q].enabled ? IXM_RXDCTL_ENABLE : 0);
        }
        return true;
    }
    if ((q = ixm_txq_decode(off, &reg)) >= 0) {
        *val = ixm_reg(m, off);
        if (reg == IXM_TDH) {
            *val = m->txq[q].head;
        } else if (reg == IXM_TXDCTL) {
            *val = (*val & ~IXM_TXDCTL_ENABLE) | (m->txq[q].enabled ? IXM_TXDCTL_ENABLE : 0);
        }
        return true;
    }
    return false;
}

/* ixm_queue_write: returns false if off is not in a queue block. */
bool ixm_queue_write(struct ixgbe_model *m, uint32_t off, uint32_t val)
{
    uint32_t reg;
    int q;

    if ((q = ixm_rxq_decode(off, &reg)) >= 0) {
        ixm_rxq_write(m, (unsigned)q, reg, val);
        return true;
    }
    if ((q = ixm_txq_decode(off, &reg)) >= 0) {
        ixm_txq_write(m, (unsigned)q, reg, val);
        return true;
    }
    return false;
}
