/*
 * tests/hostsim/fwd_sim.c: the forwarding app (apps/fwd) end to end on the host, with the
 * firmware's own rings, pools, port table, FIB, neighbour table and router code, against two
 * fake ports (sim_platform.c). Single-threaded and deterministic: the cores' passes
 * (fwd_poll_core) run in turn. One build per mode (router: config/default.conf, wire:
 * config/wire.conf). Usage and what is checked: tests/hostsim/README.md; `--help`.
 *
 * The traffic: 64-byte UDP frames (60 bytes here: the NIC strips the FCS) over 256 flows, each
 * flow carrying a sequence number in its payload, into port0's RX queues (flow f on queue
 * f % cores, as RSS pins a flow to a queue); a few malformed frames of every kind mixed in. Out
 * of port1 every stream frame must come exactly once, in flow order, rewritten as the mode says;
 * then every counter must add up and every buffer be back.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "apps/fwd/fwd.h"
#include "config.h"
#include "drivers/nic/nic.h"
#include "net/local.h"
#include "net/route.h"
#include "tests/hostsim/sim.h"

#define SIM_MODE (CONFIG_MODE_ROUTER ? "router" : "wire")
#define SIM_FLOWS 256
#define SIM_RUN 8 /* a flow sends trains of SIM_RUN frames: reordering inside a burst shows */
#define SIM_FRAME_BYTES 60 /* a 64-byte frame less the FCS the NIC strips */
#define SIM_IP_OFF 14
#define SIM_UDP_OFF 34
#define SIM_PAY_OFF 42 /* magic (2), flow (2), seq (4), pattern (10) */
#define SIM_PAY_BYTES (SIM_FRAME_BYTES - SIM_PAY_OFF)
#define SIM_MAGIC_STREAM 0x5753 /* "WS" */
#define SIM_MAGIC_BAD 0x4244    /* "BD": a malformed frame, never to be forwarded (router) */
#define SIM_MAGIC_PROBE 0x5052  /* "PR": setup frames that make the router resolve its hop */
#define SIM_TTL 64
#define SIM_NS_PER_FRAME 67 /* 64 bytes + preamble + gap = 84 bytes: 67.2 ns at 10 Gbit/s */
#define SIM_MAX_REPORTS 10  /* per kind of per-frame failure; the rest are only counted */
#define SIM_DRAIN_ROUNDS 10000

/* The addresses of config/default.conf and the hosts behind the ports. */
#define SIM_IP_PORT0 0xc6120001u  /* 198.18.0.1 */
#define SIM_IP_PORT1 0xc6130001u  /* 198.19.0.1 */
#define SIM_IP_HOST_A 0xc6120002u /* 198.18.0.2, on port0: the sender */
#define SIM_IP_HOST_B 0xc6130002u /* 198.19.0.2, on port1: the next hop */
#define SIM_NET_VIA_B 0xc6336400u /* 198.51.100.0/24 via 198.19.0.2 (its lower /25 only) */
#define SIM_IP_NOBODY 0xc613004du /* 198.19.0.77, on port1's subnet: never answers ARP */
static const uint8_t sim_mac_host_a[6] = { 0x02, 0xaa, 0x00, 0x00, 0x00, 0x02 };
static const uint8_t sim_mac_host_b[6] = { 0x02, 0xbb, 0x00, 0x00, 0x00, 0x02 };

/* Malformed frames: every one is a counted drop (router), or, in wire mode, those the wire does
 * not look into (all but the RX-ring-level ones) must come out of port1 unchanged. */
enum sim_bad {
    BAD_IP_CSUM,        /* route: ip_bad_checksum */
    BAD_TTL1,           /* route: ttl_expired (+ ICMP time exceeded, rate limited) */
    BAD_DST_MARTIAN,    /* route: ip_dst_martian (127.0.0.1) */
    BAD_NO_ROUTE,       /* fwd: no_route (+ ICMP net unreachable, rate limited) */
    BAD_IP_VERSION,     /* route: ip_bad_version */
    BAD_ETH_MCAST,      /* route: eth_dst_group */
    BAD_DIRECTED_BCAST, /* fwd: dst_directed_broadcast (198.19.0.255) */
    BAD_OTHER_PORT,     /* fwd: dst_other_port_address (port1's address, arriving on port0) */
    BAD_UNRESOLVED,     /* fwd: arp_unresolved (+ ARP request for 198.19.0.77, rate limited) */
    BAD_IPV6,           /* local: eth_unsupported_type */
    BAD_SHORT_IPV4,     /* local: ip_truncated (20 bytes) */
    BAD_RX_ERROR,       /* ring: errors (RXE in the write-back) */
    BAD_OVERSIZE,       /* ring: errors + oversize (3000 bytes over two descriptors) */
    BAD_ZERO_LEN,       /* ring: errors (length 0) */
    BAD_KINDS
};
static const char *const sim_bad_names[BAD_KINDS] = {
    "ip_csum", "ttl1", "dst_martian", "no_route", "ip_version", "eth_mcast", "directed_bcast",
    "other_port_addr", "unresolved", "ipv6", "short_ipv4", "rx_error", "oversize", "zero_len",
};

static bool sim_bad_is_ring_level(enum sim_bad k)
{
    return k == BAD_RX_ERROR || k == BAD_OVERSIZE || k == BAD_ZERO_LEN;
}

/* A frame wire mode must pass through unchanged. */
struct sim_passthrough {
    uint8_t bytes[SIM_FRAME_BYTES];
    uint16_t len;
    bool seen;
};

struct sim {
    /* options */
    uint64_t nframes;
    unsigned ncores;
    unsigned bad_per_kind;
    bool bench; /* exactly one burst per queue per pass; no malformed frames, no slow TX */
    bool quiet;
    uint64_t rng;

    /* generator: stream frame i, of flow sim_flow_of(i), sequence sim_seq_of(i) */
    uint64_t cursor[WS_MAX_CPUS]; /* next stream index for queue q */
    uint64_t injected;
    unsigned bad_planned, bad_sent;
    unsigned bad_count[BAD_KINDS];
    struct sim_passthrough *pass; /* wire mode: bad_planned entries at most */
    unsigned npass;

    /* port1's receiver: the stream checker */
    uint64_t next_seq[SIM_FLOWS]; /* one past the highest sequence seen, per flow */
    uint8_t *seen;                /* one bit per stream frame index */
    uint64_t arrived, unique, lost, reordered, duplicates;
    uint64_t bad_len, bad_mac, bad_ttl, bad_csum, bad_payload;
    uint64_t p1_probes, p1_arp_requests, p1_arp_nobody, p1_unexpected;
    unsigned hostb_replies_due;

    /* port0's sender side: what comes back to host A */
    uint64_t p0_arp_replies, p0_time_exceeded, p0_unreachable, p0_unexpected;

    /* fwd_poll_core timing */
    uint64_t polls, poll_tsc, rdtsc_cost;

    unsigned failures;
};

/* --- helpers ------------------------------------------------------------------------------- */

static uint16_t ld16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t ld32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void st16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void st32(uint8_t *p, uint32_t v)
{
    st16(p, (uint16_t)(v >> 16));
    st16(p + 2, (uint16_t)v);
}

/* sim_csum: RFC 1071 over 16-bit words, written independently of net/inet.c, which it checks. */
static uint16_t sim_csum(const uint8_t *p, size_t len, uint32_t sum)
{
    for (size_t i = 0; i + 1 < len; i += 2) {
        sum += ld16(p + i);
    }
    if (len & 1) {
        sum += (uint32_t)p[len - 1] << 8;
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return (uint16_t)~sum;
}

static uint64_t sim_rand(struct sim *s)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return s->rng;
}

static void sim_fail(struct sim *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sim_fail(struct sim *s, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "hostsim %s: FAIL: ", SIM_MODE);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    s->failures++;
}

/* sim_expect: one conservation or counter check. */
static void sim_expect(struct sim *s, const char *what, uint64_t got, uint64_t want)
{
    if (got != want) {
        sim_fail(s, "%s: %" PRIu64 ", expected %" PRIu64, what, got, want);
    }
}

/* sim_report_frame: a per-frame failure, printed with its bytes for the first few. */
static void sim_report_frame(struct sim *s, uint64_t count, const char *what, const uint8_t *f,
                             uint16_t len)
{
    if (count > SIM_MAX_REPORTS) {
        return;
    }
    char hex[3 * 64 + 1] = "";
    for (unsigned i = 0; i < len && i < 64; i++) {
        snprintf(hex + 3 * i, 4, "%02x ", f[i]);
    }
    sim_fail(s, "%s (len %u): %s", what, len, hex);
}

/* --- frames -------------------------------------------------------------------------------- */

static unsigned sim_flow_queue(const struct sim *s, unsigned flow)
{
    return flow % s->ncores; /* the fake has no RSS: pin each flow to one queue, as RSS would */
}

/* The stream: blocks of SIM_FLOWS * SIM_RUN frames, in which flow 0 sends SIM_RUN frames, then
 * flow 1, and so on. */
static unsigned sim_flow_of(uint64_t i)
{
    return (unsigned)(i % (SIM_FLOWS * SIM_RUN) / SIM_RUN);
}

static uint32_t sim_seq_of(uint64_t i)
{
    return (uint32_t)(i / (SIM_FLOWS * SIM_RUN) * SIM_RUN + i % SIM_RUN);
}

/* sim_flow_frames: how many of the first n stream frames flow f sends. */
static uint64_t sim_flow_frames(uint64_t n, unsigned f)
{
    uint64_t rest = n % (SIM_FLOWS * SIM_RUN), before = (uint64_t)f * SIM_RUN;
    uint64_t tail = rest <= before ? 0 : rest - before < SIM_RUN ? rest - before : SIM_RUN;
    return n / (SIM_FLOWS * SIM_RUN) * SIM_RUN + tail;
}

/* sim_flow_dst: one flow in 8 goes to host B itself (connected route), the rest to the network
 * behind it (static route via B); both leave through port1 towards B's MAC. */
static uint32_t sim_flow_dst(unsigned flow)
{
    return flow % 8 == 0 ? SIM_IP_HOST_B : SIM_NET_VIA_B + 1 + flow % 126;
}

static void sim_ip_udp_csums(uint8_t *f)
{
    uint8_t *ip = f + SIM_IP_OFF, *udp = f + SIM_UDP_OFF;
    uint16_t udp_len = ld16(udp + 4);
    st16(ip + 10, 0);
    st16(ip + 10, sim_csum(ip, 20, 0));
    /* UDP over the pseudo header (RFC 768): addresses, protocol, UDP length. */
    uint32_t pseudo = ld16(ip + 12) + ld16(ip + 14) + ld16(ip + 16) + ld16(ip + 18) + 17u +
                      udp_len;
    st16(udp + 6, 0);
    uint16_t c = sim_csum(udp, udp_len, pseudo);
    st16(udp + 6, c == 0 ? 0xffff : c);
}

/* sim_build: the 60-byte frame host A sends for (flow, seq), magic telling what it is. */
static void sim_build(uint8_t *f, unsigned flow, uint32_t seq, uint16_t magic)
{
    uint8_t port0_mac[6];
    sim_port_mac(0, port0_mac);
    memcpy(f, port0_mac, 6);
    memcpy(f + 6, sim_mac_host_a, 6);
    st16(f + 12, 0x0800);
    uint8_t *ip = f + SIM_IP_OFF;
    ip[0] = 0x45;
    ip[1] = 0;
    st16(ip + 2, SIM_FRAME_BYTES - SIM_IP_OFF);
    st16(ip + 4, (uint16_t)seq);
    st16(ip + 6, 0x4000); /* DF */
    ip[8] = SIM_TTL;
    ip[9] = 17;
    st32(ip + 12, SIM_IP_HOST_A);
    st32(ip + 16, sim_flow_dst(flow));
    uint8_t *udp = f + SIM_UDP_OFF;
    st16(udp, (uint16_t)(1024 + flow));
    st16(udp + 2, 5001);
    st16(udp + 4, SIM_FRAME_BYTES - SIM_UDP_OFF);
    uint8_t *pay = f + SIM_PAY_OFF;
    st16(pay, magic);
    st16(pay + 2, (uint16_t)flow);
    st32(pay + 4, seq);
    for (unsigned k = 8; k < SIM_PAY_BYTES; k++) {
        pay[k] = (uint8_t)(seq * 31 + flow * 7 + k * 13);
    }
    sim_ip_udp_csums(f);
}

/* sim_build_routed: what the router must make of sim_build(flow, seq): towards B's MAC from
 * port1's, TTL one less, header checksum recomputed (from scratch, unlike the router). */
static void sim_build_routed(uint8_t *f, unsigned flow, uint32_t seq)
{
    sim_build(f, flow, seq, SIM_MAGIC_STREAM);
    memcpy(f, sim_mac_host_b, 6);
    sim_port_mac(1, f + 6);
    f[SIM_IP_OFF + 8]--;
    st16(f + SIM_IP_OFF + 10, 0);
    st16(f + SIM_IP_OFF + 10, sim_csum(f + SIM_IP_OFF, 20, 0));
}

static void sim_build_arp(uint8_t *f, uint16_t op, const uint8_t *eth_dst, const uint8_t *sha,
                          uint32_t spa, const uint8_t *tha, uint32_t tpa)
{
    memset(f, 0, SIM_FRAME_BYTES);
    memcpy(f, eth_dst, 6);
    memcpy(f + 6, sha, 6);
    st16(f + 12, 0x0806);
    uint8_t *a = f + 14;
    st16(a, 1);
    st16(a + 2, 0x0800);
    a[4] = 6;
    a[5] = 4;
    st16(a + 6, op);
    memcpy(a + 8, sha, 6);
    st32(a + 14, spa);
    memcpy(a + 18, tha, 6);
    st32(a + 24, tpa);
}

/* sim_build_bad: malformed frame number idx of kind k into f (room for 3000 bytes); returns its
 * length and the write-back error bits to give it. */
static uint16_t sim_build_bad(uint8_t *f, enum sim_bad k, unsigned idx, uint32_t *err_bits)
{
    uint8_t *ip = f + SIM_IP_OFF;
    uint16_t len = SIM_FRAME_BYTES;

    *err_bits = 0;
    sim_build(f, idx % SIM_FLOWS, idx, SIM_MAGIC_BAD);
    switch (k) {
    case BAD_IP_CSUM:
        ip[10] ^= 0x5a; /* after the checksums: it stays wrong */
        return len;
    case BAD_TTL1:
        ip[8] = 1;
        break;
    case BAD_DST_MARTIAN:
        st32(ip + 16, 0x7f000001u);
        break;
    case BAD_NO_ROUTE:
        st32(ip + 16, 0xcb007105u); /* 203.0.113.5: no route covers it */
        break;
    case BAD_IP_VERSION:
        ip[0] = 0x65;
        break;
    case BAD_ETH_MCAST:
        memcpy(f, (const uint8_t[6]){ 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 }, 6);
        break;
    case BAD_DIRECTED_BCAST:
        st32(ip + 16, SIM_IP_PORT1 | 0xff);
        break;
    case BAD_OTHER_PORT:
        st32(ip + 16, SIM_IP_PORT1);
        break;
    case BAD_UNRESOLVED:
        st32(ip + 16, SIM_IP_NOBODY);
        break;
    case BAD_IPV6:
        st16(f + 12, 0x86dd);
        return len;
    case BAD_SHORT_IPV4:
        st32(f + 14, idx); /* unique, for wire mode's pass-through match */
        return 20;
    case BAD_RX_ERROR:
        *err_bits = IDESC_RX_ERR_82576_RXE;
        return len;
    case BAD_OVERSIZE:
        memset(f + len, 0xee, 3000 - len);
        return 3000;
    case BAD_ZERO_LEN:
    case BAD_KINDS:
        return 0;
    }
    sim_ip_udp_csums(f);
    return len;
}

/* --- injecting ----------------------------------------------------------------------------- */

static bool sim_rx(struct sim *s, unsigned port, unsigned q, const uint8_t *f, uint32_t len,
                   uint32_t err_bits)
{
    struct fake_inic_rx_opts o = { .rss_hash = 0, .err_bits = err_bits };
    unsigned need = len <= PKB_DATA_BYTES ? 1 : (len + PKB_DATA_BYTES - 1) / PKB_DATA_BYTES;
    struct fake_inic_rx *nrx = &sim_queue(port, q)->nrx;

    if (fake_inic_rx_avail(nrx) < need) {
        return false; /* the ring is full: the caller holds the frame back, nothing is lost */
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
    enum sim_bad k = (enum sim_bad)(s->bad_sent % BAD_KINDS);
    uint32_t err_bits;
    uint16_t len = sim_build_bad(f, k, s->bad_sent, &err_bits);

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
    static uint8_t f[SIM_FRAME_BYTES];
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
        sim_build(f, sim_flow_of(i), sim_seq_of(i), SIM_MAGIC_STREAM);
        if (!sim_rx(s, 0, q, f, SIM_FRAME_BYTES, 0)) {
            break;
        }
        s->cursor[q] = i + 1;
        s->injected++;
        done++;
    }
    return done;
}

/* --- what the hosts receive ---------------------------------------------------------------- */

static void sim_check_stream(struct sim *s, const uint8_t *f, uint16_t len)
{
    static uint8_t want[SIM_FRAME_BYTES];
    unsigned flow = ld16(f + SIM_PAY_OFF + 2);
    uint32_t seq = ld32(f + SIM_PAY_OFF + 4);

    if (len != SIM_FRAME_BYTES || flow >= SIM_FLOWS) {
        sim_report_frame(s, ++s->bad_len, "stream frame of wrong length or flow", f, len);
        return;
    }
    if (CONFIG_MODE_ROUTER) {
        sim_build_routed(want, flow, seq);
    } else {
        sim_build(want, flow, seq, SIM_MAGIC_STREAM);
    }
    if (memcmp(f, want, SIM_FRAME_BYTES) != 0) {
        /* Say what is wrong: MACs, TTL, header checksum (valid, yet not what a full
         * recompute gives), or anything else (headers, payload). */
        const uint8_t *ip = f + SIM_IP_OFF, *want_ip = want + SIM_IP_OFF;
        bool mac = memcmp(f, want, 12) != 0;
        bool ttl = ip[8] != want_ip[8];
        bool csum = sim_csum(ip, 20, 0) != 0 || (!ttl && memcmp(ip + 10, want_ip + 10, 2) != 0);
        bool rest = memcmp(f + 12, want + 12, SIM_IP_OFF + 8 - 12) != 0 || ip[9] != want_ip[9] ||
                    memcmp(ip + 12, want_ip + 12, SIM_FRAME_BYTES - SIM_IP_OFF - 12) != 0;
        if (mac) {
            sim_report_frame(s, ++s->bad_mac, "MAC addresses not as expected", f, len);
        }
        if (ttl) {
            sim_report_frame(s, ++s->bad_ttl, "TTL not decremented by exactly 1", f, len);
        }
        if (csum) {
            sim_report_frame(s, ++s->bad_csum, "IP header checksum wrong", f, len);
        }
        if (rest) {
            sim_report_frame(s, ++s->bad_payload, "frame content changed", f, len);
        }
    }
    s->arrived++;
    uint64_t i = (uint64_t)(seq / SIM_RUN) * (SIM_FLOWS * SIM_RUN) + flow * SIM_RUN + seq % SIM_RUN;
    if (i >= s->nframes) {
        sim_report_frame(s, ++s->bad_payload, "stream frame never sent", f, len);
        return;
    }
    if (s->seen[i / 8] & (1u << (i % 8))) {
        if (++s->duplicates <= SIM_MAX_REPORTS) {
            sim_fail(s, "flow %u: seq %" PRIu32 " twice", flow, seq);
        }
        return;
    }
    s->seen[i / 8] |= (uint8_t)(1u << (i % 8));
    s->unique++;
    if (seq >= s->next_seq[flow]) {
        s->next_seq[flow] = (uint64_t)seq + 1;
    } else if (++s->reordered <= SIM_MAX_REPORTS) {
        sim_fail(s, "flow %u: seq %" PRIu32 " after %" PRIu64, flow, seq, s->next_seq[flow] - 1);
    }
}

/* sim_host_b_arp: host B sees the router ask for it and answers, as a real host would; a
 * request for SIM_IP_NOBODY goes unanswered. */
static void sim_host_b_arp(struct sim *s, const uint8_t *f, uint16_t len)
{
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    uint8_t port1_mac[6], want[SIM_FRAME_BYTES];
    sim_port_mac(1, port1_mac);
    sim_build_arp(want, 1, bcast, port1_mac, SIM_IP_PORT1, (const uint8_t[6]){ 0 },
                  SIM_IP_HOST_B);
    if (len == SIM_FRAME_BYTES && memcmp(f, want, SIM_FRAME_BYTES) == 0) {
        s->p1_arp_requests++;
        s->hostb_replies_due++;
        return;
    }
    sim_build_arp(want, 1, bcast, port1_mac, SIM_IP_PORT1, (const uint8_t[6]){ 0 },
                  SIM_IP_NOBODY);
    if (len == SIM_FRAME_BYTES && memcmp(f, want, SIM_FRAME_BYTES) == 0) {
        s->p1_arp_nobody++;
        return;
    }
    sim_report_frame(s, ++s->p1_unexpected, "port1: not an expected ARP request", f, len);
}

static bool sim_match_passthrough(struct sim *s, const uint8_t *f, uint16_t len)
{
    for (unsigned i = 0; i < s->npass; i++) {
        struct sim_passthrough *p = &s->pass[i];
        if (!p->seen && p->len == len && memcmp(p->bytes, f, len) == 0) {
            p->seen = true;
            return true;
        }
    }
    return false;
}

static void sim_on_port1(void *ctx, const uint8_t *f, uint16_t len)
{
    struct sim *s = ctx;
    uint16_t magic = len >= SIM_PAY_OFF + 2 ? ld16(f + SIM_PAY_OFF) : 0;

    if (len >= 14 && ld16(f + 12) == 0x0806) {
        sim_host_b_arp(s, f, len);
    } else if (magic == SIM_MAGIC_STREAM && ld16(f + 12) == 0x0800) {
        sim_check_stream(s, f, len);
    } else if (CONFIG_MODE_ROUTER && magic == SIM_MAGIC_PROBE) {
        s->p1_probes++;
    } else if (CONFIG_MODE_ROUTER || !sim_match_passthrough(s, f, len)) {
        sim_report_frame(s, ++s->p1_unexpected, "port1: unexpected frame", f, len);
    }
}

/* sim_check_icmp_error: an ICMP error to host A about one of its frames. Returns its type. */
static int sim_check_icmp_error(const uint8_t *f, uint16_t len)
{
    uint8_t port0_mac[6];
    sim_port_mac(0, port0_mac);
    const uint8_t *ip = f + SIM_IP_OFF;
    if (len < SIM_IP_OFF + 20 + 8 + 28 || memcmp(f, sim_mac_host_a, 6) != 0 ||
        memcmp(f + 6, port0_mac, 6) != 0 || ip[0] != 0x45 || ip[9] != 1 ||
        sim_csum(ip, 20, 0) != 0 || ld32(ip + 12) != SIM_IP_PORT0 ||
        ld32(ip + 16) != SIM_IP_HOST_A || ld16(ip + 2) + SIM_IP_OFF > len) {
        return -1;
    }
    const uint8_t *icmp = ip + 20;
    if (sim_csum(icmp, ld16(ip + 2) - 20u, 0) != 0 || icmp[1] != 0) {
        return -1;
    }
    return icmp[0];
}

static void sim_on_port0(void *ctx, const uint8_t *f, uint16_t len)
{
    struct sim *s = ctx;
    uint8_t port0_mac[6], want[SIM_FRAME_BYTES];

    sim_port_mac(0, port0_mac);
    if (len >= 14 && ld16(f + 12) == 0x0806) {
        sim_build_arp(want, 2, sim_mac_host_a, port0_mac, SIM_IP_PORT0, sim_mac_host_a,
                      SIM_IP_HOST_A);
        if (len == SIM_FRAME_BYTES && memcmp(f, want, SIM_FRAME_BYTES) == 0) {
            s->p0_arp_replies++;
            return;
        }
    } else if (len >= 14 && ld16(f + 12) == 0x0800) {
        int type = sim_check_icmp_error(f, len);
        if (type == 11) {
            s->p0_time_exceeded++;
            return;
        }
        if (type == 3) {
            s->p0_unreachable++;
            return;
        }
    }
    sim_report_frame(s, ++s->p0_unexpected, "port0: unexpected frame", f, len);
}

/* --- running the cores --------------------------------------------------------------------- */

static unsigned sim_poll(struct sim *s, unsigned core)
{
    uint64_t t0 = __rdtsc();
    unsigned n = fwd_poll_core(core);
    s->poll_tsc += __rdtsc() - t0;
    s->polls++;
    return n;
}

/* sim_wire: every port's TX queues "transmitted" (up to max descriptors each), and host B's
 * answers to the router's ARP requests put on port1's wire (non-IP: RX queue 0). */
static void sim_wire(struct sim *s, unsigned max)
{
    for (unsigned p = 0; p < SIM_PORTS; p++) {
        for (unsigned q = 0; q < s->ncores; q++) {
            fake_inic_tx_process(&sim_queue(p, q)->ntx, max);
        }
    }
    while (s->hostb_replies_due > 0) {
        uint8_t f[SIM_FRAME_BYTES], port1_mac[6];
        sim_port_mac(1, port1_mac);
        sim_build_arp(f, 2, port1_mac, sim_mac_host_b, SIM_IP_HOST_B, port1_mac, SIM_IP_PORT1);
        if (!sim_rx(s, 1, 0, f, SIM_FRAME_BYTES, 0)) {
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
               nic_port(1)->q[0].local.arp_replies_learned, 1);
}

/* sim_run: the stream. Each pass injects a pseudo-random share of up to two bursts per queue,
 * polls every core once or twice, and lets the NIC transmit, now and then only partly (a slow
 * wire keeps descriptors in flight across passes). --bench: exactly one burst per queue. */
static void sim_run(struct sim *s)
{
    for (;;) {
        unsigned moved = 0;
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
                sim_poll(s, c);
            }
        }
        unsigned max = !s->bench && sim_rand(s) % 16 == 0 ? (unsigned)(sim_rand(s) % 48)
                                                          : CONFIG_NIC_TX_DESCS;
        sim_wire(s, max);
        sim_clock_advance((uint64_t)moved * SIM_NS_PER_FRAME + 100);
        if (!more) {
            break;
        }
    }
    sim_settle(s);
}

/* --- the books ----------------------------------------------------------------------------- */

static uint64_t sim_fwd_drops(const struct fwd_stats *st)
{
    return st->no_route + st->arp_unresolved + st->dst_directed_broadcast +
           st->dst_other_port_address + st->egress_no_queue + st->egress_link_down +
           st->wire_no_peer;
}

/* Sums over every (port, core) of the counters the checks need. */
struct sim_totals {
    uint64_t wire_rx, missed, violations, rx_packets, rx_errors, rx_oversize, rx_no_buffer;
    uint64_t outcomes, forwarded[SIM_PORTS], fwd_drops, route_drops, local, no_address;
    uint64_t arp_requests_sent, icmp_sent, icmp_limited, alloc_fail, replies;
    uint64_t tx_done[SIM_PORTS], tx_forwarded[SIM_PORTS], tx_wire[SIM_PORTS];
    uint64_t tx_ring_full, tx_bad_len;
    struct route_drop_stats route;
    struct net_drop_stats local_drop;
    uint64_t no_route, directed_bcast, other_port, arp_unresolved;
};

static void sim_add_counters(uint64_t *sum, const uint64_t *v, size_t bytes)
{
    for (size_t i = 0; i < bytes / sizeof(uint64_t); i++) {
        sum[i] += v[i];
    }
}

/* sim_books: per (port, core): every frame the ring handed out has exactly one outcome; then
 * the totals. */
static void sim_books(struct sim *s, struct sim_totals *t)
{
    memset(t, 0, sizeof(*t));
    for (unsigned p = 0; p < SIM_PORTS; p++) {
        for (unsigned c = 0; c < s->ncores; c++) {
            const struct nic_queue *q = &nic_port(p)->q[c];
            const struct sim_queue *sq = sim_queue(p, c);
            const struct fwd_stats *st = fwd_stats_of(p, c);
            uint64_t out = st->forwarded + sim_fwd_drops(st) + route_frame_drops_total(&st->route) +
                           net_local_total(&q->local) + q->no_address;
            if (out != q->rx.stats.packets) {
                sim_fail(s, "port%u core %u: %" PRIu64 " frames received but %" PRIu64
                         " outcomes counted", p, c, q->rx.stats.packets, out);
            }
            t->wire_rx += sq->nrx.frames;
            t->missed += sq->nrx.missed;
            t->violations += sq->nrx.violations + sq->ntx.violations;
            t->rx_packets += q->rx.stats.packets;
            t->rx_errors += q->rx.stats.errors;
            t->rx_oversize += q->rx.stats.oversize;
            t->rx_no_buffer += q->rx.stats.no_buffer;
            t->outcomes += out;
            t->forwarded[p] += st->forwarded;
            t->fwd_drops += sim_fwd_drops(st);
            t->route_drops += route_frame_drops_total(&st->route);
            t->local += net_local_total(&q->local);
            t->no_address += q->no_address;
            t->arp_requests_sent += st->arp_requests_sent;
            t->icmp_sent += st->icmp_errors_sent;
            t->icmp_limited += st->icmp_ratelimited;
            t->alloc_fail += st->alloc_fail;
            t->replies += q->local.arp_requests_answered + q->local.icmp_echo_answered;
            t->tx_done[p] += q->tx.stats.packets;
            t->tx_forwarded[p] += q->tx.stats.forwarded;
            t->tx_wire[p] += sq->ntx.frames;
            t->tx_ring_full += q->tx.stats.ring_full;
            t->tx_bad_len += q->tx.stats.bad_len;
            t->no_route += st->no_route;
            t->directed_bcast += st->dst_directed_broadcast;
            t->other_port += st->dst_other_port_address;
            t->arp_unresolved += st->arp_unresolved;
            sim_add_counters((uint64_t *)&t->route, (const uint64_t *)&st->route,
                             sizeof(t->route));
            sim_add_counters((uint64_t *)&t->local_drop, (const uint64_t *)&q->local.drop,
                             sizeof(t->local_drop));
        }
    }
}

/* sim_check_malformed: each kind ended under its own counter (router) or went through (wire). */
static void sim_check_malformed(struct sim *s, const struct sim_totals *t)
{
    const unsigned *n = s->bad_count;
    sim_expect(s, "ring errors (rx_error + oversize + zero_len)", t->rx_errors,
               n[BAD_RX_ERROR] + n[BAD_OVERSIZE] + n[BAD_ZERO_LEN]);
    sim_expect(s, "ring oversize", t->rx_oversize, n[BAD_OVERSIZE]);
    if (!CONFIG_MODE_ROUTER) {
        for (unsigned i = 0; i < s->npass; i++) {
            if (!s->pass[i].seen) {
                sim_report_frame(s, i + 1, "wire: malformed frame not passed through",
                                 s->pass[i].bytes, s->pass[i].len);
            }
        }
        return;
    }
    sim_expect(s, "route ip_bad_checksum", t->route.ip_bad_checksum, n[BAD_IP_CSUM]);
    sim_expect(s, "route ttl_expired", t->route.ttl_expired, n[BAD_TTL1]);
    sim_expect(s, "route ip_dst_martian", t->route.ip_dst_martian, n[BAD_DST_MARTIAN]);
    sim_expect(s, "route ip_bad_version", t->route.ip_bad_version, n[BAD_IP_VERSION]);
    sim_expect(s, "route eth_dst_group", t->route.eth_dst_group, n[BAD_ETH_MCAST]);
    sim_expect(s, "route frame drops (all reasons)", t->route_drops,
               n[BAD_IP_CSUM] + n[BAD_TTL1] + n[BAD_DST_MARTIAN] + n[BAD_IP_VERSION] +
                   n[BAD_ETH_MCAST]);
    sim_expect(s, "fwd no_route", t->no_route, n[BAD_NO_ROUTE]);
    sim_expect(s, "fwd dst_directed_broadcast", t->directed_bcast, n[BAD_DIRECTED_BCAST]);
    sim_expect(s, "fwd dst_other_port_address", t->other_port, n[BAD_OTHER_PORT]);
    sim_expect(s, "fwd arp_unresolved (the setup probe + unresolved)", t->arp_unresolved,
               1 + n[BAD_UNRESOLVED]);
    sim_expect(s, "fwd drops (all reasons)", t->fwd_drops,
               n[BAD_NO_ROUTE] + n[BAD_DIRECTED_BCAST] + n[BAD_OTHER_PORT] + n[BAD_UNRESOLVED] +
                   1);
    sim_expect(s, "ARP requests for 198.19.0.77 (at least one)",
               n[BAD_UNRESOLVED] && s->p1_arp_nobody == 0, 0);
    sim_expect(s, "local eth_unsupported_type", t->local_drop.eth_unsupported_type, n[BAD_IPV6]);
    sim_expect(s, "local ip_truncated", t->local_drop.ip_truncated, n[BAD_SHORT_IPV4]);
    /* local: the 2 ARP frames of the setup, plus the two kinds above */
    sim_expect(s, "local outcomes (all)", t->local, 2 + n[BAD_IPV6] + n[BAD_SHORT_IPV4]);
    sim_expect(s, "ICMP errors sent + rate limited", t->icmp_sent + t->icmp_limited,
               n[BAD_TTL1] + n[BAD_NO_ROUTE]);
    sim_expect(s, "ICMP errors host A received", s->p0_time_exceeded + s->p0_unreachable,
               t->icmp_sent);
}

/* sim_check_books: conservation from the wire in to the wire out. */
static void sim_check_books(struct sim *s, const struct sim_totals *t)
{
    uint64_t setup_frames = CONFIG_MODE_ROUTER ? 4 : 0; /* A's ARP, 2 probes, B's ARP reply */
    uint64_t probes = CONFIG_MODE_ROUTER ? 1 : 0;       /* the probe forwarded after ARP */

    sim_expect(s, "frames put on the wires", t->wire_rx, s->injected + s->bad_sent + setup_frames);
    sim_expect(s, "fake NIC missed frames", t->missed, 0);
    sim_expect(s, "fake NIC descriptor violations", t->violations, 0);
    sim_expect(s, "frames received + ring errors", t->rx_packets + t->rx_errors, t->wire_rx);
    sim_expect(s, "frames received = outcomes", t->outcomes, t->rx_packets);
    sim_expect(s, "forwarded (port0 ingress)", t->forwarded[0],
               s->nframes + probes + (CONFIG_MODE_ROUTER ? 0 : s->npass));
    sim_expect(s, "forwarded (port1 ingress)", t->forwarded[1], 0);
    sim_expect(s, "egress port1 forwarded TX completions = forwarded", t->tx_forwarded[1],
               t->forwarded[0]);
    sim_expect(s, "egress port0 forwarded TX completions = forwarded", t->tx_forwarded[0],
               t->forwarded[1]);
    sim_expect(s, "egress port1 TX completions = forwarded + ARP requests", t->tx_done[1],
               t->forwarded[0] + t->arp_requests_sent);
    sim_expect(s, "egress port0 TX completions = replies + ICMP errors", t->tx_done[0],
               t->forwarded[1] + t->replies + t->icmp_sent);
    for (unsigned p = 0; p < SIM_PORTS; p++) {
        sim_expect(s, p ? "port1 frames on the wire = completions"
                        : "port0 frames on the wire = completions",
                   t->tx_wire[p], t->tx_done[p]);
    }
    sim_expect(s, "TX ring_full drops", t->tx_ring_full, 0);
    sim_expect(s, "TX bad_len drops", t->tx_bad_len, 0);
    sim_expect(s, "RX refills short of buffers", t->rx_no_buffer, 0);
    sim_expect(s, "fwd alloc_fail", t->alloc_fail, 0);
    sim_expect(s, "ARP requests sent by the router = seen on port1", t->arp_requests_sent,
               s->p1_arp_requests + s->p1_arp_nobody);
    sim_expect(s, "ARP requests for host B", s->p1_arp_requests, probes);
}

/* sim_check_stream_totals: every flow complete, nothing else on port1 or back on port0. */
static void sim_check_stream_totals(struct sim *s)
{
    uint64_t sent = 0;
    for (unsigned f = 0; f < SIM_FLOWS; f++) {
        sent += sim_flow_frames(s->nframes, f);
    }
    sim_expect(s, "stream frames sent (generator self-check)", sent, s->nframes);
    s->lost = s->nframes - s->unique;
    sim_expect(s, "stream frames arrived on port1", s->arrived, s->nframes);
    sim_expect(s, "stream frames lost", s->lost, 0);
    sim_expect(s, "stream frames reordered", s->reordered, 0);
    sim_expect(s, "stream frames duplicated", s->duplicates, 0);
    sim_expect(s, "stream frames with a bad length", s->bad_len, 0);
    sim_expect(s, "stream frames with wrong MACs", s->bad_mac, 0);
    sim_expect(s, "stream frames with a wrong TTL", s->bad_ttl, 0);
    sim_expect(s, "stream frames with a bad IP checksum", s->bad_csum, 0);
    sim_expect(s, "stream frames with changed content", s->bad_payload, 0);
    sim_expect(s, "unexpected frames on port1", s->p1_unexpected, 0);
    sim_expect(s, "unexpected frames on port0", s->p0_unexpected, 0);
}

/* sim_check_pools: with traffic stopped, every buffer is in its pool or posted in an RX ring
 * (nothing in flight on TX); then, the rings released, every pool is full. */
static void sim_check_pools(struct sim *s)
{
    for (unsigned c = 0; c < s->ncores; c++) {
        struct pkb_pool *pool = nic_pool(c);
        uint64_t held = 0;
        for (unsigned p = 0; p < SIM_PORTS; p++) {
            const struct nic_queue *q = &nic_port(p)->q[c];
            for (unsigned i = 0; i < q->rx.size; i++) {
                held += q->rx.sw[i] != NULL;
            }
            if (iring_tx_in_flight(&q->tx) != 0) {
                sim_fail(s, "port%u core %u: %u TX buffers still in flight", p, c,
                         iring_tx_in_flight(&q->tx));
            }
        }
        if (pool->nfree + held != pool->size) {
            sim_fail(s, "core %u: pool %" PRIu32 " free + %" PRIu64 " in RX rings != %" PRIu32
                     " (leak)", c, pool->nfree, held, pool->size);
        }
        sim_expect(s, "pool foreign_free", pool->foreign_free, 0);
        sim_expect(s, "pool double_free", pool->double_free, 0);
        sim_expect(s, "pool alloc_fail", pool->alloc_fail, 0);
        for (unsigned p = 0; p < SIM_PORTS; p++) {
            iring_rx_release(&nic_port(p)->q[c].rx);
        }
        if (pool->nfree != pool->size) {
            sim_fail(s, "core %u: pool %" PRIu32 " of %" PRIu32 " after the rings let go", c,
                     pool->nfree, pool->size);
        }
    }
}

/* --- main ---------------------------------------------------------------------------------- */

static void sim_usage(FILE *to)
{
    fprintf(to,
            "usage: fwd_sim_%s [--frames N] [--cores N] [--bad N] [--seed N] [--bench] "
            "[--quiet]\n"
            "  --frames N  stream frames (default 10000000)\n"
            "  --cores N   cores, each with a queue pair per port (default 4, max %d)\n"
            "  --bad N     malformed frames of each of the %d kinds (default 20; 0 with --bench)\n"
            "  --seed N    the pseudo-random burst sizes (default 1)\n"
            "  --bench     steady state: one full burst per queue per pass, nothing malformed\n"
            "  --quiet     no firmware console lines\n",
            SIM_MODE, WS_MAX_CPUS, BAD_KINDS);
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
    s->bad_planned = s->bad_per_kind * BAD_KINDS;
    return true;
}

/* sim_bring_up: the firmware's boot order (kernel/main.c): pools, ports, forwarding. */
static bool sim_bring_up(struct sim *s)
{
    sim_platform_init(s->quiet);
    if (nic_pools_init(s->ncores) != 0 || nic_probe_all(s->ncores) != SIM_PORTS ||
        fwd_init(s->ncores) != 0) {
        sim_fail(s, "bring-up failed (see the fw| lines)");
        return false;
    }
    if (CONFIG_MODE_ROUTER &&
        (!nic_port(0)->has_address || nic_port(0)->ifc.ip != SIM_IP_PORT0 ||
         !nic_port(1)->has_address || nic_port(1)->ifc.ip != SIM_IP_PORT1)) {
        sim_fail(s, "config/default.conf's port addresses changed: update tests/hostsim");
        return false;
    }
    for (unsigned q = 0; q < s->ncores; q++) {
        sim_queue(0, q)->ntx.on_frame = sim_on_port0;
        sim_queue(0, q)->ntx.ctx = s;
        sim_queue(1, q)->ntx.on_frame = sim_on_port1;
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
    if (CONFIG_MODE_ROUTER) {
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
        for (unsigned k = 0; k < BAD_KINDS; k++) {
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
    printf("hostsim %s: %" PRIu64 " frames, %" PRIu64 " lost, %" PRIu64 " reordered, %" PRIu64
           " duplicated, %" PRIu64 " corrupt, %s, %u core%s, %s, %s; %.1f TSC cycles/packet in "
           "fwd_poll_core\n",
           SIM_MODE, s->arrived, s->lost, s->reordered, s->duplicates,
           s->bad_len + s->bad_mac + s->bad_ttl + s->bad_csum + s->bad_payload, bad, s->ncores,
           s->ncores == 1 ? "" : "s",
           books_ok ? "counters conserve" : "COUNTERS DO NOT ADD UP",
           pools_ok ? "pools full" : "POOLS NOT FULL", (double)tsc / (double)fwd);
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
