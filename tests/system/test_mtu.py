"""MTUs (issue: the router a network engineer expects). A smaller MTU on the egress port:
config/test.conf gives port1 an MTU of 1280. A datagram from host A (port0) to host B (port1)
larger than that is cut into fragments when DF is clear (RFC 791), which B reassembles and
answers; with DF set it is dropped and answered with ICMP fragmentation needed carrying the
next-hop MTU (RFC 1191), which Linux's ping prints. The reverse way (port0, MTU 1500) is
untouched. Jumbo frames: config/jumbo.conf gives both ports an MTU of 9000, the hosts' taps
get 9000 too, and 9000-byte datagrams cross the router whole, to host B and to the sink."""
import re

import json

from netlab import BOTH_NICS, HOSTS, finish_lab, ns_run, port_queues, queue_sum, start_lab
from qemu import JUMBO_ELF, TEST_ELF
from test_forward import check_forward_conservation

B = HOSTS[1][0]
MTU = 1280  # config/test.conf port1.mtu


@BOTH_NICS
def test_larger_than_egress_mtu_fragmented_or_refused(nic):
    lab = start_lab(nic, kernel=TEST_ELF, smp=2)
    try:
        assert f"port1: address 198.19.0.1/24, mtu {MTU}" in lab.guest.text()
        lab.ping(0, dst=B, count=2)  # resolves B

        # DF clear (ping -M dont): 1428-byte datagrams leave port1 as two fragments each; B
        # reassembles them and its 1428-byte replies come back whole through port0. First,
        # before A's kernel has heard of the smaller MTU and would cut them itself.
        r = lab.ping(0, dst=B, size=1400, count=5, extra=["-M", "dont"])
        assert " 0% packet loss" in r.stdout, r.stdout
        st = lab.stats()
        assert queue_sum(st, 0, "fwd_fragmented") == 5, port_queues(st, 0)
        assert queue_sum(st, 0, "fwd_fragments_sent") == 10, port_queues(st, 0)
        assert queue_sum(st, 1, "fwd_fragmented") == 0  # the replies fit port0's 1500

        # DF set (ping -M do): refused, and told the MTU.
        r = lab.ping(0, dst=B, size=1400, count=3, extra=["-M", "do"])
        assert re.search(rf"From 198\.18\.0\.1 .*[Ff]rag needed and DF set \(mtu = {MTU}\)",
                         r.stdout + r.stderr), r.stdout + r.stderr
        st = lab.stats()
        assert queue_sum(st, 0, "fwd_frag_needed") >= 1, port_queues(st, 0)
        assert queue_sum(st, 0, "fwd_frag_failed") == 0
        # A datagram that fits goes whole, DF or not.
        r = lab.ping(0, dst=B, size=MTU - 28, count=3, extra=["-M", "do"])
        assert " 0% packet loss" in r.stdout, r.stdout
        for port in (0, 1):
            for q in port_queues(st, port):
                check_forward_conservation(q)
    finally:
        finish_lab(lab)


def jumbo_taps(lab):
    for ns, tap in zip(lab.nss, lab.taps):
        ns_run(ns, "ip", "link", "set", "dev", tap, "mtu", "9000")


@BOTH_NICS
def test_jumbo_frames_cross_whole_and_reach_the_sink(nic):
    lab = start_lab(nic, kernel=JUMBO_ELF, smp=2, mem="512M")
    try:
        jumbo_taps(lab)
        lab.ping(0, dst=B, count=2)  # resolves B
        # 8972 + 8 + 20 = 9000: the largest datagram both MTUs take, DF set; whole both ways
        r = lab.ping(0, dst=B, size=8972, count=5, extra=["-M", "do"])
        assert " 0% packet loss" in r.stdout, r.stdout
        assert "bytes from 198.19.0.2" in r.stdout and "8980 bytes" in r.stdout, r.stdout
        r = lab.ping(0, size=8972, count=3, extra=["-M", "do"])  # the appliance's own echo
        assert " 0% packet loss" in r.stdout, r.stdout
        r = lab.ping(0, dst=B, size=8973, count=2, extra=["-M", "do"])  # one byte too many
        assert " 0% packet loss" not in r.stdout, r.stdout
        st = lab.stats()
        for port in (0, 1):
            assert queue_sum(st, port, "fwd_fragmented") == 0
            assert queue_sum(st, port, "rx_errors") == 0, port_queues(st, port)
            for q in port_queues(st, port):
                check_forward_conservation(q)
        # iperf3 against the sink: its segments grow to the jumbo MSS (9000 - 40)
        out = ns_run(lab.nss[0], "iperf3", "-c", HOSTS[0][1], "-t", "3", "-J",
                     timeout=60).stdout
        res = json.loads(out)
        assert res["end"]["sum_received"]["bytes"] > 0, out[-2000:]
        mss = res["start"].get("tcp_mss_default") or res["start"].get("tcp_mss")
        assert mss is not None and mss > 1460, res["start"]
    finally:
        finish_lab(lab)
