/*
 * kernel/vm.c: identity-mapped 4-level page tables (SDM Vol. 3A 4.5). A GiB that is all RAM or
 * all device memory is one 1 GiB page where the CPU has them (CPUID 80000001H:EDX.Page1GB, SDM
 * 3A 4.5.4); a GiB that mixes both is 2 MiB pages; the first 2 MiB are 4 KiB pages so the
 * legacy VGA/ROM hole (0xA0000-0xFFFFF) can be uncached while low RAM stays write-back. So the
 * tables grow with the holes in the memory map, not with its size: with 1 GiB pages any amount
 * of RAM fits the pool; without them, VM_POOL_PAGES bounds it at about 500 GiB (vm_init says
 * so). Caching: PCD|PWT selects UC with the power-on PAT (SDM 3A 11.12.3).
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
/* PML4, a PDPT per 512 GiB, a PD per GiB mapped in 2 MiB pages, the low PT: 2 MiB of tables. */
#define VM_POOL_PAGES 512
#define CPUID_EXT_FEATURES 0x80000001
#define CPUID_EDX_PAGE1GB (1U << 26)
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

static bool vm_has_1g_pages(void)
{
    return cpuid(0x80000000, 0).eax >= CPUID_EXT_FEATURES &&
           (cpuid(CPUID_EXT_FEATURES, 0).edx & CPUID_EDX_PAGE1GB) != 0;
}

/* vm_pdpt_entry: the page-directory-pointer entry covering GiB `addr`. */
static uint64_t *vm_pdpt_entry(uint64_t addr)
{
    uint64_t *pdpt = vm_next_level(&vm_pml4[(addr >> 39) & 511]);
    return pdpt ? &pdpt[(addr >> 30) & 511] : NULL;
}

/* vm_pd_entry: the page-directory entry covering 2 MiB page `addr`. */
static uint64_t *vm_pd_entry(uint64_t addr)
{
    uint64_t *pdpt = vm_next_level(&vm_pml4[(addr >> 39) & 511]);
    uint64_t *pd = pdpt ? vm_next_level(&pdpt[(addr >> 30) & 511]) : NULL;
    return pd ? &pd[(addr >> 21) & 511] : NULL;
}

/* vm_ram_bytes: how much of [base, base+len) is RAM (usable or ACPI), from the memory map
 * (whose regions do not overlap). */
static uint64_t vm_ram_bytes(const struct memmap *mm, uint64_t base, uint64_t len)
{
    uint64_t ram = 0;
    for (unsigned i = 0; i < mm->n; i++) {
        const struct memmap_region *r = &mm->r[i];
        bool ramlike = r->type == MEMMAP_USABLE || r->type == MEMMAP_ACPI_RECLAIM ||
                       r->type == MEMMAP_ACPI_NVS;
        uint64_t lo = r->base > base ? r->base : base;
        uint64_t hi = r->base + r->len < base + len ? r->base + r->len : base + len;
        if (ramlike && lo < hi) {
            ram += hi - lo;
        }
    }
    return ram;
}

static bool vm_is_ram(const struct memmap *mm, uint64_t base, uint64_t len)
{
    return vm_ram_bytes(mm, base, len) != 0;
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

/* vm_map_gib: GiB `addr` as one 1 GiB page when it is uniform (all RAM or none) and the CPU
 * allows it, else as 2 MiB pages, each cached as what it holds. The first GiB is never one
 * page: its first 2 MiB are 4 KiB pages (vm_map_low_2m). */
static int vm_map_gib(const struct memmap *mm, uint64_t addr, bool big_pages)
{
    uint64_t ram = vm_ram_bytes(mm, addr, GIB);
    if (big_pages && addr != 0 && (ram == 0 || ram == GIB)) {
        uint64_t *pdpte = vm_pdpt_entry(addr);
        if (pdpte == NULL) {
            return WS_ERR_NO_MEMORY;
        }
        *pdpte = addr | PTE_P | PTE_W | PTE_PS | (ram == 0 ? PTE_UNCACHED : 0);
        return WS_OK;
    }
    int err = WS_OK;
    for (uint64_t a = addr == 0 ? PAGE_2M : addr; err == WS_OK && a < addr + GIB; a += PAGE_2M) {
        err = vm_map_2m(a, !vm_is_ram(mm, a, PAGE_2M));
    }
    return err;
}

static bool vm_big_pages;

bool vm_uses_1g_pages(void)
{
    return vm_big_pages;
}

int vm_init(const struct memmap *mm)
{
    uint64_t top = memmap_highest_usable_end(mm);
    bool big_pages = vm_big_pages = vm_has_1g_pages();

    top = top < 4 * GIB ? 4 * GIB : (top + GIB - 1) & ~(GIB - 1);
    vm_pool_used = 0;
    vm_pml4 = vm_alloc_table();
    int err = vm_map_low_2m();
    for (uint64_t a = 0; err == WS_OK && a < top; a += GIB) {
        err = vm_map_gib(mm, a, big_pages);
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
        uint64_t *pdpte = vm_pdpt_entry(a);
        if (pdpte != NULL && (*pdpte & PTE_PS)) {
            continue; /* inside a 1 GiB page mapped here before */
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
