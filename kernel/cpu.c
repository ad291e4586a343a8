/*
 * kernel/cpu.c: descriptor tables. One GDT shared by all cores, holding a 64-bit TSS per core
 * (each core's IST stacks differ), and one IDT whose 256 gates point at kernel/isr.S stubs.
 * SDM Vol. 3A sections 3.4.5 (segment descriptors), 6.14 (64-bit IDT), 7.2.3 (TSS descriptor).
 */
#include <stdint.h>
#include <string.h>

#include "boot/bootdefs.h"
#include "percpu.h"
#include "trap.h"

#define GDT_FIXED_ENTRIES 4 /* null, code64, data, code32: as in boot/entry.S */
#define GDT_TSS_SELECTOR(i) ((GDT_FIXED_ENTRIES + 2 * (i)) * 8)
#define IDT_VECTORS 256
#define GATE_INTERRUPT 0x8E /* present, DPL 0, 64-bit interrupt gate (IF cleared on entry) */

struct idt_gate {
    uint16_t offset_lo;
    uint16_t selector;
    uint8_t ist;
    uint8_t type_attr;
    uint16_t offset_mid;
    uint32_t offset_hi;
    uint32_t reserved;
} __attribute__((packed));

struct desc_ptr {
    uint16_t limit;
    uint64_t base;
} __attribute__((packed));

_Static_assert(sizeof(struct idt_gate) == 16, "64-bit IDT gate is 16 bytes");

/* read-only after cpu_tables_init */
static uint64_t cpu_gdt[GDT_FIXED_ENTRIES + 2 * WS_MAX_CPUS] __attribute__((aligned(16)));
static struct idt_gate cpu_idt[IDT_VECTORS] __attribute__((aligned(16)));
extern const uint64_t isr_stub_table[IDT_VECTORS];

static uint8_t cpu_ist_stacks[WS_MAX_CPUS][3][WS_IST_STACK_BYTES] __attribute__((aligned(16)));

/* cpu_tss_descriptor: the two GDT words of an available 64-bit TSS (type 9) at `base`. */
static void cpu_tss_descriptor(uint64_t base, uint32_t limit, uint64_t out[2])
{
    out[0] = (limit & 0xFFFFULL) | ((base & 0xFFFFFFULL) << 16) | (0x89ULL << 40) |
             ((uint64_t)((limit >> 16) & 0xF) << 48) | (((base >> 24) & 0xFFULL) << 56);
    out[1] = base >> 32;
}

static uint8_t cpu_ist_for_vector(unsigned v)
{
    switch (v) {
    case VEC_NMI:
        return IST_NMI;
    case VEC_DOUBLE_FAULT:
        return IST_DOUBLE_FAULT;
    case VEC_MACHINE_CHECK:
        return IST_MACHINE_CHECK;
    default:
        return 0;
    }
}

static void cpu_idt_set(unsigned v, uint64_t handler)
{
    struct idt_gate *g = &cpu_idt[v];
    g->offset_lo = handler & 0xFFFF;
    g->selector = BOOT_CS64;
    g->ist = cpu_ist_for_vector(v);
    g->type_attr = GATE_INTERRUPT;
    g->offset_mid = (handler >> 16) & 0xFFFF;
    g->offset_hi = handler >> 32;
    g->reserved = 0;
}

void cpu_tables_init(void)
{
    cpu_gdt[0] = 0;
    cpu_gdt[1] = 0x00AF9A000000FFFFULL; /* 64-bit code */
    cpu_gdt[2] = 0x00CF92000000FFFFULL; /* data */
    cpu_gdt[3] = 0x00CF9A000000FFFFULL; /* 32-bit code */
    for (unsigned i = 0; i < WS_MAX_CPUS; i++) {
        struct tss64 *t = &percpu_blocks[i].tss;
        memset(t, 0, sizeof(*t));
        for (unsigned s = 0; s < 3; s++) {
            t->ist[s] = (uintptr_t)&cpu_ist_stacks[i][s][WS_IST_STACK_BYTES];
        }
        t->iomap_base = sizeof(*t); /* no I/O permission bitmap */
        cpu_tss_descriptor((uintptr_t)t, sizeof(*t) - 1, &cpu_gdt[GDT_FIXED_ENTRIES + 2 * i]);
    }
    for (unsigned v = 0; v < IDT_VECTORS; v++) {
        cpu_idt_set(v, isr_stub_table[v]);
    }
}

void cpu_tables_load(void)
{
    struct desc_ptr gdtp = { sizeof(cpu_gdt) - 1, (uintptr_t)cpu_gdt };
    struct desc_ptr idtp = { sizeof(cpu_idt) - 1, (uintptr_t)cpu_idt };
    uint16_t tss_sel = GDT_TSS_SELECTOR(this_cpu()->index);

    __asm__ volatile("lgdt %0" : : "m"(gdtp));
    /* Reload CS through a far return, and the data segments, from the new GDT. */
    __asm__ volatile("pushq %0\n\t"
                     "leaq 1f(%%rip), %%rax\n\t"
                     "pushq %%rax\n\t"
                     "lretq\n"
                     "1:\n\t"
                     "movw %w1, %%ds\n\t"
                     "movw %w1, %%es\n\t"
                     "movw %w1, %%ss\n\t"
                     :
                     : "i"(BOOT_CS64), "r"(BOOT_DS)
                     : "rax", "memory");
    /* ltr marks the descriptor busy; each core has its own, so cores never clash. */
    __asm__ volatile("ltr %0" : : "r"(tss_sel));
    __asm__ volatile("lidt %0" : : "m"(idtp));
}
