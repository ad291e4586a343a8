/*
 * drivers/nic/nic.c: the port table, per-core packet pools, and the per-core interrupt arming
 * of the adaptive loop. What happens to a frame is the application's (apps/fwd).
 */
#include "nic.h"

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "console.h"
#include "dma.h"
#include "mmio.h"
#include "drivers/nic/igb.h"
#include "drivers/nic/ixgbe.h"

/* read-only after nic_probe_all (their queues are per core) */
static struct nic_port nic_ports[NIC_MAX_PORTS];
static unsigned nic_nports;
static struct pkb_pool nic_pools[WS_MAX_CPUS]; /* pool c: owned by core c */
static unsigned nic_ncores;

struct nic_port *nic_alloc_port(void)
{
    if (nic_nports == NIC_MAX_PORTS) {
        kprintf("nic: more than %d ports; the rest are ignored\n", NIC_MAX_PORTS);
        return NULL;
    }
    struct nic_port *p = &nic_ports[nic_nports];
    memset(p, 0, sizeof(*p));
    p->index = nic_nports++;
    snprintf(p->name, sizeof(p->name), "port%u", p->index);
    return p;
}

void nic_abandon_port(struct nic_port *p)
{
    kprintf("%s: skipped (see the message above)\n", p->name);
    if (p->index == nic_nports - 1) {
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
        struct pkb *meta = dma_alloc(n * sizeof(struct pkb), 64);
        struct pkb **stack = dma_alloc(n * sizeof(struct pkb *), 64);
        uint8_t *data = dma_alloc((size_t)n * PKB_DATA_BYTES, PKB_DATA_BYTES);
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

static void nic_set_address(struct nic_port *p)
{
    static const struct {
        int has;
        uint32_t ip;
        int prefix;
    } addrs[] = CONFIG_PORT_ADDRESSES;

    memcpy(p->ifc.mac, p->mac, 6);
    p->ifc.port = (uint16_t)p->index;
    p->has_address = p->index < sizeof(addrs) / sizeof(addrs[0]) && addrs[p->index].has;
    if (p->has_address) {
        p->ifc.ip = addrs[p->index].ip;
        p->ifc.prefix_len = (uint8_t)addrs[p->index].prefix;
    }
}

static void nic_report_port(const struct nic_port *p)
{
    char bdf[16], addr[32] = "no address";
    uint32_t ip = p->ifc.ip;

    if (p->has_address) {
        snprintf(addr, sizeof(addr), "address %u.%u.%u.%u/%u", ip >> 24, (ip >> 16) & 255,
                 (ip >> 8) & 255, ip & 255, p->ifc.prefix_len);
    }
    kprintf("%s: %s %s mac %02x:%02x:%02x:%02x:%02x:%02x link %s, %u queues, %s\n", p->name,
            pci_bdf(p->pci, bdf), p->ops->chip, p->mac[0], p->mac[1], p->mac[2], p->mac[3],
            p->mac[4], p->mac[5], p->link_up ? "up" : "down", p->nqueues, addr);
}

unsigned nic_probe_all(unsigned ncores)
{
    for (unsigned i = 0; i < pci_device_count(); i++) {
        struct pci_dev *d = pci_device(i);
        bool igb = igb_supports(d);
        if (d->broken || d->claimed || !(igb || ixgbe_supports(d))) {
            continue;
        }
        d->claimed = true;
        if ((igb ? igb_probe(d, ncores) : ixgbe_probe(d, ncores)) == 0) {
            struct nic_port *p = &nic_ports[nic_nports - 1];
            nic_set_address(p);
            nic_report_port(p);
        }
    }
    return nic_nports;
}

bool nic_arm_core(unsigned core)
{
    bool pending = false;
    for (unsigned i = 0; i < nic_nports; i++) {
        struct nic_port *p = &nic_ports[i];
        if (core < p->nqueues) {
            p->ops->irq_arm(p, core);
        }
    }
    /* Re-check after arming: a frame that landed before the arm raised no interrupt. */
    for (unsigned i = 0; i < nic_nports && !pending; i++) {
        struct nic_port *p = &nic_ports[i];
        pending = core < p->nqueues && iring_rx_pending(&p->q[core].rx);
    }
    return pending;
}

void nic_disarm_core(unsigned core)
{
    for (unsigned i = 0; i < nic_nports; i++) {
        struct nic_port *p = &nic_ports[i];
        if (core < p->nqueues) {
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

void nic_housekeeping(void)
{
    for (unsigned i = 0; i < nic_nports; i++) {
        nic_ports[i].ops->housekeeping(&nic_ports[i]);
    }
}
