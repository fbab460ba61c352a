"""The measurements behind docs/ns3.md's two explained engine-vs-LENA differences (issue 9), from
the ns-3 driver's diagnostic options (CELLCC_NS3_DIAG, diag.cc) and the engine's own outputs.

    .venv/bin/python scripts/ns3_why.py rlc [um|am] [ns3]  # 10 KiB RLC buffer: bursts, ACK batching
                                                            # (ns3: both sides under tcp.profile "ns3")
    .venv/bin/python scripts/ns3_why.py sr            # the engine's 10 KiB row under each SR period
    .venv/bin/python scripts/ns3_why.py drive OPTIONS # lte-channel-drive on ns-3 with OPTIONS, per second
    .venv/bin/python scripts/ns3_why.py drive engine  # the same on the engine
    .venv/bin/python scripts/ns3_why.py drive "engine srs_period_ms=2 seed=3 subband"  # engine variants
    .venv/bin/python scripts/ns3_why.py celledge "engine subband static sigma=0"  # seed 004's cell
    .venv/bin/python scripts/ns3_why.py celledge "static sigma=0 fading=replay trace=/tmp/c"  # on ns-3
    .venv/bin/python scripts/ns3_why.py burst 25 am [QUEUE_PACKETS]  # a sweep row: the server's bursts
    .venv/bin/python scripts/ns3_why.py perue [BUFFER_BYTES]   # examples/lte_seed000_cell.toml per UE
    .venv/bin/python scripts/ns3_why.py startup FILE CCA [PROFILE]  # RTT p50/p95 of a run, then from 0.5 s

`drive` prints per second DL and UL "mean MCS / TBs / decoded Mbit/s / HARQ retx / residual"
(the `lte` table; second N is the slots starting in [N-1, N) s) and the uplink's silent gaps:
on ns-3 from a `trace` (uplink TBs), on the engine from the ACKs reaching the S1-U (pcap), where
gaps over `ENGINE_SILENCE_MS` are counted (its SR period makes gaps of up to 10 ms ordinary).
Engine words: `srs_period_ms=N` (cells[0].uplink), `seed=N`, `subband` (the drive's
lte-channel-drive-subband.toml); on ns-3 `seed=N` too, the other words are CELLCC_NS3_DIAG's.
`celledge` runs seed 004's cell (li_celledge._base: 57 cells, P.1411, EPA, UE in the 40 m box, RLC
UM) with saturated UDP, 1 s unless `dur=S`, and prints per 100 ms slot the DL "mean MCS / TBs /
RBs per TB / decoded Mbit/s"; words: `engine`, `tcp` (NewReno instead of UDP), `dur=S`,
`sigma=DB` (the shadowing sigma), `static` (the UE stays at the box centre), `subband` (the
engine's `cqi.dl_mcs_from = "worst_subband"`), `srs_period_ms=N`, `seed=N`; on ns-3 the rest are
CELLCC_NS3_DIAG's, and with `trace=DIR` the RBs per TB come from the TB sizes (TBS table
inverted, whole RBGs preferred where two RB counts share a TBS).
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
from cellcc.backends.crosscheck import srtt_grid
from cellcc.backends.ns3 import run as ns3_run
from cellcc.backends.ns3.lte import as_lena
from cellcc.studies import li_celledge


def engine_run(sc: dict):
    """The engine's run of a scenario ns-3 runs too: under the LENA profile, as ns-3 is LENA."""
    return cellcc.run(as_lena(sc)[0])


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


def rlc_scenario(mode: str, sr_period_ms: int | None = None, tcp_profile: str | None = None) -> dict:
    """docs/ns3.md's 10 KiB row: CUBIC, 15 dB, 20 MHz, 2 s; `tcp_profile` for both sides."""
    rlc = {"mode": mode, "tx_buffer_bytes": NS3_RLC_BUFFER_BYTES}
    flow = {"id": "down", "src": "server", "dst": "ue", "app": {"kind": "bulk"}, "cca": "cubic"}
    # An SR period asks for the standard SR/BSR procedure in place of LENA's ideal BSR.
    cell = {"uplink": {"sr_period_ms": sr_period_ms, "requests": "sr_bsr"}} if sr_period_ms else {}
    sc = builders.lte_cell([{"sinr": {"kind": "fixed", "db": 15}, "rlc": rlc}], 20, [flow], 2.0, **cell)
    if tcp_profile is not None:
        sc["tcp"] = {"profile": tcp_profile}
    return sc


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


def rlc(mode: str = "um", tcp_profile: str | None = None) -> None:
    sc = rlc_scenario(mode, tcp_profile=tcp_profile)
    engine = engine_run(sc | {"output": {"pcap": ["s1u:forward", "s1u:reverse"]}})
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
        out = engine_run(rlc_scenario("um", period))
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
    out = engine_run(sc | {"output": {"pcap": ["s1u:reverse"]}})
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


#: TS 36.213 Table 7.1.7.2.1-1 as the engine carries it (one line per I_TBS, N_PRB = 1..110).
TBS_TABLE = ROOT / "crates" / "cellcc-engine" / "src" / "lte" / "phy" / "data" / "tbs_36213_table_7_1_7_2_1_1.txt"
#: Words of `celledge` that shape the scenario (the others go to CELLCC_NS3_DIAG on ns-3).
#: TS 36.213 Table 7.1.6.1-1: RBG size at 10 MHz (50 RBs), seed 004's bandwidth.
CELLEDGE_RBG_RBS = 3
CELLEDGE_WORDS = ("engine", "tcp", "dur", "sigma", "static", "subband", "srs_period_ms", "seed")


def dl_tb_rbs(mcs: np.ndarray, tb_bytes: np.ndarray, rbg_rbs: int) -> np.ndarray:
    """RBs of each downlink TB from its MCS and size (LENA sizes a TB as TBS / 8 bytes). Two RB
    counts can share a TBS: LENA allocates whole RBGs, so a matching multiple of `rbg_rbs` wins,
    else the lowest match; -1 if none matches."""
    rows = [line.split(":")[1].split() for line in TBS_TABLE.read_text().splitlines() if line[:1].isdigit()]
    table = np.array(rows, dtype=np.int64) // 8
    # TS 36.213 Table 7.1.7.1-1: I_TBS = MCS (0-9), MCS - 1 (10-16), MCS - 2 (17-28).
    itbs = np.where(mcs <= 9, mcs, np.where(mcs <= 16, mcs - 1, mcs - 2))
    hits = table[itbs] == tb_bytes[:, None]
    whole = hits & (np.arange(1, table.shape[1] + 1) % rbg_rbs == 0)
    best = np.where(whole.any(axis=1), whole.argmax(axis=1), hits.argmax(axis=1))
    return np.where(hits.any(axis=1), best + 1, -1)


def celledge_scenario(words: dict) -> dict:
    sc = li_celledge._base(float(words.get("dur", 1.0)), "um", "tcp" if "tcp" in words else "udp")
    cell = sc["cells"][0]
    if "sigma" in words:
        cell["channel"]["shadowing"]["sigma_db"] = float(words["sigma"])
    if "static" in words:
        cell["ues"][0]["sinr"].pop("mobility")
    if "subband" in words:
        cell.setdefault("cqi", {})["dl_mcs_from"] = "worst_subband"
    if "srs_period_ms" in words:
        cell.setdefault("uplink", {})["srs_period_ms"] = int(words["srs_period_ms"])
    if "seed" in words:
        sc["seed"] = int(words["seed"])
    return sc


def celledge(options: str = "") -> None:
    words = dict(w.partition("=")[::2] for w in options.split())
    sc = celledge_scenario(words)
    trace = None
    if "engine" in words:
        out = engine_run(sc)
        dl = out.lte[out.lte["dir"] == "dl"]
        rbs = (dl["prbs"] / dl["tbs"].clip(lower=1)).to_numpy()
    else:
        os.environ[ns3_run.DIAG_ENV] = " ".join(w for w in options.split() if w.partition("=")[0] not in CELLEDGE_WORDS)
        out = ns3_run.run(sc)
        dl = out.lte[out.lte["dir"] == "dl"]
        rbs = np.full(len(dl), np.nan)
        if trace := words.get("trace"):
            tb = pd.read_csv(Path(trace) / "diag.csv").query("event == 'dl_tb'")
            mcs = np.where(tb["value"] >= 0, tb["value"], -1 - tb["value"])
            rbs_tb = dl_tb_rbs(mcs, tb["bytes"].to_numpy(), CELLEDGE_RBG_RBS)
            tb = tb.assign(rbs=rbs_tb, slot=tb["t_ns"] // 100_000_000)
            rbs = tb.groupby("slot")["rbs"].mean().reindex(range(len(dl))).to_numpy()
    print(flow_line(options or "ns-3", out))
    tbs = dl["tbs"].sum()
    print(
        f"  DL mean MCS {(dl['mcs_mean'] * dl['tbs']).sum() / max(tbs, 1):.2f}, {tbs} TBs, "
        f"{np.nanmean(rbs):.1f} RBs per TB, HARQ retx {dl['harq_retx'].sum()}, "
        f"decoded {dl['phy_throughput_bps'].mean() / 1e6:.2f} Mbit/s, "
        f"LENA CQI SINR {out.summary.get('lte_dl_sinr_db', {})}"
    )
    cells = [
        f"{m:.1f}/{n}/{r:.1f}/{b / 1e6:.1f}"
        for m, n, r, b in zip(dl["mcs_mean"], dl["tbs"], rbs, dl["phy_throughput_bps"], strict=True)
    ]
    print("  per 100 ms, DL MCS/TBs/RBs per TB/Mbit/s: " + " ".join(cells))


#: The one-UE sweep's server link (scripts/ns3_lte_sweep.py `scenario()`, `links[0]`).
SERVER_LINK = "internet:forward"
#: The part of a run its start-up transient holds, s (slow start, BBR's start-up and drain).
STARTUP_S = 0.5


def both_sides(sc: dict) -> tuple:
    """The engine (under the LENA profile) and ns-3 runs of one scenario."""
    return engine_run(sc), ns3_run.run(sc)


def burst(db: str, mode: str, queue_packets: str | None = None) -> None:
    """One row of the sweep's 1 MiB TCP table (CUBIC, Linux's TCP): throughput, delay, ACKs and
    what the server's bursts did to its link queue, with `queue_packets` a larger queue there."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import ns3_lte_sweep as sweep

    rlc = {"mode": mode, "tx_buffer_bytes": sweep.RLC_BUFFERS["1 MiB"]}
    sc = sweep.scenario(float(db), 20, {"kind": "bulk"}, rlc, "cubic")
    if queue_packets is not None:
        sc["links"][0]["queue"] = {"kind": "drop_tail", "limit_packets": int(queue_packets)}
    for name, out in zip(("engine", "ns-3"), both_sides(sc), strict=True):
        f, q = out.flows.iloc[0], out.queues
        link = q[q["link"] == SERVER_LINK]
        print(
            f"{name}: {f['throughput_bps'] / 1e6:.2f} Mbit/s, delay {f['mean_delay_ms']:.1f} ms, "
            f"{f['retransmits']} retransmissions; server link queue peak {link['max_bytes'].max()} B, "
            f"{link['drops'].max()} drops"
        )


def perue(buffer_bytes: str | None = None) -> None:
    """examples/lte_seed000_cell.toml per UE, both sides: Mbit/s, one-way delay, DL TBs; with
    `buffer_bytes`, that RLC buffer in every UE."""
    sc = tomllib.loads((ROOT / "examples" / "lte_seed000_cell.toml").read_text())
    if buffer_bytes is not None:
        for u in sc["cells"][0]["ues"]:
            u["rlc"]["tx_buffer_bytes"] = int(buffer_bytes)
    sides = both_sides(sc)
    for u in sc["cells"][0]["ues"]:
        cells = []
        for out in sides:
            f = out.flows.set_index("dst").loc[u["node"]]
            lte = out.lte
            tbs = lte[(lte["dir"] == "dl") & (lte["ue"] == u["node"])]["tbs"].sum()
            cells.append(f"{f['throughput_bps'] / 1e6:.3f} Mbit/s {f['mean_delay_ms']:.0f} ms {tbs} TBs")
        print(f"{u['node']} at {u['sinr']['db']} dB: engine " + " / ns-3 ".join(cells))


def startup(file: str, cca: str, tcp_profile: str | None = None) -> None:
    """RTT p50 / p95 (crosscheck's 10 ms srtt grid) of a run, and of its part after STARTUP_S."""
    sc = tomllib.loads(Path(file).read_text())
    for f in sc["flows"]:
        f["cca"] = cca
    if tcp_profile is not None:
        sc["tcp"] = {**sc.get("tcp", {}), "profile": tcp_profile}
    for name, out in zip(("engine", "ns-3"), both_sides(sc), strict=True):
        rtt = out.rtt
        whole, late = srtt_grid(rtt), srtt_grid(rtt[rtt["t_s"] > STARTUP_S])
        print(
            f"{name}: p50 / p95 {np.percentile(whole, 50):.1f} / {np.percentile(whole, 95):.1f} ms; "
            f"after {STARTUP_S} s {np.percentile(late, 50):.1f} / {np.percentile(late, 95):.1f} ms"
        )


if __name__ == "__main__":
    command, *rest = sys.argv[1:]
    commands = {"rlc": rlc, "sr": sr, "drive": drive, "celledge": celledge, "burst": burst, "perue": perue}
    {**commands, "startup": startup}[command](*rest)
