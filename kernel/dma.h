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

/* dma_init: take over the (normalized) memory map. Boot core, once, after vm_init. */
void dma_init(struct memmap *mm);
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
