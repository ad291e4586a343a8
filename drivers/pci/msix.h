/*
 * drivers/pci/msix.h: MSI-X (PCI Local Bus 3.0 section 6.8.2). One table entry per queue,
 * each aimed at the owning core's local APIC with that core's vector for the queue.
 */
#ifndef WS_MSIX_H
#define WS_MSIX_H

#include <stdint.h>

#include "pci.h"

struct msix {
    struct pci_dev *dev;
    uintptr_t table; /* mapped address of entry 0 */
    uintptr_t pba;
    uint16_t nvec;   /* table size */
};

/* msix_init: locate table and PBA through their BARs (validated against the BAR sizes), mask
 * every entry, enable MSI-X. Returns 0 or a negative WS_ERR_*, with why[] filled on error. */
int msix_init(struct msix *m, struct pci_dev *d, char *why, unsigned whylen);
/* The highest APIC ID an MSI message can name without interrupt remapping: the destination is
 * the 8-bit field of the message address (Intel SDM 3A 10.11.1). */
#define MSIX_MAX_APIC_ID 0xFF

/* msix_route: entry -> (apic_id, vector), fixed delivery, edge, left masked. WS_ERR_RANGE for
 * an APIC ID above MSIX_MAX_APIC_ID. */
int msix_route(struct msix *m, unsigned entry, uint32_t apic_id, uint8_t vector);
void msix_mask(struct msix *m, unsigned entry);
void msix_unmask(struct msix *m, unsigned entry);

#endif
