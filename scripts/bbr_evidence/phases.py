"""Engine runs of one scenario with the flows started at phases across the trace's millisecond.

Usage: python phases.py SCENARIO.toml CCA [SEEDS=1,2] [STEP_MS=0.1]
Prints, per start phase and seed, the cumulative retransmissions at fixed times and the RTOs:
which runs take which branch, and when they part. Compare with `timeline.py`'s kernel rows.
"""

import sys

import numpy as np

import cellcc
from cellcc.backends.crosscheck import with_start_phase

MARKS_S = (1, 1.5, 2, 3, 6, 10, 20)


def main() -> None:
    scenario, cca = sys.argv[1], sys.argv[2]
    seeds = [int(s) for s in (sys.argv[3] if len(sys.argv) > 3 else "1,2").split(",")]
    step_ms = float(sys.argv[4]) if len(sys.argv) > 4 else 0.1
    base = cellcc.Scenario.load(scenario).with_cca(cca).to_dict()
    marks = " ".join(f"{m:>6}" for m in MARKS_S)
    print(f"{'phase ms':>8} {'seed':>4} {marks}  RTOs   (cumulative retransmissions at the marks, s)")
    totals, with_rto = [], 0
    for phase_ms in np.arange(0, 1, step_ms):
        sc = with_start_phase(base, phase_ms / 1e3)
        for seed in seeds:
            out = cellcc.run(cellcc.Scenario.from_dict(sc), seed=seed)
            t_s = out.timeseries["t_s"].to_numpy()
            cum = out.timeseries["retransmits"].cumsum().to_numpy()
            at = [int(cum[max(0, int(np.searchsorted(t_s, m)) - 1)]) for m in MARKS_S]
            totals.append(int(out.flows["retransmits"].sum()))
            rtos = int(out.flows["timeouts"].sum())
            with_rto += rtos > 0
            print(f"{phase_ms:8.2f} {seed:4d} " + " ".join(f"{x:6d}" for x in at) + f" {rtos:5d}")
    print(f"retransmissions over all runs: mean {np.mean(totals):.0f}, range {min(totals)}-{max(totals)}")
    print(f"runs with an RTO: {with_rto} of {len(totals)}")


if __name__ == "__main__":
    main()
