"""Ports pinned to PCI functions (issue 18, "ports by slot"): build/slots/wirespeed.elf
(config/slots.conf) pins port0 to 00:04.0 and port1 to 00:02.0, the other way round from bus
order. Port numbers follow the config; with the NIC of port0 missing, port0 is absent (dead,
said on the console) and port1 keeps its number, address and traffic, where bus order would
have renamed it port0."""
import re

from netlab import HOSTS, Lab, finish_lab, start_lab
from qemu import SLOTS_ELF


def test_pinned_ports_follow_the_config():
    # the NIC on the first wire sits at 00:04.0, the second's at 00:02.0: bus order would
    # swap them, the pins put them back
    lab = start_lab("igb", kernel=SLOTS_ELF, smp=2, nic_slots=[4, 2])
    try:
        g = lab.guest
        g.command("ports", r"^port0\s+0000:00:04\.0\s+82576\s")
        g.command("ports", r"^port1\s+0000:00:02\.0\s+82576\s")
        for port in (0, 1):
            r = lab.ping(port)
            assert " 0% packet loss" in r.stdout, r.stdout
        r = lab.ping(0, dst=HOSTS[1][0])  # routed between them
        assert " 0% packet loss" in r.stdout, r.stdout
    finally:
        finish_lab(lab)


def test_missing_pinned_nic_leaves_port0_absent_and_port1_in_place():
    lab = Lab(kernel=SLOTS_ELF, smp=2, nports=1, hosts=[HOSTS[1]], nic_slots=[2])
    try:
        g = lab.guest
        m = g.wait_ready()
        assert m.group(2) == "2", g.text()
        text = g.text()
        assert re.search(r"^port0: nothing to drive at 0000:00:04\.0 \(config port0\.pci\): no "
                         r"PCI function there$", text, re.M), text
        assert re.search(r"^port0: absent \(its NIC, config portN\.pci, did not come up\)",
                         text, re.M), text
        g.expect(r"(?:^|(?<=> ))port1: link up", 30)
        g.command("ports", r"^port1\s+0000:00:02\.0\s+82576\s")
        g.command("ports", r"^port0\s+0000:00:04\.0\s+absent\s.*dead")
        r = lab.ping(0)  # the host on the only wire, to port1's address
        assert " 0% packet loss" in r.stdout, r.stdout
        st = lab.stats()
        p0, p1 = st["ports"][:2]
        assert p0["chip"] == "absent" and p0["state"] == "dead" and p0["queues"] == [], p0
        assert p1["state"] == "running" and p1["link"] is True, p1
        r = lab.ping(0, dst="198.18.0.2", count=2)  # routed to the absent port: dropped
        assert r.returncode != 0
        qs = lab.stats()["ports"][1]["queues"]
        drops = sum(q["fwd_egress_no_queue"] for q in qs)  # an absent port has no queues
        assert drops >= 2, qs
    finally:
        finish_lab(lab)
