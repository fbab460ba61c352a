"""The report of one run (``cellcc report RUN_DIR``, ``cellcc run --out DIR --report``): one
self-contained HTML page that opens offline, with the run's provenance and scenario, the flows
table and every panel of :mod:`cellcc.runview` on one shared time axis.

Drawn with Bokeh, its JavaScript inlined (1.3 MB, once per page): the figures share one
``x_range``, so zooming or panning the time axis of any figure moves them all, and each has a
save tool that downloads it as a PNG. For papers, :func:`write_pngs` draws the same panels with
matplotlib (:func:`cellcc.plots.panel_png`), fixed size and bytes, without a browser.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cellcc.runview import CA_STATE_COLOURS, DISPLAY_POINTS, QUEUE_IDLE_BELOW_BYTES, Panel, RunData, panels
from cellcc.store import write_file_atomically

__all__ = ["REPORT_FILE", "RunData", "figure", "layout", "render_page", "write_pngs", "write_run_report"]

#: Name of the report inside a run folder (``cellcc run --report``, ``cellcc report RUN_DIR``).
REPORT_FILE = "report.html"
#: Height of one figure on the page, CSS pixels (the width follows the page).
FIGURE_HEIGHT_PX = 230
#: Time-axis tools only: zooming a time series in y hides what the panel is for.
_TOOLS = "xpan,xwheel_zoom,xbox_zoom,reset,save"
#: (column of the flows table, heading, scale, decimals), as `cellcc run` prints them.
_FLOW_COLUMNS = (
    ("cca", "cca", None, 0),
    ("throughput_bps", "throughput Mbit/s", 1e-6, 2),
    ("goodput_bps", "goodput Mbit/s", 1e-6, 2),
    ("mean_delay_ms", "one-way delay ms", 1.0, 1),
    ("mean_jitter_ms", "jitter ms", 1.0, 2),
    ("loss_ratio", "loss %", 100.0, 3),
    ("retransmits", "retransmits", 1.0, 0),
    ("timeouts", "RTOs", 1.0, 0),
    ("rtt_p95_ms", "p95 RTT ms", 1.0, 1),
    ("completion_s", "completion s", 1.0, 3),
)
_DASH = "dashed"
#: Room left of every plot for the y axis (ticks up to 6 digits and the label), so the time axes
#: of all figures start at the same x on the page.
_Y_AXIS_PX = 80
#: Most legend entries side by side above a figure: ~130 px each fits a 1100 px wide plot.
_LEGEND_COLUMNS = 8
_MARKERS = {"triangle": "triangle", "x": "x"}


def figure(panel: Panel, x_range: Any = None) -> Any:
    """One panel as a Bokeh figure; pass one ``x_range`` to every figure to link their time axes."""
    from bokeh.models import Legend
    from bokeh.plotting import figure as bokeh_figure

    fig = bokeh_figure(
        title=panel.title,
        height=FIGURE_HEIGHT_PX,
        sizing_mode="stretch_width",
        tools=_TOOLS,
        active_scroll="xwheel_zoom",
        active_drag="xbox_zoom",
        x_axis_label="time (s)",
        y_axis_label=panel.y_label,
        output_backend="canvas",
        min_border_left=_Y_AXIS_PX,
        **({"x_range": x_range} if x_range is not None else {}),
    )
    # The legend goes above the plot, never beside it: a legend beside a plot narrows it by its own
    # width, and the time axes of the figures would no longer line up.
    # Wrapped into rows of at most _LEGEND_COLUMNS entries, so a run with many flows keeps them all visible.
    items = len({s.label for s in panel.series}) + len(panel.bands)
    legend = Legend(
        click_policy="hide",
        orientation="horizontal",
        ncols=min(max(items, 1), _LEGEND_COLUMNS),
        label_text_font_size="8pt",
        spacing=12,
        padding=2,
        margin=0,
    )
    fig.add_layout(legend, "above")
    for band in panel.bands:
        fig.vstrip(x0=band.start_s, x1=band.end_s, color=band.colour, alpha=0.45, legend_label=band.label)
    for s in panel.series:
        style = {"color": s.colour, "legend_label": s.label}
        if s.kind == "line":
            fig.line(s.t_s, s.y, line_width=1.5, line_dash=_DASH if s.dash else "solid", **style)
        elif s.kind == "step":
            fig.step(s.t_s, s.y, mode="after", line_width=1.5, line_dash=_DASH if s.dash else "solid", **style)
        elif s.kind == "dots":
            fig.scatter(s.t_s, s.y, size=2, alpha=0.35, **style)
        else:
            fig.scatter(s.t_s, s.y, marker=_MARKERS.get(s.marker, "triangle"), size=7, **style)
    fig.toolbar.logo = None
    return fig


def layout(data: RunData) -> list[Any]:
    """Every panel of the run as a Bokeh figure on one shared time axis (for a notebook:
    ``bokeh.io.show(bokeh.layouts.column(layout(data), sizing_mode="stretch_width"))``)."""
    from bokeh.models import Range1d

    shared = Range1d(0.0, data.duration_s, bounds=(0.0, data.duration_s))
    return [figure(p, shared) for p in panels(data)[0]]


def render_page(data: RunData) -> str:
    """The whole report as one HTML document (see the module doc)."""
    from bokeh.document import Document
    from bokeh.embed import components
    from bokeh.models import Range1d
    from bokeh.resources import Resources

    panel_list, idle = panels(data)
    shared = Range1d(0.0, data.duration_s, bounds=(0.0, data.duration_s))
    figures = [figure(p, shared) for p in panel_list]
    # One document, its model graph recomputed once: `components` would add the figures one by
    # one, recomputing it after each (quadratic: 13 s instead of 1 s for 40 figures).
    document = Document()
    with document.models.freeze():
        for fig in figures:
            document.add_root(fig)
    script, divs = components(figures) if figures else ("", [])
    # BokehJS logs its version and load times at "info": a reader's console should stay empty, so the
    # level is "warn", set through the logger (`Bokeh.set_log_level` itself prints a line to the console).
    resources = Resources(mode="inline", components=["bokeh"], log_level="warn")
    bokeh_js = resources.render_js().replace('Bokeh.set_log_level("warn");', 'Bokeh.logger.set_level("warn");')
    name = data.provenance.get("scenario_name", "run")
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>cellcc run report: {html.escape(str(name))}</title>",
        f"<style>{_CSS}</style>",
        bokeh_js,
        script,
        "</head><body>",
        f"<h1>cellcc run report: {html.escape(str(name))} (seed {html.escape(str(data.provenance.get('seed')))})</h1>",
        _intro(data),
        "<h2>Flows</h2>",
        _flows_table(data),
        "<h2>Time series</h2>",
        _how_to_read(data, idle),
        *_figure_sections(panel_list, divs),
        "<h2>Provenance</h2>",
        _key_value_table(data.provenance, "provenance"),
        _key_value_table(_summary_facts(data.summary), "summary"),
        "<details><summary>Scenario as run (canonical JSON, with every default under <code>resolved</code>)"
        "</summary><pre>",
        html.escape(json.dumps(data.scenario, indent=2, sort_keys=True)),
        "</pre></details>",
        "</body></html>\n",
    ]
    return "\n".join(parts)


_CSS = (
    "body{font-family:system-ui,sans-serif;margin:0 auto;max-width:1400px;padding:0 1.5em 3em;color:#222}"
    "h1{font-size:1.5em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:1.6em}"
    "h3{margin:1.2em 0 .3em}"
    "table{border-collapse:collapse;margin:.6em 0;font-size:.9em}"
    "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f4f4f4}"
    "td:first-child,th:first-child{text-align:left}"
    ".figure{margin:.3em 0;min-height:" + str(FIGURE_HEIGHT_PX) + "px}"
    ".legend span{display:inline-block;padding:0 .5em;margin-right:.4em;border-radius:3px}"
    "pre{background:#f7f7f7;padding:1em;overflow:auto;font-size:.8em}p.note{color:#555;font-size:.9em}"
)


def _intro(data: RunData) -> str:
    sc = data.scenario
    nodes, links, flows = len(sc.get("nodes", [])), len(sc.get("links", [])), len(sc.get("flows", []))
    cells = len(sc.get("cells", []) or [])
    what = f"{nodes} nodes, {links} links, {flows} flows" + (f", {cells} LTE cell(s)" if cells else "")
    described = sc.get("description") or ""
    text = f"Scenario <b>{html.escape(str(sc.get('name', '')))}</b>: {what}, {sc.get('duration_s')} s simulated."
    if described:
        text += f" {html.escape(str(described))}"
    return f"<p>{text}</p>"


def _cell(value: Any, scale: float | None, decimals: int) -> str:
    if scale is None:
        return html.escape(str(value))
    try:
        number = float(value) * scale
    except (TypeError, ValueError):
        return html.escape(str(value))
    return "-" if math.isnan(number) else f"{number:,.{decimals}f}"


def _flows_table(data: RunData) -> str:
    flows = data.table("flows")
    if flows.empty:
        return "<p>No flows.</p>"
    shown = [c for c in _FLOW_COLUMNS if c[0] in flows.columns]
    head = "<tr><th>flow</th>" + "".join(f"<th>{html.escape(h)}</th>" for _, h, _, _ in shown) + "</tr>"
    rows = [
        "<tr><td>"
        + html.escape(str(row["flow_id"]))
        + "</td>"
        + "".join(f"<td>{_cell(row[c], scale, d)}</td>" for c, _, scale, d in shown)
        + "</tr>"
        for _, row in flows.iterrows()
    ]
    return f"<table class='flows'>{head}{''.join(rows)}</table>"


def _how_to_read(data: RunData, idle: Sequence[str]) -> str:
    legend = "".join(
        f"<span style='background:{colour}'>{html.escape(state)}</span>" for state, colour in CA_STATE_COLOURS.items()
    )
    slot = f"{data.slot_ms:g}"
    text = (
        "Every figure shares one time axis: drag or scroll in any of them to zoom the time axis of all "
        "(double-click or the reset tool to go back), click a legend entry to hide its line, and use the save "
        f"tool to download a figure as PNG. Per-slot values are over {html.escape(str(slot))} ms slots. "
        f"Shaded: the sender's CA state, <span class='legend'>{legend}</span> (Open is not shaded). "
        f"For display each line keeps at most {DISPLAY_POINTS} points (the first, smallest, largest and last "
        "of each time bucket); the Parquet files in the run folder hold every row."
    )
    if idle:
        text += (
            f" Link directions whose queue never held more than {QUEUE_IDLE_BELOW_BYTES} bytes and dropped "
            f"nothing (not drawn): {html.escape(', '.join(idle))}."
        )
    return f"<p class='note'>{text}</p>"


def _figure_sections(panel_list: Sequence[Panel], divs: Sequence[str]) -> list[str]:
    out, section = [], None
    for panel, div in zip(panel_list, divs, strict=True):
        if panel.section != section:
            section = panel.section
            out.append(f"<h3>{html.escape(section)}</h3>")
        out.append(f"<div class='figure' data-panel='{html.escape(panel.key)}'>{div}</div>")
    return out


def _summary_facts(summary: dict[str, Any]) -> dict[str, Any]:
    """The engine summary's scalar facts (nested tables are in the Parquet files)."""
    return {k: v for k, v in summary.items() if not isinstance(v, (dict, list))}


def _key_value_table(values: dict[str, Any], css: str) -> str:
    rows = "".join(
        f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>" for k, v in sorted(values.items())
    )
    return f"<table class='{css}'>{rows}</table>"


def write_run_report(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Write the report of the run folder ``run_dir`` to ``out`` (default ``run_dir/report.html``)."""
    data = RunData.load(run_dir)
    target = Path(out) if out is not None else Path(run_dir) / REPORT_FILE
    write_file_atomically(target, render_page(data).encode("utf-8"))
    return target


def write_pngs(run_dir: str | Path, folder: str | Path) -> list[Path]:
    """Every panel of the run folder ``run_dir`` as a PNG in ``folder`` (matplotlib, for papers)."""
    from cellcc.plots import panel_png

    data = RunData.load(run_dir)
    written = []
    for i, panel in enumerate(panels(data)[0]):
        path = Path(folder) / f"{i:02d}-{panel.file_name}"
        write_file_atomically(path, panel_png(panel, data.duration_s))
        written.append(path)
    return written
