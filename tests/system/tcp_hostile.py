"""tests/system/tcp_hostile.py: a hand-driven TCP peer (scapy, on the namespace's tap) for what a
kernel socket will not do: hostile TCP options, and advertising a zero window so the appliance
must probe. It speaks as 198.18.0.77 with its own MAC, which it announces by gratuitous ARP, so
the namespace's kernel never sees (or resets) its connection.

Usage (in port0's namespace): python3 tcp_hostile.py IFACE APPLIANCE_IP APPLIANCE_MAC
Prints one JSON line of findings.
"""
import json
import random
import socket
import struct
import sys
import time

from scapy.all import ARP, IP, TCP, AsyncSniffer, Ether, Raw, conf, sendp

conf.verb = 0
ME_IP = "198.18.0.77"
ME_MAC = "02:00:00:00:00:77"
ECHO = 7

# Options lwIP must survive: each is raw option bytes (padded to 4 by us).
HOSTILE_OPTIONS = [
    b"\x02\x00",                  # MSS with length 0 (an infinite loop for a naive parser)
    b"\x02\x01",                  # MSS with length 1
    b"\x02\x04\x00",              # MSS cut short by the end of the header
    b"\x02\xff\x05\xb4",          # MSS claiming 255 bytes
    b"\x03\x03\xff",              # window scale 255 (RFC 7323: use 14)
    b"\x08\x0a\x00\x00",          # timestamps, truncated
    b"\x05\x03\x00\x00",          # SACK with an impossible length
    b"\xc8\x00",                  # unknown kind, length 0
    b"\xc8\x28" + b"\x00" * 10,   # unknown kind, length past the header
    b"\x01" * 40,                 # 40 NOPs: a 60-byte header
]


FLAGS = {"S": 0x02, "A": 0x10, "PA": 0x18, "R": 0x04, "RA": 0x14}


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def tcp_segment(sport, dport, seq, ack, flags, window, options, payload, dst_ip):
    """A TCP segment with exactly these option bytes (padded with EOL to a multiple of 4) and a
    correct checksum: scapy would re-encode the options, which is the point of not using it."""
    opt = options + b"\x00" * (-len(options) % 4)
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq % 2**32, ack % 2**32,
                      (5 + len(opt) // 4) << 4, flags, window, 0, 0) + opt
    pseudo = (socket.inet_aton(ME_IP) + socket.inet_aton(dst_ip) +
              struct.pack("!BBH", 0, 6, len(hdr) + len(payload)))
    cs = checksum(pseudo + hdr + payload)
    return hdr[:16] + struct.pack("!H", cs) + hdr[18:] + payload


class Peer:
    def __init__(self, iface, dst_ip, dst_mac):
        self.iface, self.dst_ip, self.dst_mac = iface, dst_ip, dst_mac
        self.sport = random.randint(20000, 60000)
        self.seq = random.randint(0, 2**32 - 1)
        self.ack = 0
        self.got = []
        self.sniffer = AsyncSniffer(iface=iface, store=False, prn=self._seen,
                                    lfilter=lambda p: TCP in p and p[IP].dst == ME_IP)
        self.sniffer.start()
        time.sleep(0.5)

    def _seen(self, p):
        self.got.append(p)

    def send(self, flags, payload=b"", options=b"", window=65535, seq=None):
        seg = tcp_segment(self.sport, ECHO, self.seq if seq is None else seq, self.ack,
                          FLAGS[flags], window, options, payload, self.dst_ip)
        sendp(Ether(src=ME_MAC, dst=self.dst_mac) / IP(src=ME_IP, dst=self.dst_ip, proto=6) /
              Raw(seg), iface=self.iface)

    def wait(self, pred, timeout=5.0, keep=False):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for p in list(self.got):
                if pred(p):
                    if not keep:
                        self.got.remove(p)
                    return p
            time.sleep(0.02)
        return None

    def stop(self):
        self.sniffer.stop()


def from_port(peer):
    return lambda p: p[TCP].sport == ECHO and p[TCP].dport == peer.sport


def receive(peer, want, window, timeout=4.0):
    """Take the appliance's data in order, acknowledging it, until want bytes or timeout."""
    got = 0
    end = time.monotonic() + timeout
    while got < want and time.monotonic() < end:
        for p in list(peer.got):
            peer.got.remove(p)
            if not from_port(peer)(p) or Raw not in p:
                continue
            load = p[Raw].load
            if p[TCP].seq == peer.ack:  # in order: take it (a retransmission is not)
                got += len(load)
                peer.ack = (peer.ack + len(load)) % 2**32
            peer.send("A", window=window)
        time.sleep(0.02)
    return got


def handshake(peer, options=b"\x02\x04\x05\xb4"):
    peer.send("S", options=options)
    synack = peer.wait(lambda p: from_port(peer)(p) and p[TCP].flags & 0x12 == 0x12)
    if synack is None:
        return False
    peer.seq += 1
    peer.ack = synack[TCP].seq + 1
    peer.send("A")
    return True


def main():
    iface, dst_ip, dst_mac = sys.argv[1:4]
    # Announce ourselves (RFC 5227 announcement): the appliance learns our MAC from it.
    sendp(Ether(src=ME_MAC, dst="ff:ff:ff:ff:ff:ff") /
          ARP(op=1, hwsrc=ME_MAC, psrc=ME_IP, hwdst="00:00:00:00:00:00", pdst=ME_IP), iface=iface)
    time.sleep(0.3)
    out = {"syn_hostile_answered": 0, "data_hostile_acked": 0, "echoed_bytes": 0,
           "zero_window_probes": 0, "after_window_opened": 0}

    # 1. SYNs with hostile options: each is answered (SYN-ACK) or ignored, never a crash.
    for opt in HOSTILE_OPTIONS:
        peer = Peer(iface, dst_ip, dst_mac)
        peer.send("S", options=opt)
        if peer.wait(lambda p, q=peer: from_port(q)(p), timeout=2):
            out["syn_hostile_answered"] += 1
        peer.send("R", seq=peer.seq + 1)
        peer.stop()

    # 2. An established connection to echo: data segments carrying hostile options; each is
    #    acknowledged and echoed back.
    peer = Peer(iface, dst_ip, dst_mac)
    out["handshake"] = handshake(peer)
    for opt in HOSTILE_OPTIONS:
        data = b"hostile!" * 8
        peer.send("PA", payload=data, options=opt)
        want = (peer.seq + len(data)) % 2**32
        # generous: a loaded CI host can delay the ACK by seconds, and a missed one would
        # throw every later sequence number off (wait returns as soon as it sees it)
        if peer.wait(lambda p, w=want: from_port(peer)(p) and p[TCP].ack == w, timeout=10,
                     keep=True):
            out["data_hostile_acked"] += 1
            peer.seq += len(data)
        out["echoed_bytes"] += receive(peer, len(data), window=65535, timeout=10)

    # 3. Zero window: we advertise 0 and send data to echo; the appliance must hold its answer
    #    and probe (RFC 9293 3.8.6.1) instead of sending it; once we open the window it sends.
    #    The zero window is announced the way a client whose application stopped reading
    #    does: in the ACK of new data (RFC 9293 3.10.7.4: an update with nothing newly
    #    acknowledged and the same sequence number may only grow the window).
    first = b"a" * 100
    peer.send("PA", payload=first)
    peer.seq += len(first)
    out["before_window_closed"] = receive(peer, len(first), window=0, timeout=10)
    data = b"z" * 1000
    peer.send("PA", payload=data, window=0)
    peer.seq += len(data)
    time.sleep(6)  # lwIP's first persist probe comes after one RTO; the guest clock is slow
    probes = [p for p in peer.got if from_port(peer)(p)]
    out["zero_window_probes"] = len(probes)
    out["zero_window_max_probe_bytes"] = max([len(p[Raw].load) if Raw in p else 0
                                              for p in probes] or [0])
    out["zero_window_trace"] = [(p[TCP].seq - peer.ack, len(p[Raw].load) if Raw in p else 0,
                                 p[TCP].window, str(p[TCP].flags)) for p in probes]
    peer.got.clear()
    peer.send("A", window=65535)
    out["after_window_opened"] = receive(peer, len(data), window=65535, timeout=10)
    peer.send("R")
    peer.stop()
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
