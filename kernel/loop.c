/*
 * kernel/loop.c: one loop per core: RX burst -> decide -> TX burst on the core's own queues,
 * nothing shared, nothing locked. Core 0 also polls the console and does housekeeping (link
 * state, hardware counters). Busy mode polls forever; adaptive mode, after poll.idle_us without
 * a packet, arms the core's queue interrupts, re-checks the rings, and halts until one fires.
 */
#include "loop.h"

#include "apps/fwd/fwd.h"
#include "apps/stats/stats.h"
#include "config.h"
#include "console.h"
#include "drivers/nic/nic.h"
#include "irq.h"
#include "lapic.h"
#include "percpu.h"
#include "time.h"
#include "x86.h"

#define LOOP_HOUSEKEEPING_US 100000 /* link state and hardware counters: 10 times a second */
#define LOOP_CORE0_WAKE_US 10000    /* a halted core 0 still answers the console within 10 ms */
/* While someone is typing (input in the last 100 ms), core 0 wakes every 1 ms: a 16550's
 * 16-byte FIFO fills in 1.4 ms at 115200 baud, and a halted core must not let it overrun. */
#define LOOP_CORE0_TYPING_WAKE_US 1000

static volatile bool loop_released;

void loop_release(void)
{
    __atomic_store_n(&loop_released, true, __ATOMIC_RELEASE);
}

/* loop_halt: sleep until a queue interrupt (or, on core 0, the console timer) fires. */
static void loop_halt(struct percpu *cpu)
{
    if (cpu->index == 0 && console_output_pending()) {
        return; /* the console core keeps draining output to the UART */
    }
    if (nic_arm_core(cpu->index)) {
        nic_disarm_core(cpu->index); /* a frame slipped in: no sleep */
        return;
    }
    if (cpu->index == 0) {
        lapic_timer_oneshot_us(console_input_recent() ? LOOP_CORE0_TYPING_WAKE_US
                                                      : LOOP_CORE0_WAKE_US);
    }
    cpu->halts++;
    irq_wait();
    nic_disarm_core(cpu->index);
}

/* loop_core0_slow_path: console input and periodic housekeeping. */
static void loop_core0_slow_path(uint64_t now, uint64_t *next_housekeeping)
{
    console_poll();
    if ((int64_t)(now - *next_housekeeping) >= 0) {
        nic_housekeeping();
        stats_watch_poll();
        *next_housekeeping = now + time_deadline_us(LOOP_HOUSEKEEPING_US) - rdtsc();
    }
}

void core_loop(void)
{
    struct percpu *cpu = this_cpu();
    uint64_t idle_limit = time_deadline_us(CONFIG_POLL_IDLE_US) - rdtsc();
    uint64_t last = rdtsc(), last_work = last, next_housekeeping = last;

    cpu->online = true;
    while (!__atomic_load_n(&loop_released, __ATOMIC_ACQUIRE)) {
        cpu_relax();
    }
    if (cpu->index == 0) {
        console_start_async(); /* no core waits for the serial line from now on */
    }
    for (;;) {
        cpu->loop_iterations++;
        unsigned moved = fwd_poll_core(cpu->index);
        uint64_t now = rdtsc();
        if (cpu->index == 0) {
            loop_core0_slow_path(now, &next_housekeeping);
        }
        if (moved) {
            cpu->busy_cycles += now - last;
            last_work = now;
        } else {
            cpu->idle_cycles += now - last;
            if (CONFIG_POLL_ADAPTIVE && now - last_work > idle_limit) {
                loop_halt(cpu);
                last_work = rdtsc();
                cpu->idle_cycles += last_work - now; /* time asleep is idle time */
                last = last_work;
                continue;
            }
        }
        last = now;
    }
}
