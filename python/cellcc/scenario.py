"""Scenarios: the one loader. A file (TOML or JSON), a bundled name or a dict becomes
a document here (:func:`load_document`) and the engine validates it (:class:`Scenario`).
Every command, backend and the API loads scenarios through this module; nothing else
reads a scenario file.

The schema is the engine's (``crates/cellcc-engine/src/scenario``); nothing here
declares a field. Python only parses files, resolves relative ``trace`` paths
against the scenario file's folder (so a scenario runs from any directory), checks
that each trace exists and is within the engine's size limit, and keeps the engine's
canonical JSON, over which the scenario hash is taken.

>>> sc = Scenario.bundled("bottleneck")
>>> sc.name
'bottleneck'
"""

from __future__ import annotations

import copy
import datetime
import hashlib
import json
import math
import sys
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

from cellcc import _core
from cellcc.errors import UserError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["DEFAULT_SET", "MAX_TRACE_BYTES", "Scenario", "bundled_names", "load_document", "resolve_many"]

#: The scenarios `cellcc compare` runs when given none (or `default`).
DEFAULT_SET = ("bottleneck", "variable", "lte")

#: Keys whose string values are file paths, resolved against the scenario's folder.
_PATH_KEYS = frozenset({"trace", "file"})
#: Largest trace file the engine reads (``link/trace.rs`` MAX_TRACE_BYTES), checked here first.
MAX_TRACE_BYTES = 32 * 1024 * 1024


def _data_dir() -> Path:
    return Path(str(resources.files("cellcc") / "data"))


def bundled_names() -> list[str]:
    """Names of the scenarios shipped in ``cellcc/data`` (file stems), sorted."""
    return sorted(p.stem for p in _data_dir().glob("*.toml"))


def _resolve_paths(node: Any, base_dir: Path, where: str) -> Any:
    """Copy of ``node`` with relative path fields made absolute; missing files are errors,
    and so are values JSON cannot carry (TOML dates and times, NaN and infinities)."""
    if isinstance(node, (datetime.date, datetime.time)):
        raise UserError(where or "scenario", node.isoformat(), "a string, number, boolean, array or table (not a date)")
    if isinstance(node, float) and not math.isfinite(node):
        raise UserError(where or "scenario", str(node), "a finite number")
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            path = f"{where}.{key}" if where else str(key)
            if key in _PATH_KEYS and isinstance(value, str) and value:
                out[key] = _existing_file(base_dir, value, path)
            else:
                out[key] = _resolve_paths(value, base_dir, path)
        return out
    if isinstance(node, list):
        return [_resolve_paths(v, base_dir, f"{where}[{i}]") for i, v in enumerate(node)]
    return node


def _existing_file(base_dir: Path, value: str, path: str) -> str:
    resolved = (base_dir / value).resolve()
    if not resolved.is_file():
        raise UserError(
            path,
            json.dumps(value),
            "an existing file (a Mahimahi trace or a SINR CSV; a relative path is read from the scenario's folder)",
        )
    size = resolved.stat().st_size
    if size > MAX_TRACE_BYTES:
        raise UserError(
            path,
            f"{json.dumps(value)} ({size / 2**20:.1f} MiB)",
            f"a file of at most {MAX_TRACE_BYTES >> 20} MiB (a Mahimahi trace loops, so a shorter one will do)",
        )
    return str(resolved)


def _parse_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(
            "scenario",
            json.dumps(str(path)),
            f"an existing .toml or .json file, or a bundled name ({', '.join(bundled_names())})",
        ) from None
    except (OSError, UnicodeDecodeError) as e:
        raise UserError("scenario", json.dumps(str(path)), f"a readable UTF-8 file ({e.__class__.__name__})") from None
    if path.suffix.lower() == ".json":
        try:
            doc = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as e:
            raise UserError(str(path), "", f"invalid JSON: {e}") from None
    else:
        try:
            doc = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError) as e:
            raise UserError(str(path), "", f"invalid TOML: {e}") from None
    if not isinstance(doc, dict):
        raise UserError(str(path), type(doc).__name__, "a table/object at the top level")
    return doc


def _dumps(doc: dict[str, Any]) -> str:
    """JSON text of a document for the engine; a value JSON cannot carry is a user error."""
    try:
        return json.dumps(doc, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise UserError("scenario", "", f"plain TOML/JSON values only ({e})") from None


def with_absolute_paths(doc: dict[str, Any], base_dir: Path) -> dict[str, Any]:
    """A copy of ``doc`` whose relative ``trace``/``file`` paths are read from ``base_dir``
    (each checked to exist, as :func:`load_document` does)."""
    return _resolve_paths(doc, base_dir, "")


def _is_file(path: Path) -> bool:
    """Whether ``path`` exists; a name the OS refuses (too long, say) is no file."""
    try:
        return path.exists()
    except OSError:
        return False


def load_document(spec: str | Path | dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The one scenario loader: a file path, a bundled name or a dict -> ``(document, source)``.

    The document is parsed (TOML, or JSON for ``.json``), its relative ``trace`` paths are
    made absolute (a dict's against the working directory) and each trace is checked to
    exist and fit the engine's size limit. Every mistake is a :class:`UserError`.
    The engine has not validated the document yet: :class:`Scenario` does that.
    """
    if isinstance(spec, dict):
        return _resolve_paths(spec, Path.cwd(), ""), "<dict>"
    if not isinstance(spec, (str, Path)):
        raise UserError("scenario", type(spec).__name__, "a file path, a bundled scenario name or a dict")
    path = Path(spec)
    if not _is_file(path) and isinstance(spec, str):
        if spec in bundled_names():
            path = _data_dir() / f"{spec}.toml"
        elif spec.lstrip().startswith(("{", "[")):
            # A document's text, not a name: the OS would refuse it as a path, or find no such file.
            raise UserError(
                "scenario",
                "the text of a document",
                "a file path, a bundled scenario name or a dict (parse the text first: json.loads or tomllib.loads)",
            )
    doc = _parse_file(path)
    return _resolve_paths(doc, path.resolve().parent, ""), str(spec)


class Scenario:
    """A scenario the engine has validated: its canonical JSON and where it came from.

    Build one with :meth:`load` (a file), :meth:`from_dict`, :meth:`bundled`, or
    :meth:`resolve` (any of those). Instances are immutable; :meth:`with_cca`
    returns a new one.
    """

    def __init__(
        self, canonical_json: str, source: str = "<dict>", _trace_digests: dict[str, str] | None = None
    ) -> None:
        self._json = _core.validate(canonical_json)
        self.source = source
        # SHA-256 of each trace file's bytes, by path: read once, shared with with_cca() copies.
        self._trace_digests = {} if _trace_digests is None else _trace_digests

    @classmethod
    def from_dict(cls, doc: dict[str, Any], base_dir: str | Path | None = None, source: str = "<dict>") -> Scenario:
        """Validate a parsed document; relative ``trace`` paths are read from ``base_dir`` (default: cwd)."""
        if not isinstance(doc, dict):
            raise UserError("scenario", type(doc).__name__, "a dict (a parsed TOML/JSON document)")
        resolved = _resolve_paths(doc, Path(base_dir) if base_dir is not None else Path.cwd(), "")
        return cls(_dumps(resolved), source)

    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        """Read a ``.toml`` (or ``.json``) scenario file."""
        doc, _ = load_document(Path(path))
        return cls(_dumps(doc), str(path))

    @classmethod
    def bundled(cls, name: str) -> Scenario:
        """One of the scenarios shipped with cellcc (see :func:`bundled_names`)."""
        if name not in bundled_names():
            raise UserError("scenario", json.dumps(name), f"one of the bundled scenarios {', '.join(bundled_names())}")
        return cls.resolve(name)

    @classmethod
    def resolve(cls, spec: str | Path | dict[str, Any] | Scenario) -> Scenario:
        """A Scenario from a path, a bundled name, a dict, or a Scenario (returned as is)."""
        if isinstance(spec, Scenario):
            return spec
        doc, source = load_document(spec)
        return cls(_dumps(doc), source)

    @property
    def json(self) -> str:
        """Canonical JSON (stable key order), as the engine wrote it."""
        return self._json

    @cached_property
    def _doc(self) -> dict[str, Any]:
        return json.loads(self._json)

    def to_dict(self) -> dict[str, Any]:
        """A fresh copy of the canonical document: the scenario as written, what is hashed
        and what backends are given (fields left unset stay ``null``; see :meth:`resolved`)."""
        return copy.deepcopy(self._doc)

    @cached_property
    def _resolved(self) -> dict[str, Any]:
        return json.loads(_core.resolve(self._json))

    def resolved(self) -> dict[str, Any]:
        """Every default a run uses, as the engine resolves it (``world/resolved.rs``): per
        flow the algorithm's full ``cca_params`` and every ``tcp`` field (``mss_bytes`` from
        that flow's path MTU), per link direction rate, delay, queue and loss, the output traces."""
        return copy.deepcopy(self._resolved)

    def to_written_dict(self) -> dict[str, Any]:
        """The canonical document plus its ``resolved`` table: ``validate --json`` prints it and
        every run's ``scenario.json`` holds it. Loaded again, ``resolved`` must still equal the
        engine's resolution and is not hashed, so the file re-runs the same scenario."""
        return {**self.to_dict(), "resolved": self.resolved()}

    @property
    def name(self) -> str:
        """The scenario's ``name``, else the file stem of its source."""
        return self._doc.get("name") or Path(self.source).stem

    @property
    def seed(self) -> int:
        """The scenario's default seed."""
        return int(self._doc["seed"])

    @cached_property
    def sha256(self) -> str:
        """The scenario's identity in provenance: SHA-256 of the canonical JSON with
        every trace path replaced by the SHA-256 of the trace's bytes, so the hash
        follows what was simulated, not where the files sat on this machine."""
        doc = self.to_dict()
        for link in doc["links"]:
            for table in (link, link["forward"], link["reverse"]):
                if table.get("trace"):
                    table["trace"] = "sha256:" + self._trace_digest(table["trace"])
        canonical = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def _trace_digest(self, path: str) -> str:
        if path not in self._trace_digests:
            self._trace_digests[path] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        return self._trace_digests[path]

    def with_cca(self, cca: str) -> Scenario:
        """This scenario with every TCP flow using ``cca`` at its default parameters."""
        doc = self.to_dict()
        for flow in doc["flows"]:
            if flow.get("transport", "tcp") == "tcp":
                flow["cca"] = cca
                flow["cca_params"] = None
        return Scenario(json.dumps(doc), self.source, self._trace_digests)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and other._json == self._json

    def __hash__(self) -> int:
        return hash(self._json)

    def __repr__(self) -> str:
        return f"Scenario(name={self.name!r}, source={self.source!r}, sha256={self.sha256[:12]})"


def resolve_many(spec: str | Path | dict[str, Any] | Scenario | None) -> list[Scenario]:
    """``None`` or ``"default"`` -> the bundled default set; anything else -> one scenario."""
    if spec is None or (isinstance(spec, str) and spec == "default" and not Path(spec).exists()):
        return [Scenario.bundled(name) for name in DEFAULT_SET]
    return [Scenario.resolve(spec)]
