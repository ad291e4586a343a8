/*
 * drivers/nic/intel_ring.c: RX/TX descriptor rings for the 82576 and 82599 advanced descriptors
 * (82576 datasheet §7.1.5, §7.2.2.3; 82599 datasheet §7.1.6, §7.2.3.2.4). Conventions and the
 * one-empty-slot rule: intel_ring.h.
 */
#include "drivers/nic/intel_ring.h"

#include <stddef.h>
#include <string.h>

#include "err.h"
#include "mmio.h"

/* iring_dma_addr: bus address of a buffer. Memory is identity mapped and there is no IOMMU, so
 * it is the virtual address; the one place to change if that ever stops being true. */
static inline uint64_t iring_dma_addr(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/* iring_check_geometry: ring memory and size as RDBA/RDLEN (TDBA/TDLEN) accept them. */
static int iring_check_geometry(const void *desc_mem, struct pkb **sw, uint16_t ndesc)
{
    if (desc_mem == NULL || sw == NULL) {
        return WS_ERR_INVAL;
    }
    if (((uintptr_t)desc_mem & (IRING_ALIGN_BYTES - 1)) != 0) {
        return WS_ERR_INVAL;
    }
    /* A power of two lets indices wrap with a mask: no division on the fast path. */
    if (ndesc < IRING_MIN_DESCS || ndesc > IRING_MAX_DESCS || (ndesc & (ndesc - 1)) != 0) {
        return WS_ERR_INVAL;
    }
    return 0;
}

/* ---- RX -------------------------------------------------------------------------------- */

int iring_rx_init(struct iring_rx *r, void *desc_mem, struct pkb **sw, uint16_t ndesc,
                  uintptr_t tail_reg, struct pkb_pool *pool, uint16_t core, uint16_t port)
{
    int err = iring_check_geometry(desc_mem, sw, ndesc);

    if (err != 0 || pool == NULL) {
        return err != 0 ? err : WS_ERR_INVAL;
    }
    memset(r, 0, sizeof(*r));
    /* Zeroed descriptors have DD clear, so no stale write-back is ever mistaken for a frame. */
    memset(desc_mem, 0, IRING_DESC_MEM_BYTES(ndesc));
    memset(sw, 0, ndesc * sizeof(sw[0]));
    r->desc = desc_mem;
    r->sw = sw;
    r->pool = pool;
    r->tail_reg = tail_reg;
    r->err_mask = IDESC_RX_ERR_FRAME_82576;
    r->size = ndesc;
    r->mask = (uint16_t)(ndesc - 1);
    r->core = core;
    r->port = port;
    return 0;
}

void iring_rx_set_err_mask(struct iring_rx *r, uint32_t mask)
{
    r->err_mask = mask;
}

void iring_rx_trust_l4_csum(struct iring_rx *r, uint32_t l4_err)
{
    r->l4_err = l4_err;
}

/* iring_rx_csum_flags: PKB_F_L4_CSUM_OK when the NIC vouches for the TCP/UDP checksum. */
static inline uint32_t iring_rx_csum_flags(const struct iring_rx *r, uint32_t staterr)
{
    bool checked = (staterr & IDESC_RX_STATUS_L4I) != 0 && r->l4_err != 0;
    return checked && (staterr & r->l4_err) == 0 ? PKB_F_L4_CSUM_OK : 0;
}

/* iring_rx_arm: give slot i's buffer to the NIC in the read format (82576 §7.1.5.1, 82599
 * §7.1.6.1). hdr_addr = 0 also clears the DD bit of the previous write-back. */
static inline void iring_rx_arm(struct iring_rx *r, uint16_t i, const struct pkb *p)
{
    r->desc[i].read.pkt_addr = iring_dma_addr(p->data);
    r->desc[i].read.hdr_addr = 0;
}

unsigned iring_rx_fill(struct iring_rx *r)
{
    uint16_t i = r->next_to_use;
    unsigned posted = 0;

    /* Stop one short of next_to_clean: posting every slot would make tail == head. */
    while (((i + 1) & r->mask) != r->next_to_clean) {
        struct pkb *p = r->sw[i]; /* a dropped frame's buffer is still here: reuse it */

        if (p == NULL) {
            p = pkb_alloc(r->pool);
            if (p == NULL) {
                /* Not a stall: the slot stays unposted and the next burst tries again. */
                r->stats.no_buffer++;
                break;
            }
            r->sw[i] = p;
        }
        iring_rx_arm(r, i, p);
        i = (i + 1) & r->mask;
        posted++;
    }
    if (posted != 0) {
        r->next_to_use = i;
        dma_wmb_before_tail();
        /* RDT = one past the last posted descriptor: the NIC may fill up to RDT - 1. */
        mmio_write32(r->tail_reg, i);
        r->stats.tail_writes++;
    }
    return posted;
}

/*
 * iring_rx_frame_ok: judge one written-back descriptor. Frames longer than one buffer arrive as
 * a chain of non-EOP descriptors ending in an EOP one; the whole chain is dropped as one error.
 */
static bool iring_rx_frame_ok(struct iring_rx *r, uint32_t staterr, uint16_t len)
{
    if (r->discarding) {
        r->discarding = (staterr & IDESC_RX_STATUS_EOP) == 0;
        return false;
    }
    if ((staterr & IDESC_RX_STATUS_EOP) == 0) {
        r->discarding = true;
        r->stats.oversize++;
        r->stats.errors++;
        return false;
    }
    /* Error bits are only valid on the EOP descriptor (82599 §7.1.6.2). */
    if ((staterr & r->err_mask) != 0 || len == 0 || len > PKB_DATA_BYTES) {
        r->stats.errors++;
        return false;
    }
    return true;
}

unsigned iring_rx_burst(struct iring_rx *r, struct pkb **out, unsigned max)
{
    uint16_t i = r->next_to_clean;
    unsigned n = 0;

    /* Only posted slots: an unposted one may still hold an old write-back with DD set. */
    while (n < max && i != r->next_to_use) {
        volatile union idesc_rx *d = &r->desc[i];
        uint32_t staterr = d->wb.status_error;

        if ((staterr & IDESC_RX_STATUS_DD) == 0) {
            break;
        }
        dma_rmb_after_dd();
        uint16_t len = d->wb.length;

        if (iring_rx_frame_ok(r, staterr, len)) {
            struct pkb *p = r->sw[i];
            uint32_t info = d->wb.info;

            p->len = len;
            p->port = r->port;
            p->queue = r->core;
            p->rss_hash = IDESC_RX_INFO_RSSTYPE(info) != 0 ? d->wb.rss_hash : 0;
            p->flags = iring_rx_csum_flags(r, staterr);
            p->rx_status = staterr;
            r->stats.packets++;
            r->stats.bytes += len;
            r->sw[i] = NULL;
            out[n++] = p;
        }
        i = (i + 1) & r->mask;
    }
    r->next_to_clean = i;
    /* Always refill, even after an empty harvest: that is how slots left unposted by an empty
     * pool get their buffers once the pool has some again. */
    iring_rx_fill(r);
    return n;
}

bool iring_rx_pending(const struct iring_rx *r)
{
    uint16_t i = r->next_to_clean;

    if (i == r->next_to_use) {
        return false;
    }
    return (r->desc[i].wb.status_error & IDESC_RX_STATUS_DD) != 0;
}

void iring_rx_release(struct iring_rx *r)
{
    for (uint16_t i = 0; i < r->size; i++) {
        if (r->sw[i] != NULL) {
            pkb_free(r->sw[i], r->core);
            r->sw[i] = NULL;
        }
        r->desc[i].read.pkt_addr = 0;
        r->desc[i].read.hdr_addr = 0;
    }
    r->next_to_clean = 0;
    r->next_to_use = 0;
    r->discarding = false;
}

/* ---- TX -------------------------------------------------------------------------------- */

int iring_tx_init(struct iring_tx *t, void *desc_mem, struct pkb **sw, uint16_t ndesc,
                  uintptr_t tail_reg, uint16_t core, uint16_t port)
{
    int err = iring_check_geometry(desc_mem, sw, ndesc);

    if (err != 0) {
        return err;
    }
    memset(t, 0, sizeof(*t));
    memset(desc_mem, 0, IRING_DESC_MEM_BYTES(ndesc));
    memset(sw, 0, ndesc * sizeof(sw[0]));
    t->desc = desc_mem;
    t->sw = sw;
    t->tail_reg = tail_reg;
    t->size = ndesc;
    t->mask = (uint16_t)(ndesc - 1);
    t->core = core;
    t->port = port;
    return 0;
}

/*
 * iring_tx_place: one frame in one advanced data descriptor (82576 §7.2.2.3, 82599
 * §7.2.3.2.4). RS on every descriptor: each completion is reported, so reclaim needs no
 * bookkeeping of which descriptor carries the status. Writing olinfo_status also clears the DD
 * of the slot's previous write-back.
 */
static inline void iring_tx_place(struct iring_tx *t, uint16_t i, struct pkb *p)
{
    t->desc[i].read.buffer_addr = iring_dma_addr(p->data);
    t->desc[i].read.cmd_type_len = IDESC_TX_DTYP_DATA | IDESC_TX_CMD_DEXT | IDESC_TX_CMD_EOP |
                                   IDESC_TX_CMD_IFCS | IDESC_TX_CMD_RS | IDESC_TX_DTALEN(p->len);
    t->desc[i].read.olinfo_status = IDESC_TX_PAYLEN(p->len);
    t->sw[i] = p;
}

unsigned iring_tx_burst(struct iring_tx *t, struct pkb **pkts, unsigned n)
{
    uint16_t i = t->next_to_use;
    unsigned placed = 0;

    iring_tx_reclaim(t);
    /* Free slots, keeping the one empty slot (see intel_ring.h). */
    unsigned room = (uint16_t)((t->next_to_clean - i - 1) & t->mask);

    for (unsigned k = 0; k < n; k++) {
        struct pkb *p = pkts[k];

        if (p->len == 0 || p->len > PKB_DATA_BYTES) {
            t->stats.bad_len++;
            pkb_free(p, t->core);
        } else if (placed == room) {
            t->stats.ring_full++;
            pkb_free(p, t->core);
        } else {
            iring_tx_place(t, i, p);
            i = (i + 1) & t->mask;
            placed++;
        }
    }
    if (placed != 0) {
        t->next_to_use = i;
        dma_wmb_before_tail();
        /* TDT = one past the last placed descriptor: the NIC may send up to TDT - 1. */
        mmio_write32(t->tail_reg, i);
        t->stats.tail_writes++;
    }
    return placed;
}

unsigned iring_tx_reclaim(struct iring_tx *t)
{
    uint16_t i = t->next_to_clean;
    unsigned done = 0;

    while (i != t->next_to_use && (t->desc[i].wb.status & IDESC_TX_STATUS_DD) != 0) {
        struct pkb *p = t->sw[i];

        /* DD means the NIC has read the whole buffer: it may be reused from here on. */
        dma_rmb_after_dd();
        t->stats.packets++;
        t->stats.bytes += p->len;
        t->stats.forwarded += p->flags & PKB_F_FORWARDED; /* forwarded = sent, not queued */
        pkb_free(p, t->core);
        t->sw[i] = NULL;
        i = (i + 1) & t->mask;
        done++;
    }
    t->next_to_clean = i;
    return done;
}

void iring_tx_release(struct iring_tx *t)
{
    for (uint16_t i = 0; i < t->size; i++) {
        if (t->sw[i] != NULL) {
            pkb_free(t->sw[i], t->core);
            t->sw[i] = NULL;
        }
        t->desc[i].read.buffer_addr = 0;
        t->desc[i].read.cmd_type_len = 0;
        t->desc[i].read.olinfo_status = 0;
    }
    t->next_to_clean = 0;
    t->next_to_use = 0;
}
