"""One UE on an LTE cell at fixed SINRs, on ns-3 LENA through cellcc's ns-3 backend: the
reference tables of docs/crosscheck.md (issue 9). Prints Markdown.

    .venv/bin/python scripts/ns3_lte_sweep.py udp    # saturated UDP, 5/10/20 MHz, 0..25 dB
    .venv/bin/python scripts/ns3_lte_sweep.py tcp    # bulk TCP at 20 MHz (TCP_ROWS)
    .venv/bin/python scripts/ns3_lte_sweep.py seed000  # seed 000's cell: 14 UEs, 1 Mbit/s TCP each

The scenarios are lte_single_ue.toml's shape (server -- 1 Gbit/s, 10 ms -- PGW -- S1-U
10 Gbit/s, 1 ms -- eNB ~~ UE) as dicts, so they run before the engine's schema has cells;
once it has, `cellcc crosscheck` runs the same files on both sides.
"""

from __future__ import annotations

import sys
import time

from cellcc import builders
from cellcc.backends.ns3 import run as ns3_run

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


def scenario(db: float, mhz: float, app: dict, rlc: dict, cca: str = "cubic", duration_s: float = 2.0) -> dict:
    flow = {"id": "down", "src": "server", "dst": "ue", "app": app}
    flow |= {"transport": "udp"} if app["kind"] == "cbr" else {"cca": cca}
    return builders.lte_cell([{"sinr": {"kind": "fixed", "db": db}, "rlc": rlc}], mhz, [flow], duration_s)


def udp_table() -> None:
    print("| SINR dB | " + " | ".join(f"{m} MHz Mbit/s (MCS, wall s)" for m in BANDWIDTHS_MHZ) + " |")
    print("|---:|" + "---:|" * len(BANDWIDTHS_MHZ))
    app = {"kind": "cbr", "rate_mbps": SATURATING_UDP_MBPS, "packet_bytes": 1400}
    for db in SINRS_DB:
        cells = []
        for mhz in BANDWIDTHS_MHZ:
            started = time.perf_counter()
            out = ns3_run.run(scenario(db, mhz, app, {"mode": "um"}, duration_s=1.0))
            wall = time.perf_counter() - started
            dl = out.lte[out.lte["dir"] == "dl"]
            mcs = (dl["mcs_mean"] * dl["tbs"]).sum() / dl["tbs"].sum()
            cells.append(f"{out.flows['throughput_bps'].iloc[0] / 1e6:.2f} ({mcs:.1f}, {wall:.1f})")
        print(f"| {db} | " + " | ".join(cells) + " |", flush=True)


def tcp_table() -> None:
    print("| CCA | RLC | buffer | " + " | ".join(f"{db} dB" for db in SINRS_DB) + " |")
    print("|---|---|---|" + "---:|" * len(SINRS_DB))
    for cca, mode, label in TCP_ROWS:
        cells = []
        for db in SINRS_DB:
            rlc = {"mode": mode, "tx_buffer_bytes": RLC_BUFFERS[label]}
            out = ns3_run.run(scenario(db, 20, {"kind": "bulk"}, rlc, cca))
            f = out.flows.iloc[0]
            cells.append(f"{f['throughput_bps'] / 1e6:.1f} / {f['mean_delay_ms']:.0f}")
        print(f"| {cca} | {mode.upper()} | {label} | " + " | ".join(cells) + " |", flush=True)


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
    print("| RLC | segment B | throughput Mbit/s (mean per UE) | delay ms | jitter ms | loss % | ns-3 wall s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for mode in ("am", "um"):
        for segment in (1000, 3000):
            started = time.perf_counter()
            f = ns3_run.run(seed000_scenario(mode, segment)).flows
            wall = time.perf_counter() - started
            loss = 100 * f["lost_packets"].sum() / f["tx_packets"].sum()
            print(
                f"| {mode.upper()} | {segment} | {f['throughput_bps'].mean() / 1e6:.3f} | "
                f"{f['mean_delay_ms'].mean():.1f} | {f['mean_jitter_ms'].mean():.2f} | {loss:.2f} | {wall:.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    {"udp": udp_table, "tcp": tcp_table, "seed000": seed000_table}[sys.argv[1]]()
