"""Per-run summary of kernel BBR runs: sRTT percentiles, BBR's bandwidth estimate against the link, lateness.

Usage: python table.py WORKDIR...  (workdirs of run_kernel.py on the 10 Mbit/s wired paths)
"""

import json
import sys
from pathlib import Path

import numpy as np

#: Full 1500-B packets per second on the 10 Mbit/s link.
LINK_PPS = 10e6 / 8 / 1500
#: Payload bytes per segment (tcpi_snd_mss) and BBR's 1 % pacing margin (tcp_bbr.c).
MSS = 1448
PACING_MARGIN = 0.99

for d in sys.argv[1:]:
    S = json.loads(Path(d, "send0.json").read_text())["samples"]
    emu = json.loads(Path(d, "emu-summary.json").read_text())["lateness_us"]
    srtt = np.array([s["rtt_us"] for s in S]) / 1e3
    pl = np.array([s["pacing_rate_Bps"] for s in S]) / PACING_MARGIN / MSS / LINK_PPS
    t = (np.array([s["t_ns"] for s in S]) - S[0]["t_ns"]) / 1e9
    g1 = (pl > 0.9) & (pl < 1.15) & (t > 1)
    print(
        f"{d:<32} p50 {np.percentile(srtt, 50):.1f} p95 {np.percentile(srtt, 95):.1f} | "
        f"bw/link (gain-1 samples) p50 {np.median(pl[g1]):.4f} max {pl[g1].max():.3f}, "
        f"time share > 1.02: {np.mean(pl[g1] > 1.02):.2f} | emu lateness p999 {emu['p999']} max {emu['max']} us"
    )
