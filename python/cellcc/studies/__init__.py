"""Built-in studies: each seed paper's grid, run through the sweep machinery, with a report that
sets our result beside each of the paper's findings (``cellcc study NAME``).

One module per study; :data:`STUDIES` is the registry by command-line name.
"""

from __future__ import annotations

from pathlib import Path

from cellcc.errors import UserError
from cellcc.studies import atxutegi, li_celledge, li_jie_4g, malekzadeh, nor_maulana
from cellcc.studies.common import StudyModule, StudyOutcome, run_study

__all__ = ["DEFAULT_SEEDS", "QUICK_SEEDS", "STUDIES", "StudyOutcome", "run"]

#: Replications per grid point (issue 11: "all grid points, 10 seeds").
DEFAULT_SEEDS = 10
#: Replications in --quick mode: two, the fewest a confidence interval needs.
QUICK_SEEDS = 2

STUDIES: dict[str, StudyModule] = {m.NAME: m for m in (malekzadeh, nor_maulana, li_jie_4g, atxutegi, li_celledge)}  # type: ignore[misc]


def run(
    name: str, out: Path | None, *, seeds: int | None, quick: bool, jobs: int | None, progress: bool = True
) -> StudyOutcome:
    """Run study ``name`` into ``out`` (default ``results/studies/NAME``) and write its report."""
    if name not in STUDIES:
        raise UserError("NAME", name, f"one of {', '.join(STUDIES)}")
    n_seeds = seeds if seeds is not None else (QUICK_SEEDS if quick else DEFAULT_SEEDS)
    folder = out if out is not None else Path("results") / "studies" / name
    command = f"cellcc study {name} --out {folder}" + (f" --seeds {seeds}" if seeds is not None else "")
    command += " --quick" if quick else ""
    return run_study(STUDIES[name], folder, seeds=n_seeds, quick=quick, jobs=jobs, command=command, progress=progress)
