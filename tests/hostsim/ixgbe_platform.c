/*
 * tests/hostsim/ixgbe_platform.c: link-time stand-ins that put the firmware's real 82599 driver
 * on two tests/model ports (see ixgbe_platform.h for what is stood in for and how).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "console.h"
#include "dma.h"
#include "err.h"
#include "irq.h"
#include "mmio.h"
#include "percpu.h"
#include "tests/hostsim/ixgbe_platform.h"
#include "tests/hostsim/sim.h"
#include "time.h"
#include "vm.h"

#define XS_BAR0_BYTES IXGBE_MODEL_REGS_BYTES
#define XS_BAR4_BYTES IXGBE_MODEL_MSIX_BYTES
#define XS_DEVICE_ID 0x10FB /* 82599 SFP+ (SFI): IXGBE_DEV_ID_82599_SFP */
#define XS_MAX_BLOCKS 1024
#define XS_MAX_TIMED 32
#define XS_MAX_TRIGGERS 16
#define XS_CAP_PM 0x40
#define XS_CAP_MSI 0x50
#define XS_CAP_MSIX 0x70
#define XS_CAP_PCIE 0xA0
#define XS_MSI_ADDR_BASE 0xFEE00000U

struct percpu percpu_blocks[WS_MAX_CPUS];

static struct xs_port xs_ports[XS_PORTS];
static unsigned xs_ncores;
static bool xs_verbose;
static uint64_t xs_clock = XS_CLOCK_START_NS;

/* --- console capture ----------------------------------------------------------------------- */

static char *xs_con;
static size_t xs_con_len, xs_con_cap;

static void xs_con_append(const char *s, size_t n)
{
    if (xs_con_len + n + 1 > xs_con_cap) {
        size_t cap = xs_con_cap ? xs_con_cap : 4096;
        while (cap < xs_con_len + n + 1) {
            cap *= 2;
        }
        char *p = realloc(xs_con, cap);
        if (p == NULL) {
            abort();
        }
        xs_con = p;
        xs_con_cap = cap;
    }
    memcpy(xs_con + xs_con_len, s, n);
    xs_con_len += n;
    xs_con[xs_con_len] = '\0';
}

int kvprintf(const char *fmt, va_list ap)
{
    char buf[512];
    int n = vsnprintf(buf, sizeof(buf), fmt, ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1;
    xs_con_append(buf, len);
    if (xs_verbose) {
        printf("  fw| %.*s", (int)len, buf);
    }
    return n;
}

int kprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = kvprintf(fmt, ap);
    va_end(ap);
    return n;
}

const char *xs_console(void)
{
    return xs_con ? xs_con : "";
}

bool xs_console_has(const char *needle)
{
    return strstr(xs_console(), needle) != NULL;
}

void xs_console_clear(void)
{
    xs_con_len = 0;
    if (xs_con) {
        xs_con[0] = '\0';
    }
}

/* --- DMA memory: every block registered, the models may touch nothing else ------------------ */

static struct xs_block {
    uintptr_t start, end;
    void *mem;
} xs_blocks[XS_MAX_BLOCKS]; /* sorted by start */
static unsigned xs_nblocks;
static uint64_t xs_refused;

void *dma_alloc(size_t size, size_t align)
{
    if (xs_nblocks == XS_MAX_BLOCKS || align == 0 || (align & (align - 1)) != 0) {
        return NULL;
    }
    size_t rounded = (size + align - 1) / align * align;
    if (rounded == 0) {
        rounded = align;
    }
    void *p = aligned_alloc(align, rounded);
    if (p == NULL) {
        return NULL;
    }
    memset(p, 0, rounded);
    uintptr_t a = (uintptr_t)p;
    unsigned i = xs_nblocks;
    while (i > 0 && xs_blocks[i - 1].start > a) {
        xs_blocks[i] = xs_blocks[i - 1];
        i--;
    }
    xs_blocks[i] = (struct xs_block){ a, a + size, p }; /* only what was asked for */
    xs_nblocks++;
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

bool xs_dma_ok(uint64_t addr, size_t len)
{
    unsigned lo = 0, hi = xs_nblocks;
    while (lo < hi) { /* the last block starting at or below addr */
        unsigned mid = (lo + hi) / 2;
        if (xs_blocks[mid].start <= addr) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == 0) {
        return false;
    }
    const struct xs_block *b = &xs_blocks[lo - 1];
    return addr >= b->start && len <= b->end - addr && addr + len >= addr;
}

uint64_t xs_dma_refused(void)
{
    return xs_refused;
}

static int xs_dma_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    (void)ctx;
    if (!xs_dma_ok(addr, len)) {
        xs_refused++;
        return -1;
    }
    memcpy(buf, (const void *)(uintptr_t)addr, len);
    return 0;
}

static int xs_dma_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    struct xs_port *p = ctx;
    if (!xs_dma_ok(addr, len)) {
        xs_refused++;
        return -1;
    }
    /* The model's write was inside registered memory either way: to the model it succeeded,
     * whatever a hostile-device hook then makes of it. */
    if (p->on_dma_write == NULL || p->on_dma_write(p->dma_ctx, addr, buf, len)) {
        memcpy((void *)(uintptr_t)addr, buf, len);
    }
    return 0;
}

/* --- per-core interrupt tables (kernel/irq.h) ----------------------------------------------- */

static struct irq_slot xs_irq[XS_MAX_CORES][IRQ_VECTORS];
static uint64_t xs_irq_sum;

int irq_alloc(unsigned core, irq_handler_fn fn, void *arg, const char *name)
{
    if (core >= xs_ncores || fn == NULL) {
        return -1;
    }
    for (unsigned i = 0; i < IRQ_VECTORS; i++) {
        struct irq_slot *s = &xs_irq[core][i];
        if (s->fn == NULL) {
            s->fn = fn;
            s->arg = arg;
            s->count = 0;
            snprintf(s->name, sizeof(s->name), "%s", name);
            return IRQ_FIRST_VECTOR + (int)i;
        }
    }
    return -1;
}

/* irq_wake_core: the IPI a halted core would get. Cores here never halt (they take turns), so
 * the wake-ups are only counted. */
static uint64_t xs_wakes[XS_MAX_CORES];

void irq_wake_core(unsigned core)
{
    if (core < XS_MAX_CORES) {
        xs_wakes[core]++;
    }
}

uint64_t xs_wake_count(unsigned core)
{
    return core < XS_MAX_CORES ? xs_wakes[core] : 0;
}

uint64_t xs_irq_count(unsigned core, unsigned vector)
{
    if (core >= xs_ncores || vector < IRQ_FIRST_VECTOR || vector > IRQ_LAST_VECTOR) {
        return 0;
    }
    return xs_irq[core][vector - IRQ_FIRST_VECTOR].count;
}

uint64_t xs_irq_total(void)
{
    return xs_irq_sum;
}

int xs_irq_vector_of(unsigned core, const char *name)
{
    for (unsigned i = 0; core < xs_ncores && i < IRQ_VECTORS; i++) {
        if (xs_irq[core][i].fn != NULL && strcmp(xs_irq[core][i].name, name) == 0) {
            return IRQ_FIRST_VECTOR + (int)i;
        }
    }
    return -1;
}

uint32_t xs_apic_id(unsigned core)
{
    return percpu_blocks[core].apic_id;
}

/* An MSI-X message leaves the model: decode the table entry as the CPU's APIC would (xAPIC
 * physical destination in address bits 19:12, vector in data bits 7:0) and run the handler the
 * driver registered for that (core, vector). */
static void xs_msix_notify(void *ctx, unsigned entry)
{
    struct xs_port *p = ctx;
    uint32_t addr = ixgbe_model_peek(p->m, IXGBE_MODEL_BAR_MSIX, 16 * entry);
    uint32_t data = ixgbe_model_peek(p->m, IXGBE_MODEL_BAR_MSIX, 16 * entry + 8);
    unsigned apic = (addr >> 12) & 0xFF, vector = data & 0xFF;

    if (entry < IXGBE_MODEL_MSIX_VECTORS) {
        p->msix_msgs[entry]++;
    }
    for (unsigned c = 0; c < xs_ncores; c++) {
        if (percpu_blocks[c].apic_id == apic && (addr & 0xFFF00000U) == XS_MSI_ADDR_BASE &&
            vector >= IRQ_FIRST_VECTOR && vector <= IRQ_LAST_VECTOR &&
            xs_irq[c][vector - IRQ_FIRST_VECTOR].fn != NULL) {
            struct irq_slot *s = &xs_irq[c][vector - IRQ_FIRST_VECTOR];
            s->count++;
            xs_irq_sum++;
            s->fn(s->arg);
            return;
        }
    }
    p->msix_stray++;
    fprintf(stderr, "ixgbe_sim: port %u MSI-X entry %u: address 0x%08x data 0x%08x reaches no "
            "handler\n", (unsigned)(p - xs_ports), entry, addr, data);
}

/* --- the models' other callbacks ------------------------------------------------------------ */

static void xs_tx_frame(void *ctx, const uint8_t *frame, size_t len)
{
    struct xs_port *p = ctx;
    p->tx_frames++;
    if (p->on_tx) {
        p->on_tx(p->tx_ctx, frame, len);
    }
}

static void xs_misuse(void *ctx, const char *msg)
{
    struct xs_port *p = ctx;
    if (p->misuse++ == 0) {
        snprintf(p->first_misuse, sizeof(p->first_misuse), "%s", msg);
    }
    fprintf(stderr, "ixgbe_sim: model port %u: misuse: %s\n", (unsigned)(p - xs_ports), msg);
}

/* --- the clock and faults ------------------------------------------------------------------- */

static struct xs_timed {
    uint64_t when;
    unsigned port;
    enum ixgbe_model_fault f;
    bool on, used;
} xs_timed[XS_MAX_TIMED];

static struct xs_trigger {
    unsigned port;
    uint32_t offset, bits;
    enum ixgbe_model_fault f;
    bool on, used;
    uint64_t lift_after;
} xs_triggers[XS_MAX_TRIGGERS];

uint64_t xs_now(void)
{
    return xs_clock;
}

void xs_advance(uint64_t ns)
{
    xs_clock += ns;
    for (unsigned i = 0; i < XS_MAX_TIMED; i++) {
        struct xs_timed *t = &xs_timed[i];
        if (t->used && t->when <= xs_clock) {
            t->used = false;
            ixgbe_model_fault(xs_ports[t->port].m, t->f, t->on);
        }
    }
    for (unsigned i = 0; i < XS_PORTS; i++) {
        ixgbe_model_advance(xs_ports[i].m, xs_clock);
    }
}

void xs_fault(unsigned port, enum ixgbe_model_fault f, bool on)
{
    ixgbe_model_fault(xs_ports[port].m, f, on);
}

void xs_fault_at(uint64_t when_ns, unsigned port, enum ixgbe_model_fault f, bool on)
{
    for (unsigned i = 0; i < XS_MAX_TIMED; i++) {
        if (!xs_timed[i].used) {
            xs_timed[i] = (struct xs_timed){ when_ns, port, f, on, true };
            return;
        }
    }
    fprintf(stderr, "ixgbe_sim: too many timed faults\n");
    abort();
}

void xs_fault_on_write(unsigned port, uint32_t offset, uint32_t bits, enum ixgbe_model_fault f,
                       bool on, uint64_t lift_after_ns)
{
    for (unsigned i = 0; i < XS_MAX_TRIGGERS; i++) {
        if (!xs_triggers[i].used) {
            xs_triggers[i] = (struct xs_trigger){ port, offset, bits, f, on, true, lift_after_ns };
            return;
        }
    }
    fprintf(stderr, "ixgbe_sim: too many write triggers\n");
    abort();
}

static void xs_check_triggers(unsigned port, uint32_t offset, uint32_t v)
{
    for (unsigned i = 0; i < XS_MAX_TRIGGERS; i++) {
        struct xs_trigger *t = &xs_triggers[i];
        if (t->used && t->port == port && t->offset == offset && (v & t->bits) != 0) {
            t->used = false; /* one shot */
            ixgbe_model_fault(xs_ports[port].m, t->f, t->on);
            if (t->lift_after != 0) {
                xs_fault_at(xs_clock + t->lift_after, port, t->f, !t->on);
            }
        }
    }
}

/* kernel/time.h: every poll of the driver costs XS_TICK_NS; a delay costs itself. */
uint64_t time_ns(void)
{
    return xs_clock;
}

uint64_t time_deadline_us(uint64_t us)
{
    return xs_clock + us * 1000;
}

bool time_after(uint64_t deadline)
{
    xs_advance(XS_TICK_NS);
    return xs_clock >= deadline;
}

void time_delay_us(uint64_t us)
{
    xs_advance(us * 1000);
}

/* --- the model's access log ------------------------------------------------------------------ */

static void xs_log_drain(struct xs_port *p, bool force)
{
    size_t n;
    uint64_t lost;
    const struct ixgbe_model_log_entry *e = ixgbe_model_log(p->m, &n, &lost);

    if (!force && n < IXGBE_MODEL_LOG_ENTRIES / 2) {
        return;
    }
    p->log_lost += lost;
    if (p->log_keep && n > 0) {
        if (p->log_n + n > p->log_cap) {
            size_t cap = p->log_cap ? p->log_cap : IXGBE_MODEL_LOG_ENTRIES;
            while (cap < p->log_n + n) {
                cap *= 2;
            }
            struct ixgbe_model_log_entry *l = realloc(p->log, cap * sizeof(*l));
            if (l == NULL) {
                abort();
            }
            p->log = l;
            p->log_cap = cap;
        }
        memcpy(p->log + p->log_n, e, n * sizeof(*e));
        p->log_n += n;
    }
    ixgbe_model_log_clear(p->m);
}

const struct ixgbe_model_log_entry *xs_log(unsigned port, size_t *n, uint64_t *lost)
{
    struct xs_port *p = &xs_ports[port];
    xs_log_drain(p, true);
    *n = p->log_n;
    if (lost) {
        *lost = p->log_lost;
    }
    return p->log;
}

void xs_log_keep(unsigned port, bool keep)
{
    xs_log_drain(&xs_ports[port], true);
    xs_ports[port].log_keep = keep;
    ixgbe_model_log_reads(xs_ports[port].m, keep);
}

/* --- the MMIO seam (kernel/mmio.h, WS_HOST_MMIO) -------------------------------------------- */

/* Which port and BAR an address falls in; false for plain memory. */
static bool xs_decode(uintptr_t addr, struct xs_port **pp, unsigned *bar, uint32_t *off)
{
    for (unsigned i = 0; i < XS_PORTS; i++) {
        struct xs_port *p = &xs_ports[i];
        if (p->m == NULL) {
            continue;
        }
        if (addr >= p->bar0 && addr - p->bar0 < XS_BAR0_BYTES) {
            *pp = p;
            *bar = IXGBE_MODEL_BAR_REGS;
            *off = (uint32_t)(addr - p->bar0);
            return true;
        }
        if (addr >= p->bar4 && addr - p->bar4 < XS_BAR4_BYTES) {
            *pp = p;
            *bar = IXGBE_MODEL_BAR_MSIX;
            *off = (uint32_t)(addr - p->bar4);
            return true;
        }
    }
    return false;
}

static void xs_bad_width(struct xs_port *p, const char *what, uint32_t off, unsigned bytes)
{
    p->bad_width++;
    fprintf(stderr, "ixgbe_sim: port %u: %u-byte %s at offset 0x%05x: the 82599 model takes "
            "32-bit accesses only\n", (unsigned)(p - xs_ports), bytes, what, off);
}

uint64_t host_mmio_read(uintptr_t addr, unsigned bytes)
{
    struct xs_port *p;
    unsigned bar;
    uint32_t off;

    if (!xs_decode(addr, &p, &bar, &off)) {
        switch (bytes) {
        case 1:
            return *(volatile uint8_t *)addr;
        case 2:
            return *(volatile uint16_t *)addr;
        case 4:
            return *(volatile uint32_t *)addr;
        default:
            return *(volatile uint64_t *)addr;
        }
    }
    uint64_t v = 0;
    if (bytes == 4) {
        v = ixgbe_model_read(p->m, bar, off);
    } else if (bytes == 8) { /* split: low dword, then high, as a 32-bit host bridge would */
        v = ixgbe_model_read(p->m, bar, off);
        v |= (uint64_t)ixgbe_model_read(p->m, bar, off + 4) << 32;
    } else {
        xs_bad_width(p, "read", off, bytes);
    }
    xs_log_drain(p, false);
    return v;
}

void host_mmio_write(uintptr_t addr, uint64_t v, unsigned bytes)
{
    struct xs_port *p;
    unsigned bar;
    uint32_t off;

    if (!xs_decode(addr, &p, &bar, &off)) {
        switch (bytes) {
        case 1:
            *(volatile uint8_t *)addr = (uint8_t)v;
            break;
        case 2:
            *(volatile uint16_t *)addr = (uint16_t)v;
            break;
        case 4:
            *(volatile uint32_t *)addr = (uint32_t)v;
            break;
        default:
            *(volatile uint64_t *)addr = v;
            break;
        }
        return;
    }
    if (bytes == 4) {
        ixgbe_model_write(p->m, bar, off, (uint32_t)v);
    } else if (bytes == 8) {
        ixgbe_model_write(p->m, bar, off, (uint32_t)v);
        ixgbe_model_write(p->m, bar, off + 4, (uint32_t)(v >> 32));
    } else {
        xs_bad_width(p, "write", off, bytes);
        return;
    }
    xs_log_drain(p, false);
    if (bar == IXGBE_MODEL_BAR_REGS) {
        xs_check_triggers((unsigned)(p - xs_ports), off, (uint32_t)v);
    }
}

/* --- PCI (drivers/pci/pci.h): two 82599 functions with a small configuration space ---------- */

static void xs_cfg16(uint8_t *c, unsigned off, uint16_t v)
{
    c[off] = (uint8_t)v;
    c[off + 1] = (uint8_t)(v >> 8);
}

static void xs_cfg32(uint8_t *c, unsigned off, uint32_t v)
{
    xs_cfg16(c, off, (uint16_t)v);
    xs_cfg16(c, off + 2, (uint16_t)(v >> 16));
}

/* Bits software may change, per byte: COMMAND (I/O, memory, bus master, parity, SERR, INTx
 * disable) and MSI-X Message Control's Function Mask and Enable (bits 15:14). */
static uint8_t xs_cfg_writable(unsigned off)
{
    switch (off) {
    case PCI_COMMAND:
        return 0x47;
    case PCI_COMMAND + 1:
        return 0x05;
    case XS_CAP_MSIX + 3:
        return 0xC0;
    default:
        return 0;
    }
}

static void xs_cfg_init(struct xs_port *p)
{
    uint8_t *c = p->cfg;
    memset(c, 0, sizeof(p->cfg));
    xs_cfg16(c, PCI_VENDOR_ID, 0x8086);
    xs_cfg16(c, PCI_DEVICE_ID, XS_DEVICE_ID);
    xs_cfg16(c, PCI_STATUS, PCI_STATUS_CAP_LIST);
    xs_cfg32(c, PCI_CLASS_REVISION, 0x02000001); /* Ethernet controller, revision 1 */
    xs_cfg32(c, PCI_BAR0, (uint32_t)p->bar0 | PCI_BAR_MEM_64);
    xs_cfg32(c, PCI_BAR0 + 4, (uint32_t)((uint64_t)p->bar0 >> 32));
    xs_cfg32(c, PCI_BAR0 + 16, (uint32_t)p->bar4 | PCI_BAR_MEM_64);
    xs_cfg32(c, PCI_BAR0 + 20, (uint32_t)((uint64_t)p->bar4 >> 32));
    c[PCI_CAP_PTR] = XS_CAP_PM;
    /* The 82599's list (datasheet ch. 9): PM 0x40, MSI 0x50, MSI-X 0x70, PCIe 0xA0. */
    c[XS_CAP_PM] = 0x01;
    c[XS_CAP_PM + 1] = XS_CAP_MSI;
    xs_cfg16(c, XS_CAP_PM + 2, 0x4823);
    c[XS_CAP_MSI] = PCI_CAP_ID_MSI;
    c[XS_CAP_MSI + 1] = XS_CAP_MSIX;
    xs_cfg16(c, XS_CAP_MSI + 2, 0x0180); /* 64-bit, per-vector masking, disabled */
    c[XS_CAP_MSIX] = PCI_CAP_ID_MSIX;
    c[XS_CAP_MSIX + 1] = XS_CAP_PCIE;
    xs_cfg16(c, XS_CAP_MSIX + 2, IXGBE_MODEL_MSIX_VECTORS - 1); /* table size - 1 */
    xs_cfg32(c, XS_CAP_MSIX + 4, 0x00000000U | IXGBE_MODEL_BAR_MSIX); /* table: BAR4 + 0 */
    xs_cfg32(c, XS_CAP_MSIX + 8, IXGBE_MODEL_MSIX_PBA_OFFSET | IXGBE_MODEL_BAR_MSIX);
    c[XS_CAP_PCIE] = PCI_CAP_ID_PCIE;
    c[XS_CAP_PCIE + 1] = 0;
    xs_cfg16(c, XS_CAP_PCIE + 2, 0x0002);
}

static struct xs_port *xs_port_of_dev(const struct pci_dev *d)
{
    for (unsigned i = 0; i < XS_PORTS; i++) {
        if (d == &xs_ports[i].pci) {
            return &xs_ports[i];
        }
    }
    fprintf(stderr, "ixgbe_sim: configuration access to an unknown pci_dev\n");
    abort();
}

struct xs_port *xs_port_of_pci(const struct pci_dev *d)
{
    for (unsigned i = 0; i < XS_PORTS; i++) {
        if (d == &xs_ports[i].pci) {
            return &xs_ports[i];
        }
    }
    return NULL;
}

uint8_t pci_read8(const struct pci_dev *d, uint16_t off)
{
    return off < 256 ? xs_port_of_dev(d)->cfg[off] : 0xFF;
}

uint16_t pci_read16(const struct pci_dev *d, uint16_t off)
{
    return (uint16_t)(pci_read8(d, off) | pci_read8(d, (uint16_t)(off + 1)) << 8);
}

uint32_t pci_read32(const struct pci_dev *d, uint16_t off)
{
    return (uint32_t)pci_read16(d, off) | (uint32_t)pci_read16(d, (uint16_t)(off + 2)) << 16;
}

static void xs_cfg_write(const struct pci_dev *d, uint16_t off, uint32_t v, unsigned bytes)
{
    struct xs_port *p = xs_port_of_dev(d);
    for (unsigned i = 0; i < bytes && off + i < 256; i++) {
        uint8_t w = xs_cfg_writable(off + i), b = (uint8_t)(v >> (8 * i));
        if ((b & ~w) != (p->cfg[off + i] & ~w)) {
            p->cfg_writes_refused++; /* a read-only bit written with another value */
        }
        p->cfg[off + i] = (uint8_t)((p->cfg[off + i] & ~w) | (b & w));
    }
}

void pci_write16(const struct pci_dev *d, uint16_t off, uint16_t v)
{
    xs_cfg_write(d, off, v, 2);
}

void pci_write32(const struct pci_dev *d, uint16_t off, uint32_t v)
{
    xs_cfg_write(d, off, v, 4);
}

uint8_t pci_find_cap(const struct pci_dev *d, uint8_t id)
{
    uint8_t at = pci_read8(d, PCI_CAP_PTR);
    for (unsigned n = 0; at != 0 && n < 48; n++) {
        if (pci_read8(d, at) == id) {
            return at;
        }
        at = pci_read8(d, (uint16_t)(at + 1));
    }
    return 0;
}

void pci_enable(struct pci_dev *d)
{
    uint16_t cmd = pci_read16(d, PCI_COMMAND);
    pci_write16(d, PCI_COMMAND,
                cmd | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER | PCI_COMMAND_INTX_DISABLE);
}

unsigned pci_device_count(void)
{
    return XS_PORTS;
}

struct pci_dev *pci_device(unsigned i)
{
    return i < XS_PORTS ? &xs_ports[i].pci : NULL;
}

const char *pci_bdf(const struct pci_dev *d, char *buf)
{
    snprintf(buf, 13, "%04x:%02x:%02x.%u", d->segment, d->bus, d->dev & 0x1fu, d->fn & 7u);
    return buf;
}

/* --- the rest of what the driver links against ---------------------------------------------- */

int vm_map_mmio(uint64_t phys, uint64_t len)
{
    for (unsigned i = 0; i < XS_PORTS; i++) {
        const struct xs_port *p = &xs_ports[i];
        if ((phys == p->bar0 && len <= XS_BAR0_BYTES) ||
            (phys == p->bar4 && len <= XS_BAR4_BYTES)) {
            return WS_OK;
        }
    }
    fprintf(stderr, "ixgbe_sim: vm_map_mmio(0x%" PRIx64 ", 0x%" PRIx64 ") is no BAR of ours\n",
            phys, len);
    return WS_ERR_INVAL;
}

/* --- what every test and fuzz input ends with ---------------------------------------------- */

/* xs_why: append one line to why (truncated, never overrun). */
static void xs_why(char *why, size_t n, size_t *at, const char *fmt, ...)
{
    va_list ap;
    if (*at + 1 >= n) {
        return;
    }
    va_start(ap, fmt);
    int k = vsnprintf(why + *at, n - *at, fmt, ap);
    va_end(ap);
    *at = k < 0 ? *at : *at + (size_t)k < n ? *at + (size_t)k : n - 1;
}

bool xs_platform_clean(char *why, size_t n)
{
    size_t at = 0;
    if (n > 0) {
        why[0] = '\0';
    }
    for (unsigned i = 0; i < XS_PORTS; i++) {
        const struct xs_port *p = &xs_ports[i];
        struct ixgbe_model_counters c;
        ixgbe_model_counters(p->m, &c);
        if (p->misuse != 0 || c.misuse != 0) {
            xs_why(why, n, &at, "model port %u: %" PRIu64 " misuse reports, the first: %s\n", i,
                   c.misuse, p->first_misuse);
        }
        if (p->bad_width != 0) {
            xs_why(why, n, &at, "model port %u: %" PRIu64 " accesses not 32 bits wide\n", i,
                   p->bad_width);
        }
        if (p->msix_stray != 0) {
            xs_why(why, n, &at, "model port %u: %" PRIu64 " MSI-X messages reached no handler\n",
                   i, p->msix_stray);
        }
        if (p->cfg_writes_refused != 0) {
            xs_why(why, n, &at, "port %u: %" PRIu64 " writes to read-only configuration bits\n",
                   i, p->cfg_writes_refused);
        }
        if (c.rx_dma_errors != 0) {
            xs_why(why, n, &at, "model port %u: %" PRIu64 " RX DMA errors\n", i,
                   c.rx_dma_errors);
        }
    }
    if (xs_refused != 0) {
        xs_why(why, n, &at, "%" PRIu64 " DMA accesses outside registered memory\n", xs_refused);
    }
    return at == 0;
}

/* --- set-up and tear-down ------------------------------------------------------------------- */

/* sim_frames.c's hosts address the ports by these MACs (tests/hostsim/sim.h). */
void sim_port_mac(unsigned port, uint8_t mac[6])
{
    memcpy(mac, xs_port(port)->mac, 6);
}

struct xs_port *xs_port(unsigned i)
{
    return &xs_ports[i];
}

/* xs_model_new: port p's model at power-on: an SFP+ board with an SR optic, or cfg's board
 * (its MAC replaced by the port's). */
static void xs_model_new(struct xs_port *p, const struct ixgbe_model_config *cfg)
{
    struct ixgbe_model_ops ops = {
        .dma_read = xs_dma_read,
        .dma_write = xs_dma_write,
        .msix_notify = xs_msix_notify,
        .tx_frame = xs_tx_frame,
        .misuse = xs_misuse,
        .ctx = p,
    };
    struct ixgbe_model_config c;
    if (cfg) {
        c = *cfg;
        memcpy(c.mac, p->mac, 6);
    }
    p->m = cfg ? ixgbe_model_new_config(&ops, &c) : ixgbe_model_new(&ops, p->mac);
    if (p->m == NULL) {
        fprintf(stderr, "ixgbe_sim: the model could not be created\n");
        abort();
    }
}

void xs_platform_init(unsigned ncores, bool verbose)
{
    static const uint8_t mac_base[6] = { 0x00, 0x1b, 0x21, 0x57, 0x53, 0x00 }; /* Intel OUI */

    if (ncores == 0 || ncores > XS_MAX_CORES) {
        fprintf(stderr, "ixgbe_sim: %u cores: 1..%d\n", ncores, XS_MAX_CORES);
        abort();
    }
    xs_ncores = ncores;
    xs_verbose = verbose;
    for (unsigned c = 0; c < WS_MAX_CPUS; c++) {
        percpu_blocks[c].self = &percpu_blocks[c];
        percpu_blocks[c].index = c;
        percpu_blocks[c].apic_id = 0x10 + 2 * c; /* not the core index: a mix-up shows */
    }
    for (unsigned i = 0; i < XS_PORTS; i++) {
        struct xs_port *p = &xs_ports[i];
        memset(p, 0, sizeof(*p));
        void *bars = mmap(NULL, XS_BAR0_BYTES + XS_BAR4_BYTES, PROT_NONE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (bars == MAP_FAILED) {
            perror("ixgbe_sim: mmap");
            abort();
        }
        p->bar0 = (uintptr_t)bars;
        p->bar4 = p->bar0 + XS_BAR0_BYTES;
        memcpy(p->mac, mac_base, 6);
        p->mac[5] = (uint8_t)i;
        xs_model_new(p, NULL);
        xs_cfg_init(p);
        /* What pci_init would have found: BARs sized, capability list walked. */
        p->pci = (struct pci_dev){ .bus = 0, .dev = (uint8_t)(2 + 2 * i), .fn = 0,
                                   .vendor = 0x8086, .device = XS_DEVICE_ID,
                                   .class_rev = 0x02000001, .header_type = 0 };
        p->pci.bar[0] = (struct pci_bar){ .base = p->bar0, .size = XS_BAR0_BYTES, .is64 = true };
        p->pci.bar[4] = (struct pci_bar){ .base = p->bar4, .size = XS_BAR4_BYTES, .is64 = true };
        p->pci.msix_cap = pci_find_cap(&p->pci, PCI_CAP_ID_MSIX);
    }
    for (unsigned i = 0; i < XS_PORTS; i++) {
        ixgbe_model_advance(xs_ports[i].m, xs_clock); /* power-on was long ago */
    }
}

void xs_port_board(unsigned port, const struct ixgbe_model_config *cfg)
{
    struct xs_port *p = &xs_ports[port];
    ixgbe_model_free(p->m);
    xs_model_new(p, cfg);
    ixgbe_model_advance(p->m, xs_clock);
}

void xs_platform_free(void)
{
    for (unsigned i = 0; i < XS_PORTS; i++) {
        struct xs_port *p = &xs_ports[i];
        ixgbe_model_free(p->m);
        p->m = NULL;
        free(p->log);
        p->log = NULL;
        munmap((void *)p->bar0, XS_BAR0_BYTES + XS_BAR4_BYTES);
    }
    while (xs_nblocks > 0) {
        free(xs_blocks[--xs_nblocks].mem);
    }
    free(xs_con);
    xs_con = NULL;
    xs_con_len = xs_con_cap = 0;
}

/* No sink core runs in the simulation: nothing is ever asleep to be kicked. */
void loop_kick(unsigned core)
{
    (void)core;
}
