/*
 * kernel/loop.c: one loop per core: the core's pollers (loop.h) pass after pass, RX burst ->
 * decide -> TX burst on the core's own queues first, nothing shared, nothing locked. Busy mode
 * polls forever; adaptive mode, after poll.idle_us without work, lets every poller arm its
 * wake-ups, re-checks, and halts until an interrupt, a kick or the earliest timer a poller asked
 * for.
 */
#include "loop.h"

#include "config.h"
#include "irq.h"
#include "lapic.h"
#include "panic.h"
#include "percpu.h"
#include "time.h"
#include "x86.h"

#define LOOP_MAX_POLLERS 16

WS_TABLE_DECLARE(struct poller, ws_pollers);

/* One core's pollers, sorted by order, and when each periodic one is next due. Core-local. */
struct loop_plan {
    const struct poller *p[LOOP_MAX_POLLERS];
    uint64_t period_tsc[LOOP_MAX_POLLERS]; /* 0: every pass */
    uint64_t next_due[LOOP_MAX_POLLERS];
    unsigned n;
};

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

/* loop_plan_build: the pollers that run on `core`, by rising order (insertion sort). */
static void loop_plan_build(struct loop_plan *plan, unsigned core, uint64_t now)
{
    plan->n = 0;
    for (const struct poller *p = WS_TABLE_BEGIN(ws_pollers); p < WS_TABLE_END(ws_pollers);
         p++) {
        if (p->runs_on != NULL && !p->runs_on(core)) {
            continue;
        }
        if (plan->n == LOOP_MAX_POLLERS) {
            panic("loop: more than %d pollers on core %u (raise LOOP_MAX_POLLERS)",
                  LOOP_MAX_POLLERS, core);
        }
        unsigned i = plan->n++;
        for (; i > 0 && plan->p[i - 1]->order > p->order; i--) {
            plan->p[i] = plan->p[i - 1];
        }
        plan->p[i] = p;
    }
    for (unsigned i = 0; i < plan->n; i++) {
        uint32_t us = plan->p[i]->period_us;
        plan->period_tsc[i] = time_us_to_tsc(us); /* 0: every pass */
        plan->next_due[i] = now; /* periodic work runs on the first pass too */
    }
}

/* loop_pass: every poller of the plan once (periodic ones when due); the work they did. */
static unsigned loop_pass(struct loop_plan *plan, unsigned core)
{
    unsigned moved = 0;
    for (unsigned i = 0; i < plan->n; i++) {
        const struct poller *p = plan->p[i];
        if (p->poll == NULL) {
            continue;
        }
        if (plan->period_tsc[i] != 0) {
            uint64_t now = rdtsc();
            if ((int64_t)(now - plan->next_due[i]) < 0) {
                continue;
            }
            plan->next_due[i] = now + plan->period_tsc[i];
        }
        moved += p->poll(core);
    }
    return moved;
}

/* loop_arm_all: arm every poller's wake-ups; false (and nothing left armed) if one has work.
 * *armed is how many were armed, for loop_disarm. */
static bool loop_arm_all(const struct loop_plan *plan, unsigned core, unsigned *armed)
{
    for (*armed = 0; *armed < plan->n; (*armed)++) {
        const struct poller *p = plan->p[*armed];
        if (p->arm != NULL && p->arm(core)) {
            (*armed)++; /* it armed, then saw work: it is disarmed too */
            return false;
        }
    }
    return true;
}

static void loop_disarm(const struct loop_plan *plan, unsigned core, unsigned armed)
{
    for (unsigned i = 0; i < armed; i++) {
        if (plan->p[i]->disarm != NULL) {
            plan->p[i]->disarm(core);
        }
    }
}

/* loop_wake_us: the shortest sleep any poller allows (0: none asked, sleep until woken). */
static uint32_t loop_wake_us(const struct loop_plan *plan, unsigned core)
{
    uint32_t wake = 0;
    for (unsigned i = 0; i < plan->n; i++) {
        uint32_t us = plan->p[i]->wake_us ? plan->p[i]->wake_us(core) : 0;
        if (us != 0 && (wake == 0 || us < wake)) {
            wake = us;
        }
    }
    return wake;
}

/* loop_awake_tsc: how long after its last work this core polls on before it halts: the
 * longest any poller asks for (awake_us), at least poll.idle_us. Asked only once idle that
 * long, so it costs nothing while work flows. */
static uint64_t loop_awake_tsc(const struct loop_plan *plan, unsigned core, uint64_t idle_limit)
{
    uint32_t us = 0;
    for (unsigned i = 0; i < plan->n; i++) {
        uint32_t a = plan->p[i]->awake_us ? plan->p[i]->awake_us(core) : 0;
        us = a > us ? a : us;
    }
    uint64_t tsc = time_us_to_tsc(us);
    return tsc > idle_limit ? tsc : idle_limit;
}

/* loop_halt: sleep until a queue interrupt, a kick from another core, or a poller's timer. */
static void loop_halt(struct percpu *cpu, const struct loop_plan *plan)
{
    unsigned armed;

    /* Pairs with loop_kick: set asleep before the last look at the rings, so a producer that
     * queued after that look sees us asleep and sends the IPI. */
    __atomic_store_n(&cpu->asleep, true, __ATOMIC_SEQ_CST);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (loop_arm_all(plan, cpu->index, &armed)) {
        uint32_t wake = loop_wake_us(plan, cpu->index);
        if (wake != 0) {
            lapic_timer_oneshot_us(wake);
        }
        cpu->halts++;
        irq_wait();
    }
    __atomic_store_n(&cpu->asleep, false, __ATOMIC_RELAXED);
    loop_disarm(plan, cpu->index, armed);
}

void core_loop(void)
{
    struct percpu *cpu = this_cpu();
    struct loop_plan plan;
    uint64_t idle_limit = time_us_to_tsc(CONFIG_POLL_IDLE_US);

    cpu->online = true;
    while (!__atomic_load_n(&loop_released, __ATOMIC_ACQUIRE)) {
        cpu_relax();
    }
    uint64_t last = rdtsc(), last_work = last;
    loop_plan_build(&plan, cpu->index, last); /* after the release: every init step has run */
    for (;;) {
        cpu->loop_iterations++;
        unsigned moved = loop_pass(&plan, cpu->index);
        uint64_t now = rdtsc();
        if (moved) {
            cpu->busy_cycles += now - last;
            last_work = now;
        } else {
            cpu->idle_cycles += now - last;
            if (CONFIG_POLL_ADAPTIVE && now - last_work > idle_limit &&
                now - last_work > loop_awake_tsc(&plan, cpu->index, idle_limit)) {
                loop_halt(cpu, &plan);
                last_work = rdtsc();
                cpu->idle_cycles += last_work - now; /* time asleep is idle time */
                last = last_work;
                continue;
            }
        }
        last = now;
    }
}
