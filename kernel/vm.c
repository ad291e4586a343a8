/*
 * kernel/vm.c: identity-mapped 4-level page tables (SDM Vol. 3A 4.5). 2 MiB pages everywhere
 * except the first 2 MiB, which uses 4 KiB pages so the legacy VGA/ROM hole (0xA0000-0xFFFFF)
 * can be uncached while low RAM stays write-back. Caching: PCD|PWT selects UC with the
 * power-on PAT (SDM 3A 11.12.3), so no PAT programming is needed.
 */
#include "vm.h"

#include <string.h>

#include "err.h"
#include "x86.h"

#define PAGE_4K 0x1000ULL
#define PAGE_2M 0x200000ULL
#define GIB 0x40000000ULL
#define PTE_P 0x001ULL
#define PTE_W 0x002ULL
#define PTE_PWT 0x008ULL
#define PTE_PCD 0x010ULL
#define PTE_PS 0x080ULL
#define PTE_ADDR_MASK 0x000FFFFFFFFFF000ULL
#define PTE_UNCACHED (PTE_PCD | PTE_PWT)
#define VM_POOL_PAGES 160 /* PML4 + PDPTs + one PD per mapped GiB (128 GiB) + low PT */
#define VM_LEGACY_HOLE_LO 0xA0000ULL
#define VM_LEGACY_HOLE_HI 0x100000ULL

static uint64_t vm_pool[VM_POOL_PAGES][512] __attribute__((aligned(4096)));
static unsigned vm_pool_used;
static uint64_t *vm_pml4;
static uint64_t vm_top;

static uint64_t *vm_alloc_table(void)
{
    if (vm_pool_used == VM_POOL_PAGES) {
        return NULL;
    }
    uint64_t *t = vm_pool[vm_pool_used++];
    memset(t, 0, PAGE_4K);
    return t;
}

/* vm_next_level: the table entry e points to, creating it if absent. */
static uint64_t *vm_next_level(uint64_t *e)
{
    if (!(*e & PTE_P)) {
        uint64_t *t = vm_alloc_table();
        if (t == NULL) {
            return NULL;
        }
        *e = (uintptr_t)t | PTE_P | PTE_W;
    }
    return (uint64_t *)(uintptr_t)(*e & PTE_ADDR_MASK);
}

/* vm_pd_entry: the page-directory entry covering 2 MiB page `addr`. */
static uint64_t *vm_pd_entry(uint64_t addr)
{
    uint64_t *pdpt = vm_next_level(&vm_pml4[(addr >> 39) & 511]);
    uint64_t *pd = pdpt ? vm_next_level(&pdpt[(addr >> 30) & 511]) : NULL;
    return pd ? &pd[(addr >> 21) & 511] : NULL;
}

static bool vm_is_ram(const struct memmap *mm, uint64_t base, uint64_t len)
{
    for (unsigned i = 0; i < mm->n; i++) {
        const struct memmap_region *r = &mm->r[i];
        bool ramlike = r->type == MEMMAP_USABLE || r->type == MEMMAP_ACPI_RECLAIM ||
                       r->type == MEMMAP_ACPI_NVS;
        if (ramlike && r->base < base + len && base < r->base + r->len) {
            return true;
        }
    }
    return false;
}

/* vm_map_low_2m: 4 KiB pages for the first 2 MiB; page 0 stays unmapped to catch NULL. */
static int vm_map_low_2m(void)
{
    uint64_t *pde = vm_pd_entry(0);
    uint64_t *pt = pde ? vm_alloc_table() : NULL;
    if (pt == NULL) {
        return WS_ERR_NO_MEMORY;
    }
    for (uint64_t a = PAGE_4K; a < PAGE_2M; a += PAGE_4K) {
        bool hole = a >= VM_LEGACY_HOLE_LO && a < VM_LEGACY_HOLE_HI;
        pt[a / PAGE_4K] = a | PTE_P | PTE_W | (hole ? PTE_UNCACHED : 0);
    }
    *pde = (uintptr_t)pt | PTE_P | PTE_W;
    return WS_OK;
}

static int vm_map_2m(uint64_t addr, bool uncached)
{
    uint64_t *pde = vm_pd_entry(addr);
    if (pde == NULL) {
        return WS_ERR_NO_MEMORY;
    }
    *pde = addr | PTE_P | PTE_W | PTE_PS | (uncached ? PTE_UNCACHED : 0);
    return WS_OK;
}

int vm_init(const struct memmap *mm)
{
    uint64_t top = memmap_highest_usable_end(mm);

    top = top < 4 * GIB ? 4 * GIB : (top + GIB - 1) & ~(GIB - 1);
    vm_pool_used = 0;
    vm_pml4 = vm_alloc_table();
    int err = vm_map_low_2m();
    for (uint64_t a = PAGE_2M; err == WS_OK && a < top; a += PAGE_2M) {
        err = vm_map_2m(a, !vm_is_ram(mm, a, PAGE_2M));
    }
    if (err != WS_OK) {
        return err;
    }
    vm_top = top;
    write_cr3((uintptr_t)vm_pml4);
    return WS_OK;
}

int vm_map_mmio(uint64_t phys, uint64_t len)
{
    uint64_t end = (phys + len + PAGE_2M - 1) & ~(PAGE_2M - 1);
    for (uint64_t a = phys & ~(PAGE_2M - 1); a < end; a += PAGE_2M) {
        if (a < vm_top) {
            continue; /* already mapped by vm_init, uncached if it is not RAM */
        }
        int err = vm_map_2m(a, true);
        if (err != WS_OK) {
            return err;
        }
    }
    write_cr3((uintptr_t)vm_pml4); /* flush: new mappings only, but keep it simple and certain */
    return WS_OK;
}

uint64_t vm_mapped_top(void)
{
    return vm_top;
}
