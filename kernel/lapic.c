/*
 * kernel/lapic.c: local APIC access in xAPIC mode, registers per SDM Vol. 3A table 10-1.
 * The base comes from ACPI MADT (or the APIC base MSR); it is identity mapped uncached.
 */
#include "lapic.h"

#include "mmio.h"
#include "time.h"
#include "x86.h"

#define LAPIC_ID 0x020
#define LAPIC_ID_SHIFT 24
#define LAPIC_EOI 0x0B0
#define LAPIC_SVR 0x0F0 /* spurious interrupt vector register */
#define LAPIC_SVR_ENABLE 0x100
#define LAPIC_ICR_LO 0x300
#define LAPIC_ICR_HI 0x310
#define LAPIC_ICR_DEST_SHIFT 24
#define LAPIC_ICR_INIT 0x00000500
#define LAPIC_ICR_STARTUP 0x00000600
#define LAPIC_ICR_NMI 0x00000400
#define LAPIC_ICR_LEVEL_ASSERT 0x00004000
#define LAPIC_ICR_PENDING 0x00001000 /* delivery status: send pending */
#define LAPIC_ICR_ALL_BUT_SELF 0x000C0000
#define LAPIC_SPURIOUS_VECTOR 0xFF
#define LAPIC_ICR_TIMEOUT_US 10000

#define LAPIC_DEFAULT_BASE 0xFEE00000UL

static uintptr_t lapic_base = LAPIC_DEFAULT_BASE; /* read-only after the boot core's init */

static uint32_t lapic_read(uint32_t reg)
{
    return mmio_read32(lapic_base + reg);
}

static void lapic_write(uint32_t reg, uint32_t v)
{
    mmio_write32(lapic_base + reg, v);
}

void lapic_init(uintptr_t mmio_base)
{
    if (mmio_base != 0) {
        lapic_base = mmio_base;
    }
    lapic_write(LAPIC_SVR, LAPIC_SVR_ENABLE | LAPIC_SPURIOUS_VECTOR);
}

uint32_t lapic_id(void)
{
    return lapic_read(LAPIC_ID) >> LAPIC_ID_SHIFT;
}

void lapic_eoi(void)
{
    lapic_write(LAPIC_EOI, 0);
}

/* lapic_icr_wait: bounded wait for the previous IPI to leave the local APIC. */
static int lapic_icr_wait(void)
{
    uint64_t deadline = time_deadline_us(LAPIC_ICR_TIMEOUT_US);
    while (lapic_read(LAPIC_ICR_LO) & LAPIC_ICR_PENDING) {
        if (time_after(deadline)) {
            return -1;
        }
        cpu_relax();
    }
    return 0;
}

static int lapic_send_ipi(uint32_t apic_id, uint32_t icr_lo)
{
    lapic_write(LAPIC_ICR_HI, apic_id << LAPIC_ICR_DEST_SHIFT);
    lapic_write(LAPIC_ICR_LO, icr_lo);
    return lapic_icr_wait();
}

int lapic_send_init(uint32_t apic_id)
{
    return lapic_send_ipi(apic_id, LAPIC_ICR_INIT | LAPIC_ICR_LEVEL_ASSERT);
}

int lapic_send_sipi(uint32_t apic_id, uint8_t vector_page)
{
    return lapic_send_ipi(apic_id, LAPIC_ICR_STARTUP | vector_page);
}

void lapic_send_nmi_all_but_self(void)
{
    lapic_write(LAPIC_ICR_HI, 0);
    lapic_write(LAPIC_ICR_LO, LAPIC_ICR_NMI | LAPIC_ICR_ALL_BUT_SELF | LAPIC_ICR_LEVEL_ASSERT);
}
