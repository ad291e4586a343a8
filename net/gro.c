/* net/gro.c: which handed-off TCP segments make one aggregate (see the header). */
#include "gro.h"

#include <string.h>

#include "net/inet.h"

#define GRO_TCP_PSH 0x08
#define GRO_TCP_ACK 0x10
#define GRO_TCP_MIN_HDR_BYTES 20
#define GRO_IP_MAX_LEN 0xffffu /* the aggregate's IPv4 total length, and lwIP's u16 tot_len */

/* gro_parse_tcp: b as IPv4 without options or fragmentation carrying TCP, every length checked
 * against the frame; the payload may be empty. */
static bool gro_parse_tcp(const struct pkb *b, struct gro_seg *s)
{
    const unsigned eth = INET_ETH_HDR_BYTES;
    if (b->len < eth + INET_IPV4_HDR_BYTES + GRO_TCP_MIN_HDR_BYTES ||
        inet_load_be16(b->data + 12) != INET_ETHERTYPE_IPV4) {
        return false;
    }
    const uint8_t *ip = b->data + eth;
    uint16_t ip_len = inet_load_be16(ip + 2);
    uint16_t frag = inet_load_be16(ip + 6);
    if (ip[0] != 0x45 || ip[9] != INET_PROTO_TCP || ip_len > b->len - eth ||
        (frag & (INET_IPV4_FLAG_MF | INET_IPV4_FRAG_OFFSET_MASK)) != 0) {
        return false; /* options, fragments, not TCP, or a length the frame does not hold */
    }
    const uint8_t *tcp = ip + INET_IPV4_HDR_BYTES;
    unsigned thl = (unsigned)(tcp[12] >> 4) * 4;
    if (thl < GRO_TCP_MIN_HDR_BYTES || INET_IPV4_HDR_BYTES + thl > ip_len) {
        return false; /* a header longer than the datagram */
    }
    *s = (struct gro_seg){
        .ip = ip,
        .tcp = tcp,
        .seq = inet_load_be32(tcp + 4),
        .ack = inet_load_be32(tcp + 8),
        .ip_len = ip_len,
        .hdr_bytes = (uint16_t)(eth + INET_IPV4_HDR_BYTES + thl),
        .payload = (uint16_t)(ip_len - INET_IPV4_HDR_BYTES - thl),
        .flags = tcp[13],
    };
    return true;
}

bool gro_parse(const struct pkb *b, struct gro_seg *s)
{
    /* payload, ACK and at most PSH: no control flag */
    return gro_parse_tcp(b, s) && s->payload != 0 &&
           (s->flags & ~(GRO_TCP_ACK | GRO_TCP_PSH)) == 0 && (s->flags & GRO_TCP_ACK);
}

/* gro_parse_pure_ack: b as a segment with no payload and no flag but ACK. */
static bool gro_parse_pure_ack(const struct pkb *b, struct gro_seg *s)
{
    return gro_parse_tcp(b, s) && s->payload == 0 && s->flags == GRO_TCP_ACK;
}

static inline uint32_t gro_u32(const uint8_t *p)
{
    uint32_t v;
    __builtin_memcpy(&v, p, sizeof(v)); /* a plain load (-ffreestanding: not a call) */
    return v;
}

static inline uint16_t gro_u16(const uint8_t *p)
{
    uint16_t v;
    __builtin_memcpy(&v, p, sizeof(v));
    return v;
}

/* gro_same_connection_state: addresses, ports, ACK number, header length, window and options
 * as the run's first segment: bytes 12-19 of the IPv4 header, then the TCP header but for its
 * sequence number, flags (compared by the caller) and checksum. */
static bool gro_same_connection_state(const struct gro_seg *head, const struct gro_seg *s)
{
    const uint8_t *a = head->tcp, *c = s->tcp;
    if ((gro_u32(head->ip + 12) ^ gro_u32(s->ip + 12)) | (gro_u32(head->ip + 16) ^ gro_u32(s->ip + 16)) |
        (gro_u32(a) ^ gro_u32(c)) | (gro_u32(a + 8) ^ gro_u32(c + 8)) |
        (uint32_t)(a[12] ^ c[12]) | (uint32_t)(gro_u16(a + 14) ^ gro_u16(c + 14)) |
        (uint32_t)(gro_u16(a + 18) ^ gro_u16(c + 18))) {
        return false; /* addresses, ports, ACK, data offset, window, urgent pointer */
    }
    unsigned thl = (unsigned)(a[12] >> 4) * 4;
    return thl == 20 || memcmp(a + 20, c + 20, thl - 20) == 0; /* the options */
}

unsigned gro_run(struct pkb *const *b, unsigned n, bool (*verified)(const struct pkb *),
                 struct gro_seg *segs, uint16_t *ip_len)
{
    *ip_len = 0;
    if (n == 0) {
        return 0;
    }
    const struct gro_seg *head = &segs[0];
    if (!gro_parse(b[0], &segs[0]) || !verified(b[0])) {
        return 1;
    }
    uint32_t total = head->ip_len;
    unsigned k = 1;
    while (k < n) {
        const struct gro_seg *prev = &segs[k - 1];
        struct gro_seg *cur = &segs[k];
        /* the first segment carries no PSH (it would have ended the run): the others may add
         * only that */
        if ((prev->flags & GRO_TCP_PSH) || !gro_parse(b[k], cur) ||
            cur->seq != prev->seq + prev->payload || (cur->flags & ~GRO_TCP_PSH) != head->flags ||
            b[k]->owner != b[0]->owner || total + cur->payload > GRO_IP_MAX_LEN ||
            !gro_same_connection_state(head, cur) || !verified(b[k])) {
            break;
        }
        total += cur->payload;
        k++;
    }
    *ip_len = (uint16_t)total;
    return k;
}

/* gro_same_flow_and_seq: addresses, ports, sequence number and header length as head's. */
static bool gro_same_flow_and_seq(const struct gro_seg *head, const struct gro_seg *s)
{
    return ((gro_u32(head->ip + 12) ^ gro_u32(s->ip + 12)) |
            (gro_u32(head->ip + 16) ^ gro_u32(s->ip + 16)) | (gro_u32(head->tcp) ^ gro_u32(s->tcp)) |
            (head->seq ^ s->seq) | (uint32_t)(head->tcp[12] ^ s->tcp[12])) == 0;
}

unsigned gro_ack_run(struct pkb *const *b, unsigned n, bool (*verified)(const struct pkb *),
                     struct gro_seg *segs)
{
    if (n == 0) {
        return 0;
    }
    if (!gro_parse_pure_ack(b[0], &segs[0])) {
        return 1;
    }
    unsigned k = 1;
    while (k < n) {
        const struct gro_seg *prev = &segs[k - 1];
        struct gro_seg *cur = &segs[k];
        if (!gro_parse_pure_ack(b[k], cur) || (int32_t)(cur->ack - prev->ack) <= 0 ||
            b[k]->owner != b[0]->owner || !gro_same_flow_and_seq(&segs[0], cur) ||
            (k == 1 && !verified(b[0])) || !verified(b[k])) {
            break; /* a duplicate or older ACK, a window update, data, another connection */
        }
        k++;
    }
    return k; /* a lone ACK's checksum is lwIP's to check, as for any frame alone */
}
