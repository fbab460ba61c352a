"""`recommend` on a scenario whose answer is known by construction."""

from __future__ import annotations

from cellcc.compare import compare_runs
from cellcc.recommend import recommend

from .conftest import EXAMPLES

#: Loss-based CCAs of the comparison (Linux's families: they back off only on loss).
LOSS_BASED = {"cubic", "newreno"}


def test_delay_objective_on_a_deep_buffer_does_not_pick_a_loss_based_cca():
    # examples/deep_buffer.toml: an 8-BDP drop-tail buffer. Loss-based CCAs fill it (p95 RTT up to
    # 40 ms + 8 x 40 ms); BBR and Vegas keep the queue short, so the delay objective must pick one of them.
    runs = compare_runs(EXAMPLES / "deep_buffer.toml", "cubic,newreno,bbr,vegas", seeds=5, workers=1)
    rec = recommend(runs, "delay")
    assert rec.ranking.iloc[0]["cca"] not in LOSS_BASED
    assert rec.best is not None and rec.best not in LOSS_BASED
    loss_rows = rec.ranking[rec.ranking["cca"].isin(LOSS_BASED)]
    assert loss_rows["significant"].all()
