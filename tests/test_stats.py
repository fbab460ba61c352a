"""Statistics: Student-t interval against worked values, Jain's bounds, the ECDF."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cellcc.stats import ecdf, jain, mean_ci


def test_mean_ci_matches_the_formula():
    # x = 1..5: mean 3, s = sqrt(2.5), t(0.975, 4) = 2.776445 (t table), half width = t*s/sqrt(5).
    ci = mean_ci([1, 2, 3, 4, 5])
    assert ci.mean == 3.0
    assert ci.half_width == pytest.approx(2.776445 * math.sqrt(2.5) / math.sqrt(5), rel=1e-6)
    assert ci.n == 5
    assert ci.low < 3.0 < ci.high


def test_mean_ci_of_identical_samples_is_exactly_zero_wide():
    # 0.1 three times: numpy's std(ddof=1) gives ~1.7e-17 from rounding the mean; the spread is 0.
    assert mean_ci([0.1, 0.1, 0.1]).half_width == 0.0


def test_mean_ci_with_one_sample_has_no_interval():
    ci = mean_ci([4.0, float("nan")])
    assert ci.mean == 4.0 and math.isnan(ci.half_width) and ci.n == 1
    assert math.isnan(mean_ci([]).mean)


def test_jain_extremes():
    assert jain([5, 5, 5, 5]) == pytest.approx(1.0)
    assert jain([10, 0, 0, 0]) == pytest.approx(0.25)


@given(st.lists(st.floats(min_value=0.001, max_value=1e9), min_size=1, max_size=50))
def test_jain_is_between_one_over_n_and_one(xs):
    j = jain(xs)
    assert 1 / len(xs) - 1e-9 <= j <= 1 + 1e-9


def test_ecdf():
    table = ecdf([3.0, 1.0, 2.0, 2.0])
    assert table["x"].tolist() == [1.0, 2.0, 2.0, 3.0]
    assert table["p"].tolist() == [0.25, 0.5, 0.75, 1.0]
