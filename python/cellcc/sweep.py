"""Sweeps: a base scenario, axes of values by scenario field path, and seeds,
expanded into runs with stable content-hashed keys.

A sweep file (TOML, or the same document as JSON)::

    name = "ccas-x-buffers"              # default: the file's stem
    base = "bottleneck"                  # a scenario file (relative to this file) or a bundled name
    seeds = 3                            # base seed, +1, +2 ... ; or an explicit list [1, 7, 9]

    [set]                                # applied to every run
    "duration_s" = 5

    [[axes]]                             # axes are crossed (Cartesian product) ...
    path = "flows[*].cca"
    values = ["cubic", "bbr", "newreno"]

    [[axes]]                             # ... except axes sharing a `zip` label, which advance together
    path = "links[bottleneck].delay_ms"
    values = [10, 40]
    zip = "path"
    [[axes]]
    path = "links[bottleneck].forward.queue.limit_bytes"
    values = [25_000, 100_000]
    zip = "path"
    name = "buffer_bytes"                # column name; default: the path's last key, prefixed by the
                                         # last id selected (`bottleneck_delay_ms`); not a metric's name

Paths follow :mod:`cellcc.fieldpath`. Setting a flow's ``cca`` also clears its
``cca_params`` (the old algorithm's parameters do not apply to the new one)
unless the sweep sets ``cca_params`` itself.

A run's key is the SHA-256 (first :data:`KEY_HEX_CHARS` hex digits) of the
scenario's content hash, the seed, the engine version and the schema version:
the same simulation has the same key in any sweep, whatever the axes are
called, so a store keeps one result per key and a sweep resumes by key. The
engine version carries a hash of the engine's sources (``0.1.0+<hash>``), so
a store never serves a result of another engine build: after a change to the
engine, every run is made again.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cellcc import _core
from cellcc.errors import ScenarioError, UserError
from cellcc.fieldpath import FieldPath, Segment, parse_path, set_path
from cellcc.metrics import RUN_METRICS
from cellcc.scenario import Scenario, load_document

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["KEY_HEX_CHARS", "RESERVED_COLUMNS", "Axis", "RunSpec", "Sweep", "run_key"]

#: Hex digits of a run key (80 bits: a collision among a million runs has probability ~1e-12).
KEY_HEX_CHARS = 20
#: Column names the store adds itself; an axis may not take them.
RESERVED_COLUMNS = frozenset({"key", "seed", "scenario", "run_index"})
_TOP_KEYS = frozenset({"name", "description", "base", "seeds", "set", "axes"})
_AXIS_KEYS = frozenset({"path", "values", "zip", "name"})


def run_key(scenario: Scenario, seed: int) -> str:
    """The store key of (scenario, seed) under this engine (see the module doc)."""
    ident = {
        "engine_version": _core.engine_version(),
        "schema_version": _core.SCHEMA_VERSION,
        "scenario_sha256": scenario.sha256,
        "seed": seed,
    }
    digest = hashlib.sha256(json.dumps(ident, sort_keys=True).encode("utf-8")).hexdigest()
    return digest[:KEY_HEX_CHARS]


@dataclass(frozen=True)
class Axis:
    """One swept field: its path, the values it takes, its column name and zip label."""

    path: FieldPath
    values: tuple[Any, ...]
    column: str
    zip: str | None = None


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep: the edited scenario, the seed, its key and its axis values."""

    key: str
    scenario: Scenario
    seed: int
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Sweep:
    """A parsed, checked sweep. Build one with :meth:`load` or :meth:`from_dict`."""

    name: str
    base: Scenario
    axes: tuple[Axis, ...]
    seeds: tuple[int, ...]
    fixed: tuple[tuple[FieldPath, Any], ...] = ()
    description: str = ""
    base_dir: Path = field(default_factory=Path.cwd)
    #: The base as its author wrote it (relative paths made absolute): axes are applied to this,
    #: not to the canonical form, so switching a tagged field (an RLC ``mode``, a SINR ``kind``)
    #: does not carry over the other variant's filled-in defaults.
    base_doc: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path) -> Sweep:
        """Read a ``.toml`` or ``.json`` sweep file."""
        path = Path(path)
        doc = _read_doc(path)
        doc.setdefault("name", path.stem)
        return cls.from_dict(doc, base_dir=path.resolve().parent)

    @classmethod
    def from_dict(cls, doc: dict[str, Any], base_dir: str | Path | None = None) -> Sweep:
        """Check a parsed sweep document; relative paths are read from ``base_dir`` (default: cwd)."""
        root = Path(base_dir) if base_dir is not None else Path.cwd()
        _check_keys(doc, _TOP_KEYS, "")
        base, base_doc = _base_scenario(doc.get("base"), root)
        axes = tuple(_axis(a, i) for i, a in enumerate(_list(doc.get("axes", []), "axes")))
        _check_columns(axes)
        _check_zips(axes)
        fixed = _fixed(doc.get("set", {}))
        return cls(
            name=str(doc.get("name") or base.name),
            base=base,
            axes=axes,
            seeds=_seeds(doc.get("seeds", 1), base.seed),
            fixed=fixed,
            description=str(doc.get("description", "")),
            base_dir=root,
            base_doc=base_doc,
        )

    @property
    def columns(self) -> list[str]:
        """The axis columns, in axis order."""
        return [a.column for a in self.axes]

    def points(self) -> list[dict[str, Any]]:
        """Every combination of axis values (zip groups advance together; groups are crossed)."""
        groups: dict[str, list[Axis]] = {}
        for i, axis in enumerate(self.axes):
            groups.setdefault(axis.zip or f"\0{i}", []).append(axis)
        per_group = [
            [{a.column: a.values[k] for a in members} for k in range(len(members[0].values))]
            for members in groups.values()
        ]
        points, seen = [], set()
        for combo in itertools.product(*per_group):
            merged: dict[str, Any] = {}
            for part in combo:
                merged.update(part)
            point = {c: merged[c] for c in self.columns}
            # A repeated point would be one run counted twice in every statistic.
            ident = json.dumps(point, sort_keys=True)
            if ident in seen:
                raise UserError("axes", _label(point), "values that make every sweep point distinct (this one repeats)")
            seen.add(ident)
            points.append(point)
        return points

    def scenario_at(self, point: dict[str, Any]) -> Scenario:
        """The base scenario with the fixed settings and ``point``'s axis values applied."""
        doc = copy.deepcopy(self.base_doc) if self.base_doc else self.base.to_dict()
        # A run's scenario.json as the base: its resolved defaults are those of the base, not of this point.
        doc.pop("resolved", None)
        edits = [*self.fixed, *((a.path, point[a.column]) for a in self.axes)]
        sets_params = any(fp.leaf == "cca_params" for fp, _ in edits)
        for fp, value in edits:
            set_path(doc, fp, value, where=fp.text)
            if fp.leaf == "cca" and not sets_params:
                set_path(doc, FieldPath(fp.text, (*fp.segments[:-1], Segment("cca_params", None))), None)
        try:
            return Scenario.from_dict(doc, base_dir=self.base_dir, source=f"{self.name}:{_label(point)}")
        except ScenarioError as e:
            where = f" (sweep point {_label(point)})" if point else ""
            raise UserError(e.path, e.value, f"{e.allowed}{where}") from None

    def expand(self) -> list[RunSpec]:
        """Every run: each point x each seed, in that order."""
        runs = []
        for point in self.points():
            scenario = self.scenario_at(point)
            runs.extend(RunSpec(run_key(scenario, s), scenario, s, dict(point)) for s in self.seeds)
        return runs

    def describe(self) -> dict[str, Any]:
        """A JSON-able summary (stored beside the results as provenance)."""
        return {
            "name": self.name,
            "description": self.description,
            "base": self.base.name,
            "base_sha256": self.base.sha256,
            "seeds": list(self.seeds),
            "set": {fp.text: v for fp, v in self.fixed},
            "axes": [
                {"path": a.path.text, "column": a.column, "values": list(a.values), "zip": a.zip} for a in self.axes
            ],
        }


def _label(point: dict[str, Any]) -> str:
    return ", ".join(f"{k}={json.dumps(v)}" for k, v in point.items())


def _read_doc(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(
            "sweep", json.dumps(str(path)), f"a readable .toml or .json file ({e.__class__.__name__})"
        ) from None
    try:
        doc = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as e:
        raise UserError(str(path), "", f"a valid {path.suffix.lstrip('.').upper() or 'TOML'} document ({e})") from None
    if not isinstance(doc, dict):
        raise UserError(str(path), type(doc).__name__, "a table/object at the top level")
    return doc


def _check_keys(table: Any, allowed: frozenset[str], where: str) -> None:
    if not isinstance(table, dict):
        raise UserError(where or "sweep", json.dumps(table, default=str), "a table")
    for key in table:
        if key not in allowed:
            path = f"{where}.{key}" if where else key
            raise UserError(path, json.dumps(table[key], default=str), f"a known key: {', '.join(sorted(allowed))}")


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise UserError(where, json.dumps(value, default=str), "a list")
    return value


def _base_scenario(spec: Any, root: Path) -> tuple[Scenario, dict[str, Any]]:
    """The base scenario, checked, and the document it was written as."""
    if not isinstance(spec, str) or not spec:
        raise UserError("base", json.dumps(spec), "a scenario file (relative to the sweep file) or a bundled name")
    path = root / spec
    doc, source = load_document(path if path.exists() else spec)
    return Scenario.from_dict(copy.deepcopy(doc), source=source), doc


def _axis(doc: Any, i: int) -> Axis:
    where = f"axes[{i}]"
    _check_keys(doc, _AXIS_KEYS, where)
    if "path" not in doc:
        raise UserError(f"{where}.path", "", "required: the scenario field this axis sets")
    path = parse_path(doc["path"], f"{where}.path")
    values = doc.get("values")
    if not isinstance(values, list) or not values:
        raise UserError(f"{where}.values", json.dumps(values, default=str), "a non-empty list of values")
    column = str(doc.get("name") or _default_column(path))
    zip_label = doc.get("zip")
    if zip_label is not None and not isinstance(zip_label, str):
        raise UserError(f"{where}.zip", json.dumps(zip_label), "a label (string) shared by the axes to zip")
    return Axis(path, tuple(values), column, zip_label)


def _default_column(path: FieldPath) -> str:
    """The leaf key, prefixed by the id of the last element selected by id: `links[bottleneck].delay_ms`
    -> `bottleneck_delay_ms`, `flows[*].cca` -> `cca`."""
    ids = [s.selector for s in path.segments if isinstance(s.selector, str) and s.selector != "*"]
    return f"{ids[-1]}_{path.leaf}" if ids else path.leaf


def _check_columns(axes: tuple[Axis, ...]) -> None:
    seen: set[str] = set()
    for i, axis in enumerate(axes):
        if axis.column in RESERVED_COLUMNS or axis.column in RUN_METRICS or axis.column in seen:
            taken = ", ".join(sorted(RESERVED_COLUMNS | set(RUN_METRICS) | seen))
            raise UserError(f"axes[{i}].name", json.dumps(axis.column), f"a column name not already taken ({taken})")
        seen.add(axis.column)


def _check_zips(axes: tuple[Axis, ...]) -> None:
    lengths: dict[str, int] = {}
    for i, axis in enumerate(axes):
        if axis.zip is None:
            continue
        n = lengths.setdefault(axis.zip, len(axis.values))
        if n != len(axis.values):
            raise UserError(
                f"axes[{i}].values",
                f"{len(axis.values)} values",
                f"{n} values, as the other axes zipped as {axis.zip!r}",
            )


def _fixed(table: Any) -> tuple[tuple[FieldPath, Any], ...]:
    if not isinstance(table, dict):
        raise UserError("set", json.dumps(table, default=str), "a table of field path = value")
    return tuple((parse_path(k, f"set.{k}"), v) for k, v in table.items())


def _seeds(spec: Any, base_seed: int) -> tuple[int, ...]:
    allowed = "a count >= 1 (base seed, +1, ...) or a non-empty list of distinct integers >= 0"
    if isinstance(spec, bool):
        raise UserError("seeds", json.dumps(spec), allowed)
    if isinstance(spec, int):
        if spec < 1:
            raise UserError("seeds", str(spec), allowed)
        return tuple(base_seed + k for k in range(spec))
    if (
        isinstance(spec, list)
        and spec
        and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in spec)
        and len(set(spec)) == len(spec)
    ):
        return tuple(spec)
    raise UserError("seeds", json.dumps(spec, default=str), allowed)
