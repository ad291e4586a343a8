"""Neighbours that age (issue: the router a network engineer expects): a next hop in use is
probed by unicast ARP once it is stale and kept while it answers, with no frame lost; one that
changed its MAC without a word is followed within about neigh.reachable_ms + neigh.probes
seconds. Host B is given a permanent neighbour entry for the appliance, so it never ARPs it:
only the appliance's own probes can renew or drop B's entry. Default config, igb."""
import re

from netlab import HOSTS, finish_lab, ns_run, start_lab
from qemu import DEFAULT_ELF

REACHABLE_S = 30  # config/default.conf neigh.reachable_ms
PROBES = 3        # config/default.conf neigh.probes
NEW_MAC = "02:00:00:00:b0:0b"


def neigh_stats(lab):
    return lab.stats()["neigh"]


def replied_seqs(ping_stdout):
    return {int(m) for m in re.findall(r"icmp_seq=(\d+) ttl=63", ping_stdout)}


def pin_appliance_mac(lab, port):
    """Host `port` learns the appliance's MAC once, then keeps it as a permanent entry."""
    host, gw = lab.hosts[port]
    assert " 0% packet loss" in lab.ping(port, count=1).stdout
    out = ns_run(lab.nss[port], "ip", "neigh", "show", gw, "dev", lab.taps[port]).stdout
    mac = re.search(r"lladdr ([0-9a-f:]{17})", out).group(1)
    ns_run(lab.nss[port], "ip", "neigh", "replace", gw, "lladdr", mac, "dev", lab.taps[port],
           "nud", "permanent")


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
