"""Generate variable-rate link traces in Mahimahi's format.

Format (Mahimahi, ``mahimahi/src/packet/link_queue.cc``): one integer per line, a
time in milliseconds at which one MTU-sized (1500 B) packet may leave the link;
a time repeated n times means n packets in that millisecond; the trace loops
with a period equal to its last timestamp.

The rate follows a bounded, mean-reverting random walk, one step per
``step_ms``::

    r[k+1] = reflect(r[k] + theta * (mean - r[k]) + U(-step, +step))   into [low, high]

and opportunities are spread evenly inside each millisecond by a carried
fractional credit, so the trace delivers exactly the integral of the rate
(to within one packet). Deterministic: a seed gives the same file on any
machine and Python version (only ``random.Random.random`` is used).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "MAHIMAHI_PACKET_BYTES",
    "RandomWalk",
    "mahimahi_lines",
    "rate_steps",
    "step_lines",
    "write_lines",
    "write_trace",
]

#: Bytes per delivery opportunity in a Mahimahi trace (an Ethernet MTU).
MAHIMAHI_PACKET_BYTES = 1500
_BITS_PER_BYTE = 8
_MS_PER_S = 1000


@dataclass(frozen=True)
class RandomWalk:
    """A bounded random walk of link rate. Rates in Mbit/s, times in ms."""

    mean_mbps: float = 20.0
    low_mbps: float = 5.0
    high_mbps: float = 35.0
    #: Largest change per step (uniform in [-step, +step]), Mbit/s.
    step_mbps: float = 3.0
    #: Pull toward the mean per step (0: pure random walk, 1: i.i.d. around the mean).
    theta: float = 0.1
    step_ms: int = 100
    duration_ms: int = 30_000
    seed: int = 1

    def __post_init__(self) -> None:
        if not (0 < self.low_mbps <= self.mean_mbps <= self.high_mbps):
            raise ValueError("need 0 < low_mbps <= mean_mbps <= high_mbps")
        if self.step_ms < 1 or self.duration_ms < self.step_ms or not (0.0 <= self.theta <= 1.0):
            raise ValueError("need step_ms >= 1, duration_ms >= step_ms, theta in [0, 1]")


#: Packets an integral may fall short of a whole number by float rounding and still count it.
_WHOLE_PACKET_SLACK = 1e-9


def _reflect(x: float, low: float, high: float) -> float:
    """Fold ``x`` back into [low, high] (a bounded walk that does not stick to its bounds)."""
    width = high - low
    if width <= 0:
        return low
    # Reflection at both bounds is periodic with period 2 * width: fold in O(1).
    y = (x - low) % (2 * width)
    return low + (2 * width - y if y > width else y)


def rate_steps(walk: RandomWalk) -> list[float]:
    """The rate (Mbit/s) of each step of ``walk``, starting at its mean."""
    rng = random.Random(walk.seed)
    rate = walk.mean_mbps
    rates = []
    for _ in range(walk.duration_ms // walk.step_ms):
        rates.append(rate)
        jitter = (2 * rng.random() - 1) * walk.step_mbps
        rate = _reflect(rate + walk.theta * (walk.mean_mbps - rate) + jitter, walk.low_mbps, walk.high_mbps)
    return rates


def step_lines(rates_mbps: list[float], step_ms: int) -> Iterator[int]:
    """Millisecond timestamps (1 .. len x step_ms) of each delivery opportunity of a rate
    that holds each of ``rates_mbps`` for ``step_ms`` in turn: by each millisecond, as many as
    the rate's integral so far holds whole packets (taken from the integral, not a running sum
    of per-millisecond credits, whose rounding could lose the last packet)."""
    delivered = 0
    owed_before_step = 0.0
    for k, rate_mbps in enumerate(rates_mbps):
        packets_per_ms = rate_mbps * 1e6 / (_BITS_PER_BYTE * MAHIMAHI_PACKET_BYTES * _MS_PER_S)
        for elapsed_ms, ms in enumerate(range(k * step_ms + 1, (k + 1) * step_ms + 1), start=1):
            owed = int(owed_before_step + packets_per_ms * elapsed_ms + _WHOLE_PACKET_SLACK)
            yield from (ms for _ in range(owed - delivered))
            delivered = owed
        owed_before_step += packets_per_ms * step_ms


def rotate(lines: list[int], start_ms: int) -> list[int]:
    """The trace ``lines`` started ``start_ms`` into it, looping as Mahimahi does (its period is
    the last line): the capacity a flow meets when it starts at another moment of the recording."""
    period = lines[-1]
    start_ms %= period
    return sorted(t - start_ms if t > start_ms else t - start_ms + period for t in lines)


def mahimahi_lines(walk: RandomWalk) -> Iterator[int]:
    """Millisecond timestamps (1 .. duration) of each delivery opportunity."""
    return step_lines(rate_steps(walk), walk.step_ms)


def write_lines(lines: Iterator[int], path: str | Path) -> int:
    """Write delivery opportunities as a Mahimahi trace file; returns how many."""
    text = [str(ms) for ms in lines]
    Path(path).write_text("\n".join(text) + "\n", encoding="ascii")
    return len(text)


def write_trace(walk: RandomWalk, path: str | Path) -> int:
    """Write ``walk`` as a Mahimahi trace file; returns the number of opportunities."""
    return write_lines(mahimahi_lines(walk), path)
