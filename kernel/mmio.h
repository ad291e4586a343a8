/*
 * kernel/mmio.h: the one narrow layer for device register access. Each accessor is a single
 * mov of the exact width (hypervisors decode the MMIO instruction; wider or split accesses
 * confuse them). x86 keeps stores to uncached memory in program order, so no fence is needed
 * between MMIO writes; see dma_wmb_before_tail() for the DMA case.
 */
#ifndef WS_MMIO_H
#define WS_MMIO_H

#include <stdint.h>

#ifdef WS_HOST_MMIO
/*
 * Host builds against device models (tests/hostsim): the same driver source, with every access
 * going through the harness, which hands addresses inside a model's BAR to that model and does
 * a plain memory access for anything else (a fake NIC's tail register in test memory).
 */
uint64_t host_mmio_read(uintptr_t addr, unsigned bytes);
void host_mmio_write(uintptr_t addr, uint64_t v, unsigned bytes);

static inline uint32_t mmio_read32(uintptr_t addr)
{
    return (uint32_t)host_mmio_read(addr, 4);
}

static inline void mmio_write32(uintptr_t addr, uint32_t v)
{
    host_mmio_write(addr, v, 4);
}

static inline uint16_t mmio_read16(uintptr_t addr)
{
    return (uint16_t)host_mmio_read(addr, 2);
}

static inline void mmio_write16(uintptr_t addr, uint16_t v)
{
    host_mmio_write(addr, v, 2);
}

static inline uint8_t mmio_read8(uintptr_t addr)
{
    return (uint8_t)host_mmio_read(addr, 1);
}

static inline uint64_t mmio_read64(uintptr_t addr)
{
    return host_mmio_read(addr, 8);
}

static inline void mmio_write64(uintptr_t addr, uint64_t v)
{
    host_mmio_write(addr, v, 8);
}

#else /* the firmware: one mov of the exact width */

static inline uint32_t mmio_read32(uintptr_t addr)
{
    uint32_t v;
    __asm__ volatile("movl (%1), %0" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

static inline void mmio_write32(uintptr_t addr, uint32_t v)
{
    __asm__ volatile("movl %0, (%1)" : : "r"(v), "r"(addr) : "memory");
}

static inline uint16_t mmio_read16(uintptr_t addr)
{
    uint16_t v;
    __asm__ volatile("movw (%1), %0" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

static inline void mmio_write16(uintptr_t addr, uint16_t v)
{
    __asm__ volatile("movw %0, (%1)" : : "r"(v), "r"(addr) : "memory");
}

static inline uint8_t mmio_read8(uintptr_t addr)
{
    uint8_t v;
    __asm__ volatile("movb (%1), %0" : "=q"(v) : "r"(addr) : "memory");
    return v;
}

static inline uint64_t mmio_read64(uintptr_t addr)
{
    uint64_t v;
    __asm__ volatile("movq (%1), %0" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

static inline void mmio_write64(uintptr_t addr, uint64_t v)
{
    __asm__ volatile("movq %0, (%1)" : : "r"(v), "r"(addr) : "memory");
}

#endif /* WS_HOST_MMIO */

#endif
