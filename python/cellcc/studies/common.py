"""What every study shares: its unstated parameters, its findings beside the paper's, running
its sweeps through :func:`cellcc.runner.run_sweep`, and writing its report.

A study (one module per seed, registered in :mod:`cellcc.studies`) provides:

- ``NAME``, ``TITLE``, ``SEED_FILE`` (the seed document in ``/work/shared/seeds``),
- ``PLATFORM``: the :class:`Platform` the paper ran on (ns-3 LENA, or a real network: the default),
- ``sweeps(seeds, quick, platform) -> list[SweepDef]``: its grid on one platform, as sweep documents
  over a base scenario,
- ``report(stores, quick) -> list[Block]``: its tables, figures, parameters and findings, from
  ``stores[platform name][sweep name]``.

A study reproduces a paper on the platform the paper used, then shows what a real network changes:
:func:`run_study` runs every sweep under each of :data:`PLATFORMS` (the platform's profiles set on
every run, so the same grid runs on both) into ``OUT/store/<platform>/<sweep name>/`` (resumable: a
second call runs only what is missing), then writes ``OUT/report.md`` (figures in
``OUT/report_figures/``) and the self-contained ``OUT/report.html``, each by temp file + rename. The
report's findings are computed on each platform by the same code (:func:`platform_findings_blocks`).

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
from dataclasses import dataclass, field, replace
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
    "DEFAULT",
    "LENA",
    "PLATFORMS",
    "Finding",
    "Param",
    "Platform",
    "StudyModule",
    "StudyOutcome",
    "SweepDef",
    "Verdict",
    "ci_text",
    "other_platform",
    "paired_difference",
    "params_block",
    "platform_findings_blocks",
    "profile_changes",
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
class Platform:
    """What a study's runs stand for: a cell profile (docs/lte.md, "Profiles"), a Wi-Fi BSS profile
    (docs/wifi.md, "Differences from ns-3") and a TCP profile (docs/tcp.md, "The ns-3 profile"), set on
    every run. A study's own choices (its parameter table) are written in its scenarios and win over
    them; the profiles fill only what the study leaves unset."""

    name: str
    #: In prose ("... on ns-3 LENA with ns-3's TCP").
    label: str
    #: In a table's column heading.
    short: str
    cell_profile: str
    tcp_profile: str
    #: `bsses[].profile`: "standard" (IEEE 802.11-2020) or "ns3" (ns-3 3.44's departures from it).
    wifi_profile: str

    @property
    def runs_on_kernel(self) -> bool:
        """Whether a real Linux stack stands for this platform's TCP (a Linux-backend sweep runs only there)."""
        return self.tcp_profile == "linux"

    def settings(self, definition: SweepDef) -> dict[str, Any]:
        """The sweep settings (field path -> value) that put ``definition``'s runs on this platform: the
        cell profile where its scenario has cells, the BSS profile where it has BSSes, the TCP profile on the
        engine (a kernel is its own TCP)."""
        out: dict[str, Any] = {}
        if definition.base.get("cells"):
            out["cells[*].profile"] = self.cell_profile
        if definition.base.get("bsses"):
            out["bsses[*].profile"] = self.wifi_profile
        if definition.backend != "linux":
            out["tcp.profile"] = self.tcp_profile
        return out

    def apply(self, doc: dict[str, Any]) -> dict[str, Any]:
        """``doc`` (a scenario document) on this platform, in place; returned for chaining."""
        for cell in doc.get("cells", []):
            cell["profile"] = self.cell_profile
        for bss in doc.get("bsses", []):
            bss["profile"] = self.wifi_profile
        doc.setdefault("tcp", {})["profile"] = self.tcp_profile
        return doc


#: A network as operators run it (docs/lte.md: the `operator` cell profile) with Linux's TCP: the engine's default.
#: A BSS runs the standard's values.
DEFAULT = Platform(
    "default", "the default profile, an operator's cell with Linux TCP", "default", "operator", "linux", "standard"
)
#: ns-3.44 LENA (the `lena` cell profile) with ns-3.44's TCP (`tcp.profile = "ns3"`); a BSS runs ns-3.44's
#: Wi-Fi departures from the standard (`bsses[].profile = "ns3"`).
LENA = Platform("lena", "ns-3 LENA with ns-3's TCP", "LENA + ns-3 TCP", "lena", "ns3", "ns3")
#: Every study runs its grid on each.
PLATFORMS = (DEFAULT, LENA)


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
    PLATFORM: Platform

    def sweeps(self, seeds: int, quick: bool, platform: Platform) -> list[SweepDef]: ...

    def report(self, stores: dict[str, dict[str, Store]], quick: bool) -> list[Block]: ...


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
    """Run every sweep of ``study`` on every platform into ``out/store`` and write its report (see the module doc)."""
    started = time.perf_counter()
    stores: dict[str, dict[str, Store]] = {}
    total = ran = 0
    simulated_s = 0.0
    # The paper's platform first: its runs are the report's body.
    for platform in sorted(PLATFORMS, key=lambda p: p != study.PLATFORM):
        stores[platform.name] = {}
        for definition in study.sweeps(seeds, quick, platform):
            if definition.backend == "linux" and not platform.runs_on_kernel:
                continue
            folder = out / "store" / platform.name / definition.name
            on_platform = replace(definition, fixed={**platform.settings(definition), **definition.fixed})
            sweep = build_sweep(on_platform, folder)
            if definition.backend == "linux":
                from cellcc.backends.netns import Unsupported
                from cellcc.backends.sweep import run_linux_sweep

                try:
                    outcome = run_linux_sweep(sweep, folder)
                except Unsupported:
                    continue
            else:
                outcome = run_sweep(sweep, folder, workers=jobs, progress=progress)
            stores[platform.name][definition.name] = outcome.store
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
        f"Regenerate with `{command}`. This invocation ran {ran} of the {total} runs of the grid on its "
        f"{len(PLATFORMS)} platforms ({'; '.join(p.label for p in PLATFORMS)}; the others were already in the "
        f"store) and took {wall_s:.0f} s wall time with {workers} worker(s); the stored runs' own wall times sum to "
        f"{run_wall_s:.0f} CPU-seconds of simulation."
    )


def params_block(params: Sequence[Param]) -> list[Block]:
    """The table of unstated parameters, the values chosen and the reasons."""
    table = pd.DataFrame([{"parameter": p.name, "our value": p.value, "why": p.reason} for p in params])
    return [Block("h2", "Parameters the paper leaves unstated, and our choices"), Block("table", table=table)]


def other_platform(paper: Platform) -> Platform:
    """The platform a study runs beside its paper's."""
    return next(p for p in PLATFORMS if p is not paper)


def platform_findings_blocks(paper: Platform, findings: dict[str, Sequence[Finding]], note: str = "") -> list[Block]:
    """The findings on the paper's platform beside the paper's, each with its verdict on the other
    platform beside it, then "What the profile changes" (:func:`profile_changes`) with ``note`` (the
    study's account, from the other platform's runs, of what moved them).

    ``findings``: per platform name, the findings the study's one code computed from that platform's runs.
    """
    other = other_platform(paper)
    own, theirs = findings[paper.name], findings[other.name]
    return [*_findings_section(own, other, theirs), *_changes_section(paper, other, own, theirs, note)]


def _findings_section(findings: Sequence[Finding], other: Platform, theirs: Sequence[Finding]) -> list[Block]:
    counts = {v: sum(f.verdict is v for f in findings) for v in Verdict}
    rows = []
    for i, f in enumerate(findings):
        row = {"#": i + 1, "paper's finding": f.claim, "paper": f.paper, "cellcc": f.ours, "verdict": f.verdict.value}
        twin = _twin(f, theirs)
        row[f"verdict, {other.short}"] = twin.verdict.value if twin else "-"
        rows.append(row)
    summary = ", ".join(f"{n} {v.value}" for v, n in counts.items() if n)
    n_other = {v: sum(f.verdict is v for f in theirs) for v in Verdict}
    intro = (
        f"{len(findings)} findings: {summary}. The last column is the verdict the same code gives on the same grid "
        f"run on {other.label} ({', '.join(f'{n} {v.value}' for v, n in n_other.items() if n)}; see 'What the "
        "profile changes')."
    )
    items = [f"{i + 1}. ({f.verdict.value}) {f.explanation}" for i, f in enumerate(findings) if f.explanation]
    return [
        Block("h2", "The paper's findings beside ours"),
        Block("p", intro),
        Block("table", table=pd.DataFrame(rows)),
        Block("h3", "Why, finding by finding"),
        Block("list", items=items),
    ]


def _twin(finding: Finding, others: Sequence[Finding]) -> Finding | None:
    """The finding of the same claim in ``others`` (the same code on another platform)."""
    return next((f for f in others if f.claim == finding.claim), None)


def profile_changes(own: Sequence[Finding], theirs: Sequence[Finding]) -> list[tuple[int, Finding, Finding]]:
    """The findings whose verdict differs between two platforms: (number from 1, ours, theirs)."""
    moved = []
    for i, f in enumerate(own):
        twin = _twin(f, theirs)
        if twin is not None and twin.verdict is not f.verdict:
            moved.append((i + 1, f, twin))
    return moved


def _changes_section(
    paper: Platform, other: Platform, own: Sequence[Finding], theirs: Sequence[Finding], note: str
) -> list[Block]:
    moved = profile_changes(own, theirs)
    head = Block("h2", "What the profile changes")
    intro = (
        f"The paper's platform is {paper.label}; the same grid also ran on {other.label} "
        f"(docs/lte.md 'Profiles', docs/tcp.md 'The ns-3 profile'; the study's own choices, in the parameter "
        f"table, are the same on both). "
    )
    if not moved:
        return [
            head,
            Block("p", intro + f"No finding's verdict moves between the two: all {len(own)} hold or fail alike."),
            *([Block("p", note)] if note else []),
        ]
    table = pd.DataFrame(
        [
            {
                "#": n,
                "paper's finding": f.claim,
                f"cellcc, {paper.short}": f.ours,
                f"verdict, {paper.short}": f.verdict.value,
                f"cellcc, {other.short}": t.ours,
                f"verdict, {other.short}": t.verdict.value,
            }
            for n, f, t in moved
        ]
    )
    return [
        head,
        Block(
            "p",
            intro + f"{len(moved)} of {len(own)} findings change verdict between the two: these depend on the "
            "simulator (how it models the cell and TCP), not on the congestion control alone. The others hold or "
            "fail alike on both.",
        ),
        Block("table", table=table),
        *([Block("p", note)] if note else []),
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
