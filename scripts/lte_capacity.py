"""Saturated UDP downlink to one UE over SINR -5..30 dB at 5, 10 and 20 MHz: the PHY throughput
and UDP goodput the LTE cell delivers (docs/lte.md's table and docs/figures/lte_capacity.png).

The engine's test `saturated_udp_throughput_follows_tbs_and_bler_across_sinr_and_bandwidth`
checks the same runs against TBS x (1 - BLER) x 1000 TTI/s within 5%. Run from the repo root:
``.venv/bin/python scripts/lte_capacity.py [--out docs]``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # after use(): the backend must be chosen first
import pandas as pd

import cellcc

BANDWIDTHS_MHZ = (5.0, 10.0, 20.0)
SINRS_DB = range(-5, 31, 5)
#: Offered UDP load, Mbit/s: above the 20 MHz peak (75,376 bits per TTI).
OFFERED_MBPS = 120.0
DURATION_S = 1.2
#: The first 200 ms are left out: the first CQI reaches the eNB after 4 ms and the queue fills.
WARMUP_S = 0.2


def scenario(bandwidth_mhz: float, sinr_db: float) -> dict:
    return {
        "version": 1,
        "duration_s": DURATION_S,
        "output": {"slot_ms": 200.0},
        "nodes": [
            {"id": "server", "kind": "host"},
            {"id": "pgw", "kind": "router"},
            {"id": "enb", "kind": "enb"},
            {"id": "ue", "kind": "ue"},
        ],
        "links": [
            {"id": "internet", "a": "server", "b": "pgw", "rate_mbps": 1000.0, "delay_ms": 10.0,
             "queue": {"kind": "drop_tail", "limit_packets": 100000}},
            {"id": "s1u", "a": "pgw", "b": "enb", "rate_mbps": 10000.0, "delay_ms": 1.0, "mtu_bytes": 2000,
             "tunnel": "gtpu"},
        ],
        "cells": [{"id": "cell0", "enb": "enb", "bandwidth_mhz": bandwidth_mhz, "scheduler": "round_robin",
                   "control_errors": False,
                   "ues": [{"node": "ue", "sinr": {"kind": "fixed", "db": sinr_db}, "rlc": {"mode": "um"}}]}],
        "flows": [{"id": "udp", "src": "server", "dst": "ue", "transport": "udp",
                   "app": {"kind": "cbr", "rate_mbps": OFFERED_MBPS}}],
    }  # fmt: skip


def measure() -> pd.DataFrame:
    rows = []
    for mhz in BANDWIDTHS_MHZ:
        for sinr in SINRS_DB:
            r = cellcc.run(scenario(mhz, float(sinr)), seed=1)
            dl = r.lte[(r.lte["dir"] == "dl") & (r.lte["t_s"] >= WARMUP_S)]
            ts = r.timeseries[r.timeseries["t_s"] >= WARMUP_S]
            rows.append(
                {
                    "bandwidth_mhz": mhz,
                    "sinr_db": sinr,
                    "cqi": dl["cqi"].iloc[-1],
                    "mcs": dl["mcs_mean"].mean(),
                    "phy_mbps": dl["phy_throughput_bps"].mean() / 1e6,
                    "udp_goodput_mbps": ts["goodput_bps"].mean() / 1e6,
                }
            )
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs"))
    out = parser.parse_args().out
    df = measure()
    table = df.pivot(index="sinr_db", columns="bandwidth_mhz", values="phy_mbps")
    print("| SINR (dB) | " + " | ".join(f"{m:g} MHz PHY (Mbit/s)" for m in table.columns) + " |")
    print("|---:|" + "---:|" * len(table.columns))
    for sinr, row in table.iterrows():
        print(f"| {sinr} | " + " | ".join(f"{v:.2f}" for v in row) + " |")
    fig, ax = plt.subplots(figsize=(6, 4))
    for mhz, g in df.groupby("bandwidth_mhz"):
        ax.plot(g["sinr_db"], g["phy_mbps"], marker="o", label=f"{mhz:g} MHz PHY")
        ax.plot(g["sinr_db"], g["udp_goodput_mbps"], linestyle="--", color=ax.lines[-1].get_color(), label="UDP")
    ax.set(xlabel="SINR (dB)", ylabel="Mbit/s", title="Saturated downlink, one UE (cellcc LTE cell)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    fig.savefig(out / "figures" / "lte_capacity.png", dpi=120, bbox_inches="tight")


if __name__ == "__main__":
    main()
