"""cellcc: a deterministic simulator of TCP congestion control.

The engine is Rust (``cellcc._core``); this package loads scenarios, runs them,
and turns results into DataFrames, files and tables.

>>> import cellcc
>>> result = cellcc.run("examples/fragmentation.toml", seed=1)   # doctest: +SKIP
>>> result.flows[["flow_id", "throughput_bps"]]                  # doctest: +SKIP

Importing the package is cheap (the engine and the standard library only): pandas,
numpy and scipy load on first use of what needs them (``Result``, ``compare``), and
``importlib.metadata`` on first use of ``__version__``, so
``cellcc --version`` and ``cellcc validate`` start in a fraction of a second (PEP 562
module ``__getattr__``).
"""

from __future__ import annotations

import importlib
import sys
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cellcc import _core
from cellcc.errors import EngineError, ScenarioError, UserError
from cellcc.provenance import cellcc_version
from cellcc.scenario import Scenario

if TYPE_CHECKING:
    import pandas as pd

    from cellcc._core import CcaInfo
    from cellcc.catalogue import Store
    from cellcc.compare import compare
    from cellcc.result import Result
    from cellcc.sweep import Sweep

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

#: Public names whose modules import pandas/numpy/scipy/duckdb: loaded on first access.
_LAZY = {"Result": "cellcc.result", "compare": "cellcc.compare", "Store": "cellcc.catalogue", "Sweep": "cellcc.sweep"}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        globals()[name] = cellcc_version()
        return globals()[name]
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cellcc' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | {"__version__"})


class _Package(types.ModuleType):
    """The package module. Importing the submodule ``cellcc.compare`` would rebind the
    public function ``cellcc.compare`` to that module (the import system sets the parent's
    attribute); this keeps the function, as the eager ``from cellcc.compare import compare`` did."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _LAZY and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def run(scenario: str | Path | dict[str, Any] | Scenario, seed: int | None = None) -> Result:
    """Simulate ``scenario`` (a path, a bundled name, a dict, or a Scenario).

    ``seed`` defaults to the scenario's own ``seed`` field. Raises
    :class:`ScenarioError` / :class:`UserError` (both ``ValueError``) for bad input.
    """
    from cellcc.runner import run_one

    sc = Scenario.resolve(scenario)
    return run_one(sc, sc.seed if seed is None else seed)


def ccas() -> list[CcaInfo]:
    """The congestion-control registry: name, family, source, summary and parameters."""
    return _core.ccas()


def load(store_dir: str | Path, table: str = "metrics") -> pd.DataFrame:
    """One table of a sweep's results folder as a tidy DataFrame with the swept parameters
    as columns (``metrics``: one row per run; also flows, timeseries, pm, queues, cwnd, rtt)."""
    from cellcc.catalogue import Store

    return Store.open(store_dir).table(table)
