"""Faults the emulated 82599 is told to have (issue 10), through the ixgbe-82599 device's fault
properties (qemu-82599/README.md, set from the QEMU monitor while the appliance runs):

- tx-stalled: the TX engine stops completing descriptors under a stream; the TX hang watchdog
  finds it, resets the port without a reboot, and every frame lost meanwhile is counted;
- gone: a port's device drops off the bus (every register read returns all-ones, no DMA) under a
  stream between two other ports; the firmware declares that port dead and gives its buffers
  back, and the other ports go on forwarding without a loss.

The host-side proofs of the same paths (tests/hostsim, `make test-model`: tx-hang, gone-later,
gone-traffic) run the driver against the model directly; these run the real image in QEMU."""

import subprocess

from netlab import HOSTS, Lab, finish_lab, port_queues, queue_sum, start_lab
from qemu import TEST_ELF
from test_faults import pool_free, quiet_stats, stream_with
from test_forward import check_forward_conservation, flows_through

CORES = 4
PORT2 = ("198.20.0.2", "198.20.0.1")  # the third wire's host; the appliance has no address there


def delta(before, after):
    return lambda port, key: queue_sum(after, port, key) - queue_sum(before, port, key)


def check_both_ways(lab):
    """Ports 0 and 1 still carry every frame, in both directions."""
    for src, dst in ((0, 1), (1, 0)):
        rep = flows_through(lab, src, dst, HOSTS[src][0], HOSTS[dst][0], flows=16, per_flow=50)
        assert rep["received"] == rep["sent"] == 800, rep


def test_tx_stall_found_by_watchdog_port_reset_without_reboot():
    """Port1's TX stops completing while a stream crosses it: the watchdog reports the hung
    queue, resets the port; once the fault lifts the port carries traffic again, with every
    lost frame counted and no reboot."""
    lab = start_lab("82599", kernel=TEST_ELF, smp=CORES)
    try:
        lab.ping(0, dst=HOSTS[1][0], count=2)  # resolve the next hops
        before = quiet_stats(lab)
        banner = lab.guest.text().count("ready: cores=")
        found = {}

        def stall_until_found():
            lab.nic_fault(1, "tx-stalled", True)
            found["hang"] = lab.guest.expect(
                r"port1: TX queue (\d+) hung \(TDH (\d+) TDT (\d+) unchanged, no completion for "
                r"(\d+) ms, link up\); resetting the port", 30)
            lab.nic_fault(1, "tx-stalled", False)

        rep = stream_with(lab, flows=16, per_flow=400, pps=1500, action=stall_until_found,
                          after_s=0.6)
        lab.guest.expect(r"port1: reset done in (\d+) ms; queues restarted", 20)
        assert rep["reordered"] == 0 and rep["duplicates"] == 0, rep
        after = quiet_stats(lab)
        d = delta(before, after)
        lost = rep["sent"] - rep["received"]
        assert lost > 0, rep  # the stall held frames back: the count below is not vacuous
        counted = d(0, "fwd_egress_link_down") + d(1, "tx_flushed_forwarded") + \
            d(1, "tx_ring_full")
        assert lost == counted, (rep, counted)
        p1 = after["ports"][1]
        assert p1["state"] == "running" and p1["link"] is True, p1
        assert p1["tx_hangs"] >= 1 and p1["resets"] == p1["tx_hangs"], p1
        assert p1["reset_failures"] == 0 and p1["device_gone"] == 0, p1
        for port in (0, 1):
            for q in port_queues(after, port):
                check_forward_conservation(q)
        check_both_ways(lab)
        assert pool_free(quiet_stats(lab)) == pool_free(before)  # every buffer came home
        assert lab.guest.text().count("ready: cores=") == banner  # no reboot
        hang = found["hang"]
        print(f"queue {hang.group(1)} hung after {hang.group(4)} ms without a completion; "
              f"{p1['resets']} reset(s); {rep['received']} of {rep['sent']} frames through, "
              f"{lost} lost and counted")
    finally:
        finish_lab(lab)


def test_gone_device_isolated_rest_keeps_forwarding():
    """Port2's device goes (reads all-ones) while a stream runs from port0 to port1: the
    firmware says so once, marks port2 dead and takes its buffers back; the stream loses
    nothing, the console answers, ports 0 and 1 forward both ways afterwards."""
    lab = start_lab("82599", kernel=TEST_ELF, smp=CORES, nports=3, hosts=HOSTS + [PORT2])
    try:
        lab.ping(0, dst=HOSTS[1][0], count=2)  # resolve the next hops
        before = quiet_stats(lab)
        assert before["ports"][2]["state"] == "running", before["ports"][2]

        rep = stream_with(lab, flows=16, per_flow=200, pps=1500,
                          action=lambda: lab.nic_fault(2, "gone", True), after_s=0.6)
        lab.guest.expect(r"port2: device gone \(STATUS reads all-ones\); port no longer touched",
                         20)
        assert rep["received"] == rep["sent"] == 3200, rep
        assert rep["reordered"] == 0 and rep["duplicates"] == 0, rep

        # the gone port's host keeps sending at it: nothing reaches the firmware, nothing breaks
        lab.ping(2, count=3)
        after = quiet_stats(lab)
        p0, p1, p2 = after["ports"]
        assert p2["state"] == "dead" and p2["device_gone"] == 1 and p2["link"] is False, p2
        for p in (p0, p1):
            assert p["state"] == "running" and p["link"] is True and p["device_gone"] == 0, p
        for port in (0, 1):
            for q in port_queues(after, port):
                check_forward_conservation(q)
        # port2's RX rings were refilled buffers; a dead port gives them back to every core
        grown = [a - b for a, b in zip(pool_free(after), pool_free(before))]
        assert all(g > 0 for g in grown) and len(set(grown)) == 1, (pool_free(before),
                                                                  pool_free(after))
        assert lab.guest.text().count("device gone") == 1  # said once, never touched again
        lab.guest.send("ports\r")
        lab.guest.expect(r"port2 .*dead", 10)
        check_both_ways(lab)
        assert lab.ping(0).returncode == 0 and lab.ping(1).returncode == 0
        assert pool_free(quiet_stats(lab)) == pool_free(after)  # no buffer lost since
        print(f"{rep['received']} of {rep['sent']} frames through; port2's {grown[0]} buffers "
              f"per core back in the pools")
    finally:
        finish_lab(lab)


PAUSE_FLOOD = r"""
import socket, struct, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
def pause(quanta):
    return (bytes.fromhex("0180c2000001") + bytes.fromhex("020000000b0b") +
            struct.pack("!HHH", 0x8808, 1, quanta)).ljust(60, b"\0")
end, n = time.monotonic() + float(sys.argv[2]), 0
while time.monotonic() < end:
    s.send(pause(0xFFFF))
    n += 1
    time.sleep(0.001)
s.send(pause(0))
print(n)
"""


def test_pause_flood_holds_tx_without_a_hang():
    """Host B floods port1 with XOFF (the longest pause, about every millisecond) for 2.5 s
    while a stream crosses port1, then sends XON: the appliance obeys (nic.flow_control =
    full), its TX watchdog calls the held queue held, not hung (no reset), every PAUSE frame and
    the held time are counted, frames lost meanwhile are counted, and traffic flows again.

    Port1 is an SFP+ port with a 1000BASE-SX module: at 1 Gb/s one XOFF holds TX for 33.5 ms,
    which spans the tens of milliseconds QEMU may take between reads of a busy tap. At 10 Gb/s
    (3.4 ms per XOFF) the pauses that arrive in such a batch leave gaps in which the ring
    drains, and the hold is not continuous."""
    lab = Lab(kernel=TEST_ELF, smp=2, nic="82599", nic_opts=[None, "sfp=on,module=1g-sx"])
    try:
        lab.guest.expect(r"port1: link up 1000 Mb/s", 90)  # during bring-up, before ready:
        lab.guest.wait_ready()
        lab.ping(0, dst=HOSTS[1][0], count=2)
        before = quiet_stats(lab)
        sent_pause = {}

        def flood():
            r = subprocess.run(["ip", "netns", "exec", lab.nss[1], "python3", "-c", PAUSE_FLOOD,
                                lab.taps[1], "2.5"], capture_output=True, text=True, timeout=60)
            assert r.returncode == 0, r.stderr
            sent_pause["n"] = int(r.stdout)

        rep = stream_with(lab, flows=16, per_flow=300, pps=1500, action=flood, after_s=0.5)
        after = quiet_stats(lab)
        d = delta(before, after)
        p1b, p1 = before["ports"][1], after["ports"][1]
        assert "hung" not in lab.guest.text(), lab.guest.text()[-3000:]
        assert p1["tx_hangs"] == p1b["tx_hangs"] and p1["resets"] == p1b["resets"], p1
        xoff = p1["hw"]["rx_flow_control_xoff"] - p1b["hw"]["rx_flow_control_xoff"]
        assert xoff == sent_pause["n"], (xoff, sent_pause)
        assert p1["hw"]["rx_flow_control_xon"] - p1b["hw"]["rx_flow_control_xon"] == 1, p1["hw"]
        held = p1["xoff_held_ms"] - p1b["xoff_held_ms"]
        assert 1500 <= held <= 3500, held
        assert p1["flow_control"] == "full", p1
        lost = rep["sent"] - rep["received"]
        assert lost > 0, rep  # 2.5 s held at 1500 frames/s: the ring overflowed
        # forwarded frames that never left port1 (a full ring, a flush), counted per frame;
        # tx_ring_full alone would also count the appliance's own ARP answers to host B
        counted = d(0, "fwd_egress_link_down") + d(0, "fwd_forwarded") - d(1, "tx_forwarded")
        assert lost == counted, (rep, counted)
        assert d(1, "tx_ring_full") >= lost - d(0, "fwd_egress_link_down"), rep
        assert rep["reordered"] == 0 and rep["duplicates"] == 0, rep
        check_both_ways(lab)
        assert lab.guest_errors() == "", lab.guest_errors()
        print(f"{xoff} XOFF in 2.5 s: held {held} ms, no hang; {rep['received']} of "
              f"{rep['sent']} frames through, {lost} counted (tx_ring_full)")
    finally:
        finish_lab(lab)
