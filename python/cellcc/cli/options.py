"""Arguments and options, defined once and shared by every command."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cellcc.scenario import DEFAULT_SET, bundled_names

_BUNDLED = ", ".join(bundled_names())
_DEFAULTS = ", ".join(DEFAULT_SET)

ScenarioArg = Annotated[
    str,
    typer.Argument(
        metavar="SCENARIO",
        help=f"A scenario file (.toml or .json) or a bundled scenario name ({_BUNDLED}).",
        show_default=False,
    ),
]
OptionalScenarioArg = Annotated[
    str,
    typer.Argument(
        metavar="SCENARIO",
        help=f"A scenario file, a bundled scenario name ({_BUNDLED}), or `default`: all of {_DEFAULTS}.",
    ),
]
SeedOpt = Annotated[
    int | None,
    typer.Option("--seed", min=0, help="Random seed; default: the scenario's `seed` field.", show_default=False),
]
SeedsOpt = Annotated[int, typer.Option("--seeds", min=1, help="Replications per CCA (seeds seed, seed+1, ...).")]
OutDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--out", help="Write the run to this folder (atomically; replaces an existing run).", show_default=False
    ),
]
OutTableOpt = Annotated[
    Path | None,
    typer.Option("--out", help="Also write the table to this .csv or .parquet file.", show_default=False),
]
CcaOpt = Annotated[
    str | None,
    typer.Option(
        "--cca",
        help="Comma-separated CCA names (see `cellcc ccas`); default: every registered CCA.",
        show_default=False,
    ),
]
WorkersOpt = Annotated[
    int | None,
    typer.Option("--workers", min=1, help="Worker processes; default: one per CPU.", show_default=False),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
VerboseOpt = Annotated[
    bool,
    typer.Option("--verbose", "-v", help="Describe each algorithm: what it does and what each parameter means."),
]
ReportFlagOpt = Annotated[
    bool,
    typer.Option("--report", help="Also write report.html into the --out folder (same page as `cellcc report DIR`)."),
]
