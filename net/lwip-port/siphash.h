/*
 * net/lwip-port/siphash.h: SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input
 * PRF", 2012) over whole 64-bit words, the keyed hash behind the TCP initial sequence numbers
 * (isn.c). Pure: no state, no platform, so the host tests check it against the reference
 * vectors.
 */
#ifndef WS_SIPHASH_H
#define WS_SIPHASH_H

#include <stdint.h>

/* siphash24: SipHash-2-4 under the 128-bit key (key[0] = k0, key[1] = k1) of the 8n-byte
 * message whose little-endian words are m[0..n). Equal to the reference algorithm on those
 * 8n bytes: the length byte of its final block is folded into the last word. Any core. */
uint64_t siphash24(const uint64_t key[2], const uint64_t *m, unsigned n);

#endif
