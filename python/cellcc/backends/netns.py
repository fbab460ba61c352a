"""Network namespaces and devices of one Linux-backend run, created per run and always removed.

    ns "<prefix>-snd"            ns "<prefix>-emu"              ns "<prefix>-rcv"
    10.200.0.1 dev <tun>a  <==>  cellcc-emu (both TUN fds)  <==>  <tun>b dev 10.200.0.2

The emulator creates both TUN devices inside the middle namespace, prints `ready`, and the
devices are then moved to the end namespaces (an open TUN descriptor follows its device across
namespaces). Only addresses inside these namespaces are used. `Testbed` is a context manager:
leaving it, by return, exception, Ctrl-C or SIGTERM, stops every process it started and deletes
the namespaces, which destroys the devices with them.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

#: Addresses of the two ends, inside the run's own namespaces only (RFC 1918 space).
SENDER_SIDE_ADDR = "10.200.0.1"
RECEIVER_SIDE_ADDR = "10.200.0.2"
#: Name prefix of every namespace a run creates; the pid after it lets a later run find leftovers.
NETNS_PREFIX = "cellcc"
_NETNS_RE = re.compile(rf"^{NETNS_PREFIX}-(\d+)-[0-9a-f]+-(snd|emu|rcv)$")
#: Capability bit of CAP_NET_ADMIN (include/uapi/linux/capability.h).
CAP_NET_ADMIN = 12
#: How long the emulator may take to create its devices.
EMU_READY_TIMEOUT_S = 10.0
#: Host-side queue in front of each TUN device, packets: far more than any window in flight, so
#: only the emulated queue ever drops.
TUN_QUEUE_PACKETS = 10_000
#: SCHED_FIFO priority of the emulator (1-99; low: above every ordinary task, below kernel threads).
EMU_RT_PRIORITY = 10
#: How long a stopped process gets before SIGKILL.
STOP_GRACE_S = 5.0


class Unsupported(RuntimeError):
    """This machine cannot run the Linux backend; the message says why and what would fix it."""


def missing_privileges() -> str | None:
    """Why this process cannot build a testbed, or None if it can."""
    try:
        status = Path("/proc/self/status").read_text()
        cap_eff = int(re.search(r"^CapEff:\s*([0-9a-f]+)", status, re.M).group(1), 16)
    except (OSError, AttributeError):
        cap_eff = 0
    if os.geteuid() != 0 and not cap_eff >> CAP_NET_ADMIN & 1:
        return (
            "the Linux backend needs root or CAP_NET_ADMIN (it creates network namespaces and TUN devices); "
            "run it with sudo"
        )
    if not os.path.exists("/dev/net/tun"):
        return (
            "the Linux backend needs /dev/net/tun (load the tun module: modprobe tun; "
            "in a container, pass --device /dev/net/tun)"
        )
    if subprocess.run(["ip", "-V"], capture_output=True).returncode != 0:
        return "the Linux backend needs the `ip` command (iproute2)"
    return None


def ip(*args: str, netns: str | None = None) -> None:
    cmd = ["ip", *(["-n", netns] if netns else []), *args]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {r.stderr.strip()}")


def netns_exec(netns: str, argv: Sequence[str]) -> list[str]:
    return ["ip", "netns", "exec", netns, *argv]


def realtime_prefix() -> list[str]:
    """`chrt -f N` when this machine lets us use SCHED_FIFO: the emulator then preempts ordinary
    tasks at its deadlines (measured in docs/crosscheck.md); else nothing (ordinary scheduling)."""
    if (
        shutil.which("chrt")
        and subprocess.run(["chrt", "-f", str(EMU_RT_PRIORITY), "true"], capture_output=True).returncode == 0
    ):
        return ["chrt", "-f", str(EMU_RT_PRIORITY)]
    return []


def remove_stale_namespaces() -> list[str]:
    """Delete namespaces left by cellcc runs whose process no longer exists (e.g. SIGKILLed)."""
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    removed = []
    for line in out.splitlines():
        name = line.split()[0] if line.split() else ""
        m = _NETNS_RE.match(name)
        if m and not Path(f"/proc/{m.group(1)}").exists():
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
            removed.append(name)
    return removed


@contextmanager
def _terminate_on_sigterm() -> Iterator[None]:
    """Turn SIGTERM into KeyboardInterrupt (as SIGINT already is) so `finally` blocks run."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


class Testbed:
    """Sender and receiver namespaces joined through the emulator; see the module doc."""

    __test__ = False  # not a pytest class, despite the name

    def __init__(self, emu_binary: Path, emu_config: dict, mtu_bytes: int, workdir: Path):
        tag = secrets.token_hex(3)
        base = f"{NETNS_PREFIX}-{os.getpid()}-{tag}"
        self.ns_snd, self.ns_emu, self.ns_rcv = f"{base}-snd", f"{base}-emu", f"{base}-rcv"
        self.tun_snd, self.tun_rcv = f"cc{tag}a", f"cc{tag}b"
        self.emu_binary, self.mtu_bytes, self.workdir = emu_binary, mtu_bytes, workdir
        self.emu_config = {**emu_config, "tun": [self.tun_snd, self.tun_rcv]}
        self.emu: subprocess.Popen | None = None
        self.procs: list[subprocess.Popen] = []
        self._created: list[str] = []

    def __enter__(self) -> Testbed:
        self._sig = _terminate_on_sigterm()
        self._sig.__enter__()
        try:
            self._build()
        except BaseException:
            self.teardown()
            self._sig.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.teardown()
        finally:
            self._sig.__exit__(*exc)

    def _build(self) -> None:
        remove_stale_namespaces()
        for ns in (self.ns_snd, self.ns_emu, self.ns_rcv):
            ip("netns", "add", ns)
            self._created.append(ns)
            # IPv4 only: no IPv6 router solicitations or MLD reports on the emulated path.
            for scope in ("all", "default"):
                subprocess.run(
                    netns_exec(ns, ["sysctl", "-q", "-w", f"net.ipv6.conf.{scope}.disable_ipv6=1"]), capture_output=True
                )
        cfg_path = self.workdir / "emu.json"
        cfg_path.write_text(json.dumps(self.emu_config))
        with open(self.workdir / "emu.stderr", "w") as err:
            self.emu = subprocess.Popen(
                netns_exec(self.ns_emu, [*realtime_prefix(), str(self.emu_binary), str(cfg_path)]),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
            )
        self._wait_ready()
        for ns, dev, local, peer in (
            (self.ns_snd, self.tun_snd, SENDER_SIDE_ADDR, RECEIVER_SIDE_ADDR),
            (self.ns_rcv, self.tun_rcv, RECEIVER_SIDE_ADDR, SENDER_SIDE_ADDR),
        ):
            ip("link", "set", dev, "netns", ns, netns=self.ns_emu)
            ip("link", "set", "lo", "up", netns=ns)
            ip("addr", "add", local, "peer", peer, "dev", dev, netns=ns)
            ip("link", "set", dev, "mtu", str(self.mtu_bytes), "txqueuelen", str(TUN_QUEUE_PACKETS), "up", netns=ns)
            # A plain FIFO in front of the emulator: the default fq_codel would drop packets that
            # wait > 5 ms while the emulator is descheduled, a loss the scenario does not have.
            r = subprocess.run(
                netns_exec(
                    ns, ["tc", "qdisc", "replace", "dev", dev, "root", "pfifo", "limit", str(TUN_QUEUE_PACKETS)]
                ),
                capture_output=True,
                text=True,
                check=False,
            )
            if r.returncode != 0:
                raise RuntimeError(f"tc qdisc replace dev {dev} root pfifo: {r.stderr.strip()}")

    def _wait_ready(self) -> None:
        assert self.emu is not None and self.emu.stdout is not None
        timer = threading.Timer(EMU_READY_TIMEOUT_S, self.emu.kill)
        timer.start()
        try:
            line = self.emu.stdout.readline().decode().strip()
        finally:
            timer.cancel()
        if line != "ready":
            err = (self.workdir / "emu.stderr").read_text().strip()
            raise RuntimeError(f"cellcc-emu did not start: {err or 'no output'}")

    def sysctl(self, ns: str, key: str, value: str) -> None:
        r = subprocess.run(netns_exec(ns, ["sysctl", "-q", "-w", f"{key}={value}"]), capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"sysctl {key}={value} in {ns}: {r.stderr.strip()}")

    def spawn(self, ns: str, argv: Sequence[str], **kw) -> subprocess.Popen:
        p = subprocess.Popen(netns_exec(ns, argv), **kw)
        self.procs.append(p)
        return p

    def stop_emulator(self) -> None:
        """Ask the emulator to finish (closing its stdin) so it writes its summary."""
        if self.emu and self.emu.poll() is None:
            assert self.emu.stdin is not None
            self.emu.stdin.close()
            try:
                self.emu.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                self.emu.kill()
                self.emu.wait()

    def teardown(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(STOP_GRACE_S)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.stop_emulator()
        for ns in reversed(self._created):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        self._created.clear()
