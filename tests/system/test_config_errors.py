"""An invalid baked config stops `make` with file:line messages (issue: foundation)."""
import os
import subprocess

from qemu import ROOT


def run_make(tmp_path, conf_text):
    conf = tmp_path / "bad.conf"
    conf.write_text(conf_text)
    build = tmp_path / "build"
    return subprocess.run(["make", "--no-print-directory", f"CONFIG={conf}", f"BUILD={build}",
                           f"{build}/wirespeed.elf"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600), conf, build


def test_invalid_config_fails_build_with_file_line(tmp_path):
    res, conf, build = run_make(tmp_path, "console.port = com1\n"
                                          "consol.baud = 115200\n"
                                          "cores = 0\n"
                                          "panic = explode\n")
    assert res.returncode != 0
    err = res.stderr
    assert f"{conf}:2: unknown key 'consol.baud'" in err, err
    assert f"{conf}:3: cores:" in err, err
    assert f"{conf}:4: panic:" in err, err
    assert f"{conf}:0: missing required key 'console.baud'" in err, err
    assert not (build / "gen" / "config.h").exists()
    assert not (build / "wirespeed.elf").exists()


def test_valid_config_passes_generator(tmp_path):
    conf = tmp_path / "ok.conf"
    # without a `name` key the config is named after its file
    lines = open(os.path.join(ROOT, "config", "default.conf")).read().splitlines(True)
    conf.write_text("".join(x for x in lines if not x.startswith("name")))
    build = tmp_path / "build"
    res = subprocess.run(["make", "--no-print-directory", f"CONFIG={conf}", f"BUILD={build}",
                          f"{build}/gen/config.h"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert '#define CONFIG_NAME "ok"' in (build / "gen" / "config.h").read_text()
