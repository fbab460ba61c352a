"""The command line's happy paths that need no simulation: help, version, registry, validation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cellcc
from cellcc import _core

from .conftest import EXAMPLES, REPO

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


#: The engine's `[tcp]` defaults (crates/cellcc-engine/src/scenario/tcp.rs `TcpSpec::resolve`,
#: each from Linux or the RFC named there), except mss_bytes, which follows the path.
ENGINE_TCP_DEFAULTS = {
    "sack": True,
    "timestamps": True,
    "rto_estimator": "linux",
    "min_rto_ms": 200.0,  # TCP_RTO_MIN
    "initial_rto_ms": 1000.0,  # TCP_TIMEOUT_INIT, RFC 6298 §2.1
    "max_rto_ms": 120000.0,  # TCP_RTO_MAX
    "delayed_ack_count": 2,  # RFC 5681 §4.2
    "delayed_ack_timeout_ms": 40.0,  # TCP_DELACK_MIN
    "initial_cwnd_segs": 10,  # RFC 6928
    "rcv_buf_bytes": 6291456,  # tcp_rmem max
    "tcp_rmem": [4096, 131072, 6291456],  # tcp_rmem (net/ipv4/tcp.c tcp_init)
    "tcp_moderate_rcvbuf": True,  # tcp_moderate_rcvbuf
    "snd_buf_bytes": 4194304,  # tcp_wmem max
    "tcp_wmem": [4096, 16384, 4194304],  # tcp_wmem (net/ipv4/tcp.c tcp_init)
    "dupack_threshold": 3,  # RFC 5681
    "syn_retries": 6,  # tcp_syn_retries
    "pacing": "auto",
    "ecn": False,
    "recovery": 1,  # tcp_recovery
    "early_retrans": 3,  # tcp_early_retrans
    "dsack": True,  # tcp_dsack
    "frto": 2,  # tcp_frto
    "min_tso_segs": 2,  # tcp_min_tso_segs
    "gso_max_segs": 65535,  # GSO_MAX_SEGS
    "comp_sack_nr": 44,  # tcp_comp_sack_nr
    # The Linux profile's variant of each mechanism the engine also has as ns-3's (tcp_profile.rs).
    "profile": "linux",
    "reno_rules": "linux",
    "fast_recovery": "linux",
    "undo": True,
    "rto_timer": "linux",
    "rtt_sampling": "linux",
    "cc_rtt": "sample",
    "rate_sample": "linux",
    "ack_policy": "linux",
    "receive_window": "linux",
    "send_buffer": "linux",
}
#: What `tcp.profile = "ns3"` resolves for a NewReno flow: ns-3.44's attribute defaults
#: (tcp-socket.cc, tcp-socket-base.cc, tcp-l4-protocol.cc) and ns-3's variant of every mechanism
#: (crates/cellcc-engine/src/scenario/tcp_profile.rs cites each).
NS3_PROFILE_NEWRENO = {
    **ENGINE_TCP_DEFAULTS,
    "profile": "ns3",
    "rto_estimator": "rfc6298",  # RttMeanDeviation
    "min_rto_ms": 1000.0,  # MinRto
    "initial_rto_ms": 3000.0,  # ConnTimeout
    "max_rto_ms": 60000.0,  # ReTxTimeout's cap
    "delayed_ack_timeout_ms": 200.0,  # DelAckTimeout
    "rcv_buf_bytes": 131072,  # RcvBufSize
    "tcp_rmem": [4096, 131072, 131072],
    "tcp_moderate_rcvbuf": False,
    "snd_buf_bytes": 131072,  # SndBufSize
    "tcp_wmem": [4096, 16384, 131072],
    "recovery": 0,  # no RACK
    "early_retrans": 0,  # no TLP
    "dsack": False,
    "frto": 0,
    "gso_max_segs": 1,  # a pacing timer per segment
    "comp_sack_nr": 0,  # an ACK per out-of-order segment
    "reno_rules": "ns3",  # TcpNewReno
    "fast_recovery": "ns3",  # TcpPrrRecovery, DoRetransmit on partial ACKs
    "undo": False,
    "rto_timer": "ns3",
    "rtt_sampling": "ns3",
    "cc_rtt": "srtt",
    "rate_sample": "ns3",
    "ack_policy": "ns3",
    "receive_window": "ns3",
    "send_buffer": "ns3",
}
#: ns-3's DropTailQueue default (scenario/mod.rs DEFAULT_QUEUE_LIMIT_PACKETS).
DEFAULT_QUEUE = {"kind": "drop_tail", "limit_packets": 100}


def _null_paths(node, path="resolved"):
    if node is None:
        yield path
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _null_paths(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _null_paths(value, f"{path}[{i}]")


def _example_scenarios():
    files = sorted(EXAMPLES.glob("*.toml")) + sorted((EXAMPLES / "crosscheck").glob("*.toml"))
    # The kernel crosscheck's scenarios (docs/crosscheck.md), traces relative to their files.
    files += sorted((REPO / "docs" / "crosscheck").glob("*.toml"))
    return [str(p) for p in files if p.stem != "sweep_ccas_buffers"] + ["bottleneck", "variable", "lte"]


@pytest.mark.parametrize("scenario", _example_scenarios(), ids=lambda s: Path(s).stem)
def test_validate_json_resolves_every_default_to_the_engines_value(cli, scenario):
    result = cli("validate", scenario, "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    resolved = doc["resolved"]
    # Null is a value only where the engine documents it: an infinite poll, slot-based mapping,
    # an outer loop switched off (the lena profile's `link_adaptation.olla`, world/resolved.rs).
    meaningful = (".poll_pdu", ".poll_byte", ".mini_slot_symbols", ".link_adaptation.olla")
    assert [p for p in _null_paths(resolved) if not p.endswith(meaningful)] == []
    cca_defaults = {c["name"]: {p["name"]: p["default"] for p in c["params"]} for c in _core.ccas()}
    for written, flow in zip(doc["flows"], resolved["flows"], strict=True):
        if written["transport"] == "udp":
            assert flow["cca"] == "udp" and "tcp" not in flow and "cca_params" not in flow
            continue
        assert flow["cca"] == (written["cca"] or "newreno")
        assert flow["cca_params"] == cca_defaults[flow["cca"]] | (written["cca_params"] or {})
        explicit = {k: v for k, v in {**doc["tcp"], **(written["tcp"] or {})}.items() if v is not None}
        assert flow["tcp"] == {**ENGINE_TCP_DEFAULTS, "mss_bytes": flow["tcp"]["mss_bytes"], **explicit}
        if "mss_bytes" not in explicit:
            # The smallest MTU (1500 or less) less 40 bytes of headers and 12 of timestamps.
            assert 0 < flow["tcp"]["mss_bytes"] <= 1500 - 40 - 12 * flow["tcp"]["timestamps"]
    for written, link in zip(doc["links"], resolved["links"], strict=True):
        for side in ("forward", "reverse"):
            queue = written[side]["queue"] or written["queue"]
            expected = DEFAULT_QUEUE if queue is None else {k: v for k, v in queue.items() if v is not None}
            assert link[side]["queue"] == expected


def test_validate_json_resolves_an_lte_cells_defaults_from_the_engine(cli):
    # The bundled `lte` scenario sets only bandwidth_mhz, the UE's sweep and its RLC mode and buffer.
    doc = json.loads(cli("validate", "lte", "--json").stdout)
    (cell,) = doc["resolved"]["cells"]
    assert list(_null_paths(cell)) == []
    assert cell["bandwidth_mhz"] == 20
    # The operator profile's values (lte/profile.rs): PF with a 99-TTI window, a wideband CQI every
    # 40 ms used 4 ms later, 4 HARQ retransmissions each way, SR every 20 ms, SRS every 40 ms, the
    # uplink MCS from the effective SINR with the outer loop, a CCE budget, srsRAN's QCI 9 RLC.
    assert cell["profile"] == "operator"
    assert (cell["scheduler"], cell["pf_window_ttis"]) == ("proportional_fair", 99.0)
    assert cell["cqi"] == {"period_ms": 40, "delay_ms": 4, "dl_mcs_from": "wideband"}
    assert cell["harq"] == {"max_retx": 4, "ul_max_retx": 4}
    assert cell["uplink"] == {"sr_period_ms": 20, "grant_delay_ms": 4, "srs_period_ms": 40, "requests": "sr_bsr"}
    assert cell["link_adaptation"]["ul_mcs_from"] == "effective_sinr"
    assert cell["link_adaptation"]["olla"]["target_bler"] == 0.1
    assert cell["pdcch"]["capacity"] is True
    rlc = cell["ues"][0]["rlc"]
    assert (rlc["mode"], rlc["tx_buffer_bytes"], rlc["poll_pdu"], rlc["max_retx_threshold"]) == ("am", 1048576, 64, 16)


def test_validate_json_shows_every_value_the_lena_profile_sets(cli, write_doc):
    from cellcc.scenario import load_document

    doc, _ = load_document("lte")
    doc["cells"][0]["profile"] = "lena"
    cell = json.loads(cli("validate", write_doc(doc), "--json").stdout)["resolved"]["cells"][0]
    assert cell["profile"] == "lena"
    assert cell["cqi"] == {"period_ms": 1, "delay_ms": 4, "dl_mcs_from": "worst_subband"}
    assert cell["link_adaptation"] == {"ul_mcs_from": "lena_minimum_sinr", "ul_measurement": "srs_only", "olla": None}
    assert cell["uplink"]["requests"] == "ideal_bsr"
    assert cell["pdcch"]["capacity"] is False
    assert cell["mac"] == {
        "grant_sizing": "whole_share",
        "status_pdu": "alone",
        "last_rbg": "unused",
        "pipeline": "lena",
    }
    rlc = cell["ues"][0]["rlc"]
    # The bundled scenario writes AM with a 1 MiB buffer; LENA's hard-coded polls fill in the rest.
    assert (rlc["mode"], rlc["tx_buffer_bytes"], rlc["poll_pdu"], rlc["max_retx_threshold"]) == ("am", 1048576, 1, 5)


def test_validate_json_of_a_wired_path_gives_each_flow_its_own_mss(cli, base_doc, write_doc):
    base_doc["flows"].append({**base_doc["flows"][0], "id": "plain", "tcp": {"timestamps": False}})
    base_doc["links"][1]["mtu_bytes"] = 1000
    doc = json.loads(cli("validate", write_doc(base_doc), "--json").stdout)
    # The 1000-byte link is the smallest on the path: 1000 - 40 - 12 = 948 with timestamps, 960 without.
    assert [f["tcp"]["mss_bytes"] for f in doc["resolved"]["flows"]] == [948, 960]
    assert doc["tcp"]["mss_bytes"] is None  # the input stays as written


def test_validate_json_shows_the_ns3_profile_and_every_value_it_sets(cli, base_doc, write_doc):
    base_doc["tcp"] = {"profile": "ns3"}
    base_doc["flows"][0]["cca"] = "newreno"
    # A second flow overrides one field and the profile's growth rule for its algorithm (CUBIC:
    # ns-3's TcpCubic counts segments), a third goes back to the Linux profile.
    base_doc["flows"].append({**base_doc["flows"][0], "id": "cubic", "cca": "cubic", "tcp": {"min_rto_ms": 200}})
    base_doc["flows"].append({**base_doc["flows"][0], "id": "linux", "tcp": {"profile": "linux"}})
    doc = json.loads(cli("validate", write_doc(base_doc), "--json").stdout)
    newreno, cubic, linux = (f["tcp"] for f in doc["resolved"]["flows"])
    assert newreno == {**NS3_PROFILE_NEWRENO, "mss_bytes": 1448}
    assert cubic == {**NS3_PROFILE_NEWRENO, "mss_bytes": 1448, "min_rto_ms": 200.0, "reno_rules": "linux"}
    assert linux == {**ENGINE_TCP_DEFAULTS, "mss_bytes": 1448}
    assert doc["tcp"] == {**{k: None for k in doc["tcp"]}, "profile": "ns3"}  # the input as written


def test_an_edited_resolved_table_is_refused_by_name(cli, base_doc, write_doc, tmp_path):
    doc = json.loads(cli("validate", write_doc(base_doc), "--json").stdout)
    doc["resolved"]["flows"][0]["tcp"]["initial_cwnd_segs"] = 4
    result = cli("validate", write_doc(doc, "edited.json"))
    assert result.exit_code == 2
    assert "resolved.flows[0].tcp.initial_cwnd_segs" in result.stderr and "output only" in result.stderr


#: Libraries whose import alone costs a large part of the 0.3 s start-up budget (issue 13).
HEAVY_MODULES = ("pandas", "numpy", "scipy", "pyarrow", "duckdb", "matplotlib", "pydantic")


def _heavy_modules_imported(argv: list[str]) -> list[str]:
    """The HEAVY_MODULES that `cellcc ARGV` imports, run in a fresh interpreter."""
    import subprocess
    import sys

    probe = (
        "import sys\nfrom cellcc.cli.main import main\n"
        f"sys.argv = ['cellcc', *{argv!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"print(sorted(m for m in {(*HEAVY_MODULES, 'bokeh')!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1].replace("'", '"'))


@pytest.mark.parametrize(
    "argv", [["--version"], ["validate", "bottleneck"], ["ccas"], ["run", "bottleneck"]], ids=" ".join
)
def test_light_commands_import_no_heavy_library(argv):
    """The start-up goal holds by construction: these commands never import a heavy library
    (`cellcc run` prints the engine's columns without pandas; issue 36)."""
    assert _heavy_modules_imported(argv) == []


def test_run_out_imports_only_the_parquet_writer(tmp_path):
    """`cellcc run --out` writes Parquet with pyarrow (and numpy under it), not through pandas."""
    assert _heavy_modules_imported(["run", "bottleneck", "--out", str(tmp_path / "run")]) == ["numpy", "pyarrow"]


@pytest.mark.parametrize("command", [["compare", "bottleneck", "--seeds", "1"], ["crosscheck", "bottleneck"]])
def test_an_out_table_that_cannot_be_written_is_refused_before_any_run(cli, tmp_path, command):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    for out in (tmp_path / "runs.txt", not_a_folder / "runs.csv"):
        result = cli(*command, "--out", str(out))
        assert result.exit_code == 2, result.stderr
        assert "--out" in result.stderr and str(out) in result.stderr and ".csv or .parquet" in result.stderr
        assert not (tmp_path / "runs.txt").exists()


@pytest.mark.parametrize(
    ("flags", "field", "allowed"),
    [
        (["--seeds", "4", "--max-seeds", "2"], "--max-seeds", "at least --seeds (4)"),
        (["--ci", "1.5"], "--ci", "between 0 and 1"),
    ],
)
def test_crosscheck_refuses_max_seeds_below_seeds_or_a_ci_outside_0_1_before_any_run(cli, flags, field, allowed):
    result = cli("crosscheck", "bottleneck", "--cca", "cubic", *flags)
    assert result.exit_code == 2, result.stderr
    assert field in result.stderr and allowed in result.stderr
    assert "engine, seed" not in result.stderr + result.stdout
