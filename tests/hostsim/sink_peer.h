/*
 * tests/hostsim/sink_peer.h: a scripted peer of the sink for host harnesses: it builds the
 * frames a client host would send (Ethernet, IPv4, TCP/UDP with correct checksums) straight
 * into a core's packet buffers, hands them to the sink as that core's datapath would
 * (handoff_to_sink), and parses what the sink sends back, checking its checksums. Written apart
 * from net/inet.c and lwIP, so the harnesses do not check the code under test against itself.
 * A client TCP connection (struct sink_tcp) follows RFC 793's sequence space just far enough to
 * script handshakes, in-order data, FIN and RST, and to read the sink's ACKs and windows.
 */
#ifndef WS_SINK_PEER_H
#define WS_SINK_PEER_H

#include <stdbool.h>
#include <stdint.h>

#include "pkb.h"

#define SP_TCP_SYN 0x02
#define SP_TCP_FIN 0x01
#define SP_TCP_RST 0x04
#define SP_TCP_PSH 0x08
#define SP_TCP_ACK 0x10
#define SP_PROTO_ICMP 1
#define SP_PROTO_TCP 6
#define SP_PROTO_UDP 17

/* A host on one of the appliance's links. */
struct sink_peer {
    uint32_t ip;        /* this host, host byte order */
    uint32_t server_ip; /* the appliance's address on that link */
    unsigned port;      /* the port its frames arrive on */
    unsigned core;      /* the core RSS gives them to: its pool, its handoff ring */
    uint16_t ip_id;
};

/* One frame the sink sent, parsed. Pointers point into the frame. */
struct sink_seg {
    uint16_t frame_len;
    uint8_t dst_mac[6], src_mac[6];
    uint16_t ethertype;
    uint32_t src, dst; /* host byte order */
    uint8_t proto, ttl;
    uint16_t ip_len, ip_id, frag; /* frag: flags and offset, as on the wire */
    bool ip_csum_ok;
    bool l4_csum_ok; /* TCP/UDP/ICMP checksum verifies (UDP: or is 0); false for a fragment */
    uint16_t sport, dport;
    uint32_t seq, ack; /* TCP */
    uint8_t flags;
    uint16_t wnd;
    int mss, wscale;    /* TCP options, -1 when absent */
    uint8_t icmp_type, icmp_code;
    const uint8_t *data; /* TCP/UDP payload (ICMP: the message after its 4-byte header) */
    uint16_t len;
};

/* sink_peer_csum: RFC 1071 Internet checksum of buf, continuing from a partial sum. */
uint32_t sink_peer_sum(uint32_t sum, const uint8_t *buf, unsigned len);
uint16_t sink_peer_fold(uint32_t sum);

/* sink_peer_ipv4: a frame from p to its server, carrying l4 (l4_len bytes) as protocol proto;
 * in a fresh buffer of p->core's pool (NULL when that pool is empty). l4 is copied; its
 * checksum is the caller's. */
struct pkb *sink_peer_ipv4(struct sink_peer *p, uint8_t proto, const uint8_t *l4,
                           uint16_t l4_len);
/* sink_peer_raw: a frame around the IPv4 datagram ip (len bytes, taken as it is). */
struct pkb *sink_peer_raw(struct sink_peer *p, const uint8_t *ip, uint16_t len);
/* sink_peer_udp: a UDP datagram to dport with a correct checksum. */
struct pkb *sink_peer_udp(struct sink_peer *p, uint16_t sport, uint16_t dport,
                          const uint8_t *data, uint16_t len);
/* sink_peer_hand: give b to the sink from p's core, as fwd_poll_core does (handoff_to_sink). */
void sink_peer_hand(struct sink_peer *p, struct pkb *b);
/* sink_peer_parse: parse an Ethernet/IPv4 frame the sink sent; false if it is not one. */
bool sink_peer_parse(const uint8_t *f, uint16_t len, struct sink_seg *s);

/* A client TCP connection. */
struct sink_tcp {
    struct sink_peer *peer;
    uint16_t sport, dport;
    uint32_t iss, snd_nxt, snd_una;
    uint32_t irs, rcv_nxt;
    uint32_t snd_wnd;    /* the sink's window, in bytes (scaled once both sides agreed) */
    uint8_t rcv_wscale;  /* the shift we announce in the SYN */
    int snd_wscale;      /* the sink's shift from its SYN-ACK, -1: none (no scaling) */
    uint16_t mss;        /* the sink's MSS option */
    uint16_t wnd;        /* the window field we send (sink_tcp_init: 0xffff) */
    bool established, fin_received, rst_received;
    uint64_t data_received; /* payload bytes taken in order */
    uint64_t segs_received;
    uint64_t acks_received;
};

/* sink_tcp_init: a connection from p's sport to dport, initial sequence number iss. */
void sink_tcp_init(struct sink_tcp *c, struct sink_peer *p, uint16_t sport, uint16_t dport,
                   uint32_t iss);
/* sink_tcp_segment: a segment of c with the given flags and sequence numbers, the options
 * opts (optlen a multiple of 4), and len payload bytes from data (NULL: a byte pattern). Does
 * not change c. */
struct pkb *sink_tcp_segment(const struct sink_tcp *c, uint8_t flags, uint32_t seq, uint32_t ack,
                             const uint8_t *opts, unsigned optlen, const uint8_t *data,
                             uint16_t len);
/* The next segment of the script; each advances snd_nxt as TCP would. */
struct pkb *sink_tcp_syn(struct sink_tcp *c); /* MSS 1460, window scale rcv_wscale */
struct pkb *sink_tcp_ack(struct sink_tcp *c);
struct pkb *sink_tcp_data(struct sink_tcp *c, const uint8_t *data, uint16_t len);
struct pkb *sink_tcp_fin(struct sink_tcp *c);
struct pkb *sink_tcp_rst(struct sink_tcp *c);
/* sink_tcp_input: take a segment the sink sent; false if it is not for c. Learns the SYN-ACK,
 * takes in-order data and FIN, the ACK and the window. */
bool sink_tcp_input(struct sink_tcp *c, const struct sink_seg *s);

#endif
