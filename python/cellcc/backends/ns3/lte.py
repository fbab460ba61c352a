"""The LTE part of the ns-3 plan: a cellcc cell (scenario `cells`, node kinds `enb`/`ue`) as an
ns-3 LENA cell with its EPC. Pure: dict in, plan records out; reads a SINR CSV file if the
scenario names one.

Mapping (ns-3 3.44, src/lte):
- the cell -> `LteHelper` + `PointToPointEpcHelper`; the scenario's gateway router (the far end of
  the eNB's `tunnel = "gtpu"` link) is the EPC's PGW node, and that link is the EPC's S1-U
  (`S1uLinkDataRate`, `S1uLinkDelay`, `S1uLinkMtu`). ns-3's SGW sits between them on an S5 link
  of 10 Gbit/s and 0 ms (`NoBackhaulEpcHelper` S5Link* defaults): no delay, no queue.
- bandwidth -> `LteEnbNetDevice::DlBandwidth`/`UlBandwidth` in RBs (TS 36.101 Table 5.6-1);
  scheduler -> `LteHelper::SetSchedulerType`; HARQ -> the scheduler's `HarqEnabled` (its
  3 retransmissions are hard-coded: pf-ff-mac-scheduler.cc, "rv == 3 ... drop process");
  control errors -> `LteSpectrumPhy::CtrlErrorModelEnabled`; CQI period ->
  `LteUePhy::DownlinkCqiPeriodicity`; RLC mode -> `LteEnbRrc::EpsBearerToRlcMapping`
  (RlcUmAlways / RlcAmAlways); RLC buffer and timers -> `LteRlcUm`/`LteRlcAm` attributes.
- fixed SINR -> a position. ns-3 has no "SINR" knob: the UE is placed at the distance where
  Friis path loss (LteHelper's default `FriisPropagationLossModel`, at the EARFCN's carrier)
  gives that downlink SINR. With one cell there is no interference, so per RB (lte-spectrum-
  value-helper.cc: eNB PSD = TxPower / (nRB x 180 kHz) on every RB, noise PSD = -174 dBm/Hz + NF):

      SINR_dl = P_enb - 10 log10(nRB x 180 kHz) - L_friis(d, f_dl) + 174 - NF_ue     (dB, dBm)
      L_friis(d, f) = 20 log10(4 pi d f / c)

  solved for d. The uplink: LENA spreads the UE's power over the RBs it was granted
  (CreateUlTxPowerSpectralDensity), so the driver turns uplink power control off and sets the
  UE's TxPower so that a full-band grant sees the uplink SINR (`ul_db`, else the downlink's);
  a grant of n RBs sees 10 log10(nRB / n) dB more. Ramp and wideband CSV SINR move the UE
  (radially, one position per TTI for a ramp, one per CSV row) along the same formula.
- UEs attach (ideal RRC) during a warm-up before the scenario's t = 0 (`ATTACH_WARMUP_S`); every
  time in the plan and the tables is scenario time.
- the cell's profile: ns-3 is LENA, so the backend runs every cell under the engine's `lena`
  profile ([`as_lena`]); every value comes from the engine's resolved view of that cell, and a
  field the scenario sets against LENA's own mechanism (the operator's outer loop, CCE budget,
  effective-SINR uplink MCS, ...) is said in `summary.notes`, since LENA has no such mechanism.

Refused (no LENA counterpart): an `uplink.srs_period_ms` shorter than the cell has UEs (LENA gives
each UE its own SRS subframe), more than one cell, RLC TM, UM with 5-bit SNs, AM polling and
maxRetx settings other than ns-3's hard-coded ones (lte-rlc-am.cc constructor), HARQ other than
0 or 3 retransmissions, per-RB SINR CSVs, links to a UE or (other than S1-U) to the eNB, and
per-UE RLC settings that differ (ns-3 sets them per eNB RRC / as attribute defaults).
"""

from __future__ import annotations

import copy
import csv
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .channel import FadingTrace, channel_plan, ue_placement_lines
from .records import NotSupported, record

#: ns-3 3.44 defaults the SINR-to-position mapping rests on (src/lte/model).
#: LteEnbPhy::TxPower (lte-enb-phy.cc).
ENB_TX_POWER_DBM = 30.0
#: LteUePhy::NoiseFigure (lte-ue-phy.cc).
UE_NOISE_FIGURE_DB = 9.0
#: LteEnbPhy::NoiseFigure (lte-enb-phy.cc).
ENB_NOISE_FIGURE_DB = 5.0
#: kT at T0 = 290 K (LteSpectrumValueHelper::CreateNoisePowerSpectralDensity, "kT_dBm_Hz").
THERMAL_NOISE_DBM_HZ = -174.0
#: One resource block: 12 subcarriers x 15 kHz (TS 36.211 Table 6.2.3-1; lte-spectrum-value-helper.cc).
RB_BANDWIDTH_HZ = 180e3
#: LteEnbNetDevice::DlEarfcn / UlEarfcn defaults: band 1 (TS 36.101 Table 5.7.3-1):
#: F_DL = 2110 + 0.1 (100 - 0) MHz, F_UL = 1920 + 0.1 (18100 - 18000) MHz.
DL_EARFCN, UL_EARFCN = 100, 18100
DL_FREQ_HZ, UL_FREQ_HZ = 2120e6, 1930e6
#: FriisPropagationLossModel's speed of light (propagation-loss-model.cc), m/s.
SPEED_OF_LIGHT_M_S = 299792458.0
#: A ramp moves the UE once per TTI (TS 36.211 §4.1: 1 ms subframe), the granularity at which
#: LENA evaluates path loss (one spectrum transmission per TTI).
RAMP_STEP_S = 0.001
#: Ideal-RRC attach (LteHelper::Attach, random access, RRC connection, default bearer) completes
#: within tens of ms in LENA; half a second of warm-up before the scenario's t = 0 leaves margin.
ATTACH_WARMUP_S = 0.5
#: cellcc scheduler -> LENA FemtoForum MAC scheduler TypeId (src/lte/model/*-ff-mac-scheduler.cc).
SCHEDULERS = {
    "proportional_fair": "ns3::PfFfMacScheduler",
    "round_robin": "ns3::RrFfMacScheduler",
    "max_throughput": "ns3::FdMtFfMacScheduler",
}
#: TS 36.101 Table 5.6-1: channel bandwidth (MHz) -> resource blocks.
BANDWIDTH_RBS = {1.4: 6, 3.0: 15, 5.0: 25, 10.0: 50, 15.0: 75, 20.0: 100}
#: LENA's HARQ gives up after 3 retransmissions (pf/rr/fdmt-ff-mac-scheduler.cc, "rv == 3").
NS3_HARQ_MAX_RETX = 3
#: ns-3 3.44 LteRlcAm constructor (lte-rlc-am.cc): hard-coded, not attributes.
NS3_AM_FIXED = {"poll_pdu": 1, "poll_byte": 50, "max_retx_threshold": 5, "on_max_retx": "keep_retransmitting"}
#: LteRlcUm's 512-SN window (lte-rlc-um.cc m_windowSize): 10-bit sequence numbers.
NS3_UM_SN_BITS = 10
#: TS 36.213 §8.0 FDD: a UL grant in subframe n is used in n + 4 (ns-3 lte-common.h UL_PUSCH_TTIS_DELAY).
NS3_UL_GRANT_DELAY_MS = 4
#: ns-3.44 lte-enb-rrc.cc attribute LteEnbRrc::SrsPeriodicity default (ms), the engine's default too.
NS3_SRS_PERIOD_MS = 40
#: LteEnbRrc::SrsPeriodicity's accepted values (lte-enb-rrc.cc g_srsPeriodicity), the engine's
#: `uplink.srs_period_ms` values too (TS 36.213 Table 8.2-1).
NS3_SRS_PERIODS_MS = (2, 5, 10, 20, 40, 80, 160, 320)
#: Engine CQI reporting delay default (scenario/lte.rs CqiSpec::delay_ms); LENA's is its fixed pipeline.
ENGINE_CQI_DELAY_MS = 4


@dataclass
class LtePlan:
    """The cell's plan records, the nodes and links the EPC stands for, and notes for the user."""

    lines: list[str]
    #: Node ids the EPC / LENA builds (role per node: "pgw", "enb", "ue").
    roles: dict[str, str]
    #: Indices of the S1-U links in `links` (built by the EPC helper, not as plain links).
    s1u_links: list[int]
    mtu_bytes: int
    notes: list[str] = field(default_factory=list)
    #: The fading trace run.py writes for the driver (a channel with fast fading), else None.
    fading: FadingTrace | None = None


def friis_loss_db(distance_m: float, freq_hz: float) -> float:
    """Free-space path loss (Friis 1946; ns-3 FriisPropagationLossModel with SystemLoss 1)."""
    return 20 * math.log10(4 * math.pi * distance_m * freq_hz / SPEED_OF_LIGHT_M_S)


def rb_psd_dbm_hz(tx_dbm: float, n_rbs: int) -> float:
    """Transmit PSD of `tx_dbm` spread over `n_rbs` RBs (lte-spectrum-value-helper.cc)."""
    return tx_dbm - 10 * math.log10(n_rbs * RB_BANDWIDTH_HZ)


def dl_sinr_db(distance_m: float, n_rbs: int) -> float:
    """Downlink SINR of a UE `distance_m` from the eNB in a one-cell LENA (no interference)."""
    noise = THERMAL_NOISE_DBM_HZ + UE_NOISE_FIGURE_DB
    return rb_psd_dbm_hz(ENB_TX_POWER_DBM, n_rbs) - friis_loss_db(distance_m, DL_FREQ_HZ) - noise


def distance_for_dl_sinr_m(sinr_db: float, n_rbs: int) -> float:
    """The distance at which `dl_sinr_db` equals `sinr_db` (the formula above, solved for d)."""
    noise = THERMAL_NOISE_DBM_HZ + UE_NOISE_FIGURE_DB
    loss_db = rb_psd_dbm_hz(ENB_TX_POWER_DBM, n_rbs) - noise - sinr_db
    return SPEED_OF_LIGHT_M_S / (4 * math.pi * DL_FREQ_HZ) * 10 ** (loss_db / 20)


def ue_tx_power_dbm(ul_sinr_db: float, distance_m: float, n_rbs: int) -> float:
    """UE TxPower giving `ul_sinr_db` at the eNB on a full-band (n_rbs) uplink grant."""
    noise = THERMAL_NOISE_DBM_HZ + ENB_NOISE_FIGURE_DB
    return ul_sinr_db + noise + friis_loss_db(distance_m, UL_FREQ_HZ) + 10 * math.log10(n_rbs * RB_BANDWIDTH_HZ)


def _s1u(sc: dict, enb: str, path: str) -> tuple[int, str]:
    """The eNB's one link: the GTP-U tunnel to the gateway router (the EPC's PGW)."""
    touching = [(i, link) for i, link in enumerate(sc["links"]) if enb in (link["a"], link["b"])]
    tunnels = [(i, link) for i, link in touching if link.get("tunnel") == "gtpu"]
    if len(touching) != 1 or len(tunnels) != 1:
        raise NotSupported(
            f"{path}.enb", enb, 'an eNB with exactly one link, tunnel = "gtpu", to a router (the EPC S1-U)'
        )
    i, link = tunnels[0]
    gateway = link["b"] if link["a"] == enb else link["a"]
    kind = next(n["kind"] for n in sc["nodes"] if n["id"] == gateway)
    if kind != "router":
        raise NotSupported(f"links[{i}].{'b' if link['a'] == enb else 'a'}", gateway, "a router (the EPC's PGW)")
    for key in ("queue", "loss", "trace", "rate_changes"):
        if link.get(key) or any((link.get(d) or {}).get(key) for d in ("forward", "reverse")):
            raise NotSupported(
                f"links[{i}].{key}", link.get(key), "unset (ns-3's EPC helper builds S1-U from rate, delay, MTU)"
            )
    for d in ("forward", "reverse"):
        for key in ("rate_mbps", "delay_ms"):
            if (link.get(d) or {}).get(key) is not None:
                raise NotSupported(f"links[{i}].{d}.{key}", link[d][key], "unset (S1-U has one rate and delay)")
    return i, gateway


def _s1u_line(link: dict) -> str:
    return record(
        "epc",
        s1u_rate_bps=float(link["rate_mbps"]) * 1e6,
        s1u_delay_s=float(link.get("delay_ms") or 0.0) / 1e3,
        s1u_mtu=int(link.get("mtu_bytes") or 1500),
    )


def as_lena(sc: dict) -> tuple[dict, list[str]]:
    """The scenario as the ns-3 backend runs it: every cell under the engine's `lena` profile (ns-3
    is LENA), and a note for each cell the scenario put under another profile."""
    if not sc.get("cells"):
        return sc, []
    out = copy.deepcopy(sc)
    notes = []
    for i, c in enumerate(out["cells"]):
        if c.get("profile", "operator") != "lena":
            notes.append(
                f"cells[{i}].profile = {json_value(c.get('profile', 'operator'))}: ns-3 is LENA, so the cell runs "
                'under the engine\'s "lena" profile here (docs/lte.md, "Profiles")'
            )
        c["profile"] = "lena"
    return out, notes


def json_value(v: object) -> str:
    """A scenario value as a message shows it: as JSON (strings quoted, `true`, tables in braces)."""
    return json.dumps(v, sort_keys=True) if isinstance(v, (str, bool, dict, list)) or v is None else str(v)


def _rlc_line(rc: dict, path: str) -> str:
    """The bearers' RLC from the resolved cell `rc` (the engine's values under the LENA profile)."""
    ues = rc["ues"]
    rlc = ues[0]["rlc"]
    for j, u in enumerate(ues[1:], start=1):
        if u["rlc"] != rlc:
            raise NotSupported(
                f"{path}.ues[{j}].rlc", u["rlc"], "the same RLC mode and settings as ues[0] (ns-3 sets it per eNB)"
            )
    mode = rlc["mode"]
    p = f"{path}.ues[0].rlc"
    if mode == "tm":
        raise NotSupported(f"{p}.mode", mode, '"um" or "am" (LteEnbRrc::EpsBearerToRlcMapping has no TM)')
    fields = {"mode": mode, "tx_buffer_bytes": int(rlc["tx_buffer_bytes"])}
    if mode == "um":
        if rlc["sn_bits"] != NS3_UM_SN_BITS:
            raise NotSupported(f"{p}.sn_bits", rlc["sn_bits"], "10 (LteRlcUm's 512-SN window)")
        fields["t_reordering_s"] = float(rlc["t_reordering_ms"]) / 1e3
    else:
        for key, fixed in NS3_AM_FIXED.items():
            if rlc[key] != fixed:
                raise NotSupported(f"{p}.{key}", rlc[key], f"{fixed!r} (hard-coded in ns-3 3.44 lte-rlc-am.cc)")
        fields["t_reordering_s"] = float(rlc["t_reordering_ms"]) / 1e3
        fields["t_poll_retransmit_s"] = float(rlc["t_poll_retransmit_ms"]) / 1e3
        fields["t_status_prohibit_s"] = float(rlc["t_status_prohibit_ms"]) / 1e3
    return record("rlc", **fields)


#: The LENA profile's own mechanisms (crates/cellcc-engine/src/lte/profile.rs `LENA`): a resolved
#: cell that departs from one runs a mechanism LENA does not have, said in `summary.notes`.
LENA_MECHANISMS = {
    ("uplink", "requests"): "ideal_bsr",
    ("link_adaptation", "ul_mcs_from"): "lena_minimum_sinr",
    ("link_adaptation", "ul_measurement"): "srs_only",
    ("link_adaptation", "olla"): None,
    ("pdcch", "capacity"): False,
    ("mac", "grant_sizing"): "whole_share",
    ("mac", "status_pdu"): "alone",
    ("mac", "last_rbg"): "unused",
    ("mac", "pipeline"): "lena",
}


def _mechanism_notes(rc: dict, path: str) -> list[str]:
    """Notes for each mechanism the scenario set against LENA's (ns-3 runs LENA's)."""
    notes = []
    for (table, key), lena in LENA_MECHANISMS.items():
        value = rc[table][key]
        if value != lena:
            own = "none" if lena is None else json_value(lena)
            notes.append(f"{path}.{table}.{key} = {json_value(value)}: LENA has only its own ({own}), which ns-3 runs")
    if rc["harq"]["ul_max_retx"] != rc["harq"]["max_retx"]:
        notes.append(f"{path}.harq.ul_max_retx: LENA's uplink HARQ takes the downlink's {rc['harq']['max_retx']}")
    return notes


#: The LENA profile's bandwidth (crates/cellcc-engine/src/lte/config.rs `LENA_BANDWIDTH_MHZ`:
#: `LteEnbNetDevice::DlBandwidth` = 25 RBs).
LENA_BANDWIDTH_MHZ = 5.0

#: PfFfMacScheduler's averaging window, TTIs: a constant in ns-3 3.44, not an attribute.
NS3_PF_WINDOW_TTIS = 99.0


def _cell_line(rc: dict, path: str, enb_idx: int, n_rbs: int, earfcns: tuple[int, int]) -> str:
    """The `cell` record from the resolved cell `rc`."""
    scheduler = rc["scheduler"]
    if scheduler not in SCHEDULERS:
        raise NotSupported(f"{path}.scheduler", scheduler, " or ".join(SCHEDULERS))
    window = float(rc["pf_window_ttis"])
    if window != NS3_PF_WINDOW_TTIS:
        raise NotSupported(f"{path}.pf_window_ttis", window, "99 (hard-coded m_timeWindow in pf-ff-mac-scheduler.cc)")
    harq = int(rc["harq"]["max_retx"])
    if harq not in (0, NS3_HARQ_MAX_RETX):
        raise NotSupported(f"{path}.harq.max_retx", harq, "0 (HARQ off) or 3 (LENA's schedulers: rv == 3 drops)")
    cqi = rc["cqi"]
    if int(cqi["delay_ms"]) != ENGINE_CQI_DELAY_MS:
        raise NotSupported(f"{path}.cqi.delay_ms", cqi["delay_ms"], "4 (LENA's CQI delay is its PHY/MAC pipeline)")
    uplink = rc["uplink"]
    if uplink["grant_delay_ms"] != NS3_UL_GRANT_DELAY_MS:
        raise NotSupported(f"{path}.uplink.grant_delay_ms", uplink["grant_delay_ms"], "4 (UL_PUSCH_TTIS_DELAY)")
    srs_period_ms = _srs_period_ms(uplink, len(rc["ues"]), path)
    return record(
        "cell",
        enb=enb_idx,
        rbs=n_rbs,
        scheduler=SCHEDULERS[scheduler],
        harq=harq > 0,
        ctrl_errors=bool(rc["control_errors"]),
        cqi_period_s=float(cqi["period_ms"]) / 1e3,
        dl_earfcn=earfcns[0],
        ul_earfcn=earfcns[1],
        srs_period_ms=srs_period_ms,
    )


def _srs_period_ms(uplink: dict, n_ues: int, path: str) -> int:
    """The cell's SRS period for `LteEnbRrc::SrsPeriodicity`. LENA gives each UE its own SRS
    offset and stops with "too many UEs ... for current SRS periodicity" when a cell has more UEs
    than the period has subframes (lte-enb-rrc.cc GetNewSrsConfigurationIndex); the engine lets
    them share offsets, so such a cell is refused here rather than run differently."""
    period = int(uplink["srs_period_ms"])
    if period not in NS3_SRS_PERIODS_MS:
        raise NotSupported(f"{path}.uplink.srs_period_ms", period, f"one of {NS3_SRS_PERIODS_MS}")
    if n_ues > period:
        raise NotSupported(
            f"{path}.uplink.srs_period_ms",
            period,
            f"at least the cell's {n_ues} UEs (LteEnbRrc gives each UE its own SRS subframe)",
        )
    return period


def sinr_points(sinr: dict, path: str, duration_s: float, base_dir: Path) -> list[tuple[float, float]]:
    """(time s, downlink SINR dB) at which the UE moves; the first point is where it starts."""
    kind = sinr["kind"]
    if kind == "fixed":
        return [(0.0, float(sinr["db"]))]
    if kind == "ramp":
        start, span = float(sinr.get("start_s") or 0.0), float(sinr["duration_s"])
        lo, hi = float(sinr["from_db"]), float(sinr["to_db"])
        steps = math.ceil(min(span, max(duration_s - start, 0.0)) / RAMP_STEP_S)
        pts = [(0.0, lo)]
        pts += [
            (start + k * RAMP_STEP_S, lo + (hi - lo) * min(k * RAMP_STEP_S / span, 1.0)) for k in range(1, steps + 1)
        ]
        return pts
    if kind == "sweep":
        raise NotSupported(
            f"{path}.kind",
            kind,
            '"fixed", "ramp" or "csv", or a cell `channel`: seed 003\'s sweep (a SINR ramp with fading on top, '
            "no geometry) has no LENA counterpart",
        )
    if kind != "csv":
        raise NotSupported(f"{path}.kind", kind, '"fixed", "ramp" or "csv", or a cell `channel` model')
    return _csv_points(Path(sinr["file"]) if Path(sinr["file"]).is_absolute() else base_dir / sinr["file"], path)


def _ramp_db(lo: float, hi: float, fraction: float) -> float:
    return lo + (hi - lo) * min(fraction, 1.0)


def _csv_points(file: Path, path: str) -> list[tuple[float, float]]:
    with file.open(newline="") as f:
        rows = list(csv.reader(f))
    if not rows or [h.strip() for h in rows[0]] != ["t_s", "sinr_db"]:
        raise NotSupported(
            f"{path}.file", str(file), "a wideband CSV (t_s,sinr_db): LENA cannot set a per-RB SINR by position"
        )
    pts = [(float(r[0]), float(r[1])) for r in rows[1:] if r]
    return [(0.0, pts[0][1]), *pts] if pts and pts[0][0] > 0 else pts


def _ue_lines(ue: dict, j: int, node_idx: int, n_rbs: int, path: str, sc: dict, base_dir: Path) -> list[str]:
    p = f"{path}.ues[{j}].sinr"
    sinr = ue["sinr"]
    pts = sinr_points(sinr, p, float(sc["duration_s"]), base_dir)
    dl0 = pts[0][1]
    ul0 = float(sinr["ul_db"]) if sinr["kind"] == "fixed" and sinr.get("ul_db") is not None else dl0
    d0 = distance_for_dl_sinr_m(dl0, n_rbs)
    lines = [
        record(
            "ue",
            idx=j,
            node=node_idx,
            distance_m=d0,
            # Spread the UEs round the eNB so no two share a position (the angle changes no loss).
            angle_rad=2 * math.pi * j / max(len(sc["cells"][0]["ues"]), 1),
            tx_power_dbm=ue_tx_power_dbm(ul0, d0, n_rbs),
        )
    ]
    lines += [record("move", ue=j, at_s=t, distance_m=distance_for_dl_sinr_m(db, n_rbs)) for t, db in pts[1:] if t >= 0]
    return lines


def _dl_mcs_note(resolved_cell: dict, path: str) -> list[str]:
    """What `cqi.dl_mcs_from` becomes on LENA, when it differs: LENA has no such setting, its
    scheduler fixes the rule (it only matters on a frequency-selective channel). The rule and the
    scheduler are the engine's resolved ones (`cellcc validate --json`)."""
    rule = resolved_cell["cqi"]["dl_mcs_from"]
    scheduler = resolved_cell["scheduler"]
    if scheduler != "round_robin" and rule == "wideband":
        return [
            f"{path}.cqi.dl_mcs_from = \"wideband\": LENA's {SCHEDULERS[scheduler]} takes each TB's MCS from "
            "the worst A30 sub-band CQI over the RBGs it allocates and leaves sub-bands of CQI 0 unused "
            '(pf/fdmt-ff-mac-scheduler.cc DoSchedDlTriggerReq, worstCqi): the engine\'s "worst_subband"'
        ]
    if scheduler == "round_robin" and rule == "worst_subband":
        return [
            f'{path}.cqi.dl_mcs_from = "worst_subband": LENA\'s RrFfMacScheduler takes the MCS from the '
            'wideband P10 CQI (rr-ff-mac-scheduler.cc): the engine\'s "wideband"'
        ]
    return []


def lte_plan(
    sc: dict, resolved: Callable[[], dict], node_index: dict[str, int], base_dir: Path, replay_fading: bool = False
) -> LtePlan:
    """The cell's records (`epc`, `cell`, `rlc`, `ue`, `move`), or NotSupported naming the field."""
    cells = sc["cells"]
    if len(cells) != 1:
        raise NotSupported(
            "cells", f"{len(cells)} cells", "one cell (a fixed SINR cannot hold with inter-cell interference)"
        )
    c, path = cells[0], "cells[0]"
    scheduler = c.get("scheduler", "proportional_fair")
    if scheduler not in SCHEDULERS:
        raise NotSupported(f"{path}.scheduler", scheduler, " or ".join(SCHEDULERS))
    # The bandwidth as written, else the LENA profile's 25 RBs (the scenario runs as LENA here).
    n_rbs = BANDWIDTH_RBS.get(float(c.get("bandwidth_mhz", LENA_BANDWIDTH_MHZ)))
    if n_rbs is None:
        raise NotSupported(f"{path}.bandwidth_mhz", c["bandwidth_mhz"], "1.4, 3, 5, 10, 15 or 20")
    s1u, gateway = _s1u(sc, c["enb"], path)
    ue_ids = {u["node"] for u in c["ues"]}
    for i, link in enumerate(sc["links"]):
        if ue_ids & {link["a"], link["b"]}:
            raise NotSupported(f"links[{i}]", link["id"], "no wired link to a UE (it reaches the world by radio)")
    ue_lines = []
    if c.get("channel") is None:
        for j, u in enumerate(c["ues"]):
            ue_lines += _ue_lines(u, j, node_index[u["node"]], n_rbs, path, sc, base_dir)
    # Everything else from the engine's resolved cell (after the refusals above, which name the
    # fields LENA cannot take before the engine's own checks run).
    rc = resolved()["cells"][0]
    chan = None
    if c.get("channel") is not None:
        chan = channel_plan(c, rc, path, n_rbs, float(sc["duration_s"]), ATTACH_WARMUP_S, replay_fading)
        for j, u in enumerate(c["ues"]):
            placement = rc["ues"][j]["sinr"]
            ue_lines += ue_placement_lines(placement, j, node_index[u["node"]], f"{path}.ues[{j}].sinr")
    earfcns = (DL_EARFCN, UL_EARFCN) if chan is None else chan.earfcns
    lines = [
        _s1u_line(sc["links"][s1u]),
        _cell_line(rc, path, node_index[c["enb"]], n_rbs, earfcns),
        _rlc_line(rc, path),
        *(chan.lines if chan else []),
        *ue_lines,
    ]
    notes = [*(chan.notes if chan else []), *_mechanism_notes(rc, path)]
    written_sr = (c.get("uplink") or {}).get("sr_period_ms")
    if written_sr is not None and rc["uplink"]["requests"] == "ideal_bsr":
        notes.append(
            f"{path}.uplink.sr_period_ms = {written_sr}: unused, LENA has no SR (LteUeMac's ideal BSR, which the "
            "engine's lena profile runs too)"
        )
    if chan is not None:
        notes += _dl_mcs_note(rc, path)
    roles = {gateway: "pgw", c["enb"]: "enb", **dict.fromkeys(ue_ids, "ue")}
    return LtePlan(lines, roles, [s1u], int(c.get("mtu_bytes") or 1500), notes, chan.fading if chan else None)
