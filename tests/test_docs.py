"""The README's scenario reference covers every field the engine's canonical JSON contains."""

from __future__ import annotations

from typing import Any

from cellcc import Scenario

from .conftest import EXAMPLES, REPO


def _keys(node: Any) -> set[str]:
    if isinstance(node, dict):
        return set(node) | {k for v in node.values() for k in _keys(v)}
    if isinstance(node, list):
        return {k for v in node for k in _keys(v)}
    return set()


def test_readme_documents_every_scenario_field():
    scenarios = [Scenario.bundled(n) for n in ("bottleneck", "variable")]
    scenarios += [Scenario.load(p) for p in sorted(EXAMPLES.glob("*.toml"))]
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
