/* net/nexthop.c: the FIB, the next hops, the neighbour table and resolution (see header). */
#include "net/nexthop.h"

#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "config.h"
#include "console.h"
#include "dma.h"
#include "drivers/nic/nic.h"
#include "drivers/nic/nic_tx.h"
#include "err.h"
#include "init.h"
#include "loop.h"
#include "net/iface.h"
#include "net/inet.h"
#include "net/nexthop6.h"
#include "net/vlan.h"
#include "time.h"

#define NEXTHOP_MAX (3 * NET_MAX_IFACES + CONFIG_NROUTES + 1)
#define NEXTHOP_FIB_GROUPS 256
#define NEXTHOP_ARP_SLOTS 16              /* per core: recently requested next hops */
#define NEXTHOP_ARP_RETRY_NS 100000000ULL /* one request per next hop per 100 ms per core */
#define ETH_TYPE_OFF 12
#define NEXTHOP_PROBE_INTERVAL_NS 1000000000ULL /* RFC 4861's RETRANS_TIMER: 1 s */
#define NEXTHOP_STALE_GC_FACTOR 10 /* a stale entry nothing uses goes after 10 x reachable */

/* The baked routes (config: route = prefix/len via gateway, or dev interface), each with its
 * egress interface (net/iface.h's numbering), read by the build and by the `routes` view. */
static const struct {
    uint32_t prefix;
    uint8_t len;
    uint32_t gateway;
    uint8_t iface;
} nexthop_routes[] = CONFIG_ROUTES;

/* read-only after nexthop_init */
struct fib *nexthop_fib;
struct nexthop nexthop_table[NEXTHOP_MAX];
static unsigned nexthop_count;
struct neigh_table nexthop_neighbours;

/* Per core: next hops asked for lately (ARP retry memory). Written by that core only. */
struct nexthop_arp_slot {
    uint32_t ip;
    uint64_t sent_ns;
};
static struct {
    struct nexthop_arp_slot slot[NEXTHOP_ARP_SLOTS];
} __attribute__((aligned(64))) nexthop_arp_memory[WS_MAX_CPUS];

/* written only by core c in column c */
static struct nexthop_stats nexthop_stats[WS_MAX_PORTS][WS_MAX_CPUS];

const struct nexthop_stats *nexthop_stats_of(unsigned port, unsigned core)
{
    return &nexthop_stats[port][core];
}

/* --- building the FIB (boot core) ------------------------------------------------------------ */

static int nexthop_add(uint32_t prefix, uint8_t len, uint32_t gateway, unsigned iface,
                       enum nexthop_kind kind)
{
    if (nexthop_count == NEXTHOP_MAX) {
        return WS_ERR_NO_MEMORY;
    }
    const struct net_port *ifc = net_iface_at(iface);
    nexthop_table[nexthop_count] =
        (struct nexthop){ nic_port(ifc->ifc.port), ifc, gateway, (uint8_t)kind };
    int err = fib_add(nexthop_fib, prefix, len, (uint16_t)nexthop_count);
    if (err == WS_OK) {
        nexthop_count++;
    }
    return err;
}

static uint32_t nexthop_mask(uint8_t len)
{
    return len == 0 ? 0 : ~0U << (32 - len);
}

/* nexthop_add_connected: an addressed interface's subnet (connected), its own address and its
 * subnet's broadcast address (/32s). */
static int nexthop_add_connected(unsigned i)
{
    const struct net_iface *ifc = &net_iface_at(i)->ifc;
    uint32_t m = nexthop_mask(ifc->prefix_len);
    int err = nexthop_add(ifc->ip & m, ifc->prefix_len, 0, i, NEXTHOP_FORWARD);
    err = err ? err : nexthop_add(ifc->ip, 32, 0, i, NEXTHOP_LOCAL);
    return err ? err : nexthop_add(ifc->ip | ~m, 32, 0, i, NEXTHOP_DIRECTED_BROADCAST);
}

/* nexthop_build_fib: every addressed interface's connected entries, then the baked routes. */
static int nexthop_build_fib(void)
{
    int err = WS_OK;

    for (unsigned i = 0; i < net_iface_count && err == WS_OK; i++) {
        if (net_iface_at(i)->present && net_iface_at(i)->has_address) {
            err = nexthop_add_connected(i);
        }
    }
    for (int r = 0; r < CONFIG_NROUTES && err == WS_OK; r++) {
        const struct net_port *ifc = net_iface_at(nexthop_routes[r].iface);
        if (!ifc->present) {
            kprintf("nexthop: route %d needs %s, which is not up; route skipped\n", r,
                    ifc->name);
            continue;
        }
        err = nexthop_add(nexthop_routes[r].prefix, nexthop_routes[r].len,
                          nexthop_routes[r].gateway, nexthop_routes[r].iface, NEXTHOP_FORWARD);
    }
    return err;
}

/* The config's neigh.static lines (config/genconfig checked each is a host on an
 * interface's subnet); one that does not fit is said and skipped, the rest still work. */
static void nexthop_add_static_neighbours(void)
{
#if CONFIG_NSTATIC_NEIGHS > 0 /* (GCC flags the placeholder entry's read in a loop of 0) */
    static const struct {
        uint32_t ip;
        uint8_t mac[6];
        uint8_t iface;
    } statics[] = CONFIG_STATIC_NEIGHS;
    char ip[INET_IPV4_STR_BYTES];

    for (unsigned i = 0; i < CONFIG_NSTATIC_NEIGHS; i++) {
        const uint8_t *m = statics[i].mac;
        int err = neigh_add_static(&nexthop_neighbours, statics[i].ip, m, time_ns());
        kprintf("neigh: static %s %02x:%02x:%02x:%02x:%02x:%02x on %s%s%s\n",
                inet_ipv4_str(ip, statics[i].ip), m[0], m[1], m[2], m[3], m[4], m[5],
                net_iface_at(statics[i].iface)->name, err == WS_OK ? "" : ": not added, ", err == WS_OK ? "" :
                err_name(err));
    }
#endif
}

int nexthop_init(void)
{
    neigh_init(&nexthop_neighbours);
    if (!CONFIG_MODE_ROUTER) {
        return WS_OK;
    }
    size_t bytes = fib_mem_bytes(NEXTHOP_FIB_GROUPS);
    void *mem = dma_alloc(bytes, 64);
    nexthop_fib = dma_alloc(sizeof(*nexthop_fib), 64);
    int err = (mem && nexthop_fib) ? fib_init(nexthop_fib, mem, bytes, NEXTHOP_FIB_GROUPS)
                                   : WS_ERR_NO_MEMORY;
    err = err ? err : nexthop_build_fib();
    if (err != WS_OK) {
        kprintf("nexthop: cannot build the routing table: %s\n", err_name(err));
        return err;
    }
    nexthop_add_static_neighbours();
    return WS_OK;
}

static int nexthop_init_step(struct init_ctx *ctx)
{
    (void)ctx;
    return nexthop_init();
}
WS_INIT(nexthop, INIT_NET + 10, true, nexthop_init_step); /* the FIB from the ports and the routes */

/* --- resolution (any core) ------------------------------------------------------------------- */

bool nexthop_send(unsigned core, const struct net_port *ifc, struct pkb *b)
{
    if (ifc->vid != 0) {
        struct net_vlan_stats *vs = net_vlan_stats_of(ifc, core);
        if (nic_port(ifc->ifc.port)->vlan_hw) {
            b->tx_flags |= PKB_TX_VLAN; /* with whatever offloads the frame already asks */
            b->vlan = ifc->vid;
            vs->tx_hw++;
        } else if (!net_vlan_push(b->data, &b->len, PKB_DATA_BYTES, ifc->vid)) {
            vs->tx_no_room++;
            pkb_free(b, (uint16_t)core);
            return false;
        }
        vs->tx++;
    }
    nic_tx_queue(core, ifc->ifc.port, b);
    return true;
}

/* nexthop_arp_send: an ARP request for ip out of interface ifc through core's TX batch,
 * broadcast or, with dst_mac, unicast to it (a probe of a known neighbour, RFC 1122 2.3.2.1). */
static void nexthop_arp_send(unsigned core, const struct net_port *ifc, uint32_t ip,
                             const uint8_t *dst_mac)
{
    struct nexthop_stats *st = &nexthop_stats[ifc->ifc.port][core];
    struct pkb *b = nexthop_frame_alloc(core, &st->alloc_fail);
    if (b == NULL) {
        return;
    }
    uint8_t *f = b->data;
    memset(f, 0, INET_ETH_MIN_FRAME_BYTES);
    if (dst_mac != NULL) {
        memcpy(f, dst_mac, 6);
    } else {
        memset(f, 0xFF, 6); /* broadcast */
    }
    memcpy(f + 6, ifc->ifc.mac, 6);
    inet_store_be16(f + ETH_TYPE_OFF, INET_ETHERTYPE_ARP);
    struct inet_arp *a = (struct inet_arp *)(f + INET_ETH_HDR_BYTES);
    inet_store_be16(a->htype, INET_ARP_HTYPE_ETHERNET);
    inet_store_be16(a->ptype, INET_ETHERTYPE_IPV4);
    a->hlen = 6;
    a->plen = 4;
    inet_store_be16(a->op, INET_ARP_OP_REQUEST);
    memcpy(a->sha, ifc->ifc.mac, 6);
    inet_store_be32(a->spa, ifc->ifc.ip);
    inet_store_be32(a->tpa, ip);
    b->len = INET_ETH_MIN_FRAME_BYTES;
    st->arp_requests_sent++;
    nexthop_send(core, ifc, b);
}

void nexthop_arp_request(unsigned core, const struct net_port *ifc, uint32_t ip, uint64_t now)
{
    unsigned slot = (ip ^ (ip >> 8)) & (NEXTHOP_ARP_SLOTS - 1);
    struct nexthop_arp_slot *mem = &nexthop_arp_memory[core].slot[slot];
    if (mem->ip == ip && now - mem->sent_ns < NEXTHOP_ARP_RETRY_NS) {
        return;
    }
    mem->ip = ip;
    mem->sent_ns = now;
    nexthop_arp_send(core, ifc, ip, NULL);
}

/* nexthop_forward_hop: the next hop the FIB gives for dst, or NULL when dst is not forwarded
 * anywhere (no route, our own address, a directed broadcast). */
static const struct nexthop *nexthop_forward_hop(uint32_t dst)
{
    int nh = nexthop_lookup(dst);
    return nh >= 0 && nexthop_table[nh].kind == NEXTHOP_FORWARD ? &nexthop_table[nh] : NULL;
}

enum nexthop_result nexthop_resolve(unsigned core, uint32_t dst, unsigned *port, uint8_t mac[6])
{
    const struct nexthop *hop = nexthop_forward_hop(dst);
    if (hop == NULL || hop->ifc->vid != 0) {
        return NEXTHOP_NO_ROUTE;
    }
    struct nic_port *out = hop->port;
    uint32_t next = hop->gateway ? hop->gateway : dst;
    if (!out->link_up || !nic_queue_usable(out, core)) {
        return NEXTHOP_PORT_DOWN;
    }
    if (!neigh_lookup_use(&nexthop_neighbours, next, mac)) { /* in use: probed when stale */
        nexthop_arp_request(core, hop->ifc, next, time_ns());
        return NEXTHOP_UNRESOLVED;
    }
    *port = out->index;
    return NEXTHOP_OK;
}

bool nexthop_neighbour_known(uint32_t dst)
{
    const struct nexthop *hop = nexthop_forward_hop(dst);
    uint8_t mac[6];
    return hop != NULL && neigh_lookup(&nexthop_neighbours, hop->gateway ? hop->gateway : dst, mac);
}

/* --- neighbour aging (core 0: the neighbour table's writer) ---------------------------------- */

/* nexthop_probe: neigh_age's unicast probe, out of the interface whose subnet holds ip. */
static void nexthop_probe(void *ctx, struct neigh_key key, const uint8_t mac[6])
{
    (void)ctx;
    uint32_t ip = neigh_key_v4_ip(key); /* this table holds IPv4 addresses only */
    const struct nexthop *hop = nexthop_forward_hop(ip);
    if (hop != NULL && hop->gateway == 0 && hop->port->link_up && nic_queue_usable(hop->port, 0)) {
        nexthop_arp_send(0, hop->ifc, ip, mac);
    }
}

static unsigned nexthop_age_poll(unsigned core)
{
    static const struct neigh_age_params params = {
        .reachable_ns = CONFIG_NEIGH_REACHABLE_MS * 1000000ULL,
        .probe_interval_ns = NEXTHOP_PROBE_INTERVAL_NS,
        .gc_ns = NEXTHOP_STALE_GC_FACTOR * CONFIG_NEIGH_REACHABLE_MS * 1000000ULL,
        .probes = CONFIG_NEIGH_PROBES,
    };
    (void)core;
    neigh_age(&nexthop_neighbours, time_ns(), &params, nexthop_probe, NULL);
    return 0; /* housekeeping: never keeps the core from halting */
}

WS_POLLER(nexthop_age, .order = POLLER_ORDER_HOUSEKEEPING, .runs_on = poller_on_core0,
          .poll = nexthop_age_poll, .period_us = 100000);

/* --- console views (console core) ------------------------------------------------------------- */

static void nexthop_cmd_routes(int argc, char **argv)
{
    (void)argc, (void)argv;
    char pfx[INET_IPV4_STR_BYTES], gw[INET_IPV4_STR_BYTES];

    if (!CONFIG_MODE_ROUTER) {
        kprintf("wire mode: no routes (frames go to the paired port)\n");
        return;
    }
    kprintf("%-18s %-16s %s\n", "prefix", "via", "interface");
    for (unsigned i = 0; i < net_iface_count; i++) {
        const struct net_port *np = net_iface_at(i);
        if (np->present && np->has_address) {
            inet_ipv4_str(pfx, np->ifc.ip & nexthop_mask(np->ifc.prefix_len));
            kprintf("%s/%-*u %-16s %s\n", pfx, (int)(17 - strlen(pfx)), np->ifc.prefix_len,
                    "connected", np->name);
        }
    }
    for (int r = 0; r < CONFIG_NROUTES; r++) {
        inet_ipv4_str(pfx, nexthop_routes[r].prefix);
        inet_ipv4_str(gw, nexthop_routes[r].gateway);
        kprintf("%s/%-*u %-16s %s\n", pfx, (int)(17 - strlen(pfx)), nexthop_routes[r].len,
                nexthop_routes[r].gateway ? gw : "connected",
                net_iface_at(nexthop_routes[r].iface)->name);
    }
    nexthop6_routes_view();
}

static void nexthop_cmd_arp(int argc, char **argv)
{
    (void)argc, (void)argv;
    static struct neigh_snapshot_entry snap[NEIGH_TABLE_ENTRIES]; /* console core only */
    size_t n = neigh_snapshot(&nexthop_neighbours, snap, NEIGH_TABLE_ENTRIES);
    uint64_t now = time_ns();
    char ip[INET_IPV4_STR_BYTES];

    kprintf("%-16s %-17s %-9s %s\n", "address", "mac", "state", "age_ms");
    for (size_t i = 0; i < n; i++) {
        inet_ipv4_str(ip, snap[i].ip);
        const uint8_t *m = snap[i].mac;
        kprintf("%-16s %02x:%02x:%02x:%02x:%02x:%02x %-9s %llu\n", ip, m[0], m[1], m[2], m[3],
                m[4], m[5], neigh_state_name((enum neigh_state)snap[i].state),
                (unsigned long long)((now - snap[i].updated_ns) / 1000000));
    }
}

/* `neigh flush`: the console runs on core 0, the neighbour table's writer. */
static void nexthop_cmd_neigh(int argc, char **argv)
{
    if (argc != 2 || strcmp(argv[1], "flush") != 0) {
        kprintf("error: neigh takes one word: flush\n");
        return;
    }
    kprintf("neigh: %u entries flushed\n", neigh_flush(&nexthop_neighbours));
}

WS_COMMAND(routes, "routes", 0, "routing table: connected subnets and baked routes",
           nexthop_cmd_routes);
WS_COMMAND(arp, "arp", 0, "neighbour table: address, MAC, state, age", nexthop_cmd_arp);
WS_COMMAND(neigh, "neigh", 1, "neigh flush: forget every neighbour (ARP learns them again)",
           nexthop_cmd_neigh);
