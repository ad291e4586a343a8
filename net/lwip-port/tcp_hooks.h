/*
 * net/lwip-port/tcp_hooks.h: the firmware's additions to lwIP's TCP (tcp_hooks.c) and the
 * counters they keep. Sink core only.
 */
#ifndef WS_LWPORT_TCP_HOOKS_H
#define WS_LWPORT_TCP_HOOKS_H

#include <stdint.h>

struct tcp_pcb;

/* TCP counters the hook sees that lwIP's MIB-II counters do not have. */
struct lwport_tcp_stats {
    uint64_t out_of_order;      /* data segments beyond the next expected byte */
    uint64_t dup_acks;          /* duplicate ACKs received (RFC 5681) */
    uint64_t resets_received;   /* segments with RST for a known connection */
    uint64_t half_open_evicted; /* SYN_RCVD connections reset to let a new SYN in (flood) */
    uint64_t persist_stopped;   /* persist timers lwIP left running with nothing to send,
                                 * stopped before they reach its assertion */
    uint64_t burst_acks;        /* delayed ACKs sent at the end of a receive burst */
    uint64_t ooseq_past_window; /* out-of-order segments ending past our window: dropped */
    uint64_t tso_connections;   /* connections whose segments the NIC cuts (lwIP's MSS raised) */
};
extern struct lwport_tcp_stats lwport_tcp_stats;

/* lwport_tcp_persist_fixup: stop persist timers lwIP 2.1.3 left running with nothing to send
 * (tcp_hooks.c says why). Before every run of lwIP's timers. */
void lwport_tcp_persist_fixup(void);

/* lwport_tcp_ack_burst: send now every ACK lwIP left for its delayed-ACK timer (tcp_hooks.c
 * says why). After each burst of received frames has gone through lwIP. */
void lwport_tcp_ack_burst(void);

/* lwport_tcp_cap_window: from now on `pcb` offers at most `bytes` (<= 65535) of receive window
 * (tcp_hooks.c says when that is safe). In the accept callback, before any data. */
void lwport_tcp_cap_window(struct tcp_pcb *pcb, uint32_t bytes);

/* lwport_tcp_close_capped: tcp_close for a connection capped with the same `bytes`. */
int8_t lwport_tcp_close_capped(struct tcp_pcb *pcb, uint32_t bytes);

/*
 * lwport_tcp_offload_segments: let lwIP build segments of up to 16 KiB for `pcb`, which the NIC
 * cuts into segments of the MSS the peer announced (TCP segmentation offload, tcp_hooks.c says
 * how). Only for an IPv4 connection whose application writes nothing but constant memory
 * registered with sink_netif_constant (tcp_write without TCP_WRITE_FLAG_COPY): the NIC reads
 * the data where it lies. Also turns Nagle's algorithm off (its test compares with the MSS).
 * In the accept callback (or once connected); a no-op for IPv6.
 */
void lwport_tcp_offload_segments(struct tcp_pcb *pcb);

/* lwport_tcp_wire_mss: the MSS on the wire of the connection whose segment (TCP header at tcp,
 * network order) lwIP is sending now, if lwIP may have built it larger than that (an offloaded
 * connection); else 0. Once per segment, from the netif's output. */
uint16_t lwport_tcp_wire_mss(const uint8_t *tcp);

#endif
