/* net/inet.c: the Internet checksum, RFC 1071. */
#include "net/inet.h"

#include <stdio.h>

/*
 * Sums 32-bit big-endian words into a 64-bit accumulator and folds at the end. RFC 1071 section
 * 2(B) allows this: 2^16 = 1 (mod 2^16 - 1), so a 32-bit word contributes exactly its two 16-bit
 * halves, and every carry out of bit 31 or 63 is an end-around carry once folded back in. A
 * 64-bit accumulator cannot overflow for any buffer smaller than 2^32 words.
 */
/*
 * The sum runs over native (little-endian) 64-bit words, four to a step: a one's complement sum
 * does not depend on byte order (RFC 1071 section 2(B)), and 2^16, 2^32 and 2^64 are all 1
 * modulo 0xFFFF, so adding 64-bit words and counting their carries apart is the 16-bit sum
 * with its end-around carries deferred (RFC 1071 section 2(C)). About two instructions per
 * 8 bytes instead of three per 4: it is most of what a received TCP segment costs when the NIC
 * did not check it (lwIP sums through here, net/lwip-port/lwipopts.h).
 */
uint16_t inet_csum_native(const uint8_t *p, size_t len)
{
    uint64_t s = 0, carries = 0;
    for (; len >= 32; p += 32, len -= 32) {
        uint64_t w[4];
        __builtin_memcpy(w, p, sizeof(w));
        s += w[0];
        carries += s < w[0];
        s += w[1];
        carries += s < w[1];
        s += w[2];
        carries += s < w[2];
        s += w[3];
        carries += s < w[3];
    }
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t w;
        __builtin_memcpy(&w, p, sizeof(w));
        s += w;
        carries += s < w;
    }
    /* the last 0..7 bytes as one word, zero above them (an odd byte is a 16-bit word's low) */
    uint64_t tail = 0;
    unsigned shift = 0;
    if (len & 4) {
        uint32_t v;
        __builtin_memcpy(&v, p, sizeof(v));
        tail = v;
        p += 4;
        shift = 32;
    }
    if (len & 2) {
        uint16_t v;
        __builtin_memcpy(&v, p, sizeof(v));
        tail |= (uint64_t)v << shift;
        p += 2;
        shift += 16;
    }
    if (len & 1) {
        tail |= (uint64_t)p[0] << shift;
    }
    s += tail;
    carries += s < tail;
    uint64_t t = (s & 0xffffffffu) + (s >> 32) + carries; /* < 2^34 for any len below 2^60 */
    t = (t & 0xffffu) + (t >> 16);
    t = (t & 0xffffu) + (t >> 16);
    t = (t & 0xffffu) + (t >> 16);
    return (uint16_t)t;
}

uint32_t inet_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
    /* the native sum with its bytes swapped is the big-endian one */
    uint64_t acc = (uint64_t)sum + __builtin_bswap16(inet_csum_native(p, len));
    acc = (acc & 0xffffffffu) + (acc >> 32);
    return (uint32_t)acc;
}

char *inet_ipv4_str(char buf[INET_IPV4_STR_BYTES], uint32_t ip)
{
    snprintf(buf, INET_IPV4_STR_BYTES, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255,
             ip & 255);
    return buf;
}

void inet_ipv4_header(uint8_t *ip, uint8_t tos, uint16_t total_len, uint8_t proto, uint32_t src,
                      uint32_t dst)
{
    struct inet_ipv4_hdr *h = (struct inet_ipv4_hdr *)ip;
    h->ver_ihl = 0x45;
    h->tos = tos;
    inet_store_be16(h->total_len, total_len);
    inet_store_be16(h->id, 0);
    inet_store_be16(h->frag, INET_IPV4_FLAG_DF);
    h->ttl = INET_IPV4_DEFAULT_TTL;
    h->proto = proto;
    inet_store_be16(h->csum, 0);
    inet_store_be32(h->src, src);
    inet_store_be32(h->dst, dst);
    inet_store_be16(h->csum, inet_checksum(ip, INET_IPV4_HDR_BYTES));
}

uint64_t net_counters_sum(const void *stats, const struct net_counter_desc *descs, size_t n)
{
    const uint8_t *base = stats;
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        __builtin_memcpy(&v, base + descs[i].offset, sizeof(v));
        sum += v;
    }
    return sum;
}
