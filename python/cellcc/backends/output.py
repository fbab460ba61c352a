"""What a non-engine backend (linux, ns3) returns: the engine's tables, by the engine's names."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from cellcc.result import HANDOVER_COLUMNS, LTE_COLUMNS, WIFI_COLUMNS

__all__ = ["BackendRunOutput"]


def _no_cells() -> pd.DataFrame:
    return pd.DataFrame(columns=LTE_COLUMNS)


def _no_handovers() -> pd.DataFrame:
    return pd.DataFrame(columns=HANDOVER_COLUMNS)


def _no_bsses() -> pd.DataFrame:
    return pd.DataFrame(columns=WIFI_COLUMNS)


@dataclass
class BackendRunOutput:
    """The tables of one run, with the engine's RunOutput names and columns
    (``lte`` and ``wifi`` stay empty on a backend that runs no cell or BSS)."""

    summary: dict
    flows: pd.DataFrame
    timeseries: pd.DataFrame
    queues: pd.DataFrame
    cwnd: pd.DataFrame
    rtt: pd.DataFrame
    lte: pd.DataFrame = field(default_factory=_no_cells)
    wifi: pd.DataFrame = field(default_factory=_no_bsses)
    pcaps: list = field(default_factory=list)
    #: A network's handovers (the engine's columns), and the layer 1 RSRP samples its UEs took
    #: (`t_s`, `ue`, `cell`, `rsrp_dbm`: what `network.handover.measurements` reads).
    handovers: pd.DataFrame = field(default_factory=_no_handovers)
    measurements: pd.DataFrame = field(default_factory=pd.DataFrame)
