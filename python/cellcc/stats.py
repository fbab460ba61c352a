"""Statistics over replications: mean with a Student-t confidence interval, Jain's
fairness index, and the empirical CDF.

References: Jain, Chiu, Hawe, "A Quantitative Measure of Fairness and
Discrimination for Resource Allocation in Shared Computer Systems", DEC-TR-301, 1984.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

__all__ = ["MeanCI", "ecdf", "jain", "mean_ci"]

#: Confidence level of every interval cellcc reports.
CONFIDENCE = 0.95


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
