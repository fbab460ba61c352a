"""Results on disk: one folder per run, written atomically.

Layout of a run folder::

    summary.json      {"provenance": {...}, "summary": {...}}  (sorted keys)
    scenario.json     the canonical scenario the engine ran, with its ``resolved`` defaults
    flows.parquet  timeseries.parquet  queues.parquet  cwnd.parquet  rtt.parquet  lte.parquet  wifi.parquet
    nr.parquet
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
from collections.abc import Mapping, Sequence
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
TABLES = ("flows", "timeseries", "queues", "cwnd", "rtt", "lte", "wifi", "nr", "handovers")

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


#: Largest value of a signed 64-bit integer: an integer column with a larger value is unsigned
#: (``u64::MAX`` is the engine's infinite ssthresh), as pandas would type it.
_INT64_MAX = 2**63 - 1


def _arrow_column(values: Sequence[Any]) -> Any:
    """One engine column (floats in an ``array.array("d")``, or a list of floats, ints or strings)
    as an Arrow array, typed as ``pa.Table.from_pandas`` types the same values in a pandas
    DataFrame (text as large_string, NaN as
    null, an int column with a value above the int64 range as uint64), so both forms of a table
    write the same bytes.

    Built from buffers: ``pa.array`` imports pandas (0.15 s) to ask whether its input is a Series.
    """
    import numpy as np
    import pyarrow as pa

    n = len(values)
    if n == 0:
        return pa.nulls(0)
    first = values[0]
    if isinstance(first, str):
        encoded = [v.encode("utf-8") for v in values]
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum([len(e) for e in encoded], out=offsets[1:])
        buffers = [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
        return pa.Array.from_buffers(pa.large_string(), n, buffers)
    if isinstance(first, bool):
        bits = np.packbits(np.asarray(values, dtype=bool), bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), n, [None, pa.py_buffer(bits)])
    if isinstance(first, int):
        unsigned = max(values) > _INT64_MAX
        data = np.asarray(values, dtype=np.uint64 if unsigned else np.int64)
        return pa.Array.from_buffers(pa.uint64() if unsigned else pa.int64(), n, [None, pa.py_buffer(data)])
    data = np.asarray(values, dtype=np.float64)
    valid = ~np.isnan(data)
    nulls = int(n - valid.sum())
    validity = pa.py_buffer(np.packbits(valid, bitorder="little")) if nulls else None
    return pa.Array.from_buffers(pa.float64(), n, [validity, pa.py_buffer(data)], null_count=nulls)


def _parquet_bytes(table: pd.DataFrame | Mapping[str, list[Any]]) -> bytes:
    """Parquet bytes of a DataFrame or of the engine's columns (without pandas: start-up).
    No pandas schema metadata, so both forms of the same table give the same bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if hasattr(table, "iloc"):
        arrow = pa.Table.from_pandas(table, preserve_index=False).replace_schema_metadata(None)
    else:
        arrow = pa.Table.from_arrays([_arrow_column(v) for v in table.values()], names=list(table))
    sink = pa.BufferOutputStream()
    pq.write_table(arrow, sink, compression="zstd")
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
    tables: dict[str, Any] = {name: result.columns(name) for name in TABLES}
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
    # A folder written before a table existed (wifi.parquet, nr.parquet, handovers.parquet) lacks
    # it: Result's default stands in.
    tables = {
        name: pq.read_table(path).to_pandas()
        for name in TABLES
        if (path := run_dir / f"{name}.parquet").exists() or name not in ("wifi", "nr", "handovers")
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
