"""The ns-3 backend: run a cellcc scenario on ns-3 3.44 through the compiled driver and return
the engine's output tables (crates/cellcc-engine/src/output.rs: same names, same columns).

    run(scenario) -> BackendRunOutput(summary, flows, timeseries, queues, cwnd, rtt)

Definitions, where ns-3 measures something its own way:
- `flows`: FlowMonitor's statistics of the flow's data direction (ns-3 src/flow-monitor), as the
  engine defines them: tx/rx packets and bytes are IP datagrams; `lost_packets` is every drop
  FlowMonitor saw (queue, IP) plus the error-model drops the driver counts at the receiving device
  (FlowMonitor would only count those 10 s later, by timeout); throughput is rx bytes over first tx
  to last rx; delay and jitter are FlowMonitor's `delaySum / rxPackets`, `jitterSum / (rxPackets-1)`.
  `retransmits` are TcpSocketBase's Retransmission trace; `timeouts` entries into CA_LOSS (ns-3
  enters it only on an RTO). RTT statistics are over every smoothed-RTT update's last sample
  (`LastRTT`), the engine's per-ACK samples.
- `timeseries`: FlowMonitor's counters read at every slot end and differenced; cwnd is the last
  CongestionWindow value at or before the slot's end; rtt_ms the mean of the slot's RTT samples.
- `queues`: every link direction's device DropTailQueue at slot ends (ns-3 counts the queue only,
  not the packet being serialised), plus a CE-marking direction's RED queue disc; drops per slot
  from the queues' Drop traces. The EPC's own
  links (S1-U, S5) are ns-3's, not in the table.
- `wifi` (with a BSS): per station, direction and slot, from every data PSDU a device starts
  sending (`WifiPhy::PhyTxPsduBegin`, wifi.cc): `ppdus`, `mcs_mean`, `ampdu_mpdus_mean`,
  `ampdu_bytes_mean` (the PSDU: MPDUs with delimiters and padding), `airtime_share`
  (`WifiPhy::CalculateTxDuration` of each). The rest (retries, losses, Block Ack timeouts,
  collisions, delivered rate, queue) is NaN.
- `lte` (with a cell): per UE, direction and slot, from LENA's traces (lte.cc): `tbs` (TBs
  received, HARQ retransmissions included), `mcs_mean`, `phy_throughput_bps` (bits of decoded TBs),
  `harq_retx` (TBs with redundancy version > 0), `harq_residual_losses` (TBs failed at the last
  redundancy version), `rlc_drops`. What LENA exposes no trace for (the CQI the scheduler used,
  PRBs, control losses, RLC retransmissions and buffer, capacity) is NaN. The summary gives each
  UE's mean downlink SINR as LENA measured it (`lte_dl_sinr_db`): the check that the position
  realises the scenario's SINR; `lte_dl_ctrl_sinr_db` and `lte_dl_data_sinr_db` the control- and
  data-region SINR (interferers.py), and with interfering cells `lte_interferer_rb_share`.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from cellcc.result import HANDOVER_COLUMNS, LTE_COLUMNS, WIFI_COLUMNS

from ..output import BackendRunOutput
from ..tables import percentile
from ..tcp_info import CA_STATES
from .build import driver_binary
from .channel import FADING_FILE, FadingTrace
from .interferers import interference_summary
from .plan import MARKING_NOTE, NotSupported, Ns3Plan, plan

NAN = float("nan")
NS_PER_S = 1e9
#: ns-3's initial ssthresh (TcpSocket::InitialSlowStartThreshold, UINT32_MAX) and the engine's
#: "no loss yet" value (report.rs: u64::MAX).
NS3_INFINITE_SSTHRESH = 2**32 - 1
U64_MAX = 2**64 - 1

__all__ = ["NotSupported", "plan", "run"]

#: Diagnostic options (docs/ns3.md, "Diagnostic options"; diag.cc): read from this environment
#: variable as `key=value` words, e.g. `fading=dl ul_cqi=pusch trace=/tmp/t`; never set by default.
DIAG_ENV = "CELLCC_NS3_DIAG"
#: Each option's values, the first being what an ordinary run does (`trace` takes a directory).
DIAG_OPTIONS = {
    "fading": ("both", "dl", "serving", "replay", "none"),
    "ul_pc": ("off", "open", "closed"),
    "ul_cqi": ("srs", "pusch"),
    # LteEnbRrc::SrsPeriodicity (lte-enb-rrc.cc): the scenario's `uplink.srs_period_ms` unless set.
    "srs_ms": ("scenario", "2", "5", "10", "20", "40", "80"),
}


#: ns-3's own variable of attribute defaults (core/model/object-base.cc); it reaches the driver.
NS3_DEFAULTS_ENV = "NS_ATTRIBUTE_DEFAULT"


def diag_record(text: str) -> str:
    """The plan's `diag` record for the options in `text` (empty: no record). Refuses an unknown
    option or value with a ValueError naming it."""
    fields = {k: v[0] for k, v in DIAG_OPTIONS.items()}
    for word in text.split():
        key, _, value = word.partition("=")
        allowed = DIAG_OPTIONS.get(key)
        if key == "trace" and value:
            fields[key] = str(Path(value).resolve())
            Path(value).mkdir(parents=True, exist_ok=True)
        elif allowed is None or value not in allowed:
            raise ValueError(f"{DIAG_ENV}: {word!r}: allowed {DIAG_OPTIONS} or trace=DIR")
        else:
            fields[key] = value
    return "diag " + " ".join(f"{k}={v}" for k, v in fields.items()) + "\n" if text.split() else ""


def run(scenario: dict | str, seed: int | None = None, base_dir: Path | None = None) -> BackendRunOutput:
    """Plan (refusing what cannot map), run the driver, and build the tables. `base_dir` resolves
    a relative SINR CSV path."""
    sc = json.loads(scenario) if isinstance(scenario, str) else scenario
    diag_text = os.environ.get(DIAG_ENV, "")
    # `fading=replay` needs the one-UE trace layout: the engine's TTI k at scenario time k ms.
    p = plan(sc, seed, base_dir, replay_fading="fading=replay" in diag_text.split())
    diag = diag_record(diag_text) if p.cell_id is not None else ""
    binary = driver_binary()
    with tempfile.TemporaryDirectory(prefix="cellcc-ns3-") as tmp:
        out = Path(tmp)
        (out / "plan.txt").write_text(p.text + diag)
        if p.fading is not None:
            write_fading_trace(p.fading, p.seed, out / FADING_FILE)
        started = time.perf_counter()
        proc = subprocess.run([str(binary), str(out / "plan.txt"), str(out)], capture_output=True, text=True)
        wall_s = time.perf_counter() - started
        if proc.returncode != 0:
            raise RuntimeError(f"ns-3 driver failed: {(proc.stderr or proc.stdout).strip()[-2000:]}")
        names = ("flows", "slots", "cwnd", "rtt", "queues", "lte", "wifi")
        raw = {name: pd.read_csv(out / f"{name}.csv") for name in names}
        network = {n: pd.read_csv(out / f"{n}.csv") for n in NETWORK_TRACES if (out / f"{n}.csv").exists()}
        summary = json.loads((out / "summary.json").read_text())
        # A network's driver writes no SINR probes (sinr.csv): its cells interfere as cells.
        if p.cell_id is not None and (out / "sinr.csv").exists():
            summary |= interference_summary(out, p.ue_ids, float(sc["duration_s"]))
    notes = [*p.notes, f"diagnostic run: {diag.strip()}"] if diag else list(p.notes)
    if ns3_defaults := os.environ.get(NS3_DEFAULTS_ENV):
        notes.append(f"{NS3_DEFAULTS_ENV}={ns3_defaults}: ns-3 defaults changed where the plan sets none")
    summary |= {"backend": "ns3", "seed": p.seed, "wall_s": wall_s, "notes": notes}
    if p.cell_id is not None:
        summary["lte_dl_sinr_db"] = mean_sinr_db(p, raw["lte"])
    handovers = handovers_table(p, network["handovers"]) if "handovers" in network else None
    lte = lte_table(p, raw["lte"])
    if handovers is not None:
        lte = with_serving_cells(p, lte, handovers)
    return BackendRunOutput(
        summary=summary,
        flows=flows_table(p, raw["flows"], raw["rtt"]),
        timeseries=timeseries_table(p, raw["slots"], raw["cwnd"], raw["rtt"]),
        queues=queues_table(p, raw["queues"]),
        cwnd=cwnd_table(p, raw["cwnd"]),
        rtt=rtt_table(p, raw["rtt"]),
        lte=lte,
        wifi=wifi_table(p, raw["wifi"]),
        **({"handovers": handovers} if handovers is not None else {}),
        **({"measurements": measurements_table(p, network["measurements"])} if "measurements" in network else {}),
    )


def write_fading_trace(t: FadingTrace, seed: int, path: Path) -> None:
    """The engine's fading of UE `t.ue` in TraceFadingLossModel's layout: one line per RB of
    `t.samples` dB values (trace-fading-loss-model.cc LoadTrace), the first `t.lead` samples
    holding TTI 0's values."""
    from cellcc import _core

    rows = _core.fading_trace_db(t.channel_json, seed, t.cell_id, t.ue, t.n_rbs, t.samples - t.lead)
    with path.open("w") as f:
        for row in rows:
            f.write(" ".join(f"{v:.4f}" for v in [row[0]] * t.lead + row))
            f.write("\n")


def _flow_ids(p: Ns3Plan, idx: pd.Series) -> pd.Series:
    return idx.map({f.index: f.flow_id for f in p.flows})


def flows_table(p: Ns3Plan, raw: pd.DataFrame, rtt: pd.DataFrame) -> pd.DataFrame:
    rows = []
    marking = MARKING_NOTE in p.notes
    by_idx = raw.set_index("idx")
    for f in p.flows:
        if f.index not in by_idx.index:
            rows.append(_silent_flow(f))
            continue
        r = by_idx.loc[f.index]
        first_tx, last_rx = r["first_tx_ns"] / NS_PER_S, r["last_rx_ns"] / NS_PER_S
        span = last_rx - first_tx
        done = f.app == "finite" and r["app_rx_bytes"] >= (f.bytes or 0)
        last_app = r["last_app_rx_ns"] / NS_PER_S if r["last_app_rx_ns"] >= 0 else NAN
        until = last_app if done else min(f.stop_s, p.duration_s)
        rtts = rtt.loc[rtt["idx"] == f.index, "rtt_ns"].to_numpy() / 1e6
        rows.append(
            {
                **_ids(f),
                "tx_packets": int(r["tx_packets"]),
                "tx_bytes": int(r["tx_bytes"]),
                "rx_packets": int(r["rx_packets"]),
                "rx_bytes": int(r["rx_bytes"]),
                "lost_packets": int(r["lost_packets"]),
                "loss_ratio": r["lost_packets"] / r["tx_packets"] if r["tx_packets"] else NAN,
                "throughput_bps": r["rx_bytes"] * 8 / span if span > 0 else NAN,
                "goodput_bps": r["app_rx_bytes"] * 8 / (until - f.start_s) if until > f.start_s else 0.0,
                "mean_delay_ms": r["delay_sum_ns"] / r["rx_packets"] / 1e6 if r["rx_packets"] else NAN,
                "mean_jitter_ms": r["jitter_sum_ns"] / (r["rx_packets"] - 1) / 1e6 if r["rx_packets"] > 1 else NAN,
                "retransmits": int(r["retransmits"]),
                "timeouts": int(r["timeouts"]),
                # With a CE-marking queue (plan.MARKING_NOTE) the driver does not count marks per flow.
                "ecn_marked_packets": NAN if marking else 0,
                "ecn_reductions": NAN if marking else 0,
                "rtt_mean_ms": float(rtts.mean()) if len(rtts) else NAN,
                "rtt_p50_ms": percentile(rtts, 0.5),
                "rtt_p95_ms": percentile(rtts, 0.95),
                "app_bytes_delivered": int(r["app_rx_bytes"]),
                "first_tx_s": first_tx,
                "last_rx_s": last_rx,
                "completion_s": last_app - f.start_s if done else NAN,
            }
        )
    return pd.DataFrame(rows)


def _ids(f) -> dict:
    return {"flow_id": f.flow_id, "src": f.src, "dst": f.dst, "transport": f.transport, "cca": f.cca}


def _silent_flow(f) -> dict:
    """A flow FlowMonitor never saw a packet of (it had not started by the end)."""
    zero = dict.fromkeys(("tx_packets", "tx_bytes", "rx_packets", "rx_bytes", "lost_packets", "retransmits"), 0)
    nan = dict.fromkeys(
        ("loss_ratio", "throughput_bps", "mean_delay_ms", "mean_jitter_ms", "rtt_mean_ms", "rtt_p50_ms"), NAN
    )
    return {
        **_ids(f),
        **zero,
        **nan,
        "goodput_bps": 0.0,
        "timeouts": 0,
        "ecn_marked_packets": 0,
        "ecn_reductions": 0,
        "rtt_p95_ms": NAN,
        "app_bytes_delivered": 0,
        "first_tx_s": NAN,
        "last_rx_s": NAN,
        "completion_s": NAN,
    }


def _slot_edges(p: Ns3Plan) -> np.ndarray:
    slot_s = p.slot_ms / 1e3
    n = int(np.ceil(p.duration_s / slot_s - 1e-9))
    return np.arange(n + 1) * slot_s


def timeseries_table(p: Ns3Plan, slots: pd.DataFrame, cwnd: pd.DataFrame, rtt: pd.DataFrame) -> pd.DataFrame:
    edges = _slot_edges(p)
    slot_s = p.slot_ms / 1e3
    n = len(edges) - 1
    cols = ("rx_bytes", "rx_packets", "delay_sum_ns", "lost_packets", "app_rx_bytes", "retransmits")
    out = []
    for f in p.flows:
        mine = slots[slots["idx"] == f.index]
        # As floats: a run shorter than one slot leaves the CSV without rows, whose columns read as objects.
        t = mine["t_ns"].to_numpy(dtype=float) / NS_PER_S
        # Counters at each slot end (0 before FlowMonitor first saw the flow), then per slot.
        at = {c: np.interp(edges, np.r_[0.0, t], np.r_[0.0, mine[c].to_numpy(dtype=float)]) for c in cols}
        per = {c: np.diff(at[c]) for c in cols}
        rx = per["rx_packets"]
        delay = np.divide(per["delay_sum_ns"] / 1e6, rx, out=np.full(n, NAN), where=rx > 0)
        cw = cwnd[cwnd["idx"] == f.index]
        cw_t, cw_v = cw["t_ns"].to_numpy(dtype=float) / NS_PER_S, cw["cwnd_bytes"].to_numpy(dtype=float)
        k = np.searchsorted(cw_t, edges[1:], side="right") - 1
        cwnd_at = np.where(k >= 0, cw_v[np.maximum(k, 0)] if len(cw_v) else NAN, NAN)
        rt = rtt[rtt["idx"] == f.index]
        slot_of = np.floor(rt["t_ns"].to_numpy(dtype=float) / NS_PER_S / slot_s).astype(int)
        rtt_ms = pd.Series(rt["rtt_ns"].to_numpy(dtype=float) / 1e6).groupby(slot_of).mean()
        for j in range(n):
            out.append(
                {
                    "flow_id": f.flow_id,
                    "t_s": edges[j],
                    "throughput_bps": per["rx_bytes"][j] * 8 / slot_s,
                    "goodput_bps": per["app_rx_bytes"][j] * 8 / slot_s,
                    "mean_delay_ms": delay[j],
                    "retransmits": round(per["retransmits"][j]),
                    "lost_packets": round(per["lost_packets"][j]),
                    "cwnd_bytes": cwnd_at[j] if f.transport == "tcp" else NAN,
                    "rtt_ms": float(rtt_ms.get(j, NAN)),
                }
            )
    return pd.DataFrame(out)


def cwnd_table(p: Ns3Plan, raw: pd.DataFrame) -> pd.DataFrame:
    """One row per change of (cwnd, ssthresh, pacing rate, state), as the engine records them."""
    cols = ["flow_id", "t_s", "cwnd_bytes", "ssthresh_bytes", "pacing_rate_bps", "ca_state"]
    if raw.empty:
        return pd.DataFrame(columns=cols)
    df = pd.DataFrame(
        {
            "flow_id": _flow_ids(p, raw["idx"]),
            "t_s": raw["t_ns"] / NS_PER_S,
            "cwnd_bytes": raw["cwnd_bytes"],
            "ssthresh_bytes": raw["ssthresh_bytes"]
            .astype("uint64")
            .where((raw["ssthresh_bytes"] != NS3_INFINITE_SSTHRESH) & (raw["ssthresh_bytes"] != 0), np.uint64(U64_MAX)),
            "pacing_rate_bps": raw["pacing_bps"],
            "ca_state": raw["ca_state"].map(dict(enumerate(CA_STATES))),
        }
    )
    # Several trace sources fire at one instant: keep the last state of each instant, then the changes.
    df = df[~df.duplicated(subset=["flow_id", "t_s"], keep="last")]
    key = df[["flow_id", "cwnd_bytes", "ssthresh_bytes", "pacing_rate_bps", "ca_state"]]
    return df[(key != key.shift()).any(axis=1)].reset_index(drop=True)[cols]


def rtt_table(p: Ns3Plan, raw: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "flow_id": _flow_ids(p, raw["idx"]),
            "t_s": raw["t_ns"] / NS_PER_S,
            "rtt_ms": raw["rtt_ns"] / 1e6,
            "srtt_ms": raw["srtt_ns"] / 1e6,
        },
        columns=["flow_id", "t_s", "rtt_ms", "srtt_ms"],
    )


def queues_table(p: Ns3Plan, raw: pd.DataFrame) -> pd.DataFrame:
    """Per link direction and slot: backlog at the slot's end, its maximum in the slot, drops in it."""
    cols = ["link", "t_s", "bytes", "packets", "max_bytes", "drops"]
    if raw.empty:
        return pd.DataFrame(columns=cols)
    df = raw.sort_values(["link", "dir", "t_ns"], kind="stable")
    drops = df.groupby(["link", "dir"])["drops"].diff().fillna(df["drops"]).astype(int)
    return pd.DataFrame(
        {
            "link": [p.link_names[(int(a), int(b))] for a, b in zip(df["link"], df["dir"], strict=True)],
            # A sample at time t closes the slot that started one slot earlier.
            "t_s": np.round(df["t_ns"].to_numpy() / NS_PER_S - p.slot_ms / 1e3, 9),
            "bytes": df["bytes"].to_numpy(),
            "packets": df["packets"].to_numpy(),
            "max_bytes": df["max_bytes"].to_numpy(),
            "drops": drops.to_numpy(),
        }
    )[cols].reset_index(drop=True)


DIRECTIONS = ("dl", "ul")


def lte_table(p: Ns3Plan, raw: pd.DataFrame) -> pd.DataFrame:
    """One row per (UE, direction, slot), in the engine's columns; NaN where LENA has no trace."""
    if p.cell_id is None or raw.empty:
        return pd.DataFrame(columns=list(LTE_COLUMNS))
    tbs = raw["tbs"].to_numpy(dtype=float)
    df = pd.DataFrame(
        {
            "cell": raw["ue"].map(dict(enumerate(p.ue_cells))) if p.ue_cells else p.cell_id,
            "ue": raw["ue"].map(dict(enumerate(p.ue_ids))),
            "dir": raw["dir"].map(dict(enumerate(DIRECTIONS))),
            # A sample at time t closes the slot that started one slot earlier.
            "t_s": np.round(raw["t_ns"].to_numpy() / NS_PER_S - p.slot_ms / 1e3, 9),
            "cqi": NAN,
            "mcs_mean": np.divide(raw["mcs_sum"].to_numpy(dtype=float), tbs, out=np.full(len(raw), NAN), where=tbs > 0),
            "tbs": raw["tbs"].to_numpy(),
            "phy_throughput_bps": raw["decoded_bits"].to_numpy() / (p.slot_ms / 1e3),
            "prbs": NAN,
            "harq_retx": raw["harq_retx"].to_numpy(),
            "harq_residual_losses": raw["residual"].to_numpy(),
            "control_losses": NAN,
            "rlc_retx_pdus": NAN,
            "rlc_buffer_bytes": NAN,
            "rlc_drops": raw["rlc_drops"].to_numpy(),
            "capacity_bps": NAN,
            # LENA keeps no outer loop, CCE budget or estimate age; its traces do not split first
            # transmissions' outcomes out.
            "first_tx_bler": NAN,
            "olla_offset_db": NAN,
            "pdcch_blocked": NAN,
            "aggregation_level": NAN,
            "sinr_age_ms": NAN,
        }
    )
    return df.sort_values(["ue", "dir", "t_s"], kind="stable").reset_index(drop=True)[list(LTE_COLUMNS)]


#: A network's traces (lte.cc BuildNetwork): handover events and layer 1 RSRP samples.
NETWORK_TRACES = ("handovers", "measurements")


def handovers_table(p: Ns3Plan, raw: pd.DataFrame) -> pd.DataFrame:
    """The engine's `handovers` table from LENA's events: a row per handover command at the UE
    (`start`, LteUeRrc HandoverStart), its interruption until the UE completed random access at
    the target (`end`, HandoverEndOk); LENA traces no SDU counts (NaN)."""
    cells = p.cell_ids
    rows = []
    for ue, ev in raw.sort_values("t_ns", kind="stable").groupby("ue", sort=True):
        start = None
        for e in ev.itertuples():
            if e.kind == "start":
                start = e
            elif e.kind == "end" and start is not None:
                rows.append((start.t_ns, ue, start.cell, start.target, (e.t_ns - start.t_ns) / 1e6))
                start = None
        if start is not None:
            rows.append((start.t_ns, ue, start.cell, start.target, NAN))
    rows.sort()
    df = pd.DataFrame(
        {
            "t_s": [r[0] / NS_PER_S for r in rows],
            "ue": [p.ue_ids[int(r[1])] for r in rows],
            "source": [cells[int(r[2])] for r in rows],
            "target": [cells[int(r[3])] for r in rows],
            "interruption_ms": [r[4] for r in rows],
            "forwarded_sdus": NAN,
            "lost_sdus": NAN,
        },
        columns=HANDOVER_COLUMNS,
    )
    return df


def measurements_table(p: Ns3Plan, raw: pd.DataFrame) -> pd.DataFrame:
    """Every layer 1 RSRP sample of LENA's UEs (LteUePhy ReportUeMeasurements), in the columns
    of `network.handover.measurements` (ids, scenario time)."""
    cells = p.cell_ids
    return pd.DataFrame(
        {
            "t_s": raw["t_ns"].to_numpy() / NS_PER_S,
            "ue": raw["ue"].map(dict(enumerate(p.ue_ids))),
            "cell": raw["cell"].map(dict(enumerate(cells))),
            "rsrp_dbm": raw["rsrp_dbm"].to_numpy(dtype=float),
        }
    )


def with_serving_cells(p: Ns3Plan, lte: pd.DataFrame, handovers: pd.DataFrame) -> pd.DataFrame:
    """Each `lte` row's `cell`: the one serving the UE at the slot's end (as the engine's)."""
    lte = lte.copy()
    slot_end = lte["t_s"] + p.slot_ms / 1e3
    for h in handovers.itertuples():
        lte.loc[(lte["ue"] == h.ue) & (slot_end > h.t_s), "cell"] = h.target
    return lte


def wifi_table(p: Ns3Plan, raw: pd.DataFrame) -> pd.DataFrame:
    """One row per (station, direction, slot), in the engine's columns, from the driver's
    cumulative data-PSDU counters; NaN where ns-3 is not traced."""
    if p.bss_id is None or raw.empty:
        return pd.DataFrame(columns=WIFI_COLUMNS)
    raw = raw.sort_values(["sta", "dir", "t_ns"], kind="stable")
    counts = ["ppdus", "mcs_sum", "mpdus", "bytes", "airtime_ns"]
    per_slot = raw.groupby(["sta", "dir"])[counts].diff().fillna(raw[counts])
    ppdus = per_slot["ppdus"].to_numpy(dtype=float)

    def mean(col: str) -> np.ndarray:
        return np.divide(per_slot[col].to_numpy(dtype=float), ppdus, out=np.full(len(raw), NAN), where=ppdus > 0)

    slot_s = p.slot_ms / 1e3
    df = pd.DataFrame(
        {
            "bss": p.bss_id,
            "station": raw["sta"].map({k + 1: s for k, s in enumerate(p.sta_ids)}).to_numpy(),
            "dir": raw["dir"].map(dict(enumerate(DIRECTIONS))).to_numpy(),
            "t_s": np.round(raw["t_ns"].to_numpy() / NS_PER_S - slot_s, 9),
            "ppdus": per_slot["ppdus"].to_numpy(dtype=np.uint64),
            "mcs_mean": mean("mcs_sum"),
            "ampdu_mpdus_mean": mean("mpdus"),
            "ampdu_bytes_mean": mean("bytes"),
            "mpdu_retries": NAN,
            "mpdu_losses": NAN,
            "ba_timeouts": NAN,
            "collisions": NAN,
            "airtime_share": per_slot["airtime_ns"].to_numpy(dtype=float) / NS_PER_S / slot_s,
            "delivered_bps": NAN,
            "queue_bytes": NAN,
            "queue_drops": NAN,
        }
    )
    return df.sort_values(["station", "dir", "t_s"], kind="stable").reset_index(drop=True)[WIFI_COLUMNS]


def mean_sinr_db(p: Ns3Plan, raw: pd.DataFrame) -> dict[str, float]:
    """Each UE's downlink SINR as LENA measured it, mean of the linear samples, in dB."""
    dl = raw[raw["dir"] == 0].groupby("ue")[["sinr_sum", "sinr_n"]].sum()
    return {
        p.ue_ids[int(ue)]: 10 * math.log10(r["sinr_sum"] / r["sinr_n"]) if r["sinr_n"] else NAN
        for ue, r in dl.iterrows()
    }
