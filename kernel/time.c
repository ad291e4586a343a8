/* kernel/time.c: TSC frequency and conversions (see header). */
#include "time.h"

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
#define PIT_CAL_SPIN_LIMIT 100000000ULL
#define TIME_UNCALIBRATED_HZ 10000000000ULL
#define HV_LEAF_BASE 0x40000000
#define HV_LEAF_TIMING 0x40000010 /* EAX: TSC frequency in kHz (VMware-style, QEMU optional) */

/* read-only after time_init */
static uint64_t tsc_hz;
static uint64_t tsc_at_init;
static uint64_t tsc_ns_mult; /* ns = (tsc * mult) >> 32 */
static const char *tsc_source = "uncalibrated";

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
    for (uint64_t i = 0; i < PIT_CAL_SPIN_LIMIT; i++) {
        if (inb(PC_PORT_B) & PC_PORT_B_OUT2) {
            return (rdtsc() - t0) * (1000 / PIT_CAL_MS);
        }
    }
    return 0;
}

static uint64_t time_from_pit(void)
{
    uint64_t r[PIT_CAL_ROUNDS];
    for (int i = 0; i < PIT_CAL_ROUNDS; i++) {
        r[i] = time_pit_round();
    }
    /* median of three: one round disturbed by the host does not skew the result */
    uint64_t a = r[0], b = r[1], c = r[2];
    if ((a <= b && b <= c) || (c <= b && b <= a)) {
        return b;
    }
    if ((b <= a && a <= c) || (c <= a && a <= b)) {
        return a;
    }
    return c;
}

void time_init(void)
{
    tsc_at_init = rdtsc();
    if ((tsc_hz = time_from_cpuid15()) != 0) {
        tsc_source = "cpuid 0x15";
    } else if ((tsc_hz = time_from_hypervisor()) != 0) {
        tsc_source = "hypervisor leaf 0x40000010";
    } else if ((tsc_hz = time_from_pit()) != 0) {
        tsc_source = "PIT calibration";
    } else {
        tsc_hz = TIME_UNCALIBRATED_HZ;
        tsc_source = "none (PIT silent; assuming 10 GHz)";
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

uint64_t time_deadline_us(uint64_t us)
{
    uint64_t hz = tsc_hz ? tsc_hz : TIME_UNCALIBRATED_HZ;
    return rdtsc() + us * (hz / 1000000);
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
