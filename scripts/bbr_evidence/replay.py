"""Replay tcp_rate.c delivery-rate samples from the sender-side packet log of a kernel run.

Usage: python replay.py WORKDIR
Prints: pair-burst share of sends, per-ACK RTT of the newest acked segment (first vs second of a
GSO pair), delivery-rate samples vs the link rate, and a 10-round max filter of them.
"""

import sys
from pathlib import Path

import numpy as np

MSS = 1448
LINK_PPS = 10e6 / 8 / 1500  # 833.33 full packets per second
wd = Path(sys.argv[1])
a = np.genfromtxt(wd / "pkts-snd.csv", delimiter=",", names=True, dtype=None, encoding=None)
out = a[(a["dir"] == "out") & (a["payload"] > 0)]
inn = a[(a["dir"] == "in")]
isn = int(out["seq"][0])
u32 = 1 << 32


def rel(x):
    return (int(x) - isn) % u32


# sends: first transmissions only
send_t = {}
order = []
for t, s, p in zip(out["t_ns"].astype(np.int64), out["seq"], out["payload"], strict=False):
    end = rel(s) + int(p)
    if end not in send_t:
        send_t[end] = int(t)
        order.append((int(t), end))
ts = np.array([o[0] for o in order])
gaps = np.diff(ts)
print(f"sends: {len(ts)}, share sent < 50 us after the previous: {np.mean(gaps < 50_000):.2f}")

# walk the merged event stream
events = [(t, 0, e) for t, e in order] + [
    (int(t), 1, rel(k)) for t, k in zip(inn["t_ns"].astype(np.int64), inn["ack"], strict=False)
]
events.sort()
delivered, delivered_t, first_tx = 0, None, None
snap = {}
una = 0
outstanding = 0
samples = []  # (t, rate_pps, ack_us, snd_us, rtt_us, burst_second)
prev_send_t = None
for t, kind, x in events:
    if kind == 0:
        if outstanding == 0:
            first_tx = t
            delivered_t = t
        snap[x] = (delivered, delivered_t, first_tx, t, prev_send_t is not None and t - prev_send_t < 50_000)
        prev_send_t = t
        outstanding += 1
        continue
    if x <= una or x > 1 << 31:
        continue
    newly = (x - una) // MSS
    una = x
    delivered += newly
    outstanding = max(0, outstanding - newly)
    s = snap.get(x)
    delivered_t_prev = delivered_t
    delivered_t = t
    if s is None:
        continue
    d0, dt0, ftx0, st, second = s
    snd_us = (st - ftx0) / 1e3
    ack_us = (t - dt0) / 1e3
    first_tx = st
    interval = max(snd_us, ack_us)
    if interval < 40_000:
        continue
    samples.append((t, (delivered - d0) / interval * 1e6, ack_us, snd_us, (t - st) / 1e3, second))
S = np.array(samples)
t0 = S[0, 0]
m = (S[:, 0] - t0) > 3e9
S = S[m]
r = S[:, 1] / LINK_PPS
print("delivery-rate samples / link rate: p1/p10/p50/p90/p99/max", np.percentile(r, [1, 10, 50, 90, 99, 100]).round(4))
print(
    f"share of samples above the link rate: {np.mean(r > 1):.3f}; "
    f"send phase longer than ACK phase: {np.mean(S[:, 3] > S[:, 2]):.3f}"
)
rt = S[:, 4] / 1e3
sec = S[:, 5] > 0
print(
    f"RTT ms of ACKs whose newest segment left in a burst (2nd of pair): n={sec.sum()} "
    f"p50 {np.median(rt[sec]):.2f}; others n={(~sec).sum()} p50 {np.median(rt[~sec]):.2f}"
)
# 10-round max filter approximated by a sliding 10 x 45 ms window
win = 10 * 45e6
mx = []
j = 0
for i in range(len(S)):
    while S[i, 0] - S[j, 0] > win:
        j += 1
    mx.append(S[j : i + 1, 1].max())
mx = np.array(mx) / LINK_PPS
print("sliding ~10-round max / link rate p10/p50/p90:", np.percentile(mx, [10, 50, 90]).round(4))
print("per-ACK RTT ms p1/p10/p50/p90/p99:", np.percentile(rt, [1, 10, 50, 90, 99]).round(2))
