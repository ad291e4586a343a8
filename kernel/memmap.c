/*
 * kernel/memmap.c: collects loader-reported memory ranges and normalizes them into sorted,
 * disjoint, page-aligned regions. Types are those of ACPI 6.5 §15 (System Address Map
 * Interfaces); overlaps, which the spec leaves undefined, go to the more restrictive type.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "err.h"
#include "memmap.h"

/*
 * Resolving overlaps can split a region in two, so normalizing works in a table twice the
 * size before trimming back. 2 x 64 regions x 24 bytes (+ 1 KiB of boundaries) on the stack
 * is fine on the 64 KiB boot stack.
 */
#define MEMMAP_WORK_REGIONS (2 * WS_MAX_MEM_REGIONS)

static uint64_t memmap_end(const struct memmap_region *r)
{
    return r->base + r->len;
}

void memmap_init(struct memmap *mm)
{
    memset(mm, 0, sizeof(*mm));
}

static void memmap_remove(struct memmap_region *r, unsigned *n, unsigned i)
{
    memmove(&r[i], &r[i + 1], (*n - i - 1) * sizeof(r[0]));
    (*n)--;
}

/* Index of the smallest region (usable ones only, if asked), or -1 if there is none. */
static int memmap_smallest(const struct memmap_region *r, unsigned n, bool usable_only)
{
    int best = -1;

    for (unsigned i = 0; i < n; i++) {
        if (usable_only && r[i].type != MEMMAP_USABLE) {
            continue;
        }
        if (best < 0 || r[i].len < r[best].len) {
            best = (int)i;
        }
    }
    return best;
}

/* Every region start and end, sorted, duplicates removed; returns how many. */
static unsigned memmap_bounds(const struct memmap *mm, uint64_t *pt)
{
    unsigned n = 0, u = 0;

    for (unsigned i = 0; i < mm->n; i++) {
        pt[n++] = mm->r[i].base;
        pt[n++] = memmap_end(&mm->r[i]);
    }
    for (unsigned i = 1; i < n; i++) { /* insertion sort: n <= 128 */
        uint64_t v = pt[i];
        unsigned j = i;
        for (; j > 0 && pt[j - 1] > v; j--) {
            pt[j] = pt[j - 1];
        }
        pt[j] = v;
    }
    for (unsigned i = 0; i < n; i++) {
        if (u == 0 || pt[u - 1] != pt[i]) {
            pt[u++] = pt[i];
        }
    }
    return u;
}

/* Highest-precedence type of the regions covering address a, 0 if none does. */
static uint32_t memmap_type_at(const struct memmap *mm, uint64_t a)
{
    uint32_t type = 0;

    for (unsigned i = 0; i < mm->n; i++) {
        const struct memmap_region *r = &mm->r[i];
        if (r->base <= a && a < memmap_end(r) && r->type > type) {
            type = r->type;
        }
    }
    return type;
}

/*
 * Sweeps the elementary intervals between consecutive boundaries: each is covered wholly or
 * not at all by every region, so one lookup per interval decides its type. Adjacent intervals
 * of one type are merged. Output is sorted and disjoint; at most 2n - 1 regions.
 */
static unsigned memmap_sweep(const struct memmap *mm, struct memmap_region *out)
{
    uint64_t pt[2 * WS_MAX_MEM_REGIONS];
    unsigned npt = memmap_bounds(mm, pt), n = 0;

    for (unsigned i = 0; i + 1 < npt; i++) {
        uint32_t type = memmap_type_at(mm, pt[i]);
        if (type == 0) {
            continue;
        }
        if (n > 0 && out[n - 1].type == type && memmap_end(&out[n - 1]) == pt[i]) {
            out[n - 1].len += pt[i + 1] - pt[i];
            continue;
        }
        out[n++] = (struct memmap_region){ .base = pt[i], .len = pt[i + 1] - pt[i], .type = type };
    }
    return n;
}

/* Shrinks r to whole pages; false if no whole page is left. */
static bool memmap_page_trim(struct memmap_region *r)
{
    const uint64_t mask = MEMMAP_PAGE_BYTES - 1;
    uint64_t base, end = memmap_end(r) & ~mask;

    if (r->base > UINT64_MAX - mask) {
        return false;
    }
    base = (r->base + mask) & ~mask;
    if (end <= base) {
        return false;
    }
    r->base = base;
    r->len = end - base;
    return true;
}

/*
 * Rebuilds mm as sorted, disjoint regions, page-trimming usable ones if asked. If the result
 * does not fit, the smallest usable regions go first; only then the smallest others, which is
 * safe because the regions are disjoint by now (losing a reserved one exposes nothing).
 */
static void memmap_rebuild(struct memmap *mm, bool page_align)
{
    struct memmap_region work[MEMMAP_WORK_REGIONS];
    unsigned n = memmap_sweep(mm, work);

    for (unsigned i = 0; page_align && i < n;) {
        if (work[i].type == MEMMAP_USABLE && !memmap_page_trim(&work[i])) {
            memmap_remove(work, &n, i);
        } else {
            i++;
        }
    }
    while (n > WS_MAX_MEM_REGIONS) {
        int v = memmap_smallest(work, n, true);
        memmap_remove(work, &n, (unsigned)(v >= 0 ? v : memmap_smallest(work, n, false)));
        mm->dropped++;
    }
    memcpy(mm->r, work, n * sizeof(work[0]));
    mm->n = n;
}

/*
 * Frees a slot in a full table for a region of the given type. A usable newcomer is simply
 * refused. A non-usable one evicts the smallest usable region: the raw table may still
 * overlap, so forgetting a reserved range could expose memory, forgetting RAM never does.
 */
static bool memmap_make_room(struct memmap *mm, uint32_t type)
{
    int v;

    if (type == MEMMAP_USABLE) {
        return false;
    }
    v = memmap_smallest(mm->r, mm->n, true);
    if (v < 0) {
        return false;
    }
    memmap_remove(mm->r, &mm->n, (unsigned)v);
    mm->dropped++;
    return true;
}

int memmap_add(struct memmap *mm, uint64_t base, uint64_t len, uint32_t type)
{
    if (type < MEMMAP_USABLE || type > MEMMAP_BAD) {
        return WS_ERR_INVAL;
    }
    if (len == 0) {
        return 0;
    }
    if (len > UINT64_MAX - base) {
        return WS_ERR_RANGE;
    }
    if (mm->n == WS_MAX_MEM_REGIONS) {
        memmap_rebuild(mm, false); /* merging may free slots; page trimming waits for the end */
    }
    if (mm->n == WS_MAX_MEM_REGIONS && !memmap_make_room(mm, type)) {
        mm->dropped++;
        return WS_ERR_NO_MEMORY;
    }
    mm->r[mm->n++] = (struct memmap_region){ .base = base, .len = len, .type = type };
    mm->normalized = false;
    return 0;
}

void memmap_normalize(struct memmap *mm)
{
    memmap_rebuild(mm, true);
    mm->normalized = true;
}

int memmap_reserve(struct memmap *mm, uint64_t base, uint64_t len)
{
    int rc = memmap_add(mm, base, len, MEMMAP_RESERVED);

    memmap_normalize(mm);
    return rc;
}

static int memmap_find_free_below(const struct memmap *mm, uint64_t size, uint64_t align,
                                  uint64_t min_addr, uint64_t max_addr, uint64_t *out)
{
    if (align == 0) {
        align = 1;
    }
    if (!mm->normalized || size == 0 || (align & (align - 1)) != 0) {
        return WS_ERR_INVAL;
    }
    for (unsigned i = 0; i < mm->n; i++) {
        const struct memmap_region *r = &mm->r[i];
        uint64_t end = memmap_end(r), a = r->base > min_addr ? r->base : min_addr;
        end = end < max_addr ? end : max_addr;

        if (r->type != MEMMAP_USABLE || a > UINT64_MAX - (align - 1)) {
            continue;
        }
        a = (a + align - 1) & ~(align - 1);
        if (a < end && size <= end - a) {
            *out = a;
            return 0;
        }
    }
    return WS_ERR_NOT_FOUND;
}

int memmap_find_free(const struct memmap *mm, uint64_t size, uint64_t align, uint64_t min_addr,
                     uint64_t *out)
{
    return memmap_find_free_below(mm, size, align, min_addr, UINT64_MAX, out);
}

int memmap_alloc_in(struct memmap *mm, uint64_t size, uint64_t align, uint64_t min_addr,
                    uint64_t max_addr, uint64_t *out)
{
    int rc = memmap_find_free_below(mm, size, align, min_addr, max_addr, out);

    return rc != 0 ? rc : memmap_reserve(mm, *out, size);
}

int memmap_alloc(struct memmap *mm, uint64_t size, uint64_t align, uint64_t min_addr,
                 uint64_t *out)
{
    int rc = memmap_find_free(mm, size, align, min_addr, out);

    return rc != 0 ? rc : memmap_reserve(mm, *out, size);
}

uint64_t memmap_usable_bytes(const struct memmap *mm)
{
    uint64_t sum = 0;

    for (unsigned i = 0; i < mm->n; i++) {
        if (mm->r[i].type == MEMMAP_USABLE) {
            sum += mm->r[i].len;
        }
    }
    return sum;
}

uint64_t memmap_highest_usable_end(const struct memmap *mm)
{
    uint64_t end = 0;

    for (unsigned i = 0; i < mm->n; i++) {
        if (mm->r[i].type == MEMMAP_USABLE && memmap_end(&mm->r[i]) > end) {
            end = memmap_end(&mm->r[i]);
        }
    }
    return end;
}

const char *memmap_type_name(uint32_t type)
{
    switch (type) {
    case MEMMAP_USABLE:
        return "usable";
    case MEMMAP_ACPI_RECLAIM:
        return "acpi-reclaim";
    case MEMMAP_ACPI_NVS:
        return "acpi-nvs";
    case MEMMAP_RESERVED:
        return "reserved";
    case MEMMAP_BAD:
        return "bad";
    default:
        return "unknown";
    }
}
