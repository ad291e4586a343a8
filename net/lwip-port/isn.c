/*
 * net/lwip-port/isn.c: unpredictable TCP initial sequence numbers (RFC 6528) and lwIP's random
 * numbers. ISN = M + F(local address and port, remote address and port, secret), where M is a
 * clock ticking every 4 microseconds (RFC 793's rate) and F is SipHash-2-4 keyed with 128 bits
 * drawn at boot. The key comes from RDRAND when the CPU has it; without it, from TSC readings,
 * which an observer of the boot could guess, and the boot says so.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "console.h"
#include "lwip_hooks.h"
#include "siphash.h"
#include "time.h"
#include "x86.h"

static uint64_t isn_key[2];
static uint64_t rand_state;

static inline uint64_t rotl(uint64_t x, int b)
{
    return (x << b) | (x >> (64 - b));
}

static bool cpu_has_rdrand(void)
{
    uint32_t a, b, c, d;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
    return c & (1U << 30);
}

static bool rdrand64(uint64_t *out)
{
    for (int i = 0; i < 10; i++) { /* Intel's DRNG guide: retry up to 10 times */
        unsigned char ok;
        __asm__ volatile("rdrand %0; setc %1" : "=r"(*out), "=qm"(ok));
        if (ok) {
            return true;
        }
    }
    return false;
}

/* tsc_entropy: low bits of TSC deltas across short busy waits; weak, used only without RDRAND. */
static uint64_t tsc_entropy(void)
{
    uint64_t acc = rdtsc();
    for (int i = 0; i < 64; i++) {
        uint64_t t0 = rdtsc();
        time_delay_us(7);
        acc = rotl(acc, 5) ^ (rdtsc() - t0);
    }
    return acc;
}

/* sink_random_init: the ISN key and lwIP's random state. Boot core, before any connection. */
void sink_random_init(void)
{
    bool strong = cpu_has_rdrand() && rdrand64(&isn_key[0]) && rdrand64(&isn_key[1]) &&
                  rdrand64(&rand_state);
    if (!strong) {
        isn_key[0] = tsc_entropy();
        isn_key[1] = tsc_entropy();
        rand_state = tsc_entropy();
        kprintf("sink: no RDRAND on this CPU: TCP sequence numbers are keyed from the TSC only "
                "(guessable by someone who can time the boot)\n");
    }
    rand_state |= 1;
}

u32_t sink_tcp_isn(const ip_addr_t *local_ip, u16_t local_port, const ip_addr_t *remote_ip,
                   u16_t remote_port)
{
    uint64_t m[5] = { ((uint64_t)local_port << 16) | remote_port };
    size_t n = 2;
    if (IP_IS_V6(local_ip)) { /* the 4-tuple whole: both 128-bit addresses */
        memcpy(&m[1], ip_2_ip6(local_ip)->addr, 16);
        memcpy(&m[3], ip_2_ip6(remote_ip)->addr, 16);
        n = 5;
    } else {
        m[1] = ((uint64_t)ip4_addr_get_u32(ip_2_ip4(local_ip)) << 32) |
               ip4_addr_get_u32(ip_2_ip4(remote_ip));
    }
    uint32_t clock = (uint32_t)(time_ns() / 4000); /* RFC 6528's M: 4 us ticks */
    return clock + (uint32_t)siphash24(isn_key, m, n);
}

/* sink_rand: xorshift64* (Vigna); for IP IDs and ephemeral ports, not for secrets. */
uint32_t sink_rand(void)
{
    rand_state ^= rand_state >> 12;
    rand_state ^= rand_state << 25;
    rand_state ^= rand_state >> 27;
    return (uint32_t)((rand_state * 0x2545F4914F6CDD1DULL) >> 32);
}
