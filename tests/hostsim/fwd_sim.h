/*
 * tests/hostsim/fwd_sim.h: what the parts of fwd_sim share: the traffic's shape and addresses,
 * the malformed-frame kinds, the run's state, and each part's entry points. fwd_sim.c runs the
 * cores and the wire, sim_frames.c is the hosts on either side (frames sent, frames checked),
 * sim_frames6.c the same hosts speaking IPv6, sim_books.c the counter and buffer checks at the
 * end.
 */
#ifndef WS_HOSTSIM_FWD_SIM_H
#define WS_HOSTSIM_FWD_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "net/local.h"
#include "net/local6.h"
#include "net/route.h"
#include "net/route6.h"
#include "param.h"
#include "tests/hostsim/sim.h"

#if defined(SIM_VLAN)
#define SIM_MODE "router_vlan"
#elif defined(SIM_IPV6)
#define SIM_MODE "router6"
#else
#define SIM_MODE (CONFIG_MODE_ROUTER ? "router" : "wire")
#endif
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
#define SIM_MAX_REPORTS 10  /* per kind of per-frame failure; the rest are only counted */
#define SIM_DRAIN_ROUNDS 10000

/* SIM_VLAN (the router_vlan build): the same addresses, on VLAN sub-interfaces instead of the
 * ports (config/default.conf less the port addresses, plus `vlan = port0.10 198.18.0.1/24` and
 * `vlan = port1.20 198.19.0.1/24`): the wire tags what the hosts send and checks and removes
 * the tag of what they receive, so the hosts and every check stay as they are. */
#ifdef SIM_VLAN
#define SIM_VID(port) ((port) == 0 ? 10 : 20)
#define SIM_VLAN_MODE " (VLAN 10 in, VLAN 20 out)"
#else
#define SIM_VLAN_MODE ""
#endif

/* SIM_IPV6 (the router6 build, config/default.conf as it is): the stream, the setup and the
 * malformed frames are IPv6 (sim_frames6.c): host A 2001:db8:18::2 on port0 sends to host B
 * 2001:db8:19::2 on port1 and the network behind it, and the next hops are resolved by
 * neighbour discovery instead of ARP. Same flows, sequence numbers and payload; the frame is
 * 80 bytes (Ethernet, IPv6, UDP, the payload), IPv6's shortest with it. */
#ifdef SIM_VLAN
#define SIM_VLAN_STREAM 1
#else
#define SIM_VLAN_STREAM 0
#endif
#ifdef SIM_IPV6
#define SIM_IPV6_STREAM 1
#define SIM_STREAM_BYTES SIM6_FRAME_BYTES
#define SIM_NS_PER_FRAME 83 /* 80 bytes + FCS + preamble + gap = 104 bytes: 83.2 ns at 10G */
#define SIM_TTL_NAME "hop limit"
#else
#define SIM_IPV6_STREAM 0
#define SIM_STREAM_BYTES SIM_FRAME_BYTES
#define SIM_NS_PER_FRAME 67 /* 64 bytes + preamble + gap = 84 bytes: 67.2 ns at 10 Gbit/s */
#define SIM_TTL_NAME "TTL"
#endif
#define SIM_SETUP_BYTES 128 /* room for any setup frame: ARP (60), ND (86), probes */

/* The addresses of config/default.conf and the hosts behind the ports. */
#define SIM_IP_PORT0 0xc6120001u  /* 198.18.0.1 */
#define SIM_IP_PORT1 0xc6130001u  /* 198.19.0.1 */
#define SIM_IP_HOST_A 0xc6120002u /* 198.18.0.2, on port0: the sender */
#define SIM_IP_HOST_B 0xc6130002u /* 198.19.0.2, on port1: the next hop */
#define SIM_NET_VIA_B 0xc6336400u /* 198.51.100.0/24 via 198.19.0.2 (its lower /25 only) */
#define SIM_IP_NOBODY 0xc613004du /* 198.19.0.77, on port1's subnet: never answers ARP */
extern const uint8_t sim_mac_host_a[6];
extern const uint8_t sim_mac_host_b[6];

/* IPv6: 2001:db8:NET::HOST (sim6_addr), config/default.conf's prefixes and route6 lines. */
#define SIM6_NET_PORT0 0x18    /* 2001:db8:18::/64 on port0: the router ::1, host A ::2 */
#define SIM6_NET_PORT1 0x19    /* 2001:db8:19::/64 on port1: the router ::1, host B ::2 */
#define SIM6_NET_VIA_B 0x100   /* 2001:db8:100::/48 via 2001:db8:19::2 (its lower /49 only) */
#define SIM6_NET_NO_ROUTE 0x200 /* 2001:db8:200::/48: no route covers it */
#define SIM6_HOST_ROUTER 1
#define SIM6_HOST 2            /* host A on port0's prefix, host B on port1's */
#define SIM6_HOST_NOBODY 0x77  /* 2001:db8:19::77: never answers a solicitation */
#define SIM6_IP_OFF 14
#define SIM6_UDP_OFF 54
#define SIM6_PAY_OFF 62
#define SIM6_FRAME_BYTES (SIM6_PAY_OFF + SIM_PAY_BYTES) /* 80 */
#define SIM6_HOP_LIMIT 64
#define SIM6_EXT_CHAIN_HEADERS 9 /* one more than net/inet6.h's INET6_MAX_EXT_HEADERS */

/* Malformed frames: every one is a counted drop (router), or, in wire mode, those the wire does
 * not look into (all but the RX-ring-level ones) must come out of port1 unchanged. One list for
 * every build; each sends its own share in turn (fwd_sim.c sim_kinds): the IPv4 kinds, or with
 * SIM_IPV6 the IPv6 ones, and the ring-level ones in both. */
enum sim_bad {
    BAD_IP_CSUM,        /* route: ip_bad_checksum */
    BAD_TTL1,           /* route: ttl_expired (+ ICMP time exceeded, rate limited) */
    BAD_DST_MARTIAN,    /* route: ip_dst_martian (127.0.0.1) */
    BAD_NO_ROUTE,       /* fwd: no_route (+ ICMP net unreachable, rate limited) */
    BAD_IP_VERSION,     /* route: ip_bad_version */
    BAD_ETH_MCAST,      /* route: eth_dst_group */
    BAD_DIRECTED_BCAST, /* fwd: dst_directed_broadcast (198.19.0.255) */
    BAD_OTHER_PORT,     /* port1's address, arriving on port0: local (router.answer_any_address)
                         * or fwd's dst_other_port_address */
    BAD_UNRESOLVED,     /* fwd: arp_unresolved (+ ARP request for 198.19.0.77, rate limited) */
    BAD_IPV6,           /* local: eth_unsupported_type */
    BAD_SHORT_IPV4,     /* local: ip_truncated (20 bytes) */
    /* the IPv6 stream's (SIM_IPV6) */
    BAD6_TRUNCATED,      /* local6: ip6_truncated (30 bytes after the Ethernet header) */
    BAD6_VERSION,        /* local6: ip6_bad_version (4 with IPv6's EtherType) */
    BAD6_PAYLOAD_LENGTH, /* local6: ip6_bad_payload_length (one byte past the frame) */
    BAD6_HOP_LIMIT1,     /* route6: hop_limit_expired (+ ICMPv6 time exceeded, rate limited) */
    BAD6_SRC_LINK_LOCAL, /* route6: ip6_src_link_local (host A's fe80:: address) */
    BAD6_EXT_CHAIN,      /* route6: ip6_ext_too_long (9 Destination Options headers) */
    BAD6_NO_ROUTE,       /* fwd: no_route (+ ICMPv6 unreachable, rate limited) */
    BAD6_UNRESOLVED,     /* fwd: nd_unresolved (+ solicitation for 2001:db8:19::77, limited) */
    BAD6_ETH_MCAST,      /* local6: eth_dst_multicast (01:00:5e:..., not 33:33:...) */
    BAD6_OTHER_PORT,     /* port1's 2001:db8:19::1 from port0: local6 ip6_proto_unsupported
                          * (router.answer_any_address) or fwd's dst_other_port_address */
    /* every build's */
    BAD_RX_ERROR,       /* ring: errors (RXE in the write-back) */
    BAD_OVERSIZE,       /* ring: errors + oversize (3000 bytes over two descriptors) */
    BAD_ZERO_LEN,       /* ring: errors (length 0) */
    BAD_KINDS
};

static inline bool sim_bad_is_ring_level(enum sim_bad k)
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
    bool sw_csum; /* no IPCS/IPE in write-backs: the router's software header check is used */
    bool nic_vlan; /* router_vlan: the fake NICs strip and insert the tags (vlan.offload) */
    uint64_t rng;

    /* generator: stream frame i, of flow sim_flow_of(i), sequence sim_seq_of(i) */
    uint64_t cursor[WS_MAX_CPUS]; /* next stream index for queue q */
    uint64_t injected;
    uint64_t rx_full_waits; /* frames held back for want of an RX descriptor (a NIC: drops) */
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
    uint64_t p1_ns_requests, p1_ns_nobody; /* SIM_IPV6: the router's solicitations */
    unsigned hostb_replies_due; /* ARP replies (or, SIM_IPV6, advertisements) B owes */

    /* port0's sender side: what comes back to host A (ICMPv6 errors counted as ICMP's) */
    uint64_t p0_arp_replies, p0_na_replies, p0_time_exceeded, p0_unreachable, p0_unexpected;
    uint64_t vlan_bad_tag; /* SIM_VLAN: a frame out of a port without its VLAN's tag */

    /* fwd_poll_core timing */
    uint64_t polls, poll_tsc, rdtsc_cost;

    unsigned failures;
};

/* Sums over every (port, core) of the counters the checks need. */
struct sim_totals {
    uint64_t wire_rx, missed, violations, rx_packets, rx_errors, rx_oversize, rx_no_buffer;
    uint64_t outcomes, forwarded[SIM_PORTS], fwd_drops, route_drops, local, local6, no_address;
    uint64_t route6_drops, route6_suppressed, no_address6, nd_relay_full;
    uint64_t arp_requests_sent, ns_sent, icmp_sent, icmp_limited, alloc_fail, replies;
    uint64_t tx_done[SIM_PORTS], tx_forwarded[SIM_PORTS], tx_wire[SIM_PORTS];
    uint64_t tx_ring_full, tx_bad_len;
    struct route_drop_stats route;
    struct route6_drop_stats route6;
    struct net_drop_stats local_drop;
    struct net_local6_stats local6_stats; /* every field summed: outcomes and drops */
    uint64_t no_route, directed_bcast, other_port, arp_unresolved, nd_unresolved;
};

/* --- byte order (the frames are built and checked without net/inet.h, which is under test) -- */

static inline uint16_t sim_ld16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t sim_ld32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void sim_st16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void sim_st32(uint8_t *p, uint32_t v)
{
    sim_st16(p, (uint16_t)(v >> 16));
    sim_st16(p + 2, (uint16_t)v);
}

/* --- sim_frames.c: failure reports, frames, the hosts ---------------------------------------- */

/* sim_fail: print one violation ("hostsim MODE: FAIL: ...") and count it. */
void sim_fail(struct sim *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* sim_expect: one counter check: got must equal want. */
void sim_expect(struct sim *s, const char *what, uint64_t got, uint64_t want);
/* sim_check_vlan_path: every VLAN tag was moved by the NICs (nic_vlan) or none was. */
void sim_check_vlan_path(struct sim *s);
/* sim_report_frame: a per-frame failure, printed with its bytes while count <= SIM_MAX_REPORTS. */
void sim_report_frame(struct sim *s, uint64_t count, const char *what, const uint8_t *f,
                      uint16_t len);
/* sim_csum: the Internet checksum (RFC 1071) of len bytes, starting from sum. */
uint16_t sim_csum(const uint8_t *p, size_t len, uint32_t sum);
/* The stream: which flow and sequence stream frame i has, how many of the first n frames flow
 * f sends, and the queue RSS would pick for a flow. */
unsigned sim_flow_of(uint64_t i);
uint32_t sim_seq_of(uint64_t i);
uint64_t sim_flow_frames(uint64_t n, unsigned f);
unsigned sim_flow_queue(const struct sim *s, unsigned flow);
/* sim_build: the 60-byte UDP frame host A sends for (flow, seq), tagged with magic. */
void sim_build(uint8_t *f, unsigned flow, uint32_t seq, uint16_t magic);
/* sim_fill_payload: the SIM_PAY_BYTES of payload every stream frame carries at pay. */
void sim_fill_payload(uint8_t *pay, unsigned flow, uint32_t seq, uint16_t magic);
/* sim_stream_arrival: port1's books for stream frame (flow, seq), whatever its family: once,
 * in flow order, one that was sent. f and len for the reports. */
void sim_stream_arrival(struct sim *s, unsigned flow, uint32_t seq, const uint8_t *f,
                        uint16_t len);
/* sim_build_arp: a 60-byte Ethernet/IPv4 ARP frame (op 1 request, 2 reply). */
void sim_build_arp(uint8_t *f, uint16_t op, const uint8_t *eth_dst, const uint8_t *sha,
                   uint32_t spa, const uint8_t *tha, uint32_t tpa);
/* sim_build_bad: malformed frame number idx of kind k (an IPv4 or ring-level one) into f (room
 * for 3000 bytes); returns its length and sets the RX write-back error bits to give it. */
uint16_t sim_build_bad(uint8_t *f, enum sim_bad k, unsigned idx, uint32_t *err_bits);
/* sim_spoil_for_ring: frame f of len bytes made ring-level kind k (RX error, oversize, zero
 * length); returns the length to inject, *err_bits the write-back error bits. */
uint16_t sim_spoil_for_ring(uint8_t *f, uint16_t len, enum sim_bad k, uint32_t *err_bits);
/* The hosts' receivers, as fake_inic_tx on_frame callbacks (ctx: the struct sim). */
void sim_on_port0(void *ctx, const uint8_t *f, uint16_t len);
void sim_on_port1(void *ctx, const uint8_t *f, uint16_t len);

/* --- sim_frames6.c: the same hosts speaking IPv6 (SIM_IPV6) --------------------------------- */

/* sim6_addr: 2001:db8:net::host into a. */
void sim6_addr(uint8_t a[16], uint16_t net, uint16_t host);
/* sim6_build: the 80-byte IPv6 UDP frame host A sends for (flow, seq), tagged with magic;
 * returns its length. */
uint16_t sim6_build(uint8_t *f, unsigned flow, uint32_t seq, uint16_t magic);
/* sim6_build_ns_from_a: host A's solicitation for its gateway (port0's 2001:db8:18::1). */
uint16_t sim6_build_ns_from_a(uint8_t *f);
/* sim6_build_na_from_b: host B's advertisement answering the router's solicitation for it. */
uint16_t sim6_build_na_from_b(uint8_t *f);
/* sim6_build_bad: malformed frame number idx of kind k (a BAD6_ or ring-level kind) into f
 * (room for 3000 bytes); returns its length, *err_bits the RX write-back error bits. */
uint16_t sim6_build_bad(uint8_t *f, enum sim_bad k, unsigned idx, uint32_t *err_bits);
/* The hosts' receivers, as fake_inic_tx on_frame callbacks (ctx: the struct sim). */
void sim6_on_port0(void *ctx, const uint8_t *f, uint16_t len);
void sim6_on_port1(void *ctx, const uint8_t *f, uint16_t len);

/* --- sim_books.c: the checks once traffic has stopped ----------------------------------------- */

/* sim_check_stream_totals: every stream frame arrived once, in order, intact; nothing else. */
void sim_check_stream_totals(struct sim *s);
/* sim_books: sum the counters (checking per (port, core) that received = outcomes). */
void sim_books(struct sim *s, struct sim_totals *t);
/* sim_check_books: conservation from the wires in to the wires out. */
void sim_check_books(struct sim *s, const struct sim_totals *t);
/* sim_check_malformed: each malformed kind under its own counter (router) or passed (wire). */
void sim_check_malformed(struct sim *s, const struct sim_totals *t);
/* sim_check_pools: no buffer in flight, none leaked; releases the RX rings. */
void sim_check_pools(struct sim *s);

#endif
