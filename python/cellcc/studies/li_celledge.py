"""Seed 004: Li, Shariat & Nekovee, "Transport Protocols Behaviour Study in Evolving Mobile
Networks" (ns-3 LENA): TCP NewReno vs UDP at the cell edge, RLC AM vs UM, PCFICH/PDCCH errors on/off.

The paper's grid is distance (40 .. 300 m in 20 m steps) x RLC {AM, UM} x control errors {on, off}
x {TCP, UDP}, one UE in a 20 m box at 3 km/h in a 57-cell hexagonal layout with ITU-R P.1411 path
loss, log-normal shadowing and EPA fading. Every one of those radio pieces is the channel issue's
work and is NOT available: the distance axis, the interference, the RTT CDF per distance and the
no-interference 300 m reference run are BLOCKED, and the report says so finding by finding.

What runs now (sweep ``protocols``) is the part that does not depend on geometry: the same
protocol grid (RLC mode x control errors x transport) on the paper's cell (10 MHz, 1024 KB RLC
buffer, 1024 B packets, 10 Gbit/s / 10 ms server link, 50 s) at fixed SINRs standing in for
"centre" and "edge". It tests the paper's protocol findings (AM recovers what UM loses, UDP loses
packets that TCP recovers, control errors hurt TCP on UM) but NOT their dependence on distance.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from cellcc.catalogue import Store
from cellcc.report import Block
from cellcc.studies.common import Finding, Param, SweepDef, Verdict, ci_text, findings_blocks, params_block
from cellcc.studies.lte_base import lte_scenario

NAME = "li-celledge"
TITLE = "Seed 004 (Li, Shariat & Nekovee): TCP vs UDP at the LTE cell edge"
SEED_FILE = "004_51f277549bf4b973.txt"

#: Table I: 50 RBs (10 MHz), 1024 KB RLC buffer, 1024 B packets; Section III: 10 Gbit/s, 10 ms, 50 s.
BANDWIDTH_MHZ = 10
RLC_BUFFER_BYTES = 1024 * 1024
PACKET_BYTES = 1024
DURATION_S = 50.0
SERVER_RATE_MBPS = 10_000
SERVER_DELAY_MS = 10
#: The paper's distances (Section III): 40 to 300 m in 20 m steps (blocked: needs the channel).
DISTANCES_M = tuple(range(40, 301, 20))
#: Fixed SINRs standing in for "cell centre" and "cell edge" (not derived from any distance).
PROXY_SINRS_DB = (15.0, -5.0)
#: Uplink SINR, fixed for every run: the paper does not describe the uplink, and with the downlink's -5 dB an
#: uplink CQI is 0, which the scheduler never serves (TS 36.213 Table 7.2.3-1 "out of range", as ns-3 LENA's
#: schedulers), so TCP could not even connect. 10 dB lets the ACKs through without limiting them.
UPLINK_SINR_DB = 10.0
#: "Far below": TCP on AM must beat TCP on UM by this factor for AM to have "lifted" it.
UM_FAR_BELOW = 1.1
#: UDP offered load: more than a 10 MHz cell carries at any SINR (docs/lte.md: 36.7 Mbit/s peak), "backlogged".
UDP_RATE_MBPS = 50.0

BLOCKED = (
    "distance axis 40-300 m",
    "57-cell hexagonal layout, ISD 500 m, 3 sectors, 46 dBm, 70-degree parabolic antennas (interference)",
    "ITU-R P.1411 path loss, log-normal shadowing (sigma 1), EPA fading",
    "UE mobility: 3 km/h random direction in a 20 m box",
    "the no-interference 300 m reference run (Figure 7)",
)

PARAMS = (
    Param(
        "radio geometry",
        "BLOCKED: " + "; ".join(BLOCKED),
        "The channel issue's models are not available on this branch.",
    ),
    Param(
        "proxy SINRs",
        f"{PROXY_SINRS_DB[0]:g} dB ('centre'), {PROXY_SINRS_DB[1]:g} dB ('edge'), fixed",
        "Only to exercise the protocol grid; not derived from the paper's distances.",
    ),
    Param(
        "uplink SINR",
        f"{UPLINK_SINR_DB:g} dB, fixed",
        "Not described; at a -5 dB uplink the UE's uplink CQI is 0 (out of range) and it is never scheduled, so "
        "TCP's SYN-ACK never leaves; a working uplink carries the ACKs as in the paper.",
    ),
    Param(
        "UDP load",
        f"CBR {UDP_RATE_MBPS:g} Mbit/s of {PACKET_BYTES} B packets",
        "'Backlogged' (Table I): above the cell's peak rate.",
    ),
    Param(
        "TCP segment",
        f"{PACKET_BYTES} B payload (mss_bytes)",
        "Table I's packet size, read as the application's packet.",
    ),
    Param(
        "P.1411 variant, distance direction",
        "not chosen yet (blocked)",
        "The paper names neither; the channel issue must.",
    ),
)

CLAIMS = (
    ("Throughput of TCP and UDP falls as the UE moves from 40 m to 300 m", "Fig. 4-5: steep fall beyond ~200 m", True),
    ("UDP gets at most ~0.5 Mbit/s (UM) / ~1 Mbit/s (AM) more throughput than TCP", "Fig. 4", False),
    ("TCP has no data-segment loss", "Fig. 4 (loss count): none", False),
    ("UDP loses heavily in UM", "Fig. 4 (loss count)", False),
    ("RLC AM roughly halves UDP's loss compared with UM", "Fig. 4", False),
    ("With control errors on, RLC AM lifts TCP close to UDP at the cell edge (UM far below)", "Fig. 5", False),
    ("With control errors on, near the eNB (40-80 m) AM is slightly below UM", "Fig. 5", True),
    ("CWND median is lower with control errors, lowest on UM", "Fig. 6", False),
    ("RTT grows with distance (UM); AM's RTT slightly above UM's at 40 m", "Fig. 7", True),
    ("The no-interference 300 m run has the shortest RTT", "Fig. 7 reference", True),
)


def _base(duration_s: float, rlc_mode: str, transport: str) -> dict[str, Any]:
    doc = lte_scenario(
        name="li-celledge",
        description="Seed 004 protocol grid at fixed SINR (the channel is blocked)",
        duration_s=duration_s,
        n_ues=1,
        bandwidth_mhz=BANDWIDTH_MHZ,
        sinr={"kind": "fixed", "db": PROXY_SINRS_DB[0], "ul_db": UPLINK_SINR_DB},
        rlc={"mode": rlc_mode, "tx_buffer_bytes": RLC_BUFFER_BYTES},
        internet_rate_mbps=SERVER_RATE_MBPS,
        internet_delay_ms=SERVER_DELAY_MS,
        cca="newreno",
        tcp={"mss_bytes": PACKET_BYTES},
    )
    if transport == "udp":
        doc["flows"][0] = {
            "id": "flow0",
            "src": "server",
            "dst": "ue0",
            "transport": "udp",
            "app": {"kind": "cbr", "rate_mbps": UDP_RATE_MBPS, "packet_bytes": PACKET_BYTES},
        }
    return doc


def sweeps(seeds: int, quick: bool) -> list[SweepDef]:
    """One sweep per (transport, RLC mode), each SINR x control errors.

    A sweep per RLC mode, not an axis on ``rlc.mode``: the canonical base carries the other mode's
    fields (UM's ``sn_bits``), which the engine refuses under AM.
    """
    duration = 3.0 if quick else DURATION_S
    axes = [
        {"path": "cells[0].ues[0].sinr.db", "values": list(PROXY_SINRS_DB), "name": "sinr_db"},
        {"path": "cells[0].control_errors", "values": [False, True]},
    ]
    return [
        SweepDef(
            f"{transport}-{mode}",
            _base(duration, mode, transport),
            axes,
            seeds,
            description=f"{transport.upper()} on RLC {mode.upper()}: SINR x control errors",
        )
        for transport in ("tcp", "udp")
        for mode in ("um", "am")
    ]


def _flows(store: Store, transport: str, mode: str) -> pd.DataFrame:
    return store.query(
        "SELECT seed, sinr_db, control_errors, throughput_bps / 1e6 AS throughput_mbps, "
        f"lost_packets, loss_ratio * 100 AS loss_pct, rtt_p50_ms, '{transport}' AS transport, '{mode}' AS rlc_mode "
        "FROM flows"
    )


def report(stores: dict[str, Store], quick: bool) -> list[Block]:
    flows = pd.concat([_flows(store, *name.split("-")) for name, store in sorted(stores.items())], ignore_index=True)
    cwnd = pd.concat(
        [
            stores[f"tcp-{mode}"].query(
                f"SELECT seed, sinr_db, '{mode}' AS rlc_mode, control_errors, median(cwnd_bytes) AS cwnd_median_bytes "
                "FROM timeseries GROUP BY ALL"
            )
            for mode in ("um", "am")
        ],
        ignore_index=True,
    )
    return [
        Block("h1", TITLE),
        Block(
            "p",
            "BLOCKED: the paper's x axis is the UE's distance from the eNB in a 57-cell interference layout with "
            "P.1411 path loss, shadowing and EPA fading. None of that radio model is in cellcc yet (the channel "
            "issue), so the distance sweep, the RTT CDFs per distance and the no-interference reference are not run. "
            "What is run is the protocol grid at two fixed SINRs, which tests the paper's protocol findings but "
            "not their dependence on distance." + (" QUICK MODE: short runs; not a result." if quick else ""),
        ),
        Block(
            "p",
            f"Grid when the channel lands: distance {list(DISTANCES_M)} m x RLC {{AM, UM}} x control errors "
            "{on, off} x {NewReno, UDP}, 50 s, 14 distances x 8 = 112 points per seed.",
        ),
        *params_block(PARAMS),
        Block("h2", "Protocol grid at fixed SINR (proxy for centre / edge)"),
        Block("table", table=_summary(flows, cwnd)),
        *findings_blocks(_findings(flows, cwnd)),
    ]


def _summary(flows: pd.DataFrame, cwnd: pd.DataFrame) -> pd.DataFrame:
    rows = []
    keys = ["sinr_db", "rlc_mode", "control_errors", "transport"]
    for key, g in flows.groupby(keys, sort=True):
        row = dict(zip(keys, key, strict=True))
        row["throughput Mbit/s"] = ci_text(g["throughput_mbps"])
        row["lost packets"] = ci_text(g["lost_packets"], "{:.0f}")
        row["median RTT ms"] = ci_text(g["rtt_p50_ms"]) if key[3] == "tcp" else "-"
        c = cwnd[(cwnd[keys[:3]] == pd.Series(key[:3], index=keys[:3])).all(axis=1)]
        row["cwnd median kB"] = ci_text(c["cwnd_median_bytes"] / 1e3) if key[3] == "tcp" and len(c) else "-"
        rows.append(row)
    return pd.DataFrame(rows)


def _at(flows: pd.DataFrame, **where: Any) -> pd.DataFrame:
    mask = pd.Series(True, index=flows.index)
    for column, value in where.items():
        mask &= flows[column] == value
    return flows[mask]


def _findings(flows: pd.DataFrame, cwnd: pd.DataFrame) -> list[Finding]:
    edge = min(PROXY_SINRS_DB)
    out = []
    for claim, paper, needs_distance in CLAIMS:
        if needs_distance:
            out.append(
                Finding(
                    claim,
                    paper,
                    "not run",
                    Verdict.BLOCKED,
                    "Needs the distance axis and the interference layout "
                    "(channel issue): no fixed-SINR run can stand in for a trend over distance.",
                )
            )
            continue
        out.append(_protocol_finding(claim, paper, flows, cwnd, edge))
    return out


def _protocol_finding(claim: str, paper: str, flows: pd.DataFrame, cwnd: pd.DataFrame, edge: float) -> Finding:
    off = _at(flows, sinr_db=edge, control_errors=False)
    if claim.startswith("UDP gets"):
        gaps = {
            m: _at(off, rlc_mode=m, transport="udp")["throughput_mbps"].mean()
            - _at(off, rlc_mode=m, transport="tcp")["throughput_mbps"].mean()
            for m in ("um", "am")
        }
        ours = f"UDP - TCP at {edge:g} dB: UM {gaps['um']:+.2f}, AM {gaps['am']:+.2f} Mbit/s"
        ok = all(0 <= g <= 1.5 for g in gaps.values())
        return Finding(
            claim,
            paper,
            ours,
            Verdict.AGREES if ok else Verdict.DIFFERS,
            "At a fixed SINR (not the paper's geometry); the gap is the TCP/IP and ACK overhead plus "
            "TCP's backoffs after losses.",
        )
    if claim.startswith("TCP has no"):
        tcp_loss = _at(off, transport="tcp")["lost_packets"].mean()
        return Finding(
            claim,
            paper,
            f"at {edge:g} dB, no control errors: {tcp_loss:.0f} lost packets per run (mean over RLC modes)",
            Verdict.AGREES if tcp_loss == 0 else Verdict.DIFFERS,
            "Model difference. Our TCP losses are eNB RLC buffer overflows: the engine's receive window is "
            "Linux's (6 MiB), so NewReno grows until the 1024 KB buffer overflows. ns-3's TcpSocket "
            "RcvBufSize/SndBufSize default to 131072 B (ns-3 TCP model attributes), which caps the window below "
            "the RLC buffer, so in LENA the buffer never overflows and TCP loses nothing.",
        )
    if claim.startswith("UDP loses"):
        udp_um = _at(off, transport="udp", rlc_mode="um")
        return Finding(
            claim,
            paper,
            f"at {edge:g} dB: {udp_um['lost_packets'].mean():.0f} lost packets ({udp_um['loss_pct'].mean():.0f}%)",
            Verdict.AGREES if udp_um["loss_pct"].mean() > 1 else Verdict.DIFFERS,
            f"A backlogged CBR source ({UDP_RATE_MBPS:g} Mbit/s) overflows the RLC buffer of a cell that carries "
            "a few Mbit/s; most of the loss is that overflow, in both tools.",
        )
    if claim.startswith("With control errors on, RLC AM"):
        on = _at(flows, sinr_db=edge, control_errors=True)
        rate = {
            (t, m): _at(on, transport=t, rlc_mode=m)["throughput_mbps"].mean()
            for t in ("tcp", "udp")
            for m in ("um", "am")
        }
        ours = (
            f"at {edge:g} dB with errors: TCP UM {rate[('tcp', 'um')]:.2f}, TCP AM {rate[('tcp', 'am')]:.2f}, "
            f"UDP UM {rate[('udp', 'um')]:.2f} Mbit/s"
        )
        lifted = rate[("tcp", "am")] > UM_FAR_BELOW * rate[("tcp", "um")]
        return Finding(
            claim,
            paper,
            ours,
            Verdict.AGREES if lifted else Verdict.DIFFERS,
            "PDCCH errors at this SINR lose about a tenth of the TBs (the lte table's control_losses), enough to "
            "cut TCP's cwnd on UM (see finding 8) but not below the path's BDP (1.2 Mbit/s x ~60 ms ~ 9 kB), so "
            "TCP on UM still fills the cell and AM has nothing to lift. The paper's edge, with the control "
            "channel under full interference from 56 cells, has a higher error rate than this proxy; that needs "
            "the channel.",
        )
    if claim.startswith("RLC AM roughly"):
        um = _at(off, transport="udp", rlc_mode="um")["lost_packets"].mean()
        am = _at(off, transport="udp", rlc_mode="am")["lost_packets"].mean()
        ratio = am / um if um else float("nan")
        return Finding(
            claim,
            paper,
            f"UDP lost packets AM / UM = {ratio:.2f} at {edge:g} dB",
            Verdict.AGREES if 0.2 <= ratio <= 0.8 else Verdict.DIFFERS,
            "With a CBR source above capacity most UDP loss is RLC buffer overflow, which ARQ cannot "
            "recover; only the air losses are AM's to repair, so the ratio depends on how much of the loss "
            "is overflow (a load the paper does not state).",
        )
    on = _at(cwnd, sinr_db=edge)
    medians = on.groupby(["control_errors", "rlc_mode"])["cwnd_median_bytes"].mean()
    ours = ", ".join(f"errors {'on' if k[0] else 'off'}/{k[1].upper()}: {v / 1e3:.0f} kB" for k, v in medians.items())
    lowest = medians.idxmin() if len(medians) else (None, None)
    both_drop = len(medians) == 4 and all(medians[(True, m)] < medians[(False, m)] for m in ("um", "am"))
    ok = bool(lowest[0]) and lowest[1] == "um" and both_drop
    return Finding(
        claim,
        paper,
        ours,
        Verdict.AGREES if ok else Verdict.DIFFERS,
        "Control-channel errors lose whole TBs; on UM they reach TCP as losses and halve its cwnd, on AM "
        "ARQ repairs them first, so UM with errors has the smallest median cwnd"
        + (
            "."
            if ok
            else " (as in the paper); but on AM the median is not lower with errors: with no air losses to "
            "repair, the window's sawtooth is set by when the 1024 KB buffer overflows rather than by air losses."
        )
        + " At -5 dB the medians are large because the window grows over a multi-second RTT (the buffer "
        "drains at ~1.3 Mbit/s).",
    )
