#!/usr/bin/python3
"""tests/fuzz/capture_seeds.py: seeds for the frame harnesses from real traffic.

    tests/fuzz/capture_seeds.py capture DIR     boot build/wirespeed.elf in QEMU (two igb ports on
                                                taps in namespaces, as tests/system does), run
                                                real clients at it (ping, ping -t 1, a fragmented
                                                ping, a UDP datagram to a closed port, UDP and
                                                a TCP connect to the other host through the
                                                router, iperf3 TCP and UDP, netperf TCP_RR),
                                                and write what
                                                crossed each tap to DIR/port0.pcap, port1.pcap
    tests/fuzz/capture_seeds.py convert DIR     turn those captures into seeds: cap_* files in
                                                tests/fuzz/corpus/fuzz_net_local and fuzz_route

`capture` needs root (taps, namespaces) and scapy (/usr/bin/python3, as the system tests).
`convert` keeps the seeds small: a few frames per conversation, the first of each kind.

What the harnesses see (their input formats are at the top of their .c files):
- fuzz_net_local: frames the hosts sent to the appliance's own address (ARP, ICMP echo, TCP
  and UDP for the sink, fragments), one multi-frame input per conversation, with the
  appliance's address and MAC rewritten to the harness's interface (10.0.0.1,
  02:00:00:00:00:01) and the hosts to 10.0.0.x; the IPv4 header checksums are recomputed
  after the rewrite (the TCP/UDP ones are left: net/local.c does not check them).
- fuzz_route: frames in transit (one host to the other), as captured, one input each.
"""
import os
import struct
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")

# What the harnesses call themselves (fuzz_net_local.c): our interface and its subnet.
HARNESS_MAC = bytes.fromhex("020000000001")
HARNESS_NET = bytes([10, 0, 0])
FL_MULTI, FL_NEIGH, FL_BUF_PKB = 0x80, 0x04, 0x02  # byte 0: several frames, table, pkb buffer
FL_SINK = 0x20                                     # byte 1: TCP/UDP/fragments go to the sink
FL_MAX_FRAMES = 24

SNIFF = r"""
import sys
from scapy.all import AsyncSniffer, wrpcap
s = AsyncSniffer(iface=sys.argv[1], store=True)
s.start()
print("ready", flush=True)
sys.stdin.read()  # until the capture's end closes it
wrpcap(sys.argv[2], s.stop())
"""


# --- capture ----------------------------------------------------------------------------------

def capture(out_dir):
    sys.path.insert(0, os.path.join(ROOT, "tests", "system"))
    from netlab import HOSTS, Lab, ns_run
    from qemu import DEFAULT_ELF

    os.makedirs(out_dir, exist_ok=True)
    appliance = HOSTS[0][1]
    lab = Lab(kernel=DEFAULT_ELF, smp=2)
    sniffers = []
    try:
        lab.guest.wait_ready()
        lab.wait_links()
        for i in (0, 1):
            sniffers.append(subprocess.Popen(
                ["ip", "netns", "exec", lab.nss[i], "/usr/bin/python3", "-c", SNIFF, lab.taps[i],
                 os.path.join(out_dir, f"port{i}.pcap")], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, text=True))
            assert sniffers[-1].stdout.readline().strip() == "ready"
        time.sleep(0.5)
        for args in (["ping", "-c", "2", appliance],
                     ["ping", "-c", "2", HOSTS[1][0]],
                     ["ping", "-c", "1", "-t", "1", HOSTS[1][0]],
                     ["python3", "-c", "import socket; socket.socket(socket.AF_INET, "
                      f"socket.SOCK_DGRAM).sendto(b'y' * 48, ('{HOSTS[1][0]}', 9))"],
                     ["python3", "-c", "import socket; socket.create_connection("
                      f"('{HOSTS[1][0]}', 9), timeout=3)"],
                     ["ping", "-c", "1", "-s", "3000", appliance],
                     ["python3", "-c", "import socket; socket.socket(socket.AF_INET, "
                      f"socket.SOCK_DGRAM).sendto(b'x' * 32, ('{appliance}', 33434))"],
                     ["iperf3", "-c", appliance, "-t", "1", "-b", "20M"],
                     ["iperf3", "-c", appliance, "-t", "1", "-u", "-b", "1M"],
                     ["netperf", "-H", appliance, "-l", "1", "-t", "TCP_RR"]):
            r = ns_run(lab.nss[0], *args, check=False, timeout=120)
            print(f"{' '.join(args[:4])}: exit {r.returncode}")
        time.sleep(1)
    finally:
        for s in sniffers:
            s.stdin.close()
            s.wait(timeout=30)
        lab.close()
    print(f"captures in {out_dir}")


# --- convert ----------------------------------------------------------------------------------

def read_pcap(path):
    """The frames of a classic pcap file (what scapy's wrpcap writes)."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    frames, at = [], 24
    while at + 16 <= len(data):
        incl = struct.unpack(endian + "I", data[at + 8:at + 12])[0]
        frames.append(data[at + 16:at + 16 + incl])
        at += 16 + incl
    return frames


def ipv4_csum(hdr):
    s = sum(struct.unpack("!%dH" % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def is_ipv4(f):
    return len(f) >= 34 and f[12:14] == b"\x08\x00"


def is_arp(f):
    return len(f) >= 42 and f[12:14] == b"\x08\x06"


def to_harness(f, appliance_ip, appliance_mac):
    """The frame as the harness's interface would receive it: the appliance's MAC and every
    198.18.0.x address rewritten, the IPv4 header checksum recomputed."""
    f = bytearray(f)
    for off in (0, 6):
        if f[off:off + 6] == appliance_mac:
            f[off:off + 6] = HARNESS_MAC
    if is_arp(f):
        for mac_off, ip_off in ((22, 28), (32, 38)):
            if f[mac_off:mac_off + 6] == appliance_mac:
                f[mac_off:mac_off + 6] = HARNESS_MAC
            if f[ip_off:ip_off + 3] == appliance_ip[:3]:
                f[ip_off:ip_off + 3] = HARNESS_NET
    elif is_ipv4(f):
        ihl = (f[14] & 0x0F) * 4
        for off in (26, 30):
            if f[off:off + 3] == appliance_ip[:3]:
                f[off:off + 3] = HARNESS_NET
        f[24:26] = b"\0\0"
        f[24:26] = struct.pack("!H", ipv4_csum(bytes(f[14:14 + ihl])))
    return bytes(f)


def kind(f):
    """A name for what a frame is: the first of each kind becomes (part of) a seed."""
    if is_arp(f):
        return "arp%d" % struct.unpack("!H", f[20:22])[0]
    if not is_ipv4(f):
        return None
    proto, frag = f[23], struct.unpack("!H", f[20:22])[0] & 0x3FFF
    if frag:
        return "frag"
    ihl = (f[14] & 0x0F) * 4
    l4 = 14 + ihl
    if proto == 1 and len(f) > l4:
        return "icmp%d%s" % (f[l4], "-ttl1" if f[22] <= 1 else "")
    if proto == 6 and len(f) >= l4 + 14:
        flags = f[l4 + 13]
        return "tcp%d-%s" % (struct.unpack("!H", f[l4 + 2:l4 + 4])[0],
                             "syn" if flags & 0x02 else "data" if len(f) > l4 + 60 else "ack")
    if proto == 17 and len(f) >= l4 + 4:
        return "udp%d" % struct.unpack("!H", f[l4 + 2:l4 + 4])[0]
    return "ip%d" % proto


def write_seed(harness, name, data):
    d = os.path.join(CORPUS, harness)
    with open(os.path.join(d, name), "wb") as out:
        out.write(data)
    print(f"{harness}/{name}: {len(data)} bytes")


def convert(cap_dir):
    frames = read_pcap(os.path.join(cap_dir, "port0.pcap"))
    appliance_ip = bytes([198, 18, 0, 1])
    # The appliance's MAC: the source of its ARP replies (or of any frame from its address).
    appliance_mac = next(f[6:12] for f in frames
                         if (is_arp(f) and f[28:32] == appliance_ip) or
                         (is_ipv4(f) and f[26:30] == appliance_ip))
    to_us, in_transit, seen = [], [], set()
    for f in frames:
        k = kind(f)
        if k is None or f[6:12] == appliance_mac:
            continue  # what the appliance sent is not harness input
        ours = is_arp(f) or f[30:34] == appliance_ip
        if (ours, k) in seen:
            continue
        seen.add((ours, k))
        (to_us if ours else in_transit).append((k, f))
    groups = {"cap_arp_icmp": [f for k, f in to_us if k.startswith(("arp", "icmp", "frag"))],
              "cap_sink_tcp_udp": [f for k, f in to_us if k.startswith(("tcp", "udp"))]}
    for name, group in groups.items():
        body = b"".join(struct.pack("!H", len(g)) + g for g in
                        (to_harness(f, appliance_ip, appliance_mac)
                         for f in group[:FL_MAX_FRAMES]))
        write_seed("fuzz_net_local", name, bytes([FL_MULTI | FL_NEIGH | FL_BUF_PKB, FL_SINK])
                   + body)
    for k, f in in_transit:
        # header: the default output buffer, in place exactly the frame, address present,
        # error 11/0, no checksum rewrite (the capture's are right)
        write_seed("fuzz_route", f"cap_{k}", bytes(5) + f)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("capture", "convert"):
        sys.exit(__doc__.strip().split("\n\n")[1])
    (capture if sys.argv[1] == "capture" else convert)(sys.argv[2])


if __name__ == "__main__":
    main()
