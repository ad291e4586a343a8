/*
 * drivers/nic/ixgbe_regs.h: the Intel 82599 (ixgbe) registers this driver touches, and only those.
 * Offsets and bits from the Intel 82599 10 GbE Controller Datasheet, revision 3.x, chapter 8.2.3
 * ("Device Registers - PF"), and its Specification Update where it changes the datasheet.
 * Hand-written; tests/model/test_ixgbe_regs.py compares every IXGBE_ name here against Linux's
 * ixgbe_type.h, so names follow the datasheet mnemonic and, where the datasheet only has a phrase
 * ("PCIe Master Disable"), the short name Linux uses for it.
 *
 * Per-queue registers are written out per queue as the datasheet lists them, with its ranges:
 * the 82599 has 128 RX queues, 0-63 in the block at 0x01000 and 64-127 at 0x0D000 (0x40 bytes
 * per queue), and 128 TX queues at 0x06000. Entries 0-15 of a few registers (SRRCTL, DCA_RXCTRL,
 * RAL/RAH) also answer at their 82598-compatible address, which Linux uses for them; we always
 * use the 82599 address. Section numbers: chapter 8.2.3 groups; a leaf number where it helps.
 */
#ifndef WS_IXGBE_REGS_H
#define WS_IXGBE_REGS_H

/* PCI Device ID values of 82599 boards (the Device ID the EEPROM loads into PCI configuration
 * space, chapter 9). Names as in Linux. ixgbe.c says which ones we drive and why. */
#define IXGBE_DEV_ID_82599_KX4 0x10F7             /* backplane, KX4 (mezzanine) */
#define IXGBE_DEV_ID_82599_KX4_MEZZ 0x1514        /* backplane, KX4 mezzanine */
#define IXGBE_DEV_ID_82599_COMBO_BACKPLANE 0x10F8 /* backplane, KX4/KX/KR combined */
#define IXGBE_DEV_ID_82599_KR 0x1517              /* backplane, KR */
#define IXGBE_DEV_ID_82599_BACKPLANE_FCOE 0x152A  /* backplane, FCoE SKU */
#define IXGBE_DEV_ID_82599_SFP 0x10FB             /* SFP+ (SFI) */
#define IXGBE_DEV_ID_82599_SFP_EM 0x1507          /* SFP+, embedded */
#define IXGBE_DEV_ID_82599_SFP_FCOE 0x1529        /* SFP+, FCoE SKU */
#define IXGBE_DEV_ID_82599_SFP_SF2 0x154D         /* SFP+, second source board */
#define IXGBE_DEV_ID_82599EN_SFP 0x1557           /* 82599EN: single-port SFP+ */
#define IXGBE_MAX_MSIX_VECTORS_82599 0x40         /* MSI-X table entries per port */

/* CTRL: Device Control (§8.2.3.1.1). */
#define IXGBE_CTRL 0x00000
#define IXGBE_CTRL_GIO_DIS 0x00000004UL /* PCIe Master Disable: no new master requests */
#define IXGBE_CTRL_LRST 0x00000008UL    /* Link Reset: resets the MAC link; self-clearing */
#define IXGBE_CTRL_RST 0x04000000UL     /* Device (software) Reset; self-clearing */
#define IXGBE_RESET_DELAY_US 1000       /* §4.6.3.2: wait >= 1 ms before reading CTRL again */
#define IXGBE_RESET_TIMEOUT_US 10000    /* RST/LRST self-clear within this */
#define IXGBE_RESET_SETTLE_US 10000     /* §4.6.3.2: >= 10 ms after reset before going on */

/* STATUS: Device Status (§8.2.3.1.2). Read-only. */
#define IXGBE_STATUS 0x00008
#define IXGBE_STATUS_GIO 0x00080000UL /* PCIe Master Enable Status: master requests pending */
/* §5.2.5.3.2 and Specification Update "Master Disable Flow": poll this after setting
 * CTRL.GIO_DIS; if it never clears, flush and reset twice (ixgbe_master_disable). */
#define IXGBE_MASTER_DISABLE_TIMEOUT_US 100000

/* CTRL_EXT: Extended Device Control (§8.2.3.1.3). */
#define IXGBE_CTRL_EXT 0x00018
#define IXGBE_CTRL_EXT_NS_DIS 0x00010000UL   /* No Snoop Disable: §4.6.7 last step sets it */
#define IXGBE_CTRL_EXT_DRV_LOAD 0x10000000UL /* tells firmware a driver owns the port */

/* STATUS.LAN_ID: which port of the chip this function is (0 or 1): picks its semaphore and
 * its NVM init sequence. */
#define IXGBE_STATUS_LAN_ID 0x0000000CUL
#define IXGBE_STATUS_LAN_ID_SHIFT 2

/* ESDP: Extended SDP Control (§8.2.3.1.4). The pins' roles are the board's; on 82599 SFP+
 * boards SDP2 reads module present, SDP3 drives the module's TX_DISABLE (Linux's usage). */
#define IXGBE_ESDP 0x00020
#define IXGBE_ESDP_SDP2 0x00000004UL     /* module present (input) */
#define IXGBE_ESDP_SDP3 0x00000008UL     /* TX_DISABLE: 1 = laser off */
#define IXGBE_ESDP_SDP3_DIR 0x00000800UL /* SDP3 is an output */
#define IXGBE_ESDP_SDP5 0x00000020UL     /* rate select of a dual-rate module: 1 = 10G */
#define IXGBE_ESDP_SDP5_DIR 0x00002000UL

/* I2CCTL: I2C Control (§8.2.3.1.5): the SFP+ cage's two-wire bus, bit-banged. Linux:
 * IXGBE_I2CCTL_8259X and IXGBE_I2C_*_8259X. */
#define IXGBE_I2CCTL 0x00028
#define IXGBE_I2C_CLK_IN 0x00000001UL
#define IXGBE_I2C_CLK_OUT 0x00000002UL
#define IXGBE_I2C_DATA_IN 0x00000004UL
#define IXGBE_I2C_DATA_OUT 0x00000008UL

/* EERD: EEPROM Read (§8.2.3.2.2): one NVM word per request. */
#define IXGBE_EERD 0x10014
#define IXGBE_EEPROM_RW_REG_START 1  /* bit: start the read */
#define IXGBE_EEPROM_RW_REG_DONE 2   /* mask: DONE, bit 1 */
#define IXGBE_EEPROM_RW_ADDR_SHIFT 2 /* word address, bits 15:2 */
#define IXGBE_EEPROM_RW_REG_DATA 16  /* data, bits 31:16 */
#define IXGBE_EERD_MAX_ADDR 0x00003FFFUL
#define IXGBE_EERD_TIMEOUT_US 10000
/* NVM words (§6.2, §6.3.4): the checksum covers words 0x00-0x3F and the sections the pointer
 * words 0x03-0x0E name (each a length word, then that many words), summing to 0xBABA. */
#define IXGBE_EEPROM_CHECKSUM 0x3F
#define IXGBE_EEPROM_SUM 0xBABA
#define IXGBE_PCIE_ANALOG_PTR 0x03
#define IXGBE_FW_PTR 0x0F
/* The SFP+ init list: word 0x2B points at it; {SFP id, data pointer} pairs after a header
 * word, 0xFFFF at the end; each data block a header word, then words for CORECTL to 0xFFFF. */
#define IXGBE_PHY_INIT_OFFSET_NL 0x002B
#define IXGBE_PHY_INIT_END_NL 0xFFFF

/* SWSM / SW_FW_SYNC (GSSR): Software Semaphore and SW/FW synchronisation (§8.2.3.4.x, §10.5).
 * SWSM.SMBI (a read that finds it clear takes it) guards SWESMBI, which guards GSSR; a GSSR
 * resource is ours when its software bit is set and its firmware bit (<< 5) is clear.
 * Linux: IXGBE_SWSM_8259X. */
#define IXGBE_SWSM 0x10140
#define IXGBE_SWSM_SMBI 0x00000001UL
#define IXGBE_SWSM_SWESMBI 0x00000002UL
#define IXGBE_GSSR 0x10160
#define IXGBE_GSSR_PHY0_SM 0x0002UL    /* LAN 0's PHY and I2C */
#define IXGBE_GSSR_PHY1_SM 0x0004UL    /* LAN 1's */
#define IXGBE_GSSR_MAC_CSR_SM 0x0008UL /* MAC control registers (AUTOC, CORECTL) */
#define IXGBE_GSSR_FW_SHIFT 5
#define IXGBE_SEMAPHORE_TIMEOUT_US 200000

/* CORECTL: Core Analog Configuration (§8.2.3.22.x): the NVM's SFP+ init words go here. */
#define IXGBE_CORECTL 0x014F00
/* ANLP1: Auto-Negotiation Link Partner 1 (§8.2.3.22.x); AN_STATE leaves 0 once the MAC's link
 * state machine has taken an AUTOC restart: the pipeline reset waits for that. */
#define IXGBE_ANLP1 0x042B0
#define IXGBE_ANLP1_AN_STATE_MASK 0x000F0000UL
#define IXGBE_PIPELINE_RESET_TIMEOUT_US 40000
/* LESM (link establishment state machine in firmware): enabled when the NVM says so, at
 * word (word (FW_PTR) + LESM_PARAMETERS_PTR) + LESM_STATE_1; then AUTOC is written under the
 * MAC CSR semaphore. */
#define IXGBE_FW_LESM_PARAMETERS_PTR 0x2
#define IXGBE_FW_LESM_STATE_1 0x1
#define IXGBE_FW_LESM_STATE_ENABLED 0x8000

/* Link flow control, IEEE 802.3x PAUSE (§3.7.7; registers §8.2.3.3, one traffic class): the
 * MAC honours PAUSE (MFLCN.RFCE) and sends XOFF when the RX packet buffer reaches FCRTH, XON
 * when it falls to FCRTL (FCCFG.TFCE_802_3X); thresholds in bytes, 32-byte granularity. */
#define IXGBE_FCCFG 0x03D00
#define IXGBE_FCCFG_TFCE_802_3X 0x00000008UL
#define IXGBE_MFLCN 0x04294
#define IXGBE_MFLCN_DPF 0x00000002UL  /* discard PAUSE frames (never to the host) */
#define IXGBE_MFLCN_RFCE 0x00000008UL /* act on received PAUSE */
#define IXGBE_FCRTL_82599(n) (0x03220 + 4 * (n))
#define IXGBE_FCRTL_XONE 0x80000000UL
#define IXGBE_FCRTH_82599(n) (0x03260 + 4 * (n))
#define IXGBE_FCRTH_FCEN 0x80000000UL
#define IXGBE_FCTTV(n) (0x03200 + 4 * (n)) /* pause time sent, two classes per register */
#define IXGBE_FCRTV 0x032A0                 /* XOFF refresh interval */
/* Packet buffers (§4.6.11.3: DCB off, one traffic class): buffer 0 takes all of RX (512 KiB)
 * and TX (160 KiB); TXPBTHRESH[0] leaves room for one 10 KiB frame. Sizes in bytes (KiB << 10). */
#define IXGBE_RXPBSIZE(n) (0x03C00 + 4 * (n))
#define IXGBE_TXPBSIZE(n) (0x0CC00 + 4 * (n))
#define IXGBE_TXPBTHRESH(n) (0x04950 + 4 * (n)) /* KiB */
#define IXGBE_RXPBSIZE_MAX 0x00080000UL
#define IXGBE_TXPBSIZE_MAX 0x00028000UL
#define IXGBE_TXPKT_SIZE_MAX 0xA /* KiB: the largest frame TX may hold */
#define IXGBE_MAX_PB 8
#define IXGBE_LXONTXC 0x03F60   /* statistics, clear-on-read (§8.2.3.23) */
#define IXGBE_LXOFFTXC 0x03F68
#define IXGBE_LXONRXCNT 0x041A4
#define IXGBE_LXOFFRXCNT 0x041A8

/* MMNGC: MNG_VETO set by manageability firmware that must not lose the link: no link reset. */
#define IXGBE_MMNGC 0x042D0
#define IXGBE_MMNGC_MNG_VETO 0x00000001UL

/* EEC: EEPROM/Flash Control (§8.2.3.2.1). Linux: IXGBE_EEC_8259X. */
#define IXGBE_EEC 0x10010
#define IXGBE_EEC_ARD 0x00000200UL /* EEPROM Auto-Read Done after reset (§4.6.3) */
#define IXGBE_EEC_SIZE 0x00007800UL /* EE_SIZE: the NVM holds 2^(EE_SIZE + 6) words */
#define IXGBE_EEC_SIZE_SHIFT 11
#define IXGBE_EEPROM_WORD_SIZE_SHIFT 6
#define IXGBE_EEC_ARD_TIMEOUT_US 100000

/* GCR_EXT: PCIe Control Extended (§8.2.3.4). Only for the master-disable flush. */
#define IXGBE_GCR_EXT 0x11050
#define IXGBE_GCR_EXT_BUFFERS_CLEAR 0x40000000UL /* Buffers_Clear_Func: flush internal buffers */
#define IXGBE_BUFFERS_CLEAR_US 20                /* Specification Update: hold it 20 us */

/*
 * Interrupts (§8.2.3.5, flow in §7.3). In MSI-X mode EICR bits 15:0 are the causes of vectors
 * 0-15 and bits 30:16 "other" causes (LSC ...), routed to a vector by IVAR_MISC. EIMS/EIMC bits
 * 15:0 mask vectors 0-15 only; EIMS_EX/EIMC_EX/EIAM_EX(0) cover vectors 0-31 and (1) 32-63.
 */
#define IXGBE_EICR 0x00800 /* cause; write 1 to clear (read clears too outside MSI-X mode) */
#define IXGBE_EICR_RTX_QUEUE 0x0000FFFFUL /* vectors 0-15 (MSI-X mode) */
#define IXGBE_EICR_LSC 0x00100000UL       /* link status change */
#define IXGBE_EIMS 0x00880                /* mask set: write 1 to enable a cause */
#define IXGBE_EIMS_LSC IXGBE_EICR_LSC
#define IXGBE_EIMC 0x00888 /* mask clear: write 1 to disable a cause */
/* Every cause bit of EICR (30:0). Bit 31 is left alone: §4.6.3.1 disables "all interrupts" with
 * bits 30:0, and ixy does the same. */
#define IXGBE_EIMC_ALL_CAUSES 0x7FFFFFFFUL
#define IXGBE_EIAC 0x00810 /* auto-clear: EICR bit cleared when its MSI-X message is sent */
#define IXGBE_EIMS_EX(i) (0x00AA0 + 4 * (i))
#define IXGBE_EIMC_EX(i) (0x00AB0 + 4 * (i))
#define IXGBE_EIAM_EX(i) (0x00AD0 + 4 * (i)) /* auto-mask: EIMS bit cleared on the message */

/* GPIE: General Purpose Interrupt Enable (§8.2.3.5). */
#define IXGBE_GPIE 0x00898
#define IXGBE_GPIE_MSIX_MODE 0x00000010UL   /* one EICR bit per MSI-X vector */
#define IXGBE_GPIE_OCD 0x00000020UL         /* Other Clear Disable (set in MSI-X mode) */
#define IXGBE_GPIE_EIAME 0x40000000UL       /* EIAM applies on MSI-X message send */
#define IXGBE_GPIE_PBA_SUPPORT 0x80000000UL /* MSI-X PBA bits track pending vectors */

/* EITR: interrupt throttle per vector (§8.2.3.5, §7.3). ITR_INTERVAL, bits 11:3, counts
 * 2.048 us at 1 and 10 Gb/s (20.48 us at 100 Mb/s); 0 = no throttling. */
#define IXGBE_EITR(i) ((i) <= 23 ? 0x00820 + 4 * (i) : 0x12300 + 4 * ((i) - 24))
#define IXGBE_EITR_ITR_INT_MASK 0x00000FF8UL
#define IXGBE_EITR_ITR_INT_SHIFT 3
#define IXGBE_EITR_MAX_US 1022 /* 511 units of 2 us: the largest interval the field holds */

/* IVAR[n] (§8.2.3.5, §7.3): four one-byte entries, byte 0 = RX queue 2n, byte 1 = TX queue 2n,
 * byte 2 = RX queue 2n+1, byte 3 = TX queue 2n+1; each a vector number (bits 5:0) and a valid
 * bit. IVAR_MISC: byte 0 = TCP timer, byte 1 = other causes (link). */
#define IXGBE_IVAR(i) (0x00900 + 4 * (i))
#define IXGBE_IVAR_MISC 0x00A00
#define IXGBE_IVAR_ALLOC_VAL 0x80 /* entry valid */

/* Receive filters and offloads (§8.2.3.7). */
#define IXGBE_FCTRL 0x05080          /* Filter Control */
#define IXGBE_FCTRL_MPE 0x00000100UL /* multicast promiscuous */
#define IXGBE_FCTRL_UPE 0x00000200UL /* unicast promiscuous */
#define IXGBE_FCTRL_BAM 0x00000400UL /* accept broadcast */
#define IXGBE_RXCSUM 0x05000
#define IXGBE_RXCSUM_PCSD 0x00002000UL /* the descriptor carries the RSS hash, not a checksum */
#define IXGBE_MRQC 0x05818             /* Multiple Receive Queues Command */
#define IXGBE_MRQC_RSSEN 0x00000001UL  /* MRQE = 0001b: RSS only (no DCB, no pools) */
#define IXGBE_MRQC_RSS_FIELD_IPV4_TCP 0x00010000UL
#define IXGBE_MRQC_RSS_FIELD_IPV4 0x00020000UL
#define IXGBE_MRQC_RSS_FIELD_IPV4_UDP 0x00400000UL
#define IXGBE_MRQC_RSS_FIELD_IPV6 0x00100000UL     /* IPv6 addresses */
#define IXGBE_MRQC_RSS_FIELD_IPV6_TCP 0x00200000UL /* and the TCP ports */
#define IXGBE_MRQC_RSS_FIELD_IPV6_UDP 0x00800000UL /* and the UDP ports */
/* RETA (§7.1.2.8, RSS): 32 registers x 4 one-byte entries = 128 entries; entry i is byte i%4 of
 * RETA(i/4) and holds a queue index in its bits 3:0 (RSS alone spreads over 16 queues). */
#define IXGBE_RETA(i) (0x05C00 + 4 * (i))
#define IXGBE_RETA_REGS 32
/* RSSRK: the 40-byte hash key, byte 4i in bits 7:0 of RSSRK(i). */
#define IXGBE_RSSRK(i) (0x05C80 + 4 * (i))
#define IXGBE_RSSRK_REGS 10
/* Receive Address n (RAL/RAH), loaded for n = 0 from the EEPROM (§8.2.3.7). */
#define IXGBE_RAL(i) (0x0A200 + 8 * (i))
#define IXGBE_RAH(i) (0x0A204 + 8 * (i))
#define IXGBE_RAH_AV 0x80000000UL /* address valid */
#define IXGBE_MPSAR_LO(i) (0x0A600 + 8 * (i)) /* pools 31:0 that receive address i feeds */

/* Receive DMA (§8.2.3.8). */
#define IXGBE_RXCTRL 0x03000
#define IXGBE_RXCTRL_RXEN 0x00000001UL /* receive enable: the last step of §4.6.7 */
#define IXGBE_RDRXCTL 0x02F00          /* Receive DMA Control */
#define IXGBE_RDRXCTL_CRCSTRIP 0x00000002UL /* must equal HLREG0.RXCRCSTRP */
#define IXGBE_RDRXCTL_DMAIDONE 0x00000008UL /* DMA init done after reset; read-only */
#define IXGBE_RDRXCTL_RSCFRSTSIZE 0x003E0000UL /* §4.6.7: set to 0, not its reset value */
#define IXGBE_RDRXCTL_RSCACKC 0x02000000UL     /* must be written 1 (RDRXCTL description) */
#define IXGBE_RDRXCTL_FCOE_WRFIX 0x04000000UL  /* must be written 1 (RDRXCTL description) */
#define IXGBE_DMAIDONE_TIMEOUT_US 100000

/* Per RX queue n = 0..127. */
#define IXGBE_RDBAL(i) ((i) < 64 ? 0x01000 + 0x40 * (i) : 0x0D000 + 0x40 * ((i) - 64))
#define IXGBE_RDBAH(i) ((i) < 64 ? 0x01004 + 0x40 * (i) : 0x0D004 + 0x40 * ((i) - 64))
#define IXGBE_RDLEN(i) ((i) < 64 ? 0x01008 + 0x40 * (i) : 0x0D008 + 0x40 * ((i) - 64))
#define IXGBE_DCA_RXCTRL(i) ((i) < 64 ? 0x0100C + 0x40 * (i) : 0x0D00C + 0x40 * ((i) - 64))
/* Bit 12 reads 1 after reset and §4.6.7's last step says to clear it (the register table
 * marks it reserved); Linux has no name for it. */
#define IXGBE_DCA_RXCTRL_BIT12 0x00001000UL
#define IXGBE_RDH(i) ((i) < 64 ? 0x01010 + 0x40 * (i) : 0x0D010 + 0x40 * ((i) - 64))
#define IXGBE_SRRCTL(i) ((i) < 64 ? 0x01014 + 0x40 * (i) : 0x0D014 + 0x40 * ((i) - 64))
/* BSIZEPACKET (bits 4:0) counts 1 KiB: the field is the buffer size in bytes >> 10. */
#define IXGBE_SRRCTL_BSIZEPKT_SHIFT 10
#define IXGBE_SRRCTL_DESCTYPE_ADV_ONEBUF 0x02000000UL /* DESCTYPE 27:25 = 001b */
#define IXGBE_SRRCTL_DROP_EN 0x10000000UL /* drop, not stall, when the queue has no descriptor */
#define IXGBE_RDT(i) ((i) < 64 ? 0x01018 + 0x40 * (i) : 0x0D018 + 0x40 * ((i) - 64))
#define IXGBE_RXDCTL(i) ((i) < 64 ? 0x01028 + 0x40 * (i) : 0x0D028 + 0x40 * ((i) - 64))
#define IXGBE_RXDCTL_ENABLE 0x02000000UL /* reads 1 only once the queue is really enabled */
/* VME: this queue strips 802.1Q tags (TPID VLNCTRL.VET, 0x8100 from reset) into the write-back
 * (§8.2.3.8.6, §7.1.6.2: VP, VLAN Tag). Insertion needs nothing global: DMATXCTL.VT keeps its
 * reset value 0x8100 (the driver only ever sets TE in it, by read-modify-write). */
#define IXGBE_RXDCTL_VME 0x40000000UL
#define IXGBE_QUEUE_ENABLE_TIMEOUT_US 10000

/* SECRXCTRL / SECRXSTAT (security block): the RX security path must be idle while RXEN is
 * set (§4.6.7 step 11; Linux calls it a workaround for an 82599 erratum that hangs RX DMA). */
#define IXGBE_SECRXCTRL 0x08D00
#define IXGBE_SECRXCTRL_RX_DIS 0x00000002UL
#define IXGBE_SECRXSTAT 0x08D04
#define IXGBE_SECRXSTAT_SECRX_RDY 0x00000001UL
#define IXGBE_SECRX_RDY_TIMEOUT_US 40000

/* MAC core (§8.2.3.22). HLREG0 has reserved bits we must keep: read-modify-write it. */
#define IXGBE_HLREG0 0x04240
#define IXGBE_HLREG0_TXCRCEN 0x00000001UL   /* append the Ethernet FCS on transmit */
#define IXGBE_HLREG0_RXCRCSTRP 0x00000002UL /* strip the FCS on receive */
#define IXGBE_HLREG0_JUMBOEN 0x00000004UL
#define IXGBE_MAXFRS 0x04268 /* MFS (31:16): the largest frame taken with JUMBOEN, FCS included */
#define IXGBE_MHADD_MFS_SHIFT 16 /* MAXFRS is the 82598 MHADD's successor: same field */
#define IXGBE_HLREG0_TXPADEN 0x00000400UL /* pad short frames to 64 bytes */
#define IXGBE_HLREG0_LPBK 0x00008000UL    /* MAC loopback: only for the master-disable flush */

/* AUTOC: Auto-Negotiation Control (§8.2.3.22.19). The EEPROM loads it per board after reset. */
#define IXGBE_AUTOC 0x042A0
#define IXGBE_AUTOC_AN_RESTART 0x00001000UL /* Restart_AN: apply AUTOC, restart link; self-clear */
#define IXGBE_AUTOC_LMS_SHIFT 13            /* Link Mode Select, bits 15:13 */
#define IXGBE_AUTOC_LMS_MASK (0x7UL << IXGBE_AUTOC_LMS_SHIFT)
#define IXGBE_AUTOC_LMS_1G_LINK_NO_AN (0x0UL << IXGBE_AUTOC_LMS_SHIFT)
#define IXGBE_AUTOC_LMS_10G_LINK_NO_AN (0x1UL << IXGBE_AUTOC_LMS_SHIFT) /* XAUI/CX4 parallel */
#define IXGBE_AUTOC_LMS_1G_AN (0x2UL << IXGBE_AUTOC_LMS_SHIFT)          /* clause 37 */
#define IXGBE_AUTOC_LMS_10G_SERIAL (0x3UL << IXGBE_AUTOC_LMS_SHIFT) /* SFI/KR/XFI, no AN */
#define IXGBE_AUTOC_LMS_KX4_KX_KR (0x4UL << IXGBE_AUTOC_LMS_SHIFT)  /* backplane, clause 73 */
#define IXGBE_AUTOC_LMS_SGMII_1G_100M (0x5UL << IXGBE_AUTOC_LMS_SHIFT)
#define IXGBE_AUTOC_LMS_KX4_KX_KR_1G_AN (0x6UL << IXGBE_AUTOC_LMS_SHIFT)
#define IXGBE_AUTOC_LMS_KX4_KX_KR_SGMII (0x7UL << IXGBE_AUTOC_LMS_SHIFT)
#define IXGBE_AUTOC_1G_PMA_PMD_MASK 0x00000200UL /* 1G PMA/PMD: 0 = SFI (on SFP boards) */

/* AUTOC2 (§8.2.3.22.21): which 10G serial PMA/PMD LMS = 10G_SERIAL drives. */
#define IXGBE_AUTOC2 0x042A8
#define IXGBE_AUTOC2_10G_SERIAL_PMA_PMD_SHIFT 16
#define IXGBE_AUTOC2_10G_SERIAL_PMA_PMD_MASK (0x3UL << IXGBE_AUTOC2_10G_SERIAL_PMA_PMD_SHIFT)
#define IXGBE_AUTOC2_10G_KR (0x0UL << IXGBE_AUTOC2_10G_SERIAL_PMA_PMD_SHIFT)
#define IXGBE_AUTOC2_10G_XFI (0x1UL << IXGBE_AUTOC2_10G_SERIAL_PMA_PMD_SHIFT)
#define IXGBE_AUTOC2_10G_SFI (0x2UL << IXGBE_AUTOC2_10G_SERIAL_PMA_PMD_SHIFT)
#define IXGBE_AUTOC2_LINK_DISABLE_MASK 0x70000000UL /* NVM may load these: the link is held off */

/* LINKS: Link Status (§8.2.3.22.20). Bit 7 ("link status" in early datasheets) is reserved
 * since Specification Update rev 3.7 (specification change 12): use LINK_UP, bit 30. */
#define IXGBE_LINKS 0x042A4
#define IXGBE_LINKS_UP 0x40000000UL          /* Link Up */
#define IXGBE_LINKS_SPEED_82599 0x30000000UL /* LINK_SPEED, bits 29:28 */
#define IXGBE_LINKS_SPEED_100_82599 0x10000000UL
#define IXGBE_LINKS_SPEED_1G_82599 0x20000000UL
#define IXGBE_LINKS_SPEED_10G_82599 0x30000000UL
/* Link-up wait at init (§4.6.4). Link down then is reported, not fatal: housekeeping polls. */
#define IXGBE_LINK_UP_TIMEOUT_US 1000000

/* Transmit (§8.2.3.9). DMATXCTL.TE must be set before any TX queue is enabled (§4.6.8). */
#define IXGBE_DMATXCTL 0x04A80
#define IXGBE_DMATXCTL_TE 0x00000001UL
/* RTTDCS: DCB transmit descriptor plane control (§8.2.3.10). §4.6.8 brackets the TX buffer and
 * queue-layout setup with ARBDIS = 1 ... 0; we keep the reset layout (MTQC = 64 queues, one
 * packet buffer, TXPBSIZE[0] = 160 KB) but clear ARBDIS so the arbiter surely runs. */
#define IXGBE_RTTDCS 0x04900
#define IXGBE_RTTDCS_ARBDIS 0x00000040UL

/* Per TX queue n = 0..127: one range. */
#define IXGBE_TDBAL(i) (0x06000 + 0x40 * (i))
#define IXGBE_TDBAH(i) (0x06004 + 0x40 * (i))
#define IXGBE_TDLEN(i) (0x06008 + 0x40 * (i))
#define IXGBE_TDH(i) (0x06010 + 0x40 * (i))
#define IXGBE_TDT(i) (0x06018 + 0x40 * (i))
/* TXDCTL (§8.2.3.9.10): PTHRESH 6:0 (prefetch), HTHRESH 14:8 (host), WTHRESH 22:16 (write-back),
 * ENABLE 25 (reads 1 once enabled). */
#define IXGBE_TXDCTL(i) (0x06028 + 0x40 * (i))
#define IXGBE_TXDCTL_PTHRESH_SHIFT 0
#define IXGBE_TXDCTL_HTHRESH_SHIFT 8
#define IXGBE_TXDCTL_WTHRESH_SHIFT 16
#define IXGBE_TXDCTL_ENABLE 0x02000000UL

/*
 * Statistics (§8.2.3.23). Every counter used here is clear-on-read (RC), so core 0 adds each
 * read into a 64-bit total; nothing wraps between reads that come every 100 ms. The octet
 * counters are 36 bits: low 32 in ...L, bits 35:32 in ...H bits 3:0; read L, then H.
 */
#define IXGBE_CRCERRS 0x04000
#define IXGBE_MPC(i) (0x03FA0 + 4 * (i))  /* missed: no room in packet buffer i (0-7) */
#define IXGBE_RNBC(i) (0x03FC0 + 4 * (i)) /* no descriptor free, packet buffer i (0-7) */
#define IXGBE_GPRC 0x04074                /* good packets received */
#define IXGBE_BPRC 0x04078                /* broadcast packets received */
#define IXGBE_MPRC 0x0407C                /* multicast packets received */
#define IXGBE_GPTC 0x04080                /* good packets transmitted */
#define IXGBE_GORCL 0x04088               /* good octets received */
#define IXGBE_GORCH 0x0408C
#define IXGBE_GOTCL 0x04090 /* good octets transmitted */
#define IXGBE_GOTCH 0x04094
#define IXGBE_STAT36_HIGH_MASK 0x0000000FUL /* bits 35:32 in the ...H register */
#define IXGBE_RUC 0x040A4                   /* receive undersize */
#define IXGBE_ROC 0x040AC                   /* receive oversize */
/* Per-queue statistics: 16 counter sets; RQSMR(i) byte b maps RX queue 4i+b to a set (3:0). */
#define IXGBE_RQSMR(i) (0x02300 + 4 * (i))
#define IXGBE_QPRDC(i) (0x01430 + 0x40 * (i)) /* set i: packets dropped for lack of descriptors */
#define IXGBE_QSTAT_SETS 16
#define IXGBE_PACKET_BUFFERS 8 /* MPC/RNBC instances; all traffic uses buffer 0 (no DCB) */

#endif
