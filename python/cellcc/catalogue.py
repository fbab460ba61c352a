"""A sweep's results store and its query layer (DuckDB over the runs' Parquet files).

Layout of a store folder::

    sweep.json              the sweep (provenance) and its manifest: one entry per run,
                            {key, seed, run_index, <axis columns>}; rewritten atomically per sweep
    runs/key=<key>/         one run folder per key (:mod:`cellcc.store`), renamed into place whole
    timings.json            wall-clock seconds per key, for longest-first ordering (not a result)

A run folder that exists is complete (it appears by one rename), so the set of
complete keys is the folder listing and a resumed sweep runs only what is
missing. Several processes may write one store at once: each runs only the runs it
claims (:mod:`cellcc.claims`, ``.claims/<key>.claim``). Hidden ``.key=*.tmp-*`` folders are
what a killed writer left; a writer removes those of runs nobody holds a claim on.

Queries see one view per table (``flows``, ``timeseries``, ``queues``, ``cwnd``,
``rtt``, ``pm``, ``metrics``) with the manifest's columns joined in, plus the
manifest itself as ``runs``:

>>> Store.open("out").query("SELECT cca, avg(throughput_mbps) FROM metrics GROUP BY cca")  # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from cellcc.claims import Claims
from cellcc.errors import UserError
from cellcc.result import TABLES
from cellcc.store import write_files

__all__ = ["QUERY_TABLES", "Store", "missing"]

#: Tables a sweep store can query (the engine's, then the derived ones).
QUERY_TABLES = (*TABLES, "pm", "metrics")
_MANIFEST = "sweep.json"
_TIMINGS = "timings.json"
_RUNS = "runs"
_KEY_PREFIX = "key="


def _atomic_text(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _sql_str(text: str) -> str:
    """A SQL string literal (views and ATTACH cannot take bound parameters)."""
    return "'" + text.replace("'", "''") + "'"


def _sql_list(paths: list[str]) -> str:
    return "[" + ", ".join(_sql_str(p) for p in paths) + "]"


def _ident(name: str) -> str:
    """A quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def _cell(value: Any) -> Any:
    """A manifest value as a DataFrame cell: scalars as they are, tables and lists as JSON text."""
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value


class Store:
    """One sweep's results folder. :meth:`open` an existing one; :meth:`create` to write."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def open(cls, root: str | Path) -> Store:
        """An existing store; a folder without ``sweep.json`` is a :class:`UserError`."""
        path = Path(root)
        if not (path / _MANIFEST).is_file():
            raise UserError("DIR", json.dumps(str(root)), "a sweep results folder (one with sweep.json)")
        return cls(path)

    @classmethod
    def create(cls, root: str | Path) -> Store:
        """A store to write into: made if missing; leftovers of killed writers are removed
        (those of runs that another live process claims are its work in progress, and stay)."""
        path = Path(root)
        if path.exists() and not path.is_dir():
            raise UserError("--out", json.dumps(str(root)), "a folder (new or a sweep results folder)")
        (path / _RUNS).mkdir(parents=True, exist_ok=True)
        store = cls(path)
        claims = store.claims()
        for leftover in (path / _RUNS).glob(f".{_KEY_PREFIX}*"):
            key = leftover.name[len(_KEY_PREFIX) + 1 :].split(".", 1)[0]
            if not claims.is_held_elsewhere(key):
                shutil.rmtree(leftover, ignore_errors=True)
        return store

    def remove_leftovers(self, key: str) -> None:
        """Remove what a killed writer of run ``key`` left (call it holding the run's claim)."""
        for leftover in (self.root / _RUNS).glob(f".{_KEY_PREFIX}{key}.*"):
            shutil.rmtree(leftover, ignore_errors=True)

    def claims(self) -> Claims:
        """The claims on this store's runs (:mod:`cellcc.claims`)."""
        return Claims(self.root)

    def is_complete(self, key: str) -> bool:
        """True once run ``key``'s folder is in place."""
        return self.run_dir(key).is_dir()

    # -- writing -------------------------------------------------------------------------------

    def run_dir(self, key: str) -> Path:
        return self.root / _RUNS / f"{_KEY_PREFIX}{key}"

    def complete_keys(self) -> set[str]:
        """Keys whose run folder is in place (hence complete)."""
        runs = self.root / _RUNS
        if not runs.is_dir():
            return set()
        return {p.name[len(_KEY_PREFIX) :] for p in runs.iterdir() if p.name.startswith(_KEY_PREFIX)}

    def put(self, key: str, files: dict[str, bytes]) -> Path:
        """Write one run's files as its folder, atomically."""
        return write_files(files, self.run_dir(key))

    def write_manifest(self, sweep: dict[str, Any], rows: Sequence[dict[str, Any]]) -> None:
        """Record the sweep and its runs (``key``, ``seed``, axis columns) in ``sweep.json``."""
        doc = {"sweep": sweep, "runs": [{"run_index": i, **row} for i, row in enumerate(rows)]}
        _atomic_text(self.root / _MANIFEST, json.dumps(doc, indent=1, sort_keys=True) + "\n")

    def timings(self) -> dict[str, float]:
        """Wall-clock seconds of earlier runs, by key."""
        path = self.root / _TIMINGS
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}

    def add_timings(self, seconds: dict[str, float]) -> None:
        """Merge ``seconds`` into timings.json (under the store lock: other writers merge too)."""
        if seconds:
            with self.claims().store_lock():
                _atomic_text(self.root / _TIMINGS, json.dumps({**self.timings(), **seconds}, sort_keys=True) + "\n")

    # -- reading -------------------------------------------------------------------------------

    def sweep(self) -> dict[str, Any]:
        """The sweep description stored with the results."""
        return json.loads((self.root / _MANIFEST).read_text(encoding="utf-8"))["sweep"]

    def axis_columns(self) -> list[str]:
        return [a["column"] for a in self.sweep()["axes"]]

    def runs(self) -> pd.DataFrame:
        """The manifest: one row per run of the sweep, with ``complete`` (its folder is in place)."""
        rows = json.loads((self.root / _MANIFEST).read_text(encoding="utf-8"))["runs"]
        frame = pd.DataFrame([{k: _cell(v) for k, v in row.items()} for row in rows])
        if frame.empty:
            return pd.DataFrame(columns=["run_index", "key", "seed", "complete"])
        frame = frame[["run_index", "key", "seed", *self.axis_columns()]]
        frame["complete"] = frame["key"].isin(self.complete_keys())
        return frame

    def connect(self) -> duckdb.DuckDBPyConnection:
        """An in-memory DuckDB connection with the views of the module doc, on one thread: DuckDB
        combines a parallel aggregate's partial sums in the order its threads finish, so `avg` over
        the same rows could differ in the last bits from one query to the next (two reports of one
        store picked different CCAs among tied means, and a paired test read rounding as a p-value)."""
        con = duckdb.connect(config={"threads": 1})
        runs = self.runs()
        con.register("runs", runs)
        done = set(runs.loc[runs["complete"], "key"]) if not runs.empty else set()
        for table in QUERY_TABLES:
            files = sorted(str(self.run_dir(k) / f"{table}.parquet") for k in done)
            files = [f for f in files if Path(f).is_file()]
            if not files:
                continue
            # A table column named like a manifest column (flows.cca under a `cca` axis) becomes <name>_<table>.
            columns = [
                d[0] for d in con.execute(f"DESCRIBE SELECT * FROM read_parquet({_sql_list(files[:1])})").fetchall()
            ]
            clashes = [c for c in columns if c in runs.columns and c != "key"]
            pairs = ", ".join(f"{_ident(c)} AS {_ident(f'{c}_{table}')}" for c in clashes)
            rename = f" RENAME ({pairs})" if clashes else ""
            con.execute(
                f"CREATE VIEW {table} AS SELECT r.* EXCLUDE (complete), t.* EXCLUDE (key){rename} "
                f"FROM read_parquet({_sql_list(files)}, hive_partitioning = true, union_by_name = true) t "
                f"JOIN runs r ON r.key = t.key ORDER BY r.run_index"
            )
        return con

    def export(self, path: str | Path) -> Path:
        """Write every view as a table into a DuckDB database file (``duckdb FILE`` opens it), atomically."""
        target = Path(path)
        if target.suffix.lower() != ".duckdb":
            raise UserError("--export", json.dumps(str(path)), "a file ending in .duckdb")
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
        tmp.unlink(missing_ok=True)
        con = self.connect()
        try:
            con.execute(f"ATTACH {_sql_str(str(tmp))} AS export_db")
            for name in self.tables():
                con.execute(f"CREATE TABLE export_db.{name} AS SELECT * FROM {name}")
            con.execute("DETACH export_db")
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        finally:
            con.close()
        return target

    def query(self, sql: str) -> pd.DataFrame:
        """Run ``sql`` against the views; a bad query is a :class:`UserError` naming it.
        SQL NULL becomes NaN or None, as pandas does (:meth:`query_nullable` keeps it apart)."""
        return self._run(lambda con: con.execute(sql).df(), sql)

    def query_nullable(self, sql: str) -> pd.DataFrame:
        """As :meth:`query`, with Arrow-backed columns in which SQL NULL is ``pd.NA`` and a float
        NaN stays NaN (`cellcc query` prints them as NULL and NaN)."""

        def fetch(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
            relation = con.sql(sql)
            if relation is None:  # a statement that returns no rows
                return pd.DataFrame()
            # duckdb >= 1.4 names it to_arrow_table; older versions arrow.
            arrow = getattr(relation, "to_arrow_table", None) or relation.arrow
            return arrow().to_pandas(types_mapper=pd.ArrowDtype)

        return self._run(fetch, sql)

    def _run(self, fetch: Callable[[duckdb.DuckDBPyConnection], pd.DataFrame], sql: str) -> pd.DataFrame:
        con = self.connect()
        try:
            return fetch(con)
        except duckdb.Error as e:
            first = str(e).splitlines()[0]
            raise UserError("SQL", json.dumps(sql), f"a query over {', '.join(self.tables())} ({first})") from None
        finally:
            con.close()

    def tables(self) -> list[str]:
        """The views a query can use (tables with at least one stored run, and ``runs``)."""
        con = self.connect()
        try:
            return sorted(
                r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()
            )
        finally:
            con.close()

    def table(self, name: str) -> pd.DataFrame:
        """One table over every complete run, with the manifest's columns (key, seed, axes) first."""
        if name not in QUERY_TABLES:
            raise UserError("table", json.dumps(name), f"one of {', '.join(QUERY_TABLES)}")
        if name not in self.tables():
            return pd.DataFrame()
        return self.query(f"SELECT * FROM {name}")

    def flows(self) -> pd.DataFrame:
        return self.table("flows")

    def timeseries(self) -> pd.DataFrame:
        return self.table("timeseries")

    def metrics(self) -> pd.DataFrame:
        """One row per run: the per-run metrics (:mod:`cellcc.metrics`) with the axis columns."""
        return self.table("metrics")

    def pm(self) -> pd.DataFrame:
        return self.table("pm")


def missing(runs: Iterable[Any], complete: set[str]) -> list[Any]:
    """The runs (anything with a ``key``) whose key is not complete, first occurrence only."""
    seen = set(complete)
    out = []
    for run in runs:
        if run.key not in seen:
            seen.add(run.key)
            out.append(run)
    return out
