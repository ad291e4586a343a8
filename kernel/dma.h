/*
 * kernel/dma.h: memory for devices and per-core pools, carved at boot from the loader's usable
 * RAM. Identity mapped and cache-coherent on x86 (PCIe snoops), so a buffer's virtual address
 * is also its bus address: dma_addr() makes that explicit at every place a device is told one.
 */
#ifndef WS_DMA_H
#define WS_DMA_H

#include <stddef.h>
#include <stdint.h>

#include "memmap.h"

struct acpi_info;

/* dma_init: take over the (normalized) memory map, and SRAT's node ranges if acpi has them.
 * Boot core, once, after vm_init. */
void dma_init(struct memmap *mm, const struct acpi_info *acpi);
/* dma_alloc_node: as dma_alloc, from NUMA node `node`'s memory (SRAT); from anywhere when the
 * node has none left (dma_node_of then tells where it went), or without SRAT. Boot core. */
void *dma_alloc_node(size_t size, size_t align, uint32_t node);
/* dma_node_of: the node p's memory belongs to; 0 without SRAT, -1 if SRAT names none. */
int dma_node_of(const void *p);
/* dma_alloc: zeroed, aligned memory that is never freed; NULL when RAM is exhausted.
 * Boot core, init time only. */
void *dma_alloc(size_t size, size_t align);
/* dma_free_bytes: usable RAM not yet handed out. */
uint64_t dma_free_bytes(void);

static inline uint64_t dma_addr(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

#endif
