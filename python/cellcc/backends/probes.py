"""Probe traffic for measuring the emulator alone (tests and docs/crosscheck/measure_emulator.py):
a paced UDP sender, a UDP receiver that timestamps every datagram, and an ICMP echo pinger. Each is
a stand-alone script text run as `python -c SCRIPT ARGS` inside a namespace.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from .netns import RECEIVER_SIDE_ADDR, Testbed, netns_exec

#: UDP payload that makes a 1500-byte IP packet (1500 - 20 IPv4 - 8 UDP).
FULL_UDP_PAYLOAD = 1472
IP_PACKET_BYTES = 1500
#: IPv4 (20) + ICMP (8) + 56 bytes of payload, ping's default.
ICMP_PACKET_BYTES = 84
UDP_PORT = 9000

UDP_SENDER = textwrap.dedent("""
    import socket, sys, time
    dst, port, rate_bps, count = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, 32, 4 << 20)  # SO_SNDBUFFORCE
    payload = bytes(1472)
    start = time.monotonic()
    for i in range(count):
        if rate_bps > 0:
            while (time.monotonic() - start) * rate_bps < i * 1500 * 8:
                pass
        while True:
            try:
                s.sendto(payload, (dst, port)); break
            except (BlockingIOError, ENOBUFS_ERRORS):
                time.sleep(0.0005)
""").replace("ENOBUFS_ERRORS", "OSError")

UDP_RECEIVER = textwrap.dedent("""
    import json, socket, struct, sys, time
    bind, port, idle_s, out = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE (asm-generic/socket.h)
    # SO_TIMESTAMPNS (35): the kernel stamps each datagram on arrival, so the receiver's own
    # scheduling delays do not enter the measurement (CLOCK_REALTIME: differences only).
    s.setsockopt(socket.SOL_SOCKET, 35, 1)
    s.bind((bind, port)); print("listening", flush=True)
    s.settimeout(30)
    times = []
    try:
        while True:
            _, anc, _, _ = s.recvmsg(2048, 64)
            sec, nsec = struct.unpack("qq", anc[0][2][:16])
            times.append(sec * 1_000_000_000 + nsec)
            s.settimeout(idle_s)
    except TimeoutError:
        pass
    json.dump(times, open(out, "w"))
""")

PINGER = textwrap.dedent("""
    import socket, struct, sys, time
    def csum(b):
        s = sum(struct.unpack('!%dH' % (len(b) // 2), b)); s = (s >> 16) + (s & 0xffff); s += s >> 16
        return ~s & 0xffff
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP); s.settimeout(5)
    # SO_TIMESTAMPNS (35): the reply's arrival is stamped by the kernel, so the pinger's own
    # wake-up delay is not in the RTT (CLOCK_REALTIME, hence time.time_ns() for the send).
    s.setsockopt(socket.SOL_SOCKET, 35, 1)
    rtts = []
    for seq in range(int(sys.argv[2])):
        body = struct.pack('!HH', 0x4343, seq) + bytes(56)
        pkt = struct.pack('!BBH', 8, 0, csum(struct.pack('!BBH', 8, 0, 0) + body)) + body
        t = time.time_ns(); s.sendto(pkt, (sys.argv[1], 0))
        while True:
            d, anc, _, _ = s.recvmsg(2048, 64); ihl = (d[0] & 15) * 4
            if d[ihl] == 0 and struct.unpack('!HH', d[ihl + 4:ihl + 8]) == (0x4343, seq):
                break
        sec, nsec = struct.unpack('qq', anc[0][2][:16])
        rtts.append((sec * 1_000_000_000 + nsec - t) / 1e6); time.sleep(0.02)
    print(' '.join('%.4f' % r for r in rtts))
""")


def udp_transfer(tb: Testbed, workdir: Path, rate_bps: float, count: int, idle_s: float) -> list[int]:
    """Send `count` 1500-byte datagrams paced at `rate_bps` (0: unpaced) from the sender side;
    return the receiver kernel's arrival timestamps (CLOCK_REALTIME ns: use differences only)."""
    out = workdir / "udp-rx.json"
    rx = tb.spawn(
        tb.ns_rcv,
        [sys.executable, "-c", UDP_RECEIVER, RECEIVER_SIDE_ADDR, str(UDP_PORT), str(idle_s), str(out)],
        stdout=subprocess.PIPE,
    )
    if rx.stdout.readline().strip() != b"listening":
        raise RuntimeError("UDP receiver did not start")
    tx = tb.spawn(
        tb.ns_snd, [sys.executable, "-c", UDP_SENDER, RECEIVER_SIDE_ADDR, str(UDP_PORT), str(rate_bps), str(count)]
    )
    if tx.wait(120) != 0 or rx.wait(120) != 0:
        raise RuntimeError("UDP probe failed")
    return json.loads(out.read_text())


def ping_rtts_ms(tb: Testbed, count: int) -> list[float]:
    """ICMP echo RTTs from the sender side to the receiver side, ms."""
    r = subprocess.run(
        netns_exec(tb.ns_snd, [sys.executable, "-c", PINGER, RECEIVER_SIDE_ADDR, str(count)]),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if r.returncode != 0:
        raise RuntimeError(f"pinger failed: {r.stderr.strip()}")
    return [float(x) for x in r.stdout.split()]
