"""Figures for reports, from tidy DataFrames; each function returns PNG bytes.

matplotlib with the Agg backend (no display needed); fixed size, DPI and
metadata so the same data give the same bytes.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from cellcc.stats import ecdf

if TYPE_CHECKING:
    from cellcc.runview import Panel

__all__ = ["ecdf_plot", "metric_vs_param", "panel_png", "spider", "throughput_delay_scatter", "timeseries_plot"]

_FIGSIZE_IN = (6.0, 4.0)
_DPI = 100


def _png(fig: plt.Figure) -> bytes:
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=_DPI, metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def _finish(fig, ax, xlabel: str, ylabel: str, title: str) -> bytes:
    """Axis labels, title, legend and grid as every line plot here has them; the PNG."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return _png(fig)


def throughput_delay_scatter(runs: pd.DataFrame, group: str, title: str) -> bytes:
    """Pantheon-style: p95 RTT (x, reversed: better to the right) vs throughput; seeds small, means large."""
    fig, ax = plt.subplots(figsize=_FIGSIZE_IN)
    for i, (name, g) in enumerate(runs.groupby(group, sort=True)):
        color = f"C{i % 10}"
        ax.scatter(g["rtt_p95_ms"], g["throughput_mbps"], s=12, alpha=0.4, color=color)
        ax.scatter(g["rtt_p95_ms"].mean(), g["throughput_mbps"].mean(), s=80, color=color, label=str(name))
    ax.invert_xaxis()
    return _finish(fig, ax, "95th-percentile RTT (ms)", "throughput (Mbit/s)", title)


def ecdf_plot(values: pd.DataFrame, column: str, group: str, xlabel: str, title: str) -> bytes:
    """One empirical CDF per group of ``values[column]``."""
    fig, ax = plt.subplots(figsize=_FIGSIZE_IN)
    for name, g in values.groupby(group, sort=True):
        curve = ecdf(g[column].to_numpy(dtype=float))
        ax.step(curve["x"], curve["p"], where="post", label=str(name))
    return _finish(fig, ax, xlabel, "P(X <= x)", title)


def metric_vs_param(summary: pd.DataFrame, param: str, metric: str, group: str, ylabel: str) -> bytes:
    """``<metric>_mean`` against a swept parameter, one line per group, 95% CI as a band."""
    fig, ax = plt.subplots(figsize=_FIGSIZE_IN)
    for name, g in summary.groupby(group, sort=True):
        g = g.sort_values(param)
        x, mean, half = g[param].to_numpy(dtype=float), g[f"{metric}_mean"], g[f"{metric}_ci95"].fillna(0.0)
        ax.plot(x, mean, marker="o", label=str(name))
        ax.fill_between(x, mean - half, mean + half, alpha=0.2)
    return _finish(fig, ax, param, ylabel, f"{ylabel} vs {param} (95% CI)")


def spider(means: pd.DataFrame, group: str, axes: list[tuple[str, str, bool]], title: str) -> bytes:
    """Seed 003's spider plot: each axis a metric scaled to the best group (1 = best).

    ``axes`` is ``(column, label, higher_is_better)``; lower-is-better metrics are inverted (best/value).
    """
    angles = np.linspace(0, 2 * np.pi, len(axes), endpoint=False).tolist()
    fig, ax = plt.subplots(figsize=_FIGSIZE_IN, subplot_kw={"projection": "polar"})
    for name, row in means.set_index(group).iterrows():
        scores = []
        for column, _, higher in axes:
            col = means[column].astype(float)
            best = col.max() if higher else col.min()
            value = float(row[column])
            scores.append(_spider_score(value, best, higher))
        ax.plot([*angles, angles[0]], [*scores, scores[0]], label=str(name))
    ax.set_xticks(angles)
    ax.set_xticklabels([label for _, label, _ in axes])
    ax.set_ylim(0, 1.05)
    ax.set_title(title)
    ax.legend(fontsize="small", loc="lower right", bbox_to_anchor=(1.3, 0))
    return _png(fig)


def _spider_score(value: float, best: float, higher: bool) -> float:
    """``value`` against the best group's, 1 = best. On a lower-is-better axis whose best is 0 (no
    retransmissions at all), the groups at 0 score 1 and the others 0 (best / value = 0)."""
    if not higher and best == 0:
        return 1.0 if value == 0 else 0.0
    if not best or not value:
        return 0.0
    return value / best if higher else best / value


def timeseries_plot(frame: pd.DataFrame, column: str, group: str, ylabel: str, title: str) -> bytes:
    """``column`` against ``t_s``, one line per group (e.g. one run per CCA)."""
    fig, ax = plt.subplots(figsize=_FIGSIZE_IN)
    for name, g in frame.groupby(group, sort=True):
        ax.plot(g["t_s"], g[column], label=str(name), linewidth=1)
    return _finish(fig, ax, "time (s)", ylabel, title)


#: Size of a time-series panel as a paper figure: the width of a two-column page, a strip high.
_PANEL_FIGSIZE_IN = (7.0, 2.6)
#: Resolution of panel PNGs (print quality).
_PANEL_DPI = 200


def panel_png(panel: Panel, duration_s: float) -> bytes:
    """One :class:`cellcc.runview.Panel` (a time series of one run) as a PNG for a paper: the
    same lines, dots, marks and shaded CA states as the interactive report, over [0, duration_s]."""
    fig, ax = plt.subplots(figsize=_PANEL_FIGSIZE_IN)
    for band in panel.bands:
        spans = list(zip(band.start_s, band.end_s - band.start_s, strict=True))
        ax.broken_barh(spans, (0, 1), transform=ax.get_xaxis_transform(), color=band.colour, alpha=0.45)
        ax.plot([], [], color=band.colour, linewidth=6, alpha=0.45, label=band.label)
    for s in panel.series:
        style = {"color": s.colour, "label": s.label}
        if s.kind in ("line", "step"):
            ax.plot(
                s.t_s,
                s.y,
                linewidth=1,
                linestyle="--" if s.dash else "-",
                **style,
                **({"drawstyle": "steps-post"} if s.kind == "step" else {}),
            )
        elif s.kind == "dots":
            ax.scatter(s.t_s, s.y, s=1, alpha=0.35, **style)
        else:
            ax.scatter(s.t_s, s.y, s=14, marker="^" if s.marker == "triangle" else "x", **style)
    ax.set_xlim(0, duration_s)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(panel.y_label)
    ax.set_title(panel.title, fontsize="medium")
    ax.grid(alpha=0.3)
    # Series that share a label share one legend entry, as in the interactive report.
    handles, labels = ax.get_legend_handles_labels()
    unique: dict[str, object] = {}
    for label, handle in zip(labels, handles, strict=True):
        unique.setdefault(label, handle)
    ax.legend(
        unique.values(), unique.keys(), fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False
    )
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=_PANEL_DPI, metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()
