"""``cellcc live serve|run|replay|estimate|keygen``: live measurement (docs/live.md).
Registered on the main app by :mod:`cellcc.cli.main`."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from cellcc.cli.errors import reported

__all__ = ["register"]

live_app = typer.Typer(
    help="Live measurement: a server on a wired host, plans run from the measuring host, replays.",
    no_args_is_help=True,
)
PlanArg = Annotated[Path, typer.Argument(metavar="PLAN", help="A live plan (.toml).", show_default=False)]


def register(app: typer.Typer, out: Console) -> None:
    """Add ``live`` to ``app``; tables print on ``out``."""

    @live_app.command("serve")
    def serve(
        config: Annotated[Path, typer.Option("--config", "-c", help="The server's TOML file (keys, limits, ports).")],
    ) -> None:
        """Serve live measurements until interrupted (Ctrl-C)."""
        from cellcc.live.config import load_server_config
        from cellcc.live.server import serve as run_server

        with reported():
            cfg = load_server_config(config)
            try:
                run_server(cfg, announce=lambda line: out.print(line, highlight=False))
            except KeyboardInterrupt:
                out.print("stopped")
            except OSError as e:
                from cellcc.errors import UserError

                raise UserError(
                    "--config", f"port {cfg.port}", f"a port this host can listen on ({e.strerror})"
                ) from None

    @live_app.command("keygen")
    def keygen(
        key_id: Annotated[str, typer.Argument(metavar="ID", help="The key's name (the server logs it).")],
        file: Annotated[Path, typer.Option("--out", "-o", help="Write the key file here (mode 0600).")],
    ) -> None:
        """Write a new pre-shared key file; give the same file to the server (its keys table) and the client."""
        import os

        from cellcc.errors import UserError
        from cellcc.live.config import new_key_toml

        with reported():
            if file.exists():
                raise UserError("--out", str(file), "a file that does not exist yet (keys are never overwritten)")
            fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(new_key_toml(key_id))
            out.print(f"wrote {file}")

    @live_app.command("estimate")
    def estimate(plan_file: PlanArg) -> None:
        """Print the plan's runs and bytes (transfers and the saturator), per place and in all."""
        from cellcc.live import plan

        with reported():
            p = plan.load(plan_file)
            runs = p.runs()
            total = sum(p.run_bytes(r) for r in runs)
            table = Table(title=f"{p.name}: {len(runs)} runs, about {total / 1e9:.1f} GB")
            for col in ("place", "runs", "GB"):
                table.add_column(col, justify="left" if col == "place" else "right")
            for place in p.places:
                mine = [r for r in runs if r.place == place]
                table.add_row(place, str(len(mine)), f"{sum(p.run_bytes(r) for r in mine) / 1e9:.2f}")
            out.print(table)

    @live_app.command("run")
    def run(
        plan_file: PlanArg,
        out_dir: Annotated[
            Path | None, typer.Option("--out", "-o", help="Results store; default results/live/NAME.")
        ] = None,
        place: Annotated[str | None, typer.Option("--place", help="Where this host is now (a plan place).")] = None,
        period: Annotated[str | None, typer.Option("--period", help="Default: the one whose window holds now.")] = None,
        outside_window: Annotated[
            bool, typer.Option("--outside-window", help="Run --period even outside its window.")
        ] = False,
        max_runs: Annotated[int | None, typer.Option("--max-runs", min=1, help="Run at most this many now.")] = None,
    ) -> None:
        """Run the plan's missing runs for one place and period (resumable); results as a sweep store."""
        from cellcc.live import plan
        from cellcc.live.run import run_plan

        with reported():
            p = plan.load(plan_file)
            folder = out_dir or Path("results") / "live" / p.name
            o = run_plan(
                p,
                folder,
                place=place,
                period=period,
                outside_window=outside_window,
                max_runs=max_runs,
                log=lambda line: out.print(line, highlight=False),
            )
            out.print(
                f"{o.ran} runs now, {o.skipped} already in {folder}; cellcc query {folder} / cellcc report {folder}"
            )

    @live_app.command("replay")
    def replay_cmd(
        run_dir: Annotated[Path, typer.Argument(metavar="RUN", help="A live run folder, or a live results store.")],
        seeds: Annotated[int, typer.Option("--seeds", min=1, help="Replays per backend (start phases differ).")] = 1,
        kernel: Annotated[
            bool, typer.Option("--kernel/--no-kernel", help="Also replay on the Linux backend (root).")
        ] = True,
        table_out: Annotated[Path | None, typer.Option("--out", help="Also write the table (.csv).")] = None,
    ) -> None:
        """Replay recorded runs on the engine and the kernel; live, engine and kernel side by side."""
        from cellcc.live.replay import compare_runs

        with reported():
            frame = compare_runs(run_dir, seeds, kernel, progress=lambda m: out.log(m))
            for run_key, g in frame.groupby("run", sort=False):
                t = Table(title=f"live run {run_key}")
                for col in ("metric", "live", "engine", "kernel", "engine/live", "kernel/live"):
                    t.add_column(col, justify="left" if col == "metric" else "right")
                for _, row in g.iterrows():
                    t.add_row(
                        row["metric"],
                        *(_fmt(row[c]) for c in ("live", "engine", "kernel", "engine/live", "kernel/live")),
                    )
                notes = {
                    f"{side}: {g[f'error_{side}'].iloc[0]}"
                    for side in ("engine", "kernel")
                    if g[f"error_{side}"].iloc[0]
                }
                t.caption = "; ".join(sorted(notes)) or None
                out.print(t)
            if table_out is not None:
                frame.to_csv(table_out, index=False)
                out.print(f"wrote {table_out}")

    app.add_typer(live_app, name="live")


def _fmt(x: float) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:,.3g}"
