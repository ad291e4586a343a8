"""tests/system/qemu.py: boot the firmware in QEMU and talk to its serial console.

A Guest runs one QEMU with the serial port on stdin/stdout pipes; a reader thread collects
everything the firmware prints, and expect() waits for a regular expression with a deadline
(a missed deadline is a hang and fails the test with the console output so far).
"""
import os
import re
import subprocess
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_ELF = os.path.join(ROOT, "build", "wirespeed.elf")
DEFAULT_ISO = os.path.join(ROOT, "build", "wirespeed.iso")
TEST_ELF = os.path.join(ROOT, "build", "test", "wirespeed.elf")
BUSY_ELF = os.path.join(ROOT, "build", "busy", "wirespeed.elf")
WIRE_ELF = os.path.join(ROOT, "build", "wire", "wirespeed.elf")
JUMBO_ELF = os.path.join(ROOT, "build", "jumbo", "wirespeed.elf")
REBOOT_ELF = os.path.join(ROOT, "build", "reboot", "wirespeed.elf")
SLOTS_ELF = os.path.join(ROOT, "build", "slots", "wirespeed.elf")
RA_ELF = os.path.join(ROOT, "build", "ra", "wirespeed.elf")

# The NICs a test can give the appliance: QEMU's igb (an 82576) in Debian's stock QEMU, and the
# project's 82599 model as the ixgbe-82599 device in the QEMU tools/build-qemu builds
# (`make qemu-82599`; qemu-82599/README.md).
QEMU_STOCK = "qemu-system-x86_64"
QEMU_82599 = os.path.join(ROOT, "build", "qemu", "bin", "qemu-system-x86_64")
NICS = {
    # name: (QEMU binary, -device driver, chip name the firmware prints, link speed in Mb/s)
    "igb": (QEMU_STOCK, "igb", "82576", 1000),
    "82599": (QEMU_82599, "ixgbe-82599", "82599", 10000),
}


def nic_device(nic, netdev, slot, dev_id=None, bus="pcie.0"):
    """-device argument for one port of `nic` on netdev, in PCI slot `slot` of `bus` (igb
    ports sit two slots apart: its SR-IOV functions take devfn + 0x80); dev_id names the
    device for the monitor (/machine/peripheral/<dev_id>)."""
    named = f",id={dev_id}" if dev_id else ""
    return f"{NICS[nic][1]},netdev={netdev},bus={bus},addr={slot:#x}{named}"


# Under TCG on a 2-core host, booting 4 vCPUs takes a few seconds; allow generous margins so a
# slow CI machine is not mistaken for a hang, while a real hang still ends the test.
BOOT_TIMEOUT_S = 90


class Guest:
    def __init__(self, kernel=None, iso=None, smp=2, mem="256M", accel="tcg", extra=(),
                 monitor=True, machine="q35", bios=None, cpu=None, reboot=False,
                 qemu=QEMU_STOCK, serial=None):
        """kernel: boot it with -kernel; iso: boot it as a CD-ROM; neither: the boot device is
        in extra (a USB stick, a NIC with -boot n). bios: firmware image for -bios (e.g.
        OVMF); cpu: a -cpu model instead of the default for the accelerator. reboot: a guest
        reset restarts the machine (otherwise QEMU exits, -no-reboot); qemu: the binary
        (QEMU_82599 for the ixgbe-82599 device); serial: QEMU arguments for the console's
        UART instead of COM1 on this process's stdio."""
        if cpu is None:
            cpu = "host,-arch-capabilities" if accel == "kvm" else "max"
        cpu = ["-cpu", cpu]
        boot = (["-kernel", kernel] if kernel else ["-cdrom", iso, "-boot", "d"] if iso else [])
        boot += ["-bios", bios] if bios else []
        self.cmd = ([qemu, "-machine", machine, "-accel", accel] + cpu +
                    ["-smp", str(smp), "-m", mem, "-display", "none"] +
                    ([] if reboot else ["-no-reboot"]) +
                    (list(serial) if serial is not None else ["-serial", "stdio"]) +
                    (["-monitor", "none"] if monitor else []) +
                    boot + list(extra))
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        self.started = time.monotonic()
        self.out = bytearray()
        self.pos = 0  # expect() searches from here on
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        while True:
            chunk = self.proc.stdout.read1(4096)
            if not chunk:
                return
            with self.lock:
                self.out += chunk

    def text(self):
        with self.lock:
            return self.out.decode("latin-1").replace("\r", "")

    def expect(self, pattern, timeout=30):
        """Wait for pattern after the previous match; return the match object."""
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern, re.M)
        while True:
            with self.lock:
                text = self.out.decode("latin-1").replace("\r", "")
            m = rx.search(text, self.pos)
            if m:
                self.pos = m.end()
                return m
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(
                    f"no match for {pattern!r} within {timeout}s "
                    f"(qemu {'exited ' + str(self.proc.returncode) if self.proc.poll() is not None else 'running'})"
                    f"\n--- console ---\n{text[-4000:]}\n--- command ---\n{' '.join(self.cmd)}")
            time.sleep(0.05)

    def wait_ready(self, timeout=BOOT_TIMEOUT_S):
        m = self.expect(r"^ready: cores=(\d+) ports=(\d+)$", timeout)
        self.ready_s = time.monotonic() - self.started
        self.expect(r"wirespeed> ", 10)
        return m

    def send(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def command(self, line, expect, timeout=20):
        """Type a command line and wait for `expect` in its answer."""
        self.send(line + "\r")
        m = self.expect(expect, timeout)
        self.expect(r"wirespeed> ", timeout)
        return m

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        self.reader.join(timeout=5)


def kvm_works():
    """The project's own probe (tools/kvm-probe), cached per machine."""
    out = subprocess.run([os.path.join(ROOT, "tools", "kvm-probe"), DEFAULT_ELF],
                         capture_output=True, text=True, cwd=ROOT)
    return out.stdout.strip() == "kvm"
