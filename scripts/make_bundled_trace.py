"""Regenerate the bundled variable-rate trace: python/cellcc/data/traces/walk-20mbps.trace.

Run from the repo root: ``.venv/bin/python scripts/make_bundled_trace.py``.
The test suite checks that the committed file equals this script's output.
"""

from __future__ import annotations

from pathlib import Path

from cellcc.traces import RandomWalk, write_trace

#: The bundled trace: around 20 Mbit/s, bounded to [5, 35], 100 ms steps, 30 s, seed 1.
BUNDLED_WALK = RandomWalk(
    mean_mbps=20.0, low_mbps=5.0, high_mbps=35.0, step_mbps=3.0, theta=0.1, step_ms=100, duration_ms=30_000, seed=1
)
BUNDLED_PATH = Path(__file__).resolve().parent.parent / "python" / "cellcc" / "data" / "traces" / "walk-20mbps.trace"


if __name__ == "__main__":
    count = write_trace(BUNDLED_WALK, BUNDLED_PATH)
    print(f"wrote {BUNDLED_PATH} ({count} delivery opportunities)")
