/*
 * net/dad6.h: duplicate address detection for the appliance's own IPv6 addresses (RFC 4862
 * 5.4): each time a port with an address6 comes up (first link-up and every one after a link
 * change) its link-local and global addresses are probed once (DupAddrDetectTransmits 1) with
 * a solicitation from ::, and for RetransTimer (1 s, RFC 4861 10) they are tentative. Another
 * node's advertisement for one of them is a duplicate: reported on the console with that node's
 * MAC, and counted. Outside the tentative second, such an advertisement is still reported (a
 * node that came later, or a misconfigured one) and counted.
 *
 * A duplicate address is reported, not withdrawn: RFC 4862 5.4.5 says a node must stop using
 * it, but this is a router whose addresses are the next hops of every host behind it, and
 * giving one up would black-hole those hosts without a word; the console line tells the
 * operator which node to fix. Nor do we stay silent for the tentative second (5.4.3 allows no
 * answers for a tentative address): the solicitations we answer then defend the address.
 *
 * Core 0 only: the probes go out through core 0's TX batch, and the advertisements that claim
 * our addresses reach it from whichever core received them (net/nd_relay.h).
 */
#ifndef WS_DAD6_H
#define WS_DAD6_H

#include <stdint.h>

struct net6_learn;

/* Per port, written by core 0 only. */
struct dad6_stats {
    uint64_t probes_sent; /* duplicate address detection solicitations sent */
    uint64_t conflicts;   /* advertisements by another node for one of our addresses */
    uint64_t alloc_fail;  /* no buffer for a probe: that probe is not sent */
};

/* dad6_claimed: another node advertised one of our addresses (net_local6_input's
 * claims_ours), received on port; now in ns. Core 0. */
void dad6_claimed(unsigned port, const struct net6_learn *claim, uint64_t now);

/* dad6_stats_of: port's counters. dad6_state_name: "off" (no address6), "waiting for link",
 * "tentative", "duplicate" (a conflict while tentative, until the next link-up) or "done". */
const struct dad6_stats *dad6_stats_of(unsigned port);
const char *dad6_state_name(unsigned port);

#endif
