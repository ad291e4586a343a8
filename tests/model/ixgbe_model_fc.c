/*
 * tests/model/ixgbe_model_fc.c: IEEE 802.3x link flow control on the 82599 model (datasheet
 * 331520 rev 3.x, §3.7.7 and the registers of §8.2.3.3), one traffic class.
 *
 * MODELLED:
 *  - Receiving PAUSE (DA 01:80:C2:00:00:01, EtherType 0x8808, opcode 0x0001, pause time in
 *    quanta of 512 bit times): counted in LXOFFRXCNT (time > 0) or LXONRXCNT (time 0), never in
 *    GPRC, and consumed by the MAC unless MFLCN.PMCF passes MAC control frames on. With
 *    MFLCN.RFCE, an XOFF holds every TX queue for its pause time at the link's speed; an XON
 *    (or a later XOFF) replaces what was left. TX resumes by itself when the time is over.
 *  - Sending PAUSE (FCCFG.TFCE_802_3X and FCRTH[0].FCEN): when the RX packet buffer holds at
 *    least FCRTH[0]'s bytes, one XOFF with FCTTV[0]'s pause time; once it falls to FCRTL[0]'s
 *    bytes, one XON if FCRTL[0].XONE. Sent frames are 60 bytes from RAR[0]'s address, counted
 *    in LXOFFTXC/LXONTXC and, as the 82599 does (Linux subtracts them again), in GPTC, MPTC and
 *    GOTC.
 *
 * NOT MODELLED: priority flow control (PFC) and the other seven traffic classes, FCRTV's XOFF
 * refresh while the buffer stays full, flow-control auto-negotiation (PCS1GANA), the
 * interaction with DCB arbiters.
 */
#include <string.h>

#include "tests/model/ixgbe_model_int.h"

static const uint8_t ixm_pause_da[6] = { 0x01, 0x80, 0xC2, 0x00, 0x00, 0x01 };

static uint64_t ixm_quantum_ns_x10(const struct ixgbe_model *m)
{
    /* 512 bit times: 51.2 ns at 10 Gb/s, 512 ns at 1 Gb/s (in tenths of ns) */
    return ixm_sfp_links_speed(m) == IXM_LINKS_SPEED_1G ? 5120u : 512u;
}

/* ixm_fc_rx_pause: is f a PAUSE frame? Then it has been counted and acted on; true tells the
 * caller the MAC consumed it (unless PMCF passes it on: then false, and it goes on as data). */
bool ixm_fc_rx_pause(struct ixgbe_model *m, const uint8_t *f, size_t len)
{
    if (len < 18 || memcmp(f, ixm_pause_da, 6) != 0 ||
        (f[12] << 8 | f[13]) != IXM_PAUSE_ETHERTYPE || (f[14] << 8 | f[15]) != IXM_PAUSE_OPCODE) {
        return false;
    }
    uint32_t quanta = (uint32_t)f[16] << 8 | f[17];
    ixm_stat_add(m, quanta ? IXM_LXOFFRXCNT : IXM_LXONRXCNT, 1);
    if (ixm_reg(m, IXM_MFLCN) & IXM_MFLCN_RFCE) {
        bool was = ixm_fc_tx_paused(m);
        m->paused_until = quanta ? m->now + (quanta * ixm_quantum_ns_x10(m) + 9) / 10 : 0;
        if (was && !ixm_fc_tx_paused(m)) {
            ixm_tx_run_all(m);
        }
    }
    return !(ixm_reg(m, IXM_MFLCN) & IXM_MFLCN_PMCF);
}

bool ixm_fc_tx_paused(const struct ixgbe_model *m)
{
    return m->paused_until > m->now;
}

/* advance(): a pause that ran out lets TX go on. */
void ixm_fc_advance(struct ixgbe_model *m)
{
    if (m->paused_until != 0 && m->paused_until <= m->now) {
        m->paused_until = 0;
        ixm_tx_run_all(m);
    }
}

uint64_t ixm_fc_next_event(const struct ixgbe_model *m, uint64_t t)
{
    return m->paused_until != 0 && m->paused_until < t ? m->paused_until : t;
}

static void ixm_fc_send(struct ixgbe_model *m, uint16_t quanta)
{
    uint8_t f[IXM_MIN_FRAME] = { 0 };
    uint32_t ral = ixm_reg(m, IXM_RAL(0)), rah = ixm_reg(m, IXM_RAH(0));

    memcpy(f, ixm_pause_da, 6);
    for (unsigned i = 0; i < 4; i++) {
        f[6 + i] = (uint8_t)(ral >> (8 * i));
    }
    f[10] = (uint8_t)rah;
    f[11] = (uint8_t)(rah >> 8);
    f[12] = IXM_PAUSE_ETHERTYPE >> 8;
    f[13] = IXM_PAUSE_ETHERTYPE & 0xFF;
    f[15] = IXM_PAUSE_OPCODE;
    f[16] = (uint8_t)(quanta >> 8);
    f[17] = (uint8_t)quanta;
    ixm_stat_add(m, quanta ? IXM_LXOFFTXC : IXM_LXONTXC, 1);
    ixm_stat_add(m, IXM_GPTC, 1);
    ixm_stat_add(m, IXM_MPTC, 1);
    ixm_ctr36_add(&m->gotc, IXM_MIN_FRAME + IXM_FCS_BYTES);
    if (m->ops.tx_frame) {
        m->ops.tx_frame(m->ops.ctx, f, sizeof(f));
    }
}

/* ixm_fc_rx_buffer: the RX packet buffer's level changed: XOFF above RTH, XON below RTL. */
void ixm_fc_rx_buffer(struct ixgbe_model *m)
{
    uint32_t rth = ixm_reg(m, IXM_FCRTH(0)), rtl = ixm_reg(m, IXM_FCRTL(0));
    if (!(ixm_reg(m, IXM_FCCFG) & IXM_FCCFG_TFCE_802_3X) || !(rth & IXM_FCRTH_FCEN) ||
        !m->link_up) {
        m->xoff_sent = false;
        return;
    }
    if (!m->xoff_sent && m->pb_bytes >= (rth & IXM_FCRT_BYTES)) {
        m->xoff_sent = true;
        ixm_fc_send(m, (uint16_t)ixm_reg(m, IXM_FCTTV(0)));
    } else if (m->xoff_sent && m->pb_bytes <= (rtl & IXM_FCRT_BYTES)) {
        m->xoff_sent = false;
        if (rtl & IXM_FCRTL_XONE) {
            ixm_fc_send(m, 0);
        }
    }
}
