"""The sink over IPv6 (issues: the sink every client can use; the router a network engineer
expects): Debian's iperf3 3.12 client in port0's namespace against the appliance's global IPv6
address (config/default.conf: port0 2001:db8:18::1/64). TCP both ways and UDP, each with the
client's numbers equal to the appliance's counters; lwIP's IPv6 answers leave through the
appliance's own neighbour cache (net/nexthop6), the frames reach it through net/local6."""
import json
import subprocess

import pytest

from netlab import HOSTS6, Lab, queue_sum
from qemu import DEFAULT_ELF
from test_sink_iperf3 import SECONDS, delta, settled

APPLIANCE6 = HOSTS6[0][1]


@pytest.fixture(scope="module")
def lab6():
    lab = Lab(kernel=DEFAULT_ELF, smp=2, ipv6=True)
    try:
        lab.guest.wait_ready()
        lab.wait_links()
        r = lab.ping(0, dst=APPLIANCE6, count=3)  # neighbour discovery both ways
        assert " 0% packet loss" in r.stdout, r.stdout
        yield lab
    finally:
        lab.close()


def measured6(lab, *args):
    before = settled(lab)
    r = subprocess.run(["ip", "netns", "exec", lab.nss[0], "iperf3", "-6", "-J", "-c",
                        APPLIANCE6, "-t", str(SECONDS), *args],
                       capture_output=True, text=True, timeout=120)
    j = json.loads(r.stdout)
    assert r.returncode == 0 and "error" not in j, (j.get("error"), lab.guest.text()[-2000:])
    d = delta(settled(lab), before)
    assert d["tests_run"] == d["tests_done"] == 1 and d["tests_failed"] == 0, d
    return j["end"], d


def test_iperf3_tcp_over_ipv6(lab6):
    st0 = lab6.stats()
    end, d = measured6(lab6)
    assert end["sum_received"]["bytes"] == d["rx_bytes"] > 1_000_000, (end["sum_received"], d)
    st = lab6.stats()
    # every segment came through local6's hand-off (IPv6 lands on queue 0: RSS hashes IPv4)
    handed = queue_sum(st, 0, "ip6_to_sink") - queue_sum(st0, 0, "ip6_to_sink")
    assert handed >= d["rx_bytes"] // 1440, (handed, d)


def test_iperf3_tcp_reverse_over_ipv6(lab6):
    end, d = measured6(lab6, "-R")
    assert end["sum_received"]["bytes"] > 1_000_000, end["sum_received"]
    assert d["tx_bytes"] >= end["sum_received"]["bytes"], (end["sum_received"], d)


def test_iperf3_udp_over_ipv6(lab6):
    end, d = measured6(lab6, "-u", "-b", "20M")
    assert d["rx_datagrams"] == end["sum"]["packets"] - end["sum"]["lost_packets"] > 1000, \
        (end["sum"], d)
