"""Fuzzing the scenario path end to end (issue 13): mutated example scenarios, as files,
through the one loader, the engine's validation and `cellcc run`.

Every outcome must be a valid run or a ``ValueError`` naming a field (``.path``); the CLI
exits 0 or 2 with one line and never a traceback; no case takes longer than
:data:`CASE_BOUND_S`. The default run is ~1 minute (:data:`QUICK_CASES` cases); the
``slow`` marker runs :data:`LONG_CASES`.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cellcc import Scenario
from cellcc.scenario import load_document

from .conftest import EXAMPLES, REPO

#: Scenarios the mutations start from: every example and bundled scenario.
SOURCES = sorted(EXAMPLES.glob("*.toml")) + sorted((REPO / "python/cellcc/data").glob("*.toml"))
#: A mutant's simulated duration is capped here so that a valid mutant runs in bounded time.
MAX_DURATION_S = 1.0
#: No case (load, validate, run through the CLI) may take longer than this, wall seconds.
CASE_BOUND_S = 30.0
QUICK_CASES = 200
LONG_CASES = 5000

#: Values put in place of a field: wrong types, extremes, the issue's absurd numbers.
HOSTILE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0.0, -1.0, 1e-300, 1e-9, 1e-4, 0.5, 1e9, 1e300, -1e300, math.nan, math.inf]),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    # Fresh containers each time (st.just would share one object between places in a document).
    st.builds(list),
    st.builds(dict),
    st.builds(lambda: {"kind": "bulk"}),
)


def _paths(node: Any, at: tuple = ()) -> list[tuple]:
    """Every path into a document (keys and indices), the root excluded."""
    out = [at] if at else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*at, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*at, i))
    return out


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _at(doc: Any, path: tuple) -> Any:
    for k in path:
        doc = doc[k]
    return doc


@st.composite
def mutated_document(draw) -> tuple[dict[str, Any], str]:
    """An example's document (trace paths made absolute) with 1-3 fields deleted, scaled or replaced.

    Half the mutations scale a number (rates, delays, sizes, times, CCA parameters): those
    mostly keep the document valid or just outside a range, so a good share of cases run
    the engine on extreme but accepted values instead of stopping at the first type error.
    """
    source = draw(st.sampled_from(SOURCES))
    doc, _ = load_document(source)
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(doc)
        op = draw(st.sampled_from(["delete", "scale", "scale", "replace"]))
        numeric = [p for p in paths if _is_number(_at(doc, p))]
        candidates = numeric if op == "scale" and numeric else paths
        if not candidates:
            break
        *parent_path, key = draw(st.sampled_from(candidates))
        parent = _at(doc, tuple(parent_path))
        if op == "delete":
            del parent[key]
        elif op == "scale" and _is_number(parent[key]):
            factor = draw(st.sampled_from([0, 1e-3, 0.1, 0.5, 2, 10, 1e3, 1e6]))
            scaled = parent[key] * factor
            parent[key] = round(scaled) if isinstance(parent[key], int) else scaled
        else:
            parent[key] = draw(HOSTILE)
    if _is_number(doc.get("duration_s")) and doc["duration_s"] > MAX_DURATION_S:
        doc["duration_s"] = MAX_DURATION_S
    return doc, source.name


@st.composite
def mutated_text(draw) -> str:
    """An example's TOML text, truncated, with bytes inserted, or with a line broken."""
    text = draw(st.sampled_from(SOURCES)).read_text(encoding="utf-8")
    text = text.replace('"../python/', f'"{REPO}/python/')
    text = text.replace("duration_s = ", f"duration_s = {MAX_DURATION_S}\n# was ")
    cut = draw(st.integers(0, len(text)))
    op = draw(st.sampled_from(["truncate", "insert", "break-line"]))
    if op == "truncate":
        return text[:cut]
    if op == "insert":
        return text[:cut] + draw(st.text(max_size=8)) + text[cut:]
    lines = text.splitlines()
    i = draw(st.integers(0, max(0, len(lines) - 1)))
    if lines and "=" in lines[i]:
        lines[i] = lines[i].split("=")[0] + "= "
    return "\n".join(lines)


def _check_api(path: Path) -> bool:
    """True if the scenario is valid; else the error must be a ValueError naming a field."""
    try:
        Scenario.load(path)
    except ValueError as e:
        assert getattr(e, "path", ""), f"ValueError without a field path: {e!r}"
        return False
    return True


def _check_cli(cli, path: Path, valid: bool) -> None:
    started = time.monotonic()
    result = cli("run", path, "--seed", "1")
    elapsed = time.monotonic() - started
    output = result.stdout + result.stderr
    assert "Traceback" not in output, output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == (0 if valid else 2), (result.exit_code, output)
    if not valid:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert elapsed < CASE_BOUND_S, f"{path.name} took {elapsed:.1f} s"


def _fuzz_documents(cli, tmp_path: Path, case: tuple[dict[str, Any], str]) -> None:
    doc, _source = case
    path = tmp_path / "mutant.json"
    # NaN/inf are written as JSON's NaN/Infinity extension: the loader must refuse them by name.
    path.write_text(json.dumps(doc, allow_nan=True, default=str), encoding="utf-8")
    _check_cli(cli, path, _check_api(path))


def _fuzz_text(cli, tmp_path: Path, text: str) -> None:
    path = tmp_path / "mutant.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    _check_cli(cli, path, _check_api(path))


_QUICK = settings(max_examples=QUICK_CASES, deadline=None, suppress_health_check=list(HealthCheck))
_LONG = settings(max_examples=LONG_CASES, deadline=None, suppress_health_check=list(HealthCheck))


@_QUICK
@given(case=mutated_document())
def test_mutated_scenarios_run_or_name_a_field(cli, tmp_path, case):
    _fuzz_documents(cli, tmp_path, case)


@_QUICK
@given(text=mutated_text())
def test_mutated_scenario_files_run_or_name_a_field(cli, tmp_path, text):
    _fuzz_text(cli, tmp_path, text)


@pytest.mark.slow
@_LONG
@given(case=mutated_document())
def test_mutated_scenarios_long(cli, tmp_path, case):
    _fuzz_documents(cli, tmp_path, case)


@pytest.mark.slow
@_LONG
@given(text=mutated_text())
def test_mutated_scenario_files_long(cli, tmp_path, text):
    _fuzz_text(cli, tmp_path, text)
