"""Command-line pieces of the Linux backend: the `--backend` option of `cellcc run`/`compare`
and the `cellcc crosscheck` command. `cellcc.cli.main` calls in here; nothing else does."""

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
        help="engine (the simulator) or linux (real Linux TCP in network namespaces, needs root); "
        "default: the scenario's `backend` field, else engine.",
        show_default=False,
    ),
]
CrosscheckCcaOpt = Annotated[
    str,
    typer.Option("--cca", help="Comma-separated CCA names, run on both backends."),
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
    ("retransmits", "retransmissions", 0),
    ("timeouts", "RTOs", 0),
)


def _fmt(x: float, decimals: int) -> str:
    return "-" if x is None or math.isnan(x) else f"{x:,.{decimals}f}"


def crosscheck_tables(table: pd.DataFrame, scenario: str, seeds: int) -> list[Table]:
    """One rich table per CCA: engine, kernel, engine/kernel; differences > 10% marked."""
    out = []
    headings = {m: (h, d) for m, h, d in _ROWS}
    for cca, g in table.groupby("cca", sort=False):
        t = Table(title=f"{scenario}: {cca}, mean over {seeds} seed(s)")
        for col, justify in (("metric", "left"), ("engine", "right"), ("kernel", "right"), ("engine/kernel", "right")):
            t.add_column(col, justify=justify)
        for _, row in g.iterrows():
            heading, decimals = headings[row["metric"]]
            ratio = "-" if math.isnan(row["ratio"]) else f"{row['ratio']:.3f}" + (" *" if row["differs"] else "")
            t.add_row(heading, _fmt(row["engine"], decimals), _fmt(row["kernel"], decimals), ratio)
        note = g["note"].iloc[0]
        if note:
            t.caption = note
        out.append(t)
    return out


def crosscheck_command(scenario: str, cca: str, seeds: int, figure: Path | None, console: Console) -> None:
    from . import frontend

    sc = frontend.resolve(scenario)
    names = [c.strip() for c in cca.split(",") if c.strip()]
    path = figure or Path(f"crosscheck-{sc.name}.png")
    table, written = frontend.crosscheck(sc, names, seeds, path, progress=lambda m: console.log(m))
    for t in crosscheck_tables(table, sc.name, seeds):
        console.print(t)
    console.print("* engine and kernel differ by more than 10%")
    console.print(f"wrote {written}")


def chosen_backend(scenario: str, backend: str | None) -> str:
    """--backend if given, else the scenario's `backend` field (the bundled default set: engine)."""
    from cellcc.scenario import load_document

    if backend is None and scenario == "default":
        return "engine"
    if backend is not None:
        from . import frontend

        return frontend.backend_of({}, backend)
    # Only "linux" leaves the engine; any other value is the engine's to validate (and name).
    return "linux" if load_document(scenario)[0].get("backend") == "linux" else "engine"


def run_linux_command(scenario: str, seed: int | None, console: Console):
    """`cellcc run --backend linux`: one run on the kernel; returns the Result."""
    from . import frontend

    sc = frontend.resolve(scenario)
    result = frontend.run_linux(sc, sc.seed if seed is None else seed)
    return sc, result


def compare_linux_runs(scenario: str, cca: str | None, seeds: int) -> pd.DataFrame:
    """`cellcc compare --backend linux`: the per-run rows, one testbed at a time."""
    import pandas as pd

    from cellcc.compare import run_metrics
    from cellcc.scenario import DEFAULT_SET

    from . import frontend

    names = list(DEFAULT_SET) if scenario == "default" else [scenario]
    frames = [frontend.compare_runs_linux(frontend.resolve(n), cca, seeds, run_metrics) for n in names]
    return pd.concat(frames, ignore_index=True)
