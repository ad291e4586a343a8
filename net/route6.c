/*
 * net/route6.c: the IPv6 router's per-packet decisions: validation and hop-limit decrement of a
 * packet in transit (RFC 8200 sections 3-4, RFC 4291 sections 2.5.2-2.5.6 and 2.7) and ICMPv6
 * error construction (RFC 4443 sections 2.2-2.4, 3.1-3.4).
 *
 * Every read of packet content is preceded by a check that the bytes exist; every frame not
 * forwarded, and every ICMPv6 error not built, is one named counter (route6_drop_stats).
 */
#include <string.h>

#include "net/inet.h"
#include "net/inet6.h"
#include "net/route6.h"

#define ROUTE6_IP_OFFSET INET_ETH_HDR_BYTES
#define ROUTE6_ICMP_OFFSET (INET_ETH_HDR_BYTES + INET_IPV6_HDR_BYTES)

/* The smallest error quotes a bare 40-byte header: 62 + 40 = 102 bytes, so no frame this module
 * builds needs padding to the Ethernet minimum. */
_Static_assert(ROUTE6_ICMP_ERROR_HEADROOM_BYTES + INET_IPV6_HDR_BYTES >= INET_ETH_MIN_FRAME_BYTES,
               "ICMPv6 errors never need Ethernet padding");
_Static_assert(ROUTE6_ICMP_OFFSET + INET6_ICMP_HDR_BYTES == ROUTE6_ICMP_ERROR_HEADROOM_BYTES,
               "headroom is Ethernet + IPv6 + ICMPv6");
_Static_assert(ROUTE6_ICMP_ERROR_HEADROOM_BYTES + ROUTE6_ICMP_ERROR_MAX_QUOTE_BYTES ==
                   ROUTE6_ICMP_ERROR_MAX_FRAME_BYTES,
               "the largest quote fills the largest frame");

/* --- header validation (shared by forwarding and the ICMPv6 builder) ------------------------- */

/* Why the fixed header fails; forwarding maps each to its counter, the ICMPv6 builder counts
 * them all as icmp6_quote_malformed. */
enum route6_hdr_fault {
    ROUTE6_HDR_OK,
    ROUTE6_HDR_BAD_VERSION,
    ROUTE6_HDR_BAD_PAYLOAD_LENGTH,
};

/* Version 6 and a payload length within the frame (len: the whole frame, at least 54 bytes).
 * *pkt_len: 40 + payload length, the packet without any Ethernet padding. */
static enum route6_hdr_fault route6_ip6_check(const struct inet_ipv6_hdr *h, uint16_t len,
                                              uint16_t *pkt_len)
{
    if ((h->ver_tc_flow[0] >> 4) != 6) {
        return ROUTE6_HDR_BAD_VERSION;
    }
    unsigned payload = inet_load_be16(h->payload_len);
    if (payload > (unsigned)len - ROUTE6_IP_OFFSET - INET_IPV6_HDR_BYTES) {
        return ROUTE6_HDR_BAD_PAYLOAD_LENGTH;
    }
    *pkt_len = (uint16_t)(INET_IPV6_HDR_BYTES + payload); /* <= len - 14 */
    return ROUTE6_HDR_OK;
}

/* --- address classes (RFC 4291 section 2.4) -------------------------------------------------- */

enum route6_addr_class {
    ROUTE6_ADDR_UNICAST,     /* global, unique local, and whatever is not named below */
    ROUTE6_ADDR_MULTICAST,   /* ff00::/8 (2.7) */
    ROUTE6_ADDR_UNSPECIFIED, /* :: (2.5.2) */
    ROUTE6_ADDR_LOOPBACK,    /* ::1 (2.5.3) */
    ROUTE6_ADDR_V4_MAPPED,   /* ::ffff:0:0/96 (2.5.5.2) */
    ROUTE6_ADDR_LINK_LOCAL,  /* fe80::/10 (2.5.6) */
};

/* The first byte settles the common case: only 0x00, 0xfe and 0xff start a named class. */
static enum route6_addr_class route6_addr_class(const uint8_t *a)
{
    if (a[0] == 0x00) {
        if (inet6_is_unspecified(a)) {
            return ROUTE6_ADDR_UNSPECIFIED;
        }
        if (inet6_is_loopback(a)) {
            return ROUTE6_ADDR_LOOPBACK;
        }
        return inet6_is_v4_mapped(a) ? ROUTE6_ADDR_V4_MAPPED : ROUTE6_ADDR_UNICAST;
    }
    if (inet6_is_multicast(a)) {
        return ROUTE6_ADDR_MULTICAST;
    }
    return inet6_is_link_local(a) ? ROUTE6_ADDR_LINK_LOCAL : ROUTE6_ADDR_UNICAST;
}

/* A source that names one node an error could go to: unicast, or link-local (on the ingress
 * link, which is where the error goes). */
static bool route6_addr_answerable(const uint8_t *a)
{
    enum route6_addr_class c = route6_addr_class(a);
    return c == ROUTE6_ADDR_UNICAST || c == ROUTE6_ADDR_LINK_LOCAL;
}

/* --- forwarding ------------------------------------------------------------------------------ */

static enum route6_verdict route6_drop(uint64_t *reason)
{
    (*reason)++;
    return ROUTE6_DROP;
}

/* RFC 4291: no router forwards from or to multicast (as a source: 2.7), :: (2.5.2), ::1
 * (2.5.3), link-local (2.5.6); IPv4-mapped addresses are never on the wire (RFC 4038 4.2).
 * Multicast destinations are refused because this router does not route multicast. NULL =
 * forwardable. */
static uint64_t *route6_addr_drop_counter(struct route6_drop_stats *st, const uint8_t *src,
                                          const uint8_t *dst)
{
    switch (route6_addr_class(src)) {
    case ROUTE6_ADDR_MULTICAST:
        return &st->ip6_src_multicast;
    case ROUTE6_ADDR_UNSPECIFIED:
        return &st->ip6_src_unspecified;
    case ROUTE6_ADDR_LOOPBACK:
        return &st->ip6_src_loopback;
    case ROUTE6_ADDR_V4_MAPPED:
        return &st->ip6_src_v4_mapped;
    case ROUTE6_ADDR_LINK_LOCAL:
        return &st->ip6_src_link_local;
    case ROUTE6_ADDR_UNICAST:
        break;
    }
    switch (route6_addr_class(dst)) {
    case ROUTE6_ADDR_MULTICAST:
        return &st->ip6_dst_multicast;
    case ROUTE6_ADDR_UNSPECIFIED:
        return &st->ip6_dst_unspecified;
    case ROUTE6_ADDR_LOOPBACK:
        return &st->ip6_dst_loopback;
    case ROUTE6_ADDR_V4_MAPPED:
        return &st->ip6_dst_v4_mapped;
    case ROUTE6_ADDR_LINK_LOCAL:
        return &st->ip6_dst_link_local;
    case ROUTE6_ADDR_UNICAST:
        break;
    }
    return NULL;
}

static uint64_t *route6_walk_drop_counter(struct route6_drop_stats *st, enum inet6_walk_result r)
{
    switch (r) {
    case INET6_WALK_TRUNCATED:
        return &st->ip6_ext_truncated;
    case INET6_WALK_TOO_LONG:
        return &st->ip6_ext_too_long;
    case INET6_WALK_BAD:
        return &st->ip6_ext_bad;
    case INET6_WALK_OK:
    default:
        return NULL;
    }
}

enum route6_verdict route6_check_and_decrement(uint8_t *frame, uint16_t len,
                                               struct route6_drop_stats *st,
                                               const uint8_t **dst_out)
{
    if (len < ROUTE6_IP_OFFSET + INET_IPV6_HDR_BYTES) {
        return route6_drop(&st->ip6_truncated);
    }
    const struct inet_eth_hdr *eth = (const struct inet_eth_hdr *)frame;
    if (inet_load_be16(eth->type) != INET_ETHERTYPE_IPV6) {
        return route6_drop(&st->eth_not_ipv6);
    }
    /* A unicast packet in a link-layer group frame is not meant for a router to pass on (as
     * RFC 1812 5.3.4 says for IPv4), and a multicast one is not ours: no multicast routing. */
    if (inet_eth_is_group(eth->dst)) {
        return route6_drop(&st->ip6_eth_dst_group);
    }
    struct inet_ipv6_hdr *h = (struct inet_ipv6_hdr *)(frame + ROUTE6_IP_OFFSET);
    uint16_t pkt_len;
    switch (route6_ip6_check(h, len, &pkt_len)) {
    case ROUTE6_HDR_BAD_VERSION:
        return route6_drop(&st->ip6_bad_version);
    case ROUTE6_HDR_BAD_PAYLOAD_LENGTH:
        return route6_drop(&st->ip6_bad_payload_length);
    case ROUTE6_HDR_OK:
        break;
    }
    uint64_t *bad = route6_addr_drop_counter(st, h->src, h->dst);
    if (bad != NULL) {
        return route6_drop(bad);
    }
    /* The walk reads only the packet's bytes (not the padding) and stops after at most
     * INET6_MAX_EXT_HEADERS headers, so a hostile chain costs a bounded loop and one counter. */
    struct inet6_ext_walk w;
    bad = route6_walk_drop_counter(st, inet6_walk_ext((const uint8_t *)h, pkt_len, &w));
    if (bad != NULL) {
        return route6_drop(bad);
    }
    /* Last, so that an unforwardable packet with hop limit 1 is dropped silently rather than
     * answered with time exceeded. */
    if (h->hop_limit <= 1) {
        st->hop_limit_expired++;
        return ROUTE6_HOP_LIMIT_EXPIRED;
    }
    route6_hop_limit_decrement((uint8_t *)h);
    *dst_out = h->dst;
    return ROUTE6_FORWARD;
}

/* --- ICMPv6 errors -------------------------------------------------------------------------- */

/* The types and codes of RFC 4443 section 3 this module builds; a Packet Too Big MTU below the
 * IPv6 minimum names no real link (RFC 8200 section 5; RFC 8201 section 4 lets receivers
 * ignore it), so it is a caller bug too. */
static bool route6_icmp_type_supported(uint8_t type, uint8_t code, uint32_t param)
{
    switch (type) {
    case INET6_ICMP_DEST_UNREACH:
        return code <= 6; /* no route .. reject route (3.1) */
    case INET6_ICMP_PACKET_TOO_BIG:
        return code == 0 && param >= INET_IPV6_MIN_MTU;
    case INET6_ICMP_TIME_EXCEEDED:
        return code <= INET6_ICMP_CODE_REASSEMBLY;
    case INET6_ICMP_PARAM_PROBLEM:
        return code <= 2; /* erroneous field, unknown next header, unknown option (3.4) */
    default:
        return false;
    }
}

/* RFC 4443 2.4(e.3)-(e.5) exceptions: Packet Too Big (for multicast path MTU discovery) and
 * Parameter Problem code 2 (an option whose type asks for a report even to multicast, RFC 8200
 * 4.2) may answer multicast packets and link-layer group frames. */
static bool route6_icmp_may_answer_group(uint8_t type, uint8_t code)
{
    return type == INET6_ICMP_PACKET_TOO_BIG || (type == INET6_ICMP_PARAM_PROBLEM && code == 2);
}

/* ND (RFC 4861: Router Solicitation .. Redirect) is link-local traffic sent with hop limit 255
 * that no router passes on; RFC 4443 2.4(e.2) names Redirect, the rest are bogus in transit. */
static bool route6_icmp_is_nd(uint8_t type)
{
    return type >= INET6_ICMP_ROUTER_SOLICIT && type <= INET6_ICMP_REDIRECT;
}

/* 2.4(e.1)/(e.2): is the offending packet (walked: w) an ICMPv6 error or ND message, or one
 * that may be (too short to show a type, or a non-first fragment of what may be ICMPv6)? */
static bool route6_icmp_about_error(const uint8_t *ip6, uint16_t pkt_len,
                                    const struct inet6_ext_walk *w)
{
    if (w->later_fragment) {
        return w->proto == INET6_NH_ICMPV6 || inet6_is_ext_header(w->proto);
    }
    if (w->proto != INET6_NH_ICMPV6) {
        return false;
    }
    if (w->off >= pkt_len) {
        return true; /* no type byte: cannot tell, stay silent */
    }
    uint8_t t = ip6[w->off];
    return inet6_icmp_is_error(t) || route6_icmp_is_nd(t);
}

/*
 * RFC 4443 2.4(e)'s list of packets that must never provoke an error, after the offending frame
 * has been found to be a valid IPv6 packet at all (the whole fixed header within the frame, the
 * chain walkable: otherwise its upper layer, maybe an ICMPv6 error, cannot be seen). Returns
 * the counter to charge, NULL when an error may be sent; sets *pkt_len for the builder.
 */
static uint64_t *route6_icmp_suppression(struct route6_drop_stats *st, const uint8_t *in_frame,
                                         uint16_t in_len, uint8_t type, uint8_t code,
                                         uint16_t *pkt_len)
{
    if (in_len < ROUTE6_IP_OFFSET + INET_IPV6_HDR_BYTES) {
        return &st->icmp6_quote_malformed;
    }
    const struct inet_eth_hdr *eth = (const struct inet_eth_hdr *)in_frame;
    const uint8_t *ip6 = in_frame + ROUTE6_IP_OFFSET;
    const struct inet_ipv6_hdr *h = (const struct inet_ipv6_hdr *)ip6;
    struct inet6_ext_walk w;
    if (inet_load_be16(eth->type) != INET_ETHERTYPE_IPV6 ||
        route6_ip6_check(h, in_len, pkt_len) != ROUTE6_HDR_OK ||
        inet6_walk_ext(ip6, *pkt_len, &w) != INET6_WALK_OK) {
        return &st->icmp6_quote_malformed;
    }
    /* IEEE 802.3 sources are individual; the error would go to a group */
    if (inet_eth_is_group(eth->src)) {
        return &st->icmp6_l2_src_group;
    }
    if (!route6_icmp_may_answer_group(type, code) &&
        (inet6_is_multicast(h->dst) || inet_eth_is_group(eth->dst))) {
        return &st->icmp6_dst_multicast;
    }
    if (!route6_addr_answerable(h->src)) {
        return &st->icmp6_src_not_unicast;
    }
    if (route6_icmp_about_error(ip6, *pkt_len, &w)) {
        return &st->icmp6_about_error;
    }
    return NULL;
}

/*
 * Lay out the error in out. Everything needed from in_frame (and our_src, which the caller may
 * have taken from a buffer we overwrite) is copied first and the quote is moved with memmove, so
 * out may overlap in_frame, or be it. The quote is the packet as received from its IPv6 header
 * on, with forwarding's own change if any (a hop limit already decremented).
 */
static uint16_t route6_icmp_build(uint8_t *out, const uint8_t *in_frame, uint16_t quote_len,
                                  uint8_t type, uint8_t code, uint32_t word,
                                  const uint8_t *our_src, const uint8_t *our_mac)
{
    const struct inet_eth_hdr *in_eth = (const struct inet_eth_hdr *)in_frame;
    const struct inet_ipv6_hdr *in_ip =
        (const struct inet_ipv6_hdr *)(in_frame + ROUTE6_IP_OFFSET);
    uint8_t peer_mac[INET_ETH_ADDR_BYTES], peer_ip[INET6_ADDR_BYTES], src[INET6_ADDR_BYTES];
    uint8_t mac[INET_ETH_ADDR_BYTES];
    __builtin_memcpy(peer_mac, in_eth->src, sizeof(peer_mac));
    __builtin_memcpy(peer_ip, in_ip->src, sizeof(peer_ip));
    __builtin_memcpy(src, our_src, sizeof(src));
    __builtin_memcpy(mac, our_mac, sizeof(mac));

    memmove(out + ROUTE6_ICMP_ERROR_HEADROOM_BYTES, in_frame + ROUTE6_IP_OFFSET, quote_len);

    uint8_t *ip6 = out + ROUTE6_IP_OFFSET;
    uint16_t icmp_len = (uint16_t)(INET6_ICMP_HDR_BYTES + quote_len);
    inet_ipv6_header(ip6, icmp_len, INET6_NH_ICMPV6, ROUTE6_ICMP_ERROR_HOP_LIMIT, src, peer_ip);

    /* RFC 4443 3.1-3.4: type, code, checksum, then the MTU, the pointer or 32 unused bits. The
     * checksum covers the pseudo-header (RFC 4443 2.3, RFC 8200 8.1) of the header just
     * written. */
    uint8_t *icmp = out + ROUTE6_ICMP_OFFSET;
    icmp[0] = type;
    icmp[1] = code;
    icmp[2] = 0;
    icmp[3] = 0;
    inet_store_be32(icmp + 4, word);
    inet_store_be16(icmp + 2, inet6_upper_csum(ip6, icmp, icmp_len, INET6_NH_ICMPV6));

    /* Back to the previous hop on the ingress port: the source itself when it is on the link,
     * else the router that handed us the packet, which routes the error on. This spares a
     * route and neighbour lookup; with asymmetric routing the error takes one extra hop. */
    struct inet_eth_hdr *eth = (struct inet_eth_hdr *)out;
    __builtin_memcpy(eth->dst, peer_mac, INET_ETH_ADDR_BYTES);
    __builtin_memcpy(eth->src, mac, INET_ETH_ADDR_BYTES);
    inet_store_be16(eth->type, INET_ETHERTYPE_IPV6);
    return (uint16_t)(ROUTE6_ICMP_ERROR_HEADROOM_BYTES + quote_len);
}

static uint16_t route6_suppress(uint64_t *reason)
{
    (*reason)++;
    return 0;
}

uint16_t route6_icmp_error(uint8_t *out, uint16_t out_bytes, const uint8_t *in_frame,
                           uint16_t in_len, uint8_t type, uint8_t code, uint32_t param,
                           const uint8_t our_src[INET6_ADDR_BYTES],
                           const uint8_t our_mac[INET_ETH_ADDR_BYTES],
                           struct route6_drop_stats *st)
{
    if (!route6_icmp_type_supported(type, code, param)) {
        return route6_suppress(&st->icmp6_unsupported_type);
    }
    /* RFC 4443 2.2: the source is a unicast address of the node (of the ingress interface). */
    if (!route6_addr_answerable(our_src)) {
        return route6_suppress(&st->icmp6_no_source_address);
    }
    uint16_t pkt_len;
    uint64_t *suppressed = route6_icmp_suppression(st, in_frame, in_len, type, code, &pkt_len);
    if (suppressed != NULL) {
        return route6_suppress(suppressed);
    }
    /* RFC 4443 2.4(c): as much as fits in 1280 bytes of IPv6; a smaller buffer bounds it, but
     * not below the offending header and 8 bytes (its ports, for most upper layers). */
    uint32_t min_quote = pkt_len < ROUTE6_ICMP_ERROR_MIN_QUOTE_BYTES
                             ? pkt_len
                             : ROUTE6_ICMP_ERROR_MIN_QUOTE_BYTES;
    if (out_bytes < ROUTE6_ICMP_ERROR_HEADROOM_BYTES + min_quote) {
        return route6_suppress(&st->icmp6_no_room);
    }
    uint32_t quote = pkt_len;
    if (quote > ROUTE6_ICMP_ERROR_MAX_QUOTE_BYTES) {
        quote = ROUTE6_ICMP_ERROR_MAX_QUOTE_BYTES;
    }
    uint32_t room = (uint32_t)out_bytes - ROUTE6_ICMP_ERROR_HEADROOM_BYTES; /* checked above */
    if (quote > room) {
        quote = room;
    }
    uint32_t word =
        type == INET6_ICMP_PACKET_TOO_BIG || type == INET6_ICMP_PARAM_PROBLEM ? param : 0;
    return route6_icmp_build(out, in_frame, (uint16_t)quote, type, code, word, our_src,
                             our_mac);
}

/* --- counters -------------------------------------------------------------------------------- */

const struct net_counter_desc route6_drop_counters[] = {
#define ROUTE6_DROP_DESC(name, why) { #name, why, offsetof(struct route6_drop_stats, name) },
    ROUTE6_DROP_REASONS(ROUTE6_DROP_DESC)
#undef ROUTE6_DROP_DESC
};
const size_t route6_drop_counter_count =
    sizeof(route6_drop_counters) / sizeof(route6_drop_counters[0]);

#define ROUTE6_COUNT_ONE(name, why) +1
const size_t route6_frame_drop_counter_count = 0 ROUTE6_FRAME_DROPS(ROUTE6_COUNT_ONE);

_Static_assert(sizeof(route6_drop_counters) / sizeof(route6_drop_counters[0]) *
                       sizeof(uint64_t) ==
                   sizeof(struct route6_drop_stats),
               "every route6 counter has a name");
_Static_assert(0 ROUTE6_FRAME_DROPS(ROUTE6_COUNT_ONE) +
                       0 ROUTE6_ICMP_SUPPRESSIONS(ROUTE6_COUNT_ONE) ==
                   sizeof(route6_drop_counters) / sizeof(route6_drop_counters[0]),
               "frame drops and ICMPv6 suppressions partition the counters");
#undef ROUTE6_COUNT_ONE

uint64_t route6_frame_drops_total(const struct route6_drop_stats *st)
{
    return net_counters_sum(st, route6_drop_counters, route6_frame_drop_counter_count);
}
