"""The NR cell as a user runs it: `cellcc run` on the NR example, the `nr` table in the store, the
resolved defaults, bad cell input as one line naming the field, and backends that cannot run it."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import cellcc
from cellcc import Scenario

from .conftest import EXAMPLES
from .test_cli_errors import assert_one_clear_line


@pytest.fixture
def nr_doc() -> dict[str, Any]:
    """examples/nr_single_ue.toml, shortened to 1 s."""
    doc = Scenario.load(EXAMPLES / "nr_single_ue.toml").to_dict()
    doc["duration_s"] = 1.0
    return doc


def test_run_writes_the_nr_table(cli, nr_doc, write_doc, tmp_path: Path):
    out = tmp_path / "run"
    result = cli("run", write_doc(nr_doc), "--out", out)
    assert result.exit_code == 0, result.stderr
    nr = pd.read_parquet(out / "nr.parquet")
    assert set(nr["dir"]) == {"dl", "ul"}
    assert set(nr["ue"]) == {"ue"} and set(nr["cell"]) == {"nr0"}
    dl = nr[nr["dir"] == "dl"]
    # 20 dB on 273 PRBs of DDDSU: hundreds of Mbit/s once TCP has opened its window.
    assert dl["phy_throughput_bps"].max() > 100e6
    assert (dl["phy_throughput_bps"] <= dl["capacity_bps"] * 1.0001).all()
    assert pd.read_parquet(out / "lte.parquet").empty, "no LTE cell in this scenario"
    flows = pd.read_parquet(out / "flows.parquet")
    assert flows.loc[0, "goodput_bps"] > 50e6


def test_nr_columns_match_the_engine():
    from cellcc.result import NR_COLUMNS

    doc = Scenario.load(EXAMPLES / "nr_single_ue.toml").to_dict()
    doc["duration_s"] = 0.2
    assert list(cellcc.run(doc, seed=1).nr.columns) == NR_COLUMNS
    assert list(cellcc.run("bottleneck", seed=1).nr.columns) == NR_COLUMNS


def test_an_nr_cell_and_an_lte_cell_share_one_core(nr_doc):
    """One scenario, one UPF/PGW router: the LTE UE's flow crosses the LTE cell, the NR UE's the NR cell."""
    lte = Scenario.load(EXAMPLES / "lte_single_ue.toml").to_dict()
    nr_doc["nodes"] += [{"id": "enb", "kind": "enb"}, {"id": "ue4g", "kind": "ue"}]
    nr_doc["links"].append({**lte["links"][1], "a": "upf", "b": "enb"})
    nr_doc["cells"] = [{**lte["cells"][0], "ues": [{**lte["cells"][0]["ues"][0], "node": "ue4g"}]}]
    nr_doc["flows"].append({**nr_doc["flows"][0], "id": "download4g", "dst": "ue4g"})
    result = cellcc.run(nr_doc, seed=1)
    flows = result.flows.set_index("flow_id")
    assert flows.loc["download", "rx_bytes"] > 0 and flows.loc["download4g", "rx_bytes"] > 0
    assert set(result.nr["ue"]) == {"ue"} and set(result.lte["ue"]) == {"ue4g"}
    # A 100 MHz NR cell at 20 dB carries several times what a 20 MHz LTE cell at 15 dB does.
    assert flows.loc["download", "rx_bytes"] > 3 * flows.loc["download4g", "rx_bytes"]


def test_validate_json_resolves_the_operator_profile(cli):
    doc = json.loads(cli("validate", str(EXAMPLES / "nr_single_ue.toml"), "--json").stdout)
    (cell,) = doc["resolved"]["nr_cells"]
    # nr/config.rs: n78 at 30 kHz on 100 MHz (273 PRBs, TS 38.101-1 Table 5.3.2-1), DDDSU with a
    # 10:2:2 special slot (GSMA), 256QAM tables, 4 HARQ retransmissions, PF, OLLA at 10 % BLER.
    assert (cell["numerology"], cell["bandwidth_mhz"], cell["carrier_ghz"]) == (1, 100, 3.5)
    assert cell["duplex"] == {"kind": "tdd", "pattern": "DDDSU", "special": cell["duplex"]["special"]}
    assert cell["profile"] == "operator"
    assert cell["harq"]["max_retx"] == 4
    assert cell["mcs_table"] == "qam256"
    assert cell["scheduler"] == "proportional_fair"
    assert cell["olla"]["target_bler"] == 0.1
    rlc = cell["ues"][0]["rlc"]
    assert (rlc["mode"], rlc["sn_bits"]) == ("am", 18)


BAD_CELLS = [
    ("numerology", ["nr_cells", 0, "numerology"], 5, "nr_cells[0].numerology"),
    ("bandwidth", ["nr_cells", 0, "bandwidth_mhz"], 7, "nr_cells[0].bandwidth_mhz"),
    ("bandwidth-fr1-max", ["nr_cells", 0, "bandwidth_mhz"], 200, "nr_cells[0].bandwidth_mhz"),
    ("tdd-pattern", ["nr_cells", 0, "duplex"], {"kind": "tdd", "pattern": "DDXU"}, "nr_cells[0].duplex.pattern"),
    ("mini-slot", ["nr_cells", 0, "pdsch"], {"mini_slot_symbols": 5}, "nr_cells[0].pdsch.mini_slot_symbols"),
    ("harq-retx", ["nr_cells", 0, "harq"], {"max_retx": 40}, "nr_cells[0].harq.max_retx"),
    ("csi-period", ["nr_cells", 0, "csi"], {"period_ms": 0}, "nr_cells[0].csi.period_ms"),
    ("mcs-table", ["nr_cells", 0, "mcs_table"], "qam1024", "nr_cells[0].mcs_table"),
    ("gnb-not-a-gnb", ["nr_cells", 0, "gnb"], "upf", "nr_cells[0].gnb"),
    ("ue-not-a-ue", ["nr_cells", 0, "ues", 0, "node"], "server", "nr_cells[0].ues[0].node"),
    ("sinr-range", ["nr_cells", 0, "ues", 0, "sinr", "db"], 99, "nr_cells[0].ues[0].sinr"),
    ("rlc-sn", ["nr_cells", 0, "ues", 0, "rlc"], {"mode": "am", "sn_bits": 10}, "nr_cells[0].ues[0].rlc"),
    ("unknown-cell-field", ["nr_cells", 0, "colour"], "red", "nr_cells[0].colour"),
    ("profile", ["nr_cells", 0, "profile"], "ns3", "nr_cells[0].profile"),
    ("olla-target", ["nr_cells", 0, "link_adaptation"], {"olla": {"target_bler": 0.7}}, "olla.target_bler"),
]


@pytest.mark.parametrize(("path", "value", "expected"), [c[1:] for c in BAD_CELLS], ids=[c[0] for c in BAD_CELLS])
def test_bad_nr_cell_is_one_line_naming_the_field(cli, nr_doc, write_doc, tmp_path, path, value, expected):
    doc = copy.deepcopy(nr_doc)
    node: Any = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    out = tmp_path / "run"
    assert_one_clear_line(cli("run", write_doc(doc), "--out", out), expected)
    assert not out.exists()


def test_a_ue_in_an_lte_and_an_nr_cell_is_refused(cli, nr_doc, write_doc):
    nr_doc["nodes"].append({"id": "enb", "kind": "enb"})
    nr_doc["cells"] = [{"id": "cell0", "enb": "enb", "ues": [{"node": "ue", "sinr": {"kind": "fixed", "db": 10}}]}]
    assert_one_clear_line(cli("validate", write_doc(nr_doc)), "nr_cells[0].ues[0].node")


def test_an_nr_ue_takes_no_lte_channel(cli, nr_doc, write_doc):
    nr_doc["nr_cells"][0]["ues"][0]["sinr"] = {"kind": "channel", "position_m": [100, 0]}
    assert_one_clear_line(cli("validate", write_doc(nr_doc)), "nr_cells[0].ues[0].sinr")


@pytest.mark.parametrize("backend", ["linux", "ns3"])
def test_other_backends_refuse_an_nr_cell(cli, nr_doc, write_doc, backend):
    assert_one_clear_line(cli("run", "--backend", backend, write_doc(nr_doc)), "nr_cells")


def test_pm_takes_a_ue_flows_capacity_from_its_nr_cell(nr_doc):
    from cellcc.metrics import pm_slots

    result = cellcc.run(nr_doc, seed=1)
    pm = pm_slots(result)
    dl = result.nr[result.nr["dir"] == "dl"].set_index("t_s")["capacity_bps"]
    # One flow in the cell: its share is the NR cell's whole capacity for the UE, not the 1 Gbit/s wire.
    assert pm["capacity_bps"].tolist() == dl.loc[pm["t_s"]].tolist()
    assert pm["a"].between(0, 1).all() and pm["pm"].notna().all()
