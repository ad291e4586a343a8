/*
 * drivers/nic/nic.h: a port, whatever its chip. Each port has one RX and one TX queue per core
 * (queue index == core index), each queue with its own MSI-X vector aimed at that core. The
 * chip drivers (igb.c, ixgbe.c) fill in a port and its ops; the per-core loop and the console
 * see only this.
 *
 * Faults (docs/architecture.md, "Faults"): core 0's housekeeping watches every port. A TX queue
 * that stops completing (nic_txwd.h) gets its port reset; a port that reads all-ones (gone) or
 * whose reset fails is dead. Core 0 announces each change in the port's gstate (generation and
 * state in one word) and wakes the cores; each core, in its own pass (nic_core_sync), stops
 * using the port's queues, or releases and refills its rings once the port runs again, and
 * acknowledges in its queue's seen_gen. Only the owning core ever frees its buffers; the fast
 * path pays one load of a word that changes only on such events.
 */
#ifndef WS_NIC_H
#define WS_NIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/nic/intel_ring.h"
#include "drivers/nic/nic_txwd.h"
#include "drivers/pci/msix.h"
#include "param.h"
#include "pkb.h"
#include "table.h"

/* The longest frame a port takes in: the largest MTU (config portN.mtu) with the Ethernet
 * header, a VLAN tag and the FCS. Above 1500 (jumbo frames) the drivers turn on long-packet
 * receive up to this, into PKB_DATA_BYTES buffers that hold it; at 1500 they keep the NICs'
 * standard limit (1518, 1522 tagged). */
#define NIC_MAX_FRAME_BYTES (CONFIG_MAX_MTU + 14 + 4 + 4)
#define NIC_JUMBO (CONFIG_MAX_MTU > 1500)
_Static_assert(NIC_MAX_FRAME_BYTES - 4 <= PKB_DATA_BYTES, "a whole frame fits one RX buffer");

#define NIC_MAX_PORTS WS_MAX_PORTS
#define NIC_NAME_BYTES 8

struct nic_port;

/*
 * struct nic_config: what the floors above ask of every port, given once before the ports are
 * probed (init level INIT_CONFIG); the chip drivers read only this, never an app's settings.
 */
struct nic_config {
    const uint8_t *rss_key; /* RSS_KEY_BYTES (drivers/nic/rss.h); NULL: rss_default_key */
    bool promiscuous;       /* take every frame, whatever its destination MAC (a bump in the
                             * wire), instead of ours, broadcast and nothing else */
    bool all_multicast;     /* take every multicast frame too (IPv6: neighbour discovery goes to
                             * groups; the local stack keeps those it joined, in software) */
    bool vlan_hw[NIC_MAX_PORTS]; /* port i carries 802.1Q sub-interfaces: its NIC strips tags on
                                  * receive and puts them on on send (nic_port.vlan_hw) */
};

/* read-only once the ports are probed */
extern struct nic_config nic_cfg;

/* nic_configure: set nic_cfg. Boot core, before nic_probe_all. */
void nic_configure(const struct nic_config *cfg);

/* struct nic_driver: a chip driver, found by nic_probe_all in the ws_nic_drivers table. */
struct nic_driver {
    const char *name;
    bool (*supports)(const struct pci_dev *d); /* is d a function this driver drives? */
    int (*probe)(struct pci_dev *d, unsigned ncores); /* bring it up: 0, or WS_ERR_* */
};

/* WS_NIC_DRIVER(id, .supports = ..., .probe = ...): register a chip driver. */
#define WS_NIC_DRIVER(id, ...)                                                                 \
    static const struct nic_driver nic_driver_##id WS_TABLE_ENTRY(ws_nic_drivers) = {         \
        .name = #id, __VA_ARGS__                                                               \
    }

struct nic_ops {
    const char *chip;
    /* arm / disarm the queue's interrupt (adaptive polling). Owning core. */
    void (*irq_arm)(struct nic_port *p, unsigned queue);
    void (*irq_disarm)(struct nic_port *p, unsigned queue);
    /* housekeeping: link state and hardware statistics. Core 0, slow path. */
    void (*housekeeping)(struct nic_port *p);
    /* register dump for `regs` and head/tail for `rings`. Console core. */
    void (*dump_regs)(struct nic_port *p);
    void (*ring_heads)(struct nic_port *p, unsigned queue, uint32_t *rdh, uint32_t *rdt,
                       uint32_t *tdh, uint32_t *tdt);
    /* present: false once the device reads all-ones (STATUS): it has left the bus. Core 0. */
    bool (*present)(struct nic_port *p);
    /* reset: reset the chip and program it as at probe, but with every RX and TX ring empty
     * (head = tail = 0) and the interrupts routed as before. Called only while no core uses the
     * port (NIC_PORT_STOPPED, acknowledged by every core); the rings' buffers stay with their
     * owners, who release and refill them when the port runs again. Returns 0 or a negative
     * WS_ERR_* (message printed). Core 0, slow path (tens of ms). */
    int (*reset)(struct nic_port *p);
};

/* A port's state, in the low bits of nic_port.gstate. */
enum nic_port_state {
    NIC_PORT_RUNNING = 0, /* every core uses its queue pair */
    NIC_PORT_STOPPED = 1, /* a reset is under way: no core touches the port's queues */
    NIC_PORT_DEAD = 2,    /* gone (reads all-ones) or its reset failed: never used again */
};
#define NIC_GSTATE_STATE_MASK 3U
#define NIC_GSTATE_GEN_STEP 4U

/* Hardware statistics as 64-bit totals (registers are clear-on-read; core 0 accumulates). */
struct nic_hw_stats {
    uint64_t rx_packets, rx_bytes, rx_broadcast, rx_multicast;
    uint64_t rx_missed_errors;    /* MPC: no room in the NIC's packet buffer */
    uint64_t rx_no_buffer_count;  /* RNBC: no free descriptor on the target queue */
    uint64_t rx_crc_errors, rx_undersize, rx_oversize;
    uint64_t tx_packets, tx_bytes;
    uint64_t rx_queue_drops[WS_MAX_CPUS]; /* RQDPC: per-queue drops (DROP_EN) */
    uint64_t rx_xon, rx_xoff, tx_xon, tx_xoff; /* IEEE 802.3x PAUSE frames (LXON/LXOFF) */
};

/*
 * struct nic_media: the module in a port's cage (82599 SFP+ boards), as the driver identified it
 * from the module's SFF-8472 page; for `ports` and the console. Written by core 0 (bring-up,
 * housekeeping); a board without a cage has cage = false and nothing else set.
 */
#define NIC_MEDIA_STR_BYTES 17 /* SFF-8472 vendor name / part number: 16 characters */
struct nic_media {
    bool cage;     /* the board has a module cage */
    bool present;  /* a module sits in it */
    bool refused;  /* present but not set up: unknown type or unreadable (laser kept off) */
    bool laser_on; /* the driver lets the module transmit */
    char kind[NIC_MEDIA_STR_BYTES];   /* "10GBASE-SR", "DA passive", "1000BASE-T", "unknown" */
    char vendor[NIC_MEDIA_STR_BYTES]; /* as the module names itself, trailing spaces cut */
    char part[NIC_MEDIA_STR_BYTES];
    uint8_t oui[3];
    uint8_t settle; /* housekeeping passes a newly inserted module has sat (driver's own) */
    bool dual_rate; /* a 10G/1G optic: the driver tries the other rate when one does not link */
    bool at_1g;     /* set up for 1G: a 1G module, or a dual-rate optic at its lower rate */
    uint64_t setup_ns; /* when the module was last set up (time_ns) */
};

/* One queue pair, owned by core `index` of its port. Cache-line aligned: no sharing. */
struct nic_queue {
    struct iring_rx rx;
    struct iring_tx tx;
    uint8_t msix_entry; /* MSI-X table entry == EICR bit */
    uint8_t vector;     /* IDT vector on the owning core */
    bool no_irq;        /* no MSI-X route to the core (APIC ID > 255): polled, never slept on */
    /* owned by the queue's core: how far it has followed the port's state (nic_core_sync) */
    bool usable;                /* this core may touch the queue pair now */
    volatile uint32_t seen_gen; /* the port's gstate this core has acted on (core 0 reads it) */
} __attribute__((aligned(64)));

struct nic_port {
    /* read-only after init */
    unsigned index;
    char name[NIC_NAME_BYTES]; /* "port0" */
    const struct nic_ops *ops;
    struct pci_dev *pci;
    uintptr_t bar0;
    struct msix msix;
    uint8_t mac[6];
    unsigned nqueues;
    struct nic_queue *q; /* nqueues entries */
    bool tx_tcp4_csum;   /* every TX ring holds the TCP/IPv4 checksum context: frames marked
                          * PKB_TX_CSUM_TCP4 get their TCP checksum from the NIC */
    bool tx_tcp4_tso;    /* and the rings cut PKB_TX_TSO frames into segments (both chips do:
                          * 82576 §7.2.4, 82599 §7.2.4; intel_ring loads the context) */
    bool vlan_hw;        /* the NIC strips 802.1Q tags on receive (nic_rx_vlan_mask says which
                          * frames) and inserts them on send (PKB_TX_VLAN): nic_cfg.vlan_hw,
                          * set before the driver programs the queues (both chips can) */

    /* written by core 0 (housekeeping) */
    volatile bool link_up;
    volatile uint32_t speed_mbps;
    uint64_t link_changes;
    struct nic_media media;
    uint64_t module_events; /* modules inserted or removed since boot */
    const char *flow_control; /* "off", "rx", "tx", "full"; NULL: the chip driver sets none */
    uint64_t xoff_held_ms;    /* housekeeping time in which the peer's XOFF arrived */
    uint64_t xoff_seen;       /* hw.rx_xoff at the watchdog's last look */
    struct nic_hw_stats hw;

    /* written by core 0 (fault handling), read by every core */
    volatile uint32_t gstate; /* generation (bumped on every change) | enum nic_port_state */
    /* core 0 only */
    uint64_t tx_hangs;       /* hung TX queues the watchdog found (each resets the port) */
    uint64_t resets;         /* resets completed, the port running again */
    uint64_t reset_failures; /* resets that failed (the port is then dead) */
    uint64_t device_gone;    /* 1 once the port read all-ones */
    uint64_t reset_start_ns; /* when the current reset began */
    bool reset_waiting_noted;
    struct nic_txwd txwd[WS_MAX_CPUS]; /* per TX queue */
};

/* Every core's view of the port events (one cache line each, written by that core only). */
struct nic_core_view {
    uint32_t events_seen; /* nic_events when this core last looked */
    bool busy;            /* test builds: a `pool hold` is still taking buffers */
} __attribute__((aligned(64)));

/* nic_events: bumped (release) by core 0 after any port changed state (or a test request); a
 * core that has not seen the latest value runs nic_core_sync_slow. */
extern volatile uint32_t nic_events;
extern struct nic_core_view nic_core_views[WS_MAX_CPUS];

/* nic_core_sync_slow: act on every port whose state changed since this core last looked (stop
 * using it; or release and refill its rings once it runs again), then acknowledge. */
void nic_core_sync_slow(unsigned core, uint32_t events);

/* nic_core_sync: the fast path's check, at the start of each pass, before any queue is
 * touched (the pass's TX batches are all flushed by then). One load. Core `core` only. */
static inline void nic_core_sync(unsigned core)
{
    uint32_t ev = __atomic_load_n(&nic_events, __ATOMIC_ACQUIRE);
    struct nic_core_view *v = &nic_core_views[core];
    if (__builtin_expect(ev != v->events_seen || v->busy, 0)) {
        nic_core_sync_slow(core, ev);
    }
}

/* nic_queue_usable: may core `core` use its queue pair on p (as of its last nic_core_sync)? */
static inline bool nic_queue_usable(const struct nic_port *p, unsigned core)
{
    return core < p->nqueues && p->q[core].usable;
}

/*
 * The burst interface, the one door between apps and the rings (as ixy's rx_batch/tx_batch):
 * nic_rx_burst takes received frames, drivers/nic/nic_tx.h's nic_tx_queue sends, and
 * nic_tx_pass_end closes a pass. All on the owning core, for a queue it may use.
 */
/* nic_rx_burst: up to max frames off core's RX queue on p, the ring refilled behind them. */
static inline unsigned nic_rx_burst(struct nic_port *p, unsigned core, struct pkb **out,
                                    unsigned max)
{
    return iring_rx_burst(&p->q[core].rx, out, max);
}

/* nic_tx_pass_end: every port's batch of this core to its TX ring; a ring that got nothing new
 * has its completions reclaimed anyway, so buffers do not sit in a quiet ring. */
void nic_tx_pass_end(unsigned core);

static inline enum nic_port_state nic_port_state(const struct nic_port *p)
{
    return (enum nic_port_state)(__atomic_load_n(&p->gstate, __ATOMIC_ACQUIRE) &
                                 NIC_GSTATE_STATE_MASK);
}

/* nic_probe_all: find supported NICs on PCI, bring each up with one queue per core
 * (ncores): the ones the config pins (portN.pci) as those ports, the others in PCI order into
 * the lowest numbers left. A number below the highest that no NIC took is an absent port
 * (dead, no queues). Prints one line per port. Boot core, after PCI and per-core pools.
 * Returns the number of ports, absent ones included. */
unsigned nic_probe_all(unsigned ncores);
unsigned nic_port_count(void);
struct nic_port *nic_port(unsigned i);

/* nic_rx_l4_csum_ok: did the NIC vouch for the TCP/UDP checksum of frame b (from
 * nic_rx_burst, its write-back status kept in rx_status)? Asked by the sink, per frame it
 * takes; the forwarding path never pays for it. */
static inline bool nic_rx_l4_csum_ok(const struct pkb *b)
{
    const struct nic_port *p = nic_port(b->port);
    return p != NULL && b->queue < p->nqueues &&
           iring_rx_l4_csum_ok(&p->q[b->queue].rx, b->rx_status);
}

/* nic_rx_vlan_mask: read once per burst: the rx_status bits saying the NIC took frame b's
 * 802.1Q tag off into b->vlan (b->rx_status & mask nonzero); 0 for a port that keeps tags
 * in the frame, so nothing is ever taken for stripped there. */
static inline uint32_t nic_rx_vlan_mask(const struct nic_port *p)
{
    return p->vlan_hw ? IDESC_RX_STATUS_VP : 0;
}

/*
 * The NIC's IPv4 header checksum verdict, read once per burst for the router's fast path:
 * nic_rx_ipv4_csum_ok(v, b) says whether the NIC checked frame b's header checksum and found
 * it good (IPCS set, the chip's IPE clear). A driver that does not trust its chip leaves the
 * mask 0, and the answer is always no.
 */
struct nic_rx_ipv4_verdict {
    uint32_t mask;
    uint32_t good;
};

static inline struct nic_rx_ipv4_verdict nic_rx_ipv4_verdict_of(const struct nic_port *p,
                                                                unsigned core)
{
    const struct iring_rx *r = &p->q[core].rx;
    return (struct nic_rx_ipv4_verdict){ .mask = r->ip_mask, .good = r->ip_good };
}

static inline bool nic_rx_ipv4_csum_ok(struct nic_rx_ipv4_verdict v, const struct pkb *b)
{
    return (b->rx_status & v.mask) == v.good;
}

/* nic_alloc_port: a chip driver takes the next port slot (named port<N>) to bring up;
 * nic_abandon_port gives it back when bring-up failed. Boot core. */
struct nic_port *nic_alloc_port(void);
void nic_abandon_port(struct nic_port *p);
/* nic_pool: core c's packet-buffer pool (created by nic_pools_init). */
struct pkb_pool *nic_pool(unsigned core);
int nic_pools_init(unsigned ncores);

/* nic_arm_core / nic_disarm_core: interrupts for this core's queues (adaptive mode); arm
 * returns true if a frame is already waiting (then do not halt). */
bool nic_arm_core(unsigned core);
void nic_disarm_core(unsigned core);
/* One named register for a chip's `regs <port>` table. */
struct nic_reg {
    const char *name;
    uint32_t offset; /* in BAR0 */
};

/* nic_print_regs: print name, offset and current value of each register (console core). Only
 * registers whose read has no side effect belong in such a table (no clear-on-read ones). */
void nic_print_regs(const struct nic_port *p, const struct nic_reg *regs, size_t n);

/* nic_housekeeping: for every port: whether it is still there, link state and hardware
 * counters, the TX hang watchdog, and the next step of a reset under way. Core 0, slow path:
 * ten times a second from the loop, and before every counter view. */
void nic_housekeeping(void);
/* nic_port_reset: reset port p as the watchdog does (stop every core, reset, restart),
 * giving `why` as the reason. Returns false if the port is not running. Core 0. */
bool nic_port_reset(struct nic_port *p, const char *why);
/* nic_port_state_name: "running", "resetting" or "dead". */
const char *nic_port_state_name(const struct nic_port *p);

/* Test builds (test.fault_command): core `core` takes buffers from its own pool, as a consumer
 * that falls behind would, until it holds n of them (taking them as they come back), or gives
 * them all back with n = 0. nic_test_held: how many it holds now. Core 0 asks; core `core`
 * acts in its next pass. */
void nic_test_hold(unsigned core, uint32_t n);
uint32_t nic_test_held(unsigned core);

#endif
