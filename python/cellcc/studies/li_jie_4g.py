"""Seed 002: Li Jie, "Performance Evaluation of Different TCP Congestion Control Schemes in 4G
System" (VAMK thesis, 2013): Cubic, Reno, Vegas, Westwood and Windows' stack ("WinSock") on
Sonera's live LTE network in Vaasa, downloads of a 293 MB and uploads of a 21.46 MB file, at three
places (VAMK, Olympia, Ahventie) in four periods of the day, ten times each: 1200 samples.

Two grids here, and the live plan beside them:

- **lte**: the seed's grid on cellcc's LTE cell: 5 CCAs (Compound TCP stands for Windows' stack,
  which the seed could not see inside; Compound is what Windows Vista to Server 2008 R2 ran and
  what later Windows kept as an option) x down/up x 3 places as radio profiles (cell centre,
  indoor, cell edge) x 4 periods as load (night to busy hour) x seeds. One sweep per direction and
  place; CCA and period (zipped load settings) are axes.
- **trace**: the same CCAs over real LTE capacity traces recorded by others (Mahimahi's Verizon
  and T-Mobile "short" traces, Saturator recordings, NSDI 2013), ten repetitions each started at
  another point of the trace (the channel at ten moments); on the engine, and for reno, cubic
  and bbr on the Linux kernel too (three of the ten, real time).
- **live**: `docs/studies/li-jie-4g/plan.toml` runs the seed's plan with `cellcc live run`.

Every choice the seed leaves open is in PARAMS with its reason. The report re-makes Tables 6-9
with n and 95 % intervals, and sets each of the seed's findings beside ours.
"""

from __future__ import annotations

import hashlib
import math
import os
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from cellcc import builders
from cellcc.catalogue import Store
from cellcc.plots import _png
from cellcc.report import Block
from cellcc.store import write_file_atomically
from cellcc.studies.common import (
    DEFAULT,
    Finding,
    Param,
    Platform,
    SweepDef,
    Verdict,
    ci_text,
    figure,
    ordering_verdict,
    other_platform,
    paired_difference,
    params_block,
    platform_findings_blocks,
)
from cellcc.traces import rotate

NAME = "li-jie-4g"
TITLE = "Seed 002 (Li Jie): five congestion controls on live 4G, three places, four times of day"
SEED_FILE = "002_25de800b25cb70f9.txt"
#: A live operator's network with Linux and Windows hosts: the engine's default platform.
PLATFORM = DEFAULT

#: The seed's five schemes; `compound` stands for Windows' stack ("WinSock").
CCAS = ("cubic", "reno", "vegas", "westwood", "compound")
SCHEME = {"cubic": "Cubic", "reno": "Reno", "vegas": "Vegas", "westwood": "Westwood", "compound": "WinSock (Compound)"}
#: The kernel has these three of the study's CCAs (and BBR, which the seed did not run).
KERNEL_CCAS = ("reno", "cubic", "bbr")
DIRECTIONS = ("down", "up")
#: Section 3.4.2: "a 293MB file and a 21.46MB file".
FILE_BYTES = {"down": 293_000_000, "up": 21_460_000}
#: Simulated time per LTE run: the seed's files take longer than this at our rates; a run's average
#: speed is bytes delivered over the flow's active time, as the seed's size / time on the plotter.
DURATION_S = 30.0
QUICK_DURATION_S = 2.0

#: Places (section 3.3.1) -> (profile, UE distance m, building entry loss dB).
#: TR 36.814 Table A.2.1.1-2: 20 dB penetration loss; ISD 500 m, so 250 m is half-way to the next site.
PLACES = {
    "vamk": ("cell centre", 100.0, 0.0),
    "olympia": ("indoor", 100.0, 20.0),
    "ahventie": ("cell edge", 250.0, 0.0),
}
PLACE_LABEL = {p: f"{p.capitalize() if p != 'vamk' else 'VAMK'} ({v[0]})" for p, v in PLACES.items()}
#: Periods (Table 3) -> load: the share of PRBs the neighbour cells fill and the other users' demand
#: in the serving cell, as a fraction of the busy hour's (ours; the evening is the busy hour).
PERIODS = {"early-morning": 0.2, "forenoon": 0.5, "afternoon": 0.6, "evening": 0.8}
#: The other users' aggregate downlink demand in the serving cell at load 1.0, Mbit/s (ours).
OTHERS_FULL_MBPS = 10.0
QUICK_PERIODS = ("early-morning", "evening")

#: TR 36.814 Table A.2.1.1-2 (macro, Case 1): L = 128.1 + 37.6 log10(R / km), as a log-distance
#: model from 1 m: 128.1 - 3 x 37.6 = 15.3 dB; 49 dBm for a 20 MHz carrier; parabolic 70 degrees,
#: 20 dB front-to-back; ISD 500 m; eNB height 32 m there, 30 m in ns-3's hex grid (ours: 30).
PATHLOSS_EXPONENT = 3.76
PATHLOSS_AT_1M_DB = 15.3
ENB_POWER_DBM = 49.0
BANDWIDTH_MHZ = 20
ISD_M = 500.0
BEAMWIDTH_DEG = 70.0
MAX_ATTENUATION_DB = 20.0
ENB_HEIGHT_M = 30.0
UE_HEIGHT_M = 1.5
#: A laptop on a desk: static, with the environment's EPA fading at pedestrian speed (TS 36.104 B.2).
FADING_SPEED_KMH = 3.0
#: Where the other users' aggregate demand sits (a typical, outdoor spot of the serving sector; ours).
OTHERS_POSITION_M = (150.0, 40.0)
#: The seed's server was "domestic ... in Finland" (section 3.4.2): 10 ms one way behind the EPC.
SERVER_DELAY_MS = 10.0
SERVER_RATE_MBPS = 1000.0

#: Trace grid: the Mahimahi traces (Winstein et al., NSDI 2013) from the shared folder.
TRACES = {"verizon": "Verizon-LTE-short", "tmobile": "TMobile-LTE-short"}
QUICK_TRACES = ("tmobile",)
TRACE_RUN_S = 20.0
QUICK_TRACE_RUN_S = 3.0
#: Ten repetitions: the trace rotated to start 0, 13, 26 ... 117 s in (its 140 s spread evenly).
TRACE_STARTS_S = tuple(13.0 * k for k in range(10))
QUICK_TRACE_STARTS_S = (0.0, 13.0)
#: The kernel's share of them (each is real time): the first three.
KERNEL_STARTS = 3
QUICK_KERNEL_STARTS = 1
#: 50 ms base RTT (LTE of 2013 to a domestic server; ours) and a deep drop-tail buffer: cellular
#: base stations keep seconds of data per user (Jiang et al., "Tackling Bufferbloat in 3G/4G
#: Networks", IMC 2012); 250 packets as docs/crosscheck.md's deep Verizon path.
TRACE_ONE_WAY_MS = 25.0
TRACE_QUEUE_PACKETS = 250
TRACE_ENV = "CELLCC_TRACES"
_REPO = Path(__file__).resolve().parents[3]
TRACE_DIRS = (
    _REPO.parent / "shared" / "traces",
    _REPO.parent.parent / "shared" / "traces",
    Path("/work/shared/traces"),
)

#: The seed's tables (Mbit/s; the thesis writes decimal commas). Table 6 / 7: per period and place,
#: all schemes averaged; Table 8 / 9: per scheme and place.
PAPER_T6 = {
    "vamk": (25.4563, 25.81134, 25.09461, 24.62392),
    "olympia": (21.21891, 21.14571, 20.28833, 20.20011),
    "ahventie": (23.28159, 22.188554, 22.15197, 22.137504),
}
PAPER_T7 = {
    "vamk": (6.34918087, 6.110073478, 5.945433731, 5.766039394),
    "olympia": (2.948151728, 2.895059725, 2.827395022, 2.744786468),
    "ahventie": (4.015784257, 3.25398923, 3.280852614, 3.435531199),
}
PAPER_T8 = {
    "ahventie": (21.39, 21.63, 22.19, 23.21, 23.93),
    "olympia": (20.80, 20.54, 20.85, 21.14, 20.20),
    "vamk": (23.08, 24.01, 23.17, 22.58, 33.38),
}
PAPER_T9 = {
    "ahventie": (1.60, 1.60, 1.60, 1.61, 11.05),
    "olympia": (1.67, 1.72, 1.71, 1.63, 7.51),
    "vamk": (5.27, 4.78, 2.29, 4.36, 13.48),
}
#: "Similar" in the seed's words: within this fraction of each other.
SIMILAR = 0.10
#: "Slightly" (Table 6: the periods differ by 2-5 %): a fall of at most this fraction.
SLIGHTLY = 0.20
#: A peak the plotter showed cannot be real above the modem's category: Huawei E392 is LTE category
#: 3 (100 Mbit/s down, 50 up; TS 36.306 Table 4.1-1); the seed's plots showed 240 and 106 Mbit/s.
MODEM_CATEGORY_MBPS = 100.0

PARAMS = (
    Param(
        "Windows' stack",
        "Compound TCP (`compound`, Tan et al., INFOCOM 2006, the engine's model)",
        "The seed's 'WinSock' is the Windows 7 stack it could not look into; Compound TCP is Windows' own "
        "congestion control of that era (on by default in Vista and Server 2008, an option in Windows 7). "
        "A stand-in: the seed's Windows runs also used other clients and the Windows modem driver.",
    ),
    Param(
        "places as radio profiles",
        "VAMK = cell centre (100 m from its site on the sector's boresight), Ahventie = cell edge (250 m, "
        "half-way to the next site), Olympia = indoor (100 m, plus 20 dB building entry loss)",
        "Section 3.3.1: VAMK is in the city centre with 'strong power of 4G', Ahventie 'the edge of 4G'; "
        "Olympia was slowest though the map showed strong 4G there, which the seed puts down to its room's "
        "window facing away from the antenna: a strong cell through a wall. 20 dB: TR 36.814 Table A.2.1.1-2.",
    ),
    Param(
        "cell layout and path loss",
        f"{BANDWIDTH_MHZ} MHz, {ENB_POWER_DBM:g} dBm, 19 three-sector sites (2 rings), ISD {ISD_M:g} m, parabolic "
        f"{BEAMWIDTH_DEG:g} degrees / {MAX_ATTENUATION_DB:g} dB, L = 128.1 + 37.6 log10(R/km), EPA fading at "
        f"{FADING_SPEED_KMH:g} km/h, no shadowing, RLC AM, proportional fair",
        "TR 36.814 Table A.2.1.1-2's macro case (the 3GPP evaluation layout); the seed names no band, so the "
        "engine's default carriers (2120/1930 MHz) match the 2 GHz formula. No shadowing: a place is one "
        "location, its shadowing one fixed value, not a new draw per repetition; repetitions differ by fading "
        "and the neighbours' load draws. RLC AM: operators carry TCP on acknowledged-mode bearers (QCI 8/9).",
    ),
    Param(
        "periods as load",
        ", ".join(f"{k} {v:g}" for k, v in PERIODS.items()),
        "The seed's own reading (section 4.1): channels fill as people start work. Load here is the share of "
        "PRBs each neighbour cell fills (its downlink interference) and the other users' demand in the "
        f"serving cell, {OTHERS_FULL_MBPS:g} Mbit/s x load as one rate-limited TCP flow; the evening is the "
        "busy hour. Our values, not a measurement: no operator data for Vaasa 2013 exists.",
    ),
    Param(
        "neighbours' uplink",
        "idle",
        "With the engine's open-loop power control (ns-3 LENA's P0 = -80 dBm, alpha = 1) a loaded uplink in "
        "every neighbour cell costs tens of dB of uplink SINR (docs/channel.md) and stops TCP's ACKs at 250 m; "
        "the seed's edge place still moved 3.3 Mbit/s up. The downlink carries the load.",
    ),
    Param(
        "transfer",
        f"293 MB down / 21.46 MB up, each run {DURATION_S:g} s; speed = bytes delivered over the flow's active time",
        "The seed's files (section 3.4.2) and its measure (size / time, section 3.4.3). At the rates here a "
        "293 MB download would take minutes of simulated time per run; the average over 30 s of a bulk "
        "transfer is the same quantity once slow start is over.",
    ),
    Param(
        "server",
        f"{SERVER_DELAY_MS:g} ms one way, {SERVER_RATE_MBPS:g} Mbit/s behind the EPC",
        "The seed used a domestic server for a stable wired section (section 3.4.2).",
    ),
    Param("seeds", "10 per point (the seed's ten repetitions)", "Section 3.1: 'ten times on different working days'."),
    Param(
        "traces",
        "Verizon-LTE-short and TMobile-LTE-short (down and up), 25 ms each way, 250-packet drop-tail, "
        f"{TRACE_RUN_S:g} s bulk runs, ten starts 13 s apart in the 140 s trace",
        "Mahimahi's Saturator recordings of real LTE (Winstein et al., NSDI 2013), distributed with Mahimahi "
        "under the GPL-3+ (its debian/copyright), so read from shared/traces, not shipped. 50 ms base RTT: LTE "
        "to a domestic server; the deep buffer: cellular queues (Jiang et al., IMC 2012).",
    ),
    Param(
        "kernel runs",
        f"reno, cubic, bbr on the first {KERNEL_STARTS} trace starts",
        "Real time on the Linux backend (root): 36 runs of 20 s; the kernel here has no Vegas, Westwood or Compound.",
    ),
)


# -- the LTE grid ------------------------------------------------------------------------------


def _channel(entry_loss_db: float, load: float) -> dict[str, Any]:
    return {
        "enb": {
            "position_m": [0.0, 0.0],
            "height_m": ENB_HEIGHT_M,
            "tx_power_dbm": ENB_POWER_DBM,
            "antenna": {
                "kind": "parabolic",
                "orientation_deg": 0.0,
                "beamwidth_deg": BEAMWIDTH_DEG,
                "max_attenuation_db": MAX_ATTENUATION_DB,
            },
        },
        "pathloss": {
            "model": "log_distance",
            "exponent": PATHLOSS_EXPONENT,
            "reference_distance_m": 1.0,
            "reference_loss_db": PATHLOSS_AT_1M_DB + entry_loss_db,
        },
        "fading": {"profile": "epa", "speed_kmh": FADING_SPEED_KMH},
        "hex_layout": {
            "rings": 2,
            "isd_m": ISD_M,
            "sectors": 3,
            "beamwidth_deg": BEAMWIDTH_DEG,
            "max_attenuation_db": MAX_ATTENUATION_DB,
            "load": {"kind": "fraction", "fraction": load},
            "uplink_load": {"kind": "idle"},
        },
    }


def lte_base(direction: str, place: str, duration_s: float) -> dict[str, Any]:
    """One run of the LTE grid: the test UE at the place, the other users' demand on a second UE."""
    _, distance_m, entry_loss_db = PLACES[place]
    busy = PERIODS["evening"]
    ues = [
        {"sinr": {"kind": "channel", "position_m": [distance_m, 0.0], "height_m": UE_HEIGHT_M}, "rlc": {"mode": "am"}},
        {
            "sinr": {"kind": "channel", "position_m": list(OTHERS_POSITION_M), "height_m": UE_HEIGHT_M},
            "rlc": {"mode": "am"},
        },
    ]
    ends = ("server", "ue0") if direction == "down" else ("ue0", "server")
    test = {
        "id": "test",
        "src": ends[0],
        "dst": ends[1],
        "cca": "cubic",
        "app": {"kind": "finite", "bytes": FILE_BYTES[direction]},
    }
    # The other users: Linux's default congestion control, whatever the test flow runs.
    others = {
        "id": "others",
        "src": "server",
        "dst": "ue1",
        "cca": "cubic",
        "app": {"kind": "rate_limited", "rate_mbps": OTHERS_FULL_MBPS * busy},
    }
    doc = builders.lte_cell(
        ues,
        BANDWIDTH_MHZ,
        [test, others],
        duration_s,
        internet_delay_ms=SERVER_DELAY_MS,
        internet_rate_mbps=SERVER_RATE_MBPS,
        names=["ue0", "ue1"],
        channel=_channel(entry_loss_db, busy),
    )
    doc |= {"name": f"li-jie-4g-{direction}-{place}", "seed": 1, "output": {"cwnd_trace": False, "rtt_trace": False}}
    return doc


def _period_axes(periods: tuple[str, ...]) -> list[dict[str, Any]]:
    loads = [PERIODS[p] for p in periods]
    return [
        {"path": "cells[0].channel.hex_layout.load.fraction", "values": loads, "zip": "period", "name": "load"},
        {
            "path": "flows[1].app.rate_mbps",
            "values": [OTHERS_FULL_MBPS * x for x in loads],
            "zip": "period",
            "name": "others_mbps",
        },
    ]


def _cca_axis(ccas: tuple[str, ...]) -> dict[str, Any]:
    return {"path": "flows[0].cca", "values": list(ccas), "name": "cca"}


# -- the trace grid ----------------------------------------------------------------------------


def trace_dir() -> Path | None:
    """Where the Mahimahi traces are: $CELLCC_TRACES, else shared/traces beside the checkout."""
    candidates = ([Path(os.environ[TRACE_ENV])] if os.environ.get(TRACE_ENV) else []) + list(TRACE_DIRS)
    for d in candidates:
        if all((d / f"{t}.{s}").is_file() for t in TRACES.values() for s in ("down", "up")):
            return d
    return None


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cellcc" / "li-jie-4g-traces"


def _trace_file(source: Path, start_s: float) -> Path:
    """The rotated copy of `source` (cached by content; run keys hash the bytes, not the path)."""
    text = source.read_text()
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    path = _cache_dir() / f"{source.name}-{digest}-at{int(start_s * 1000)}ms"
    if not path.is_file():
        lines = [int(x) for x in text.split()]
        write_file_atomically(path, "".join(f"{t}\n" for t in rotate(lines, int(start_s * 1000))).encode())
    return path


def trace_base(direction: str, duration_s: float, cca: str = "cubic") -> dict[str, Any]:
    ends = ("server", "client") if direction == "down" else ("client", "server")
    return {
        "version": 1,
        "name": f"li-jie-4g-trace-{direction}",
        "duration_s": duration_s,
        "seed": 1,
        "nodes": [{"id": "server", "kind": "host"}, {"id": "client", "kind": "host"}],
        "links": [
            {
                "id": "lte",
                "a": "server",
                "b": "client",
                "delay_ms": TRACE_ONE_WAY_MS,
                "queue": {"kind": "drop_tail", "limit_packets": TRACE_QUEUE_PACKETS},
                "forward": {"trace": "down.trace"},
                "reverse": {"trace": "up.trace"},
            }
        ],
        "flows": [{"id": "test", "src": ends[0], "dst": ends[1], "cca": cca, "app": {"kind": "bulk"}}],
        "output": {"cwnd_trace": False, "rtt_trace": True},
    }


def _trace_sweep(
    name: str,
    trace: str,
    direction: str,
    ccas: tuple[str, ...],
    starts: tuple[float, ...],
    duration_s: float,
    backend: str,
) -> SweepDef | None:
    d = trace_dir()
    if d is None:
        return None
    files = {s: [str(_trace_file(d / f"{TRACES[trace]}.{s}", t)) for t in starts] for s in ("down", "up")}
    base = trace_base(direction, duration_s)
    base["links"][0]["forward"]["trace"] = files["down"][0]
    base["links"][0]["reverse"]["trace"] = files["up"][0]
    axes = [
        _cca_axis(ccas),
        {"path": "links[0].forward.trace", "values": files["down"], "zip": "start", "name": "trace_down"},
        {"path": "links[0].reverse.trace", "values": files["up"], "zip": "start", "name": "trace_up"},
        {"path": "description", "values": [f"start {t:g} s" for t in starts], "zip": "start", "name": "start"},
    ]
    return SweepDef(name, base, axes, 1, description=f"{trace} trace, {direction}: CCA x start", backend=backend)


def sweeps(seeds: int, quick: bool, platform: Platform) -> list[SweepDef]:
    """The grid of the module doc; the same on every platform (the kernel sweeps run on the default only)."""
    duration = QUICK_DURATION_S if quick else DURATION_S
    periods = QUICK_PERIODS if quick else tuple(PERIODS)
    out = [
        SweepDef(
            f"lte-{direction}-{place}",
            lte_base(direction, place, duration),
            [_cca_axis(CCAS), *_period_axes(periods)],
            seeds,
            description=f"{direction}link at {PLACE_LABEL[place]}: CCA x period",
        )
        for direction in DIRECTIONS
        for place in PLACES
    ]
    traces = QUICK_TRACES if quick else tuple(TRACES)
    starts = QUICK_TRACE_STARTS_S if quick else TRACE_STARTS_S
    run_s = QUICK_TRACE_RUN_S if quick else TRACE_RUN_S
    n_kernel = QUICK_KERNEL_STARTS if quick else KERNEL_STARTS
    for trace in traces:
        for direction in DIRECTIONS:
            engine = _trace_sweep(
                f"trace-{trace}-{direction}", trace, direction, (*CCAS, "bbr"), starts, run_s, "engine"
            )
            ccas = ("cubic",) if quick else KERNEL_CCAS
            if quick and direction == "up":
                kernel = None
            else:
                kernel = _trace_sweep(
                    f"kernel-{trace}-{direction}", trace, direction, ccas, starts[:n_kernel], run_s, "linux"
                )
            out += [s for s in (engine, kernel) if s is not None]
    return out


# -- data --------------------------------------------------------------------------------------


def _period_of(load: float) -> str:
    return min(PERIODS, key=lambda p: abs(PERIODS[p] - load))


def _lte_runs(stores: dict[str, Store]) -> pd.DataFrame:
    frames = []
    for direction in DIRECTIONS:
        for place in PLACES:
            store = stores.get(f"lte-{direction}-{place}")
            if store is None:
                continue
            f = store.query(
                "SELECT seed, cca, load, goodput_bps / 1e6 AS speed_mbps, rtt_p95_ms, retransmits FROM flows "
                "WHERE flow_id = 'test'"
            )
            peaks = store.query(
                "SELECT seed, cca, load, max(throughput_bps) / 1e6 AS peak_mbps FROM timeseries WHERE flow_id = 'test' "
                "GROUP BY ALL"
            )
            f = f.merge(peaks, on=["seed", "cca", "load"])
            frames.append(f.assign(direction=direction, place=place, period=f["load"].map(_period_of)))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _radio(stores: dict[str, Store]) -> pd.DataFrame:
    rows = []
    for place in PLACES:
        store = stores.get(f"lte-down-{place}")
        if store is None:
            continue
        r = store.query(
            "SELECT load, dir, avg(cqi) AS cqi, avg(mcs_mean) AS mcs, avg(capacity_bps) / 1e6 AS capacity_mbps "
            "FROM lte WHERE ue = 'ue0' GROUP BY ALL ORDER BY ALL"
        )
        rows.append(r.assign(place=place, period=r["load"].map(_period_of)))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()


def _trace_runs(stores: dict[str, Store]) -> pd.DataFrame:
    frames = []
    for name, store in stores.items():
        if not name.startswith(("trace-", "kernel-")):
            continue
        side, trace, direction = name.split("-")
        f = store.query("SELECT start, cca, goodput_bps / 1e6 AS speed_mbps, rtt_p95_ms, retransmits FROM flows")
        frames.append(f.assign(side="engine" if side == "trace" else "kernel", trace=trace, direction=direction))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


# -- tables ------------------------------------------------------------------------------------


def _cell(values: pd.Series) -> str:
    return f"{ci_text(values.to_numpy(dtype=float), '{:.2f}')} (n={len(values)})"


def table_by_period(runs: pd.DataFrame, direction: str, paper: dict[str, tuple]) -> pd.DataFrame:
    """Tables 6 / 7: mean speed per period and place over every scheme and seed; the paper beside."""
    rows = []
    mine = runs[runs["direction"] == direction]
    for i, period in enumerate(PERIODS):
        at = mine[mine["period"] == period]
        if at.empty:
            continue
        row: dict[str, Any] = {"period": period}
        for place in PLACES:
            row[PLACE_LABEL[place]] = _cell(at[at["place"] == place]["speed_mbps"])
            row[f"paper {place}"] = f"{paper[place][i]:.2f}"
        rows.append(row)
    return pd.DataFrame(rows)


def table_by_scheme(runs: pd.DataFrame, direction: str, paper: dict[str, tuple]) -> pd.DataFrame:
    """Tables 8 / 9: mean speed per scheme and place over every period and seed, the order of the
    schemes, and the paper's values and order beside."""
    rows = []
    mine = runs[runs["direction"] == direction]
    for place in PLACES:
        at = mine[mine["place"] == place]
        if at.empty:
            continue
        means = at.groupby("cca")["speed_mbps"].mean()
        row: dict[str, Any] = {"place": PLACE_LABEL[place]}
        for cca in CCAS:
            row[SCHEME[cca]] = _cell(at[at["cca"] == cca]["speed_mbps"])
        row["order (cellcc)"] = " > ".join(SCHEME[c].split(" ")[0] for c in means.sort_values(ascending=False).index)
        paper_means = dict(zip(CCAS, paper[place], strict=True))
        row["paper"] = ", ".join(f"{SCHEME[c].split(' ')[0]} {v:.2f}" for c, v in paper_means.items())
        row["order (paper)"] = " > ".join(
            SCHEME[c].split(" ")[0] for c in sorted(paper_means, key=lambda c: -paper_means[c])
        )
        rows.append(row)
    return pd.DataFrame(rows)


def _trace_table(traces: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (trace, direction), g in traces.groupby(["trace", "direction"], sort=True):
        for cca in (*CCAS, "bbr"):
            e = g[(g["cca"] == cca) & (g["side"] == "engine")]
            k = g[(g["cca"] == cca) & (g["side"] == "kernel")]
            if e.empty:
                continue
            row = {
                "trace": trace,
                "direction": direction,
                "CCA": SCHEME.get(cca, "BBR"),
                "engine Mbit/s": _cell(e["speed_mbps"]),
                "engine p95 RTT ms": ci_text(e["rtt_p95_ms"], "{:.0f}"),
            }
            if not k.empty:
                same = e[e["start"].isin(k["start"])]
                row["kernel Mbit/s"] = _cell(k["speed_mbps"])
                row["kernel p95 RTT ms"] = ci_text(k["rtt_p95_ms"], "{:.0f}")
                ratio = same["speed_mbps"].mean() / k["speed_mbps"].mean() if k["speed_mbps"].mean() else math.nan
                row["engine/kernel (same starts)"] = f"{ratio:.3f}"
            rows.append(row)
    return pd.DataFrame(rows).fillna("-")


# -- figures -----------------------------------------------------------------------------------


def _bars(runs: pd.DataFrame, direction: str) -> bytes:
    fig, ax = plt.subplots(figsize=(7.0, 4.0))
    mine = runs[runs["direction"] == direction]
    width = 0.8 / len(CCAS)
    for i, cca in enumerate(CCAS):
        means, errs = [], []
        for place in PLACES:
            v = mine[(mine["place"] == place) & (mine["cca"] == cca)]["speed_mbps"].to_numpy(dtype=float)
            means.append(v.mean() if len(v) else math.nan)
            errs.append(v.std(ddof=1) / math.sqrt(len(v)) * 1.96 if len(v) > 1 else 0.0)
        x = np.arange(len(PLACES)) + (i - len(CCAS) / 2 + 0.5) * width
        ax.bar(x, means, width, yerr=errs, label=SCHEME[cca], capsize=2)
    ax.set_xticks(np.arange(len(PLACES)), [PLACE_LABEL[p] for p in PLACES], fontsize="small")
    ax.set_ylabel("average speed (Mbit/s)")
    ax.set_title(f"{direction}link: five schemes per place (mean, ~95% interval)")
    ax.legend(fontsize="x-small", ncol=3)
    ax.grid(alpha=0.3, axis="y")
    return _png(fig)


def _period_lines(runs: pd.DataFrame, direction: str) -> bytes:
    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    mine = runs[runs["direction"] == direction]
    periods = [p for p in PERIODS if p in set(mine["period"])]
    for place in PLACES:
        means = [mine[(mine["place"] == place) & (mine["period"] == p)]["speed_mbps"].mean() for p in periods]
        ax.plot(periods, means, marker="o", label=PLACE_LABEL[place])
    ax.set_ylabel("average speed (Mbit/s)")
    ax.set_title(f"{direction}link speed per period (all schemes)")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return _png(fig)


def _trace_bars(traces: pd.DataFrame) -> bytes:
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 4.0), sharey=False)
    for ax, direction in zip(axes, DIRECTIONS, strict=True):
        g = traces[traces["direction"] == direction]
        labels, x = [], 0
        for (trace, cca), h in g.groupby(["trace", "cca"], sort=True):
            for side, colour in (("engine", "tab:blue"), ("kernel", "tab:orange")):
                v = h[h["side"] == side]["speed_mbps"]
                if len(v):
                    ax.bar(x, v.mean(), 0.8, color=colour, label=side if not labels else None)
                    x += 1
            labels.append((x - 1, f"{trace}\n{cca}"))
            x += 0.5
        ax.set_xticks([p for p, _ in labels], [t for _, t in labels], fontsize="x-small", rotation=90)
        ax.set_title(f"{direction}link over the traces")
        ax.set_ylabel("average speed (Mbit/s)")
        ax.grid(alpha=0.3, axis="y")
    axes[0].legend(fontsize="small")
    fig.tight_layout()
    return _png(fig)


# -- findings ----------------------------------------------------------------------------------

CLAIMS = (
    "All schemes perform better in good 4G than in bad 4G (up and down)",
    "Speeds decrease slightly as the channels fill: early morning > forenoon > afternoon > evening",
    "Downlink: Westwood performs the best where the network is not good (Olympia)",
    "Downlink: Vegas behaves better than Cubic (at every place)",
    "Downlink: WinSock is the best at VAMK and Ahventie, not at Olympia",
    "Uplink: WinSock has an overwhelming superiority (3-7x the Linux schemes)",
    "Uplink: Vegas performs badly (web-based, VAMK: about half the others)",
    "Uplink at Ahventie and Olympia: Cubic, Reno, Vegas and Westwood behave similarly",
    "Places, downlink: VAMK > Ahventie > Olympia",
    "High speeds occur now and then (Reno 240 Mbit/s, Vegas 106 Mbit/s)",
    "Web-based FTP outweighs terminal-based; FTP clients differ",
    "Over real LTE traces: Westwood is the best downlink on the poorer path",
)
PAPER = (
    "Conclusion (1); Tables 8-9",
    "Table 6; Table 7 (Ahventie's evening the exception)",
    "Table 8, Olympia: Westwood 21.14 first",
    "Table 8: 22.19/21.39, 20.85/20.80, 23.17/23.08",
    "Table 8: 33.38 and 23.93 first; Olympia last (20.20)",
    "Table 9: 11.05 / 7.51 / 13.48 vs 1.6-5.3",
    "Table 9, VAMK: Vegas 2.29 vs 4.36-5.27",
    "Table 9: 1.60-1.72",
    "Tables 6 and 8",
    "Figures 34 and 43",
    "Tables 11-12, section 4.3",
    "(no traces in the seed; its Conclusion (1) for downlink)",
)


def _means(runs: pd.DataFrame, **where: Any) -> pd.Series:
    mask = pd.Series(True, index=runs.index)
    for column, value in where.items():
        mask &= runs[column] == value
    return runs[mask].groupby("cca")["speed_mbps"].mean()


def _paired(runs: pd.DataFrame, a: str, b: str, **where: Any):
    mask = pd.Series(True, index=runs.index)
    for column, value in where.items():
        mask &= runs[column] == value
    sub = runs[mask].assign(pair=lambda f: f["seed"].astype(str) + "/" + f["period"].astype(str))
    return paired_difference(sub.drop(columns="seed").rename(columns={"pair": "seed"}), "cca", a, b, "speed_mbps")


def _f_places(runs: pd.DataFrame) -> tuple[str, Verdict, str]:
    parts, ok = [], True
    for d in DIRECTIONS:
        by_place = {p: _means(runs, direction=d, place=p) for p in PLACES}
        good = all(by_place["vamk"][c] > max(by_place["ahventie"][c], by_place["olympia"][c]) for c in CCAS)
        ok &= good
        parts.append(
            f"{d}: centre {by_place['vamk'].mean():.2f} vs edge {by_place['ahventie'].mean():.2f}, indoor "
            f"{by_place['olympia'].mean():.2f} Mbit/s" + ("" if good else " (not for every scheme)")
        )
    return (
        "; ".join(parts),
        Verdict.AGREES if ok else Verdict.DIFFERS,
        (
            "The centre place has the best SINR (it is near its site, with the neighbours far), so every scheme gets "
            "more there. Indoor, 20 dB of building loss weakens the serving cell and the interferers alike, so its "
            "downlink SINR barely moves while the uplink, power-limited, loses those 20 dB; the edge loses to both."
        ),
    )


def _f_periods(runs: pd.DataFrame) -> tuple[str, Verdict, str]:
    falls: dict[str, float] = {}
    for d in DIRECTIONS:
        for p in PLACES:
            by = runs[(runs["direction"] == d) & (runs["place"] == p)].groupby("period")["speed_mbps"].mean()
            if "early-morning" in by and "evening" in by and by["early-morning"]:
                falls[f"{d} {p}"] = (by["early-morning"] - by["evening"]) / by["early-morning"]
    big = [k for k, v in falls.items() if v > SLIGHTLY]
    none = [k for k, v in falls.items() if v <= 0]
    ok = not big and not none
    why = ["Load here is the neighbours' PRB share (their downlink interference) and the other users' demand in "
           "the cell (parameters)."]  # fmt: skip
    if big:
        why.append(
            f"The fall is far from slight for {', '.join(big)}: where the test flow would fill the cell alone, both "
            "the interference and the other users' share of the PRBs cut its rate; the seed's 2-5 % says its cells "
            "were much less loaded at the busy hour than ours (our loads are a choice, not a measurement)."
        )
    up = [k for k in none if k.startswith("up")]
    down = [k for k in none if k.startswith("down")]
    if up:
        why.append(
            f"There is no fall for {', '.join(up)}: the load here is the downlink's (the neighbours' uplink is "
            "idle, the other users download; parameters), so an upload meets the same uplink in every period."
        )
    if down:
        why.append(
            f"There is no fall for {', '.join(down)}: there the uplink limits the download (the indoor UE's power "
            "carries the ACKs), and the downlink's load is not what holds it back."
        )
    return (
        "early morning -> evening: " + ", ".join(f"{k} {-v:+.0%}" for k, v in falls.items()),
        Verdict.AGREES if ok else Verdict.DIFFERS,
        " ".join(why) if not ok else why[0] + " Both grow towards the evening and every place loses a little.",
    )


def _f_westwood_poor(runs: pd.DataFrame) -> tuple[str, Verdict, str]:
    means = _means(runs, direction="down", place="olympia")
    best = means.idxmax()
    diff = _paired(
        runs,
        "westwood",
        best if best != "westwood" else means.drop("westwood").idxmax(),
        direction="down",
        place="olympia",
    )
    ok = best == "westwood" and diff.significant
    return (
        f"indoor downlink: best {SCHEME[best]} ({means[best]:.2f}); "
        f"Westwood vs the next: {diff.text(' Mbit/s', '{:.2f}')}",
        Verdict.AGREES if ok else Verdict.DIFFERS,
        (
            "Westwood sets ssthresh from its bandwidth estimate after a loss instead of halving. On our indoor cell "
            "losses come from the RLC buffer overflowing behind the radio bottleneck (HARQ and RLC AM repair the air "
            "losses), which is congestion, not the random loss Westwood is built for; so it has no edge there."
            if not ok
            else "Westwood's one mechanism the others lack is its window after a loss: its bandwidth estimate times "
            "the minimum RTT, not a fraction of the window. Indoors the weak uplink bunches the ACKs and inflates the "
            "RTT, and Westwood keeps more of its window through it; we did not trace the loss episodes further."
        ),
    )


def _f_vegas_cubic(runs: pd.DataFrame) -> tuple[str, Verdict, str]:
    parts, ok = [], True
    for p in PLACES:
        diff = _paired(runs, "vegas", "cubic", direction="down", place=p)
        parts.append(f"{p}: {diff.text(' Mbit/s', '{:.2f}')}")
        ok &= ordering_verdict(True, diff) is Verdict.AGREES
    return (
        "Vegas vs Cubic downlink, paired by seed and period: " + "; ".join(parts),
        Verdict.AGREES if ok else Verdict.DIFFERS,
        (
            "Vegas shrinks its window when the RTT rises above its minimum. On an LTE cell the RTT varies with no "
            "queue behind it: the uplink's scheduling requests and grants carry every ACK (docs/lte.md), HARQ "
            "retransmissions add 8 ms, the scheduler serves the UE in turns. Vegas reads that as queueing and keeps "
            "a window below what the cell carries, where Cubic fills the eNB's RLC buffer. The seed's own margins "
            "(0.05-0.8 Mbit/s, one sample of ten runs each, no interval) could not separate the two."
        ),
    )


def _f_winsock_down(runs: pd.DataFrame) -> tuple[str, Verdict, str]:
    ranks = {p: list(_means(runs, direction="down", place=p).sort_values(ascending=False).index) for p in PLACES}
    pos = {p: r.index("compound") + 1 for p, r in ranks.items()}
    ok = pos["vamk"] == 1 and pos["ahventie"] == 1 and pos["olympia"] > 1
    return (
        "Compound's rank of five, downlink: " + ", ".join(f"{p} {n}" for p, n in pos.items()),
        Verdict.AGREES if ok else Verdict.DIFFERS,
        (
            "Compound adds a delay-based window to Reno's; over a cell that the flow fills it gains little. The "
            "seed's Windows downloads also ran another browser and Windows' own receive-window tuning, which a "
            "congestion control does not carry: the 33.38 Mbit/s at VAMK (45 % above every Linux scheme) is not "
            "what the sender's algorithm alone can do on the same cell."
        ),
    )


def _f_winsock_up(runs: pd.DataFrame) -> tuple[str, Verdict, str]:
    parts, ratios = [], []
    for p in PLACES:
        m = _means(runs, direction="up", place=p)
        ratio = m["compound"] / m.drop("compound").mean()
        ratios.append(ratio)
        parts.append(f"{p} {ratio:.2f}x")
    ok = min(ratios) >= 2
    return (
        "Compound / the Linux schemes' mean, uplink: " + ", ".join(parts),
        Verdict.AGREES if ok else Verdict.DIFFERS,
        (
            "No congestion control makes a 3-7x difference on one uplink. The seed's own Table 10 says why: over "
            "Ethernet Cubic (56.24) beat WinSock (46.4), so the gap is not the stack's algorithm but what else "
            "differed (the SFTP client, SecPanel vs WinScp, whose own window caps an upload, and the modem driver); "
            "the seed concludes as much ('WinSock just has better abilities in controlling the modem')."
        ),
    )


def _f_vegas_up(runs: pd.DataFrame) -> tuple[str, Verdict, str]:
    others = [c for c in ("cubic", "reno", "westwood")]
    diffs = [_paired(runs, "vegas", c, direction="up", place="vamk") for c in others]
    ok = all(ordering_verdict(False, d) is Verdict.AGREES for d in diffs)
    return (
        "centre uplink, Vegas vs "
        + "; ".join(f"{c}: {d.text(' Mbit/s', '{:.2f}')}" for c, d in zip(others, diffs, strict=True)),
        Verdict.AGREES if ok else Verdict.DIFFERS,
        (
            "The LTE uplink waits for scheduling requests and grants (docs/lte.md): its RTT varies by several "
            "milliseconds with no queue behind it, and Vegas takes that as a queue and shrinks its window"
            + ("." if ok else "; here the effect stays within the seeds' spread.")
        ),
    )


def _f_similar_up(runs: pd.DataFrame) -> tuple[str, Verdict, str]:
    parts, ok = [], True
    for p in ("ahventie", "olympia"):
        m = _means(runs, direction="up", place=p)[["cubic", "reno", "vegas", "westwood"]]
        spread = (m.max() - m.min()) / m.mean()
        ok &= spread <= SIMILAR * 2
        parts.append(f"{p}: {m.min():.2f}-{m.max():.2f} Mbit/s ({spread:.0%} spread)")
    return (
        "; ".join(parts),
        Verdict.AGREES if ok else Verdict.DIFFERS,
        (
            "At the edge and indoors the uplink's SINR sets the rate; every window-based scheme fills the few PRBs "
            "the UE's power can use."
            if ok
            else "The schemes differ more than the seed's 1.60-1.72: on our uplink the delay-based ones (Vegas) react "
            "to the "
            "grant delays, and the loss-based ones keep the uplink's RLC buffer full."
        ),
    )


def _f_place_order(runs: pd.DataFrame) -> tuple[str, Verdict, str]:
    m = runs[runs["direction"] == "down"].groupby("place")["speed_mbps"].mean()
    order = list(m.sort_values(ascending=False).index)
    ok = order == ["vamk", "ahventie", "olympia"]
    return (
        " > ".join(f"{p} {m[p]:.2f}" for p in order),
        Verdict.AGREES if ok else Verdict.DIFFERS,
        (
            "The seed's order puts the edge above a strong-signal place, which it explains by the window's "
            "orientation at Olympia. Our indoor profile is that explanation as a model (20 dB entry loss at 100 m); "
            "whether it lands below the edge depends on which limits more: the edge's interference or the indoor "
            "uplink's power."
        ),
    )


def _f_peaks(runs: pd.DataFrame) -> tuple[str, Verdict, str]:
    peak = runs["peak_mbps"].max()
    above = peak > MODEM_CATEGORY_MBPS
    where = (
        f"which stay under the category: a {BANDWIDTH_MHZ} MHz SISO cell peaks at 75 Mbit/s (docs/lte.md)."
        if not above
        else "some above the category: bursts the cell's reordering releases at once, not the air rate."
    )
    return (
        f"highest 100 ms throughput of any run: {peak:.1f} Mbit/s",
        Verdict.AGREES if above else Verdict.DIFFERS,
        f"The seed's peaks are above its modem's category (Huawei E392, LTE category 3: {MODEM_CATEGORY_MBPS:g} "
        "Mbit/s), so they were not on the air: KNemo rescales its plot to its window (section 4.4), a plotter "
        "artefact. Ours are the IP bytes that reached the receiver in each 100 ms slot, "
        + where
        + " `cellcc live` records the interface counters every 100 ms with timestamps for this reason.",
    )


def _f_ftp() -> tuple[str, Verdict, str]:
    return (
        "not modelled",
        Verdict.BLOCKED,
        (
            "The applications (SFTP clients, Funet's web upload) are not congestion controls and cellcc does not model "
            "them; the live mode measures every scheme with one sender, which is the control the seed lacked."
        ),
    )


def _f_traces(traces: pd.DataFrame) -> tuple[str, Verdict, str]:
    if traces.empty:
        return (
            "the traces are not on this machine",
            Verdict.BLOCKED,
            (
                f"The Mahimahi traces are read from shared/traces (or ${TRACE_ENV}); without them the trace grid "
                "cannot run."
            ),
        )
    eng = traces[(traces["side"] == "engine") & (traces["direction"] == "down")]
    rates = eng.groupby("trace")["speed_mbps"].mean()
    poor = rates.idxmin()
    m = eng[eng["trace"] == poor].groupby("cca")["speed_mbps"].mean().drop("bbr", errors="ignore")
    best = m.idxmax()
    ok = best == "westwood"
    return (
        f"{poor} (the poorer, {rates[poor]:.2f} Mbit/s mean): best {SCHEME[best]} {m[best]:.2f}, "
        f"Westwood {m['westwood']:.2f}",
        Verdict.AGREES if ok else Verdict.DIFFERS,
        (
            "A trace link loses only by overflowing its drop-tail queue: every loss is congestion, so Westwood's "
            "bandwidth estimate buys nothing over Reno's halving; the schemes that keep the 250-packet buffer fullest "
            "keep the trace's opportunities used."
        ),
    )


def _findings(runs: pd.DataFrame, traces: pd.DataFrame) -> list[Finding]:
    makers = (
        lambda: _f_places(runs),
        lambda: _f_periods(runs),
        lambda: _f_westwood_poor(runs),
        lambda: _f_vegas_cubic(runs),
        lambda: _f_winsock_down(runs),
        lambda: _f_winsock_up(runs),
        lambda: _f_vegas_up(runs),
        lambda: _f_similar_up(runs),
        lambda: _f_place_order(runs),
        lambda: _f_peaks(runs),
        _f_ftp,
        lambda: _f_traces(traces),
    )
    return [Finding(c, p, *make()) for c, p, make in zip(CLAIMS, PAPER, makers, strict=True)]


# -- the report --------------------------------------------------------------------------------


def _radio_table(radio: pd.DataFrame) -> pd.DataFrame:
    if radio.empty:
        return radio
    wide = radio.pivot_table(index=["place", "period"], columns="dir", values=["cqi", "capacity_mbps"])
    wide.columns = [f"{d.upper()} {m.replace('_mbps', ' Mbit/s')}" for m, d in wide.columns]
    out = wide.reset_index()
    out["place"] = out["place"].map(PLACE_LABEL)
    return out.round(2)


def _kernel_text(traces: pd.DataFrame) -> str:
    from cellcc.backends.netns import missing_privileges

    if traces.empty:
        return ""
    kernel = traces[traces["side"] == "kernel"]
    if kernel.empty:
        why = missing_privileges() or "the kernel sweeps did not run"
        return f"Kernel runs: blocked on this machine ({why})."
    ratios = []
    for (trace, direction, cca), k in kernel.groupby(["trace", "direction", "cca"]):
        e = traces[
            (traces["side"] == "engine")
            & (traces["trace"] == trace)
            & (traces["direction"] == direction)
            & (traces["cca"] == cca)
            & traces["start"].isin(k["start"])
        ]
        if len(e) and k["speed_mbps"].mean():
            ratios.append(e["speed_mbps"].mean() / k["speed_mbps"].mean())
    worst = max(abs(r - 1) for r in ratios) if ratios else math.nan
    return (
        f"On the kernel ({len(kernel)} real-time runs on the Linux backend) the engine's mean speed is within "
        f"{worst:.1%} of the kernel's in every one of the {len(ratios)} (trace, direction, CCA) cells, on the same "
        "trace starts."
    )


def _lena_note(runs: pd.DataFrame, lena: pd.DataFrame) -> str:
    """What LENA with ns-3's TCP does to the grid (the same cells on the other platform): why verdicts move."""
    if runs.empty or lena.empty:
        return ""
    parts = []
    for direction in DIRECTIONS:
        own = runs[runs["direction"] == direction]
        other = lena[lena["direction"] == direction]
        if own.empty or other.empty:
            continue
        spread = other.groupby("cca")["speed_mbps"].mean()
        parts.append(
            f"{direction}link {other['speed_mbps'].mean():.1f} Mbit/s on LENA against {own['speed_mbps'].mean():.1f} "
            f"on the default (the five schemes {spread.min():.1f}-{spread.max():.1f} on LENA)"
        )
    return (
        "What moves them: the same places and loads on ns-3 LENA with ns-3's TCP give, over all schemes, "
        + "; ".join(parts)
        + ". LENA's cell takes the uplink MCS from the minimum SINR over the RBs it grants, asks for a CQI "
        "every TTI and has no outer loop, and ns-3's TCP offers a 131072-byte window (docs/lte.md 'Profiles', "
        "docs/tcp.md): where those bind, the schemes' differences shrink or change sign."
    )


def report(platform_stores: dict[str, dict[str, Store]], quick: bool) -> list[Block]:
    stores = platform_stores[PLATFORM.name]
    runs = _lte_runs(stores)
    traces = _trace_runs(stores)
    radio = _radio(stores)
    other = other_platform(PLATFORM)
    other_runs = _lte_runs(platform_stores[other.name])
    other_findings = _findings(other_runs, _trace_runs(platform_stores[other.name]))
    blocks = [
        Block("h1", TITLE),
        Block(
            "p",
            "The seed's grid on cellcc's LTE cell (places as radio profiles, periods as load) and over real "
            "LTE capacity traces, on the engine and for reno, cubic and bbr on the Linux kernel. Speeds are "
            "means ± 95 % Student-t intervals over the runs each cell pools (n given); the seed gave neither."
            + (" QUICK MODE: two-second runs, two periods, one trace; not a result." if quick else ""),
        ),
        *params_block(PARAMS),
        Block("h2", "Radio conditions per place and period (the test UE)"),
        Block("table", table=_radio_table(radio)),
        Block("h2", "Table 6 re-made: average downlink speed per period and place (Mbit/s, all schemes)"),
        Block("table", table=table_by_period(runs, "down", PAPER_T6)),
        figure("downlink speed per period", lambda: _period_lines(runs, "down")),
        Block("h2", "Table 7 re-made: average uplink speed per period and place (Mbit/s, all schemes)"),
        Block("table", table=table_by_period(runs, "up", PAPER_T7)),
        figure("uplink speed per period", lambda: _period_lines(runs, "up")),
        Block("h2", "Table 8 re-made: average downlink speed of the five schemes per place (Mbit/s, all periods)"),
        Block("table", table=table_by_scheme(runs, "down", PAPER_T8)),
        figure("downlink speed per scheme and place (Figure 20)", lambda: _bars(runs, "down")),
        Block("h2", "Table 9 re-made: average uplink speed of the five schemes per place (Mbit/s, all periods)"),
        Block("table", table=table_by_scheme(runs, "up", PAPER_T9)),
        figure("uplink speed per scheme and place (Figure 22)", lambda: _bars(runs, "up")),
        Block("h2", "The same schemes over real LTE traces, engine and kernel"),
    ]
    if traces.empty:
        blocks.append(
            Block("p", f"BLOCKED: the Mahimahi traces are not on this machine (shared/traces or ${TRACE_ENV}).")
        )
    else:
        blocks += [
            Block(
                "p",
                "Ten repetitions per cell, each starting at another point of the 140 s trace; " + _kernel_text(traces),
            ),
            Block("table", table=_trace_table(traces)),
            figure("speed over the traces, engine and kernel", lambda: _trace_bars(traces)),
        ]
    blocks += [
        Block("h2", "Live: the seed's plan on a real network"),
        Block(
            "p",
            "`docs/studies/li-jie-4g/plan.toml` is the seed's plan as a live plan (1200 runs, 189 GB of "
            "transfers; `cellcc live estimate` adds the saturator's recordings). On the laptop with the modem: "
            "`cellcc live run docs/studies/li-jie-4g/plan.toml --place vamk` in each period's window, against "
            "`cellcc live serve` on a wired host (docs/live.md). Each run records the path's capacity before and "
            "after as Mahimahi traces, the radio, and the interface counters; `cellcc live replay` sets it beside "
            "the engine and the kernel. Its store answers `cellcc query` and `cellcc report` as this grid's does.",
        ),
        *platform_findings_blocks(
            PLATFORM,
            {PLATFORM.name: _findings(runs, traces), other.name: other_findings},
            _lena_note(runs, other_runs),
        ),
    ]
    return blocks
