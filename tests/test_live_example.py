"""docs/live.md's worked example, run as written: `examples/live/two_namespaces.sh` (a server and
a client in two namespaces of their own, a plan each way, query, report, replay). The document
quotes the script whole, so the two cannot drift apart. Needs root and iproute2 (tbf); skips
otherwise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cellcc.backends.netns import missing_privileges

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "examples" / "live" / "two_namespaces.sh"
DOC = REPO / "docs" / "live.md"
WHY_NOT = missing_privileges()


def test_the_guide_quotes_the_worked_example_whole() -> None:
    assert SCRIPT.read_text() in DOC.read_text()


@pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")
def test_the_worked_example_runs(tmp_path: Path) -> None:
    out = tmp_path / "example"
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "CELLCC": str(Path(sys.executable).parent / "cellcc")}
    r = subprocess.run(
        ["bash", str(SCRIPT), str(out)], cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "2 runs now, 0 already" in r.stdout.replace("\n", " ")
    assert (out / "report.md").read_text().startswith("# cellcc report: example")
    replay = (out / "replay.csv").read_text().splitlines()
    assert len(replay) == 1 + 2 * 4  # header, 4 metrics x 2 runs
    sessions = (out / "sessions.jsonl").read_text().splitlines()
    assert len(sessions) >= 3 and all('"key_id": "laptop"' in line for line in sessions)
