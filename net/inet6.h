/*
 * net/inet6.h: wire formats of IPv6 (RFC 8200), ICMPv6 (RFC 4443) and neighbour discovery
 * (RFC 4861) as the appliance speaks them, the address classes of RFC 4291 section 2.4, and the
 * helpers every IPv6 module shares: the upper-layer checksum with its pseudo-header (RFC 8200
 * section 8.1), solicited-node and multicast MAC mapping (RFC 4291 2.7.1, RFC 2464 section 7),
 * the EUI-64 link-local address (RFC 4291 appendix A) and the text form (RFC 5952).
 *
 * An address is 16 bytes in network order, always handled through a pointer to its bytes (the
 * frame's own, or a struct inet6_addr): frames arrive at any alignment. Conventions as in
 * net/inet.h: header fields are byte arrays, read with inet_load_be*().
 */
#ifndef WS_INET6_H
#define WS_INET6_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/inet.h"

#define INET_ETHERTYPE_IPV6 0x86dd

/* --- addresses (RFC 4291) --------------------------------------------------------------------- */

#define INET6_ADDR_BYTES 16

struct inet6_addr {
    uint8_t b[INET6_ADDR_BYTES];
};

static inline bool inet6_eq(const uint8_t *a, const uint8_t *b)
{
    uint64_t a0, a1, b0, b1;
    __builtin_memcpy(&a0, a, 8);
    __builtin_memcpy(&a1, a + 8, 8);
    __builtin_memcpy(&b0, b, 8);
    __builtin_memcpy(&b1, b + 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

/* :: (2.5.2): a source before an address is known (DAD), never a destination. */
static inline bool inet6_is_unspecified(const uint8_t *a)
{
    static const uint8_t zero[INET6_ADDR_BYTES];
    return inet6_eq(a, zero);
}

/* ::1 (2.5.3): never on a link. */
static inline bool inet6_is_loopback(const uint8_t *a)
{
    static const uint8_t one[INET6_ADDR_BYTES] = { [15] = 1 };
    return inet6_eq(a, one);
}

/* ff00::/8 (2.7). */
static inline bool inet6_is_multicast(const uint8_t *a)
{
    return a[0] == 0xff;
}

/* fe80::/10 (2.5.6): valid on one link only; a router never forwards to or from it (2.5.6). */
static inline bool inet6_is_link_local(const uint8_t *a)
{
    return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/* ::ffff:0:0/96 (2.5.5.2): an IPv4 address in IPv6 clothes, never on the wire (RFC 4038 4.2). */
static inline bool inet6_is_v4_mapped(const uint8_t *a)
{
    static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };
    return __builtin_memcmp(a, prefix, sizeof(prefix)) == 0;
}

/* inet6_prefix_match: do a and b agree in their first len bits (0..128)? */
bool inet6_prefix_match(const uint8_t *a, const uint8_t *b, unsigned len);

/* inet6_solicited_node: ff02::1:ffXX:XXXX, the group an NS for addr goes to (2.7.1). */
void inet6_solicited_node(uint8_t out[INET6_ADDR_BYTES], const uint8_t *addr);

/* inet6_is_solicited_node_of: is group the solicited-node address of addr? */
bool inet6_is_solicited_node_of(const uint8_t *group, const uint8_t *addr);

/* inet6_multicast_mac: the Ethernet address of IPv6 group addr: 33:33 and its last four bytes
 * (RFC 2464 section 7). */
void inet6_multicast_mac(uint8_t mac[INET_ETH_ADDR_BYTES], const uint8_t *group);

/* inet6_link_local_from_mac: fe80::/64 with the modified EUI-64 interface identifier of mac
 * (RFC 4291 appendix A: ff:fe in the middle, the universal/local bit inverted). */
void inet6_link_local_from_mac(uint8_t out[INET6_ADDR_BYTES], const uint8_t mac[6]);

/* inet6_str: addr in RFC 5952's form (lower case, the longest run of two or more zero groups as
 * "::", the first of equal runs) into buf; returns buf. Any context. */
#define INET6_STR_BYTES 40 /* 8 groups of 4 digits, 7 colons, the NUL */
char *inet6_str(char buf[INET6_STR_BYTES], const uint8_t *addr);

/* --- the IPv6 header (RFC 8200 section 3) ----------------------------------------------------- */

#define INET_IPV6_HDR_BYTES 40
#define INET_IPV6_MIN_MTU 1280 /* RFC 8200 section 5: every link carries this much */
#define INET_IPV6_DEFAULT_HOP_LIMIT 64
#define INET_IPV6_ND_HOP_LIMIT 255 /* RFC 4861: ND messages are sent, and must arrive, with 255 */

struct inet_ipv6_hdr {
    uint8_t ver_tc_flow[4]; /* version (4 bits), traffic class (8), flow label (20) */
    uint8_t payload_len[2]; /* bytes after this header, extension headers included */
    uint8_t next;           /* the first extension header, or the upper-layer protocol */
    uint8_t hop_limit;
    uint8_t src[INET6_ADDR_BYTES];
    uint8_t dst[INET6_ADDR_BYTES];
} __attribute__((packed, may_alias));
_Static_assert(sizeof(struct inet_ipv6_hdr) == INET_IPV6_HDR_BYTES, "IPv6 header is 40 bytes");

/* Next-header values (IANA "Assigned Internet Protocol Numbers"). */
#define INET6_NH_HOP_BY_HOP 0
#define INET6_NH_TCP 6
#define INET6_NH_UDP 17
#define INET6_NH_ROUTING 43
#define INET6_NH_FRAGMENT 44
#define INET6_NH_ESP 50
#define INET6_NH_AH 51
#define INET6_NH_ICMPV6 58
#define INET6_NH_NONE 59
#define INET6_NH_DEST_OPTS 60
#define INET6_NH_MOBILITY 135
#define INET6_NH_HIP 139
#define INET6_NH_SHIM6 140

/*
 * The extension-header chain (RFC 8200 section 4), walked with bounds: at most
 * INET6_MAX_EXT_HEADERS headers, each within the bytes present; Hop-by-Hop only first (4.1);
 * the walk stops at the first header that is not an extension header (the upper layer), at ESP
 * (opaque) or No Next Header, and after a Fragment header whose offset is not 0 (the rest is
 * another fragment's). A first fragment must hold the whole chain (RFC 7112 section 5): one that
 * does not is INET6_WALK_TRUNCATED like any other chain that runs past the bytes present.
 */
#define INET6_MAX_EXT_HEADERS 8 /* more is a hostile chain (RFC 9098 suggests routers cap it) */
#define INET6_FRAG_HDR_BYTES 8

enum inet6_walk_result {
    INET6_WALK_OK,
    INET6_WALK_TRUNCATED, /* a header (or the chain of a first fragment) runs past the bytes */
    INET6_WALK_TOO_LONG,  /* more than INET6_MAX_EXT_HEADERS extension headers */
    INET6_WALK_BAD,       /* Hop-by-Hop after the first header */
};

struct inet6_ext_walk {
    uint8_t proto;       /* the upper-layer protocol (or ESP / No Next Header / what follows a
                          * non-first fragment's header) */
    uint8_t headers;     /* extension headers walked */
    bool fragment;       /* a Fragment header was seen */
    bool later_fragment; /* ... with a non-zero offset: proto and off say nothing of the data */
    uint16_t off;        /* of proto's header, from the start of the IPv6 header */
};

/* inet6_is_ext_header: is next-header value nh one that inet6_walk_ext steps over (Hop-by-Hop,
 * Routing, Fragment, AH, Destination Options, Mobility, HIP, Shim6)? ESP and No Next Header are
 * not: the walk ends there. */
bool inet6_is_ext_header(uint8_t nh);

/* inet6_walk_ext: walk the chain of the IPv6 datagram at ip6, of which len bytes (the fixed
 * header included) are present. Fills w on INET6_WALK_OK only. Reads only, any core. */
enum inet6_walk_result inet6_walk_ext(const uint8_t *ip6, size_t len, struct inet6_ext_walk *w);

/*
 * inet_ipv6_header: a fresh header at ip for a datagram the appliance originates: traffic class
 * and flow label 0 (RFC 6437 allows a source not to label), payload_len in host order.
 */
void inet_ipv6_header(uint8_t *ip, uint16_t payload_len, uint8_t next, uint8_t hop_limit,
                      const uint8_t *src, const uint8_t *dst);

/* inet6_pseudo_sum: the running ones'-complement sum of the pseudo-header of RFC 8200 section
 * 8.1 (source, destination, upper-layer length, next header), to be continued with
 * inet_csum_add over the upper-layer message and folded with inet_csum_fold. */
uint32_t inet6_pseudo_sum(const uint8_t *src, const uint8_t *dst, uint32_t upper_len,
                          uint8_t next);

/* inet6_upper_csum: the checksum of the upper-layer message msg (len bytes) of the IPv6 header
 * ip6 with next-header value next: 0 when msg carries a correct one (verification), else the
 * value to store in an all-zero checksum field. */
uint16_t inet6_upper_csum(const uint8_t *ip6, const uint8_t *msg, uint32_t len, uint8_t next);

/* --- ICMPv6 (RFC 4443) and neighbour discovery (RFC 4861) ------------------------------------- */

#define INET6_ICMP_HDR_BYTES 8 /* type, code, checksum, and one 32-bit word */

#define INET6_ICMP_DEST_UNREACH 1
#define INET6_ICMP_CODE_NO_ROUTE 0
#define INET6_ICMP_CODE_ADMIN 1
#define INET6_ICMP_CODE_BEYOND_SCOPE 2
#define INET6_ICMP_CODE_ADDR_UNREACH 3
#define INET6_ICMP_CODE_PORT_UNREACH 4
#define INET6_ICMP_PACKET_TOO_BIG 2
#define INET6_ICMP_TIME_EXCEEDED 3
#define INET6_ICMP_CODE_HOP_LIMIT 0
#define INET6_ICMP_CODE_REASSEMBLY 1
#define INET6_ICMP_PARAM_PROBLEM 4
#define INET6_ICMP_CODE_BAD_HEADER 0
#define INET6_ICMP_CODE_UNKNOWN_NEXT 1
#define INET6_ICMP_ECHO_REQUEST 128
#define INET6_ICMP_ECHO_REPLY 129
#define INET6_ICMP_MLD_QUERY 130
#define INET6_ICMP_MLD_REPORT 131
#define INET6_ICMP_MLD_DONE 132
#define INET6_ICMP_ROUTER_SOLICIT 133
#define INET6_ICMP_ROUTER_ADVERT 134
#define INET6_ICMP_NEIGHBOR_SOLICIT 135
#define INET6_ICMP_NEIGHBOR_ADVERT 136
#define INET6_ICMP_REDIRECT 137
#define INET6_ICMP_MLDV2_REPORT 143

/* An ICMPv6 type below 128 is an error message (RFC 4443 section 2.1). */
static inline bool inet6_icmp_is_error(uint8_t type)
{
    return type < 128;
}

/* Neighbour solicitation and advertisement (RFC 4861 4.3, 4.4): the ICMPv6 header, a reserved
 * or flags word, the target address; options follow. */
#define INET6_ND_NS_NA_BYTES (INET6_ICMP_HDR_BYTES + INET6_ADDR_BYTES) /* 24 */
#define INET6_NA_FLAG_ROUTER 0x80    /* first byte of the flags word */
#define INET6_NA_FLAG_SOLICITED 0x40
#define INET6_NA_FLAG_OVERRIDE 0x20

/* Router solicitation and advertisement (RFC 4861 4.1, 4.2). A solicitation is the ICMPv6
 * header and a reserved word; an advertisement adds Cur Hop Limit, the M and O flags (one byte)
 * and Router Lifetime in that word, then Reachable Time and Retrans Timer. Options follow. */
#define INET6_ND_RS_BYTES INET6_ICMP_HDR_BYTES      /* 8 */
#define INET6_ND_RA_BYTES (INET6_ICMP_HDR_BYTES + 8) /* 16 */
#define INET6_RA_FLAG_MANAGED 0x80 /* M: addresses from DHCPv6 */
#define INET6_RA_FLAG_OTHER 0x40   /* O: other configuration from DHCPv6 */

/* ND options (4.6): type, length in units of 8 bytes (0 is invalid), data. */
#define INET6_ND_OPT_SOURCE_LLADDR 1
#define INET6_ND_OPT_TARGET_LLADDR 2
#define INET6_ND_OPT_PREFIX_INFO 3
#define INET6_ND_OPT_MTU 5
#define INET6_ND_OPT_LLADDR_BYTES 8 /* type, length 1, a 6-byte MAC */
#define INET6_ND_OPT_MTU_BYTES 8    /* type, length 1, reserved 16 bits, the MTU (4.6.4) */
/* Prefix information (4.6.2): type, length 4, prefix length, flags, valid and preferred
 * lifetimes (seconds), a reserved word, the prefix. */
#define INET6_ND_OPT_PREFIX_INFO_BYTES 32
#define INET6_PI_FLAG_ON_LINK 0x80    /* L: the prefix is on this link */
#define INET6_PI_FLAG_AUTONOMOUS 0x40 /* A: hosts may form addresses in it (RFC 4862 5.5.3) */

#endif
