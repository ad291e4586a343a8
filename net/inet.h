/*
 * net/inet.h: wire formats of the protocols the appliance speaks itself (Ethernet, ARP RFC 826,
 * IPv4 RFC 791, ICMP RFC 792, UDP RFC 768), big-endian load/store helpers that work on any byte
 * address, and the Internet checksum (RFC 1071, incremental update RFC 1624).
 *
 * Every multi-byte header field is a byte array, read and written only through inet_load_be*()
 * and inet_store_be*(): frames arrive at any alignment, and a field's type then says nothing
 * false about its byte order. The structs document layout; their sizes are asserted.
 */
#ifndef WS_INET_H
#define WS_INET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --- byte order ------------------------------------------------------------------------------- */

/* One unaligned load or store and a byte swap each (x86 allows unaligned access; the memcpy
 * says so to the compiler): GCC does not always merge the byte-wise form when the bytes are
 * also read one by one nearby, and these are on the router's per-packet path. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the loads below swap bytes");

static inline uint16_t inet_load_be16(const uint8_t *p)
{
    uint16_t v;
    __builtin_memcpy(&v, p, sizeof(v));
    return __builtin_bswap16(v);
}

static inline uint32_t inet_load_be32(const uint8_t *p)
{
    uint32_t v;
    __builtin_memcpy(&v, p, sizeof(v));
    return __builtin_bswap32(v);
}

static inline void inet_store_be16(uint8_t *p, uint16_t v)
{
    v = __builtin_bswap16(v);
    __builtin_memcpy(p, &v, sizeof(v));
}

static inline void inet_store_be32(uint8_t *p, uint32_t v)
{
    v = __builtin_bswap32(v);
    __builtin_memcpy(p, &v, sizeof(v));
}

/* Host <-> network order for values already in registers (x86 is little-endian). */
static inline uint16_t inet_htons(uint16_t v)
{
    return __builtin_bswap16(v);
}

static inline uint32_t inet_htonl(uint32_t v)
{
    return __builtin_bswap32(v);
}

static inline uint16_t inet_ntohs(uint16_t v)
{
    return __builtin_bswap16(v);
}

static inline uint32_t inet_ntohl(uint32_t v)
{
    return __builtin_bswap32(v);
}

/* --- Ethernet (IEEE 802.3 clause 3; FCS already stripped by the NIC) -------------------------- */

#define INET_ETH_ADDR_BYTES 6
#define INET_ETH_HDR_BYTES 14
#define INET_ETH_MIN_FRAME_BYTES 60 /* 64-byte minimum frame less the 4-byte FCS */

#define INET_ETHERTYPE_IPV4 0x0800
#define INET_ETHERTYPE_ARP 0x0806

struct inet_eth_hdr {
    uint8_t dst[INET_ETH_ADDR_BYTES];
    uint8_t src[INET_ETH_ADDR_BYTES];
    uint8_t type[2];
} __attribute__((packed, may_alias));
_Static_assert(sizeof(struct inet_eth_hdr) == INET_ETH_HDR_BYTES, "Ethernet header is 14 bytes");

/* The I/G bit (first bit on the wire = LSB of the first byte) marks group addresses. */
static inline bool inet_eth_is_group(const uint8_t *mac)
{
    return (mac[0] & 0x01) != 0;
}

static inline bool inet_eth_is_broadcast(const uint8_t *mac)
{
    return (mac[0] & mac[1] & mac[2] & mac[3] & mac[4] & mac[5]) == 0xff;
}

static inline bool inet_eth_is_zero(const uint8_t *mac)
{
    return (mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]) == 0;
}

/* --- ARP for IPv4 over Ethernet (RFC 826) ----------------------------------------------------- */

#define INET_ARP_BYTES 28
#define INET_ARP_HTYPE_ETHERNET 1 /* ar$hrd: ares_hrd$Ethernet */
#define INET_ARP_OP_REQUEST 1     /* ar$op: ares_op$REQUEST */
#define INET_ARP_OP_REPLY 2       /* ar$op: ares_op$REPLY */

struct inet_arp {
    uint8_t htype[2]; /* ar$hrd */
    uint8_t ptype[2]; /* ar$pro: an EtherType */
    uint8_t hlen;     /* ar$hln */
    uint8_t plen;     /* ar$pln */
    uint8_t op[2];    /* ar$op */
    uint8_t sha[INET_ETH_ADDR_BYTES]; /* ar$sha: sender hardware address */
    uint8_t spa[4];                   /* ar$spa: sender protocol address */
    uint8_t tha[INET_ETH_ADDR_BYTES]; /* ar$tha: target hardware address */
    uint8_t tpa[4];                   /* ar$tpa: target protocol address */
} __attribute__((packed, may_alias));
_Static_assert(sizeof(struct inet_arp) == INET_ARP_BYTES, "ARP (Ethernet/IPv4) is 28 bytes");

/* --- IPv4 (RFC 791 section 3.1) --------------------------------------------------------------- */

#define INET_IPV4_HDR_BYTES 20     /* IHL 5: no options */
#define INET_IPV4_MAX_HDR_BYTES 60 /* IHL 15 */
#define INET_IPV4_FLAG_DF 0x4000   /* in the flags/fragment-offset word */
#define INET_IPV4_FLAG_MF 0x2000
#define INET_IPV4_FRAG_OFFSET_MASK 0x1fff
#define INET_IPV4_ECN_MASK 0x03 /* low 2 bits of the old TOS byte (RFC 3168 section 5) */
#define INET_IPV4_DEFAULT_TTL 64 /* IANA's recommended default (RFC 1700, "IP TTL") */

#define INET_PROTO_ICMP 1
#define INET_PROTO_TCP 6
/* TCP header flags (RFC 9293 3.1), byte 13 of the header */
#define INET_TCP_FIN 0x01u
#define INET_TCP_PSH 0x08u
#define INET_PROTO_UDP 17

struct inet_ipv4_hdr {
    uint8_t ver_ihl;      /* version (high nibble), header length in 32-bit words (low) */
    uint8_t tos;          /* DSCP (6 bits) + ECN (2 bits) */
    uint8_t total_len[2]; /* header + data, bytes */
    uint8_t id[2];
    uint8_t frag[2];      /* flags (3 bits) + fragment offset in 8-byte units (13 bits) */
    uint8_t ttl;
    uint8_t proto;
    uint8_t csum[2];
    uint8_t src[4];
    uint8_t dst[4];
    /* options follow when IHL > 5 */
} __attribute__((packed, may_alias));
_Static_assert(sizeof(struct inet_ipv4_hdr) == INET_IPV4_HDR_BYTES, "IPv4 header is 20 bytes");

/* Address classes, host byte order. */
static inline bool inet_ipv4_is_multicast(uint32_t a)
{
    return (a >> 28) == 0xe; /* 224.0.0.0/4 (RFC 5771) */
}

/* inet_ipv4_is_martian: never a valid source or unicast destination on the wire: 0.0.0.0/8
 * ("this network"), 127.0.0.0/8 (loopback), 224.0.0.0/4 (multicast), 240.0.0.0/4 (reserved,
 * including 255.255.255.255). RFC 1812 section 5.3.7 and RFC 1122 section 3.2.1.3. */
static inline bool inet_ipv4_is_martian(uint32_t a)
{
    uint32_t first = a >> 24;
    return first == 0 || first == 127 || first >= 224;
}

/* --- ICMP echo (RFC 792, "Echo or Echo Reply Message") ---------------------------------------- */

#define INET_ICMP_ECHO_BYTES 8
#define INET_ICMP_ECHO_REPLY 0
#define INET_ICMP_ECHO_REQUEST 8

struct inet_icmp_echo {
    uint8_t type;
    uint8_t code;
    uint8_t csum[2]; /* over the whole ICMP message (header + data) */
    uint8_t id[2];
    uint8_t seq[2];
    /* data follows */
} __attribute__((packed, may_alias));
_Static_assert(sizeof(struct inet_icmp_echo) == INET_ICMP_ECHO_BYTES, "ICMP echo header is 8");

/* --- UDP (RFC 768) ---------------------------------------------------------------------------- */

#define INET_UDP_HDR_BYTES 8

struct inet_udp_hdr {
    uint8_t sport[2];
    uint8_t dport[2];
    uint8_t len[2]; /* header + data, bytes */
    uint8_t csum[2];
} __attribute__((packed, may_alias));
_Static_assert(sizeof(struct inet_udp_hdr) == INET_UDP_HDR_BYTES, "UDP header is 8 bytes");

/* --- Internet checksum (RFC 1071, RFC 1624) --------------------------------------------------- */

/* inet_csum_add: add len bytes at p to a running ones'-complement sum (start with 0). Bytes are
 * taken as big-endian 16-bit words; only the last piece of a chained sum may have odd length
 * (its final byte is padded with a zero on the right, RFC 1071 section 1). Any context. */
uint32_t inet_csum_add(uint32_t sum, const uint8_t *p, size_t len);

/* inet_csum_native: the ones'-complement sum of len bytes at p taken as little-endian 16-bit
 * words (an odd final byte is the low half of a last word), folded to 16 bits and not
 * complemented: the sum in the bytes' own order, what lwIP's LWIP_CHKSUM returns. Swap its
 * bytes for the big-endian sum. Any alignment, any context. */
uint16_t inet_csum_native(const uint8_t *p, size_t len);

/* inet_csum_fold: fold a running sum to 16 bits and complement it: the value for the checksum
 * field, in host order (store it with inet_store_be16). */
static inline uint16_t inet_csum_fold(uint32_t sum)
{
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

/* inet_ipv4_hdr_csum_ok: does an IPv4 header of hlen bytes (a multiple of 4, 20..60) carry a
 * correct checksum? The ones'-complement sum is independent of byte order (RFC 1071 section
 * 2(B)): adding the header as native 32-bit words and folding gives all ones exactly when the
 * big-endian sum does, without a byte swap per word. The fast path's check. */
static inline bool inet_ipv4_hdr_csum_ok(const uint8_t *ip, size_t hlen)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < hlen; i += 4) {
        uint32_t w;
        __builtin_memcpy(&w, ip + i, 4);
        acc += w;
    }
    acc = (acc & 0xffffffffu) + (acc >> 32);
    acc = (acc & 0xffffffffu) + (acc >> 32);
    acc = (acc & 0xffffu) + (acc >> 16);
    acc = (acc & 0xffffu) + (acc >> 16);
    return acc == 0xffffu;
}

/* inet_ipv4_hdr20_csum_ok: inet_ipv4_hdr_csum_ok for a header without options, its five
 * words added without a loop (the router's fast path). */
static inline bool inet_ipv4_hdr20_csum_ok(const uint8_t *ip)
{
    uint32_t w[5];
    __builtin_memcpy(w, ip, sizeof(w));
    uint64_t acc = (uint64_t)w[0] + w[1] + w[2] + w[3] + w[4];
    acc = (acc & 0xffffffffu) + (acc >> 32);
    acc = (acc & 0xffffu) + (acc >> 16);
    acc = (acc & 0xffffu) + (acc >> 16);
    return acc == 0xffffu;
}

/* inet_checksum: the Internet checksum of a buffer. Computing it over a message that includes
 * its own (correct) checksum field gives 0: that is how received messages are verified. */
static inline uint16_t inet_checksum(const uint8_t *p, size_t len)
{
    return inet_csum_fold(inet_csum_add(0, p, len));
}

/* inet_csum_update16: the checksum hc after one 16-bit word of the covered data changes from
 * old_word to new_word (all in host order), by RFC 1624 section 3, eqn. 3:
 * HC' = ~(~HC + ~m + m'). Exact when hc was correct, and never needs the rest of the data. */
static inline uint16_t inet_csum_update16(uint16_t hc, uint16_t old_word, uint16_t new_word)
{
    uint32_t sum = (uint32_t)(uint16_t)~hc + (uint16_t)~old_word + new_word;
    return inet_csum_fold(sum);
}

/* inet_csum_update32: as inet_csum_update16 for a 32-bit field (an IPv4 address): two words. */
static inline uint16_t inet_csum_update32(uint16_t hc, uint32_t old_val, uint32_t new_val)
{
    hc = inet_csum_update16(hc, (uint16_t)(old_val >> 16), (uint16_t)(new_val >> 16));
    return inet_csum_update16(hc, (uint16_t)old_val, (uint16_t)new_val);
}

/*
 * inet_ipv4_header: a fresh 20-byte IPv4 header at ip for a datagram the appliance originates
 * (echo replies, ICMP errors), checksum included. ID 0 with DF set makes it an atomic datagram,
 * whose ID carries no meaning (RFC 6864 section 4.1), so no per-core ID state is needed; with
 * DF clear a constant ID could get fragments of different datagrams reassembled together. DF
 * costs nothing real: what we originate is at most 576 bytes or a reply no larger than its
 * request. TTL 64 as IANA recommends. total_len, src and dst in host byte order.
 */
void inet_ipv4_header(uint8_t *ip, uint8_t tos, uint16_t total_len, uint8_t proto, uint32_t src,
                      uint32_t dst);

/* inet_ipv4_str: ip (host byte order) as dotted quad in buf; returns buf. Any context. */
#define INET_IPV4_STR_BYTES 16
char *inet_ipv4_str(char buf[INET_IPV4_STR_BYTES], uint32_t ip);

/* A counter's name, meaning and place (the offset of its uint64_t within its stats struct), for
 * the console (`stats`, `stats json`, `stats doc`): the drop tables of net/local, local6, route
 * and route6 are arrays of these. */
struct net_counter_desc {
    const char *name;
    const char *why;
    size_t offset;
};

/* net_counters_sum: the sum of the n counters that descs places in stats. */
uint64_t net_counters_sum(const void *stats, const struct net_counter_desc *descs, size_t n);

#endif
