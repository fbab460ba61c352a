"""Experiment commands: ``cellcc sweep run|expand``, ``cellcc query``, ``cellcc report``,
``cellcc recommend``. Registered on the main app by :mod:`cellcc.cli.main`."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from cellcc.cli.errors import reported
from cellcc.errors import UserError

if TYPE_CHECKING:
    from cellcc.recommend import Recommendation

sweep_app = typer.Typer(
    help="Expand and run sweeps: a base scenario x axes by field path x seeds.", no_args_is_help=True
)

SweepArg = Annotated[Path, typer.Argument(metavar="FILE", help="A sweep file (.toml or .json).", show_default=False)]
StoreArg = Annotated[Path, typer.Argument(metavar="DIR", help="A sweep results folder.", show_default=False)]
JobsOpt = Annotated[
    int | None,
    typer.Option("--jobs", "-j", min=1, help="Worker processes (or Dask LocalCluster workers); default: one per CPU."),
]
DaskOpt = Annotated[
    str | None,
    typer.Option(
        "--dask",
        "--scheduler",
        help="Run on a Dask cluster: a scheduler address (tcp://host:port) or `local` for a LocalCluster.",
        show_default=False,
    ),
]


def _cell_text(value: object) -> str:
    """A value as a table cell: SQL NULL (None, pd.NA) as NULL, floats in 6 significant digits."""
    if value is None or type(value).__name__ == "NAType":
        return "NULL"
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def _frame_table(frame, title: str, limit: int = 50) -> Table:
    table = Table(title=title)
    for column in frame.columns:
        table.add_column(str(column), justify="right" if frame[column].dtype.kind in "fiu" else "left")
    # itertuples, not iterrows: a row as a Series would turn a NULL of a text column into NaN.
    for row in frame.head(limit).itertuples(index=False):
        table.add_row(*(_cell_text(v) for v in row))
    if len(frame) > limit:
        table.caption = f"{len(frame) - limit} more row(s) not shown"
    return table


def _ranking_table(rec: Recommendation, title: str) -> Table:
    """The recommendation's ranking: mean with its Student-t and bootstrap 95% intervals, the test."""
    from cellcc.recommend import OBJECTIVES

    obj = OBJECTIVES[rec.objective]
    table = Table(title=title)
    for heading in ("#", "cca", "seeds", f"{obj.metric}\nmean ± t 95%", "bootstrap\n95% interval", "p vs best\n(Holm)"):
        table.add_column(heading, justify="left" if heading == "cca" else "right")
    table.add_column("significantly\nworse")
    for _, row in rec.ranking.iterrows():
        m = obj.metric
        half = "" if math.isnan(row[f"{m}_ci95"]) else f" ± {row[f'{m}_ci95']:.3g}"
        p = row["p_value_vs_best"]
        table.add_row(
            str(row["rank"]),
            str(row["cca"]),
            str(row["n"]),
            f"{row[f'{m}_mean']:.4g}{half}",
            f"[{row[f'{m}_boot95_low']:.4g}, {row[f'{m}_boot95_high']:.4g}]",
            "-" if math.isnan(p) else f"{p:.2g}",
            "yes" if row["significant"] else "no" if row["cca"] != rec.ranking.iloc[0]["cca"] else "(best)",
        )
    return table


def _folder_kind(folder: Path) -> str:
    """``"sweep"`` (it has sweep.json) or ``"run"`` (summary.json and scenario.json); else a UserError."""
    if (folder / "sweep.json").is_file():
        return "sweep"
    if (folder / "summary.json").is_file() and (folder / "scenario.json").is_file():
        return "run"
    raise UserError(
        "DIR",
        json.dumps(str(folder)),
        "a run folder (summary.json and scenario.json: `cellcc run --out DIR`) or a sweep results folder (sweep.json)",
    )


def register(app: typer.Typer, out: Console) -> None:
    """Add the experiment commands to ``app``; tables print on ``out``."""

    @sweep_app.command("run")
    def sweep_run(
        file: SweepArg,
        out_dir: Annotated[Path, typer.Option("--out", "-o", help="Results folder (created or resumed).")],
        jobs: JobsOpt = None,
        dask: DaskOpt = None,
    ) -> None:
        """Run every run of FILE that --out does not hold yet (resumable; Ctrl-C keeps the store consistent).
        Several processes may run one sweep into one store at once: they split the runs."""
        from cellcc.runner import run_sweep
        from cellcc.sweep import Sweep

        with reported():
            outcome = run_sweep(Sweep.load(file), out_dir, workers=jobs, scheduler=dask)
            others = f", {outcome.by_others} run meanwhile by another process" if outcome.by_others else ""
            out.print(
                f"{outcome.total} runs: {outcome.ran} ran, {outcome.skipped} already in {out_dir}{others}; "
                f'query with: cellcc query {out_dir} "SELECT * FROM metrics"'
            )

    @sweep_app.command("expand")
    def sweep_expand(
        file: SweepArg, as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False
    ) -> None:
        """List the runs FILE expands to (key, seed, axis values) without running anything."""
        from cellcc.sweep import Sweep

        with reported():
            sweep = Sweep.load(file)
            rows = [{"key": r.key, "seed": r.seed, **r.params} for r in sweep.expand()]
            if as_json:
                typer.echo(json.dumps(rows, indent=1))
                return
            import pandas as pd

            out.print(_frame_table(pd.DataFrame(rows), f"{sweep.name}: {len(rows)} runs", limit=len(rows)))

    app.add_typer(sweep_app, name="sweep")

    @app.command()
    def query(
        store_dir: StoreArg,
        sql: Annotated[str, typer.Argument(metavar="SQL", help="DuckDB SQL over the store's views.")] = "",
        csv: Annotated[bool, typer.Option("--csv", help="Print CSV instead of a table.")] = False,
        export: Annotated[
            Path | None,
            typer.Option(
                "--export", help="Also write every view as a table into this .duckdb file.", show_default=False
            ),
        ] = None,
    ) -> None:
        """Query a sweep's results with SQL (DuckDB). Views: runs, flows, timeseries, queues, cwnd, rtt, pm,
        metrics, each with the sweep's axis columns. No SQL: list the views and their columns."""
        from cellcc.catalogue import Store

        with reported():
            store = Store.open(store_dir)
            if export is not None:
                out.print(f"wrote {store.export(export)} (open it with: duckdb {export})")
            if not sql:
                for name in store.tables():
                    cols = store.query(f"DESCRIBE {name}")["column_name"].tolist()
                    out.print(f"[bold]{name}[/]: {', '.join(cols)}")
                return
            if csv:
                typer.echo(store.query(sql).to_csv(index=False), nl=False)
            else:
                out.print(_frame_table(store.query_nullable(sql), sql))

    app.command("db", help="Alias of `query`.")(query)

    @app.command()
    def report(
        folder: Annotated[
            Path,
            typer.Argument(
                metavar="DIR",
                help="A run folder (`cellcc run --out`, `Result.save`) or a sweep results folder.",
                show_default=False,
            ),
        ],
        out_file: Annotated[
            Path | None,
            typer.Option(
                "--out",
                "-o",
                help="Report file: .html (self-contained) or, for a sweep, .md; default DIR/report.html.",
                show_default=False,
            ),
        ] = None,
        objective: ObjectiveOpt = "throughput",
        png: Annotated[
            Path | None,
            typer.Option(
                "--png", help="Run folder only: also write every figure as a PNG into this folder.", show_default=False
            ),
        ] = None,
    ) -> None:
        """Write the report of a run (time series on one zoomable time axis, flows, provenance) or of a sweep
        (ranking tables with 95% CIs, figures and the recommendation). A folder with sweep.json is a sweep;
        one with summary.json and scenario.json is a run."""
        with reported():
            kind = _folder_kind(folder)
            target = out_file if out_file is not None else folder / "report.html"
            suffixes = (".html",) if kind == "run" else (".html", ".md")
            if target.suffix.lower() not in suffixes:
                allowed = "a file ending in .html" + (" or .md" if kind == "sweep" else " (a run's report is HTML)")
                raise UserError("--out", json.dumps(str(target)), allowed)
            if kind == "run":
                from cellcc.runreport import write_pngs, write_run_report

                out.print(f"wrote {write_run_report(folder, target)}")
                if png is not None:
                    out.print(f"wrote {len(write_pngs(folder, png))} PNG figure(s) into {png}")
                return
            if png is not None:
                raise UserError("--png", json.dumps(str(png)), "a run folder's option (a sweep's figures are PNGs)")
            from cellcc.catalogue import Store
            from cellcc.report import write_report

            write_report(Store.open(folder), target, objective)
            out.print(f"wrote {target}")

    @app.command("recommend")
    def recommend_cmd(
        scenario: Annotated[str, typer.Argument(metavar="SCENARIO", help="A scenario file or bundled name.")],
        objective: ObjectiveOpt = "throughput",
        delay_budget_ms: Annotated[
            float | None,
            typer.Option("--delay-budget-ms", min=0, help="Leave out CCAs whose mean p95 RTT exceeds this."),
        ] = None,
        cca: Annotated[str | None, typer.Option("--cca", help="Comma-separated CCAs; default: all.")] = None,
        seeds: Annotated[int, typer.Option("--seeds", min=2, help="Replications per CCA (paired by seed).")] = 5,
        jobs: JobsOpt = None,
    ) -> None:
        """Run every CCA on SCENARIO over seeds and say which to use for --objective, with its confidence."""
        from cellcc.compare import compare_runs
        from cellcc.recommend import recommend

        with reported():
            runs = compare_runs(scenario, cca, seeds, workers=jobs, progress=True)
            rec = recommend(runs, objective, delay_budget_ms=delay_budget_ms)
            if not rec.ranking.empty:
                out.print(_ranking_table(rec, f"{scenario}: ranked by {objective}"))
            out.print(rec.verdict)
            out.print(f"Criterion: {rec.criterion}.")
            for line in rec.reasons:
                out.print(f"  {line}")


ObjectiveOpt = Annotated[
    str,
    typer.Option("--objective", help="What the recommendation ranks by: throughput, delay, pm or power."),
]
