#!/usr/bin/env python3
"""tests/tools/vlanframes.py: 802.1Q-tagged test frames on a raw socket, for checking that tags
cross the appliance untouched. Runs inside a host namespace; needs no VLAN support in the host
kernel (the kernel takes a received tag off the frame and reports it beside it, PACKET_AUXDATA;
the receiver reads it from there).

  vlanframes.py send IFACE VID[,VID...] COUNT   COUNT frames per VID, broadcast, EtherType
                                                 0x88B5 (local experimental) inside the tag
  vlanframes.py recv IFACE SECONDS              print one JSON line: {vid: frames} of ours

Each frame's payload starts with MAGIC, the VID it was sent with and a sequence number, so
the receiver can tell a retagged frame (payload VID != tag) from a passed one.
"""
import json
import socket
import struct
import sys
import time

MAGIC = b"wsvlan01"
ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_VLAN_VALID = 1 << 4
AUXDATA = struct.Struct("=IIIHHHH")  # struct tpacket_auxdata (linux/if_packet.h)


def frame_tag(data, anc):
    """(VID or None, the frame without its tag) of a frame recvmsg'd with PACKET_AUXDATA on:
    the kernel reports a tag it took off in the auxdata; one it left in place is read and
    removed here."""
    tag = None
    for level, kind, value in anc:
        if level == SOL_PACKET and kind == PACKET_AUXDATA:
            status, _, _, _, _, tci, _ = AUXDATA.unpack(value[:AUXDATA.size])
            if status & TP_STATUS_VLAN_VALID:
                tag = tci & 0x0FFF
    if tag is None and data[12:14] == b"\x81\x00":
        tag = struct.unpack(">H", data[14:16])[0] & 0x0FFF
        data = data[:12] + data[16:]
    return tag, data


def send(iface, vids, count):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    src = bytes.fromhex(open(f"/sys/class/net/{iface}/address").read().strip().replace(":", ""))
    for seq in range(count):
        for vid in vids:
            payload = MAGIC + struct.pack(">HI", vid, seq)
            frame = (b"\xff" * 6 + src + struct.pack(">HHH", 0x8100, vid, 0x88B5) + payload)
            s.send(frame.ljust(64, b"\0"))
        time.sleep(0.01)


def recv(iface, seconds):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    s.settimeout(0.2)
    got, bad = {}, 0
    print(json.dumps({"ready": True}), flush=True)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            data, anc, _, _ = s.recvmsg(2048, socket.CMSG_SPACE(AUXDATA.size))
        except socket.timeout:
            continue
        i = data.find(MAGIC)
        if i < 0:
            continue
        sent_vid = struct.unpack(">H", data[i + len(MAGIC):i + len(MAGIC) + 2])[0]
        tag, _ = frame_tag(data, anc)
        if tag != sent_vid:
            bad += 1
            continue
        got[tag] = got.get(tag, 0) + 1
    print(json.dumps({"frames": {str(k): v for k, v in got.items()}, "mistagged": bad}),
          flush=True)


def main():
    if sys.argv[1] == "send":
        send(sys.argv[2], [int(v) for v in sys.argv[3].split(",")], int(sys.argv[4]))
    else:
        recv(sys.argv[2], float(sys.argv[3]))


if __name__ == "__main__":
    main()
