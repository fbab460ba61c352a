"""Results on disk: one folder per run, written atomically.

Layout of a run folder::

    summary.json      {"provenance": {...}, "summary": {...}}  (sorted keys)
    scenario.json     the canonical scenario the engine ran, with its ``resolved`` defaults
    flows.parquet  timeseries.parquet  queues.parquet  cwnd.parquet  rtt.parquet  lte.parquet  wifi.parquet
    <capture>.pcap    one per captured link direction
    pm.parquet  metrics.parquet   in sweeps: Pm per (flow, slot) and the per-run metrics row

A sweep's store (:class:`cellcc.catalogue.Store`) holds such folders under
``runs/key=<run key>/``.

Atomic: everything is written into a hidden temporary folder beside the target
and renamed into place at the end, so a failed or interrupted run leaves no
folder (or the previous one) behind, never a half-written one.

This module knows files, not results: :class:`cellcc.result.Result` builds on it
(``Result.save``, ``Result.load``) and it imports nothing of ``cellcc.result``, so
the two do not import each other. pyarrow loads on the first write or read.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cellcc.scenario import Scenario

if TYPE_CHECKING:
    import pandas as pd

    from cellcc.result import Result

__all__ = [
    "TABLES",
    "read_fields",
    "run_files",
    "write_atomically",
    "write_file_atomically",
    "write_files",
    "write_run",
]

#: The engine's tables, in the order they are written (one ``<name>.parquet`` each).
TABLES = ("flows", "timeseries", "queues", "cwnd", "rtt", "lte", "wifi")

#: Characters allowed in a pcap file name; anything else becomes "_".
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._:-]")


#: Mode of a run folder before the umask (mkdtemp makes it private, 0o700).
_FOLDER_MODE = 0o777


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _dump_json(obj: object) -> str:
    return json.dumps(obj, sort_keys=True, indent=2, allow_nan=True) + "\n"


def _parquet_bytes(frame: pd.DataFrame) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), sink, compression="zstd")
    return sink.getvalue().to_pybytes()


def write_file_atomically(path: Path, data: bytes) -> None:
    """Write one file as a temporary file beside it renamed into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomically(out_dir: str | Path, fill) -> Path:
    """Create ``out_dir`` by calling ``fill(tmp_dir)`` and renaming; replaces an existing folder."""
    target = Path(out_dir).resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    try:
        os.chmod(tmp, _FOLDER_MODE & ~_umask())
        fill(tmp)
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
            target.rename(old / target.name)
            tmp.rename(target)
            shutil.rmtree(old)
        else:
            tmp.rename(target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def run_files(result: Result, derived: bool = False) -> dict[str, bytes]:
    """Every file of a run folder as ``{name: bytes}`` (see the module doc), deterministic.

    ``derived`` adds ``pm.parquet`` and ``metrics.parquet`` (:mod:`cellcc.metrics`), as sweeps store.
    """
    files = {
        "summary.json": _dump_json({"provenance": result.provenance, "summary": result.summary}).encode("utf-8"),
        "scenario.json": _dump_json(result.scenario.to_written_dict()).encode("utf-8"),
    }
    tables = dict(result.tables())
    if derived:
        import pandas as pd

        from cellcc.metrics import pm_slots, run_metrics

        tables["pm"] = pm_slots(result)
        tables["metrics"] = pd.DataFrame([run_metrics(result)])
    for name, frame in tables.items():
        files[f"{name}.parquet"] = _parquet_bytes(frame)
    for name, data in result.pcaps.items():
        files[f"{_UNSAFE_NAME.sub('_', name)}.pcap"] = data
    return files


def write_files(files: dict[str, bytes], out_dir: str | Path) -> Path:
    """Write ``{name: bytes}`` as the folder ``out_dir``, atomically."""

    def fill(tmp: Path) -> None:
        for name, data in files.items():
            (tmp / name).write_bytes(data)

    return write_atomically(out_dir, fill)


def write_run(result: Result, out_dir: str | Path) -> Path:
    """Write ``result`` to ``out_dir`` (see the module doc); returns the folder."""
    return write_files(run_files(result), out_dir)


def read_fields(run_dir: str | Path) -> dict[str, Any]:
    """The contents of a run folder written by :func:`write_run`, as the keyword arguments
    of :class:`cellcc.result.Result` (``Result.load`` calls this)."""
    import pyarrow.parquet as pq

    run_dir = Path(run_dir)
    head = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    scenario_doc = json.loads((run_dir / "scenario.json").read_text(encoding="utf-8"))
    # The folder's own record of what ran: an older engine may have resolved other defaults.
    scenario_doc.pop("resolved", None)
    scenario = Scenario(json.dumps(scenario_doc), source=str(run_dir / "scenario.json"))
    # A folder written before a table existed (wifi.parquet) lacks it: Result's default stands in.
    tables = {
        name: pq.read_table(path).to_pandas()
        for name in TABLES
        if (path := run_dir / f"{name}.parquet").exists() or name != "wifi"
    }
    pcaps = {p.stem: p.read_bytes() for p in sorted(run_dir.glob("*.pcap"))}
    return {
        "scenario": scenario,
        "seed": int(head["provenance"]["seed"]),
        "summary": head["summary"],
        "provenance": head["provenance"],
        "pcaps": pcaps,
        **tables,
    }
