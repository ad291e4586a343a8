/* config/confparse.c: reading a configuration file: lines, keys, duplicates, defaults and the
 * checks between keys (port subnets and IPv6 prefixes, routes and route6 against them, wire
 * mode's next-hop MACs, advertise6's address6). Single values are checked in confvalue.c.
 * Host code: runs at build time inside genconfig and tests. */
#include "confpriv.h"

#include <limits.h>
#include <stdarg.h>
#include <string.h>

/* Relative path so that both genconfig (-Iconfig only) and the unit tests find it. */
#include "../kernel/err.h"

/* State of one conf_parse call. */
struct conf_parser {
    const char *file;
    struct conf_values *out;
    struct conf_errors *errs;
};

static void conf_error_add(struct conf_parser *p, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Where an error on line sorts: by line, line 0 (the file as a whole) after every other. */
static unsigned conf_error_rank(unsigned line)
{
    return line == 0 ? UINT_MAX : line;
}

/*
 * conf_error_add: record one error, keeping the list sorted by line (stable: after those of the
 * same line), as checks made at the end of the file report on earlier lines. Once the list is
 * full, the error that sorts last is only counted, so the list keeps the first errors by line.
 */
static void conf_error_add(struct conf_parser *p, unsigned line, const char *fmt, ...)
{
    struct conf_errors *errs = p->errs;
    unsigned at = errs->count;
    struct conf_error *e;
    va_list ap;

    while (at > 0 && conf_error_rank(errs->list[at - 1].line) > conf_error_rank(line)) {
        at--;
    }
    if (errs->count == CONF_MAX_ERRORS) {
        errs->dropped++;
        if (at == CONF_MAX_ERRORS) {
            return; /* sorts after every kept error */
        }
        errs->count--; /* drop the last one to make room */
    }
    memmove(&errs->list[at + 1], &errs->list[at], (errs->count - at) * sizeof(errs->list[0]));
    errs->count++;
    e = &errs->list[at];
    e->file = p->file;
    e->line = line;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
}

/* Index of a key in conf_keys[], or -1. */
static int conf_key_index(const char *name)
{
    for (size_t i = 0; i < conf_key_count; i++) {
        if (strcmp(conf_keys[i].name, name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

const struct conf_key *conf_key_find(const char *name)
{
    int i = conf_key_index(name);

    return i < 0 ? NULL : &conf_keys[i];
}

const struct conf_value *conf_get(const struct conf_values *v, const char *name)
{
    int i = conf_key_index(name);

    return i < 0 ? NULL : &v->val[i];
}

/* Store a checked value (res, from conf_check_value) into a key's slot. */
static void conf_store(struct conf_value *val, const char *text, const struct conf_value *res)
{
    val->present = true;
    val->num = res->num;
    val->ip = res->ip;
    val->prefix = res->prefix;
    memcpy(val->ip6, res->ip6, sizeof(val->ip6));
    memcpy(val->mac, res->mac, sizeof(val->mac));
    memcpy(val->peer, res->peer, sizeof(val->peer));
    snprintf(val->text, sizeof(val->text), "%s", text);
}

/* conf_subnets_overlap: a/alen and b/blen share addresses. */
static bool conf_subnets_overlap(uint32_t a, unsigned alen, uint32_t b, unsigned blen)
{
    return ((a ^ b) & conf_ipv4_mask(alen < blen ? alen : blen)) == 0;
}

/*
 * conf_check_vlan_subnets: a new address ip/prefix (of `what`, on line) must not overlap the
 * subnet of a `vlan` line read so far (but vlan line `self`, when it is that line's own).
 */
static bool conf_check_vlan_subnets(struct conf_parser *p, unsigned line, const char *what,
                                    uint32_t ip, unsigned prefix, int self)
{
    char a[16], b[16];

    for (unsigned j = 0; j < p->out->nvlans; j++) {
        const struct conf_vlan *o = &p->out->vlans[j];
        if ((int)j == self || !conf_subnets_overlap(ip, prefix, o->ip, o->prefix)) {
            continue;
        }
        conf_error_add(p, line, "%s: subnet %s/%u overlaps subnet %s/%u of vlan port%u.%u "
                       "(line %u)", what, conf_ipv4_str(ip & conf_ipv4_mask(prefix), a), prefix,
                       conf_ipv4_str(o->ip & conf_ipv4_mask(o->prefix), b), o->prefix, o->port,
                       o->vid, o->line);
        return false;
    }
    return true;
}

/*
 * conf_check_subnets: the subnet of a new CONF_IPV4_PREFIX value (for key i, from line) must
 * not overlap that of any address already set: two ports in one subnet would make the route
 * to it ambiguous. Called as lines are read, so the error lands on the later line.
 */
static bool conf_check_subnets(struct conf_parser *p, unsigned line, size_t i,
                               const struct conf_value *res)
{
    for (size_t j = 0; j < conf_key_count; j++) {
        const struct conf_value *o = &p->out->val[j];
        unsigned common = res->prefix < o->prefix ? res->prefix : o->prefix;
        char a[16], b[16];

        if (j == i || conf_keys[j].type != CONF_IPV4_PREFIX || !o->present ||
            ((res->ip ^ o->ip) & conf_ipv4_mask(common)) != 0) {
            continue;
        }
        if (res->prefix == o->prefix) {
            conf_error_add(p, line, "%s: %s/%u is in the same subnet %s/%u as %s (line %u)",
                           conf_keys[i].name, conf_ipv4_str(res->ip, a), res->prefix,
                           conf_ipv4_str(o->ip & conf_ipv4_mask(o->prefix), b), o->prefix,
                           conf_keys[j].name, o->line);
        } else {
            conf_error_add(p, line, "%s: subnet %s/%u overlaps subnet %s/%u of %s (line %u)",
                           conf_keys[i].name,
                           conf_ipv4_str(res->ip & conf_ipv4_mask(res->prefix), a), res->prefix,
                           conf_ipv4_str(o->ip & conf_ipv4_mask(o->prefix), b), o->prefix,
                           conf_keys[j].name, o->line);
        }
        return false;
    }
    return conf_check_vlan_subnets(p, line, conf_keys[i].name, res->ip, res->prefix, -1);
}

/*
 * conf_check_prefixes6: the prefix of a new CONF_IPV6_PREFIX value (key i, from line) must not
 * overlap that of another port's address6 already set, as conf_check_subnets for IPv4: the
 * firmware's on-link route to it would be ambiguous. The error lands on the later line.
 */
static bool conf_check_prefixes6(struct conf_parser *p, unsigned line, size_t i,
                                 const struct conf_value *res)
{
    for (size_t j = 0; j < conf_key_count; j++) {
        const struct conf_value *o = &p->out->val[j];
        unsigned common = res->prefix < o->prefix ? res->prefix : o->prefix;
        uint8_t net[CONF_IPV6_BYTES], onet[CONF_IPV6_BYTES];
        char a[CONF_IPV6_STR_BYTES], b[CONF_IPV6_STR_BYTES];

        if (j == i || conf_keys[j].type != CONF_IPV6_PREFIX || !o->present ||
            !conf_ipv6_same_prefix(res->ip6, o->ip6, common)) {
            continue;
        }
        conf_ipv6_prefix_of(net, res->ip6, res->prefix);
        conf_ipv6_prefix_of(onet, o->ip6, o->prefix);
        if (res->prefix == o->prefix) {
            conf_error_add(p, line, "%s: %s/%u is in the same prefix %s/%u as %s (line %u)",
                           conf_keys[i].name, conf_ipv6_str(res->ip6, a), res->prefix,
                           conf_ipv6_str(onet, b), o->prefix, conf_keys[j].name, o->line);
        } else {
            conf_error_add(p, line, "%s: prefix %s/%u overlaps prefix %s/%u of %s (line %u)",
                           conf_keys[i].name, conf_ipv6_str(net, a), res->prefix,
                           conf_ipv6_str(onet, b), o->prefix, conf_keys[j].name, o->line);
        }
        return false;
    }
    return true;
}

/* conf_check_pci_unique: no two ports may name one PCI function (the later line is wrong). */
static bool conf_check_pci_unique(struct conf_parser *p, unsigned line, size_t i,
                                  const struct conf_value *res)
{
    for (size_t j = 0; j < conf_key_count; j++) {
        const struct conf_value *o = &p->out->val[j];
        if (j != i && conf_keys[j].type == CONF_PCI_ADDR && o->present && o->num == res->num) {
            conf_error_add(p, line, "%s: %s is already %s (line %u)", conf_keys[i].name,
                           res->text[0] ? res->text : "that function", conf_keys[j].name,
                           o->line);
            return false;
        }
    }
    return true;
}

/* Handle one `route` line (key index i, value non-empty): see conf_check_routes for the rest. */
static void conf_add_route(struct conf_parser *p, unsigned line, size_t i, const char *value)
{
    const struct conf_key *k = &conf_keys[i];
    struct conf_values *v = p->out;
    char msg[CONF_MSG_BYTES];
    char net[CONF_IPV4_STR_BYTES];
    struct conf_route r;

    if (!conf_parse_route(k, value, &r, msg, sizeof(msg))) {
        conf_error_add(p, line, "%s", msg);
        return;
    }
    /* One next hop per destination: no ECMP, and a second line is most likely a typo. */
    for (unsigned j = 0; j < v->nroutes; j++) {
        if (v->routes[j].prefix == r.prefix && v->routes[j].len == r.len) {
            conf_error_add(p, line, "%s: duplicate route to %s/%u (first on line %u)", k->name,
                           conf_ipv4_str(r.prefix, net), r.len, v->routes[j].line);
            return;
        }
    }
    if (v->nroutes == CONF_MAX_ROUTES) {
        conf_error_add(p, line, "%s: too many routes, at most %d", k->name, CONF_MAX_ROUTES);
        return;
    }
    r.line = line;
    v->routes[v->nroutes++] = r;
    if (!v->val[i].present) {
        v->val[i].present = true;
        snprintf(v->val[i].text, sizeof(v->val[i].text), "%s", value);
    }
}

/* Handle one `route6` line (key index i, value non-empty): one route per prefix/len, as for
 * `route`; the checks against the ports' address6 are conf_check_routes6'. */
static void conf_add_route6(struct conf_parser *p, unsigned line, size_t i, const char *value)
{
    const struct conf_key *k = &conf_keys[i];
    struct conf_values *v = p->out;
    char msg[CONF_MSG_BYTES];
    char net[CONF_IPV6_STR_BYTES];
    struct conf_route6 r;

    if (!conf_parse_route6(k, value, &r, msg, sizeof(msg))) {
        conf_error_add(p, line, "%s", msg);
        return;
    }
    for (unsigned j = 0; j < v->nroutes6; j++) {
        if (v->routes6[j].len == r.len &&
            memcmp(v->routes6[j].prefix, r.prefix, CONF_IPV6_BYTES) == 0) {
            conf_error_add(p, line, "%s: duplicate route to %s/%u (first on line %u)", k->name,
                           conf_ipv6_str(r.prefix, net), r.len, v->routes6[j].line);
            return;
        }
    }
    if (v->nroutes6 == CONF_MAX_ROUTES6) {
        conf_error_add(p, line, "%s: too many routes, at most %d", k->name, CONF_MAX_ROUTES6);
        return;
    }
    r.line = line;
    v->routes6[v->nroutes6++] = r;
    if (!v->val[i].present) {
        v->val[i].present = true;
        snprintf(v->val[i].text, sizeof(v->val[i].text), "%s", value);
    }
}

/* Handle one `neigh.static` line (key index i, value non-empty): one entry per address; the
 * subnet check is conf_check_neighs'. */
static void conf_add_neigh(struct conf_parser *p, unsigned line, size_t i, const char *value)
{
    const struct conf_key *k = &conf_keys[i];
    struct conf_values *v = p->out;
    char msg[CONF_MSG_BYTES];
    char ip[CONF_IPV4_STR_BYTES];
    struct conf_neigh n;

    if (!conf_parse_neigh(k, value, &n, msg, sizeof(msg))) {
        conf_error_add(p, line, "%s", msg);
        return;
    }
    for (unsigned j = 0; j < v->nneighs; j++) {
        if (v->neighs[j].ip == n.ip) {
            conf_error_add(p, line, "%s: %s already has a MAC (line %u)", k->name,
                           conf_ipv4_str(n.ip, ip), v->neighs[j].line);
            return;
        }
    }
    if (v->nneighs == CONF_MAX_NEIGHS) {
        conf_error_add(p, line, "%s: too many static neighbours, at most %d", k->name,
                       CONF_MAX_NEIGHS);
        return;
    }
    n.line = line;
    v->neighs[v->nneighs++] = n;
    if (!v->val[i].present) {
        v->val[i].present = true;
        snprintf(v->val[i].text, sizeof(v->val[i].text), "%s", value);
    }
}

/*
 * Handle one `vlan` line (key index i, value non-empty): one sub-interface per (port, VID),
 * its subnet apart from every other interface's (those set so far: a port address set later
 * is checked against it by conf_check_subnets).
 */
static void conf_add_vlan(struct conf_parser *p, unsigned line, size_t i, const char *value)
{
    const struct conf_key *k = &conf_keys[i];
    struct conf_values *v = p->out;
    char msg[CONF_MSG_BYTES];
    struct conf_vlan n;

    if (!conf_parse_vlan(k, value, &n, msg, sizeof(msg))) {
        conf_error_add(p, line, "%s", msg);
        return;
    }
    for (unsigned j = 0; j < v->nvlans; j++) {
        if (v->vlans[j].port == n.port && v->vlans[j].vid == n.vid) {
            conf_error_add(p, line, "%s: port%u.%u is already defined (line %u)", k->name,
                           n.port, n.vid, v->vlans[j].line);
            return;
        }
    }
    struct conf_value addr = { .ip = n.ip, .prefix = n.prefix };
    if (!conf_check_subnets(p, line, i, &addr)) {
        return;
    }
    if (v->nvlans == CONF_MAX_VLANS) {
        conf_error_add(p, line, "%s: too many VLAN sub-interfaces, at most %d", k->name,
                       CONF_MAX_VLANS);
        return;
    }
    n.line = line;
    v->vlans[v->nvlans++] = n;
    if (!v->val[i].present) {
        v->val[i].present = true;
        snprintf(v->val[i].text, sizeof(v->val[i].text), "%s", value);
    }
}

/*
 * The interfaces' addresses as the end-of-file checks see them: ports 0..CONF_PORT_COUNT-1
 * (their portN.address, maybe unset), then one per `vlan` line, numbered as the firmware
 * numbers them (see struct conf_route).
 */
#define CONF_MAX_IFACES (CONF_PORT_COUNT + CONF_MAX_VLANS)
struct conf_iface_addr {
    bool present;
    uint32_t ip;
    unsigned prefix;
    unsigned line;
    char name[24];  /* "port0" or "port0.10" */
    char key[24];   /* where the address was set: "port0.address" or "vlan" */
};

struct conf_ifaces {
    unsigned n;
    bool bad_address; /* a port address was given but is invalid: its error suffices */
    struct conf_iface_addr a[CONF_MAX_IFACES];
};

/* conf_ifaces_of: the interface list; false if the key table lost a port key. */
static bool conf_ifaces_of(struct conf_parser *p, struct conf_ifaces *ifs)
{
    memset(ifs, 0, sizeof(*ifs));
    for (unsigned n = 0; n < CONF_PORT_COUNT; n++) {
        struct conf_iface_addr *a = &ifs->a[ifs->n++];
        snprintf(a->key, sizeof(a->key), "port%u.address", n);
        const struct conf_value *v = conf_get(p->out, a->key);
        if (v == NULL) {
            return false; /* the table lost a port key: test_key_table_is_sound says so */
        }
        ifs->bad_address |= v->line != 0 && !v->present;
        *a = (struct conf_iface_addr){ v->present, v->ip, v->prefix, v->line, "", "" };
        snprintf(a->name, sizeof(a->name), "port%u", n);
        snprintf(a->key, sizeof(a->key), "port%u.address", n);
    }
    for (unsigned j = 0; j < p->out->nvlans; j++) {
        const struct conf_vlan *v = &p->out->vlans[j];
        struct conf_iface_addr *a = &ifs->a[ifs->n++];
        *a = (struct conf_iface_addr){ true, v->ip, v->prefix, v->line, "", "vlan" };
        snprintf(a->name, sizeof(a->name), "port%u.%u", v->port, v->vid);
    }
    return true;
}

/* A route's destination must not be an interface's own subnet: the firmware adds those. */
static bool conf_check_route_connected(struct conf_parser *p, const struct conf_route *r,
                                       const struct conf_ifaces *ifs)
{
    char net[CONF_IPV4_STR_BYTES];

    for (unsigned n = 0; n < ifs->n; n++) {
        const struct conf_iface_addr *a = &ifs->a[n];
        if (a->present && a->prefix == r->len && (a->ip & conf_ipv4_mask(r->len)) == r->prefix) {
            conf_error_add(p, r->line, "route: %s/%u is already connected via %s (%s, line %u)",
                           conf_ipv4_str(r->prefix, net), r->len, a->name, a->key, a->line);
            return false;
        }
    }
    return true;
}

/*
 * conf_host_iface: the interface whose subnet holds ip, a route's gateway or a static
 * neighbour (`what` says which, "route: gateway" or "neigh.static: neighbour"). Subnets never
 * overlap (conf_check_subnets, conf_add_vlan), so at most one does. ip must be a neighbour
 * there: not the interface's own address, nor its subnet's network or broadcast address.
 * Errors on `line`; returns the interface, or -1.
 */
static int conf_host_iface(struct conf_parser *p, unsigned line, const char *what, uint32_t ip,
                           const struct conf_ifaces *ifs)
{
    char ipstr[CONF_IPV4_STR_BYTES], net[CONF_IPV4_STR_BYTES];

    for (unsigned n = 0; n < ifs->n; n++) {
        const struct conf_iface_addr *a = &ifs->a[n];
        uint32_t mask = conf_ipv4_mask(a->prefix);
        uint32_t host = ip & ~mask;

        if (!a->present || ((ip ^ a->ip) & mask) != 0) {
            continue;
        }
        conf_ipv4_str(ip, ipstr);
        if (ip == a->ip) {
            conf_error_add(p, line, "%s %s is %s's own address", what, ipstr, a->name);
            return -1;
        }
        if (host == 0 || host == ~mask) {
            conf_error_add(p, line, "%s %s is the %s address of %s's subnet %s/%u", what, ipstr,
                           host == 0 ? "network" : "broadcast", a->name,
                           conf_ipv4_str(a->ip & mask, net), a->prefix);
            return -1;
        }
        return (int)n;
    }
    /* An address with an error of its own may be the one meant: that error suffices. */
    if (!ifs->bad_address) {
        conf_error_add(p, line, "%s %s is not on any interface's subnet", what,
                       conf_ipv4_str(ip, ipstr));
    }
    return -1;
}

/* conf_dev_vlan: the interface of a "dev portN.VID" route, or -1 (said on its line). */
static int conf_dev_vlan(struct conf_parser *p, const struct conf_route *r)
{
    for (unsigned j = 0; j < p->out->nvlans; j++) {
        if (p->out->vlans[j].port == r->dev_port && p->out->vlans[j].vid == r->dev_vid) {
            return (int)(CONF_PORT_COUNT + j);
        }
    }
    conf_error_add(p, r->line, "route: port%u.%u is not a VLAN sub-interface: no `vlan = "
                   "port%u.%u ...` line", r->dev_port, r->dev_vid, r->dev_port, r->dev_vid);
    return -1;
}

/*
 * conf_check_routes: the checks of each route against the interface addresses, which may come
 * after it in the file: so made once the whole file is read, and reported on the route's line.
 * A "dev portN" route needs no address on port N (documented in docs/config.md).
 */
static void conf_check_routes(struct conf_parser *p)
{
    struct conf_ifaces ifs;

    if (!conf_ifaces_of(p, &ifs)) {
        return;
    }
    for (unsigned j = 0; j < p->out->nroutes; j++) {
        struct conf_route *r = &p->out->routes[j];
        int iface = (int)r->iface;

        if (!conf_check_route_connected(p, r, &ifs)) {
            continue;
        }
        if (r->via) {
            iface = conf_host_iface(p, r->line, "route: gateway", r->gateway, &ifs);
        } else if (r->dev_vid != 0) {
            iface = conf_dev_vlan(p, r);
        }
        r->iface = iface < 0 ? 0 : (unsigned)iface;
    }
}

/* The ports' address6 values, port N at [N], as conf_check_routes6 sees them. */
struct conf_ports6 {
    const struct conf_value *a[CONF_PORT_COUNT];
    bool bad_address; /* an address6 was given but is invalid: its error suffices */
};

/* conf_ports6_of: the ports' address6 values; false if the key table lost one. */
static bool conf_ports6_of(struct conf_parser *p, struct conf_ports6 *ps)
{
    memset(ps, 0, sizeof(*ps));
    for (unsigned n = 0; n < CONF_PORT_COUNT; n++) {
        char key[32];

        snprintf(key, sizeof(key), "port%u.address6", n);
        ps->a[n] = conf_get(p->out, key);
        if (ps->a[n] == NULL) {
            return false; /* test_key_table_is_sound says so */
        }
        ps->bad_address |= ps->a[n]->line != 0 && !ps->a[n]->present;
    }
    return true;
}

/* A route6's destination must not be a port's own prefix: the firmware adds those. */
static bool conf_check_route6_connected(struct conf_parser *p, const struct conf_route6 *r,
                                        const struct conf_ports6 *ps)
{
    char net[CONF_IPV6_STR_BYTES];

    for (unsigned n = 0; n < CONF_PORT_COUNT; n++) {
        const struct conf_value *a = ps->a[n];
        if (a->present && a->prefix == r->len && conf_ipv6_same_prefix(a->ip6, r->prefix, r->len)) {
            conf_error_add(p, r->line, "route6: %s/%u is already connected via port%u "
                           "(port%u.address6, line %u)", conf_ipv6_str(r->prefix, net), r->len, n,
                           n, a->line);
            return false;
        }
    }
    return true;
}

/*
 * conf_gateway6_port: the port whose address6 prefix holds r's global (or unique-local) gateway;
 * prefixes never overlap (conf_check_prefixes6), so at most one does. The gateway may not be
 * that port's own address. Errors on r's line; returns the port, or -1.
 */
static int conf_gateway6_port(struct conf_parser *p, const struct conf_route6 *r,
                              const struct conf_ports6 *ps)
{
    char gw[CONF_IPV6_STR_BYTES];

    conf_ipv6_str(r->gateway, gw);
    for (unsigned n = 0; n < CONF_PORT_COUNT; n++) {
        const struct conf_value *a = ps->a[n];

        if (!a->present || !conf_ipv6_same_prefix(r->gateway, a->ip6, a->prefix)) {
            continue;
        }
        if (memcmp(r->gateway, a->ip6, CONF_IPV6_BYTES) == 0) {
            conf_error_add(p, r->line, "route6: gateway %s is port%u's own address", gw, n);
            return -1;
        }
        return (int)n;
    }
    if (!ps->bad_address) {
        conf_error_add(p, r->line, "route6: gateway %s is not on any port's address6 prefix", gw);
    }
    return -1;
}

/*
 * conf_check_routes6: each route6 against the ports' address6, which may come after it in the
 * file: so checked once the whole file is read, and reported on the route's line. A global
 * gateway picks its port by prefix (and must agree with a "dev portN" given too); a link-local
 * gateway or a route without one uses its "dev portN", which needs an address6 (unlike IPv4's
 * dev: a port without address6 does not run IPv6 at all).
 */
static void conf_check_routes6(struct conf_parser *p)
{
    struct conf_ports6 ps;
    char gw[CONF_IPV6_STR_BYTES];

    if (!conf_ports6_of(p, &ps)) {
        return;
    }
    for (unsigned j = 0; j < p->out->nroutes6; j++) {
        struct conf_route6 *r = &p->out->routes6[j];

        if (!conf_check_route6_connected(p, r, &ps)) {
            continue;
        }
        if (r->via && !conf_ipv6_is_link_local(r->gateway)) {
            int port = conf_gateway6_port(p, r, &ps);
            if (port >= 0 && r->dev && (unsigned)port != r->dev_port) {
                const struct conf_value *a = ps.a[port];
                uint8_t net[CONF_IPV6_BYTES];
                char ns[CONF_IPV6_STR_BYTES];

                conf_ipv6_prefix_of(net, a->ip6, a->prefix);
                conf_error_add(p, r->line, "route6: gateway %s is on port%d's prefix %s/%u, not "
                               "on port%u", conf_ipv6_str(r->gateway, gw), port,
                               conf_ipv6_str(net, ns), a->prefix, r->dev_port);
            }
            r->iface = port < 0 ? 0 : (unsigned)port;
        } else if (!ps.a[r->dev_port]->present && ps.a[r->dev_port]->line == 0) {
            conf_error_add(p, r->line, "route6: port%u has no address6", r->dev_port);
        }
    }
}

/* conf_check_neighs: each static neighbour on an interface's subnet (the addresses may come
 * after it in the file, so checked at its end), reported on the neighbour's line. */
static void conf_check_neighs(struct conf_parser *p)
{
    struct conf_ifaces ifs;

    if (!conf_ifaces_of(p, &ifs)) {
        return;
    }
    for (unsigned j = 0; j < p->out->nneighs; j++) {
        struct conf_neigh *n = &p->out->neighs[j];
        int iface = conf_host_iface(p, n->line, "neigh.static: neighbour", n->ip, &ifs);
        n->iface = iface < 0 ? 0 : (unsigned)iface;
    }
}

/*
 * conf_check_wire: mode = wire with wire.rewrite_mac = yes writes portN.next_hop_mac into every
 * frame leaving a paired port, so each of them needs one. That a key is absent is known only
 * at the end of the file: reported like a missing required key, on line 0.
 */
static void conf_check_wire(struct conf_parser *p)
{
    const struct conf_value *mode = conf_get(p->out, "mode");
    const struct conf_value *rewrite = conf_get(p->out, "wire.rewrite_mac");
    const struct conf_value *pairs = conf_get(p->out, "wire.pairs");

    if (mode == NULL || rewrite == NULL || pairs == NULL || !mode->present ||
        strcmp(mode->text, "wire") != 0 || !rewrite->present || rewrite->num == 0 ||
        !pairs->present) {
        return; /* not in use, or a bad value already reported */
    }
    for (unsigned n = 0; n < CONF_PORT_COUNT; n++) {
        const struct conf_value *mac;
        char key[32];

        snprintf(key, sizeof(key), "port%u.next_hop_mac", n);
        mac = conf_get(p->out, key);
        /* A line with a bad MAC has its own error. */
        if (pairs->peer[n] >= 0 && mac != NULL && mac->line == 0) {
            conf_error_add(p, 0, "missing key '%s': wire.rewrite_mac = yes (line %u) needs a "
                           "next-hop MAC for every port in wire.pairs", key, rewrite->line);
        }
    }
}
/*
 * conf_check_advertise6: portN.advertise6 = yes advertises portN.address6's prefix with this
 * router as the link's default (RFC 4861 6.2.3), so it needs that address and router mode,
 * which may come later in the file: checked at its end, reported on the advertise6 line. An
 * address6 with an error of its own gets no second one here.
 */
static void conf_check_advertise6(struct conf_parser *p)
{
    const struct conf_value *mode = conf_get(p->out, "mode");
    bool wire = mode != NULL && mode->present && strcmp(mode->text, "wire") == 0;

    for (unsigned n = 0; n < CONF_PORT_COUNT; n++) {
        char key[32], addr_key[32];

        snprintf(key, sizeof(key), "port%u.advertise6", n);
        snprintf(addr_key, sizeof(addr_key), "port%u.address6", n);
        const struct conf_value *adv = conf_get(p->out, key);
        const struct conf_value *addr = conf_get(p->out, addr_key);
        if (adv == NULL || addr == NULL || !adv->present || adv->num == 0) {
            continue; /* off, or a bad value already reported */
        }
        if (wire) {
            conf_error_add(p, adv->line, "%s: wire mode (mode, line %u) sends no router "
                           "advertisements: set mode = router or %s = no", key, mode->line, key);
        } else if (addr->line == 0) {
            conf_error_add(p, adv->line, "%s: port%u has no address6 to advertise: set %s or "
                           "%s = no", key, n, addr_key, key);
        }
    }
}

/* Handle one "key = value" line with key and value already trimmed. */
static void conf_set(struct conf_parser *p, unsigned line, const char *key, const char *value)
{
    char msg[CONF_MSG_BYTES];
    struct conf_value res;
    struct conf_value *val;
    int i;

    if (key[strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789_.")] != '\0') {
        conf_error_add(p, line, "invalid key '%s': keys use only a-z 0-9 _ and .", key);
        return;
    }
    i = conf_key_index(key);
    if (i < 0) {
        conf_error_add(p, line, "unknown key '%s'", key);
        return;
    }
    val = &p->out->val[i];
    if (val->line != 0 && !conf_keys[i].repeatable) {
        conf_error_add(p, line, "duplicate key '%s' (first set on line %u)", key, val->line);
        return;
    }
    /* Remember the line even if the value is bad, so a repeat still counts as a duplicate. */
    if (val->line == 0) {
        val->line = line;
    }
    if (value[0] == '\0') {
        conf_error_add(p, line, "%s: empty value", key);
        return;
    }
    if (conf_keys[i].type == CONF_ROUTE) {
        conf_add_route(p, line, (size_t)i, value);
        return;
    }
    if (conf_keys[i].type == CONF_ROUTE6) {
        conf_add_route6(p, line, (size_t)i, value);
        return;
    }
    if (conf_keys[i].type == CONF_NEIGH) {
        conf_add_neigh(p, line, (size_t)i, value);
        return;
    }
    if (conf_keys[i].type == CONF_VLAN) {
        conf_add_vlan(p, line, (size_t)i, value);
        return;
    }
    if (!conf_check_value(&conf_keys[i], value, &res, msg, sizeof(msg))) {
        conf_error_add(p, line, "%s", msg);
        return;
    }
    if (conf_keys[i].type == CONF_IPV4_PREFIX && !conf_check_subnets(p, line, (size_t)i, &res)) {
        return;
    }
    if (conf_keys[i].type == CONF_IPV6_PREFIX &&
        !conf_check_prefixes6(p, line, (size_t)i, &res)) {
        return;
    }
    snprintf(res.text, sizeof(res.text), "%s", value);
    if (conf_keys[i].type == CONF_PCI_ADDR && !conf_check_pci_unique(p, line, (size_t)i, &res)) {
        return;
    }
    conf_store(val, value, &res);
}

/*
 * Reject bytes no key or comment may hold: NUL and other control characters (tab excepted).
 * A NUL usually means a binary or UTF-16 file was given. Returns false after one error.
 */
static bool conf_check_control(struct conf_parser *p, unsigned line, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            conf_error_add(p, line, "control character 0x%02x at column %zu", c, i + 1);
            return false;
        }
    }
    return true;
}

/* Reject bytes above 0x7f outside comments: no key or value accepts them. */
static bool conf_check_ascii(struct conf_parser *p, unsigned line, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c >= 0x80) {
            conf_error_add(p, line, "non-ASCII byte 0x%02x at column %zu (only comments may "
                                    "hold UTF-8)", c, i + 1);
            return false;
        }
    }
    return true;
}

/* Length of the line without its comment: '#' at the start or after a space or tab. */
static size_t conf_strip_comment(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '#' && (i == 0 || conf_is_space(s[i - 1]))) {
            return i;
        }
    }
    return n;
}

/* Copy s[from..to) without surrounding spaces and tabs into out (room for the line + NUL). */
static void conf_copy_trimmed(char *out, const char *s, size_t from, size_t to)
{
    while (from < to && conf_is_space(s[from])) {
        from++;
    }
    while (to > from && conf_is_space(s[to - 1])) {
        to--;
    }
    memcpy(out, s + from, to - from);
    out[to - from] = '\0';
}

/* Parse one line (s, n bytes, without its '\n'). Reports at most one error per line. */
static void conf_parse_line(struct conf_parser *p, unsigned line, const char *s, size_t n)
{
    char key[CONF_LINE_MAX_BYTES + 1];
    char value[CONF_LINE_MAX_BYTES + 1];
    const char *eq;

    if (n > 0 && s[n - 1] == '\r') {
        n--; /* a CRLF file: the '\r' belongs to the line ending */
    }
    if (n > CONF_LINE_MAX_BYTES) {
        conf_error_add(p, line, "line too long: %zu bytes, at most %d", n, CONF_LINE_MAX_BYTES);
        return;
    }
    if (!conf_check_control(p, line, s, n)) {
        return;
    }
    n = conf_strip_comment(s, n);
    if (!conf_check_ascii(p, line, s, n)) {
        return;
    }
    conf_copy_trimmed(key, s, 0, n);
    if (key[0] == '\0') {
        return; /* blank or comment-only line */
    }
    eq = memchr(s, '=', n);
    if (eq == NULL) {
        conf_error_add(p, line, "expected 'key = value', found no '=' in '%s'", key);
        return;
    }
    conf_copy_trimmed(key, s, 0, (size_t)(eq - s));
    conf_copy_trimmed(value, s, (size_t)(eq - s) + 1, n);
    if (key[0] == '\0') {
        conf_error_add(p, line, "empty key before '='");
        return;
    }
    conf_set(p, line, key, value);
}

/* The default `name`: the file's basename without ".conf", cut to fit conf_value.text. */
static void conf_name_from_file(const char *file, char *out, size_t size)
{
    const char *base = strrchr(file, '/');
    size_t len;

    base = base == NULL ? file : base + 1;
    len = strlen(base);
    if (len >= 5 && strcmp(base + len - 5, ".conf") == 0) {
        len -= 5;
    }
    snprintf(out, size, "%.*s", (int)(len < size ? len : size - 1), base);
}

/* Give every key not set in the file its default; report required keys that are missing. */
static void conf_apply_defaults(struct conf_parser *p)
{
    char text[CONF_LINE_MAX_BYTES + 1];
    char msg[CONF_MSG_BYTES];
    struct conf_value res;

    for (size_t i = 0; i < conf_key_count; i++) {
        const struct conf_key *k = &conf_keys[i];
        struct conf_value *val = &p->out->val[i];

        if (val->line != 0) {
            continue; /* set in the file; any problem is already reported */
        }
        if (k->required) {
            conf_error_add(p, 0, "missing required key '%s'", k->name);
            continue;
        }
        if (k->no_default) {
            continue; /* stays unset: present false, the header says so */
        }
        if (k->def_from_file) {
            conf_name_from_file(p->file, text, sizeof(text));
        } else {
            snprintf(text, sizeof(text), "%s", k->def != NULL ? k->def : "");
        }
        if (!conf_check_value(k, text, &res, msg, sizeof(msg))) {
            conf_error_add(p, 0, "%s (the default%s; set '%s' in the file)", msg,
                           k->def_from_file ? " comes from the file name" : " is invalid",
                           k->name);
            continue;
        }
        conf_store(val, text, &res);
    }
}

int conf_parse(const char *file_name, const char *text, size_t len, struct conf_values *out,
               struct conf_errors *errs)
{
    struct conf_parser p = { .file = file_name, .out = out, .errs = errs };
    unsigned line = 0;
    size_t pos = 0;

    memset(out, 0, sizeof(*out));
    memset(errs, 0, sizeof(*errs));
    out->file_name = file_name;
    while (pos < len) {
        const char *start = text + pos;
        const char *nl = memchr(start, '\n', len - pos);
        size_t n = nl != NULL ? (size_t)(nl - start) : len - pos;

        conf_parse_line(&p, ++line, start, n);
        pos += n + (nl != NULL ? 1 : 0);
    }
    conf_apply_defaults(&p);
    conf_check_routes(&p);
    conf_check_routes6(&p);
    conf_check_neighs(&p);
    conf_check_wire(&p);
    conf_check_advertise6(&p);
    return errs->count + errs->dropped == 0 ? 0 : WS_ERR_INVAL;
}

