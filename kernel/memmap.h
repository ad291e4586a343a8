/*
 * kernel/memmap.h: the physical memory map, built from whatever the loader reported (e820-style
 * Multiboot maps, the UEFI memory map) and turned into sorted, disjoint, page-aligned regions.
 */
#ifndef WS_MEMMAP_H
#define WS_MEMMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "param.h"

#define MEMMAP_PAGE_BYTES 4096ULL

/*
 * Region types, ordered by precedence: where reported ranges overlap, the higher value wins,
 * so memory is usable only where nothing more restrictive claims it. 0 is never a valid type.
 * (Deliberately not the e820 numbering: loaders' types are converted explicitly.)
 */
enum memmap_type {
    MEMMAP_USABLE = 1,       /* free RAM, ours once the kernel image and friends are carved out */
    MEMMAP_ACPI_RECLAIM = 2, /* ACPI tables: readable, reusable once parsed */
    MEMMAP_ACPI_NVS = 3,     /* firmware keeps state here across sleep: never touch */
    MEMMAP_RESERVED = 4,     /* anything else the firmware owns (ROMs, MMIO, runtime services) */
    MEMMAP_BAD = 5,          /* RAM reported defective */
};

/* One range [base, base + len); len is never 0 and base + len never wraps. */
struct memmap_region {
    uint64_t base;
    uint64_t len;
    uint32_t type; /* enum memmap_type */
};

/*
 * The map. Single-threaded: built by the BSP during boot, read-only afterwards.
 * dropped counts regions (or pieces) lost because the table was full; usable ones are given up
 * first, so a full table costs memory, never safety.
 */
struct memmap {
    struct memmap_region r[WS_MAX_MEM_REGIONS];
    unsigned n;
    unsigned dropped;
    bool normalized; /* set by memmap_normalize(), cleared by memmap_add() */
};

/* memmap_init: empty map. */
void memmap_init(struct memmap *mm);

/*
 * memmap_add: record [base, base + len) as type, in any order and overlapping anything.
 * Returns 0 (also for len 0, which is ignored); WS_ERR_RANGE if base + len does not fit in
 * 64 bits (ends are kept as exclusive 64-bit addresses, so a range may not touch 2^64);
 * WS_ERR_INVAL for an unknown type; WS_ERR_NO_MEMORY if the table is full even after merging
 * and the region was dropped (counted in mm->dropped; the map stays safe to use).
 * Boot, BSP only.
 */
int memmap_add(struct memmap *mm, uint64_t base, uint64_t len, uint32_t type);

/*
 * memmap_normalize: sort; resolve overlaps by precedence (a usable range under a reserved one
 * is split or trimmed); merge adjacent regions of the same type; shrink usable regions inward
 * to whole 4 KiB pages (dropping those left empty). Idempotent. Call before any query below.
 */
void memmap_normalize(struct memmap *mm);

/*
 * memmap_reserve: carve [base, base + len) out of usable memory (kernel image, boot stacks,
 * AP trampoline) by recording it as MEMMAP_RESERVED and renormalizing. Same returns as
 * memmap_add. The map is normalized afterwards.
 */
int memmap_reserve(struct memmap *mm, uint64_t base, uint64_t len);

/*
 * memmap_find_free: lowest address a >= min_addr, aligned to align (a power of two; 0 means
 * 1), with [a, a + size) inside one usable region. Does not reserve it. Returns 0,
 * WS_ERR_INVAL (bad size/align, or map not normalized) or WS_ERR_NOT_FOUND.
 */
int memmap_find_free(const struct memmap *mm, uint64_t size, uint64_t align, uint64_t min_addr,
                     uint64_t *out);

/* memmap_alloc: memmap_find_free() then memmap_reserve() of the result. Same returns. */
int memmap_alloc(struct memmap *mm, uint64_t size, uint64_t align, uint64_t min_addr,
                 uint64_t *out);
/* memmap_alloc_in: memmap_alloc, with the whole of [a, a + size) below max_addr too (a NUMA
 * node's range). */
int memmap_alloc_in(struct memmap *mm, uint64_t size, uint64_t align, uint64_t min_addr,
                    uint64_t max_addr, uint64_t *out);

/* memmap_usable_bytes: total usable bytes (normalized map). */
uint64_t memmap_usable_bytes(const struct memmap *mm);

/* memmap_highest_usable_end: end (exclusive) of the highest usable region, 0 if none. */
uint64_t memmap_highest_usable_end(const struct memmap *mm);

/* memmap_type_name: "usable", "reserved", ... for console lines; never NULL. */
const char *memmap_type_name(uint32_t type);

#endif
