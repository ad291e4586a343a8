/*
 * tests/fuzz/fuzz_vlan.c: libFuzzer harness for net/vlan.h, the 802.1Q tag's recognition,
 * removal and insertion, on frames from the input.
 *
 * Input: byte 0's bits 0-2 give how many bytes of room the buffer has beyond the frame (0..7:
 * below, at and above the 4 a tag needs), bytes 1-2 a VLAN ID to push (any 16 bits: the push
 * must keep only 12), the rest is the frame, in a buffer of exactly frame + room bytes (ASan
 * sees any access beyond it).
 *
 * Invariants: a frame is tagged only if it holds an EtherType field with 0x8100; a tagged frame
 * with room for the tag pops to one 4 bytes shorter whose MACs are unchanged and whose rest is
 * the original's from the inner EtherType on; pushing its VID back restores the original but
 * for priority and DEI, which a push sets to 0; a push succeeds exactly when the frame has an
 * Ethernet header and the buffer 4 bytes to spare, leaves a failed frame unchanged, and makes a
 * tagged frame with the VID's 12 bits that pops back to exactly what it was.
 */
#include <stdbool.h>
#include <string.h>

#include "net/vlan.h"
#include "tests/fuzz/fuzz.h"

#define FV_MAX_FRAME 2048

static void fuzz_vlan_pop_roundtrip(const uint8_t *orig, uint16_t len, uint8_t *buf,
                                    size_t bytes)
{
    if (!net_vlan_is_tagged(buf, len) || len < NET_VLAN_TAGGED_HDR_BYTES) {
        return;
    }
    uint16_t vid = net_vlan_vid(buf);
    uint16_t n = len;
    net_vlan_pop(buf, &n);
    FUZZ_CHECK(n == len - NET_VLAN_TAG_BYTES);
    FUZZ_CHECK(memcmp(buf, orig, 12) == 0);
    FUZZ_CHECK(memcmp(buf + 12, orig + 16, (size_t)len - 16) == 0);
    FUZZ_CHECK(net_vlan_push(buf, &n, (uint16_t)bytes, vid));
    FUZZ_CHECK(n == len);
    FUZZ_CHECK(memcmp(buf, orig, 14) == 0);
    FUZZ_CHECK(net_vlan_vid(buf) == vid && (buf[14] & 0xf0) == 0); /* PCP and DEI cleared */
    FUZZ_CHECK((buf[14] & 0x0f) == (orig[14] & 0x0f) && buf[15] == orig[15]);
    FUZZ_CHECK(memcmp(buf + 16, orig + 16, (size_t)len - 16) == 0);
}

static void fuzz_vlan_push_roundtrip(const uint8_t *orig, uint16_t len, uint8_t *buf,
                                     size_t bytes, uint16_t vid)
{
    uint16_t n = len;
    bool fits = len >= INET_ETH_HDR_BYTES && (size_t)len + NET_VLAN_TAG_BYTES <= bytes;
    bool pushed = net_vlan_push(buf, &n, (uint16_t)bytes, vid);
    FUZZ_CHECK(pushed == fits);
    if (!pushed) {
        FUZZ_CHECK(n == len && memcmp(buf, orig, len) == 0);
        return;
    }
    FUZZ_CHECK(n == len + NET_VLAN_TAG_BYTES);
    FUZZ_CHECK(net_vlan_is_tagged(buf, n) && net_vlan_vid(buf) == (vid & NET_VLAN_VID_MASK));
    net_vlan_pop(buf, &n);
    FUZZ_CHECK(n == len && memcmp(buf, orig, len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3 || size - 3 > FV_MAX_FRAME) {
        return 0;
    }
    size_t room = data[0] & 7u;
    uint16_t vid = (uint16_t)(data[1] << 8 | data[2]);
    uint16_t len = (uint16_t)(size - 3);
    size_t bytes = len + room;
    uint8_t *buf = malloc(bytes ? bytes : 1);
    FUZZ_CHECK(buf != NULL);
    memcpy(buf, data + 3, len);
    bool tagged = net_vlan_is_tagged(buf, len);
    FUZZ_CHECK(tagged == (len >= 14 && buf[12] == 0x81 && buf[13] == 0x00));
    fuzz_vlan_pop_roundtrip(data + 3, len, buf, bytes);
    memcpy(buf, data + 3, len);
    fuzz_vlan_push_roundtrip(data + 3, len, buf, bytes, vid);
    free(buf);
    return 0;
}
