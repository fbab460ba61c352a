"""cellcc: a deterministic simulator of TCP congestion control.

The engine is Rust (``cellcc._core``); this package loads scenarios, runs them,
and turns results into DataFrames, files and tables.

>>> import cellcc
>>> result = cellcc.run("examples/fragmentation.toml", seed=1)   # doctest: +SKIP
>>> result.flows[["flow_id", "throughput_bps"]]                  # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from cellcc import _core
from cellcc.catalogue import Store
from cellcc.compare import compare
from cellcc.errors import EngineError, ScenarioError, UserError
from cellcc.provenance import cellcc_version
from cellcc.result import Result
from cellcc.runner import run_one
from cellcc.scenario import Scenario
from cellcc.sweep import Sweep

if TYPE_CHECKING:
    import pandas as pd

    from cellcc._core import CcaInfo

__version__ = cellcc_version()

__all__ = [
    "EngineError",
    "Result",
    "Scenario",
    "ScenarioError",
    "Store",
    "Sweep",
    "UserError",
    "__version__",
    "ccas",
    "compare",
    "load",
    "run",
]


def run(scenario: str | Path | dict[str, Any] | Scenario, seed: int | None = None) -> Result:
    """Simulate ``scenario`` (a path, a bundled name, a dict, or a Scenario).

    ``seed`` defaults to the scenario's own ``seed`` field. Raises
    :class:`ScenarioError` / :class:`UserError` (both ``ValueError``) for bad input.
    """
    sc = Scenario.resolve(scenario)
    return run_one(sc, sc.seed if seed is None else seed)


def ccas() -> list[CcaInfo]:
    """The congestion-control registry: name, family, source, summary and parameters."""
    return _core.ccas()


def load(store_dir: str | Path, table: str = "metrics") -> pd.DataFrame:
    """One table of a sweep's results folder as a tidy DataFrame with the swept parameters
    as columns (``metrics``: one row per run; also flows, timeseries, pm, queues, cwnd, rtt)."""
    return Store.open(store_dir).table(table)
