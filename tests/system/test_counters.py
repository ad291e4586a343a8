"""Counters a network engineer can trust (issue: counters): they match the host's view of the
wire, conserve, clear, and watch prints only what changed. 4 cores, two igb ports on taps
(@BOTH_NICS tests: also two emulated 82599 ports)."""
import os
import re
import threading
import time

import pytest

from netlab import BOTH_NICS, HOSTS, finish_lab, ns_run, port_queues, queue_sum, start_lab
from qemu import DEFAULT_ELF, ROOT
from test_forward import check_forward_conservation, flows_through

FLOWCHECK = os.path.join(ROOT, "tests", "tools", "flowcheck.py")


@pytest.fixture
def lab(nic):
    lab = start_lab(nic, kernel=DEFAULT_ELF, smp=4)
    try:
        yield lab
    finally:
        finish_lab(lab)


def tap_stats(lab, port):
    base = f"/sys/class/net/{lab.taps[port]}/statistics/"
    return {k: int(ns_run(lab.nss[port], "cat", base + k).stdout)
            for k in ("tx_packets", "tx_bytes", "rx_packets", "rx_bytes", "tx_dropped")}


def quiet_snapshot(lab):
    """stats json and both taps' counters at one quiet moment: the hosts' kernels may send an
    ARP probe at any time, so retry until no frame crossed a wire while stats was read."""
    for _ in range(10):
        before = [tap_stats(lab, p) for p in (0, 1)]
        st = lab.stats()
        if [tap_stats(lab, p) for p in (0, 1)] == before:
            return st, before
        time.sleep(0.3)
    raise AssertionError("the wires never went quiet")


@BOTH_NICS
def test_port_counters_equal_what_the_host_saw(lab):
    lab.ping(0, dst=HOSTS[1][0], count=2)  # resolve next hops
    time.sleep(0.5)
    st0, taps0 = quiet_snapshot(lab)
    flows_through(lab, 0, 1, HOSTS[0][0], HOSTS[1][0], flows=16, per_flow=50)
    lab.ping(1, count=5)
    time.sleep(1)
    st1, taps1 = quiet_snapshot(lab)
    for port in (0, 1):
        d = lambda k: taps1[port][k] - taps0[port][k]
        hw1, hw0 = st1["ports"][port]["hw"], st0["ports"][port]["hw"]
        assert d("tx_dropped") == 0
        # what the host sent into the port is what the NIC counted received, and vice versa
        assert hw1["rx_packets"] - hw0["rx_packets"] == d("tx_packets"), port
        assert hw1["tx_packets"] - hw0["tx_packets"] == d("rx_packets"), port
        rx_q = queue_sum(st1, port, "rx_packets") - queue_sum(st0, port, "rx_packets")
        assert rx_q == d("tx_packets"), port
        # the NIC's octets include the 4-byte CRC the tap never sees, and the NIC pads frames
        # shorter than 60 bytes (ARP: 42) before counting them
        rxb, n = hw1["rx_bytes"] - hw0["rx_bytes"], d("tx_packets")
        assert d("tx_bytes") + 4 * n <= rxb <= d("tx_bytes") + 22 * n, (port, rxb, d("tx_bytes"))
        for q in port_queues(st1, port):
            check_forward_conservation(q)


@BOTH_NICS
def test_stats_json_matches_the_documented_schema(lab):
    st = lab.stats()
    assert st["schema"] == 1
    for key in ("uptime_ns", "tsc_hz", "cleared_ns", "console_dropped_bytes", "cores", "ports"):
        assert key in st, key
    assert [c["core"] for c in st["cores"]] == [0, 1, 2, 3]
    for p in st["ports"]:
        assert {"port", "name", "chip", "link", "speed_mbps", "link_changes", "hw",
                "queues"} <= set(p)
        assert isinstance(p["link"], bool) and p["chip"] == lab.chip
        assert [q["queue"] for q in p["queues"]] == [0, 1, 2, 3]
        for q in p["queues"]:
            assert all(isinstance(v, int) and v >= 0 for v in q.values())


@BOTH_NICS
def test_clear_zeroes_the_view(lab):
    assert " 0% packet loss" in lab.ping(0, count=3).stdout
    before = lab.stats()
    assert queue_sum(before, 0, "icmp_echo_answered") == 3
    lab.guest.command("clear", r"^counters cleared \(\d+ software views reset; hardware "
                               r"registers untouched\)$")
    after = lab.stats()
    assert after["cleared_ns"] > 0
    for p in after["ports"]:
        assert all(v == 0 for k, v in p["hw"].items()), p["hw"]
        for q in p["queues"]:
            assert all(v == 0 for k, v in q.items() if k not in ("queue", "core")), q
    assert " 0% packet loss" in lab.ping(0, count=2).stdout
    again = lab.stats()
    assert queue_sum(again, 0, "icmp_echo_answered") == 2  # counting resumes from zero
    lab.guest.command("stats port 0", r"icmp_echo_answered 2")


def test_watch_prints_only_changed_counters(lab):
    lab.guest.command("watch 1", r"^watch on$")
    # nothing happens on port1; pings on port0: only port0's counters (and cores) may show
    lab.ping(0, count=10, timeout=30)
    time.sleep(2.5)
    lab.guest.command("watch off", r"^watch off$")
    text = lab.guest.text()
    samples = text.split("watch: rates over the last")[1:]
    assert len(samples) >= 2, text[-3000:]
    lines = [l for s in samples for l in s.splitlines()[1:] if l and not l.startswith("wirespeed")]
    assert any(re.match(r"^port0 q\d+\s.*icmp_echo_answered \d+/s", l) for l in lines), lines
    assert not any(l.startswith("port1") for l in lines), lines  # unchanged: not printed
    assert all(re.search(r" \d[\d,]*/s", l) for l in lines if l.startswith(("port", "core"))), lines


def test_console_flood_does_not_slow_forwarding(lab):
    lab.ping(0, dst=HOSTS[1][0], count=2)
    quiet = flows_through(lab, 0, 1, HOSTS[0][0], HOSTS[1][0], flows=16, per_flow=100, pps=4000)
    stop = threading.Event()

    def flood():
        junk = b"x" * 200 + b"\x01\xff garbage\r" + b"frobnicate\r" + bytes(range(256))
        while not stop.is_set():  # about what a 115200-baud line carries (11 KB/s)
            lab.guest.send(junk)
            time.sleep(0.05)

    t = threading.Thread(target=flood)
    t.start()
    try:
        noisy = flows_through(lab, 0, 1, HOSTS[0][0], HOSTS[1][0], flows=16, per_flow=100,
                              pps=4000)
    finally:
        stop.set()
        t.join()
    assert quiet["received"] == quiet["sent"] == 1600, quiet
    assert noisy["received"] == noisy["sent"] == 1600, noisy
    assert noisy["reordered"] == 0
    lab.guest.send("\x03")  # a clean line after whatever the flood left half-typed
    lab.guest.command("version", r"^wirespeed \d", timeout=60)  # and the console still answers
