"""Scenario documents the LTE studies start from: a server behind the EPC's user plane and one
cell with its UEs, in the shape of ns-3 LENA's ``lena-simple-epc`` (and of
``examples/lte_single_ue.toml``)::

    server --(internet: rate, one-way delay)-- pgw --S1-U (GTP-U)-- enb ~~radio~~ ue0 .. ueN-1

Every field a study does not set keeps the engine's default (docs/lte.md), so a study's
parameter table only has to name what it chose.
"""

from __future__ import annotations

from typing import Any

__all__ = ["S1U_DELAY_MS", "S1U_MTU_BYTES", "S1U_RATE_MBPS", "lte_scenario"]

#: ns-3 ``PointToPointEpcHelper``: S1uLinkDataRate 10 Gb/s, S1uLinkMtu 2000 (as examples/lte_single_ue.toml).
S1U_RATE_MBPS = 10_000
S1U_MTU_BYTES = 2000
#: One millisecond of S1-U propagation (examples/lte_single_ue.toml; ns-3's default is 0).
S1U_DELAY_MS = 1


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
    doc: dict[str, Any] = {
        "version": 1,
        "name": name,
        "description": description,
        "duration_s": duration_s,
        "seed": 1,
        "nodes": [
            {"id": "server", "kind": "host"},
            {"id": "pgw", "kind": "router"},
            {"id": "enb", "kind": "enb"},
            *({"id": ue, "kind": "ue"} for ue in ues),
        ],
        "links": [
            {
                "id": "internet",
                "a": "server",
                "b": "pgw",
                "rate_mbps": internet_rate_mbps,
                "delay_ms": internet_delay_ms,
            },
            {
                "id": "s1u",
                "a": "pgw",
                "b": "enb",
                "rate_mbps": S1U_RATE_MBPS,
                "delay_ms": S1U_DELAY_MS,
                "mtu_bytes": S1U_MTU_BYTES,
                "tunnel": "gtpu",
            },
        ],
        "cells": [
            {
                "id": "cell0",
                "enb": "enb",
                "bandwidth_mhz": bandwidth_mhz,
                **(cell or {}),
                "ues": [{"node": ue, "sinr": dict(sinr), "rlc": dict(rlc)} for ue in ues],
            }
        ],
        "flows": [
            {"id": f"flow{i}", "src": "server", "dst": ue, "cca": cca, "app": {"kind": "bulk"}}
            for i, ue in enumerate(ues)
        ],
        # The per-sample cwnd and RTT traces are not needed (the per-slot time series carry cwnd and RTT)
        # and would make a study's store hundreds of megabytes.
        "output": {"cwnd_trace": False, "rtt_trace": False},
    }
    if tcp:
        doc["tcp"] = dict(tcp)
    return doc
