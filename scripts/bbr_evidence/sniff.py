"""Tiny packet logger (no tcpdump here): AF_PACKET on one device, kernel rx timestamps.

Usage: python sniff.py DEV OUT.csv STOP_MONOTONIC_NS
Writes t_ns (CLOCK_MONOTONIC, from SO_TIMESTAMPNS realtime + offset), dir (in/out), seq, ack, payload,
sack (the SACK option's blocks as start-end pairs joined by ';', empty when none).
"""

import signal
import socket
import struct
import sys
import time

from rounds import sack_blocks

ETH_P_ALL = 0x0003
SO_TIMESTAMPNS = 35
PACKET_OUTGOING = 4

dev, out, stop_ns = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_ALL))
s.bind((dev, 0))
s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
s.settimeout(0.5)
off = time.monotonic_ns() - time.time_ns()
rows = []
stop = [False]
signal.signal(signal.SIGTERM, lambda *a: stop.__setitem__(0, True))
signal.signal(signal.SIGINT, lambda *a: stop.__setitem__(0, True))
print("ready", flush=True)
while time.monotonic_ns() < stop_ns and not stop[0]:
    try:
        data, anc, _flags, addr = s.recvmsg(128, 256)
    except (TimeoutError, InterruptedError):
        continue
    except OSError:
        break
    ts = None
    for lvl, typ, val in anc:
        if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS:
            sec, nsec = struct.unpack("qq", val[:16])
            ts = sec * 1_000_000_000 + nsec + off
    if ts is None or len(data) < 40 or data[9] != 6:
        continue
    ihl = (data[0] & 0xF) * 4
    tot = struct.unpack("!H", data[2:4])[0]
    doff = (data[ihl + 12] >> 4) * 4
    seq, ack = struct.unpack("!II", data[ihl + 4 : ihl + 12])
    payload = tot - ihl - doff
    sack = ";".join(f"{a}-{b}" for a, b in sack_blocks(data[ihl + 20 : ihl + doff]))
    rows.append((ts, "out" if addr[2] == PACKET_OUTGOING else "in", seq, ack, payload, sack))
with open(out, "w") as f:
    f.write("t_ns,dir,seq,ack,payload,sack\n")
    for r in rows:
        f.write(",".join(str(x) for x in r) + "\n")
