/* tests/unit/test_gro.c: which consecutive TCP segments net/gro.c lets make one aggregate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "net/gro.h"
#include "net/inet.h"

#define TG_FRAMES 64
#define TG_PAYLOAD 1448
#define TG_ACK 0x10
#define TG_PSH 0x08

static uint8_t tg_mem[TG_FRAMES][2048];
static struct pkb tg_pkb[TG_FRAMES];
static struct pkb *tg_b[TG_FRAMES];
static bool tg_verified[TG_FRAMES];

/* tg_frame: frame i, a TCP segment 10.0.0.2:40000 -> 10.0.0.1:9 with seq, len payload bytes,
 * flags, and optlen bytes of options (NOPs, then an option byte `opt`). */
static void tg_frame(unsigned i, uint32_t seq, uint16_t len, uint8_t flags, unsigned optlen,
                     uint8_t opt)
{
    uint8_t *f = tg_mem[i];
    memset(f, 0, sizeof(tg_mem[i]));
    inet_store_be16(f + 12, INET_ETHERTYPE_IPV4);
    uint8_t *ip = f + INET_ETH_HDR_BYTES;
    unsigned thl = 20 + optlen;
    ip[0] = 0x45;
    inet_store_be16(ip + 2, (uint16_t)(20 + thl + len));
    inet_store_be16(ip + 6, INET_IPV4_FLAG_DF);
    ip[8] = 64;
    ip[9] = INET_PROTO_TCP;
    memcpy(ip + 12, "\x0a\x00\x00\x02\x0a\x00\x00\x01", 8);
    uint8_t *tcp = ip + 20;
    inet_store_be16(tcp, 40000);
    inet_store_be16(tcp + 2, 9);
    inet_store_be32(tcp + 4, seq);
    inet_store_be32(tcp + 8, 0x1000);
    tcp[12] = (uint8_t)((thl / 4) << 4);
    tcp[13] = flags;
    inet_store_be16(tcp + 14, 0x2000);
    memset(tcp + 20, 1, optlen); /* NOPs */
    if (optlen) {
        tcp[20 + optlen - 1] = opt;
    }
    tg_pkb[i] = (struct pkb){ .data = f, .len = (uint16_t)(INET_ETH_HDR_BYTES + 20 + thl + len),
                              .owner = 1 };
    tg_b[i] = &tg_pkb[i];
    tg_verified[i] = true;
}

/* tg_stream: n full in-order segments from seq 1000, ACK only. */
static void tg_stream(unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        tg_frame(i, 1000 + i * TG_PAYLOAD, TG_PAYLOAD, TG_ACK, 0, 0);
    }
}

static bool tg_is_verified(const struct pkb *b)
{
    return tg_verified[b - tg_pkb];
}

static unsigned tg_run(unsigned n, uint16_t *ip_len)
{
    static struct gro_seg segs[TG_FRAMES];
    unsigned k = gro_run(tg_b, n, tg_is_verified, segs, ip_len);
    for (unsigned i = 0; i < k && *ip_len != 0; i++) { /* each member as parsed alone */
        struct gro_seg s;
        assert_true(gro_parse(tg_b[i], &s));
        assert_true(s.ip == segs[i].ip && s.tcp == segs[i].tcp && s.seq == segs[i].seq);
        assert_true(s.payload == segs[i].payload && s.hdr_bytes == segs[i].hdr_bytes);
    }
    return k;
}

/* In order, same connection state: one aggregate whose IPv4 length covers every payload. */
static void test_in_order_stream_merges(void **state)
{
    (void)state;
    uint16_t ip_len;
    tg_stream(8);
    assert_int_equal(tg_run(8, &ip_len), 8);
    assert_int_equal(ip_len, 40 + 8 * TG_PAYLOAD);
    assert_int_equal(tg_run(3, &ip_len), 3); /* never past n */
    assert_int_equal(tg_run(0, &ip_len), 0);
    /* sequence numbers that wrap past 2^32 still follow */
    tg_frame(0, 0xffffffffu - 99, 100, TG_ACK, 0, 0);
    tg_frame(1, 0, 100, TG_ACK, 0, 0);
    assert_int_equal(tg_run(2, &ip_len), 2);
}

/* A gap, an overlap, a repeat or a reordering ends the run before the frame concerned. */
static void test_gap_overlap_and_reorder_end_a_run(void **state)
{
    (void)state;
    uint16_t ip_len;
    tg_stream(4);
    tg_frame(2, 1000 + 3 * TG_PAYLOAD, TG_PAYLOAD, TG_ACK, 0, 0); /* segment 3 before 2 */
    assert_int_equal(tg_run(4, &ip_len), 2);
    assert_int_equal(ip_len, 40 + 2 * TG_PAYLOAD);
    tg_stream(4);
    tg_frame(1, 1000 + 10, TG_PAYLOAD, TG_ACK, 0, 0); /* overlaps segment 0 */
    assert_int_equal(tg_run(4, &ip_len), 1);
    tg_stream(4);
    tg_frame(3, 1000 + 2 * TG_PAYLOAD, TG_PAYLOAD, TG_ACK, 0, 0); /* segment 2 again */
    assert_int_equal(tg_run(4, &ip_len), 3);
    tg_stream(4);
    tg_frame(2, 1000 + 2 * TG_PAYLOAD + 1, TG_PAYLOAD, TG_ACK, 0, 0); /* a one-byte hole */
    assert_int_equal(tg_run(4, &ip_len), 2);
}

/* FIN, SYN, RST, URG, ECE and CWR keep a segment out; PSH ends a run after its segment. */
static void test_control_flags(void **state)
{
    (void)state;
    uint16_t ip_len;
    static const uint8_t out[] = { 0x01, 0x02, 0x04, 0x20, 0x40, 0x80 };
    for (unsigned f = 0; f < sizeof(out); f++) {
        tg_stream(4);
        tg_frame(2, 1000 + 2 * TG_PAYLOAD, TG_PAYLOAD, TG_ACK | out[f], 0, 0);
        assert_int_equal(tg_run(4, &ip_len), 2);
        tg_frame(0, 1000, TG_PAYLOAD, TG_ACK | out[f], 0, 0);
        assert_int_equal(tg_run(4, &ip_len), 1);
        assert_int_equal(ip_len, 0); /* alone: the caller uses its own header */
    }
    tg_stream(4);
    tg_frame(1, 1000 + TG_PAYLOAD, TG_PAYLOAD, TG_ACK | TG_PSH, 0, 0);
    assert_int_equal(tg_run(4, &ip_len), 2);
    assert_int_equal(ip_len, 40 + 2 * TG_PAYLOAD);
    tg_frame(0, 1000, TG_PAYLOAD, TG_ACK | TG_PSH, 0, 0);
    assert_int_equal(tg_run(4, &ip_len), 1);
    tg_frame(0, 1000, TG_PAYLOAD, 0, 0, 0); /* no ACK */
    assert_int_equal(tg_run(4, &ip_len), 1);
}

/* Another connection, ACK number, window, header length or option bytes end the run. */
static void test_connection_state_changes_end_a_run(void **state)
{
    (void)state;
    uint16_t ip_len;
    for (unsigned what = 0; what < 6; what++) {
        tg_stream(4);
        uint8_t *tcp = tg_mem[2] + INET_ETH_HDR_BYTES + 20;
        switch (what) {
        case 0:
            tcp[1] ^= 1; /* source port */
            break;
        case 1:
            tg_mem[2][INET_ETH_HDR_BYTES + 15] ^= 1; /* source address */
            break;
        case 2:
            tcp[11] ^= 1; /* ACK number */
            break;
        case 3:
            tcp[15] ^= 1; /* window */
            break;
        case 4:
            tcp[19] ^= 1; /* urgent pointer (without URG) */
            break;
        case 5:
            tg_frame(2, 1000 + 2 * TG_PAYLOAD, TG_PAYLOAD, TG_ACK, 12, 1); /* options */
            break;
        }
        assert_int_equal(tg_run(4, &ip_len), 2);
    }
    /* the same options on every segment merge; a change in their bytes does not */
    for (unsigned i = 0; i < 4; i++) {
        tg_frame(i, 1000 + i * 100, 100, TG_ACK, 12, 8);
    }
    assert_int_equal(tg_run(4, &ip_len), 4);
    assert_int_equal(ip_len, 20 + 32 + 400);
    tg_frame(3, 1000 + 300, 100, TG_ACK, 12, 9);
    assert_int_equal(tg_run(4, &ip_len), 3);
}

/* Only checksums someone verified merge; the owner core, the 16-bit IPv4 length. */
static void test_checksum_owner_and_length_bounds(void **state)
{
    (void)state;
    uint16_t ip_len;
    tg_stream(4);
    tg_verified[2] = false;
    assert_int_equal(tg_run(4, &ip_len), 2);
    tg_verified[0] = false;
    assert_int_equal(tg_run(4, &ip_len), 1);
    tg_stream(4);
    tg_pkb[3].owner = 0;
    assert_int_equal(tg_run(4, &ip_len), 3);
    tg_stream(TG_FRAMES);
    unsigned k = tg_run(TG_FRAMES, &ip_len);
    assert_int_equal(k, (0xffff - 40) / TG_PAYLOAD); /* 45 segments of 1448 */
    assert_int_equal(ip_len, 40 + k * TG_PAYLOAD);
}

/* tg_acks: n pure ACKs of the connection, ACK numbers 0x1000 + i * step, seq 1000. */
static void tg_acks(unsigned n, uint32_t step)
{
    for (unsigned i = 0; i < n; i++) {
        tg_frame(i, 1000, 0, TG_ACK, 0, 0);
        inet_store_be32(tg_mem[i] + INET_ETH_HDR_BYTES + 20 + 8, 0x1000 + i * step);
    }
}

static unsigned tg_ack_run(unsigned n)
{
    static struct gro_seg segs[TG_FRAMES];
    return gro_ack_run(tg_b, n, tg_is_verified, segs);
}

/* Pure ACKs of one connection that each acknowledge more make one run (only its last reaches
 * lwIP); never past n; a data segment or anything else is no ACK run's start. */
static void test_acks_that_advance_make_a_run(void **state)
{
    (void)state;
    tg_acks(8, 2 * TG_PAYLOAD);
    assert_int_equal(tg_ack_run(8), 8);
    assert_int_equal(tg_ack_run(5), 5);
    assert_int_equal(tg_ack_run(0), 0);
    /* the ACK number wraps: still each after the one before */
    tg_acks(3, 0x7fff0000u);
    assert_int_equal(tg_ack_run(3), 3);
    tg_stream(2);
    assert_int_equal(tg_ack_run(2), 1);
    tg_acks(2, 100);
    tg_frame(0, 1000, 0, TG_ACK | TG_PSH, 0, 0);
    assert_int_equal(tg_ack_run(2), 1);
}

/* What ends an ACK run: a duplicate ACK (fast retransmit counts them) or one that goes back, a
 * window update with the same ACK, another connection or sequence number, a flag, data, a
 * different header length, another owner, an unverified checksum. */
static void test_what_ends_an_ack_run(void **state)
{
    (void)state;
    for (unsigned what = 0; what < 10; what++) {
        tg_acks(4, 1448);
        uint8_t *tcp = tg_mem[2] + INET_ETH_HDR_BYTES + 20;
        switch (what) {
        case 0: /* a duplicate of the one before */
            inet_store_be32(tcp + 8, 0x1000 + 1448);
            break;
        case 1: /* a window update: same ACK, more window */
            inet_store_be32(tcp + 8, 0x1000 + 1448);
            inet_store_be16(tcp + 14, 0x4000);
            break;
        case 2: /* an older ACK */
            inet_store_be32(tcp + 8, 0x1000);
            break;
        case 3:
            inet_store_be16(tcp, 40001); /* another connection */
            break;
        case 4:
            inet_store_be32(tcp + 4, 1001); /* the peer's sequence moved: data went between */
            break;
        case 5:
            tcp[13] = TG_ACK | 0x01; /* FIN */
            break;
        case 6:
            tg_frame(2, 1000, 10, TG_ACK, 0, 0); /* data */
            break;
        case 7:
            tg_frame(2, 1000, 0, TG_ACK, 12, 8); /* options: a longer header */
            inet_store_be32(tg_mem[2] + INET_ETH_HDR_BYTES + 20 + 8, 0x1000 + 2 * 1448);
            break;
        case 8:
            tg_pkb[2].owner = 2;
            break;
        case 9:
            tg_verified[2] = false;
            break;
        }
        assert_int_equal(tg_ack_run(4), 2);
    }
    /* an unverified first one goes alone */
    tg_acks(4, 1448);
    tg_verified[0] = false;
    assert_int_equal(tg_ack_run(4), 1);
}

/* What may not be a member at all: fragments, IP options, no payload, not TCP or not IPv4,
 * lengths the frame does not hold. */
static void test_unmergeable_frames_go_alone(void **state)
{
    (void)state;
    uint16_t ip_len;
    struct gro_seg s;
    tg_stream(2);
    assert_true(gro_parse(tg_b[0], &s));
    assert_int_equal(s.payload, TG_PAYLOAD);
    assert_int_equal(s.hdr_bytes, INET_ETH_HDR_BYTES + 40);
    for (unsigned what = 0; what < 8; what++) {
        tg_stream(2);
        uint8_t *ip = tg_mem[0] + INET_ETH_HDR_BYTES;
        switch (what) {
        case 0:
            inet_store_be16(ip + 6, INET_IPV4_FLAG_MF);
            break;
        case 1:
            inet_store_be16(ip + 6, 5); /* a fragment offset */
            break;
        case 2:
            ip[0] = 0x46; /* IP options */
            break;
        case 3:
            ip[9] = INET_PROTO_UDP;
            break;
        case 4:
            tg_frame(0, 1000, 0, TG_ACK, 0, 0); /* a pure ACK */
            break;
        case 5:
            inet_store_be16(tg_mem[0] + 12, INET_ETHERTYPE_ARP);
            break;
        case 6:
            tg_pkb[0].len = (uint16_t)(tg_pkb[0].len - 1); /* the frame is short of ip_len */
            break;
        case 7:
            ip[20 + 12] = 0xf0; /* a 60-byte TCP header in a 40 + 1448-byte datagram: fine */
            assert_true(gro_parse(tg_b[0], &s));
            ip[20 + 12] = 0x40; /* a 16-byte one: invalid */
            break;
        }
        assert_false(gro_parse(tg_b[0], &s));
        assert_int_equal(tg_run(2, &ip_len), 1);
    }
    tg_stream(2);
    tg_pkb[0].len = 30; /* not even the headers */
    assert_false(gro_parse(tg_b[0], &s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_order_stream_merges),
        cmocka_unit_test(test_gap_overlap_and_reorder_end_a_run),
        cmocka_unit_test(test_control_flags),
        cmocka_unit_test(test_connection_state_changes_end_a_run),
        cmocka_unit_test(test_checksum_owner_and_length_bounds),
        cmocka_unit_test(test_unmergeable_frames_go_alone),
        cmocka_unit_test(test_acks_that_advance_make_a_run),
        cmocka_unit_test(test_what_ends_an_ack_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
