"""Interfering cells on ns-3 LENA against the engine (docs/ns3.md, issue 9): a static UE served a
saturating UDP flow in the centre sector of a hexagonal layout (46 dBm, 30 m, 70-degree sectors,
ISD 500 m, COST-231 Hata medium city, band 3, 10 MHz), at points across its cell; prints a Markdown
table of the engine's wideband SINR (`_core.wideband_dl_sinr_db`) and LENA's measured control- and
data-region SINR (the driver's LteChunkProcessor probes, interferers.cc), per load, with LENA's
wall time for the run.

    .venv/bin/python scripts/ns3_interference_check.py RINGS DURATION_S   # e.g. 2 0.1: seed 004's 57 cells
"""

from __future__ import annotations

import json
import math
import sys

from cellcc import Scenario, _core, builders
from cellcc.backends.ns3 import run as ns3_run

#: (label, UE position m): the sector's centre line at 50 / 150 m, its edge towards the next site
#: on the boresight (250 m = ISD / 2), the edge to the sister sector (60 degrees), and a point in the
#: sister sector's area (90 degrees, 200 m) where the serving sector is 20 dB down.
POINTS = (
    ("boresight 50 m", (50.0, 0.0)),
    ("boresight 150 m", (150.0, 0.0)),
    ("cell edge, boresight 250 m", (250.0, 0.0)),
    ("sector edge, 60 deg 150 m", (75.0, 129.9)),
    ("behind the sector, 90 deg 200 m", (0.0, 200.0)),
)
LOADS = ("full_buffer", "idle")
BANDWIDTH_MHZ = 10
N_RBS = 50
#: Above the 10 MHz cell's capacity at any SINR (75376 bits per ms at 100 PRBs, TS 36.213 Table 7.1.7.2.1-1).
SATURATING_MBPS = 60


def channel(rings: int, load: str) -> dict:
    return {
        "dl_carrier_mhz": 1842.5,
        "ul_carrier_mhz": 1747.5,
        "enb": {"tx_power_dbm": 46, "height_m": 30, "antenna": {"kind": "parabolic", "beamwidth_deg": 70}},
        "pathloss": {"model": "okumura_hata", "environment": "urban", "city": "medium"},
        "hex_layout": {"rings": rings, "load": {"kind": load}},
    }


def scenario(ch: dict, xy: tuple[float, float], duration_s: float) -> dict:
    ue = {"sinr": {"kind": "channel", "position_m": list(xy)}, "rlc": {"mode": "um"}}
    app = {"kind": "cbr", "rate_mbps": SATURATING_MBPS, "packet_bytes": 1200}
    flow = {"id": "down", "src": "server", "dst": "ue", "transport": "udp", "app": app}
    sc = builders.lte_cell([ue], BANDWIDTH_MHZ, [flow], duration_s)
    sc["cells"][0]["channel"] = ch
    return Scenario.from_dict(sc).to_dict()


def fmt(db: float) -> str:
    return "no data" if math.isnan(db) else f"{db:.2f}"


def main(rings: int, duration_s: float) -> None:
    print("| load | UE | engine data / control dB | LENA data / control dB | LENA CQI SINR dB | RB share | wall s |")
    print("|---|---|---|---|---|---|---|")
    for load in LOADS:
        for label, xy in POINTS:
            sc = scenario(channel(rings, load), xy, duration_s)
            cell = sc["cells"][0]
            data, ctrl = _core.wideband_dl_sinr_db(
                json.dumps(cell["channel"]), json.dumps({"position_m": list(xy)}), sc["seed"], cell["id"], N_RBS
            )
            s = ns3_run.run(sc).summary
            share = s.get("lte_interferer_rb_share")
            print(
                f"| {load} | {label} | {data:.2f} / {ctrl:.2f} | {fmt(s['lte_dl_data_sinr_db']['ue'])} / "
                f"{fmt(s['lte_dl_ctrl_sinr_db']['ue'])} | {fmt(s['lte_dl_sinr_db']['ue'])} | "
                f"{'-' if share is None else f'{share:.3f}'} | {s['wall_s']:.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main(int(sys.argv[1]), float(sys.argv[2]))
