"""The Linux and ns-3 backends behind the front end: `cellcc run/compare --backend linux|ns3` (or a
scenario's `backend = "linux"|"ns3"`) and `cellcc crosscheck --against linux|ns3`. Results are the
front end's `Result`, so every table, plot and statistic works on every backend.

A scenario for the Linux backend may name any congestion control the running kernel offers,
including ones the engine does not register yet, so it is validated by the engine with its CCAs
set aside (structure, ranges, references), and its CCAs are checked against the kernel.
"""

from __future__ import annotations

import copy
import hashlib
import json
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from cellcc import _core
from cellcc.errors import UserError
from cellcc.provenance import provenance
from cellcc.result import Result
from cellcc.scenario import Scenario, load_document

from . import crosscheck as xc
from . import linux
from .netns import Unsupported
from .ns3 import build as ns3_build
from .ns3 import lte as ns3_lte
from .ns3 import plan as ns3_plan
from .ns3 import run as ns3_run
from .output import BackendRunOutput
from .plan import NotSupported, kernel_ccas

BACKENDS = ("engine", "linux", "ns3")
#: Backends `cellcc crosscheck --against` compares the engine with, and their column label.
AGAINST = {"linux": "kernel", "ns3": "ns3"}


class DocScenario:
    """A scenario document the engine validated structurally; its CCAs may be kernel-only.
    Offers what `Result` and the store use of a `Scenario` (name, seed, json, sha256, to_dict)."""

    def __init__(self, doc: dict[str, Any], source: str):
        # A run's scenario.json given back: its `resolved` table is re-derived (to_written_dict).
        doc = {k: v for k, v in doc.items() if k != "resolved"}
        neutral = copy.deepcopy(doc)
        flows = neutral.get("flows")
        for f in flows if isinstance(flows, list) else []:
            if isinstance(f, dict):
                f.pop("cca", None)
                f.pop("cca_params", None)
        canonical = json.loads(_core.validate(json.dumps(neutral)))
        for f_doc, f_can in zip(doc["flows"], canonical["flows"], strict=True):
            f_can["cca"], f_can["cca_params"] = f_doc.get("cca"), f_doc.get("cca_params")
        self._doc = canonical
        self.source = source
        self.json = json.dumps(canonical, sort_keys=True)
        self.sha256 = hashlib.sha256(self.json.encode()).hexdigest()

    @property
    def name(self) -> str:
        return self._doc.get("name") or Path(self.source).stem

    @property
    def seed(self) -> int:
        return int(self._doc["seed"])

    def to_dict(self) -> dict[str, Any]:
        return copy.deepcopy(self._doc)

    def with_cca(self, cca: str) -> DocScenario:
        return DocScenario(xc.with_cca(self._doc, cca), self.source)

    def to_written_dict(self) -> dict[str, Any]:
        """The document plus the engine's resolution of its defaults (`Scenario.to_written_dict`).
        A flow whose CCA only the kernel has keeps its name there and no `cca_params`: the
        kernel module's own parameters apply, which the engine cannot know."""
        engine_ccas = {c["name"] for c in _core.ccas()}
        doc = self.to_dict()
        foreign = [i for i, f in enumerate(doc["flows"]) if f.get("cca") and f["cca"] not in engine_ccas]
        for i in foreign:
            doc["flows"][i]["cca"] = doc["flows"][i]["cca_params"] = None
        resolved = json.loads(_core.resolve(json.dumps(doc)))
        for i in foreign:
            resolved["flows"][i]["cca"] = self._doc["flows"][i]["cca"]
            resolved["flows"][i].pop("cca_params", None)
        return {**self.to_dict(), "resolved": resolved}


def resolve(spec: str | Path | dict[str, Any]) -> DocScenario:
    """A scenario file, bundled name or dict (read by the one loader, `cellcc.scenario`),
    validated by the engine except for its CCAs."""
    doc, source = load_document(spec)
    return DocScenario(doc, source)


def backend_of(doc: dict[str, Any], choice: str | None) -> str:
    """The CLI's --backend if given, else the scenario's `backend` field (default engine)."""
    name = choice or doc.get("backend") or "engine"
    if name not in BACKENDS:
        raise UserError("--backend", json.dumps(name), " or ".join(BACKENDS))
    return name


def run_linux(sc: DocScenario, seed: int) -> Result:
    """Run on the Linux backend; refusals become one-line user errors."""
    try:
        out = linux.run(sc.to_dict(), seed=seed)
    except NotSupported as e:
        raise UserError(e.path, json.dumps(e.value, default=str), f"(linux backend) {e.why}") from None
    except Unsupported as e:
        raise UserError("--backend", '"linux"', str(e)) from None
    return _result(sc, seed, out, "linux")


def run_ns3(sc: DocScenario, seed: int) -> Result:
    """Run on ns-3; refusals become one-line user errors."""
    return _result(sc, seed, _ns3_output(sc, seed), "ns3")


def _ns3_output(sc: DocScenario, seed: int) -> BackendRunOutput:
    """The ns-3 backend's tables of one run; refusals become one-line user errors."""
    try:
        return ns3_run.run(sc.to_dict(), seed=seed, base_dir=Path(sc.source).parent)
    except ns3_plan.NotSupported as e:
        raise UserError(e.path, json.dumps(e.value, default=str), f"(ns3 backend) {e.why}") from None
    except ns3_build.DriverUnavailable as e:
        raise UserError("--backend", '"ns3"', str(e).splitlines()[0]) from None


def _result(sc: DocScenario, seed: int, out: BackendRunOutput, backend: str) -> Result:
    """A backend's tables as a Result, its provenance naming the backend."""
    return Result(
        scenario=sc,  # type: ignore[arg-type]  # duck-typed Scenario, see DocScenario
        seed=seed,
        summary=out.summary,
        provenance=provenance(sc.sha256, sc.name, seed) | {"backend": backend},
        flows=out.flows,
        timeseries=out.timeseries,
        queues=out.queues,
        cwnd=out.cwnd,
        rtt=out.rtt,
        lte=out.lte,
        handovers=out.handovers,
        wifi=out.wifi,
    )


def run_on(backend: str, sc: DocScenario, seed: int) -> Result:
    """One run on a non-engine backend."""
    return run_ns3(sc, seed) if backend == "ns3" else run_linux(sc, seed)


def parse_kernel_ccas(text: str | None) -> list[str]:
    available = kernel_ccas()
    if text is None:
        return available
    names = list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    if not names:
        raise UserError("--cca", json.dumps(text), f"a comma-separated list of: {', '.join(available)}")
    return names


def parse_ccas(backend: str, text: str | None) -> list[str]:
    if backend == "linux":
        return parse_kernel_ccas(text)
    if text is None:
        return list(ns3_plan.NS3_CCAS)
    return list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))


def compare_runs_linux(
    sc: DocScenario,
    ccas: str | None,
    seeds: int,
    run_metrics: Callable[[Result], dict[str, float]],
    backend: str = "linux",
) -> pd.DataFrame:
    """Like the engine's compare_runs, one run at a time (real time, one testbed at once)."""
    rows = []
    for cca in parse_ccas(backend, ccas):
        for k in range(seeds):
            result = run_on(backend, sc.with_cca(cca), sc.seed + k)
            rows.append({"scenario": sc.name, "cca": cca, "seed": sc.seed + k, **run_metrics(result)})
    return pd.DataFrame(rows)


def _engine_runner(source: str, against: str) -> xc.Runner:
    """The engine side of a crosscheck; against ns-3 its cells run under the LENA profile, as the
    ns-3 side does (ns3.lte.as_lena), so the two compare like for like."""
    # Imported here, not in `run`, so the first run's wall time does not include loading pandas.
    from cellcc.runner import run_one

    def run(doc: dict, seed: int) -> Result:
        if against == "ns3":
            doc, _ = ns3_lte.as_lena(doc)
        return run_one(Scenario(json.dumps(doc), source), seed)

    return run


def _other_runner(source: str, against: str) -> xc.Runner:
    return lambda doc, seed: run_on(against, DocScenario(doc, source), seed)


def _network_runners(source: str, folder: Path) -> tuple[xc.Runner, xc.Runner]:
    """A network against ns-3: (engine, ns-3) runners where ns-3 runs first and its UEs' layer 1
    RSRP samples become the engine's measurement trace of the same seed (written into `folder`,
    `network.handover.measurements`), so both sides decide handovers on the same samples."""
    from cellcc.runner import run_one

    traces: dict[int, pd.DataFrame] = {}

    def ns3(doc: dict, seed: int) -> Result:
        ds = DocScenario(doc, source)
        out = _ns3_output(ds, seed)
        traces[seed] = out.measurements
        return _result(ds, seed, out, "ns3")

    def engine(doc: dict, seed: int) -> Result:
        doc, _ = ns3_lte.as_lena(doc)
        file = folder / f"measurements-seed{seed}.csv"
        traces[seed].to_csv(file, index=False)
        doc["network"].setdefault("handover", {})["measurements"] = {"kind": "csv", "file": str(file)}
        return run_one(Scenario(json.dumps(doc), source), seed)

    return engine, ns3


def crosscheck(
    sc: DocScenario,
    ccas: Sequence[str],
    seeds: int,
    figure: Path,
    progress: Callable[[str], None] = lambda _: None,
    against: str = "linux",
    max_seeds: int | None = None,
    rel_ci: float | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, Path]:
    """The engine and `against` (linux or ns3) per CCA: the comparison table, every run's metrics
    (`crosscheck.per_seed`) and the written figure. `seeds` runs at least; with `max_seeds` above
    it, up to that many until each side's means are known to within `rel_ci` (`crosscheck.unsettled`)."""
    if against not in AGAINST:
        raise UserError("--against", json.dumps(against), " or ".join(AGAINST))
    max_seeds = seeds if max_seeds is None else max_seeds
    rel_ci = xc.REL_CI if rel_ci is None else rel_ci
    if max_seeds < seeds:
        raise UserError("--max-seeds", str(max_seeds), f"at least --seeds ({seeds})")
    if not 0 < rel_ci < 1:
        raise UserError("--ci", str(rel_ci), "a fraction of the mean between 0 and 1 (0.1: within ±10%)")
    label = AGAINST[against]
    network = against == "ns3" and bool(sc.to_dict().get("network"))
    with tempfile.TemporaryDirectory(prefix="cellcc-crosscheck-") as folder:
        engine, other = (
            _network_runners(sc.source, Path(folder))
            if network
            else (_engine_runner(sc.source, against), _other_runner(sc.source, against))
        )
        results = xc.crosscheck(
            sc.to_dict(),
            ccas,
            [sc.seed + k for k in range(max_seeds)],
            engine,
            other,
            progress,
            label,
            min_runs=seeds,
            rel_ci=rel_ci,
            other_first=network,
        )
    title = f"{sc.name}: engine (solid) vs {'Linux kernel' if against == 'linux' else 'ns-3'} (dashed)"
    table = xc.table(results, label)
    if network:
        # A network's handovers side by side (issue 34: within one TTI given the same measurements).
        table.attrs["handovers"] = xc.handover_table(results, label)
    return table, xc.per_seed(results, label), xc.figure(results, figure, title, label)
