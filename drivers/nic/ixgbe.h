/* drivers/nic/ixgbe.h: Intel 82599 (ixgbe) 10 GbE driver: the NIC wirespeed ships on. */
#ifndef WS_IXGBE_H
#define WS_IXGBE_H

#include <stdbool.h>

#include "drivers/pci/pci.h"

/* ixgbe_supports: is this PCI function an 82599 port we drive (SFP+ and backplane boards;
 * ixgbe.c lists them and says why the others are left alone)? Any context. */
bool ixgbe_supports(const struct pci_dev *d);
/* ixgbe_probe: reset the port and bring it up with one queue pair per core (up to 16, the
 * 82599's RSS limit), following the datasheet's initialization sequence (§4.6.3). A link still
 * down after a bounded wait is reported, not fatal. On failure prints the step, register and
 * value read, leaves the port quiet (interrupts masked, RX and TX DMA off), gives the port
 * slot back and returns a negative WS_ERR_*. Boot core, init time. */
int ixgbe_probe(struct pci_dev *d, unsigned ncores);

#endif
