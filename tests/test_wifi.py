"""The 802.11ac BSS as a user runs it: seed 000's Wi-Fi cell end to end through the CLI, the `wifi`
table in the store, and bad BSS input as one line naming the field."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import cellcc
from cellcc import Scenario
from cellcc.result import Result

from .conftest import EXAMPLES
from .test_cli_errors import assert_one_clear_line

SEED000 = EXAMPLES / "wifi_seed000_cell.toml"


@pytest.fixture
def wifi_doc() -> dict[str, Any]:
    """examples/wifi_seed000_cell.toml, shortened to 1 s."""
    doc = Scenario.load(SEED000).to_dict()
    doc["duration_s"] = 1.0
    return doc


def test_the_seed000_wifi_cell_runs_end_to_end_through_the_cli(cli, tmp_path: Path):
    out = tmp_path / "run"
    result = cli("run", SEED000, "--out", out)
    assert result.exit_code == 0, result.stderr
    flows = pd.read_parquet(out / "flows.parquet")
    # 14 stations x 1 Mbit/s of 1000 B segments: far below what MCS 7 at 20 MHz carries, so every
    # flow gets its rate, within one RTT of the start.
    assert len(flows) == 14
    assert flows["goodput_bps"].between(0.9e6, 1.05e6).all(), flows["goodput_bps"].tolist()
    wifi = pd.read_parquet(out / "wifi.parquet")
    assert set(wifi["dir"]) == {"dl", "ul"}
    assert set(wifi["station"]) == {f"sta{i}" for i in range(14)}
    dl = wifi[wifi["dir"] == "dl"]
    assert (dl["mcs_mean"].dropna() == 7).all(), "a constant VhtMcs7"
    # The TCP ACKs of 14 stations contend with each other: the uplink sees collisions.
    assert wifi[wifi["dir"] == "ul"]["collisions"].sum() > 0
    assert 0 < wifi.groupby("t_s")["airtime_share"].sum().max() < 1
    back = Result.load(out)
    assert back.wifi.equals(wifi)


def test_the_seed000_wifi_cell_is_deterministic():
    a, b = cellcc.run(SEED000, seed=3), cellcc.run(SEED000, seed=3)
    assert a.wifi.equals(b.wifi) and a.flows.equals(b.flows)


def test_wifi_columns_match_the_engine():
    from cellcc.result import WIFI_COLUMNS

    doc = Scenario.load(SEED000).to_dict()
    doc["duration_s"] = 0.2
    assert list(cellcc.run(doc, seed=1).wifi.columns) == WIFI_COLUMNS
    assert list(cellcc.run("bottleneck", seed=1).wifi.columns) == WIFI_COLUMNS


def test_linux_backend_refuses_a_bss(cli, wifi_doc, write_doc):
    assert_one_clear_line(cli("run", "--backend", "linux", write_doc(wifi_doc)), "bsses")


BSS = ["bsses", 0]
STA = ["bsses", 0, "stations", 0]

# (case id, field path, value, text the one error line must contain)
BAD_BSSES = [
    ("standard-ax", [*BSS, "standard"], "ax", 'bsses[0].standard: got "ax"'),
    ("standard-unknown", [*BSS, "standard"], "ad", "bsses[0].standard: unknown variant `ad`"),
    ("band", [*BSS, "band"], "2.4ghz", 'bsses[0].band: got "2.4ghz"'),
    ("channel-width", [*BSS, "channel_width_mhz"], 30, "bsses[0].channel_width_mhz: got 30"),
    ("guard-interval", [*BSS, "guard_interval_ns"], 600, "bsses[0].guard_interval_ns: got 600"),
    ("mcs-range", [*BSS, "rate_manager"], {"kind": "constant", "mcs": 12}, "bsses[0].rate_manager.mcs: got 12"),
    ("mcs9-at-20mhz", [*BSS, "rate_manager"], {"kind": "constant", "mcs": 9}, "rate_manager.mcs: got VhtMcs9"),
    ("rate-manager-kind", [*BSS, "rate_manager"], {"kind": "arf"}, "bsses[0].rate_manager.kind: unknown variant `arf`"),
    ("spatial-streams", [*STA, "spatial_streams"], 5, "bsses[0].stations[0].spatial_streams: got 5"),
    ("ap-spatial-streams", [*BSS, "ap_radio"], {"spatial_streams": 0}, "bsses[0].ap_radio.spatial_streams: got 0"),
    ("max-ampdu", [*BSS, "max_ampdu_bytes"], 2_000_000, "bsses[0].max_ampdu_bytes: got 2000000"),
    ("rts-threshold", [*BSS, "rts_cts_threshold_bytes"], -1, "bsses[0].rts_cts_threshold_bytes"),
    ("queue-packets", [*BSS, "queue_packets"], 0, "bsses[0].queue_packets: got 0"),
    ("msdu-lifetime", [*BSS, "msdu_lifetime_ms"], -5, "bsses[0].msdu_lifetime_ms: got -5"),
    ("mtu", [*BSS, "mtu_bytes"], 9000, "bsses[0].mtu_bytes: got 9000"),
    ("tx-power", [*BSS, "tx_power_dbm"], 45, "bsses[0].tx_power_dbm: got 45"),
    ("noise-figure", [*BSS, "noise_figure_db"], -3, "bsses[0].noise_figure_db: got -3"),
    ("ap-not-an-ap", [*BSS, "ap"], "gw", 'bsses[0].ap: got "gw"'),
    ("station-not-a-sta", [*STA, "node"], "server", 'bsses[0].stations[0].node: got "server"'),
    ("position", [*STA, "placement"], {"position_m": [float("nan"), 0]}, "bsses[0].stations[0].placement"),
    (
        "edca-cw",
        [*BSS, "edca"],
        {"be": {"aifsn": 3, "cw_min": 10, "cw_max": 1023, "txop_limit_us": 0}},
        "edca.be.cw_min",
    ),
    ("edca-aifsn", [*BSS, "edca"], {"vo": {"aifsn": 1, "cw_min": 3, "cw_max": 7, "txop_limit_us": 0}}, "edca.vo.aifsn"),
    ("access-category", ["flows", 0, "access_category"], "xx", "flows[0].access_category: unknown variant `xx`"),
    ("unknown-bss-field", [*BSS, "colour"], "red", "bsses[0].colour: unknown field"),
    ("pathloss", [*BSS, "pathloss"], {"model": "log_distance", "exponent": 12}, "bsses[0].pathloss.exponent: got 12"),
    ("tgac-model", [*BSS, "pathloss"], {"model": "tgac", "channel_model": "a"}, "unknown variant `a`"),
    (
        "p1238-coefficient",
        [*BSS, "pathloss"],
        {"model": "itu_r1238", "power_loss_coefficient": 5},
        "bsses[0].pathloss.power_loss_coefficient: got 5",
    ),
    ("profile", [*BSS, "profile"], "ns2", "bsses[0].profile: unknown variant `ns2`"),
]


@pytest.mark.parametrize(("path", "value", "expected"), [c[1:] for c in BAD_BSSES], ids=[c[0] for c in BAD_BSSES])
def test_bad_bss_is_one_line_naming_the_field(cli, wifi_doc, write_doc, tmp_path, path, value, expected):
    doc = copy.deepcopy(wifi_doc)
    node: Any = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    out = tmp_path / "run"
    assert_one_clear_line(cli("run", write_doc(doc), "--out", out), expected)
    assert not out.exists()


def test_a_station_in_two_bsses_is_refused(cli, wifi_doc, write_doc):
    wifi_doc["nodes"].append({"id": "ap2", "kind": "ap"})
    wifi_doc["bsses"].append(
        {"id": "bss1", "ap": "ap2", "stations": [copy.deepcopy(wifi_doc["bsses"][0]["stations"][0])]}
    )
    assert_one_clear_line(cli("validate", write_doc(wifi_doc)), 'bsses[1].stations[0].node: got "sta0"')


def test_more_stations_than_association_ids_is_refused(cli, wifi_doc, write_doc):
    station = wifi_doc["bsses"][0]["stations"][0]
    for i in range(2008 - len(wifi_doc["bsses"][0]["stations"])):
        wifi_doc["nodes"].append({"id": f"extra{i}", "kind": "sta"})
        wifi_doc["bsses"][0]["stations"].append({**copy.deepcopy(station), "node": f"extra{i}"})
    assert_one_clear_line(cli("validate", write_doc(wifi_doc)), "bsses[0].stations: got 2008 stations")


def test_the_indoor_path_loss_models_set_the_rate_ideal_picks(wifi_doc):
    # Station 0 at 30 m, 16 dBm, noise -94 dBm at 20 MHz (5180 MHz). Free space: 76.3 dB, 34 dB of
    # SNR, MCS 8. TGac model B (breakpoint 5 m): 60.7 + 35 log10 6 = 88.0 dB, 22 dB: about MCS 7.
    # P.1238 with N = 31 and a 15 dB floor: 74.3 + 45.8 + 15 - 28 = 107.1 dB, 3 dB: MCS 0.
    doc = copy.deepcopy(wifi_doc)
    doc["bsses"][0]["rate_manager"] = {"kind": "ideal"}
    doc["bsses"][0]["stations"][0]["placement"]["position_m"] = [30.0, 0.0]

    def dl_mcs(pathloss: dict) -> float:
        doc["bsses"][0]["pathloss"] = pathloss
        w = cellcc.run(doc, seed=1).wifi
        return w[(w["station"] == "sta0") & (w["dir"] == "dl")]["mcs_mean"].mean()

    friis, tgac = dl_mcs({"model": "friis"}), dl_mcs({"model": "tgac", "channel_model": "b"})
    p1238 = dl_mcs({"model": "itu_r1238", "power_loss_coefficient": 31, "floor_penetration_loss_db": 15})
    assert friis >= 7.5 and 5 <= tgac < friis - 0.5 and p1238 <= 1, (friis, tgac, p1238)


def test_an_access_category_needs_a_bss(cli, write_doc):
    doc = Scenario.bundled("bottleneck").to_dict()
    doc["flows"][0]["access_category"] = "vi"
    assert_one_clear_line(cli("validate", write_doc(doc)), "flows[0].access_category")


# --- the ns-3 backend ---------------------------------------------------------------------------

from cellcc.backends.ns3 import plan as ns3_plan  # noqa: E402

from .test_ns3_backend import _record, _records, needs_ns3  # noqa: E402


def test_the_ns3_plan_maps_the_bss_with_the_engines_defaults_written_out():
    doc = Scenario.load(SEED000).to_dict()
    p = ns3_plan.plan(doc)
    bss = _record(p.text, "bss")
    assert (bss["width_mhz"], bss["mcs"], bss["manager"]) == ("20", "7", "ns3::ConstantRateWifiManager")
    # The standard's 2.528 ms BE TXOP and 500 TU lifetime, not ns-3's 0 and 500 ms.
    assert (bss["be_txop_limit_us"], bss["lifetime_s"], bss["queue"]) == ("2528", "0.512", "500")
    assert len(_records(p.text, "sta")) == 14
    assert _record(p.text, "run")["t0_s"] == "1.0", "the stations associate before t = 0"
    assert any("VHT-SIG-B" in n for n in p.notes)
    # Rate-limited writes are one MSS, as the engine's.
    assert _record(p.text, "flow")["write_bytes"] == "1000"
    doc["bsses"][0]["profile"] = "ns3"
    bss = _record(ns3_plan.plan(doc).text, "bss")
    assert (bss["be_txop_limit_us"], bss["lifetime_s"]) == ("0", "0.5")


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (["bsses", 0, "shadowing"], {"sigma_db": 4}, "bsses[0].shadowing"),
        (["bsses", 0, "pathloss"], {"model": "tr36814_uma"}, "bsses[0].pathloss.model"),
        (["bsses", 0, "pathloss"], {"model": "tgac", "channel_model": "d"}, "bsses[0].pathloss.model"),
        (["flows", 0, "access_category"], "vi", "flows[0].access_category"),
        (
            ["bsses", 0, "stations", 0, "placement", "mobility"],
            {"kind": "constant_velocity", "speed_kmh": 3},
            "bsses[0].stations[0].placement.mobility.kind",
        ),
    ],
)
def test_the_ns3_plan_refuses_what_it_does_not_map(path, value, field):
    doc = Scenario.load(SEED000).to_dict()
    node: Any = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(ns3_plan.NotSupported) as e:
        ns3_plan.plan(doc)
    assert e.value.path == field


@needs_ns3
def test_a_saturated_station_on_ns3_matches_the_engine_within_two_percent():
    from cellcc.backends.ns3 import run as ns3_run

    doc = {
        "version": 1,
        "duration_s": 1.0,
        "nodes": [{"id": "server", "kind": "host"}, {"id": "ap", "kind": "ap"}, {"id": "sta0", "kind": "sta"}],
        "links": [{"id": "wan", "a": "server", "b": "ap", "rate_mbps": 10000, "delay_ms": 1}],
        "bsses": [
            {
                "id": "bss0",
                "ap": "ap",
                "channel_width_mhz": 20,
                "profile": "ns3",
                "rate_manager": {"kind": "constant", "mcs": 7},
                "stations": [{"node": "sta0", "placement": {"position_m": [5, 0]}}],
            }
        ],
        "flows": [
            {"src": "server", "dst": "sta0", "transport": "udp", "app": {"kind": "cbr", "rate_mbps": 100}},
        ],
    }
    doc = Scenario.from_dict(doc).to_dict()
    ns3 = ns3_run.run(doc)
    engine = cellcc.run(doc, seed=1)
    a, b = engine.flows.loc[0, "throughput_bps"], ns3.flows.loc[0, "throughput_bps"]
    assert abs(a / b - 1) < 0.02, (a, b)
    # ns-3's wifi table: A-MPDUs of the aPPDUMaxTime limit (28 MPDUs of 1052 B at MCS 7), like the engine's.
    dl = ns3.wifi[(ns3.wifi["dir"] == "dl") & (ns3.wifi["t_s"] >= 0.2)]
    assert (dl["mcs_mean"] == 7).all() and dl["ampdu_mpdus_mean"].min() > 20
