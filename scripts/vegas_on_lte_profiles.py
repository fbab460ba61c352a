"""Why Vegas holds its share on LENA's cell and not on an operator's (seed 001's cell, docs/studies/nor-maulana):
two UEs, 10 MHz, a fixed 15 dB, RLC UM 1 MiB, one bulk Vegas flow each (Linux TCP), 20 s, seeds 1-3; LENA's
cell with one operator mechanism switched on at a time, and the operator's cell with the outer loop and the PDCCH
budget (the HARQ retransmissions of a fixed SINR) off and the SR occasion in every subframe, apart and together.
Prints, per variant, the mean over seeds and flows of the last 10 s: rate, cwnd, RTT (100 ms slot means), and the
downlink's first-transmission BLER and HARQ retransmissions per second.
Usage: `.venv/bin/python scripts/vegas_on_lte_profiles.py`."""

from __future__ import annotations

import pandas as pd

import cellcc
from cellcc.studies import nor_maulana

SEEDS = (1, 2, 3)
DURATION_S = 20.0
#: The settled part of the run, s.
LATE_FROM_S = 10.0
_NO_HARQ_JITTER = {"link_adaptation": {"olla": {"enabled": False}}, "pdcch": {"capacity": False}}
#: TS 36.213 Table 10.1.5-1's shortest SR period (an SR occasion in every subframe).
_SR_EVERY_MS = {"uplink": {"sr_period_ms": 1}}
#: (name, cell profile, cell fields written over the profile)
VARIANTS = (
    ("lena", "lena", {}),
    ("lena + outer loop", "lena", {"link_adaptation": {"olla": {"enabled": True}}}),
    ("lena + PDCCH budget", "lena", {"pdcch": {"capacity": True}}),
    ("lena + SR/BSR", "lena", {"uplink": {"requests": "sr_bsr", "sr_period_ms": 20}}),
    ("operator", "operator", {}),
    ("operator, SR every 1 ms", "operator", _SR_EVERY_MS),
    ("operator - outer loop - PDCCH budget", "operator", _NO_HARQ_JITTER),
    ("operator - both, SR every 1 ms", "operator", {**_NO_HARQ_JITTER, **_SR_EVERY_MS}),
)


def run(profile: str, fields: dict, seed: int) -> dict[str, float]:
    """One run's settled rate, window and RTT, and its downlink's HARQ activity."""
    doc = nor_maulana._base(DURATION_S, "vegas")
    doc["cells"][0] |= {"profile": profile, **fields}
    r = cellcc.run(doc, seed=seed)
    late = r.timeseries[r.timeseries["t_s"] >= LATE_FROM_S]
    dl = r.lte[r.lte["dir"] == "dl"]
    return {
        "rate_mbps": late["throughput_bps"].mean() / 1e6,
        "cwnd_kb": late["cwnd_bytes"].mean() / 1e3,
        "rtt_ms": late["rtt_ms"].mean(),
        "dl_first_tx_bler": dl["first_tx_bler"].mean(),
        "harq_retx_per_s": dl["harq_retx"].sum() / DURATION_S / dl["ue"].nunique(),
    }


def table() -> pd.DataFrame:
    rows = []
    for name, profile, fields in VARIANTS:
        runs = pd.DataFrame([run(profile, fields, s) for s in SEEDS])
        rows.append({"variant": name, **runs.mean().round(3).to_dict()})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    print(table().to_string(index=False))
