"""A cell's interfering cells (`channel.interferers`, `channel.hex_layout`) on ns-3 3.44 LENA, the
way LENA's own examples build a multi-cell network (src/lte/examples/lena-dual-stripe.cc,
src/lte/helper/lte-hex-grid-enb-topology-helper.cc): one real LENA eNB per interfering cell.

Geometry: the engine's own resolved list (`_core.interfering_cells`: the listed interferers, then
the hexagonal layout's sector antennas with their 0.5 m offset and boresights 0 / 120 / -120
degrees), so both sides place the same cells. Each eNB gets the cell's position and height, its
TxPower (`LteEnbPhy::SetTxPower`), the cell's EARFCNs and bandwidth, and its antenna through
`LteHelper::EnbAntennaModelType` (Isotropic or Parabolic with Orientation, Beamwidth,
MaxAttenuation, set before each install as LteHexGridEnbTopologyHelper does); the path-loss model
is the helper's one, so every link uses the scenario's.

Load, as LENA realises it (lte-enb-phy.cc, ns-3.44):
- every eNB sends its control frame (PDCCH/PCFICH and reference signals) on all RBs every
  subframe (`LteEnbPhy::SendControlChannels` sets the full-band PSD), with or without UEs: the
  engine's "control region always full" (interference.rs);
- its data frame covers only the RBs of the DL DCIs it sent that subframe
  (`StartSubFrame` builds `m_dlDataRbMap` from the DCI bitmaps), so:
- `idle`: an eNB without a UE sends no data frame: no data-region interference, as the engine;
- `full_buffer`: the eNB gets one UE of its own, `UE_DISTANCE_M` out along the sector's boresight
  (+x for an omni site), attached to it explicitly (ideal RRC; LteHelper's default
  NoOpHandoverAlgorithm and no X2, so it never hands over), and a saturating downlink UDP flow
  (`SATURATING_BPS_PER_RB` per RB, above any MCS's rate): with one backlogged UE every scheduler
  gives it every RBG in every TTI, so the data frame covers the band (the check: the driver
  counts the RBs that UE receives data on, `summary.lte_interferer_rb_share`);
- `fraction` is refused: with one UE a LENA scheduler gives the whole band to any backlog, so a
  lower rate gives full-band TTIs part of the time, not round(f N) RBs in every TTI as the engine.

The UEs' CQI (`LteHelper::UsePdschForCqiGeneration`, lte-ue-phy.cc GenerateMixedCqiReport): by
default LENA divides the reference-signal power by the interference its UE measured on the PDSCH,
but only if the UE received data in the previous subframe, and by the noise alone otherwise; a UE
not served every subframe then reports the noise-limited SINR part of the time (measured: 22.7 dB
instead of 10.6 dB for a UE served 186 subframes of 200 under 20 full-buffer cells). The engine's
CQI follows its data-region SINR. So with any full-buffer cell the CQI follows the control region
(`cqi_sinr=ctrl`: PDCCH signal over PDCCH interference, every cell at full power = the engine's
data region under full-buffer cells); with only idle cells it keeps the PDSCH measure
(`cqi_sinr=pdsch`: no data interference = the engine's data region). With both kinds the control
region also counts the idle cells, which the engine's data region does not: said in the notes.

LENA's schedulers use only floor(N_rb / P) whole RBGs of P RBs (pf-ff-mac-scheduler.cc
`rbgNum = m_dlBandwidth / rbgSize`; TS 36.213 §7.1.6.1 allows a last, smaller RBG): at 10 MHz
48 of 50 RBs carry data, in the serving cell and the interfering ones alike, so a full-buffer
cell's data frames cover those 48 (`lte_interferer_rb_share` is the share of them covered).

The interfering cells' bearers use RLC UM whatever the scenario's RLC (so their UEs send no AM
STATUS PDUs on the uplink). On the uplink their UEs send no PUSCH (no uplink data; RRC is ideal;
PUCCH is a null-bandwidth frame: lte-ue-phy.cc "send only PUCCH (ideal: fake null bandwidth
signal)"), only their SRS over the band every `SrsPeriodicity` (`LteUePhy::SendSrs`), which LENA's
eNBs count as interference on their own SRS (lte-spectrum-phy.cc `StartRx`, `m_interferenceCtrl`).
The engine's interfering cells have a loaded uplink only where `uplink_load` says so (default idle;
one UE per cell on the SRS and PUSCH rows, lte/channel/ul_interference.rs): a run note says which.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from .records import NotSupported, record

#: Horizontal distance of a full-buffer cell's own UE from its antenna, along the boresight, m:
#: well inside a cell of TR 36.814 case 1 (ISD 500 m), so its CQI stays positive under full interference.
UE_DISTANCE_M = 60.0
#: Saturating rate per RB, bit/s: above the largest DL TBS per RB per TTI, 75376 bits / 100 PRBs /
#: 1 ms = 0.754 Mbit/s (TS 36.213 Table 7.1.7.2.1-1, I_TBS 26, N_PRB 100).
SATURATING_BPS_PER_RB = 1.0e6
#: UDP payload of the saturating flow, bytes: with UDP/IP (28) and GTP-U/UDP/IP (36) below a 1500 B S1-U MTU.
PACKET_BYTES = 1400
#: The full-buffer UEs' height, m (TR 36.814 h_UT, the engine's UE default).
UE_HEIGHT_M = 1.5
LOADS = ("full_buffer", "idle")
#: TS 36.213 Table 7.1.6.1-1: RBG size P for a downlink of up to N RBs.
RBG_SIZES = ((10, 1), (26, 2), (63, 3), (110, 4))
#: LTE subframe (TTI), s (TS 36.211 §4.1).
SUBFRAME_S = 1e-3


def _refuse_fraction(ch: dict, path: str) -> None:
    """Refuse a `fraction` load by its field, listed interferers first, then the layout."""
    where = [(f"{path}.interferers[{i}].load", f.get("load")) for i, f in enumerate(ch.get("interferers") or [])]
    if ch.get("hex_layout"):
        where.append((f"{path}.hex_layout.load", ch["hex_layout"].get("load")))
    for field, load in where:
        if load and load.get("kind", "full_buffer") not in LOADS:
            raise NotSupported(
                f"{field}.kind",
                load.get("kind"),
                '"full_buffer" or "idle": a LENA eNB with one backlogged UE schedules the whole band, so no '
                "UDP rate gives round(fraction x N_rb) RBs per TTI as the engine's fractional load does",
            )


def _ue_xy(cell: dict) -> tuple[float, float]:
    """The full-buffer UE's position: UE_DISTANCE_M along the antenna's boresight (+x if omni)."""
    heading = math.radians(cell.get("orientation_deg", 0.0)) if cell["antenna"] == "parabolic" else 0.0
    return cell["x_m"] + UE_DISTANCE_M * math.cos(heading), cell["y_m"] + UE_DISTANCE_M * math.sin(heading)


def _cell_line(i: int, cell: dict, n_rbs: int) -> str:
    antenna = {}
    if cell["antenna"] == "parabolic":
        antenna = {
            "orientation_deg": cell["orientation_deg"],
            "beamwidth_deg": cell["beamwidth_deg"],
            "max_att_db": cell["max_attenuation_db"],
        }
    ue_x, ue_y = _ue_xy(cell)
    return record(
        "icell",
        idx=i,
        x_m=cell["x_m"],
        y_m=cell["y_m"],
        z_m=cell["height_m"],
        tx_dbm=cell["tx_power_dbm"],
        load=cell["load"],
        ue_x_m=ue_x,
        ue_y_m=ue_y,
        ue_z_m=UE_HEIGHT_M,
        rate_bps=SATURATING_BPS_PER_RB * n_rbs,
        packet_bytes=PACKET_BYTES,
        antenna=cell["antenna"],
        **antenna,
    )


def interferer_lines(ch: dict, n_rbs: int, path: str) -> tuple[list[str], list[str]]:
    """`icell` records, one per interfering cell in the engine's order, and the run's notes."""
    if not ch.get("interferers") and not ch.get("hex_layout"):
        return [], []
    _refuse_fraction(ch, path)
    from cellcc import _core

    cells = _core.interfering_cells(json.dumps(ch))
    n_full = sum(c["load"] == "full_buffer" for c in cells)
    cqi = "ctrl" if n_full else "pdsch"
    lines = [record("interference", cqi_sinr=cqi), *(_cell_line(i, c, n_rbs) for i, c in enumerate(cells))]
    n_ul = sum(c["uplink_load"] != "idle" for c in cells)
    notes = [
        f"{path}: {len(cells)} interfering cells as LENA eNBs ({n_full} full-buffer with one saturated UE each, "
        f"{len(cells) - n_full} idle); on LENA's uplink their UEs send only SRS (no PUSCH), while the engine "
        f"gives {n_ul} of them a loaded uplink (uplink_load, on its SRS and PUSCH rows; idle = none)"
    ]
    if 0 < n_full < len(cells):
        notes.append(
            f"{path}: the UEs' CQI follows LENA's control-region SINR, which counts the "
            f"{len(cells) - n_full} idle cells' control frames; the engine's CQI sees only the full-buffer cells"
        )
    return lines, notes


def schedulable_rbs(n_rbs: int) -> int:
    """The RBs LENA's schedulers can allocate: floor(N / P) RBGs of P (pf-ff-mac-scheduler.cc)."""
    p = next(size for top, size in RBG_SIZES if n_rbs <= top)
    return n_rbs // p * p


def _db(sum_lin: float, n: int) -> float:
    return 10 * math.log10(sum_lin / n) if n else float("nan")


def interference_summary(out: Path, ue_ids: list[str], duration_s: float) -> dict:
    """The driver's SINR probes (sinr.csv) and load check (interferers.csv) as summary entries:
    per UE the control- and data-region downlink SINR, dB (linear means of LENA's per-subframe
    means over RBs, scenario time), and the share of the schedulable RBs x subframes of the run
    the full-buffer cells' data frames covered (1 = every such RB in every subframe)."""
    sinr = pd.read_csv(out / "sinr.csv")
    summary: dict = {
        "lte_dl_ctrl_sinr_db": {ue_ids[int(r.ue)]: _db(r.ctrl_sinr_sum, r.ctrl_n) for r in sinr.itertuples()},
        "lte_dl_data_sinr_db": {ue_ids[int(r.ue)]: _db(r.data_sinr_sum, r.data_n) for r in sinr.itertuples()},
    }
    cells = pd.read_csv(out / "interferers.csv")
    full = cells[cells["full_buffer"] == 1]
    if len(full):
        subframes = round(duration_s / SUBFRAME_S)
        usable = full["n_rbs"].map(schedulable_rbs)
        summary["lte_interferer_rb_share"] = float(full["rbs"].sum() / (usable * subframes).sum())
    return summary
