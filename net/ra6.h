/*
 * net/ra6.h: IPv6 router advertisements (RFC 4861 section 6) on each port whose config says
 * advertise6 = yes. Off by default: a host takes the sender of any advertisement it hears as a
 * default router, so an appliance put into a network must not capture its hosts unasked.
 *
 * What: while its link is up, such a port multicasts to all-nodes (ff02::1) from its link-local
 * address, hop limit 255 (6.1.2): this router as the link's default for 1800 s (AdvDefaultLifetime,
 * 3 x MaxRtrAdvInterval, 6.2.1), Cur Hop Limit 64, M and O clear (no DHCPv6), Reachable Time and
 * Retrans Timer 0 (the hosts' own), our MAC (source link-layer address), the port's MTU (config
 * portN.mtu: 6.2.1's default sends none, but a port's MTU may be below its wire's; left out
 * below IPv6's 1280, which hosts must ignore, 6.3.4) and the address6 prefix, on-link and, only
 * when it is a /64 (the length of an Ethernet interface identifier, RFC 4862 5.5.3 d, RFC 2464
 * 4), autonomous: valid 30 days, preferred 7 (AdvValidLifetime, AdvPreferredLifetime).
 *
 * When (6.2.4): the first 1 s after each link-up, once our addresses are past their tentative
 * second (net/dad6); the first MAX_INITIAL_RTR_ADVERTISEMENTS (3) at most
 * MAX_INITIAL_RTR_ADVERT_INTERVAL (16 s) apart; then every MinRtrAdvInterval..MaxRtrAdvInterval
 * (200..600 s), uniformly at random so that routers on one link do not fall into step. A router
 * solicitation (net/local6 reports it: router_solicited) brings the next advertisement forward
 * to a random moment within MAX_RA_DELAY_TIME (0.5 s), but never to less than
 * MIN_DELAY_BETWEEN_RAS (3 s) after the previous one (6.2.6): every solicitation until then is
 * answered by that one multicast (6.2.6 allows unicast answers; one multicast serves them all).
 * Every advertisement, solicited or not, restarts the interval, and none follows another within
 * 3 s.
 *
 * Not done: the final advertisements with lifetime 0 of an interface that stops advertising
 * (6.2.5): a baked config never stops, and a port whose link goes down just falls silent.
 *
 * Core 0 only: advertisements leave through core 0's TX batch and solicitations arrive there (RSS
 * hashes no IPv6, net/nexthop6.h). The message builder and the timing rules below are pure (any
 * core, no state): the unit tests drive them directly.
 */
#ifndef WS_RA6_H
#define WS_RA6_H

#include <stdbool.h>
#include <stdint.h>

struct net_iface6;

/* Per port, written by core 0 only. */
struct ra6_stats {
    uint64_t sent;       /* router advertisements sent */
    uint64_t solicited;  /* of sent, those that answered one or more router solicitations */
    uint64_t alloc_fail; /* no buffer for an advertisement: tried again 1 s later */
};

/* ra6_solicited: a valid router solicitation arrived on port (net_local6_input's
 * router_solicited); now in ns. Core 0. */
void ra6_solicited(unsigned port, uint64_t now);

/* ra6_stats_of: port's counters. ra6_state_name: "off" (advertise6 no, no address6 or no such
 * port), "waiting for link", "initial" (the first three after a link-up) or "periodic". */
const struct ra6_stats *ra6_stats_of(unsigned port);
const char *ra6_state_name(unsigned port);

/* --- the message (pure) ----------------------------------------------------------------------- */

#define RA6_FRAME_MAX_BYTES 118 /* Ethernet, IPv6, the 16-byte message, SLLA, MTU and prefix */

/* ra6_build: the router advertisement of interface ifc, whose link MTU is mtu, as a whole
 * Ethernet frame at out (see above for its fields). Returns its length (78 to 118: no padding
 * needed), or 0 when it does not fit out_bytes or IPv6 is off on ifc or it has no link-local
 * address. Any core. */
uint16_t ra6_build(uint8_t *out, uint16_t out_bytes, const struct net_iface6 *ifc, uint16_t mtu);

/* --- the timing (pure) ------------------------------------------------------------------------ */

/* One advertising port's schedule. rnd arguments: any 64-bit random value (a uniform draw is
 * taken from it by remainder). Times in ns. */
struct ra6_timer {
    uint64_t next_ns;     /* the next advertisement is due then */
    uint64_t last_ns;     /* the last one went out then (when sent_any) */
    bool sent_any;
    bool solicited;       /* a solicitation came since the last one: the next one answers it */
    uint8_t initial_left; /* of the first MAX_INITIAL_RTR_ADVERTISEMENTS, those still to go */
};

/* ra6_timer_start: the port's link came up at now: the first advertisement in 1 s (3 s after
 * the last one, if that is later), the initial ones still to come. */
void ra6_timer_start(struct ra6_timer *t, uint64_t now);

/* ra6_timer_solicit: a solicitation at now: the next advertisement no later than a random
 * moment of the next 0.5 s, nor earlier than 3 s after the last one. */
void ra6_timer_solicit(struct ra6_timer *t, uint64_t now, uint64_t rnd);

/* ra6_timer_sent: an advertisement went out at now: the next one 200..600 s later, at most 16 s
 * while initial ones remain. */
void ra6_timer_sent(struct ra6_timer *t, uint64_t now, uint64_t rnd);

static inline bool ra6_timer_due(const struct ra6_timer *t, uint64_t now)
{
    return now >= t->next_ns;
}

#endif
