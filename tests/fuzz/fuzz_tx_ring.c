/*
 * tests/fuzz/fuzz_tx_ring.c: libFuzzer harness for the TX side of drivers/nic/intel_ring.c (with
 * kernel/pkb.c): bursts of frames of any length and forwarded mark, reclaims, idle loops and port resets,
 * against a NIC that follows the input: sometimes as a NIC should (fetches descriptors in order
 * from its head up to the tail register, writes DD back in order into descriptors with RS),
 * sometimes hostile (DD in slots never placed or not reached yet, any status bits, the head
 * running past the tail, completions out of order, the same write-back twice).
 *
 * Built with -DWS_HOST_MMIO (run.sh): every register access of the ring comes here, so the
 * tail writes are counted where they happen, not taken from the ring's own statistics.
 *
 * Input: byte 0 sets up the ring:
 *   bits 0-1  ring size 8 << n (8 .. 64)
 *   bits 2-4  pool size: size - 1, size, size / 2, 2 * size, 1, 3, size + 5, 4 * size
 * then operations, 1 opcode byte each (op % 16):
 *   0-1   iring_tx_burst of byte % 72 frames (more than the ring holds, at times) allocated from
 *         the pool (fewer if it runs dry), each described by a byte: bits 0-2 length 60, 1514,
 *         PKB_DATA_BYTES, 0, PKB_DATA_BYTES + 1, 65535, 1, or 2 bytes that follow; bit 3
 *         forwarded = 1; bit 4: a byte follows and becomes forwarded (garbage: any value)
 *   2     iring_tx_burst_forward of byte % 72 frames as an RX burst hands them over (lengths
 *         as above but always in range, forwarded 0)
 *   3-5   the NIC, in order: fetch byte % 17 descriptors from its head towards the tail, then
 *         write DD back into byte % 17 fetched ones (those with RS)
 *   6     iring_tx_reclaim
 *   7     the idle loop: iring_tx_in_flight, then iring_tx_burst of nothing
 *   8     the application takes byte % 16 buffers from the pool, or (bit 7) frees all it holds
 *   9     port reset: iring_tx_release, the NIC back to head = tail = 0
 *   10    hostile: any status word (4 bytes) into slot byte % size
 *   11    hostile: DD into every slot not in flight (never placed, or reclaimed already)
 *   12    hostile: the NIC runs to the tail and then byte % 17 slots past it, DD on each
 *   13    hostile: DD into a slot the NIC has not reached yet (head + byte % size)
 *   14    hostile: DD written back again into a slot the NIC wrote back before (wb - 1 - byte)
 *   15    the NIC, in order, writes back byte % 17 descriptors with garbage: every status bit
 *         but DD from 4 bytes, and the 12 other bytes (meaningless after write-back)
 * At the end the application frees what it holds and the port is reset: the pool is full.
 *
 * What the ring layer guarantees, and what is checked (after every call into the ring):
 *   - conservation: every buffer is in exactly one place, pool + ring + application == pool
 *     size; no double or foreign free; after the final release the pool is full again;
 *   - RS (a write-back request) is on every placed descriptor whose index has the ring's
 *     rs_mask bits all set and on the last of every burst, on no other;
 *   - reclaim (alone, at the start of a burst) looks only at the first descriptor with RS from
 *     next_to_clean on (the rs_mask-aligned one, or the last placed if that comes first): while
 *     it has DD, every slot up to it is taken; none never placed, none past it. Each is counted
 *     in packets, its length in bytes, its forwarded mark in forwarded, and its buffer is back
 *     in the pool. The ring trusts DD: it cannot see the NIC's head, and a real NIC writes DD
 *     only once it has read the descriptors and buffers up to there, in order. A hostile DD on
 *     a slot the NIC has not reached is taken as a completion like any other (the harness
 *     counts these "early" reclaims); the buffer is still freed exactly once and counted once;
 *   - while the NIC has behaved since the last reset: what is reclaimed is exactly what the NIC
 *     wrote back (never a slot before its write-back), the NIC's write-back pointer and head lie
 *     between next_to_clean and next_to_use, and every descriptor it fetches is the one placed
 *     there (buffer, length, command with RS, PAYLEN) and its buffer still holds that frame, so
 *     frames go out once each, in the order placed, from buffers nobody reused;
 *   - a burst drops each frame of length 0 or above PKB_DATA_BYTES (bad_len), places the others
 *     in order while a slot is free (one slot always empty), drops the rest (ring_full), frees
 *     every dropped buffer at once, writes each placed descriptor afresh (no stale DD);
 *   - the tail register is written only by bursts that place something, exactly once then,
 *     and always equals next_to_use; reclaim and release never write it;
 *   - iring_tx_in_flight equals the slots holding a frame; the statistics equal the reference's,
 *     and add up: frames submitted == packets + ring_full + bad_len + flushed + in flight;
 *   - release: every slot up to the last one in flight with DD and RS is taken as above (any
 *     reported descriptor counts, not only the next; a DD where no RS was set is ignored), then every other frame in flight counted in
 *     flushed (and flushed_forwarded), every descriptor zeroed, indices 0, nothing held.
 */
#include <stdbool.h>
#include <string.h>

#include "drivers/nic/intel_ring.h"
#include "mmio.h"
#include "pkb.h"
#include "tests/fuzz/fuzz.h"

#ifndef WS_HOST_MMIO
#error "fuzz_tx_ring counts register writes itself: build it with -DWS_HOST_MMIO (run.sh does)"
#endif

#define FX_MAX_DESCS 64
#define FX_MAX_POOL (4 * FX_MAX_DESCS)
#define FX_MAX_BURST 72
#define FX_MAX_OPS 2048
#define FX_CORE 2
#define FX_PORT 1

/* Buffer memory: the harness writes each frame's sequence number into its first 4 bytes, and
 * the NIC checks it when it fetches the descriptor (a reused buffer would show another). */
static uint8_t fx_data[FX_MAX_POOL * PKB_DATA_BYTES] __attribute__((aligned(PKB_DATA_BYTES)));

/* What the harness placed in one slot, as the reference sees it. */
struct fx_slot {
    struct pkb *p; /* NULL: nothing in flight here */
    uint16_t len;
    uint32_t forwarded; /* as the application set it */
    uint32_t seq;
    bool done; /* the NIC processed this slot in order since the frame was placed */
    bool rs;   /* placed with RS (aligned, or a burst's last): its write-back counts */
};

struct fx_ctx {
    struct iring_tx ring;
    struct pkb_pool pool;
    struct pkb *meta;
    struct pkb **stack;
    union idesc_tx *desc;
    struct pkb **sw;
    struct iring_tx_mark *marks;
    uint16_t size;
    uint32_t npool;

    /* the TDT register and the NIC behind it */
    uint32_t tail;
    uint64_t tail_writes; /* counted in host_mmio_write */
    uint16_t head;        /* next descriptor the NIC fetches */
    uint16_t wb;          /* next descriptor the NIC writes back (wb <= head, in order) */
    bool hostile;         /* the NIC misbehaved since the last reset: in-order checks off */

    /* the reference */
    struct fx_slot slot[FX_MAX_DESCS];
    struct iring_tx_stats want;
    uint64_t submitted;
    uint32_t seq;
    uint64_t early; /* reclaims of slots the NIC never wrote back (hostile DD) */

    struct pkb *app[FX_MAX_POOL]; /* buffers the application holds */
    unsigned napp;
};

/* The ring under test; host_mmio_write needs it. Set per input, so no state between inputs. */
static struct fx_ctx *fx_cur;

uint64_t host_mmio_read(uintptr_t addr, unsigned bytes)
{
    (void)addr;
    (void)bytes;
    FUZZ_CHECK(!"the TX ring reads no register");
    return 0;
}

void host_mmio_write(uintptr_t addr, uint64_t v, unsigned bytes)
{
    FUZZ_CHECK(fx_cur != NULL && addr == (uintptr_t)&fx_cur->tail && bytes == 4);
    fx_cur->tail = (uint32_t)v;
    fx_cur->tail_writes++;
}

static uint16_t fx_wrap(const struct fx_ctx *c, unsigned i)
{
    return (uint16_t)(i & (c->size - 1u));
}

/* Distance from next_to_clean to slot i, going forward. */
static uint16_t fx_from_ntc(const struct fx_ctx *c, uint16_t i)
{
    return fx_wrap(c, (unsigned)i - c->ring.next_to_clean);
}

static bool fx_in_flight(const struct fx_ctx *c, uint16_t i)
{
    return fx_from_ntc(c, i) < fx_from_ntc(c, c->ring.next_to_use);
}

/* Every buffer in exactly one place; the places add up to the pool. */
FUZZ_UNTRACED static void fx_check_conservation(const struct fx_ctx *c)
{
    uint8_t seen[FX_MAX_POOL];
    memset(seen, 0, sizeof(seen));
    unsigned held = 0;

    FUZZ_CHECK(c->pool.nfree <= c->npool);
    for (uint32_t i = 0; i < c->pool.nfree; i++) {
        struct pkb *p = c->pool.free[i];
        FUZZ_CHECK(p >= c->meta && p < c->meta + c->npool);
        seen[p - c->meta]++;
    }
    for (uint16_t i = 0; i < c->size; i++) {
        /* the ring holds exactly what the reference placed, in the slots in flight (the others
         * are stale by its contract) */
        struct pkb *p = fx_in_flight(c, i) ? c->sw[i] : NULL;
        FUZZ_CHECK(p == c->slot[i].p);
        if (p != NULL) {
            FUZZ_CHECK(p >= c->meta && p < c->meta + c->npool);
            seen[p - c->meta]++;
            held++;
        }
    }
    for (unsigned i = 0; i < c->napp; i++) {
        seen[c->app[i] - c->meta]++;
    }
    for (uint32_t i = 0; i < c->npool; i++) {
        FUZZ_CHECK(seen[i] == 1);
    }
    FUZZ_CHECK(c->pool.nfree + held + c->napp == c->npool);
    FUZZ_CHECK(c->pool.double_free == 0 && c->pool.foreign_free == 0);
}

/* The ring's state after any call: indices, tail, in flight, statistics, NIC order. */
FUZZ_UNTRACED static void fx_check_ring(const struct fx_ctx *c)
{
    const struct iring_tx *r = &c->ring;
    const struct iring_tx_stats *s = &r->stats;
    FUZZ_CHECK(r->next_to_clean < c->size && r->next_to_use < c->size);
    FUZZ_CHECK(c->tail == r->next_to_use);

    unsigned flight = 0;
    for (uint16_t i = 0; i < c->size; i++) {
        FUZZ_CHECK((c->slot[i].p != NULL) == fx_in_flight(c, i));
        flight += c->slot[i].p != NULL;
    }
    FUZZ_CHECK(iring_tx_in_flight(r) == flight);

    FUZZ_CHECK(s->packets == c->want.packets && s->bytes == c->want.bytes);
    FUZZ_CHECK(s->ring_full == c->want.ring_full && s->bad_len == c->want.bad_len);
    FUZZ_CHECK(s->forwarded == c->want.forwarded && s->flushed == c->want.flushed);
    FUZZ_CHECK(s->flushed_forwarded == c->want.flushed_forwarded);
    FUZZ_CHECK(s->tail_writes == c->tail_writes && s->tail_writes == c->want.tail_writes);
    FUZZ_CHECK(s->forwarded <= s->packets && s->flushed_forwarded <= s->flushed);
    FUZZ_CHECK(c->submitted == s->packets + s->ring_full + s->bad_len + s->flushed + flight);

    /* A NIC that behaved: next_to_clean <= wb <= head <= next_to_use, going forward. */
    if (!c->hostile) {
        FUZZ_CHECK(fx_from_ntc(c, c->wb) <= fx_from_ntc(c, c->head));
        FUZZ_CHECK(fx_from_ntc(c, c->head) <= fx_from_ntc(c, r->next_to_use));
    }
    fx_check_conservation(c);
}

/* fx_first_report: the first slot with RS from next_to_clean on (meaningful while in flight). */
FUZZ_UNTRACED static uint16_t fx_first_report(const struct fx_ctx *c)
{
    uint16_t ntc = c->ring.next_to_clean, group_end = ntc | c->ring.rs_mask;
    uint16_t last = fx_wrap(c, c->ring.next_to_use - 1u);
    return fx_from_ntc(c, group_end) < fx_from_ntc(c, last) ? group_end : last;
}

/* fx_take_upto: the reference completes the slots from next_to_clean up to `end`. */
FUZZ_UNTRACED static unsigned fx_take_upto(struct fx_ctx *c, uint16_t *ntc, uint16_t end)
{
    unsigned k = 0;
    for (; *ntc != end; *ntc = fx_wrap(c, *ntc + 1u), k++) {
        struct fx_slot *sl = &c->slot[*ntc];
        FUZZ_CHECK(sl->p != NULL);
        c->want.packets++;
        c->want.bytes += sl->len;
        c->want.forwarded += sl->forwarded != 0;
        FUZZ_CHECK(sl->done || c->hostile); /* before the NIC got there only if it lied */
        c->early += !sl->done;
        memset(sl, 0, sizeof(*sl));
    }
    return k;
}

/*
 * fx_expect_reclaim: what the ring's reclaim is about to take, applied to the reference: while
 * the first slot with RS from next_to_clean on has DD, every slot up to it. Returns how many.
 */
FUZZ_UNTRACED static unsigned fx_expect_reclaim(struct fx_ctx *c)
{
    unsigned k = 0;
    uint16_t ntc = c->ring.next_to_clean, ntu = c->ring.next_to_use;
    uint16_t ntc_real = c->ring.next_to_clean;

    while (ntc != ntu) {
        c->ring.next_to_clean = ntc; /* fx_first_report reads it; restored below */
        uint16_t report = fx_first_report(c);
        if ((c->desc[report].wb.status & IDESC_TX_STATUS_DD) == 0) {
            break;
        }
        k += fx_take_upto(c, &ntc, fx_wrap(c, report + 1u));
    }
    c->ring.next_to_clean = ntc_real;
    /* A NIC that behaved: no reported slot it wrote back is left behind (the next report, if
     * any, lies at or past its write-back pointer). */
    if (!c->hostile && ntc != ntu) {
        uint16_t saved = c->ring.next_to_clean;
        c->ring.next_to_clean = ntc;
        uint16_t report = fx_first_report(c);
        FUZZ_CHECK(fx_from_ntc(c, report) >= fx_from_ntc(c, c->wb));
        c->ring.next_to_clean = saved;
    }
    return k;
}

/* fx_take: a buffer for the application or a frame, or NULL when the pool is empty. */
static struct pkb *fx_take(struct fx_ctx *c)
{
    struct pkb *p = pkb_alloc(&c->pool);
    FUZZ_CHECK(p == NULL || p->owner == FX_CORE);
    return p;
}

/* fx_frame_len: a length class, some of them impossible (0, above PKB_DATA_BYTES). */
static uint16_t fx_frame_len(uint8_t spec, struct fuzz_in *in)
{
    static const uint16_t lens[7] = { 60, 1514, PKB_DATA_BYTES, 0, PKB_DATA_BYTES + 1, 65535, 1 };
    return (spec & 7) < 7 ? lens[spec & 7] : fuzz_u16(in);
}

/* fx_check_placed: each descriptor of a burst written afresh: buffer, length, one frame, no
 * DD left, RS where the ring promises it (rs_mask-aligned, and the burst's last). */
FUZZ_UNTRACED static void fx_check_placed(struct fx_ctx *c, uint16_t ntu0, unsigned placed)
{
    for (unsigned k = 0; k < placed; k++) {
        uint16_t i = fx_wrap(c, ntu0 + k);
        struct fx_slot *sl = &c->slot[i];
        bool rs = (i & c->ring.rs_mask) == c->ring.rs_mask || k == placed - 1;
        sl->rs = rs;
        FUZZ_CHECK(c->desc[i].read.buffer_addr == (uint64_t)(uintptr_t)sl->p->data);
        FUZZ_CHECK(c->desc[i].read.cmd_type_len ==
                   (IDESC_TX_DTYP_DATA | IDESC_TX_CMD_DEXT | IDESC_TX_CMD_EOP |
                    IDESC_TX_CMD_IFCS | (rs ? IDESC_TX_CMD_RS : 0) | IDESC_TX_DTALEN(sl->len)));
        FUZZ_CHECK(c->desc[i].read.olinfo_status == IDESC_TX_PAYLEN(sl->len));
    }
}

/* fx_burst_forward: iring_tx_burst_forward of up to `want` frames as an RX burst hands them
 * over: lengths in range, forwarded 0; each placed is marked forwarded, the rest ring_full. */
static void fx_burst_forward(struct fx_ctx *c, unsigned want, struct fuzz_in *in)
{
    struct pkb *pk[FX_MAX_BURST];
    unsigned n = 0;
    uint16_t lens[FX_MAX_BURST];
    uint32_t seqs[FX_MAX_BURST];

    for (unsigned k = 0; k < want; k++) {
        uint16_t len = fx_frame_len(fuzz_u8(in), in);
        struct pkb *p = fx_take(c);
        if (p == NULL) {
            continue;
        }
        p->len = len == 0 || len > PKB_DATA_BYTES ? 60 : len;
        p->forwarded = 0;
        memcpy(p->data, &c->seq, sizeof(c->seq));
        seqs[n] = c->seq++;
        lens[n] = p->len;
        pk[n++] = p;
    }
    unsigned done = fx_expect_reclaim(c);
    unsigned room = fx_wrap(c, c->ring.next_to_clean + done - c->ring.next_to_use - 1u);
    uint16_t ntu0 = c->ring.next_to_use;
    unsigned placed = n < room ? n : room;
    for (unsigned k = 0; k < placed; k++) {
        c->slot[fx_wrap(c, ntu0 + k)] =
            (struct fx_slot){ .p = pk[k], .len = lens[k], .forwarded = 1, .seq = seqs[k] };
    }
    c->want.ring_full += n - placed;
    c->want.tail_writes += placed != 0;
    c->submitted += n;

    uint64_t writes0 = c->tail_writes;
    FUZZ_CHECK(iring_tx_burst_forward(&c->ring, pk, n) == placed);
    FUZZ_CHECK(c->tail_writes - writes0 == (placed != 0));
    FUZZ_CHECK(c->ring.next_to_use == fx_wrap(c, ntu0 + placed));
    fx_check_placed(c, ntu0, placed);
    fx_check_ring(c);
}

/* fx_burst: iring_tx_burst of up to `want` new frames, against the reference placement. */
static void fx_burst(struct fx_ctx *c, unsigned want, struct fuzz_in *in)
{
    struct pkb *pk[FX_MAX_BURST];
    struct fx_slot frame[FX_MAX_BURST];
    unsigned n = 0;

    for (unsigned k = 0; k < want; k++) {
        uint8_t spec = fuzz_u8(in);
        uint16_t len = fx_frame_len(spec, in);
        uint32_t forwarded = (spec & 8) ? 1 : 0;
        if (spec & 16) {
            forwarded = fuzz_u8(in);
        }
        struct pkb *p = fx_take(c);
        if (p == NULL) {
            continue; /* the application has nothing to send this with */
        }
        p->len = len;
        p->forwarded = forwarded;
        memcpy(p->data, &c->seq, sizeof(c->seq));
        frame[n] = (struct fx_slot){ .p = p, .len = len, .forwarded = forwarded, .seq = c->seq++ };
        pk[n++] = p;
    }

    /* The reference: reclaim, then the free slots (one stays empty), then each frame. */
    unsigned done = fx_expect_reclaim(c);
    unsigned room = fx_wrap(c, c->ring.next_to_clean + done - c->ring.next_to_use - 1u);
    uint16_t ntu0 = c->ring.next_to_use;
    unsigned placed = 0;
    for (unsigned k = 0; k < n; k++) {
        if (frame[k].len == 0 || frame[k].len > PKB_DATA_BYTES) {
            c->want.bad_len++;
        } else if (placed == room) {
            c->want.ring_full++;
        } else {
            c->slot[fx_wrap(c, ntu0 + placed++)] = frame[k];
        }
    }
    c->want.tail_writes += placed != 0;
    c->submitted += n;

    uint64_t writes0 = c->tail_writes;
    FUZZ_CHECK(iring_tx_burst(&c->ring, pk, n) == placed);
    FUZZ_CHECK(c->tail_writes - writes0 == (placed != 0));
    FUZZ_CHECK(c->ring.next_to_use == fx_wrap(c, ntu0 + placed));

    fx_check_placed(c, ntu0, placed);
    fx_check_ring(c);
}

static void fx_reclaim(struct fx_ctx *c)
{
    uint64_t writes0 = c->tail_writes;
    unsigned k = fx_expect_reclaim(c);
    FUZZ_CHECK(iring_tx_reclaim(&c->ring) == k);
    FUZZ_CHECK(c->tail_writes == writes0);
    fx_check_ring(c);
}

/* The idle loop: nothing to send, so the burst only reclaims, and writes no tail. */
static void fx_idle(struct fx_ctx *c)
{
    struct pkb *none[1] = { (struct pkb *)0x1 }; /* never read */
    uint16_t flight = iring_tx_in_flight(&c->ring);
    unsigned k = fx_expect_reclaim(c);
    FUZZ_CHECK(iring_tx_burst(&c->ring, none, 0) == 0);
    FUZZ_CHECK(iring_tx_in_flight(&c->ring) == flight - k);
    fx_check_ring(c);
}

/* The application holds buffers (the sink keeps some), or gives back all it holds. */
static void fx_app(struct fx_ctx *c, uint8_t b)
{
    if (b & 0x80) {
        for (unsigned i = 0; i < c->napp; i++) {
            pkb_free(c->app[i], FX_CORE);
        }
        c->napp = 0;
    } else {
        for (unsigned k = b % 16; k != 0; k--) {
            struct pkb *p = fx_take(c);
            if (p == NULL) {
                break;
            }
            c->app[c->napp++] = p;
        }
    }
    fx_check_conservation(c);
}

/* A port reset: the queue is stopped, the ring released, the NIC starts again from 0. */
static void fx_reset(struct fx_ctx *c)
{
    uint64_t writes0 = c->tail_writes;
    /* Up to the last slot in flight with DD, then the rest flushed. */
    uint16_t ntc = c->ring.next_to_clean, end = ntc;
    for (uint16_t i = ntc; i != c->ring.next_to_use; i = fx_wrap(c, i + 1u)) {
        if ((c->desc[i].wb.status & IDESC_TX_STATUS_DD) && c->slot[i].rs) {
            end = fx_wrap(c, i + 1u);
        }
    }
    fx_take_upto(c, &ntc, end);
    for (uint16_t i = 0; i < c->size; i++) {
        if (c->slot[i].p != NULL) {
            c->want.flushed++;
            c->want.flushed_forwarded += c->slot[i].forwarded != 0;
        }
    }
    memset(c->slot, 0, sizeof(c->slot));

    iring_tx_release(&c->ring);
    FUZZ_CHECK(c->tail_writes == writes0);
    FUZZ_CHECK(c->ring.next_to_clean == 0 && c->ring.next_to_use == 0);
    for (uint16_t i = 0; i < c->size; i++) {
        FUZZ_CHECK(c->desc[i].read.buffer_addr == 0 && c->desc[i].read.cmd_type_len == 0 &&
                   c->desc[i].read.olinfo_status == 0);
    }
    /* The driver reprograms the queue with TDH = TDT = 0 (igb.c, ixgbe.c). */
    c->tail = 0;
    c->head = 0;
    c->wb = 0;
    c->hostile = false;
    fx_check_ring(c);
}

/* The NIC fetches slot `head`: in order, the descriptor and buffer must be the frame placed. */
FUZZ_UNTRACED static void fx_nic_fetch_check(const struct fx_ctx *c, uint16_t i)
{
    const struct fx_slot *sl = &c->slot[i];
    uint32_t seq;

    FUZZ_CHECK(sl->p != NULL && !sl->done);
    FUZZ_CHECK(c->desc[i].read.buffer_addr == (uint64_t)(uintptr_t)sl->p->data);
    uint32_t cmd = c->desc[i].read.cmd_type_len;
    FUZZ_CHECK((cmd & IDESC_TX_CMD_EOP) && (cmd & IDESC_TX_CMD_DEXT));
    FUZZ_CHECK((cmd & IDESC_TX_DTYP_MASK) == IDESC_TX_DTYP_DATA);
    FUZZ_CHECK((cmd & IDESC_TX_DTALEN_MASK) == sl->len && sl->len != 0);
    FUZZ_CHECK(sl->len <= PKB_DATA_BYTES);
    FUZZ_CHECK(c->desc[i].read.olinfo_status == IDESC_TX_PAYLEN(sl->len));
    memcpy(&seq, sl->p->data, sizeof(seq));
    FUZZ_CHECK(seq == sl->seq);
}

/* The NIC is done with slot i: it writes DD back if RS asked for it (plus garbage when
 * `junk`); either way the slot was processed in order. */
static void fx_nic_writeback(struct fx_ctx *c, uint16_t i, const uint8_t *junk)
{
    if ((c->desc[i].read.cmd_type_len & IDESC_TX_CMD_RS) == 0) {
        c->slot[i].done = c->slot[i].p != NULL;
        return;
    }
    uint32_t status = IDESC_TX_STATUS_DD;
    if (junk != NULL) {
        uint32_t bits;
        memcpy(&bits, junk, sizeof(bits));
        status |= bits;
        memcpy((void *)&c->desc[i], junk + 4, 12); /* the reserved 12 bytes */
    }
    c->desc[i].wb.status = status;
    c->slot[i].done = c->slot[i].p != NULL;
}

/* The well-behaved NIC: fetch up to `fetch` descriptors from head towards the tail, then
 * write up to `wb` fetched ones back, in order (the write-back may lag: WTHRESH batching). */
static void fx_nic(struct fx_ctx *c, unsigned fetch, unsigned wb, const uint8_t *junk)
{
    for (; fetch != 0 && c->head != c->tail; fetch--) {
        if (!c->hostile) {
            fx_nic_fetch_check(c, c->head);
        }
        c->head = fx_wrap(c, c->head + 1u);
    }
    for (; wb != 0 && c->wb != c->head; wb--) {
        fx_nic_writeback(c, c->wb, junk);
        c->wb = fx_wrap(c, c->wb + 1u);
    }
}

/*
 * fx_hostile_status: the NIC writes `status` into slot i out of turn. It breaks the in-order
 * model only where the ring could notice: a slot in flight that the NIC has not written back
 * yet, or one written back whose DD it now takes away. Elsewhere the ring must ignore it (a
 * slot not in flight is rewritten whole before it is placed again).
 */
static void fx_hostile_status(struct fx_ctx *c, uint16_t i, uint32_t status)
{
    if (fx_in_flight(c, i) &&
        (fx_from_ntc(c, i) >= fx_from_ntc(c, c->wb) || !(status & IDESC_TX_STATUS_DD))) {
        c->hostile = true;
    }
    c->desc[i].wb.status = status;
}

static void fx_hostile(struct fx_ctx *c, unsigned op, struct fuzz_in *in)
{
    switch (op) {
    case 10: {
        uint16_t i = fx_wrap(c, fuzz_u8(in));
        fx_hostile_status(c, i, fuzz_u32(in));
        break;
    }
    case 11:
        for (uint16_t i = 0; i < c->size; i++) {
            if (!fx_in_flight(c, i)) {
                fx_hostile_status(c, i, IDESC_TX_STATUS_DD);
            }
        }
        break;
    case 12: { /* up to the tail as it should, then on past it: DD whatever the descriptor */
        unsigned past = fuzz_u8(in) % 17;
        fx_nic(c, FX_MAX_DESCS, FX_MAX_DESCS, NULL);
        c->hostile |= past != 0;
        for (; past != 0; past--) {
            c->desc[c->head].wb.status |= IDESC_TX_STATUS_DD;
            c->head = fx_wrap(c, c->head + 1u);
        }
        c->wb = c->head;
        break;
    }
    case 13:
        fx_hostile_status(c, fx_wrap(c, c->head + (unsigned)fuzz_u8(in)), IDESC_TX_STATUS_DD);
        break;
    default:
        fx_hostile_status(c, fx_wrap(c, c->wb - 1u - fuzz_u8(in)), IDESC_TX_STATUS_DD);
        break;
    }
}

static void fx_run(struct fx_ctx *c, struct fuzz_in *in)
{
    for (unsigned ops = 0; in->n != 0 && ops < FX_MAX_OPS; ops++) {
        unsigned op = fuzz_u8(in) % 16;
        switch (op) {
        case 0:
        case 1:
            fx_burst(c, fuzz_u8(in) % (FX_MAX_BURST + 1), in);
            break;
        case 2:
            fx_burst_forward(c, fuzz_u8(in) % (FX_MAX_BURST + 1), in);
            break;
        case 3:
        case 4:
        case 5: {
            unsigned fetch = fuzz_u8(in) % 17;
            fx_nic(c, fetch, fuzz_u8(in) % 17, NULL);
            break;
        }
        case 6:
            fx_reclaim(c);
            break;
        case 7:
            fx_idle(c);
            break;
        case 8:
            fx_app(c, fuzz_u8(in));
            break;
        case 9:
            fx_reset(c);
            break;
        case 15: {
            uint8_t junk[16];
            unsigned n = fuzz_u8(in) % 17;
            for (unsigned k = 0; k < sizeof(junk); k++) {
                junk[k] = fuzz_u8(in);
            }
            junk[0] &= (uint8_t)~IDESC_TX_STATUS_DD; /* host order: DD is bit 0 of byte 0 */
            fx_nic(c, 0, n, junk);
            break;
        }
        default:
            fx_hostile(c, op, in);
            break;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    uint8_t setup = fuzz_u8(&in);
    struct fx_ctx *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        abort();
    }
    c->size = (uint16_t)(8u << (setup & 3));
    const uint32_t pools[8] = { c->size - 1u, c->size, c->size / 2u, 2u * c->size,
                                1,            3,       c->size + 5u, 4u * c->size };
    c->npool = pools[(setup >> 2) & 7];
    c->meta = calloc(c->npool, sizeof(*c->meta));
    c->stack = malloc(c->npool * sizeof(*c->stack));
    c->desc = aligned_alloc(IRING_ALIGN_BYTES, IRING_DESC_MEM_BYTES(c->size));
    c->sw = malloc(c->size * sizeof(*c->sw));
    c->marks = malloc(c->size * sizeof(*c->marks));
    if (c->meta == NULL || c->stack == NULL || c->desc == NULL || c->sw == NULL ||
        c->marks == NULL) {
        abort();
    }
    /* Garbage where init must clear: old DD bits, old buffer pointers. */
    memset(c->desc, 0xff, IRING_DESC_MEM_BYTES(c->size));
    memset(c->sw, 0xa5, c->size * sizeof(*c->sw));
    memset(c->marks, 0xa5, c->size * sizeof(*c->marks));
    fx_cur = c;

    pkb_pool_init(&c->pool, FX_CORE, c->meta, c->stack, fx_data, c->npool);
    FUZZ_CHECK(iring_tx_init(&c->ring, c->desc, c->sw, c->marks, c->size, (uintptr_t)&c->tail, &c->pool,
                             FX_CORE, FX_PORT) == 0);
    FUZZ_CHECK(c->tail_writes == 0 && iring_tx_in_flight(&c->ring) == 0);
    for (uint16_t i = 0; i < c->size; i++) {
        FUZZ_CHECK((c->desc[i].wb.status & IDESC_TX_STATUS_DD) == 0);
    }
    fx_check_ring(c);

    fx_run(c, &in);

    /* Traffic stops: the application lets go, the port is reset; the pool is full again. */
    fx_app(c, 0x80);
    fx_reset(c);
    FUZZ_CHECK(c->pool.nfree == c->npool && iring_tx_in_flight(&c->ring) == 0);

    fx_cur = NULL;
    free(c->sw);
    free(c->marks);
    free(c->desc);
    free(c->stack);
    free(c->meta);
    free(c);
    return 0;
}
