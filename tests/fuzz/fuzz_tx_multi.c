/*
 * tests/fuzz/fuzz_tx_multi.c: libFuzzer harness for the TX ring's frames of more than one
 * descriptor (drivers/nic/intel_ring.c): PKB_TX_EXT frames (headers, then a constant payload:
 * two descriptors) and PKB_TX_TSO frames (a context, then headers and payload with TSE: three),
 * mixed with one-descriptor frames, any of them tagged for the NIC (PKB_TX_VLAN: a context with
 * the tag first, but for TSO's), and forwarded runs of one tag (iring_tx_burst_forward_tagged:
 * the tag's context kept in slot 1 across runs), against tests/fakes/fake_intel_nic.c as the NIC (it checks
 * every descriptor it takes, gathers each frame, cuts TSO frames as the chips do, completes the
 * checksums) and against a hostile one (DD written anywhere, at any time). fuzz_tx_ring holds
 * the one-descriptor ring to an exact reference; this one is about what frames of several
 * descriptors add: where RS goes, which slot reclaim waits on, the slots that hold no buffer.
 *
 * Input: byte 0: ring size 16 << (b & 3) (16 .. 128), pool size 2 * ring + (b >> 2 & 7); then
 * operations, 1 opcode byte each (op % 8):
 *   0    iring_tx_burst of byte % 24 frames, each from a byte: kind (b % 4: plain, ext, TSO,
 *        a bad TSO), tagged if bit 2 (TCI 1 + b >> 3), payload length from a second byte; the
 *        frame's payload is constant memory indexed by the stream's byte count, so the wire
 *        shows whether bytes went out in order
 *   1    iring_tx_burst_forward_tagged of byte % 24 plain frames (checksums in software), the
 *        run's TCI 1 + byte % 8, lengths from a byte each
 *   2-3  the NIC takes byte % 9 descriptors (well-behaved)
 *   4    iring_tx_reclaim (a NIC that behaved and took all it was given: nothing left in flight)
 *   5    hostile: DD into slot byte % size (the NIC may not have reached it)
 *   6    port reset: iring_tx_release, the NIC back to 0, the checksum context loaded again
 *   7    the application holds byte % 8 buffers, or (bit 7) gives back all it holds
 *
 * Invariants (after every operation): every buffer in exactly one place (pool, the ring's
 * first slot of a frame in flight, the application), no double or foreign free; the ring
 * counts what it refused (bad_tso for the bad kind only); while the NIC behaved since the last
 * reset: the NIC found no malformed descriptor (fake_inic violations 0), and the bytes on the
 * wire are the frames' payloads in the order placed, each segment within its MSS and tagged
 * exactly as its frame asked (its TCI, or no tag), and once it
 * has taken everything, a reclaim leaves nothing in flight; tx packets never exceed the wire
 * frames sent. At the end, after a reset: the pool is full.
 */
#include <stdbool.h>
#include <string.h>

#include "drivers/nic/intel_ring.h"
#include "err.h"
#include "pkb.h"
#include "tests/fakes/fake_intel_nic.h"
#include "tests/fuzz/fuzz.h"

#define FM_MAX_DESCS 128
#define FM_MAX_POOL (2 * FM_MAX_DESCS + 8)
#define FM_CORE 1
#define FM_MSS 1460u
#define FM_BURST 24
#define FM_EXP 1024        /* frames placed whose bytes have not all been on the wire: < ring */
#define FM_UNTAGGED 0x10000u

static uint8_t fm_data[FM_MAX_POOL * PKB_DATA_BYTES] __attribute__((aligned(PKB_DATA_BYTES)));
static uint8_t fm_payload[2 * IRING_TX_TSO_MAX_BYTES]; /* constant: byte i is (i * 7 + 1) */

struct fm {
    struct iring_tx ring;
    struct pkb_pool pool;
    struct pkb meta[FM_MAX_POOL];
    struct pkb *stack[FM_MAX_POOL];
    union idesc_tx desc[FM_MAX_DESCS] __attribute__((aligned(128)));
    struct pkb *sw[FM_MAX_DESCS];
    struct iring_tx_mark marks[FM_MAX_DESCS];
    uint32_t tail;
    uint16_t size;
    uint32_t npool;
    struct fake_inic_tx nic;
    bool hostile;
    uint64_t placed_bytes; /* TCP payload bytes placed since the last reset */
    uint64_t wire_bytes;   /* payload bytes the NIC put on the wire, in order */
    uint64_t wire_frames;
    struct pkb *app[FM_MAX_POOL];
    unsigned napp;
    /* the frames placed, in order, until all their bytes were seen: stream end and tag */
    struct {
        uint64_t end;
        uint32_t tag; /* its TCI, or FM_UNTAGGED */
    } exp[FM_EXP];
    unsigned exp_head, exp_tail;
};

/* fm_expect: a frame placed, its payload ending at stream byte end, tagged so. */
static void fm_expect(struct fm *m, uint64_t end, uint32_t tag)
{
    FUZZ_CHECK(m->exp_tail - m->exp_head < FM_EXP);
    m->exp[m->exp_tail % FM_EXP].end = end;
    m->exp[m->exp_tail % FM_EXP].tag = tag;
    m->exp_tail++;
}

/* fm_wire_tag: the tag the frame holding stream byte seq was placed with. */
static uint32_t fm_wire_tag(struct fm *m, uint64_t seq)
{
    while (m->exp_head != m->exp_tail && m->exp[m->exp_head % FM_EXP].end <= seq) {
        m->exp_head++;
    }
    FUZZ_CHECK(m->exp_head != m->exp_tail); /* bytes nobody placed */
    return m->exp[m->exp_head % FM_EXP].tag;
}

static uint16_t fm_fold(uint32_t s)
{
    while (s >> 16) {
        s = (s & 0xFFFFu) + (s >> 16);
    }
    return (uint16_t)s;
}

static uint32_t fm_sum(const uint8_t *p, uint32_t n, uint32_t s)
{
    for (uint32_t i = 0; i + 1 < n; i += 2) {
        s += (uint32_t)p[i] << 8 | p[i + 1];
    }
    return (n & 1) ? s + ((uint32_t)p[n - 1] << 8) : s;
}

/* The wire: every frame a whole TCP/IPv4 segment, within the MSS, its payload the next bytes
 * of the stream (its sequence number says where), checksums right. */
static void fm_on_wire(void *ctx, const uint8_t *f, uint16_t len)
{
    static uint8_t untagged[IRING_TX_TSO_MAX_BYTES + 64];
    struct fm *m = ctx;
    m->wire_frames++;
    if (m->hostile) {
        return; /* the ring may have reused what the NIC reads now: nothing to hold it to */
    }
    uint32_t tag = FM_UNTAGGED;
    FUZZ_CHECK(len >= 18);
    if (f[12] == 0x81 && f[13] == 0x00) { /* the NIC's tag: off, to look at the segment */
        tag = (uint32_t)(f[14] << 8 | f[15]);
        FUZZ_CHECK((unsigned)len - 4u <= sizeof(untagged));
        memcpy(untagged, f, 12);
        memcpy(untagged + 12, f + 16, len - 16u);
        f = untagged;
        len = (uint16_t)(len - 4);
    }
    const uint8_t *ip = f + 14, *tcp = ip + 20;
    FUZZ_CHECK(len >= 54);
    uint32_t tcp_len = (uint32_t)(ip[2] << 8 | ip[3]) - 20u, n = tcp_len - 20u;
    uint32_t seq = (uint32_t)tcp[4] << 24 | (uint32_t)tcp[5] << 16 | (uint32_t)tcp[6] << 8 | tcp[7];
    FUZZ_CHECK(34u + tcp_len == len && n <= FM_MSS);
    FUZZ_CHECK(fm_fold(fm_sum(ip, 20, 0)) == 0xFFFF);
    FUZZ_CHECK(fm_fold(fm_sum(tcp, tcp_len, fm_sum(ip + 12, 8, 6u + tcp_len))) == 0xFFFF);
    FUZZ_CHECK(seq == (uint32_t)m->wire_bytes);
    FUZZ_CHECK(fm_wire_tag(m, m->wire_bytes) == tag);
    for (uint32_t k = 0; k < n; k++) { /* (16 KiB * 7 is a multiple of 256) */
        FUZZ_CHECK(tcp[20 + k] == (uint8_t)((seq + k) * 7u + 1u));
    }
    m->wire_bytes += n;
}

/* fm_frame: a frame of kind 0 (payload copied), 1 (by reference), 2 (TSO), 3 (TSO the NIC
 * cannot cut: MSS below the minimum), payload n bytes of the stream from placed_bytes on. */
static struct pkb *fm_frame(struct fm *m, unsigned kind, uint32_t n)
{
    struct pkb *p = pkb_alloc(&m->pool);
    if (p == NULL) {
        return NULL;
    }
    uint32_t seq = (uint32_t)m->placed_bytes, off = seq % IRING_TX_TSO_MAX_BYTES;
    uint8_t *f = p->data, *ip = f + 14, *tcp = ip + 20;
    memset(f, 0, 54);
    f[12] = 0x08;
    ip[0] = 0x45;
    ip[8] = 64;
    ip[9] = 6;
    memcpy(ip + 12, "\xc6\x12\x00\x01\xc6\x12\x00\x02", 8);
    for (int b = 0; b < 4; b++) {
        tcp[4 + b] = (uint8_t)(seq >> (24 - 8 * b));
    }
    tcp[12] = 5 << 4;
    tcp[13] = 0x18;
    uint32_t tcp_len = 20 + n;
    ip[2] = (uint8_t)((20 + tcp_len) >> 8);
    ip[3] = (uint8_t)(20 + tcp_len);
    pkb_tx_own(p);
    p->len = 54;
    p->tx.ext = fm_payload + off;
    p->tx.ext_len = n;
    p->tx.mss = kind == 3 ? IRING_TX_TSO_MIN_MSS - 1 : FM_MSS;
    uint16_t pseudo;
    if (kind >= 2) { /* the pseudo-header sum without the length, the IPv4 checksum left 0 */
        pseudo = fm_fold(fm_sum(ip + 12, 8, 6));
        p->tx_flags = PKB_TX_TSO | PKB_TX_EXT | PKB_TX_CSUM_TCP4 | PKB_TX_CSUM_IP4;
    } else {
        pseudo = fm_fold(fm_sum(ip + 12, 8, 6u + tcp_len));
        p->tx_flags = PKB_TX_CSUM_TCP4 | PKB_TX_CSUM_IP4;
        if (kind == 1) {
            p->tx_flags |= PKB_TX_EXT;
        } else {
            memcpy(f + 54, fm_payload + off, n);
            p->len = (uint16_t)(54 + n);
        }
    }
    tcp[16] = (uint8_t)(pseudo >> 8);
    tcp[17] = (uint8_t)pseudo;
    return p;
}

/* fm_frame_len: a payload length the kind can carry (kinds 0 and 1: one segment; 2 and 3:
 * more than one, at most a descriptor's). */
static uint32_t fm_frame_len(unsigned kind, uint8_t b)
{
    switch (kind) {
    case 0:
    case 1:
        return 6u + b * 5u; /* 6 .. 1281: one segment */
    default:
        return FM_MSS + 1u + (uint32_t)b * 64u % (IRING_TX_TSO_MAX_BYTES - FM_MSS);
    }
}

/* Every buffer once: in the pool, in a ring slot in flight, or held by the application. */
static void fm_check_conservation(const struct fm *m)
{
    uint8_t seen[FM_MAX_POOL];
    memset(seen, 0, sizeof(seen));
    for (uint32_t i = 0; i < m->pool.nfree; i++) {
        seen[m->pool.free[i] - m->meta]++;
    }
    uint16_t ntc = iring_tx_next_to_clean(&m->ring);
    for (uint16_t k = 0; k < iring_tx_in_flight(&m->ring); k++) {
        const struct pkb *p = m->sw[(ntc + k) % m->size];
        if (p != NULL) {
            FUZZ_CHECK(p >= m->meta && p < m->meta + m->npool);
            seen[p - m->meta]++;
        }
    }
    for (unsigned i = 0; i < m->napp; i++) {
        seen[m->app[i] - m->meta]++;
    }
    for (uint32_t i = 0; i < m->npool; i++) {
        FUZZ_CHECK(seen[i] == 1);
    }
    FUZZ_CHECK(m->pool.double_free == 0 && m->pool.foreign_free == 0);
}

static void fm_check(const struct fm *m)
{
    fm_check_conservation(m);
    FUZZ_CHECK(m->tail == iring_tx_next_to_use(&m->ring));
    if (!m->hostile) {
        FUZZ_CHECK(m->nic.violations == 0);
        FUZZ_CHECK(m->ring.stats.packets <= m->wire_frames); /* reported only once sent */
    }
}

static void fm_burst(struct fm *m, unsigned want, struct fuzz_in *in)
{
    struct pkb *pk[FM_BURST];
    unsigned n = 0, bad = 0;
    uint64_t bytes0 = m->placed_bytes, bad0 = m->ring.stats.bad_tso;
    uint32_t lens[FM_BURST], tags[FM_BURST];
    for (unsigned k = 0; k < want; k++) {
        uint8_t spec = fuzz_u8(in);
        unsigned kind = spec % 4;
        uint32_t len = fm_frame_len(kind, fuzz_u8(in));
        struct pkb *p = fm_frame(m, kind, len);
        if (p == NULL) {
            break;
        }
        tags[n] = FM_UNTAGGED;
        if (spec & 4) {
            p->tx_flags |= PKB_TX_VLAN;
            p->vlan = (uint16_t)(1u + (spec >> 3));
            tags[n] = p->vlan;
        }
        bad += kind == 3;
        lens[n] = kind == 3 ? 0 : len;
        m->placed_bytes += lens[n]; /* (a refused frame sends nothing: see below) */
        pk[n++] = p;
    }
    unsigned placed = iring_tx_burst(&m->ring, pk, n);
    FUZZ_CHECK(m->ring.stats.bad_tso - bad0 == bad);
    /* Only the frames placed reach the wire: what came after the first refused for want of
     * room did not; the stream goes on from the last placed byte. */
    m->placed_bytes = bytes0;
    for (unsigned k = 0, ok = 0; k < n && ok < placed; k++) {
        m->placed_bytes += lens[k];
        ok += lens[k] != 0;
        if (lens[k] != 0 && !m->hostile) {
            fm_expect(m, m->placed_bytes, tags[k]);
        }
    }
    fm_check(m);
}

/* fm_forward_tagged: a forwarded run of `want` plain frames the NIC is to tag with one TCI:
 * their checksums complete in software, as a router's are. */
static void fm_forward_tagged(struct fm *m, unsigned want, struct fuzz_in *in)
{
    struct pkb *pk[FM_BURST];
    uint32_t lens[FM_BURST];
    uint16_t tci = (uint16_t)(1u + fuzz_u8(in) % 8);
    uint64_t bytes0 = m->placed_bytes;
    unsigned n = 0;
    for (unsigned k = 0; k < want; k++) {
        uint32_t len = fm_frame_len(0, fuzz_u8(in));
        struct pkb *p = fm_frame(m, 0, len);
        if (p == NULL) {
            break;
        }
        uint8_t *ip = p->data + 14, *tcp = ip + 20;
        uint16_t s = (uint16_t)~fm_fold(fm_sum(ip, 20, 0));
        ip[10] = (uint8_t)(s >> 8);
        ip[11] = (uint8_t)s;
        s = (uint16_t)~fm_fold(fm_sum(tcp, 20 + len, 0)); /* the field holds the pseudo sum */
        tcp[16] = (uint8_t)(s >> 8);
        tcp[17] = (uint8_t)s;
        p->tx_flags = PKB_TX_VLAN;
        p->vlan = tci;
        p->forwarded = 1;
        lens[n] = len;
        m->placed_bytes += len;
        pk[n++] = p;
    }
    unsigned placed = iring_tx_burst_forward_tagged(&m->ring, pk, n, tci);
    FUZZ_CHECK(placed <= n);
    m->placed_bytes = bytes0;
    for (unsigned k = 0; k < placed; k++) {
        m->placed_bytes += lens[k];
        if (!m->hostile) {
            fm_expect(m, m->placed_bytes, tci);
        }
    }
    fm_check(m);
}

static void fm_reset(struct fm *m)
{
    iring_tx_release(&m->ring);
    m->tail = 0;
    fake_inic_tx_init(&m->nic, m->desc, m->size, &m->tail);
    m->nic.on_frame = fm_on_wire;
    m->nic.ctx = m;
    m->hostile = false;
    FUZZ_CHECK(iring_tx_load_csum_context(&m->ring) == WS_OK);
    m->placed_bytes = m->wire_bytes = 0;
    m->exp_head = m->exp_tail = 0;
    m->wire_frames = m->ring.stats.packets;
    fm_check(m);
}

static void fm_app(struct fm *m, uint8_t b)
{
    if (b & 0x80) {
        for (unsigned i = 0; i < m->napp; i++) {
            pkb_free(m->app[i], FM_CORE);
        }
        m->napp = 0;
        return;
    }
    for (unsigned k = b % 8; k != 0; k--) {
        struct pkb *p = pkb_alloc(&m->pool);
        if (p == NULL) {
            break;
        }
        m->app[m->napp++] = p;
    }
}

static void fm_run(struct fm *m, struct fuzz_in *in)
{
    for (unsigned ops = 0; in->n != 0 && ops < 1024; ops++) {
        switch (fuzz_u8(in) % 8) {
        case 0:
            fm_burst(m, fuzz_u8(in) % (FM_BURST + 1), in);
            break;
        case 1:
            fm_forward_tagged(m, fuzz_u8(in) % (FM_BURST + 1), in);
            break;
        case 2:
        case 3:
            fake_inic_tx_process(&m->nic, fuzz_u8(in) % 9);
            break;
        case 4:
            iring_tx_reclaim(&m->ring);
            /* a NIC that sent all it was given reported it (every burst's last asks): all of
             * it comes back, or the ring would fill with frames long sent */
            FUZZ_CHECK(m->hostile || m->nic.head != m->tail || iring_tx_in_flight(&m->ring) == 0);
            break;
        case 5: { /* DD anywhere: a slot the NIC has not reached, one not in flight */
            uint16_t i = (uint16_t)(fuzz_u8(in) % m->size);
            m->desc[i].wb.status |= IDESC_TX_STATUS_DD;
            m->hostile = true;
            break;
        }
        case 6:
            fm_reset(m);
            break;
        default:
            fm_app(m, fuzz_u8(in));
            break;
        }
        fm_check(m);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct fm m;
    struct fuzz_in in = { data, size };
    uint8_t setup = fuzz_u8(&in);
    for (unsigned i = 0; i < sizeof(fm_payload); i++) {
        fm_payload[i] = (uint8_t)(i * 7u + 1u);
    }
    memset(&m, 0, sizeof(m));
    m.size = (uint16_t)(16u << (setup & 3));
    m.npool = 2u * m.size + (setup >> 2 & 7);
    pkb_pool_init(&m.pool, FM_CORE, m.meta, m.stack, fm_data, m.npool);
    FUZZ_CHECK(iring_tx_init(&m.ring, m.desc, m.sw, m.marks, m.size, (uintptr_t)&m.tail, &m.pool,
                             FM_CORE, 0) == 0);
    fm_reset(&m);
    fm_run(&m, &in);
    fm_app(&m, 0x80);
    iring_tx_release(&m.ring);
    FUZZ_CHECK(m.pool.nfree == m.npool && m.pool.double_free == 0);
    return 0;
}
