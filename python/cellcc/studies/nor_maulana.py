"""Seed 001: Nor & Maulana, "Performance Evaluation of TCP NewReno and TCP Vegas over LTE
Network" (ns-2): NewReno vs Vegas, FTP bulk to 2 UEs, 1500 B packets, 50 s; throughput, RTT
against packet size, packet loss and end-to-end delay (the paper's Table 1, Figures 4-5, Table 2).

Grid (sweep ``grid``): CCA {newreno, vegas} (both UEs' flows run the same CCA, so each CCA is
measured alone on the same cell) x packet size {500 .. 1500 B} x SINR {5, 15, 25 dB} (the paper's
radio conditions are unknown, so the findings are checked at three) x seeds. Sweep ``mixed``: one
NewReno and one Vegas flow sharing the cell (the other reading of "two UEs"), 1500 B, 15 dB.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from cellcc import plots
from cellcc.catalogue import Store
from cellcc.report import Block
from cellcc.stats import mean_ci
from cellcc.studies.common import (
    Finding,
    Param,
    SweepDef,
    Verdict,
    ci_text,
    figure,
    findings_blocks,
    ordering_verdict,
    paired_difference,
    params_block,
)
from cellcc.studies.lte_base import lte_scenario

NAME = "nor-maulana"
TITLE = "Seed 001 (Nor & Maulana): TCP NewReno vs TCP Vegas over LTE"
SEED_FILE = "001_d1ff8258059eb6c2.txt"

#: Table 1: 50 s runs, 1500 B packets, two UEs.
DURATION_S = 50.0
N_UES = 2
PAPER_PACKET_BYTES = 1500
#: IPv4 (20 B) + TCP (20 B) headers, no options (ns-2's TCP agents carry no timestamps; RFC 791, RFC 793).
HEADER_BYTES = 40
#: TS 36.101 Table 5.6-1 has no 11 MHz channel; 10 MHz (50 RBs) is the nearest one.
BANDWIDTH_MHZ = 10
#: Packet sizes of Figure 5's x axis (the paper does not list them): 500 B steps up to Table 1's 1500 B.
PACKET_SIZES_BYTES = (500, 750, 1000, 1250, 1500)
#: Radio conditions (the paper gives none it could be derived from): cell edge, middle, centre.
SINRS_DB = (5, 15, 25)
#: The SINR at which Table 2 and Figure 4 are re-made (the middle of the three).
MAIN_SINR_DB = 15
#: The server's link: seeds 000 and 004 use a 10 ms server link; 1 Gbit/s keeps it out of the way.
INTERNET_RATE_MBPS = 1000
INTERNET_DELAY_MS = 10
CCAS = ("newreno", "vegas")
#: Figure 5 says RTT exceeds 0.8 s "at the beginning of packet transfer": we read the first 5 s.
START_WINDOW_S = 5.0
PAPER_START_RTT_S = 0.8
#: Figure 4's "relatively stable": per-second throughput after this time varies by less than SHAPE_MAX_CV.
SHAPE_STEADY_FROM_S = 5.0
SHAPE_MAX_CV = 0.05
#: "Mostly half": a Vegas/NewReno RTT ratio in this band counts as the paper's one half.
RTT_RATIO_BAND = (0.35, 0.65)
#: Half-widths below this fraction of the mean are rounding of identical replicates.
IDENTICAL_RELATIVE = 1e-9
#: Slots before this are slow start; "empty buffer" shares are counted from here on.
STEADY_FROM_S = 1.0

#: The paper's numbers (Section III, Table 2).
PAPER = {
    "throughput_kbps": {"newreno": 1033.34, "vegas": 912.624},
    "loss_pct": {"newreno": 10.07, "vegas": 8.75},
    "delay_s": {"newreno": 0.46724, "vegas": 0.13720},
}

PARAMS = (
    Param(
        "channel bandwidth",
        f"{BANDWIDTH_MHZ} MHz (50 RBs)",
        "Table 1 says 11 MHz, which is not an LTE channel (TS 36.101 Table 5.6-1: 1.4/3/5/10/15/20); "
        "10 MHz is nearest.",
    ),
    Param(
        "SINR of the UEs",
        f"{', '.join(map(str, SINRS_DB))} dB (fixed), main {MAIN_SINR_DB} dB",
        "The paper names Two Ray Ground propagation but no positions or powers; the channel model is not yet in "
        "cellcc, so every finding is checked at a cell-edge, middle and centre SINR.",
    ),
    Param(
        "CCA per UE",
        "both UEs run the CCA under test; also one run of NewReno + Vegas sharing the cell",
        "The paper compares the two 'under similar network conditions' without saying whether they ran together.",
    ),
    Param(
        "packet size",
        f"IP packet {PAPER_PACKET_BYTES} B = 1460 B MSS + 40 B headers, no TCP timestamps",
        "ns-2's packetSize_ and its TCP agents have no timestamp option; our MTU is 1500 B.",
    ),
    Param(
        "Figure 5's packet sizes",
        ", ".join(f"{p} B" for p in PACKET_SIZES_BYTES),
        "Not listed in the paper; 250 B steps up to Table 1's 1500 B.",
    ),
    Param(
        "server link",
        f"{INTERNET_RATE_MBPS} Mbit/s, {INTERNET_DELAY_MS} ms one way",
        "Not given; seeds 000 and 004 use a 10 ms server link, and a fast one leaves the radio as the bottleneck.",
    ),
    Param(
        "RLC mode and buffer",
        "UM, 1 MiB transmission buffer (engine defaults)",
        "ns-2's LTE model has no RLC; UM (ns-3 RLC_UM_ALWAYS) lets radio losses reach TCP as the paper's 10% loss "
        "suggests; 1 MiB is seed 004's buffer and the engine default (docs/lte.md).",
    ),
    Param(
        "scheduler, HARQ, CQI",
        "proportional fair, 3 HARQ retransmissions, 1 ms wideband CQI, PDCCH errors on",
        "Engine defaults, all from ns-3 LENA (docs/lte.md).",
    ),
    Param(
        "Vegas alpha / beta",
        "Linux defaults (engine defaults)",
        "The paper does not say; ns-2's Vegas uses alpha=1, beta=3 segments, Linux alpha=2, beta=4.",
    ),
    Param(
        "flow start",
        "both FTP flows at t = 0, bulk for the whole 50 s",
        "Not given.",
    ),
    Param(
        "throughput, loss, delay",
        "per-flow mean throughput (FlowMonitor); loss = lost / sent packets; delay = mean one-way delay of "
        "received packets; RTT = mean of the sender's RTT samples",
        "The paper does not define them; these are ns-2/ns-3 FlowMonitor's definitions.",
    ),
)


def _mss(packet_bytes: int) -> int:
    return packet_bytes - HEADER_BYTES


def _base(duration_s: float, cca: str) -> dict[str, Any]:
    return lte_scenario(
        name="nor-maulana",
        description="Seed 001: 2 UEs, FTP bulk, NewReno vs Vegas, 10 MHz LTE",
        duration_s=duration_s,
        n_ues=N_UES,
        bandwidth_mhz=BANDWIDTH_MHZ,
        sinr={"kind": "fixed", "db": MAIN_SINR_DB},
        rlc={"mode": "um"},
        internet_rate_mbps=INTERNET_RATE_MBPS,
        internet_delay_ms=INTERNET_DELAY_MS,
        cca=cca,
        tcp={"timestamps": False, "mss_bytes": _mss(PAPER_PACKET_BYTES)},
    )


def sweeps(seeds: int, quick: bool) -> list[SweepDef]:
    """The grid and the shared-cell run (see the module doc); quick: 3 s, two sizes, one SINR."""
    duration = 3.0 if quick else DURATION_S
    sizes = (1000, PAPER_PACKET_BYTES) if quick else PACKET_SIZES_BYTES
    sinrs = (MAIN_SINR_DB,) if quick else SINRS_DB
    grid = SweepDef(
        name="grid",
        base=_base(duration, "newreno"),
        seeds=seeds,
        axes=[
            {"path": "flows[*].cca", "values": list(CCAS)},
            {"path": "tcp.mss_bytes", "values": [_mss(p) for p in sizes]},
            {"path": "cells[0].ues[*].sinr.db", "values": list(sinrs), "name": "sinr_db"},
        ],
        description="NewReno vs Vegas x packet size x SINR",
    )
    mixed = SweepDef(
        name="mixed",
        base=_base(duration, "newreno"),
        seeds=seeds,
        axes=[],
        fixed={"flows[flow1].cca": "vegas"},
        description="one NewReno and one Vegas flow sharing the cell",
    )
    return [grid, mixed]


# -- data --------------------------------------------------------------------------------------


def _per_run(store: Store) -> pd.DataFrame:
    """One row per run: per-flow mean throughput (kbit/s), loss %, delay (s), mean RTT (s), start RTT max (s)."""
    frame = store.query(
        """
        SELECT f.key, f.seed, f.cca, f.mss_bytes, f.sinr_db,
               avg(f.throughput_bps) / 1e3 AS throughput_kbps,
               100 * sum(f.lost_packets) / sum(f.tx_packets) AS loss_pct,
               sum(f.mean_delay_ms * f.rx_packets) / sum(f.rx_packets) / 1e3 AS delay_s,
               avg(f.rtt_mean_ms) / 1e3 AS rtt_s,
               sum(f.retransmits) AS retransmits
        FROM flows f GROUP BY ALL ORDER BY ALL
        """
    )
    start = store.query(
        f"SELECT key, max(rtt_ms) / 1e3 AS start_rtt_max_s FROM timeseries WHERE t_s < {START_WINDOW_S} GROUP BY key"
    )
    lte = store.query(
        "SELECT key, sum(rlc_drops) AS rlc_drops, sum(harq_residual_losses) AS harq_losses, "
        "sum(control_losses) AS control_losses, sum(harq_retx) AS harq_retx, "
        "avg(rlc_buffer_bytes) AS rlc_buffer_bytes, "
        f"100 * avg(CASE WHEN t_s < {STEADY_FROM_S} THEN NULL WHEN rlc_buffer_bytes = 0 THEN 1.0 ELSE 0.0 END) "
        "AS empty_slots_pct FROM lte WHERE dir = 'dl' GROUP BY key"
    )
    frame = frame.merge(start, on="key").merge(lte, on="key")
    return frame.assign(packet_bytes=frame["mss_bytes"] + HEADER_BYTES)


def _series(store: Store, sinr_db: float, packet_bytes: int) -> pd.DataFrame:
    """Per-flow throughput per second, averaged over flows and seeds (Figure 4)."""
    return store.query(
        f"""
        SELECT cca, floor(t_s) AS t_s, avg(throughput_bps) / 1e3 AS throughput_kbps
        FROM timeseries WHERE sinr_db = {sinr_db} AND mss_bytes = {_mss(packet_bytes)}
        GROUP BY ALL ORDER BY ALL
        """
    )


# -- report ------------------------------------------------------------------------------------


def report(stores: dict[str, Store], quick: bool) -> list[Block]:
    runs = _per_run(stores["grid"])
    sinrs = sorted(runs["sinr_db"].unique())
    main_sinr = MAIN_SINR_DB if MAIN_SINR_DB in sinrs else sinrs[len(sinrs) // 2]
    main = runs[(runs["sinr_db"] == main_sinr) & (runs["packet_bytes"] == PAPER_PACKET_BYTES)]
    blocks = [
        Block("h1", TITLE),
        Block(
            "p",
            "What this re-makes: Table 2 (packet loss and end-to-end delay), Figure 4 (throughput over time), "
            "Figure 5 (RTT against packet size) and the averages of Section III, from our runs of the same "
            f"setting. Every number is a mean over {runs['seed'].nunique()} seeds with its Student-t 95% interval. "
            "The radio channel (Two Ray Ground, fading) is not in cellcc yet: each UE has a fixed SINR, so "
            "the SINR is swept instead." + (" QUICK MODE: short runs, few points; not a result." if quick else ""),
        ),
        Block("p", _determinism_text(runs)),
        *params_block(PARAMS),
        *_table2(main, main_sinr),
        *_figures(stores["grid"], runs, main_sinr),
        *_mixed_section(stores["mixed"]),
        *_sinr_table(runs),
        *findings_blocks(
            [_shape_finding(_series(stores["grid"], main_sinr, PAPER_PACKET_BYTES)), *_findings(runs, main, main_sinr)]
        ),
    ]
    return blocks


def _determinism_text(runs: pd.DataFrame) -> str:
    by_point = runs.groupby(["cca", "packet_bytes", "sinr_db"])
    identical = int((by_point["throughput_kbps"].nunique() == 1).sum())
    retx = int(runs["harq_retx"].sum())
    return (
        f"Seeds: at {identical} of {by_point.ngroups} grid points every seed gave the same throughput, and the "
        f"{len(runs)} runs made {retx} HARQ retransmissions in all. With a fixed SINR and no fading, the MCS the "
        "CQI picks (ns-3 LENA's conservative mapping) decodes on the first transmission, so the BLER and PDCCH "
        "draws, the only random inputs here, never fail: the runs are deterministic, the intervals are 0 and a "
        "'paired p' of 0 or 1 is a fact about the model, not an inference. The paper's run-to-run variation "
        "would come from the fading channel, which is not in cellcc yet."
    )


def _table2(main: pd.DataFrame, sinr_db: float) -> list[Block]:
    rows = []
    for cca in CCAS:
        g = main[main["cca"] == cca]
        rows.append(
            {
                "TCP": cca,
                "paper throughput kbit/s": PAPER["throughput_kbps"][cca],
                "cellcc throughput kbit/s": ci_text(g["throughput_kbps"], "{:.0f}"),
                "paper loss %": PAPER["loss_pct"][cca],
                "cellcc loss %": ci_text(g["loss_pct"], "{:.3g}"),
                "paper delay s": PAPER["delay_s"][cca],
                "cellcc delay s": ci_text(g["delay_s"], "{:.3g}"),
                "cellcc mean RTT s": ci_text(g["rtt_s"], "{:.3g}"),
            }
        )
    return [
        Block("h2", f"Table 2 and the throughput averages ({PAPER_PACKET_BYTES} B packets, SINR {sinr_db} dB)"),
        Block("table", table=pd.DataFrame(rows)),
    ]


def _figures(store: Store, runs: pd.DataFrame, main_sinr: float) -> list[Block]:
    series = _series(store, main_sinr, PAPER_PACKET_BYTES)
    fig4 = figure(
        f"Figure 4 re-made: per-flow throughput over time, {PAPER_PACKET_BYTES} B, SINR {main_sinr} dB",
        lambda: plots.timeseries_plot(
            series, "throughput_kbps", "cca", "per-flow throughput (kbit/s)", f"Figure 4, SINR {main_sinr} dB"
        ),
    )
    blocks = [Block("h2", "Figures 4 and 5 re-made"), fig4]
    for sinr in sorted(runs["sinr_db"].unique()):
        summary = _summary(runs[runs["sinr_db"] == sinr], ["cca", "packet_bytes"], ["rtt_s", "delay_s"])
        blocks.append(
            figure(
                f"Figure 5 re-made: mean RTT against packet size, SINR {sinr} dB (95% CI band)",
                lambda s=summary: plots.metric_vs_param(s, "packet_bytes", "rtt_s", "cca", "mean RTT (s)"),
            )
        )
    table = _summary(runs, ["sinr_db", "packet_bytes", "cca"], ["rtt_s", "throughput_kbps", "loss_pct"])
    blocks.append(Block("p", "RTT, throughput and loss at every grid point (mean and 95% half-width over seeds):"))
    blocks.append(Block("table", table=table))
    return blocks


def _summary(frame: pd.DataFrame, by: list[str], metrics: list[str]) -> pd.DataFrame:
    rows = []
    for keys, g in frame.groupby(by, sort=True):
        row: dict[str, Any] = dict(zip(by, keys if isinstance(keys, tuple) else (keys,), strict=True))
        for m in metrics:
            ci = mean_ci(g[m].to_numpy(dtype=float))
            # Identical replicates leave float rounding (1e-17) as the spread: show it as 0.
            half = 0.0 if ci.half_width <= IDENTICAL_RELATIVE * abs(ci.mean) else ci.half_width
            row[f"{m}_mean"], row[f"{m}_ci95"] = ci.mean, half
        rows.append(row)
    return pd.DataFrame(rows)


def _mixed_section(store: Store) -> list[Block]:
    flows = store.query(
        "SELECT seed, cca AS tcp, throughput_bps / 1e3 AS throughput_kbps, loss_ratio * 100 AS loss_pct, "
        "mean_delay_ms / 1e3 AS delay_s, rtt_mean_ms / 1e3 AS rtt_s FROM flows ORDER BY seed, tcp"
    )
    rows = [
        {
            "TCP": tcp,
            "throughput kbit/s": ci_text(g["throughput_kbps"], "{:.0f}"),
            "loss %": ci_text(g["loss_pct"]),
            "delay s": ci_text(g["delay_s"]),
            "mean RTT s": ci_text(g["rtt_s"]),
        }
        for tcp, g in flows.groupby("tcp", sort=True)
    ]
    return [
        Block("h2", "The other reading: one NewReno and one Vegas flow sharing the cell"),
        Block(
            "p",
            f"{PAPER_PACKET_BYTES} B packets, SINR {MAIN_SINR_DB} dB, same seeds. The two flows share the cell's "
            "RBs, but in LTE each UE has its own RLC buffer at the eNB and the proportional-fair scheduler splits "
            "the RBs evenly between backlogged UEs, so the two CCAs never meet in a queue: each flow gets what "
            "it got when both UEs ran its CCA (compare with Table 2).",
        ),
        Block("table", table=pd.DataFrame(rows)),
    ]


def _sinr_table(runs: pd.DataFrame) -> list[Block]:
    at = runs[runs["packet_bytes"] == PAPER_PACKET_BYTES]
    rows = []
    for sinr, g in at.groupby("sinr_db", sort=True):
        row: dict[str, Any] = {"SINR dB": sinr}
        for metric, label in (("throughput_kbps", "throughput"), ("loss_pct", "loss"), ("delay_s", "delay")):
            d = paired_difference(g, "cca", "newreno", "vegas", metric)
            row[f"{label}: NewReno vs Vegas"] = d.text()
        row["RLC drops NewReno / Vegas"] = " / ".join(f"{g.loc[g['cca'] == c, 'rlc_drops'].mean():.0f}" for c in CCAS)
        row["HARQ+PDCCH losses NewReno / Vegas"] = " / ".join(
            f"{(g.loc[g['cca'] == c, 'harq_losses'] + g.loc[g['cca'] == c, 'control_losses']).mean():.0f}" for c in CCAS
        )
        rows.append(row)
    return [
        Block("h2", f"The comparison at each SINR ({PAPER_PACKET_BYTES} B), with where the losses happen"),
        Block(
            "p",
            "Paired by seed (same seed: same BLER and PDCCH draws). RLC drops are SDUs the eNB's full "
            "transmission buffer refused; HARQ+PDCCH losses are transport blocks lost on the air after the last "
            "HARQ retransmission or to a missed grant (downlink, summed over the run, mean over seeds).",
        ),
        Block("table", table=pd.DataFrame(rows)),
    ]


# -- findings ----------------------------------------------------------------------------------


def _holds_at(runs: pd.DataFrame, metric: str, newreno_greater: bool) -> str:
    """At which SINRs (1500 B) the ordering NewReno vs Vegas holds significantly."""
    at = runs[runs["packet_bytes"] == PAPER_PACKET_BYTES]
    ok = [
        f"{s:g}"
        for s, g in at.groupby("sinr_db", sort=True)
        if ordering_verdict(newreno_greater, paired_difference(g, "cca", "newreno", "vegas", metric)) is Verdict.AGREES
    ]
    return f"holds at SINR {', '.join(ok)} dB" if ok else "holds at no SINR we ran"


def _findings(runs: pd.DataFrame, main: pd.DataFrame, sinr: float) -> list[Finding]:
    thr = paired_difference(main, "cca", "newreno", "vegas", "throughput_kbps")
    loss = paired_difference(main, "cca", "newreno", "vegas", "loss_pct")
    delay = paired_difference(main, "cca", "newreno", "vegas", "delay_s")
    return [
        Finding(
            "NewReno's throughput is slightly higher than Vegas'",
            "1033 vs 913 kbit/s (+13%)",
            f"{thr.text(' kbit/s', '{:.0f}')}; {_holds_at(runs, 'throughput_kbps', True)}",
            ordering_verdict(True, thr),
            _throughput_why(thr, main),
        ),
        Finding(
            "NewReno loses more packets than Vegas",
            "10.07% vs 8.75%",
            f"{loss.text('%')}; {_holds_at(runs, 'loss_pct', True)}",
            ordering_verdict(True, loss),
            _loss_why(main),
        ),
        Finding(
            "NewReno's end-to-end delay is higher than Vegas'",
            "0.467 s vs 0.137 s (3.4x)",
            f"{delay.text(' s')}; {_holds_at(runs, 'delay_s', True)}",
            ordering_verdict(True, delay),
            _delay_why(main),
        ),
        _rtt_ratio_finding(main),
        _rtt_vs_size_finding(runs, sinr),
        _start_rtt_finding(main),
        _conclusion_finding(thr, delay, loss, sinr),
    ]


def _shape_finding(series: pd.DataFrame) -> Finding:
    """Figure 4: throughput rises at the start, then stays about level."""
    parts = []
    steady = True
    # A quick run is shorter than SHAPE_STEADY_FROM_S: judge its second half.
    start = min(SHAPE_STEADY_FROM_S, float(series["t_s"].max()) / 2)
    for cca, g in series.groupby("cca", sort=True):
        rest = g.loc[g["t_s"] >= start, "throughput_kbps"]
        first = float(g.loc[g["t_s"] == g["t_s"].min(), "throughput_kbps"].iloc[0])
        cv = float(rest.std(ddof=1) / rest.mean()) if len(rest) > 1 and rest.mean() > 0 else math.nan
        steady &= not math.isnan(cv) and cv < SHAPE_MAX_CV and first < rest.mean()
        parts.append(f"{cca}: first second {first:.0f} kbit/s, then {rest.mean():.0f} kbit/s (CV {cv:.1%})")
    return Finding(
        "Throughput rises at the start of the transfer, then stays relatively stable (Figure 4)",
        "ramp-up, then level",
        "; ".join(parts),
        Verdict.AGREES if steady else Verdict.DIFFERS,
        "Slow start fills the UE's RB share within about a second (a few tens of ms of RTT per doubling); "
        "after that the scheduler's per-UE share sets the rate and, with a fixed SINR, it does not move.",
    )


def _mean(frame: pd.DataFrame, cca: str, column: str) -> float:
    return float(frame.loc[frame["cca"] == cca, column].mean())


def _backlog(frame: pd.DataFrame) -> str:
    return (
        f"mean eNB RLC backlog per UE {_mean(frame, 'newreno', 'rlc_buffer_bytes') / 1e3:.0f} kB for NewReno vs "
        f"{_mean(frame, 'vegas', 'rlc_buffer_bytes') / 1e3:.0f} kB for Vegas"
    )


def _throughput_why(thr: Any, main: pd.DataFrame) -> str:
    empty = _mean(main, "vegas", "empty_slots_pct")
    return (
        "Model difference. In LTE each UE has its own RLC buffer and the scheduler splits the RBs between "
        "UEs with data, so a flow's throughput is its UE's RB share as long as its buffer never runs dry. "
        f"Vegas keeps a small standing queue ({_backlog(main)}; its buffer was empty in {empty:.1f}% of the "
        f"100 ms samples after {STEADY_FROM_S:g} s), enough to use every TTI it is given: both CCAs get the same "
        f"{thr.mean_a / 1e3:.1f} Mbit/s. The paper's ns-2 topology (aGW, eNB and UEs joined by links) has a "
        "queue that an idle Vegas can leave empty; its ~1 Mbit/s per flow also means a bottleneck we cannot "
        "rebuild from the paper (10 MHz LTE carries 4-18 Mbit/s per UE here, 5-25 dB). The paper does not say "
        "how its ns-2 model shares capacity between UEs; one shared FIFO would let NewReno's full queue crowd "
        "Vegas out, which per-UE buffers prevent (see the shared-cell run above)."
    )


def _loss_why(main: pd.DataFrame) -> str:
    drops = {c: _mean(main, c, "rlc_drops") for c in CCAS}
    air = {c: _mean(main, c, "harq_losses") + _mean(main, c, "control_losses") for c in CCAS}
    return (
        f"Ordering agrees, sizes differ. Our losses are all eNB RLC buffer overflows (mean per run: NewReno "
        f"{drops['newreno']:.0f} SDUs, Vegas {drops['vegas']:.0f}; transport blocks lost on the air: "
        f"{air['newreno']:.0f} and {air['vegas']:.0f}). NewReno finds the 1 MiB buffer's end by overflowing it; "
        "Vegas never fills it, so it loses nothing. The paper's 8.75% for Vegas, close to NewReno's 10%, needs a "
        "loss process that does not depend on the sending rate (random link errors), which its setting does not "
        "describe and which LTE's HARQ removes in our model."
    )


def _delay_why(main: pd.DataFrame) -> str:
    return (
        f"Ordering agrees; the ratio is larger here. The delay is queueing in the eNB's RLC buffer ({_backlog(main)}). "
        "How much NewReno queues is set by the buffer size, which the paper does not give; with a shallower buffer "
        "the ratio would shrink toward the paper's 3.4x, so only the ordering is comparable."
    )


def _rtt_ratio_finding(main: pd.DataFrame) -> Finding:
    rtt = paired_difference(main, "cca", "newreno", "vegas", "rtt_s")
    ratio = rtt.mean_b / rtt.mean_a if rtt.mean_a else math.nan
    near_half = RTT_RATIO_BAND[0] <= ratio <= RTT_RATIO_BAND[1]
    return Finding(
        "Vegas' RTT is mostly half of NewReno's",
        "Vegas/NewReno about 0.5",
        f"{rtt.text(' s')}; Vegas/NewReno = {ratio:.2f}",
        Verdict.AGREES if near_half else Verdict.DIFFERS,
        ("" if near_half else "Direction agrees (Vegas lower), size differs. ")
        + f"NewReno's RTT is the time to drain the buffer it fills, Vegas' is the base RTT plus a few segments "
        f"({_backlog(main)}); the ratio falls as the buffer deepens, and a 1 MiB buffer is many BDPs here.",
    )


def _rtt_vs_size_finding(runs: pd.DataFrame, sinr: float) -> Finding:
    slopes = {
        (s, c): float(np.polyfit(g["packet_bytes"], g["rtt_s"], 1)[0]) if g["packet_bytes"].nunique() > 1 else 0.0
        for (s, c), g in runs.groupby(["sinr_db", "cca"], sort=True)
    }
    text = "; ".join(f"{c} at {s:g} dB {v * 1e6:+.0f} ms per kB" for (s, c), v in slopes.items())
    at = runs[runs["sinr_db"] == sinr]
    backlog = ", ".join(
        f"{p} B: {g['rlc_buffer_bytes'].mean() / 1e3:.0f} kB"
        for p, g in at[at["cca"] == "newreno"].groupby("packet_bytes", sort=True)
    )
    return Finding(
        "RTT grows as the packet size grows (Figure 5; checked at every SINR)",
        "RTT increases with packet size",
        f"least-squares slope of mean RTT vs packet size: {text}",
        Verdict.AGREES if all(v > 0 for v in slopes.values()) else Verdict.DIFFERS,
        "Where it grows, it is not serialisation (1500 B takes ~0.1-0.3 ms over the air here) but the standing "
        "queue: congestion avoidance adds one segment per RTT (RFC 5681 §3.1), so after each halving a flow of "
        "bigger segments refills the buffer faster in bytes and keeps more queued on average (NewReno's mean "
        f"backlog at {sinr:g} dB: {backlog}). The trend is weak or absent for Vegas and at other SINRs (slopes "
        "above), so the paper's general trend is not reproduced: it needs a link slow enough for serialisation to "
        "matter, as the paper's ~1 Mbit/s flows suggest.",
    )


def _start_rtt_finding(main: pd.DataFrame) -> Finding:
    peak = {c: _mean(main, c, "start_rtt_max_s") for c in CCAS}
    above = [c for c, v in peak.items() if v > PAPER_START_RTT_S]
    return Finding(
        "RTT exceeds 0.8 s at the beginning of the transfer",
        "> 0.8 s",
        f"largest per-slot mean RTT in the first {START_WINDOW_S:g} s: "
        + ", ".join(f"{c} {v:.3g} s" for c, v in peak.items()),
        Verdict.AGREES if above else Verdict.DIFFERS,
        "Slow start doubles the window every RTT until the eNB's 1 MiB RLC buffer overflows, so the first "
        "seconds see the buffer full: 1 MiB over the UE's share of the cell is the peak RTT. "
        + (
            "NewReno reaches it; Vegas leaves slow start early on rising delay, as Brakmo & Peterson designed it."
            if "newreno" in above and "vegas" not in above
            else ""
        ),
    )


def _conclusion_finding(thr: Any, delay: Any, loss: Any, sinr: float) -> Finding:
    same = thr.exact and thr.mean_a == thr.mean_b
    word = "the same" if same else ("lower" if thr.mean_b < thr.mean_a else "higher")
    better = delay.mean_b < delay.mean_a and loss.mean_b <= loss.mean_a
    return Finding(
        "Vegas is the better choice for FTP over LTE (the conclusion)",
        "recommends Vegas",
        f"Vegas: {word} throughput, lower delay and loss than NewReno at {sinr:g} dB",
        Verdict.AGREES if better else Verdict.DIFFERS,
        "Agrees, and more strongly: here Vegas costs no throughput at all (finding 1), because per-UE buffers "
        "and the scheduler keep a Vegas flow's share, while NewReno pays for its full buffer in delay and loss.",
    )
