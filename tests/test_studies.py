"""Each built-in study runs end to end through `cellcc study NAME --quick` and writes its report
with every table and figure it promises; bad input exits 2 with one line and writes nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cellcc.studies import STUDIES

#: Figures each quick-mode report must contain (a lower bound: the count follows the grid).
MIN_FIGURES = {"malekzadeh": 10, "nor-maulana": 2, "atxutegi": 8, "li-celledge": 5, "li-jie-4g": 4}
#: Headings each report must contain: the re-made tables, the parameter table and the findings.
HEADINGS = {
    "malekzadeh": [
        "Figures 2-7, 10-12, 15-16 re-made",
        "Figures 8-9, 13-14, 17-18 re-made",
        "Every bar as a number",
        "The second grid",
        "Where the paper contradicts itself",
        "Parameters the paper leaves unstated",
        "findings beside ours",
    ],
    "nor-maulana": [
        "Table 2",
        "Figures 4 and 5 re-made",
        "Parameters the paper leaves unstated",
        "findings beside ours",
    ],
    "atxutegi": [
        "Tables 1 and 2 re-made",
        "Table 1: 4G latency",
        "Table 2: low latency",
        "spider plots",
        "ECDF of Pm",
        "Table 3 re-made",
        "What the fading changes",
        "The low latency on a real 5G cell",
        "What a 5G cell changes for each CCA",
        "findings beside ours",
    ],
    "li-jie-4g": [
        "Table 6 re-made",
        "Table 7 re-made",
        "Table 8 re-made",
        "Table 9 re-made",
        "over real LTE traces",
        "Live: the seed's plan",
        "Parameters the paper leaves unstated",
        "findings beside ours",
    ],
    "li-celledge": [
        "Figure 4 re-made",
        "Figure 7 re-made",
        "Radio conditions per distance",
        "Parameters the paper leaves unstated",
        "findings beside ours",
    ],
}


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_quick_study_writes_every_table_and_figure(quick_study, name: str) -> None:
    result, out = quick_study(name)
    assert result.exit_code == 0, result.output
    md = (out / "report.md").read_text(encoding="utf-8")
    html = (out / "report.html").read_text(encoding="utf-8")
    for heading in HEADINGS[name]:
        assert heading in md, heading
    figures = re.findall(r"\]\((report_figures/fig\d+\.png)\)", md)
    assert len(figures) >= MIN_FIGURES[name]
    for fig in figures:
        assert (out / fig).read_bytes().startswith(b"\x89PNG")
    assert html.count("data:image/png;base64,") == len(figures)
    # Every finding carries a verdict on the paper's platform and one on the other, one row per finding.
    rows = _findings_rows(md)
    stated = int(re.search(r"(\d+) findings:", md).group(1))
    assert stated == len(rows) > 0
    assert all(own in VERDICTS and other in VERDICTS for own, other in rows.values())
    assert "Regenerate with `cellcc study" in md
    _check_profile_changes(md, rows)
    _check_platforms_ran(out)


VERDICTS = ("agrees", "differs", "blocked")


def _section(md: str, heading: str) -> str:
    """The text under ``heading`` (a `## ` heading) up to the next `## `."""
    start = md.index(f"## {heading}")
    end = md.find("\n## ", start + 1)
    return md[start : end if end >= 0 else len(md)]


def _findings_rows(md: str) -> dict[int, tuple[str, str]]:
    """Per finding number: its verdict on the paper's platform and on the other (the table's last two columns)."""
    table = _section(md, "The paper's findings beside ours").split("### Why")[0]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0].isdigit():
            rows[int(cells[0])] = (cells[-2], cells[-1])
    return rows


def _check_profile_changes(md: str, rows: dict[int, tuple[str, str]]) -> None:
    """'What the profile changes' lists exactly the findings whose two verdicts differ, with both results."""
    section = _section(md, "What the profile changes")
    moved = sorted(n for n, (own, other) in rows.items() if own != other)
    listed = sorted(int(m) for m in re.findall(r"^\| (\d+) \|", section, flags=re.MULTILINE))
    assert listed == moved
    if moved:
        assert f"{len(moved)} of {len(rows)} findings change verdict" in section
    else:
        assert "No finding's verdict moves" in section


def _check_platforms_ran(out: Path) -> None:
    """Every sweep ran on both platforms, each run with that platform's cell and TCP profiles."""
    from cellcc.catalogue import Store
    from cellcc.studies.common import PLATFORMS

    for platform in PLATFORMS:
        sweeps = sorted((out / "store" / platform.name).iterdir())
        assert sweeps
        for folder in sweeps:
            doc = json.loads(next((folder / "runs").rglob("scenario.json")).read_text(encoding="utf-8"))
            # Every LTE cell on the platform's profile (an NR or trace sweep has none); a kernel sweep's
            # TCP is the kernel's, the default platform's.
            if doc.get("cells"):
                assert {c["profile"] for c in doc["cells"]} == {platform.cell_profile}
            if doc.get("bsses"):
                assert {b["profile"] for b in doc["bsses"]} == {platform.wifi_profile}
            assert (doc.get("tcp", {}).get("profile") or "linux") == platform.tcp_profile
            assert len(Store(folder).query("SELECT key FROM runs")) > 0


def test_profile_changes_lists_the_findings_whose_verdict_moves() -> None:
    from cellcc.studies.common import Finding, Verdict, profile_changes

    def f(claim: str, verdict: Verdict) -> Finding:
        return Finding(claim, "paper", f"ours for {claim}", verdict)

    own = [f("a", Verdict.AGREES), f("b", Verdict.DIFFERS), f("c", Verdict.AGREES), f("d", Verdict.BLOCKED)]
    theirs = [f("a", Verdict.AGREES), f("b", Verdict.AGREES), f("c", Verdict.DIFFERS), f("d", Verdict.BLOCKED)]
    moved = profile_changes(own, theirs)
    assert [(n, o.claim, t.verdict) for n, o, t in moved] == [(2, "b", Verdict.AGREES), (3, "c", Verdict.DIFFERS)]
    assert profile_changes(own, own) == []


def test_study_resumes_without_rerunning(cli, tmp_path: Path) -> None:
    out = tmp_path / "nm"
    assert cli("study", "nor-maulana", "--quick", "--out", out, "--jobs", "1").exit_code == 0
    again = cli("study", "nor-maulana", "--quick", "--out", out, "--jobs", "1")
    assert again.exit_code == 0
    assert "(0 ran now)" in again.stdout


def test_unknown_study_exits_2_with_one_line(cli, tmp_path: Path) -> None:
    result = cli("study", "no-such-paper", "--quick", "--out", tmp_path / "x")
    assert result.exit_code == 2
    assert "nor-maulana" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_spider_axis_with_a_zero_best_scores_the_zero_groups_one() -> None:
    # seed 003's retransmission axis: a CCA with no retransmissions is the best (1), not 0; values by hand.
    from cellcc.plots import _spider_score

    assert _spider_score(0.0, 0.0, higher=False) == 1.0
    assert _spider_score(0.5, 0.0, higher=False) == 0.0
    assert _spider_score(2.0, 1.0, higher=False) == 0.5
    assert _spider_score(5.0, 10.0, higher=True) == 0.5


def test_li_celledge_scenarios_do_not_share_the_channel_constant() -> None:
    # Editing one scenario's channel (a script setting the shadowing sigma) must not edit the next.
    from cellcc.studies import li_celledge

    li_celledge._base(1.0, "um", "udp")["cells"][0]["channel"]["shadowing"]["sigma_db"] = 0.0
    assert li_celledge._base(1.0, "um", "udp")["cells"][0]["channel"]["shadowing"]["sigma_db"] == 1.0
    assert li_celledge.CHANNEL["shadowing"]["sigma_db"] == li_celledge.SHADOWING_SIGMA_DB


def test_li_celledge_am_below_um_needs_a_gap_the_seeds_show() -> None:
    import pandas as pd

    from cellcc.studies import li_celledge
    from cellcc.studies.common import Verdict

    def runs(am_minus_um: list[float]) -> pd.DataFrame:
        rows = []
        for seed, gap in enumerate(am_minus_um, start=1):
            for mode, rate in (("um", 6.8), ("am", 6.8 + gap)):
                rows.append(
                    {"seed": seed, "distance_m": 40.0, "transport": "tcp", "rlc_mode": mode, "throughput_mbps": rate}
                )
        return pd.DataFrame(rows)

    # Means 0.002 Mbit/s apart with the sign changing from seed to seed: no gap to speak of.
    _, noise, _ = li_celledge._centre_am_below(runs([-0.05, 0.04, -0.03, 0.05, -0.02, 0.03, -0.04]))
    assert noise is Verdict.DIFFERS
    # Below on every seed: the paper's "slightly below" holds.
    _, gap, _ = li_celledge._centre_am_below(runs([-0.05, -0.04, -0.06, -0.05, -0.04, -0.05, -0.06]))
    assert gap is Verdict.AGREES


def test_atxutegi_goodput_table_does_not_depend_on_the_runs_order() -> None:
    # The store may return runs in any order (parallel workers): the table lists CCAs in the study's order.
    import pandas as pd

    from cellcc.studies import atxutegi

    rows = [
        {
            "latency": "4G",
            "speed": "60 km/h",
            "movement": "forward",
            "cca": cca,
            "seed": seed,
            "goodput_mbps": 1.0 + i + seed,
            "slot_spread_mbps": 0.1,
            "capacity_mbps": 30.0,
        }
        for i, cca in enumerate(atxutegi.CCAS)
        for seed in (1, 2)
    ]
    runs = pd.DataFrame(rows)
    tables = [
        next(b.table for b in atxutegi._goodput_tables(frame) if b.table is not None)
        for frame in (runs, runs.iloc[::-1].reset_index(drop=True))
    ]
    pd.testing.assert_frame_equal(tables[0], tables[1])
    assert list(tables[0]["CCA"]) == [atxutegi.LABEL[c] for c in atxutegi.CCAS]


def test_platform_sets_the_bss_profile_only_where_there_is_a_bss() -> None:
    # A study without a BSS gets the same settings as before the Wi-Fi profile joined the platforms.
    from cellcc.studies import malekzadeh
    from cellcc.studies.common import DEFAULT, LENA, SweepDef

    by_name = {d.name: d for d in malekzadeh.sweeps(2, True, LENA)}
    wifi, lte = by_name["wifi"], by_name["lte"]
    assert LENA.settings(wifi) == {"bsses[*].profile": "ns3", "tcp.profile": "ns3"}
    assert DEFAULT.settings(wifi) == {"bsses[*].profile": "standard", "tcp.profile": "linux"}
    assert LENA.settings(lte) == {"cells[*].profile": "lena", "tcp.profile": "ns3"}
    wired = SweepDef("w", {"links": []}, [], 2)
    assert DEFAULT.settings(wired) == {"tcp.profile": "linux"}
    assert LENA.apply({"bsses": [{}], "cells": [{}]}) == {
        "bsses": [{"profile": "ns3"}],
        "cells": [{"profile": "lena"}],
        "tcp": {"profile": "ns3"},
    }


def test_walking_stations_whose_block_ack_window_wraps_run_to_the_end() -> None:
    # Seed 000's second grid once stopped here with "internal engine error: planned MPDU": a PSDU took a new
    # sequence number 64 past WinStartO while resending the MPDU in that slot (wifi/mac/block_ack.rs, `room`).
    import cellcc
    from cellcc.studies import malekzadeh
    from cellcc.studies.common import LENA

    walk = next(d for d in malekzadeh.sweeps(2, False, LENA) if d.name == "why-wifi-walk")
    doc = LENA.apply(json.loads(json.dumps(walk.base)))
    result = cellcc.run(doc, seed=1)
    assert len(result.flows) == malekzadeh.N_USERS
    assert result.flows["lost_packets"].sum() > 0, "the walk takes stations out of VhtMcs7's range: frames are lost"


def test_nor_maulana_conclusion_counts_only_a_loss_the_seeds_show() -> None:
    # Vegas' lower delay and throughput as in the paper; its loss one packet above NewReno's zero
    # in ten seeds (p = 0.34) is no loss difference, while a loss the paired test confirms is.
    from cellcc.studies.common import Difference, Verdict
    from cellcc.studies.nor_maulana import _conclusion_finding

    thr = Difference(9691.0, 4409.0, 1e-13, 10)
    delay = Difference(0.742, 0.0507, 1e-12, 10)
    noise = Difference(0.0, 0.000811, 0.34, 10)
    shown = Difference(0.0, 0.5, 1e-4, 10)
    assert _conclusion_finding(thr, delay, noise, 15.0).verdict == Verdict.AGREES
    assert "no significantly more loss" in _conclusion_finding(thr, delay, noise, 15.0).ours
    assert _conclusion_finding(thr, delay, shown, 15.0).verdict == Verdict.DIFFERS
