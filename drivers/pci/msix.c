/* drivers/pci/msix.c: MSI-X table programming, PCI 3.0 section 6.8.2 (see header). */
#include "msix.h"

#include <stdio.h>

#include "err.h"
#include "mmio.h"
#include "vm.h"

#define MSIX_CTRL 0x02 /* message control, relative to the capability */
#define MSIX_CTRL_TABLE_SIZE_MASK 0x07FF
#define MSIX_CTRL_FUNCTION_MASK 0x4000
#define MSIX_CTRL_ENABLE 0x8000
#define MSIX_TABLE 0x04 /* offset (31:3) and BIR (2:0) */
#define MSIX_PBA 0x08
#define MSIX_BIR_MASK 0x7
#define MSIX_ENTRY_BYTES 16
#define MSIX_ENTRY_ADDR_LO 0x0
#define MSIX_ENTRY_ADDR_HI 0x4
#define MSIX_ENTRY_DATA 0x8
#define MSIX_ENTRY_CTRL 0xC
#define MSIX_ENTRY_CTRL_MASKED 0x1
/* Message address for xAPIC physical destination mode (SDM 3A 10.11.1). */
#define MSI_ADDR_BASE 0xFEE00000U
#define MSI_ADDR_DEST_SHIFT 12

/* msix_locate: the BAR-relative region (offset/BIR) must lie inside an implemented memory BAR. */
static int msix_locate(struct pci_dev *d, uint32_t reg, uint64_t bytes, uintptr_t *out,
                       char *why, unsigned whylen, const char *what)
{
    unsigned bir = reg & MSIX_BIR_MASK;
    uint64_t off = reg & ~(uint32_t)MSIX_BIR_MASK;

    if (bir >= PCI_NUM_BARS || d->bar[bir].size == 0 || d->bar[bir].io ||
        off + bytes > d->bar[bir].size || d->bar[bir].base == 0) {
        snprintf(why, whylen, "MSI-X %s (BIR %u offset 0x%llx, %llu bytes) outside BAR%u", what,
                 bir, (unsigned long long)off, (unsigned long long)bytes, bir);
        return WS_ERR_INVAL;
    }
    if (vm_map_mmio(d->bar[bir].base, d->bar[bir].size) != 0) {
        snprintf(why, whylen, "cannot map BAR%u for the MSI-X %s", bir, what);
        return WS_ERR_NO_MEMORY;
    }
    *out = (uintptr_t)(d->bar[bir].base + off);
    return WS_OK;
}

int msix_init(struct msix *m, struct pci_dev *d, char *why, unsigned whylen)
{
    uint8_t cap = d->msix_cap;

    if (cap == 0) {
        snprintf(why, whylen, "no MSI-X capability");
        return WS_ERR_NOT_FOUND;
    }
    uint16_t ctrl = pci_read16(d, cap + MSIX_CTRL);
    m->dev = d;
    m->nvec = (ctrl & MSIX_CTRL_TABLE_SIZE_MASK) + 1;
    int err = msix_locate(d, pci_read32(d, cap + MSIX_TABLE),
                          (uint64_t)m->nvec * MSIX_ENTRY_BYTES, &m->table, why, whylen, "table");
    if (err == WS_OK) {
        err = msix_locate(d, pci_read32(d, cap + MSIX_PBA), ((m->nvec + 63) / 64) * 8, &m->pba,
                          why, whylen, "PBA");
    }
    if (err != WS_OK) {
        return err;
    }
    /* Enable with the function masked, mask every entry, then lift the function mask. */
    pci_write16(d, cap + MSIX_CTRL, ctrl | MSIX_CTRL_ENABLE | MSIX_CTRL_FUNCTION_MASK);
    for (unsigned i = 0; i < m->nvec; i++) {
        msix_mask(m, i);
    }
    pci_write16(d, cap + MSIX_CTRL, (ctrl | MSIX_CTRL_ENABLE) & ~MSIX_CTRL_FUNCTION_MASK);
    return WS_OK;
}

static uintptr_t msix_entry(const struct msix *m, unsigned entry)
{
    return m->table + (uintptr_t)entry * MSIX_ENTRY_BYTES;
}

int msix_route(struct msix *m, unsigned entry, uint32_t apic_id, uint8_t vector)
{
    if (entry >= m->nvec || apic_id > MSIX_MAX_APIC_ID) {
        return WS_ERR_RANGE; /* xAPIC messages reach APIC IDs 0..255 only */
    }
    uintptr_t e = msix_entry(m, entry);
    msix_mask(m, entry);
    mmio_write32(e + MSIX_ENTRY_ADDR_LO, MSI_ADDR_BASE | (apic_id << MSI_ADDR_DEST_SHIFT));
    mmio_write32(e + MSIX_ENTRY_ADDR_HI, 0);
    mmio_write32(e + MSIX_ENTRY_DATA, vector); /* fixed delivery, edge trigger */
    return WS_OK;
}

void msix_mask(struct msix *m, unsigned entry)
{
    uintptr_t c = msix_entry(m, entry) + MSIX_ENTRY_CTRL;
    mmio_write32(c, mmio_read32(c) | MSIX_ENTRY_CTRL_MASKED);
}

void msix_unmask(struct msix *m, unsigned entry)
{
    uintptr_t c = msix_entry(m, entry) + MSIX_ENTRY_CTRL;
    mmio_write32(c, mmio_read32(c) & ~MSIX_ENTRY_CTRL_MASKED);
}
