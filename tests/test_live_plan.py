"""Live plans (issue 33): parsing with errors that name the field, the byte estimate (the seed's
full plan moves about 189 GB), refusals before any traffic (byte caps, the period's window, a CCA
the sending host lacks), and a plan killed mid-way resuming with no run lost or repeated. Runs
go to a real `cellcc live serve` on loopback."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from datetime import datetime
from pathlib import Path

import pytest

from cellcc.catalogue import Store
from cellcc.errors import UserError
from cellcc.live import plan as plan_mod
from cellcc.live import run as run_mod

from .live_helpers import CELLCC, REPO, ServerProcess, plan_toml, server_toml, write_keys

#: No server listens here: a refusal "before any traffic" must come before any connection.
NOWHERE = "127.0.0.1:9"
STUDY_PLAN = REPO / "docs" / "studies" / "li-jie-4g" / "plan.toml"


def test_the_seeds_full_plan_moves_about_189_gb() -> None:
    p = plan_mod.load(STUDY_PLAN)
    runs = p.runs()
    assert len(runs) == 5 * 2 * 3 * 4 * 10  # CCAs x directions x places x periods x repetitions: the seed's 1200
    transfers = sum(p.transfer_bytes(r.direction) for r in runs)
    assert transfers == pytest.approx(600 * (293e6 + 21.46e6))  # 188.7 GB
    assert round(transfers / 1e9) == 189
    # The saturator's recordings before and after each run come on top, and the estimate says so.
    assert sum(p.run_bytes(r) for r in runs) > transfers


def test_runs_carry_the_plans_place_and_period_tags() -> None:
    p = plan_mod.load(STUDY_PLAN)
    r = next(x for x in p.runs() if x.place == "ahventie")
    assert p.tags_of(r) == {"operator": "Sonera", "modem": "Huawei E392", "seed": "002", "profile": "cell edge"}


def test_each_round_runs_the_ccas_in_its_own_order_and_keys_are_stable(tmp_path: Path) -> None:
    p = plan_mod.load(STUDY_PLAN)
    runs = [r for r in p.runs() if r.place == p.places[0] and r.period == p.periods[0].name]
    orders = {tuple(dict.fromkeys(r.cca for r in runs if r.round == k)) for k in range(1, 11)}
    assert len(orders) > 1 and all(sorted(o) == sorted(p.ccas) for o in orders)
    assert [r.key for r in plan_mod.load(STUDY_PLAN).runs()] == [r.key for r in p.runs()]
    assert len({r.key for r in p.runs()}) == len(p.runs())


@pytest.mark.parametrize(
    ("over", "field"),
    [
        ({"ccas": "[]"}, "ccas"),
        ({"repetitions": "0"}, "repetitions"),
        ({"transfer": "{ down = { bytes = -1 } }"}, "bytes"),
        ({"transfer": "{ down = { size = 1 } }"}, "transfer.down"),
        ({"directions": '["sideways"]'}, "directions"),
        ({"colour": '"red"'}, "colour"),
        ({"expected_mbps": "{ down = 5 }"}, "up"),
    ],
)
def test_bad_plans_name_the_field(tmp_path: Path, over: dict, field: str) -> None:
    path = plan_toml(tmp_path, NOWHERE, write_keys(tmp_path), **over)
    with pytest.raises(UserError) as e:
        plan_mod.load(path)
    assert e.value.path.startswith(field) or field in str(e.value), str(e.value)


def test_a_bad_window_and_the_cli_exit_2_with_one_line(tmp_path: Path) -> None:
    path = plan_toml(tmp_path, NOWHERE, write_keys(tmp_path))
    path.write_text(path.read_text().replace('window = "00:00-24:00"', 'window = "25:00-7"'))
    r = subprocess.run(
        [*CELLCC, "live", "run", str(path), "--out", str(tmp_path / "s")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0
    assert "periods[0].window" in r.stderr and not (tmp_path / "s").exists()


def test_over_its_byte_caps_a_plan_is_refused_before_any_traffic(tmp_path: Path) -> None:
    keys = write_keys(tmp_path)
    small_run = plan_mod.load(plan_toml(tmp_path, NOWHERE, keys, max_run_bytes="1e6"))
    with pytest.raises(UserError, match="max_run_bytes"):
        run_mod.run_plan(small_run, tmp_path / "a")
    small_day = plan_mod.load(plan_toml(tmp_path, NOWHERE, keys, max_day_bytes="1e7"))
    with pytest.raises(UserError, match="max_day_bytes") as e:
        run_mod.run_plan(small_day, tmp_path / "b")
    assert "--max-runs" in str(e.value)
    for store in ("a", "b"):
        assert not list((tmp_path / store / "runs").glob("key=*"))


def test_outside_the_periods_window_a_plan_is_refused_unless_told(tmp_path: Path) -> None:
    path = plan_toml(tmp_path, NOWHERE, write_keys(tmp_path))
    path.write_text(path.read_text().replace('window = "00:00-24:00"', 'window = "06:00-07:30"'))
    p = plan_mod.load(path)
    store = Store.create(tmp_path / "s")
    noon = datetime(2026, 3, 13, 12, 0)
    with pytest.raises(UserError, match="12:00"):
        run_mod.select(p, store, None, None, False, noon)
    with pytest.raises(UserError, match="--outside-window"):
        run_mod.select(p, store, None, "any", False, noon)
    _, period, todo = run_mod.select(p, store, None, "any", True, noon)
    assert period == "any" and len(todo) == 2
    assert run_mod.select(p, store, None, None, False, datetime(2026, 3, 13, 6, 30))[1] == "any"


def test_a_cca_the_sending_host_lacks_is_named_with_the_host(tmp_path: Path) -> None:
    p = plan_mod.load(plan_toml(tmp_path, NOWHERE, write_keys(tmp_path), ccas='["westwood"]', directions='["up"]'))
    with pytest.raises(UserError, match=r"this host \(the client\)"):
        run_mod.check_ccas(p, p.runs(), ["westwood"])
    p = plan_mod.load(plan_toml(tmp_path, NOWHERE, write_keys(tmp_path, "k2"), ccas='["vegas"]'))
    with pytest.raises(UserError, match="the server offers"):
        run_mod.check_ccas(p, p.runs(), ["reno", "cubic", "bbr"])


def test_a_plan_killed_mid_way_resumes_with_no_run_lost_or_repeated(tmp_path: Path) -> None:
    keys = write_keys(tmp_path)
    (tmp_path / "srv").mkdir()
    with ServerProcess(server_toml(tmp_path / "srv", keys)) as server:
        path = plan_toml(tmp_path, f"127.0.0.1:{server.port}", keys, ccas='["cubic", "reno", "bbr"]')
        store = tmp_path / "store"
        argv = [*CELLCC, "live", "run", str(path), "--out", str(store)]
        first = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not list((store / "runs").glob("key=*")):
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        done_before = {p.name: (p / "live.json").read_bytes() for p in (store / "runs").glob("key=*")}
        assert 1 <= len(done_before) < 3
        r = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
        assert r.returncode == 0, r.stderr
        assert f"{3 - len(done_before)} runs now, {len(done_before)} already" in r.stdout.replace("\n", " ")
    runs = {p.name: p for p in (store / "runs").glob("key=*")}
    planned = {f"key={x.key}" for x in plan_mod.load(path).runs()}
    assert set(runs) == planned
    for name, live in done_before.items():  # not run again
        assert (runs[name] / "live.json").read_bytes() == live
    assert not list((store / "runs").glob(".*"))  # no half-written folder left
    metrics = Store.open(store).query("SELECT cca, direction, goodput_mbps FROM metrics ORDER BY cca")
    assert sorted(metrics["cca"]) == ["bbr", "cubic", "reno"] and (metrics["goodput_mbps"] > 0).all()
    summaries = [json.loads((p / "summary.json").read_text())["summary"] for p in runs.values()]
    assert {s["cca"]["sender"] for s in summaries} == {"bbr", "cubic", "reno"}
