/*
 * tests/hostsim/fwd_sim.c: the forwarding app (apps/fwd) end to end on the host, with the
 * firmware's own rings, pools, port table, FIB, neighbour table and router code, against two
 * fake ports (sim_platform.c). Single-threaded and deterministic: the cores' passes
 * (fwd_poll_core) run in turn. One build per mode (router: config/default.conf, wire:
 * config/wire.conf; the router_vlan and router6 variants, fwd_sim.h). Usage and what is
 * checked: tests/hostsim/README.md; `--help`.
 *
 * The traffic: 64-byte UDP frames (60 bytes here: the NIC strips the FCS; router6: 80-byte
 * IPv6 ones) over 256 flows, each flow carrying a sequence number in its payload, into port0's
 * RX queues (flow f on queue f % cores, as RSS pins a flow to a queue); a few malformed frames
 * of every kind mixed in. Out of port1 every stream frame must come exactly once, in flow
 * order, rewritten as the mode says; then every counter must add up and every buffer be back.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "apps/fwd/fwd.h"
#include "drivers/nic/nic.h"
#include "net/iface.h"
#include "net/nexthop.h"
#include "net/nd_relay.h"
#include "net/nexthop6.h"
#include "tests/hostsim/fwd_sim.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
#define SIM_SANITIZED 1
#else
#define SIM_SANITIZED 0
#endif

static const char *const sim_bad_names[BAD_KINDS] = {
    "ip_csum", "ttl1", "dst_martian", "no_route", "ip_version", "eth_mcast", "directed_bcast",
    "other_port_addr", "unresolved", "ipv6", "short_ipv4",
    "ip6_truncated", "ip6_version", "ip6_payload_length", "hop_limit1", "src_link_local",
    "ext_chain", "no_route6", "unresolved6", "eth_mcast6", "other_port_addr6",
    "rx_error", "oversize", "zero_len",
};

/* The malformed kinds this build sends, in turn: its stream's family's, then the ring's. */
static const enum sim_bad sim_kinds[] = {
#ifdef SIM_IPV6
    BAD6_TRUNCATED, BAD6_VERSION, BAD6_PAYLOAD_LENGTH, BAD6_HOP_LIMIT1, BAD6_SRC_LINK_LOCAL,
    BAD6_EXT_CHAIN, BAD6_NO_ROUTE, BAD6_UNRESOLVED, BAD6_ETH_MCAST, BAD6_OTHER_PORT,
#else
    BAD_IP_CSUM, BAD_TTL1, BAD_DST_MARTIAN, BAD_NO_ROUTE, BAD_IP_VERSION, BAD_ETH_MCAST,
    BAD_DIRECTED_BCAST, BAD_OTHER_PORT, BAD_UNRESOLVED, BAD_IPV6, BAD_SHORT_IPV4,
#endif
    BAD_RX_ERROR, BAD_OVERSIZE, BAD_ZERO_LEN,
};
#define SIM_NKINDS ((unsigned)(sizeof(sim_kinds) / sizeof(sim_kinds[0])))

static uint64_t sim_rand(struct sim *s)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return s->rng;
}

/* --- injecting ----------------------------------------------------------------------------- */

/* sim_build_stream: stream frame (or probe) (flow, seq) as host A sends it in this build's
 * family; returns its length. */
static uint16_t sim_build_stream(uint8_t *f, unsigned flow, uint32_t seq, uint16_t magic)
{
    if (SIM_IPV6_STREAM) {
        return sim6_build(f, flow, seq, magic);
    }
    sim_build(f, flow, seq, magic);
    return SIM_FRAME_BYTES;
}

#ifdef SIM_VLAN
/* sim_vlan_tag: f as it crosses the wire to `port`: tagged with the port's VLAN (frames too
 * short for an Ethernet header go as they are). Returns the frame to send, *len updated. */
static const uint8_t *sim_vlan_tag(unsigned port, const uint8_t *f, uint32_t *len)
{
    static uint8_t tagged[3000 + 4];
    if (*len < 14 || *len + 4 > sizeof(tagged)) {
        return f;
    }
    memcpy(tagged, f, 12);
    sim_st16(tagged + 12, 0x8100);
    sim_st16(tagged + 14, SIM_VID(port));
    memcpy(tagged + 16, f + 12, *len - 12);
    *len += 4;
    return tagged;
}

/* sim_vlan_untag: a frame out of `port` must carry its VLAN's tag; the host sees it without. */
static void sim_vlan_on_frame(struct sim *s, unsigned port, const uint8_t *f, uint16_t len)
{
    static uint8_t inner[PKB_DATA_BYTES];
    if (len < 18 || sim_ld16(f + 12) != 0x8100 || (sim_ld16(f + 14) & 0xfff) != SIM_VID(port) ||
        len - 4u > sizeof(inner)) {
        sim_report_frame(s, ++s->vlan_bad_tag, port ? "port1: not tagged VLAN 20" :
                         "port0: not tagged VLAN 10", f, len);
        return;
    }
    memcpy(inner, f, 12);
    memcpy(inner + 12, f + 16, len - 16u);
    (port ? sim_on_port1 : sim_on_port0)(s, inner, (uint16_t)(len - 4));
}

static void sim_vlan_on_port0(void *ctx, const uint8_t *f, uint16_t len)
{
    sim_vlan_on_frame(ctx, 0, f, len);
}

static void sim_vlan_on_port1(void *ctx, const uint8_t *f, uint16_t len)
{
    sim_vlan_on_frame(ctx, 1, f, len);
}
#endif

static bool sim_rx(struct sim *s, unsigned port, unsigned q, const uint8_t *f, uint32_t len,
                   uint32_t err_bits)
{
    struct fake_inic_rx_opts o = { .rss_hash = 0, .err_bits = err_bits, .status_bits = 0 };
#ifdef SIM_VLAN
    if (s->nic_vlan && len >= 14) { /* tagged on the wire, stripped by the NIC */
        o.status_bits = IDESC_RX_STATUS_VP;
        o.vlan = SIM_VID(port);
    } else {
        f = sim_vlan_tag(port, f, &len);
    }
#endif
    if (!s->sw_csum) {
        fake_inic_ipv4_status(f, len, IDESC_RX_ERR_82576_IPE, &o); /* as igb's RXCSUM.IPOFL */
    }
    unsigned need = len <= PKB_DATA_BYTES ? 1 : (len + PKB_DATA_BYTES - 1) / PKB_DATA_BYTES;
    struct fake_inic_rx *nrx = &sim_queue(port, q)->nrx;

    if (fake_inic_rx_avail(nrx) < need) {
        s->rx_full_waits++; /* the caller holds the frame back: a real NIC would drop it */
        return false;
    }
    if (fake_inic_rx_frame(nrx, f, len, &o) != need) {
        sim_fail(s, "port%u q%u: fake NIC refused a frame it had room for", port, q);
        return false;
    }
    return true;
}

/* sim_next_index: the next stream frame index (>= cursor) whose flow RSS puts on queue q. */
static uint64_t sim_next_index(const struct sim *s, unsigned q)
{
    uint64_t i = s->cursor[q];
    while (i < s->nframes && sim_flow_queue(s, sim_flow_of(i)) != q) {
        i++;
    }
    return i;
}

static bool sim_inject_bad(struct sim *s, unsigned q)
{
    static uint8_t f[3000];
    enum sim_bad k = sim_kinds[s->bad_sent % SIM_NKINDS];
    uint32_t err_bits;
    uint16_t len = SIM_IPV6_STREAM ? sim6_build_bad(f, k, s->bad_sent, &err_bits)
                                   : sim_build_bad(f, k, s->bad_sent, &err_bits);

    if (!sim_rx(s, 0, q, f, len, err_bits)) {
        return false;
    }
    if (!CONFIG_MODE_ROUTER && !sim_bad_is_ring_level(k)) {
        struct sim_passthrough *p = &s->pass[s->npass++];
        memcpy(p->bytes, f, len);
        p->len = len;
        p->seen = false;
    }
    s->bad_count[k]++;
    s->bad_sent++;
    return true;
}

/* sim_inject: up to n frames into port0 queue q: the stream, with a malformed frame each time
 * the stream passes the next of bad_planned evenly spaced points. Returns frames injected. */
static unsigned sim_inject(struct sim *s, unsigned q, unsigned n)
{
    static uint8_t f[SIM_STREAM_BYTES];
    unsigned done = 0;

    while (done < n) {
        uint64_t bad_at = (s->bad_sent + 1) * s->nframes / (s->bad_planned + 1);
        if (s->bad_sent < s->bad_planned && s->injected >= bad_at) {
            if (!sim_inject_bad(s, q)) {
                break;
            }
            done++;
            continue;
        }
        uint64_t i = sim_next_index(s, q);
        if (i >= s->nframes) {
            break;
        }
        uint16_t len = sim_build_stream(f, sim_flow_of(i), sim_seq_of(i), SIM_MAGIC_STREAM);
        if (!sim_rx(s, 0, q, f, len, 0)) {
            break;
        }
        s->cursor[q] = i + 1;
        s->injected++;
        done++;
    }
    return done;
}

/* --- running the cores --------------------------------------------------------------------- */

static unsigned sim_poll(struct sim *s, unsigned core)
{
    uint64_t t0 = __rdtsc();
    unsigned n = fwd_poll_core(core);
    if (core == 0) {
        n += nd_relay_drain(); /* core 0's pass also applies what ND told the others */
    }
    s->poll_tsc += __rdtsc() - t0;
    s->polls++;
    return n;
}

/* sim_host_b_answer: host B's answer to the router's request for it: an ARP reply, or a
 * neighbour advertisement (SIM_IPV6). Returns its length. */
static uint16_t sim_host_b_answer(uint8_t *f)
{
    if (SIM_IPV6_STREAM) {
        return sim6_build_na_from_b(f);
    }
    uint8_t port1_mac[6];
    sim_port_mac(1, port1_mac);
    sim_build_arp(f, 2, port1_mac, sim_mac_host_b, SIM_IP_HOST_B, port1_mac, SIM_IP_PORT1);
    return SIM_FRAME_BYTES;
}

/* sim_wire: every port's TX queues "transmitted" (up to max descriptors each), and host B's
 * answers to the router's requests put on port1's wire: on RX queue 0 for ARP (not IP, so RSS
 * leaves it there), on the last queue for neighbour advertisements (RSS hashes IPv6: what that
 * core learns must reach core 0 through net/nd_relay). */
static void sim_wire(struct sim *s, unsigned max)
{
    for (unsigned p = 0; p < SIM_PORTS; p++) {
        for (unsigned q = 0; q < s->ncores; q++) {
            fake_inic_tx_process(&sim_queue(p, q)->ntx, max);
        }
    }
    while (s->hostb_replies_due > 0) {
        uint8_t f[SIM_SETUP_BYTES];
        uint16_t len = sim_host_b_answer(f);
        if (!sim_rx(s, 1, SIM_IPV6_STREAM ? s->ncores - 1 : 0, f, len, 0)) {
            break;
        }
        s->hostb_replies_due--;
    }
}

static bool sim_tx_in_flight(const struct sim *s)
{
    for (unsigned p = 0; p < SIM_PORTS; p++) {
        for (unsigned q = 0; q < s->ncores; q++) {
            if (iring_tx_in_flight(&nic_port(p)->q[q].tx) != 0) {
                return true;
            }
        }
    }
    return false;
}

/* sim_settle: run every core and the wire until nothing moves and nothing is in flight. */
static void sim_settle(struct sim *s)
{
    for (unsigned round = 0; round < SIM_DRAIN_ROUNDS; round++) {
        unsigned moved = 0;
        for (unsigned c = 0; c < s->ncores; c++) {
            moved += sim_poll(s, c);
        }
        sim_wire(s, CONFIG_NIC_TX_DESCS);
        sim_clock_advance(1000);
        if (moved == 0 && s->hostb_replies_due == 0 && !sim_tx_in_flight(s)) {
            return;
        }
    }
    sim_fail(s, "still busy after %d drain rounds", SIM_DRAIN_ROUNDS);
}

/* sim_resolve_neighbours: router mode. Host A asks for its gateway (the router learns A from
 * the request); a probe towards B's network makes the router ask for B on port1 from the
 * probe's core, B answers on port1 queue 0 and core 0 learns it; a second probe must then go
 * through. */
static void sim_resolve_neighbours(struct sim *s)
{
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    uint8_t f[SIM_FRAME_BYTES];
    unsigned probe_q = s->ncores - 1;

    sim_build_arp(f, 1, bcast, sim_mac_host_a, SIM_IP_HOST_A, (const uint8_t[6]){ 0 },
                  SIM_IP_PORT0);
    sim_rx(s, 0, 0, f, SIM_FRAME_BYTES, 0);
    sim_settle(s);
    sim_build(f, probe_q, 0, SIM_MAGIC_PROBE);
    sim_rx(s, 0, probe_q, f, SIM_FRAME_BYTES, 0);
    sim_settle(s);
    sim_build(f, probe_q, 1, SIM_MAGIC_PROBE);
    sim_rx(s, 0, probe_q, f, SIM_FRAME_BYTES, 0);
    sim_settle(s);
    sim_expect(s, "setup: ARP replies to host A", s->p0_arp_replies, 1);
    sim_expect(s, "setup: ARP requests for host B", s->p1_arp_requests, 1);
    sim_expect(s, "setup: probes forwarded once B was known", s->p1_probes, 1);
    sim_expect(s, "setup: arp_unresolved on the probe's core",
               fwd_stats_of(0, probe_q)->arp_unresolved, 1);
    sim_expect(s, "setup: B's reply learned by core 0",
               net_queue_stats_of(1, 0)->local.arp_replies_learned, 1);
}

/* sim_resolve_neighbours6: router6, sim_resolve_neighbours with neighbour discovery. Host A
 * solicits its gateway on queue 0 (the router answers and learns A from the solicitation's
 * source link-layer option); a probe towards B's network finds B unknown, so the probe's core
 * drops it (nd_unresolved) and solicits B on port1; B advertises itself on port1 queue 0 and
 * core 0, the neighbour cache's only writer, learns it; a second probe must then go through. */
static void sim_resolve_neighbours6(struct sim *s)
{
    uint8_t f[SIM_SETUP_BYTES];
    unsigned probe_q = s->ncores - 1;

    sim_rx(s, 0, 0, f, sim6_build_ns_from_a(f), 0);
    sim_settle(s);
    sim_rx(s, 0, probe_q, f, sim6_build(f, probe_q, 0, SIM_MAGIC_PROBE), 0);
    sim_settle(s);
    sim_rx(s, 0, probe_q, f, sim6_build(f, probe_q, 1, SIM_MAGIC_PROBE), 0);
    sim_settle(s);
    sim_expect(s, "setup: advertisements to host A", s->p0_na_replies, 1);
    sim_expect(s, "setup: host A learned from its solicitation",
               net_queue_stats_of(0, 0)->local6.ns_learned, 1);
    sim_expect(s, "setup: solicitations for host B", s->p1_ns_requests, 1);
    sim_expect(s, "setup: probes forwarded once B was known", s->p1_probes, 1);
    sim_expect(s, "setup: nd_unresolved on the probe's core",
               fwd_stats_of(0, probe_q)->nd_unresolved, 1);
    /* B's advertisement arrives on the last core (RSS hashes IPv6) and is relayed to core 0 */
    unsigned last = s->ncores - 1;
    sim_expect(s, "setup: B's advertisement read on the last core",
               net_queue_stats_of(1, last)->local6.na_learned, 1);
    sim_expect(s, "setup: ... and relayed to core 0 (none when that is core 0)",
               net_queue_stats_of(1, last)->nd_relayed, last != 0 ? 1 : 0);
}

/* sim_run: the stream. Each pass injects a pseudo-random share of up to two bursts per queue,
 * polls every core once or twice, and lets the NIC transmit, now and then only partly (a slow
 * wire keeps descriptors in flight across passes). --bench: exactly one burst per queue. */
static void sim_run(struct sim *s)
{
    for (unsigned idle = 0;;) {
        unsigned moved = 0, polled = 0;
        bool more = s->bad_sent < s->bad_planned;
        for (unsigned q = 0; q < s->ncores; q++) {
            unsigned want = s->bench ? CONFIG_NIC_BURST
                                     : (unsigned)(sim_rand(s) % (2 * CONFIG_NIC_BURST + 1));
            moved += sim_inject(s, q, want);
            more = more || sim_next_index(s, q) < s->nframes;
        }
        for (unsigned c = 0; c < s->ncores; c++) {
            unsigned passes = s->bench || sim_rand(s) % 4 != 0 ? 1 : 2;
            for (unsigned k = 0; k < passes; k++) {
                polled += sim_poll(s, c);
            }
        }
        unsigned max = !s->bench && sim_rand(s) % 16 == 0 ? (unsigned)(sim_rand(s) % 48)
                                                          : CONFIG_NIC_TX_DESCS;
        sim_wire(s, max);
        sim_clock_advance((uint64_t)moved * SIM_NS_PER_FRAME + 100);
        if (!more) {
            break;
        }
        idle = moved == 0 && polled == 0 ? idle + 1 : 0;
        if (idle == SIM_DRAIN_ROUNDS) {
            sim_fail(s, "stalled: RX rings full and no core receives (%" PRIu64 " of %" PRIu64
                     " stream frames in)", s->injected, s->nframes);
            break;
        }
    }
    sim_settle(s);
}

/* --- main ---------------------------------------------------------------------------------- */

static void sim_usage(FILE *to)
{
    fprintf(to,
            "usage: fwd_sim_%s [--frames N] [--cores N] [--bad N] [--seed N] [--bench] "
            "[--quiet] [--sw-csum] [--nic-vlan]\n"
            "  --frames N  stream frames (default 10000000)\n"
            "  --cores N   cores, each with a queue pair per port (default 4, max %d)\n"
            "  --bad N     malformed frames of each of the %u kinds (default 20; 0 with --bench)\n"
            "  --seed N    the pseudo-random burst sizes (default 1)\n"
            "  --bench     steady state: one full burst per queue per pass, nothing malformed\n"
            "  --quiet     no firmware console lines\n"
            "  --sw-csum   the NIC reports no IPv4 checksum verdict: the router sums headers\n"
            "  --nic-vlan  router_vlan: the NICs strip and insert the tags (vlan.offload)\n",
            SIM_MODE, WS_MAX_CPUS, SIM_NKINDS);
}

static bool sim_args(struct sim *s, int argc, char **argv)
{
    bool bad_given = false;
    s->nframes = 10000000;
    s->ncores = 4;
    s->bad_per_kind = 20;
    s->rng = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_val = i + 1 < argc;
        if (strcmp(a, "--bench") == 0) {
            s->bench = true;
        } else if (strcmp(a, "--quiet") == 0) {
            s->quiet = true;
        } else if (strcmp(a, "--sw-csum") == 0) {
            s->sw_csum = true;
        } else if (strcmp(a, "--nic-vlan") == 0 && SIM_VLAN_STREAM) {
            s->nic_vlan = true;
        } else if (strcmp(a, "--frames") == 0 && has_val) {
            s->nframes = strtoull(argv[++i], NULL, 0);
        } else if (strcmp(a, "--cores") == 0 && has_val) {
            s->ncores = (unsigned)strtoul(argv[++i], NULL, 0);
        } else if (strcmp(a, "--bad") == 0 && has_val) {
            s->bad_per_kind = (unsigned)strtoul(argv[++i], NULL, 0);
            bad_given = true;
        } else if (strcmp(a, "--seed") == 0 && has_val) {
            s->rng = strtoull(argv[++i], NULL, 0) | 1;
        } else {
            sim_usage(strcmp(a, "--help") == 0 ? stdout : stderr);
            return false;
        }
    }
    if (s->bench && !bad_given) {
        s->bad_per_kind = 0;
    }
    if (s->ncores == 0 || s->ncores > WS_MAX_CPUS || s->nframes > 0xffffffffULL * SIM_FLOWS) {
        sim_usage(stderr);
        return false;
    }
    s->bad_planned = s->bad_per_kind * SIM_NKINDS;
    return true;
}

/* sim_addresses6_as_expected: the IPv6 addresses config/default.conf gives the ports are the
 * ones the hosts of sim_frames6.c are built around. */
static bool sim_addresses6_as_expected(const struct net_port *a, const struct net_port *b)
{
    uint8_t want_a[16], want_b[16];
    sim6_addr(want_a, SIM6_NET_PORT0, SIM6_HOST_ROUTER);
    sim6_addr(want_b, SIM6_NET_PORT1, SIM6_HOST_ROUTER);
    return a->has_address6 && b->has_address6 && memcmp(a->ifc6.global, want_a, 16) == 0 &&
           memcmp(b->ifc6.global, want_b, 16) == 0;
}

/* sim_bring_up: the firmware's boot order (its init levels): pools, ports, next hops (IPv4,
 * then IPv6), forwarding. */
static bool sim_bring_up(struct sim *s)
{
    sim_platform_init(s->quiet);
    if (s->nic_vlan) { /* as apps/fwd tells the NICs for ports with sub-interfaces */
        nic_configure(&(struct nic_config){ .vlan_hw = { true, true } });
    }
    if (nic_pools_init(s->ncores) != 0 || nic_probe_all(s->ncores) != SIM_PORTS ||
        net_iface_init() != 0 || nexthop_init() != 0 || nexthop6_init() != 0 ||
        nd_relay_init(s->ncores) != 0 || fwd_init(s->ncores) != 0) {
        sim_fail(s, "bring-up failed (see the fw| lines)");
        return false;
    }
#ifdef SIM_VLAN
    const struct net_port *a = net_iface_at(WS_MAX_PORTS), *b = net_iface_at(WS_MAX_PORTS + 1);
    void (*on_port0)(void *, const uint8_t *, uint16_t) = sim_vlan_on_port0;
    void (*on_port1)(void *, const uint8_t *, uint16_t) = sim_vlan_on_port1;
#elif defined(SIM_IPV6)
    const struct net_port *a = net_port(0), *b = net_port(1);
    void (*on_port0)(void *, const uint8_t *, uint16_t) = sim6_on_port0;
    void (*on_port1)(void *, const uint8_t *, uint16_t) = sim6_on_port1;
#else
    const struct net_port *a = net_port(0), *b = net_port(1);
    void (*on_port0)(void *, const uint8_t *, uint16_t) = sim_on_port0;
    void (*on_port1)(void *, const uint8_t *, uint16_t) = sim_on_port1;
#endif
    if (CONFIG_MODE_ROUTER && (!a->has_address || a->ifc.ip != SIM_IP_PORT0 ||
                               !b->has_address || b->ifc.ip != SIM_IP_PORT1 ||
                               (SIM_IPV6_STREAM && !sim_addresses6_as_expected(a, b)))) {
        sim_fail(s, "config/default.conf's port addresses changed: update tests/hostsim");
        return false;
    }
    for (unsigned q = 0; q < s->ncores; q++) {
        sim_queue(0, q)->ntx.on_frame = on_port0;
        sim_queue(0, q)->ntx.ctx = s;
        sim_queue(1, q)->ntx.on_frame = on_port1;
        sim_queue(1, q)->ntx.ctx = s;
    }
    return true;
}

/* sim_rdtsc_cost: the cheapest back-to-back rdtsc pair, taken off each timed poll. */
static uint64_t sim_rdtsc_cost(void)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 1000; i++) {
        uint64_t t0 = __rdtsc();
        uint64_t d = __rdtsc() - t0;
        best = d < best ? d : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    static struct sim sim;
    struct sim *s = &sim;
    struct sim_totals t;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!sim_args(s, argc, argv)) {
        return 2;
    }
    s->pass = calloc(s->bad_planned + 1, sizeof(*s->pass));
    s->seen = calloc(s->nframes / 8 + 1, 1);
    if (s->pass == NULL || s->seen == NULL || !sim_bring_up(s)) {
        return 1;
    }
    if (SIM_IPV6_STREAM) {
        sim_resolve_neighbours6(s);
    } else if (CONFIG_MODE_ROUTER) {
        sim_resolve_neighbours(s);
    }
    s->polls = 0;
    s->poll_tsc = 0;
    sim_run(s);
    sim_check_stream_totals(s);
    unsigned failures = s->failures;
    sim_books(s, &t);
    sim_check_books(s, &t);
    sim_check_malformed(s, &t);
    bool books_ok = s->failures == failures;
    failures = s->failures;
    sim_check_pools(s);
    bool pools_ok = s->failures == failures;

    if (!s->quiet && s->bad_sent != 0) {
        printf("hostsim %s: malformed frames by kind:", SIM_MODE);
        for (unsigned i = 0; i < SIM_NKINDS; i++) {
            enum sim_bad k = sim_kinds[i];
            printf(" %s %u%s", sim_bad_names[k], s->bad_count[k],
                   CONFIG_MODE_ROUTER || sim_bad_is_ring_level(k) ? "" : " (passed through)");
        }
        printf("\n");
    }
    s->rdtsc_cost = sim_rdtsc_cost();
    uint64_t fwd = t.forwarded[0] ? t.forwarded[0] : 1;
    uint64_t tsc = s->poll_tsc > s->polls * s->rdtsc_cost ? s->poll_tsc - s->polls * s->rdtsc_cost
                                                          : 0;
    char bad[96];
    if (CONFIG_MODE_ROUTER) {
        snprintf(bad, sizeof(bad), "%u malformed dropped and counted", s->bad_sent);
    } else {
        snprintf(bad, sizeof(bad), "%u malformed (%u dropped and counted, %u passed unchanged)",
                 s->bad_sent, s->bad_sent - s->npass, s->npass);
    }
    char timing[64] = "";
    if (!SIM_SANITIZED) { /* sanitized code's timing says nothing about the firmware's */
        snprintf(timing, sizeof(timing), "; %.1f TSC cycles/packet in fwd_poll_core",
                 (double)tsc / (double)fwd);
    }
    printf("hostsim %s: %" PRIu64 " frames, %" PRIu64 " lost, %" PRIu64 " reordered, %" PRIu64
           " duplicated, %" PRIu64 " corrupt, %s, %u core%s, %s, %s%s\n",
           SIM_MODE, s->arrived, s->lost, s->reordered, s->duplicates,
           s->bad_len + s->bad_mac + s->bad_ttl + s->bad_csum + s->bad_payload, bad, s->ncores,
           s->ncores == 1 ? "" : "s",
           books_ok ? "counters conserve" : "COUNTERS DO NOT ADD UP",
           pools_ok ? "pools full" : "POOLS NOT FULL", timing);
    if (s->rx_full_waits != 0) {
        printf("hostsim %s: note: %" PRIu64 " times a frame waited for a free RX descriptor "
               "(a NIC would have dropped it)\n", SIM_MODE, s->rx_full_waits);
    }
    if (s->bench) {
        /* For tests/bench/fwd_bench.sh: what to divide callgrind's count by. */
        printf("hostsim %s bench: forwarded %" PRIu64 " polls %" PRIu64 " burst %d tsc_per_packet "
               "%.1f\n", SIM_MODE, t.forwarded[0], s->polls, CONFIG_NIC_BURST,
               (double)tsc / (double)fwd);
    }
    free(s->pass);
    free(s->seen);
    sim_platform_free();
    if (s->failures != 0) {
        fprintf(stderr, "hostsim %s: %u check(s) failed\n", SIM_MODE, s->failures);
        return 1;
    }
    return 0;
}
