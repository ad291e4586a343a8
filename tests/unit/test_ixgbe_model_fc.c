/*
 * tests/unit/test_ixgbe_model_fc.c: link flow control on the 82599 model
 * (tests/model/ixgbe_model_fc.c) driven by hand: a received XOFF holds TX for its pause time
 * (and an XON lets it go at once), PAUSE frames are counted and consumed, and a filling RX packet
 * buffer sends XOFF at the high-water mark and XON at the low one. Register offsets are the
 * test's own (Linux ixgbe_type.h addresses).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/model/ixgbe_model.h"
#include "tests/unit/ixgbe_model_access.h"

#define T_RDBAL 0x01000
#define T_RDLEN 0x01008
#define T_RXDCTL 0x01028
#define T_SRRCTL 0x01014
#define T_RXCTRL 0x03000
#define T_TDBAL 0x06000
#define T_TDLEN 0x06008
#define T_TDT 0x06018
#define T_TXDCTL 0x06028
#define T_QUEUE_ENABLE 0x02000000u
#define T_DMATXCTL 0x04A80
#define T_FCCFG 0x03D00
#define T_MFLCN 0x04294
#define T_MFLCN_RFCE 0x8u
#define T_MFLCN_DPF 0x2u
#define T_FCRTL 0x03220
#define T_FCRTH 0x03260
#define T_FCTTV 0x03200
#define T_LXONTXC 0x03F60
#define T_LXOFFTXC 0x03F68
#define T_LXONRXCNT 0x041A4
#define T_LXOFFRXCNT 0x041A8
#define T_GPRC 0x04074
#define T_GPTC 0x04080

#define MEM_BASE 0x100000ull
#define MEM_SIZE 0x10000u

static const uint8_t MAC0[6] = {0x00, 0x1b, 0x21, 0x0a, 0x0b, 0x0c};

struct fx {
    struct ixgbe_model *m;
    uint8_t *mem;
    uint64_t now;
    unsigned ntx;
    uint8_t last_tx[64];
};

static int fx_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct fx *f = ctx;
    if (addr < MEM_BASE || addr + len > MEM_BASE + MEM_SIZE) {
        return -1;
    }
    memcpy(buf, f->mem + (addr - MEM_BASE), len);
    return 0;
}

static int fx_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    struct fx *f = ctx;
    if (addr < MEM_BASE || addr + len > MEM_BASE + MEM_SIZE) {
        return -1;
    }
    memcpy(f->mem + (addr - MEM_BASE), buf, len);
    return 0;
}

static void fx_tx(void *ctx, const uint8_t *frame, size_t len)
{
    struct fx *f = ctx;
    f->ntx++;
    memcpy(f->last_tx, frame, len < sizeof(f->last_tx) ? len : sizeof(f->last_tx));
}

static void fx_misuse(void *ctx, const char *msg)
{
    (void)ctx;
    fail_msg("unexpected misuse: %s", msg);
}

static int fx_setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    struct ixgbe_model_ops ops = {.dma_read = fx_read, .dma_write = fx_write,
                                  .tx_frame = fx_tx, .misuse = fx_misuse};
    assert_non_null(f);
    ops.ctx = f;
    f->mem = calloc(1, MEM_SIZE);
    f->m = ixgbe_model_new(&ops, MAC0);
    assert_non_null(f->m);
    adv(f, IXGBE_MODEL_LINK_UP_NS); /* the SR optic links as it comes */
    *state = f;
    return 0;
}

static int fx_teardown(void **state)
{
    struct fx *f = *state;
    ixgbe_model_free(f->m);
    free(f->mem);
    free(f);
    return 0;
}

/* TX queue 0 with 8 descriptors at MEM_BASE, each a 60-byte frame at MEM_BASE + 0x1000. */
static void tx_ring(struct fx *f)
{
    for (unsigned i = 0; i < 8; i++) {
        uint64_t d[2] = {MEM_BASE + 0x1000,
                         60u | 0x00300000u /* data */ | 0x01000000u /* EOP */ |
                             0x02000000u /* IFCS */ | 0x08000000u /* RS */ |
                             0x20000000u /* DEXT */ | (uint64_t)(60u << 14) << 32};
        memcpy(f->mem + 16 * i, d, sizeof(d));
    }
    wr(f, T_TDBAL, (uint32_t)MEM_BASE);
    wr(f, T_TDLEN, 8 * 16 * 8); /* 128-byte multiple: 64 descriptors' room, 8 used */
    wr(f, T_TXDCTL, T_QUEUE_ENABLE);
    wr(f, T_DMATXCTL, 1);
    adv(f, 1);
}

static void pause_frame(uint8_t *b, uint16_t quanta)
{
    static const uint8_t hdr[] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01, 0x02, 0, 0, 0, 0, 9,
                                  0x88, 0x08, 0x00, 0x01};
    memset(b, 0, 60);
    memcpy(b, hdr, sizeof(hdr));
    b[16] = (uint8_t)(quanta >> 8);
    b[17] = (uint8_t)quanta;
}

static void test_xoff_holds_tx_for_its_time_xon_releases(void **state)
{
    struct fx *f = *state;
    uint8_t p[60];
    tx_ring(f);
    wr(f, T_MFLCN, T_MFLCN_RFCE | T_MFLCN_DPF);
    wr(f, T_TDT, 1);
    assert_int_equal(f->ntx, 1);

    pause_frame(p, 1000); /* 1000 quanta at 10G: 51.2 us */
    assert_int_equal(ixgbe_model_inject(f->m, p, sizeof(p)), 0);
    wr(f, T_TDT, 2);
    assert_int_equal(f->ntx, 1); /* held */
    adv(f, 51000);
    assert_int_equal(f->ntx, 1);
    assert_true(ixgbe_model_next_event(f->m) <= f->now + 200);
    adv(f, 300);
    assert_int_equal(f->ntx, 2); /* the pause ran out: TX went on by itself */

    pause_frame(p, 0xFFFF);
    ixgbe_model_inject(f->m, p, sizeof(p));
    wr(f, T_TDT, 3);
    assert_int_equal(f->ntx, 2);
    pause_frame(p, 0); /* XON */
    ixgbe_model_inject(f->m, p, sizeof(p));
    assert_int_equal(f->ntx, 3);

    assert_int_equal(rd(f, T_LXOFFRXCNT), 2);
    assert_int_equal(rd(f, T_LXONRXCNT), 1);
    assert_int_equal(rd(f, T_GPRC), 0); /* consumed by the MAC, not good frames */
    struct ixgbe_model_counters c;
    ixgbe_model_counters(f->m, &c);
    assert_int_equal(c.rx_pause, 3);
}

static void test_without_rfce_pause_is_counted_not_obeyed(void **state)
{
    struct fx *f = *state;
    uint8_t p[60];
    tx_ring(f);
    pause_frame(p, 0xFFFF);
    ixgbe_model_inject(f->m, p, sizeof(p));
    wr(f, T_TDT, 1);
    assert_int_equal(f->ntx, 1);
    assert_int_equal(rd(f, T_LXOFFRXCNT), 1);
}

static void test_full_buffer_sends_xoff_then_xon(void **state)
{
    struct fx *f = *state;
    uint8_t frame[1000];
    memset(frame, 0x5A, sizeof(frame));
    memcpy(frame, MAC0, 6);
    frame[12] = 0x08, frame[13] = 0x00;
    /* RX queue 0 enabled with no descriptors and DROP_EN off: frames wait in the buffer */
    wr(f, T_RDBAL, (uint32_t)MEM_BASE + 0xC000);
    wr(f, T_RDLEN, 16 * 16);
    wr(f, T_SRRCTL, 0x02000000u /* advanced, one buffer */ | 2 /* 2 KiB */); /* no DROP_EN */
    wr(f, T_RXDCTL, T_QUEUE_ENABLE);
    adv(f, 1);
    wr(f, T_RXCTRL, 1);
    wr(f, T_FCCFG, 0x8);
    wr(f, T_FCTTV, 0x0000FFFF);
    wr(f, T_FCRTH, 0x80000000u | 20480); /* XOFF at 20 KiB */
    wr(f, T_FCRTL, 0x80000000u | 10240); /* XON at 10 KiB */
    (void)rd(f, T_GPTC);
    for (unsigned i = 0; i < 20; i++) {
        assert_int_equal(ixgbe_model_inject(f->m, frame, sizeof(frame)), 0);
    }
    assert_int_equal(f->ntx, 0);
    ixgbe_model_inject(f->m, frame, sizeof(frame)); /* 21 000 bytes: above 20 KiB */
    assert_int_equal(f->ntx, 1);
    static const uint8_t want[18] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01, 0x00, 0x1b, 0x21,
                                     0x0a, 0x0b, 0x0c, 0x88, 0x08, 0x00, 0x01, 0xFF, 0xFF};
    assert_memory_equal(f->last_tx, want, sizeof(want));
    ixgbe_model_inject(f->m, frame, sizeof(frame));
    assert_int_equal(f->ntx, 1); /* one XOFF, not one per frame */
    assert_int_equal(rd(f, T_LXOFFTXC), 1);
    assert_int_equal(rd(f, T_GPTC), 1); /* the 82599 counts its PAUSE frames as sent frames */

    /* the driver posts descriptors: the buffer drains, XON below 10 KiB */
    for (unsigned i = 0; i < 15; i++) {
        uint64_t d[2] = {MEM_BASE + 0x800 * (i + 1), 0};
        memcpy(f->mem + 0xC000 + 16 * i, d, sizeof(d));
    }
    wr(f, 0x01018 /* RDT */, 15); /* 15 of 22 frames out: 7000 bytes left, below 10 KiB */
    assert_int_equal(rd(f, T_LXONTXC), 1);
    assert_int_equal(f->ntx, 2);
    assert_int_equal(f->last_tx[16] | f->last_tx[17], 0); /* XON: pause time 0 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_xoff_holds_tx_for_its_time_xon_releases, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_without_rfce_pause_is_counted_not_obeyed, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_full_buffer_sends_xoff_then_xon, fx_setup,
                                        fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
