/*
 * net/local6.c: the appliance's own-address input path for IPv6: Ethernet classification
 * (RFC 2464), IPv6 header and extension-header checks (RFC 8200 sections 3, 4), neighbour
 * discovery (RFC 4861 sections 7.1, 7.2) and ICMPv6 echo (RFC 4443 section 4), answered in place
 * in the receive buffer; router solicitations (6.1.1) checked and reported for net/ra6.
 *
 * Every read of packet content is preceded by a check that the bytes exist; every rejection is
 * one named counter (net_drop6_stats) and the verdict NET_DROP.
 */
#include <string.h>

#include "net/inet6.h"
#include "net/local6.h"

/* A neighbour advertisement or solicitation as we send them: the 24-byte message and one
 * link-layer address option (RFC 4861 4.3, 4.4, 4.6.1). */
#define LOCAL6_ND_MSG_BYTES (INET6_ND_NS_NA_BYTES + INET6_ND_OPT_LLADDR_BYTES)          /* 32 */
#define LOCAL6_ND_FRAME_BYTES (INET_ETH_HDR_BYTES + INET_IPV6_HDR_BYTES + LOCAL6_ND_MSG_BYTES)
/* a solicitation from :: carries no option: 78 */
#define LOCAL6_DAD_FRAME_BYTES (INET_ETH_HDR_BYTES + INET_IPV6_HDR_BYTES + INET6_ND_NS_NA_BYTES)

/* Every frame we send is longer than the Ethernet minimum, so none needs padding: the shortest,
 * an echo reply without data, is 14 + 40 + 8 bytes. */
_Static_assert(INET_ETH_HDR_BYTES + INET_IPV6_HDR_BYTES + INET6_ICMP_HDR_BYTES >=
                   INET_ETH_MIN_FRAME_BYTES,
               "IPv6 replies need no padding");

static const uint8_t local6_all_nodes[INET6_ADDR_BYTES] = { 0xff, 0x02, [15] = 0x01 };
static const uint8_t local6_all_routers[INET6_ADDR_BYTES] = { 0xff, 0x02, [15] = 0x02 };

/* Everything one call needs, to keep the per-message helpers' parameter lists short. */
struct local6_ctx {
    const struct net_iface6 *ifc;
    uint8_t *frame;
    uint16_t len;
    uint16_t buf_bytes;
    uint16_t *out_len;
    struct net_local6_stats *st;
    struct net6_learn *learn;
    uint8_t *ip6;     /* frame + 14 */
    uint32_t ip6_len; /* 40 + payload length: the datagram, without Ethernet padding */
};

static enum net_verdict local6_drop(uint64_t *reason)
{
    (*reason)++;
    return NET_DROP;
}

static const struct inet_ipv6_hdr *local6_hdr(const struct local6_ctx *c)
{
    return (const struct inet_ipv6_hdr *)c->ip6;
}

/* --- addresses -------------------------------------------------------------------------------- */

/* local6_is_mine: one of this interface's own addresses (what NS is answered for). :: never
 * is, whatever an unset field holds. */
static bool local6_is_mine(const struct net_iface6 *ifc, const uint8_t *a)
{
    if (inet6_is_unspecified(a)) {
        return false;
    }
    return inet6_eq(a, ifc->link_local) || (ifc->has_global && inet6_eq(a, ifc->global));
}

/* local6_is_ours: any unicast address answered here at the IP level (also_ours included). */
static bool local6_is_ours(const struct net_iface6 *ifc, const uint8_t *a)
{
    if (local6_is_mine(ifc, a)) {
        return true;
    }
    for (unsigned i = 0; i < ifc->n_also_ours && i < NET_IFACE6_MAX_ALSO_OURS; i++) {
        if (!inet6_is_unspecified(a) && inet6_eq(a, ifc->also_ours[i])) {
            return true;
        }
    }
    return false;
}

/* The groups a router's interface is in (RFC 4291 2.8): all-nodes, all-routers, and the
 * solicited-node group of each of its addresses. */
static bool local6_in_group(const struct net_iface6 *ifc, const uint8_t *g)
{
    if (inet6_eq(g, local6_all_nodes) || inet6_eq(g, local6_all_routers)) {
        return true;
    }
    if (!inet6_is_unspecified(ifc->link_local) && inet6_is_solicited_node_of(g, ifc->link_local)) {
        return true;
    }
    return ifc->has_global && !inet6_is_unspecified(ifc->global) &&
           inet6_is_solicited_node_of(g, ifc->global);
}

/* ff02::1:ff00:0/104, anyone's solicited-node group (RFC 4291 2.7.1). */
static bool local6_is_solicited_node(const uint8_t *a)
{
    static const uint8_t prefix[13] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };
    return memcmp(a, prefix, sizeof(prefix)) == 0;
}

/* The source checks of a datagram we would answer or forward: :: names no one to answer
 * (RFC 4291 2.5.2: nor may a router forward it), and our own address on the wire is a loop, a
 * spoof or a duplicate. The counter to bump, or NULL. */
static uint64_t *local6_src_unusable(const struct local6_ctx *c)
{
    const uint8_t *src = local6_hdr(c)->src;
    if (inet6_is_unspecified(src)) {
        return &c->st->drop.ip6_src_unspecified;
    }
    if (local6_is_ours(c->ifc, src)) {
        return &c->st->drop.ip6_src_is_ours;
    }
    return NULL;
}

/* --- replies ---------------------------------------------------------------------------------- */

static void local6_eth_header(uint8_t *f, const uint8_t *dst, const uint8_t *src)
{
    memmove(f, dst, INET_ETH_ADDR_BYTES); /* dst may be the frame's own source field */
    memcpy(f + INET_ETH_ADDR_BYTES, src, INET_ETH_ADDR_BYTES);
    inet_store_be16(f + 2 * INET_ETH_ADDR_BYTES, INET_ETHERTYPE_IPV6);
}

/* local6_nd_build: a whole NS or NA frame at f: the message (RFC 4861 4.3 / 4.4: flags in the
 * first byte of the reserved word) with one link-layer address option of type opt_type carrying
 * our MAC (opt_type 0: none, as a solicitation from :: must be, 4.3), hop limit 255, checksum.
 * No argument may point into f. Returns its length. */
static uint16_t local6_nd_build(uint8_t *f, const struct net_iface6 *ifc,
                                const uint8_t *eth_dst, const uint8_t *src, const uint8_t *dst,
                                uint8_t type, uint8_t flags, const uint8_t *target,
                                uint8_t opt_type)
{
    uint8_t *ip6 = f + INET_ETH_HDR_BYTES;
    uint8_t *msg = ip6 + INET_IPV6_HDR_BYTES;
    uint16_t msg_bytes = opt_type != 0 ? LOCAL6_ND_MSG_BYTES : INET6_ND_NS_NA_BYTES;
    memset(msg, 0, INET6_ND_NS_NA_BYTES);
    msg[0] = type;
    msg[4] = flags;
    memcpy(msg + INET6_ICMP_HDR_BYTES, target, INET6_ADDR_BYTES);
    if (opt_type != 0) {
        uint8_t *opt = msg + INET6_ND_NS_NA_BYTES;
        opt[0] = opt_type;
        opt[1] = INET6_ND_OPT_LLADDR_BYTES / 8;
        memcpy(opt + 2, ifc->mac, INET_ETH_ADDR_BYTES);
    }
    inet_ipv6_header(ip6, msg_bytes, INET6_NH_ICMPV6, INET_IPV6_ND_HOP_LIMIT, src, dst);
    inet_store_be16(msg + 2, inet6_upper_csum(ip6, msg, msg_bytes, INET6_NH_ICMPV6));
    local6_eth_header(f, eth_dst, ifc->mac);
    return (uint16_t)(INET_ETH_HDR_BYTES + INET_IPV6_HDR_BYTES + msg_bytes);
}

static enum net_verdict local6_reply(struct local6_ctx *c, uint16_t reply_len, uint64_t *counter)
{
    (*counter)++;
    *c->out_len = reply_len;
    return NET_REPLY;
}

/* --- neighbour discovery (RFC 4861) ----------------------------------------------------------- */

/* The checks NS (7.1.1) and NA (7.1.2) share, but for the options. Counter or NULL. */
static uint64_t *local6_nd_invalid(const struct local6_ctx *c, const uint8_t *msg,
                                   uint32_t mlen)
{
    struct net_drop6_stats *d = &c->st->drop;
    /* 255 on arrival proves the sender is on this link: no router forwarded it. */
    if (local6_hdr(c)->hop_limit != INET_IPV6_ND_HOP_LIMIT) {
        return &d->nd_bad_hop_limit;
    }
    if (msg[1] != 0) {
        return &d->nd_bad_code;
    }
    if (mlen < INET6_ND_NS_NA_BYTES) {
        return &d->nd_truncated;
    }
    if (inet6_is_multicast(msg + INET6_ICMP_HDR_BYTES)) {
        return &d->nd_target_multicast;
    }
    return NULL;
}

/* Walk the options after the message's first bytes (4.6): each at least 8 bytes (length > 0)
 * and within the message, or the whole message is invalid (6.1.1, 7.1.1, 7.1.2). *mac: the first
 * option of type want, which on Ethernet must be 8 bytes (RFC 2464 section 6) naming one
 * station, else NULL. Other options are skipped, as 4.6 tells receivers. Counter or NULL. */
static uint64_t *local6_nd_options(const struct local6_ctx *c, const uint8_t *msg, uint32_t mlen,
                                   uint32_t first, uint8_t want, const uint8_t **mac)
{
    bool bad_lladdr = false;
    *mac = NULL;
    for (uint32_t i = first; i < mlen;) {
        if (mlen - i < 2 || msg[i + 1] == 0 || msg[i + 1] * 8u > mlen - i) {
            return &c->st->drop.nd_bad_option;
        }
        uint32_t n = msg[i + 1] * 8u;
        if (msg[i] == want && *mac == NULL && !bad_lladdr) {
            const uint8_t *m = msg + i + 2;
            if (n != INET6_ND_OPT_LLADDR_BYTES || inet_eth_is_group(m) || inet_eth_is_zero(m)) {
                bad_lladdr = true;
            } else {
                *mac = m;
            }
        }
        i += n;
    }
    return bad_lladdr ? &c->st->drop.nd_bad_lladdr : NULL;
}

static void local6_learn(struct local6_ctx *c, const uint8_t *ip, const uint8_t *mac,
                         bool from_na, uint8_t flags)
{
    struct net6_learn *l = c->learn;
    l->valid = true;
    memcpy(l->ip, ip, INET6_ADDR_BYTES);
    l->confirm_only = mac == NULL;
    if (mac != NULL) {
        memcpy(l->mac, mac, INET_ETH_ADDR_BYTES);
    }
    l->from_na = from_na;
    l->solicited = (flags & INET6_NA_FLAG_SOLICITED) != 0;
    l->override_flag = (flags & INET6_NA_FLAG_OVERRIDE) != 0;
    l->router = (flags & INET6_NA_FLAG_ROUTER) != 0;
}

/*
 * A neighbour solicitation (7.1.1 validation, 7.2.3 receipt, 7.2.4 the advertisement). From ::
 * it is another node's duplicate address detection (RFC 4862 5.4.3): the advertisement goes to
 * all-nodes without the Solicited flag, and that defends our address. We are a router, so R;
 * our addresses are neither anycast nor proxied, so O. We answer for our addresses as if they
 * were all preferred: this module runs no DAD of its own.
 */
static enum net_verdict local6_ns_input(struct local6_ctx *c, const uint8_t *msg, uint32_t mlen)
{
    struct net_drop6_stats *d = &c->st->drop;
    const struct inet_ipv6_hdr *h = local6_hdr(c);
    const uint8_t *slla = NULL;
    uint64_t *bad = local6_nd_invalid(c, msg, mlen);
    if (bad == NULL) {
        bad = local6_nd_options(c, msg, mlen, INET6_ND_NS_NA_BYTES, INET6_ND_OPT_SOURCE_LLADDR,
                                &slla);
    }
    if (bad != NULL) {
        return local6_drop(bad);
    }
    bool dad = inet6_is_unspecified(h->src);
    if (dad && (!local6_is_solicited_node(h->dst) || slla != NULL)) {
        return local6_drop(&d->ns_dad_malformed);
    }
    if (!dad && local6_is_ours(c->ifc, h->src)) {
        return local6_drop(&d->ip6_src_is_ours);
    }
    const uint8_t *target = msg + INET6_ICMP_HDR_BYTES;
    if (!local6_is_mine(c->ifc, target)) {
        return local6_drop(&d->ns_not_for_us); /* 7.2.3: discarded, nothing learned */
    }
    /* Only a solicitation without a source link-layer option (from :: or unicast) can be
     * shorter than its advertisement: what would teach always fits. */
    if (c->buf_bytes < LOCAL6_ND_FRAME_BYTES) {
        return local6_drop(&d->reply_no_room);
    }
    if (slla != NULL) { /* never with dad (checked above) */
        local6_learn(c, h->src, slla, false, 0);
        c->st->ns_learned++;
    }
    /* The reply overwrites the request: take what it needs first. */
    uint8_t tgt[INET6_ADDR_BYTES], to[INET6_ADDR_BYTES], eth_to[INET_ETH_ADDR_BYTES];
    memcpy(tgt, target, sizeof(tgt));
    if (dad) {
        memcpy(to, local6_all_nodes, sizeof(to));
        inet6_multicast_mac(eth_to, to);
    } else {
        memcpy(to, h->src, sizeof(to));
        memcpy(eth_to, c->frame + INET_ETH_ADDR_BYTES, sizeof(eth_to));
    }
    uint8_t flags = INET6_NA_FLAG_ROUTER | INET6_NA_FLAG_OVERRIDE;
    if (!dad) {
        flags |= INET6_NA_FLAG_SOLICITED;
    }
    uint16_t n = local6_nd_build(c->frame, c->ifc, eth_to, tgt, to, INET6_ICMP_NEIGHBOR_ADVERT,
                                 flags, tgt, INET6_ND_OPT_TARGET_LLADDR);
    return local6_reply(c, n, &c->st->ns_answered);
}

/* local6_claim: report another node's advertisement for our address (RFC 4862 5.4.4) with
 * the claimant's MAC: its target link-layer option, or else the frame's Ethernet source. */
static void local6_claim(struct local6_ctx *c, const uint8_t *ours, const uint8_t *tlla)
{
    struct net6_learn *l = c->learn;
    l->claims_ours = true;
    memcpy(l->ip, ours, INET6_ADDR_BYTES);
    memcpy(l->mac, tlla != NULL ? tlla : c->frame + INET_ETH_ADDR_BYTES, INET_ETH_ADDR_BYTES);
}

/* A neighbour advertisement (7.1.2 validation): reported for the caller's cache, which applies
 * 7.2.5 (and ignores it when it holds no entry). An advertisement for our own address is
 * another node claiming it: counted, never learned (we do not give the address up). */
static enum net_verdict local6_na_input(struct local6_ctx *c, const uint8_t *msg, uint32_t mlen)
{
    struct net_drop6_stats *d = &c->st->drop;
    const struct inet_ipv6_hdr *h = local6_hdr(c);
    const uint8_t *tlla = NULL;
    uint64_t *bad = local6_nd_invalid(c, msg, mlen);
    if (bad == NULL) {
        bad = local6_nd_options(c, msg, mlen, INET6_ND_NS_NA_BYTES, INET6_ND_OPT_TARGET_LLADDR,
                                &tlla);
    }
    if (bad != NULL) {
        return local6_drop(bad);
    }
    uint8_t flags = msg[4];
    if (inet6_is_multicast(h->dst) && (flags & INET6_NA_FLAG_SOLICITED)) {
        return local6_drop(&d->na_solicited_multicast);
    }
    const uint8_t *target = msg + INET6_ICMP_HDR_BYTES;
    if (local6_is_ours(c->ifc, target)) {
        local6_claim(c, target, tlla);
        return local6_drop(&d->dad_conflict);
    }
    /* RFC 4291 2.5.2, 2.5.3, 2.5.5.2: addresses no neighbour on a link can have; learning
     * them would only fill the cache. */
    if (inet6_is_unspecified(target) || inet6_is_loopback(target) || inet6_is_v4_mapped(target)) {
        return local6_drop(&d->na_target_not_unicast);
    }
    bad = local6_src_unusable(c); /* 4.4: the source is the advertiser's own address */
    if (bad != NULL) {
        return local6_drop(bad);
    }
    /* A solicited advertisement may leave the option out when it answers a unicast probe
     * (4.4; Linux does): it still confirms the entry the probe was for (7.2.5). */
    if (tlla == NULL && !(flags & INET6_NA_FLAG_SOLICITED)) {
        return local6_drop(&d->na_no_lladdr);
    }
    local6_learn(c, target, tlla, true, flags);
    c->st->na_learned++;
    return NET_CONSUMED;
}

/*
 * A router solicitation (RFC 4861 6.1.1 validation). A router whose interface does not advertise
 * has nothing to answer with (6.2.6 is an advertising interface's duty): dropped first. Else it
 * is reported for net/ra6, which sends the multicast answer on its own schedule (6.2.6), and its
 * sender's link-layer address, if it gave one from a specified source, for the cache as an NS's
 * is (6.2.6: SHOULD, entry STALE). The message is 8 bytes (the ICMPv6 check saw them) and its
 * reserved word is ignored (4.1).
 */
static enum net_verdict local6_rs_input(struct local6_ctx *c, const uint8_t *msg, uint32_t mlen)
{
    struct net_drop6_stats *d = &c->st->drop;
    const struct inet_ipv6_hdr *h = local6_hdr(c);
    if (!c->ifc->advertise) {
        return local6_drop(&d->ra_rs_ignored);
    }
    if (h->hop_limit != INET_IPV6_ND_HOP_LIMIT) {
        return local6_drop(&d->nd_bad_hop_limit);
    }
    if (msg[1] != 0) {
        return local6_drop(&d->nd_bad_code);
    }
    const uint8_t *slla = NULL;
    uint64_t *bad = local6_nd_options(c, msg, mlen, INET6_ND_RS_BYTES, INET6_ND_OPT_SOURCE_LLADDR,
                                      &slla);
    if (bad != NULL) {
        return local6_drop(bad);
    }
    bool unspecified = inet6_is_unspecified(h->src);
    if (unspecified && slla != NULL) {
        return local6_drop(&d->rs_unspecified_slla);
    }
    if (!unspecified && local6_is_ours(c->ifc, h->src)) {
        return local6_drop(&d->ip6_src_is_ours);
    }
    if (slla != NULL) {
        local6_learn(c, h->src, slla, false, 0);
        c->st->rs_learned++;
    }
    c->learn->router_solicited = true;
    c->st->rs_reported++;
    return NET_CONSUMED;
}

/* --- ICMPv6 echo (RFC 4443 4.1, 4.2) ---------------------------------------------------------- */

/*
 * The reply reuses the request's buffer: a fresh 40-byte header (extension headers are not
 * returned; the message moves up over them), from the very address the request was sent to
 * (4.2), the data returned entire. Swapping source and destination leaves the pseudo-header's
 * sum unchanged and the length is the same, so the checksum is updated for the one word that
 * changes (type 128 -> 129, RFC 1624), not recomputed over up to 1452 bytes. The pseudo-header
 * holds the non-zero next header, so no sum is +0 and RFC 1624's -0/+0 corner cannot arise.
 * DSCP is kept; ECN is cleared (ICMPv6 is no ECN-capable transport, RFC 3168 section 5).
 */
static enum net_verdict local6_echo_reply(struct local6_ctx *c, uint8_t *msg, uint32_t mlen)
{
    uint8_t requester[INET6_ADDR_BYTES], responder[INET6_ADDR_BYTES];
    memcpy(requester, local6_hdr(c)->src, sizeof(requester));
    memcpy(responder, local6_hdr(c)->dst, sizeof(responder));
    uint32_t dscp = (inet_load_be32(c->ip6) >> 20) & 0xfc;

    uint16_t csum = inet_csum_update16(inet_load_be16(msg + 2), INET6_ICMP_ECHO_REQUEST << 8,
                                       INET6_ICMP_ECHO_REPLY << 8);
    msg[0] = INET6_ICMP_ECHO_REPLY;
    inet_store_be16(msg + 2, csum);
    memmove(c->ip6 + INET_IPV6_HDR_BYTES, msg, mlen); /* a no-op without extension headers */
    inet_ipv6_header(c->ip6, (uint16_t)mlen, INET6_NH_ICMPV6, INET_IPV6_DEFAULT_HOP_LIMIT,
                     responder, requester);
    inet_store_be32(c->ip6, 6u << 28 | dscp << 20);
    local6_eth_header(c->frame, c->frame + INET_ETH_ADDR_BYTES, c->ifc->mac);
    /* No larger than the request (len <= buf_bytes): it always fits. */
    uint32_t reply_len = INET_ETH_HDR_BYTES + INET_IPV6_HDR_BYTES + mlen;
    return local6_reply(c, (uint16_t)reply_len, &c->st->echo6_answered);
}

static enum net_verdict local6_echo_input(struct local6_ctx *c, uint8_t *msg, uint32_t mlen)
{
    struct net_drop6_stats *d = &c->st->drop;
    if (msg[1] != 0) {
        return local6_drop(&d->echo6_bad_code);
    }
    /* 4.2 allows answering a multicast echo; not doing so keeps us out of amplification. */
    if (inet6_is_multicast(local6_hdr(c)->dst)) {
        return local6_drop(&d->echo_multicast);
    }
    uint64_t *bad = local6_src_unusable(c);
    if (bad != NULL) {
        return local6_drop(bad);
    }
    return local6_echo_reply(c, msg, mlen);
}

/* --- ICMPv6 (RFC 4443 2.3, 2.4) --------------------------------------------------------------- */

static enum net_verdict local6_icmp_input(struct local6_ctx *c, uint16_t off)
{
    struct net_drop6_stats *d = &c->st->drop;
    uint8_t *msg = c->ip6 + off;
    uint32_t mlen = c->ip6_len - off; /* off <= ip6_len: the walk checked it */

    if (mlen < INET6_ICMP_HDR_BYTES) {
        return local6_drop(&d->icmp6_truncated);
    }
    if (inet6_upper_csum(c->ip6, msg, mlen, INET6_NH_ICMPV6) != 0) {
        return local6_drop(&d->icmp6_bad_checksum);
    }
    if (inet6_icmp_is_error(msg[0])) {
        return local6_drop(&d->icmp6_error_received); /* nothing of ours to tell about it yet */
    }
    switch (msg[0]) {
    case INET6_ICMP_ECHO_REQUEST:
        return local6_echo_input(c, msg, mlen);
    case INET6_ICMP_NEIGHBOR_SOLICIT:
        return local6_ns_input(c, msg, mlen);
    case INET6_ICMP_NEIGHBOR_ADVERT:
        return local6_na_input(c, msg, mlen);
    case INET6_ICMP_ECHO_REPLY:
        return local6_drop(&d->echo_reply_ignored);
    case INET6_ICMP_MLD_QUERY:
    case INET6_ICMP_MLD_REPORT:
    case INET6_ICMP_MLD_DONE:
    case INET6_ICMP_MLDV2_REPORT:
        return local6_drop(&d->mld_ignored);
    case INET6_ICMP_ROUTER_SOLICIT:
        return local6_rs_input(c, msg, mlen);
    case INET6_ICMP_ROUTER_ADVERT: /* 6.2.7's consistency checks are a MAY: not made */
        return local6_drop(&d->ra_rs_ignored);
    case INET6_ICMP_REDIRECT:
        return local6_drop(&d->redirect_ignored);
    default:
        return local6_drop(&d->icmp6_unknown_type);
    }
}

/* --- extension headers (RFC 8200 section 4) --------------------------------------------------- */

/* The options of a Hop-by-Hop or Destination Options header (4.2), n bytes at p: a TLV that
 * runs past the header spoils the datagram; an option whose top two type bits are not 00 says
 * "discard me if you do not know me", and we know none such (Jumbo Payload, RFC 2675, is never
 * valid on Ethernet). Pad1, PadN, Router Alert and other 00-options are skipped. */
static uint64_t *local6_options_bad(const struct local6_ctx *c, const uint8_t *p, uint32_t n)
{
    for (uint32_t i = 0; i < n;) {
        if (p[i] == 0) { /* Pad1: a single byte, no length */
            i++;
            continue;
        }
        if (n - i < 2 || p[i + 1] > n - i - 2) {
            return &c->st->drop.ip6_ext_bad;
        }
        if ((p[i] & 0xc0) != 0) {
            return &c->st->drop.ip6_ext_unprocessable;
        }
        i += 2u + p[i + 1];
    }
    return NULL;
}

/*
 * What inet6_walk_ext stepped over (bounds already checked), as a destination must act on it:
 * options as above; a Routing header with Segments Left 0 is ignored, one with more names us an
 * intermediate hop of a type we implement none of (4.4: discard). AH (we verify no IPsec),
 * Mobility, HIP and Shim6 headers mean protocols we do not run. Fragments were dropped before.
 */
static uint64_t *local6_ext_unusable(const struct local6_ctx *c, const struct inet6_ext_walk *w)
{
    uint8_t nh = local6_hdr(c)->next;
    for (uint32_t off = INET_IPV6_HDR_BYTES; off < w->off;) {
        const uint8_t *h = c->ip6 + off;
        uint32_t n = ((uint32_t)h[1] + 1) * 8; /* walked: off + n <= ip6_len */
        uint64_t *bad = NULL;
        switch (nh) {
        case INET6_NH_HOP_BY_HOP:
        case INET6_NH_DEST_OPTS:
            bad = local6_options_bad(c, h + 2, n - 2);
            break;
        case INET6_NH_ROUTING:
            bad = h[3] != 0 ? &c->st->drop.ip6_ext_unprocessable : NULL;
            break;
        default:
            bad = &c->st->drop.ip6_ext_unprocessable;
            break;
        }
        if (bad != NULL) {
            return bad;
        }
        nh = h[0];
        off += n;
    }
    return NULL;
}

/* A datagram to one of our addresses or groups: the chain, then the upper layer. */
static enum net_verdict local6_deliver(struct local6_ctx *c)
{
    struct net_drop6_stats *d = &c->st->drop;
    struct inet6_ext_walk w;

    switch (inet6_walk_ext(c->ip6, c->ip6_len, &w)) {
    case INET6_WALK_OK:
        break;
    case INET6_WALK_TRUNCATED:
        return local6_drop(&d->ip6_ext_truncated);
    case INET6_WALK_TOO_LONG:
        return local6_drop(&d->ip6_ext_too_long);
    default:
        return local6_drop(&d->ip6_ext_bad);
    }
    if (w.fragment) {
        return local6_drop(&d->ip6_fragment);
    }
    uint64_t *bad = local6_ext_unusable(c, &w);
    if (bad != NULL) {
        return local6_drop(bad);
    }
    if (w.proto == INET6_NH_ICMPV6) {
        return local6_icmp_input(c, w.off);
    }
    bool transport = w.proto == INET6_NH_TCP || w.proto == INET6_NH_UDP;
    if (c->ifc->sink && transport && !inet6_is_multicast(local6_hdr(c)->dst)) {
        bad = local6_src_unusable(c);
        if (bad != NULL) {
            return local6_drop(bad);
        }
        c->st->ip6_to_sink++; /* lwIP checks and answers (apps/sink) */
        return NET_SINK;
    }
    return local6_drop(&d->ip6_proto_unsupported);
}

/* --- IPv6 (RFC 8200 section 3) ---------------------------------------------------------------- */

/* Where a header-valid datagram goes: to us (an address or a group we are in), to the
 * forwarder (unicast for anyone else), or nowhere. l2_group: it came to a 33:33 MAC, which
 * must be its own group's (RFC 2464 7) and never carry unicast. */
static enum net_verdict local6_classify(struct local6_ctx *c, bool l2_group)
{
    struct net_drop6_stats *d = &c->st->drop;
    const uint8_t *dst = local6_hdr(c)->dst;

    if (inet6_is_multicast(dst)) {
        uint8_t mac[INET_ETH_ADDR_BYTES];
        inet6_multicast_mac(mac, dst);
        if (l2_group && memcmp(mac, c->frame, sizeof(mac)) != 0) {
            return local6_drop(&d->ip6_l2_mismatch);
        }
        if (!local6_in_group(c->ifc, dst)) {
            return local6_drop(&d->ip6_group_not_joined);
        }
        return local6_deliver(c);
    }
    if (inet6_is_unspecified(dst) || inet6_is_loopback(dst) || inet6_is_v4_mapped(dst)) {
        return local6_drop(&d->ip6_dst_bad);
    }
    if (l2_group) {
        return local6_drop(&d->ip6_l2_mismatch);
    }
    if (local6_is_ours(c->ifc, dst)) {
        return local6_deliver(c);
    }
    /* Another host's: the forwarder owns hop limit, scope (a link-local destination is never
     * forwarded, RFC 4291 2.5.6) and routing. */
    uint64_t *bad = local6_src_unusable(c);
    if (bad != NULL) {
        return local6_drop(bad);
    }
    c->st->ip6_passed++;
    return NET_PASS;
}

static enum net_verdict local6_ipv6_input(struct local6_ctx *c, bool l2_group)
{
    struct net_drop6_stats *d = &c->st->drop;
    uint32_t avail = (uint32_t)c->len - INET_ETH_HDR_BYTES; /* len >= 14 was checked */

    if (avail < INET_IPV6_HDR_BYTES) {
        return local6_drop(&d->ip6_truncated);
    }
    c->ip6 = c->frame + INET_ETH_HDR_BYTES;
    const struct inet_ipv6_hdr *h = local6_hdr(c);
    if ((h->ver_tc_flow[0] >> 4) != 6) {
        return local6_drop(&d->ip6_bad_version);
    }
    /* Longer frames are Ethernet padding or trailers: the payload length is the truth. */
    c->ip6_len = INET_IPV6_HDR_BYTES + (uint32_t)inet_load_be16(h->payload_len);
    if (c->ip6_len > avail) {
        return local6_drop(&d->ip6_bad_payload_length);
    }
    if (inet6_is_multicast(h->src) || inet6_is_loopback(h->src) || inet6_is_v4_mapped(h->src)) {
        return local6_drop(&d->ip6_src_bad);
    }
    return local6_classify(c, l2_group);
}

/* --- Ethernet (RFC 2464) ---------------------------------------------------------------------- */

enum net_verdict net_local6_input(const struct net_iface6 *ifc, uint8_t *frame, uint16_t len,
                                  uint16_t buf_bytes, uint16_t *out_len,
                                  struct net_local6_stats *st, struct net6_learn *learn)
{
    struct local6_ctx c = {
        .ifc = ifc, .frame = frame, .len = len, .buf_bytes = buf_bytes, .out_len = out_len,
        .st = st, .learn = learn,
    };
    struct net_drop6_stats *d = &st->drop;
    memset(learn, 0, sizeof(*learn));

    if (len > buf_bytes) {
        return local6_drop(&d->frame_exceeds_buffer);
    }
    if (len < INET_ETH_HDR_BYTES) {
        return local6_drop(&d->eth_runt);
    }
    const struct inet_eth_hdr *eth = (const struct inet_eth_hdr *)frame;
    if (inet_load_be16(eth->type) != INET_ETHERTYPE_IPV6) {
        return local6_drop(&d->eth_not_ipv6);
    }
    if (!ifc->enabled) {
        return local6_drop(&d->ip6_disabled);
    }
    if (inet_eth_is_broadcast(eth->dst)) {
        return local6_drop(&d->eth_dst_broadcast);
    }
    bool l2_group = inet_eth_is_group(eth->dst);
    if (l2_group && !(eth->dst[0] == 0x33 && eth->dst[1] == 0x33)) {
        return local6_drop(&d->eth_dst_multicast);
    }
    if (!l2_group && memcmp(eth->dst, ifc->mac, INET_ETH_ADDR_BYTES) != 0) {
        return local6_drop(&d->eth_dst_not_us);
    }
    /* Replies go back to the source MAC, so it must name one station (IEEE 802.3 3.2.3). */
    if (inet_eth_is_group(eth->src)) {
        return local6_drop(&d->eth_src_group);
    }
    return local6_ipv6_input(&c, l2_group);
}

/* --- building solicitations (RFC 4861 7.2.2, 7.3.3) ------------------------------------------- */

uint16_t net_nd_solicit(uint8_t *out, uint16_t out_bytes, const struct net_iface6 *ifc,
                        const uint8_t target[16], const uint8_t *unicast_mac)
{
    if (!ifc->enabled || inet6_is_unspecified(ifc->link_local) || inet6_is_multicast(target) ||
        inet6_is_unspecified(target) || out_bytes < LOCAL6_ND_FRAME_BYTES) {
        return 0;
    }
    if (unicast_mac != NULL && (inet_eth_is_group(unicast_mac) || inet_eth_is_zero(unicast_mac))) {
        return 0;
    }
    uint8_t tgt[INET6_ADDR_BYTES], dst[INET6_ADDR_BYTES], eth_dst[INET_ETH_ADDR_BYTES];
    memcpy(tgt, target, sizeof(tgt)); /* the caller's target may sit in out */
    if (unicast_mac != NULL) {
        memcpy(dst, tgt, sizeof(dst));
        memcpy(eth_dst, unicast_mac, sizeof(eth_dst));
    } else {
        inet6_solicited_node(dst, tgt);
        inet6_multicast_mac(eth_dst, dst);
    }
    return local6_nd_build(out, ifc, eth_dst, ifc->link_local, dst, INET6_ICMP_NEIGHBOR_SOLICIT, 0,
                           tgt, INET6_ND_OPT_SOURCE_LLADDR);
}

uint16_t net_nd_dad_solicit(uint8_t *out, uint16_t out_bytes, const struct net_iface6 *ifc,
                            const uint8_t target[16])
{
    static const uint8_t unspecified[INET6_ADDR_BYTES];
    if (!ifc->enabled || inet6_is_multicast(target) || inet6_is_unspecified(target) ||
        out_bytes < LOCAL6_DAD_FRAME_BYTES) {
        return 0;
    }
    uint8_t tgt[INET6_ADDR_BYTES], dst[INET6_ADDR_BYTES], eth_dst[INET_ETH_ADDR_BYTES];
    memcpy(tgt, target, sizeof(tgt)); /* the caller's target may sit in out */
    inet6_solicited_node(dst, tgt);
    inet6_multicast_mac(eth_dst, dst);
    return local6_nd_build(out, ifc, eth_dst, unspecified, dst, INET6_ICMP_NEIGHBOR_SOLICIT, 0,
                           tgt, 0);
}

/* --- counters --------------------------------------------------------------------------------- */

const struct net_counter_desc net_drop6_counters[] = {
#define NET_DROP6_DESC(name, why) { #name, why, offsetof(struct net_drop6_stats, name) },
    NET_DROP6_REASONS(NET_DROP6_DESC)
#undef NET_DROP6_DESC
};
const size_t net_drop6_counter_count = sizeof(net_drop6_counters) / sizeof(net_drop6_counters[0]);

_Static_assert(sizeof(net_drop6_counters) / sizeof(net_drop6_counters[0]) * sizeof(uint64_t) ==
                   sizeof(struct net_drop6_stats),
               "every drop counter has a name");

uint64_t net_local6_total(const struct net_local6_stats *st)
{
    return st->ns_answered + st->echo6_answered + st->na_learned + st->rs_reported +
           st->ip6_passed + st->ip6_to_sink +
           net_counters_sum(&st->drop, net_drop6_counters, net_drop6_counter_count);
}
