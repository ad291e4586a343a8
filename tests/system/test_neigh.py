"""Neighbours that age, and static ones (issue: the router a network engineer expects): a next hop in use is
probed by unicast ARP once it is stale and kept while it answers, with no frame lost; one that
changed its MAC without a word is followed within about neigh.reachable_ms + neigh.probes
seconds. Host B is given a permanent neighbour entry for the appliance, so it never ARPs it:
only the appliance's own probes can renew or drop B's entry. Default config, igb."""
import os
import re

from netlab import BOTH_NICS, HOSTS, HOSTS6, finish_lab, ns_run, start_lab
from qemu import DEFAULT_ELF, ROOT, TEST_ELF

REACHABLE_S = 30  # config/default.conf neigh.reachable_ms
PROBES = 3        # config/default.conf neigh.probes
NEW_MAC = "02:00:00:00:b0:0b"
STATIC_IP, STATIC_MAC = "198.19.0.9", "02:00:00:00:19:09"  # config/test.conf neigh.static
FLOOD = os.path.join(ROOT, "tests", "tools", "flood.py")


def neigh_stats(lab):
    return lab.stats()["neigh"]


def replied_seqs(ping_stdout):
    return {int(m) for m in re.findall(r"icmp_seq=(\d+) ttl=63", ping_stdout)}


def pin_appliance_mac6(lab, port):
    """Host `port` learns the appliance's MAC once, then keeps it as a permanent IPv6
    neighbour: it never solicits the appliance again, so only the appliance's probes renew."""
    gw, tap, ns = HOSTS6[port][1], lab.taps[port], lab.nss[port]
    assert " 0% packet loss" in lab.ping(port, dst=gw, count=1).stdout
    out = ns_run(ns, "ip", "-6", "neigh", "show", gw, "dev", tap).stdout
    mac = re.search(r"lladdr ([0-9a-f:]{17})", out).group(1)
    ns_run(ns, "ip", "-6", "neigh", "replace", gw, "lladdr", mac, "dev", tap, "nud", "permanent")


def pin_appliance_mac(lab, port):
    """Host `port` learns the appliance's MAC once, then keeps it as a permanent entry."""
    host, gw = lab.hosts[port]
    assert " 0% packet loss" in lab.ping(port, count=1).stdout
    out = ns_run(lab.nss[port], "ip", "neigh", "show", gw, "dev", lab.taps[port]).stdout
    mac = re.search(r"lladdr ([0-9a-f:]{17})", out).group(1)
    ns_run(lab.nss[port], "ip", "neigh", "replace", gw, "lladdr", mac, "dev", lab.taps[port],
           "nud", "permanent")


@BOTH_NICS
def test_next_hop_probed_while_in_use_and_new_mac_followed(nic):
    lab = start_lab(nic, kernel=DEFAULT_ELF, smp=2)
    try:
        pin_appliance_mac(lab, 1)
        b = HOSTS[1][0]
        lab.ping(0, dst=b, count=3)  # resolves B (the first may be an arp_unresolved drop)

        # Phase 1: a ping every 0.2 s for longer than reachable + the probes: B's entry goes
        # stale while in use, is probed, B answers, and not one ping is lost.
        n = int((REACHABLE_S + PROBES + 6) / 0.2)
        r = lab.ping(0, dst=b, count=n, timeout=REACHABLE_S + 60)
        assert " 0% packet loss" in r.stdout, r.stdout[-2000:]
        st = neigh_stats(lab)
        assert st["probes_sent"] >= 1 and st["probe_failed"] == 0, st

        # Phase 2: B takes a new MAC and says nothing. Frames to the old MAC are lost until the
        # appliance's probes go unanswered; then it asks by broadcast and follows B.
        ns_run(lab.nss[1], "ip", "link", "set", "dev", lab.taps[1], "address", NEW_MAC)
        follow_s = REACHABLE_S + PROBES + 2
        n = int((follow_s + 10) / 0.2)
        r = lab.ping(0, dst=b, count=n, timeout=follow_s + 60)
        got = replied_seqs(r.stdout)
        tail = set(range(n - int(5 / 0.2), n + 1))
        assert tail <= got, f"pings still lost {follow_s + 5} s after B's MAC changed: " \
                            f"{sorted(tail - got)[:10]}...\n{r.stdout[-1500:]}"
        st = neigh_stats(lab)
        assert st["probe_failed"] >= 1, st
        m = lab.guest.command("arp", rf"^{re.escape(b)} +(\S+) +(\S+) +\d+$")
        assert m.group(1) == NEW_MAC and m.group(2) == "reachable", m.group(0)

        # `neigh flush` forgets everything; traffic resolves again.
        lab.guest.command("neigh flush", r"^neigh: [1-9]\d* entries flushed$")
        assert neigh_stats(lab)["flushed"] >= 1
        lab.ping(0, dst=b, count=2)
        assert " 0% packet loss" in lab.ping(0, dst=b, count=3).stdout
    finally:
        finish_lab(lab)


@BOTH_NICS
def test_static_neighbour_needs_no_arp_and_no_arp_moves_it(nic):
    """config/test.conf's neigh.static (198.19.0.9 at 02:00:00:00:19:09): host B takes that MAC
    and address. Forwarding to it never asks ARP (no arp_unresolved drop), announcements
    claiming it for another MAC change nothing (counted in static_kept), `arp` shows it
    static, and `neigh flush` keeps it while it forgets the learned ones."""
    lab = start_lab(nic, kernel=TEST_ELF, smp=2)
    try:
        boot = lab.guest.text()
        assert re.search(rf"^neigh: static {re.escape(STATIC_IP)} {STATIC_MAC} on port1$", boot,
                         re.M), boot
        ns1, tap1 = lab.nss[1], lab.taps[1]
        ns_run(ns1, "ip", "link", "set", "dev", tap1, "address", STATIC_MAC)
        ns_run(ns1, "ip", "addr", "add", f"{STATIC_IP}/24", "dev", tap1)
        assert " 0% packet loss" in lab.ping(0, count=1).stdout  # host A and its gateway
        before = lab.stats()
        lab.ping(0, dst=STATIC_IP, count=3)  # (B itself may still be resolving the appliance)
        r = lab.ping(0, dst=STATIC_IP, count=3)
        assert " 0% packet loss" in r.stdout, r.stdout
        after = lab.stats()
        unresolved = sum(q["fwd_arp_unresolved"] for p in after["ports"] for q in p["queues"])
        assert unresolved == sum(q["fwd_arp_unresolved"] for p in before["ports"]
                                 for q in p["queues"])

        dut_mac = re.search(r"lladdr (\S+)", ns_run(ns1, "ip", "neigh", "show",
                                                     HOSTS[1][1]).stdout)
        dut_mac = dut_mac.group(1) if dut_mac else "ff:ff:ff:ff:ff:ff"
        ns_run(ns1, "python3", FLOOD, tap1, "announce", "5", "20", "--dut-ip", HOSTS[1][1],
               "--dut-mac", dut_mac, "--victim-ip", STATIC_IP, "--sender-mac",
               "02:00:00:00:66:66", "--net", "198.19.0")
        st = lab.stats()["neigh"]
        assert st["static_kept"] >= 5 and st["mac_changed"] == after["neigh"]["mac_changed"], st
        m = lab.guest.command("arp", rf"^{re.escape(STATIC_IP)} +(\S+) +(\S+) +\d+$")
        assert m.group(1) == STATIC_MAC and m.group(2) == "static", m.group(0)
        lab.guest.command("neigh flush", r"^neigh: [1-9]\d* entries flushed$")
        m = lab.guest.command("arp", rf"^{re.escape(STATIC_IP)} +(\S+) +(\S+) +\d+$")
        assert m.group(1) == STATIC_MAC and m.group(2) == "static", m.group(0)
        # host A was flushed (learned): the first reply towards it waits for ARP
        r = lab.ping(0, dst=STATIC_IP, count=3)
        assert len(re.findall(r"icmp_seq=\d+ ttl=63", r.stdout)) >= 2, r.stdout
    finally:
        finish_lab(lab)


@BOTH_NICS
def test_nd_next_hop_probed_while_in_use_and_new_mac_followed(nic):
    """The IPv6 twin of the first test: neighbour discovery's entries go stale in use, are
    probed by unicast solicitation and kept while B answers, with no ping lost; when B changes
    its MAC silently the probes fail and a multicast solicitation finds B's new MAC."""
    lab = start_lab(nic, kernel=DEFAULT_ELF, smp=2, ipv6=True)
    try:
        pin_appliance_mac6(lab, 1)
        b = HOSTS6[1][0]
        lab.ping(0, dst=b, count=3)  # resolves B (the first may be an nd_unresolved drop)

        n = int((REACHABLE_S + PROBES + 6) / 0.2)
        r = lab.ping(0, dst=b, count=n, timeout=REACHABLE_S + 60)
        lost = sorted(set(range(1, n + 1)) - replied_seqs(r.stdout))
        st = neigh_stats(lab)
        assert not lost, f"lost {lost}; {st}; nd:\n{lab.guest.command('nd', 'age_ms').string[-600:]}"
        assert st["nd_probes_sent"] >= 1 and st["nd_probe_failed"] == 0, st

        ns_run(lab.nss[1], "ip", "link", "set", "dev", lab.taps[1], "address", NEW_MAC)
        follow_s = REACHABLE_S + PROBES + 2
        n = int((follow_s + 10) / 0.2)
        r = lab.ping(0, dst=b, count=n, timeout=follow_s + 60)
        got = replied_seqs(r.stdout)
        tail = set(range(n - int(5 / 0.2), n + 1))
        assert tail <= got, f"pings still lost {follow_s + 5} s after B's MAC changed: " \
                            f"{sorted(tail - got)[:10]}...\n{r.stdout[-1500:]}"
        m = lab.guest.command("nd", rf"^{re.escape(b)} +- +(\S+) +(\S+) +\d+$")
        assert m.group(1) == NEW_MAC and m.group(2) == "reachable", m.group(0)
    finally:
        finish_lab(lab)
