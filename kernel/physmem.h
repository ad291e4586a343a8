/*
 * kernel/physmem.h: read-only access to physical memory that the loader and firmware hand us
 * (Multiboot info, ACPI tables), so the same parsers run in the firmware and in host tests.
 */
#ifndef WS_PHYSMEM_H
#define WS_PHYSMEM_H

#include <stddef.h>
#include <stdint.h>

/*
 * map: returns a pointer to [phys, phys+len) or NULL if that range is not readable.
 * The firmware supplies an identity map bounded by RAM; tests supply a buffer at a fake base.
 * The pointer has the alignment of phys and nothing more: parsers read fields through packed
 * structs or memcpy. ctx belongs to whoever filled in map.
 */
struct physmem {
    const void *(*map)(const struct physmem *pm, uint64_t phys, size_t len);
    void *ctx;
};

/*
 * physmem_map: pm->map with the checks every caller would otherwise repeat, so a provider
 * only has to test its own bounds: a missing provider, len 0 and ranges that would wrap past
 * 2^64 all give NULL. Any context.
 */
static inline const void *physmem_map(const struct physmem *pm, uint64_t phys, size_t len)
{
    if (pm == NULL || pm->map == NULL || len == 0 || (uint64_t)len - 1 > UINT64_MAX - phys) {
        return NULL;
    }
    return pm->map(pm, phys, len);
}

#endif
