"""LTE networks as a user runs them (docs/lte/network.md): the train example hands over at every
mast, the `handovers` table reaches the Result and the store, and bad network input is one line
naming the field."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import cellcc
from cellcc import Scenario

from .conftest import EXAMPLES
from .test_cli_errors import assert_one_clear_line

TRAIN = EXAMPLES / "lte_train_handover.toml"


@pytest.fixture
def train_doc() -> dict[str, Any]:
    """The train example, shortened to 8 s (one handover)."""
    doc = Scenario.load(TRAIN).to_dict()
    doc["duration_s"] = 8.0
    return doc


def test_the_train_hands_over_at_every_mast():
    result = cellcc.run(TRAIN)
    h = result.handovers
    # 500 m between masts at 300 km/h: a handover every 6 s, each to the next cell.
    assert h["source"].tolist() == ["c0", "c1", "c2", "c3"]
    assert h["target"].tolist() == ["c1", "c2", "c3", "c4"]
    assert h["t_s"].diff().dropna().round(3).tolist() == [6.0, 6.0, 6.0]
    assert (h["interruption_ms"] == 45.0).all(), "the operator profile's interruption"
    assert (h["forwarded_sdus"] > 0).all(), "lossless forwarding of the source's buffer"
    assert result.flows.loc[0, "goodput_bps"] > 10e6
    # The lte table follows the UE: its cell is the one serving it.
    dl = result.lte[result.lte["dir"] == "dl"]
    assert dl[dl["t_s"] < 5.0]["cell"].eq("c0").all() and dl[dl["t_s"] > 23.5]["cell"].eq("c4").all()
    # The neighbours are idle: their control regions carry reference signals, no DCIs, and the
    # train's DCIs get through up to each handover (1,712 of 23,075 were lost when every neighbour
    # counted at full power; 8 now).
    assert dl["control_losses"].sum() < 0.01 * dl["tbs"].sum()


def test_handovers_reach_the_store(cli, train_doc, write_doc, tmp_path: Path):
    out = tmp_path / "run"
    assert cli("run", write_doc(train_doc), "--out", out).exit_code == 0
    h = pd.read_parquet(out / "handovers.parquet")
    assert list(h.columns) == [
        "t_s",
        "ue",
        "source",
        "target",
        "interruption_ms",
        "forwarded_sdus",
        "lost_sdus",
    ]
    assert h["source"].tolist() == ["c0"]
    assert cellcc.Result.load(out).handovers.equals(h)
    # A run without a network has an empty one.
    assert cellcc.run("bottleneck").handovers.empty


def test_validate_json_shows_the_network_as_it_runs(cli, train_doc, write_doc):
    import json

    done = cli("validate", write_doc(train_doc), "--json")
    assert done.exit_code == 0, done.stderr
    handover = json.loads(done.stdout)["resolved"]["network"]["handover"]
    assert (handover["time_to_trigger_ms"], handover["forwarding"]) == (480, "lossless")
    train_doc["cells"][0]["profile"] = "lena"
    for c in train_doc["cells"]:
        c["profile"] = "lena"
    handover = json.loads(cli("validate", write_doc(train_doc), "--json").stdout)["resolved"]["network"]["handover"]
    assert (handover["time_to_trigger_ms"], handover["hysteresis_db"], handover["forwarding"]) == (256, 3.0, "seamless")


def _hex(doc: dict[str, Any]) -> None:
    doc["network"]["channel"]["hex_layout"] = {"rings": 1}


BAD_NETWORKS = [
    ("a3-offset-step", ["network", "handover", "a3_offset_db"], 0.3, "network.handover.a3_offset_db"),
    ("time-to-trigger", ["network", "handover", "time_to_trigger_ms"], 250, "network.handover.time_to_trigger_ms"),
    ("forwarding", ["network", "handover", "forwarding"], "some", "network.handover.forwarding"),
    ("filter", ["network", "handover", "filter_coefficient"], 10, "network.handover.filter_coefficient"),
    ("interruption", ["network", "handover", "interruption_ms"], -1, "network.handover.interruption_ms"),
    ("cell-channel", ["cells", 1, "channel"], {}, "cells[1].channel"),
    ("no-site", ["cells", 1, "site"], None, "cells[1].site"),
    ("site-both", ["cells", 1, "site"], {"position_m": [0, 0], "hex_cell": 0}, "cells[1].site"),
    ("hex-cell-without-layout", ["cells", 1, "site"], {"hex_cell": 2}, "cells[1].site.hex_cell"),
    ("profile-mix", ["cells", 1, "profile"], "lena", "cells[1].profile"),
    ("bandwidth-mix", ["cells", 1, "bandwidth_mhz"], 10, "cells[1].bandwidth_mhz"),
    ("fixed-sinr", ["cells", 0, "ues", 0, "sinr"], {"kind": "fixed", "db": 10}, "cells[0].ues[0].sinr.kind"),
    ("hst", ["network", "channel", "fading"], {"profile": "hst"}, "network.channel.fading.profile"),
    ("channel-field", ["network", "channel", "pathloss"], {"model": "nope"}, "network.channel.pathloss"),
    (
        "interferer-uplink",
        ["network", "channel", "interferers"],
        [{"position_m": [3000, 0], "uplink_load": {"kind": "full_buffer"}}],
        "network.channel.interferers[0].uplink_load",
    ),
]


@pytest.mark.parametrize(("path", "value", "expected"), [c[1:] for c in BAD_NETWORKS], ids=[c[0] for c in BAD_NETWORKS])
def test_bad_network_is_one_line_naming_the_field(cli, train_doc, write_doc, tmp_path, path, value, expected):
    doc = copy.deepcopy(train_doc)
    node: Any = doc
    for key in path[:-1]:
        node = node[key]
    if value is None:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    out = tmp_path / "run"
    assert_one_clear_line(cli("run", write_doc(doc), "--out", out), expected)
    assert not out.exists()


@pytest.mark.parametrize(
    ("text", "expected"),
    [("t_s,ue,rsrp_dbm\n0.2,train,-70\n", "header"), ("t_s,ue,cell,rsrp_dbm\n0.2,bus,c0,-70\n", "bus")],
    ids=["header", "unknown-ue"],
)
def test_a_bad_measurement_trace_is_one_line_naming_the_field(cli, train_doc, write_doc, tmp_path, text, expected):
    (tmp_path / "meas.csv").write_text(text, encoding="utf-8")
    train_doc["network"].setdefault("handover", {})["measurements"] = {"kind": "csv", "file": "meas.csv"}
    result = cli("run", write_doc(train_doc), "--out", tmp_path / "run")
    assert_one_clear_line(result, "network.handover.measurements.file")
    assert expected in result.stderr


def test_a_hex_cell_taken_twice_is_refused(cli, train_doc, write_doc):
    _hex(train_doc)
    train_doc["cells"][0]["site"] = {"hex_cell": 3}
    train_doc["cells"][1]["site"] = {"hex_cell": 3}
    assert_one_clear_line(cli("validate", write_doc(train_doc)), "cells[1].site.hex_cell")


def test_a_site_without_a_network_is_refused(cli, write_doc):
    doc = Scenario.load(EXAMPLES / "lte_single_ue.toml").to_dict()
    doc["cells"][0]["site"] = {"position_m": [0, 0]}
    assert_one_clear_line(cli("validate", write_doc(doc)), "cells[0].site")
