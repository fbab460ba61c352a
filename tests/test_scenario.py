"""Scenario loading: files, dicts, bundled names, trace paths, canonical JSON and the error type."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cellcc
from cellcc import Scenario, ScenarioError, UserError, _core
from cellcc.scenario import DEFAULT_SET, bundled_names, resolve_many

DATA = Path(cellcc.__file__).parent / "data"


def test_default_scenario_is_the_specified_bottleneck():
    doc = Scenario.bundled("bottleneck").to_dict()
    bottleneck = next(link for link in doc["links"] if link["id"] == "bottleneck")
    assert bottleneck["rate_mbps"] == 20
    rtt_ms = 2 * sum(link["delay_ms"] for link in doc["links"])
    assert rtt_ms == 40
    bdp_bytes = 20e6 * 0.040 / 8
    queue = bottleneck["forward"]["queue"]
    assert (queue["kind"], queue["limit_bytes"], queue["limit_packets"]) == ("drop_tail", bdp_bytes, None)
    assert bottleneck["forward"]["loss"] == {"kind": "bernoulli", "p": 0.001}


def test_variable_scenario_uses_the_bundled_trace():
    doc = Scenario.bundled("variable").to_dict()
    trace = Path(doc["links"][1]["forward"]["trace"])
    assert trace.is_absolute()
    assert trace == (DATA / "traces" / "walk-20mbps.trace").resolve()


def test_bundled_names_and_default_set():
    assert set(DEFAULT_SET) <= set(bundled_names())
    assert [s.name for s in resolve_many(None)] == list(DEFAULT_SET)
    assert [s.name for s in resolve_many("default")] == list(DEFAULT_SET)


def test_toml_json_and_dict_give_the_same_scenario(tmp_path: Path):
    from_toml = Scenario.load(DATA / "bottleneck.toml")
    path = tmp_path / "copy.json"
    path.write_text(json.dumps(from_toml.to_dict()), encoding="utf-8")
    assert Scenario.load(path) == from_toml
    assert Scenario.from_dict(from_toml.to_dict()) == from_toml
    assert Scenario.resolve("bottleneck") == from_toml


def test_canonical_json_is_a_fixed_point():
    sc = Scenario.bundled("variable")
    assert _core.validate(sc.json) == sc.json
    assert len(sc.sha256) == 64


def test_relative_trace_is_read_from_the_scenario_folder(tmp_path: Path, base_doc):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "link.trace").write_text("1\n2\n", encoding="utf-8")
    bottleneck = base_doc["links"][1]
    bottleneck["forward"]["trace"] = "link.trace"
    bottleneck["rate_mbps"] = None
    bottleneck["reverse"]["rate_mbps"] = 20
    path = tmp_path / "sub" / "sc.json"
    path.write_text(json.dumps(base_doc), encoding="utf-8")
    sc = Scenario.load(path)
    assert sc.to_dict()["links"][1]["forward"]["trace"] == str((tmp_path / "sub" / "link.trace").resolve())


def test_scenario_error_carries_path_value_allowed(base_doc):
    base_doc["flows"][0]["cca"] = "nope"
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(base_doc)
    e = info.value
    assert isinstance(e, ValueError)
    assert (e.path, e.value) == ("flows[0].cca", '"nope"')
    assert "newreno" in e.allowed
    assert str(e) == f"{e.path}: got {e.value}; allowed: {e.allowed}"


def test_scenario_error_pickles_with_its_fields(base_doc):
    import pickle

    base_doc["version"] = 9
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(base_doc)
    again = pickle.loads(pickle.dumps(info.value))
    assert type(again) is ScenarioError
    assert (again.path, again.value, str(again)) == ("version", "9", str(info.value))


def test_with_cca_changes_every_tcp_flow_only(base_doc):
    base_doc["flows"].append(
        {"id": "udp", "src": "server", "dst": "client", "transport": "udp", "app": {"kind": "cbr", "rate_mbps": 1}}
    )
    sc = Scenario.from_dict(base_doc).with_cca("reno")
    flows = sc.to_dict()["flows"]
    assert flows[0]["cca"] == "reno"
    assert flows[1]["cca"] is None


def test_user_error_format():
    e = UserError("--cca", '"x"', "one of reno")
    assert str(e) == '--cca: got "x"; allowed: one of reno'
    assert str(UserError("f.toml", "", "invalid TOML: boom")) == "f.toml: invalid TOML: boom"


def test_public_api_surface():
    for name in cellcc.__all__:
        assert hasattr(cellcc, name), name
    assert {"run", "Scenario", "Result", "compare", "ccas", "__version__"} <= set(cellcc.__all__)
    names = [c["name"] for c in cellcc.ccas()]
    assert names[:2] == ["reno", "newreno"]


def test_scenario_hash_follows_trace_contents_not_paths(tmp_path):
    from cellcc import Scenario

    def scenario_with_trace(folder, lines):
        folder.mkdir()
        (folder / "link.trace").write_text("\n".join(lines) + "\n")
        doc = {
            "version": 1,
            "duration_s": 1,
            "nodes": [{"id": "a", "kind": "host"}, {"id": "b", "kind": "host"}],
            "links": [{"id": "l", "a": "a", "b": "b", "trace": "link.trace"}],
            "flows": [{"src": "a", "dst": "b", "app": {"kind": "bulk"}}],
        }
        return Scenario.from_dict(doc, base_dir=folder)

    same_a = scenario_with_trace(tmp_path / "a", ["1", "2"])
    same_b = scenario_with_trace(tmp_path / "b", ["1", "2"])
    other = scenario_with_trace(tmp_path / "c", ["1", "3"])
    assert same_a.json != same_b.json  # the absolute paths differ...
    assert same_a.sha256 == same_b.sha256  # ...the simulated scenario does not
    assert same_a.sha256 != other.sha256


def test_a_documents_text_or_an_impossible_path_is_one_clear_error():
    doc = Scenario.bundled("bottleneck").to_dict()
    with pytest.raises(UserError, match=r"json\.loads or tomllib\.loads"):
        cellcc.run(json.dumps(doc))
    # A name longer than the OS allows (ENAMETOOLONG): the same UserError as an unreadable file.
    with pytest.raises(UserError, match="a readable UTF-8 file"):
        Scenario.resolve("x" * 5000 + ".toml")
