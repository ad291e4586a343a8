"""802.1Q VLAN sub-interfaces in router mode (issue: the router a network engineer expects).
config/test.conf gives port0 two sub-interfaces, port0.10 (10.10.0.1/24) and port0.20
(10.20.0.1/24), besides its untagged 198.18.0.1/24. The namespace kernels have no VLAN support,
so the VLAN hosts are tests/tools/vlanhost.py on port0's tap: each answers ARP and ping for its
address on its VLAN alone, with tagged frames, and reports frames for it that came with another
tag or none. Host B is the ordinary kernel host on port1 (198.19.0.2)."""
import json
import os
import re
import subprocess

import pytest

from netlab import BOTH_NICS, HOSTS, finish_lab, ns_run, port_queues, queue_sum, start_lab
from qemu import REBOOT_ELF, ROOT, TEST_ELF
from test_forward import check_forward_conservation

VLANHOST = os.path.join(ROOT, "tests", "tools", "vlanhost.py")
VLANFRAMES = os.path.join(ROOT, "tests", "tools", "vlanframes.py")
VLANS = {10: ("10.10.0.2", "10.10.0.1"), 20: ("10.20.0.2", "10.20.0.1")}  # vid: host, ours
B = HOSTS[1][0]


def vlan_host(lab, vid, seconds, ping=None):
    """Start a VLAN host on port0's wire; returns the process (ready)."""
    host, gw = VLANS[vid]
    args = ["ip", "netns", "exec", lab.nss[0], "python3", VLANHOST, lab.taps[0], str(vid), host,
            gw, str(seconds)]
    if ping:
        args += ["--ping", ping[0], str(ping[1])]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    assert json.loads(p.stdout.readline())["ready"]
    return p


def report(p):
    out = p.stdout.readline()
    p.wait(timeout=30)
    return json.loads(out)


def vlan_counters(stats, port):
    return {v["name"]: v for v in stats["ports"][port]["vlans"]}


@BOTH_NICS
@pytest.mark.parametrize("offload", [True, False], ids=["nic_tags", "software_tags"])
def test_vlan_subinterfaces_answer_route_and_count(nic, offload):
    # config/test.conf has vlan.offload = yes (the default); reboot.conf, the same otherwise,
    # no: the tags are then moved in memory by the router
    lab = start_lab(nic, kernel=TEST_ELF if offload else REBOOT_ELF, smp=2)
    try:
        lab.guest.command("routes", r"^10\.20\.0\.0/24\s+connected\s+port0\.20$")
        assert "port0.10: address 10.10.0.1/24 (VLAN 10)" in lab.guest.text()

        # Each VLAN host pings its own sub-interface's address: the appliance answers ARP and
        # echo tagged with that VLAN, and never on the other one.
        procs = [vlan_host(lab, vid, 8, ping=(VLANS[vid][1], 10)) for vid in VLANS]
        for vid, p in zip(VLANS, procs):
            r = report(p)
            assert r["ping_replies"] == 10 and r["wrong_tag"] == 0, (vid, r)
            assert r["gateway_mac"] is not None, r

        # Routed both ways between VLAN 10 and host B: B pings the VLAN host (the appliance
        # resolves it by tagged ARP and forwards tagged, its reply comes back untagged to B,
        # one hop down), while the VLAN 20 host pings B through 10.20.0.1.
        serve = vlan_host(lab, 10, 12)
        ping20 = vlan_host(lab, 20, 12, ping=(B, 20))
        r = lab.ping(1, dst=VLANS[10][0], count=10)
        assert re.search(r" 10 received", r.stdout) or " 0% packet loss" in r.stdout, r.stdout
        assert re.search(r"from 10\.10\.0\.2: .*ttl=63", r.stdout), r.stdout
        r10, r20 = report(serve), report(ping20)
        assert r10["echo_answered"] >= 10 and r10["wrong_tag"] == 0, r10
        # the first request may wait for ARP on B's side; every later one is answered
        assert r20["ping_replies"] >= 19 and r20["wrong_tag"] == 0, r20
        assert set(r20["reply_ttls"]) == {63}, r20

        # A VLAN with no sub-interface, and tagged frames on port1 (none there): counted drops.
        ns_run(lab.nss[0], "python3", VLANFRAMES, "send", lab.taps[0], "99", "25")
        ns_run(lab.nss[1], "python3", VLANFRAMES, "send", lab.taps[1], "10", "5")
        st = lab.stats()
        assert queue_sum(st, 0, "vlan_unknown") == 25, st["ports"][0]
        assert queue_sum(st, 1, "vlan_unknown") == 5, st["ports"][1]
        v = vlan_counters(st, 0)
        assert set(v) == {"port0.10", "port0.20"} and vlan_counters(st, 1) == {}, v
        assert v["port0.10"]["vid"] == 10
        for name in v:
            assert v[name]["vlan_rx"] >= 20 and v[name]["vlan_tx"] >= 20, v
            assert v[name]["vlan_tx_no_room"] == 0, v
            # vlan.offload: the NIC took every tag off and put every tag on; else none
            assert v[name]["vlan_rx_hw"] == (v[name]["vlan_rx"] if offload else 0), v
            assert v[name]["vlan_tx_hw"] == (v[name]["vlan_tx"] if offload else 0), v
        # ...in its rings, one context per tagged frame; port1 has no VLANs and strips nothing
        inserted = sum(v[n]["vlan_tx"] for n in v) if offload else 0
        assert queue_sum(st, 0, "tx_vlan_inserted") == inserted, v
        assert queue_sum(st, 1, "tx_vlan_inserted") == 0
        for port in (0, 1):
            for q in port_queues(st, port):
                check_forward_conservation(q)
        lab.guest.command("stats", r"port0\.10\s+vlan_rx")
    finally:
        finish_lab(lab)
