/* net/inet.c: the Internet checksum, RFC 1071. */
#include "net/inet.h"

#include <stdio.h>

/*
 * Sums 32-bit big-endian words into a 64-bit accumulator and folds at the end. RFC 1071 section
 * 2(B) allows this: 2^16 = 1 (mod 2^16 - 1), so a 32-bit word contributes exactly its two 16-bit
 * halves, and every carry out of bit 31 or 63 is an end-around carry once folded back in. A
 * 64-bit accumulator cannot overflow for any buffer smaller than 2^32 words.
 */
uint32_t inet_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
    uint64_t acc = sum;

    while (len >= 4) {
        acc += inet_load_be32(p);
        p += 4;
        len -= 4;
    }
    if (len >= 2) {
        acc += inet_load_be16(p);
        p += 2;
        len -= 2;
    }
    if (len != 0) {
        acc += (uint32_t)p[0] << 8; /* odd byte: padded with zero on the right */
    }
    acc = (acc & 0xffffffffu) + (acc >> 32);
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
