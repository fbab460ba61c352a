"""The Wi-Fi tables of docs/ns3.md ("Wi-Fi: engine beside ns-3"): `cellcc crosscheck --against ns3`
on saturated UDP per VHT-MCS at 20/40/80 MHz, and on the TCP scenarios of examples/crosscheck/wifi-*.toml.

    .venv/bin/python scripts/wifi_crosscheck.py [--quick] [--write docs/ns3.md]

Each saturated case: one station 5 m from the AP (log-distance: 42 dB of SNR at 20 MHz, 36 dB at
80 MHz, where every MCS decodes), one UDP CBR download of 1472 B payloads offered at 1.5 times
the MCS's PHY rate for 2 s, `profile = "ns3"` (both sides run ns-3's MAC choices); the table gives
each side's received IP throughput (the MAC throughput less nothing: every MPDU carries one IP
packet) and mean one-way delay (a full 500-packet queue). `--quick` runs MCS 0, 5, 9 only.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples" / "crosscheck"
TCP_CASES = ("wifi-bulk-1sta", "wifi-bulk-14sta", "wifi-seed000-1000B", "wifi-seed000-3000B")
TCP_CCAS = ("newreno", "cubic")
#: Data subcarriers per width (IEEE 802.11-2020 §21.3.7.7) and VHT-MCS bits x code rate (§21.5).
N_SD = {20: 52, 40: 108, 80: 234}
MCS_BITS = [0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 4.5, 5.0, 6.0, 20 / 3]
SYMBOL_S = 4e-6
OFFER = 1.5
DURATION_S = 2.0
PAYLOAD_BYTES = 1472


def phy_rate_bps(width: int, mcs: int) -> float:
    return N_SD[width] * MCS_BITS[mcs] / SYMBOL_S


def valid(width: int, mcs: int) -> bool:
    """VHT-MCS 9 does not exist at 20 MHz with one stream (§21.5)."""
    return not (width == 20 and mcs == 9)


def udp_scenario(width: int, mcs: int) -> dict:
    return {
        "version": 1,
        "name": f"wifi-udp-{width}mhz-mcs{mcs}",
        "duration_s": DURATION_S,
        "nodes": [{"id": "server", "kind": "host"}, {"id": "ap", "kind": "ap"}, {"id": "sta0", "kind": "sta"}],
        "links": [{"id": "wan", "a": "server", "b": "ap", "rate_mbps": 10000, "delay_ms": 1}],
        "bsses": [
            {
                "id": "bss0",
                "ap": "ap",
                "channel_width_mhz": width,
                "profile": "ns3",
                "rate_manager": {"kind": "constant", "mcs": mcs},
                "stations": [{"node": "sta0", "placement": {"position_m": [5.0, 0.0]}}],
            }
        ],
        "flows": [
            {
                "src": "server",
                "dst": "sta0",
                "transport": "udp",
                "app": {
                    "kind": "cbr",
                    "rate_mbps": OFFER * phy_rate_bps(width, mcs) / 1e6,
                    "packet_bytes": PAYLOAD_BYTES,
                },
            }
        ],
    }


def crosscheck(path: Path, ccas: tuple[str, ...]):
    from cellcc.backends import frontend

    sc = frontend.resolve(str(path))
    with tempfile.TemporaryDirectory() as tmp:
        table, _, _ = frontend.crosscheck(sc, list(ccas), 1, Path(tmp) / "f.png", against="ns3")
    return table


def _value(table, metric: str, side: str, cca: str | None = None) -> float:
    rows = table[table["metric"] == metric] if "metric" in table.columns else table.loc[[metric]]
    if cca is not None and "cca" in rows.columns:
        rows = rows[rows["cca"] == cca]
    return float(rows.iloc[0][side])


def udp_rows(quick: bool) -> list[list[str]]:
    rows = []
    mcss = (0, 5, 9) if quick else range(10)
    for width in (20, 40, 80):
        for mcs in mcss:
            if not valid(width, mcs):
                continue
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "sc.json"
                path.write_text(json.dumps(udp_scenario(width, mcs)))
                t = crosscheck(path, ("cubic",))
            e, n = _value(t, "throughput_mbps", "engine"), _value(t, "throughput_mbps", "ns3")
            de, dn = _value(t, "delay_ms", "engine"), _value(t, "delay_ms", "ns3")
            rows.append(
                [
                    str(width),
                    str(mcs),
                    f"{phy_rate_bps(width, mcs) / 1e6:.1f}",
                    f"{e:.2f}",
                    f"{n:.2f}",
                    f"{e / n:.3f}",
                    f"{de:.1f}",
                    f"{dn:.1f}",
                    f"{de / dn:.3f}",
                ]
            )
            print(" | ".join(rows[-1]), flush=True)
    return rows


def tcp_rows() -> list[list[str]]:
    rows = []
    for case in TCP_CASES:
        t = crosscheck(EXAMPLES / f"{case}.toml", TCP_CCAS)
        for cca in TCP_CCAS:
            cell = {m: (_value(t, m, "engine", cca), _value(t, m, "ns3", cca)) for m in METRICS}
            row = [case, cca]
            for m, fmt in METRICS.items():
                e, n = cell[m]
                row += [fmt.format(e), fmt.format(n)]
            rows.append(row)
            print(" | ".join(row), flush=True)
    return rows


#: The TCP table's metrics (crosscheck.py names) and their format.
METRICS = {
    "throughput_mbps": "{:.2f}",
    "delay_ms": "{:.1f}",
    "rtt_p50_ms": "{:.1f}",
    "retransmits": "{:.0f}",
    "timeouts": "{:.0f}",
    "wall_s": "{:.2f}",
}


def markdown(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def replace_block(text: str, tag: str, body: str) -> str:
    pattern = re.compile(rf"(<!-- wifi_crosscheck:{tag} -->\n).*?(<!-- /wifi_crosscheck:{tag} -->)", re.S)
    if not pattern.search(text):
        raise SystemExit(f"docs: no <!-- wifi_crosscheck:{tag} --> block")
    return pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="MCS 0, 5, 9 only, and no TCP cases")
    ap.add_argument("--write", type=Path, help="Markdown file whose wifi_crosscheck blocks to replace")
    args = ap.parse_args()
    udp = markdown(
        [
            "MHz",
            "MCS",
            "PHY Mbit/s",
            "engine Mbit/s",
            "ns-3 Mbit/s",
            "ratio",
            "engine delay ms",
            "ns-3 delay ms",
            "ratio",
        ],
        udp_rows(args.quick),
    )
    tcp = ""
    if not args.quick:
        head = ["scenario", "cca"]
        for m in ("throughput Mbit/s", "one-way delay ms", "RTT p50 ms", "retransmissions", "RTOs", "wall s"):
            head += [f"{m} engine", "ns-3"]
        tcp = markdown(head, tcp_rows())
    if args.write:
        text = args.write.read_text(encoding="utf-8")
        text = replace_block(text, "udp", udp)
        if tcp:
            text = replace_block(text, "tcp", tcp)
        args.write.write_text(text, encoding="utf-8")
    print(udp, tcp, sep="\n\n")


if __name__ == "__main__":
    sys.exit(main())
