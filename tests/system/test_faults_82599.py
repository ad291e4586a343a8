"""Faults the emulated 82599 is told to have (issue 10), through the ixgbe-82599 device's fault
properties (qemu-82599/README.md, set from the QEMU monitor while the appliance runs):

- tx-stalled: the TX engine stops completing descriptors under a stream; the TX hang watchdog
  finds it, resets the port without a reboot, and every frame lost meanwhile is counted;
- gone: a port's device drops off the bus (every register read returns all-ones, no DMA) under a
  stream between two other ports; the firmware declares that port dead and gives its buffers
  back, and the other ports go on forwarding without a loss.

The host-side proofs of the same paths (tests/hostsim, `make test-model`: tx-hang, gone-later,
gone-traffic) run the driver against the model directly; these run the real image in QEMU."""

from netlab import HOSTS, finish_lab, port_queues, queue_sum, start_lab
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
