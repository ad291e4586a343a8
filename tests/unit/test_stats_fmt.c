/* tests/unit/test_stats_fmt.c: the counter views' pure parts: JSON writer, thousands separators,
 * rates, hardware counter wrap, and summation across cores. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "apps/stats/fmt.h"
#include "apps/stats/json.h"

static void test_json_document(void **state)
{
    (void)state;
    char buf[256];
    struct jw w;
    jw_init(&w, buf, sizeof(buf));
    jw_begin_object(&w, NULL);
    jw_u64(&w, "zero", 0);
    jw_u64(&w, "max", UINT64_MAX);
    jw_bool(&w, "up", true);
    jw_str(&w, "name", "port\"0\\\n");
    jw_begin_array(&w, "queues");
    jw_begin_object(&w, NULL);
    jw_u64(&w, "rx", 1);
    jw_end_object(&w);
    jw_begin_object(&w, NULL);
    jw_end_object(&w);
    jw_end_array(&w);
    jw_begin_array(&w, "empty");
    jw_end_array(&w);
    jw_end_object(&w);
    assert_true(jw_ok(&w));
    assert_string_equal(buf, "{\"zero\":0,\"max\":18446744073709551615,\"up\":true,"
                             "\"name\":\"port\\\"0\\\\\\u000a\",\"queues\":[{\"rx\":1},{}],"
                             "\"empty\":[]}");
}

static void test_json_overflow_never_writes_past_buffer(void **state)
{
    (void)state;
    for (size_t cap = 0; cap < 40; cap++) {
        char buf[64];
        memset(buf, 'X', sizeof(buf));
        struct jw w;
        jw_init(&w, buf, cap);
        jw_begin_object(&w, NULL);
        jw_u64(&w, "counter", UINT64_MAX);
        jw_end_object(&w);
        for (size_t i = cap; i < sizeof(buf); i++) {
            assert_int_equal(buf[i], 'X');
        }
        assert_int_equal(jw_ok(&w), cap > strlen("{\"counter\":18446744073709551615}"));
    }
}

static void test_json_unbalanced_is_not_ok(void **state)
{
    (void)state;
    char buf[64];
    struct jw w;
    jw_init(&w, buf, sizeof(buf));
    jw_begin_object(&w, NULL);
    assert_false(jw_ok(&w));
    jw_end_object(&w);
    jw_end_object(&w); /* one too many */
    assert_false(jw_ok(&w));
}

static void test_grouped(void **state)
{
    (void)state;
    static const struct {
        uint64_t v;
        const char *s;
    } cases[] = {
        { 0, "0" },           { 7, "7" },           { 999, "999" },
        { 1000, "1,000" },    { 12345, "12,345" },  { 999999, "999,999" },
        { 1000000, "1,000,000" },
        { UINT64_MAX, "18,446,744,073,709,551,615" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char out[FMT_U64_GROUPED_BYTES];
        size_t n = fmt_u64_grouped(out, cases[i].v);
        assert_string_equal(out, cases[i].s);
        assert_int_equal(n, strlen(cases[i].s));
    }
}

static void test_rate(void **state)
{
    (void)state;
    assert_int_equal(fmt_rate_per_sec(1000, 1000000000ULL), 1000);
    assert_int_equal(fmt_rate_per_sec(1000, 500000000ULL), 2000);
    assert_int_equal(fmt_rate_per_sec(1, 3000000000ULL), 0);  /* 0.33/s rounds to 0 */
    assert_int_equal(fmt_rate_per_sec(2, 3000000000ULL), 1);  /* 0.67/s rounds to 1 */
    assert_int_equal(fmt_rate_per_sec(5, 0), 0);
    /* no overflow in the intermediate: 2^64-1 events in one second */
    assert_true(fmt_rate_per_sec(UINT64_MAX, 1000000000ULL) == UINT64_MAX);
    assert_true(fmt_rate_per_sec(UINT64_MAX, 1) == UINT64_MAX); /* saturates */
}

static void test_hw_counter_wrap(void **state)
{
    (void)state;
    /* 32-bit */
    assert_int_equal(hwcount_delta(10, 25, 32), 15);
    assert_int_equal(hwcount_delta(0xFFFFFFF0ULL, 0x10, 32), 0x20);
    /* 36-bit octet counters of the 82599 */
    assert_int_equal(hwcount_delta(0xFFFFFFFFFULL - 5, 4, 36), 10);
    assert_int_equal(hwcount_delta(0x123456789ULL, 0x123456789ULL, 36), 0);
    /* 48-bit */
    assert_true(hwcount_delta(0xFFFFFFFFFFFFULL, 0, 48) == 1);
    /* bits above the width (a bad read) do not leak into the delta */
    assert_int_equal(hwcount_delta(0, 0xF00000005ULL, 32), 5);
    /* accumulate a counter that wraps many times into a 64-bit total */
    uint64_t total = 0, prev = 0, hw = 0;
    for (int i = 0; i < 100000; i++) {
        hw = (hw + 123457) & 0xFFFFFULL; /* a 20-bit counter */
        total += hwcount_delta(prev, hw, 20);
        prev = hw;
    }
    assert_true(total == 100000ULL * 123457);
}

struct per_core {
    uint64_t rx, tx;
    char pad[48]; /* one cache line each, as the firmware's counters */
};

static void test_sum_across_cores(void **state)
{
    (void)state;
    struct per_core c[8];
    memset(c, 0, sizeof(c));
    for (int i = 0; i < 8; i++) {
        c[i].rx = (uint64_t)i * 1000;
        c[i].tx = UINT64_MAX / 16;
    }
    assert_int_equal(stats_sum_u64(c, sizeof(c[0]), 8, offsetof(struct per_core, rx)), 28000);
    assert_true(stats_sum_u64(c, sizeof(c[0]), 8, offsetof(struct per_core, tx)) ==
                (UINT64_MAX / 16) * 8);
    assert_int_equal(stats_sum_u64(c, sizeof(c[0]), 0, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_document),
        cmocka_unit_test(test_json_overflow_never_writes_past_buffer),
        cmocka_unit_test(test_json_unbalanced_is_not_ok),
        cmocka_unit_test(test_grouped),
        cmocka_unit_test(test_rate),
        cmocka_unit_test(test_hw_counter_wrap),
        cmocka_unit_test(test_sum_across_cores),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
