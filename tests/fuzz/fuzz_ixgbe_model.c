/*
 * tests/fuzz/fuzz_ixgbe_model.c: libFuzzer harness for the receive path as the firmware really
 * runs it: the 82599 driver (drivers/nic/ixgbe.c), the NIC layer and rings (nic.c, intel_ring.c),
 * MSI-X (drivers/pci/msix.c) and the forwarding app (apps/fwd, net/) on two ports of the 82599
 * datasheet model (tests/model), through tests/hostsim/ixgbe_platform.c, as ixgbe_sim runs them,
 * with 4 cores. The fuzz data puts frames on the wires and, through the platform's DMA-write
 * hook, makes the device hostile: it rewrites the RX descriptor write-backs as the model writes
 * them (82599 datasheet §7.1.6.2: length, DD, EOP, error and status bits, RSS type, packet type,
 * hash), holds write-backs back and writes them later, writes DD into a slot the device does not
 * own, and holds back or garbles TX write-backs (§7.2.3.2.4) too.
 *
 * The firmware boots once per process (its tables are static and boot-once); every input must
 * leave the appliance as quiet as it found it. Between inputs the neighbour table is reset to
 * host A and host B only, and the clock moves on 1 s (the ICMP limiter and the ARP retry memory
 * forget the previous input); ring positions carry over (an input starts wherever the last one
 * left each ring).
 *
 * Input: operations, each an opcode byte (op % 16) and what follows it:
 *   0-9   a frame on the wire of port (op & 1), see fz_inject: kind byte (bits 0-3 the kind, bit 4
 *         a broadcast destination MAC, bit 5 byte patches follow, bit 6 rewrite the IPv4 and
 *         ICMP checksums after patching, bit 7 a write-back mutation follows), flow byte, then
 *         what the kind and the flags ask for
 *   10    passes: byte b: 1 + (b & 7) rounds, each by the cores in mask b >> 4 (0: all four)
 *   11    the held RX write-backs: byte b % 8 oldest written now (0: all)
 *   12    the next (byte % 8) TX write-backs on port byte >> 7 held back; a second byte's bits
 *         1-7 set in their status as garbage
 *   13    the held TX write-backs written now, all
 *   14    hostile: DD | EOP written into RX queue (byte & 3) of port (byte >> 2 & 1) at the
 *         driver's next_to_use, the slot it keeps empty (the NIC does not own it); then 2 bytes
 *         of length
 *   15    housekeeping (nic_housekeeping: link, statistics registers, the TX watchdog)
 * At most FZ_MAX_FRAMES frames per input; the rest of the ops still run.
 *
 * Invariants (besides no crash, no ASan/UBSan report):
 *   - after every pass of a core: each descriptor its RX rings consumed (next_to_clean passed
 *     it) holds a write-back with DD that the device wrote since the driver posted it: no
 *     descriptor the NIC has not written, none held back, none stray; and the ring's packets,
 *     errors, oversize and bytes equal a reference judging the same write-backs in ring order
 *     (EOP chains dropped whole, error mask, 0 < length <= PKB_DATA_BYTES);
 *   - once quiet (held write-backs written, passes until nothing moves and no TX in flight):
 *     every write-back taken; every RX ring posted full (size - 1), RDT = next_to_use, every
 *     posted slot armed (DD clear) with the buffer behind it; the model's packet buffer empty;
 *   - counters conserve: descriptors the model placed = descriptors the rings consumed, per
 *     port; per (port, core) frames received = forwarded + fwd drops + IPv4 and IPv6 route
 *     drops + local outcomes (IPv4 and IPv6) + the interface drops (no_address, unknown and
 *     truncated VLAN tags: a fuzzed frame carries any TPID); frames the model sent = TX
 *     completions, per port; forwarded = forwarded completions; completions = forwarded + ARP
 *     requests and neighbour solicitations + ICMP and ICMPv6 errors + ARP, advertisement and
 *     echo replies; no TX ring_full, bad_len or flushed frame;
 *   - pools: free + held by RX rings = size on every core, no foreign or double free;
 *   - the platform clean: no model misuse, no DMA outside registered memory, no stray MSI-X.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "apps/fwd/fwd.h"
#include "config.h"
#include "drivers/nic/nic.h"
#include "net/iface.h"
#include "net/neigh.h"
#include "net/nexthop.h"
#include "net/nexthop6.h"
#include "tests/fuzz/fuzz.h"
#include "tests/hostsim/fwd_sim.h"
#include "tests/hostsim/ixgbe_appliance.h"
#include "tests/hostsim/ixgbe_platform.h"

#define FZ_CORES 4
#define FZ_MAX_FRAMES 256        /* per input: fewer than a TX ring holds, held write-backs too */
#define FZ_MAX_HELD 512          /* held write-backs per direction */
#define FZ_QUIET_ROUNDS 64       /* passes of every core to settle; far more than ever needed */
#define FZ_RX_DESCS CONFIG_NIC_RX_DESCS
#define FZ_TX_DESCS CONFIG_NIC_TX_DESCS
#define FZ_PASS_NS 1000ULL
#define FZ_INPUT_GAP_NS 1000000000ULL

/* The hosts on the wires (tests/hostsim/README.md's addresses). */
#define FZ_IP_PORT0 0xC6120001u /* 198.18.0.1/24 */
#define FZ_IP_PORT1 0xC6130001u /* 198.19.0.1/24 */
#define FZ_IP_HOST_A 0xC6120002u
#define FZ_IP_HOST_B 0xC6130002u
#define FZ_IP_ROUTED 0xC6336400u /* 198.51.100.0/24: .0-.127 via host B, .128-.255 via host A */
static const uint8_t fz_mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0A };
static const uint8_t fz_mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0B };
static const uint8_t fz_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t fz_no_mac[6]; /* an ARP request's target hardware address */

/* --- the harness's view of each RX ring ------------------------------------------------------ */

struct fz_rx_ring {
    /* per slot: a write-back with DD has landed and the driver has not taken it yet, and what
     * it said (as it landed, after any mutation) */
    bool written[FZ_RX_DESCS];
    uint32_t staterr[FZ_RX_DESCS];
    uint16_t len[FZ_RX_DESCS];
    uint16_t seen_ntc; /* next_to_clean after the last check */
    /* the reference judge of what was consumed */
    bool discarding;
    uint64_t packets, errors, oversize, bytes, consumed;
};

static struct fz_rx_ring fz_rx[XS_PORTS][FZ_CORES];

/* A write-back the hostile device holds back, to write later. */
struct fz_held {
    uint64_t addr;
    uint8_t bytes[16];
    uint8_t len;
};

static struct fz_held fz_held_rx[FZ_MAX_HELD], fz_held_tx[FZ_MAX_HELD];
static unsigned fz_nheld_rx, fz_nheld_tx;

/* What the device does to the write-back of the frame being injected (one-shot). */
struct fz_rx_mut {
    bool active;
    uint8_t how;
    uint16_t len;
    uint32_t errors, status, info, hash;
};

static struct fz_rx_mut fz_rx_mut;

/* TX write-backs: the next `hold` are held back, each with `garbage` in its status bits. */
static struct {
    unsigned hold;
    uint8_t garbage;
    unsigned port;
} fz_tx_mut;

#define FZ_MUT_LEN_MASK 0x07 /* length: keep, 0, 2049, 65535, 2048, 2 bytes, shorter, longer */
#define FZ_MUT_NO_EOP 0x08
#define FZ_MUT_HOLD 0x10
#define FZ_MUT_ERRORS 0x20
#define FZ_MUT_STATUS 0x40
#define FZ_MUT_RSS 0x80

/* --- the hook: the device's DMA writes ------------------------------------------------------ */

/* fz_rx_slot: is addr the start of a descriptor of one of port's RX rings? */
static bool fz_rx_slot(unsigned port, uint64_t addr, unsigned *core, uint16_t *slot)
{
    const struct nic_port *p = nic_port(port);
    for (unsigned c = 0; p != NULL && c < p->nqueues; c++) {
        const struct iring_rx *r = &p->q[c].rx;
        uint64_t base = (uint64_t)(uintptr_t)r->desc;
        if (addr >= base && addr < base + IRING_DESC_MEM_BYTES(r->size)) {
            *core = c;
            *slot = (uint16_t)((addr - base) / sizeof(union idesc_rx));
            return true;
        }
    }
    return false;
}

/* fz_tx_slot: is addr inside one of port's TX rings? */
static bool fz_tx_slot(unsigned port, uint64_t addr)
{
    const struct nic_port *p = nic_port(port);
    for (unsigned c = 0; p != NULL && c < p->nqueues; c++) {
        const struct iring_tx *t = &p->q[c].tx;
        uint64_t base = (uint64_t)(uintptr_t)t->desc;
        if (addr >= base && addr < base + IRING_DESC_MEM_BYTES(t->size)) {
            return true;
        }
    }
    return false;
}

/* fz_rx_land: a write-back reaches host memory: what the driver will find there. */
static void fz_rx_land(unsigned port, unsigned core, uint16_t slot, const union idesc_rx *wb)
{
    struct fz_rx_ring *fr = &fz_rx[port][core];
    memcpy((void *)(uintptr_t)&nic_port(port)->q[core].rx.desc[slot], wb, sizeof(*wb));
    if (wb->wb.status_error & IDESC_RX_STATUS_DD) {
        fr->written[slot] = true;
        fr->staterr[slot] = wb->wb.status_error;
        fr->len[slot] = wb->wb.length;
    }
}

static uint16_t fz_mut_len(const struct fz_rx_mut *m, uint16_t len)
{
    switch (m->how & FZ_MUT_LEN_MASK) {
    case 1:
        return 0;
    case 2:
        return PKB_DATA_BYTES + 1;
    case 3:
        return 0xFFFF;
    case 4:
        return PKB_DATA_BYTES;
    case 5:
        return m->len;
    case 6:
        return (uint16_t)(len - 1 - m->len % len);
    case 7:
        return (uint16_t)(len + 1 + m->len % PKB_DATA_BYTES);
    default:
        return len;
    }
}

/* fz_rx_writeback: the model writes back RX descriptor `slot`: land it as the input says. */
static bool fz_rx_writeback(unsigned port, unsigned core, uint16_t slot, const void *data)
{
    union idesc_rx wb;
    memcpy(&wb, data, sizeof(wb));
    struct fz_rx_mut *m = &fz_rx_mut;
    if (m->active) {
        m->active = false;
        wb.wb.length = fz_mut_len(m, wb.wb.length);
        if (m->how & FZ_MUT_NO_EOP) {
            wb.wb.status_error &= ~IDESC_RX_STATUS_EOP;
        }
        if (m->how & FZ_MUT_ERRORS) {
            wb.wb.status_error |= m->errors & 0xFFF00000u;
        }
        if (m->how & FZ_MUT_STATUS) {
            /* any extended status bit but DD and EOP (L4I among them: the checksum verdict) */
            wb.wb.status_error |= m->status & 0x000FFFFCu;
        }
        if (m->how & FZ_MUT_RSS) {
            wb.wb.info = m->info;
            wb.wb.rss_hash = m->hash;
        }
        if ((m->how & FZ_MUT_HOLD) && fz_nheld_rx < FZ_MAX_HELD) {
            /* Not written yet: the slot keeps the read format the driver armed (DD clear). */
            struct fz_held *h = &fz_held_rx[fz_nheld_rx++];
            h->addr = (uint64_t)(uintptr_t)&nic_port(port)->q[core].rx.desc[slot];
            memcpy(h->bytes, &wb, sizeof(wb));
            h->len = sizeof(wb);
            return false;
        }
    }
    fz_rx_land(port, core, slot, &wb);
    return false;
}

/* fz_tx_writeback: the model writes DD back into a TX descriptor's status (8 bytes at +8). */
static bool fz_tx_writeback(unsigned port, uint64_t addr, const void *data)
{
    if (fz_tx_mut.hold == 0 || fz_tx_mut.port != port || fz_nheld_tx == FZ_MAX_HELD) {
        return true;
    }
    fz_tx_mut.hold--;
    struct fz_held *h = &fz_held_tx[fz_nheld_tx++];
    h->addr = addr;
    memcpy(h->bytes, data, 8);
    h->bytes[4] |= (uint8_t)(fz_tx_mut.garbage & 0xFE); /* STA: DD stays as written */
    h->len = 8;
    return false;
}

static bool fz_on_dma_write(void *ctx, uint64_t addr, const void *data, size_t len)
{
    unsigned port = (unsigned)(uintptr_t)ctx, core;
    uint16_t slot;
    if (len == sizeof(union idesc_rx) && fz_rx_slot(port, addr, &core, &slot)) {
        return fz_rx_writeback(port, core, slot, data);
    }
    if (len == 8 && fz_tx_slot(port, addr)) {
        return fz_tx_writeback(port, addr, data);
    }
    return true; /* frame data */
}

/* fz_deliver_rx: the oldest n held RX write-backs land (n = 0: all). */
static void fz_deliver_rx(unsigned n)
{
    unsigned k = n == 0 || n > fz_nheld_rx ? fz_nheld_rx : n;
    for (unsigned i = 0; i < k; i++) {
        unsigned core;
        uint16_t slot;
        for (unsigned port = 0; port < XS_PORTS; port++) {
            if (fz_rx_slot(port, fz_held_rx[i].addr, &core, &slot)) {
                union idesc_rx wb;
                memcpy(&wb, fz_held_rx[i].bytes, sizeof(wb));
                /* Held, so never taken: the buffer the device filled is still behind the slot. */
                FUZZ_CHECK(nic_port(port)->q[core].rx.sw[slot] != NULL);
                fz_rx_land(port, core, slot, &wb);
            }
        }
    }
    memmove(fz_held_rx, fz_held_rx + k, (fz_nheld_rx - k) * sizeof(fz_held_rx[0]));
    fz_nheld_rx -= k;
}

static void fz_deliver_tx(void)
{
    for (unsigned i = 0; i < fz_nheld_tx; i++) {
        memcpy((void *)(uintptr_t)fz_held_tx[i].addr, fz_held_tx[i].bytes, fz_held_tx[i].len);
    }
    fz_nheld_tx = 0;
}

/* --- the checks after a pass ----------------------------------------------------------------- */

/* fz_judge: the reference for one consumed descriptor (intel_ring.h's contract: a chain of
 * non-EOP descriptors is one oversize error up to its EOP; errors only on the EOP one). */
FUZZ_UNTRACED static void fz_judge(struct fz_rx_ring *fr, uint32_t st, uint16_t len)
{
    if (fr->discarding) {
        fr->discarding = (st & IDESC_RX_STATUS_EOP) == 0;
    } else if ((st & IDESC_RX_STATUS_EOP) == 0) {
        fr->discarding = true;
        fr->oversize++;
        fr->errors++;
    } else if ((st & IDESC_RX_ERR_FRAME_82599) != 0 || len == 0 || len > PKB_DATA_BYTES) {
        fr->errors++;
    } else {
        fr->packets++;
        fr->bytes += len;
    }
}

/* fz_check_ring: what (port, core)'s RX ring consumed since the last check. */
FUZZ_UNTRACED static void fz_check_ring(unsigned port, unsigned core)
{
    const struct iring_rx *r = &nic_port(port)->q[core].rx;
    struct fz_rx_ring *fr = &fz_rx[port][core];
    for (uint16_t i = fr->seen_ntc; i != r->next_to_clean; i = (i + 1) & r->mask) {
        FUZZ_CHECK(fr->written[i]); /* never a descriptor the NIC has not written back */
        fr->written[i] = false;
        fr->consumed++;
        fz_judge(fr, fr->staterr[i], fr->len[i]);
    }
    fr->seen_ntc = r->next_to_clean;
    FUZZ_CHECK(r->stats.packets == fr->packets);
    FUZZ_CHECK(r->stats.errors == fr->errors);
    FUZZ_CHECK(r->stats.oversize == fr->oversize);
    FUZZ_CHECK(r->stats.bytes == fr->bytes);
    FUZZ_CHECK(r->discarding == fr->discarding);
}

static unsigned fz_pass(unsigned core)
{
    unsigned n = fwd_poll_core(core);
    for (unsigned p = 0; p < XS_PORTS; p++) {
        fz_check_ring(p, core);
    }
    return n;
}

/* fz_rounds: every core in mask (bit c: core c) passes once per round, time moving on. */
static unsigned fz_rounds(unsigned rounds, unsigned mask)
{
    unsigned moved = 0;
    for (unsigned k = 0; k < rounds; k++) {
        for (unsigned c = 0; c < FZ_CORES; c++) {
            if (mask & (1u << c)) {
                moved += fz_pass(c);
            }
        }
        xs_advance(FZ_PASS_NS);
    }
    return moved;
}

/* --- frames on the wires --------------------------------------------------------------------- */

/* fz_ipv4: an IPv4 frame of len bytes (>= 42), L4 header zeroed but for ports. */
static void fz_ipv4(uint8_t *f, uint16_t len, const uint8_t *dmac, const uint8_t *smac,
                    uint32_t src, uint32_t dst, uint8_t proto, uint8_t ttl, uint16_t frag,
                    uint16_t flow)
{
    memset(f, 0, len);
    memcpy(f, dmac, 6);
    memcpy(f + 6, smac, 6);
    sim_st16(f + 12, 0x0800);
    uint8_t *ip = f + 14, *l4 = ip + 20;
    ip[0] = 0x45;
    sim_st16(ip + 2, (uint16_t)(len - 14));
    sim_st16(ip + 4, flow);
    sim_st16(ip + 6, frag);
    ip[8] = ttl;
    ip[9] = proto;
    sim_st32(ip + 12, src);
    sim_st32(ip + 16, dst);
    if (proto == 1) {
        l4[0] = 8; /* echo request; fuzz_fix_checksums or the caller sets its checksum */
        sim_st16(l4 + 4, flow);
        sim_st16(l4 + 6, 1);
    } else {
        sim_st16(l4, (uint16_t)(1024 + flow));
        sim_st16(l4 + 2, (uint16_t)(7 + (flow >> 4)));
        if (proto == 17) {
            sim_st16(l4 + 4, (uint16_t)(len - 34));
        } else if (len >= 34 + 20) {
            l4[12] = 0x50;
            l4[13] = 0x10;
        }
    }
    fuzz_fix_checksums(f, len, 1, 1);
}

/* fz_build: frame `kind` towards port's wire from a host behind it. Returns its length. */
static uint16_t fz_build(uint8_t *f, unsigned port, unsigned kind, uint8_t flow,
                         struct fuzz_in *in)
{
    const uint8_t *pmac = xs_port(port)->mac, *hmac = port == 0 ? fz_mac_a : fz_mac_b;
    uint32_t pip = port == 0 ? FZ_IP_PORT0 : FZ_IP_PORT1;
    uint32_t host = (pip & ~0xFFu) | (2u + flow % 200u); /* a host on the port's subnet */
    /* forwarded: from port0 into 198.51.100.0/25 (out of port1, via B), from port1 to A */
    uint32_t fwd_dst = port == 0 ? FZ_IP_ROUTED | (flow & 0x7Fu) : FZ_IP_HOST_A;
    uint16_t len = 60;

    switch (kind) {
    case 0:
    case 14:
    case 15:
        fz_ipv4(f, len, pmac, hmac, host, fwd_dst, 17, 64, 0x4000, flow);
        break;
    case 1:
        fz_ipv4(f, len, pmac, hmac, host, fwd_dst, 6, 64, 0x4000, flow);
        break;
    case 2: /* echo request to the port's address */
        len = (uint16_t)(60 + fuzz_u8(in) % 64);
        fz_ipv4(f, len, pmac, hmac, host, pip, 1, 64, 0, flow);
        break;
    case 3:
        sim_build_arp(f, 1, fz_bcast, hmac, host, fz_no_mac, pip);
        break;
    case 4:
        sim_build_arp(f, 2, pmac, hmac, host, pmac, pip);
        break;
    case 5: /* TTL 1: time exceeded */
        fz_ipv4(f, len, pmac, hmac, host, fwd_dst, 17, 1, 0, flow);
        break;
    case 6: /* no route: net unreachable */
        fz_ipv4(f, len, pmac, hmac, host, 0x0A000001u | (uint32_t)flow << 8, 17, 64, 0, flow);
        break;
    case 7: /* a neighbour nobody knows: ARP request, frame dropped */
        fz_ipv4(f, len, pmac, hmac, host, (FZ_IP_HOST_B & ~0xFFu) | (100u + flow % 100u), 17, 64,
                0, flow);
        break;
    case 8: /* junk: any length, any bytes (the destination MAC stays the port's) */
        len = (uint16_t)(fuzz_u16(in) % 1600);
        memcpy(f, pmac, 6);
        for (uint16_t i = 6; i < len; i++) {
            f[i] = fuzz_u8(in);
        }
        break;
    case 9: /* forwarded, any size: over 1518 bytes the NIC drops it (ROC) */
        len = (uint16_t)(60 + fuzz_u16(in) % 1540);
        fz_ipv4(f, len, pmac, hmac, host, fwd_dst, 17, 64, 0, flow);
        break;
    case 10: /* a later fragment: RSS hashes the addresses only */
        fz_ipv4(f, len, pmac, hmac, host, fwd_dst, 17, 64, 0x2000 | flow, flow);
        break;
    case 11: /* not IPv4 */
        fz_ipv4(f, len, pmac, hmac, host, fwd_dst, 17, 64, 0, flow);
        sim_st16(f + 12, 0x86DD);
        break;
    case 12: /* the other port's address */
        fz_ipv4(f, len, pmac, hmac, host, port == 0 ? FZ_IP_PORT1 : FZ_IP_PORT0, 1, 64, 0, flow);
        break;
    default: /* 13: the other subnet's directed broadcast */
        fz_ipv4(f, len, pmac, hmac, host, (port == 0 ? FZ_IP_PORT1 : FZ_IP_PORT0) | 0xFF, 17, 64,
                0, flow);
        break;
    }
    return len;
}

/* fz_read_mut: the write-back mutation that follows a frame (see FZ_MUT_*). */
static void fz_read_mut(struct fuzz_in *in)
{
    struct fz_rx_mut *m = &fz_rx_mut;
    memset(m, 0, sizeof(*m));
    m->active = true;
    m->how = fuzz_u8(in);
    if ((m->how & FZ_MUT_LEN_MASK) >= 5) {
        m->len = fuzz_u16(in);
    }
    if (m->how & FZ_MUT_ERRORS) {
        m->errors = (uint32_t)fuzz_u16(in) << 16;
    }
    if (m->how & FZ_MUT_STATUS) {
        m->status = (uint32_t)fuzz_u16(in) << 2;
    }
    if (m->how & FZ_MUT_RSS) {
        m->info = fuzz_u32(in);
        m->hash = fuzz_u32(in);
    }
}

static unsigned fz_frames;

static void fz_inject(unsigned port, struct fuzz_in *in)
{
    static uint8_t f[1600];
    uint8_t kind = fuzz_u8(in), flow = fuzz_u8(in);
    uint16_t len = fz_build(f, port, kind & 15, flow, in);
    if (kind & 0x10) {
        memcpy(f, fz_bcast, 6);
    }
    if (kind & 0x20) {
        unsigned n = 1 + fuzz_u8(in) % 4;
        for (unsigned i = 0; i < n; i++) {
            uint16_t at = fuzz_u16(in);
            uint8_t v = fuzz_u8(in);
            if (len > 0) {
                f[at % len] = v;
            }
        }
    }
    if (kind & 0x40) {
        fuzz_fix_checksums(f, len, 1, 1);
    }
    if (kind & 0x80) {
        fz_read_mut(in);
    }
    if (fz_frames < FZ_MAX_FRAMES) {
        fz_frames++;
        ixgbe_model_inject(xs_port(port)->m, f, len);
    }
    fz_rx_mut.active = false; /* not placed (filtered, too short or long, no descriptor) */
}

/* fz_stray_dd: DD | EOP in the slot the driver keeps empty; the NIC does not own it. */
static void fz_stray_dd(struct fuzz_in *in)
{
    uint8_t b = fuzz_u8(in);
    uint16_t len = fuzz_u16(in);
    struct iring_rx *r = &nic_port((b >> 2) & 1)->q[b & 3].rx;
    volatile union idesc_rx *d = &r->desc[r->next_to_use];
    d->wb.info = 0;
    d->wb.rss_hash = 0;
    d->wb.length = len;
    d->wb.status_error = IDESC_RX_STATUS_DD | IDESC_RX_STATUS_EOP;
}

/* --- quiet: the books ---------------------------------------------------------------------- */

/* fz_settle: held write-backs land, then every core passes until nothing moves. */
static void fz_settle(void)
{
    fz_deliver_rx(0);
    fz_deliver_tx();
    fz_tx_mut.hold = 0;
    for (unsigned round = 0;; round++) {
        FUZZ_CHECK(round < FZ_QUIET_ROUNDS);
        if (fz_rounds(1, 0xF) == 0 && !xs_appliance_tx_in_flight()) {
            return;
        }
    }
}

/* fz_check_rings_quiet: every write-back taken; the rings refilled and armed; RDT = next_to_use. */
FUZZ_UNTRACED static void fz_check_rings_quiet(void)
{
    for (unsigned p = 0; p < XS_PORTS; p++) {
        for (unsigned c = 0; c < FZ_CORES; c++) {
            const struct iring_rx *r = &nic_port(p)->q[c].rx;
            const struct fz_rx_ring *fr = &fz_rx[p][c];
            for (unsigned i = 0; i < r->size; i++) {
                FUZZ_CHECK(!fr->written[i]);
            }
            /* full, or fewer slots free than a burst's refill waits for */
            FUZZ_CHECK(r->size - 1U - iring_rx_posted(r) < r->refill_min);
            for (uint16_t i = r->next_to_clean; i != r->next_to_use; i = (i + 1) & r->mask) {
                FUZZ_CHECK(r->sw[i] != NULL);
                FUZZ_CHECK(r->desc[i].read.pkt_addr == (uint64_t)(uintptr_t)r->sw[i]->data);
                FUZZ_CHECK((r->desc[i].wb.status_error & IDESC_RX_STATUS_DD) == 0);
            }
            uint32_t rdt = ixgbe_model_peek(xs_port(p)->m, IXGBE_MODEL_BAR_REGS,
                                            (uint32_t)(r->tail_reg - nic_port(p)->bar0));
            FUZZ_CHECK(rdt == r->next_to_use);
        }
    }
}

/* fz_check_books: the counters conserve (see the top of the file). */
FUZZ_UNTRACED static void fz_check_books(void)
{
    uint64_t fwd = 0, tx_fwd = 0, generated = 0, done = 0;
    for (unsigned p = 0; p < XS_PORTS; p++) {
        uint64_t consumed = 0, completions = 0;
        for (unsigned c = 0; c < FZ_CORES; c++) {
            const struct nic_queue *q = &nic_port(p)->q[c];
            const struct net_queue_stats *ns = net_queue_stats_of(p, c);
            const struct fwd_stats *st = fwd_stats_of(p, c);
            uint64_t outcomes = fwd_frame_outcomes(st) + net_queue_outcomes(ns);
            FUZZ_CHECK(q->rx.stats.packets == outcomes);
            FUZZ_CHECK(q->tx.stats.ring_full == 0 && q->tx.stats.bad_len == 0);
            FUZZ_CHECK(q->tx.stats.flushed == 0 && q->rx.stats.flushed == 0);
            consumed += fz_rx[p][c].consumed;
            completions += q->tx.stats.packets;
            fwd += st->forwarded;
            tx_fwd += q->tx.stats.forwarded;
            generated += nexthop_stats_of(p, c)->arp_requests_sent + st->icmp_errors_sent +
                         ns->local.arp_requests_answered + ns->local.icmp_echo_answered +
                         nexthop6_stats_of(p, c)->ns_sent + ns->local6.ns_answered +
                         ns->local6.echo6_answered;
        }
        struct ixgbe_model_counters mc;
        ixgbe_model_counters(xs_port(p)->m, &mc);
        FUZZ_CHECK(mc.rx_placed == consumed); /* one descriptor per frame: all fit 2 KiB */
        FUZZ_CHECK(mc.rx_pb_frames == 0);
        FUZZ_CHECK(xs_port(p)->tx_frames == completions);
        done += completions;
    }
    FUZZ_CHECK(tx_fwd == fwd);
    FUZZ_CHECK(done == fwd + generated);
}

/* fz_check_pools: every buffer in its pool or behind a slot of one of its core's RX rings
 * (posted, or kept in the empty slot for the next refill after a dropped frame). */
FUZZ_UNTRACED static void fz_check_pools(void)
{
    for (unsigned c = 0; c < FZ_CORES; c++) {
        const struct pkb_pool *pool = nic_pool(c);
        uint32_t held = 0;
        for (unsigned p = 0; p < XS_PORTS; p++) {
            const struct iring_rx *r = &nic_port(p)->q[c].rx;
            held += iring_rx_posted(r);
        }
        FUZZ_CHECK(pool->nfree + held == pool->size);
        FUZZ_CHECK(pool->foreign_free == 0 && pool->double_free == 0);
    }
}

static void fz_check_quiet(void)
{
    char why[1024];
    bool clean = xs_platform_clean(why, sizeof(why));
    if (!clean) {
        fprintf(stderr, "%s", why);
    }
    FUZZ_CHECK(clean);
    fz_check_rings_quiet();
    fz_check_books();
    fz_check_pools();
}

/* fz_report: FUZZ_IXGBE_VERBOSE=1: what the appliance has done so far, to see what a seed
 * reaches. */
static void fz_report(void)
{
    uint64_t pk = 0, err = 0, ovs = 0, fwd = 0, local = 0, drops = 0, tx = 0;
    for (unsigned p = 0; p < XS_PORTS; p++) {
        for (unsigned c = 0; c < FZ_CORES; c++) {
            const struct nic_queue *q = &nic_port(p)->q[c];
            const struct net_queue_stats *ns = net_queue_stats_of(p, c);
            const struct fwd_stats *st = fwd_stats_of(p, c);
            pk += q->rx.stats.packets;
            err += q->rx.stats.errors;
            ovs += q->rx.stats.oversize;
            fwd += st->forwarded;
            local += net_local_total(&ns->local) + net_local6_total(&ns->local6);
            drops += fwd_frame_outcomes(st) - st->forwarded;
            tx += q->tx.stats.packets;
        }
    }
    struct ixgbe_model_counters m0, m1;
    ixgbe_model_counters(xs_port(0)->m, &m0);
    ixgbe_model_counters(xs_port(1)->m, &m1);
    fprintf(stderr, "fuzz_ixgbe_model: %u frames in; model placed %" PRIu64 ", dropped %" PRIu64
            "; rings: %" PRIu64 " good, %" PRIu64 " errors (%" PRIu64 " oversize); forwarded %"
            PRIu64 ", local %" PRIu64 ", dropped %" PRIu64 "; sent %" PRIu64 "\n", fz_frames,
            m0.rx_placed + m1.rx_placed, m0.rx_bad_len + m1.rx_bad_len + m0.rx_filtered +
            m1.rx_filtered + m0.rx_no_desc + m1.rx_no_desc, pk, err, ovs, fwd, local, drops, tx);
}

/* --- boot, once; each input --------------------------------------------------------------- */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *failed;
    xs_platform_init(FZ_CORES, false);
    unsigned up = xs_appliance_boot(FZ_CORES, &failed);
    if (failed != NULL || up != XS_PORTS) {
        fprintf(stderr, "fuzz_ixgbe_model: boot: %u ports up, %s failed\n%s", up,
                failed ? failed : "nothing", xs_console());
        abort();
    }
    for (unsigned p = 0; p < XS_PORTS; p++) {
        FUZZ_CHECK(xs_port_of_pci(nic_port(p)->pci) == xs_port(p)); /* nic port i = model i */
        FUZZ_CHECK(nic_port(p)->nqueues == FZ_CORES);
        xs_port(p)->on_dma_write = fz_on_dma_write;
        xs_port(p)->dma_ctx = (void *)(uintptr_t)p;
        for (unsigned c = 0; c < FZ_CORES; c++) {
            fz_rx[p][c].seen_ntc = nic_port(p)->q[c].rx.next_to_clean;
        }
    }
    fz_settle();
    fz_check_quiet();
    return 0;
}

/* fz_neighbours: the table as every input finds it: host A behind port0, host B behind port1.
 * The console gets the table read-only; resetting it here is the harness's business alone. */
static void fz_neighbours(void)
{
    struct neigh_table *t = &nexthop_neighbours;
    neigh_init(t);
    FUZZ_CHECK(neigh_update(t, FZ_IP_HOST_A, fz_mac_a, xs_now()) == 0);
    FUZZ_CHECK(neigh_update(t, FZ_IP_HOST_B, fz_mac_b, xs_now()) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    xs_advance(FZ_INPUT_GAP_NS);
    fz_neighbours();
    fz_frames = 0;
    memset(&fz_tx_mut, 0, sizeof(fz_tx_mut));
    while (in.n > 0) {
        uint8_t op = fuzz_u8(&in) % 16, b;
        switch (op) {
        case 10:
            b = fuzz_u8(&in);
            fz_rounds(1u + (b & 7u), (b >> 4) ? (b >> 4) : 0xFu);
            break;
        case 11:
            fz_deliver_rx(fuzz_u8(&in) % 8);
            break;
        case 12:
            b = fuzz_u8(&in);
            fz_tx_mut.hold = b % 8;
            fz_tx_mut.port = b >> 7;
            fz_tx_mut.garbage = fuzz_u8(&in);
            break;
        case 13:
            fz_deliver_tx();
            break;
        case 14:
            fz_stray_dd(&in);
            break;
        case 15:
            nic_housekeeping();
            break;
        default:
            fz_inject(op & 1, &in);
            break;
        }
    }
    fz_settle();
    fz_check_quiet();
    if (getenv("FUZZ_IXGBE_VERBOSE") != NULL) {
        fz_report();
    }
    return 0;
}
