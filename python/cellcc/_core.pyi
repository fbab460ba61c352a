"""Type stubs of the Rust extension `cellcc._core` (crates/cellcc-py). Conversion only."""

from collections.abc import Callable
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
    summary: dict[str, Any]
    flows: dict[str, list[Any]]
    timeseries: dict[str, list[Any]]
    queues: dict[str, list[Any]]
    cwnd: dict[str, list[Any]]
    rtt: dict[str, list[Any]]
    lte: dict[str, list[Any]]
    handovers: dict[str, list[Any]]
    wifi: dict[str, list[Any]]
    nr: dict[str, list[Any]]
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
