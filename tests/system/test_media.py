"""Boot media as deployed (issue 8): the hybrid ISO as a CD-ROM and as a USB stick on BIOS and
UEFI, network boot over QEMU's TFTP, and failures that say what went wrong instead of hanging or
resetting. Also tools/write-usb's refusals, on plain files and loop devices only.

`make test-system` builds what these boot (`make media-test`: build/wirespeed.iso, build/pxe/,
build/broken/wirespeed-broken.iso); the fixture below re-runs that target when run on its own.
Every QEMU here has -no-reboot, so a reset ends QEMU: "still running" means "did not reset".
"""
import os
import re
import shutil
import socket
import subprocess
import time

import pytest

from qemu import DEFAULT_ELF, DEFAULT_ISO, ROOT

OVMF = "/usr/share/ovmf/OVMF.fd"
PXE_ROOT = os.path.join(ROOT, "build", "pxe")
BROKEN_ISO = os.path.join(ROOT, "build", "broken", "wirespeed-broken.iso")
WRITE_USB = os.path.join(ROOT, "tools", "write-usb")
MEDIA_TIMEOUT_S = 120  # a boot under TCG takes 4-15 s here; past this it is a hang

# The GRUB menu entry as boot/grub.cfg titles it (make fills in version and config name).
MENU_TITLE = r"wirespeed \d+\.\d+\.\d+ \(config default\)"


@pytest.fixture(scope="module", autouse=True)
def media():
    """The images under test, (re)built by `make media-test` (a no-op when up to date)."""
    if not os.path.exists(OVMF):
        pytest.fail(f"{OVMF} missing: tools/setup installs Debian's ovmf")
    out = subprocess.run(["make", "--no-print-directory", "media-test"], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, f"make media-test failed:\n{out.stdout}\n{out.stderr}"


def no_nic():
    return ["-nic", "none"]  # nothing to network-boot from: the disk under test must boot


def igb_ports():
    """The appliance's two data ports, two slots apart (QEMU igb's VFs sit at devfn + 0x80)."""
    extra = []
    for i in range(2):
        extra += ["-netdev", f"user,id=n{i}",
                  "-device", f"igb,netdev=n{i},bus=pcie.0,addr={2 + 2 * i:#x}"]
    return extra


def usb_stick(image):
    """The image as a USB mass-storage stick on an xHCI controller, first in the boot order;
    read-only, so tests never change the image and may share it."""
    return ["-device", "qemu-xhci,id=xhci",
            "-device", "usb-storage,bus=xhci.0,drive=stick,bootindex=0",
            "-drive", f"if=none,id=stick,file={image},format=raw,readonly=on"]


def pxe_nic(bootfile):
    """A management e1000 (its option ROM is QEMU's iPXE) on user networking, whose built-in
    DHCP names bootfile and whose TFTP server serves build/pxe/. bootindex puts it first: under
    OVMF, iPXE's EFI driver also binds the igb ports (it knows the 82576) and would try those."""
    return ["-netdev", f"user,id=mgmt,tftp={PXE_ROOT},bootfile={bootfile}",
            "-device", "e1000,netdev=mgmt,bus=pcie.0,addr=0x6,bootindex=0", "-boot", "n"]


def expect_grub_menu(g):
    """GRUB's menu reached the serial console, and boots by itself within a few seconds."""
    g.expect(MENU_TITLE, 60)
    m = g.expect(r"will be executed automatically in (\d+)s", 30)
    assert int(m.group(1)) <= 5, "the GRUB menu waits more than a few seconds"
    g.expect(r"Booting `" + MENU_TITLE + "'", 30)


# --- the ISO as a CD-ROM and as a USB stick --------------------------------------------------

def test_iso_cdrom_seabios(boot):
    g = boot(iso=DEFAULT_ISO, smp=2, extra=no_nic())
    expect_grub_menu(g)
    m = g.wait_ready(MEDIA_TIMEOUT_S)
    assert int(m.group(1)) == 2
    text = g.text()
    assert re.search(r"^boot: multiboot2 loader 'GRUB", text, re.M)
    assert re.search(r"^boot: firmware BIOS, memory map from multiboot2 tag 6$", text, re.M)
    assert re.search(MENU_TITLE + ", Multiboot 1", text), "BIOS menu lacks the Multiboot 1 entry"
    print(f"ISO as CD-ROM, SeaBIOS: ready after {g.ready_s:.1f} s")


def test_iso_cdrom_ovmf_finds_acpi_through_multiboot2(boot):
    g = boot(iso=DEFAULT_ISO, smp=2, bios=OVMF, extra=no_nic())
    expect_grub_menu(g)  # GRUB's own serial terminal works under UEFI too
    m = g.wait_ready(MEDIA_TIMEOUT_S)
    assert int(m.group(1)) == 2
    text = g.text()
    # No BIOS areas under UEFI: the memory map and the RSDP come from GRUB's Multiboot 2 tags.
    assert re.search(r"^boot: firmware UEFI, memory map from multiboot2 tag 17$", text, re.M)
    assert re.search(r"^acpi: rev \d+ .*rsdp from multiboot2 tag 1[45], 2 cpus in MADT", text,
                     re.M)
    assert re.search(r"^cpu1: apic \d+.*online$", text, re.M)
    # the Multiboot 1 entry (no ACPI tag, and no BIOS area to scan) is not offered under UEFI
    assert "Multiboot 1" not in text
    print(f"ISO as CD-ROM, OVMF: ready after {g.ready_s:.1f} s")


@pytest.mark.parametrize("firmware", ["seabios", "ovmf"])
def test_iso_as_usb_stick(boot, firmware):
    g = boot(smp=2, bios=OVMF if firmware == "ovmf" else None,
             extra=usb_stick(DEFAULT_ISO) + no_nic())
    expect_grub_menu(g)
    m = g.wait_ready(MEDIA_TIMEOUT_S)
    assert int(m.group(1)) == 2
    want = "UEFI" if firmware == "ovmf" else "BIOS"
    assert re.search(rf"^boot: firmware {want}, ", g.text(), re.M)
    print(f"ISO as USB stick, {firmware}: ready after {g.ready_s:.1f} s")


# --- network boot ----------------------------------------------------------------------------

@pytest.mark.parametrize("firmware,bootfile,loader", [
    ("seabios", "boot/grub/i386-pc/core.0", "multiboot2 loader 'GRUB"),
    ("ovmf", "boot/grub/x86_64-efi/core.efi", "multiboot2 loader 'GRUB"),
    ("seabios", "wirespeed.ipxe", "multiboot1 loader 'iPXE"),
])
def test_pxe_boot_reaches_ready_with_ports_up(boot, firmware, bootfile, loader):
    g = boot(smp=2, bios=OVMF if firmware == "ovmf" else None,
             extra=["-nic", "none"] + pxe_nic(bootfile) + igb_ports())
    m = g.wait_ready(MEDIA_TIMEOUT_S)
    assert (m.group(1), m.group(2)) == ("2", "2"), g.text()
    assert re.search(rf"^boot: {loader}", g.text(), re.M)
    for i in range(2):
        g.expect(rf"(?:^|(?<=> ))port{i}: link up", 30)
    print(f"PXE {firmware} {bootfile}: ready after {g.ready_s:.1f} s")


# --- failures say so -------------------------------------------------------------------------

def test_image_without_multiboot2_header_fails_with_message(boot):
    """UEFI GRUB refuses the ELF whose Multiboot 2 header was zeroed: GRUB's error, then
    boot/grub.cfg's line, on the serial console; no hang, no reset."""
    g = boot(iso=BROKEN_ISO, smp=2, bios=OVMF, extra=no_nic())
    g.expect(r"error: no multiboot header found\.", 90)
    g.expect(r"wirespeed: /boot/wirespeed\.elf did not load \(Multiboot 2\); not booting", 10)
    time.sleep(1)
    assert g.proc.poll() is None, "QEMU exited: the machine reset instead of showing the error"
    assert "ready:" not in g.text()


def hmp(sock_path, command, timeout=10):
    """One QEMU human-monitor command over the UNIX socket; returns its output."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sock_path)
            break
        except OSError:
            s.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    s.settimeout(timeout)
    buf = b""

    def until_prompt():
        nonlocal buf
        while not buf.endswith(b"(qemu) "):
            chunk = s.recv(4096)
            if not chunk:
                break
            buf += chunk

    until_prompt()
    buf = b""
    s.sendall(command.encode() + b"\n")
    until_prompt()
    s.close()
    return buf.decode("latin-1")


def vga_text(sock_path, tmp_path):
    """The 80x25 VGA text screen, read from guest memory at 0xB8000."""
    dump = tmp_path / "vga.bin"
    hmp(sock_path, f'pmemsave 0xb8000 4000 "{dump}"')  # quoted: "4000 /x" would divide
    cells = dump.read_bytes()
    chars = bytes(cells[0::2]).decode("latin-1")
    return "\n".join(chars[r * 80:(r + 1) * 80].rstrip() for r in range(25))


def monitored(tmp_path):
    sock = str(tmp_path / "mon.sock")
    return sock, ["-monitor", f"unix:{sock},server=on,wait=off"]


def test_no_long_mode_says_so_on_serial_and_screen(boot, tmp_path):
    """The earliest failure (boot/entry.S, before any C runs): a 32-bit-only CPU."""
    sock, mon = monitored(tmp_path)
    g = boot(kernel=DEFAULT_ELF, smp=1, cpu="qemu32", monitor=False, extra=mon + no_nic())
    g.expect(r"^wirespeed: this CPU has no 64-bit long mode; cannot boot$", 30)
    assert "wirespeed: this CPU has no 64-bit long mode" in vga_text(sock, tmp_path)
    assert g.proc.poll() is None, "QEMU exited: the machine reset"


def test_no_acpi_says_so_on_serial_and_screen(boot, tmp_path):
    """No RSDP anywhere (i440fx with ACPI off, loaded by Multiboot 1 so there is no tag)."""
    sock, mon = monitored(tmp_path)
    g = boot(kernel=DEFAULT_ELF, smp=1, machine="pc,acpi=off", monitor=False,
             extra=mon + no_nic())
    g.expect(r"^panic: core 0: acpi: no RSDP \(no Multiboot 2 ACPI tag and none in the EBDA or "
             r"BIOS area\)$", 30)
    g.expect(r"^panic: all cores halted", 10)
    screen = vga_text(sock, tmp_path)
    assert "wirespeed: cannot boot: acpi: no RSDP" in screen, screen
    assert g.proc.poll() is None, "QEMU exited: the machine reset"


# --- tools/write-usb: refusals without touching a real disk ----------------------------------

def write_usb(*args, stdin=""):
    return subprocess.run([WRITE_USB, *args], input=stdin, capture_output=True, text=True,
                          timeout=60)


@pytest.fixture
def image(tmp_path):
    p = tmp_path / "image.bin"
    p.write_bytes(os.urandom(1 << 20))
    return p


def test_write_usb_refuses_what_is_not_a_block_device(tmp_path, image):
    plain = tmp_path / "not-a-disk.img"
    plain.write_bytes(b"\0" * 4096)
    for target in (str(plain), "/dev/null"):
        r = write_usb("--yes", str(image), target)
        assert r.returncode == 1 and "not a block device" in r.stderr, r
    assert plain.read_bytes() == b"\0" * 4096
    r = write_usb("--yes", str(image), str(tmp_path / "missing"))
    assert r.returncode == 1 and "no such device" in r.stderr, r
    r = write_usb(str(tmp_path / "no-image"), "/dev/null")
    assert r.returncode == 2 and "not a readable file" in r.stderr, r
    r = write_usb(str(image))
    assert r.returncode == 2 and "usage:" in r.stderr, r


def root_disk():
    """The disk under / (read-only look-ups), or None when / is not on a block device."""
    src = subprocess.run(["findmnt", "-nvo", "SOURCE", "--target", "/"], capture_output=True,
                         text=True).stdout.strip()
    if not src.startswith("/dev/"):
        return None
    tree = subprocess.run(["lsblk", "-nslo", "NAME,TYPE", src], capture_output=True,
                          text=True).stdout.split("\n")
    disks = [line.split()[0] for line in tree if line.split()[1:] == ["disk"]]
    return "/dev/" + disks[0] if disks else None


def test_write_usb_refuses_the_disk_holding_the_running_system(image):
    disk = root_disk()
    if disk is None:
        pytest.skip("/ is not on a block device here")
    # --dry-run as a second safety net: even a broken check could not write
    r = write_usb("--yes", "--dry-run", str(image), disk)
    assert r.returncode == 1 and "holds the running system" in r.stderr, r


def test_write_usb_refuses_a_partition(image):
    parts = sorted(n for n in os.listdir("/sys/class/block")
                   if os.path.exists(f"/sys/class/block/{n}/partition"))
    if not parts:
        pytest.skip("no partition on this machine to point at")
    r = write_usb("--yes", "--dry-run", str(image), "/dev/" + parts[0])
    assert r.returncode == 1 and "is a partition; give the whole disk" in r.stderr, r


@pytest.fixture
def loop_disk(tmp_path):
    """loop_disk(size) -> (backing file, /dev/loopN): a throwaway disk on a temporary file."""
    if os.geteuid() != 0 or not shutil.which("losetup"):
        pytest.skip("needs root and losetup for a loop device")
    made = []

    def make(size):
        backing = tmp_path / f"disk{len(made)}.img"
        with open(backing, "wb") as f:
            f.truncate(size)
        r = subprocess.run(["losetup", "--show", "-f", str(backing)], capture_output=True,
                           text=True)
        if r.returncode != 0:
            pytest.skip(f"losetup: {r.stderr.strip()}")
        made.append(r.stdout.strip())
        return backing, made[-1]

    yield make
    for dev in made:
        subprocess.run(["umount", dev], capture_output=True)
        subprocess.run(["losetup", "-d", dev], capture_output=True)


def test_write_usb_asks_and_writes_only_on_yes(image, loop_disk):
    backing, dev = loop_disk(4 << 20)
    r = write_usb("--dry-run", str(image), dev)
    assert r.returncode == 0 and "every check passed, nothing written" in r.stdout, r
    r = write_usb(str(image), dev, stdin="no\n")
    assert r.returncode == 1 and "not confirmed" in r.stderr, r
    r = write_usb(str(image), dev, stdin="")  # no terminal, no answer: no
    assert r.returncode == 1 and "not confirmed" in r.stderr, r
    assert backing.read_bytes() == bytes(4 << 20), "wrote without a yes"
    r = write_usb(str(image), dev, stdin="yes\n")
    assert r.returncode == 0 and "wrote and verified" in r.stdout, r
    assert backing.read_bytes()[:1 << 20] == image.read_bytes()


def test_write_usb_refuses_a_mounted_or_too_small_disk(tmp_path, image, loop_disk):
    _, small = loop_disk(512 << 10)
    r = write_usb("--yes", str(image), small)
    assert r.returncode == 1 and "the image needs" in r.stderr, r
    if not shutil.which("mkfs.ext4"):
        pytest.skip("mkfs.ext4 missing: cannot make a mounted disk")
    _, dev = loop_disk(8 << 20)
    subprocess.run(["mkfs.ext4", "-q", "-F", dev], check=True, capture_output=True)
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if subprocess.run(["mount", dev, str(mnt)], capture_output=True).returncode != 0:
        pytest.skip("cannot mount a loop device here")
    try:
        r = write_usb("--yes", str(image), dev)
        assert r.returncode == 1 and f"is mounted at {mnt}" in r.stderr, r
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)
