/*
 * net/local6.h: IPv6 frames addressed to the appliance itself on one interface: neighbour
 * discovery (RFC 4861) and ICMPv6 echo (RFC 4443) answered in place, everything else
 * classified. The IPv6 counterpart of net/local.h: valid unicast for other hosts is handed back
 * (NET_PASS) for the forwarder; every other frame ends in exactly one counter, so received =
 * answered + learned + reported + passed + sunk + dropped (by reason).
 *
 * Nothing here touches a neighbour cache or sends on its own: what a solicitation or
 * advertisement teaches, and a router solicitation to be answered (RFC 4861 6.2.6, by net/ra6),
 * is reported in a struct net6_learn, for the caller to act on in core 0.
 */
#ifndef WS_NET_LOCAL6_H
#define WS_NET_LOCAL6_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/local.h" /* enum net_verdict, struct net_counter_desc */

#define NET_IFACE6_MAX_ALSO_OURS 11 /* the other interfaces' addresses (NET_MAX_IFACES - 1) */

/* One interface's own IPv6 addresses. Read-only after init. An address of all zeros (::)
 * never matches anything, so an unset link_local or also_ours entry is harmless. */
struct net_iface6 {
    uint8_t mac[6];
    bool enabled;          /* IPv6 on: off, every frame is the drop ip6_disabled */
    uint8_t link_local[16]; /* fe80::/64, normally inet6_link_local_from_mac(mac) */
    bool has_global;
    uint8_t global[16];     /* valid when has_global */
    uint8_t prefix_len;     /* global's on-link prefix: for the forwarder; not used here */
    uint16_t port;          /* port index, for messages and counters */
    bool sink;              /* TCP and UDP to our unicast addresses go to the sink (NET_SINK) */
    bool advertise;         /* an advertising interface (RFC 4861 6.2.2, config advertise6):
                             * router solicitations are reported; off, they are ra_rs_ignored */
    /* The appliance's global addresses on its other interfaces, answered here for echo as
     * routers do (the weak host model, RFC 1122 3.3.4.2). Neighbour solicitations are answered
     * for link_local and global only: no proxy ND. */
    uint8_t n_also_ours;
    uint8_t also_ours[NET_IFACE6_MAX_ALSO_OURS][16];
};

/*
 * Drop reasons, one counter each, in the order the checks run (the two source checks run on
 * the forwarding path just before NET_PASS, and on frames to us once the message is known:
 * see local6.c). This list is the single source of the struct fields and of the console's
 * names (net_drop6_counters[]). X(field, one-line meaning).
 */
#define NET_DROP6_REASONS(X)                                                                   \
    X(frame_exceeds_buffer, "len > buf_bytes: a caller bug, never the wire")                  \
    X(eth_runt, "shorter than the 14-byte Ethernet header")                                   \
    X(eth_not_ipv6, "EtherType is not 0x86dd: the caller's dispatch is wrong")                \
    X(ip6_disabled, "IPv6 is off on this interface")                                          \
    X(eth_dst_broadcast, "Ethernet broadcast: IPv6 has none (RFC 4291 2.7)")                  \
    X(eth_dst_multicast, "Ethernet group address outside 33:33:xx:xx:xx:xx (RFC 2464 7)")     \
    X(eth_dst_not_us, "unicast to another station's MAC")                                     \
    X(eth_src_group, "source MAC is a group address (never valid)")                           \
    X(ip6_truncated, "fewer than 40 bytes after the Ethernet header")                         \
    X(ip6_bad_version, "IP version is not 6")                                                 \
    X(ip6_bad_payload_length, "payload length beyond the end of the frame")                   \
    X(ip6_src_bad, "source multicast, ::1 or IPv4-mapped (RFC 4291 2.5.3, 2.7; RFC 4038)")    \
    X(ip6_dst_bad, "destination ::, ::1 or IPv4-mapped")                                      \
    X(ip6_l2_mismatch, "33:33 frame whose IPv6 destination is unicast or another group")      \
    X(ip6_group_not_joined, "a multicast group this interface is not in")                     \
    X(ip6_src_unspecified, "source :: other than in a DAD solicitation (RFC 4291 2.5.2)")     \
    X(ip6_src_is_ours, "source is one of our addresses (a loop, a spoof or a duplicate)")     \
    X(ip6_ext_truncated, "to us: an extension header runs past the payload")                  \
    X(ip6_ext_too_long, "to us: more than 8 extension headers")                               \
    X(ip6_ext_bad, "to us: Hop-by-Hop not first, or an option TLV past its header")           \
    X(ip6_fragment, "to us: a fragment (no reassembly)")                                      \
    X(ip6_ext_unprocessable, "to us: Routing header with segments left, discard-if-unknown "  \
                             "option, AH or another header we cannot act on (RFC 8200 4)")    \
    X(ip6_proto_unsupported, "to us, but neither ICMPv6 nor (sink on, unicast) TCP or UDP")   \
    X(icmp6_truncated, "ICMPv6 shorter than its 8-byte header")                               \
    X(icmp6_bad_checksum, "ICMPv6 checksum does not verify (pseudo-header, RFC 8200 8.1)")    \
    X(icmp6_error_received, "an ICMPv6 error message (type < 128) to us")                     \
    X(echo6_bad_code, "echo request with a code other than 0")                                \
    X(echo_multicast, "echo request to a multicast group: not answered")                      \
    X(echo_reply_ignored, "echo reply: we send no echo requests from here")                   \
    X(mld_ignored, "MLD query, report or done (we run no MLD)")                               \
    X(ra_rs_ignored, "router advertisement (a router takes no configuration from another one), "\
                     "or router solicitation on a port that does not advertise (advertise6 no)") \
    X(redirect_ignored, "redirect (a router does not take them, RFC 4861 8.1)")               \
    X(icmp6_unknown_type, "an informational type we do not know")                             \
    X(nd_bad_hop_limit, "RS, NS or NA with hop limit other than 255 (off-link, RFC 4861 6.1.1, "\
                        "7.1)")                                                               \
    X(nd_bad_code, "RS, NS or NA with a code other than 0")                                   \
    X(nd_truncated, "NS or NA shorter than 24 bytes")                                         \
    X(nd_target_multicast, "NS or NA for a multicast target")                                 \
    X(nd_bad_option, "an ND option of length 0 or running past the message")                  \
    X(nd_bad_lladdr, "link-layer address option not 8 bytes, or its MAC zero or a group")     \
    X(rs_unspecified_slla, "RS from :: with a source link-layer address (RFC 4861 6.1.1)")     \
    X(ns_dad_malformed, "NS from :: not to a solicited-node group, or with a source MAC")     \
    X(ns_not_for_us, "NS for a target that is not this interface's")                          \
    X(na_solicited_multicast, "NA to a multicast group with the Solicited flag")              \
    X(dad_conflict, "NA for one of our addresses: another node claims it")                    \
    X(na_target_not_unicast, "NA for ::, ::1 or an IPv4-mapped target: no neighbour has it")  \
    X(na_no_lladdr, "unsolicited NA without a target link-layer address: nothing to learn")   \
    X(reply_no_room, "the neighbour advertisement would not fit the buffer")

struct net_drop6_stats {
#define NET_DROP6_FIELD(name, why) uint64_t name;
    NET_DROP6_REASONS(NET_DROP6_FIELD)
#undef NET_DROP6_FIELD
};

/* Per core, per interface: written only by the core that calls net_local6_input with it. */
struct net_local6_stats {
    /* Frame outcomes: each frame adds one to exactly one of these or of drop. */
    uint64_t ns_answered;    /* NET_REPLY: a neighbour advertisement sent back */
    uint64_t echo6_answered; /* NET_REPLY: an echo reply */
    uint64_t na_learned;     /* NET_CONSUMED: an advertisement reported in *learn */
    uint64_t rs_reported;    /* NET_CONSUMED: a router solicitation reported (router_solicited) */
    uint64_t ip6_passed;     /* NET_PASS */
    uint64_t ip6_to_sink;    /* NET_SINK */
    struct net_drop6_stats drop; /* NET_DROP, by reason */
    /* Not outcomes (not in net_local6_total): of ns_answered and of rs_reported, those whose
     * sender was also reported in *learn. */
    uint64_t ns_learned;
    uint64_t rs_learned;
};

extern const struct net_counter_desc net_drop6_counters[]; /* offsets in net_drop6_stats */
extern const size_t net_drop6_counter_count;

/* What a frame teaches about a neighbour, for the caller's neighbour cache (RFC 4861 7.2.3,
 * 7.2.5). from_na false: a solicitation's sender (create or update as STALE; the flags are
 * false); true: an advertisement's target with its flags, to be applied by 7.2.5's rules (which
 * say to ignore it when there is no entry yet). */
struct net6_learn {
    bool valid;
    uint8_t ip[16];
    uint8_t mac[6];
    bool from_na;
    bool solicited;
    bool override_flag;
    bool router;
    /* A solicited advertisement without a target link-layer option (RFC 4861 4.4 allows it
     * in answer to a unicast solicitation): mac is not set; it only confirms an entry the
     * cache already has (7.2.5: REACHABLE, address unchanged). */
    bool confirm_only;
    /* Not a neighbour to learn (valid stays false): an advertisement for one of our own
     * addresses, another node claiming it (RFC 4862 5.4.4). ip is our address, mac the
     * claimant's (its target link-layer option, else its Ethernet source); for the caller's
     * duplicate address detection. */
    bool claims_ours;
    /* A valid router solicitation on an advertising interface (RFC 4861 6.1.1): the caller's
     * router advertisement sender owes the link a multicast advertisement (6.2.6). valid may be
     * set too: the solicitation's sender, when it gave its link-layer address. */
    bool router_solicited;
};

/*
 * net_local6_input: handle one received IPv6 frame (EtherType 0x86dd, 14-byte header, FCS
 * stripped) of len bytes, in a buffer of buf_bytes, arrived on interface ifc.
 *
 * Neighbour solicitations for this interface's addresses and echo requests to any of our
 * unicast addresses are answered in place: the frame is rewritten into the reply, *out_len is
 * set and NET_REPLY returned (send it on this port). Replies never exceed buf_bytes and need no
 * padding (the shortest, an echo reply, is 62 bytes). *out_len is written only for NET_REPLY,
 * and a frame not answered is left unchanged.
 *
 * learn (never NULL) is cleared on every call, and filled (valid = true) only by a solicitation
 * answered (NET_REPLY) that came from a specified source with a source link-layer address
 * option, by an advertisement about another node (NET_CONSUMED), and by a router solicitation
 * with that option (NET_CONSUMED, which sets router_solicited with or without it); an
 * advertisement for one of our addresses sets claims_ours instead (the drop dad_conflict).
 *
 * Context: the core that owns st; runs to completion, no allocation, no locks, no state.
 */
enum net_verdict net_local6_input(const struct net_iface6 *ifc, uint8_t *frame, uint16_t len,
                                  uint16_t buf_bytes, uint16_t *out_len,
                                  struct net_local6_stats *st, struct net6_learn *learn);

/* net_local6_total: frames accounted for in st (every outcome counter summed, ns_learned and
 * rs_learned not): equals the number of net_local6_input calls made with it. */
uint64_t net_local6_total(const struct net_local6_stats *st);

/* net_nd_dad_solicit: build in out a duplicate address detection probe for our own target
 * (RFC 4862 5.4.2): a neighbour solicitation from :: to target's solicited-node group, with no
 * link-layer address option (RFC 4861 4.3), hop limit 255. Returns its length (78), or 0 when
 * it does not fit, IPv6 is off, or target is multicast or ::. Any core. */
uint16_t net_nd_dad_solicit(uint8_t *out, uint16_t out_bytes, const struct net_iface6 *ifc,
                            const uint8_t target[16]);

/*
 * net_nd_solicit: build in out (out_bytes long) a neighbour solicitation for target (RFC 4861
 * 7.2.2) from our link-local address, with our MAC in a source link-layer address option, hop
 * limit 255. unicast_mac NULL: address resolution, to target's solicited-node group at its
 * 33:33 MAC; otherwise a reachability probe of a known neighbour (7.3.3), to target itself at
 * unicast_mac. Returns the frame's length (86; at least 60), or 0 when it does not fit, IPv6 is
 * off or the interface has no link-local address, or target is multicast or ::. Any core.
 */
uint16_t net_nd_solicit(uint8_t *out, uint16_t out_bytes, const struct net_iface6 *ifc,
                        const uint8_t target[16], const uint8_t *unicast_mac);

#endif
