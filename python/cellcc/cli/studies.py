"""``cellcc study NAME``: run one of the built-in seed studies and write its report.
Registered on the main app by :mod:`cellcc.cli.main`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from cellcc.cli.errors import reported

__all__ = ["register"]


def register(app: typer.Typer, out: Console) -> None:
    """Add ``study`` to ``app``; messages print on ``out``."""

    @app.command("study")
    def study(
        name: Annotated[
            str,
            typer.Argument(
                metavar="NAME",
                help="malekzadeh (seed 000), nor-maulana (001), li-jie-4g (002), atxutegi (003) or li-celledge (004).",
            ),
        ],
        out_dir: Annotated[
            Path | None,
            typer.Option("--out", "-o", help="Folder for the store and report; default results/studies/NAME."),
        ] = None,
        seeds: Annotated[
            int | None, typer.Option("--seeds", min=2, help="Replications per grid point; default 10 (quick: 2).")
        ] = None,
        quick: Annotated[bool, typer.Option("--quick", help="Few grid points and short runs (a smoke test).")] = False,
        jobs: Annotated[
            int | None, typer.Option("--jobs", "-j", min=1, help="Worker processes; default: one per CPU.")
        ] = None,
    ) -> None:
        """Run a seed study's grid on its paper's platform and on the other (docs/studies/README.md; resumable)
        and write report.md and report.html beside its store."""
        from cellcc import studies

        with reported():
            outcome = studies.run(name, out_dir, seeds=seeds, quick=quick, jobs=jobs)
            out.print(
                f"{name}: {outcome.runs} runs ({outcome.ran} ran now) in {outcome.wall_s:.0f} s; "
                f"wrote {outcome.report_md} and {outcome.report_html}"
            )
