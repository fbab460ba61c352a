"""``cellcc``: run, compare and validate scenarios; list congestion controls.

Every command prints one clear line and exits 2 on a user mistake
(see :mod:`cellcc.cli.errors`); `run` and `compare` stop on SIGINT / SIGTERM,
write nothing and exit 130 / 143 (see :mod:`cellcc.cli.signals`).

Start-up is kept short (`cellcc --version`, `validate`, `ccas` in well under 0.3 s):
modules that import pandas, numpy or scipy (runner, store, compare) are imported
inside the commands that use them.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from cellcc import _core
from cellcc.backends import cli as linux_cli
from cellcc.cli import experiments, live, render, studies
from cellcc.cli.errors import reported
from cellcc.cli.options import (
    CcaOpt,
    JsonOpt,
    OptionalScenarioArg,
    OutDirOpt,
    OutTableOpt,
    ReportFlagOpt,
    ScenarioArg,
    SeedOpt,
    SeedsOpt,
    VerboseOpt,
    WorkersOpt,
)
from cellcc.cli.signals import interruptible
from cellcc.errors import UserError
from cellcc.provenance import cellcc_version
from cellcc.registry import parse_cca_list
from cellcc.scenario import Scenario, bundled_names

app = typer.Typer(
    name="cellcc",
    help="Deterministic simulator of TCP congestion control. Scenarios are TOML or JSON files, "
    f"or a bundled name ({', '.join(bundled_names())}).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
#: Width of tables when stdout is not a terminal (logs, CI, pipes); a terminal uses its own width.
_PIPE_WIDTH = 120
_out = Console() if sys.stdout.isatty() else Console(width=_PIPE_WIDTH)

#: Table formats `compare --out` writes, by file suffix.
_TABLE_SUFFIXES = (".csv", ".parquet")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"cellcc {cellcc_version()} (engine {_core.engine_version()}, schema {_core.SCHEMA_VERSION})")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print versions and exit."),
) -> None:
    """cellcc command line."""


@app.command()
def run(
    scenario: ScenarioArg,
    seed: SeedOpt = None,
    out: OutDirOpt = None,
    backend: linux_cli.BackendOpt = None,
    report: ReportFlagOpt = False,
) -> None:
    """Simulate SCENARIO once and print per-flow results; --out writes summary, tables and pcaps
    (--report adds report.html: time series, flows and provenance on one page)."""
    with reported(), interruptible():
        from cellcc.runner import Job, run_jobs
        from cellcc.store import run_files, write_files

        if report and out is None:
            raise UserError("--report", "true", "with --out DIR (the report is written into the run folder)")
        chosen = linux_cli.chosen_backend(scenario, backend)
        if chosen != "engine":
            sc, result = linux_cli.run_linux_command(scenario, seed, _out, chosen)
        else:
            sc = Scenario.resolve(scenario)
            (result,) = run_jobs([Job(sc, sc.seed if seed is None else seed)], workers=1, description=sc.name)
        _out.print(render.flows_table(result.columns("flows"), f"{sc.name} (seed {result.seed})"))
        if out is not None:
            files = run_files(result)
            if report:
                from cellcc.runreport import REPORT_FILE, RunData, render_page

                files[REPORT_FILE] = render_page(RunData.from_result(result)).encode("utf-8")
            write_files(files, out)
            _out.print(f"wrote {out}")


@app.command()
def compare(
    scenario: OptionalScenarioArg = "default",
    cca: CcaOpt = None,
    seeds: SeedsOpt = 5,
    workers: WorkersOpt = None,
    out: OutTableOpt = None,
    backend: linux_cli.BackendOpt = None,
    objective: experiments.ObjectiveOpt = "throughput",
) -> None:
    """Rank CCAs on SCENARIO: every TCP flow runs each CCA for --seeds seeds; mean and 95% CI;
    then the recommendation for --objective (only when the best is significantly better)."""
    with reported(), interruptible():
        from cellcc.compare import compare_runs, summarise
        from cellcc.recommend import recommend

        _check_table_out(out)
        chosen = linux_cli.chosen_backend(scenario, backend)
        if chosen != "engine":
            runs = linux_cli.compare_linux_runs(scenario, cca, seeds, chosen)
        else:
            runs = compare_runs(None if scenario == "default" else scenario, cca, seeds, workers=workers, progress=True)
        table = summarise(runs)
        for name in dict.fromkeys(table["scenario"]):
            _out.print(render.compare_table(table, name, seeds))
            answer = recommend(runs[runs["scenario"] == name], objective)
            _out.print(f"[bold]{name}[/]: {escape(answer.verdict)}\n  ({escape(answer.criterion)})")
        if out is not None:
            _write_table(table, out)
            _out.print(f"wrote {out}")


def _check_table_out(out: Path | None) -> None:
    """Refuse an --out table the command could not write, before any run: a .csv or .parquet
    file whose nearest existing folder is a folder we may write in."""
    if out is None:
        return
    allowed = "a file ending in .csv or .parquet, in a folder that exists or can be made"
    if out.suffix.lower() not in _TABLE_SUFFIXES:
        raise UserError("--out", json.dumps(str(out)), allowed)
    folder = out.absolute().parent
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise UserError("--out", json.dumps(str(out)), allowed)


def _write_table(table, path: Path) -> None:
    """Write the comparison table atomically (temp file + rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        if path.suffix.lower() == ".csv":
            table.to_csv(tmp, index=False)
        else:
            table.to_parquet(tmp, index=False)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@app.command()
def crosscheck(
    scenario: ScenarioArg,
    cca: linux_cli.CrosscheckCcaOpt = "cubic,bbr,reno",
    seeds: SeedsOpt = 1,
    figure: linux_cli.FigureOpt = None,
    against: linux_cli.AgainstOpt = "linux",
    out: linux_cli.RunsOutOpt = None,
    max_seeds: linux_cli.MaxSeedsOpt = None,
    ci: linux_cli.CiOpt = None,
    tcp_profile: linux_cli.TcpProfileOpt = None,
) -> None:
    """Run SCENARIO per CCA on the engine and on real Linux TCP (root) or ns-3; compare; plot cwnd and throughput.

    On a Mahimahi trace path each seed starts the flows at its own phase of the trace's millisecond, on both backends.
    With --max-seeds, a CCA runs more seeds on both sides until its means are known to within --ci.
    """
    with reported():
        _check_table_out(out)
        runs = linux_cli.crosscheck_command(scenario, cca, seeds, figure, _out, against, max_seeds, ci, tcp_profile)
        if out is not None:
            _write_table(runs, out)
            _out.print(f"wrote {out}")


@app.command()
def validate(scenario: ScenarioArg, as_json: JsonOpt = False) -> None:
    """Check SCENARIO against the schema; --json prints the canonical form and, under `resolved`, every default used."""
    with reported():
        sc = Scenario.resolve(scenario)
        if as_json:
            typer.echo(json.dumps(sc.to_written_dict(), indent=2, sort_keys=True))
            return
        doc = sc.to_dict()
        typer.echo(
            f"ok: {sc.name}: {len(doc['nodes'])} nodes, {len(doc['links'])} links, {len(doc['flows'])} flows, "
            f"{doc['duration_s']} s; sha256 {sc.sha256[:16]}"
        )


@app.command()
def ccas(cca: CcaOpt = None, verbose: VerboseOpt = False, as_json: JsonOpt = False) -> None:
    """List the congestion controls: family, source and parameters with defaults."""
    with reported():
        wanted = parse_cca_list(cca)
        registry = [c for c in _core.ccas() if c["name"] in wanted]
        if as_json:
            typer.echo(json.dumps(registry, indent=2))
        elif verbose:
            for entry in registry:
                _out.print(render.cca_detail(entry))
        else:
            _out.print(render.ccas_table(registry))


experiments.register(app, _out)
studies.register(app, _out)
live.register(app, _out)


def main() -> None:
    """Console-script entry point."""
    app()
