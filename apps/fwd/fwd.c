/* apps/fwd/fwd.c: router and wire-mode forwarding, run to completion per core (see header). */
#include "fwd.h"

#include <stdio.h>
#include <string.h>

#include "net/handoff.h"
#include "config.h"
#include "console.h"
#include "dma.h"
#include "drivers/nic/nic.h"
#include "err.h"
#include "commands.h"
#include "init.h"
#include "loop.h"
#include "net/fib.h"
#include "net/inet.h"
#include "net/local.h"
#include "net/neigh.h"
#include "time.h"

#define FWD_TX_BATCH (2 * CONFIG_NIC_BURST) /* per egress port; flushed when full or per pass */
#define FWD_MAX_NEXTHOPS (3 * WS_MAX_PORTS + CONFIG_NROUTES + 1)
#define FWD_FIB_GROUPS 256
#define FWD_ARP_SLOTS 16            /* per core: recently requested next hops */
#define FWD_ARP_RETRY_NS 100000000ULL /* one request per next hop per 100 ms per core */
#define ETH_HDR 14
#define ETH_TYPE_OFF 12
#define IP_DST_OFF (ETH_HDR + 16)

/* What a FIB entry leads to. The appliance's own addresses and its subnets' broadcast
 * addresses are /32 entries too, so one lookup per frame decides local, drop or forward. */
enum fwd_nh_kind { FWD_NH_FORWARD, FWD_NH_LOCAL, FWD_NH_DIRECTED_BROADCAST };

struct fwd_nexthop {
    struct nic_port *port;
    uint32_t gateway; /* 0: directly connected, the destination itself is the next hop */
    uint8_t kind;     /* enum fwd_nh_kind */
};

/* Per-core state: batches of frames per egress port, ICMP limiter, ARP retry memory. */
struct fwd_core {
    struct pkb *tx[WS_MAX_PORTS][FWD_TX_BATCH];
    unsigned ntx[WS_MAX_PORTS];
    struct route_ratelimit icmp;
    struct {
        uint32_t ip;
        uint64_t sent_ns;
    } arp[FWD_ARP_SLOTS];
} __attribute__((aligned(64)));

/* read-only after fwd_init */
static struct fib *fwd_fib;
static struct fwd_nexthop fwd_nh[FWD_MAX_NEXTHOPS];
static unsigned fwd_nnh;
static struct fwd_core fwd_cores[WS_MAX_CPUS];
/* Neighbours learned from ARP. ARP is not IP, so RSS never hashes it: it always arrives on
 * queue 0, and core 0 is the table's only writer; every core reads it lock-free. */
static struct neigh_table fwd_neigh;
/* written only by core c in column c */
static struct fwd_stats fwd_stats[WS_MAX_PORTS][WS_MAX_CPUS];

const struct fwd_stats *fwd_stats_of(unsigned port, unsigned core)
{
    return &fwd_stats[port][core];
}

const struct neigh_table *fwd_neigh_table(void)
{
    return &fwd_neigh;
}

/* --- building the FIB (boot core) ------------------------------------------------------------ */

static int fwd_add_route(uint32_t prefix, uint8_t len, uint32_t gateway, uint8_t port,
                         enum fwd_nh_kind kind)
{
    if (fwd_nnh == FWD_MAX_NEXTHOPS) {
        return WS_ERR_NO_MEMORY;
    }
    fwd_nh[fwd_nnh] = (struct fwd_nexthop){ nic_port(port), gateway, (uint8_t)kind };
    int err = fib_add(fwd_fib, prefix, len, (uint16_t)fwd_nnh);
    if (err == WS_OK) {
        fwd_nnh++;
    }
    return err;
}

static uint32_t fwd_mask(uint8_t len)
{
    return len == 0 ? 0 : ~0U << (32 - len);
}

/* fwd_build_fib: each addressed port's subnet (connected), its own address and its subnet's
 * broadcast address (/32s), then the baked routes. */
static int fwd_build_fib(void)
{
    static const struct {
        uint32_t prefix;
        uint8_t len;
        uint32_t gateway;
        uint8_t port;
    } routes[] = CONFIG_ROUTES;
    int err = WS_OK;

    for (unsigned i = 0; i < nic_port_count() && err == WS_OK; i++) {
        const struct nic_port *p = nic_port(i);
        if (p->has_address) {
            uint32_t m = fwd_mask(p->ifc.prefix_len);
            err = fwd_add_route(p->ifc.ip & m, p->ifc.prefix_len, 0, (uint8_t)i, FWD_NH_FORWARD);
            err = err ? err : fwd_add_route(p->ifc.ip, 32, 0, (uint8_t)i, FWD_NH_LOCAL);
            err = err ? err : fwd_add_route(p->ifc.ip | ~m, 32, 0, (uint8_t)i,
                                            FWD_NH_DIRECTED_BROADCAST);
        }
    }
    for (int r = 0; r < CONFIG_NROUTES && err == WS_OK; r++) {
        if (routes[r].port >= nic_port_count()) {
            kprintf("fwd: route %d needs port%u, which is not up; route skipped\n", r,
                    routes[r].port);
            continue;
        }
        err = fwd_add_route(routes[r].prefix, routes[r].len, routes[r].gateway, routes[r].port,
                            FWD_NH_FORWARD);
    }
    return err;
}

int fwd_init(unsigned ncores)
{
    uint64_t now = time_ns();

    neigh_init(&fwd_neigh);
    for (unsigned c = 0; c < ncores; c++) {
        route_ratelimit_init(&fwd_cores[c].icmp, CONFIG_ROUTER_ICMP_PER_SEC,
                             CONFIG_ROUTER_ICMP_BURST, now);
    }
    if (!CONFIG_MODE_ROUTER) {
        return WS_OK;
    }
    size_t bytes = fib_mem_bytes(FWD_FIB_GROUPS);
    void *mem = dma_alloc(bytes, 64);
    fwd_fib = dma_alloc(sizeof(*fwd_fib), 64);
    int err = (mem && fwd_fib) ? fib_init(fwd_fib, mem, bytes, FWD_FIB_GROUPS) : WS_ERR_NO_MEMORY;
    err = err ? err : fwd_build_fib();
    if (err != WS_OK) {
        kprintf("fwd: cannot build the routing table: %s\n", err_name(err));
    }
    return err;
}

static int fwd_init_step(struct init_ctx *ctx)
{
    return fwd_init(ctx->ncores);
}
WS_INIT(fwd, INIT_APPS, true, fwd_init_step); /* routing table from the baked routes */

/* --- transmit batching ------------------------------------------------------------------------ */

static void fwd_flush_port(struct fwd_core *fc, unsigned port, unsigned core)
{
    unsigned n = fc->ntx[port];
    if (n == 0) {
        return;
    }
    iring_tx_burst(&nic_port(port)->q[core].tx, fc->tx[port], n); /* takes all n */
    fc->ntx[port] = 0;
}

/* fwd_send: queue a frame for port `port` on this core's TX queue; the caller has checked the
 * port has one. A full batch is flushed first (one tail write per FWD_TX_BATCH frames). */
static void fwd_send(struct fwd_core *fc, unsigned port, unsigned core, struct pkb *b)
{
    if (fc->ntx[port] == FWD_TX_BATCH) {
        fwd_flush_port(fc, port, core);
    }
    fc->tx[port][fc->ntx[port]++] = b;
}

/* --- next-hop resolution ---------------------------------------------------------------------- */

/* fwd_arp_request: ask for ip on port p, at most once per FWD_ARP_RETRY_NS per core. */
static void fwd_arp_request(struct fwd_core *fc, struct fwd_stats *st, struct nic_port *p,
                            unsigned core, uint32_t ip, uint64_t now)
{
    unsigned slot = (ip ^ (ip >> 8)) & (FWD_ARP_SLOTS - 1);
    if (fc->arp[slot].ip == ip && now - fc->arp[slot].sent_ns < FWD_ARP_RETRY_NS) {
        return;
    }
    struct pkb *b = pkb_alloc(nic_pool(core));
    if (b == NULL) {
        st->alloc_fail++;
        return;
    }
    b->flags = 0; /* pkb_alloc leaves the last user's flags: not a forwarded frame */
    uint8_t *f = b->data;
    memset(f, 0, INET_ETH_MIN_FRAME_BYTES);
    memset(f, 0xFF, 6); /* broadcast */
    memcpy(f + 6, p->mac, 6);
    inet_store_be16(f + ETH_TYPE_OFF, INET_ETHERTYPE_ARP);
    struct inet_arp *a = (struct inet_arp *)(f + ETH_HDR);
    inet_store_be16(a->htype, INET_ARP_HTYPE_ETHERNET);
    inet_store_be16(a->ptype, INET_ETHERTYPE_IPV4);
    a->hlen = 6;
    a->plen = 4;
    inet_store_be16(a->op, INET_ARP_OP_REQUEST);
    memcpy(a->sha, p->mac, 6);
    inet_store_be32(a->spa, p->ifc.ip);
    inet_store_be32(a->tpa, ip);
    b->len = INET_ETH_MIN_FRAME_BYTES;
    fc->arp[slot].ip = ip;
    fc->arp[slot].sent_ns = now;
    st->arp_requests_sent++;
    fwd_send(fc, p->index, core, b);
}

/* fwd_forward_hop: the next hop the FIB gives for dst, or NULL when dst is not forwarded
 * anywhere (no route, our own address, a directed broadcast). */
static const struct fwd_nexthop *fwd_forward_hop(uint32_t dst)
{
    int nh = fwd_fib ? fib_lookup(fwd_fib, dst) : -1;
    return nh >= 0 && fwd_nh[nh].kind == FWD_NH_FORWARD ? &fwd_nh[nh] : NULL;
}

/* fwd_next_hop: for the sink (apps/sink), the port and MAC a datagram to dst leaves by, from
 * `core`. An unknown neighbour gets an ARP request (rate limited) and FWD_HOP_UNRESOLVED. */
enum fwd_hop fwd_next_hop(unsigned core, uint32_t dst, unsigned *port, uint8_t mac[6])
{
    const struct fwd_nexthop *hop = fwd_forward_hop(dst);
    if (hop == NULL) {
        return FWD_HOP_NO_ROUTE;
    }
    struct nic_port *out = hop->port;
    uint32_t next = hop->gateway ? hop->gateway : dst;
    if (!out->link_up || !nic_queue_usable(out, core)) {
        return FWD_HOP_PORT_DOWN;
    }
    if (!neigh_lookup(&fwd_neigh, next, mac)) {
        fwd_arp_request(&fwd_cores[core], &fwd_stats[out->index][core], out, core, next,
                        time_ns());
        return FWD_HOP_UNRESOLVED;
    }
    *port = out->index;
    return FWD_HOP_OK;
}

bool fwd_neighbour_known(uint32_t dst)
{
    const struct fwd_nexthop *hop = fwd_forward_hop(dst);
    uint8_t mac[6];
    return hop != NULL && neigh_lookup(&fwd_neigh, hop->gateway ? hop->gateway : dst, mac);
}

/* --- router mode ----------------------------------------------------------------------------- */

/* fwd_icmp_error: turn frame b into an ICMP error about itself and send it back out of the
 * port it came in on, if the limiter allows; else free it. */
static void fwd_icmp_error(struct fwd_core *fc, struct fwd_stats *st, struct nic_port *in,
                           unsigned core, struct pkb *b, uint8_t type, uint8_t code, uint64_t now)
{
    uint16_t n = 0;
    if (!route_ratelimit_allow(&fc->icmp, now)) {
        st->icmp_ratelimited++;
    } else {
        n = route_icmp_error(b->data, PKB_DATA_BYTES, b->data, b->len, type, code, in->ifc.ip,
                             in->mac, &st->route);
    }
    if (n == 0) {
        pkb_free(b, (uint16_t)core);
        return;
    }
    b->len = n;
    st->icmp_errors_sent++;
    fwd_send(fc, in->index, core, b);
}

/* fwd_route_one: a frame the router may forward (IPv4, not for us); nh is the FIB's answer for
 * its destination, looked up before the header was checked. Consumes b. */
static void fwd_route_one(struct fwd_core *fc, struct fwd_stats *st, struct nic_port *in,
                          unsigned core, struct pkb *b, uint64_t now, int nh)
{
    uint32_t dst;
    enum route_verdict v = route_ipv4_check_and_decrement(b->data, b->len, &st->route, &dst);
    if (v == ROUTE_TTL_EXPIRED) {
        fwd_icmp_error(fc, st, in, core, b, 11, 0, now); /* time exceeded in transit */
        return;
    }
    if (v != ROUTE_FORWARD) {
        pkb_free(b, (uint16_t)core);
        return;
    }
    if (nh < 0) {
        st->no_route++;
        fwd_icmp_error(fc, st, in, core, b, 3, 0, now); /* network unreachable */
        return;
    }
    const struct fwd_nexthop *hop = &fwd_nh[nh];
    if (hop->kind == FWD_NH_DIRECTED_BROADCAST) {
        st->dst_directed_broadcast++; /* RFC 2644: not forwarded by default */
        pkb_free(b, (uint16_t)core);
        return;
    }
    struct nic_port *out = hop->port;
    uint32_t next = hop->gateway ? hop->gateway : dst;
    uint8_t mac[6];
    if (core >= out->nqueues) {
        st->egress_no_queue++;
    } else if (!out->link_up || !nic_queue_usable(out, core)) {
        st->egress_link_down++; /* or the port is being reset, or dead */
    } else if (!neigh_lookup_use(&fwd_neigh, next, mac)) {
        st->arp_unresolved++;
        fwd_arp_request(fc, st, out, core, next, now);
    } else {
        route_eth_rewrite(b->data, out->mac, mac);
        b->flags |= PKB_F_FORWARDED;
        st->forwarded++;
        fwd_send(fc, out->index, core, b);
        return;
    }
    pkb_free(b, (uint16_t)core);
}

/* fwd_router_frame: to the local stack (ARP, our addresses, everything not IPv4) or routed. */
static void fwd_router_frame(struct fwd_core *fc, struct nic_port *in, struct nic_queue *q,
                             unsigned core, struct pkb *b, uint64_t now)
{
    struct fwd_stats *st = &fwd_stats[in->index][core];
    bool ipv4 = b->len >= IP_DST_OFF + 4 &&
                inet_load_be16(b->data + ETH_TYPE_OFF) == INET_ETHERTYPE_IPV4;
    if (ipv4 && in->has_address) {
        int nh = fib_lookup(fwd_fib, inet_load_be32(b->data + IP_DST_OFF));
        if (nh < 0 || fwd_nh[nh].kind != FWD_NH_LOCAL) {
            fwd_route_one(fc, st, in, core, b, now, nh);
            return;
        }
        if (fwd_nh[nh].port != in) {
            st->dst_other_port_address++;
            pkb_free(b, (uint16_t)core);
            return;
        }
    }
    uint16_t out_len = 0;
    enum net_verdict v = NET_DROP;
    if (!in->has_address) {
        q->no_address++;
    } else {
        v = net_local_input(&in->ifc, core == 0 ? &fwd_neigh : NULL, b->data, b->len,
                            PKB_DATA_BYTES, &out_len, &q->local, now);
    }
    if (v == NET_REPLY) {
        b->len = out_len;
        fwd_send(fc, in->index, core, b);
    } else if (v == NET_SINK) {
        handoff_to_sink(core, b); /* to lwIP's core; the buffer comes back to us later */
    } else {
        pkb_free(b, (uint16_t)core);
    }
}

/* --- wire mode ------------------------------------------------------------------------------- */

static void fwd_wire_frame(struct fwd_core *fc, struct nic_port *in, unsigned core,
                           struct pkb *b)
{
    static const int peer_of[WS_MAX_PORTS] = CONFIG_WIRE_PEER;
    static const struct {
        int has;
        uint8_t mac[6];
    } next_hop[WS_MAX_PORTS] = CONFIG_PORT_NEXT_HOP_MACS;
    struct fwd_stats *st = &fwd_stats[in->index][core];
    int peer = peer_of[in->index];
    struct nic_port *out = peer >= 0 ? nic_port((unsigned)peer) : NULL;

    if (out == NULL) {
        st->wire_no_peer++;
    } else if (core >= out->nqueues) {
        st->egress_no_queue++;
    } else if (!nic_queue_usable(out, core)) {
        st->egress_link_down++; /* the peer is being reset, or dead */
    } else {
        if (CONFIG_WIRE_REWRITE_MAC) {
            route_eth_rewrite(b->data, out->mac, next_hop[peer].mac);
        }
        b->flags |= PKB_F_FORWARDED;
        st->forwarded++;
        fwd_send(fc, out->index, core, b);
        return;
    }
    pkb_free(b, (uint16_t)core);
}

/* --- the per-core pass ------------------------------------------------------------------------ */

unsigned fwd_poll_core(unsigned core)
{
    struct fwd_core *fc = &fwd_cores[core];
    struct pkb *rx[CONFIG_NIC_BURST];
    unsigned total = 0, nports = nic_port_count();
    uint64_t now = time_ns();

    nic_core_sync(core); /* a port reset or gone: follow it before touching any queue */
    for (unsigned i = 0; i < nports; i++) {
        struct nic_port *p = nic_port(i);
        if (!nic_queue_usable(p, core)) {
            continue;
        }
        struct nic_queue *q = &p->q[core];
        unsigned n = iring_rx_burst(&q->rx, rx, CONFIG_NIC_BURST);
        for (unsigned k = 0; k < n; k++) {
            if (k + 1 < n) {
                __builtin_prefetch(rx[k + 1]->data);
            }
            if (CONFIG_MODE_WIRE) {
                fwd_wire_frame(fc, p, core, rx[k]);
            } else {
                fwd_router_frame(fc, p, q, core, rx[k], now);
            }
        }
        total += n;
    }
    for (unsigned i = 0; i < nports; i++) {
        struct nic_port *p = nic_port(i);
        if (fc->ntx[i]) {
            fwd_flush_port(fc, i, core);
        } else if (nic_queue_usable(p, core) && iring_tx_in_flight(&p->q[core].tx)) {
            iring_tx_reclaim(&p->q[core].tx); /* buffers must not sit in a quiet ring */
        }
    }
    return total;
}

WS_POLLER(fwd, .order = POLLER_ORDER_FWD, .poll = fwd_poll_core);

/* --- console views (console core) ------------------------------------------------------------- */

static void fwd_print_ip(char *buf, size_t n, uint32_t ip)
{
    snprintf(buf, n, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
}

void fwd_routes_print(void)
{
    static const struct {
        uint32_t prefix;
        uint8_t len;
        uint32_t gateway;
        uint8_t port;
    } routes[] = CONFIG_ROUTES;
    char pfx[16], gw[16];

    if (!CONFIG_MODE_ROUTER) {
        kprintf("wire mode: no routes (frames go to the paired port)\n");
        return;
    }
    kprintf("%-18s %-16s %s\n", "prefix", "via", "port");
    for (unsigned i = 0; i < nic_port_count(); i++) {
        const struct nic_port *p = nic_port(i);
        if (p->has_address) {
            fwd_print_ip(pfx, sizeof(pfx), p->ifc.ip & fwd_mask(p->ifc.prefix_len));
            kprintf("%s/%-*u %-16s %s\n", pfx, (int)(17 - strlen(pfx)), p->ifc.prefix_len,
                    "connected", p->name);
        }
    }
    for (int r = 0; r < CONFIG_NROUTES; r++) {
        fwd_print_ip(pfx, sizeof(pfx), routes[r].prefix);
        fwd_print_ip(gw, sizeof(gw), routes[r].gateway);
        kprintf("%s/%-*u %-16s port%u\n", pfx, (int)(17 - strlen(pfx)), routes[r].len,
                routes[r].gateway ? gw : "connected", routes[r].port);
    }
}

void fwd_arp_print(void)
{
    static struct neigh_snapshot_entry snap[NEIGH_TABLE_ENTRIES]; /* console core only */
    size_t n = neigh_snapshot(&fwd_neigh, snap, NEIGH_TABLE_ENTRIES);
    uint64_t now = time_ns();
    char ip[16];

    kprintf("%-16s %-17s %s\n", "address", "mac", "age_ms");
    for (size_t i = 0; i < n; i++) {
        fwd_print_ip(ip, sizeof(ip), snap[i].ip);
        const uint8_t *m = snap[i].mac;
        kprintf("%-16s %02x:%02x:%02x:%02x:%02x:%02x %llu\n", ip, m[0], m[1], m[2], m[3], m[4],
                m[5], (unsigned long long)((now - snap[i].updated_ns) / 1000000));
    }
}

static void fwd_cmd_routes(int argc, char **argv)
{
    (void)argc, (void)argv;
    fwd_routes_print();
}

static void fwd_cmd_arp(int argc, char **argv)
{
    (void)argc, (void)argv;
    fwd_arp_print();
}

WS_COMMAND(routes, "routes", 0, "routing table: connected subnets and baked routes",
           fwd_cmd_routes);
WS_COMMAND(arp, "arp", 0, "neighbour table: address, MAC, age", fwd_cmd_arp);
