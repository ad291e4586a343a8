/*
 * tests/hostsim/ixgbe_sim_faults.c: faults after bring-up with traffic flowing (issue 10), the
 * real driver, NIC layer and forwarding against the 82599 model, host A streaming to host B
 * through port0 -> port1 as in `stream`, and core 0's housekeeping every 100 ms of simulated
 * time as in the firmware:
 *   tx-hang       port1 stops completing transmits (the model's TX_STOPS_COMPLETING; the chip
 *                 reset cures it): the watchdog finds the hung queue after 1 s, every core
 *                 stops using the port, core 0 resets it, the cores release and refill their
 *                 rings, traffic resumes; every frame is delivered or counted, pools full
 *   gone-traffic  port1 drops off the bus mid-stream (DEVICE_GONE: all-ones): reported once,
 *                 no core touches it again, its buffers come home, port0 still answers and
 *                 forwards, every frame is delivered or counted
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/fwd/fwd.h"
#include "config.h"
#include "drivers/nic/nic.h"
#include "drivers/nic/rss.h"
#include "net/iface.h"
#include "tests/hostsim/ixgbe_sim.h"
#include "tests/model/ixgbe_model_int.h"

#define XS_FHK_NS ((uint64_t)100000000)  /* housekeeping every 100 ms, as kernel/loop.c does */
#define XS_MS ((uint64_t)1000000)
#define XS_SLOW_BURST 32          /* frames per 1 ms pass while the fault is on: 32 kpps */
#define XS_FAST_BURST 128         /* frames per pass at line rate */
#define XS_IP_HAIRPIN 0xc63364c8u /* 198.51.100.200: routed via 198.18.0.2 (host A, port0) */

/* The stream as it runs: next frame index, next housekeeping, each flow's queue. */
struct xs_run {
    uint64_t next;
    uint64_t next_hk;
    unsigned flow_q[SIM_FLOWS];
};

static void xs_run_init(struct xs_run *r, uint64_t nframes)
{
    struct sim *s = &xs_sim;
    memset(s, 0, sizeof(*s));
    memset(r, 0, sizeof(*r));
    s->nframes = nframes;
    s->ncores = XS_CORES;
    s->seen = calloc(nframes / 8 + 1, 1);
    if (s->seen == NULL) {
        abort();
    }
    for (unsigned fl = 0; fl < SIM_FLOWS; fl++) {
        uint8_t f[SIM_FRAME_BYTES];
        sim_build(f, fl, 0, SIM_MAGIC_STREAM);
        r->flow_q[fl] = xs_reta_queue(rss_hash_ipv4_l4(rss_default_key, sim_ld32(f + 26),
                                                       sim_ld32(f + 30), sim_ld16(f + 34),
                                                       sim_ld16(f + 36)));
    }
}

/* xs_boot_stream: both ports up, the hosts on their wires, neighbours learned. */
static bool xs_boot_stream(struct xs_run *r)
{
    if (xs_boot() != 2) {
        xs_fail("bring-up");
        return false;
    }
    xs_port(0)->on_tx = xs_on_port0;
    xs_port(0)->tx_ctx = &xs_sim;
    xs_port(1)->on_tx = xs_on_port1;
    xs_port(1)->tx_ctx = &xs_sim;
    xs_stream_neighbours();
    r->next_hk = xs_now() + XS_FHK_NS;
    return true;
}

/* xs_pass: up to `burst` stream frames from host A (no more than port0's RX rings have room
 * for: this test is about port1), every core's pass, host B, then `ns` of simulated time and
 * core 0's housekeeping when due. */
static void xs_pass(struct xs_run *r, unsigned burst, uint64_t ns)
{
    struct sim *s = &xs_sim;
    unsigned room[XS_NQ], moved = 0;
    for (unsigned q = 0; q < XS_NQ; q++) {
        room[q] = xs_rx_room(q);
    }
    while (moved < burst && r->next < s->nframes) {
        unsigned fl = sim_flow_of(r->next), q = r->flow_q[fl];
        uint8_t f[SIM_FRAME_BYTES];
        if (room[q] == 0) {
            break;
        }
        sim_build(f, fl, sim_seq_of(r->next), SIM_MAGIC_STREAM);
        XS_CHECK(xs_send(0, f, sizeof(f)), "stream frame %" PRIu64 ": port0 dropped it",
                 r->next);
        room[q]--;
        r->next++;
        moved++;
    }
    for (unsigned c = 0; c < XS_CORES; c++) {
        fwd_poll_core(c);
    }
    xs_host_b();
    xs_advance(ns);
    if (xs_now() >= r->next_hk) {
        nic_housekeeping();
        r->next_hk = xs_now() + XS_FHK_NS;
    }
}

/* xs_stream_until: line-rate passes until frame `until` has been sent, then settle. */
static void xs_stream_until(struct xs_run *r, uint64_t until)
{
    while (r->next < until && xs_failures() < 20) {
        unsigned burst = until - r->next < XS_FAST_BURST ? (unsigned)(until - r->next)
                                                         : XS_FAST_BURST;
        xs_pass(r, burst, burst * SIM_NS_PER_FRAME);
    }
    xs_settle(xs_host_b);
}

/* Sums over the cores of the counters a frame can end in. */
struct xs_books {
    uint64_t fwd[XS_PORTS], link_down[XS_PORTS], ring_full[XS_PORTS], tx_forwarded[XS_PORTS];
    uint64_t tx_flushed[XS_PORTS], tx_flushed_fwd[XS_PORTS], rx_flushed[XS_PORTS];
    uint64_t tx_done[XS_PORTS];
};

/* xs_books: per (port, core) every frame received has one outcome; then the sums. */
static void xs_books(struct xs_books *b)
{
    memset(b, 0, sizeof(*b));
    for (unsigned p = 0; p < XS_PORTS; p++) {
        for (unsigned c = 0; c < XS_CORES; c++) {
            const struct nic_queue *q = &nic_port(p)->q[c];
            const struct net_queue_stats *ns = net_queue_stats_of(p, c);
            const struct fwd_stats *st = fwd_stats_of(p, c);
            uint64_t out = fwd_frame_outcomes(st) + net_queue_outcomes(ns);
            XS_CHECK(out == q->rx.stats.packets, "port%u core %u: %" PRIu64 " received, %" PRIu64
                     " outcomes", p, c, q->rx.stats.packets, out);
            xs_expect("ring errors", q->rx.stats.errors, 0);
            xs_expect("TX bad_len", q->tx.stats.bad_len, 0);
            b->fwd[p] += st->forwarded;
            b->link_down[p] += st->egress_link_down;
            b->ring_full[p] += q->tx.stats.ring_full;
            b->tx_forwarded[p] += q->tx.stats.forwarded;
            b->tx_flushed[p] += q->tx.stats.flushed;
            b->tx_flushed_fwd[p] += q->tx.stats.flushed_forwarded;
            b->rx_flushed[p] += q->rx.stats.flushed;
            b->tx_done[p] += q->tx.stats.packets;
        }
    }
}

/* xs_check_hosts: nothing reordered, duplicated, corrupted or unexpected on either wire. */
static void xs_check_hosts(void)
{
    struct sim *s = &xs_sim;
    xs_expect("stream frames reordered", s->reordered, 0);
    xs_expect("stream frames duplicated", s->duplicates, 0);
    xs_expect("stream frames corrupt", s->bad_len + s->bad_mac + s->bad_ttl + s->bad_csum +
              s->bad_payload, 0);
    xs_expect("unexpected frames on port1", s->p1_unexpected, 0);
    xs_expect("unexpected frames on port0", s->p0_unexpected, 0);
    xs_expect("failures reported by the hosts", s->failures, 0);
}

/* xs_frames_missing: stream frames in [from, to) host B never got. */
static uint64_t xs_frames_missing(uint64_t from, uint64_t to)
{
    uint64_t n = 0;
    for (uint64_t i = from; i < to; i++) {
        n += (xs_sim.seen[i / 8] & (1u << (i % 8))) == 0;
    }
    return n;
}

/* xs_check_pools_home: nothing in flight anywhere; each pool's free buffers + those posted in
 * its RX rings = its size (on a dead port: none posted); released, every pool is full. */
static void xs_check_pools_home(void)
{
    for (unsigned c = 0; c < XS_CORES; c++) {
        struct pkb_pool *pool = nic_pool(c);
        uint64_t held = 0;
        for (unsigned p = 0; p < XS_PORTS; p++) {
            const struct nic_queue *q = &nic_port(p)->q[c];
            held += iring_rx_posted(&q->rx);
            XS_CHECK(iring_tx_in_flight(&q->tx) == 0, "port%u core %u: TX buffers in flight", p,
                     c);
        }
        XS_CHECK(pool->nfree + held == pool->size, "core %u: %" PRIu32 " free + %" PRIu64
                 " in RX rings != %" PRIu32, c, pool->nfree, held, pool->size);
        xs_expect("pool foreign_free", pool->foreign_free, 0);
        xs_expect("pool double_free", pool->double_free, 0);
        for (unsigned p = 0; p < XS_PORTS; p++) {
            iring_rx_release(&nic_port(p)->q[c].rx);
        }
        XS_CHECK(pool->nfree == pool->size, "core %u: pool %" PRIu32 " of %" PRIu32 " after the "
                 "rings let go", c, pool->nfree, pool->size);
    }
}

/* xs_console_count: how many times line appears in the firmware's console. */
static unsigned xs_console_count(const char *needle)
{
    unsigned n = 0;
    for (const char *at = xs_console(); (at = strstr(at, needle)) != NULL; at++) {
        n++;
    }
    return n;
}

/* --- tx-hang ------------------------------------------------------------------------------- */

#define XS_HANG_FRAMES ((uint64_t)200000)
#define XS_HANG_BEFORE ((uint64_t)50000)

void xs_test_tx_hang(void)
{
    static struct xs_run r;
    struct sim *s = &xs_sim;
    xs_run_init(&r, XS_HANG_FRAMES);
    if (!xs_boot_stream(&r)) {
        free(s->seen);
        return;
    }
    struct nic_port *p1 = nic_port(1);

    /* Healthy: the first frames all arrive. */
    xs_stream_until(&r, XS_HANG_BEFORE);
    xs_expect("frames before the fault: delivered", s->unique, XS_HANG_BEFORE);

    /* port1 stops completing; the chip reset (CTRL.RST) brings it back. */
    xs_console_clear();
    xs_fault(1, IXGBE_MODEL_FAULT_TX_STOPS_COMPLETING, true);
    xs_fault_on_write(1, IXM_CTRL, IXM_CTRL_RST, IXGBE_MODEL_FAULT_TX_STOPS_COMPLETING, false, 0);
    uint64_t t_fault = xs_now(), t_hang = 0, sent_at_hang = 0;
    while (p1->resets == 0 && xs_now() - t_fault < 3000 * XS_MS && xs_failures() < 20) {
        xs_pass(&r, XS_SLOW_BURST, XS_MS);
        if (t_hang == 0 && p1->tx_hangs != 0) {
            t_hang = xs_now();
            sent_at_hang = r.next;
        }
    }
    uint64_t t_done = xs_now(), resumed_from = r.next;

    /* Back to line rate: every frame from here on must arrive. */
    xs_stream_until(&r, XS_HANG_FRAMES);
    nic_housekeeping();

    const char *hang = "); resetting the port\n";
    xs_expect("console: \"port1: TX queue N hung (...); resetting the port\"",
              xs_console_count(hang), 1);
    XS_CHECK(xs_console_has("port1: TX queue ") && xs_console_has(" hung (TDH "),
             "no hang report for port1: %s", xs_console());
    xs_expect("console: \"port1: reset done in ...\"", xs_console_count("port1: reset done in "),
              1);
    XS_CHECK(!xs_console_has("failed") && !xs_console_has("gone") &&
             !xs_console_has("port0:"), "unexpected console lines: %s", xs_console());
    xs_expect("port1 tx_hangs", p1->tx_hangs, 1);
    xs_expect("port1 resets", p1->resets, 1);
    xs_expect("port1 reset_failures", p1->reset_failures, 0);
    xs_expect("port0 tx_hangs + resets", nic_port(0)->tx_hangs + nic_port(0)->resets, 0);
    XS_CHECK(nic_port_state(p1) == NIC_PORT_RUNNING && p1->link_up, "port1 %s, link %s",
             nic_port_state_name(p1), p1->link_up ? "up" : "down");
    uint64_t found_ms = (t_hang - t_fault) / XS_MS, reset_ms = (t_done - t_hang) / XS_MS;
    XS_CHECK(t_hang != 0 && found_ms >= 1000 && found_ms <= 1101, "hang found %" PRIu64
             " ms after the fault, want 1000..1100 (the bound plus one housekeeping period)",
             found_ms);
    XS_CHECK(reset_ms <= 250, "port back %" PRIu64 " ms after the hang was found", reset_ms);
    for (unsigned c = 1; c < XS_CORES; c++) {
        XS_CHECK(xs_wake_count(c) >= 2, "core %u woken %" PRIu64 " times (stop, restart)", c,
                 xs_wake_count(c));
    }

    /* Frames: before the fault and after the reset, every one; in between, each one delivered
     * or counted where it ended. */
    xs_check_hosts();
    xs_expect("frames before the fault: missing", xs_frames_missing(0, XS_HANG_BEFORE), 0);
    struct xs_books b;
    xs_books(&b);
    XS_CHECK(xs_frames_missing(resumed_from, s->nframes) == 0, "frames after the reset: %" PRIu64
             " missing (of %" PRIu64 "; ring_full %" PRIu64 " tx_flushed %" PRIu64
             " egress_link_down %" PRIu64 " link %u)", xs_frames_missing(resumed_from,
             s->nframes), s->nframes - resumed_from, b.ring_full[1], b.tx_flushed_fwd[1],
             b.link_down[0], p1->link_up);
    uint64_t lost = b.ring_full[1] + b.tx_flushed_fwd[1] + b.link_down[0];
    xs_expect("stream frames = delivered + ring_full + tx_flushed + egress_link_down",
              s->nframes, s->unique + lost);
    xs_expect("port0 forwarded = port1 tx_forwarded + tx_flushed_forwarded + ring_full",
              b.fwd[0], b.tx_forwarded[1] + b.tx_flushed_fwd[1] + b.ring_full[1]);
    xs_expect("port1 flushed frames were all forwarded ones", b.tx_flushed[1],
              b.tx_flushed_fwd[1]);
    XS_CHECK(b.tx_flushed_fwd[1] > 0 && b.ring_full[1] > 0 && b.link_down[0] > 0,
             "the hang lost nothing? flushed %" PRIu64 " ring_full %" PRIu64 " link_down %"
             PRIu64, b.tx_flushed_fwd[1], b.ring_full[1], b.link_down[0]);
    /* The hardware's view, accumulated across the reset (it clears the registers). */
    xs_expect("port1 model frames sent = TX completions", xs_port(1)->tx_frames, b.tx_done[1]);
    xs_expect("port1 GPTC across the reset", p1->hw.tx_packets, xs_port(1)->tx_frames);
    xs_expect("port0 GPRC", nic_port(0)->hw.rx_packets, xs_wire_in[0]);
    xs_check_pools_home();
    free(s->seen);
    if (xs_failures() == 0) {
        xs_summarize("port1 stopped completing at %" PRIu64 " frames: hung queue found %" PRIu64
                     " ms later, port reset and running %" PRIu64 " ms after that, no reboot; "
                     "%" PRIu64 " frames, %" PRIu64 " delivered, %" PRIu64 " lost while hung and "
                     "counted (ring_full %" PRIu64 ", tx_flushed %" PRIu64 ", egress_link_down %"
                     PRIu64 "), all %" PRIu64 " after the reset delivered; GPTC kept across the "
                     "reset; pools full", sent_at_hang ? XS_HANG_BEFORE : 0, found_ms, reset_ms,
                     s->nframes, s->unique, lost, b.ring_full[1], b.tx_flushed_fwd[1],
                     b.link_down[0], s->nframes - resumed_from);
    }
}

/* --- gone-traffic ---------------------------------------------------------------------------- */

#define XS_GONE_FRAMES ((uint64_t)100000)
#define XS_GONE_BEFORE ((uint64_t)30000)

/* xs_hairpin_ok: host A sends to 198.51.100.200, routed back to host A through port0: one
 * frame out of port0, addressed to A, TTL 63. */
static bool xs_hairpin_ok(void)
{
    static struct xs_capture cap;
    uint8_t f[SIM_FRAME_BYTES];
    struct xs_port *xp = xs_port(0);
    memset(&cap, 0, sizeof(cap));
    xp->on_tx = xs_capture_tx;
    xp->tx_ctx = &cap;
    xs_build_ipv4(f, xp->mac, sim_mac_host_a, SIM_IP_HOST_A, XS_IP_HAIRPIN, XS_PROTO_UDP, 1111,
                  2222, 7, false);
    bool took = xs_inject(0, f, sizeof(f));
    xs_settle(NULL);
    xp->on_tx = xs_on_port0;
    xp->tx_ctx = &xs_sim;
    return took && cap.n == 1 && memcmp(cap.f[0], sim_mac_host_a, 6) == 0 &&
           memcmp(cap.f[0] + 6, xp->mac, 6) == 0 && cap.f[0][14 + 8] == 63 &&
           sim_ld32(cap.f[0] + 14 + 16) == XS_IP_HAIRPIN;
}

void xs_test_gone_traffic(void)
{
    static struct xs_run r;
    struct sim *s = &xs_sim;
    xs_run_init(&r, XS_GONE_FRAMES);
    if (!xs_boot_stream(&r)) {
        free(s->seen);
        return;
    }
    struct nic_port *p1 = nic_port(1);
    xs_stream_until(&r, XS_GONE_BEFORE);
    xs_expect("frames before the fault: delivered", s->unique, XS_GONE_BEFORE);

    /* port1 leaves the bus mid-stream. */
    xs_console_clear();
    xs_log_keep(1, true);
    xs_fault(1, IXGBE_MODEL_FAULT_DEVICE_GONE, true);
    uint64_t t_gone = xs_now(), t_found = 0;
    size_t log_at_found = 0;
    while (xs_now() - t_gone < 500 * XS_MS && xs_failures() < 20) {
        xs_pass(&r, XS_SLOW_BURST, XS_MS);
        if (t_found == 0 && nic_port_state(p1) == NIC_PORT_DEAD) {
            t_found = xs_now();
            xs_log(1, &log_at_found, NULL);
            /* Cores 1-3 have not followed yet: as if each woke from a halt now (disarm), and
             * another went to sleep (arm). Neither may touch the dead port. */
            for (unsigned c = 1; c < XS_CORES; c++) {
                nic_disarm_core(c);
                nic_arm_core(c);
                nic_disarm_core(c);
            }
        }
    }
    xs_stream_until(&r, XS_GONE_FRAMES); /* the rest: all towards the dead port */
    nic_housekeeping();
    size_t log_end;
    xs_log(1, &log_end, NULL);

    const char *line = "port1: device gone (STATUS reads all-ones); port no longer touched\n";
    xs_expect("console: device gone, once", xs_console_count(line), 1);
    XS_CHECK(t_found != 0 && t_found - t_gone <= XS_FHK_NS + XS_MS, "gone found %" PRIu64
             " ms after it happened (housekeeping runs every 100 ms)", (t_found - t_gone) / XS_MS);
    xs_expect("port1 register accesses after it was found gone (any core)", log_end -
              log_at_found, 0);
    xs_expect("port1 device_gone", p1->device_gone, 1);
    XS_CHECK(nic_port_state(p1) == NIC_PORT_DEAD && !p1->link_up, "port1 %s, link %s",
             nic_port_state_name(p1), p1->link_up ? "up" : "down");
    XS_CHECK((xs_port(1)->cfg[PCI_COMMAND] & PCI_COMMAND_MASTER) == 0,
             "port1 still bus master");
    for (unsigned c = 0; c < XS_CORES; c++) {
        XS_CHECK(!nic_queue_usable(p1, c), "core %u still uses port1", c);
    }

    /* Every frame delivered or counted; port0 still answers and forwards. */
    xs_check_hosts();
    xs_expect("frames before the fault: missing", xs_frames_missing(0, XS_GONE_BEFORE), 0);
    struct xs_books b;
    xs_books(&b);
    uint64_t lost = b.ring_full[1] + b.tx_flushed_fwd[1] + b.link_down[0];
    xs_expect("stream frames = delivered + ring_full + tx_flushed + egress_link_down",
              s->nframes, s->unique + lost);
    xs_expect("port0 forwarded = port1 tx_forwarded + tx_flushed_forwarded + ring_full",
              b.fwd[0], b.tx_forwarded[1] + b.tx_flushed_fwd[1] + b.ring_full[1]);
    XS_CHECK(xs_arp_exchange(0, SIM_IP_PORT0, sim_mac_host_a, SIM_IP_HOST_A),
             "port0 stopped answering ARP");
    XS_CHECK(xs_hairpin_ok(), "port0 no longer forwards (198.51.100.200 back to host A)");
    xs_check_pools_home();
    free(s->seen);
    if (xs_failures() == 0) {
        xs_summarize("port1 gone at %" PRIu64 " frames: \"device gone\" once, %" PRIu64 " ms "
                     "later, no register access by any core since, bus mastering off; %" PRIu64
                     " frames: %" PRIu64 " delivered, %" PRIu64 " counted (ring_full %" PRIu64
                     ", tx_flushed %" PRIu64 ", egress_link_down %" PRIu64 "); port0 answers "
                     "ARP and forwards; every buffer back in its pool", XS_GONE_BEFORE,
                     (t_found - t_gone) / XS_MS, s->nframes, s->unique, lost, b.ring_full[1],
                     b.tx_flushed_fwd[1], b.link_down[0]);
    }
}

/* --- sfp-pull ------------------------------------------------------------------------------ */

#define XS_PULL_FRAMES ((uint64_t)100000)
#define XS_PULL_BEFORE ((uint64_t)30000)

/*
 * port1's SFP+ module is pulled mid-stream and pushed back 500 ms later: the driver reports
 * both, the link goes down and comes back once the module is set up again, and every frame is
 * delivered or counted (egress link down, a full TX ring, or flushed).
 */
void xs_test_sfp_pull(void)
{
    static struct xs_run r;
    struct sim *s = &xs_sim;
    xs_run_init(&r, XS_PULL_FRAMES);
    if (!xs_boot_stream(&r)) {
        free(s->seen);
        return;
    }
    struct nic_port *p1 = nic_port(1);
    xs_stream_until(&r, XS_PULL_BEFORE);
    xs_expect("frames before the pull: delivered", s->unique, XS_PULL_BEFORE);

    xs_console_clear();
    ixgbe_model_set_module(xs_port(1)->m, IXGBE_MODEL_MODULE_NONE);
    uint64_t t_pull = xs_now();
    while (xs_now() - t_pull < 500 * XS_MS && xs_failures() < 20) {
        xs_pass(&r, XS_SLOW_BURST, XS_MS);
    }
    ixgbe_model_set_module(xs_port(1)->m, IXGBE_MODEL_MODULE_SR);
    uint64_t t_push = xs_now();
    while (!p1->link_up && xs_now() - t_push < 2000 * XS_MS && xs_failures() < 20) {
        xs_pass(&r, XS_SLOW_BURST, XS_MS);
    }
    uint64_t back_ms = (xs_now() - t_push) / XS_MS, resumed_from = r.next;
    xs_stream_until(&r, XS_PULL_FRAMES);
    nic_housekeeping();

    xs_expect("console: module removed", xs_console_count("port1: SFP+ module removed"), 1);
    xs_expect("console: module inserted", xs_console_count("port1: SFP+ module inserted"), 1);
    xs_expect("console: link down", xs_console_count("port1: link down"), 1);
    xs_expect("console: link up", xs_console_count("port1: link up"), 1);
    xs_expect("port1 module_events", p1->module_events, 2);
    xs_expect("port1 tx_hangs (a dark link is not a hang)", p1->tx_hangs, 0);
    XS_CHECK(p1->link_up && back_ms >= 300 && back_ms <= 600, "link %s %" PRIu64 " ms after the "
             "push (want up after the 300 ms settle, within 600)", p1->link_up ? "up" : "down",
             back_ms);
    xs_check_hosts();
    struct xs_books b;
    xs_books(&b);
    xs_expect("frames after the link came back: missing",
              xs_frames_missing(resumed_from, s->nframes), 0);
    uint64_t lost = b.ring_full[1] + b.tx_flushed_fwd[1] + b.link_down[0];
    xs_expect("stream frames = delivered + ring_full + tx_flushed + egress_link_down",
              s->nframes, s->unique + lost);
    XS_CHECK(b.link_down[0] > 0, "nothing counted as egress_link_down while the cage was empty");
    xs_check_pools_home();
    free(s->seen);
    if (xs_failures() == 0) {
        xs_summarize("port1's module pulled at %" PRIu64 " frames and pushed back 500 ms later: "
                     "removal, insertion, link down and up reported once each, link back %" PRIu64
                     " ms after the push; %" PRIu64 " frames, %" PRIu64 " delivered, %" PRIu64
                     " counted (egress_link_down %" PRIu64 ", ring_full %" PRIu64 ", tx_flushed %"
                     PRIu64 "); pools full", XS_PULL_BEFORE, back_ms, s->nframes, s->unique,
                     lost, b.link_down[0], b.ring_full[1], b.tx_flushed_fwd[1]);
    }
}

/* --- pause-flood --------------------------------------------------------------------------- */

#define XS_FLOOD_FRAMES ((uint64_t)100000)
#define XS_FLOOD_BEFORE ((uint64_t)30000)
#define XS_FLOOD_MS 2000

/*
 * Host B floods port1 with XOFF (the longest pause, every millisecond) for 2 s while host A
 * streams through port0 -> port1: port1's TX is held the whole time (the model obeys, as
 * nic.flow_control = full asks), the watchdog sees a held queue, not a hung one (no reset),
 * the held time and every PAUSE frame are counted, and once the peer says XON the stream goes
 * on at once; every frame is delivered or counted.
 */
void xs_test_pause_flood(void)
{
    static struct xs_run r;
    struct sim *s = &xs_sim;
    xs_run_init(&r, XS_FLOOD_FRAMES);
    if (!xs_boot_stream(&r)) {
        free(s->seen);
        return;
    }
    struct nic_port *p1 = nic_port(1);
    xs_stream_until(&r, XS_FLOOD_BEFORE);
    uint8_t xoff[SIM_FRAME_BYTES] = { 0x01, 0x80, 0xC2, 0x00, 0x00, 0x01, 0x02, 0, 0, 0, 0, 0xB,
                                      0x88, 0x08, 0x00, 0x01, 0xFF, 0xFF };
    uint64_t sent_before = xs_port(1)->tx_frames, xoffs = 0, t0 = xs_now();
    xs_console_clear();
    while (xs_now() - t0 < XS_FLOOD_MS * XS_MS && xs_failures() < 20) {
        xs_inject(1, xoff, sizeof(xoff));
        xoffs++;
        xs_pass(&r, XS_SLOW_BURST, XS_MS);
    }
    uint64_t held_out = xs_port(1)->tx_frames - sent_before;
    xoff[16] = xoff[17] = 0; /* the peer's buffer drained: XON, go on at once */
    xs_inject(1, xoff, sizeof(xoff));
    uint64_t resumed_from = r.next;
    xs_stream_until(&r, XS_FLOOD_FRAMES);
    nic_housekeeping();

    xs_expect("port1 tx_hangs (held by PAUSE, not hung)", p1->tx_hangs, 0);
    xs_expect("port1 resets", p1->resets, 0);
    XS_CHECK(!xs_console_has("hung"), "the watchdog called a paused queue hung: %s",
             xs_console());
    xs_expect("frames port1 sent while held", held_out, 0);
    xs_expect("port1 rx_flow_control_xoff", p1->hw.rx_xoff, xoffs);
    xs_expect("port1 rx_flow_control_xon", p1->hw.rx_xon, 1);
    XS_CHECK(p1->xoff_held_ms >= XS_FLOOD_MS - 200 && p1->xoff_held_ms <= XS_FLOOD_MS + 200,
             "xoff_held_ms %" PRIu64 ", want about %u", p1->xoff_held_ms, XS_FLOOD_MS);
    XS_CHECK(strcmp(p1->flow_control, "full") == 0, "flow control %s", p1->flow_control);
    xs_check_hosts();
    struct xs_books b;
    xs_books(&b);
    xs_expect("frames after the flood: missing", xs_frames_missing(resumed_from, s->nframes), 0);
    uint64_t lost = b.ring_full[1] + b.tx_flushed_fwd[1] + b.link_down[0];
    xs_expect("stream frames = delivered + ring_full + tx_flushed + egress_link_down",
              s->nframes, s->unique + lost);
    XS_CHECK(b.ring_full[1] > 0, "a 2 s pause lost nothing to a full TX ring?");
    xs_expect("port1 GPTC (PAUSE frames taken out) = TX completions", p1->hw.tx_packets,
              b.tx_done[1]);
    xs_check_pools_home();
    free(s->seen);
    if (xs_failures() == 0) {
        xs_summarize("%" PRIu64 " XOFF in 2 s on port1 under a stream: TX held (0 frames out), "
                     "no hang called, xoff_held_ms %" PRIu64 ", rx_flow_control_xoff %" PRIu64
                     "; then %" PRIu64 " frames, %" PRIu64 " delivered, %" PRIu64 " counted "
                     "(ring_full %" PRIu64 "); pools full", xoffs, p1->xoff_held_ms,
                     p1->hw.rx_xoff, s->nframes, s->unique, lost, b.ring_full[1]);
    }
}
