/*
 * net/local.h: frames addressed to the appliance itself on one interface: ARP (RFC 826) and
 * ICMP echo (RFC 792) answered in place, everything else classified. Valid IPv4 unicast for
 * other hosts is handed back (NET_PASS) for the forwarder; every other frame ends in exactly
 * one counter, so received = answered + learned + passed + dropped (by reason).
 */
#ifndef WS_NET_LOCAL_H
#define WS_NET_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/inet.h" /* struct net_counter_desc */
#include "net/neigh.h"

#define NET_IFACE_MAX_ALSO_OURS 11 /* the other interfaces' addresses (NET_MAX_IFACES - 1) */

/* One interface's own addresses. Read-only after init. */
struct net_iface {
    uint8_t mac[6];
    uint32_t ip;        /* host byte order; 0 = no address (nothing is "ours" at IP level) */
    uint8_t prefix_len; /* our subnet: ip/prefix_len; values above 32 are taken as 32 */
    uint16_t port;      /* port index, for messages and counters */
    bool sink;          /* TCP, UDP and fragments to our address go to the sink (NET_SINK) */
    /* The appliance's addresses on its other interfaces, answered here too at the IP level
     * (echo, the sink), as routers do (the weak host model, RFC 1122 3.3.4.2); ARP answers for
     * ip alone. Empty unless router.answer_any_address is on. */
    uint8_t n_also_ours;
    uint32_t also_ours[NET_IFACE_MAX_ALSO_OURS];
};

/*
 * Drop reasons, one counter each, in the order the checks run. This list is the single source
 * of the struct fields and of the names the console prints (net_drop_counters[]), so the two
 * cannot drift apart. X(field, one-line meaning).
 */
#define NET_DROP_REASONS(X)                                                                    \
    X(frame_exceeds_buffer, "len > buf_bytes: a caller bug, never the wire")                   \
    X(eth_runt, "shorter than the 14-byte Ethernet header")                                    \
    X(eth_dst_not_us, "unicast to another station's MAC")                                      \
    X(eth_dst_multicast, "Ethernet multicast (group address other than broadcast)")            \
    X(eth_src_group, "source MAC is a group address (never valid)")                            \
    X(eth_unsupported_type, "EtherType neither ARP nor IPv4 (IPv6, VLAN tag, 802.3 LLC...)")  \
    X(arp_truncated, "ARP body shorter than 28 bytes")                                         \
    X(arp_malformed, "not Ethernet/IPv4 ARP (htype 1, ptype 0x0800, hlen 6, plen 4)")          \
    X(arp_unsupported_op, "op neither request (1) nor reply (2)")                              \
    X(arp_bad_sender_mac, "sender MAC zero or a group address")                                \
    X(arp_sender_ip_is_ours, "another station claims our IP address")                          \
    X(arp_sender_ip_unusable, "reply/announcement with nothing to learn: 0, off-subnet, bcast") \
    X(arp_not_for_us, "request or reply about another address")                                \
    X(arp_not_writer_core, "reply/announcement on a core without the neighbour table")          \
    X(ip_truncated, "fewer than 20 bytes after the Ethernet header")                           \
    X(ip_bad_version, "IP version is not 4")                                                   \
    X(ip_bad_ihl, "IHL below 5, or header longer than total length")                           \
    X(ip_bad_total_length, "total length beyond the end of the frame")                         \
    X(ip_bad_checksum, "IPv4 header checksum does not verify")                                 \
    X(ip_fragment, "fragment (MF set or offset != 0) with no sink to reassemble it")                          \
    X(ip_src_martian, "source 0/8, 127/8, multicast, 240/4 or our subnet broadcast")           \
    X(ip_src_is_ours, "source is our own address (a loop or a spoof)")                         \
    X(ip_dst_broadcast, "limited broadcast or our subnet's broadcast")                         \
    X(ip_dst_multicast, "IP multicast destination")                                            \
    X(ip_dst_martian, "destination 0/8, 127/8 or 240/4")                                       \
    X(ip_l2_broadcast, "unicast IP destination in an Ethernet broadcast")                      \
    X(ip_proto_unsupported, "to us, but neither ICMP nor (with the sink) TCP or UDP")                          \
    X(icmp_truncated, "ICMP shorter than the 8-byte echo header")                              \
    X(icmp_bad_checksum, "ICMP checksum does not verify")                                      \
    X(icmp_malformed, "echo request with a code other than 0")                                 \
    X(icmp_unsupported_type, "ICMP type other than echo request")                              \
    X(reply_no_room, "the reply would not fit the buffer")

struct net_drop_stats {
#define NET_DROP_FIELD(name, why) uint64_t name;
    NET_DROP_REASONS(NET_DROP_FIELD)
#undef NET_DROP_FIELD
};

/* Per core, per interface: written only by the core that calls net_local_input with it. */
struct net_local_stats {
    uint64_t arp_requests_answered;  /* NET_REPLY */
    uint64_t icmp_echo_answered;     /* NET_REPLY */
    uint64_t arp_replies_learned;    /* NET_CONSUMED: a reply to us, sender learned */
    uint64_t arp_gratuitous_learned; /* NET_CONSUMED: an announcement, sender learned */
    uint64_t ip_passed;              /* NET_PASS */
    uint64_t ip_to_sink;             /* NET_SINK */
    struct net_drop_stats drop;      /* NET_DROP, by reason */
};

extern const struct net_counter_desc net_drop_counters[]; /* offsets in net_drop_stats */
extern const size_t net_drop_counter_count;

enum net_verdict {
    NET_REPLY,    /* frame rewritten in place into the reply; *out_len set; send it on this port */
    NET_CONSUMED, /* handled, nothing to send (e.g. an ARP reply learned) */
    NET_DROP,     /* counted in stats->drop */
    NET_PASS,     /* valid IPv4 unicast for another host: for the forwarder */
    NET_SINK,     /* TCP, UDP or a fragment to our address (ifc->sink set): for lwIP */
};

/*
 * net_local_input: handle one received frame of len bytes (FCS stripped) in a buffer of
 * buf_bytes, arrived on interface ifc. Replies are built in place, padded with zeros to the
 * 60-byte Ethernet minimum, and never exceed buf_bytes; *out_len is written only for NET_REPLY.
 * A frame not answered is left unchanged.
 *
 * neigh: the interface's neighbour table, passed only on its writer core (the one that gets
 * non-IP frames: RX queue 0, i.e. core 0), NULL on every other core. With NULL, ARP requests
 * for us are still answered but nothing is learned, and an ARP reply or announcement that
 * could only teach is dropped as arp_not_writer_core (a misrouted frame, made visible).
 *
 * Context: the core that owns st; runs to completion, no allocation, no locks. IPv4 frames
 * never touch the table.
 */
enum net_verdict net_local_input(const struct net_iface *ifc, struct neigh_table *neigh,
                                 uint8_t *frame, uint16_t len, uint16_t buf_bytes,
                                 uint16_t *out_len, struct net_local_stats *st, uint64_t now_ns);

/* net_local_total: frames accounted for in st (every counter summed): equals the number of
 * net_local_input calls made with it. */
uint64_t net_local_total(const struct net_local_stats *st);

#endif
