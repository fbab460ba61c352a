"""A cell's `channel` model (docs/channel.md) on ns-3 3.44 LENA: what has a faithful ns-3
counterpart is mapped, the rest refused by field name. Pure: dict in, plan records out (run.py
writes the fading trace from the engine's generator).

Mapping (ns-3 file in brackets):
- carriers -> DL/UL EARFCN by TS 36.101 Table 5.7.3-1 as ns-3 tabulates it
  (lte-spectrum-value-helper.cc `g_eutraChannelNumbers`, FDD bands 1-21); LteHelper then sets each
  path-loss model's `Frequency` from the EARFCN (lte-helper.cc InstallSingleEnbDevice).
- powers and noise figures -> `LteEnbPhy::TxPower/NoiseFigure`, `LteUePhy::TxPower/NoiseFigure`.
- ul_power_control -> `LteUePhy::EnableUplinkPowerControl` (false for `fixed`); `open_loop` ->
  `LteUePowerControl` (lte-ue-power-control.cc) PoNominalPusch, PoUePusch, Alpha, Pcmax, PsrsOffset,
  ClosedLoop false: LENA's eNB sends TPC 0 dB (lte-fr-no-op-algorithm.cc DoGetTpc), so its default
  closed loop never moves f(i) and open loop is the same power (docs/channel.md).
- positions and heights -> node positions (x, y, z): ns-3's models read the heights from z.
- path loss -> `LteHelper::PathlossModel` and its attributes: friis -> Friis; log_distance ->
  LogDistance (Exponent, ReferenceDistance, ReferenceLoss); okumura_hata -> OkumuraHata
  (Environment, CitySize); itu_r1411_los -> ItuR1411Los; itu_r1411_nlos_over_rooftop ->
  ItuR1411NlosOverRooftop (RooftopLevel, StreetsOrientation, StreetsWidth, BuildingsExtend,
  BuildingSeparation; see `_p1411_city` for its k_f labels).
- eNB antenna -> `LteHelper::EnbAntennaModelType` ParabolicAntennaModel (Orientation, Beamwidth,
  MaxAttenuation: the same -min(12 (phi/phi_3dB)^2, A_m) as the engine, parabolic-antenna-model.cc).
- mobility -> static: ConstantPositionMobilityModel; constant_velocity:
  ConstantVelocityMobilityModel; random_walk: RandomWalk2dMobilityModel (Mode Time, Time = leg,
  constant Speed, uniform Direction, Bounds); random_waypoint: RandomWaypointMobilityModel
  (uniform Speed, constant Pause, RandomRectanglePositionAllocator over the bounds); waypoints:
  WaypointMobilityModel, the start position as a waypoint at t = 0, then each point. The random
  ones draw from ns-3's generator, so their track is another realization of the same process.
- fast fading -> `TraceFadingLossModel` (src/spectrum/model/trace-fading-loss-model.cc) fed with a
  trace cellcc writes from the engine's own generator (`_core.fading_trace_db`: per RB, per TTI,
  dB, its `LoadTrace` layout). One UE: the trace is that UE's engine realization
  laid out so that LENA's window offset (drawn in [1, 1] ms) puts engine TTI k at scenario time k ms:
  the same fading on both sides. Several UEs: LENA's usual use, a 10 s trace, a random offset per
  link redrawn every 0.5 s (its defaults), so each UE fades on its own.
  LENA applies the one model to the downlink and the uplink channels alike.

- interferers and the hexagonal layout -> one LENA eNB per interfering cell (interferers.py).

Refused: a `fraction` interferer load (interferers.py), TR 36.942
and TR 36.814 path loss (ns-3 3.44 has neither; its ThreeGpp* models are
TR 38.901's), log-normal shadowing (ns-3 has it only inside the buildings module, drawn per link
and not correlated along a track), TDD carriers, carriers off the EARFCN raster.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from .interferers import interferer_lines
from .records import NotSupported, record

#: TS 36.101 Table 5.7.3-1 as ns-3 3.44 tabulates it (lte-spectrum-value-helper.cc
#: g_eutraChannelNumbers), FDD bands: band, F_DL_low MHz, N_Offs-DL, N_DL range, F_UL_low MHz,
#: N_Offs-UL, N_UL range.
FDD_BANDS = (
    (1, 2110.0, 0, 0, 599, 1920.0, 18000, 18000, 18599),
    (2, 1930.0, 600, 600, 1199, 1850.0, 18600, 18600, 19199),
    (3, 1805.0, 1200, 1200, 1949, 1710.0, 19200, 19200, 19949),
    (4, 2110.0, 1950, 1950, 2399, 1710.0, 19950, 19950, 20399),
    (5, 869.0, 2400, 2400, 2649, 824.0, 20400, 20400, 20649),
    (6, 875.0, 2650, 2650, 2749, 830.0, 20650, 20650, 20749),
    (7, 2620.0, 2750, 2750, 3449, 2500.0, 20750, 20750, 21449),
    (8, 925.0, 3450, 3450, 3799, 880.0, 21450, 21450, 21799),
    (9, 1844.9, 3800, 3800, 4149, 1749.9, 21800, 21800, 22149),
    (10, 2110.0, 4150, 4150, 4749, 1710.0, 22150, 22150, 22749),
    (11, 1475.9, 4750, 4750, 4949, 1427.9, 22750, 22750, 22949),
    (12, 728.0, 5000, 5000, 5179, 698.0, 23000, 23000, 23179),
    (13, 746.0, 5180, 5180, 5279, 777.0, 23180, 23180, 23279),
    (14, 758.0, 5280, 5280, 5379, 788.0, 23280, 23280, 23379),
    (17, 734.0, 5730, 5730, 5849, 704.0, 23730, 23730, 23849),
    (18, 860.0, 5850, 5850, 5999, 815.0, 23850, 23850, 23999),
    (19, 875.0, 6000, 6000, 6149, 830.0, 24000, 24000, 24149),
    (20, 791.0, 6150, 6150, 6449, 832.0, 24150, 24150, 24449),
    (21, 1495.9, 6450, 6450, 6599, 1447.9, 24450, 24450, 24599),
)
#: The EARFCN raster: 100 kHz (TS 36.101 §5.7.3).
RASTER_MHZ = 0.1
#: km/h -> m/s.
MPS_PER_KMH = 1 / 3.6
#: LENA's fading-trace defaults (TraceFadingLossModel TraceLength 10 s, SamplesNum 10000, WindowSize 0.5 s).
LENA_TRACE_LENGTH_MS = 10_000
LENA_WINDOW_S = 0.5
#: Fading sample period: one TTI, TS 36.211 §4.1 (ns-3's traces and the engine's generator alike).
TTI_MS = 1
#: File the driver reads the fading trace from, in its output directory.
FADING_FILE = "fading.fad"


@dataclass(frozen=True)
class FadingTrace:
    """What run.py writes to FADING_FILE: the engine's DL fading of `ue`, `samples` TTIs, the first
    `lead` samples held at TTI 0 (ns-3 time before the scenario's t = 0, plus LENA's 1 ms offset)."""

    channel_json: str
    cell_id: str
    ue: int
    n_rbs: int
    samples: int
    lead: int


@dataclass
class ChannelPlan:
    lines: list[str]
    fading: FadingTrace | None
    notes: list[str]
    #: (DL, UL) EARFCN of the carriers.
    earfcns: tuple[int, int]


def earfcn(carrier_mhz: float, downlink: bool, path: str) -> int:
    """The EARFCN of an FDD carrier: N = N_Offs + (F - F_low) / 0.1 MHz (TS 36.101 §5.7.3)."""
    for band in FDD_BANDS:
        f_low, n_offs, lo, hi = band[1:5] if downlink else band[5:9]
        n = n_offs + (carrier_mhz - f_low) / RASTER_MHZ
        if lo - 1e-6 <= n <= hi + 1e-6 and abs(n - round(n)) < 1e-6:
            return round(n)
    raise NotSupported(path, carrier_mhz, "an FDD carrier on the 100 kHz EARFCN raster of bands 1-21 (LENA is FDD)")


def _p1411_city(metropolitan: bool) -> dict[str, str]:
    """ns-3's ItuR1411NlosOverRooftop takes k_f's medium-city slope 0.7 for Urban + Large city and
    the metropolitan 1.5 otherwise (its GetLoss, 3.44): the labels that give the engine's slope."""
    return {"Environment": "Urban", "CitySize": "Medium" if metropolitan else "Large"}


HATA_ENVIRONMENTS = {"urban": "Urban", "suburban": "SubUrban", "open_areas": "OpenAreas"}
HATA_CITIES = {"small": "Small", "medium": "Medium", "large": "Large"}


def ul_power_control_fields(v: dict) -> dict[str, object]:
    """The `chan` record's uplink power-control fields (ns-3 LteUePowerControl attributes), from
    the resolved `ul_power_control`."""
    if v["kind"] == "fixed":
        return {"ul_pc": "fixed"}
    return {
        "ul_pc": "open_loop",
        "pc_p0_nominal_dbm": int(v["p0_nominal_pusch_dbm"]),
        "pc_p0_ue_db": int(v["p0_ue_pusch_db"]),
        "pc_alpha": float(v["alpha"]),
        "pc_pcmax_dbm": float(v["p_cmax_dbm"]),
        "pc_psrs_offset": int(v["p_srs_offset"]),
    }


#: The engine's P.1411 street fields (spec.rs), the defaults of ns-3's
#: ItuR1411NlosOverRooftopPropagationLossModel (which the hybrid model cannot change) and that
#: model's attribute for each.
P1411_STREET = {
    "street_orientation_deg": (45.0, "StreetsOrientation"),
    "street_width_m": (20.0, "StreetsWidth"),
    "buildings_extent_m": (80.0, "BuildingsExtend"),
    "building_separation_m": (50.0, "BuildingSeparation"),
}


def _hata_attrs(pl: dict) -> dict[str, object]:
    """Okumura-Hata's `Environment` and `CitySize` (the hybrid model passes them on to its
    Okumura-Hata and P.1411 NLOS models)."""
    return {
        "Environment": HATA_ENVIRONMENTS[pl["environment"]],
        "CitySize": HATA_CITIES[pl["city"]],
    }


def _shadow_sigma_db(shadowing: dict | None) -> float:
    """The resolved shadowing's sigma, dB: 0 without shadowing."""
    return 0.0 if shadowing is None else float(shadowing["sigma_db"])


def _hybrid_model(pl: dict, shadowing: dict | None, path: str) -> tuple[str, dict[str, object]]:
    """LENA's hybrid buildings model with no buildings: every node outdoor (the driver gives each
    a MobilityBuildingInfo), so its outdoor branches are the engine's `itu_r1411_hybrid`; its own
    per-link shadowing (BuildingsPropagationLossModel, `ShadowSigmaOutdoor`, 7 dB unless set)
    carries the scenario's sigma, 0 without shadowing."""
    # HybridBuildingsPropagationLossModel creates its NLOS model inside itself and exposes none
    # of its street attributes (hybrid-buildings-propagation-loss-model.cc).
    for key, (ns3_default, _) in P1411_STREET.items():
        if float(pl[key]) != ns3_default:
            raise NotSupported(
                f"{path}.{key}",
                pl[key],
                f"{ns3_default:g} (ns-3's hybrid model keeps its P.1411 NLOS model's defaults)",
            )
    return "ns3::HybridBuildingsPropagationLossModel", {
        "Los2NlosThr": float(pl["los_threshold_m"]),
        **_hata_attrs(pl),
        "RooftopLevel": float(pl["rooftop_height_m"]),
        "ShadowSigmaOutdoor": _shadow_sigma_db(shadowing),
    }


def pathloss_model(pl: dict, path: str, shadowing: dict | None = None) -> tuple[str, dict[str, object]]:
    """The ns-3 TypeId and attributes of the engine's path-loss model (`pl` resolved: every field
    present; with the shadowing, which only the hybrid model carries), or NotSupported."""
    model = pl["model"]
    if model == "itu_r1411_hybrid":
        return _hybrid_model(pl, shadowing, path)
    if model == "friis":
        return "ns3::FriisPropagationLossModel", {}
    if model == "log_distance":
        return "ns3::LogDistancePropagationLossModel", {
            "Exponent": float(pl["exponent"]),
            "ReferenceDistance": float(pl["reference_distance_m"]),
            "ReferenceLoss": float(pl["reference_loss_db"]),
        }
    if model == "okumura_hata":
        return "ns3::OkumuraHataPropagationLossModel", _hata_attrs(pl)
    if model == "itu_r1411_los":
        return "ns3::ItuR1411LosPropagationLossModel", {}
    if model == "itu_r1411_nlos_over_rooftop":
        return "ns3::ItuR1411NlosOverRooftopPropagationLossModel", {
            "RooftopLevel": float(pl["rooftop_height_m"]),
            **{attr: float(pl[key]) for key, (_, attr) in P1411_STREET.items()},
            **_p1411_city(bool(pl["metropolitan"])),
        }
    raise NotSupported(
        f"{path}.model",
        model,
        "friis, log_distance, okumura_hata, itu_r1411_los, itu_r1411_nlos_over_rooftop or itu_r1411_hybrid "
        "(ns-3 3.44 has no TR 36.942 / TR 36.814 model; its ThreeGpp* models are TR 38.901's)",
    )


def hata_note(pl: dict, carrier_mhz: float, ue_height_m: float) -> str | None:
    """ns-3's COST-231 (above 1500 MHz) large-city a(h_m) is 3.2 (log10 11.75 h_m)^2, without the
    -4.97 dB of Hata's large-city formula and unlike COST 231's own a(h_m) (the small/medium-city
    one, which the engine uses; okumura-hata-propagation-loss-model.cc GetLoss): its loss is lower."""
    hata_links = {"okumura_hata": "", "itu_r1411_hybrid": " (the hybrid model's links beyond 1 km)"}
    model = pl["model"]
    if model not in hata_links or carrier_mhz <= 1500 or pl.get("city") != "large":
        return None
    lf, hm = math.log10(carrier_mhz), ue_height_m
    engine_a = (1.1 * lf - 0.7) * hm - (1.56 * lf - 0.8)
    ns3_a = 3.2 * math.log10(11.75 * hm) ** 2
    return (
        f"{model} at {carrier_mhz} MHz, city large: ns-3's COST-231 a(h_m) for a large city "
        f"(3.2 (log10 11.75 h_m)^2) makes its path loss {ns3_a - engine_a:.2f} dB lower than the engine's "
        f"at h_m = {hm} m{hata_links[model]} (okumura-hata-propagation-loss-model.cc)"
    )


def antenna_lines(role: str, antenna: dict | None) -> list[str]:
    """`object`/`attr` records of an eNB antenna (isotropic or parabolic)."""
    a = antenna or {"kind": "isotropic"}
    if a.get("kind", "isotropic") == "isotropic":
        return [record("object", role=role, type="ns3::IsotropicAntennaModel")]
    attrs = {
        "Orientation": float(a.get("orientation_deg", 0.0)),
        "Beamwidth": float(a.get("beamwidth_deg", 60.0)),
        "MaxAttenuation": float(a.get("max_attenuation_db", 20.0)),
    }
    return [record("object", role=role, type="ns3::ParabolicAntennaModel"), *_attr_lines(role, attrs)]


def _attr_lines(role: str, attrs: dict[str, object]) -> list[str]:
    return [record("attr", role=role, name=k, value=v) for k, v in attrs.items()]


def mobility_line(j: int, placement: dict, path: str) -> str:
    """One UE's `mobility` record (ns-3 model and its parameters, SI units)."""
    m = placement["mobility"]
    kind = m["kind"]
    if kind == "static":
        return record("mobility", ue=j, model=kind)
    if kind == "constant_velocity":
        v, h = float(m["speed_kmh"]) * MPS_PER_KMH, math.radians(float(m["heading_deg"]))
        return record("mobility", ue=j, model=kind, vx_mps=v * math.cos(h), vy_mps=v * math.sin(h))
    if kind == "waypoints":
        points = ",".join(":".join(repr(float(v)) for v in (w["t_s"], *w["position_m"])) for w in m["points"])
        return record("mobility", ue=j, model=kind, points=points)
    x0, y0, x1, y1 = (float(b) for b in m["bounds_m"])
    box = {"x0": x0, "y0": y0, "x1": x1, "y1": y1}
    if kind == "random_walk":
        speed = float(m["speed_kmh"]) * MPS_PER_KMH
        return record("mobility", ue=j, model=kind, speed_mps=speed, leg_s=float(m["leg_s"]), **box)
    if kind == "random_waypoint":
        lo, hi = float(m["min_speed_kmh"]) * MPS_PER_KMH, float(m["max_speed_kmh"]) * MPS_PER_KMH
        return record("mobility", ue=j, model=kind, min_mps=lo, max_mps=hi, pause_s=float(m["pause_s"]), **box)
    raise NotSupported(
        f"{path}.mobility.kind", kind, "static, constant_velocity, random_walk, random_waypoint or waypoints"
    )


def _fading(
    ch: dict, cell: dict, n_rbs: int, duration_s: float, warmup_s: float, path: str, interfered: bool, several: bool
) -> tuple:
    """The `fading` record and the trace run.py writes, or ([], None) without fading. `several`: the
    UEs have links to several eNBs of their own (a network), each faded from the one trace."""
    profile = (ch.get("fading") or {}).get("profile", "none")
    if profile == "none":
        return [], None, []
    if profile == "hst":
        raise NotSupported(
            f"{path}.fading.profile",
            profile,
            '"none", "epa", "eva" or "etu": the TS 36.101 B.3 train is a non-fading path whose effect is '
            "inter-carrier interference, which LENA does not model (its fading trace holds per-RB gains only)",
        )
    channel_json = json.dumps(ch)
    if len(cell["ues"]) == 1 and not interfered and not several:
        # LENA's offset is uniform in [1, (TraceLength - WindowSize) ms] = [1, 1]; WindowSize covers the run,
        # so the window never moves and ns-3 time T ms reads sample 1 + T = engine TTI T - warm-up.
        lead = 1 + round(warmup_s * 1e3)
        samples = lead + math.ceil(duration_s * 1e3) + 1
        window_s = (samples - TTI_MS) / 1e3
        notes = []
    else:
        lead, samples, window_s = 0, LENA_TRACE_LENGTH_MS, LENA_WINDOW_S
        notes = [
            f"{path}.fading: LENA replays one {LENA_TRACE_LENGTH_MS / 1e3:g} s trace of the engine's fading "
            "(UE 0's) at a random offset per link, redrawn every 0.5 s: the same statistics, not the "
            "engine's per-UE realizations"
        ]
        if interfered:
            notes.append(
                f"{path}.fading: LENA's TraceFadingLossModel fades every link, the interfering cells' too (each "
                "its own random window of the trace); the engine fades only the serving link (interference.rs)"
            )
    trace = FadingTrace(channel_json, cell["id"], 0, n_rbs, samples, lead)
    line = record(
        "fading", file=FADING_FILE, rbs=n_rbs, samples=samples, length_s=samples * TTI_MS / 1e3, window_s=window_s
    )
    return [line], trace, notes


def channel_plan(
    cell: dict,
    resolved_cell: dict,
    path: str,
    n_rbs: int,
    duration_s: float,
    warmup_s: float,
    replay_fading: bool = False,
    several_enbs: bool = False,
) -> ChannelPlan:
    """Records of a cell with a channel model: `chan`, path-loss and antenna objects, fading; the
    UEs' placement is `ue_placement_lines`. Values come from the engine's resolved view of the
    cell (`resolved_cell`), so an absent field means the engine's default here too.
    `replay_fading`: the one-UE trace layout even with interfering cells (the diagnostic
    `fading=replay`, which fades the serving eNB's links only). `several_enbs`: a network's, whose
    every UE has a link to each eNB (LENA's trace layout for several links, never the one-UE replay)."""
    ch, p = resolved_cell["channel"], f"{path}.channel"
    pathloss, shadowing, enb = ch["pathloss"], ch.get("shadowing"), ch["enb"]
    if shadowing is not None and pathloss["model"] != "itu_r1411_hybrid":
        raise NotSupported(
            f"{p}.shadowing",
            cell["channel"]["shadowing"],
            "absent, or with pathloss itu_r1411_hybrid: ns-3 has log-normal shadowing only in the buildings "
            "module (buildings-propagation-loss-model.cc), which LENA's hybrid model carries; its one correlated "
            "shadowing belongs to the TR 38.901 ThreeGpp* path-loss models, with their own sigma and distance",
        )
    dl_mhz, ul_mhz = float(ch["dl_carrier_mhz"]), float(ch["ul_carrier_mhz"])
    dl, ul = earfcn(dl_mhz, True, f"{p}.dl_carrier_mhz"), earfcn(ul_mhz, False, f"{p}.ul_carrier_mhz")
    x, y = (float(v) for v in enb["position_m"])
    type_id, attrs = pathloss_model(pathloss, f"{p}.pathloss", shadowing)
    lines = [
        record(
            "chan",
            dl_earfcn=dl,
            ul_earfcn=ul,
            enb_tx_dbm=float(enb["tx_power_dbm"]),
            enb_nf_db=float(enb["noise_figure_db"]),
            ue_tx_dbm=ue_tx_power_dbm(ch),
            **ul_power_control_fields(ch["ul_power_control"]),
            ue_nf_db=float(ch["ue_noise_figure_db"]),
            enb_x_m=x,
            enb_y_m=y,
            enb_z_m=float(enb["height_m"]),
        ),
        record("object", role="pathloss", type=type_id),
        *_attr_lines("pathloss", attrs),
        *antenna_lines("enb_antenna", enb.get("antenna")),
    ]
    icell_lines, notes = interferer_lines(cell["channel"], n_rbs, p)
    interfered = bool(icell_lines) and not replay_fading
    fading_lines, trace, fading_notes = _fading(ch, cell, n_rbs, duration_s, warmup_s, p, interfered, several_enbs)
    lines += icell_lines + fading_lines
    notes += fading_notes
    if shadowing is not None:
        notes.append(
            f"{p}.shadowing: ns-3's buildings module draws N(0, {_shadow_sigma_db(shadowing):g}^2) dB once per "
            "link (BuildingsPropagationLossModel), from its own random stream and not correlated along the "
            "UE's track: the same statistics as the engine's for a static UE, an approximation for one moving "
            f"far against decorrelation_m = {float(shadowing['decorrelation_m']):g} m"
        )
    h_ue = min(float(u["sinr"]["height_m"]) for u in resolved_cell["ues"])
    notes += [n for n in [hata_note(pathloss, dl_mhz, h_ue)] if n]
    return ChannelPlan(lines, trace, notes, (dl, ul))


def ue_tx_power_dbm(ch: dict) -> float:
    """`LteUePhy::TxPower`: the fixed power, or under open-loop control P_CMAX (LteUePowerControl
    then sets each transmission's power itself, lte-ue-phy.cc, so this is only its ceiling)."""
    pc = ch["ul_power_control"]
    return float(ch["ue_tx_power_dbm"] if pc["kind"] == "fixed" else pc["p_cmax_dbm"])


def ue_placement_lines(s: dict, j: int, node_idx: int, path: str) -> list[str]:
    """A channel-placed UE (its resolved `sinr`): its `ue` record (position, height) and its
    `mobility` record."""
    if s.get("kind") != "channel":
        raise NotSupported(f"{path}.kind", s.get("kind"), '"channel" (the cell has a channel model)')
    x, y = (float(v) for v in s["position_m"])
    z = float(s["height_m"])
    return [record("ue", idx=j, node=node_idx, x_m=x, y_m=y, z_m=z), mobility_line(j, s, path)]
