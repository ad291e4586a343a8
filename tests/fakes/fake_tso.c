/* tests/fakes/fake_tso.c: a NIC's TCP segmentation, for the fakes (fake_tso.h). */
#include "tests/fakes/fake_tso.h"

#include <string.h>

#define FT_ETH 14u
#define FT_IP (FT_ETH + 20u)
#define FT_MAX_FRAME 9216u

static uint32_t ft_sum(const uint8_t *p, uint32_t n, uint32_t sum)
{
    for (uint32_t i = 0; i + 1 < n; i += 2) {
        sum += (uint32_t)p[i] << 8 | p[i + 1];
    }
    if (n & 1) {
        sum += (uint32_t)p[n - 1] << 8;
    }
    return sum;
}

static uint16_t ft_fold(uint32_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xFFFFu) + (sum >> 16);
    }
    return (uint16_t)sum;
}

static void ft_put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* ft_frame_ok: the headers are IPv4 (20 bytes) and TCP filling hdr, the IPv4 checksum field
 * 0 and the TCP one the pseudo-header sum without the length. */
static int ft_frame_ok(const uint8_t *f, uint32_t len, uint32_t hdr, uint32_t mss)
{
    const uint8_t *ip = f + FT_ETH, *tcp = f + FT_IP;
    uint32_t partial = ft_fold(ft_sum(ip + 12, 8, 6));
    return mss != 0 && hdr >= FT_IP + 20 && hdr < len && hdr + mss <= FT_MAX_FRAME &&
           f[12] == 0x08 && f[13] == 0x00 && ip[0] == 0x45 && ip[9] == 6 &&
           (uint32_t)(tcp[12] >> 4) * 4u == hdr - FT_IP && ip[10] == 0 && ip[11] == 0 &&
           (uint32_t)(tcp[16] << 8 | tcp[17]) == partial;
}

unsigned fake_tso_cut(const uint8_t *frame, uint32_t len, uint32_t hdr, uint32_t mss,
                      fake_tso_emit emit, void *ctx)
{
    static uint8_t seg[FT_MAX_FRAME];
    if (!ft_frame_ok(frame, len, hdr, mss)) {
        return 0;
    }
    uint8_t *ip = seg + FT_ETH, *tcp = seg + FT_IP;
    uint32_t id0 = (uint32_t)frame[FT_ETH + 4] << 8 | frame[FT_ETH + 5];
    uint32_t seq0 = (uint32_t)frame[FT_IP + 4] << 24 | (uint32_t)frame[FT_IP + 5] << 16 |
                    (uint32_t)frame[FT_IP + 6] << 8 | frame[FT_IP + 7];
    unsigned i = 0;
    for (uint32_t off = hdr; off < len; off += mss, i++) {
        uint32_t n = len - off < mss ? len - off : mss, tcp_len = hdr - FT_IP + n;
        memcpy(seg, frame, hdr);
        memcpy(seg + hdr, frame + off, n);
        ft_put16(ip + 2, 20 + tcp_len);
        ft_put16(ip + 4, id0 + i);
        ft_put16(ip + 10, (uint16_t)~ft_fold(ft_sum(ip, 20, 0)));
        uint32_t seq = seq0 + (off - hdr);
        ft_put16(tcp + 4, seq >> 16);
        ft_put16(tcp + 6, seq);
        if (off + n < len) {
            tcp[13] &= (uint8_t)~0x09u; /* FIN, PSH: the last segment's */
        }
        ft_put16(tcp + 16, (uint16_t)~ft_fold(ft_sum(tcp, tcp_len, tcp_len)));
        emit(ctx, seg, hdr + n);
    }
    return i;
}
