"""Sweeps that share a store (issue 36): two `cellcc sweep run` processes on one store split
the runs between them, a killed claimer's runs are taken over, and the store ends byte-identical
to one written by a single process."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from cellcc.claims import CLAIMS_DIR, Claims
from cellcc.runner import run_sweep
from cellcc.sweep import Sweep

from .test_sweep import tiny_sweep

#: Simulated seconds per run: long enough (~0.3 s of wall time each, ~4 s for the sweep) that two
#: processes started together are both still claiming runs when the later one is up.
RUN_DURATION_S = 10.0
#: Wall-clock limit for one sweep process, seconds.
TIMEOUT_S = 180
_CLI = [sys.executable, "-c", "from cellcc.cli.main import main; main()"]


def _sweep_file(tmp_path: Path, seeds: int) -> tuple[Path, dict]:
    doc = tiny_sweep(seeds=seeds, set={"duration_s": RUN_DURATION_S})
    path = tmp_path / "sweep.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path, doc


def _run_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "runs").rglob("*")) if p.is_file()}


def _ran(stdout: str) -> int:
    match = re.search(r"(\d+) runs: (\d+) ran", stdout)
    assert match, stdout
    return int(match.group(2))


def test_two_processes_split_one_sweep_and_write_what_one_would(tmp_path):
    sweep_file, doc = _sweep_file(tmp_path, seeds=3)
    shared = tmp_path / "shared"
    cmd = [*_CLI, "sweep", "run", str(sweep_file), "--out", str(shared), "-j", "1"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [p.communicate(timeout=TIMEOUT_S) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in outputs]
    ran = [_ran(out) for out, _ in outputs]
    total = len(Sweep.from_dict(doc).expand())
    # Every run ran exactly once, and both processes took a share.
    assert sum(ran) == total and min(ran) > 0, ran
    single = run_sweep(Sweep.load(sweep_file), tmp_path / "single", workers=1, progress=False).store
    shared_files, single_files = _run_files(shared), _run_files(single.root)
    assert shared_files.keys() == single_files.keys() and len(shared_files) > total
    for name, data in single_files.items():
        assert shared_files[name] == data, name
    # Nothing claimed or half-written is left behind.
    assert not list((shared / CLAIMS_DIR).glob("*.claim"))
    assert not [p for p in (shared / "runs").iterdir() if p.name.startswith(".")]


def test_a_killed_claimers_runs_are_taken_over(tmp_path):
    sweep_file, doc = _sweep_file(tmp_path, seeds=2)
    out = tmp_path / "out"
    proc = subprocess.Popen([*_CLI, "sweep", "run", str(sweep_file), "--out", str(out), "-j", "1"])
    deadline = time.monotonic() + TIMEOUT_S
    # Kill it while it holds a claim on a run it has not stored.
    while time.monotonic() < deadline:
        stored = {p.name.removeprefix("key=") for p in (out / "runs").glob("key=*")}
        claimed = {p.stem for p in (out / CLAIMS_DIR).glob("*.claim")} if (out / CLAIMS_DIR).is_dir() else set()
        if stored and claimed - stored:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    left_claimed = {p.stem for p in (out / CLAIMS_DIR).glob("*.claim")}
    before = {p.name.removeprefix("key=") for p in (out / "runs").glob("key=*")}
    assert left_claimed - before, "the killed process held no claim on an unstored run"
    expected = {r.key for r in Sweep.from_dict(doc).expand()}
    outcome = run_sweep(Sweep.load(sweep_file), out, workers=1, progress=False)
    assert outcome.ran == len(expected - before) and outcome.by_others == 0
    assert outcome.store.complete_keys() == expected
    assert not list((out / CLAIMS_DIR).glob("*.claim"))


def test_a_live_claim_is_not_taken_and_a_released_one_is(tmp_path):
    mine, theirs = Claims(tmp_path), Claims(tmp_path)  # two open files: flock sees two claimers
    assert mine.acquire("k1", complete=lambda: False)
    assert not theirs.acquire("k1", complete=lambda: False)
    assert theirs.is_held_elsewhere("k1")
    assert json.loads(theirs.holder("k1"))["pid"] == os.getpid()
    mine.release("k1")
    assert not theirs.is_held_elsewhere("k1")
    # A run stored by the time the claim is taken is not run again.
    assert not theirs.acquire("k1", complete=lambda: True)
    assert theirs.acquire("k1", complete=lambda: False)
    theirs.release_all()
    assert not (tmp_path / CLAIMS_DIR / "k1.claim").exists()
