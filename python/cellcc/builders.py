"""Scenario dicts for the shapes used again and again (tests, scripts, studies).

Each returns a plain scenario document (``cellcc.run`` accepts it as is); change any field
before running it. The shapes follow the bundled examples: ``two_hosts`` is one bottleneck
link, ``lte_cell`` is ``examples/lte_single_ue.toml`` (server -- pgw --S1-U, GTP-U-- eNB ~~ UEs).
"""

from __future__ import annotations

from typing import Any

__all__ = ["lte_cell", "two_hosts"]

#: ns-3 ``PointToPointEpcHelper`` S1-U: 10 Gbit/s, MTU 2000 (the GTP-U header must fit).
S1U_RATE_MBPS = 10_000.0
S1U_MTU_BYTES = 2000
#: One millisecond of S1-U propagation (examples/lte_single_ue.toml; ns-3's default is 0).
S1U_DELAY_MS = 1


def two_hosts(
    rate_mbps: float = 10, delay_ms: float = 20, duration_s: float = 3, cca: str = "cubic", **flow: Any
) -> dict[str, Any]:
    """server -- client over one link with a 50-packet drop-tail queue; one bulk flow."""
    return {
        "version": 1,
        "duration_s": duration_s,
        "nodes": [{"id": "server", "kind": "host"}, {"id": "client", "kind": "host"}],
        "links": [
            {
                "id": "bottleneck",
                "a": "server",
                "b": "client",
                "rate_mbps": rate_mbps,
                "delay_ms": delay_ms,
                "queue": {"kind": "drop_tail", "limit_packets": 50},
            }
        ],
        "flows": [{"src": "server", "dst": "client", "cca": cca, "app": {"kind": "bulk"}, **flow}],
    }


def lte_cell(
    ues: list[dict[str, Any]],
    bandwidth_mhz: float = 20,
    flows: list[dict[str, Any]] | None = None,
    duration_s: float = 2.0,
    internet_delay_ms: float = 10,
    internet_rate_mbps: float = 1000,
    names: list[str] | None = None,
    **cell: Any,
) -> dict[str, Any]:
    """An LTE cell behind an EPC: server -- pgw -- (S1-U) -- enb ~~ the UEs.

    ``ues`` are the cell's UE entries without ``node`` (``{"sinr": ..., "rlc": ...}``); they
    are named by ``names``, by default ``ue`` when there is one, else ``ue0``, ``ue1``, ....
    ``cell`` adds cell fields (``scheduler``, ``control_errors``, ...). ``flows`` defaults to none.
    """
    if names is None:
        names = ["ue"] if len(ues) == 1 else [f"ue{i}" for i in range(len(ues))]
    return {
        "version": 1,
        "duration_s": duration_s,
        "nodes": [
            {"id": "server", "kind": "host"},
            {"id": "pgw", "kind": "router"},
            {"id": "enb", "kind": "enb"},
            *({"id": n, "kind": "ue"} for n in names),
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
                **cell,
                "ues": [{"node": n, **u} for n, u in zip(names, ues, strict=True)],
            }
        ],
        "flows": flows or [],
    }
