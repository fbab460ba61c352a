"""One kernel run of a scenario with the cca set, raw samples kept, and a packet log on both ends.

Usage: sudo -E .venv/bin/python run_kernel.py SCENARIO.toml CCA SEED WORKDIR
"""

import subprocess
import sys
import time
from pathlib import Path

import tomllib

from cellcc.backends import linux

scn_path, cca, seed, wd = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
wd.mkdir(parents=True, exist_ok=True)
sc = tomllib.loads(Path(scn_path).read_text())
for f in sc["flows"]:
    f["cca"] = cca
SNIFF = str(Path(__file__).with_name("sniff.py"))

orig = linux._start_senders


def patched(tb, p, workdir, t0):
    stop = t0 + int(p.duration_s * 1e9) + 200_000_000
    for ns, dev, name in ((tb.ns_snd, tb.tun_snd, "snd"), (tb.ns_rcv, tb.tun_rcv, "rcv")):
        pr = tb.spawn(
            ns, [sys.executable, SNIFF, dev, str(workdir / f"pkts-{name}.csv"), str(stop)], stdout=subprocess.PIPE
        )
        assert pr.stdout.readline().decode().strip() == "ready"
    procs = orig(tb, p, workdir, t0)
    return procs


linux._start_senders = patched
out = linux.run(sc, seed=seed, base_dir=Path(scn_path).parent, workdir=wd)
time.sleep(1)
print(out.summary["emulator"]["lateness_us"])
