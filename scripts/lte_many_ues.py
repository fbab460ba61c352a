"""One 20 MHz cell of N UEs, bulk CUBIC each, fixed SINRs spread over 2-28 dB, RLC AM (1 MiB),
10 s (issue 34's cell): cost per UE and TTI, and what the cell delivers at 56, 224 and 896 UEs,
with every flow started at t = 0 and with the starts 1 ms apart (docs/performance.md, "Many UEs").

Run from the repo root: ``.venv/bin/python scripts/lte_many_ues.py``. Prints a Markdown table.
"""

from __future__ import annotations

import time

import cellcc
from cellcc import builders

DURATION_S = 10.0
TTI_S = 0.001
SIZES = (56, 224, 896)


def scenario(n: int, stagger_s: float) -> dict:
    ues = [
        {"sinr": {"kind": "fixed", "db": 2.0 + 26.0 * i / (n - 1)}, "rlc": {"mode": "am", "tx_buffer_bytes": 1 << 20}}
        for i in range(n)
    ]
    flows = [
        {"src": "server", "dst": f"ue{i}", "cca": "cubic", "app": {"kind": "bulk"}, "start_s": i * stagger_s}
        for i in range(n)
    ]
    return builders.lte_cell(ues, bandwidth_mhz=20, flows=flows, duration_s=DURATION_S)


def row(n: int, stagger_s: float) -> str:
    started = time.process_time()
    r = cellcc.run(scenario(n, stagger_s), seed=1)
    cpu_s = time.process_time() - started
    flows, lte, queues = r.flows, r.lte, r.queues
    dl, ul = lte[lte["dir"] == "dl"], lte[lte["dir"] == "ul"]
    ttis = DURATION_S / TTI_S
    drops = queues.groupby("link")["drops"].sum()
    dropped = ", ".join(f"{link.split(':')[0]} {int(n)}" for link, n in drops.items() if n > 0) or "0"
    dead = flows["app_bytes_delivered"] == 0
    never = int(dead.sum())
    dead_sinr = [2.0 + 26.0 * i / (n - 1) for i in flows.index[dead]]
    never_text = f"{never} ({min(dead_sinr):.1f}-{max(dead_sinr):.1f} dB)" if never else "0"
    cells = [
        f"{n}",
        "at 0" if stagger_s == 0 else f"{stagger_s * 1e3:g} ms apart",
        f"{flows['goodput_bps'].sum() / 1e6:.1f}",
        never_text,
        dropped,
        f"{dl['tbs'].sum() / ttis:.2f}",
        f"{dl['prbs'].sum() / ttis:.1f}",
        f"{int(dl['pdcch_blocked'].sum())} / {int(ul['pdcch_blocked'].sum())}",
        f"{int(ul['rlc_retx_pdus'].sum())}",
        f"{int(flows['timeouts'].sum())}",
        f"{cpu_s * 1e6 / ttis / n:.2f}",
    ]
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    print(
        "| UEs | flow starts | goodput Mbit/s | flows with nothing delivered (their SINRs) | queue drops by link "
        "| DL TBs / TTI | DL PRBs / TTI | DCIs blocked DL / UL | UL RLC retransmissions | TCP timeouts "
        "| CPU µs per UE per TTI |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|")
    for n in SIZES:
        for stagger_s in (0.0, 0.001):
            print(row(n, stagger_s), flush=True)


if __name__ == "__main__":
    main()
