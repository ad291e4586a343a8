"""Forwarding in QEMU: router mode between two namespaces, wire mode as a bump in the wire
(issue: forwarding). 4 cores, two ports on taps: igb, and for @BOTH_NICS tests also the
project's emulated 82599."""
import json
import os
import re
import subprocess

import pytest

from netlab import BOTH_NICS, HOSTS, finish_lab, ns_run, port_queues, queue_sum, start_lab
from qemu import DEFAULT_ELF, ROOT, WIRE_ELF
from test_ports import raw_frames

FLOWCHECK = os.path.join(ROOT, "tests", "tools", "flowcheck.py")
VLANFRAMES = os.path.join(ROOT, "tests", "tools", "vlanframes.py")
CORES = 4


@pytest.fixture
def router(nic):
    lab = start_lab(nic, kernel=DEFAULT_ELF, smp=CORES)
    try:
        yield lab
    finally:
        finish_lab(lab)


def flows_through(lab, src_port, dst_port, src_ip, dst_ip, flows, per_flow, pps=2000):
    """Send numbered datagrams from one namespace to the other; return the receiver's report."""
    n = flows * per_flow
    rx = subprocess.Popen(["ip", "netns", "exec", lab.nss[dst_port], "python3", FLOWCHECK,
                           "recv", dst_ip, "5001", str(n), "--idle", "3"],
                          stdout=subprocess.PIPE, text=True)
    assert json.loads(rx.stdout.readline())["ready"]
    sent = json.loads(ns_run(lab.nss[src_port], "python3", FLOWCHECK, "send", src_ip, dst_ip,
                             "5001", str(flows), str(per_flow), "--pps", str(pps),
                             timeout=300).stdout)
    report = json.loads(rx.stdout.readline())
    rx.wait(timeout=30)
    report["sent"] = sent["sent"]
    return report


@BOTH_NICS
def test_router_forwards_both_ways_in_order_with_ttl_decremented(router):
    lab = router
    # first packets resolve the next hops (counted arp_unresolved drops), then all pass
    for port, other in ((0, 1), (1, 0)):
        r = lab.ping(port, dst=HOSTS[other][0], count=5)
        assert re.search(r"ttl=63", r.stdout), r.stdout  # one router hop
    for src, dst in ((0, 1), (1, 0)):
        rep = flows_through(lab, src, dst, HOSTS[src][0], HOSTS[dst][0], flows=32, per_flow=30)
        assert rep["received"] == rep["sent"] == 960, rep
        assert rep["reordered"] == 0 and rep["duplicates"] == 0 and rep["missing"] == 0, rep
        assert rep["ttls"] == {"63": 960}, rep  # decremented once; the kernel checked checksums
    st = lab.stats()
    # forwarded frames are counted again when the egress NIC reports them sent
    assert queue_sum(st, 1, "tx_forwarded") == queue_sum(st, 0, "fwd_forwarded")
    assert queue_sum(st, 0, "tx_forwarded") == queue_sum(st, 1, "fwd_forwarded")
    for port in (0, 1):
        fwd = [q["fwd_forwarded"] for q in port_queues(st, port)]
        assert sum(fwd) >= 960 and all(n > 0 for n in fwd), fwd  # spread over every core
        for q in port_queues(st, port):
            check_forward_conservation(q)


def check_forward_conservation(q):
    local = (q["arp_requests_answered"] + q["icmp_echo_answered"] + q["arp_replies_learned"] +
             q["arp_gratuitous_learned"] + q["ip_passed"] + q["ip_to_sink"] +
                q["no_address"] + q["vlan_unknown"] + q["vlan_truncated"] +
             sum(v for k, v in q.items() if k.startswith("drop_")))
    # IPv6's local stack: every frame it sees ends in one of these, ip6_passed ones are routed
    # on and end again in a fwd_ or route6_ counter below, so they are not added here
    local6 = (q["ns_answered"] + q["echo6_answered"] + q["na_learned"] + q["rs_reported"] +
              q["ip6_to_sink"] + q["no_address6"] +
              sum(v for k, v in q.items() if k.startswith("drop6_")))
    fwd = (q["fwd_forwarded"] + q["fwd_no_route"] + q["fwd_arp_unresolved"] +
           q["fwd_nd_unresolved"] + q["fwd_pkt_too_big"] +
           q["fwd_dst_directed_broadcast"] + q["fwd_dst_other_port_address"] +
           q["fwd_egress_no_queue"] + q["fwd_egress_link_down"] + q["fwd_wire_no_peer"] +
           q["fwd_frag_needed"] + q["fwd_fragmented"] + q["fwd_frag_failed"])
    route = sum(v for k, v in q.items() if k.startswith("route_") and not
                k.startswith("route_icmp_"))
    route6 = sum(v for k, v in q.items() if k.startswith("route6_") and not
                 k.startswith("route6_icmp6_"))
    assert q["rx_packets"] == local + local6 + fwd + route + route6, q


def test_longest_prefix_wins(router):
    lab = router
    # default.conf: 198.51.100.0/24 via 198.19.0.2 (port1), 198.51.100.128/25 via 198.18.0.2
    ns_run(lab.nss[1], "ip", "addr", "add", "198.51.100.10/32", "dev", lab.taps[1])
    ns_run(lab.nss[0], "ip", "addr", "add", "198.51.100.200/32", "dev", lab.taps[0])
    r = lab.ping(0, dst="198.51.100.10", count=5)  # the /24: out of port1
    assert re.search(r"bytes from 198\.51\.100\.10: .*ttl=63", r.stdout), r.stdout
    r = lab.ping(1, dst="198.51.100.200", count=5)  # inside the /25: out of port0
    assert re.search(r"bytes from 198\.51\.100\.200: .*ttl=63", r.stdout), r.stdout
    lab.guest.command("routes", r"^198\.51\.100\.128/25\s+198\.18\.0\.2\s+port0$")


def test_unroutable_and_ttl_expired_get_icmp_and_counted(router):
    lab = router
    r = lab.ping(0, dst="203.0.113.1", count=2)
    assert "From 198.18.0.1 icmp_seq=1 Destination Net Unreachable" in r.stdout, r.stdout
    r = lab.ping(0, dst=HOSTS[1][0], count=2, ttl=1)
    assert "From 198.18.0.1 icmp_seq=1 Time to live exceeded" in r.stdout, r.stdout
    st = lab.stats()
    assert queue_sum(st, 0, "fwd_no_route") == 2
    assert queue_sum(st, 0, "route_ttl_expired") == 2
    assert queue_sum(st, 0, "fwd_icmp_errors_sent") == 4


def test_malformed_ipv4_dropped_and_forwarding_continues(router):
    lab = router
    lab.ping(0, dst=HOSTS[1][0], count=2)  # resolves the next hop (first echo may be dropped)
    assert " 0% packet loss" in lab.ping(0, dst=HOSTS[1][0], count=3).stdout
    mac = ns_run(lab.nss[0], "cat", f"/sys/class/net/{lab.taps[0]}/address").stdout.strip()
    dut = re.search(r"lladdr (\S+)", ns_run(lab.nss[0], "ip", "neigh", "show",
                                             HOSTS[0][1]).stdout).group(1)
    frames = raw_frames(bytes.fromhex(dut.replace(":", "")), bytes.fromhex(mac.replace(":", "")),
                        HOSTS[0][0], HOSTS[1][0])  # to the far host: the router's checks
    before = lab.stats()
    code = ("import socket,sys\n"
            f"s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)\n"
            f"s.bind(('{lab.taps[0]}', 0))\n"
            "for h in sys.argv[1:]:\n"
            "    for i in range(5):\n"
            "        s.send(bytes.fromhex(h))\n")
    ns_run(lab.nss[0], "python3", "-c", code, *[frames[k].hex() for k in
                                                  ("bad_ihl", "bad_checksum",
                                                   "bad_total_length")])
    r = lab.ping(0, dst=HOSTS[1][0], count=3)
    assert " 0% packet loss" in r.stdout, r.stdout
    after = lab.stats()
    delta = lambda k: queue_sum(after, 0, k) - queue_sum(before, 0, k)
    assert delta("route_ip_bad_ihl") == 5
    assert delta("route_ip_bad_checksum") == 5
    assert delta("route_ip_bad_total_length") == 5


@pytest.fixture
def wire(nic):
    # a bump in the wire: both hosts on one subnet, the appliance has no address
    hosts = [("198.18.0.2", None), ("198.18.0.3", None)]
    lab = start_lab(nic, kernel=WIRE_ELF, smp=CORES, hosts=hosts, gateways=False)
    try:
        assert lab.ready.group(2) == "2"
        yield lab
    finally:
        finish_lab(lab)


@BOTH_NICS
def test_wire_mode_delivers_every_frame_in_order(wire):
    lab = wire
    r = lab.ping(0, dst="198.18.0.3", count=3)
    assert " 0% packet loss" in r.stdout, r.stdout
    before = lab.stats()
    rep = flows_through(lab, 0, 1, "198.18.0.2", "198.18.0.3", flows=64, per_flow=20)
    assert rep["received"] == rep["sent"] == 1280, rep
    assert rep["reordered"] == 0 and rep["duplicates"] == 0 and rep["missing"] == 0, rep
    assert rep["ttls"] == {"64": 1280}, rep  # a wire does not route
    after = lab.stats()
    fwd = [a["fwd_forwarded"] - b["fwd_forwarded"]
           for a, b in zip(port_queues(after, 0), port_queues(before, 0))]
    assert sum(fwd) >= 1280 and all(n > 0 for n in fwd), fwd
    for port in (0, 1):
        for q in port_queues(after, port):
            check_forward_conservation(q)
    # every forwarded frame was transmitted (completion counted on the egress port)
    assert queue_sum(after, 1, "tx_forwarded") == queue_sum(after, 0, "fwd_forwarded")
    assert queue_sum(after, 0, "tx_forwarded") == queue_sum(after, 1, "fwd_forwarded")



@BOTH_NICS
def test_wire_mode_passes_vlan_tags_through(wire):
    """802.1Q in wire mode: tagged frames cross untouched, tag and ID included, both ways:
    port0's host sends 50 frames each on VLANs 100 and 200 (tools/vlanframes.py, the sent ID
    in each payload), port1's host must receive every one with the tag it was sent with; then
    the other way."""
    lab = wire
    for src, dst in ((0, 1), (1, 0)):
        rx = subprocess.Popen(["ip", "netns", "exec", lab.nss[dst], "python3", VLANFRAMES,
                               "recv", lab.taps[dst], "6"], stdout=subprocess.PIPE, text=True)
        assert json.loads(rx.stdout.readline())["ready"]
        ns_run(lab.nss[src], "python3", VLANFRAMES, "send", lab.taps[src], "100,200", "50")
        report = json.loads(rx.stdout.readline())
        rx.wait(timeout=30)
        assert report == {"frames": {"100": 50, "200": 50}, "mistagged": 0}, report
    after = lab.stats()
    for port in (0, 1):
        for q in port_queues(after, port):
            check_forward_conservation(q)
