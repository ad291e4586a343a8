/*
 * tests/fakes/fake_tso.h: what a NIC does with a TSO frame (82576 §7.2.4, 82599 §7.2.4), for
 * the fakes that stand in for the TX queue (fake_intel_nic, fake_sink_platform). The QEMU
 * 82599 has its own, the datasheet model's (tests/model/ixgbe_model_tx.c).
 */
#ifndef WS_FAKE_TSO_H
#define WS_FAKE_TSO_H

#include <stdint.h>

/* Called with each segment's bytes (valid during the call only). */
typedef void (*fake_tso_emit)(void *ctx, const uint8_t *seg, uint32_t len);

/*
 * fake_tso_cut: frame (len bytes) is an untagged Ethernet frame with a 20-byte IPv4 header and
 * TCP, hdr the bytes of those three headers, the payload after them. Emit its segments of at
 * most mss payload bytes: the headers copied, the IPv4 total length and ID (+1 per segment) and
 * header checksum (its field must be 0), the sequence number advanced, FIN and PSH on the last
 * segment only, and the TCP checksum completed from the field, which must hold the
 * pseudo-header sum without the length (folded, not inverted). Returns the segments emitted,
 * 0 (none emitted) for a frame that breaks those rules.
 */
unsigned fake_tso_cut(const uint8_t *frame, uint32_t len, uint32_t hdr, uint32_t mss,
                      fake_tso_emit emit, void *ctx);

#endif
