/*
 * kernel/acpi.h: finds and parses the static ACPI tables the firmware needs to bring up cores,
 * route interrupts and reach PCI config space (ACPI 6.5 §5.2; PCI Firmware 3.3 §4.1.2 for MCFG;
 * IA-PC HPET 1.0a §3.2.4). Nothing here trusts the tables: bad input gives a message.
 */
#ifndef WS_ACPI_H
#define WS_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aml.h"
#include "param.h"
#include "physmem.h"

#define ACPI_RSDP_V1_BYTES 20 /* ACPI 1.0 RSDP: covered by the first checksum */
#define ACPI_RSDP_V2_BYTES 36 /* revision >= 2: length field, XSDT, extended checksum */
#define ACPI_MAX_ISOS 16      /* interrupt source overrides: one per ISA IRQ at most */
#define ACPI_MAX_WARNINGS 4
#define ACPI_WARNING_BYTES 96
/*
 * Largest table we checksum. The tables we read are small (a MADT for 4096 x2APIC CPUs is
 * 64 KiB); the cap keeps a garbage length from making us sum gigabytes of RAM.
 */
#define ACPI_MAX_TABLE_BYTES (1024 * 1024)

/* One processor from the MADT (type 0 Processor Local APIC or type 9 Local x2APIC). */
struct acpi_cpu {
    uint32_t apic_id;
    uint32_t uid;     /* ACPI processor UID, for matching against the namespace */
    bool enabled;     /* false: online capable only (hot-pluggable, not present now) */
};

/* MADT type 1 I/O APIC. */
struct acpi_ioapic {
    uint32_t id;
    uint32_t phys;     /* MMIO base */
    uint32_t gsi_base; /* first global system interrupt it serves */
};

/* MADT type 2 Interrupt Source Override: ISA IRQ source is wired to GSI gsi. */
struct acpi_iso {
    uint8_t source;
    uint32_t gsi;
    uint16_t flags; /* MPS INTI flags: polarity bits 1:0, trigger mode bits 3:2 */
};

/* One MCFG allocation: ECAM for buses [bus_start, bus_end] of a segment group. */
struct acpi_mcfg_seg {
    uint64_t base;
    uint16_t segment;
    uint8_t bus_start;
    uint8_t bus_end;
};

/* SRAT (§5.2.16): which proximity domain (NUMA node) a CPU and a memory range belong to. */
#define ACPI_MAX_NUMA_RANGES 16
#define ACPI_MAX_NUMA_CPUS 256
struct acpi_numa_mem {
    uint32_t node;
    uint64_t base, len;
};
struct acpi_numa_cpu {
    uint32_t apic_id, node;
};

/* SLIT (§5.2.17): the relative distance between every two proximity domains (10 = within one,
 * 255 = unreachable), for the first ACPI_MAX_SLIT_NODES localities. */
#define ACPI_MAX_SLIT_NODES 8
#define ACPI_SLIT_LOCAL 10
#define ACPI_SLIT_REMOTE 20 /* what a distance is taken to be without SLIT (Linux's default) */

/* PCI root bridges kept from the namespace: a two-socket server has 4-12. */
#define ACPI_MAX_PCI_ROOTS 32

/* An IOMMU the firmware described (DMAR's DRHD or IVRS's IVHD): its kind, PCI segment and
 * register base. */
#define ACPI_MAX_IOMMUS 8
enum acpi_iommu_kind { ACPI_IOMMU_VTD = 1, ACPI_IOMMU_AMD = 2 };
struct acpi_iommu {
    uint8_t kind; /* enum acpi_iommu_kind */
    uint16_t segment;
    uint64_t base;
};

/* FADT RESET_REG (a Generic Address Structure, §5.2.3.2) and the value to write to it. */
struct acpi_reset {
    bool valid;
    uint8_t space; /* 0 system memory, 1 system I/O, 2 PCI config space */
    uint64_t addr;
    uint8_t value;
};

/*
 * Everything acpi_parse() found. Filled by the BSP during boot, read-only afterwards.
 * Counters named *_dropped count entries that did not fit their table here.
 */
struct acpi_info {
    uint8_t revision;  /* RSDP revision: 0 for ACPI 1.0, 2 for 2.0 and later */
    char oem_id[7];
    uint64_t root_phys;
    bool root_is_xsdt;

    /* MADT (§5.2.12). cpu[0..ncpu_enabled) are the enabled processors in MADT order, then
     * online-capable ones; processors with neither flag must not be used and are left out. */
    uint64_t lapic_phys; /* after any type 5 override */
    bool pcat_compat;    /* dual 8259s present: mask them before using the I/O APICs */
    struct acpi_cpu cpu[WS_MAX_CPUS];
    unsigned ncpu;
    unsigned ncpu_enabled;
    unsigned cpu_dropped;
    struct acpi_ioapic ioapic[WS_MAX_IOAPICS];
    unsigned nioapic;
    unsigned ioapic_dropped;
    struct acpi_iso iso[ACPI_MAX_ISOS];
    unsigned niso;
    unsigned iso_dropped;

    /* MCFG, optional: no segments means legacy port 0xCF8 config access only. */
    struct acpi_mcfg_seg mcfg[WS_MAX_MCFG_SEGMENTS];
    unsigned nmcfg;
    unsigned mcfg_dropped;

    /* HPET and FADT, optional. */
    bool has_hpet;
    uint64_t hpet_phys;
    bool has_fadt;
    uint16_t pm_tmr_port; /* the ACPI PM timer's I/O port, 0 if none */
    uint16_t spcr_port;   /* SPCR's console UART (I/O port), 0 if none */
    struct acpi_iommu iommu[ACPI_MAX_IOMMUS]; /* DMAR and IVRS, optional */
    /* PCI root bridges from the DSDT and SSDTs (kernel/aml.h), for their NUMA nodes. */
    struct aml_pci_root pci_root[ACPI_MAX_PCI_ROOTS];
    unsigned npci_root, pci_root_dropped;
    unsigned aml_tables; /* DSDT and SSDTs scanned */
    bool has_srat;        /* SRAT, optional: without it everything is node 0 */
    struct acpi_numa_mem numa_mem[ACPI_MAX_NUMA_RANGES];
    unsigned nnuma_mem, numa_mem_dropped;
    struct acpi_numa_cpu numa_cpu[ACPI_MAX_NUMA_CPUS];
    unsigned nnuma_cpu, numa_cpu_dropped;
    unsigned nslit;       /* SLIT's localities kept (0: no valid SLIT); beyond: slit_dropped */
    unsigned slit_dropped;
    uint8_t slit[ACPI_MAX_SLIT_NODES][ACPI_MAX_SLIT_NODES];
    unsigned niommu;
    unsigned iommu_dropped;
    uint32_t spcr_baud;   /* its speed, 0 if SPCR leaves it as it is */
    bool pm_tmr_32bit;    /* its counter is 32 bits wide (else 24) */
    struct acpi_reset reset;
    uint8_t century_index; /* CMOS RTC index of the century, 0 if none */

    /* Problems that did not stop the parse, one line each ("MCFG at 0x...: ..."). */
    char warn[ACPI_MAX_WARNINGS][ACPI_WARNING_BYTES];
    unsigned nwarn;
    unsigned warn_dropped;
};

/*
 * acpi_find_rsdp: legacy BIOS search for the RSDP (§5.2.5.1): the first KiB of the EBDA (its
 * segment is the 16-bit word at phys 0x40E), then 0xE0000-0xFFFFF, on 16-byte boundaries; the
 * first "RSD PTR " whose 20-byte checksum is 0 wins. On UEFI the loader passes the RSDP
 * instead (Multiboot 2 tags 14/15). Returns 0 and *phys, or WS_ERR_NOT_FOUND. BSP, boot.
 */
int acpi_find_rsdp(const struct physmem *pm, uint64_t *phys);

/*
 * acpi_parse: validates the RSDP at rsdp[0..rsdp_len) (a copy or a mapping), then the XSDT
 * (or the RSDT if there is no valid XSDT), then each table it uses, and fills *out.
 * Returns 0, or on a fatal problem (bad RSDP, no valid root table, no valid MADT, no enabled
 * processor) a negative WS_ERR_* with a one-line reason in err[errlen]. Problems with
 * optional tables become lines in out->warn. BSP, boot, no locks.
 */
int acpi_parse(const struct physmem *pm, const void *rsdp, size_t rsdp_len,
               struct acpi_info *out, char *err, size_t errlen);

/* acpi_parse_phys: acpi_parse() for an RSDP in memory, e.g. from acpi_find_rsdp(). */
int acpi_parse_phys(const struct physmem *pm, uint64_t rsdp_phys, struct acpi_info *out,
                    char *err, size_t errlen);

/* acpi_cpu_node: the NUMA node of the CPU with this APIC ID (0 without SRAT or entry). */
uint32_t acpi_cpu_node(const struct acpi_info *info, uint32_t apic_id);

/*
 * acpi_pci_root_node: the NUMA node of the PCI root bridge whose bus range starts at root_bus
 * in segment (its _SEG and _BBN), as its _PXM says. False when no root bridge matches, or its
 * _PXM is absent or not a constant. Any core, after acpi_parse.
 */
bool acpi_pci_root_node(const struct acpi_info *info, uint16_t segment, uint8_t root_bus,
                        uint32_t *node);

/* acpi_node_distance: SLIT's distance from node a to node b; without SLIT (or beyond what it
 * kept) ACPI_SLIT_LOCAL for a node to itself and ACPI_SLIT_REMOTE otherwise. */
unsigned acpi_node_distance(const struct acpi_info *info, uint32_t a, uint32_t b);

#endif
