/*
 * tests/model/ixgbe_model_tx.c: the 82599 transmit path, from the 82599 datasheet (331520
 * rev 3.x): descriptor ring fetch from TDH to TDT (§7.2.1, §7.2.3.3), advanced data
 * descriptors (§7.2.3.2.4: DTALEN, DTYP=0011b, DCMD EOP/IFCS/RS/DEXT/TSE, POPTS, PAYLEN, IDX),
 * advanced context descriptors (§7.2.3.2.3: MACLEN, IPLEN, TUCMD IPV4/L4T, L4LEN, MSS, two
 * slots per queue), checksum offload (§7.2.5: IXSM inserts the IPv4 header checksum, TXSM the
 * TCP/UDP checksum over the L4 header and payload, whose field software preset with the
 * pseudo-header sum), TCP/UDP segmentation (§7.2.4: TSE; each segment gets the headers with the
 * IPv4 total length / IPv6 payload length, IPv4 ID + n, TCP sequence + n*MSS, FIN/PSH only on
 * the last, CWR only on the first, and fresh checksums; software preset the L4 checksum field
 * with the pseudo-header sum without the length), VLAN insertion (DCMD.VLE: the context's tag
 * behind TPID DMATXCTL.VT, after the MAC addresses; every segment of a TSO frame gets it; the
 * offloads see the frame untagged, as it is in memory), DD write-back for RS descriptors or TX head
 * write-back to TDWBAL/TDWBAH (§7.2.3, §8.2.3.9), padding (HLREG0.TXPADEN) and the transmit
 * statistics (§8.2.3.23), which count segments as they leave.
 *
 * When it runs: synchronously on every TDT write, and on advance() for queues that were waiting.
 * A queue transmits only with DMATXCTL.TE, TXDCTL.ENABLE latched, link up and the master
 * enabled; otherwise descriptors wait (a pulled cable stalls TX, as on the chip). A frame whose
 * EOP descriptor is not yet below TDT waits too. Misuse or a DMA error halts the queue until it
 * is disabled and enabled again (the real chip would fetch garbage or master-abort).
 * The TX queue interrupt cause fires when a descriptor with RS is written back.
 */
#include <string.h>

#include "tests/model/ixgbe_model_int.h"

#define IXM_TX_MAX_DESCS_PER_FRAME 64u

static uint32_t ixm_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void ixm_tx_halt(struct ixgbe_model *m, unsigned q)
{
    m->txq[q].halted = true;
}

/* Descriptor checks for a data descriptor (§7.2.3.2.4); false = reported, queue halted. */
static bool ixm_tx_desc_ok(struct ixgbe_model *m, unsigned q, uint32_t idx, uint32_t cmd,
                           uint32_t olinfo, bool first)
{
    const char *why = NULL;

    if (!(cmd & IXM_TXD_DEXT)) {
        why = "not modelled: legacy TX descriptor (DEXT clear)";
    } else if ((cmd & IXM_TXD_DTYP) != IXM_TXD_DTYP_DATA) {
        why = "descriptor type is neither data (0011b) nor context (0010b)";
    } else if (cmd & IXM_TXD_MAC) {
        why = "not modelled: LinkSec/timestamp request (MAC field)";
    } else if (first && (olinfo & IXM_TXD_POPTS & ~(IXM_TXD_POPTS_IXSM | IXM_TXD_POPTS_TXSM))) {
        why = "not modelled: IPsec/iSCSI offload (POPTS bits other than IXSM, TXSM)";
    } else if (first && ((olinfo & IXM_TXD_POPTS) || (cmd & (IXM_TXD_TSE | IXM_TXD_VLE))) &&
               !m->txq[q].ctx[IXM_TXD_IDX(olinfo) & 1].valid) {
        why = "checksum offload, TSE or VLE with no context descriptor in the slot IDX names";
    } else if (!(cmd & IXM_TXD_IFCS)) {
        why = "not modelled: IFCS clear (frame would leave without a hardware CRC)";
    }
    if (why) {
        ixm_misuse(m, "TX queue %u descriptor %u: %s (§7.2.3.2.4)", q, idx, why);
        ixm_tx_halt(m, q);
        return false;
    }
    return true;
}

static void ixm_tx_count(struct ixgbe_model *m, unsigned q, const uint8_t *f, uint32_t len)
{
    static const uint8_t bcast[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    unsigned si = (ixm_reg(m, IXM_TQSM(q / 4)) >> (8 * (q % 4))) & 0xFu;

    ixm_stat_add(m, IXM_GPTC, 1);
    ixm_stat_add(m, IXM_TPT, 1);
    ixm_ctr36_add(&m->gotc, len + IXM_FCS_BYTES);
    if (len >= 6 && (f[0] & 1)) {
        ixm_stat_add(m, memcmp(f, bcast, 6) == 0 ? IXM_BPTC : IXM_MPTC, 1);
    }
    ixm_stat_add(m, IXM_QPTC(si), 1);
    ixm_ctr36_add(&m->qbtc[si], len + IXM_FCS_BYTES);
    m->cnt.tx_frames++;
    m->cnt.tx_bytes += len;
}

/* ---- offloads (§7.2.4, §7.2.5) ------------------------------------------------------ */

static uint32_t ixm_sum16(const uint8_t *p, size_t n, uint32_t sum)
{
    for (size_t i = 0; i + 1 < n; i += 2) {
        sum += (uint32_t)p[i] << 8 | p[i + 1];
    }
    if (n & 1) {
        sum += (uint32_t)p[n - 1] << 8;
    }
    return sum;
}

static uint16_t ixm_fold(uint32_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xFFFFu) + (sum >> 16);
    }
    return (uint16_t)sum;
}

static void ixm_put_be16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static uint32_t ixm_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Offsets of the L4 checksum field for the context's L4 type, or 0 if not TCP/UDP. */
static uint32_t ixm_l4_csum_off(const struct ixm_tx_ctx *cx)
{
    switch (cx->tucmd & IXM_CTX_TUCMD_L4T) {
    case IXM_CTX_TUCMD_L4T_TCP:
        return 16;
    case IXM_CTX_TUCMD_L4T_UDP:
        return 6;
    default:
        return 0; /* SCTP (CRC32c) and the reserved type */
    }
}

/* Insert the checksums POPTS asks for into frame f (len bytes); l4len is the L4 length the
 * pseudo-header sum lacks (TSO segments) or 0 (software included it). False = misuse. */
static bool ixm_tx_csum(struct ixgbe_model *m, unsigned q, const struct ixm_tx_ctx *cx,
                        uint8_t *f, uint32_t len, uint32_t popts, uint32_t l4len)
{
    uint32_t l3 = cx->maclen, l4 = cx->maclen + cx->iplen, co = ixm_l4_csum_off(cx);
    uint16_t c;

    if ((popts & IXM_TXD_POPTS_TXSM) && (co == 0 || l4 + co + 2 > len)) {
        ixm_misuse(m, "TX queue %u: TXSM with L4 type %u (not modelled: SCTP) or an L4 header "
                      "beyond the %u-byte frame (MACLEN %u, IPLEN %u) (§7.2.5)", q,
                   (cx->tucmd & IXM_CTX_TUCMD_L4T) >> 11, len, cx->maclen, cx->iplen);
        return false;
    }
    if ((popts & IXM_TXD_POPTS_IXSM) && (l3 + 20 > len || cx->iplen < 20)) {
        ixm_misuse(m, "TX queue %u: IXSM with an IPv4 header beyond the frame or IPLEN %u < 20 "
                      "(§7.2.5)", q, cx->iplen);
        return false;
    }
    if (popts & IXM_TXD_POPTS_IXSM) {
        f[l3 + 10] = f[l3 + 11] = 0;
        ixm_put_be16(f + l3 + 10, (uint16_t)~ixm_fold(ixm_sum16(f + l3, cx->iplen, 0)));
    }
    if (popts & IXM_TXD_POPTS_TXSM) {
        c = (uint16_t)~ixm_fold(ixm_sum16(f + l4, len - l4, l4len));
        if (c == 0 && co == 6) {
            c = 0xFFFFu; /* UDP: 0 means "no checksum" */
        }
        ixm_put_be16(f + l4 + co, c);
    }
    return true;
}

/* ixm_tx_tag: f (len bytes) with the 802.1Q tag VLE inserts after the MAC addresses: TPID
 * DMATXCTL.VT, TCI from the context (§7.2.3.2.3, §8.2.3.9.1); *len grows by 4. */
static uint8_t *ixm_tx_tag(struct ixgbe_model *m, const uint8_t *f, uint32_t *len, uint16_t tci)
{
    uint8_t *t = m->tx_tagged;

    memcpy(t, f, 12);
    ixm_put_be16(t + 12, ixm_reg(m, IXM_DMATXCTL) >> 16);
    ixm_put_be16(t + 14, tci);
    memcpy(t + 16, f + 12, *len - 12);
    *len += 4;
    return t;
}

/* Count and hand over one frame (the callback last: it may re-enter); vle: the frame's first
 * descriptor asked for a VLAN tag, which cx holds. */
static void ixm_tx_send(struct ixgbe_model *m, unsigned q, uint8_t *f, uint32_t len, bool vle,
                        const struct ixm_tx_ctx *cx)
{
    if (vle) {
        f = ixm_tx_tag(m, f, &len, cx->vlan);
    }
    if (len < IXM_MIN_FRAME && (ixm_reg(m, IXM_HLREG0) & IXM_HLREG0_TXPADEN)) {
        memset(f + len, 0, IXM_MIN_FRAME - len);
        len = IXM_MIN_FRAME;
    }
    ixm_tx_count(m, q, f, len);
    if (m->ops.tx_frame) {
        m->ops.tx_frame(m->ops.ctx, f, len);
    }
}

/* TCP/UDP segmentation (§7.2.4): f holds the headers (MACLEN + IPLEN + L4LEN) and the payload;
 * each segment of at most MSS payload bytes leaves as its own frame. */
static void ixm_tx_tso(struct ixgbe_model *m, unsigned q, const struct ixm_tx_ctx *cx,
                       const uint8_t *f, uint32_t len, uint32_t popts, bool vle)
{
    uint32_t l3 = cx->maclen, l4 = l3 + cx->iplen, hdr = l4 + cx->l4len;
    bool ipv4 = cx->tucmd & IXM_CTX_TUCMD_IPV4;
    bool tcp = (cx->tucmd & IXM_CTX_TUCMD_L4T) == IXM_CTX_TUCMD_L4T_TCP;
    uint8_t *out = m->tx_scratch;
    uint32_t id0 = ipv4 ? (uint32_t)f[l3 + 4] << 8 | f[l3 + 5] : 0;
    uint32_t seq0 = tcp ? ixm_be32(f + l4 + 4) : 0;

    if (cx->mss == 0 || hdr + cx->mss > IXGBE_MODEL_MAX_FRAME_BYTES || ixm_l4_csum_off(cx) == 0 ||
        cx->l4len < (tcp ? 20u : 8u) || hdr >= len) {
        ixm_misuse(m, "TX queue %u: TSO context MSS %u, MACLEN %u, IPLEN %u, L4LEN %u, L4 type "
                      "%u does not fit a %u-byte frame (§7.2.4)", q, cx->mss, cx->maclen,
                   cx->iplen, cx->l4len, (cx->tucmd & IXM_CTX_TUCMD_L4T) >> 11, len);
        ixm_tx_halt(m, q);
        return;
    }
    for (uint32_t off = hdr, i = 0; off < len; i++) {
        uint32_t seg = len - off < cx->mss ? len - off : cx->mss;
        uint32_t flen = hdr + seg;
        bool last = off + seg == len;

        memcpy(out, f, hdr);
        memcpy(out + hdr, f + off, seg);
        if (ipv4) {
            ixm_put_be16(out + l3 + 2, flen - l3);  /* total length */
            ixm_put_be16(out + l3 + 4, id0 + i);    /* identification */
        } else {
            ixm_put_be16(out + l3 + 4, flen - l3 - 40); /* IPv6 payload length */
        }
        if (tcp) {
            uint32_t seq = seq0 + i * cx->mss;

            out[l4 + 4] = (uint8_t)(seq >> 24);
            out[l4 + 5] = (uint8_t)(seq >> 16);
            out[l4 + 6] = (uint8_t)(seq >> 8);
            out[l4 + 7] = (uint8_t)seq;
            if (!last) {
                out[l4 + 13] &= (uint8_t)~0x09u; /* FIN, PSH: last segment only */
            }
            if (i) {
                out[l4 + 13] &= (uint8_t)~0x80u; /* CWR: first segment only */
            }
        } else {
            ixm_put_be16(out + l4 + 4, flen - l4);   /* UDP length */
        }
        if (!ixm_tx_csum(m, q, cx, out, flen, popts, flen - l4)) {
            ixm_tx_halt(m, q);
            return;
        }
        ixm_tx_send(m, q, out, flen, vle, cx);
        off += seg;
    }
}

/* A context descriptor (§7.2.3.2.3): remember it in the slot its IDX names. */
static void ixm_tx_context(struct ixgbe_model *m, unsigned q, const uint8_t *d)
{
    uint32_t w0 = ixm_le32(d), w2 = ixm_le32(d + 8), w3 = ixm_le32(d + 12);
    struct ixm_tx_ctx *cx = &m->txq[q].ctx[IXM_CTX_IDX(w3) & 1];

    cx->maclen = IXM_CTX_MACLEN(w0);
    cx->iplen = IXM_CTX_IPLEN(w0);
    cx->tucmd = w2;
    cx->l4len = IXM_CTX_L4LEN(w3);
    cx->mss = IXM_CTX_MSS(w3);
    cx->vlan = (uint16_t)(w0 >> 16);
    cx->valid = true;
}

/*
 * ixm_tx_frame: gather, send and complete the frame starting at TDH. Returns 1 if TDH moved,
 * 0 if the frame is not complete below TDT yet, -1 if the queue halted.
 */
static int ixm_tx_frame(struct ixgbe_model *m, unsigned q, uint64_t base, uint32_t size,
                        uint32_t tail, bool *rs_done)
{
    struct ixm_txq *tq = &m->txq[q];
    uint32_t rs_idx[IXM_TX_MAX_DESCS_PER_FRAME];
    uint32_t idx = tq->head, n = 0, nrs = 0, len = 0, paylen = 0, cmd0 = 0, olinfo0 = 0;
    uint32_t limit = IXGBE_MODEL_MAX_FRAME_BYTES;
    uint8_t *buf = m->tx_scratch;
    const struct ixm_tx_ctx *cx;
    bool eop = false;

    while (!eop) {
        uint8_t d[IXM_DESC_BYTES];
        uint64_t daddr = base + (uint64_t)idx * IXM_DESC_BYTES, addr = 0;
        uint32_t cmd, olinfo, dlen;

        if (idx == tail) {
            return 0; /* EOP not handed over yet */
        }
        if (m->ops.dma_read(m->ops.ctx, daddr, d, sizeof(d)) != 0) {
            ixm_misuse(m, "TX queue %u descriptor %u at 0x%llx is outside registered memory", q,
                       idx, (unsigned long long)daddr);
            ixm_tx_halt(m, q);
            return -1;
        }
        for (int b = 7; b >= 0; b--) {
            addr = addr << 8 | d[b];
        }
        cmd = ixm_le32(d + 8);
        olinfo = ixm_le32(d + 12);
        if (n == 0 && (cmd & IXM_TXD_DEXT) && (cmd & IXM_TXD_DTYP) == IXM_TXD_DTYP_CTXT) {
            ixm_tx_context(m, q, d);
            tq->head = (idx + 1) % size;
            return 1;
        }
        if (!ixm_tx_desc_ok(m, q, idx, cmd, olinfo, n == 0)) {
            return -1;
        }
        if (n == 0) {
            paylen = olinfo >> IXM_TXD_PAYLEN_SHIFT;
            cmd0 = cmd;
            olinfo0 = olinfo;
            if (cmd & IXM_TXD_TSE) { /* the whole TSO frame is gathered before segmenting */
                buf = m->tso_buf;
                limit = IXM_TSO_MAX_BYTES;
            }
        }
        dlen = cmd & IXM_TXD_DTALEN;
        if (len + dlen > limit || n == IXM_TX_MAX_DESCS_PER_FRAME) {
            ixm_misuse(m, "TX queue %u descriptor %u: frame over %u bytes or %u descriptors", q,
                       idx, limit, IXM_TX_MAX_DESCS_PER_FRAME);
            ixm_tx_halt(m, q);
            return -1;
        }
        if (dlen && m->ops.dma_read(m->ops.ctx, addr, buf + len, dlen) != 0) {
            ixm_misuse(m, "TX queue %u descriptor %u: buffer 0x%llx+%u is outside registered "
                          "memory", q, idx, (unsigned long long)addr, dlen);
            ixm_tx_halt(m, q);
            return -1;
        }
        len += dlen;
        if (cmd & IXM_TXD_RS) {
            rs_idx[nrs++] = idx;
        }
        eop = cmd & IXM_TXD_EOP;
        idx = (idx + 1) % size;
        n++;
    }
    cx = &tq->ctx[IXM_TXD_IDX(olinfo0) & 1];
    if (cmd0 & IXM_TXD_TSE) {
        uint32_t hdr = cx->maclen + cx->iplen + cx->l4len;

        if (paylen + hdr != len) { /* TSO: PAYLEN is the payload after the headers */
            ixm_misuse(m, "TX queue %u: TSO PAYLEN %u + headers %u != %u bytes in the frame "
                          "(§7.2.3.2.4)", q, paylen, hdr, len);
        }
    } else if (paylen != len) { /* non-TSO: PAYLEN in the first descriptor is the whole frame */
        ixm_misuse(m, "TX queue %u: PAYLEN %u in the first descriptor != %u bytes in the frame "
                      "(§7.2.3.2.4)", q, paylen, len);
    }
    tq->head = idx;
    /* Write-back: DD into each RS descriptor unless head write-back replaces it. */
    if (!(ixm_reg(m, ixm_txq_reg_off(q, IXM_TDWBAL)) & IXM_TDWBAL_HEAD_WB_EN)) {
        for (uint32_t i = 0; i < nrs; i++) {
            uint8_t wb[8] = {0, 0, 0, 0, IXM_TXD_STA_DD, 0, 0, 0};
            m->ops.dma_write(m->ops.ctx, base + (uint64_t)rs_idx[i] * IXM_DESC_BYTES + 8, wb,
                             sizeof(wb));
        }
    }
    *rs_done |= nrs > 0;
    bool vle = (cmd0 & IXM_TXD_VLE) != 0;
    if (cmd0 & IXM_TXD_TSE) {
        ixm_tx_tso(m, q, cx, buf, len, olinfo0 & IXM_TXD_POPTS, vle);
    } else if ((olinfo0 & IXM_TXD_POPTS) &&
               !ixm_tx_csum(m, q, cx, buf, len, olinfo0 & IXM_TXD_POPTS, 0)) {
        ixm_tx_halt(m, q);
    } else {
        ixm_tx_send(m, q, buf, len, vle, cx); /* last: the callback may re-enter */
    }
    return 1;
}

/* Run one queue until TDH reaches TDT or it has to wait. */
static void ixm_tx_queue(struct ixgbe_model *m, unsigned q)
{
    struct ixm_txq *tq = &m->txq[q];
    uint32_t size, tail;
    uint64_t base;
    bool rs_done = false;

    if (!tq->enabled || tq->halted) {
        return; /* first: advance() visits all 128 queues on every call */
    }
    tail = ixm_reg(m, ixm_txq_reg_off(q, IXM_TDT));
    if (tq->head == tail) {
        return;
    }
    size = (ixm_reg(m, ixm_txq_reg_off(q, IXM_TDLEN)) & 0x000FFF80u) / IXM_DESC_BYTES;
    base = (uint64_t)ixm_reg(m, ixm_txq_reg_off(q, IXM_TDBAH)) << 32 |
           ixm_reg(m, ixm_txq_reg_off(q, IXM_TDBAL));
    if (size == 0 || ixm_gone(m) || !m->link_up || ixm_fc_tx_paused(m) ||
        m->faults[IXGBE_MODEL_FAULT_TX_STOPS_COMPLETING] ||
        !(ixm_reg(m, IXM_DMATXCTL) & IXM_DMATXCTL_TE) ||
        (ixm_reg(m, IXM_CTRL) & IXM_CTRL_GIO_DIS)) {
        return;
    }
    while (tq->head != ixm_reg(m, ixm_txq_reg_off(q, IXM_TDT)) && tq->enabled && !tq->halted) {
        if (ixm_tx_frame(m, q, base, size, ixm_reg(m, ixm_txq_reg_off(q, IXM_TDT)),
                         &rs_done) <= 0) {
            break;
        }
    }
    if (!rs_done) {
        return;
    }
    if (ixm_reg(m, ixm_txq_reg_off(q, IXM_TDWBAL)) & IXM_TDWBAL_HEAD_WB_EN) {
        uint64_t wba = (uint64_t)ixm_reg(m, ixm_txq_reg_off(q, IXM_TDWBAH)) << 32 |
                       (ixm_reg(m, ixm_txq_reg_off(q, IXM_TDWBAL)) & ~3u);
        uint8_t h[4] = {(uint8_t)tq->head, (uint8_t)(tq->head >> 8), 0, 0};

        if (m->ops.dma_write(m->ops.ctx, wba, h, sizeof(h)) != 0) {
            ixm_misuse(m, "TX queue %u: head write-back address 0x%llx is outside registered "
                          "memory", q, (unsigned long long)wba);
        }
    }
    ixm_irq_queue_event(m, q, true);
}

void ixm_tx_run(struct ixgbe_model *m, unsigned q)
{
    if (m->tx_busy) {
        m->tx_deferred = true; /* re-entered from tx_frame: the outer run picks it up */
        return;
    }
    m->tx_busy = true;
    ixm_tx_queue(m, q);
    while (m->tx_deferred) {
        m->tx_deferred = false;
        for (unsigned i = 0; i < IXGBE_MODEL_QUEUES; i++) {
            ixm_tx_queue(m, i);
        }
    }
    m->tx_busy = false;
}

void ixm_tx_run_all(struct ixgbe_model *m)
{
    if (m->tx_busy) {
        m->tx_deferred = true;
        return;
    }
    m->tx_busy = true;
    do {
        m->tx_deferred = false;
        for (unsigned i = 0; i < IXGBE_MODEL_QUEUES; i++) {
            ixm_tx_queue(m, i);
        }
    } while (m->tx_deferred);
    m->tx_busy = false;
}
