/*
 * apps/sink/sink.c: the sink core's share of the loop: frames handed over by every core go
 * into lwIP, lwIP's timers run, the services get their turn, and what lwIP sent leaves in one
 * burst per port. (lwIP's hooks and the TCP counters they keep are net/lwip-port/tcp_hooks.c's.)
 */
#include "sink.h"

#include "apps/sink/sink_core.h"
#include "config.h"
#include "console.h"
#include "drivers/nic/nic.h"
#include "err.h"
#include "init.h"
#include "loop.h"
#include "lwip/init.h"
#include "lwip/stats.h"
#include "lwip/tcp.h"
#include "lwip/timeouts.h"
#include "net/handoff.h"
#include "net/lwip-port/sink_netif.h"
#include "net/lwip-port/tcp_hooks.h"
#include "time.h"

#define SINK_BURST 64 /* frames taken from the handoff rings per pass */

struct sink_service_stats sink_stats[SINK_SERVICE_COUNT];

static bool sink_running_flag; /* read-only after init */

void sink_random_init(void); /* net/lwip-port/isn.c */

uint32_t sink_now_ms(void)
{
    return (uint32_t)(time_ns() / 1000000);
}

/* sink_pick_core: config sink.core, or the last core when that one is not up. */
static unsigned sink_pick_core(unsigned ncores)
{
    if (CONFIG_SINK_CORE < 0) {
        return ncores - 1;
    }
    if ((unsigned)CONFIG_SINK_CORE >= ncores) {
        kprintf("sink: sink.core = %d is not up (cores 0..%u); using core %u\n",
                CONFIG_SINK_CORE, ncores - 1, ncores - 1);
        return ncores - 1;
    }
    return (unsigned)CONFIG_SINK_CORE;
}

int sink_init(unsigned ncores)
{
    if (!CONFIG_MODE_ROUTER) {
        kprintf("sink: off (wire mode has no addresses)\n");
        return WS_OK;
    }
    unsigned core = sink_pick_core(ncores);
    int err = handoff_init(ncores, core, CONFIG_NIC_POOL_BUFFERS);
    if (err != WS_OK) {
        kprintf("sink: cannot allocate the handoff rings: %s; sink off\n", err_name(err));
        return err;
    }
    sink_random_init();
    lwip_init();
    unsigned nifs = sink_netif_init(core);
    if (nifs == 0) {
        kprintf("sink: off (no port has an address)\n");
        return WS_OK;
    }
    if (CONFIG_SINK_DISCARD || CONFIG_SINK_ECHO) {
        sink_basic_init();
    }
    if (CONFIG_SINK_IPERF3_PORT) {
        iperf3_init();
    }
    if (CONFIG_SINK_NETPERF_PORT) {
        netperf_init();
    }
    sink_running_flag = true;
    kprintf("sink: lwIP %s on core %u, %u interface%s; discard %s, echo %s, iperf3 %d, netperf "
            "%d\n", LWIP_VERSION_STRING, core, nifs, nifs == 1 ? "" : "s",
            CONFIG_SINK_DISCARD ? "on" : "off", CONFIG_SINK_ECHO ? "on" : "off",
            CONFIG_SINK_IPERF3_PORT, CONFIG_SINK_NETPERF_PORT);
    return WS_OK;
}

static int sink_init_step(struct init_ctx *ctx)
{
    return sink_init(ctx->ncores);
}
WS_INIT(sink, INIT_APPS + 10, false, sink_init_step); /* after fwd: it resolves through it */

bool sink_running(void)
{
    return sink_running_flag;
}

bool sink_is_core(unsigned core)
{
    return sink_running_flag && (int)core == handoff_sink_core();
}

bool sink_poll(void)
{
    struct pkb *b[SINK_BURST];
    unsigned n = handoff_take(b, SINK_BURST);
    sink_netif_input_burst(b, n);
    if (n != 0) {
        lwport_tcp_ack_burst();
    }
    lwport_tcp_persist_fixup();
    sys_check_timeouts();
    uint32_t now = sink_now_ms();
    bool work = n != 0;
    if (CONFIG_SINK_IPERF3_PORT) {
        work |= iperf3_poll(now);
    }
    if (CONFIG_SINK_NETPERF_PORT) {
        work |= netperf_poll(now);
    }
    sink_netif_flush();
    return work;
}

bool sink_test_running(void)
{
    for (unsigned i = 0; i < SINK_SERVICE_COUNT; i++) {
        if (sink_stats[i].active) {
            return true;
        }
    }
    return false;
}

/* Until the iperf3 and netperf servers are linked in, their entry points say so. */
__attribute__((weak)) void iperf3_init(void)
{
    kprintf("sink: iperf3 server not in this build\n");
}

__attribute__((weak)) bool iperf3_poll(uint32_t now_ms)
{
    (void)now_ms;
    return false;
}

__attribute__((weak)) void netperf_init(void)
{
    kprintf("sink: netperf server not in this build\n");
}

__attribute__((weak)) bool netperf_poll(uint32_t now_ms)
{
    (void)now_ms;
    return false;
}

bool sink_has_work(void)
{
    return handoff_pending();
}


/* The sink core wakes for lwIP's timers (TCP's fast timer runs every 250 ms) and for the
 * services' deadlines; every 1 ms while a test is running, so paced sending stays smooth.
 * While TCP segments flow (one within SINK_TEST_AWAKE_US) it does not halt at all: the client's
 * next request or segment is a round trip behind our answer or ACK, and a halt would add the
 * wake-up (an IPI from the core that hands the frame over) to every round trip. A UDP flood
 * needs no such wait (the next datagram is already on its way), and under emulation a core
 * that spins takes host time from the one receiving for it, so it halts as the other cores do.
 * In QEMU (TCG, 2 vCPUs) staying awake for TCP took 64-byte writes from ~600 to ~1,250 Mbit/s
 * and kept TCP_RR at ~12,000 trans/s (8,000-12,300 from run to run before); staying awake for
 * UDP too halved what a 64-byte flood got in. */
#define SINK_IDLE_WAKE_US 10000
#define SINK_ACTIVE_WAKE_US 1000
#define SINK_TEST_AWAKE_US 2000

static uint32_t sink_tcp_seen;    /* lwIP's count of TCP segments received, at the last look */
static uint64_t sink_tcp_last_ns; /* when that count last moved */

static unsigned sink_poll_core(unsigned core)
{
    (void)core;
    return sink_poll() ? 1 : 0;
}

static bool sink_arm(unsigned core)
{
    (void)core;
    return sink_has_work(); /* frames other cores handed over while we looked away */
}

static uint32_t sink_wake_us(unsigned core)
{
    (void)core;
    return sink_test_running() ? SINK_ACTIVE_WAKE_US : SINK_IDLE_WAKE_US;
}

static uint32_t sink_awake_us(unsigned core)
{
    (void)core;
    uint64_t now = time_ns();
    if (lwip_stats.tcp.recv != sink_tcp_seen) {
        sink_tcp_seen = lwip_stats.tcp.recv;
        sink_tcp_last_ns = now;
    }
    bool tcp_flowing = now - sink_tcp_last_ns < SINK_TEST_AWAKE_US * 1000ull;
    return tcp_flowing && sink_test_running() ? SINK_TEST_AWAKE_US : 0;
}

WS_POLLER(sink, .order = POLLER_ORDER_SINK, .runs_on = sink_is_core, .poll = sink_poll_core,
          .arm = sink_arm, .wake_us = sink_wake_us, .awake_us = sink_awake_us);
