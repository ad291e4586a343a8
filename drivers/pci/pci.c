/*
 * drivers/pci/pci.c: configuration access, enumeration, BAR sizing and capability walk.
 * A device whose BARs or capability list do not make sense is reported and marked broken, so
 * no driver trusts it. References: PCI Local Bus 3.0 sections 6.1-6.2.5 (header, BARs), 6.7
 * (capability list); PCI Express Base 4.0 section 7.2.2 (enhanced configuration access).
 */
#include "pci.h"

#include <stdio.h>
#include <string.h>

#include "console.h"
#include "init.h"
#include "mmio.h"
#include "vm.h"
#include "x86.h"

#define PCI_CF8_ADDR 0xCF8
#define PCI_CF8_DATA 0xCFC
#define PCI_CF8_ENABLE 0x80000000U
#define PCI_MAX_CAPS 48 /* 192 bytes of capability space / 4-byte minimum entries */
#define PCI_ECAM_BUS_BYTES (1ULL << 20)

/*
 * One ECAM window: a segment group's bus range (PCI Firmware 3.3 section 4.1.2, MCFG). Its base is
 * the address of bus 0 of that segment even when the range starts higher, so bus b's space
 * is at base + b * 1 MiB, as Linux reads the table too.
 */
struct pci_ecam {
    uint64_t base;
    uint16_t segment;
    uint8_t bus_start, bus_end;
};

/* read-only after pci_init */
static struct pci_ecam pci_ecams[WS_MAX_MCFG_SEGMENTS];
static unsigned pci_necams;
static bool pci_cf8_seg0; /* segment 0 has no ECAM window: port 0xCF8 reaches it */
static struct pci_dev pci_devs[PCI_MAX_DEVICES];
static unsigned pci_ndevs;

/* A bridge, by the bus range it forwards to (secondary..subordinate, as firmware numbered). */
struct pci_bridge {
    struct pci_dev fn; /* its own function, for config access */
    uint8_t secondary, subordinate;
};
static struct pci_bridge pci_bridges[PCI_MAX_BRIDGES];
static unsigned pci_nbridges;
static unsigned pci_dropped_bridges, pci_dropped_nics; /* beyond the tables: reported once */

/* pci_ecam_for: the window holding (segment, bus), NULL if none (then port 0xCF8 for segment 0,
 * or no access at all). */
static const struct pci_ecam *pci_ecam_for(uint16_t segment, uint8_t bus)
{
    for (unsigned i = 0; i < pci_necams; i++) {
        const struct pci_ecam *e = &pci_ecams[i];
        if (e->segment == segment && bus >= e->bus_start && bus <= e->bus_end) {
            return e;
        }
    }
    return NULL;
}

static uintptr_t pci_ecam_addr(const struct pci_ecam *e, const struct pci_dev *d, uint16_t off)
{
    return (uintptr_t)(e->base + ((uint64_t)d->bus << 20) + ((uint64_t)d->dev << 15) +
                       ((uint64_t)d->fn << 12) + off);
}

static uint32_t pci_cf8_select(const struct pci_dev *d, uint16_t off)
{
    return PCI_CF8_ENABLE | ((uint32_t)d->bus << 16) | ((uint32_t)d->dev << 11) |
           ((uint32_t)d->fn << 8) | (off & 0xFC);
}

/* pci_cf8_ok: port 0xCF8 reaches only segment 0, and only when it has no ECAM window. A
 * function nothing reaches reads as absent (all ones) and ignores writes. */
static bool pci_cf8_ok(const struct pci_dev *d)
{
    return d->segment == 0 && pci_cf8_seg0;
}

uint32_t pci_read32(const struct pci_dev *d, uint16_t off)
{
    const struct pci_ecam *e = pci_ecam_for(d->segment, d->bus);
    if (e != NULL) {
        return mmio_read32(pci_ecam_addr(e, d, off));
    }
    if (!pci_cf8_ok(d)) {
        return 0xFFFFFFFF;
    }
    outl(PCI_CF8_ADDR, pci_cf8_select(d, off));
    return inl(PCI_CF8_DATA);
}

uint16_t pci_read16(const struct pci_dev *d, uint16_t off)
{
    return (uint16_t)(pci_read32(d, off & ~3) >> ((off & 2) * 8));
}

uint8_t pci_read8(const struct pci_dev *d, uint16_t off)
{
    return (uint8_t)(pci_read32(d, off & ~3) >> ((off & 3) * 8));
}

void pci_write32(const struct pci_dev *d, uint16_t off, uint32_t v)
{
    const struct pci_ecam *e = pci_ecam_for(d->segment, d->bus);
    if (e != NULL) {
        mmio_write32(pci_ecam_addr(e, d, off), v);
    } else if (pci_cf8_ok(d)) {
        outl(PCI_CF8_ADDR, pci_cf8_select(d, off));
        outl(PCI_CF8_DATA, v);
    }
}

/* 16-bit writes are real 16-bit cycles: a 32-bit read-modify-write of COMMAND would write
 * STATUS back, whose error bits are write-one-to-clear. */
void pci_write16(const struct pci_dev *d, uint16_t off, uint16_t v)
{
    const struct pci_ecam *e = pci_ecam_for(d->segment, d->bus);
    if (e != NULL) {
        mmio_write16(pci_ecam_addr(e, d, off), v);
    } else if (pci_cf8_ok(d)) {
        outl(PCI_CF8_ADDR, pci_cf8_select(d, off));
        outw(PCI_CF8_DATA + (off & 2), v);
    }
}

const char *pci_bdf(const struct pci_dev *d, char *buf)
{
    snprintf(buf, 13, "%04x:%02x:%02x.%x", d->segment, d->bus, d->dev, d->fn);
    return buf;
}

/* pci_size_bar: probe BAR i's size with decoding off (PCI 3.0 6.2.5.1); returns the number of
 * BAR registers used (2 for a 64-bit BAR), or -1 if the BAR is malformed. */
static int pci_size_bar(struct pci_dev *d, unsigned i)
{
    uint16_t off = PCI_BAR0 + 4 * i;
    uint32_t orig = pci_read32(d, off), hi = 0, mask_hi = 0xFFFFFFFF;
    struct pci_bar *b = &d->bar[i];

    pci_write32(d, off, 0xFFFFFFFF);
    uint32_t mask = pci_read32(d, off);
    pci_write32(d, off, orig);
    if (mask == 0) {
        return 1; /* unimplemented */
    }
    b->io = orig & PCI_BAR_IO;
    b->is64 = !b->io && (orig & PCI_BAR_MEM_TYPE_MASK) == PCI_BAR_MEM_64;
    b->prefetch = !b->io && (orig & PCI_BAR_PREFETCH);
    if (b->is64) {
        if (i == PCI_NUM_BARS - 1) {
            return -1; /* a 64-bit BAR cannot start in the last slot */
        }
        hi = pci_read32(d, off + 4);
        pci_write32(d, off + 4, 0xFFFFFFFF);
        mask_hi = pci_read32(d, off + 4);
        pci_write32(d, off + 4, hi);
    }
    uint64_t m = ((uint64_t)mask_hi << 32) | (mask & (b->io ? ~3U : ~15U));
    b->size = ~m + 1;
    b->base = ((uint64_t)hi << 32) | (orig & (b->io ? ~3U : ~15U));
    if (b->size == 0 || (b->size & (b->size - 1)) != 0 || (b->base & (b->size - 1)) != 0) {
        return -1; /* not a power of two, or a base not aligned to it */
    }
    return b->is64 ? 2 : 1;
}

static bool pci_size_bars(struct pci_dev *d, char *why, size_t whylen)
{
    uint16_t cmd = pci_read16(d, PCI_COMMAND);

    pci_write16(d, PCI_COMMAND, cmd & ~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));
    for (unsigned i = 0; i < PCI_NUM_BARS;) {
        int used = pci_size_bar(d, i);
        if (used < 0) {
            pci_write16(d, PCI_COMMAND, cmd);
            snprintf(why, whylen, "BAR%u malformed (base 0x%llx size 0x%llx)", i,
                     (unsigned long long)d->bar[i].base, (unsigned long long)d->bar[i].size);
            return false;
        }
        i += (unsigned)used;
    }
    pci_write16(d, PCI_COMMAND, cmd);
    return true;
}

/* pci_check_caps: the capability list must be a finite chain of aligned pointers inside the
 * device-specific area (0x40-0xFF), PCI 3.0 6.7. */
static bool pci_check_caps(struct pci_dev *d, char *why, size_t whylen)
{
    if (!(pci_read16(d, PCI_STATUS) & PCI_STATUS_CAP_LIST)) {
        return true;
    }
    uint8_t ptr = pci_read8(d, PCI_CAP_PTR);
    for (unsigned n = 0; ptr != 0; n++) {
        if (n == PCI_MAX_CAPS || ptr < 0x40 || (ptr & 3) != 0) {
            snprintf(why, whylen, "capability list malformed at 0x%02x (entry %u)", ptr, n);
            return false;
        }
        if (pci_read8(d, ptr) == PCI_CAP_ID_MSIX && d->msix_cap == 0) {
            d->msix_cap = ptr;
        }
        ptr = pci_read8(d, ptr + 1);
    }
    return true;
}

uint8_t pci_find_cap(const struct pci_dev *d, uint8_t id)
{
    if (d->broken || !(pci_read16(d, PCI_STATUS) & PCI_STATUS_CAP_LIST)) {
        return 0;
    }
    uint8_t ptr = pci_read8(d, PCI_CAP_PTR);
    for (unsigned n = 0; ptr != 0 && n < PCI_MAX_CAPS; n++) {
        if (pci_read8(d, ptr) == id) {
            return ptr;
        }
        ptr = pci_read8(d, ptr + 1);
    }
    return 0;
}

/* pci_enable_bridges: Memory and Bus Master on every bridge whose bus range holds d's bus. The
 * ranges nest, so these are exactly the bridges on d's path to the root complex. */
static void pci_enable_bridges(const struct pci_dev *d)
{
    const uint16_t want = PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
    for (unsigned i = 0; i < pci_nbridges; i++) {
        const struct pci_bridge *b = &pci_bridges[i];
        if (b->fn.segment != d->segment || d->bus < b->secondary || d->bus > b->subordinate) {
            continue;
        }
        uint16_t cmd = pci_read16(&b->fn, PCI_COMMAND);
        if ((cmd & want) != want) {
            char bdf[16], nic[16];
            pci_write16(&b->fn, PCI_COMMAND, cmd | want);
            kprintf("pci %s: bridge above %s: memory and bus master on (command 0x%04x)\n",
                    pci_bdf(&b->fn, bdf), pci_bdf(d, nic), cmd);
        }
    }
}

void pci_enable(struct pci_dev *d)
{
    pci_enable_bridges(d);
    uint16_t cmd = pci_read16(d, PCI_COMMAND);
    pci_write16(d, PCI_COMMAND,
                cmd | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER | PCI_COMMAND_INTX_DISABLE);
}

static void pci_report(const struct pci_dev *d, const char *why)
{
    char bdf[16], bars[160] = "";
    size_t n = 0;

    for (unsigned i = 0; i < PCI_NUM_BARS && n < sizeof(bars); i++) {
        const struct pci_bar *b = &d->bar[i];
        if (b->size != 0) {
            n += (size_t)snprintf(bars + n, sizeof(bars) - n, " bar%u %s 0x%llx/0x%llx", i,
                                  b->io ? "io" : (b->is64 ? "mem64" : "mem"),
                                  (unsigned long long)b->base, (unsigned long long)b->size);
        }
    }
    kprintf("pci %s %04x:%04x class %06x%s%s%s%s\n", pci_bdf(d, bdf), d->vendor, d->device,
            d->class_rev >> 8, bars, d->msix_cap ? " msix" : "", why ? " BROKEN: " : "",
            why ? why : "");
}

/* pci_keep: a bridge or a network controller goes into its table; anything else was reported
 * and is forgotten. */
static void pci_keep(const struct pci_dev *d)
{
    if ((d->header_type & PCI_HEADER_TYPE_MASK) == PCI_HEADER_TYPE_BRIDGE) {
        if (pci_nbridges == PCI_MAX_BRIDGES) {
            pci_dropped_bridges++;
            return;
        }
        struct pci_bridge *b = &pci_bridges[pci_nbridges++];
        b->fn = *d;
        b->secondary = pci_read8(d, PCI_SECONDARY_BUS);
        b->subordinate = pci_read8(d, PCI_SUBORDINATE_BUS);
    } else if ((d->class_rev >> 24) == PCI_CLASS_NETWORK) {
        if (pci_ndevs == PCI_MAX_DEVICES) {
            pci_dropped_nics++;
            return;
        }
        pci_devs[pci_ndevs++] = *d;
    }
}

static void pci_probe_function(uint16_t segment, uint8_t bus, uint8_t dev, uint8_t fn)
{
    char why[96];
    struct pci_dev d = { .segment = segment, .bus = bus, .dev = dev, .fn = fn };

    uint32_t id = pci_read32(&d, PCI_VENDOR_ID);
    d.vendor = id & 0xFFFF, d.device = id >> 16;
    d.class_rev = pci_read32(&d, PCI_CLASS_REVISION);
    d.header_type = pci_read8(&d, PCI_HEADER_TYPE);
    bool ok = (d.header_type & PCI_HEADER_TYPE_MASK) != 0 || pci_size_bars(&d, why, sizeof(why));
    ok = ok && pci_check_caps(&d, why, sizeof(why));
    d.broken = !ok;
    pci_report(&d, ok ? NULL : why);
    pci_keep(&d);
}

static void pci_scan_bus(uint16_t segment, uint8_t bus)
{
    struct pci_dev probe = { .segment = segment, .bus = bus };

    for (uint8_t dev = 0; dev < 32; dev++) {
        probe.dev = dev, probe.fn = 0;
        if ((pci_read32(&probe, PCI_VENDOR_ID) & 0xFFFF) == 0xFFFF) {
            continue; /* no function 0: no device (PCI 3.0 6.2.1) */
        }
        bool multi = pci_read8(&probe, PCI_HEADER_TYPE) & PCI_HEADER_MULTIFUNCTION;
        for (uint8_t fn = 0; fn < (multi ? 8 : 1); fn++) {
            probe.fn = fn;
            if ((pci_read32(&probe, PCI_VENDOR_ID) & 0xFFFF) != 0xFFFF) {
                pci_probe_function(segment, bus, dev, fn);
            }
        }
    }
}

/* pci_add_ecam: map one MCFG window and take it, unless it cannot be mapped or a window taken
 * before already covers one of its buses (firmware tables can repeat or overlap; the first
 * wins, as in the table's order). */
static void pci_add_ecam(const struct acpi_mcfg_seg *s)
{
    for (unsigned b = s->bus_start; b <= s->bus_end; b++) {
        if (pci_ecam_for(s->segment, (uint8_t)b) != NULL) {
            kprintf("pci: error: MCFG window for segment %u buses %u-%u overlaps an earlier one "
                    "at bus %u; ignored\n", s->segment, s->bus_start, s->bus_end, b);
            return;
        }
    }
    uint64_t first = s->base + ((uint64_t)s->bus_start << 20);
    uint64_t len = (uint64_t)(s->bus_end - s->bus_start + 1) * PCI_ECAM_BUS_BYTES;
    if (vm_map_mmio(first, len) != 0) {
        kprintf("pci: error: cannot map ECAM 0x%llx+0x%llx (segment %u buses %u-%u); ignored\n",
                (unsigned long long)first, (unsigned long long)len, s->segment, s->bus_start,
                s->bus_end);
        return;
    }
    pci_ecams[pci_necams++] = (struct pci_ecam){ .base = s->base, .segment = s->segment,
                                                 .bus_start = s->bus_start,
                                                 .bus_end = s->bus_end };
    kprintf("pci: segment %u buses %u-%u: config access by ECAM at 0x%llx\n", s->segment,
            s->bus_start, s->bus_end, (unsigned long long)first);
}

/* pci_scan_all: every bus of every window, segment by segment in MCFG's order; segment 0
 * through port 0xCF8 when no window serves it. */
static void pci_scan_all(void)
{
    if (pci_cf8_seg0) {
        for (unsigned bus = 0; bus <= 255; bus++) {
            pci_scan_bus(0, (uint8_t)bus);
        }
    }
    for (unsigned i = 0; i < pci_necams; i++) {
        for (unsigned bus = pci_ecams[i].bus_start; bus <= pci_ecams[i].bus_end; bus++) {
            pci_scan_bus(pci_ecams[i].segment, (uint8_t)bus);
        }
    }
}

/* pci_root_bus: the bus of the PCI root bridge d hangs off: that of the outermost bridge whose
 * range holds d's bus (the ranges nest), or d's own bus when no bridge is above it. */
static uint8_t pci_root_bus(const struct pci_dev *d)
{
    const struct pci_bridge *top = NULL;
    for (unsigned i = 0; i < pci_nbridges; i++) {
        const struct pci_bridge *b = &pci_bridges[i];
        if (b->fn.segment == d->segment && d->bus >= b->secondary && d->bus <= b->subordinate &&
            (top == NULL || b->secondary < top->secondary)) {
            top = b;
        }
    }
    return top != NULL ? top->fn.bus : d->bus;
}

/*
 * pci_place_nics: each network function's NUMA node, from the _PXM of the root bridge above it
 * (kernel/aml.h found them), so its port's descriptor rings can live there. Said on the
 * console when the machine has NUMA (SRAT) or the namespace gives nodes; silent otherwise.
 */
static void pci_place_nics(const struct acpi_info *acpi)
{
    bool say = acpi->has_srat || acpi->npci_root > 0;
    for (unsigned i = 0; i < pci_ndevs && say; i++) {
        struct pci_dev *d = &pci_devs[i];
        uint8_t root = pci_root_bus(d);
        char bdf[16];
        d->has_node = acpi_pci_root_node(acpi, d->segment, root, &d->node);
        if (d->has_node) {
            kprintf("pci %s: NUMA node %u (_PXM of the root bridge of bus %04x:%02x)\n",
                    pci_bdf(d, bdf), d->node, d->segment, root);
        } else {
            kprintf("pci %s: NUMA node not given (no constant _PXM for root bus %04x:%02x): "
                    "each queue's rings in its core's node\n", pci_bdf(d, bdf), d->segment, root);
        }
    }
}

unsigned pci_init(const struct acpi_info *acpi)
{
    for (unsigned i = 0; i < acpi->nmcfg && pci_necams < WS_MAX_MCFG_SEGMENTS; i++) {
        pci_add_ecam(&acpi->mcfg[i]);
    }
    pci_cf8_seg0 = true;
    for (unsigned i = 0; i < pci_necams; i++) {
        pci_cf8_seg0 &= pci_ecams[i].segment != 0;
    }
    if (pci_cf8_seg0) {
        kprintf("pci: segment 0: config access by port 0xCF8 (no usable MCFG window for it)\n");
    }
    pci_scan_all();
    kprintf("pci: %u network functions, %u bridges kept\n", pci_ndevs, pci_nbridges);
    pci_place_nics(acpi);
    if (pci_dropped_nics || pci_dropped_bridges) {
        kprintf("pci: error: %u network functions and %u bridges beyond the tables (%d, %d: "
                "drivers/pci/pci.h) were not kept\n", pci_dropped_nics, pci_dropped_bridges,
                PCI_MAX_DEVICES, PCI_MAX_BRIDGES);
    }
    return pci_ndevs;
}

unsigned pci_device_count(void)
{
    return pci_ndevs;
}

struct pci_dev *pci_device(unsigned i)
{
    return i < pci_ndevs ? &pci_devs[i] : NULL;
}

static int pci_init_step(struct init_ctx *ctx)
{
    pci_init(ctx->acpi);
    return 0;
}
WS_INIT(pci, INIT_BUS, false, pci_init_step); /* enumerate, size BARs, check capability lists */
