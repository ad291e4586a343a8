/*
 * tests/unit/test_ixgbe_model.c: the 82599 device model (tests/model) driven directly by tiny
 * hand-written register sequences, not by a driver: reset and init status, faults, queue enable
 * latching, RX write-back, RSS (Microsoft Toeplitz verification vectors, RETA), missed frames
 * and the packet buffer, TX and DD write-back, MSI-X through IVAR with EIMS/EIMC, EIAC/EIAM,
 * EITR and the vector-control mask, clear-on-read and 36-bit statistics, misuse detection.
 * Register offsets here are the test's own (Linux-compatible addresses, including the
 * 82598-style aliases Linux uses for SRRCTL/RAL/MRQC/RETA/RSSRK), not the model's macros.
 * Build: gcc -std=gnu11 -g -O1 -Wall -Wextra -Werror -fsanitize=address,undefined
 *        -fno-sanitize-recover=all -I. tests/unit/test_ixgbe_model.c tests/model/ixgbe_model.c
 *        tests/model/ixgbe_model_queue.c tests/model/ixgbe_model_irq.c
 *        tests/model/ixgbe_model_rx.c tests/model/ixgbe_model_tx.c -lcmocka
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/model/ixgbe_model.h"
#include "tests/model/ixgbe_model_int.h" /* white-box: ixm_rss_hash, 36-bit counter state */

/* ---- the test's register map (82599 datasheet ch. 8; Linux ixgbe_type.h addresses) ---- */
#define T_CTRL 0x00000
#define T_CTRL_GIO_DIS 0x4u
#define T_CTRL_LRST 0x8u
#define T_CTRL_RST 0x04000000u
#define T_STATUS 0x00008
#define T_STATUS_GIO 0x00080000u
#define T_EEC 0x10010
#define T_EEC_PRES 0x100u
#define T_EEC_ARD 0x200u
#define T_EICR 0x00800
#define T_EICS 0x00808
#define T_EIAC 0x00810
#define T_EITR(n) (0x00820 + 4 * (n))
#define T_EIMS 0x00880
#define T_EIMC 0x00888
#define T_GPIE 0x00898
#define T_GPIE_MSIX 0x10u
#define T_GPIE_OCD 0x20u
#define T_GPIE_EIAME 0x40000000u
#define T_GPIE_PBA 0x80000000u
#define T_IVAR(n) (0x00900 + 4 * (n))
#define T_IVAR_MISC 0x00A00
#define T_EIMS_EX(i) (0x00AA0 + 4 * (i))
#define T_EIAM_EX(i) (0x00AD0 + 4 * (i))
#define T_EICR_LSC 0x00100000u
#define T_EICR_RX_MISS 0x00020000u
#define T_RDBAL(q) (0x01000 + 0x40 * (q))
#define T_RDBAH(q) (0x01004 + 0x40 * (q))
#define T_RDLEN(q) (0x01008 + 0x40 * (q))
#define T_RDH(q) (0x01010 + 0x40 * (q))
#define T_RDT(q) (0x01018 + 0x40 * (q))
#define T_RXDCTL(q) (0x01028 + 0x40 * (q))
#define T_RXDCTL_ENABLE 0x02000000u
#define T_SRRCTL(q) (0x02100 + 4 * (q)) /* the alias Linux uses for queues 0..15 */
#define T_SRRCTL_Q16 (0x01014 + 0x40 * 16)
#define T_SRRCTL_ADV1 0x02000000u
#define T_SRRCTL_DROP_EN 0x10000000u
#define T_RDRXCTL 0x02F00
#define T_RDRXCTL_DMAIDONE 0x8u
#define T_RXCTRL 0x03000
#define T_RXPBSIZE0 0x03C00
#define T_MPC0 0x03FA0
#define T_GPRC 0x04074
#define T_BPRC 0x04078
#define T_GPTC 0x04080
#define T_GORCL 0x04088
#define T_GORCH 0x0408C
#define T_GOTCL 0x04090
#define T_RUC 0x040A4
#define T_HLREG0 0x04240
#define T_HLREG0_JUMBOEN 0x4u
#define T_MAXFRS 0x04268
#define T_AUTOC 0x042A0
#define T_AUTOC_RESTART_AN 0x1000u
#define T_LINKS 0x042A4
#define T_LINKS_UP 0x40000000u
#define T_LINKS_10G 0x30000000u
#define T_DMATXCTL 0x04A80
#define T_RXCSUM 0x05000
#define T_RXCSUM_PCSD 0x2000u
#define T_FCTRL 0x05080
#define T_FCTRL_MPE 0x100u
#define T_FCTRL_UPE 0x200u
#define T_FCTRL_BAM 0x400u
#define T_MCSTCTRL 0x05090
#define T_MTA(n) (0x05200 + 4 * (n))
#define T_RAL0 0x05400
#define T_RAH0 0x05404
#define T_MRQC 0x05818
#define T_MRQC_RSS 0x1u
#define T_MRQC_TCPV4 0x00010000u
#define T_MRQC_IPV4 0x00020000u
#define T_MRQC_UDPV4 0x00400000u
#define T_RETA(n) (0x05C00 + 4 * (n))
#define T_RSSRK(n) (0x05C80 + 4 * (n))
#define T_TDBAL(q) (0x06000 + 0x40 * (q))
#define T_TDBAH(q) (0x06004 + 0x40 * (q))
#define T_TDLEN(q) (0x06008 + 0x40 * (q))
#define T_TDH(q) (0x06010 + 0x40 * (q))
#define T_TDT(q) (0x06018 + 0x40 * (q))
#define T_TXDCTL(q) (0x06028 + 0x40 * (q))
#define T_TXDCTL_ENABLE 0x02000000u
#define T_QPRC(n) (0x01030 + 0x40 * (n))
#define T_QPRDC(n) (0x01430 + 0x40 * (n))
#define T_QPTC(n) (0x06030 + 0x40 * (n))
#define T_RQSMR(n) (0x02300 + 4 * (n))
#define T_PBA 0x2000
#define T_MSIX_CTRL(v) (16 * (v) + 12)

/* ---- fixture: host memory, clock, callbacks -------------------------------------------- */
#define MEM_BASE 0x100000000ull /* above 4 GiB, so RDBAH/TDBAH matter */
#define MEM_SIZE (1u << 20)
#define RX_RING(q) (MEM_BASE + 0x1000u * (q))
#define RX_BUF(q, i) (MEM_BASE + 0x20000u + 0x10000u * (q) + 0x1000u * (i))
#define TX_RING(q) (MEM_BASE + 0x80000u + 0x1000u * (q))
#define TX_BUF(i) (MEM_BASE + 0xA0000u + 0x1000u * (i))
#define MAX_LOG 64

static const uint8_t MAC0[6] = {0x00, 0x1b, 0x21, 0x0a, 0x0b, 0x0c};
static const uint8_t BCAST[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

struct fx {
    struct ixgbe_model *m;
    uint8_t *mem;
    uint64_t now;
    unsigned vec[MAX_LOG];
    unsigned nvec;
    uint8_t tx[MAX_LOG][2048];
    size_t txlen[MAX_LOG];
    unsigned ntx;
    unsigned misuse;
    char msg[256];
    bool expect_misuse;
    void (*on_notify)(struct fx *f, unsigned v);                   /* re-entrancy tests */
    void (*on_tx)(struct fx *f, const uint8_t *frame, size_t len);
};

static int fx_dma_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    struct fx *f = ctx;

    if (addr < MEM_BASE || addr - MEM_BASE > MEM_SIZE || len > MEM_SIZE - (addr - MEM_BASE)) {
        return -1;
    }
    memcpy(buf, f->mem + (addr - MEM_BASE), len);
    return 0;
}

static int fx_dma_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    struct fx *f = ctx;

    if (addr < MEM_BASE || addr - MEM_BASE > MEM_SIZE || len > MEM_SIZE - (addr - MEM_BASE)) {
        return -1;
    }
    memcpy(f->mem + (addr - MEM_BASE), buf, len);
    return 0;
}

static void fx_notify(void *ctx, unsigned v)
{
    struct fx *f = ctx;

    assert_true(f->nvec < MAX_LOG);
    f->vec[f->nvec++] = v;
    if (f->on_notify) {
        f->on_notify(f, v);
    }
}

static void fx_tx(void *ctx, const uint8_t *frame, size_t len)
{
    struct fx *f = ctx;

    assert_true(f->ntx < MAX_LOG && len <= sizeof(f->tx[0]));
    memcpy(f->tx[f->ntx], frame, len);
    f->txlen[f->ntx++] = len;
    if (f->on_tx) {
        f->on_tx(f, frame, len);
    }
}

static void fx_misuse(void *ctx, const char *msg)
{
    struct fx *f = ctx;

    f->misuse++;
    snprintf(f->msg, sizeof(f->msg), "%s", msg);
    if (!f->expect_misuse) {
        fail_msg("unexpected misuse: %s", msg);
    }
}

static int fx_setup(void **state)
{
    struct fx *f = calloc(1, sizeof(*f));
    struct ixgbe_model_ops ops = {fx_dma_read, fx_dma_write, fx_notify, fx_tx, fx_misuse, f};

    assert_non_null(f);
    f->mem = calloc(1, MEM_SIZE);
    assert_non_null(f->mem);
    f->m = ixgbe_model_new(&ops, MAC0);
    assert_non_null(f->m);
    *state = f;
    return 0;
}

static int fx_teardown(void **state)
{
    struct fx *f = *state;

    ixgbe_model_free(f->m);
    free(f->mem);
    free(f);
    return 0;
}

static uint32_t rd(struct fx *f, uint32_t off)
{
    return ixgbe_model_read(f->m, IXGBE_MODEL_BAR_REGS, off);
}

static void wr(struct fx *f, uint32_t off, uint32_t v)
{
    ixgbe_model_write(f->m, IXGBE_MODEL_BAR_REGS, off, v);
}

static void wr_msix(struct fx *f, uint32_t off, uint32_t v)
{
    ixgbe_model_write(f->m, IXGBE_MODEL_BAR_MSIX, off, v);
}

static void adv(struct fx *f, uint64_t ns)
{
    f->now += ns;
    ixgbe_model_advance(f->m, f->now);
}

static void *hostp(struct fx *f, uint64_t addr)
{
    return f->mem + (addr - MEM_BASE);
}

static uint32_t mem32(struct fx *f, uint64_t addr)
{
    uint32_t v;

    memcpy(&v, hostp(f, addr), 4);
    return v;
}

static void put64(struct fx *f, uint64_t addr, uint64_t v)
{
    memcpy(hostp(f, addr), &v, 8);
}

/* Expect exactly one misuse report from the calls in between, with text containing `what`. */
#define EXPECT_MISUSE(f, what, stmt)                                                           \
    do {                                                                                       \
        unsigned before_ = (f)->misuse;                                                        \
        (f)->expect_misuse = true;                                                             \
        stmt;                                                                                  \
        (f)->expect_misuse = false;                                                            \
        assert_int_equal((f)->misuse, before_ + 1);                                            \
        if (!strstr((f)->msg, (what))) {                                                       \
            fail_msg("misuse message '%s' lacks '%s'", (f)->msg, (what));                      \
        }                                                                                      \
    } while (0)

/* ---- tiny register sequences (§4.6.3, §4.6.7, §4.6.8) ---------------------------------- */

/* Reset the port and wait for reset, EEPROM auto-read, DMA init and link. */
static void bring_up(struct fx *f)
{
    wr(f, T_CTRL, T_CTRL_RST);
    adv(f, IXGBE_MODEL_RESET_NS);
    assert_int_equal(rd(f, T_CTRL) & T_CTRL_RST, 0);
    adv(f, IXGBE_MODEL_DMA_INIT_NS);
    assert_true(rd(f, T_EEC) & T_EEC_ARD);
    assert_true(rd(f, T_RDRXCTL) & T_RDRXCTL_DMAIDONE);
    wr(f, T_AUTOC, rd(f, T_AUTOC) | T_AUTOC_RESTART_AN);
    adv(f, IXGBE_MODEL_LINK_UP_NS);
    assert_true(rd(f, T_LINKS) & T_LINKS_UP);
    (void)rd(f, T_EICR); /* drop the LSC causes of the bring-up */
}

/* RX queue q: ring of n descriptors, buffers of kb KiB, all descriptors posted. */
static void rx_setup(struct fx *f, unsigned q, unsigned n, unsigned kb, uint32_t srr_extra)
{
    wr(f, T_RDBAL(q), (uint32_t)RX_RING(q));
    wr(f, T_RDBAH(q), (uint32_t)(RX_RING(q) >> 32));
    wr(f, T_RDLEN(q), n * 16);
    wr(f, q < 16 ? T_SRRCTL(q) : T_SRRCTL_Q16, kb | T_SRRCTL_ADV1 | srr_extra);
    wr(f, T_RDH(q), 0);
    wr(f, T_RDT(q), 0);
    wr(f, T_RXDCTL(q), T_RXDCTL_ENABLE);
    assert_int_equal(rd(f, T_RXDCTL(q)) & T_RXDCTL_ENABLE, 0); /* not latched yet */
    adv(f, 1);
    assert_true(rd(f, T_RXDCTL(q)) & T_RXDCTL_ENABLE);
    for (unsigned i = 0; i < n; i++) {
        put64(f, RX_RING(q) + 16 * i, RX_BUF(q, i));
        put64(f, RX_RING(q) + 16 * i + 8, 0);
    }
    wr(f, T_RDT(q), n - 1); /* one slot stays empty: head == tail means none free */
    wr(f, T_RXCTRL, 1);
}

static void tx_setup(struct fx *f, unsigned q, unsigned n)
{
    wr(f, T_DMATXCTL, 1);
    wr(f, T_TDBAL(q), (uint32_t)TX_RING(q));
    wr(f, T_TDBAH(q), (uint32_t)(TX_RING(q) >> 32));
    wr(f, T_TDLEN(q), n * 16);
    wr(f, T_TDH(q), 0);
    wr(f, T_TDT(q), 0);
    wr(f, T_TXDCTL(q), T_TXDCTL_ENABLE | (1u << 16)); /* WTHRESH 1 */
    adv(f, 1);
    assert_true(rd(f, T_TXDCTL(q)) & T_TXDCTL_ENABLE);
}

/* An advanced TX data descriptor (§7.2.3.2.4). */
static void tx_desc(struct fx *f, unsigned q, unsigned i, uint64_t buf, uint32_t len,
                    bool eop, bool rs, uint32_t paylen)
{
    uint32_t cmd = len | 0x00300000u /* DTYP data */ | 0x20000000u /* DEXT */ |
                   0x02000000u /* IFCS */ | (eop ? 0x01000000u : 0) | (rs ? 0x08000000u : 0);
    uint64_t hi = (uint64_t)(paylen << 14) << 32 | cmd;

    put64(f, TX_RING(q) + 16 * i, buf);
    put64(f, TX_RING(q) + 16 * i + 8, hi);
}

/* Ethernet + IPv4 + TCP/UDP frame; returns its length (payload bytes after the L4 header). */
static size_t mk_ip4(uint8_t *b, const uint8_t *dst, const uint8_t sip[4], const uint8_t dip[4],
                     uint16_t sport, uint16_t dport, uint8_t proto, size_t payload)
{
    size_t l4 = proto == 6 ? 20 : 8;
    size_t len = 14 + 20 + l4 + payload;

    memset(b, 0, len);
    memcpy(b, dst, 6);
    memcpy(b + 6, (uint8_t[6]){0x02, 0, 0, 0, 0, 0x99}, 6);
    b[12] = 0x08;
    b[14] = 0x45;
    b[16] = (uint8_t)((len - 14) >> 8);
    b[17] = (uint8_t)(len - 14);
    b[22] = 64;
    b[23] = proto;
    memcpy(b + 26, sip, 4);
    memcpy(b + 30, dip, 4);
    b[34] = (uint8_t)(sport >> 8);
    b[35] = (uint8_t)sport;
    b[36] = (uint8_t)(dport >> 8);
    b[37] = (uint8_t)dport;
    for (size_t i = 14 + 20 + l4; i < len; i++) {
        b[i] = (uint8_t)i;
    }
    return len;
}

static size_t mk_plain(uint8_t *b, const uint8_t *dst, size_t len)
{
    memset(b, 0, len);
    memcpy(b, dst, 6);
    b[12] = 0x88;
    b[13] = 0xb5; /* local experimental EtherType: not IP */
    for (size_t i = 14; i < len; i++) {
        b[i] = (uint8_t)(i * 7);
    }
    return len;
}

/* ---- reset, init status, link --------------------------------------------------------- */

static void test_power_on_state(void **state)
{
    struct fx *f = *state;

    assert_int_equal(rd(f, T_EEC) & (T_EEC_PRES | T_EEC_ARD), T_EEC_PRES | T_EEC_ARD);
    assert_true(rd(f, T_RDRXCTL) & T_RDRXCTL_DMAIDONE);
    assert_int_equal(rd(f, T_STATUS) & T_STATUS_GIO, T_STATUS_GIO);
    assert_int_equal(rd(f, T_RAL0), 0x0a211b00u); /* MAC from the "EEPROM", little-endian */
    assert_int_equal(rd(f, T_RAH0), 0x80000c0bu); /* ... with Address Valid */
    assert_int_equal(rd(f, T_SRRCTL(3)), 0x402u);  /* 2 KiB packet, 256 B header buffers */
    assert_int_equal(rd(f, T_LINKS) & T_LINKS_UP, 0);
    adv(f, IXGBE_MODEL_LINK_UP_NS);
    assert_int_equal(rd(f, T_LINKS) & (T_LINKS_UP | T_LINKS_10G), T_LINKS_UP | T_LINKS_10G);
    assert_true(rd(f, T_EICR) & T_EICR_LSC);
    assert_int_equal(rd(f, T_EICR) & T_EICR_LSC, 0); /* read cleared it (GPIE.OCD clear) */
}

static void test_reset_self_clears(void **state)
{
    struct fx *f = *state;

    adv(f, IXGBE_MODEL_LINK_UP_NS);
    wr(f, T_FCTRL, T_FCTRL_BAM);
    wr(f, T_CTRL, T_CTRL_GIO_DIS);
    assert_int_equal(rd(f, T_STATUS) & T_STATUS_GIO, 0); /* master disable done */
    wr(f, T_CTRL, T_CTRL_GIO_DIS | T_CTRL_RST);
    assert_true(rd(f, T_CTRL) & T_CTRL_RST);
    assert_int_equal(rd(f, T_EEC) & T_EEC_ARD, 0);
    assert_int_equal(rd(f, T_RDRXCTL) & T_RDRXCTL_DMAIDONE, 0);
    assert_int_equal(rd(f, T_FCTRL), 0); /* back to its reset value */
    adv(f, IXGBE_MODEL_RESET_NS - 1);
    assert_true(rd(f, T_CTRL) & T_CTRL_RST);
    adv(f, 1);
    assert_int_equal(rd(f, T_CTRL), 0);
    assert_true(rd(f, T_STATUS) & T_STATUS_GIO);
    assert_true(rd(f, T_LINKS) & T_LINKS_UP); /* CTRL.RST keeps an established link */
    assert_int_equal(rd(f, T_EEC) & T_EEC_ARD, 0);
    adv(f, IXGBE_MODEL_EEPROM_NS);
    assert_true(rd(f, T_EEC) & T_EEC_ARD);
    assert_int_equal(rd(f, T_RDRXCTL) & T_RDRXCTL_DMAIDONE, 0);
    adv(f, IXGBE_MODEL_DMA_INIT_NS - IXGBE_MODEL_EEPROM_NS);
    assert_true(rd(f, T_RDRXCTL) & T_RDRXCTL_DMAIDONE);

    /* A link reset drops the link; it trains again after the reset. */
    wr(f, T_CTRL, T_CTRL_LRST);
    assert_true(rd(f, T_CTRL) & T_CTRL_LRST);
    assert_int_equal(rd(f, T_LINKS) & T_LINKS_UP, 0);
    adv(f, IXGBE_MODEL_RESET_NS);
    assert_int_equal(rd(f, T_CTRL) & T_CTRL_LRST, 0);
    adv(f, IXGBE_MODEL_LINK_UP_NS - 1);
    assert_int_equal(rd(f, T_LINKS) & T_LINKS_UP, 0);
    adv(f, 1);
    assert_true(rd(f, T_LINKS) & T_LINKS_UP);
}

static void test_write_during_reset_is_misuse(void **state)
{
    struct fx *f = *state;

    wr(f, T_CTRL, T_CTRL_RST);
    EXPECT_MISUSE(f, "CTRL.RST is in progress", wr(f, T_FCTRL, T_FCTRL_BAM));
    adv(f, IXGBE_MODEL_RESET_NS);
    assert_int_equal(rd(f, T_FCTRL), 0); /* the write was dropped */
}

static void test_link_restart_and_cable(void **state)
{
    struct fx *f = *state;

    bring_up(f);
    wr(f, T_AUTOC, rd(f, T_AUTOC) | T_AUTOC_RESTART_AN);
    assert_int_equal(rd(f, T_AUTOC) & T_AUTOC_RESTART_AN, 0); /* self-clearing */
    assert_int_equal(rd(f, T_LINKS) & T_LINKS_UP, 0);
    assert_true(ixgbe_model_peek(f->m, 0, T_EICR) & T_EICR_LSC);
    adv(f, IXGBE_MODEL_LINK_UP_NS);
    assert_true(rd(f, T_LINKS) & T_LINKS_UP);
    (void)rd(f, T_EICR);

    ixgbe_model_set_link(f->m, false);
    assert_int_equal(rd(f, T_LINKS), 0);
    assert_true(rd(f, T_EICR) & T_EICR_LSC);
    adv(f, 10 * IXGBE_MODEL_LINK_UP_NS);
    assert_int_equal(rd(f, T_LINKS), 0); /* no cable, no link */
    ixgbe_model_set_link(f->m, true);
    adv(f, IXGBE_MODEL_LINK_UP_NS);
    assert_true(rd(f, T_LINKS) & T_LINKS_UP);
    assert_true(rd(f, T_EICR) & T_EICR_LSC);
}

static void test_faults_keep_status_down(void **state)
{
    struct fx *f = *state;

    ixgbe_model_fault(f->m, IXGBE_MODEL_FAULT_EEPROM_NEVER_DONE, true);
    ixgbe_model_fault(f->m, IXGBE_MODEL_FAULT_DMA_INIT_NEVER_DONE, true);
    ixgbe_model_fault(f->m, IXGBE_MODEL_FAULT_LINK_NEVER_UP, true);
    wr(f, T_CTRL, T_CTRL_LRST);
    adv(f, 1000 * IXGBE_MODEL_LINK_UP_NS);
    assert_int_equal(rd(f, T_CTRL), 0); /* the reset itself completes */
    assert_int_equal(rd(f, T_EEC) & T_EEC_ARD, 0);
    assert_int_equal(rd(f, T_RDRXCTL) & T_RDRXCTL_DMAIDONE, 0);
    assert_int_equal(rd(f, T_LINKS) & T_LINKS_UP, 0);

    /* Lifting the faults lets the pending completions happen. */
    ixgbe_model_fault(f->m, IXGBE_MODEL_FAULT_EEPROM_NEVER_DONE, false);
    ixgbe_model_fault(f->m, IXGBE_MODEL_FAULT_DMA_INIT_NEVER_DONE, false);
    ixgbe_model_fault(f->m, IXGBE_MODEL_FAULT_LINK_NEVER_UP, false);
    adv(f, 1);
    assert_true(rd(f, T_EEC) & T_EEC_ARD);
    assert_true(rd(f, T_RDRXCTL) & T_RDRXCTL_DMAIDONE);
    assert_true(rd(f, T_LINKS) & T_LINKS_UP);

    ixgbe_model_fault(f->m, IXGBE_MODEL_FAULT_DEVICE_GONE, true);
    assert_int_equal(rd(f, T_CTRL), 0xFFFFFFFFu);
    assert_int_equal(rd(f, T_LINKS), 0xFFFFFFFFu);
    assert_int_equal(ixgbe_model_read(f->m, IXGBE_MODEL_BAR_MSIX, 12), 0xFFFFFFFFu);
    wr(f, T_FCTRL, T_FCTRL_BAM); /* lost */
    ixgbe_model_fault(f->m, IXGBE_MODEL_FAULT_DEVICE_GONE, false);
    assert_int_equal(rd(f, T_FCTRL), 0);
}

static void test_queue_enable_latching(void **state)
{
    struct fx *f = *state;

    bring_up(f);
    rx_setup(f, 0, 8, 2, 0); /* checks "reads 0 until advance(), then 1" */
    tx_setup(f, 0, 8);
    wr(f, T_RXDCTL(0), 0);
    assert_true(rd(f, T_RXDCTL(0)) & T_RXDCTL_ENABLE); /* disabling latches too */
    adv(f, 1);
    assert_int_equal(rd(f, T_RXDCTL(0)) & T_RXDCTL_ENABLE, 0);

    ixgbe_model_fault(f->m, IXGBE_MODEL_FAULT_RXQ_ENABLE_NEVER_LATCHES, true);
    ixgbe_model_fault(f->m, IXGBE_MODEL_FAULT_TXQ_ENABLE_NEVER_LATCHES, true);
    wr(f, T_RXDCTL(0), T_RXDCTL_ENABLE);
    wr(f, T_TXDCTL(1), 0); /* q1 never configured: disabling is fine */
    wr(f, T_TXDCTL(0), 0);
    adv(f, 1);
    wr(f, T_TXDCTL(0), T_TXDCTL_ENABLE);
    adv(f, 1000000);
    assert_int_equal(rd(f, T_RXDCTL(0)) & T_RXDCTL_ENABLE, 0);
    assert_int_equal(rd(f, T_TXDCTL(0)) & T_TXDCTL_ENABLE, 0);
}

/* ---- RX ------------------------------------------------------------------------------- */

static void test_rx_frame_write_back(void **state)
{
    struct fx *f = *state;
    uint8_t fr[256];
    size_t len = mk_ip4(fr, MAC0, (uint8_t[4]){10, 0, 0, 1}, (uint8_t[4]){10, 0, 0, 2}, 1000,
                        2000, 17, 100);

    bring_up(f);
    rx_setup(f, 0, 8, 2, 0);
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
    assert_memory_equal(hostp(f, RX_BUF(0, 0)), fr, len);
    /* Write-back (§7.1.6.2): pkt_info (RSS type 0, IPv4+UDP), hash 0, DD|EOP, length; mk_ip4
     * leaves the header checksum 0, so IPCS (checked) and IPE (bit 31: it did not verify), and
     * the UDP checksum 0 (none sent), which the 82599 reports as L4CS and TCPE (its erratum). */
    assert_int_equal(mem32(f, RX_RING(0)), 0x0010u | 0x0200u);
    assert_int_equal(mem32(f, RX_RING(0) + 4), 0);
    assert_int_equal(mem32(f, RX_RING(0) + 8), 0xC0000063u);
    assert_int_equal(mem32(f, RX_RING(0) + 12), len);
    assert_int_equal(rd(f, T_RDH(0)), 1);
    assert_int_equal(mem32(f, RX_RING(0) + 16 + 8), 0); /* next descriptor untouched */
    /* Statistics, clear-on-read (§8.2.3.23); octets include the 4-byte FCS. */
    assert_int_equal(rd(f, T_GPRC), 1);
    assert_int_equal(rd(f, T_GPRC), 0);
    assert_int_equal(rd(f, T_GORCL), len + 4);
    assert_int_equal(rd(f, T_GORCH), 0);
    assert_int_equal(rd(f, T_GORCL), 0);
    assert_int_equal(rd(f, T_QPRC(0)), 1);
    assert_int_equal(rd(f, T_QPRC(0)), 0);
}

/* ip4_set_csum: the IPv4 header checksum of a frame from mk_ip4, as a sender computes it. */
static void ip4_set_csum(uint8_t *fr)
{
    uint32_t sum = 0;
    fr[24] = fr[25] = 0;
    for (int i = 14; i < 34; i += 2) {
        sum += (uint32_t)(fr[i] << 8 | fr[i + 1]);
    }
    sum = (sum & 0xFFFFu) + (sum >> 16);
    sum = (sum & 0xFFFFu) + (sum >> 16);
    fr[24] = (uint8_t)(~sum >> 8);
    fr[25] = (uint8_t)~sum;
}

/* l4_set_csum: the TCP or UDP checksum of a frame from mk_ip4 (no IP options), as a sender
 * computes it over the pseudo-header and the datagram's own length. */
static void l4_set_csum(uint8_t *fr)
{
    size_t l4_len = (size_t)(fr[16] << 8 | fr[17]) - 20;
    uint8_t *c = fr + 34 + (fr[23] == 6 ? 16 : 6);
    uint32_t sum = fr[23] + (uint32_t)l4_len;
    c[0] = c[1] = 0;
    for (int i = 26; i < 34; i += 2) {
        sum += (uint32_t)(fr[i] << 8 | fr[i + 1]);
    }
    for (size_t i = 0; i < l4_len; i += 2) {
        sum += (uint32_t)(fr[34 + i] << 8 | (i + 1 < l4_len ? fr[34 + i + 1] : 0));
    }
    while (sum >> 16) {
        sum = (sum & 0xFFFFu) + (sum >> 16);
    }
    c[0] = (uint8_t)(~sum >> 8);
    c[1] = (uint8_t)~sum;
}

/* The IPv4 header checksum: IPCS on every IPv4 frame, IPE only when the sum fails, neither on
 * a frame that is not IPv4; and only on the EOP descriptor of a multi-buffer frame. */
static void test_rx_ipv4_checksum_status(void **state)
{
    struct fx *f = *state;
    uint8_t fr[2500];
    size_t len = mk_ip4(fr, MAC0, (uint8_t[4]){10, 0, 0, 1}, (uint8_t[4]){10, 0, 0, 2}, 1000,
                        2000, 6, 100);

    bring_up(f);
    wr(f, T_HLREG0, rd(f, T_HLREG0) | T_HLREG0_JUMBOEN);
    wr(f, T_MAXFRS, 9018u << 16);
    rx_setup(f, 0, 16, 1, 0);
    ip4_set_csum(fr);
    l4_set_csum(fr);
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
    assert_int_equal(mem32(f, RX_RING(0) + 8), 0x63u); /* IPCS and L4CS, no error */
    fr[22]--; /* TTL changed, checksum not: the sum fails (the TCP sum does not cover it) */
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
    assert_int_equal(mem32(f, RX_RING(0) + 16 + 8), 0x80000063u);
    assert_int_equal(ixgbe_model_inject(f->m, fr, mk_plain(fr, MAC0, 64)), 0);
    assert_int_equal(mem32(f, RX_RING(0) + 32 + 8), 0x3u);
    len = mk_ip4(fr, MAC0, (uint8_t[4]){10, 0, 0, 1}, (uint8_t[4]){10, 0, 0, 2}, 1000, 2000, 17,
                 1500); /* 1 KiB buffers: two descriptors */
    ip4_set_csum(fr);
    l4_set_csum(fr);
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
    assert_int_equal(mem32(f, RX_RING(0) + 48 + 8), 0x1u);
    assert_int_equal(mem32(f, RX_RING(0) + 64 + 8), 0x63u);
}

/* The TCP/UDP checksum (§7.1.11): L4CS on every whole TCP or UDP datagram, TCPE when its sum
 * fails or a UDP datagram carries none (the erratum), over the datagram's own length, not a
 * padded frame's; nothing on a fragment, whose sum covers the reassembled datagram. */
static void test_rx_l4_checksum_status(void **state)
{
    struct fx *f = *state;
    uint8_t fr[256];
    const uint8_t *a = (uint8_t[4]){10, 0, 0, 1}, *b = (uint8_t[4]){10, 0, 0, 2};

    bring_up(f);
    rx_setup(f, 0, 16, 2, 0);
    size_t len = mk_ip4(fr, MAC0, a, b, 1000, 2000, 6, 101); /* odd: the last byte padded */
    ip4_set_csum(fr);
    l4_set_csum(fr);
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
    assert_int_equal(mem32(f, RX_RING(0) + 8), 0x63u);
    fr[len - 1] ^= 1; /* one payload bit */
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
    assert_int_equal(mem32(f, RX_RING(0) + 16 + 8), 0x40000063u);
    len = mk_ip4(fr, MAC0, a, b, 1000, 2000, 17, 5); /* 47 bytes: sent padded to 60 */
    ip4_set_csum(fr);
    l4_set_csum(fr);
    memset(fr + len, 0xEE, 60 - len);
    assert_int_equal(ixgbe_model_inject(f->m, fr, 60), 0);
    assert_int_equal(mem32(f, RX_RING(0) + 32 + 8), 0x63u);
    fr[20] = 0x20; /* MF: the first fragment */
    ip4_set_csum(fr);
    assert_int_equal(ixgbe_model_inject(f->m, fr, 60), 0);
    assert_int_equal(mem32(f, RX_RING(0) + 48 + 8), 0x43u);
}

static void test_rx_multi_descriptor_frame(void **state)
{
    struct fx *f = *state;
    uint8_t fr[2500];
    size_t len = mk_plain(fr, MAC0, sizeof(fr));

    bring_up(f);
    wr(f, T_HLREG0, rd(f, T_HLREG0) | T_HLREG0_JUMBOEN);
    wr(f, T_MAXFRS, 9018u << 16);
    rx_setup(f, 0, 8, 1, 0); /* 1 KiB buffers: 2500 bytes need 3 descriptors */
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
    for (unsigned i = 0; i < 3; i++) {
        uint32_t want = i < 2 ? 1024 : (uint32_t)len - 2048;
        assert_int_equal(mem32(f, RX_RING(0) + 16 * i + 12), want);
        assert_int_equal(mem32(f, RX_RING(0) + 16 * i + 8), i < 2 ? 0x1u : 0x3u);
        assert_memory_equal(hostp(f, RX_BUF(0, i)), fr + 1024 * i, want);
    }
    assert_int_equal(rd(f, T_RDH(0)), 3);

    /* Only 4 of 7 posted descriptors left: a frame needing 3 still fits, the next one not. */
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
    wr(f, T_SRRCTL(0), 1 | T_SRRCTL_ADV1 | T_SRRCTL_DROP_EN);
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), -1);
    assert_int_equal(rd(f, T_QPRDC(0)), 1);
}

static void test_rx_filters(void **state)
{
    struct fx *f = *state;
    static const uint8_t other[6] = {0x00, 0x1b, 0x21, 0x99, 0x99, 0x99};
    static const uint8_t mcast[6] = {0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb};
    struct ixgbe_model_counters c;
    uint8_t fr[64];

    bring_up(f);
    rx_setup(f, 0, 16, 2, T_SRRCTL_DROP_EN);
    assert_int_equal(ixgbe_model_inject(f->m, fr, mk_plain(fr, other, 64)), -1);
    assert_int_equal(ixgbe_model_inject(f->m, fr, mk_plain(fr, BCAST, 64)), -1);
    assert_int_equal(ixgbe_model_inject(f->m, fr, mk_plain(fr, mcast, 64)), -1);
    ixgbe_model_counters(f->m, &c);
    assert_int_equal(c.rx_filtered, 3);
    wr(f, T_FCTRL, T_FCTRL_BAM);
    assert_int_equal(ixgbe_model_inject(f->m, fr, mk_plain(fr, BCAST, 64)), 0);
    assert_int_equal(rd(f, T_BPRC), 1);
    wr(f, T_FCTRL, T_FCTRL_UPE);
    assert_int_equal(ixgbe_model_inject(f->m, fr, mk_plain(fr, other, 64)), 0);
    /* Multicast through the MTA: MO = 0 uses DA bits 47:36 -> vector 0xfb0 (§8.2.3.7). */
    wr(f, T_MCSTCTRL, 0x4); /* MFE */
    wr(f, T_MTA(0xfb0 >> 5), 1u << (0xfb0 & 31));
    assert_int_equal(ixgbe_model_inject(f->m, fr, mk_plain(fr, mcast, 64)), 0);
    wr(f, T_MTA(0xfb0 >> 5), 0);
    assert_int_equal(ixgbe_model_inject(f->m, fr, mk_plain(fr, mcast, 64)), -1);
    wr(f, T_FCTRL, T_FCTRL_MPE);
    assert_int_equal(ixgbe_model_inject(f->m, fr, mk_plain(fr, mcast, 64)), 0);
    /* Runts are counted in RUC. */
    assert_int_equal(ixgbe_model_inject(f->m, fr, 59), -1);
    assert_int_equal(rd(f, T_RUC), 1);
}

/* ---- RSS (§7.1.2.8) ------------------------------------------------------------------- */

/* The Microsoft RSS verification key and IPv4 vectors (§7.1.2.8.3 uses the same suite). */
static const uint8_t MS_KEY[40] = {
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
    0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
    0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa};

static const struct {
    uint8_t src[4], dst[4];
    uint16_t sport, dport;
    uint32_t ip, tcp;
} MS_V4[] = {
    {{66, 9, 149, 187}, {161, 142, 100, 80}, 2794, 1766, 0x323e8fc2u, 0x51ccc178u},
    {{199, 92, 111, 2}, {65, 69, 140, 83}, 14230, 4739, 0xd718262au, 0xc626b0eau},
    {{24, 19, 198, 95}, {12, 22, 207, 184}, 12898, 38024, 0xd2d0a5deu, 0x5c2b394au},
    {{38, 27, 205, 30}, {209, 142, 163, 6}, 48228, 2217, 0x82989176u, 0xafc7327fu},
    {{153, 39, 163, 191}, {202, 188, 127, 2}, 44251, 1303, 0x5d1809c5u, 0x10e828a2u},
};

static void rss_program(struct fx *f, uint32_t fields)
{
    for (unsigned i = 0; i < 10; i++) { /* key byte 4i in bits 7:0 of RSSRK[i] */
        wr(f, T_RSSRK(i), (uint32_t)MS_KEY[4 * i] | (uint32_t)MS_KEY[4 * i + 1] << 8 |
                              (uint32_t)MS_KEY[4 * i + 2] << 16 |
                              (uint32_t)MS_KEY[4 * i + 3] << 24);
    }
    for (unsigned i = 0; i < 32; i++) { /* entry n -> queue n % 4 */
        wr(f, T_RETA(i), 0x03020100u);
    }
    wr(f, T_RXCSUM, T_RXCSUM_PCSD);
    wr(f, T_MRQC, T_MRQC_RSS | fields);
}

static void test_rss_toeplitz_function(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(MS_V4) / sizeof(MS_V4[0]); i++) {
        uint8_t in[12];
        memcpy(in, MS_V4[i].src, 4);
        memcpy(in + 4, MS_V4[i].dst, 4);
        in[8] = (uint8_t)(MS_V4[i].sport >> 8);
        in[9] = (uint8_t)MS_V4[i].sport;
        in[10] = (uint8_t)(MS_V4[i].dport >> 8);
        in[11] = (uint8_t)MS_V4[i].dport;
        assert_int_equal(ixm_rss_hash(MS_KEY, in, 8), MS_V4[i].ip);
        assert_int_equal(ixm_rss_hash(MS_KEY, in, 12), MS_V4[i].tcp);
    }
}

static void test_rss_hash_and_queue(void **state)
{
    struct fx *f = *state;
    uint8_t fr[128];

    bring_up(f);
    for (unsigned q = 0; q < 4; q++) {
        rx_setup(f, q, 16, 2, T_SRRCTL_DROP_EN);
    }
    rss_program(f, T_MRQC_TCPV4 | T_MRQC_IPV4);
    unsigned used[4] = {0};
    for (size_t i = 0; i < sizeof(MS_V4) / sizeof(MS_V4[0]); i++) {
        for (int tcp = 0; tcp < 2; tcp++) {
            size_t len = mk_ip4(fr, MAC0, MS_V4[i].src, MS_V4[i].dst, MS_V4[i].sport,
                                MS_V4[i].dport, tcp ? 6 : 1 /* ICMP: IPv4 hash only */, 20);
            uint32_t want = tcp ? MS_V4[i].tcp : MS_V4[i].ip;
            unsigned q = (want & 0x7f) % 4; /* RETA entry (hash & 0x7f) holds queue n % 4 */
            uint64_t d = RX_RING(q) + 16 * used[q]++;

            assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
            assert_int_equal(mem32(f, d + 4), want);
            assert_int_equal(mem32(f, d) & 0xf, tcp ? 1 : 2); /* RSS type TCPv4 / IPv4 */
            assert_int_equal(mem32(f, d + 8) & 3, 3);
        }
    }
    /* Not RSS-able (not IP): queue 0, RSS type 0, hash 0. */
    unsigned before = rd(f, T_RDH(0));
    assert_int_equal(ixgbe_model_inject(f->m, fr, mk_plain(fr, MAC0, 80)), 0);
    assert_int_equal(rd(f, T_RDH(0)), before + 1);
    assert_int_equal(mem32(f, RX_RING(0) + 16 * before), 0);
    /* A RETA change moves the flow: point every entry at queue 2. */
    for (unsigned i = 0; i < 32; i++) {
        wr(f, T_RETA(i), 0x02020202u);
    }
    before = rd(f, T_RDH(2));
    size_t len = mk_ip4(fr, MAC0, MS_V4[0].src, MS_V4[0].dst, 1, 2, 17, 20);
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0); /* UDP not enabled: IPv4 hash */
    assert_int_equal(rd(f, T_RDH(2)), before + 1);
    assert_int_equal(mem32(f, RX_RING(2) + 16 * before + 4), MS_V4[0].ip);
}

/* ---- missed frames and the packet buffer ---------------------------------------------- */

static void test_rx_missed_no_descriptor(void **state)
{
    struct fx *f = *state;
    struct ixgbe_model_counters c;
    uint8_t fr[1000];
    size_t len = mk_plain(fr, MAC0, sizeof(fr));

    bring_up(f);
    rx_setup(f, 0, 8, 2, T_SRRCTL_DROP_EN);
    wr(f, T_RDT(0), 3); /* only descriptors 0..2 handed over */
    for (int i = 0; i < 3; i++) {
        assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
    }
    assert_int_equal(rd(f, T_RDH(0)), rd(f, T_RDT(0))); /* head == tail: none free */
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), -1);
    assert_int_equal(rd(f, T_QPRDC(0)), 1);
    assert_int_equal(rd(f, T_QPRDC(0)), 0);
    assert_int_equal(rd(f, T_GPRC), 4); /* the dropped frame passed the MAC */

    /* Without DROP_EN the frame waits in the packet buffer until descriptors come. */
    wr(f, T_SRRCTL(0), 2 | T_SRRCTL_ADV1);
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
    ixgbe_model_counters(f->m, &c);
    assert_int_equal(c.rx_pb_frames, 1);
    wr(f, T_RDT(0), 4); /* hand over descriptor 3 */
    ixgbe_model_counters(f->m, &c);
    assert_int_equal(c.rx_pb_frames, 0);
    assert_int_equal(rd(f, T_RDH(0)), 4);
    assert_int_equal(mem32(f, RX_RING(0) + 16 * 3 + 12), len);

    /* A small packet buffer overflows into MPC and EICR.RX_MISS. */
    wr(f, T_RXPBSIZE0, 2 << 10); /* 2 KiB: two 1000-byte frames */
    (void)rd(f, T_EICR);
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), -1);
    assert_int_equal(rd(f, T_MPC0), 1);
    assert_int_equal(rd(f, T_MPC0), 0);
    assert_true(rd(f, T_EICR) & T_EICR_RX_MISS);
    ixgbe_model_counters(f->m, &c);
    assert_int_equal(c.rx_missed, 1);
    assert_int_equal(c.rx_no_desc, 1);
}

static void test_rx_link_down_and_disabled(void **state)
{
    struct fx *f = *state;
    struct ixgbe_model_counters c;
    uint8_t fr[64];

    bring_up(f);
    rx_setup(f, 0, 8, 2, 0);
    wr(f, T_RXCTRL, 0);
    assert_int_equal(ixgbe_model_inject(f->m, fr, mk_plain(fr, MAC0, 64)), -1);
    wr(f, T_RXCTRL, 1);
    ixgbe_model_set_link(f->m, false);
    assert_int_equal(ixgbe_model_inject(f->m, fr, mk_plain(fr, MAC0, 64)), -1);
    ixgbe_model_counters(f->m, &c);
    assert_int_equal(c.rx_disabled, 1);
    assert_int_equal(c.rx_link_down, 1);
    assert_int_equal(c.rx_placed, 0);
}

/* ---- TX ------------------------------------------------------------------------------- */

static void test_tx_consumes_and_writes_dd(void **state)
{
    struct fx *f = *state;
    uint8_t a[100], b[300];

    bring_up(f);
    tx_setup(f, 0, 8);
    mk_plain(a, BCAST, sizeof(a));
    mk_plain(b, MAC0, sizeof(b));
    memcpy(hostp(f, TX_BUF(0)), a, sizeof(a));
    memcpy(hostp(f, TX_BUF(1)), b, 200);
    memcpy(hostp(f, TX_BUF(2)), b + 200, 100);
    memset(hostp(f, TX_BUF(3)), 0x5a, 42);
    tx_desc(f, 0, 0, TX_BUF(0), sizeof(a), true, true, sizeof(a));
    tx_desc(f, 0, 1, TX_BUF(1), 200, false, false, sizeof(b));
    tx_desc(f, 0, 2, TX_BUF(2), 100, true, true, 0);
    tx_desc(f, 0, 3, TX_BUF(3), 42, true, false, 42); /* short: padded, no RS */
    wr(f, T_TDT(0), 2);                               /* frame 2 is not complete below TDT */
    assert_int_equal(f->ntx, 1);
    assert_int_equal(rd(f, T_TDH(0)), 1);
    wr(f, T_TDT(0), 4);
    assert_int_equal(f->ntx, 3);
    assert_int_equal(rd(f, T_TDH(0)), 4);
    assert_int_equal(f->txlen[0], sizeof(a));
    assert_memory_equal(f->tx[0], a, sizeof(a));
    assert_int_equal(f->txlen[1], sizeof(b));
    assert_memory_equal(f->tx[1], b, sizeof(b));
    assert_int_equal(f->txlen[2], 60); /* HLREG0.TXPADEN pads to 60 + FCS */
    assert_int_equal(f->tx[2][59], 0);
    /* DD (STA bit 0) in the RS descriptors only (§7.2.3.2.4 write-back). */
    assert_int_equal(mem32(f, TX_RING(0) + 12) & 1, 1);
    assert_int_equal(mem32(f, TX_RING(0) + 16 + 12) & 1, 0);
    assert_int_equal(mem32(f, TX_RING(0) + 32 + 12) & 1, 1);
    assert_int_equal(mem32(f, TX_RING(0) + 48 + 12) & 1, 0);
    assert_int_equal(rd(f, T_GPTC), 3);
    assert_int_equal(rd(f, T_GOTCL), sizeof(a) + sizeof(b) + 60 + 3 * 4);
    assert_int_equal(rd(f, T_QPTC(0)), 3);
}

static void test_tx_waits_and_stops(void **state)
{
    struct fx *f = *state;
    uint8_t a[64];

    bring_up(f);
    tx_setup(f, 0, 8);
    mk_plain(a, BCAST, sizeof(a));
    memcpy(hostp(f, TX_BUF(0)), a, sizeof(a));
    for (unsigned i = 0; i < 6; i++) {
        tx_desc(f, 0, i, TX_BUF(0), sizeof(a), true, true, sizeof(a));
    }
    wr(f, T_DMATXCTL, 0); /* TE clear: descriptors wait */
    wr(f, T_TDT(0), 1);
    assert_int_equal(f->ntx, 0);
    wr(f, T_DMATXCTL, 1);
    assert_int_equal(f->ntx, 1);
    ixgbe_model_set_link(f->m, false); /* no link: TX stalls */
    wr(f, T_TDT(0), 2);
    assert_int_equal(f->ntx, 1);
    ixgbe_model_set_link(f->m, true);
    adv(f, IXGBE_MODEL_LINK_UP_NS);
    assert_int_equal(f->ntx, 2);
    ixgbe_model_fault(f->m, IXGBE_MODEL_FAULT_TX_STOPS_COMPLETING, true);
    wr(f, T_TDT(0), 5);
    adv(f, 1000000);
    assert_int_equal(f->ntx, 2);
    assert_int_equal(rd(f, T_TDH(0)), 2);
    assert_int_equal(mem32(f, TX_RING(0) + 32 + 12) & 1, 0);
    ixgbe_model_fault(f->m, IXGBE_MODEL_FAULT_TX_STOPS_COMPLETING, false);
    adv(f, 1);
    assert_int_equal(f->ntx, 5);
    assert_int_equal(rd(f, T_TDH(0)), 5);
}

/* ---- interrupts and MSI-X (§7.3) ------------------------------------------------------ */

/* Queue 0 RX -> vector 3, TX -> vector 5, other causes -> vector 7; entries unmasked. */
static void msix_setup(struct fx *f, uint32_t gpie_extra)
{
    wr(f, T_GPIE, T_GPIE_MSIX | T_GPIE_PBA | gpie_extra);
    wr(f, T_IVAR(0), (0x80u | 3) | (0x80u | 5) << 8);
    wr(f, T_IVAR_MISC, (0x80u | 7) << 8);
    for (unsigned v = 0; v < 8; v++) {
        wr_msix(f, T_MSIX_CTRL(v), 0);
    }
    wr(f, T_EIMS_EX(0), (1u << 3) | (1u << 5));
    wr(f, T_EIMS, T_EICR_LSC);
}

static void test_msix_via_ivar(void **state)
{
    struct fx *f = *state;
    uint8_t fr[64];
    size_t len = mk_plain(fr, MAC0, 64);

    bring_up(f);
    rx_setup(f, 0, 16, 2, 0);
    tx_setup(f, 0, 8);
    msix_setup(f, T_GPIE_OCD);
    wr(f, T_EIAC, 0xffff); /* auto-clear queue vectors */

    assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
    assert_int_equal(f->nvec, 1);
    assert_int_equal(f->vec[0], 3);
    assert_int_equal(ixgbe_model_peek(f->m, 0, T_EICR) & 0xffff, 0); /* auto-cleared */

    memcpy(hostp(f, TX_BUF(0)), fr, len);
    tx_desc(f, 0, 0, TX_BUF(0), (uint32_t)len, true, true, (uint32_t)len);
    wr(f, T_TDT(0), 1);
    assert_int_equal(f->nvec, 2);
    assert_int_equal(f->vec[1], 5);

    /* EIMC masks the vector: the cause is recorded, nothing is sent, EIMS re-arms it. */
    wr(f, T_EIMC, 1u << 3);
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
    assert_int_equal(f->nvec, 2);
    assert_true(ixgbe_model_peek(f->m, 0, T_EICR) & (1u << 3));
    wr(f, T_EIMS, 1u << 3);
    assert_int_equal(f->nvec, 3);
    assert_int_equal(f->vec[2], 3);

    /* Link change: LSC through IVAR_MISC; OCD keeps it in EICR across a read; W1C clears. */
    ixgbe_model_set_link(f->m, false);
    assert_int_equal(f->nvec, 4);
    assert_int_equal(f->vec[3], 7);
    assert_true(rd(f, T_EICR) & T_EICR_LSC);
    assert_true(rd(f, T_EICR) & T_EICR_LSC);
    wr(f, T_EICR, T_EICR_LSC);
    assert_int_equal(rd(f, T_EICS) & T_EICR_LSC, 0);

    /* The MSI-X vector-control mask holds the message in the PBA until unmasked. */
    wr_msix(f, T_MSIX_CTRL(3), 1);
    wr(f, T_EICS, 1u << 3); /* software-triggered cause */
    assert_int_equal(f->nvec, 4);
    assert_int_equal(ixgbe_model_read(f->m, IXGBE_MODEL_BAR_MSIX, T_PBA), 1u << 3);
    wr_msix(f, T_MSIX_CTRL(3), 0);
    assert_int_equal(f->nvec, 5);
    assert_int_equal(f->vec[4], 3);
    assert_int_equal(ixgbe_model_read(f->m, IXGBE_MODEL_BAR_MSIX, T_PBA), 0);

    /* No MSI-X mode: nothing is delivered (INTx/MSI are not modelled), only counted. */
    struct ixgbe_model_counters c;
    wr(f, T_GPIE, 0);
    wr(f, T_EICS, 1u << 3);
    ixgbe_model_counters(f->m, &c);
    assert_int_equal(f->nvec, 5);
    assert_int_equal(c.irqs_suppressed, 1);
    assert_int_equal(c.irqs_sent, 5);
}

static void test_msix_eiam_and_eitr(void **state)
{
    struct fx *f = *state;
    uint8_t fr[64];
    size_t len = mk_plain(fr, MAC0, 64);

    bring_up(f);
    rx_setup(f, 0, 16, 2, 0);
    msix_setup(f, T_GPIE_EIAME);
    wr(f, T_EIAC, 0xffff);
    wr(f, T_EIAM_EX(0), 0xffffffffu);

    /* EIAM: the message auto-masks the vector; the next frame sends nothing until EIMS. */
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
    assert_int_equal(f->nvec, 1);
    assert_int_equal(rd(f, T_EIMS) & (1u << 3), 0);
    wr(f, T_EIMS_EX(0), 1u << 3);
    assert_int_equal(f->nvec, 2); /* the pending cause fires on re-enable */

    /* EITR: 100 units of 2.048 us between messages; an early one waits for advance(). */
    wr(f, T_EIAM_EX(0), 0);
    wr(f, T_EIMS_EX(0), 1u << 3); /* the last message auto-masked it again */
    wr(f, T_EITR(3), 100u << 3);
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
    assert_int_equal(f->nvec, 2);
    adv(f, 100 * 2048 - 1);
    assert_int_equal(f->nvec, 2);
    adv(f, 1);
    assert_int_equal(f->nvec, 3);
    assert_int_equal(f->vec[2], 3);
}

/* ---- statistics ---------------------------------------------------------------------- */

static void test_stats_36bit_and_queue_map(void **state)
{
    struct fx *f = *state;
    uint8_t fr[64];

    bring_up(f);
    /* 36-bit GORC: low then high reads return the exact value, each half clears. */
    f->m->gorc.v = 0xABCDEF012ull;
    assert_int_equal(ixgbe_model_peek(f->m, 0, T_GORCH), 0xA);
    assert_int_equal(rd(f, T_GORCL), 0xBCDEF012u);
    assert_int_equal(rd(f, T_GORCH), 0xA);
    assert_int_equal(rd(f, T_GORCL), 0);
    assert_int_equal(rd(f, T_GORCH), 0);
    /* Counting on past 2^36 wraps; bits 31:4 of the high half never show. */
    f->m->gorc.v = (1ull << 36) - 10;
    rx_setup(f, 1, 8, 2, 0);
    wr(f, T_RQSMR(0), 5u << 8); /* queue 1 -> statistics index 5 */
    rss_program(f, T_MRQC_IPV4);
    for (unsigned i = 0; i < 32; i++) {
        wr(f, T_RETA(i), 0x01010101u);
    }
    size_t len = mk_ip4(fr, MAC0, (uint8_t[4]){1, 2, 3, 4}, (uint8_t[4]){5, 6, 7, 8}, 1, 2, 17,
                        18);
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
    assert_int_equal(rd(f, T_GORCL), len + 4 - 10);
    assert_int_equal(rd(f, T_GORCH), 0);
    assert_int_equal(rd(f, T_QPRC(5)), 1);
    assert_int_equal(rd(f, T_QPRC(0)), 0);
    /* Statistics ignore writes. */
    wr(f, T_GPRC, 1234);
    assert_int_equal(rd(f, T_GPRC), 1);
    assert_int_equal(rd(f, T_GPRC), 0);
}

/* ---- misuse -------------------------------------------------------------------------- */

static void test_misuse_enable_before_base(void **state)
{
    struct fx *f = *state;

    bring_up(f);
    EXPECT_MISUSE(f, "RDBAL/RDLEN", wr(f, T_RXDCTL(2), T_RXDCTL_ENABLE));
    EXPECT_MISUSE(f, "TDBAL/TDLEN", wr(f, T_TXDCTL(2), T_TXDCTL_ENABLE));
    wr(f, T_RDBAL(3), (uint32_t)RX_RING(3));
    wr(f, T_RDLEN(3), 0); /* a zero-length ring is not a programmed ring */
    EXPECT_MISUSE(f, "RDBAL/RDLEN", wr(f, T_RXDCTL(3), T_RXDCTL_ENABLE));
    adv(f, 1);
    assert_int_equal(rd(f, T_RXDCTL(2)) & T_RXDCTL_ENABLE, 0);
    assert_int_equal(rd(f, T_TXDCTL(2)) & T_TXDCTL_ENABLE, 0);
    assert_non_null(strstr(ixgbe_model_last_misuse(f->m), "RXDCTL[3]"));
}

static void test_misuse_tail_beyond_ring(void **state)
{
    struct fx *f = *state;

    bring_up(f);
    tx_setup(f, 0, 8);
    rx_setup(f, 0, 8, 2, 0);
    EXPECT_MISUSE(f, "beyond the ring", wr(f, T_TDT(0), 8));
    EXPECT_MISUSE(f, "beyond the ring", wr(f, T_RDT(0), 9));
    assert_int_equal(rd(f, T_TDT(0)), 0); /* dropped */
    EXPECT_MISUSE(f, "while the queue is enabled", wr(f, T_RDH(0), 0));
    EXPECT_MISUSE(f, "multiple of 128", wr(f, T_TDLEN(1), 100));
}

static void test_misuse_dma_outside_memory(void **state)
{
    struct fx *f = *state;
    struct ixgbe_model_counters c;
    uint8_t fr[64];

    bring_up(f);
    tx_setup(f, 0, 8);
    tx_desc(f, 0, 0, 0xdead0000ull, 64, true, true, 64);
    EXPECT_MISUSE(f, "outside registered memory", wr(f, T_TDT(0), 1));
    assert_int_equal(rd(f, T_TDH(0)), 0);
    assert_int_equal(f->ntx, 0);

    rx_setup(f, 0, 8, 2, 0);
    put64(f, RX_RING(0), 0x7000000000ull); /* descriptor 0 points nowhere */
    EXPECT_MISUSE(f, "outside registered memory",
                  assert_int_equal(ixgbe_model_inject(f->m, fr, mk_plain(fr, MAC0, 64)), -1));
    ixgbe_model_counters(f->m, &c);
    assert_int_equal(c.rx_dma_errors, 1);
    assert_int_equal(c.misuse, 2);
}

static void test_misuse_reserved_bits(void **state)
{
    struct fx *f = *state;

    bring_up(f);
    /* 82598-style RX thresholds (PTHRESH 32, HTHRESH 4, WTHRESH 8) are reserved on the 82599 */
    EXPECT_MISUSE(f, "reserved", wr(f, T_RXDCTL(0), 0x080420));
    EXPECT_MISUSE(f, "reserved", wr(f, T_SRRCTL(0), 0x402 | (1u << 5)));
    EXPECT_MISUSE(f, "reserved", wr(f, T_TXDCTL(0), 1u << 7));
    assert_int_equal(rd(f, T_SRRCTL(0)), 0x402); /* reserved bits not stored */
    /* Legal values pass: VME, thresholds on TX, DROP_EN and DESCTYPE. */
    wr(f, T_RXDCTL(0), 0x40000000u);
    wr(f, T_TXDCTL(0), 32 | (1u << 8) | (1u << 16));
    wr(f, T_SRRCTL(0), 0x402 | T_SRRCTL_ADV1 | T_SRRCTL_DROP_EN | (7u << 22));
    EXPECT_MISUSE(f, "read-only",
                  ixgbe_model_write(f->m, IXGBE_MODEL_BAR_MSIX, T_PBA, 1));
    EXPECT_MISUSE(f, "outside the BAR", wr(f, 0x20000, 0));
}

static void test_misuse_tx_paylen_and_unmodelled(void **state)
{
    struct fx *f = *state;
    uint8_t a[64];

    bring_up(f);
    tx_setup(f, 0, 8);
    mk_plain(a, BCAST, sizeof(a));
    memcpy(hostp(f, TX_BUF(0)), a, sizeof(a));
    tx_desc(f, 0, 0, TX_BUF(0), 64, true, true, 63);
    EXPECT_MISUSE(f, "PAYLEN", wr(f, T_TDT(0), 1));
    assert_int_equal(f->ntx, 1); /* sent anyway */
    tx_desc(f, 0, 1, TX_BUF(0), 64, true, true, 64);
    put64(f, TX_RING(0) + 16 + 8, (uint64_t)(64u << 14) << 32 | 64 | 0x00300000u | 0xA9000000u);
    EXPECT_MISUSE(f, "TSE or VLE with no context descriptor", wr(f, T_TDT(0), 2));
    assert_int_equal(rd(f, T_TDH(0)), 1); /* queue halted on the bad descriptor */
}

/* ---- callbacks that re-enter the model ----------------------------------------------- */

static void loop_back(struct fx *f, const uint8_t *frame, size_t len)
{
    assert_int_equal(ixgbe_model_inject(f->m, frame, len), 0);
}

static void reset_on_irq(struct fx *f, unsigned v)
{
    (void)v;
    wr(f, T_CTRL, T_CTRL_RST);
}

static void test_reentrant_callbacks(void **state)
{
    struct fx *f = *state;
    struct ixgbe_model_counters c;
    uint8_t a[80];

    bring_up(f);
    rx_setup(f, 0, 8, 2, 0);
    tx_setup(f, 0, 8);
    msix_setup(f, 0);
    wr(f, T_EIAC, 0xffff);

    /* tx_frame loops the frame back into the same port: it lands in RX queue 0. */
    f->on_tx = loop_back;
    mk_plain(a, MAC0, sizeof(a));
    memcpy(hostp(f, TX_BUF(0)), a, sizeof(a));
    tx_desc(f, 0, 0, TX_BUF(0), sizeof(a), true, true, sizeof(a));
    wr(f, T_TDT(0), 1);
    assert_int_equal(f->ntx, 1);
    assert_memory_equal(hostp(f, RX_BUF(0, 0)), a, sizeof(a));
    f->on_tx = NULL;

    /* The driver resets the port from the interrupt of a frame being drained from the packet
     * buffer: the drain must notice the flush instead of popping a freed frame. */
    wr(f, T_RDT(0), 1); /* descriptors 1.. are no longer handed over: RDH == RDT */
    assert_int_equal(ixgbe_model_inject(f->m, a, sizeof(a)), 0);
    assert_int_equal(ixgbe_model_inject(f->m, a, sizeof(a)), 0);
    ixgbe_model_counters(f->m, &c);
    assert_int_equal(c.rx_pb_frames, 2);
    f->on_notify = reset_on_irq;
    wr(f, T_RDT(0), 3);
    f->on_notify = NULL;
    ixgbe_model_counters(f->m, &c);
    assert_int_equal(c.rx_pb_frames, 0);
    assert_int_equal(c.rx_placed, 2);
    assert_true(rd(f, T_CTRL) & T_CTRL_RST);
}

/* ---- two instances, log -------------------------------------------------------------- */

static void test_two_instances_and_log(void **state)
{
    struct fx *f = *state;
    static const uint8_t mac1[6] = {0x00, 0x1b, 0x21, 0x0a, 0x0b, 0x0d};
    struct fx g;
    struct ixgbe_model_ops ops = {fx_dma_read, fx_dma_write, fx_notify, fx_tx, fx_misuse, &g};
    const struct ixgbe_model_log_entry *log;
    size_t n;
    uint64_t lost;

    memset(&g, 0, sizeof(g));
    g.mem = calloc(1, MEM_SIZE);
    g.m = ixgbe_model_new(&ops, mac1);
    assert_non_null(g.m);
    wr(f, T_FCTRL, T_FCTRL_BAM);
    assert_int_equal(ixgbe_model_read(g.m, 0, T_FCTRL), 0);
    assert_int_equal(ixgbe_model_read(g.m, 0, T_RAH0), 0x80000d0bu);
    ixgbe_model_free(g.m);
    free(g.mem);

    ixgbe_model_log_clear(f->m);
    adv(f, 5);
    wr(f, T_EIMC, 0xffffffffu);
    ixgbe_model_log_reads(f->m, true);
    (void)rd(f, T_STATUS);
    log = ixgbe_model_log(f->m, &n, &lost);
    assert_int_equal(n, 2);
    assert_int_equal(lost, 0);
    assert_int_equal(log[0].offset, T_EIMC);
    assert_int_equal(log[0].value, 0xffffffffu);
    assert_int_equal(log[0].time_ns, 5);
    assert_false(log[0].is_read);
    assert_int_equal(log[1].offset, T_STATUS);
    assert_true(log[1].is_read);
}

/* ---- board, EEPROM, MDIO, semaphore, flow director, event time ---------------------- */

#define T_EERD 0x10014
#define T_SWSM 0x10140
#define T_MSCA 0x0425C
#define T_MSRWD 0x04260
#define T_LINKS 0x042A4
#define T_FDIRCTRL 0x0EE00

static uint16_t eerd(struct fx *f, unsigned word)
{
    uint32_t v;

    wr(f, T_EERD, word << 2 | 1u); /* START */
    v = rd(f, T_EERD);
    assert_true(v & 2u);           /* DONE */
    assert_int_equal((v >> 2) & 0x3FFFu, word);
    return (uint16_t)(v >> 16);
}

static void test_eeprom_through_eerd(void **state)
{
    struct fx *f = *state;
    uint16_t sum = 0;

    /* EE_SIZE (EEC 14:11) says how many words there are: 2^(size + 6) */
    assert_int_equal(1u << (((rd(f, T_EEC) >> 11) & 0xFu) + 6), IXGBE_MODEL_EEPROM_WORDS);
    for (unsigned w = 0; w <= 0x3F; w++) {
        sum = (uint16_t)(sum + eerd(f, w));
    }
    assert_int_equal(sum, 0xBABA); /* the checksum Linux's ixgbe verifies at probe */
    for (unsigned w = 0x03; w <= 0x0F; w++) {
        assert_int_equal(eerd(f, w), 0xFFFF); /* module pointers: absent */
    }
    f->expect_misuse = true;
    wr(f, T_EERD, (IXGBE_MODEL_EEPROM_WORDS + 1) << 2 | 1u);
    assert_int_equal(rd(f, T_EERD) >> 16, 0xFFFF);
    assert_int_equal(f->misuse, 1);
}

static void test_mdio_no_phy_and_semaphore(void **state)
{
    struct fx *f = *state;

    /* address cycle, then read: each completes at once; nothing drives the bus */
    wr(f, T_MSCA, 0x40000000u | 1u << 16 | 0x0008u);
    assert_int_equal(rd(f, T_MSCA) & 0x40000000u, 0);
    wr(f, T_MSCA, 0x40000000u | 0x0C000000u | 1u << 16);
    assert_int_equal(rd(f, T_MSCA) & 0x40000000u, 0);
    assert_int_equal(rd(f, T_MSRWD) >> 16, 0xFFFF);
    /* SWSM.SMBI: the first read finds it clear and takes it; the next finds it set */
    assert_int_equal(rd(f, T_SWSM) & 1u, 0);
    assert_int_equal(rd(f, T_SWSM) & 1u, 1);
    wr(f, T_SWSM, 2u); /* SWESMBI; SMBI released */
    assert_int_equal(rd(f, T_SWSM) & 3u, 2u);
    wr(f, T_SWSM, 0);
    /* flow director initialisation completes at once */
    wr(f, T_FDIRCTRL, 0x2u);
    assert_int_equal(rd(f, T_FDIRCTRL), 0x2u | 0x8u);
}

static void test_backplane_board_and_next_event(void **state)
{
    struct fx *f = *state;
    struct ixgbe_model_ops ops = {fx_dma_read, fx_dma_write, fx_notify, fx_tx, fx_misuse, f};
    struct ixgbe_model_config cfg = {.autoc = IXGBE_MODEL_AUTOC_BACKPLANE_KR,
                                     .autoc2 = IXGBE_MODEL_AUTOC2_BACKPLANE_KR};
    struct ixgbe_model *sfp = f->m;

    /* the SFP+ default: LINKS has no clause 73 completion */
    adv(f, IXGBE_MODEL_LINK_UP_NS);
    assert_int_equal(rd(f, T_LINKS) & 0xC0000000u, 0x40000000u);
    memcpy(cfg.mac, MAC0, 6);
    f->m = ixgbe_model_new_config(&ops, &cfg);
    assert_non_null(f->m);
    assert_int_equal(rd(f, T_AUTOC), IXGBE_MODEL_AUTOC_BACKPLANE_KR);
    /* link training started at 0: the next event is the link coming up */
    ixgbe_model_advance(f->m, 0);
    assert_int_equal(ixgbe_model_next_event(f->m), IXGBE_MODEL_LINK_UP_NS);
    ixgbe_model_advance(f->m, IXGBE_MODEL_LINK_UP_NS);
    assert_int_equal(rd(f, T_LINKS) & 0xC0000000u, 0xC0000000u); /* up, AN complete */
    assert_int_equal(ixgbe_model_next_event(f->m), UINT64_MAX);
    /* a reset: its completion, then EEPROM and DMA init, are events */
    wr(f, T_CTRL, T_CTRL_RST);
    assert_int_equal(ixgbe_model_next_event(f->m), IXGBE_MODEL_LINK_UP_NS + IXGBE_MODEL_RESET_NS);
    ixgbe_model_advance(f->m, IXGBE_MODEL_LINK_UP_NS + IXGBE_MODEL_RESET_NS);
    assert_int_equal(ixgbe_model_next_event(f->m),
                     IXGBE_MODEL_LINK_UP_NS + IXGBE_MODEL_RESET_NS + IXGBE_MODEL_EEPROM_NS);
    assert_int_equal(rd(f, T_AUTOC), IXGBE_MODEL_AUTOC_BACKPLANE_KR); /* reloaded */
    ixgbe_model_free(f->m);
    f->m = sfp;
}

/* ---- TX offloads: context descriptors, checksum insertion, TSO ----------------------- */

static uint16_t csum16(const uint8_t *p, size_t n, uint32_t sum)
{
    for (size_t i = 0; i + 1 < n; i += 2) {
        sum += (uint32_t)p[i] << 8 | p[i + 1];
    }
    if (n & 1) {
        sum += (uint32_t)p[n - 1] << 8;
    }
    while (sum >> 16) {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    return (uint16_t)sum;
}

/* TCP over IPv4, pseudo-header sum (without the length, as Linux's ixgbe_tso leaves it) in the
 * TCP checksum field; returns the frame length. */
static size_t mk_tso_frame(uint8_t *b, size_t payload)
{
    static const uint8_t hdr[54] = {
        0x00, 0x1b, 0x21, 0x0a, 0x0b, 0x0d, 0x00, 0x1b, 0x21, 0x0a, 0x0b, 0x0c, 0x08, 0x00,
        0x45, 0x00, 0x00, 0x00, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0x00, 0x00,
        198, 18, 0, 2, 198, 19, 0, 2,
        0x30, 0x39, 0x00, 0x50, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x50, 0x19 /* FIN | PSH | ACK */, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00};
    uint16_t ph;

    memcpy(b, hdr, sizeof(hdr));
    for (size_t i = 0; i < payload; i++) {
        b[54 + i] = (uint8_t)i;
    }
    ph = csum16(b + 26, 8, 6); /* addresses + protocol, no length */
    b[50] = (uint8_t)(ph >> 8);
    b[51] = (uint8_t)ph;
    return 54 + payload;
}

/* mk_csum_frame: a TCP/IPv4 frame with 30 bytes of payload for plain checksum offload (no
 * TSE): its TCP checksum field holds the full pseudo-header sum; returns its length. */
static size_t mk_csum_frame(uint8_t *frame)
{
    size_t len = mk_tso_frame(frame, 30);
    frame[16] = 0;
    frame[17] = 84;
    uint16_t ph = csum16(frame + 26, 8, 6 + 50);
    frame[50] = (uint8_t)(ph >> 8);
    frame[51] = (uint8_t)ph;
    return len;
}

static void test_tx_tso_and_checksums(void **state)
{
    struct fx *f = *state;
    uint8_t frame[400];
    size_t len = mk_tso_frame(frame, 250), l4 = 34;
    /* context: MACLEN 14, IPLEN 20; TUCMD IPv4 + TCP; L4LEN 20, MSS 100, IDX 0 */
    uint64_t ctx_lo = (uint64_t)(14u << 9 | 20u);
    uint64_t ctx_hi = (uint64_t)(20u << 8 | 100u << 16) << 32 |
                      (0x00000400u | 0x00000800u | 0x00200000u | 0x20000000u);
    uint32_t seq0 = 0x1000;

    bring_up(f);
    tx_setup(f, 0, 8);
    memcpy(hostp(f, TX_BUF(0)), frame, len);
    put64(f, TX_RING(0), ctx_lo);
    put64(f, TX_RING(0) + 8, ctx_hi);
    tx_desc(f, 0, 1, TX_BUF(0), (uint32_t)len, true, true, 250);
    put64(f, TX_RING(0) + 16 + 8, mem32(f, TX_RING(0) + 16 + 8) | 0x80000000ull /* TSE */ |
                                      (uint64_t)(0x300u /* IXSM, TXSM */ | 250u << 14) << 32);
    wr(f, T_TDT(0), 2);
    assert_int_equal(rd(f, T_TDH(0)), 2);
    assert_int_equal(f->ntx, 3); /* 100 + 100 + 50 bytes of payload */
    for (unsigned i = 0; i < 3; i++) {
        const uint8_t *o = f->tx[i];
        size_t seg = i < 2 ? 100 : 50, flen = 54 + seg;
        uint32_t seq = (uint32_t)o[38] << 24 | (uint32_t)o[39] << 16 | (uint32_t)o[40] << 8 | o[41];

        assert_int_equal(f->txlen[i], flen);
        assert_int_equal(o[16] << 8 | o[17], flen - 14);           /* IPv4 total length */
        assert_int_equal(o[18] << 8 | o[19], 0x1234 + i);          /* IP ID + n */
        assert_int_equal(csum16(o + 14, 20, 0), 0xFFFF);           /* IPv4 checksum valid */
        assert_int_equal(seq, seq0 + 100 * i);                     /* sequence + n * MSS */
        assert_int_equal(o[47] & 0x09, i == 2 ? 0x09 : 0);         /* FIN/PSH last only */
        /* TCP checksum over the pseudo-header (with this segment's length) and the segment */
        assert_int_equal(csum16(o + l4, flen - l4, csum16(o + 26, 8, 6) + (flen - l4)), 0xFFFF);
        assert_memory_equal(o + 54, frame + 54 + 100 * i, seg);
    }
    assert_int_equal(rd(f, T_GPTC), 3); /* segments are counted as they leave */
    /* plain checksum offload (no TSE): the field holds the full pseudo-header sum */
    len = mk_csum_frame(frame);
    memcpy(hostp(f, TX_BUF(1)), frame, len);
    tx_desc(f, 0, 2, TX_BUF(1), (uint32_t)len, true, true, (uint32_t)len);
    put64(f, TX_RING(0) + 32 + 8, mem32(f, TX_RING(0) + 32 + 8) |
                                      (uint64_t)(0x300u | (uint32_t)len << 14) << 32);
    wr(f, T_TDT(0), 3);
    assert_int_equal(f->ntx, 4);
    assert_int_equal(csum16(f->tx[3] + 14, 20, 0), 0xFFFF);
    assert_int_equal(csum16(f->tx[3] + l4, 50, csum16(f->tx[3] + 26, 8, 6) + 50), 0xFFFF);
}

/* ---- VLAN: stripping (RXDCTL.VME) and insertion (DCMD.VLE) ---------------------------- */

/* mk_tagged: fr's frame (len bytes) with an 802.1Q tag (TPID 0x8100, tci) after the MACs. */
static size_t mk_tagged(uint8_t *out, const uint8_t *fr, size_t len, uint16_t tci)
{
    memcpy(out, fr, 12);
    out[12] = 0x81;
    out[13] = 0x00;
    out[14] = (uint8_t)(tci >> 8);
    out[15] = (uint8_t)tci;
    memcpy(out + 16, fr + 12, len - 12);
    return len + 4;
}

/* A tagged frame on a queue with VME arrives without its tag, the TCI and VP in the
 * write-back; on a queue without, as it came, VP set and no tag in the write-back (the strict
 * reading the driver must live with: it looks at VP only where it strips). RSS still sees the
 * IPv4/UDP behind the tag, and the counters count the frame as it was on the wire. */
static void test_rx_vlan_strip(void **state)
{
    struct fx *f = *state;
    uint8_t fr[256], tagged[260];
    size_t len = mk_ip4(fr, MAC0, (uint8_t[4]){10, 0, 0, 1}, (uint8_t[4]){10, 0, 0, 2}, 1000,
                        2000, 17, 100);
    size_t tlen = mk_tagged(tagged, fr, len, 0x600A); /* priority 3, VID 10 */

    bring_up(f);
    assert_int_equal(rd(f, 0x05088) & 0xFFFF, 0x8100); /* VLNCTRL.VET from reset */
    rx_setup(f, 0, 8, 2, 0);
    wr(f, T_RXDCTL(0), rd(f, T_RXDCTL(0)) | 0x40000000u); /* VME */
    assert_int_equal(ixgbe_model_inject(f->m, tagged, tlen), 0);
    assert_memory_equal(hostp(f, RX_BUF(0, 0)), fr, len);
    assert_int_equal(mem32(f, RX_RING(0)) & 0xFFF0u, 0x0010u | 0x0200u); /* IPv4, UDP */
    assert_int_equal(mem32(f, RX_RING(0) + 8) & 0xFu, 0xBu);              /* DD EOP VP */
    assert_int_equal(mem32(f, RX_RING(0) + 12), len | 0x600Au << 16);    /* length, tag */
    assert_int_equal(rd(f, T_GORCL), tlen + 4); /* the wire's bytes */

    wr(f, T_RXDCTL(0), rd(f, T_RXDCTL(0)) & ~0x40000000u);
    assert_int_equal(ixgbe_model_inject(f->m, tagged, tlen), 0);
    assert_memory_equal(hostp(f, RX_BUF(0, 1)), tagged, tlen);
    assert_int_equal(mem32(f, RX_RING(0) + 16 + 8) & 0xFu, 0xBu);
    assert_int_equal(mem32(f, RX_RING(0) + 16 + 12), tlen);
    /* an untagged frame: no VP, whatever VME says */
    wr(f, T_RXDCTL(0), rd(f, T_RXDCTL(0)) | 0x40000000u);
    assert_int_equal(ixgbe_model_inject(f->m, fr, len), 0);
    assert_int_equal(mem32(f, RX_RING(0) + 32 + 8) & 0xFu, 0x3u);
    assert_int_equal(mem32(f, RX_RING(0) + 32 + 12), len);
}

/* VLE puts the tag of the context IDX names after the MACs, behind TPID DMATXCTL.VT; the
 * checksum offloads work on the frame as it is in memory (MACLEN 14); without a context in
 * that slot VLE is misuse and the queue halts. */
static void test_tx_vlan_insert(void **state)
{
    struct fx *f = *state;
    uint8_t a[64], want[68], frame[400];

    bring_up(f);
    assert_int_equal(rd(f, T_DMATXCTL) >> 16, 0x8100); /* VT from reset */
    tx_setup(f, 0, 8);
    wr(f, T_DMATXCTL, 0x81000001u); /* tx_setup wrote TE alone: VT back */
    mk_plain(a, BCAST, sizeof(a));
    memcpy(hostp(f, TX_BUF(0)), a, sizeof(a));
    /* context in slot 1: VLAN 0x0014 (VID 20), MACLEN 14, no L3/L4 offload */
    put64(f, TX_RING(0), (uint64_t)0x0014u << 16 | 14u << 9);
    put64(f, TX_RING(0) + 8, (uint64_t)(1u << 4) << 32 | 0x00200000u | 0x20000000u);
    tx_desc(f, 0, 1, TX_BUF(0), 64, true, true, 64);
    put64(f, TX_RING(0) + 16 + 8, mem32(f, TX_RING(0) + 16 + 8) | 0x40000000u /* VLE */ |
                                      (uint64_t)(64u << 14 | 1u << 4) << 32);
    wr(f, T_TDT(0), 2);
    assert_int_equal(f->ntx, 1);
    assert_int_equal(f->txlen[0], 68);
    assert_memory_equal(f->tx[0], memcpy(want, a, 12), 12);
    assert_int_equal(f->tx[0][12] << 8 | f->tx[0][13], 0x8100);
    assert_int_equal(f->tx[0][14] << 8 | f->tx[0][15], 0x0014);
    assert_memory_equal(f->tx[0] + 16, a + 12, 52);

    /* with the TCP/IPv4 checksums in the same context (slot 1): summed over the untagged
     * frame's offsets, then tagged */
    size_t len = mk_csum_frame(frame);
    memcpy(hostp(f, TX_BUF(1)), frame, len);
    put64(f, TX_RING(0) + 32, (uint64_t)0x0014u << 16 | 14u << 9 | 20u);
    put64(f, TX_RING(0) + 32 + 8,
          (uint64_t)(1u << 4) << 32 | 0x00000400u | 0x00000800u | 0x00200000u | 0x20000000u);
    tx_desc(f, 0, 3, TX_BUF(1), (uint32_t)len, true, true, (uint32_t)len);
    put64(f, TX_RING(0) + 48 + 8, mem32(f, TX_RING(0) + 48 + 8) | 0x40000000u |
                                      (uint64_t)(0x300u | 1u << 4 | (uint32_t)len << 14) << 32);
    wr(f, T_TDT(0), 4);
    assert_int_equal(f->ntx, 2);
    assert_int_equal(f->txlen[1], len + 4);
    assert_int_equal(f->tx[1][14] << 8 | f->tx[1][15], 0x0014);
    assert_int_equal(csum16(f->tx[1] + 18, 20, 0), 0xFFFF);
    assert_int_equal(csum16(f->tx[1] + 38, 50, csum16(f->tx[1] + 30, 8, 6) + 50), 0xFFFF);

    /* VLE naming slot 0, which no context filled: misuse, the queue halts */
    tx_desc(f, 0, 4, TX_BUF(0), 64, true, true, 64);
    put64(f, TX_RING(0) + 64 + 8, mem32(f, TX_RING(0) + 64 + 8) | 0x40000000u |
                                      (uint64_t)(64u << 14) << 32);
    EXPECT_MISUSE(f, "VLE with no context descriptor", wr(f, T_TDT(0), 5));
    assert_int_equal(f->ntx, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_power_on_state, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_reset_self_clears, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_write_during_reset_is_misuse, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_link_restart_and_cable, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_faults_keep_status_down, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_queue_enable_latching, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_rx_frame_write_back, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_rx_ipv4_checksum_status, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_rx_l4_checksum_status, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_rx_multi_descriptor_frame, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_rx_filters, fx_setup, fx_teardown),
        cmocka_unit_test(test_rss_toeplitz_function),
        cmocka_unit_test_setup_teardown(test_rss_hash_and_queue, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_rx_missed_no_descriptor, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_rx_link_down_and_disabled, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_tx_consumes_and_writes_dd, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_tx_waits_and_stops, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_msix_via_ivar, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_msix_eiam_and_eitr, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_stats_36bit_and_queue_map, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_misuse_enable_before_base, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_misuse_tail_beyond_ring, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_misuse_dma_outside_memory, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_misuse_reserved_bits, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_misuse_tx_paylen_and_unmodelled, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_reentrant_callbacks, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_two_instances_and_log, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_eeprom_through_eerd, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_mdio_no_phy_and_semaphore, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_backplane_board_and_next_event, fx_setup,
                                        fx_teardown),
        cmocka_unit_test_setup_teardown(test_tx_tso_and_checksums, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_rx_vlan_strip, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(test_tx_vlan_insert, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
