"""One wired crosscheck path on one backend: the ssthresh sequence, the cwnd after 5 s, delay and RTOs.

Evidence for docs/ns3.md ("Where they differ, and why"): run it with ns-3's own
``NS_ATTRIBUTE_DEFAULT`` (ns-3 3.44 core/model/object-base.cc reads it for every attribute the
plan does not set) to switch one ns-3 mechanism off, e.g.::

    .venv/bin/python scripts/ns3_evidence/ssthresh.py ns3 dumbbell-10mbps-40ms-1bdp cubic
    NS_ATTRIBUTE_DEFAULT="ns3::TcpL4Protocol::RecoveryType=ns3::TcpClassicRecovery" \
        .venv/bin/python scripts/ns3_evidence/ssthresh.py ns3 dumbbell-10mbps-40ms-1bdp cubic
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import tomllib

import cellcc
from cellcc.backends.ns3 import run as ns3_run

CROSSCHECK = Path(__file__).resolve().parents[2] / "examples" / "crosscheck"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("backend", choices=["engine", "ns3"])
    ap.add_argument("scenario", help="a file stem in examples/crosscheck, e.g. dumbbell-10mbps-40ms-1bdp")
    ap.add_argument("cca")
    ap.add_argument("--duration-s", type=float, default=20.0)
    ap.add_argument("--min-rto-ms", type=float, help="tcp.min_rto_ms on this run (both backends map it)")
    ap.add_argument("--cca-params", default=None, help='engine cca_params as JSON, e.g. {"hystart": false}')
    a = ap.parse_args()
    doc = tomllib.loads((CROSSCHECK / f"{a.scenario}.toml").read_text())
    doc["duration_s"] = a.duration_s
    if a.min_rto_ms is not None:
        doc.setdefault("tcp", {})["min_rto_ms"] = a.min_rto_ms
    for f in doc["flows"]:
        f["cca"] = a.cca
        if a.cca_params:
            f["cca_params"] = json.loads(a.cca_params)
    r = cellcc.run(doc, seed=1) if a.backend == "engine" else ns3_run.run(doc, seed=1, base_dir=CROSSCHECK)
    cw, fl = r.cwnd, r.flows.iloc[0]
    cut = cw[cw["ssthresh_bytes"].notna() & (cw["ssthresh_bytes"] < 2**31)]
    changes = cut[cut["ssthresh_bytes"].diff() != 0]
    mss = doc.get("tcp", {}).get("mss_bytes", 1448)
    seq = [(round(t, 2), int(v // mss)) for t, v in zip(changes["t_s"], changes["ssthresh_bytes"], strict=True)]
    late = cw[cw["t_s"] > 5]["cwnd_bytes"]
    print(f"{a.backend} {a.scenario} {a.cca}: ssthresh changes (s, segments) {seq}")
    if len(cut):
        peak = cw[cw["t_s"] <= cut["t_s"].iloc[0]]["cwnd_bytes"].max()
        first = cut.iloc[0]
        print(f"  first ssthresh at {first['t_s']:.4f} s: {int(first['ssthresh_bytes'])} B, peak cwnd {peak} B")
    print(f"  cwnd after 5 s: median {late.median():.0f} min {late.min():.0f} max {late.max():.0f} B")
    print(
        f"  throughput {fl['throughput_bps'] / 1e6:.2f} Mbit/s, one-way delay {fl['mean_delay_ms']:.1f} ms, "
        f"retransmissions {fl['retransmits']}, RTOs {fl['timeouts']}"
    )


if __name__ == "__main__":
    main()
