/*
 * drivers/nic/intel_desc.h: the advanced RX and TX descriptors shared by the Intel 82576 (igb)
 * and 82599 (ixgbe). Layouts: 82576 datasheet §7.1.5 (RX), §7.2.2.3 (TX data); 82599 datasheet
 * §7.1.6 (RX), §7.2.3.2.4 (TX data). Bit positions cross-checked against Linux's igb
 * (e1000_82575.h, e1000_defines.h) and ixgbe (ixgbe_type.h) headers, read for facts only.
 */
#ifndef WS_INTEL_DESC_H
#define WS_INTEL_DESC_H

#include <stdint.h>

/*
 * Advanced receive descriptor (82576 §7.1.5.1/§7.1.5.2, 82599 §7.1.6.1/§7.1.6.2). Software
 * writes the read format; the NIC overwrites the same 16 bytes with the write-back format.
 * Little-endian fields, like the CPU.
 */
union idesc_rx {
    struct {
        uint64_t pkt_addr; /* packet buffer address; bit 0 must be 0 (no header split: A0) */
        uint64_t hdr_addr; /* header buffer address; its bit 0 is DD in the write-back, so
                            * writing 0 here re-arms the descriptor and clears DD */
    } read;
    struct {
        uint32_t info;         /* RSS type 3:0, packet type 16:4, header info 31:17 */
        uint32_t rss_hash;     /* RSS hash; IP id + checksum instead when RXCSUM.PCSD = 0 */
        uint32_t status_error; /* extended status 19:0, extended errors 31:20 */
        uint16_t length;       /* PKT_LEN: bytes written to this descriptor's buffer */
        uint16_t vlan;         /* VLAN tag (when stripped) */
    } wb;
    uint64_t qw[2]; /* the write-back as two quadwords: qw[1] = status_error, length, vlan */
} __attribute__((packed, aligned(16)));
_Static_assert(sizeof(union idesc_rx) == 16, "advanced RX descriptor is 16 bytes");

/* wb.info: RSS type (82576 §7.1.5.2, 82599 §7.1.6.2); 0 = no hash computed. */
#define IDESC_RX_INFO_RSSTYPE(x) ((uint32_t)(x) & 0xFUL)
#define IDESC_RX_INFO_RSSTYPE_MASK IDESC_RX_INFO_RSSTYPE(0xF)

/* wb.status_error, extended status (same bits on both chips). */
#define IDESC_RX_STATUS_DD 0x00000001UL  /* descriptor done: the NIC wrote this one back */
#define IDESC_RX_STATUS_EOP 0x00000002UL /* end of packet: last buffer of the frame */
/* VLAN packet: the frame had an 802.1Q tag (its TPID matched VET). Where the queue strips tags
 * (82576 CTRL.VME, 82599 RXDCTL.VME) the tag is gone from the buffer and wb.vlan holds it;
 * elsewhere the bit is not relied on (the chips differ in when they set it). */
#define IDESC_RX_STATUS_VP 0x00000008UL
#define IDESC_RX_STATUS_L4I 0x00000020UL /* the NIC checked the TCP/UDP checksum (L4I/TCPCS) */
#define IDESC_RX_STATUS_IPCS 0x00000040UL /* the NIC checked the IPv4 header checksum */

/*
 * wb.status_error, extended errors (bits 31:20). Here the datasheets disagree: the field sits
 * at the same place but its bits do not mean the same on the two chips (bit 31 is RXE on the
 * 82576 and IPE on the 82599), so each driver picks its frame-error mask with
 * iring_rx_set_err_mask(). Checksum errors (IPE/L4E) are deliberately not frame errors: the
 * frame is intact, only its IP/L4 checksum is wrong, and dropping it is the stack's call.
 */
/* 82576 §7.1.5.2 extended errors */
#define IDESC_RX_ERR_82576_HBO 0x00800000UL /* header buffer overflow (header split only) */
#define IDESC_RX_ERR_82576_L4E 0x20000000UL /* TCP/UDP checksum error */
#define IDESC_RX_ERR_82576_IPE 0x40000000UL /* IPv4 header checksum error */
#define IDESC_RX_ERR_82576_RXE 0x80000000UL /* CRC, symbol, sequence, length or carrier error */
#define IDESC_RX_ERR_FRAME_82576 IDESC_RX_ERR_82576_RXE

/* 82599 §7.1.6.2 extended errors */
#define IDESC_RX_ERR_82599_HBO 0x00800000UL /* header buffer overflow (header split only) */
#define IDESC_RX_ERR_82599_CE 0x01000000UL  /* CRC error */
#define IDESC_RX_ERR_82599_LE 0x02000000UL  /* length error */
#define IDESC_RX_ERR_82599_PE 0x08000000UL  /* packet (symbol) error */
#define IDESC_RX_ERR_82599_OSE 0x10000000UL /* oversize error */
#define IDESC_RX_ERR_82599_USE 0x20000000UL /* undersize error */
#define IDESC_RX_ERR_82599_L4E 0x40000000UL /* TCP/UDP checksum error */
#define IDESC_RX_ERR_82599_IPE 0x80000000UL /* IPv4 header checksum error */
#define IDESC_RX_ERR_FRAME_82599                                                                   \
    (IDESC_RX_ERR_82599_CE | IDESC_RX_ERR_82599_LE | IDESC_RX_ERR_82599_PE |                       \
     IDESC_RX_ERR_82599_OSE | IDESC_RX_ERR_82599_USE)

/*
 * Advanced transmit data descriptor (82576 §7.2.2.3, 82599 §7.2.3.2.4). Software writes the
 * read format; with RS set the NIC writes back DD into the status dword when it is done with
 * the buffer (the other 12 bytes are not meaningful after write-back).
 */
union idesc_tx {
    struct {
        uint64_t buffer_addr;   /* data buffer address */
        uint32_t cmd_type_len;  /* DTALEN 15:0, DTYP 23:20, DCMD 31:24 */
        uint32_t olinfo_status; /* STA 3:0 (0 when written), IDX/POPTS, PAYLEN 31:14 */
    } read;
    struct {
        uint64_t reserved;
        uint32_t reserved2;
        uint32_t status; /* STA 3:0: DD = bit 0 */
    } wb;
    uint64_t qw[2]; /* the read format as two quadwords: qw[1] = cmd_type_len, olinfo_status */
} __attribute__((packed, aligned(16)));
_Static_assert(sizeof(union idesc_tx) == 16, "advanced TX descriptor is 16 bytes");

/* read.cmd_type_len */
#define IDESC_TX_DTALEN(x) ((uint32_t)(x) & 0xFFFFUL) /* bytes in this descriptor's buffer */
#define IDESC_TX_DTALEN_MASK IDESC_TX_DTALEN(0xFFFF)
#define IDESC_TX_DTYP(x) (((uint32_t)(x) & 0xFUL) << 20) /* descriptor type */
#define IDESC_TX_DTYP_MASK IDESC_TX_DTYP(0xF)
#define IDESC_TX_DTYP_DATA IDESC_TX_DTYP(0x3) /* 0011b: advanced data descriptor */
#define IDESC_TX_CMD_EOP 0x01000000UL         /* end of packet */
#define IDESC_TX_CMD_IFCS 0x02000000UL        /* insert the Ethernet FCS */
#define IDESC_TX_CMD_RS 0x08000000UL          /* report status: write back DD when done */
#define IDESC_TX_CMD_DEXT 0x20000000UL        /* descriptor extension: 1 = advanced format */
#define IDESC_TX_CMD_VLE 0x40000000UL         /* insert the VLAN tag of the context IDX names */
#define IDESC_TX_CMD_TSE 0x80000000UL         /* TCP segmentation (PAYLEN: payload only) */

/* read.olinfo_status */
#define IDESC_TX_PAYLEN(x) (((uint32_t)(x) & 0x3FFFFUL) << 14) /* whole frame's length */
#define IDESC_TX_PAYLEN_MASK IDESC_TX_PAYLEN(0x3FFFF)
/* the context slot the offloads use (data: olinfo_status; context: mss_l4len_idx) */
#define IDESC_TX_IDX(x) (((uint32_t)(x) & 0x7UL) << 4)
#define IDESC_TX_POPTS_IXSM 0x00000100UL /* insert the IPv4 header checksum */
#define IDESC_TX_POPTS_TXSM 0x00000200UL /* insert the TCP/UDP checksum */

/*
 * Advanced transmit context descriptor (82576 §7.2.2.2, 82599 §7.2.3.2.3): what the offloads
 * of later data descriptors naming its slot (IDX) need to know about their frames' headers.
 * The NIC keeps it per queue until a context descriptor for the same slot replaces it or the
 * queue is reset; it sends nothing and is never written back (it has no RS). Same layout on
 * both chips for what is used here (Linux's igb and ixgbe headers, read for facts only).
 */
union idesc_tx_ctx {
    struct {
        uint32_t vlan_macip_lens; /* IPLEN 8:0, MACLEN 15:9, VLAN 31:16 */
        uint32_t seqnum_seed;     /* IPsec/FCoE only: 0 */
        uint32_t type_tucmd_mlhl; /* TUCMD 19:9, DTYP 23:20, DEXT bit 29 */
        uint32_t mss_l4len_idx;   /* IDX 6:4, L4LEN 15:8 and MSS 31:16 (segmentation only) */
    };
    uint64_t qw[2];
} __attribute__((packed, aligned(16)));
_Static_assert(sizeof(union idesc_tx_ctx) == 16, "advanced TX context descriptor is 16 bytes");

#define IDESC_TXC_IPLEN(x) ((uint32_t)(x) & 0x1FFUL)
#define IDESC_TXC_VLAN(x) ((uint32_t)(x) << 16) /* the TCI VLE inserts */
#define IDESC_TXC_MACLEN(x) (((uint32_t)(x) & 0x7FUL) << 9)
#define IDESC_TXC_DTYP_CTXT IDESC_TX_DTYP(0x2) /* 0010b: advanced context descriptor */
#define IDESC_TXC_TUCMD_IPV4 0x00000400UL      /* the L3 header is IPv4 */
#define IDESC_TXC_TUCMD_L4T_TCP 0x00000800UL   /* L4T 01b: TCP (00b: UDP) */
#define IDESC_TXC_L4LEN(x) (((uint32_t)(x) & 0xFFUL) << 8)   /* TCP header bytes (TSO) */
#define IDESC_TXC_MSS(x) (((uint32_t)(x) & 0xFFFFUL) << 16) /* payload bytes per segment */

/* wb.status */
#define IDESC_TX_STATUS_DD 0x00000001UL /* descriptor done */

#endif
