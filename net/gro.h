/*
 * net/gro.h: receive offload in software (what the NICs' RSC does in hardware): of the frames a
 * burst hands the sink, consecutive in-order TCP segments of one connection are given to lwIP
 * as one segment, so TCP input, window and ACK work run once per run of segments instead of
 * once per segment. Only the decision lives here (pure, host-tested in tests/unit/test_gro.c);
 * net/lwip-port/sink_netif.c chains the buffers, zero copy.
 *
 * A frame joins the run before it only if nothing lwIP would do differently is lost by it:
 * IPv4 without options or fragmentation, TCP with ACK and at most PSH, payload, a checksum
 * already verified (the caller says by whom); the same addresses, ports, ACK number, window,
 * header length and option bytes as the run's first segment; its sequence number exactly where
 * the previous one ends (no gap, no overlap, no reordering: runs are of adjacent frames only);
 * the same owning core; and the aggregate's IP length within 16 bits. PSH ends a run after the
 * segment that carries it; SYN, FIN, RST, URG, ECE or CWR keep a segment out of every run.
 */
#ifndef WS_NET_GRO_H
#define WS_NET_GRO_H

#include <stdbool.h>
#include <stdint.h>

#include "pkb.h"

/* One parsed segment (offsets into its frame). */
struct gro_seg {
    const uint8_t *ip;   /* the IPv4 header */
    const uint8_t *tcp;  /* the TCP header */
    uint32_t seq;
    uint32_t ack;        /* the ACK number */
    uint16_t ip_len;     /* IPv4 total length */
    uint16_t hdr_bytes;  /* Ethernet + IPv4 + TCP headers: where the payload starts */
    uint16_t payload;    /* TCP payload bytes (> 0 in a data run, 0 in an ACK run) */
    uint8_t flags;       /* TCP flags: ACK, perhaps PSH */
};

/* gro_parse: b as a segment that may join a run; false if it may not (any reason above but
 * the ones that relate it to other frames). Checks every length against the frame. */
bool gro_parse(const struct pkb *b, struct gro_seg *s);

/* gro_run: how many frames from b[0] make one aggregate (1: b[0] goes alone), at most n;
 * segs (room for n) gets each member parsed. verified(b) says whether b's TCP checksum was
 * checked (by the NIC). *ip_len is the aggregate's IPv4 total length (b[0]'s own if it could
 * start a run but has no company; 0 if it could not). */
unsigned gro_run(struct pkb *const *b, unsigned n, bool (*verified)(const struct pkb *),
                 struct gro_seg *segs, uint16_t *ip_len);

/*
 * gro_ack_run: how many frames from b[0] are pure ACKs (no payload, no flag but ACK, IPv4
 * without options, checksum verified) of one connection, adjacent, each acknowledging more
 * than the one before, with the same sequence number and header length (1: b[0] alone, also
 * when it is no pure ACK), at most n; segs (room for n) gets them parsed. Of such a run only the
 * last tells TCP anything the others do not (cumulative ACK, the newest window), so the glue
 * gives lwIP that one and lets the others go: one TCP input and one output per burst of ACKs
 * instead of one per ACK (what FreeBSD's LRO calls ACK compression). A duplicate ACK (fast
 * retransmit counts them), an ACK that acknowledges nothing new (a window update, a keepalive),
 * another connection, data or a control flag ends the run.
 */
unsigned gro_ack_run(struct pkb *const *b, unsigned n, bool (*verified)(const struct pkb *),
                     struct gro_seg *segs);

#endif
