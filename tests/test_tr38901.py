"""TR 38.901 on the shared radio channel, as an LTE cell uses it: the UMi path loss in each LOS
state, a drawn state per link, the TDL fading profiles, and bad values named by field."""

from __future__ import annotations

from typing import Any

import pytest

import cellcc
from cellcc import Scenario

from .conftest import EXAMPLES
from .test_cli_errors import assert_one_clear_line


def _edge(pathloss: dict[str, Any], fading: dict[str, Any] | None = None) -> dict[str, Any]:
    """examples/lte_channel_edge.toml, 1 s, on a 3.5 GHz carrier from a 10 m, 20 dBm site, without
    the interferers and shadowing (so the serving link's state alone sets the SINR), its UE 300 m out."""
    doc = Scenario.load(EXAMPLES / "lte_channel_edge.toml").to_dict()
    doc["duration_s"] = 1.0
    ch = doc["cells"][0]["channel"]
    ch.update(pathloss=pathloss, dl_carrier_mhz=3500, ul_carrier_mhz=3500, interferers=[], shadowing=None)
    ch["enb"].update(height_m=10, tx_power_dbm=20)
    sinr = doc["cells"][0]["ues"][0]["sinr"]
    sinr["position_m"] = [300.0, 0.0]
    sinr["mobility"]["bounds_m"] = [290.0, -10.0, 310.0, 10.0]
    if fading is not None:
        ch["fading"] = fading
    return doc


def _dl_cqi(doc: dict[str, Any], seed: int = 1) -> float:
    lte = cellcc.run(doc, seed=seed).lte
    return float(lte[lte["dir"] == "dl"]["cqi"].dropna().mean())


def test_umi_los_beats_nlos_and_a_drawn_state_is_one_of_them():
    los = _dl_cqi(_edge({"model": "tr38901", "scenario": "umi", "condition": "los"}))
    nlos = _dl_cqi(_edge({"model": "tr38901", "scenario": "umi", "condition": "nlos"}))
    # At 300 m UMi LOS loses 98.2 dB, NLOS 121.4 dB (Table 7.4.1-1, 3.5 GHz): with 3 dBm per RB
    # and a -112.4 dBm noise floor per RB, 17 dB against -6 dB of SINR.
    assert los > nlos + 5
    # Pr_LOS(300 m) = 0.06 + e^(-300/36) 0.94 = 0.060: each run is in one state, mostly NLOS.
    drawn = [_dl_cqi(_edge({"model": "tr38901", "scenario": "umi"}), seed) for seed in range(1, 9)]
    assert all(min(abs(c - los), abs(c - nlos)) < 1.0 for c in drawn), (drawn, los, nlos)
    assert any(abs(c - nlos) < 1.0 for c in drawn)


@pytest.mark.parametrize("profile", ["tdl_a", "tdl_c", "tdl_d"])
def test_tdl_profiles_run_and_fade(profile):
    doc = _edge({"model": "tr38901", "scenario": "umi", "condition": "los"}, {"profile": profile, "speed_kmh": 30})
    doc["cells"][0]["channel"]["fading"]["delay_spread_ns"] = 300
    lte = cellcc.run(doc, seed=2).lte
    assert lte[lte["dir"] == "dl"]["cqi"].nunique() > 1


@pytest.mark.parametrize(
    ("pathloss", "fading", "expected"),
    [
        ({"model": "tr38901", "scenario": "city"}, None, "channel.pathloss"),
        ({"model": "tr38901", "condition": "maybe"}, None, "channel.pathloss"),
        ({"model": "tr38901"}, {"profile": "tdl_b"}, "cells[0].channel.fading.doppler_hz"),
        ({"model": "tr38901"}, {"profile": "eva", "delay_spread_ns": 300}, "cells[0].channel.fading.delay_spread_ns"),
    ],
)
def test_bad_tr38901_values_name_their_field(cli, write_doc, pathloss, fading, expected):
    assert_one_clear_line(cli("validate", write_doc(_edge(pathloss, fading))), expected)


def test_a_rural_macro_site_below_10_m_is_refused(cli, write_doc):
    doc = _edge({"model": "tr38901", "scenario": "rma"})
    assert cli("validate", write_doc(doc)).exit_code == 0
    doc["cells"][0]["channel"]["enb"]["height_m"] = 5
    assert_one_clear_line(cli("validate", write_doc(doc)), "cells[0].channel.enb.height_m")
