"""Shared fixtures: a valid base scenario (the bundled `bottleneck`, shortened) and a CLI runner."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cellcc import Scenario
from cellcc.cli.main import app

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
#: Simulated seconds of the shortened scenarios the tests run (keeps pytest fast).
SHORT_DURATION_S = 2.0


@pytest.fixture
def base_doc() -> dict[str, Any]:
    """The bundled `bottleneck` scenario as a canonical dict, shortened to SHORT_DURATION_S."""
    doc = Scenario.bundled("bottleneck").to_dict()
    doc["duration_s"] = SHORT_DURATION_S
    return doc


@pytest.fixture
def write_doc(tmp_path: Path) -> Callable[[dict[str, Any], str], Path]:
    """Write a scenario dict as JSON into tmp_path; returns the file."""

    def write(doc: dict[str, Any], name: str = "scenario.json") -> Path:
        path = tmp_path / name
        path.write_text(json.dumps(doc), encoding="utf-8")
        return path

    return write


class Cli:
    """Runs `cellcc` in-process and keeps stdout and stderr apart."""

    def __init__(self) -> None:
        self._runner = CliRunner()

    def __call__(self, *args: str | Path):
        return self._runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def cli() -> Cli:
    return Cli()


@pytest.fixture(scope="session")
def quick_study(tmp_path_factory) -> Callable[[str], tuple[Any, Path]]:
    """``quick_study(name)``: `cellcc study NAME --quick` run once per test session (the study
    tests and the browser test both read its report): the CLI result and the output folder."""
    done: dict[str, tuple[Any, Path]] = {}

    def run(name: str) -> tuple[Any, Path]:
        if name not in done:
            out = tmp_path_factory.mktemp("studies") / name
            done[name] = (Cli()("study", name, "--quick", "--out", out, "--jobs", "1"), out)
        return done[name]

    return run
