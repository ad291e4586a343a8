/* kernel/trap.h: the register frame every interrupt/exception stub builds (kernel/isr.S). */
#ifndef WS_TRAP_H
#define WS_TRAP_H

#include <stdint.h>

/* Field order is the reverse of the pushes in isr_common, then what the CPU pushed. */
struct trapframe {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t vector, error_code;
    uint64_t rip, cs, rflags, rsp, ss; /* pushed by the CPU (SDM 3A 6.14.1) */
};

_Static_assert(sizeof(struct trapframe) == 22 * 8, "trapframe layout must match isr.S");

#define VEC_NMI 2
#define VEC_DOUBLE_FAULT 8
#define VEC_PAGE_FAULT 14
#define VEC_MACHINE_CHECK 18
#define VEC_FIRST_EXTERNAL 32
#define VEC_TIMER 0x80     /* local APIC timer: wakes a halted core (kernel/loop.c) */
#define VEC_WAKE 0x81      /* IPI from core 0: a port changed state, look (irq_wake_core) */
#define VEC_SPURIOUS 0xFF  /* LAPIC spurious vector (SDM 3A 10.9) */

void trap_dispatch(struct trapframe *tf);

/* cpu_tables_init: build the shared GDT (with one TSS per core) and IDT. Boot core, once. */
void cpu_tables_init(void);
/* cpu_tables_load: load GDT, TSS and IDT on the calling core (its percpu block must be set). */
void cpu_tables_load(void);

#endif
