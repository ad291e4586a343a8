/* net/dad6.c: duplicate address detection for our IPv6 addresses. What and why: dad6.h. */
#include "net/dad6.h"

#include <stdbool.h>

#include "console.h"
#include "drivers/nic/nic.h"
#include "loop.h"
#include "net/iface.h"
#include "net/inet.h"
#include "net/inet6.h"
#include "net/local6.h"
#include "net/nexthop.h"
#include "param.h"
#include "time.h"

#define DAD6_RETRANS_NS 1000000000ULL  /* RetransTimer, RFC 4861 section 10 */
#define DAD6_REPORT_GAP_NS 10000000000ULL /* at most one console line per port per 10 s */

enum dad6_state { DAD6_OFF, DAD6_WAITING_LINK, DAD6_TENTATIVE, DAD6_DONE };

/* One port's detection; core 0 only. */
struct dad6_port {
    uint8_t state;          /* enum dad6_state */
    bool duplicate;         /* a conflict while tentative, since the last probes */
    uint64_t link_changes;  /* the port's count when the last probes went out */
    uint64_t tentative_until;
    uint64_t last_report;   /* ns of the last console line; 0 = none yet */
};

static struct dad6_port dad6_ports[WS_MAX_PORTS];
static struct dad6_stats dad6_stats[WS_MAX_PORTS];

/* dad6_probe: one solicitation from :: for target out of np (core 0's TX batch). */
static void dad6_probe(const struct net_port *np, const uint8_t *target)
{
    struct dad6_stats *st = &dad6_stats[np->ifc.port];
    struct pkb *b = nexthop_frame_alloc(0, &st->alloc_fail);
    if (b == NULL) {
        return;
    }
    uint16_t n = net_nd_dad_solicit(b->data, PKB_DATA_BYTES, &np->ifc6, target);
    if (n == 0) {
        pkb_free(b, 0);
        return;
    }
    b->len = n;
    st->probes_sent++;
    nexthop_send(0, np, b);
}

/* dad6_start: probe both of np's addresses; they are tentative for RetransTimer. */
static void dad6_start(struct dad6_port *d, const struct net_port *np, const struct nic_port *p,
                       uint64_t now)
{
    dad6_probe(np, np->ifc6.link_local);
    dad6_probe(np, np->ifc6.global);
    d->state = DAD6_TENTATIVE;
    d->duplicate = false;
    d->link_changes = p->link_changes;
    d->tentative_until = now + DAD6_RETRANS_NS;
}

static void dad6_port_poll(unsigned i, uint64_t now)
{
    struct dad6_port *d = &dad6_ports[i];
    const struct net_port *np = net_port(i);
    const struct nic_port *p = i < nic_port_count() ? nic_port(i) : NULL;
    if (p == NULL || !np->present || !np->has_address6) {
        d->state = DAD6_OFF;
        return;
    }
    bool link_new = d->state == DAD6_OFF || d->link_changes != p->link_changes;
    if (!p->link_up || !nic_queue_usable(p, 0)) {
        d->state = DAD6_WAITING_LINK;
    } else if (d->state == DAD6_WAITING_LINK || link_new) {
        dad6_start(d, np, p, now); /* a new link may lead to another segment (5.4) */
    } else if (d->state == DAD6_TENTATIVE && now >= d->tentative_until) {
        d->state = DAD6_DONE;
    }
}

static unsigned dad6_poll(unsigned core)
{
    (void)core;
    uint64_t now = time_ns();
    for (unsigned i = 0; i < WS_MAX_PORTS; i++) {
        dad6_port_poll(i, now);
    }
    return 0;
}

WS_POLLER(dad6, .order = POLLER_ORDER_HOUSEKEEPING, .runs_on = poller_on_core0,
          .poll = dad6_poll, .period_us = 100000);

void dad6_claimed(unsigned port, const struct net6_learn *claim, uint64_t now)
{
    if (port >= WS_MAX_PORTS) {
        return;
    }
    struct dad6_port *d = &dad6_ports[port];
    bool tentative = d->state == DAD6_TENTATIVE && now < d->tentative_until;
    dad6_stats[port].conflicts++;
    d->duplicate = d->duplicate || tentative;
    if (d->last_report != 0 && now - d->last_report < DAD6_REPORT_GAP_NS) {
        return;
    }
    d->last_report = now;
    char a[INET6_STR_BYTES];
    const uint8_t *m = claim->mac;
    kprintf("%s: address6 %s is also used by %02x:%02x:%02x:%02x:%02x:%02x (%s); it stays in "
            "use here: change the config or that node\n",
            net_port(port)->name, inet6_str(a, claim->ip), m[0], m[1], m[2], m[3], m[4], m[5],
            tentative ? "duplicate address detection failed, RFC 4862 5.4.5"
                      : "it advertises the address");
}

const struct dad6_stats *dad6_stats_of(unsigned port)
{
    return &dad6_stats[port < WS_MAX_PORTS ? port : 0];
}

const char *dad6_state_name(unsigned port)
{
    static const char *const names[] = { "off", "waiting for link", "tentative", "done" };
    const struct dad6_port *d = &dad6_ports[port < WS_MAX_PORTS ? port : 0];
    if (d->duplicate) {
        return "duplicate";
    }
    return names[d->state];
}
