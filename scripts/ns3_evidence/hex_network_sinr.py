"""Where the 7-site network's downlink differs between the engine and LENA without fading: each
UE's geometry on both sides, and each side's SINR against the SINR that geometry gives.

For every UE of `hex_network` (scripts/bench_ns3.py, fading off):
- `geo_db`: the engine's wideband control-region SINR at t = 0 (`_core.wideband_dl_sinr_db`), its
  cell's site serving and the other 20 cells interfering at full power, i.e. the SINR of a network
  whose every cell sends on every RB;
- the engine's and LENA's mean DL MCS per UE, and LENA's own DL SINR (LteUePhy
  ReportCurrentCellRsrpSinr, every TTI, linear mean) from STEADY_FROM_S on;
- LENA's layer-1 RSRP of the UE towards every cell at its first sample, relative to its own cell,
  against the engine's gain to each cell relative likewise (the antennas and path losses).

LENA takes about 140 s of CPU per simulated second::

    .venv/bin/python scripts/ns3_evidence/hex_network_sinr.py --duration-s 0.3
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

from bench_ns3 import hex_network  # noqa: E402
from cellcc import _core  # noqa: E402
from cellcc.backends.frontend import DocScenario  # noqa: E402
from cellcc.backends.ns3 import run as ns3_run  # noqa: E402
from cellcc.backends.ns3.lte import as_lena  # noqa: E402
from cellcc.runner import run_one  # noqa: E402
from cellcc.scenario import Scenario  # noqa: E402

#: Rows before this (the flows' staggered starts, cells not yet busy) are left out, s.
STEADY_FROM_S = 0.1
#: RBs of the 20 MHz cells (TS 36.101 Table 5.6-1).
N_RB = 100
#: Bands of the geometric SINR for the breakdown, dB.
SINR_BANDS = [-5, 0, 3, 6, 9, 12, 15, 18]


def cell_channel(doc: dict, k: int) -> dict:
    """Cell k's channel as one cell's spec: its site serving, every other cell a full-buffer interferer."""
    ch = doc["network"]["channel"]

    def site(c: dict) -> dict:
        return {"position_m": c["site"]["position_m"], "antenna": {**ch["enb"]["antenna"], **c["site"]["antenna"]}}

    interferers = [{**site(c), "load": {"kind": "full_buffer"}} for j, c in enumerate(doc["cells"]) if j != k]
    return {**ch, "enb": {**ch["enb"], **site(doc["cells"][k])}, "interferers": interferers}


def geometry(doc: dict, seed: int) -> pd.DataFrame:
    """Per UE: its cell and the engine's full-load SINR at t = 0 (control region: every cell on)."""
    rows = []
    for k, c in enumerate(doc["cells"]):
        spec = json.dumps(cell_channel(doc, k))
        for u in c["ues"]:
            placement = json.dumps({"position_m": u["sinr"]["position_m"]})
            _, ctrl_db = _core.wideband_dl_sinr_db(spec, placement, seed, c["id"], N_RB)
            rows.append({"ue": u["node"], "cell": c["id"], "geo_db": ctrl_db})
    return pd.DataFrame(rows).set_index("ue")


def alone_db(doc: dict, seed: int, cell: int, xy: list[float]) -> float:
    """The engine's SNR of cell `cell` alone at `xy`, dB (its path gain, antenna and power)."""
    spec = {**cell_channel(doc, cell), "interferers": []}
    data_db, _ = _core.wideband_dl_sinr_db(json.dumps(spec), json.dumps({"position_m": xy}), seed, "alone", N_RB)
    return data_db


def rsrp_check(doc: dict, seed: int, meas: pd.DataFrame) -> pd.Series:
    """Per (UE, cell) at LENA's first sample: LENA's RSRP of that cell relative to the UE's own
    cell, less the engine's (its SNR of each cell alone, relative likewise; the noise cancels)."""
    first = meas[meas.t_s == meas.t_s.min()]
    index = {c["id"]: k for k, c in enumerate(doc["cells"])}
    ues = {u["node"]: (k, u["sinr"]["position_m"]) for k, c in enumerate(doc["cells"]) for u in c["ues"]}
    out = []
    for ue, rows in first.groupby("ue"):
        own, xy = ues[ue]
        lena_own = rows.rsrp_dbm[rows.cell == doc["cells"][own]["id"]].iloc[0]
        engine_own = alone_db(doc, seed, own, xy)
        for r in rows.itertuples():
            out.append((r.rsrp_dbm - lena_own) - (alone_db(doc, seed, index[r.cell], xy) - engine_own))
    return pd.Series(out)


class RawLte:
    """Keeps the driver's raw `lte` samples (per slot: LENA's DL SINR sum and count), which the
    backend's `lte` table leaves out, while `ns3_run.run` computes its per-UE mean from them."""

    def __init__(self) -> None:
        self.raw = pd.DataFrame()
        self._mean = ns3_run.mean_sinr_db

    def __enter__(self) -> RawLte:
        def keep(p, raw):
            self.raw = raw.assign(ue=raw.ue.map(dict(enumerate(p.ue_ids))))
            return self._mean(p, raw)

        ns3_run.mean_sinr_db = keep
        return self

    def __exit__(self, *_: object) -> None:
        ns3_run.mean_sinr_db = self._mean


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration-s", type=float, default=0.3)
    args = ap.parse_args()
    doc = hex_network(args.duration_s)
    doc["network"]["channel"]["fading"] = {"profile": "none"}
    sc = DocScenario(doc, str(ROOT / "scripts" / "bench_ns3.py"))
    geo = geometry(doc, sc.seed)
    engine = run_one(Scenario(json.dumps(as_lena(sc.to_dict())[0]), sc.source), sc.seed).tables()["lte"]
    with RawLte() as kept:
        lena = ns3_run.run(sc.to_dict(), seed=sc.seed, base_dir=Path(sc.source).parent)
    steady = lambda lte: lte[(lte.dir == "dl") & (lte.t_s >= STEADY_FROM_S)]  # noqa: E731
    lena_dl = steady(lena.lte)
    geo["mcs_engine"] = steady(engine).groupby("ue").mcs_mean.mean()
    geo["mcs_lena"] = lena_dl.groupby("ue").mcs_mean.mean()
    geo["retx_lena"] = lena_dl.groupby("ue").harq_retx.mean()
    raw = kept.raw
    raw = raw[(raw.dir == 0) & (raw.t_ns > STEADY_FROM_S * 1e9)].groupby("ue")[["sinr_sum", "sinr_n"]].sum()
    geo["lena_sinr_db"] = 10 * np.log10(raw.sinr_sum / raw.sinr_n)
    geo["gap_db"] = geo.lena_sinr_db - geo.geo_db
    busy = lena_dl.groupby(["cell", "t_s"]).tbs.sum()
    print(f"LENA cells: {busy.mean():.1f} DL TBs per 100 ms (min {busy.min()})")
    rsrp = rsrp_check(doc, sc.seed, lena.measurements).describe().round(2).to_dict()
    print("RSRP of each cell relative to the UE's own, LENA less the engine, dB:", rsrp)
    geo["band"] = pd.cut(geo.geo_db, SINR_BANDS)
    print(
        geo.groupby("band", observed=True)
        .agg(ues=("geo_db", "size"), mcs_engine=("mcs_engine", "mean"), mcs_lena=("mcs_lena", "mean"),
             retx_lena=("retx_lena", "mean"), lena_sinr_db=("lena_sinr_db", "mean"), gap_db=("gap_db", "median"))
        .round(1)
        .to_string()
    )  # fmt: skip
    print("gap (LENA's SINR less the full-load geometry), dB:", geo.gap_db.describe().round(1).to_dict())


if __name__ == "__main__":
    main()
