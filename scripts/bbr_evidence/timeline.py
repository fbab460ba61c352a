"""Cumulative retransmissions and pacing rate at fixed times: kernel runs against engine seeds.

Usage: python timeline.py SCENARIO.toml CCA KERNEL_WORKDIR[,...] SEED[,...]
The kernel side reads `send0.json` of `run_kernel.py` workdirs (TCP_INFO every 10 ms); the engine
side runs the scenario with the CCA for each seed. Shows which branch each run takes and when.
"""

import json
import sys
from pathlib import Path

import numpy as np

import cellcc

MARKS_S = (1, 1.5, 2, 3, 5, 6, 10, 20)


def row(name: str, t_s: np.ndarray, retrans: np.ndarray, pacing_mbps: np.ndarray) -> str:
    cells = []
    for mark in MARKS_S:
        i = max(0, int(np.searchsorted(t_s, mark)) - 1)
        cells.append(f"{retrans[i]:>6.0f}/{pacing_mbps[i]:5.1f}")
    return f"{name:12s} " + " ".join(cells)


def kernel_row(workdir: str) -> str:
    samples = json.loads(Path(workdir, "send0.json").read_text())["samples"]
    # Times from the trace's zero, the scenario's time zero (the first sample comes an RTT later).
    t0 = json.loads(Path(workdir, "emu.json").read_text())["trace_start_ns"]
    t_s = np.array([(x["t_ns"] - t0) / 1e9 for x in samples])
    retrans = np.array([x["total_retrans"] for x in samples])
    return row(workdir, t_s, retrans, np.array([x["pacing_rate_Bps"] * 8 / 1e6 for x in samples]))


def engine_row(scenario: str, cca: str, seed: int) -> str:
    out = cellcc.run(cellcc.Scenario.load(scenario).with_cca(cca), seed=seed)
    t_s = out.timeseries["t_s"].to_numpy()
    pacing = np.interp(t_s, out.cwnd["t_s"].to_numpy(), out.cwnd["pacing_rate_bps"].to_numpy() / 1e6)
    return row(f"engine {seed}", t_s, out.timeseries["retransmits"].cumsum().to_numpy(), pacing)


def main() -> None:
    scenario, cca, workdirs, seeds = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4].split(",")
    print(f"{'s':12s} " + " ".join(f"{m:>12}" for m in MARKS_S) + "   (cumulative retransmissions / pacing Mbit/s)")
    for workdir in workdirs:
        print(kernel_row(workdir))
    for seed in seeds:
        print(engine_row(scenario, cca, int(seed)))


if __name__ == "__main__":
    main()
