"""What every study shares: its unstated parameters, its findings beside the paper's, running
its sweeps through :func:`cellcc.runner.run_sweep`, and writing its report.

A study (one module per seed, registered in :mod:`cellcc.studies`) provides:

- ``NAME``, ``TITLE``, ``SEED_FILE`` (the seed document in ``/work/shared/seeds``),
- ``sweeps(seeds, quick) -> list[SweepDef]``: its grid, as sweep documents over a base scenario,
- ``report(stores, quick) -> list[Block]``: its tables, figures, parameters and findings.

:func:`run_study` runs every sweep into ``OUT/store/<sweep name>/`` (resumable: a second call runs
only what is missing), then writes ``OUT/report.md`` (figures in ``OUT/report_figures/``) and the
self-contained ``OUT/report.html``, each by temp file + rename.

Verdicts: a finding *agrees* when our result has the paper's sign/ordering/trend (and, for a
difference between CCAs, when a paired t-test over seeds finds it at alpha = 0.05 if the paper
claims one); *differs* otherwise; *blocked* when the finding needs a model cellcc does not have
yet (the radio channel), so no run could test it.
"""

from __future__ import annotations

import enum
import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd

from cellcc.catalogue import Store
from cellcc.recommend import ALPHA
from cellcc.report import Block, render_html, render_markdown
from cellcc.runner import run_sweep
from cellcc.stats import mean_ci, paired_test
from cellcc.store import write_file_atomically
from cellcc.sweep import Sweep

__all__ = [
    "Finding",
    "Param",
    "StudyModule",
    "StudyOutcome",
    "SweepDef",
    "Verdict",
    "ci_text",
    "findings_blocks",
    "paired_difference",
    "params_block",
    "run_study",
]


#: Spreads below this fraction of the mean are rounding (identical replicates), shown as 0.
_SAME_RELATIVE = 1e-9


class Verdict(enum.Enum):
    """How our result stands against one of the paper's findings."""

    AGREES = "agrees"
    DIFFERS = "differs"
    BLOCKED = "blocked"


@dataclass(frozen=True)
class Param:
    """A parameter the paper leaves unstated (or states unusably), the value we chose and why."""

    name: str
    value: str
    reason: str


@dataclass(frozen=True)
class Finding:
    """One of the paper's findings, our result beside it, and the explanation of any difference."""

    claim: str
    paper: str
    ours: str
    verdict: Verdict
    explanation: str = ""


@dataclass(frozen=True)
class SweepDef:
    """One sweep of a study: a base scenario document and the sweep's axes/set/seeds."""

    name: str
    base: dict[str, Any]
    axes: list[dict[str, Any]]
    seeds: int
    fixed: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    #: "engine", or "linux": run on the kernel backend (root), one run at a time; a machine that
    #: cannot leaves the sweep out of the stores and the report says why.
    backend: str = "engine"


class StudyModule(Protocol):
    NAME: str
    TITLE: str
    SEED_FILE: str

    def sweeps(self, seeds: int, quick: bool) -> list[SweepDef]: ...

    def report(self, stores: dict[str, Store], quick: bool) -> list[Block]: ...


@dataclass(frozen=True)
class StudyOutcome:
    """What :func:`run_study` did and where it wrote."""

    runs: int
    ran: int
    wall_s: float
    report_md: Path
    report_html: Path


def build_sweep(definition: SweepDef, folder: Path) -> Sweep:
    """The :class:`Sweep` of ``definition``; its base scenario is written into ``folder`` (provenance)."""
    folder.mkdir(parents=True, exist_ok=True)
    base_file = folder / "base-scenario.json"
    _write_text(base_file, json.dumps(definition.base, indent=1, sort_keys=True) + "\n")
    doc = {
        "name": definition.name,
        "description": definition.description,
        "base": base_file.name,
        "seeds": definition.seeds,
        "set": definition.fixed,
        "axes": definition.axes,
    }
    return Sweep.from_dict(doc, base_dir=folder)


def run_study(
    study: StudyModule,
    out: Path,
    *,
    seeds: int,
    quick: bool,
    jobs: int | None,
    command: str,
    progress: bool = True,
) -> StudyOutcome:
    """Run every sweep of ``study`` into ``out/store`` and write its report (see the module doc)."""
    started = time.perf_counter()
    stores: dict[str, Store] = {}
    total = ran = 0
    simulated_s = 0.0
    for definition in study.sweeps(seeds, quick):
        folder = out / "store" / definition.name
        sweep = build_sweep(definition, folder)
        if definition.backend == "linux":
            from cellcc.backends.netns import Unsupported
            from cellcc.backends.sweep import run_linux_sweep

            try:
                outcome = run_linux_sweep(sweep, folder)
            except Unsupported:
                continue
        else:
            outcome = run_sweep(sweep, folder, workers=jobs, progress=progress)
        stores[definition.name] = outcome.store
        total += outcome.total
        ran += outcome.ran
        simulated_s += outcome.run_wall_s
    blocks = study.report(stores, quick)
    wall_s = time.perf_counter() - started
    blocks.insert(1, Block("p", _provenance_text(command, total, ran, wall_s, simulated_s, jobs)))
    md_path, html_path = out / "report.md", out / "report.html"
    text, figures = render_markdown(blocks, out / "report_figures")
    for name, png in figures.items():
        write_file_atomically(out / "report_figures" / name, png)
    _write_text(md_path, text)
    _write_text(html_path, render_html(blocks))
    return StudyOutcome(total, ran, wall_s, md_path, html_path)


def _provenance_text(command: str, total: int, ran: int, wall_s: float, run_wall_s: float, jobs: int | None) -> str:
    workers = jobs or os.cpu_count() or 1
    return (
        f"Regenerate with `{command}`. This invocation ran {ran} of the grid's {total} runs "
        f"(the others were already in the store) and took {wall_s:.0f} s wall time with {workers} worker(s); "
        f"the stored runs' own wall times sum to {run_wall_s:.0f} CPU-seconds of simulation."
    )


def params_block(params: Sequence[Param]) -> list[Block]:
    """The table of unstated parameters, the values chosen and the reasons."""
    table = pd.DataFrame([{"parameter": p.name, "our value": p.value, "why": p.reason} for p in params])
    return [Block("h2", "Parameters the paper leaves unstated, and our choices"), Block("table", table=table)]


def findings_blocks(findings: Sequence[Finding]) -> list[Block]:
    """The findings table (paper | ours | verdict) and one explanation per finding."""
    counts = {v: sum(f.verdict is v for f in findings) for v in Verdict}
    table = pd.DataFrame(
        [
            {"#": i + 1, "paper's finding": f.claim, "paper": f.paper, "cellcc": f.ours, "verdict": f.verdict.value}
            for i, f in enumerate(findings)
        ]
    )
    summary = ", ".join(f"{n} {v.value}" for v, n in counts.items() if n)
    items = [f"{i + 1}. ({f.verdict.value}) {f.explanation}" for i, f in enumerate(findings) if f.explanation]
    return [
        Block("h2", "The paper's findings beside ours"),
        Block("p", f"{len(findings)} findings: {summary}."),
        Block("table", table=table),
        Block("h3", "Why, finding by finding"),
        Block("list", items=items),
    ]


def ci_text(values: Sequence[float] | np.ndarray, fmt: str = "{:.3g}") -> str:
    """``mean ± half-width`` (Student t, 95%) of ``values``."""
    ci = mean_ci(values)
    if math.isnan(ci.half_width):
        return fmt.format(ci.mean)
    if ci.half_width <= _SAME_RELATIVE * abs(ci.mean):
        return f"{fmt.format(ci.mean)} ± 0"
    return f"{fmt.format(ci.mean)} ± {fmt.format(ci.half_width)}"


@dataclass(frozen=True)
class Difference:
    """``a - b`` paired by seed: the means, the relative difference and the test's p-value.

    ``exact``: every seed gave the same value for both groups (a deterministic result, where the
    paired test's p = 0 or 1 is a fact about the model, not a statistical inference).
    """

    mean_a: float
    mean_b: float
    p_value: float
    n: int
    exact: bool = False

    @property
    def relative(self) -> float:
        return (self.mean_a - self.mean_b) / self.mean_b if self.mean_b else math.nan

    @property
    def significant(self) -> bool:
        return not math.isnan(self.p_value) and self.p_value < ALPHA

    def text(self, unit: str = "", fmt: str = "{:.3g}") -> str:
        p = "n/a" if math.isnan(self.p_value) else f"{self.p_value:.2g}"
        rel = "n/a" if math.isnan(self.relative) else f"{self.relative:+.0%}"
        test = "identical on every seed" if self.exact else f"paired p = {p}"
        return f"{fmt.format(self.mean_a)} vs {fmt.format(self.mean_b)}{unit} ({rel}, {test})"


def paired_difference(runs: pd.DataFrame, by: str, a: str, b: str, metric: str) -> Difference:
    """Compare ``metric`` of group ``a`` with group ``b`` of column ``by``, paired by ``seed``."""
    wide = runs.pivot_table(index="seed", columns=by, values=metric, aggfunc="mean")
    if a not in wide or b not in wide:
        return Difference(math.nan, math.nan, math.nan, 0)
    x, y = wide[a].to_numpy(dtype=float), wide[b].to_numpy(dtype=float)
    test = paired_test(x, y)
    exact = len(x) > 1 and all(np.ptp(v) <= _SAME_RELATIVE * max(abs(float(np.mean(v))), 1.0) for v in (x, y))
    return Difference(float(np.mean(x)), float(np.mean(y)), test.p_value, test.n, exact)


def ordering_verdict(claim_a_greater: bool, diff: Difference, need_significance: bool = True) -> Verdict:
    """AGREES when ``a > b`` (or ``a < b``) as claimed, and significantly so if ``need_significance``."""
    if math.isnan(diff.mean_a) or math.isnan(diff.mean_b):
        return Verdict.DIFFERS
    same_sign = (diff.mean_a > diff.mean_b) == claim_a_greater and diff.mean_a != diff.mean_b
    return Verdict.AGREES if same_sign and (diff.significant or not need_significance) else Verdict.DIFFERS


def _write_text(path: Path, text: str) -> None:
    write_file_atomically(path, text.encode("utf-8"))


def figure(caption: str, draw: Callable[[], bytes]) -> Block:
    """A figure block (``draw`` returns PNG bytes)."""
    return Block("figure", caption, png=draw())
