/*
 * net/route6.h: the IPv6 router's per-packet decisions: validation and hop-limit decrement of a
 * packet in transit (RFC 8200 sections 3 and 4, the address classes of RFC 4291 section 2.4-2.7)
 * and ICMPv6 error construction (RFC 4443 sections 2.2-2.4 and 3). The IPv4 twin is net/route.h;
 * rate limiting (route_ratelimit) and the Ethernet rewrite (route_eth_rewrite) are shared with it.
 *
 * Everything here is per core: the functions touch only the frame and the stats the caller
 * passes in, allocate nothing and print nothing. Routers do not fragment IPv6 (RFC 8200 section
 * 5): a forwarded packet larger than the egress MTU is the caller's to answer with Packet Too Big.
 */
#ifndef WS_NET_ROUTE6_H
#define WS_NET_ROUTE6_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/inet.h"
#include "net/inet6.h"
#include "net/route.h" /* route_ratelimit, route_eth_rewrite */

/* RFC 4443 2.4(c): an error carries as much of the offending packet as keeps the whole IPv6
 * packet within the minimum MTU. */
#define ROUTE6_ICMP_ERROR_MAX_IP_BYTES INET_IPV6_MIN_MTU /* 1280 */
/* Ethernet + IPv6 + ICMPv6 headers before the quoted packet. */
#define ROUTE6_ICMP_ERROR_HEADROOM_BYTES (INET_ETH_HDR_BYTES + INET_IPV6_HDR_BYTES + \
                                          INET6_ICMP_HDR_BYTES) /* 62 */
/* The largest quote: 1280 - 40 - 8. */
#define ROUTE6_ICMP_ERROR_MAX_QUOTE_BYTES \
    (ROUTE6_ICMP_ERROR_MAX_IP_BYTES - INET_IPV6_HDR_BYTES - INET6_ICMP_HDR_BYTES)
/* The smallest quote sent: the offending IPv6 header and 8 bytes after it (all of a shorter
 * packet); an output buffer without room for that gets no error (icmp6_no_room). */
#define ROUTE6_ICMP_ERROR_MIN_QUOTE_BYTES (INET_IPV6_HDR_BYTES + 8)
/* The largest frame route6_icmp_error builds: a buffer this size always has room. */
#define ROUTE6_ICMP_ERROR_MAX_FRAME_BYTES (INET_ETH_HDR_BYTES + ROUTE6_ICMP_ERROR_MAX_IP_BYTES)
#define ROUTE6_ICMP_ERROR_HOP_LIMIT INET_IPV6_DEFAULT_HOP_LIMIT /* 64 */

/*
 * Counters, one per reason, in the order the checks run: the single source of the struct fields
 * and of the names the console prints (route6_drop_counters[]). Every name differs from every
 * IPv4 name of net/route.h (tests/unit/test_route6.c checks), so both families can be printed
 * side by side.
 *
 * ROUTE6_FRAME_DROPS: what happened to a frame route6_check_and_decrement did not forward;
 * every such frame is counted in exactly one of them (hop_limit_expired included).
 * ROUTE6_ICMP_SUPPRESSIONS: ICMPv6 errors route6_icmp_error was asked for and did not build.
 * Not frame fates (the frame is already counted above): conservation sums use the frame drops
 * only. X(field, one-line meaning).
 */
#define ROUTE6_FRAME_DROPS(X)                                                                   \
    X(ip6_truncated, "fewer than 14 + 40 bytes: no room for Ethernet and IPv6 headers")         \
    X(eth_not_ipv6, "EtherType is not IPv6 (a caller bug, never the wire)")                     \
    X(ip6_eth_dst_group, "Ethernet broadcast/multicast destination: not ours to route")         \
    X(ip6_bad_version, "IP version is not 6")                                                   \
    X(ip6_bad_payload_length, "payload length beyond the end of the frame")                     \
    X(ip6_src_multicast, "source is multicast ff00::/8 (RFC 4291 2.7)")                         \
    X(ip6_src_unspecified, "source is :: (RFC 4291 2.5.2: never forwarded)")                    \
    X(ip6_src_loopback, "source is ::1 (RFC 4291 2.5.3: never leaves a node)")                  \
    X(ip6_src_v4_mapped, "source is IPv4-mapped ::ffff:0:0/96: never on the wire")              \
    X(ip6_src_link_local, "source is link-local fe80::/10: never forwarded (RFC 4291 2.5.6)")   \
    X(ip6_dst_multicast, "destination is multicast ff00::/8 (no multicast routing)")            \
    X(ip6_dst_unspecified, "destination is :: (RFC 4291 2.5.2)")                                \
    X(ip6_dst_loopback, "destination is ::1 (RFC 4291 2.5.3)")                                  \
    X(ip6_dst_v4_mapped, "destination is IPv4-mapped ::ffff:0:0/96: never on the wire")         \
    X(ip6_dst_link_local, "destination is link-local fe80::/10: never forwarded (2.5.6)")       \
    X(ip6_ext_truncated, "extension headers run past the packet (a first fragment included)")   \
    X(ip6_ext_too_long, "more than INET6_MAX_EXT_HEADERS extension headers: a hostile chain")   \
    X(ip6_ext_bad, "Hop-by-Hop Options header not first (RFC 8200 section 4.1)")                \
    X(hop_limit_expired, "hop limit 0 or 1: not forwarded; the caller may send time exceeded")

#define ROUTE6_ICMP_SUPPRESSIONS(X)                                                             \
    X(icmp6_unsupported_type, "type/code not built here, or a Packet Too Big MTU below 1280")   \
    X(icmp6_no_source_address, "our source is ::, multicast, ::1 or v4-mapped (a caller bug)")  \
    X(icmp6_quote_malformed, "offending frame is no valid IPv6 packet (or its chain is bad)")   \
    X(icmp6_l2_src_group, "offending frame's Ethernet source is a group address")               \
    X(icmp6_dst_multicast, "offending packet went to IPv6 multicast or an Ethernet group")      \
    X(icmp6_src_not_unicast, "offending source is ::, multicast, ::1 or v4-mapped (2.4(e.6))")  \
    X(icmp6_about_error, "offending packet is an ICMPv6 error, Redirect or ND (or may be one)") \
    X(icmp6_no_room, "output buffer too small for the headers plus header + 8 bytes")

#define ROUTE6_DROP_REASONS(X) ROUTE6_FRAME_DROPS(X) ROUTE6_ICMP_SUPPRESSIONS(X)

/* Per core (per port, if the caller wants): written only by the core that owns it. */
struct route6_drop_stats {
#define ROUTE6_DROP_FIELD(name, why) uint64_t name;
    ROUTE6_DROP_REASONS(ROUTE6_DROP_FIELD)
#undef ROUTE6_DROP_FIELD
};

/* Every counter of struct route6_drop_stats (offsets into it), frame drops first: entries [0,
 * route6_frame_drop_counter_count) are ROUTE6_FRAME_DROPS, the rest ROUTE6_ICMP_SUPPRESSIONS.
 * Same descriptor type as IPv4's, so the console walks both with one loop. */
extern const struct net_counter_desc route6_drop_counters[];
extern const size_t route6_drop_counter_count;
extern const size_t route6_frame_drop_counter_count;

/* route6_frame_drops_total: frames not forwarded (ROUTE6_FRAME_DROPS summed): equals the number
 * of route6_check_and_decrement calls made with st that did not return ROUTE6_FORWARD. */
uint64_t route6_frame_drops_total(const struct route6_drop_stats *st);

/* --- forwarding ------------------------------------------------------------------------------ */

enum route6_verdict {
    ROUTE6_FORWARD,           /* hop limit decremented; *dst_out set; look up and send */
    ROUTE6_HOP_LIMIT_EXPIRED, /* hop limit 0 or 1: frame unchanged; counted as hop_limit_expired;
                               * the caller may send time exceeded (route6_icmp_error, type 3
                               * code 0) if its limiter allows */
    ROUTE6_DROP,              /* malformed or unforwardable: counted under its reason; send
                               * nothing */
};

/*
 * route6_check_and_decrement: decide whether a received IPv6 frame of len bytes (14-byte
 * Ethernet header, FCS stripped), which the caller has found is not addressed to the appliance,
 * may be forwarded. Checks, in order: room for both headers, EtherType 0x86dd, a unicast
 * Ethernet destination, version 6, a payload length within the frame (a longer frame is
 * padding: the payload length is the truth), the source and then the destination class
 * (multicast, ::, ::1, IPv4-mapped, link-local: never forwarded, RFC 4291 2.5.2-2.5.6 and 2.7;
 * no multicast routing here), the extension-header chain walked by inet6_walk_ext within the
 * packet's bytes (at most INET6_MAX_EXT_HEADERS; a truncated, too long or misordered chain is
 * dropped, by result), then the hop limit (RFC 8200 section 3: a packet is discarded if it
 * arrives with 0 or would leave with 0).
 *
 * ROUTE6_FORWARD: the hop limit is one lower (IPv6 has no header checksum) and *dst_out points
 * at the 16 destination bytes inside frame. The caller then compares 40 + payload length with
 * the egress MTU (no fragmentation by routers, RFC 8200 section 5). Every other verdict leaves
 * the frame and *dst_out as they were and counts the frame in exactly one ROUTE6_FRAME_DROPS
 * counter. Hop-by-Hop options are not processed (RFC 8200 4.3 lets routers skip them); a
 * Routing header is the business of the node it names, which is not us (4.4).
 *
 * Context: fast path, the core that owns st; reads at most the packet's bytes; no allocation.
 */
enum route6_verdict route6_check_and_decrement(uint8_t *frame, uint16_t len,
                                               struct route6_drop_stats *st,
                                               const uint8_t **dst_out);

/* route6_fast_addr_ok: the address classes the fast check passes, by first byte: global unicast
 * 2000::/3 (0x20-0x3f, everything IANA allocates from) and unique local fc00::/7 (0xfc, 0xfd,
 * RFC 4193: routed within a site). Everything else (::/8 with ::, ::1 and IPv4-mapped, the
 * link-local fe80::/10, multicast ff00::/8, unassigned space) goes to the full check. */
static inline bool route6_fast_addr_ok(uint8_t first)
{
    return (uint8_t)(first - 0x20) < 0x20 || (first | 1) == 0xfd;
}

/* route6_fast_next_ok: TCP, UDP or ICMPv6 directly after the fixed header: no extension header
 * for the full check to walk. One shift of a 64-bit mask (all three are below 64). */
static inline bool route6_fast_next_ok(uint8_t next)
{
    const uint64_t direct = 1ull << INET6_NH_TCP | 1ull << INET6_NH_UDP | 1ull << INET6_NH_ICMPV6;
    return next < 64 && ((direct >> next) & 1) != 0;
}

/*
 * route6_fast_check: the common case of route6_check_and_decrement in one pass, for the fast
 * path: room for both headers, EtherType IPv6 and version 6 (one load), a unicast Ethernet
 * destination, a payload length within the frame, TCP, UDP or ICMPv6 as the next header (no
 * extension headers: those take the full path), hop limit above 1, source and destination
 * in route6_fast_addr_ok's classes. Returns a pointer to the destination bytes inside frame
 * when all hold: route6_check_and_decrement would then forward it, and
 * route6_hop_limit_decrement is all that is left to do. NULL otherwise, the frame untouched:
 * the full check decides and counts. Reads only, any core.
 */
static inline const uint8_t *route6_fast_check(const uint8_t *frame, uint16_t len)
{
    const unsigned hdrs = INET_ETH_HDR_BYTES + INET_IPV6_HDR_BYTES;
    /* bytes 12-14: EtherType 0x86dd, then the version nibble */
    if (len < hdrs || (inet_load_be32(frame + 12) & 0xfffff000u) != 0x86dd6000u ||
        (frame[0] & 1) != 0) {
        return NULL;
    }
    const struct inet_ipv6_hdr *h = (const struct inet_ipv6_hdr *)(frame + INET_ETH_HDR_BYTES);
    if (inet_load_be16(h->payload_len) > (unsigned)len - hdrs || h->hop_limit <= 1 ||
        !route6_fast_next_ok(h->next) || !route6_fast_addr_ok(h->src[0]) ||
        !route6_fast_addr_ok(h->dst[0])) {
        return NULL;
    }
    return h->dst;
}

/* route6_hop_limit_decrement: one hop less for the IPv6 header at ip6 (RFC 8200 section 3);
 * there is no header checksum to update. Only for a hop limit above 1 (what
 * route6_fast_check passed). Fast path, any core. */
static inline void route6_hop_limit_decrement(uint8_t *ip6)
{
    ((struct inet_ipv6_hdr *)ip6)->hop_limit--;
}

/* --- ICMPv6 errors (RFC 4443) ---------------------------------------------------------------- */

/*
 * route6_icmp_error: build in out (out_bytes long) a complete Ethernet frame carrying ICMPv6
 * error type/code about the received frame in_frame (in_len bytes), to go back out of the port
 * it arrived on: Ethernet to in_frame's source MAC from our_mac; IPv6 from our_src (an address
 * of that port: its link-local one when the offender's source is link-local) to the offending
 * source, hop limit 64, traffic class and flow label 0; the ICMPv6 header with its 32-bit word;
 * then as much of the offending packet, from its IPv6 header on (never the Ethernet padding
 * behind it), as keeps the error's IPv6 packet within 1280 bytes (RFC 4443 2.4(c)) and the
 * frame within out_bytes; checksum over the RFC 8200 8.1 pseudo-header.
 *
 * Builds: Destination Unreachable (1) codes 0-6; Packet Too Big (2) code 0, param = the
 * next-hop MTU (at least 1280: no IPv6 link is smaller, RFC 8200 section 5); Time Exceeded (3)
 * codes 0-1; Parameter Problem (4) codes 0-2, param = the pointer (an offset into the offending
 * packet, RFC 4443 3.4). param is ignored (the word is sent as 0, "Unused") for types 1 and 3.
 * Anything else is icmp6_unsupported_type.
 *
 * Returns the frame length (at least 102 bytes: no Ethernet padding is ever needed), or 0 when
 * no error may be sent, counted in exactly one ROUTE6_ICMP_SUPPRESSIONS counter, in this order:
 * an unsupported type/code; our_src not a unicast address; an offending frame that is no valid
 * IPv6 packet (short, not IPv6, not version 6, payload length beyond the frame, or an
 * extension chain inet6_walk_ext refuses); a group Ethernet source; an IPv6 multicast
 * destination or an Ethernet group destination (RFC 4443 2.4(e.3)-(e.5); not for Packet Too
 * Big or Parameter Problem code 2); a source that names no single node: ::, multicast, ::1,
 * IPv4-mapped (2.4(e.6)); an ICMPv6 error, a Redirect or another ND message (2.4(e.1), (e.2);
 * ND never crosses a router), or an ICMPv6 message too short to show its type, or a non-first
 * fragment whose payload may be ICMPv6 (its type is not in it: when in doubt, stay silent);
 * finally no room in out for the headers and ROUTE6_ICMP_ERROR_MIN_QUOTE_BYTES of quote.
 * A link-local source is allowed (one node on the ingress link, where the error goes: e.g.
 * Destination Unreachable code 2, beyond scope of source address, RFC 4443 3.1).
 *
 * out may be in_frame itself (the error then replaces the frame; out_bytes is the buffer's
 * size) or overlap it: all that is needed from in_frame is read before out is written, and the
 * quote is moved with memmove. When 0 is returned, neither buffer has been written.
 *
 * Rate limiting is the caller's (route_ratelimit_allow first, RFC 4443 2.4(f)), so a flood of
 * expiring packets costs a compare each, not a 1280-byte build.
 *
 * Context: the core that owns st; no allocation. Not the fast path (one checksum over up to
 * 1240 bytes).
 */
uint16_t route6_icmp_error(uint8_t *out, uint16_t out_bytes, const uint8_t *in_frame,
                           uint16_t in_len, uint8_t type, uint8_t code, uint32_t param,
                           const uint8_t our_src[INET6_ADDR_BYTES],
                           const uint8_t our_mac[INET_ETH_ADDR_BYTES],
                           struct route6_drop_stats *st);

#endif
