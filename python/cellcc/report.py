"""The report of a sweep: per configuration (one combination of the non-CCA axes),
a ranking table with 95% CIs, a throughput vs p95-RTT scatter, a spider plot,
ECDFs of Pm and of per-slot goodput and delay, and the recommendation; then, per
numeric axis, metrics against it with CI bands.

One self-contained HTML page (figures embedded as data: URIs, no scripts, works
offline) or Markdown with the figures in a folder beside it. Written atomically.
"""

from __future__ import annotations

import base64
import html
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from cellcc import plots
from cellcc.catalogue import Store
from cellcc.recommend import Recommendation, recommend
from cellcc.stats import mean_ci
from cellcc.store import write_file_atomically

__all__ = ["REPORT_METRICS", "build_report", "summarise_runs", "write_report"]

#: (column, heading) of the per-configuration ranking table.
REPORT_METRICS = (
    ("throughput_mbps", "throughput Mbit/s"),
    ("goodput_mbps", "goodput Mbit/s"),
    ("rtt_p95_ms", "p95 RTT ms"),
    ("delay_ms", "one-way delay ms"),
    ("loss_pct", "loss %"),
    ("retransmits", "retransmits"),
    ("jain_index", "Jain index"),
    ("pm_mean", "Pm"),
)
_NO_CCA_AXIS = (
    "No recommendation: the sweep has no CCA axis (a path ending in `.cca`), so there is nothing to choose between."
)
#: The spider plot's axes (seed 003: goodput, delay, retransmissions).
_SPIDER = [("goodput_mbps", "goodput", True), ("delay_ms", "delay", False), ("retransmits", "retransmits", False)]


@dataclass
class Block:
    """One element of the report: a heading, paragraph, bullet list, table or figure."""

    kind: str
    text: str = ""
    items: list[str] = field(default_factory=list)
    table: pd.DataFrame | None = None
    png: bytes = b""


def summarise_runs(runs: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Per group of ``by``: ``<metric>_mean`` and ``<metric>_ci95`` (Student t, 95%) and ``n``."""
    rows = []
    for keys, g in runs.groupby(by, sort=True):
        row: dict[str, Any] = dict(zip(by, keys if isinstance(keys, tuple) else (keys,), strict=False))
        row["n"] = len(g)
        for column, _ in REPORT_METRICS:
            ci = mean_ci(g[column].to_numpy(dtype=float))
            row[f"{column}_mean"], row[f"{column}_ci95"] = ci.mean, ci.half_width
        rows.append(row)
    return pd.DataFrame(rows)


def _pretty(summary: pd.DataFrame, first: list[str]) -> pd.DataFrame:
    out = summary[first].copy()
    for column, heading in REPORT_METRICS:
        out[heading] = [
            f"{m:.3g}" if math.isnan(h) else f"{m:.3g} ± {h:.2g}"
            for m, h in zip(summary[f"{column}_mean"], summary[f"{column}_ci95"], strict=False)
        ]
    return out


def _cca_column(store: Store) -> str | None:
    for axis in store.sweep()["axes"]:
        if axis["path"].rsplit(".", 1)[-1] == "cca":
            return str(axis["column"])
    return None


def build_report(store: Store, objective: str = "throughput", delay_budget_ms: float | None = None) -> list[Block]:
    """The report's blocks (see the module doc)."""
    sweep = store.sweep()
    metrics = store.metrics()
    blocks = [Block("h1", f"cellcc report: {sweep['name']}")]
    blocks.append(Block("p", _intro(sweep, store, metrics)))
    if metrics.empty:
        return [*blocks, Block("p", "No completed runs yet: run `cellcc sweep run` first.")]
    cca = _cca_column(store)
    has_cca_axis = cca is not None
    pm, series = store.pm(), store.timeseries()
    if cca is None:  # no CCA axis: the base scenario's CCAs are one group
        cca = "cca"
        metrics, pm = metrics.assign(cca="(base)"), pm.assign(cca="(base)")
        series = series.drop(columns="cca", errors="ignore").assign(cca="(base)")
    others = [c for c in store.axis_columns() if c != cca]
    configs = metrics.groupby(others, sort=True) if others else [((), metrics)]
    for keys, runs in configs:
        label = _config_label(others, keys)
        rec = recommend(runs.rename(columns={cca: "cca"}), objective, delay_budget_ms=delay_budget_ms)
        blocks += _config_section(label, runs, _slice(pm, others, keys), cca, rec if has_cca_axis else None)
        blocks += _series_section(label, _slice(series, others, keys), cca)
    blocks += _axis_sections(metrics, others, cca)
    return blocks


def _intro(sweep: dict[str, Any], store: Store, metrics: pd.DataFrame) -> str:
    axes = "; ".join(f"{a['column']} = {a['path']} in {a['values']}" for a in sweep["axes"]) or "none"
    runs = store.runs()
    return (
        f"Base scenario {sweep['base']} (sha256 {sweep['base_sha256'][:12]}), seeds {sweep['seeds']}, axes: {axes}. "
        f"{int(runs['complete'].sum())} of {len(runs)} runs complete. Intervals are Student-t 95% over seeds."
    )


def _config_label(columns: list[str], keys: Any) -> str:
    values = keys if isinstance(keys, tuple) else (keys,)
    return ", ".join(f"{c} = {v}" for c, v in zip(columns, values, strict=False)) or "all runs"


def _slice(frame: pd.DataFrame, columns: list[str], keys: Any) -> pd.DataFrame:
    if frame.empty or not columns:
        return frame
    values = keys if isinstance(keys, tuple) else (keys,)
    mask = pd.Series(True, index=frame.index)
    for c, v in zip(columns, values, strict=False):
        mask &= frame[c] == v
    return frame[mask]


def _config_section(
    label: str, runs: pd.DataFrame, pm: pd.DataFrame, cca: str, rec: Recommendation | None
) -> list[Block]:
    """One configuration; ``rec`` is None when the sweep has no CCA axis (nothing to choose between)."""
    summary = summarise_runs(runs, [cca])
    if rec is not None and not rec.ranking.empty:  # in the recommendation's order (best first by the objective)
        order = {c: i for i, c in enumerate(rec.ranking["cca"])}
        summary = summary.sort_values(cca, key=lambda s: s.map(lambda c: order.get(c, len(order))), kind="stable")
    blocks = [Block("h2", label), Block("table", table=_pretty(summary, [cca, "n"]))]
    blocks += _recommendation(rec) if rec is not None else [Block("p", _NO_CCA_AXIS)]
    blocks.append(
        Block("figure", f"throughput vs p95 RTT, {label}", png=plots.throughput_delay_scatter(runs, cca, label))
    )
    means = summarise_runs(runs, [cca]).rename(columns={f"{c}_mean": c for c, _, _ in _SPIDER})
    blocks.append(Block("figure", f"spider, {label}", png=plots.spider(means, cca, _SPIDER, label)))
    if not pm.empty:
        slots = pm.dropna(subset=["pm"])
        blocks.append(
            Block("figure", f"ECDF of Pm per slot, {label}", png=plots.ecdf_plot(slots, "pm", cca, "Pm", label))
        )
        mbps = slots.assign(goodput_mbps=slots["goodput_bps"] / 1e6)
        blocks.append(
            Block(
                "figure",
                f"ECDF of goodput per slot, {label}",
                png=plots.ecdf_plot(mbps, "goodput_mbps", cca, "goodput per slot (Mbit/s)", label),
            )
        )
        blocks.append(
            Block(
                "figure",
                f"ECDF of delay per slot, {label}",
                png=plots.ecdf_plot(slots, "delay_ms", cca, "one-way delay per slot (ms)", label),
            )
        )
    return blocks


def _recommendation(rec: Recommendation) -> list[Block]:
    blocks = [Block("h3", "Recommendation"), Block("p", rec.verdict), Block("p", f"Criterion: {rec.criterion}.")]
    if rec.excluded:
        blocks.append(Block("p", f"Excluded by the delay budget: {', '.join(rec.excluded)}."))
    if rec.reasons:
        blocks.append(Block("list", items=rec.reasons))
    if not rec.ranking.empty:
        blocks.append(Block("table", table=rec.ranking))
    return blocks


def _series_section(label: str, series: pd.DataFrame, cca: str) -> list[Block]:
    """Goodput and cwnd over time of one run per CCA: the lowest seed (the same seed for every CCA)."""
    if series.empty:
        return []
    chosen = series[series["seed"] == series["seed"].min()]
    chosen = chosen.assign(goodput_mbps=chosen["goodput_bps"] / 1e6, cwnd_kbytes=chosen["cwnd_bytes"] / 1e3)
    # One line per CCA, or per (CCA, flow) when the scenario has several flows.
    several = chosen["flow_id"].nunique() > 1
    chosen = chosen.assign(line=chosen[cca].astype(str) + ("/" + chosen["flow_id"].astype(str) if several else ""))
    title = f"{label}, seed {int(chosen['seed'].iloc[0])}"
    goodput = plots.timeseries_plot(chosen, "goodput_mbps", "line", "goodput (Mbit/s)", title)
    cwnd = plots.timeseries_plot(chosen, "cwnd_kbytes", "line", "cwnd (kB)", title)
    return [Block("figure", f"goodput per slot, {title}", png=goodput), Block("figure", f"cwnd, {title}", png=cwnd)]


def _axis_sections(metrics: pd.DataFrame, others: list[str], cca: str) -> list[Block]:
    blocks: list[Block] = []
    for axis in others:
        values = pd.to_numeric(metrics[axis], errors="coerce")
        if values.isna().any() or values.nunique() < 2:
            continue
        summary = summarise_runs(metrics.assign(**{axis: values}), [cca, axis])
        blocks.append(Block("h2", f"Metrics vs {axis} (averaged over the other axes)"))
        for metric, heading in (
            ("throughput_mbps", "throughput (Mbit/s)"),
            ("rtt_p95_ms", "p95 RTT (ms)"),
            ("pm_mean", "Pm"),
        ):
            blocks.append(
                Block("figure", f"{heading} vs {axis}", png=plots.metric_vs_param(summary, axis, metric, cca, heading))
            )
    return blocks


def render_html(blocks: list[Block]) -> str:
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>cellcc report</title><style>",
        "body{font-family:sans-serif;max-width:1100px;margin:auto;padding:1em}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;vertical-align:top}"
        "th{background:#f4f4f4;text-align:left}td.num{text-align:right}td.text{text-align:left}"
        "figure{display:inline-block;margin:0.5em}figcaption{font-size:small;color:#555}",
        "</style></head><body>",
    ]
    for b in blocks:
        if b.kind in ("h1", "h2", "h3", "p"):
            parts.append(f"<{b.kind}>{html.escape(b.text)}</{b.kind}>")
        elif b.kind == "list":
            parts.append("<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in b.items) + "</ul>")
        elif b.kind == "table" and b.table is not None:
            parts.append(_table_html(b.table))
        elif b.kind == "figure":
            data = base64.b64encode(b.png).decode("ascii")
            alt = html.escape(b.text)
            parts.append(
                f"<figure><img alt='{alt}' src='data:image/png;base64,{data}'><figcaption>{alt}</figcaption></figure>"
            )
    parts.append("</body></html>\n")
    return "\n".join(parts)


#: A cell that reads as a number: an optional sign, digits, and maybe "± half-width" or a unit word.
_NUMBER_CELL = re.compile(r"^[-+]?(\d[\d,]*\.?\d*(e[-+]?\d+)?|nan|inf)( ± \S+)?( [A-Za-z/%]+)?$|^-$")


def _table_html(frame: pd.DataFrame) -> str:
    """An HTML table whose numeric columns are right-aligned (digits line up) and whose text
    columns are left-aligned (prose reads from the left); floats in 4 significant digits."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    cells = [[_cell_text(v) for v in frame[c]] for c in frame.columns]
    numeric = [all(_NUMBER_CELL.match(v) for v in column if v) for column in cells]
    rows = []
    for i in range(len(frame)):
        row = "".join(
            f"<td class='{'num' if numeric[j] else 'text'}'>{html.escape(cells[j][i])}</td>" for j in range(len(cells))
        )
        rows.append(f"<tr>{row}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _cell_text(value: Any) -> str:
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:.4g}"
    return "-" if value is None else str(value)


def _md_table(frame: pd.DataFrame) -> str:
    cells = [[f"{v:.4g}" if isinstance(v, float) else str(v) for v in row] for row in frame.itertuples(index=False)]
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|" + "---|" * len(frame.columns)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in cells])


def render_markdown(blocks: list[Block], figure_dir: Path) -> tuple[str, dict[str, bytes]]:
    """Markdown text and the figure files (relative names under ``figure_dir``)."""
    parts, figures = [], {}
    for b in blocks:
        if b.kind in ("h1", "h2", "h3"):
            parts.append("#" * int(b.kind[1]) + " " + b.text)
        elif b.kind == "p":
            parts.append(b.text)
        elif b.kind == "list":
            parts.append("\n".join(f"- {i}" for i in b.items))
        elif b.kind == "table" and b.table is not None:
            parts.append(_md_table(b.table))
        elif b.kind == "figure":
            name = f"fig{len(figures):03d}.png"
            figures[name] = b.png
            parts.append(f"![{b.text}]({figure_dir.name}/{name})")
    return "\n\n".join(parts) + "\n", figures


def write_report(
    store: Store, out: str | Path, objective: str = "throughput", delay_budget_ms: float | None = None
) -> Path:
    """Write the report as ``out`` (.html or .md); every file is written by temp file + rename."""
    out = Path(out)
    blocks = build_report(store, objective, delay_budget_ms)
    if out.suffix.lower() == ".md":
        figure_dir = out.with_name(f"{out.stem}_figures")
        text, figures = render_markdown(blocks, figure_dir)
        for name, png in figures.items():
            write_file_atomically(figure_dir / name, png)
        write_file_atomically(out, text.encode("utf-8"))
    else:
        write_file_atomically(out, render_html(blocks).encode("utf-8"))
    return out
