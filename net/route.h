/*
 * net/route.h: the IPv4 router's per-packet decisions: header validation and TTL decrement for a
 * datagram in transit (RFC 791, RFC 1812 sections 5.2.2, 5.3.1, 5.3.7), the Ethernet rewrite
 * towards the next hop, ICMP error construction (RFC 792, RFC 1812 sections 4.3.2.3-4.3.2.7) and
 * the token bucket that rate-limits those errors (RFC 1812 section 4.3.2.8).
 *
 * Everything here is per core: the functions touch only the frame and the stats or limiter the
 * caller passes in, allocate nothing, divide nothing (route_ratelimit_init aside) and print
 * nothing.
 */
#ifndef WS_NET_ROUTE_H
#define WS_NET_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/inet.h"

/* ICMP error types and codes this module builds (RFC 792). */
#define ROUTE_ICMP_DEST_UNREACH 3
#define ROUTE_ICMP_CODE_NET_UNREACH 0
#define ROUTE_ICMP_CODE_HOST_UNREACH 1
#define ROUTE_ICMP_CODE_FRAG_NEEDED 4 /* built by route_icmp_frag_needed: it carries the MTU */
#define ROUTE_ICMP_TIME_EXCEEDED 11
#define ROUTE_ICMP_CODE_TTL_EXCEEDED 0
#define ROUTE_ICMP_CODE_REASSEMBLY_EXCEEDED 1

#define ROUTE_ICMP_ERROR_HDR_BYTES 8 /* type, code, checksum, 4 unused bytes */
/* RFC 1812 4.3.2.3: an ICMP error datagram should quote as much as fits in 576 bytes. */
#define ROUTE_ICMP_ERROR_MAX_IP_BYTES 576
/* Ethernet + IPv4 + ICMP headers before the quoted datagram. */
#define ROUTE_ICMP_ERROR_HEADROOM_BYTES (14 + 20 + ROUTE_ICMP_ERROR_HDR_BYTES)
/* The largest frame route_icmp_error builds: a buffer this size always has room. */
#define ROUTE_ICMP_ERROR_MAX_FRAME_BYTES (14 + ROUTE_ICMP_ERROR_MAX_IP_BYTES)

/*
 * Counters, one per reason, in the order the checks run. This list is the single source of the
 * struct fields and of the names the console prints (route_drop_counters[]).
 *
 * ROUTE_FRAME_DROPS: what happened to a frame that route_ipv4_check_and_decrement did not
 * forward; every such frame is counted in exactly one of them (ttl_expired included: the frame
 * itself is never sent on, whatever the caller then reports about it).
 * ROUTE_ICMP_SUPPRESSIONS: ICMP errors route_icmp_error was asked for and did not build. These
 * are not frame fates: the frame they concern is already counted above, so conservation sums
 * (received = forwarded + dropped) must use ROUTE_FRAME_DROPS only.
 * X(field, one-line meaning).
 */
#define ROUTE_FRAME_DROPS(X)                                                                    \
    X(ip_truncated, "fewer than 14 + 20 bytes: no room for Ethernet and IPv4 headers")          \
    X(eth_not_ipv4, "EtherType is not IPv4 (a caller bug, never the wire)")                     \
    X(eth_dst_group, "Ethernet broadcast/multicast carrying a datagram to forward (5.3.4)")    \
    X(ip_bad_version, "IP version is not 4")                                                    \
    X(ip_bad_ihl, "IHL below 5, or header longer than total length")                            \
    X(ip_bad_total_length, "total length beyond the end of the frame")                          \
    X(ip_bad_checksum, "IPv4 header checksum does not verify")                                  \
    X(ip_src_broadcast, "source is the limited broadcast 255.255.255.255")                      \
    X(ip_src_multicast, "source is multicast 224.0.0.0/4")                                      \
    X(ip_src_martian, "source 0/8, 127/8 or 240/4 (RFC 1812 5.3.7)")                            \
    X(ip_src_link_local, "source 169.254/16: never forwarded (RFC 3927 section 7)")             \
    X(ip_dst_broadcast, "destination is the limited broadcast 255.255.255.255")                 \
    X(ip_dst_multicast, "destination multicast 224.0.0.0/4 (no multicast routing)")             \
    X(ip_dst_martian, "destination 0/8, 127/8 or 240/4 (RFC 1812 5.3.7)")                       \
    X(ip_dst_link_local, "destination 169.254/16: never forwarded (RFC 3927 section 7)")        \
    X(ttl_expired, "TTL 0 or 1: not forwarded; the caller may send ICMP time exceeded")

#define ROUTE_ICMP_SUPPRESSIONS(X)                                                              \
    X(icmp_unsupported_type, "asked for a type/code not built here (a caller bug)")             \
    X(icmp_no_source_address, "the interface has no IPv4 address to send from")                 \
    X(icmp_no_room, "output buffer too small for headers plus header + 8 bytes")                \
    X(icmp_quote_malformed, "offending frame is not a valid IPv4 datagram (5.2.2)")             \
    X(icmp_l2_group, "offending frame had a group Ethernet source or destination")              \
    X(icmp_about_fragment, "offending datagram is a non-initial fragment")                      \
    X(icmp_src_broadcast, "offending source is 255.255.255.255")                                \
    X(icmp_src_multicast, "offending source is multicast")                                      \
    X(icmp_src_martian, "offending source is 0/8, 127/8 or 240/4: no single host")              \
    X(icmp_dst_broadcast, "offending destination was 255.255.255.255")                          \
    X(icmp_dst_multicast, "offending destination was multicast")                                \
    X(icmp_about_icmp_error, "offending datagram is an ICMP error (or too short to tell)")

#define ROUTE_DROP_REASONS(X) ROUTE_FRAME_DROPS(X) ROUTE_ICMP_SUPPRESSIONS(X)

/* Per core (per port, if the caller wants): written only by the core that owns it. */
struct route_drop_stats {
#define ROUTE_DROP_FIELD(name, why) uint64_t name;
    ROUTE_DROP_REASONS(ROUTE_DROP_FIELD)
#undef ROUTE_DROP_FIELD
};

/* Every counter of struct route_drop_stats, frame drops first: entries [0,
 * route_frame_drop_counter_count) are ROUTE_FRAME_DROPS, the rest ROUTE_ICMP_SUPPRESSIONS. */
extern const struct net_counter_desc route_drop_counters[];
extern const size_t route_drop_counter_count;
extern const size_t route_frame_drop_counter_count;

/* route_frame_drops_total: frames not forwarded (ROUTE_FRAME_DROPS summed): equals the number of
 * route_ipv4_check_and_decrement calls made with st that did not return ROUTE_FORWARD. */
uint64_t route_frame_drops_total(const struct route_drop_stats *st);

/* --- forwarding ------------------------------------------------------------------------------ */

enum route_verdict {
    ROUTE_FORWARD,     /* TTL decremented, checksum updated; *dst_out set; look up and send */
    ROUTE_TTL_EXPIRED, /* TTL 0 or 1: frame unchanged; counted as ttl_expired; the caller may
                        * send ICMP time exceeded (route_icmp_error) if the limiter allows */
    ROUTE_DROP,        /* malformed or unforwardable: counted under its reason, send nothing */
};

/*
 * route_ipv4_check_and_decrement: decide whether a received IPv4 frame of len bytes (FCS
 * stripped), which the caller has found is not addressed to the appliance, may be forwarded.
 * Checks, in order: room for the headers, EtherType, Ethernet destination unicast, version,
 * IHL, total length (frames longer than it are padding, fine), header checksum, source and
 * destination address classes, then TTL. On ROUTE_FORWARD the TTL has been decremented and the
 * header checksum updated incrementally (RFC 1624), and *dst_out holds the destination (host
 * order); on any other verdict the frame is unchanged and *dst_out is not written.
 *
 * Fragments are forwarded as they are (only the local stack refuses them); IP options are
 * forwarded unprocessed (no Record Route / Timestamp updates, source routes not honoured).
 *
 * Context: fast path, the core that owns st; no allocation, no division.
 */
enum route_verdict route_ipv4_check_and_decrement(uint8_t *frame, uint16_t len,
                                                  struct route_drop_stats *st,
                                                  uint32_t *dst_out);

/*
 * route_ipv4_fast_check: the common case of route_ipv4_check_and_decrement in one pass, for a
 * fast path: a frame with room for both headers, EtherType IPv4, version 4 with no options
 * (IHL 5), a total length within the frame, a unicast Ethernet destination, source and
 * destination in the plain unicast classes (first octet 1-126, 128-168 or 170-223: 169/8 is
 * left to the full check for the sake of 169.254/16), TTL above 1 and a header checksum that
 * verifies: summed here unless csum_checked says the NIC already found it good. Returns the
 * destination (host order) when all hold: route_ipv4_check_and_decrement would then forward
 * it, and route_ipv4_ttl_decrement is all that is left to do. Returns 0 otherwise (0/8 never
 * passes), the frame untouched: the full check decides and counts. Reads only, any core.
 */
extern const uint8_t route_fast_octet_ok[256]; /* 1 for the first octets named above */

static inline uint32_t route_ipv4_fast_check(const uint8_t *frame, uint16_t len,
                                             bool csum_checked)
{
    const uint8_t *ip = frame + INET_ETH_HDR_BYTES;
    const unsigned hdrs = INET_ETH_HDR_BYTES + INET_IPV4_HDR_BYTES;
    if (len < hdrs || (inet_load_be32(frame + 12) & 0xffffff00u) != 0x08004500u ||
        (frame[0] & 1) != 0) {
        return 0; /* short, not IPv4 without options, or an Ethernet group destination */
    }
    /* total length in [20, len - 14], as one unsigned compare */
    unsigned total = inet_load_be16(ip + 2);
    if (total - INET_IPV4_HDR_BYTES > (unsigned)len - hdrs || ip[8] <= 1 ||
        !route_fast_octet_ok[ip[12]] || !route_fast_octet_ok[ip[16]] ||
        (!csum_checked && !inet_ipv4_hdr20_csum_ok(ip))) {
        return 0;
    }
    return inet_load_be32(ip + 16);
}

/*
 * route_ipv4_ttl_decrement: RFC 1812 5.3.1: decrement the TTL of the IPv4 header at ip by one
 * and update the checksum. The TTL shares its 16-bit word with the protocol byte, so the
 * change is one word m -> m' = m - 0x100, and RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'),
 * updates the checksum from it alone. Here ~m + m' is the constant ~0x100 = 0xFEFF whatever
 * the TTL and protocol, so HC' = ~(~HC + 0xFEFF) = HC + 0x100 in one's complement arithmetic;
 * and since a one's complement sum commutes with swapping the bytes of every operand, on the
 * checksum as it lies in memory (a little-endian load) that is HC_le + 1, with the end-around
 * carry: c = HC_le + 1, plus 1 more when c reaches 0xFFFF, kept to 16 bits. The extra 1 at
 * 0xFFFF is eqn. 3's answer too: it turns the sum 0xFFFF ("negative zero") into 0x0000.
 *
 * It always equals a full recompute, including RFC 1624's corner case: eqn. 3's sum is never 0
 * here because m' != 0 (the new TTL is at least 1), so HC' is never 0xFFFF, and a full
 * recompute over a header that is not all zeros never gives 0xFFFF either; both sums are
 * congruent mod 0xFFFF and both lie in 1..0xFFFF, so they are the same number. That holds
 * even when the sender wrote the header checksum as 0xFFFF (a "negative zero" that verifies).
 * tests/unit/test_route.c checks it against eqn. 3 for every checksum value. Only for a TTL
 * above 1.
 */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the TTL update swaps 0x0100's bytes");

static inline void route_ipv4_ttl_decrement(uint8_t *ip)
{
    struct inet_ipv4_hdr *h = (struct inet_ipv4_hdr *)ip;
    uint16_t hc;
    __builtin_memcpy(&hc, h->csum, sizeof(hc));
    uint32_t c = (uint32_t)hc + 1;
    c += c >= 0xffffu;
    hc = (uint16_t)c;
    __builtin_memcpy(h->csum, &hc, sizeof(hc));
    h->ttl--;
}

/*
 * route_eth_rewrite: set the Ethernet addresses of a frame to be forwarded: source = our
 * egress port's MAC, destination = the next hop's. frame must hold at least 14 bytes (true of
 * every frame route_ipv4_check_and_decrement forwarded). Fast path, any core.
 */
static inline void route_eth_rewrite(uint8_t *frame, const uint8_t src_mac[6],
                                     const uint8_t dst_mac[6])
{
    /* __builtin_memcpy: -ffreestanding implies -fno-builtin, which would make each 6-byte copy
     * a call into newlib on the fast path; the builtin is a couple of moves. */
    struct inet_eth_hdr *eth = (struct inet_eth_hdr *)frame;
    __builtin_memcpy(eth->dst, dst_mac, INET_ETH_ADDR_BYTES);
    __builtin_memcpy(eth->src, src_mac, INET_ETH_ADDR_BYTES);
}

/* --- ICMP errors ----------------------------------------------------------------------------- */

/*
 * route_icmp_error: build in out (out_bytes long) a complete Ethernet frame carrying ICMP error
 * type/code about the received frame in_frame (in_len bytes), to be sent back out of the port
 * it arrived on: Ethernet to in_frame's source MAC from our_mac; IPv4 from our_ip (that port's
 * address) to the offending source; then the ICMP header and as much of the offending datagram
 * as keeps the ICMP datagram within 576 bytes (always at least its header + 8 bytes).
 *
 * Builds: type 11 (time exceeded) codes 0-1; type 3 (destination unreachable) codes 0-15 but 4
 * (fragmentation needed carries the next-hop MTU: route_icmp_frag_needed).
 *
 * Returns the frame length (never below the 60-byte Ethernet minimum: the smallest error is 62
 * bytes), or 0 when no error may be sent (RFC 1812 4.3.2.7 / RFC 1122 3.2.2: about an ICMP
 * error, a non-initial fragment, a source that is not one host, an IP or link-layer broadcast
 * or multicast; or a malformed datagram, or no room), each counted in st. out is meant to be a
 * separate buffer, but may also be in_frame itself (the error then replaces the frame).
 *
 * Rate limiting is the caller's: check route_ratelimit_allow first, so a flood of expiring
 * datagrams costs a compare each, not a 576-byte build.
 *
 * Context: the core that owns st; no allocation. Not the fast path (one checksum over the
 * message, up to 556 bytes).
 */
uint16_t route_icmp_error(uint8_t *out, uint16_t out_bytes, const uint8_t *in_frame,
                          uint16_t in_len, uint8_t type, uint8_t code, uint32_t our_ip,
                          const uint8_t our_mac[6], struct route_drop_stats *st);

/*
 * route_icmp_frag_needed: route_icmp_error's destination unreachable, fragmentation needed and
 * DF set (type 3 code 4) about in_frame, with the next-hop MTU mtu in the second half of the
 * word RFC 792 left unused (RFC 1191 section 4), so the source can lower its path MTU. Same
 * rules, suppressions and return as route_icmp_error.
 */
uint16_t route_icmp_frag_needed(uint8_t *out, uint16_t out_bytes, const uint8_t *in_frame,
                                uint16_t in_len, uint16_t mtu, uint32_t our_ip,
                                const uint8_t our_mac[6], struct route_drop_stats *st);

/* --- fragmentation (RFC 791 sections 2.3 and 3.2, RFC 1812 section 5.2.6) -------------------- */

/* The smallest MTU fragmentation works with: a 60-byte header and 8 bytes of data (RFC 791:
 * "every internet module must be able to forward a datagram of 68 octets without further
 * fragmentation"). */
#define ROUTE_MIN_MTU 68

/*
 * Walking a datagram's fragments: route_frag_init over a checked IPv4 frame (the router's
 * route_ipv4_check_and_decrement forwarded it: its header is valid, its TTL already lowered),
 * then route_frag_next for each fragment until it returns 0. The frame is only read.
 */
struct route_frag {
    const uint8_t *frame; /* Ethernet + IPv4, as received (padding beyond total length ignored) */
    uint16_t hlen;        /* the datagram's header length */
    uint16_t data_len;    /* its data: total length - hlen */
    uint16_t done;        /* data bytes already in fragments */
    uint16_t base_off;    /* the datagram's own fragment offset, in bytes (it may be a fragment) */
    uint16_t mtu;
    bool last_mf;         /* the datagram's own MF: the last fragment keeps it */
    uint8_t copied_hlen;  /* the header of later fragments: the fixed part and the options whose
                           * copied flag is set (RFC 791 3.1), padded to 32 bits */
    uint8_t copied[INET_IPV4_MAX_HDR_BYTES]; /* that header, but for its length/offset/checksum */
};

/* route_frag_init: prepare to cut the frame's datagram into fragments of at most mtu bytes
 * (68..65535). False if it cannot be cut: DF set, the options leave no 8 data bytes, it has
 * no data, or its own offset plus its data pass 65535 (no offset could say where they go). */
bool route_frag_init(struct route_frag *f, const uint8_t *frame, uint16_t mtu);

/* route_frag_next: build the next fragment as a whole Ethernet frame in out (out_bytes long:
 * 14 + mtu always suffices), Ethernet addresses and type copied from the datagram's frame.
 * Returns its length, padded to the 60-byte minimum, or 0 when every byte has gone. Data is cut
 * at multiples of 8 bytes, each fragment's offset and MF set, its checksum computed; the first
 * keeps every option, later ones the copied ones. */
uint16_t route_frag_next(struct route_frag *f, uint8_t *out, uint16_t out_bytes);

/* --- rate limiting (RFC 1812 section 4.3.2.8) ------------------------------------------------- */

/*
 * A token bucket kept in exact integer units: one token is 10^9 credit units and every elapsed
 * nanosecond adds rate_per_sec units, so the refill is one multiplication and the take a compare
 * and subtract, with no division and no rounding of the rate (a precomputed ns-per-token would
 * be off by up to 1 ns per token: 0.1% at 10^6/s). Elapsed time is first capped at the time
 * that refills an empty bucket (full_after_ns, the one division, done in route_ratelimit_init),
 * which keeps the product below 2^64 for any clock jump.
 * Per core, never shared: each core limits its own errors (the box sends at most cores x rate
 * per second, in bursts of at most cores x burst).
 */
struct route_ratelimit {
    uint64_t credit;        /* banked, 0..depth; 10^9 = one token */
    uint64_t last_ns;       /* clock at the previous call */
    uint64_t depth;         /* burst * 10^9: the bucket's size */
    uint64_t full_after_ns; /* depth / rate_per_sec rounded up: an empty bucket is full again */
    uint32_t rate_per_sec;  /* tokens added per second */
    uint32_t burst;         /* tokens the bucket holds */
};

/*
 * route_ratelimit_init: rate_per_sec tokens per second, at most burst banked; the bucket starts
 * full. rate_per_sec 0 or burst 0 refuses everything (errors disabled). Any values are safe:
 * burst * 10^9 < 2^64. Init time or slow path.
 */
void route_ratelimit_init(struct route_ratelimit *rl, uint32_t rate_per_sec, uint32_t burst,
                          uint64_t now_ns);

/*
 * route_ratelimit_allow: take one token if there is one. now_ns is a monotonic clock (the
 * core's TSC time); a clock that steps back credits nothing. Refusals are the caller's to count.
 * Fast path, the core that owns rl.
 */
bool route_ratelimit_allow(struct route_ratelimit *rl, uint64_t now_ns);

#endif
