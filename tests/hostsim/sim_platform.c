/*
 * tests/hostsim/sim_platform.c: link-time stand-ins for the hardware-facing pieces the
 * forwarding path needs (see sim.h). What nic_probe_all finds on "PCI" are SIM_PORTS fake
 * functions; the driver it registers (sim_nic_probe) brings each up the way drivers/nic/igb.c does (port slot, per-core queue
 * rings from dma_alloc over the core's pool, RX ring filled, link up) but with its tail
 * registers in host memory, where the fake NIC of tests/fakes reads them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "console.h"
#include "dma.h"
#include "drivers/nic/nic.h"
#include "err.h"
#include "tests/hostsim/sim.h"
#include "time.h"

#define SIM_MAX_BLOCKS 4096 /* dma_alloc blocks kept for sim_platform_free */

static bool sim_quiet;
static uint64_t sim_now_ns = 1000000000ULL; /* not 0: "never" must stay distinguishable */
static struct pci_dev sim_pci[SIM_PORTS];
static struct sim_queue sim_queues[SIM_PORTS][WS_MAX_CPUS];
static void *sim_blocks[SIM_MAX_BLOCKS];
static unsigned sim_nblocks;

void sim_platform_init(bool quiet)
{
    sim_quiet = quiet;
    for (unsigned i = 0; i < SIM_PORTS; i++) {
        /* Two slots apart, as the system tests place QEMU's igb ports. */
        sim_pci[i] = (struct pci_dev){ .bus = 0, .dev = (uint8_t)(2 + 2 * i), .vendor = 0x8086,
                                       .device = 0x10c9 };
    }
}

struct sim_queue *sim_queue(unsigned port, unsigned q)
{
    return &sim_queues[port][q];
}

void sim_port_mac(unsigned port, uint8_t mac[6])
{
    static const uint8_t base[6] = { 0x02, 0x57, 0x53, 0x00, 0x00, 0x00 }; /* 02:"WS":00:00:0p */
    memcpy(mac, base, 6);
    mac[5] = (uint8_t)port;
}

void sim_clock_advance(uint64_t ns)
{
    sim_now_ns += ns;
}

uint64_t sim_clock_ns(void)
{
    return sim_now_ns;
}

void sim_platform_free(void)
{
    while (sim_nblocks > 0) {
        free(sim_blocks[--sim_nblocks]);
    }
}

/* --- kernel/time.h, kernel/dma.h, kernel/console.h ------------------------------------------ */

/* The firmware's time_ns is rdtsc, a subtract and a 128-bit multiply; this is one load. */
uint64_t time_ns(void)
{
    return sim_now_ns;
}

void *dma_alloc(size_t size, size_t align)
{
    if (sim_nblocks == SIM_MAX_BLOCKS) {
        return NULL;
    }
    size_t rounded = (size + align - 1) / align * align;
    void *p = aligned_alloc(align, rounded == 0 ? align : rounded);
    if (p != NULL) {
        memset(p, 0, rounded);
        sim_blocks[sim_nblocks++] = p;
    }
    return p;
}

/* One memory node here: every core is on node 0, every node's allocation an ordinary one. */
uint32_t smp_core_node(unsigned core)
{
    (void)core;
    return 0;
}

void *dma_alloc_node(size_t size, size_t align, uint32_t node)
{
    (void)node;
    return dma_alloc(size, align);
}

int kvprintf(const char *fmt, va_list ap)
{
    if (sim_quiet) {
        return 0;
    }
    fputs("  fw| ", stdout);
    return vprintf(fmt, ap);
}

int kprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = kvprintf(fmt, ap);
    va_end(ap);
    return n;
}

/* --- drivers/pci/pci.h: SIM_PORTS functions, all ours to drive ---------------------------- */

unsigned pci_device_count(void)
{
    return SIM_PORTS;
}

struct pci_dev *pci_device(unsigned i)
{
    return i < SIM_PORTS ? &sim_pci[i] : NULL;
}

const char *pci_bdf(const struct pci_dev *d, char *buf)
{
    snprintf(buf, 13, "%04x:%02x:%02x.%u", d->segment, d->bus, d->dev & 0x1fu, d->fn & 7u);
    return buf;
}

/* Configuration space: only the command register, which nic.c clears bus mastering in. */
static uint16_t sim_pci_command[SIM_PORTS];

uint16_t pci_read16(const struct pci_dev *d, uint16_t off)
{
    return off == PCI_COMMAND && d >= sim_pci && d < sim_pci + SIM_PORTS
               ? sim_pci_command[d - sim_pci] : 0xFFFF;
}

void pci_write16(const struct pci_dev *d, uint16_t off, uint16_t v)
{
    if (off == PCI_COMMAND && d >= sim_pci && d < sim_pci + SIM_PORTS) {
        sim_pci_command[d - sim_pci] = v;
    }
}

/* --- kernel/irq.h: cores take turns here and never halt, so a wake-up has nothing to do ---- */

void irq_wake_core(unsigned core)
{
    (void)core;
}

/* --- the fake ports and their driver ---------------------------------------------------------- */

static void sim_nic_noop(struct nic_port *p, unsigned queue)
{
    (void)p;
    (void)queue;
}

static void sim_nic_housekeeping(struct nic_port *p)
{
    (void)p;
}

static void sim_nic_ring_heads(struct nic_port *p, unsigned queue, uint32_t *rdh, uint32_t *rdt,
                               uint32_t *tdh, uint32_t *tdt)
{
    const struct sim_queue *sq = &sim_queues[p->index][queue];
    *rdh = sq->nrx.head;
    *rdt = sq->rdt;
    *tdh = sq->ntx.head;
    *tdt = sq->tdt;
}

static bool sim_nic_present(struct nic_port *p)
{
    (void)p;
    return true;
}

/* A fake port never hangs (its TX runs when the harness says): a reset is not expected. */
static int sim_nic_reset(struct nic_port *p)
{
    kprintf("%s: reset not supported by the fake port\n", p->name);
    return WS_ERR_NOSYS;
}

static const struct nic_ops sim_nic_ops = {
    .chip = "hostsim",
    .irq_arm = sim_nic_noop,
    .irq_disarm = sim_nic_noop,
    .housekeeping = sim_nic_housekeeping,
    .dump_regs = sim_nic_housekeeping,
    .ring_heads = sim_nic_ring_heads,
    .present = sim_nic_present,
    .reset = sim_nic_reset,
};

static bool sim_nic_supports(const struct pci_dev *d)
{
    return d >= &sim_pci[0] && d < &sim_pci[SIM_PORTS];
}

/* sim_queue_up: igb_alloc_queue + igb_init_{rx,tx}_queue's ring part, tails in host memory. */
static int sim_queue_up(struct nic_port *p, unsigned q)
{
    struct nic_queue *nq = &p->q[q];
    struct sim_queue *sq = &sim_queues[p->index][q];
    void *rxd = dma_alloc(IRING_DESC_MEM_BYTES(CONFIG_NIC_RX_DESCS), IRING_ALIGN_BYTES);
    void *txd = dma_alloc(IRING_DESC_MEM_BYTES(CONFIG_NIC_TX_DESCS), IRING_ALIGN_BYTES);
    struct pkb **rxsw = dma_alloc(CONFIG_NIC_RX_DESCS * sizeof(struct pkb *), 64);
    struct pkb **txsw = dma_alloc(CONFIG_NIC_TX_DESCS * sizeof(struct pkb *), 64);
    struct iring_tx_mark *marks = dma_alloc(CONFIG_NIC_TX_DESCS * sizeof(*marks), 64);

    if (rxd == NULL || txd == NULL || rxsw == NULL || txsw == NULL || marks == NULL) {
        return WS_ERR_NO_MEMORY;
    }
    memset(sq, 0, sizeof(*sq));
    int err = iring_rx_init(&nq->rx, rxd, rxsw, CONFIG_NIC_RX_DESCS, (uintptr_t)&sq->rdt,
                            nic_pool(q), (uint16_t)q, (uint16_t)p->index);
    if (err == WS_OK) {
        err = iring_tx_init(&nq->tx, txd, txsw, marks, CONFIG_NIC_TX_DESCS, (uintptr_t)&sq->tdt,
                            nic_pool(q), (uint16_t)q, (uint16_t)p->index);
    }
    if (err != WS_OK) {
        return err;
    }
    iring_rx_trust_ipv4_csum(&nq->rx, IDESC_RX_ERR_82576_IPE); /* as igb, with RXCSUM.IPOFL */
    fake_inic_rx_init(&sq->nrx, rxd, CONFIG_NIC_RX_DESCS, &sq->rdt, PKB_DATA_BYTES);
    fake_inic_tx_init(&sq->ntx, txd, CONFIG_NIC_TX_DESCS, &sq->tdt);
    return iring_rx_fill(&nq->rx) == 0 ? WS_ERR_NO_MEMORY : WS_OK;
}

static int sim_nic_probe(struct pci_dev *d, unsigned ncores)
{
    struct nic_port *p = nic_alloc_port();
    if (p == NULL) {
        return WS_ERR_NO_MEMORY;
    }
    p->pci = d;
    p->ops = &sim_nic_ops;
    p->nqueues = ncores < WS_MAX_CPUS ? ncores : WS_MAX_CPUS;
    p->q = dma_alloc(p->nqueues * sizeof(struct nic_queue), 64);
    int err = p->q != NULL && p->index < SIM_PORTS ? WS_OK : WS_ERR_NO_MEMORY;
    if (err == WS_OK) {
        sim_port_mac(p->index, p->mac);
    }
    for (unsigned q = 0; err == WS_OK && q < p->nqueues; q++) {
        err = sim_queue_up(p, q);
    }
    if (err != WS_OK) {
        kprintf("%s: fake port bring-up failed: %s\n", p->name, err_name(err));
        nic_abandon_port(p);
        return err;
    }
    p->link_up = true;
    p->speed_mbps = 10000;
    return WS_OK;
}

WS_NIC_DRIVER(sim_nic, .supports = sim_nic_supports, .probe = sim_nic_probe);

/* No sink core runs in the simulation: nothing is ever asleep to be kicked. */
void loop_kick(unsigned core)
{
    (void)core;
}
