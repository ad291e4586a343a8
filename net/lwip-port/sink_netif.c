/* net/lwip-port/sink_netif.c: lwIP's interfaces over the ports (see header). */
#include "sink_netif.h"

#include <stddef.h>
#include <string.h>

#include "drivers/nic/nic_tx.h"
#include "lwip/ip.h"
#include "lwip/ip4.h"
#include "lwip/ip6.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "net/gro.h"
#include "net/handoff.h"
#include "net/iface.h"
#include "net/inet.h"
#include "net/inet6.h"
#include "net/nexthop.h"
#include "net/nexthop6.h"
#include "net/lwip-port/tcp_hooks.h"

/* lwIP never sums an outgoing TCP segment nor an IPv4 header: sink_tx_tcp_csum and
 * sink_tx_ip4_csum leave them to the NIC or sum them once the frame is built
 * (NETIF_CHECKSUM_GEN_TCP and _GEN_IP are off on every netif). What lwIP checks on input
 * follows the NIC's verdict on each frame. */
#define SINK_CSUM_SW_CHECKED \
    (NETIF_CHECKSUM_ENABLE_ALL & ~(NETIF_CHECKSUM_GEN_TCP | NETIF_CHECKSUM_GEN_IP))
#define SINK_CSUM_NIC_CHECKED \
    (SINK_CSUM_SW_CHECKED & ~(NETIF_CHECKSUM_CHECK_TCP | NETIF_CHECKSUM_CHECK_UDP))

struct sink_netif_stats sink_netif_stats;

static struct netif sink_netifs[WS_MAX_PORTS];
static struct netif *sink_netif_of[WS_MAX_PORTS]; /* NULL: the port has no address */
static unsigned sink_core;
static uint32_t sink_held[WS_MAX_CPUS]; /* buffers of each core's pool lwIP holds now */

/* The MTU every netif gets: the smallest of the addressed ports' (portN.mtu). lwIP's own
 * choice of netif need not be the port the FIB sends by (sink_netif_output), so only the
 * smallest keeps every segment within the MTU of whichever port it leaves by. */
static uint16_t sink_netif_mtu = 1500;

/*
 * lwIP fragments every IPv4 datagram longer than its netif's MTU (ip4_output_if), and an
 * offloaded connection's segments are (the NIC cuts them: lwport_tcp_offload_segments). So for
 * the one segment tcp_hooks.c sees leaving, the MTU check is lifted (0: lwIP's "no limit"), and
 * put back as soon as the glue's output has it, or at the pass's end at the latest.
 */
static bool sink_mtu_lifted;

static void sink_netif_set_mtu(uint16_t mtu)
{
    for (unsigned i = 0; i < WS_MAX_PORTS; i++) {
        if (sink_netif_of[i] != NULL) {
            sink_netif_of[i]->mtu = mtu;
        }
    }
}

void sink_netif_mtu_lift(void)
{
    sink_netif_set_mtu(0);
    sink_mtu_lifted = true;
}

static inline void sink_netif_mtu_restore(void)
{
    if (sink_mtu_lifted) {
        sink_netif_set_mtu(sink_netif_mtu);
        sink_mtu_lifted = false;
    }
}

_Static_assert(sizeof(struct pbuf_custom) <= sizeof(((struct pkb *)0)->stack_wrap),
               "a custom pbuf must fit in struct pkb's stack_wrap");

static struct pkb *pkb_of_pbuf(struct pbuf *p)
{
    return (struct pkb *)((uint8_t *)p - offsetof(struct pkb, stack_wrap));
}

/* lwIP is done with a received frame: its buffer goes home. */
static void sink_pbuf_release(struct pbuf *p)
{
    struct pkb *b = pkb_of_pbuf(p);
    sink_netif_stats.rx_released++;
    sink_held[b->owner]--;
    handoff_buffer_done(b);
}

/* sink_may_hold: lwIP may take `more` more of this buffer's core's pool (see the header). */
static bool sink_may_hold_n(const struct pkb *b, unsigned more)
{
    return sink_held[b->owner] + more <= b->pool->size / 2;
}

static bool sink_may_hold(const struct pkb *b)
{
    return sink_may_hold_n(b, 1);
}

/* sink_wrap: b as a custom pbuf of `len` bytes from `payload`, released home by lwIP. */
static struct pbuf *sink_wrap(struct pkb *b, uint8_t *payload, uint16_t len)
{
    struct pbuf_custom *pc = (struct pbuf_custom *)b->stack_wrap;
    pc->custom_free_function = sink_pbuf_release;
    struct pbuf *p = pbuf_alloced_custom(PBUF_RAW, len, PBUF_REF, pc, payload,
                                         (u16_t)(PKB_DATA_BYTES - (payload - b->data)));
    sink_netif_stats.rx_wrapped++;
    sink_held[b->owner]++;
    return p;
}

static void sink_note_held(void)
{
    struct sink_netif_stats *st = &sink_netif_stats;
    uint64_t held = st->rx_wrapped - st->rx_released;
    if (held > st->rx_held_max) {
        st->rx_held_max = held;
    }
}

void sink_netif_input(struct pkb *b)
{
    struct sink_netif_stats *st = &sink_netif_stats;
    struct netif *n = b->port < WS_MAX_PORTS ? sink_netif_of[b->port] : NULL;
    if (n == NULL) {
        st->rx_no_netif++;
        handoff_buffer_done(b);
        return;
    }
    if (!sink_may_hold(b)) {
        st->rx_hold_limit++;
        handoff_buffer_done(b);
        return;
    }
    /* net/local.c (local6.c) checked the IP header: the datagram's length fits the frame. */
    const uint8_t *ip = b->data + INET_ETH_HDR_BYTES;
    bool v6 = (ip[0] >> 4) == 6;
    uint16_t ip_len = v6 ? (uint16_t)(INET_IPV6_HDR_BYTES + inet_load_be16(ip + 4))
                         : inet_load_be16(ip + 2);
    struct pbuf *p = sink_wrap(b, b->data + INET_ETH_HDR_BYTES, ip_len);
    if (nic_rx_l4_csum_ok(b) && !v6) { /* IPv6: lwIP sums it (the NIC's verdict is untried) */
        st->rx_csum_offloaded++;
        NETIF_SET_CHECKSUM_CTRL(n, SINK_CSUM_NIC_CHECKED);
    } else {
        NETIF_SET_CHECKSUM_CTRL(n, SINK_CSUM_SW_CHECKED);
    }
    sink_note_held();
    n->input(p, n); /* ip_input (either version): always consumes p */
}

/*
 * sink_input_aggregate: b[0..k) as one TCP segment (net/gro.h said they make one, segs holds
 * them parsed): b[0]'s headers with the aggregate's IPv4 total length written into them, then
 * each later frame's payload chained behind (linked from the end, so each tot_len is set once),
 * every buffer still its own custom pbuf that goes home when lwIP lets go of it. The IPv4
 * header checksum is left stale: lwIP does not check it (CHECKSUM_CHECK_IP 0, net/local.c
 * checked the original); every TCP checksum was checked, by the NIC or by sink_l4_verified, so
 * lwIP is told not to check the aggregate's.
 */
static void sink_input_aggregate(struct pkb *const *b, const struct gro_seg *segs, unsigned k,
                                 uint16_t ip_len)
{
    struct sink_netif_stats *st = &sink_netif_stats;
    struct netif *n = sink_netif_of[b[0]->port];
    struct pbuf *next = NULL;
    for (unsigned i = k - 1; i >= 1; i--) {
        struct pbuf *q = sink_wrap(b[i], b[i]->data + segs[i].hdr_bytes, segs[i].payload);
        q->next = next;
        q->tot_len = (u16_t)(q->len + (next ? next->tot_len : 0));
        next = q;
    }
    uint8_t *ip = b[0]->data + INET_ETH_HDR_BYTES;
    inet_store_be16(ip + 2, ip_len);
    struct pbuf *p = sink_wrap(b[0], ip, segs[0].ip_len);
    p->next = next;
    p->tot_len = ip_len;
    for (unsigned i = 0; i < k; i++) {
        if (nic_rx_l4_csum_ok(b[i])) {
            st->rx_csum_offloaded++;
        } else {
            st->rx_csum_sw_verified++;
        }
    }
    st->rx_gro_aggregates++;
    st->rx_gro_merged += k - 1;
    NETIF_SET_CHECKSUM_CTRL(n, SINK_CSUM_NIC_CHECKED);
    sink_note_held();
    n->input(p, n);
}

/* sink_l4_verified: b's TCP checksum is known good: the NIC says so, or it is checked here
 * (the wide-accumulator sum of net/inet.c, a fraction of lwIP's per-segment cost). Only asked
 * of frames gro_parse accepted: IPv4 without options, the length within the frame. */
static bool sink_l4_verified(const struct pkb *b)
{
    if (nic_rx_l4_csum_ok(b)) {
        return true;
    }
    const uint8_t *ip = b->data + INET_ETH_HDR_BYTES;
    uint16_t tcp_len = (uint16_t)(inet_load_be16(ip + 2) - INET_IPV4_HDR_BYTES);
    uint32_t sum = inet_csum_add(0, ip + 12, 8); /* the pseudo-header: addresses, */
    sum += INET_PROTO_TCP + (uint32_t)tcp_len;   /* protocol and TCP length */
    sum = inet_csum_add(sum, ip + INET_IPV4_HDR_BYTES, tcp_len);
    return inet_csum_fold(sum) == 0;
}

/* sink_input_last_ack: of the pure ACKs b[0..k) (net/gro.h's ACK run) only the last reaches
 * lwIP; the others go home unseen. */
static void sink_input_last_ack(struct pkb *const *b, unsigned k)
{
    for (unsigned i = 0; i + 1 < k; i++) {
        handoff_buffer_done(b[i]);
    }
    sink_netif_stats.rx_acks_superseded += k - 1;
    sink_netif_input(b[k - 1]);
}

/* sink_is_tcp4: b may be an IPv4 TCP segment (what net/gro.h merges); anything else (a UDP
 * datagram, IPv6, a fragment's later part) goes to lwIP alone without a look from either run. */
static inline bool sink_is_tcp4(const struct pkb *b)
{
    return b->len >= INET_ETH_HDR_BYTES + INET_IPV4_HDR_BYTES &&
           inet_load_be16(b->data + 12) == INET_ETHERTYPE_IPV4 &&
           b->data[INET_ETH_HDR_BYTES + 9] == INET_PROTO_TCP;
}

void sink_netif_input_burst(struct pkb *const *b, unsigned n)
{
    struct gro_seg segs[n ? n : 1];
    for (unsigned i = 0; i < n;) {
        if (!sink_is_tcp4(b[i])) {
            sink_netif_input(b[i++]);
            continue;
        }
        uint16_t ip_len;
        unsigned k = gro_run(b + i, n - i, sink_l4_verified, segs, &ip_len);
        bool ours = b[i]->port < WS_MAX_PORTS && sink_netif_of[b[i]->port] != NULL;
        if (k > 1 && ours && sink_may_hold_n(b[i], k)) {
            sink_input_aggregate(b + i, segs, k, ip_len);
        } else if (ip_len == 0 && ours &&
                   (k = gro_ack_run(b + i, n - i, sink_l4_verified, segs)) > 1) {
            sink_input_last_ack(b + i, k);
        } else {
            k = 1; /* alone: the per-frame path drops and counts what it must */
            sink_netif_input(b[i]);
        }
        i += k;
    }
}

void sink_netif_flush(void)
{
    sink_netif_mtu_restore();
    nic_tx_flush(sink_core);
}

/*
 * sink_tx_tcp_csum: the TCP checksum of the segment in frame b, which lwIP left 0. Where the
 * egress port's NIC can (nic_port.tx_tcp4_csum: igb and the 82599, 82576 §7.2.2.2 / 82599
 * §7.2.5), the field gets the pseudo-header sum and the NIC adds the header and payload to it
 * as it sends; otherwise the whole segment is summed here. lwIP's IPv4 header has no options.
 */
static void sink_tx_tcp_csum(struct pkb *b, const struct nic_port *out)
{
    struct sink_netif_stats *st = &sink_netif_stats;
    uint8_t *ip = b->data + INET_ETH_HDR_BYTES;
    unsigned hl = (ip[0] & 0x0Fu) * 4u;
    uint16_t tcp_len = (uint16_t)(inet_load_be16(ip + 2) - hl);
    uint8_t *tcp = ip + hl;
    uint32_t sum = (uint32_t)inet_load_be16(ip + 12) + inet_load_be16(ip + 14) + /* source, */
                   inet_load_be16(ip + 16) + inet_load_be16(ip + 18) +           /* destination */
                   INET_PROTO_TCP + tcp_len;
    if (out->tx_tcp4_csum && hl == INET_IPV4_HDR_BYTES) {
        inet_store_be16(tcp + 16, (uint16_t)~inet_csum_fold(sum)); /* folded, not inverted */
        b->tx_flags |= PKB_TX_CSUM_TCP4;
        st->tx_csum_offloaded++;
    } else {
        /* (a frame by reference has its data at tx.ext: sink_by_reference left an even
         * number of bytes here, so the two pieces chain) */
        bool ext = (b->tx_flags & PKB_TX_EXT) != 0;
        inet_store_be16(tcp + 16, 0);
        sum = inet_csum_add(sum, tcp, ext ? tcp_len - b->tx.ext_len : tcp_len);
        sum = ext ? inet_csum_add(sum, b->tx.ext, b->tx.ext_len) : sum;
        inet_store_be16(tcp + 16, inet_csum_fold(sum));
        st->tx_csum_sw++;
    }
}

/* sink_tx_tcp6_csum: the TCP checksum of the IPv6 segment in frame b (no extension header:
 * lwIP adds none to TCP), summed here: the TX rings' checksum context is TCP over IPv4
 * (RFC 8200 8.1: the pseudo-header is both addresses, the upper-layer length and 6). */
static void sink_tx_tcp6_csum(struct pkb *b)
{
    uint8_t *ip = b->data + INET_ETH_HDR_BYTES;
    uint8_t *tcp = ip + INET_IPV6_HDR_BYTES;
    inet_store_be16(tcp + 16, 0);
    inet_store_be16(tcp + 16, inet6_upper_csum(ip, tcp, inet_load_be16(ip + 4), INET_PROTO_TCP));
    sink_netif_stats.tx_csum_sw++;
}

/* sink_tx_ip4_csum: the IPv4 header checksum of frame b, which lwIP left alone: 0 for the NIC
 * to fill (PKB_TX_CSUM_IP4) when it completes the TCP checksum too and the frame was not
 * padded (pkb.h says why), else summed here (UDP, ICMP, fragments, short segments, a port
 * without the offload). */
static void sink_tx_ip4_csum(struct pkb *b, bool padded)
{
    uint8_t *ip = b->data + INET_ETH_HDR_BYTES;
    unsigned hl = (ip[0] & 0x0Fu) * 4u;
    inet_store_be16(ip + 10, 0);
    if ((b->tx_flags & PKB_TX_CSUM_TCP4) && !padded) {
        b->tx_flags |= PKB_TX_CSUM_IP4;
        sink_netif_stats.tx_ip_csum_offloaded++;
    } else {
        inet_store_be16(ip + 10, inet_csum_fold(inet_csum_add(0, ip, hl)));
    }
}

/* Memory that never changes while the image runs (the services' constant payloads): a
 * segment whose data lies in it may leave by reference. */
#define SINK_CONSTANT_REGIONS 4
static struct {
    const uint8_t *base;
    size_t len;
} sink_constants[SINK_CONSTANT_REGIONS];
static unsigned sink_nconstants;

void sink_netif_constant(const void *p, size_t n)
{
    if (sink_nconstants < SINK_CONSTANT_REGIONS) {
        sink_constants[sink_nconstants].base = p;
        sink_constants[sink_nconstants++].len = n;
    }
}

static bool sink_is_constant(const void *p, size_t n)
{
    const uint8_t *a = p;
    for (unsigned i = 0; i < sink_nconstants; i++) {
        if (a >= sink_constants[i].base && n <= sink_constants[i].len &&
            (size_t)(a - sink_constants[i].base) <= sink_constants[i].len - n) {
            return true;
        }
    }
    return false;
}

/*
 * sink_by_reference: the part of lwIP's datagram p that may leave without a copy (PKB_TX_EXT),
 * or NULL: a TCP segment as lwIP builds one from a write it did not copy (tcp_write without
 * TCP_WRITE_FLAG_COPY), its headers in the first pbuf and its data in one more that lies in
 * constant memory, to a port whose NIC sums the checksum (the glue never reads that data).
 */
static const struct pbuf *sink_by_reference(const struct pbuf *p, const struct nic_port *out)
{
    const struct pbuf *q = p->next;
    const uint8_t *ip = p->payload;
    if (!out->tx_tcp4_csum || q == NULL || q->next != NULL || p->len < INET_IPV4_HDR_BYTES + 20 ||
        (p->len & 1) != 0 ||
        ip[0] != 0x45 || ip[9] != INET_PROTO_TCP || q->len > IRING_TX_EXT_MAX_BYTES ||
        q->len == 0 || INET_ETH_HDR_BYTES + p->tot_len < INET_ETH_MIN_FRAME_BYTES) {
        return NULL;
    }
    return sink_is_constant(q->payload, q->len) ? q : NULL;
}

/* sink_frame_start: a buffer of the sink core's pool holding an Ethernet header from out to
 * mac (b->len not yet set); NULL, counted, if the pool is empty. */
static struct pkb *sink_frame_start(const struct nic_port *out, const uint8_t *mac,
                                    uint16_t ethertype)
{
    struct pkb *b = pkb_alloc(nic_pool(sink_core));
    if (b == NULL) {
        sink_netif_stats.tx_no_buffer++;
        return NULL;
    }
    pkb_tx_own(b);
    __builtin_memcpy(b->data, mac, 6); /* inlined: -ffreestanding would make these calls */
    __builtin_memcpy(b->data + 6, out->mac, 6);
    inet_store_be16(b->data + 12, ethertype);
    return b;
}

/* sink_frame: an Ethernet frame around lwIP's datagram p, in a buffer of our pool: copied
 * whole, or its headers only with the rest by reference (sink_by_reference). */
static struct pkb *sink_frame(struct pbuf *p, const struct nic_port *out, const uint8_t *mac)
{
    struct sink_netif_stats *st = &sink_netif_stats;
    const struct pbuf *ref = sink_by_reference(p, out);
    if (ref == NULL && p->tot_len > PKB_DATA_BYTES - INET_ETH_HDR_BYTES) {
        st->tx_too_big++;
        return NULL;
    }
    bool v6 = (((const uint8_t *)p->payload)[0] >> 4) == 6;
    struct pkb *b = sink_frame_start(out, mac, v6 ? INET_ETHERTYPE_IPV6 : INET_ETHERTYPE_IPV4);
    if (b == NULL) {
        return NULL;
    }
    uint32_t len = INET_ETH_HDR_BYTES;
    if (ref != NULL) {
        memcpy(b->data + len, p->payload, p->len); /* the headers, in one piece */
        len += p->len;
    } else {
        len += pbuf_copy_partial(p, b->data + len, p->tot_len, 0);
    }
    if (ref != NULL) {
        b->tx.ext = ref->payload;
        b->tx.ext_len = ref->len;
        b->tx_flags = PKB_TX_EXT;
        st->tx_by_reference++;
    }
    bool padded = ref == NULL && len < INET_ETH_MIN_FRAME_BYTES;
    if (padded) {
        memset(b->data + len, 0, INET_ETH_MIN_FRAME_BYTES - len);
        len = INET_ETH_MIN_FRAME_BYTES;
    }
    b->len = (uint16_t)len;
    const uint8_t *ip = b->data + INET_ETH_HDR_BYTES;
    if (v6 && ip[6] == INET_PROTO_TCP) {
        sink_tx_tcp6_csum(b);
    } else if (!v6 && ip[9] == INET_PROTO_TCP && (inet_load_be16(ip + 6) & 0x3FFFu) == 0) {
        sink_tx_tcp_csum(b, out); /* a fragment's checksum is not its own: not lwIP's TCP */
    }
    if (!v6) {
        sink_tx_ip4_csum(b, padded); /* after the TCP checksum's choice of offload */
    }
    return b;
}

/*
 * A segment larger than one frame: an offloaded connection's (lwport_tcp_offload_segments).
 * Its data is taken in runs of contiguous memory (lwIP's pbufs, neighbours joined: consecutive
 * writes from one constant buffer extend each other); a run in constant memory leaves as one
 * TSO frame the NIC cuts at the peer's MSS, any other (copied data: a zero-window probe's
 * split, or a port that cannot cut) as frames of the peer's MSS made here, by reference where
 * constant. Every frame carries lwIP's headers with its own length, ID and sequence number,
 * FIN and PSH on the segment's last only, as the NIC does (82599 §7.2.4).
 */
struct sink_seg {
    const uint8_t *hdr;      /* lwIP's IPv4 and TCP headers */
    unsigned hlen;           /* their bytes */
    uint32_t len;            /* the segment's payload bytes */
    uint16_t wire_mss;       /* the peer's MSS */
    uint16_t id;             /* the next frame's IPv4 ID */
    const struct nic_port *out;
    const uint8_t *mac;
    unsigned port;
};

/* sink_seg_frame: a frame with the segment's headers for its payload bytes [off, off + n), the
 * payload not yet attached: b->len covers the headers. NULL: the pool was empty. */
static struct pkb *sink_seg_frame(struct sink_seg *s, uint32_t off, uint32_t n)
{
    struct pkb *b = sink_frame_start(s->out, s->mac, INET_ETHERTYPE_IPV4);
    if (b == NULL) {
        return NULL;
    }
    uint8_t *ip = b->data + INET_ETH_HDR_BYTES, *tcp = ip + INET_IPV4_HDR_BYTES;
    memcpy(ip, s->hdr, s->hlen);
    inet_store_be16(ip + 2, (uint16_t)(s->hlen + n));
    inet_store_be16(ip + 4, s->id++);
    inet_store_be32(tcp + 4, inet_load_be32(tcp + 4) + off);
    if (off + n < s->len) {
        tcp[13] &= (uint8_t)~(INET_TCP_FIN | INET_TCP_PSH); /* the segment's last frame's */
    }
    b->len = (uint16_t)(INET_ETH_HDR_BYTES + s->hlen);
    return b;
}

/* sink_seg_tso: the run [d, d + n) at payload offset off as one frame the NIC cuts; its TCP
 * checksum field primed with the pseudo-header sum without the length (the NIC adds each
 * segment's), the IPv4 one left 0. */
static bool sink_seg_tso(struct sink_seg *s, const uint8_t *d, uint32_t n, uint32_t off)
{
    struct pkb *b = sink_seg_frame(s, off, n);
    if (b == NULL) {
        return false;
    }
    uint8_t *ip = b->data + INET_ETH_HDR_BYTES;
    uint32_t sum = inet_csum_add(INET_PROTO_TCP, ip + 12, 8);
    inet_store_be16(ip + 10, 0);
    inet_store_be16(ip + INET_IPV4_HDR_BYTES + 16, (uint16_t)~inet_csum_fold(sum));
    b->tx.ext = d;
    b->tx.ext_len = n;
    b->tx.mss = s->wire_mss;
    b->tx_flags = PKB_TX_TSO | PKB_TX_EXT | PKB_TX_CSUM_TCP4 | PKB_TX_CSUM_IP4;
    s->id = (uint16_t)(s->id + (n + s->wire_mss - 1) / s->wire_mss - 1); /* the NIC's IDs */
    nic_tx_queue(sink_core, s->port, b);
    struct sink_netif_stats *st = &sink_netif_stats;
    st->tx_frames++;
    st->tx_bytes += s->hlen + n;
    st->tx_csum_offloaded++;
    st->tx_ip_csum_offloaded++;
    st->tx_by_reference++;
    st->tx_tso_frames++;
    return true;
}

/* sink_seg_one: payload [d, d + n) (at most the peer's MSS) at offset off as one frame, by
 * reference if it is constant and the frame needs no padding, copied otherwise. */
static bool sink_seg_one(struct sink_seg *s, const uint8_t *d, uint32_t n, uint32_t off,
                         bool constant)
{
    uint32_t flen = INET_ETH_HDR_BYTES + s->hlen + n;
    bool by_ref = constant && flen >= INET_ETH_MIN_FRAME_BYTES && n <= IRING_TX_EXT_MAX_BYTES;
    if (!by_ref && flen > PKB_DATA_BYTES) {
        sink_netif_stats.tx_too_big++;
        return false;
    }
    struct pkb *b = sink_seg_frame(s, off, n);
    if (b == NULL) {
        return false;
    }
    if (by_ref) {
        b->tx.ext = d;
        b->tx.ext_len = n;
        b->tx_flags = PKB_TX_EXT;
        sink_netif_stats.tx_by_reference++;
    } else {
        memcpy(b->data + b->len, d, n);
        b->len = (uint16_t)(b->len + n);
    }
    bool padded = flen < INET_ETH_MIN_FRAME_BYTES;
    if (padded) {
        memset(b->data + b->len, 0, INET_ETH_MIN_FRAME_BYTES - flen);
        b->len = INET_ETH_MIN_FRAME_BYTES;
    }
    sink_tx_tcp_csum(b, s->out);
    sink_tx_ip4_csum(b, padded);
    nic_tx_queue(sink_core, s->port, b);
    sink_netif_stats.tx_frames++;
    sink_netif_stats.tx_bytes += s->hlen + n;
    sink_netif_stats.tx_split_frames++;
    return true;
}

/* sink_seg_run: the run [d, d + n) of the segment's payload, at offset off. */
static bool sink_seg_run(struct sink_seg *s, const uint8_t *d, uint32_t n, uint32_t off)
{
    bool constant = sink_is_constant(d, n);
    if (constant && s->out->tx_tcp4_tso && n > s->wire_mss && n <= IRING_TX_TSO_MAX_BYTES) {
        return sink_seg_tso(s, d, n, off);
    }
    for (uint32_t k = 0; k < n; k += s->wire_mss) {
        uint32_t c = n - k < s->wire_mss ? n - k : s->wire_mss;
        if (!sink_seg_one(s, d + k, c, off + k, constant)) {
            return false;
        }
    }
    return true;
}

/* sink_send_segmented: lwIP's TCP/IPv4 segment p, whose payload exceeds the peer's MSS
 * wire_mss, in frames of at most that (see struct sink_seg). */
static err_t sink_send_segmented(struct pbuf *p, unsigned port, const uint8_t *mac,
                                 uint16_t wire_mss)
{
    const uint8_t *ip = p->payload;
    struct sink_seg s = {
        .hdr = ip, .hlen = INET_IPV4_HDR_BYTES + (ip[INET_IPV4_HDR_BYTES + 12] >> 4) * 4u,
        .wire_mss = wire_mss, .id = inet_load_be16(ip + 4), .out = nic_port(port),
        .mac = mac, .port = port,
    };
    s.len = p->tot_len - s.hlen;
    const uint8_t *run = NULL;
    uint32_t run_len = 0, off = 0, skip = s.hlen;
    for (const struct pbuf *q = p; q != NULL; q = q->next) {
        const uint8_t *d = (const uint8_t *)q->payload + skip;
        uint32_t n = q->len - skip;
        skip = 0;
        if (run != NULL && run + run_len == d) {
            run_len += n;
            continue;
        }
        if (run != NULL && !sink_seg_run(&s, run, run_len, off)) {
            return ERR_MEM; /* lwIP sends the segment again (the frames before it twice) */
        }
        off += run_len;
        run = d;
        run_len = n;
    }
    if (run != NULL && !sink_seg_run(&s, run, run_len, off)) {
        return ERR_MEM;
    }
    return ERR_OK;
}

/* sink_segment_wire_mss: the peer's MSS if p is a TCP/IPv4 segment with more payload than
 * that (an offloaded connection's), else 0. */
static uint16_t sink_segment_wire_mss(const struct pbuf *p)
{
    const uint8_t *ip = p->payload;
    if (p->len < INET_IPV4_HDR_BYTES + 20 || ip[0] != 0x45 || ip[9] != INET_PROTO_TCP) {
        return 0;
    }
    const uint8_t *tcp = ip + INET_IPV4_HDR_BYTES;
    uint16_t mss = lwport_tcp_wire_mss(tcp);
    unsigned hlen = INET_IPV4_HDR_BYTES + (tcp[12] >> 4) * 4u;
    return mss != 0 && p->len >= hlen && p->tot_len > hlen + mss ? mss : 0;
}

/* sink_netif_send: lwIP's datagram p out of the port and to the MAC resolution gave. */
static err_t sink_netif_send(struct pbuf *p, enum nexthop_result r, unsigned port,
                             const uint8_t *mac)
{
    struct sink_netif_stats *st = &sink_netif_stats;
    switch (r) {
    case NEXTHOP_OK:
        break;
    case NEXTHOP_NO_ROUTE:
        st->tx_no_route++;
        return ERR_RTE;
    case NEXTHOP_PORT_DOWN:
        st->tx_port_down++;
        return ERR_OK; /* TCP retransmits once the link is back */
    default:
        st->tx_unresolved++;
        return ERR_OK; /* likewise, once ARP has answered */
    }
    uint16_t wire_mss = sink_segment_wire_mss(p);
    if (wire_mss != 0) {
        return sink_send_segmented(p, port, mac, wire_mss);
    }
    struct pkb *b = sink_frame(p, nic_port(port), mac);
    if (b == NULL) {
        return ERR_MEM;
    }
    nic_tx_queue(sink_core, port, b);
    st->tx_frames++;
    st->tx_bytes += p->tot_len;
    return ERR_OK;
}

/* lwIP's IPv4 output: the FIB, not lwIP's netif choice, decides the egress port. */
static err_t sink_netif_output(struct netif *n, struct pbuf *p, const ip4_addr_t *dst)
{
    sink_netif_mtu_restore();
    unsigned port = 0;
    uint8_t mac[6];
    (void)n;
    enum nexthop_result r = nexthop_resolve(sink_core, lwip_ntohl(ip4_addr_get_u32(dst)),
                                            &port, mac);
    return sink_netif_send(p, r, port, mac);
}

/* lwIP's IPv6 output: likewise, by the IPv6 FIB and neighbour cache (net/nexthop6). */
static err_t sink_netif_output6(struct netif *n, struct pbuf *p, const ip6_addr_t *dst)
{
    unsigned port = 0;
    uint8_t mac[6];
    (void)n;
    enum nexthop_result r = nexthop6_resolve(sink_core, (const uint8_t *)dst->addr, &port, mac);
    return sink_netif_send(p, r, port, mac);
}

static err_t sink_netif_setup(struct netif *n)
{
    n->name[0] = 'p';
    n->name[1] = (char)('0' + ((const struct nic_port *)n->state)->index % 10);
    n->mtu = sink_netif_mtu;
    n->output = sink_netif_output;
    n->output_ip6 = sink_netif_output6;
    n->flags = NETIF_FLAG_BROADCAST;
    NETIF_SET_CHECKSUM_CTRL(n, SINK_CSUM_SW_CHECKED); /* netif_add turned all on just before */
    return ERR_OK;
}

/* sink_netif_add6: the port's global IPv6 address on its netif, valid at once (net/dad6 does
 * the detection), and local6 told to hand TCP and UDP to it over IPv6 too. */
static void sink_netif_add6(struct netif *n, struct net_iface6 *ifc6)
{
    if (!ifc6->enabled || !ifc6->has_global) {
        return;
    }
    ip6_addr_t a;
    memcpy(a.addr, ifc6->global, sizeof(a.addr)); /* both in network byte order */
    ip6_addr_clear_zone(&a);
    netif_ip6_addr_set(n, 0, &a);
    netif_ip6_addr_set_state(n, 0, IP6_ADDR_PREFERRED);
    ifc6->sink = true;
}

unsigned sink_netif_init(unsigned core)
{
    unsigned added = 0;
    uint16_t mtu = UINT16_MAX;
    sink_core = core;
    for (unsigned i = 0; i < nic_port_count() && i < WS_MAX_PORTS; i++) {
        if (net_port(i)->has_address && net_port(i)->mtu < mtu) {
            mtu = net_port(i)->mtu;
        }
    }
    sink_netif_mtu = mtu != UINT16_MAX ? mtu : 1500;
    for (unsigned i = 0; i < nic_port_count() && i < WS_MAX_PORTS; i++) {
        struct nic_port *p = nic_port(i);
        struct net_iface *ifc = &net_port(i)->ifc;
        if (!net_port(i)->has_address) {
            continue;
        }
        ip4_addr_t ip, mask, gw;
        ip4_addr_set_u32(&ip, lwip_htonl(ifc->ip));
        ip4_addr_set_u32(&mask, lwip_htonl(ifc->prefix_len ? ~0U << (32 - ifc->prefix_len) : 0));
        ip4_addr_set_zero(&gw);
        struct netif *n = netif_add(&sink_netifs[i], &ip, &mask, &gw, p, sink_netif_setup,
                                    ip_input);
        if (n == NULL) {
            continue;
        }
        if (added == 0) {
            netif_set_default(n); /* lwIP's choice only; sink_netif_output routes by the FIB */
        }
        sink_netif_add6(n, &net_port(i)->ifc6);
        netif_set_up(n);
        netif_set_link_up(n);
        sink_netif_of[i] = n;
        ifc->sink = true; /* from now on the port's cores hand TCP/UDP to us */
        added++;
    }
    return added;
}
