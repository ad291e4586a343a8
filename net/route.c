/*
 * net/route.c: the IPv4 router's per-packet decisions: validation and TTL decrement of a datagram
 * in transit (RFC 791 section 3.1, RFC 1812 sections 5.2.2, 5.3.1, 5.3.7, RFC 3927 section 7,
 * RFC 1624), ICMP error construction (RFC 792, RFC 1122 section 3.2.2, RFC 1812 section 4.3.2)
 * and the ICMP error rate limiter (RFC 1812 section 4.3.2.8).
 *
 * Every read of packet content is preceded by a check that the bytes exist; every frame not
 * forwarded, and every ICMP error not built, is one named counter (route_drop_stats).
 */
#include <string.h>

#include "net/inet.h"
#include "net/route.h"

#define ROUTE_IP_OFFSET INET_ETH_HDR_BYTES
#define ROUTE_ICMP_OFFSET (INET_ETH_HDR_BYTES + INET_IPV4_HDR_BYTES)
#define ROUTE_NS_PER_SEC 1000000000ull

/* RFC 1812 4.3.2.5: errors other than source quench SHOULD carry precedence 6 (internetwork
 * control), i.e. DSCP CS6; the TOS bits stay zero (RFC 1122 3.2.2) and ICMP is not ECN-capable
 * (RFC 3168 section 5), so ECN is 0 too. */
#define ROUTE_ICMP_ERROR_TOS 0xc0

/* The smallest error quotes a 20-byte header: 14 + 20 + 8 + 20 = 62 bytes, so no frame this
 * module builds ever needs padding to the Ethernet minimum. */
_Static_assert(ROUTE_ICMP_ERROR_HEADROOM_BYTES + INET_IPV4_HDR_BYTES >= INET_ETH_MIN_FRAME_BYTES,
               "ICMP errors never need Ethernet padding");
_Static_assert(ROUTE_ICMP_OFFSET + ROUTE_ICMP_ERROR_HDR_BYTES == ROUTE_ICMP_ERROR_HEADROOM_BYTES,
               "headroom is Ethernet + IPv4 + ICMP");

/* --- header validation (shared by forwarding and the ICMP error builder) --------------------- */

/* Why a frame fails route_ipv4_parse; forwarding maps each to its own counter, the ICMP builder
 * counts them all as icmp_quote_malformed. */
enum route_hdr_fault {
    ROUTE_HDR_OK,
    ROUTE_HDR_TRUNCATED,
    ROUTE_HDR_NOT_IPV4,
    ROUTE_HDR_BAD_VERSION,
    ROUTE_HDR_BAD_IHL,
    ROUTE_HDR_BAD_TOTAL_LENGTH,
    ROUTE_HDR_BAD_CHECKSUM,
};

/* What route_ipv4_parse found: lengths in bytes, both already checked against the frame. */
struct route_ipv4_view {
    uint16_t hlen;      /* IHL * 4, 20..60 */
    uint16_t total_len; /* hlen..len - 14 */
};

/*
 * RFC 1812 5.2.2's validity tests, in an order where each check makes the next one's reads
 * safe: enough bytes for both fixed headers, IPv4 EtherType, version 4, IHL >= 5 and within the
 * total length, total length within the frame (longer frames are padding or trailers: the total
 * length is the truth), then the header checksum over hlen bytes that are now known to exist.
 */
static enum route_hdr_fault route_ipv4_parse(const uint8_t *frame, uint16_t len,
                                             struct route_ipv4_view *v)
{
    if (len < INET_ETH_HDR_BYTES + INET_IPV4_HDR_BYTES) {
        return ROUTE_HDR_TRUNCATED;
    }
    const struct inet_eth_hdr *eth = (const struct inet_eth_hdr *)frame;
    if (inet_load_be16(eth->type) != INET_ETHERTYPE_IPV4) {
        return ROUTE_HDR_NOT_IPV4;
    }
    const uint8_t *ip = frame + ROUTE_IP_OFFSET;
    const struct inet_ipv4_hdr *h = (const struct inet_ipv4_hdr *)ip;
    if ((h->ver_ihl >> 4) != 4) {
        return ROUTE_HDR_BAD_VERSION;
    }
    v->hlen = (uint16_t)((h->ver_ihl & 0x0f) << 2);
    v->total_len = inet_load_be16(h->total_len);
    if (v->hlen < INET_IPV4_HDR_BYTES || v->total_len < v->hlen) {
        return ROUTE_HDR_BAD_IHL;
    }
    if (v->total_len > len - INET_ETH_HDR_BYTES) {
        return ROUTE_HDR_BAD_TOTAL_LENGTH;
    }
    if (!inet_ipv4_hdr_csum_ok(ip, v->hlen)) {
        return ROUTE_HDR_BAD_CHECKSUM;
    }
    return ROUTE_HDR_OK;
}

/* --- address classes ------------------------------------------------------------------------- */

enum route_addr_class {
    ROUTE_ADDR_UNICAST,
    ROUTE_ADDR_BROADCAST,  /* 255.255.255.255 */
    ROUTE_ADDR_MULTICAST,  /* 224.0.0.0/4 */
    ROUTE_ADDR_MARTIAN,    /* 0/8, 127/8, 240/4 other than the limited broadcast */
    ROUTE_ADDR_LINK_LOCAL, /* 169.254.0.0/16 (RFC 3927) */
};

/* Subnet-directed broadcasts are not recognised here: they are unicast-looking until the
 * egress port is known, and the local path (net/local.c) already drops those of our subnets. */
static enum route_addr_class route_addr_class(uint32_t a)
{
    if (a == 0xffffffffu) {
        return ROUTE_ADDR_BROADCAST;
    }
    if (inet_ipv4_is_multicast(a)) {
        return ROUTE_ADDR_MULTICAST;
    }
    if (inet_ipv4_is_martian(a)) {
        return ROUTE_ADDR_MARTIAN;
    }
    if ((a >> 16) == 0xa9fe) {
        return ROUTE_ADDR_LINK_LOCAL;
    }
    return ROUTE_ADDR_UNICAST;
}

/* --- forwarding ------------------------------------------------------------------------------ */

static enum route_verdict route_drop(uint64_t *reason)
{
    (*reason)++;
    return ROUTE_DROP;
}

static uint64_t *route_hdr_fault_counter(struct route_drop_stats *st, enum route_hdr_fault f)
{
    switch (f) {
    case ROUTE_HDR_TRUNCATED:
        return &st->ip_truncated;
    case ROUTE_HDR_NOT_IPV4:
        return &st->eth_not_ipv4;
    case ROUTE_HDR_BAD_VERSION:
        return &st->ip_bad_version;
    case ROUTE_HDR_BAD_IHL:
        return &st->ip_bad_ihl;
    case ROUTE_HDR_BAD_TOTAL_LENGTH:
        return &st->ip_bad_total_length;
    case ROUTE_HDR_BAD_CHECKSUM:
    default: /* ROUTE_HDR_OK never reaches here */
        return &st->ip_bad_checksum;
    }
}

/* RFC 1812 5.3.7: a router never forwards from or to an address that names no single host;
 * RFC 3927 section 7: link-local addresses never leave their link. NULL = forwardable. */
static uint64_t *route_addr_drop_counter(struct route_drop_stats *st, uint32_t src,
                                         uint32_t dst)
{
    switch (route_addr_class(src)) {
    case ROUTE_ADDR_BROADCAST:
        return &st->ip_src_broadcast;
    case ROUTE_ADDR_MULTICAST:
        return &st->ip_src_multicast;
    case ROUTE_ADDR_MARTIAN:
        return &st->ip_src_martian;
    case ROUTE_ADDR_LINK_LOCAL:
        return &st->ip_src_link_local;
    case ROUTE_ADDR_UNICAST:
        break;
    }
    switch (route_addr_class(dst)) {
    case ROUTE_ADDR_BROADCAST:
        return &st->ip_dst_broadcast;
    case ROUTE_ADDR_MULTICAST:
        return &st->ip_dst_multicast;
    case ROUTE_ADDR_MARTIAN:
        return &st->ip_dst_martian;
    case ROUTE_ADDR_LINK_LOCAL:
        return &st->ip_dst_link_local;
    case ROUTE_ADDR_UNICAST:
        break;
    }
    return NULL;
}

const uint8_t route_fast_octet_ok[256] = {
    [1 ... 126] = 1, [128 ... 168] = 1, [170 ... 223] = 1,
};

enum route_verdict route_ipv4_check_and_decrement(uint8_t *frame, uint16_t len,
                                                  struct route_drop_stats *st,
                                                  uint32_t *dst_out)
{
    struct route_ipv4_view v;
    enum route_hdr_fault fault = route_ipv4_parse(frame, len, &v);
    if (fault != ROUTE_HDR_OK) {
        return route_drop(route_hdr_fault_counter(st, fault));
    }
    /* RFC 1812 5.3.4: a unicast datagram that arrived in a link-layer broadcast or multicast
     * MUST NOT be forwarded (and a multicast one is not ours to route: no multicast routing). */
    if (inet_eth_is_group(((const struct inet_eth_hdr *)frame)->dst)) {
        return route_drop(&st->eth_dst_group);
    }
    struct inet_ipv4_hdr *h = (struct inet_ipv4_hdr *)(frame + ROUTE_IP_OFFSET);
    uint32_t dst = inet_load_be32(h->dst);
    uint64_t *bad_addr = route_addr_drop_counter(st, inet_load_be32(h->src), dst);
    if (bad_addr != NULL) {
        return route_drop(bad_addr);
    }
    /* After the address checks, so a martian with TTL 1 is dropped silently rather than
     * answered with time exceeded (RFC 1812 4.3.2.7). */
    if (h->ttl <= 1) {
        st->ttl_expired++;
        return ROUTE_TTL_EXPIRED;
    }
    route_ipv4_ttl_decrement((uint8_t *)h);
    *dst_out = dst;
    return ROUTE_FORWARD;
}


/* --- ICMP errors ----------------------------------------------------------------------------- */

/* Types whose "unused" word is really unused (so no extra argument is needed): time exceeded
 * codes 0-1, destination unreachable 0-15 except 4 (RFC 1191 puts the next-hop MTU there). */
static bool route_icmp_type_supported(uint8_t type, uint8_t code)
{
    if (type == ROUTE_ICMP_TIME_EXCEEDED) {
        return code <= ROUTE_ICMP_CODE_REASSEMBLY_EXCEEDED;
    }
    if (type == ROUTE_ICMP_DEST_UNREACH) {
        return code <= 15 && code != ROUTE_ICMP_CODE_FRAG_NEEDED;
    }
    return false;
}

/* RFC 1122 3.2.2's ICMP error messages: destination unreachable (3), source quench (4),
 * redirect (5), time exceeded (11), parameter problem (12). Queries (echo etc.) are not. */
static bool route_icmp_is_error_type(uint8_t type)
{
    const uint32_t error_types = 1u << 3 | 1u << 4 | 1u << 5 | 1u << 11 | 1u << 12;
    return type < 32 && (error_types >> type & 1u) != 0;
}

/* Source and destination classes that forbid an error (RFC 1812 4.3.2.7). A link-local
 * source is one host on the ingress link, which is where the error goes: allowed. */
static uint64_t *route_icmp_addr_suppression(struct route_drop_stats *st, uint32_t src,
                                             uint32_t dst)
{
    switch (route_addr_class(src)) {
    case ROUTE_ADDR_BROADCAST:
        return &st->icmp_src_broadcast;
    case ROUTE_ADDR_MULTICAST:
        return &st->icmp_src_multicast;
    case ROUTE_ADDR_MARTIAN:
        return &st->icmp_src_martian;
    default:
        break;
    }
    if (dst == 0xffffffffu) {
        return &st->icmp_dst_broadcast;
    }
    if (inet_ipv4_is_multicast(dst)) {
        return &st->icmp_dst_multicast;
    }
    return NULL;
}

/*
 * The RFC 1812 4.3.2.7 / RFC 1122 3.2.2 list of datagrams that must never provoke an error:
 * those failing 5.2.2's validation, link-layer group frames, non-initial fragments, sources that
 * name no single host, broadcast or multicast destinations, and ICMP errors (an ICMP datagram
 * too short to show its type is treated as one: when in doubt, stay silent). Returns the
 * counter to charge, NULL when an error may be sent; fills *v for the builder.
 */
static uint64_t *route_icmp_suppression(struct route_drop_stats *st, const uint8_t *in_frame,
                                        uint16_t in_len, struct route_ipv4_view *v)
{
    if (route_ipv4_parse(in_frame, in_len, v) != ROUTE_HDR_OK) {
        return &st->icmp_quote_malformed;
    }
    const struct inet_eth_hdr *eth = (const struct inet_eth_hdr *)in_frame;
    if (inet_eth_is_group(eth->dst) || inet_eth_is_group(eth->src)) {
        return &st->icmp_l2_group;
    }
    const uint8_t *ip = in_frame + ROUTE_IP_OFFSET;
    const struct inet_ipv4_hdr *h = (const struct inet_ipv4_hdr *)ip;
    if ((inet_load_be16(h->frag) & INET_IPV4_FRAG_OFFSET_MASK) != 0) {
        return &st->icmp_about_fragment;
    }
    uint64_t *bad_addr =
        route_icmp_addr_suppression(st, inet_load_be32(h->src), inet_load_be32(h->dst));
    if (bad_addr != NULL) {
        return bad_addr;
    }
    if (h->proto == INET_PROTO_ICMP &&
        (v->total_len == v->hlen || route_icmp_is_error_type(ip[v->hlen]))) {
        return &st->icmp_about_icmp_error;
    }
    return NULL;
}

/*
 * Lay out the error in out. Everything needed from in_frame is read first and the quote is
 * moved with memmove, so out may overlap in_frame (even be it). The quote is the datagram as
 * received, from its header on (RFC 1812 4.3.2.3: identical but for forwarding's own changes,
 * e.g. a TTL already decremented), never the Ethernet padding behind it.
 */
static uint16_t route_icmp_build(uint8_t *out, const uint8_t *in_frame, uint16_t quote_len,
                                 uint8_t type, uint8_t code, uint32_t rest, uint32_t our_ip,
                                 const uint8_t our_mac[6])
{
    const struct inet_eth_hdr *in_eth = (const struct inet_eth_hdr *)in_frame;
    const struct inet_ipv4_hdr *in_ip = (const struct inet_ipv4_hdr *)(in_frame + ROUTE_IP_OFFSET);
    uint8_t peer_mac[INET_ETH_ADDR_BYTES];
    memcpy(peer_mac, in_eth->src, INET_ETH_ADDR_BYTES);
    uint32_t peer_ip = inet_load_be32(in_ip->src);

    memmove(out + ROUTE_ICMP_ERROR_HEADROOM_BYTES, in_frame + ROUTE_IP_OFFSET, quote_len);

    /* RFC 792: type, code, checksum, then 32 bits that are zero but where RFC 1191 puts the
     * next-hop MTU (rest). */
    uint8_t *icmp = out + ROUTE_ICMP_OFFSET;
    uint16_t icmp_len = (uint16_t)(ROUTE_ICMP_ERROR_HDR_BYTES + quote_len);
    icmp[0] = type;
    icmp[1] = code;
    memset(icmp + 2, 0, 2);
    inet_store_be32(icmp + 4, rest);
    inet_store_be16(icmp + 2, inet_checksum(icmp, icmp_len));

    inet_ipv4_header(out + ROUTE_IP_OFFSET, ROUTE_ICMP_ERROR_TOS,
                     (uint16_t)(INET_IPV4_HDR_BYTES + icmp_len), INET_PROTO_ICMP, our_ip, peer_ip);

    /* Back to the previous hop on the ingress port: the source itself when it is on the link,
     * else the router that handed us the datagram, which routes the error on. This spares a
     * route and neighbour lookup; with asymmetric routing the error takes one extra hop. */
    struct inet_eth_hdr *eth = (struct inet_eth_hdr *)out;
    memcpy(eth->dst, peer_mac, INET_ETH_ADDR_BYTES);
    memcpy(eth->src, our_mac, INET_ETH_ADDR_BYTES);
    inet_store_be16(eth->type, INET_ETHERTYPE_IPV4);
    return (uint16_t)(ROUTE_ICMP_ERROR_HEADROOM_BYTES + quote_len);
}

static uint16_t route_suppress(uint64_t *reason)
{
    (*reason)++;
    return 0;
}

/*
 * How much to quote: RFC 1812 4.3.2.3 asks for as much of the datagram as keeps the error
 * within 576 bytes (548 quoted bytes), which gives the source the most to match its error
 * against (e.g. tunnel or ESP headers beyond the first 8 bytes); RFC 792's minimum, the header
 * plus 8 bytes of data (all of a shorter datagram), must fit out or nothing is sent.
 */
static uint16_t route_icmp_make(uint8_t *out, uint16_t out_bytes, const uint8_t *in_frame,
                                uint16_t in_len, uint8_t type, uint8_t code, uint32_t rest,
                                uint32_t our_ip, const uint8_t our_mac[6],
                                struct route_drop_stats *st);

uint16_t route_icmp_error(uint8_t *out, uint16_t out_bytes, const uint8_t *in_frame,
                          uint16_t in_len, uint8_t type, uint8_t code, uint32_t our_ip,
                          const uint8_t our_mac[6], struct route_drop_stats *st)
{
    if (!route_icmp_type_supported(type, code)) {
        return route_suppress(&st->icmp_unsupported_type);
    }
    return route_icmp_make(out, out_bytes, in_frame, in_len, type, code, 0, our_ip, our_mac, st);
}

uint16_t route_icmp_frag_needed(uint8_t *out, uint16_t out_bytes, const uint8_t *in_frame,
                                uint16_t in_len, uint16_t mtu, uint32_t our_ip,
                                const uint8_t our_mac[6], struct route_drop_stats *st)
{
    return route_icmp_make(out, out_bytes, in_frame, in_len, ROUTE_ICMP_DEST_UNREACH,
                           ROUTE_ICMP_CODE_FRAG_NEEDED, mtu, our_ip, our_mac, st);
}

static uint16_t route_icmp_make(uint8_t *out, uint16_t out_bytes, const uint8_t *in_frame,
                                uint16_t in_len, uint8_t type, uint8_t code, uint32_t rest,
                                uint32_t our_ip, const uint8_t our_mac[6],
                                struct route_drop_stats *st)
{
    /* RFC 1812 4.3.2.4 wants an address of the sending interface as the source. */
    if (our_ip == 0) {
        return route_suppress(&st->icmp_no_source_address);
    }
    struct route_ipv4_view v;
    uint64_t *suppressed = route_icmp_suppression(st, in_frame, in_len, &v);
    if (suppressed != NULL) {
        return route_suppress(suppressed);
    }
    uint32_t min_quote = v.hlen + 8u < v.total_len ? v.hlen + 8u : v.total_len;
    if (out_bytes < ROUTE_ICMP_ERROR_HEADROOM_BYTES + min_quote) {
        return route_suppress(&st->icmp_no_room);
    }
    uint32_t quote = v.total_len;
    const uint32_t max_quote = ROUTE_ICMP_ERROR_MAX_IP_BYTES - INET_IPV4_HDR_BYTES -
                               ROUTE_ICMP_ERROR_HDR_BYTES;
    if (quote > max_quote) {
        quote = max_quote;
    }
    uint32_t room = (uint32_t)out_bytes - ROUTE_ICMP_ERROR_HEADROOM_BYTES; /* checked above */
    if (quote > room) {
        quote = room;
    }
    return route_icmp_build(out, in_frame, (uint16_t)quote, type, code, rest, our_ip, our_mac);
}

/* --- fragmentation --------------------------------------------------------------------------- */

/* route_frag_copy_options: the fixed header and the options with the copied flag (bit 7 of the
 * type) into f->copied, padded with End of Option List to a multiple of 4 (RFC 791 3.1: the
 * header of fragments after the first). The option list was not checked by route_ipv4_parse:
 * a length that runs past the header ends the walk (what follows is not copied). */
static void route_frag_copy_options(struct route_frag *f, const uint8_t *ip)
{
    unsigned n = INET_IPV4_HDR_BYTES;
    memcpy(f->copied, ip, INET_IPV4_HDR_BYTES);
    for (unsigned i = INET_IPV4_HDR_BYTES; i < f->hlen;) {
        uint8_t type = ip[i];
        if (type == 0) {
            break; /* End of Option List */
        }
        if (type == 1) {
            i++; /* No Operation: one byte, not copied */
            continue;
        }
        unsigned len = i + 1 < f->hlen ? ip[i + 1] : 0;
        if (len < 2 || i + len > f->hlen) {
            break;
        }
        if (type & 0x80) {
            memcpy(f->copied + n, ip + i, len);
            n += len;
        }
        i += len;
    }
    while (n % 4 != 0) {
        f->copied[n++] = 0;
    }
    f->copied_hlen = (uint8_t)n;
}

bool route_frag_init(struct route_frag *f, const uint8_t *frame, uint16_t mtu)
{
    const uint8_t *ip = frame + ROUTE_IP_OFFSET;
    uint16_t frag = inet_load_be16(ip + 6);
    f->frame = frame;
    f->hlen = (uint16_t)((ip[0] & 0x0f) << 2);
    f->data_len = (uint16_t)(inet_load_be16(ip + 2) - f->hlen);
    f->done = 0;
    f->base_off = (uint16_t)((frag & INET_IPV4_FRAG_OFFSET_MASK) << 3);
    f->mtu = mtu;
    f->last_mf = (frag & INET_IPV4_FLAG_MF) != 0;
    /* an offset beyond 13 bits is no datagram a receiver could reassemble: not cut */
    if ((frag & INET_IPV4_FLAG_DF) != 0 || mtu < f->hlen + 8u || f->data_len == 0 ||
        (uint32_t)f->base_off + f->data_len > 0xffffu) {
        return false;
    }
    route_frag_copy_options(f, ip);
    return true;
}

uint16_t route_frag_next(struct route_frag *f, uint8_t *out, uint16_t out_bytes)
{
    if (f->done >= f->data_len) {
        return 0;
    }
    const uint8_t *ip = f->frame + ROUTE_IP_OFFSET;
    bool first = f->done == 0;
    unsigned hlen = first ? f->hlen : f->copied_hlen;
    unsigned room = ((unsigned)f->mtu - hlen) & ~7u;
    unsigned left = (unsigned)f->data_len - f->done;
    unsigned take = left <= room ? left : room;
    if (room == 0 || ROUTE_IP_OFFSET + hlen + take > out_bytes) {
        return 0; /* (route_frag_init made room >= 8; a short out is the caller's bug) */
    }
    uint8_t *oip = out + ROUTE_IP_OFFSET;
    memcpy(out, f->frame, ROUTE_IP_OFFSET);
    memcpy(oip, first ? ip : f->copied, hlen);
    memcpy(oip + hlen, ip + f->hlen + f->done, take);
    oip[0] = (uint8_t)(0x40 | hlen >> 2);
    inet_store_be16(oip + 2, (uint16_t)(hlen + take));
    bool more = f->done + take < f->data_len || f->last_mf;
    uint16_t frag = (uint16_t)((inet_load_be16(ip + 6) & ~(INET_IPV4_FLAG_MF |
                                                          INET_IPV4_FRAG_OFFSET_MASK)) |
                               (more ? INET_IPV4_FLAG_MF : 0) |
                               ((f->base_off + f->done) >> 3));
    inet_store_be16(oip + 6, frag);
    memset(oip + 10, 0, 2);
    inet_store_be16(oip + 10, inet_checksum(oip, hlen));
    f->done = (uint16_t)(f->done + take);
    unsigned len = ROUTE_IP_OFFSET + hlen + take;
    if (len < INET_ETH_MIN_FRAME_BYTES) {
        memset(out + len, 0, INET_ETH_MIN_FRAME_BYTES - len);
        len = INET_ETH_MIN_FRAME_BYTES;
    }
    return (uint16_t)len;
}

/* --- rate limiting --------------------------------------------------------------------------- */

void route_ratelimit_init(struct route_ratelimit *rl, uint32_t rate_per_sec, uint32_t burst,
                          uint64_t now_ns)
{
    rl->rate_per_sec = rate_per_sec;
    rl->burst = burst;
    rl->last_ns = now_ns;
    /* 2^32 tokens * 10^9 < 2^62: no overflow for any burst. */
    rl->depth = rate_per_sec == 0 ? 0 : (uint64_t)burst * ROUTE_NS_PER_SEC;
    rl->credit = rl->depth;
    /* With this cap, elapsed * rate < depth + rate <= 2^62 + 2^32 and credit + that < 2^64. */
    rl->full_after_ns = rate_per_sec == 0 ? 0 : (rl->depth + rate_per_sec - 1) / rate_per_sec;
}

bool route_ratelimit_allow(struct route_ratelimit *rl, uint64_t now_ns)
{
    /* A backward step (a clock that is not monotonic after all) rebases without credit. */
    if (now_ns > rl->last_ns) {
        uint64_t elapsed = now_ns - rl->last_ns;
        if (elapsed > rl->full_after_ns) {
            elapsed = rl->full_after_ns;
        }
        uint64_t credit = rl->credit + elapsed * rl->rate_per_sec;
        rl->credit = credit < rl->depth ? credit : rl->depth;
    }
    rl->last_ns = now_ns;
    if (rl->credit < ROUTE_NS_PER_SEC) {
        return false;
    }
    rl->credit -= ROUTE_NS_PER_SEC;
    return true;
}

/* --- counters -------------------------------------------------------------------------------- */

const struct net_counter_desc route_drop_counters[] = {
#define ROUTE_DROP_DESC(name, why) { #name, why, offsetof(struct route_drop_stats, name) },
    ROUTE_DROP_REASONS(ROUTE_DROP_DESC)
#undef ROUTE_DROP_DESC
};
const size_t route_drop_counter_count =
    sizeof(route_drop_counters) / sizeof(route_drop_counters[0]);

#define ROUTE_COUNT_ONE(name, why) +1
const size_t route_frame_drop_counter_count = 0 ROUTE_FRAME_DROPS(ROUTE_COUNT_ONE);

_Static_assert(sizeof(route_drop_counters) / sizeof(route_drop_counters[0]) * sizeof(uint64_t) ==
                   sizeof(struct route_drop_stats),
               "every route counter has a name");
_Static_assert(0 ROUTE_FRAME_DROPS(ROUTE_COUNT_ONE) + 0 ROUTE_ICMP_SUPPRESSIONS(ROUTE_COUNT_ONE) ==
                   sizeof(route_drop_counters) / sizeof(route_drop_counters[0]),
               "frame drops and ICMP suppressions partition the counters");
#undef ROUTE_COUNT_ONE

uint64_t route_frame_drops_total(const struct route_drop_stats *st)
{
    return net_counters_sum(st, route_drop_counters, route_frame_drop_counter_count);
}
