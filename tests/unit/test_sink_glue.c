/*
 * tests/unit/test_sink_glue.c: the sink's plumbing on the host, with the real glue and the real
 * lwIP: frames handed over by a core's datapath (net/handoff.c) are wrapped without a copy
 * (net/lwip-port/sink_netif.c), go through lwIP to discard and echo (apps/sink/basic.c), and
 * their buffers go home to their owner's pool, through the return ring, only when lwIP lets go;
 * the handoff ring's bound; lwIP's clock and timers; SipHash and the TCP ISNs.
 *
 * Everything else of the firmware is stood in for by tests/fakes/fake_sink_platform.c; the
 * client side is tests/hostsim/sink_peer.c. The sink is brought up once (sink_init, as the boot
 * core does: core 3 of 4 is the sink core); every test leaves it as it found it: no connection
 * open, every pool full, lwIP's pools and heap back to the baseline, which each test checks.
 * Build: `make unit` (the Makefile's sink block: glue + fakes + lwIP compiled for the host).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apps/sink/sink.h"
#include "apps/sink/sink_core.h"
#include "lwip/memp.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/stats.h"
#include "lwip/sys.h"
#include "lwip/tcp.h"
#include "lwip/timeouts.h"
#include "lwip/udp.h"
#include "lwip_hooks.h"
#include "net/handoff.h"
#include "net/lwip-port/sink_netif.h"
#include "net/lwip-port/siphash.h"
#include "net/lwip-port/tcp_hooks.h"
#include "tests/fakes/fake_sink_platform.h"
#include "tests/hostsim/sink_peer.h"

#define TS_POOL 1280        /* buffers per core: a full handoff ring (1024) and then some */
#define TS_SINK_CORE 3      /* config/default.conf: sink.core = last, of FSP_CORES */
#define TS_SERVER 0xc6120001u /* 198.18.0.1, port0 */
#define TS_CLIENT 0xc6120002u /* 198.18.0.2 */
#define TS_MAX_CAPS 512

/* What the sink sent, copied off the fake TX queue and parsed. */
struct ts_cap {
    uint8_t f[PKB_DATA_BYTES];
    unsigned port;
    uint16_t owner; /* the pool the frame's buffer came from */
    uint16_t tx_flags; /* what the glue asked of the NIC (PKB_TX_*) */
    struct sink_seg s;
};

static struct ts_cap ts_caps[TS_MAX_CAPS];
static unsigned ts_ncaps;
static uint16_t ts_memp_base[MEMP_MAX];
static mem_size_t ts_mem_base;

/* ts_collect: move what the sink sent into ts_caps (TX completion frees the buffers). */
static unsigned ts_collect(void)
{
    struct pkb *b[64];
    unsigned port[64], n, got = 0;
    while ((n = fsp_tx_take(b, port, 64)) != 0) {
        for (unsigned i = 0; i < n; i++) {
            assert_true(ts_ncaps < TS_MAX_CAPS);
            struct ts_cap *c = &ts_caps[ts_ncaps++];
            memcpy(c->f, b[i]->data, b[i]->len);
            c->port = port[i];
            c->owner = b[i]->owner;
            c->tx_flags = b[i]->tx_flags;
            /* the NIC sums the IPv4 header only of a frame it need not pad (pkb.h) */
            assert_true(!(c->tx_flags & PKB_TX_CSUM_IP4) || b[i]->len >= 60);
            assert_true(sink_peer_parse(c->f, b[i]->len, &c->s));
            assert_true(c->s.ip_csum_ok);
            assert_true(c->s.l4_csum_ok);
            fsp_tx_done(b[i]);
            got++;
        }
    }
    return got;
}

/* ts_pass: one pass of the sink core's loop; returns the frames it sent. */
static unsigned ts_pass(void)
{
    sink_poll();
    return ts_collect();
}

/* ts_reclaim: every core frees what the sink core gave back. */
static unsigned ts_reclaim(void)
{
    unsigned n = 0;
    for (unsigned c = 0; c < FSP_CORES; c++) {
        n += handoff_reclaim(c);
    }
    return n;
}

/* ts_tcp_feed: give the captured segments to a client connection; returns how many were its. */
static unsigned ts_tcp_feed(struct sink_tcp *c, unsigned from)
{
    unsigned n = 0;
    for (unsigned i = from; i < ts_ncaps; i++) {
        n += sink_tcp_input(c, &ts_caps[i].s);
    }
    return n;
}

/* ts_advance: move the clock by ms in steps of step_ms, one sink pass per step. */
static void ts_advance(uint64_t ms, uint64_t step_ms)
{
    for (uint64_t t = 0; t < ms; t += step_ms) {
        fsp_clock_advance_ms(step_ms);
        ts_pass();
    }
}

/* ts_assert_idle: as the test found it: no pcb but the listeners, lwIP's pools and heap at
 * the baseline, every buffer home. */
static void ts_assert_idle(void)
{
    ts_advance(500, 250); /* lwIP's TCP timer stops once it finds no connection */
    ts_reclaim();
    fsp_tx_flush();
    assert_false(handoff_pending());
    for (unsigned c = 0; c < FSP_CORES; c++) {
        assert_false(handoff_returns_pending(c));
        assert_int_equal(fsp_pool_free(c), fsp_pool_size(c));
    }
    assert_true(fsp_pools_full());
    for (unsigned i = 0; i < MEMP_MAX; i++) {
        if (lwip_stats.memp[i]->used != ts_memp_base[i]) {
            print_error("lwIP memp pool %u: %u used, %u at the start\n", i,
                        lwip_stats.memp[i]->used, ts_memp_base[i]);
            fail();
        }
    }
    assert_int_equal(lwip_stats.mem.used, ts_mem_base);
    assert_int_equal(sink_netif_stats.rx_wrapped, sink_netif_stats.rx_released);
    for (unsigned s = 0; s < SINK_SERVICE_COUNT; s++) {
        assert_int_equal(sink_stats[s].active, 0);
    }
    fsp_set_next_hop(NEXTHOP_OK);
    ts_ncaps = 0;
}

static int ts_group_setup(void **state)
{
    (void)state;
    fsp_setup(TS_POOL, true);
    if (sink_init(FSP_CORES) != 0 || !sink_running() || !sink_is_core(TS_SINK_CORE)) {
        return -1;
    }
    for (unsigned i = 0; i < MEMP_MAX; i++) {
        ts_memp_base[i] = lwip_stats.memp[i]->used;
    }
    ts_mem_base = lwip_stats.mem.used;
    return 0;
}

static struct sink_peer ts_peer(unsigned core)
{
    return (struct sink_peer){ .ip = TS_CLIENT, .server_ip = TS_SERVER, .port = 0, .core = core };
}

/* --- SipHash and the ISNs ------------------------------------------------------------------- */

/* The reference vectors (SipHash's vectors.h, vectors_sip64): key 00 01 .. 0f, message
 * 00 01 .. (n - 1), for the whole-word lengths 0, 8 and 16 bytes. */
static void test_siphash_reference_vectors(void **state)
{
    (void)state;
    const uint64_t key[2] = { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL };
    const uint64_t m[2] = { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL };
    assert_true(siphash24(key, m, 0) == 0x726fdb47dd0e0e31ULL);
    assert_true(siphash24(key, m, 1) == 0x93f5f5799a932462ULL);
    assert_true(siphash24(key, m, 2) == 0x3f2acc7f57c29bdbULL);
}

static u32_t ts_isn(uint32_t lip, uint16_t lport, uint32_t rip, uint16_t rport)
{
    ip_addr_t l = IPADDR4_INIT(lwip_htonl(lip)), r = IPADDR4_INIT(lwip_htonl(rip));
    return sink_tcp_isn(&l, lport, &r, rport);
}

/* RFC 6528: a different 4-tuple gives an unrelated ISN; one tuple's ISN moves with a 4 us
 * clock, and only with it. */
static void test_isn_per_tuple_and_clock(void **state)
{
    (void)state;
    u32_t a = ts_isn(TS_SERVER, 9, TS_CLIENT, 40000);
    assert_int_equal(a, ts_isn(TS_SERVER, 9, TS_CLIENT, 40000));
    assert_int_not_equal(a, ts_isn(TS_SERVER, 9, TS_CLIENT, 40001));
    assert_int_not_equal(a, ts_isn(TS_SERVER, 7, TS_CLIENT, 40000));
    assert_int_not_equal(a, ts_isn(TS_SERVER, 9, TS_CLIENT + 1, 40000));
    assert_int_not_equal(a, ts_isn(TS_SERVER + 1, 9, TS_CLIENT, 40000));
    assert_int_not_equal(a, ts_isn(TS_SERVER, 40000, TS_CLIENT, 9)); /* ports swapped */
    fsp_clock_set_ns(fsp_clock_ns() + 4000);
    assert_int_equal(ts_isn(TS_SERVER, 9, TS_CLIENT, 40000), a + 1);
    fsp_clock_advance_ms(4);
    assert_int_equal(ts_isn(TS_SERVER, 9, TS_CLIENT, 40000), a + 1 + 1000);
}

/* sys_now (lwIP's clock) and sink_now_ms follow time_ns. */
static void test_clock_follows_time_ns(void **state)
{
    (void)state;
    fsp_clock_set_ns((fsp_clock_ns() / 1000000 + 1) * 1000000); /* on a millisecond */
    u32_t t0 = sys_now();
    assert_int_equal(t0, (u32_t)(fsp_clock_ns() / 1000000));
    assert_int_equal(sink_now_ms(), t0);
    fsp_clock_advance_ms(1234);
    assert_int_equal(sys_now(), t0 + 1234);
    fsp_clock_set_ns(fsp_clock_ns() + 999999); /* less than a millisecond more */
    assert_int_equal(sink_now_ms(), t0 + 1234);
    ts_assert_idle();
}

/* --- zero copy and the buffers' way home ------------------------------------------------------ */

static struct pbuf *ts_held;
static void *ts_held_payload;

static void ts_udp_hold(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr,
                        u16_t port)
{
    (void)arg, (void)pcb, (void)addr, (void)port;
    assert_null(ts_held);
    ts_held = p;
    ts_held_payload = p->payload;
}

/* A datagram from core 2 reaches a UDP pcb as a custom pbuf whose payload is the driver
 * buffer itself; the buffer stays out of core 2's pool while lwIP (here: the application)
 * holds the pbuf, goes onto core 2's return ring when freed, and into the pool only when core 2
 * reclaims. */
static void test_udp_zero_copy_home_to_core2(void **state)
{
    (void)state;
    struct udp_pcb *u = udp_new();
    assert_non_null(u);
    assert_int_equal(udp_bind(u, IP_ADDR_ANY, 6000), ERR_OK);
    udp_recv(u, ts_udp_hold, NULL);

    struct sink_peer p = ts_peer(2);
    const uint8_t payload[100] = { 1, 2, 3 };
    struct pkb *b = sink_peer_udp(&p, 50000, 6000, payload, sizeof(payload));
    assert_non_null(b);
    uint64_t handed = handoff_stats_of(2)->handed;
    uint64_t kicks_sink = fsp_kicks(TS_SINK_CORE), kicks_2 = fsp_kicks(2);
    uint16_t pool_pbufs = lwip_stats.memp[MEMP_PBUF_POOL]->used;
    sink_peer_hand(&p, b);
    assert_int_equal(handoff_stats_of(2)->handed, handed + 1);
    assert_int_equal(fsp_kicks(TS_SINK_CORE), kicks_sink + 1); /* the sink core is woken */
    assert_int_equal(fsp_pool_free(2), TS_POOL - 1);

    assert_int_equal(ts_pass(), 0);
    assert_non_null(ts_held);
    assert_ptr_equal(ts_held_payload, b->data + 14 + 20 + 8); /* no copy: the buffer itself */
    assert_ptr_equal(ts_held, (struct pbuf *)b->stack_wrap);  /* wrapped in place */
    assert_true(ts_held->flags & PBUF_FLAG_IS_CUSTOM);
    assert_int_equal(ts_held->tot_len, sizeof(payload));
    assert_null(ts_held->next);
    assert_memory_equal(ts_held->payload, payload, sizeof(payload));
    assert_int_equal(lwip_stats.memp[MEMP_PBUF_POOL]->used, pool_pbufs); /* nothing copied */

    /* Held: not home, not on the way. */
    assert_int_equal(handoff_reclaim(2), 0);
    assert_int_equal(fsp_pool_free(2), TS_POOL - 1);
    assert_false(handoff_returns_pending(2));

    pbuf_free(ts_held);
    ts_held = NULL;
    assert_true(handoff_returns_pending(2)); /* on core 2's return ring */
    assert_int_equal(fsp_kicks(2), kicks_2 + 1);  /* and core 2 is woken for it */
    assert_int_equal(fsp_pool_free(2), TS_POOL - 1);
    uint64_t reclaimed = handoff_stats_of(2)->reclaimed;
    assert_int_equal(handoff_reclaim(2), 1);
    assert_int_equal(handoff_stats_of(2)->reclaimed, reclaimed + 1);
    assert_int_equal(fsp_pool_free(2), TS_POOL);

    udp_remove(u);
    ts_assert_idle();
}

/* The sink core's own frames: freed straight into its pool, no ring, no kick. */
static void test_sink_core_buffer_freed_directly(void **state)
{
    (void)state;
    struct sink_peer p = ts_peer(TS_SINK_CORE);
    const uint8_t payload[64] = { 0 };
    uint64_t kicks = fsp_kicks(TS_SINK_CORE);
    uint64_t rx = sink_stats[SINK_DISCARD].rx_datagrams;
    sink_peer_hand(&p, sink_peer_udp(&p, 50000, 9, payload, sizeof(payload)));
    assert_int_equal(fsp_kicks(TS_SINK_CORE), kicks); /* a core does not kick itself */
    assert_int_equal(fsp_pool_free(TS_SINK_CORE), TS_POOL - 1);
    assert_int_equal(ts_pass(), 0);
    assert_int_equal(sink_stats[SINK_DISCARD].rx_datagrams, rx + 1);
    assert_int_equal(fsp_pool_free(TS_SINK_CORE), TS_POOL); /* home without a reclaim */
    assert_false(handoff_returns_pending(TS_SINK_CORE));
    ts_assert_idle();
}

/* UDP discard counts and frees; UDP echo answers from the sink core's pool, on the port the
 * FIB picks, with correct checksums. */
static void test_udp_discard_and_echo(void **state)
{
    (void)state;
    struct sink_peer p = ts_peer(1);
    uint8_t payload[300];
    for (unsigned i = 0; i < sizeof(payload); i++) {
        payload[i] = (uint8_t)(i * 7);
    }
    struct sink_service_stats d0 = sink_stats[SINK_DISCARD], e0 = sink_stats[SINK_ECHO];
    sink_peer_hand(&p, sink_peer_udp(&p, 40001, 9, payload, sizeof(payload)));
    sink_peer_hand(&p, sink_peer_udp(&p, 40002, 7, payload, sizeof(payload)));
    assert_int_equal(ts_pass(), 1);
    assert_int_equal(sink_stats[SINK_DISCARD].rx_datagrams, d0.rx_datagrams + 1);
    assert_int_equal(sink_stats[SINK_DISCARD].rx_bytes, d0.rx_bytes + sizeof(payload));
    assert_int_equal(sink_stats[SINK_ECHO].rx_datagrams, e0.rx_datagrams + 1);
    assert_int_equal(sink_stats[SINK_ECHO].tx_datagrams, e0.tx_datagrams + 1);

    const struct ts_cap *c = &ts_caps[0];
    uint8_t mac[6];
    assert_int_equal(c->port, 0);
    assert_int_equal(c->owner, TS_SINK_CORE); /* sent from the sink core's own pool */
    fsp_peer_mac(TS_CLIENT, mac);
    assert_memory_equal(c->s.dst_mac, mac, 6);
    fsp_port_mac(0, mac);
    assert_memory_equal(c->s.src_mac, mac, 6);
    assert_int_equal(c->s.proto, SP_PROTO_UDP);
    assert_int_equal(c->s.src, TS_SERVER);
    assert_int_equal(c->s.dst, TS_CLIENT);
    assert_int_equal(c->s.sport, 7);
    assert_int_equal(c->s.dport, 40002);
    assert_int_equal(c->s.len, sizeof(payload));
    assert_memory_equal(c->s.data, payload, sizeof(payload));

    /* Both buffers are core 1's: home after core 1 reclaims them. */
    assert_int_equal(fsp_pool_free(1), TS_POOL - 2);
    assert_int_equal(handoff_reclaim(1), 2);
    ts_assert_idle();
}

/* Port1's address and subnet: the reply leaves by port1, from 198.19.0.1. */
static void test_udp_echo_on_port1(void **state)
{
    (void)state;
    struct sink_peer p = { .ip = 0xc6130002u, .server_ip = 0xc6130001u, .port = 1, .core = 0 };
    const uint8_t payload[32] = { 4, 5, 6 };
    sink_peer_hand(&p, sink_peer_udp(&p, 40005, 7, payload, sizeof(payload)));
    assert_int_equal(ts_pass(), 1);
    assert_int_equal(ts_caps[0].port, 1);
    assert_int_equal(ts_caps[0].s.src, 0xc6130001u);
    assert_int_equal(ts_caps[0].s.dst, 0xc6130002u);
    assert_memory_equal(ts_caps[0].s.data, payload, sizeof(payload));
    ts_assert_idle();
}

/* Without a next hop, the reply is dropped and counted; nothing leaks. */
static void test_udp_echo_unresolved_next_hop(void **state)
{
    (void)state;
    struct sink_peer p = ts_peer(0);
    const uint8_t payload[20] = { 9 };
    uint64_t unresolved = sink_netif_stats.tx_unresolved;
    fsp_set_next_hop(NEXTHOP_UNRESOLVED);
    sink_peer_hand(&p, sink_peer_udp(&p, 40003, 7, payload, sizeof(payload)));
    assert_int_equal(ts_pass(), 0);
    assert_int_equal(sink_netif_stats.tx_unresolved, unresolved + 1);
    ts_assert_idle();
}

/* A full handoff ring: the next frame is dropped on the producing core, counted, its buffer
 * back in that core's pool at once; the ring's frames all reach lwIP afterwards. */
static void test_handoff_ring_full_drops_and_counts(void **state)
{
    (void)state;
    struct sink_peer p = ts_peer(2);
    const uint8_t payload[18] = { 0 };
    struct handoff_stats h0 = *handoff_stats_of(2);
    uint64_t rx = sink_stats[SINK_DISCARD].rx_datagrams;
    for (unsigned i = 0; i < HANDOFF_RING; i++) {
        sink_peer_hand(&p, sink_peer_udp(&p, 40004, 9, payload, sizeof(payload)));
    }
    assert_int_equal(handoff_stats_of(2)->ring_full, h0.ring_full);
    assert_int_equal(fsp_pool_free(2), TS_POOL - HANDOFF_RING);
    sink_peer_hand(&p, sink_peer_udp(&p, 40004, 9, payload, sizeof(payload)));
    assert_int_equal(handoff_stats_of(2)->ring_full, h0.ring_full + 1);
    assert_int_equal(handoff_stats_of(2)->handed, h0.handed + HANDOFF_RING);
    assert_int_equal(fsp_pool_free(2), TS_POOL - HANDOFF_RING); /* the dropped one is home */

    while (handoff_pending()) {
        ts_pass();
    }
    assert_int_equal(sink_stats[SINK_DISCARD].rx_datagrams, rx + HANDOFF_RING);
    assert_int_equal(handoff_reclaim(2), HANDOFF_RING);
    ts_assert_idle();
}

/* --- TCP ------------------------------------------------------------------------------------- */

/* ts_connect: the three-way handshake to dport from core `core`; checks the SYN-ACK. */
static void ts_connect(struct sink_tcp *c, struct sink_peer *p, uint16_t sport, uint16_t dport)
{
    sink_tcp_init(c, p, sport, dport, 0x10000000u + sport);
    sink_peer_hand(p, sink_tcp_syn(c));
    unsigned from = ts_ncaps;
    assert_int_equal(ts_pass(), 1);
    assert_int_equal(ts_tcp_feed(c, from), 1);
    const struct sink_seg *s = &ts_caps[from].s;
    assert_int_equal(s->flags, SP_TCP_SYN | SP_TCP_ACK);
    assert_int_equal(s->ack, c->iss + 1);
    assert_int_equal(s->mss, 1460);
    assert_int_equal(s->wscale, 4); /* lwipopts.h: TCP_RCV_SCALE */
    assert_true(c->established);
    sink_peer_hand(p, sink_tcp_ack(c));
    assert_int_equal(ts_pass(), 0);
    assert_int_equal(handoff_reclaim(p->core), 2); /* the SYN's and the ACK's buffers */
}

/* ts_close: the client closes, the service closes back, the client acknowledges. */
static void ts_close(struct sink_tcp *c)
{
    unsigned from = ts_ncaps;
    sink_peer_hand(c->peer, sink_tcp_fin(c));
    ts_pass();
    ts_advance(500, 250); /* a delayed ACK or the service's FIN */
    ts_tcp_feed(c, from);
    assert_true(c->fin_received);
    assert_int_equal(c->snd_una, c->snd_nxt); /* our FIN acknowledged */
    sink_peer_hand(c->peer, sink_tcp_ack(c));
    ts_pass();
}

/* Handshake, a segment with a bad checksum (dropped), 100 full segments in order, FIN: discard
 * counts every byte, acknowledges them all, keeps the window open; the connection ends cleanly
 * and every buffer is home. */
static void test_tcp_discard_stream(void **state)
{
    (void)state;
    struct sink_peer p = ts_peer(2);
    struct sink_tcp c;
    struct sink_service_stats d0 = sink_stats[SINK_DISCARD];
    ts_connect(&c, &p, 40010, 9);
    assert_int_equal(sink_stats[SINK_DISCARD].active, 1);

    /* A segment whose checksum does not verify is dropped by lwIP, counted, its buffer home. */
    uint32_t chkerr = lwip_stats.tcp.chkerr;
    struct pkb *bad = sink_tcp_segment(&c, SP_TCP_ACK, c.snd_nxt, c.rcv_nxt, NULL, 0, NULL, 100);
    bad->data[14 + 20 + 20 + 50] ^= 0x01;
    sink_peer_hand(&p, bad);
    assert_int_equal(ts_pass(), 0);
    assert_int_equal(lwip_stats.tcp.chkerr, chkerr + 1);
    assert_int_equal(sink_stats[SINK_DISCARD].rx_bytes, d0.rx_bytes);
    assert_int_equal(handoff_reclaim(2), 1);
    for (unsigned i = 0; i < 100; i++) {
        unsigned from = ts_ncaps;
        sink_peer_hand(&p, sink_tcp_data(&c, NULL, 1448));
        ts_pass();
        ts_tcp_feed(&c, from);
        ts_reclaim();
        assert_true(c.snd_wnd >= 65535); /* discard reads at once: the window stays open */
    }
    ts_advance(500, 250); /* the delayed ACK of an odd last segment */
    ts_tcp_feed(&c, 0);
    assert_int_equal(c.snd_una, c.snd_nxt);
    assert_int_equal(sink_stats[SINK_DISCARD].rx_bytes, d0.rx_bytes + 100 * 1448);
    assert_false(c.rst_received);
    ts_close(&c);
    assert_int_equal(sink_stats[SINK_DISCARD].tests_run, d0.tests_run + 1);
    assert_int_equal(sink_stats[SINK_DISCARD].tests_done, d0.tests_done + 1);
    ts_assert_idle();
}

/* Software receive offload (net/gro.h): a burst of 30 in-order full segments (no NIC verdict:
 * each checksum checked by the sink's own sum) reaches lwIP as one aggregate, discard counts
 * every byte and one ACK covers them all; a segment with a bad checksum in the middle is not
 * merged: lwIP drops it and the run after it waits for it; nothing is reordered. */
static void test_tcp_segments_aggregated(void **state)
{
    (void)state;
    struct sink_peer p = ts_peer(2);
    struct sink_tcp c;
    ts_connect(&c, &p, 40018, 9);
    uint64_t rx0 = sink_stats[SINK_DISCARD].rx_bytes;
    struct sink_netif_stats n0 = sink_netif_stats;
    unsigned from = ts_ncaps;
    for (unsigned i = 0; i < 30; i++) {
        sink_peer_hand(&p, sink_tcp_segment(&c, SP_TCP_ACK | (i == 29 ? SP_TCP_PSH : 0),
                                            c.snd_nxt, c.rcv_nxt, NULL, 0, NULL, 1448));
        c.snd_nxt += 1448;
    }
    ts_pass();
    assert_int_equal(sink_netif_stats.rx_gro_aggregates, n0.rx_gro_aggregates + 1);
    assert_int_equal(sink_netif_stats.rx_gro_merged, n0.rx_gro_merged + 29);
    assert_int_equal(sink_netif_stats.rx_csum_sw_verified, n0.rx_csum_sw_verified + 30);
    assert_int_equal(sink_stats[SINK_DISCARD].rx_bytes, rx0 + 30 * 1448);
    assert_int_equal(ts_tcp_feed(&c, from), 1); /* one ACK */
    assert_int_equal(c.snd_una, c.snd_nxt);
    assert_int_equal(ts_reclaim(), 30);

    /* 10 segments, the 5th with a corrupted byte: 4 merge, the bad one alone (dropped by
     * lwIP's check), the 5 after it one aggregate that lwIP queues out of order. */
    uint32_t chkerr = lwip_stats.tcp.chkerr;
    uint32_t start = c.snd_nxt;
    for (unsigned i = 0; i < 10; i++) {
        struct pkb *b = sink_tcp_segment(&c, SP_TCP_ACK, c.snd_nxt, c.rcv_nxt, NULL, 0, NULL,
                                         1448);
        if (i == 4) {
            b->data[14 + 20 + 20 + 700] ^= 0x40;
        }
        sink_peer_hand(&p, b);
        c.snd_nxt += 1448;
    }
    from = ts_ncaps;
    ts_pass();
    assert_int_equal(lwip_stats.tcp.chkerr, chkerr + 1);
    assert_int_equal(sink_netif_stats.rx_gro_aggregates, n0.rx_gro_aggregates + 3);
    assert_int_equal(sink_stats[SINK_DISCARD].rx_bytes, rx0 + 34 * 1448);
    ts_tcp_feed(&c, from);
    assert_int_equal(c.snd_una, start + 4 * 1448); /* up to the hole */
    c.snd_nxt = start + 4 * 1448; /* the client sends the lost one again */
    sink_peer_hand(&p, sink_tcp_data(&c, NULL, 1448));
    c.snd_nxt = start + 10 * 1448;
    from = ts_ncaps;
    ts_pass();
    ts_advance(500, 250);
    ts_tcp_feed(&c, from);
    assert_int_equal(c.snd_una, c.snd_nxt);
    assert_int_equal(sink_stats[SINK_DISCARD].rx_bytes, rx0 + 40 * 1448);
    ts_reclaim();
    ts_close(&c);
    ts_assert_idle();
}

/* A run of segments that starts with bytes echo already has (the client retransmitting what
 * it thinks lost, with new data behind): lwIP trims the aggregate's front, leaving empty pbufs
 * at the head of the chain it delivers; echo skips them and sends back exactly the new bytes. */
/* ts_echo_back: the client acknowledges what comes back until it has `want` bytes. */
static void ts_echo_back(struct sink_tcp *e, uint64_t want)
{
    for (unsigned round = 0; round < 200 && e->data_received < want; round++) {
        unsigned from = ts_ncaps;
        sink_peer_hand(e->peer, sink_tcp_ack(e));
        ts_advance(10, 10);
        ts_tcp_feed(e, from);
        ts_reclaim();
    }
}

static void test_tcp_echo_after_an_overlapping_run(void **state)
{
    (void)state;
    struct sink_peer p = ts_peer(1);
    struct sink_tcp e;
    ts_connect(&e, &p, 40019, 7);
    uint32_t base = e.snd_nxt;
    unsigned from = ts_ncaps;
    for (unsigned i = 0; i < 4; i++) {
        sink_peer_hand(&p, sink_tcp_segment(&e, SP_TCP_ACK, base + i * 1000, e.rcv_nxt, NULL, 0,
                                            NULL, 1000));
    }
    e.snd_nxt = base + 4000;
    ts_pass();
    ts_tcp_feed(&e, from);
    ts_echo_back(&e, 4000);
    assert_int_equal(e.data_received, 4000);
    uint64_t merged = sink_netif_stats.rx_gro_merged;
    from = ts_ncaps;
    for (unsigned i = 2; i < 6; i++) { /* 2000 bytes it has, then 2000 new */
        sink_peer_hand(&p, sink_tcp_segment(&e, SP_TCP_ACK, base + i * 1000, e.rcv_nxt, NULL, 0,
                                            NULL, 1000));
    }
    e.snd_nxt = base + 6000;
    ts_pass();
    ts_tcp_feed(&e, from);
    assert_int_equal(sink_netif_stats.rx_gro_merged, merged + 3);
    ts_echo_back(&e, 6000);
    assert_int_equal(e.data_received, 6000);
    assert_int_equal(e.snd_una, e.snd_nxt);
    assert_int_equal(sink_stats[SINK_ECHO].active, 1);
    ts_close(&e);
    ts_assert_idle();
}

/* Small writes (a Nagle client's) are acknowledged in the pass that received them, without
 * waiting for lwIP's 250 ms delayed-ACK timer: one burst of one, of two and of three 64-byte
 * segments gets one ACK each time (lwIP's every-second-segment rule ACKs the second of two at
 * once; the end of the burst covers the lone one and the third), all data acknowledged and
 * the clock never moved. */
static void test_tcp_small_writes_acked_each_burst(void **state)
{
    (void)state;
    struct sink_peer p = ts_peer(2);
    struct sink_tcp c;
    ts_connect(&c, &p, 40020, 9);
    uint64_t burst_acks = lwport_tcp_stats.burst_acks;
    for (unsigned burst = 1; burst <= 3; burst++) {
        unsigned from = ts_ncaps;
        uint64_t acks = c.acks_received;
        for (unsigned i = 0; i < burst; i++) {
            sink_peer_hand(&p, sink_tcp_data(&c, NULL, 64));
        }
        ts_pass();
        ts_tcp_feed(&c, from);
        ts_reclaim();
        assert_int_equal(c.snd_una, c.snd_nxt); /* all acknowledged, no clock advance */
        assert_int_equal(c.acks_received - acks, burst == 3 ? 2 : 1);
    }
    assert_int_equal(lwport_tcp_stats.burst_acks, burst_acks + 2); /* bursts of one and three */
    ts_close(&c);
    ts_assert_idle();
}

static struct pbuf *ts_tcp_held;
static struct tcp_pcb *ts_tcp_accepted;

static err_t ts_tcp_hold_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    (void)arg, (void)err;
    if (p == NULL) {
        tcp_arg(pcb, NULL);
        tcp_recv(pcb, NULL);
        return tcp_close(pcb);
    }
    if (ts_tcp_held == NULL) {
        ts_tcp_held = p;
    } else {
        pbuf_cat(ts_tcp_held, p);
    }
    return ERR_OK;
}

static err_t ts_tcp_hold_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
    (void)arg, (void)err;
    ts_tcp_accepted = pcb;
    tcp_recv(pcb, ts_tcp_hold_recv);
    return ERR_OK;
}

/* ts_listen: a listener of the test's own on port, its connections set up by accept. */
static struct tcp_pcb *ts_listen(uint16_t port, tcp_accept_fn accept)
{
    struct tcp_pcb *l = tcp_new();
    assert_non_null(l);
    assert_int_equal(tcp_bind(l, IP_ADDR_ANY, port), ERR_OK);
    l = tcp_listen(l);
    assert_non_null(l);
    tcp_accept(l, accept);
    return l;
}

/* ts_hold_listen: a listener on port whose connections keep what they receive (ts_tcp_held). */
static struct tcp_pcb *ts_hold_listen(uint16_t port)
{
    return ts_listen(port, ts_tcp_hold_accept);
}

/* ts_hold_release: the application takes and lets go of everything it kept. */
static void ts_hold_release(void)
{
    tcp_recved(ts_tcp_accepted, ts_tcp_held->tot_len);
    pbuf_free(ts_tcp_held);
    ts_tcp_held = NULL;
}

/* TCP data reaches the application as the driver buffer (no copy), and an out-of-order
 * segment's buffer is held by lwIP until the hole is filled. */
static void test_tcp_zero_copy_and_out_of_order(void **state)
{
    (void)state;
    struct tcp_pcb *l = ts_hold_listen(6001);

    struct sink_peer p = ts_peer(2);
    struct sink_tcp c;
    ts_connect(&c, &p, 40011, 6001);

    uint64_t ooo = lwport_tcp_stats.out_of_order;
    uint32_t seq1 = c.snd_nxt;
    struct pkb *b1 = sink_tcp_segment(&c, SP_TCP_ACK, seq1, c.rcv_nxt, NULL, 0, NULL, 1000);
    struct pkb *b2 = sink_tcp_segment(&c, SP_TCP_ACK, seq1 + 1000, c.rcv_nxt, NULL, 0, NULL, 1000);
    c.snd_nxt += 2000;
    sink_peer_hand(&p, b2); /* the second first: a hole before it */
    ts_pass();
    assert_int_equal(lwport_tcp_stats.out_of_order, ooo + 1);
    assert_null(ts_tcp_held);
    assert_int_equal(ts_reclaim(), 0); /* queued out of order: lwIP holds it */
    assert_int_equal(fsp_pool_free(2), TS_POOL - 2); /* b2 in lwIP, b1 not sent yet */

    sink_peer_hand(&p, b1);
    ts_pass();
    assert_non_null(ts_tcp_held);
    assert_int_equal(ts_tcp_held->tot_len, 2000);
    assert_ptr_equal(ts_tcp_held->payload, b1->data + 14 + 20 + 20); /* the buffer itself */
    assert_true(ts_tcp_held->flags & PBUF_FLAG_IS_CUSTOM);
    assert_non_null(ts_tcp_held->next);
    assert_ptr_equal(ts_tcp_held->next->payload, b2->data + 14 + 20 + 20);
    assert_int_equal(ts_reclaim(), 0); /* both held by the application now */

    assert_non_null(ts_tcp_accepted);
    ts_hold_release();
    assert_int_equal(ts_reclaim(), 2);
    assert_int_equal(fsp_pool_free(2), TS_POOL);

    ts_close(&c);
    tcp_close(l);
    ts_assert_idle();
}

/* ts_hand_held_bytes: n one-byte segments in order from the client (a pass every 32, the
 * captures dropped: only what lwIP keeps matters here). */
static void ts_hand_held_bytes(struct sink_tcp *c, unsigned n)
{
    uint8_t byte = 'h';
    for (unsigned i = 0; i < n; i++) {
        sink_peer_hand(c->peer, sink_tcp_data(c, &byte, 1));
        if (i % 32 == 31 || i == n - 1) {
            ts_pass();
            ts_ncaps = 0;
        }
    }
}

/* lwIP may hold at most half of a core's pool (sink_netif.h): an application that keeps what it
 * receives (as echo does for a client that will not read) gets no more of that core's buffers
 * once it holds half; the frame beyond is dropped, counted and home at once; once lwIP lets go,
 * the client's retransmission gets through. */
static void test_lwip_holds_at_most_half_a_pool(void **state)
{
    (void)state;
    const unsigned half = TS_POOL / 2;
    struct tcp_pcb *l = ts_hold_listen(6002);
    struct sink_peer p = ts_peer(2);
    struct sink_tcp c;
    ts_connect(&c, &p, 40013, 6002);

    uint64_t limited = sink_netif_stats.rx_hold_limit;
    ts_hand_held_bytes(&c, half);
    assert_non_null(ts_tcp_held);
    assert_int_equal(ts_tcp_held->tot_len, half);
    assert_int_equal(pbuf_clen(ts_tcp_held), half); /* each byte in its own driver buffer */
    assert_int_equal(fsp_pool_free(2), TS_POOL - half);
    assert_int_equal(sink_netif_stats.rx_hold_limit, limited);

    ts_hand_held_bytes(&c, 1); /* one more than half */
    assert_int_equal(sink_netif_stats.rx_hold_limit, limited + 1);
    assert_int_equal(ts_tcp_held->tot_len, half);
    assert_int_equal(ts_reclaim(), 1); /* the dropped frame's buffer went straight home */
    assert_int_equal(fsp_pool_free(2), TS_POOL - half);

    ts_hold_release();
    assert_int_equal(ts_reclaim(), half);
    c.snd_nxt -= 1; /* the client sends the unacknowledged byte again */
    ts_hand_held_bytes(&c, 1);
    assert_int_equal(sink_netif_stats.rx_hold_limit, limited + 1);
    assert_non_null(ts_tcp_held);
    assert_int_equal(ts_tcp_held->tot_len, 1);
    ts_hold_release();

    ts_close(&c);
    tcp_close(l);
    ts_assert_idle();
}

/* TCP echo returns what it was sent. */
static void test_tcp_echo(void **state)
{
    (void)state;
    struct sink_peer p = ts_peer(1);
    struct sink_tcp c;
    ts_connect(&c, &p, 40012, 7);
    uint8_t msg[1000];
    for (unsigned i = 0; i < sizeof(msg); i++) {
        msg[i] = (uint8_t)(i ^ 0x5a);
    }
    unsigned from = ts_ncaps;
    sink_peer_hand(&p, sink_tcp_data(&c, msg, sizeof(msg)));
    ts_pass();
    ts_tcp_feed(&c, from);
    assert_int_equal(c.data_received, sizeof(msg));
    const struct sink_seg *s = NULL;
    for (unsigned i = from; i < ts_ncaps; i++) {
        if (ts_caps[i].s.len) {
            s = &ts_caps[i].s;
        }
    }
    assert_non_null(s);
    assert_memory_equal(s->data, msg, sizeof(msg));
    ts_close(&c);
    ts_assert_idle();
}

/* ts_echo_segments: echo 1000 bytes on a new connection; checks every frame the sink sent for
 * it asked the NIC for `want` (PKB_TX_CSUM_TCP4 or 0); ts_collect checked every checksum as
 * the client sees it. Returns the TCP frames sent. */
static unsigned ts_echo_segments(uint16_t sport, uint16_t want)
{
    struct sink_peer p = ts_peer(1);
    struct sink_tcp c;
    unsigned from = ts_ncaps;
    ts_connect(&c, &p, sport, 7);
    uint8_t msg[1000];
    memset(msg, 0xa5, sizeof(msg));
    sink_peer_hand(&p, sink_tcp_data(&c, msg, sizeof(msg)));
    ts_pass();
    ts_tcp_feed(&c, from);
    assert_int_equal(c.data_received, sizeof(msg));
    ts_close(&c);
    unsigned tcp = 0;
    for (unsigned i = from; i < ts_ncaps; i++) {
        if (ts_caps[i].s.proto == SP_PROTO_TCP) {
            /* and the IPv4 header's sum with it, on a frame the NIC need not pad */
            uint16_t ip4 = want && ts_caps[i].s.ip_len + 14u >= 60 ? PKB_TX_CSUM_IP4 : 0;
            assert_int_equal(ts_caps[i].tx_flags, want | ip4);
            tcp++;
        }
    }
    return tcp;
}

/* lwIP sums no outgoing TCP segment: on a port whose NIC completes the checksum the glue
 * primes the pseudo-header sum and marks the frame; on one without, it sums the segment
 * itself. Either way the client sees correct checksums (ts_collect), and each frame is
 * counted once, on its side. */
static void test_tcp_checksum_left_to_the_nic_or_summed(void **state)
{
    (void)state;
    uint64_t off0 = sink_netif_stats.tx_csum_offloaded, sw0 = sink_netif_stats.tx_csum_sw;
    uint64_t nic0 = fsp_tx_csum_done();
    unsigned n = ts_echo_segments(40020, PKB_TX_CSUM_TCP4);
    assert_true(n >= 3); /* SYN-ACK, the echo, the FIN at least */
    assert_int_equal(sink_netif_stats.tx_csum_offloaded - off0, n);
    assert_int_equal(sink_netif_stats.tx_csum_sw, sw0);
    assert_int_equal(fsp_tx_csum_done() - nic0, n);
    ts_assert_idle();

    fsp_set_tx_csum_offload(false);
    off0 = sink_netif_stats.tx_csum_offloaded;
    nic0 = fsp_tx_csum_done();
    n = ts_echo_segments(40021, 0);
    assert_true(n >= 3);
    assert_int_equal(sink_netif_stats.tx_csum_sw - sw0, n);
    assert_int_equal(sink_netif_stats.tx_csum_offloaded, off0);
    assert_int_equal(fsp_tx_csum_done(), nic0);
    fsp_set_tx_csum_offload(true);
    ts_assert_idle();
}

/* A server of the test's own that writes a constant buffer without copying it, as netperf's
 * TCP_MAERTS and iperf3 -R do (tcp_write without TCP_WRITE_FLAG_COPY). */
#define TS_REF_PORT 5999
#define TS_REF_BYTES 3000
static uint8_t ts_ref_data[4096];

static err_t ts_ref_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    (void)arg;
    (void)err;
    if (p == NULL) {
        tcp_arg(pcb, NULL);
        tcp_recv(pcb, NULL);
        return tcp_close(pcb);
    }
    tcp_recved(pcb, p->tot_len);
    pbuf_free(p);
    /* the client's request: the answer, not copied (lwIP sends it after this callback) */
    assert_int_equal(tcp_write(pcb, ts_ref_data, TS_REF_BYTES, 0), ERR_OK);
    return ERR_OK;
}

static err_t ts_ref_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
    (void)arg;
    (void)err;
    tcp_recv(pcb, ts_ref_recv);
    return ERR_OK;
}

/* ts_ref_stream: connect to the server, read what it sent (checked byte for byte against the
 * constant buffer), close; returns the data segments and how many left by reference. */
static unsigned ts_ref_stream(uint16_t sport, unsigned *by_ref)
{
    struct sink_peer p = ts_peer(1);
    struct sink_tcp c;
    unsigned from = ts_ncaps;
    ts_connect(&c, &p, sport, TS_REF_PORT);
    uint8_t go = 'g';
    sink_peer_hand(&p, sink_tcp_data(&c, &go, 1));
    ts_pass();
    ts_tcp_feed(&c, from);
    if (c.data_received < TS_REF_BYTES) { /* the rest once the first segments are acked */
        unsigned more = ts_ncaps;
        sink_peer_hand(&p, sink_tcp_ack(&c));
        ts_pass();
        ts_tcp_feed(&c, more);
    }
    assert_int_equal(c.data_received, TS_REF_BYTES);
    unsigned segs = 0, off = 0;
    *by_ref = 0;
    for (unsigned i = from; i < ts_ncaps; i++) {
        const struct sink_seg *g = &ts_caps[i].s;
        if (g->proto != SP_PROTO_TCP || g->len == 0) {
            continue;
        }
        assert_true(off + g->len <= TS_REF_BYTES);
        assert_memory_equal(g->data, ts_ref_data + off, g->len);
        off += g->len;
        segs++;
        *by_ref += (ts_caps[i].tx_flags & PKB_TX_EXT) != 0;
    }
    assert_int_equal(off, TS_REF_BYTES);
    ts_close(&c);
    ts_advance(500, 250);
    ts_reclaim();
    return segs;
}

/* What lwIP sends from memory registered as constant leaves by reference (the NIC reads the
 * data where it lies: a second descriptor), the headers alone copied; the client gets every
 * byte as it is there. A port without the checksum offload gets copies (the glue would have
 * to read the data to sum it anyway). */
static void test_constant_data_leaves_by_reference(void **state)
{
    (void)state;
    for (unsigned i = 0; i < sizeof(ts_ref_data); i++) {
        ts_ref_data[i] = (uint8_t)(i * 37 + 11);
    }
    sink_netif_constant(ts_ref_data, sizeof(ts_ref_data));
    struct tcp_pcb *l = ts_listen(TS_REF_PORT, ts_ref_accept);

    uint64_t ref0 = sink_netif_stats.tx_by_reference, ext0 = fsp_tx_ext_done();
    unsigned by_ref;
    unsigned segs = ts_ref_stream(41000, &by_ref);
    assert_int_equal(segs, 3); /* 1460 + 1460 + 80 */
    assert_int_equal(by_ref, segs);
    assert_int_equal(sink_netif_stats.tx_by_reference - ref0, segs);
    assert_int_equal(fsp_tx_ext_done() - ext0, segs);

    fsp_set_tx_csum_offload(false);
    ref0 = sink_netif_stats.tx_by_reference;
    segs = ts_ref_stream(41001, &by_ref);
    fsp_set_tx_csum_offload(true);
    assert_int_equal(by_ref, 0);
    assert_int_equal(sink_netif_stats.tx_by_reference, ref0);
    tcp_close(l);
    ts_assert_idle();
}

/* A server of the test's own whose connections are offloaded (lwport_tcp_offload_segments):
 * asked, it writes TS_TSO_BYTES from a constant buffer, first to the buffer's end, then from
 * its start again (two pieces of memory), as netperf's TCP_MAERTS wraps round np_fill. */
#define TS_TSO_PORT 5998
#define TS_TSO_BYTES 40000u
static uint8_t ts_tso_data[24000];
static u8_t ts_tso_write_flags; /* TCP_WRITE_FLAG_COPY: what a zero-window probe's split does */

static err_t ts_tso_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    (void)arg;
    (void)err;
    if (p == NULL) {
        tcp_arg(pcb, NULL);
        tcp_recv(pcb, NULL);
        return tcp_close(pcb);
    }
    tcp_recved(pcb, p->tot_len);
    pbuf_free(p);
    assert_true(tcp_mss(pcb) > 1460); /* the request raised it (the peer's first segment) */
    assert_int_equal(tcp_write(pcb, ts_tso_data, sizeof(ts_tso_data), ts_tso_write_flags),
                     ERR_OK);
    assert_int_equal(tcp_write(pcb, ts_tso_data, TS_TSO_BYTES - sizeof(ts_tso_data),
                               ts_tso_write_flags),
                     ERR_OK);
    return ERR_OK;
}

static err_t ts_tso_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
    (void)arg;
    (void)err;
    lwport_tcp_offload_segments(pcb);
    assert_int_equal(tcp_mss(pcb), 1460); /* not before the handshake's end is behind it */
    tcp_recv(pcb, ts_tso_recv);
    return ERR_OK;
}

/* ts_tso_stream: ask the server for its bytes and read them all, acknowledging what arrived
 * after each pass; checks each wire segment (within the MSS, checksums verified by ts_collect)
 * and every byte. Returns the data segments. */
static unsigned ts_tso_stream(uint16_t sport)
{
    struct sink_peer p = ts_peer(1);
    struct sink_tcp c;
    unsigned from = ts_ncaps;
    ts_connect(&c, &p, sport, TS_TSO_PORT);
    uint8_t go = 'g';
    sink_peer_hand(&p, sink_tcp_data(&c, &go, 1));
    for (unsigned i = 0; i < 20 && c.data_received < TS_TSO_BYTES; i++) {
        unsigned at = ts_ncaps;
        ts_pass();
        ts_tcp_feed(&c, at);
        sink_peer_hand(&p, sink_tcp_ack(&c));
    }
    ts_pass();
    assert_int_equal(c.data_received, TS_TSO_BYTES);
    unsigned segs = 0, off = 0;
    for (unsigned i = from; i < ts_ncaps; i++) {
        const struct sink_seg *g = &ts_caps[i].s;
        if (g->proto != SP_PROTO_TCP || g->len == 0) {
            continue;
        }
        assert_true(g->len <= 1460);
        assert_int_equal(g->seq - c.irs - 1, off); /* in order, none twice */
        for (unsigned k = 0; k < g->len; k++) {
            assert_int_equal(g->data[k], ts_tso_data[(off + k) % sizeof(ts_tso_data)]);
        }
        off += g->len;
        segs++;
    }
    assert_int_equal(off, TS_TSO_BYTES);
    ts_close(&c);
    ts_advance(500, 250);
    ts_reclaim();
    return segs;
}

/* An offloaded connection: lwIP builds segments of up to 16 KiB once the peer has spoken after
 * the handshake, each piece of constant memory in them leaves as one frame the NIC cuts at the
 * peer's MSS (the fake NIC cuts as the chips do), and the client reads every byte, in order, in
 * segments of at most its MSS with good checksums. A port that cannot cut gets the same
 * segments cut by the glue, still by reference. */
static void test_offloaded_connection_segments_on_the_nic(void **state)
{
    (void)state;
    for (unsigned i = 0; i < sizeof(ts_tso_data); i++) {
        ts_tso_data[i] = (uint8_t)(i * 53 + 3);
    }
    sink_netif_constant(ts_tso_data, sizeof(ts_tso_data));
    struct tcp_pcb *l = ts_listen(TS_TSO_PORT, ts_tso_accept);
    uint64_t conns0 = lwport_tcp_stats.tso_connections, tso0 = sink_netif_stats.tx_tso_frames;
    uint64_t nic0 = fsp_tx_tso_done(), split0 = sink_netif_stats.tx_split_frames;
    unsigned segs = ts_tso_stream(42000);
    /* lwIP's segments: 16060; 7940 + 8120 (the second write fills the first one's last
     * segment: two pieces, two frames); 7880. On the wire: 11, 6 + 6, 6. */
    assert_int_equal(segs, 29);
    assert_int_equal(lwport_tcp_stats.tso_connections - conns0, 1);
    assert_int_equal(sink_netif_stats.tx_tso_frames - tso0, 4);
    assert_int_equal(fsp_tx_tso_done() - nic0, sink_netif_stats.tx_tso_frames - tso0);
    assert_int_equal(sink_netif_stats.tx_split_frames, split0);

    fsp_set_tx_tso(false);
    tso0 = sink_netif_stats.tx_tso_frames;
    uint64_t ref0 = sink_netif_stats.tx_by_reference;
    segs = ts_tso_stream(42001);
    fsp_set_tx_tso(true);
    assert_int_equal(sink_netif_stats.tx_tso_frames, tso0);
    assert_true(sink_netif_stats.tx_split_frames - split0 >= 20);
    assert_true(sink_netif_stats.tx_by_reference - ref0 >= 20);

    /* data lwIP copied (as it does when it splits a segment for a zero-window probe) is never
     * left by reference: the glue cuts it into copies */
    ts_tso_write_flags = TCP_WRITE_FLAG_COPY;
    tso0 = sink_netif_stats.tx_tso_frames;
    ref0 = sink_netif_stats.tx_by_reference;
    split0 = sink_netif_stats.tx_split_frames;
    segs = ts_tso_stream(42002);
    ts_tso_write_flags = 0;
    assert_int_equal(sink_netif_stats.tx_tso_frames, tso0);
    assert_int_equal(sink_netif_stats.tx_by_reference, ref0);
    assert_true(sink_netif_stats.tx_split_frames - split0 >= 20);
    tcp_close(l);
    ts_assert_idle();
}

/* ts_pcb_on: the active pcb with local port lport (the service's side of a connection). */
static struct tcp_pcb *ts_pcb_on(uint16_t lport)
{
    for (struct tcp_pcb *pcb = tcp_active_pcbs; pcb; pcb = pcb->next) {
        if (pcb->local_port == lport) {
            return pcb;
        }
    }
    return NULL;
}

/* A client that sends to echo and reads nothing back: echo keeps at most ECHO_MAX_UNACKED
 * (64 KiB, apps/sink/basic.c) of it in lwIP's heap, not the 256 KiB send buffer, and leaves
 * the rest unacknowledged, so the client's window closes; once the client acknowledges what
 * it got, everything comes back. The client sends without waiting, but within what echo can
 * take unacknowledged: the 64 KiB queued plus its 64 KiB window (ECHO_WINDOW). */
static void test_tcp_echo_caps_what_it_queues(void **state)
{
    (void)state;
    enum { SENT = 80 * 1460 };
    struct sink_peer p = ts_peer(1);
    struct sink_tcp c;
    ts_connect(&c, &p, 40014, 7);
    for (unsigned i = 0; i < SENT / 1460; i++) {
        sink_peer_hand(&p, sink_tcp_data(&c, NULL, 1460));
        if (i % 16 == 15) {
            ts_pass();
        }
    }
    ts_pass();
    struct tcp_pcb *echo = ts_pcb_on(7);
    assert_non_null(echo);
    uint32_t queued = TCP_SND_BUF - echo->snd_buf;
    assert_true(queued > 32 * 1024);  /* it did echo... */
    assert_true(queued <= 64 * 1024); /* ...but no more than the cap */
    for (unsigned round = 0; round < 400 && c.data_received < SENT; round++) {
        unsigned from = ts_ncaps;
        ts_advance(10, 10);
        ts_tcp_feed(&c, from);
        sink_peer_hand(&p, sink_tcp_ack(&c));
        if (ts_ncaps > TS_MAX_CAPS - 64) {
            ts_ncaps = 0;
        }
    }
    assert_int_equal(c.data_received, SENT);
    ts_close(&c);
    ts_assert_idle();
}

/* ts_send_full: n full segments from the client, a pass every 16; the most window the sink
 * offered meanwhile in *max_wnd (c->snd_wnd: the last it offered). */
static void ts_send_full(struct sink_tcp *c, unsigned n, uint32_t *max_wnd)
{
    for (unsigned i = 0; i < n; i++) {
        sink_peer_hand(c->peer, sink_tcp_data(c, NULL, 1460));
        if (i % 16 == 15 || i == n - 1) {
            unsigned from = ts_ncaps;
            ts_pass();
            ts_tcp_feed(c, from);
            *max_wnd = c->snd_wnd > *max_wnd ? c->snd_wnd : *max_wnd;
            ts_ncaps = 0;
        }
    }
}

/* An echo client whose own window is shut (it never reads): echo can send nothing back, so it
 * keeps what it received in the driver's buffers; the connection offers at most 65535 bytes
 * (ECHO_WINDOW, apps/sink/basic.c), so what the client sends beyond is dropped at once and
 * the core keeps its pool, where a discard connection is offered lwIP's whole TCP_WND. Once
 * the client reads, echo returns all it took and both connections close cleanly (no reset:
 * lwIP resets a connection closed with data its application did not take). */
static void test_tcp_echo_window_bounds_what_it_holds(void **state)
{
    (void)state;
    struct sink_peer p = ts_peer(1);
    struct sink_tcp d, e;
    uint32_t discard_wnd = 0, echo_wnd = 0;
    ts_connect(&d, &p, 40015, 9);
    ts_send_full(&d, 4, &discard_wnd);
    assert_true(discard_wnd > TCP_WND - 4 * 1460); /* lwIP's whole window, less what is held */
    assert_int_equal(ts_reclaim(), 4); /* discard took them: home at once */

    ts_connect(&e, &p, 40016, 7);
    e.wnd = 0;
    ts_send_full(&e, 100, &echo_wnd); /* 146000 bytes: more than twice the window */
    assert_true(echo_wnd > 0 && echo_wnd <= 65535);
    assert_true(e.snd_wnd < 1460); /* shut: the client must wait */
    ts_reclaim();
    unsigned held = TS_POOL - fsp_pool_free(1);
    /* a window's worth of full segments, and one cut at its edge */
    assert_true(held >= 65535 / 1460 && held <= (65535 + 1459) / 1460 + 1);

    /* Echo took what it could queue (64 KiB, ECHO_MAX_UNACKED) and a window more. The client
     * reads again and goes back to the first byte not acknowledged, where it ends the stream:
     * everything echo took comes back. */
    uint32_t accepted = e.snd_una - (e.iss + 1);
    assert_true(accepted > 64 * 1024 + 65535 - 1460 && accepted <= 64 * 1024 + 65535 + 1460);
    e.wnd = 0xffff;
    e.snd_nxt = e.snd_una;
    for (unsigned round = 0; round < 400 && e.data_received < accepted; round++) {
        unsigned from = ts_ncaps;
        sink_peer_hand(&p, sink_tcp_ack(&e));
        ts_advance(10, 10);
        ts_tcp_feed(&e, from);
        if (ts_ncaps > TS_MAX_CAPS - 64) {
            ts_ncaps = 0;
        }
    }
    assert_int_equal(e.data_received, accepted);
    ts_close(&e);
    assert_false(e.rst_received);
    ts_close(&d);
    ts_assert_idle();
}

/* An out-of-order segment that starts inside a small window and ends past it (an echo
 * connection whose client does not read): lwIP 2.1.3 would queue it whole and fail an
 * assertion once the hole fills; the hook drops and counts it, the hole fills without it, and
 * the same bytes sent again within the window are taken. */
static void test_ooseq_past_a_small_window_dropped(void **state)
{
    (void)state;
    struct sink_peer p = ts_peer(1);
    struct sink_tcp e;
    uint32_t max_wnd = 0;
    ts_connect(&e, &p, 40017, 7);
    e.wnd = 0; /* echo can send nothing back: its window only shrinks */
    ts_send_full(&e, 88, &max_wnd); /* all but 4048 bytes of what echo can take */
    e.snd_nxt = e.snd_una; /* to the first byte not taken */
    unsigned from = ts_ncaps;
    sink_peer_hand(&p, sink_tcp_data(&e, NULL, 1300));
    sink_peer_hand(&p, sink_tcp_data(&e, NULL, 1300));
    ts_pass();
    ts_tcp_feed(&e, from);
    ts_reclaim();
    assert_true(e.snd_wnd >= 1000 && e.snd_wnd < 1460); /* what is left of the window */
    uint32_t hole = e.snd_nxt, edge = e.snd_nxt + e.snd_wnd;
    uint64_t dropped = lwport_tcp_stats.ooseq_past_window;
    sink_peer_hand(&p, sink_tcp_segment(&e, SP_TCP_ACK, hole + 500, e.rcv_nxt, NULL, 0, NULL,
                                        (uint16_t)(edge - hole))); /* 500 bytes past the edge */
    ts_pass();
    assert_int_equal(lwport_tcp_stats.ooseq_past_window, dropped + 1);
    assert_int_equal(ts_reclaim(), 1);
    e.snd_nxt = hole;
    from = ts_ncaps;
    sink_peer_hand(&p, sink_tcp_data(&e, NULL, 500)); /* the hole: in order, no assertion */
    sink_peer_hand(&p, sink_tcp_data(&e, NULL, (uint16_t)(edge - hole - 500))); /* the rest */
    ts_pass();
    assert_int_equal(lwport_tcp_stats.ooseq_past_window, dropped + 1);
    ts_advance(500, 250);
    ts_tcp_feed(&e, from);
    assert_int_equal(e.snd_una, edge); /* all of the window taken, nothing past it */
    e.wnd = 0xffff;
    for (unsigned round = 0; round < 400 && e.data_received < e.snd_una - (e.iss + 1); round++) {
        from = ts_ncaps;
        sink_peer_hand(&p, sink_tcp_ack(&e));
        ts_advance(10, 10);
        ts_tcp_feed(&e, from);
        if (ts_ncaps > TS_MAX_CAPS - 64) {
            ts_ncaps = 0;
        }
    }
    assert_int_equal(e.data_received, e.snd_una - (e.iss + 1));
    ts_close(&e);
    ts_assert_idle();
}

/* lwIP's timers run on the fake clock: a SYN-ACK nobody answers is sent again after the
 * initial RTO (3 s, RFC 6298's 1 s is not lwIP's), not before, and the half-open connection is
 * given up after TCP_SYN_RCVD_TIMEOUT (20 s), freeing its pcb. */
static void test_syn_ack_retransmitted_on_the_clock(void **state)
{
    (void)state;
    struct sink_peer p = ts_peer(0);
    struct sink_tcp c;
    sink_tcp_init(&c, &p, 40013, 9, 0x20000000u);
    uint16_t pcbs = lwip_stats.memp[MEMP_TCP_PCB]->used;
    sink_peer_hand(&p, sink_tcp_syn(&c));
    assert_int_equal(ts_pass(), 1);
    assert_int_equal(ts_caps[0].s.flags, SP_TCP_SYN | SP_TCP_ACK);
    uint32_t isn = ts_caps[0].s.seq;
    assert_int_equal(lwip_stats.memp[MEMP_TCP_PCB]->used, pcbs + 1);

    uint64_t t0 = fsp_clock_ns(), resent_at = 0;
    while (fsp_clock_ns() - t0 < 5000000000ULL && resent_at == 0) {
        fsp_clock_advance_ms(50);
        if (ts_pass() != 0) {
            resent_at = fsp_clock_ns() - t0;
        }
    }
    assert_int_equal(ts_ncaps, 2);
    const struct sink_seg *s = &ts_caps[1].s;
    assert_int_equal(s->flags, SP_TCP_SYN | SP_TCP_ACK);
    assert_int_equal(s->seq, isn); /* the same SYN-ACK again */
    assert_true(resent_at >= 2500000000ULL && resent_at <= 3600000000ULL);

    ts_advance(25000, 250);
    assert_int_equal(lwip_stats.memp[MEMP_TCP_PCB]->used, pcbs);
    ts_assert_idle();
}

/* A client that shuts its window while our echo is in flight, lets our retransmission timer
 * fire (lwIP then moves the data back to its unsent queue and, the window being shut, starts
 * its persist timer), and then acknowledges the data, window still shut: lwIP 2.1.3 frees the
 * acknowledged "unsent" data but leaves the persist timer running, and its next slow timer
 * failed the assertion "persist ticking with empty send buffer" (tcp.c): a panic, caused from
 * outside. Found by fuzz_lwip; sink_poll now stops such timers first. */
static void test_tcp_zero_window_then_late_ack(void **state)
{
    (void)state;
    struct sink_peer p = ts_peer(1);
    struct sink_tcp c;
    ts_connect(&c, &p, 40014, 7);
    const uint8_t msg[100] = { 7, 7, 7 };
    unsigned from = ts_ncaps;
    sink_peer_hand(&p, sink_tcp_data(&c, msg, sizeof(msg)));
    ts_pass();
    ts_tcp_feed(&c, from);
    assert_int_equal(c.data_received, sizeof(msg)); /* the echo, in flight */

    /* A new segment (a window update needs a newer sequence number, RFC 793) acknowledging
     * none of the echo, window zero. */
    c.wnd = 0;
    sink_peer_hand(&p, sink_tcp_segment(&c, SP_TCP_ACK, c.snd_nxt, c.rcv_nxt - sizeof(msg), NULL,
                                        0, NULL, 0));
    ts_pass();
    struct tcp_pcb *pcb = tcp_active_pcbs;
    while (pcb != NULL && pcb->remote_port != 40014) {
        pcb = pcb->next;
    }
    assert_non_null(pcb);
    assert_int_equal(pcb->snd_wnd, 0);
    ts_advance(4000, 250); /* past the RTO: the echo goes back to unsent; persist starts */
    assert_null(pcb->unacked);
    assert_non_null(pcb->unsent);
    assert_int_not_equal(pcb->persist_backoff, 0);

    /* The late ACK of the echo, window still zero: nothing left to send, and the timer
     * stopped in the same pass, before lwIP's timers ran. */
    uint64_t stopped = lwport_tcp_stats.persist_stopped;
    sink_peer_hand(&p, sink_tcp_ack(&c));
    ts_pass();
    assert_null(pcb->unsent);
    assert_int_equal(pcb->persist_backoff, 0);
    assert_int_equal(lwport_tcp_stats.persist_stopped, stopped + 1);
    ts_advance(1000, 250); /* lwIP's slow timer: the assertion failed here (abort) */

    c.wnd = 0xffff;
    sink_peer_hand(&p, sink_tcp_ack(&c));
    ts_pass();
    ts_close(&c);
    ts_assert_idle();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_siphash_reference_vectors),
        cmocka_unit_test(test_isn_per_tuple_and_clock),
        cmocka_unit_test(test_clock_follows_time_ns),
        cmocka_unit_test(test_udp_zero_copy_home_to_core2),
        cmocka_unit_test(test_sink_core_buffer_freed_directly),
        cmocka_unit_test(test_udp_discard_and_echo),
        cmocka_unit_test(test_udp_echo_on_port1),
        cmocka_unit_test(test_udp_echo_unresolved_next_hop),
        cmocka_unit_test(test_handoff_ring_full_drops_and_counts),
        cmocka_unit_test(test_tcp_discard_stream),
        cmocka_unit_test(test_tcp_segments_aggregated),
        cmocka_unit_test(test_tcp_echo_after_an_overlapping_run),
        cmocka_unit_test(test_tcp_small_writes_acked_each_burst),
        cmocka_unit_test(test_tcp_zero_copy_and_out_of_order),
        cmocka_unit_test(test_lwip_holds_at_most_half_a_pool),
        cmocka_unit_test(test_tcp_echo),
        cmocka_unit_test(test_tcp_checksum_left_to_the_nic_or_summed),
        cmocka_unit_test(test_constant_data_leaves_by_reference),
        cmocka_unit_test(test_offloaded_connection_segments_on_the_nic),
        cmocka_unit_test(test_tcp_echo_caps_what_it_queues),
        cmocka_unit_test(test_tcp_echo_window_bounds_what_it_holds),
        cmocka_unit_test(test_ooseq_past_a_small_window_dropped),
        cmocka_unit_test(test_syn_ack_retransmitted_on_the_clock),
        cmocka_unit_test(test_tcp_zero_window_then_late_ack),
    };
    return cmocka_run_group_tests(tests, ts_group_setup, NULL);
}
