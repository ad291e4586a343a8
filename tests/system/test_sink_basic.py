"""The sink's plumbing and its simplest services (issue: the TCP/UDP sink): discard and echo over
TCP and UDP, a 100 MB transfer, IP reassembly both ways, the connection bound, a killed client,
and the buffers lwIP borrowed all back in their pools afterwards. 4 cores, two igb ports on taps;
the client (tests/system/sinkclient.py) runs in port0's namespace."""
import json
import os
import signal
import subprocess
import time

import pytest

from netlab import BOTH_NICS, HOSTS, finish_lab, ns_run, start_lab
from qemu import DEFAULT_ELF, ROOT

CLIENT = os.path.join(ROOT, "tests", "system", "sinkclient.py")
APPLIANCE = HOSTS[0][1]
MAX_CONNECTIONS = 16  # config/default.conf sink.max_connections


@pytest.fixture
def lab(nic):
    lab = start_lab(nic, kernel=DEFAULT_ELF, smp=4)
    try:
        assert " 0% packet loss" in lab.ping(0, count=1).stdout  # ARP both ways
        yield lab
    finally:
        finish_lab(lab)


def client(lab, *args, timeout=300, host=APPLIANCE):
    r = ns_run(lab.nss[0], "/usr/bin/python3", CLIENT, args[0], host,
               *[str(a) for a in args[1:]], timeout=timeout)
    return json.loads(r.stdout)


def settled(lab, timeout=20):
    """stats json once the sink holds no connection and no borrowed buffer, and every buffer
    lwIP released is back in its core's pool (the return ring is drained by the owner core's
    next pass, a moment after lwIP lets go)."""
    deadline = time.monotonic() + timeout
    while True:
        st = lab.stats()
        sink = st["sink"]
        idle = all(sink[s]["active"] == 0 for s in ("discard", "echo", "iperf3", "netperf"))
        home = (sum(c["sink_handed"] for c in st["cores"]) ==
                sum(c["sink_reclaimed"] for c in st["cores"]))
        if idle and sink["netif"]["rx_wrapped"] == sink["netif"]["rx_released"] and home:
            return st
        assert time.monotonic() < deadline, sink
        time.sleep(0.5)


def pools_free(st):
    return [c["pool_free"] for c in st["cores"]]


@BOTH_NICS
def test_discard_and_echo(lab):
    idle_pools = pools_free(lab.stats())
    big = client(lab, "tcp-discard", 100_000_000)
    assert big["sent"] == 100_000_000 and big["eof"], big
    echo = client(lab, "tcp-echo", 5_000_000)
    assert echo["received"] == 5_000_000 and echo["equal"], echo
    udp = client(lab, "udp-discard", 2000, 1400)
    uecho = client(lab, "udp-echo", 200, 1000)
    assert uecho["echoed"] == 200, uecho

    st = settled(lab)
    sink = st["sink"]
    d, e = sink["discard"], sink["echo"]
    assert d["rx_bytes"] == 100_000_000 + udp["bytes"], d
    assert d["rx_datagrams"] == 2000 and d["tests_run"] == 1 and d["tests_done"] == 1, d
    assert e["rx_bytes"] == e["tx_bytes"] == 5_000_000 + 200 * 1000, e
    assert e["rx_datagrams"] == e["tx_datagrams"] == 200, e
    assert d["tests_failed"] == e["tests_failed"] == 0
    # Every frame handed over was wrapped without a copy, and every buffer went home.
    handed = sum(c["sink_handed"] for c in st["cores"])
    reclaimed = sum(c["sink_reclaimed"] for c in st["cores"])
    # (pure ACKs a later one made redundant in the same burst are released unseen by lwIP)
    assert handed == reclaimed == sink["netif"]["rx_wrapped"] + \
        sink["netif"]["rx_acks_superseded"], (handed, sink["netif"])
    assert sum(c["sink_ring_full"] + c["sink_no_sink"] for c in st["cores"]) == 0
    # Both NICs check TCP/UDP checksums (igb: RXCSUM.TUOFL; the 82599 always, L4CS): lwIP does
    # not repeat that work. (UDP echo's and discard's datagrams carry checksums; the 82599
    # would flag one sent without, and lwIP would then check it.)
    assert sink["netif"]["rx_csum_offloaded"] > sink["netif"]["rx_wrapped"] // 2, sink["netif"]
    # Both NICs complete the TCP checksums of what lwIP sends (TX checksum offload): every
    # segment echo sent was left to the NIC, and the client got it intact (echo["equal"]).
    assert sink["netif"]["tx_csum_offloaded"] > 0 and sink["netif"]["tx_csum_sw"] == 0, \
        sink["netif"]
    assert all(q["tx_no_csum_ctx"] == 0 for p in st["ports"] for q in p["queues"])
    assert pools_free(st) == idle_pools
    to_sink = sum(q["ip_to_sink"] for p in st["ports"] for q in p["queues"])
    assert to_sink == handed


@BOTH_NICS
def test_reassembly_both_ways(lab):
    """65507-byte UDP datagrams (45 fragments each) are reassembled by lwIP, echoed, and
    fragmented on the way out; a 3000-byte ping is answered the same way."""
    r = client(lab, "udp-echo", 10, 65507)
    assert r["echoed"] == 10, r
    ping = lab.ping(0, size=3000, count=3)
    assert " 0% packet loss" in ping.stdout, ping.stdout
    sink = settled(lab)["sink"]
    assert sink["ip"]["reassembled"] >= 13 and sink["ip"]["fragmented_out"] >= 13, sink["ip"]
    assert sink["ip"]["reassembly_failed"] == 0
    assert sink["echo"]["rx_bytes"] == 10 * 65507


@BOTH_NICS
def test_answers_on_the_other_ports_address(lab):
    """router.answer_any_address (on by default): from port0's host, port1's address answers a
    ping, from that address and without a router hop, and the sink's TCP echo there works; the
    frames are the local stack's, not fwd's other-port drops."""
    other = HOSTS[1][1]
    ping = lab.ping(0, dst=other, count=3)
    assert " 0% packet loss" in ping.stdout, ping.stdout
    assert f"from {other}: icmp_seq=1 ttl=64" in ping.stdout, ping.stdout
    r = client(lab, "tcp-echo", 100000, host=other)
    assert r["received"] == 100000 and r["equal"], r
    st = settled(lab)
    port0 = st["ports"][0]["queues"]
    assert sum(q["fwd_dst_other_port_address"] for q in port0) == 0
    assert sum(q["icmp_echo_answered"] for q in port0) >= 3
    assert st["sink"]["echo"]["rx_bytes"] == 100000


def test_connection_bound_and_refusal(lab):
    """One connection more than sink.max_connections is reset and counted; the others work."""
    r = client(lab, "tcp-hold", MAX_CONNECTIONS + 1, 2)
    assert r == {"accepted": MAX_CONNECTIONS, "refused": 1}, r
    d = settled(lab)["sink"]["discard"]
    assert d["refused"] == 1 and d["tests_run"] == MAX_CONNECTIONS, d
    assert d["rx_bytes"] == MAX_CONNECTIONS * 1000


def test_killed_client_frees_its_connection(lab):
    """A client killed mid-transfer: its kernel resets the connection, the appliance frees it."""
    code = ("import socket\n"
            f"s = socket.create_connection(('{APPLIANCE}', 7))\n"
            "while True:\n"
            "    s.sendall(b'y' * 65536)\n")  # echo: never reads the answers back
    p = subprocess.Popen(["ip", "netns", "exec", lab.nss[0], "/usr/bin/python3", "-c", code])
    try:
        deadline = time.monotonic() + 20
        while lab.stats()["sink"]["echo"]["active"] != 1:
            assert time.monotonic() < deadline
            time.sleep(0.3)
        time.sleep(1)
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    e = settled(lab)["sink"]["echo"]
    assert e["tests_run"] == 1 and e["active"] == 0, e
    assert e["rx_bytes"] > 0


def test_unused_port_answered_and_wrong_protocol_counted(lab):
    """UDP to a port nobody serves gets ICMP port unreachable from lwIP (the host's socket sees
    ECONNREFUSED); TCP to one gets a reset."""
    code = ("import socket\n"
            "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            f"u.connect(('{APPLIANCE}', 4444)); u.settimeout(3); u.send(b'x')\n"
            "try:\n    u.recv(10); print('answer')\n"
            "except ConnectionRefusedError:\n    print('refused-udp')\n"
            "try:\n"
            f"    socket.create_connection(('{APPLIANCE}', 4444), timeout=5)\n"
            "except ConnectionRefusedError:\n    print('refused-tcp')\n")
    out = ns_run(lab.nss[0], "/usr/bin/python3", "-c", code).stdout.split()
    assert out == ["refused-udp", "refused-tcp"], out
    sink = settled(lab)["sink"]
    assert sink["udp"]["no_port"] == 1 and sink["tcp"]["resets_sent"] >= 1, sink


@BOTH_NICS
def test_benchmark_clients(lab):
    """Unmodified iperf3 and netperf clients against the sink, on both NICs (the full sets of
    cases are in test_sink_iperf3.py and test_sink_netperf.py, on igb)."""
    before = settled(lab)["sink"]
    r = ns_run(lab.nss[0], "iperf3", "-c", APPLIANCE, "-t", "3", "-J", check=False, timeout=120)
    j = json.loads(r.stdout)
    assert r.returncode == 0 and "error" not in j, j.get("error")
    n = ns_run(lab.nss[0], "netperf", "-H", APPLIANCE, "-l", "3", "-t", "TCP_STREAM", check=False,
               timeout=120)
    assert n.returncode == 0, n.stdout + n.stderr
    after = settled(lab)["sink"]
    i3 = {k: after["iperf3"][k] - before["iperf3"][k] for k in ("rx_bytes", "tests_done")}
    assert i3 == {"rx_bytes": j["end"]["sum_received"]["bytes"], "tests_done": 1}, i3
    assert after["netperf"]["tests_done"] - before["netperf"]["tests_done"] == 1
    assert after["netperf"]["rx_bytes"] > before["netperf"]["rx_bytes"]
    # -R: the appliance sends its constant payload by reference (only the headers copied) in
    # segments of up to 16 KiB that the NIC cuts at the client's MSS, completing each checksum
    # (TCP segmentation offload); the client's TCP takes it all, and the port counts the
    # segments it sent, not the frames it was given
    def tx_queues(st, key):
        return sum(q[key] for p in st["ports"] for q in p["queues"])
    before_r = lab.stats()
    r = ns_run(lab.nss[0], "iperf3", "-c", APPLIANCE, "-t", "3", "-R", "-J", check=False,
               timeout=120)
    j = json.loads(r.stdout)
    assert r.returncode == 0 and "error" not in j, j.get("error")
    st = settled(lab)
    rev = st["sink"]
    sent = rev["iperf3"]["tx_bytes"] - after["iperf3"]["tx_bytes"]
    assert sent == j["end"]["sum_sent"]["bytes"] > 1_000_000, (sent, j["end"]["sum_sent"])
    assert rev["tcp"]["tso_connections"] - after["tcp"]["tso_connections"] == 1, rev["tcp"]
    tso = rev["netif"]["tx_tso_frames"] - after["netif"]["tx_tso_frames"]
    assert tso >= sent // 16060 // 2, (tso, sent)
    assert tx_queues(st, "tx_tso_frames") - tx_queues(before_r, "tx_tso_frames") == tso
    assert tx_queues(st, "tx_bad_tso") == 0
    assert tx_queues(st, "tx_packets") - tx_queues(before_r, "tx_packets") >= sent // 1460
