"""The bundled `lte` scenario (one UE, 20 MHz, SINR 20 -> 5 dB with EVA fading at 60 km/h, RLC AM
1 MiB, bulk download) under both RAN profiles, seeds 1-3, for CUBIC, NewReno and BBR: the table of
docs/lte.md "Profiles". Usage: `.venv/bin/python scripts/lte_profiles.py`."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd

import cellcc
from cellcc.scenario import load_document

CCAS = ("cubic", "newreno", "bbr")
SEEDS = (1, 2, 3)
PROFILES = ("operator", "lena")


def run(profile: str, cca: str, seed: int) -> dict[str, float]:
    """One run's goodput, the cell's capacity for the UE, RTOs, the uplink's CQI-0 share and BLERs."""
    doc, _ = load_document("lte")
    doc = copy.deepcopy(doc)
    doc["cells"][0]["profile"] = profile
    doc["flows"][0]["cca"] = cca
    r = cellcc.run(doc, seed=seed)
    lte = r.lte
    dl, ul = lte[lte["dir"] == "dl"], lte[lte["dir"] == "ul"]
    flow = r.flows.iloc[0]
    return {
        "goodput_mbps": flow["goodput_bps"] / 1e6,
        "capacity_mbps": dl["capacity_bps"].mean() / 1e6,
        "rtos": float(flow["timeouts"]),
        "ul_cqi0_share": float((ul["cqi"] == 0).mean()),
        "dl_first_tx_bler": float(dl["first_tx_bler"].mean()),
        "ul_first_tx_bler": float(ul["first_tx_bler"].mean()),
    }


def table() -> pd.DataFrame:
    """One row per (profile, CCA): means over the seeds (RTOs summed)."""
    rows = []
    for profile in PROFILES:
        for cca in CCAS:
            runs = [run(profile, cca, seed) for seed in SEEDS]
            mean = {k: float(np.mean([r[k] for r in runs])) for k in runs[0]}
            mean["rtos"] = sum(r["rtos"] for r in runs)
            rows.append({"profile": profile, "cca": cca, **mean})
    frame = pd.DataFrame(rows)
    frame["goodput_share"] = frame["goodput_mbps"] / frame["capacity_mbps"]
    return frame


if __name__ == "__main__":
    t = table()
    print("| profile | CCA | goodput Mbit/s | capacity Mbit/s | share | RTOs (3 runs) | UL CQI 0 | DL BLER | UL BLER |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in t.itertuples():
        print(
            f"| {r.profile} | {r.cca} | {r.goodput_mbps:.2f} | {r.capacity_mbps:.2f} | {r.goodput_share:.2f} | "
            f"{r.rtos:.0f} | {r.ul_cqi0_share:.0%} | {r.dl_first_tx_bler:.3f} | {r.ul_first_tx_bler:.3f} |"
        )
