/*
 * tests/fakes/fake_intel_nic.c: the descriptor-level NIC model of fake_intel_nic.h. It checks
 * what the driver hands it (and counts violations) rather than trusting it, so ring bugs show
 * up as test failures instead of silent corruption.
 */
#include "tests/fakes/fake_intel_nic.h"
#include "tests/fakes/fake_tso.h"

#include <stddef.h>
#include <string.h>

/* The write-back's "not meaningful" fields get this, so a driver that reads them is caught. */
#define FAKE_INIC_POISON64 0xDEADBEEFDEADBEEFULL
#define FAKE_INIC_POISON32 0xDEADBEEFU

void fake_inic_ipv4_status(const uint8_t *frame, uint32_t len, uint32_t ipe_bit,
                           struct fake_inic_rx_opts *o)
{
    const uint8_t *ip = frame + 14;
    uint32_t hlen = len >= 15 ? 4u * (ip[0] & 0xFu) : 0;
    if (len < 34 || frame[12] != 0x08 || frame[13] != 0x00 || (ip[0] >> 4) != 4 || hlen < 20 ||
        14 + hlen > len) {
        return;
    }
    uint32_t sum = 0;
    for (uint32_t i = 0; i < hlen; i += 2) {
        sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
    }
    sum = (sum & 0xFFFFu) + (sum >> 16);
    sum = (sum & 0xFFFFu) + (sum >> 16);
    o->status_bits |= IDESC_RX_STATUS_IPCS;
    if (sum != 0xFFFFu) {
        o->err_bits |= ipe_bit;
    }
}

static uint16_t fake_inic_ring_avail(uint16_t head, uint32_t tail, uint16_t size,
                                     uint64_t *violations)
{
    if (tail >= size) {
        (*violations)++;
        return 0;
    }
    return (uint16_t)((tail + size - head) % size);
}

void fake_inic_rx_init(struct fake_inic_rx *f, void *desc_mem, uint16_t size,
                       const volatile uint32_t *tail, uint16_t buf_bytes)
{
    memset(f, 0, sizeof(*f));
    f->desc = desc_mem;
    f->tail = tail;
    f->size = size;
    f->buf_bytes = buf_bytes;
}

uint16_t fake_inic_rx_avail(const struct fake_inic_rx *f)
{
    uint64_t ignored = 0;

    return fake_inic_ring_avail(f->head, *f->tail, f->size, &ignored);
}

/* fake_inic_rx_write_one: fill one descriptor's buffer and write it back. */
static void fake_inic_rx_write_one(struct fake_inic_rx *f, const uint8_t *src, uint16_t n,
                                   uint32_t status, const struct fake_inic_rx_opts *o)
{
    volatile union idesc_rx *d = &f->desc[f->head];
    uint64_t addr = d->read.pkt_addr;

    /* A posted descriptor carries a buffer, and its hdr_addr (DD) was cleared by the driver. */
    if (addr == 0 || (d->read.hdr_addr & 1) != 0) {
        f->violations++;
        return;
    }
    memcpy((void *)(uintptr_t)addr, src, n);
    d->wb.info = o->rss_hash != 0 ? IDESC_RX_INFO_RSSTYPE(1) : 0;
    d->wb.rss_hash = o->rss_hash != 0 ? o->rss_hash : FAKE_INIC_POISON32;
    d->wb.length = n;
    d->wb.vlan = o->vlan;
    /* Status last, as the driver must not see DD before the rest (one PCIe write on real
     * hardware; here it keeps the test honest about the order). */
    d->wb.status_error = status;
}

unsigned fake_inic_rx_frame(struct fake_inic_rx *f, const void *frame, uint32_t len,
                            const struct fake_inic_rx_opts *opts)
{
    static const struct fake_inic_rx_opts none;
    const struct fake_inic_rx_opts *o = opts != NULL ? opts : &none;
    const uint8_t *src = frame;
    unsigned need = len == 0 ? 1 : (len + f->buf_bytes - 1) / f->buf_bytes;

    if (fake_inic_ring_avail(f->head, *f->tail, f->size, &f->violations) < need) {
        f->missed++;
        return 0;
    }
    for (unsigned k = 0; k < need; k++) {
        uint32_t off = k * f->buf_bytes;
        uint16_t n = (uint16_t)(len - off < f->buf_bytes ? len - off : f->buf_bytes);
        uint32_t status = IDESC_RX_STATUS_DD;

        if (k == need - 1) {
            status |= IDESC_RX_STATUS_EOP | o->err_bits | o->status_bits;
        }
        fake_inic_rx_write_one(f, src + off, n, status, o);
        f->head = (uint16_t)((f->head + 1) % f->size);
    }
    f->frames++;
    return need;
}

void fake_inic_tx_init(struct fake_inic_tx *f, void *desc_mem, uint16_t size,
                       const volatile uint32_t *tail)
{
    memset(f, 0, sizeof(*f));
    f->desc = desc_mem;
    f->tail = tail;
    f->size = size;
}

/* fake_inic_tx_ctx: the context slot IDX names in a data descriptor's olinfo: *macip and
 * *tucmd as its context descriptor wrote them; false if none did. */
static bool fake_inic_tx_ctx(const struct fake_inic_tx *f, uint32_t olinfo, uint32_t *macip,
                             uint32_t *tucmd)
{
    bool one = (olinfo & IDESC_TX_IDX(7)) == IDESC_TX_IDX(1);
    *macip = one ? f->ctx1_macip : f->ctx0_macip;
    *tucmd = one ? f->ctx1_tucmd : f->ctx0_tucmd;
    return one ? f->ctx1_valid : f->ctx0_valid;
}

/* fake_inic_tx_opts_ok: the options in a data descriptor (cmd, olinfo): none; or TXSM (and
 * IXSM) with the slot IDX names (0 or 1) holding TCP/IPv4 behind 14 bytes of Ethernet; or
 * VLE with a context in that slot (its tag), with or without those. */
static bool fake_inic_tx_opts_ok(const struct fake_inic_tx *f, uint32_t cmd, uint32_t olinfo)
{
    const uint32_t tcp4 = IDESC_TXC_DTYP_CTXT | IDESC_TX_CMD_DEXT | IDESC_TXC_TUCMD_IPV4 |
                          IDESC_TXC_TUCMD_L4T_TCP;
    uint32_t opts = olinfo & (uint32_t)~(IDESC_TX_PAYLEN_MASK | IDESC_TX_IDX(7));
    uint32_t idx = olinfo & IDESC_TX_IDX(7), macip, tucmd;
    bool ctx = fake_inic_tx_ctx(f, olinfo, &macip, &tucmd);
    bool vle = (cmd & IDESC_TX_CMD_VLE) != 0;
    bool tcp4_ctx = ctx && tucmd == tcp4 &&
                    (macip & 0xFFFFu) == (IDESC_TXC_MACLEN(14) | IDESC_TXC_IPLEN(20));
    if (idx > IDESC_TX_IDX(1) || (vle && !ctx) || (!vle && idx == 0 && (macip >> 16) != 0)) {
        return false; /* a slot the chips lack; a tag from nowhere; slot 0 must stay untagged */
    }
    return opts == 0 || ((opts == IDESC_TX_POPTS_TXSM ||
                          opts == (IDESC_TX_POPTS_TXSM | IDESC_TX_POPTS_IXSM)) && tcp4_ctx);
}

/* fake_inic_tx_desc_ok: an advanced data descriptor with a buffer and a length, the FCS
 * inserted, and RS only if it ends its frame (the drivers ask for write-back there only). */
static bool fake_inic_tx_desc_ok(uint64_t addr, uint32_t cmd)
{
    bool eop = (cmd & IDESC_TX_CMD_EOP) != 0;
    return addr != 0 && (cmd & IDESC_TX_DTYP_MASK) == IDESC_TX_DTYP_DATA &&
           (cmd & IDESC_TX_CMD_DEXT) != 0 && (cmd & IDESC_TX_CMD_IFCS) != 0 &&
           (cmd & IDESC_TX_DTALEN_MASK) != 0 && (eop || !(cmd & IDESC_TX_CMD_RS));
}

/* fake_inic_tx_context: a context descriptor (82599 §7.2.3.2.3): slot 0 is remembered; false
 * if it is not one. */
static bool fake_inic_tx_context(struct fake_inic_tx *f, volatile union idesc_tx *d)
{
    const volatile union idesc_tx_ctx *c = (const volatile union idesc_tx_ctx *)d;
    uint32_t tucmd = c->type_tucmd_mlhl;
    if ((tucmd & IDESC_TX_DTYP_MASK) != IDESC_TXC_DTYP_CTXT || !(tucmd & IDESC_TX_CMD_DEXT)) {
        return false;
    }
    if ((c->mss_l4len_idx & IDESC_TX_IDX(7)) == IDESC_TX_IDX(0)) {
        f->ctx0_valid = true;
        f->ctx0_macip = c->vlan_macip_lens;
        f->ctx0_tucmd = tucmd;
    } else if ((c->mss_l4len_idx & IDESC_TX_IDX(7)) == IDESC_TX_IDX(1)) {
        f->ctx1_valid = true;
        f->ctx1_macip = c->vlan_macip_lens;
        f->ctx1_tucmd = tucmd;
        f->ctx1_mss_l4len = c->mss_l4len_idx;
    }
    f->contexts++;
    return true;
}

/* fake_inic_sum: the one's-complement sum of frame[from, to), folded (RFC 1071). */
static uint16_t fake_inic_sum(const uint8_t *frame, uint32_t from, uint32_t to)
{
    uint32_t sum = 0;
    for (uint32_t i = from; i + 1 < to; i += 2) {
        sum += (uint32_t)frame[i] << 8 | frame[i + 1];
    }
    if ((to - from) & 1) {
        sum += (uint32_t)frame[to - 1] << 8;
    }
    while (sum >> 16) {
        sum = (sum & 0xFFFFu) + (sum >> 16);
    }
    return (uint16_t)sum;
}

/* fake_inic_tx_csum: complete frame (len bytes) as TXSM (and IXSM, when ixsm) ask: the IPv4
 * header's checksum over MACLEN..MACLEN + IPLEN into its field (which the driver must leave 0:
 * a nonzero one is a violation, as the sum would come out wrong), and the TCP checksum from
 * MACLEN + IPLEN to the end onto the field (offset 16) that holds the pseudo-header sum. */
static void fake_inic_tx_csum(struct fake_inic_tx *f, uint8_t *frame, uint32_t len,
                              uint32_t olinfo)
{
    uint32_t macip, tucmd;
    (void)fake_inic_tx_ctx(f, olinfo, &macip, &tucmd); /* fake_inic_tx_opts_ok checked it */
    bool ixsm = (olinfo & IDESC_TX_POPTS_IXSM) != 0;
    uint32_t l3 = macip >> 9 & 0x7Fu, l4 = l3 + (macip & 0x1FFu);
    if (l4 + 18 > len || (ixsm && (frame[l3 + 10] != 0 || frame[l3 + 11] != 0))) {
        f->violations++;
        return;
    }
    if (ixsm) {
        uint16_t ip = (uint16_t)~fake_inic_sum(frame, l3, l4);
        frame[l3 + 10] = (uint8_t)(ip >> 8);
        frame[l3 + 11] = (uint8_t)ip;
    }
    uint16_t tcp = (uint16_t)~fake_inic_sum(frame, l4, len);
    frame[l4 + 16] = (uint8_t)(tcp >> 8);
    frame[l4 + 17] = (uint8_t)tcp;
    f->csum_offloads++;
}

/* fake_inic_tx_wire: one frame onto the wire, with the tag VLE asked for after its MACs. */
static void fake_inic_tx_wire(void *ctx, const uint8_t *frame, uint32_t len)
{
    static uint8_t tagged[65536 + 4];
    struct fake_inic_tx *f = ctx;
    if (f->wire_vle && len >= 12) {
        memcpy(tagged, frame, 12);
        tagged[12] = 0x81;
        tagged[13] = 0x00;
        tagged[14] = (uint8_t)(f->wire_tci >> 8);
        tagged[15] = (uint8_t)f->wire_tci;
        memcpy(tagged + 16, frame + 12, len - 12);
        frame = tagged;
        len += 4;
        f->vlan_inserted++;
    }
    if (f->on_frame != NULL) {
        f->on_frame(f->ctx, frame, (uint16_t)len);
    }
    f->frames++;
    f->bytes += len;
}

/* fake_inic_tx_tso: the gathered TSO frame (len bytes) cut as context slot 1 says, which must
 * be TCP over a 20-byte IPv4 header behind 14 Ethernet bytes, with TXSM and IXSM asked and
 * PAYLEN the payload after the headers (82599 §7.2.3.2.4, §7.2.4). */
static void fake_inic_tx_tso(struct fake_inic_tx *f, const uint8_t *frame, uint32_t len,
                             uint32_t olinfo)
{
    const uint32_t tcp4 = IDESC_TXC_DTYP_CTXT | IDESC_TX_CMD_DEXT | IDESC_TXC_TUCMD_IPV4 |
                          IDESC_TXC_TUCMD_L4T_TCP;
    uint32_t opts = olinfo & (uint32_t)~IDESC_TX_PAYLEN_MASK;
    uint32_t hdr = 14u + 20u + (f->ctx1_mss_l4len >> 8 & 0xFFu), mss = f->ctx1_mss_l4len >> 16;
    bool ok = f->ctx1_valid && f->ctx1_tucmd == tcp4 &&
              (f->ctx1_macip & 0xFFFFu) == (IDESC_TXC_MACLEN(14) | IDESC_TXC_IPLEN(20)) &&
              opts == (IDESC_TX_IDX(1) | IDESC_TX_POPTS_TXSM | IDESC_TX_POPTS_IXSM) &&
              (olinfo & IDESC_TX_PAYLEN_MASK) >> 14 == len - hdr;
    if (!ok || fake_tso_cut(frame, len, hdr, mss, fake_inic_tx_wire, f) == 0) {
        f->violations++;
        return;
    }
    f->tso_frames++;
}

/* fake_inic_tx_frame_descs: how many descriptors from head make the next frame (up to its
 * EOP), 0 if its EOP is not among the avail handed over. */
static unsigned fake_inic_tx_frame_descs(const struct fake_inic_tx *f, uint16_t avail)
{
    for (unsigned k = 0; k < avail && k < FAKE_INIC_TX_MAX_DESCS; k++) {
        const volatile union idesc_tx *d = &f->desc[(f->head + k) % f->size];
        if ((d->read.cmd_type_len & IDESC_TX_DTYP_MASK) != IDESC_TX_DTYP_DATA ||
            (d->read.cmd_type_len & IDESC_TX_CMD_EOP)) {
            return k + 1; /* its end, or a descriptor that is no part of a frame */
        }
    }
    return avail < FAKE_INIC_TX_MAX_DESCS ? 0 : FAKE_INIC_TX_MAX_DESCS;
}

/* fake_inic_tx_send: gather the frame in descriptors head..head+n-1 and put it on the wire; a
 * malformed one is a violation and sends nothing. */
static void fake_inic_tx_send(struct fake_inic_tx *f, unsigned n)
{
    static uint8_t frame[65536];
    uint32_t len = 0, first_olinfo = f->desc[f->head].read.olinfo_status;
    uint32_t first_cmd = f->desc[f->head].read.cmd_type_len, macip = 0, tucmd;
    bool tso = (first_cmd & IDESC_TX_CMD_TSE) != 0;
    bool ok = fake_inic_tx_opts_ok(f, first_cmd, first_olinfo & ~(tso ? IDESC_TX_POPTS_TXSM |
                                                                            IDESC_TX_POPTS_IXSM
                                                                      : 0));
    f->wire_vle = (first_cmd & IDESC_TX_CMD_VLE) != 0 &&
                  fake_inic_tx_ctx(f, first_olinfo, &macip, &tucmd);
    f->wire_tci = (uint16_t)(macip >> 16);
    for (unsigned k = 0; k < n && ok; k++) {
        volatile union idesc_tx *d = &f->desc[(f->head + k) % f->size];
        uint32_t cmd = d->read.cmd_type_len, dlen = cmd & IDESC_TX_DTALEN_MASK;
        ok = fake_inic_tx_desc_ok(d->read.buffer_addr, cmd) && len + dlen <= sizeof(frame) &&
             ((cmd & IDESC_TX_CMD_EOP) != 0) == (k + 1 == n);
        if (ok) {
            memcpy(frame + len, (const void *)(uintptr_t)d->read.buffer_addr, dlen);
            len += dlen;
        }
    }
    if (ok && tso) {
        f->multi_desc_frames++; /* (a TSO frame's headers and payload: two at least) */
        fake_inic_tx_tso(f, frame, len, first_olinfo);
        return;
    }
    /* PAYLEN in the first descriptor is the whole frame (82599 §7.2.3.2.4) */
    if (!ok || (first_olinfo & IDESC_TX_PAYLEN_MASK) >> 14 != len) {
        f->violations++;
        return;
    }
    if (first_olinfo & IDESC_TX_POPTS_TXSM) {
        fake_inic_tx_csum(f, frame, len, first_olinfo);
    }
    fake_inic_tx_wire(f, frame, len);
    f->multi_desc_frames += n > 1;
}

unsigned fake_inic_tx_process(struct fake_inic_tx *f, unsigned max)
{
    uint16_t avail = fake_inic_ring_avail(f->head, *f->tail, f->size, &f->violations);
    unsigned done = 0;

    while (done < max && done < avail) {
        volatile union idesc_tx *d = &f->desc[f->head];
        unsigned n = 1;
        if (!fake_inic_tx_context(f, d)) {
            n = fake_inic_tx_frame_descs(f, (uint16_t)(avail - done));
            if (n == 0 || done + n > max) {
                break; /* its last descriptor is not handed over yet (or beyond max) */
            }
            fake_inic_tx_send(f, n);
        }
        /* Write-back only when asked (RS); the other 12 bytes are not meaningful after it. */
        for (unsigned k = 0; k < n; k++) {
            volatile union idesc_tx *w = &f->desc[f->head];
            if ((w->read.cmd_type_len & IDESC_TX_CMD_RS) != 0) {
                w->wb.reserved = FAKE_INIC_POISON64;
                w->wb.reserved2 = FAKE_INIC_POISON32;
                w->wb.status = IDESC_TX_STATUS_DD;
            }
            f->head = (uint16_t)((f->head + 1) % f->size);
        }
        done += n;
    }
    return done;
}
