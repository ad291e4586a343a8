/*
 * tests/model/ixgbe_model_irq.c: 82599 interrupt causes, masks and MSI-X delivery, from the
 * 82599 datasheet (331520 rev 3.x) §7.3 (interrupts), §8.2.3.5 (EICR/EICS/EIMS/EIMC/EIAC/EIAM,
 * EITR, IVAR, IVAR_MISC, GPIE and the _EX extensions for 64 vectors) and the PCI MSI-X table/PBA
 * (§9, MSI-X capability: table at BAR offset 0, PBA at 0x2000, vector control bit 0 = mask).
 *
 * How the model routes an event (MSI-X mode, GPIE.Multiple_MSIX = 1):
 *  - RX/TX queue q: IVAR(q/2) byte 16*(q&1) + 8*tx; if its valid bit (7) is set, bits 5:0 name
 *    the vector v, whose cause bit is set. EICR bits 15:0 show vectors 0..15; vectors 16..63
 *    have causes the driver cannot read (EICS_EX sets them).
 *  - Other causes (EICR bits 30:16: LSC, RX_MISS, ...): set in EICR; delivered on the vector in
 *    IVAR_MISC bits 15:8 (valid bit 15) when the cause's own EIMS bit is set.
 *  - A vector fires when a new cause arrives while it is enabled, or when EIMS enables it with a
 *    cause pending. EITR(v) bits 11:3 (x 2.048 us) is the minimum gap between its messages; a
 *    message due earlier waits for advance(). On sending: EIAC auto-clears the vector's cause
 *    (EIAC bits 15:0 for vectors 0..15, always for 16..63, whose cause is not visible) and the
 *    other causes in EIAC bits 30:16; with GPIE.EIAME, EIAM auto-masks (clears EIMS bits).
 *  - MSI-X table: a masked entry sets its PBA bit instead; unmasking sends and clears it.
 *  - EICR read returns and clears bits 15:0, and bits 30:16 unless GPIE.OCD; EICS reads the
 *    causes without clearing (what Linux's ixgbe_msix_other relies on); EICR write is W1C.
 * Not modelled: INTx/MSI, the TCP timer cause, EIMS.OTHER (bit 31 is kept but gates nothing),
 * EITR low-latency and counter bits, the MSI-X function mask.
 */
#include "tests/model/ixgbe_model_int.h"

#define IXM_BIT(v) (1ull << (v))

/* The vector that carries "other" causes, or -1 if IVAR_MISC has no valid entry. */
static int ixm_other_vector(const struct ixgbe_model *m)
{
    uint32_t e = (ixm_reg(m, IXM_IVAR_MISC) >> 8) & 0xFFu;

    return (e & IXM_IVAR_VALID) ? (int)(e & IXM_IVAR_VECTOR) : -1;
}

static uint64_t ixm_eitr_ns(const struct ixgbe_model *m, unsigned v)
{
    uint32_t r = ixm_reg(m, v < 24 ? IXM_EITR_LO(v) : IXM_EITR_HI(v));

    return (uint64_t)IXM_EITR_INTERVAL(r) * IXM_EITR_UNIT_NS;
}

/* ixm_msix_deliver: the message for vector v leaves unless its table entry is masked. */
static void ixm_msix_deliver(struct ixgbe_model *m, unsigned v)
{
    if (m->msix[v][3] & 1u) {
        m->pba |= IXM_BIT(v);
        m->cnt.irqs_pended++;
        return;
    }
    m->cnt.irqs_sent++;
    if (m->ops.msix_notify) {
        m->ops.msix_notify(m->ops.ctx, v);
    }
}

/* Is there still something to signal on vector v? */
static bool ixm_vector_due(const struct ixgbe_model *m, unsigned v, uint32_t *other)
{
    *other = 0;
    if (ixm_other_vector(m) == (int)v) {
        *other = m->ocause & m->omask & IXM_EICR_OTHER_MASK;
    }
    return (m->vcause & m->vmask & IXM_BIT(v)) || *other;
}

/* ixm_try_send: send vector v's pending message if it is still due and EITR allows. */
static void ixm_try_send(struct ixgbe_model *m, unsigned v)
{
    uint64_t gap;
    uint32_t other;

    if (!(m->vpend & IXM_BIT(v)) || ixm_gone(m)) {
        return;
    }
    if (!ixm_vector_due(m, v, &other)) {
        m->vpend &= ~IXM_BIT(v); /* masked or cleared meanwhile */
        return;
    }
    if (!(ixm_reg(m, IXM_GPIE) & IXM_GPIE_MSIX_MODE)) {
        m->vpend &= ~IXM_BIT(v);
        m->cnt.irqs_suppressed++; /* INTx/MSI not modelled */
        return;
    }
    gap = ixm_eitr_ns(m, v);
    if (gap && (m->sent_once & IXM_BIT(v)) && m->now < m->last_sent_ns[v] + gap) {
        return; /* EITR throttling (§7.3.2): advance() retries */
    }
    m->vpend &= ~IXM_BIT(v);
    m->last_sent_ns[v] = m->now;
    m->sent_once |= IXM_BIT(v);
    /* Auto-clear (EIAC) and auto-mask (EIAM with GPIE.EIAME) as the message goes out. */
    if (v >= 16 || (m->eiac & (1u << v))) {
        m->vcause &= ~IXM_BIT(v);
    }
    m->ocause &= ~(other & m->eiac);
    if (ixm_reg(m, IXM_GPIE) & IXM_GPIE_EIAME) {
        m->vmask &= ~(m->veiam & IXM_BIT(v));
        m->omask &= ~(m->oeiam & other);
    }
    ixm_msix_deliver(m, v);
}

static void ixm_schedule(struct ixgbe_model *m, unsigned v)
{
    m->vpend |= IXM_BIT(v);
    ixm_try_send(m, v);
}

/* New vector-level causes: each enabled one schedules its vector. */
static void ixm_assert_vectors(struct ixgbe_model *m, uint64_t bits)
{
    m->vcause |= bits;
    bits &= m->vmask;
    for (unsigned v = 0; bits; v++, bits >>= 1) {
        if (bits & 1) {
            ixm_schedule(m, v);
        }
    }
}

/* Mask bits newly enabled by EIMS/EIMS_EX with a cause already pending fire now. */
static void ixm_enable_vectors(struct ixgbe_model *m, uint64_t bits)
{
    m->vmask |= bits;
    bits &= m->vcause;
    for (unsigned v = 0; bits; v++, bits >>= 1) {
        if (bits & 1) {
            ixm_schedule(m, v);
        }
    }
}

void ixm_irq_reset(struct ixgbe_model *m)
{
    m->vcause = m->vmask = m->veiam = m->vpend = 0;
    m->ocause = m->omask = m->oeiam = m->eiac = 0;
    m->pba = 0;
    m->sent_once = 0;
}

void ixm_irq_queue_event(struct ixgbe_model *m, unsigned q, bool tx)
{
    uint32_t e = (ixm_reg(m, IXM_IVAR(q / 2)) >> (16 * (q & 1) + (tx ? 8 : 0))) & 0xFFu;

    if (e & IXM_IVAR_VALID) {
        ixm_assert_vectors(m, IXM_BIT(e & IXM_IVAR_VECTOR));
    }
}

void ixm_irq_other_event(struct ixgbe_model *m, uint32_t cause)
{
    int v;

    m->ocause |= cause & IXM_EICR_OTHER_MASK;
    if ((cause & m->omask) && (v = ixm_other_vector(m)) >= 0) {
        ixm_schedule(m, (unsigned)v);
    }
}

/* The earliest time a held-back (EITR) message may go, or t if that is sooner. */
uint64_t ixm_irq_next_event(const struct ixgbe_model *m, uint64_t t)
{
    uint64_t p = m->vpend;

    for (unsigned v = 0; p; v++, p >>= 1) {
        if (p & 1) {
            uint64_t due = (m->sent_once & IXM_BIT(v)) ? m->last_sent_ns[v] + ixm_eitr_ns(m, v)
                                                        : m->now;
            if (due < t) {
                t = due < m->now ? m->now : due;
            }
        }
    }
    return t;
}

void ixm_irq_poll(struct ixgbe_model *m)
{
    uint64_t p = m->vpend;

    for (unsigned v = 0; p; v++, p >>= 1) {
        if (p & 1) {
            ixm_try_send(m, v);
        }
    }
}

bool ixm_irq_read(struct ixgbe_model *m, uint32_t off, bool peek, uint32_t *val)
{
    switch (off) {
    case IXM_EICR:
        *val = (uint32_t)(m->vcause & IXM_EICR_RTXQ) | m->ocause;
        if (!peek) {
            m->vcause &= ~(uint64_t)IXM_EICR_RTXQ;
            if (!(ixm_reg(m, IXM_GPIE) & IXM_GPIE_OCD)) {
                m->ocause = 0;
            }
        }
        return true;
    case IXM_EICS:
        *val = (uint32_t)(m->vcause & IXM_EICR_RTXQ) | m->ocause;
        return true;
    case IXM_EIMS:
        *val = (uint32_t)(m->vmask & IXM_EICR_RTXQ) | m->omask;
        return true;
    case IXM_EIMC:
    case IXM_EIMC_EX(0):
    case IXM_EIMC_EX(1):
        *val = 0; /* write-only */
        return true;
    case IXM_EIAC:
        *val = m->eiac;
        return true;
    case IXM_EIAM:
        *val = (uint32_t)(m->veiam & IXM_EICR_RTXQ) | m->oeiam;
        return true;
    case IXM_EICS_EX(0):
    case IXM_EICS_EX(1):
        *val = (uint32_t)(m->vcause >> (32 * ((off - IXM_EICS_EX(0)) / 4)));
        return true;
    case IXM_EIMS_EX(0):
    case IXM_EIMS_EX(1):
        *val = (uint32_t)(m->vmask >> (32 * ((off - IXM_EIMS_EX(0)) / 4)));
        return true;
    case IXM_EIAM_EX(0):
    case IXM_EIAM_EX(1):
        *val = (uint32_t)(m->veiam >> (32 * ((off - IXM_EIAM_EX(0)) / 4)));
        return true;
    default:
        return false;
    }
}

bool ixm_irq_write(struct ixgbe_model *m, uint32_t off, uint32_t val)
{
    uint64_t lo = val & IXM_EICR_RTXQ;
    uint32_t oth = val & 0xFFFF0000u;
    int v;

    switch (off) {
    case IXM_EICR: /* write 1 to clear */
        m->vcause &= ~lo;
        m->ocause &= ~oth;
        return true;
    case IXM_EICS: /* software-set causes behave like hardware events */
        ixm_assert_vectors(m, lo);
        ixm_irq_other_event(m, oth);
        return true;
    case IXM_EIMS:
        m->omask |= oth;
        if ((oth & m->ocause & IXM_EICR_OTHER_MASK) && (v = ixm_other_vector(m)) >= 0) {
            ixm_schedule(m, (unsigned)v);
        }
        ixm_enable_vectors(m, lo);
        return true;
    case IXM_EIMC:
        m->vmask &= ~lo;
        m->omask &= ~oth;
        return true;
    case IXM_EIAC:
        m->eiac = val;
        return true;
    case IXM_EIAM:
        m->veiam = (m->veiam & ~(uint64_t)IXM_EICR_RTXQ) | lo;
        m->oeiam = oth;
        return true;
    default:
        break;
    }
    for (unsigned i = 0; i < 2; i++) {
        uint64_t bits = (uint64_t)val << (32 * i);
        uint64_t keep = ~((uint64_t)0xFFFFFFFFu << (32 * i));

        if (off == IXM_EICS_EX(i)) {
            ixm_assert_vectors(m, bits);
            return true;
        }
        if (off == IXM_EIMS_EX(i)) {
            ixm_enable_vectors(m, bits);
            return true;
        }
        if (off == IXM_EIMC_EX(i)) {
            m->vmask &= ~bits;
            return true;
        }
        if (off == IXM_EIAM_EX(i)) {
            m->veiam = (m->veiam & keep) | bits;
            return true;
        }
    }
    return false;
}

/* ---- MSI-X table and PBA (BAR 4) ----------------------------------------------------- */

uint32_t ixm_msix_read(const struct ixgbe_model *m, uint32_t off)
{
    if (off < IXGBE_MODEL_MSIX_VECTORS * 16u) {
        return m->msix[off / 16][(off % 16) / 4];
    }
    if (off == IXGBE_MODEL_MSIX_PBA_OFFSET || off == IXGBE_MODEL_MSIX_PBA_OFFSET + 4) {
        return (uint32_t)(m->pba >> (off == IXGBE_MODEL_MSIX_PBA_OFFSET ? 0 : 32));
    }
    return 0;
}

void ixm_msix_write(struct ixgbe_model *m, uint32_t off, uint32_t val)
{
    unsigned v = off / 16;

    if (off >= IXGBE_MODEL_MSIX_VECTORS * 16u) {
        ixm_misuse(m, "MSI-X BAR write 0x%08x at 0x%x: %s", val, off,
                   off >= IXGBE_MODEL_MSIX_PBA_OFFSET && off < IXGBE_MODEL_MSIX_PBA_OFFSET + 8
                       ? "the PBA is read-only"
                       : "outside the table and PBA");
        return;
    }
    m->msix[v][(off % 16) / 4] = val;
    /* Unmasking an entry with its pending bit set sends the message now (PCI MSI-X). */
    if ((off % 16) == 12 && !(val & 1u) && (m->pba & IXM_BIT(v))) {
        m->pba &= ~IXM_BIT(v);
        ixm_msix_deliver(m, v);
    }
}
