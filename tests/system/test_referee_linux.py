"""The referee (issue: emulated 82599): Debian's Linux 6.1 and its own ixgbe driver on two
ixgbe-82599 ports. The model and wirespeed's driver were written from one reading of the
datasheet; Linux's driver was not. It must probe both ports without errors, bring the links
up, and forward ping and an iperf3 TCP run between two namespaces, with `ethtool -S` counters
that agree with what the hosts' taps saw. Every failure here is a fact the model got wrong.
"""
import json
import re
import subprocess
import time
import uuid

import pytest

from netlab import HOSTS, monitor_cmd, ns_run, sh
from referee import Referee

IPERF_SECONDS = 5
# What a healthy ixgbe never says (probe errors, EEPROM/firmware/PHY/SFP trouble, TX hangs,
# resets it had to do, PCIe bandwidth warnings)
BAD = re.compile(r"fail|error|invalid|not supported|timeout|unsupported|warning|hang|reset|"
                 r"not sufficient", re.I)


@pytest.fixture
def referee(request):
    """The Linux guest on two ports; a test may pass -device options per port as the
    fixture's param (indirect parametrization)."""
    nic_opts = getattr(request, "param", None)
    tag = uuid.uuid4().hex[:6]
    taps = [f"wsr{tag}{i}" for i in range(2)]
    nss = [f"wsrns{tag}{i}" for i in range(2)]
    errlog, monitor = f"/tmp/wsref-{tag}.log", f"/tmp/wsref-{tag}.sock"
    for tap, ns in zip(taps, nss):
        sh("ip", "tuntap", "add", "dev", tap, "mode", "tap")
        sh("ip", "netns", "add", ns)
    ref = None
    try:
        ref = Referee(taps, errlog, monitor, nic_opts=nic_opts)
        time.sleep(0.5)  # QEMU opens the taps first
        for i, (tap, ns) in enumerate(zip(taps, nss)):
            sh("ip", "link", "set", tap, "netns", ns)
            ns_run(ns, "sysctl", "-q", "net.ipv6.conf.all.disable_ipv6=1")
            ns_run(ns, "ip", "addr", "add", f"{HOSTS[i][0]}/24", "dev", tap)
            ns_run(ns, "ip", "link", "set", tap, "up")
            ns_run(ns, "ip", "link", "set", "lo", "up")
            ns_run(ns, "ip", "route", "add", "default", "via", HOSTS[i][1])
        ref.taps, ref.nss, ref.errlog, ref.monitor = taps, nss, errlog, monitor
        ref.wait_ready()
        yield ref
    finally:
        if ref:
            ref.close()
        for ns in nss:
            sh("ip", "netns", "delete", ns, check=False)
        for tap in taps:
            sh("ip", "link", "delete", tap, check=False)
        for f in (errlog, monitor):
            sh("rm", "-f", f, check=False)


def guest_errors(ref):
    try:
        with open(ref.errlog) as f:
            return f.read()
    except FileNotFoundError:
        return ""


def ethtool_stats(ref, dev):
    rc, out = ref.run(f"ethtool -S {dev}")
    assert rc == 0, out
    return {k: int(v) for k, v in re.findall(r"^\s+(\S+): (\d+)$", out, re.M)}


def tap_stats(ref, port):
    base = f"/sys/class/net/{ref.taps[port]}/statistics/"
    return {k: int(ns_run(ref.nss[port], "cat", base + k).stdout)
            for k in ("tx_packets", "rx_packets", "tx_dropped")}


def quiet_snapshot(ref):
    """ethtool -S of both ports and both taps' counters at one quiet moment (the guest and the
    hosts may send an ARP at any time): retry until no frame crossed a wire meanwhile."""
    for _ in range(10):
        taps = [tap_stats(ref, p) for p in (0, 1)]
        eth = [ethtool_stats(ref, d) for d in ("eth0", "eth1")]
        if [tap_stats(ref, p) for p in (0, 1)] == taps:
            return eth, taps
        time.sleep(0.3)
    raise AssertionError("the wires never went quiet")


def wait_operstate_up(ref, dev):
    for _ in range(150):
        rc, out = ref.run(f"cat /sys/class/net/{dev}/operstate")
        if out.strip() == "up":
            return
        time.sleep(0.2)
    rc, dmesg = ref.run("dmesg")
    raise AssertionError(f"{dev} never came up\n{dmesg}")


def probed_and_linked(ref):
    """Both ports probed with no ixgbe complaint in dmesg, both links up at 10G (the watchdog
    task brings them up within a few seconds); returns `ethtool` of eth0 and eth1."""
    rc, dmesg = ref.run("dmesg")
    probe = [l for l in dmesg.splitlines() if "ixgbe" in l]
    assert len([l for l in probe if "Intel(R) 10 Gigabit Network Connection" in l]) == 2, dmesg
    bad = [l for l in probe if BAD.search(l)]
    assert not bad, "\n".join(bad) + "\n--- dmesg ---\n" + dmesg
    outs = []
    for dev in ("eth0", "eth1"):
        wait_operstate_up(ref, dev)
        rc, out = ref.run(f"ethtool {dev}")
        assert "Speed: 10000Mb/s" in out and "Link detected: yes" in out, out
        outs.append(out)
    return outs


def test_linux_ixgbe_probes_links_forwards_and_counts(referee):
    ref = referee
    probed_and_linked(ref)
    rc, dmesg = ref.run("dmesg")
    assert len(re.findall(r"ixgbe .*NIC Link is Up 10 Gbps", dmesg)) == 2, dmesg

    before, taps0 = quiet_snapshot(ref)
    # ping through Linux's forwarding, both ways
    for src, dst in ((0, 1), (1, 0)):
        r = ns_run(ref.nss[src], "ping", "-c", "5", "-i", "0.2", "-W", "2", HOSTS[dst][0],
                   check=False, timeout=30)
        assert " 0% packet loss" in r.stdout and "ttl=63" in r.stdout, r.stdout
    # iperf3: server in one namespace, client in the other, TCP through the guest
    srv = subprocess.Popen(["ip", "netns", "exec", ref.nss[1], "iperf3", "-s", "-1",
                            "-B", HOSTS[1][0]], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
    try:
        time.sleep(1)
        r = ns_run(ref.nss[0], "iperf3", "-c", HOSTS[1][0], "-t", str(IPERF_SECONDS), "-J",
                   check=False, timeout=IPERF_SECONDS + 60)
        assert r.returncode == 0, r.stdout + r.stderr
        res = json.loads(r.stdout)
        bps = res["end"]["sum_received"]["bits_per_second"]
        print(f"referee: iperf3 TCP through Linux forwarding on ixgbe-82599: "
              f"{bps / 1e6:.1f} Mbit/s, retransmits {res['end']['sum_sent'].get('retransmits')}")
        assert bps > 1e6, res["end"]
    finally:
        srv.wait(timeout=30)
    time.sleep(3)  # ixgbe refreshes its statistics every 2 s (watchdog)
    after, taps1 = quiet_snapshot(ref)
    # GRO merges the client's segments on eth0; each aggregate is forwarded once and leaves
    # eth1 through the model's TSO (Linux's ixgbe offers TSO): frames per forwarded datagram > 1
    rc, snmp = ref.run("cat /proc/net/snmp")
    ip = dict(zip(*[l.split()[1:] for l in snmp.splitlines() if l.startswith("Ip:")][:2]))
    rc, feat = ref.run("ethtool -k eth1")
    tso = re.search(r"tcp-segmentation-offload: \w+", feat).group(0)
    print(f"referee: guest forwarded {ip['ForwDatagrams']} datagrams for "
          f"{after[0]['rx_packets'] - before[0]['rx_packets']} frames received on eth0; "
          f"eth1 {tso}")
    for port in (0, 1):
        d = lambda k: after[port][k] - before[port][k]
        sent_in = taps1[port]["tx_packets"] - taps0[port]["tx_packets"]
        got_out = taps1[port]["rx_packets"] - taps0[port]["rx_packets"]
        assert taps1[port]["tx_dropped"] == taps0[port]["tx_dropped"], port
        # the NIC received what the host sent it and sent what the host received; the per
        # queue counters add up to the port's
        assert d("rx_packets") == sent_in, (port, d("rx_packets"), sent_in)
        assert d("tx_packets") == got_out, (port, d("tx_packets"), got_out)
        rxq = sum(after[port][k] - before[port].get(k, 0) for k in after[port]
                  if re.match(r"rx_queue_\d+_packets$", k))
        assert rxq == d("rx_packets"), (port, rxq)
        assert d("rx_missed_errors") == 0 and d("rx_crc_errors") == 0, port
    # the cable, pulled and plugged through QEMU's monitor: Linux sees both (EICR.LSC)
    for state, word in (("off", "Down"), ("on", "Up")):
        monitor_cmd(ref.monitor, f"set_link n0 {state}")
        for _ in range(100):
            rc, dmesg = ref.run("dmesg | tail -5")
            if re.search(rf"eth0: NIC Link is {word}", dmesg):
                break
            time.sleep(0.2)
        assert re.search(rf"eth0: NIC Link is {word}", dmesg), (state, dmesg)
    r = ns_run(ref.nss[0], "ping", "-c", "3", "-i", "0.2", "-W", "2", HOSTS[1][0], check=False,
               timeout=30)
    assert " 0% packet loss" in r.stdout, r.stdout
    rc, dmesg = ref.run("dmesg")
    bad = [l for l in dmesg.splitlines() if "ixgbe" in l and BAD.search(l)]
    assert not bad, "\n".join(bad)
    errors = guest_errors(ref)
    assert not errors, "the 82599 model reported driver misuse by Linux:\n" + errors[:4000]


SFP_BOARD = ["sfp=on,module=sr", "sfp=on,module=da-passive"]


@pytest.mark.parametrize("referee", [SFP_BOARD], indirect=True)
def test_linux_ixgbe_on_the_sfp_board_reads_the_modules_and_links(referee):
    """Linux 6.1's ixgbe on the 0x10FB model with an SR optic and a passive DA cable: it
    identifies both modules over our I2C (SFP+ types 5 and 3 in its numbering: the NVM init
    sequences the model checks for), links both at 10G, forwards, and `ethtool -m` decodes each
    module's SFF-8472 page as the model wrote it. The model's reading of the board is thereby
    checked by a driver that was not written from ours."""
    ref = referee
    for out in probed_and_linked(ref):
        assert "Port: FIBRE" in out or "Port: Direct Attach Copper" in out, out
    rc, m0 = ref.run("ethtool -m eth0")
    assert rc == 0, m0
    assert re.search(r"Identifier\s+: 0x03 \(SFP\)", m0), m0
    assert re.search(r"Connector\s+: 0x07 \(LC\)", m0), m0
    assert re.search(r"10G Ethernet: 10G Base-SR", m0), m0
    assert re.search(r"Vendor name\s+: Intel Corp", m0), m0
    assert re.search(r"Vendor OUI\s+: 00:1b:21", m0), m0
    assert re.search(r"Vendor PN\s+: WSM-10G-SR", m0), m0
    rc, m1 = ref.run("ethtool -m eth1")
    assert rc == 0, m1
    assert re.search(r"Connector\s+: 0x21 \(Copper pigtail\)", m1), m1
    assert re.search(r"Passive Cable", m1), m1
    assert re.search(r"Vendor PN\s+: WSM-DAC-3M", m1), m1
    for src, dst in ((0, 1), (1, 0)):
        r = ns_run(ref.nss[src], "ping", "-c", "3", "-i", "0.2", "-W", "2", HOSTS[dst][0],
                   check=False, timeout=30)
        assert " 0% packet loss" in r.stdout and "ttl=63" in r.stdout, r.stdout
    rc, dmesg = ref.run("dmesg")
    bad = [l for l in dmesg.splitlines() if "ixgbe" in l and BAD.search(l)]
    assert not bad, "\n".join(bad)
    print("referee (0x10FB): " + "; ".join(l.split("]", 1)[-1].strip() for l in
                                           dmesg.splitlines() if "SFP+" in l or "PHY:" in l))
    errors = guest_errors(ref)
    assert not errors, "the 82599 model reported driver misuse by Linux:\n" + errors[:4000]
