"""Quick start of the Python API: run a scenario, look at its tables, compare CCAs.

Run from the repo root: ``.venv/bin/python examples/quickstart.py [OUT_DIR]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cellcc
from cellcc.stats import jain

HERE = Path(__file__).resolve().parent


def main(out_dir: Path | None) -> None:
    # One run: per-flow FlowMonitor statistics as a DataFrame.
    result = cellcc.run(HERE / "trace_driven.toml", seed=3)
    print(result.flows[["flow_id", "cca", "throughput_bps", "mean_delay_ms", "retransmits"]].to_string(index=False))
    print(f"Jain fairness of throughput: {jain(result.flows['throughput_bps']):.3f}")
    print(f"cwnd changes recorded: {len(result.cwnd)}; provenance: {result.provenance['scenario_sha256'][:12]}")
    if out_dir is not None:
        print(f"saved to {result.save(out_dir)}")

    # A comparison: every TCP flow runs each CCA, two seeds each; mean and 95% CI.
    table = cellcc.compare(HERE / "fragmentation.toml", ccas=["reno", "newreno"], seeds=2, workers=1)
    print(table[["rank", "cca", "throughput_mbps_mean", "throughput_mbps_ci95"]].to_string(index=False))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
