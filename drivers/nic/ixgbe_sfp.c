/*
 * drivers/nic/ixgbe_sfp.c: the SFP+ cage of an 82599 SFP+ board (X520-DA2 class): the module's
 * SFF-8472 serial ID page read over the cage's two-wire bus (I2CCTL, bit-banged, §8.2.3.1.5),
 * its type decided from its compliance codes, its laser switched through SDP3 (the module's
 * TX_DISABLE; ESDP §8.2.3.1.4), the NVM's init sequence for its type written to the analog core
 * (CORECTL), and the link mode its speed needs. Which pin does what on these boards, and how the
 * NVM lists its sequences, is the board's and the NVM's business, not the datasheet's; we follow
 * what Linux 6.1's ixgbe does with them (read for facts).
 *
 * Policy (docs/hardware.md): any vendor's module of a known type is set up (10GBASE-SR/LR,
 * passive and active (limiting) direct-attach cables, 1000BASE-SX/LX/T; dual-rate 10G/1G
 * optics at 10G first, their rate select driven high, and at 1G when 10G has not linked for
 * 2 s, alternating until one does); a module of unknown
 * type is refused with its laser off unless nic.sfp_any = yes, which sets it up as a 10G optic;
 * a module whose ID page cannot be read or fails its checksum is refused. Hot plug: housekeeping
 * reads the presence pin (SDP2) every 100 ms; a new module is set up once it has sat 300 ms
 * (SFF-8431's longest start-up), with its link restarted.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "console.h"
#include "drivers/nic/ixgbe_int.h"
#include "drivers/nic/ixgbe_regs.h"
#include "drivers/nic/nic_hw.h"
#include "err.h"
#include "time.h"

/* SFF-8472 serial ID (device A0h) fields we read: bytes 0..63, the base ID with its checksum. */
#define SFF_DEV_A0 0xA0
#define SFF_ID_BYTES 64
#define SFF_IDENTIFIER 0
#define SFF_IDENTIFIER_SFP 0x03 /* SFP/SFP+ (SFF-8024) */
#define SFF_10G 3
#define SFF_10G_SR 0x10
#define SFF_10G_LR 0x20
#define SFF_1G 6
#define SFF_1G_SX 0x01
#define SFF_1G_LX 0x02
#define SFF_1G_T 0x08
#define SFF_CABLE 8
#define SFF_CABLE_PASSIVE 0x04
#define SFF_CABLE_ACTIVE 0x08
#define SFF_VENDOR 20 /* 16 bytes, space padded */
#define SFF_OUI 37
#define SFF_PART 40
#define SFF_CABLE_SPEC 60
#define SFF_CABLE_SPEC_LIMITING 0x04 /* active cable: SFF-8431 limiting, which SFI expects */
#define SFF_CC_BASE 63               /* sum of bytes 0..62 */

/* I2C at 100 kHz (the slowest every module takes): 5 us per half clock is above every minimum
 * of the I2C specification's standard mode (tLOW 4.7, tHIGH 4.0, set-up and hold <= 4.7 us). */
#define IXGBE_I2C_HALF_US 5
#define IXGBE_I2C_STRETCH_US 500 /* a module may hold SCL low this long (clock stretching) */
#define IXGBE_I2C_TRIES 2

#define IXGBE_SFP_SETTLE_POLLS 3 /* 300 ms of housekeeping before a new module is read */
#define IXGBE_SFP_RATE_TRY_NS 2000000000ULL /* a dual-rate optic without a link: the other rate */
#define IXGBE_SFP_ID_DA_PASSIVE 3 /* NVM init list ids (Linux's numbering), LAN 0; LAN 1 + 1 */
#define IXGBE_SFP_ID_OTHER 5      /* SR/LR, and what Linux maps to it: active DA and 1G */
#define IXGBE_NVM_LIST_MAX 64     /* bound on list entries and sequence words we walk */

enum ixgbe_module_kind {
    IXGBE_MOD_SR,
    IXGBE_MOD_LR,
    IXGBE_MOD_DA_PASSIVE,
    IXGBE_MOD_DA_ACTIVE,
    IXGBE_MOD_1G_SX,
    IXGBE_MOD_1G_LX,
    IXGBE_MOD_1G_T,
    IXGBE_MOD_UNKNOWN,
    IXGBE_MOD_SR_DUAL, /* 10GBASE-SR and 1000BASE-SX in one: run at 10G (rate select high) */
    IXGBE_MOD_LR_DUAL,
};

static const struct ixgbe_module_type {
    const char *name;
    uint32_t mbps;
} ixgbe_module_types[] = {
    [IXGBE_MOD_SR] = { "10GBASE-SR", 10000 },    [IXGBE_MOD_LR] = { "10GBASE-LR", 10000 },
    [IXGBE_MOD_DA_PASSIVE] = { "DA passive", 10000 },
    [IXGBE_MOD_DA_ACTIVE] = { "DA active", 10000 }, [IXGBE_MOD_1G_SX] = { "1000BASE-SX", 1000 },
    [IXGBE_MOD_1G_LX] = { "1000BASE-LX", 1000 }, [IXGBE_MOD_1G_T] = { "1000BASE-T", 1000 },
    [IXGBE_MOD_UNKNOWN] = { "unknown", 10000 },  [IXGBE_MOD_SR_DUAL] = { "10G/1G SR", 10000 },
    [IXGBE_MOD_LR_DUAL] = { "10G/1G LR", 10000 },
};

/* ---- I2C, bit-banged ---------------------------------------------------------------------- */

/* ixgbe_i2c_lines: drive SCL and SDA (1 = released: open drain), then wait half a clock. A
 * released SCL that a module holds low (stretching) is waited for, boundedly. */
static bool ixgbe_i2c_lines(struct nic_port *p, bool scl, bool sda)
{
    nic_wr(p, IXGBE_I2CCTL, (scl ? IXGBE_I2C_CLK_OUT : 0) | (sda ? IXGBE_I2C_DATA_OUT : 0));
    time_delay_us(IXGBE_I2C_HALF_US);
    if (!scl) {
        return true;
    }
    uint32_t v;
    return nic_poll(p, IXGBE_I2CCTL, IXGBE_I2C_CLK_IN, IXGBE_I2C_CLK_IN, IXGBE_I2C_STRETCH_US,
                    &v) && v != NIC_ALL_ONES;
}

static bool ixgbe_i2c_sda(struct nic_port *p)
{
    return (nic_rd(p, IXGBE_I2CCTL) & IXGBE_I2C_DATA_IN) != 0;
}

/* START (or a repeated START) from any state: SDA falls while SCL is high. */
static bool ixgbe_i2c_start(struct nic_port *p)
{
    return ixgbe_i2c_lines(p, false, true) && ixgbe_i2c_lines(p, true, true) &&
           ixgbe_i2c_lines(p, true, false) && ixgbe_i2c_lines(p, false, false);
}

/* STOP: SDA rises while SCL is high; the bus is then idle (both released). */
static void ixgbe_i2c_stop(struct nic_port *p)
{
    ixgbe_i2c_lines(p, false, false);
    ixgbe_i2c_lines(p, true, false);
    ixgbe_i2c_lines(p, true, true);
}

/* One clock with SDA driven to (or released as) `bit`; *seen is SDA while SCL was high. */
static bool ixgbe_i2c_clock(struct nic_port *p, bool bit, bool *seen)
{
    if (!ixgbe_i2c_lines(p, false, bit) || !ixgbe_i2c_lines(p, true, bit)) {
        return false;
    }
    *seen = ixgbe_i2c_sda(p);
    return ixgbe_i2c_lines(p, false, bit);
}

/* Send a byte, MSB first; true if the slave ACKed it (pulled SDA low on the ninth clock). */
static bool ixgbe_i2c_send(struct nic_port *p, uint8_t b)
{
    bool seen;
    for (int i = 7; i >= 0; i--) {
        if (!ixgbe_i2c_clock(p, (b >> i) & 1, &seen)) {
            return false;
        }
    }
    return ixgbe_i2c_clock(p, true, &seen) && !seen;
}

/* Receive a byte, then ACK it (another follows) or NACK it (the last). */
static bool ixgbe_i2c_recv(struct nic_port *p, bool ack, uint8_t *b)
{
    bool seen;
    *b = 0;
    for (int i = 0; i < 8; i++) {
        if (!ixgbe_i2c_clock(p, true, &seen)) {
            return false;
        }
        *b = (uint8_t)(*b << 1 | (seen ? 1 : 0));
    }
    return ixgbe_i2c_clock(p, !ack, &seen);
}

/* ixgbe_i2c_read_once: n bytes of device dev from offset off: START, dev + write, off,
 * repeated START, dev + read, sequential reads, STOP. */
static bool ixgbe_i2c_read_once(struct nic_port *p, uint8_t dev, uint8_t off, uint8_t *buf,
                                unsigned n)
{
    bool ok = ixgbe_i2c_start(p) && ixgbe_i2c_send(p, dev) && ixgbe_i2c_send(p, off) &&
              ixgbe_i2c_start(p) && ixgbe_i2c_send(p, (uint8_t)(dev | 1));
    for (unsigned i = 0; ok && i < n; i++) {
        ok = ixgbe_i2c_recv(p, i + 1 < n, &buf[i]);
    }
    ixgbe_i2c_stop(p);
    return ok;
}

/* ixgbe_i2c_read: the same under this port's PHY semaphore (the management firmware may use
 * the bus too), tried twice with a bus clear (nine clocks, STOP) in between. */
static int ixgbe_i2c_read(struct nic_port *p, uint8_t dev, uint8_t off, uint8_t *buf, unsigned n)
{
    uint32_t sm = ixgbe_lan_id(p) ? IXGBE_GSSR_PHY1_SM : IXGBE_GSSR_PHY0_SM;
    if (!ixgbe_swfw_take(p, sm)) {
        return WS_ERR_TIMEDOUT;
    }
    bool ok = false, seen;
    for (unsigned t = 0; !ok && t < IXGBE_I2C_TRIES; t++) {
        ok = ixgbe_i2c_read_once(p, dev, off, buf, n);
        for (unsigned c = 0; !ok && c < 9; c++) {
            ixgbe_i2c_clock(p, true, &seen);
        }
        if (!ok) {
            ixgbe_i2c_stop(p);
        }
    }
    ixgbe_swfw_give(p, sm);
    return ok ? WS_OK : WS_ERR_NOT_FOUND;
}

/* ---- the module --------------------------------------------------------------------------- */

/* ixgbe_module_kind: the type a serial ID page describes (compliance codes, SFF-8472 §5). */
static enum ixgbe_module_kind ixgbe_module_kind(const uint8_t *id)
{
    if (id[SFF_IDENTIFIER] != SFF_IDENTIFIER_SFP) {
        return IXGBE_MOD_UNKNOWN;
    }
    if (id[SFF_CABLE] & SFF_CABLE_PASSIVE) {
        return IXGBE_MOD_DA_PASSIVE;
    }
    if (id[SFF_CABLE] & SFF_CABLE_ACTIVE) {
        return (id[SFF_CABLE_SPEC] & SFF_CABLE_SPEC_LIMITING) ? IXGBE_MOD_DA_ACTIVE
                                                               : IXGBE_MOD_UNKNOWN;
    }
    if (id[SFF_10G] & SFF_10G_SR) {
        return (id[SFF_1G] & SFF_1G_SX) ? IXGBE_MOD_SR_DUAL : IXGBE_MOD_SR;
    }
    if (id[SFF_10G] & SFF_10G_LR) {
        return (id[SFF_1G] & SFF_1G_LX) ? IXGBE_MOD_LR_DUAL : IXGBE_MOD_LR;
    }
    if (id[SFF_1G] & SFF_1G_T) {
        return IXGBE_MOD_1G_T;
    }
    if (id[SFF_1G] & SFF_1G_SX) {
        return IXGBE_MOD_1G_SX;
    }
    return (id[SFF_1G] & SFF_1G_LX) ? IXGBE_MOD_1G_LX : IXGBE_MOD_UNKNOWN;
}

/* A space-padded SFF string as C text: trailing spaces cut, anything unprintable as '?'. */
static void ixgbe_sff_string(char *out, const uint8_t *in)
{
    unsigned n = NIC_MEDIA_STR_BYTES - 1;
    for (unsigned i = 0; i < n; i++) {
        out[i] = in[i] >= 0x20 && in[i] < 0x7F ? (char)in[i] : '?';
    }
    while (n > 0 && out[n - 1] == ' ') {
        n--;
    }
    out[n] = '\0';
}

static bool ixgbe_sff_checksum_ok(const uint8_t *id)
{
    unsigned sum = 0;
    for (unsigned i = 0; i < SFF_CC_BASE; i++) {
        sum += id[i];
    }
    return (uint8_t)sum == id[SFF_CC_BASE];
}

/* A dual-rate module's rate select (SFF-8431 RS0, on SDP5): high for its 10G rate, low for
 * 1G. Single-rate modules ignore the pin; it is left alone for them, as Linux does. */
static void ixgbe_rate_select(struct nic_port *p, bool at_1g)
{
    uint32_t esdp = nic_rd(p, IXGBE_ESDP) | IXGBE_ESDP_SDP5_DIR;
    nic_wr(p, IXGBE_ESDP, at_1g ? esdp & ~IXGBE_ESDP_SDP5 : esdp | IXGBE_ESDP_SDP5);
}

static void ixgbe_laser(struct nic_port *p, bool on)
{
    uint32_t esdp = nic_rd(p, IXGBE_ESDP) | IXGBE_ESDP_SDP3_DIR;
    nic_wr(p, IXGBE_ESDP, on ? esdp & ~IXGBE_ESDP_SDP3 : esdp | IXGBE_ESDP_SDP3);
    p->media.laser_on = on;
}

/* ---- the NVM's init sequence -------------------------------------------------------------- */

/* ixgbe_nvm_sequence_at: the data pointer the NVM's init list gives SFP id `id`, or 0. */
static uint16_t ixgbe_nvm_sequence_at(struct nic_port *p, uint16_t id)
{
    uint16_t list, w, data;
    if (ixgbe_nvm_read(p, IXGBE_PHY_INIT_OFFSET_NL, &list) || list == 0 || list == 0xFFFF) {
        return 0;
    }
    for (unsigned i = 0; i < IXGBE_NVM_LIST_MAX; i++) {
        unsigned at = (unsigned)list + 1 + 2 * i; /* a header word, then {id, data} pairs */
        if (ixgbe_nvm_read(p, at, &w) || w == IXGBE_PHY_INIT_END_NL) {
            return 0;
        }
        if (w == id) {
            return ixgbe_nvm_read(p, at + 1, &data) || data == 0xFFFF ? 0 : data;
        }
    }
    return 0;
}

/* ixgbe_load_sequence: the NVM's init words for SFP id `id` into CORECTL (the analog core's
 * settings for this kind of module), under the MAC CSR semaphore. Returns the words written,
 * 0 if the NVM has none, or a negative WS_ERR_*. */
static int ixgbe_load_sequence(struct nic_port *p, uint16_t id)
{
    uint16_t data = ixgbe_nvm_sequence_at(p, id), w;
    if (data == 0) {
        return 0;
    }
    if (!ixgbe_swfw_take(p, IXGBE_GSSR_MAC_CSR_SM)) {
        return WS_ERR_TIMEDOUT;
    }
    int n = 0;
    for (unsigned i = 1; i <= IXGBE_NVM_LIST_MAX; i++) { /* the block's first word: a header */
        if (ixgbe_nvm_read(p, (unsigned)data + i, &w) || w == IXGBE_PHY_INIT_END_NL) {
            break;
        }
        nic_wr(p, IXGBE_CORECTL, w);
        n++;
    }
    ixgbe_swfw_give(p, IXGBE_GSSR_MAC_CSR_SM);
    return n;
}

/* ---- setting a module up ------------------------------------------------------------------ */

static void ixgbe_media_clear(struct nic_media *m)
{
    *m = (struct nic_media){ .cage = true, .laser_on = m->laser_on };
}

/* ixgbe_sfp_read_id: the module's base ID page, or a console line saying why not. */
static bool ixgbe_sfp_read_id(struct nic_port *p, uint8_t *id)
{
    if (ixgbe_i2c_read(p, SFF_DEV_A0, 0, id, SFF_ID_BYTES) != WS_OK) {
        kprintf("%s: SFP+ module present but silent on I2C (no answer at A0h): refused, laser "
                "off\n", p->name);
        return false;
    }
    if (!ixgbe_sff_checksum_ok(id)) {
        kprintf("%s: SFP+ module ID page fails its checksum (CC_BASE 0x%02x): refused, laser "
                "off\n", p->name, id[SFF_CC_BASE]);
        return false;
    }
    return true;
}

/* ixgbe_sfp_accept: record what the page says; false (with the console line) if the policy
 * refuses it. */
static bool ixgbe_sfp_accept(struct nic_port *p, const uint8_t *id, enum ixgbe_module_kind k)
{
    struct nic_media *m = &p->media;
    snprintf(m->kind, sizeof(m->kind), "%s", ixgbe_module_types[k].name);
    ixgbe_sff_string(m->vendor, &id[SFF_VENDOR]);
    ixgbe_sff_string(m->part, &id[SFF_PART]);
    memcpy(m->oui, &id[SFF_OUI], sizeof(m->oui));
    if (k != IXGBE_MOD_UNKNOWN || CONFIG_NIC_SFP_ANY) {
        return true;
    }
    kprintf("%s: SFP+ module of unknown type (identifier 0x%02x, 10G codes 0x%02x, 1G codes "
            "0x%02x, cable 0x%02x), %s %s: refused, laser off (nic.sfp_any = yes sets it up as "
            "a 10G optic)\n", p->name, id[SFF_IDENTIFIER], id[SFF_10G], id[SFF_1G],
            id[SFF_CABLE], m->vendor, m->part);
    return false;
}

/* ixgbe_sfp_mode: the link mode for a module at 10G (10G serial over SFI, AUTOC2's serial PMA
 * made SFI) or at 1G (clause 37 auto-negotiation over the 1G SFI PMA), in autoc. */
static void ixgbe_sfp_mode(struct nic_port *p, bool at_1g, uint32_t *autoc)
{
    *autoc &= ~IXGBE_AUTOC_LMS_MASK;
    if (at_1g) {
        *autoc = (*autoc & ~IXGBE_AUTOC_1G_PMA_PMD_MASK) | IXGBE_AUTOC_LMS_1G_AN;
        return;
    }
    *autoc |= IXGBE_AUTOC_LMS_10G_SERIAL;
    uint32_t autoc2 = nic_rd(p, IXGBE_AUTOC2);
    if ((autoc2 & IXGBE_AUTOC2_10G_SERIAL_PMA_PMD_MASK) != IXGBE_AUTOC2_10G_SFI) {
        nic_wr(p, IXGBE_AUTOC2,
               (autoc2 & ~IXGBE_AUTOC2_10G_SERIAL_PMA_PMD_MASK) | IXGBE_AUTOC2_10G_SFI);
    }
}

void ixgbe_sfp_setup(struct nic_port *p, uint32_t *autoc)
{
    struct nic_media *m = &p->media;
    uint8_t id[SFF_ID_BYTES];

    ixgbe_media_clear(m);
    if (!(nic_rd(p, IXGBE_ESDP) & IXGBE_ESDP_SDP2)) {
        kprintf("%s: SFP+ cage empty: no link until a module is inserted\n", p->name);
        return;
    }
    m->present = true;
    ixgbe_laser(p, false); /* dark until we know what it is */
    if (!ixgbe_sfp_read_id(p, id)) {
        m->refused = true;
        snprintf(m->kind, sizeof(m->kind), "unreadable");
        return;
    }
    enum ixgbe_module_kind k = ixgbe_module_kind(id);
    if (!ixgbe_sfp_accept(p, id, k)) {
        m->refused = true;
        return;
    }
    uint16_t sfp_id = (uint16_t)((k == IXGBE_MOD_DA_PASSIVE ? IXGBE_SFP_ID_DA_PASSIVE
                                                            : IXGBE_SFP_ID_OTHER) +
                                 ixgbe_lan_id(p));
    int words = ixgbe_load_sequence(p, sfp_id);
    m->dual_rate = k == IXGBE_MOD_SR_DUAL || k == IXGBE_MOD_LR_DUAL;
    m->at_1g = ixgbe_module_types[k].mbps == 1000;
    ixgbe_sfp_mode(p, m->at_1g, autoc);
    if (m->dual_rate) {
        ixgbe_rate_select(p, false); /* the higher rate first */
    }
    ixgbe_laser(p, true);
    m->setup_ns = time_ns();
    kprintf("%s: SFP+ module %s, %s %s (OUI %02x:%02x:%02x): %s Gb/s, NVM init sequence %u "
            "(%d words)%s\n", p->name, m->kind, m->vendor, m->part, m->oui[0], m->oui[1],
            m->oui[2], m->dual_rate ? "10 or 1" : m->at_1g ? "1" : "10",
            sfp_id, words < 0 ? 0 : words,
            k == IXGBE_MOD_UNKNOWN ? ", unknown type set up as a 10G optic (nic.sfp_any)" : "");
    if (words <= 0) {
        kprintf("%s: the NVM has no usable init sequence %u for this module (%s): the link may "
                "not come up\n", p->name, sfp_id, words < 0 ? "semaphore busy" : "not listed");
    }
}

/* ixgbe_sfp_try_other_rate: a dual-rate optic that has had no link for IXGBE_SFP_RATE_TRY_NS
 * (a peer that runs the other rate only) is set up for the other rate, and back again after as
 * long, until one links (what Linux's multispeed fiber setup does at each link setup). */
static void ixgbe_sfp_try_other_rate(struct nic_port *p)
{
    struct nic_media *m = &p->media;
    uint64_t now = time_ns();
    if (!m->dual_rate || m->refused || p->link_up || now - m->setup_ns < IXGBE_SFP_RATE_TRY_NS) {
        return;
    }
    m->at_1g = !m->at_1g;
    m->setup_ns = now;
    uint32_t autoc = nic_rd(p, IXGBE_AUTOC);
    ixgbe_sfp_mode(p, m->at_1g, &autoc);
    ixgbe_rate_select(p, m->at_1g);
    kprintf("%s: dual-rate SFP+ module: no link at %s Gb/s for %llu s; trying %s Gb/s\n",
            p->name, m->at_1g ? "10" : "1", IXGBE_SFP_RATE_TRY_NS / 1000000000ULL,
            m->at_1g ? "1" : "10");
    ixgbe_autoc_write(p, autoc);
}

/* ---- hot plug ----------------------------------------------------------------------------- */

void ixgbe_sfp_poll(struct nic_port *p)
{
    struct nic_media *m = &p->media;
    if (!m->cage) {
        return;
    }
    uint32_t esdp = nic_rd(p, IXGBE_ESDP);
    if (esdp == NIC_ALL_ONES) {
        return; /* gone: nic.c finds out */
    }
    bool present = (esdp & IXGBE_ESDP_SDP2) != 0;
    if (!present) {
        m->settle = 0;
        if (m->present) {
            p->module_events++;
            kprintf("%s: SFP+ module removed (%s %s %s)\n", p->name, m->kind, m->vendor,
                    m->part);
            ixgbe_laser(p, false); /* the next module stays dark until it is identified */
            ixgbe_media_clear(m);
        }
        return;
    }
    if (m->present) {
        ixgbe_sfp_try_other_rate(p);
        return;
    }
    if (++m->settle < IXGBE_SFP_SETTLE_POLLS) {
        return;
    }
    p->module_events++;
    kprintf("%s: SFP+ module inserted\n", p->name);
    uint32_t autoc = nic_rd(p, IXGBE_AUTOC);
    ixgbe_sfp_setup(p, &autoc);
    if (!m->refused) {
        ixgbe_autoc_write(p, autoc);
    }
}
