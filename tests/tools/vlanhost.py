#!/usr/bin/env python3
"""tests/tools/vlanhost.py: one IPv4 host on an 802.1Q VLAN, on a raw socket, for testing the
appliance's VLAN sub-interfaces from a namespace whose kernel has no VLAN support (no 8021q
module: the kernel takes a received tag off the frame and reports it beside it, PACKET_AUXDATA;
frames are sent with the tag written into them).

  vlanhost.py IFACE VID ADDR GATEWAY SECONDS [--ping DST COUNT]

For SECONDS it answers ARP requests for ADDR and ICMP echo requests to ADDR that arrive tagged
VID, with frames tagged VID. With --ping it first resolves GATEWAY by a tagged ARP request,
then sends COUNT echo requests to DST through it, one every 0.1 s. It ends with one JSON line:
counts of what it answered and received, each reply's TTL, and frames that came with the
wrong tag or none (a frame for ADDR's MAC on another VLAN, or untagged). Prints {"ready": true}
once its socket is open.
"""
import json
import os
import select
import socket
import struct
import sys
import time

from vlanframes import AUXDATA, ETH_P_ALL, PACKET_AUXDATA, SOL_PACKET, frame_tag  # beside it
BCAST = b"\xff" * 6


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f">{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ipv4(src, dst, proto, payload, ttl=64):
    hdr = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), os.getpid() & 0xFFFF, 0,
                      ttl, proto, 0, src, dst)
    return hdr[:10] + struct.pack(">H", csum(hdr)) + hdr[12:] + payload


def icmp(kind, ident, seq, data):
    body = struct.pack(">BBHHH", kind, 0, 0, ident, seq) + data
    return body[:2] + struct.pack(">H", csum(body)) + body[4:]


def arp(op, sha, spa, tha, tpa):
    return struct.pack(">HHBBH6s4s6s4s", 1, 0x0800, 6, 4, op, sha, spa, tha, tpa)


class Host:
    def __init__(self, iface, vid, addr):
        self.vid = vid
        self.addr = socket.inet_aton(addr)
        self.mac = bytes.fromhex(open(f"/sys/class/net/{iface}/address").read().strip()
                                 .replace(":", ""))
        self.s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        self.s.bind((iface, 0))
        self.s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
        self.r = {"arp_answered": 0, "echo_answered": 0, "ping_sent": 0, "ping_replies": 0,
                  "reply_ttls": [], "wrong_tag": 0, "gateway_mac": None}

    def send(self, dst_mac, ethertype, payload):
        frame = dst_mac + self.mac + struct.pack(">HHH", 0x8100, self.vid, ethertype) + payload
        self.s.send(frame.ljust(64, b"\0"))

    def recv(self, timeout):
        """(tag or None, frame without its tag) or None on timeout."""
        if not select.select([self.s], [], [], max(timeout, 0))[0]:
            return None
        data, anc, _, _ = self.s.recvmsg(4096, socket.CMSG_SPACE(AUXDATA.size))
        return frame_tag(data, anc)

    def about_us(self, etype, f):
        """An ARP for our address or an IPv4 datagram to it (whatever its tag)."""
        if etype == 0x0806 and len(f) >= 42:
            return f[38:42] == self.addr
        return etype == 0x0800 and len(f) >= 34 and f[30:34] == self.addr

    def handle(self, tag, f):
        """Answer what is ours; return (kind, detail) for what the caller may wait for."""
        if len(f) < 14 or f[6:12] == self.mac:
            return None  # our own frame, looped back by the socket
        etype = struct.unpack(">H", f[12:14])[0]
        if tag != self.vid:
            self.r["wrong_tag"] += self.about_us(etype, f)
            return None
        if etype == 0x0806 and len(f) >= 42:
            op, sha, spa, _, tpa = struct.unpack(">6xH6s4s6s4s", f[14:42])
            if op == 1 and tpa == self.addr:
                self.send(sha, 0x0806, arp(2, self.mac, self.addr, sha, spa))
                self.r["arp_answered"] += 1
            elif op == 2 and tpa == self.addr:
                return ("arp_reply", (spa, sha))
        elif etype == 0x0800 and len(f) >= 42 and f[0:6] == self.mac:
            ip = f[14:]
            ihl = (ip[0] & 15) * 4
            src, dst = ip[12:16], ip[16:20]
            if dst != self.addr or ip[9] != 1:
                return None
            body = ip[ihl:struct.unpack(">H", ip[2:4])[0]]
            if body[0] == 8:
                reply = icmp(0, *struct.unpack(">HH", body[4:8]), body[8:])
                self.send(f[6:12], 0x0800, ipv4(self.addr, src, 1, reply))
                self.r["echo_answered"] += 1
            elif body[0] == 0:
                return ("echo_reply", ip[8])
        return None

    def serve_until(self, deadline, want=None):
        while time.monotonic() < deadline:
            got = self.recv(deadline - time.monotonic())
            if got is None:
                continue
            ev = self.handle(*got)
            if ev and want and ev[0] == want:
                return ev
        return None

    def resolve(self, gateway, deadline):
        gw = socket.inet_aton(gateway)
        while time.monotonic() < deadline:
            self.send(BCAST, 0x0806, arp(1, self.mac, self.addr, b"\0" * 6, gw))
            ev = self.serve_until(min(deadline, time.monotonic() + 0.5), "arp_reply")
            if ev and ev[1][0] == gw:
                return ev[1][1]
        return None

    def ping(self, gw_mac, dst, count, deadline):
        d = socket.inet_aton(dst)
        for seq in range(count):
            self.send(gw_mac, 0x0800, ipv4(self.addr, d, 1, icmp(8, 0x5753, seq, b"ws" * 16)))
            self.r["ping_sent"] += 1
            end = min(deadline, time.monotonic() + 0.1)
            while time.monotonic() < end:
                ev = self.serve_until(end, "echo_reply")
                if ev:
                    self.r["ping_replies"] += 1
                    self.r["reply_ttls"].append(ev[1])


def main():
    iface, vid, addr, gateway, seconds = sys.argv[1:6]
    h = Host(iface, int(vid), addr)
    deadline = time.monotonic() + float(seconds)
    print(json.dumps({"ready": True}), flush=True)
    if "--ping" in sys.argv:
        i = sys.argv.index("--ping")
        dst, count = sys.argv[i + 1], int(sys.argv[i + 2])
        mac = h.resolve(gateway, deadline)
        if mac is not None:
            h.r["gateway_mac"] = mac.hex(":")
            h.ping(mac, dst, count, deadline)
    h.serve_until(deadline)
    print(json.dumps(h.r), flush=True)


if __name__ == "__main__":
    main()
