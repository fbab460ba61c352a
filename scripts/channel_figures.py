"""The radio channel's figures and tables for docs/channel.md (issue 8).

Runs the engine's example ``channel_figures`` (cargo, release) for the data and writes:

- ``docs/figures/channel_geometry_cdf.png`` and the geometry table: TR 36.814 Case 1 geometry of
  uniformly dropped UEs in the 57-cell layout, with and without wrap-around, and the TR 36.873
  phase-1 3D-UMa case on the same layout against its published 3GPP calibration curve;
- ``docs/figures/channel_fading_<name>.png``: per-RB fading gain over time and its time-frequency map,
  one per entry of ``PROFILES``;
- ``docs/figures/channel_hst300.png`` and its table: the TS 36.101 B.3 high-speed train (scenario 3,
  300 km/h) over one period of its Doppler trajectory, with and without the UE's frequency tracking;
- ``docs/figures/channel_seed004_walk.png`` and its table: seed 004's SINR and PCFICH/PDCCH error
  probability vs distance, alone and in the 57-cell layout.

Tables go between ``<!-- channel_figures:NAME -->`` and ``<!-- /channel_figures:NAME -->`` in
docs/channel.md. Run from the repo root: ``.venv/bin/python scripts/channel_figures.py [--out docs]``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # after use(): the backend must be chosen first
import numpy as np
import pandas as pd

#: Fading profiles to draw: (file name, title, the `cells[].channel.fading` object).
PROFILES: list[tuple[str, str, dict]] = [
    ("epa5", "EPA 5 Hz", {"profile": "epa", "doppler_hz": 5}),
    ("eva70", "EVA 70 Hz", {"profile": "eva", "doppler_hz": 70}),
]
TRACE_RBS = 50
TRACE_TTIS = 1000
GEOMETRY_UES = 20_000
SEED = 1
QUANTILES = (0.05, 0.1, 0.5, 0.9, 0.95)

# Provenance: 3GPP TR 36.873 V12 §8.2, phase-1 calibration, 3D-UMa, ISD 500 m, antenna K = M = 1:
# the median of the companies' geometry CDFs at 0, 5, ..., 100 %, as tabulated in QuaDRiGa
# (fraunhoferhhi/QuaDRiGa, tutorials/calib_3GPP_ref_data.m, gf36873a row 3). Also in the engine
# (calibration/uma3d.rs, REFERENCE_GEOMETRY_DB), whose test asserts 1 dB at 5/10/50/90/95 %.
TR36873_UMA_K1_GEOMETRY_DB = [
    -8.4, -3.1, -1.9, -0.9, -0.1, 0.6, 1.4, 2.2, 3.0, 4.0, 4.9,
    6.0, 7.2, 8.5, 9.9, 11.6, 13.5, 15.9, 18.8, 22.6, 26.7,
]  # fmt: skip
REFERENCE_NOTE = (
    "The 3GPP comparison is the TR 36.873 phase-1 case (3D-UMa, K = M = 1) run on the same layout: "
    "no published percentiles for TR 36.814 Case 1 itself were found in the sources searched."
)


def example(*args: str) -> pd.DataFrame:
    """Run the engine's `channel_figures` example and parse its CSV."""
    cmd = ["cargo", "run", "-q", "--release", "-p", "cellcc-engine", "--example", "channel_figures", "--", *args]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return pd.read_csv(io.StringIO(out))


def write_atomically(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def save(fig: plt.Figure, path: Path) -> None:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    write_atomically(path, buf.getvalue())


def geometry(figures: Path) -> list[str]:
    n, seed = str(GEOMETRY_UES), str(SEED)
    curves = {
        "Case 1, wrap-around": example("geometry", n, seed)["geometry_db"].to_numpy(),
        "Case 1, no wrap-around": example("geometry", n, seed, "open")["geometry_db"].to_numpy(),
        "TR 36.873 3D-UMa K=M=1, cellcc": example("geometry", n, seed, "uma3d")["geometry_db"].to_numpy(),
    }
    ref_p = np.arange(0, 101, 5) / 100
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, g in curves.items():
        ax.plot(np.sort(g), np.arange(1, len(g) + 1) / len(g), label=label)
    ax.plot(TR36873_UMA_K1_GEOMETRY_DB, ref_p, "k--", label="TR 36.873 3D-UMa K=M=1, 3GPP median")
    ax.set(xlabel="geometry (wideband SINR), dB", ylabel="CDF", xlim=(-10, 30))
    ax.set_title("57 cells, ISD 500 m, 20,000 uniformly dropped UEs", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, figures / "channel_geometry_cdf.png")
    ref = dict(zip(ref_p.round(2), TR36873_UMA_K1_GEOMETRY_DB, strict=True))
    rows = ["| CDF point | " + " | ".join(curves) + " | TR 36.873 3D-UMa K=M=1, 3GPP median |"]
    rows.append("|---:|" + "---:|" * (len(curves) + 1))
    for q in QUANTILES:
        cells = " | ".join(f"{np.quantile(g, q):.1f}" for g in curves.values())
        rows.append(f"| {q:.0%} | {cells} | {ref[round(q, 2)]:.1f} |")
    return [*rows, "", REFERENCE_NOTE]


def fading(figures: Path) -> list[str]:
    rows = ["| profile | mean gain dB | 1 % gain dB | std dev dB | figure |", "|---|---:|---:|---:|---|"]
    for name, title, spec in PROFILES:
        df = example("trace", json.dumps(spec), str(TRACE_RBS), str(TRACE_TTIS), str(SEED))
        g = df.drop(columns="t_ms").to_numpy()
        fig, (a, b) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
        for k in (0, TRACE_RBS // 2, TRACE_RBS - 1):
            a.plot(df["t_ms"], g[:, k], lw=0.8, label=f"RB {k}")
        a.set(ylabel="|H|² (dB)", ylim=(-30, 10))
        a.set_title(f"{title}: per-RB fading gain, {TRACE_RBS} RBs (10 MHz)", fontsize=10)
        a.legend(fontsize=8, ncol=3)
        a.grid(alpha=0.3)
        extent = (0, TRACE_TTIS, 0, TRACE_RBS)
        im = b.imshow(g.T, aspect="auto", origin="lower", cmap="viridis", vmin=-20, vmax=8, extent=extent)
        b.set(xlabel="time (ms)", ylabel="RB")
        fig.colorbar(im, ax=b, label="dB")
        save(fig, figures / f"channel_fading_{name}.png")
        lin = 10 ** (g / 10)
        rows.append(
            f"| {title} | {10 * np.log10(lin.mean()):.2f} | {np.quantile(g, 0.01):.1f} | {g.std():.1f} "
            f"| `figures/channel_fading_{name}.png` |"
        )
    return rows


#: The high-speed train: B.3 scenario 3 (Ds 300 m, Dmin 2 m, 300 km/h) repeats every 2 Ds / v = 7.2 s.
HST_PERIOD_MS = 7200
#: (label, the `fading` object): with the default tracking (the shift measured one subframe
#: earlier is removed) and with none (the whole Doppler shift is a frequency offset).
HST_CASES = (
    ("tracked (default)", {"profile": "hst", "scenario": 3}),
    ("no tracking", {"profile": "hst", "scenario": 3, "tracking": {"kind": "none"}}),
)


def hst(figures: Path) -> list[str]:
    """SINR with the train's inter-carrier interference minus the SINR without it (flat: RB 0 stands for all)."""
    fig, ax = plt.subplots(figsize=(7, 3.5))
    rows = ["| HST 300 km/h, B.3 scenario 3 | mean SINR change dB | worst dB |", "|---|---:|---:|"]
    for label, spec in HST_CASES:
        df = example("trace", json.dumps(spec), str(TRACE_RBS), str(HST_PERIOD_MS), str(SEED))
        loss = df["rb0"].to_numpy()
        ax.plot(df["t_ms"] / 1e3, loss, label=label)
        rows.append(f"| {label} | {10 * np.log10((10 ** (loss / 10)).mean()):.2f} | {loss.min():.1f} |")
    ax.set(xlabel="time (s)", ylabel="SINR change (dB)")
    ax.set_title("TS 36.101 B.3 HST 300 km/h: ICI of the Doppler shift, unfaded SINR 20.5 dB", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, figures / "channel_hst300.png")
    return rows


def walk(figures: Path) -> list[str]:
    df = example("walk", str(SEED))
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    for (pl, layout), g in df.groupby(["pathloss", "layout"]):
        a.plot(g["distance_m"], g["sinr_db"], label=f"{pl}, {layout}")
        b.plot(g["distance_m"], g["control_error_epa"], label=f"{pl}, {layout}, EPA 5 Hz")
    a.set(xlabel="distance (m)", ylabel="wideband DL SINR (dB)", title="Seed 004: SINR vs distance")
    b.set(xlabel="distance (m)", ylabel="PCFICH/PDCCH error probability", title="Control channel, EPA 5 Hz")
    for ax in (a, b):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    save(fig, figures / "channel_seed004_walk.png")
    rows = ["| distance m | path loss | layout | SINR dB | control error, no fading | control error, EPA 5 Hz |"]
    rows.append("|---:|---|---|---:|---:|---:|")
    for r in df[df["distance_m"].isin([40, 100, 160, 200, 260, 300])].itertuples():
        rows.append(
            f"| {r.distance_m:g} | {r.pathloss} | {r.layout} | {r.sinr_db:.1f} | {r.control_error:.4f} "
            f"| {r.control_error_epa:.4f} |"
        )
    return rows


def fill(doc: str, name: str, lines: list[str]) -> str:
    start, end = f"<!-- channel_figures:{name} -->", f"<!-- /channel_figures:{name} -->"
    if start not in doc or end not in doc:
        raise SystemExit(f"docs/channel.md lacks the markers {start} ... {end}")
    head, rest = doc.split(start, 1)
    _, tail = rest.split(end, 1)
    return head + start + "\n" + "\n".join(lines) + "\n" + end + tail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs"))
    out = parser.parse_args().out
    figures = out / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    doc_path = out / "channel.md"
    doc = doc_path.read_text()
    for name, make in (("geometry", geometry), ("fading", fading), ("hst", hst), ("walk", walk)):
        doc = fill(doc, name, make(figures))
    write_atomically(doc_path, doc.encode())


if __name__ == "__main__":
    main()
