"""Metrics derived from one run: the per-run row every comparison uses, and seed
003's balanced performance metric Pm per (flow, time slot).

Per-run metrics (over the run's TCP flows, from the engine's ``flows`` table):

- ``throughput_mbps`` / ``goodput_mbps``: sums of the flows' FlowMonitor throughput / goodput.
- ``delay_ms``: mean one-way delay, weighted by received packets.
- ``rtt_p95_ms``: 95th percentile of RTT samples (per flow, by the engine), averaged over flows.
- ``loss_pct``: lost / transmitted packets; ``retransmits``: retransmitted segments, summed.
- ``jain_index``: Jain's fairness of the flows' throughputs (1.0 with one flow).
- ``power_mbps_per_s``: Kleinrock's power, throughput / mean RTT (Mbit/s per second of RTT).
- ``pm_mean``: the mean of Pm over every (flow, slot) below.

Pm (Atxutegi, Fajardo, Liberal, seed 003, Eqs. 1-5), per TCP flow and slot of ``output.slot_ms``::

    A = K / Kt                  K: the flow's goodput in the slot; Kt: its available capacity
    B = Dmin / D                D: the flow's mean one-way delay in the slot; Dmin: its lowest D in the run
    C = max(0, (BDP - R*MSS) / BDP)   R: retransmissions in the slot; BDP = Kt * RTTmin / 8 bytes
    Pm = (a*A + b*B + c*C) / (a + b + c),   a = b = c = 1 (Eq. 4)

How the inputs are obtained (the paper measured them on its testbed; here they come from the scenario):

- ``Kt``: the capacity of the flow's bottleneck (the slowest direction on its path, found by a
  breadth-first search over the links) in that slot, divided by the number of flows crossing
  that direction that have started and not stopped. A rate link gives its ``rate_mbps`` (with
  ``rate_changes`` averaged over the slot); a Mahimahi trace link gives its delivery
  opportunities in the slot x ``mtu_bytes`` (Mahimahi ``link_queue.cc``: one MTU per
  opportunity). A flow to or from a UE is also bounded by its LTE or NR cell: the ``lte`` / ``nr`` table's
  ``capacity_bps`` for that UE and direction (the whole band at its MCS in every TTI) shared
  among the flows the cell carries in that direction. Where no capacity is known, A and C
  are NaN and Pm averages what is known. ``A`` is clipped at 1: the receiver may count one
  packet more than a slot's capacity at its edges.
- ``D``: the engine's per-slot mean one-way delay; a slot in which the flow received nothing
  has ``B = 0`` (the delay is unbounded as far as the receiver can tell).
- ``RTTmin``: the smallest RTT sample of the flow (``rtt`` table), else 2 x Dmin.
- ``MSS``: the flow's ``tcp.mss_bytes``, else the path MTU - 40 - 12 with timestamps (as the engine).
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any

import numpy as np
import pandas as pd

from cellcc.result import Result
from cellcc.stats import jain
from cellcc.traces import MAHIMAHI_PACKET_BYTES

__all__ = ["PM_WEIGHTS", "RUN_METRICS", "pm_slots", "run_metrics"]

#: Seed 003 Eq. 4: alpha = beta = gamma = 1 (every part equally important).
PM_WEIGHTS = (1.0, 1.0, 1.0)
#: Per-run metric columns, in table order.
RUN_METRICS = (
    "throughput_mbps",
    "goodput_mbps",
    "delay_ms",
    "rtt_p95_ms",
    "loss_pct",
    "retransmits",
    "jain_index",
    "power_mbps_per_s",
    "pm_mean",
)
_BPS_PER_MBPS = 1e6
_MS_PER_S = 1e3
_BITS_PER_BYTE = 8
#: IPv4 (20 B) + TCP (20 B) headers without options (RFC 791, RFC 793).
_IP_TCP_HEADER_BYTES = 40
#: The TCP timestamps option with its padding (RFC 7323 §3), on by default as Linux.
_TIMESTAMP_OPTION_BYTES = 12


def run_metrics(result: Result) -> dict[str, float]:
    """The per-run metrics of the module doc."""
    flows = result.flows[result.flows["transport"] == "tcp"] if "transport" in result.flows else result.flows
    rx = flows["rx_packets"].to_numpy(dtype=float)
    tx_total = float(flows["tx_packets"].sum())
    throughput_mbps = float(flows["throughput_bps"].sum()) / _BPS_PER_MBPS
    # pandas' mean skips NaN and gives NaN, without a warning, when a run has no RTT sample at all.
    rtt_mean_ms = float(flows["rtt_mean_ms"].mean()) if len(flows) else math.nan
    pm = pm_slots(result)
    return {
        "throughput_mbps": throughput_mbps,
        "goodput_mbps": float(flows["goodput_bps"].sum()) / _BPS_PER_MBPS,
        "delay_ms": float(np.nansum(flows["mean_delay_ms"] * rx) / rx.sum()) if rx.sum() > 0 else math.nan,
        "rtt_p95_ms": float(flows["rtt_p95_ms"].mean()) if len(flows) else math.nan,
        "loss_pct": 100.0 * float(flows["lost_packets"].sum()) / tx_total if tx_total > 0 else math.nan,
        "retransmits": float(flows["retransmits"].sum()),
        "jain_index": jain(flows["throughput_bps"].to_numpy(dtype=float)),
        "power_mbps_per_s": throughput_mbps / (rtt_mean_ms / _MS_PER_S) if rtt_mean_ms > 0 else math.nan,
        "pm_mean": float(np.nanmean(pm["pm"])) if pm["pm"].notna().any() else math.nan,
    }


def pm_slots(result: Result, weights: tuple[float, float, float] = PM_WEIGHTS) -> pd.DataFrame:
    """Pm per (TCP flow, slot): ``flow_id, t_s, goodput_bps, capacity_bps, delay_ms, retransmits, a, b, c, pm``."""
    doc = result.scenario.to_dict()
    slot_s = float(doc["output"]["slot_ms"]) / _MS_PER_S
    paths = {_flow_id(f, i): _path(doc, f["src"], f["dst"]) for i, f in enumerate(doc["flows"])}
    frames = []
    for i, flow in enumerate(doc["flows"]):
        if flow.get("transport", "tcp") != "tcp":
            continue
        fid = _flow_id(flow, i)
        ts = result.timeseries[result.timeseries["flow_id"] == fid]
        ts = ts[ts["t_s"] >= float(flow["start_s"]) - 1e-9]
        if ts.empty:
            continue
        t_s = ts["t_s"].to_numpy(dtype=float)
        share = np.fmin(_fair_share_bps(doc, paths, fid, t_s, slot_s), _cell_share_bps(result, doc, flow, t_s))
        frames.append(_pm_parts(ts, share, _rtt_min_ms(result, fid), _mss_bytes(doc, flow, paths[fid]), weights))
    columns = ["flow_id", "t_s", "goodput_bps", "capacity_bps", "delay_ms", "retransmits", "a", "b", "c", "pm"]
    return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(columns=columns)


def _pm_parts(
    ts: pd.DataFrame, kt_bps: np.ndarray, rtt_min_ms: float, mss_bytes: int, weights: tuple[float, float, float]
) -> pd.DataFrame:
    k = ts["goodput_bps"].to_numpy(dtype=float)
    d = ts["mean_delay_ms"].to_numpy(dtype=float)
    r = ts["retransmits"].to_numpy(dtype=float)
    delivered = (ts["rx_packets"].to_numpy(dtype=float) > 0) if "rx_packets" in ts else ~np.isnan(d)
    d_valid = np.where(delivered & (d > 0), d, np.nan)
    d_min = float(np.nanmin(d_valid)) if np.any(~np.isnan(d_valid)) else math.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.minimum(k / kt_bps, 1.0)
        b = np.where(np.isnan(d_valid), 0.0, d_min / d_valid)
        rtt_ms = rtt_min_ms if not math.isnan(rtt_min_ms) else 2.0 * d_min
        bdp_bytes = kt_bps * rtt_ms / _MS_PER_S / _BITS_PER_BYTE
        c = np.maximum(0.0, (bdp_bytes - r * mss_bytes) / bdp_bytes)
    parts = np.vstack([a, b, c])
    w = np.asarray(weights, dtype=float)[:, None]
    known = ~np.isnan(parts)
    pm = np.where(known, parts * w, 0.0).sum(axis=0) / np.where(known, w, 0.0).sum(axis=0)
    return pd.DataFrame(
        {
            "flow_id": ts["flow_id"].to_numpy(),
            "t_s": ts["t_s"].to_numpy(dtype=float),
            "goodput_bps": k,
            "capacity_bps": kt_bps,
            "delay_ms": d,
            "retransmits": r,
            "a": a,
            "b": b,
            "c": c,
            "pm": pm,
        }
    )


def _flow_id(flow: dict[str, Any], index: int) -> str:
    return str(flow.get("id") or f"flow{index}")


Hop = tuple[int, str]  # (link index, "forward" | "reverse")


def _path(doc: dict[str, Any], src: str, dst: str) -> list[Hop]:
    """Link directions from src to dst, fewest hops (the engine's static routes on a tree)."""
    came: dict[str, tuple[str, Hop] | None] = {src: None}
    todo = deque([src])
    while todo:
        node = todo.popleft()
        for i, link in enumerate(doc["links"]):
            for here, there, direction in ((link["a"], link["b"], "forward"), (link["b"], link["a"], "reverse")):
                if here == node and there not in came:
                    came[there] = (node, (i, direction))
                    todo.append(there)
    hops: list[Hop] = []
    node = dst
    while came.get(node) is not None:
        prev, hop = came[node]  # type: ignore[misc]
        hops.append(hop)
        node = prev
    return hops[::-1]


def _direction(doc: dict[str, Any], hop: Hop, key: str) -> Any:
    link = doc["links"][hop[0]]
    own = link[hop[1]].get(key)
    return own if own is not None else link.get(key)


def _capacity_bps(doc: dict[str, Any], hop: Hop, t_s: np.ndarray, slot_s: float) -> np.ndarray:
    """Capacity of one link direction in each slot [t, t + slot)."""
    trace = _direction(doc, hop, "trace")
    if trace:
        mtu = int(doc["links"][hop[0]]["mtu_bytes"]) or MAHIMAHI_PACKET_BYTES
        return _trace_capacity_bps(trace, t_s, slot_s, mtu)
    rate = _direction(doc, hop, "rate_mbps")
    if rate is None:
        return np.full(t_s.shape, np.nan)
    steps = [(0.0, float(rate))] + [
        (float(c["at_s"]), float(c["rate_mbps"])) for c in _direction(doc, hop, "rate_changes") or []
    ]
    return np.array([_mean_rate_mbps(steps, t, t + slot_s) for t in t_s]) * _BPS_PER_MBPS


def _mean_rate_mbps(steps: list[tuple[float, float]], lo: float, hi: float) -> float:
    total = 0.0
    for j, (at, rate) in enumerate(steps):
        end = steps[j + 1][0] if j + 1 < len(steps) else math.inf
        total += rate * max(0.0, min(hi, end) - max(lo, at))
    return total / (hi - lo)


def _trace_capacity_bps(path: str, t_s: np.ndarray, slot_s: float, mtu_bytes: int) -> np.ndarray:
    ms = np.loadtxt(path, dtype=np.int64, ndmin=1)
    period = max(int(ms[-1]), 1)
    out = []
    for t in t_s:
        lo, hi = round(t * _MS_PER_S), round((t + slot_s) * _MS_PER_S)
        opportunities = _count_until(ms, period, hi) - _count_until(ms, period, lo)
        out.append(opportunities * mtu_bytes * _BITS_PER_BYTE / slot_s)
    return np.asarray(out, dtype=float)


def _count_until(ms: np.ndarray, period: int, t_ms: int) -> int:
    """Opportunities of the looping trace at times < t_ms: opportunity k is at
    ms[k % n] + (k // n) * period, and ms lies in [0, period], so only the last two loops are partial."""
    loops, rest = divmod(t_ms, period)
    current = int(np.searchsorted(ms, rest, side="left"))
    if loops == 0:
        return current
    return (loops - 1) * len(ms) + int(np.searchsorted(ms, rest + period, side="left")) + current


def _fair_share_bps(
    doc: dict[str, Any], paths: dict[str, list[Hop]], fid: str, t_s: np.ndarray, slot_s: float
) -> np.ndarray:
    hops = paths[fid]
    if not hops:
        return np.full(t_s.shape, np.nan)
    caps = np.vstack([_capacity_bps(doc, hop, t_s, slot_s) for hop in hops])
    if np.all(np.isnan(caps)):
        return np.full(t_s.shape, np.nan)
    bottleneck = hops[int(np.nanargmin(np.nanmean(caps, axis=1)))]
    sharing = np.zeros(t_s.shape)
    for i, flow in enumerate(doc["flows"]):
        if bottleneck in paths[_flow_id(flow, i)]:
            stop = flow.get("stop_s")
            sharing += (t_s >= float(flow["start_s"]) - 1e-9) & (t_s < (math.inf if stop is None else float(stop)))
    return np.nanmin(caps, axis=0) / np.maximum(sharing, 1.0)


def _cell_share_bps(result: Result, doc: dict[str, Any], flow: dict[str, Any], t_s: np.ndarray) -> np.ndarray:
    """A flow to or from a UE: the cell's capacity for that UE in each slot (the ``lte`` or ``nr``
    table's ``capacity_bps``, the whole band at the UE's MCS) over the flows the cell carries in
    that direction then; NaN for a flow no cell carries."""
    cell_of = {u["node"]: (c["id"], "lte") for c in doc.get("cells", []) for u in c["ues"]}
    cell_of |= {u["node"]: (c["id"], "nr") for c in doc.get("nr_cells", []) for u in c["ues"]}
    for ue, direction, end in ((flow["dst"], "dl", "dst"), (flow["src"], "ul", "src")):
        if ue not in cell_of:
            continue
        cell, table = cell_of[ue]
        cells = result.lte if table == "lte" else result.nr
        rows = cells[(cells["cell"] == cell) & (cells["ue"] == ue) & (cells["dir"] == direction)]
        by_slot = dict(zip(np.round(rows["t_s"].to_numpy(dtype=float), 9), rows["capacity_bps"], strict=True))
        capacity = np.array([by_slot.get(round(float(t), 9), math.nan) for t in t_s])
        sharing = np.zeros(t_s.shape)
        for other in doc["flows"]:
            if cell_of.get(other[end]) == cell_of[ue]:
                stop = other.get("stop_s")
                active = (t_s >= float(other["start_s"]) - 1e-9) & (t_s < (math.inf if stop is None else float(stop)))
                sharing += active
        return capacity / np.maximum(sharing, 1.0)
    return np.full(t_s.shape, np.nan)


def _rtt_min_ms(result: Result, fid: str) -> float:
    rtt = result.rtt
    if rtt.empty:
        return math.nan
    own = rtt.loc[rtt["flow_id"] == fid, "rtt_ms"]
    return float(own.min()) if len(own) else math.nan


def _mss_bytes(doc: dict[str, Any], flow: dict[str, Any], hops: list[Hop]) -> int:
    tcp = {**(doc.get("tcp") or {}), **{k: v for k, v in (flow.get("tcp") or {}).items() if v is not None}}
    if tcp.get("mss_bytes"):
        return int(tcp["mss_bytes"])
    mtu = min((int(doc["links"][i]["mtu_bytes"]) for i, _ in hops), default=MAHIMAHI_PACKET_BYTES)
    options = _TIMESTAMP_OPTION_BYTES if tcp.get("timestamps", True) is not False else 0
    return mtu - _IP_TCP_HEADER_BYTES - options
