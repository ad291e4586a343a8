/*
 * tests/model/ixgbe_model.h: a behavioural model of one Intel 82599 10 GbE port, written from
 * the Intel 82599 10 GbE Controller Datasheet (331520, rev 3.x), for host tests today and a
 * QEMU device wrapper later. Plain C, no globals, no test framework, deterministic.
 *
 * The embedder supplies memory (DMA callbacks), time (advance) and the wire (inject, tx_frame);
 * the driver under test talks to the model only through 32-bit register reads and writes.
 *
 * Threading: none. Every call on one instance must come from one thread (or be serialised by
 * the embedder). Callbacks run synchronously inside the call that caused them (a TDT write
 * calls tx_frame, an inject calls dma_write and msix_notify); they must not free the model.
 * Calling back into the same instance from a callback (e.g. looping tx_frame to inject) is
 * allowed: the model has finished updating its state before each callback.
 *
 * What the model implements and what it leaves out: see the comment at the top of
 * tests/model/ixgbe_model.c.
 */
#ifndef WS_IXGBE_MODEL_H
#define WS_IXGBE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* BAR numbering as the embedder passes it to ixgbe_model_read/write. */
#define IXGBE_MODEL_BAR_REGS 0            /* CSR memory BAR, 128 KiB (82599 §8.1) */
#define IXGBE_MODEL_BAR_MSIX 4            /* MSI-X BAR: table at 0x0, PBA at 0x2000 (§9) */
#define IXGBE_MODEL_REGS_BYTES 0x20000u   /* 128 KiB */
#define IXGBE_MODEL_MSIX_BYTES 0x4000u    /* 16 KiB: table + PBA */
#define IXGBE_MODEL_MSIX_VECTORS 64       /* 82599 PF: 64 MSI-X vectors (§7.3.1) */
#define IXGBE_MODEL_MSIX_PBA_OFFSET 0x2000u
#define IXGBE_MODEL_QUEUES 128            /* RX and TX queues each (§7.1.2, §7.2.1) */

/*
 * Model timing, in ns of the embedder's clock (ixgbe_model_advance). Short on purpose: a driver
 * that polls with a sane bound always passes; the datasheet's own times are upper bounds.
 */
#define IXGBE_MODEL_RESET_NS 1000ull           /* CTRL.RST / CTRL.LRST reads 1 this long */
#define IXGBE_MODEL_EEPROM_NS 10000ull         /* EEC.ARD set this long after reset completes */
#define IXGBE_MODEL_DMA_INIT_NS 20000ull       /* RDRXCTL.DMAIDONE, likewise */
#define IXGBE_MODEL_LINK_UP_NS 1000000ull      /* link up this long after training starts */

/* Largest frame the model takes from the wire or assembles for TX (bytes, no FCS). */
#define IXGBE_MODEL_MAX_FRAME_BYTES 16128u

/* Write-log capacity: the first this-many accesses are kept, later ones only counted. */
#define IXGBE_MODEL_LOG_ENTRIES 16384u

struct ixgbe_model;

/* Supplied by the embedder; copied by ixgbe_model_new. Only dma_read and dma_write are
 * required; a NULL notify/tx_frame/misuse callback is simply not called. */
struct ixgbe_model_ops {
    /* Host memory as the device sees it: 0, or -1 if [addr, addr+len) is not registered. */
    int (*dma_read)(void *ctx, uint64_t addr, void *buf, size_t len);
    int (*dma_write)(void *ctx, uint64_t addr, const void *buf, size_t len);
    /* An MSI-X message for table entry `vector`: the model has already applied the table's
     * vector-control mask and the PBA; the embedder only delivers it. */
    void (*msix_notify)(void *ctx, unsigned vector);
    /* A frame leaving the port: DA..payload, padded to 60 bytes if HLREG0.TXPADEN, no FCS. */
    void (*tx_frame)(void *ctx, const uint8_t *frame, size_t len);
    /* Driver misuse (or use of something the model does not implement: the message then
     * starts "not modelled:"). The model has already counted it and kept the message; it
     * never crashes or asserts on its own. Tests typically fail here. */
    void (*misuse)(void *ctx, const char *msg);
    void *ctx;
};

/* Conditions a test can force (each on/off at any time). */
enum ixgbe_model_fault {
    IXGBE_MODEL_FAULT_EEPROM_NEVER_DONE,       /* EEC.ARD stays 0 after a reset */
    IXGBE_MODEL_FAULT_DMA_INIT_NEVER_DONE,     /* RDRXCTL.DMAIDONE stays 0 after a reset */
    IXGBE_MODEL_FAULT_LINK_NEVER_UP,           /* link training never completes */
    IXGBE_MODEL_FAULT_RXQ_ENABLE_NEVER_LATCHES, /* RXDCTL.ENABLE never reads back 1 */
    IXGBE_MODEL_FAULT_TXQ_ENABLE_NEVER_LATCHES, /* TXDCTL.ENABLE never reads back 1 */
    IXGBE_MODEL_FAULT_DEVICE_GONE,             /* every read returns 0xFFFFFFFF, writes lost */
    IXGBE_MODEL_FAULT_TX_STOPS_COMPLETING,     /* TX descriptors are no longer processed */
    IXGBE_MODEL_FAULT_COUNT
};

/* Model-side counters (not the device's statistics registers, which the driver reads). */
struct ixgbe_model_counters {
    uint64_t rx_placed;       /* frames written to host memory with their write-back */
    uint64_t rx_missed;       /* dropped: RX packet buffer full (MPC) */
    uint64_t rx_no_desc;      /* dropped: no free descriptor and SRRCTL.DROP_EN (QPRDC) */
    uint64_t rx_filtered;     /* dropped by the L2 filters (FCTRL, RAR, MTA) */
    uint64_t rx_bad_len;      /* dropped: runt (< 60 bytes) or over max frame (RUC, ROC) */
    uint64_t rx_link_down;    /* dropped: link down or device gone */
    uint64_t rx_disabled;     /* dropped: RXCTRL.RXEN clear, master disabled, queue disabled */
    uint64_t rx_dma_errors;   /* dropped: a descriptor or buffer outside registered memory */
    uint64_t rx_pause;        /* PAUSE frames the MAC consumed (flow control) */
    uint64_t rx_pb_frames;    /* gauge: frames waiting in the RX packet buffer right now */
    uint64_t tx_frames;       /* frames handed to tx_frame */
    uint64_t tx_bytes;        /* their bytes (as handed over, no FCS) */
    uint64_t irqs_sent;       /* msix_notify calls */
    uint64_t irqs_pended;     /* messages held in the PBA because the vector was masked */
    uint64_t irqs_suppressed; /* interrupts due while GPIE is not in MSI-X mode (not modelled) */
    uint64_t misuse;          /* misuse reports */
};

/* One logged register access. */
struct ixgbe_model_log_entry {
    uint64_t time_ns; /* the model's clock when it happened */
    uint32_t offset;
    uint32_t value;   /* written, or returned for a logged read */
    uint8_t bar;
    bool is_read;
};

/*
 * The board around the chip, as its EEPROM describes it. AUTOC/AUTOC2 are what the EEPROM loads
 * at every reset (§4.6.4): an SFP+ board runs 10G SFI (LMS 011b, AUTOC2 SFI), a backplane board
 * KX4/KX/KR auto-negotiation (LMS 100b with the KX4/KX/KR "supported" bits it wires). eeprom is
 * the image EERD reads, eeprom_words long (at most IXGBE_MODEL_EEPROM_WORDS; the rest reads
 * 0xFFFF); NULL gives the model's own minimal image: module pointers absent (0xFFFF), PBA
 * 000000-000, the SFP+ init list (word 0x2B -> 0x80), a valid checksum (word 0x3F, the words
 * 0x00..0x3F summing to 0xBABA).
 */
#define IXGBE_MODEL_EEPROM_WORDS 512u
#define IXGBE_MODEL_AUTOC_SFI 0x00006000u          /* LMS 10G serial */
#define IXGBE_MODEL_AUTOC2_SFI 0x00020000u         /* 10G serial PMA/PMD: SFI */
#define IXGBE_MODEL_AUTOC_BACKPLANE_KR 0x40018200u /* LMS KX4/KX/KR AN, KX and KR, 1G KX */
#define IXGBE_MODEL_AUTOC2_BACKPLANE_KR 0x00000000u /* 10G serial PMA/PMD: KR */
/*
 * The SFP+ cage (ixgbe_model_sfp.c): what sits in it. Each kind has its own SFF-8472 image
 * (ixgbe_model_module_image) and needs its own setup before the link comes up; see the comment
 * at the top of ixgbe_model_sfp.c.
 */
enum ixgbe_model_module {
    IXGBE_MODEL_MODULE_NONE,       /* empty cage */
    IXGBE_MODEL_MODULE_SR,         /* 10GBASE-SR optic (Intel OUI) */
    IXGBE_MODEL_MODULE_LR,         /* 10GBASE-LR optic (Intel OUI) */
    IXGBE_MODEL_MODULE_DA_PASSIVE, /* passive direct-attach copper cable */
    IXGBE_MODEL_MODULE_DA_ACTIVE,  /* active (limiting) direct-attach cable */
    IXGBE_MODEL_MODULE_1G_SX,      /* 1000BASE-SX optic */
    IXGBE_MODEL_MODULE_1G_LX,      /* 1000BASE-LX optic */
    IXGBE_MODEL_MODULE_1G_T,       /* 1000BASE-T copper module */
    IXGBE_MODEL_MODULE_UNKNOWN,    /* an SFP whose compliance codes name nothing */
    IXGBE_MODEL_MODULE_SR_DUAL,    /* dual-rate optic: 10GBASE-SR and 1000BASE-SX, rate select */
    IXGBE_MODEL_MODULE_COUNT
};
#define IXGBE_MODEL_MODULE_BYTES 256u /* one I2C device page (A0h, A2h) */

struct ixgbe_model_config {
    uint8_t mac[6];
    uint32_t autoc, autoc2;
    const uint16_t *eeprom;
    size_t eeprom_words;
    /* An SFP+ board (a cage with I2C and SDP pins) holding `module` at power-on; false: a
     * backplane board (no cage; the link needs only the cable). */
    bool sfp_cage;
    enum ixgbe_model_module module;
    bool laser_off;   /* ESDP drives TX_DISABLE at power-on (a previous owner turned it off) */
    bool mng_veto;    /* MMNGC.MNG_VETO: the management firmware forbids link resets */
    bool lesm;        /* the model's own NVM image enables the firmware's link state machine
                       * (LESM): AUTOC may then be written only under SW_FW_SYNC's MAC CSR
                       * semaphore. With cfg.eeprom, that image's firmware section decides. */
};

/*
 * ixgbe_model_new: one port in its power-on state (reset done, EEPROM read, DMA init done, cable
 * plugged in and link training started at time 0). mac is the address the "EEPROM" holds; the
 * model loads it into RAL[0]/RAH[0] on every reset. Returns NULL if ops lacks the DMA callbacks
 * or memory runs out.
 */
struct ixgbe_model *ixgbe_model_new(const struct ixgbe_model_ops *ops, const uint8_t mac[6]);
/* ixgbe_model_new_config: the same for a board described by cfg (ixgbe_model_new is an SFP+
 * board with an SR optic in the cage and the model's own EEPROM image). */
struct ixgbe_model *ixgbe_model_new_config(const struct ixgbe_model_ops *ops,
                                           const struct ixgbe_model_config *cfg);
void ixgbe_model_free(struct ixgbe_model *m);

/*
 * ixgbe_model_read/write: one aligned 32-bit access. bar is IXGBE_MODEL_BAR_REGS or
 * IXGBE_MODEL_BAR_MSIX; anything else, or an offset outside the BAR or unaligned, is misuse
 * (reads then return 0). Reads have the register's side effects (clear-on-read statistics,
 * EICR). Writes may run TX (TDT) or RX (RDT) synchronously.
 */
uint32_t ixgbe_model_read(struct ixgbe_model *m, unsigned bar, uint32_t offset);
void ixgbe_model_write(struct ixgbe_model *m, unsigned bar, uint32_t offset, uint32_t value);

/* ixgbe_model_peek: a read without side effects and without logging, for test assertions. */
uint32_t ixgbe_model_peek(const struct ixgbe_model *m, unsigned bar, uint32_t offset);

/*
 * ixgbe_model_inject: a frame arriving from the wire (DA..payload, no FCS; 60..MAX bytes).
 * Returns 0 if the port took it (written to a descriptor now, or held in the RX packet buffer
 * until the driver posts descriptors: see SRRCTL.DROP_EN), -1 if it was dropped; the reason is
 * counted in the model counters and, where the 82599 counts it, in its statistics registers.
 */
int ixgbe_model_inject(struct ixgbe_model *m, const uint8_t *frame, size_t len);

/*
 * ixgbe_model_advance: time passes to now_ns (monotonic; an earlier value is ignored). Completes
 * resets, EEPROM auto-read, DMA init, link training and queue-enable latches that are due, sends
 * interrupts EITR was holding back and drains the RX packet buffer. TX runs synchronously on
 * every TDT write, and a queue that had to wait (link down, TE clear, master disabled, not yet
 * latched enabled) runs when that changes (link up, the write, the latch). Cheap when nothing is
 * due: an embedder may call it before every access.
 */
void ixgbe_model_advance(struct ixgbe_model *m, uint64_t now_ns);

/*
 * ixgbe_model_next_event: the earliest model time at which advance() has something to do
 * (a reset, EEPROM or DMA init completing, link training, an enable latch, an interrupt EITR
 * holds back), or UINT64_MAX if nothing waits. For embedders with real timers (a QEMU device):
 * advance at that time instead of polling.
 */
uint64_t ixgbe_model_next_event(const struct ixgbe_model *m);

/* ixgbe_model_set_link: plug (training starts, link up IXGBE_MODEL_LINK_UP_NS later) or pull
 * (link down now) the cable. Each link change raises EICR.LSC. */
void ixgbe_model_set_link(struct ixgbe_model *m, bool up);

void ixgbe_model_fault(struct ixgbe_model *m, enum ixgbe_model_fault f, bool on);

/* ixgbe_model_set_module: pull the module out of the cage and/or push `module` in (NONE: leave
 * it empty). The link drops when a module leaves; SDP2 follows, and raises EICR.GPI_SDP2 if
 * GPIE.SDP2_GPIEN. No effect on a board without a cage. */
void ixgbe_model_set_module(struct ixgbe_model *m, enum ixgbe_model_module module);
enum ixgbe_model_module ixgbe_model_module(const struct ixgbe_model *m);
/* ixgbe_model_set_peer_speed: the far end runs only this speed (1000 or 10000 Mb/s; 0: any,
 * the default): a link at the other speed never comes up (and an up one drops). */
void ixgbe_model_set_peer_speed(struct ixgbe_model *m, uint32_t mbps);
/* ixgbe_model_module_image: the A0h page (SFF-8472 serial ID, checksums valid) of `module`
 * into out (IXGBE_MODEL_MODULE_BYTES); all zeros for NONE. */
void ixgbe_model_module_image(enum ixgbe_model_module module, uint8_t *out);
/* ixgbe_model_module_name: "SR", "DA-passive", ... (the QEMU property's spelling), or NULL;
 * ixgbe_model_module_by_name: the reverse, COUNT if name is none of them. */
const char *ixgbe_model_module_name(enum ixgbe_model_module module);
enum ixgbe_model_module ixgbe_model_module_by_name(const char *name);
/* ixgbe_model_module_corrupt: flip a byte of the module's A0h image (its checksum then fails). */
void ixgbe_model_module_corrupt(struct ixgbe_model *m);
/* ixgbe_model_laser_on: does the module transmit (present, and ESDP does not drive
 * TX_DISABLE)? ixgbe_model_sfp_sequence: the NVM init sequence (its SFP id, Linux's
 * numbering) the driver last wrote to CORECTL in full, or -1. */
bool ixgbe_model_laser_on(const struct ixgbe_model *m);
int ixgbe_model_sfp_sequence(const struct ixgbe_model *m);

/* ---- introspection for tests ---- */
void ixgbe_model_counters(const struct ixgbe_model *m, struct ixgbe_model_counters *out);
/* The last misuse message ("" if none). Valid until the next misuse or free. */
const char *ixgbe_model_last_misuse(const struct ixgbe_model *m);
/* The access log: *n entries (oldest first); *lost = accesses not kept for lack of room. */
const struct ixgbe_model_log_entry *ixgbe_model_log(const struct ixgbe_model *m, size_t *n,
                                                    uint64_t *lost);
void ixgbe_model_log_clear(struct ixgbe_model *m);
/* Log reads too (off by default: drivers poll, and polls would crowd out the writes). */
void ixgbe_model_log_reads(struct ixgbe_model *m, bool on);
/* The model's clock (the largest now_ns passed to advance). */
uint64_t ixgbe_model_now(const struct ixgbe_model *m);

#endif /* WS_IXGBE_MODEL_H */
