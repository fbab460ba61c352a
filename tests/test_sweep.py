"""Sweeps: field paths, expansion (product and zip), run keys, the store (resume,
leftovers, determinism), the DuckDB views and the CLI end to end on a tiny wired sweep."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cellcc
from cellcc.catalogue import Store
from cellcc.errors import UserError
from cellcc.fieldpath import parse_path, set_path
from cellcc.runner import longest_first, run_sweep
from cellcc.sweep import Sweep

from .conftest import EXAMPLES

#: Simulated seconds of the tiny sweeps (keeps this file to a few seconds).
TINY_DURATION_S = 0.5


def tiny_sweep(**extra) -> dict:
    doc = {
        "name": "tiny",
        "base": "bottleneck",
        "seeds": 2,
        "set": {"duration_s": TINY_DURATION_S},
        "axes": [
            {"path": "flows[*].cca", "values": ["cubic", "bbr"]},
            {"path": "links[bottleneck].delay_ms", "values": [5, 20]},
        ],
    }
    doc.update(extra)
    return doc


def test_set_path_by_index_star_and_id():
    doc = {"flows": [{"cca": "a"}, {"cca": "b"}], "links": [{"id": "x", "forward": {"queue": None}}]}
    set_path(doc, "flows[*].cca", "bbr")
    set_path(doc, "flows[1].cca", "vegas")
    set_path(doc, "links[x].forward.queue.limit_bytes", 5)
    assert [f["cca"] for f in doc["flows"]] == ["bbr", "vegas"]
    assert doc["links"][0]["forward"]["queue"] == {"limit_bytes": 5}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("flows[3].cca", "flows has 1 element(s)"),
        ("links[nope].delay_ms", "an element id of links (x)"),
        ("name[0]", "name is not a list"),
        ("flows..cca", "a field path such as"),
    ],
)
def test_bad_paths_are_named(path, expected):
    doc = {"name": "n", "flows": [{"cca": "a"}], "links": [{"id": "x"}]}
    with pytest.raises(UserError) as e:
        set_path(doc, path, 1, where="axes[0].path")
    assert str(e.value).startswith(f'axes[0].path: got "{path}"') and expected in str(e.value)


def test_parse_path_leaf_keeps_the_unit():
    assert parse_path("links[bottleneck].forward.queue.limit_bytes").leaf == "limit_bytes"


def test_expansion_crosses_axes_and_zips_groups():
    crossed = Sweep.from_dict(tiny_sweep())
    assert crossed.columns == ["cca", "bottleneck_delay_ms"]
    assert len(crossed.points()) == 4 and len(crossed.expand()) == 8
    zipped = Sweep.from_dict(
        tiny_sweep(
            axes=[
                {"path": "flows[*].cca", "values": ["cubic", "bbr", "reno"]},
                {"path": "links[bottleneck].delay_ms", "values": [5, 20], "zip": "p"},
                {"path": "links[bottleneck].forward.queue.limit_bytes", "values": [10_000, 40_000], "zip": "p"},
            ]
        )
    )
    points = zipped.points()
    assert len(points) == 3 * 2
    assert {(p["bottleneck_delay_ms"], p["bottleneck_limit_bytes"]) for p in points} == {(5, 10_000), (20, 40_000)}
    run = zipped.expand()[0]
    assert run.scenario.to_dict()["links"][1]["forward"]["queue"]["limit_bytes"] == 10_000


def test_keys_are_stable_and_follow_content_not_names():
    a = Sweep.from_dict(tiny_sweep()).expand()
    b = Sweep.from_dict(tiny_sweep(name="other")).expand()
    assert [r.key for r in a] == [r.key for r in b]
    assert len({r.key for r in a}) == len(a)
    renamed = tiny_sweep()
    renamed["axes"][0]["name"] = "algorithm"
    assert [r.key for r in Sweep.from_dict(renamed).expand()] == [r.key for r in a]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"seeds": 0}, "seeds: got 0"),
        ({"base": "nope"}, 'scenario: got "nope"'),
        ({"axes": [{"path": "flows[*].cca", "values": []}]}, "axes[0].values: got []"),
        ({"axes": [{"path": "flows[*].cca", "values": ["bbr9"]}]}, 'flows[0].cca: got "bbr9"'),
        ({"axes": [{"path": "links[x].delay_ms", "values": [1]}]}, "an element id of links (access, bottleneck)"),
        ({"colour": 1}, "colour: got 1; allowed: a known key"),
        (
            {"axes": [{"path": "flows[*].cca", "values": ["bbr", "bbr"]}]},
            'axes: got cca="bbr"; allowed: values that make',
        ),
        (
            {"axes": [{"path": "a", "values": [1], "zip": "z"}, {"path": "b", "values": [1, 2], "zip": "z"}]},
            "axes[1].values: got 2 values; allowed: 1 values",
        ),
    ],
)
def test_bad_sweeps_name_field_value_and_allowed(change, message):
    with pytest.raises(ValueError) as e:
        Sweep.from_dict(tiny_sweep(**change)).expand()
    assert message in str(e.value)


def test_longest_first_uses_earlier_times_then_the_points_other_seeds():
    runs = Sweep.from_dict(tiny_sweep()).expand()
    timings = {runs[0].key: 1.0, runs[2].key: 5.0}  # runs[3] shares runs[2]'s point
    order = longest_first(runs, timings, default_s=0.1)
    assert [r.key for r in order[:2]] == [runs[2].key, runs[3].key]


def test_sweep_resumes_skips_complete_runs_and_removes_leftovers(tmp_path):
    sweep = Sweep.from_dict(tiny_sweep(seeds=1))
    first = run_sweep(sweep, tmp_path / "out", workers=1, progress=False)
    assert (first.total, first.ran, first.skipped) == (4, 4, 0)
    again = run_sweep(sweep, tmp_path / "out", workers=1, progress=False)
    assert (again.ran, again.skipped) == (0, 4)
    store = Store.open(tmp_path / "out")
    victim = sweep.expand()[1].key
    for f in store.run_dir(victim).iterdir():
        f.unlink()
    store.run_dir(victim).rmdir()
    leftover = store.run_dir(victim).parent / f".key={victim}.tmp-x"
    leftover.mkdir()
    (leftover / "flows.parquet").write_bytes(b"half")
    resumed = run_sweep(sweep, tmp_path / "out", workers=1, progress=False)
    assert resumed.ran == 1 and not leftover.exists()
    assert store.complete_keys() == {r.key for r in sweep.expand()}


def test_two_stores_of_one_sweep_are_byte_identical(tmp_path):
    sweep = Sweep.from_dict(tiny_sweep(seeds=1, axes=[{"path": "flows[*].cca", "values": ["cubic", "bbr"]}]))
    a = run_sweep(sweep, tmp_path / "a", workers=1, progress=False).store
    b = run_sweep(sweep, tmp_path / "b", workers=1, progress=False).store
    files_a = sorted(p.relative_to(a.root) for p in (a.root / "runs").rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b.root) for p in (b.root / "runs").rglob("*") if p.is_file())
    assert files_a == files_b and any(str(f).endswith("flows.parquet") for f in files_a)
    for rel in files_a:
        assert (a.root / rel).read_bytes() == (b.root / rel).read_bytes(), rel


def test_views_join_the_axis_columns(tmp_path):
    sweep = Sweep.from_dict(tiny_sweep(seeds=1))
    run_sweep(sweep, tmp_path / "out", workers=1, progress=False)
    store = Store.open(tmp_path / "out")
    metrics = cellcc.load(tmp_path / "out")
    assert len(metrics) == 4
    assert list(metrics.columns[:5]) == ["run_index", "key", "seed", "cca", "bottleneck_delay_ms"]
    flows = store.flows()
    assert "cca_flows" in flows.columns and (flows["cca"] == flows["cca_flows"]).all()
    per = store.query("SELECT cca, count(*) AS n FROM metrics GROUP BY cca ORDER BY cca")
    assert per.to_dict("list") == {"cca": ["bbr", "cubic"], "n": [2, 2]}
    # One thread: a parallel avg's partial sums combine in finishing order, not the same bits twice.
    assert store.query("SELECT current_setting('threads') AS t")["t"].tolist() == [1]
    assert set(store.pm()["cca"]) == {"bbr", "cubic"}
    with pytest.raises(UserError, match="SQL: got"):
        store.query("SELECT nope FROM metrics")
    exported = store.export(tmp_path / "all.duckdb")
    con = duckdb.connect(str(exported), read_only=True)
    assert con.execute("SELECT count(*) FROM metrics").fetchone() == (4,)
    con.close()


def test_cli_end_to_end_on_a_tiny_wired_sweep(cli, tmp_path):
    sweep_file = tmp_path / "tiny.json"
    sweep_file.write_text(json.dumps(tiny_sweep()), encoding="utf-8")
    out = tmp_path / "out"
    done = cli("sweep", "run", sweep_file, "--out", out, "--jobs", "1")
    assert done.exit_code == 0, done.output
    assert "8 runs: 8 ran, 0 already" in done.stdout
    queried = cli("query", out, "SELECT count(*) AS n FROM metrics", "--csv")
    assert queried.exit_code == 0 and queried.stdout.splitlines() == ["n", "8"]
    report = cli("report", out, "--out", tmp_path / "r.html", "--objective", "pm")
    assert report.exit_code == 0, report.output
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert page.count("<img") >= 8 and "Recommendation" in page and "Criterion: ranked by mean Pm" in page


def test_report_of_a_sweep_without_a_cca_axis(tmp_path):
    from cellcc.report import write_report

    doc = tiny_sweep(axes=[{"path": "links[bottleneck].delay_ms", "values": [5]}])
    store = run_sweep(Sweep.from_dict(doc), tmp_path / "out", workers=1, progress=False).store
    text = write_report(store, tmp_path / "r.md").read_text(encoding="utf-8")
    assert "## bottleneck_delay_ms = 5" in text and "| (base) | 2 |" in text
    assert "No recommendation: the sweep has no CCA axis" in text
    assert len(list((tmp_path / "r_figures").glob("*.png"))) == 7


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (("sweep", "run", "missing.toml", "--out", "x"), 'error: sweep: got "missing.toml"'),
        (("query", "nowhere", "SELECT 1"), 'error: DIR: got "nowhere"; allowed: a sweep results folder'),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(cli, tmp_path, args, line):
    os.chdir(tmp_path)
    done = cli(*args)
    assert done.exit_code == 2
    assert done.stderr.strip().startswith(line) and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_killed_sweep_resumes_with_no_run_lost_or_duplicated(tmp_path):
    doc = tiny_sweep(seeds=4, set={"duration_s": 2.0})
    sweep_file = tmp_path / "s.json"
    sweep_file.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "cellcc.cli.main", "sweep", "run", str(sweep_file), "--out", str(out), "-j", "1"]
    proc = subprocess.Popen([*cmd[:1], "-c", "from cellcc.cli.main import main; main()", *cmd[3:]])
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list((out / "runs").glob("key=*"))) < 3:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = {p.name for p in (out / "runs").glob("key=*")}
    expected = {r.key for r in Sweep.from_dict(doc).expand()}
    assert 0 < len(before) < len(expected)
    outcome = run_sweep(Sweep.load(sweep_file), out, workers=1, progress=False)
    assert outcome.ran == len(expected) - len(before)
    assert outcome.store.complete_keys() == expected
    assert not [p for p in (out / "runs").iterdir() if p.name.startswith(".")]


@pytest.mark.slow
def test_dask_local_cluster_fills_the_same_store(tmp_path):
    sweep = Sweep.from_dict(tiny_sweep(seeds=1))
    local = run_sweep(sweep, tmp_path / "local", workers=1, progress=False).store
    dask = run_sweep(sweep, tmp_path / "dask", workers=2, scheduler="local", progress=False).store
    assert dask.complete_keys() == local.complete_keys()
    for key in local.complete_keys():
        assert (local.run_dir(key) / "flows.parquet").read_bytes() == (dask.run_dir(key) / "flows.parquet").read_bytes()


SWEEP_EXAMPLES = sorted(EXAMPLES.glob("sweep_*.toml"))


@pytest.mark.parametrize("path", SWEEP_EXAMPLES, ids=[p.stem for p in SWEEP_EXAMPLES])
def test_example_sweeps_expand(path):
    runs = Sweep.load(path).expand()
    assert runs and len({r.key for r in runs}) == len(runs)


@pytest.mark.slow
@pytest.mark.parametrize("path", SWEEP_EXAMPLES, ids=[p.stem for p in SWEEP_EXAMPLES])
def test_example_sweeps_run_and_report(path, tmp_path):
    outcome = run_sweep(Sweep.load(path), tmp_path / "out", workers=1, progress=False)
    assert outcome.ran == outcome.total
    from cellcc.report import write_report

    assert write_report(outcome.store, tmp_path / "r.md").is_file()


_AXIS_CHOICES = {
    "flows[*].cca": st.sampled_from(["cubic", "bbr", "reno", "vegas"]),
    "links[bottleneck].delay_ms": st.integers(1, 100),
    "links[bottleneck].forward.queue.limit_bytes": st.integers(10_000, 500_000),
    "links[access].rate_mbps": st.integers(100, 1000),
}


@st.composite
def sweep_docs(draw):
    paths = draw(st.lists(st.sampled_from(sorted(_AXIS_CHOICES)), min_size=1, max_size=4, unique=True))
    zip_len = draw(st.integers(1, 3))
    axes = []
    for path in paths:
        zipped = draw(st.booleans())
        n = zip_len if zipped else draw(st.integers(1, 3))
        values = draw(st.lists(_AXIS_CHOICES[path], min_size=n, max_size=n, unique=True))
        axes.append({"path": path, "values": values, **({"zip": "z"} if zipped else {})})
    return tiny_sweep(axes=axes, seeds=draw(st.integers(1, 3)))


@settings(max_examples=25, deadline=None)
@given(sweep_docs())
def test_expansion_size_is_the_product_of_groups_times_seeds(doc):
    sweep = Sweep.from_dict(doc)
    zipped = [a for a in doc["axes"] if "zip" in a]
    size = len(zipped[0]["values"]) if zipped else 1
    for axis in doc["axes"]:
        if "zip" not in axis:
            size *= len(axis["values"])
    points = sweep.points()
    assert len(points) == size
    runs = sweep.expand()
    assert len(runs) == size * doc["seeds"]
    assert len({r.key for r in runs}) == len(runs)


def test_an_axis_can_switch_a_tagged_field_of_the_base():
    # The axes apply to the base as written: switching RLC AM -> UM does not carry AM's
    # filled-in timers (unknown to UM) over from the canonical form.
    sweep = Sweep.from_dict(
        {
            "base": str(EXAMPLES / "lte_single_ue.toml"),
            "set": {"duration_s": 1},
            "axes": [{"path": "cells[0].ues[0].rlc.mode", "values": ["am", "um", "tm"]}],
        }
    )
    modes = [r.scenario.to_dict()["cells"][0]["ues"][0]["rlc"]["mode"] for r in sweep.expand()]
    assert modes == ["am", "um", "tm"]


def test_query_prints_sql_null_as_null_and_nan_as_nan(cli, tmp_path):
    store = run_sweep(Sweep.from_dict(tiny_sweep(seeds=1)), tmp_path / "out", workers=1, progress=False).store
    described = cli("query", store.root, "DESCRIBE metrics")
    assert described.exit_code == 0, described.output
    assert "NULL" in described.stdout and "nan" not in described.stdout
    mixed = cli("query", store.root, "SELECT NULL::VARCHAR AS s, NULL::DOUBLE AS d, 'nan'::DOUBLE AS x")
    row = [line for line in mixed.stdout.splitlines() if line.startswith("│")]
    assert row and row[0].count("NULL") == 2 and "nan" in row[0], mixed.stdout
