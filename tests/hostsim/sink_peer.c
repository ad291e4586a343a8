/* tests/hostsim/sink_peer.c: the sink's scripted peer (see header). */
#include "tests/hostsim/sink_peer.h"

#include <string.h>

#include "net/handoff.h"
#include "drivers/nic/nic.h"
#include "tests/fakes/fake_sink_platform.h"

#define SP_ETH 14
#define SP_IP 20
#define SP_TCP 20
#define SP_UDP 8

static void sp_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void sp_put32(uint8_t *p, uint32_t v)
{
    sp_put16(p, (uint16_t)(v >> 16));
    sp_put16(p + 2, (uint16_t)v);
}

static uint16_t sp_get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t sp_get32(const uint8_t *p)
{
    return (uint32_t)sp_get16(p) << 16 | sp_get16(p + 2);
}

uint32_t sink_peer_sum(uint32_t sum, const uint8_t *buf, unsigned len)
{
    uint64_t s = sum;
    unsigned i = 0;
    for (; i + 1 < len; i += 2) {
        s += (uint32_t)buf[i] << 8 | buf[i + 1];
    }
    if (len & 1) {
        s += (uint32_t)buf[len - 1] << 8;
    }
    while (s >> 32) {
        s = (s & 0xffffffffu) + (s >> 32);
    }
    return (uint32_t)s;
}

uint16_t sink_peer_fold(uint32_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return (uint16_t)~sum;
}

/* The TCP/UDP pseudo-header's sum (RFC 793 3.1, RFC 768). */
static uint32_t sp_pseudo(uint32_t src, uint32_t dst, uint8_t proto, uint16_t len)
{
    uint8_t ph[12];
    sp_put32(ph, src);
    sp_put32(ph + 4, dst);
    ph[8] = 0;
    ph[9] = proto;
    sp_put16(ph + 10, len);
    return sink_peer_sum(0, ph, sizeof(ph));
}

static struct pkb *sp_frame(struct sink_peer *p, uint16_t ip_len)
{
    if ((unsigned)SP_ETH + ip_len > PKB_DATA_BYTES) {
        return NULL;
    }
    struct pkb *b = pkb_alloc(nic_pool(p->core));
    if (b == NULL) {
        return NULL;
    }
    fsp_port_mac(p->port, b->data);
    fsp_peer_mac(p->ip, b->data + 6);
    sp_put16(b->data + 12, 0x0800);
    uint32_t len = SP_ETH + (uint32_t)ip_len;
    if (len < 60) { /* the NIC hands over at least 60 bytes: padding after the datagram */
        memset(b->data + len, 0, 60 - len);
        len = 60;
    }
    b->len = (uint16_t)len;
    b->port = (uint16_t)p->port;
    b->queue = (uint16_t)p->core;
    b->rx_word = 0;
    return b;
}

struct pkb *sink_peer_raw(struct sink_peer *p, const uint8_t *ip, uint16_t len)
{
    struct pkb *b = sp_frame(p, len);
    if (b != NULL) {
        memcpy(b->data + SP_ETH, ip, len);
    }
    return b;
}

/* sp_ipv4: the frame with its IPv4 header written; the caller fills l4_len bytes after it. */
static struct pkb *sp_ipv4_hdr(struct sink_peer *p, uint8_t proto, uint16_t l4_len)
{
    struct pkb *b = sp_frame(p, (uint16_t)(SP_IP + l4_len));
    if (b == NULL) {
        return NULL;
    }
    uint8_t *ip = b->data + SP_ETH;
    ip[0] = 0x45;
    ip[1] = 0;
    sp_put16(ip + 2, (uint16_t)(SP_IP + l4_len));
    sp_put16(ip + 4, p->ip_id++);
    sp_put16(ip + 6, 0x4000); /* DF */
    ip[8] = 64;
    ip[9] = proto;
    sp_put16(ip + 10, 0);
    sp_put32(ip + 12, p->ip);
    sp_put32(ip + 16, p->server_ip);
    sp_put16(ip + 10, sink_peer_fold(sink_peer_sum(0, ip, SP_IP)));
    return b;
}

struct pkb *sink_peer_ipv4(struct sink_peer *p, uint8_t proto, const uint8_t *l4, uint16_t l4_len)
{
    struct pkb *b = sp_ipv4_hdr(p, proto, l4_len);
    if (b != NULL) {
        memcpy(b->data + SP_ETH + SP_IP, l4, l4_len);
    }
    return b;
}

struct pkb *sink_peer_udp(struct sink_peer *p, uint16_t sport, uint16_t dport, const uint8_t *data,
                          uint16_t len)
{
    struct pkb *b = sp_ipv4_hdr(p, SP_PROTO_UDP, (uint16_t)(SP_UDP + len));
    if (b == NULL) {
        return NULL;
    }
    uint8_t *u = b->data + SP_ETH + SP_IP;
    sp_put16(u, sport);
    sp_put16(u + 2, dport);
    sp_put16(u + 4, (uint16_t)(SP_UDP + len));
    sp_put16(u + 6, 0);
    memcpy(u + SP_UDP, data, len);
    uint16_t c = sink_peer_fold(sink_peer_sum(
        sp_pseudo(p->ip, p->server_ip, SP_PROTO_UDP, (uint16_t)(SP_UDP + len)), u,
        SP_UDP + len));
    sp_put16(u + 6, c == 0 ? 0xffff : c);
    return b;
}

void sink_peer_hand(struct sink_peer *p, struct pkb *b)
{
    handoff_to_sink(p->core, b);
}

static void sp_tcp_options(struct sink_seg *s, const uint8_t *o, unsigned n)
{
    unsigned i = 0;
    while (i < n) {
        if (o[i] == 0) {
            break;
        }
        if (o[i] == 1) {
            i++;
            continue;
        }
        if (i + 1 >= n || o[i + 1] < 2 || i + o[i + 1] > n) {
            break;
        }
        if (o[i] == 2 && o[i + 1] == 4) {
            s->mss = sp_get16(o + i + 2);
        } else if (o[i] == 3 && o[i + 1] == 3) {
            s->wscale = o[i + 2];
        }
        i += o[i + 1];
    }
}

bool sink_peer_parse(const uint8_t *f, uint16_t len, struct sink_seg *s)
{
    memset(s, 0, sizeof(*s));
    s->mss = s->wscale = -1;
    s->frame_len = len;
    if (len < SP_ETH + SP_IP || sp_get16(f + 12) != 0x0800) {
        return false;
    }
    memcpy(s->dst_mac, f, 6);
    memcpy(s->src_mac, f + 6, 6);
    s->ethertype = sp_get16(f + 12);
    const uint8_t *ip = f + SP_ETH;
    unsigned hl = (ip[0] & 0x0fu) * 4;
    s->ip_len = sp_get16(ip + 2);
    if ((ip[0] >> 4) != 4 || hl < SP_IP || s->ip_len < hl || SP_ETH + s->ip_len > len) {
        return false;
    }
    s->ip_id = sp_get16(ip + 4);
    s->frag = sp_get16(ip + 6);
    s->ttl = ip[8];
    s->proto = ip[9];
    s->src = sp_get32(ip + 12);
    s->dst = sp_get32(ip + 16);
    s->ip_csum_ok = sink_peer_fold(sink_peer_sum(0, ip, hl)) == 0;
    const uint8_t *l4 = ip + hl;
    uint16_t l4_len = (uint16_t)(s->ip_len - hl);
    if (s->frag & 0x3fff) { /* a fragment: no transport header to check here */
        s->data = l4;
        s->len = l4_len;
        return true;
    }
    uint32_t ph = sp_pseudo(s->src, s->dst, s->proto, l4_len);
    switch (s->proto) {
    case SP_PROTO_TCP: {
        unsigned off = l4_len >= SP_TCP ? (l4[12] >> 4) * 4u : 0;
        if (off < SP_TCP || off > l4_len) {
            return false;
        }
        s->sport = sp_get16(l4);
        s->dport = sp_get16(l4 + 2);
        s->seq = sp_get32(l4 + 4);
        s->ack = sp_get32(l4 + 8);
        s->flags = l4[13];
        s->wnd = sp_get16(l4 + 14);
        sp_tcp_options(s, l4 + SP_TCP, off - SP_TCP);
        s->l4_csum_ok = sink_peer_fold(sink_peer_sum(ph, l4, l4_len)) == 0;
        s->data = l4 + off;
        s->len = (uint16_t)(l4_len - off);
        return true;
    }
    case SP_PROTO_UDP:
        if (l4_len < SP_UDP || sp_get16(l4 + 4) != l4_len) {
            return false;
        }
        s->sport = sp_get16(l4);
        s->dport = sp_get16(l4 + 2);
        s->l4_csum_ok = sp_get16(l4 + 6) == 0 ||
                        sink_peer_fold(sink_peer_sum(ph, l4, l4_len)) == 0;
        s->data = l4 + SP_UDP;
        s->len = (uint16_t)(l4_len - SP_UDP);
        return true;
    case SP_PROTO_ICMP:
        if (l4_len < 4) {
            return false;
        }
        s->icmp_type = l4[0];
        s->icmp_code = l4[1];
        s->l4_csum_ok = sink_peer_fold(sink_peer_sum(0, l4, l4_len)) == 0;
        s->data = l4 + 4;
        s->len = (uint16_t)(l4_len - 4);
        return true;
    default:
        s->data = l4;
        s->len = l4_len;
        return true;
    }
}

/* --- the client TCP connection ---------------------------------------------------------------- */

void sink_tcp_init(struct sink_tcp *c, struct sink_peer *p, uint16_t sport, uint16_t dport,
                   uint32_t iss)
{
    memset(c, 0, sizeof(*c));
    c->peer = p;
    c->sport = sport;
    c->dport = dport;
    c->iss = iss;
    c->snd_nxt = c->snd_una = iss;
    c->rcv_wscale = 7;
    c->snd_wscale = -1;
    c->wnd = 0xffff;
}

struct pkb *sink_tcp_segment(const struct sink_tcp *c, uint8_t flags, uint32_t seq, uint32_t ack,
                             const uint8_t *opts, unsigned optlen, const uint8_t *data,
                             uint16_t len)
{
    struct sink_peer *p = c->peer;
    uint16_t l4_len = (uint16_t)(SP_TCP + optlen + len);
    struct pkb *b = sp_ipv4_hdr(p, SP_PROTO_TCP, l4_len);
    if (b == NULL) {
        return NULL;
    }
    uint8_t *t = b->data + SP_ETH + SP_IP;
    sp_put16(t, c->sport);
    sp_put16(t + 2, c->dport);
    sp_put32(t + 4, seq);
    sp_put32(t + 8, (flags & SP_TCP_ACK) ? ack : 0);
    t[12] = (uint8_t)(((SP_TCP + optlen) / 4) << 4);
    t[13] = flags;
    sp_put16(t + 14, c->wnd); /* by default 64 KiB << rcv_wscale: never the bottleneck */
    sp_put16(t + 16, 0);
    sp_put16(t + 18, 0);
    if (optlen != 0) {
        memcpy(t + SP_TCP, opts, optlen);
    }
    uint8_t *d = t + SP_TCP + optlen;
    if (data != NULL) {
        memcpy(d, data, len);
    } else {
        for (uint16_t i = 0; i < len; i++) {
            d[i] = (uint8_t)(seq + i);
        }
    }
    sp_put16(t + 16, sink_peer_fold(sink_peer_sum(
                         sp_pseudo(p->ip, p->server_ip, SP_PROTO_TCP, l4_len), t, l4_len)));
    return b;
}

struct pkb *sink_tcp_syn(struct sink_tcp *c)
{
    const uint8_t opts[8] = { 2, 4, 1460 >> 8, 1460 & 0xff, 1, 3, 3, c->rcv_wscale };
    struct pkb *b = sink_tcp_segment(c, SP_TCP_SYN, c->iss, 0, opts, sizeof(opts), NULL, 0);
    c->snd_nxt = c->iss + 1;
    return b;
}

struct pkb *sink_tcp_ack(struct sink_tcp *c)
{
    return sink_tcp_segment(c, SP_TCP_ACK, c->snd_nxt, c->rcv_nxt, NULL, 0, NULL, 0);
}

struct pkb *sink_tcp_data(struct sink_tcp *c, const uint8_t *data, uint16_t len)
{
    struct pkb *b = sink_tcp_segment(c, SP_TCP_ACK | SP_TCP_PSH, c->snd_nxt, c->rcv_nxt, NULL, 0,
                                     data, len);
    if (b != NULL) {
        c->snd_nxt += len;
    }
    return b;
}

struct pkb *sink_tcp_fin(struct sink_tcp *c)
{
    struct pkb *b = sink_tcp_segment(c, SP_TCP_ACK | SP_TCP_FIN, c->snd_nxt, c->rcv_nxt, NULL, 0,
                                     NULL, 0);
    if (b != NULL) {
        c->snd_nxt++;
    }
    return b;
}

struct pkb *sink_tcp_rst(struct sink_tcp *c)
{
    return sink_tcp_segment(c, SP_TCP_RST, c->snd_nxt, 0, NULL, 0, NULL, 0);
}

bool sink_tcp_input(struct sink_tcp *c, const struct sink_seg *s)
{
    struct sink_peer *p = c->peer;
    if (s->proto != SP_PROTO_TCP || s->src != p->server_ip || s->dst != p->ip ||
        s->sport != c->dport || s->dport != c->sport) {
        return false;
    }
    c->segs_received++;
    if (s->flags & SP_TCP_RST) {
        c->rst_received = true;
        return true;
    }
    if ((s->flags & SP_TCP_SYN) && (s->flags & SP_TCP_ACK) && !c->established) {
        c->irs = s->seq;
        c->rcv_nxt = s->seq + 1;
        c->snd_wscale = s->wscale;
        c->mss = s->mss > 0 ? (uint16_t)s->mss : 536;
        c->established = true;
    } else if (c->established && s->seq == c->rcv_nxt) {
        c->rcv_nxt += s->len;
        c->data_received += s->len;
        if (s->flags & SP_TCP_FIN) {
            c->rcv_nxt++;
            c->fin_received = true;
        }
    }
    if (s->flags & SP_TCP_ACK) {
        c->acks_received++;
        if ((int32_t)(s->ack - c->snd_una) > 0) {
            c->snd_una = s->ack;
        }
        /* RFC 7323 2.2: the window of a SYN is never scaled; the others are once both agreed. */
        bool scaled = !(s->flags & SP_TCP_SYN) && c->snd_wscale >= 0;
        c->snd_wnd = (uint32_t)s->wnd << (scaled ? c->snd_wscale : 0);
    }
    return true;
}
