/*
 * tests/fuzz/fuzz_net_local.c: libFuzzer harness for the own-address input path, net/local.c's
 * net_local_input (with net/neigh.c and net/inet.c), on frames built from the input.
 *
 * Input: byte 0 picks the variant, byte 1 holds a size (bits 0-5) and whether the harness
 * rewrites the IPv4 header checksum (bit 7) and ICMP checksum (bit 6) of each frame (see
 * fuzz_fix_checksums), the rest is the frame (or, with FL_MULTI, up to FL_MAX_FRAMES frames,
 * each after a 2-byte big-endian length):
 *   bits 0-1  buffer: exactly the frame / frame + (byte 1 & 63) / PKB_DATA_BYTES / shorter than
 *             the frame by 1 + (byte 1 & 7) (the caller-bug path)
 *   bit 2     the neighbour table is passed (writer core) or NULL
 *   bits 3-5  our prefix length: 24 8 16 30 31 32 0 40
 *   bit 6     the interface has no IPv4 address
 *   bit 7     several frames (FL_MULTI), sharing one table and one set of counters
 * Our interface is 02:00:00:00:00:01, 10.0.0.1. Built with -DNEIGH_TABLE_BITS=4 (run.sh does):
 * a 16-entry table, which a few frames fill, so eviction of the oldest entry is reached too.
 *
 * Invariants: one verdict per call, counted once (net_local_total grows by exactly 1, in the
 * counter family that matches the verdict); *out_len written only for NET_REPLY, then 60 ..
 * buf_bytes; nothing written beyond the reply, and nothing at all for other verdicts; the
 * buffer is allocated with exactly buf_bytes, so ASan sees any access past it; replies are
 * well formed (ARP fields, IPv4 and ICMP checksums that verify and equal a full recompute,
 * zero padding, echo data returned intact);
 * the neighbour table changes only on ARP that may teach, never rejects, and holds what an
 * ARP reply or announcement taught.
 */
#include <stdbool.h>
#include <string.h>

#include "net/inet.h"
#include "net/local.h"
#include "net/neigh.h"
#include "pkb.h"
#include "tests/fuzz/fuzz.h"

#define FL_BUF_MASK 0x03
#define FL_BUF_TIGHT 0
#define FL_BUF_SLACK 1
#define FL_BUF_PKB 2
#define FL_BUF_SHORT 3
#define FL_NEIGH 0x04
#define FL_PREFIX_SHIFT 3
#define FL_NO_IP 0x40
#define FL_MULTI 0x80
#define FL_FIX_IP 0x80   /* in byte 1 */
#define FL_FIX_ICMP 0x40 /* in byte 1 */
#define FL_SINK 0x20     /* in byte 1: TCP, UDP and fragments to us go to the sink */
#define FL_ALSO 0x10     /* in byte 1: the interface also answers for FL_ALSO_IP (IP level) */
#define FL_ALSO_IP 0x0a000101u /* 10.0.1.1: another port's address */
#define FL_MAX_FRAMES 24
#define FL_MAX_FRAME_BYTES (PKB_DATA_BYTES + 64)
#define FL_FILL 0xa5 /* buffer bytes past the frame start as this, to see stray writes */

static const uint8_t fl_prefixes[8] = { 24, 8, 16, 30, 31, 32, 0, 40 };

struct fl_ctx {
    struct net_iface ifc;
    struct neigh_table *neigh; /* NULL: not the writer core */
    struct neigh_table *before; /* copy of *neigh before the current frame */
    struct net_local_stats st;
    uint64_t now_ns;
};

/* The counter that moved in this call: its index in net_drop_counters[], or -1 if none did;
 * checks that at most one moved, by exactly one. */
FUZZ_UNTRACED static int fl_moved_drop(const struct net_drop_stats *a,
                                      const struct net_drop_stats *b)
{
    int moved = -1;
    for (size_t i = 0; i < net_drop_counter_count; i++) {
        uint64_t va, vb;
        memcpy(&va, (const uint8_t *)a + net_drop_counters[i].offset, sizeof(va));
        memcpy(&vb, (const uint8_t *)b + net_drop_counters[i].offset, sizeof(vb));
        if (va != vb) {
            FUZZ_CHECK(vb == va + 1 && moved < 0);
            moved = (int)i;
        }
    }
    return moved;
}

static bool fl_drop_is(int moved, const char *name)
{
    return moved >= 0 && strcmp(net_drop_counters[moved].name, name) == 0;
}

FUZZ_UNTRACED static bool fl_all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != 0) {
            return false;
        }
    }
    return true;
}

/* An ARP reply: RFC 826's swap, from us, to the requester, padded with zeros to 60 bytes. */
static void fl_check_arp_reply(const struct fl_ctx *c, const uint8_t *req, const uint8_t *f,
                               uint16_t out_len)
{
    const struct inet_arp *q = (const struct inet_arp *)(req + INET_ETH_HDR_BYTES);
    const struct inet_arp *a = (const struct inet_arp *)(f + INET_ETH_HDR_BYTES);

    FUZZ_CHECK(out_len == INET_ETH_MIN_FRAME_BYTES);
    FUZZ_CHECK(inet_load_be16(q->op) == INET_ARP_OP_REQUEST);
    FUZZ_CHECK(c->ifc.ip != 0 && inet_load_be32(q->tpa) == c->ifc.ip);
    FUZZ_CHECK(inet_load_be16(f + 12) == INET_ETHERTYPE_ARP);
    FUZZ_CHECK(memcmp(f, q->sha, 6) == 0 && memcmp(f + 6, c->ifc.mac, 6) == 0);
    FUZZ_CHECK(inet_load_be16(a->op) == INET_ARP_OP_REPLY);
    FUZZ_CHECK(inet_load_be16(a->htype) == INET_ARP_HTYPE_ETHERNET);
    FUZZ_CHECK(inet_load_be16(a->ptype) == INET_ETHERTYPE_IPV4);
    FUZZ_CHECK(a->hlen == 6 && a->plen == 4);
    FUZZ_CHECK(memcmp(a->sha, c->ifc.mac, 6) == 0 && inet_load_be32(a->spa) == c->ifc.ip);
    FUZZ_CHECK(memcmp(a->tha, q->sha, 6) == 0 && memcmp(a->tpa, q->spa, 4) == 0);
    FUZZ_CHECK(!inet_eth_is_group(f));
    FUZZ_CHECK(fl_all_zero(f + INET_ETH_HDR_BYTES + INET_ARP_BYTES,
                           out_len - INET_ETH_HDR_BYTES - INET_ARP_BYTES));
}

/* An echo reply: fresh 20-byte header from us to the requester, both checksums verifying,
 * the request's identifier, sequence number and data returned whole, zero padding. */
/* fl_ours: an address the interface answers for at the IP level (its own, or also_ours). */
static bool fl_ours(const struct fl_ctx *c, uint32_t ip)
{
    return ip != 0 && (ip == c->ifc.ip || (c->ifc.n_also_ours == 1 && ip == c->ifc.also_ours[0]));
}

static void fl_check_echo_reply(const struct fl_ctx *c, const uint8_t *req, const uint8_t *f,
                                uint16_t out_len)
{
    const uint8_t *qip = req + INET_ETH_HDR_BYTES;
    const uint8_t *ip = f + INET_ETH_HDR_BYTES;
    uint16_t qhlen = (uint16_t)((qip[0] & 0x0f) * 4);
    uint16_t qtotal = inet_load_be16(qip + 2);
    uint16_t total = inet_load_be16(ip + 2);
    uint16_t icmp_len = (uint16_t)(total - INET_IPV4_HDR_BYTES);
    uint32_t frame_len = INET_ETH_HDR_BYTES + (uint32_t)total;

    FUZZ_CHECK(c->ifc.ip != 0 && fl_ours(c, inet_load_be32(qip + 16)));
    FUZZ_CHECK(memcmp(f, req + 6, 6) == 0 && memcmp(f + 6, c->ifc.mac, 6) == 0);
    FUZZ_CHECK(inet_load_be16(f + 12) == INET_ETHERTYPE_IPV4);
    FUZZ_CHECK(ip[0] == 0x45 && ip[9] == INET_PROTO_ICMP);
    FUZZ_CHECK(total >= INET_IPV4_HDR_BYTES + INET_ICMP_ECHO_BYTES);
    FUZZ_CHECK(icmp_len == qtotal - qhlen);
    FUZZ_CHECK(frame_len <= out_len);
    FUZZ_CHECK(out_len == (frame_len < 60 ? 60 : frame_len));
    FUZZ_CHECK(memcmp(ip + 12, qip + 16, 4) == 0); /* from the address asked (RFC 1122) */
    FUZZ_CHECK(memcmp(ip + 16, qip + 12, 4) == 0);
    FUZZ_CHECK(inet_checksum(ip, INET_IPV4_HDR_BYTES) == 0);
    FUZZ_CHECK(inet_ipv4_hdr_csum_ok(ip, INET_IPV4_HDR_BYTES));
    FUZZ_CHECK(ip[INET_IPV4_HDR_BYTES] == INET_ICMP_ECHO_REPLY);
    FUZZ_CHECK(ip[INET_IPV4_HDR_BYTES + 1] == 0);
    FUZZ_CHECK(memcmp(ip + INET_IPV4_HDR_BYTES + 4, qip + qhlen + 4, icmp_len - 4u) == 0);
    FUZZ_CHECK(inet_checksum(ip + INET_IPV4_HDR_BYTES, icmp_len) == 0);
    /* The incremental update (RFC 1624) must give what a full recompute gives. */
    uint8_t *msg = fuzz_alloc_copy(ip + INET_IPV4_HDR_BYTES, icmp_len, icmp_len);
    msg[2] = msg[3] = 0;
    FUZZ_CHECK(inet_checksum(msg, icmp_len) == inet_load_be16(ip + INET_IPV4_HDR_BYTES + 2));
    free(msg);
    FUZZ_CHECK(fl_all_zero(f + frame_len, out_len - frame_len));
}

/* One frame through net_local_input, and every check that applies to its outcome. */
static void fl_one_frame(struct fl_ctx *c, const uint8_t *bytes, uint16_t len, uint8_t variant,
                         uint8_t slack)
{
    uint32_t buf_bytes;
    switch (variant & FL_BUF_MASK) {
    case FL_BUF_TIGHT:
        buf_bytes = len;
        break;
    case FL_BUF_SLACK:
        buf_bytes = (uint32_t)len + (slack & 63u);
        break;
    case FL_BUF_PKB:
        buf_bytes = len > PKB_DATA_BYTES ? len : PKB_DATA_BYTES;
        break;
    default:
        buf_bytes = len > (slack & 7u) ? len - 1u - (slack & 7u) : 0;
        break;
    }

    uint8_t *req = fuzz_alloc_copy(bytes, len, len); /* the whole frame, as sent */
    fuzz_fix_checksums(req, len, slack & FL_FIX_IP, slack & FL_FIX_ICMP);
    /* Exactly buf_bytes on the heap; the frame, then a fill pattern up to buf_bytes. */
    uint8_t *buf = fuzz_alloc_copy(req, buf_bytes, len);
    if (buf_bytes > len) {
        memset(buf + len, FL_FILL, buf_bytes - len);
    }
    uint8_t *orig = fuzz_alloc_copy(buf, buf_bytes, buf_bytes); /* buf as it was */

    if (c->neigh != NULL) {
        memcpy(c->before, c->neigh, sizeof(*c->neigh));
    }
    struct net_local_stats st0 = c->st;
    uint64_t total0 = net_local_total(&c->st);
    const uint16_t sentinel = 0xbeef;
    uint16_t out_len = sentinel;

    enum net_verdict v = net_local_input(&c->ifc, c->neigh, buf, len, (uint16_t)buf_bytes,
                                         &out_len, &c->st, c->now_ns);

    /* One verdict, one counter. */
    FUZZ_CHECK(v == NET_REPLY || v == NET_CONSUMED || v == NET_DROP || v == NET_PASS ||
               v == NET_SINK);
    FUZZ_CHECK(net_local_total(&c->st) == total0 + 1);
    int moved = fl_moved_drop(&st0.drop, &c->st.drop);
    uint64_t answered = (c->st.arp_requests_answered - st0.arp_requests_answered) +
                        (c->st.icmp_echo_answered - st0.icmp_echo_answered);
    uint64_t learned = (c->st.arp_replies_learned - st0.arp_replies_learned) +
                       (c->st.arp_gratuitous_learned - st0.arp_gratuitous_learned);
    uint64_t passed = c->st.ip_passed - st0.ip_passed;
    uint64_t sunk = c->st.ip_to_sink - st0.ip_to_sink;
    FUZZ_CHECK((v == NET_DROP) == (moved >= 0));
    FUZZ_CHECK((v == NET_REPLY) == (answered == 1));
    FUZZ_CHECK((v == NET_CONSUMED) == (learned == 1));
    FUZZ_CHECK((v == NET_PASS) == (passed == 1));
    FUZZ_CHECK((v == NET_SINK) == (sunk == 1));
    if (v == NET_SINK) { /* only with the sink on, only TCP, UDP or a fragment, only to us */
        const uint8_t *ip = req + INET_ETH_HDR_BYTES;
        bool frag = inet_load_be16(ip + 6) & 0x3fff;
        FUZZ_CHECK(c->ifc.sink && c->ifc.ip != 0 && fl_ours(c, inet_load_be32(ip + 16)));
        FUZZ_CHECK(frag || ip[9] == INET_PROTO_TCP || ip[9] == INET_PROTO_UDP);
        FUZZ_CHECK(inet_checksum(ip, (uint16_t)((ip[0] & 0x0f) * 4)) == 0);
        FUZZ_CHECK(memcmp(buf, orig, len) == 0); /* handed on unchanged */
    }
    FUZZ_CHECK((len > buf_bytes) == fl_drop_is(moved, "frame_exceeds_buffer"));

    if (v == NET_REPLY) {
        FUZZ_CHECK(out_len >= INET_ETH_MIN_FRAME_BYTES && out_len <= buf_bytes);
        FUZZ_CHECK(memcmp(buf + out_len, orig + out_len, buf_bytes - out_len) == 0);
        if (c->st.arp_requests_answered != st0.arp_requests_answered) {
            fl_check_arp_reply(c, req, buf, out_len);
        } else {
            fl_check_echo_reply(c, req, buf, out_len);
        }
    } else {
        FUZZ_CHECK(out_len == sentinel);
        FUZZ_CHECK(memcmp(buf, orig, buf_bytes) == 0); /* a frame not answered is unchanged */
    }
    if (v == NET_PASS) {
        /* Only valid IPv4 unicast for another host reaches the forwarder. */
        FUZZ_CHECK(len >= INET_ETH_HDR_BYTES + INET_IPV4_HDR_BYTES);
        FUZZ_CHECK(inet_load_be16(req + 12) == INET_ETHERTYPE_IPV4);
        const uint8_t *ip = req + INET_ETH_HDR_BYTES;
        uint16_t hlen = (uint16_t)((ip[0] & 0x0f) * 4);
        FUZZ_CHECK((ip[0] >> 4) == 4 && hlen >= INET_IPV4_HDR_BYTES);
        FUZZ_CHECK(inet_load_be16(ip + 2) >= hlen);
        FUZZ_CHECK(inet_load_be16(ip + 2) <= len - INET_ETH_HDR_BYTES);
        FUZZ_CHECK(inet_checksum(ip, hlen) == 0 && inet_ipv4_hdr_csum_ok(ip, hlen));
        FUZZ_CHECK(!inet_eth_is_group(req) && !inet_eth_is_group(req + 6));
        FUZZ_CHECK(!inet_ipv4_is_martian(inet_load_be32(ip + 12)));
        FUZZ_CHECK(!inet_ipv4_is_martian(inet_load_be32(ip + 16)));
        FUZZ_CHECK(!fl_ours(c, inet_load_be32(ip + 16)) || c->ifc.ip == 0);
    }

    if (c->neigh != NULL) {
        /* The table learns only from ARP that may teach; it never sees a bad claim. */
        FUZZ_CHECK(c->neigh->stats.rejected == 0);
        bool arp = len >= INET_ETH_HDR_BYTES && inet_load_be16(req + 12) == INET_ETHERTYPE_ARP;
        /* RFC 826 merges the sender before looking at the opcode: a request for us teaches
         * even when its reply then does not fit the buffer. */
        bool may_change = v == NET_CONSUMED || fl_drop_is(moved, "arp_not_for_us") ||
                          (arp && fl_drop_is(moved, "reply_no_room")) ||
                          (v == NET_REPLY && c->st.arp_requests_answered !=
                                                 st0.arp_requests_answered);
        if (!may_change && memcmp(c->before, c->neigh, sizeof(*c->neigh)) != 0) {
            fprintf(stderr, "table changed: verdict %d, drop %s\n", (int)v,
                    moved >= 0 ? net_drop_counters[moved].name : "-");
            FUZZ_CHECK(!"the neighbour table changed");
        }
        if (v == NET_CONSUMED) {
            const struct inet_arp *a = (const struct inet_arp *)(req + INET_ETH_HDR_BYTES);
            uint8_t mac[6];
            FUZZ_CHECK(neigh_lookup(c->neigh, inet_load_be32(a->spa), mac));
            FUZZ_CHECK(memcmp(mac, a->sha, 6) == 0);
        }
    }

    free(req);
    free(orig);
    free(buf);
    c->now_ns += 1000000; /* 1 ms between frames */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    uint8_t variant = fuzz_u8(&in);
    uint8_t slack = fuzz_u8(&in);

    struct fl_ctx c;
    memset(&c, 0, sizeof(c));
    static const uint8_t our_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
    memcpy(c.ifc.mac, our_mac, sizeof(our_mac));
    c.ifc.ip = (variant & FL_NO_IP) ? 0 : 0x0a000001u; /* 10.0.0.1 */
    c.ifc.prefix_len = fl_prefixes[(variant >> FL_PREFIX_SHIFT) & 7];
    c.ifc.port = 0;
    c.ifc.sink = (slack & FL_SINK) != 0;
    if (slack & FL_ALSO) {
        c.ifc.n_also_ours = 1;
        c.ifc.also_ours[0] = FL_ALSO_IP;
    }
    c.now_ns = 1000000000ull;
    if (variant & FL_NEIGH) {
        c.neigh = malloc(sizeof(*c.neigh));
        c.before = malloc(sizeof(*c.before));
        if (c.neigh == NULL || c.before == NULL) {
            abort();
        }
        neigh_init(c.neigh);
    }

    unsigned frames = 0;
    if (!(variant & FL_MULTI)) {
        uint16_t len = in.n > FL_MAX_FRAME_BYTES ? FL_MAX_FRAME_BYTES : (uint16_t)in.n;
        fl_one_frame(&c, in.p, len, variant, slack);
        frames = 1;
    } else {
        while (in.n >= 2 && frames < FL_MAX_FRAMES) {
            uint16_t want = fuzz_u16(&in) % (FL_MAX_FRAME_BYTES + 1);
            uint16_t len = want < in.n ? want : (uint16_t)in.n;
            fl_one_frame(&c, in.p, len, variant, slack);
            in.p += len;
            in.n -= len;
            frames++;
        }
    }
    FUZZ_CHECK(net_local_total(&c.st) == frames);

    free(c.before);
    free(c.neigh);
    return 0;
}
