/*
 * kernel/time.c: TSC frequency and conversions (see header). References, best first: CPUID
 * leaf 0x15 (exact), a hypervisor's frequency leaf, then measurements against the fixed-rate
 * timers the platform has: HPET (IA-PC HPET 1.0a), the ACPI PM timer (ACPI 6.4 section
 * 4.8.3.3, 3.579545 MHz) and the PIT (8254, 1.193182 MHz; gone on recent platforms). Every
 * measured source that answers is kept, the chosen one is cross-checked against the others,
 * and a frequency outside 200 MHz..10 GHz is refused.
 */
#include "time.h"

#include <stdio.h>

#include "acpi.h"
#include "console.h"
#include "vm.h"
#include "x86.h"

#define PIT_HZ 1193182ULL
#define PIT_CAL_MS 10
#define PIT_CAL_TICKS (PIT_HZ * PIT_CAL_MS / 1000)
#define PIT_CAL_ROUNDS 3
#define PIT_CH2_DATA 0x42
#define PIT_MODE 0x43
#define PIT_MODE_CH2_LOHI_MODE0 0xB0
#define PC_PORT_B 0x61 /* bit 0: gate PIT channel 2; bit 1: speaker; bit 5: channel 2 output */
#define PC_PORT_B_GATE2 0x01
#define PC_PORT_B_SPEAKER 0x02
#define PC_PORT_B_OUT2 0x20
#define TIME_UNCALIBRATED_HZ 10000000000ULL
#define HV_LEAF_BASE 0x40000000
#define HV_LEAF_TIMING 0x40000010 /* EAX: TSC frequency in kHz (VMware-style, QEMU optional) */
#define TIME_CAL_MS 10            /* one measurement round against a reference timer */
#define TIME_MIN_PLAUSIBLE_HZ 200000000ULL    /* no x86-64 server TSC runs slower */
#define TIME_MAX_PLAUSIBLE_HZ 10000000000ULL  /* ... or faster */
#define TIME_AGREE_PERCENT 2      /* two references further apart than this: said so */
#define PM_TMR_HZ 3579545ULL
#define HPET_MMIO_BYTES 0x400
#define HPET_CAP 0x000            /* General Capabilities: bits 63:32 period in fs */
#define HPET_CONF 0x010           /* General Configuration: bit 0 ENABLE_CNF */
#define HPET_CONF_ENABLE 0x1
#define HPET_COUNTER 0x0F0        /* Main Counter Value (low 32 bits read) */
#define HPET_MAX_PERIOD_FS 100000000ULL /* the spec's bound: at least a 10 MHz counter */
/* A round gives up after 4 x TIME_CAL_MS at the fastest plausible TSC: a timer that does not
 * count costs at most ~160 ms at 2.5 GHz, not a hang. */
#define TIME_ROUND_MAX_TSC (TIME_MAX_PLAUSIBLE_HZ / 1000 * TIME_CAL_MS * 4)

/* read-only after time_init */
static uint64_t tsc_hz;
static uint64_t tsc_at_init;
static uint64_t tsc_ns_mult; /* ns = (tsc * mult) >> 32 */
static char tsc_source[160] = "uncalibrated";
static uint16_t pm_port; /* ACPI PM timer, 0 if none */
static bool pm_32bit;
static volatile uint8_t *hpet; /* HPET registers, NULL if none */
static uint64_t hpet_hz;

/* CPUID leaf 0x15: TSC = crystal * EBX / EAX, when all three are reported (SDM 2 CPUID). */
static uint64_t time_from_cpuid15(void)
{
    if (cpuid(0, 0).eax < 0x15) {
        return 0;
    }
    struct cpuid_regs r = cpuid(0x15, 0);
    if (r.eax == 0 || r.ebx == 0 || r.ecx == 0) {
        return 0;
    }
    return (uint64_t)r.ecx * r.ebx / r.eax;
}

static uint64_t time_from_hypervisor(void)
{
    if (!(cpuid(1, 0).ecx & (1U << 31))) {
        return 0; /* not running under a hypervisor */
    }
    if (cpuid(HV_LEAF_BASE, 0).eax < HV_LEAF_TIMING) {
        return 0;
    }
    return (uint64_t)cpuid(HV_LEAF_TIMING, 0).eax * 1000;
}

/* One PIT round: count TSC ticks while PIT channel 2 counts PIT_CAL_TICKS down (mode 0). */
static uint64_t time_pit_round(void)
{
    uint8_t b = inb(PC_PORT_B);
    outb(PC_PORT_B, (b & ~PC_PORT_B_SPEAKER) & ~PC_PORT_B_GATE2);
    outb(PIT_MODE, PIT_MODE_CH2_LOHI_MODE0);
    outb(PIT_CH2_DATA, PIT_CAL_TICKS & 0xFF);
    outb(PIT_CH2_DATA, PIT_CAL_TICKS >> 8);
    outb(PC_PORT_B, (b & ~PC_PORT_B_SPEAKER) | PC_PORT_B_GATE2); /* gate rising edge: start */
    uint64_t t0 = rdtsc();
    while (rdtsc() - t0 < TIME_ROUND_MAX_TSC) { /* no PIT: OUT2 may never rise */
        if (inb(PC_PORT_B) & PC_PORT_B_OUT2) {
            return (rdtsc() - t0) * (1000 / PIT_CAL_MS);
        }
    }
    return 0;
}

static uint64_t time_median3(uint64_t (*round)(void))
{
    uint64_t a = round(), b = round(), c = round();
    /* median of three: one round disturbed by the host does not skew the result */
    if ((a <= b && b <= c) || (c <= b && b <= a)) {
        return b;
    }
    if ((b <= a && a <= c) || (c <= a && a <= b)) {
        return a;
    }
    return c;
}

/* time_ref_round: TSC ticks per second while a reference counter of ref_hz, read through
 * read() and wrapping at mask, advances TIME_CAL_MS worth of ticks; 0 if it never does. */
static uint64_t time_ref_round(uint32_t (*read)(void), uint32_t mask, uint64_t ref_hz)
{
    uint64_t want = ref_hz * TIME_CAL_MS / 1000;
    uint32_t start = read();
    uint64_t t0 = rdtsc();
    while (rdtsc() - t0 < TIME_ROUND_MAX_TSC) {
        uint32_t el = (read() - start) & mask;
        if (el >= want) {
            return (uint64_t)(((unsigned __int128)(rdtsc() - t0) * ref_hz) / el);
        }
    }
    return 0;
}

static uint32_t time_pm_read(void)
{
    return inl(pm_port);
}

static uint64_t time_pm_round(void)
{
    return time_ref_round(time_pm_read, pm_32bit ? 0xFFFFFFFFU : 0xFFFFFFU, PM_TMR_HZ);
}

static uint32_t time_hpet_read(void)
{
    return *(volatile uint32_t *)(hpet + HPET_COUNTER);
}

static uint64_t time_hpet_round(void)
{
    return time_ref_round(time_hpet_read, 0xFFFFFFFFU, hpet_hz);
}

/* time_hpet_start: map the HPET, check its period, and make its main counter run. */
static bool time_hpet_start(uint64_t phys)
{
    if (phys == 0 || vm_map_mmio(phys, HPET_MMIO_BYTES) != 0) {
        return false;
    }
    volatile uint8_t *h = (volatile uint8_t *)(uintptr_t)phys;
    uint64_t period = *(volatile uint32_t *)(h + HPET_CAP + 4);
    if (period == 0 || period > HPET_MAX_PERIOD_FS) {
        kprintf("time: HPET at 0x%llx reports a period of %llu fs; not used\n",
                (unsigned long long)phys, (unsigned long long)period);
        return false;
    }
    *(volatile uint32_t *)(h + HPET_CONF) |= HPET_CONF_ENABLE;
    hpet = h;
    hpet_hz = 1000000000000000ULL / period;
    return true;
}

/* One measured reference: its name and what it made of the TSC (0: none, or no answer). */
struct time_ref {
    const char *name;
    uint64_t hz;
};

static bool time_plausible(uint64_t hz)
{
    return hz >= TIME_MIN_PLAUSIBLE_HZ && hz <= TIME_MAX_PLAUSIBLE_HZ;
}

static bool time_agree(uint64_t a, uint64_t b)
{
    uint64_t d = a > b ? a - b : b - a;
    return d * 100 <= (a > b ? a : b) * TIME_AGREE_PERCENT;
}

/* time_measure: each reference the platform has, median of three rounds each. */
static unsigned time_measure(const struct acpi_info *acpi, struct time_ref *refs)
{
    unsigned n = 0;
    if (acpi != NULL && acpi->has_hpet && time_hpet_start(acpi->hpet_phys)) {
        refs[n++] = (struct time_ref){ "HPET", time_median3(time_hpet_round) };
    }
    if (acpi != NULL && acpi->pm_tmr_port != 0) {
        pm_port = acpi->pm_tmr_port;
        pm_32bit = acpi->pm_tmr_32bit;
        refs[n++] = (struct time_ref){ "ACPI PM timer", time_median3(time_pm_round) };
    }
    refs[n++] = (struct time_ref){ "PIT", time_median3(time_pit_round) };
    return n;
}

/* time_note: append to the banner's source description. */
static void time_note(const char *fmt, const char *name, uint64_t hz)
{
    size_t used = 0;
    while (used < sizeof(tsc_source) && tsc_source[used] != '\0') {
        used++;
    }
    snprintf(tsc_source + used, sizeof(tsc_source) - used, fmt, name,
             (unsigned long long)(hz / 1000000), (unsigned long long)(hz / 1000 % 1000));
}

void time_init(const struct acpi_info *acpi)
{
    struct time_ref refs[3];
    unsigned n = time_measure(acpi, refs);
    const char *exact = NULL;

    tsc_at_init = rdtsc();
    tsc_hz = time_from_cpuid15();
    exact = tsc_hz ? "cpuid 0x15" : NULL;
    if (!time_plausible(tsc_hz) && (tsc_hz = time_from_hypervisor()) != 0) {
        exact = "hypervisor leaf 0x40000010";
    }
    if (exact != NULL && time_plausible(tsc_hz)) {
        snprintf(tsc_source, sizeof(tsc_source), "%s", exact);
    } else {
        tsc_hz = 0;
        for (unsigned i = 0; i < n && tsc_hz == 0; i++) {
            if (time_plausible(refs[i].hz)) {
                tsc_hz = refs[i].hz;
                snprintf(tsc_source, sizeof(tsc_source), "%s calibration", refs[i].name);
            }
        }
    }
    for (unsigned i = 0; i < n; i++) {
        if (refs[i].hz == 0) {
            continue; /* not there (no PIT on this platform, say) */
        }
        if (!time_plausible(refs[i].hz)) {
            kprintf("time: %s calibration gives %llu kHz, outside 200 MHz..10 GHz: refused\n",
                    refs[i].name, (unsigned long long)(refs[i].hz / 1000));
        } else if (tsc_hz != 0 && refs[i].hz != tsc_hz) {
            time_note(time_agree(refs[i].hz, tsc_hz) ? "; %s %llu.%03llu agrees"
                                                     : "; %s %llu.%03llu DISAGREES",
                      refs[i].name, refs[i].hz);
        }
    }
    if (tsc_hz == 0) {
        tsc_hz = TIME_UNCALIBRATED_HZ;
        snprintf(tsc_source, sizeof(tsc_source),
                 "none: no reference gave a plausible frequency; assuming 10 GHz, so every "
                 "wait is longer, never shorter");
    }
    tsc_ns_mult = (1000000000ULL << 32) / tsc_hz;
}

uint64_t time_tsc_hz(void)
{
    return tsc_hz;
}

const char *time_tsc_source(void)
{
    return tsc_source;
}

uint64_t time_tsc_to_ns(uint64_t tsc)
{
    return (uint64_t)(((unsigned __int128)tsc * tsc_ns_mult) >> 32);
}

uint64_t time_ns(void)
{
    return time_tsc_to_ns(rdtsc() - tsc_at_init);
}

uint64_t time_us_to_tsc(uint64_t us)
{
    uint64_t hz = tsc_hz ? tsc_hz : TIME_UNCALIBRATED_HZ;
    /* us * hz / 1e6 in 128 bits: hz / 1e6 first would truncate a slow TSC's MHz to 0 */
    return (uint64_t)(((unsigned __int128)us * hz) / 1000000);
}

uint64_t time_deadline_us(uint64_t us)
{
    return rdtsc() + time_us_to_tsc(us);
}

bool time_after(uint64_t deadline_tsc)
{
    return (int64_t)(rdtsc() - deadline_tsc) >= 0;
}

void time_delay_us(uint64_t us)
{
    uint64_t deadline = time_deadline_us(us);
    while (!time_after(deadline)) {
        cpu_relax();
    }
}
