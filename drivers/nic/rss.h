/*
 * drivers/nic/rss.h: the Toeplitz hash of Receive-Side Scaling (Microsoft's RSS specification, "RSS
 * Hashing Functions"; the function igb and 82599 compute when MRQC selects RSS). The NIC hashes
 * every packet itself; this software copy predicts which queue (so which core) a flow lands on,
 * and lets tests check a key programmed into RSSRK. Control path only: bitwise, not fast.
 */
#ifndef WS_RSS_H
#define WS_RSS_H

#include <stddef.h>
#include <stdint.h>

#define RSS_KEY_BYTES 40 /* 320-bit secret key: enough for the 36-byte IPv6 + ports input */

/* The key of Microsoft's "Verifying the RSS Hash Calculation" suite (also in the 82599
 * datasheet's RSS verification section). Published, so never use it where flow placement must
 * be unpredictable to senders. */
extern const uint8_t rss_default_key[RSS_KEY_BYTES];

/* rss_toeplitz: hash len input bytes with a key of key_len bytes. Input and key are read as bit
 * strings, most significant bit of byte 0 first; for every set input bit the 32 key bits
 * starting at the same position are XORed into the result. Meaningful for len <= key_len - 4;
 * key bits past key_len are taken as zero. Any context. */
uint32_t rss_toeplitz(const uint8_t *key, size_t key_len, const uint8_t *in, size_t len);

/* rss_hash_ipv4: the "IPv4 only" hash: input = source address, destination address (8 bytes,
 * network byte order on the wire). Addresses are passed in host byte order. */
uint32_t rss_hash_ipv4(const uint8_t key[RSS_KEY_BYTES], uint32_t src, uint32_t dst);

/* rss_hash_ipv4_l4: the "IPv4 with TCP" (or UDP) hash: input = source address, destination
 * address, source port, destination port (12 bytes, network byte order on the wire). Arguments
 * in host byte order. */
uint32_t rss_hash_ipv4_l4(const uint8_t key[RSS_KEY_BYTES], uint32_t src, uint32_t dst,
                          uint16_t sport, uint16_t dport);

#endif
