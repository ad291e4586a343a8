/*
 * tests/fakes/fake_sink_platform.c: the firmware around the sink, stood in for on the host (see
 * the header). Link-time stand-ins: nic_port, nic_port_count, nic_pool (drivers/nic/nic.c),
 * iring_tx_burst, iring_tx_burst_forward and iring_tx_burst_forward_tagged (drivers/nic/intel_ring.c), nexthop_resolve (net/nexthop.c), time_ns and
 * time_delay_us (kernel/time.c), loop_kick (kernel/loop.c), kprintf, kvprintf (kernel/console.c)
 * and panic (kernel/panic.c).
 */
#include "net/iface.h"
#include "net/nexthop6.h"
#include "tests/fakes/fake_sink_platform.h"
#include "tests/hostsim/sink_peer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "console.h"
#include "drivers/nic/intel_ring.h"
#include "drivers/nic/nic.h"
#include "tests/fakes/fake_tso.h"
#include "loop.h"
#include "panic.h"
#include "time.h"

struct fsp_tx_slot {
    struct pkb *b;
    unsigned port;
};

static bool fsp_quiet;
static uint64_t fsp_now_ns = 1000000000ULL; /* not 0: "never" must stay distinguishable */
static struct pkb_pool fsp_pools[FSP_CORES];
static struct nic_port fsp_ports[FSP_PORTS];
static uint64_t fsp_kick_count[FSP_CORES];
static enum nexthop_result fsp_hop = NEXTHOP_OK;
static struct fsp_tx_slot fsp_txq[FSP_TX_MAX]; /* a FIFO: [fsp_tx_head, fsp_tx_tail) */
static unsigned fsp_tx_head, fsp_tx_tail;
static uint64_t fsp_tx_drop;
static uint64_t fsp_tx_csum_completed; /* frames whose TCP checksum the fake NIC completed */
static uint64_t fsp_tx_ext_frames;     /* frames sent in two parts (PKB_TX_EXT) */
static uint64_t fsp_tx_tso_frames;     /* frames cut into segments (PKB_TX_TSO) */
/* A TSO frame's segments, waiting for fsp_tx_take, each in a buffer of the wire's own pool
 * (a NIC cuts into its own memory, not the core's): room for one frame's segments and the
 * most a caller holds (fsp_tx_take's max, 64) until it calls fsp_tx_done. */
#define FSP_TSO_SEGS (IRING_TX_TSO_MAX_BYTES / IRING_TX_TSO_MIN_MSS + 1)
#define FSP_WIRE_BUFFERS (FSP_TSO_SEGS + 64)
static struct fsp_tx_slot fsp_tso_segs[FSP_TSO_SEGS];
static unsigned fsp_tso_head, fsp_tso_tail;
static struct pkb_pool fsp_wire_pool;

static void *fsp_alloc(size_t align, size_t bytes)
{
    void *p = aligned_alloc(align, (bytes + align - 1) / align * align);
    if (p == NULL) {
        fprintf(stderr, "fake_sink_platform: out of memory (%zu bytes)\n", bytes);
        abort();
    }
    memset(p, 0, bytes);
    return p;
}

void fsp_port_mac(unsigned port, uint8_t mac[6])
{
    static const uint8_t base[6] = { 0x02, 0x57, 0x53, 0x00, 0x00, 0x00 }; /* 02:"WS":00:00:0p */
    memcpy(mac, base, 6);
    mac[5] = (uint8_t)port;
}

void fsp_peer_mac(uint32_t ip, uint8_t mac[6])
{
    mac[0] = 0x02;
    mac[1] = 0x50; /* 02:50:<the peer's IPv4 address> */
    mac[2] = (uint8_t)(ip >> 24);
    mac[3] = (uint8_t)(ip >> 16);
    mac[4] = (uint8_t)(ip >> 8);
    mac[5] = (uint8_t)ip;
}

static void fsp_port_up(unsigned i, bool has_address, uint32_t ip, uint8_t prefix)
{
    struct nic_port *p = &fsp_ports[i];
    p->index = i;
    snprintf(p->name, sizeof(p->name), "port%u", i);
    fsp_port_mac(i, p->mac);
    p->nqueues = FSP_CORES;
    p->tx_tcp4_csum = true; /* as igb and the 82599 (iring_tx_burst below completes it) */
    p->tx_tcp4_tso = true;  /* likewise (fsp_tx_take cuts the segments) */
    struct net_port *np = net_port(i); /* what net/iface.c would make of the config */
    np->has_address = has_address;
    memcpy(np->ifc.mac, p->mac, 6);
    np->ifc.ip = has_address ? ip : 0;
    np->ifc.prefix_len = prefix;
    np->ifc.port = (uint16_t)i;
    np->mtu = 1500;
    np->present = true;
    p->q = fsp_alloc(64, FSP_CORES * sizeof(struct nic_queue));
    for (unsigned q = 0; q < FSP_CORES; q++) {
        p->q[q].tx.core = (uint16_t)q;
        p->q[q].tx.port = (uint16_t)i;
        p->q[q].rx.core = (uint16_t)q;
        p->q[q].rx.port = (uint16_t)i;
        /* as the 82599 driver's iring_rx_trust_l4_csum(IDESC_RX_ERR_82599_L4E) leaves them */
        p->q[q].rx.l4_mask = IDESC_RX_STATUS_L4I | IDESC_RX_ERR_82599_L4E;
        p->q[q].rx.l4_good = IDESC_RX_STATUS_L4I;
    }
    p->link_up = true;
    p->speed_mbps = 10000;
}

void fsp_setup(uint32_t pool_buffers, bool quiet)
{
    fsp_quiet = quiet;
    for (unsigned c = 0; c < FSP_CORES; c++) {
        struct pkb *meta = fsp_alloc(64, pool_buffers * sizeof(struct pkb));
        struct pkb **stack = fsp_alloc(64, pool_buffers * sizeof(struct pkb *));
        uint8_t *data = fsp_alloc(PKB_DATA_BYTES, (size_t)pool_buffers * PKB_DATA_BYTES);
        pkb_pool_init(&fsp_pools[c], (uint16_t)c, meta, stack, data, pool_buffers);
    }
    pkb_pool_init(&fsp_wire_pool, FSP_WIRE_OWNER, fsp_alloc(64, FSP_WIRE_BUFFERS * sizeof(struct pkb)),
                  fsp_alloc(64, FSP_WIRE_BUFFERS * sizeof(struct pkb *)),
                  fsp_alloc(PKB_DATA_BYTES, (size_t)FSP_WIRE_BUFFERS * PKB_DATA_BYTES),
                  FSP_WIRE_BUFFERS);
    _Static_assert(FSP_PORTS == 2, "the ports below");
    fsp_port_up(0, CONFIG_PORT0_HAS_ADDRESS, CONFIG_PORT0_IP, CONFIG_PORT0_PREFIX);
    fsp_port_up(1, CONFIG_PORT1_HAS_ADDRESS, CONFIG_PORT1_IP, CONFIG_PORT1_PREFIX);
}

uint64_t fsp_clock_ns(void)
{
    return fsp_now_ns;
}

void fsp_clock_set_ns(uint64_t ns)
{
    fsp_now_ns = ns;
}

void fsp_clock_advance_ms(uint64_t ms)
{
    fsp_now_ns += ms * 1000000ULL;
}

bool fsp_pools_full(void)
{
    for (unsigned c = 0; c < FSP_CORES; c++) {
        const struct pkb_pool *p = &fsp_pools[c];
        if (p->nfree != p->size || p->double_free || p->foreign_free) {
            return false;
        }
    }
    return fsp_wire_pool.nfree == fsp_wire_pool.size && !fsp_wire_pool.double_free &&
           !fsp_wire_pool.foreign_free;
}

uint32_t fsp_pool_free(unsigned core)
{
    return fsp_pools[core].nfree;
}

uint32_t fsp_pool_size(unsigned core)
{
    return fsp_pools[core].size;
}

uint64_t fsp_kicks(unsigned core)
{
    return fsp_kick_count[core];
}

/* fsp_nic_tcp4_csum: what the NIC does as it sends (here: as the wire takes the frame, outside
 * the sink core's measured passes) for PKB_TX_CSUM_TCP4 with intel_ring's context 0: with
 * PKB_TX_CSUM_IP4 the IPv4 header's checksum into its field, which the glue must have left 0
 * on a frame it did not pad (else panic: a real NIC's sum would come out wrong, QEMU's igb
 * would count the padding), then the frame from the TCP header (14 + 20 bytes in) to its end
 * summed onto the field that holds the pseudo-header sum, and the complement stored
 * (tests/hostsim/sink_peer's sum, not net/inet's). */
static void fsp_nic_tcp4_csum(struct pkb *b)
{
    uint8_t *ip = b->data + 14, *l4 = b->data + 34;
    if (b->tx_flags & PKB_TX_CSUM_IP4) {
        if (ip[10] != 0 || ip[11] != 0 || 14u + (ip[2] << 8 | ip[3]) != b->len) {
            panic("fake NIC: IXSM on a frame with IPv4 checksum field %02x%02x (not 0) or "
                  "padding (IPv4 length %u in %u bytes)", ip[10], ip[11], ip[2] << 8 | ip[3],
                  b->len);
        }
        uint16_t h = sink_peer_fold(sink_peer_sum(0, ip, 20));
        ip[10] = (uint8_t)(h >> 8);
        ip[11] = (uint8_t)h;
    }
    uint16_t c = sink_peer_fold(sink_peer_sum(0, l4, b->len - 34u)); /* folded, inverted */
    l4[16] = (uint8_t)(c >> 8);
    l4[17] = (uint8_t)c;
    fsp_tx_csum_completed++;
}

/* fsp_tso_segment: one segment the fake NIC cut, into a buffer of the wire's pool. */
static struct fsp_tx_slot fsp_tso_frame; /* the frame being cut */

static void fsp_tso_segment(void *ctx, const uint8_t *seg, uint32_t len)
{
    (void)ctx;
    struct pkb *b = pkb_alloc(&fsp_wire_pool);
    if (b == NULL || fsp_tso_tail - fsp_tso_head == FSP_TSO_SEGS) {
        panic("fake NIC: no buffer for a TSO segment (the caller holds %u of the wire's)",
              fsp_wire_pool.size - fsp_wire_pool.nfree);
    }
    memcpy(b->data, seg, len);
    b->len = (uint16_t)len;
    pkb_tx_own(b);
    fsp_tso_segs[fsp_tso_tail++ % FSP_TSO_SEGS] = (struct fsp_tx_slot){ b, fsp_tso_frame.port };
}

/* fsp_tx_cut: TSO frame s into its segments (fsp_tso_segs), as the NIC would (fake_tso.c);
 * the frame's own buffer completes at once. */
static void fsp_tx_cut(const struct fsp_tx_slot *s)
{
    static uint8_t whole[PKB_DATA_BYTES + IRING_TX_TSO_MAX_BYTES];
    struct pkb *b = s->b;
    memcpy(whole, b->data, b->len);
    memcpy(whole + b->len, b->tx.ext, b->tx.ext_len);
    fsp_tso_frame = *s;
    if (fake_tso_cut(whole, b->len + b->tx.ext_len, b->len, b->tx.mss, fsp_tso_segment,
                     NULL) == 0) {
        panic("fake NIC: a TSO frame it cannot cut (headers %u, payload %u, MSS %u)", b->len,
              b->tx.ext_len, b->tx.mss);
    }
    fsp_tx_tso_frames++;
    fsp_tx_csum_completed++;
    pkb_free(b, b->owner);
}

unsigned fsp_tx_take(struct pkb **out, unsigned *port, unsigned max)
{
    unsigned n = 0;
    while (n < max && (fsp_tso_head != fsp_tso_tail || fsp_tx_head != fsp_tx_tail)) {
        struct fsp_tx_slot *s;
        if (fsp_tso_head != fsp_tso_tail) { /* a cut frame's segments first */
            s = &fsp_tso_segs[fsp_tso_head++ % FSP_TSO_SEGS];
            out[n] = s->b;
            if (port != NULL) {
                port[n] = s->port;
            }
            n++;
            continue;
        }
        s = &fsp_txq[fsp_tx_head++ % FSP_TX_MAX];
        if (s->b->tx_flags & PKB_TX_TSO) {
            fsp_tx_cut(s);
            continue;
        }
        out[n] = s->b;
        if (s->b->tx_flags & PKB_TX_EXT) { /* the wire gets both parts as one frame */
            memcpy(s->b->data + s->b->len, s->b->tx.ext, s->b->tx.ext_len);
            s->b->len = (uint16_t)(s->b->len + s->b->tx.ext_len);
            fsp_tx_ext_frames++;
        }
        if (s->b->tx_flags & PKB_TX_CSUM_TCP4) {
            fsp_nic_tcp4_csum(s->b);
        }
        if (port != NULL) {
            port[n] = s->port;
        }
        n++;
    }
    return n;
}

void fsp_tx_done(struct pkb *b)
{
    pkb_free(b, b->owner);
}

void fsp_tx_flush(void)
{
    struct pkb *b[64];
    unsigned n;
    while ((n = fsp_tx_take(b, NULL, 64)) != 0) {
        for (unsigned i = 0; i < n; i++) {
            fsp_tx_done(b[i]);
        }
    }
}

unsigned fsp_tx_pending(void)
{
    return fsp_tx_tail - fsp_tx_head + (fsp_tso_tail - fsp_tso_head);
}

uint64_t fsp_tx_tso_done(void)
{
    return fsp_tx_tso_frames;
}

void fsp_set_tx_tso(bool on)
{
    for (unsigned i = 0; i < FSP_PORTS; i++) {
        fsp_ports[i].tx_tcp4_tso = on;
    }
}

uint64_t fsp_tx_dropped(void)
{
    return fsp_tx_drop;
}

uint64_t fsp_tx_csum_done(void)
{
    return fsp_tx_csum_completed;
}

uint64_t fsp_tx_ext_done(void)
{
    return fsp_tx_ext_frames;
}

void fsp_set_next_hop(enum nexthop_result result)
{
    fsp_hop = result;
}

/* --- drivers/nic/nic.h ------------------------------------------------------------------------ */

unsigned nic_port_count(void)
{
    return FSP_PORTS;
}

struct nic_port *nic_port(unsigned i)
{
    return i < FSP_PORTS ? &fsp_ports[i] : NULL;
}

struct pkb_pool *nic_pool(unsigned core)
{
    return core < FSP_CORES ? &fsp_pools[core] : NULL;
}

/* --- drivers/nic/intel_ring.h: the TX queue, as the harness sees it ------------------------- */

void fsp_set_tx_csum_offload(bool on)
{
    for (unsigned i = 0; i < FSP_PORTS; i++) {
        fsp_ports[i].tx_tcp4_csum = on;
        fsp_ports[i].tx_tcp4_tso = on;
    }
}


unsigned iring_tx_burst(struct iring_tx *t, struct pkb **pkts, unsigned n)
{
    unsigned placed = 0;
    for (unsigned i = 0; i < n; i++) {
        struct pkb *b = pkts[i];
        /* A core only ever sends buffers of its own pool, on its own queue. */
        if (b->owner != t->core || b->len == 0 || b->len > PKB_DATA_BYTES) {
            panic("iring_tx_burst: port%u q%u: buffer of core %u, len %u", t->port, t->core,
                  b->owner, b->len);
        }
        const uint16_t tso = PKB_TX_TSO | PKB_TX_EXT | PKB_TX_CSUM_TCP4 | PKB_TX_CSUM_IP4;
        if ((b->tx_flags & PKB_TX_TSO) &&
            (b->tx_flags != tso || !fsp_ports[t->port].tx_tcp4_tso || b->tx.ext_len <= b->tx.mss ||
             b->tx.ext_len > IRING_TX_TSO_MAX_BYTES || b->tx.mss < IRING_TX_TSO_MIN_MSS)) {
            panic("iring_tx_burst: port%u: TSO frame the NIC cannot cut (flags %u, payload %u, "
                  "MSS %u)", t->port, b->tx_flags, b->tx.ext_len, b->tx.mss);
        }
        if (((b->tx_flags & PKB_TX_CSUM_TCP4) && (!fsp_ports[t->port].tx_tcp4_csum ||
                                                  b->len < 54)) ||
            (b->tx_flags & ~(PKB_TX_CSUM_TCP4 | PKB_TX_CSUM_IP4 | PKB_TX_EXT | PKB_TX_TSO)) ||
            ((b->tx_flags & PKB_TX_CSUM_IP4) && !(b->tx_flags & PKB_TX_CSUM_TCP4)) ||
            ((b->tx_flags & (PKB_TX_EXT | PKB_TX_TSO)) == PKB_TX_EXT &&
             (b->tx.ext_len == 0 || b->len + b->tx.ext_len > PKB_DATA_BYTES))) {
            panic("iring_tx_burst: port%u: offload %u asked of a port without it (len %u)",
                  t->port, b->tx_flags, b->len);
        }
        if (fsp_tx_tail - fsp_tx_head == FSP_TX_MAX) {
            fsp_tx_drop++;
            t->stats.ring_full++;
            pkb_free(b, t->core);
            continue;
        }
        fsp_txq[fsp_tx_tail++ % FSP_TX_MAX] = (struct fsp_tx_slot){ b, t->port };
        placed++;
    }
    t->stats.tail_writes += placed != 0;
    return placed;
}

/* The sink never forwards: only nic_tx_forward (drivers/nic/nic_tx.c, linked whole) calls it. */
unsigned iring_tx_burst_forward(struct iring_tx *t, struct pkb **pkts, unsigned n)
{
    (void)pkts;
    panic("iring_tx_burst_forward: port%u q%u: %u frames forwarded on the sink", t->port, t->core,
          n);
}

unsigned iring_tx_burst_forward_tagged(struct iring_tx *t, struct pkb **pkts, unsigned n,
                                       uint16_t tci)
{
    (void)pkts;
    panic("iring_tx_burst_forward_tagged: port%u q%u: %u frames (VLAN %u) forwarded on the sink",
          t->port, t->core, n, tci);
}

/* --- net/nexthop.h -------------------------------------------------------------------------- */

enum nexthop_result nexthop_resolve(unsigned core, uint32_t dst, unsigned *port, uint8_t mac[6])
{
    (void)core;
    if (fsp_hop != NEXTHOP_OK) {
        return fsp_hop;
    }
    for (unsigned i = 0; i < FSP_PORTS; i++) {
        const struct net_iface *ifc = &net_port(i)->ifc;
        uint32_t mask = ifc->prefix_len ? ~0U << (32 - ifc->prefix_len) : 0;
        if (ifc->ip != 0 && (dst & mask) == (ifc->ip & mask) && dst != ifc->ip &&
            (dst & ~mask) != ~mask) {
            *port = i;
            fsp_peer_mac(dst, mac);
            return NEXTHOP_OK;
        }
    }
    return NEXTHOP_NO_ROUTE;
}

/* The fake resolves every on-link address (fsp_peer_mac): known exactly when routable. */
bool nexthop_neighbour_known(uint32_t dst)
{
    unsigned port;
    uint8_t mac[6];
    return fsp_hop == NEXTHOP_OK && nexthop_resolve(0, dst, &port, mac) == NEXTHOP_OK;
}

/* --- net/nexthop6.h: the fake platform has no IPv6 peers (the QEMU tests speak IPv6) --------- */

enum nexthop_result nexthop6_resolve(unsigned core, const uint8_t *dst, unsigned *port,
                                     uint8_t mac[6])
{
    (void)core, (void)dst, (void)port, (void)mac;
    return NEXTHOP_NO_ROUTE;
}

bool nexthop6_neighbour_known(const uint8_t *dst)
{
    (void)dst;
    return false;
}

/* --- kernel/time.h, kernel/loop.h, kernel/console.h, kernel/panic.h ---------------------------- */

uint64_t time_ns(void)
{
    return fsp_now_ns;
}

void time_delay_us(uint64_t us)
{
    fsp_now_ns += us * 1000;
}

void loop_kick(unsigned core)
{
    if (core < FSP_CORES) {
        fsp_kick_count[core]++;
    }
}

int kvprintf(const char *fmt, va_list ap)
{
    if (fsp_quiet) {
        return 0;
    }
    fputs("  fw| ", stdout);
    return vprintf(fmt, ap);
}

int kprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = kvprintf(fmt, ap);
    va_end(ap);
    return n;
}

void panic(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("panic: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}
