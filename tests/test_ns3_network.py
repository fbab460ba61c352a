"""The ns-3 backend's networks (issue 34): the plan of several cells with X2 handover (pure), its
refusals by field, and the handover crosscheck on LENA: given LENA's measurement trace the engine
hands over within one TTI of LENA, and TCP's goodput is within 10 %.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from cellcc.backends.ns3 import plan as ns3_plan
from cellcc.backends.ns3.records import NotSupported
from cellcc.scenario import Scenario

from .test_ns3_backend import WHY_NOT, _record, _records

needs_ns3 = pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "crosscheck" / "lte-x2-handover.toml"


@pytest.fixture
def doc() -> dict[str, Any]:
    return Scenario.load(EXAMPLE).to_dict()


def test_a_network_plans_an_enb_per_cell_a3_and_each_ue_in_its_cell(doc):
    p = ns3_plan.plan(doc, base_dir=EXAMPLE.parent)
    net = _record(p.text, "net")
    assert (float(net["hysteresis_db"]), int(net["time_to_trigger_ms"])) == (3.0, 256)
    enbs = _records(p.text, "nenb")
    assert [(e["cell"], e["x_m"], e["y_m"]) for e in enbs] == [("0", "500.0", "500.0"), ("1", "1000.0", "500.0")]
    assert [(u["ue"], u["cell"]) for u in _records(p.text, "nue")] == [("0", "0")]
    chan = _record(p.text, "chan")
    # LENA's band 1 carriers and the example's powers reach the driver.
    assert (chan["dl_earfcn"], chan["ul_earfcn"], chan["enb_tx_dbm"], chan["ue_tx_dbm"]) == (
        "100",
        "18100",
        "46.0",
        "10.0",
    )
    # The S1-U links are the EPC's, not wired links; every eNB is one.
    assert [ln["idx"] for ln in _records(p.text, "link")] == ["0"]
    roles = {r["idx"]: r["role"] for r in _records(p.text, "node")}
    assert [roles[str(i)] for i in range(5)] == ["plain", "pgw", "enb", "enb", "ue"]
    assert (p.ue_ids, p.ue_cells, p.cell_ids) == (["ue"], ["cell1"], ["cell1", "cell2"])


def _set(doc: dict, path: list, value: Any) -> dict:
    out = copy.deepcopy(doc)
    node = out
    for key in path[:-1]:
        node = node.setdefault(key, {}) if isinstance(key, str) else node[key]
    node[path[-1]] = value
    return out


REFUSED = [
    (["network", "handover", "a3_offset_db"], 1.0, "network.handover.a3_offset_db"),
    (["network", "handover", "forwarding"], "lossless", "network.handover.forwarding"),
    (["network", "handover", "filter_coefficient"], 8, "network.handover.filter_coefficient"),
    (["cells", 1, "site", "tx_power_dbm"], 40, "cells[1].site.tx_power_dbm"),
    (["cells", 1, "site", "antenna"], {"kind": "parabolic"}, "cells[1].site.antenna"),
    (["network", "channel", "hex_layout"], {"rings": 1, "isd_m": 500}, "network.channel.hex_layout"),
    (["cells", 1, "scheduler"], "proportional_fair", "cells[1].scheduler"),
    (["links", 2, "delay_ms"], 5, "links[2].delay_ms"),
]


@pytest.mark.parametrize(("path", "value", "field"), REFUSED, ids=[r[2] for r in REFUSED])
def test_what_lena_cannot_run_is_refused_by_field(doc, path, value, field):
    with pytest.raises(NotSupported) as e:
        ns3_plan.plan(_set(doc, path, value), base_dir=EXAMPLE.parent)
    assert e.value.path == field


def test_sector_antennas_turn_each_enb_and_fading_replays_the_engines_trace(doc):
    # The example's isotropic eNBs carry no orientation, and without fading there is no trace.
    plain = ns3_plan.plan(doc, base_dir=EXAMPLE.parent)
    assert all("orientation_deg" not in e for e in _records(plain.text, "nenb")) and plain.fading is None
    antenna = {"kind": "parabolic", "beamwidth_deg": 70, "max_attenuation_db": 20}
    doc = _set(doc, ["network", "channel", "enb", "antenna"], antenna)
    doc = _set(doc, ["cells", 0, "site", "antenna"], {**antenna, "orientation_deg": 0.0})
    doc = _set(doc, ["cells", 1, "site", "antenna"], {**antenna, "orientation_deg": 180.0})
    doc = _set(doc, ["network", "channel", "fading"], {"profile": "epa"})
    p = ns3_plan.plan(doc, base_dir=EXAMPLE.parent)
    assert [e["orientation_deg"] for e in _records(p.text, "nenb")] == ["0.0", "180.0"]
    # The engine's fading of the network's channel, in LENA's 10 s trace layout (a random offset per link).
    assert p.fading is not None and (p.fading.cell_id, p.fading.samples) == ("cell1", 10_000)
    assert _record(p.text, "fading")["samples"] == "10000"


def test_the_handover_timing_lena_keeps_to_itself_is_a_note(doc):
    p = ns3_plan.plan(_set(doc, ["network", "handover", "interruption_ms"], 45.0), base_dir=EXAMPLE.parent)
    assert any(n.startswith("network.handover.interruption_ms = 45.0: LENA takes its own time") for n in p.notes)


@needs_ns3
def test_given_lenas_measurements_the_engine_hands_over_within_a_tti_and_tcp_goodput_is_within_10_percent(
    tmp_path: Path,
):
    from cellcc.backends import frontend

    sc = frontend.resolve(str(EXAMPLE))
    table, runs, _ = frontend.crosscheck(sc, ["cubic"], 1, tmp_path / "x.png", against="ns3")
    h = table.attrs["handovers"]
    assert len(h) == 1, h
    row = h.iloc[0]
    assert (row["engine_cells"], row["ns3_cells"]) == ("cell1 -> cell2", "cell1 -> cell2")
    assert row["within_tti"] and row["diff_ms"] <= 1.0, row
    # The UE crosses the 3 dB margin (Friis: 20 log10 of the distance ratio) near x = 793 m, ~9.7 s in.
    assert 9.5 < row["ns3_t_s"] < 11.0
    engine = runs[runs["backend"] == "engine"].iloc[0]
    ns3 = runs[runs["backend"] == "ns3"].iloc[0]
    assert abs(engine["throughput_mbps"] / ns3["throughput_mbps"] - 1) < 0.10, (engine, ns3)
    assert json.dumps(float(row["ns3_interruption_ms"]))  # LENA's interruption was traced


@needs_ns3
def test_lenas_handovers_and_measurements_land_in_the_tables(doc):
    from cellcc.backends.ns3 import run as ns3_run

    doc["duration_s"] = 11.0
    out = ns3_run.run(doc, seed=1, base_dir=EXAMPLE.parent)
    assert list(out.handovers["source"]) == ["cell1"] and list(out.handovers["target"]) == ["cell2"]
    m = out.measurements
    # LteUePhy reports every 200 ms, both cells each time.
    assert set(m["cell"]) == {"cell1", "cell2"} and len(m) == 2 * 55
    # The lte table's cell is the serving one: cell2 after the handover.
    lte = out.lte[out.lte["dir"] == "dl"]
    assert lte[lte["t_s"] < 10.0]["cell"].eq("cell1").all()
    assert lte[lte["t_s"] > 10.5]["cell"].eq("cell2").all()


@pytest.mark.slow
@needs_ns3
def test_the_hex_network_has_the_engines_geometry_and_full_load_sinr_in_lena(monkeypatch):
    """The 7-site network without fading (docs/lte/network.md, "Explained: 13 against 18"): LENA's
    RSRP of every UE to every cell, relative to its own cell, is the engine's; and with LENA's CQI
    on the control region (every cell sends there in every subframe) its SINR is the engine's
    full-load SINR, UE by UE."""
    import importlib.util

    import pandas as pd

    from cellcc.backends.frontend import DocScenario
    from cellcc.backends.ns3 import run as ns3_run

    script = Path(__file__).resolve().parent.parent / "scripts" / "ns3_evidence" / "hex_network_sinr.py"
    spec = importlib.util.spec_from_file_location("hex_network_sinr", script)
    assert spec is not None and spec.loader is not None
    ev = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ev)
    doc = ev.hex_network(0.1)
    doc["network"]["channel"]["fading"] = {"profile": "none"}
    sc = DocScenario(doc, str(script))
    monkeypatch.setenv(ns3_run.NS3_DEFAULTS_ENV, "ns3::LteHelper::UsePdschForCqiGeneration=false")
    lena = ns3_run.run(sc.to_dict(), seed=sc.seed, base_dir=script.parent)
    assert ev.rsrp_check(doc, sc.seed, lena.measurements).abs().max() < 0.2
    # The control region's SINR does not depend on the cells' load: the whole run's mean.
    gap_db = pd.Series(lena.summary["lte_dl_sinr_db"]) - ev.geometry(doc, sc.seed).geo_db
    assert len(gap_db) == 210 and gap_db.abs().max() < 0.2, gap_db.describe()
