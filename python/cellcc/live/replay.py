"""`cellcc live replay RUN`: a recorded live run beside its replay on the engine and on the Linux
backend (the kernel's TCP through `cellcc-emu`): the run folder's `scenario.json` (results.py:
the recorded traces, base delay and queue) runs on both, and goodput, p95 RTT and
retransmissions are set side by side with the live run's.

RTT is compared as `cellcc crosscheck` compares it: percentiles of the smoothed RTT on a 10 ms
grid (the only RTT Linux shows user space, so the live run's and the kernel's are that too).
Each replay seed starts the flow at another point of the recorded traces (seed 1 at their start,
seed k a fraction frac((k - 1) x 0.618...) of their length in, the golden-ratio spread
`crosscheck` uses for its start phases) and at its own phase within the trace's millisecond
(`crosscheck.start_phase_s`), the same on both backends: the live run met the path at one moment
of its variations, and the replays' mean over seeds does not rest on one such moment.
"""

from __future__ import annotations

import copy
import json
import math
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd

from cellcc import traces
from cellcc.backends import crosscheck as xc
from cellcc.backends import frontend
from cellcc.errors import UserError

#: (metric, heading): what the side-by-side table shows per run.
METRICS = (
    ("goodput_mbps", "goodput Mbit/s"),
    ("rtt_p50_ms", "RTT p50 ms (srtt, 10 ms grid)"),
    ("rtt_p95_ms", "RTT p95 ms (srtt, 10 ms grid)"),
    ("retransmits", "retransmissions"),
)
SIDES = ("live", "engine", "kernel")


def run_folders(path: Path) -> list[Path]:
    """A run folder, or every complete run of a live results store."""
    if (path / "scenario.json").is_file() and (path / "live.json").is_file():
        return [path]
    runs = sorted(p for p in (path / "runs").glob("key=*") if (p / "live.json").is_file())
    if not runs:
        raise UserError("RUN", json.dumps(str(path)), "a live run folder (with live.json) or a live results store")
    return runs


def side_metrics(out: Any) -> dict[str, float]:
    m = xc.metrics(out)
    return {"goodput_mbps": float(out.flows["goodput_bps"].sum()) / 1e6, **m}


def live_metrics(run: Path) -> dict[str, float]:
    tables = {name: pd.read_parquet(run / f"{name}.parquet") for name in ("flows", "rtt")}
    return side_metrics(SimpleNamespace(**tables))


def replay(run: Path, seeds: int = 1, kernel: bool = True, progress=lambda _m: None) -> pd.DataFrame:
    """One row per metric: live, engine and kernel means (NaN where a side could not run) and
    each replay over live; `error_<side>` says why a side is missing."""
    sc = frontend.resolve(str(run / "scenario.json"))
    doc = sc.to_dict()
    doc["output"] = {**doc.get("output", {}), "rtt_trace": True}
    source = str(run / "scenario.json")
    runners = {"engine": _engine(source)}
    if kernel:
        runners["kernel"] = lambda d, seed: frontend.run_linux(frontend.DocScenario(d, source), seed)
    sides: dict[str, list[dict[str, float]]] = {}
    errors: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="cellcc-replay-") as tmp:
        docs = {seed: _started_later(doc, seed, Path(tmp)) for seed in range(1, seeds + 1)}
        for name, runner in runners.items():
            sides[name] = []
            for seed, d in docs.items():
                progress(f"{run.name}: {name} seed {seed}")
                try:
                    out = runner(xc.with_start_phase(d, xc.start_phase_s(d, seed)), seed)
                except (ValueError, RuntimeError) as e:
                    errors[name] = str(e).splitlines()[0]
                    break
                sides[name].append(side_metrics(out))
    live = live_metrics(run)
    rows = []
    for metric, heading in METRICS:
        row: dict[str, Any] = {"run": run.name.removeprefix("key="), "metric": heading, "live": live[metric]}
        for name in ("engine", "kernel"):
            values = [m[metric] for m in sides.get(name, [])]
            row[name] = float(sum(values) / len(values)) if values else math.nan
            row[f"{name}/live"] = row[name] / live[metric] if live[metric] else math.nan
            row[f"error_{name}"] = errors.get(name, "" if name in sides else "not asked (--no-kernel)")
        rows.append(row)
    return pd.DataFrame(rows)


def _started_later(doc: dict[str, Any], seed: int, folder: Path) -> dict[str, Any]:
    """`doc` with every trace rotated to start its seed's fraction of the way in (module doc)."""
    fraction = ((seed - 1) * xc.PHASE_STEP) % 1.0
    if not fraction:
        return doc
    out = copy.deepcopy(doc)
    for link in out["links"]:
        for side in ("forward", "reverse"):
            table = link.get(side) or {}
            if table.get("trace"):
                lines = [int(x) for x in Path(table["trace"]).read_text().split()]
                path = folder / f"seed{seed}-{side}-{Path(table['trace']).name}"
                traces.write_lines(iter(traces.rotate(lines, round(fraction * lines[-1]))), path)
                table["trace"] = str(path)
    return out


def _engine(source: str):
    from cellcc.runner import run_one
    from cellcc.scenario import Scenario

    return lambda d, seed: run_one(Scenario(json.dumps(d), source), seed)


def compare_runs(path: Path, seeds: int = 1, kernel: bool = True, progress=lambda _m: None) -> pd.DataFrame:
    return pd.concat([replay(r, seeds, kernel, progress) for r in run_folders(path)], ignore_index=True)
