/* tests/unit/test_vlan.c: net/vlan.h's tag recognition, removal and insertion, byte for byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "net/vlan.h"

/* dst 02:..:01, src 02:..:02, then what follows the MACs */
static uint16_t frame_of(uint8_t *buf, const uint8_t *after_macs, size_t n)
{
    static const uint8_t macs[12] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2 };
    memcpy(buf, macs, 12);
    memcpy(buf + 12, after_macs, n);
    return (uint16_t)(12 + n);
}

static void test_tagged_frame_pops_to_its_inner_frame(void **state)
{
    (void)state;
    /* PCP 5, DEI 1, VID 0x123, then IPv4 and 4 payload bytes */
    static const uint8_t tagged[] = { 0x81, 0x00, 0xb1, 0x23, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef };
    static const uint8_t inner[] = { 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef };
    uint8_t buf[64], want[64];
    uint16_t len = frame_of(buf, tagged, sizeof(tagged));
    uint16_t want_len = frame_of(want, inner, sizeof(inner));

    assert_true(net_vlan_is_tagged(buf, len));
    assert_int_equal(net_vlan_vid(buf), 0x123);
    net_vlan_pop(buf, &len);
    assert_int_equal(len, want_len);
    assert_memory_equal(buf, want, want_len);
    assert_false(net_vlan_is_tagged(buf, len));
}

static void test_push_tags_with_priority_zero_and_twelve_bits(void **state)
{
    (void)state;
    static const uint8_t inner[] = { 0x08, 0x06, 1, 2, 3 };
    static const uint8_t tagged[] = { 0x81, 0x00, 0x0f, 0xff, 0x08, 0x06, 1, 2, 3 };
    uint8_t buf[32], want[32];
    uint16_t len = frame_of(buf, inner, sizeof(inner));
    uint16_t want_len = frame_of(want, tagged, sizeof(tagged));

    assert_true(net_vlan_push(buf, &len, sizeof(buf), 0xffff)); /* only the VID's 12 bits */
    assert_int_equal(len, want_len);
    assert_memory_equal(buf, want, want_len);
}

static void test_push_refuses_without_room_or_header(void **state)
{
    (void)state;
    static const uint8_t inner[] = { 0x08, 0x00, 9, 9 };
    uint8_t buf[32], copy[32];
    uint16_t len = frame_of(buf, inner, sizeof(inner));
    memcpy(copy, buf, sizeof(buf));

    assert_false(net_vlan_push(buf, &len, (uint16_t)(len + 3), 10));
    assert_int_equal(len, 12 + sizeof(inner));
    assert_memory_equal(buf, copy, sizeof(buf));
    assert_true(net_vlan_push(buf, &len, (uint16_t)(len + 4), 10)); /* exactly enough */

    uint16_t runt = 13;
    assert_false(net_vlan_push(copy, &runt, sizeof(copy), 10));
    assert_int_equal(runt, 13);
}

static void test_short_frames_are_not_tagged(void **state)
{
    (void)state;
    uint8_t buf[14] = { [12] = 0x81, [13] = 0x00 };
    assert_false(net_vlan_is_tagged(buf, 13));
    assert_true(net_vlan_is_tagged(buf, 14)); /* the TPID is there; too short to pop (18) */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tagged_frame_pops_to_its_inner_frame),
        cmocka_unit_test(test_push_tags_with_priority_zero_and_twelve_bits),
        cmocka_unit_test(test_push_refuses_without_room_or_header),
        cmocka_unit_test(test_short_frames_are_not_tagged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
