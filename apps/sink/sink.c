/*
 * apps/sink/sink.c: the sink core's share of the loop: frames handed over by every core go
 * into lwIP, lwIP's timers run, the services get their turn, and what lwIP sent leaves in one
 * burst per port. Also the clock and TCP counters lwIP itself does not keep.
 */
#include "sink.h"

#include "apps/fwd/fwd.h"
#include "net/handoff.h"
#include "apps/sink/sink_core.h"
#include "config.h"
#include "console.h"
#include "drivers/nic/nic.h"
#include "err.h"
#include "lwip/init.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/tcp.h"
#include "init.h"
#include "loop.h"
#include "lwip/timeouts.h"
#include "net/lwip-port/sink_netif.h"
#include "time.h"

#define SINK_BURST 64 /* frames taken from the handoff rings per pass */

struct sink_service_stats sink_stats[SINK_SERVICE_COUNT];
struct sink_tcp_stats sink_tcp_stats;

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

/*
 * sink_tcp_persist_fixup: lwIP 2.1.3 (and its master branch, 3d896ba0) can leave a connection's
 * persist timer running with nothing left to send. When the retransmission timer fires while
 * the peer's window is shut, tcp_rexmit_rto moves the data in flight back to the unsent queue
 * and tcp_output, unable to send it, starts the persist timer; a later ACK of that data frees
 * it from the unsent queue (tcp_receive) but leaves the timer on. tcp_slowtmr then fails the
 * assertion "persist ticking with empty send buffer": a panic that any peer can cause (without
 * assertions the connection would be dropped after TCP_MAXRTX empty probes). The timer is
 * meant to be off when there is nothing to send (tcp_zero_window_probe says so), so stop such
 * timers before lwIP's run; tcp_output starts it again if data is written into a shut window.
 * Found by tests/fuzz/fuzz_lwip.c; test_tcp_zero_window_then_late_ack replays it.
 */
static void sink_tcp_persist_fixup(void)
{
    for (struct tcp_pcb *pcb = tcp_active_pcbs; pcb != NULL; pcb = pcb->next) {
        if (pcb->persist_backoff != 0 && pcb->unsent == NULL) {
            pcb->persist_backoff = 0;
            sink_tcp_stats.persist_stopped++;
        }
    }
}

bool sink_poll(void)
{
    struct pkb *b[SINK_BURST];
    unsigned n = handoff_take(b, SINK_BURST);
    for (unsigned i = 0; i < n; i++) {
        sink_netif_input(b[i]);
    }
    sink_tcp_persist_fixup();
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

/* sink_evict_half_open: a SYN found listener l's backlog full (a SYN flood, most likely from
 * spoofed addresses that never complete the handshake). lwIP would drop the SYN, and keep
 * dropping every SYN, legitimate ones too, until a half-open connection times out (20 s).
 * Instead one half-open connection of that listener is reset to make room: the oldest whose
 * peer we cannot even reach (no route, or no ARP answer: our SYN-ACK never left), else the
 * oldest. A real client is reachable and completes its handshake within a round trip. */
static void sink_evict_half_open(struct tcp_pcb_listen *l)
{
    struct tcp_pcb *oldest = NULL, *unreachable = NULL;
    for (struct tcp_pcb *p = tcp_active_pcbs; p != NULL; p = p->next) {
        if (p->state != SYN_RCVD || p->listener != l) {
            continue;
        }
        u32_t age = (u32_t)(tcp_ticks - p->tmr);
        if (oldest == NULL || age > (u32_t)(tcp_ticks - oldest->tmr)) {
            oldest = p;
        }
        if (!fwd_neighbour_known(lwip_ntohl(ip4_addr_get_u32(&p->remote_ip))) &&
            (unreachable == NULL || age > (u32_t)(tcp_ticks - unreachable->tmr))) {
            unreachable = p;
        }
    }
    struct tcp_pcb *victim = unreachable ? unreachable : oldest;
    if (victim != NULL) {
        sink_tcp_stats.half_open_evicted++;
        tcp_abort(victim);
    }
}

/* The hook lwIP calls for every segment that found its pcb, before processing it
 * (lwip_hooks.h): the TCP counters lwIP's MIB does not have, and the SYN flood defence. */
err_t sink_tcp_inpacket(struct tcp_pcb *pcb, struct tcp_hdr *hdr, u16_t optlen, u16_t opt1len,
                        u8_t *opt2, struct pbuf *p)
{
    (void)optlen;
    (void)opt1len;
    (void)opt2;
    struct sink_tcp_stats *st = &sink_tcp_stats;
    u8_t flags = TCPH_FLAGS(hdr);
    if (flags & TCP_RST) {
        st->resets_received++;
    }
    if (pcb->state == LISTEN) {
        struct tcp_pcb_listen *l = (struct tcp_pcb_listen *)pcb;
        if ((flags & (TCP_SYN | TCP_ACK | TCP_RST)) == TCP_SYN && l->accepts_pending >= l->backlog) {
            sink_evict_half_open(l);
        }
        return ERR_OK;
    }
    if (pcb->state < ESTABLISHED || pcb->state == TIME_WAIT) {
        return ERR_OK;
    }
    if (p->tot_len > 0 && TCP_SEQ_GT(hdr->seqno, pcb->rcv_nxt)) {
        st->out_of_order++; /* a hole before it: lwIP queues it (pcb->ooseq) if there is room */
    }
    /* RFC 5681's duplicate ACK: no data, no SYN/FIN, nothing newly acknowledged, the window
     * unchanged, while data of ours is outstanding. */
    if (p->tot_len == 0 && !(flags & (TCP_SYN | TCP_FIN | TCP_RST)) && (flags & TCP_ACK) &&
        hdr->ackno == pcb->lastack && pcb->unacked != NULL &&
        ((tcpwnd_size_t)hdr->wnd << pcb->snd_scale) == pcb->snd_wnd) {
        st->dup_acks++;
    }
    return ERR_OK;
}

/* The sink core wakes for lwIP's timers (TCP's fast timer runs every 250 ms) and for the
 * services' deadlines; every 1 ms while a test is running, so paced sending stays smooth. */
#define SINK_IDLE_WAKE_US 10000
#define SINK_ACTIVE_WAKE_US 1000

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

WS_POLLER(sink, .order = POLLER_ORDER_SINK, .runs_on = sink_is_core, .poll = sink_poll_core,
          .arm = sink_arm, .wake_us = sink_wake_us);
