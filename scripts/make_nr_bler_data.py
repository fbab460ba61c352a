"""Extract 5G-LENA's NR L2SM SINR-BLER tables into cellcc's data files (run once; the output is committed).

5G-LENA (the ns-3 ``nr`` module, CTTC) ships its link-level SINR-BLER lookup tables as C++ initialisers in
``model/nr-eesm-t1.cc`` (MCS Table 1) and ``model/nr-eesm-t2.cc`` (MCS Table 2): per LDPC base graph, MCS and
code block size, the effective SINR (dB) points and the code block BLER at each, plus the EESM beta per MCS.
This script reads those two files and writes them as whitespace-separated rows with a provenance header:

    beta: <beta of MCS 0> <beta of MCS 1> ...
    <bg> <mcs> <cbs>: <sinr_db ...> | <bler ...>

Usage: python scripts/make_nr_bler_data.py NR_REPO_DIR COMMIT OUT_DIR
(NR_REPO_DIR: a checkout of the nr module, e.g. the GitHub mirror QiuYukang/5G-LENA.)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

CURVE = re.compile(
    r"//\s*BG TYPE (\d)|//\s*MCS (\d+)|\{(\d+)U,\s*(?://[^\n]*\n\s*)?NrEesmErrorModel::DoubleTuple\{\s*"
    r"\{([^}]*)\}[^{]*\{([^}]*)\}"
)
BETA = re.compile(r"BetaTable\d\s*=\s*\{([^}]*)\}")


def numbers(text: str) -> list[float]:
    """The comma-separated numbers of an initialiser, comments removed."""
    return [float(x) for x in re.sub(r"//[^\n]*", "", text).replace("\n", " ").split(",") if x.strip()]


def convert(source: Path, table: int, commit: str) -> str:
    """The data file of MCS table ``table`` from ``source`` (nr-eesm-tN.cc)."""
    text = source.read_text()
    beta = numbers(BETA.search(text).group(1))
    lines = [
        f"# 5G-LENA (ns-3 nr module) L2SM SINR-BLER lookup tables for NR MCS Table {table} (TS 38.214",
        f"# Table 5.1.3.1-{table}): per LDPC base graph (1, 2), MCS and code block size (bits, K of TS 38.212",
        "# §5.2.2), the effective SINR (dB, EESM) and the code block BLER at each point, from CTTC's",
        "# NR-compliant link-level simulator (AWGN); and the EESM beta per MCS.",
        '# S. Lagen, K. Wanuga, H. Elkotby, S. Goyal, N. Patriciello, L. Giupponi, "New Radio Physical Layer',
        '# Abstraction for System-Level Simulations of 5G Networks", IEEE ICC 2020 (arXiv:2001.10309).',
        f"# Provenance: model/nr-eesm-t{table}.cc (BlerForSinr{table}, BetaTable{table}) of the nr module,",
        f"# GitHub mirror QiuYukang/5G-LENA commit {commit}; extracted by scripts/make_nr_bler_data.py.",
        '# An entry with cbs 0 and one point at 0 dB is 5G-LENA\'s placeholder for "not simulated".',
        "# Rows: `beta: b0 b1 ...` then `bg mcs cbs: sinr_db ... | bler ...`.",
        "beta: " + " ".join(f"{b:g}" for b in beta),
    ]
    bg = mcs = None
    for m in CURVE.finditer(text):
        if m.group(1):
            bg = int(m.group(1))
            continue
        if m.group(2):
            mcs = int(m.group(2))
            continue
        sinr, bler = numbers(m.group(4)), numbers(m.group(5))
        assert len(sinr) == len(bler), (bg, mcs, m.group(3))
        row = " ".join(f"{x:g}" for x in sinr) + " | " + " ".join(f"{x:g}" for x in bler)
        lines.append(f"{bg} {mcs} {m.group(3)}: {row}")
    return "\n".join(lines) + "\n"


def main() -> None:
    repo, commit, out = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    for table in (1, 2):
        (out / f"nr_eesm_table{table}.txt").write_text(convert(repo / f"model/nr-eesm-t{table}.cc", table, commit))


if __name__ == "__main__":
    main()
