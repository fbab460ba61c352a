"""Compare congestion controls on a scenario: every TCP flow runs the CCA under test,
for several seeds; per-run metrics are summarised as mean and Student-t 95% CI.

Per-run metrics (over the run's TCP flows, from the engine's ``flows`` table):

- ``throughput_mbps``: sum of the flows' FlowMonitor throughput, Mbit/s.
- ``goodput_mbps``: sum of the flows' application goodput, Mbit/s.
- ``delay_ms``: mean one-way delay, weighted by received packets.
- ``loss_pct``: lost packets / transmitted packets, percent.
- ``retransmits``: retransmitted segments, summed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cellcc import _core
from cellcc.errors import UserError
from cellcc.registry import parse_cca_list, registered_ccas
from cellcc.result import Result
from cellcc.runner import Job, run_jobs
from cellcc.scenario import Scenario, resolve_many
from cellcc.stats import mean_ci

__all__ = ["METRICS", "compare", "compare_runs", "parse_cca_list", "registered_ccas", "run_metrics", "summarise"]

#: (column, heading) of each compared metric, in table order.
METRICS: tuple[tuple[str, str], ...] = (
    ("throughput_mbps", "throughput Mbit/s"),
    ("goodput_mbps", "goodput Mbit/s"),
    ("delay_ms", "mean delay ms"),
    ("loss_pct", "loss %"),
    ("retransmits", "retransmits"),
)
#: Bits per megabit.
_BPS_PER_MBPS = 1e6


def run_metrics(result: Result) -> dict[str, float]:
    """The per-run metrics of the module doc (runs in the worker process)."""
    flows = result.flows
    if "transport" in flows.columns:
        flows = flows[flows["transport"] == "tcp"]
    rx = flows["rx_packets"].to_numpy(dtype=float)
    delay = flows["mean_delay_ms"].to_numpy(dtype=float)
    tx_total = float(flows["tx_packets"].sum())
    weighted = float(np.nansum(delay * rx) / rx.sum()) if rx.sum() > 0 else float("nan")
    return {
        "throughput_mbps": float(flows["throughput_bps"].sum()) / _BPS_PER_MBPS,
        "goodput_mbps": float(flows["goodput_bps"].sum()) / _BPS_PER_MBPS,
        "delay_ms": weighted,
        "loss_pct": 100.0 * float(flows["lost_packets"].sum()) / tx_total if tx_total > 0 else float("nan"),
        "retransmits": float(flows["retransmits"].sum()),
    }


def compare_runs(
    scenario: str | Path | dict[str, Any] | Scenario | None = None,
    ccas: str | Sequence[str] | None = None,
    seeds: int = 5,
    *,
    workers: int | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """One row per (scenario, cca, seed) with the per-run metrics."""
    if seeds < 1:
        raise UserError("--seeds", str(seeds), "an integer >= 1")
    names = parse_cca_list(ccas)
    scenarios = resolve_many(scenario)
    keys, jobs = [], []
    for sc in scenarios:
        for cca in names:
            variant = sc.with_cca(cca)
            for k in range(seeds):
                keys.append((sc.name, cca, sc.seed + k))
                jobs.append(Job(variant, sc.seed + k))
    rows = run_jobs(jobs, reduce=run_metrics, workers=workers, progress=progress, description="comparing")
    frame = pd.DataFrame(rows, columns=[c for c, _ in METRICS])
    frame.insert(0, "seed", [k[2] for k in keys])
    frame.insert(0, "cca", [k[1] for k in keys])
    frame.insert(0, "scenario", [k[0] for k in keys])
    return frame


def summarise(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (scenario, cca): mean and 95% CI half-width of every metric, ranked by throughput."""
    families = {c["name"]: c["family"] for c in _core.ccas()}
    rows = []
    for (scenario, cca), group in runs.groupby(["scenario", "cca"], sort=False):
        row: dict[str, Any] = {"scenario": scenario, "cca": cca, "family": families.get(cca, ""), "runs": len(group)}
        for column, _ in METRICS:
            ci = mean_ci(group[column].to_numpy())
            row[f"{column}_mean"] = ci.mean
            row[f"{column}_ci95"] = ci.half_width
        rows.append(row)
    table = pd.DataFrame(rows)
    order = list(dict.fromkeys(runs["scenario"]))
    table["_order"] = table["scenario"].map(order.index)
    table = table.sort_values(["_order", "throughput_mbps_mean", "cca"], ascending=[True, False, True], kind="stable")
    table["rank"] = table.groupby("scenario").cumcount() + 1
    return table.drop(columns="_order").reset_index(drop=True)


def compare(
    scenario: str | Path | dict[str, Any] | Scenario | None = None,
    ccas: str | Sequence[str] | None = None,
    seeds: int = 5,
    *,
    workers: int | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Rank CCAs on ``scenario`` (``None``/``"default"``: the bundled defaults) over ``seeds`` seeds.

    Returns one row per (scenario, cca) with ``<metric>_mean`` and ``<metric>_ci95``
    columns (see the module doc) and ``rank`` by mean throughput within each scenario.
    """
    return summarise(compare_runs(scenario, ccas, seeds, workers=workers, progress=progress))
