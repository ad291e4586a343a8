/*
 * kernel/vm.h: the identity map. Physical address == virtual address everywhere; RAM is mapped
 * write-back, everything else (device memory) uncached.
 */
#ifndef WS_VM_H
#define WS_VM_H

#include <stdbool.h>
#include <stdint.h>

#include "memmap.h"

/* vm_init: replace the boot page tables with ones built from the memory map: 0..max(4 GiB,
 * top of RAM) mapped, RAM write-back, holes uncached. Boot core, before other cores start. */
int vm_init(const struct memmap *mm);
/* vm_map_mmio: make [phys, phys+len) mapped uncached (for BARs above what vm_init mapped).
 * Boot core, init time only. Returns 0 or WS_ERR_NO_MEMORY when the page-table pool is full. */
int vm_map_mmio(uint64_t phys, uint64_t len);
/* vm_uses_1g_pages: the CPU has 1 GiB pages and vm_init used them. */
bool vm_uses_1g_pages(void);
/* vm_mapped_top: first address above the identity-mapped range vm_init built. */
uint64_t vm_mapped_top(void);

#endif
