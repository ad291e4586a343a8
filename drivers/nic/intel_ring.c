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

#define IRING_ETH_HDR_BYTES 14 /* the TCP/IPv4 context: untagged Ethernet */

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
    r->size = ndesc;
    r->mask = (uint16_t)(ndesc - 1);
    /* A small ring refills sooner, so that it never runs with most of its slots empty. */
    r->refill_min = ndesc / 4 < IRING_RX_REFILL_BATCH ? ndesc / 4 : IRING_RX_REFILL_BATCH;
    r->core = core;
    r->port = port;
    /* pkb.rx_meta: len (bits 15:0, per frame), port, queue, owner (unchanged: the pool's). */
    r->meta = (uint64_t)port << 16 | (uint64_t)core << 32 | (uint64_t)pool->owner << 48;
    iring_rx_set_err_mask(r, IDESC_RX_ERR_FRAME_82576);
    r->ip_good = IDESC_RX_STATUS_IPCS; /* with ip_mask 0, never matched: nothing trusted yet */
    return 0;
}

void iring_rx_set_err_mask(struct iring_rx *r, uint32_t mask)
{
    r->good_mask = IDESC_RX_STATUS_DD | IDESC_RX_STATUS_EOP | mask;
}

void iring_rx_trust_l4_csum(struct iring_rx *r, uint32_t l4_err)
{
    r->l4_mask = l4_err != 0 ? IDESC_RX_STATUS_L4I | l4_err : 0;
    r->l4_good = IDESC_RX_STATUS_L4I;
}

void iring_rx_trust_ipv4_csum(struct iring_rx *r, uint32_t ip_err)
{
    r->ip_mask = IDESC_RX_STATUS_IPCS | ip_err;
    r->ip_good = IDESC_RX_STATUS_IPCS;
}

/*
 * The fast loops below each walk one stretch of a ring without wrap-around (the callers split a
 * burst at the ring's end), through pointers and with few live values, so that they compile to
 * a handful of instructions per frame; noinline keeps the callers' state out of their registers.
 */

/* iring_rx_post_one: give buffer p to descriptor d in the read format (82576 §7.1.5.1, 82599
 * §7.1.6.1); hdr_addr = 0 also clears the DD of the previous write-back. */
static inline void iring_rx_post_one(volatile union idesc_rx *d, struct pkb **sw, struct pkb *p)
{
    *sw = p;
    d->read.pkt_addr = iring_dma_addr(p->data);
    d->read.hdr_addr = 0;
}

/* iring_rx_post_run: give bufs[0..n) to descriptors d[0..n). */
static __attribute__((noinline)) void iring_rx_post_run(volatile union idesc_rx *d,
                                                        struct pkb **sw, struct pkb **bufs,
                                                        unsigned n)
{
    /* By fours, so that the pointers step once per four slots. */
    struct pkb **const end = bufs + (n & ~3U);
    for (; bufs != end; d += 4, sw += 4, bufs += 4) {
        iring_rx_post_one(&d[0], &sw[0], bufs[0]);
        iring_rx_post_one(&d[1], &sw[1], bufs[1]);
        iring_rx_post_one(&d[2], &sw[2], bufs[2]);
        iring_rx_post_one(&d[3], &sw[3], bufs[3]);
    }
    for (unsigned j = 0; j < (n & 3U); j++) {
        iring_rx_post_one(&d[j], &sw[j], bufs[j]);
    }
}

unsigned iring_rx_fill(struct iring_rx *r)
{
    /* Stop one short of next_to_clean: posting every slot would make tail == head. */
    unsigned want = (uint16_t)((r->next_to_clean - r->next_to_use - 1) & r->mask);
    struct pkb **taken;
    unsigned got = want != 0 ? pkb_alloc_burst(r->pool, want, &taken) : 0;

    if (got < want) {
        /* Not a stall: the slots stay unposted and a later refill tries again. */
        r->stats.no_buffer++;
    }
    if (got == 0) {
        return 0;
    }
    uint16_t i = r->next_to_use;
    for (unsigned k = 0; k < got;) {
        unsigned run = got - k < (unsigned)r->size - i ? got - k : (unsigned)r->size - i;
        iring_rx_post_run(&r->desc[i], &r->sw[i], &taken[k], run);
        k += run;
        i = (uint16_t)((i + run) & r->mask);
    }
    r->next_to_use = i;
    dma_wmb_before_tail();
    /* RDT = one past the last posted descriptor: the NIC may fill up to RDT - 1. */
    mmio_write32(r->tail_reg, i);
    r->stats.tail_writes++;
    return got;
}

/*
 * iring_rx_drop: slot i holds a written-back descriptor that is not a whole good frame: count
 * it and give its buffer back. Frames longer than one buffer arrive as a chain of non-EOP
 * descriptors ending in an EOP one; the whole chain is dropped as one error (discarding carries
 * the chain across bursts). Error bits are only valid on the EOP descriptor (82599 §7.1.6.2).
 */
static void iring_rx_drop(struct iring_rx *r, uint16_t i, uint32_t staterr)
{
    bool eop = (staterr & IDESC_RX_STATUS_EOP) != 0;

    if (!r->discarding) {
        r->stats.errors++;
        r->stats.oversize += !eop;
    }
    r->discarding = !eop;
    pkb_free(r->sw[i], r->core);
}

/*
 * iring_rx_take_run: hand out the good frames at the start of d[0..n): stop at the first
 * descriptor not yet written back or not a good frame. Returns how many; adds their bytes.
 * One test per descriptor judges it whole: the write-back's upper quadword holds the status
 * (bits 31:0) and PKT_LEN (47:32); with 1 taken from the length, a good frame has DD and EOP,
 * no error bit and a length in 1..PKB_DATA_BYTES exactly when the masked word equals DD|EOP
 * (a length of 0 borrows into 0xFFFF, one above PKB_DATA_BYTES sets a bit in 15:11 for
 * 2 KiB buffers, 15:14 for 16 KiB ones).
 */
static __attribute__((noinline)) unsigned iring_rx_take_run(volatile union idesc_rx *d,
                                                            struct pkb **sw, struct pkb **out,
                                                            unsigned n, uint64_t meta,
                                                            uint32_t good_mask, uint64_t *bytes)
{
    /* PKB_DATA_BYTES is a power of two (kernel/pkb.h): length - 1 fits exactly when the
     * bits from log2(PKB_DATA_BYTES) to 15 are clear (15:11 for 2 KiB) */
    const uint64_t mask = good_mask | (0xFFFFULL & ~(uint64_t)(PKB_DATA_BYTES - 1)) << 32;
    const uint64_t want = IDESC_RX_STATUS_DD | IDESC_RX_STATUS_EOP;
    /* pkb.rx_word: the status and the VLAN tag where the write-back has them, the length
     * (which lies between, where forwarded and tx_flags go) cleared */
    const uint64_t rx_word = 0xFFFF0000FFFFFFFFULL;
    uint64_t sum = 0;
    unsigned k = 0;
#pragma GCC unroll 4
    for (; k < n; k++) {
        uint64_t w = d[k].qw[1];
        if (((w - (1ULL << 32)) & mask) != want) {
            break;
        }
        uint16_t len = d[k].wb.length; /* volatile: read after the status */
        struct pkb *p = sw[k];
        p->rx_meta = meta | len;
        p->rx_word = w & rx_word;
        out[k] = p;
        sum += len;
    }
    *bytes += sum;
    return k;
}

/*
 * iring_rx_burst_more: the rest of a burst after the first stretch (at next_to_clean + n)
 * stopped short of max frames and of the posted slots: the ring's end, a descriptor to drop, or
 * an oversize frame being discarded. Returns the burst's new total; next_to_clean follows.
 */
static __attribute__((noinline)) unsigned iring_rx_burst_more(struct iring_rx *r,
                                                              struct pkb **out, unsigned max,
                                                              unsigned n)
{
    uint16_t i = (uint16_t)((r->next_to_clean + n) & r->mask);
    unsigned left = (uint16_t)((r->next_to_use - i) & r->mask);

    while (n < max && left != 0) {
        uint32_t staterr = r->desc[i].wb.status_error;
        if ((staterr & IDESC_RX_STATUS_DD) == 0) {
            break;
        }
        unsigned k = 0;
        if (!r->discarding) {
            unsigned run = max - n < left ? max - n : left;
            if (run > (unsigned)r->size - i) {
                run = r->size - i;
            }
            k = iring_rx_take_run(&r->desc[i], &r->sw[i], &out[n], run, r->meta, r->good_mask,
                                  &r->stats.bytes);
        }
        if (k == 0) {
            /* written back but not a good frame */
            iring_rx_drop(r, i, staterr);
            k = 1;
        } else {
            n += k;
        }
        left -= k;
        i = (uint16_t)((i + k) & r->mask);
    }
    r->next_to_clean = i;
    return n;
}

unsigned iring_rx_burst(struct iring_rx *r, struct pkb **out, unsigned max)
{
    uint16_t i = r->next_to_clean;
    /* Only posted slots: an unposted one may still hold an old write-back with DD set. */
    unsigned left = iring_rx_posted(r);
    unsigned n = 0;

    if (left != 0 && (r->desc[i].wb.status_error & IDESC_RX_STATUS_DD) != 0) {
        /* The common case: one stretch of good frames, up to max or the ring's end. */
        unsigned run = max < left ? max : left;
        if (run > (unsigned)r->size - i) {
            run = r->size - i;
        }
        if (!r->discarding) {
            n = iring_rx_take_run(&r->desc[i], &r->sw[i], out, run, r->meta, r->good_mask,
                                  &r->stats.bytes);
        }
        if (n == run && (n == max || n == left)) {
            r->next_to_clean = (uint16_t)((i + n) & r->mask);
        } else {
            n = iring_rx_burst_more(r, out, max, n);
        }
        r->stats.packets += n;
        /* One barrier per burst: the caller's reads of the buffers stay after the DD reads. */
        dma_rmb_after_dd();
    }
    /* Refill in bulk; and after an empty harvest, whatever is free: a quiet ring is always
     * full (and slots left unposted by an empty pool get their buffers once it has some). */
    unsigned unposted = (unsigned)r->size - 1 - iring_rx_posted(r);
    if (unposted >= r->refill_min || (n == 0 && unposted != 0)) {
        iring_rx_fill(r);
    }
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
    /* Written back but never taken: count the frames (their EOP descriptors) as flushed. */
    bool counting = true;
    for (uint16_t i = r->next_to_clean; i != r->next_to_use; i = (i + 1) & r->mask) {
        uint32_t staterr = r->desc[i].wb.status_error;
        /* the NIC fills in order: nothing after the first slot without DD was written */
        counting = counting && (staterr & IDESC_RX_STATUS_DD) != 0;
        r->stats.flushed += counting && (staterr & IDESC_RX_STATUS_EOP) != 0;
        pkb_free(r->sw[i], r->core);
    }
    memset(r->sw, 0, r->size * sizeof(r->sw[0]));
    for (uint16_t i = 0; i < r->size; i++) {
        r->desc[i].read.pkt_addr = 0;
        r->desc[i].read.hdr_addr = 0;
    }
    r->next_to_clean = 0;
    r->next_to_use = 0;
    r->discarding = false;
}

/* ---- TX -------------------------------------------------------------------------------- */

int iring_tx_init(struct iring_tx *t, void *desc_mem, struct pkb **sw,
                  struct iring_tx_mark *marks, uint16_t ndesc, uintptr_t tail_reg,
                  struct pkb_pool *pool, uint16_t core, uint16_t port)
{
    int err = iring_check_geometry(desc_mem, sw, ndesc);

    if (err != 0 || pool == NULL || marks == NULL) {
        return err != 0 ? err : WS_ERR_INVAL;
    }
    memset(t, 0, sizeof(*t));
    memset(desc_mem, 0, IRING_DESC_MEM_BYTES(ndesc));
    memset(sw, 0, ndesc * sizeof(sw[0]));
    memset(marks, 0, ndesc * sizeof(marks[0]));
    t->desc = desc_mem;
    t->sw = sw;
    t->marks = marks;
    t->pool = pool;
    t->tail_reg = tail_reg;
    t->size = ndesc;
    t->mask = (uint16_t)(ndesc - 1);
    /* At least two reported descriptors per ring, so that half of it can be reclaimed while
     * the other half is in flight. */
    t->rs_mask = (uint16_t)((ndesc / 2 < IRING_TX_RS_EVERY ? ndesc / 2 : IRING_TX_RS_EVERY) - 1);
    t->core = core;
    t->port = port;
    t->ctx1_tag = IRING_CTX1_OTHER;
    return 0;
}

/* iring_tx_from_ntc: how far slot i lies after next_to_clean, going forward. */
static inline uint16_t iring_tx_from_ntc(const struct iring_tx *t, uint16_t i)
{
    return (uint16_t)((i - t->next_to_clean) & t->mask);
}

/*
 * iring_tx_first_report: the first descriptor from next_to_clean on that has RS: the last
 * descriptor of the frame holding its group's rs_mask-aligned slot (RS goes on a frame's last
 * descriptor only; a frame's first slot holds its buffer, its further ones none, so the frame
 * ends before the next slot with one), or the last one placed if that comes first (every
 * burst's last has RS). Meaningless (and never read) while nothing is in flight.
 */
static uint16_t iring_tx_first_report(const struct iring_tx *t)
{
    uint16_t group_end = t->next_to_clean | t->rs_mask;
    uint16_t last = (t->next_to_use - 1) & t->mask;
    if (iring_tx_from_ntc(t, group_end) >= iring_tx_from_ntc(t, last)) {
        return last;
    }
    while (group_end != last && t->sw[(group_end + 1) & t->mask] == NULL) {
        group_end = (group_end + 1) & t->mask;
    }
    return group_end;
}

/* iring_tx_room: free descriptors, keeping the one empty slot (see intel_ring.h). */
static inline unsigned iring_tx_room(const struct iring_tx *t)
{
    /* A context descriptor the NIC may not have taken yet still holds its slot: without it,
     * a full lap could bring TDT round to the TDH still waiting there (an "empty" ring). */
    return (uint16_t)((t->next_to_clean - t->next_to_use - 1 - t->ctx_unseen) & t->mask);
}

/*
 * iring_tx_place: one frame in one advanced data descriptor (82576 §7.2.2.3, 82599
 * §7.2.3.2.4), without RS (iring_tx_post adds it where it belongs). Writing olinfo_status also
 * clears the DD of the slot's previous write-back. Returns the frame's length.
 */
static inline uint32_t iring_tx_place(volatile union idesc_tx *d, struct pkb **slot,
                                      struct pkb *p, uint64_t offload)
{
    const uint64_t cmd = IDESC_TX_DTYP_DATA | IDESC_TX_CMD_DEXT | IDESC_TX_CMD_EOP |
                         IDESC_TX_CMD_IFCS;
    uint32_t len = p->len;
    d->read.buffer_addr = iring_dma_addr(p->data);
    /* cmd_type_len = cmd | DTALEN(len), olinfo_status = PAYLEN(len) | offload, as one store:
     * len sits at bit 0 and at bit 32 + 14 of the quadword (len < 2^16 never carries into
     * cmd). */
    d->qw[1] = (uint64_t)len * ((1ULL << 46) | 1) + cmd + offload;
    *slot = p;
    return len;
}

/* iring_tx_offload: the olinfo_status bits (as qw[1]'s upper half) frame p asks for, with context
 * 0: TXSM for PKB_TX_CSUM_TCP4, IXSM for PKB_TX_CSUM_IP4 (iring_tx_burst has checked the ring
 * holds that context: IPv4 with IPLEN 20, TCP; 82576 §7.2.2.2, 82599 §7.2.5). */
static inline uint64_t iring_tx_offload(const struct pkb *p)
{
    _Static_assert(PKB_TX_CSUM_TCP4 == 1 && PKB_TX_CSUM_IP4 == 4, "tx_csum bits 0 and 2");
    uint64_t f = p->tx_flags;
    return ((f & PKB_TX_CSUM_TCP4) * IDESC_TX_POPTS_TXSM +
            (f >> 2 & 1) * IDESC_TX_POPTS_IXSM) << 32;
}

/* iring_tx_group_end: slot i is an rs_mask-aligned one: it gets RS, so its mark is kept. */
static inline bool iring_tx_group_end(const struct iring_tx *t, uint16_t i)
{
    return (i & t->rs_mask) == t->rs_mask;
}

/*
 * iring_tx_post_tail: descriptors [next_to_use, end) are placed, with RS and marks where their
 * groups end: ask for a write-back on the last too (so the burst completes even if nothing
 * follows it), then hand them to the NIC with one tail write.
 */
static void iring_tx_post_tail(struct iring_tx *t, uint16_t end)
{
    uint16_t last = (end - 1) & t->mask;
    t->desc[last].read.cmd_type_len |= IDESC_TX_CMD_RS;
    t->marks[last] = t->placed;
    t->next_to_use = end;
    t->report = iring_tx_first_report(t);
    dma_wmb_before_tail();
    /* TDT = one past the last placed descriptor: the NIC may send up to TDT - 1. */
    mmio_write32(t->tail_reg, end);
    t->stats.tail_writes++;
}

/*
 * iring_tx_post: descriptors [next_to_use, end) are placed one per frame and their marks kept:
 * ask for a write-back on every rs_mask-aligned one among them, then post them.
 */
static void iring_tx_post(struct iring_tx *t, uint16_t end)
{
    uint16_t first = t->next_to_use;
    unsigned placed = (uint16_t)((end - first) & t->mask);

    for (unsigned k = (t->rs_mask - first) & t->rs_mask; k < placed; k += t->rs_mask + 1U) {
        t->desc[(first + k) & t->mask].read.cmd_type_len |= IDESC_TX_CMD_RS;
    }
    iring_tx_post_tail(t, end);
}

/* iring_tx_forward_run_with: place frames[0..n) in d[0..n), each asking for `offload`;
 * returns their bytes. */
static inline __attribute__((always_inline)) uint32_t
iring_tx_forward_run_with(volatile union idesc_tx *d, struct pkb **sw, struct pkb **frames,
                          unsigned n, uint64_t offload)
{
    uint32_t bytes = 0;
    unsigned k = 0;
    for (; k + 4 <= n; k += 4, d += 4, sw += 4, frames += 4) {
        bytes += iring_tx_place(&d[0], &sw[0], frames[0], offload);
        bytes += iring_tx_place(&d[1], &sw[1], frames[1], offload);
        bytes += iring_tx_place(&d[2], &sw[2], frames[2], offload);
        bytes += iring_tx_place(&d[3], &sw[3], frames[3], offload);
    }
    for (unsigned j = 0; j < n - k; j++) {
        bytes += iring_tx_place(&d[j], &sw[j], frames[j], offload);
    }
    return bytes;
}

/* iring_tx_forward_run: place frames[0..n) in d[0..n) as they are; returns their bytes. */
static __attribute__((noinline)) uint32_t iring_tx_forward_run(volatile union idesc_tx *d,
                                                               struct pkb **sw,
                                                               struct pkb **frames, unsigned n)
{
    return iring_tx_forward_run_with(d, sw, frames, n, 0);
}

/* iring_tx_forward_run_tagged: the same, each with VLE naming context slot 1 (its tag). */
static __attribute__((noinline)) uint32_t
iring_tx_forward_run_tagged(volatile union idesc_tx *d, struct pkb **sw, struct pkb **frames,
                            unsigned n)
{
    return iring_tx_forward_run_with(d, sw, frames, n,
                                     ((uint64_t)IDESC_TX_IDX(1) << 32) + IDESC_TX_CMD_VLE);
}

/* iring_tx_marked_run: as iring_tx_forward_run, counts the frames marked forwarded and asks
 * for the offloads they name (forwarded frames never name one). */
static __attribute__((noinline)) uint32_t iring_tx_marked_run(volatile union idesc_tx *d,
                                                              struct pkb **sw,
                                                              struct pkb **frames, unsigned n,
                                                              uint32_t *forwarded)
{
    uint32_t bytes = 0, fwd = 0;
    for (unsigned k = 0; k < n; k++) {
        fwd += frames[k]->forwarded != 0;
        bytes += iring_tx_place(&d[k], &sw[k], frames[k], iring_tx_offload(frames[k]));
    }
    *forwarded += fwd;
    return bytes;
}

/* How iring_tx_place_all places its frames. */
enum iring_tx_how {
    IRING_TX_MARKED,    /* each as its marks ask, counted forwarded by its mark */
    IRING_TX_FORWARDED, /* as they are, all forwarded */
    IRING_TX_TAGGED,    /* all forwarded, with the tag of context slot 1 */
};

/*
 * iring_tx_place_all: place pkts[0..n) (all fit) from next_to_use on, by stretches that end at
 * a group's end (so its mark can be kept: groups divide the ring, so the ring's end is one too),
 * and post them, as `how` says.
 */
static void iring_tx_place_all(struct iring_tx *t, struct pkb **pkts, unsigned n,
                               enum iring_tx_how how)
{
    uint16_t i = t->next_to_use;
    for (unsigned k = 0; k < n;) {
        unsigned run = t->rs_mask + 1U - (i & t->rs_mask);
        run = run < n - k ? run : n - k;
        if (how == IRING_TX_MARKED) {
            t->placed.bytes += iring_tx_marked_run(&t->desc[i], &t->sw[i], &pkts[k], run,
                                                   &t->placed.forwarded);
        } else {
            t->placed.bytes += how == IRING_TX_TAGGED
                                   ? iring_tx_forward_run_tagged(&t->desc[i], &t->sw[i],
                                                                 &pkts[k], run)
                                   : iring_tx_forward_run(&t->desc[i], &t->sw[i], &pkts[k], run);
            t->placed.forwarded += run;
        }
        t->placed.frames += run;
        t->placed.descs += run;
        k += run;
        i = (i + run) & t->mask;
        uint16_t last = (i - 1) & t->mask;
        if (iring_tx_group_end(t, last)) {
            t->marks[last] = t->placed;
        }
    }
    if (n != 0) {
        iring_tx_post(t, i);
    }
}

/* iring_tx_refuse_excess: frames pkts[placed..n) found no descriptor. */
static void iring_tx_refuse_excess(struct iring_tx *t, struct pkb **pkts, unsigned placed,
                                   unsigned n)
{
    t->stats.ring_full += n - placed;
    for (unsigned k = placed; k < n; k++) {
        pkb_free(pkts[k], t->core);
    }
}

/*
 * iring_tx_place_two: frame p in two data descriptors at slots i and i + 1: its buffer's len
 * bytes, then tx.ext_len bytes at tx.ext; EOP (and RS, where wanted) on the second only, whose
 * slot holds no buffer. Both carry the whole frame's PAYLEN and the offloads (82599
 * §7.2.3.2.4: read from the first; Linux's drivers write them to every one). Returns the
 * frame's length.
 */
static uint32_t iring_tx_place_two(struct iring_tx *t, uint16_t i, struct pkb *p,
                                   uint64_t offload)
{
    const uint64_t cmd = IDESC_TX_DTYP_DATA | IDESC_TX_CMD_DEXT | IDESC_TX_CMD_IFCS;
    uint32_t total = (uint32_t)p->len + p->tx.ext_len;
    uint64_t olinfo = ((uint64_t)total << 46) + offload;
    uint16_t j = (i + 1) & t->mask;
    t->desc[i].read.buffer_addr = iring_dma_addr(p->data);
    t->desc[i].qw[1] = cmd + p->len + olinfo;
    t->desc[j].read.buffer_addr = iring_dma_addr(p->tx.ext);
    t->desc[j].qw[1] = cmd + IDESC_TX_CMD_EOP + p->tx.ext_len + olinfo;
    t->sw[i] = p;
    t->sw[j] = NULL;
    return total;
}

/* iring_tx_context: write slot i as a context descriptor (82576 §7.2.2.2, 82599 §7.2.3.2.3)
 * for frames whose Ethernet header is untagged in memory: with tcp4, for TCP behind a 20-byte
 * IPv4 header; vlan, the tag VLE puts on (0 when none is asked); mss_l4len_idx names its slot
 * (IDX) and, for segmentation, the MSS and the TCP header's length. */
static void iring_tx_context(struct iring_tx *t, uint16_t i, bool tcp4, uint16_t vlan,
                             uint32_t mss_l4len_idx)
{
    volatile union idesc_tx_ctx *c = (volatile union idesc_tx_ctx *)&t->desc[i];
    c->vlan_macip_lens = IDESC_TXC_VLAN(vlan) | IDESC_TXC_MACLEN(IRING_ETH_HDR_BYTES) |
                         (tcp4 ? IDESC_TXC_IPLEN(20) : 0);
    c->seqnum_seed = 0;
    c->type_tucmd_mlhl = IDESC_TXC_DTYP_CTXT | IDESC_TX_CMD_DEXT |
                         (tcp4 ? IDESC_TXC_TUCMD_IPV4 | IDESC_TXC_TUCMD_L4T_TCP : 0);
    c->mss_l4len_idx = mss_l4len_idx;
}

/* iring_tx_vle: the data descriptors' VLE (as qw[1]'s lower half) for frame p, and its tag:
 * VLAN insertion takes the tag from the context of the frame's own slot 1. */
static inline uint64_t iring_tx_vle(const struct pkb *p)
{
    return (p->tx_flags & PKB_TX_VLAN) ? IDESC_TX_CMD_VLE : 0;
}
static inline uint16_t iring_tx_tag(const struct pkb *p)
{
    return (p->tx_flags & PKB_TX_VLAN) ? p->vlan : 0;
}

/* iring_tx_tso_segments: how many segments of tx.mss bytes the TSO frame p becomes. */
static inline uint32_t iring_tx_tso_segments(const struct pkb *p)
{
    return (p->tx.ext_len + p->tx.mss - 1U) / p->tx.mss;
}

/*
 * iring_tx_place_tso: TSO frame p (PKB_TX_TSO) in three descriptors from slot i: a context
 * descriptor for slot 1 (IPv4 with a 20-byte header, TCP with len - 34 header bytes, the MSS;
 * 82576 §7.2.2.2, 82599 §7.2.3.2.3), then the headers and the payload as data descriptors with
 * TSE, TXSM and IXSM naming it, PAYLEN the payload only (82599 §7.2.3.2.4). A context per frame
 * (as Linux's drivers do) rather than one per MSS kept: each costs one descriptor, against the
 * several segments it describes. The first slot holds the buffer, the two after it none.
 * Returns the bytes the wire will carry: the headers once per segment.
 */
static uint32_t iring_tx_place_tso(struct iring_tx *t, uint16_t i, struct pkb *p)
{
    const uint64_t cmd = IDESC_TX_DTYP_DATA | IDESC_TX_CMD_DEXT | IDESC_TX_CMD_IFCS |
                         IDESC_TX_CMD_TSE;
    uint32_t l4len = p->len - IRING_ETH_HDR_BYTES - 20U;
    uint64_t olinfo = ((uint64_t)(IDESC_TX_PAYLEN(p->tx.ext_len) | IDESC_TX_IDX(1) |
                                  IDESC_TX_POPTS_TXSM | IDESC_TX_POPTS_IXSM)) << 32 |
                      iring_tx_vle(p);
    uint16_t h = (i + 1) & t->mask, d = (i + 2) & t->mask;
    iring_tx_context(t, i, true, iring_tx_tag(p),
                     IDESC_TXC_MSS(p->tx.mss) | IDESC_TXC_L4LEN(l4len) | IDESC_TX_IDX(1));
    t->ctx1_tag = IRING_CTX1_OTHER;
    t->desc[h].read.buffer_addr = iring_dma_addr(p->data);
    t->desc[h].qw[1] = cmd + p->len + olinfo;
    t->desc[d].read.buffer_addr = iring_dma_addr(p->tx.ext);
    t->desc[d].qw[1] = cmd + IDESC_TX_CMD_EOP + p->tx.ext_len + olinfo;
    t->sw[i] = p;
    t->sw[h] = NULL;
    t->sw[d] = NULL;
    uint32_t segs = iring_tx_tso_segments(p);
    t->placed.extra += segs - 1U;
    t->stats.tso_frames++;
    t->stats.vlan_inserted += iring_tx_vle(p) != 0;
    return segs * p->len + p->tx.ext_len;
}

/*
 * iring_tx_place_tagged: frame p (PKB_TX_VLAN, not TSO) from slot i: a context descriptor for
 * slot 1 holding its tag (and the TCP/IPv4 checksum context, when it asks for those offloads),
 * then its one or two data descriptors naming slot 1, with VLE. A context per tagged frame, as
 * for TSO: slot 0 keeps the checksum context the untagged frames use. The first slot holds the
 * buffer, the others none. Returns the frame's length (the NIC adds the tag's 4 bytes).
 */
static uint32_t iring_tx_place_tagged(struct iring_tx *t, uint16_t i, struct pkb *p)
{
    uint16_t d = (i + 1) & t->mask;
    uint64_t offload = iring_tx_offload(p) + ((uint64_t)IDESC_TX_IDX(1) << 32) + IDESC_TX_CMD_VLE;
    bool csum = (p->tx_flags & (PKB_TX_CSUM_TCP4 | PKB_TX_CSUM_IP4)) != 0;
    iring_tx_context(t, i, csum, p->vlan, IDESC_TX_IDX(1));
    t->ctx1_tag = csum ? IRING_CTX1_OTHER : p->vlan;
    uint32_t len = (p->tx_flags & PKB_TX_EXT) ? iring_tx_place_two(t, d, p, offload)
                                              : iring_tx_place(&t->desc[d], &t->sw[d], p, offload);
    t->sw[i] = p;
    t->sw[d] = NULL;
    t->stats.vlan_inserted++;
    return len;
}

/* iring_tx_descs: the descriptors frame p takes (iring_tx_burst's comment says which). */
static inline unsigned iring_tx_descs(const struct pkb *p)
{
    uint8_t f = p->tx_flags;
    if (f & PKB_TX_TSO) {
        return 3U;
    }
    return 1U + ((f & PKB_TX_EXT) != 0) + ((f & PKB_TX_VLAN) != 0);
}

/* iring_tx_place_one: frame p from slot i on, in the descriptors it takes; returns its bytes. */
static uint32_t iring_tx_place_one(struct iring_tx *t, uint16_t i, struct pkb *p, unsigned descs)
{
    if (p->tx_flags & PKB_TX_TSO) {
        return iring_tx_place_tso(t, i, p);
    }
    if (p->tx_flags & PKB_TX_VLAN) {
        return iring_tx_place_tagged(t, i, p);
    }
    return descs == 2 ? iring_tx_place_two(t, i, p, iring_tx_offload(p))
                      : iring_tx_place(&t->desc[i], &t->sw[i], p, iring_tx_offload(p));
}

/*
 * iring_tx_place_frames: place pkts[0..n) (their descriptors fit) one frame at a time, some in
 * two descriptors (PKB_TX_EXT) or three (PKB_TX_TSO), and post them. A group's write-back goes
 * on the last descriptor of the frame that holds the group's rs_mask-aligned slot (RS only
 * ever on a frame's last descriptor), and the mark with it; iring_tx_first_report finds it
 * there.
 */
static void iring_tx_place_frames(struct iring_tx *t, struct pkb **pkts, unsigned n)
{
    uint16_t i = t->next_to_use;
    for (unsigned k = 0; k < n; k++) {
        struct pkb *p = pkts[k];
        unsigned descs = iring_tx_descs(p);
        uint16_t last = (i + descs - 1U) & t->mask;
        t->placed.bytes += iring_tx_place_one(t, i, p, descs);
        t->placed.frames++;
        t->placed.descs += descs;
        t->placed.forwarded += p->forwarded != 0;
        /* a group's end among the frame's slots: the gap from i to it is under descs */
        if (((t->rs_mask - i) & t->rs_mask) < descs) {
            t->desc[last].read.cmd_type_len |= IDESC_TX_CMD_RS;
            t->marks[last] = t->placed;
        }
        i = (last + 1) & t->mask;
    }
    if (n != 0) {
        iring_tx_post_tail(t, i);
    }
}

/* iring_tx_descs_for: how many of pkts[0..n) fit in room descriptors, in order (a PKB_TX_EXT
 * frame takes two, a PKB_TX_TSO one three); *multi says whether any of those takes more than
 * one. */
static unsigned iring_tx_descs_for(struct pkb *const *pkts, unsigned n, unsigned room,
                                   bool *multi)
{
    unsigned k = 0, used = 0;
    *multi = false;
    for (; k < n; k++) {
        unsigned d = iring_tx_descs(pkts[k]);
        if (used + d > room) {
            break;
        }
        used += d;
        *multi |= d != 1;
    }
    return k;
}

/* iring_tx_tso_ok: TSO frame p is one the NIC can cut (PKB_TX_TSO says what it must be): its
 * buffer exactly the headers (a TCP header of 20 to 60 bytes, whole words), payload longer than
 * one segment and within one descriptor, an MSS in range. */
static bool iring_tx_tso_ok(const struct pkb *p)
{
    const uint16_t all = PKB_TX_TSO | PKB_TX_EXT | PKB_TX_CSUM_TCP4 | PKB_TX_CSUM_IP4;
    uint32_t l4len = (uint32_t)p->len - IRING_ETH_HDR_BYTES - 20U;
    return (p->tx_flags & ~PKB_TX_VLAN) == all && l4len >= 20 && l4len <= 60 && (l4len & 3) == 0 &&
           p->tx.ext != NULL && p->tx.mss >= IRING_TX_TSO_MIN_MSS &&
           p->tx.mss <= IRING_TX_TSO_MAX_MSS && p->tx.ext_len > p->tx.mss &&
           p->tx.ext_len <= IRING_TX_TSO_MAX_BYTES;
}

/* iring_tx_acceptable: what iring_tx_burst refuses (and counts) before placing anything. */
static bool iring_tx_acceptable(struct iring_tx *t, const struct pkb *p)
{
    uint16_t f = p->tx_flags;
    if (f & PKB_TX_TSO) {
        bool ok = p->pool == t->pool && t->csum_ctx && iring_tx_tso_ok(p);
        t->stats.bad_tso += !ok;
        return ok;
    }
    if ((uint16_t)(p->len - 1) >= PKB_DATA_BYTES ||
        ((f & PKB_TX_EXT) && (p->tx.ext == NULL || (uint32_t)(p->tx.ext_len - 1) >=
                                                       IRING_TX_EXT_MAX_BYTES))) {
        t->stats.bad_len++;
    } else if (p->pool != t->pool) {
        t->stats.foreign++;
    } else if ((f & ~(PKB_TX_CSUM_TCP4 | PKB_TX_CSUM_IP4 | PKB_TX_EXT | PKB_TX_VLAN)) ||
               ((f & (PKB_TX_CSUM_TCP4 | PKB_TX_CSUM_IP4)) && !t->csum_ctx)) {
        t->stats.no_csum_ctx++; /* it would leave with a wrong checksum */
    } else {
        return true;
    }
    return false;
}

unsigned iring_tx_burst(struct iring_tx *t, struct pkb **pkts, unsigned n)
{
    /* The frames that may be sent, in order, packed at the front of pkts (the ring owns the
     * array's contents now); the others are refused here. */
    unsigned ok = 0;
    for (unsigned k = 0; k < n; k++) {
        struct pkb *p = pkts[k];
        if (iring_tx_acceptable(t, p)) {
            pkts[ok++] = p;
        } else {
            pkb_free(p, t->core);
        }
    }
    iring_tx_reclaim(t);
    bool multi;
    unsigned placed = iring_tx_descs_for(pkts, ok, iring_tx_room(t), &multi);
    if (multi) {
        iring_tx_place_frames(t, pkts, placed);
    } else {
        iring_tx_place_all(t, pkts, placed, IRING_TX_MARKED); /* one descriptor each */
    }
    if (placed < ok) {
        iring_tx_refuse_excess(t, pkts, placed, ok);
    }
    return placed;
}

unsigned iring_tx_burst_forward(struct iring_tx *t, struct pkb **pkts, unsigned n)
{
    iring_tx_reclaim(t);
    unsigned room = iring_tx_room(t);
    unsigned placed = n < room ? n : room;
    iring_tx_place_all(t, pkts, placed, IRING_TX_FORWARDED);
    if (placed < n) {
        iring_tx_refuse_excess(t, pkts, placed, n);
    }
    return placed;
}

unsigned iring_tx_burst_forward_tagged(struct iring_tx *t, struct pkb **pkts, unsigned n,
                                       uint16_t tci)
{
    unsigned first = 0;
    if (n != 0 && t->ctx1_tag != tci) {
        /* iring_tx_place_tagged writes the context and remembers it (or frees the frame) */
        first = iring_tx_burst(t, pkts, 1);
        if (first == 0) {
            iring_tx_refuse_excess(t, pkts, 1, n);
            return 0;
        }
    } else {
        iring_tx_reclaim(t); /* (iring_tx_burst has) */
    }
    unsigned room = iring_tx_room(t), left = n - first;
    unsigned placed = left < room ? left : room;
    iring_tx_place_all(t, pkts + first, placed, IRING_TX_TAGGED);
    t->stats.vlan_inserted += placed;
    if (placed < left) {
        iring_tx_refuse_excess(t, pkts + first, placed, left);
    }
    return first + placed;
}

/* iring_tx_free_run: push sw[0..n) onto a free stack. */
static __attribute__((noinline)) void iring_tx_free_run(struct pkb **sw, struct pkb **stack,
                                                        unsigned n)
{
    struct pkb **const end = sw + (n & ~3U);
    for (; sw != end; sw += 4, stack += 4) {
        stack[0] = sw[0];
        stack[1] = sw[1];
        stack[2] = sw[2];
        stack[3] = sw[3];
    }
    for (unsigned k = 0; k < (n & 3U); k++) {
        stack[k] = sw[k];
    }
}

/*
 * iring_tx_complete: descriptors from next_to_clean up to and including `last` (which had RS,
 * its mark kept) are done: count them from the marks and push their buffers back onto the
 * pool's free stack in one go (every buffer on this ring is the pool's: the bursts refuse
 * others).
 */
static void iring_tx_complete(struct iring_tx *t, uint16_t last)
{
    struct pkb_pool *pool = t->pool;
    uint16_t i = t->next_to_clean;
    unsigned n = iring_tx_from_ntc(t, last) + 1U;
    const struct iring_tx_mark *m = &t->marks[last];
    unsigned frames = m->frames - t->done.frames;

    if (frames != n) {
        /* Multi-descriptor frames among them: their further slots hold no buffer. */
        for (unsigned k = 0; k < n; k++, i = (i + 1) & t->mask) {
            if (t->sw[i] != NULL) {
                pkb_free(t->sw[i], t->core);
            }
        }
    } else if (pool->nfree + n > pool->size) {
        /* More buffers than the pool has room for: one was freed twice somewhere. pkb_free
         * counts it (double_free) rather than overrunning the stack. */
        for (unsigned k = 0; k < n; k++, i = (i + 1) & t->mask) {
            pkb_free(t->sw[i], t->core);
        }
    } else {
        /* At most two stretches: up to the ring's end, then from its start. */
        unsigned first = n < (unsigned)t->size - i ? n : (unsigned)t->size - i;
        struct pkb **stack = &pool->free[pool->nfree];
        iring_tx_free_run(&t->sw[i], stack, first);
        if (first < n) {
            iring_tx_free_run(t->sw, stack + first, n - first);
        }
        pool->nfree += n;
    }
    t->stats.packets += frames + (m->extra - t->done.extra);
    t->stats.bytes += m->bytes - t->done.bytes;
    t->stats.forwarded += m->forwarded - t->done.forwarded; /* forwarded = sent, not queued */
    t->done = *m;
    t->next_to_clean = (last + 1) & t->mask;
    t->report = iring_tx_first_report(t);
    t->ctx_unseen = 0; /* the NIC went past every descriptor before these, a context too */
}

unsigned iring_tx_reclaim_reported(struct iring_tx *t)
{
    unsigned done = 0;

    /* t->report: the first descriptor from next_to_clean on that asks for a write-back. */
    while (t->next_to_clean != t->next_to_use &&
           (t->desc[t->report].wb.status & IDESC_TX_STATUS_DD) != 0) {
        /* DD means the NIC has read every buffer up to here: they may be reused. */
        dma_rmb_after_dd();
        done += t->marks[t->report].frames - t->done.frames;
        iring_tx_complete(t, t->report);
    }
    return done;
}

/* iring_tx_mark_valid: slot i's mark is this lap's (written when the frame now in flight there
 * was placed with RS), not one left from an earlier lap or a hostile DD's slot. */
static bool iring_tx_mark_valid(const struct iring_tx *t, uint16_t i)
{
    return t->marks[i].descs - t->done.descs == iring_tx_from_ntc(t, i) + 1U;
}

void iring_tx_release(struct iring_tx *t)
{
    /* What the NIC reported sent was sent: reclaim waits on one report at a time, but any
     * reported descriptor in flight counts (placing a descriptor clears its DD, so DD there is
     * the NIC's write-back), and it completes every descriptor before it. */
    uint16_t last = t->next_to_use;
    for (uint16_t i = t->next_to_clean; i != t->next_to_use; i = (i + 1) & t->mask) {
        if ((t->desc[i].wb.status & IDESC_TX_STATUS_DD) != 0 && iring_tx_mark_valid(t, i)) {
            last = i;
        }
    }
    if (last != t->next_to_use) {
        dma_rmb_after_dd();
        iring_tx_complete(t, last);
    }
    for (uint16_t i = t->next_to_clean; i != t->next_to_use; i = (i + 1) & t->mask) {
        if (t->sw[i] != NULL) { /* not the second slot of a two-descriptor frame */
            pkb_free(t->sw[i], t->core);
        }
    }
    t->stats.flushed += t->placed.frames - t->done.frames;
    t->stats.flushed_forwarded += t->placed.forwarded - t->done.forwarded;
    t->done = t->placed;
    memset(t->sw, 0, t->size * sizeof(t->sw[0]));
    memset(t->marks, 0, t->size * sizeof(t->marks[0]));
    for (uint16_t i = 0; i < t->size; i++) {
        t->desc[i].read.buffer_addr = 0;
        t->desc[i].read.cmd_type_len = 0;
        t->desc[i].read.olinfo_status = 0;
    }
    t->next_to_clean = 0;
    t->next_to_use = 0;
    t->report = 0;
    t->csum_ctx = false; /* the chip reset (or will) and forgot it */
    t->ctx1_tag = IRING_CTX1_OTHER;
    t->ctx_unseen = 0;
}

int iring_tx_load_csum_context(struct iring_tx *t)
{
    if (t->next_to_use != 0 || t->next_to_clean != 0) {
        return WS_ERR_INVAL;
    }
    iring_tx_context(t, 0, true, 0, IDESC_TX_IDX(0));
    t->sw[0] = NULL;
    t->next_to_clean = 1;
    t->next_to_use = 1;
    t->report = 1;
    t->csum_ctx = true;
    t->ctx_unseen = 1;
    dma_wmb_before_tail();
    mmio_write32(t->tail_reg, 1);
    t->stats.tail_writes++;
    return WS_OK;
}
