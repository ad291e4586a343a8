/*
 * drivers/nic/igb_regs.h: the Intel 82576 (igb) registers this driver touches, and only those.
 * Offsets and bits from the 82576 GbE Controller Datasheet, revision 2.x, chapter 8
 * ("Programming Interface"); cross-checked against QEMU's igb model (hw/net/igb_regs.h), which
 * is what CI runs on. Per-queue registers are a queue block base plus a shared offset.
 */
#ifndef WS_IGB_REGS_H
#define WS_IGB_REGS_H

#define IGB_VENDOR_INTEL 0x8086
#define IGB_DEVICE_82576 0x10C9 /* 82576 copper; the ID QEMU's igb presents */
#define IGB_DEVICE_82576_FIBER 0x10E6
#define IGB_DEVICE_82576_SERDES 0x10E7
#define IGB_DEVICE_82576_NS 0x150A
#define IGB_MAX_QUEUES 8   /* RSS spreads over at most 8 queues without VMDq (8.10.14) */
#define IGB_MSIX_VECTORS 25 /* MSI-X table entries (6.1.2 / PCI capability) */

/* CTRL: Device Control (8.2.1). */
#define IGB_CTRL 0x00000
#define IGB_CTRL_SLU 0x00000040UL /* set link up */
/* VME: strip 802.1Q tags (TPID VET, 0x8100 from reset) on receive into the write-back (VP, VLAN
 * Tag; with MRQC not in a VMDq mode, 7.4.x) and take VLE on transmit (8.2.1, 7.2.2.3). */
#define IGB_CTRL_VME 0x40000000UL
#define IGB_CTRL_RST 0x04000000UL /* device reset; self-clearing */
#define IGB_RESET_DELAY_US 3000   /* 4.5.2: wait at least 1 ms before the next register access */
#define IGB_RESET_TIMEOUT_US 100000

/* STATUS: Device Status (8.2.2). */
#define IGB_STATUS 0x00008
#define IGB_STATUS_LU 0x00000002UL      /* link up */
#define IGB_STATUS_SPEED_MASK 0x000000C0UL
#define IGB_STATUS_SPEED_100 0x00000040UL
#define IGB_STATUS_SPEED_1000 0x00000080UL
#define IGB_STATUS_FD 0x00000001UL      /* full duplex */

/* EECD: EEPROM/Flash Control (8.2.4). */
#define IGB_EECD 0x00010
#define IGB_EECD_AUTO_RD 0x00000200UL /* hardware finished reading the NVM after reset */
#define IGB_EECD_TIMEOUT_US 10000

/* MDIC: MDI Control, access to the internal PHY's MII registers (8.2.5). */
#define IGB_MDIC 0x00020
#define IGB_MDIC_DATA_MASK 0x0000FFFFUL
#define IGB_MDIC_REG_SHIFT 16
#define IGB_MDIC_PHY_SHIFT 21
#define IGB_MDIC_PHY_INTERNAL 1UL /* the 82576's internal copper PHY answers at address 1 */
#define IGB_MDIC_OP_WRITE 0x04000000UL
#define IGB_MDIC_OP_READ 0x08000000UL
#define IGB_MDIC_READY 0x10000000UL
#define IGB_MDIC_ERROR 0x40000000UL
#define IGB_MDIC_TIMEOUT_US 10000
/* PHY registers (IEEE 802.3 clause 22). */
#define IGB_PHY_BMCR 0
#define IGB_PHY_BMCR_ANRESTART 0x0200
#define IGB_PHY_BMCR_AUTOEN 0x1000

/* CTRL_EXT: Extended Device Control (8.2.3). */
#define IGB_CTRL_EXT 0x00018
#define IGB_CTRL_EXT_DRV_LOAD 0x10000000UL /* tells firmware a driver owns the device */

/* Interrupt registers (8.8). ICR/IMS/IMC carry the "other" causes (link change). */
#define IGB_ICR 0x000C0
#define IGB_ICR_LSC 0x00000004UL /* link status change */
#define IGB_IMS 0x000D0
#define IGB_IMC 0x000D8
#define IGB_IMC_ALL 0xFFFFFFFFUL
#define IGB_EICS 0x01520
#define IGB_EIMS 0x01524
#define IGB_EIMC 0x01528
#define IGB_EIAC 0x0152C /* extended auto-clear: EICR bit cleared when its MSI-X message is sent */
#define IGB_EIAM 0x01530
#define IGB_EICR 0x01580
#define IGB_GPIE 0x01514 /* General Purpose Interrupt Enable (8.8.16) */
#define IGB_GPIE_NSICR 0x00000001UL     /* non-selective interrupt clear on read */
#define IGB_GPIE_MSIX_MODE 0x00000010UL /* one EICR bit per MSI-X vector */
#define IGB_GPIE_EIAME 0x40000000UL
#define IGB_GPIE_PBA 0x80000000UL       /* PBA support: required with MSI-X */
#define IGB_EITR(v) (0x01680 + 4 * (v)) /* interrupt throttle per vector (8.8.12) */
#define IGB_EITR_INTERVAL_SHIFT 2       /* interval field bits 14:2, in microseconds */
#define IGB_EITR_INTERVAL_MASK 0x00007FFCUL
#define IGB_EITR_MAX_US 8191
/* IVAR0[n] (8.8.15): byte 0 = RX queue n, byte 1 = TX queue n, byte 2 = RX n+8, byte 3 = TX n+8;
 * each byte is a vector number (bits 4:0) plus a valid bit. */
#define IGB_IVAR0(n) (0x01700 + 4 * (n))
#define IGB_IVAR_MISC 0x01740 /* byte 1: vector for "other" causes (link) */
#define IGB_IVAR_VALID 0x80

/* Receive (8.10). */
#define IGB_RCTL 0x00100
#define IGB_RCTL_EN 0x00000002UL
#define IGB_RCTL_UPE 0x00000008UL   /* unicast promiscuous */
#define IGB_RCTL_MPE 0x00000010UL   /* multicast promiscuous */
#define IGB_RCTL_LPE 0x00000020UL   /* long packets */
#define IGB_RCTL_BAM 0x00008000UL   /* accept broadcast */
#define IGB_RCTL_SECRC 0x04000000UL /* strip Ethernet CRC */
#define IGB_RLPML 0x05004 /* long packet maximum length, used with RCTL.LPE; FCS included */
#define IGB_RXCSUM 0x05000
#define IGB_RXCSUM_PCSD 0x00002000UL /* write the RSS hash, not a checksum, into descriptors */
#define IGB_RXCSUM_TUOFL 0x00000200UL /* check TCP/UDP checksums on receive (L4I, L4E) */
#define IGB_RXCSUM_IPOFL 0x00000100UL /* check IPv4 header checksums on receive (IPCS, IPE) */
#define IGB_MRQC 0x05818             /* Multiple Receive Queues Command (8.10.14) */
#define IGB_MRQC_ENABLE_RSS 0x00000002UL
#define IGB_MRQC_RSS_IPV4_TCP 0x00010000UL
#define IGB_MRQC_RSS_IPV4 0x00020000UL
#define IGB_MRQC_RSS_IPV4_UDP 0x00400000UL
#define IGB_MRQC_RSS_IPV6 0x00100000UL     /* IPv6 addresses (no extension headers parsed) */
#define IGB_MRQC_RSS_IPV6_TCP 0x00200000UL /* and the TCP ports */
#define IGB_MRQC_RSS_IPV6_UDP 0x00800000UL /* and the UDP ports */
#define IGB_RETA(n) (0x05C00 + 4 * (n)) /* 32 registers x 4 one-byte entries = 128 entries */
#define IGB_RETA_ENTRIES 128
#define IGB_RSSRK(n) (0x05C80 + 4 * (n)) /* 40-byte key, little-endian within each register */
#define IGB_RSSRK_REGS 10
#define IGB_RAL0 0x05400
#define IGB_RAH0 0x05404
#define IGB_RAH_AV 0x80000000UL /* address valid */
#define IGB_MTA(n) (0x05200 + 4 * (n))
#define IGB_MTA_REGS 128

/* Per-queue receive block (8.10.x): queue n at 0x0C000 + 0x40 * n. */
#define IGB_RXQ_BASE(n) (0x0C000 + 0x40 * (n))
#define IGB_RDBAL 0x00
#define IGB_RDBAH 0x04
#define IGB_RDLEN 0x08
#define IGB_SRRCTL 0x0C
#define IGB_SRRCTL_BSIZEPKT_SHIFT 0      /* packet buffer size in 1 KiB units, bits 6:0 */
#define IGB_SRRCTL_DESCTYPE_ADV_ONEBUF 0x02000000UL /* bits 27:25 = 001b */
#define IGB_SRRCTL_DROP_EN 0x80000000UL  /* drop, do not stall, when this queue has no descriptor */
#define IGB_RDH 0x10
#define IGB_RDT 0x18
#define IGB_RXDCTL 0x28
#define IGB_RXDCTL_ENABLE 0x02000000UL
#define IGB_RQDPC 0x30 /* per-queue drop packet count, clear on read */

/* Transmit (8.12). */
#define IGB_TCTL 0x00400
#define IGB_TCTL_EN 0x00000002UL
#define IGB_TCTL_PSP 0x00000008UL /* pad short packets */
#define IGB_TXQ_BASE(n) (0x0E000 + 0x40 * (n))
#define IGB_TDBAL 0x00
#define IGB_TDBAH 0x04
#define IGB_TDLEN 0x08
#define IGB_TDH 0x10
#define IGB_TDT 0x18
#define IGB_TXDCTL 0x28
#define IGB_TXDCTL_ENABLE 0x02000000UL
#define IGB_QUEUE_ENABLE_TIMEOUT_US 10000

/* Statistics (8.19): all clear on read, so one core reads them and accumulates 64-bit totals.
 * The 64-bit octet counters are read low then high (reading high clears both). */
#define IGB_CRCERRS 0x04000
#define IGB_MPC 0x04010   /* missed packets: no room in the packet buffer */
#define IGB_RUC 0x040A4   /* receive undersize (runts) */
#define IGB_ROC 0x040AC   /* receive oversize */
#define IGB_RNBC 0x040A0  /* receive no buffers (no descriptor) */
#define IGB_GPRC 0x04074  /* good packets received */
#define IGB_BPRC 0x04078  /* broadcast packets received */
#define IGB_MPRC 0x0407C  /* multicast packets received */
#define IGB_GPTC 0x04080  /* good packets transmitted */
#define IGB_GORCL 0x04088 /* good octets received */
#define IGB_GORCH 0x0408C
#define IGB_GOTCL 0x04090 /* good octets transmitted */
#define IGB_GOTCH 0x04094
#define IGB_TPR 0x040D0   /* total packets received */
#define IGB_TPT 0x040D4   /* total packets transmitted */

#endif
