"""The ns-3 backend's mapping of a cell's channel model to LENA (python/cellcc/backends/ns3/
channel.py): each model's records (pure, no ns-3), the fading trace written from the engine's
generator, and one short one-UE LENA run with Friis path loss and EPA fading whose measured SINR
must be the link budget worked by hand plus the trace's own mean gain (skipped without ns-3).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import cellcc
from cellcc import Scenario, _core, builders
from cellcc.backends.ns3 import channel
from cellcc.backends.ns3 import plan as ns3_plan
from cellcc.backends.ns3.lte import as_lena
from cellcc.backends.ns3.records import NotSupported

from .test_ns3_backend import WHY_NOT, _record, _records

needs_ns3 = pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")
EXAMPLES = Path(__file__).parent.parent / "examples"


def channel_cell(ch: dict, placement: dict | None = None, duration_s: float = 2.0, bandwidth_mhz: float = 5) -> dict:
    """One UE placed by `placement` (default 3000 m east, static) in a cell with channel `ch`."""
    sinr = {"kind": "channel", "position_m": [3000.0, 0.0], **(placement or {})}
    # AM with the 1 MiB buffer the engine ran before profiles (LENA's 10 KiB would bound TCP here).
    ue = {"sinr": sinr, "rlc": {"mode": "am", "tx_buffer_bytes": 1048576}}
    flow = {"id": "down", "src": "server", "dst": "ue", "cca": "cubic", "app": {"kind": "bulk"}}
    sc = builders.lte_cell([ue], bandwidth_mhz, [flow], duration_s)
    sc["cells"][0]["channel"] = ch
    return Scenario.from_dict(sc).to_dict()


def _by_role(text: str, role: str) -> tuple[str, dict[str, str]]:
    obj = next(r for r in _records(text, "object") if r["role"] == role)
    return obj["type"], {a["name"]: a["value"] for a in _records(text, "attr") if a["role"] == role}


# --- carriers -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mhz", "downlink", "n"),
    [
        # TS 36.101 Table 5.7.3-1: N = N_Offs + 10 (F - F_low).
        (2120.0, True, 100),  # band 1: 0 + 10 x 10 (ns-3's default DL EARFCN)
        (1930.0, False, 18100),  # band 1 UL: 18000 + 10 x 10 (ns-3's default UL EARFCN)
        (1842.5, True, 1575),  # band 3: 1200 + 10 x 37.5
        (1747.5, False, 19575),  # band 3 UL: 19200 + 10 x 37.5
        (806.0, True, 6300),  # band 20: 6150 + 10 x 15
    ],
)
def test_carriers_become_earfcns(mhz, downlink, n):
    assert channel.earfcn(mhz, downlink, "x") == n


@pytest.mark.parametrize("mhz", [2120.05, 2600.0, 3500.0])
def test_carriers_off_the_raster_or_outside_fdd_bands_are_refused(mhz):
    with pytest.raises(NotSupported, match="EARFCN raster"):
        channel.earfcn(mhz, True, "c.dl_carrier_mhz")


# --- path loss, antenna, powers -------------------------------------------------------------


def test_friis_cell_sets_powers_noise_position_and_earfcns():
    ch = {
        "enb": {"position_m": [10, 20], "height_m": 25, "tx_power_dbm": 43},
        "ue_tx_power_dbm": 23,
        "ul_power_control": {"kind": "fixed"},
    }
    p = ns3_plan.plan(channel_cell(ch))
    chan = _record(p.text, "chan")
    assert (chan["dl_earfcn"], chan["ul_earfcn"], chan["enb_tx_dbm"], chan["ue_tx_dbm"]) == (
        "100",
        "18100",
        "43.0",
        "23.0",
    )
    assert (chan["enb_nf_db"], chan["ue_nf_db"]) == ("5.0", "9.0")  # engine = ns-3 defaults
    assert (chan["enb_x_m"], chan["enb_y_m"], chan["enb_z_m"]) == ("10.0", "20.0", "25.0")
    cell = _record(p.text, "cell")
    assert (cell["dl_earfcn"], cell["ul_earfcn"]) == ("100", "18100")
    assert _by_role(p.text, "pathloss") == ("ns3::FriisPropagationLossModel", {})
    assert _by_role(p.text, "enb_antenna") == ("ns3::IsotropicAntennaModel", {})
    assert _record(p.text, "ue") == {"idx": "0", "node": "3", "x_m": "3000.0", "y_m": "0.0", "z_m": "1.5"}
    assert _record(p.text, "mobility") == {"ue": "0", "model": "static"}
    assert not _records(p.text, "fading") and not _records(p.text, "interferer") and p.fading is None


def test_absent_channel_fields_take_the_engines_own_resolved_values():
    sc = channel_cell({"pathloss": {"model": "log_distance"}})
    resolved = json.loads(_core.resolve(json.dumps(sc)))["cells"][0]["channel"]
    p = ns3_plan.plan(sc)
    chan = _record(p.text, "chan")
    assert float(chan["enb_tx_dbm"]) == resolved["enb"]["tx_power_dbm"]
    assert float(chan["ue_nf_db"]) == resolved["ue_noise_figure_db"]
    # Under open-loop control LteUePowerControl sets every transmission's power; TxPower is P_CMAX.
    assert float(chan["ue_tx_dbm"]) == resolved["ul_power_control"]["p_cmax_dbm"]
    attrs = _by_role(p.text, "pathloss")[1]
    assert float(attrs["Exponent"]) == resolved["pathloss"]["exponent"]
    assert float(attrs["ReferenceLoss"]) == resolved["pathloss"]["reference_loss_db"]


def test_uplink_power_control_maps_to_lte_ue_power_control():
    # Default: open loop with LteUePowerControl's own defaults (lte-ue-power-control.cc).
    chan = _record(ns3_plan.plan(channel_cell({})).text, "chan")
    got = {k: chan[k] for k in chan if k.startswith(("ul_pc", "pc_"))}
    assert got == {
        "ul_pc": "open_loop",
        "pc_p0_nominal_dbm": "-80",
        "pc_p0_ue_db": "0",
        "pc_alpha": "1.0",
        "pc_pcmax_dbm": "23.0",
        "pc_psrs_offset": "7",
    }
    pc = {"kind": "open_loop", "p0_nominal_pusch_dbm": -100, "alpha": 0.8, "p_cmax_dbm": 20}
    chan = _record(ns3_plan.plan(channel_cell({"ul_power_control": pc})).text, "chan")
    assert (chan["pc_p0_nominal_dbm"], chan["pc_alpha"], chan["pc_pcmax_dbm"]) == ("-100", "0.8", "20.0")
    chan = _record(ns3_plan.plan(channel_cell({"ul_power_control": {"kind": "fixed"}})).text, "chan")
    assert chan["ul_pc"] == "fixed" and not any(k.startswith("pc_") for k in chan)


@pytest.mark.parametrize(
    ("pathloss", "type_id", "attrs"),
    [
        (
            {"model": "log_distance", "exponent": 3.5, "reference_distance_m": 10, "reference_loss_db": 60},
            "ns3::LogDistancePropagationLossModel",
            {"Exponent": "3.5", "ReferenceDistance": "10.0", "ReferenceLoss": "60.0"},
        ),
        (
            {"model": "okumura_hata", "environment": "suburban", "city": "medium"},
            "ns3::OkumuraHataPropagationLossModel",
            {"Environment": "SubUrban", "CitySize": "Medium"},
        ),
        ({"model": "itu_r1411_los"}, "ns3::ItuR1411LosPropagationLossModel", {}),
        (
            # metropolitan = k_f slope 1.5, which ns-3 gives for anything but Urban + Large city.
            {"model": "itu_r1411_nlos_over_rooftop", "street_width_m": 30, "metropolitan": True},
            "ns3::ItuR1411NlosOverRooftopPropagationLossModel",
            {
                "RooftopLevel": "20.0",
                "StreetsOrientation": "45.0",
                "StreetsWidth": "30.0",
                "BuildingsExtend": "80.0",
                "BuildingSeparation": "50.0",
                "Environment": "Urban",
                "CitySize": "Medium",
            },
        ),
    ],
)
def test_each_path_loss_model_maps_to_its_ns3_model(pathloss, type_id, attrs):
    ch = {"pathloss": pathloss, "dl_carrier_mhz": 1842.5, "ul_carrier_mhz": 1747.5}
    assert _by_role(ns3_plan.plan(channel_cell(ch)).text, "pathloss") == (type_id, attrs)


def test_p1411_medium_city_is_ns3s_urban_large():
    # ns-3 3.44 ItuR1411NlosOverRooftop GetLoss: k_f = -4 + 0.7 (f/925 - 1) for Urban + LargeCity.
    ch = {"pathloss": {"model": "itu_r1411_nlos_over_rooftop", "metropolitan": False}}
    assert _by_role(ns3_plan.plan(channel_cell(ch)).text, "pathloss")[1]["CitySize"] == "Large"


@pytest.mark.parametrize("model", ["tr36942_urban", "tr36814_uma", "tr36814_umi"])
def test_3gpp_tr_path_loss_ns3_lacks_is_refused_by_name(model):
    with pytest.raises(NotSupported) as e:
        ns3_plan.plan(channel_cell({"pathloss": {"model": model}}))
    assert e.value.path == "cells[0].channel.pathloss.model" and "TR 38.901" in e.value.why


def test_the_cost231_large_city_difference_is_said_with_its_size():
    ch = {"pathloss": {"model": "okumura_hata"}, "dl_carrier_mhz": 1842.5, "ul_carrier_mhz": 1747.5}
    # lf = log10 1842.5 = 3.26541, h_m = 1.5: COST 231 a(h_m) = (1.1 lf - 0.7) 1.5 - (1.56 lf - 0.8) = 0.0439;
    # ns-3's 3.2 (log10 17.625)^2 = 3.2 x 1.24613^2 = 4.9691: ns-3's loss is 4.93 dB lower.
    notes = ns3_plan.plan(channel_cell(ch, {"position_m": [1500.0, 0.0]})).notes
    assert any("4.93 dB lower" in n for n in notes)


def test_a_parabolic_enb_antenna_keeps_its_pattern():
    ant = {"kind": "parabolic", "orientation_deg": 30, "beamwidth_deg": 70, "max_attenuation_db": 25}
    p = ns3_plan.plan(channel_cell({"enb": {"antenna": ant}}))
    assert _by_role(p.text, "enb_antenna") == (
        "ns3::ParabolicAntennaModel",
        {"Orientation": "30.0", "Beamwidth": "70.0", "MaxAttenuation": "25.0"},
    )


# --- mobility -------------------------------------------------------------------------------


def test_mobility_models_map_to_ns3s_in_si_units():
    line = {"kind": "constant_velocity", "speed_kmh": 36, "heading_deg": 90}
    m = _record(ns3_plan.plan(channel_cell({}, {"mobility": line})).text, "mobility")
    # 36 km/h = 10 m/s, heading 90 degrees: (0, 10) m/s.
    assert m["model"] == "constant_velocity" and float(m["vx_mps"]) == pytest.approx(0, abs=1e-12)
    assert float(m["vy_mps"]) == pytest.approx(10.0)
    walk = {"kind": "random_walk", "speed_kmh": 3.6, "leg_s": 2, "bounds_m": [2990, -10, 3010, 10]}
    m = _record(ns3_plan.plan(channel_cell({}, {"mobility": walk})).text, "mobility")
    assert m == {"ue": "0", "model": "random_walk", "speed_mps": "1.0", "leg_s": "2.0"} | {
        "x0": "2990.0",
        "y0": "-10.0",
        "x1": "3010.0",
        "y1": "10.0",
    }
    wp = {"kind": "random_waypoint", "min_speed_kmh": 3.6, "max_speed_kmh": 7.2, "bounds_m": [2990, -10, 3010, 10]}
    m = _record(ns3_plan.plan(channel_cell({}, {"mobility": wp})).text, "mobility")
    assert (m["model"], m["min_mps"], m["max_mps"], m["pause_s"]) == ("random_waypoint", "1.0", "2.0", "0.0")


# --- fading ---------------------------------------------------------------------------------


def test_one_ue_replays_the_engines_own_fading_at_a_fixed_offset():
    p = ns3_plan.plan(channel_cell({"fading": {"profile": "epa"}}, duration_s=2.0))
    f = _record(p.text, "fading")
    # 500 ms warm-up + LENA's 1 ms minimum offset lead; 2000 scenario TTIs; one spare sample.
    assert (f["file"], f["rbs"], f["samples"], f["length_s"]) == ("fading.fad", "25", "2502", "2.502")
    # WindowSize = TraceLength - 1 ms: LENA's offset draw is uniform in [1, 1] ms and never redrawn.
    assert float(f["window_s"]) == pytest.approx(2.501)
    assert (p.fading.lead, p.fading.samples, p.fading.ue, p.fading.cell_id) == (501, 2502, 0, "cell0")


def test_several_ues_get_lenas_usual_random_window_and_it_is_said():
    sc = channel_cell({"fading": {"profile": "eva"}})
    sc["nodes"].append({"id": "ue2", "kind": "ue"})
    sc["cells"][0]["ues"].append({**sc["cells"][0]["ues"][0], "node": "ue2"})
    p = ns3_plan.plan(sc)
    f = _record(p.text, "fading")
    assert (f["samples"], f["length_s"], f["window_s"]) == ("10000", "10.0", "0.5")
    assert any("random offset per link" in n for n in p.notes)


def test_the_trace_file_is_the_engines_fading_in_lenas_layout(tmp_path: Path):
    from cellcc.backends.ns3.run import write_fading_trace

    trace = channel.FadingTrace('{"fading": {"profile": "epa"}}', "c0", 0, 6, 12, 3)
    write_fading_trace(trace, 7, tmp_path / "f.fad")
    rows = [[float(v) for v in line.split()] for line in (tmp_path / "f.fad").read_text().splitlines()]
    engine = _core.fading_trace_db('{"fading": {"profile": "epa"}}', 7, "c0", 0, 6, 9)
    assert len(rows) == 6 and all(len(r) == 12 for r in rows)
    for row, want in zip(rows, engine, strict=True):
        assert row[:3] == pytest.approx([want[0]] * 3, abs=1e-4)
        assert row[3:] == pytest.approx(want, abs=1e-4)


def test_shadowing_is_refused_by_name():
    doc = Scenario.load(EXAMPLES / "lte_channel_edge.toml").to_dict()
    with pytest.raises(NotSupported) as e:
        ns3_plan.plan(doc)
    assert e.value.path == "cells[0].channel.shadowing" and "buildings module" in e.value.why


def test_the_high_speed_train_is_refused_by_name():
    doc = channel_cell({"fading": {"profile": "hst", "scenario": 3}})
    with pytest.raises(NotSupported) as e:
        ns3_plan.plan(doc)
    assert e.value.path == "cells[0].channel.fading.profile" and "inter-carrier interference" in e.value.why


# --- one UE on LENA with path loss and fading -------------------------------------------------


@needs_ns3
def test_one_ue_friis_and_epa_lands_in_the_tables_at_the_link_budget_plus_fading():
    from cellcc.backends.ns3 import run as ns3_run

    sc = channel_cell({"enb": {"height_m": 1.5}, "fading": {"profile": "epa"}}, duration_s=1.5)
    out = ns3_run.run(sc)
    # Link budget per RB, 25 RBs at 2120 MHz, UE 3000 m away at the eNB's height:
    # 30 - 10 log10 25 = 16.0206 dBm; Friis 20 log10(4 pi 3000 / 0.1414118 m) = 108.5165 dB;
    # noise -174 + 10 log10 180e3 + 9 = -112.4473 dBm: SNR 16.0206 - 108.5165 + 112.4473 = 19.9514 dB.
    budget_db = 19.9514
    # LENA averages the linear SINR over RBs and TTIs: the budget times the trace's mean linear gain
    # over the run (engine TTIs 0..1499 of UE 0's downlink).
    gains = _core.fading_trace_db(json.dumps(sc["cells"][0]["channel"]), sc["seed"], "cell0", 0, 25, 1500)
    mean_gain_db = 10 * math.log10(sum(10 ** (g / 10) for row in gains for g in row) / (25 * 1500))
    assert out.summary["lte_dl_sinr_db"]["ue"] == pytest.approx(budget_db + mean_gain_db, abs=0.3)
    f = out.flows.iloc[0]
    assert f["throughput_bps"] > 2e6 and f["app_bytes_delivered"] > 200_000
    dl = out.lte[out.lte["dir"] == "dl"]
    assert len(dl) == 15 and dl["tbs"].sum() > 0


def test_waypoints_map_to_ns3s_waypoint_model_with_their_times():
    path = {
        "kind": "waypoints",
        "points": [{"t_s": 0.5, "position_m": [3050, 0]}, {"t_s": 2, "position_m": [3050, 40]}],
    }
    m = _record(ns3_plan.plan(channel_cell({}, {"mobility": path})).text, "mobility")
    assert m == {"ue": "0", "model": "waypoints", "points": "0.5:3050.0:0.0,2.0:3050.0:40.0"}


@needs_ns3
def test_a_ue_on_waypoints_sees_the_friis_budget_of_its_track():
    from cellcc.backends.ns3 import run as ns3_run

    # The constant-velocity drive below, 1000 m -> 1100 m in 1 s, as one waypoint: the same mean
    # SINR, 29.0799 dB, if LENA's UE starts on the start position at t = 0 and reaches the waypoint
    # at 1 s (held at the start it would show 29.49 dB).
    path = {"kind": "waypoints", "points": [{"t_s": 1.0, "position_m": [1100.0, 0.0]}]}
    sc = channel_cell({"enb": {"height_m": 1.5}}, {"position_m": [1000.0, 0.0], "mobility": path}, duration_s=1.0)
    assert ns3_run.run(sc).summary["lte_dl_sinr_db"]["ue"] == pytest.approx(29.0799, abs=0.1)


@needs_ns3
def test_a_ue_driving_away_sees_the_friis_budget_fall_along_its_track():
    from cellcc.backends.ns3 import run as ns3_run

    line = {"kind": "constant_velocity", "speed_kmh": 360, "heading_deg": 0}
    sc = channel_cell({"enb": {"height_m": 1.5}}, {"position_m": [1000.0, 0.0], "mobility": line}, duration_s=1.0)
    out = ns3_run.run(sc)
    # At 1000 m the budget is 19.9514 + 20 log10(3000 / 1000) = 29.4938 dB (the test above); the UE
    # drives to 1100 m at 100 m/s, so the linear mean over the second is the budget times
    # mean((d / 1000 m)^-2) = (1 - 1 / 1.1) / 0.1 = 0.90909, i.e. -0.4139 dB: 29.0799 dB
    # (a UE left standing, or moved during the warm-up, would show 29.49 dB or less than 29.0).
    assert out.summary["lte_dl_sinr_db"]["ue"] == pytest.approx(29.0799, abs=0.1)


def test_the_channel_crosscheck_example_plans_for_ns3():
    # docs/ns3.md's channel table: one UE, so LENA replays the engine's own fading on the same track.
    from cellcc.backends import frontend

    p = ns3_plan.plan(frontend.resolve(EXAMPLES / "crosscheck" / "lte-channel-drive.toml").to_dict())
    assert (_record(p.text, "chan")["dl_earfcn"], p.fading.lead) == ("1575", 501)
    assert _record(p.text, "mobility")["model"] == "constant_velocity"
    assert not any("fading" in n or "okumura" in n for n in p.notes)


def test_the_plan_says_which_downlink_mcs_rule_lena_runs():
    # LENA's PF takes the worst A30 sub-band (pf-ff-mac-scheduler.cc worstCqi), its RR the wideband P10
    # CQI: a note when the scenario's `cqi.dl_mcs_from` is the other rule, none when they agree.
    sc = channel_cell({"fading": {"profile": "epa"}})
    cell = sc["cells"][0]

    def notes() -> list[str]:
        return [n for n in ns3_plan.plan(sc).notes if "dl_mcs_from" in n]

    # Unset, the LENA profile takes each scheduler's own rule: no note.
    assert notes() == []
    cell["scheduler"] = "round_robin"
    assert notes() == []
    cell["cqi"] = cell.get("cqi", {}) | {"dl_mcs_from": "worst_subband"}
    assert "wideband P10" in notes()[0]
    cell["scheduler"] = "proportional_fair"
    cell["cqi"] = cell.get("cqi", {}) | {"dl_mcs_from": "wideband"}
    assert "worst A30 sub-band" in notes()[0]


# --- diagnostic options (CELLCC_NS3_DIAG, diag.cc; docs/ns3.md "Diagnostic options") ------------


def test_diag_options_fill_the_defaults_and_refuse_unknown_words(tmp_path: Path):
    from cellcc.backends.ns3 import run as ns3_run

    assert ns3_run.diag_record("") == ""
    assert ns3_run.diag_record("fading=dl") == "diag fading=dl ul_pc=off ul_cqi=srs srs_ms=scenario\n"
    trace = tmp_path / "t"
    assert ns3_run.diag_record(f"srs_ms=2 trace={trace}").endswith(f"srs_ms=2 trace={trace}\n")
    assert trace.is_dir()
    assert ns3_run.diag_record("fading=serving").startswith("diag fading=serving ")
    assert ns3_run.diag_record("fading=replay").startswith("diag fading=replay ")
    for bad in ("fading=ul", "srs_ms=3", "colour=red", "trace="):
        with pytest.raises(ValueError, match="CELLCC_NS3_DIAG"):
            ns3_run.diag_record(bad)


@needs_ns3
def test_diag_without_fading_measures_the_bare_budget_and_traces_the_packets(tmp_path: Path, monkeypatch):
    from cellcc.backends.ns3 import run as ns3_run

    monkeypatch.setenv(ns3_run.DIAG_ENV, f"fading=none trace={tmp_path}")
    out = ns3_run.run(channel_cell({"enb": {"height_m": 1.5}, "fading": {"profile": "epa"}}, duration_s=0.5))
    # No fading on either channel: the link budget worked by hand in the EPA test above.
    assert out.summary["lte_dl_sinr_db"]["ue"] == pytest.approx(19.9514, abs=0.05)
    assert any("diagnostic run" in n for n in out.summary["notes"])
    events = (tmp_path / "diag.csv").read_text().splitlines()
    assert events[0] == "t_ns,event,bytes,value"
    kinds = {line.split(",")[1] for line in events[1:]}
    # A TCP download: data SDUs into the eNB's RLC, ACKs out of the UE's PDCP and into the eNB's,
    # transport blocks both ways (no drops with the 1 MiB default buffer).
    assert {"dl_rlc_in", "ul_tx", "ul_rx", "dl_tb", "ul_tb"} <= kinds
    assert sum(line.split(",")[1] == "dl_rlc_in" for line in events) >= out.flows.iloc[0]["rx_packets"]


@needs_ns3
def test_diag_fading_on_the_downlink_only_keeps_the_downlink_fading(monkeypatch):
    from cellcc.backends.ns3 import run as ns3_run

    monkeypatch.setenv(ns3_run.DIAG_ENV, "fading=dl")
    sc = channel_cell({"enb": {"height_m": 1.5}, "fading": {"profile": "epa"}}, duration_s=0.5)
    out = ns3_run.run(sc)
    # The downlink sees the trace's mean gain over TTIs 0..499 on top of the budget, as without the option.
    gains = _core.fading_trace_db(json.dumps(sc["cells"][0]["channel"]), sc["seed"], "cell0", 0, 25, 500)
    mean_gain_db = 10 * math.log10(sum(10 ** (g / 10) for row in gains for g in row) / (25 * 500))
    assert out.summary["lte_dl_sinr_db"]["ue"] == pytest.approx(19.9514 + mean_gain_db, abs=0.3)


@needs_ns3
def test_diag_fading_on_the_serving_links_only_runs_an_interfered_cell_and_says_so(monkeypatch):
    from cellcc.backends.ns3 import run as ns3_run

    # `fading=serving` (diag.cc ServingLinkFading): the trace fades the serving eNB's links only, the
    # neighbour 500 m east keeps its path loss alone (docs/ns3.md, "TCP over an interfered cell").
    ch = {"enb": {"height_m": 30, "tx_power_dbm": 46}, "interferers": [{"position_m": [500, 0]}]}
    sc = channel_cell(ch | {"fading": {"profile": "epa"}}, {"position_m": [150.0, 0.0]}, duration_s=0.3)
    monkeypatch.setenv(ns3_run.DIAG_ENV, "fading=serving")
    out = ns3_run.run(sc)
    assert any("fading=serving" in n for n in out.summary["notes"])
    assert out.flows.iloc[0]["rx_bytes"] > 0
    assert math.isfinite(out.summary["lte_dl_ctrl_sinr_db"]["ue"])


@needs_ns3
def test_diag_replay_gives_an_interfered_cell_the_engines_own_fading(monkeypatch):
    from cellcc.backends.ns3 import run as ns3_run

    # `fading=replay`: `serving` with the one-UE trace layout (channel.py `_fading`), so LENA's serving
    # link replays the engine's TTI k at scenario time k ms and the neighbour keeps its path loss
    # alone, as in the engine: LENA's control-region SINR (every RB, every subframe) is its unfaded
    # SINR (`fading=none`) times the trace's mean gain over TTIs 0..299 (3.85 dB here). Random windows
    # of the 10 s trace (`fading=serving`) would give another mean.
    ch = {"enb": {"height_m": 30, "tx_power_dbm": 46}, "interferers": [{"position_m": [500, 0]}]}
    sc = channel_cell(ch | {"fading": {"profile": "epa"}}, {"position_m": [150.0, 0.0]}, duration_s=0.3)
    assert ns3_plan.plan(sc, replay_fading=True).fading.lead == 501
    assert ns3_plan.plan(sc).fading.lead == 0, "random windows of a 10 s trace without the option"
    gains = _core.fading_trace_db(json.dumps(sc["cells"][0]["channel"]), sc["seed"], "cell0", 0, 25, 300)
    mean_gain_db = 10 * math.log10(sum(10 ** (g / 10) for row in gains for g in row) / (25 * 300))
    ctrl_db = {}
    for mode in ("none", "replay"):
        monkeypatch.setenv(ns3_run.DIAG_ENV, f"fading={mode}")
        ctrl_db[mode] = ns3_run.run(sc).summary["lte_dl_ctrl_sinr_db"]["ue"]
    assert ctrl_db["replay"] == pytest.approx(ctrl_db["none"] + mean_gain_db, abs=0.05)


@needs_ns3
@pytest.mark.parametrize(("pc", "cqi", "mcs"), [({"kind": "fixed"}, 4, 6), ({"kind": "open_loop"}, 11, 20)])
def test_uplink_power_control_gives_lena_and_the_engine_the_same_uplink_mcs(pc, cqi, mcs):
    from cellcc.backends.ns3 import run as ns3_run

    sc = channel_cell({"enb": {"height_m": 1.5}, "ul_power_control": pc}, duration_s=1.5)
    # UE 3000 m away, Friis, 25 RBs, no fading. PL (DL, 2120 MHz) = 108.5165 dB; UL loss at 1930 MHz
    # 108.5165 + 20 log10(1930 / 2120) = 107.7012 dB; eNB noise -174 + 52.5527 + 5 = -116.4473 dBm per RB.
    # fixed: 10 - 13.9794 = -3.9794 dBm per RB on the band-wide SRS, SINR 4.7667 dB. open loop: the SRS
    # wants 13.9794 - 80 + 108.5165 = 42.5 dBm, capped at 23: 9.0206 dBm per RB, SINR 17.7667 dB.
    # Both sides take the UL CQI from the SRS by ns-3's Shannon gap (pf-ff-mac-scheduler.cc, BER 5e-5):
    # log2(1 + 10^0.47667 / 5.5293) = 0.625 -> CQI 4 -> MCS 6; log2(1 + 10^1.77667 / 5.5293) = 3.56 ->
    # CQI 11 -> MCS 20 (TS 36.213 Table 7.2.3-1; ns-3 lte-amc.cc McsToItbs / CQI-to-MCS tables).
    engine, lena = cellcc.run(as_lena(sc)[0]).lte, ns3_run.run(sc).lte
    for t in (engine, lena):
        ul = t[(t["dir"] == "ul") & (t["tbs"] > 0)]
        assert ul["tbs"].sum() > 100
        assert (ul["mcs_mean"] * ul["tbs"]).sum() / ul["tbs"].sum() == pytest.approx(mcs)
    assert (engine[engine["dir"] == "ul"]["cqi"].dropna() == cqi).all()
