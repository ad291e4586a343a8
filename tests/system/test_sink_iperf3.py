"""The iperf3-compatible server (issue: the TCP/UDP sink) against Debian's unmodified iperf3 3.12
client in port0's namespace: TCP, -P 4, -R, --bidir, --get-server-output, -u -b 50M and -u -R,
each with the client's JSON free of errors and its numbers equal to the appliance's counters; the test bound (busy clients
refused while the others complete), the stream bound, a client killed mid-test, and malformed
control input. One appliance (4 cores, TCG) serves every test of this file in turn."""
import json
import os
import re
import signal
import subprocess
import time

import pytest

from netlab import HOSTS, Lab, ns_run
from qemu import DEFAULT_ELF, ROOT, TEST_ELF

APPLIANCE = HOSTS[0][1]
SECONDS = 5  # per test: TCG is slow, 5 s measure the same things as 10


def conf_int(key):
    """A bound from config/default.conf (the image under test), e.g. sink.max_tests."""
    with open(os.path.join(ROOT, "config", "default.conf")) as f:
        m = re.search(rf"^{re.escape(key)}\s*=\s*(\d+)", f.read(), re.M)
    return int(m.group(1))


MAX_TESTS = conf_int("sink.max_tests")
MAX_STREAMS = conf_int("sink.max_streams")


@pytest.fixture(scope="module")
def lab():
    lab = Lab(kernel=DEFAULT_ELF, smp=4)
    try:
        lab.guest.wait_ready()
        lab.wait_links()
        assert " 0% packet loss" in lab.ping(0, count=1).stdout  # ARP both ways
        yield lab
    finally:
        lab.close()


def iperf3_counters(lab):
    return lab.stats()["sink"]["iperf3"]


def settled(lab, timeout=30):
    """The iperf3 counters once the server holds nothing (lwIP may still be closing)."""
    deadline = time.monotonic() + timeout
    while True:
        c = iperf3_counters(lab)
        if c["active"] == 0:
            return c
        assert time.monotonic() < deadline, c
        time.sleep(0.5)


def delta(after, before):
    return {k: after[k] - before[k] for k in after if k != "active"}


def client_cmd(lab, *args):
    return ["ip", "netns", "exec", lab.nss[0], "iperf3", "-c", APPLIANCE, *args]


def run_json(lab, *args, timeout=120):
    """iperf3 -J ARGS; returns (rc, parsed JSON)."""
    r = subprocess.run(client_cmd(lab, "-J", *args), capture_output=True, text=True,
                       timeout=timeout)
    return r.returncode, json.loads(r.stdout)


def measured(lab, *args):
    """One test: the client's JSON and the change of the appliance's counters."""
    before = settled(lab)
    rc, j = run_json(lab, "-t", str(SECONDS), *args)
    assert rc == 0 and "error" not in j, j.get("error")
    d = delta(settled(lab), before)
    assert d["tests_run"] == d["tests_done"] == 1 and d["tests_failed"] == 0, d
    assert d["refused"] == d["protocol_errors"] == 0, d
    return j["end"], d


def test_tcp(lab):
    netif0 = lab.stats()["sink"]["netif"]
    end, d = measured(lab)
    # the receiver line is the appliance's count, byte for byte
    assert end["sum_received"]["bytes"] == d["rx_bytes"] > 1_000_000, (end["sum_received"], d)
    assert end["sum_received"]["bytes"] <= end["sum_sent"]["bytes"]
    assert d["tx_bytes"] == d["rx_datagrams"] == d["tx_datagrams"] == 0, d
    # the stream reached lwIP in runs of segments (net/gro.h), each checksum checked once
    netif = lab.stats()["sink"]["netif"]
    merged = netif["rx_gro_merged"] - netif0["rx_gro_merged"]
    runs = netif["rx_gro_aggregates"] - netif0["rx_gro_aggregates"]
    segments = d["rx_bytes"] // 1448
    assert runs > 0 and merged > segments // 2, (runs, merged, segments)


def test_tcp_omit_and_client_zerocopy(lab):
    """-O 1: the first second is not measured (the appliance counts and reports only what came
    after it); -Z: the client sends with sendfile, nothing changes on the wire. Both complete
    with the receiver line equal to the appliance's count."""
    for args in (("-O", "1"), ("-Z",)):
        end, d = measured(lab, *args)
        assert end["sum_received"]["bytes"] == d["rx_bytes"] > 100_000, (args, end, d)
    # (with -O each side ends the omitted second on its own clock: the appliance's count may
    # exceed the client's sent bytes by what crossed in between)
    assert end["sum_received"]["bytes"] <= end["sum_sent"]["bytes"]


def test_tcp_parallel(lab):
    end, d = measured(lab, "-P", "4")
    assert len(end["streams"]) == 4
    per_stream = [s["receiver"]["bytes"] for s in end["streams"]]
    assert all(b > 0 for b in per_stream), per_stream
    assert sum(per_stream) == end["sum_received"]["bytes"] == d["rx_bytes"], (per_stream, d)


def test_tcp_reverse(lab):
    netif0 = lab.stats()["sink"]["netif"]
    end, d = measured(lab, "-R")
    # the sender line is the appliance's: bytes the client acknowledged while the test ran
    assert end["sum_sent"]["bytes"] == d["tx_bytes"] > 1_000_000, (end["sum_sent"], d)
    assert end["sum_received"]["bytes"] > 0
    assert d["rx_bytes"] == 0, d
    # -R's payload left by reference (only headers copied) in segments the NIC cut at the
    # client's MSS with checksums it completed, and the client's TCP took every byte (its
    # count above), so all of it was right
    netif = lab.stats()["sink"]["netif"]
    tso = netif["tx_tso_frames"] - netif0["tx_tso_frames"]
    assert tso >= end["sum_sent"]["bytes"] // 16060 // 2, (netif0, netif)
    assert netif["tx_csum_offloaded"] - netif0["tx_csum_offloaded"] >= tso


def test_tcp_bidir(lab):
    """--bidir -P 2: four streams, the client's two sending to the appliance and the
    appliance's two sending back, at the same time; each direction's server-side line is
    the appliance's own count."""
    end, d = measured(lab, "--bidir", "-P", "2")
    assert len(end["streams"]) == 4, end["streams"]
    assert end["sum_received"]["bytes"] == d["rx_bytes"] > 100_000, (end["sum_received"], d)
    rev = end["sum_sent_bidir_reverse"]
    assert rev["bytes"] == d["tx_bytes"] > 100_000, (rev, d)
    assert end["sum_received_bidir_reverse"]["bytes"] > 0
    assert d["rx_datagrams"] == d["tx_datagrams"] == 0, d


def test_server_output_text(lab):
    """--get-server-output (default config: text, as iperf3 -s): the client prints the
    appliance's own report after its own, and with -J carries it as server_output_text."""
    before = settled(lab)
    r = subprocess.run(client_cmd(lab, "-t", "2", "--get-server-output"), capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r
    assert "Server output:" in r.stdout and "wirespeed sink: iperf3 test" in r.stdout, r.stdout
    m = re.search(r"\[ +1\]   0\.00-\S+ +sec +(\d+) +\d+ bits/sec  receiver", r.stdout)
    assert m, r.stdout
    rc, j = run_json(lab, "-t", "2", "--get-server-output")
    assert rc == 0 and "error" not in j, j.get("error")
    assert "wirespeed sink" in j["server_output_text"], j.get("server_output_text")
    d = delta(settled(lab), before)
    assert d["tests_done"] == 2 and d["tests_failed"] == 0, d
    assert int(m.group(1)) + j["end"]["sum_received"]["bytes"] == d["rx_bytes"], (m.group(1), d)


def test_server_output_json():
    """sink.iperf3_json = yes (config/test.conf, as iperf3 -s -J): the report comes as
    server_output_json, whose sum is what the client's receiver line says."""
    lab = Lab(kernel=TEST_ELF, smp=2)
    try:
        lab.guest.wait_ready()
        lab.wait_links()
        assert " 0% packet loss" in lab.ping(0, count=1).stdout
        rc, j = run_json(lab, "-t", "2", "--get-server-output")
        assert rc == 0 and "error" not in j, j.get("error")
        so = j["server_output_json"]["end"]
        assert so["sum_received"]["bytes"] == j["end"]["sum_received"]["bytes"] > 0, so
        assert so["sum_sent"]["bytes"] == 0 and len(so["streams"]) == 1, so
    finally:
        lab.close()


def test_udp_bidir(lab):
    """-u --bidir -P 2: the client's two streams send to the appliance at 20 Mb/s each while
    the appliance's two send back at the same rate; each direction's server-side line is the
    appliance's own count, and the client received some of what the appliance sent."""
    end, d = measured(lab, "-u", "--bidir", "-P", "2", "-b", "20M")
    assert len(end["streams"]) == 4, end["streams"]
    rcv = end["sum_received"]
    assert rcv["bytes"] == d["rx_bytes"] > 100_000, (rcv, d)
    assert rcv["packets"] - rcv["lost_packets"] == d["rx_datagrams"], (rcv, d)
    rev = end["sum_sent_bidir_reverse"]
    assert rev["bytes"] == d["tx_bytes"] > 100_000, (rev, d)
    assert rev["packets"] == d["tx_datagrams"], (rev, d)
    back = end["sum_received_bidir_reverse"]
    assert 0 < back["bytes"] <= rev["bytes"], (back, rev)


def test_udp(lab):
    end, d = measured(lab, "-u", "-b", "50M")
    rcv = end["sum_received"]
    assert rcv["bytes"] == d["rx_bytes"] > 0, (rcv, d)
    # packets = highest sequence number seen, lost = the gaps: what arrived is the difference
    assert rcv["packets"] - rcv["lost_packets"] == d["rx_datagrams"], (rcv, d)
    assert rcv["packets"] <= end["sum_sent"]["packets"]


def test_udp_reverse(lab):
    end, d = measured(lab, "-u", "-R", "-b", "10M")
    snt = end["sum_sent"]
    assert snt["bytes"] == d["tx_bytes"] > 0 and snt["packets"] == d["tx_datagrams"], (snt, d)
    assert end["sum_received"]["packets"] > 0


def test_busy_clients_refused_while_the_others_complete(lab):
    """sink.max_tests tests run at once; the next client is told the server is busy (iperf3's
    ACCESS_DENIED) and counted; the running ones finish normally."""
    before = settled(lab)
    running = [subprocess.Popen(client_cmd(lab, "-J", "-t", str(SECONDS), "-b", "20M"),
                                stdout=subprocess.PIPE, text=True) for _ in range(MAX_TESTS)]
    try:
        deadline = time.monotonic() + 30
        while iperf3_counters(lab)["tests_run"] - before["tests_run"] < MAX_TESTS:
            assert time.monotonic() < deadline, "the first clients did not start"
            time.sleep(0.3)
        busy = subprocess.run(client_cmd(lab, "-t", "1"), capture_output=True, text=True,
                              timeout=60)
        assert busy.returncode == 1, busy
        assert "the server is busy running a test" in busy.stdout + busy.stderr, busy
        outs = [p.communicate(timeout=120)[0] for p in running]
    finally:
        for p in running:
            p.kill()
    for p, out in zip(running, outs):
        j = json.loads(out)
        assert p.returncode == 0 and "error" not in j, j.get("error")
    d = delta(settled(lab), before)
    assert d["refused"] == 1, d
    assert d["tests_run"] == d["tests_done"] == MAX_TESTS and d["tests_failed"] == 0, d
    got = sum(json.loads(o)["end"]["sum_received"]["bytes"] for o in outs)
    assert got == d["rx_bytes"], (got, d)


def test_too_many_streams_refused_with_a_message(lab):
    before = settled(lab)
    r = subprocess.run(client_cmd(lab, "-t", "1", "-P", str(MAX_STREAMS + 1)),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r
    assert "number of parallel streams too large" in r.stdout + r.stderr, r
    d = delta(settled(lab), before)
    assert d["refused"] == 1 and d["tests_run"] == 0, d


@pytest.mark.parametrize("sig,mode", [(signal.SIGKILL, []), (signal.SIGKILL, ["-R"]),
                                      (signal.SIGINT, [])],
                         ids=["kill9-forward", "kill9-reverse", "ctrl-c"])
def test_client_gone_mid_test_frees_everything(lab, sig, mode):
    """kill -9 of the client mid-test (its kernel closes the sockets) or Ctrl-C (the client
    sends CLIENT_TERMINATE): the server drops the test, counts it failed, holds nothing."""
    before = settled(lab)
    p = subprocess.Popen(client_cmd(lab, "-t", "60", *mode), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while iperf3_counters(lab)["active"] < 2:  # control + the stream
            assert time.monotonic() < deadline, "the client did not start"
            time.sleep(0.3)
        time.sleep(2)
    finally:
        p.send_signal(sig)
        out = p.communicate(timeout=30)[0]
    if sig == signal.SIGINT:
        assert "the client has terminated" in out, out
    after = settled(lab, timeout=90)  # up to lwIP's keepalive if a FIN were lost
    d = delta(after, before)
    assert d["tests_run"] == d["tests_failed"] == 1 and d["tests_done"] == 0, d
    assert after["active"] == 0
    assert (d["tx_bytes"] if mode else d["rx_bytes"]) > 0, d


HOSTILE = r"""
import socket, struct, sys
a = (sys.argv[1], int(sys.argv[2]))
def answer(s):
    s.settimeout(10)
    out = b''
    while True:
        d = s.recv(64)
        if not d:
            return out.hex()
        out += d
s = socket.create_connection(a)                       # not a cookie: an HTTP request
s.sendall(b'GET / HTTP/1.1\r\nHost: appliance\r\nAccept: */*\r\n\r\n')
r1 = answer(s)
s = socket.create_connection(a)                       # a cookie, then a 4 GB "JSON"
s.sendall(b'abcdefghijklmnopqrstuvwxyz234567abcd\0')
r2 = s.recv(1).hex()
s.sendall(struct.pack('>I', 0xffffffff))
r3 = answer(s)
print(r1, r2, r3)
"""


def test_malformed_control_input(lab):
    """A non-iperf3 client gets ACCESS_DENIED (0xff) and FIN; a length prefix over the bound
    gets SERVER_ERROR 110 ("received an unknown control message"); both counted."""
    before = settled(lab)
    out = ns_run(lab.nss[0], "/usr/bin/python3", "-c", HOSTILE, APPLIANCE, "5201").stdout.split()
    assert out == ["ff", "09", "fe0000006e00000000"], out
    d = delta(settled(lab), before)
    assert d["protocol_errors"] == 2 and d["tests_run"] == 0, d
    rc, j = run_json(lab, "-t", "1")  # and the server still works
    assert rc == 0 and "error" not in j, j.get("error")


IDLE = r"""
import socket, subprocess, sys
a = (sys.argv[1], int(sys.argv[2]))
idle = [socket.create_connection(a, timeout=10) for _ in range(int(sys.argv[3]))]
r = subprocess.run(['iperf3', '-c', a[0], '-t', '2', '-J'], capture_output=True, text=True)
print(r.stdout)
"""


def test_idle_connections_do_not_lock_clients_out(lab):
    """Connections that never send a cookie only evict each other (oldest first, counted as
    refused): a real client arriving among them still runs its test."""
    before = settled(lab)
    r = ns_run(lab.nss[0], "/usr/bin/python3", "-c", IDLE, APPLIANCE, "5201", "12", timeout=120)
    j = json.loads(r.stdout)
    assert "error" not in j, j["error"]
    d = delta(settled(lab), before)
    assert d["tests_run"] == d["tests_done"] == 1, d
    assert d["refused"] >= 4 and d["rx_bytes"] == j["end"]["sum_received"]["bytes"], d


STRAY = r"""
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for size in (4, 1, 100, 1400, 4, 0):  # two connect-sized ones that no test waits for
    s.sendto(b'\x39' * size, (sys.argv[1], int(sys.argv[2])))
"""


def test_stray_udp_datagrams_counted(lab):
    """Datagrams at the iperf3 UDP port while no test runs (a late sender, a scanner, a connect
    datagram no test waits for) are dropped and counted, not lost silently; nothing else moves."""
    before = settled(lab)
    ns_run(lab.nss[0], "/usr/bin/python3", "-c", STRAY, APPLIANCE, "5201")
    deadline = time.monotonic() + 20
    while (d := delta(settled(lab), before))["rx_ignored"] < 6 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert d["rx_ignored"] == 6, d
    assert all(v == 0 for k, v in d.items() if k != "rx_ignored"), d
