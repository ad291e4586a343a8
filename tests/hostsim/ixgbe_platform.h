/*
 * tests/hostsim/ixgbe_platform.h: the host platform ixgbe_sim runs the firmware's real 82599
 * driver (drivers/nic/ixgbe.c), NIC layer (drivers/nic/nic.c, intel_ring.c, drivers/pci/msix.c)
 * and forwarding (apps/fwd, net/) on: two 82599 ports, each one instance of the datasheet model
 * of tests/model, behind a fake PCI function. ixgbe_platform.c stands in, at link time, for what
 * touches hardware:
 *  - kernel/mmio.h's host seam (WS_HOST_MMIO): host_mmio_read/write send 32-bit accesses inside
 *    a port's BAR0 (registers) or BAR4 (MSI-X table and PBA) to that port's model; anything
 *    else is plain memory. The BARs are reserved, inaccessible address ranges (mmap PROT_NONE):
 *    a driver access that bypassed the seam would fault instead of reading garbage.
 *  - drivers/pci/pci.h: two functions 8086:10FB (82599 SFP+) at 00:02.0 and 00:04.0, each with a
 *    small configuration space whose capability list holds PM, MSI, MSI-X (table BAR4 + 0,
 *    PBA BAR4 + 0x2000, 64 entries) and PCIe, as on the chip.
 *  - kernel/dma.h: dma_alloc is aligned_alloc, and every block is registered; the models' DMA
 *    callbacks accept only ranges inside a registered block (anything else is a model misuse).
 *  - kernel/time.h: a simulated clock. time_after() advances it by 1 us and time_delay_us() by
 *    the delay, and both call ixgbe_model_advance on every model, so the driver's bounded
 *    polls progress deterministically, in simulated time.
 *  - kernel/irq.h, percpu_blocks, vm_map_mmio, kprintf (captured, searchable; printed as
 *    "  fw| ..." with --verbose), and igb (no 82576 here).
 */
#ifndef WS_HOSTSIM_IXGBE_PLATFORM_H
#define WS_HOSTSIM_IXGBE_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/pci/pci.h"
#include "tests/model/ixgbe_model.h"

#define XS_PORTS 2          /* model ports, in PCI order */
#define XS_MAX_CORES 16     /* cores the harness can give interrupt tables to */
#define XS_TICK_NS 1000ULL  /* what one time_after() poll costs in simulated time */
#define XS_CLOCK_START_NS 1000000000ULL /* not 0: "never" stays distinguishable */

/* Per port: the model and what the harness saw of it. */
struct xs_port {
    struct ixgbe_model *m;
    struct pci_dev pci;
    uint8_t cfg[256];     /* PCI configuration space */
    uintptr_t bar0, bar4; /* reserved address ranges the driver is given as BARs */
    uint8_t mac[6];       /* what the model's "EEPROM" holds */

    uint64_t misuse;      /* model misuse reports */
    char first_misuse[256];
    uint64_t bad_width;   /* accesses of a width the model does not take (8 bytes are split) */
    uint64_t cfg_writes_refused;
    uint64_t msix_msgs[IXGBE_MODEL_MSIX_VECTORS]; /* messages per table entry */
    uint64_t msix_stray;  /* a message whose entry names no core/vector the harness gave out */
    uint64_t tx_frames;   /* frames the model handed to tx_frame */

    /* The model's access log, drained into here before it fills (it keeps 16384 entries). */
    struct ixgbe_model_log_entry *log;
    size_t log_n, log_cap;
    uint64_t log_lost;
    bool log_keep;

    /* The wire beyond the port: where its transmitted frames go (NULL: counted only). */
    void (*on_tx)(void *ctx, const uint8_t *f, size_t len);
    void *tx_ctx;

    /* A hostile device (tests/fuzz/fuzz_ixgbe_model.c): every DMA write of this port's model
     * into registered memory (frame data, descriptor write-backs) is offered here first. Return
     * true to let it land as the model wrote it; false when the hook has dealt with it itself:
     * written something else in its place (in [addr, addr+len) only), or held it back to write
     * later, or dropped it. NULL: every write lands. */
    bool (*on_dma_write)(void *ctx, uint64_t addr, const void *data, size_t len);
    void *dma_ctx;
};

/* xs_platform_init: the two ports (models at power-on), PCI, per-core blocks (ncores <=
 * XS_MAX_CORES), the clock at XS_CLOCK_START_NS. verbose prints the firmware's console. */
void xs_platform_init(unsigned ncores, bool verbose);
struct xs_port *xs_port(unsigned i);
/* xs_port_of_nic: the model port behind a nic_port (by its pci_dev), or NULL. */
struct xs_port *xs_port_of_pci(const struct pci_dev *d);

/* xs_port_board: replace port's model by a power-on model of the board cfg describes (its
 * MAC is the port's): before xs_boot, for boards other than the default SFP+ one with an SR
 * optic (another module at power-on, a laser left off, MNG_VETO, an NVM image). */
void xs_port_board(unsigned port, const struct ixgbe_model_config *cfg);

/* The simulated clock: advancing it advances every model (and applies scheduled faults). */
uint64_t xs_now(void);
void xs_advance(uint64_t ns);

/* Faults: now, at a (later) time, or when the driver writes `offset` of a port's BAR0 with any
 * of `bits` set (applied right after the model took that write). */
void xs_fault(unsigned port, enum ixgbe_model_fault f, bool on);
void xs_fault_at(uint64_t when_ns, unsigned port, enum ixgbe_model_fault f, bool on);
void xs_fault_on_write(unsigned port, uint32_t offset, uint32_t bits, enum ixgbe_model_fault f,
                       bool on, uint64_t lift_after_ns);

/* The model's access log: with keep on (off at init), every access (reads too) from then on,
 * drained from the model's own log before it fills, so nothing is lost. */
const struct ixgbe_model_log_entry *xs_log(unsigned port, size_t *n, uint64_t *lost);
void xs_log_keep(unsigned port, bool keep);

/* The firmware's console output since the last clear. */
const char *xs_console(void);
bool xs_console_has(const char *needle);
void xs_console_clear(void);

/* Interrupts the harness delivered to a core's handler (irq_alloc's table), per vector. */
uint64_t xs_irq_count(unsigned core, unsigned vector);
uint64_t xs_irq_total(void);
/* xs_wake_count: irq_wake_core calls for a core (port state changes; counted only). */
uint64_t xs_wake_count(unsigned core);
/* xs_irq_vector_of: the vector irq_alloc handed out under `name` on `core`, or -1. */
int xs_irq_vector_of(unsigned core, const char *name);
uint32_t xs_apic_id(unsigned core);

/* xs_platform_clean: no model misuse, refused DMA, access of the wrong width, stray MSI-X message
 * or write to a read-only configuration bit, on either port. If there was one, false and a line
 * per kind of problem in why (n bytes, NUL-terminated). */
bool xs_platform_clean(char *why, size_t n);

/* Registered DMA memory: is [addr, addr+len) inside one block? How many were refused. */
bool xs_dma_ok(uint64_t addr, size_t len);
uint64_t xs_dma_refused(void);

/* xs_platform_free: models and memory (after the last use of any port). */
void xs_platform_free(void);

#endif
