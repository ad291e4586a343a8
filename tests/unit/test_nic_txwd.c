/*
 * tests/unit/test_nic_txwd.c: the TX hang watchdog's decision (drivers/nic/nic_txwd.h), sampled
 * every 100 ms as core 0's housekeeping does: a stuck queue is reported after the bound and not
 * before; progress of either the NIC's head or the owner's completions, an empty queue, or a
 * link that is down restarts the clock; whole laps of a busy ring are not mistaken for a hang.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "drivers/nic/nic_txwd.h"

#define TICK_NS 100000000ULL /* housekeeping: 10 Hz */
#define T0_NS 5000000000ULL

/* samples: how many 100 ms samples (from T0) of a queue frozen at head/tail/done until the
 * watchdog fires; 0 if it never does within limit. */
static unsigned samples_until_hang(struct nic_txwd *w, uint32_t head, uint32_t tail,
                                   uint64_t done, bool link, unsigned limit)
{
    for (unsigned i = 0; i < limit; i++) {
        if (nic_txwd_sample(w, head, tail, done, link, T0_NS + i * TICK_NS, NIC_TX_HANG_NS)) {
            return i + 1;
        }
    }
    return 0;
}

static void test_stuck_queue_fires_after_the_bound(void **state)
{
    (void)state;
    struct nic_txwd w = { 0 };
    /* First sample starts the clock at T0; the one at T0 + 1000 ms is the 11th. */
    assert_int_equal(samples_until_hang(&w, 17, 40, 1234, true, 100), 11);
    /* and it keeps saying so while nothing changes */
    assert_true(nic_txwd_sample(&w, 17, 40, 1234, true, T0_NS + 20 * TICK_NS, NIC_TX_HANG_NS));
}

static void test_never_before_the_bound(void **state)
{
    (void)state;
    struct nic_txwd w = { 0 };
    for (uint64_t t = 0; t < NIC_TX_HANG_NS; t += TICK_NS / 4) {
        assert_false(nic_txwd_sample(&w, 3, 9, 0, true, T0_NS + t, NIC_TX_HANG_NS));
    }
    assert_true(nic_txwd_sample(&w, 3, 9, 0, true, T0_NS + NIC_TX_HANG_NS, NIC_TX_HANG_NS));
}

static void test_empty_queue_never_hangs(void **state)
{
    (void)state;
    struct nic_txwd w = { 0 };
    assert_int_equal(samples_until_hang(&w, 100, 100, 7, true, 1000), 0);
}

static void test_link_down_is_not_a_hang(void **state)
{
    (void)state;
    struct nic_txwd w = { 0 };
    assert_int_equal(samples_until_hang(&w, 5, 50, 7, false, 1000), 0);
    /* Link back, still stuck: the clock starts at the first sample with the link up. */
    uint64_t t = T0_NS + 2000 * TICK_NS;
    for (unsigned i = 0; i < 10; i++) {
        assert_false(nic_txwd_sample(&w, 5, 50, 7, true, t + i * TICK_NS, NIC_TX_HANG_NS));
    }
    assert_true(nic_txwd_sample(&w, 5, 50, 7, true, t + 10 * TICK_NS, NIC_TX_HANG_NS));
}

static void test_progress_restarts_the_clock(void **state)
{
    (void)state;
    struct nic_txwd w = { 0 };
    uint64_t t = T0_NS;
    uint32_t head = 0;
    uint64_t done = 0;
    /* A slow queue: the head moves one descriptor every 900 ms: never hung. */
    for (unsigned i = 0; i < 100; i++, t += TICK_NS) {
        if (i % 9 == 0) {
            head++;
        }
        assert_false(nic_txwd_sample(&w, head, head + 10, done, true, t, NIC_TX_HANG_NS));
    }
    /* Only completions move (TDH reads the same value after whole laps of the ring). */
    for (unsigned i = 0; i < 100; i++, t += TICK_NS) {
        done += 512;
        assert_false(nic_txwd_sample(&w, head, head + 10, done, true, t, NIC_TX_HANG_NS));
    }
    /* Only the head moves (the owning core is slow to reclaim): not the NIC's fault. */
    for (unsigned i = 0; i < 100; i++, t += TICK_NS) {
        head += 3;
        assert_false(nic_txwd_sample(&w, head, head + 10, done, true, t, NIC_TX_HANG_NS));
    }
}

static void test_queue_drained_then_stuck_again(void **state)
{
    (void)state;
    struct nic_txwd w = { 0 };
    uint64_t t = T0_NS;
    for (unsigned i = 0; i < 9; i++, t += TICK_NS) {
        assert_false(nic_txwd_sample(&w, 1, 2, 0, true, t, NIC_TX_HANG_NS));
    }
    /* empty for one sample: the next stand-still is measured afresh */
    assert_false(nic_txwd_sample(&w, 2, 2, 1, true, t, NIC_TX_HANG_NS));
    t += TICK_NS;
    for (unsigned i = 0; i < 10; i++, t += TICK_NS) {
        assert_false(nic_txwd_sample(&w, 2, 3, 1, true, t, NIC_TX_HANG_NS));
    }
    assert_true(nic_txwd_sample(&w, 2, 3, 1, true, t, NIC_TX_HANG_NS));
}

static void test_forget_after_reset(void **state)
{
    (void)state;
    struct nic_txwd w = { 0 };
    assert_int_equal(samples_until_hang(&w, 9, 11, 0, true, 100), 11);
    nic_txwd_forget(&w);
    /* The same stuck values after a reset get the whole bound again, not an instant verdict. */
    assert_false(nic_txwd_sample(&w, 9, 11, 0, true, T0_NS + 50 * TICK_NS, NIC_TX_HANG_NS));
    assert_false(nic_txwd_sample(&w, 9, 11, 0, true, T0_NS + 59 * TICK_NS, NIC_TX_HANG_NS));
    assert_true(nic_txwd_sample(&w, 9, 11, 0, true, T0_NS + 60 * TICK_NS, NIC_TX_HANG_NS));
}

static void test_irregular_samples(void **state)
{
    (void)state;
    /* `stats` runs housekeeping too: extra samples in between change nothing. */
    struct nic_txwd w = { 0 };
    uint64_t t = T0_NS;
    assert_false(nic_txwd_sample(&w, 4, 8, 0, true, t, NIC_TX_HANG_NS));
    for (unsigned i = 1; i < 1000; i++) {
        assert_false(nic_txwd_sample(&w, 4, 8, 0, true, t + i * 1000000ULL, NIC_TX_HANG_NS));
    }
    assert_true(nic_txwd_sample(&w, 4, 8, 0, true, t + 1000 * 1000000ULL, NIC_TX_HANG_NS));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stuck_queue_fires_after_the_bound),
        cmocka_unit_test(test_never_before_the_bound),
        cmocka_unit_test(test_empty_queue_never_hangs),
        cmocka_unit_test(test_link_down_is_not_a_hang),
        cmocka_unit_test(test_progress_restarts_the_clock),
        cmocka_unit_test(test_queue_drained_then_stuck_again),
        cmocka_unit_test(test_forget_after_reset),
        cmocka_unit_test(test_irregular_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
