"""Scenario documents the LTE studies start from: a server behind the EPC's user plane and one
cell with its UEs, in the shape of ns-3 LENA's ``lena-simple-epc`` (and of
``examples/lte_single_ue.toml``)::

    server --(internet: rate, one-way delay)-- pgw --S1-U (GTP-U)-- enb ~~radio~~ ue0 .. ueN-1

Every field a study does not set keeps the engine's default (docs/lte.md), so a study's
parameter table only has to name what it chose.
"""

from __future__ import annotations

from typing import Any

from cellcc import builders

__all__ = ["lte_scenario"]


def lte_scenario(
    *,
    name: str,
    description: str,
    duration_s: float,
    n_ues: int,
    bandwidth_mhz: float,
    sinr: dict[str, Any],
    rlc: dict[str, Any],
    internet_rate_mbps: float,
    internet_delay_ms: float,
    cca: str,
    tcp: dict[str, Any] | None = None,
    cell: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A scenario document: ``n_ues`` UEs each receiving one bulk TCP flow (``flow<i>``) from ``server``."""
    ues = [f"ue{i}" for i in range(n_ues)]
    flows = [
        {"id": f"flow{i}", "src": "server", "dst": ue, "cca": cca, "app": {"kind": "bulk"}} for i, ue in enumerate(ues)
    ]
    entries = [{"sinr": dict(sinr), "rlc": dict(rlc)} for _ in ues]
    doc = builders.lte_cell(
        entries,
        bandwidth_mhz,
        flows,
        duration_s,
        internet_delay_ms=internet_delay_ms,
        internet_rate_mbps=internet_rate_mbps,
        names=ues,
        **(cell or {}),
    )
    doc |= {
        "name": name,
        "description": description,
        "seed": 1,
        # The per-sample cwnd and RTT traces are not needed (the per-slot time series carry cwnd and RTT)
        # and would make a study's store hundreds of megabytes.
        "output": {"cwnd_trace": False, "rtt_trace": False},
    }
    if tcp:
        doc["tcp"] = dict(tcp)
    return doc
