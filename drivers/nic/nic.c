/*
 * drivers/nic/nic.c: the port table, per-core packet pools, the per-core interrupt arming of the
 * adaptive loop, and fault handling: the TX hang watchdog, port resets and dead ports (the
 * protocol between core 0 and the others is described in nic.h). What happens to a frame is the
 * application's (apps/fwd).
 */
#include "nic.h"

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "console.h"
#include "dma.h"
#include "err.h"
#include "init.h"
#include "irq.h"
#include "loop.h"
#include "mmio.h"
#include "smp.h"
#include "time.h"
#include "drivers/nic/nic_tx.h"

/* A core that has not acknowledged a stop this long after it was asked is named on the console
 * (once per reset): the reset waits for it, as its rings cannot be touched while it might. */
#define NIC_RESET_ACK_NOTE_NS 1000000000ULL

/* read-only after nic_probe_all (their queues are per core) */
static struct nic_port nic_ports[NIC_MAX_PORTS];
static unsigned nic_nports;
static struct pkb_pool nic_pools[WS_MAX_CPUS]; /* pool c: owned by core c */
static unsigned nic_ncores;

volatile uint32_t nic_events;                    /* written by core 0 only */
struct nic_core_view nic_core_views[WS_MAX_CPUS]; /* entry c written by core c only */

/* Test builds: what `pool hold` asked of each core (written by core 0), and the buffers that
 * core holds, chained through their own data (written by that core only). */
static struct nic_test_hold {
    volatile uint32_t target;
    uint32_t held;
    struct pkb *list;
} nic_holds[WS_MAX_CPUS];

/*
 * Port numbers. A port the config pins to a PCI function (portN.pci) is portN whatever else
 * comes up, so a failed or missing NIC never renames the others; every other NIC takes the
 * lowest number left, in bus order (without portN.pci keys: bus order, as always). A number
 * below the highest in use that nothing took is an absent port: dead from the start, no
 * queues, named on the console; whatever is routed to it is dropped and counted as for a port
 * whose device has gone.
 */
static const struct {
    int has;
    uint32_t addr; /* segment << 16 | bus << 8 | device << 3 | function */
} nic_slot_cfg[NIC_MAX_PORTS] = CONFIG_PORT_PCI;
static bool nic_slot_used[NIC_MAX_PORTS];
static unsigned nic_next_slot; /* what nic_alloc_port hands out (nic_probe_all sets it) */

struct nic_port *nic_alloc_port(void)
{
    unsigned i = nic_next_slot;
    if (i >= NIC_MAX_PORTS) {
        kprintf("nic: more than %d ports; the rest are ignored\n", NIC_MAX_PORTS);
        return NULL;
    }
    struct nic_port *p = &nic_ports[i];
    memset(p, 0, sizeof(*p));
    p->index = i;
    p->vlan_hw = nic_cfg.vlan_hw[i];
    snprintf(p->name, sizeof(p->name), "port%u", p->index);
    nic_slot_used[i] = true;
    nic_nports = i + 1 > nic_nports ? i + 1 : nic_nports;
    return p;
}

void nic_abandon_port(struct nic_port *p)
{
    kprintf("%s: skipped (see the message above)\n", p->name);
    nic_slot_used[p->index] = false;
    while (nic_nports > 0 && !nic_slot_used[nic_nports - 1]) {
        nic_nports--;
    }
}

unsigned nic_port_count(void)
{
    return nic_nports;
}

struct nic_port *nic_port(unsigned i)
{
    return i < nic_nports ? &nic_ports[i] : NULL;
}

struct pkb_pool *nic_pool(unsigned core)
{
    return &nic_pools[core];
}

int nic_pools_init(unsigned ncores)
{
    uint32_t n = CONFIG_NIC_POOL_BUFFERS;
    for (unsigned c = 0; c < ncores; c++) {
        uint32_t node = smp_core_node(c); /* the core's own memory (SRAT) */
        struct pkb *meta = dma_alloc_node(n * sizeof(struct pkb), 64, node);
        struct pkb **stack = dma_alloc_node(n * sizeof(struct pkb *), 64, node);
        uint8_t *data = dma_alloc_node((size_t)n * PKB_DATA_BYTES, PKB_DATA_BYTES, node);
        if (meta == NULL || stack == NULL || data == NULL) {
            kprintf("nic: no memory for core %u's pool of %u buffers (%u MiB); lower "
                    "nic.pool_buffers\n", c, n, (unsigned)(((uint64_t)n * PKB_DATA_BYTES) >> 20));
            return -1;
        }
        pkb_pool_init(&nic_pools[c], (uint16_t)c, meta, stack, data, n);
    }
    nic_ncores = ncores;
    return 0;
}

static void nic_report_port(const struct nic_port *p)
{
    char bdf[16];

    kprintf("%s: %s %s mac %02x:%02x:%02x:%02x:%02x:%02x link %s, %u queues\n", p->name,
            pci_bdf(p->pci, bdf), p->ops->chip, p->mac[0], p->mac[1], p->mac[2], p->mac[3],
            p->mac[4], p->mac[5], p->link_up ? "up" : "down", p->nqueues);
}

WS_TABLE_DECLARE(struct nic_driver, ws_nic_drivers);

/* nic_driver_for: the registered driver that drives d, or NULL. */
static const struct nic_driver *nic_driver_for(const struct pci_dev *d)
{
    for (const struct nic_driver *drv = WS_TABLE_BEGIN(ws_nic_drivers);
         drv < WS_TABLE_END(ws_nic_drivers); drv++) {
        if (drv->supports(d)) {
            return drv;
        }
    }
    return NULL;
}

static uint32_t nic_pci_addr(const struct pci_dev *d)
{
    return (uint32_t)d->segment << 16 | (uint32_t)d->bus << 8 | (uint32_t)d->dev << 3 | d->fn;
}

/* nic_pci_at: a function that is not there, named by such an address (for messages and for an
 * absent port's pci). */
static struct pci_dev nic_pci_at(uint32_t a)
{
    return (struct pci_dev){ .segment = (uint16_t)(a >> 16), .bus = (uint8_t)(a >> 8),
                             .dev = (uint8_t)((a >> 3) & 0x1F), .fn = (uint8_t)(a & 7),
                             .vendor = 0xFFFF, .device = 0xFFFF };
}

/* nic_probe_into: bring d up as port `slot`. */
static void nic_probe_into(struct pci_dev *d, const struct nic_driver *drv, unsigned slot,
                           unsigned ncores)
{
    d->claimed = true;
    nic_next_slot = slot;
    if (drv->probe(d, ncores) == 0) {
        struct nic_port *p = &nic_ports[slot];
        p->tx_tcp4_csum = p->nqueues != 0;
        for (unsigned q = 0; q < p->nqueues; q++) {
            p->q[q].usable = true; /* running, generation 0 */
            /* Both chips' rings (intel_ring); before any core sends on them. */
            p->tx_tcp4_csum &= iring_tx_load_csum_context(&p->q[q].tx) == WS_OK;
        }
        p->tx_tcp4_tso = p->tx_tcp4_csum;
        nic_report_port(p);
    }
}

/* nic_probe_pinned: the NIC portN.pci names, as port n, or why there is none. */
static void nic_probe_pinned(unsigned n, unsigned ncores)
{
    struct pci_dev *d = NULL;
    for (unsigned i = 0; i < pci_device_count() && d == NULL; i++) {
        d = nic_pci_addr(pci_device(i)) == nic_slot_cfg[n].addr ? pci_device(i) : NULL;
    }
    const struct nic_driver *drv = d != NULL && !d->broken ? nic_driver_for(d) : NULL;
    if (drv == NULL) {
        struct pci_dev at = nic_pci_at(nic_slot_cfg[n].addr);
        char bdf[16];
        kprintf("port%u: nothing to drive at %s (config port%u.pci): %s\n", n,
                pci_bdf(&at, bdf), n,
                d == NULL ? "no PCI function there" : d->broken ? "the function is broken "
                "(its pci line says why)" : "not a NIC we have a driver for");
        return;
    }
    nic_probe_into(d, drv, n, ncores);
}

/* nic_free_slot: the lowest port number neither taken nor pinned by the config. */
static unsigned nic_free_slot(void)
{
    unsigned i = 0;
    while (i < NIC_MAX_PORTS && (nic_slot_used[i] || nic_slot_cfg[i].has)) {
        i++;
    }
    return i;
}

/* An absent port: what every loop over the ports may touch, and nothing to send through. */
static struct nic_queue nic_absent_queues[WS_MAX_CPUS];
static struct pci_dev nic_absent_pci[NIC_MAX_PORTS];
static bool nic_absent_present(struct nic_port *p)
{
    (void)p;
    return false;
}
static const struct nic_ops nic_absent_ops = { .chip = "absent", .present = nic_absent_present };

static void nic_fill_absent(void)
{
    for (unsigned i = 0; i < nic_nports && i < NIC_MAX_PORTS; i++) {
        if (nic_slot_used[i]) {
            continue;
        }
        struct nic_port *p = &nic_ports[i];
        memset(p, 0, sizeof(*p));
        nic_absent_pci[i] = nic_pci_at(nic_slot_cfg[i].addr);
        p->index = i;
        snprintf(p->name, sizeof(p->name), "port%u", i);
        p->ops = &nic_absent_ops;
        p->pci = &nic_absent_pci[i];
        p->q = nic_absent_queues;
        p->gstate = NIC_PORT_DEAD;
        kprintf("%s: absent (%s): dead from the start; what is routed to it is dropped and "
                "counted\n", p->name, nic_slot_cfg[i].has ? "its NIC, config portN.pci, did not "
                "come up" : "no NIC left for it below a port that portN.pci pins");
    }
}

unsigned nic_probe_all(unsigned ncores)
{
    for (unsigned n = 0; n < NIC_MAX_PORTS; n++) {
        if (nic_slot_cfg[n].has) {
            nic_probe_pinned(n, ncores);
        }
    }
    for (unsigned i = 0; i < pci_device_count(); i++) {
        struct pci_dev *d = pci_device(i);
        const struct nic_driver *drv = nic_driver_for(d);
        if (d->broken || d->claimed || drv == NULL) {
            continue;
        }
        nic_probe_into(d, drv, nic_free_slot(), ncores);
    }
    nic_fill_absent();
    return nic_nports;
}

void nic_tx_pass_end(unsigned core)
{
    for (unsigned i = 0; i < nic_nports; i++) {
        struct nic_port *p = &nic_ports[i];
        if (nic_tx_queued(core, i)) {
            nic_tx_flush_port(core, i);
        } else if (nic_queue_usable(p, core) && iring_tx_in_flight(&p->q[core].tx)) {
            iring_tx_reclaim(&p->q[core].tx);
        }
    }
}

struct nic_config nic_cfg; /* default: the published RSS key, not promiscuous */

void nic_configure(const struct nic_config *cfg)
{
    nic_cfg = *cfg;
}

/* nic_init_step: per-core packet buffers, then the ports (none without buffers). */
static int nic_init_step(struct init_ctx *ctx)
{
    int err = nic_pools_init(ctx->ncores);
    if (err == 0) {
        ctx->nports = nic_probe_all(ctx->ncores);
    }
    return err;
}
WS_INIT(nic, INIT_DRIVERS, false, nic_init_step);

/* nic_irq_ok: may this core touch its queue's interrupt registers on p? It may until it has
 * followed a stop; a dead port (which core 0 declares without waiting) is not touched even
 * before the core has followed. */
static bool nic_irq_ok(const struct nic_port *p, unsigned core)
{
    return nic_queue_usable(p, core) && nic_port_state(p) != NIC_PORT_DEAD;
}

bool nic_arm_core(unsigned core)
{
    bool pending = false;
    for (unsigned i = 0; i < nic_nports; i++) {
        struct nic_port *p = &nic_ports[i];
        if (!nic_irq_ok(p, core)) {
            continue;
        }
        if (p->q[core].no_irq) {
            pending = true; /* no interrupt would wake it: this core does not sleep */
        } else {
            p->ops->irq_arm(p, core);
        }
    }
    /* Re-check after arming: a frame that landed before the arm raised no interrupt, and a
     * port event posted before it was sent no wake-up this core will see (irq_wake_core comes
     * right after the event, so an event after this check does wake the halt). */
    for (unsigned i = 0; i < nic_nports && !pending; i++) {
        struct nic_port *p = &nic_ports[i];
        pending = nic_queue_usable(p, core) && iring_rx_pending(&p->q[core].rx);
    }
    return pending || __atomic_load_n(&nic_events, __ATOMIC_ACQUIRE) !=
                          nic_core_views[core].events_seen;
}

void nic_disarm_core(unsigned core)
{
    for (unsigned i = 0; i < nic_nports; i++) {
        struct nic_port *p = &nic_ports[i];
        if (nic_irq_ok(p, core)) {
            p->ops->irq_disarm(p, core);
        }
    }
}

void nic_print_regs(const struct nic_port *p, const struct nic_reg *regs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        kprintf("  %-10s 0x%05x = 0x%08x\n", regs[i].name, regs[i].offset,
                mmio_read32(p->bar0 + regs[i].offset));
    }
}

/* --- every core: following the ports' states ------------------------------------------- */

/* nic_queue_follow: this core's part of a state change of p (gstate g). */
static void nic_queue_follow(struct nic_port *p, struct nic_queue *q, uint32_t g)
{
    switch (g & NIC_GSTATE_STATE_MASK) {
    case NIC_PORT_STOPPED:
        /* Nothing of ours is on its way to the port: TX batches are flushed at the end of every
         * pass, and this runs before the next one touches a queue. */
        q->usable = false;
        break;
    case NIC_PORT_RUNNING:
        if (!q->usable) {
            /* The chip was reset with every ring empty: what the rings still hold is ours to
             * take back (and count), then the RX ring gets fresh buffers and its first RDT. */
            iring_tx_release(&q->tx);
            iring_tx_load_csum_context(&q->tx); /* the reset took the NIC's copy */
            iring_rx_release(&q->rx);
            iring_rx_fill(&q->rx);
            q->usable = true;
        }
        break;
    default:
        /* Dead: gone from the bus (it does no more DMA, and bus mastering is off) or a reset
         * failed after the chip reset stopped its DMA. The buffers come home. */
        q->usable = false;
        iring_tx_release(&q->tx);
        iring_rx_release(&q->rx);
        break;
    }
    (void)p;
    __atomic_store_n(&q->seen_gen, g, __ATOMIC_RELEASE); /* core 0 may go on */
}

/* nic_test_hold_step: test builds: take or give back buffers as `pool hold` asked. */
static bool nic_test_hold_step(unsigned core)
{
    struct nic_test_hold *h = &nic_holds[core];
    struct pkb_pool *pool = &nic_pools[core];
    uint32_t target = __atomic_load_n(&h->target, __ATOMIC_ACQUIRE);
    while (h->held > target) {
        struct pkb *b = h->list;
        memcpy(&h->list, b->data, sizeof(h->list));
        pkb_free(b, (uint16_t)core);
        h->held--;
    }
    while (h->held < target && pool->nfree > 0) { /* an empty pool is not an alloc_fail here */
        struct pkb *b = pkb_alloc(pool);
        memcpy(b->data, &h->list, sizeof(h->list));
        h->list = b;
        h->held++;
    }
    return h->held < target; /* still short: try again next pass, as buffers come back */
}

void nic_core_sync_slow(unsigned core, uint32_t events)
{
    for (unsigned i = 0; i < nic_nports; i++) {
        struct nic_port *p = &nic_ports[i];
        if (core < p->nqueues) {
            uint32_t g = __atomic_load_n(&p->gstate, __ATOMIC_ACQUIRE);
            if (g != p->q[core].seen_gen) {
                nic_queue_follow(p, &p->q[core], g);
            }
        }
    }
    nic_core_views[core].events_seen = events;
    nic_core_views[core].busy = CONFIG_TEST_FAULT_COMMAND && nic_test_hold_step(core);
}

/* --- core 0: state changes ------------------------------------------------------------------ */

const char *nic_port_state_name(const struct nic_port *p)
{
    static const char *const names[] = { "running", "resetting", "dead", "?" };
    return names[nic_port_state(p)];
}

/* nic_set_state: publish p's new state to every core and wake them; core 0 follows at once
 * (it runs this between its passes, its batches flushed). */
static void nic_set_state(struct nic_port *p, enum nic_port_state st)
{
    uint32_t g = ((p->gstate & ~NIC_GSTATE_STATE_MASK) + NIC_GSTATE_GEN_STEP) | st;
    __atomic_store_n(&p->gstate, g, __ATOMIC_RELEASE);
    __atomic_store_n(&nic_events, nic_events + 1, __ATOMIC_RELEASE);
    nic_core_sync(0);
    for (unsigned c = 1; c < nic_ncores; c++) {
        irq_wake_core(c);
    }
}

/* nic_all_followed: has every core with a queue on p acted on its current state? */
static bool nic_all_followed(struct nic_port *p, uint64_t now)
{
    uint32_t g = p->gstate;
    for (unsigned q = 0; q < p->nqueues; q++) {
        if (__atomic_load_n(&p->q[q].seen_gen, __ATOMIC_ACQUIRE) != g) {
            if (now - p->reset_start_ns > NIC_RESET_ACK_NOTE_NS && !p->reset_waiting_noted) {
                kprintf("%s: reset still waiting for core %u to stop using the port\n",
                        p->name, q);
                p->reset_waiting_noted = true;
            }
            return false;
        }
    }
    return true;
}

/* nic_port_dead: never use p again; every core gives its buffers back. Bus mastering is turned
 * off first, so that nothing the device might still do can reach the released buffers. */
static void nic_port_dead(struct nic_port *p, const char *why)
{
    kprintf("%s: %s\n", p->name, why);
    uint16_t cmd = pci_read16(p->pci, PCI_COMMAND);
    if (cmd != 0xFFFF) {
        pci_write16(p->pci, PCI_COMMAND, cmd & ~PCI_COMMAND_MASTER);
    }
    if (p->link_up) {
        p->link_up = false;
        p->speed_mbps = 0;
        p->link_changes++;
    }
    nic_set_state(p, NIC_PORT_DEAD);
}

bool nic_port_reset(struct nic_port *p, const char *why)
{
    if (nic_port_state(p) != NIC_PORT_RUNNING) {
        return false;
    }
    kprintf("%s: %s; resetting the port\n", p->name, why);
    p->reset_start_ns = time_ns();
    p->reset_waiting_noted = false;
    nic_set_state(p, NIC_PORT_STOPPED);
    return true;
}

/* nic_reset_step: once every core has stopped using p: last statistics, reset, restart. */
static void nic_reset_step(struct nic_port *p, uint64_t now)
{
    if (!nic_all_followed(p, now)) {
        return;
    }
    p->ops->housekeeping(p); /* the reset clears the statistics registers: read them first */
    int err = p->ops->reset(p);
    if (err != WS_OK) {
        p->reset_failures++;
        nic_port_dead(p, "reset failed (see above); port no longer used");
        return;
    }
    for (unsigned q = 0; q < p->nqueues; q++) {
        nic_txwd_forget(&p->txwd[q]);
    }
    p->resets++;
    nic_set_state(p, NIC_PORT_RUNNING);
    kprintf("%s: reset done in %llu ms; queues restarted\n", p->name,
            (unsigned long long)((time_ns() - p->reset_start_ns) / 1000000));
}

/* nic_watchdog: sample every TX queue of a running port (nic_txwd.h); reset the port when one
 * is hung. A port that received XOFF since the last look is held by its peer, not hung: the
 * samples start over (as for a link that is down), and the time is counted in xoff_held_ms. */
static void nic_watchdog(struct nic_port *p, uint64_t now, uint64_t since_ns)
{
    bool paused = p->hw.rx_xoff != p->xoff_seen;
    p->xoff_seen = p->hw.rx_xoff;
    if (paused) {
        p->xoff_held_ms += since_ns / 1000000;
    }
    for (unsigned q = 0; q < p->nqueues; q++) {
        uint32_t rdh, rdt, tdh, tdt;
        p->ops->ring_heads(p, q, &rdh, &rdt, &tdh, &tdt);
        uint64_t done = __atomic_load_n(&p->q[q].tx.stats.packets, __ATOMIC_RELAXED);
        if (nic_txwd_sample(&p->txwd[q], tdh, tdt, done, p->link_up && !paused, now,
                            NIC_TX_HANG_NS)) {
            char why[112];
            snprintf(why, sizeof(why), "TX queue %u hung (TDH %u TDT %u unchanged, no completion "
                     "for %llu ms, link up)", q, tdh, tdt,
                     (unsigned long long)((now - p->txwd[q].since_ns) / 1000000));
            p->tx_hangs++;
            nic_port_reset(p, why);
            return;
        }
    }
}

void nic_housekeeping(void)
{
    static uint64_t last_ns;
    uint64_t now = time_ns(), since = last_ns ? now - last_ns : 0;
    last_ns = now;
    for (unsigned i = 0; i < nic_nports; i++) {
        struct nic_port *p = &nic_ports[i];
        switch (nic_port_state(p)) {
        case NIC_PORT_RUNNING:
            if (!p->ops->present(p)) {
                p->device_gone = 1;
                nic_port_dead(p, "device gone (STATUS reads all-ones); port no longer touched");
                break;
            }
            p->ops->housekeeping(p);
            nic_watchdog(p, now, since);
            break;
        case NIC_PORT_STOPPED:
            nic_reset_step(p, now);
            break;
        default:
            break; /* dead: never touched again */
        }
    }
}

/* --- test builds: pool exhaustion on demand ------------------------------------------------ */

void nic_test_hold(unsigned core, uint32_t n)
{
    if (core < nic_ncores) {
        __atomic_store_n(&nic_holds[core].target, n, __ATOMIC_RELEASE);
        __atomic_store_n(&nic_events, nic_events + 1, __ATOMIC_RELEASE);
        if (core == 0) {
            nic_core_sync(0);
        } else {
            irq_wake_core(core);
        }
    }
}

uint32_t nic_test_held(unsigned core)
{
    return core < nic_ncores ? __atomic_load_n(&nic_holds[core].held, __ATOMIC_RELAXED) : 0;
}

#define NIC_HOUSEKEEPING_US 100000 /* link state and hardware counters: 10 times a second */

static unsigned nic_housekeeping_poll(unsigned core)
{
    (void)core;
    nic_housekeeping();
    return 0;
}

/* Each core arms its own queues' interrupts before it halts (adaptive mode). */
WS_POLLER(nic_irq, .order = POLLER_ORDER_NIC_IRQ, .arm = nic_arm_core, .disarm = nic_disarm_core);
WS_POLLER(nic_housekeeping, .order = POLLER_ORDER_HOUSEKEEPING, .runs_on = poller_on_core0,
          .poll = nic_housekeeping_poll, .period_us = NIC_HOUSEKEEPING_US);
