"""What a live run records about each host: its provenance (kernel, TCP sysctls, the route's
device with its MTU, queueing discipline and offloads) and that device's counters every 100 ms
with timestamps (the seed's plotter showed peaks above its modem's category; counters read at
known instants show what the interface really carried).

Read-only: /proc, /sys and `ip`/`tc`/`ethtool` in their listing modes; any of them missing leaves
its field as "unavailable: why".
"""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

#: Issue 33: interface counters every 100 ms.
COUNTER_PERIOD_S = 0.100
COUNTERS = ("rx_bytes", "tx_bytes", "rx_packets", "tx_packets", "rx_dropped", "tx_dropped")
#: The TCP sysctls that change what a transfer does (Documentation/networking/ip-sysctl.rst).
SYSCTLS = (
    "net.ipv4.tcp_congestion_control",
    "net.ipv4.tcp_available_congestion_control",
    "net.ipv4.tcp_allowed_congestion_control",
    "net.ipv4.tcp_rmem",
    "net.ipv4.tcp_wmem",
    "net.ipv4.tcp_sack",
    "net.ipv4.tcp_timestamps",
    "net.ipv4.tcp_ecn",
    "net.ipv4.tcp_no_metrics_save",
    "net.ipv4.tcp_moderate_rcvbuf",
    "net.ipv4.tcp_slow_start_after_idle",
    "net.ipv4.tcp_mtu_probing",
    "net.core.default_qdisc",
    "net.core.rmem_max",
    "net.core.wmem_max",
)


def sysctl(name: str) -> str | None:
    try:
        return Path("/proc/sys", *name.split(".")).read_text().strip()
    except OSError:
        return None


def available_ccas() -> list[str]:
    return (sysctl("net.ipv4.tcp_available_congestion_control") or "").split()


def _run(argv: list[str]) -> str | None:
    if not shutil.which(argv[0]):
        return None
    r = subprocess.run(argv, capture_output=True, text=True, timeout=5, check=False)
    return r.stdout if r.returncode == 0 else None


def route_device(peer_ip: str) -> str | None:
    """The device the kernel routes `peer_ip` through (`ip -j route get`)."""
    out = _run(["ip", "-j", "route", "get", peer_ip])
    try:
        return json.loads(out)[0].get("dev") if out else None
    except (json.JSONDecodeError, IndexError):
        return None


def device_info(dev: str | None) -> dict[str, Any]:
    if not dev:
        return {"device": "unavailable: no route to the peer"}
    sys_dir = Path("/sys/class/net") / dev
    mtu = (sys_dir / "mtu").read_text().strip() if (sys_dir / "mtu").is_file() else None
    qdisc = _run(["tc", "qdisc", "show", "dev", dev])
    offloads = _run(["ethtool", "-k", dev])
    return {
        "device": dev,
        "mtu_bytes": int(mtu) if mtu else "unavailable",
        "qdisc": qdisc.strip() if qdisc else "unavailable: no `tc` here",
        "offloads": _offloads(offloads) if offloads else "unavailable: no `ethtool` here",
    }


def _offloads(text: str) -> dict[str, str]:
    """`ethtool -k` lines `name: on|off [fixed]` for the offloads that change what TCP puts on the wire."""
    wanted = (
        "tcp-segmentation-offload",
        "generic-segmentation-offload",
        "generic-receive-offload",
        "large-receive-offload",
    )
    out = {}
    for line in text.splitlines():
        name, _, value = line.strip().partition(":")
        if name in wanted:
            out[name] = value.strip()
    return out


def provenance(peer_ip: str) -> dict[str, Any]:
    return {
        "kernel": platform.release(),
        "machine": platform.machine(),
        "sysctls": {name: sysctl(name) for name in SYSCTLS},
        **device_info(route_device(peer_ip)),
    }


class CounterSampler:
    """Reads `dev`'s counters every COUNTER_PERIOD_S in a thread until `stop()`; rows of
    (CLOCK_MONOTONIC ns, CLOCK_REALTIME ns, *COUNTERS)."""

    def __init__(self, dev: str | None):
        self.dev = dev
        self.rows: list[list[int]] = []
        self.unavailable = "" if dev and Path("/sys/class/net", dev, "statistics").is_dir() else "no such device"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> CounterSampler:
        if not self.unavailable:
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _read(self) -> list[int]:
        stats = Path("/sys/class/net", str(self.dev), "statistics")
        return [int((stats / c).read_text()) for c in COUNTERS]

    def _loop(self) -> None:
        next_t = time.monotonic()
        while not self._stop.is_set():
            try:
                self.rows.append([time.monotonic_ns(), time.time_ns(), *self._read()])
            except OSError as e:
                self.unavailable = f"reading counters failed: {e.strerror}"
                return
            next_t += COUNTER_PERIOD_S
            self._stop.wait(max(0.0, next_t - time.monotonic()))
