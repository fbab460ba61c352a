"""Compare congestion controls on a scenario: every TCP flow runs the CCA under test,
for several seeds; per-run metrics are summarised as mean and Student-t 95% CI.

The per-run metrics are :func:`cellcc.metrics.run_metrics`; the table shows
``METRICS``, a subset of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from cellcc import _core
from cellcc.errors import UserError
from cellcc.metrics import RUN_METRICS, run_metrics
from cellcc.registry import parse_cca_list, registered_ccas
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
    frame = pd.DataFrame(rows, columns=list(RUN_METRICS))
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
