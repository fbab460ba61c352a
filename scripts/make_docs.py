"""Generate docs/ccas.md and one figure per algorithm, docs/figures/ccas/<name>.png (`make docs`).

Every registered algorithm runs once on the same standard path (one bulk flow over a
20 Mbit/s, 40 ms RTT bottleneck with a 1 BDP drop-tail buffer whose capacity steps
down to 10 Mbit/s for the middle third of the run). The prose and the parameter tables
come from the engine's registry (``cellcc.ccas()``); the numbers come from the runs.
Same code, same output: the seed is fixed and nothing records the wall clock.

Run from the repo root: ``.venv/bin/python scripts/make_docs.py`` (all algorithms, 60 s,
into docs/), or e.g. ``--only reno,bbr --duration 10 --out /tmp/docs`` for a quick look.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # after use(): the backend must be chosen first
import pandas as pd

import cellcc
from cellcc.compare import parse_cca_list
from cellcc.result import Result
from cellcc.runner import Job, run_jobs
from cellcc.scenario import Scenario

DOCS = Path(__file__).resolve().parent.parent / "docs"
#: Where the figures go, relative to the output folder (the markdown links them so).
FIGURES = Path("figures") / "ccas"

# The standard path. BDP = 20e6 bit/s x 0.040 s / 8 = 100 000 B, about 67 packets of 1500 B.
RATE_MBPS = 20.0
STEP_RATE_MBPS = 10.0
ONE_WAY_DELAY_MS = 20.0
BUFFER_BYTES = 100_000
ACCESS_RATE_MBPS = 1000.0
DURATION_S = 60.0
#: The capacity steps down at 1/3 and back up at 2/3 of the run (20 s and 40 s of 60 s).
STEP_FRACTIONS = (1 / 3, 2 / 3)
SEED = 1
#: Payload and packet size of a full segment with the default TCP options (timestamps on).
MSS_BYTES = 1448
MTU_BYTES = 1500
#: Width of the timeseries slots the goodput is read from, ms (the engine's default).
SLOT_MS = 100

#: ssthresh at or above this is Linux's "infinite" (the engine reports u64::MAX).
_INFINITE_SSTHRESH_BYTES = 2**62
_BITS_PER_BYTE = 8
_BPS_PER_MBPS = 1e6
_BYTES_PER_KB = 1e3
#: Figure size in inches at _DPI: 800 x 450 pixels.
_FIGSIZE_IN = (8.0, 4.5)
_DPI = 100
_PHASES = ("before", "during", "after")
#: Mode of a new file before the umask, as open() uses.
_FILE_MODE = 0o666


def standard_path(cca: str, duration_s: float) -> Scenario:
    """server --(1 Gbit/s, 0 ms)-- router --(20 Mbit/s, 20 ms, 100 kB drop-tail)-- client, one bulk flow."""
    t_down, t_up = (round(duration_s * f, 6) for f in STEP_FRACTIONS)
    doc = {
        "version": 1,
        "name": "ccas-standard-path",
        "description": "20 Mbit/s, 40 ms RTT, 1 BDP drop-tail buffer; 10 Mbit/s in the middle third",
        "duration_s": duration_s,
        "seed": SEED,
        "nodes": [
            {"id": "server", "kind": "host"},
            {"id": "router", "kind": "router"},
            {"id": "client", "kind": "host"},
        ],
        "links": [
            {"id": "access", "a": "server", "b": "router", "rate_mbps": ACCESS_RATE_MBPS, "delay_ms": 0},
            {
                "id": "bottleneck",
                "a": "router",
                "b": "client",
                "rate_mbps": RATE_MBPS,
                "delay_ms": ONE_WAY_DELAY_MS,
                "forward": {
                    "queue": {"kind": "drop_tail", "limit_bytes": BUFFER_BYTES},
                    "rate_changes": [
                        {"at_s": t_down, "rate_mbps": STEP_RATE_MBPS},
                        {"at_s": t_up, "rate_mbps": RATE_MBPS},
                    ],
                },
            },
        ],
        "flows": [{"id": "bulk", "src": "server", "dst": "client", "cca": cca, "app": {"kind": "bulk"}}],
        "output": {"slot_ms": SLOT_MS},
    }
    return Scenario.from_dict(doc, source=f"<ccas standard path: {cca}>")


@dataclass(frozen=True)
class Capacity:
    """The bottleneck's forward capacity as the scenario states it: (start s, end s, Mbit/s) steps."""

    steps: tuple[tuple[float, float, float], ...]

    @classmethod
    def of(cls, scenario: Scenario) -> Capacity:
        doc = scenario.to_dict()
        link = next(link for link in doc["links"] if link["id"] == "bottleneck")
        rate = link["forward"].get("rate_mbps") or link["rate_mbps"]
        changes = link["forward"].get("rate_changes") or link.get("rate_changes") or []
        edges = [(0.0, rate)] + [(c["at_s"], c["rate_mbps"]) for c in changes]
        ends = [t for t, _ in edges[1:]] + [float(doc["duration_s"])]
        return cls(tuple((t, end, r) for (t, r), end in zip(edges, ends, strict=True)))


@dataclass(frozen=True)
class Phase:
    """Measured over one capacity step."""

    start_s: float
    end_s: float
    capacity_mbps: float
    goodput_mbps: float
    mean_rtt_ms: float

    @property
    def share(self) -> float:
        return self.goodput_mbps / self.capacity_mbps


@dataclass(frozen=True)
class Measured:
    """What the docs print about one run, and its figure as PNG bytes."""

    name: str
    phases: tuple[Phase, ...]
    mean_rtt_ms: float
    loss_ratio: float
    retransmits: int
    timeouts: int
    png: bytes


def _phase(result: Result, start_s: float, end_s: float, capacity_mbps: float) -> Phase:
    ts = result.timeseries
    slots = ts[(ts["t_s"] >= start_s) & (ts["t_s"] < end_s)]
    rtt = result.rtt[(result.rtt["t_s"] >= start_s) & (result.rtt["t_s"] < end_s)]
    return Phase(
        start_s=start_s,
        end_s=end_s,
        capacity_mbps=capacity_mbps,
        goodput_mbps=float(slots["goodput_bps"].mean()) / _BPS_PER_MBPS if len(slots) else math.nan,
        mean_rtt_ms=float(rtt["rtt_ms"].mean()) if len(rtt) else math.nan,
    )


def _figure(result: Result, capacity: Capacity) -> bytes:
    """cwnd (ssthresh where finite, pacing rate where set) above goodput per slot and the capacity."""
    name = result.flows["cca"].iloc[0]
    end_s = capacity.steps[-1][1]
    # The trace has a row per change only: hold the last values to the end of the run.
    cw = pd.concat([result.cwnd, result.cwnd.tail(1).assign(t_s=end_s)], ignore_index=True)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=_FIGSIZE_IN, dpi=_DPI, sharex=True, height_ratios=(3, 2))
    top.step(cw["t_s"], cw["cwnd_bytes"] / _BYTES_PER_KB, where="post", lw=0.8, color="C0", label="cwnd")
    finite = cw["ssthresh_bytes"].astype(float).where(cw["ssthresh_bytes"] < _INFINITE_SSTHRESH_BYTES)
    if finite.notna().any():
        top.step(cw["t_s"], finite / _BYTES_PER_KB, where="post", lw=0.8, ls="--", color="C1", label="ssthresh")
    delay_s = 2 * ONE_WAY_DELAY_MS / 1e3
    for start, end, rate in capacity.steps:
        limit_kb = (rate * _BPS_PER_MBPS * delay_s / _BITS_PER_BYTE + BUFFER_BYTES) / _BYTES_PER_KB
        top.hlines(limit_kb, start, end, colors="0.5", lw=0.8, ls=":", label="BDP + buffer" if start == 0 else None)
    top.set_ylabel("kB")
    top.set_ylim(bottom=0)
    handles, labels = top.get_legend_handles_labels()
    if (cw["pacing_rate_bps"] > 0).any():
        pace = top.twinx()
        pace.step(cw["t_s"], cw["pacing_rate_bps"] / _BPS_PER_MBPS, where="post", lw=0.6, color="C2", alpha=0.7)
        pace.set_ylabel("pacing Mbit/s", color="C2")
        pace.set_ylim(bottom=0)
        handles += pace.get_lines()
        labels += ["pacing rate"]
    top.legend(handles, labels, loc="upper right", fontsize="x-small", ncol=len(labels))
    top.set_title(f"{name}: one bulk flow, 20 -> 10 -> 20 Mbit/s, 40 ms RTT, 1 BDP buffer", fontsize="small")
    ts = result.timeseries
    bottom.plot(ts["t_s"], ts["goodput_bps"] / _BPS_PER_MBPS, lw=0.6, color="C0", label=f"goodput per {SLOT_MS} ms")
    for i, (start, end, rate) in enumerate(capacity.steps):
        bottom.hlines(rate, start, end, colors="k", lw=1.0, label="capacity" if i == 0 else None)
        if i:
            bottom.vlines(start, capacity.steps[i - 1][2], rate, colors="k", lw=1.0)
    bottom.set_ylabel("Mbit/s")
    bottom.set_xlabel("time (s)")
    bottom.set_ylim(0, max(r for _, _, r in capacity.steps) * 1.6)
    bottom.set_xlim(0, end_s)
    bottom.legend(loc="upper right", fontsize="x-small", ncol=2)
    fig.tight_layout()
    buf = io.BytesIO()
    # No Software tag: the bytes depend on the data, not on the matplotlib version installed.
    fig.savefig(buf, format="png", dpi=_DPI, metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def measure(result: Result) -> Measured:
    """Runs in the worker: reduce one run to its numbers and figure (small to pickle back)."""
    capacity = Capacity.of(result.scenario)
    flow = result.flows.iloc[0]
    return Measured(
        name=str(flow["cca"]),
        phases=tuple(_phase(result, *step) for step in capacity.steps),
        mean_rtt_ms=float(result.rtt["rtt_ms"].mean()),
        loss_ratio=float(flow["loss_ratio"]),
        retransmits=int(flow["retransmits"]),
        timeouts=int(flow["timeouts"]),
        png=_figure(result, capacity),
    )


def _write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp makes the file private (0600); give it the mode a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, _FILE_MODE & ~umask)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _cell(text: Any) -> str:
    """A markdown table cell: pipes escaped."""
    return str(text).replace("|", "\\|")


def _intro(duration_s: float) -> list[str]:
    t_down, t_up = (duration_s * f for f in STEP_FRACTIONS)
    return [
        "# Congestion controls",
        "",
        "Generated by `make docs` (`scripts/make_docs.py`) from the engine's registry",
        "(`crates/cellcc-engine/src/cc/registry.rs`, read through `cellcc.ccas()`) and one simulation per",
        'algorithm; do not edit by hand. Set an algorithm on a flow with `cca = "<name>"` and its parameters',
        "with `cca_params`; `cellcc ccas --verbose` prints the same descriptions in the terminal.",
        "",
        "## The standard path",
        "",
        f"Every algorithm runs alone, once (seed {SEED}), for {duration_s:g} s on the same path:",
        "",
        "```text",
        f"server --({ACCESS_RATE_MBPS:g} Mbit/s, 0 ms)-- router "
        f"--({RATE_MBPS:g} Mbit/s, {ONE_WAY_DELAY_MS:g} ms)-- client",
        "```",
        "",
        f"- RTT {2 * ONE_WAY_DELAY_MS:g} ms; the bottleneck's data direction has a drop-tail buffer of",
        f"  {BUFFER_BYTES:,} B".replace(",", " ")
        + f", one bandwidth-delay product at {RATE_MBPS:g} Mbit/s (about {round(BUFFER_BYTES / MTU_BYTES)} packets"
        f" of {MTU_BYTES} B).",
        f"- Capacity steps from {RATE_MBPS:g} to {STEP_RATE_MBPS:g} Mbit/s at {t_down:g} s and back to",
        f"  {RATE_MBPS:g} Mbit/s at {t_up:g} s (`rate_changes` on the link's `forward` direction).",
        "- One bulk TCP flow with the default TCP settings (SACK, timestamps, MSS 1448 B, initial window",
        "  10 segments, delayed ACKs) and the algorithm's default parameters.",
        "",
        "Each figure shows, above, cwnd (and ssthresh once it is finite, and the pacing rate on the right",
        "axis where the algorithm sets one) with BDP + buffer, the most the path holds before the buffer",
        f"overflows, dotted; below, goodput per {SLOT_MS} ms slot and the capacity. The numbers below each figure",
        "are means over each capacity phase: goodput over the slots, RTT over every RTT sample. Goodput counts",
        f"payload only: at most {MSS_BYTES}/{MTU_BYTES} = {100 * MSS_BYTES / MTU_BYTES:.1f}% of the capacity.",
        "",
        "Regenerate with `make docs` (all algorithms, in parallel, well under a minute). For a quick look:",
        "`.venv/bin/python scripts/make_docs.py --only reno,bbr --duration 10 --out /tmp/docs`.",
    ]


def _summary(entries: list[dict[str, Any]], measured: dict[str, Measured]) -> list[str]:
    lines = ["", "## Summary", "", "| name | family | source | summary |", "| --- | --- | --- | --- |"]
    lines += [
        f"| [`{c['name']}`](#{c['name']}) | {c['family']} | {_cell(c['source'])} | {_cell(c['summary'])} |"
        for c in entries
    ]
    heads = " | ".join(f"goodput {p} (Mbit/s)" for p in _PHASES)
    lines += ["", "Measured on the standard path:", "", f"| name | {heads} | mean RTT (ms) | loss % |"]
    lines.append("| --- " * 6 + "|")
    for c in entries:
        m = measured[c["name"]]
        goodputs = " | ".join(f"{p.goodput_mbps:.2f}" for p in m.phases)
        lines.append(f"| `{c['name']}` | {goodputs} | {m.mean_rtt_ms:.1f} | {100 * m.loss_ratio:.2f} |")
    return lines


def _section(entry: dict[str, Any], m: Measured) -> list[str]:
    name = entry["name"]
    lines = ["", f"## {name}", "", f"Family: {entry['family']}. Source: {entry['source']}.", ""]
    lines += [entry["description"], ""]
    if entry["params"]:
        lines += ["| parameter | default | meaning |", "| --- | --- | --- |"]
        lines += [f"| `{p['name']}` | `{p['default']}` | {_cell(p['doc'])} |" for p in entry["params"]]
    else:
        lines.append("No parameters.")
    lines += ["", f"![{name} on the standard path]({(FIGURES / f'{name}.png').as_posix()})", ""]
    lines += ["| phase | capacity (Mbit/s) | goodput (Mbit/s) | of capacity | mean RTT (ms) |", "| --- " * 5 + "|"]
    for label, p in zip(_PHASES, m.phases, strict=True):
        lines.append(
            f"| {label} ({p.start_s:g}-{p.end_s:g} s) | {p.capacity_mbps:g} | {p.goodput_mbps:.2f} "
            f"| {100 * p.share:.0f}% | {p.mean_rtt_ms:.1f} |"
        )
    lines += [
        "",
        f"Over the run: {100 * m.loss_ratio:.2f}% of packets lost, {m.retransmits} retransmissions, "
        f"{m.timeouts} retransmission timeout{'' if m.timeouts == 1 else 's'}.",
    ]
    return lines


def render(entries: list[dict[str, Any]], measured: dict[str, Measured], duration_s: float) -> str:
    """The whole of ccas.md."""
    lines = _intro(duration_s) + _summary(entries, measured)
    for entry in entries:
        lines += _section(entry, measured[entry["name"]])
    return "\n".join(lines) + "\n"


def generate(names: list[str], duration_s: float, out: Path, workers: int | None = None) -> Path:
    """Run ``names`` on the standard path; write the figures and ``out/ccas.md``; return the markdown's path."""
    entries = [c for c in cellcc.ccas() if c["name"] in names]
    jobs = [Job(standard_path(c["name"], duration_s), SEED) for c in entries]
    results = run_jobs(jobs, reduce=measure, workers=workers, description="docs")
    measured = {m.name: m for m in results}
    for m in results:
        _write_atomically(out / FIGURES / f"{m.name}.png", m.png)
    md = out / "ccas.md"
    _write_atomically(md, render(entries, measured, duration_s).encode("utf-8"))
    return md


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated algorithm names (default: every registered one)")
    parser.add_argument("--duration", type=float, default=DURATION_S, help="simulated seconds (default 60)")
    parser.add_argument("--out", type=Path, default=DOCS, help="output folder (default: docs/)")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: one per CPU)")
    return parser.parse_args()


if __name__ == "__main__":
    args = _args()
    if not args.duration > 0:
        raise SystemExit(f"error: --duration: got {args.duration}; allowed: seconds > 0")
    try:
        names = parse_cca_list(args.only)
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    print(f"wrote {generate(names, args.duration, args.out, args.workers)}")
