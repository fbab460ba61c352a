"""Type stubs of the Rust extension `cellcc._core` (crates/cellcc-py). Conversion only."""

from collections.abc import Callable, Sequence
from typing import Any, TypedDict

SCHEMA_VERSION: int

class ScenarioError(ValueError):
    """The scenario is invalid. ``str(e)`` is ``"<path>: got <value>; allowed: <allowed>"``."""

    path: str
    value: str
    allowed: str

class EngineError(RuntimeError):
    """The engine failed for a reason other than bad input (including a caught panic)."""

class CcaParam(TypedDict):
    name: str
    doc: str
    default: Any

class CcaInfo(TypedDict):
    name: str
    family: str
    source: str
    summary: str
    description: str
    params: list[CcaParam]

class RunTables(TypedDict):
    """Each table is ``{column: values}``: a float column is an ``array.array("d")`` unless empty,
    every other column a list."""

    summary: dict[str, Any]
    flows: dict[str, Sequence[Any]]
    timeseries: dict[str, Sequence[Any]]
    queues: dict[str, Sequence[Any]]
    cwnd: dict[str, Sequence[Any]]
    rtt: dict[str, Sequence[Any]]
    lte: dict[str, Sequence[Any]]
    handovers: dict[str, Sequence[Any]]
    wifi: dict[str, Sequence[Any]]
    nr: dict[str, Sequence[Any]]
    pcaps: dict[str, bytes]

def validate(json: str) -> str:
    """Validate a scenario (JSON text) and return its canonical JSON. Raises ScenarioError."""

def resolve(json: str) -> str:
    """Every default a run of the scenario (JSON text) uses, as JSON text. Raises ScenarioError."""

def run(json: str, seed: int, progress: Callable[[int], object] | None = None) -> RunTables:
    """Simulate a scenario (JSON text) with ``seed``; releases the GIL while the engine runs.
    ``progress(now_ns)`` is called with the simulated time every 100 ms of wall time."""

def ccas() -> list[CcaInfo]:
    """The congestion-control registry: name, family, source, summary, description, params with defaults."""

def engine_version() -> str:
    """Version of the Rust engine crate."""

def interrupt() -> None:
    """Stop every run in this process within a few ms (they raise KeyboardInterrupt); any thread may call it."""

def clear_interrupt() -> None:
    """Let runs proceed again after :func:`interrupt`."""
