/* kernel/dma.c: boot-time carving of RAM for rings and packet pools (see header). */
#include "dma.h"

#include <string.h>

#include "acpi.h"
#include "err.h"

#define DMA_MIN_ADDR 0x100000ULL /* never hand out low memory: BIOS data, AP trampoline */

static struct memmap *dma_map; /* boot core only */
static const struct acpi_info *dma_numa; /* SRAT's memory ranges, NULL: one node */

void dma_init(struct memmap *mm, const struct acpi_info *acpi)
{
    dma_map = mm;
    dma_numa = acpi != NULL && acpi->has_srat && acpi->nnuma_mem > 0 ? acpi : NULL;
}

/* dma_alloc_in_node: size bytes from one of node's SRAT ranges, or NULL. */
static void *dma_alloc_in_node(size_t size, size_t align, uint32_t node)
{
    for (unsigned i = 0; i < dma_numa->nnuma_mem; i++) {
        const struct acpi_numa_mem *m = &dma_numa->numa_mem[i];
        uint64_t addr, lo = m->base > DMA_MIN_ADDR ? m->base : DMA_MIN_ADDR;
        if (m->node == node &&
            memmap_alloc_in(dma_map, size, align, lo, m->base + m->len, &addr) == WS_OK) {
            void *p = (void *)(uintptr_t)addr;
            memset(p, 0, size);
            return p;
        }
    }
    return NULL;
}

/* dma_next_nearest: of the nodes SRAT gives memory to that are farther from `from` than
 * `after` is (or as far, but numbered above it), the nearest (SLIT's distance, then the lower
 * number); false when none is left. A total order, so each node is visited once. */
static bool dma_next_nearest(uint32_t from, uint32_t after, bool first, uint32_t *next)
{
    unsigned after_d = first ? 0 : acpi_node_distance(dma_numa, from, after);
    bool found = false;
    unsigned best_d = 0;
    for (unsigned i = 0; i < dma_numa->nnuma_mem; i++) {
        uint32_t n = dma_numa->numa_mem[i].node;
        unsigned d = acpi_node_distance(dma_numa, from, n);
        bool later = first || d > after_d || (d == after_d && n > after);
        if (later && (!found || d < best_d || (d == best_d && n < *next))) {
            found = true;
            best_d = d;
            *next = n;
        }
    }
    return found;
}

void *dma_alloc_node(size_t size, size_t align, uint32_t node)
{
    if (dma_numa == NULL || dma_map == NULL) {
        return dma_alloc(size, align);
    }
    void *p = dma_alloc_in_node(size, align, node);
    /* the node is full or has none: the nearest that has room (SLIT), then any beats none */
    uint32_t n = node;
    for (bool first = true; p == NULL && dma_next_nearest(node, n, first, &n); first = false) {
        p = n != node ? dma_alloc_in_node(size, align, n) : NULL;
    }
    return p != NULL ? p : dma_alloc(size, align);
}

int dma_node_of(const void *p)
{
    uint64_t a = dma_addr(p);
    for (unsigned i = 0; dma_numa != NULL && i < dma_numa->nnuma_mem; i++) {
        const struct acpi_numa_mem *m = &dma_numa->numa_mem[i];
        if (a >= m->base && a - m->base < m->len) {
            return (int)m->node;
        }
    }
    return dma_numa != NULL ? -1 : 0;
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
