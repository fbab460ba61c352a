"""The command line's happy paths that need no simulation: help, version, registry, validation."""

from __future__ import annotations

import json

import pytest

import cellcc
from cellcc import _core

COMMANDS = ["run", "compare", "validate", "ccas"]


@pytest.mark.parametrize("command", [[], *([c] for c in COMMANDS)], ids=["root", *COMMANDS])
def test_help_everywhere(cli, command):
    result = cli(*command, "--help")
    assert result.exit_code == 0, result.stderr
    assert "Usage" in result.stdout


def test_no_arguments_shows_help(cli):
    result = cli()
    assert "Usage" in result.stdout + result.stderr
    assert "compare" in result.stdout + result.stderr


def test_version(cli):
    result = cli("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == (
        f"cellcc {cellcc.__version__} (engine {_core.engine_version()}, schema {_core.SCHEMA_VERSION})"
    )


def test_ccas_lists_reno_and_newreno_with_family_and_source(cli):
    result = cli("ccas", "--json")
    assert result.exit_code == 0, result.stderr
    registry = {c["name"]: c for c in json.loads(result.stdout)}
    for name in ("reno", "newreno"):
        assert registry[name]["family"] == "loss"
        assert "RFC" in registry[name]["source"]
    table = cli("ccas")
    assert table.exit_code == 0
    assert "reno" in table.stdout and "newreno" in table.stdout and "loss" in table.stdout


def test_ccas_table_lists_every_registered_algorithm(cli):
    table = cli("ccas").stdout
    for entry in _core.ccas():
        assert entry["name"] in table


def test_ccas_verbose_prints_the_registry_description_and_parameter_meanings(cli):
    result = cli("ccas", "--cca", "vegas", "--verbose")
    assert result.exit_code == 0, result.stderr
    out = " ".join(result.stdout.replace("│", " ").split())
    vegas = next(c for c in _core.ccas() if c["name"] == "vegas")
    assert "[alpha, beta] = [2, 4]" in out  # brackets printed, not read as rich markup
    assert " ".join(vegas["description"].split()) in out
    assert all(p["name"] in out and p["doc"] in out for p in vegas["params"])
    assert "cubic" not in out


@pytest.mark.parametrize("name", ["bottleneck", "variable"])
def test_validate_bundled(cli, name):
    result = cli("validate", name)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"ok: {name}: 3 nodes, 2 links, 1 flows")


def test_validate_json_prints_canonical_defaults(cli, base_doc, write_doc):
    del base_doc["output"]
    result = cli("validate", write_doc(base_doc), "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["output"]["slot_ms"] == 100.0
    assert doc["links"][1]["mtu_bytes"] == 1500


#: Libraries whose import alone costs a large part of the 0.3 s start-up budget (issue 13).
HEAVY_MODULES = ("pandas", "numpy", "scipy", "pyarrow", "duckdb", "matplotlib", "pydantic")


@pytest.mark.parametrize("argv", [["--version"], ["validate", "bottleneck"], ["ccas"]], ids=" ".join)
def test_light_commands_import_no_heavy_library(argv):
    """The start-up goal holds by construction: these commands never import a heavy library."""
    import subprocess
    import sys

    probe = (
        "import sys\nfrom cellcc.cli.main import main\n"
        f"sys.argv = ['cellcc', *{argv!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"print(sorted(m for m in {HEAVY_MODULES!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"
