/*
 * tests/fuzz/fuzz_rx_ring.c: libFuzzer harness for the RX side of drivers/nic/intel_ring.c
 * (with kernel/pkb.c), fed descriptor write-backs by a NIC that follows the input: sometimes as a
 * NIC should (in order, into posted slots only, frames of one or more descriptors), sometimes
 * hostile (any slot, posted or not, any status/error bits, any length, DD where nothing was
 * posted, non-EOP chains that never end).
 *
 * Input: byte 0 sets up the ring:
 *   bits 0-1  ring size 8 << n (8 .. 64)
 *   bits 2-4  pool size: size - 1, size, size / 2, 2 * size, 1, 0, 3, size + 5
 *   bit 5     82599 frame-error mask (else the 82576 one)
 * then operations, 1 opcode byte each (op % 8):
 *   0, 1  NIC receives a frame into the next posted slots: flags byte (bits 0-1: descriptors - 1,
 *         bit 2: error byte follows, bit 3: RSS hash follows), length (2 bytes, any value) of
 *         the last descriptor; earlier ones carry PKB_DATA_BYTES
 *   2     iring_rx_burst with max = byte % 65
 *   3     the application frees byte % 16 of the frames it holds (oldest first; all if 0)
 *   4     hostile write-back into slot byte % size: status/error (4), length (2), info (4),
 *         RSS hash (4), whatever the slot's state
 *   5     hostile: DD + EOP with length (2 bytes) on every slot that is not posted
 *   6     iring_rx_fill and iring_rx_pending
 *   7     queue stopped and restarted: iring_rx_release, then iring_rx_fill
 * At the end the application frees everything and the ring is released.
 *
 * Invariants, after every call into the ring:
 *   - conservation: every buffer is in exactly one place, pool + ring + application == size;
 *     no double or foreign free; after the final release the pool is full again;
 *   - only posted descriptors are consumed: next_to_clean moves at most as far as the posted
 *     slots went, so a DD written into a slot the ring has not posted is never taken;
 *   - the harvest equals a reference: slots taken in order, while DD is set, frames judged by
 *     EOP, the error mask and 0 < length <= PKB_DATA_BYTES (non-EOP chains dropped whole);
 *     each frame handed out is the buffer of its slot with the written-back length, status and
 *     RSS hash, port and queue set; at most max of them;
 *   - every posted slot holds a buffer, and one the NIC has not written back yet is armed: its
 *     buffer's address and a cleared DD (no stale write-back survives re-posting);
 *   - the tail register equals next_to_use, is below size, is written at most once per call;
 *     a refill stops only at a full ring (size - 1 posted) or an empty pool;
 *   - iring_rx_pending says exactly whether DD is set on the next posted slot.
 */
#include <stdbool.h>
#include <string.h>

#include "drivers/nic/intel_ring.h"
#include "pkb.h"
#include "tests/fuzz/fuzz.h"

#define FX_MAX_DESCS 64
#define FX_MAX_POOL (2 * FX_MAX_DESCS)
#define FX_MAX_OPS 2048
#define FX_CORE 3
#define FX_PORT 1

/* Buffer memory: only its addresses are used (this NIC writes no frame data), so one block
 * serves every run; nothing in it is ever written. */
static uint8_t fx_data[FX_MAX_POOL * PKB_DATA_BYTES] __attribute__((aligned(PKB_DATA_BYTES)));

struct fx_ctx {
    struct iring_rx ring;
    struct pkb_pool pool;
    struct pkb *meta;
    struct pkb **stack;
    union idesc_rx *desc;
    struct pkb **sw;
    uint32_t tail; /* the RDT "register" */
    uint16_t size;
    uint32_t npool;
    bool written[FX_MAX_DESCS]; /* the NIC wrote this slot since the ring last armed it */
    struct pkb *app[FX_MAX_POOL]; /* frames the application holds, oldest first */
    unsigned napp;
    bool discarding; /* the reference's: inside a non-EOP chain */
};

static uint16_t fx_posted(const struct fx_ctx *c)
{
    return (uint16_t)((c->ring.next_to_use - c->ring.next_to_clean) & (c->size - 1));
}

static bool fx_in_posted(const struct fx_ctx *c, uint16_t i)
{
    return (uint16_t)((i - c->ring.next_to_clean) & (c->size - 1)) < fx_posted(c);
}

/* Every buffer in exactly one place; the places add up to the pool. */
static void fx_check_conservation(const struct fx_ctx *c)
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
    /* The ring holds the posted slots' buffers; the other slots are stale by its contract. */
    for (uint16_t k = 0, i = c->ring.next_to_clean; k < fx_posted(c);
         k++, i = (uint16_t)((i + 1) & (c->size - 1))) {
        struct pkb *p = c->sw[i];
        FUZZ_CHECK(p >= c->meta && p < c->meta + c->npool);
        seen[p - c->meta]++;
        held++;
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

/* The ring's state after any call: indices, tail, posted slots armed, refill complete. */
static void fx_check_ring(struct fx_ctx *c, uint16_t old_ntu, uint64_t old_tail_writes,
                          bool filled)
{
    struct iring_rx *r = &c->ring;
    FUZZ_CHECK(r->next_to_clean < c->size && r->next_to_use < c->size);
    FUZZ_CHECK(fx_posted(c) <= c->size - 1);
    FUZZ_CHECK(c->tail == r->next_to_use);
    FUZZ_CHECK(r->stats.tail_writes - old_tail_writes <= 1);
    /* A call posts at most size - 1 slots, so the tail is written exactly when it moves. */
    FUZZ_CHECK((r->stats.tail_writes != old_tail_writes) == (r->next_to_use != old_ntu));

    /* Slots posted by this call are armed afresh: whatever the NIC left there is gone. */
    for (uint16_t i = old_ntu; i != r->next_to_use; i = (uint16_t)((i + 1) & (c->size - 1))) {
        c->written[i] = false;
    }
    for (uint16_t k = 0, i = r->next_to_clean; k < fx_posted(c);
         k++, i = (uint16_t)((i + 1) & (c->size - 1))) {
        FUZZ_CHECK(c->sw[i] != NULL);
        if (!c->written[i]) {
            FUZZ_CHECK(c->desc[i].read.pkt_addr == (uint64_t)(uintptr_t)c->sw[i]->data);
            FUZZ_CHECK(c->desc[i].read.hdr_addr == 0);
        }
    }
    /* A refill takes buffers until the ring is full or the pool is empty; a burst refills
     * once refill_min slots are free. */
    unsigned unposted = c->size - 1U - fx_posted(c);
    FUZZ_CHECK(unposted == 0 || c->pool.nfree == 0 || (!filled && unposted < c->ring.refill_min));
    fx_check_conservation(c);
}

static void fx_nic_write(struct fx_ctx *c, uint16_t i, uint32_t staterr, uint16_t len,
                         uint32_t info, uint32_t rss)
{
    c->desc[i].wb.info = info;
    c->desc[i].wb.rss_hash = rss;
    c->desc[i].wb.length = len;
    c->desc[i].wb.vlan = 0;
    c->desc[i].wb.status_error = staterr;
    c->written[i] = true;
}

/* The well-behaved NIC: the next `need` posted slots it has not written, in order. */
static void fx_nic_frame(struct fx_ctx *c, struct fuzz_in *in)
{
    uint8_t flags = fuzz_u8(in);
    unsigned need = 1 + (flags & 3);
    uint32_t err = (flags & 4) ? (uint32_t)fuzz_u8(in) << 24 : 0;
    uint32_t info = 0, rss = 0;
    if (flags & 8) {
        info = 1;
        rss = fuzz_u32(in);
    }
    uint16_t len = fuzz_u16(in);

    uint16_t first = c->ring.next_to_clean;
    uint16_t k = 0;
    while (k < fx_posted(c) && c->written[first]) {
        first = (uint16_t)((first + 1) & (c->size - 1));
        k++;
    }
    if (fx_posted(c) - k < need) {
        return; /* no room: the NIC drops it (its missed-packets count) */
    }
    for (unsigned d = 0; d < need; d++) {
        uint16_t i = (uint16_t)((first + d) & (c->size - 1));
        bool last = d + 1 == need;
        fx_nic_write(c, i, IDESC_RX_STATUS_DD | (last ? IDESC_RX_STATUS_EOP | err : 0),
                     last ? len : PKB_DATA_BYTES, info, rss);
    }
}

/* iring_rx_burst, against the reference harvest. */
static void fx_burst(struct fx_ctx *c, unsigned max)
{
    struct iring_rx *r = &c->ring;
    uint16_t ntc0 = r->next_to_clean, ntu0 = r->next_to_use, posted0 = fx_posted(c);
    uint64_t writes0 = r->stats.tail_writes, packets0 = r->stats.packets;
    struct pkb *sw0[FX_MAX_DESCS];
    union idesc_rx d0[FX_MAX_DESCS];
    memcpy(sw0, c->sw, c->size * sizeof(sw0[0]));
    memcpy(d0, c->desc, c->size * sizeof(d0[0]));

    struct pkb *out[64 + 1];
    out[max] = (struct pkb *)0x1; /* one past max: never written */
    unsigned n = iring_rx_burst(r, out, max);

    FUZZ_CHECK(n <= max && out[max] == (struct pkb *)0x1);
    FUZZ_CHECK(r->stats.packets - packets0 == n);
    uint16_t consumed = (uint16_t)((r->next_to_clean - ntc0) & (c->size - 1));
    FUZZ_CHECK(consumed <= posted0); /* never a slot the ring had not posted */

    /* The reference harvest over the consumed slots. */
    unsigned k = 0;
    for (uint16_t j = 0; j < consumed; j++) {
        uint16_t i = (uint16_t)((ntc0 + j) & (c->size - 1));
        uint32_t st = d0[i].wb.status_error;
        uint16_t len = d0[i].wb.length;
        FUZZ_CHECK(st & IDESC_RX_STATUS_DD);
        bool ok = false;
        if (c->discarding) {
            c->discarding = !(st & IDESC_RX_STATUS_EOP);
        } else if (!(st & IDESC_RX_STATUS_EOP)) {
            c->discarding = true;
        } else {
            uint32_t err = r->good_mask & ~(IDESC_RX_STATUS_DD | IDESC_RX_STATUS_EOP);
            ok = (st & err) == 0 && len != 0 && len <= PKB_DATA_BYTES;
        }
        if (!ok) {
            continue;
        }
        FUZZ_CHECK(k < n);
        struct pkb *p = out[k++];
        FUZZ_CHECK(p == sw0[i]);
        FUZZ_CHECK(p->len == len && p->len > 0 && p->len <= PKB_DATA_BYTES);
        FUZZ_CHECK(p->port == FX_PORT && p->queue == FX_CORE && p->forwarded == 0);
        FUZZ_CHECK(p->rx_status == st);
        FUZZ_CHECK(p->owner == FX_CORE);
    }
    FUZZ_CHECK(k == n);
    /* It stopped for a reason: max frames, the end of the posted slots, or no DD. */
    if (n < max && consumed < posted0) {
        uint16_t i = (uint16_t)((ntc0 + consumed) & (c->size - 1));
        FUZZ_CHECK((d0[i].wb.status_error & IDESC_RX_STATUS_DD) == 0);
    }
    FUZZ_CHECK(c->discarding == r->discarding);

    for (unsigned j = 0; j < n; j++) {
        c->app[c->napp++] = out[j];
    }
    fx_check_ring(c, ntu0, writes0, false);
}

static void fx_app_free(struct fx_ctx *c, unsigned count)
{
    if (count == 0 || count > c->napp) {
        count = c->napp;
    }
    for (unsigned i = 0; i < count; i++) {
        pkb_free(c->app[i], FX_CORE);
    }
    memmove(c->app, c->app + count, (c->napp - count) * sizeof(c->app[0]));
    c->napp -= count;
    fx_check_conservation(c);
}

static void fx_fill_and_pending(struct fx_ctx *c)
{
    struct iring_rx *r = &c->ring;
    uint16_t ntu0 = r->next_to_use;
    uint64_t writes0 = r->stats.tail_writes;
    iring_rx_fill(r);
    fx_check_ring(c, ntu0, writes0, true);

    bool want = r->next_to_clean != r->next_to_use &&
                (c->desc[r->next_to_clean].wb.status_error & IDESC_RX_STATUS_DD) != 0;
    FUZZ_CHECK(iring_rx_pending(r) == want);
}

static void fx_restart(struct fx_ctx *c)
{
    iring_rx_release(&c->ring);
    FUZZ_CHECK(c->ring.next_to_clean == 0 && c->ring.next_to_use == 0);
    FUZZ_CHECK(c->pool.nfree + c->napp == c->npool);
    memset(c->written, 0, sizeof(c->written));
    c->discarding = false;
    c->tail = 0; /* the driver re-enables the queue with RDH = RDT = 0 (igb.c, ixgbe.c) */
    fx_check_conservation(c);
    fx_fill_and_pending(c);
}

static void fx_run(struct fx_ctx *c, struct fuzz_in *in)
{
    for (unsigned ops = 0; in->n != 0 && ops < FX_MAX_OPS; ops++) {
        uint8_t op = fuzz_u8(in);
        switch (op % 8) {
        case 0:
        case 1:
            fx_nic_frame(c, in);
            break;
        case 2:
            fx_burst(c, fuzz_u8(in) % 65);
            break;
        case 3:
            fx_app_free(c, fuzz_u8(in) % 16);
            break;
        case 4: {
            uint16_t i = fuzz_u8(in) % c->size;
            uint32_t st = fuzz_u32(in);
            uint16_t len = fuzz_u16(in);
            uint32_t info = fuzz_u32(in);
            fx_nic_write(c, i, st, len, info, fuzz_u32(in));
            break;
        }
        case 5: {
            uint16_t len = fuzz_u16(in);
            for (uint16_t i = 0; i < c->size; i++) {
                if (!fx_in_posted(c, i)) {
                    fx_nic_write(c, i, IDESC_RX_STATUS_DD | IDESC_RX_STATUS_EOP, len, 0, 0);
                }
            }
            break;
        }
        case 6:
            fx_fill_and_pending(c);
            break;
        default:
            fx_restart(c);
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
    const uint32_t pools[8] = { c->size - 1u, c->size,     c->size / 2u, 2u * c->size,
                                1,            0,           3,            c->size + 5u };
    c->npool = pools[(setup >> 2) & 7];
    c->meta = calloc(c->npool + 1, sizeof(*c->meta));
    c->stack = malloc((c->npool + 1) * sizeof(*c->stack));
    c->desc = aligned_alloc(IRING_ALIGN_BYTES, IRING_DESC_MEM_BYTES(c->size));
    c->sw = malloc(c->size * sizeof(*c->sw));
    if (c->meta == NULL || c->stack == NULL || c->desc == NULL || c->sw == NULL) {
        abort();
    }
    memset(c->desc, 0xff, IRING_DESC_MEM_BYTES(c->size)); /* init must clear old DD bits */

    pkb_pool_init(&c->pool, FX_CORE, c->meta, c->stack, fx_data, c->npool);
    FUZZ_CHECK(iring_rx_init(&c->ring, c->desc, c->sw, c->size, (uintptr_t)&c->tail, &c->pool,
                             FX_CORE, FX_PORT) == 0);
    if (setup & 0x20) {
        iring_rx_set_err_mask(&c->ring, IDESC_RX_ERR_FRAME_82599);
    }
    FUZZ_CHECK(c->tail == 0 && c->ring.stats.tail_writes == 0); /* init writes no register */
    for (uint16_t i = 0; i < c->size; i++) {
        FUZZ_CHECK((c->desc[i].wb.status_error & IDESC_RX_STATUS_DD) == 0);
    }
    fx_fill_and_pending(c);

    fx_run(c, &in);

    /* Traffic stops: the application lets go, the queue is stopped; the pool is full again. */
    fx_app_free(c, 0);
    iring_rx_release(&c->ring);
    fx_check_conservation(c);
    FUZZ_CHECK(c->pool.nfree == c->npool);

    free(c->sw);
    free(c->desc);
    free(c->stack);
    free(c->meta);
    free(c);
    return 0;
}
