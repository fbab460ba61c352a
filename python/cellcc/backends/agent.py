"""Traffic agent of the Linux backend: one TCP sender or receiver, run inside a network
namespace as a plain script (`ip netns exec NS python agent.py send|recv ...`), so it needs
nothing but the standard library and its sibling `tcp_info.py`.

The sender sets the flow's congestion control with setsockopt(TCP_CONGESTION) before
connecting, writes as its application says (bulk, finite, rate-limited) and reads TCP_INFO
every `--sample-ms`; the receiver counts bytes and reads its own TCP_INFO at the same period:
data segments in and its receive window (`RECEIVER_FIELDS`, what the engine's `tcp/rwnd.rs`
models). Both write one JSON document; times are CLOCK_MONOTONIC ns, the clock the
emulator and the backend share.
"""

from __future__ import annotations

import argparse
import json
import select
import socket
import sys
import time
from collections.abc import Callable

if __package__:
    from . import tcp_info
else:
    import tcp_info

#: Bytes handed to send() per call: large enough to keep a 100 Mbit/s path busy from Python.
WRITE_CHUNK_BYTES = 256 * 1024
#: Receive buffer of the reading loop.
READ_CHUNK_BYTES = 1024 * 1024
#: Exit status when the kernel refuses the congestion control.
EXIT_BAD_CCA = 3
#: How long a sender tries to connect before giving up (the path's RTT is far below this).
CONNECT_TIMEOUT_S = 10.0
NS_PER_S = 1_000_000_000
#: The receiver's TCP_INFO fields in each sample, after [t_ns, bytes read]: index 2 (data
#: segments in) is what the tables use; the rest show the receive window as the kernel ran it.
RECEIVER_FIELDS = ("data_segs_in", "rcv_ssthresh", "rcv_rtt_us", "rcv_space", "rcv_wnd", "advmss")


#: The last stretch before a start time is spun rather than slept: a sleep can wake this late.
SPIN_NS = 2_000_000


def _sleep_until(t_ns: int) -> None:
    """Return at t_ns to within microseconds: sleep, then spin the last SPIN_NS.

    The scenario's time zero is the trace's time zero (cellcc-emu `trace_start_ns`); a flow that
    starts late sees the trace at another phase, which on a millisecond trace decides which
    delivery opportunity its packets catch.
    """
    while (left := t_ns - time.monotonic_ns()) > SPIN_NS:
        time.sleep((left - SPIN_NS) / NS_PER_S)
    while time.monotonic_ns() < t_ns:
        pass


def _sample_sender(sock: socket.socket, t_ns: int) -> dict:
    info = tcp_info.read(sock)
    return {"t_ns": t_ns, **info.values}


class Writer:
    """How many application bytes may be written by a given time."""

    def __init__(
        self, app: str, total_bytes: int | None, rate_bps: float | None, write_bytes: int | None, start_ns: int
    ):
        self.app, self.total, self.rate_bps, self.write_bytes, self.start_ns = (
            app,
            total_bytes,
            rate_bps,
            write_bytes,
            start_ns,
        )
        self.written = 0

    def allowance(self, now_ns: int) -> int:
        if self.app == "bulk":
            return WRITE_CHUNK_BYTES
        if self.app == "finite":
            return min(WRITE_CHUNK_BYTES, self.total - self.written)
        credit = int(self.rate_bps * (now_ns - self.start_ns) / 8 / NS_PER_S) - self.written
        return (credit // self.write_bytes) * self.write_bytes if credit >= self.write_bytes else 0

    def next_credit_ns(self, now_ns: int) -> int | None:
        if self.app != "rate_limited":
            return None
        need = self.written + self.write_bytes
        return self.start_ns + int(need * 8 * NS_PER_S / self.rate_bps)

    def finished(self) -> bool:
        return self.app == "finite" and self.written >= self.total


def write_some(sock: socket.socket, writer: Writer, payload: bytes, want: int) -> bool:
    """Hand up to `want` bytes to the non-blocking socket; False once the receiver has closed."""
    if want <= 0:
        return True
    try:
        writer.written += sock.send(payload[:want])
    except BlockingIOError:
        pass
    except (BrokenPipeError, ConnectionResetError):
        # The receiver reached the run's end and closed first: the run is over.
        return False
    return True


def send_loop(
    sock: socket.socket,
    writer: Writer,
    payload: bytes,
    peer_open: bool,
    connected_ns: int,
    stop_ns: int,
    sample_ms: float,
) -> tuple[list[dict], int | None]:
    """Write as `writer` allows until `stop_ns`, the peer's close, or (finite) every byte acked;
    read TCP_INFO every `sample_ms`. Returns the readings and when the last byte was acked.
    The socket is connected and non-blocking; the live mode's server sends with it too."""
    sample_ns = int(sample_ms * 1e6)
    next_sample = connected_ns
    samples: list[dict] = []
    shut = False
    acked_ns = None
    while peer_open and (now := time.monotonic_ns()) < stop_ns:
        if now >= next_sample:
            samples.append(_sample_sender(sock, now))
            next_sample += sample_ns * max(1, (now - next_sample) // sample_ns + 1)
            if shut and samples[-1]["bytes_acked"] is not None and samples[-1]["bytes_acked"] >= writer.total:
                acked_ns = now
                break
        if writer.finished() and not shut:
            sock.shutdown(socket.SHUT_WR)
            shut = True
        want = 0 if shut else writer.allowance(now)
        wake = min(t for t in (next_sample, stop_ns, writer.next_credit_ns(now)) if t is not None)
        timeout = max(0, wake - time.monotonic_ns()) / NS_PER_S
        _, writable, _ = select.select([], [sock] if want > 0 else [], [], timeout)
        if writable:
            peer_open = write_some(sock, writer, payload, want)
    samples.append(_sample_sender(sock, time.monotonic_ns()))
    return samples, acked_ns


def run_sender(a: argparse.Namespace) -> dict:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.IPPROTO_TCP, tcp_info.TCP_CONGESTION, a.cca.encode())
    except OSError as e:
        print(f"the kernel refused TCP_CONGESTION={a.cca!r}: {e}", file=sys.stderr)
        sys.exit(EXIT_BAD_CCA)
    if a.sndbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, a.sndbuf)
    if a.mss:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, a.mss)
    sock.bind((a.bind, a.sport))
    sock.settimeout(CONNECT_TIMEOUT_S)
    # The socket is ready before the start time, so the SYN leaves at it (as the engine's does).
    _sleep_until(a.start_ns)
    first_tx_ns = time.monotonic_ns()
    sock.connect((a.dst, a.port))
    connected_ns = time.monotonic_ns()
    sock.setblocking(False)
    # The application produces from the flow's start, as the engine's does: what it produced
    # during the handshake is written at connect.
    writer = Writer(a.app, a.bytes, a.rate_bps, a.write_bytes, a.start_ns)
    payload = b"\0" * WRITE_CHUNK_BYTES
    # Data goes to the kernel before any bookkeeping, as the engine's application has it at
    # connection: each Python call here would delay the first flight by tens of microseconds.
    peer_open = write_some(sock, writer, payload, writer.allowance(connected_ns))
    cca = sock.getsockopt(socket.IPPROTO_TCP, tcp_info.TCP_CONGESTION, 16).rstrip(b"\0").decode()
    samples, acked_ns = send_loop(sock, writer, payload, peer_open, connected_ns, a.stop_ns, a.sample_ms)
    sock.close()
    return {
        "role": "send",
        "cca": cca,
        "first_tx_ns": first_tx_ns,
        "connected_ns": connected_ns,
        "app_bytes_written": writer.written,
        "acked_ns": acked_ns,
        "samples": samples,
    }


def run_receiver(a: argparse.Namespace) -> dict:
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if a.rcvbuf:
        lsock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, a.rcvbuf)
    lsock.bind((a.bind, a.port))
    lsock.listen(1)
    print("listening", flush=True)
    lsock.settimeout(max(0.001, (a.stop_ns - time.monotonic_ns()) / NS_PER_S))
    try:
        conn, _ = lsock.accept()
    except TimeoutError:
        return {"role": "recv", "bytes": 0, "first_rx_ns": None, "last_rx_ns": None, "samples": []}
    result = recv_loop(conn, a.stop_ns, a.sample_ms)
    conn.close()
    return {"role": "recv", **result}


def recv_loop(
    conn: socket.socket, stop_ns: int, sample_ms: float, guard: Callable[[int, int], str | None] | None = None
) -> dict:
    """Read until end-of-file or `stop_ns`, counting bytes, with the receiver's TCP_INFO every
    `sample_ms` (`RECEIVER_FIELDS`). `guard(bytes so far, now)`, asked at each reading, may end
    the loop by returning why (the live mode's server enforcing its byte and rate limits)."""
    conn.setblocking(False)
    buf = bytearray(READ_CHUNK_BYTES)
    total, first_rx, last_rx, eof, stopped = 0, None, None, False, None
    sample_ns = int(sample_ms * 1e6)
    next_sample = time.monotonic_ns()
    samples: list[list[int]] = []

    def sample(t: int) -> None:
        info = tcp_info.read(conn)
        samples.append([t, total, *(info[f] for f in RECEIVER_FIELDS)])

    while not eof and (now := time.monotonic_ns()) < stop_ns:
        if now >= next_sample:
            sample(now)
            next_sample += sample_ns * max(1, (now - next_sample) // sample_ns + 1)
            stopped = guard(total, now) if guard else None
            if stopped:
                break
        timeout = max(0, min(next_sample, stop_ns) - time.monotonic_ns()) / NS_PER_S
        readable, _, _ = select.select([conn], [], [], timeout)
        while readable:
            try:
                n = conn.recv_into(buf)
            except BlockingIOError:
                break
            t = time.monotonic_ns()
            if n == 0:
                eof = True
                break
            total += n
            first_rx = first_rx or t
            last_rx = t
    sample(time.monotonic_ns())
    out = {"bytes": total, "first_rx_ns": first_rx, "last_rx_ns": last_rx, "eof": eof, "samples": samples}
    return out | ({"stopped": stopped} if stopped else {})


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="role", required=True)
    s = sub.add_parser("send")
    s.add_argument("--dst", required=True)
    s.add_argument("--bind", required=True)
    s.add_argument("--sport", type=int, default=0)
    r = sub.add_parser("recv")
    r.add_argument("--bind", required=True)
    r.add_argument("--rcvbuf", type=int, default=0)
    for q in (s, r):
        q.add_argument("--port", type=int, required=True)
        q.add_argument("--stop-ns", type=int, required=True)
        q.add_argument("--sample-ms", type=float, default=10.0)
        q.add_argument("--out", required=True)
    s.add_argument("--cca", required=True)
    s.add_argument("--start-ns", type=int, required=True)
    s.add_argument("--app", choices=("bulk", "finite", "rate_limited"), required=True)
    s.add_argument("--bytes", type=int)
    s.add_argument("--rate-bps", type=float)
    s.add_argument("--write-bytes", type=int)
    s.add_argument("--sndbuf", type=int, default=0)
    s.add_argument("--mss", type=int, default=0)
    a = p.parse_args(argv)
    result = run_sender(a) if a.role == "send" else run_receiver(a)
    with open(a.out, "w") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
