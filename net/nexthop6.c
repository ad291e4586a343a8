/* net/nexthop6.c: the IPv6 FIB, next hops, neighbour cache and resolution (see header). */
#include "net/nexthop6.h"

#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "config.h"
#include "console.h"
#include "dma.h"
#include "drivers/nic/nic.h"
#include "err.h"
#include "init.h"
#include "loop.h"
#include "net/iface.h"
#include "net/inet6.h"
#include "net/local6.h"
#include "net/nexthop.h"
#include "time.h"

#define NEXTHOP6_MAX (2 * WS_MAX_PORTS + CONFIG_NROUTES6 + 1)
#define NEXTHOP6_FIB_ROUTES 256
#define NEXTHOP6_NS_SLOTS 16              /* per core: recently solicited targets */
#define NEXTHOP6_NS_RETRY_NS 100000000ULL /* one solicitation per target per 100 ms per core */
#define NEXTHOP6_PROBE_INTERVAL_NS 1000000000ULL /* RFC 4861's RETRANS_TIMER: 1 s */
#define NEXTHOP6_STALE_GC_FACTOR 10

/* The baked route6 lines, each with its egress port (config: route6 = prefix/len via gateway
 * [dev portN], or dev portN). */
static const struct {
    uint8_t prefix[16];
    uint8_t len;
    uint8_t has_gateway;
    uint8_t gateway[16];
    uint8_t iface;
} nexthop6_routes[] = CONFIG_ROUTES6;

/* read-only after nexthop6_init */
struct fib6 *nexthop6_fib;
struct nexthop6 nexthop6_table[NEXTHOP6_MAX];
static unsigned nexthop6_count;
struct neigh_table nexthop6_neighbours;

/* Per core: targets solicited lately. Written by that core only. */
static struct {
    struct {
        uint8_t target[16];
        uint64_t sent_ns;
    } slot[NEXTHOP6_NS_SLOTS];
} __attribute__((aligned(64))) nexthop6_ns_memory[WS_MAX_CPUS];

static struct nexthop6_stats nexthop6_stats[WS_MAX_PORTS][WS_MAX_CPUS];

const struct nexthop6_stats *nexthop6_stats_of(unsigned port, unsigned core)
{
    return &nexthop6_stats[port][core];
}

struct neigh_key nexthop6_key(unsigned iface, const uint8_t *a)
{
    struct neigh_key k = neigh_key_v6(a);
    if (inet6_is_link_local(a)) {
        k.hi |= (uint64_t)(iface + 1) << 32; /* bytes 2..3 of fe80::/10: zero on the wire */
    }
    return k;
}

/* nexthop6_key_addr: the address of key k into a, and (link-local) its interface, else -1. */
static int nexthop6_key_addr(struct neigh_key k, uint8_t a[16])
{
    neigh_key_bytes(k, a);
    if (!inet6_is_link_local(a)) {
        return -1;
    }
    int iface = (int)((k.hi >> 32) & 0xffffu) - 1;
    a[2] = a[3] = 0;
    return iface;
}

/* --- building the FIB (boot core) ------------------------------------------------------------ */

static int nexthop6_add(const uint8_t *prefix, uint8_t len, const uint8_t *gateway,
                        unsigned iface, enum nexthop_kind kind)
{
    if (nexthop6_count == NEXTHOP6_MAX) {
        return WS_ERR_NO_MEMORY;
    }
    const struct net_port *ifc = net_iface_at(iface);
    struct nexthop6 *hop = &nexthop6_table[nexthop6_count];
    *hop = (struct nexthop6){ .port = nic_port(ifc->ifc.port), .ifc = ifc,
                              .has_gateway = gateway != NULL, .kind = (uint8_t)kind };
    if (gateway != NULL) {
        memcpy(hop->gateway, gateway, 16);
    }
    int err = fib6_add(nexthop6_fib, prefix, len, (uint16_t)nexthop6_count);
    if (err == WS_OK) {
        nexthop6_count++;
    }
    return err;
}

/* nexthop6_prefix_of: a with the bits past len cleared. */
static void nexthop6_prefix_of(uint8_t out[16], const uint8_t *a, unsigned len)
{
    for (unsigned i = 0; i < 16; i++) {
        unsigned bits = len >= 8 * (i + 1) ? 8 : len > 8 * i ? len - 8 * i : 0;
        out[i] = a[i] & (uint8_t)(0xff00u >> bits);
    }
}

/* nexthop6_build_fib: each IPv6 port's prefix (on-link) and its global address (local), then
 * the baked routes. */
static int nexthop6_build_fib(void)
{
    int err = WS_OK;
    uint8_t pfx[16];

    for (unsigned i = 0; i < WS_MAX_PORTS && err == WS_OK; i++) {
        const struct net_port *np = net_port(i);
        if (np->present && np->has_address6) {
            nexthop6_prefix_of(pfx, np->ifc6.global, np->ifc6.prefix_len);
            err = nexthop6_add(pfx, np->ifc6.prefix_len, NULL, i, NEXTHOP_FORWARD);
            err = err ? err : nexthop6_add(np->ifc6.global, 128, NULL, i, NEXTHOP_LOCAL);
        }
    }
    for (int r = 0; r < CONFIG_NROUTES6 && err == WS_OK; r++) {
        const struct net_port *np = net_port(nexthop6_routes[r].iface);
        if (!np->present) {
            kprintf("nexthop6: route6 %d needs %s, which is not up; route skipped\n", r,
                    np->name);
            continue;
        }
        err = nexthop6_add(nexthop6_routes[r].prefix, nexthop6_routes[r].len,
                           nexthop6_routes[r].has_gateway ? nexthop6_routes[r].gateway : NULL,
                           nexthop6_routes[r].iface, NEXTHOP_FORWARD);
    }
    return err;
}

static bool nexthop6_any_port(void)
{
    for (unsigned i = 0; i < WS_MAX_PORTS; i++) {
        if (net_port(i)->present && net_port(i)->has_address6) {
            return true;
        }
    }
    return false;
}

int nexthop6_init(void)
{
    neigh_init(&nexthop6_neighbours);
    if (!CONFIG_MODE_ROUTER || !nexthop6_any_port()) {
        return WS_OK;
    }
    size_t bytes = fib6_mem_bytes(NEXTHOP6_FIB_ROUTES);
    void *mem = dma_alloc(bytes, 64);
    struct fib6 *f = dma_alloc(sizeof(*f), 64);
    int err = (mem && f) ? fib6_init(f, mem, bytes, NEXTHOP6_FIB_ROUTES) : WS_ERR_NO_MEMORY;
    nexthop6_fib = f;
    err = err ? err : nexthop6_build_fib();
    if (err != WS_OK) {
        kprintf("nexthop6: cannot build the IPv6 routing table: %s\n", err_name(err));
        nexthop6_fib = NULL;
        return err;
    }
    return WS_OK;
}

static int nexthop6_init_step(struct init_ctx *ctx)
{
    (void)ctx;
    return nexthop6_init();
}
WS_INIT(nexthop6, INIT_NET + 11, true, nexthop6_init_step);

/* --- solicitation (any core) ----------------------------------------------------------------- */

/* nexthop6_ns_send: a neighbour solicitation for target out of ifc through core's TX batch:
 * to its solicited-node group, or with dst_mac to the target itself (a probe, 7.3.3). */
static void nexthop6_ns_send(unsigned core, const struct net_port *ifc, const uint8_t *target,
                             const uint8_t *dst_mac)
{
    struct nexthop6_stats *st = &nexthop6_stats[ifc->ifc.port][core];
    struct pkb *b = nexthop_frame_alloc(core, &st->alloc_fail);
    if (b == NULL) {
        return;
    }
    uint16_t n = net_nd_solicit(b->data, PKB_DATA_BYTES, &ifc->ifc6, target, dst_mac);
    if (n == 0) {
        pkb_free(b, (uint16_t)core);
        return;
    }
    b->len = n;
    st->ns_sent++;
    nexthop_send(core, ifc, b);
}

void nexthop6_solicit(unsigned core, const struct net_port *ifc, const uint8_t *target,
                      uint64_t now)
{
    unsigned slot = (target[15] ^ target[14]) & (NEXTHOP6_NS_SLOTS - 1);
    __typeof__(&nexthop6_ns_memory[0].slot[0]) mem = &nexthop6_ns_memory[core].slot[slot];
    if (inet6_eq(mem->target, target) && now - mem->sent_ns < NEXTHOP6_NS_RETRY_NS) {
        return;
    }
    memcpy(mem->target, target, 16);
    mem->sent_ns = now;
    nexthop6_ns_send(core, ifc, target, NULL);
}

bool nexthop6_neighbour_known(const uint8_t *dst)
{
    int nh = nexthop6_lookup(dst);
    uint8_t mac[6];
    if (nh < 0 || nexthop6_table[nh].kind != NEXTHOP_FORWARD) {
        return false;
    }
    const struct nexthop6 *hop = &nexthop6_table[nh];
    return neigh_lookup_key(&nexthop6_neighbours,
                            nexthop6_key(hop->port->index, nexthop6_next(hop, dst)), mac);
}

enum nexthop_result nexthop6_resolve(unsigned core, const uint8_t *dst, unsigned *port,
                                     uint8_t mac[6])
{
    int nh = nexthop6_lookup(dst);
    if (nh < 0 || nexthop6_table[nh].kind != NEXTHOP_FORWARD) {
        return NEXTHOP_NO_ROUTE;
    }
    const struct nexthop6 *hop = &nexthop6_table[nh];
    struct nic_port *out = hop->port;
    const uint8_t *next = nexthop6_next(hop, dst);
    if (!out->link_up || !nic_queue_usable(out, core)) {
        return NEXTHOP_PORT_DOWN;
    }
    if (!neigh_lookup_use_key(&nexthop6_neighbours, nexthop6_key(out->index, next), mac)) {
        nexthop6_solicit(core, hop->ifc, next, time_ns());
        return NEXTHOP_UNRESOLVED;
    }
    *port = out->index;
    return NEXTHOP_OK;
}

/* --- learning and aging (core 0: the cache's writer) ----------------------------------------- */

/*
 * RFC 4861 7.2.3 and 7.2.5, for a cache that keeps no INCOMPLETE entries (a datagram to an
 * unresolved next hop is dropped and the solicitation sent; the answer then creates the entry):
 * a solicitation's source link-layer address is learned (created or updated); a solicited
 * advertisement's is too, and one without the option (the answer to a unicast probe) confirms
 * a known entry as it is; an unsolicited one with Override updates a known entry only, and one
 * without Override changes nothing (a known entry then ages and is probed as usual).
 */
void nexthop6_learn(unsigned iface, const struct net6_learn *l, uint64_t now)
{
    static const uint8_t zero[6];
    if (inet6_is_link_local(l->ip) && ((l->ip[1] & 0x3f) != 0 || memcmp(l->ip + 2, zero, 6))) {
        return; /* not in fe80::/64 (RFC 4291 2.5.6): its key could not carry the interface */
    }
    struct neigh_key k = nexthop6_key(iface, l->ip);
    uint8_t known[6];
    if (l->confirm_only) {
        if (neigh_lookup_key(&nexthop6_neighbours, k, known)) {
            neigh_refresh_key(&nexthop6_neighbours, k, known, now);
        }
    } else if (!l->from_na || l->solicited) {
        neigh_update_key(&nexthop6_neighbours, k, l->mac, now);
    } else if (l->override_flag) {
        neigh_refresh_key(&nexthop6_neighbours, k, l->mac, now);
    }
}

/* nexthop6_probe: neigh_age's unicast solicitation, out of the interface the key names (link-
 * local) or whose prefix holds the address. */
static void nexthop6_probe(void *ctx, struct neigh_key key, const uint8_t mac[6])
{
    (void)ctx;
    uint8_t a[16];
    int iface = nexthop6_key_addr(key, a);
    const struct net_port *np = NULL;
    if (inet6_is_link_local(a)) {
        np = iface >= 0 && iface < WS_MAX_PORTS ? net_port((unsigned)iface) : NULL;
    } else {
        int nh = nexthop6_lookup(a);
        np = nh >= 0 && !nexthop6_table[nh].has_gateway ? nexthop6_table[nh].ifc : NULL;
    }
    struct nic_port *p = np != NULL ? nic_port(np->ifc.port) : NULL;
    if (p != NULL && np->has_address6 && p->link_up && nic_queue_usable(p, 0)) {
        nexthop6_ns_send(0, np, a, mac);
    }
}

static unsigned nexthop6_age_poll(unsigned core)
{
    static const struct neigh_age_params params = {
        .reachable_ns = CONFIG_NEIGH_REACHABLE_MS * 1000000ULL,
        .probe_interval_ns = NEXTHOP6_PROBE_INTERVAL_NS,
        .gc_ns = NEXTHOP6_STALE_GC_FACTOR * CONFIG_NEIGH_REACHABLE_MS * 1000000ULL,
        .probes = CONFIG_NEIGH_PROBES,
    };
    (void)core;
    if (nexthop6_fib != NULL) {
        neigh_age(&nexthop6_neighbours, time_ns(), &params, nexthop6_probe, NULL);
    }
    return 0;
}

WS_POLLER(nexthop6_age, .order = POLLER_ORDER_HOUSEKEEPING, .runs_on = poller_on_core0,
          .poll = nexthop6_age_poll, .period_us = 100000);

/* --- console views (console core) ------------------------------------------------------------- */

/* nexthop6_say_route: one row of `routes` for IPv6. */
static void nexthop6_say_route(const uint8_t *prefix, unsigned len, const char *via,
                               const char *iface)
{
    char pfx[INET6_STR_BYTES], row[INET6_STR_BYTES + 8];
    snprintf(row, sizeof(row), "%s/%u", inet6_str(pfx, prefix), len);
    kprintf("%-30s %-26s %s\n", row, via, iface);
}

void nexthop6_routes_view(void)
{
    char gw[INET6_STR_BYTES];
    uint8_t pfx[16];
    if (nexthop6_fib == NULL) {
        return;
    }
    kprintf("%-30s %-26s %s\n", "prefix6", "via", "interface");
    for (unsigned i = 0; i < WS_MAX_PORTS; i++) {
        const struct net_port *np = net_port(i);
        if (np->present && np->has_address6) {
            nexthop6_prefix_of(pfx, np->ifc6.global, np->ifc6.prefix_len);
            nexthop6_say_route(pfx, np->ifc6.prefix_len, "connected", np->name);
        }
    }
    for (int r = 0; r < CONFIG_NROUTES6; r++) {
        nexthop6_say_route(nexthop6_routes[r].prefix, nexthop6_routes[r].len,
                           nexthop6_routes[r].has_gateway ? inet6_str(gw, nexthop6_routes[r].gateway)
                                                          : "connected",
                           net_port(nexthop6_routes[r].iface)->name);
    }
}

static void nexthop6_cmd_nd(int argc, char **argv)
{
    (void)argc, (void)argv;
    static struct neigh_snapshot_entry snap[NEIGH_TABLE_ENTRIES]; /* console core only */
    size_t n = neigh_snapshot(&nexthop6_neighbours, snap, NEIGH_TABLE_ENTRIES);
    uint64_t now = time_ns();
    char ip[INET6_STR_BYTES];

    kprintf("%-26s %-10s %-17s %-9s %s\n", "address", "interface", "mac", "state", "age_ms");
    for (size_t i = 0; i < n; i++) {
        uint8_t a[16];
        int iface = nexthop6_key_addr(snap[i].key, a);
        const uint8_t *m = snap[i].mac;
        kprintf("%-26s %-10s %02x:%02x:%02x:%02x:%02x:%02x %-9s %llu\n", inet6_str(ip, a),
                iface >= 0 && iface < WS_MAX_PORTS ? net_port((unsigned)iface)->name : "-",
                m[0], m[1], m[2], m[3], m[4], m[5],
                neigh_state_name((enum neigh_state)snap[i].state),
                (unsigned long long)((now - snap[i].updated_ns) / 1000000));
    }
}

WS_COMMAND(nd, "nd", 0, "IPv6 neighbour cache: address, interface, MAC, state, age",
           nexthop6_cmd_nd);
