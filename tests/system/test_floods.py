"""Floods and hostile peers (issue 10), each while a forwarding stream crosses the router and
must arrive whole: an ARP flood from many senders on both wires (the neighbour table stays
bounded and keeps the next hop in use), ARP poisoning attempts (no takeover of the appliance's
own address, none of a neighbour from another port's wire), ICMP echo to broadcast addresses
(dropped, never answered). Every hostile frame is accounted for by a counter. 4 cores, igb."""
import json
import os
import re
import subprocess
import time

import pytest

from netlab import HOSTS, Lab, ns_run, port_queues, queue_sum
from qemu import DEFAULT_ELF, ROOT
from test_forward import check_forward_conservation

FLOWCHECK = os.path.join(ROOT, "tests", "tools", "flowcheck.py")
FLOOD = os.path.join(ROOT, "tests", "tools", "flood.py")
NETS = ["198.18.0", "198.19.0"]


@pytest.fixture(scope="module")
def lab():
    lab = Lab(kernel=DEFAULT_ELF, smp=4)
    try:
        lab.guest.wait_ready()
        lab.wait_links()
        for port, other in ((0, 1), (1, 0)):  # both hosts and next hops known both ways
            lab.ping(port, dst=HOSTS[other][0], count=2)
        for port in (0, 1):
            pin_gateway(lab, port)
        yield lab
    finally:
        lab.close()


def mac_of(lab, port, ip):
    """The MAC the host on port's wire has for ip (after a ping it is resolved)."""
    out = ns_run(lab.nss[port], "ip", "neigh", "show", ip).stdout
    return re.search(r"lladdr (\S+)", out).group(1)


def pin_gateway(lab, port):
    """Make the host's entry for the appliance permanent: its kernel then sends no ARP of its
    own during a test, and every ARP the appliance counts is one the test sent."""
    ns_run(lab.nss[port], "ip", "neigh", "replace", HOSTS[port][1], "lladdr",
           mac_of(lab, port, HOSTS[port][1]), "dev", lab.taps[port], "nud", "permanent")


def own_mac(lab, port):
    return ns_run(lab.nss[port], "cat",
                  f"/sys/class/net/{lab.taps[port]}/address").stdout.strip()


def arp_table(lab):
    """`arp` as {ip: mac}."""
    lab.guest.send("arp\r")
    lab.guest.expect(r"^address\s+mac\s+state\s+age_ms$", 20)
    end = lab.guest.expect(r"wirespeed> ", 20)
    text = lab.guest.text()[:end.start()]
    rows = text[text.rfind("age_ms\n"):].splitlines()[1:]
    return dict(r.split()[:2] for r in rows if r.strip())


def flood_cmd(lab, port, kind, count, pps, **kw):
    args = ["ip", "netns", "exec", lab.nss[port], "python3", FLOOD, lab.taps[port], kind,
            str(count), str(pps), "--dut-ip", HOSTS[port][1], "--dut-mac",
            mac_of(lab, port, HOSTS[port][1]), "--net", NETS[port]]
    for k, v in kw.items():
        args += [f"--{k.replace('_', '-')}", str(v)]
    return args


def stream_during(lab, floods, flows=16, per_flow=200, pps=1000):
    """Host A streams to host B (flowcheck) while the flood commands run; returns the stream's
    report and each flood's report."""
    n = flows * per_flow
    rx = subprocess.Popen(["ip", "netns", "exec", lab.nss[1], "python3", FLOWCHECK, "recv",
                           HOSTS[1][0], "5001", str(n), "--idle", "3"],
                          stdout=subprocess.PIPE, text=True)
    assert json.loads(rx.stdout.readline())["ready"]
    tx = subprocess.Popen(["ip", "netns", "exec", lab.nss[0], "python3", FLOWCHECK, "send",
                           HOSTS[0][0], HOSTS[1][0], "5001", str(flows), str(per_flow),
                           "--pps", str(pps)], stdout=subprocess.PIPE, text=True)
    time.sleep(0.3)
    fl = [subprocess.Popen(f, stdout=subprocess.PIPE, text=True) for f in floods]
    reports = [json.loads(p.communicate(timeout=120)[0]) for p in fl]
    sent = json.loads(tx.communicate(timeout=120)[0])
    report = json.loads(rx.stdout.readline())
    rx.wait(timeout=30)
    report["sent"] = sent["sent"]
    assert report["received"] == report["sent"] == n, report  # the stream arrived whole
    assert report["reordered"] == 0 and report["duplicates"] == 0, report
    return report, reports


def delta(before, after, port, key):
    return queue_sum(after, port, key) - queue_sum(before, port, key)


def check_after(lab, st):
    for port in (0, 1):
        for q in port_queues(st, port):
            check_forward_conservation(q)
    for port, other in ((0, 1), (1, 0)):
        assert " 0% packet loss" in lab.ping(port, count=2).stdout
        assert " 0% packet loss" in lab.ping(port, dst=HOSTS[other][0], count=2).stdout


def test_arp_flood_table_bounded_next_hop_kept(lab):
    """3000 ARP frames on each wire from ~500 subnet addresses and 2000 off-subnet ones, each
    sender with its own MAC: every request for the appliance is answered, announcements are
    learned, off-subnet senders never are; the table stays at most 256 entries, and the next hop
    the stream uses is never the one replaced."""
    b_mac = own_mac(lab, 1)
    before = lab.stats()
    rep, floods = stream_during(lab, [flood_cmd(lab, 0, "arp", 3000, 1500, seed=1),
                                      flood_cmd(lab, 1, "arp", 3000, 1500, seed=2)])
    time.sleep(1)
    after = lab.stats()
    for port, f in ((0, floods[0]), (1, floods[1])):
        k = f["by_kind"]
        assert delta(before, after, port, "arp_requests_answered") == \
            k["request_subnet"] + k["request_off_subnet"], (port, k)
        assert delta(before, after, port, "arp_gratuitous_learned") == k["announcement"], port
    nb, na = before["neigh"], after["neigh"]
    assert na["entries"] <= 256, na
    assert na["replaced_oldest"] > nb["replaced_oldest"], na  # the table was full and churned
    assert na["replaced_in_use"] == nb["replaced_in_use"] == 0, na
    table = arp_table(lab)
    assert len(table) == na["entries"], (len(table), na)
    assert table.get(HOSTS[1][0]) == b_mac, table.get(HOSTS[1][0])  # the next hop survived
    assert not any(ip.startswith("10.") for ip in table), "off-subnet sender learned"
    check_after(lab, after)
    print(f"ARP flood: {floods[0]['sent'] + floods[1]['sent']} frames; table {na['entries']} "
          f"entries, {na['replaced_oldest'] - nb['replaced_oldest']} replaced, next hop kept; "
          f"stream {rep['received']} of {rep['sent']}")


def test_arp_poisoning_no_takeover(lab):
    """ARP from host A's wire claiming the appliance's own address, or host B's (a neighbour on
    the other port): no claim changes anything. The appliance's own address is never learned and
    it keeps answering for it with its own MAC; B keeps its MAC; the stream to B arrives whole.
    On a neighbour's own wire the latest ARP from its address does win (RFC 826: failover), and
    each such change is counted: that is the limit of what ARP without static entries allows."""
    dut0 = mac_of(lab, 0, HOSTS[0][1])
    b_mac = own_mac(lab, 1)
    before = lab.stats()
    rep, (f,) = stream_during(lab, [flood_cmd(lab, 0, "poison", 2000, 1000,
                                              victim_ip=HOSTS[1][0])])
    time.sleep(1)
    after = lab.stats()
    k = f["by_kind"]
    assert delta(before, after, 0, "drop_arp_sender_ip_is_ours") == \
        k["claim_ours_announcement"] + k["claim_ours_reply"], k
    assert delta(before, after, 0, "drop_arp_sender_ip_unusable") == \
        k["claim_victim_announcement"] + k["claim_victim_reply"], k
    assert delta(before, after, 0, "arp_requests_answered") == k["request_as_victim"], k
    assert after["neigh"]["mac_changed"] == before["neigh"]["mac_changed"], after["neigh"]
    table = arp_table(lab)
    assert table.get(HOSTS[1][0]) == b_mac, table
    assert HOSTS[0][1] not in table and HOSTS[1][1] not in table, table
    # host A asks afresh: the appliance answers with its own MAC
    ns_run(lab.nss[0], "ip", "neigh", "flush", "dev", lab.taps[0])
    assert " 0% packet loss" in lab.ping(0, count=2).stdout
    assert mac_of(lab, 0, HOSTS[0][1]) == dut0
    pin_gateway(lab, 0)
    check_after(lab, after)

    # On B's own wire, an announcement of B's address from another MAC is believed (counted),
    # and B's next announcement puts it right.
    ns_run(lab.nss[1], "python3", *flood_cmd(lab, 1, "announce", 1, 100, victim_ip=HOSTS[1][0],
                                             sender_mac="02:00:5e:10:00:01")[5:])
    time.sleep(0.3)
    assert arp_table(lab).get(HOSTS[1][0]) == "02:00:5e:10:00:01"
    ns_run(lab.nss[1], "python3", *flood_cmd(lab, 1, "announce", 1, 100,
                                             victim_ip=HOSTS[1][0])[5:])
    time.sleep(0.3)
    assert arp_table(lab).get(HOSTS[1][0]) == b_mac
    final = lab.stats()
    assert final["neigh"]["mac_changed"] == after["neigh"]["mac_changed"] + 2, final["neigh"]
    assert " 0% packet loss" in lab.ping(0, dst=HOSTS[1][0], count=2).stdout
    print(f"poisoning: {f['sent']} frames, each dropped or answered as counted, no takeover; "
          f"stream {rep['received']} of {rep['sent']}")


def test_icmp_echo_to_broadcast_dropped_and_counted(lab):
    """Echo requests to the subnet broadcast, the limited broadcast and the other subnet's
    broadcast, in Ethernet broadcasts and unicast to the appliance: none answered, none
    forwarded, each counted under its reason."""
    before = lab.stats()
    rep, (f,) = stream_during(lab, [flood_cmd(lab, 0, "icmpbcast", 2000, 1000,
                                              victim_ip=HOSTS[1][0])])
    time.sleep(1)
    after = lab.stats()
    k = f["by_kind"]
    d = lambda key: delta(before, after, 0, key)
    assert d("route_eth_dst_group") == k["subnet_bcast_l2_bcast"] + k["limited_bcast_l2_bcast"]
    assert d("route_ip_dst_broadcast") == k["limited_bcast_unicast"]
    assert d("fwd_dst_directed_broadcast") == \
        k["subnet_bcast_unicast"] + k["other_subnet_bcast_unicast"]
    assert d("icmp_echo_answered") == 0 and d("fwd_icmp_errors_sent") == 0
    # only the stream went out of port1
    assert delta(before, after, 1, "tx_forwarded") == rep["sent"]
    check_after(lab, after)
    print(f"ICMP to broadcast: {f['sent']} echo requests, none answered, all counted; stream "
          f"{rep['received']} of {rep['sent']}")
