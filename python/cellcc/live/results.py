"""A live run as a run folder of the results store: the engine's tables (flows, timeseries,
queues, cwnd, rtt, lte), the derived pm/metrics rows as sweeps store them, and beside them
`radio.parquet`, `ifaces.parquet`, the recorded capacity traces and `live.json` (everything
measured, raw). So `cellcc query`, `report` and `recommend`'s statistics read live runs as they
read engine runs.

The run's `scenario.json` is its replay: two hosts joined by one link whose directions are the
recorded Mahimahi traces (before and after the run, joined), with the base RTT's half each way
(unless both clocks are known to agree) and the drop-tail queue the saturator saw; the flow is the
run's, with the congestion control that was in force on the sending host.

Time zero is when the sender started writing. On the receiver, whose clock is another host's,
it is taken as its first byte's arrival less half the base RTT (the path's one-way delay under
the symmetric assumption), unless the clock offset's bound is small (then the offset maps it).

Where a live run measures differently from the engine, the column says it:
- `rtt`: the sender's tcpi_rtt (smoothed, RFC 6298) every 10 ms, as the Linux backend's;
- flows' tx counts: the sender's TCP_INFO (segs_out, bytes_sent + headers); rx counts: the
  receiver's (data_segs_in, bytes + headers); lost packets and one-way delay are not known
  (NaN): no tap sees the path's drops;
- timeseries throughput: data segments in x (MSS + headers), the receiver's count.
"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd

from cellcc.backends import tables
from cellcc.backends.frontend import DocScenario
from cellcc.metrics import run_metrics
from cellcc.provenance import provenance
from cellcc.result import LTE_COLUMNS, Result
from cellcc.store import _parquet_bytes, run_files

from . import host, radio, tcp, udp

SLOT_MS = 100.0
NS = 1e9
#: IPv4 + TCP headers with the timestamps option (RFC 791, 793, 7323): what the engine counts.
HEADER_BYTES = 52
#: One-way delay is reported only when the clock offset is known to this fraction of it.
OWD_MAX_BOUND_FRACTION = 0.1
#: A bytes-bound replay may run this many times the live run's length (it ends when the flow does).
REPLAY_LENGTH_FACTOR = 2.0
REPLAY_MARGIN_S = 5.0
QUEUE_COLUMNS = ["link", "t_s", "bytes", "packets", "max_bytes", "drops"]


def _traces(capacity: dict[str, dict[str, Any]], direction: str) -> tuple[list[int], list[int]]:
    """The before and after recordings of `direction` as Mahimahi lines."""
    before, after = (udp.mahimahi_lines(_arrivals(capacity[w][direction])) for w in ("before", "after"))
    return before, after


def _arrivals(recording: dict[str, Any]) -> list[int]:
    return udp.saturated_arrivals(recording["receiver"], recording["sender"])


def joined(before: list[int], after: list[int]) -> list[int]:
    """Two recordings end to end: the second's times shifted by the first's length."""
    offset = before[-1] if before else 0
    return before + [offset + t for t in after]


def _queue(capacity: dict[str, dict[str, Any]], direction: str) -> int:
    values = [udp.queue_packets(capacity[w][direction]["sender"]) for w in ("before", "after")]
    values = [v for v in values if not math.isnan(v)]
    return max(1, round(float(np.mean(values)))) if values else 1


def _ends(direction: str) -> tuple[str, str]:
    return ("server", "client") if direction == "down" else ("client", "server")


def one_way_ms(m: dict[str, Any]) -> dict[str, float]:
    """Base one-way delay per direction: half the base RTT, or measured when the clocks agree."""
    base = float(min(m["base_rtt_ms"])) if m["base_rtt_ms"] else math.nan
    half = {"down": base / 2, "up": base / 2}
    bound_ms = m["clock"]["bound_ms"]
    if math.isnan(base) or bound_ms > OWD_MAX_BOUND_FRACTION * base / 2:
        return half
    offset = m["clock"]["offset_ns"]
    out = {}
    for d in ("down", "up"):
        rx = m["capacity"]["before"][d]["receiver"]
        owd = np.asarray(rx["arrival_real_ns"], float) - np.asarray(rx["send_real_ns"], float)
        # offset = server clock - client clock; a downlink packet is sent on the server's clock.
        owd = owd + (offset if d == "down" else -offset)
        out[d] = float(owd.min()) / 1e6 if len(owd) else half[d]
    return out


def replay_scenario(m: dict[str, Any], trace_dir: Path, name: str) -> dict[str, Any]:
    """The scenario that replays run `m` (module doc); trace paths inside `trace_dir`."""
    item, settings = m["item"], m["settings"]
    owd = one_way_ms(m)
    sender = m["sender"]
    src, dst = _ends(item["direction"])
    total = settings["transfer"][item["direction"]][0]
    length = m["length_s"]
    flow: dict[str, Any] = {"id": "flow0", "src": src, "dst": dst, "cca": sender["cca"]}
    if total:
        flow["app"] = {"kind": "finite", "bytes": int(total)}
        duration = length * REPLAY_LENGTH_FACTOR + REPLAY_MARGIN_S
    else:
        flow["app"] = {"kind": "bulk"}
        duration = length
    mss = sender["samples"][-1].get("snd_mss") if sender["samples"] else None
    if mss and mss + HEADER_BYTES <= settings["packet_bytes"]:
        flow["tcp"] = {"mss_bytes": int(mss)}

    def direction(d: str) -> dict[str, Any]:
        return {
            "trace": str(trace_dir / f"{d}.trace"),
            "delay_ms": round(owd[d], 3),
            "queue": {"kind": "drop_tail", "limit_packets": _queue(m["capacity"], d)},
        }

    doc: dict[str, Any] = {
        "version": 1,
        "name": name,
        "description": f"replay of live run {item['key']}: {item['place']}, {item['period']}, round {item['round']}",
        "duration_s": round(duration, 3),
        "seed": 1,
        "nodes": [{"id": "server", "kind": "host"}, {"id": "client", "kind": "host"}],
        "links": [
            {
                "id": "path",
                "a": "server",
                "b": "client",
                "mtu_bytes": settings["packet_bytes"],
                "forward": direction("down"),
                "reverse": direction("up"),
            }
        ],
        "flows": [flow],
        "output": {"slot_ms": SLOT_MS},
    }
    rmem, wmem = _buffer(m["receiver_host"], "tcp_rmem"), _buffer(m["sender_host"], "tcp_wmem")
    tcp_table = {k: v for k, v in (("tcp_rmem", rmem), ("tcp_wmem", wmem)) if v}
    if tcp_table:
        doc["tcp"] = tcp_table
    return doc


def _buffer(prov: dict[str, Any], name: str) -> list[int] | None:
    text = (prov.get("sysctls") or {}).get(f"net.ipv4.{name}")
    try:
        values = [int(x) for x in (text or "").split()]
    except ValueError:
        return None
    return values if len(values) == 3 else None


# -- the tables --------------------------------------------------------------------------------


def _interp(t: np.ndarray, st: np.ndarray, values: np.ndarray) -> np.ndarray:
    return np.interp(t, st, values, left=values[0], right=values[-1]) if len(st) else np.zeros_like(t)


def flows_table(m: dict[str, Any]) -> pd.DataFrame:
    s, r = m["sender"], m["receiver"]
    last = s["samples"][-1]
    rx_segs = r["samples"][-1]["data_segs_in"] if r["samples"] else 0
    t0_rx = m["t0_receiver_ns"]
    first_rx = (r["first_rx_ns"] - t0_rx) / NS if r["first_rx_ns"] else math.nan
    last_rx = (r["last_rx_ns"] - t0_rx) / NS if r["last_rx_ns"] else math.nan
    total = m["settings"]["transfer"][m["item"]["direction"]][0]
    done = bool(total) and r["bytes"] >= total
    until = last_rx if done else m["length_s"]
    rtts = np.array([x["rtt_us"] / 1e3 for x in s["samples"] if x["rtt_us"]])
    rx_wire = r["bytes"] + rx_segs * HEADER_BYTES
    src, dst = _ends(m["item"]["direction"])
    row = {
        "flow_id": "flow0",
        "src": src,
        "dst": dst,
        "transport": "tcp",
        "cca": s["cca"],
        "tx_packets": last["segs_out"],
        "tx_bytes": last["bytes_sent"] + last["segs_out"] * HEADER_BYTES,
        "rx_packets": rx_segs,
        "rx_bytes": rx_wire,
        "lost_packets": math.nan,
        "loss_ratio": math.nan,
        "throughput_bps": rx_wire * 8 / (last_rx - first_rx) if last_rx > first_rx else math.nan,
        "goodput_bps": r["bytes"] * 8 / until if until > 0 else 0.0,
        "mean_delay_ms": math.nan,
        "mean_jitter_ms": math.nan,
        "retransmits": last["total_retrans"],
        "timeouts": last["total_rto"] if last.get("total_rto") is not None else math.nan,
        "ecn_marked_packets": 0,
        "ecn_reductions": 0,
        "rtt_mean_ms": float(rtts.mean()) if len(rtts) else math.nan,
        "rtt_p50_ms": tables.percentile(rtts, 0.5),
        "rtt_p95_ms": tables.percentile(rtts, 0.95),
        "app_bytes_delivered": r["bytes"],
        "first_tx_s": 0.0,
        "last_rx_s": last_rx,
        "completion_s": last_rx if done else math.nan,
    }
    return pd.DataFrame([row])


def timeseries_table(m: dict[str, Any]) -> pd.DataFrame:
    s, r = m["sender"], m["receiver"]
    slot_s = SLOT_MS / 1e3
    n = max(1, math.ceil(m["length_s"] / slot_s - 1e-9))
    edges = np.arange(n + 1) * slot_s
    rt = np.array([(x["t_ns"] - m["t0_receiver_ns"]) / NS for x in r["samples"]])
    good = np.diff(_interp(edges, rt, np.array([x["bytes"] for x in r["samples"]], float)))
    mss = (s["samples"][-1].get("snd_mss") or 0) if s["samples"] else 0
    segs = np.array([x["data_segs_in"] for x in r["samples"]], float)
    wire = np.diff(_interp(edges, rt, segs)) * (mss + HEADER_BYTES)
    t0 = m["t0_sender_ns"]
    st = np.array([(x["t_ns"] - t0) / NS for x in s["samples"]])
    retr = np.diff(_interp(edges, st, np.array([x["total_retrans"] for x in s["samples"]], float)))
    est = [x for x in s["samples"] if x["rtt_us"]]
    slot_of = np.array([int((x["t_ns"] - t0) / NS // slot_s) for x in est])
    rows, cwnd = [], math.nan
    for k in range(n):
        in_slot = [x for x, j in zip(est, slot_of, strict=True) if j == k]
        if in_slot:
            cwnd = in_slot[-1]["snd_cwnd"] * in_slot[-1]["snd_mss"]
        rows.append(
            {
                "flow_id": "flow0",
                "t_s": edges[k],
                "throughput_bps": wire[k] * 8 / slot_s,
                "goodput_bps": good[k] * 8 / slot_s,
                "mean_delay_ms": math.nan,
                "retransmits": round(retr[k]),
                "lost_packets": math.nan,
                "cwnd_bytes": cwnd,
                "rtt_ms": float(np.mean([x["rtt_us"] for x in in_slot])) / 1e3 if in_slot else math.nan,
            }
        )
    return pd.DataFrame(rows)


def radio_table(m: dict[str, Any]) -> pd.DataFrame:
    t0 = m["t0_client_ns"]
    rows = [
        {"t_s": (row[0] - t0) / NS, "t_unix_s": row[1] / NS, **dict(zip(radio.FIELDS, row[2:], strict=True))}
        for row in m["radio"]["rows"]
    ]
    frame = pd.DataFrame(rows, columns=["t_s", "t_unix_s", *radio.FIELDS])
    for f in ("rat", "band", "cell_id"):
        frame[f] = frame[f].astype("string")
    return frame


def ifaces_table(m: dict[str, Any]) -> pd.DataFrame:
    t0 = m["t0_client_ns"]
    rows = [
        {
            "device": m["counters"]["device"],
            "t_s": (row[0] - t0) / NS,
            "t_unix_s": row[1] / NS,
            **dict(zip(host.COUNTERS, row[2:], strict=True)),
        }
        for row in m["counters"]["rows"]
    ]
    return pd.DataFrame(rows, columns=["device", "t_s", "t_unix_s", *host.COUNTERS])


# -- the run folder ----------------------------------------------------------------------------


def settle(m: dict[str, Any]) -> None:
    """Fill in what the tables read: sender/receiver records, the time bases, the run's length."""
    direction = m["item"]["direction"]
    local, remote = m["tcp"]["local"], m["tcp"]["remote"]
    s, r = (remote, local) if direction == "down" else (local, remote)
    s = {**s, "samples": tcp.rows(s["samples"])}
    r = {**r, "samples": tcp.rows(r["samples"])}
    m["sender"], m["receiver"] = s, r
    m["sender_host"], m["receiver_host"] = (
        (m["server"]["host"], m["client"]) if direction == "down" else (m["client"], m["server"]["host"])
    )
    clock = m["clock"]
    m["clock"] = {**clock, "bound_ms": clock["bound_ns"] / 1e6}
    base_ms = min(m["base_rtt_ms"]) if m["base_rtt_ms"] else 0.0
    m["t0_sender_ns"] = s["start_ns"]
    first = r["first_rx_ns"] or r["start_ns"]
    m["t0_receiver_ns"] = int(first - base_ms / 2 * 1e6)
    m["t0_client_ns"] = m["t0_receiver_ns"] if direction == "down" else m["t0_sender_ns"]
    last = r["last_rx_ns"] or first
    m["length_s"] = max(SLOT_MS / 1e3, (last - m["t0_receiver_ns"]) / NS)


def goodput_after_warmup_bps(m: dict[str, Any]) -> float:
    """The live summary's goodput: bytes received after `warmup_s` over the time after it."""
    r, warm = m["receiver"], m["settings"]["warmup_s"]
    t = np.array([(x["t_ns"] - m["t0_receiver_ns"]) / NS for x in r["samples"]])
    b = np.array([x["bytes"] for x in r["samples"]], float)
    if len(t) < 2 or m["length_s"] <= warm:
        return math.nan
    return float(
        (_interp(np.array([m["length_s"]]), t, b) - _interp(np.array([warm]), t, b))[0] * 8 / (m["length_s"] - warm)
    )


def run_folder_files(m: dict[str, Any], run_name: str) -> dict[str, bytes]:
    """Every file of the run's folder (see the module doc)."""
    settle(m)
    lines = {d: joined(*_traces(m["capacity"], d)) for d in ("down", "up")}
    empty = [d for d, x in lines.items() if not x]
    if empty:
        raise RuntimeError(f"the saturator recorded no {' or '.join(empty)}link capacity: no trace to replay")
    with tempfile.TemporaryDirectory(prefix="cellcc-live-") as tmp:
        tdir = Path(tmp)
        texts = {f"{d}.trace": udp.trace_text(x) for d, x in lines.items()}
        for when in ("before", "after"):
            for d in ("down", "up"):
                rec = udp.mahimahi_lines(_arrivals(m["capacity"][when][d]))
                texts[f"{d}-{when}.trace"] = udp.trace_text(rec)
        for name, text in texts.items():
            (tdir / name).write_text(text)
        doc = replay_scenario(m, tdir, run_name)
        sc = DocScenario(doc, str(tdir / "scenario.json"))
        plan_like = SimpleNamespace(flows=[SimpleNamespace(flow_id="flow0")])
        summary = live_summary(m, lines)
        result = Result(
            scenario=sc,  # type: ignore[arg-type]  # duck-typed, as the Linux backend's
            seed=int(m["item"]["round"]),
            summary=summary,
            provenance=provenance(sc.sha256, sc.name, int(m["item"]["round"])) | {"backend": "live"},
            flows=flows_table(m),
            timeseries=timeseries_table(m),
            queues=pd.DataFrame(columns=QUEUE_COLUMNS),
            cwnd=tables.cwnd_table(plan_like, m["t0_sender_ns"], [m["sender"]]),  # type: ignore[arg-type]
            rtt=tables.rtt_table(plan_like, m["t0_sender_ns"], [m["sender"]]),  # type: ignore[arg-type]
            lte=pd.DataFrame(columns=LTE_COLUMNS),
        )
        files = run_files(result, derived=True)
        metrics = run_metrics(result)
    # Not measured live (no tap on the path): metrics.run_metrics would read the NaN columns as 0.
    metrics |= {"delay_ms": math.nan, "loss_pct": math.nan}
    files["metrics.parquet"] = _parquet_bytes(pd.DataFrame([metrics]))
    written = json.loads(files["scenario.json"])
    files["scenario.json"] = (json.dumps(_relative(written, str(tdir) + "/"), sort_keys=True, indent=2) + "\n").encode()
    for name, text in texts.items():
        files[name] = text.encode()
    files["radio.parquet"] = _parquet_bytes(radio_table(m))
    files["ifaces.parquet"] = _parquet_bytes(ifaces_table(m))
    files["live.json"] = (json.dumps(m, sort_keys=True, default=str) + "\n").encode()
    return files


def _relative(doc: Any, prefix: str) -> Any:
    """`doc` with every path under `prefix` made relative to the run folder."""
    if isinstance(doc, dict):
        return {k: _relative(v, prefix) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_relative(v, prefix) for v in doc]
    return doc[len(prefix) :] if isinstance(doc, str) and doc.startswith(prefix) else doc


def live_summary(m: dict[str, Any], lines: dict[str, list[int]]) -> dict[str, Any]:
    s, r = m["sender"], m["receiver"]
    cap = {}
    for d, x in lines.items():
        period_ms = x[-1] if x else 0
        mean = len(x) * m["settings"]["packet_bytes"] * 8 / (period_ms * 1e3) if period_ms else math.nan
        cap[d] = {"mean_mbps": mean, "queue_packets": _queue(m["capacity"], d)}
    return {
        "backend": "live",
        "run": m["item"],
        "utc_day": m["utc_day"],
        "moved_bytes": m["moved_bytes"],
        "cca": {"sender": s["cca"], "receiver": r["cca"], "asked": m["item"]["cca"]},
        "sender_host": "server" if m["item"]["direction"] == "down" else "client",
        "tags": m.get("tags", {}),
        # TCP_INFO's view of the segment size: the sender's MSS and the receiver's advertised one.
        "mss_bytes": {
            "sender": s["samples"][-1].get("snd_mss") if s["samples"] else None,
            "receiver_advmss": r["samples"][-1].get("advmss") if r["samples"] else None,
        },
        "goodput_after_warmup_bps": goodput_after_warmup_bps(m),
        "warmup_s": m["settings"]["warmup_s"],
        "length_s": m["length_s"],
        "base_rtt_ms": min(m["base_rtt_ms"]) if m["base_rtt_ms"] else math.nan,
        "one_way_ms": one_way_ms(m),
        "clock": m["clock"],
        "capacity": cap,
        "stopped": r.get("stopped"),
        "radio": {
            "identity": m["radio"]["identity"],
            "unavailable": m["radio"]["unavailable"],
            "provider": m["radio"]["provider"],
        },
        "counters_unavailable": m["counters"]["unavailable"],
        "client": m["client"],
        "server": m["server"]["host"],
    }
