"""tests/system/referee.py: a Debian Linux 6.1 guest whose own ixgbe driver runs on the
ixgbe-82599 device (the referee of the 82599 model: qemu-82599/README.md).

Everything is fetched from Debian's archive at test time into build/referee/ and cached there:
the linux-image-6.1 package (vmlinuz, ixgbe.ko and the modules it needs, in load order from
`modinfo -F depends`), busybox-static and ethtool (with the libraries ldd names) from this
machine's Debian packages. The initramfs is built from them; its /init (below) loads the
modules with IPv4 forwarding already on (so the stack turns LRO off), numbers the ports
198.18.0.1/24 and 198.19.0.1/24 and leaves a shell on the serial console.
"""
import glob
import os
import shutil
import subprocess

from qemu import QEMU_82599, ROOT, Guest, nic_device

WORK = os.path.join(ROOT, "build", "referee")
KERNEL_META = "linux-image-amd64"  # depends on the current linux-image-6.1.0-N-amd64
PROMPT = "referee# "

INIT = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
echo 1 > /proc/sys/net/ipv4/ip_forward
for m in $(cat /modules.load); do
    insmod "/modules/$m" || echo "referee: insmod $m failed"
done
for i in $(seq 100); do
    [ -e /sys/class/net/eth1 ] && break
    sleep 0.1
done
ip link set lo up
ip addr add 198.18.0.1/24 dev eth0
ip addr add 198.19.0.1/24 dev eth1
ip link set eth0 up
ip link set eth1 up
echo "referee: init done"
export PS1='referee# '
exec setsid cttyhack sh
"""


def sh(*args, **kw):
    return subprocess.run(list(args), check=True, capture_output=True, text=True, **kw)


def kernel_package():
    """The name of the linux-image-6.1.0-N-amd64 package the meta package points at."""
    out = sh("apt-cache", "depends", KERNEL_META).stdout
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("Depends: linux-image-6.1"):
            return line.split()[1]
    raise RuntimeError(f"apt-cache depends {KERNEL_META}: no linux-image-6.1 dependency:\n{out}")


def fetch_kernel():
    """Download and unpack the kernel package once; return (vmlinuz, modules dir)."""
    pkg = kernel_package()
    tree = os.path.join(WORK, pkg)
    if not os.path.exists(os.path.join(tree, ".done")):
        dl = os.path.join(WORK, "dl")
        os.makedirs(dl, exist_ok=True)
        if not glob.glob(os.path.join(dl, pkg + "_*.deb")):
            sh("apt-get", "download", pkg, cwd=dl)
        deb = sorted(glob.glob(os.path.join(dl, pkg + "_*.deb")))[-1]
        shutil.rmtree(tree, ignore_errors=True)
        sh("dpkg-deb", "-x", deb, tree)
        open(os.path.join(tree, ".done"), "w").close()
    vmlinuz = glob.glob(os.path.join(tree, "boot", "vmlinuz-*"))[0]
    moddir = glob.glob(os.path.join(tree, "lib", "modules", "*"))[0]
    return vmlinuz, moddir


def module_order(moddir, name):
    """Paths (relative to moddir) of `name` and everything it depends on, dependencies first."""
    index = {}
    for path in glob.glob(os.path.join(moddir, "kernel", "**", "*.ko*"), recursive=True):
        index[os.path.basename(path).split(".ko")[0].replace("-", "_")] = path
    order = []

    def visit(mod):
        path = index[mod.replace("-", "_")]
        if path in order:
            return
        deps = sh("modinfo", "-F", "depends", path).stdout.strip()
        for dep in filter(None, deps.split(",")):
            visit(dep)
        order.append(path)

    visit(name)
    return order


def copy_with_libs(binary, root):
    """Copy an executable and the shared libraries ldd lists into the initramfs tree."""
    shutil.copy2(binary, os.path.join(root, "bin", os.path.basename(binary)))
    for line in sh("ldd", binary).stdout.splitlines():
        parts = line.split()
        lib = parts[2] if "=>" in parts and len(parts) > 2 else parts[0]
        if lib.startswith("/"):
            dst = os.path.join(root, lib.lstrip("/"))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(lib, dst)


def build_initramfs():
    """build/referee/initrd.gz (rebuilt every run: it is small); return (vmlinuz, initrd)."""
    vmlinuz, moddir = fetch_kernel()
    root = os.path.join(WORK, "initramfs")
    shutil.rmtree(root, ignore_errors=True)
    for d in ("bin", "proc", "sys", "dev", "modules", "tmp"):
        os.makedirs(os.path.join(root, d))
    shutil.copy2("/bin/busybox", os.path.join(root, "bin", "busybox"))
    copy_with_libs("/usr/sbin/ethtool", root)
    mods = module_order(moddir, "ixgbe")
    for m in mods:
        shutil.copy2(m, os.path.join(root, "modules", os.path.basename(m)))
    with open(os.path.join(root, "modules.load"), "w") as f:
        f.write("\n".join(os.path.basename(m) for m in mods) + "\n")
    with open(os.path.join(root, "init"), "w") as f:
        f.write(INIT)
    os.chmod(os.path.join(root, "init"), 0o755)
    initrd = os.path.join(WORK, "initrd.gz")
    subprocess.run(f"find . | cpio -o -H newc --quiet | gzip -1 > {initrd}", shell=True,
                   check=True, cwd=root)
    return vmlinuz, initrd


class Referee:
    """The Linux guest on two ixgbe-82599 ports whose netdevs are the given taps."""

    def __init__(self, taps, errlog, monitor, smp=2, mem="512M", nic_opts=None):
        """nic_opts: more -device options per port (e.g. "sfp=on,module=sr")."""
        vmlinuz, initrd = build_initramfs()
        extra = ["-kernel", vmlinuz, "-initrd", initrd,
                 "-append", "console=ttyS0 loglevel=4 panic=-1",
                 "-d", "guest_errors", "-D", errlog,
                 "-monitor", f"unix:{monitor},server,nowait"]
        for i, tap in enumerate(taps):
            extra += ["-netdev", f"tap,id=n{i},ifname={tap},script=no,downscript=no",
                      "-device", nic_device("82599", f"n{i}", 2 + 2 * i) +
                      (f",{nic_opts[i]}" if nic_opts and nic_opts[i] else "")]
        self.guest = Guest(smp=smp, mem=mem, extra=extra, monitor=False, qemu=QEMU_82599)

    def wait_ready(self, timeout=180):
        self.guest.expect(r"^referee: init done$", timeout)
        self.guest.expect(PROMPT, 30)

    def run(self, cmd, timeout=60):
        """Run a shell command in the guest; return (exit status, output)."""
        marker = f"__rc{os.getpid()}__"
        self.guest.send(f"{cmd}; echo {marker}$?\n")
        m = self.guest.expect(rf"([\s\S]*?){marker}(\d+)\n", timeout)
        self.guest.expect(PROMPT, 10)
        out = m.group(1)
        # drop the echoed command line
        out = out.split("\n", 1)[1] if "\n" in out else ""
        return int(m.group(2)), out

    def close(self):
        self.guest.close()
