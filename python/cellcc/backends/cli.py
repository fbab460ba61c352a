"""Command-line pieces of the Linux and ns-3 backends: the `--backend` option of `cellcc run`/`compare`
and the `cellcc crosscheck --against` command. `cellcc.cli.main` calls in here; nothing else does."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    import pandas as pd

# The backend itself (pandas, numpy, the namespace machinery) loads only when a command uses
# it: `cellcc --version` and `cellcc validate` import this module for its options alone.

BackendOpt = Annotated[
    str | None,
    typer.Option(
        "--backend",
        help="engine (the simulator), linux (real Linux TCP in network namespaces, needs root) or "
        "ns3 (ns-3 3.44, pip install 'cellcc[ns3]'); default: the scenario's `backend` field, else engine.",
        show_default=False,
    ),
]
CrosscheckCcaOpt = Annotated[
    str,
    typer.Option("--cca", help="Comma-separated CCA names, run on both backends."),
]
AgainstOpt = Annotated[
    str,
    typer.Option("--against", help="The backend to hold the engine against: linux (needs root) or ns3."),
]
RunsOutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out",
        help="Also write every run's metrics (one row per backend, CCA and seed) to this .csv or .parquet file.",
        show_default=False,
    ),
]
MaxSeedsOpt = Annotated[
    int | None,
    typer.Option(
        "--max-seeds",
        min=1,
        help="Keep adding seeds, up to this many per CCA, until each side's mean of every compared metric "
        "is known to within --ci (95% interval); default: --seeds (no more).",
        show_default=False,
    ),
]
CiOpt = Annotated[
    float | None,
    typer.Option(
        "--ci",
        help="With --max-seeds: the 95% interval's half-width to reach, as a fraction of the mean "
        "(default 0.1, crosscheck.REL_CI).",
        show_default=False,
    ),
]
TcpProfileOpt = Annotated[
    str | None,
    typer.Option(
        "--tcp-profile",
        help="Run both sides with this tcp.profile: linux (the engine's default) or ns3 (ns-3.44's TCP on the "
        "engine too; docs/tcp.md); default: the scenario's own.",
        show_default=False,
    ),
]
FigureOpt = Annotated[
    Path | None,
    typer.Option(
        "--figure",
        help="Where to write the cwnd/throughput figure (.png); default: crosscheck-<scenario>.png.",
        show_default=False,
    ),
]

#: (metric, heading, decimals) of the crosscheck table.
_ROWS = (
    ("throughput_mbps", "throughput Mbit/s", 2),
    ("rtt_p50_ms", "RTT p50 ms (srtt, 10 ms grid)", 1),
    ("rtt_p95_ms", "RTT p95 ms (srtt, 10 ms grid)", 1),
    ("delay_ms", "one-way delay ms", 1),
    ("retransmits", "retransmissions", 0),
    # A mean over seeds: one RTO in two runs must read 0.5, not round to 0.
    ("timeouts", "RTOs", 1),
    ("wall_s", "wall time s", 3),
)


def _fmt(x: float, decimals: int) -> str:
    return "-" if x is None or math.isnan(x) else f"{x:,.{decimals}f}"


def _ratio(row: pd.Series, seeds: int) -> str:
    """engine/other, `*` when a bar is missed, `in range` when the engine's mean still lies inside
    the other side's per-seed range (the miss is then within that backend's own spread)."""
    ratio = "-" if math.isnan(row["ratio"]) else f"{row['ratio']:.3f}"
    if not row["differs"]:
        return ratio
    return ratio + (" * in range" if seeds > 1 and row["in_range"] else " *")


def _runs(g: pd.DataFrame, label: str) -> str:
    """How many seeds each side ran for one CCA (`--max-seeds` may have added some)."""
    e, k = int(g["engine_runs"].iloc[0]), int(g[f"{label}_runs"].iloc[0])
    return f"{e} seed(s)" if e == k else f"{e} (engine) / {k} ({label}) seeds"


def crosscheck_tables(table: pd.DataFrame, scenario: str, label: str = "kernel") -> list[Table]:
    """One rich table per CCA: engine, the other backend (`label`), their ratio, bars missed marked
    `*` (see `_ratio`); when some side ran several seeds also the other side's per-seed range and
    each mean's 95% interval half-width."""
    out = []
    headings = {m: (h, d) for m, h, d in _ROWS}
    seeds = int(table[["engine_runs", f"{label}_runs"]].to_numpy().max())
    columns = [("metric", "left"), ("engine", "right"), (label, "right"), (f"engine/{label}", "right")]
    if seeds > 1:
        columns += [(f"{label} per seed", "right"), (f"95% CI ± engine / {label}", "right")]
    for cca, g in table.groupby("cca", sort=False):
        t = Table(title=f"{scenario}: {cca}, mean over {_runs(g, label)}")
        for col, justify in columns:
            t.add_column(col, justify=justify)
        for _, row in g.iterrows():
            heading, decimals = headings[row["metric"]]
            cells = [heading, _fmt(row["engine"], decimals), _fmt(row[label], decimals), _ratio(row, seeds)]
            if seeds > 1:
                cells.append(f"{_fmt(row[f'{label}_min'], decimals)} - {_fmt(row[f'{label}_max'], decimals)}")
                cells.append(f"{_fmt(row['engine_ci'], decimals)} / {_fmt(row[f'{label}_ci'], decimals)}")
            t.add_row(*cells)
        note = g["note"].iloc[0]
        if note:
            t.caption = note
        out.append(t)
    return out


def handover_table(h: pd.DataFrame, scenario: str, label: str) -> Table:
    """A network's handovers on both sides (`crosscheck.handover_table`), the first seed's."""
    t = Table(title=f"{scenario}: handovers (first seed), {label}'s measurement trace on both sides")
    for col in (
        "cca",
        "ue",
        "engine",
        label,
        "engine t s",
        f"{label} t s",
        "|diff| ms",
        "within 1 TTI",
        "interruption ms",
    ):
        t.add_column(col, justify="left" if col in ("cca", "ue", "engine", label) else "right")
    for r in h.itertuples(index=False):
        row = r._asdict()
        t.add_row(
            row["cca"],
            str(row["ue"]),
            row["engine_cells"],
            row[f"{label}_cells"],
            _fmt(row["engine_t_s"], 3),
            _fmt(row[f"{label}_t_s"], 6),
            _fmt(row["diff_ms"], 3),
            "yes" if row["within_tti"] else "**no**",
            f"{_fmt(row['engine_interruption_ms'], 1)} / {_fmt(row[f'{label}_interruption_ms'], 3)}",
        )
    return t


def crosscheck_command(
    scenario: str,
    cca: str,
    seeds: int,
    figure: Path | None,
    console: Console,
    against: str = "linux",
    max_seeds: int | None = None,
    rel_ci: float | None = None,
    tcp_profile: str | None = None,
) -> pd.DataFrame:
    """Run and print the crosscheck; returns every run's metrics (`crosscheck.per_seed`)."""
    from . import crosscheck as xc
    from . import frontend

    sc = frontend.resolve(scenario)
    if tcp_profile is not None:
        sc = frontend.DocScenario(xc.with_tcp_profile(sc.to_dict(), tcp_profile), sc.source)
    names = [c.strip() for c in cca.split(",") if c.strip()]
    path = figure or Path(f"crosscheck-{sc.name}.png")
    table, runs, written = frontend.crosscheck(
        sc, names, seeds, path, progress=lambda m: console.log(m), against=against, max_seeds=max_seeds, rel_ci=rel_ci
    )
    label = frontend.AGAINST[against]
    for t in crosscheck_tables(table, sc.name, label):
        console.print(t)
    if "handovers" in table.attrs:
        console.print(handover_table(table.attrs["handovers"], sc.name, label))
    console.print(
        f"* engine and {label} miss the bar: more than 10% apart (throughput, RTT), 20% (delay), 25% "
        f"(retransmissions), or a count where {label} had none (retransmissions, RTOs); in range: the "
        f"engine's mean is inside {label}'s per-seed range"
    )
    console.print(f"wrote {written}")
    return runs


def chosen_backend(scenario: str, backend: str | None) -> str:
    """--backend if given, else the scenario's `backend` field (the bundled default set: engine)."""
    from cellcc.scenario import load_document

    if backend is None and scenario == "default":
        return "engine"
    if backend is not None:
        from . import frontend

        return frontend.backend_of({}, backend)
    # Only "linux" and "ns3" leave the engine; any other value is the engine's to validate (and name).
    chosen = load_document(scenario)[0].get("backend")
    return chosen if chosen in ("linux", "ns3") else "engine"


def run_linux_command(scenario: str, seed: int | None, console: Console, backend: str = "linux"):
    """`cellcc run --backend linux|ns3`: one run on that backend; returns the Result."""
    from . import frontend

    sc = frontend.resolve(scenario)
    result = frontend.run_on(backend, sc, sc.seed if seed is None else seed)
    for note in result.summary.get("notes", []):
        console.print(f"note ({backend}): {note}")
    return sc, result


def compare_linux_runs(scenario: str, cca: str | None, seeds: int, backend: str = "linux") -> pd.DataFrame:
    """`cellcc compare --backend linux|ns3`: the per-run rows, one run at a time."""
    import pandas as pd

    from cellcc.compare import run_metrics
    from cellcc.scenario import DEFAULT_SET

    from . import frontend

    names = list(DEFAULT_SET) if scenario == "default" else [scenario]
    frames = [frontend.compare_runs_linux(frontend.resolve(n), cca, seeds, run_metrics, backend) for n in names]
    return pd.concat(frames, ignore_index=True)
