/* kernel/lapic.h: the local APIC, xAPIC (MMIO) or x2APIC (MSR) mode: identity, IPIs, EOI,
 * timer. SDM Vol. 3A ch. 10. */
#ifndef WS_LAPIC_H
#define WS_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

/* lapic_choose_mode: x2APIC if the firmware left it on, or if max_apic_id (the MADT's highest)
 * needs it and the CPU has it; else xAPIC. Returns whether x2APIC. Boot core, before
 * lapic_init; the other cores follow in their lapic_init. */
bool lapic_choose_mode(uint32_t max_apic_id);
/* lapic_mode: "xAPIC" or "x2APIC (...)" and why, for the banner. */
const char *lapic_mode(void);
/* lapic_init: this core's local APIC in the chosen mode, software-enabled with the spurious
 * vector. Every core, before lapic_id. */
void lapic_init(uintptr_t mmio_base);
uint32_t lapic_id(void);
void lapic_eoi(void);
/* lapic_send_init / lapic_send_sipi: the INIT-SIPI-SIPI start-up IPIs (SDM 3A 8.4.4.1). */
int lapic_send_init(uint32_t apic_id);
int lapic_send_sipi(uint32_t apic_id, uint8_t vector_page);
/* lapic_send_fixed: interrupt core apic_id on `vector` (fixed delivery, SDM 3A 10.6.1). */
int lapic_send_fixed(uint32_t apic_id, uint8_t vector);
/* lapic_send_nmi_all_but_self: stop the other cores (panic). Safe before lapic_init. */
void lapic_send_nmi_all_but_self(void);
/* lapic_send_fixed: interrupt `vector` on the core with this APIC ID (a wake-up). */
int lapic_send_fixed(uint32_t apic_id, uint8_t vector);

/* lapic_timer_calibrate: measure the timer's rate against the TSC. Boot core, after time_init. */
void lapic_timer_calibrate(void);
uint64_t lapic_timer_hz(void);
/* lapic_timer_oneshot_us: interrupt this core (vector VEC_TIMER) once, `us` from now. */
void lapic_timer_oneshot_us(uint64_t us);

#endif
