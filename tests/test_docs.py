"""The docs: the README's scenario reference covers every field the engine's canonical JSON contains,
and `scripts/make_docs.py` writes docs/ccas.md and its figures."""

from __future__ import annotations

import re
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import cellcc
from cellcc import Scenario

from .conftest import EXAMPLES, REPO


def _keys(node: Any) -> set[str]:
    if isinstance(node, dict):
        return set(node) | {k for v in node.values() for k in _keys(v)}
    if isinstance(node, list):
        return {k for v in node for k in _keys(v)}
    return set()


def test_readme_documents_every_scenario_field():
    scenarios = [Scenario.bundled(n) for n in ("bottleneck", "variable", "lte")]
    scenarios += [Scenario.load(p) for p in sorted(EXAMPLES.glob("*.toml")) if not p.name.startswith("sweep_")]
    keys = set().union(*(_keys(s.to_dict()) for s in scenarios))
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    missing = sorted(
        k
        for k in keys
        if f"`{k}`" not in readme
        and f"`queue.{k}`" not in readme
        and f"`loss.{k}`" not in readme
        and f"`{k}`," not in readme
    )
    assert not missing, f"README scenario reference lacks: {missing}"
    # The canonical form names every TCP option (all optional, so all present as null).
    assert {"mss_bytes", "min_rto_ms", "pacing"} <= keys


def _png_size(path: Path) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def test_make_docs_quick_mode_writes_markdown_and_figures(tmp_path):
    names = ("reno", "bbr")
    cmd = [sys.executable, str(REPO / "scripts" / "make_docs.py"), "--only", ",".join(names)]
    cmd += ["--duration", "6", "--out", str(tmp_path), "--workers", "1"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    md = (tmp_path / "ccas.md").read_text(encoding="utf-8")
    registry = {c["name"]: c for c in cellcc.ccas()}
    for name in names:
        assert _png_size(tmp_path / "figures" / "ccas" / f"{name}.png") == (800, 450)
        assert f"\n## {name}\n" in md and f"(figures/ccas/{name}.png)" in md
        # Prose and parameters come from the registry, not from the script.
        assert registry[name]["description"] in md
        for p in registry[name]["params"]:
            assert f"| `{p['name']}` | `{p['default']}` |" in md
    assert "\n## cubic\n" not in md
    # The step change is at 1/3 and 2/3 of the run; each phase has a measured goodput below capacity.
    rows = re.findall(r"\| (before|during|after) \(([\d.]+)-([\d.]+) s\) \| ([\d.]+) \| ([\d.]+) \|", md)
    assert [(r[0], r[1], r[2], r[3]) for r in rows[:3]] == [
        ("before", "0", "2", "20"),
        ("during", "2", "4", "10"),
        ("after", "4", "6", "20"),
    ]
    assert all(0 < float(r[4]) <= float(r[3]) for r in rows), rows
    assert not list(tmp_path.rglob("*.tmp")), "temporary files left behind"


def test_make_docs_rejects_an_unknown_algorithm(tmp_path):
    cmd = [sys.executable, str(REPO / "scripts" / "make_docs.py"), "--only", "bbr9", "--out", str(tmp_path)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode != 0
    assert "bbr9" in done.stderr and "reno" in done.stderr
    assert not (tmp_path / "ccas.md").exists()
