/*
 * tests/model/ixgbe_model_int.h: the model's private state and its own register map of the
 * 82599 (datasheet 331520 rev 3.x, chapter 8 register descriptions), written independently of
 * the driver's drivers/nic/ixgbe_regs.h on purpose. Internal symbols use the prefix ixm_.
 * Offsets were cross-checked against Linux 6.1 ixgbe_type.h (read, not copied).
 */
#ifndef WS_IXGBE_MODEL_INT_H
#define WS_IXGBE_MODEL_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "tests/model/ixgbe_model.h"

/* ---- General (§8.2.3.1) ---------------------------------------------------------------- */
/* CTRL: device control */
#define IXM_CTRL 0x00000u
#define IXM_CTRL_GIO_DIS 0x00000004u /* PCIe master disable */
#define IXM_CTRL_LRST 0x00000008u    /* link reset: global reset that also resets the link */
#define IXM_CTRL_RST 0x04000000u     /* device (software) reset, self-clearing */
/* STATUS: device status (read only) */
#define IXM_STATUS 0x00008u
#define IXM_STATUS_GIO 0x00080000u /* master enable status: 0 once disable completed */
/* CTRL_EXT: extended device control (plain storage in the model) */
#define IXM_CTRL_EXT 0x00018u

/* ---- EEPROM (§8.2.3.2) ----------------------------------------------------------------- */
#define IXM_EEC 0x10010u
#define IXM_EEC_REQ 0x00000040u  /* software request for direct EEPROM access */
#define IXM_EEC_GNT 0x00000080u  /* grant: the model grants at once */
#define IXM_EEC_PRES 0x00000100u /* EEPROM present */
#define IXM_EEC_ARD 0x00000200u  /* auto-read done */
#define IXM_EEC_SW_MASK 0x0000007Fu /* bits software may drive (bit-bang, FWE, REQ) */
#define IXM_EEC_SIZE_SHIFT 11        /* EE_SIZE 14:11: 2^(EE_SIZE + 6) words */
/* EERD: EEPROM read through the register (§8.2.3.2.2): START 0, DONE 1, ADDR 15:2, DATA 31:16 */
#define IXM_EERD 0x10014u
#define IXM_EERD_START 0x00000001u
#define IXM_EERD_DONE 0x00000002u
#define IXM_EERD_ADDR_SHIFT 2
#define IXM_EERD_ADDR_MASK 0x3FFFu
#define IXM_EERD_DATA_SHIFT 16
/* The EEPROM image (words): checksum word and the 16-bit sum every valid image has (§6.3.4) */
#define IXM_EEPROM_WORDS 512u       /* EE_SIZE 3: a small image; real boards carry more */
#define IXM_EEPROM_CHECKSUM_WORD 0x3Fu
#define IXM_EEPROM_SUM 0xBABAu
#define IXM_EEPROM_PTR_FIRST 0x03u  /* module pointers 0x03..0x0E are summed too */
#define IXM_EEPROM_PTR_LAST 0x0Eu
/* SWSM: software semaphore (§8.2.3.4.x): a read that finds SMBI clear takes it (sets it). */
#define IXM_SWSM 0x10140u
#define IXM_SWSM_SMBI 0x00000001u
#define IXM_SWSM_SWESMBI 0x00000002u
/* FWSM: firmware semaphore/status (§8.2.3.4.x), read-only to software. The chip's management
 * firmware sets FW_VAL once it has loaded after a reset; no manageability mode (MODE 0). */
#define IXM_FWSM 0x10148u
#define IXM_FWSM_FW_VAL 0x00008000u

/* SW_FW_SYNC (GSSR, §8.2.3.4.x): which of software and firmware holds which shared resource
 * (EEPROM, PHY0/1 = each port's I2C/MDIO, MAC CSRs). Plain storage: no firmware takes one. */
#define IXM_GSSR 0x10160u
#define IXM_GSSR_SW_MAC_CSR_SM 0x0008u
/* The NVM's firmware section (word 0x0F points at it); its LESM parameters (+2 points at
 * them) say in their state word (+1), bit 15, whether the firmware's link state machine runs. */
#define IXM_EEPROM_FW_PTR 0x0Fu
#define IXM_EEPROM_LESM_PTR 2u
#define IXM_EEPROM_LESM_STATE 1u
#define IXM_EEPROM_LESM_ENABLED 0x8000u
/* The NVM's SFP+ init list (§6.x "PHY init" pointer; Linux: IXGBE_PHY_INIT_OFFSET_NL). */
#define IXM_EEPROM_PHY_INIT_PTR 0x2Bu
#define IXM_EEPROM_LIST_END 0xFFFFu

/* ---- SFP+ cage: SDP pins and I2C (§8.2.3.1.x ESDP, I2CCTL) ------------------------------ */
#define IXM_ESDP 0x00020u
#define IXM_ESDP_SDP2 0x00000004u     /* input: module present (1) on SFP+ boards */
#define IXM_ESDP_SDP3 0x00000008u     /* output: the module's TX_DISABLE (1 = laser off) */
#define IXM_ESDP_SDP5 0x00000020u     /* output: rate select (dual-rate modules only) */
#define IXM_ESDP_SDP_DIR(n) (0x100u << (n)) /* 1 = output */
#define IXM_I2CCTL 0x00028u
#define IXM_I2CCTL_CLK_IN 0x1u
#define IXM_I2CCTL_CLK_OUT 0x2u
#define IXM_I2CCTL_DATA_IN 0x4u
#define IXM_I2CCTL_DATA_OUT 0x8u
/* CORECTL: the analog core's control port; the NVM's SFP+ init sequence is written here. */
#define IXM_CORECTL 0x014F00u
/* MMNGC: MNG_VETO, set by management firmware that forbids link resets (§8.2.3.22.x). */
#define IXM_MMNGC 0x042D0u
#define IXM_MMNGC_MNG_VETO 0x00000001u

/* ---- Interrupts (§8.2.3.5, behaviour §7.3) ---------------------------------------------- */
#define IXM_EICR 0x00800u
#define IXM_EICS 0x00808u
#define IXM_EIAC 0x00810u
#define IXM_EITR_LO(n) (0x00820u + 4u * (n))         /* n = 0..23 */
#define IXM_EITR_HI(n) (0x12300u + 4u * ((n) - 24u)) /* n = 24..127 */
#define IXM_EITR_INTERVAL(v) (((v) >> 3) & 0x1FFu)  /* bits 11:3, 2.048 us units */
#define IXM_EITR_UNIT_NS 2048u
#define IXM_EIMS 0x00880u
#define IXM_EIMC 0x00888u
#define IXM_EIAM 0x00890u
#define IXM_GPIE 0x00898u
#define IXM_GPIE_SDP2_GPIEN 0x00000004u /* SDP2 (module presence) changes raise GPI_SDP2 */
#define IXM_GPIE_MSIX_MODE 0x00000010u /* Multiple_MSIX */
#define IXM_GPIE_OCD 0x00000020u       /* other clear disable: EICR read keeps bits 30:16 */
#define IXM_GPIE_EIAME 0x40000000u     /* EIAM applies when an MSI-X message is sent */
#define IXM_IVAR(n) (0x00900u + 4u * (n))            /* n = 0..63: queues 2n and 2n+1 */
#define IXM_IVAR_MISC 0x00A00u                       /* 7:0 TCP timer, 15:8 other causes */
#define IXM_IVAR_VALID 0x80u                         /* INT_Alloc_val */
#define IXM_IVAR_VECTOR 0x3Fu                        /* INT_Alloc: MSI-X vector 0..63 */
#define IXM_EICS_EX(i) (0x00A90u + 4u * (i))
#define IXM_EIMS_EX(i) (0x00AA0u + 4u * (i))
#define IXM_EIMC_EX(i) (0x00AB0u + 4u * (i))
#define IXM_EIAM_EX(i) (0x00AD0u + 4u * (i))
/* EICR bits */
#define IXM_EICR_RTXQ 0x0000FFFFu  /* vectors 0..15 in MSI-X mode */
#define IXM_EICR_RX_MISS 0x00020000u
#define IXM_EICR_LSC 0x00100000u
#define IXM_EICR_GPI_SDP2 0x04000000u
#define IXM_EICR_OTHER_MASK 0x7FFF0000u /* "other" causes, bits 30:16 */

/* ---- Receive filtering and RSS (§8.2.3.7, behaviour §7.1.1, §7.1.2.8) ------------------- */
#define IXM_RXCSUM 0x05000u
#define IXM_RXCSUM_PCSD 0x00002000u /* report RSS hash instead of fragment checksum */
#define IXM_FCTRL 0x05080u
#define IXM_FCTRL_MPE 0x00000100u
#define IXM_FCTRL_UPE 0x00000200u
#define IXM_FCTRL_BAM 0x00000400u
#define IXM_MCSTCTRL 0x05090u
#define IXM_MCSTCTRL_MO 0x00000003u
#define IXM_MCSTCTRL_MFE 0x00000004u
#define IXM_MTA(n) (0x05200u + 4u * (n))          /* n = 0..127 */
#define IXM_RAL(n) (0x0A200u + 8u * (n))          /* n = 0..127 */
#define IXM_RAH(n) (0x0A204u + 8u * (n))
#define IXM_RAR_ALIAS_BASE 0x05400u               /* RAL/RAH 0..15, 82598-compatible alias */
#define IXM_RAR_ALIAS_END 0x05480u
#define IXM_RAH_AV 0x80000000u
#define IXM_RAR_ENTRIES 128u
#define IXM_MRQC 0x0EC80u
#define IXM_MRQC_ALIAS 0x05818u                   /* 82598-compatible alias (Linux uses it) */
#define IXM_MRQC_MRQE 0x0000000Fu
#define IXM_MRQC_MRQE_RSS 0x1u
#define IXM_MRQC_TCPIPV4 0x00010000u
#define IXM_MRQC_IPV4 0x00020000u
#define IXM_MRQC_IPV6 0x00100000u
#define IXM_MRQC_TCPIPV6 0x00200000u
#define IXM_MRQC_UDPIPV4 0x00400000u
#define IXM_MRQC_UDPIPV6 0x00800000u
#define IXM_RETA(n) (0x0EB00u + 4u * (n))         /* n = 0..31, 4 entries each */
#define IXM_RETA_ALIAS 0x05C00u
#define IXM_RSSRK(n) (0x0EB80u + 4u * (n))        /* n = 0..9, key bytes little-endian */
#define IXM_RSSRK_ALIAS 0x05C80u
#define IXM_RETA_ENTRY_MASK 0x0Fu                 /* 82599: 4-bit queue index, 7:4 reserved */

/* ---- Receive DMA (§8.2.3.8) ------------------------------------------------------------ */
/* Per-queue block: queues 0..63 at 0x01000 + 0x40*n, 64..127 at 0x0D000 + 0x40*(n-64). */
#define IXM_RXQ_LO_BASE 0x01000u
#define IXM_RXQ_HI_BASE 0x0D000u
#define IXM_RXQ_STRIDE 0x40u
#define IXM_RDBAL 0x00u
#define IXM_RDBAH 0x04u
#define IXM_RDLEN 0x08u
#define IXM_RDH 0x10u
#define IXM_SRRCTL 0x14u
#define IXM_RDT 0x18u
#define IXM_RXDCTL 0x28u
#define IXM_SRRCTL_ALIAS 0x02100u   /* SRRCTL 0..15, 82598-compatible alias */
#define IXM_DCA_RXCTRL 0x0Cu
#define IXM_DCA_RXCTRL_ALIAS 0x02200u
#define IXM_SRRCTL_BSIZEPKT 0x0000001Fu /* 4:0, 1 KiB units, 0 not allowed */
#define IXM_SRRCTL_DESCTYPE 0x0E000000u
#define IXM_SRRCTL_DESCTYPE_ADV1 0x02000000u /* advanced, one buffer */
#define IXM_SRRCTL_DROP_EN 0x10000000u
#define IXM_SRRCTL_RESERVED 0xE03FC0E0u /* 7:5, 21:14, 31:29 */
#define IXM_SRRCTL_RESET 0x00000402u    /* BSIZEPACKET 2 KiB, BSIZEHEADER 256 B */
#define IXM_RXDCTL_ENABLE 0x02000000u
#define IXM_RXDCTL_SWFLSH 0x04000000u   /* not interpreted; left writable */
#define IXM_RXDCTL_VME 0x40000000u
/* Everything but ENABLE, bit 26 and VME is reserved on the 82599 (no PTHRESH/HTHRESH/WTHRESH
 * as on the 82598, no RLPML as on the X540). */
#define IXM_RXDCTL_RESERVED (~(IXM_RXDCTL_ENABLE | IXM_RXDCTL_SWFLSH | IXM_RXDCTL_VME))
#define IXM_RDRXCTL 0x02F00u
#define IXM_RDRXCTL_DMAIDONE 0x00000008u
#define IXM_RQSMR(n) (0x02300u + 4u * (n)) /* queue -> statistics index, 4 per register */
#define IXM_RXCTRL 0x03000u
#define IXM_RXCTRL_RXEN 0x00000001u
#define IXM_RXPBSIZE(n) (0x03C00u + 4u * (n))
#define IXM_RXPBSIZE_RESET0 0x00080000u /* 512 KiB for packet buffer 0 */

/* ---- Transmit (§8.2.3.9) --------------------------------------------------------------- */
#define IXM_TXQ_BASE 0x06000u /* queues 0..127 at 0x06000 + 0x40*n */
#define IXM_TXQ_STRIDE 0x40u
#define IXM_TDBAL 0x00u
#define IXM_TDBAH 0x04u
#define IXM_TDLEN 0x08u
#define IXM_TDH 0x10u
#define IXM_TDT 0x18u
#define IXM_TXDCTL 0x28u
#define IXM_TDWBAL 0x38u
#define IXM_TDWBAH 0x3Cu
#define IXM_TDWBAL_HEAD_WB_EN 0x00000001u
#define IXM_TXDCTL_ENABLE 0x02000000u
/* PTHRESH 6:0, HTHRESH 14:8, WTHRESH 22:16, ENABLE 25, SWFLSH 26; the rest reserved. */
#define IXM_TXDCTL_RESERVED 0xF9808080u
#define IXM_DMATXCTL 0x04A80u
#define IXM_DMATXCTL_TE 0x00000001u
/* DMATXCTL.VT (31:16): the TPID VLE inserts; 0x8100 from reset (§8.2.3.9.1). */
#define IXM_DMATXCTL_VT_RESET 0x81000000u
/* VLNCTRL (§8.2.3.7.2): VET (15:0), the TPID a received tag must carry; 0x8100 from reset. */
#define IXM_VLNCTRL 0x05088u
#define IXM_VLNCTRL_VET 0x0000FFFFu
#define IXM_VLNCTRL_RESET 0x00008100u
#define IXM_TQSM(n) (0x08600u + 4u * (n))
#define IXM_TXPBSIZE(n) (0x0CC00u + 4u * (n))
#define IXM_TXPBSIZE_RESET0 0x00028000u /* 160 KiB (SIZE 19:10 = 0xA0) */
#define IXM_PBSIZE_BYTES 0x000FFC00u       /* SIZE 19:10, KiB: the value in bytes */
#define IXM_RX_PB_TOTAL (512u * 1024)
#define IXM_TX_PB_TOTAL (160u * 1024)
#define IXM_PACKET_BUFFERS 8u

/* ---- MAC (§8.2.3.22) ------------------------------------------------------------------- */
#define IXM_HLREG0 0x04240u
#define IXM_HLREG0_TXCRCEN 0x00000001u
#define IXM_HLREG0_RXCRCSTRP 0x00000002u
#define IXM_HLREG0_JUMBOEN 0x00000004u
#define IXM_HLREG0_TXPADEN 0x00000400u
#define IXM_MAXFRS 0x04268u
#define IXM_MAXFRS_RESET 0x05EE0000u /* MFS = 1518 */
#define IXM_AUTOC 0x042A0u
#define IXM_AUTOC_RESTART_AN 0x00001000u /* self-clearing */
#define IXM_AUTOC_LMS_10G_SERIAL 0x00006000u
/* SECRXCTRL / SECRXSTAT (security RX path): RX_DIS stops it; SECRX_RDY says it is idle. */
#define IXM_SECRXCTRL 0x08D00
#define IXM_SECRXCTRL_RX_DIS 0x00000002u
#define IXM_SECRXSTAT 0x08D04
#define IXM_SECRXSTAT_SECRX_RDY 0x00000001u
#define IXM_LINKS 0x042A4u
#define IXM_LINKS_UP 0x40000000u
#define IXM_LINKS_SPEED_10G 0x30000000u
#define IXM_LINKS_SPEED_1G 0x20000000u
#define IXM_LINKS_KX_AN_COMP 0x80000000u /* backplane (clause 73) auto-negotiation completed */
#define IXM_AUTOC_LMS_MASK 0x0000E000u
#define IXM_AUTOC_LMS_1G_AN 0x00004000u
#define IXM_AUTOC_LMS_KX4_KX_KR 0x00008000u
#define IXM_AUTOC_LMS_KX4_KX_KR_1G_AN 0x0000C000u
#define IXM_AUTOC_LMS_KX4_KX_KR_SGMII 0x0000E000u
/* MSCA/MSRWD: MDIO (clause 45) access to an external PHY (§8.2.3.22.11/12). */
#define IXM_MSCA 0x0425Cu
#define IXM_MSCA_OP_MASK 0x0C000000u
#define IXM_MSCA_OP_READ 0x0C000000u
#define IXM_MSCA_OP_READ_INC 0x08000000u
#define IXM_MSCA_MDI_COMMAND 0x40000000u
#define IXM_MSRWD 0x04260u
#define IXM_MSRWD_READ_SHIFT 16
/* FDIRCTRL: flow director control (§8.2.3.21.1); INIT_DONE once the tables are initialised. */
#define IXM_FDIRCTRL 0x0EE00u
#define IXM_FDIRCTRL_INIT_DONE 0x00000008u
/* ANLP1: AN_STATE (19:16) leaves 0 once the link state machine took an AUTOC restart */
#define IXM_ANLP1 0x042B0u
#define IXM_ANLP1_AN_STATE_STARTED 0x00010000u
#define IXM_AUTOC2 0x042A8u
#define IXM_AUTOC2_10G_SFI 0x00020000u
#define IXM_AUTOC2_10G_PMA_MASK 0x00030000u
#define IXM_AUTOC2_LINK_DISABLE_MASK 0x70000000u /* NVM-loaded: the link is held off */
#define IXM_AUTOC_1G_PMA_KX 0x00000200u           /* clear: 1G SFI */
#define IXM_AUTOC_LMS_1G_NO_AN 0x00000000u

/* ---- Flow control (§8.2.3.3, behaviour §3.7.7) ------------------------------------------- */
#define IXM_FCCFG 0x03D00u
#define IXM_FCCFG_TFCE_802_3X 0x00000008u /* send link PAUSE frames */
#define IXM_MFLCN 0x04294u
#define IXM_MFLCN_PMCF 0x00000001u        /* pass MAC control frames to the host */
#define IXM_MFLCN_RFCE 0x00000008u        /* act on received PAUSE frames */
#define IXM_FCRTL(n) (0x03220u + 4u * (n))
#define IXM_FCRTL_XONE 0x80000000u        /* send XON when the buffer falls below RTL */
#define IXM_FCRTH(n) (0x03260u + 4u * (n))
#define IXM_FCRTH_FCEN 0x80000000u        /* send XOFF when the buffer reaches RTH */
#define IXM_FCRT_BYTES 0x0007FFE0u        /* thresholds in bytes, 32-byte granularity */
#define IXM_FCTTV(n) (0x03200u + 4u * (n)) /* pause time (quanta) TC 2n in 15:0 */
#define IXM_LXONTXC 0x03F60u
#define IXM_LXOFFTXC 0x03F68u
#define IXM_LXONRXCNT 0x041A4u
#define IXM_LXOFFRXCNT 0x041A8u
#define IXM_PAUSE_ETHERTYPE 0x8808u
#define IXM_PAUSE_OPCODE 0x0001u
#define IXM_PAUSE_QUANTUM_BITS 512u

/* ---- Statistics (§8.2.3.23), all clear-on-read ----------------------------------------- */
#define IXM_CRCERRS 0x04000u
#define IXM_MPC(n) (0x03FA0u + 4u * (n))
#define IXM_GPRC 0x04074u
#define IXM_BPRC 0x04078u
#define IXM_MPRC 0x0407Cu
#define IXM_GPTC 0x04080u
#define IXM_GORCL 0x04088u
#define IXM_GORCH 0x0408Cu
#define IXM_GOTCL 0x04090u
#define IXM_GOTCH 0x04094u
#define IXM_RUC 0x040A4u
#define IXM_ROC 0x040ACu
#define IXM_TORL 0x040C0u
#define IXM_TORH 0x040C4u
#define IXM_TPR 0x040D0u
#define IXM_TPT 0x040D4u
#define IXM_MPTC 0x040F0u
#define IXM_BPTC 0x040F4u
#define IXM_QPRC(n) (0x01030u + 0x40u * (n))  /* n = statistics index 0..15 */
#define IXM_QBRC_L(n) (0x01034u + 0x40u * (n))
#define IXM_QBRC_H(n) (0x01038u + 0x40u * (n))
#define IXM_QPRDC(n) (0x01430u + 0x40u * (n))
#define IXM_QPTC(n) (0x06030u + 0x40u * (n))
#define IXM_QBTC_L(n) (0x08700u + 8u * (n))
#define IXM_QBTC_H(n) (0x08704u + 8u * (n))
#define IXM_STAT_QUEUES 16u

/* ---- Descriptors (§7.1.6 RX advanced, §7.2.3.2.4 TX advanced data) ---------------------- */
#define IXM_DESC_BYTES 16u
#define IXM_RXD_STAT_DD 0x00000001u
#define IXM_RXD_STAT_EOP 0x00000002u
#define IXM_RXD_STAT_IPCS 0x00000040u /* the IPv4 header checksum was checked */
#define IXM_RXD_STAT_VP 0x00000008u   /* the frame was 802.1Q tagged (its TPID matched VET) */
#define IXM_RXD_ERR_IPE 0x80000000u   /* ...and did not verify */
#define IXM_RXD_STAT_L4CS 0x00000020u /* the TCP/UDP checksum was checked */
#define IXM_RXD_ERR_TCPE 0x40000000u  /* ...and did not verify */
#define IXM_RXD_PKT_IPV4 0x0010u
#define IXM_RXD_PKT_IPV4E 0x0020u
#define IXM_RXD_PKT_IPV6 0x0040u
#define IXM_RXD_PKT_TCP 0x0100u
#define IXM_RXD_PKT_UDP 0x0200u
#define IXM_RSSTYPE_NONE 0u
#define IXM_RSSTYPE_TCPV4 1u
#define IXM_RSSTYPE_IPV4 2u
#define IXM_RSSTYPE_TCPV6 3u
#define IXM_RSSTYPE_IPV6 5u
#define IXM_RSSTYPE_UDPV4 7u
#define IXM_RSSTYPE_UDPV6 8u
#define IXM_TXD_DTALEN 0x0000FFFFu
#define IXM_TXD_MAC 0x000C0000u   /* LinkSec / 1588 timestamp requests */
#define IXM_TXD_DTYP 0x00F00000u
#define IXM_TXD_DTYP_CTXT 0x00200000u
#define IXM_TXD_DTYP_DATA 0x00300000u
#define IXM_TXD_EOP 0x01000000u
#define IXM_TXD_IFCS 0x02000000u
#define IXM_TXD_RS 0x08000000u
#define IXM_TXD_DEXT 0x20000000u
#define IXM_TXD_VLE 0x40000000u
#define IXM_TXD_TSE 0x80000000u
#define IXM_TXD_POPTS 0x00003F00u
#define IXM_TXD_PAYLEN_SHIFT 14
#define IXM_TXD_STA_DD 0x00000001u
#define IXM_TXD_IDX(olinfo) (((olinfo) >> 4) & 0x7u) /* context index (0..1) */
#define IXM_TXD_POPTS_IXSM 0x00000100u  /* insert the IPv4 header checksum */
#define IXM_TXD_POPTS_TXSM 0x00000200u  /* insert the TCP/UDP checksum */
/* Advanced context descriptor (§7.2.3.2.3): VLAN_MACIP_LENS | SEED | TYPE_TUCMD | MSS_L4LEN */
#define IXM_CTX_IPLEN(w0) ((w0) & 0x1FFu)
#define IXM_CTX_MACLEN(w0) (((w0) >> 9) & 0x7Fu)
#define IXM_CTX_TUCMD_IPV4 0x00000400u
#define IXM_CTX_TUCMD_L4T 0x00001800u
#define IXM_CTX_TUCMD_L4T_UDP 0x00000000u
#define IXM_CTX_TUCMD_L4T_TCP 0x00000800u
#define IXM_CTX_L4LEN(w3) (((w3) >> 8) & 0xFFu)
#define IXM_CTX_MSS(w3) ((w3) >> 16)
#define IXM_CTX_IDX(w3) (((w3) >> 4) & 0x7u)
#define IXM_TSO_MAX_BYTES (256u * 1024u + 512u) /* PAYLEN is 18 bits, plus the headers */

/* One TX context slot (two per queue): what a context descriptor told the queue. */
struct ixm_tx_ctx {
    uint32_t maclen, iplen, l4len, mss, tucmd;
    uint16_t vlan; /* the tag VLE inserts (VLAN_MACIP_LENS 31:16) */
    bool valid;
};

#define IXM_MIN_FRAME 60u     /* without FCS */
#define IXM_FCS_BYTES 4u
#define IXM_STD_MAX_FRAME 1518u /* with FCS, when HLREG0.JUMBOEN is clear */

/* A 36-bit statistics counter read through a low/high register pair (e.g. GORCL/GORCH). */
struct ixm_ctr36 {
    uint64_t v;
    uint8_t hi_latched; /* high nibble captured by the low-half read */
    bool latched;
};

/* One frame held in the RX packet buffer, with what the parser decided on arrival. */
struct ixm_pb_frame {
    uint32_t len;
    uint32_t rss_hash;
    uint16_t pkt_type;
    uint8_t rss_type;
    uint8_t queue;
    uint32_t csum_status; /* IPCS/IPE, L4CS/TCPE for the EOP write-back */
    bool tagged;          /* VP, and the tag a stripping queue takes off */
    uint16_t tci;
    uint8_t data[];
};

struct ixm_rxq {
    uint32_t head;    /* RDH as the NIC keeps it */
    bool enabled;     /* latched RXDCTL.ENABLE, what reads return */
    bool latch_due;   /* an ENABLE change waits for the next advance() */
    bool base_set;    /* RDBAL written since reset */
    bool len_set;     /* RDLEN written since reset */
};

struct ixm_txq {
    uint32_t head;
    bool enabled;
    bool latch_due;
    bool base_set;
    bool len_set;
    bool halted;      /* stopped after a DMA error or misuse until disabled and re-enabled */
    struct ixm_tx_ctx ctx[2];
};

/* The I2C slave side of the cage (the module's EEPROM at A0h, diagnostics at A2h). */
enum ixm_i2c_state {
    IXM_I2C_IDLE,     /* waiting for a START */
    IXM_I2C_ADDR,     /* shifting in the device address byte */
    IXM_I2C_OFFSET,   /* shifting in the byte offset */
    IXM_I2C_WRITE,    /* shifting in data the master writes (ignored: read-only pages) */
    IXM_I2C_ACK_OUT,  /* the slave drives ACK during the ninth clock */
    IXM_I2C_READ,     /* the slave shifts a byte out */
    IXM_I2C_ACK_IN,   /* the master ACKs (another byte) or NACKs (done) */
};

struct ixm_sfp {
    bool cage;
    enum ixgbe_model_module module;
    uint8_t a0[IXGBE_MODEL_MODULE_BYTES], a2[IXGBE_MODEL_MODULE_BYTES];
    /* I2C bus: the master's lines as last written, what the slave drives on SDA */
    bool scl, sda_master, sda_slave;
    enum ixm_i2c_state state, after_ack;
    uint8_t shift, bits, device, offset;
    bool master_acked;
    /* CORECTL: how far the writes since the last change match each NVM sequence */
    unsigned seq_pos[4];
    int seq_loaded; /* SFP id (Linux's numbering) of the sequence last written in full, or -1 */
    bool mng_veto;
    uint32_t peer_mbps; /* the far end's only speed, 0: any */
};

struct ixgbe_model {
    struct ixgbe_model_ops ops;
    uint8_t mac[6];
    uint32_t autoc_reset, autoc2_reset;     /* what the EEPROM loads into AUTOC/AUTOC2 */
    uint16_t eeprom[IXM_EEPROM_WORDS];      /* the image EERD reads */
    uint64_t now;

    uint32_t regs[IXGBE_MODEL_REGS_BYTES / 4]; /* plain storage behind the modelled logic */

    /* reset, EEPROM, DMA init, link (§4.2, §4.6.3, §4.6.4) */
    bool resetting;
    uint64_t reset_done_at;
    bool reset_was_lrst;
    bool ard, dmaidone;
    uint64_t ard_at, dmaidone_at;
    bool cable;       /* the test's plug */
    bool link_up;
    bool training;
    bool an_started; /* an AUTOC restart since the last reset (ANLP1.AN_STATE) */
    bool lesm;       /* the NVM enables the firmware's LESM: AUTOC needs the MAC CSR semaphore */
    uint64_t link_up_at;
    bool faults[IXGBE_MODEL_FAULT_COUNT];
    struct ixm_sfp sfp;
    /* flow control (ixgbe_model_fc.c) */
    uint64_t paused_until; /* a received XOFF holds TX until then (0: not paused) */
    bool xoff_sent;        /* we sent XOFF and have not sent XON since */

    /* queues */
    bool latches_pending; /* some queue's latch_due may be set: advance() must look */
    struct ixm_rxq rxq[IXGBE_MODEL_QUEUES];
    struct ixm_txq txq[IXGBE_MODEL_QUEUES];

    /* RX packet buffer (FIFO shared by all queues; one traffic class) */
    struct ixm_pb_frame **pb;
    uint32_t pb_cap, pb_head, pb_count;
    uint64_t pb_bytes;
    bool rx_draining;
    uint32_t pb_gen;  /* bumped by a flush: a drain in progress notices */
    uint8_t rx_scratch[IXGBE_MODEL_MAX_FRAME_BYTES + IXM_FCS_BYTES];
    uint8_t tx_scratch[IXGBE_MODEL_MAX_FRAME_BYTES];
    uint8_t tx_tagged[IXGBE_MODEL_MAX_FRAME_BYTES + 4]; /* a frame with the tag VLE inserts */
    uint8_t *tso_buf;  /* IXM_TSO_MAX_BYTES: a TSO frame before segmentation */
    bool tx_busy;     /* TX is running (a tx_frame callback may re-enter) */
    bool tx_deferred; /* a nested TX request waits for the outer run to finish */

    /* interrupts (§7.3): vector-level causes/masks for 64 vectors, other causes 30:16 */
    uint64_t vcause, vmask, veiam, vpend;
    uint32_t ocause, omask, oeiam, eiac;
    uint64_t last_sent_ns[IXGBE_MODEL_MSIX_VECTORS];
    uint64_t sent_once; /* bit v: vector v has sent at least once (EITR has a reference) */
    uint32_t msix[IXGBE_MODEL_MSIX_VECTORS][4];
    uint64_t pba;

    /* statistics pairs */
    struct ixm_ctr36 gorc, gotc, tor;
    struct ixm_ctr36 qbrc[IXM_STAT_QUEUES], qbtc[IXM_STAT_QUEUES];

    /* introspection */
    struct ixgbe_model_counters cnt;
    char last_misuse[256];
    struct ixgbe_model_log_entry *log;
    size_t log_n;
    uint64_t log_lost;
    bool log_reads;
};

/* ixgbe_model.c */
void ixm_misuse(struct ixgbe_model *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
uint32_t ixm_reg(const struct ixgbe_model *m, uint32_t off);
void ixm_stat_add(struct ixgbe_model *m, uint32_t off, uint32_t n);
void ixm_ctr36_add(struct ixm_ctr36 *c, uint64_t n);
uint32_t ixm_rxq_reg_off(unsigned q, uint32_t reg);
uint32_t ixm_txq_reg_off(unsigned q, uint32_t reg);
bool ixm_gone(const struct ixgbe_model *m);

/* ixgbe_model.c: the link re-checks what it needs (a change of module, laser, mode) */
void ixm_link_recheck(struct ixgbe_model *m, bool may_start);

/* ixgbe_model_sfp.c */
void ixm_sfp_init(struct ixgbe_model *m, const struct ixgbe_model_config *cfg);
void ixm_sfp_eeprom_list(uint16_t *eeprom, unsigned at);
bool ixm_sfp_read(const struct ixgbe_model *m, uint32_t off, uint32_t *val);
bool ixm_sfp_write(struct ixgbe_model *m, uint32_t off, uint32_t val);
bool ixm_sfp_link_ok(const struct ixgbe_model *m);
uint32_t ixm_sfp_links_speed(const struct ixgbe_model *m);
bool ixm_mng_veto_refuses(struct ixgbe_model *m, const char *what);

/* ixgbe_model_fc.c */
bool ixm_fc_rx_pause(struct ixgbe_model *m, const uint8_t *f, size_t len);
bool ixm_fc_tx_paused(const struct ixgbe_model *m);
void ixm_fc_advance(struct ixgbe_model *m);
uint64_t ixm_fc_next_event(const struct ixgbe_model *m, uint64_t t);
void ixm_fc_rx_buffer(struct ixgbe_model *m);

/* ixgbe_model_queue.c */
bool ixm_queue_read(const struct ixgbe_model *m, uint32_t off, uint32_t *val);
bool ixm_queue_write(struct ixgbe_model *m, uint32_t off, uint32_t val);
void ixm_queue_latches(struct ixgbe_model *m);

/* ixgbe_model_irq.c */
void ixm_irq_reset(struct ixgbe_model *m);
void ixm_irq_queue_event(struct ixgbe_model *m, unsigned q, bool tx);
void ixm_irq_other_event(struct ixgbe_model *m, uint32_t cause);
void ixm_irq_poll(struct ixgbe_model *m);
uint64_t ixm_irq_next_event(const struct ixgbe_model *m, uint64_t t);
bool ixm_irq_read(struct ixgbe_model *m, uint32_t off, bool peek, uint32_t *val);
bool ixm_irq_write(struct ixgbe_model *m, uint32_t off, uint32_t val);
uint32_t ixm_msix_read(const struct ixgbe_model *m, uint32_t off);
void ixm_msix_write(struct ixgbe_model *m, uint32_t off, uint32_t val);

/* ixgbe_model_rx.c */
uint32_t ixm_rss_hash(const uint8_t key[40], const uint8_t *in, size_t n);
void ixm_rx_drain(struct ixgbe_model *m);
void ixm_rx_flush(struct ixgbe_model *m);
void ixm_rxq_check_enable(struct ixgbe_model *m, unsigned q);
int ixm_rx_inject(struct ixgbe_model *m, const uint8_t *frame, size_t len);

/* ixgbe_model_tx.c */
void ixm_tx_run(struct ixgbe_model *m, unsigned q);
void ixm_tx_run_all(struct ixgbe_model *m);

#endif /* WS_IXGBE_MODEL_INT_H */
