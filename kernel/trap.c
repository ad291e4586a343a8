/*
 * kernel/trap.c: what happens on every interrupt and exception. CPU exceptions (vectors 0-31)
 * are fatal: print core, vector, error code, RIP, CR2, all registers and a frame-pointer
 * backtrace with symbol names, then stop the machine per config. An NMI after a panic parks the
 * core. Other vectors are unexpected for now (the datapath polls): counted, acknowledged, ignored.
 */
#include "trap.h"

#include <stdarg.h>
#include <stdio.h>

#include "console.h"
#include "irq.h"
#include "ksyms.h"
#include "lapic.h"
#include "panic.h"
#include "percpu.h"
#include "x86.h"

#define TRAP_BACKTRACE_MAX_FRAMES 16
#define TRAP_LINE_BYTES 160

static const char *const trap_names[32] = {
    "divide error", "debug", "NMI", "breakpoint", "overflow", "bound range", "invalid opcode",
    "device not available", "double fault", "coprocessor overrun", "invalid TSS",
    "segment not present", "stack fault", "general protection", "page fault", "reserved 15",
    "x87 FP error", "alignment check", "machine check", "SIMD FP error", "virtualization",
    "control protection", "reserved 22", "reserved 23", "reserved 24", "reserved 25",
    "reserved 26", "reserved 27", "hypervisor injection", "VMM communication", "security",
    "reserved 31",
};

static void trap_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* trap_print: formatted line through the panic-safe console path. */
static void trap_print(const char *fmt, ...)
{
    char line[TRAP_LINE_BYTES];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n > 0) {
        console_write_panic(line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
    }
}

static void trap_print_symbol(const char *prefix, uint64_t addr)
{
    uintptr_t off = 0;
    const char *name = ksyms_lookup(addr, &off);
    if (name != NULL) {
        trap_print("%s0x%016llx %s+0x%llx\n", prefix, (unsigned long long)addr, name,
                   (unsigned long long)off);
    } else {
        trap_print("%s0x%016llx ?\n", prefix, (unsigned long long)addr);
    }
}

static void trap_dump_registers(const struct trapframe *tf)
{
    trap_print("  rax %016llx rbx %016llx rcx %016llx\n", (unsigned long long)tf->rax,
               (unsigned long long)tf->rbx, (unsigned long long)tf->rcx);
    trap_print("  rdx %016llx rsi %016llx rdi %016llx\n", (unsigned long long)tf->rdx,
               (unsigned long long)tf->rsi, (unsigned long long)tf->rdi);
    trap_print("  rbp %016llx rsp %016llx r8  %016llx\n", (unsigned long long)tf->rbp,
               (unsigned long long)tf->rsp, (unsigned long long)tf->r8);
    trap_print("  r9  %016llx r10 %016llx r11 %016llx\n", (unsigned long long)tf->r9,
               (unsigned long long)tf->r10, (unsigned long long)tf->r11);
    trap_print("  r12 %016llx r13 %016llx r14 %016llx\n", (unsigned long long)tf->r12,
               (unsigned long long)tf->r13, (unsigned long long)tf->r14);
    trap_print("  r15 %016llx rflags %016llx cs %04llx ss %04llx\n", (unsigned long long)tf->r15,
               (unsigned long long)tf->rflags, (unsigned long long)tf->cs,
               (unsigned long long)tf->ss);
}

/* trap_backtrace: follow saved frame pointers, trusting only addresses inside this core's stack
 * (a corrupt chain must end the walk, not fault inside the fault handler). */
static void trap_backtrace(const struct trapframe *tf)
{
    const struct percpu *cpu = this_cpu();
    uintptr_t fp = tf->rbp;

    trap_print("backtrace:\n");
    trap_print_symbol("  #0  ", tf->rip);
    for (int depth = 1; depth < TRAP_BACKTRACE_MAX_FRAMES; depth++) {
        if (fp < cpu->stack_lo || fp + 16 > cpu->stack_hi || (fp & 7) != 0) {
            break;
        }
        const uint64_t *frame = (const uint64_t *)fp;
        char prefix[16];
        snprintf(prefix, sizeof(prefix), "  #%-2d ", depth);
        trap_print_symbol(prefix, frame[1]);
        if (frame[0] <= fp) {
            break; /* frames grow upwards; anything else is a loop or garbage */
        }
        fp = frame[0];
    }
}

static void trap_fatal(struct trapframe *tf)
{
    struct percpu *cpu = this_cpu();

    if (cpu->in_exception) {
        console_write_panic("\nfatal: exception inside the exception handler\n", 47);
        panic_stop_machine();
    }
    cpu->in_exception = true;
    panic_claim(); /* only the first core to fail reports; the others park */
    trap_print("\nfatal exception: core %u (apic %u): vector %llu (%s), error code 0x%llx\n",
               cpu->index, cpu->apic_id, (unsigned long long)tf->vector, trap_names[tf->vector],
               (unsigned long long)tf->error_code);
    trap_print_symbol("  rip ", tf->rip);
    trap_print("  cr2 %016llx%s\n", (unsigned long long)read_cr2(),
               tf->vector == VEC_PAGE_FAULT ? " (faulting address)" : "");
    trap_dump_registers(tf);
    trap_backtrace(tf);
    panic_stop_machine();
}

void trap_dispatch(struct trapframe *tf)
{
    if (tf->vector == VEC_NMI && panic_halt_requested()) {
        panic_park_this_core();
    }
    if (tf->vector < VEC_FIRST_EXTERNAL) {
        trap_fatal(tf);
    }
    if (irq_dispatch((unsigned)tf->vector)) {
        return;
    }
    if (tf->vector == VEC_TIMER) {
        this_cpu()->timer_irqs++;
        lapic_eoi();
        return;
    }
    if (tf->vector == VEC_WAKE) {
        this_cpu()->wake_irqs++; /* the loop does the rest: the interrupt only ends a halt */
        lapic_eoi();
        return;
    }
    this_cpu()->unexpected_irqs++;
    if (tf->vector != VEC_SPURIOUS) {
        lapic_eoi(); /* a spurious interrupt must not be acknowledged (SDM 3A 10.9) */
    }
}
