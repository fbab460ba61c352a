"""Turn what the agents and the emulator recorded into the engine's output tables
(crates/cellcc-engine/src/output.rs: `flows`, `timeseries`, `queues`, `cwnd`, `rtt`, same columns),
so every plot and statistic works on both backends. Pure: JSON/CSV in, DataFrames out.

Where the kernel measures something differently from the engine, the column says what it holds:
- RTT: Linux exposes no per-ACK RTT sample to user space; `rtt.rtt_ms` and `rtt.srtt_ms` are both
  `tcpi_rtt` (the smoothed RTT, RFC 6298) read every 10 ms, and the flows' RTT statistics are
  taken over those readings.
- Packets and bytes (flows' tx/rx/lost, time series' throughput and lost), delay and jitter: for a flow alone in
  its direction, the emulator's own counts of IP datagrams into, out of and dropped on that
  direction, which is FlowMonitor's definition; with several flows in one direction (the emulator
  does not split per flow), the kernel's counters plus `segs * header_bytes` (IPv4 + TCP +
  timestamps), and NaN for lost.
- `rtt_ms` of a slot: mean of the srtt readings in it; `cwnd_bytes` of a slot: the last reading
  at or before it.
- `mean_delay_ms`, `mean_jitter_ms`: one-way delay from entering to leaving the emulator (queue,
  serialisation, propagation; the host stacks' microseconds are not in it), for a flow alone in
  its direction; NaN otherwise.
"""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd

from . import tcp_info
from .plan import RunPlan

NAN = float("nan")
#: tcpi_pacing_rate when no rate is set: ~0ULL (sk_max_pacing_rate default).
UNLIMITED_PACING = 2**64 - 1
#: The engine's ssthresh_bytes before any loss (report.rs: u64::MAX); its pacing_rate_bps is 0 when unpaced.
U64_MAX = 2**64 - 1
NS_PER_S = 1e9


def _t_s(t_ns: int | None, t0_ns: int) -> float:
    return NAN if t_ns is None else (t_ns - t0_ns) / NS_PER_S


def percentile(values: np.ndarray, q: float) -> float:
    """Nearest-rank percentile, as the engine's report.rs computes it (NaN when empty)."""
    if len(values) == 0:
        return NAN
    ordered = np.sort(values)
    rank = min(max(math.ceil(q * len(ordered)), 1), len(ordered))
    return float(ordered[rank - 1])


def _established(samples: list[dict]) -> list[dict]:
    """Readings with an RTT estimate (after the handshake)."""
    return [s for s in samples if s["rtt_us"]]


def _at(t_s: np.ndarray, sample_t: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Cumulative counter at times `t_s`, interpolated linearly between readings."""
    if len(sample_t) == 0:
        return np.zeros_like(t_s)
    return np.interp(t_s, sample_t, values, left=values[0], right=values[-1])


def _alone_in_direction(plan: RunPlan, f) -> bool:
    return sum(g.forward == f.forward for g in plan.flows) == 1


def _goodput_bps(plan: RunPlan, f, r: dict, done: bool, t0: int) -> float:
    """Application bytes over the flow's active time: start to completion, stop or run end (report.rs)."""
    until = _t_s(r["last_rx_ns"], t0) if done else min(f.stop_s, plan.duration_s)
    return r["bytes"] * 8 / (until - f.start_s) if until > f.start_s else 0.0


def flows_table(plan: RunPlan, t0: int, senders: list[dict], receivers: list[dict], emu: dict) -> pd.DataFrame:
    rows = []
    for f, s, r in zip(plan.flows, senders, receivers, strict=True):
        last = s["samples"][-1]
        if _alone_in_direction(plan, f):
            # FlowMonitor's counts exactly: IP datagrams into and out of the emulated path.
            d = emu["forward" if f.forward else "reverse"]
            tx_packets, tx_bytes = d["arrived_packets"], d["arrived_bytes"]
            rx_packets, rx_bytes_wire = d["delivered_packets"], d["delivered_bytes"]
            lost = d["queue_drops"] + d["random_losses"]
            delay_ms = d["delay_sum_ns"] / rx_packets / 1e6 if rx_packets else NAN
            jitter_ms = d["jitter_sum_ns"] / (rx_packets - 1) / 1e6 if rx_packets > 1 else NAN
        else:
            data_segs_in = r["samples"][-1][2] if r["samples"] else 0
            tx_packets, tx_bytes = last["segs_out"], last["bytes_sent"] + last["segs_out"] * plan.header_bytes
            rx_packets, rx_bytes_wire = data_segs_in, r["bytes"] + data_segs_in * plan.header_bytes
            lost = delay_ms = jitter_ms = NAN
        first_tx, last_rx = _t_s(s["first_tx_ns"], t0), _t_s(r["last_rx_ns"], t0)
        span = last_rx - first_tx
        done = f.app == "finite" and r["bytes"] >= (f.bytes or 0)
        rtts = np.array([x["rtt_us"] / 1e3 for x in _established(s["samples"])])
        rows.append(
            {
                "flow_id": f.flow_id,
                "src": f.src,
                "dst": f.dst,
                "transport": "tcp",
                "cca": s["cca"],
                "tx_packets": tx_packets,
                "tx_bytes": tx_bytes,
                "rx_packets": rx_packets,
                "rx_bytes": rx_bytes_wire,
                "lost_packets": lost,
                "loss_ratio": lost / tx_packets if tx_packets else NAN,
                "throughput_bps": rx_bytes_wire * 8 / span if span > 0 else NAN,
                "goodput_bps": _goodput_bps(plan, f, r, done, t0),
                "mean_delay_ms": delay_ms,
                "mean_jitter_ms": jitter_ms,
                "retransmits": last["total_retrans"],
                "timeouts": last["total_rto"] if last["total_rto"] is not None else NAN,
                # The plan refuses ECN-marking queues, so no packet is marked and no reduction follows.
                "ecn_marked_packets": 0,
                "ecn_reductions": 0,
                "rtt_mean_ms": float(rtts.mean()) if len(rtts) else NAN,
                "rtt_p50_ms": percentile(rtts, 0.5),
                "rtt_p95_ms": percentile(rtts, 0.95),
                "app_bytes_delivered": r["bytes"],
                "first_tx_s": first_tx,
                "last_rx_s": last_rx,
                "completion_s": last_rx - f.start_s if done else NAN,
            }
        )
    return pd.DataFrame(rows)


def emu_records(t0: int, stats_csv: str) -> pd.DataFrame:
    """The emulator's per-interval records with `t_s` from the run's time 0."""
    if not stats_csv.strip():
        return pd.DataFrame(columns=["direction", "t_ns", "t_s", "delivered_bytes"])
    raw = pd.read_csv(io.StringIO(stats_csv))
    return raw.assign(t_s=(raw["t_ns"] - t0) / NS_PER_S)


def timeseries_table(
    plan: RunPlan, t0: int, senders: list[dict], receivers: list[dict], queues: pd.DataFrame, records: pd.DataFrame
) -> pd.DataFrame:
    """Per flow and slot; counters interpolated at the slot edges; cwnd carried forward from the
    last reading, as the engine carries its last change.

    Throughput counts IP bytes as they arrive, like FlowMonitor: for a flow alone in its direction,
    the emulator's deliveries in that direction; otherwise the receiver's data segments times
    (MSS + headers), an estimate. Goodput is in-order payload, so it bunches after a recovery."""
    slot_s = plan.slot_ms / 1e3
    n = math.ceil(plan.duration_s / slot_s - 1e-9)
    edges = np.arange(n + 1) * slot_s
    out = []
    for f, s, r in zip(plan.flows, senders, receivers, strict=True):
        rt = np.array([(x[0] - t0) / NS_PER_S for x in r["samples"]])
        rb = np.array([x[1] for x in r["samples"]], dtype=float)
        rsegs = np.array([x[2] for x in r["samples"]], dtype=float)
        good = np.diff(_at(edges, rt, rb))
        direction = records[records["direction"] == ("forward" if f.forward else "reverse")]
        delay = np.full(n, NAN)
        if _alone_in_direction(plan, f) and len(direction):
            dt = direction["t_s"].to_numpy()
            wire = np.diff(_at(edges, dt, direction["delivered_bytes"].to_numpy(dtype=float)))
            packets = np.diff(_at(edges, dt, direction["delivered_packets"].to_numpy(dtype=float)))
            delay_ns = np.diff(_at(edges, dt, direction["delay_sum_ns"].to_numpy(dtype=float)))
            delay = np.divide(delay_ns / 1e6, packets, out=np.full(n, NAN), where=packets >= 1)
        else:
            mss = s["samples"][-1]["snd_mss"] or 0
            wire = np.diff(_at(edges, rt, rsegs)) * (mss + plan.header_bytes)
        st = np.array([(x["t_ns"] - t0) / NS_PER_S for x in s["samples"]])
        retr = np.diff(_at(edges, st, np.array([x["total_retrans"] for x in s["samples"]], dtype=float)))
        est = _established(s["samples"])
        slot_of = [int((x["t_ns"] - t0) / NS_PER_S // slot_s) for x in est]
        link = (plan.forward if f.forward else plan.reverse).name
        mine = queues[queues["link"] == link]
        drops = mine.set_index(mine["t_s"].round(9))["drops"] if _alone_in_direction(plan, f) else None
        cwnd = NAN
        for k in range(n):
            in_slot = [x for x, j in zip(est, slot_of, strict=True) if j == k]
            if in_slot:
                cwnd = in_slot[-1]["snd_cwnd"] * in_slot[-1]["snd_mss"]
            lost = NAN if drops is None else float(drops.get(round(edges[k], 9), 0))
            out.append(
                {
                    "flow_id": f.flow_id,
                    "t_s": edges[k],
                    "throughput_bps": wire[k] * 8 / slot_s,
                    "goodput_bps": good[k] * 8 / slot_s,
                    "mean_delay_ms": delay[k],
                    "retransmits": round(retr[k]),
                    "lost_packets": lost,
                    "cwnd_bytes": cwnd,
                    "rtt_ms": float(np.mean([x["rtt_us"] for x in in_slot])) / 1e3 if in_slot else NAN,
                }
            )
    return pd.DataFrame(out)


def cwnd_table(plan: RunPlan, t0: int, senders: list[dict]) -> pd.DataFrame:
    rows = []
    for f, s in zip(plan.flows, senders, strict=True):
        prev = None
        for x in _established(s["samples"]):
            ss = x["snd_ssthresh"]
            pace = x["pacing_rate_Bps"]
            row = {
                "flow_id": f.flow_id,
                "t_s": _t_s(x["t_ns"], t0),
                "cwnd_bytes": x["snd_cwnd"] * x["snd_mss"],
                "ssthresh_bytes": U64_MAX if ss >= tcp_info.INFINITE_SSTHRESH else ss * x["snd_mss"],
                "pacing_rate_bps": 0 if pace in (None, UNLIMITED_PACING) else pace * 8,
                "ca_state": tcp_info.CA_STATES[x["ca_state"]]
                if x["ca_state"] < len(tcp_info.CA_STATES)
                else str(x["ca_state"]),
            }
            key = (row["cwnd_bytes"], row["ssthresh_bytes"], row["pacing_rate_bps"], row["ca_state"])
            if key != prev:
                rows.append(row)
                prev = key
    return pd.DataFrame(rows, columns=["flow_id", "t_s", "cwnd_bytes", "ssthresh_bytes", "pacing_rate_bps", "ca_state"])


def rtt_table(plan: RunPlan, t0: int, senders: list[dict]) -> pd.DataFrame:
    rows = [
        {"flow_id": f.flow_id, "t_s": _t_s(x["t_ns"], t0), "rtt_ms": x["rtt_us"] / 1e3, "srtt_ms": x["rtt_us"] / 1e3}
        for f, s in zip(plan.flows, senders, strict=True)
        for x in _established(s["samples"])
    ]
    return pd.DataFrame(rows, columns=["flow_id", "t_s", "rtt_ms", "srtt_ms"])


def queues_table(plan: RunPlan, t0: int, stats_csv: str) -> pd.DataFrame:
    """Per bottleneck direction and slot: backlog at the slot's end, its maximum, drops in it."""
    cols = ["link", "t_s", "bytes", "packets", "max_bytes", "drops"]
    if not stats_csv.strip():
        return pd.DataFrame(columns=cols)
    raw = emu_records(t0, stats_csv)
    slot_s = plan.slot_ms / 1e3
    raw = raw[(raw["t_s"] > 0) & (raw["t_s"] <= plan.duration_s + 1e-9)]
    # A record at time t closes the interval ending at t: it belongs to the slot containing t - epsilon.
    raw = raw.assign(slot=np.floor((raw["t_s"] - 1e-9) / slot_s).astype(int))
    names = {"forward": plan.forward.name, "reverse": plan.reverse.name}
    g = raw.groupby(["direction", "slot"], sort=True).agg(
        bytes=("bytes", "last"), packets=("packets", "last"), max_bytes=("max_bytes", "max"), drops=("drops", "sum")
    )
    g = g.reset_index()
    return (
        pd.DataFrame(
            {
                "link": g["direction"].map(names),
                "t_s": g["slot"] * slot_s,
                "bytes": g["bytes"],
                "packets": g["packets"],
                "max_bytes": g["max_bytes"],
                "drops": g["drops"],
            }
        )[cols]
        .sort_values(["link", "t_s"], kind="stable")
        .reset_index(drop=True)
    )
