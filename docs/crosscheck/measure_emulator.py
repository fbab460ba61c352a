"""Measure cellcc-emu's limits on this machine (docs/crosscheck.md): delivered rate vs configured
rate, write lateness and CPU at each rate, and the RTT floor error at several delays.

    sudo .venv/bin/python docs/crosscheck/measure_emulator.py

Needs root, /dev/net/tun and `ip netns`. Prints markdown tables.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

from cellcc.backends.emu import emulator_binary
from cellcc.backends.netns import Testbed, missing_privileges
from cellcc.backends.probes import ICMP_PACKET_BYTES, IP_PACKET_BYTES, ping_rtts_ms, udp_transfer

RATES_MBPS = (10, 50, 100, 200, 400, 800)
DELAYS_MS = (0, 5, 20, 50)
#: Seconds of link time per rate measurement.
WINDOW_S = 3.0
PINGS = 50


def direction(**kw) -> dict:
    return {"delay_ms": 0, "queue": None, "loss_p": 0, **kw}


def rate_row(emu: Path, rate_mbps: float) -> str:
    count = int(rate_mbps * 1e6 * WINDOW_S / (IP_PACKET_BYTES * 8))
    with tempfile.TemporaryDirectory() as tmp:
        wd = Path(tmp)
        cfg = {
            "forward": direction(rate_mbps=rate_mbps),
            "reverse": direction(rate_mbps=1000),
            "summary_path": str(wd / "sum.json"),
        }
        with Testbed(emu, cfg, 1500, wd) as tb:
            t = time.monotonic()
            times = udp_transfer(tb, wd, 0, count, idle_s=1.0)
            tb.stop_emulator()
            wall = time.monotonic() - t
        s = json.loads((wd / "sum.json").read_text())
    got = (len(times) - 1) * IP_PACKET_BYTES * 8 / ((times[-1] - times[0]) / 1e9) / 1e6 if len(times) > 1 else 0
    late = s["lateness_us"]
    return (
        f"| {rate_mbps} | {got:.2f} | {100 * (got / rate_mbps - 1):+.2f}% | {len(times)}/{count} | "
        f"{late['p50']} / {late['p99']} / {late['max']} | {100 * s['cpu_s'] / wall:.0f}% |"
    )


def delay_row(emu: Path, delay_ms: float) -> str:
    rate = 1000
    cfg = {
        "forward": direction(rate_mbps=rate, delay_ms=delay_ms),
        "reverse": direction(rate_mbps=rate, delay_ms=delay_ms),
    }
    with tempfile.TemporaryDirectory() as tmp, Testbed(emu, cfg, 1500, Path(tmp)) as tb:
        rtts = sorted(ping_rtts_ms(tb, PINGS))
    expected = 2 * delay_ms + 2 * ICMP_PACKET_BYTES * 8 / (rate * 1e3)
    return (
        f"| {delay_ms} | {expected:.3f} | {rtts[0]:.3f} ({rtts[0] - expected:+.3f}) | "
        f"{rtts[len(rtts) // 2]:.3f} ({rtts[len(rtts) // 2] - expected:+.3f}) | {rtts[-1]:.3f} |"
    )


def main() -> None:
    why = missing_privileges()
    if why:
        sys.exit(why)
    emu = emulator_binary()
    print("| configured Mbit/s | delivered Mbit/s | error | packets | lateness p50/p99/max us | emulator CPU |")
    print("|---|---|---|---|---|---|")
    for r in RATES_MBPS:
        print(rate_row(emu, r), flush=True)
    print()
    print(f"| one-way delay ms | expected RTT ms | min of {PINGS} (error) | median (error) | max |")
    print("|---|---|---|---|---|")
    for d in DELAYS_MS:
        print(delay_row(emu, d), flush=True)


if __name__ == "__main__":
    main()
