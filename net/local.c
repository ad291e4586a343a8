/*
 * net/local.c: the appliance's own-address input path: Ethernet classification, ARP (RFC 826)
 * with neighbour learning, IPv4 header validation (RFC 791, RFC 1812 section 5.2.2) and ICMP
 * echo (RFC 792, RFC 1122 section 3.2.2.6), answered in place in the receive buffer.
 *
 * Every read of packet content is preceded by a check that the bytes exist; every rejection is
 * one named counter (net_drop_stats) and the verdict NET_DROP.
 */
#include <string.h>

#include "net/inet.h"
#include "net/local.h"

/*
 * Minimum lengths. The wire minimum is 60 bytes without FCS, but we only require what each
 * protocol needs (14 for Ethernet, 14 + 28 = 42 for ARP, 14 + 20 for IPv4): a Linux host
 * builds a 42-byte ARP request and only the NIC pads it, so a virtual NIC or a host-side path
 * may deliver it short; nothing is gained by dropping it. Padding, when present, is ignored:
 * IPv4 trusts its total length, ARP its fixed size.
 */

/* Everything one call needs, to keep the per-protocol helpers' parameter lists short. */
struct local_ctx {
    const struct net_iface *ifc;
    struct neigh_table *neigh;
    uint8_t *frame;
    uint16_t len;
    uint16_t buf_bytes;
    uint16_t *out_len;
    struct net_local_stats *st;
    uint64_t now_ns;
    uint32_t mask;     /* our subnet mask, host order */
    bool l2_broadcast; /* frame was sent to ff:ff:ff:ff:ff:ff */
};

static enum net_verdict local_drop(uint64_t *reason)
{
    (*reason)++;
    return NET_DROP;
}

/* --- addresses -------------------------------------------------------------------------------- */

static uint32_t local_mask(uint8_t prefix_len)
{
    if (prefix_len == 0) {
        return 0; /* a shift by 32 would be undefined */
    }
    if (prefix_len >= 32) {
        return 0xffffffffu;
    }
    return 0xffffffffu << (32 - prefix_len);
}

/* local_is_link_address: the interface's own address (what ARP answers for). */
static bool local_is_link_address(const struct local_ctx *c, uint32_t ip)
{
    return ip != 0 && ip == c->ifc->ip;
}

/* local_is_ours: any address this interface answers for at the IP level: none at all on an
 * interface without an address of its own (it answers nothing, also_ours or not). */
static bool local_is_ours(const struct local_ctx *c, uint32_t ip)
{
    if (c->ifc->ip == 0) {
        return false;
    }
    if (local_is_link_address(c, ip)) {
        return true;
    }
    for (unsigned i = 0; i < c->ifc->n_also_ours && i < NET_IFACE_MAX_ALSO_OURS; i++) {
        if (ip != 0 && ip == c->ifc->also_ours[i]) {
            return true;
        }
    }
    return false;
}

/* Our subnet's directed broadcast. /31 (RFC 3021) and /32 links have none. */
static bool local_is_subnet_broadcast(const struct local_ctx *c, uint32_t ip)
{
    return c->ifc->prefix_len <= 30 && ((ip ^ c->ifc->ip) & c->mask) == 0 &&
           (ip | c->mask) == 0xffffffffu;
}

/* A sender address worth a neighbour entry: a host on our subnet. Probes (sender 0.0.0.0,
 * RFC 5227 section 2.1.1) are answered but not learned. */
static bool local_arp_learnable(const struct local_ctx *c, uint32_t spa)
{
    return !inet_ipv4_is_martian(spa) && ((spa ^ c->ifc->ip) & c->mask) == 0 &&
           !local_is_subnet_broadcast(c, spa);
}

/* --- replies ---------------------------------------------------------------------------------- */

static uint32_t local_padded(uint32_t reply_len)
{
    return reply_len < INET_ETH_MIN_FRAME_BYTES ? INET_ETH_MIN_FRAME_BYTES : reply_len;
}

/* Checked before the frame is touched, so a reply that cannot be sent leaves it intact. */
static bool local_reply_fits(const struct local_ctx *c, uint32_t reply_len)
{
    return local_padded(reply_len) <= c->buf_bytes;
}

/* Zero-pad to the Ethernet minimum (stale bytes of the request must not leak onto the wire),
 * set *out_len, and hand the frame back. */
static enum net_verdict local_reply_finish(struct local_ctx *c, uint32_t reply_len)
{
    uint32_t padded = local_padded(reply_len);
    memset(c->frame + reply_len, 0, padded - reply_len);
    *c->out_len = (uint16_t)padded;
    return NET_REPLY;
}

/* Ethernet header of a reply: back to the frame's sender, from us. */
static void local_eth_turn_around(struct local_ctx *c, const uint8_t *dst)
{
    struct inet_eth_hdr *eth = (struct inet_eth_hdr *)c->frame;
    memmove(eth->dst, dst, INET_ETH_ADDR_BYTES);
    memcpy(eth->src, c->ifc->mac, INET_ETH_ADDR_BYTES);
}

/* --- ARP (RFC 826) ---------------------------------------------------------------------------- */

/* RFC 826, "Packet Reception", last step: swap hardware and protocol fields, put our addresses
 * in the sender fields, set ar$op to reply, and send to the (new) target hardware address. */
static enum net_verdict local_arp_reply(struct local_ctx *c, struct inet_arp *a)
{
    if (!local_reply_fits(c, INET_ETH_HDR_BYTES + INET_ARP_BYTES)) {
        return local_drop(&c->st->drop.reply_no_room);
    }
    memcpy(a->tha, a->sha, INET_ETH_ADDR_BYTES);
    memcpy(a->tpa, a->spa, sizeof(a->tpa));
    memcpy(a->sha, c->ifc->mac, INET_ETH_ADDR_BYTES);
    inet_store_be32(a->spa, c->ifc->ip);
    inet_store_be16(a->op, INET_ARP_OP_REPLY);
    local_eth_turn_around(c, a->tha);
    c->st->arp_requests_answered++;
    return local_reply_finish(c, INET_ETH_HDR_BYTES + INET_ARP_BYTES);
}

/* A request or reply whose target protocol address is ours. Without the table (not the writer
 * core) requests are still answered; what only teaches is counted as misrouted. */
static enum net_verdict local_arp_for_us(struct local_ctx *c, struct inet_arp *a, uint16_t op,
                                         uint32_t spa)
{
    bool learnable = local_arp_learnable(c, spa);
    if (learnable && c->neigh != NULL) {
        neigh_update(c->neigh, spa, a->sha, c->now_ns);
    }
    if (op == INET_ARP_OP_REQUEST) {
        return local_arp_reply(c, a);
    }
    if (!learnable) {
        return local_drop(&c->st->drop.arp_sender_ip_unusable);
    }
    if (c->neigh == NULL) {
        return local_drop(&c->st->drop.arp_not_writer_core);
    }
    c->st->arp_replies_learned++;
    return NET_CONSUMED;
}

/* An ARP packet about someone else. An announcement (sender = target address, RFC 5227
 * section 2.3) is learned; anything else only refreshes an entry we already hold (RFC 826's
 * "merge" step), so broadcast chatter between other hosts cannot churn the table. */
static enum net_verdict local_arp_other(struct local_ctx *c, struct inet_arp *a, uint32_t spa,
                                        uint32_t tpa)
{
    bool learnable = local_arp_learnable(c, spa);
    if (spa == tpa) {
        if (!learnable) {
            return local_drop(&c->st->drop.arp_sender_ip_unusable);
        }
        if (c->neigh == NULL) {
            return local_drop(&c->st->drop.arp_not_writer_core);
        }
        neigh_update(c->neigh, spa, a->sha, c->now_ns);
        c->st->arp_gratuitous_learned++;
        return NET_CONSUMED;
    }
    if (learnable && c->neigh != NULL) {
        neigh_refresh(c->neigh, spa, a->sha, c->now_ns);
    }
    return local_drop(&c->st->drop.arp_not_for_us);
}

static enum net_verdict local_arp_input(struct local_ctx *c)
{
    struct net_drop_stats *d = &c->st->drop;

    if (c->len < INET_ETH_HDR_BYTES + INET_ARP_BYTES) {
        return local_drop(&d->arp_truncated);
    }
    struct inet_arp *a = (struct inet_arp *)(c->frame + INET_ETH_HDR_BYTES);
    if (inet_load_be16(a->htype) != INET_ARP_HTYPE_ETHERNET ||
        inet_load_be16(a->ptype) != INET_ETHERTYPE_IPV4 || a->hlen != INET_ETH_ADDR_BYTES ||
        a->plen != sizeof(a->spa)) {
        return local_drop(&d->arp_malformed);
    }
    uint16_t op = inet_load_be16(a->op);
    if (op != INET_ARP_OP_REQUEST && op != INET_ARP_OP_REPLY) {
        return local_drop(&d->arp_unsupported_op);
    }
    /* We would answer to, or learn, this MAC: it must name one station (RFC 1812 3.3.2). */
    if (inet_eth_is_group(a->sha) || inet_eth_is_zero(a->sha)) {
        return local_drop(&d->arp_bad_sender_mac);
    }
    uint32_t spa = inet_load_be32(a->spa);
    uint32_t tpa = inet_load_be32(a->tpa);
    /* Someone else using our address: neither learn it nor argue (conflict handling as in
     * RFC 5227 section 2.4 is not implemented); the counter makes it visible. */
    if (local_is_link_address(c, spa)) {
        return local_drop(&d->arp_sender_ip_is_ours);
    }
    if (local_is_link_address(c, tpa)) {
        return local_arp_for_us(c, a, op, spa);
    }
    return local_arp_other(c, a, spa, tpa);
}

/* --- ICMP echo (RFC 792; RFC 1122 section 3.2.2.6) -------------------------------------------- */

static bool local_all_zero(const uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (p[i] != 0) {
            return false;
        }
    }
    return true;
}

/*
 * The reply reuses the request's buffer. IP options are not echoed: the reply gets a plain
 * 20-byte header and the ICMP message moves up over the options. RFC 1122 3.2.2.6 asks that
 * Record Route / Timestamp be updated and returned (SHOULD) and a source route reversed; we
 * implement neither, and echoing them unprocessed would be wrong, so they are dropped. The data
 * is returned entire, as 3.2.2.6 requires. The ICMP checksum is updated for the one word that
 * changes (type 8 -> 0, RFC 1624), not recomputed over up to 1480 bytes.
 */
static enum net_verdict local_icmp_echo_reply(struct local_ctx *c, uint8_t *ip, uint16_t hlen,
                                              uint16_t icmp_len)
{
    uint32_t ip_len = INET_IPV4_HDR_BYTES + (uint32_t)icmp_len;
    uint32_t reply_len = INET_ETH_HDR_BYTES + ip_len;
    if (!local_reply_fits(c, reply_len)) {
        return local_drop(&c->st->drop.reply_no_room);
    }
    const struct inet_ipv4_hdr *req = (const struct inet_ipv4_hdr *)ip;
    uint32_t requester = inet_load_be32(req->src);
    /* RFC 1122 3.2.2.6: the reply's source is the request's specific destination, which may
     * be another interface's address (also_ours), not necessarily this one's. */
    uint32_t responder = inet_load_be32(req->dst);
    /* Keep the DSCP; ICMP is no ECN-capable transport, so ECN is cleared (RFC 3168 sec. 5). */
    uint8_t tos = (uint8_t)(req->tos & ~INET_IPV4_ECN_MASK);

    uint8_t *icmp = ip + INET_IPV4_HDR_BYTES;
    memmove(icmp, ip + hlen, icmp_len); /* no-op without options */
    struct inet_icmp_echo *e = (struct inet_icmp_echo *)icmp;
    uint16_t csum = inet_csum_update16(inet_load_be16(e->csum), INET_ICMP_ECHO_REQUEST << 8,
                                       INET_ICMP_ECHO_REPLY << 8);
    /* RFC 1624 eqn. 3 gives 0x0000 for a reply whose sum is zero. That is right unless every
     * other byte of the reply is zero (identifier 0, sequence 0, data empty or all zeros): the
     * sum is then +0, not -0, and only 0xFFFF verifies. The new checksum is 0 only when the
     * request's was 0xF7FF, so the scan runs for few requests. (Found by tests/fuzz.) */
    if (csum == 0 && local_all_zero(icmp + 4, icmp_len - 4u)) {
        csum = 0xffff;
    }
    e->type = INET_ICMP_ECHO_REPLY;
    inet_store_be16(e->csum, csum);

    inet_ipv4_header(ip, tos, (uint16_t)ip_len, INET_PROTO_ICMP, responder, requester);
    local_eth_turn_around(c, ((struct inet_eth_hdr *)c->frame)->src);
    c->st->icmp_echo_answered++;
    return local_reply_finish(c, reply_len);
}

static enum net_verdict local_icmp_input(struct local_ctx *c, uint8_t *ip, uint16_t hlen,
                                         uint16_t total_len)
{
    struct net_drop_stats *d = &c->st->drop;
    uint16_t icmp_len = (uint16_t)(total_len - hlen); /* total_len >= hlen was checked */
    const uint8_t *icmp = ip + hlen;

    if (icmp_len < INET_ICMP_ECHO_BYTES) {
        return local_drop(&d->icmp_truncated);
    }
    if (inet_checksum(icmp, icmp_len) != 0) {
        return local_drop(&d->icmp_bad_checksum);
    }
    if (icmp[0] != INET_ICMP_ECHO_REQUEST) {
        return local_drop(&d->icmp_unsupported_type);
    }
    if (icmp[1] != 0) {
        return local_drop(&d->icmp_malformed);
    }
    return local_icmp_echo_reply(c, ip, hlen, icmp_len);
}

/* --- IPv4 (RFC 791; checks in the spirit of RFC 1812 section 5.2.2) --------------------------- */

/* Where a header-valid datagram goes: to us, to the forwarder, or nowhere. Broadcast and
 * multicast are dropped here: we run no service that listens to them, and not answering
 * broadcast pings is the safe choice RFC 1122 3.2.2.6 allows. */
static enum net_verdict local_ipv4_deliver(struct local_ctx *c, uint8_t *ip, uint16_t hlen,
                                           uint16_t total_len)
{
    struct net_drop_stats *d = &c->st->drop;
    const struct inet_ipv4_hdr *h = (const struct inet_ipv4_hdr *)ip;
    uint32_t dst = inet_load_be32(h->dst);

    if (dst == 0xffffffffu || local_is_subnet_broadcast(c, dst)) {
        return local_drop(&d->ip_dst_broadcast);
    }
    if (inet_ipv4_is_multicast(dst)) {
        return local_drop(&d->ip_dst_multicast);
    }
    if (inet_ipv4_is_martian(dst)) {
        return local_drop(&d->ip_dst_martian);
    }
    /* A unicast datagram inside a link-layer broadcast: a host SHOULD discard it (RFC 1122
     * 3.3.6) and a router MUST NOT forward it (RFC 1812 5.3.4). */
    if (c->l2_broadcast) {
        return local_drop(&d->ip_l2_broadcast);
    }
    if (!local_is_ours(c, dst)) {
        c->st->ip_passed++;
        return NET_PASS;
    }
    bool fragment = inet_load_be16(h->frag) & (INET_IPV4_FLAG_MF | INET_IPV4_FRAG_OFFSET_MASK);
    bool transport = h->proto == INET_PROTO_TCP || h->proto == INET_PROTO_UDP;
    if (c->ifc->sink && (fragment || transport)) {
        c->st->ip_to_sink++; /* lwIP reassembles, checks and answers (apps/sink) */
        return NET_SINK;
    }
    if (fragment) {
        return local_drop(&d->ip_fragment);
    }
    if (h->proto != INET_PROTO_ICMP) {
        return local_drop(&d->ip_proto_unsupported);
    }
    return local_icmp_input(c, ip, hlen, total_len);
}

static enum net_verdict local_ipv4_input(struct local_ctx *c)
{
    struct net_drop_stats *d = &c->st->drop;
    uint16_t avail = (uint16_t)(c->len - INET_ETH_HDR_BYTES); /* len >= 14 was checked */

    if (avail < INET_IPV4_HDR_BYTES) {
        return local_drop(&d->ip_truncated);
    }
    uint8_t *ip = c->frame + INET_ETH_HDR_BYTES;
    const struct inet_ipv4_hdr *h = (const struct inet_ipv4_hdr *)ip;
    if ((h->ver_ihl >> 4) != 4) {
        return local_drop(&d->ip_bad_version);
    }
    uint16_t hlen = (uint16_t)((h->ver_ihl & 0x0f) << 2);
    uint16_t total_len = inet_load_be16(h->total_len);
    if (hlen < INET_IPV4_HDR_BYTES || total_len < hlen) {
        return local_drop(&d->ip_bad_ihl);
    }
    /* Longer frames are padding (60-byte minimum) or trailers: total length is the truth. */
    if (total_len > avail) {
        return local_drop(&d->ip_bad_total_length);
    }
    if (inet_checksum(ip, hlen) != 0) {
        return local_drop(&d->ip_bad_checksum);
    }
    uint32_t src = inet_load_be32(h->src);
    /* RFC 1812 5.3.7 (and RFC 1122 3.2.1.3 for a broadcast source): never forward from such
     * sources; we do not answer them either. */
    if (inet_ipv4_is_martian(src) || local_is_subnet_broadcast(c, src)) {
        return local_drop(&d->ip_src_martian);
    }
    if (local_is_ours(c, src)) {
        return local_drop(&d->ip_src_is_ours);
    }
    return local_ipv4_deliver(c, ip, hlen, total_len);
}

/* --- Ethernet --------------------------------------------------------------------------------- */

enum net_verdict net_local_input(const struct net_iface *ifc, struct neigh_table *neigh,
                                 uint8_t *frame, uint16_t len, uint16_t buf_bytes,
                                 uint16_t *out_len, struct net_local_stats *st, uint64_t now_ns)
{
    struct local_ctx c = {
        .ifc = ifc, .neigh = neigh, .frame = frame, .len = len, .buf_bytes = buf_bytes,
        .out_len = out_len, .st = st, .now_ns = now_ns, .mask = local_mask(ifc->prefix_len),
    };
    struct net_drop_stats *d = &st->drop;

    if (len > buf_bytes) {
        return local_drop(&d->frame_exceeds_buffer);
    }
    if (len < INET_ETH_HDR_BYTES) {
        return local_drop(&d->eth_runt);
    }
    const struct inet_eth_hdr *eth = (const struct inet_eth_hdr *)frame;
    c.l2_broadcast = inet_eth_is_broadcast(eth->dst);
    if (!c.l2_broadcast && inet_eth_is_group(eth->dst)) {
        return local_drop(&d->eth_dst_multicast);
    }
    if (!c.l2_broadcast && memcmp(eth->dst, ifc->mac, INET_ETH_ADDR_BYTES) != 0) {
        return local_drop(&d->eth_dst_not_us);
    }
    /* Replies go back to the source MAC, so it must name one station (IEEE 802.3 3.2.3). */
    if (inet_eth_is_group(eth->src)) {
        return local_drop(&d->eth_src_group);
    }
    switch (inet_load_be16(eth->type)) {
    case INET_ETHERTYPE_ARP:
        return local_arp_input(&c);
    case INET_ETHERTYPE_IPV4:
        return local_ipv4_input(&c);
    default:
        return local_drop(&d->eth_unsupported_type);
    }
}

/* --- counters --------------------------------------------------------------------------------- */

const struct net_counter_desc net_drop_counters[] = {
#define NET_DROP_DESC(name, why) { #name, why, offsetof(struct net_drop_stats, name) },
    NET_DROP_REASONS(NET_DROP_DESC)
#undef NET_DROP_DESC
};
const size_t net_drop_counter_count = sizeof(net_drop_counters) / sizeof(net_drop_counters[0]);

_Static_assert(sizeof(net_drop_counters) / sizeof(net_drop_counters[0]) * sizeof(uint64_t) ==
                   sizeof(struct net_drop_stats),
               "every drop counter has a name");

uint64_t net_local_total(const struct net_local_stats *st)
{
    return st->arp_requests_answered + st->icmp_echo_answered + st->arp_replies_learned +
           st->arp_gratuitous_learned + st->ip_passed + st->ip_to_sink +
           net_counters_sum(&st->drop, net_drop_counters, net_drop_counter_count);
}
