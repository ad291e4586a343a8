/*
 * tests/unit/test_memmap.c: memmap_add/normalize/reserve/find_free on hand-made maps and on
 * random ones checked against a brute-force model.
 * Build: gcc -std=gnu11 -g -O1 -Wall -Wextra -Werror -fsanitize=address,undefined
 *        -fno-sanitize-recover=all -Ikernel tests/unit/test_memmap.c kernel/memmap.c
 *        kernel/err.c -lcmocka
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "err.h"
#include "memmap.h"

#define KIB 1024ULL
#define MIB (1024 * KIB)
#define GIB (1024 * MIB)

static void expect_region(const struct memmap *mm, unsigned i, uint64_t base, uint64_t len,
                          uint32_t type)
{
    assert_true(i < mm->n);
    assert_int_equal(mm->r[i].base, base);
    assert_int_equal(mm->r[i].len, len);
    assert_int_equal(mm->r[i].type, type);
}

/* Type of the normalized map at address a, 0 if no region covers it. */
static uint32_t type_at(const struct memmap *mm, uint64_t a)
{
    for (unsigned i = 0; i < mm->n; i++) {
        if (a >= mm->r[i].base && a - mm->r[i].base < mm->r[i].len) {
            return mm->r[i].type;
        }
    }
    return 0;
}

static void test_usable_split_by_reserved(void **state)
{
    struct memmap mm;

    (void)state;
    memmap_init(&mm);
    assert_int_equal(memmap_add(&mm, 0, 2 * MIB, MEMMAP_USABLE), 0);
    assert_int_equal(memmap_add(&mm, 1 * MIB, 4 * KIB, MEMMAP_RESERVED), 0);
    memmap_normalize(&mm);
    assert_int_equal(mm.n, 3);
    expect_region(&mm, 0, 0, 1 * MIB, MEMMAP_USABLE);
    expect_region(&mm, 1, 1 * MIB, 4 * KIB, MEMMAP_RESERVED);
    expect_region(&mm, 2, 1 * MIB + 4 * KIB, 1 * MIB - 4 * KIB, MEMMAP_USABLE);
    assert_int_equal(memmap_usable_bytes(&mm), 2 * MIB - 4 * KIB);
    assert_int_equal(mm.dropped, 0);
}

/* A reserved range covering a usable one entirely, and one overlapping a usable range's end. */
static void test_contained_and_partial_overlap(void **state)
{
    struct memmap mm;

    (void)state;
    memmap_init(&mm);
    assert_int_equal(memmap_add(&mm, 0x100000, 0x10000, MEMMAP_USABLE), 0);
    assert_int_equal(memmap_add(&mm, 0xF0000, 0x30000, MEMMAP_RESERVED), 0);
    assert_int_equal(memmap_add(&mm, 0x200000, 0x100000, MEMMAP_USABLE), 0);
    assert_int_equal(memmap_add(&mm, 0x2F0000, 0x20000, MEMMAP_ACPI_NVS), 0);
    memmap_normalize(&mm);
    assert_int_equal(mm.n, 3);
    expect_region(&mm, 0, 0xF0000, 0x30000, MEMMAP_RESERVED);
    expect_region(&mm, 1, 0x200000, 0xF0000, MEMMAP_USABLE);
    expect_region(&mm, 2, 0x2F0000, 0x20000, MEMMAP_ACPI_NVS);
}

/* Non-usable types overlap too: the more restrictive one wins, BAD above all. */
static void test_precedence_between_reserved_types(void **state)
{
    struct memmap mm;

    (void)state;
    memmap_init(&mm);
    assert_int_equal(memmap_add(&mm, 0x1000, 0x3000, MEMMAP_ACPI_RECLAIM), 0);
    assert_int_equal(memmap_add(&mm, 0x2000, 0x1000, MEMMAP_RESERVED), 0);
    assert_int_equal(memmap_add(&mm, 0x3000, 0x1000, MEMMAP_BAD), 0);
    memmap_normalize(&mm);
    assert_int_equal(mm.n, 3);
    expect_region(&mm, 0, 0x1000, 0x1000, MEMMAP_ACPI_RECLAIM);
    expect_region(&mm, 1, 0x2000, 0x1000, MEMMAP_RESERVED);
    expect_region(&mm, 2, 0x3000, 0x1000, MEMMAP_BAD);
}

static void test_adjacent_merge_and_unsorted_input(void **state)
{
    struct memmap mm;

    (void)state;
    memmap_init(&mm);
    assert_int_equal(memmap_add(&mm, 0x3000, 0x1000, MEMMAP_USABLE), 0);
    assert_int_equal(memmap_add(&mm, 0x9000, 0x1000, MEMMAP_RESERVED), 0);
    assert_int_equal(memmap_add(&mm, 0x1000, 0x1000, MEMMAP_USABLE), 0);
    assert_int_equal(memmap_add(&mm, 0x2000, 0x1000, MEMMAP_USABLE), 0);
    assert_int_equal(memmap_add(&mm, 0x8000, 0x1000, MEMMAP_RESERVED), 0);
    assert_int_equal(memmap_add(&mm, 0x4000, 0x1000, MEMMAP_ACPI_RECLAIM), 0);
    memmap_normalize(&mm);
    assert_int_equal(mm.n, 3);
    expect_region(&mm, 0, 0x1000, 0x3000, MEMMAP_USABLE);
    expect_region(&mm, 1, 0x4000, 0x1000, MEMMAP_ACPI_RECLAIM); /* adjacent, other type */
    expect_region(&mm, 2, 0x8000, 0x2000, MEMMAP_RESERVED);
}

static void test_zero_length_and_bad_type(void **state)
{
    struct memmap mm;

    (void)state;
    memmap_init(&mm);
    assert_int_equal(memmap_add(&mm, 0x1000, 0, MEMMAP_USABLE), 0);
    assert_int_equal(mm.n, 0);
    assert_int_equal(memmap_add(&mm, 0x1000, 0x1000, 0), WS_ERR_INVAL);
    assert_int_equal(memmap_add(&mm, 0x1000, 0x1000, MEMMAP_BAD + 1), WS_ERR_INVAL);
    assert_int_equal(mm.n, 0);
    memmap_normalize(&mm);
    assert_int_equal(mm.n, 0);
    assert_int_equal(memmap_usable_bytes(&mm), 0);
    assert_int_equal(memmap_highest_usable_end(&mm), 0);
}

static void test_wrap_around_rejected(void **state)
{
    struct memmap mm;

    (void)state;
    memmap_init(&mm);
    assert_int_equal(memmap_add(&mm, UINT64_MAX - 0xFFF, 0x2000, MEMMAP_USABLE), WS_ERR_RANGE);
    assert_int_equal(memmap_add(&mm, UINT64_MAX - 0xFFF, 0x1000, MEMMAP_RESERVED), WS_ERR_RANGE);
    assert_int_equal(memmap_add(&mm, 1, UINT64_MAX, MEMMAP_USABLE), WS_ERR_RANGE);
    assert_int_equal(mm.n, 0);
    /* Ending one byte short of 2^64 is fine, and trimming near the top must not overflow. */
    assert_int_equal(memmap_add(&mm, UINT64_MAX - 0xFFF, 0xFFF, MEMMAP_USABLE), 0);
    assert_int_equal(memmap_add(&mm, UINT64_MAX - 0x2FFF, 0x2000, MEMMAP_USABLE), 0);
    assert_int_equal(memmap_add(&mm, UINT64_MAX - 0x8000, 0x7FF, MEMMAP_USABLE), 0); /* <1 page */
    memmap_normalize(&mm);
    assert_int_equal(mm.n, 1);
    expect_region(&mm, 0, UINT64_MAX - 0x2FFF, 0x2000, MEMMAP_USABLE);
}

static void test_page_alignment_inward(void **state)
{
    struct memmap mm;

    (void)state;
    memmap_init(&mm);
    assert_int_equal(memmap_add(&mm, 0x1234, 0x5678 - 0x1234, MEMMAP_USABLE), 0);
    assert_int_equal(memmap_add(&mm, 0x10001, 0xFFE, MEMMAP_USABLE), 0); /* no whole page */
    assert_int_equal(memmap_add(&mm, 0x20010, 0x20, MEMMAP_RESERVED), 0); /* kept as is */
    memmap_normalize(&mm);
    assert_int_equal(mm.n, 2);
    expect_region(&mm, 0, 0x2000, 0x3000, MEMMAP_USABLE);
    expect_region(&mm, 1, 0x20010, 0x20, MEMMAP_RESERVED);
    assert_int_equal(memmap_highest_usable_end(&mm), 0x5000);
}

/* A usable range cut by a reserved one at an odd address loses the partial pages. */
static void test_alignment_after_split(void **state)
{
    struct memmap mm;

    (void)state;
    memmap_init(&mm);
    assert_int_equal(memmap_add(&mm, 0, 0x10000, MEMMAP_USABLE), 0);
    assert_int_equal(memmap_add(&mm, 0x4800, 0x100, MEMMAP_RESERVED), 0);
    memmap_normalize(&mm);
    assert_int_equal(mm.n, 3);
    expect_region(&mm, 0, 0, 0x4000, MEMMAP_USABLE);
    expect_region(&mm, 1, 0x4800, 0x100, MEMMAP_RESERVED);
    expect_region(&mm, 2, 0x5000, 0xB000, MEMMAP_USABLE);
}

/* More adjacent entries than slots: merging on the way keeps everything. */
static void test_full_table_compacts_adjacent(void **state)
{
    struct memmap mm;

    (void)state;
    memmap_init(&mm);
    for (uint64_t i = 0; i < 3 * WS_MAX_MEM_REGIONS; i++) {
        assert_int_equal(memmap_add(&mm, i * 0x1000, 0x1000, MEMMAP_USABLE), 0);
    }
    memmap_normalize(&mm);
    assert_int_equal(mm.n, 1);
    assert_int_equal(mm.dropped, 0);
    expect_region(&mm, 0, 0, 3 * WS_MAX_MEM_REGIONS * 0x1000ULL, MEMMAP_USABLE);
}

/* Disjoint usable entries past capacity are dropped and counted; reserved ones evict RAM. */
static void test_full_table_drops_and_counts(void **state)
{
    struct memmap mm;

    (void)state;
    memmap_init(&mm);
    for (uint64_t i = 0; i < WS_MAX_MEM_REGIONS; i++) {
        assert_int_equal(memmap_add(&mm, i * 0x10000, 0x1000 + i * 0x100, MEMMAP_USABLE), 0);
    }
    assert_int_equal(memmap_add(&mm, 0x4000000, 0x1000, MEMMAP_USABLE), WS_ERR_NO_MEMORY);
    assert_int_equal(mm.dropped, 1);
    /* Reserved page inside the biggest usable region: the smallest usable one makes room. */
    assert_int_equal(memmap_add(&mm, 63 * 0x10000 + 0x2000, 0x1000, MEMMAP_RESERVED), 0);
    assert_int_equal(mm.dropped, 2);
    /* Splitting region 63 around the hole needs one slot more: the smallest piece goes. */
    memmap_normalize(&mm);
    assert_int_equal(mm.n, WS_MAX_MEM_REGIONS);
    assert_int_equal(mm.dropped, 3);
    assert_int_equal(type_at(&mm, 0), 0);       /* evicted for the reserved page */
    assert_int_equal(type_at(&mm, 0x10000), 0); /* dropped by the split */
    assert_int_equal(type_at(&mm, 63 * 0x10000 + 0x2000), MEMMAP_RESERVED); /* never usable */
    assert_int_equal(type_at(&mm, 63 * 0x10000 + 0x1000), MEMMAP_USABLE);
    assert_int_equal(type_at(&mm, 63 * 0x10000 + 0x3000), MEMMAP_USABLE);
}

/* A table full of reserved ranges cannot make room by giving up RAM: newcomers are dropped. */
static void test_full_of_reserved(void **state)
{
    struct memmap mm;

    (void)state;
    memmap_init(&mm);
    for (uint64_t i = 0; i < WS_MAX_MEM_REGIONS; i++) {
        assert_int_equal(memmap_add(&mm, i * 0x10000, 0x1000, MEMMAP_RESERVED), 0);
    }
    assert_int_equal(memmap_add(&mm, 0x8000000, 0x1000, MEMMAP_ACPI_NVS), WS_ERR_NO_MEMORY);
    assert_int_equal(memmap_add(&mm, 0x9000000, 0x1000, MEMMAP_USABLE), WS_ERR_NO_MEMORY);
    assert_int_equal(mm.dropped, 2);
    memmap_normalize(&mm);
    assert_int_equal(mm.n, WS_MAX_MEM_REGIONS);
    assert_int_equal(memmap_usable_bytes(&mm), 0);
}

/* Splits that overflow the table give up usable pieces, never the reserved holes. */
static void test_split_overflow_keeps_reserved(void **state)
{
    struct memmap mm;
    const unsigned holes = WS_MAX_MEM_REGIONS - 1;

    (void)state;
    memmap_init(&mm);
    assert_int_equal(memmap_add(&mm, 0, 1 * GIB, MEMMAP_USABLE), 0);
    for (unsigned i = 0; i < holes; i++) {
        assert_int_equal(memmap_add(&mm, (i + 1) * MIB, 4 * KIB, MEMMAP_RESERVED), 0);
    }
    memmap_normalize(&mm);
    assert_int_equal(mm.n, WS_MAX_MEM_REGIONS);
    assert_int_equal(mm.dropped, holes); /* 127 pieces into 64 slots */
    for (unsigned i = 0; i < holes; i++) {
        assert_int_equal(type_at(&mm, (i + 1) * MIB), MEMMAP_RESERVED);
    }
    assert_int_equal(type_at(&mm, 0x40000000 - 1), MEMMAP_USABLE); /* the big tail survives */
}

static void test_find_free_and_reserve(void **state)
{
    struct memmap mm;
    uint64_t a = 0;

    (void)state;
    memmap_init(&mm);
    assert_int_equal(memmap_add(&mm, 0x1000, 0x9F000, MEMMAP_USABLE), 0);
    assert_int_equal(memmap_add(&mm, 0x100000, 0x7F00000, MEMMAP_USABLE), 0);
    assert_int_equal(memmap_find_free(&mm, 0x1000, 0x1000, 0, &a), WS_ERR_INVAL); /* raw map */
    memmap_normalize(&mm);
    assert_int_equal(memmap_find_free(&mm, 0x1000, 0x1000, 0, &a), 0);
    assert_int_equal(a, 0x1000);
    assert_int_equal(memmap_find_free(&mm, 0x1000, 3, 0, &a), WS_ERR_INVAL);
    assert_int_equal(memmap_find_free(&mm, 0, 0x1000, 0, &a), WS_ERR_INVAL);
    assert_int_equal(memmap_find_free(&mm, 0x200000, 0x200000, 0, &a), 0);
    assert_int_equal(a, 0x200000); /* low region too small, 2 MiB alignment skips 1 MiB */
    assert_int_equal(memmap_find_free(&mm, 0x1000, 0, 0x50000, &a), 0);
    assert_int_equal(a, 0x50000);
    assert_int_equal(memmap_find_free(&mm, 1 * GIB, 0x1000, 0, &a), WS_ERR_NOT_FOUND);
    assert_int_equal(memmap_find_free(&mm, 0x1000, 0x1000, UINT64_MAX - 10, &a),
                     WS_ERR_NOT_FOUND);

    /* Kernel image at 1 MiB with an odd end: the page it ends in is gone too. */
    assert_int_equal(memmap_reserve(&mm, 0x100000, 0x123456), 0);
    assert_int_equal(memmap_find_free(&mm, 0x1000, 0x1000, 0x100000, &a), 0);
    assert_int_equal(a, 0x224000);
    assert_int_equal(memmap_alloc(&mm, 0x1000, 0x1000, 0x100000, &a), 0);
    assert_int_equal(a, 0x224000);
    assert_int_equal(memmap_find_free(&mm, 0x1000, 0x1000, 0x100000, &a), 0);
    assert_int_equal(a, 0x225000);
    assert_int_equal(memmap_usable_bytes(&mm), 0x9F000 + 0x7F00000 - 0x125000);
    assert_int_equal(memmap_highest_usable_end(&mm), 0x8000000);
}

static void test_normalize_idempotent(void **state)
{
    struct memmap a, b;

    (void)state;
    memmap_init(&a);
    assert_int_equal(memmap_add(&a, 0x0, 0x9FC00, MEMMAP_USABLE), 0);
    assert_int_equal(memmap_add(&a, 0x9FC00, 0x400, MEMMAP_RESERVED), 0);
    assert_int_equal(memmap_add(&a, 0xF0000, 0x10000, MEMMAP_RESERVED), 0);
    assert_int_equal(memmap_add(&a, 0x100000, 0x7EE0000, MEMMAP_USABLE), 0);
    assert_int_equal(memmap_add(&a, 0x7FE0000, 0x20000, MEMMAP_RESERVED), 0);
    memmap_normalize(&a);
    b = a;
    memmap_normalize(&b);
    assert_int_equal(a.n, b.n);
    assert_memory_equal(a.r, b.r, a.n * sizeof(a.r[0]));
}

static uint64_t lcg_state = 12345;

static uint64_t lcg(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return lcg_state >> 33;
}

/* Highest-precedence type covering a in the raw input list, 0 if none. */
static uint32_t model_type(const struct memmap_region *in, unsigned n, uint64_t a)
{
    uint32_t t = 0;

    for (unsigned i = 0; i < n; i++) {
        if (a >= in[i].base && a - in[i].base < in[i].len && in[i].type > t) {
            t = in[i].type;
        }
    }
    return t;
}

static void check_against_model(const struct memmap *mm, const struct memmap_region *in,
                                unsigned n)
{
    for (unsigned i = 0; i < mm->n; i++) {
        assert_true(mm->r[i].len > 0);
        if (i > 0) {
            assert_true(mm->r[i - 1].base + mm->r[i - 1].len <= mm->r[i].base);
        }
        if (mm->r[i].type == MEMMAP_USABLE) {
            assert_int_equal(mm->r[i].base % MEMMAP_PAGE_BYTES, 0);
            assert_int_equal(mm->r[i].len % MEMMAP_PAGE_BYTES, 0);
        }
    }
    for (unsigned i = 0; i < n; i++) {
        uint64_t probe[4] = { in[i].base, in[i].base + in[i].len - 1, in[i].base + in[i].len,
                              in[i].base ? in[i].base - 1 : 0 };
        for (unsigned k = 0; k < 4; k++) {
            uint32_t want = model_type(in, n, probe[k]), got = type_at(mm, probe[k]);
            if (want == MEMMAP_USABLE) {
                assert_true(got == MEMMAP_USABLE || got == 0); /* 0: trimmed partial page */
            } else {
                assert_int_equal(got, want);
            }
        }
    }
}

static void test_random_against_model(void **state)
{
    (void)state;
    for (unsigned iter = 0; iter < 2000; iter++) {
        struct memmap_region in[24];
        struct memmap mm;
        unsigned n = 1 + (unsigned)(lcg() % 24);

        memmap_init(&mm);
        for (unsigned i = 0; i < n; i++) {
            in[i].base = (lcg() % 64) * 0x800 + (lcg() % 4 == 0 ? lcg() % 0x800 : 0);
            in[i].len = 1 + lcg() % 0x8000;
            in[i].type = 1 + (uint32_t)(lcg() % MEMMAP_BAD);
            assert_int_equal(memmap_add(&mm, in[i].base, in[i].len, in[i].type), 0);
        }
        memmap_normalize(&mm);
        assert_int_equal(mm.dropped, 0);
        check_against_model(&mm, in, n);
    }
}

static void test_type_names(void **state)
{
    (void)state;
    assert_string_equal(memmap_type_name(MEMMAP_USABLE), "usable");
    assert_string_equal(memmap_type_name(MEMMAP_ACPI_RECLAIM), "acpi-reclaim");
    assert_string_equal(memmap_type_name(MEMMAP_ACPI_NVS), "acpi-nvs");
    assert_string_equal(memmap_type_name(MEMMAP_RESERVED), "reserved");
    assert_string_equal(memmap_type_name(MEMMAP_BAD), "bad");
    assert_string_equal(memmap_type_name(99), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usable_split_by_reserved),
        cmocka_unit_test(test_contained_and_partial_overlap),
        cmocka_unit_test(test_precedence_between_reserved_types),
        cmocka_unit_test(test_adjacent_merge_and_unsorted_input),
        cmocka_unit_test(test_zero_length_and_bad_type),
        cmocka_unit_test(test_wrap_around_rejected),
        cmocka_unit_test(test_page_alignment_inward),
        cmocka_unit_test(test_alignment_after_split),
        cmocka_unit_test(test_full_table_compacts_adjacent),
        cmocka_unit_test(test_full_table_drops_and_counts),
        cmocka_unit_test(test_full_of_reserved),
        cmocka_unit_test(test_split_overflow_keeps_reserved),
        cmocka_unit_test(test_find_free_and_reserve),
        cmocka_unit_test(test_normalize_idempotent),
        cmocka_unit_test(test_random_against_model),
        cmocka_unit_test(test_type_names),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
