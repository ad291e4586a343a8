"""Hostile peers against the sink (issue: the TCP/UDP sink, robustness; issue: robustness,
floods): a SYN flood from spoofed addresses while a transfer runs, TCP segments with hostile
options, a peer that closes its window, fragments that never complete. Each time the transfer
completes, the appliance keeps answering, and what it dropped is counted."""
import json
import os
import subprocess
import time

import pytest

from netlab import HOSTS, Lab, ns_run
from qemu import DEFAULT_ELF, ROOT
from test_forward import flows_through
from test_sink_basic import APPLIANCE, CLIENT, client, settled

HOSTILE = os.path.join(ROOT, "tests", "system", "tcp_hostile.py")


@pytest.fixture
def lab():
    lab = Lab(kernel=DEFAULT_ELF, smp=4)
    try:
        lab.guest.wait_ready()
        lab.wait_links()
        assert " 0% packet loss" in lab.ping(0, count=1).stdout
        yield lab
    finally:
        lab.close()


def port0_mac(lab):
    lab.guest.send("ports\r")
    m = lab.guest.expect(r"port0 +\S+ +\S+ +([0-9a-f:]{17})", 10)
    lab.guest.expect(r"wirespeed> ", 10)
    return m.group(1)


class Stream:
    """A discard transfer running in the background while something hostile happens."""

    def __init__(self, lab, nbytes=20_000_000):
        self.nbytes = nbytes
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", lab.nss[0], "/usr/bin/python3", CLIENT, "tcp-discard",
             APPLIANCE, str(nbytes)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.3)

    def finish(self, timeout=240):
        out, err = self.proc.communicate(timeout=timeout)
        assert self.proc.returncode == 0, err
        r = json.loads(out)
        assert r["sent"] == self.nbytes and r["eof"], r
        return r


@pytest.mark.parametrize("flags", ["-S", "-A"], ids=["syn", "ack"])
def test_flood_during_transfer(lab, flags):
    """15,000 SYNs (or stray ACKs) from random spoofed sources to the discard port while a
    transfer to the same port runs: the transfer completes with every byte, and a new client
    connects right after (half-open connections are evicted, not left to block the
    listener)."""
    stream = Stream(lab, 30_000_000)
    flood = subprocess.Popen(
        ["ip", "netns", "exec", lab.nss[0], "hping3", "-q", flags, "-p", "9", "--rand-source",
         "-i", "u200", "-c", "15000", APPLIANCE],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        stream.finish()
        flood.wait(timeout=120)
    finally:
        if flood.poll() is None:
            flood.kill()
            flood.wait()
    r = client(lab, "tcp-discard", 1_000_000)  # the listener still accepts
    assert r["eof"], r
    st = settled(lab)
    sink = st["sink"]
    assert sink["discard"]["rx_bytes"] == 31_000_000, sink["discard"]
    assert sink["discard"]["tests_done"] == 2, sink["discard"]
    if flags == "-S":
        assert sink["tcp"]["half_open_evicted"] > 0, sink["tcp"]
    else:  # every stray ACK is answered with a reset (RFC 9293 3.10.7.1), none accepted
        assert sink["tcp"]["resets_sent"] > 0 and sink["tcp"]["passive_opens"] == 2, sink["tcp"]
    assert " 0% packet loss" in lab.ping(0, count=2).stdout


def test_hostile_options_and_zero_window(lab):
    mac = port0_mac(lab)
    stream = Stream(lab)
    r = ns_run(lab.nss[0], "/usr/bin/python3", HOSTILE, lab.taps[0], APPLIANCE, mac,
               timeout=180)
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["handshake"], out
    # Every data segment was taken despite its options, and echoed back.
    assert out["data_hostile_acked"] == 10 and out["echoed_bytes"] == 640, out
    # With our window shut, the appliance probed with at most one byte and sent the rest
    # only once the window opened.
    assert out["zero_window_probes"] >= 1 and out["zero_window_max_probe_bytes"] <= 1, out
    assert out["before_window_closed"] == 100 and out["after_window_opened"] == 1000, out
    assert out["syn_hostile_answered"] >= 1, out
    stream.finish()
    # The appliance is fine: a normal transfer right after.
    e = client(lab, "tcp-echo", 1_000_000)
    assert e["equal"], e
    assert " 0% packet loss" in lab.ping(0, count=2).stdout


def test_fragments_that_never_complete(lab):
    """First fragments of 65507-byte datagrams whose other fragments never come: lwIP holds
    their buffers only until the reassembly timeout, then every buffer goes home."""
    code = ("import socket, struct, random\n"
            "s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)\n"
            "for i in range(300):\n"
            "    payload = b'f' * 1480\n"
            "    hdr = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(payload), 4000 + i,\n"
            "                      0x2000, 64, 17, 0, socket.inet_aton('198.18.0.2'),\n"
            f"                      socket.inet_aton('{APPLIANCE}'))\n"
            f"    s.sendto(hdr + payload, ('{APPLIANCE}', 0))\n")
    stream = Stream(lab)
    ns_run(lab.nss[0], "/usr/bin/python3", "-c", code)
    stream.finish()
    # While they wait, a full datagram still gets through.
    assert client(lab, "udp-echo", 3, 65507)["echoed"] == 3
    st = settled(lab, timeout=30)
    assert st["sink"]["discard"]["rx_bytes"] == 20_000_000  # IP_REASS_MAXAGE is 5 s
    ip = st["sink"]["ip"]
    assert ip["reassembly_failed"] >= 1, ip
    assert st["sink"]["netif"]["rx_wrapped"] == st["sink"]["netif"]["rx_released"]
    handed = sum(c["sink_handed"] for c in st["cores"])
    assert handed == sum(c["sink_reclaimed"] for c in st["cores"])


def test_syn_flood_during_iperf3(lab):
    """The issue's form: a SYN flood at the iperf3 port while `iperf3 -c -P 2` runs there; the
    client connects (control and both streams) through the flood, completes without error,
    and its byte count is the appliance's."""
    before = settled(lab)["sink"]["iperf3"]
    flood = subprocess.Popen(
        ["ip", "netns", "exec", lab.nss[0], "hping3", "-q", "-S", "-p", "5201", "--rand-source",
         "-i", "u200", "-c", "20000", APPLIANCE],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        r = ns_run(lab.nss[0], "iperf3", "-c", APPLIANCE, "-t", "5", "-P", "2", "-J",
                   check=False, timeout=120)
        flood.wait(timeout=120)
    finally:
        if flood.poll() is None:
            flood.kill()
            flood.wait()
    j = json.loads(r.stdout)
    assert r.returncode == 0 and "error" not in j, j.get("error")
    st = settled(lab)
    after = st["sink"]["iperf3"]
    assert j["end"]["sum_received"]["bytes"] == after["rx_bytes"] - before["rx_bytes"]
    assert after["tests_done"] - before["tests_done"] == 1
    assert st["sink"]["tcp"]["half_open_evicted"] > 0, st["sink"]["tcp"]


HOARD = r"""
import json, socket, sys, time
a, n = (sys.argv[1], 7), int(sys.argv[2])
conns = []
for _ in range(n):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)  # our window shuts almost at once
    s.connect(a)
    s.setblocking(False)
    conns.append(s)
sent, chunk, quiet_since = [0] * n, b"h" * 65536, None
deadline = time.monotonic() + 30
while time.monotonic() < deadline:  # send until every connection's window is shut for 2 s
    moved = False
    for i, s in enumerate(conns):
        try:
            sent[i] += s.send(chunk)
            moved = True
        except BlockingIOError:
            pass
    if moved:
        quiet_since = None
    elif quiet_since is None:
        quiet_since = time.monotonic()
    elif time.monotonic() - quiet_since > 2:
        break
    time.sleep(0.01)
print(json.dumps({"sent": sent}), flush=True)
sys.stdin.readline()  # hold everything until the test is done
for s in conns:
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")  # close = reset
    s.close()
"""


ECHO_WINDOW = 65535  # apps/sink/basic.c: what an echo connection offers
SEGMENTS_PER_WINDOW = -(-ECHO_WINDOW // 1448)  # one driver buffer per full segment


def test_echo_clients_that_never_read_cannot_drain_the_pools():
    """15 echo clients send until their windows shut and never read what comes back, on 2
    cores: lwIP holds what they sent in the cores' own buffers, but an echo connection offers
    a 64 KiB window, so together they hold at most 15 windows' worth and both cores keep
    buffers to receive with: forwarding between the ports loses nothing and an iperf3 test
    completes meanwhile; once the clients reset, every buffer comes home."""
    lab = Lab(kernel=DEFAULT_ELF, smp=2)
    hoard = None
    try:
        lab.guest.wait_ready()
        lab.wait_links()
        lab.ping(0, dst=HOSTS[1][0], count=2)  # resolve the next hops both ways
        before = settled(lab)
        size = [c["pool_size"] for c in before["cores"]]
        hoard = subprocess.Popen(["ip", "netns", "exec", lab.nss[0], "/usr/bin/python3", "-c",
                                  HOARD, APPLIANCE, "15"], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
        sent = json.loads(hoard.stdout.readline())["sent"]
        held = lab.stats()
        echo, netif = held["sink"]["echo"], held["sink"]["netif"]
        assert echo["active"] == 15, echo
        # Each filled its window at least once (and echo wrote some back), none got more.
        assert 15 * ECHO_WINDOW <= echo["rx_bytes"] <= sum(sent), (echo, sent)
        in_lwip = netif["rx_wrapped"] - netif["rx_released"]
        assert 0 < in_lwip <= 15 * SEGMENTS_PER_WINDOW, netif
        for c, idle in zip(held["cores"], before["cores"]):
            assert c["pool_free"] >= idle["pool_free"] - 15 * SEGMENTS_PER_WINDOW, (c, idle)
            assert c["pool_alloc_fail"] == 0, c
        rep = flows_through(lab, 0, 1, HOSTS[0][0], HOSTS[1][0], flows=16, per_flow=50)
        assert rep["received"] == rep["sent"] == 800, rep
        r = subprocess.run(["ip", "netns", "exec", lab.nss[0], "iperf3", "-c", APPLIANCE, "-t",
                            "2", "-J"], capture_output=True, text=True, timeout=120)
        j = json.loads(r.stdout)
        assert r.returncode == 0 and "error" not in j, j.get("error")
        hoard.stdin.close()
        hoard.wait(timeout=30)
        after = settled(lab, timeout=60)
        assert [c["pool_free"] for c in after["cores"]] == \
            [c["pool_free"] for c in before["cores"]]
        print(f"{sum(sent)} bytes sent by 15 clients that never read, {echo['rx_bytes']} taken; "
              f"{in_lwip} buffers in lwIP; pools free while held: "
              f"{[c['pool_free'] for c in held['cores']]} of {size}")
    finally:
        if hoard and hoard.poll() is None:
            hoard.kill()
            hoard.wait()
        lab.close()
