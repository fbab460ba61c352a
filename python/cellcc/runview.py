"""What one run shows: its tables as panels of time series on one shared time axis.

A :class:`Panel` is data only (lines, dots, marks and shaded bands, already decimated for
display); :mod:`cellcc.runreport` draws panels with Bokeh into the interactive page and
:func:`cellcc.plots.panel_png` with matplotlib into PNGs for papers. The notebook
(``examples/quickstart.ipynb``) calls the same functions.

Panels, in page order (:func:`panels`):

- flows: throughput and goodput per flow (``timeseries``);
- per TCP flow: cwnd and ssthresh with the Linux CA state shaded (Disorder, CWR, Recovery,
  Loss; ``cwnd``), retransmissions (per slot, ``timeseries``) and RTOs (entries into Loss) as
  marks; RTT samples and sRTT (``rtt``). A run without the per-change traces (runs longer than
  60 s turn them off by default) shows the per-slot cwnd and RTT instead;
- per link direction that ever queued or dropped: queue bytes, drops as marks (``queues``);
- per medium table (``lte`` today; ``wifi`` when it lands): one panel per metric and direction,
  one line per station. A medium registers its view with :func:`register_medium`; a table with a
  ``t_s`` column that nobody registered still gets panels, one per numeric column.

Decimation is for display only: each line keeps at most :data:`DISPLAY_POINTS` points, the
first, smallest, largest and last of each of ``DISPLAY_POINTS / 4`` equal time buckets, so a
600 s run opens at once and no spike disappears. The run's files keep every row.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from cellcc.result import Result

__all__ = [
    "CA_STATE_COLOURS",
    "DISPLAY_POINTS",
    "ENGINE_TABLES",
    "Band",
    "MediumView",
    "Metric",
    "Panel",
    "RunData",
    "Series",
    "cwnd_panel",
    "decimate",
    "medium_panels",
    "panels",
    "queue_panels",
    "register_medium",
    "rtt_panel",
    "throughput_panel",
]

#: Most points one line keeps for display: a screen is ~2000 pixels wide, so more cannot be seen.
DISPLAY_POINTS = 2000
#: Points kept per decimation bucket: first, smallest, largest, last.
_PER_BUCKET = 4
#: Most shaded CA-state bands per panel; more are merged per bucket, keeping the worst state.
MAX_BANDS = 1000
#: Tables every run has that are not a medium's (the medium tables are everything else).
ENGINE_TABLES = ("flows", "timeseries", "queues", "cwnd", "rtt")
#: Line colours (matplotlib's tab10, also Bokeh's Category10): flow i has colour i in every panel.
PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
#: Shading of the Linux CA states (include/net/tcp.h ``enum tcp_ca_state``); Open is not shaded.
CA_STATE_COLOURS = {"Disorder": "#f6e27a", "CWR": "#9ecae1", "Recovery": "#fdae6b", "Loss": "#f28e8e"}
#: Severity of each state: a merged band shows the most severe state in it.
_CA_SEVERITY = {"Open": 0, "Disorder": 1, "CWR": 2, "Recovery": 3, "Loss": 4}
_BITS_PER_MBIT = 1e6
_BYTES_PER_KB = 1e3
#: The engine's default ``output.slot_ms`` (crates/cellcc-engine/src/scenario), for a scenario that omits it.
_DEFAULT_SLOT_MS = 100.0
#: A link direction whose queue never held more than this (two full-size 1500 B Ethernet packets:
#: the one in service and one behind it) and dropped nothing has no queue worth a panel.
QUEUE_IDLE_BELOW_BYTES = 3000
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class Series:
    """One thing drawn in a panel. ``kind``: ``line``, ``step`` (held until the next point),
    ``dots`` (samples) or ``marks`` (events: ``marker`` is ``triangle`` or ``x``). Series with the
    same ``label`` share one legend entry (a flow's throughput and goodput; the panel title says
    which line is which)."""

    label: str
    t_s: np.ndarray
    y: np.ndarray
    kind: str
    colour: str
    dash: bool = False
    marker: str = ""


@dataclass(frozen=True)
class Band:
    """Time intervals shaded in one colour (one CA state)."""

    label: str
    start_s: np.ndarray
    end_s: np.ndarray
    colour: str


@dataclass(frozen=True)
class Panel:
    """One figure: a titled y axis over the run's shared time axis."""

    key: str
    section: str
    title: str
    y_label: str
    series: tuple[Series, ...]
    bands: tuple[Band, ...] = ()

    @property
    def file_name(self) -> str:
        """A file name for this panel's PNG."""
        return _SAFE.sub("_", self.key).strip("_") + ".png"


@dataclass(frozen=True)
class RunData:
    """What a one-run report reads: provenance, the engine's summary, the scenario as written
    (with its ``resolved`` defaults) and every table by name (medium tables included)."""

    provenance: dict[str, Any]
    summary: dict[str, Any]
    scenario: dict[str, Any]
    tables: dict[str, pd.DataFrame]

    @classmethod
    def from_result(cls, result: Result) -> RunData:
        return cls(result.provenance, result.summary, result.scenario.to_written_dict(), result.tables())

    @classmethod
    def load(cls, run_dir: str | Path) -> RunData:
        """A run folder (``cellcc run --out``, ``Result.save``): every ``*.parquet`` in it is a table,
        so a medium table the engine adds later is read without a change here."""
        import pyarrow.parquet as pq

        folder = Path(run_dir)
        head = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
        scenario = json.loads((folder / "scenario.json").read_text(encoding="utf-8"))
        tables = {p.stem: pq.read_table(p).to_pandas() for p in sorted(folder.glob("*.parquet"))}
        return cls(head["provenance"], head["summary"], scenario, tables)

    def table(self, name: str) -> pd.DataFrame:
        return self.tables.get(name, pd.DataFrame())

    @property
    def slot_ms(self) -> float:
        """Width of the time-series slots, ms (``output.slot_ms``, as the run resolved it)."""
        resolved = self.scenario.get("resolved", {}).get("output", {}).get("slot_ms")
        return float(resolved or self.scenario.get("output", {}).get("slot_ms") or _DEFAULT_SLOT_MS)

    @property
    def duration_s(self) -> float:
        """The scenario's simulated duration, seconds: the time axis."""
        return float(self.scenario["duration_s"])


def decimate(t_s: np.ndarray, y: np.ndarray, max_points: int = DISPLAY_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """At most ``max_points`` of (t, y), sorted by t: per time bucket the first, smallest, largest
    and last point (min-max decimation keeps every spike and dip a screen can show)."""
    t_s, y = np.asarray(t_s, dtype=float), np.asarray(y, dtype=float)
    if len(t_s) <= max_points:
        return t_s, y
    buckets = max(1, max_points // _PER_BUCKET)
    edges = np.linspace(t_s[0], t_s[-1], buckets + 1)
    # t is sorted, so bucket numbers never decrease and each bucket is one run of rows.
    which = np.clip(np.searchsorted(edges, t_s, side="right") - 1, 0, buckets - 1)
    starts = np.flatnonzero(np.r_[True, which[1:] != which[:-1]])
    ends = np.r_[starts[1:], len(t_s)]
    # Sorted by (bucket, value), each bucket's rows keep their place, led by its smallest value
    # (NaN sorts as +inf for the minimum and -inf for the maximum, so it is never chosen over a number).
    lowest = np.lexsort((np.where(np.isnan(y), np.inf, y), which))[starts]
    highest = np.lexsort((-np.where(np.isnan(y), -np.inf, y), which))[starts]
    chosen = np.unique(np.concatenate([starts, ends - 1, lowest, highest]))
    return t_s[chosen], y[chosen]


def _series(label: str, t_s: Any, y: Any, kind: str, colour: str, **style: Any) -> Series:
    t, v = decimate(np.asarray(t_s, dtype=float), np.asarray(y, dtype=float))
    return Series(label, t, v, kind, colour, **style)


def _flow_colours(data: RunData) -> dict[str, str]:
    flows = data.table("flows")
    ids = [str(f) for f in flows["flow_id"]] if "flow_id" in flows else []
    return {f: PALETTE[i % len(PALETTE)] for i, f in enumerate(ids)}


def _tcp_flows(data: RunData) -> list[str]:
    flows = data.table("flows")
    if flows.empty:
        return []
    tcp = flows[flows["transport"] == "tcp"] if "transport" in flows else flows
    return [str(f) for f in tcp["flow_id"]]


def throughput_panel(data: RunData) -> Panel | None:
    """Throughput (solid) and goodput (dashed) per flow, Mbit/s per slot."""
    ts = data.table("timeseries")
    if ts.empty:
        return None
    colours = _flow_colours(data)
    series = []
    for flow, g in ts.groupby("flow_id", sort=False):
        colour = colours.get(str(flow), PALETTE[0])
        # One legend entry per flow (series with one label share it): the title says which line is which.
        series.append(_series(str(flow), g["t_s"], g["throughput_bps"] / _BITS_PER_MBIT, "line", colour))
        series.append(_series(str(flow), g["t_s"], g["goodput_bps"] / _BITS_PER_MBIT, "line", colour, dash=True))
    return Panel(
        "flows-throughput", "Flows", "Throughput (solid) and goodput (dashed) per slot", "Mbit/s", tuple(series)
    )


def _ca_bands(t_s: np.ndarray, states: np.ndarray, end_s: float) -> tuple[Band, ...]:
    """Intervals in each non-Open CA state; beyond MAX_BANDS intervals, one per bucket (worst state)."""
    if len(t_s) == 0:
        return ()
    ends = np.r_[t_s[1:], end_s]
    severity = np.array([_CA_SEVERITY.get(s, 0) for s in states])
    if np.count_nonzero(severity) > MAX_BANDS:
        edges = np.linspace(0.0, end_s, MAX_BANDS + 1)
        which = np.clip(np.searchsorted(edges, t_s, side="right") - 1, 0, MAX_BANDS - 1)
        worst = np.zeros(MAX_BANDS, dtype=int)
        np.maximum.at(worst, which, severity)
        t_s, ends, severity = edges[:-1], edges[1:], worst
    by_name = {v: k for k, v in _CA_SEVERITY.items()}
    bands = []
    for level in sorted(set(severity.tolist()) - {0}):
        mask = severity == level
        name = by_name[level]
        bands.append(Band(name, t_s[mask], ends[mask], CA_STATE_COLOURS.get(name, "#dddddd")))
    return tuple(bands)


def _value_at(t_query: np.ndarray, t_s: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The step function (t_s, y) at each time of ``t_query`` (the last value at or before it)."""
    if len(t_s) == 0:
        return np.zeros(len(t_query))
    idx = np.clip(np.searchsorted(t_s, t_query, side="right") - 1, 0, len(y) - 1)
    return y[idx]


def cwnd_panel(data: RunData, flow: str) -> Panel | None:
    """cwnd and ssthresh of ``flow`` in kB, CA states shaded, retransmissions and RTOs marked."""
    colour = _flow_colours(data).get(flow, PALETTE[0])
    trace = data.table("cwnd")
    trace = trace[trace["flow_id"] == flow] if not trace.empty else trace
    slots = data.table("timeseries")
    slots = slots[slots["flow_id"] == flow] if not slots.empty else slots
    if trace.empty and slots.empty:
        return None
    series, bands = [], ()
    if not trace.empty:
        t = trace["t_s"].to_numpy(dtype=float)
        cwnd_kb = trace["cwnd_bytes"].to_numpy(dtype=float) / _BYTES_PER_KB
        ssthresh = trace["ssthresh_bytes"].to_numpy(dtype=float)
        # u64::MAX is the engine's "infinite" ssthresh (no loss yet): nothing to draw.
        ssthresh_kb = np.where(ssthresh >= np.iinfo(np.int64).max, np.nan, ssthresh / _BYTES_PER_KB)
        series.append(_series("cwnd", t, cwnd_kb, "step", colour))
        series.append(_series("ssthresh", t, ssthresh_kb, "step", "#444444", dash=True))
        states = trace["ca_state"].astype(str).to_numpy()
        bands = _ca_bands(t, states, data.duration_s)
        rto = np.flatnonzero((states == "Loss") & np.r_[True, states[:-1] != "Loss"])
        step_t, step_y = t, cwnd_kb
        title = f"{flow}: cwnd and ssthresh (every change), CA state shaded"
    else:
        step_t = slots["t_s"].to_numpy(dtype=float)
        step_y = slots["cwnd_bytes"].to_numpy(dtype=float) / _BYTES_PER_KB
        series.append(_series("cwnd (per slot)", step_t, step_y, "step", colour))
        rto = np.array([], dtype=int)
        title = f"{flow}: cwnd per slot (output.cwnd_trace is off: no ssthresh or CA state)"
    if not slots.empty and "retransmits" in slots:
        hit = slots[slots["retransmits"] > 0]["t_s"].to_numpy(dtype=float)
        if len(hit):
            series.append(
                _series(
                    "retransmissions (slot)", hit, _value_at(hit, step_t, step_y), "marks", "#d62728", marker="triangle"
                )
            )
    if len(rto):
        series.append(Series("RTO", step_t[rto], step_y[rto], "marks", "#000000", marker="x"))
    return Panel(f"flow-{flow}-cwnd", f"Flow {flow}", title, "kB", tuple(series), bands)


def rtt_panel(data: RunData, flow: str) -> Panel | None:
    """RTT samples (dots) and the smoothed RTT (line) of ``flow``, ms; per slot without the trace."""
    colour = _flow_colours(data).get(flow, PALETTE[0])
    samples = data.table("rtt")
    samples = samples[samples["flow_id"] == flow] if not samples.empty else samples
    if not samples.empty:
        series = (
            _series("RTT sample", samples["t_s"], samples["rtt_ms"], "dots", colour),
            _series("sRTT", samples["t_s"], samples["srtt_ms"], "line", "#444444"),
        )
        return Panel(f"flow-{flow}-rtt", f"Flow {flow}", f"{flow}: RTT samples and smoothed RTT", "ms", series)
    slots = data.table("timeseries")
    slots = slots[slots["flow_id"] == flow] if not slots.empty else slots
    if slots.empty or slots["rtt_ms"].isna().all():
        return None
    series = (_series("RTT (per slot)", slots["t_s"], slots["rtt_ms"], "line", colour),)
    return Panel(f"flow-{flow}-rtt", f"Flow {flow}", f"{flow}: RTT per slot (output.rtt_trace is off)", "ms", series)


def queue_panels(data: RunData) -> tuple[list[Panel], list[str]]:
    """One panel per link direction that ever queued or dropped (bytes; drops as marks), and the
    names of the idle ones."""
    queues = data.table("queues")
    out, idle = [], []
    if queues.empty:
        return out, idle
    for link, g in queues.groupby("link", sort=False):
        if g["max_bytes"].max() <= QUEUE_IDLE_BELOW_BYTES and not g["drops"].any():
            idle.append(str(link))
            continue
        t = g["t_s"].to_numpy(dtype=float)
        series = [
            _series("queue at slot end", t, g["bytes"] / _BYTES_PER_KB, "step", PALETTE[0]),
            _series("slot maximum", t, g["max_bytes"] / _BYTES_PER_KB, "step", PALETTE[1], dash=True),
        ]
        dropped = g[g["drops"] > 0]
        if not dropped.empty:
            series.append(
                _series(
                    "drops (slot)", dropped["t_s"], dropped["max_bytes"] / _BYTES_PER_KB, "marks", "#d62728", marker="x"
                )
            )
        out.append(Panel(f"queue-{link}", "Queues", f"Queue of {link}", "kB", tuple(series)))
    return out, idle


@dataclass(frozen=True)
class Metric:
    """One column of a medium table drawn as a panel: ``scale`` turns it into ``unit``
    (``per_tti``: a sum over the slot's 1 ms TTIs, divided by the slot's TTIs); ``dashed_with``
    draws a second column, dashed, in the same panel (the title says which is which)."""

    column: str
    title: str
    unit: str
    scale: float = 1.0
    dashed_with: str = ""
    per_tti: bool = False


@dataclass(frozen=True)
class MediumView:
    """How a medium's table becomes panels: ``keys`` name one station (one line per station),
    ``split`` a column whose values get sections of their own (``dir``: downlink, uplink)."""

    table: str
    name: str
    keys: tuple[str, ...]
    metrics: tuple[Metric, ...]
    split: str = ""
    split_names: dict[str, str] = field(default_factory=dict)


_MEDIA: dict[str, MediumView] = {}


def register_medium(view: MediumView) -> None:
    """Give medium table ``view.table`` its panels (a new medium calls this once at import)."""
    _MEDIA[view.table] = view


#: How the radio tables name their directions (`dir`): one section of panels each.
_DIRECTIONS = {"dl": "downlink", "ul": "uplink"}

#: Panels the LTE and NR cells' tables share (the same columns, crates/cellcc-engine/src/output.rs).
_CQI_AND_MCS = Metric("cqi", "CQI (solid) and mean MCS (dashed)", "index", dashed_with="mcs_mean")
_HARQ_RETX = Metric("harq_retx", "HARQ retransmissions per slot", "TBs")
_PHY_THROUGHPUT = Metric(
    "phy_throughput_bps",
    "PHY throughput (solid) and capacity (dashed)",
    "Mbit/s",
    1 / _BITS_PER_MBIT,
    dashed_with="capacity_bps",
)

#: The LTE cell's table (crates/cellcc-engine/src/output.rs, `lte`).
register_medium(
    MediumView(
        table="lte",
        name="LTE",
        keys=("cell", "ue"),
        split="dir",
        split_names=_DIRECTIONS,
        metrics=(
            _CQI_AND_MCS,
            # TS 36.211 §4.1: one subframe (the LTE TTI) is 1 ms, so a slot of S ms has S TTIs.
            Metric("prbs", "PRBs allocated per TTI (mean over the slot)", "RBs", per_tti=True),
            _HARQ_RETX,
            Metric("rlc_buffer_bytes", "RLC buffer at the slot's last TTI", "kB", 1 / _BYTES_PER_KB),
            _PHY_THROUGHPUT,
        ),
    )
)

#: The NR cell's table (crates/cellcc-engine/src/output.rs, `nr`): per slot of the output, not
#: per NR slot (their length depends on the numerology), so counts are per output slot.
register_medium(
    MediumView(
        table="nr",
        name="NR",
        keys=("cell", "ue"),
        split="dir",
        split_names=_DIRECTIONS,
        metrics=(
            _CQI_AND_MCS,
            Metric("sinr_eff_db", "Effective SINR of the TBs (EESM)", "dB"),
            _HARQ_RETX,
            Metric("rlc_buffer_bytes", "RLC buffer at the slot's end", "kB", 1 / _BYTES_PER_KB),
            _PHY_THROUGHPUT,
        ),
    )
)

#: The Wi-Fi BSS's table (crates/cellcc-engine/src/output.rs, `wifi`): per station and direction
#: (`dl` AP to station, `ul` station to AP), counts per output slot.
register_medium(
    MediumView(
        table="wifi",
        name="Wi-Fi",
        keys=("bss", "station"),
        split="dir",
        split_names=_DIRECTIONS,
        metrics=(
            Metric("mcs_mean", "MCS of the data PPDUs (mean over the slot)", "index"),
            Metric("ampdu_mpdus_mean", "MPDUs per A-MPDU (mean over the slot)", "MPDUs"),
            Metric(
                "mpdu_retries",
                "MPDU retries (solid) and losses (dashed) per slot",
                "MPDUs",
                dashed_with="mpdu_losses",
            ),
            Metric(
                "collisions",
                "PPDUs lost to collisions (solid) and BlockAck timeouts (dashed) per slot",
                "PPDUs",
                dashed_with="ba_timeouts",
            ),
            Metric("airtime_share", "Air time of the link's data PPDUs", "share of the slot"),
            Metric("delivered_bps", "Delivered IP throughput", "Mbit/s", 1 / _BITS_PER_MBIT),
            Metric("queue_bytes", "Sender's queue at the slot's end", "kB", 1 / _BYTES_PER_KB),
        ),
    )
)

#: Columns that name a station in a table nobody registered (so they are keys, not metrics).
_ID_COLUMNS = {"cell", "ue", "bss", "ap", "sta", "station", "node", "link", "flow_id"}


def _generic_view(name: str, frame: pd.DataFrame) -> MediumView:
    """Panels for a medium table nobody registered: text and id columns are keys, ``dir`` splits,
    every other numeric column is a panel."""
    keys = tuple(
        c
        for c in frame.columns
        if c not in ("t_s", "dir")
        and (c in _ID_COLUMNS or c.endswith("_id") or not pd.api.types.is_numeric_dtype(frame[c]))
    )
    metrics = tuple(
        Metric(c, c, "")
        for c in frame.columns
        if c not in (*keys, "t_s", "dir") and pd.api.types.is_numeric_dtype(frame[c])
    )
    return MediumView(table=name, name=name, keys=keys, metrics=metrics, split="dir" if "dir" in frame else "")


def medium_panels(data: RunData) -> list[Panel]:
    """Panels of every medium table with rows: registered views first, then any other table with ``t_s``."""
    out: list[Panel] = []
    names = [n for n in _MEDIA if n in data.tables] + sorted(
        n for n in data.tables if n not in _MEDIA and n not in ENGINE_TABLES and "t_s" in data.tables[n]
    )
    for name in names:
        frame = data.tables[name]
        if frame.empty:
            continue
        view = _MEDIA.get(name) or _generic_view(name, frame)
        out += _view_panels(view, frame, data.slot_ms)
    return out


def _view_panels(view: MediumView, frame: pd.DataFrame, slot_ms: float) -> list[Panel]:
    parts = frame.groupby(view.split, sort=True) if view.split else [("", frame)]
    out = []
    for part, rows in parts:
        where = view.split_names.get(str(part), str(part))
        section = f"{view.name} {where}".strip()
        stations = rows.groupby(list(view.keys), sort=True) if view.keys else [((), rows)]
        constant = {k for k in view.keys if frame[k].nunique() <= 1}
        station_rows = [(_station_label(view.keys, k, constant), g) for k, g in stations]
        for metric in view.metrics:
            series = []
            scale = metric.scale / (slot_ms if metric.per_tti else 1.0)
            for i, (label, g) in enumerate(station_rows):
                colour = PALETTE[i % len(PALETTE)]
                t = g["t_s"]
                series.append(_series(label, t, g[metric.column] * scale, "line", colour))
                if metric.dashed_with and metric.dashed_with in g:
                    series.append(
                        _series(
                            label,
                            t,
                            g[metric.dashed_with] * scale,
                            "line",
                            colour,
                            dash=True,
                        )
                    )
            key = f"{view.table}-{part}-{metric.column}" if part != "" else f"{view.table}-{metric.column}"
            out.append(Panel(key, section, f"{section}: {metric.title}", metric.unit, tuple(series)))
    return out


def _station_label(keys: Sequence[str], values: Any, constant: set[str]) -> str:
    """The values of the keys that tell stations apart (a key with one value in the table, such as
    the cell of a one-cell run, is left out), joined with "/"."""
    values = values if isinstance(values, tuple) else (values,)
    shown = [str(v) for k, v in zip(keys, values, strict=False) if k not in constant]
    return "/".join(shown) or "/".join(str(v) for v in values) or "all"


def panels(data: RunData) -> tuple[list[Panel], list[str]]:
    """Every panel of the run, in page order, and the idle link directions (not drawn)."""
    out: list[Panel] = []
    builders: list[Callable[[], Panel | None]] = [lambda: throughput_panel(data)]
    for flow in _tcp_flows(data):
        builders += [lambda f=flow: cwnd_panel(data, f), lambda f=flow: rtt_panel(data, f)]
    for build in builders:
        panel = build()
        if panel is not None:
            out.append(panel)
    queue, idle = queue_panels(data)
    return out + queue + medium_panels(data), idle
