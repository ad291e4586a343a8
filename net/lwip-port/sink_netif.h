/*
 * net/lwip-port/sink_netif.h: lwIP's network interfaces over the appliance's ports. Receive is
 * zero-copy: a frame handed to the sink core becomes a custom pbuf over the driver's own
 * buffer (its IPv4 header onwards), and when lwIP frees it the buffer goes back to the core
 * that owns it (net/handoff.h). Transmit resolves the next hop with the forwarder's FIB
 * and neighbour table and copies the datagram into a buffer of the sink core's pool, sent on
 * that core's own TX queue of the egress port. Sink core only (after init).
 *
 * Zero copy has a price: what lwIP keeps (out-of-order segments, data an echo client will not
 * take back, reassembly) stays in the receiving core's pool, and a few hostile connections
 * could otherwise hold most of it (16 connections x a 256 KiB window of full frames is about
 * 2,900 buffers of a 4096-buffer pool; of small segments, far more), leaving that core unable
 * to receive anything, forwarded traffic included. So lwIP may hold at most half of any core's
 * pool: a frame beyond that is dropped and counted (rx_hold_limit), and TCP sends it again
 * once lwIP has let go of something.
 */
#ifndef WS_SINK_NETIF_H
#define WS_SINK_NETIF_H

#include <stddef.h>
#include <stdint.h>

#include "drivers/nic/nic.h"
#include "pkb.h"

struct sink_netif_stats {
    uint64_t rx_wrapped;     /* frames given to lwIP (each a custom pbuf over its buffer) */
    uint64_t rx_released;    /* of those, buffers lwIP has let go (rx_wrapped - this: held) */
    uint64_t rx_csum_offloaded; /* of rx_wrapped, TCP/UDP checksum already checked by the NIC */
    uint64_t rx_csum_sw_verified; /* of rx_wrapped, TCP checksum checked here for an aggregate */
    uint64_t rx_held_max;    /* most buffers lwIP held at once (out-of-order, reassembly) */
    uint64_t rx_no_netif;    /* frames from a port without an lwIP interface: dropped */
    uint64_t rx_hold_limit;  /* frames dropped: lwIP held half their core's pool already */
    uint64_t rx_gro_aggregates; /* runs of in-order segments given to lwIP as one (net/gro.h) */
    uint64_t rx_gro_merged;  /* segments that joined the one before them in such a run */
    uint64_t rx_acks_superseded; /* pure ACKs a later one of the same burst and connection
                                  * made redundant: released unseen by lwIP (net/gro.h) */
    uint64_t tx_frames;      /* frames queued on a TX ring: one per datagram lwIP sent, or
                              * the parts of a larger segment (tx_tso_frames, tx_split_frames) */
    uint64_t tx_bytes;       /* their IP bytes (a TSO frame's headers once) */
    uint64_t tx_csum_offloaded; /* of tx_frames, TCP checksum left to the NIC (pseudo-header
                                 * sum primed, PKB_TX_CSUM_TCP4) */
    uint64_t tx_csum_sw;     /* of tx_frames, TCP checksum summed here (a port without it) */
    uint64_t tx_ip_csum_offloaded; /* of tx_frames, IPv4 header checksum left to the NIC
                                    * (PKB_TX_CSUM_IP4: offloaded TCP, not padded) */
    uint64_t tx_by_reference; /* of tx_frames, TCP segments whose data the NIC read from a
                               * constant payload (PKB_TX_EXT), not copied */
    uint64_t tx_tso_frames;  /* of tx_frames, parts of a larger segment the NIC cuts into
                              * segments of the peer's MSS (PKB_TX_TSO;
                              * lwport_tcp_offload_segments) */
    uint64_t tx_split_frames; /* of tx_frames, parts of a larger segment cut here at the peer's
                               * MSS (data not constant, or a port that cannot cut) */
    uint64_t tx_no_route;    /* dropped: no route to the destination */
    uint64_t tx_port_down;   /* dropped: egress link down */
    uint64_t tx_unresolved;  /* dropped: next hop's MAC unknown (an ARP request went out) */
    uint64_t tx_no_buffer;   /* dropped: the sink core's pool was empty */
    uint64_t tx_too_big;     /* dropped: larger than a buffer (lwIP fragments at the MTU) */
};

extern struct sink_netif_stats sink_netif_stats;

/* sink_netif_init: one lwIP netif per port with an address; the sink runs on `core`. Boot
 * core, after lwip_init. Returns how many interfaces were added. */
unsigned sink_netif_init(unsigned core);
/* sink_netif_constant: [p, p + n) never changes while the image runs (a service's constant
 * payload, given to tcp_write without TCP_WRITE_FLAG_COPY): a segment whose data lies there
 * leaves by reference (a second TX descriptor), not copied. At most 4. Boot core, at init. */
void sink_netif_constant(const void *p, size_t n);
/* sink_netif_input: give a handed-off frame to lwIP (consumes b). */
void sink_netif_input(struct pkb *b);
/* sink_netif_input_burst: give a burst of handed-off frames to lwIP, consecutive in-order
 * segments of one connection as one segment (net/gro.h); consumes them all. */
void sink_netif_input_burst(struct pkb *const *b, unsigned n);
/* sink_netif_mtu_lift: the next IPv4 datagram lwIP sends is not fragmented, however long (an
 * offloaded TCP segment: tcp_hooks.c); the netifs' MTU comes back with its output. */
void sink_netif_mtu_lift(void);
/* sink_netif_flush: send what lwIP queued during this pass (one tail write per port). */
void sink_netif_flush(void);

#endif
