/*
 * tests/model/ixgbe_model_sfp.c: the SFP+ cage of an 82599 SFP+ board (X520-DA2 class, device
 * 0x10FB): the module's two-wire EEPROM on I2CCTL, the software-definable pins on ESDP, the
 * NVM's module init sequences written to CORECTL, and what the link needs of them. Registers
 * are the datasheet's (331520 rev 3.x, §8.2.3.1 ESDP and I2CCTL); module contents follow
 * SFF-8472 (serial ID at A0h); the NVM list and the pin roles follow how Linux 6.1's ixgbe uses
 * them (read for facts, not copied), since the datasheet leaves pin roles to the board.
 *
 * MODELLED:
 *  - I2C (I2CCTL: CLK_OUT/DATA_OUT written, CLK_IN/DATA_IN read; open drain, so DATA_IN is the
 *    AND of what master and slave drive; no clock stretching): START, STOP, device addresses A0h
 *    (serial ID) and A2h (diagnostics: all zero, A0h byte 92 says none), an offset write then a
 *    repeated START and sequential reads with ACK/NACK; writes are ACKed and ignored (read-only
 *    pages). An empty cage ACKs nothing, so SDA stays high.
 *  - ESDP: SDP2 reads 1 while a module is in the cage (an input); SDP3 drives the module's
 *    TX_DISABLE (laser off while SDP3 is an output driving 1, or an input: the module's own
 *    pull-up disables it); SDP5 is the rate select of a dual-rate module (an output driving 1:
 *    10G; otherwise 1G), which must agree with the link mode. ESDP keeps its value across CTRL.RST
 *    and LRST (the NVM sets SDP3/SDP5 as outputs at power-on only), so a laser a previous owner
 *    turned off stays off until a driver turns it on.
 *  - A presence change raises EICR.GPI_SDP2 when GPIE.SDP2_GPIEN is set.
 *  - The NVM's init list (word 0x2B points at it; pairs of SFP id and data pointer, ids in
 *    Linux's numbering: 3/4 passive DA on LAN 0/1, 5/6 SR/LR and everything else) with one
 *    sequence per id; the model tracks which sequence was last written to CORECTL in full.
 *  - What the link needs (checked when training would complete, and whenever it may have
 *    changed; any of them lost takes an up link down): a module present, its laser on, the
 *    mode its speed needs (10G modules: AUTOC.LMS 10G serial with AUTOC2 SFI; 1G modules: LMS
 *    1G with or without clause 37 AN, 1G PMA SFI), AUTOC2's link-disable bits clear, and the
 *    sequence the module needs: passive DA cables the DA one (id 3), every other known module
 *    the SR/LR one (id 5), except that SR and LR optics also link with none loaded (the analog
 *    defaults suit optics). LINKS reports 1G or 10G accordingly. A test may say the far end
 *    runs one speed only (ixgbe_model_set_peer_speed): the link then needs that speed too.
 *  - MMNGC.MNG_VETO (a board option): a link reset (CTRL.LRST, an AUTOC write) is then misuse.
 *
 * NOT MODELLED: clock stretching, A2h diagnostics values, writes to the module, soft rate
 * select (A2h byte 110), SDP1/SDP0 roles, the firmware side of SW_FW_SYNC,
 * LESM, the pipeline-reset errata, QSFP. The model's LAN ID is 0, so id 3 and 5 are the ones
 * that count; ids 4 and 6 are in the NVM for a driver that looks them up by LAN ID.
 */
#include <string.h>

#include "tests/model/ixgbe_model_int.h"

#define IXM_SFP_ID_DA_CORE0 3
#define IXM_SFP_ID_SRLR_CORE0 5
#define IXM_SEQ_WORDS 4u

/* The NVM's sequences (model values: what real NVMs write there is Intel's). */
static const struct {
    uint16_t id;
    uint16_t words[IXM_SEQ_WORDS];
} ixm_sequences[4] = {
    { 3, { 0x0B3C, 0x0C20, 0x0D45, 0x0E01 } },
    { 4, { 0x0B3D, 0x0C21, 0x0D46, 0x0E01 } },
    { 5, { 0x0B1C, 0x0C10, 0x0D25, 0x0E00 } },
    { 6, { 0x0B1D, 0x0C11, 0x0D26, 0x0E00 } },
};

/* ---- module images (SFF-8472 A0h) ------------------------------------------------------ */

struct ixm_module_desc {
    const char *name;   /* the QEMU property's spelling */
    const char *vendor; /* bytes 20..35 */
    uint8_t oui[3];     /* bytes 37..39 */
    const char *pn;     /* bytes 40..55 */
    uint8_t connector;  /* byte 2 */
    uint8_t comp_10g;   /* byte 3 */
    uint8_t comp_1g;    /* byte 6 */
    uint8_t cable;      /* byte 8: passive 0x04, active 0x08 */
    uint8_t rate;       /* byte 12, units of 100 MBd */
    uint8_t byte60;     /* wavelength high byte, or the cable's compliance (active: limiting) */
    bool is_1g;
    bool dual;          /* runs at 10G or 1G, as the rate select pin (SDP5) says */
};

static const struct ixm_module_desc ixm_modules[IXGBE_MODEL_MODULE_COUNT] = {
    [IXGBE_MODEL_MODULE_NONE] = { .name = "none" },
    [IXGBE_MODEL_MODULE_SR] = { "sr", "Intel Corp", { 0x00, 0x1B, 0x21 }, "WSM-10G-SR", 0x07,
                                0x10, 0, 0, 0x67, 0x03, false, false },
    [IXGBE_MODEL_MODULE_LR] = { "lr", "Intel Corp", { 0x00, 0x1B, 0x21 }, "WSM-10G-LR", 0x07,
                                0x20, 0, 0, 0x67, 0x05, false, false },
    [IXGBE_MODEL_MODULE_DA_PASSIVE] = { "da-passive", "WS Model Cables", { 0x02, 0x57, 0x53 },
                                        "WSM-DAC-3M", 0x21, 0, 0, 0x04, 0x67, 0x01, false, false },
    [IXGBE_MODEL_MODULE_DA_ACTIVE] = { "da-active", "WS Model Cables", { 0x02, 0x57, 0x53 },
                                       "WSM-ADAC-7M", 0x21, 0, 0, 0x08, 0x67, 0x04, false, false },
    [IXGBE_MODEL_MODULE_1G_SX] = { "1g-sx", "Intel Corp", { 0x00, 0x1B, 0x21 }, "WSM-1G-SX",
                                   0x07, 0, 0x01, 0, 0x0D, 0x03, true, false },
    [IXGBE_MODEL_MODULE_1G_LX] = { "1g-lx", "Intel Corp", { 0x00, 0x1B, 0x21 }, "WSM-1G-LX",
                                   0x07, 0, 0x02, 0, 0x0D, 0x05, true, false },
    [IXGBE_MODEL_MODULE_1G_T] = { "1g-t", "Intel Corp", { 0x00, 0x1B, 0x21 }, "WSM-1G-T", 0x22,
                                  0, 0x08, 0, 0x0D, 0x00, true, false },
    [IXGBE_MODEL_MODULE_UNKNOWN] = { "unknown", "NoName Optics", { 0x02, 0x4E, 0x4E },
                                     "NN-10G-??", 0x07, 0, 0, 0, 0x67, 0x06, false, false },
    [IXGBE_MODEL_MODULE_SR_DUAL] = { "sr-dual", "Intel Corp", { 0x00, 0x1B, 0x21 },
                                     "WSM-10G1G-SR", 0x07, 0x10, 0x01, 0, 0x67, 0x03, false,
                                     true },
};

static void ixm_put_str(uint8_t *at, size_t n, const char *s)
{
    size_t len = strlen(s);
    memset(at, ' ', n);
    memcpy(at, s, len < n ? len : n);
}

static uint8_t ixm_sum8(const uint8_t *b, unsigned from, unsigned to)
{
    unsigned sum = 0;
    for (unsigned i = from; i <= to; i++) {
        sum += b[i];
    }
    return (uint8_t)sum;
}

void ixgbe_model_module_image(enum ixgbe_model_module module, uint8_t *out)
{
    memset(out, 0, IXGBE_MODEL_MODULE_BYTES);
    if ((unsigned)module >= IXGBE_MODEL_MODULE_COUNT || module == IXGBE_MODEL_MODULE_NONE) {
        return;
    }
    const struct ixm_module_desc *d = &ixm_modules[module];
    out[0] = 0x03; /* identifier: SFP/SFP+ */
    out[1] = 0x04; /* extended identifier: serial ID defined by two-wire interface */
    out[2] = d->connector;
    out[3] = d->comp_10g;
    out[6] = d->comp_1g;
    out[8] = d->cable;
    out[11] = d->is_1g ? 0x01 : 0x06; /* encoding: 8B/10B or 64B/66B */
    out[12] = d->rate;
    out[18] = d->cable ? 3 : 0;       /* copper length, m */
    ixm_put_str(&out[20], 16, d->vendor);
    memcpy(&out[37], d->oui, 3);
    ixm_put_str(&out[40], 16, d->pn);
    ixm_put_str(&out[56], 4, "A");
    out[60] = d->byte60;
    out[61] = d->cable ? 0 : (d->byte60 == 0x03 ? 0x52 : 0x1E); /* 850 / 1310 nm */
    out[63] = ixm_sum8(out, 0, 62);   /* CC_BASE */
    out[65] = 0x1A;                   /* options: TX_DISABLE, TX_FAULT, LOS implemented */
    ixm_put_str(&out[68], 16, "WSM0001");
    ixm_put_str(&out[84], 8, "261202");
    out[95] = ixm_sum8(out, 64, 94);  /* CC_EXT; byte 92 = 0: no diagnostics at A2h */
}

const char *ixgbe_model_module_name(enum ixgbe_model_module module)
{
    return (unsigned)module < IXGBE_MODEL_MODULE_COUNT ? ixm_modules[module].name : NULL;
}

enum ixgbe_model_module ixgbe_model_module_by_name(const char *name)
{
    for (unsigned k = 0; name && k < IXGBE_MODEL_MODULE_COUNT; k++) {
        if (strcmp(ixm_modules[k].name, name) == 0) {
            return (enum ixgbe_model_module)k;
        }
    }
    return IXGBE_MODEL_MODULE_COUNT;
}

/* ---- the NVM's init list ------------------------------------------------------------- */

/* ixm_sfp_eeprom_list: the init list at word `at` (and its sequences after it), its pointer in
 * word 0x2B. Layout: a header word, {id, data pointer} pairs, the end mark; each sequence a
 * header word, its words, the end mark. The caller recomputes the checksum. */
void ixm_sfp_eeprom_list(uint16_t *eeprom, unsigned at)
{
    unsigned n = sizeof(ixm_sequences) / sizeof(ixm_sequences[0]);
    unsigned data = at + 2 + 2 * n;

    eeprom[IXM_EEPROM_PHY_INIT_PTR] = (uint16_t)at;
    eeprom[at] = (uint16_t)(2 * n);
    for (unsigned i = 0; i < n; i++, data += IXM_SEQ_WORDS + 2) {
        eeprom[at + 1 + 2 * i] = ixm_sequences[i].id;
        eeprom[at + 2 + 2 * i] = (uint16_t)data;
        eeprom[data] = IXM_SEQ_WORDS;
        memcpy(&eeprom[data + 1], ixm_sequences[i].words, sizeof(ixm_sequences[i].words));
        eeprom[data + 1 + IXM_SEQ_WORDS] = IXM_EEPROM_LIST_END;
    }
    eeprom[at + 1 + 2 * n] = IXM_EEPROM_LIST_END;
}

/* A CORECTL write: advance each sequence's match; one matched in full is the loaded one. */
static void ixm_corectl_write(struct ixgbe_model *m, uint32_t val)
{
    struct ixm_sfp *s = &m->sfp;
    for (unsigned i = 0; i < sizeof(ixm_sequences) / sizeof(ixm_sequences[0]); i++) {
        const uint16_t *w = ixm_sequences[i].words;
        s->seq_pos[i] = val == w[s->seq_pos[i]] ? s->seq_pos[i] + 1 : (val == w[0] ? 1u : 0u);
        if (s->seq_pos[i] == IXM_SEQ_WORDS) {
            s->seq_loaded = ixm_sequences[i].id;
            s->seq_pos[i] = 0;
        }
    }
}

/* ---- what the link needs ------------------------------------------------------------- */

static bool ixm_module_present(const struct ixgbe_model *m)
{
    return m->sfp.cage && m->sfp.module != IXGBE_MODEL_MODULE_NONE;
}

bool ixgbe_model_laser_on(const struct ixgbe_model *m)
{
    uint32_t esdp = ixm_reg(m, IXM_ESDP);
    return ixm_module_present(m) && (esdp & IXM_ESDP_SDP_DIR(3)) && !(esdp & IXM_ESDP_SDP3);
}

int ixgbe_model_sfp_sequence(const struct ixgbe_model *m)
{
    return m->sfp.seq_loaded;
}

static bool ixm_lms_is_1g(uint32_t autoc)
{
    uint32_t lms = autoc & IXM_AUTOC_LMS_MASK;
    return lms == IXM_AUTOC_LMS_1G_NO_AN || lms == IXM_AUTOC_LMS_1G_AN;
}

/* A dual-rate module's rate select (RS0 on SDP5): driven high, full (10G) bandwidth; low or
 * not driven (the module's pull-down), 1G. */
static bool ixm_rate_select_10g(const struct ixgbe_model *m)
{
    uint32_t esdp = ixm_reg(m, IXM_ESDP);
    return (esdp & IXM_ESDP_SDP_DIR(5)) && (esdp & IXM_ESDP_SDP5);
}

static bool ixm_mode_fits(const struct ixgbe_model *m)
{
    uint32_t autoc = ixm_reg(m, IXM_AUTOC), autoc2 = ixm_reg(m, IXM_AUTOC2);
    if (ixm_modules[m->sfp.module].dual && ixm_lms_is_1g(autoc) == ixm_rate_select_10g(m)) {
        return false; /* the optic runs at the other rate */
    }
    if (ixm_modules[m->sfp.module].is_1g ||
        (ixm_modules[m->sfp.module].dual && !ixm_rate_select_10g(m))) {
        return ixm_lms_is_1g(autoc) && !(autoc & IXM_AUTOC_1G_PMA_KX);
    }
    return (autoc & IXM_AUTOC_LMS_MASK) == IXM_AUTOC_LMS_10G_SERIAL &&
           (autoc2 & IXM_AUTOC2_10G_PMA_MASK) == IXM_AUTOC2_10G_SFI;
}

static bool ixm_sequence_fits(const struct ixgbe_model *m)
{
    enum ixgbe_model_module k = m->sfp.module;
    int need = k == IXGBE_MODEL_MODULE_DA_PASSIVE ? IXM_SFP_ID_DA_CORE0 : IXM_SFP_ID_SRLR_CORE0;
    bool optic = k == IXGBE_MODEL_MODULE_SR || k == IXGBE_MODEL_MODULE_LR ||
                 k == IXGBE_MODEL_MODULE_SR_DUAL || k == IXGBE_MODEL_MODULE_UNKNOWN;
    return m->sfp.seq_loaded == need || (optic && m->sfp.seq_loaded < 0);
}

/* ixm_sfp_link_ok: may the link come up (or stay up) now? Always, on a board without a cage,
 * apart from AUTOC2's link-disable bits. */
bool ixm_sfp_link_ok(const struct ixgbe_model *m)
{
    if (ixm_reg(m, IXM_AUTOC2) & IXM_AUTOC2_LINK_DISABLE_MASK) {
        return false;
    }
    if (m->sfp.peer_mbps != 0 &&
        m->sfp.peer_mbps != (ixm_sfp_links_speed(m) == IXM_LINKS_SPEED_1G ? 1000u : 10000u)) {
        return false; /* the far end runs another speed */
    }
    return !m->sfp.cage ||
           (ixgbe_model_laser_on(m) && ixm_mode_fits(m) && ixm_sequence_fits(m));
}

uint32_t ixm_sfp_links_speed(const struct ixgbe_model *m)
{
    return ixm_lms_is_1g(ixm_reg(m, IXM_AUTOC)) ? IXM_LINKS_SPEED_1G : IXM_LINKS_SPEED_10G;
}

bool ixm_mng_veto_refuses(struct ixgbe_model *m, const char *what)
{
    if (!m->sfp.mng_veto) {
        return false;
    }
    ixm_misuse(m, "%s while MMNGC.MNG_VETO is set: the management firmware forbids link resets",
               what);
    return true;
}

/* ---- I2C slave ----------------------------------------------------------------------- */

static uint8_t ixm_i2c_byte(struct ixgbe_model *m)
{
    struct ixm_sfp *s = &m->sfp;
    uint8_t b = s->device == 0x51 ? s->a2[s->offset] : s->a0[s->offset];
    s->offset++; /* wraps at 256, as a single-page EEPROM does */
    return b;
}

static void ixm_i2c_start_byte_out(struct ixgbe_model *m)
{
    struct ixm_sfp *s = &m->sfp;
    s->shift = ixm_i2c_byte(m);
    s->bits = 0;
    s->state = IXM_I2C_READ;
    s->sda_slave = (s->shift & 0x80) != 0;
}

/* A byte shifted in completely (after its eighth rising edge), at the falling edge. */
static void ixm_i2c_byte_in(struct ixgbe_model *m)
{
    struct ixm_sfp *s = &m->sfp;
    uint8_t b = s->shift;

    switch (s->state) {
    case IXM_I2C_ADDR:
        if (!ixm_module_present(m) || ((b >> 1) != 0x50 && (b >> 1) != 0x51)) {
            s->state = IXM_I2C_IDLE; /* not ours: no ACK, wait for the next START */
            return;
        }
        s->device = b >> 1;
        s->after_ack = (b & 1) ? IXM_I2C_READ : IXM_I2C_OFFSET;
        break;
    case IXM_I2C_OFFSET:
        s->offset = b;
        s->after_ack = IXM_I2C_WRITE;
        break;
    default: /* IXM_I2C_WRITE: the pages are read-only; the byte is taken and dropped */
        s->after_ack = IXM_I2C_WRITE;
        break;
    }
    s->state = IXM_I2C_ACK_OUT;
    s->sda_slave = false;
}

static void ixm_i2c_scl_rise(struct ixgbe_model *m, bool sda)
{
    struct ixm_sfp *s = &m->sfp;
    switch (s->state) {
    case IXM_I2C_ADDR:
    case IXM_I2C_OFFSET:
    case IXM_I2C_WRITE:
        s->shift = (uint8_t)(s->shift << 1 | (sda ? 1 : 0));
        s->bits++;
        break;
    case IXM_I2C_READ:
        s->bits++;
        break;
    case IXM_I2C_ACK_IN:
        s->master_acked = !sda;
        break;
    default:
        break;
    }
}

static void ixm_i2c_scl_fall(struct ixgbe_model *m)
{
    struct ixm_sfp *s = &m->sfp;
    switch (s->state) {
    case IXM_I2C_ADDR:
    case IXM_I2C_OFFSET:
    case IXM_I2C_WRITE:
        if (s->bits == 8) {
            ixm_i2c_byte_in(m);
        }
        break;
    case IXM_I2C_ACK_OUT: /* the ACK clock is over */
        s->sda_slave = true;
        s->bits = 0;
        s->shift = 0;
        if (s->after_ack == IXM_I2C_READ) {
            ixm_i2c_start_byte_out(m);
        } else {
            s->state = s->after_ack;
        }
        break;
    case IXM_I2C_READ:
        if (s->bits == 8) {
            s->sda_slave = true; /* release SDA for the master's ACK */
            s->state = IXM_I2C_ACK_IN;
        } else {
            s->sda_slave = (s->shift >> (7 - s->bits) & 1) != 0;
        }
        break;
    case IXM_I2C_ACK_IN:
        if (s->master_acked) {
            ixm_i2c_start_byte_out(m); /* sequential read: the next byte */
        } else {
            s->state = IXM_I2C_IDLE; /* NACK: the master sends STOP next */
        }
        break;
    default:
        break;
    }
}

static void ixm_i2cctl_write(struct ixgbe_model *m, uint32_t val)
{
    struct ixm_sfp *s = &m->sfp;
    bool scl = (val & IXM_I2CCTL_CLK_OUT) != 0, sda = (val & IXM_I2CCTL_DATA_OUT) != 0;

    m->regs[IXM_I2CCTL / 4] = val & (IXM_I2CCTL_CLK_OUT | IXM_I2CCTL_DATA_OUT);
    if (s->scl && scl && sda != s->sda_master) {
        /* SDA moving while SCL is high: START (falling) or STOP (rising) */
        s->state = sda ? IXM_I2C_IDLE : IXM_I2C_ADDR;
        s->bits = 0;
        s->shift = 0;
        s->sda_slave = true;
    } else if (!s->scl && scl) {
        ixm_i2c_scl_rise(m, sda && s->sda_slave);
    } else if (s->scl && !scl) {
        ixm_i2c_scl_fall(m);
    }
    s->scl = scl;
    s->sda_master = sda;
}

/* ---- registers ----------------------------------------------------------------------- */

bool ixm_sfp_read(const struct ixgbe_model *m, uint32_t off, uint32_t *val)
{
    const struct ixm_sfp *s = &m->sfp;
    uint32_t v = ixm_reg(m, off);

    switch (off) {
    case IXM_ESDP:
        if (s->cage && !(v & IXM_ESDP_SDP_DIR(2))) {
            v = (v & ~IXM_ESDP_SDP2) | (ixm_module_present(m) ? IXM_ESDP_SDP2 : 0);
        }
        *val = v;
        return true;
    case IXM_I2CCTL:
        *val = v | (s->scl ? IXM_I2CCTL_CLK_IN : 0) |
               (s->sda_master && s->sda_slave ? IXM_I2CCTL_DATA_IN : 0);
        return true;
    case IXM_MMNGC:
        *val = s->mng_veto ? IXM_MMNGC_MNG_VETO : 0;
        return true;
    default:
        return false;
    }
}

bool ixm_sfp_write(struct ixgbe_model *m, uint32_t off, uint32_t val)
{
    switch (off) {
    case IXM_ESDP:
        m->regs[off / 4] = val;
        ixm_link_recheck(m, true); /* the laser may have come on or gone off */
        return true;
    case IXM_I2CCTL:
        ixm_i2cctl_write(m, val);
        return true;
    case IXM_CORECTL:
        m->regs[off / 4] = val;
        ixm_corectl_write(m, val);
        return true;
    case IXM_MMNGC:
        return true; /* read-only: the firmware's */
    case IXM_AUTOC2:
        m->regs[off / 4] = val;
        ixm_link_recheck(m, false); /* link-disable set drops the link; clearing waits for AN */
        return true;
    default:
        return false;
    }
}

/* ---- the cage ------------------------------------------------------------------------ */

void ixm_sfp_init(struct ixgbe_model *m, const struct ixgbe_model_config *cfg)
{
    struct ixm_sfp *s = &m->sfp;

    memset(s, 0, sizeof(*s));
    s->cage = cfg->sfp_cage;
    s->mng_veto = cfg->mng_veto;
    s->seq_loaded = -1;
    s->scl = s->sda_master = s->sda_slave = true;
    if (s->cage) {
        /* NVM-loaded at power-on: SDP3 (TX_DISABLE) and SDP5 (rate select) are outputs */
        m->regs[IXM_ESDP / 4] = IXM_ESDP_SDP_DIR(3) | IXM_ESDP_SDP_DIR(5) |
                                (cfg->laser_off ? IXM_ESDP_SDP3 : 0);
        s->module = (unsigned)cfg->module < IXGBE_MODEL_MODULE_COUNT ? cfg->module
                                                                      : IXGBE_MODEL_MODULE_NONE;
        ixgbe_model_module_image(s->module, s->a0);
    }
}

void ixgbe_model_set_module(struct ixgbe_model *m, enum ixgbe_model_module module)
{
    struct ixm_sfp *s = &m->sfp;

    if (!s->cage || (unsigned)module >= IXGBE_MODEL_MODULE_COUNT || module == s->module) {
        return;
    }
    s->module = module;
    ixgbe_model_module_image(module, s->a0);
    s->state = IXM_I2C_IDLE;
    s->sda_slave = true;
    if (ixm_reg(m, IXM_GPIE) & IXM_GPIE_SDP2_GPIEN) {
        ixm_irq_other_event(m, IXM_EICR_GPI_SDP2); /* a removal, an insertion, or both */
    }
    ixm_link_recheck(m, true);
}

enum ixgbe_model_module ixgbe_model_module(const struct ixgbe_model *m)
{
    return m->sfp.module;
}

void ixgbe_model_set_peer_speed(struct ixgbe_model *m, uint32_t mbps)
{
    m->sfp.peer_mbps = mbps;
    ixm_link_recheck(m, true);
}

void ixgbe_model_module_corrupt(struct ixgbe_model *m)
{
    m->sfp.a0[20] ^= 0x20; /* the vendor name's first letter; CC_BASE no longer matches */
}
