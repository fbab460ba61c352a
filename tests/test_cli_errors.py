"""Bad input on the command line: exit code 2, one line on stderr naming the field, no
traceback, and nothing half-written."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

Mutation = Callable[[dict[str, Any]], None]


def _set(path: list[str | int], value: Any) -> Mutation:
    def apply(doc: dict[str, Any]) -> None:
        node: Any = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return apply


def _drop(path: list[str | int]) -> Mutation:
    def apply(doc: dict[str, Any]) -> None:
        node: Any = doc
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]

    return apply


def _udp_bulk(doc: dict[str, Any]) -> None:
    doc["flows"][0].update(transport="udp", cca=None)


# (case id, mutation of the valid base scenario, text the one error line must contain)
BAD_SCENARIOS: list[tuple[str, Mutation, str]] = [
    ("unknown-top-level-field", _set(["colour"], "red"), "colour: unknown field"),
    ("unknown-nested-field", _set(["links", 1, "bogus"], 1), "links[1].bogus: unknown field"),
    ("wrong-type", _set(["duration_s"], "long"), "duration_s: invalid type"),
    ("negative-rate", _set(["links", 1, "rate_mbps"], -5), "links[1].forward.rate_mbps: got -5"),
    (
        "probability-above-one",
        _set(["links", 1, "forward", "loss"], {"kind": "bernoulli", "p": 1.5}),
        "links[1].forward.loss.p: got 1.5",
    ),
    ("unknown-node-reference", _set(["flows", 0, "dst"], "nowhere"), 'flows[0].dst: got "nowhere"'),
    ("unknown-cca", _set(["flows", 0, "cca"], "bbr9"), 'flows[0].cca: got "bbr9"; allowed: one of reno'),
    ("bad-cca-params-field", _set(["flows", 0, "cca_params"], {"beta": 1}), "flows[0].cca_params"),
    ("missing-required-field", _drop(["duration_s"]), "duration_s: missing: this field is required"),
    ("missing-app", _drop(["flows", 0, "app"]), "flows[0].app: missing: this field is required"),
    ("duplicate-id", _set(["nodes", 1, "id"], "server"), 'nodes[1].id: got "server"'),
    ("udp-with-bulk-app", _udp_bulk, "flows[0].app.kind"),
    ("bad-pcap-link-id", _set(["output", "pcap"], ["nolink"]), 'output.pcap[0]: got "nolink"'),
    ("wrong-version", _set(["version"], 2), "version: got 2; allowed: 1"),
    ("mtu-too-small", _set(["links", 1, "mtu_bytes"], 20), "links[1].mtu_bytes: got 20"),
    ("unknown-queue-kind", _set(["links", 1, "forward", "queue"], {"kind": "red"}), "links[1].forward.queue.kind"),
    ("negative-seed", _set(["seed"], -1), "seed: invalid value"),
    ("missing-trace-file", _set(["links", 1, "forward", "trace"], "no-such.trace"), "links[1].forward.trace"),
    (
        "rate-changes-not-increasing",
        _set(["links", 1, "rate_changes"], [{"at_s": 5, "rate_mbps": 10}, {"at_s": 2, "rate_mbps": 20}]),
        "links[1].forward.rate_changes[1].at_s: got 2",
    ),
    (
        "ecn-threshold-zero",
        _set(["links", 1, "forward", "queue"], {"kind": "drop_tail", "limit_packets": 50, "ecn_threshold_packets": 0}),
        "links[1].forward.queue.ecn_threshold_packets: got 0",
    ),
    ("unknown-rto-estimator", _set(["tcp", "rto_estimator"], "bsd"), "tcp.rto_estimator: unknown variant `bsd`"),
    ("unknown-tcp-profile", _set(["tcp", "profile"], "ns-3"), "tcp.profile: unknown variant `ns-3`"),
    (
        "unknown-flow-tcp-profile",
        _set(["flows", 0, "tcp"], {"profile": "freebsd"}),
        "flows[0].tcp.profile: unknown variant `freebsd`",
    ),
]


def assert_one_clear_line(result, expected: str) -> None:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), lines[0]
    assert expected in lines[0], lines[0]
    assert "Traceback" not in result.stdout + result.stderr


@pytest.mark.parametrize(("mutate", "expected"), [c[1:] for c in BAD_SCENARIOS], ids=[c[0] for c in BAD_SCENARIOS])
def test_bad_scenario_is_one_line_naming_the_field(cli, base_doc, write_doc, mutate, expected):
    doc = copy.deepcopy(base_doc)
    mutate(doc)
    path = write_doc(doc)
    assert_one_clear_line(cli("validate", path), expected)


@pytest.mark.parametrize(
    ("mutate", "expected"), [c[1:] for c in BAD_SCENARIOS[:6]], ids=[c[0] for c in BAD_SCENARIOS[:6]]
)
def test_run_with_bad_scenario_writes_nothing(cli, base_doc, write_doc, tmp_path, mutate, expected):
    doc = copy.deepcopy(base_doc)
    mutate(doc)
    out = tmp_path / "out"
    assert_one_clear_line(cli("run", write_doc(doc), "--out", out), expected)
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["scenario.json"]


def test_bad_toml_syntax(cli, tmp_path: Path):
    path = tmp_path / "broken.toml"
    path.write_text("version = 1\nduration_s = = 3\n", encoding="utf-8")
    assert_one_clear_line(cli("validate", path), "invalid TOML")


def test_bad_json_syntax(cli, tmp_path: Path):
    path = tmp_path / "broken.json"
    path.write_text('{"version": 1,', encoding="utf-8")
    assert_one_clear_line(cli("validate", path), "invalid JSON")


def test_toml_unknown_field_names_it(cli, tmp_path: Path):
    text = (Path(__file__).parent.parent / "python/cellcc/data/bottleneck.toml").read_text(encoding="utf-8")
    path = tmp_path / "typo.toml"
    path.write_text(text.replace("delay_ms = 20", "delay_msec = 20"), encoding="utf-8")
    assert_one_clear_line(cli("validate", path), "links[1].delay_msec: unknown field")


def test_top_level_array_is_rejected(cli, tmp_path: Path):
    path = tmp_path / "list.json"
    path.write_text("[1, 2]", encoding="utf-8")
    assert_one_clear_line(cli("validate", path), "a table/object at the top level")


def test_missing_file(cli, tmp_path: Path):
    assert_one_clear_line(cli("validate", tmp_path / "nope.toml"), 'scenario: got "')


def test_missing_file_for_run_writes_nothing(cli, tmp_path: Path):
    out = tmp_path / "out"
    assert_one_clear_line(cli("run", tmp_path / "nope.toml", "--out", out), "scenario")
    assert not out.exists()


def test_unknown_bundled_name(cli):
    assert_one_clear_line(cli("validate", "no-such-scenario"), "no-such-scenario")


def test_compare_unknown_cca(cli, tmp_path: Path):
    out = tmp_path / "table.csv"
    assert_one_clear_line(cli("compare", "bottleneck", "--cca", "reno,bogus", "--out", out), '--cca: got "bogus"')
    assert not out.exists()


def test_compare_empty_cca_list(cli):
    assert_one_clear_line(cli("compare", "bottleneck", "--cca", ","), "--cca")


def test_compare_bad_out_suffix(cli, tmp_path: Path):
    assert_one_clear_line(cli("compare", "bottleneck", "--out", tmp_path / "table.xlsx"), "--out")


def test_usage_errors_exit_2_without_traceback(cli):
    result = cli("run", "bottleneck", "--seed", "-3")
    assert result.exit_code == 2
    assert "Traceback" not in result.stdout + result.stderr


def test_unreachable_destination_is_reported_by_validate_and_run_and_writes_nothing(
    cli, base_doc, write_doc, tmp_path: Path
):
    base_doc["nodes"].append({"id": "island", "kind": "host"})
    base_doc["flows"][0]["dst"] = "island"
    path = write_doc(base_doc)
    assert_one_clear_line(cli("validate", path), 'flows[0].dst: got "island"')
    out = tmp_path / "out"
    assert_one_clear_line(cli("run", path, "--out", out), 'flows[0].dst: got "island"')
    assert not out.exists()


def test_run_report_needs_an_out_folder(cli):
    assert_one_clear_line(cli("run", "bottleneck", "--report"), "--report")


def test_report_of_a_folder_that_is_neither_a_run_nor_a_sweep(cli, tmp_path: Path):
    assert_one_clear_line(cli("report", tmp_path), "a run folder")
    assert not (tmp_path / "report.html").exists()


def test_report_of_a_run_refuses_markdown(cli, base_doc, write_doc, tmp_path: Path):
    run_dir = tmp_path / "run"
    assert cli("run", write_doc(base_doc), "--out", run_dir).exit_code == 0
    assert_one_clear_line(cli("report", run_dir, "--out", tmp_path / "r.md"), "--out")
    assert not (tmp_path / "r.md").exists()


# `cellcc live`: (case id, arguments after `live` given the test's folder, text the one error line must contain).
LIVE_BAD_INPUT: list[tuple[str, Callable[[Path], list[str]], str]] = [
    ("serve: no such config", lambda d: ["serve", "--config", str(d / "none.toml")], "--config"),
    ("serve: no keys", lambda d: ["serve", "--config", str(_file(d, "s.toml", "port = 7510\n"))], "config.keys"),
    (
        "serve: short secret",
        lambda d: ["serve", "--config", str(_file(d, "s.toml", '[[keys]]\nid = "a"\nsecret = "00ff"\n'))],
        "config.keys[0].secret",
    ),
    (
        "serve: unknown limit",
        lambda d: ["serve", "--config", str(_file(d, "s.toml", "[limits]\nspeed = 1\n"))],
        "limits.speed",
    ),
    ("run: no such plan", lambda d: ["run", str(d / "none.toml")], "PLAN"),
    ("run: bad window", lambda d: ["run", str(_plan(d, 'window = "6-7"'))], "periods[0].window"),
    ("run: unknown place", lambda d: ["run", str(_plan(d)), "--place", "moon"], "--place"),
    ("estimate: no ccas", lambda d: ["estimate", str(_plan(d, ccas="[]"))], "ccas"),
    ("replay: not a run", lambda d: ["replay", str(d)], "RUN"),
    ("keygen: file exists", lambda d: ["keygen", "a", "--out", str(_file(d, "k.toml", ""))], "--out"),
]


def _file(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def _plan(folder: Path, window: str = 'window = "00:00-24:00"', ccas: str = '["cubic"]') -> Path:
    text = (
        f'name = "p"\nserver = "127.0.0.1:9"\nkey = "k.toml"\nccas = {ccas}\nexpected_mbps = {{ down = 1, up = 1 }}\n'
        "max_run_bytes = 1e9\nmax_day_bytes = 1e9\ntransfer = { down = { bytes = 1000 }, up = { bytes = 1000 } }\n"
        f'[[places]]\nname = "lab"\n[[periods]]\nname = "any"\n{window}\n'
    )
    return _file(folder, "plan.toml", text)


@pytest.mark.parametrize(("case", "args", "expected"), LIVE_BAD_INPUT, ids=[c[0] for c in LIVE_BAD_INPUT])
def test_live_bad_input_is_one_line_naming_the_field(cli, tmp_path: Path, case, args, expected):
    result = cli("live", *args(tmp_path))
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], result.stderr
