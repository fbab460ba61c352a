"""One UE on an LTE cell at fixed SINRs, on the engine and on ns-3 LENA (cellcc's ns-3 backend),
side by side: the tables of docs/ns3.md (issue 9). Prints Markdown; each cell is
"engine / ns-3", a `*` marks a throughput ratio outside 0.9-1.1 or a delay ratio outside 0.8-1.2.

    .venv/bin/python scripts/ns3_lte_sweep.py udp    # saturated UDP, 5/10/20 MHz, 0..25 dB
    .venv/bin/python scripts/ns3_lte_sweep.py tcp    # bulk TCP at 20 MHz (TCP_ROWS)
    .venv/bin/python scripts/ns3_lte_sweep.py tcp ns3  # the same, both sides under tcp.profile = "ns3"
    .venv/bin/python scripts/ns3_lte_sweep.py seed000  # seed 000's cell: 14 UEs, 1 Mbit/s TCP each

The scenarios are lte_single_ue.toml's shape (server -- 1 Gbit/s, 10 ms -- PGW -- S1-U
10 Gbit/s, 1 ms -- eNB ~~ UE), built by `cellcc.builders.lte_cell`.
"""

from __future__ import annotations

import sys
import time

import cellcc
from cellcc import builders
from cellcc.backends.crosscheck import FLAGGED
from cellcc.backends.ns3 import run as ns3_run
from cellcc.backends.ns3.lte import as_lena

SINRS_DB = (0, 5, 10, 15, 20, 25)
BANDWIDTHS_MHZ = (5, 10, 20)
#: Above the 20 MHz SISO peak (LENA's largest TBS, 75376 bits per ms = 75 Mbit/s): saturates.
SATURATING_UDP_MBPS = 100
#: seed 004's RLC buffer, and ns-3's default MaxTxBufferSize (lte-rlc-um.cc, lte-rlc-am.cc).
RLC_BUFFERS = {"1 MiB": 1024 * 1024, "10 KiB": 10 * 1024}
#: (CCA, RLC mode, buffer) rows: CUBIC in all four RLC settings, NewReno and BBR on AM / 1 MiB.
TCP_ROWS = (
    *(("cubic", mode, buf) for mode in ("am", "um") for buf in RLC_BUFFERS),
    ("newreno", "am", "1 MiB"),
    ("bbr", "am", "1 MiB"),
)


#: Issue 9's tolerances, the ones `cellcc crosscheck` stars: throughput 10 %, delay 20 %.
THROUGHPUT_TOLERANCE = FLAGGED["throughput_mbps"]
DELAY_TOLERANCE = FLAGGED["delay_ms"]


def both(sc: dict):
    """(engine output, ns-3 output, engine wall s, ns-3 wall s) of one scenario."""
    started = time.perf_counter()
    # The engine under the LENA profile, as ns-3 runs its cell (backends/ns3/lte.py `as_lena`).
    engine = cellcc.run(as_lena(sc)[0])
    engine_wall = time.perf_counter() - started
    started = time.perf_counter()
    ns3 = ns3_run.run(sc)
    return engine, ns3, engine_wall, time.perf_counter() - started


def pair(engine: float, ns3: float, fmt: str, tolerance: float) -> str:
    """ "engine / ns-3", starred when their ratio is outside 1 +- tolerance."""
    star = " *" if ns3 > 0 and abs(engine / ns3 - 1) > tolerance else ""
    return f"{engine:{fmt}} / {ns3:{fmt}}{star}"


def dl_mcs(lte) -> float:
    dl = lte[lte["dir"] == "dl"]
    return float((dl["mcs_mean"] * dl["tbs"]).sum() / dl["tbs"].sum())


def scenario(db: float, mhz: float, app: dict, rlc: dict, cca: str = "cubic", duration_s: float = 2.0) -> dict:
    flow = {"id": "down", "src": "server", "dst": "ue", "app": app}
    flow |= {"transport": "udp"} if app["kind"] == "cbr" else {"cca": cca}
    return builders.lte_cell([{"sinr": {"kind": "fixed", "db": db}, "rlc": rlc}], mhz, [flow], duration_s)


def udp_table() -> None:
    print("| SINR dB | " + " | ".join(f"{m} MHz Mbit/s (DL MCS)" for m in BANDWIDTHS_MHZ) + " |")
    print("|---:|" + "---:|" * len(BANDWIDTHS_MHZ))
    app = {"kind": "cbr", "rate_mbps": SATURATING_UDP_MBPS, "packet_bytes": 1400}
    for db in SINRS_DB:
        cells = []
        for mhz in BANDWIDTHS_MHZ:
            engine, ns3, _, _ = both(scenario(db, mhz, app, {"mode": "um"}, duration_s=1.0))
            rates = [out.flows["throughput_bps"].iloc[0] / 1e6 for out in (engine, ns3)]
            mcs = f"{dl_mcs(engine.lte):.1f} / {dl_mcs(ns3.lte):.1f}"
            cells.append(f"{pair(*rates, '.2f', THROUGHPUT_TOLERANCE)} ({mcs})")
        print(f"| {db} | " + " | ".join(cells) + " |", flush=True)


def tcp_table(tcp_profile: str | None = None) -> None:
    """Throughput Mbit/s and mean one-way delay ms, engine / ns-3; with `tcp_profile`, both sides
    run that `tcp.profile` (docs/tcp.md)."""
    print("| CCA | RLC | buffer | SINR dB | throughput Mbit/s | delay ms | retransmissions |")
    print("|---|---|---|---:|---:|---:|---:|")
    for cca, mode, label in TCP_ROWS:
        for db in SINRS_DB:
            rlc = {"mode": mode, "tx_buffer_bytes": RLC_BUFFERS[label]}
            sc = scenario(db, 20, {"kind": "bulk"}, rlc, cca)
            if tcp_profile is not None:
                sc["tcp"] = {"profile": tcp_profile}
            engine, ns3 = (out.flows.iloc[0] for out in both(sc)[:2])
            print(
                f"| {cca} | {mode.upper()} | {label} | {db} | "
                f"{pair(engine['throughput_bps'] / 1e6, ns3['throughput_bps'] / 1e6, '.1f', THROUGHPUT_TOLERANCE)} | "
                f"{pair(engine['mean_delay_ms'], ns3['mean_delay_ms'], '.0f', DELAY_TOLERANCE)} | "
                f"{engine['retransmits']} / {ns3['retransmits']} |",
                flush=True,
            )


#: Seed 000 (Malekzadeh & Abdul Ghani): 14 UEs, 20 MHz, one 1 Mbit/s NewReno flow each from a
#: server behind a 100 Gbit/s, 10 ms link; segments of 1000 B or 3000 B (IP-fragmented at MTU
#: 1500); RLC AM or UM. The paper gives "64QAM, 5/6" but no positions: every UE at 20 dB (LENA's
#: MCS 28 above, 64QAM). 10 s.
SEED000_UES = 14
SEED000_SINR_DB = 20.0


def seed000_scenario(mode: str, segment_bytes: int) -> dict:
    sc = scenario(SEED000_SINR_DB, 20, {"kind": "bulk"}, {"mode": mode}, "newreno", duration_s=10.0)
    sc["links"][0] |= {"rate_mbps": 100_000}
    sc["tcp"] = {"mss_bytes": segment_bytes}
    ues = [f"ue{j}" for j in range(SEED000_UES)]
    sc["nodes"] = [n for n in sc["nodes"] if n["kind"] != "ue"] + [{"id": u, "kind": "ue"} for u in ues]
    sinr = {"kind": "fixed", "db": SEED000_SINR_DB}
    sc["cells"][0]["ues"] = [{"node": u, "sinr": sinr, "rlc": {"mode": mode}} for u in ues]
    app = {"kind": "rate_limited", "rate_mbps": 1, "write_bytes": segment_bytes}
    sc["flows"] = [{"id": u, "src": "server", "dst": u, "cca": "newreno", "app": app} for u in ues]
    return sc


def seed000_table() -> None:
    print(
        "| RLC | segment B | throughput Mbit/s (mean per UE) | delay ms | jitter ms | loss % | "
        "wall s engine / ns-3 (ratio) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for mode in ("am", "um"):
        for segment in (1000, 3000):
            engine, ns3, engine_wall, ns3_wall = both(seed000_scenario(mode, segment))
            e, n = engine.flows, ns3.flows
            rate = pair(e["throughput_bps"].mean() / 1e6, n["throughput_bps"].mean() / 1e6, ".3f", THROUGHPUT_TOLERANCE)
            loss = [100 * f["lost_packets"].sum() / f["tx_packets"].sum() for f in (e, n)]
            print(
                f"| {mode.upper()} | {segment} | "
                f"{rate}"
                f" | {pair(e['mean_delay_ms'].mean(), n['mean_delay_ms'].mean(), '.1f', DELAY_TOLERANCE)} | "
                f"{e['mean_jitter_ms'].mean():.2f} / {n['mean_jitter_ms'].mean():.2f} | "
                f"{loss[0]:.2f} / {loss[1]:.2f} | {engine_wall:.2f} / {ns3_wall:.1f} ({ns3_wall / engine_wall:.0f}x) |",
                flush=True,
            )


if __name__ == "__main__":
    {"udp": udp_table, "tcp": tcp_table, "seed000": seed000_table}[sys.argv[1]](*sys.argv[2:])
