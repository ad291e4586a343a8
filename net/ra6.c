/* net/ra6.c: IPv6 router advertisements on the advertising ports. What and why: ra6.h. */
#include "net/ra6.h"

#include <string.h>

#include "console.h"
#include "drivers/nic/nic.h"
#include "init.h"
#include "loop.h"
#include "net/iface.h"
#include "net/inet.h"
#include "net/inet6.h"
#include "net/local6.h"
#include "net/nexthop.h"
#include "param.h"
#include "time.h"

#define RA6_MS 1000000ULL /* ns */

/* RFC 4861 6.2.1: the router's configuration variables, at their defaults. */
#define RA6_MAX_INTERVAL_NS (600000 * RA6_MS)  /* MaxRtrAdvInterval */
#define RA6_MIN_INTERVAL_NS (200000 * RA6_MS)  /* MinRtrAdvInterval: 0.33 x Max */
#define RA6_ROUTER_LIFETIME_S 1800             /* AdvDefaultLifetime: 3 x MaxRtrAdvInterval */
#define RA6_VALID_LIFETIME_S 2592000           /* AdvValidLifetime: 30 days */
#define RA6_PREFERRED_LIFETIME_S 604800        /* AdvPreferredLifetime: 7 days */
#define RA6_CUR_HOP_LIMIT INET_IPV6_DEFAULT_HOP_LIMIT /* AdvCurHopLimit */
/* RFC 4861 section 10: the router constants. */
#define RA6_MAX_INITIAL_ADVERTS 3                    /* MAX_INITIAL_RTR_ADVERTISEMENTS */
#define RA6_MAX_INITIAL_INTERVAL_NS (16000 * RA6_MS) /* MAX_INITIAL_RTR_ADVERT_INTERVAL */
#define RA6_MIN_DELAY_BETWEEN_NS (3000 * RA6_MS)     /* MIN_DELAY_BETWEEN_RAS */
#define RA6_MAX_DELAY_NS (500 * RA6_MS)              /* MAX_RA_DELAY_TIME */
/* Ours: the first one waits out the tentative second of duplicate address detection (net/dad6,
 * RetransTimer), and one that found no buffer is tried again a second later. */
#define RA6_FIRST_DELAY_NS (1000 * RA6_MS)
#define RA6_RETRY_NS (1000 * RA6_MS)

#define RA6_PREFIX_LEN_SLAAC 64 /* RFC 4862 5.5.3 d with RFC 2464 4's 64-bit identifiers */

_Static_assert(INET_ETH_HDR_BYTES + INET_IPV6_HDR_BYTES + INET6_ND_RA_BYTES +
                       INET6_ND_OPT_LLADDR_BYTES + INET6_ND_OPT_MTU_BYTES +
                       INET6_ND_OPT_PREFIX_INFO_BYTES ==
                   RA6_FRAME_MAX_BYTES,
               "RA6_FRAME_MAX_BYTES is the advertisement with every option");
_Static_assert(INET_ETH_HDR_BYTES + INET_IPV6_HDR_BYTES + INET6_ND_RA_BYTES +
                       INET6_ND_OPT_LLADDR_BYTES >=
                   INET_ETH_MIN_FRAME_BYTES,
               "an advertisement needs no padding");

/* --- the message (RFC 4861 4.2, 4.6) ---------------------------------------------------------- */

static const uint8_t ra6_all_nodes[INET6_ADDR_BYTES] = { 0xff, 0x02, [15] = 0x01 };

/* 4.6.1: our MAC, so hosts need not solicit it before their first datagram to us. */
static uint8_t *ra6_put_slla(uint8_t *opt, const uint8_t *mac)
{
    opt[0] = INET6_ND_OPT_SOURCE_LLADDR;
    opt[1] = INET6_ND_OPT_LLADDR_BYTES / 8;
    memcpy(opt + 2, mac, INET_ETH_ADDR_BYTES);
    return opt + INET6_ND_OPT_LLADDR_BYTES;
}

/* 4.6.4: bytes 2..3 are reserved (zeroed by the caller). */
static uint8_t *ra6_put_mtu(uint8_t *opt, uint16_t mtu)
{
    opt[0] = INET6_ND_OPT_MTU;
    opt[1] = INET6_ND_OPT_MTU_BYTES / 8;
    inet_store_be32(opt + 4, mtu);
    return opt + INET6_ND_OPT_MTU_BYTES;
}

/* ra6_prefix_of: addr with the bits past len cleared (4.6.2: they are reserved, sent as 0). */
static void ra6_prefix_of(uint8_t out[INET6_ADDR_BYTES], const uint8_t *addr, unsigned len)
{
    for (unsigned i = 0; i < INET6_ADDR_BYTES; i++) {
        unsigned bits = len >= 8 * (i + 1) ? 8 : len > 8 * i ? len - 8 * i : 0;
        out[i] = addr[i] & (uint8_t)(0xff00u >> bits);
    }
}

/* 4.6.2: on-link; autonomous only at /64, where a host's 64-bit interface identifier completes
 * an address (RFC 4862 5.5.3 d). Reserved2 is zeroed by the caller. */
static uint8_t *ra6_put_prefix(uint8_t *opt, const uint8_t *addr, uint8_t len)
{
    opt[0] = INET6_ND_OPT_PREFIX_INFO;
    opt[1] = INET6_ND_OPT_PREFIX_INFO_BYTES / 8;
    opt[2] = len;
    opt[3] = INET6_PI_FLAG_ON_LINK | (len == RA6_PREFIX_LEN_SLAAC ? INET6_PI_FLAG_AUTONOMOUS : 0);
    inet_store_be32(opt + 4, RA6_VALID_LIFETIME_S);
    inet_store_be32(opt + 8, RA6_PREFERRED_LIFETIME_S);
    ra6_prefix_of(opt + 16, addr, len);
    return opt + INET6_ND_OPT_PREFIX_INFO_BYTES;
}

uint16_t ra6_build(uint8_t *out, uint16_t out_bytes, const struct net_iface6 *ifc, uint16_t mtu)
{
    bool with_mtu = mtu >= INET_IPV6_MIN_MTU;
    uint16_t msg_bytes = INET6_ND_RA_BYTES + INET6_ND_OPT_LLADDR_BYTES +
                         (with_mtu ? INET6_ND_OPT_MTU_BYTES : 0) +
                         (ifc->has_global ? INET6_ND_OPT_PREFIX_INFO_BYTES : 0);
    uint16_t frame_bytes = INET_ETH_HDR_BYTES + INET_IPV6_HDR_BYTES + msg_bytes;
    if (!ifc->enabled || inet6_is_unspecified(ifc->link_local) || out_bytes < frame_bytes) {
        return 0;
    }
    uint8_t *ip6 = out + INET_ETH_HDR_BYTES;
    uint8_t *msg = ip6 + INET_IPV6_HDR_BYTES;
    memset(msg, 0, msg_bytes); /* M, O, Reachable Time, Retrans Timer, reserved fields: 0 */
    msg[0] = INET6_ICMP_ROUTER_ADVERT;
    msg[4] = RA6_CUR_HOP_LIMIT;
    inet_store_be16(msg + 6, RA6_ROUTER_LIFETIME_S);
    uint8_t *opt = ra6_put_slla(msg + INET6_ND_RA_BYTES, ifc->mac);
    if (with_mtu) {
        opt = ra6_put_mtu(opt, mtu);
    }
    if (ifc->has_global) {
        ra6_put_prefix(opt, ifc->global, ifc->prefix_len);
    }
    /* 6.1.2: hosts take only hop limit 255 (no router forwarded it) from a link-local source. */
    inet_ipv6_header(ip6, msg_bytes, INET6_NH_ICMPV6, INET_IPV6_ND_HOP_LIMIT, ifc->link_local,
                     ra6_all_nodes);
    inet_store_be16(msg + 2, inet6_upper_csum(ip6, msg, msg_bytes, INET6_NH_ICMPV6));
    inet6_multicast_mac(out, ra6_all_nodes);
    memcpy(out + INET_ETH_ADDR_BYTES, ifc->mac, INET_ETH_ADDR_BYTES);
    inet_store_be16(out + 2 * INET_ETH_ADDR_BYTES, INET_ETHERTYPE_IPV6);
    return frame_bytes;
}

/* --- the timing (RFC 4861 6.2.4, 6.2.6) ------------------------------------------------------- */

/* ra6_not_before: at, or 3 s after the last advertisement if that is later (6.2.6). */
static uint64_t ra6_not_before(const struct ra6_timer *t, uint64_t at)
{
    uint64_t earliest = t->last_ns + RA6_MIN_DELAY_BETWEEN_NS;
    return t->sent_any && at < earliest ? earliest : at;
}

void ra6_timer_start(struct ra6_timer *t, uint64_t now)
{
    t->initial_left = RA6_MAX_INITIAL_ADVERTS;
    t->next_ns = ra6_not_before(t, now + RA6_FIRST_DELAY_NS);
}

void ra6_timer_solicit(struct ra6_timer *t, uint64_t now, uint64_t rnd)
{
    uint64_t at = ra6_not_before(t, now + rnd % (RA6_MAX_DELAY_NS + 1));
    if (at < t->next_ns) {
        t->next_ns = at;
    }
    t->solicited = true;
}

void ra6_timer_sent(struct ra6_timer *t, uint64_t now, uint64_t rnd)
{
    uint64_t interval =
        RA6_MIN_INTERVAL_NS + rnd % (RA6_MAX_INTERVAL_NS - RA6_MIN_INTERVAL_NS + 1);
    if (t->initial_left > 0) {
        t->initial_left--;
    }
    if (t->initial_left > 0 && interval > RA6_MAX_INITIAL_INTERVAL_NS) {
        interval = RA6_MAX_INITIAL_INTERVAL_NS;
    }
    t->last_ns = now;
    t->sent_any = true;
    t->solicited = false;
    t->next_ns = now + interval;
}

/* --- the sender (core 0) ---------------------------------------------------------------------- */

enum ra6_state { RA6_OFF, RA6_WAITING_LINK, RA6_ADVERTISING };

/* One port's advertising; core 0 only. */
struct ra6_port {
    uint8_t state;         /* enum ra6_state */
    uint64_t link_changes; /* the port's count when its link was last seen coming up */
    struct ra6_timer timer;
};

static struct ra6_port ra6_ports[WS_MAX_PORTS];
static struct ra6_stats ra6_stats[WS_MAX_PORTS];
static uint64_t ra6_rand_state = 1; /* seeded at init; core 0 only */

/* ra6_random: xorshift64* (Vigna): cheap and spread enough to pick an interval. Core 0. */
static uint64_t ra6_random(void)
{
    ra6_rand_state ^= ra6_rand_state >> 12;
    ra6_rand_state ^= ra6_rand_state << 25;
    ra6_rand_state ^= ra6_rand_state >> 27;
    return ra6_rand_state * 0x2545f4914f6cdd1dULL;
}

/* ra6_send: np's advertisement through core 0's TX batch, and the next one scheduled. */
static void ra6_send(const struct net_port *np, struct ra6_port *r, uint64_t now)
{
    struct ra6_stats *st = &ra6_stats[np->ifc.port];
    struct pkb *b = nexthop_frame_alloc(0, &st->alloc_fail);
    if (b == NULL) {
        r->timer.next_ns = now + RA6_RETRY_NS;
        return;
    }
    uint16_t n = ra6_build(b->data, PKB_DATA_BYTES, &np->ifc6, np->mtu);
    if (n == 0) { /* an advertising port always has IPv6 and a link-local address */
        pkb_free(b, 0);
        r->timer.next_ns = now + RA6_RETRY_NS;
        return;
    }
    b->len = n;
    st->sent++;
    st->solicited += r->timer.solicited;
    ra6_timer_sent(&r->timer, now, ra6_random());
    nexthop_send(0, np, b);
}

/* ra6_port_poll: port i's state from its link; a new link (the first, or one after a change)
 * may lead to another segment, so the initial advertisements start again (6.2.4). */
static void ra6_port_poll(unsigned i, uint64_t now)
{
    struct ra6_port *r = &ra6_ports[i];
    const struct net_port *np = net_port(i);
    const struct nic_port *p = i < nic_port_count() ? nic_port(i) : NULL;
    if (p == NULL || !np->present || !np->has_address6 || !np->ifc6.advertise) {
        r->state = RA6_OFF;
        return;
    }
    if (!p->link_up || !nic_queue_usable(p, 0)) {
        r->state = RA6_WAITING_LINK;
        return;
    }
    if (r->state != RA6_ADVERTISING || r->link_changes != p->link_changes) {
        r->state = RA6_ADVERTISING;
        r->link_changes = p->link_changes;
        ra6_timer_start(&r->timer, now);
    }
    if (ra6_timer_due(&r->timer, now)) {
        ra6_send(np, r, now);
    }
}

static unsigned ra6_poll(unsigned core)
{
    (void)core;
    uint64_t now = time_ns();
    for (unsigned i = 0; i < WS_MAX_PORTS; i++) {
        ra6_port_poll(i, now);
    }
    return 0;
}

WS_POLLER(ra6, .order = POLLER_ORDER_HOUSEKEEPING, .runs_on = poller_on_core0,
          .poll = ra6_poll, .period_us = 100000);

void ra6_solicited(unsigned port, uint64_t now)
{
    if (port < WS_MAX_PORTS && ra6_ports[port].state == RA6_ADVERTISING) {
        ra6_timer_solicit(&ra6_ports[port].timer, now, ra6_random());
    }
}

const struct ra6_stats *ra6_stats_of(unsigned port)
{
    return &ra6_stats[port < WS_MAX_PORTS ? port : 0];
}

const char *ra6_state_name(unsigned port)
{
    const struct ra6_port *r = &ra6_ports[port < WS_MAX_PORTS ? port : 0];
    if (r->state == RA6_OFF) {
        return "off";
    }
    if (r->state == RA6_WAITING_LINK) {
        return "waiting for link";
    }
    return r->timer.initial_left > 0 ? "initial" : "periodic";
}

/* --- boot (boot core, before the loops touch a port) ------------------------------------------ */

/* ra6_say: "port0: router advertisements: prefix 2001:db8:18::/64 (on-link, autonomous), mtu
 * 1400, router lifetime 1800 s, every 200..600 s". */
static void ra6_say(const struct net_port *np)
{
    uint8_t prefix[INET6_ADDR_BYTES];
    char pfx[INET6_STR_BYTES];
    const struct net_iface6 *ifc6 = &np->ifc6;
    ra6_prefix_of(prefix, ifc6->global, ifc6->prefix_len);
    kprintf("%s: router advertisements: prefix %s/%u (on-link%s), %s %u, router lifetime %u s, "
            "every %u..%u s\n",
            np->name, inet6_str(pfx, prefix), ifc6->prefix_len,
            ifc6->prefix_len == RA6_PREFIX_LEN_SLAAC ? ", autonomous" : "; not /64: no autoconf",
            np->mtu >= INET_IPV6_MIN_MTU ? "mtu" : "no mtu option: below 1280 is", np->mtu,
            RA6_ROUTER_LIFETIME_S, (unsigned)(RA6_MIN_INTERVAL_NS / 1000 / RA6_MS),
            (unsigned)(RA6_MAX_INTERVAL_NS / 1000 / RA6_MS));
}

/* ra6_init_step: say what each advertising port will advertise, and seed the intervals' draws
 * from the clock and the MACs (two routers booted together on one link still differ). */
static int ra6_init_step(struct init_ctx *ctx)
{
    (void)ctx;
    uint64_t seed = time_ns() ^ 0x9e3779b97f4a7c15ULL;
    for (unsigned i = 0; i < WS_MAX_PORTS; i++) {
        const struct net_port *np = net_port(i);
        if (!np->present || !np->has_address6) {
            continue;
        }
        uint64_t mac = 0;
        memcpy(&mac, np->ifc6.mac, INET_ETH_ADDR_BYTES);
        seed = (seed ^ mac) * 0x100000001b3ULL;
        if (np->ifc6.advertise) {
            ra6_say(np);
        }
    }
    ra6_rand_state = seed != 0 ? seed : 1;
    return 0;
}
WS_INIT(ra6, INIT_NET + 12, false, ra6_init_step); /* after the interfaces (INIT_NET) */
