/* drivers/nic/igb.h: Intel 82576 (igb) driver: the CI NIC (QEMU's -device igb). */
#ifndef WS_IGB_H
#define WS_IGB_H

#include <stdbool.h>

#include "drivers/pci/pci.h"

/* igb_supports: is this PCI function an 82576 we drive? */
bool igb_supports(const struct pci_dev *d);
/* igb_probe: reset and bring up the port with one queue pair per core (up to the chip's
 * limit). On failure prints the step, register and value, and returns a negative WS_ERR_*;
 * the port is then left disabled. Boot core, init time. */
int igb_probe(struct pci_dev *d, unsigned ncores);

#endif
