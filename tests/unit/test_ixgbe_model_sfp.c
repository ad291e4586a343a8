/*
 * tests/unit/test_ixgbe_model_sfp.c: the 82599 model's SFP+ cage (tests/model/ixgbe_model_sfp.c)
 * driven by hand: a bit-banged I2C master reads each module's SFF-8472 page, and the link comes
 * up only when the module, its laser, the mode and the NVM init sequence it needs are there.
 * Register offsets are the test's own (Linux ixgbe_type.h addresses), not the model's macros.
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

#define T_CTRL 0x00000
#define T_CTRL_LRST 0x8u
#define T_CTRL_RST 0x04000000u
#define T_ESDP 0x00020
#define T_ESDP_SDP2 0x4u
#define T_ESDP_SDP3 0x8u
#define T_ESDP_SDP3_DIR 0x800u
#define T_I2CCTL 0x00028
#define T_I2C_CLK_IN 0x1u
#define T_I2C_CLK_OUT 0x2u
#define T_I2C_DATA_IN 0x4u
#define T_I2C_DATA_OUT 0x8u
#define T_EICR 0x00800
#define T_EICR_GPI_SDP2 0x04000000u
#define T_GPIE 0x00898
#define T_GPIE_SDP2_GPIEN 0x4u
#define T_EERD 0x10014
#define T_AUTOC 0x042A0
#define T_AUTOC_RESTART 0x1000u
#define T_AUTOC_LMS_MASK 0xE000u
#define T_AUTOC_LMS_1G_AN 0x4000u
#define T_LINKS 0x042A4
#define T_LINKS_UP 0x40000000u
#define T_LINKS_SPEED 0x30000000u
#define T_AUTOC2 0x042A8
#define T_MMNGC 0x042D0
#define T_ANLP1 0x042B0
#define T_ANLP1_AN_STATE 0x000F0000u
#define T_CORECTL 0x014F00

static const uint8_t MAC0[6] = {0x00, 0x1b, 0x21, 0x0a, 0x0b, 0x0c};

struct fx {
    struct ixgbe_model *m;
    uint64_t now;
    unsigned misuse;
    bool expect_misuse;
};

static int fx_dma(void *ctx, uint64_t addr, void *buf, size_t len)
{
    (void)ctx, (void)addr, (void)buf, (void)len;
    return -1; /* these tests do no DMA */
}

static int fx_dma_w(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    (void)ctx, (void)addr, (void)buf, (void)len;
    return -1;
}

static void fx_misuse(void *ctx, const char *msg)
{
    struct fx *f = ctx;
    f->misuse++;
    if (!f->expect_misuse) {
        fail_msg("unexpected misuse: %s", msg);
    }
}

static struct fx *fx_new(enum ixgbe_model_module module, bool laser_off, bool veto)
{
    struct fx *f = calloc(1, sizeof(*f));
    struct ixgbe_model_ops ops = {.dma_read = fx_dma, .dma_write = fx_dma_w,
                                  .misuse = fx_misuse, .ctx = f};
    struct ixgbe_model_config cfg = {.autoc = IXGBE_MODEL_AUTOC_SFI,
                                     .autoc2 = IXGBE_MODEL_AUTOC2_SFI,
                                     .sfp_cage = true,
                                     .module = module,
                                     .laser_off = laser_off,
                                     .mng_veto = veto};
    assert_non_null(f);
    memcpy(cfg.mac, MAC0, 6);
    f->m = ixgbe_model_new_config(&ops, &cfg);
    assert_non_null(f->m);
    return f;
}

static void fx_free(struct fx *f)
{
    ixgbe_model_free(f->m);
    free(f);
}

static bool link_up(struct fx *f)
{
    return (rd(f, T_LINKS) & T_LINKS_UP) != 0;
}

/* After a full training time: is the link up? */
static bool link_after_training(struct fx *f)
{
    adv(f, IXGBE_MODEL_LINK_UP_NS);
    return link_up(f);
}

static void restart_link(struct fx *f)
{
    wr(f, T_AUTOC, rd(f, T_AUTOC) | T_AUTOC_RESTART);
}

/* ---- a bit-banged I2C master, as a driver would be ------------------------------------ */

static void i2c_lines(struct fx *f, bool scl, bool sda)
{
    wr(f, T_I2CCTL, (scl ? T_I2C_CLK_OUT : 0) | (sda ? T_I2C_DATA_OUT : 0));
}

static bool i2c_sda(struct fx *f)
{
    return (rd(f, T_I2CCTL) & T_I2C_DATA_IN) != 0;
}

static void i2c_start(struct fx *f)
{
    i2c_lines(f, false, true);
    i2c_lines(f, true, true);
    i2c_lines(f, true, false);
    i2c_lines(f, false, false);
}

static void i2c_stop(struct fx *f)
{
    i2c_lines(f, false, false);
    i2c_lines(f, true, false);
    i2c_lines(f, true, true);
}

/* Clock one bit out (the master drives SDA); returns what SDA read while SCL was high. */
static bool i2c_bit(struct fx *f, bool bit)
{
    i2c_lines(f, false, bit);
    i2c_lines(f, true, bit);
    bool seen = i2c_sda(f);
    i2c_lines(f, false, bit);
    return seen;
}

/* Send a byte; true if the slave ACKed it. */
static bool i2c_send(struct fx *f, uint8_t b)
{
    for (int i = 7; i >= 0; i--) {
        i2c_bit(f, (b >> i) & 1);
    }
    return !i2c_bit(f, true); /* released: the slave pulls SDA low to ACK */
}

static uint8_t i2c_recv(struct fx *f, bool ack)
{
    uint8_t b = 0;
    for (int i = 0; i < 8; i++) {
        b = (uint8_t)(b << 1 | (i2c_bit(f, true) ? 1 : 0));
    }
    i2c_bit(f, !ack);
    return b;
}

/* Read n bytes of device dev (0xA0/0xA2) from off: -1 if any address byte was not ACKed. */
static int i2c_read(struct fx *f, uint8_t dev, uint8_t off, uint8_t *out, unsigned n)
{
    i2c_start(f);
    bool ok = i2c_send(f, dev) && i2c_send(f, off);
    i2c_start(f); /* repeated START */
    ok = ok && i2c_send(f, dev | 1);
    for (unsigned i = 0; ok && i < n; i++) {
        out[i] = i2c_recv(f, i + 1 < n);
    }
    i2c_stop(f);
    return ok ? 0 : -1;
}

static uint16_t eerd(struct fx *f, unsigned word)
{
    wr(f, T_EERD, (uint32_t)word << 2 | 1);
    return (uint16_t)(rd(f, T_EERD) >> 16);
}

/* Write the NVM's init sequence for SFP id `id` to CORECTL, as Linux's reading of the list
 * does: word 0x2B points at the list, whose first word is skipped; {id, data} pairs follow. */
static void load_sequence(struct fx *f, uint16_t id)
{
    unsigned list = eerd(f, 0x2B);
    for (unsigned p = list + 1; eerd(f, p) != 0xFFFF; p += 2) {
        if (eerd(f, p) == id) {
            for (unsigned d = eerd(f, p + 1) + 1; eerd(f, d) != 0xFFFF; d++) {
                wr(f, T_CORECTL, eerd(f, d));
            }
            return;
        }
    }
    fail_msg("no sequence for id %u", id);
}

/* ---- tests ------------------------------------------------------------------------------ */

static void test_i2c_reads_every_module_page(void **state)
{
    (void)state;
    for (unsigned k = IXGBE_MODEL_MODULE_SR; k < IXGBE_MODEL_MODULE_COUNT; k++) {
        struct fx *f = fx_new((enum ixgbe_model_module)k, false, false);
        uint8_t want[IXGBE_MODEL_MODULE_BYTES], got[96], a2[4];
        ixgbe_model_module_image((enum ixgbe_model_module)k, want);
        assert_int_equal(want[0], 0x03); /* an SFP */
        unsigned sum = 0;
        for (unsigned i = 0; i < 63; i++) {
            sum += want[i];
        }
        assert_int_equal(want[63], sum & 0xFF); /* CC_BASE */
        assert_int_equal(i2c_read(f, 0xA0, 0, got, sizeof(got)), 0);
        assert_memory_equal(got, want, sizeof(got));
        assert_int_equal(i2c_read(f, 0xA0, 40, got, 16), 0); /* the part number, by offset */
        assert_memory_equal(got, want + 40, 16);
        assert_int_equal(i2c_read(f, 0xA2, 0, a2, sizeof(a2)), 0); /* diagnostics: zeros */
        assert_int_equal(a2[0] | a2[1] | a2[2] | a2[3], 0);
        assert_int_equal(i2c_read(f, 0xA4, 0, a2, 1), -1); /* nobody at A4h */
        assert_int_equal(ixgbe_model_module_by_name(ixgbe_model_module_name(k)), k);
        fx_free(f);
    }
}

static void test_empty_cage_acks_nothing_and_has_no_link(void **state)
{
    (void)state;
    struct fx *f = fx_new(IXGBE_MODEL_MODULE_NONE, false, false);
    uint8_t b;
    assert_int_equal(i2c_read(f, 0xA0, 0, &b, 1), -1);
    assert_int_equal(rd(f, T_ESDP) & T_ESDP_SDP2, 0);
    assert_false(link_after_training(f));
    assert_false(ixgbe_model_laser_on(f->m));
    fx_free(f);
}

static void test_sr_links_as_it_comes_and_drops_with_the_laser(void **state)
{
    (void)state;
    struct fx *f = fx_new(IXGBE_MODEL_MODULE_SR, false, false);
    assert_true(link_after_training(f));
    assert_int_equal(rd(f, T_LINKS) & T_LINKS_SPEED, 0x30000000u); /* 10G */
    assert_int_equal(rd(f, T_ESDP) & T_ESDP_SDP2, T_ESDP_SDP2);  /* present */
    wr(f, T_ESDP, rd(f, T_ESDP) | T_ESDP_SDP3);                   /* TX_DISABLE */
    assert_false(link_up(f));
    wr(f, T_ESDP, (rd(f, T_ESDP) & ~T_ESDP_SDP3) | T_ESDP_SDP3_DIR); /* on again: no restart */
    assert_true(link_after_training(f));
    wr(f, T_ESDP, rd(f, T_ESDP) & ~(T_ESDP_SDP3 | T_ESDP_SDP3_DIR)); /* an input: pulled up */
    assert_false(link_up(f));
    fx_free(f);
}

static void test_laser_left_off_survives_reset(void **state)
{
    (void)state;
    struct fx *f = fx_new(IXGBE_MODEL_MODULE_SR, true, false);
    assert_false(link_after_training(f));
    wr(f, T_CTRL, T_CTRL_RST | T_CTRL_LRST);
    adv(f, IXGBE_MODEL_RESET_NS);
    assert_int_equal(rd(f, T_ESDP) & T_ESDP_SDP3, T_ESDP_SDP3); /* still driving TX_DISABLE */
    assert_false(link_after_training(f));
    wr(f, T_ESDP, rd(f, T_ESDP) & ~T_ESDP_SDP3);
    assert_true(link_after_training(f));
    fx_free(f);
}

static void test_passive_da_needs_its_sequence(void **state)
{
    (void)state;
    struct fx *f = fx_new(IXGBE_MODEL_MODULE_DA_PASSIVE, false, false);
    assert_false(link_after_training(f));
    load_sequence(f, 5); /* the SR/LR one: wrong for a cable */
    assert_int_equal(ixgbe_model_sfp_sequence(f->m), 5);
    restart_link(f);
    assert_false(link_after_training(f));
    load_sequence(f, 3); /* passive DA, LAN 0 */
    assert_int_equal(ixgbe_model_sfp_sequence(f->m), 3);
    assert_false(link_after_training(f)); /* loaded, not applied: the DSP restarts on AUTOC */
    restart_link(f);
    assert_true(link_after_training(f));
    fx_free(f);
}

static void test_one_gig_module_needs_one_gig_mode(void **state)
{
    (void)state;
    struct fx *f = fx_new(IXGBE_MODEL_MODULE_1G_SX, false, false);
    load_sequence(f, 5);
    restart_link(f);
    assert_false(link_after_training(f)); /* 10G SFI: never */
    wr(f, T_AUTOC, (rd(f, T_AUTOC) & ~T_AUTOC_LMS_MASK) | T_AUTOC_LMS_1G_AN | T_AUTOC_RESTART);
    assert_true(link_after_training(f));
    assert_int_equal(rd(f, T_LINKS) & T_LINKS_SPEED, 0x20000000u); /* 1G */
    fx_free(f);
}

static void test_dual_rate_follows_rate_select(void **state)
{
    (void)state;
    struct fx *f = fx_new(IXGBE_MODEL_MODULE_SR_DUAL, false, false);
    assert_false(link_after_training(f)); /* rate select low at power-on: a 1G optic */
    wr(f, T_ESDP, rd(f, T_ESDP) | 0x2000u | 0x20u); /* SDP5 an output, high: 10G */
    assert_true(link_after_training(f));
    assert_int_equal(rd(f, T_LINKS) & T_LINKS_SPEED, 0x30000000u);
    wr(f, T_ESDP, rd(f, T_ESDP) & ~0x20u); /* back to 1G while the MAC runs 10G */
    assert_false(link_up(f));
    wr(f, T_AUTOC, (rd(f, T_AUTOC) & ~T_AUTOC_LMS_MASK) | T_AUTOC_LMS_1G_AN | T_AUTOC_RESTART);
    assert_true(link_after_training(f));
    assert_int_equal(rd(f, T_LINKS) & T_LINKS_SPEED, 0x20000000u);
    fx_free(f);
}

static void test_removal_and_insertion(void **state)
{
    (void)state;
    struct fx *f = fx_new(IXGBE_MODEL_MODULE_SR, false, false);
    wr(f, T_GPIE, T_GPIE_SDP2_GPIEN);
    assert_true(link_after_training(f));
    (void)rd(f, T_EICR);
    ixgbe_model_set_module(f->m, IXGBE_MODEL_MODULE_NONE);
    assert_false(link_up(f));
    assert_int_equal(rd(f, T_ESDP) & T_ESDP_SDP2, 0);
    assert_int_equal(rd(f, T_EICR) & T_EICR_GPI_SDP2, T_EICR_GPI_SDP2);
    ixgbe_model_set_module(f->m, IXGBE_MODEL_MODULE_LR);
    assert_int_equal(rd(f, T_EICR) & T_EICR_GPI_SDP2, T_EICR_GPI_SDP2);
    assert_true(link_after_training(f)); /* an optic in SFI mode locks by itself */
    ixgbe_model_set_module(f->m, IXGBE_MODEL_MODULE_DA_PASSIVE); /* swapped for a cable */
    assert_false(link_after_training(f));
    fx_free(f);
}

static void test_link_disable_bits_and_mng_veto(void **state)
{
    (void)state;
    struct fx *f = fx_new(IXGBE_MODEL_MODULE_SR, false, false);
    assert_true(link_after_training(f));
    wr(f, T_AUTOC2, rd(f, T_AUTOC2) | 0x50000000u); /* link disabled (on D3) */
    assert_false(link_up(f));
    restart_link(f);
    assert_false(link_after_training(f));
    wr(f, T_AUTOC2, rd(f, T_AUTOC2) & ~0x70000000u);
    restart_link(f);
    assert_true(link_after_training(f));
    fx_free(f);

    f = fx_new(IXGBE_MODEL_MODULE_SR, false, true);
    assert_int_equal(rd(f, T_MMNGC) & 1, 1);
    assert_true(link_after_training(f));
    f->expect_misuse = true;
    uint32_t autoc = rd(f, T_AUTOC);
    restart_link(f);
    assert_int_equal(f->misuse, 1);
    assert_true(link_up(f)); /* refused: the link stayed */
    assert_int_equal(rd(f, T_AUTOC), autoc);
    wr(f, T_CTRL, T_CTRL_RST | T_CTRL_LRST); /* a link reset becomes a MAC reset */
    assert_int_equal(f->misuse, 2);
    adv(f, IXGBE_MODEL_RESET_NS);
    assert_true(link_up(f));
    fx_free(f);
}

static void test_anlp1_state_leaves_zero_on_restart(void **state)
{
    (void)state;
    struct fx *f = fx_new(IXGBE_MODEL_MODULE_SR, false, false);
    wr(f, T_CTRL, T_CTRL_RST);
    adv(f, IXGBE_MODEL_RESET_NS);
    assert_int_equal(rd(f, T_ANLP1) & T_ANLP1_AN_STATE, 0);
    restart_link(f);
    assert_int_not_equal(rd(f, T_ANLP1) & T_ANLP1_AN_STATE, 0);
    fx_free(f);
}

static void test_corrupt_module_page(void **state)
{
    (void)state;
    struct fx *f = fx_new(IXGBE_MODEL_MODULE_SR, false, false);
    uint8_t b[64];
    ixgbe_model_module_corrupt(f->m);
    assert_int_equal(i2c_read(f, 0xA0, 0, b, sizeof(b)), 0);
    unsigned sum = 0;
    for (unsigned i = 0; i < 63; i++) {
        sum += b[i];
    }
    assert_int_not_equal(b[63], sum & 0xFF);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_i2c_reads_every_module_page),
        cmocka_unit_test(test_empty_cage_acks_nothing_and_has_no_link),
        cmocka_unit_test(test_sr_links_as_it_comes_and_drops_with_the_laser),
        cmocka_unit_test(test_laser_left_off_survives_reset),
        cmocka_unit_test(test_passive_da_needs_its_sequence),
        cmocka_unit_test(test_one_gig_module_needs_one_gig_mode),
        cmocka_unit_test(test_dual_rate_follows_rate_select),
        cmocka_unit_test(test_removal_and_insertion),
        cmocka_unit_test(test_link_disable_bits_and_mng_veto),
        cmocka_unit_test(test_anlp1_state_leaves_zero_on_restart),
        cmocka_unit_test(test_corrupt_module_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
