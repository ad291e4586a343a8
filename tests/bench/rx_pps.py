#!/usr/bin/env python3
"""tests/bench/rx_pps.py: received and forwarded packets per second per core at 64 bytes, in QEMU.

A generator (udpgen.c) in the port's namespace sends 64-byte UDP frames to the discard port over
many flows for a few seconds; each core counts what RSS gave it and hands it to the sink core,
where lwIP's discard service counts the datagrams (the sink's UDP_STREAM 64-byte figure).
Prints numbers, never pass/fail: sent rate, what the host's tap dropped before QEMU read it,
what the appliance received per core, every drop counter, and busy cycles per packet.
Run: make bench   (or: python3 tests/bench/rx_pps.py [--seconds N])
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "system"))
from netlab import HOSTS, Lab, ns_run, port_queues  # noqa: E402
from qemu import BUSY_ELF, DEFAULT_ELF, ROOT  # noqa: E402

GEN = os.path.join(ROOT, "build", "bench", "udpgen")


def tap_counter(lab, name):
    return int(ns_run(lab.nss[0], "cat",
                      f"/sys/class/net/{lab.taps[0]}/statistics/{name}").stdout)


def run_one(kernel, mode, cores, seconds, flows):
    lab = Lab(kernel=kernel, smp=cores)
    try:
        lab.guest.wait_ready()
        lab.wait_links()
        assert " 0% packet loss" in lab.ping(0, count=1).stdout
        dut_mac = re.search(r"lladdr (\S+)", ns_run(lab.nss[0], "ip", "neigh", "show",
                                                     HOSTS[0][1]).stdout).group(1)
        before, drop0 = lab.stats(), tap_counter(lab, "tx_dropped")
        out = ns_run(lab.nss[0], GEN, lab.taps[0], dut_mac, HOSTS[0][0], HOSTS[0][1],
                     str(flows), str(seconds), timeout=seconds + 60).stdout
        sent = int(out.split()[1])
        time.sleep(1)  # let the last bursts drain
        after, drop1 = lab.stats(), tap_counter(lab, "tx_dropped")
    finally:
        lab.close()
    qa, qb = port_queues(after, 0), port_queues(before, 0)
    per_core = [(a["rx_packets"] - b["rx_packets"]) / seconds for a, b in zip(qa, qb)]
    hw = {k: after["ports"][0]["hw"][k] - before["ports"][0]["hw"][k]
          for k in ("rx_missed_errors", "rx_no_buffer_count", "rx_queue_drops")}
    ring = {k: sum(a[k] - b[k] for a, b in zip(qa, qb)) for k in ("rx_no_buffer", "rx_errors")}
    busy = [a["busy_cycles"] - b["busy_cycles"]
            for a, b in zip(after["cores"], before["cores"])]
    rx = [a["rx_packets"] - b["rx_packets"] for a, b in zip(qa, qb)]
    cpp = [f"{c / r:.0f}" if r else "-" for c, r in zip(busy, rx)]
    sink = (after["sink"]["discard"]["rx_datagrams"] - before["sink"]["discard"]["rx_datagrams"])
    ring_full = sum(a["sink_ring_full"] - b["sink_ring_full"]
                    for a, b in zip(after["cores"], before["cores"]))
    print(f"{mode:9} {cores:5} {sent / seconds:10.0f} {drop1 - drop0:9} "
          f"{sum(per_core):10.0f}  {' '.join(f'{x:.0f}' for x in per_core):28} "
          f"{hw['rx_missed_errors']:7} {hw['rx_no_buffer_count']:7} {hw['rx_queue_drops']:7} "
          f"{ring['rx_no_buffer']:7} {sink / seconds:10.0f} {ring_full:9}  {' '.join(cpp)}",
          flush=True)


def resolve(lab, tries=10):
    """Resolve the next hops both ways (a starved busy guest may miss the first ARP)."""
    for _ in range(tries):
        if " 0% packet loss" in lab.ping(0, dst=HOSTS[1][0], count=1).stdout:
            return
    raise AssertionError("no ping through the router: " + lab.guest.text()[-2000:])


def run_forward(kernel, mode, cores, seconds, flows, watch=False, nic="igb"):
    """64-byte UDP from port0's host to port1's host through the router; with watch, the
    console prints per-second deltas during the run (their cost shows as a lower rate)."""
    lab = Lab(kernel=kernel, smp=cores, nic=nic)
    try:
        lab.guest.wait_ready()
        lab.wait_links()
        resolve(lab)
        if watch:
            lab.guest.command("watch 1", r"^watch on$")
        dut_mac = re.search(r"lladdr (\S+)", ns_run(lab.nss[0], "ip", "neigh", "show",
                                                     HOSTS[0][1]).stdout).group(1)
        before, drop0 = lab.stats(), tap_counter(lab, "tx_dropped")
        out = ns_run(lab.nss[0], GEN, lab.taps[0], dut_mac, HOSTS[0][0], HOSTS[1][0],
                     str(flows), str(seconds), timeout=seconds + 60).stdout
        sent = int(out.split()[1])
        time.sleep(1)
        after, drop1 = lab.stats(), tap_counter(lab, "tx_dropped")
    finally:
        lab.close()
    qa, qb = port_queues(after, 0), port_queues(before, 0)
    fwd = [(a["fwd_forwarded"] - b["fwd_forwarded"]) / seconds for a, b in zip(qa, qb)]
    txa, txb = port_queues(after, 1), port_queues(before, 1)
    done = sum(a["tx_packets"] - b["tx_packets"] for a, b in zip(txa, txb)) / seconds
    full = sum(a["tx_ring_full"] - b["tx_ring_full"] for a, b in zip(txa, txb))
    drops = sum(a[k] - b[k] for a, b in zip(qa, qb) for k in a
                if k.startswith(("fwd_no_", "fwd_arp_unres", "fwd_egress", "route_ip")))
    print(f"{mode:9} {cores:5} {sent / seconds:10.0f} {drop1 - drop0:9} {sum(fwd):10.0f}  "
          f"{' '.join(f'{x:.0f}' for x in fwd):28} {done:10.0f} {full:9} {drops:7}", flush=True)


def run_tcp(kernel, nic, cores, seconds):
    """iperf3 TCP from port0's host to port1's host through the router: Mbit/s received."""
    lab = Lab(kernel=kernel, smp=cores, nic=nic)
    srv = None
    try:
        lab.guest.wait_ready()
        lab.wait_links()
        resolve(lab)
        srv = subprocess.Popen(["ip", "netns", "exec", lab.nss[1], "iperf3", "-s", "-1", "-B",
                                HOSTS[1][0]], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        time.sleep(1)
        r = ns_run(lab.nss[0], "iperf3", "-c", HOSTS[1][0], "-t", str(seconds), "-J",
                   check=False, timeout=seconds + 60)
        res = json.loads(r.stdout)["end"]
        print(f"{nic:6} {cores:5} {res['sum_received']['bits_per_second'] / 1e6:10.1f} "
              f"{res['sum_sent'].get('retransmits', 0):8}", flush=True)
    finally:
        if srv:
            srv.kill()
            srv.wait()
        lab.close()


def compare_nics(seconds, flows):
    """The emulated 82599 (ixgbe-82599) beside QEMU's igb: forwarded 64-byte pps and TCP."""
    print("Forwarded through the router, port0 -> port1, 64-byte UDP (packets/s), per NIC")
    print(f"{'nic/mode':9} {'cores':5} {'sent':>10} {'tap_drop':>9} {'forwarded':>10}  "
          f"{'forwarded per core':28} {'tx_done':>10} {'ring_full':>9} {'drops':>7}")
    for nic in ("igb", "82599"):
        for kernel, mode in ((BUSY_ELF, "busy"), (DEFAULT_ELF, "adaptive")):
            for cores in (1, 4):
                print(f"{nic}:", end=" ")
                run_forward(kernel, mode, cores, seconds, flows, nic=nic)
    print()
    print("iperf3 TCP through the router, port0's host -> port1's host, adaptive mode")
    print(f"{'nic':6} {'cores':5} {'Mbit/s':>10} {'retrans':>8}")
    for nic in ("igb", "82599"):
        for cores in (1, 4):
            run_tcp(DEFAULT_ELF, nic, cores, seconds)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--flows", type=int, default=64)
    ap.add_argument("--nics", action="store_true",
                    help="only the igb vs emulated 82599 comparison (forwarded pps, TCP)")
    args = ap.parse_args()
    if args.nics:
        compare_nics(args.seconds, args.flows)
        return
    print(f"64-byte UDP, {args.flows} flows, {args.seconds:g} s per run, QEMU TCG, igb; "
          "rates in packets/s")
    print(f"{'mode':9} {'cores':5} {'sent':>10} {'tap_drop':>9} {'rx_total':>10}  "
          f"{'rx per core':28} {'missed':>7} {'no_desc':>7} {'q_drop':>7} {'no_buf':>7} "
          f"{'sink_rx':>10} {'ring_full':>9}  busy cycles/pkt per core")
    for kernel, mode in ((BUSY_ELF, "busy"), (DEFAULT_ELF, "adaptive")):
        for cores in (1, 4):
            run_one(kernel, mode, cores, args.seconds, args.flows)
    print()
    print("Forwarded through the router, port0 -> port1, 64-byte UDP (packets/s)")
    print(f"{'mode':9} {'cores':5} {'sent':>10} {'tap_drop':>9} {'forwarded':>10}  "
          f"{'forwarded per core':28} {'tx_done':>10} {'ring_full':>9} {'drops':>7}")
    for kernel, mode in ((BUSY_ELF, "busy"), (DEFAULT_ELF, "adaptive")):
        for cores in (1, 4):
            run_forward(kernel, mode, cores, args.seconds, args.flows)
    print()
    print("The cost of watching: the same run with and without `watch 1` (adaptive, 4 cores)")
    for watch in (False, True, False, True):
        run_forward(DEFAULT_ELF, "watch" if watch else "no-watch", 4, args.seconds, args.flows,
                    watch=watch)


if __name__ == "__main__":
    main()
