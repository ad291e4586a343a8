/*
 * tests/hostsim/ixgbe_sim_init.c: bring-up of the real 82599 driver on two model ports. `init`
 * reads the datasheet's initialization order (82599 datasheet §4.6.3, with §4.6.7 receive and
 * §4.6.8 transmit) back out of the model's access log; the failure cases force one step to fail
 * (tests/model's faults) and expect the driver's message naming it, the port skipped and the
 * other port working; `link` and `gone-later` are the two changes housekeeping must report.
 * Register offsets here are the model's own map (tests/model/ixgbe_model_int.h, written from the
 * datasheet independently of drivers/nic/ixgbe_regs.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "apps/fwd/fwd.h"
#include "config.h"
#include "drivers/nic/nic.h"
#include "net/iface.h"
#include "percpu.h"
#include "tests/hostsim/ixgbe_sim.h"
#include "tests/model/ixgbe_model_int.h"

#define XS_EIMC_ALL 0x7FFFFFFFu
#define XS_SECRXCTRL 0x08D00u /* security RX control: RX_DIS, bit 1 (§8.2.3.26) */
#define XS_SECRXCTRL_RX_DIS 0x2u
#define XS_SECRXSTAT 0x08D04u
#define XS_CTRL_EXT_NS_DIS 0x00010000u
#define XS_HLREG0_RXCRCSTRP 0x2u
#define XS_MPSAR_LO(n) (0x0A600u + 8u * (n))
#define XS_NONE ((size_t)-1)

/* --- the access log ------------------------------------------------------------------------ */

struct xs_log {
    const struct ixgbe_model_log_entry *e;
    size_t n;
};

static bool xs_is(const struct ixgbe_model_log_entry *e, bool rd, uint32_t off)
{
    return e->bar == IXGBE_MODEL_BAR_REGS && e->is_read == rd && e->offset == off;
}

/* xs_find: the first entry at or after `from` that reads (rd) or writes off with (value & mask)
 * == want; XS_NONE if there is none. */
static size_t xs_find(const struct xs_log *l, size_t from, bool rd, uint32_t off, uint32_t mask,
                      uint32_t want)
{
    for (size_t i = from; i < l->n && from != XS_NONE; i++) {
        if (xs_is(&l->e[i], rd, off) && (l->e[i].value & mask) == want) {
            return i;
        }
    }
    return XS_NONE;
}

static size_t xs_count(const struct xs_log *l, size_t from, size_t to, bool rd, uint32_t off,
                       uint32_t mask, uint32_t want)
{
    size_t n = 0;
    for (size_t i = from; i < to && i < l->n; i++) {
        n += xs_is(&l->e[i], rd, off) && (l->e[i].value & mask) == want;
    }
    return n;
}

/* Registers receive initialization (§4.6.7) writes: all of them must be written before
 * RXCTRL.RXEN, the step that closes it. */
static bool xs_is_rx_init_reg(uint32_t off)
{
    return off == IXM_FCTRL || off == IXM_RXCSUM || off == IXM_MRQC || off == IXM_MRQC_ALIAS ||
           off == IXM_RDRXCTL || off == IXM_MCSTCTRL ||
           (off >= IXM_RETA(0) && off < IXM_RETA(32)) ||
           (off >= IXM_RETA_ALIAS && off < IXM_RETA_ALIAS + 128) ||
           (off >= IXM_RSSRK(0) && off < IXM_RSSRK(10)) ||
           (off >= IXM_RSSRK_ALIAS && off < IXM_RSSRK_ALIAS + 40) ||
           (off >= IXM_RAL(0) && off < XS_MPSAR_LO(128)) || /* RAL/RAH, MPSAR */
           (off >= IXM_RXQ_LO_BASE && off < IXM_RXQ_LO_BASE + 64 * IXM_RXQ_STRIDE) ||
           (off >= IXM_RXQ_HI_BASE && off < IXM_RXQ_HI_BASE + 64 * IXM_RXQ_STRIDE) ||
           (off >= IXM_SRRCTL_ALIAS && off < IXM_SRRCTL_ALIAS + 64) ||
           (off >= IXM_DCA_RXCTRL_ALIAS && off < IXM_DCA_RXCTRL_ALIAS + 64) ||
           (off >= IXM_RQSMR(0) && off < IXM_RQSMR(32));
}

/* xs_check_sequence: the milestones of §4.6.3 in the model's log of port i. slow says the
 * EEPROM and DMA init were held back, so the driver must have polled them more than once. */
static void xs_check_sequence(unsigned port, bool slow)
{
    struct xs_log l;
    uint64_t lost;
    l.e = xs_log(port, &l.n, &lost);
    xs_expect("access log entries lost", lost, 0);

    /* §4.6.3.1 / §5.2.5.3.2 / §4.6.3.2: interrupts masked, master disabled, then reset. */
    size_t eimc = xs_find(&l, 0, false, IXM_EIMC, XS_EIMC_ALL, XS_EIMC_ALL);
    size_t gio = xs_find(&l, 0, false, IXM_CTRL, IXM_CTRL_GIO_DIS, IXM_CTRL_GIO_DIS);
    size_t rst = xs_find(&l, 0, false, IXM_CTRL, IXM_CTRL_RST, IXM_CTRL_RST);
    XS_CHECK(rst != XS_NONE, "port%u: no CTRL.RST write", port);
    XS_CHECK(eimc != XS_NONE && eimc < rst, "port%u: interrupts not masked (EIMC = 0x7FFFFFFF) "
             "before CTRL.RST", port);
    XS_CHECK(gio != XS_NONE && gio < rst, "port%u: no master disable (CTRL.GIO_DIS) before "
             "CTRL.RST", port);
    XS_CHECK(xs_find(&l, gio, true, IXM_STATUS, IXM_STATUS_GIO, 0) < rst,
             "port%u: STATUS.GIO not seen clear between GIO_DIS and the reset", port);
    XS_CHECK(xs_find(&l, 0, false, IXM_CTRL, 0, 0) == gio,
             "port%u: CTRL written before the master disable", port);
    if (rst == XS_NONE) {
        return;
    }
    /* The reset bit self-clears (CTRL read without RST/LRST) before anything else is written. */
    size_t rst_done = xs_find(&l, rst + 1, true, IXM_CTRL, IXM_CTRL_RST | IXM_CTRL_LRST, 0);
    XS_CHECK(rst_done != XS_NONE, "port%u: CTRL never read back with RST/LRST clear", port);
    XS_CHECK(xs_find(&l, rst + 1, false, IXM_EIMC, XS_EIMC_ALL, XS_EIMC_ALL) != XS_NONE,
             "port%u: interrupts not masked again after the reset", port);

    /* §4.6.3 steps 3-4: EEC.ARD and RDRXCTL.DMAIDONE seen set before any configuration. */
    size_t ard = xs_find(&l, rst + 1, true, IXM_EEC, IXM_EEC_ARD, IXM_EEC_ARD);
    size_t dma = xs_find(&l, rst + 1, true, IXM_RDRXCTL, IXM_RDRXCTL_DMAIDONE,
                         IXM_RDRXCTL_DMAIDONE);
    XS_CHECK(ard != XS_NONE, "port%u: EEC never read with ARD set after the reset", port);
    XS_CHECK(dma != XS_NONE, "port%u: RDRXCTL never read with DMAIDONE set after the reset",
             port);
    size_t cfg = XS_NONE;
    for (size_t i = rst + 1; i < l.n; i++) {
        const struct ixgbe_model_log_entry *e = &l.e[i];
        if (e->bar == IXGBE_MODEL_BAR_REGS && !e->is_read && e->offset != IXM_EIMC &&
            e->offset != IXM_EIMC_EX(0) && e->offset != IXM_EIMC_EX(1) &&
            e->offset != IXM_EICR) {
            cfg = i;
            break;
        }
    }
    XS_CHECK(cfg != XS_NONE && ard != XS_NONE && dma != XS_NONE && cfg > ard && cfg > dma,
             "port%u: configuration (0x%05x) written before EEC.ARD and RDRXCTL.DMAIDONE were "
             "seen set", port, cfg != XS_NONE ? l.e[cfg].offset : 0);
    if (slow && ard != XS_NONE && dma != XS_NONE) {
        size_t ard_polls = xs_count(&l, rst + 1, ard, true, IXM_EEC, IXM_EEC_ARD, 0);
        size_t dma_polls = xs_count(&l, rst + 1, dma, true, IXM_RDRXCTL, IXM_RDRXCTL_DMAIDONE, 0);
        XS_CHECK(ard_polls >= 2, "port%u: EEC.ARD held back, yet read clear only %zu times",
                 port, ard_polls);
        XS_CHECK(dma_polls >= 2, "port%u: DMAIDONE held back, yet read clear only %zu times",
                 port, dma_polls);
    }
    /* §4.6.4: link setup (AUTOC.Restart_AN) after the DMA init. */
    size_t an = xs_find(&l, rst + 1, false, IXM_AUTOC, IXM_AUTOC_RESTART_AN,
                        IXM_AUTOC_RESTART_AN);
    XS_CHECK(an != XS_NONE && dma != XS_NONE && an > dma, "port%u: AUTOC.Restart_AN not written "
             "after DMA init", port);

    /* §4.6.7: per queue, ENABLE written, read back latched, and only then a tail. */
    for (unsigned q = 0; q < XS_NQ; q++) {
        uint32_t rxdctl = ixm_rxq_reg_off(q, IXM_RXDCTL), rdt = ixm_rxq_reg_off(q, IXM_RDT);
        size_t en = xs_find(&l, rst, false, rxdctl, IXM_RXDCTL_ENABLE, IXM_RXDCTL_ENABLE);
        size_t latched = xs_find(&l, en, true, rxdctl, IXM_RXDCTL_ENABLE, IXM_RXDCTL_ENABLE);
        size_t tail = XS_NONE;
        for (size_t i = rst; i < l.n; i++) {
            if (xs_is(&l.e[i], false, rdt) && l.e[i].value != 0) {
                tail = i;
                break;
            }
        }
        XS_CHECK(en != XS_NONE, "port%u: RXDCTL[%u].ENABLE never written", port, q);
        XS_CHECK(latched != XS_NONE, "port%u: RXDCTL[%u].ENABLE never read back", port, q);
        XS_CHECK(tail != XS_NONE && latched != XS_NONE && tail > latched,
                 "port%u: RDT[%u] written before RXDCTL[%u].ENABLE read back 1", port, q, q);
        XS_CHECK(xs_find(&l, rst, false, ixm_rxq_reg_off(q, IXM_RDBAL), 0, 0) < en &&
                 xs_find(&l, rst, false, ixm_rxq_reg_off(q, IXM_RDLEN), 0, 0) < en,
                 "port%u: RX queue %u enabled before its ring was programmed", port, q);
    }
    XS_CHECK(xs_find(&l, rst, false, ixm_rxq_reg_off(XS_NQ, IXM_RXDCTL), IXM_RXDCTL_ENABLE,
                     IXM_RXDCTL_ENABLE) == XS_NONE, "port%u: RX queue %u enabled (only %u cores)",
             port, XS_NQ, XS_NQ);

    /* §4.6.7: RXCTRL.RXEN last, after every receive register; the RX security path halted
     * around it (SECRXCTRL.RX_DIS set before, cleared after, SECRXSTAT polled between). */
    size_t rxen = xs_find(&l, rst, false, IXM_RXCTRL, IXM_RXCTRL_RXEN, IXM_RXCTRL_RXEN);
    XS_CHECK(rxen != XS_NONE, "port%u: RXCTRL.RXEN never set", port);
    XS_CHECK(xs_find(&l, rst, false, IXM_RXCTRL, IXM_RXCTRL_RXEN, 0) < rxen,
             "port%u: receive not disabled (RXCTRL.RXEN = 0) before its set-up", port);
    XS_CHECK(xs_find(&l, rst, false, IXM_HLREG0, XS_HLREG0_RXCRCSTRP, XS_HLREG0_RXCRCSTRP) < rxen,
             "port%u: HLREG0.RXCRCSTRP not set before RXEN", port);
    XS_CHECK(xs_find(&l, rst, false, IXM_CTRL_EXT, XS_CTRL_EXT_NS_DIS, XS_CTRL_EXT_NS_DIS) < rxen,
             "port%u: CTRL_EXT.NS_DIS not set before RXEN", port);
    for (size_t i = rxen == XS_NONE ? l.n : rxen + 1; i < l.n; i++) {
        const struct ixgbe_model_log_entry *e = &l.e[i];
        bool tail = e->offset >= IXM_RXQ_LO_BASE && (e->offset - IXM_RXQ_LO_BASE) % 0x40 == 0x18;
        if (e->bar == IXGBE_MODEL_BAR_REGS && !e->is_read && xs_is_rx_init_reg(e->offset) &&
            !tail) {
            xs_fail("port%u: receive register 0x%05x written after RXCTRL.RXEN", port, e->offset);
            break;
        }
    }
    size_t sec_dis = xs_find(&l, rst, false, XS_SECRXCTRL, XS_SECRXCTRL_RX_DIS,
                             XS_SECRXCTRL_RX_DIS);
    size_t sec_en = xs_find(&l, rxen, false, XS_SECRXCTRL, XS_SECRXCTRL_RX_DIS, 0);
    XS_CHECK(sec_dis < rxen && sec_en != XS_NONE && xs_find(&l, sec_dis, true, XS_SECRXSTAT, 0,
                                                            0) < rxen,
             "port%u: RXEN not bracketed by SECRXCTRL.RX_DIS (set, SECRXSTAT polled, cleared)",
             port);

    /* §4.6.8: DMATXCTL.TE before any TXDCTL.ENABLE; each enable read back. */
    size_t te = xs_find(&l, rst, false, IXM_DMATXCTL, IXM_DMATXCTL_TE, IXM_DMATXCTL_TE);
    XS_CHECK(te != XS_NONE, "port%u: DMATXCTL.TE never set", port);
    size_t last_txen = 0;
    for (unsigned q = 0; q < XS_NQ; q++) {
        uint32_t txdctl = ixm_txq_reg_off(q, IXM_TXDCTL);
        size_t en = xs_find(&l, rst, false, txdctl, IXM_TXDCTL_ENABLE, IXM_TXDCTL_ENABLE);
        XS_CHECK(en != XS_NONE && te != XS_NONE && en > te,
                 "port%u: TXDCTL[%u].ENABLE written before DMATXCTL.TE", port, q);
        XS_CHECK(xs_find(&l, en, true, txdctl, IXM_TXDCTL_ENABLE, IXM_TXDCTL_ENABLE) != XS_NONE,
                 "port%u: TXDCTL[%u].ENABLE never read back", port, q);
        last_txen = en != XS_NONE && en > last_txen ? en : last_txen;
    }
    /* §4.6.3.1 / §7.3: interrupts enabled last, with MSI-X mode (GPIE) and routing (IVAR)
     * set first. */
    size_t eims = xs_find(&l, rst, false, IXM_EIMS, 0, 0);
    size_t eims_ex = xs_find(&l, rst, false, IXM_EIMS_EX(0), 0, 0);
    size_t first_en = eims < eims_ex ? eims : eims_ex;
    XS_CHECK(first_en != XS_NONE && first_en > last_txen && first_en > rxen,
             "port%u: an interrupt enabled (EIMS/EIMS_EX) before receive and transmit were up",
             port);
    XS_CHECK(xs_find(&l, rst, false, IXM_GPIE, IXM_GPIE_MSIX_MODE, IXM_GPIE_MSIX_MODE) < first_en
             && xs_find(&l, rst, false, IXM_IVAR_MISC, 0, 0) < first_en,
             "port%u: interrupts enabled before GPIE (MSI-X mode) and IVAR_MISC", port);
}

/* xs_check_port: port index i is model port mp, up, addressed as config/default.conf says. */
static void xs_check_port(unsigned i, unsigned mp, bool link)
{
    const struct nic_port *p = nic_port(i);
    const struct xs_port *xp = xs_port(mp);
    if (p == NULL) {
        xs_fail("port%u missing", i);
        return;
    }
    XS_CHECK(p->pci == &xp->pci, "port%u is not PCI function %u", i, mp);
    XS_CHECK(memcmp(p->mac, xp->mac, 6) == 0, "port%u: MAC not the EEPROM's", i);
    XS_CHECK(p->link_up == link && p->speed_mbps == (link ? 10000u : 0u),
             "port%u: link %s %u Mb/s, expected %s", i, p->link_up ? "up" : "down",
             p->speed_mbps, link ? "up 10000" : "down");
    xs_expect("queues", p->nqueues, XS_NQ);
    XS_CHECK(net_port(i)->has_address && net_port(i)->ifc.ip == xs_port_ip(i) &&
                 net_port(i)->ifc.prefix_len == 24,
             "port%u: not addressed as config/default.conf says", i);
    /* The device as the driver left it (the model's view). */
    for (unsigned q = 0; q < XS_NQ; q++) {
        XS_CHECK(xs_peek(mp, ixm_rxq_reg_off(q, IXM_RXDCTL)) & IXM_RXDCTL_ENABLE,
                 "port%u: RX queue %u not enabled", i, q);
        XS_CHECK(xs_peek(mp, ixm_txq_reg_off(q, IXM_TXDCTL)) & IXM_TXDCTL_ENABLE,
                 "port%u: TX queue %u not enabled", i, q);
        xs_expect("RDT after the fill", xs_peek(mp, ixm_rxq_reg_off(q, IXM_RDT)),
                  CONFIG_NIC_RX_DESCS - 1);
    }
    /* EITR: nic.rx_usecs (config) in 2.048 us units, rounded up, on the queue vectors; the
     * link vector unthrottled. */
    uint32_t itr = ((CONFIG_NIC_RX_USECS + 1) / 2) << 3;
    for (unsigned v = 0; v <= XS_NQ; v++) {
        xs_expect("EITR", xs_peek(mp, IXM_EITR_LO(v)) & 0xFF8u, v < XS_NQ ? itr : 0);
    }
    XS_CHECK(xs_peek(mp, IXM_RXCTRL) & IXM_RXCTRL_RXEN, "port%u: RXCTRL.RXEN clear", i);
    XS_CHECK(xs_peek(mp, IXM_DMATXCTL) & IXM_DMATXCTL_TE, "port%u: DMATXCTL.TE clear", i);
    XS_CHECK((xs_peek(mp, IXM_MRQC) & IXM_MRQC_MRQE) == IXM_MRQC_MRQE_RSS,
             "port%u: MRQC does not select RSS", i);
    uint16_t msix = (uint16_t)(xp->cfg[0x72] | xp->cfg[0x73] << 8);
    XS_CHECK((msix & 0xC000) == 0x8000, "port%u: MSI-X Message Control 0x%04x: want enabled, "
             "function unmasked", i, msix);
    uint16_t cmd = (uint16_t)(xp->cfg[PCI_COMMAND] | xp->cfg[PCI_COMMAND + 1] << 8);
    XS_CHECK((cmd & 0x0406) == 0x0406, "port%u: PCI command 0x%04x: want memory, bus master, "
             "INTx off", i, cmd);
}

/* The console lines for a port that came up: nic_report_port's, then net_iface_init's. */
static void xs_expect_port_line(unsigned i, unsigned mp, bool link)
{
    char line[160];
    const uint8_t *m = xs_port(mp)->mac;
    uint32_t ip = xs_port_ip(i);
    snprintf(line, sizeof(line), "port%u: 0000:00:%02x.0 82599 mac %02x:%02x:%02x:%02x:%02x:%02x "
             "link %s, %u queues\n", i, 2 + 2 * mp, m[0], m[1], m[2], m[3], m[4], m[5],
             link ? "up" : "down", XS_NQ);
    xs_expect_console(line);
    snprintf(line, sizeof(line), "port%u: address %u.%u.%u.%u/24\n", i, ip >> 24,
             (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
    xs_expect_console(line);
}

void xs_test_init(void)
{
    /* Port 0's EEPROM auto-read and DMA init take longer than the driver's fixed delays, so
     * the log shows it polling them; port 1's are done by the time it looks. */
    xs_fault_on_write(0, IXM_CTRL, IXM_CTRL_RST, IXGBE_MODEL_FAULT_EEPROM_NEVER_DONE, true,
                      15000000);
    xs_fault_on_write(0, IXM_CTRL, IXM_CTRL_RST, IXGBE_MODEL_FAULT_DMA_INIT_NEVER_DONE, true,
                      18000000);
    xs_log_keep(0, true);
    xs_log_keep(1, true);
    uint64_t t0 = xs_now();
    unsigned n = xs_boot();
    uint64_t took = xs_now() - t0;
    xs_expect("ports up", n, 2);
    xs_expect("nic_port_count", nic_port_count(), 2);
    for (unsigned i = 0; i < XS_PORTS && i < n; i++) {
        xs_check_port(i, i, true);
        xs_expect_port_line(i, i, true);
        xs_check_sequence(i, i == 0);
    }
    XS_CHECK(!xs_console_has("init failed") && !xs_console_has("skipped"),
             "unexpected failure message:\n%s", xs_console());
    size_t n0, n1;
    xs_log(0, &n0, NULL);
    xs_log(1, &n1, NULL);
    if (xs_failures() == 0) {
        xs_summarize("2 ports up, link up 10000 Mb/s, %u queues each, in %.1f ms simulated; "
                     "datasheet order in the model's log (%zu + %zu accesses): IRQs masked, "
                     "GIO_DIS, RST, ARD + DMAIDONE polled, RXDCTL latched before RDT, RXEN "
                     "last, TE before TXDCTL, EIMS last; 0 misuse", XS_NQ, (double)took / 1e6,
                     n0, n1);
    }
}

/* --- failure cases ------------------------------------------------------------------------- */

/* xs_expect_skipped: after a bring-up with model port `bad` failing at a step: the step's message
 * (`message`, under the port name it had: port<bad>), the port skipped, the other port up as
 * port0 (the first free slot) and answering ARP. */
static void xs_expect_skipped(unsigned bad, const char *message, unsigned up)
{
    unsigned good = 1 - bad;
    char skipped[64];
    snprintf(skipped, sizeof(skipped), "port%u: skipped (see the message above)\n", bad);
    xs_expect("ports up", up, 1);
    xs_expect("nic_port_count", nic_port_count(), 1);
    xs_expect_console(message);
    xs_expect_console(skipped);
    const char *m = strstr(xs_console(), message), *s = strstr(xs_console(), skipped);
    XS_CHECK(m == NULL || s == NULL || m < s, "the skip line comes before the failure message");
    if (nic_port_count() == 1) {
        xs_check_port(0, good, true);
        xs_expect_port_line(0, good, true);
        xs_arp_exchange(good, SIM_IP_PORT0, sim_mac_host_a, SIM_IP_HOST_A);
    }
}

/* The failed port is left quiet (ixgbe_quiesce): interrupts masked, receive and transmit off. */
static void xs_expect_quiet(unsigned mp)
{
    XS_CHECK((xs_peek(mp, IXM_RXCTRL) & IXM_RXCTRL_RXEN) == 0, "failed port: RXEN still set");
    XS_CHECK((xs_peek(mp, IXM_DMATXCTL) & IXM_DMATXCTL_TE) == 0, "failed port: TE still set");
    XS_CHECK(xs_peek(mp, IXM_EIMS) == 0 && xs_peek(mp, IXM_EIMS_EX(0)) == 0 &&
             xs_peek(mp, IXM_EIMS_EX(1)) == 0, "failed port: an interrupt still enabled");
}

/* Buffers neither free in their pool nor posted in a ring of a port that is up: those the
 * failed port's RX rings took before the failing step. Not freed by the driver (see
 * tests/hostsim/README.md); noted, not failed. */
static void xs_note_stranded_buffers(void)
{
    uint64_t stranded = 0;
    for (unsigned c = 0; c < XS_CORES; c++) {
        const struct pkb_pool *pool = nic_pool(c);
        uint64_t held = 0;
        for (unsigned i = 0; i < nic_port_count(); i++) {
            const struct nic_queue *q = &nic_port(i)->q[c];
            held += iring_rx_posted(&q->rx);
        }
        stranded += pool->size - pool->nfree - held;
    }
    if (stranded != 0) {
        printf("ixgbe_sim: note %s: %" PRIu64 " pool buffers stay in the skipped port's RX "
               "rings (never returned to the pools)\n", xs_test_name(), stranded);
    }
}

static void xs_failure_case(unsigned bad, enum ixgbe_model_fault f, const char *message,
                            bool quiet_check)
{
    xs_fault(bad, f, true);
    uint64_t t0 = xs_now();
    unsigned up = xs_boot();
    uint64_t took = xs_now() - t0;
    xs_expect_skipped(bad, message, up);
    if (quiet_check) {
        xs_expect_quiet(bad);
    }
    xs_note_stranded_buffers();
    if (xs_failures() == 0) {
        char msg[200];
        snprintf(msg, sizeof(msg), "%s", message);
        msg[strcspn(msg, "\n")] = '\0';
        xs_summarize("\"%s\", port skipped, the other port up and answering ARP (%.0f ms "
                     "simulated)", msg, (double)took / 1e6);
    }
}

void xs_test_eeprom(void)
{
    xs_failure_case(1, IXGBE_MODEL_FAULT_EEPROM_NEVER_DONE,
                    "port1: init failed at EEPROM auto-read (EEC.ARD): register 0x10010 = "
                    "0x00001900, expected bits 0x00000200 to read 0x00000200 within 100000 us\n",
                    true);
}

void xs_test_dma(void)
{
    xs_failure_case(1, IXGBE_MODEL_FAULT_DMA_INIT_NEVER_DONE,
                    "port1: init failed at DMA init (RDRXCTL.DMAIDONE): register 0x02f00 = "
                    "0x00000000, expected bits 0x00000008 to read 0x00000008 within 100000 us\n",
                    true);
}

void xs_test_rxq(void)
{
    xs_failure_case(1, IXGBE_MODEL_FAULT_RXQ_ENABLE_NEVER_LATCHES,
                    "port1: init failed at RX queue 0 enable (RXDCTL.ENABLE): register 0x01028 = "
                    "0x00000000, expected bits 0x02000000 to read 0x02000000 within 10000 us\n",
                    true);
}

void xs_test_txq(void)
{
    xs_failure_case(1, IXGBE_MODEL_FAULT_TXQ_ENABLE_NEVER_LATCHES,
                    "port1: init failed at TX queue 0 enable (TXDCTL.ENABLE): register 0x06028 = "
                    "0x00010120, expected bits 0x02000000 to read 0x02000000 within 10000 us\n",
                    true);
}

/* Gone from the start, on the first function: the second one then comes up as port0. */
void xs_test_gone(void)
{
    xs_failure_case(0, IXGBE_MODEL_FAULT_DEVICE_GONE,
                    "port0: init failed at master disable (CTRL): register 0x00000 = 0xffffffff, "
                    "expected a readable register (read all-ones: device gone)\n", false);
}

/* Gone the moment the reset is written: the reset poll sees all-ones and gives up at once. */
void xs_test_gone_reset(void)
{
    xs_fault_on_write(1, IXM_CTRL, IXM_CTRL_RST, IXGBE_MODEL_FAULT_DEVICE_GONE, true, 0);
    xs_log_keep(1, true);
    unsigned up = xs_boot();
    xs_expect_skipped(1, "port1: init failed at global reset (CTRL.RST/LRST self-clear): register "
                         "0x00000 = 0xffffffff, expected bits 0x04000008 to read 0x00000000 "
                         "within 10000 us (read all-ones: device gone)\n", up);
    /* It did not wait out the 10 ms bound: after the reset, one look at CTRL (all-ones). */
    struct xs_log l;
    l.e = xs_log(1, &l.n, NULL);
    size_t rst = xs_find(&l, 0, false, IXM_CTRL, IXM_CTRL_RST, IXM_CTRL_RST);
    size_t polls = xs_count(&l, rst, l.n, true, IXM_CTRL, 0, 0);
    XS_CHECK(rst != XS_NONE && polls == 1, "CTRL read %zu times after the reset, with the "
             "device gone: the all-ones poll was not cut short", polls);
    if (xs_failures() == 0) {
        xs_summarize("device gone at CTRL.RST: \"global reset ... 0xffffffff ... (read all-ones: "
                     "device gone)\" at once, port skipped, port0 up and answering ARP");
    }
}

/* Gone while RX queue 2 is being enabled: the latch poll sees all-ones. */
void xs_test_gone_rxq(void)
{
    xs_fault_on_write(1, ixm_rxq_reg_off(2, IXM_RXDCTL), IXM_RXDCTL_ENABLE,
                      IXGBE_MODEL_FAULT_DEVICE_GONE, true, 0);
    unsigned up = xs_boot();
    xs_expect_skipped(1, "port1: init failed at RX queue 2 enable (RXDCTL.ENABLE): register "
                         "0x010a8 = 0xffffffff, expected bits 0x02000000 to read 0x02000000 "
                         "within 10000 us (read all-ones: device gone)\n", up);
    if (xs_failures() == 0) {
        xs_summarize("device gone at RXDCTL[2].ENABLE: the latch poll names queue 2 and "
                     "all-ones, port skipped, port0 up and answering ARP");
    }
}

/* Gone after bring-up: housekeeping reports it once and stops touching the port; traffic routed
 * to it is dropped as egress link down. */
void xs_test_gone_later(void)
{
    xs_expect("ports up", xs_boot(), 2);
    xs_console_clear();
    xs_fault(1, IXGBE_MODEL_FAULT_DEVICE_GONE, true);
    nic_housekeeping();
    nic_housekeeping();
    const char *line = "port1: device gone (STATUS reads all-ones); port no longer touched\n";
    xs_expect_console(line);
    const char *first = strstr(xs_console(), line);
    XS_CHECK(first == NULL || strstr(first + 1, line) == NULL, "device gone reported twice");
    XS_CHECK(!nic_port(1)->link_up, "port1 still link up");
    xs_log_keep(1, true);
    size_t before;
    xs_log(1, &before, NULL);
    nic_housekeeping();
    size_t after;
    xs_log(1, &after, NULL);
    xs_expect("port1 register accesses by housekeeping once gone", after - before, 0);
    /* port0 carries on */
    XS_CHECK(xs_arp_exchange(0, SIM_IP_PORT0, sim_mac_host_a, SIM_IP_HOST_A),
             "port0 stopped answering");
    if (xs_failures() == 0) {
        xs_summarize("housekeeping: \"port1: device gone (STATUS reads all-ones)\" once, link "
                     "down, no further access to port1; port0 still answers ARP");
    }
}

/* --- the link ------------------------------------------------------------------------------ */

void xs_test_link(void)
{
    xs_fault(1, IXGBE_MODEL_FAULT_LINK_NEVER_UP, true);
    uint64_t t0 = xs_now();
    unsigned up = xs_boot();
    uint64_t took = xs_now() - t0;
    xs_expect("ports up (a down link is not a failure)", up, 2);
    xs_expect_console("port1: link down 1000 ms after setup (LINKS 0x00000000, AUTOC 0x00006000: "
                      "10G SFI); continuing, the link is reported when it comes up\n");
    XS_CHECK(!xs_console_has("skipped"), "a port was skipped");
    if (nic_port_count() != 2) {
        return;
    }
    xs_check_port(0, 0, true);
    xs_check_port(1, 1, false);
    xs_expect_port_line(1, 1, false);
    int v = xs_irq_vector_of(0, "port1link");
    uint64_t irqs = v >= 0 ? xs_irq_count(0, (unsigned)v) : 0;

    /* Still down: housekeeping says nothing. */
    xs_console_clear();
    xs_advance(10000000);
    nic_housekeeping();
    XS_CHECK(!xs_console_has("port1: link"), "housekeeping reported a link change while down: %s",
             xs_console());
    /* Traffic for port1's side is dropped as egress link down. */
    uint8_t f[SIM_FRAME_BYTES];
    xs_build_ipv4(f, xs_port(0)->mac, sim_mac_host_a, SIM_IP_HOST_A, SIM_IP_HOST_B, XS_PROTO_UDP,
                  1000, 2000, 1, false);
    xs_inject(0, f, sizeof(f));
    xs_settle(NULL);
    uint64_t down = 0;
    for (unsigned c = 0; c < XS_CORES; c++) {
        down += fwd_stats_of(0, c)->egress_link_down;
    }
    xs_expect("frames routed to port1 while its link is down: egress_link_down", down, 1);

    /* The fault lifted, the model finishes training; the link interrupt fires (EIMS.LSC, link
     * vector on core 0) and housekeeping reports it. */
    xs_fault(1, IXGBE_MODEL_FAULT_LINK_NEVER_UP, false);
    xs_advance(1000);
    XS_CHECK(v >= 0 && xs_irq_count(0, (unsigned)v) == irqs + 1,
             "port1: no link interrupt on its vector when the link came up");
    nic_housekeeping();
    xs_expect_console("port1: link up 10000 Mb/s full duplex\n");
    XS_CHECK(nic_port(1)->link_up && nic_port(1)->speed_mbps == 10000, "port1 not up after "
             "housekeeping");
    xs_expect("port1 link changes", nic_port(1)->link_changes, 1);
    XS_CHECK(xs_arp_exchange(1, SIM_IP_PORT1, sim_mac_host_b, SIM_IP_HOST_B),
             "port1 does not answer ARP");

    /* Cable pulled and plugged again: down, then up, each reported once. */
    xs_console_clear();
    ixgbe_model_set_link(xs_port(1)->m, false);
    xs_advance(1000);
    nic_housekeeping();
    nic_housekeeping();
    xs_expect_console("port1: link down\n");
    XS_CHECK(!nic_port(1)->link_up, "port1 still up after the cable was pulled");
    ixgbe_model_set_link(xs_port(1)->m, true);
    xs_advance(IXGBE_MODEL_LINK_UP_NS + 1000);
    nic_housekeeping();
    nic_housekeeping();
    xs_expect_console("port1: link up 10000 Mb/s full duplex\n");
    const char *up_line = strstr(xs_console(), "port1: link up");
    XS_CHECK(up_line == NULL || strstr(up_line + 1, "port1: link up") == NULL,
             "link up reported twice");
    xs_expect("port1 link changes", nic_port(1)->link_changes, 3);
    if (xs_failures() == 0) {
        xs_summarize("\"port1: link down 1000 ms after setup ... continuing\" after %.0f ms "
                     "simulated, port kept (link down, egress_link_down counted); fault lifted: "
                     "LSC interrupt on core 0, housekeeping \"port1: link up 10000 Mb/s\", ARP "
                     "answered; cable pull/plug reported once each", (double)took / 1e6);
    }
}

/* A core whose APIC ID is above 255 (an x2APIC server): an MSI message cannot name it without
 * interrupt remapping. Both ports still come up; that core's queue entries stay unrouted, it is
 * told so once per port, and it never halts waiting for them (nic_arm_core reports work). */
void xs_test_apic_high(void)
{
    char line[200];
    percpu_blocks[3].apic_id = 300;
    unsigned n = xs_boot();
    xs_expect("ports up with core 3 beyond MSI's reach", n, 2);
    for (unsigned i = 0; i < n; i++) {
        snprintf(line, sizeof(line), "port%u: MSI-X entry 3: core 3 has APIC ID 300, beyond what "
                 "MSI reaches without interrupt remapping; the core polls this queue, never "
                 "sleeps on it\n", i);
        xs_expect_console(line);
        XS_CHECK(nic_port(i)->q[3].no_irq, "port%u q3 not marked unroutable", i);
        for (unsigned q = 0; q < 3; q++) {
            XS_CHECK(!nic_port(i)->q[q].no_irq, "port%u q%u marked unroutable", i, q);
        }
    }
    XS_CHECK(nic_arm_core(3), "core 3 would halt with no interrupt to wake it");
    nic_disarm_core(3);
    XS_CHECK(!nic_arm_core(2), "core 2, whose vectors are routed, was kept awake");
    nic_disarm_core(2);
}
