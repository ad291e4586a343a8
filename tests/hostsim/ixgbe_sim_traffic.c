/*
 * tests/hostsim/ixgbe_sim_traffic.c: traffic through the real 82599 driver and the forwarding
 * app on two model ports. `rss` takes frames straight off the driver's rings (iring_rx_burst)
 * to see which queue each landed on and the hash written back; `ping` and `stream` run the
 * appliance's per-core passes (fwd_poll_core) in turn, with the hosts of sim_frames.c on the
 * wires: host A behind port0 sends, host B behind port1 receives and checks every frame.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/fwd/fwd.h"
#include "config.h"
#include "drivers/nic/nic.h"
#include "drivers/nic/rss.h"
#include "net/iface.h"
#include "net/nexthop.h"
#include "tests/hostsim/ixgbe_sim.h"
#include "tests/model/ixgbe_model_int.h"

#define XS_HK_NS 10000000ULL /* housekeeping every 10 ms of simulated time (the firmware: 100) */
#define XS_STALL_EVERY 1024  /* stream: every so many passes one core stalls ... */
#define XS_STALL_PASSES 40   /* ... for this many passes */

/* --- rss ----------------------------------------------------------------------------------- */

enum xs_kind { XS_UDP, XS_TCP, XS_ICMP, XS_FRAG, XS_ARP, XS_KINDS };
static const char *const xs_kind_name[XS_KINDS] = { "UDP", "TCP", "ICMP", "fragment", "ARP" };

struct xs_flow {
    uint32_t src, dst;
    uint16_t sport, dport;
    uint8_t kind;
    uint32_t hash; /* what the NIC must write back (0: not hashed) */
    unsigned queue;
    uint32_t seen;
};

/* Microsoft's "Verifying the RSS Hash Calculation" IPv4 vectors (also in the 82599 datasheet):
 * destination, source, destination port, source port, IPv4-only hash, IPv4 with TCP hash. */
static const struct {
    uint32_t dst, src;
    uint16_t dport, sport;
    uint32_t h_ip, h_l4;
} xs_ms_vectors[] = {
    { 0xa18e6450, 0x420995bb, 1766, 2794, 0x323e8fc2, 0x51ccc178 },
    { 0x41458c53, 0xc75c6f02, 4739, 14230, 0xd718262a, 0xc626b0ea },
    { 0x0c16cfb8, 0x1813c65f, 38024, 12898, 0xd2d0a5de, 0x5c2b394a },
    { 0xd18ea306, 0x261bcd1e, 2217, 48228, 0x82989176, 0xafc7327f },
    { 0xcabc7f02, 0x9927a3bf, 1303, 44251, 0x5d1809c5, 0x10e828a2 },
};
#define XS_MS_VECTORS (sizeof(xs_ms_vectors) / sizeof(xs_ms_vectors[0]))

#define XS_RSS_FLOWS 4000

static struct xs_flow xs_flows[XS_RSS_FLOWS];
static unsigned xs_nflows;

static unsigned xs_add_flow(uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport,
                            enum xs_kind k, uint32_t hash)
{
    struct xs_flow *f = &xs_flows[xs_nflows];
    *f = (struct xs_flow){ src, dst, sport, dport, (uint8_t)k, hash, 0, 0 };
    f->queue = k == XS_ARP ? 0 : xs_reta_queue(hash); /* not hashed: queue 0 (§7.1.2.8) */
    return xs_nflows++;
}

/* The frame of flow i; its index rides in the IP ID (or the ARP sender address). */
static uint16_t xs_flow_frame(uint8_t *b, unsigned i)
{
    const struct xs_flow *f = &xs_flows[i];
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    switch (f->kind) {
    case XS_ARP:
        sim_build_arp(b, 1, bcast, sim_mac_host_a, 0x0a000000u | i, (const uint8_t[6]){ 0 },
                      SIM_IP_PORT0 + 100);
        return SIM_FRAME_BYTES;
    case XS_TCP:
        return xs_build_ipv4(b, xs_port(0)->mac, sim_mac_host_a, f->src, f->dst, XS_PROTO_TCP,
                             f->sport, f->dport, (uint16_t)i, false);
    case XS_ICMP:
        return xs_build_ipv4(b, xs_port(0)->mac, sim_mac_host_a, f->src, f->dst, XS_PROTO_ICMP,
                             0, 0, (uint16_t)i, false);
    case XS_FRAG:
        return xs_build_ipv4(b, xs_port(0)->mac, sim_mac_host_a, f->src, f->dst, XS_PROTO_UDP,
                             f->sport, f->dport, (uint16_t)i, true);
    default:
        return xs_build_ipv4(b, xs_port(0)->mac, sim_mac_host_a, f->src, f->dst, XS_PROTO_UDP,
                             f->sport, f->dport, (uint16_t)i, false);
    }
}

static unsigned xs_flow_of_frame(const uint8_t *b)
{
    return sim_ld16(b + 12) == 0x0806 ? sim_ld32(b + 28) & 0xffffu : sim_ld16(b + 18);
}

/* xs_harvest: take everything port0's rings hold, as each core would, and judge it. */
static unsigned xs_harvest(uint64_t per_queue[XS_NQ])
{
    struct nic_port *p = nic_port(0);
    struct pkb *out[CONFIG_NIC_BURST];
    unsigned total = 0, n;
    for (unsigned q = 0; q < XS_NQ; q++) {
        for (;;) {
            /* The hashes as written back: the burst's refill overwrites them (the pkb does
             * not carry the hash: nothing on the fast path reads it). */
            const struct iring_rx *r = &p->q[q].rx;
            uint32_t hash[CONFIG_NIC_BURST];
            for (unsigned k = 0; k < CONFIG_NIC_BURST; k++) {
                hash[k] = r->desc[(iring_rx_next_to_clean(r) + k) & r->mask].wb.rss_hash;
            }
            n = iring_rx_burst(&p->q[q].rx, out, CONFIG_NIC_BURST);
            if (n == 0) {
                break;
            }
            for (unsigned k = 0; k < n; k++) {
                struct pkb *b = out[k];
                unsigned i = xs_flow_of_frame(b->data);
                if (i >= xs_nflows) {
                    xs_fail("queue %u: a frame of no flow (tag %u)", q, i);
                } else {
                    struct xs_flow *f = &xs_flows[i];
                    f->seen++;
                    XS_CHECK(q == f->queue && b->queue == q, "%s flow %u (hash 0x%08x, RETA "
                             "entry %u): on queue %u (pkb says %u), the table says %u",
                             xs_kind_name[f->kind], i, f->hash, f->hash & 127, q, b->queue,
                             f->queue);
                    XS_CHECK(hash[k] == f->hash, "%s flow %u: hash 0x%08x written back, "
                             "Toeplitz gives 0x%08x", xs_kind_name[f->kind], i, hash[k],
                             f->hash);
                    XS_CHECK(b->len == SIM_FRAME_BYTES && b->port == 0, "flow %u: len %u port "
                             "%u", i, b->len, b->port);
                }
                pkb_free(b, (uint16_t)q);
            }
            per_queue[q] += n;
            total += n;
        }
    }
    return total;
}

/* xs_check_irq_routing: queue q's MSI-X entry wakes core q on the vector irq_alloc gave it,
 * once (EIAC auto-clears, EIAM auto-masks); arming with a frame waiting says so and sends
 * nothing (the cause latched while disarmed is dropped, the ring re-checked). */
static void xs_check_irq_routing(void)
{
    uint64_t dummy[XS_NQ] = { 0 };
    for (unsigned c = 0; c < XS_CORES; c++) {
        char name[16];
        snprintf(name, sizeof(name), "port0q%u", c);
        int v = xs_irq_vector_of(c, name);
        unsigned fl = 0;
        while (fl < xs_nflows && (xs_flows[fl].queue != c || xs_flows[fl].kind != XS_UDP)) {
            fl++;
        }
        if (v < 0 || fl == xs_nflows) {
            xs_fail("core %u: no vector %s or no flow for queue %u", c, name, c);
            continue;
        }
        uint8_t f[SIM_FRAME_BYTES];
        uint16_t len = xs_flow_frame(f, fl);
        uint64_t total = xs_irq_total(), mine = xs_irq_count(c, (unsigned)v);
        XS_CHECK(!nic_arm_core(c), "core %u: armed with nothing waiting, yet pending", c);
        xs_inject(0, f, len);
        XS_CHECK(xs_irq_count(c, (unsigned)v) == mine + 1 && xs_irq_total() == total + 1,
                 "core %u: a frame on queue %u did not wake core %u (apic %u) on vector 0x%x "
                 "once", c, c, c, xs_apic_id(c), (unsigned)v);
        XS_CHECK((xs_peek(0, IXM_EICS) & (1u << c)) == 0, "core %u: EICR bit %u still set after "
                 "the message (EIAC auto-clear)", c, c);
        xs_inject(0, f, len);
        xs_advance(100000); /* past EITR's gap: only the auto-mask holds it back now */
        XS_CHECK(xs_irq_total() == total + 1, "core %u: a second interrupt although the vector "
                 "auto-masked (EIAM)", c);
        nic_disarm_core(c);
        xs_harvest(dummy);
        xs_inject(0, f, len); /* while disarmed */
        xs_advance(100000);
        XS_CHECK(nic_arm_core(c), "core %u: a frame waits, yet nic_arm_core says none", c);
        xs_advance(100000);
        XS_CHECK(xs_irq_total() == total + 1, "core %u: arming sent a message for a cause "
                 "latched while disarmed", c);
        nic_disarm_core(c);
        xs_harvest(dummy);

        /* A TX completion on queue c (RS written back) wakes core c on the same vector: IVAR's
         * TX byte of queue c. The frame is placed as core c would place it. */
        total = xs_irq_total();
        mine = xs_irq_count(c, (unsigned)v);
        XS_CHECK(!nic_arm_core(c), "core %u: pending with an empty ring", c);
        struct pkb *b = pkb_alloc(nic_pool(c));
        if (b == NULL) {
            xs_fail("core %u: pool empty", c);
            continue;
        }
        memcpy(b->data, f, len);
        b->len = len;
        pkb_tx_own(b);
        uint64_t sent = xs_port(0)->tx_frames;
        XS_CHECK(iring_tx_burst(&nic_port(0)->q[c].tx, &b, 1) == 1, "core %u: TX burst", c);
        xs_expect("frames the model sent", xs_port(0)->tx_frames, sent + 1);
        XS_CHECK(xs_irq_count(c, (unsigned)v) == mine + 1 && xs_irq_total() == total + 1,
                 "core %u: a TX completion on queue %u did not wake core %u on vector 0x%x once",
                 c, c, c, (unsigned)v);
        xs_expect("TX completion reclaimed", iring_tx_reclaim(&nic_port(0)->q[c].tx), 1);
        nic_disarm_core(c);
        xs_advance(100000);
    }
}

void xs_test_rss(void)
{
    if (xs_boot() != 2) {
        xs_fail("bring-up");
        return;
    }
    /* What the driver programmed, as the model holds it. */
    for (unsigned i = 0; i < XS_RETA_ENTRIES; i++) {
        uint32_t e = (xs_peek(0, IXM_RETA(i / 4)) >> (8 * (i % 4))) & 0xFF;
        XS_CHECK(e == i % XS_NQ, "RETA entry %u = %u, want %u", i, e, i % XS_NQ);
    }
    for (unsigned i = 0; i < RSS_KEY_BYTES; i++) {
        uint8_t b = (uint8_t)(xs_peek(0, IXM_RSSRK(i / 4)) >> (8 * (i % 4)));
        XS_CHECK(b == rss_default_key[i], "RSSRK key byte %u = 0x%02x, want 0x%02x", i, b,
                 rss_default_key[i]);
    }
    /* Microsoft's vectors: TCP and UDP flows hash addresses and ports, ICMP and fragments
     * the addresses only. Their hashes are the published constants, not rss.c's output. */
    xs_nflows = 0;
    for (unsigned v = 0; v < XS_MS_VECTORS; v++) {
        const __typeof__(xs_ms_vectors[0]) *t = &xs_ms_vectors[v];
        xs_add_flow(t->src, t->dst, t->sport, t->dport, XS_TCP, t->h_l4);
        xs_add_flow(t->src, t->dst, t->sport, t->dport, XS_UDP, t->h_l4);
        xs_add_flow(t->src, t->dst, 0, 0, XS_ICMP, t->h_ip);
        xs_add_flow(t->src, t->dst, t->sport, t->dport, XS_FRAG, t->h_ip);
    }
    unsigned vector_flows = xs_nflows;
    /* Many more flows, their hashes from drivers/nic/rss.c. */
    while (xs_nflows < XS_RSS_FLOWS) {
        enum xs_kind k = (enum xs_kind)(xs_nflows % 41 == 0 ? XS_ARP : xs_rand() % 4);
        uint32_t src = (uint32_t)xs_rand(), dst = (uint32_t)xs_rand();
        uint16_t sport = (uint16_t)xs_rand(), dport = (uint16_t)xs_rand();
        uint32_t h = k == XS_ARP ? 0
                     : k == XS_UDP || k == XS_TCP
                         ? rss_hash_ipv4_l4(rss_default_key, src, dst, sport, dport)
                         : rss_hash_ipv4(rss_default_key, src, dst);
        xs_add_flow(src, dst, sport, dport, k, h);
    }
    /* Two frames per flow, in bursts the rings can hold; each burst harvested. */
    uint64_t per_queue[XS_NQ] = { 0 };
    unsigned sent = 0, got = 0;
    for (unsigned round = 0; round < 2; round++) {
        for (unsigned i = 0; i < xs_nflows; i++) {
            uint8_t f[SIM_FRAME_BYTES];
            uint16_t len = xs_flow_frame(f, i);
            XS_CHECK(xs_inject(0, f, len), "flow %u: the model dropped the frame", i);
            sent++;
            if (sent % 256 == 0) {
                got += xs_harvest(per_queue);
            }
        }
    }
    got += xs_harvest(per_queue);
    xs_expect("frames taken off the rings", got, sent);
    unsigned kinds[XS_KINDS] = { 0 };
    for (unsigned i = 0; i < xs_nflows; i++) {
        XS_CHECK(xs_flows[i].seen == 2, "flow %u seen %u times", i, xs_flows[i].seen);
        kinds[xs_flows[i].kind]++;
    }
    for (unsigned q = 0; q < XS_NQ; q++) {
        XS_CHECK(per_queue[q] > sent / XS_NQ / 2, "queue %u got only %" PRIu64 " of %u frames",
                 q, per_queue[q], sent);
    }
    struct ixgbe_model_counters mc;
    ixgbe_model_counters(xs_port(0)->m, &mc);
    xs_expect("model: frames placed", mc.rx_placed, sent);
    xs_check_irq_routing();
    if (xs_failures() == 0) {
        xs_summarize("%u flows (%u UDP, %u TCP, %u ICMP, %u fragments, %u ARP; %u from "
                     "Microsoft's vectors), %u frames: each on the RETA's queue with the Toeplitz "
                     "hash written back; per queue %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64
                     "; MSI-X entry q wakes core q once for RX and for TX completions (auto-clear, "
                     "auto-mask)", xs_nflows,
                     kinds[XS_UDP], kinds[XS_TCP], kinds[XS_ICMP], kinds[XS_FRAG], kinds[XS_ARP],
                     vector_flows, sent, per_queue[0], per_queue[1], per_queue[2], per_queue[3]);
    }
}

/* --- ping ---------------------------------------------------------------------------------- */

#define XS_ECHO_PAYLOAD 56
#define XS_ECHO_HOSTS 8

static uint16_t xs_build_echo(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, uint32_t src,
                              uint32_t dst, uint16_t id, uint16_t seq)
{
    uint16_t len = 14 + 20 + 8 + XS_ECHO_PAYLOAD;
    memset(f, 0, len);
    memcpy(f, dmac, 6);
    memcpy(f + 6, smac, 6);
    sim_st16(f + 12, 0x0800);
    uint8_t *ip = f + 14, *icmp = ip + 20;
    ip[0] = 0x45;
    sim_st16(ip + 2, (uint16_t)(len - 14));
    sim_st16(ip + 4, seq);
    ip[8] = 64;
    ip[9] = XS_PROTO_ICMP;
    sim_st32(ip + 12, src);
    sim_st32(ip + 16, dst);
    sim_st16(ip + 10, sim_csum(ip, 20, 0));
    icmp[0] = 8;
    sim_st16(icmp + 4, id);
    sim_st16(icmp + 6, seq);
    for (unsigned i = 0; i < XS_ECHO_PAYLOAD; i++) {
        icmp[8 + i] = (uint8_t)(i * 7 + seq);
    }
    sim_st16(icmp + 2, sim_csum(icmp, 8 + XS_ECHO_PAYLOAD, 0));
    return len;
}

/* xs_check_echo_reply: what RFC 792 says the answer to req is. */
static bool xs_check_echo_reply(const uint8_t *req, uint16_t len, const uint8_t *r, uint16_t rlen,
                                const uint8_t *port_mac)
{
    const uint8_t *ip = r + 14, *icmp = ip + 20, *rip = req + 14;
    return rlen == len && memcmp(r, req + 6, 6) == 0 && memcmp(r + 6, port_mac, 6) == 0 &&
           sim_ld16(r + 12) == 0x0800 && ip[0] == 0x45 && sim_ld16(ip + 2) == len - 14 &&
           ip[8] > 0 && ip[9] == XS_PROTO_ICMP && sim_csum(ip, 20, 0) == 0 &&
           sim_ld32(ip + 12) == sim_ld32(rip + 16) && sim_ld32(ip + 16) == sim_ld32(rip + 12) &&
           icmp[0] == 0 && icmp[1] == 0 && sim_csum(icmp, len - 34u, 0) == 0 &&
           memcmp(icmp + 4, rip + 24, 4 + XS_ECHO_PAYLOAD) == 0;
}

static void xs_ping_port(unsigned port, const uint8_t *hmac, unsigned *replies_out)
{
    static struct xs_capture cap;
    struct xs_port *xp = xs_port(port);
    struct nic_port *p = nic_port(port);
    uint32_t pip = xs_port_ip(port), hip = pip + 1;
    uint64_t echo_before[XS_NQ], tx_before[XS_NQ], want_echo[XS_NQ] = { 0 };

    XS_CHECK(xs_arp_exchange(port, pip, hmac, hip), "port%u: ARP", port);
    XS_CHECK(net_queue_stats_of(p->index, 0)->local.arp_requests_answered == 1, "port%u: the ARP request was not "
             "answered on queue 0 (ARP is not hashed)", port);
    for (unsigned q = 0; q < XS_NQ; q++) {
        echo_before[q] = net_queue_stats_of(p->index, q)->local.icmp_echo_answered;
        tx_before[q] = p->q[q].tx.stats.packets;
    }
    unsigned ok = 0;
    for (unsigned h = 0; h < XS_ECHO_HOSTS; h++) {
        uint8_t f[128];
        uint32_t src = hip + h;
        uint16_t len = xs_build_echo(f, xp->mac, hmac, src, pip, 0x4242, (uint16_t)(h + 1));
        unsigned q = xs_reta_queue(rss_hash_ipv4(rss_default_key, src, pip));
        want_echo[q]++;
        memset(&cap, 0, sizeof(cap));
        xp->on_tx = xs_capture_tx;
        xp->tx_ctx = &cap;
        XS_CHECK(xs_inject(port, f, len), "port%u: the model refused an echo request", port);
        xs_settle(NULL);
        xp->on_tx = NULL;
        bool good = cap.n == 1 && xs_check_echo_reply(f, len, cap.f[0], cap.len[0], xp->mac);
        XS_CHECK(good, "port%u: echo request from %u.%u.%u.%u: %u frame(s) back, %s", port,
                 src >> 24, (src >> 16) & 255, (src >> 8) & 255, src & 255, cap.n,
                 cap.n ? "not a valid echo reply" : "no reply");
        ok += good;
    }
    /* Answered by the core RSS picked, out of that core's own TX queue. */
    for (unsigned q = 0; q < XS_NQ; q++) {
        xs_expect("echo answered on the RSS queue's core",
                  net_queue_stats_of(p->index, q)->local.icmp_echo_answered - echo_before[q], want_echo[q]);
        xs_expect("TX completions on that core's queue", p->q[q].tx.stats.packets - tx_before[q],
                  want_echo[q]);
    }
    nic_housekeeping();
    xs_expect("hw rx_packets (GPRC)", p->hw.rx_packets, 1 + XS_ECHO_HOSTS);
    xs_expect("hw rx_broadcast (BPRC)", p->hw.rx_broadcast, 1);
    xs_expect("hw tx_packets (GPTC)", p->hw.tx_packets, 1 + XS_ECHO_HOSTS);
    xs_expect("model: frames sent", xp->tx_frames, 1 + XS_ECHO_HOSTS);
    *replies_out = ok;
}

void xs_test_ping(void)
{
    if (xs_boot() != 2) {
        xs_fail("bring-up");
        return;
    }
    unsigned r0 = 0, r1 = 0;
    xs_ping_port(0, sim_mac_host_a, &r0);
    xs_ping_port(1, sim_mac_host_b, &r1);
    if (xs_failures() == 0) {
        xs_summarize("port0 198.18.0.1 and port1 198.19.0.1: ARP reply, and %u + %u ICMP echo "
                     "replies (%u hosts each, answered by the core RSS picked, on its TX queue); "
                     "GPRC/BPRC/GPTC agree", r0, r1, XS_ECHO_HOSTS);
    }
}

/* --- stream -------------------------------------------------------------------------------- */

struct sim xs_sim; /* the hosts' books (fwd_sim.h, sim_frames.c) */
uint64_t xs_wire_in[XS_PORTS]; /* frames the hosts put on each port's wire */
uint64_t xs_wire_bytes[XS_PORTS];

void xs_on_port0(void *ctx, const uint8_t *f, size_t len)
{
    sim_on_port0(ctx, f, (uint16_t)len);
}

void xs_on_port1(void *ctx, const uint8_t *f, size_t len)
{
    sim_on_port1(ctx, f, (uint16_t)len);
}

bool xs_send(unsigned port, const uint8_t *f, size_t len)
{
    if (!xs_inject(port, f, len)) {
        return false;
    }
    xs_wire_in[port]++;
    xs_wire_bytes[port] += len + 4; /* the FCS the wire carried and the NIC stripped */
    return true;
}

/* Host B answers the router's ARP requests (sim_frames.c counts them as they come). */
void xs_host_b(void)
{
    struct sim *s = &xs_sim;
    while (s->hostb_replies_due > 0) {
        uint8_t f[SIM_FRAME_BYTES], p1[6];
        sim_port_mac(1, p1);
        sim_build_arp(f, 2, p1, sim_mac_host_b, SIM_IP_HOST_B, p1, SIM_IP_PORT1);
        XS_CHECK(xs_send(1, f, sizeof(f)), "port1 refused host B's ARP reply");
        s->hostb_replies_due--;
    }
}


/* Free descriptors the NIC may fill on port0 queue q: RDT - RDH. */
unsigned xs_rx_room(unsigned q)
{
    uint32_t head = xs_peek(0, ixm_rxq_reg_off(q, IXM_RDH));
    uint32_t tail = xs_peek(0, ixm_rxq_reg_off(q, IXM_RDT));
    return (tail - head) & (CONFIG_NIC_RX_DESCS - 1);
}

/* The appliance learns its neighbours the way real hosts make it: A asks for its gateway; a
 * probe towards B's side makes the router ask for B, B answers; a second probe goes through. */
void xs_stream_neighbours(void)
{
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    struct sim *s = &xs_sim;
    uint8_t f[SIM_FRAME_BYTES];
    sim_build_arp(f, 1, bcast, sim_mac_host_a, SIM_IP_HOST_A, (const uint8_t[6]){ 0 },
                  SIM_IP_PORT0);
    xs_send(0, f, sizeof(f));
    xs_settle(xs_host_b);
    for (uint32_t seq = 0; seq < 2; seq++) {
        sim_build(f, 1, seq, SIM_MAGIC_PROBE);
        xs_send(0, f, sizeof(f));
        xs_settle(xs_host_b);
    }
    xs_expect("setup: ARP replies to host A", s->p0_arp_replies, 1);
    xs_expect("setup: ARP requests for host B", s->p1_arp_requests, 1);
    xs_expect("setup: probes forwarded once B was known", s->p1_probes, 1);
    xs_expect("setup: B's reply learned by core 0", net_queue_stats_of(1, 0)->local.arp_replies_learned,
              1);
}

/* The books at the end: per (port, core) every frame received has one outcome; the rest sums. */
static void xs_stream_books(uint64_t fwd_total[XS_PORTS], uint64_t arp_req)
{
    uint64_t txf[XS_PORTS] = { 0 }, txd[XS_PORTS] = { 0 }, replies = 0, rxp[XS_PORTS] = { 0 };
    for (unsigned p = 0; p < XS_PORTS; p++) {
        for (unsigned c = 0; c < XS_CORES; c++) {
            const struct nic_queue *q = &nic_port(p)->q[c];
            const struct net_queue_stats *ns = net_queue_stats_of(p, c);
            const struct fwd_stats *st = fwd_stats_of(p, c);
            uint64_t out = fwd_frame_outcomes(st) + net_queue_outcomes(ns);
            XS_CHECK(out == q->rx.stats.packets, "port%u core %u: %" PRIu64 " received, %" PRIu64
                     " outcomes", p, c, q->rx.stats.packets, out);
            xs_expect("ring errors", q->rx.stats.errors, 0);
            xs_expect("RX refills short of buffers", q->rx.stats.no_buffer, 0);
            xs_expect("TX ring_full", q->tx.stats.ring_full, 0);
            xs_expect("TX bad_len", q->tx.stats.bad_len, 0);
            xs_expect("fwd alloc_fail", nexthop_stats_of(p, c)->alloc_fail, 0);
            fwd_total[p] += st->forwarded;
            txf[p] += q->tx.stats.forwarded;
            txd[p] += q->tx.stats.packets;
            rxp[p] += q->rx.stats.packets;
            replies += ns->local.arp_requests_answered + ns->local.icmp_echo_answered;
        }
    }
    for (unsigned p = 0; p < XS_PORTS; p++) {
        struct ixgbe_model_counters mc;
        ixgbe_model_counters(xs_port(p)->m, &mc);
        char what[96];
        snprintf(what, sizeof(what), "port%u: frames on the wire in = placed by the model", p);
        xs_expect(what, mc.rx_placed, xs_wire_in[p]);
        snprintf(what, sizeof(what), "port%u: placed by the model = received by the rings", p);
        xs_expect(what, rxp[p], mc.rx_placed);
        XS_CHECK(mc.rx_missed + mc.rx_no_desc + mc.rx_filtered + mc.rx_bad_len + mc.rx_disabled +
                 mc.rx_link_down == 0, "port%u: the model dropped frames (missed %" PRIu64
                 " no_desc %" PRIu64 " filtered %" PRIu64 " disabled %" PRIu64 ")", p,
                 mc.rx_missed, mc.rx_no_desc, mc.rx_filtered, mc.rx_disabled);
        snprintf(what, sizeof(what), "port%u: frames the model sent = TX completions", p);
        xs_expect(what, xs_port(p)->tx_frames, txd[p]);
    }
    xs_expect("forwarded out of port1 (completions) = forwarded from port0", txf[1], fwd_total[0]);
    xs_expect("port1 completions = forwarded + ARP requests", txd[1], fwd_total[0] + arp_req);
    xs_expect("port0 completions = replies", txd[0], replies);
    xs_expect("forwarded from port1", fwd_total[1], 0);
}

/* The overload: a flow bursts more frames into one queue than its ring holds, with no core
 * polling. The NIC drops the rest (SRRCTL.DROP_EN) and counts them in QPRDC; the driver's
 * statistics must say exactly what the model did. */
static void xs_stream_overload(uint64_t *accepted, uint64_t *dropped, unsigned *queue)
{
    struct nic_port *p0 = nic_port(0);
    struct sim *s = &xs_sim;
    unsigned flow = 3, k = 2 * CONFIG_NIC_RX_DESCS;
    uint8_t f[SIM_FRAME_BYTES];
    sim_build(f, flow, 0, SIM_MAGIC_PROBE);
    unsigned q = xs_reta_queue(rss_hash_ipv4_l4(rss_default_key, sim_ld32(f + 26),
                                                sim_ld32(f + 30), sim_ld16(f + 34),
                                                sim_ld16(f + 36)));
    unsigned room = xs_rx_room(q);
    struct ixgbe_model_counters before, after;
    ixgbe_model_counters(xs_port(0)->m, &before);
    nic_housekeeping();
    struct nic_hw_stats hw0 = p0->hw;
    uint64_t ring_before = p0->q[q].rx.stats.packets, probes = s->p1_probes;
    *accepted = *dropped = 0;
    for (unsigned i = 0; i < k; i++) {
        sim_build(f, flow, i, SIM_MAGIC_PROBE);
        if (xs_inject(0, f, sizeof(f))) {
            ++*accepted;
        } else {
            ++*dropped;
        }
    }
    ixgbe_model_counters(xs_port(0)->m, &after);
    xs_expect("overload: frames the ring had room for", *accepted, room);
    xs_expect("overload: model no-descriptor drops", after.rx_no_desc - before.rx_no_desc,
              *dropped);
    nic_housekeeping();
    xs_expect("overload: driver QPRDC total for the queue", p0->hw.rx_queue_drops[q] -
              hw0.rx_queue_drops[q], *dropped);
    for (unsigned o = 0; o < XS_NQ; o++) {
        if (o != q) {
            xs_expect("overload: QPRDC of other queues", p0->hw.rx_queue_drops[o] -
                      hw0.rx_queue_drops[o], 0);
        }
    }
    xs_expect("overload: GPRC counts every good frame (placed or dropped)",
              p0->hw.rx_packets - hw0.rx_packets, k);
    xs_expect("overload: MPC (packet buffer full)", p0->hw.rx_missed_errors -
              hw0.rx_missed_errors, after.rx_missed - before.rx_missed);
    xs_settle(xs_host_b);
    xs_expect("overload: received by the ring", p0->q[q].rx.stats.packets - ring_before,
              *accepted);
    xs_expect("overload: forwarded to host B", s->p1_probes - probes, *accepted);
    xs_expect("overload: GPRC = ring + QPRDC + MPC", p0->hw.rx_packets - hw0.rx_packets,
              (p0->q[q].rx.stats.packets - ring_before) + p0->hw.rx_queue_drops[q] -
                  hw0.rx_queue_drops[q] + p0->hw.rx_missed_errors - hw0.rx_missed_errors);
    *queue = q;
}

/* Every buffer back: free + posted in RX rings = pool size with nothing in flight; then, the
 * rings released, every pool full. */
static void xs_check_pools(void)
{
    for (unsigned c = 0; c < XS_CORES; c++) {
        struct pkb_pool *pool = nic_pool(c);
        uint64_t held = 0;
        for (unsigned p = 0; p < XS_PORTS; p++) {
            const struct nic_queue *q = &nic_port(p)->q[c];
            held += iring_rx_posted(&q->rx);
            XS_CHECK(iring_tx_in_flight(&q->tx) == 0, "port%u core %u: TX buffers in flight", p,
                     c);
        }
        XS_CHECK(pool->nfree + held == pool->size, "core %u: %" PRIu32 " free + %" PRIu64
                 " in RX rings != %" PRIu32, c, pool->nfree, held, pool->size);
        xs_expect("pool foreign_free", pool->foreign_free, 0);
        xs_expect("pool double_free", pool->double_free, 0);
        xs_expect("pool alloc_fail", pool->alloc_fail, 0);
        for (unsigned p = 0; p < XS_PORTS; p++) {
            iring_rx_release(&nic_port(p)->q[c].rx);
        }
        XS_CHECK(pool->nfree == pool->size, "core %u: pool %" PRIu32 " of %" PRIu32 " after the "
                 "rings let go", c, pool->nfree, pool->size);
    }
}

void xs_test_stream(void)
{
    struct sim *s = &xs_sim;
    memset(s, 0, sizeof(*s));
    s->nframes = xs_frames;
    s->ncores = XS_CORES;
    s->seen = calloc(s->nframes / 8 + 1, 1);
    if (s->seen == NULL || xs_boot() != 2) {
        xs_fail("bring-up");
        free(s->seen);
        return;
    }
    xs_port(0)->on_tx = xs_on_port0;
    xs_port(0)->tx_ctx = s;
    xs_port(1)->on_tx = xs_on_port1;
    xs_port(1)->tx_ctx = s;
    xs_stream_neighbours();

    /* Each flow's queue, as RSS over its addresses and ports and the RETA put it. */
    unsigned flow_q[SIM_FLOWS];
    for (unsigned fl = 0; fl < SIM_FLOWS; fl++) {
        uint8_t f[SIM_FRAME_BYTES];
        sim_build(f, fl, 0, SIM_MAGIC_STREAM);
        flow_q[fl] = xs_reta_queue(rss_hash_ipv4_l4(rss_default_key, sim_ld32(f + 26),
                                                    sim_ld32(f + 30), sim_ld16(f + 34),
                                                    sim_ld16(f + 36)));
    }
    uint64_t ring_before[XS_NQ], injected_q[XS_NQ] = { 0 };
    for (unsigned q = 0; q < XS_NQ; q++) {
        ring_before[q] = nic_port(0)->q[q].rx.stats.packets;
    }
    uint64_t next = 0, held = 0, passes = 0, next_hk = xs_now() + XS_HK_NS, t0 = xs_now();
    while (next < s->nframes) {
        unsigned room[XS_NQ];
        for (unsigned q = 0; q < XS_NQ; q++) {
            room[q] = xs_rx_room(q);
        }
        unsigned want = (unsigned)(xs_rand() % (2 * XS_NQ * CONFIG_NIC_BURST + 1)), moved = 0;
        while (moved < want && next < s->nframes) {
            unsigned fl = sim_flow_of(next), q = flow_q[fl];
            uint8_t f[SIM_FRAME_BYTES];
            if (room[q] == 0) {
                held++; /* paced: a real sender would have lost it; here it waits */
                break;
            }
            sim_build(f, fl, sim_seq_of(next), SIM_MAGIC_STREAM);
            if (!xs_send(0, f, sizeof(f))) {
                xs_fail("stream frame %" PRIu64 " (flow %u, queue %u): the model dropped it",
                        next, fl, q);
            }
            room[q]--;
            injected_q[q]++;
            next++;
            moved++;
        }
        for (unsigned c = 0; c < XS_CORES; c++) {
            /* Cores do not keep step: now and then one skips a pass, or makes two; and every
             * XS_STALL_EVERY passes one core stalls a while (its ring fills; pacing holds). */
            uint64_t r = xs_rand() % 8;
            unsigned n = r == 0 ? 0 : r < 6 ? 1 : 2;
            if (c == (passes / XS_STALL_EVERY) % XS_CORES &&
                passes % XS_STALL_EVERY < XS_STALL_PASSES) {
                n = 0;
            }
            for (unsigned k = 0; k < n; k++) {
                fwd_poll_core(c);
            }
        }
        xs_host_b();
        xs_advance((uint64_t)moved * SIM_NS_PER_FRAME + 100);
        if (xs_now() >= next_hk) { /* core 0's housekeeping: link, statistics registers */
            nic_housekeeping();
            next_hk += XS_HK_NS;
        }
        passes++;
        if (xs_failures() > 20) {
            break;
        }
    }
    xs_settle(xs_host_b);
    uint64_t took = xs_now() - t0;

    /* port1's host: every frame once, per flow in order, routed correctly. */
    xs_expect("stream frames arrived on port1", s->arrived, s->nframes);
    xs_expect("stream frames lost", s->nframes - s->unique, 0);
    xs_expect("stream frames reordered", s->reordered, 0);
    xs_expect("stream frames duplicated", s->duplicates, 0);
    xs_expect("stream frames corrupt", s->bad_len + s->bad_mac + s->bad_ttl + s->bad_csum +
              s->bad_payload, 0);
    xs_expect("unexpected frames on port1", s->p1_unexpected, 0);
    xs_expect("unexpected frames on port0", s->p0_unexpected, 0);
    xs_expect("failures reported by the hosts", s->failures, 0);
    for (unsigned q = 0; q < XS_NQ; q++) {
        xs_expect("stream frames on port0's queue (RSS prediction = ring count)",
                  nic_port(0)->q[q].rx.stats.packets - ring_before[q], injected_q[q]);
    }
    uint64_t fwd_total[XS_PORTS] = { 0 }, arp_req = 0;
    for (unsigned c = 0; c < XS_CORES; c++) {
        arp_req += nexthop_stats_of(0, c)->arp_requests_sent +
                   nexthop_stats_of(1, c)->arp_requests_sent;
    }
    xs_stream_books(fwd_total, arp_req);
    xs_expect("forwarded = stream + 1 probe", fwd_total[0], s->nframes + 1);
    uint64_t p1_sent = xs_port(1)->tx_frames;
    xs_expect("port1 frames out = stream + probe + ARP request", p1_sent, s->nframes + 2);

    /* The NIC's own statistics, as housekeeping accumulated them (clear-on-read, 36-bit
     * octets), against the wires. */
    nic_housekeeping();
    const struct nic_hw_stats *h0 = &nic_port(0)->hw, *h1 = &nic_port(1)->hw;
    xs_expect("port0 GPRC", h0->rx_packets, xs_wire_in[0]);
    xs_expect("port0 GORC (36-bit)", h0->rx_bytes, xs_wire_bytes[0]);
    xs_expect("port0 BPRC", h0->rx_broadcast, 1);
    xs_expect("port0 GPTC", h0->tx_packets, xs_port(0)->tx_frames);
    xs_expect("port1 GPRC", h1->rx_packets, xs_wire_in[1]);
    xs_expect("port1 GPTC", h1->tx_packets, xs_port(1)->tx_frames);
    xs_expect("port1 GOTC (36-bit)", h1->tx_bytes, xs_port(1)->tx_frames * 64);
    for (unsigned p = 0; p < XS_PORTS; p++) {
        const struct nic_hw_stats *h = &nic_port(p)->hw;
        uint64_t qd = 0;
        for (unsigned q = 0; q < XS_NQ; q++) {
            qd += h->rx_queue_drops[q];
        }
        XS_CHECK(h->rx_missed_errors + h->rx_no_buffer_count + qd + h->rx_crc_errors +
                 h->rx_undersize + h->rx_oversize == 0, "port%u: the NIC counted drops or errors",
                 p);
    }
    /* The 36-bit octet counters across their 32-bit boundary. The model's counters are moved on
     * (white-box, as tests/unit/test_ixgbe_model.c does) by 5 x 2^32 + 1234 octets, what ~17 s
     * at line rate would add between two reads; the driver must read low, then high, and keep
     * all 36 bits. */
    const uint64_t big = (5ULL << 32) + 1234;
    uint64_t gorc0 = h0->rx_bytes, gotc1 = h1->tx_bytes;
    xs_port(0)->m->gorc.v += big;
    xs_port(1)->m->gotc.v += big;
    nic_housekeeping();
    xs_expect("port0 GORC across 2^32 (36-bit read)", h0->rx_bytes - gorc0, big);
    xs_expect("port1 GOTC across 2^32 (36-bit read)", h1->tx_bytes - gotc1, big);

    uint64_t acc = 0, drop = 0;
    unsigned oq = 0;
    if (xs_failures() == 0) {
        xs_stream_overload(&acc, &drop, &oq);
    }
    xs_check_pools();
    free(s->seen);
    if (xs_failures() == 0) {
        xs_summarize("%" PRIu64 " frames, 256 flows, %" PRIu64 " passes of 4 cores (%.0f ms "
                     "simulated, %" PRIu64 " paced waits): 0 lost, 0 reordered, per queue %" PRIu64
                     "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 " as RSS says; port1 sent %" PRIu64
                     " = forwarded + 1 ARP request; GPRC/GORC/GPTC/GOTC agree; counters "
                     "conserve; pools full; overload of queue %u: %" PRIu64 " taken, %" PRIu64
                     " dropped = QPRDC = model; 36-bit GORC/GOTC past 2^32",
                     s->nframes, passes, (double)took / 1e6, held, injected_q[0], injected_q[1],
                     injected_q[2], injected_q[3], p1_sent, oq, acc, drop);
    }
}
