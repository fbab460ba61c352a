"""Interfering cells on the ns-3 backend (python/cellcc/backends/ns3/interferers.py, docs/ns3.md):
the `icell` records follow the engine's own resolved geometry, `fraction` loads are refused by
name, and on LENA (skipped without ns-3) a static UE's control- and data-region SINR equal the
engine's wideband SINR for the same geometry, full-buffer and idle, within TOLERANCE_DB.

Tolerance: both sides use the same formulas (COST-231 Hata medium city, the parabolic pattern
-min(12 (phi/phi_3dB)^2, A_m), -174 dBm/Hz + NF per 180 kHz RB, the eNB's power spread evenly over
the band), no fading, no shadowing, all cells synchronised (LteHelper sets no propagation delay):
the measured differences are below 0.01 dB. 0.1 dB leaves room for float rounding and would still
catch one missing 46 dBm full-buffer cell 800 m away.
"""

from __future__ import annotations

import json
import math

import pytest

from cellcc import Scenario, _core, builders
from cellcc.backends.ns3 import interferers
from cellcc.backends.ns3 import plan as ns3_plan
from cellcc.backends.ns3.records import NotSupported

from .test_ns3_backend import WHY_NOT, _records

needs_ns3 = pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")
TOLERANCE_DB = 0.1
BANDWIDTH_MHZ = 10
N_RBS = 50


def hata_channel(**extra) -> dict:
    """Band 3 (COST-231 range), 46 dBm 70-degree sector at the origin facing +x, Hata medium city."""
    return {
        "dl_carrier_mhz": 1842.5,
        "ul_carrier_mhz": 1747.5,
        "enb": {"tx_power_dbm": 46, "height_m": 30, "antenna": {"kind": "parabolic", "beamwidth_deg": 70}},
        "pathloss": {"model": "okumura_hata", "environment": "urban", "city": "medium"},
        **extra,
    }


def saturated_ue_cell(ch: dict, xy: tuple[float, float], duration_s: float) -> dict:
    """One static UE at `xy` with a UDP flow above the cell's capacity, so it is backlogged in every subframe."""
    ue = {"sinr": {"kind": "channel", "position_m": list(xy)}, "rlc": {"mode": "um"}}
    flow = {
        "id": "down",
        "src": "server",
        "dst": "ue",
        "transport": "udp",
        "app": {"kind": "cbr", "rate_mbps": 60, "packet_bytes": 1200},
    }
    sc = builders.lte_cell([ue], BANDWIDTH_MHZ, [flow], duration_s)
    sc["cells"][0]["channel"] = ch
    return Scenario.from_dict(sc).to_dict()


def engine_sinr_db(sc: dict, xy: tuple[float, float]) -> tuple[float, float]:
    """The engine's wideband (data, control) downlink SINR of the UE at `xy`."""
    cell = sc["cells"][0]
    placement = json.dumps({"position_m": list(xy)})
    return _core.wideband_dl_sinr_db(json.dumps(cell["channel"]), placement, sc["seed"], cell["id"], N_RBS)


# --- records ----------------------------------------------------------------------------------


def test_the_hex_layout_becomes_one_enb_per_engine_cell_with_a_saturated_ue_on_its_boresight():
    sc = saturated_ue_cell(hata_channel(hex_layout={"rings": 1}), (150.0, 0.0), 0.2)
    p = ns3_plan.plan(sc)
    cells = _records(p.text, "icell")
    engine = _core.interfering_cells(json.dumps(sc["cells"][0]["channel"]))
    # 7 sites x 3 sectors, less the serving one; the engine's order and geometry.
    assert len(cells) == len(engine) == 20
    for rec, want in zip(cells, engine, strict=True):
        assert float(rec["x_m"]) == pytest.approx(want["x_m"]) and float(rec["y_m"]) == pytest.approx(want["y_m"])
        assert (float(rec["z_m"]), float(rec["tx_dbm"]), rec["load"]) == (30.0, 46.0, "full_buffer")
        assert (rec["antenna"], float(rec["beamwidth_deg"]), float(rec["max_att_db"])) == ("parabolic", 70.0, 20.0)
        # The UE 60 m out along the sector's boresight, fed at 1 Mbit/s per RB.
        heading = float(rec["orientation_deg"])
        dx, dy = float(rec["ue_x_m"]) - want["x_m"], float(rec["ue_y_m"]) - want["y_m"]
        assert (dx**2 + dy**2) ** 0.5 == pytest.approx(interferers.UE_DISTANCE_M)
        assert dx == pytest.approx(60.0 * math.cos(math.radians(heading)))
        assert float(rec["rate_bps"]) == 50e6
    # Full-buffer cells: the CQI follows the control region (LENA's PDSCH measure drops the interference
    # after a subframe the UE was not served).
    assert _records(p.text, "interference")[0]["cqi_sinr"] == "ctrl"
    assert any("20 interfering cells as LENA eNBs (20 full-buffer" in n for n in p.notes)


def test_idle_cells_keep_the_pdsch_cqi_and_a_mix_says_what_the_cqi_counts():
    idle = hata_channel(interferers=[{"position_m": [500, 0], "load": {"kind": "idle"}}])
    p = ns3_plan.plan(saturated_ue_cell(idle, (150.0, 0.0), 0.2))
    assert _records(p.text, "interference")[0]["cqi_sinr"] == "pdsch"
    mixed = hata_channel(
        interferers=[{"position_m": [500, 0], "load": {"kind": "idle"}}, {"position_m": [-500, 0], "tx_power_dbm": 40}]
    )
    p = ns3_plan.plan(saturated_ue_cell(mixed, (150.0, 0.0), 0.2))
    cells = _records(p.text, "icell")
    assert [(c["load"], c["tx_dbm"]) for c in cells] == [("idle", "46.0"), ("full_buffer", "40.0")]
    assert any("counts the 1 idle cells' control frames" in n for n in p.notes)


@pytest.mark.parametrize(
    ("extra", "path"),
    [
        ({"interferers": [{"position_m": [500, 0], "load": {"kind": "fraction", "fraction": 0.5}}]}, "interferers[0]"),
        ({"hex_layout": {"rings": 1, "load": {"kind": "fraction", "fraction": 0.3}}}, "hex_layout"),
    ],
)
def test_a_fractional_load_is_refused_by_name(extra, path):
    with pytest.raises(NotSupported) as e:
        ns3_plan.plan(saturated_ue_cell(hata_channel(**extra), (150.0, 0.0), 0.2))
    assert e.value.path == f"cells[0].channel.{path}.load.kind"
    assert "full_buffer" in e.value.why and "whole band" in e.value.why


def test_fading_with_interferers_uses_lenas_random_windows_and_says_every_link_fades():
    ch = hata_channel(interferers=[{"position_m": [500, 0]}], fading={"profile": "epa"})
    p = ns3_plan.plan(saturated_ue_cell(ch, (150.0, 0.0), 0.2))
    f = _records(p.text, "fading")[0]
    assert (f["samples"], f["window_s"]) == ("10000", "0.5")
    assert any("fades every link, the interfering cells' too" in n for n in p.notes)


def test_lenas_schedulable_rbs_drop_the_last_partial_rbg():
    # TS 36.213 Table 7.1.6.1-1: P = 2 at 25 RBs, 3 at 50, 4 at 100; LENA keeps floor(N / P) RBGs.
    assert [interferers.schedulable_rbs(n) for n in (6, 15, 25, 50, 75, 100)] == [6, 14, 24, 48, 72, 100]


# --- on LENA ----------------------------------------------------------------------------------


def _lena_vs_engine(ch: dict, xy: tuple[float, float], duration_s: float) -> tuple[dict, tuple[float, float]]:
    from cellcc.backends.ns3 import run as ns3_run

    sc = saturated_ue_cell(ch, xy, duration_s)
    return ns3_run.run(sc).summary, engine_sinr_db(sc, xy)


@needs_ns3
@pytest.mark.parametrize("load", ["full_buffer", "idle"])
def test_one_interferer_on_lena_gives_the_engines_data_and_control_sinr(load):
    # A 46 dBm omni neighbour 500 m east; the UE 150 m out on the serving sector's boresight.
    ch = hata_channel(interferers=[{"position_m": [500, 0], "load": {"kind": load}}])
    s, (data_db, ctrl_db) = _lena_vs_engine(ch, (150.0, 0.0), 0.1)
    assert s["lte_dl_ctrl_sinr_db"]["ue"] == pytest.approx(ctrl_db, abs=TOLERANCE_DB)
    assert s["lte_dl_data_sinr_db"]["ue"] == pytest.approx(data_db, abs=TOLERANCE_DB)
    # The CQI's SINR (LENA's ReportCurrentCellRsrpSinr) follows the engine's data region in both cases.
    assert s["lte_dl_sinr_db"]["ue"] == pytest.approx(data_db, abs=TOLERANCE_DB)
    if load == "full_buffer":
        # The neighbour's data frames covered its 48 schedulable RBs in every subframe.
        assert s["lte_interferer_rb_share"] == 1.0
        assert data_db == pytest.approx(ctrl_db, abs=1e-9)
    else:
        assert "lte_interferer_rb_share" not in s
        assert data_db > ctrl_db + 10


@needs_ns3
@pytest.mark.slow
@pytest.mark.parametrize("load", ["full_buffer", "idle"])
@pytest.mark.parametrize("xy", [(50.0, 0.0), (250.0, 0.0), (75.0, 129.9)])
def test_the_hex_layout_on_lena_gives_the_engines_sinr_across_the_cell(load, xy):
    # 20 cells (one ring of 3-sector sites, ISD 500 m); centre, cell edge on the boresight, sector edge.
    s, (data_db, ctrl_db) = _lena_vs_engine(hata_channel(hex_layout={"rings": 1, "load": {"kind": load}}), xy, 0.1)
    assert s["lte_dl_ctrl_sinr_db"]["ue"] == pytest.approx(ctrl_db, abs=TOLERANCE_DB)
    assert s["lte_dl_data_sinr_db"]["ue"] == pytest.approx(data_db, abs=TOLERANCE_DB)


# --- LENA's hybrid buildings path loss (channel.py `_hybrid_model`, channel.cc InstallBuildingInfo) --


def _hybrid_channel(**extra) -> dict:
    return hata_channel(pathloss={"model": "itu_r1411_hybrid", "city": "medium"}, **extra)


def test_hybrid_path_loss_maps_to_lenas_hybrid_model_with_its_shadowing_sigma():
    ch = _hybrid_channel(interferers=[{"position_m": [500, 0]}])
    p = ns3_plan.plan(saturated_ue_cell(ch, (150.0, 0.0), 0.1))
    obj = next(r for r in _records(p.text, "object") if r["role"] == "pathloss")
    attrs = {a["name"]: a["value"] for a in _records(p.text, "attr") if a["role"] == "pathloss"}
    assert obj["type"] == "ns3::HybridBuildingsPropagationLossModel"
    # No shadowing in the scenario: the buildings module's 7 dB default must be switched off.
    assert (attrs["Los2NlosThr"], attrs["CitySize"], attrs["ShadowSigmaOutdoor"]) == ("200.0", "Medium", "0.0")
    shadowed = saturated_ue_cell(_hybrid_channel(shadowing={"sigma_db": 6}), (150.0, 0.0), 0.1)
    p = ns3_plan.plan(shadowed)
    assert {a["name"]: a["value"] for a in _records(p.text, "attr")}["ShadowSigmaOutdoor"] == "6.0"
    assert any("once per link" in n for n in p.notes)
    with pytest.raises(NotSupported, match=r"cells\[0\]\.channel\.shadowing"):
        ns3_plan.plan(saturated_ue_cell(hata_channel(shadowing={"sigma_db": 6}), (150.0, 0.0), 0.1))
    street = _hybrid_channel()
    street["pathloss"]["street_width_m"] = 30
    with pytest.raises(NotSupported, match="street_width_m"):
        ns3_plan.plan(saturated_ue_cell(street, (150.0, 0.0), 0.1))


@needs_ns3
@pytest.mark.parametrize("x_m", [150.0, 260.0])
def test_hybrid_path_loss_on_lena_gives_the_engines_sinr(x_m):
    # 150 m: the serving link below Los2NlosThr (P.1411 LOS), 260 m: above it (NLOS over rooftops);
    # the neighbour 500 m east is 350 m and 240 m away, NLOS both times. No shadowing, no fading.
    ch = _hybrid_channel(interferers=[{"position_m": [500, 0]}])
    s, (data_db, ctrl_db) = _lena_vs_engine(ch, (x_m, 0.0), 0.1)
    assert s["lte_dl_ctrl_sinr_db"]["ue"] == pytest.approx(ctrl_db, abs=TOLERANCE_DB)
    assert s["lte_dl_data_sinr_db"]["ue"] == pytest.approx(data_db, abs=TOLERANCE_DB)


@needs_ns3
@pytest.mark.slow
def test_seed004s_geometry_on_lena_gives_the_engines_sinr():
    # li-celledge's cell (57 cells, 70-degree sectors, hybrid path loss with Los2NlosThr 1e6 m)
    # without shadowing or fading, a static UE 100 m out: ~50 s of LENA for 0.1 s (docs/ns3.md).
    from cellcc.studies import li_celledge

    ch = {k: v for k, v in li_celledge.CHANNEL.items() if k not in ("shadowing", "fading")}
    s, (data_db, ctrl_db) = _lena_vs_engine(ch, (100.0, 0.0), 0.1)
    assert s["lte_dl_ctrl_sinr_db"]["ue"] == pytest.approx(ctrl_db, abs=TOLERANCE_DB)
    assert s["lte_dl_data_sinr_db"]["ue"] == pytest.approx(data_db, abs=TOLERANCE_DB)
