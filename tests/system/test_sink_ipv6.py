"""The sink over IPv6 (issues: the sink every client can use; the router a network engineer
expects): Debian's iperf3 3.12 client in port0's namespace against the appliance's global IPv6
address (config/default.conf: port0 2001:db8:18::1/64). TCP both ways and UDP, each with the
client's numbers equal to the appliance's counters; lwIP's IPv6 answers leave through the
appliance's own neighbour cache (net/nexthop6), the frames reach it through net/local6."""
import json
import subprocess
import time

import pytest

from netlab import HOSTS6, Lab, ns_run, queue_sum
from qemu import DEFAULT_ELF
from test_sink_iperf3 import SECONDS, delta, settled

APPLIANCE6 = HOSTS6[0][1]


@pytest.fixture(scope="module", params=["igb", "82599"])
def lab6(request):
    lab = Lab(kernel=DEFAULT_ELF, smp=2, ipv6=True, nic=request.param)
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
    # every segment came through local6's hand-off to the sink core
    handed = queue_sum(st, 0, "ip6_to_sink") - queue_sum(st0, 0, "ip6_to_sink")
    assert handed >= d["rx_bytes"] // 1440, (handed, d)


def test_iperf3_tcp_reverse_over_ipv6(lab6):
    end, d = measured6(lab6, "-R")
    # the sender line is the appliance's: bytes the client acknowledged while the test ran
    # (what arrived after the client's timer is in its receiver line, not here)
    assert end["sum_sent"]["bytes"] == d["tx_bytes"] > 1_000_000, (end["sum_sent"], d)
    assert end["sum_received"]["bytes"] > 0 and d["rx_bytes"] == 0, (end["sum_received"], d)


def test_iperf3_udp_over_ipv6(lab6):
    end, d = measured6(lab6, "-u", "-b", "20M")
    assert d["rx_datagrams"] == end["sum"]["packets"] - end["sum"]["lost_packets"] > 1000, \
        (end["sum"], d)


def netperf6(lab, args, timeout=90):
    r = ns_run(lab.nss[0], "netperf", "-6", "-H", APPLIANCE6, "-l", str(SECONDS), *args.split(),
               check=False, timeout=timeout)
    assert r.returncode == 0, f"netperf -6 {args}: rc {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r.stdout


def netperf_settled(lab, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        c = lab.stats()["sink"]["netperf"]
        if c["active"] == 0:
            return c
        assert time.monotonic() < deadline, c
        time.sleep(0.5)


def test_netperf_tcp_stream_over_ipv6(lab6):
    before = netperf_settled(lab6)
    out = netperf6(lab6, "-t TCP_STREAM -- -o throughput,local_bytes_sent,remote_bytes_recvd")
    tput, sent, rcvd = out.strip().splitlines()[-1].split(",")
    after = netperf_settled(lab6)
    assert float(tput) > 0 and int(rcvd) == after["rx_bytes"] - before["rx_bytes"] > 0, out
    assert after["tests_done"] - before["tests_done"] == 1, after


@pytest.mark.parametrize("test,key", [("TCP_RR", "transaction_rate"),
                                      ("TCP_MAERTS", "throughput"),
                                      ("TCP_CRR", "transaction_rate"),
                                      ("UDP_RR", "transaction_rate")])
def test_netperf_over_ipv6(lab6, test, key):
    before = netperf_settled(lab6)
    out = netperf6(lab6, f"-t {test} -- -o {key}")
    assert float(out.strip().splitlines()[-1]) > 0, out
    after = netperf_settled(lab6)
    assert after["tests_done"] - before["tests_done"] == 1, after
    assert after["tests_failed"] == before["tests_failed"], after


def test_netperf_udp_stream_over_ipv6(lab6):
    """Datagrams below the MTU (fragments to the appliance are dropped over IPv6)."""
    before = netperf_settled(lab6)
    out = netperf6(lab6, "-t UDP_STREAM -- -m 1200 -o remote_recv_calls")
    after = netperf_settled(lab6)
    assert int(out.strip().splitlines()[-1]) == after["rx_datagrams"] - before["rx_datagrams"] \
        > 100, (out, after)
