/*
 * net/vlan.h: IEEE 802.1Q tags in software: recognising a tagged frame, taking its tag off on
 * the way in and putting one on on the way out. The tag sits between the source MAC and the
 * EtherType: TPID 0x8100, then the TCI (3 bits priority, 1 bit DEI, 12 bits VLAN ID; 802.1Q
 * section 9.6). Both moves shift the frame behind the MAC addresses by the tag's 4 bytes, in
 * place, so a buffer never changes where its data starts (the RX ring posts that address).
 * Only frames to or from a VLAN sub-interface pay for it; wire mode never touches a tag.
 */
#ifndef WS_NET_VLAN_H
#define WS_NET_VLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "net/inet.h"

#define NET_VLAN_TPID 0x8100
#define NET_VLAN_TAG_BYTES 4
#define NET_VLAN_TAG_OFF 12  /* the TPID replaces the EtherType: after both MACs */
#define NET_VLAN_VID_MASK 0x0fffu
#define NET_VLAN_TAGGED_HDR_BYTES (INET_ETH_HDR_BYTES + NET_VLAN_TAG_BYTES)

/* net_vlan_is_tagged: the frame's EtherType field holds the 802.1Q TPID (it may still be too
 * short to carry the whole tag: check len >= NET_VLAN_TAGGED_HDR_BYTES before reading it). */
static inline bool net_vlan_is_tagged(const uint8_t *frame, uint16_t len)
{
    return len >= INET_ETH_HDR_BYTES &&
           inet_load_be16(frame + NET_VLAN_TAG_OFF) == NET_VLAN_TPID;
}

/* net_vlan_vid: the VLAN ID of a tagged frame of at least NET_VLAN_TAGGED_HDR_BYTES. 0 means
 * a priority tag only: the frame belongs to the untagged interface (802.1Q 9.6). */
static inline uint16_t net_vlan_vid(const uint8_t *frame)
{
    return inet_load_be16(frame + NET_VLAN_TAG_OFF + 2) & NET_VLAN_VID_MASK;
}

/* net_vlan_pop: take the tag off a tagged frame of *len >= NET_VLAN_TAGGED_HDR_BYTES bytes:
 * the inner EtherType and payload move up over it. */
static inline void net_vlan_pop(uint8_t *frame, uint16_t *len)
{
    memmove(frame + NET_VLAN_TAG_OFF, frame + NET_VLAN_TAG_OFF + NET_VLAN_TAG_BYTES,
            (size_t)*len - NET_VLAN_TAG_OFF - NET_VLAN_TAG_BYTES);
    *len = (uint16_t)(*len - NET_VLAN_TAG_BYTES);
}

/* net_vlan_push: tag a frame of *len bytes (a whole Ethernet header at least) with vid,
 * priority 0, in a buffer of room bytes. False, the frame unchanged, when it would not fit. */
static inline bool net_vlan_push(uint8_t *frame, uint16_t *len, uint16_t room, uint16_t vid)
{
    if (*len < INET_ETH_HDR_BYTES || (unsigned)*len + NET_VLAN_TAG_BYTES > room) {
        return false;
    }
    memmove(frame + NET_VLAN_TAG_OFF + NET_VLAN_TAG_BYTES, frame + NET_VLAN_TAG_OFF,
            (size_t)*len - NET_VLAN_TAG_OFF);
    inet_store_be16(frame + NET_VLAN_TAG_OFF, NET_VLAN_TPID);
    inet_store_be16(frame + NET_VLAN_TAG_OFF + 2, vid & NET_VLAN_VID_MASK);
    *len = (uint16_t)(*len + NET_VLAN_TAG_BYTES);
    return true;
}

#endif
