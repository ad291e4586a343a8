/*
 * tests/model/ixgbe_model_rx.c: the 82599 receive path, from the 82599 datasheet (331520
 * rev 3.x): L2 filtering (§7.1.1: RAR exact match, FCTRL.UPE/MPE/BAM, MTA with MCSTCTRL.MO),
 * RSS (§7.1.2.8: Toeplitz hash over the 40-byte RSSRK key, 128-entry RETA, MRQC field enables),
 * the RX packet buffer and SRRCTL.DROP_EN (§7.1, §8.2.3.8), advanced one-buffer descriptors
 * and their write-back (§7.1.6), and the receive statistics (§8.2.3.23).
 *
 * The path of a frame: link/RXEN → length (RUC/ROC) → L2 filters → GPRC/GORC → parse and RSS
 * pick the queue → the frame goes straight to the queue's descriptors if the packet buffer is
 * empty and descriptors are free; with none free it is dropped (SRRCTL.DROP_EN: QPRDC) or waits
 * in the packet buffer, a FIFO shared by all queues (head-of-line blocking, as on the chip),
 * which overflows into MPC and EICR.RX_MISS. RDT writes, RXEN and advance() drain it.
 * GPRC counts every good frame that passed the filters, missed ones included (Linux's
 * ixgbe_update_stats subtracts MPC from GPRC for this reason).
 */
#include <stdlib.h>
#include <string.h>

#include "tests/model/ixgbe_model_int.h"

/* What the parser decided about one frame. */
struct ixm_rx_meta {
    uint32_t rss_hash;
    uint16_t pkt_type; /* descriptor packet type bits, already in position (15:4) */
    uint8_t rss_type;
    uint8_t queue;
    uint32_t csum_status; /* IPCS/IPE and L4CS/TCPE as the EOP write-back carries them, else 0 */
    bool tagged;          /* one 802.1Q tag whose TPID matched VLNCTRL.VET: VP */
    uint16_t tci;         /* its TCI */
};

static uint16_t ixm_be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static void ixm_put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* ---- RSS (§7.1.2.8) ------------------------------------------------------------------ */

/* ixm_rss_hash: Toeplitz hash of n input bytes (n <= 36) under a 40-byte key (§7.1.2.8.1). */
uint32_t ixm_rss_hash(const uint8_t key[40], const uint8_t *in, size_t n)
{
    uint32_t hash = 0;
    uint32_t window = (uint32_t)key[0] << 24 | (uint32_t)key[1] << 16 |
                      (uint32_t)key[2] << 8 | key[3];
    unsigned kbit = 32; /* next key bit to shift into the window */

    for (size_t i = 0; i < n; i++) {
        for (int b = 7; b >= 0; b--) {
            if ((in[i] >> b) & 1) {
                hash ^= window;
            }
            window <<= 1;
            if (kbit < 320) {
                window |= (key[kbit / 8] >> (7 - kbit % 8)) & 1u;
            }
            kbit++;
        }
    }
    return hash;
}

/* The key as the hash sees it: RSSRK[n] holds key bytes 4n..4n+3, byte 4n in bits 7:0. */
static void ixm_rss_key(const struct ixgbe_model *m, uint8_t key[40])
{
    for (unsigned i = 0; i < 10; i++) {
        ixm_put_le32(&key[4 * i], ixm_reg(m, IXM_RSSRK(i)));
    }
}

/* Fill the RSS input (addresses then ports, network order); returns its length. */
static size_t ixm_rss_input(uint8_t *in, const uint8_t *saddr, size_t alen, const uint8_t *l4)
{
    memcpy(in, saddr, 2 * alen); /* source then destination address, as in the header */
    if (l4) {
        memcpy(in + 2 * alen, l4, 4); /* source then destination port */
        return 2 * alen + 4;
    }
    return 2 * alen;
}

/* ixm_sum16: the Internet checksum's running sum (RFC 1071) over n bytes, an odd last byte as
 * the high half of a word. */
static uint64_t ixm_sum16(uint64_t sum, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i + 1 < n; i += 2) {
        sum += ixm_be16(p + i);
    }
    if (n & 1) {
        sum += (uint32_t)p[n - 1] << 8;
    }
    return sum;
}

/* ixm_csum_ok: a sum over data that includes its checksum folds to all ones. */
static bool ixm_csum_ok(uint64_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xFFFFu) + (sum >> 16);
    }
    return sum == 0xFFFFu;
}

/* ixm_ipv4_csum_status: the 82599 checks every IPv4 header's checksum it parses, with no
 * enable bit (RXCSUM has none for IP; Linux's ixgbe trusts IPCS the same way): IPCS says it
 * did, IPE that the sum was bad. */
static uint32_t ixm_ipv4_csum_status(const uint8_t *ip, size_t hlen)
{
    return IXM_RXD_STAT_IPCS | (ixm_csum_ok(ixm_sum16(0, ip, hlen)) ? 0 : IXM_RXD_ERR_IPE);
}

/* ixm_l4_csum_status: the TCP/UDP checksum of a whole datagram (not a fragment), which the
 * 82599 checks whenever it parses one (RXCSUM has no enable bit for it; receive checksum
 * offloading, §7.1.11): L4CS says it did, TCPE that the sum was bad. pseudo, alen2: the
 * pseudo-header's addresses (8 or 32 bytes); l4: the TCP or UDP header and payload, l4_len
 * bytes. A UDP datagram sent without a checksum (0) is reported bad, as the 82599's erratum
 * has it (Linux's ixgbe works around it). */
static uint32_t ixm_l4_csum_status(const uint8_t *pseudo, size_t alen2, uint8_t proto,
                                   const uint8_t *l4, size_t l4_len)
{
    if (proto == 17 && ixm_be16(l4 + 6) == 0) {
        return IXM_RXD_STAT_L4CS | IXM_RXD_ERR_TCPE;
    }
    uint64_t sum = ixm_sum16(proto + (uint64_t)l4_len, pseudo, alen2);
    return IXM_RXD_STAT_L4CS | (ixm_csum_ok(ixm_sum16(sum, l4, l4_len)) ? 0 : IXM_RXD_ERR_TCPE);
}

/* ixm_rx_parse: packet type, RSS type/hash and queue for one frame (§7.1.2.8, §7.1.6.2). */
static void ixm_rx_parse(const struct ixgbe_model *m, const uint8_t *f, size_t len,
                         struct ixm_rx_meta *md)
{
    uint32_t mrqc = ixm_reg(m, IXM_MRQC);
    bool rss = (mrqc & IXM_MRQC_MRQE) == IXM_MRQC_MRQE_RSS;
    size_t l3 = 14, l4;
    uint16_t etype = ixm_be16(f + 12);
    const uint8_t *ports = NULL;
    uint8_t in[36], key[40];
    size_t n = 0;
    bool tcp = false, udp = false;

    memset(md, 0, sizeof(*md));
    if (etype == (ixm_reg(m, IXM_VLNCTRL) & IXM_VLNCTRL_VET) && len >= 18) {
        /* one 802.1Q tag: the parser looks past it (and a queue may strip it, ixm_rx_place) */
        md->tagged = true;
        md->tci = ixm_be16(f + 14);
        etype = ixm_be16(f + 16);
        l3 = 18;
    }
    if (etype == 0x0800 && len >= l3 + 20 && (f[l3] >> 4) == 4 && (f[l3] & 0xF) >= 5 &&
        len >= l3 + 4u * (f[l3] & 0xFu)) {
        const uint8_t *ip = f + l3;
        bool frag = (ixm_be16(ip + 6) & 0x3FFF) != 0; /* MF or a fragment offset */

        l4 = l3 + 4u * (ip[0] & 0xFu);
        md->pkt_type = IXM_RXD_PKT_IPV4 | ((ip[0] & 0xF) > 5 ? IXM_RXD_PKT_IPV4E : 0);
        md->csum_status = ixm_ipv4_csum_status(ip, l4 - l3);
        tcp = !frag && ip[9] == 6 && len >= l4 + 20;
        udp = !frag && ip[9] == 17 && len >= l4 + 8;
        if (tcp || udp) {
            ports = f + l4;
            size_t total = ixm_be16(ip + 2); /* the frame may be padded past the datagram */
            if (total >= l4 - l3 + (tcp ? 20u : 8u) && l3 + total <= len) {
                md->csum_status |=
                    ixm_l4_csum_status(ip + 12, 8, ip[9], f + l4, total - (l4 - l3));
            }
        }
        if (tcp && (mrqc & IXM_MRQC_TCPIPV4)) {
            md->rss_type = IXM_RSSTYPE_TCPV4;
            n = ixm_rss_input(in, ip + 12, 4, ports);
        } else if (udp && (mrqc & IXM_MRQC_UDPIPV4)) {
            md->rss_type = IXM_RSSTYPE_UDPV4;
            n = ixm_rss_input(in, ip + 12, 4, ports);
        } else if (mrqc & IXM_MRQC_IPV4) {
            md->rss_type = IXM_RSSTYPE_IPV4;
            n = ixm_rss_input(in, ip + 12, 4, NULL);
        }
    } else if (etype == 0x86DD && len >= l3 + 40 && (f[l3] >> 4) == 6) {
        const uint8_t *ip = f + l3;

        l4 = l3 + 40; /* extension headers are not parsed: next header must be TCP/UDP */
        md->pkt_type = IXM_RXD_PKT_IPV6;
        tcp = ip[6] == 6 && len >= l4 + 20;
        udp = ip[6] == 17 && len >= l4 + 8;
        if (tcp || udp) {
            ports = f + l4;
            size_t plen = ixm_be16(ip + 4);
            if (plen >= (tcp ? 20u : 8u) && l4 + plen <= len) {
                md->csum_status |= ixm_l4_csum_status(ip + 8, 32, ip[6], f + l4, plen);
            }
        }
        if (tcp && (mrqc & IXM_MRQC_TCPIPV6)) {
            md->rss_type = IXM_RSSTYPE_TCPV6;
            n = ixm_rss_input(in, ip + 8, 16, ports);
        } else if (udp && (mrqc & IXM_MRQC_UDPIPV6)) {
            md->rss_type = IXM_RSSTYPE_UDPV6;
            n = ixm_rss_input(in, ip + 8, 16, ports);
        } else if (mrqc & IXM_MRQC_IPV6) {
            md->rss_type = IXM_RSSTYPE_IPV6;
            n = ixm_rss_input(in, ip + 8, 16, NULL);
        }
    }
    md->pkt_type |= tcp ? IXM_RXD_PKT_TCP : udp ? IXM_RXD_PKT_UDP : 0;
    if (!rss || md->rss_type == IXM_RSSTYPE_NONE) {
        md->rss_type = IXM_RSSTYPE_NONE; /* not hashed: queue 0 (§7.1.2.8) */
        return;
    }
    ixm_rss_key(m, key);
    md->rss_hash = ixm_rss_hash(key, in, n);
    /* RETA: hash bits 6:0 pick one of 128 entries, 4 per register, byte i%4 (§7.1.2.8.2) */
    unsigned idx = md->rss_hash & 0x7Fu;
    md->queue = (uint8_t)((ixm_reg(m, IXM_RETA(idx / 4)) >> (8 * (idx % 4))) &
                          IXM_RETA_ENTRY_MASK);
}

/* ---- L2 filters (§7.1.1) ------------------------------------------------------------- */

static bool ixm_rar_match(const struct ixgbe_model *m, const uint8_t *da)
{
    uint32_t lo = (uint32_t)da[0] | (uint32_t)da[1] << 8 | (uint32_t)da[2] << 16 |
                  (uint32_t)da[3] << 24;
    uint32_t hi = (uint32_t)da[4] | (uint32_t)da[5] << 8;

    for (unsigned n = 0; n < IXM_RAR_ENTRIES; n++) {
        uint32_t rah = ixm_reg(m, IXM_RAH(n));
        if ((rah & IXM_RAH_AV) && (rah & 0xFFFFu) == hi && ixm_reg(m, IXM_RAL(n)) == lo) {
            return true;
        }
    }
    return false;
}

/* MTA lookup: MCSTCTRL.MO picks which 12 destination-address bits index the 4096-bit table. */
static bool ixm_mta_match(const struct ixgbe_model *m, const uint8_t *da)
{
    static const unsigned shift[4] = {4, 3, 2, 0}; /* bits 47:36, 46:35, 45:34, 43:32 */
    uint32_t mc = ixm_reg(m, IXM_MCSTCTRL);
    unsigned s = shift[mc & IXM_MCSTCTRL_MO];
    uint32_t vec = (((uint32_t)da[4] >> s) | ((uint32_t)da[5] << (8 - s))) & 0xFFFu;

    return (mc & IXM_MCSTCTRL_MFE) && ((ixm_reg(m, IXM_MTA(vec >> 5)) >> (vec & 31)) & 1);
}

static bool ixm_l2_pass(const struct ixgbe_model *m, const uint8_t *da)
{
    uint32_t fctrl = ixm_reg(m, IXM_FCTRL);
    static const uint8_t bcast[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};

    if (ixm_rar_match(m, da)) {
        return true;
    }
    if (!(da[0] & 1)) {
        return fctrl & IXM_FCTRL_UPE;
    }
    if (memcmp(da, bcast, 6) == 0) {
        return fctrl & IXM_FCTRL_BAM;
    }
    return (fctrl & IXM_FCTRL_MPE) || ixm_mta_match(m, da);
}

/* ---- descriptor placement (§7.1.6, §7.1.9) ------------------------------------------- */

static uint32_t ixm_crc32(const uint8_t *p, size_t n)
{
    uint32_t crc = 0xFFFFFFFFu;

    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++) {
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}

/* Statistics index of a queue (RQSMR/TQSM: 4 queues per register, bits 3:0 of each byte). */
static unsigned ixm_stat_idx(const struct ixgbe_model *m, uint32_t reg_base, unsigned q)
{
    return (ixm_reg(m, reg_base + 4u * (q / 4)) >> (8 * (q % 4))) & 0xFu;
}

/*
 * ixm_rx_place: write one frame into queue q's descriptors. Returns 1 placed, 0 not enough
 * free descriptors (nothing written), -1 dropped (DMA error or unmodelled setup; reported).
 */
static int ixm_rx_place(struct ixgbe_model *m, unsigned q, const uint8_t *f, uint32_t len,
                        const struct ixm_rx_meta *md)
{
    struct ixm_rxq *rq = &m->rxq[q];
    uint32_t srrctl = ixm_reg(m, ixm_rxq_reg_off(q, IXM_SRRCTL));
    uint32_t size = (ixm_reg(m, ixm_rxq_reg_off(q, IXM_RDLEN)) & 0x000FFF80u) / IXM_DESC_BYTES;
    uint32_t tail = ixm_reg(m, ixm_rxq_reg_off(q, IXM_RDT));
    uint64_t base = (uint64_t)ixm_reg(m, ixm_rxq_reg_off(q, IXM_RDBAH)) << 32 |
                    ixm_reg(m, ixm_rxq_reg_off(q, IXM_RDBAL));
    uint32_t bsize = (srrctl & IXM_SRRCTL_BSIZEPKT) * 1024u;
    bool keep_crc = !(ixm_reg(m, IXM_HLREG0) & IXM_HLREG0_RXCRCSTRP);
    /* RXDCTL.VME: the tag leaves the frame for the write-back (§7.1.6.2, §8.2.3.8.6) */
    bool strip = md->tagged && (ixm_reg(m, ixm_rxq_reg_off(q, IXM_RXDCTL)) & IXM_RXDCTL_VME);
    uint32_t dlen = strip ? len - 4 : len; /* bytes placed in host memory, FCS aside */
    uint32_t total = dlen + (keep_crc ? IXM_FCS_BYTES : 0);
    uint8_t *buf = m->rx_scratch;
    uint32_t nbuf, avail, done = 0;
    unsigned si;

    if ((srrctl & IXM_SRRCTL_DESCTYPE) != IXM_SRRCTL_DESCTYPE_ADV1 || bsize == 0 || size == 0) {
        ixm_rxq_check_enable(m, q); /* reports what is wrong */
        m->cnt.rx_disabled++;
        return -1;
    }
    nbuf = (total + bsize - 1) / bsize;
    avail = (tail + size - rq->head) % size;
    if (avail < nbuf) {
        return 0;
    }
    if (strip) {
        memcpy(buf, f, 12);
        memcpy(buf + 12, f + 16, len - 16);
    } else {
        memcpy(buf, f, len);
    }
    if (keep_crc) { /* HLREG0.RXCRCSTRP clear: the FCS (of the frame as placed) lands too */
        ixm_put_le32(buf + dlen, ixm_crc32(buf, dlen));
    }
    for (uint32_t i = 0; i < nbuf; i++) {
        uint64_t daddr = base + (uint64_t)rq->head * IXM_DESC_BYTES;
        uint8_t d[IXM_DESC_BYTES];
        uint64_t pkt_addr = 0;
        uint32_t chunk = total - done < bsize ? total - done : bsize;
        bool eop = i + 1 == nbuf;

        if (m->ops.dma_read(m->ops.ctx, daddr, d, sizeof(d)) != 0) {
            ixm_misuse(m, "RX queue %u descriptor %u at 0x%llx is outside registered memory",
                       q, rq->head, (unsigned long long)daddr);
            m->cnt.rx_dma_errors++;
            return -1;
        }
        for (int b = 7; b >= 0; b--) {
            pkt_addr = pkt_addr << 8 | d[b];
        }
        if (m->ops.dma_write(m->ops.ctx, pkt_addr, buf + done, chunk) != 0) {
            ixm_misuse(m, "RX queue %u descriptor %u: buffer 0x%llx+%u is outside registered "
                          "memory", q, rq->head, (unsigned long long)pkt_addr, chunk);
            m->cnt.rx_dma_errors++;
            return -1;
        }
        /* Advanced write-back (§7.1.6.2): RSS type 3:0 + packet type 16:4 | RSS hash |
         * extended status (DD, EOP) and errors | packet buffer length, VLAN tag. */
        ixm_put_le32(d, (uint32_t)md->rss_type | md->pkt_type);
        ixm_put_le32(d + 4, (ixm_reg(m, IXM_RXCSUM) & IXM_RXCSUM_PCSD) ? md->rss_hash : 0);
        /* VP for any tagged frame, stripped or not (the strict reading: a driver must look at
         * it only where it strips); the tag itself only where it was taken off */
        ixm_put_le32(d + 8, IXM_RXD_STAT_DD |
                                (eop ? IXM_RXD_STAT_EOP | md->csum_status |
                                           (md->tagged ? IXM_RXD_STAT_VP : 0)
                                     : 0));
        ixm_put_le32(d + 12, chunk | (eop && strip ? (uint32_t)md->tci << 16 : 0));
        if (m->ops.dma_write(m->ops.ctx, daddr, d, sizeof(d)) != 0) {
            m->cnt.rx_dma_errors++;
            return -1;
        }
        done += chunk;
        rq->head = (rq->head + 1) % size;
    }
    si = ixm_stat_idx(m, IXM_RQSMR(0), q);
    ixm_stat_add(m, IXM_QPRC(si), 1);
    ixm_ctr36_add(&m->qbrc[si], len + IXM_FCS_BYTES);
    m->cnt.rx_placed++;
    ixm_irq_queue_event(m, q, false);
    return 1;
}

/* A frame for queue q found no free descriptor: SRRCTL.DROP_EN decides. */
static bool ixm_rx_drop_en(const struct ixgbe_model *m, unsigned q)
{
    return ixm_reg(m, ixm_rxq_reg_off(q, IXM_SRRCTL)) & IXM_SRRCTL_DROP_EN;
}

static void ixm_rx_count_no_desc(struct ixgbe_model *m, unsigned q)
{
    ixm_stat_add(m, IXM_QPRDC(ixm_stat_idx(m, IXM_RQSMR(0), q)), 1);
    m->cnt.rx_no_desc++;
}

/* DMA may run: master enabled and receiver enabled. */
static bool ixm_rx_dma_on(const struct ixgbe_model *m)
{
    return !ixm_gone(m) && !(ixm_reg(m, IXM_CTRL) & IXM_CTRL_GIO_DIS) &&
           (ixm_reg(m, IXM_RXCTRL) & IXM_RXCTRL_RXEN);
}

static void ixm_pb_pop(struct ixgbe_model *m)
{
    struct ixm_pb_frame *f = m->pb[m->pb_head];

    m->pb[m->pb_head] = NULL;
    m->pb_head = (m->pb_head + 1) % m->pb_cap;
    m->pb_count--;
    m->pb_bytes -= f->len;
    free(f);
    ixm_fc_rx_buffer(m); /* may send XON */
}

/* ixm_rx_drain: move frames from the packet buffer to host memory, in order, until the head
 * frame's queue has no descriptor (and no DROP_EN) or the buffer is empty. Not re-entrant:
 * a nested call (from a callback) returns and the outer loop sees the new state. */
void ixm_rx_drain(struct ixgbe_model *m)
{
    if (m->rx_draining) {
        return;
    }
    m->rx_draining = true;
    while (m->pb_count && ixm_rx_dma_on(m)) {
        struct ixm_pb_frame *f = m->pb[m->pb_head];
        struct ixm_rx_meta md = {f->rss_hash, f->pkt_type, f->rss_type, f->queue,
                                  f->csum_status, f->tagged, f->tci};
        uint32_t gen = m->pb_gen;

        if (!m->rxq[f->queue].enabled) {
            m->cnt.rx_disabled++;
        } else if (ixm_rx_place(m, f->queue, f->data, f->len, &md) == 0) {
            if (!ixm_rx_drop_en(m, f->queue)) {
                break; /* head-of-line: everything behind it waits */
            }
            ixm_rx_count_no_desc(m, f->queue);
        }
        if (gen != m->pb_gen) {
            continue; /* a callback reset the device: the buffer was flushed under us */
        }
        ixm_pb_pop(m);
    }
    m->rx_draining = false;
}

void ixm_rx_flush(struct ixgbe_model *m)
{
    while (m->pb_count) {
        ixm_pb_pop(m);
    }
    m->pb_head = 0;
    m->pb_gen++;
}

/* ixm_rxq_check_enable: setups the model does not implement, reported when a queue comes up. */
void ixm_rxq_check_enable(struct ixgbe_model *m, unsigned q)
{
    uint32_t srrctl = ixm_reg(m, ixm_rxq_reg_off(q, IXM_SRRCTL));

    if ((srrctl & IXM_SRRCTL_DESCTYPE) != IXM_SRRCTL_DESCTYPE_ADV1) {
        ixm_misuse(m, "not modelled: SRRCTL[%u].DESCTYPE = %u (only 1, advanced one-buffer)", q,
                   (srrctl & IXM_SRRCTL_DESCTYPE) >> 25);
    } else if ((srrctl & IXM_SRRCTL_BSIZEPKT) == 0) {
        ixm_misuse(m, "SRRCTL[%u].BSIZEPACKET = 0: must be 1..16 KiB (§8.2.3.8)", q);
    }
}

/* Queue the frame in the packet buffer, or count it missed if the buffer is full. */
static int ixm_pb_push(struct ixgbe_model *m, const uint8_t *f, uint32_t len,
                       const struct ixm_rx_meta *md)
{
    uint64_t cap = ixm_reg(m, IXM_RXPBSIZE(0)) & 0x000FFC00u; /* SIZE 19:10 in KiB = bytes */
    struct ixm_pb_frame *p;

    if (m->pb_bytes + len > cap || m->pb_count == m->pb_cap ||
        (p = malloc(sizeof(*p) + len)) == NULL) {
        ixm_stat_add(m, IXM_MPC(0), 1);
        m->cnt.rx_missed++;
        ixm_irq_other_event(m, IXM_EICR_RX_MISS);
        return -1;
    }
    p->len = len;
    p->rss_hash = md->rss_hash;
    p->pkt_type = md->pkt_type;
    p->rss_type = md->rss_type;
    p->queue = md->queue;
    p->csum_status = md->csum_status;
    p->tagged = md->tagged;
    p->tci = md->tci;
    memcpy(p->data, f, len);
    m->pb[(m->pb_head + m->pb_count) % m->pb_cap] = p;
    m->pb_count++;
    m->pb_bytes += len;
    ixm_fc_rx_buffer(m); /* may send XOFF */
    return 0;
}

static void ixm_rx_count_good(struct ixgbe_model *m, const uint8_t *da, uint32_t len)
{
    ixm_stat_add(m, IXM_GPRC, 1);
    ixm_ctr36_add(&m->gorc, len + IXM_FCS_BYTES);
    if (da[0] & 1) {
        static const uint8_t bcast[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
        ixm_stat_add(m, memcmp(da, bcast, 6) == 0 ? IXM_BPRC : IXM_MPRC, 1);
    }
}

int ixm_rx_inject(struct ixgbe_model *m, const uint8_t *f, size_t len)
{
    uint32_t max = (ixm_reg(m, IXM_HLREG0) & IXM_HLREG0_JUMBOEN)
                       ? ixm_reg(m, IXM_MAXFRS) >> 16
                       : IXM_STD_MAX_FRAME;
    struct ixm_rx_meta md;
    int r;

    if (ixm_gone(m) || !m->link_up || m->resetting) {
        m->cnt.rx_link_down++;
        return -1;
    }
    if (ixm_rx_dma_on(m)) {
        ixm_stat_add(m, IXM_TPR, 1);
        ixm_ctr36_add(&m->tor, len + IXM_FCS_BYTES);
    }
    if (len < IXM_MIN_FRAME || len + IXM_FCS_BYTES > max || len > IXGBE_MODEL_MAX_FRAME_BYTES) {
        ixm_stat_add(m, len < IXM_MIN_FRAME ? IXM_RUC : IXM_ROC, 1);
        m->cnt.rx_bad_len++;
        return -1;
    }
    if (ixm_fc_rx_pause(m, f, len)) { /* the MAC's own business, whatever RX DMA does */
        m->cnt.rx_pause++;
        return 0; /* the MAC took it (counted in LXON/LXOFFRXCNT, not GPRC) */
    }
    if (!ixm_rx_dma_on(m)) {
        m->cnt.rx_disabled++;
        return -1;
    }
    if (!ixm_l2_pass(m, f)) {
        m->cnt.rx_filtered++;
        return -1;
    }
    ixm_rx_count_good(m, f, (uint32_t)len);
    ixm_rx_parse(m, f, len, &md);
    if (!m->rxq[md.queue].enabled) {
        m->cnt.rx_disabled++;
        return -1;
    }
    if (m->pb_count == 0 && !m->rx_draining) {
        r = ixm_rx_place(m, md.queue, f, (uint32_t)len, &md);
        if (r != 0) {
            return r > 0 ? 0 : -1;
        }
        if (ixm_rx_drop_en(m, md.queue)) {
            ixm_rx_count_no_desc(m, md.queue);
            return -1;
        }
    }
    return ixm_pb_push(m, f, (uint32_t)len, &md);
}
