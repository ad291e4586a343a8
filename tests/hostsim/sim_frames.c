/*
 * tests/hostsim/sim_frames.c: the hosts on either side of the appliance. Host A (198.18.0.2,
 * behind port0) sends the stream, the malformed frames and the setup's ARP; host B (198.19.0.2,
 * behind port1) is the router's next hop: it answers the router's ARP requests and checks every
 * frame the appliance sends it. Frames are built and checked here without the firmware's
 * net/ code, so a bug there cannot hide itself. The same hosts speaking IPv6 are
 * sim_frames6.c's; the failure reports, the stream's shape and its books are shared.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tests/hostsim/fwd_sim.h"

const uint8_t sim_mac_host_a[6] = { 0x02, 0xaa, 0x00, 0x00, 0x00, 0x02 };
const uint8_t sim_mac_host_b[6] = { 0x02, 0xbb, 0x00, 0x00, 0x00, 0x02 };

/* --- failures -------------------------------------------------------------------------------- */

/* sim_csum: RFC 1071 over 16-bit words, written independently of net/inet.c, which it checks. */
uint16_t sim_csum(const uint8_t *p, size_t len, uint32_t sum)
{
    for (size_t i = 0; i + 1 < len; i += 2) {
        sum += sim_ld16(p + i);
    }
    if (len & 1) {
        sum += (uint32_t)p[len - 1] << 8;
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return (uint16_t)~sum;
}

void sim_fail(struct sim *s, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "hostsim %s: FAIL: ", SIM_MODE);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    s->failures++;
}

/* sim_expect: one conservation or counter check. */
void sim_expect(struct sim *s, const char *what, uint64_t got, uint64_t want)
{
    if (got != want) {
        sim_fail(s, "%s: %" PRIu64 ", expected %" PRIu64, what, got, want);
    }
}

/* sim_report_frame: a per-frame failure, printed with its bytes for the first few. */
void sim_report_frame(struct sim *s, uint64_t count, const char *what, const uint8_t *f,
                             uint16_t len)
{
    if (count > SIM_MAX_REPORTS) {
        return;
    }
    char hex[3 * 64 + 1] = "";
    for (unsigned i = 0; i < len && i < 64; i++) {
        snprintf(hex + 3 * i, 4, "%02x ", f[i]);
    }
    sim_fail(s, "%s (len %u): %s", what, len, hex);
}

/* --- frames -------------------------------------------------------------------------------- */

unsigned sim_flow_queue(const struct sim *s, unsigned flow)
{
    return flow % s->ncores; /* the fake has no RSS: pin each flow to one queue, as RSS would */
}

/* The stream: blocks of SIM_FLOWS * SIM_RUN frames, in which flow 0 sends SIM_RUN frames, then
 * flow 1, and so on. */
unsigned sim_flow_of(uint64_t i)
{
    return (unsigned)(i % (SIM_FLOWS * SIM_RUN) / SIM_RUN);
}

uint32_t sim_seq_of(uint64_t i)
{
    return (uint32_t)(i / (SIM_FLOWS * SIM_RUN) * SIM_RUN + i % SIM_RUN);
}

/* sim_flow_frames: how many of the first n stream frames flow f sends. */
uint64_t sim_flow_frames(uint64_t n, unsigned f)
{
    uint64_t rest = n % (SIM_FLOWS * SIM_RUN), before = (uint64_t)f * SIM_RUN;
    uint64_t tail = rest <= before ? 0 : rest - before < SIM_RUN ? rest - before : SIM_RUN;
    return n / (SIM_FLOWS * SIM_RUN) * SIM_RUN + tail;
}

/* sim_flow_dst: one flow in 8 goes to host B itself (connected route), the rest to the network
 * behind it (static route via B); both leave through port1 towards B's MAC. */
static uint32_t sim_flow_dst(unsigned flow)
{
    return flow % 8 == 0 ? SIM_IP_HOST_B : SIM_NET_VIA_B + 1 + flow % 126;
}

static void sim_ip_udp_csums(uint8_t *f)
{
    uint8_t *ip = f + SIM_IP_OFF, *udp = f + SIM_UDP_OFF;
    uint16_t udp_len = sim_ld16(udp + 4);
    sim_st16(ip + 10, 0);
    sim_st16(ip + 10, sim_csum(ip, 20, 0));
    /* UDP over the pseudo header (RFC 768): addresses, protocol, UDP length. */
    uint32_t pseudo = sim_ld16(ip + 12) + sim_ld16(ip + 14) + sim_ld16(ip + 16) +
                      sim_ld16(ip + 18) + 17u + udp_len;
    sim_st16(udp + 6, 0);
    uint16_t c = sim_csum(udp, udp_len, pseudo);
    sim_st16(udp + 6, c == 0 ? 0xffff : c);
}

/* sim_build: the 60-byte frame host A sends for (flow, seq), magic telling what it is. */
void sim_build(uint8_t *f, unsigned flow, uint32_t seq, uint16_t magic)
{
    uint8_t port0_mac[6];
    sim_port_mac(0, port0_mac);
    memcpy(f, port0_mac, 6);
    memcpy(f + 6, sim_mac_host_a, 6);
    sim_st16(f + 12, 0x0800);
    uint8_t *ip = f + SIM_IP_OFF;
    ip[0] = 0x45;
    ip[1] = 0;
    sim_st16(ip + 2, SIM_FRAME_BYTES - SIM_IP_OFF);
    sim_st16(ip + 4, (uint16_t)seq);
    sim_st16(ip + 6, 0x4000); /* DF */
    ip[8] = SIM_TTL;
    ip[9] = 17;
    sim_st32(ip + 12, SIM_IP_HOST_A);
    sim_st32(ip + 16, sim_flow_dst(flow));
    uint8_t *udp = f + SIM_UDP_OFF;
    sim_st16(udp, (uint16_t)(1024 + flow));
    sim_st16(udp + 2, 5001);
    sim_st16(udp + 4, SIM_FRAME_BYTES - SIM_UDP_OFF);
    sim_fill_payload(f + SIM_PAY_OFF, flow, seq, magic);
    sim_ip_udp_csums(f);
}

void sim_fill_payload(uint8_t *pay, unsigned flow, uint32_t seq, uint16_t magic)
{
    sim_st16(pay, magic);
    sim_st16(pay + 2, (uint16_t)flow);
    sim_st32(pay + 4, seq);
    for (unsigned k = 8; k < SIM_PAY_BYTES; k++) {
        pay[k] = (uint8_t)(seq * 31 + flow * 7 + k * 13);
    }
}

/* sim_build_routed: what the router must make of sim_build(flow, seq): towards B's MAC from
 * port1's, TTL one less, header checksum recomputed (from scratch, unlike the router). */
static void sim_build_routed(uint8_t *f, unsigned flow, uint32_t seq)
{
    sim_build(f, flow, seq, SIM_MAGIC_STREAM);
    memcpy(f, sim_mac_host_b, 6);
    sim_port_mac(1, f + 6);
    f[SIM_IP_OFF + 8]--;
    sim_st16(f + SIM_IP_OFF + 10, 0);
    sim_st16(f + SIM_IP_OFF + 10, sim_csum(f + SIM_IP_OFF, 20, 0));
}

void sim_build_arp(uint8_t *f, uint16_t op, const uint8_t *eth_dst, const uint8_t *sha,
                          uint32_t spa, const uint8_t *tha, uint32_t tpa)
{
    memset(f, 0, SIM_FRAME_BYTES);
    memcpy(f, eth_dst, 6);
    memcpy(f + 6, sha, 6);
    sim_st16(f + 12, 0x0806);
    uint8_t *a = f + 14;
    sim_st16(a, 1);
    sim_st16(a + 2, 0x0800);
    a[4] = 6;
    a[5] = 4;
    sim_st16(a + 6, op);
    memcpy(a + 8, sha, 6);
    sim_st32(a + 14, spa);
    memcpy(a + 18, tha, 6);
    sim_st32(a + 24, tpa);
}

/* sim_build_bad: malformed frame number idx of kind k into f (room for 3000 bytes); returns its
 * length and the write-back error bits to give it. */
uint16_t sim_build_bad(uint8_t *f, enum sim_bad k, unsigned idx, uint32_t *err_bits)
{
    uint8_t *ip = f + SIM_IP_OFF;
    uint16_t len = SIM_FRAME_BYTES;

    *err_bits = 0;
    sim_build(f, idx % SIM_FLOWS, idx, SIM_MAGIC_BAD);
    switch (k) {
    case BAD_IP_CSUM:
        ip[10] ^= 0x5a; /* after the checksums: it stays wrong */
        return len;
    case BAD_TTL1:
        ip[8] = 1;
        break;
    case BAD_DST_MARTIAN:
        sim_st32(ip + 16, 0x7f000001u);
        break;
    case BAD_NO_ROUTE:
        sim_st32(ip + 16, 0xcb007105u); /* 203.0.113.5: no route covers it */
        break;
    case BAD_IP_VERSION:
        ip[0] = 0x65;
        break;
    case BAD_ETH_MCAST:
        memcpy(f, (const uint8_t[6]){ 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 }, 6);
        break;
    case BAD_DIRECTED_BCAST:
        sim_st32(ip + 16, SIM_IP_PORT1 | 0xff);
        break;
    case BAD_OTHER_PORT:
        sim_st32(ip + 16, SIM_IP_PORT1);
        break;
    case BAD_UNRESOLVED:
        sim_st32(ip + 16, SIM_IP_NOBODY);
        break;
    case BAD_IPV6:
        sim_st16(f + 12, 0x86dd);
        return len;
    case BAD_SHORT_IPV4:
        sim_st32(f + 14, idx); /* unique, for wire mode's pass-through match */
        return 20;
    default: /* the ring-level kinds (and the IPv6 ones, which are sim6_build_bad's) */
        return sim_spoil_for_ring(f, len, k, err_bits);
    }
    sim_ip_udp_csums(f);
    return len;
}

uint16_t sim_spoil_for_ring(uint8_t *f, uint16_t len, enum sim_bad k, uint32_t *err_bits)
{
    *err_bits = 0;
    switch (k) {
    case BAD_RX_ERROR:
        *err_bits = IDESC_RX_ERR_82576_RXE;
        return len;
    case BAD_OVERSIZE:
        memset(f + len, 0xee, 3000u - len);
        return 3000;
    default: /* BAD_ZERO_LEN */
        return 0;
    }
}

/* --- what the hosts receive ---------------------------------------------------------------- */

static void sim_check_stream(struct sim *s, const uint8_t *f, uint16_t len)
{
    static uint8_t want[SIM_FRAME_BYTES];
    unsigned flow = sim_ld16(f + SIM_PAY_OFF + 2);
    uint32_t seq = sim_ld32(f + SIM_PAY_OFF + 4);

    if (len != SIM_FRAME_BYTES || flow >= SIM_FLOWS) {
        sim_report_frame(s, ++s->bad_len, "stream frame of wrong length or flow", f, len);
        return;
    }
    if (CONFIG_MODE_ROUTER) {
        sim_build_routed(want, flow, seq);
    } else {
        sim_build(want, flow, seq, SIM_MAGIC_STREAM);
    }
    if (memcmp(f, want, SIM_FRAME_BYTES) != 0) {
        /* Say what is wrong: MACs, TTL, header checksum (valid, yet not what a full
         * recompute gives), or anything else (headers, payload). */
        const uint8_t *ip = f + SIM_IP_OFF, *want_ip = want + SIM_IP_OFF;
        bool mac = memcmp(f, want, 12) != 0;
        bool ttl = ip[8] != want_ip[8];
        bool csum = sim_csum(ip, 20, 0) != 0 || (!ttl && memcmp(ip + 10, want_ip + 10, 2) != 0);
        bool rest = memcmp(f + 12, want + 12, SIM_IP_OFF + 8 - 12) != 0 || ip[9] != want_ip[9] ||
                    memcmp(ip + 12, want_ip + 12, SIM_FRAME_BYTES - SIM_IP_OFF - 12) != 0;
        if (mac) {
            sim_report_frame(s, ++s->bad_mac, "MAC addresses not as expected", f, len);
        }
        if (ttl) {
            sim_report_frame(s, ++s->bad_ttl, "TTL not decremented by exactly 1", f, len);
        }
        if (csum) {
            sim_report_frame(s, ++s->bad_csum, "IP header checksum wrong", f, len);
        }
        if (rest) {
            sim_report_frame(s, ++s->bad_payload, "frame content changed", f, len);
        }
    }
    sim_stream_arrival(s, flow, seq, f, len);
}

void sim_stream_arrival(struct sim *s, unsigned flow, uint32_t seq, const uint8_t *f,
                        uint16_t len)
{
    s->arrived++;
    uint64_t i = (uint64_t)(seq / SIM_RUN) * (SIM_FLOWS * SIM_RUN) + flow * SIM_RUN + seq % SIM_RUN;
    if (i >= s->nframes) {
        sim_report_frame(s, ++s->bad_payload, "stream frame never sent", f, len);
        return;
    }
    if (s->seen[i / 8] & (1u << (i % 8))) {
        if (++s->duplicates <= SIM_MAX_REPORTS) {
            sim_fail(s, "flow %u: seq %" PRIu32 " twice", flow, seq);
        }
        return;
    }
    s->seen[i / 8] |= (uint8_t)(1u << (i % 8));
    s->unique++;
    if (seq >= s->next_seq[flow]) {
        s->next_seq[flow] = (uint64_t)seq + 1;
    } else if (++s->reordered <= SIM_MAX_REPORTS) {
        sim_fail(s, "flow %u: seq %" PRIu32 " after %" PRIu64, flow, seq, s->next_seq[flow] - 1);
    }
}

/* sim_host_b_arp: host B sees the router ask for it and answers, as a real host would; a
 * request for SIM_IP_NOBODY goes unanswered. */
static void sim_host_b_arp(struct sim *s, const uint8_t *f, uint16_t len)
{
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    uint8_t port1_mac[6], want[SIM_FRAME_BYTES];
    sim_port_mac(1, port1_mac);
    sim_build_arp(want, 1, bcast, port1_mac, SIM_IP_PORT1, (const uint8_t[6]){ 0 },
                  SIM_IP_HOST_B);
    if (len == SIM_FRAME_BYTES && memcmp(f, want, SIM_FRAME_BYTES) == 0) {
        s->p1_arp_requests++;
        s->hostb_replies_due++;
        return;
    }
    sim_build_arp(want, 1, bcast, port1_mac, SIM_IP_PORT1, (const uint8_t[6]){ 0 },
                  SIM_IP_NOBODY);
    if (len == SIM_FRAME_BYTES && memcmp(f, want, SIM_FRAME_BYTES) == 0) {
        s->p1_arp_nobody++;
        return;
    }
    sim_report_frame(s, ++s->p1_unexpected, "port1: not an expected ARP request", f, len);
}

static bool sim_match_passthrough(struct sim *s, const uint8_t *f, uint16_t len)
{
    for (unsigned i = 0; i < s->npass; i++) {
        struct sim_passthrough *p = &s->pass[i];
        if (!p->seen && p->len == len && memcmp(p->bytes, f, len) == 0) {
            p->seen = true;
            return true;
        }
    }
    return false;
}

void sim_on_port1(void *ctx, const uint8_t *f, uint16_t len)
{
    struct sim *s = ctx;
    uint16_t magic = len >= SIM_PAY_OFF + 2 ? sim_ld16(f + SIM_PAY_OFF) : 0;

    if (len >= 14 && sim_ld16(f + 12) == 0x0806) {
        sim_host_b_arp(s, f, len);
    } else if (magic == SIM_MAGIC_STREAM && sim_ld16(f + 12) == 0x0800) {
        sim_check_stream(s, f, len);
    } else if (CONFIG_MODE_ROUTER && magic == SIM_MAGIC_PROBE) {
        s->p1_probes++;
    } else if (CONFIG_MODE_ROUTER || !sim_match_passthrough(s, f, len)) {
        sim_report_frame(s, ++s->p1_unexpected, "port1: unexpected frame", f, len);
    }
}

/* sim_check_icmp_error: an ICMP error to host A about one of its frames. Returns its type. */
static int sim_check_icmp_error(const uint8_t *f, uint16_t len)
{
    uint8_t port0_mac[6];
    sim_port_mac(0, port0_mac);
    const uint8_t *ip = f + SIM_IP_OFF;
    if (len < SIM_IP_OFF + 20 + 8 + 28 || memcmp(f, sim_mac_host_a, 6) != 0 ||
        memcmp(f + 6, port0_mac, 6) != 0 || ip[0] != 0x45 || ip[9] != 1 ||
        sim_csum(ip, 20, 0) != 0 || sim_ld32(ip + 12) != SIM_IP_PORT0 ||
        sim_ld32(ip + 16) != SIM_IP_HOST_A || sim_ld16(ip + 2) + SIM_IP_OFF > len) {
        return -1;
    }
    const uint8_t *icmp = ip + 20;
    if (sim_csum(icmp, sim_ld16(ip + 2) - 20u, 0) != 0 || icmp[1] != 0) {
        return -1;
    }
    return icmp[0];
}

void sim_on_port0(void *ctx, const uint8_t *f, uint16_t len)
{
    struct sim *s = ctx;
    uint8_t port0_mac[6], want[SIM_FRAME_BYTES];

    sim_port_mac(0, port0_mac);
    if (len >= 14 && sim_ld16(f + 12) == 0x0806) {
        sim_build_arp(want, 2, sim_mac_host_a, port0_mac, SIM_IP_PORT0, sim_mac_host_a,
                      SIM_IP_HOST_A);
        if (len == SIM_FRAME_BYTES && memcmp(f, want, SIM_FRAME_BYTES) == 0) {
            s->p0_arp_replies++;
            return;
        }
    } else if (len >= 14 && sim_ld16(f + 12) == 0x0800) {
        int type = sim_check_icmp_error(f, len);
        if (type == 11) {
            s->p0_time_exceeded++;
            return;
        }
        if (type == 3) {
            s->p0_unreachable++;
            return;
        }
    }
    sim_report_frame(s, ++s->p0_unexpected, "port0: unexpected frame", f, len);
}
