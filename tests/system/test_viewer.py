"""tools/wsview, the host viewer (docs/viewer.md): against a scripted console on a UNIX socket,
and against the real image in QEMU with its console on a socket and traffic from a namespace."""
import csv
import json
import os
import re
import select
import socket
import subprocess
import threading
import time
import uuid

import pytest

from netlab import HOSTS, ns_run, sh
from qemu import BOOT_TIMEOUT_S, DEFAULT_ELF, ROOT

WSVIEW = os.path.join(ROOT, "tools", "wsview")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def column(rows, name):
    return [float(r[name]) if r[name] != "" else None for r in rows]


# --- a scripted console: exact numbers, partial lines, noise and a broken reply -----------------

def fake_stats(n):
    """The n-th answer: one second of uptime later, 1000 more frames on port0 (500 of them
    dropped as an unsupported protocol), core0 busy a quarter of the time."""
    q = {"queue": 0, "core": 0, "irqs": 0, "rx_packets": 1000 * n, "rx_bytes": 125000 * n,
         "tx_packets": 10 * n, "tx_bytes": 1250 * n, "fwd_forwarded": 400 * n,
         "fwd_arp_requests_sent": 3 * n, "drop_ip_proto_unsupported": 500 * n,
         "route_ttl_expired": 100 * n}
    return {"schema": 1, "uptime_ns": 5_000_000_000 + n * 1_000_000_000, "tsc_hz": 1_000_000_000,
            "cores": [{"core": 0, "apic_id": 0, "busy_cycles": 250_000_000 * n,
                       "idle_cycles": 750_000_000 * n, "halts": 0, "pool_size": 4096,
                       "pool_free": 3000}],
            "ports": [{"port": 0, "name": "port0", "chip": "82576", "link": True,
                       "speed_mbps": 1000, "link_changes": 1,
                       "hw": {"rx_packets": 1000 * n, "rx_missed_errors": 7 * n,
                              "rx_no_buffer_count": 0, "rx_queue_drops": 0},
                       "queues": [q]}]}


class ScriptedConsole:
    """A UNIX socket server answering `stats json` the way the firmware does (echo, JSON line,
    prompt), but in small pieces, with a link message in between and answer 3 cut short."""

    def __init__(self, path):
        self.path = path
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.srv.bind(path)
        self.srv.listen(1)
        self.requests = 0
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        conn, _ = self.srv.accept()
        conn.settimeout(30)
        buf = b""
        n = 0
        try:
            while True:
                data = conn.recv(4096)
                if not data:
                    return
                buf += data
                while b"\r" in buf:
                    line, buf = buf.split(b"\r", 1)
                    self.requests += 1
                    out = line + b"\r\n"
                    if line.strip() == b"stats json":
                        text = json.dumps(fake_stats(n), separators=(",", ":")).encode()
                        if n == 3:
                            text = text[:len(text) // 2]  # a reply garbled on the wire
                        out += text + b"\r\n"
                        n += 1
                    out += b"wirespeed> "
                    if n == 2:
                        out += b"port0: link up 1000 Mb/s full duplex\r\n"
                    for i in range(0, len(out), 97):  # partial lines on the socket
                        conn.sendall(out[i:i + 97])
                        time.sleep(0.001)
        except OSError:
            return
        finally:
            conn.close()

    def close(self):
        self.srv.close()


def test_rates_from_a_scripted_console(tmp_path):
    sock = str(tmp_path / "console.sock")
    con = ScriptedConsole(sock)
    try:
        r = subprocess.run([WSVIEW, "--socket", sock, "--duration", "4", "--interval", "0.5",
                            "--no-tty", "--csv", str(tmp_path / "x.csv")],
                           capture_output=True, text=True, timeout=60)
    finally:
        con.close()
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 unparsed replies" in r.stderr, r.stderr
    rows = read_csv(tmp_path / "x.csv")
    assert len(rows) >= 5, rows
    # each sample is one second of the appliance's uptime, whatever the host clock says
    assert column(rows, "port0.rx_packets_per_s")[0] == 1000
    # the garbled reply is skipped: the next rate spans two seconds and is still exact
    assert set(column(rows, "port0.rx_packets_per_s")) == {1000}
    assert set(column(rows, "port0.rx_mbit_per_s")) == {1.0}
    assert set(column(rows, "core0.busy_pct")) == {25.0}
    assert set(column(rows, "core0.cycles_per_packet")) == {250000}
    # frame drops: the unsupported protocol, the router's TTL drop and the NIC's missed frames;
    # what the forwarder sent (ARP requests, forwarded frames) is no drop
    assert set(column(rows, "port0.drops_per_s")) == {500 + 100 + 7}
    assert set(column(rows, "port0.hw.rx_missed_errors_per_s")) == {7}
    assert [float(r["uptime_s"]) for r in rows][:2] == [6.0, 7.0]
    assert "port0.drop_ip_proto_unsupported=500" in r.stdout
    assert "fwd_arp_requests_sent" not in r.stdout and "fwd_forwarded" not in r.stdout


def test_clear_errors(tmp_path):
    missing = str(tmp_path / "missing.sock")
    r = subprocess.run([WSVIEW, "--socket", missing, "--no-tty"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 1
    assert f"socket {missing} not found" in r.stderr, r.stderr
    # a console that never answers (busy with another client, or not booted)
    silent = str(tmp_path / "silent.sock")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(silent)
    srv.listen(1)
    try:
        t = time.monotonic()
        r = subprocess.run([WSVIEW, "--socket", silent, "--no-tty"], capture_output=True,
                           text=True, timeout=30)
        took = time.monotonic() - t
    finally:
        srv.close()
    assert r.returncode == 1
    assert "no `stats json` answer" in r.stderr and "within 5 s" in r.stderr, r.stderr
    assert "is the console busy or the firmware not ready?" in r.stderr
    assert 4.5 < took < 10, took


# --- the real appliance: QEMU with its console on a UNIX socket ---------------------------------

class SocketLab:
    """Like netlab.Lab (two igb ports on taps, each tap in a namespace of its own), but the serial
    console on a UNIX socket, the way tools/run-qemu --serial-socket runs it."""

    def __init__(self, tmp_path, kernel=DEFAULT_ELF, smp=2):
        tag = uuid.uuid4().hex[:6]
        self.taps = [f"wsv{tag}{i}" for i in range(2)]
        self.nss = [f"wsvns{tag}{i}" for i in range(2)]
        self.sock = f"/tmp/wsview-{tag}.sock"  # short: sun_path holds 108 bytes
        self.log = open(tmp_path / "qemu.log", "wb")
        self.console = b""
        self.proc = None
        for tap, ns in zip(self.taps, self.nss):
            sh("ip", "tuntap", "add", "dev", tap, "mode", "tap")
            sh("ip", "netns", "add", ns)
        cmd = ["qemu-system-x86_64", "-machine", "q35", "-accel", "tcg", "-cpu", "max",
               "-smp", str(smp), "-m", "256M", "-display", "none", "-no-reboot",
               "-serial", f"unix:{self.sock},server=on,wait=off", "-monitor", "none",
               "-kernel", kernel]
        for i, tap in enumerate(self.taps):
            cmd += ["-netdev", f"tap,id=n{i},ifname={tap},script=no,downscript=no",
                    "-device", f"igb,netdev=n{i},bus=pcie.0,addr={2 + 2 * i:#x}"]
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT)
        # attach at once: with wait=off, what the firmware prints while nobody listens is lost
        deadline = time.monotonic() + 20
        self.conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        while True:
            try:
                self.conn.connect(self.sock)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                assert self.proc.poll() is None, self.qemu_log()
                assert time.monotonic() < deadline, "QEMU made no serial socket"
                time.sleep(0.01)
        time.sleep(0.5)  # QEMU has opened the taps: move them into their namespaces
        for i, (tap, ns) in enumerate(zip(self.taps, self.nss)):
            sh("ip", "link", "set", tap, "netns", ns)
            ns_run(ns, "sysctl", "-q", "net.ipv6.conf.all.disable_ipv6=1")
            ns_run(ns, "ip", "addr", "add", f"{HOSTS[i][0]}/24", "dev", tap)
            ns_run(ns, "ip", "link", "set", tap, "up")
            ns_run(ns, "ip", "link", "set", "lo", "up")

    def qemu_log(self):
        self.log.flush()
        with open(self.log.name, "rb") as f:
            return f.read().decode("latin-1")

    def expect(self, pattern, timeout):
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern, re.M)
        while True:
            text = self.console.decode("latin-1").replace("\r", "")
            if rx.search(text):
                return
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                raise AssertionError(f"no {pattern!r} within {timeout}s\n--- console ---\n"
                                     f"{text[-3000:]}\n--- qemu ---\n{self.qemu_log()}")
            if select.select([self.conn], [], [], min(left, 0.2))[0]:
                self.console += self.conn.recv(65536)

    def detach(self):
        """Let the viewer have the console (a socket chardev serves one client at a time)."""
        self.conn.close()
        self.conn = None

    def close(self):
        if self.conn:
            self.conn.close()
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
        if self.proc:
            self.proc.wait(timeout=10)
        self.log.close()
        for ns in self.nss:
            sh("ip", "netns", "delete", ns, check=False)
        for tap in self.taps:
            sh("ip", "link", "delete", tap, check=False)
        if os.path.exists(self.sock):
            os.unlink(self.sock)


@pytest.fixture
def socket_lab(tmp_path):
    lab = SocketLab(tmp_path)
    try:
        lab.expect(r"^ready: cores=2 ports=2$", BOOT_TIMEOUT_S)
        for i in range(2):
            lab.expect(rf"(?:^|(?<=> ))port{i}: link up", 30)
        lab.detach()
        yield lab
    finally:
        lab.close()


def test_viewer_records_traffic_from_qemu(socket_lab, tmp_path):
    lab = socket_lab
    r = ns_run(lab.nss[0], "ping", "-c", "1", "-W", "2", HOSTS[0][1], check=False)
    assert " 0% packet loss" in r.stdout, r.stdout  # ARP resolved: no datagram waits for it
    csv_path, png_path = tmp_path / "x.csv", tmp_path / "x.png"
    view = subprocess.Popen([WSVIEW, "--socket", lab.sock, "--duration", "6", "--interval", "1",
                             "--no-tty", "--csv", str(csv_path), "--png", str(png_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # traffic starts once the first sample is in, and ends well before the last
        first = view.stdout.readline()
        assert first.startswith("wsview: attached"), first + view.stderr.read()
        sent = 1500
        # IP protocol 253 (RFC 3692, experimental): to the appliance it is a counted drop
        code = ("import socket, time\n"
                "s = socket.socket(socket.AF_INET, socket.SOCK_RAW, 253)\n"
                f"for i in range({sent}):\n"
                f"    s.sendto(b'x' * 26, ('{HOSTS[0][1]}', 0))\n"
                "    time.sleep(0.001)\n")
        ns_run(lab.nss[0], "python3", "-c", code, timeout=60)
        out, err = view.communicate(timeout=60)
    finally:
        if view.poll() is None:
            view.kill()
            view.wait()
    assert view.returncode == 0, out + err
    rows = read_csv(csv_path)
    assert len(rows) >= 4, (rows, out, err)
    rx = column(rows, "port0.rx_packets_per_s")
    assert max(rx) > 0 and sum(1 for v in rx if v > 0) >= 1, rx
    # An unknown protocol to the appliance's own address is a counted drop; the rates, over the
    # appliance's uptime, give back exactly what was sent (the window covers all of it)
    t = [0.0] + [float(r["time_s"]) for r in rows]
    drops = column(rows, "port0.queues.drop_ip_proto_unsupported_per_s")
    total = sum(d * (t[i + 1] - t[i]) for i, d in enumerate(drops))
    assert abs(total - sent) < 1, (total, drops, t)
    assert max(column(rows, "port0.drops_per_s")) > 0
    assert "port0.drop_ip_proto_unsupported=" in out
    assert all(v is None or 0 <= v <= 100 for v in column(rows, "core0.busy_pct"))
    with open(png_path, "rb") as f:
        assert f.read(8) == PNG_MAGIC
