/*
 * kernel/time.h: TSC-based time. The boot core finds the TSC frequency once (CPUID leaf 0x15,
 * a hypervisor's frequency leaf, or a calibration against HPET, the ACPI PM timer or the PIT);
 * every other core uses that result (the invariant TSC ticks at one rate on all cores, SDM 3B
 * 17.17).
 */
#ifndef WS_TIME_H
#define WS_TIME_H

#include <stdbool.h>
#include <stdint.h>

struct acpi_info;

/* time_init: determine the TSC frequency from the references the platform has (acpi: its
 * HPET and PM timer; may be NULL), cross-checked; the banner says which. Boot core, once,
 * after the ACPI tables are read. */
void time_init(const struct acpi_info *acpi);
uint64_t time_tsc_hz(void);
const char *time_tsc_source(void); /* how the frequency was found, for the banner */
/* time_ns: nanoseconds since time_init, monotonic. Any core. */
uint64_t time_ns(void);
/* time_us_to_tsc: how many TSC cycles `us` microseconds last. A span is this, never
 * `time_deadline_us(us) - rdtsc()`: the core can be held up between those two reads (an SMI, or
 * a hypervisor running another vCPU) and the difference then wraps to nearly 2^64. */
uint64_t time_us_to_tsc(uint64_t us);
/* time_deadline_us / time_after: TSC deadline `us` from now, and whether it has passed.
 * Before time_init they assume a fast (10 GHz) TSC, so a wait is longer, never shorter. */
uint64_t time_deadline_us(uint64_t us);
bool time_after(uint64_t deadline_tsc);
/* time_delay_us: busy-wait. */
void time_delay_us(uint64_t us);
/* time_tsc_to_ns: convert a TSC delta (multiply and shift, no division). */
uint64_t time_tsc_to_ns(uint64_t tsc);

#endif
