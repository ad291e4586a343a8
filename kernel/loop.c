/*
 * kernel/loop.c: one loop per core: RX burst -> decide -> TX burst on the core's own queues,
 * nothing shared, nothing locked. Core 0 also polls the console and does housekeeping (link
 * state, hardware counters). Busy mode polls forever; adaptive mode, after poll.idle_us without
 * a packet, arms the core's queue interrupts, re-checks the rings, and halts until one fires.
 */
#include "loop.h"

#include "apps/fwd/fwd.h"
#include "apps/sink/handoff.h"
#include "apps/sink/sink_core.h"
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
/* The sink core wakes for lwIP's timers (TCP's fast timer runs every 250 ms) and for the
 * services' deadlines; every 1 ms while a test is running, so paced sending stays smooth. */
#define LOOP_SINK_WAKE_US 10000
#define LOOP_SINK_ACTIVE_WAKE_US 1000

static volatile bool loop_released;

void loop_release(void)
{
    __atomic_store_n(&loop_released, true, __ATOMIC_RELEASE);
}

static void loop_kick_handler(void *arg)
{
    (void)arg;
    this_cpu()->kicks_received++; /* waking the core was the whole point */
}

int loop_init(unsigned ncores)
{
    for (unsigned c = 0; c < ncores; c++) {
        int v = irq_alloc(c, loop_kick_handler, NULL, "kick");
        if (v < 0) {
            return -1;
        }
        percpu_blocks[c].kick_vector = (uint8_t)v;
    }
    return 0;
}

void loop_kick(unsigned core)
{
    struct percpu *p = &percpu_blocks[core];
    /* Pairs with the fence in loop_halt: either the sleeper sees what we queued before it
     * halts, or we see it asleep. The exchange sends one IPI per sleep, not one per item. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (p->kick_vector && __atomic_load_n(&p->asleep, __ATOMIC_RELAXED) &&
        __atomic_exchange_n(&p->asleep, false, __ATOMIC_SEQ_CST)) {
        lapic_send_fixed(p->apic_id, p->kick_vector);
    }
}

/* loop_cross_core_work: what other cores may have put on this core's rings. */
static bool loop_cross_core_work(unsigned core)
{
    return sink_handoff_returns_pending(core) || (sink_is_core(core) && sink_has_work());
}

static void loop_arm_timer(unsigned core)
{
    if (core == 0) {
        lapic_timer_oneshot_us(console_input_recent() ? LOOP_CORE0_TYPING_WAKE_US
                                                      : LOOP_CORE0_WAKE_US);
    } else if (sink_is_core(core)) {
        lapic_timer_oneshot_us(sink_test_running() ? LOOP_SINK_ACTIVE_WAKE_US
                                                   : LOOP_SINK_WAKE_US);
    }
}

/* loop_halt: sleep until a queue interrupt, a kick from another core, or (core 0, the sink
 * core) a timer fires. */
static void loop_halt(struct percpu *cpu)
{
    if (cpu->index == 0 && console_output_pending()) {
        return; /* the console core keeps draining output to the UART */
    }
    __atomic_store_n(&cpu->asleep, true, __ATOMIC_SEQ_CST);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (nic_arm_core(cpu->index) || loop_cross_core_work(cpu->index)) {
        nic_disarm_core(cpu->index); /* a frame slipped in: no sleep */
        __atomic_store_n(&cpu->asleep, false, __ATOMIC_RELAXED);
        return;
    }
    if (cpu->index == 0 || sink_is_core(cpu->index)) {
        loop_arm_timer(cpu->index);
    }
    cpu->halts++;
    irq_wait();
    __atomic_store_n(&cpu->asleep, false, __ATOMIC_RELAXED);
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
        moved += sink_handoff_reclaim(cpu->index);
        if (sink_is_core(cpu->index)) {
            moved += sink_poll();
        }
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
