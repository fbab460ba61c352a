"""The 7-site network of scripts/bench_ns3.py (`hex_network`) on the engine (lena profile, as
the benchmark runs it) and on ns-3 LENA, side by side: total TCP throughput, flows at zero, and
the downlink's mean MCS, TBs per UE per 100 ms, first-transmission BLER, HARQ retransmissions and
PHY throughput per cell, over the `lte` table's rows from 0.3 s; then, per band of the engine's
mean DL MCS per UE, both sides' mean MCS and LENA's HARQ retransmissions.

Evidence for docs/lte/network.md ("Speed", the re-run side by side). LENA takes about 140 s of
CPU per simulated second; ``--engine-only`` skips it::

    .venv/bin/python scripts/ns3_evidence/hex_network.py
    .venv/bin/python scripts/ns3_evidence/hex_network.py --fading none
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from bench_ns3 import hex_network  # noqa: E402
from cellcc.backends.frontend import DocScenario, run_ns3  # noqa: E402
from cellcc.backends.ns3.lte import as_lena  # noqa: E402
from cellcc.result import Result  # noqa: E402
from cellcc.runner import run_one  # noqa: E402
from cellcc.scenario import Scenario  # noqa: E402

#: The `lte` rows before this (slow start and the staggered starts) are left out, s.
STEADY_FROM_S = 0.3
#: Bands of the engine's per-UE mean DL MCS for the side-by-side breakdown.
MCS_BANDS = [-1, 3, 6, 9, 12, 15, 18, 21, 28]


def steady_dl(r: Result) -> pd.DataFrame:
    """The downlink rows of the `lte` table from STEADY_FROM_S on."""
    lte = r.tables()["lte"]
    return lte[(lte.dir == "dl") & (lte.t_s >= STEADY_FROM_S)]


def by_engine_mcs(engine: Result, lena: Result) -> pd.DataFrame:
    """Per band of the engine's per-UE mean DL MCS: UEs, both sides' mean MCS, LENA's HARQ
    retransmissions per UE per 100 ms."""
    per_ue = {
        side: steady_dl(r).groupby("ue").agg(mcs=("mcs_mean", "mean"), retx=("harq_retx", "mean"))
        for side, r in (("engine", engine), ("lena", lena))
    }
    j = per_ue["engine"].add_suffix("_engine").join(per_ue["lena"].add_suffix("_lena"))
    j["band"] = pd.cut(j.mcs_engine, MCS_BANDS)
    return j.groupby("band", observed=True).agg(
        ues=("mcs_engine", "size"),
        mcs_engine=("mcs_engine", "mean"),
        mcs_lena=("mcs_lena", "mean"),
        retx_lena=("retx_lena", "mean"),
    )


def summary(r: Result) -> dict[str, float]:
    """One run's totals and downlink means."""
    flows = r.flows
    dl = steady_dl(r)
    return {
        "total_mbps": flows.throughput_bps.sum() / 1e6,
        "flows_at_zero": float((flows.rx_bytes == 0).sum()),
        "dl_mcs": dl.mcs_mean.mean(),
        "tbs_per_ue_100ms": dl.tbs.mean(),
        "first_tx_bler": dl.first_tx_bler.mean(),
        "harq_retx_per_ue_100ms": dl.harq_retx.mean(),
        "cell_phy_mbps": dl.groupby(["cell", "t_s"]).phy_throughput_bps.sum().mean() / 1e6,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration-s", type=float, default=1.0)
    ap.add_argument("--fading", default="epa", help="network.channel.fading profile (epa, none, ...)")
    ap.add_argument("--engine-only", action="store_true")
    args = ap.parse_args()
    doc = hex_network(args.duration_s)
    doc["network"]["channel"]["fading"] = {"profile": args.fading}
    sc = DocScenario(doc, str(ROOT / "scripts" / "bench_ns3.py"))
    engine_sc = Scenario(json.dumps(as_lena(sc.to_dict())[0]), sc.source)
    engine = run_one(engine_sc, sc.seed)
    if args.engine_only:
        print(pd.DataFrame({"engine": summary(engine)}).round(3).to_string())
        return
    lena = run_ns3(sc, sc.seed)
    print(pd.DataFrame({"engine": summary(engine), "lena": summary(lena)}).round(3).to_string())
    print(by_engine_mcs(engine, lena).round(2).to_string())


if __name__ == "__main__":
    main()
