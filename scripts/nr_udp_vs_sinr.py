"""Saturated downlink UDP through one NR cell vs SINR, per numerology (docs/nr.md "Saturated UDP
vs SINR"), beside the rate 5G-LENA's own PHY abstraction gives the same MCS and BLER.

One UE at a fixed SINR, RLC UM, a CBR source at twice the cell's peak rate (the RLC buffer stays
full), TDD "DDDSU" 10:2:2 on each numerology's usual carrier: mu 0 and 1 on n78 (3.5 GHz) with 50
and 100 MHz, mu 2 on 100 MHz, mu 3 on n257 (28 GHz) with 100 MHz. The table prints, per run, the
goodput over the last second, the mean MCS and first-transmission BLER the cell ran at (the `nr`
table), and what 5G-LENA's `NrAmc::CalculateTbSize` makes of that MCS: 11 data subcarriers per PRB
(`NumRefScPerRb` 1) on every data symbol, no DM-RS symbols, one 24-bit CRC per code block, times
(1 - BLER), on the same slots. Usage::

    .venv/bin/python scripts/nr_udp_vs_sinr.py [--seconds 2]
"""

from __future__ import annotations

import argparse
import math

import cellcc

#: (numerology, bandwidth MHz, carrier GHz, PRBs: TS 38.101-1/-2 Table 5.3.2-1).
CELLS = ((0, 50.0, 3.5, 270), (1, 100.0, 3.5, 273), (2, 100.0, 3.5, 135), (3, 100.0, 28.0, 66))
SINRS_DB = (0.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0)
#: TS 38.214 Table 5.1.3.1-2 (MCS table 2, 256QAM): (Qm, R x 1024) per MCS.
MCS_TABLE_2 = (
    (2, 120), (2, 193), (2, 308), (2, 449), (2, 602), (4, 378), (4, 434), (4, 490), (4, 553), (4, 616),
    (4, 658), (6, 466), (6, 517), (6, 567), (6, 616), (6, 666), (6, 719), (6, 772), (6, 822), (6, 873),
    (8, 682.5), (8, 711), (8, 754), (8, 797), (8, 841), (8, 885), (8, 916.5), (8, 948),
)  # fmt: skip
#: The engine cell's slots (CORESET 2 symbols, the special slot's 10 downlink symbols), kept for the
#: 5G-LENA column too, so that the comparison isolates the PHY abstraction (TBS rule, DM-RS, CRC) from the frame.
CORESET_SYMBOLS = 2
PATTERN = "DDDSU"
SPECIAL_DL_SYMBOLS = 10
#: 5G-LENA's LDPC code block limits (NrEesmErrorModel::GetMaxCbSize): 8448 bits BG1, 3840 BG2, and
#: its 24-bit CRC per code block.
CB_BITS = {1: 8448, 2: 3840}
CRC_BITS = 24


def lena_tbs_bits(mcs: int, n_prb: int, symbols: int) -> float:
    """5G-LENA NrAmc::CalculateTbSize for one layer: 11 x PRBs x symbols REs at Qm x R, less CRCs."""
    qm, r = MCS_TABLE_2[mcs]
    payload = math.floor(11 * n_prb * symbols * qm * r / 1024 / 8) * 8
    # TS 38.212 §7.2.2's base graph (5G-LENA NrEesmErrorModel::GetBaseGraphType follows it).
    bg = 2 if payload <= 3824 or (r / 1024 <= 0.67 and payload <= 8424) or r / 1024 <= 0.25 else 1
    tb = payload - CRC_BITS
    if tb > CB_BITS[bg]:
        tb = payload - math.ceil(tb / CB_BITS[bg]) * CRC_BITS
    return tb


def lena_period_bits(mcs: float, n_prb: int, d_slots: int) -> float:
    """5G-LENA's bits per TDD period at a mean MCS (the TBS interpolated between its two neighbours):
    the D slots' data symbols after the CORESET, and the special slot's."""

    def at(m: int) -> float:
        return d_slots * lena_tbs_bits(m, n_prb, 14 - CORESET_SYMBOLS) + lena_tbs_bits(
            m, n_prb, SPECIAL_DL_SYMBOLS - CORESET_SYMBOLS
        )

    low = math.floor(mcs)
    w = mcs - low
    return (1 - w) * at(low) + (w * at(low + 1) if w > 0 else 0.0)


def scenario(mu: int, bw: float, carrier: float, sinr_db: float, rate_mbps: float, seconds: float) -> dict:
    return {
        "version": 1,
        "duration_s": seconds,
        "nodes": [
            {"id": "server", "kind": "host"},
            {"id": "upf", "kind": "router"},
            {"id": "gnb", "kind": "gnb"},
            {"id": "ue", "kind": "ue"},
        ],
        "links": [
            {"id": "internet", "a": "server", "b": "upf", "rate_mbps": 100000, "delay_ms": 5,
             "queue": {"kind": "drop_tail", "limit_packets": 100000}},
            {"id": "n3", "a": "upf", "b": "gnb", "rate_mbps": 100000, "delay_ms": 1, "mtu_bytes": 2000,
             "tunnel": "gtpu"},
        ],
        "nr_cells": [
            {"id": "nr0", "gnb": "gnb", "numerology": mu, "bandwidth_mhz": bw, "carrier_ghz": carrier,
             "ues": [{"node": "ue", "sinr": {"kind": "fixed", "db": sinr_db}, "rlc": {"mode": "um"}}]}
        ],
        "flows": [
            {"id": "cbr", "src": "server", "dst": "ue", "transport": "udp",
             "app": {"kind": "cbr", "rate_mbps": rate_mbps, "packet_bytes": 1400}}
        ],
        "output": {"cwnd_trace": False, "rtt_trace": False},
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=2.0)
    args = ap.parse_args()
    slots_per_period = len(PATTERN)
    d_slots = PATTERN.count("D")
    print("| mu | SINR dB | goodput Mbit/s | mean MCS | 1st-tx BLER | 5G-LENA model Mbit/s | engine / model |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for mu, bw, carrier, n_prb in CELLS:
        slot_s = 1e-3 / 2**mu
        peak_mbps = n_prb * 12 * 14 * 8 * 0.93 / slot_s / 1e6
        for sinr in SINRS_DB:
            r = cellcc.run(scenario(mu, bw, carrier, sinr, 2 * peak_mbps, args.seconds), seed=1)
            last = r.timeseries[r.timeseries["t_s"] >= args.seconds - 1.0]
            goodput = last["goodput_bps"].mean() / 1e6
            nr = r.nr[(r.nr["dir"] == "dl") & (r.nr["t_s"] >= args.seconds - 1.0)]
            mcs = float(nr["mcs_mean"].mean())
            bler = float(nr["first_tx_bler"].mean())
            period_bits = lena_period_bits(mcs, n_prb, d_slots)
            model = period_bits * (1 - bler) / (slots_per_period * slot_s) / 1e6
            print(f"| {mu} | {sinr:g} | {goodput:.1f} | {mcs:.1f} | {bler:.3f} | {model:.1f} | {goodput / model:.3f} |")


if __name__ == "__main__":
    main()
