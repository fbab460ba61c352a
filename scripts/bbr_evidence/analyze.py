"""Analyse one kernel run's workdir: tcpi time series + packet logs at both ends.

Usage: python analyze.py WORKDIR [MSS]
"""

import json
import sys
from pathlib import Path

import numpy as np

wd = Path(sys.argv[1])
MSS = int(sys.argv[2]) if len(sys.argv) > 2 else 1448
snd = json.loads((wd / "send0.json").read_text())
S = snd["samples"]
t0 = S[0]["t_ns"]
t = np.array([s["t_ns"] - t0 for s in S]) / 1e9
cwnd = np.array([s["snd_cwnd"] for s in S])
pr = np.array([s["pacing_rate_Bps"] for s in S], dtype=float)
dr = np.array([s["delivery_rate_Bps"] for s in S], dtype=float)
mrtt = np.array([s["min_rtt_us"] for s in S])
rtt = np.array([s["rtt_us"] for s in S])
m = t > 3
print("samples", len(S), "mss", S[-1]["snd_mss"])
print("cwnd pkts after 3 s: p10/p50/p90", np.percentile(cwnd[m], [10, 50, 90]))
print("min_rtt us p50", np.median(mrtt[m]))
print("srtt ms p50/p95", np.percentile(rtt[m], [50, 95]) / 1e3)
vals, counts = np.unique(pr[m], return_counts=True)
mode = vals[np.argmax(counts)]
print("pacing rate B/s: mode", mode, "share", counts.max() / m.sum(), "p50", np.median(pr[m]))
bw_pps = mode / 0.99 / MSS
print(
    f"bw estimate from mode pacing (gain 1): {bw_pps:.1f} pkt/s = "
    f"{bw_pps * 1500 * 8 / 1e6:.3f} Mbit/s of 1500-B packets"
)
print("delivery_rate B/s p50/p90/max", np.percentile(dr[m], [50, 90, 100]))
# Implied extra_acked: cwnd - quantization - 2*bdp (bdp from the mode bw and min_rtt).
bdp = np.ceil(bw_pps * mrtt / 1e6)
implied = cwnd - 6 - 2 * bdp
print(
    "2*bdp pkts p50",
    np.median(2 * bdp[m]),
    " implied extra_acked (cwnd-2bdp-6) p10/p50/p90",
    np.percentile(implied[m], [10, 50, 90]),
)

for side in ("snd", "rcv"):
    f = wd / f"pkts-{side}.csv"
    if not f.exists():
        continue
    a = np.genfromtxt(f, delimiter=",", names=True, dtype=None, encoding=None)
    print(f"--- {side}: {len(a)} packets")
    for d in ("in", "out"):
        sel = a[a["dir"] == d]
        tt = sel["t_ns"].astype(np.int64)
        pay = sel["payload"]
        kind = "data" if np.median(pay) > 0 else "ack"
        gaps = np.diff(tt) / 1e3
        print(
            f"  {d} ({kind}): n={len(sel)} gap us p1/p10/p50/p90/p99: "
            f"{np.percentile(gaps, [1, 10, 50, 90, 99]).round(1)}"
        )
        if kind == "ack":
            ackn = sel["ack"].astype(np.int64)
            dack = np.diff(ackn) % (1 << 32)
            segs = np.round(dack / MSS)
            u, c = np.unique(segs, return_counts=True)
            print("   segs per ACK:", dict(zip(u.astype(int).tolist()[:12], c.tolist()[:12], strict=False)))
    if side == "snd":
        acks = a[(a["dir"] == "in")]
        ta = acks["t_ns"].astype(np.int64)
        ackn = acks["ack"].astype(np.int64)
        da = np.diff(ackn) % (1 << 32)
        da = np.concatenate([[0], da])
        segs = da / MSS
        # Replay bbr_update_ack_aggregation with bw = bw_pps (fixed), per ACK.
        start = ta[0] + 3_000_000_000
        k = ta > start
        ta, segs = ta[k], segs[k]
        epoch_t, epoch_acked = ta[0], 0.0
        extra = []
        for ti, s in zip(ta, segs, strict=False):
            if s <= 0:
                continue
            expected = bw_pps * (ti - epoch_t) / 1e9
            if epoch_acked <= expected:
                epoch_t, epoch_acked, expected = ti, 0.0, 0.0
            epoch_acked += s
            extra.append(epoch_acked - expected)
        extra = np.array(extra)
        print(
            "  replayed extra_acked per ACK (bw fixed at estimate): p50/p90/p99/max",
            np.percentile(extra, [50, 90, 99, 100]).round(1),
        )
        # windowed max over ~0.2 s (5 rounds of ~45 ms)
        # ACK-rate over 10 ms bins vs bw
        bins = np.arange(ta[0], ta[-1], 10_000_000)
        h, _ = np.histogram(ta, bins=bins, weights=segs)
        r = h / 0.01
        print(
            "  ACKed segs/s per 10 ms bin p1/p10/p50/p90/p99:",
            np.percentile(r, [1, 10, 50, 90, 99]).round(0),
            " vs bw",
            round(bw_pps),
        )
