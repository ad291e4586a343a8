/* net/inet6.c: IPv6 address helpers, the header and the upper-layer checksum (see inet6.h). */
#include "net/inet6.h"

#include <stdio.h>

bool inet6_prefix_match(const uint8_t *a, const uint8_t *b, unsigned len)
{
    unsigned full = len > 128 ? 16 : len / 8, rest = len > 128 ? 0 : len % 8;
    if (__builtin_memcmp(a, b, full) != 0) {
        return false;
    }
    if (rest == 0) {
        return true;
    }
    uint8_t mask = (uint8_t)(0xff00u >> rest);
    return ((a[full] ^ b[full]) & mask) == 0;
}

void inet6_solicited_node(uint8_t out[INET6_ADDR_BYTES], const uint8_t *addr)
{
    static const uint8_t prefix[13] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };
    __builtin_memcpy(out, prefix, sizeof(prefix));
    __builtin_memcpy(out + 13, addr + 13, 3);
}

bool inet6_is_solicited_node_of(const uint8_t *group, const uint8_t *addr)
{
    uint8_t sn[INET6_ADDR_BYTES];
    inet6_solicited_node(sn, addr);
    return inet6_eq(sn, group);
}

void inet6_multicast_mac(uint8_t mac[INET_ETH_ADDR_BYTES], const uint8_t *group)
{
    mac[0] = 0x33;
    mac[1] = 0x33;
    __builtin_memcpy(mac + 2, group + 12, 4);
}

void inet6_link_local_from_mac(uint8_t out[INET6_ADDR_BYTES], const uint8_t mac[6])
{
    static const uint8_t prefix[8] = { 0xfe, 0x80 };
    __builtin_memcpy(out, prefix, sizeof(prefix));
    out[8] = mac[0] ^ 0x02; /* the universal/local bit, inverted (RFC 4291 appendix A) */
    out[9] = mac[1];
    out[10] = mac[2];
    out[11] = 0xff;
    out[12] = 0xfe;
    out[13] = mac[3];
    out[14] = mac[4];
    out[15] = mac[5];
}

/* inet6_longest_zero_run: the first longest run of two or more zero groups, as [*start, +len);
 * len 0 if there is none (RFC 5952 4.2.2: a single zero group is not shortened). */
static void inet6_longest_zero_run(const uint16_t g[8], unsigned *start, unsigned *len)
{
    *start = 0;
    *len = 0;
    for (unsigned i = 0; i < 8;) {
        unsigned j = i;
        while (j < 8 && g[j] == 0) {
            j++;
        }
        if (j - i > *len && j - i >= 2) {
            *start = i;
            *len = j - i;
        }
        i = j == i ? i + 1 : j;
    }
}

char *inet6_str(char buf[INET6_STR_BYTES], const uint8_t *addr)
{
    uint16_t g[8];
    for (unsigned i = 0; i < 8; i++) {
        g[i] = inet_load_be16(addr + 2 * i);
    }
    unsigned zs, zl;
    inet6_longest_zero_run(g, &zs, &zl);
    size_t n = 0;
    for (unsigned i = 0; i < 8; i++) {
        if (zl != 0 && i == zs) {
            n += (size_t)snprintf(buf + n, INET6_STR_BYTES - n, "::");
            i += zl - 1;
            continue;
        }
        bool after_run = zl != 0 && i == zs + zl;
        n += (size_t)snprintf(buf + n, INET6_STR_BYTES - n, "%s%x", i == 0 || after_run ? "" : ":",
                              g[i]);
    }
    return buf;
}

void inet_ipv6_header(uint8_t *ip, uint16_t payload_len, uint8_t next, uint8_t hop_limit,
                      const uint8_t *src, const uint8_t *dst)
{
    struct inet_ipv6_hdr *h = (struct inet_ipv6_hdr *)ip;
    inet_store_be32(h->ver_tc_flow, 6u << 28);
    inet_store_be16(h->payload_len, payload_len);
    h->next = next;
    h->hop_limit = hop_limit;
    __builtin_memmove(h->src, src, INET6_ADDR_BYTES); /* src may be a field of this header */
    __builtin_memmove(h->dst, dst, INET6_ADDR_BYTES);
}

uint32_t inet6_pseudo_sum(const uint8_t *src, const uint8_t *dst, uint32_t upper_len,
                          uint8_t next)
{
    uint32_t sum = inet_csum_add(0, src, INET6_ADDR_BYTES);
    sum = inet_csum_add(sum, dst, INET6_ADDR_BYTES);
    return sum + (upper_len >> 16) + (upper_len & 0xffff) + next;
}

uint16_t inet6_upper_csum(const uint8_t *ip6, const uint8_t *msg, uint32_t len, uint8_t next)
{
    const struct inet_ipv6_hdr *h = (const struct inet_ipv6_hdr *)ip6;
    uint32_t sum = inet6_pseudo_sum(h->src, h->dst, len, next);
    return inet_csum_fold(inet_csum_add(sum, msg, len));
}

bool inet6_is_ext_header(uint8_t nh)
{
    switch (nh) {
    case INET6_NH_HOP_BY_HOP:
    case INET6_NH_ROUTING:
    case INET6_NH_FRAGMENT:
    case INET6_NH_AH:
    case INET6_NH_DEST_OPTS:
    case INET6_NH_MOBILITY:
    case INET6_NH_HIP:
    case INET6_NH_SHIM6:
        return true;
    default:
        return false;
    }
}

/* inet6_ext_len: the length of the extension header nh at p (2 bytes present): AH counts in
 * 4-byte units less 2 (RFC 4302 2.2), Fragment is fixed, the rest 8-byte units less 1. */
static size_t inet6_ext_len(uint8_t nh, const uint8_t *p)
{
    if (nh == INET6_NH_FRAGMENT) {
        return INET6_FRAG_HDR_BYTES;
    }
    if (nh == INET6_NH_AH) {
        return ((size_t)p[1] + 2) * 4;
    }
    return ((size_t)p[1] + 1) * 8;
}

enum inet6_walk_result inet6_walk_ext(const uint8_t *ip6, size_t len, struct inet6_ext_walk *w)
{
    if (len < INET_IPV6_HDR_BYTES) {
        return INET6_WALK_TRUNCATED;
    }
    struct inet6_ext_walk r = { .proto = ip6[6], .off = INET_IPV6_HDR_BYTES };
    size_t off = INET_IPV6_HDR_BYTES;
    while (inet6_is_ext_header(r.proto)) {
        if (r.headers == INET6_MAX_EXT_HEADERS) {
            return INET6_WALK_TOO_LONG;
        }
        if (r.proto == INET6_NH_HOP_BY_HOP && r.headers != 0) {
            return INET6_WALK_BAD;
        }
        if (len - off < 2) {
            return INET6_WALK_TRUNCATED;
        }
        size_t n = inet6_ext_len(r.proto, ip6 + off);
        if (n > len - off) {
            return INET6_WALK_TRUNCATED;
        }
        uint8_t next = ip6[off];
        r.headers++;
        if (r.proto == INET6_NH_FRAGMENT) {
            r.fragment = true;
            if ((inet_load_be16(ip6 + off + 2) & 0xfff8u) != 0) {
                r.later_fragment = true;
                r.proto = next;
                r.off = (uint16_t)(off + n);
                break;
            }
        }
        off += n;
        r.proto = next;
        r.off = (uint16_t)off;
    }
    *w = r;
    return INET6_WALK_OK;
}
