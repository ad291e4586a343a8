"""Link flaps (issue 10): 100 down/up flaps of both igb links in a row through the QEMU monitor
(`set_link`), with a stream crossing the router all along; traffic resumes after the flaps (a
ping through the router after every tenth, a full stream after the last), nothing is reordered
or duplicated, and the appliance's counters still conserve. 4 cores."""
import json
import os
import socket
import subprocess
import time

import pytest

from netlab import HOSTS, Lab, port_queues, queue_sum
from qemu import DEFAULT_ELF, ROOT
from test_forward import check_forward_conservation, flows_through

FLOWCHECK = os.path.join(ROOT, "tests", "tools", "flowcheck.py")
FLAPS = 100
DOWN_S = 0.05  # set_link off this long; QEMU's igb then renegotiates for 500 ms before link up


class Monitor:
    """One connection to QEMU's human monitor, kept open for a series of commands (the lab's
    monitor_cmd reconnects and sleeps half a second per command)."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(5)
        self.s.connect(path)
        self._read_until(b"(qemu) ")

    def _read_until(self, token):
        buf = b""
        while not buf.endswith(token):
            chunk = self.s.recv(4096)
            if not chunk:
                raise AssertionError(f"monitor closed: {buf!r}")
            buf += chunk
        return buf

    def cmd(self, line):
        self.s.sendall((line + "\n").encode())
        out = self._read_until(b"(qemu) ").decode("latin-1")
        assert "Error" not in out and "not found" not in out, out
        return out

    def close(self):
        self.s.close()


@pytest.fixture
def lab():
    lab = Lab(kernel=DEFAULT_ELF, smp=4)
    try:
        lab.guest.wait_ready()
        lab.wait_links()
        yield lab
    finally:
        lab.close()


def wait_links_up(lab, mark, timeout=10):
    """Both ports reported `link up` on the console after text position mark."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = lab.guest.text()[mark:]
        if "port0: link up" in text and "port1: link up" in text:
            return
        time.sleep(0.02)
    raise AssertionError(f"links not back up within {timeout} s:\n{lab.guest.text()[-2000:]}")


def wait_ping_through(lab, timeout=15):
    """Seconds until one echo crosses the router (host A -> host B -> host A)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        r = lab.ping(0, dst=HOSTS[1][0], count=1, timeout=10)
        if " 0% packet loss" in r.stdout:
            return time.monotonic() - t0
        time.sleep(0.1)
    raise AssertionError(f"no ping through the router within {timeout} s:\n"
                         f"{lab.guest.text()[-2000:]}")


def test_100_link_flaps_traffic_resumes_counters_conserve(lab):
    lab.ping(0, dst=HOSTS[1][0], count=2)  # resolve the next hops
    before = lab.stats()
    # a stream across the router for the whole series: 16 flows at 500 frames/s
    rx = subprocess.Popen(["ip", "netns", "exec", lab.nss[1], "python3", FLOWCHECK, "recv",
                           HOSTS[1][0], "5001", "1000000", "--idle", "6", "--timeout", "300"],
                          stdout=subprocess.PIPE, text=True)
    assert json.loads(rx.stdout.readline())["ready"]
    tx = subprocess.Popen(["ip", "netns", "exec", lab.nss[0], "python3", FLOWCHECK, "send",
                           HOSTS[0][0], HOSTS[1][0], "5001", "16", "2000", "--pps", "500"],
                          stdout=subprocess.PIPE, text=True)
    mon = Monitor(lab.monitor)
    resume = []
    t0 = time.monotonic()
    try:
        for i in range(1, FLAPS + 1):
            mark = len(lab.guest.text())
            mon.cmd("set_link n0 off")
            mon.cmd("set_link n1 off")
            time.sleep(DOWN_S)
            mon.cmd("set_link n0 on")
            mon.cmd("set_link n1 on")
            wait_links_up(lab, mark)  # a whole flap, seen by the appliance, before the next
            if i % 10 == 0:
                resume.append(wait_ping_through(lab))
    finally:
        mon.close()
    flaps_s = time.monotonic() - t0
    tx.kill()  # the stream only had to keep frames crossing during the flaps
    tx.wait(timeout=10)
    stream = json.loads(rx.stdout.readline())
    rx.wait(timeout=30)
    assert stream["reordered"] == 0 and stream["duplicates"] == 0, stream
    assert stream["received"] > 0, stream

    # after the series: the whole of a stream passes, both ways
    for src, dst in ((0, 1), (1, 0)):
        rep = flows_through(lab, src, dst, HOSTS[src][0], HOSTS[dst][0], flows=16, per_flow=50)
        assert rep["received"] == rep["sent"] == 800, rep
        assert rep["reordered"] == 0 and rep["duplicates"] == 0, rep
    time.sleep(1)
    after = lab.stats()
    changes = [after["ports"][p]["link_changes"] - before["ports"][p]["link_changes"]
               for p in (0, 1)]
    for p in (0, 1):
        port = after["ports"][p]
        assert port["link"] is True and port["state"] == "running", port
        assert port["tx_hangs"] == 0 and port["resets"] == 0, port  # a flap is not a hang
        for q in port_queues(after, p):
            check_forward_conservation(q)
        # every forwarded frame was sent, or dropped where the link was seen down
        assert queue_sum(after, 1 - p, "fwd_forwarded") == \
            queue_sum(after, p, "tx_forwarded") + queue_sum(after, p, "tx_ring_full"), p
    assert changes == [2 * FLAPS, 2 * FLAPS], changes  # each flap: one down, one up
    assert all(c["pool_free"] == b["pool_free"] for c, b in zip(after["cores"], before["cores"]))
    lab.guest.command("version", r"^wirespeed \d")
    print(f"{FLAPS} flaps of both links in {flaps_s:.1f} s; ping through again "
          f"{min(resume):.2f}..{max(resume):.2f} s after every tenth; link changes seen "
          f"{changes}; stream during the flaps: {stream['received']} received, 0 reordered")
