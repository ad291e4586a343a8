/*
 * tests/fakes/fake_intel_nic.h: a tiny model of the descriptor side of an 82576/82599 queue for
 * host tests: it reads the tail the driver wrote into a plain uint32_t, keeps its own head, and
 * writes frames and write-backs into ring memory the way the NIC would (82576 §7.1.5, §7.2.2.3;
 * 82599 §7.1.6, §7.2.3.2.4). Buffer addresses are host pointers (identity "DMA").
 */
#ifndef WS_FAKE_INTEL_NIC_H
#define WS_FAKE_INTEL_NIC_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/nic/intel_desc.h"

/* One RX queue as the NIC sees it. */
struct fake_inic_rx {
    volatile union idesc_rx *desc;
    const volatile uint32_t *tail; /* the RDT "register" the ring writes */
    uint16_t size;
    uint16_t head;       /* RDH: next descriptor the NIC will write back */
    uint16_t buf_bytes;  /* SRRCTL.BSIZEPACKET in bytes: a longer frame spans descriptors */
    uint64_t frames;     /* frames stored in host memory */
    uint64_t missed;     /* frames dropped: no descriptor available (the NIC's MPC) */
    uint64_t violations; /* driver mistakes seen: tail out of range, armed descriptor bad */
};

/* Per-frame write-back options for fake_inic_rx_frame. */
struct fake_inic_rx_opts {
    uint32_t rss_hash; /* written with RSS type 1 when non-zero, else RSS type 0 */
    uint32_t err_bits; /* extended error bits for the EOP descriptor (IDESC_RX_ERR_*) */
    uint32_t status_bits; /* extra status bits for the EOP descriptor (e.g. IDESC_RX_STATUS_L4I) */
    uint16_t vlan;        /* the write-back's VLAN tag (a stripping NIC's, with _VP in status_bits) */
};

/* One TX queue as the NIC sees it. */
/* The most descriptors one frame may take (the 82599 allows 40 per packet, §7.2.3.3). */
#define FAKE_INIC_TX_MAX_DESCS 40u

struct fake_inic_tx {
    volatile union idesc_tx *desc;
    const volatile uint32_t *tail; /* the TDT "register" */
    uint16_t size;
    uint16_t head;   /* TDH: next descriptor the NIC will process */
    uint64_t frames; /* frames "put on the wire" */
    uint64_t bytes;
    uint64_t violations; /* malformed descriptors (not advanced data or context, no EOP, bad
                          * lengths, an offload without its context) */
    uint64_t contexts;   /* context descriptors taken (slot 0 kept in ctx0) */
    uint64_t csum_offloads; /* frames whose TCP checksum the fake completed (TXSM) */
    uint64_t multi_desc_frames; /* frames gathered from more than one descriptor */
    uint64_t tso_frames;        /* TSO frames cut into segments (each segment is a frame) */
    uint64_t vlan_inserted;     /* frames sent with the 802.1Q tag VLE asked for (a TSO frame's
                                 * segments each) */
    bool wire_vle;              /* the frame being sent gets wire_tci as its tag */
    uint16_t wire_tci;
    bool ctx0_valid;
    uint32_t ctx0_macip, ctx0_tucmd; /* context slot 0: vlan_macip_lens, type_tucmd_mlhl */
    bool ctx1_valid;
    uint32_t ctx1_macip, ctx1_tucmd, ctx1_mss_l4len; /* slot 1, TSO's: and mss_l4len_idx */
    /* Called for each transmitted frame with its bytes; may be NULL. */
    void (*on_frame)(void *ctx, const uint8_t *data, uint16_t len);
    void *ctx;
};

/* fake_inic_rx_init: attach to a ring's descriptor memory and tail word; head starts at 0. */
void fake_inic_rx_init(struct fake_inic_rx *f, void *desc_mem, uint16_t size,
                       const volatile uint32_t *tail, uint16_t buf_bytes);
/* fake_inic_rx_avail: descriptors the driver has handed over and the NIC has not used. */
uint16_t fake_inic_rx_avail(const struct fake_inic_rx *f);
/*
 * fake_inic_rx_frame: "receive" len bytes: copy them into the buffers of descriptors head...,
 * buf_bytes each, write back length and status (DD on every one, EOP on the last, errors and
 * RSS from opts, which may be NULL) and advance head. Returns the number of descriptors used,
 * or 0 when there are not enough (counted in missed; the ring is untouched).
 */
unsigned fake_inic_rx_frame(struct fake_inic_rx *f, const void *frame, uint32_t len,
                            const struct fake_inic_rx_opts *opts);
/*
 * fake_inic_ipv4_status: the status and error bits a NIC checking IPv4 header checksums writes
 * for frame (len bytes, Ethernet): IDESC_RX_STATUS_IPCS on an IPv4 header it can sum (version 4,
 * IHL 5 or more, within the frame), with ipe_bit (the chip's IPE) when the sum fails; 0 for any
 * other frame. For fake_inic_rx_opts.status_bits / err_bits.
 */
void fake_inic_ipv4_status(const uint8_t *frame, uint32_t len, uint32_t ipe_bit,
                           struct fake_inic_rx_opts *o);

/* fake_inic_tx_init: attach to a TX ring's descriptor memory and tail word; head starts at 0. */
void fake_inic_tx_init(struct fake_inic_tx *f, void *desc_mem, uint16_t size,
                       const volatile uint32_t *tail);
/*
 * fake_inic_tx_process: "transmit" up to max descriptors from head towards tail: take context
 * descriptors (slot 0 kept), gather each frame from its data descriptors up to the EOP one
 * (DEXT, DTYP data, IFCS, 0 < DTALEN, the first's PAYLEN the whole frame, RS on the last only,
 * TXSM only with a TCP/IPv4 context 0, whose checksum it then completes), hand it to on_frame,
 * write back DD where RS is set, advance head; a frame whose last descriptor is not handed
 * over (or lies beyond max) waits. A small max models a slow NIC. Returns the descriptors
 * processed.
 */
unsigned fake_inic_tx_process(struct fake_inic_tx *f, unsigned max);

#endif
