#!/usr/bin/env python3
"""tests/fuzz/make_seeds.py: write the seed corpora of the fuzz harnesses (tests/fuzz/corpus/).

The seeds are small valid inputs, built here field by field so that each one can be read and
changed: an ARP request, an ICMP echo, a UDP datagram in transit, a route table program, console
lines, the shipped configuration files without their comments. Each harness's input format is
described at the top of its .c file; the header bytes below follow it.

Usage: tests/fuzz/make_seeds.py [corpus-dir]   (default: tests/fuzz/corpus next to this file)
Rewrites the files it owns; deletes nothing.
"""
import ipaddress
import os
import re
import struct
import sys

OUR_MAC = bytes.fromhex("020000000001")
PEER_MAC = bytes.fromhex("020000000002")
OTHER_MAC = bytes.fromhex("020000000003")
BCAST = b"\xff" * 6
OUR_IP = bytes([10, 0, 0, 1])
PEER_IP = bytes([10, 0, 0, 2])


def ip4(s):
    return bytes(int(x) for x in s.split("."))


def csum(b):
    """RFC 1071 Internet checksum of b, as an int ready to be stored big-endian."""
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def eth(dst, src, etype, payload):
    return dst + src + struct.pack("!H", etype) + payload


def arp(op, sha, spa, tha, tpa):
    return struct.pack("!HHBBH", 1, 0x0800, 6, 4, op) + sha + spa + tha + tpa


def ipv4(src, dst, proto, payload, ttl=64, frag=0x4000, options=b"", tos=0, ident=0x1c46):
    ihl = 5 + len(options) // 4
    hdr = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, tos, ihl * 4 + len(payload), ident, frag, ttl,
                      proto, 0, src, dst) + options
    hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    return hdr + payload


def icmp(typ, code, rest, data):
    msg = struct.pack("!BBH", typ, code, 0) + rest + data
    return msg[:2] + struct.pack("!H", csum(msg)) + msg[4:]


def udp(src, dst, sport, dport, data):
    length = 8 + len(data)
    pseudo = src + dst + struct.pack("!BBH", 0, 17, length)
    seg = struct.pack("!HHHH", sport, dport, length, 0) + data
    c = csum(pseudo + seg) or 0xFFFF
    return seg[:6] + struct.pack("!H", c) + seg[8:]


PING_DATA = bytes(range(0x10, 0x10 + 48)) + b"\0" * 8  # 56 bytes, like ping's default


def echo_request(ident=0x1234, seq=1, data=PING_DATA):
    return icmp(8, 0, struct.pack("!HH", ident, seq), data)


# --- fuzz_net_local: byte 0 variant, byte 1 slack and fix-ups, then the frame ----------------

V_TIGHT, V_SLACK, V_PKB, V_SHORT = 0, 1, 2, 3
FIX = 0x80 | 0x40  # byte 1: the harness rewrites IPv4 and ICMP checksums
V_NEIGH, V_MULTI = 0x04, 0x80


def net_local_seeds():
    arp_req = eth(BCAST, PEER_MAC, 0x0806, arp(1, PEER_MAC, PEER_IP, b"\0" * 6, OUR_IP))
    arp_rep = eth(OUR_MAC, PEER_MAC, 0x0806, arp(2, PEER_MAC, PEER_IP, OUR_MAC, OUR_IP))
    garp = eth(BCAST, OTHER_MAC, 0x0806,
               arp(1, OTHER_MAC, ip4("10.0.0.3"), b"\0" * 6, ip4("10.0.0.3")))
    ping = eth(OUR_MAC, PEER_MAC, 0x0800, ipv4(PEER_IP, OUR_IP, 1, echo_request()))
    ping_opts = eth(OUR_MAC, PEER_MAC, 0x0800,
                    ipv4(PEER_IP, OUR_IP, 1, echo_request(seq=2), options=b"\x01\x01\x01\x00"))
    ping_tiny = eth(OUR_MAC, PEER_MAC, 0x0800, ipv4(PEER_IP, OUR_IP, 1, echo_request(data=b"")))
    transit = eth(OUR_MAC, PEER_MAC, 0x0800,
                  ipv4(PEER_IP, ip4("192.0.2.5"), 17,
                       udp(PEER_IP, ip4("192.0.2.5"), 40000, 9, b"wirespeed" * 4)))
    pad = lambda f: f + b"\0" * max(0, 60 - len(f))

    def multi(*frames):
        return b"".join(struct.pack("!H", len(f)) + f for f in frames)

    return {
        "arp_request": bytes([V_PKB | V_NEIGH, FIX]) + arp_req,
        "arp_request_padded_tight": bytes([V_TIGHT | V_NEIGH, 0]) + pad(arp_req),
        "arp_request_no_table": bytes([V_SLACK, 18]) + arp_req,
        "arp_reply_to_us": bytes([V_PKB | V_NEIGH, 0]) + pad(arp_rep),
        "arp_gratuitous": bytes([V_PKB | V_NEIGH, FIX]) + pad(garp),
        "icmp_echo": bytes([V_PKB | V_NEIGH, FIX]) + ping,
        "icmp_echo_ip_options": bytes([V_TIGHT, FIX]) + ping_opts,
        "icmp_echo_empty_needs_padding": bytes([V_SLACK, FIX | 30]) + ping_tiny,
        "udp_in_transit": bytes([V_PKB, FIX]) + transit,
        "frame_longer_than_buffer": bytes([V_SHORT, 3]) + ping,
        "prefix_31_echo": bytes([V_PKB | (4 << 3), FIX]) + ping,
        "multi_learn_then_answer": bytes([V_PKB | V_NEIGH | V_MULTI, FIX])
        + multi(pad(garp), pad(arp_rep), arp_req, ping),
    }


# --- fuzz_route: variant, size, code, type, fix-ups, then the frame --------------------------

def route_seeds():
    src, dst = ip4("198.18.0.2"), ip4("198.51.100.7")
    payload = udp(src, dst, 40000, 9, b"x" * 18)

    def frame(ip):
        return eth(OUR_MAC, PEER_MAC, 0x0800, ip)

    hdr = lambda variant, size=0, code=0, typ=0, fix=1: bytes([variant, size, code, typ, fix])
    unreach = icmp(3, 1, b"\0" * 4, ipv4(dst, src, 17, payload)[:28])
    return {
        "udp_forward": hdr(0) + frame(ipv4(src, dst, 17, payload)),
        "udp_ttl_expired": hdr(0) + frame(ipv4(src, dst, 17, payload, ttl=1)),
        "udp_ttl_expired_in_place_pkb": hdr(2 << 2) + frame(ipv4(src, dst, 17, payload, ttl=1)),
        "udp_net_unreach_small_out": hdr(1 | (2 << 5), 70) + frame(ipv4(src, dst, 17, payload)),
        "big_udp_host_unreach": hdr(3 << 5, 0) + frame(ipv4(src, dst, 17, udp(
            src, dst, 40000, 9, bytes(range(256)) * 4))),
        "icmp_echo_ttl_expired": hdr(0) + frame(ipv4(src, dst, 1, echo_request(), ttl=1)),
        "icmp_error_not_answered": hdr(0) + frame(ipv4(src, dst, 1, unreach, ttl=1)),
        "ip_options_forward": hdr(1 << 2, 9) + frame(
            ipv4(src, dst, 17, payload, ttl=5, options=b"\x01\x01\x01\x00")),
        "fragment_not_first": hdr(0) + frame(ipv4(src, dst, 17, payload, ttl=1, frag=0x2010)),
        "link_local_source": hdr(0) + frame(ipv4(ip4("169.254.1.1"), dst, 17, payload, ttl=1)),
        "no_source_address": hdr(0x10) + frame(ipv4(src, dst, 17, payload, ttl=1)),
        "raw_type_code": hdr(6 << 5, 0, 3, 3, fix=0) + frame(ipv4(src, dst, 6, b"\0" * 20, ttl=1)),
    }


# --- fuzz_fib: byte 0 pool size, then operations -----------------------------------------------

def fib_add(prefix, length, nh, op=0):
    return bytes([op]) + ip4(prefix) + bytes([length]) + struct.pack("!H", nh)


def fib_lookup(addr):
    return b"\x05" + ip4(addr)


def fib_near(k, how, bits=0):
    return bytes([3, k, how]) + struct.pack("!I", bits)


def fib_seeds():
    default_conf = (fib_add("198.18.0.0", 24, 0) + fib_add("198.19.0.0", 24, 1)
                    + fib_add("198.51.100.0", 24, 2) + fib_add("198.51.100.128", 25, 3)
                    + fib_lookup("198.51.100.200") + fib_lookup("198.51.100.7")
                    + fib_lookup("198.18.0.9") + fib_lookup("203.0.113.1"))
    levels = (fib_add("0.0.0.0", 0, 9, op=0x40) + fib_add("10.0.0.0", 8, 1)
              + fib_add("10.1.0.0", 16, 2) + fib_add("10.1.2.0", 24, 3)
              + fib_add("10.1.2.3", 32, 4) + fib_add("10.1.2.128", 25, 5)
              + b"".join(fib_near(k, h, 0x5a5a5a5a) for k in range(6) for h in range(6)))
    churn = (fib_add("172.16.0.0", 12, 1) + fib_add("172.16.5.0", 24, 2)
             + fib_add("172.16.5.64", 26, 3) + b"\x02\x01" + fib_near(0, 4, 0xffff)
             + b"\x02\x00" + fib_lookup("172.16.5.70") + fib_add("172.16.5.64", 26, 7)
             + bytes([6, 8]) + bytes(5 * 8))
    exhaust = b"".join(fib_add("10.%d.%d.0" % (i, i), 25, i) for i in range(6))
    bad = (fib_add("10.0.0.1", 8, 1, op=0x80) + fib_add("10.0.0.0", 33, 1)
           + b"\x82" + ip4("10.0.0.0") + b"\x08" + fib_lookup("10.0.0.1"))
    boundary = b"".join(bytes([7]) + ip4("192.168.%d.%d" % (i, i * 4)) + bytes([i, 0, i])
                        for i in range(8)) + bytes([6, 15]) + bytes(5 * 16)
    return {
        "default_conf_routes": b"\x3f" + default_conf,
        "all_levels": b"\x3f" + levels,
        "add_del_replace": b"\x10" + churn,
        "group_pool_exhausted": b"\x02" + exhaust,
        "invalid_arguments": b"\x3f" + bad,
        "level_boundaries": b"\x3f" + boundary,
    }


# --- fuzz_console: byte 0 also picks a max_args; the rest is the serial line ------------------

def console_seeds():
    return {
        "commands_crlf": b"\x08help\r\nversion\r\nports\r\nstats\r\nroutes\r\narp\r\n",
        "commands_args": b"\x02stats port 1\rrings 0\nregs 1\r\nwatch  5\r\nstats\tjson\r",
        "erase_and_kill": b"\x03stx\x7fats\r\x08\x08ver\x03cpus\rhelp\x15arp\r",
        "escape_sequences": b"\x08\x1b[Ahelp\x1b[1;5C\r\x1bOx\r\x1b[\r",
        "too_long": b"\x08" + b"stats " * 30 + b"\rhelp\r",
        "bad_byte": b"\x08st\x01ats\r\xc3\xa9\r\x00\n",
        "too_many_args": b"\x04a b c d e f g h i j\r a  b \t\r\n",
        "lone_lf_and_cr": b"\x08\n\n\r\r\n\r\nstats\n",
    }


# --- fuzz_config: the configuration text itself ------------------------------------------------

def strip_comments(text):
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    return ("\n".join(lines) + "\n").encode()


# IPv6 addresses and routes in every accepted spelling, and one of each refusal (wrong class,
# bits past the length, a gateway off every port's prefix, an IPv4 prefix, length 129, ...).
IPV6_FORMS = """
port0.address6 = 2001:db8:18::1/64
port1.address6 = 2001:DB8:19:0:0:0:0:1/64
port2.address6 = fd00::a/127
port3.address6 = 2001:db8:3::2:1.2.3.4/128
route6 = 2001:db8:100::/48 via 2001:db8:19::2
route6 = 2001:db8:100:8000::/49 via 2001:db8:18::2 dev port0
route6 = ::/0 via fe80::1 dev port0
route6 = 2001:db8:200::/40 dev port1
route6=2001:db8:eeee:eeee:eeee:eeee:eeee:eeee/128\tvia\tfd00::b
port0.advertise6 = yes
port2.advertise6 = yes
port1.advertise6=no
"""
IPV6_ERRORS = """
port0.address6 = 2001:db8:18::1/64
port1.address6 = 2001:db8:18::2/64
port2.address6 = 2001:db8::1/32
port3.address6 = fe80::1/64
port3.address6 = ff02::1/64
port1.address6 = ::/64
port2.address6 = ::ffff:198.18.0.1/96
port1.address6 = 2001:db8:19::/64
port1.address6 = 2001:db8:19::1/15
port1.address6 = 2001:db8:19::1
port1.address6 = 2001:db8:19::g/064
route6 = 2001:db8:100::1/48 via 2001:db8:18::2
route6 = 2001:db8:100::/48 via fe80::1
route6 = 2001:db8:100::/48 via ff02::2
route6 = 2001:db8:100::/48 via 2001:db8:99::2
route6 = 2001:db8:100::/48 via 2001:db8:18::2
route6 = 2001:db8:101::/48 via 2001:db8:18::1
route6 = 2001:db8:102::/48 dev port0.10
route6 = 2001:db8:103::/48 dev port2
route6 = 2001:db8:18::/64 dev port0
route6 = 2001:db8:105::/48 via 2001:db8:18::5 dev port1
route6 = ::/0 via ::
route6 = ::/0 via ::ffff:1.2.3.4
route6 = ::/0 dev eth0
route6 = ::/0 via
route6 = ::/129 dev port0
route6 = 10.0.0.0/8 dev port0
port0.advertise6 = yes
port0.advertise6 = no
port1.advertise6 = true
port2.advertise6 = yes
mode = wire
"""


def read_seed_lines(text):
    return text.lstrip("\n").encode()


def config_seeds(repo):
    out = {}
    for name in ("default", "wire", "test", "busy", "ra"):
        path = os.path.join(repo, "config", name + ".conf")
        with open(path, encoding="utf-8") as f:
            out["%s_conf" % name] = strip_comments(f.read())
    base = out["default_conf"]
    out["default_conf_crlf_no_final_newline"] = base.replace(b"\n", b"\r\n").rstrip(b"\r\n")
    out["minimal_required_keys"] = b"console.port = com1\nconsole.baud = 115200\ncores = all\n" \
        b"panic = halt\n"
    out["errors_of_every_kind"] = (
        b"console.port = com9\nconsole.port = com1\nconsole.baud = 12\ncores = 0\n"
        b"panic = maybe\nunknown.key = 1\nBad-Key = 1\nno equals sign\n = value\n"
        b"port0.address = 10.0.0.1/24\nport1.address = 10.0.0.2/16\nport2.address = 10.0.0.0/33\n"
        b"route = 10.9.0.0/16 via 10.0.0.1\nroute = 10.9.0.0/16 via 10.0.0.3\n"
        b"route = 10.8.0.1/16 dev port7\nname = \xc3\xa9t\xc3\xa9 # utf-8 in a comment is fine\n"
        b"nic.rx_descs = 500\nnic.burst = 0x40\nwire.pairs = 0-0\n\tpoll.idle_us =\x01 3\n")
    minimal = out["minimal_required_keys"]
    out["file_name_from_comment"] = b"# file: configs/edge-router_2.conf\n" + minimal
    out["too_many_routes"] = minimal + b"port0.address = 10.0.0.1/24\n" + b"".join(
        b"route=%d.0.0.0/8 via 10.0.0.2\n" % i for i in range(11, 76))
    out["ipv6_every_form"] = minimal + read_seed_lines(IPV6_FORMS)
    out["ipv6_errors_of_every_kind"] = minimal + read_seed_lines(IPV6_ERRORS)
    out["wire_rewrite_mac"] = re.sub(
        rb"wire.rewrite_mac = no", b"wire.rewrite_mac = yes\nport0.next_hop_mac = "
        b"02:00:00:00:00:0a\nport1.next_hop_mac = 02:00:00:00:00:0B", out["wire_conf"])
    return out


# --- fuzz_rx_ring: byte 0 sets up the ring; then operations -----------------------------------

def ring_frame(length, flags=0, err=None, rss=None):
    b = bytes([0, flags])
    if flags & 4:
        b += bytes([err])
    if flags & 8:
        b += struct.pack("!I", rss)
    return b + struct.pack("!H", length)


def rx_ring_seeds():
    burst = lambda n: bytes([2, n])
    free = lambda n: bytes([3, n])
    hostile = lambda slot, st, ln, info=0, rss=0: (
        bytes([4, slot]) + struct.pack("!IHII", st, ln, info, rss))
    steady = (ring_frame(60) + ring_frame(1514) + ring_frame(64, 8, rss=0x12345678) + burst(32)
              + free(0)) * 4
    chains = (ring_frame(3000 - 2048, 1) + ring_frame(60) + ring_frame(100, 3) + burst(64)
              + free(0) + ring_frame(60, 4, err=0x80) + ring_frame(60, 4, err=0x01) + burst(8))
    hostile_seq = (hostile(3, 0x3, 60) + hostile(15, 0x3, 4000) + bytes([5]) + b"\x00\x40"
                   + ring_frame(0) + ring_frame(2049) + burst(16) + bytes([6]) + free(0)
                   + hostile(0, 0x1, 60) + burst(4) + bytes([7]) + burst(4))
    starve = (ring_frame(60) * 3 + burst(2) + burst(2) + ring_frame(60) + burst(5) + free(1)
              + bytes([6]) + free(0) + burst(1))
    wrap = (ring_frame(60) * 7 + burst(64) + free(0)) * 6
    return {
        "steady_traffic_16": bytes([0x01]) + steady,
        "chains_and_errors_82599": bytes([0x01 | 0x20]) + chains,
        "chains_and_errors_82576": bytes([0x00]) + chains,
        "hostile_writebacks": bytes([0x01 | (1 << 2)]) + hostile_seq,
        "small_pool": bytes([0x00 | (6 << 2)]) + starve,
        "empty_pool": bytes([0x00 | (5 << 2)]) + hostile(0, 0x3, 60) + burst(8) + bytes([6]),
        "wraparound_8": bytes([0x00]) + wrap,
        "big_ring_big_pool": bytes([0x03 | (3 << 2)]) + steady,
    }


# --- fuzz_tx_ring: byte 0 sets up the ring; then operations -----------------------------------

def tx_frame(cls=0, fwd=False, garbage=None, length=None):
    """One frame of a burst: length class (7: the 2 bytes of `length` follow), flags."""
    spec = 7 if length is not None else cls
    spec |= (8 if fwd else 0) | (16 if garbage is not None else 0)
    out = bytes([spec])
    if length is not None:
        out += struct.pack("!H", length)
    if garbage is not None:
        out += bytes([garbage])
    return out


def tx_ring_seeds():
    burst = lambda *frames: bytes([0, len(frames)]) + b"".join(frames)
    nic = lambda fetch, wb: bytes([3, fetch, wb])
    reclaim, idle, reset = bytes([6]), bytes([7]), bytes([9])
    hold = lambda n: bytes([8, n])
    free_all = bytes([8, 0x80])
    h_slot = lambda slot, status: bytes([10, slot]) + struct.pack("!I", status)
    h_unplaced = bytes([11])
    h_past = lambda k: bytes([12, k])
    h_early = lambda k: bytes([13, k])
    h_twice = lambda k: bytes([14, k])
    junk_wb = lambda n: bytes([15, n]) + bytes([0xfe, 0xff, 0xff, 0xff]) + b"\xa5" * 12
    small = tx_frame(0)
    steady = (burst(small, tx_frame(1), small, tx_frame(2, fwd=True)) + nic(4, 4) + reclaim
              + burst(tx_frame(length=300), small) + nic(2, 1) + idle + nic(0, 1) + reclaim) * 4
    lengths = (burst(tx_frame(3), tx_frame(4), small, tx_frame(5), tx_frame(6, fwd=True),
                     tx_frame(length=0), tx_frame(length=2049), tx_frame(length=2048),
                     tx_frame(0, fwd=True, garbage=0xff), tx_frame(1, garbage=0x01))
               + nic(16, 16) + idle)
    full = (burst(*[tx_frame(i % 3) for i in range(40)]) + nic(3, 2) + burst(small, small)
            + nic(16, 16) + burst(*[small] * 9) + nic(16, 16) + reclaim)
    lagging = (burst(*[small] * 6) + nic(6, 0) + reclaim + idle + nic(0, 2) + reclaim
               + junk_wb(3) + reclaim + nic(0, 16) + idle)
    hostile = (burst(*[small] * 5) + h_unplaced + reclaim + h_early(2) + reclaim
               + nic(3, 3) + h_twice(0) + idle + h_slot(4, 0xffffffff) + reclaim
               + h_past(5) + burst(small, small) + idle + h_slot(1, 0xfffffffe) + reset
               + burst(small) + nic(1, 1) + reclaim)
    reset_mid = (burst(*[tx_frame(0, fwd=bool(i % 2)) for i in range(6)]) + nic(4, 2) + reset
                 + burst(small, small) + nic(2, 2) + reclaim + reset + reset)
    starve = (hold(15) + burst(*[small] * 4) + nic(1, 1) + burst(small) + free_all
              + burst(*[small] * 4) + nic(8, 8) + idle)
    return {
        "steady_traffic_16": bytes([0x01 | (3 << 2)]) + steady,
        "hostile_lengths": bytes([0x01 | (3 << 2)]) + lengths,
        "ring_full_8": bytes([0x00 | (7 << 2)]) + full,
        "lagging_writeback": bytes([0x01 | (1 << 2)]) + lagging,
        "hostile_nic": bytes([0x00 | (3 << 2)]) + hostile,
        "reset_in_flight": bytes([0x01 | (6 << 2)]) + reset_mid,
        "small_pool_held": bytes([0x00 | (2 << 2)]) + starve,
        "big_ring": bytes([0x03 | (7 << 2)]) + steady + full,
    }


# --- fuzz_ixgbe_model: frames on the model's wires, hostile write-backs, passes ---------------

def ix_frame(port, kind, flow, extra=b"", bcast=False, patches=(), fix=False, mut=None):
    """One frame onto port's wire (ops 0-9, op & 1 the port): kind byte and its flags, flow, the
    kind's own bytes (extra), byte patches (offset, value), the write-back mutation (ix_mut)."""
    k = kind | (0x10 if bcast else 0) | (0x20 if patches else 0) | (0x40 if fix else 0)
    k |= 0x80 if mut is not None else 0
    out = bytes([port & 1, k, flow]) + extra
    if patches:
        out += bytes([len(patches) - 1])
        out += b"".join(struct.pack("!HB", at, v) for at, v in patches)
    return out + (mut if mut is not None else b"")


def ix_mut(length=0, value=0, no_eop=False, hold=False, errors=None, status=None, rss=None):
    """What the device writes back for that frame: length mode 0-7 (5-7 use value), EOP cleared,
    held back, error bits 31:16, status bits 17:2, RSS info and hash."""
    how = length | (0x08 if no_eop else 0) | (0x10 if hold else 0)
    how |= (0x20 if errors is not None else 0) | (0x40 if status is not None else 0)
    how |= 0x80 if rss is not None else 0
    out = bytes([how])
    if length >= 5:
        out += struct.pack("!H", value)
    if errors is not None:
        out += struct.pack("!H", errors)
    if status is not None:
        out += struct.pack("!H", status)
    if rss is not None:
        out += struct.pack("!II", *rss)
    return out


def ixgbe_model_seeds():
    passes = lambda rounds=1, mask=0: bytes([10, (rounds - 1) | mask << 4])
    deliver_rx = lambda n=0: bytes([11, n])
    hold_tx = lambda n, port, garbage=0: bytes([12, n | port << 7, garbage])
    deliver_tx, housekeeping = bytes([13]), bytes([15])
    stray = lambda port, q, length: bytes([14, q | port << 2]) + struct.pack("!H", length)
    fwd = b"".join(ix_frame(p, k, f) for p, k, f in
                   [(0, 0, 1), (0, 1, 2), (1, 0, 3), (0, 14, 40), (1, 1, 77), (0, 15, 200)])
    local = (ix_frame(0, 3, 5) + ix_frame(1, 3, 9) + passes(2) + ix_frame(0, 2, 6, b"\x10")
             + ix_frame(1, 2, 7, b"\x00") + ix_frame(0, 4, 11) + passes(2))
    drops = (ix_frame(0, 5, 1) + ix_frame(0, 6, 2) + ix_frame(1, 7, 3) + ix_frame(0, 10, 4)
             + ix_frame(1, 11, 5) + ix_frame(0, 12, 6) + ix_frame(1, 13, 7)
             + ix_frame(0, 9, 8, struct.pack("!H", 1500)) + ix_frame(0, 9, 9, struct.pack("!H", 200))
             + ix_frame(1, 8, 0, struct.pack("!H", 64) + bytes(range(58)))
             + ix_frame(0, 0, 10, bcast=True) + ix_frame(0, 1, 12, patches=[(22, 0x2f)], fix=True))
    lengths = b"".join(ix_frame(i % 2, 0, 16 + i, mut=ix_mut(length=i, value=60 + 300 * i))
                       for i in range(1, 8))
    status = (ix_frame(0, 0, 1, mut=ix_mut(no_eop=True)) + ix_frame(0, 0, 1)
              + ix_frame(1, 1, 2, mut=ix_mut(no_eop=True)) + ix_frame(1, 1, 2, mut=ix_mut(no_eop=True))
              + ix_frame(1, 1, 2) + ix_frame(0, 0, 3, mut=ix_mut(errors=0x0100))
              + ix_frame(0, 0, 4, mut=ix_mut(errors=0xc000, status=0x0008))
              + ix_frame(1, 1, 5, mut=ix_mut(status=0xffff, rss=(0x11, 0xdeadbeef)))
              + ix_frame(0, 2, 6, b"\x08", mut=ix_mut(rss=(0xffffffff, 0))) + passes(3))
    held = (ix_frame(0, 0, 1, mut=ix_mut(hold=True)) + ix_frame(0, 0, 1) + ix_frame(0, 0, 1)
            + passes(2) + ix_frame(1, 1, 9, mut=ix_mut(hold=True, no_eop=True))
            + ix_frame(1, 1, 9) + passes() + deliver_rx(1) + passes() + stray(0, 0, 60)
            + stray(1, 3, 0xffff) + ix_frame(0, 0, 2) + passes(2, 0x5) + hold_tx(4, 1, 0xfe)
            + ix_frame(0, 0, 7) + ix_frame(0, 1, 8) + passes(2) + ix_frame(0, 2, 6, b"\x00")
            + passes() + deliver_tx + housekeeping + passes(4, 0x2) + deliver_rx())
    return {
        "forwarding_both_ways": fwd + passes(2) + fwd + passes(8),
        "arp_and_echo": local,
        "router_drops_and_junk": drops + passes(4),
        "hostile_lengths": lengths + passes(2),
        "hostile_status_chains_rss": status,
        "held_stray_and_tx_writebacks": held,
    }


# --- fuzz_iperf3: a client's control stream, then UDP datagrams (apps/sink/iperf3_proto.c) ---------

IPERF3_COOKIE = b"zqmxz2dddltgcocuvjtnzygeopaom6k3ohvy\0"  # captured (protocol doc, B.1)


def iperf3_json(text):
    return struct.pack(">I", len(text)) + text


def iperf3_seed(params, max_streams=16, split=0, datagrams=b"", results=b'{"streams":[]}'):
    ctl = (IPERF3_COOKIE + iperf3_json(params) + bytes([4]) + iperf3_json(results) + bytes([16]))
    return bytes([max_streams - 1, split]) + struct.pack(">H", len(ctl)) + ctl + datagrams


def iperf3_dgram(seq, sec=840, usec=47000, size=40, c64=False):
    hdr = struct.pack(">II", sec, usec) + (struct.pack(">Q", seq) if c64 else struct.pack(">I", seq))
    body = hdr + bytes(size - len(hdr))
    return bytes([len(body)]) + body


def iperf3_seeds():
    tcp = (b'{"tcp":true,"omit":0,"time":2,"num":0,"blockcount":0,"parallel":1,"len":131072,'
           b'"pacing_timer":1000,"client_version":"3.12"}')
    udp = (b'{"udp":true,"omit":0,"time":2,"num":0,"blockcount":0,"parallel":1,"len":32768,'
           b'"bandwidth":10000000,"pacing_timer":1000,"client_version":"3.12"}')
    rev = (b'{"tcp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":2,"reverse":true,'
           b'"len":131072,"bandwidth":200000000,"pacing_timer":1000,"client_version":"3.12"}')
    udp64 = b'{"udp":true,"parallel":4,"len":1460,"udp_counters_64bit":1,"bandwidth":0}'
    results = (b'{"cpu_util_total":26.5,"cpu_util_user":0.52,"cpu_util_system":25.98,'
               b'"sender_has_retransmits":1,"congestion_used":"bbr","streams":[{"id":1,'
               b'"bytes":6250692608,"retransmits":0,"jitter":0,"errors":0,"packets":0,'
               b'"start_time":0,"end_time":2.00055}]}')
    lossy = b"".join(iperf3_dgram(s, usec=1000 * s) for s in (1, 2, 5, 3, 6, 4, 10))
    return {
        "tcp": iperf3_seed(tcp, results=results),
        "tcp_bytewise": iperf3_seed(tcp, split=1, results=results),
        "udp_lossy": iperf3_seed(udp, datagrams=lossy),
        "reverse_parallel": iperf3_seed(rev, split=7),
        "udp64_bound": iperf3_seed(udp64, max_streams=4,
                                   datagrams=iperf3_dgram(1 << 33, c64=True) + iperf3_dgram(7)),
        "bidir_tcp": iperf3_seed(b'{"tcp":true,"parallel":2,"bidirectional":true,"len":131072,'
                                 b'"get_server_output":1}', split=5),
        "bidir_udp": iperf3_seed(b'{"udp":true,"parallel":1,"bidirectional":true}'),
        "bad_cookie": bytes([15, 0, 0, 40]) + b"GET / HTTP/1.1\r\nHost: appliance\r\n\r\nxx",
    }


# --- fuzz_netperf_proto: byte 0 picks the piece size (value + 1); then the control stream ------

def netperf_msg(words, raw=b""):
    """A 656-byte netperf message: {offset: BE32 value} over zeros, then raw bytes at 160."""
    m = bytearray(656)
    for off, v in words.items():
        struct.pack_into("!I", m, off, v & 0xFFFFFFFF)
    m[160:160 + len(raw)] = raw
    return bytes(m)


def netperf_seeds():
    # DO_OMNI TCP_STREAM -l 2 as Debian's netperf sends it (protocol doc, Appendix A.1)
    base = {0: 97, 4: -1, 8: -1, 12: -1, 16: 8, 24: 2, 28: -1, 32: -1, 36: -1, 40: 8, 52: -1,
            56: 0x20, 64: 2, 76: -1, 80: -1, 84: -1, 92: 4, 96: 1, 100: 6, 104: 4, 108: 34873,
            152: -1, 156: -1}
    stream = netperf_msg(base)
    maerts = netperf_msg({**base, 104: 2})
    rr = netperf_msg({**base, 24: 1, 28: 1, 48: 1, 52: 1, 104: 6})
    udp = netperf_msg({**base, 24: 3329, 56: 0, 96: 2, 100: 17})
    udp_rr = netperf_msg({**base, 28: 1, 52: 1, 96: 2, 100: 17, 104: 6})
    again = netperf_msg({**base, 88: 39267})
    crr = netperf_msg({**base, 56: 0x24, 104: 6, 28: 1, 52: 1})
    conn_stream = netperf_msg({**base, 56: 0x24})  # a connection test that is not one
    udp_sent = netperf_msg({**base, 56: 0, 96: 2, 100: 17, 104: 2, 12: 1472})  # -d receive
    # DO_TCP_CC (classic, every word converted): -l 5, port 0, AF_INET, -C
    cc = netperf_msg({0: 300, 4: -1, 8: -1, 12: -1, 32: 1, 36: 1, 44: 1, 52: 5, 68: 4})
    return {
        "tcp_stream": b"\xff" + stream,
        "tcp_maerts_split_7": b"\x06" + maerts,
        "tcp_rr_then_udp_rr": b"\x63" + rr + udp_rr,
        "udp_stream_bytewise": b"\x00" + udp,
        "iterations_same_port": b"\xff" + stream + again + again[:100],
        "passphrase_then_omni": b"\x80" + netperf_msg({0: 6, 4: -1}, b"secret\0") + stream,
        "crr_and_unknown": b"\x20" + crr + netperf_msg({0: 12345}),
        "cc_classic_then_connect_stream": b"\x40" + cc + conn_stream,
        "udp_sent_by_server": b"\xff" + udp_sent,
    }


# --- fuzz_lwip: byte 0 opens connections (1 discard, 2 echo); then records ------------------

SINK_IP, CLIENT_IP = ip4("198.18.0.1"), ip4("198.18.0.2")
L_CORE = lambda c: c << 2          # datagram record: the core that hands it over
L_ADDR, L_CONN, L_ECHO, L_LEN = 0x10, 0x20, 0x40, 0x80


def tcp(src, dst, sport, dport, seq, ack, flags, data=b"", opts=b"", wnd=0xFFFF):
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, (5 + len(opts) // 4) << 4, flags,
                      wnd, 0, 0) + opts
    pseudo = src + dst + struct.pack("!BBH", 0, 6, len(hdr) + len(data))
    c = csum(pseudo + hdr + data)
    return hdr[:16] + struct.pack("!H", c) + hdr[18:] + data


def lwip_seeds():
    def dgram(op, ip):
        return bytes([op]) + struct.pack("!H", len(ip)) + ip

    def to_sink(proto, payload, frag=0x4000, ident=0x1c46):
        return ipv4(CLIENT_IP, SINK_IP, proto, payload, frag=frag, ident=ident)

    def conn_seg(seq_off, ack_off, flags, data=b"", opts=b"", echo=False, wnd=0xFFFF):
        # ports and numbers are rewritten by the harness (L_CONN): seq/ack are offsets
        seg = tcp(CLIENT_IP, SINK_IP, 0, 0, seq_off, ack_off, flags, data, opts, wnd=wnd)
        return dgram(L_CONN | L_LEN | (L_ECHO if echo else 0), to_sink(6, seg))

    client = lambda action, echo=False, core=0: bytes(
        [1 | action << 2 | core << 4 | (0x40 if echo else 0)])
    clock = lambda n: bytes([2, n])
    sink_pass = lambda mask=0xF: bytes([3 | mask << 2])
    syn_opts = b"\x02\x04\x05\xb4\x01\x03\x03\x07"  # MSS 1460, window scale 7
    syn = tcp(CLIENT_IP, SINK_IP, 40100, 9, 1000, 0, 0x02, opts=syn_opts)
    udp_data = bytes(range(256)) * 4  # 1000 bytes in two fragments of 504 bytes of UDP
    whole = udp(CLIENT_IP, SINK_IP, 40200, 7, udp_data[:1000])
    frag1 = to_sink(17, whole[:504], frag=0x2000, ident=7)
    frag2 = to_sink(17, whole[504:], frag=504 // 8, ident=7)
    ping = echo_request(ident=0x4242, seq=9, data=bytes(range(200)))  # 208 bytes of ICMP
    ping_frag1 = ipv4(CLIENT_IP, SINK_IP, 1, ping[:104], frag=0x2000, ident=8)
    ping_frag2 = ipv4(CLIENT_IP, SINK_IP, 1, ping[104:], frag=104 // 8, ident=8)
    hostile_opts = (b"\x02\x00"           # MSS with length 0
                    + b"\x03\x03\x0e"       # window scale 14
                    + b"\x04\x02"           # SACK permitted
                    + b"\x08\x0a" + b"\x00" * 8  # timestamps
                    + b"\x05\x06\x00\x00\x00\x00"  # SACK block cut short
                    + b"\xfe\x04\x01")      # unknown, length beyond the header
    hostile_opts += b"\x00" * (-len(hostile_opts) % 4)
    return {
        "syn_to_discard": bytes([0]) + dgram(L_CORE(1) | L_LEN, to_sink(6, syn)) + sink_pass()
        + clock(80),
        "discard_data_in_order": bytes([1]) + conn_seg(0, 0, 0x18, b"d" * 1000) + sink_pass()
        + conn_seg(1000, 0, 0x18, b"e" * 448) + sink_pass() + clock(6),
        "discard_out_of_order_then_fill": bytes([1]) + conn_seg(500, 0, 0x18, b"o" * 500)
        + sink_pass(0) + conn_seg(0, 0, 0x18, b"i" * 500) + sink_pass(),
        "echo_data_ack_fin": bytes([2]) + client(0, echo=True, core=2) + bytes([100])
        + sink_pass(0x3) + client(1, echo=True) + client(2, echo=True, core=3) + clock(10)
        + client(1, echo=True),
        "fin_then_timers": bytes([3]) + client(2) + sink_pass() + clock(255) + clock(255),
        # SYN on an established connection, in and out of order (lwIP 2.1.3 lacks upstream's
        # "tighten up checks for received SYN", bug #56397).
        "syn_in_established_ooseq": bytes([1]) + conn_seg(100, 0, 0x12, b"s" * 50)
        + conn_seg(0, 0, 0x12, b"t" * 120) + sink_pass() + conn_seg(0, 0, 0x12, b"u" * 80)
        + sink_pass(),
        "rst_in_window": bytes([1]) + conn_seg(0, 0, 0x04) + sink_pass(),
        "hostile_tcp_options": bytes([1]) + conn_seg(0, 0, 0x18, b"h" * 20, opts=hostile_opts)
        + sink_pass(),
        "udp_discard_and_echo": bytes([0])
        + dgram(L_CORE(2) | L_LEN, to_sink(17, udp(CLIENT_IP, SINK_IP, 40300, 9, b"x" * 64)))
        + dgram(L_CORE(3) | L_LEN, to_sink(17, udp(CLIENT_IP, SINK_IP, 40301, 7, b"y" * 64)))
        + sink_pass(),
        "udp_fragments_to_echo": bytes([0]) + dgram(L_CORE(1) | L_LEN, frag2)
        + dgram(L_CORE(2) | L_LEN, frag1) + sink_pass(),
        "fragment_never_completed": bytes([0]) + dgram(L_LEN, frag1) + clock(200),
        # Echoed and acknowledged, then data with a new sequence number and a zero window (a
        # window update needs one, RFC 793): the echo waits, probing, until the window opens.
        "echo_to_a_zero_window": bytes([2]) + conn_seg(0, 0, 0x18, b"v" * 10, echo=True)
        + sink_pass() + conn_seg(0, 0, 0x18, b"w" * 200, echo=True, wnd=0) + sink_pass()
        + clock(200) + clock(200) + conn_seg(0, 0, 0x10, echo=True) + sink_pass(),
        "icmp_echo_in_fragments": bytes([0]) + dgram(L_CORE(2) | L_LEN, ping_frag1)
        + dgram(L_CORE(2) | L_LEN, ping_frag2) + sink_pass(),
        "echo_data_then_ack": bytes([2]) + conn_seg(0, 0, 0x18, b"z" * 1400, echo=True)
        + conn_seg(1400, 0, 0x10, echo=True) + sink_pass() + clock(100),
        # Software receive offload (net/gro.h): a run in order, a gap, an overlap into it, a
        # PSH that ends a run; then scripted bulk segments without PSH, to discard and to echo.
        "gro_run_gap_overlap": bytes([1]) + conn_seg(0, 0, 0x10, b"a" * 300)
        + conn_seg(300, 0, 0x10, b"b" * 300) + conn_seg(600, 0, 0x10, b"c" * 300)
        + conn_seg(1000, 0, 0x10, b"d" * 200) + conn_seg(900, 0, 0x10, b"e" * 200)
        + conn_seg(1100, 0, 0x18, b"f" * 100) + conn_seg(1200, 0, 0x10, b"g" * 100)
        + sink_pass() + clock(10),
        "gro_scripted_bulk": bytes([3]) + bytes([0x81, 241]) * 24 + sink_pass()
        + bytes([0xc1, 241]) * 48 + sink_pass() + clock(10) + bytes([0xc5]) + sink_pass(),
    }


# --- fuzz_sink_services: records scripting clients of iperf3 and netperf over lwIP ------------

SV_CONNECT, SV_DATA, SV_FILLER, SV_CONTROL, SV_UDP, SV_CLOCK, SV_PASS, SV_HALF = range(8)
TO_IPERF3, TO_NETPERF, TO_DISCARD, TO_ECHO = 0, 1, 2, 3
TO_NEWEST = 4  # the listener (or UDP pcb) lwIP made last: the data port netperf just opened
SV_ACK, SV_FIN, SV_RST, SV_WINDOW, SV_VANISH, SV_DATA_FIN = range(6)


def sv(kind, slot=0, *rest):
    return bytes([kind | slot << 3, *rest])


def sv_data(slot, data):
    assert len(data) <= 4096
    return sv(SV_DATA, slot) + struct.pack(">H", len(data)) + data


def sv_udp(sport, dest, data):
    return sv(SV_UDP, sport, dest) + struct.pack(">H", len(data)) + data


def sv_clock_ms(ms):
    """Clock records for ms milliseconds (multiples of 50 ms, under 9.6 s each)."""
    out = b""
    while ms > 0:
        n = min(ms // 50, 191)
        out += sv(SV_CLOCK, 0, n)
        ms -= n * 50
    return out


SV_PASS_REC = sv(SV_PASS)


def sv_iperf3_seeds():
    cookie = IPERF3_COOKIE
    other = b"abcdefghijklmnopqrstuvwxyz234567abcd\0"
    tcp = (b'{"tcp":true,"omit":0,"time":2,"num":0,"blockcount":0,"parallel":1,"len":131072,'
           b'"pacing_timer":1000,"client_version":"3.12"}')
    udp = (b'{"udp":true,"omit":0,"time":2,"num":0,"blockcount":0,"parallel":1,"len":1460,'
           b'"bandwidth":1000000,"pacing_timer":1000,"client_version":"3.12"}')
    rev = (b'{"tcp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":2,"reverse":true,'
           b'"len":131072,"bandwidth":2000000,"pacing_timer":1000,"client_version":"3.12"}')
    udp_rev = (b'{"udp":true,"omit":0,"time":1,"parallel":1,"reverse":true,"len":1400,'
               b'"bandwidth":1000000,"client_version":"3.12"}')
    results = (b'{"cpu_util_total":26.5,"cpu_util_user":0.52,"cpu_util_system":25.98,'
               b'"sender_has_retransmits":1,"congestion_used":"bbr","streams":[{"id":1,'
               b'"bytes":6250692608,"retransmits":0,"jitter":0,"errors":0,"packets":0,'
               b'"start_time":0,"end_time":2.00055}]}')
    ctl, st1, st2 = 0, 1, 2

    def start(params, streams=(st1,)):
        out = (sv(SV_CONNECT, ctl, TO_IPERF3) + sv_data(ctl, cookie) + SV_PASS_REC
               + sv_data(ctl, iperf3_json(params)) + SV_PASS_REC)
        for st in streams:
            out += sv(SV_CONNECT, st, TO_IPERF3) + sv_data(st, cookie) + SV_PASS_REC
        return out

    def finish(streams=(st1,)):
        out = sv_data(ctl, b"\x04") + SV_PASS_REC + sv_data(ctl, iperf3_json(results))
        out += SV_PASS_REC + sv_data(ctl, b"\x10") + SV_PASS_REC
        for st in streams:
            out += sv(SV_CONTROL, st, SV_FIN)
        return out + sv(SV_CONTROL, ctl, SV_FIN) + sv_clock_ms(500)

    def dgram(seq, size=200):
        return sv_udp(1, TO_IPERF3, struct.pack(">III", 840, 1000 * seq, seq) + bytes(size - 12))

    hello = sv_udp(1, TO_IPERF3, b"\x39\x38\x37\x36")
    bulk = (sv(SV_FILLER, st1, 23) + SV_PASS_REC) * 3 + sv_clock_ms(1000)
    bytewise = (sv(SV_CONNECT, ctl, TO_IPERF3) + sv_data(ctl, cookie[:5]) + SV_PASS_REC
                + sv_data(ctl, cookie[5:36]) + SV_PASS_REC + sv_data(ctl, cookie[36:]
                + iperf3_json(tcp)[:2]) + SV_PASS_REC + sv_data(ctl, iperf3_json(tcp)[2:])
                + SV_PASS_REC + sv(SV_CONNECT, st1, TO_IPERF3) + sv_data(st1, cookie[:20])
                + sv_data(st1, cookie[20:] + bytes(300)) + SV_PASS_REC)
    def test_r(ctl_slot, streams, cookie_):
        params = b'{"tcp":true,"time":1,"parallel":%d,"reverse":true,"len":131072}' % len(streams)
        out = (sv(SV_CONNECT, ctl_slot, TO_IPERF3) + sv_data(ctl_slot, cookie_) + SV_PASS_REC
               + sv_data(ctl_slot, iperf3_json(params)) + SV_PASS_REC)
        return out + b"".join(sv(SV_CONNECT, st, TO_IPERF3) + sv_data(st, cookie_)
                              for st in streams) + SV_PASS_REC

    two_tests = (test_r(0, range(1, 17), cookie) + test_r(17, range(18, 32), other)
                 + sv_clock_ms(1000) + sv_data(0, b"\x04") + sv_data(17, b"\x0c") + SV_PASS_REC)
    return {
        # Every slot: two unpaced -R tests, 16 and 14 streams, each stream's send buffer
        # filled with referenced payload (lwIP's PBUF pool, 4096, runs out), one ended by
        # TEST_END, the other by CLIENT_TERMINATE.
        "iperf3_two_tests_30_streams": two_tests,
        "iperf3_tcp": start(tcp) + bulk + finish(),
        "iperf3_tcp_split": bytewise + bulk + finish(),
        "iperf3_udp": start(udp, ()) + hello + SV_PASS_REC + dgram(1) + dgram(2) + dgram(4)
        + dgram(3) + SV_PASS_REC + sv_clock_ms(1000) + dgram(5) + finish(()),
        "iperf3_reverse_parallel": start(rev, (st1, st2)) + sv_clock_ms(1000)
        + finish((st1, st2)),
        "iperf3_udp_reverse": start(udp_rev, ()) + hello + sv_clock_ms(1000) + finish(()),
        # Both test slots taken (sink.max_tests = 2), a third client turned away, a stream with
        # the wrong cookie, a client gone mid-params, another that never sends its cookie.
        "iperf3_busy_and_broken": start(tcp, ()) + sv(SV_CONNECT, 3, TO_IPERF3)
        + sv_data(3, other) + SV_PASS_REC + sv(SV_CONNECT, 4, TO_IPERF3) + SV_PASS_REC
        + sv_data(4, cookie[:10]) + sv(SV_CONNECT, 5, TO_IPERF3) + sv_data(5, other[::-1])
        + SV_PASS_REC + sv(SV_CONTROL, 3, SV_VANISH) + sv(SV_HALF, 6, TO_IPERF3)
        + sv_data(ctl, b"\x0c") + SV_PASS_REC + sv_clock_ms(11000)
        + sv(SV_CLOCK, 0, 195),
    }


# The DO_OMNI of Debian's `netperf -t TCP_STREAM -l 2` (protocol doc, Appendix A.1), by offset.
SV_OMNI = {0: 97, 4: -1, 8: -1, 12: -1, 16: 8, 24: 2, 28: -1, 32: -1, 36: -1, 40: 8, 52: -1,
           56: 0x20, 64: 2, 76: -1, 80: -1, 84: -1, 92: 4, 96: 1, 100: 6, 104: 4, 108: 34873,
           152: -1, 156: -1}


def sv_netperf_seeds():
    stream = netperf_msg({**SV_OMNI, 64: 1})
    maerts = netperf_msg({**SV_OMNI, 64: 1, 104: 2})
    rr = netperf_msg({**SV_OMNI, 64: 1, 24: 1, 28: 1, 48: 1, 52: 1, 104: 6})
    udp = netperf_msg({**SV_OMNI, 64: 1, 24: 3329, 56: 0, 96: 2, 100: 17})
    udp_rr = netperf_msg({**SV_OMNI, 64: 1, 28: 1, 52: 1, 96: 2, 100: 17, 104: 6})
    counted = netperf_msg({**SV_OMNI, 56: 0x28, 64: -5000})  # -l -5000 bytes, -C
    crr = netperf_msg({**SV_OMNI, 64: 1, 28: 1, 52: 1, 56: 0x24, 104: 6})
    cc = netperf_msg({0: 300, 4: -1, 52: -2, 68: 4})  # classic TCP_CC, -l -2 (transactions)
    # omni -d receive -T udp -l 1 -m ,1000: the sink sends to the client's port 40000
    udp_sent = netperf_msg({**SV_OMNI, 64: 1, 56: 0, 96: 2, 100: 17, 104: 2, 108: 40000,
                            12: 1000})
    ctl, data = 0, 1

    def ask(req):
        return sv(SV_CONNECT, ctl, TO_NETPERF) + sv_data(ctl, req) + SV_PASS_REC

    bye = SV_PASS_REC + sv(SV_CONTROL, ctl, SV_FIN) + sv_clock_ms(500)
    data_in = sv(SV_CONNECT, data, TO_NEWEST) + (sv(SV_FILLER, data, 40) + SV_PASS_REC) * 3
    return {
        "netperf_tcp_stream": ask(stream) + data_in + sv(SV_CONTROL, data, SV_DATA_FIN | 8 << 3)
        + bye,
        "netperf_tcp_maerts": ask(maerts) + sv(SV_CONNECT, data, TO_NEWEST)
        + sv_clock_ms(1200) + sv(SV_CONTROL, data, SV_FIN) + sv(SV_CONTROL, data, SV_RST)
        + bye,
        "netperf_tcp_rr": ask(rr) + sv(SV_CONNECT, data, TO_NEWEST)
        + (sv_data(data, b"q") + SV_PASS_REC) * 4 + sv_data(data, b"qq") + SV_PASS_REC
        + sv(SV_CONTROL, data, SV_FIN) + bye,
        "netperf_udp_stream": ask(udp) + b"".join(sv_udp(7, TO_NEWEST, bytes(64)) for _ in
                                                  range(4)) + SV_PASS_REC
        + sv_udp(7, TO_NEWEST, b"") * 3 + bye,
        "netperf_udp_rr_timeout": ask(udp_rr) + (sv_udp(7, TO_NEWEST, b"r") + SV_PASS_REC) * 3
        + sv_clock_ms(5500) + bye,
        # -i 2: two cycles on one control connection, the second after the first's results;
        # -l -5000 (counted) with -C.
        "netperf_iterations_counted": ask(counted) + data_in + sv(SV_CONTROL, data, SV_FIN)
        + SV_PASS_REC + sv_data(ctl, stream) + SV_PASS_REC + sv(SV_CONNECT, 2, TO_NEWEST)
        + sv(SV_FILLER, 2, 10) + sv(SV_CONTROL, 2, SV_FIN) + bye,
        # The next request sent before the test's end (kept, answered after the results).
        "netperf_request_during_test": ask(stream) + data_in + sv_data(ctl, stream)
        + SV_PASS_REC + sv(SV_CONTROL, data, SV_FIN) + SV_PASS_REC
        + sv(SV_CONNECT, 2, TO_NEWEST) + sv(SV_CONTROL, 2, SV_FIN) + bye,
        # TCP_MAERTS -l -3000: the sink sends 3000 bytes' worth of 16 KiB sends, then drains.
        "netperf_maerts_counted": ask(netperf_msg({**SV_OMNI, 64: -3000, 104: 2, 12: 1000}))
        + sv(SV_CONNECT, data, TO_NEWEST) + SV_PASS_REC * 3 + sv_clock_ms(500)
        + sv(SV_CONTROL, data, SV_FIN) + bye,
        # TCP_CRR: two connections of one request each (the sink answers and closes), a third
        # that the client closes first, then the pad timer; TCP_CC -l -2: two connections.
        "netperf_tcp_crr": ask(crr) + sv(SV_CONNECT, data, TO_NEWEST) + sv_data(data, b"q")
        + SV_PASS_REC + sv(SV_CONNECT, 2, TO_NEWEST) + sv_data(2, b"q") + SV_PASS_REC
        + sv(SV_CONNECT, 3, TO_NEWEST) + sv(SV_CONTROL, 3, SV_FIN) + sv_clock_ms(5500) + bye,
        "netperf_udp_sent": ask(udp_sent) + SV_PASS_REC * 4 + sv_clock_ms(1200) + bye,
        "netperf_tcp_cc_counted": ask(cc) + sv(SV_CONNECT, data, TO_NEWEST) + SV_PASS_REC
        + sv(SV_CONNECT, 2, TO_NEWEST) + SV_PASS_REC * 2 + bye,
        # A control connection that sends half a request and vanishes; a data connection to a
        # test's port that is not the first; the idle timeout of a session.
        "netperf_vanish_and_timeouts": ask(stream) + sv(SV_CONNECT, data, TO_NEWEST)
        + sv(SV_CONNECT, 2, TO_NEWEST) + sv(SV_CONNECT, 3, TO_NETPERF)
        + sv_data(3, stream[:300]) + sv(SV_CONTROL, 3, SV_VANISH) + sv(SV_CONNECT, 4, TO_NETPERF)
        + SV_PASS_REC + sv(SV_CLOCK, 0, 195) + sv(SV_CLOCK, 0, 195),
    }


def sink_services_seeds():
    basic = (sv(SV_CONNECT, 0, TO_ECHO) + sv_data(0, b"hello, echo") + SV_PASS_REC
             + sv(SV_CONNECT, 1, TO_DISCARD) + sv(SV_FILLER, 1, 30) + sv(SV_CONTROL, 1, SV_FIN)
             + sv_udp(2, TO_ECHO, b"ping") + sv_udp(3, TO_DISCARD, b"drop") + SV_PASS_REC
             + sv(SV_CONTROL, 0, SV_FIN) + sv_clock_ms(300))
    return {**sv_iperf3_seeds(), **sv_netperf_seeds(), "discard_and_echo": basic}


# --- fuzz_acpi: up to 8 tables, each kind, flags, body length, [length field], body -----------

def acpi_table(kind, body, bad_sum=False, length=None, dsdt32=False, x_dsdt=False):
    """One table of fuzz_acpi's input: kind (0 APIC, 1 MCFG, 2 HPET, 3 FACP, 4 SPCR, 5 DMAR,
    6 IVRS, 7 SRAT, 8 SLIT, 9 SSDT, 10 DSDT), flags, body length, [length field], body (the
    bytes after the 36-byte header). The lengths are big-endian, as the harness's fuzz_u16
    reads them. dsdt32 / x_dsdt (a FACP): its DSDT / X_DSDT field points at the next table."""
    flags = ((1 if bad_sum else 0) | (2 if length is not None else 0) | (4 if dsdt32 else 0) |
             (8 if x_dsdt else 0))
    head = struct.pack(">BBH", kind, flags, len(body))
    return head + (struct.pack(">H", length) if length is not None else b"") + body


def acpi_madt_body(ncpu, x2apic=False):
    """Local APIC address and flags, then ncpu processor entries and one I/O APIC."""
    b = struct.pack("<II", 0xFEE00000, 1)
    for i in range(ncpu):
        if x2apic:
            b += struct.pack("<BBHIII", 9, 16, 0, 300 + i, 1, i)
        else:
            b += struct.pack("<BBBBI", 0, 8, i, i, 1)
    return b + struct.pack("<BBBBII", 1, 12, 0, 0, 0xFEC00000, 0)


def acpi_fadt_body(pm_port=0x608, x_pm=0, ext=False):
    """FADT fields from offset 36 to 244: PM_TMR_BLK (76), PM_TMR_LEN (91), FLAGS (112),
    RESET_REG (116), X_PM_TMR_BLK (208), as QEMU's q35 has them."""
    b = bytearray(244 - 36)
    def put(off, fmt, *v):
        struct.pack_into(fmt, b, off - 36, *v)
    put(76, "<I", pm_port)
    b[91 - 36] = 4
    put(112, "<I", (1 << 10) | ((1 << 8) if ext else 0))
    put(116, "<BBBBQ", 1, 8, 0, 0, 0xCF9)
    b[128 - 36] = 6
    if x_pm:
        put(208, "<BBBBQ", 1, 32, 0, 3, x_pm)
    return bytes(b)


def acpi_seeds():
    mcfg = bytes(8) + struct.pack("<QHBBI", 0xB0000000, 0, 0, 255, 0)
    hpet = struct.pack("<I", 0x8086A201) + struct.pack("<BBBBQ", 0, 64, 0, 0, 0xFED00000) + \
        bytes(4)
    spcr = bytearray(80 - 36)
    struct.pack_into("<BxxxBBBBQ", spcr, 0, 0, 1, 8, 0, 1, 0x2F8)
    spcr[58 - 36] = 7
    q35 = (acpi_table(3, acpi_fadt_body()) + acpi_table(0, acpi_madt_body(4)) +
           acpi_table(2, hpet) + acpi_table(1, mcfg))
    return {
        "q35": q35,
        "q35_spcr_com2": q35 + acpi_table(4, bytes(spcr)),
        "x2apic_cpus": acpi_table(0, acpi_madt_body(6, x2apic=True)) + acpi_table(1, mcfg),
        "fadt_x_pm_timer": acpi_table(3, acpi_fadt_body(x_pm=0x1808, ext=True)) +
                           acpi_table(0, acpi_madt_body(1)),
        "iommus": q35 + acpi_table(5, bytes(12) + struct.pack("<HHBBHQ", 0, 16, 0, 0, 0,
                                                                   0xFED90000)) +
                  acpi_table(6, bytes(12) + struct.pack("<BBHHHQHH", 0x10, 0, 24, 0, 0,
                                                        0xFED80000, 0, 0) + bytes(4)),
        "lying_lengths": acpi_table(0, acpi_madt_body(2), length=4000) +
                         acpi_table(1, mcfg, length=20) + acpi_table(3, acpi_fadt_body(), True),
        # q35 with a pxb-pcie root on node 1: the FADT's X_DSDT names the DSDT after it, an
        # SSDT holds a CXL host bridge; and the same through the 32-bit DSDT field
        "q35_dsdt_ssdt": acpi_table(0, acpi_madt_body(2)) +
                         acpi_table(3, acpi_fadt_body(), x_dsdt=True) +
                         acpi_table(10, aml_qemu_pxb()) + acpi_table(9, aml_cxl()),
        "dsdt32": acpi_table(0, acpi_madt_body(1)) + acpi_table(3, acpi_fadt_body(), dsdt32=True) +
                  acpi_table(10, aml_methods()),
    }


# --- fuzz_aml: a definition block's AML (ACPI 6.5 §20), as after a DSDT's 36-byte header ------

def aml_pkg(body, nbytes=0):
    """§20.2.4 PkgLength (counting itself) then body; nbytes forces the encoding's size."""
    if not nbytes:
        n = len(body)
        nbytes = 1 if n + 1 <= 0x3F else 2 if n + 2 <= 0xFFF else 3 if n + 3 <= 0xFFFFF else 4
    total = len(body) + nbytes
    if nbytes == 1:
        return bytes([total]) + body
    return (bytes([(nbytes - 1) << 6 | (total & 0xF)]) +
            bytes((total >> (4 + 8 * i)) & 0xFF for i in range(nbytes - 1)) + body)


def aml_int(v, prefix=None):
    """Zero, One, or the narrowest of BytePrefix, WordPrefix, DWordPrefix, QWordPrefix."""
    widths = {0x0A: 1, 0x0B: 2, 0x0C: 4, 0x0E: 8}
    if prefix is None:
        if v <= 1:
            return bytes([v])
        prefix = next(p for p, w in widths.items() if v < 1 << (8 * w))
    return bytes([prefix]) + v.to_bytes(widths[prefix], "little")


def aml_eisa(pnp):
    """§19.6.35 EisaId("PNP0A08"): 3 letters of 5 bits and 4 hex digits, big-endian, as a
    DWordConst."""
    letters = (ord(pnp[0]) - 0x40) << 10 | (ord(pnp[1]) - 0x40) << 5 | (ord(pnp[2]) - 0x40)
    return b"\x0C" + struct.pack(">HH", letters, int(pnp[3:], 16))


def aml_str(text):
    return b"\x0D" + text.encode() + b"\x00"


def aml_name(seg, obj):
    return b"\x08" + seg.encode() + obj


def aml_method(seg, flags, body):
    return b"\x14" + aml_pkg(seg.encode() + bytes([flags]) + body)


def aml_device(name, body, nbytes=0):
    """Device(name): name is the NameString's bytes (prefixes allowed)."""
    return b"\x5B\x82" + aml_pkg((name.encode() if isinstance(name, str) else name) + body,
                                  nbytes)


def aml_scope(name, body):
    return b"\x10" + aml_pkg(name.encode() + body)


def aml_buffer(data):
    return b"\x11" + aml_pkg(aml_int(len(data), 0x0A) + data)


def aml_package(*items):
    return b"\x12" + aml_pkg(bytes([len(items)]) + b"".join(items))


def aml_osc():
    """Method(_OSC, 4) { CreateDWordField(Arg3, Zero, CDW1) If (LEqual(Arg0, uuid)) {
    Store(0x1F, CDW1) } Return(Arg3) }"""
    uuid = bytes.fromhex("5b4ddb33f71f1c40965774 41c03dd766")
    cond = b"\x93\x68" + aml_buffer(uuid) + b"\x70\x0A\x1FCDW1"
    return aml_method("_OSC", 4, b"\x8A\x6B\x00CDW1" + b"\xA0" + aml_pkg(cond) + b"\xA4\x6B")


def aml_crs(lo, hi):
    """A Word bus number range, an I/O port, the end tag (§6.4.3.5.3, §6.4.2.5, §6.4.2.9)."""
    return aml_name("_CRS", aml_buffer(
        struct.pack("<BHBBBHHHHH", 0x88, 13, 2, 0x0C, 0, 0, lo, hi, 0, hi - lo + 1) +
        bytes.fromhex("4701f80cf80c0108") + b"\x79\x00"))


def aml_pci_root(name, uid, bus=None, pxm=None, crs=(0, 0xFF), extra=b""):
    """A root as QEMU writes one (hw/i386/acpi-build.c): PCI0, or a pxb-pcie's PCxx."""
    body = aml_name("_UID", aml_int(uid))
    if bus is not None:
        body += aml_name("_BBN", aml_int(bus))
    body += aml_name("_HID", aml_eisa("PNP0A08")) + aml_name("_CID", aml_eisa("PNP0A03"))
    body += aml_osc()
    if pxm is not None:
        body += aml_name("_PXM", aml_int(pxm))
    body += aml_name("_PRT", aml_package(
        aml_package(aml_int(0xFFFF), aml_int(0), aml_int(0), aml_int(0x10)),
        aml_package(aml_int(0xFFFF), aml_int(1), aml_int(0), aml_int(0x11))))
    return aml_device(name, body + aml_crs(*crs) + extra)


def aml_qemu_pxb():
    """q35's PCI0 (with a child S00) and a pxb-pcie root on bus 0x80, node 1."""
    s00 = aml_device("S00_", aml_name("_ADR", aml_int(0)))
    return (aml_scope("\\_SB_", aml_pci_root("PCI0", 0, crs=(0, 0x7F), extra=s00)) +
            aml_scope("\\_SB_", aml_pci_root("PC80", 0x80, bus=0x80, pxm=1, crs=(0x80, 0xFF))))


def aml_cxl():
    """A CXL host bridge: _HID "ACPI0016", _CID Package { PNP0A08, PNP0A03 }; and a CXL device
    that is not one, with a _PXM of its own."""
    cxl0 = (aml_name("_HID", aml_str("ACPI0016")) +
            aml_name("_CID", aml_package(aml_eisa("PNP0A08"), aml_eisa("PNP0A03"))) +
            aml_name("_UID", aml_int(1)) + aml_name("_BBN", aml_int(0x35)) +
            aml_name("_PXM", aml_int(2)) + aml_crs(0x35, 0x3F))
    cxlm = aml_name("_HID", aml_str("ACPI0017")) + aml_name("_PXM", aml_int(3))
    return aml_scope("\\_SB_", aml_device("CXL0", cxl0) + aml_device("CXLM", cxlm))


def aml_methods():
    """_PXM and _BBN as methods: Return(constant), Return(Local0), an If; _SEG by width."""
    def ret(v):
        return b"\xA4" + aml_int(v)

    pc10 = (aml_name("_HID", aml_eisa("PNP0A08")) + aml_method("_PXM", 0, ret(2)) +
            aml_method("_BBN", 0, ret(0x10)) + aml_method("_SEG", 0, ret(1)))
    pc20 = (aml_name("_HID", aml_str("PNP0A03")) +
            aml_method("_PXM", 0, b"\x70\x0A\x03\x60\xA4\x60") +
            aml_method("_BBN", 0, b"\xA0" + aml_pkg(b"\x93\x68\x00\xA4\x0A\x20") + ret(0x21)) +
            aml_name("_SEG", aml_int(2, 0x0B)))
    pc30 = (aml_name("_HID", aml_eisa("PNP0A03")) + aml_name("_BBN", aml_int(0x30, 0x0C)) +
            aml_name("_PXM", aml_int(1 << 32)) + aml_name("_SEG", aml_int(3, 0x0E)))
    return aml_scope("\\_SB_", aml_device("PC10", pc10) + aml_device("PC20", pc20) +
                     aml_device("PC30", pc30))


def aml_seeds():
    child = aml_device("S08_", aml_name("_ADR", aml_int(0x10000)) + aml_name("_PXM", aml_int(3)))
    com1 = aml_device("COM1", aml_name("_HID", aml_eisa("PNP0501")) + aml_name("_PXM", aml_int(3)))
    trap = aml_name("_CRS", aml_buffer(aml_name("_PXM", aml_int(5))))
    names = b"".join(aml_device(n, aml_name("_HID", aml_eisa("PNP0A08")) +
                                aml_name("_PXM", aml_int(i)), nbytes=1 + i % 4)
                     for i, n in enumerate([b"\\PCI1", b"^^PCI2", b"\x2E_SB_PCI3",
                                            b"\x2F\x03_SB_PCI0PCI4"]))
    return {
        "qemu_pxb": aml_qemu_pxb(),
        "qemu_two_pxb": aml_scope("\\_SB_", aml_pci_root("PCI0", 0, crs=(0, 0x3F)) +
                                  aml_pci_root("PC40", 0x40, bus=0x40, pxm=0, crs=(0x40, 0x7F)) +
                                  aml_pci_root("PC80", 0x80, bus=0x80, pxm=1,
                                               crs=(0x80, 0xFF))),
        "cxl_cid_package": aml_cxl(),
        "method_pxm": aml_methods(),
        "child_and_traps": aml_scope("\\_SB_", aml_device(
            "PCI1", aml_name("_HID", aml_eisa("PNP0A08")) + child + trap) + com1),
        "name_strings_pkg_lengths": names,
    }


# --- fuzz_fib6: byte 0 max_routes, then operations ----------------------------------------------

def ip6(s):
    return ipaddress.IPv6Address(s).packed


def fib6_add(prefix, length, nh, op=None):
    if op is None:
        op = 0x40 if length < 8 else 0  # /0../7 need op & 0x40
    return bytes([op, 0]) + ip6(prefix) + bytes([length]) + struct.pack("!H", nh)


def fib6_del(prefix, length, op=0x82):
    return bytes([op, 0]) + ip6(prefix) + bytes([length])


def fib6_lookup(addr, off=0):
    return bytes([5 | off << 4, 0]) + ip6(addr)


def fib6_near(k, how, bits=0, off=0):
    return bytes([3 | off << 4, k, how]) + struct.pack("!I", bits)


def fib6_seeds():
    nested = [("::", 0), ("2000::", 3), ("2001::", 16), ("2001::", 17), ("2001:db8::", 32),
              ("2001:db8:1::", 48), ("2001:db8:1:2::", 64), ("2001:db8:1:2::", 127),
              ("2001:db8:1:2::1", 128)]
    all_lengths = (b"".join(fib6_add(p, n, i) for i, (p, n) in enumerate(nested))
                   + b"".join(fib6_near(k, h, 0x5a5a5a5a, k % 8) for k in range(9)
                              for h in range(6)))
    full = (fib6_add("2000::", 8, 1) + fib6_add("2001:db8::", 32, 2)
            + fib6_add("2001:db8::1", 128, 3) + fib6_add("2001:db8:1::", 48, 4)
            + fib6_add("2002::", 16, 5) + fib6_add("2001:db8::", 32, 9) + b"\x02\x00"
            + fib6_add("2002::", 16, 5) + fib6_lookup("2002::1") + fib6_lookup("2001:db8::1"))
    churn = (fib6_add("2a00:1450::", 32, 1) + fib6_add("2a00:1450:4001::", 48, 2)
             + fib6_add("2a00:1450:4001:800::", 56, 3) + fib6_add("2a00::", 12, 4)
             + b"\x02\x02" + fib6_near(0, 4, 0xffff) + b"\x02\x00" + fib6_lookup("2a00:1450::9")
             + fib6_add("2a00:1450:4001:800::", 56, 7) + b"\x07\x00\x01\x02"
             + fib6_near(1, 5, 77, 3) + b"\x02\x01" + fib6_lookup("2a00:1450:4001:800::1", 5))
    bad = (fib6_add("::", 129, 1) + fib6_add("2001:db8::1", 64, 1, op=0x80)
           + fib6_add("2001:db8::", 16, 1, op=0x80) + fib6_del("2001:db8::1", 64, op=0xc2)
           + fib6_del("2001:db8::", 32) + fib6_lookup("2001:db8::1"))
    # op 6, form 1 (one of the fixed /16s) and its 8 bytes, the length pick, next hop; without
    # op & 0x40 its /0 and /1 are /8 and /9 (a /0 writes all 65536 first-level entries, to add
    # and again to delete: nested_all_lengths holds the only one, to keep the fuzzer fast)
    boundary = (b"".join(bytes([6, 1 | (i % 4) << 2]) + bytes([i * 17 % 256] * 8)
                         + bytes([i, 0, i]) for i in range(12))
                + b"".join(fib6_near(k, 3, 0, k % 8) for k in range(12)))
    # 2 routes, 4 hash slots: /128s in and out, the runs wrap around the end
    wrap = b"".join(fib6_add("2001:db8::%x" % i, 128, i) + b"\x02\x00" for i in range(1, 12))
    wrap += fib6_add("2001:db8::1", 128, 1) + fib6_add("2001:db8::2", 128, 2) + b"\x02\x01"
    return {
        "nested_all_lengths": b"\x1f" + all_lengths,
        "full_table": b"\x03" + full,
        "add_del_replace": b"\x1f" + churn,
        "invalid_arguments": b"\x1f" + bad,
        "boundary_lengths": b"\x1f" + boundary,
        "small_hash_wraps": b"\x01" + wrap,
    }


# --- fuzz_tx_multi: frames of one, two and three descriptors (fuzz_tx_multi.c) -----------------
def tx_multi_seeds():
    plain, ext, tso, bad_tso = 0, 1, 2, 3
    burst = lambda *frames: bytes([0, len(frames)]) + b"".join(bytes([k, b]) for k, b in frames)
    nic = lambda n: bytes([2, n])
    reclaim, reset = bytes([4]), bytes([6])
    dd = lambda slot: bytes([5, slot])
    hold = lambda n: bytes([7, n])
    mixed = (burst((plain, 50), (ext, 100), (tso, 10), (tso, 200), (bad_tso, 5), (plain, 7))
             + nic(8) * 4 + reclaim + burst(*[(tso, i * 37 % 256) for i in range(8)]) + nic(8) * 6
             + reclaim + burst((ext, 3), (tso, 255), (plain, 0)) + nic(8) * 3 + reclaim)
    full = burst(*[(tso, i) for i in range(24)]) + nic(5) + reclaim + burst((tso, 9)) + nic(8) * 12
    hostile = (burst((tso, 1), (ext, 2), (tso, 3)) + dd(5) + reclaim + nic(3) + dd(1) + reclaim
               + burst((plain, 1), (tso, 4)) + reset + burst((tso, 5), (ext, 6)) + nic(8) + reclaim)
    starve = hold(30) + burst(*[(tso, i) for i in range(10)]) + nic(8) + hold(0x80) + reclaim
    # tagged (bit 2 of the kind byte, TCI 1 + b >> 3) and forwarded runs of one tag (op 1):
    # the tag's context kept across runs, rewritten after another tag, TSO and a reset
    tag = lambda kind, tci: kind | 4 | (tci - 1) << 3
    fwd = lambda tci, *lens: bytes([1, len(lens), tci - 1]) + bytes(lens)
    tagged = (burst((tag(plain, 5), 20), (tag(ext, 5), 30), (tag(tso, 9), 40), (plain, 1))
              + nic(8) * 2 + fwd(3, 10, 20, 30) + fwd(3, 40) + nic(8) * 2 + reclaim
              + fwd(4, 5, 6) + burst((tso, 7)) + fwd(4, 8, 9) + nic(8) * 3 + reclaim
              + reset + fwd(4, 1, 2) + nic(8) + reclaim)
    return {
        "tagged_and_forwarded_runs_32": bytes([1]) + tagged,
        "mixed_16": bytes([0]) + mixed,
        "ring_full_16": bytes([0]) + full,
        "hostile_dd_32": bytes([1]) + hostile,
        "held_buffers_64": bytes([2 | (1 << 2)]) + starve,
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus")
    sets = {
        "fuzz_net_local": net_local_seeds(),
        "fuzz_route": route_seeds(),
        "fuzz_fib": fib_seeds(),
        "fuzz_fib6": fib6_seeds(),
        "fuzz_console": console_seeds(),
        "fuzz_config": config_seeds(repo),
        "fuzz_rx_ring": rx_ring_seeds(),
        "fuzz_tx_ring": tx_ring_seeds(),
        "fuzz_tx_multi": tx_multi_seeds(),
        "fuzz_iperf3": iperf3_seeds(),
        "fuzz_netperf_proto": netperf_seeds(),
        "fuzz_lwip": lwip_seeds(),
        "fuzz_ixgbe_model": ixgbe_model_seeds(),
        "fuzz_sink_services": sink_services_seeds(),
        "fuzz_acpi": acpi_seeds(),
        "fuzz_aml": aml_seeds(),
    }
    for harness, seeds in sets.items():
        d = os.path.join(root, harness)
        os.makedirs(d, exist_ok=True)
        for name, data in seeds.items():
            assert len(data) < 2048, "%s/%s: %d bytes" % (harness, name, len(data))
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        print("%s: %d seeds" % (harness, len(seeds)))


if __name__ == "__main__":
    main()
