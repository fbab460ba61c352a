"""The ns-3 backend's LTE cell (issue 9): the LENA translation of a cellcc cell (pure, no ns-3
needed), and one short one-UE run on LENA whose results must land in the engine's tables and
whose measured SINR must be the scenario's (skipped without the ns3 wheel or g++).

The scenarios are plain dicts in the schema of the LTE cell (crates/cellcc-engine/src/scenario/
lte.rs on the lte-cell branch): the plan and the driver take dicts, so they are tested before
the engine validates cells.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path

import pytest

from cellcc import builders
from cellcc.backends.ns3 import lte
from cellcc.backends.ns3 import plan as ns3_plan

from .test_ns3_backend import WHY_NOT, _record, _records

needs_ns3 = pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")


def one_ue(db: float = 15.0, bandwidth_mhz: float = 20, rlc: dict | None = None, duration_s: float = 2.0) -> dict:
    """lte_single_ue.toml's shape: server -- pgw -- (S1-U, GTP-U) -- enb ~~ ue, one CUBIC bulk download."""
    ue = {"sinr": {"kind": "fixed", "db": db}, "rlc": rlc or {"mode": "am", "tx_buffer_bytes": 1048576}}
    flow = {"id": "down", "src": "server", "dst": "ue", "cca": "cubic", "app": {"kind": "bulk"}}
    return builders.lte_cell([ue], bandwidth_mhz, [flow], duration_s)


# --- SINR -> position: the formula of lte.py, worked by hand --------------------------------


def test_distance_for_15_db_at_20_mhz_worked_by_hand():
    # Loss needed: 30 dBm - 10 log10(100 x 180 kHz) + 174 - 9 dB - 15 dB
    #            = 30 - 72.5527 + 174 - 9 - 15 = 107.4473 dB.
    # Friis: d = c / (4 pi f) x 10^(L/20) = 299792458 / (4 pi x 2.12e9) x 10^(107.4473/20)
    #          = 0.0112532 m x 235,702 = 2652.4 m.
    assert lte.distance_for_dl_sinr_m(15.0, 100) == pytest.approx(2652.4, rel=1e-4)
    assert lte.dl_sinr_db(2652.4, 100) == pytest.approx(15.0, abs=1e-3)


def test_ue_power_gives_the_uplink_sinr_on_a_full_band_grant():
    # Uplink at 1930 MHz loses 20 log10(2120/1930) = 0.8155 dB less than the downlink at 2120 MHz:
    # 106.6318 dB at 2652.4 m. P = 15 + (-174 + 5) + 106.6318 + 72.5527 = 25.1845 dBm.
    assert lte.ue_tx_power_dbm(15.0, 2652.4, 100) == pytest.approx(25.1845, abs=1e-3)
    # The same PSD argument at 5 MHz: 25 RBs spread the same power 6.02 dB thinner per RB.
    assert lte.ue_tx_power_dbm(15.0, 2652.4, 25) == pytest.approx(25.1845 - 10 * math.log10(4), abs=1e-3)


def test_every_db_more_sinr_brings_the_ue_closer_by_a_factor_10_to_the_1_20():
    d = [lte.distance_for_dl_sinr_m(db, 50) for db in (0, 1, 20)]
    assert d[0] / d[1] == pytest.approx(10 ** (1 / 20))
    assert d[0] / d[2] == pytest.approx(10.0)


# --- the cell's records -----------------------------------------------------------------------


def test_plan_maps_the_cell_to_lena_and_the_epc():
    sc = one_ue(rlc={"mode": "am", "tx_buffer_bytes": 10240, "t_poll_retransmit_ms": 40})
    sc["cells"][0] |= {"scheduler": "round_robin", "control_errors": False, "cqi": {"period_ms": 2, "delay_ms": 4}}
    p = ns3_plan.plan(sc)
    assert [_record(p.text, "node")["role"]] + [r["role"] for r in _records(p.text, "node")[1:]] == [
        "plain",
        "pgw",
        "enb",
        "ue",
    ]
    assert _record(p.text, "epc") == {"s1u_rate_bps": "10000000000.0", "s1u_delay_s": "0.001", "s1u_mtu": "2000"}
    cell = _record(p.text, "cell")
    assert (cell["rbs"], cell["scheduler"], cell["harq"], cell["ctrl_errors"], cell["cqi_period_s"]) == (
        "100",
        "ns3::RrFfMacScheduler",
        "1",
        "0",
        "0.002",
    )
    rlc = _record(p.text, "rlc")
    assert (rlc["mode"], rlc["tx_buffer_bytes"], rlc["t_poll_retransmit_s"], rlc["t_status_prohibit_s"]) == (
        "am",
        "10240",
        "0.04",
        "0.01",
    )
    ue = _record(p.text, "ue")
    assert float(ue["distance_m"]) == pytest.approx(2652.4, rel=1e-4)
    # The S1-U link is the EPC's: only the internet link is built as a plain link.
    assert [r["idx"] for r in _records(p.text, "link")] == ["0"]
    assert p.link_names == {(0, 0): "internet:forward", (0, 1): "internet:reverse"}
    # The server reaches the UEs' network through the PGW; the PGW reaches it through the EPC.
    assert _records(p.text, "route") == [{"node": "0", "net": "ue", "via_link": "0"}]
    assert (p.cell_id, p.ue_ids) == ("cell0", ["ue"])
    assert "\nrun " in p.text and "t0_s=0.5" in p.text


def test_default_rlc_is_um_with_the_pdcp_discard_quirk_off_and_the_scheduler_pf():
    sc = one_ue()
    del sc["cells"][0]["ues"][0]["rlc"]
    p = ns3_plan.plan(sc)
    # The LENA profile's bearer: UM (RLC_UM_ALWAYS) with LteRlcUm's 10 KiB buffer and 100 ms t-Reordering.
    assert _record(p.text, "rlc") == {"mode": "um", "tx_buffer_bytes": "10240", "t_reordering_s": "0.1"}
    assert _record(p.text, "cell")["scheduler"] == "ns3::PfFfMacScheduler"


def test_static_routes_cover_a_chain_of_routers():
    sc = one_ue()
    sc["nodes"].insert(1, {"id": "r1", "kind": "router"})
    sc["links"][0]["b"] = "r1"
    sc["links"].append({"id": "core", "a": "r1", "b": "pgw", "rate_mbps": 1000, "delay_ms": 1})
    routes = _records(ns3_plan.plan(sc).text, "route")
    # Nodes: server 0, r1 1, pgw 2. Links: internet 0 (server-r1), s1u 1 (EPC), core 2 (r1-pgw).
    assert routes == [
        {"node": "0", "net": "link2", "via_link": "0"},
        {"node": "0", "net": "ue", "via_link": "0"},
        {"node": "1", "net": "ue", "via_link": "2"},
        {"node": "2", "net": "link0", "via_link": "2"},
    ]


def test_a_ramp_moves_the_ue_once_per_tti_and_stops_at_the_end():
    sc = one_ue(duration_s=3)
    sc["cells"][0]["ues"][0]["sinr"] = {"kind": "ramp", "from_db": 0, "to_db": 10, "start_s": 1, "duration_s": 1}
    p = ns3_plan.plan(sc)
    moves = _records(p.text, "move")
    assert len(moves) == 1000 and moves[0]["at_s"] == "1.001" and float(moves[-1]["at_s"]) == pytest.approx(2.0)
    assert float(_record(p.text, "ue")["distance_m"]) == pytest.approx(lte.distance_for_dl_sinr_m(0, 100))
    assert float(moves[499]["distance_m"]) == pytest.approx(lte.distance_for_dl_sinr_m(5, 100))
    assert float(moves[-1]["distance_m"]) == pytest.approx(lte.distance_for_dl_sinr_m(10, 100))


def test_a_wideband_sinr_csv_moves_the_ue_per_row(tmp_path: Path):
    (tmp_path / "sinr.csv").write_text("t_s,sinr_db\n0.5,20\n1.0,5\n")
    sc = one_ue()
    sc["cells"][0]["ues"][0]["sinr"] = {"kind": "csv", "file": "sinr.csv"}
    p = ns3_plan.plan(sc, base_dir=tmp_path)
    # Before the first row the first value holds: the UE starts at 20 dB's distance.
    assert float(_record(p.text, "ue")["distance_m"]) == pytest.approx(lte.distance_for_dl_sinr_m(20, 100))
    assert [(m["at_s"], round(float(m["distance_m"]))) for m in _records(p.text, "move")] == [
        ("0.5", round(lte.distance_for_dl_sinr_m(20, 100))),
        ("1.0", round(lte.distance_for_dl_sinr_m(5, 100))),
    ]


def _two_ues(sc: dict, rlc: dict) -> None:
    sc["nodes"].append({"id": "ue2", "kind": "ue"})
    sc["cells"][0]["ues"].append({"node": "ue2", "sinr": {"kind": "fixed", "db": 5}, "rlc": rlc})


def _more_ues_than_srs_subframes(sc: dict) -> None:
    """Three UEs in a cell sounding every 2 ms: LENA has two SRS subframes for them."""
    rlc = copy.deepcopy(sc["cells"][0]["ues"][0].get("rlc"))
    for node in ("ue2", "ue3"):
        sc["nodes"].append({"id": node, "kind": "ue"})
        sc["cells"][0]["ues"].append({"node": node, "sinr": {"kind": "fixed", "db": 5}, "rlc": rlc})
    sc["cells"][0]["uplink"] = {"srs_period_ms": 2}


@pytest.mark.parametrize(
    ("edit", "path", "why"),
    [
        (lambda sc: sc["cells"].append(copy.deepcopy(sc["cells"][0])), "cells", "one cell"),
        (lambda sc: sc["cells"][0]["ues"][0].update(rlc={"mode": "tm"}), "cells[0].ues[0].rlc.mode", "has no TM"),
        (
            lambda sc: sc["cells"][0]["ues"][0].update(rlc={"mode": "um", "sn_bits": 5}),
            "cells[0].ues[0].rlc.sn_bits",
            "512-SN window",
        ),
        (
            lambda sc: sc["cells"][0]["ues"][0].update(rlc={"mode": "am", "poll_pdu": 4}),
            "cells[0].ues[0].rlc.poll_pdu",
            "hard-coded",
        ),
        (
            lambda sc: sc["cells"][0]["ues"][0].update(rlc={"mode": "am", "on_max_retx": "discard"}),
            "cells[0].ues[0].rlc.on_max_retx",
            "hard-coded",
        ),
        (lambda sc: sc["cells"][0].update(harq={"max_retx": 2}), "cells[0].harq.max_retx", "rv == 3"),
        (lambda sc: sc["cells"][0].update(cqi={"period_ms": 1, "delay_ms": 6}), "cells[0].cqi.delay_ms", "pipeline"),
        (lambda sc: sc["cells"][0].update(scheduler="fair_share"), "cells[0].scheduler", "round_robin"),
        (
            _more_ues_than_srs_subframes,
            "cells[0].uplink.srs_period_ms",
            "own SRS subframe",
        ),
        (lambda sc: _two_ues(sc, {"mode": "um"}), "cells[0].ues[1].rlc", "per eNB"),
        (
            lambda sc: sc["links"].append({"id": "x", "a": "server", "b": "ue", "rate_mbps": 1}),
            "links[2]",
            "no wired link to a UE",
        ),
        (lambda sc: sc["links"][1].pop("tunnel"), "cells[0].enb", 'tunnel = "gtpu"'),
        (lambda sc: sc["links"][1].update(loss={"kind": "bernoulli", "p": 0.1}), "links[1].loss", "S1-U"),
    ],
)
def test_plan_refuses_what_lena_cannot_do_by_field(edit, path, why):
    sc = one_ue()
    edit(sc)
    with pytest.raises(ns3_plan.NotSupported) as e:
        ns3_plan.plan(sc)
    assert e.value.path == path and why in str(e.value)


def test_a_per_rb_sinr_csv_is_refused(tmp_path: Path):
    (tmp_path / "rb.csv").write_text("t_s,rb0,rb1\n0,10,11\n")
    sc = one_ue()
    sc["cells"][0]["ues"][0]["sinr"] = {"kind": "csv", "file": str(tmp_path / "rb.csv")}
    with pytest.raises(ns3_plan.NotSupported, match="per-RB"):
        ns3_plan.plan(sc)


def test_ns3_owns_the_sr_timing_and_says_so():
    sc = one_ue()
    sc["cells"][0]["uplink"] = {"sr_period_ms": 10, "grant_delay_ms": 4}
    assert any("sr_period_ms = 10" in n for n in ns3_plan.plan(sc).notes)


def test_every_operator_mechanism_the_scenario_asks_for_is_said_to_run_as_lenas():
    # LENA has none of these: ns-3 runs LENA's own, and each field gets one note naming it.
    sc = one_ue()
    sc["cells"][0] |= {
        "link_adaptation": {
            "ul_mcs_from": "effective_sinr",
            "ul_measurement": "srs_and_pusch",
            "olla": {"enabled": True},
        },
        "pdcch": {"capacity": True},
        "uplink": {"requests": "sr_bsr"},
        "mac": {"grant_sizing": "to_need", "status_pdu": "with_data", "last_rbg": "used", "pipeline": "immediate"},
    }
    notes = ns3_plan.plan(sc).notes
    for field in (
        "link_adaptation.ul_mcs_from",
        "link_adaptation.ul_measurement",
        "link_adaptation.olla",
        "pdcch.capacity",
        "uplink.requests",
        "mac.grant_sizing",
        "mac.status_pdu",
        "mac.last_rbg",
        "mac.pipeline",
    ):
        said = [n for n in notes if n.startswith(f"cells[0].{field} = ")]
        assert len(said) == 1 and "LENA has only its own" in said[0], (field, notes)
    assert not [n for n in ns3_plan.plan(one_ue()).notes if "LENA has only its own" in n]


# --- one UE on LENA ---------------------------------------------------------------------------


@needs_ns3
def test_one_ue_cubic_at_15_db_lands_in_the_tables_at_the_asked_sinr():
    from cellcc.backends.ns3 import run as ns3_run

    out = ns3_run.run(one_ue(db=15.0, duration_s=1.5))
    # LENA measures the SINR the position was chosen for (its RS SINR, linear mean over RBs).
    assert out.summary["lte_dl_sinr_db"]["ue"] == pytest.approx(15.0, abs=0.05)
    f = out.flows.iloc[0]
    # 15 dB on 100 RBs, SISO: CQI 9-10 in LENA's AMC, a few tens of Mbit/s; bulk CUBIC fills it.
    assert 15e6 < f["throughput_bps"] < 60e6 and f["app_bytes_delivered"] > 1_000_000
    assert list(out.lte.columns) == list(ns3_run.LTE_COLUMNS)
    dl = out.lte[(out.lte["dir"] == "dl")]
    assert len(dl) == 15 and (dl["ue"] == "ue").all() and (dl["cell"] == "cell0").all()
    # Decoded downlink PHY bits carry the flow's IP bytes (plus RLC/PDCP/MAC headers): at least as many.
    assert dl["phy_throughput_bps"].sum() * 0.1 >= f["rx_bytes"] * 8
    assert dl["mcs_mean"].dropna().between(0, 28).all()
    # ACKs flow up: uplink transport blocks exist.
    assert out.lte[out.lte["dir"] == "ul"]["tbs"].sum() > 0


@needs_ns3
@pytest.mark.slow
def test_three_ues_round_robin_with_an_uplink_flow_is_deterministic():
    from cellcc.backends.ns3 import run as ns3_run

    sc = one_ue(db=10, duration_s=1.5, rlc={"mode": "um"})
    for j, db in ((1, 20), (2, 0)):
        sc["nodes"].append({"id": f"ue{j}", "kind": "ue"})
        sc["cells"][0]["ues"].append({"node": f"ue{j}", "sinr": {"kind": "fixed", "db": db}, "rlc": {"mode": "um"}})
        rate = {"kind": "rate_limited", "rate_mbps": 1}
        sc["flows"].append({"id": f"f{j}", "src": "server", "dst": f"ue{j}", "cca": "newreno", "app": rate})
    sc["flows"].append({"id": "up", "src": "ue1", "dst": "server", "cca": "cubic", "app": {"kind": "bulk"}})
    sc["cells"][0]["scheduler"] = "round_robin"
    a, b = ns3_run.run(sc, seed=2), ns3_run.run(sc, seed=2)
    # Each UE sits at its own SINR's distance; LENA measures each one's.
    assert a.summary["lte_dl_sinr_db"] == pytest.approx({"ue": 10.0, "ue1": 20.0, "ue2": 0.0}, abs=0.05)
    flows = a.flows.set_index("flow_id")
    # The 1 Mbit/s sources get their rate (goodput over 1.5 s, the first RTT excepted) even at 0 dB.
    assert flows.loc[["f1", "f2"], "goodput_bps"].between(0.9e6, 1.01e6).all()
    assert flows.loc["up", "throughput_bps"] > 5e6 and flows.loc["up", "dst"] == "server"
    assert a.flows.equals(b.flows) and a.lte.equals(b.lte)


def test_what_lena_cannot_model_of_the_channel_is_refused_by_name_not_dropped():
    from cellcc import Scenario
    from cellcc.backends.ns3.records import NotSupported as PlanRefusal

    doc = Scenario.load(Path(__file__).parent.parent / "examples" / "lte_channel_edge.toml").to_dict()
    with pytest.raises(PlanRefusal) as refused:
        ns3_plan.plan(doc)
    # The rest of that channel maps (tests/test_ns3_channel.py); its correlated shadowing does not.
    assert refused.value.path == "cells[0].channel.shadowing"
    sweep = one_ue()
    sweep["cells"][0]["ues"][0]["sinr"] = {"kind": "sweep", "from_db": 20, "to_db": 5, "duration_s": 1}
    with pytest.raises(PlanRefusal) as refused:
        ns3_plan.plan(Scenario.from_dict(sweep).to_dict())
    assert refused.value.path == "cells[0].ues[0].sinr.kind"


@pytest.mark.parametrize("period_ms", [2, 40, 320])
def test_the_srs_period_reaches_lte_enb_rrc(period_ms: int):
    sc = one_ue()
    sc["cells"][0]["uplink"] = {"srs_period_ms": period_ms}
    cell = next(line for line in ns3_plan.plan(sc).text.splitlines() if line.startswith("cell "))
    assert f"srs_period_ms={period_ms}" in cell.split()
