/*
 * kernel/percpu.h: per-core state. Each core's block is reached in O(1) through GS base (the
 * first field points to the block itself), so the fast path never scans for its core id.
 */
#ifndef WS_PERCPU_H
#define WS_PERCPU_H

#include <stdbool.h>
#include <reent.h>
#include <stdint.h>

#include "param.h"

#define CACHE_LINE_BYTES 64

/* 64-bit TSS (SDM 3A 7.7); only the IST pointers matter to us. */
struct tss64 {
    uint32_t reserved0;
    uint64_t rsp[3];
    uint64_t reserved1;
    uint64_t ist[7];
    uint64_t reserved2;
    uint16_t reserved3;
    uint16_t iomap_base;
} __attribute__((packed));

#define IST_NMI 1
#define IST_DOUBLE_FAULT 2
#define IST_MACHINE_CHECK 3

struct percpu {
    /* read-only after the core's own init */
    struct percpu *self; /* must stay first: this_cpu() reads %gs:0 */
    unsigned index;      /* 0 = boot core */
    uint32_t apic_id;
    uint32_t numa_node;           /* SRAT's proximity domain (0 without SRAT); set by core 0 */
    uintptr_t stack_lo, stack_hi; /* bounds for backtraces */

    /* written by this core only */
    volatile bool online; /* set when the core enters its loop */
    volatile uint64_t loop_iterations;
    volatile uint64_t unexpected_irqs;
    volatile uint64_t timer_irqs;
    volatile uint64_t wake_irqs;   /* VEC_WAKE IPIs from core 0 (port state changes) */
    volatile uint64_t busy_cycles; /* TSC cycles of loop passes that moved a packet */
    volatile uint64_t idle_cycles; /* ... that moved none, including time halted */
    volatile uint64_t halts;       /* adaptive mode: times the core slept */
    volatile bool in_exception; /* a fault inside the fault handler halts at once */
    uint8_t kick_vector;        /* IPI that wakes this core (loop_kick); 0 = none */

    /* written by this core (set) and by any core that kicks it (cleared) */
    volatile bool asleep __attribute__((aligned(CACHE_LINE_BYTES)));
    volatile uint64_t kicks_received; /* written by this core */

    struct tss64 tss;
    struct _reent reent; /* newlib's per-thread state (errno, ...): one per core */
} __attribute__((aligned(CACHE_LINE_BYTES)));

extern struct percpu percpu_blocks[WS_MAX_CPUS];

static inline struct percpu *this_cpu(void)
{
    struct percpu *p;
    __asm__ volatile("movq %%gs:0, %0" : "=r"(p));
    return p;
}

/* percpu_setup: fill core `index`'s block and point this core's GS base at it. */
void percpu_setup(unsigned index, uint32_t apic_id);

#endif
