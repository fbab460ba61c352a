"""The channel drive (examples/crosscheck/lte-channel-drive.toml) on the engine and on ns-3, per
seed: RTOs, the ACK silences (gaps between RTT samples) over the RTO floor, how many of them
contain an RTO, the longest, and the median smoothed RTT over 5-10 s; with ``--samples``, the
first RTT samples after each silence.

Evidence for docs/ns3.md ("Engine vs ns-3 on a channel scenario", the RTO counts)::

    .venv/bin/python scripts/ns3_evidence/drive_rto.py cubic --seeds 1-6
    .venv/bin/python scripts/ns3_evidence/drive_rto.py cubic --seeds 1 --samples
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
import tomllib

import cellcc
from cellcc.backends.ns3 import run as ns3_run
from cellcc.backends.ns3.lte import as_lena

SCENARIO = Path(__file__).resolve().parents[2] / "examples" / "crosscheck" / "lte-channel-drive.toml"
#: The scenario's min_rto_ms: a silence longer than this can end in an RTO.
RTO_FLOOR_S = 0.2
#: The window of the drive (far from the site) whose smoothed RTT is reported, s.
LATE_WINDOW_S = (5.0, 10.0)
#: RTT samples shown after each silence with --samples.
SAMPLES_SHOWN = 4


def _rto_starts(cwnd: pd.DataFrame) -> np.ndarray:
    """Times the flow entered the Loss state (an RTO on both sides)."""
    state = cwnd.ca_state.str.lower()
    return cwnd[(state == "loss") & (state.shift() != "loss")].t_s.to_numpy()


def _report(name: str, seed: int, out, samples: bool) -> None:
    rtt, rtos = out.rtt, _rto_starts(out.cwnd)
    t = rtt.t_s.to_numpy()
    gaps = np.diff(t)
    silent = np.flatnonzero(gaps > RTO_FLOOR_S)
    with_rto = sum(any(t[i] < x < t[i + 1] for x in rtos) for i in silent)
    late = rtt[(rtt.t_s > LATE_WINDOW_S[0]) & (rtt.t_s < LATE_WINDOW_S[1])].srtt_ms.median()
    flow = out.flows.iloc[0]
    print(
        f"seed {seed} {name:6s} {flow.throughput_bps / 1e6:6.2f} Mbit/s  RTOs {int(flow.timeouts):2d}  "
        f"silences > {RTO_FLOOR_S * 1e3:.0f} ms {len(silent):2d} (with an RTO {with_rto:2d}), "
        f"longest {gaps.max() * 1e3:5.0f} ms  srtt median {LATE_WINDOW_S[0]:g}-{LATE_WINDOW_S[1]:g} s {late:6.1f} ms"
    )
    if samples:
        for i in silent:
            nxt = rtt.rtt_ms.iloc[i + 1 : i + 1 + SAMPLES_SHOWN].round().astype(int).tolist()
            print(f"    silence at {t[i]:.2f} s, {gaps[i] * 1e3:.0f} ms: next RTT samples {nxt} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cca")
    ap.add_argument("--seeds", default="1-6", help="first-last")
    ap.add_argument("--samples", action="store_true")
    args = ap.parse_args()
    sc = tomllib.loads(SCENARIO.read_text())
    sc["flows"][0]["cca"] = args.cca
    first, _, last = args.seeds.partition("-")
    for seed in range(int(first), int(last or first) + 1):
        # The engine under the LENA profile, as ns-3 runs the cell (backends/ns3/lte.py `as_lena`).
        _report("engine", seed, cellcc.run(as_lena(sc)[0], seed=seed), args.samples)
        _report("ns3", seed, ns3_run.run(sc, seed=seed), args.samples)


if __name__ == "__main__":
    main()
