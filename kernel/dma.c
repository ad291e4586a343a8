/* kernel/dma.c: boot-time carving of RAM for rings and packet pools (see header). */
#include "dma.h"

#include <string.h>

#include "err.h"

#define DMA_MIN_ADDR 0x100000ULL /* never hand out low memory: BIOS data, AP trampoline */

static struct memmap *dma_map; /* boot core only */

void dma_init(struct memmap *mm)
{
    dma_map = mm;
}

void *dma_alloc(size_t size, size_t align)
{
    uint64_t addr;

    if (dma_map == NULL || memmap_alloc(dma_map, size, align, DMA_MIN_ADDR, &addr) != WS_OK) {
        return NULL;
    }
    void *p = (void *)(uintptr_t)addr;
    memset(p, 0, size);
    return p;
}

uint64_t dma_free_bytes(void)
{
    return dma_map ? memmap_usable_bytes(dma_map) : 0;
}
