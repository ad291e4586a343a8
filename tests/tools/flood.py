#!/usr/bin/env python3
"""tests/tools/flood.py: hostile frames on a wire, at a steady rate, for the flood tests.

  flood.py IFACE KIND COUNT PPS --dut-ip A --dut-mac M [--net N] [--victim-ip V]
      prints {"sent": N, "by_kind": {...}, "seconds": S} as JSON. KIND:
  arp       ARP from many senders, round robin: a request for the appliance from an address of
            its subnet N.3-N.254 (learnable), a request from an address off the subnet
            (answered, never learned), an announcement (gratuitous ARP) of a subnet address;
            each sender with its own random unicast MAC
  poison    ARP claiming addresses that are not the sender's to claim, all from one attacker
            MAC: announcements and replies claiming the appliance's own address, announcements
            and replies claiming the victim (a neighbour on the appliance's other port), and a
            request from the victim's address
  icmpbcast ICMP echo requests to broadcast: N.255 and 255.255.255.255 in an Ethernet
            broadcast, the same two unicast to the appliance's MAC, and the victim subnet's
            broadcast (V's /24 .255) unicast to the appliance
  announce  announcements (gratuitous ARP) of the victim's address from --sender-mac (default:
            this interface's own MAC)

Runs inside the tests' network namespaces, against the appliance only.
"""
import argparse
import json
import random
import socket
import struct
import sys
import time

BCAST = b"\xff" * 6


def mac(rng):
    m = bytearray(rng.getrandbits(8) for _ in range(6))
    m[0] = (m[0] & 0xFE) | 0x02  # unicast, locally administered
    return bytes(m)


def ip(s):
    return socket.inet_aton(s)


def arp(dst_mac, src_mac, op, sha, spa, tha, tpa):
    return (dst_mac + src_mac + b"\x08\x06" + struct.pack(">HHBBH", 1, 0x0800, 6, 4, op) +
            sha + ip(spa) + tha + ip(tpa)).ljust(60, b"\0")


def csum(b):
    s = sum(struct.unpack(f">{len(b) // 2}H", b))
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def echo(dst_mac, src_mac, src, dst, seq):
    icmp = struct.pack(">BBHHH", 8, 0, 0, 0x5753, seq & 0xFFFF) + bytes(18)
    icmp = icmp[:2] + struct.pack(">H", csum(icmp)) + icmp[4:]
    hdr = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(icmp), seq & 0xFFFF, 0, 64, 1, 0,
                      ip(src), ip(dst))
    hdr = hdr[:10] + struct.pack(">H", csum(hdr)) + hdr[12:]
    return dst_mac + src_mac + b"\x08\x00" + hdr + icmp


def frames(a, own_mac, rng):
    """Yields (kind, frame) for a.kind, forever."""
    dut_mac = bytes.fromhex(a.dut_mac.replace(":", ""))
    i = 0
    attacker = mac(rng)
    while True:
        host = f"{a.net}.{3 + i % 252}"
        if a.kind == "arp":
            m = mac(rng)
            k = i % 3
            if k == 0:
                yield "request_subnet", arp(BCAST, m, 1, m, host, bytes(6), a.dut_ip)
            elif k == 1:
                off = f"10.{(i >> 8) & 255}.{i & 255}.7"
                yield "request_off_subnet", arp(BCAST, m, 1, m, off, bytes(6), a.dut_ip)
            else:
                yield "announcement", arp(BCAST, m, 1, m, host, bytes(6), host)
        elif a.kind == "poison":
            k = i % 5
            if k == 0:
                yield "claim_ours_announcement", arp(BCAST, attacker, 1, attacker, a.dut_ip,
                                                     bytes(6), a.dut_ip)
            elif k == 1:
                yield "claim_ours_reply", arp(dut_mac, attacker, 2, attacker, a.dut_ip, dut_mac,
                                              a.dut_ip)
            elif k == 2:
                yield "claim_victim_announcement", arp(BCAST, attacker, 1, attacker,
                                                       a.victim_ip, bytes(6), a.victim_ip)
            elif k == 3:
                yield "claim_victim_reply", arp(dut_mac, attacker, 2, attacker, a.victim_ip,
                                                dut_mac, a.dut_ip)
            else:
                yield "request_as_victim", arp(BCAST, attacker, 1, attacker, a.victim_ip,
                                               bytes(6), a.dut_ip)
        elif a.kind == "announce":
            m = bytes.fromhex(a.sender_mac.replace(":", "")) if a.sender_mac else own_mac
            yield "announcement", arp(BCAST, m, 1, m, a.victim_ip, bytes(6), a.victim_ip)
        else:
            src = a.src_ip
            victim_bcast = a.victim_ip.rsplit(".", 1)[0] + ".255"
            k = i % 5
            if k == 0:
                yield "subnet_bcast_l2_bcast", echo(BCAST, own_mac, src, f"{a.net}.255", i)
            elif k == 1:
                yield "limited_bcast_l2_bcast", echo(BCAST, own_mac, src, "255.255.255.255", i)
            elif k == 2:
                yield "subnet_bcast_unicast", echo(dut_mac, own_mac, src, f"{a.net}.255", i)
            elif k == 3:
                yield "limited_bcast_unicast", echo(dut_mac, own_mac, src, "255.255.255.255", i)
            else:
                yield "other_subnet_bcast_unicast", echo(dut_mac, own_mac, src, victim_bcast, i)
        i += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("iface"), ap.add_argument("kind", choices=("arp", "poison", "icmpbcast", "announce"))
    ap.add_argument("count", type=int), ap.add_argument("pps", type=float)
    ap.add_argument("--dut-ip", required=True), ap.add_argument("--dut-mac", required=True)
    ap.add_argument("--net", default="198.18.0"), ap.add_argument("--victim-ip", default="")
    ap.add_argument("--src-ip", default="198.18.0.2"), ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sender-mac", default="")
    a = ap.parse_args()
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((a.iface, 0))
    own_mac = s.getsockname()[4]
    rng = random.Random(a.seed)
    by_kind = {}
    gen = frames(a, own_mac, rng)
    t0 = time.monotonic()
    for n in range(a.count):
        kind, f = next(gen)
        s.send(f)
        by_kind[kind] = by_kind.get(kind, 0) + 1
        delay = t0 + (n + 1) / a.pps - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    print(json.dumps({"sent": a.count, "by_kind": by_kind,
                      "seconds": round(time.monotonic() - t0, 3)}))


if __name__ == "__main__":
    sys.exit(main())
