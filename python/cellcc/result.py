"""The result of one run: the engine's tables as pandas DataFrames, plus the summary.

Columns and units are the engine's (``crates/cellcc-engine/src/output.rs``):

- ``flows``: one row per flow, ns-3 FlowMonitor statistics (throughput_bps, mean_delay_ms, ...).
- ``timeseries``: one row per (flow, slot).
- ``queues``: one row per (link direction, slot).
- ``cwnd``: one row per change of cwnd/ssthresh/pacing rate.
- ``rtt``: one row per RTT sample.
- ``lte``: one row per (cell, UE, direction, slot): CQI, MCS, TBs, PRBs, HARQ and RLC counters
  (empty without cells).
- ``handovers``: one row per handover of a network's UE: ``t_s``, ``ue``, ``source``, ``target``,
  ``interruption_ms``, ``forwarded_sdus``, ``lost_sdus`` (empty without a ``network``).
- ``wifi``: one row per (BSS, station, direction, slot): PPDUs, MCS, A-MPDU size, retries, MPDU
  losses, Block Ack timeouts, collisions, airtime share, delivered rate, queue (empty without BSSes).
- ``nr``: one row per (NR cell, UE, direction, slot): CQI, MCS, effective SINR, TBs, PRBs, symbols,
  HARQ, RLC and PDCP counters, capacity (empty without NR cells).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cellcc import store
from cellcc.provenance import provenance
from cellcc.scenario import Scenario
from cellcc.store import TABLES

if TYPE_CHECKING:
    import pandas as pd

    from cellcc._core import RunTables

__all__ = ["LTE_COLUMNS", "NR_COLUMNS", "TABLES", "WIFI_COLUMNS", "Result"]

#: The ``handovers`` table's columns (engine output.rs, docs/lte/network.md).
HANDOVER_COLUMNS = ["t_s", "ue", "source", "target", "interruption_ms", "forwarded_sdus", "lost_sdus"]
#: Columns of the ``lte`` table (crates/cellcc-engine/src/output.rs), for backends without cells.
LTE_COLUMNS = [
    "cell",
    "ue",
    "dir",
    "t_s",
    "cqi",
    "mcs_mean",
    "tbs",
    "phy_throughput_bps",
    "prbs",
    "harq_retx",
    "harq_residual_losses",
    "control_losses",
    "rlc_retx_pdus",
    "rlc_buffer_bytes",
    "rlc_drops",
    "capacity_bps",
    "first_tx_bler",
    "olla_offset_db",
    "pdcch_blocked",
    "aggregation_level",
    "sinr_age_ms",
]

#: Columns of the ``nr`` table (crates/cellcc-engine/src/output.rs), for backends and older run
#: folders without it.
NR_COLUMNS = [
    "cell",
    "ue",
    "dir",
    "t_s",
    "cqi",
    "mcs_mean",
    "sinr_eff_db",
    "tbs",
    "phy_throughput_bps",
    "prbs",
    "symbols",
    "harq_retx",
    "harq_residual_losses",
    "rlc_retx_pdus",
    "rlc_buffer_bytes",
    "rlc_drops",
    "capacity_bps",
    "first_tx_bler",
    "olla_offset_db",
    "pdcp_gaps_skipped",
]


#: Columns of the ``wifi`` table (crates/cellcc-engine/src/output.rs), for backends without BSSes.
WIFI_COLUMNS = [
    "bss",
    "station",
    "dir",
    "t_s",
    "ppdus",
    "mcs_mean",
    "ampdu_mpdus_mean",
    "ampdu_bytes_mean",
    "mpdu_retries",
    "mpdu_losses",
    "ba_timeouts",
    "collisions",
    "airtime_share",
    "delivered_bps",
    "queue_bytes",
    "queue_drops",
]


#: A table a result was built without (a backend without that medium, a folder written before the
#: table existed) stands empty with these columns.
_EMPTY_COLUMNS = {"wifi": WIFI_COLUMNS, "nr": NR_COLUMNS, "handovers": HANDOVER_COLUMNS}


def _frame(columns: Mapping[str, list[Any]]) -> pd.DataFrame:
    """A DataFrame in the engine's column order."""
    import pandas as pd

    return pd.DataFrame({name: pd.Series(values) for name, values in columns.items()}, columns=list(columns))


class Result:
    """One run. ``summary`` is the engine's; ``provenance`` says what produced it.

    Each table (``flows``, ``timeseries``, ``queues``, ``cwnd``, ``rtt``, ``lte``, ``wifi``, ``nr``,
    ``handovers``; :data:`TABLES`)
    is an attribute holding a pandas DataFrame. A run's tables arrive from the engine as
    columns of Python values and become DataFrames on first access, so `cellcc run` prints and
    writes a run without importing pandas (its start-up goal, issue 36).
    """

    def __init__(
        self,
        *,
        scenario: Scenario,
        seed: int,
        summary: dict[str, Any],
        provenance: dict[str, Any],
        pcaps: dict[str, bytes] | None = None,
        **tables: pd.DataFrame | Mapping[str, list[Any]],
    ) -> None:
        unknown = sorted(set(tables) - set(TABLES))
        if unknown:
            raise TypeError(f"Result() got unknown table(s) {unknown}; tables are {list(TABLES)}")
        self.scenario = scenario
        self.seed = seed
        self.summary = summary
        self.provenance = provenance
        self.pcaps = dict(pcaps or {})
        self._tables: dict[str, Any] = {
            name: tables.get(name, {c: [] for c in _EMPTY_COLUMNS.get(name, [])}) for name in TABLES
        }

    @classmethod
    def from_core(cls, scenario: Scenario, seed: int, raw: RunTables) -> Result:
        """Wrap what ``_core.run`` returned."""
        return cls(
            scenario=scenario,
            seed=seed,
            summary=raw["summary"],
            provenance=provenance(scenario.sha256, scenario.name, seed),
            pcaps=dict(raw["pcaps"]),
            **{name: raw[name] for name in TABLES},  # type: ignore[literal-required]
        )

    def __getattr__(self, name: str) -> pd.DataFrame:
        # Only called for attributes not set in __init__: the tables.
        if name in TABLES:
            value = self._tables[name]
            if not hasattr(value, "iloc"):
                value = self._tables[name] = _frame(value)
            return value
        raise AttributeError(f"'Result' object has no attribute {name!r}")

    def columns(self, name: str) -> Mapping[str, list[Any]] | pd.DataFrame:
        """Table ``name`` as it is held: the engine's columns (a mapping of lists) until the
        DataFrame is asked for, then the DataFrame. Writers use this to skip pandas."""
        return self._tables[name]

    def tables(self) -> dict[str, pd.DataFrame]:
        """``{name: DataFrame}`` for every table, in write order."""
        return {name: getattr(self, name) for name in TABLES}

    def save(self, out_dir: str | Path) -> Path:
        """Write this run to ``out_dir`` atomically (see :mod:`cellcc.store`)."""
        return store.write_run(self, out_dir)

    @classmethod
    def load(cls, run_dir: str | Path) -> Result:
        """Read a run folder written by :meth:`save` (or ``cellcc run --out``)."""
        return cls(**store.read_fields(run_dir))

    def __repr__(self) -> str:
        flows = self._tables["flows"]
        n = len(flows) if hasattr(flows, "iloc") else len(next(iter(flows.values()), []))
        return f"Result(scenario={self.scenario.name!r}, seed={self.seed}, flows={n})"
