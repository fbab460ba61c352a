"""Rich tables for the terminal. Formatting only: the numbers come from the caller."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    import pandas as pd

#: (column of the engine's flows table, heading, scale, decimals) shown by `cellcc run`.
_FLOW_COLUMNS: tuple[tuple[str, str, float, int], ...] = (
    ("throughput_bps", "throughput\nMbit/s", 1e-6, 2),
    ("goodput_bps", "goodput\nMbit/s", 1e-6, 2),
    ("mean_delay_ms", "delay\nms", 1.0, 1),
    ("mean_jitter_ms", "jitter\nms", 1.0, 2),
    ("loss_ratio", "loss\n%", 100.0, 3),
    ("retransmits", "retrans-\nmits", 1.0, 0),
    ("timeouts", "time-\nouts", 1.0, 0),
)


def _number(x: Any, decimals: int) -> str:
    try:
        value = float(x)
    except (TypeError, ValueError):
        return str(x)
    return "-" if math.isnan(value) else f"{value:,.{decimals}f}"


def flows_table(flows: pd.DataFrame | Mapping[str, list[Any]], title: str) -> Table:
    """Per-flow results of one run: a DataFrame or the engine's columns (``Result.columns``)."""
    table = Table(title=title)
    for heading in ("flow", "cca"):
        table.add_column(heading)
    columns = {name: list(flows[name]) for name in flows}
    n_rows = len(next(iter(columns.values()), []))
    shown = [c for c in _FLOW_COLUMNS if c[0] in columns]
    for _, heading, _, _ in shown:
        table.add_column(heading, justify="right")
    for i in range(n_rows):
        cells = [str(columns[key][i]) if key in columns else "" for key in ("flow_id", "cca")]
        cells += [_number(columns[col][i] * scale, decimals) for col, _, scale, decimals in shown]
        table.add_row(*cells)
    return table


def _mean_ci(mean: float, half_width: float, decimals: int) -> str:
    if math.isnan(half_width):
        return _number(mean, decimals)
    return f"{_number(mean, decimals)}±{_number(half_width, decimals)}"


#: Decimals per compared metric.
_METRIC_DECIMALS = {"throughput_mbps": 2, "goodput_mbps": 2, "delay_ms": 1, "loss_pct": 3, "retransmits": 1}


def compare_table(summary: pd.DataFrame, scenario: str, seeds: int) -> Table:
    """One scenario's ranking: mean ± 95% CI half-width (Student t) of each metric."""
    from cellcc.compare import METRICS  # pandas/scipy: only where a comparison is shown

    table = Table(title=f"{scenario}: mean ± 95% CI over {seeds} seed(s), ranked by throughput")
    table.add_column("#", justify="right")
    table.add_column("cca")
    table.add_column("family")
    for _, heading in METRICS:
        table.add_column(heading.replace(" ", "\n", 1), justify="right")
    for _, row in summary[summary["scenario"] == scenario].iterrows():
        cells = [str(row["rank"]), row["cca"], row["family"]]
        cells += [_mean_ci(row[f"{c}_mean"], row[f"{c}_ci95"], _METRIC_DECIMALS[c]) for c, _ in METRICS]
        table.add_row(*cells)
    return table


def ccas_table(ccas: list[dict[str, Any]]) -> Table:
    """The registry: name, family, source and parameters with defaults."""
    table = Table(title="congestion controls")
    for heading in ("name", "family", "source", "parameters (default)"):
        table.add_column(heading, overflow="fold")
    for c in ccas:
        params = ", ".join(f"{p['name']}={json.dumps(p['default'])}" for p in c["params"]) or "-"
        table.add_row(c["name"], c["family"], c["source"], params)
    return table


def cca_detail(cca: dict[str, Any]) -> Panel:
    """One algorithm in full: its paragraph, then each parameter's default and meaning."""
    params = Table(box=None, show_header=bool(cca["params"]), pad_edge=False)
    for heading in ("parameter", "default", "meaning"):
        params.add_column(heading, overflow="fold")
    for p in cca["params"]:
        params.add_row(Text(p["name"]), Text(json.dumps(p["default"])), Text(p["doc"]))
    # Text, not str: the registry's prose has brackets ("[alpha, beta]") that rich would read as markup.
    body = Group(Text(cca["description"]), "", params if cca["params"] else "No parameters.")
    return Panel(
        body, title=f"[bold]{cca['name']}[/] ({cca['family']})", subtitle=escape(cca["source"]), title_align="left"
    )
