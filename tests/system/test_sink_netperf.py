"""The netperf-compatible server (apps/sink/netperf.c) against Debian's netperf 2.7.0 client
(issue: the TCP/UDP sink). One appliance (4 cores, router config) serves every test; the
client runs in port0's namespace. Each test ends with the appliance holding nothing.

The appliance prints one line per test ("netperf: TCP_STREAM on port P done after ...: rx N B
in C, tx N B in C, T trans") and one per client ("netperf: client A closed; N connections
held"); the byte checks compare those with what the client reports and with `stats json`'s
sink counters (sink.netperf)."""
import re
import signal
import subprocess
import time

import pytest

from netlab import Lab, ns_run
from qemu import DEFAULT_ELF

SERVER = "198.18.0.1"
SECONDS = 5  # TCG is slow: short tests
MSG = 656
CONNECTION_TESTS = ("TCP_CRR", "TCP_CC")

END_RE = (r"netperf: (?P<test>\w+) on port (?P<port>\d+) (?P<how>done|timed out|reset) after "
          r"(?P<secs>[\d.]+) s: rx (?P<rx>\d+) B in (?P<rxc>\d+), tx (?P<tx>\d+) B in "
          r"(?P<txc>\d+), (?P<trans>\d+) trans")
CLIENT_RE = r"netperf: client [\d.]+ (?P<why>[^;]+); (?P<held>\d+) connections held"


@pytest.fixture(scope="module")
def lab():
    lab = Lab(kernel=DEFAULT_ELF, smp=4)
    try:
        lab.guest.wait_ready()
        lab.wait_links()
        yield lab
    finally:
        lab.close()


def netperf(lab, args, timeout=60, check=True):
    r = ns_run(lab.nss[0], "netperf", "-H", SERVER, *args.split(), check=False,
               timeout=timeout)
    if check:
        assert r.returncode == 0, f"netperf {args}: rc {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r


def result_line(out):
    """The last line of numbers: the result line of the classic (migrated) output."""
    lines = [l for l in out.splitlines() if re.match(r"^\s*[\d.]+(\s+[\d.-]+)+\s*$", l)]
    assert lines, out
    return lines[0].split()


def console_lines(lab, pattern, count=1, timeout=30):
    """The next `count` console lines matching pattern (other lines may come in between)."""
    deadline = time.monotonic() + timeout
    g = lab.guest
    while True:
        text = g.text()
        found = list(re.finditer(pattern, text[g.pos:]))
        if len(found) >= count:
            g.pos += found[count - 1].end()
            return found[:count]
        assert time.monotonic() < deadline, f"{count} x {pattern!r}:\n{text[-3000:]}"
        time.sleep(0.1)


def end_lines(lab, count=1, timeout=30):
    """The appliance's per-test lines, as dicts."""
    return [{k: (v if k in ("test", "how") else float(v) if k == "secs" else int(v))
             for k, v in m.groupdict().items()}
            for m in console_lines(lab, END_RE, count, timeout)]


def end_line(lab, timeout=30):
    return end_lines(lab, 1, timeout)[0]


def client_gone(lab, timeout=30):
    m = console_lines(lab, CLIENT_RE, 1, timeout)[0]
    return m.group("why"), int(m.group("held"))


def sink_netperf_stats(lab):
    """stats json's netperf counters (sink_stats[SINK_NETPERF])."""
    return lab.stats()["sink"]["netperf"]


def run_and_check(lab, args, test):
    """Run netperf, check its result line, the appliance's test line and its idle state."""
    before = sink_netperf_stats(lab)
    r = netperf(lab, f"-l {SECONDS} -t {test} {args}")
    end = end_line(lab)
    # UDP: the client's three zero-length end markers may all be lost behind its flood; then
    # the appliance ends 4 s later on netserver's pad timer, as netserver does. A connection
    # test has no end marker: the pad timer always ends a timed one.
    assert end["test"] == test, end
    timer_ends = test.startswith("UDP") or test in CONNECTION_TESTS
    assert end["how"] in (("done", "timed out") if timer_ends else ("done",)), end
    assert client_gone(lab) == ("closed", 0)
    after = sink_netperf_stats(lab)
    # the appliance's counters moved by exactly what its test line says
    assert after["active"] == 0
    assert after["rx_bytes"] - before["rx_bytes"] == end["rx"]
    assert after["tx_bytes"] - before["tx_bytes"] == end["tx"]
    if test.startswith("UDP"):
        assert after["rx_datagrams"] - before["rx_datagrams"] == end["rxc"]
    assert after["tests_run"] - before["tests_run"] == 1
    assert after["tests_done"] - before["tests_done"] == 1
    assert after["tests_failed"] == before["tests_failed"]
    return r, end


def test_tcp_stream(lab):
    r, end = run_and_check(lab, "", "TCP_STREAM")
    rcv, snd, msg, secs, mbps = map(float, result_line(r.stdout))
    assert mbps > 0 and abs(secs - SECONDS) < 1
    # the client's throughput is the appliance's byte count over the client's own time
    assert abs(end["rx"] * 8 / secs / 1e6 - mbps) / mbps < 0.01, (end, mbps)


def test_tcp_stream_bytes_as_the_client_reports_them(lab):
    r, end = run_and_check(lab, "-- -o throughput,local_bytes_sent,remote_bytes_recvd",
                           "TCP_STREAM")
    tput, sent, rcvd = r.stdout.strip().splitlines()[-1].split(",")
    assert int(rcvd) == end["rx"]
    # the client does not count a send cut short by its timer: at most one 16 KiB send less
    assert int(sent) <= end["rx"] <= int(sent) + 16384


def test_demo_mode_interim_results(lab):
    """-D 1 (demo mode: the client prints interim rates each second, from its own counts): the
    test runs and ends as without it."""
    r, end = run_and_check(lab, "-D 1", "TCP_STREAM")
    assert r.stdout.count("Interim result:") + r.stderr.count("Interim result:") >= 2, r
    assert float(result_line(r.stdout)[4]) > 0


def test_tcp_maerts(lab):
    r, end = run_and_check(lab, "-- -o throughput,local_bytes_recvd,remote_bytes_sent",
                           "TCP_MAERTS")
    tput, got, sent = r.stdout.strip().splitlines()[-1].split(",")
    assert float(tput) > 0
    # The appliance reports what the client's TCP acknowledged. When the appliance's timer
    # fires first (it starts one round trip earlier) it stops, waits for the acks and closes,
    # and the client reads everything: equal counts. When the client's fires first, it stops
    # reading with up to its socket buffer (Linux tcp_rmem max, 6 MiB) acked but unread.
    assert int(sent) == end["tx"] > 0
    assert int(got) <= int(sent) <= int(got) + 6 * 1024 * 1024


def test_tcp_maerts_classic_output(lab):
    r, end = run_and_check(lab, "", "TCP_MAERTS")
    rcv, snd, msg, secs, mbps = map(float, result_line(r.stdout))
    assert msg == 16384 and mbps > 0


def test_tcp_rr(lab):
    r, end = run_and_check(lab, "", "TCP_RR")
    fields = result_line(r.stdout)
    rate = float(fields[5])
    assert rate > 0
    # one byte each way per transaction; the last answer may still be unacked at the close
    assert end["rx"] == end["trans"] and end["rx"] - 1 <= end["tx"] <= end["rx"]
    assert abs(end["trans"] / float(fields[4]) - rate) / rate < 0.02


def settled_buffers(lab, timeout=20):
    """The sink's netif counters once lwIP holds no driver buffer."""
    deadline = time.monotonic() + timeout
    while True:
        netif = lab.stats()["sink"]["netif"]
        if netif["rx_wrapped"] == netif["rx_released"]:
            return netif
        assert time.monotonic() < deadline, netif
        time.sleep(0.5)


def test_tcp_crr(lab):
    """A connection per transaction: the appliance accepts, reads the request, answers and
    closes first, as netserver; the client's rate is the appliance's count over the test."""
    r, end = run_and_check(lab, "", "TCP_CRR")
    fields = result_line(r.stdout)
    rate = float(fields[5])
    assert rate > 0 and end["trans"] > 10, (fields, end)
    assert end["how"] == "timed out" and abs(end["secs"] - SECONDS) < 1, end
    # one byte each way per transaction, each response written whole before the close
    assert end["rx"] == end["trans"] == end["tx"], end
    # the client counts a transaction once it has our FIN; one may be cut by its timer
    assert abs(end["trans"] / SECONDS - rate) / rate < 0.05, (end, rate)
    settled_buffers(lab)


def test_tcp_crr_counted_with_larger_messages(lab):
    """-l -N: exactly N connections, then the appliance ends the test itself; 100-byte
    requests and 20000-byte responses (more than one segment, more than the first window)."""
    before = sink_netperf_stats(lab)
    r = netperf(lab, "-l -300 -t TCP_CRR -- -r 100,20000")
    end = end_line(lab)
    assert end["how"] == "done" and end["trans"] == 300, end
    assert end["rx"] == 300 * 100 and end["tx"] == 300 * 20000, end
    assert client_gone(lab) == ("closed", 0)
    after = sink_netperf_stats(lab)
    assert after["active"] == 0 and after["tests_done"] - before["tests_done"] == 1
    assert float(result_line(r.stdout)[5]) > 0
    settled_buffers(lab)


def test_tcp_cc(lab):
    """Connect and close, no data: each accepted connection is closed by the appliance."""
    r, end = run_and_check(lab, "", "TCP_CC")
    rate = float(result_line(r.stdout)[5])
    assert rate > 0 and end["trans"] > 10 and end["rx"] == end["tx"] == 0, end
    assert abs(end["trans"] / SECONDS - rate) / rate < 0.05, (end, rate)
    settled_buffers(lab)


def test_udp_stream_64(lab):
    r, end = run_and_check(lab, "-- -m 64", "UDP_STREAM")
    lines = [l.split() for l in r.stdout.splitlines() if re.match(r"^\s*\d", l)]
    local, remote = lines[0], lines[1]
    assert local[1] == "64"
    # the remote line is the appliance's count: datagrams received, all of 64 bytes
    assert int(remote[2]) == end["rxc"] > 0 and end["rx"] == 64 * end["rxc"]


def test_udp_stream_65507_reassembled(lab):
    r, end = run_and_check(lab, "", "UDP_STREAM")
    lines = [l.split() for l in r.stdout.splitlines() if re.match(r"^\s*\d", l)]
    assert lines[0][1] == "65507"
    assert int(lines[1][2]) == end["rxc"] > 0 and end["rx"] == 65507 * end["rxc"]


@pytest.mark.parametrize("size", [65507, 1472])
def test_udp_sent_by_the_appliance(lab, size):
    """omni -d receive -T udp: the appliance sends 65507-byte datagrams (netserver's choice;
    lwIP fragments them) or what `-m ,N` asks to the client's data socket for the test's
    length, then netserver's zero-length end markers; the client counts what it received, the
    appliance what it sent (the client may lose some: UDP has no flow control)."""
    before = sink_netperf_stats(lab)
    ask = "" if size == 65507 else f"-m ,{size}"
    r = netperf(lab, f"-l {SECONDS} -t omni -- -d receive -T udp {ask} "
                     "-o throughput,local_bytes_recvd,remote_bytes_sent,remote_send_calls")
    end = end_line(lab)
    assert end["test"] == "UDP_MAERTS" and end["how"] == "done", end
    assert abs(end["secs"] - SECONDS) < 1, end
    tput, got, sent, calls = r.stdout.strip().splitlines()[-1].split(",")
    assert int(sent) == end["tx"] == int(calls) * size > 0, (r.stdout, end)
    assert 0 < int(got) <= int(sent) and float(tput) > 0, r.stdout
    assert client_gone(lab) == ("closed", 0)
    after = sink_netperf_stats(lab)
    assert after["tx_bytes"] - before["tx_bytes"] == end["tx"]
    assert after["tx_datagrams"] - before["tx_datagrams"] == end["txc"]
    assert after["active"] == 0 and after["tests_done"] - before["tests_done"] == 1


def test_udp_rr(lab):
    r, end = run_and_check(lab, "", "UDP_RR")
    fields = result_line(r.stdout)
    assert float(fields[5]) > 0
    assert end["tx"] == end["trans"] == end["rxc"] > 0


def test_iterations_reuse_the_data_port(lab):
    r = netperf(lab, f"-l 1 -i 3,3")  # may warn that confidence was not reached: rc is 0
    ends = end_lines(lab, 3)
    assert all(e["test"] == "TCP_STREAM" and e["how"] == "done" for e in ends), ends
    # iterations 2 and 3 ask for iteration 1's port; SO_REUSEADDR lets the appliance rebind it
    assert len({e["port"] for e in ends}) == 1, ends
    assert client_gone(lab) == ("closed", 0)
    assert float(result_line(r.stdout)[4]) > 0


def test_seed_form_throughput_and_local_retransmissions(lab):
    # the seed's command line as it is, default length (10 s)
    r = netperf(lab, "-- -o throughput,local_transport_retrans")
    header, values = r.stdout.strip().splitlines()[-2:]
    assert header == "Throughput,Local Transport Retransmissions"
    tput, retrans = values.split(",")
    assert float(tput) > 0 and int(retrans) >= 0
    end = end_line(lab)
    assert end["test"] == "TCP_STREAM" and end["how"] == "done"
    assert client_gone(lab) == ("closed", 0)


def test_cpu_from_the_sink_core(lab):
    r = netperf(lab, "-l 3 -t TCP_RR -c -C")
    fields = result_line(r.stdout)
    # remote CPU: the sink core's busy share, method 'I' (idle counter), never 0.0
    assert 0 < float(fields[7]) <= 100, r.stdout
    assert "% I" in r.stdout
    end_line(lab)
    client_gone(lab)


def test_more_clients_than_the_bound_are_refused(lab):
    """sink.max_tests = 2 (default config): a third control connection is reset and
    counted while the two accepted tests complete."""
    cmd = ["ip", "netns", "exec", lab.nss[0], "netperf", "-H", SERVER, "-l", str(SECONDS)]
    first = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    time.sleep(2)  # both control connections accepted and their tests running
    before = sink_netperf_stats(lab)
    third = netperf(lab, "-l 1", check=False, timeout=30)
    assert third.returncode != 0, third.stdout
    for p in first:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, out + err
        assert float(result_line(out)[4]) > 0
    mark = lab.guest.pos
    assert [e["how"] for e in end_lines(lab, 2)] == ["done", "done"]
    lab.guest.pos = mark
    gone = console_lines(lab, CLIENT_RE, 2)
    assert gone[-1].group("why") == "closed" and gone[-1].group("held") == "0", gone
    after = sink_netperf_stats(lab)
    assert after["refused"] - before["refused"] == 1
    assert after["tests_done"] - before["tests_done"] == 2
    assert after["active"] == 0


@pytest.mark.parametrize("test", ["TCP_STREAM", "TCP_MAERTS", "UDP_STREAM", "TCP_CRR"])
def test_client_killed_mid_test_frees_everything(lab, test):
    p = subprocess.Popen(["ip", "netns", "exec", lab.nss[0], "netperf", "-H", SERVER, "-l",
                          "60", "-t", test], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(3)
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=10)
    # whatever arrives first (data FIN or RST, control FIN), nothing may stay held
    why, held = client_gone(lab, timeout=30)
    assert held == 0, why
    assert sink_netperf_stats(lab)["active"] == 0


# --- hostile control input, from a raw socket -----------------------------------------------

PROBE = r"""
import socket, struct, sys, time
def msg(t, body=b""):
    return struct.pack(">II", t, 0xffffffff) + body.ljust(648, b"\0")
def recv_msg(s):
    buf = b""
    while len(buf) < 656:
        c = s.recv(656 - len(buf))
        if not c:
            return None
        buf += c
    return buf
s = socket.create_connection(("198.18.0.1", 12865), timeout=5)
out = []
for step in sys.argv[1:]:
    if step == "unknown":
        s.sendall(msg(12345)); r = recv_msg(s); out.append(struct.unpack(">I", r[4:8])[0])
    elif step == "passphrase":
        s.sendall(msg(6, b"secret\0")); s.settimeout(1.5)
        try:
            out.append(len(s.recv(656)))
        except socket.timeout:
            out.append("silent")
        s.settimeout(5)
    elif step == "split":
        m = msg(4242)
        for i in range(0, 656, 100):
            s.sendall(m[i:i + 100]); time.sleep(0.05)
        out.append(struct.unpack(">I", recv_msg(s)[4:8])[0])
    elif step == "rds":
        body = bytearray(648); struct.pack_into(">I", body, 92 - 8, 7)
        s.sendall(msg(97, bytes(body))); r = recv_msg(s); out.append(struct.unpack(">I", r[4:8])[0])
    elif step == "omni_then_flood":
        body = bytearray(648)
        for off, v in ((64, 30), (92, 4), (96, 2), (100, 17), (104, 4)):
            struct.pack_into(">I", body, off - 8, v)
        s.sendall(msg(97, bytes(body))); r = recv_msg(s)
        out.append(struct.unpack(">I", r[4:8])[0])
        try:
            s.sendall(b"x" * 2000); time.sleep(1); out.append(s.recv(656))
        except ConnectionResetError:
            out.append("reset")
    elif step == "short_close":
        s.sendall(b"\0\0\0\x61" + b"\0" * 96); s.close(); out.append("closed")
print(out)
"""


def probe(lab, *steps):
    r = ns_run(lab.nss[0], "python3", "-c", PROBE, *steps, timeout=60)
    return eval(r.stdout.strip())  # a list of ints and strings printed by PROBE


def test_unknown_types_get_998_and_passphrase_gets_nothing(lab):
    before = sink_netperf_stats(lab)
    assert probe(lab, "unknown", "passphrase", "split", "unknown") == [998, "silent", 998, 998]
    why, held = client_gone(lab)
    assert held == 0
    after = sink_netperf_stats(lab)
    assert after["protocol_errors"] - before["protocol_errors"] == 3


def test_unsupported_family_is_refused_with_an_errno(lab):
    assert probe(lab, "rds") == [97]  # EAFNOSUPPORT: the client prints its strerror
    client_gone(lab)


def test_data_on_control_during_a_test_resets_it(lab):
    assert probe(lab, "omni_then_flood") == [0, "reset"]
    why, held = client_gone(lab)
    assert "during UDP_STREAM" in why and held == 0, why


def test_short_message_then_close(lab):
    assert probe(lab, "short_close") == ["closed"]
    why, held = client_gone(lab)
    assert why == "closed mid-message" and held == 0
    # and the server still serves
    netperf(lab, "-l 1 -t TCP_RR")
    end_line(lab)
    assert client_gone(lab) == ("closed", 0)
