"""The Linux backend: run a cellcc scenario over the kernel's own TCP in network namespaces,
through the `cellcc-emu` link emulator, and return the engine's output tables.

    run(scenario) -> BackendRunOutput(summary, flows, timeseries, queues, cwnd, rtt)

`scenario` is the dict (or JSON text) of a scenario in THE schema (crates/cellcc-engine/src/
scenario); `plan.py` says which subset runs here and refuses the rest by field. The kernel's
congestion controls are checked against the running kernel, not the engine's registry, so a
scenario may name a CCA the engine does not have yet.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import tables
from .emu import emulator_binary
from .netns import RECEIVER_SIDE_ADDR, SENDER_SIDE_ADDR, Testbed, Unsupported, missing_privileges
from .output import BackendRunOutput
from .plan import FlowPlan, NotSupported, RunPlan, maxseg_bytes, plan

AGENT = Path(__file__).with_name("agent.py")
#: TCP_INFO / byte-count sampling period (issue 4).
SAMPLE_MS = 10.0
#: Head start of the clock: every agent is up before time 0 of the run.
STARTUP_LEAD_S = 0.3
#: Time allowed for namespaces, devices, the emulator and sysctls to come up before t0.
TESTBED_SETUP_BUDGET_S = 2.0
#: Emulator queue-record period; records are aggregated into the scenario's slots.
EMU_STATS_INTERVAL_MS = 10.0
#: Extra wall time a process gets beyond the run's end before it is stopped.
FINISH_GRACE_S = 15.0

__all__ = ["NotSupported", "Unsupported", "plan", "run"]


def _as_dict(scenario: dict | str) -> dict:
    return json.loads(scenario) if isinstance(scenario, str) else scenario


def _emu_config(p: RunPlan, workdir: Path, t0: int) -> dict:
    return {
        # The scenario's t = 0 is the trace's time zero too (as in the engine).
        "trace_start_ns": t0,
        "seed": p.seed,
        "mtu_bytes": p.mtu_bytes,
        "forward": p.forward.emu_config(),
        "reverse": p.reverse.emu_config(),
        "stats_path": str(workdir / "queues.csv"),
        "stats_interval_ms": EMU_STATS_INTERVAL_MS,
        "summary_path": str(workdir / "emu-summary.json"),
    }


def _configure_ends(tb: Testbed, p: RunPlan) -> None:
    for ns, dev, peer in ((tb.ns_snd, tb.tun_snd, RECEIVER_SIDE_ADDR), (tb.ns_rcv, tb.tun_rcv, SENDER_SIDE_ADDR)):
        for key, value in p.sysctls.items():
            tb.sysctl(ns, key, value)
        if p.route_attrs:
            subprocess.run(["ip", "-n", ns, "route", "replace", peer, "dev", dev, *p.route_attrs], check=True)
        if p.fq_pacing:
            subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "replace", "dev", dev, "root", "fq"], check=True)
        if p.gso_max_segs is not None:
            # Read by sk_setup_caps when a connection routes, so before the flows start.
            subprocess.run(["ip", "-n", ns, "link", "set", "dev", dev, "gso_max_segs", str(p.gso_max_segs)], check=True)


def _ends(tb: Testbed, f: FlowPlan) -> tuple[str, str, str, str]:
    """(sender ns, sender addr, receiver ns, receiver addr) of a flow."""
    if f.forward:
        return tb.ns_snd, SENDER_SIDE_ADDR, tb.ns_rcv, RECEIVER_SIDE_ADDR
    return tb.ns_rcv, RECEIVER_SIDE_ADDR, tb.ns_snd, SENDER_SIDE_ADDR


def _start_receivers(tb: Testbed, p: RunPlan, workdir: Path, end_ns: int) -> list:
    procs = []
    for f in p.flows:
        _, _, rns, raddr = _ends(tb, f)
        argv = [
            sys.executable,
            str(AGENT),
            "recv",
            "--bind",
            raddr,
            "--port",
            str(f.port),
            "--stop-ns",
            str(end_ns),
            "--sample-ms",
            str(SAMPLE_MS),
            "--out",
            str(workdir / f"recv{f.index}.json"),
        ]
        with open(workdir / f"recv{f.index}.stderr", "w") as err:
            procs.append(tb.spawn(rns, argv, stdout=subprocess.PIPE, stderr=err))
    for f, proc in zip(p.flows, procs, strict=True):
        if proc.stdout.readline().decode().strip() != "listening":
            raise RuntimeError(
                f"receiver of {f.flow_id} did not start: {(workdir / f'recv{f.index}.stderr').read_text()}"
            )
    return procs


def _start_senders(tb: Testbed, p: RunPlan, workdir: Path, t0: int) -> list:
    procs = []
    for f in p.flows:
        sns, saddr, _, raddr = _ends(tb, f)
        argv = [
            sys.executable,
            str(AGENT),
            "send",
            "--dst",
            raddr,
            "--bind",
            saddr,
            "--port",
            str(f.port),
            "--cca",
            f.cca_kernel,
            "--app",
            f.app,
            "--sample-ms",
            str(SAMPLE_MS),
            "--start-ns",
            str(t0 + int(f.start_s * 1e9)),
            "--stop-ns",
            str(t0 + int(f.stop_s * 1e9)),
            "--out",
            str(workdir / f"send{f.index}.json"),
        ]
        if f.bytes is not None:
            argv += ["--bytes", str(f.bytes)]
        if f.rate_bps is not None:
            argv += ["--rate-bps", str(f.rate_bps), "--write-bytes", str(f.write_bytes)]
        maxseg = maxseg_bytes(p, f)
        if maxseg:
            argv += ["--mss", str(maxseg)]
        with open(workdir / f"send{f.index}.stderr", "w") as err:
            procs.append(tb.spawn(sns, argv, stderr=err))
    return procs


def _wait(procs: list, names: list[str], workdir: Path, deadline: float) -> None:
    for proc, name in zip(procs, names, strict=True):
        try:
            rc = proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired as e:
            raise RuntimeError(f"{name} did not finish in time") from e
        if rc != 0:
            raise RuntimeError(f"{name} failed (exit {rc}): {(workdir / f'{name}.stderr').read_text().strip()}")


def run(
    scenario: dict | str, seed: int | None = None, base_dir: Path | None = None, workdir: Path | None = None
) -> BackendRunOutput:
    """Run the scenario on the Linux kernel; raises NotSupported (scenario) or Unsupported (machine)."""
    sc = _as_dict(scenario)
    p = plan(sc, seed, base_dir)
    why = missing_privileges()
    if why:
        raise Unsupported(why)
    binary = emulator_binary()
    with tempfile.TemporaryDirectory(prefix="cellcc-linux-") as tmp:
        wd = Path(workdir) if workdir else Path(tmp)
        wd.mkdir(parents=True, exist_ok=True)
        # t0 is fixed before the emulator starts, which needs it as the trace's time zero.
        t0 = time.monotonic_ns() + int((TESTBED_SETUP_BUDGET_S + STARTUP_LEAD_S) * 1e9)
        with Testbed(binary, _emu_config(p, wd, t0), p.mtu_bytes, wd) as tb:
            _configure_ends(tb, p)
            lead_s = (t0 - time.monotonic_ns()) / 1e9
            if lead_s < STARTUP_LEAD_S:
                raise RuntimeError(f"the testbed took longer than {TESTBED_SETUP_BUDGET_S} s to come up")
            end_ns = t0 + int(p.duration_s * 1e9)
            receivers = _start_receivers(tb, p, wd, end_ns)
            senders = _start_senders(tb, p, wd, t0)
            deadline = time.monotonic() + lead_s + p.duration_s + FINISH_GRACE_S
            _wait(senders, [f"send{f.index}" for f in p.flows], wd, deadline)
            _wait(receivers, [f"recv{f.index}" for f in p.flows], wd, deadline)
            tb.stop_emulator()
        return _collect(p, wd, t0)


def _collect(p: RunPlan, wd: Path, t0: int) -> BackendRunOutput:
    senders = [json.loads((wd / f"send{f.index}.json").read_text()) for f in p.flows]
    receivers = [json.loads((wd / f"recv{f.index}.json").read_text()) for f in p.flows]
    emu = json.loads((wd / "emu-summary.json").read_text())
    summary = {
        "backend": "linux",
        "kernel": platform.release(),
        "seed": p.seed,
        "duration_s": p.duration_s,
        "t0_monotonic_ns": t0,
        "path": {
            "forward": p.forward.emu_config() | {"name": p.forward.name},
            "reverse": p.reverse.emu_config() | {"name": p.reverse.name},
        },
        "sysctls": p.sysctls,
        "emulator": {k: emu[k] for k in ("lateness_us", "cpu_s", "write_errors")}
        | {"forward": emu["forward"], "reverse": emu["reverse"]},
    }
    stats_csv = (wd / "queues.csv").read_text()
    queues = tables.queues_table(p, t0, stats_csv)
    return BackendRunOutput(
        summary=summary,
        flows=tables.flows_table(p, t0, senders, receivers, emu),
        timeseries=tables.timeseries_table(p, t0, senders, receivers, queues, tables.emu_records(t0, stats_csv)),
        queues=queues,
        cwnd=tables.cwnd_table(p, t0, senders),
        rtt=tables.rtt_table(p, t0, senders),
    )
