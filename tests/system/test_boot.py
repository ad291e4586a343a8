"""The real image boots in QEMU on every core and its console answers (issue: foundation)."""
import os
import re

import pytest

from qemu import BUSY_ELF, DEFAULT_ELF, DEFAULT_ISO, TEST_ELF, kvm_works

ACCELS = ["tcg", "kvm"]


def need_accel(accel):
    if accel == "kvm" and not kvm_works():
        pytest.skip("tools/kvm-probe: KVM did not boot the image here (TCG is the reference)")


@pytest.mark.parametrize("accel", ACCELS)
@pytest.mark.parametrize("smp,mem", [(1, "128M"), (2, "128M"), (4, "128M"),
                                     (1, "1G"), (2, "1G"), (4, "1G")])
def test_boots_to_ready_on_all_cores(boot, accel, smp, mem):
    need_accel(accel)
    g = boot(kernel=DEFAULT_ELF, smp=smp, mem=mem, accel=accel)
    m = g.wait_ready()
    assert int(m.group(1)) == smp
    assert int(m.group(2)) == 0
    text = g.text()
    assert re.search(r"^wirespeed \d+\.\d+\.\d+ config default rev \S+$", text, re.M)
    assert re.search(r"^memory: \d+ MiB usable", text, re.M)
    for i in range(smp):
        assert re.search(rf"^cpu{i}: apic \d+.*online$", text, re.M), f"cpu{i} line missing"
    assert len(re.findall(r"^ready: ", text, re.M)) == 1
    print(f"{accel} smp={smp} mem={mem}: ready after {g.ready_s:.2f} s")


CPUS_ROW = r"^(\d+)\s+(\d+)\s+(yes|no)\s+(\d+)\s+(\d+)$"


def cpus_rows(g):
    g.command("cpus", r"^1\s+\d+\s+yes\s+\d+\s+\d+$")
    return re.findall(CPUS_ROW, g.text(), re.M)[-2:]


def test_version_and_cpus_answer(boot):
    g = boot(kernel=DEFAULT_ELF, smp=2)
    g.wait_ready()
    g.command("version", r"^wirespeed \d+\.\d+\.\d+ config default rev \S+$")
    first, second = cpus_rows(g), cpus_rows(g)
    assert [r[0] for r in first] == ["0", "1"]
    assert all(r[2] == "yes" and int(r[3]) > 0 for r in first), first
    # core 0 keeps looping (it serves the console); core 1 has no queue to poll, so in adaptive
    # mode it halts until an interrupt, and its halts show it
    assert int(second[0][3]) > int(first[0][3]), (first, second)
    assert int(second[1][4]) >= 1, second
    g.command("help", r"^\s+reboot\s")


def test_busy_mode_cores_keep_looping(boot):
    g = boot(kernel=BUSY_ELF, smp=2)
    g.wait_ready()
    first, second = cpus_rows(g), cpus_rows(g)
    assert all(int(b[3]) > int(a[3]) and b[4] == "0" for a, b in zip(first, second)), (first,
                                                                                     second)


def test_bad_console_input_gets_errors_and_console_survives(boot):
    g = boot(kernel=DEFAULT_ELF, smp=2)
    g.wait_ready()
    g.command("frobnicate", r"^error: unknown command 'frobnicate' \(try 'help'\)$")
    g.command("he\x01lp", r"^error: control or non-ASCII byte 0x01 in line, ignored$")
    g.send(b"\xff\xfe\x00")
    g.command("", r"^error: control or non-ASCII byte 0xff in line, ignored$")
    g.command("x" * 1000, r"^error: line longer than \d+ characters, ignored$")
    g.command("version extra", r"^error: version takes no arguments$")
    g.command("a b c d e f g h i j", r"^error: more than \d+ words on the line$")
    g.send(b"\x1b[A\x1b[B")  # arrow keys are swallowed, not errors
    g.command("version", r"^wirespeed \d+\.\d+\.\d+ config default")


def test_iso_boots_with_bios(boot):
    g = boot(iso=DEFAULT_ISO, smp=2)
    m = g.wait_ready(timeout=150)
    assert int(m.group(1)) == 2
    assert re.search(r"^boot: multiboot2 loader 'GRUB", g.text(), re.M)
    print(f"ISO (SeaBIOS, GRUB): ready after {g.ready_s:.2f} s")


def test_deliberate_fault_prints_dump_and_backtrace(boot):
    g = boot(kernel=TEST_ELF, smp=2)
    g.wait_ready()
    g.send("fault\r")
    g.expect(r"^fatal exception: core 0 \(apic \d+\): vector 14 \(page fault\), error code 0x\w+$")
    g.expect(r"^  rip 0x[0-9a-f]{16} test_fault_trigger\+0x[0-9a-f]+$")
    g.expect(r"^  cr2 00007f0000000000 \(faulting address\)$")
    g.expect(r"^  rax [0-9a-f]{16} rbx [0-9a-f]{16} rcx [0-9a-f]{16}$")
    g.expect(r"^backtrace:$")
    g.expect(r"^  #0  0x[0-9a-f]{16} test_fault_trigger\+")
    # the chain walks back through the console's poll to the core loop and the boot path
    # (the command functions between them may be inlined)
    g.expect(r"^  #\d+\s+0x[0-9a-f]{16} core_loop\+")
    g.expect(r"^  #\d+\s+0x[0-9a-f]{16} kmain\+")
    g.expect(r"^panic: all cores halted \(config panic=halt\)$")
    # halted means halted: the console no longer answers
    g.send("version\r")
    with pytest.raises(AssertionError):
        g.expect(r"^wirespeed \d", timeout=5)


def test_counters_doc_is_the_firmware_catalogue():
    """docs/counters.md's tables are exactly what the firmware's `stats doc` prints."""
    import subprocess
    r = subprocess.run([os.path.join(os.path.dirname(DEFAULT_ELF), "..", "tools",
                                     "gen-counters-doc"), "--check"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
