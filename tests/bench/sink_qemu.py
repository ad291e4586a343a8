#!/usr/bin/env python3
"""tests/bench/sink_qemu.py: the sink under real benchmark clients, in QEMU (TCG unless
tools/kvm-probe says KVM works). Debian's iperf3 and netperf in port0's namespace run against
the appliance; for each run it prints the client's own figure beside what the appliance's
counters say about the sink core: its busy share (loop passes that did work, of all cycles)
and busy cycles per TCP segment received. Numbers, never pass/fail.
Run: make bench   (or: python3 tests/bench/sink_qemu.py [--seconds N] [--only TEXT])
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "system"))
from netlab import HOSTS, Lab, ns_run  # noqa: E402
from qemu import DEFAULT_ELF  # noqa: E402

APPLIANCE = HOSTS[0][1]


def sink_core_use(before, after):
    """(busy %, busy cycles per TCP segment in, per UDP datagram in) of the sink core."""
    core = after["sink"]["core"]
    b, a = before["cores"][core], after["cores"][core]
    busy = a["busy_cycles"] - b["busy_cycles"]
    idle = a["idle_cycles"] - b["idle_cycles"]
    segs = after["sink"]["tcp"]["segments_in"] - before["sink"]["tcp"]["segments_in"]
    dgrams = after["sink"]["udp"]["datagrams_in"] - before["sink"]["udp"]["datagrams_in"]
    pct = 100.0 * busy / (busy + idle) if busy + idle else 0.0
    # A UDP run's few TCP segments are its control connection: per datagram is what matters.
    if dgrams > segs:
        return pct, None, busy / dgrams
    return pct, (busy / segs if segs else None), None


def fmt(x):
    return "-" if x is None else f"{x:,.0f}"


def iperf3(lab, seconds, *extra):
    out = ns_run(lab.nss[0], "iperf3", "-c", APPLIANCE, "-t", str(seconds), "-J", *extra,
                 timeout=seconds + 60, check=False).stdout
    r = json.loads(out)
    if "error" in r:
        return f"error: {r['error']}"
    end = r["end"]
    if "-u" in extra:
        s = end["sum"]
        return f"{s['bits_per_second'] / 1e6:,.1f} Mbit/s, {s['lost_percent']:.2f}% lost"
    key = "sum_sent" if "-R" in extra else "sum_received"
    return f"{end[key]['bits_per_second'] / 1e6:,.1f} Mbit/s"


def netperf(lab, seconds, test, *extra):
    r = ns_run(lab.nss[0], "netperf", "-H", APPLIANCE, "-l", str(seconds), "-t", test, "-P",
               "0", "--", "-o", "throughput,throughput_units", *extra, timeout=seconds + 90,
               check=False)
    if r.returncode != 0:
        return f"rc={r.returncode}: {r.stderr.strip()[-120:]}"
    value, units = r.stdout.strip().splitlines()[-1].split(",")[:2]
    return f"{float(value):,.1f} {units}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--only", help="run only the runs whose name contains this text")
    args = ap.parse_args()
    runs = [
        ("iperf3 TCP", lambda lab: iperf3(lab, args.seconds)),
        ("iperf3 TCP -P 4", lambda lab: iperf3(lab, args.seconds, "-P", "4")),
        ("iperf3 TCP -R", lambda lab: iperf3(lab, args.seconds, "-R")),
        ("iperf3 UDP -b 50M", lambda lab: iperf3(lab, args.seconds, "-u", "-b", "50M")),
        ("netperf TCP_STREAM", lambda lab: netperf(lab, args.seconds, "TCP_STREAM")),
        # small writes: the client's Nagle algorithm waits for each ACK
        ("netperf TCP_STREAM -m 64", lambda lab: netperf(lab, args.seconds, "TCP_STREAM", "-m",
                                                           "64")),
        ("netperf TCP_MAERTS", lambda lab: netperf(lab, args.seconds, "TCP_MAERTS")),
        ("netperf TCP_RR", lambda lab: netperf(lab, args.seconds, "TCP_RR")),
        ("netperf UDP_STREAM 64", lambda lab: netperf(lab, args.seconds, "UDP_STREAM", "-m",
                                                        "64")),
        ("netperf UDP_RR", lambda lab: netperf(lab, args.seconds, "UDP_RR")),
    ]
    runs = [r for r in runs if args.only is None or args.only in r[0]]
    print(f"The sink in QEMU (TCG, 4 cores, igb), {args.seconds} s per run; sink core figures "
          "from the appliance's counters")
    print(f"{'run':24} {'client says':34} {'sink busy':>9} {'cyc/segment':>12} "
          f"{'cyc/datagram':>12}")
    lab = Lab(kernel=DEFAULT_ELF, smp=4)
    try:
        lab.guest.wait_ready()
        lab.wait_links()
        lab.ping(0, count=1)
        for name, run in runs:
            before = lab.stats()
            said = run(lab)
            after = lab.stats()
            pct, cps, cpd = sink_core_use(before, after)
            print(f"{name:24} {said:34} {pct:8.1f}% {fmt(cps):>12} {fmt(cpd):>12}", flush=True)
    finally:
        lab.close()


if __name__ == "__main__":
    main()
