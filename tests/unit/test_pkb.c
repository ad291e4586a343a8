/*
 * tests/unit/test_pkb.c: packet-buffer pools: layout after init, LIFO order, exhaustion,
 * foreign and double frees counted without corrupting any pool.
 * Build: gcc -std=gnu11 -g -O1 -Wall -Wextra -Werror -fsanitize=address,undefined
 *        -fno-sanitize-recover=all -I. -Ikernel tests/unit/test_pkb.c kernel/pkb.c -lcmocka
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "pkb.h"

#define TP_N 16

/* One pool with its memory, as a core would carve it at boot. */
struct tp_pool {
    struct pkb_pool pool;
    struct pkb meta[TP_N];
    struct pkb *stack[TP_N];
    uint8_t *data;
};

static void tp_init(struct tp_pool *t, uint16_t owner)
{
    t->data = aligned_alloc(PKB_DATA_BYTES, (size_t)TP_N * PKB_DATA_BYTES);
    assert_non_null(t->data);
    pkb_pool_init(&t->pool, owner, t->meta, t->stack, t->data, TP_N);
}

static void tp_fini(struct tp_pool *t)
{
    free(t->data);
}

static void test_init_layout(void **state)
{
    struct tp_pool t;

    (void)state;
    tp_init(&t, 3);
    assert_int_equal(t.pool.nfree, TP_N);
    assert_int_equal(t.pool.size, TP_N);
    assert_int_equal(t.pool.owner, 3);
    for (unsigned i = 0; i < TP_N; i++) {
        struct pkb *p = pkb_alloc(&t.pool);

        /* Address order, one PKB_DATA_BYTES buffer each, all tagged with owner and pool. */
        assert_ptr_equal(p, &t.meta[i]);
        assert_ptr_equal(p->data, t.data + (size_t)i * PKB_DATA_BYTES);
        assert_int_equal((uintptr_t)p->data % PKB_DATA_BYTES, 0);
        assert_int_equal(p->owner, 3);
        assert_ptr_equal(p->pool, &t.pool);
        p->data[0] = 0xAA; /* the whole buffer is addressable (ASan checks the ends) */
        p->data[PKB_DATA_BYTES - 1] = 0x55;
    }
    assert_int_equal(t.pool.nfree, 0);
    tp_fini(&t);
}

static void test_lifo_and_exhaustion(void **state)
{
    struct tp_pool t;
    struct pkb *all[TP_N];

    (void)state;
    tp_init(&t, 0);
    for (unsigned i = 0; i < TP_N; i++) {
        all[i] = pkb_alloc(&t.pool);
        assert_non_null(all[i]);
        for (unsigned j = 0; j < i; j++) {
            assert_ptr_not_equal(all[i], all[j]);
        }
    }
    assert_null(pkb_alloc(&t.pool));
    assert_null(pkb_alloc(&t.pool));
    assert_int_equal(t.pool.alloc_fail, 2);

    /* Last freed, first reused: the hot buffer comes back. */
    pkb_free(all[5], 0);
    pkb_free(all[9], 0);
    assert_ptr_equal(pkb_alloc(&t.pool), all[9]);
    assert_ptr_equal(pkb_alloc(&t.pool), all[5]);
    assert_null(pkb_alloc(&t.pool));
    assert_int_equal(t.pool.alloc_fail, 3);

    for (unsigned i = 0; i < TP_N; i++) {
        pkb_free(all[i], 0);
    }
    assert_int_equal(t.pool.nfree, TP_N);
    assert_int_equal(t.pool.foreign_free, 0);
    assert_int_equal(t.pool.double_free, 0);
    tp_fini(&t);
}

/* Core 1 frees a buffer of core 0's pool: counted, leaked, neither pool touched otherwise. */
static void test_foreign_free(void **state)
{
    struct tp_pool a, b;

    (void)state;
    tp_init(&a, 0);
    tp_init(&b, 1);
    struct pkb *p = pkb_alloc(&a.pool);
    struct pkb *q = pkb_alloc(&b.pool);

    pkb_free(p, 1);
    assert_int_equal(a.pool.foreign_free, 1);
    assert_int_equal(a.pool.nfree, TP_N - 1);
    assert_int_equal(b.pool.nfree, TP_N - 1);
    assert_int_equal(b.pool.foreign_free, 0);

    /* Both pools still hand out exactly their own remaining buffers. */
    for (unsigned i = 0; i < TP_N - 1; i++) {
        struct pkb *x = pkb_alloc(&a.pool);

        assert_non_null(x);
        assert_ptr_not_equal(x, p);
        assert_ptr_equal(x->pool, &a.pool);
    }
    assert_null(pkb_alloc(&a.pool));
    pkb_free(q, 1);
    assert_int_equal(b.pool.nfree, TP_N);
    tp_fini(&a);
    tp_fini(&b);
}

/* A second free of the same buffer into a full stack is counted and ignored. */
static void test_double_free_into_full_stack(void **state)
{
    struct tp_pool t;

    (void)state;
    tp_init(&t, 2);
    struct pkb *p = pkb_alloc(&t.pool);

    pkb_free(p, 2);
    pkb_free(p, 2);
    assert_int_equal(t.pool.double_free, 1);
    assert_int_equal(t.pool.nfree, TP_N);
    tp_fini(&t);
}

/* A zero-sized pool is legal (a core with no port) and only ever fails. */
static void test_empty_pool(void **state)
{
    struct pkb_pool pool;

    (void)state;
    pkb_pool_init(&pool, 0, NULL, NULL, NULL, 0);
    assert_null(pkb_alloc(&pool));
    assert_int_equal(pool.alloc_fail, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_layout),
        cmocka_unit_test(test_lifo_and_exhaustion),
        cmocka_unit_test(test_foreign_free),
        cmocka_unit_test(test_double_free_into_full_stack),
        cmocka_unit_test(test_empty_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
