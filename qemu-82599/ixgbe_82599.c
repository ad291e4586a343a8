/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * ixgbe-82599: one port of an Intel 82599 10 GbE controller as a QEMU PCI Express device. The
 * chip's behaviour is wirespeed's datasheet model (tests/model/ixgbe_model*.c, compiled into
 * QEMU beside this file); this file is only the seam between that model and QEMU:
 *
 *   model                         QEMU
 *   BAR 0 registers, 128 KiB   <- a MemoryRegion on BAR 0 (64-bit), 32-bit accesses
 *   MSI-X table and PBA        <- QEMU's own MSI-X emulation on BAR 4 (table 0x0, PBA 0x2000)
 *   ops.dma_read/dma_write     -> pci_dma_read/pci_dma_write (bus mastering, IOMMU), refused
 *                                 while a bridge above has Bus Master off (ix_blocking_bridge)
 *   ops.msix_notify            -> msix_notify
 *   ops.tx_frame               -> qemu_send_packet to the netdev (tap, socket, user, ...)
 *   ops.misuse                 -> qemu_log_mask(LOG_GUEST_ERROR): a driver error, never fatal
 *   ixgbe_model_inject         <- frames from the netdev (padded to 60 bytes: the wire's job)
 *   ixgbe_model_set_link       <- the netdev's link state (monitor: set_link)
 *   ixgbe_model_advance        <- QEMU_CLOCK_VIRTUAL: before every access, and on a timer set
 *                                 to ixgbe_model_next_event
 *   ixgbe_model_fault          <- the device's fault properties, set at run time from the
 *                                 monitor (qom-set <path> gone|tx-stalled on|off): tests
 *
 * PCI identity: 8086:1517, the 82599 KR backplane port (see qemu-82599/README.md for why this
 * variant), or with sfp=on 8086:10FB, the SFP+ port, whose cage holds the `module` property's
 * module (I2C, SDP pins and NVM init sequences: tests/model/ixgbe_model_sfp.c). Capabilities at the 82599's offsets: PM 0x40, MSI-X 0x70 (64 vectors), PCIe 0xA0
 * (5 GT/s x8). Not present: the I/O BAR, MSI, VPD, AER, ARI, SR-IOV (the model has none of
 * them). The model's own MSI-X table stays unmasked; the guest programs QEMU's.
 *
 * Locking: every entry point (MMIO, netdev receive, link change, timer, reset) runs under the
 * BQL, which is what the model's single-thread contract asks for.
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qemu/units.h"
#include "net/net.h"
#include "hw/pci/pci_bus.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qom/object.h"
#include "system/system.h"

#include "tests/model/ixgbe_model.h"

#define TYPE_IXGBE_82599 "ixgbe-82599"
OBJECT_DECLARE_SIMPLE_TYPE(Ixgbe82599State, IXGBE_82599)

#define IX_DEVICE_ID_82599_KR 0x1517 /* Linux: IXGBE_DEV_ID_82599_KR */
#define IX_DEVICE_ID_82599_SFP 0x10FB /* Linux: IXGBE_DEV_ID_82599_SFP (X520-DA2 class) */
#define IX_REVISION 0x01             /* 82599 B0 stepping */
#define IX_BAR_REGS 0
#define IX_BAR_MSIX 4
#define IX_CAP_PM 0x40
#define IX_CAP_MSIX 0x70
#define IX_CAP_PCIE 0xA0
#define IX_MIN_FRAME 60              /* without FCS: what a sending MAC pads to */

struct Ixgbe82599State {
    PCIDevice parent_obj;

    NICState *nic;
    NICConf conf;
    MemoryRegion mmio;
    MemoryRegion msix;
    QEMUTimer *timer;

    struct ixgbe_model *model;
    uint64_t now;        /* QEMU_CLOCK_VIRTUAL at the last ix_advance */
    uint64_t timer_at;   /* when the timer is armed for (UINT64_MAX: not armed) */
    bool rx_blocked;     /* can_receive said no: flush the netdev queue when it may go on */
    /* Faults a test forces (QOM properties, see ix_fault_props); kept here so that a PCI
     * reset, which builds a new model, does not quietly heal them. */
    bool faults[IXGBE_MODEL_FAULT_COUNT];
    bool dma_blocked; /* DMA was refused (a bridge's Bus Master off) and said so */
    /* The board: KR backplane (default) or SFP+ (property sfp=on), and what sits in the SFP+
     * cage (property module, settable at run time: a pull or a push); kept across PCI resets,
     * as the module stays in its cage. */
    bool sfp;
    enum ixgbe_model_module module;
};

/* ---- the model's callbacks ------------------------------------------------------------ */

/*
 * ix_blocking_bridge: a bridge between this device and its root bus whose Bus Master bit is
 * off, or NULL. A real bridge forwards no upstream memory transaction then (PCI-to-PCI Bridge
 * Architecture 1.2 section 3.2.5.1, Bus Master Enable); QEMU's bridges forward it anyway, so
 * the device refuses its own DMA instead, as it would go nowhere on hardware.
 */
static PCIDevice *ix_blocking_bridge(PCIDevice *d)
{
    for (PCIBus *bus = pci_get_bus(d); !pci_bus_is_root(bus); bus = pci_get_bus(bus->parent_dev)) {
        PCIDevice *br = bus->parent_dev;
        if (!(pci_get_word(br->config + PCI_COMMAND) & PCI_COMMAND_MASTER)) {
            return br;
        }
    }
    return NULL;
}

/* ix_dma_allowed: false (said once per episode, as a guest error) while a bridge blocks. */
static bool ix_dma_allowed(Ixgbe82599State *s)
{
    PCIDevice *br = ix_blocking_bridge(PCI_DEVICE(s));
    if (br == NULL) {
        s->dma_blocked = false;
        return true;
    }
    if (!s->dma_blocked) {
        DeviceState *d = DEVICE(s);
        qemu_log_mask(LOG_GUEST_ERROR, "%s %s: DMA refused: bridge %02x:%02x.%x above has Bus "
                      "Master off\n", TYPE_IXGBE_82599, d->id ? d->id : "?",
                      pci_dev_bus_num(br), PCI_SLOT(br->devfn), PCI_FUNC(br->devfn));
        s->dma_blocked = true;
    }
    return false;
}

static int ix_dma_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    Ixgbe82599State *s = ctx;

    if (!ix_dma_allowed(s)) {
        return -1;
    }
    return pci_dma_read(PCI_DEVICE(s), addr, buf, len) == MEMTX_OK ? 0 : -1;
}

static int ix_dma_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    Ixgbe82599State *s = ctx;

    if (!ix_dma_allowed(s)) {
        return -1;
    }
    return pci_dma_write(PCI_DEVICE(s), addr, buf, len) == MEMTX_OK ? 0 : -1;
}

static void ix_msix_notify(void *ctx, unsigned vector)
{
    PCIDevice *d = PCI_DEVICE(ctx);

    /* The model has applied EIMS, EIAM and EITR; the table mask and PBA are QEMU's. */
    if (msix_enabled(d)) {
        msix_notify(d, vector);
    }
}

static void ix_tx_frame(void *ctx, const uint8_t *frame, size_t len)
{
    Ixgbe82599State *s = ctx;

    qemu_send_packet(qemu_get_queue(s->nic), frame, len);
}

static void ix_misuse(void *ctx, const char *msg)
{
    Ixgbe82599State *s = ctx;
    DeviceState *d = DEVICE(s);

    qemu_log_mask(LOG_GUEST_ERROR, "%s %s: %s\n", TYPE_IXGBE_82599,
                  d->id ? d->id : (s->nic ? qemu_get_queue(s->nic)->name : "?"), msg);
}

/* ---- time ----------------------------------------------------------------------------- */

static uint64_t ix_now(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

/* Bring the model up to the present before it is used. */
static void ix_advance(Ixgbe82599State *s)
{
    s->now = ix_now();
    ixgbe_model_advance(s->model, s->now);
}

/* After the model ran: arm the timer for its next deadline (only when it moved: re-arming
 * wakes QEMU's main loop), resume a stalled netdev queue. */
static void ix_settle(Ixgbe82599State *s)
{
    uint64_t next = ixgbe_model_next_event(s->model);
    struct ixgbe_model_counters c;

    if (next <= s->now) {
        next = s->now + 1000;
    }
    if (next != s->timer_at) {
        s->timer_at = next;
        if (next == UINT64_MAX) {
            timer_del(s->timer);
        } else {
            timer_mod(s->timer, next);
        }
    }
    if (s->rx_blocked) {
        ixgbe_model_counters(s->model, &c);
        if (c.rx_pb_frames == 0) {
            s->rx_blocked = false;
            qemu_flush_queued_packets(qemu_get_queue(s->nic));
        }
    }
}

static void ix_timer(void *opaque)
{
    Ixgbe82599State *s = opaque;

    s->timer_at = UINT64_MAX; /* it fired */
    ix_advance(s);
    ix_settle(s);
}

/* ---- BAR 0 ---------------------------------------------------------------------------- */

static uint64_t ix_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    Ixgbe82599State *s = opaque;
    uint32_t v;

    ix_advance(s);
    v = ixgbe_model_read(s->model, IXGBE_MODEL_BAR_REGS, addr);
    ix_settle(s);
    return v;
}

static void ix_mmio_write(void *opaque, hwaddr addr, uint64_t val, unsigned size)
{
    Ixgbe82599State *s = opaque;

    ix_advance(s);
    ixgbe_model_write(s->model, IXGBE_MODEL_BAR_REGS, addr, (uint32_t)val);
    ix_settle(s);
}

/* 32-bit registers; a 64-bit access (Linux's writeq of FDIRHASH/FDIRCMD) is split in two. */
static const MemoryRegionOps ix_mmio_ops = {
    .read = ix_mmio_read,
    .write = ix_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

/* ---- netdev --------------------------------------------------------------------------- */

/* Take frames while the model's RX packet buffer is empty; a frame that had to wait there
 * (no descriptor on its queue, DROP_EN clear) holds the netdev back until the driver posts
 * descriptors, instead of filling the 512 KiB buffer at emulation speed and missing. */
static bool ix_can_receive(NetClientState *nc)
{
    Ixgbe82599State *s = qemu_get_nic_opaque(nc);
    struct ixgbe_model_counters c;

    ixgbe_model_counters(s->model, &c);
    if (c.rx_pb_frames) {
        s->rx_blocked = true;
        return false;
    }
    return true;
}

static ssize_t ix_receive(NetClientState *nc, const uint8_t *buf, size_t size)
{
    Ixgbe82599State *s = qemu_get_nic_opaque(nc);
    uint8_t pad[IX_MIN_FRAME];

    if (size < IX_MIN_FRAME) { /* a tap hands over frames as sent, before the MAC's padding */
        memcpy(pad, buf, size);
        memset(pad + size, 0, sizeof(pad) - size);
        buf = pad;
        size = sizeof(pad);
    }
    ix_advance(s);
    ixgbe_model_inject(s->model, buf, size); /* dropped or taken: the frame is consumed */
    ix_settle(s);
    return size;
}

static void ix_link_status_changed(NetClientState *nc)
{
    Ixgbe82599State *s = qemu_get_nic_opaque(nc);

    ix_advance(s);
    ixgbe_model_set_link(s->model, !nc->link_down);
    ix_settle(s);
}

static NetClientInfo ix_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .can_receive = ix_can_receive,
    .receive = ix_receive,
    .link_status_changed = ix_link_status_changed,
};

/* ---- life cycle ----------------------------------------------------------------------- */

/* A model in its power-on state for this port's MAC address, on a KR backplane board or an
 * SFP+ board with s->module in its cage. */
static void ix_model_create(Ixgbe82599State *s)
{
    const struct ixgbe_model_ops ops = {
        .dma_read = ix_dma_read,
        .dma_write = ix_dma_write,
        .msix_notify = ix_msix_notify,
        .tx_frame = ix_tx_frame,
        .misuse = ix_misuse,
        .ctx = s,
    };
    struct ixgbe_model_config cfg = {
        .autoc = s->sfp ? IXGBE_MODEL_AUTOC_SFI : IXGBE_MODEL_AUTOC_BACKPLANE_KR,
        .autoc2 = s->sfp ? IXGBE_MODEL_AUTOC2_SFI : IXGBE_MODEL_AUTOC2_BACKPLANE_KR,
        .sfp_cage = s->sfp,
        .module = s->module,
    };

    memcpy(cfg.mac, s->conf.macaddr.a, sizeof(cfg.mac));
    s->model = ixgbe_model_new_config(&ops, &cfg);
    if (!s->model) {
        return;
    }
    /* QEMU's MSI-X emulation owns the guest-visible table; the model's copy never masks. */
    for (unsigned v = 0; v < IXGBE_MODEL_MSIX_VECTORS; v++) {
        ixgbe_model_write(s->model, IXGBE_MODEL_BAR_MSIX, 16 * v + 12, 0);
    }
    ixgbe_model_log_clear(s->model);
    for (unsigned f = 0; f < IXGBE_MODEL_FAULT_COUNT; f++) {
        ixgbe_model_fault(s->model, f, s->faults[f]);
    }
    ix_advance(s);
    if (s->nic && qemu_get_queue(s->nic)->link_down) {
        ixgbe_model_set_link(s->model, false);
    }
    s->rx_blocked = false;
}

static void ix_realize(PCIDevice *pdev, Error **errp)
{
    Ixgbe82599State *s = IXGBE_82599(pdev);
    DeviceState *d = DEVICE(pdev);

    pdev->config[PCI_CACHE_LINE_SIZE] = 0x10;
    pdev->config[PCI_INTERRUPT_PIN] = 1;
    if (s->sfp) { /* the EEPROM of an SFP+ board loads its own Device ID */
        pci_set_word(pdev->config + PCI_DEVICE_ID, IX_DEVICE_ID_82599_SFP);
    }

    memory_region_init_io(&s->mmio, OBJECT(s), &ix_mmio_ops, s, "ixgbe-82599-regs",
                          IXGBE_MODEL_REGS_BYTES);
    pci_register_bar(pdev, IX_BAR_REGS,
                     PCI_BASE_ADDRESS_SPACE_MEMORY | PCI_BASE_ADDRESS_MEM_TYPE_64, &s->mmio);
    memory_region_init(&s->msix, OBJECT(s), "ixgbe-82599-msix", IXGBE_MODEL_MSIX_BYTES);
    pci_register_bar(pdev, IX_BAR_MSIX,
                     PCI_BASE_ADDRESS_SPACE_MEMORY | PCI_BASE_ADDRESS_MEM_TYPE_64, &s->msix);

    /* Capabilities, last in the list first (each is linked in at the head). */
    if (pcie_endpoint_cap_init(pdev, IX_CAP_PCIE) < 0) {
        error_setg(errp, "ixgbe-82599: PCIe capability at 0x%x failed", IX_CAP_PCIE);
        return;
    }
    pcie_cap_fill_link_ep_usp(pdev, QEMU_PCI_EXP_LNK_X8, QEMU_PCI_EXP_LNK_5GT);
    if (msix_init(pdev, IXGBE_MODEL_MSIX_VECTORS, &s->msix, IX_BAR_MSIX, 0, &s->msix,
                  IX_BAR_MSIX, IXGBE_MODEL_MSIX_PBA_OFFSET, IX_CAP_MSIX, errp) < 0) {
        return;
    }
    for (unsigned v = 0; v < IXGBE_MODEL_MSIX_VECTORS; v++) {
        msix_vector_use(pdev, v);
    }
    if (pci_pm_init(pdev, IX_CAP_PM, errp) < 0) {
        goto err_msix;
    }

    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    s->nic = qemu_new_nic(&ix_net_info, &s->conf, object_get_typename(OBJECT(s)), d->id,
                          &d->mem_reentrancy_guard, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);

    s->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, ix_timer, s);
    s->timer_at = UINT64_MAX;
    ix_model_create(s);
    if (!s->model) {
        error_setg(errp, "ixgbe-82599: the model could not be created (out of memory)");
        goto err_nic;
    }
    ix_settle(s);
    return;

err_nic:
    timer_free(s->timer);
    s->timer = NULL;
    qemu_del_nic(s->nic);
    s->nic = NULL;
err_msix:
    msix_unuse_all_vectors(pdev);
    msix_uninit(pdev, &s->msix, &s->msix);
}

static void ix_exit(PCIDevice *pdev)
{
    Ixgbe82599State *s = IXGBE_82599(pdev);

    timer_free(s->timer);
    s->timer = NULL;
    qemu_del_nic(s->nic);
    s->nic = NULL;
    msix_unuse_all_vectors(pdev);
    msix_uninit(pdev, &s->msix, &s->msix);
    ixgbe_model_free(s->model);
    s->model = NULL;
}

/* A PCI reset is a power-on reset of the chip: a new model, as ixgbe_model_new describes. */
static void ix_reset_hold(Object *obj, ResetType type)
{
    Ixgbe82599State *s = IXGBE_82599(obj);

    ixgbe_model_free(s->model);
    timer_del(s->timer);
    s->timer_at = UINT64_MAX;
    ix_model_create(s);
    if (s->model) {
        ix_settle(s);
    }
}

static const VMStateDescription ix_vmstate = {
    .name = TYPE_IXGBE_82599,
    .unmigratable = 1, /* the model's state has no migration format */
};

static const Property ix_properties[] = {
    DEFINE_NIC_PROPERTIES(Ixgbe82599State, conf),
    DEFINE_PROP_BOOL("sfp", Ixgbe82599State, sfp, false),
};

static void ix_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = ix_realize;
    k->exit = ix_exit;
    k->vendor_id = PCI_VENDOR_ID_INTEL;
    k->device_id = IX_DEVICE_ID_82599_KR;
    k->revision = IX_REVISION;
    k->subsystem_vendor_id = PCI_VENDOR_ID_INTEL;
    k->subsystem_id = 0;
    k->class_id = PCI_CLASS_NETWORK_ETHERNET;
    rc->phases.hold = ix_reset_hold;
    dc->desc = "Intel 82599 10 GbE port (KR backplane, or SFP+ with sfp=on), wirespeed's "
               "datasheet model";
    dc->vmsd = &ix_vmstate;
    device_class_set_props(dc, ix_properties);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

/* ---- faults a test can force at run time -------------------------------------------- */

/*
 * Boolean QOM properties, settable while the guest runs (HMP: qom-set <device path> gone on):
 *   gone        the device dropped off the bus: every BAR 0 read returns all-ones, writes are
 *               lost, no DMA, no interrupts (a surprise removal, or a link to the chip that
 *               died). QEMU itself returns 0, not all-ones, for a BAR whose decoding is off,
 *               so this is the only way to show the firmware a gone device.
 *   tx-stalled  the TX engine stops processing descriptors: a TX hang for the watchdog.
 * The MSI-X table (BAR 4) and configuration space are QEMU's and stay readable.
 */
static const struct {
    const char *name;
    enum ixgbe_model_fault fault;
    const char *desc;
} ix_fault_props[] = {
    { "gone", IXGBE_MODEL_FAULT_DEVICE_GONE, "reads return all-ones, no DMA (test fault)" },
    { "tx-stalled", IXGBE_MODEL_FAULT_TX_STOPS_COMPLETING, "TX stops completing (test fault)" },
};

static int ix_fault_prop_index(const char *name)
{
    for (unsigned i = 0; i < ARRAY_SIZE(ix_fault_props); i++) {
        if (!strcmp(ix_fault_props[i].name, name)) {
            return i;
        }
    }
    return -1;
}

/* The property's name tells which fault: one getter and setter for all of them. */
static void ix_fault_get(Object *obj, Visitor *v, const char *name, void *opaque, Error **errp)
{
    Ixgbe82599State *s = IXGBE_82599(obj);
    bool on = s->faults[ix_fault_props[ix_fault_prop_index(name)].fault];

    visit_type_bool(v, name, &on, errp);
}

static void ix_fault_set(Object *obj, Visitor *v, const char *name, void *opaque, Error **errp)
{
    Ixgbe82599State *s = IXGBE_82599(obj);
    enum ixgbe_model_fault f = ix_fault_props[ix_fault_prop_index(name)].fault;
    bool on;

    if (!visit_type_bool(v, name, &on, errp)) {
        return;
    }
    s->faults[f] = on;
    if (s->model) {
        ix_advance(s);
        ixgbe_model_fault(s->model, f, on);
        ix_settle(s);
    }
}

/* ---- the SFP+ cage ------------------------------------------------------------------- */

/*
 * module (string): what sits in the cage of an sfp=on port: none, sr, lr, da-passive,
 * da-active, 1g-sx, 1g-lx, 1g-t, unknown, sr-dual (tests/model/ixgbe_model_sfp.c describes each). Set
 * on the command line (-device ixgbe-82599,sfp=on,module=da-passive) or while the guest runs
 * (HMP: qom-set <device path> module none, then ... module sr: a pull and a push).
 */
static char *ix_module_get(Object *obj, Error **errp)
{
    return g_strdup(ixgbe_model_module_name(IXGBE_82599(obj)->module));
}

static void ix_module_set(Object *obj, const char *value, Error **errp)
{
    Ixgbe82599State *s = IXGBE_82599(obj);
    enum ixgbe_model_module k = ixgbe_model_module_by_name(value);

    if (k == IXGBE_MODEL_MODULE_COUNT) {
        error_setg(errp, "ixgbe-82599: module '%s' unknown: none, sr, lr, da-passive, "
                   "da-active, 1g-sx, 1g-lx, 1g-t, unknown or sr-dual", value);
        return;
    }
    s->module = k;
    if (s->model) {
        if (!s->sfp) {
            error_setg(errp, "ixgbe-82599: this port has no SFP+ cage (sfp=off)");
            return;
        }
        ix_advance(s);
        ixgbe_model_set_module(s->model, k);
        ix_settle(s);
    }
}

static void ix_instance_init(Object *obj)
{
    Ixgbe82599State *s = IXGBE_82599(obj);

    s->module = IXGBE_MODEL_MODULE_SR;
    object_property_add_str(obj, "module", ix_module_get, ix_module_set);
    object_property_set_description(obj, "module", "what the SFP+ cage holds (sfp=on): none, "
                                    "sr, lr, da-passive, da-active, 1g-sx, 1g-lx, 1g-t, unknown, "
                                    "sr-dual");

    device_add_bootindex_property(obj, &s->conf.bootindex, "bootindex", "/ethernet-phy@0",
                                  DEVICE(obj));
    for (unsigned i = 0; i < ARRAY_SIZE(ix_fault_props); i++) {
        object_property_add(obj, ix_fault_props[i].name, "bool", ix_fault_get, ix_fault_set,
                            NULL, NULL);
        object_property_set_description(obj, ix_fault_props[i].name, ix_fault_props[i].desc);
    }
}

static const TypeInfo ix_info = {
    .name = TYPE_IXGBE_82599,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(Ixgbe82599State),
    .class_init = ix_class_init,
    .instance_init = ix_instance_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { },
    },
};

static void ix_register_types(void)
{
    type_register_static(&ix_info);
}

type_init(ix_register_types)
