"""Which CCA should this traffic use on this network: a ranking by one objective,
and a recommendation only when the data support one.

Rule (stated in every answer):

1. Rank CCAs by the mean of the objective's metric over seeds (:data:`OBJECTIVES`); the ranking
   shows the Student-t 95% half-width and a percentile-bootstrap 95% interval beside it.
   With ``delay_budget_ms``, CCAs whose mean p95 RTT exceeds it are left out first.
2. Compare the best CCA with every other by a paired t-test over the seeds both ran
   (same seed = same channel and loss draws, so pairing removes that noise), two-sided,
   Holm-adjusted over the comparisons, at ``alpha`` (default 0.05).
3. Recommend the best CCA only if every other is significantly worse. Otherwise refuse,
   and name the CCAs that cannot be told apart from it, with their p-values.

A CCA whose every seed gave the same value ran on a path with nothing random for the seed to
change (a trace or constant-rate link without random loss): its interval is 0 and a test
against it compares single runs. The verdict says so (``invariant``); the rule is unchanged.

>>> rec = recommend(runs, "throughput")        # doctest: +SKIP
>>> rec.verdict                                 # doctest: +SKIP
'Use cubic: highest mean throughput ...'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import pandas as pd

from cellcc.errors import UserError
from cellcc.stats import bootstrap_ci, holm, mean_ci, paired_test

__all__ = ["ALPHA", "OBJECTIVES", "Objective", "Recommendation", "recommend"]

#: Significance level of the paired tests (the conventional 5%).
ALPHA = 0.05


@dataclass(frozen=True)
class Objective:
    """A metric column of :func:`cellcc.metrics.run_metrics` and which way is better."""

    metric: str
    higher_is_better: bool
    label: str
    unit: str


#: The objectives a recommendation can rank by.
OBJECTIVES = {
    "throughput": Objective("throughput_mbps", True, "mean throughput", "Mbit/s"),
    "delay": Objective("rtt_p95_ms", False, "95th-percentile RTT", "ms"),
    "pm": Objective("pm_mean", True, "mean Pm (seed 003)", ""),
    "power": Objective("power_mbps_per_s", True, "Kleinrock power (throughput / mean RTT)", "Mbit/s per s"),
}


@dataclass(frozen=True)
class Recommendation:
    """The answer: ``best`` is None when the data do not single one CCA out."""

    objective: str
    best: str | None
    verdict: str
    criterion: str
    ranking: pd.DataFrame
    tied: list[str] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    #: CCAs whose runs were identical in every seed (the seeds were not replications).
    invariant: list[str] = field(default_factory=list)


def _objective(name: str) -> Objective:
    if name not in OBJECTIVES:
        raise UserError("--objective", name, f"one of {', '.join(OBJECTIVES)}")
    return OBJECTIVES[name]


def recommend(
    runs: pd.DataFrame,
    objective: str = "throughput",
    *,
    delay_budget_ms: float | None = None,
    alpha: float = ALPHA,
) -> Recommendation:
    """Rank and recommend from ``runs``: one row per (cca, seed) with the run-metric columns."""
    obj = _objective(objective)
    rec = _recommend(runs, obj, objective, delay_budget_ms, alpha)
    invariant = _seed_invariant(runs, obj, rec.excluded)
    if not invariant:
        return rec
    note = (
        f" Note: {', '.join(invariant)} gave the same {obj.label} in every seed; nothing random on this path"
        " changed with the seed, so those intervals are 0 and a test against them compares single runs."
    )
    return replace(rec, verdict=rec.verdict + note, invariant=invariant)


def _seed_invariant(runs: pd.DataFrame, obj: Objective, excluded: list[str]) -> list[str]:
    """CCAs (outside ``excluded``) whose every seed gave the same value of the objective."""
    return sorted(
        str(c)
        for c, g in runs.groupby("cca", sort=True)
        if c not in excluded and len(g) > 1 and g[obj.metric].nunique() == 1
    )


def _recommend(
    runs: pd.DataFrame, obj: Objective, objective: str, delay_budget_ms: float | None, alpha: float
) -> Recommendation:
    """Steps 1-3 of the rule in the module doc."""
    per_cca = {cca: g.sort_values("seed") for cca, g in runs.groupby("cca", sort=True)}
    excluded = []
    if delay_budget_ms is not None:
        excluded = sorted(c for c, g in per_cca.items() if mean_ci(g["rtt_p95_ms"]).mean > delay_budget_ms)
        per_cca = {c: g for c, g in per_cca.items() if c not in excluded}
    criterion = _criterion(obj, alpha, delay_budget_ms)
    if not per_cca:
        verdict = f"No recommendation: every CCA exceeds the delay budget of {delay_budget_ms:g} ms (mean p95 RTT)."
        return Recommendation(objective, None, verdict, criterion, pd.DataFrame(), excluded=excluded)
    ranking = _ranking(per_cca, obj)
    best = str(ranking.iloc[0]["cca"])
    _add_tests(ranking, per_cca, best, obj, alpha)
    tied = [str(c) for c in ranking.loc[~ranking["significant"] & (ranking["cca"] != best), "cca"]]
    reasons = [_reason(per_cca[c], per_cca[best], c, best) for c in ranking["cca"] if c != best]
    if len(ranking) == 1:
        verdict = f"Use {best}: it is the only CCA left" + (" within the delay budget." if excluded else ".")
        return Recommendation(objective, best, verdict, criterion, ranking, [], excluded, reasons)
    if tied:
        return Recommendation(
            objective, None, _refusal(ranking, best, tied, obj), criterion, ranking, tied, excluded, reasons
        )
    return Recommendation(objective, best, _endorse(ranking, best, obj), criterion, ranking, [], excluded, reasons)


def _criterion(obj: Objective, alpha: float, budget: float | None) -> str:
    direction = "higher" if obj.higher_is_better else "lower"
    text = (
        f"ranked by {obj.label} ({obj.metric}, {direction} is better) over seeds; the best is recommended only if "
        f"a paired t-test by seed (two-sided, Holm-adjusted) finds every other CCA worse at alpha = {alpha:g}"
    )
    return text + (f"; CCAs with mean p95 RTT above {budget:g} ms are excluded" if budget is not None else "")


def _ranking(per_cca: dict[str, pd.DataFrame], obj: Objective) -> pd.DataFrame:
    rows = []
    for cca, g in per_cca.items():
        ci = mean_ci(g[obj.metric])
        low, high = bootstrap_ci(g[obj.metric].to_numpy(dtype=float))
        rows.append(
            {
                "cca": cca,
                "n": ci.n,
                f"{obj.metric}_mean": ci.mean,
                f"{obj.metric}_ci95": ci.half_width,
                f"{obj.metric}_boot95_low": low,
                f"{obj.metric}_boot95_high": high,
            }
        )
    table = pd.DataFrame(rows)
    table = table.sort_values(
        [f"{obj.metric}_mean", "cca"], ascending=[not obj.higher_is_better, True], kind="stable", na_position="last"
    )
    table.insert(0, "rank", range(1, len(table) + 1))
    return table.reset_index(drop=True)


def _add_tests(ranking: pd.DataFrame, per_cca: dict[str, pd.DataFrame], best: str, obj: Objective, alpha: float):
    raw = []
    for cca in ranking["cca"]:
        if cca == best:
            raw.append(math.nan)
            continue
        pairs = per_cca[best][["seed", obj.metric]].merge(per_cca[cca][["seed", obj.metric]], on="seed")
        raw.append(paired_test(pairs[f"{obj.metric}_x"], pairs[f"{obj.metric}_y"]).p_value)
    adjusted = holm(raw)
    ranking["p_value_vs_best"] = adjusted
    # A comparison that could not be tested (NaN) is not evidence of a difference.
    pairs_p = zip(ranking["cca"], adjusted, strict=True)
    ranking["significant"] = [c != best and not math.isnan(p) and p < alpha for c, p in pairs_p]


def _fmt(value: float, unit: str) -> str:
    return f"{value:.3g} {unit}".strip()


def _endorse(ranking: pd.DataFrame, best: str, obj: Objective) -> str:
    top = ranking.iloc[0]
    worst_p = float(ranking["p_value_vs_best"].max())
    mean, half = top[f"{obj.metric}_mean"], top[f"{obj.metric}_ci95"]
    ci = "" if math.isnan(half) else f" ± {half:.2g}"
    return (
        f"Use {best}: it has the best {obj.label}, {_fmt(mean, obj.unit)}{ci} (95% CI over {int(top['n'])} seeds), "
        f"and every other CCA is significantly worse (largest Holm-adjusted p = {worst_p:.2g})."
    )


def _refusal(ranking: pd.DataFrame, best: str, tied: list[str], obj: Objective) -> str:
    p = dict(zip(ranking["cca"], ranking["p_value_vs_best"], strict=False))
    names = ", ".join(f"{c} (p = {p[c]:.2g})" if not math.isnan(p[c]) else f"{c} (not testable)" for c in tied)
    return (
        f"No recommendation: {best} has the best {obj.label}, but it cannot be told apart from {names} "
        f"by a paired t-test at this number of seeds; choose among them on other grounds or run more seeds."
    )


def _reason(runs: pd.DataFrame, ref: pd.DataFrame, cca: str, ref_name: str) -> str:
    """One sentence setting ``cca`` against ``ref_name`` on throughput and p95 RTT."""
    dt = _pct(runs["throughput_mbps"].mean(), ref["throughput_mbps"].mean())
    dd = _pct(runs["rtt_p95_ms"].mean(), ref["rtt_p95_ms"].mean())
    if math.isnan(dt) or math.isnan(dd):
        return f"{cca}: not comparable with {ref_name} (a metric is missing)."
    tput = f"{abs(dt):.0f}% {'more' if dt >= 0 else 'less'} throughput than {ref_name}"
    delay = f"{abs(dd):.0f}% {'higher' if dd >= 0 else 'lower'} p95 RTT"
    # "but" marks a trade-off: better on one metric, worse on the other.
    joiner = "and" if (dt >= 0) == (dd < 0) else "but"
    return f"{cca}: {tput} {joiner} {delay}."


def _pct(value: float, ref: float) -> float:
    return math.nan if not ref or math.isnan(ref) or math.isnan(value) else 100.0 * (value - ref) / ref
