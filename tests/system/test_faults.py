"""Faults in QEMU (issue 10): a port reset under traffic without a reboot, a buffer pool run dry
and refilled, and an exception or NMI ending in the register dump and a reboot back to `ready:`.
The test image (config/test.conf) has the `fault` and `pool` console commands; QEMU's igb never
stops completing, so here `fault reset N` takes the TX hang's reset path. The TX hang itself and
a device gone (all-ones) are forced on the emulated 82599 in test_faults_82599.py."""
import json
import os
import subprocess
import time
import uuid

import pytest

from netlab import HOSTS, Lab, monitor_cmd, port_queues, queue_sum
from qemu import REBOOT_ELF, ROOT, TEST_ELF, Guest
from test_forward import check_forward_conservation, flows_through
from test_ports import udp_queue

FLOWCHECK = os.path.join(ROOT, "tests", "tools", "flowcheck.py")
CORES = 4


@pytest.fixture
def lab():
    lab = Lab(kernel=TEST_ELF, smp=CORES)
    try:
        lab.guest.wait_ready()
        lab.wait_links()
        yield lab
    finally:
        lab.close()


def quiet_stats(lab, settle=1.0):
    """stats json once nothing has moved for a while (pools and rings at rest)."""
    time.sleep(settle)
    return lab.stats()


def stream_with(lab, flows, per_flow, pps, action, after_s):
    """flows_through from host A to host B, running action() after_s seconds into the send;
    returns the receiver's report with "sent" added."""
    n = flows * per_flow
    rx = subprocess.Popen(["ip", "netns", "exec", lab.nss[1], "python3", FLOWCHECK, "recv",
                           HOSTS[1][0], "5001", str(n), "--idle", "4"],
                          stdout=subprocess.PIPE, text=True)
    assert json.loads(rx.stdout.readline())["ready"]
    tx = subprocess.Popen(["ip", "netns", "exec", lab.nss[0], "python3", FLOWCHECK, "send",
                           HOSTS[0][0], HOSTS[1][0], "5001", str(flows), str(per_flow), "--pps",
                           str(pps)], stdout=subprocess.PIPE, text=True)
    time.sleep(after_s)
    action()
    sent = json.loads(tx.communicate(timeout=300)[0])
    report = json.loads(rx.stdout.readline())
    rx.wait(timeout=30)
    report["sent"] = sent["sent"]
    return report


def pool_free(st):
    return [c["pool_free"] for c in st["cores"]]


def test_port_reset_under_traffic_without_reboot(lab):
    """`fault reset 1` while a stream crosses port1: every core stops using the port, it is
    reset and restarted, the cores refill their rings; frames lost meanwhile are counted, the
    next stream is delivered whole, pools are back where they were, nothing rebooted."""
    lab.ping(0, dst=HOSTS[1][0], count=2)  # resolve the next hops
    before = quiet_stats(lab)
    banner = lab.guest.text().count("ready: cores=")

    def reset():
        lab.guest.send("fault reset 1\r")

    rep = stream_with(lab, flows=16, per_flow=150, pps=1500, action=reset, after_s=0.6)
    lab.guest.expect(r"port1: reset asked for on the console \(test\); resetting the port", 10)
    m = lab.guest.expect(r"port1: reset done in (\d+) ms; queues restarted", 10)
    assert rep["reordered"] == 0 and rep["duplicates"] == 0, rep
    after = quiet_stats(lab)
    d = lambda port, k: queue_sum(after, port, k) - queue_sum(before, port, k)
    lost = rep["sent"] - rep["received"]
    # every frame host A sent reached host B or is counted where it ended
    counted = d(0, "fwd_egress_link_down") + d(1, "tx_flushed_forwarded") + d(1, "tx_ring_full")
    assert lost == counted, (rep, counted)
    assert d(0, "fwd_forwarded") == d(1, "tx_forwarded") + d(1, "tx_flushed_forwarded") + \
        d(1, "tx_ring_full")
    p1 = after["ports"][1]
    assert p1["state"] == "running" and p1["link"] is True, p1
    assert p1["resets"] == 1 and p1["tx_hangs"] == 0 and p1["reset_failures"] == 0, p1
    assert [c["wake_irqs"] for c in after["cores"][1:]] >= [2, 2, 2], after["cores"]
    for port in (0, 1):
        for q in port_queues(after, port):
            check_forward_conservation(q)
    # the port carries everything again, and every buffer came home
    again = flows_through(lab, 0, 1, HOSTS[0][0], HOSTS[1][0], flows=16, per_flow=50)
    assert again["received"] == again["sent"] == 800, again
    back = flows_through(lab, 1, 0, HOSTS[1][0], HOSTS[0][0], flows=16, per_flow=50)
    assert back["received"] == back["sent"] == 800, back
    assert pool_free(quiet_stats(lab)) == pool_free(before)
    assert lab.guest.text().count("ready: cores=") == banner  # no reboot
    print(f"reset done in {m.group(1)} ms; {rep['received']} of {rep['sent']} frames through "
          f"the reset, {lost} lost and counted ({counted})")


def test_pool_exhaustion_counted_then_full_recovery(lab):
    """Core 1 holds every buffer of its pool it can get (a consumer fallen behind): its RX rings
    run dry and its flows stop; the shortage is counted (rx_no_buffer, pool_alloc_fail), the
    other cores' flows pass untouched; once released, the pool is full again and every flow
    passes."""
    lab.ping(0, dst=HOSTS[1][0], count=2)
    before = quiet_stats(lab)
    flows = 16
    on_core1 = [f for f in range(flows) if udp_queue(HOSTS[0][0], HOSTS[1][0], 40000 + f,
                                                      5001) == 1]
    assert on_core1, "no flow hashes to core 1"
    lab.guest.command("pool hold 1 100000", r"^pool: core 1 holds up to 100000 of its buffers$")
    held = lab.guest.command("pool", r"^1\s+4096\s+(\d+)\s+(\d+)\s")
    assert int(held.group(2)) > 3000, held.group(0)  # everything that was free
    # core 1's RX rings still hold their 511 posted buffers each: more frames than that
    rep = flows_through(lab, 0, 1, HOSTS[0][0], HOSTS[1][0], flows=flows, per_flow=300, pps=2000)
    starved = quiet_stats(lab)
    d = lambda k, c, port=0: port_queues(starved, port)[c][k] - port_queues(before, port)[c][k]
    per_flow = {int(k): v for k, v in rep["per_flow"].items()}
    for f in range(flows):
        if f not in on_core1:
            assert per_flow.get(f) == 300, (f, rep)  # other cores: untouched
    got1 = sum(per_flow.get(f, 0) for f in on_core1)
    assert got1 < 300 * len(on_core1), rep
    assert d("rx_no_buffer", 1) > 0, port_queues(starved, 0)[1]
    assert starved["cores"][1]["pool_alloc_fail"] > before["cores"][1]["pool_alloc_fail"]
    for c in (0, 2, 3):
        assert d("rx_no_buffer", c) == 0 and d("rx_no_buffer", c, 1) == 0, c
        assert starved["cores"][c]["pool_alloc_fail"] == before["cores"][c]["pool_alloc_fail"]
    for port in (0, 1):  # what the core did receive is accounted for
        for q in port_queues(starved, port):
            check_forward_conservation(q)
    # QEMU's igb drops a frame whose queue has no descriptor without counting it anywhere the
    # guest can read (DESIGN.md): the appliance counts the shortage, not each frame
    lab.guest.command("pool release 1", r"^pool: core 1 gives its buffers back$")
    time.sleep(0.5)
    lab.guest.command("pool", r"^1\s+4096\s+\d+\s+0\s")
    rep = flows_through(lab, 0, 1, HOSTS[0][0], HOSTS[1][0], flows=flows, per_flow=100, pps=2000)
    assert rep["received"] == rep["sent"] == 1600, rep
    assert rep["reordered"] == 0 and rep["duplicates"] == 0, rep
    after = quiet_stats(lab)
    assert pool_free(after) == pool_free(before), (pool_free(before), pool_free(after))
    print(f"core 1 starved: {got1} of {300 * len(on_core1)} frames of its {len(on_core1)} flows through, rx_no_buffer "
          f"{d('rx_no_buffer', 1)}; released: 1600 of 1600")


def test_exception_and_nmi_dump_then_reboot_back_to_ready():
    """panic = reboot: a page fault, then an NMI from the QEMU monitor (sent to every core):
    each time one register dump and backtrace, `panic: rebooting`, and the machine is back at
    `ready:` and answers."""
    mon = f"/tmp/wsmon-{uuid.uuid4().hex[:6]}.sock"
    g = Guest(kernel=REBOOT_ELF, smp=CORES, reboot=True, monitor=False,
              extra=["-monitor", f"unix:{mon},server,nowait"])
    try:
        g.wait_ready()
        g.send("fault\r")
        g.expect(r"^fatal exception: core 0 \(apic \d+\): vector 14 \(page fault\)")
        g.expect(r"^  rip 0x[0-9a-f]{16} test_fault_trigger\+0x[0-9a-f]+$")
        g.expect(r"^backtrace:$")
        g.expect(r"^panic: rebooting \(config panic=reboot\)$")
        g.expect(r"^wirespeed \d+\.\d+\.\d+ config reboot rev ", 60)
        g.wait_ready()
        g.command("version", r"^wirespeed \d+\.\d+\.\d+ config reboot")
        monitor_cmd(mon, "nmi")
        m = g.expect(r"^fatal exception: core (\d+) \(apic \d+\): vector 2 \(NMI\)", 30)
        g.expect(r"^  rax [0-9a-f]{16} rbx [0-9a-f]{16} rcx [0-9a-f]{16}$")
        g.expect(r"^backtrace:$")
        tail = g.expect(r"^panic: rebooting \(config panic=reboot\)$")
        dump = g.text()[m.start():tail.end()]
        assert dump.count("fatal exception") == 1, dump  # one core reports, the others park
        g.wait_ready()
        g.command("version", r"^wirespeed \d+\.\d+\.\d+ config reboot")
        assert g.text().count("ready: cores=4 ") == 3
    finally:
        g.close()
        if os.path.exists(mon):
            os.unlink(mon)
