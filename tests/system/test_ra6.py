"""IPv6 router advertisements (issue: "router advertisement off by default and configurable").
config/ra.conf is test.conf with port0.advertise6 = yes and port0's MTU at 1400: a Linux host
on port0 that accepts advertisements (forwarding off, accept_ra 1, autoconf 1) and has no
default route gets, from the appliance's answer to its router solicitation or from the
advertisements that follow a link-up, a default route through the appliance's link-local
address, an address of its own in 2001:db8:18::/64 (stateless autoconfiguration, RFC 4862) with
the advertised lifetimes, and the advertised MTU; it then reaches port1's host through it.
port1 does not advertise: its host's solicitation is the counted drop ra_rs_ignored and it gets
nothing. With test.conf (every port advertise6 = no) the appliance sends no advertisement."""
import re
import time

import pytest

from netlab import BOTH_NICS, HOSTS6, finish_lab, ns_run, port_queues, queue_sum, start_lab
from qemu import RA_ELF, TEST_ELF
from test_forward import check_forward_conservation
from test_ipv6 import link_local

MTU0 = 1400  # config/ra.conf port0.mtu
PREFIX0 = "2001:db8:18:"  # port0's address6 prefix, a /64


@pytest.fixture
def ra_lab(nic):
    lab = start_lab(nic, kernel=RA_ELF, smp=2, ipv6=True, gateways=False)
    try:
        yield lab
    finally:
        finish_lab(lab)


@pytest.fixture
def quiet_lab(nic):
    lab = start_lab(nic, kernel=TEST_ELF, smp=2, ipv6=True, gateways=False)
    try:
        yield lab
    finally:
        finish_lab(lab)


def accept_ra(lab, port):
    """port's host takes router advertisements as a host does (forwarding off), and keeps its
    static address when its link is bounced."""
    tap, ns = lab.taps[port], lab.nss[port]
    for key, value in (("forwarding", 0), ("accept_ra", 1), ("autoconf", 1),
                       ("accept_ra_defrtr", 1), ("accept_ra_pinfo", 1), ("accept_ra_mtu", 1),
                       ("keep_addr_on_down", 1)):
        ns_run(ns, "sysctl", "-q", f"net.ipv6.conf.{tap}.{key}={value}")


def solicit(lab, port):
    """Bounce the host's side of the wire: Linux sends router solicitations when its link comes
    up (and its link-local address has passed duplicate address detection)."""
    tap, ns = lab.taps[port], lab.nss[port]
    ns_run(ns, "ip", "link", "set", tap, "down")
    ns_run(ns, "ip", "link", "set", tap, "up")


def ra_default_route(lab, port):
    """The host's default route learned from an advertisement (proto ra), or None."""
    r = ns_run(lab.nss[port], "ip", "-6", "route", "show", "default", "proto", "ra")
    return r.stdout.strip() or None


def slaac_addresses(lab, port):
    """(address, valid_lft, preferred_lft) of each address the host formed itself and may use
    (its own duplicate address detection over)."""
    r = ns_run(lab.nss[port], "ip", "-6", "-o", "addr", "show", "dev", lab.taps[port], "scope",
               "global", "dynamic")
    return [(m.group(1), int(m.group(2)), int(m.group(3))) for m in
            re.finditer(r"inet6 (\S+)/64 .*?valid_lft (\d+)sec preferred_lft (\d+)sec", r.stdout)
            if "tentative" not in m.group(0)]


def wait_configured(lab, port, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ra_default_route(lab, port) and slaac_addresses(lab, port):
            return
        time.sleep(0.5)
    r = ns_run(lab.nss[port], "ip", "-6", "addr")
    pytest.fail(f"port{port}'s host got no default route and address from an advertisement:\n"
                f"{r.stdout}\n{ns_run(lab.nss[port], 'ip', '-6', 'route').stdout}\n"
                f"{lab.guest.text()[-3000:]}")


def check_configured(lab):
    """port0's host: default via the appliance's link-local, a /64 address in port0's prefix
    with the advertised lifetimes, the advertised MTU."""
    ll = link_local(lab, 0)
    route = ra_default_route(lab, 0)
    # (`ip route show proto ra` lists only such routes and leaves the proto out)
    assert re.search(rf"^default via {re.escape(ll)} dev {lab.taps[0]} ", route), route
    assert f" mtu {MTU0} " in route and " hoplimit 64 " in route, route
    m = re.search(r"expires (\d+)sec", route)
    assert m and 1700 < int(m.group(1)) <= 1800, route  # Router Lifetime 1800 s
    addrs = [a for a in slaac_addresses(lab, 0) if a[0].startswith(PREFIX0)]
    assert addrs, slaac_addresses(lab, 0)
    addr, valid, preferred = addrs[0]
    assert 2592000 - 600 < valid <= 2592000 and 604800 - 600 < preferred <= 604800, addrs
    mtu = ns_run(lab.nss[0], "sysctl", "-n", f"net.ipv6.conf.{lab.taps[0]}.mtu").stdout.strip()
    assert mtu == str(MTU0), mtu
    return addr


def ping_through(lab, src):
    """From port0's host's own address to port1's host, through the appliance: the first
    pings may die unresolved while the appliance solicits both hosts."""
    lab.ping(0, dst=HOSTS6[1][0], count=3, extra=["-I", src])
    r = lab.ping(0, dst=HOSTS6[1][0], count=5, extra=["-I", src])
    assert " 0% packet loss" in r.stdout, r.stdout
    assert "ttl=63" in r.stdout, r.stdout


@BOTH_NICS
def test_solicited_advertisement_configures_host(ra_lab):
    lab = ra_lab
    assert re.search(r"port0: router advertisements: prefix 2001:db8:18::/64 \(on-link, "
                     r"autonomous\), mtu 1400, router lifetime 1800 s, every 200\.\.600 s",
                     lab.guest.text()), lab.guest.text()
    assert "port1: router advertisements" not in lab.guest.text()
    for port in (0, 1):
        accept_ra(lab, port)
    before = lab.stats()
    for port in (0, 1):
        solicit(lab, port)
    # port1's host routes back through the appliance by hand (port1 advertises nothing), once
    # its link is up again: a link going down takes its routes with it
    ns_run(lab.nss[1], "ip", "-6", "route", "add", "default", "via", HOSTS6[1][1])
    wait_configured(lab, 0)
    addr = check_configured(lab)
    ping_through(lab, addr)

    st = lab.stats()
    p0, p1 = st["ports"][0], st["ports"][1]
    assert p0["ra6"] in ("initial", "periodic") and p0["ra6_alloc_fail"] == 0, p0
    assert p0["ra6_sent"] > before["ports"][0]["ra6_sent"], p0
    assert p0["ra6_solicited"] >= 1, p0  # the answer to the host's solicitation
    assert queue_sum(st, 0, "rs_reported") >= 1, st
    assert queue_sum(st, 0, "rs_learned") >= 1, st  # Linux solicits with its MAC
    assert p1["ra6"] == "off" and p1["ra6_sent"] == 0 and p1["ra6_solicited"] == 0, p1
    assert queue_sum(st, 1, "rs_reported") == 0, st
    assert queue_sum(st, 1, "drop6_ra_rs_ignored") >= 1, st  # port1's host asked in vain
    assert ra_default_route(lab, 1) is None
    assert not slaac_addresses(lab, 1)
    for port in (0, 1):
        for q in port_queues(st, port):
            check_forward_conservation(q)


@BOTH_NICS
def test_advertisements_follow_link_up(ra_lab):
    """No solicitation this time: the host just listens. The appliance's link goes down and
    up; its advertisements restart 1 s after the new link-up, the first of them unsolicited."""
    lab = ra_lab
    accept_ra(lab, 0)
    assert ra_default_route(lab, 0) is None
    sent = lab.stats()["ports"][0]["ra6_sent"]
    lab.monitor_cmd("set_link n0 off")
    time.sleep(0.5)
    lab.monitor_cmd("set_link n0 on")
    wait_configured(lab, 0)
    check_configured(lab)
    p0 = lab.stats()["ports"][0]
    assert p0["ra6"] == "initial" and p0["ra6_sent"] > sent, p0


def test_no_advertisements_by_default(quiet_lab):
    """test.conf: every port advertise6 = no. The hosts solicit; nothing answers, both
    solicitations are the counted drop, and the hosts keep no route but their static ones."""
    lab = quiet_lab
    assert "router advertisements" not in lab.guest.text()
    for port in (0, 1):
        accept_ra(lab, port)
        solicit(lab, port)
    deadline = time.monotonic() + 20
    st = lab.stats()
    while time.monotonic() < deadline and not all(
            queue_sum(st, p, "drop6_ra_rs_ignored") >= 1 for p in (0, 1)):
        time.sleep(1)
        st = lab.stats()
    time.sleep(3)  # an answer would come within 0.5 s
    st = lab.stats()
    for port in (0, 1):
        p = st["ports"][port]
        assert p["ra6"] == "off" and p["ra6_sent"] == 0 and p["ra6_solicited"] == 0, p
        assert queue_sum(st, port, "drop6_ra_rs_ignored") >= 1, st
        assert queue_sum(st, port, "rs_reported") == 0, st
        assert ra_default_route(lab, port) is None
        assert not slaac_addresses(lab, port)
        for q in port_queues(st, port):
            check_forward_conservation(q)
