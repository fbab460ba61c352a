"""The result of one run: the engine's tables as pandas DataFrames, plus the summary.

Columns and units are the engine's (``crates/cellcc-engine/src/output.rs``):

- ``flows``: one row per flow, ns-3 FlowMonitor statistics (throughput_bps, mean_delay_ms, ...).
- ``timeseries``: one row per (flow, slot).
- ``queues``: one row per (link direction, slot).
- ``cwnd``: one row per change of cwnd/ssthresh/pacing rate.
- ``rtt``: one row per RTT sample.
- ``lte``: one row per (cell, UE, direction, slot): CQI, MCS, TBs, PRBs, HARQ and RLC counters
  (empty without cells).
- ``wifi``: one row per (BSS, station, direction, slot): PPDUs, MCS, A-MPDU size, retries, MPDU
  losses, Block Ack timeouts, collisions, airtime share, delivered rate, queue (empty without BSSes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from cellcc import store
from cellcc.provenance import provenance
from cellcc.scenario import Scenario
from cellcc.store import TABLES

if TYPE_CHECKING:
    from cellcc._core import RunTables

__all__ = ["LTE_COLUMNS", "TABLES", "WIFI_COLUMNS", "Result"]

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


def _empty_wifi() -> pd.DataFrame:
    return pd.DataFrame(columns=WIFI_COLUMNS)


def _frame(columns: dict[str, list[Any]]) -> pd.DataFrame:
    """A DataFrame in the engine's column order."""
    return pd.DataFrame({name: pd.Series(values) for name, values in columns.items()}, columns=list(columns))


@dataclass(frozen=True, eq=False)
class Result:
    """One run. ``summary`` is the engine's; ``provenance`` says what produced it."""

    scenario: Scenario
    seed: int
    summary: dict[str, Any]
    provenance: dict[str, Any]
    flows: pd.DataFrame
    timeseries: pd.DataFrame
    queues: pd.DataFrame
    cwnd: pd.DataFrame
    rtt: pd.DataFrame
    lte: pd.DataFrame
    wifi: pd.DataFrame = field(default_factory=_empty_wifi)
    pcaps: dict[str, bytes] = field(default_factory=dict)

    @classmethod
    def from_core(cls, scenario: Scenario, seed: int, raw: RunTables) -> Result:
        """Wrap what ``_core.run`` returned."""
        return cls(
            scenario=scenario,
            seed=seed,
            summary=raw["summary"],
            provenance=provenance(scenario.sha256, scenario.name, seed),
            pcaps=dict(raw["pcaps"]),
            **{name: _frame(raw[name]) for name in TABLES},  # type: ignore[literal-required]
        )

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
        return f"Result(scenario={self.scenario.name!r}, seed={self.seed}, flows={len(self.flows)})"
