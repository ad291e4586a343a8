"""tests/system/netlab.py: the appliance's ports wired to test hosts in network namespaces.

Each port is a QEMU NIC (igb, or the project's 82599: qemu.NICS) on a tap; after QEMU has
opened the tap, the tap moves into a namespace of its own that plays the host on that wire
(198.18.0.2 on port0, 198.19.0.2 on port1). Only addresses inside these namespaces are ever
used. Everything is removed on close.
"""
import json
import os
import re
import socket
import subprocess
import time
import uuid

import pytest

from qemu import NICS, Guest, nic_device

HOSTS = [("198.18.0.2", "198.18.0.1"), ("198.19.0.2", "198.19.0.1")]
# (host, appliance) IPv6 addresses per port: config/default.conf's and test.conf's address6
HOSTS6 = [("2001:db8:18::2", "2001:db8:18::1"), ("2001:db8:19::2", "2001:db8:19::1")]

# Tests that run on both NICs: @BOTH_NICS overrides conftest's `nic` fixture (default igb).
BOTH_NICS = pytest.mark.parametrize("nic", ["igb", "82599"])


def start_lab(nic, **kw):
    """A Lab booted to `ready:` with its links up; the caller closes it (finish_lab)."""
    if nic != "igb" and not os.access(NICS[nic][0], os.X_OK):
        pytest.fail(f"{NICS[nic][0]} is missing: build it with `make qemu-82599`")
    lab = Lab(nic=nic, **kw)
    try:
        m = lab.guest.wait_ready()
        lab.wait_links()
    except BaseException:
        lab.close()
        raise
    lab.ready = m
    return lab


def finish_lab(lab):
    """Close the lab; fail if the 82599 model saw the driver misuse it (QEMU guest errors)."""
    errors = lab.guest_errors()
    lab.close()
    assert not errors, f"the 82599 model reported driver misuse:\n{errors[:4000]}"


def sh(*args, check=True, timeout=60):
    return subprocess.run(list(args), check=check, capture_output=True, text=True,
                          timeout=timeout)


def monitor_cmd(path, cmd):
    """One HMP command to the QEMU monitor socket at path, its answer not read: the monitor
    gets time to greet and to act."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    time.sleep(0.2)
    s.sendall((cmd + "\n").encode())
    time.sleep(0.3)
    s.close()


def ns_run(ns, *args, check=True, timeout=60):
    return sh("ip", "netns", "exec", ns, *args, check=check, timeout=timeout)


class Lab:
    """Two ports on taps in namespaces; .guest is the booted appliance."""

    def __init__(self, kernel=None, smp=4, mem="256M", nports=2, hosts=None, gateways=True,
                 nic="igb", platform=(), nic_buses=None, bios=None, machine="q35",
                 serial=None, cpu=None, iso=None, nic_opts=None, nic_slots=None, ipv6=False):
        """hosts: (host address, appliance address) per port (default HOSTS); gateways: give
        each host a default route through the appliance's address on its wire; nic: "igb" or
        "82599" (qemu.NICS). With the 82599, QEMU logs the model's guest errors (driver
        misuse) to a file: guest_errors() returns it. platform: QEMU arguments for the machine
        around the NICs (bridges, expanders); nic_buses: the bus of each port's NIC (slot 0
        there) instead of pcie.0; bios: a firmware image (e.g. OVMF) instead of SeaBIOS;
        machine: QEMU's -machine value (e.g. "q35,pit=off"); serial: the console's UART, cpu:
        a -cpu model, iso: boot this ISO (GRUB) instead of kernel (qemu.Guest); nic_opts: more
        -device options per port (e.g. "sfp=on,module=da-passive" for the ixgbe-82599);
        nic_slots: the PCI slot on pcie.0 of each port's NIC (default 2, 4, ...); ipv6: the
        hosts speak IPv6 too (HOSTS6, a default route through the appliance), else it is off
        in their namespaces."""
        self.hosts = hosts or HOSTS
        self.nic = nic
        self.qemu, _, self.chip, self.speed = NICS[nic]
        tag = uuid.uuid4().hex[:6]
        self.taps = [f"wst{tag}{i}" for i in range(nports)]
        self.nss = [f"wsns{tag}{i}" for i in range(nports)]
        self.monitor = f"/tmp/wsmon-{tag}.sock"
        self.errlog = f"/tmp/wsqemu-{tag}.log"
        for tap, ns in zip(self.taps, self.nss):
            sh("ip", "tuntap", "add", "dev", tap, "mode", "tap")
            sh("ip", "netns", "add", ns)
        extra = ["-monitor", f"unix:{self.monitor},server,nowait"] + list(platform)
        if nic != "igb":
            extra += ["-d", "guest_errors", "-D", self.errlog]
        for i, tap in enumerate(self.taps):
            dev = (nic_device(nic, f"n{i}", 0, f"nic{i}", bus=nic_buses[i]) if nic_buses
                   else nic_device(nic, f"n{i}", nic_slots[i] if nic_slots else 2 + 2 * i,
                                   f"nic{i}"))
            if nic_opts and nic_opts[i]:
                dev += "," + nic_opts[i]
            extra += ["-netdev", f"tap,id=n{i},ifname={tap},script=no,downscript=no",
                      "-device", dev]
        self.guest = Guest(kernel=None if iso else kernel, iso=iso, smp=smp, mem=mem, extra=extra, monitor=False,
                           qemu=self.qemu, bios=bios, machine=machine, serial=serial,
                           cpu=cpu)
        time.sleep(0.5)  # QEMU opens the taps before the firmware boots
        for i, (tap, ns) in enumerate(zip(self.taps, self.nss)):
            sh("ip", "link", "set", tap, "netns", ns)
            ns_run(ns, "sysctl", "-q", f"net.ipv6.conf.all.disable_ipv6={0 if ipv6 else 1}")
            ns_run(ns, "ip", "addr", "add", f"{self.hosts[i][0]}/24", "dev", tap)
            if ipv6:
                ns_run(ns, "ip", "-6", "addr", "add", f"{HOSTS6[i][0]}/64", "dev", tap, "nodad")
            ns_run(ns, "ip", "link", "set", tap, "up")
            ns_run(ns, "ip", "link", "set", "lo", "up")
            if gateways:
                ns_run(ns, "ip", "route", "add", "default", "via", self.hosts[i][1])
            if gateways and ipv6:
                ns_run(ns, "ip", "-6", "route", "add", "default", "via", HOSTS6[i][1])

    def wait_links(self, timeout=30):
        """Every port has said "link up" at its speed: before `ready:` (the 82599 links during
        init) or after it (igb's link comes up later); may follow the prompt."""
        deadline = time.monotonic() + timeout
        for i in range(len(self.taps)):
            rx = re.compile(rf"(?:^|(?<=> ))port{i}: link up {self.speed} Mb/s", re.M)
            while not rx.search(self.guest.text()):
                if time.monotonic() > deadline:
                    self.guest.expect(rx.pattern, 0)  # fails with the console in the message
                time.sleep(0.05)

    def ping(self, port, size=56, count=3, timeout=20, dst=None, ttl=None, extra=()):
        """ping from port's host to the appliance's address on that wire, or to dst; extra:
        more ping options (e.g. ["-M", "do"])."""
        extra = (["-t", str(ttl)] if ttl else []) + list(extra)
        return ns_run(self.nss[port], "ping", "-c", str(count), "-i", "0.2", "-W", "2",
                      "-s", str(size), *extra, dst or self.hosts[port][1], check=False,
                      timeout=timeout)

    def stats(self):
        """One `stats json` line, parsed."""
        self.guest.send("stats json\r")
        # The newline matters: `$` also matches at the end of what has arrived so far, and a
        # 20 KB line arrives in pieces; one ending in an inner '}' would parse as truncated.
        m = self.guest.expect(r"^(\{\"schema\":.*\})\n", 30)
        self.guest.expect(r"wirespeed> ", 10)
        return json.loads(m.group(1))

    def monitor_cmd(self, cmd):
        monitor_cmd(self.monitor, cmd)

    def monitor_query(self, cmd, timeout=10):
        """One HMP command; what the monitor answered (between the echo and the next prompt)."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(self.monitor)
            seen = b""
            while not seen.endswith(b"(qemu) "):
                seen += s.recv(4096)
            s.sendall((cmd + "\n").encode())
            seen = b""
            while not seen.endswith(b"(qemu) "):
                seen += s.recv(4096)
        text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", seen.decode(errors="replace"))
        return text.replace("\r", "")[:-len("(qemu) ")].split("\n", 1)[-1].strip()

    def nic_fault(self, port, fault, on):
        """Force one of the ixgbe-82599 device's faults (qemu-82599/README.md) on a port, and
        check QEMU took it."""
        path = f"/machine/peripheral/nic{port}"
        value = "on" if on else "off"
        answer = self.monitor_query(f"qom-set {path} {fault} {value}")
        assert answer == "", f"qom-set {fault}: {answer}"
        got = self.monitor_query(f"qom-get {path} {fault}")
        assert got == ("true" if on else "false"), f"qom-get {fault}: {got!r}"

    def guest_errors(self):
        """What QEMU logged as guest errors (the 82599 model's misuse reports); "" if none."""
        if not os.path.exists(self.errlog):
            return ""
        with open(self.errlog) as f:
            return f.read()

    def close(self):
        self.guest.close()
        if os.path.exists(self.errlog):
            os.unlink(self.errlog)
        for ns in self.nss:
            sh("ip", "netns", "delete", ns, check=False)
        for tap in self.taps:
            sh("ip", "link", "delete", tap, check=False)
        if os.path.exists(self.monitor):
            os.unlink(self.monitor)


def port_queues(stats, port):
    return stats["ports"][port]["queues"]


def queue_sum(stats, port, key):
    return sum(q[key] for q in port_queues(stats, port))
