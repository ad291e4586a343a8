"""IPv6 through the router and to its addresses (issue: the router a network engineer expects).
config/test.conf: port0 2001:db8:18::1/64 (MTU 1500), port1 2001:db8:19::1/64 (MTU 1280); the
hosts are 2001:db8:18::2 and 2001:db8:19::2 with default routes through the appliance. Neighbour
discovery resolves both ways (the appliance answers solicitations for its addresses and asks
for the hosts'), echo is answered on the global and the link-local addresses, the hop limit is
lowered once per hop, an expiring hop limit gets time exceeded, and a packet larger than
port1's MTU gets packet too big with 1280 (the source then fragments, and the fragments cross).
At every link-up the appliance runs duplicate address detection on its addresses: a host that
holds one of them answers, and that is reported with the host's MAC."""
import re
import time

import pytest

from netlab import BOTH_NICS, HOSTS6, finish_lab, ns_run, port_queues, queue_sum, start_lab
from qemu import TEST_ELF
from test_forward import check_forward_conservation

MTU1 = 1280  # config/test.conf port1.mtu


@pytest.fixture
def router6(nic):
    lab = start_lab(nic, kernel=TEST_ELF, smp=2, ipv6=True)
    try:
        yield lab
    finally:
        finish_lab(lab)


def link_local(lab, port):
    """The appliance's link-local address on port, as its boot lines say."""
    m = re.search(rf"port{port}: address6 \S+, link-local (fe80::\S+)", lab.guest.text())
    assert m, lab.guest.text()
    return m.group(1)


def ping6(lab, port, dst, count=3, extra=()):
    return lab.ping(port, dst=dst, count=count, extra=extra)


def resolve_both_ways(lab):
    """A few pings each way: the first of each direction may die unresolved (counted
    nd_unresolved) while the appliance solicits the host."""
    for port, other in ((0, 1), (1, 0)):
        ping6(lab, port, HOSTS6[other][0], count=3)


@BOTH_NICS
def test_echo_on_every_address_and_forwarding_both_ways(router6):
    lab = router6
    for port in (0, 1):
        host, ours = HOSTS6[port]
        r = ping6(lab, port, ours)
        assert " 0% packet loss" in r.stdout and "ttl=64" in r.stdout, r.stdout
        r = ping6(lab, port, f"{link_local(lab, port)}%{lab.taps[port]}")
        assert " 0% packet loss" in r.stdout, r.stdout
        r = ping6(lab, port, HOSTS6[1 - port][1])  # the other port's address, answered here
        assert " 0% packet loss" in r.stdout, r.stdout
    resolve_both_ways(lab)
    for port, other in ((0, 1), (1, 0)):
        r = ping6(lab, port, HOSTS6[other][0], count=10)
        assert " 0% packet loss" in r.stdout, r.stdout
        assert re.search(r"ttl=63", r.stdout), r.stdout  # the hop limit, lowered once

    lab.guest.send("nd\r")
    nd = lab.guest.expect(r"nd\r?\n((?:.*\n)*?)wirespeed> ", 10).group(1)
    for port in (0, 1):
        row = re.search(rf"^{re.escape(HOSTS6[port][0])} +- +[0-9a-f:]{{17}} +(\w+)", nd, re.M)
        assert row and row.group(1) in ("reachable", "stale", "probe"), nd
    lab.guest.send("routes\r")
    routes = lab.guest.expect(r"routes\r?\n((?:.*\n)*?)wirespeed> ", 10).group(1)
    assert re.search(r"^2001:db8:19::/64 +connected +port1", routes, re.M), routes

    st = lab.stats()
    assert queue_sum(st, 0, "fwd_forwarded") >= 10 and queue_sum(st, 1, "fwd_forwarded") >= 10
    assert queue_sum(st, 0, "ns_answered") >= 1 and queue_sum(st, 0, "echo6_answered") >= 6
    for port in (0, 1):
        for q in port_queues(st, port):
            check_forward_conservation(q)


@BOTH_NICS
def test_hop_limit_expiry_and_traceroute6(router6):
    lab = router6
    resolve_both_ways(lab)
    r = ping6(lab, 0, HOSTS6[1][0], count=2, extra=["-t", "1"])
    assert re.search(rf"From {re.escape(HOSTS6[0][1])} .*Time exceeded: Hop limit", r.stdout), \
        r.stdout
    r = ns_run(lab.nss[0], "traceroute6", "-n", "-q", "1", "-w", "2", "-m", "4", HOSTS6[1][0],
               check=False, timeout=60)
    hops = re.findall(r"^\s*(\d+)\s+(\S+)", r.stdout, re.M)
    assert hops[:2] == [("1", HOSTS6[0][1]), ("2", HOSTS6[1][0])], r.stdout
    st = lab.stats()
    assert queue_sum(st, 0, "route6_hop_limit_expired") >= 2, st
    assert queue_sum(st, 0, "fwd_icmp_errors_sent") >= 2, st


@BOTH_NICS
def test_larger_than_egress_mtu_gets_packet_too_big(router6):
    lab = router6
    resolve_both_ways(lab)
    size = 1500 - 40 - 8  # a 1500-byte IPv6 packet, too big for port1's 1280
    r = ping6(lab, 0, HOSTS6[1][0], count=1, extra=["-s", str(size), "-M", "do"])
    assert re.search(rf"From {re.escape(HOSTS6[0][1])} .*Packet too big: mtu={MTU1}", r.stdout), \
        r.stdout
    # the host now knows the path MTU and fragments; the router forwards fragments as they are
    r = ping6(lab, 0, HOSTS6[1][0], count=3, extra=["-s", str(size)])
    assert " 0% packet loss" in r.stdout, r.stdout
    st = lab.stats()
    assert queue_sum(st, 0, "fwd_pkt_too_big") >= 1, st
    for q in port_queues(st, 0):
        check_forward_conservation(q)


@BOTH_NICS
def test_duplicate_address_reported_at_link_up(router6):
    """port0's host takes the appliance's address as well (nodad: it does not detect it
    itself) and the link flaps: the appliance's detection at the new link-up meets the host's
    advertisement. Reported with the host's MAC, counted, shown as duplicate; port1 is clean."""
    lab = router6
    lab.wait_links()
    ours, tap, ns = HOSTS6[0][1], lab.taps[0], lab.nss[0]
    ns_run(ns, "ip", "-6", "addr", "add", f"{ours}/64", "dev", tap, "nodad")
    host_mac = ns_run(ns, "cat", f"/sys/class/net/{tap}/address").stdout.strip()
    lab.monitor_cmd("set_link n0 off")
    time.sleep(0.2)
    lab.monitor_cmd("set_link n0 on")
    m = lab.guest.expect(rf"port0: address6 {re.escape(ours)} is also used by ([0-9a-f:]{{17}}) "
                         r"\(duplicate address detection failed, RFC 4862 5\.4\.5\)", 30)
    assert m.group(1) == host_mac, m.group(0)
    st = lab.stats()
    p0, p1 = st["ports"][0], st["ports"][1]
    assert p0["dad6"] == "duplicate" and p0["dad6_conflicts"] >= 1, p0
    assert p0["dad6_probes_sent"] >= 4, p0  # both addresses, at boot and at the new link-up
    assert p1["dad6"] == "done" and p1["dad6_conflicts"] == 0 and p1["dad6_probes_sent"] >= 2, p1
    assert queue_sum(st, 0, "drop6_dad_conflict") >= 1, st


@BOTH_NICS
def test_ipv6_flows_spread_over_cores_and_nd_reaches_core_0(router6):
    """RSS hashes IPv6 (addresses, and TCP/UDP ports): eight sources behind port0 pinging
    port1's host spread over both cores, and so do the neighbour advertisements that answer the
    appliance's solicitations for them. What a core other than 0 learns is posted to core 0,
    the neighbour cache's writer (net/nd_relay.h, nd_relayed), and every ping is answered: a
    report lost on the way would leave its source unresolved."""
    lab = router6
    resolve_both_ways(lab)
    sources = [f"2001:db8:18::{0x10 + i:x}" for i in range(8)]
    for a in sources:
        ns_run(lab.nss[0], "ip", "-6", "addr", "add", f"{a}/64", "dev", lab.taps[0], "nodad")
    for a in sources:  # the first pings of a source may die while it is resolved
        ping6(lab, 0, HOSTS6[1][0], count=3, extra=["-I", a])
    for a in sources:
        r = ping6(lab, 0, HOSTS6[1][0], count=5, extra=["-I", a])
        assert " 0% packet loss" in r.stdout, (a, r.stdout)
    st = lab.stats()
    fwd = [q["fwd_forwarded"] for q in port_queues(st, 0)]
    assert len(fwd) == 2 and all(n > 0 for n in fwd), f"forwarded per core: {fwd}"
    relayed = queue_sum(st, 0, "nd_relayed") + queue_sum(st, 1, "nd_relayed")
    assert relayed > 0 and queue_sum(st, 0, "nd_relay_full") == 0, relayed
    assert [q["nd_relayed"] for q in port_queues(st, 0)][0] == 0  # core 0 applies its own
