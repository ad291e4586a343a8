/* kernel/smp.h: starting the application processors and the per-core loop. */
#ifndef WS_SMP_H
#define WS_SMP_H

#include "acpi.h"
#include "loop.h"

/* smp_start_aps: start every enabled CPU the MADT lists, up to max_cores in all (0 = no limit
 * but WS_MAX_CPUS), one at a time; an AP not online within WS_AP_START_TIMEOUT_MS is reported
 * by APIC ID and put back to sleep. Boot core, after vm/time/lapic init. Returns cores online. */
unsigned smp_start_aps(const struct acpi_info *acpi, unsigned max_cores);
/* smp_cores_online: how many cores reached their loop (or are about to: the boot core). */
unsigned smp_cores_online(void);
/* smp_core_node: core's NUMA node (SRAT's proximity domain; 0 without SRAT). Any core. */
uint32_t smp_core_node(unsigned core);

#endif
