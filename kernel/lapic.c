/*
 * kernel/lapic.c: the local APIC, registers per SDM Vol. 3A table 10-1, in either mode: xAPIC
 * (memory-mapped at the MADT's base, identity mapped uncached) or x2APIC (the same registers
 * as MSRs 0x800 + offset / 16, SDM 3A 10.12.1.2, with 32-bit APIC IDs and a 64-bit ICR).
 * x2APIC is used when the firmware handed over in it (IA32_APIC_BASE.EXTD set: the xAPIC
 * window is then dead, and touching it faults), or when an APIC ID is above 255 and the CPU has
 * it; every other core follows the boot core's choice.
 */
#include "lapic.h"

#include "mmio.h"
#include "time.h"
#include "trap.h"
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

#define LAPIC_LVT_TIMER 0x320
#define LAPIC_LVT_MASKED 0x00010000
#define LAPIC_TIMER_INIT 0x380
#define LAPIC_TIMER_CURRENT 0x390
#define LAPIC_TIMER_DIVIDE 0x3E0
#define LAPIC_TIMER_DIVIDE_16 0x3
#define LAPIC_TIMER_CAL_US 10000

#define LAPIC_DEFAULT_BASE 0xFEE00000UL

/* IA32_APIC_BASE (SDM 3A 10.4.4, 10.12.1): EN enables the APIC, EXTD on top of it x2APIC. */
#define MSR_APIC_BASE 0x1B
#define APIC_BASE_EXTD (1ULL << 10)
#define APIC_BASE_EN (1ULL << 11)
#define X2APIC_MSR(reg) (0x800 + ((reg) >> 4))
#define X2APIC_ICR 0x830 /* one 64-bit register: destination in bits 63:32, no pending bit */
#define CPUID1_ECX_X2APIC (1U << 21)

static uintptr_t lapic_base = LAPIC_DEFAULT_BASE; /* read-only after the boot core's init */
static bool lapic_x2;                             /* ... and so is the mode */
static const char *lapic_mode_why = "xAPIC";
static uint64_t lapic_timer_ticks_per_ms;         /* read-only after lapic_timer_calibrate */

static uint32_t lapic_read(uint32_t reg)
{
    return lapic_x2 ? (uint32_t)rdmsr(X2APIC_MSR(reg)) : mmio_read32(lapic_base + reg);
}

static void lapic_write(uint32_t reg, uint32_t v)
{
    if (lapic_x2) {
        wrmsr(X2APIC_MSR(reg), v);
    } else {
        mmio_write32(lapic_base + reg, v);
    }
}

static bool lapic_cpu_in_x2apic(void)
{
    return (rdmsr(MSR_APIC_BASE) & APIC_BASE_EXTD) != 0;
}

bool lapic_choose_mode(uint32_t max_apic_id)
{
    if (lapic_cpu_in_x2apic()) {
        lapic_x2 = true;
        lapic_mode_why = "x2APIC (the firmware left it on)";
    } else if (max_apic_id > 0xFF && (cpuid(1, 0).ecx & CPUID1_ECX_X2APIC)) {
        lapic_x2 = true;
        lapic_mode_why = "x2APIC (turned on: APIC IDs above 255)";
    } else if (max_apic_id > 0xFF) {
        lapic_mode_why = "xAPIC (APIC IDs above 255, but no x2APIC: those cores stay parked)";
    }
    return lapic_x2;
}

const char *lapic_mode(void)
{
    return lapic_mode_why;
}

/* lapic_enter_mode: this core's APIC in the chosen mode (xAPIC -> x2APIC is allowed directly;
 * the other way needs a disable first, SDM 3A 10.12.5, and is never wanted). */
static void lapic_enter_mode(void)
{
    if (lapic_x2 && !lapic_cpu_in_x2apic()) {
        uint64_t base = rdmsr(MSR_APIC_BASE);
        wrmsr(MSR_APIC_BASE, base | APIC_BASE_EN);
        wrmsr(MSR_APIC_BASE, base | APIC_BASE_EN | APIC_BASE_EXTD);
    }
}

/* The BIOS leaves the two 8259 PICs mapped to vectors 8-15, where an IRQ would look like a
 * CPU exception (a timer tick as a "double fault"). Remap them to 0x20-0x2F and mask every
 * line: the appliance uses only the local APIC and MSI-X (8259A datasheet, ICW1-ICW4). */
static void lapic_disable_8259(void)
{
    static const uint8_t icw[2][4] = { { 0x11, 0x20, 0x04, 0x01 }, { 0x11, 0x28, 0x02, 0x01 } };
    static const uint16_t base[2] = { 0x20, 0xA0 };
    for (int pic = 0; pic < 2; pic++) {
        outb(base[pic], icw[pic][0]);
        for (int i = 1; i < 4; i++) {
            outb(base[pic] + 1, icw[pic][i]);
        }
        outb(base[pic] + 1, 0xFF);
    }
}

void lapic_init(uintptr_t mmio_base)
{
    lapic_enter_mode();
    if (mmio_base != 0) {
        lapic_base = mmio_base;
        lapic_disable_8259(); /* boot core: once */
    }
    lapic_write(LAPIC_SVR, LAPIC_SVR_ENABLE | LAPIC_SPURIOUS_VECTOR);
}

uint32_t lapic_id(void)
{
    uint32_t id = lapic_read(LAPIC_ID);
    return lapic_x2 ? id : id >> LAPIC_ID_SHIFT; /* x2APIC: all 32 bits are the ID */
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
    if (lapic_x2) {
        wrmsr(X2APIC_ICR, (uint64_t)apic_id << 32 | icr_lo); /* sent when the write retires */
        return 0;
    }
    if (apic_id > 0xFF) {
        return -1; /* an xAPIC destination is 8 bits */
    }
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

/* Fixed delivery mode (000b), physical destination, edge; level "assert", which SDM 3A 10.6.1
 * asks for every delivery mode but INIT de-assert. */
int lapic_send_fixed(uint32_t apic_id, uint8_t vector)
{
    return lapic_send_ipi(apic_id, LAPIC_ICR_LEVEL_ASSERT | vector);
}

void lapic_send_nmi_all_but_self(void)
{
    uint32_t icr = LAPIC_ICR_NMI | LAPIC_ICR_ALL_BUT_SELF | LAPIC_ICR_LEVEL_ASSERT;
    if (lapic_cpu_in_x2apic()) { /* asked of the CPU itself: a panic may precede lapic_init */
        wrmsr(X2APIC_ICR, icr);
        return;
    }
    mmio_write32(lapic_base + LAPIC_ICR_HI, 0);
    mmio_write32(lapic_base + LAPIC_ICR_LO, icr);
}

/* lapic_timer_calibrate: count timer ticks (bus clock / 16) over 10 ms of TSC time. The timer
 * rate is the same on every core (SDM 3A 10.5.4), so the boot core measures it once. */
void lapic_timer_calibrate(void)
{
    lapic_write(LAPIC_TIMER_DIVIDE, LAPIC_TIMER_DIVIDE_16);
    lapic_write(LAPIC_LVT_TIMER, LAPIC_LVT_MASKED | VEC_TIMER);
    lapic_write(LAPIC_TIMER_INIT, 0xFFFFFFFF);
    time_delay_us(LAPIC_TIMER_CAL_US);
    uint32_t elapsed = 0xFFFFFFFF - lapic_read(LAPIC_TIMER_CURRENT);
    lapic_write(LAPIC_TIMER_INIT, 0);
    lapic_timer_ticks_per_ms = elapsed / (LAPIC_TIMER_CAL_US / 1000);
    if (lapic_timer_ticks_per_ms == 0) {
        lapic_timer_ticks_per_ms = 1;
    }
}

uint64_t lapic_timer_hz(void)
{
    return lapic_timer_ticks_per_ms * 1000;
}

void lapic_timer_oneshot_us(uint64_t us)
{
    uint64_t ticks = lapic_timer_ticks_per_ms * us / 1000;
    if (ticks == 0) {
        ticks = 1;
    }
    if (ticks > 0xFFFFFFFF) {
        ticks = 0xFFFFFFFF;
    }
    lapic_write(LAPIC_TIMER_DIVIDE, LAPIC_TIMER_DIVIDE_16);
    lapic_write(LAPIC_LVT_TIMER, VEC_TIMER); /* one-shot, unmasked */
    lapic_write(LAPIC_TIMER_INIT, (uint32_t)ticks);
}
