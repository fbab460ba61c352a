"""Statistics, Pm and the recommendation against values worked by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from cellcc.metrics import _pm_parts, _trace_capacity_bps
from cellcc.recommend import recommend
from cellcc.stats import bootstrap_ci, holm, paired_test, percentile


def test_paired_test_matches_scipy_and_handles_degenerate_samples():
    a, b = [10.0, 12.0, 11.0, 13.0], [9.0, 10.5, 10.8, 11.0]
    got = paired_test(a, b)
    want = sps.ttest_rel(a, b)
    assert got.p_value == pytest.approx(want.pvalue) and got.n == 4
    # Differences 1, 1.5, 0.2, 2: mean 1.175 (by hand).
    assert got.mean_difference == pytest.approx(1.175)
    assert paired_test([1, 2, 3], [1, 2, 3]).p_value == 1.0
    assert paired_test([2, 3, 4], [1, 2, 3]).p_value == 0.0
    assert math.isnan(paired_test([1.0], [2.0]).p_value)


def test_paired_test_reads_float_rounding_as_no_difference():
    # Two CCAs whose runs are the same up to the order of a sum's terms (9b680c1, malekzadeh's
    # 802.11ac Illinois / Yeah tie): p = 1, where the t-test on the rounding read p = 0.59.
    a = np.array([12.345678901234567, 13.2, 11.9, 12.8])
    b = a + np.array([2e-15, -1.8e-15, 0.0, 3.5e-15])
    got = paired_test(a, b)
    assert (got.p_value, got.mean_difference) == (1.0, 0.0)
    assert float(sps.ttest_rel(a, b).pvalue) < 1.0
    # A real difference is scipy's test, as before.
    real = a + np.array([0.1, 0.3, 0.2, 0.25])
    assert paired_test(a, real).p_value == pytest.approx(float(sps.ttest_rel(a, real).pvalue), rel=1e-12)


def test_holm_by_hand():
    # Sorted p: 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04 -> kept monotone at 0.06).
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    adjusted = holm([0.5, math.nan])
    assert adjusted[0] == 0.5 and math.isnan(adjusted[1])


def test_percentile_and_bootstrap():
    assert percentile([1, 2, 3, 4, 5], 50) == 3.0
    # numpy's linear rule: rank 0.95 * 4 = 3.8 -> 4 + 0.8 * (5 - 4).
    assert percentile([1, 2, 3, 4, 5], 95) == pytest.approx(4.8)
    low, high = bootstrap_ci([1, 2, 3, 4, 5])
    assert low < 3.0 < high and (low, high) == bootstrap_ci([1, 2, 3, 4, 5])
    assert bootstrap_ci([2.0, 2.0]) == (2.0, 2.0)


def test_pm_parts_by_hand():
    # Seed 003 Eqs. 1-5 with a = b = c = 1. Two slots, Kt = 20 Mbit/s, RTTmin = 40 ms, MSS = 1448 B:
    # A = 10/20 = 0.5 and 20/20 = 1; Dmin = 20 ms -> B = 1 and 0.5;
    # BDP = 20e6 * 0.040 / 8 = 100 000 B; R = 0 and 10 -> C = 1 and (100000 - 14480) / 100000 = 0.8552.
    ts = pd.DataFrame(
        {"flow_id": ["f", "f"], "t_s": [0.0, 0.1], "goodput_bps": [10e6, 20e6], "mean_delay_ms": [20.0, 40.0]}
    ).assign(retransmits=[0, 10])
    pm = _pm_parts(ts, np.array([20e6, 20e6]), 40.0, 1448, (1.0, 1.0, 1.0))
    assert pm["a"].tolist() == pytest.approx([0.5, 1.0])
    assert pm["b"].tolist() == pytest.approx([1.0, 0.5])
    assert pm["c"].tolist() == pytest.approx([1.0, 0.8552])
    assert pm["pm"].tolist() == pytest.approx([2.5 / 3, 2.3552 / 3])


def test_pm_slot_without_delivery_scores_zero_delay_part():
    ts = pd.DataFrame({"flow_id": ["f"] * 2, "t_s": [0.0, 0.1], "goodput_bps": [1e6, 0.0]})
    ts = ts.assign(mean_delay_ms=[10.0, np.nan], retransmits=[0, 0])
    pm = _pm_parts(ts, np.array([2e6, 2e6]), 20.0, 1448, (1.0, 1.0, 1.0))
    assert pm["b"].tolist() == [1.0, 0.0]


def test_trace_capacity_counts_opportunities_and_loops(tmp_path):
    trace = tmp_path / "t.trace"
    # Period 100 ms (the last line); opportunity k at ms[k % 4] + (k // 4) * 100 (Mahimahi link_queue.cc):
    # 0, 0, 50, 100 | 100, 100, 150, 200 | 200, ...
    trace.write_text("0\n0\n50\n100\n", encoding="utf-8")
    cap = _trace_capacity_bps(str(trace), np.array([0.0, 0.1, 0.2]), 0.1, 1500)
    # [0, 100): 0, 0, 50 -> 3 x 1500 B x 8 / 0.1 s = 360 kbit/s; [100, 200): 100, 100, 100, 150 -> 480 kbit/s.
    assert cap.tolist() == [360_000.0, 480_000.0, 480_000.0]


def runs_frame(values: dict[str, list[float]], delay: dict[str, list[float]] | None = None) -> pd.DataFrame:
    rows = []
    for cca, xs in values.items():
        for seed, x in enumerate(xs):
            d = (delay or {}).get(cca, [50.0] * len(xs))[seed]
            rows.append({"cca": cca, "seed": seed, "throughput_mbps": x, "rtt_p95_ms": d, "pm_mean": 0.5})
    return pd.DataFrame(rows)


def test_recommendation_names_a_clear_winner():
    rec = recommend(runs_frame({"cubic": [10, 11, 10.5, 10.8], "vegas": [5, 5.5, 5.2, 5.1]}), "throughput")
    assert rec.best == "cubic" and rec.verdict.startswith("Use cubic")
    assert rec.ranking["significant"].tolist() == [False, True]
    top = rec.ranking.iloc[0]
    assert top["throughput_mbps_boot95_low"] < top["throughput_mbps_mean"] < top["throughput_mbps_boot95_high"]
    assert "vegas: 51% less throughput than cubic" in rec.reasons[0]


def test_recommendation_refuses_on_ties():
    same = [10.0, 11.0, 10.5]
    rec = recommend(runs_frame({"cubic": same, "reno": same, "vegas": [1, 1.2, 1.1]}), "throughput")
    assert rec.best is None and rec.tied == ["reno"]
    assert rec.verdict.startswith("No recommendation") and "reno (p = 1)" in rec.verdict


def test_recommendation_says_when_seeds_did_not_vary_a_ccas_runs():
    # cubic and reno ran identically in every seed (a trace path without random loss): the constant
    # difference is "certain" by the rule, and the verdict says it rests on one run per CCA.
    rec = recommend(runs_frame({"cubic": [18.6] * 3, "reno": [17.9] * 3, "bbr": [15.0, 15.5, 14.7]}), "throughput")
    assert rec.best == "cubic" and rec.verdict.startswith("Use cubic")
    assert rec.invariant == ["cubic", "reno"]
    assert "cubic, reno gave the same mean throughput in every seed" in rec.verdict
    varied = recommend(runs_frame({"cubic": [10, 11, 10.5, 10.8], "vegas": [5, 5.5, 5.2, 5.1]}), "throughput")
    assert varied.invariant == [] and "Note:" not in varied.verdict


def test_recommendation_refuses_with_noisy_small_differences():
    rec = recommend(runs_frame({"a": [10, 12, 9], "b": [10.5, 11, 9.2]}), "throughput")
    assert rec.best is None and "cannot be told apart" in rec.verdict


def test_delay_objective_and_budget():
    runs = runs_frame(
        {"cubic": [20, 20.5, 19.8], "bbr": [19, 19.2, 18.9]}, {"cubic": [200, 210, 190], "bbr": [60, 61, 59]}
    )
    assert recommend(runs, "delay").best == "bbr"
    budget = recommend(runs, "throughput", delay_budget_ms=100)
    assert budget.excluded == ["cubic"] and budget.best == "bbr"
    with pytest.raises(ValueError, match="--objective: got speed"):
        recommend(runs, "speed")
