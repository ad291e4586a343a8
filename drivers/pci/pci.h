/*
 * drivers/pci/pci.h: PCI configuration space (ECAM from ACPI MCFG, legacy 0xCF8 as fallback),
 * enumeration, capability walk and BAR sizing. PCI Local Bus 3.0 chapter 6; PCI Express Base
 * 4.0 section 7.2.2 (ECAM). Boot core, init time only.
 */
#ifndef WS_PCI_H
#define WS_PCI_H

#include <stdbool.h>
#include <stdint.h>

#include "acpi.h"

/* Functions kept after enumeration: network controllers (the only class a driver here takes)
 * and the bridges above them. Every function found is reported; a server's hundreds of others
 * (root ports, storage, management) cost a console line, not a slot. */
#define PCI_MAX_DEVICES 64  /* network controllers */
#define PCI_MAX_BRIDGES 512 /* PCI-to-PCI bridges (root ports, switch ports) */
#define PCI_CLASS_NETWORK 0x02
#define PCI_NUM_BARS 6

/* Standard configuration space header (type 0), PCI 3.0 section 6.1. */
#define PCI_VENDOR_ID 0x00
#define PCI_DEVICE_ID 0x02
#define PCI_COMMAND 0x04
#define PCI_COMMAND_IO 0x0001
#define PCI_COMMAND_MEMORY 0x0002
#define PCI_COMMAND_MASTER 0x0004
#define PCI_COMMAND_INTX_DISABLE 0x0400
#define PCI_STATUS 0x06
#define PCI_STATUS_CAP_LIST 0x0010
#define PCI_CLASS_REVISION 0x08 /* class code 31:8, revision 7:0 */
#define PCI_HEADER_TYPE 0x0E
#define PCI_HEADER_MULTIFUNCTION 0x80
#define PCI_BAR0 0x10
#define PCI_BAR_IO 0x1
#define PCI_BAR_MEM_TYPE_MASK 0x6
#define PCI_BAR_MEM_64 0x4
#define PCI_BAR_PREFETCH 0x8
#define PCI_CAP_PTR 0x34
/* Type 1 (PCI-to-PCI bridge) header, PCI-to-PCI Bridge Architecture 1.2 section 3.2. */
#define PCI_HEADER_TYPE_MASK 0x7F
#define PCI_HEADER_TYPE_BRIDGE 0x01
#define PCI_SECONDARY_BUS 0x19
#define PCI_SUBORDINATE_BUS 0x1A
#define PCI_CAP_ID_MSI 0x05
#define PCI_CAP_ID_PCIE 0x10
#define PCI_CAP_ID_MSIX 0x11

struct pci_bar {
    uint64_t base; /* physical address (memory) or port (I/O); 0 if unimplemented */
    uint64_t size;
    bool io;
    bool is64;
    bool prefetch;
};

struct pci_dev {
    uint16_t segment;
    uint8_t bus, dev, fn;
    uint16_t vendor, device;
    uint32_t class_rev;
    uint8_t header_type;
    struct pci_bar bar[PCI_NUM_BARS];
    uint8_t msix_cap; /* config offset of the MSI-X capability, 0 if none */
    bool broken;      /* malformed BAR or capability list: reported, never driven */
    bool has_node;    /* network functions: the firmware says which NUMA node it hangs off */
    uint32_t node;    /* that node: its root bridge's _PXM (ACPI 6.5 6.2.14) */
    bool claimed;     /* a driver took it */
};

/* pci_init: take every MCFG window (each segment group's bus range; port 0xCF8 for segment 0
 * if none covers it), enumerate every bus of each, size BARs, walk capabilities. Prints one
 * line per window and per function found. Returns the network function count. */
unsigned pci_init(const struct acpi_info *acpi);
unsigned pci_device_count(void);
struct pci_dev *pci_device(unsigned i);
/* pci_bdf: "0000:00:02.0" into buf (at least 13 bytes); returns buf. */
const char *pci_bdf(const struct pci_dev *d, char *buf);

uint32_t pci_read32(const struct pci_dev *d, uint16_t off);
uint16_t pci_read16(const struct pci_dev *d, uint16_t off);
uint8_t pci_read8(const struct pci_dev *d, uint16_t off);
void pci_write32(const struct pci_dev *d, uint16_t off, uint32_t v);
void pci_write16(const struct pci_dev *d, uint16_t off, uint16_t v);

/* pci_find_cap: config offset of capability `id`, 0 if absent (list already validated). */
uint8_t pci_find_cap(const struct pci_dev *d, uint8_t id);
/* pci_enable: memory decoding and bus mastering on, legacy INTx off (we use MSI-X only), and
 * memory forwarding and bus mastering on every bridge between d and the root complex: a
 * bridge with Bus Master off does not forward d's DMA upstream (PCI-to-PCI Bridge
 * Architecture 1.2 section 3.2.5.1), and firmware often leaves a root port's off. */
void pci_enable(struct pci_dev *d);

#endif
