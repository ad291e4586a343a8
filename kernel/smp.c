/*
 * kernel/smp.c: AP start-up by INIT-SIPI-SIPI (SDM Vol. 3A 8.4.4.1, "typical AP
 * initialization sequence") through the real-mode trampoline in boot/trampoline.S, and the
 * per-core loop. Each core gets its own stack and per-core block; no core ever migrates work.
 */
#include "smp.h"

#include <string.h>

#include "boot/bootdefs.h"
#include "console.h"
#include "lapic.h"
#include "percpu.h"
#include "time.h"
#include "trap.h"
#include "x86.h"

#define SMP_INIT_DELAY_US 10000 /* after INIT, before the first SIPI (SDM: 10 ms) */
#define SMP_SIPI_DELAY_US 200   /* between the two SIPIs (SDM: 200 us) */

/* The trampoline's parameter block; layout fixed by boot/trampoline.S. */
struct ap_boot_params {
    uint64_t cr3;
    uint64_t stack_top;
    uint64_t entry;
    uint64_t cpu_index;
};

extern const uint8_t ap_trampoline_start[], ap_trampoline_end[], ap_trampoline_params[];

uint8_t cpu_stacks[WS_MAX_CPUS][WS_STACK_BYTES] __attribute__((aligned(4096)));
struct percpu percpu_blocks[WS_MAX_CPUS];
static unsigned smp_ncores = 1; /* read-only after smp_start_aps */

void percpu_setup(unsigned index, uint32_t apic_id)
{
    struct percpu *p = &percpu_blocks[index];
    p->index = index;
    p->apic_id = apic_id;
    p->stack_lo = (uintptr_t)cpu_stacks[index];
    p->stack_hi = p->stack_lo + WS_STACK_BYTES;
    if (p->self != p) {
        _REENT_INIT_PTR(&p->reent);
    }
    p->self = p;
    wrmsr(MSR_GS_BASE, (uintptr_t)p);
}

/* __getreent: newlib (built with __DYNAMIC_REENT__) asks for the caller's state; each core has
 * its own, so errno and formatting state are never shared between cores. */
struct _reent *__getreent(void)
{
    return &this_cpu()->reent;
}

/* ap_entry: first C code on an AP, on its own stack (from the trampoline). */
static void ap_entry(uint64_t index)
{
    lapic_init(0); /* first: in x2APIC mode even reading the ID needs the mode entered */
    percpu_setup((unsigned)index, lapic_id());
    cpu_tables_load();
    core_loop();
}

static struct ap_boot_params *smp_params(void)
{
    return (struct ap_boot_params *)(AP_TRAMPOLINE_PHYS +
                                     (ap_trampoline_params - ap_trampoline_start));
}

/* smp_start_one: wake one AP as core `index`; true once it reports online. */
static bool smp_start_one(uint32_t apic_id, unsigned index)
{
    struct ap_boot_params *p = smp_params();
    p->cr3 = read_cr3();
    p->stack_top = (uintptr_t)&cpu_stacks[index][WS_STACK_BYTES];
    p->entry = (uintptr_t)ap_entry;
    p->cpu_index = index;
    compiler_barrier();

    lapic_send_init(apic_id);
    time_delay_us(SMP_INIT_DELAY_US);
    for (int sipi = 0; sipi < 2 && !percpu_blocks[index].online; sipi++) {
        lapic_send_sipi(apic_id, AP_TRAMPOLINE_PHYS >> 12);
        time_delay_us(SMP_SIPI_DELAY_US);
    }
    uint64_t deadline = time_deadline_us(WS_AP_START_TIMEOUT_MS * 1000ULL);
    while (!percpu_blocks[index].online) {
        if (time_after(deadline)) {
            lapic_send_init(apic_id); /* back to wait-for-SIPI: it must not run late */
            return false;
        }
        cpu_relax();
    }
    return true;
}

unsigned smp_start_aps(const struct acpi_info *acpi, unsigned max_cores)
{
    uint32_t self = this_cpu()->apic_id;

    if (max_cores == 0 || max_cores > WS_MAX_CPUS) {
        max_cores = WS_MAX_CPUS;
    }
    memcpy((void *)AP_TRAMPOLINE_PHYS, ap_trampoline_start,
           (size_t)(ap_trampoline_end - ap_trampoline_start));
    for (unsigned i = 0; i < acpi->ncpu; i++) {
        uint32_t id = acpi->cpu[i].apic_id;
        if (id == self || !acpi->cpu[i].enabled) {
            continue;
        }
        if (smp_ncores == max_cores) {
            kprintf("cpu apic %u: not started (config cores=%u)\n", id, max_cores);
            continue;
        }
        if (smp_start_one(id, smp_ncores)) {
            smp_ncores++;
        } else {
            kprintf("cpu apic %u: did not start within %d ms; skipped\n", id,
                    WS_AP_START_TIMEOUT_MS);
        }
    }
    return smp_ncores;
}

unsigned smp_cores_online(void)
{
    return smp_ncores;
}

uint32_t smp_core_node(unsigned core)
{
    return core < WS_MAX_CPUS ? percpu_blocks[core].numa_node : 0;
}
