/*
 * tests/unit/test_intel_ring.c: the shared Intel RX/TX rings against the fake NIC: fill and
 * tail rules, frame metadata, wraparound, missed frames, empty pools, error and oversize
 * write-backs, TX placement, completion-time accounting, ring-full drops, a slow NIC and which
 * DD bits TX reclaim trusts. Every test checks buffer conservation (pool + RX ring + TX ring +
 * test == pool size, each buffer in exactly one place) after each step and at the end.
 * Build: gcc -std=gnu11 -g -O1 -Wall -Wextra -Werror -fsanitize=address,undefined
 *        -fno-sanitize-recover=all -I. -Ikernel tests/unit/test_intel_ring.c
 *        drivers/nic/intel_ring.c kernel/pkb.c tests/fakes/fake_intel_nic.c -lcmocka
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drivers/nic/intel_ring.h"
#include "err.h"
#include "tests/fakes/fake_intel_nic.h"

#define TR_CORE 2
#define TR_PORT 1
#define TR_MAX_HELD 512
#define TR_TXQ_LEN 4096

/* One core's view: a pool, an RX and a TX ring on it, the fake NIC behind both. */
struct tr {
    struct pkb_pool pool;
    struct pkb *meta;
    struct pkb **stack;
    uint8_t *data;

    struct iring_rx rx;
    void *rx_desc;
    struct pkb **rx_sw;
    uint32_t rx_tail; /* the RDT "register" */
    struct fake_inic_rx nrx;

    struct iring_tx tx;
    void *tx_desc;
    struct pkb **tx_sw;
    struct iring_tx_mark *tx_marks;
    uint32_t tx_tail; /* the TDT "register" */
    struct fake_inic_tx ntx;

    struct pkb *held[TR_MAX_HELD]; /* buffers the test itself owns */
    unsigned nheld;

    uint32_t txq[TR_TXQ_LEN]; /* seqs placed on the TX ring, in order: what the NIC must send */
    unsigned txq_head, txq_tail;
};

/* ---- frames ----------------------------------------------------------------------------- */

/* tr_frame: a recognisable frame: seq in the first 4 bytes, a seq-dependent pattern after. */
static void tr_frame(uint8_t *buf, uint32_t seq, uint16_t len)
{
    for (uint16_t i = 0; i < len; i++) {
        buf[i] = i < 4 ? (uint8_t)(seq >> (8 * i)) : (uint8_t)(seq * 131 + i);
    }
}

/* tr_frame_check: the frame's seq, after checking every byte of it. */
static uint32_t tr_frame_check(const uint8_t *buf, uint16_t len)
{
    assert_true(len >= 4);
    uint32_t seq = buf[0] | (uint32_t)buf[1] << 8 | (uint32_t)buf[2] << 16 |
                   (uint32_t)buf[3] << 24;

    for (uint16_t i = 4; i < len; i++) {
        assert_int_equal(buf[i], (uint8_t)(seq * 131 + i));
    }
    return seq;
}

static uint16_t tr_len_for(uint32_t seq)
{
    return (uint16_t)(60 + (seq * 97) % (1518 - 60 + 1));
}

/* ---- fixture ---------------------------------------------------------------------------- */

static struct tr *tr_new(uint32_t npool, uint16_t nrx, uint16_t ntx)
{
    struct tr *t = calloc(1, sizeof(*t));

    assert_non_null(t);
    t->meta = calloc(npool, sizeof(*t->meta));
    t->stack = calloc(npool, sizeof(*t->stack));
    t->data = aligned_alloc(PKB_DATA_BYTES, (size_t)npool * PKB_DATA_BYTES);
    t->rx_desc = aligned_alloc(IRING_ALIGN_BYTES, IRING_DESC_MEM_BYTES(nrx));
    t->rx_sw = calloc(nrx, sizeof(*t->rx_sw));
    t->tx_desc = aligned_alloc(IRING_ALIGN_BYTES, IRING_DESC_MEM_BYTES(ntx));
    t->tx_sw = calloc(ntx, sizeof(*t->tx_sw));
    t->tx_marks = calloc(ntx, sizeof(*t->tx_marks));
    assert_true(t->meta && t->stack && t->data && t->rx_desc && t->rx_sw && t->tx_desc &&
                t->tx_sw && t->tx_marks);
    /* Garbage in the descriptor memory: init must clear it. */
    memset(t->rx_desc, 0xFF, IRING_DESC_MEM_BYTES(nrx));
    memset(t->tx_desc, 0xFF, IRING_DESC_MEM_BYTES(ntx));

    pkb_pool_init(&t->pool, TR_CORE, t->meta, t->stack, t->data, npool);
    assert_int_equal(iring_rx_init(&t->rx, t->rx_desc, t->rx_sw, nrx, (uintptr_t)&t->rx_tail,
                                   &t->pool, TR_CORE, TR_PORT),
                     0);
    assert_int_equal(iring_tx_init(&t->tx, t->tx_desc, t->tx_sw, t->tx_marks, ntx, (uintptr_t)&t->tx_tail,
                                   &t->pool, TR_CORE, TR_PORT),
                     0);
    fake_inic_rx_init(&t->nrx, t->rx_desc, nrx, &t->rx_tail, PKB_DATA_BYTES);
    fake_inic_tx_init(&t->ntx, t->tx_desc, ntx, &t->tx_tail);
    return t;
}

/* tr_count_sw: the buffers a ring holds: sw[first..first+n) (mod size); the other slots are
 * stale by the ring's contract and must not be counted. */
static unsigned tr_count_sw(struct pkb **sw, uint16_t first, uint16_t n, uint16_t size,
                            uint8_t *seen, const struct tr *t)
{
    unsigned held = 0;
    for (uint16_t k = 0; k < n; k++) {
        struct pkb *p = sw[(first + k) % size];
        if (p == NULL) { /* only a frame's second or third slot holds none */
            assert_true((k > 0 && sw[(first + k - 1) % size] != NULL) ||
                        (k > 1 && sw[(first + k - 2) % size] != NULL));
            continue;
        }
        seen[p - t->meta]++;
        held++;
    }
    return held;
}

/* tr_conserved: every buffer is in exactly one place: pool, RX ring, TX ring or the test. */
static void tr_conserved(const struct tr *t)
{
    uint32_t n = t->pool.size;
    uint8_t *seen = calloc(n, 1);

    assert_non_null(seen);
    for (uint32_t i = 0; i < t->pool.nfree; i++) {
        seen[t->pool.free[i] - t->meta]++;
    }
    unsigned in_rx = tr_count_sw(t->rx_sw, iring_rx_next_to_clean(&t->rx),
                                 iring_rx_posted(&t->rx), t->rx.size, seen, t);
    unsigned in_tx = tr_count_sw(t->tx_sw, iring_tx_next_to_clean(&t->tx),
                                 iring_tx_in_flight(&t->tx), t->tx.size, seen, t);

    for (unsigned i = 0; i < t->nheld; i++) {
        seen[t->held[i] - t->meta]++;
    }
    assert_int_equal(t->pool.nfree + in_rx + in_tx + t->nheld, n);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(seen[i], 1);
    }
    free(seen);
}

static void tr_hold(struct tr *t, struct pkb *p)
{
    assert_true(t->nheld < TR_MAX_HELD);
    t->held[t->nheld++] = p;
}

static void tr_free_held(struct tr *t)
{
    for (unsigned i = 0; i < t->nheld; i++) {
        pkb_free(t->held[i], TR_CORE);
    }
    t->nheld = 0;
}

/* tr_done: no leak, no bug counters, then release everything. */
static void tr_done(struct tr *t)
{
    tr_conserved(t);
    tr_free_held(t);
    iring_rx_release(&t->rx);
    iring_tx_release(&t->tx);
    assert_int_equal(t->pool.nfree, t->pool.size);
    assert_int_equal(t->pool.foreign_free, 0);
    assert_int_equal(t->pool.double_free, 0);
    assert_int_equal(t->nrx.violations, 0);
    assert_int_equal(t->ntx.violations, 0);
    free(t->meta);
    free(t->stack);
    free(t->data);
    free(t->rx_desc);
    free(t->rx_sw);
    free(t->tx_desc);
    free(t->tx_sw);
    free(t->tx_marks);
    free(t);
}

/* tr_rx: the NIC receives frame `seq` (rss hash = seq + 1); returns descriptors used. */
static unsigned tr_rx(struct tr *t, uint32_t seq, uint16_t len, uint32_t err_bits)
{
    static uint8_t buf[3 * PKB_DATA_BYTES];
    struct fake_inic_rx_opts o = {.rss_hash = seq + 1, .err_bits = err_bits};

    tr_frame(buf, seq, len);
    return fake_inic_rx_frame(&t->nrx, buf, len, &o);
}

/* tr_rx_burst: one burst; checks the tail rule and hands the frames to the test. */
static unsigned tr_rx_burst(struct tr *t, struct pkb **out, unsigned max)
{
    uint64_t writes = t->rx.stats.tail_writes;
    unsigned n = iring_rx_burst(&t->rx, out, max);

    assert_true(t->rx.stats.tail_writes - writes <= 1);
    assert_int_equal(t->rx_tail, iring_rx_next_to_use(&t->rx));
    for (unsigned i = 0; i < n; i++) {
        tr_hold(t, out[i]);
    }
    tr_conserved(t);
    return n;
}

/* tr_tx_pkt: a buffer from the pool holding frame `seq`, or NULL if the pool is empty. */
static struct pkb *tr_tx_pkt(struct tr *t, uint32_t seq, uint16_t len)
{
    struct pkb *p = pkb_alloc(&t->pool);

    if (p != NULL) {
        tr_frame(p->data, seq, len);
        p->len = len;
        pkb_tx_own(p);
    }
    return p;
}

/* tr_tx_expect: frame `seq` was placed on the TX ring: the NIC must send it next after the
 * ones placed before it. */
static void tr_tx_expect(struct tr *t, uint32_t seq)
{
    assert_true(t->txq_tail - t->txq_head < TR_TXQ_LEN);
    t->txq[t->txq_tail++ % TR_TXQ_LEN] = seq;
}

/* TX callback: frames leave in placement order and intact. */
static void tr_on_tx(void *ctx, const uint8_t *data, uint16_t len)
{
    struct tr *t = ctx;

    assert_true(t->txq_head != t->txq_tail);
    uint32_t seq = t->txq[t->txq_head++ % TR_TXQ_LEN];

    assert_int_equal(tr_frame_check(data, len), seq);
    assert_int_equal(len, tr_len_for(seq));
}

/* tr_tx_watch: check every frame the fake NIC sends against tr_tx_expect's queue. */
static void tr_tx_watch(struct tr *t)
{
    t->ntx.on_frame = tr_on_tx;
    t->ntx.ctx = t;
}

/* ---- init ------------------------------------------------------------------------------- */

static void test_init_rejects_bad_geometry(void **state)
{
    struct iring_rx r;
    struct iring_tx x;
    struct pkb_pool pool = {0};
    struct pkb *sw[4096];
    static struct iring_tx_mark marks[4096];
    uint8_t *mem = aligned_alloc(IRING_ALIGN_BYTES, IRING_DESC_MEM_BYTES(8192));
    uint32_t tail = 0;

    (void)state;
    assert_non_null(mem);
    uintptr_t tr = (uintptr_t)&tail;
    assert_int_equal(iring_rx_init(&r, mem + 16, sw, 8, tr, &pool, 0, 0), WS_ERR_INVAL);
    assert_int_equal(iring_rx_init(&r, mem, sw, 4, tr, &pool, 0, 0), WS_ERR_INVAL);
    assert_int_equal(iring_rx_init(&r, mem, sw, 24, tr, &pool, 0, 0), WS_ERR_INVAL);
    assert_int_equal(iring_rx_init(&r, mem, sw, 8192, tr, &pool, 0, 0), WS_ERR_INVAL);
    assert_int_equal(iring_rx_init(&r, mem, NULL, 8, tr, &pool, 0, 0), WS_ERR_INVAL);
    assert_int_equal(iring_rx_init(&r, mem, sw, 8, tr, NULL, 0, 0), WS_ERR_INVAL);
    assert_int_equal(iring_rx_init(&r, mem, sw, 8, tr, &pool, 0, 0), 0);
    assert_int_equal(iring_rx_init(&r, mem, sw, 4096, tr, &pool, 0, 0), 0);
    assert_int_equal(iring_tx_init(&x, mem + 64, sw, marks, 8, tr, &pool, 0, 0), WS_ERR_INVAL);
    assert_int_equal(iring_tx_init(&x, mem, sw, marks, 100, tr, &pool, 0, 0), WS_ERR_INVAL);
    assert_int_equal(iring_tx_init(&x, NULL, sw, marks, 8, tr, &pool, 0, 0), WS_ERR_INVAL);
    assert_int_equal(iring_tx_init(&x, mem, sw, marks, 8, tr, NULL, 0, 0), WS_ERR_INVAL);
    assert_int_equal(iring_tx_init(&x, mem, sw, NULL, 16, tr, &pool, 0, 0), WS_ERR_INVAL);
    assert_int_equal(iring_tx_init(&x, mem, sw, marks, 16, tr, &pool, 0, 0), 0);
    assert_int_equal(iring_tx_size(&x), 16);
    assert_int_equal(tail, 0); /* init never touches the register */
    free(mem);
}

/* ---- RX --------------------------------------------------------------------------------- */

static void test_rx_fill_posts_all_but_one(void **state)
{
    struct tr *t = tr_new(64, 16, 8);

    (void)state;
    assert_int_equal(iring_rx_fill(&t->rx), 15);
    assert_int_equal(t->rx.stats.tail_writes, 1);
    assert_int_equal(t->rx_tail, 15);
    assert_int_equal(iring_rx_posted(&t->rx), 15);
    assert_int_equal(t->pool.nfree, 64 - 15);
    for (uint16_t i = 0; i < 15; i++) {
        volatile union idesc_rx *d = &((union idesc_rx *)t->rx_desc)[i];

        assert_int_equal(d->read.pkt_addr, (uintptr_t)t->rx_sw[i]->data);
        assert_int_equal(d->read.hdr_addr, 0);
    }
    assert_null(t->rx_sw[15]);
    /* Nothing free: no post, no tail write. */
    assert_int_equal(iring_rx_fill(&t->rx), 0);
    assert_int_equal(t->rx.stats.tail_writes, 1);
    assert_false(iring_rx_pending(&t->rx));
    assert_int_equal(fake_inic_rx_avail(&t->nrx), 15);
    tr_done(t);
}

static void test_rx_burst_metadata(void **state)
{
    struct tr *t = tr_new(64, 16, 8);
    struct pkb *out[32];
    static uint8_t buf[64];

    (void)state;
    iring_rx_fill(&t->rx);
    for (uint32_t s = 0; s < 5; s++) {
        assert_int_equal(tr_rx(t, s, tr_len_for(s), 0), 1);
    }
    tr_frame(buf, 5, 64);
    assert_int_equal(fake_inic_rx_frame(&t->nrx, buf, 64, NULL), 1); /* no RSS hash */
    assert_true(iring_rx_pending(&t->rx));

    assert_int_equal(tr_rx_burst(t, out, 32), 6);
    for (uint32_t s = 0; s < 6; s++) {
        uint16_t len = s < 5 ? tr_len_for(s) : 64;

        assert_int_equal(out[s]->len, len);
        assert_int_equal(tr_frame_check(out[s]->data, len), s);
        assert_int_equal(out[s]->forwarded, 0);
        assert_int_equal(out[s]->port, TR_PORT);
        assert_int_equal(out[s]->queue, TR_CORE);
        assert_true(out[s]->rx_status & IDESC_RX_STATUS_DD);
        assert_true(out[s]->rx_status & IDESC_RX_STATUS_EOP);
    }
    assert_false(iring_rx_pending(&t->rx));
    assert_int_equal(t->rx.stats.packets, 6);
    assert_int_equal(t->rx.stats.tail_writes, 2); /* fill + one per burst */
    assert_int_equal(iring_rx_posted(&t->rx), 15);
    assert_int_equal(t->rx_tail, (15 + 6) % 16);
    tr_done(t);
}

static void test_rx_burst_respects_max(void **state)
{
    struct tr *t = tr_new(64, 16, 8);
    struct pkb *out[4];

    (void)state;
    iring_rx_fill(&t->rx);
    for (uint32_t s = 0; s < 10; s++) {
        tr_rx(t, s, 100, 0);
    }
    for (uint32_t s = 0; s < 10;) {
        unsigned n = tr_rx_burst(t, out, 4);

        assert_int_equal(n, s + 4 <= 10 ? 4 : 10 - s); /* never 0: the loop ends */
        for (unsigned i = 0; i < n; i++) {
            assert_int_equal(tr_frame_check(out[i]->data, 100), s + i);
        }
        s += n;
    }
    assert_int_equal(tr_rx_burst(t, out, 4), 0);
    tr_done(t);
}

/* Many times round a small ring, random arrivals and burst sizes, every byte checked. */
static void test_rx_wraparound_integrity(void **state)
{
    struct tr *t = tr_new(40, 8, 8);
    struct pkb *out[8];
    uint32_t sent = 0, got = 0;

    (void)state;
    srand(1234);
    iring_rx_fill(&t->rx);
    for (unsigned guard = 0; got < 100 * 8; guard++) {
        assert_true(guard < 10000);
        unsigned arrive = (unsigned)rand() % 8;

        for (unsigned k = 0; k < arrive; k++) {
            if (tr_rx(t, sent, tr_len_for(sent), 0) != 0) {
                sent++;
            }
        }
        unsigned n = tr_rx_burst(t, out, 1 + (unsigned)rand() % 8);

        for (unsigned i = 0; i < n; i++) {
            assert_int_equal(out[i]->len, tr_len_for(got));
            assert_int_equal(tr_frame_check(out[i]->data, out[i]->len), got);
            got++;
        }
        tr_free_held(t);
    }
    assert_int_equal(t->rx.stats.packets, got);
    assert_int_equal(t->nrx.frames, sent);
    assert_int_equal(t->rx.stats.no_buffer, 0);
    tr_done(t);
}

/* The NIC runs out of descriptors: it drops (missed), the ring recovers after a burst. */
static void test_rx_full_ring_missed(void **state)
{
    struct tr *t = tr_new(32, 8, 8);
    struct pkb *out[8];

    (void)state;
    iring_rx_fill(&t->rx);
    for (uint32_t s = 0; s < 7; s++) {
        assert_int_equal(tr_rx(t, s, 60, 0), 1);
    }
    assert_int_equal(tr_rx(t, 7, 60, 0), 0);
    assert_int_equal(t->nrx.missed, 1);
    assert_int_equal(tr_rx_burst(t, out, 8), 7);
    assert_int_equal(fake_inic_rx_avail(&t->nrx), 7);
    assert_int_equal(tr_rx(t, 8, 60, 0), 1);
    assert_int_equal(tr_rx_burst(t, out, 8), 1);
    assert_int_equal(tr_frame_check(out[0]->data, 60), 8);
    tr_done(t);
}

/* An empty pool leaves slots unposted (no_buffer), never stalls: a later burst refills them. */
static void test_rx_empty_pool_recovers(void **state)
{
    struct tr *t = tr_new(12, 8, 8);
    struct pkb *out[8];
    struct pkb *p;

    (void)state;
    assert_int_equal(iring_rx_fill(&t->rx), 7);
    /* Two laps first, so every descriptor holds an old write-back with DD set. */
    for (uint32_t s = 0; s < 14; s++) {
        assert_int_equal(tr_rx(t, 100 + s, 70, 0), 1);
        if (s % 7 == 6) {
            assert_int_equal(tr_rx_burst(t, out, 8), 7);
            tr_free_held(t);
            iring_rx_fill(&t->rx); /* the burst could refill only 5 while we held 7 */
        }
    }
    uint64_t tw = t->rx.stats.tail_writes;
    uint64_t nb = t->rx.stats.no_buffer;

    while ((p = pkb_alloc(&t->pool)) != NULL) {
        tr_hold(t, p); /* the rest of the pool is busy elsewhere */
    }
    tr_conserved(t);

    for (uint32_t s = 0; s < 3; s++) {
        tr_rx(t, s, 80, 0);
    }
    assert_int_equal(tr_rx_burst(t, out, 8), 3);
    assert_int_equal(t->rx.stats.no_buffer, nb + 1);
    assert_int_equal(t->rx.stats.tail_writes, tw); /* nothing posted, so no tail write */
    assert_int_equal(iring_rx_posted(&t->rx), 4);
    for (uint32_t s = 3; s < 7; s++) {
        assert_int_equal(tr_rx(t, s, 80, 0), 1);
    }
    assert_int_equal(tr_rx(t, 7, 80, 0), 0); /* the NIC has nothing left: missed */
    assert_int_equal(tr_rx_burst(t, out, 8), 4);
    assert_int_equal(iring_rx_posted(&t->rx), 0);
    /* Unposted slots still show their old DD: neither pending nor harvested again. */
    assert_true(((union idesc_rx *)t->rx_desc)[iring_rx_next_to_clean(&t->rx)].wb.status_error &
                IDESC_RX_STATUS_DD);
    assert_false(iring_rx_pending(&t->rx));
    assert_int_equal(tr_rx_burst(t, out, 8), 0);
    assert_int_equal(t->rx.stats.no_buffer, nb + 3);

    /* Two buffers come back: a partial refill, one tail write. */
    pkb_free(t->held[--t->nheld], TR_CORE);
    pkb_free(t->held[--t->nheld], TR_CORE);
    assert_int_equal(tr_rx_burst(t, out, 8), 0);
    assert_int_equal(iring_rx_posted(&t->rx), 2);
    assert_int_equal(t->rx.stats.tail_writes, tw + 1);
    assert_int_equal(t->rx.stats.no_buffer, nb + 4);

    /* Everything comes back: the ring is whole again and frames flow. */
    tr_free_held(t);
    assert_int_equal(tr_rx_burst(t, out, 8), 0);
    assert_int_equal(iring_rx_posted(&t->rx), 7);
    assert_int_equal(t->rx.stats.tail_writes, tw + 2);
    for (uint32_t s = 10; s < 17; s++) {
        assert_int_equal(tr_rx(t, s, 90, 0), 1);
    }
    assert_int_equal(tr_rx_burst(t, out, 8), 7);
    for (uint32_t i = 0; i < 7; i++) {
        assert_int_equal(tr_frame_check(out[i]->data, 90), 10 + i);
    }
    tr_done(t);
}

/* Error write-backs and frames spanning buffers are counted, recycled, never handed out. */
static void test_rx_errors_and_oversize_dropped(void **state)
{
    struct tr *t = tr_new(32, 16, 8);
    struct pkb *out[16];

    (void)state;
    iring_rx_fill(&t->rx);
    uint32_t pool_before = t->pool.nfree;

    tr_rx(t, 0, 100, 0);
    tr_rx(t, 1, 100, IDESC_RX_ERR_82576_RXE);
    tr_rx(t, 2, 100, 0);
    assert_int_equal(tr_rx(t, 3, 3000, 0), 2); /* two buffers, EOP on the second */
    tr_rx(t, 4, 100, IDESC_RX_ERR_82576_L4E);  /* checksum error: not a frame error */
    tr_rx(t, 5, 0, 0);                         /* impossible length */
    tr_rx(t, 6, 100, 0);
    assert_int_equal(tr_rx_burst(t, out, 16), 4);
    assert_int_equal(tr_frame_check(out[0]->data, 100), 0);
    assert_int_equal(tr_frame_check(out[1]->data, 100), 2);
    assert_int_equal(tr_frame_check(out[2]->data, 100), 4);
    assert_true(out[2]->rx_status & IDESC_RX_ERR_82576_L4E);
    assert_int_equal(tr_frame_check(out[3]->data, 100), 6);
    assert_int_equal(t->rx.stats.errors, 3);
    assert_int_equal(t->rx.stats.oversize, 1);
    assert_int_equal(t->rx.stats.packets, 4);
    /* Dropped frames' buffers were re-armed in place: only the 4 handed out left the pool. */
    assert_int_equal(t->pool.nfree, pool_before - 4);
    assert_int_equal(iring_rx_posted(&t->rx), 15);
    tr_done(t);
}

/* An oversize chain whose EOP descriptor is written back only after a burst already ran. */
static void test_rx_oversize_across_bursts(void **state)
{
    struct tr *t = tr_new(32, 8, 8);
    struct pkb *out[8];
    volatile union idesc_rx *d = t->rx_desc;

    (void)state;
    iring_rx_fill(&t->rx);
    tr_rx(t, 0, 100, 0);
    assert_int_equal(tr_rx(t, 1, 5000, 0), 3);
    uint32_t last = d[3].wb.status_error;

    d[2].wb.status_error &= ~(uint32_t)IDESC_RX_STATUS_DD; /* not yet written back */
    d[3].wb.status_error = 0;
    assert_int_equal(tr_rx_burst(t, out, 8), 1);
    assert_true(t->rx.discarding);
    d[2].wb.status_error |= IDESC_RX_STATUS_DD;
    d[3].wb.status_error = last;
    tr_rx(t, 2, 100, 0);
    assert_int_equal(tr_rx_burst(t, out, 8), 1);
    assert_int_equal(tr_frame_check(out[0]->data, 100), 2);
    assert_false(t->rx.discarding);
    assert_int_equal(t->rx.stats.errors, 1);
    assert_int_equal(t->rx.stats.oversize, 1);
    tr_done(t);
}

/* The 82599's error bits mean other things; the driver's mask decides. */
static void test_rx_82599_err_mask(void **state)
{
    struct tr *t = tr_new(32, 8, 8);
    struct pkb *out[8];

    (void)state;
    iring_rx_set_err_mask(&t->rx, IDESC_RX_ERR_FRAME_82599);
    iring_rx_fill(&t->rx);
    tr_rx(t, 0, 100, IDESC_RX_ERR_82599_IPE); /* bit 31: checksum on the 82599, kept */
    tr_rx(t, 1, 100, IDESC_RX_ERR_82599_CE);
    tr_rx(t, 2, 100, IDESC_RX_ERR_82599_USE);
    assert_int_equal(tr_rx_burst(t, out, 8), 1);
    assert_int_equal(tr_frame_check(out[0]->data, 100), 0);
    assert_int_equal(t->rx.stats.errors, 2);
    tr_done(t);
}

/* One checksum-verdict case: whether the driver trusts the NIC, what the write-back says,
 * and the verdict the ring must give. */
struct verdict_case {
    bool trust;
    uint32_t status, err;
    bool ok;
};

/* check_verdicts: each case as one frame through a fresh ring, trusted with trust(err_bit) or
 * not; ok() must give the case's verdict and the frame must never count as an error. */
static void check_verdicts(const struct verdict_case *cases, size_t n,
                           void (*trust)(struct iring_rx *, uint32_t), uint32_t err_bit,
                           bool (*ok)(const struct iring_rx *, uint32_t))
{
    static uint8_t buf[128];
    struct pkb *out[4];

    for (size_t i = 0; i < n; i++) {
        struct tr *t = tr_new(16, 8, 8);
        struct fake_inic_rx_opts o = { .status_bits = cases[i].status, .err_bits = cases[i].err };
        if (cases[i].trust) {
            trust(&t->rx, err_bit);
        }
        iring_rx_fill(&t->rx);
        tr_frame(buf, 0, 100);
        assert_int_equal(fake_inic_rx_frame(&t->nrx, buf, 100, &o), 1);
        assert_int_equal(tr_rx_burst(t, out, 4), 1);
        assert_int_equal(ok(&t->rx, out[0]->rx_status), cases[i].ok);
        assert_int_equal(t->rx.stats.errors, 0);
        tr_done(t);
    }
}

/* The NIC's TCP/UDP checksum verdict reaches the sink as PKB_F_L4_CSUM_OK only when the
 * driver trusts it, the NIC says it checked (L4I) and it found no error; a checksum error
 * never drops the frame (the stack decides). */
static void test_rx_l4_checksum_flag(void **state)
{
    static const struct verdict_case cases[] = {
        { false, IDESC_RX_STATUS_L4I, 0, false },                    /* not trusted */
        { true, IDESC_RX_STATUS_L4I, 0, true },                      /* checked, fine */
        { true, IDESC_RX_STATUS_L4I, IDESC_RX_ERR_82576_L4E, false }, /* checked, wrong */
        { true, 0, 0, false },                                       /* not checked */
        { true, 0, IDESC_RX_ERR_82576_L4E, false },
    };
    (void)state;
    check_verdicts(cases, sizeof(cases) / sizeof(cases[0]), iring_rx_trust_l4_csum,
                   IDESC_RX_ERR_82576_L4E, iring_rx_l4_csum_ok);
}

/* The NIC's IPv4 header checksum verdict: trusted only when the driver says so, the NIC says
 * it checked (IPCS) and found no error; an IPE never drops the frame (the router decides). */
static void test_rx_ipv4_checksum_verdict(void **state)
{
    static const struct verdict_case cases[] = {
        { false, IDESC_RX_STATUS_IPCS, 0, false },                     /* not trusted */
        { true, IDESC_RX_STATUS_IPCS, 0, true },                       /* checked, fine */
        { true, IDESC_RX_STATUS_IPCS, IDESC_RX_ERR_82576_IPE, false }, /* checked, wrong */
        { true, 0, 0, false },                                         /* not checked */
        { true, IDESC_RX_STATUS_IPCS, IDESC_RX_ERR_82576_L4E, true },  /* another error bit */
    };
    (void)state;
    check_verdicts(cases, sizeof(cases) / sizeof(cases[0]), iring_rx_trust_ipv4_csum,
                   IDESC_RX_ERR_82576_IPE, iring_rx_ipv4_csum_ok);
}

/* ---- release: what a port reset does to a ring -------------------------------------------- */

/* A port reset stops the NIC with frames written back but not taken on the RX ring and frames
 * placed but not sent on the TX ring. Release gives every buffer back, counts the frames lost
 * (flushed), keeps the completions the NIC reported, and leaves both rings as good as new. */
static void test_release_after_reset_counts_what_is_lost(void **state)
{
    struct tr *t = tr_new(64, 16, 16);
    struct pkb *pk[6], *out[8];

    (void)state;
    iring_rx_fill(&t->rx);
    tr_rx(t, 0, 100, 0);
    tr_rx(t, 1, 100, 0);
    assert_int_equal(tr_rx_burst(t, out, 1), 1); /* the core took one */
    tr_rx(t, 2, 3000, 0);                         /* a two-descriptor frame: counted once */
    assert_int_equal(t->nrx.frames, 3);
    for (uint32_t s = 0; s < 6; s++) {
        pk[s] = tr_tx_pkt(t, 10 + s, 60);
        pk[s]->forwarded = s % 2;
    }
    /* Two bursts of three: each burst's last descriptor asks for a write-back. */
    assert_int_equal(iring_tx_burst(&t->tx, pk, 3), 3);
    assert_int_equal(iring_tx_burst(&t->tx, pk + 3, 3), 3);
    assert_int_equal(fake_inic_tx_process(&t->ntx, 3), 3); /* then the NIC hangs */
    tr_conserved(t);

    iring_rx_release(&t->rx);
    iring_tx_release(&t->tx);
    tr_conserved(t);
    assert_int_equal(t->rx.stats.flushed, 2);     /* frames 1 and 2, never handed out */
    assert_int_equal(t->tx.stats.packets, 3);     /* reported done before the hang */
    assert_int_equal(t->tx.stats.forwarded, 1);
    assert_int_equal(t->tx.stats.flushed, 3);     /* placed, never reported sent */
    assert_int_equal(t->tx.stats.flushed_forwarded, 2);
    assert_int_equal(iring_tx_in_flight(&t->tx), 0);
    assert_int_equal(iring_rx_posted(&t->rx), 0);
    assert_int_equal(t->pool.nfree, 64 - t->nheld);
    /* Releasing again finds nothing more. */
    iring_rx_release(&t->rx);
    iring_tx_release(&t->tx);
    assert_int_equal(t->rx.stats.flushed, 2);
    assert_int_equal(t->tx.stats.flushed, 3);

    /* The "reset" NIC starts from index 0 again, like the rings: refill and traffic flow. */
    fake_inic_rx_init(&t->nrx, t->rx_desc, 16, &t->rx_tail, PKB_DATA_BYTES);
    fake_inic_tx_init(&t->ntx, t->tx_desc, 16, &t->tx_tail);
    assert_int_equal(iring_rx_fill(&t->rx), 15);
    tr_rx(t, 20, 80, 0);
    assert_int_equal(tr_rx_burst(t, out, 8), 1);
    assert_int_equal(tr_frame_check(out[0]->data, 80), 20);
    pk[0] = tr_tx_pkt(t, 30, 60);
    assert_int_equal(iring_tx_burst(&t->tx, pk, 1), 1);
    assert_int_equal(fake_inic_tx_process(&t->ntx, 8), 1);
    assert_int_equal(iring_tx_reclaim(&t->tx), 1);
    assert_int_equal(t->tx.stats.packets, 4);
    tr_done(t);
}

/* ---- TX --------------------------------------------------------------------------------- */

static void test_tx_burst_and_completion(void **state)
{
    struct tr *t = tr_new(32, 8, 16);
    struct pkb *pk[5];
    uint64_t bytes = 0;

    (void)state;
    tr_tx_watch(t);
    for (uint32_t s = 0; s < 5; s++) {
        pk[s] = tr_tx_pkt(t, s, tr_len_for(s));
        tr_tx_expect(t, s);
        bytes += tr_len_for(s);
    }
    assert_int_equal(iring_tx_burst(&t->tx, pk, 5), 5);
    assert_int_equal(t->tx.stats.tail_writes, 1);
    assert_int_equal(t->tx_tail, 5);
    assert_int_equal(iring_tx_in_flight(&t->tx), 5);
    assert_int_equal(t->tx.stats.packets, 0); /* not sent until the NIC says so */
    tr_conserved(t);

    /* Before DD nothing is freed. */
    assert_int_equal(iring_tx_reclaim(&t->tx), 0);
    assert_int_equal(t->pool.nfree, 32 - 5);

    assert_int_equal(fake_inic_tx_process(&t->ntx, 100), 5);
    assert_int_equal(t->ntx.frames, 5);
    assert_int_equal(iring_tx_reclaim(&t->tx), 5);
    assert_int_equal(t->tx.stats.packets, 5);
    assert_int_equal(t->tx.stats.bytes, bytes);
    assert_int_equal(t->pool.nfree, 32);
    assert_int_equal(iring_tx_in_flight(&t->tx), 0);

    /* An empty burst reclaims but writes no tail. */
    assert_int_equal(iring_tx_burst(&t->tx, pk, 0), 0);
    assert_int_equal(t->tx.stats.tail_writes, 1);
    tr_done(t);
}

static void test_tx_ring_full_drops_and_frees(void **state)
{
    struct tr *t = tr_new(32, 8, 8);
    struct pkb *pk[10];

    (void)state;
    tr_tx_watch(t);
    for (uint32_t s = 0; s < 10; s++) {
        pk[s] = tr_tx_pkt(t, s, tr_len_for(s));
        if (s < 7) {
            tr_tx_expect(t, s);
        }
    }
    assert_int_equal(iring_tx_burst(&t->tx, pk, 10), 7);
    assert_int_equal(t->tx.stats.ring_full, 3);
    assert_int_equal(t->tx.stats.tail_writes, 1);
    assert_int_equal(t->tx_tail, 7);
    assert_int_equal(t->pool.nfree, 32 - 7); /* the 3 dropped went straight back */
    tr_conserved(t);

    /* Still full while the NIC sleeps: everything offered is dropped, no tail write. */
    pk[0] = tr_tx_pkt(t, 100, 60);
    assert_int_equal(iring_tx_burst(&t->tx, pk, 1), 0);
    assert_int_equal(t->tx.stats.ring_full, 4);
    assert_int_equal(t->tx.stats.tail_writes, 1);
    tr_conserved(t);

    assert_int_equal(fake_inic_tx_process(&t->ntx, 100), 7);
    assert_int_equal(iring_tx_reclaim(&t->tx), 7);
    assert_int_equal(t->tx.stats.packets, 7);
    tr_done(t);
}

static void test_tx_bad_length_dropped(void **state)
{
    struct tr *t = tr_new(8, 8, 8);
    struct pkb *pk[3];

    (void)state;
    pk[0] = tr_tx_pkt(t, 0, 0);
    pk[1] = tr_tx_pkt(t, 1, 60);
    pk[2] = pkb_alloc(&t->pool);
    pk[2]->len = PKB_DATA_BYTES + 1;
    assert_int_equal(iring_tx_burst(&t->tx, pk, 3), 1);
    assert_int_equal(t->tx.stats.bad_len, 2);
    assert_int_equal(t->tx.stats.ring_full, 0);
    tr_conserved(t);
    fake_inic_tx_process(&t->ntx, 100);
    iring_tx_reclaim(&t->tx);
    tr_done(t);
}

/* A NIC that completes only k descriptors per step: nothing lost, nothing freed early, order
 * kept, and a full ring drops (and frees) the tail of a burst instead of stalling. */
static void test_tx_slow_nic(void **state)
{
    struct tr *t = tr_new(48, 8, 16);
    struct pkb *pk[8];
    uint32_t seq = 0;
    uint64_t placed = 0, offered = 0, bytes = 0;

    (void)state;
    srand(99);
    tr_tx_watch(t);
    for (unsigned step = 0; step < 500; step++) {
        unsigned m = (unsigned)rand() % 8;
        uint64_t writes = t->tx.stats.tail_writes;

        for (unsigned k = 0; k < m; k++) {
            pk[k] = tr_tx_pkt(t, seq + k, tr_len_for(seq + k));
            assert_non_null(pk[k]);
        }
        unsigned got = iring_tx_burst(&t->tx, pk, m);

        /* A full ring drops the end of the burst: the first `got` were placed, in order. */
        for (unsigned k = 0; k < got; k++) {
            tr_tx_expect(t, seq + k);
            bytes += tr_len_for(seq + k);
        }
        assert_int_equal(t->tx.stats.tail_writes - writes, got != 0 ? 1 : 0);
        assert_int_equal(t->tx_tail, iring_tx_next_to_use(&t->tx));
        seq += m;
        placed += got;
        offered += m;
        tr_conserved(t);
        fake_inic_tx_process(&t->ntx, 1 + step % 3);
        tr_conserved(t);
    }
    /* Drain: the NIC catches up, reclaim frees the rest. */
    for (unsigned guard = 0; iring_tx_in_flight(&t->tx) != 0; guard++) {
        assert_true(guard < 16);
        fake_inic_tx_process(&t->ntx, 2);
        iring_tx_reclaim(&t->tx);
        tr_conserved(t);
    }
    assert_int_equal(t->txq_head, t->txq_tail);
    assert_int_equal(t->tx.stats.packets, placed);
    assert_int_equal(t->ntx.frames, placed);
    assert_int_equal(t->tx.stats.bytes, bytes);
    assert_int_equal(placed + t->tx.stats.ring_full, offered);
    assert_true(t->tx.stats.ring_full > 0); /* the NIC really was too slow at times */
    tr_done(t);
}

/* The ring cannot see the NIC's head: it trusts DD, but only on slots in flight, from
 * next_to_clean, in order. DD on slots never placed or past a gap is left alone, placement
 * clears a stale DD, and a DD written before its turn is taken as a completion when its turn
 * comes (a real NIC writes DD in order; fuzz_tx_ring checks the rest with a hostile one). */
/* Reclaim trusts DD only where it asked for it (RS: every rs_mask-aligned descriptor and each
 * burst's last), only on descriptors in flight, and a reported descriptor completes every one
 * before it. Ring of 8: RS on slots 3 and 7, and on each burst's last. */
static void test_tx_reclaim_trusts_dd_in_flight_in_order(void **state)
{
    struct tr *t = tr_new(32, 8, 8);
    volatile union idesc_tx *d = t->tx_desc;
    struct pkb *pk[5];

    (void)state;
    for (uint32_t s = 0; s < 4; s++) {
        pk[s] = tr_tx_pkt(t, s, 60);
    }
    assert_int_equal(iring_tx_burst(&t->tx, pk, 4), 4); /* slots 0..3 */
    for (uint16_t i = 0; i < 4; i++) {
        assert_int_equal((d[i].read.cmd_type_len & IDESC_TX_CMD_RS) != 0, i == 3);
    }
    for (uint16_t i = 4; i < 8; i++) {
        d[i].wb.status = IDESC_TX_STATUS_DD; /* never placed */
    }
    d[0].wb.status = IDESC_TX_STATUS_DD; /* no RS here: the NIC would not have written it */
    d[2].wb.status = IDESC_TX_STATUS_DD;
    assert_int_equal(iring_tx_reclaim(&t->tx), 0);
    assert_int_equal(t->pool.nfree, 32 - 4);
    tr_conserved(t);

    d[3].wb.status = IDESC_TX_STATUS_DD | 0xFFFFFFF0U; /* other bits mean nothing */
    assert_int_equal(iring_tx_reclaim(&t->tx), 4);      /* slot 3 completes 0..3 */
    assert_int_equal(t->tx.stats.packets, 4);
    assert_int_equal(t->tx.stats.bytes, 4 * 60);
    tr_conserved(t);

    /* Slots 4, 5, then 6, 7, 0: their old DD is gone, RS on 5 (a burst's last), 7 (aligned)
     * and 0 (the last); nothing completes until those report. */
    for (uint32_t s = 0; s < 5; s++) {
        pk[s] = tr_tx_pkt(t, 10 + s, 100);
    }
    assert_int_equal(iring_tx_burst(&t->tx, pk, 2), 2);
    assert_int_equal(iring_tx_burst(&t->tx, pk + 2, 3), 3);
    for (uint16_t i = 4; i < 9; i++) {
        assert_int_equal(d[i & 7].wb.status & IDESC_TX_STATUS_DD, 0);
        bool rs = (i & 7) == 5 || (i & 7) == 7 || (i & 7) == 0;
        assert_int_equal((d[i & 7].read.cmd_type_len & IDESC_TX_CMD_RS) != 0, rs);
    }
    assert_int_equal(iring_tx_reclaim(&t->tx), 0);
    d[7].wb.status = IDESC_TX_STATUS_DD; /* 7 before 5: in order, 5 is done too */
    assert_int_equal(iring_tx_reclaim(&t->tx), 4);
    assert_int_equal(iring_tx_in_flight(&t->tx), 1);
    iring_tx_release(&t->tx);
    assert_int_equal(t->tx.stats.flushed, 1);
    assert_int_equal(t->tx.stats.packets, 8);
    tr_done(t);
}

/* RX to TX on one core, one pool (the forwarding loop), with a pool too small to fill both
 * rings: conservation holds throughout and the rings keep flowing. */
/* ---- TX checksum offload ------------------------------------------------------------------ */

/* tr_sum16: RFC 1071 sum of n bytes as big-endian words (the test's own, not net/inet's). */
static uint32_t tr_sum16(const uint8_t *p, unsigned n, uint32_t sum)
{
    for (unsigned i = 0; i + 1 < n; i += 2) {
        sum += (uint32_t)p[i] << 8 | p[i + 1];
    }
    if (n & 1) {
        sum += (uint32_t)p[n - 1] << 8;
    }
    return sum;
}

static uint16_t tr_fold(uint32_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xFFFFu) + (sum >> 16);
    }
    return (uint16_t)sum;
}

/* tr_tcp4_pkt: an Ethernet/IPv4/TCP frame with `payload` bytes whose checksum field holds the
 * pseudo-header sum (what the sink primes for PKB_TX_CSUM_TCP4). */
static struct pkb *tr_tcp4_pkt(struct tr *t, uint16_t payload)
{
    struct pkb *p = pkb_alloc(&t->pool);
    assert_non_null(p);
    uint8_t *f = p->data, *ip = f + 14, *tcp = ip + 20;
    uint16_t tcp_len = (uint16_t)(20 + payload), ip_len = (uint16_t)(20 + tcp_len);
    memset(f, 0, 14u + ip_len);
    f[12] = 0x08;
    ip[0] = 0x45;
    ip[2] = (uint8_t)(ip_len >> 8);
    ip[3] = (uint8_t)ip_len;
    ip[8] = 64;
    ip[9] = 6;
    memcpy(ip + 12, "\xc6\x12\x00\x01\xc6\x12\x00\x02", 8);
    tcp[12] = 5 << 4;
    for (unsigned i = 0; i < payload; i++) {
        tcp[20 + i] = (uint8_t)(i * 7 + 3);
    }
    uint16_t pseudo = tr_fold(tr_sum16(ip + 12, 8, 6u + tcp_len));
    tcp[16] = (uint8_t)(pseudo >> 8);
    tcp[17] = (uint8_t)pseudo;
    p->len = (uint16_t)(14 + ip_len);
    pkb_tx_own(p); /* a buffer's previous user may have left it marked forwarded */
    p->tx_flags = PKB_TX_CSUM_TCP4;
    return p;
}

static unsigned tr_csum_frames, tr_csum_good, tr_ip_csum_good;

/* The fake NIC's output: are the TCP and the IPv4 header checksums of each frame right? */
static void tr_on_tcp4_tx(void *ctx, const uint8_t *data, uint16_t len)
{
    (void)ctx;
    const uint8_t *ip = data + 14;
    uint16_t tcp_len = (uint16_t)((ip[2] << 8 | ip[3]) - 20);
    assert_true(14u + 20u + tcp_len <= len);
    tr_csum_frames++;
    tr_csum_good += tr_fold(tr_sum16(ip + 20, tcp_len, tr_sum16(ip + 12, 8, 6u + tcp_len))) ==
                    0xFFFF;
    tr_ip_csum_good += tr_fold(tr_sum16(ip, 20, 0)) == 0xFFFF;
}

/* The context goes into slot 0 of an empty ring (TDT 1, the ring goes on from slot 1), and a
 * marked frame's descriptor asks for TXSM with context 0 (and IXSM when it is marked for it too)
 * while an unmarked one asks for nothing; the NIC completes the checksums asked for, and the
 * frames complete as frames. */
static void test_tx_csum_context_and_offload(void **state)
{
    struct tr *t = tr_new(32, 8, 16);
    (void)state;
    tr_csum_frames = tr_csum_good = tr_ip_csum_good = 0;
    t->ntx.on_frame = tr_on_tcp4_tx;
    assert_false(t->tx.csum_ctx);
    assert_int_equal(iring_tx_load_csum_context(&t->tx), WS_OK);
    assert_true(t->tx.csum_ctx);
    assert_int_equal(t->tx_tail, 1);
    const volatile union idesc_tx_ctx *c = (const volatile union idesc_tx_ctx *)t->tx_desc;
    assert_int_equal(c->vlan_macip_lens, 14u << 9 | 20u);
    assert_int_equal(c->type_tucmd_mlhl, IDESC_TXC_DTYP_CTXT | IDESC_TX_CMD_DEXT |
                                             IDESC_TXC_TUCMD_IPV4 | IDESC_TXC_TUCMD_L4T_TCP);
    assert_int_equal(c->mss_l4len_idx, 0);
    /* only at slot 0 of an empty ring */
    assert_int_equal(iring_tx_load_csum_context(&t->tx), WS_ERR_INVAL);

    struct pkb *pk[3] = { tr_tcp4_pkt(t, 1000), tr_tcp4_pkt(t, 1), tr_tcp4_pkt(t, 0) };
    pk[0]->tx_flags |= PKB_TX_CSUM_IP4; /* its IPv4 header checksum too (field left 0) */
    pk[2]->tx_flags = 0; /* complete as it is: its sum is wrong, and must stay wrong */
    assert_int_equal(iring_tx_burst(&t->tx, pk, 3), 3);
    assert_int_equal(t->tx_tail, 4);
    assert_int_equal(t->tx_sw[1], pk[0]);
    const volatile union idesc_tx *d = t->tx.desc;
    uint32_t opts = (uint32_t)~IDESC_TX_PAYLEN_MASK;
    uint32_t both = IDESC_TX_POPTS_TXSM | IDESC_TX_POPTS_IXSM;
    assert_int_equal(d[1].read.olinfo_status & opts, both | IDESC_TX_IDX(0));
    assert_int_equal(d[2].read.olinfo_status & opts, IDESC_TX_POPTS_TXSM);
    assert_int_equal(d[3].read.olinfo_status & opts, 0);
    tr_conserved(t);

    assert_int_equal(fake_inic_tx_process(&t->ntx, 100), 4); /* the context, then 3 frames */
    assert_int_equal(t->ntx.contexts, 1);
    assert_int_equal(t->ntx.csum_offloads, 2);
    assert_int_equal(tr_csum_frames, 3);
    assert_int_equal(tr_csum_good, 2);
    assert_int_equal(tr_ip_csum_good, 1); /* the others' fields stay 0: wrong, as sent */
    assert_int_equal(iring_tx_reclaim(&t->tx), 3);
    assert_int_equal(t->tx.stats.packets, 3); /* the context is no frame */
    assert_int_equal(t->pool.nfree, 32);
    tr_done(t);
}

/* A frame asking for an offload the ring has no context for (none loaded, or forgotten at a
 * release) is a counted drop, never sent with a half-made checksum; a released ring takes the
 * context again at slot 0, and a lap later slot 0 carries frames. */
static void test_tx_csum_without_context_dropped(void **state)
{
    struct tr *t = tr_new(32, 8, 8);
    (void)state;
    struct pkb *pk[8];
    pk[0] = tr_tcp4_pkt(t, 10);
    assert_int_equal(iring_tx_burst(&t->tx, pk, 1), 0);
    assert_int_equal(t->tx.stats.no_csum_ctx, 1);
    assert_int_equal(t->pool.nfree, 32);
    pk[0] = tr_tcp4_pkt(t, 10);
    pk[0]->tx_flags = 0x80; /* an offload no ring knows */
    assert_int_equal(iring_tx_load_csum_context(&t->tx), WS_OK);
    assert_int_equal(iring_tx_burst(&t->tx, pk, 1), 0);
    assert_int_equal(t->tx.stats.no_csum_ctx, 2);

    iring_tx_release(&t->tx); /* as after a port reset */
    assert_false(t->tx.csum_ctx);
    t->ntx.ctx0_valid = false; /* the reset chip has forgotten its contexts (TDH is still 0) */
    assert_int_equal(iring_tx_load_csum_context(&t->tx), WS_OK);
    for (unsigned lap = 0; lap < 3; lap++) { /* slot 0 carries frames from lap 1 on */
        for (unsigned k = 0; k < 7; k++) {
            pk[k] = tr_tcp4_pkt(t, (uint16_t)(k * 100));
        }
        /* lap 0: 6 fit (slots 1-6; slot 0 holds the context the NIC has not taken yet) */
        assert_int_equal(iring_tx_burst(&t->tx, pk, 7), lap == 0 ? 6 : 7);
        fake_inic_tx_process(&t->ntx, 100);
        iring_tx_reclaim(&t->tx);
        tr_conserved(t);
    }
    assert_int_equal(t->ntx.contexts, 1); /* the first was released before the NIC took it */
    assert_int_equal(t->ntx.csum_offloads, 6 + 7 + 7);
    assert_int_equal(t->tx.stats.ring_full, 1);
    tr_done(t);
}

/* ---- two-descriptor frames (PKB_TX_EXT) ---------------------------------------------------- */

static uint8_t tr_ext_payload[4096]; /* constant: what the frames' second parts point at */
static unsigned tr_ext_seen, tr_ext_bad;

/* tr_ext_pkt: frame `seq` as hdr bytes in its buffer (seq first) and ext bytes of
 * tr_ext_payload from offset seq % 64 (ext 0: an ordinary one-buffer frame). */
static struct pkb *tr_ext_pkt(struct tr *t, uint32_t seq, uint16_t hdr, uint16_t ext)
{
    struct pkb *p = pkb_alloc(&t->pool);
    if (p == NULL) {
        return NULL;
    }
    tr_frame(p->data, seq, hdr);
    p->len = hdr;
    pkb_tx_own(p); /* pkb_alloc leaves the last frame's marks */
    if (ext != 0) {
        p->tx_flags = PKB_TX_EXT;
        p->tx.ext = tr_ext_payload + seq % 64;
        p->tx.ext_len = ext;
    }
    return p;
}

/* The NIC's frames: seq and the header part as tr_frame made them, then the payload part. */
static void tr_on_ext_tx(void *ctx, const uint8_t *data, uint16_t len)
{
    struct tr *t = ctx;
    assert_true(t->txq_head != t->txq_tail);
    uint32_t seq = t->txq[t->txq_head++ % TR_TXQ_LEN];
    uint32_t got;
    memcpy(&got, data, sizeof(got));
    uint16_t hdr = (uint16_t)(60 + seq % 7), ext = (uint16_t)(seq % 3 == 0 ? 0 : 100 + seq % 900);
    tr_ext_seen++;
    tr_ext_bad += got != seq || len != hdr + ext ||
                  (ext != 0 && memcmp(data + hdr, tr_ext_payload + seq % 64, ext) != 0);
}

static void tr_ext_setup(struct tr *t)
{
    for (unsigned i = 0; i < sizeof(tr_ext_payload); i++) {
        tr_ext_payload[i] = (uint8_t)(i * 13 + 5);
    }
    tr_ext_seen = tr_ext_bad = 0;
    t->ntx.on_frame = tr_on_ext_tx;
    t->ntx.ctx = t;
}

/* Frame seq of the mixed stream: two of three in two descriptors. */
static struct pkb *tr_ext_next(struct tr *t, uint32_t seq)
{
    return tr_ext_pkt(t, seq, (uint16_t)(60 + seq % 7),
                      (uint16_t)(seq % 3 == 0 ? 0 : 100 + seq % 900));
}

/* A frame in two descriptors: the buffer, then the constant part; EOP and RS only on the
 * second, both with the whole frame's PAYLEN; its second slot holds no buffer. One whose first
 * descriptor falls on a group's RS slot gets the write-back on its second, and reclaim finds
 * it there. Completion counts frames, not descriptors. */
static void test_tx_two_descriptor_frames(void **state)
{
    struct tr *t = tr_new(64, 8, 64); /* RS on slots 31 and 63 */
    (void)state;
    tr_ext_setup(t);
    struct pkb *pk[40];
    unsigned n = 0;
    for (uint32_t s = 0; s < 31; s++) { /* slots 0-30: one descriptor each */
        pk[n] = tr_ext_pkt(t, s, 60, 0);
        tr_tx_expect(t, s);
        n++;
    }
    pk[n++] = tr_ext_pkt(t, 31, 60, 500); /* slots 31 and 32 */
    tr_tx_expect(t, 31);
    pk[n++] = tr_ext_pkt(t, 32, 60, 500); /* slots 33 and 34 */
    tr_tx_expect(t, 32);
    t->ntx.on_frame = NULL; /* frames of this test are not tr_ext_next's */
    assert_int_equal(iring_tx_burst(&t->tx, pk, n), n);
    assert_int_equal(t->tx_tail, 35);
    const volatile union idesc_tx *d = t->tx.desc;
    assert_int_equal(d[31].read.cmd_type_len & (IDESC_TX_CMD_EOP | IDESC_TX_CMD_RS), 0);
    assert_int_equal(d[32].read.cmd_type_len & (IDESC_TX_CMD_EOP | IDESC_TX_CMD_RS),
                     IDESC_TX_CMD_EOP | IDESC_TX_CMD_RS);
    assert_int_equal(d[31].read.cmd_type_len & IDESC_TX_DTALEN_MASK, 60);
    assert_int_equal(d[32].read.cmd_type_len & IDESC_TX_DTALEN_MASK, 500);
    assert_int_equal((d[31].read.olinfo_status & IDESC_TX_PAYLEN_MASK) >> 14, 560);
    assert_int_equal((d[32].read.olinfo_status & IDESC_TX_PAYLEN_MASK) >> 14, 560);
    assert_int_equal(d[32].read.buffer_addr, (uint64_t)(uintptr_t)(tr_ext_payload + 31));
    assert_null(t->tx_sw[32]);
    assert_int_equal(d[33].read.cmd_type_len & IDESC_TX_CMD_RS, 0);
    assert_int_equal(d[34].read.cmd_type_len & IDESC_TX_CMD_RS, IDESC_TX_CMD_RS); /* the last */
    tr_conserved(t);

    /* The NIC does the first 33 descriptors (to the RS one): 32 frames come back. */
    assert_int_equal(fake_inic_tx_process(&t->ntx, 33), 33);
    assert_int_equal(iring_tx_reclaim(&t->tx), 32);
    assert_int_equal(t->tx.stats.packets, 32);
    assert_int_equal(t->tx.stats.bytes, 31 * 60 + 560);
    tr_conserved(t);
    assert_int_equal(fake_inic_tx_process(&t->ntx, 100), 2);
    assert_int_equal(iring_tx_reclaim(&t->tx), 1);
    assert_int_equal(t->ntx.multi_desc_frames, 2);
    assert_int_equal(t->pool.nfree, 64);
    tr_done(t);
}

/* Mixed one- and two-descriptor frames over many laps of a small ring, a NIC that takes a few
 * descriptors a step (sometimes stopping inside a frame's pair), bursts bigger than the room:
 * every frame leaves once, in order, whole; what found no room is ring_full; nothing leaks. */
static void test_tx_two_descriptor_frames_wrap(void **state)
{
    struct tr *t = tr_new(48, 8, 16);
    (void)state;
    tr_ext_setup(t);
    uint32_t seq = 0;
    uint64_t refused = 0;
    for (unsigned step = 0; step < 400; step++) {
        struct pkb *pk[9];
        unsigned n = 0;
        for (unsigned k = 0; k < 1 + step % 9; k++) {
            struct pkb *p = tr_ext_next(t, seq);
            if (p == NULL) {
                break;
            }
            pk[n++] = p;
            seq++;
        }
        uint64_t full0 = t->tx.stats.ring_full;
        unsigned placed = iring_tx_burst(&t->tx, pk, n);
        assert_int_equal(t->tx.stats.ring_full - full0, n - placed);
        for (unsigned k = 0; k < placed; k++) {
            tr_tx_expect(t, seq - n + k);
        }
        refused += n - placed; /* the burst's tail: nothing after a refused frame is placed */
        fake_inic_tx_process(&t->ntx, 1 + step % 5);
        iring_tx_reclaim(&t->tx);
        tr_conserved(t);
    }
    for (unsigned guard = 0; iring_tx_in_flight(&t->tx) != 0; guard++) {
        assert_true(guard < 100);
        fake_inic_tx_process(&t->ntx, 3);
        iring_tx_reclaim(&t->tx);
    }
    assert_int_equal(tr_ext_bad, 0);
    assert_int_equal(tr_ext_seen + refused, seq);
    assert_int_equal(t->tx.stats.packets, tr_ext_seen);
    assert_true(t->ntx.multi_desc_frames > 100 && refused > 0);
    tr_done(t);
}

/* Room is counted in descriptors; a second part that is empty, missing or larger than a jumbo
 * payload is bad_len; a reset with pairs in flight frees each frame's buffer once and counts
 * frames, not descriptors. */
static void test_tx_two_descriptor_room_checks_and_release(void **state)
{
    struct tr *t = tr_new(32, 8, 8); /* room 7 */
    (void)state;
    tr_ext_setup(t);
    t->ntx.on_frame = NULL;
    struct pkb *pk[4];
    for (uint32_t s = 0; s < 4; s++) {
        pk[s] = tr_ext_pkt(t, s, 60, 200);
    }
    assert_int_equal(iring_tx_burst(&t->tx, pk, 4), 3); /* 6 descriptors; the 4th needs 2 */
    assert_int_equal(t->tx.stats.ring_full, 1);
    assert_int_equal(iring_tx_in_flight(&t->tx), 6);
    tr_conserved(t);
    pk[0] = tr_ext_pkt(t, 9, 60, 1); /* exactly the one descriptor left: needs two */
    assert_int_equal(iring_tx_burst(&t->tx, pk, 1), 0);
    assert_int_equal(t->tx.stats.ring_full, 2);

    pk[0] = tr_ext_pkt(t, 10, 60, 0);
    pk[0]->tx_flags = PKB_TX_EXT; /* empty second part */
    pk[0]->tx.ext = tr_ext_payload;
    pk[0]->tx.ext_len = 0;
    pk[1] = tr_ext_pkt(t, 11, 60, 10);
    pk[1]->tx.ext = NULL;
    pk[2] = tr_ext_pkt(t, 12, 60, 10);
    pk[2]->tx.ext_len = IRING_TX_EXT_MAX_BYTES + 1;
    assert_int_equal(iring_tx_burst(&t->tx, pk, 3), 0);
    assert_int_equal(t->tx.stats.bad_len, 3);

    fake_inic_tx_process(&t->ntx, 3); /* the NIC sent one frame and half of the next... */
    iring_tx_release(&t->tx);         /* ...when the port was reset */
    assert_int_equal(t->tx.stats.packets + t->tx.stats.flushed, 3);
    assert_int_equal(t->pool.nfree, 32);
    tr_done(t);
}

/* ---- TCP segmentation (PKB_TX_TSO) --------------------------------------------------------- */

static uint8_t tr_tso_payload[IRING_TX_TSO_MAX_BYTES]; /* constant: the TSO frames' payload */
static unsigned tr_tso_segs, tr_tso_bad;
static uint32_t tr_tso_next_seq; /* the sequence number the next segment must carry */

/* tr_tso_pkt: a TSO frame: 54 bytes of headers (sequence number seq, PSH) whose TCP checksum
 * field holds the pseudo-header sum without the length, payload bytes of tr_tso_payload from
 * seq % 256 on (so the byte at sequence number s is always (s * 29 + 1) mod 256), cut at mss. */
static struct pkb *tr_tso_pkt(struct tr *t, uint32_t seq, uint32_t payload, uint16_t mss)
{
    struct pkb *p = tr_tcp4_pkt(t, 0);
    uint8_t *ip = p->data + 14, *tcp = ip + 20;
    for (int b = 0; b < 4; b++) {
        tcp[4 + b] = (uint8_t)(seq >> (24 - 8 * b));
    }
    tcp[13] = 0x18; /* PSH, ACK */
    ip[10] = ip[11] = 0;
    uint16_t pseudo = tr_fold(tr_sum16(ip + 12, 8, 6u));
    tcp[16] = (uint8_t)(pseudo >> 8);
    tcp[17] = (uint8_t)pseudo;
    p->tx_flags = PKB_TX_TSO | PKB_TX_EXT | PKB_TX_CSUM_TCP4 | PKB_TX_CSUM_IP4;
    p->tx.ext = tr_tso_payload + seq % 256;
    p->tx.ext_len = payload;
    p->tx.mss = mss;
    return p;
}

/* The wire's view of TSO segments: each a whole TCP/IPv4 frame with both checksums right, in
 * sequence, its payload the frame's bytes at that offset, PSH on a frame's last only. */
static void tr_on_tso_tx(void *ctx, const uint8_t *data, uint16_t len)
{
    (void)ctx;
    const uint8_t *ip = data + 14, *tcp = ip + 20;
    uint16_t tcp_len = (uint16_t)((ip[2] << 8 | ip[3]) - 20), n = (uint16_t)(tcp_len - 20);
    uint32_t seq = (uint32_t)tcp[4] << 24 | (uint32_t)tcp[5] << 16 | tcp[6] << 8 | tcp[7];
    tr_tso_segs++;
    tr_tso_bad += len != 34u + tcp_len || seq != tr_tso_next_seq ||
                  tr_fold(tr_sum16(tcp, tcp_len, tr_sum16(ip + 12, 8, 6u + tcp_len))) != 0xFFFF ||
                  tr_fold(tr_sum16(ip, 20, 0)) != 0xFFFF;
    for (uint16_t k = 0; k < n && 54u + k < len; k++) { /* byte at sequence s: f(s % 256) */
        tr_tso_bad += data[54 + k] != (uint8_t)((seq + k) * 29u + 1u);
    }
    tr_tso_next_seq = seq + n;
}

static void tr_tso_setup(struct tr *t)
{
    for (unsigned i = 0; i < sizeof(tr_tso_payload); i++) {
        tr_tso_payload[i] = (uint8_t)(i * 29 + 1);
    }
    tr_tso_segs = tr_tso_bad = 0;
    tr_tso_next_seq = 0;
    t->ntx.on_frame = tr_on_tso_tx;
    assert_int_equal(iring_tx_load_csum_context(&t->tx), WS_OK);
}

/* A TSO frame takes three descriptors: a context for slot 1 (MACLEN 14, IPLEN 20, TCP/IPv4, the
 * MSS and the TCP header's length), then the headers and the payload with TSE, TXSM and IXSM
 * naming slot 1, PAYLEN the payload only; EOP and RS on the last. The NIC sends it as segments
 * of MSS bytes, and the ring counts each segment as a frame with its own headers' bytes. */
static void test_tx_tso_frame(void **state)
{
    struct tr *t = tr_new(32, 8, 16);
    (void)state;
    tr_tso_setup(t);
    struct pkb *pk[2] = { tr_tso_pkt(t, 0, 4000, 1460), tr_tso_pkt(t, 4000, 2921, 1460) };
    assert_int_equal(iring_tx_burst(&t->tx, pk, 2), 2);
    assert_int_equal(t->tx_tail, 7); /* slot 0 the checksum context, then 3 + 3 */
    const volatile union idesc_tx_ctx *c = (const volatile union idesc_tx_ctx *)&t->tx.desc[1];
    assert_int_equal(c->vlan_macip_lens, 14u << 9 | 20u);
    assert_int_equal(c->type_tucmd_mlhl, IDESC_TXC_DTYP_CTXT | IDESC_TX_CMD_DEXT |
                                             IDESC_TXC_TUCMD_IPV4 | IDESC_TXC_TUCMD_L4T_TCP);
    assert_int_equal(c->mss_l4len_idx, 1460u << 16 | 20u << 8 | 1u << 4);
    const volatile union idesc_tx *d = t->tx.desc;
    uint32_t opts = IDESC_TX_IDX(1) | IDESC_TX_POPTS_TXSM | IDESC_TX_POPTS_IXSM;
    for (unsigned k = 2; k <= 3; k++) {
        assert_int_equal(d[k].read.cmd_type_len & IDESC_TX_CMD_TSE, IDESC_TX_CMD_TSE);
        assert_int_equal(d[k].read.olinfo_status, IDESC_TX_PAYLEN(4000) | opts);
    }
    assert_int_equal(d[2].read.cmd_type_len & (IDESC_TX_DTALEN_MASK | IDESC_TX_CMD_EOP), 54);
    assert_int_equal(d[3].read.cmd_type_len & (IDESC_TX_DTALEN_MASK | IDESC_TX_CMD_EOP),
                     IDESC_TX_CMD_EOP | 4000);
    assert_int_equal(d[3].read.buffer_addr, (uint64_t)(uintptr_t)tr_tso_payload);
    assert_ptr_equal(t->tx_sw[1], pk[0]);
    assert_null(t->tx_sw[2]);
    assert_null(t->tx_sw[3]);
    assert_int_equal(d[6].read.cmd_type_len & IDESC_TX_CMD_RS, IDESC_TX_CMD_RS);
    assert_int_equal(t->tx.stats.tso_frames, 2);
    tr_conserved(t);

    assert_int_equal(fake_inic_tx_process(&t->ntx, 100), 7);
    assert_int_equal(t->ntx.violations, 0);
    assert_int_equal(t->ntx.tso_frames, 2);
    assert_int_equal(tr_tso_segs, 6); /* 1460 + 1460 + 1080, then 1460 + 1460 + 1 */
    assert_int_equal(tr_tso_bad, 0);
    assert_int_equal(iring_tx_reclaim(&t->tx), 2);
    assert_int_equal(t->tx.stats.packets, 6);
    assert_int_equal(t->tx.stats.bytes, 6 * 54 + 4000 + 2921);
    assert_int_equal(t->pool.nfree, 32);
    tr_done(t);
}

/* What the NIC cannot cut is bad_tso, freed, and places nothing: no checksum context on the
 * ring, an MSS out of range, a payload of one segment or more than a descriptor holds, headers
 * that are not exactly 14 + 20 + a whole TCP header, a missing flag. */
static void test_tx_tso_refused(void **state)
{
    struct tr *t = tr_new(32, 8, 16);
    (void)state;
    struct pkb *pk[8];
    pk[0] = tr_tso_pkt(t, 0, 4000, 1460);
    assert_int_equal(iring_tx_burst(&t->tx, pk, 1), 0); /* no context loaded yet */
    tr_tso_setup(t);
    pk[0] = tr_tso_pkt(t, 0, 4000, IRING_TX_TSO_MIN_MSS - 1);
    pk[1] = tr_tso_pkt(t, 0, 4000, IRING_TX_TSO_MAX_MSS + 1);
    pk[2] = tr_tso_pkt(t, 0, 1460, 1460);
    pk[3] = tr_tso_pkt(t, 0, IRING_TX_TSO_MAX_BYTES + 1, 1460);
    pk[4] = tr_tso_pkt(t, 0, 4000, 1460);
    pk[4]->len = 56; /* a TCP header of 22 bytes */
    pk[5] = tr_tso_pkt(t, 0, 4000, 1460);
    pk[5]->tx_flags &= (uint16_t)~PKB_TX_CSUM_IP4;
    pk[6] = tr_tso_pkt(t, 0, 4000, 1460);
    pk[6]->tx.ext = NULL;
    assert_int_equal(iring_tx_burst(&t->tx, pk, 7), 0);
    assert_int_equal(t->tx.stats.bad_tso, 8);
    assert_int_equal(t->tx_tail, 1); /* the context only */
    assert_int_equal(t->pool.nfree, 32);
    pk[0] = tr_tso_pkt(t, 0, IRING_TX_TSO_MAX_BYTES, IRING_TX_TSO_MIN_MSS); /* the limits */
    assert_int_equal(iring_tx_burst(&t->tx, pk, 1), 1);
    fake_inic_tx_process(&t->ntx, 100);
    assert_int_equal(iring_tx_reclaim(&t->tx), 1);
    assert_int_equal(tr_tso_segs, (IRING_TX_TSO_MAX_BYTES + IRING_TX_TSO_MIN_MSS - 1) /
                                      IRING_TX_TSO_MIN_MSS);
    assert_int_equal(tr_tso_bad + t->ntx.violations, 0);
    tr_done(t);
}

/* One-, two- and three-descriptor frames mixed over many laps of a small ring whose groups
 * (RS every 4) fall on every slot of a TSO frame in turn, a NIC that stops anywhere inside a
 * frame: every segment leaves once and in order, completion counts segments, nothing leaks. */
static void test_tx_tso_mixed_wrap(void **state)
{
    struct tr *t = tr_new(40, 8, 16);
    (void)state;
    tr_tso_setup(t);
    uint32_t seq = 0;
    uint64_t segs = 0;
    for (unsigned step = 0; step < 500; step++) {
        struct pkb *pk[4];
        unsigned n = 0;
        uint32_t seq0 = seq;
        uint64_t segs0 = segs;
        for (unsigned k = 0; k < 1 + step % 4; k++) {
            unsigned kind = (step + k) % 3; /* TSO, checksum only, by reference */
            uint32_t len = kind == 0 ? 1461 + (step * 37) % 3000 : 100 + step % 900;
            struct pkb *p = tr_tso_pkt(t, seq, len, 1460);
            if (kind != 0) { /* one segment: not TSO, the NIC sums it (ext or not) */
                p->tx_flags = (uint16_t)(kind == 2 ? PKB_TX_EXT | PKB_TX_CSUM_TCP4 |
                                                         PKB_TX_CSUM_IP4
                                                   : 0);
            }
            if (kind == 1) { /* a plain frame: the payload copied, checksums as sent */
                memcpy(p->data + 54, p->tx.ext, len);
                p->len = (uint16_t)(54 + len);
                uint8_t *ip = p->data + 14, *tcp = ip + 20;
                uint32_t tl = 20 + len;
                ip[2] = (uint8_t)((20 + tl) >> 8);
                ip[3] = (uint8_t)(20 + tl);
                uint16_t h = (uint16_t)~tr_fold(tr_sum16(ip, 20, 0));
                ip[10] = (uint8_t)(h >> 8);
                ip[11] = (uint8_t)h;
                tcp[16] = tcp[17] = 0;
                uint16_t cs = (uint16_t)~tr_fold(tr_sum16(tcp, tl, tr_sum16(ip + 12, 8, 6 + tl)));
                tcp[16] = (uint8_t)(cs >> 8);
                tcp[17] = (uint8_t)cs;
            } else if (kind == 2) { /* by reference, the NIC sums: field = full pseudo sum */
                uint8_t *ip = p->data + 14, *tcp = ip + 20;
                uint32_t tl = 20 + len;
                ip[2] = (uint8_t)((20 + tl) >> 8);
                ip[3] = (uint8_t)(20 + tl);
                uint16_t ps = tr_fold(tr_sum16(ip + 12, 8, 6 + tl));
                tcp[16] = (uint8_t)(ps >> 8);
                tcp[17] = (uint8_t)ps;
            }
            pk[n++] = p;
            seq += len;
            segs += kind == 0 ? (len + 1459) / 1460 : 1;
        }
        unsigned placed = iring_tx_burst(&t->tx, pk, n);
        if (placed < n) { /* the burst's tail found no room: the stream resumes after it */
            seq = seq0;
            segs = segs0;
            for (unsigned k = 0; k < placed; k++) {
                const struct pkb *p = pk[k];
                uint32_t len = (p->tx_flags & PKB_TX_EXT) ? p->tx.ext_len : p->len - 54u;
                seq += len;
                segs += (p->tx_flags & PKB_TX_TSO) ? (len + 1459) / 1460 : 1;
            }
        }
        fake_inic_tx_process(&t->ntx, 1 + step % 5);
        iring_tx_reclaim(&t->tx);
        tr_conserved(t);
    }
    for (unsigned guard = 0; iring_tx_in_flight(&t->tx) != 0; guard++) {
        assert_true(guard < 100);
        fake_inic_tx_process(&t->ntx, 3);
        iring_tx_reclaim(&t->tx);
    }
    assert_int_equal(t->ntx.violations, 0);
    assert_int_equal(tr_tso_bad, 0);
    assert_int_equal(tr_tso_segs, segs);
    assert_int_equal(t->tx.stats.packets, segs);
    assert_int_equal(tr_tso_next_seq, seq);
    assert_true(t->ntx.tso_frames > 100 && t->tx.stats.ring_full > 0);
    assert_int_equal(t->pool.nfree, 40);
    tr_done(t);
}

static void test_forward_rx_to_tx(void **state)
{
    struct tr *t = tr_new(18, 16, 8);
    struct pkb *out[16];
    uint32_t sent = 0;

    (void)state;
    srand(7);
    tr_tx_watch(t);
    iring_rx_fill(&t->rx);
    for (unsigned step = 0; step < 400; step++) {
        unsigned arrive = (unsigned)rand() % 10;

        for (unsigned k = 0; k < arrive; k++) {
            if (tr_rx(t, sent, tr_len_for(sent), 0) != 0) {
                sent++;
            }
        }
        unsigned n = iring_rx_burst(&t->rx, out, 16);

        /* What fits goes out in order; the burst frees the rest. Reclaim first so that the
         * room computed here is the room iring_tx_burst will see. */
        iring_tx_reclaim(&t->tx);
        unsigned room = 7U - iring_tx_in_flight(&t->tx);
        for (unsigned k = 0; k < n && k < room; k++) {
            tr_tx_expect(t, tr_frame_check(out[k]->data, out[k]->len));
        }
        iring_tx_burst(&t->tx, out, n);
        tr_conserved(t);
        fake_inic_tx_process(&t->ntx, (unsigned)rand() % 6);
        tr_conserved(t);
    }
    for (unsigned guard = 0; iring_tx_in_flight(&t->tx) != 0; guard++) {
        assert_true(guard < 4);
        fake_inic_tx_process(&t->ntx, 8);
        iring_tx_reclaim(&t->tx);
    }
    assert_int_equal(t->txq_head, t->txq_tail);
    assert_int_equal(t->rx.stats.packets, t->tx.stats.packets + t->tx.stats.ring_full);
    assert_int_equal(t->nrx.frames, t->rx.stats.packets);
    /* The pool is smaller than both rings together: every kind of pressure happened. */
    assert_true(t->tx.stats.ring_full > 0);
    assert_true(t->rx.stats.no_buffer > 0);
    assert_true(t->nrx.missed > 0);
    assert_true(t->tx.stats.packets > 500);
    tr_done(t);
}

/* ---- VLAN tags: stripped on receive, inserted on send ---------------------------------- */

/* A stripping NIC's write-back (VP, the tag in its VLAN field) lands in pkb.vlan and rx_status
 * with forwarded and tx_flags 0; a frame without VP keeps its own status and asks nothing. */
static void test_rx_stripped_tag_metadata(void **state)
{
    struct tr *t = tr_new(32, 8, 8);
    struct pkb *out[8];
    static uint8_t buf[128];
    (void)state;
    iring_rx_fill(&t->rx);
    tr_frame(buf, 1, 100);
    struct fake_inic_rx_opts o = {.status_bits = IDESC_RX_STATUS_VP, .vlan = 0xE00A};
    assert_int_equal(fake_inic_rx_frame(&t->nrx, buf, 100, &o), 1);
    assert_int_equal(fake_inic_rx_frame(&t->nrx, buf, 100, NULL), 1);
    assert_int_equal(tr_rx_burst(t, out, 8), 2);
    assert_true(out[0]->rx_status & IDESC_RX_STATUS_VP);
    assert_int_equal(out[0]->vlan, 0xE00A);
    assert_int_equal(out[0]->len, 100);
    assert_int_equal(out[0]->forwarded, 0);
    assert_int_equal(out[0]->tx_flags, 0);
    assert_false(out[1]->rx_status & IDESC_RX_STATUS_VP);
    assert_int_equal(out[1]->tx_flags, 0);
    tr_done(t);
}

static unsigned tr_tag_frames, tr_tag_bad;
static uint16_t tr_tag_want; /* the TCI every frame on the wire must carry */

/* The wire's view of tagged TCP/IPv4 frames: TPID 0x8100 and the wanted TCI after the MACs,
 * the frame behind it a whole TCP/IPv4 one with both checksums right. */
static void tr_on_tagged_tx(void *ctx, const uint8_t *data, uint16_t len)
{
    (void)ctx;
    const uint8_t *ip = data + 18;
    uint16_t tcp_len = (uint16_t)((ip[2] << 8 | ip[3]) - 20);
    tr_tag_frames++;
    tr_tag_bad += len < 18u + 40u || (data[12] << 8 | data[13]) != 0x8100 ||
                  (data[14] << 8 | data[15]) != tr_tag_want ||
                  (data[16] << 8 | data[17]) != 0x0800 || 18u + 20u + tcp_len > len ||
                  tr_fold(tr_sum16(ip + 20, tcp_len, tr_sum16(ip + 12, 8, 6u + tcp_len))) !=
                      0xFFFF ||
                  tr_fold(tr_sum16(ip, 20, 0)) != 0xFFFF;
}

/* PKB_TX_VLAN takes one more descriptor, a context for slot 1 holding the tag (and the TCP/IPv4
 * offload's lengths when the frame asks for them); its data descriptors name slot 1 with VLE,
 * whatever else they carry: checksums, a second part, segmentation. Every frame and segment
 * leaves tagged with its checksums right; the ring counts the tagged frames, completes all of
 * them and the checksum context in slot 0 stays untagged for the frames without a tag. */
static void test_tx_vlan_tagged_frames(void **state)
{
    struct tr *t = tr_new(32, 8, 32);
    (void)state;
    tr_tso_setup(t);
    tr_tag_frames = tr_tag_bad = 0;
    tr_tag_want = 0x2014; /* priority 1, VID 20 */
    t->ntx.on_frame = tr_on_tagged_tx;
    struct pkb *pk[4] = { tr_tcp4_pkt(t, 100), tr_tcp4_pkt(t, 10), tr_tcp4_pkt(t, 0),
                          tr_tso_pkt(t, 0, 3000, 1000) };
    pk[0]->tx_flags = PKB_TX_CSUM_TCP4 | PKB_TX_CSUM_IP4 | PKB_TX_VLAN; /* IPv4 sum left 0 */
    pk[1]->tx_flags = PKB_TX_CSUM_TCP4 | PKB_TX_VLAN;
    pk[1]->data[24] = pk[1]->data[25] = 0;
    uint16_t ip = (uint16_t)~tr_fold(tr_sum16(pk[1]->data + 14, 20, 0));
    pk[1]->data[24] = (uint8_t)(ip >> 8);
    pk[1]->data[25] = (uint8_t)ip;
    pk[2]->tx_flags = PKB_TX_CSUM_TCP4 | PKB_TX_CSUM_IP4 | PKB_TX_EXT | PKB_TX_VLAN;
    pk[2]->tx.ext = tr_tso_payload; /* 60 bytes of payload in a second part */
    pk[2]->tx.ext_len = 60;
    pk[2]->data[16] = 0;
    pk[2]->data[17] = 20 + 20 + 60;
    uint16_t pseudo = tr_fold(tr_sum16(pk[2]->data + 26, 8, 6u + 80u));
    pk[2]->data[50] = (uint8_t)(pseudo >> 8);
    pk[2]->data[51] = (uint8_t)pseudo;
    pk[3]->tx_flags |= PKB_TX_VLAN;
    for (unsigned k = 0; k < 4; k++) {
        pk[k]->vlan = tr_tag_want;
    }
    assert_int_equal(iring_tx_burst(&t->tx, pk, 4), 4);
    /* slot 0 the checksum context; then 2 + 2 + 3 + 3 */
    assert_int_equal(t->tx_tail, 11);
    const volatile union idesc_tx_ctx *c = (const volatile union idesc_tx_ctx *)&t->tx.desc[1];
    assert_int_equal(c->vlan_macip_lens, 0x2014u << 16 | 14u << 9 | 20u);
    assert_int_equal(c->mss_l4len_idx, IDESC_TX_IDX(1));
    const volatile union idesc_tx *d = t->tx.desc;
    assert_int_equal(d[2].read.cmd_type_len & IDESC_TX_CMD_VLE, IDESC_TX_CMD_VLE);
    assert_int_equal(d[2].read.olinfo_status & ~IDESC_TX_PAYLEN_MASK,
                     IDESC_TX_IDX(1) | IDESC_TX_POPTS_TXSM | IDESC_TX_POPTS_IXSM);
    c = (const volatile union idesc_tx_ctx *)&t->tx.desc[8];
    assert_int_equal(c->vlan_macip_lens, 0x2014u << 16 | 14u << 9 | 20u);
    assert_int_equal(c->mss_l4len_idx, 1000u << 16 | 20u << 8 | 1u << 4);
    assert_int_equal(d[9].read.cmd_type_len & (IDESC_TX_CMD_VLE | IDESC_TX_CMD_TSE),
                     IDESC_TX_CMD_VLE | IDESC_TX_CMD_TSE);
    assert_int_equal(fake_inic_tx_process(&t->ntx, 64), 11); /* with slot 0's context */
    assert_int_equal(t->ntx.violations, 0);
    assert_int_equal(tr_tag_frames, 6); /* 3 frames, then the TSO frame's 3 segments */
    assert_int_equal(tr_tag_bad, 0);
    assert_int_equal(tr_tso_segs, 0); /* (the TSO callback is not watching) */
    assert_int_equal(t->ntx.vlan_inserted, 6);
    assert_int_equal(t->tx.stats.vlan_inserted, 4);
    assert_int_equal(iring_tx_reclaim(&t->tx), 4);
    assert_int_equal(t->tx.stats.packets, 6);

    /* an untagged checksum frame after them still uses slot 0, untagged */
    tr_csum_frames = tr_csum_good = 0;
    t->ntx.on_frame = tr_on_tcp4_tx;
    struct pkb *plain = tr_tcp4_pkt(t, 30);
    assert_int_equal(iring_tx_burst(&t->tx, &plain, 1), 1);
    assert_int_equal(d[11].read.cmd_type_len & IDESC_TX_CMD_VLE, 0);
    assert_int_equal(d[11].read.olinfo_status & IDESC_TX_IDX(7), IDESC_TX_IDX(0));
    assert_int_equal(fake_inic_tx_process(&t->ntx, 64), 1);
    assert_int_equal(tr_csum_good, 1);
    assert_int_equal(t->ntx.violations, 0);
    assert_int_equal(iring_tx_reclaim(&t->tx), 1);
    tr_done(t);
}

/* tr_tagged_fwd: n forwarded frames of tr_tcp4_pkt's kind (checksums already right), marked
 * for the NIC to tag with tci, as apps/fwd hands them over. */
static void tr_tagged_fwd(struct tr *t, struct pkb **pk, unsigned n, uint16_t tci)
{
    for (unsigned k = 0; k < n; k++) {
        pk[k] = tr_tcp4_pkt(t, (uint16_t)(10 + k));
        uint8_t *ip = pk[k]->data + 14, *tcp = ip + 20;
        uint16_t tcp_len = (uint16_t)(30 + k);
        uint16_t sum = (uint16_t)~tr_fold(tr_sum16(ip, 20, 0));
        ip[10] = (uint8_t)(sum >> 8);
        ip[11] = (uint8_t)sum;
        tcp[16] = tcp[17] = 0;
        sum = (uint16_t)~tr_fold(tr_sum16(tcp, tcp_len, tr_sum16(ip + 12, 8, 6u + tcp_len)));
        tcp[16] = (uint8_t)(sum >> 8);
        tcp[17] = (uint8_t)sum;
        pk[k]->tx_flags = PKB_TX_VLAN;
        pk[k]->vlan = tci;
        pk[k]->forwarded = 1;
    }
}

/* Forwarded runs to tag: the tag's context goes ahead of the first frame only when slot 1
 * holds something else (first run, another tag, a TSO frame in between, a ring reset); the
 * other frames take one descriptor each with VLE naming slot 1. Every frame leaves with the
 * run's tag; all count as forwarded and tagged. */
static void test_tx_forward_tagged_runs(void **state)
{
    struct tr *t = tr_new(64, 8, 64);
    struct pkb *pk[8];
    (void)state;
    tr_tso_setup(t);
    t->ntx.on_frame = tr_on_tagged_tx;
    tr_tag_frames = tr_tag_bad = 0;
    tr_tag_want = 10;
    tr_tagged_fwd(t, pk, 4, 10);
    assert_int_equal(iring_tx_burst_forward_tagged(&t->tx, pk, 4, 10), 4);
    assert_int_equal(t->tx_tail, 1 + 5); /* slot 0's checksum context, then 2 + 1 + 1 + 1 */
    tr_tagged_fwd(t, pk, 3, 10);
    assert_int_equal(iring_tx_burst_forward_tagged(&t->tx, pk, 3, 10), 3); /* kept: no context */
    assert_int_equal(t->tx_tail, 6 + 3);
    const volatile union idesc_tx *d = t->tx.desc;
    for (unsigned i = 3; i < 9; i++) {
        assert_int_equal(d[i].read.cmd_type_len & IDESC_TX_CMD_VLE, IDESC_TX_CMD_VLE);
        assert_int_equal(d[i].read.olinfo_status & IDESC_TX_IDX(7), IDESC_TX_IDX(1));
    }
    assert_int_equal(fake_inic_tx_process(&t->ntx, 64), 9);
    assert_int_equal(tr_tag_frames, 7);
    assert_int_equal(tr_tag_bad, 0);
    assert_int_equal(t->ntx.contexts, 2);

    /* another tag: a new context */
    tr_tag_want = 20;
    tr_tagged_fwd(t, pk, 2, 20);
    assert_int_equal(iring_tx_burst_forward_tagged(&t->tx, pk, 2, 20), 2);
    assert_int_equal(t->tx_tail, 9 + 3);
    assert_int_equal(fake_inic_tx_process(&t->ntx, 64), 3);
    assert_int_equal(tr_tag_frames, 9);
    /* a TSO frame takes slot 1: the next tagged run writes its context again */
    t->ntx.on_frame = tr_on_tso_tx;
    struct pkb *tso = tr_tso_pkt(t, 0, 3000, 1000);
    assert_int_equal(iring_tx_burst(&t->tx, &tso, 1), 1);
    assert_int_equal(fake_inic_tx_process(&t->ntx, 64), 3);
    assert_int_equal(tr_tso_segs, 3);
    t->ntx.on_frame = tr_on_tagged_tx;
    tr_tagged_fwd(t, pk, 2, 20);
    assert_int_equal(iring_tx_burst_forward_tagged(&t->tx, pk, 2, 20), 2);
    assert_int_equal(t->tx_tail, 15 + 3);
    assert_int_equal(fake_inic_tx_process(&t->ntx, 64), 3);
    assert_int_equal(tr_tag_frames, 11);
    assert_int_equal(tr_tag_bad, 0);
    assert_int_equal(t->ntx.violations, 0);
    assert_int_equal(t->tx.stats.vlan_inserted, 11);
    iring_tx_reclaim(&t->tx);
    assert_int_equal(t->tx.stats.forwarded, 11);
    assert_int_equal(t->tx.stats.packets, 11 + 3);
    /* after a reset the NIC forgot it: the context goes ahead again */
    iring_tx_release(&t->tx);
    assert_int_equal(t->tx.ctx1_tag, IRING_CTX1_OTHER);
    tr_done(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_rejects_bad_geometry),
        cmocka_unit_test(test_rx_fill_posts_all_but_one),
        cmocka_unit_test(test_rx_burst_metadata),
        cmocka_unit_test(test_rx_burst_respects_max),
        cmocka_unit_test(test_rx_wraparound_integrity),
        cmocka_unit_test(test_rx_full_ring_missed),
        cmocka_unit_test(test_rx_empty_pool_recovers),
        cmocka_unit_test(test_rx_errors_and_oversize_dropped),
        cmocka_unit_test(test_rx_oversize_across_bursts),
        cmocka_unit_test(test_rx_82599_err_mask),
        cmocka_unit_test(test_rx_l4_checksum_flag),
        cmocka_unit_test(test_rx_ipv4_checksum_verdict),
        cmocka_unit_test(test_tx_burst_and_completion),
        cmocka_unit_test(test_tx_ring_full_drops_and_frees),
        cmocka_unit_test(test_tx_bad_length_dropped),
        cmocka_unit_test(test_tx_slow_nic),
        cmocka_unit_test(test_tx_reclaim_trusts_dd_in_flight_in_order),
        cmocka_unit_test(test_forward_rx_to_tx),
        cmocka_unit_test(test_tx_csum_context_and_offload),
        cmocka_unit_test(test_tx_csum_without_context_dropped),
        cmocka_unit_test(test_tx_two_descriptor_frames),
        cmocka_unit_test(test_tx_two_descriptor_frames_wrap),
        cmocka_unit_test(test_tx_two_descriptor_room_checks_and_release),
        cmocka_unit_test(test_release_after_reset_counts_what_is_lost),
        cmocka_unit_test(test_tx_tso_frame),
        cmocka_unit_test(test_tx_tso_refused),
        cmocka_unit_test(test_tx_tso_mixed_wrap),
        cmocka_unit_test(test_rx_stripped_tag_metadata),
        cmocka_unit_test(test_tx_vlan_tagged_frames),
        cmocka_unit_test(test_tx_forward_tagged_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
