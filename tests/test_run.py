"""Running simulations from Python and the CLI: results, the store, determinism, compare."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pandas as pd
import pytest

import cellcc
from cellcc import Result, Scenario
from cellcc.compare import compare_runs, parse_cca_list, run_metrics
from cellcc.runner import Job, run_jobs
from cellcc.store import write_atomically

#: First four bytes of a pcap file: microsecond or nanosecond magic, either byte order.
PCAP_MAGICS = {b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d"}


@pytest.fixture
def short(base_doc) -> Scenario:
    return Scenario.from_dict(base_doc)


def test_run_returns_the_engine_tables_as_dataframes(short):
    result = cellcc.run(short, seed=4)
    assert isinstance(result, Result)
    assert result.seed == 4 and result.summary["seed"] == 4
    assert list(result.flows.columns[:5]) == ["flow_id", "src", "dst", "transport", "cca"]
    assert result.flows["flow_id"].tolist() == ["bulk"]
    assert result.flows["throughput_bps"].iloc[0] > 1e6
    for name in ("timeseries", "queues", "cwnd", "rtt"):
        assert len(getattr(result, name)) > 0, name
    assert result.provenance["scenario_sha256"] == short.sha256
    assert result.provenance["engine_version"] == cellcc._core.engine_version()


def test_seed_defaults_to_the_scenario_seed(base_doc):
    base_doc["seed"] = 9
    assert cellcc.run(base_doc).seed == 9


def test_store_round_trip(base_doc, tmp_path: Path):
    base_doc["output"]["pcap"] = ["bottleneck:forward"]
    result = cellcc.run(base_doc, seed=2)
    folder = result.save(tmp_path / "run")
    assert {p.name for p in folder.iterdir()} >= {"summary.json", "scenario.json", "flows.parquet", "rtt.parquet"}
    again = Result.load(folder)
    assert again.summary == result.summary and again.provenance == result.provenance
    assert again.scenario == result.scenario
    for name, frame in result.tables().items():
        pd.testing.assert_frame_equal(again.tables()[name], frame, check_dtype=False)
    assert again.pcaps.keys() == {k.replace("/", "_") for k in result.pcaps}
    assert result.pcaps
    for data in result.pcaps.values():
        assert data[:4] in PCAP_MAGICS


def test_float_columns_arrive_as_arrays_and_both_table_forms_write_the_same_files(short):
    from cellcc.store import run_files

    result = cellcc.run(short, seed=3)
    rtt = result.columns("rtt")
    assert type(rtt["rtt_ms"]).__name__ == "array" and type(rtt["flow_id"]) is list
    assert type(result.columns("lte")["t_s"]) is list  # empty: a list, as pandas types it
    from_columns = run_files(result)
    frames = result.tables()
    assert frames["rtt"]["rtt_ms"].dtype == "float64" and frames["lte"]["t_s"].dtype == object
    assert run_files(result) == from_columns


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_same_seed_gives_byte_identical_files_and_other_seeds_differ(cli, base_doc, write_doc, tmp_path: Path):
    path = write_doc(base_doc)
    for name, seed in (("a", "5"), ("b", "5"), ("c", "6")):
        result = cli("run", path, "--seed", seed, "--out", tmp_path / name)
        assert result.exit_code == 0, result.stderr
    a, b, c = (_files(tmp_path / n) for n in "abc")
    assert a == b
    assert a["flows.parquet"] != c["flows.parquet"]
    assert a["timeseries.parquet"] != c["timeseries.parquet"]
    assert json.loads(c["summary.json"])["provenance"]["seed"] == 6


def test_failed_write_leaves_nothing_and_replacing_is_whole(tmp_path: Path):
    def boom(folder: Path) -> None:
        (folder / "half.txt").write_text("half", encoding="utf-8")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_atomically(tmp_path / "run", boom)
    assert list(tmp_path.iterdir()) == []
    write_atomically(tmp_path / "run", lambda f: (f / "old.txt").write_text("1", encoding="utf-8"))
    write_atomically(tmp_path / "run", lambda f: (f / "new.txt").write_text("2", encoding="utf-8"))
    assert [p.name for p in tmp_path.iterdir()] == ["run"]
    assert [p.name for p in (tmp_path / "run").iterdir()] == ["new.txt"]


def test_cli_run_prints_flows_and_writes(cli, base_doc, write_doc, tmp_path: Path):
    result = cli("run", write_doc(base_doc), "--out", tmp_path / "out")
    assert result.exit_code == 0, result.stderr
    assert "bulk" in result.stdout and "newreno" in result.stdout
    assert (tmp_path / "out" / "summary.json").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_pool_and_inline_give_the_same_results_in_job_order(short):
    jobs = [Job(short.with_cca(cca), seed) for cca in ("reno", "newreno") for seed in (1, 2)]
    inline = run_jobs(jobs, reduce=run_metrics, workers=1, progress=False)
    pooled = run_jobs(jobs, reduce=run_metrics, workers=2, progress=False)
    assert inline == pooled
    assert inline[0] != inline[1]


def test_compare_cli_ranks_and_writes_a_table(cli, base_doc, write_doc, tmp_path: Path):
    out = tmp_path / "table.csv"
    result = cli(
        "compare", write_doc(base_doc), "--cca", "reno,newreno", "--seeds", "2", "--workers", "1", "--out", out
    )
    assert result.exit_code == 0, result.stderr
    assert "reno" in result.stdout and "newreno" in result.stdout and "95% CI" in result.stdout
    table = pd.read_csv(out)
    assert sorted(table["cca"]) == ["newreno", "reno"]
    assert table["rank"].tolist() == [1, 2]
    assert (table["runs"] == 2).all()
    assert table["throughput_mbps_mean"].is_monotonic_decreasing
    assert table["throughput_mbps_ci95"].notna().all()


def test_compare_runs_one_row_per_cca_and_seed(base_doc):
    runs = compare_runs(base_doc, ["newreno"], seeds=3, workers=1)
    assert runs[["cca", "seed"]].values.tolist() == [["newreno", 1], ["newreno", 2], ["newreno", 3]]
    assert (runs["throughput_mbps"] > 1).all()


def test_compare_defaults_to_every_registered_cca():
    assert parse_cca_list(None) == [c["name"] for c in cellcc.ccas()]


def test_compare_with_no_scenario_ranks_every_cca_on_the_defaults(cli):
    """What `make run` runs (one seed instead of five): the wired, trace and LTE defaults."""
    result = cli("compare", "--seeds", "1")
    assert result.exit_code == 0, result.stderr
    for name in ["bottleneck:", "variable:", "lte:", *parse_cca_list(None)]:
        assert name in result.stdout


@pytest.mark.slow
def test_make_run_equivalent(cli):
    result = cli("compare")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("over 5 seed(s)") == 2


def test_the_engine_releases_the_gil_while_it_runs(base_doc):
    import threading
    import time

    base_doc["duration_s"] = 120.0
    scenario = Scenario.from_dict(base_doc)
    done = threading.Event()
    worker = threading.Thread(target=lambda: (cellcc.run(scenario), done.set()))
    start = time.perf_counter()
    worker.start()
    ticks = [start]
    while not done.is_set():
        ticks.append(time.perf_counter())
    worker.join()
    elapsed = time.perf_counter() - start
    longest_stall = max(b - a for a, b in itertools.pairwise(ticks)) if len(ticks) > 1 else elapsed
    # Holding the GIL would stall this loop for the whole run; released, it only waits for thread switches.
    assert longest_stall < 0.5 * elapsed, (longest_stall, elapsed)


def test_a_run_rerun_from_its_written_scenario_json_is_byte_identical(cli, base_doc, write_doc, tmp_path: Path):
    first = tmp_path / "first"
    assert cli("run", write_doc(base_doc), "--seed", "3", "--out", first).exit_code == 0
    written = json.loads((first / "scenario.json").read_text(encoding="utf-8"))
    assert written["resolved"]["flows"][0]["tcp"]["mss_bytes"] == 1448
    again = tmp_path / "again"
    result = cli("run", first / "scenario.json", "--seed", "3", "--out", again)
    assert result.exit_code == 0, result.stderr
    # Every file: the tables, the summary with its provenance (same scenario hash), scenario.json.
    assert _files(first) == _files(again)
    assert Result.load(first).scenario == Scenario.from_dict(base_doc)
