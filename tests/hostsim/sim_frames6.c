/*
 * tests/hostsim/sim_frames6.c: the hosts of sim_frames.c speaking IPv6 (the router6 build,
 * SIM_IPV6). Host A (2001:db8:18::2, behind port0) sends the stream, the malformed frames and,
 * in the setup, a neighbour solicitation for its gateway; host B (2001:db8:19::2, behind port1)
 * answers the router's solicitations for it and checks every frame the appliance sends it.
 *
 * Written apart from net/inet6.c and net/local6.c, which it checks: the IPv6 header and the
 * upper-layer checksum's pseudo-header (RFC 8200 sections 3 and 8.1), Destination Options
 * (4.6), solicitations and advertisements (RFC 4861 4.3, 4.4, 4.6.1), link-local and
 * solicited-node addresses (RFC 4291 appendix A, 2.7.1) and their MACs (RFC 2464 section 7),
 * and the errors host A gets back (RFC 4443).
 */
#include <string.h>

#include "tests/hostsim/fwd_sim.h"

#define SIM6_ETHERTYPE 0x86dd
#define SIM6_HDR_BYTES 40
#define SIM6_NH_UDP 17
#define SIM6_NH_ICMP 58
#define SIM6_NH_DEST_OPTS 60
#define SIM6_ICMP_HDR_BYTES 8
#define SIM6_ICMP_DEST_UNREACH 1
#define SIM6_ICMP_TIME_EXCEEDED 3
#define SIM6_ICMP_NS 135
#define SIM6_ICMP_NA 136
#define SIM6_ND_HOP_LIMIT 255 /* RFC 4861 7.1: proves the sender is on the link */
#define SIM6_NA_ROUTER 0x80
#define SIM6_NA_SOLICITED 0x40
#define SIM6_NA_OVERRIDE 0x20
#define SIM6_OPT_SOURCE_LLADDR 1
#define SIM6_OPT_TARGET_LLADDR 2
#define SIM6_ND_BYTES 32 /* ICMPv6 header, target, one 8-byte link-layer address option */
#define SIM6_ND_FRAME_BYTES (SIM6_IP_OFF + SIM6_HDR_BYTES + SIM6_ND_BYTES) /* 86 */
#define SIM6_EXT_BYTES 8 /* the smallest extension header */

/* --- addresses ------------------------------------------------------------------------------- */

void sim6_addr(uint8_t a[16], uint16_t net, uint16_t host)
{
    memset(a, 0, 16);
    sim_st32(a, 0x20010db8u);
    sim_st16(a + 4, net);
    sim_st16(a + 14, host);
}

/* sim6_link_local: fe80::/64 with mac's modified EUI-64 interface identifier (RFC 4291
 * appendix A): ff:fe in the middle, the universal/local bit inverted. */
static void sim6_link_local(uint8_t a[16], const uint8_t mac[6])
{
    memset(a, 0, 16);
    a[0] = 0xfe;
    a[1] = 0x80;
    a[8] = mac[0] ^ 0x02;
    memcpy(a + 9, mac + 1, 2);
    a[11] = 0xff;
    a[12] = 0xfe;
    memcpy(a + 13, mac + 3, 3);
}

/* sim6_solicited_node: the group a solicitation for a goes to, ff02::1:ff and a's last three
 * bytes (RFC 4291 2.7.1), and that group's MAC, 33:33 and its last four (RFC 2464 7). */
static void sim6_solicited_node(uint8_t group[16], uint8_t mac[6], const uint8_t *a)
{
    memset(group, 0, 16);
    group[0] = 0xff;
    group[1] = 0x02;
    group[11] = 0x01;
    group[12] = 0xff;
    memcpy(group + 13, a + 13, 3);
    mac[0] = mac[1] = 0x33;
    memcpy(mac + 2, group + 12, 4);
}

/* --- frame pieces ---------------------------------------------------------------------------- */

/* sim6_headers: Ethernet, then an IPv6 header (traffic class and flow label 0) into f.
 * Returns where the payload goes. */
static uint8_t *sim6_headers(uint8_t *f, const uint8_t *eth_dst, const uint8_t *eth_src,
                             uint16_t payload_len, uint8_t next, uint8_t hop_limit,
                             const uint8_t *src, const uint8_t *dst)
{
    memcpy(f, eth_dst, 6);
    memcpy(f + 6, eth_src, 6);
    sim_st16(f + 12, SIM6_ETHERTYPE);
    uint8_t *ip = f + SIM6_IP_OFF;
    sim_st32(ip, 6u << 28);
    sim_st16(ip + 4, payload_len);
    ip[6] = next;
    ip[7] = hop_limit;
    memcpy(ip + 8, src, 16);
    memcpy(ip + 24, dst, 16);
    return ip + SIM6_HDR_BYTES;
}

/* sim6_upper_csum: the checksum of upper-layer message msg (len bytes) of the IPv6 header at
 * ip, over RFC 8200 8.1's pseudo-header (the addresses, the length, next = the protocol):
 * with msg's checksum field zero, the value to put there; with it filled in, 0 if it holds. */
static uint16_t sim6_upper_csum(const uint8_t *ip, const uint8_t *msg, uint32_t len,
                                uint8_t next)
{
    uint32_t pseudo = (len >> 16) + (len & 0xffff) + next;
    for (unsigned i = 8; i < SIM6_HDR_BYTES; i += 2) {
        pseudo += sim_ld16(ip + i);
    }
    return sim_csum(msg, len, pseudo);
}

/* sim6_set_udp_csum: the checksum of the UDP datagram at udp (IPv6 header at ip). IPv6 makes
 * it mandatory, so a computed 0 goes out as 0xffff (RFC 8200 8.1). */
static void sim6_set_udp_csum(const uint8_t *ip, uint8_t *udp)
{
    uint16_t len = sim_ld16(udp + 4);
    sim_st16(udp + 6, 0);
    uint16_t c = sim6_upper_csum(ip, udp, len, SIM6_NH_UDP);
    sim_st16(udp + 6, c == 0 ? 0xffff : c);
}

/* --- the stream ------------------------------------------------------------------------------ */

/* sim6_flow_dst: as sim_frames.c's: one flow in 8 to host B itself (port1's prefix), the rest
 * to the network behind it (the route6 via B); both leave through port1 towards B's MAC. */
static void sim6_flow_dst(uint8_t a[16], unsigned flow)
{
    if (flow % 8 == 0) {
        sim6_addr(a, SIM6_NET_PORT1, SIM6_HOST);
    } else {
        sim6_addr(a, SIM6_NET_VIA_B, (uint16_t)(1 + flow % 126));
    }
}

uint16_t sim6_build(uint8_t *f, unsigned flow, uint32_t seq, uint16_t magic)
{
    const uint16_t udp_len = SIM6_FRAME_BYTES - SIM6_UDP_OFF;
    uint8_t port0_mac[6], src[16], dst[16];
    sim_port_mac(0, port0_mac);
    sim6_addr(src, SIM6_NET_PORT0, SIM6_HOST);
    sim6_flow_dst(dst, flow);
    uint8_t *udp = sim6_headers(f, port0_mac, sim_mac_host_a, udp_len, SIM6_NH_UDP,
                                SIM6_HOP_LIMIT, src, dst);
    sim_st16(udp, (uint16_t)(1024 + flow));
    sim_st16(udp + 2, 5001);
    sim_st16(udp + 4, udp_len);
    sim_fill_payload(udp + 8, flow, seq, magic);
    sim6_set_udp_csum(f + SIM6_IP_OFF, udp);
    return SIM6_FRAME_BYTES;
}

/* sim6_build_routed: what the router must make of sim6_build(flow, seq): towards B's MAC from
 * port1's, hop limit one less, and nothing else (IPv6 has no header checksum, and the hop
 * limit is not in UDP's pseudo-header). */
static void sim6_build_routed(uint8_t *f, unsigned flow, uint32_t seq)
{
    sim6_build(f, flow, seq, SIM_MAGIC_STREAM);
    memcpy(f, sim_mac_host_b, 6);
    sim_port_mac(1, f + 6);
    f[SIM6_IP_OFF + 7]--;
}

/* --- neighbour discovery --------------------------------------------------------------------- */

/* sim6_build_nd: a solicitation or an advertisement (RFC 4861 4.3, 4.4) with hop limit 255,
 * flags in the first byte of the reserved word, and one link-layer address option of type
 * opt_type naming the sender's MAC (eth_src). Returns its length. */
static uint16_t sim6_build_nd(uint8_t *f, const uint8_t *eth_dst, const uint8_t *eth_src,
                              const uint8_t *src, const uint8_t *dst, uint8_t type,
                              uint8_t flags, const uint8_t *target, uint8_t opt_type)
{
    uint8_t *msg = sim6_headers(f, eth_dst, eth_src, SIM6_ND_BYTES, SIM6_NH_ICMP,
                                SIM6_ND_HOP_LIMIT, src, dst);
    memset(msg, 0, SIM6_ND_BYTES);
    msg[0] = type;
    msg[4] = flags;
    memcpy(msg + SIM6_ICMP_HDR_BYTES, target, 16);
    uint8_t *opt = msg + SIM6_ICMP_HDR_BYTES + 16;
    opt[0] = opt_type;
    opt[1] = 1; /* the option's length, in units of 8 bytes */
    memcpy(opt + 2, eth_src, 6);
    sim_st16(msg + 2, sim6_upper_csum(f + SIM6_IP_OFF, msg, SIM6_ND_BYTES, SIM6_NH_ICMP));
    return SIM6_ND_FRAME_BYTES;
}

uint16_t sim6_build_ns_from_a(uint8_t *f)
{
    uint8_t gateway[16], a[16], group[16], group_mac[6];
    sim6_addr(gateway, SIM6_NET_PORT0, SIM6_HOST_ROUTER);
    sim6_addr(a, SIM6_NET_PORT0, SIM6_HOST);
    sim6_solicited_node(group, group_mac, gateway);
    return sim6_build_nd(f, group_mac, sim_mac_host_a, a, group, SIM6_ICMP_NS, 0, gateway,
                         SIM6_OPT_SOURCE_LLADDR);
}

/* sim6_build_na_to_a: the router's answer to sim6_build_ns_from_a: to A, from the address
 * asked for, a router's (R), solicited (S), overriding (O). */
static uint16_t sim6_build_na_to_a(uint8_t *f)
{
    uint8_t gateway[16], a[16], port0_mac[6];
    sim6_addr(gateway, SIM6_NET_PORT0, SIM6_HOST_ROUTER);
    sim6_addr(a, SIM6_NET_PORT0, SIM6_HOST);
    sim_port_mac(0, port0_mac);
    return sim6_build_nd(f, sim_mac_host_a, port0_mac, gateway, a, SIM6_ICMP_NA,
                         SIM6_NA_ROUTER | SIM6_NA_SOLICITED | SIM6_NA_OVERRIDE, gateway,
                         SIM6_OPT_TARGET_LLADDR);
}

/* sim6_build_router_ns: the solicitation the router must send out of port1 to resolve target:
 * from port1's link-local address to target's solicited-node group (RFC 4861 7.2.2). */
static uint16_t sim6_build_router_ns(uint8_t *f, const uint8_t *target)
{
    uint8_t port1_mac[6], port1_ll[16], group[16], group_mac[6];
    sim_port_mac(1, port1_mac);
    sim6_link_local(port1_ll, port1_mac);
    sim6_solicited_node(group, group_mac, target);
    return sim6_build_nd(f, group_mac, port1_mac, port1_ll, group, SIM6_ICMP_NS, 0, target,
                         SIM6_OPT_SOURCE_LLADDR);
}

uint16_t sim6_build_na_from_b(uint8_t *f)
{
    uint8_t b[16], port1_mac[6], port1_ll[16];
    sim6_addr(b, SIM6_NET_PORT1, SIM6_HOST);
    sim_port_mac(1, port1_mac);
    sim6_link_local(port1_ll, port1_mac); /* where the solicitation came from */
    return sim6_build_nd(f, port1_mac, sim_mac_host_b, b, port1_ll, SIM6_ICMP_NA,
                         SIM6_NA_SOLICITED | SIM6_NA_OVERRIDE, b, SIM6_OPT_TARGET_LLADDR);
}

/* --- malformed frames ------------------------------------------------------------------------ */

/* sim6_add_ext_chain: n Destination Options headers, each 8 bytes of one PadN option (RFC 8200
 * 4.2, 4.6), put between the fixed header and the UDP datagram of frame f (len bytes). More
 * than INET6_MAX_EXT_HEADERS is a chain no router should walk to its end. Returns the new
 * length. */
static uint16_t sim6_add_ext_chain(uint8_t *f, uint16_t len, unsigned n)
{
    uint8_t *ip = f + SIM6_IP_OFF, *chain = ip + SIM6_HDR_BYTES;
    memmove(chain + SIM6_EXT_BYTES * n, chain, len - SIM6_UDP_OFF);
    for (unsigned i = 0; i < n; i++) {
        uint8_t *h = chain + SIM6_EXT_BYTES * i;
        memset(h, 0, SIM6_EXT_BYTES);
        h[0] = i + 1 < n ? SIM6_NH_DEST_OPTS : SIM6_NH_UDP;
        h[1] = 0; /* the header's length in 8-byte units, not counting the first */
        h[2] = 1; /* PadN, over the 4 bytes after its length byte */
        h[3] = 4;
    }
    ip[6] = SIM6_NH_DEST_OPTS;
    sim_st16(ip + 4, (uint16_t)(sim_ld16(ip + 4) + SIM6_EXT_BYTES * n));
    return (uint16_t)(len + SIM6_EXT_BYTES * n);
}

uint16_t sim6_build_bad(uint8_t *f, enum sim_bad k, unsigned idx, uint32_t *err_bits)
{
    uint8_t *ip = f + SIM6_IP_OFF;
    uint16_t len = sim6_build(f, idx % SIM_FLOWS, idx, SIM_MAGIC_BAD);

    *err_bits = 0;
    switch (k) {
    case BAD6_TRUNCATED:
        return SIM6_IP_OFF + SIM6_HDR_BYTES - 10;
    case BAD6_VERSION:
        ip[0] = (uint8_t)(4u << 4 | (ip[0] & 0x0f));
        return len;
    case BAD6_PAYLOAD_LENGTH:
        sim_st16(ip + 4, (uint16_t)(len - SIM6_IP_OFF - SIM6_HDR_BYTES + 1));
        return len;
    case BAD6_HOP_LIMIT1:
        ip[7] = 1;
        return len;
    case BAD6_EXT_CHAIN:
        return sim6_add_ext_chain(f, len, SIM6_EXT_CHAIN_HEADERS);
    case BAD6_ETH_MCAST:
        memcpy(f, (const uint8_t[6]){ 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 }, 6);
        return len;
    case BAD6_SRC_LINK_LOCAL:
        sim6_link_local(ip + 8, sim_mac_host_a);
        break;
    case BAD6_NO_ROUTE:
        sim6_addr(ip + 24, SIM6_NET_NO_ROUTE, 5);
        break;
    case BAD6_UNRESOLVED:
        sim6_addr(ip + 24, SIM6_NET_PORT1, SIM6_HOST_NOBODY);
        break;
    case BAD6_OTHER_PORT:
        sim6_addr(ip + 24, SIM6_NET_PORT1, SIM6_HOST_ROUTER);
        break;
    default: /* the ring-level kinds */
        return sim_spoil_for_ring(f, len, k, err_bits);
    }
    /* an address changed: the datagram must stay valid in all but that */
    sim6_set_udp_csum(ip, f + SIM6_UDP_OFF);
    return len;
}

/* --- what the hosts receive ------------------------------------------------------------------ */

/* sim6_icmp_type: the type of the ICMPv6 message f carries right after its IPv6 header, whole
 * and with a checksum that holds; -1 for anything else. */
static int sim6_icmp_type(const uint8_t *f, uint16_t len)
{
    const uint8_t *ip = f + SIM6_IP_OFF;
    if (len < SIM6_IP_OFF + SIM6_HDR_BYTES + SIM6_ICMP_HDR_BYTES ||
        sim_ld16(f + 12) != SIM6_ETHERTYPE || ip[0] >> 4 != 6 || ip[6] != SIM6_NH_ICMP) {
        return -1;
    }
    uint16_t msg_len = sim_ld16(ip + 4);
    if (msg_len < SIM6_ICMP_HDR_BYTES || SIM6_IP_OFF + SIM6_HDR_BYTES + msg_len > len ||
        sim6_upper_csum(ip, ip + SIM6_HDR_BYTES, msg_len, SIM6_NH_ICMP) != 0) {
        return -1;
    }
    return ip[SIM6_HDR_BYTES];
}

static void sim6_check_stream(struct sim *s, const uint8_t *f, uint16_t len)
{
    static uint8_t want[SIM6_FRAME_BYTES];
    const unsigned hop = SIM6_IP_OFF + 7; /* the hop limit's byte */
    unsigned flow = len == SIM6_FRAME_BYTES ? sim_ld16(f + SIM6_PAY_OFF + 2) : SIM_FLOWS;
    uint32_t seq = len == SIM6_FRAME_BYTES ? sim_ld32(f + SIM6_PAY_OFF + 4) : 0;

    if (flow >= SIM_FLOWS) {
        sim_report_frame(s, ++s->bad_len, "stream frame of wrong length or flow", f, len);
        return;
    }
    sim6_build_routed(want, flow, seq);
    if (memcmp(f, want, SIM6_FRAME_BYTES) != 0) {
        if (memcmp(f, want, 12) != 0) {
            sim_report_frame(s, ++s->bad_mac, "MAC addresses not as expected", f, len);
        }
        if (f[hop] != want[hop]) {
            sim_report_frame(s, ++s->bad_ttl, "hop limit not decremented by exactly 1", f, len);
        }
        if (memcmp(f + 12, want + 12, hop - 12) != 0 ||
            memcmp(f + hop + 1, want + hop + 1, SIM6_FRAME_BYTES - hop - 1) != 0) {
            sim_report_frame(s, ++s->bad_payload, "frame content changed", f, len);
        }
    }
    sim_stream_arrival(s, flow, seq, f, len);
}

/* sim6_is_router_ns: is f the router's solicitation for target, byte for byte? */
static bool sim6_is_router_ns(const uint8_t *f, uint16_t len, const uint8_t *target)
{
    uint8_t want[SIM6_ND_FRAME_BYTES];
    sim6_build_router_ns(want, target);
    return len == sizeof(want) && memcmp(f, want, sizeof(want)) == 0;
}

/* sim6_host_b_ns: host B sees the router solicit it and answers, as a real host would; a
 * solicitation for 2001:db8:19::77 goes unanswered. */
static void sim6_host_b_ns(struct sim *s, const uint8_t *f, uint16_t len)
{
    uint8_t target[16];
    sim6_addr(target, SIM6_NET_PORT1, SIM6_HOST);
    if (sim6_is_router_ns(f, len, target)) {
        s->p1_ns_requests++;
        s->hostb_replies_due++;
        return;
    }
    sim6_addr(target, SIM6_NET_PORT1, SIM6_HOST_NOBODY);
    if (sim6_is_router_ns(f, len, target)) {
        s->p1_ns_nobody++;
        return;
    }
    sim_report_frame(s, ++s->p1_unexpected, "port1: not an expected neighbour solicitation", f,
                     len);
}

void sim6_on_port1(void *ctx, const uint8_t *f, uint16_t len)
{
    struct sim *s = ctx;
    bool ipv6 = len >= 14 && sim_ld16(f + 12) == SIM6_ETHERTYPE;
    uint16_t magic = len >= SIM6_PAY_OFF + 2 ? sim_ld16(f + SIM6_PAY_OFF) : 0;

    if (sim6_icmp_type(f, len) == SIM6_ICMP_NS) {
        sim6_host_b_ns(s, f, len);
    } else if (ipv6 && magic == SIM_MAGIC_STREAM) {
        sim6_check_stream(s, f, len);
    } else if (ipv6 && magic == SIM_MAGIC_PROBE) {
        s->p1_probes++;
    } else {
        sim_report_frame(s, ++s->p1_unexpected, "port1: unexpected frame", f, len);
    }
}

/* sim6_is_error_to_a: an ICMPv6 error as the router must send host A about one of its frames
 * (RFC 4443 2.2, 2.4): to A's MAC and address from port0's, hop limit 64, code 0, quoting the
 * offending datagram from its header on (its source: A). Type and checksum checked before. */
static bool sim6_is_error_to_a(const uint8_t *f, uint16_t len)
{
    uint8_t port0_mac[6], port0[16], a[16];
    sim_port_mac(0, port0_mac);
    sim6_addr(port0, SIM6_NET_PORT0, SIM6_HOST_ROUTER);
    sim6_addr(a, SIM6_NET_PORT0, SIM6_HOST);
    const uint8_t *ip = f + SIM6_IP_OFF, *icmp = ip + SIM6_HDR_BYTES;
    const uint8_t *quote = icmp + SIM6_ICMP_HDR_BYTES;
    return len >= SIM6_IP_OFF + SIM6_HDR_BYTES + SIM6_ICMP_HDR_BYTES + SIM6_HDR_BYTES &&
           memcmp(f, sim_mac_host_a, 6) == 0 && memcmp(f + 6, port0_mac, 6) == 0 &&
           ip[7] == SIM6_HOP_LIMIT && memcmp(ip + 8, port0, 16) == 0 &&
           memcmp(ip + 24, a, 16) == 0 && icmp[1] == 0 && memcmp(quote + 8, a, 16) == 0;
}

void sim6_on_port0(void *ctx, const uint8_t *f, uint16_t len)
{
    struct sim *s = ctx;
    uint8_t want[SIM6_ND_FRAME_BYTES];

    switch (sim6_icmp_type(f, len)) {
    case SIM6_ICMP_NA:
        if (len == sim6_build_na_to_a(want) && memcmp(f, want, len) == 0) {
            s->p0_na_replies++;
            return;
        }
        break;
    case SIM6_ICMP_TIME_EXCEEDED:
        if (sim6_is_error_to_a(f, len)) {
            s->p0_time_exceeded++;
            return;
        }
        break;
    case SIM6_ICMP_DEST_UNREACH:
        if (sim6_is_error_to_a(f, len)) {
            s->p0_unreachable++;
            return;
        }
        break;
    default:
        break;
    }
    sim_report_frame(s, ++s->p0_unexpected, "port0: unexpected frame", f, len);
}
