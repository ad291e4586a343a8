"""The emulated 82599 as an SFP+ board (8086:10FB, the X520-DA2 class; issue 18): the
ixgbe-82599 device with sfp=on holds a module in its cage (module=..., tests/model/
ixgbe_model_sfp.c), whose link comes up only once the driver has read the module over I2C,
turned its laser on and loaded the NVM's init sequence its type needs (the DA cable's differs
from the optics'). Port0 holds a 10GBASE-SR optic, port1 a passive direct-attach cable: both
link and forward; port1's cable is pulled and pushed back through the monitor (qom-set) and
traffic resumes. The host-side proofs of every module type, refusals and the board's NVM quirks
are tests/hostsim (make test-model: sfp-*, nvm-checksum)."""
import re

from netlab import HOSTS, finish_lab, start_lab
from qemu import DEFAULT_ELF

SFP_PORTS = ["sfp=on,module=sr", "sfp=on,module=da-passive"]


def forwards_both_ways(lab):
    for src, dst in ((0, 1), (1, 0)):
        out = lab.ping(src, dst=HOSTS[dst][0], count=3)
        assert out.returncode == 0, out.stdout


def test_sfp_board_sr_and_da_link_forward_and_survive_a_pull():
    lab = start_lab("82599", kernel=DEFAULT_ELF, smp=2, nic_opts=SFP_PORTS)
    try:
        g = lab.guest
        lab.wait_links()
        text = g.text()
        assert ("port0: SFP+ module 10GBASE-SR, Intel Corp WSM-10G-SR (OUI 00:1b:21): 10 Gb/s, "
                "NVM init sequence 5 (4 words)") in text, text
        assert ("port1: SFP+ module DA passive, WS Model Cables WSM-DAC-3M (OUI 02:57:53): "
                "10 Gb/s, NVM init sequence 3 (4 words)") in text, text
        g.command("ports", r"^\s+module DA passive, WS Model Cables WSM-DAC-3M, laser on$")
        forwards_both_ways(lab)

        answer = lab.monitor_query("qom-set /machine/peripheral/nic1 module none")
        assert answer == "", answer
        g.expect(r"port1: SFP\+ module removed \(DA passive WS Model Cables WSM-DAC-3M\)", 10)
        g.expect(r"port1: link down", 10)
        assert lab.ping(0, dst=HOSTS[1][0], count=2).returncode != 0  # nothing on the wire
        st = lab.stats()
        assert st["ports"][1]["module"] == "none" and st["ports"][1]["link"] is False, \
            st["ports"][1]

        answer = lab.monitor_query("qom-set /machine/peripheral/nic1 module da-passive")
        assert answer == "", answer
        g.expect(r"port1: SFP\+ module inserted", 10)
        g.expect(r"port1: SFP\+ module DA passive, ", 10)
        g.expect(r"port1: link up 10000 Mb/s", 15)
        forwards_both_ways(lab)
        p0, p1 = lab.stats()["ports"][:2]
        assert p0["module"] == "10GBASE-SR" and p0["module_part"] == "WSM-10G-SR", p0
        assert p0["laser"] is True and p0["module_events"] == 0, p0
        assert p1["module"] == "DA passive" and p1["module_events"] == 2, p1
        assert lab.monitor_query("qom-get /machine/peripheral/nic1 module") == '"da-passive"'
        bad = lab.monitor_query("qom-set /machine/peripheral/nic1 module xyz")
        assert "unknown" in bad, bad
        assert lab.guest_errors() == "", lab.guest_errors()
    finally:
        finish_lab(lab)
