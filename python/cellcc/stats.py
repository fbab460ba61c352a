"""Statistics over replications: mean with a Student-t or bootstrap confidence
interval, percentiles, Jain's fairness index, the empirical CDF, and a paired
significance test between two CCAs run with the same seeds.

References: Jain, Chiu, Hawe, "A Quantitative Measure of Fairness and
Discrimination for Resource Allocation in Shared Computer Systems", DEC-TR-301, 1984;
Efron & Tibshirani, "An Introduction to the Bootstrap", 1993 (percentile interval);
Holm, "A Simple Sequentially Rejective Multiple Test Procedure", Scand. J. Statist. 6, 1979.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

__all__ = ["MeanCI", "PairedTest", "bootstrap_ci", "ecdf", "holm", "jain", "mean_ci", "paired_test", "percentile"]

#: Confidence level of every interval cellcc reports.
CONFIDENCE = 0.95
#: Bootstrap resamples (Efron & Tibshirani suggest >= 1000 for percentile intervals).
BOOTSTRAP_RESAMPLES = 2000
#: Seed of the bootstrap's generator: the same data give the same interval on every run.
BOOTSTRAP_SEED = 0
#: A paired difference within this share of the values is the rounding of sums taken in another
#: order (IEEE 754 binary64 rounds each operation to 2^-53 relative; a run sums up to ~10^6 terms),
#: not a difference between the CCAs: the paired test counts it as none.
FLOAT_NOISE_RELATIVE = 1e-9


@dataclass(frozen=True)
class MeanCI:
    """Sample mean and the half-width of its confidence interval (NaN with fewer than 2 samples)."""

    mean: float
    half_width: float
    n: int

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width


def mean_ci(values: Sequence[float] | np.ndarray, confidence: float = CONFIDENCE) -> MeanCI:
    """Mean and Student-t interval half-width ``t(1-a/2, n-1) * s / sqrt(n)``; NaNs are ignored."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    n = int(x.size)
    if n == 0:
        return MeanCI(math.nan, math.nan, 0)
    mean = float(x.mean())
    if n < 2:
        return MeanCI(mean, math.nan, n)
    if np.all(x == x[0]):  # exactly no spread (numpy's std would give ~1e-15 from rounding the mean)
        return MeanCI(float(x[0]), 0.0, n)
    sem = float(x.std(ddof=1)) / math.sqrt(n)
    t = float(sps.t.ppf((1 + confidence) / 2, df=n - 1))
    return MeanCI(mean, t * sem, n)


def jain(values: Sequence[float] | np.ndarray) -> float:
    """Jain's fairness index ``(sum x)^2 / (n * sum x^2)``: 1 when equal, 1/n when one takes all."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return math.nan
    denominator = x.size * float(np.sum(x * x))
    return math.nan if denominator == 0 else float(np.sum(x)) ** 2 / denominator


def ecdf(values: Sequence[float] | np.ndarray) -> pd.DataFrame:
    """Empirical CDF: columns ``x`` (sorted values) and ``p`` = P(X <= x) at each."""
    x = np.sort(np.asarray(values, dtype=float))
    x = x[~np.isnan(x)]
    p = np.arange(1, x.size + 1, dtype=float) / max(x.size, 1)
    return pd.DataFrame({"x": x, "p": p})


def percentile(values: Sequence[float] | np.ndarray, q: float) -> float:
    """The ``q``-th percentile (0..100, linear interpolation as numpy's default); NaNs are ignored."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    return float(np.percentile(x, q)) if x.size else math.nan


def bootstrap_ci(values: Sequence[float] | np.ndarray, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Percentile-bootstrap interval of the mean, with a fixed seed (deterministic); NaN below 2 samples."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if x.size < 2:
        return (math.nan, math.nan)
    if np.all(x == x[0]):
        return (float(x[0]), float(x[0]))
    res = sps.bootstrap(
        (x,),
        np.mean,
        confidence_level=confidence,
        n_resamples=BOOTSTRAP_RESAMPLES,
        method="percentile",
        rng=np.random.default_rng(BOOTSTRAP_SEED),
    )
    return (float(res.confidence_interval.low), float(res.confidence_interval.high))


@dataclass(frozen=True)
class PairedTest:
    """A paired two-sided test of ``a - b`` over seeds both were run with."""

    test: str
    n: int
    mean_difference: float
    p_value: float


def paired_test(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> PairedTest:
    """Paired Student t-test (scipy ``ttest_rel``) of equal-length samples paired by seed.

    Identical samples give p = 1 (no evidence of a difference; scipy would give NaN), and so do
    samples that differ only by float rounding (within ``FLOAT_NOISE_RELATIVE`` of the values);
    fewer than two pairs give p = NaN (no test possible).
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    n = int(x.size)
    d = x - y
    d[np.abs(d) <= FLOAT_NOISE_RELATIVE * np.maximum(np.abs(x), np.abs(y))] = 0.0
    diff = float(np.mean(d)) if n else math.nan
    if n < 2:
        return PairedTest("paired t-test", n, diff, math.nan)
    if np.all(d == d[0]):
        # Constant differences: zero variance. Equal -> no difference; a constant shift -> certain.
        return PairedTest("paired t-test", n, diff, 1.0 if diff == 0 else 0.0)
    # The paired t-test is the one-sample test of the differences (what `ttest_rel` computes).
    return PairedTest("paired t-test", n, diff, float(sps.ttest_1samp(d, 0.0).pvalue))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values (step-down, monotone, capped at 1); NaN stays NaN."""
    p = np.asarray(p_values, dtype=float)
    order = [i for i in np.argsort(p, kind="stable") if not np.isnan(p[i])]
    m = len(order)
    adjusted = np.full(p.shape, np.nan)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * float(p[i])))
        adjusted[i] = running
    return adjusted.tolist()
