"""The measurements behind docs/ns3.md's two explained engine-vs-LENA differences (issue 9), from
the ns-3 driver's diagnostic options (CELLCC_NS3_DIAG, diag.cc) and the engine's own outputs.

    .venv/bin/python scripts/ns3_why.py rlc [um|am]   # 10 KiB RLC buffer: burst sizes, ACK batching
    .venv/bin/python scripts/ns3_why.py sr            # the engine's 10 KiB row under each SR period
    .venv/bin/python scripts/ns3_why.py drive OPTIONS # lte-channel-drive on ns-3 with OPTIONS, per second
    .venv/bin/python scripts/ns3_why.py drive engine  # the same on the engine
    .venv/bin/python scripts/ns3_why.py drive "engine srs_period_ms=2 seed=3 subband"  # engine variants

`drive` prints per second DL and UL "mean MCS / TBs / decoded Mbit/s / HARQ retx / residual"
(the `lte` table; second N is the slots starting in [N-1, N) s) and the uplink's silent gaps:
on ns-3 from a `trace` (uplink TBs), on the engine from the ACKs reaching the S1-U (pcap), where
gaps over `ENGINE_SILENCE_MS` are counted (its SR period makes gaps of up to 10 ms ordinary).
Engine words: `srs_period_ms=N` (cells[0].uplink), `seed=N`, `subband` (the drive's
lte-channel-drive-subband.toml); on ns-3 `seed=N` too, the other words are CELLCC_NS3_DIAG's.
Runs one ns-3 job at a time.
"""

from __future__ import annotations

import os
import struct
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import tomllib

import cellcc
from cellcc import builders
from cellcc.backends.ns3 import run as ns3_run

ROOT = Path(__file__).resolve().parent.parent
DRIVE = ROOT / "examples" / "crosscheck" / "lte-channel-drive.toml"
#: ns-3's default RLC MaxTxBufferSize (lte-rlc-um.cc, lte-rlc-am.cc): 10 KiB.
NS3_RLC_BUFFER_BYTES = 10 * 1024
#: LENA's default SRS period (LteEnbRrc::SrsPeriodicity), ms.
SRS_MS = 40
#: An engine uplink silence: no ACK at the S1-U for longer than this, ms (above the 10 ms SR period).
ENGINE_SILENCE_MS = 30
#: Packets closer than this belong to one burst: a 1500-B packet takes 12 us at 1 Gbit/s.
BURST_GAP_NS = 100_000
#: libpcap's microsecond magic, little-endian (the engine's pcap.rs), and its record header.
PCAP_MAGIC_US = b"\xd4\xc3\xb2\xa1"
PCAP_GLOBAL_HEADER_BYTES = 24
PCAP_RECORD_HEADER = struct.Struct("<IIII")


def pcap_times_ns(data: bytes) -> np.ndarray:
    """Timestamps (ns) of every record of a pcap file (micro- or nanosecond resolution)."""
    scale = 1000 if data[:4] == PCAP_MAGIC_US else 1
    out, off = [], PCAP_GLOBAL_HEADER_BYTES
    while off + PCAP_RECORD_HEADER.size <= len(data):
        sec, frac, incl, _ = PCAP_RECORD_HEADER.unpack_from(data, off)
        out.append(sec * 1_000_000_000 + frac * scale)
        off += PCAP_RECORD_HEADER.size + incl
    return np.array(out, dtype=np.int64)


def bursts(t_ns: np.ndarray) -> np.ndarray:
    """Sizes of the runs of events less than BURST_GAP_NS apart."""
    t = np.sort(t_ns)
    return np.diff(np.concatenate(([0], np.where(np.diff(t) > BURST_GAP_NS)[0] + 1, [len(t)])))


def rlc_scenario(mode: str, sr_period_ms: int | None = None) -> dict:
    """docs/ns3.md's 10 KiB row: CUBIC, 15 dB, 20 MHz, 2 s."""
    rlc = {"mode": mode, "tx_buffer_bytes": NS3_RLC_BUFFER_BYTES}
    flow = {"id": "down", "src": "server", "dst": "ue", "app": {"kind": "bulk"}, "cca": "cubic"}
    cell = {"uplink": {"sr_period_ms": sr_period_ms}} if sr_period_ms else {}
    return builders.lte_cell([{"sinr": {"kind": "fixed", "db": 15}, "rlc": rlc}], 20, [flow], 2.0, **cell)


def flow_line(name: str, out) -> str:
    f = out.flows.iloc[0]
    cwnd_kb = out.cwnd["cwnd_bytes"].max() / 1e3
    return (
        f"{name}: {f['throughput_bps'] / 1e6:.2f} Mbit/s, {f['tx_packets']} sent, {f['lost_packets']} lost, "
        f"{f['retransmits']} retransmissions, {f['timeouts']} RTOs, cwnd max {cwnd_kb:.1f} kB"
    )


def burst_line(what: str, t_ns: np.ndarray) -> str:
    b = bursts(t_ns)
    return f"  {what}: {len(t_ns)} in {len(b)} bursts, mean {b.mean():.2f}, max {b.max()}"


def rlc(mode: str = "um") -> None:
    sc = rlc_scenario(mode)
    engine = cellcc.run(sc | {"output": {"pcap": ["s1u:forward", "s1u:reverse"]}})
    print(flow_line("engine", engine))
    print(burst_line("data packets at the eNB", pcap_times_ns(engine.pcaps["s1u-forward"])))
    print(burst_line("ACKs at the eNB", pcap_times_ns(engine.pcaps["s1u-reverse"])))
    print(f"  uplink TBs {engine.lte[engine.lte['dir'] == 'ul']['tbs'].sum()}")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ[ns3_run.DIAG_ENV] = f"trace={tmp}"
        ns3 = ns3_run.run(sc)
        d = pd.read_csv(Path(tmp) / "diag.csv")
    print(flow_line("ns-3", ns3))
    ev = {k: g["t_ns"].to_numpy() for k, g in d.groupby("event")}
    sizes = d[d["event"] == "dl_rlc_in"]["bytes"].value_counts().head(3).to_dict()
    print(f"  RLC SDU sizes {sizes}")
    # PDCP TxPDU fires before the RLC decides: dl_rlc_in counts the SDUs it then drops too.
    print(burst_line("data packets at the eNB", ev["dl_rlc_in"]))
    drops = ev["dl_rlc_drop"]
    trains = np.split(np.sort(ev["dl_rlc_in"]), np.cumsum(bursts(ev["dl_rlc_in"]))[:-1])
    lossy = [len(t) for t in trains if ((drops >= t[0]) & (drops <= t[-1])).any()]
    print(f"  bursts with RLC drops: {len(lossy)} of {len(trains)}, mean size {np.mean(lossy):.1f}")
    print(burst_line("ACKs at the eNB", ev["ul_rx"]))
    print(f"  uplink TBs {len(ev['ul_tb'])}")
    delay_ms = d[d["event"] == "ul_rx"]["value"] / 1e6
    print(f"  ACK delay UE PDCP -> eNB PDCP ms p10/p50/p90 {np.percentile(delay_ms, [10, 50, 90]).round(1).tolist()}")


def sr() -> None:
    for period in (1, 5, 10, 20, 40, 80):
        out = cellcc.run(rlc_scenario("um", period))
        print(flow_line(f"sr_period_ms={period}", out), f"uplink TBs {out.lte[out.lte['dir'] == 'ul']['tbs'].sum()}")


def per_second(lte: pd.DataFrame, direction: str) -> str:
    # t_s is a slot's start on both sides (run.py lte_table): second N holds the slots in [N-1, N).
    x = lte[lte["dir"] == direction].assign(sec=np.floor(lte["t_s"].round(6)).astype(int) + 1)
    cells = []
    for _, s in x.groupby("sec"):
        tbs = s["tbs"].sum()
        mcs = (s["mcs_mean"] * s["tbs"]).sum() / max(tbs, 1)
        mbps = s["phy_throughput_bps"].mean() / 1e6
        cells.append(f"{mcs:.1f}/{tbs}/{mbps:.1f}/{s['harq_retx'].sum()}/{s['harq_residual_losses'].sum()}")
    return f"  {direction} " + " ".join(cells)


def silences_line(t_ms: np.ndarray, threshold_ms: float) -> str:
    """Gaps longer than `threshold_ms` between events at `t_ms`, and where they end on the SRS grid."""
    gaps = np.diff(t_ms)
    long = gaps > threshold_ms
    phases = pd.Series(np.round(t_ms[1:][long] % SRS_MS)).value_counts()
    return (
        f"  uplink silent > {threshold_ms} ms: {long.sum()} gaps, {gaps[long].sum():.0f} ms in all; "
        f"their ends mod {SRS_MS} ms: {phases.head(4).to_dict()}"
    )


def engine_drive(words: dict, cca: str):
    """The drive on the engine, with its `srs_period_ms` / `seed` / `subband` words."""
    path = DRIVE.with_name("lte-channel-drive-subband.toml") if "subband" in words else DRIVE
    sc = tomllib.loads(path.read_text())
    sc["flows"][0]["cca"] = cca
    if "seed" in words:
        sc["seed"] = int(words["seed"])
    if "srs_period_ms" in words:
        sc["cells"][0].setdefault("uplink", {})["srs_period_ms"] = int(words["srs_period_ms"])
    out = cellcc.run(sc | {"output": {"pcap": ["s1u:reverse"]}})
    return out, silences_line(pcap_times_ns(out.pcaps["s1u-reverse"]) / 1e6, ENGINE_SILENCE_MS)


def drive(options: str, cca: str = "cubic") -> None:
    words = dict(w.partition("=")[::2] for w in options.split())
    if "engine" in words:
        out, silences = engine_drive(words, cca)
    else:
        # `seed` picks the scenario's seed (the fading realization LENA replays); the rest is diag.
        os.environ[ns3_run.DIAG_ENV] = " ".join(w for w in options.split() if not w.startswith("seed="))
        out = ns3_run.run(sc_with_cca(cca, words.get("seed")))
        trace = words.get("trace")
        silences = ""
        if trace:
            ul = pd.read_csv(Path(trace) / "diag.csv").query("event == 'ul_tb'")
            silences = silences_line(ul["t_ns"].to_numpy() / 1e6, 5)
    print(flow_line(f"{options} {cca}", out))
    print(per_second(out.lte, "dl"))
    print(per_second(out.lte, "ul"))
    if silences:
        print(silences)


def sc_with_cca(cca: str, seed: str | None = None) -> dict:
    sc = tomllib.loads(DRIVE.read_text())
    sc["flows"][0]["cca"] = cca
    if seed is not None:
        sc["seed"] = int(seed)
    return sc


if __name__ == "__main__":
    command, *rest = sys.argv[1:]
    {"rlc": rlc, "sr": sr, "drive": drive}[command](*rest)
