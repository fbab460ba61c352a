"""One TCP transfer of `cellcc live`, both ends. The sending end sets TCP_CONGESTION and reads
TCP_INFO every 10 ms, the receiving end counts bytes, with the Linux backend's own loops
(`cellcc.backends.agent.send_loop` / `recv_loop`) and parser (`tcp_info`).

The client always opens the data connection (cellular NAT) and first writes the session's
16-byte token; the server accepts only from its control peer's address and with that token.
In a download the server sends, so the congestion control is the server's: set on its listening
socket before accept (a child socket inherits a congestion control set with setsockopt,
net/ipv4/tcp_cong.c tcp_assign_congestion_control), and read back from the accepted socket.
"""

from __future__ import annotations

import hmac
import socket
import time
from typing import Any

from cellcc.backends import agent, tcp_info

TOKEN_BYTES = 16
#: How long the server waits for the client's data connection and its token.
ACCEPT_TIMEOUT_S = 5.0
TOKEN_TIMEOUT_S = 2.0
#: An upload faster than the agreed rate by this factor (over at least RATE_WINDOW_S) is stopped.
RATE_TOLERANCE = 1.10
RATE_WINDOW_S = 1.0
NS = 1_000_000_000


class CcaUnavailable(RuntimeError):
    """The kernel refused a congestion control (the message names the host)."""


def set_cca(sock: socket.socket, cca: str, host: str) -> None:
    try:
        sock.setsockopt(socket.IPPROTO_TCP, tcp_info.TCP_CONGESTION, cca.encode())
    except OSError as e:
        raise CcaUnavailable(f"{host} lacks the congestion control {cca!r} ({e.strerror})") from None


def cca_of(sock: socket.socket) -> str:
    return sock.getsockopt(socket.IPPROTO_TCP, tcp_info.TCP_CONGESTION, 16).rstrip(b"\0").decode()


def columns(samples: list[dict]) -> dict[str, Any]:
    """TCP_INFO readings as columns (one frame of the control channel carries them)."""
    names = list(samples[0]) if samples else []
    return {"columns": names, "rows": [[s[n] for n in names] for s in samples]}


def rows(table: dict[str, Any]) -> list[dict]:
    return [dict(zip(table["columns"], r, strict=True)) for r in table["rows"]]


def listener(bind: tuple[str, int], cca: str | None) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if cca:
        set_cca(s, cca, "the server")
    s.bind(bind)
    s.listen(4)
    return s


def accept_peer(lsock: socket.socket, peer_ip: str, token: bytes) -> socket.socket:
    """The first connection from `peer_ip` that presents `token`; others are closed at once."""
    deadline = time.monotonic() + ACCEPT_TIMEOUT_S
    while (left := deadline - time.monotonic()) > 0:
        lsock.settimeout(left)
        try:
            conn, addr = lsock.accept()
        except TimeoutError:
            break
        if addr[0] != peer_ip:
            conn.close()
            continue
        conn.settimeout(TOKEN_TIMEOUT_S)
        try:
            got = conn.recv(TOKEN_BYTES, socket.MSG_WAITALL)
        except OSError:
            got = b""
        if hmac.compare_digest(got, token):
            conn.settimeout(None)
            return conn
        conn.close()
    raise TimeoutError(f"no data connection with the session's token from {peer_ip} within {ACCEPT_TIMEOUT_S:g} s")


class CappedWriter(agent.Writer):
    """The agent's finite or bulk writer, never more than one chunk ahead of `cap_bps` since the
    start: a rate limit that leaves the congestion control alone. (SO_MAX_PACING_RATE would turn
    the kernel's pacing on, net/core/sock.c, and change how Reno or CUBIC send.)"""

    def __init__(self, total_bytes: int | None, cap_bps: float | None, start_ns: int):
        super().__init__("finite" if total_bytes else "bulk", total_bytes, None, None, start_ns)
        self.cap_bps = cap_bps

    def _credit(self, now_ns: int) -> int:
        assert self.cap_bps is not None
        return int(self.cap_bps * (now_ns - self.start_ns) / 8 / NS) + agent.WRITE_CHUNK_BYTES - self.written

    def allowance(self, now_ns: int) -> int:
        base = super().allowance(now_ns)
        return base if self.cap_bps is None else max(0, min(base, self._credit(now_ns)))

    def next_credit_ns(self, now_ns: int) -> int | None:
        if self.cap_bps is None or self._credit(now_ns) > 0:
            return None
        return self.start_ns + int((self.written - agent.WRITE_CHUNK_BYTES + 1) * 8 * NS / self.cap_bps)


def send(
    conn: socket.socket, total_bytes: int | None, duration_s: float, rate_bps: float | None, sample_ms: float
) -> dict[str, Any]:
    """Send `total_bytes` (None: for `duration_s`) at most at `rate_bps`; the sender's record."""
    start = time.monotonic_ns()
    real = time.time_ns()
    writer = CappedWriter(total_bytes, rate_bps, start)
    payload = b"\0" * agent.WRITE_CHUNK_BYTES
    conn.setblocking(False)
    peer_open = agent.write_some(conn, writer, payload, writer.allowance(start))
    samples, acked_ns = agent.send_loop(
        conn, writer, payload, peer_open, start, start + int(duration_s * NS), sample_ms
    )
    return {
        "role": "send",
        "cca": cca_of(conn),
        "start_ns": start,
        "start_real_ns": real,
        "app_bytes_written": writer.written,
        "acked_ns": acked_ns,
        "samples": columns(samples),
    }


def receive(
    conn: socket.socket,
    duration_s: float,
    sample_ms: float,
    max_bytes: int | None = None,
    max_rate_bps: float | None = None,
) -> dict[str, Any]:
    """Receive until the sender closes or `duration_s`; stop early (and say why) past `max_bytes`
    or faster than `max_rate_bps` (the server's limits on an upload)."""
    start = time.monotonic_ns()
    real = time.time_ns()

    def guard(total: int, now: int) -> str | None:
        if max_bytes is not None and total > max_bytes:
            return f"over-limit bytes: more than the {max_bytes} declared"
        # A token bucket: the agreed rate, with one RATE_WINDOW_S of it as the burst.
        elapsed = max((now - start) / NS, RATE_WINDOW_S)
        if max_rate_bps and total * 8 / elapsed > max_rate_bps * RATE_TOLERANCE:
            return f"over-limit rate: {total * 8 / elapsed / 1e6:.1f} Mbit/s, the limit is {max_rate_bps / 1e6:g}"
        return None

    got = agent.recv_loop(conn, start + int(duration_s * NS), sample_ms, guard)
    # A fast sender can finish between two readings: the limits hold for the whole transfer too.
    why = got.get("stopped") or guard(got["bytes"], time.monotonic_ns())
    if why:
        got["stopped"] = why
    return {"role": "recv", "cca": cca_of(conn), "start_ns": start, "start_real_ns": real, **got}


def connect(
    server: tuple[str, int], token: bytes, cca: str | None, timeout_s: float = ACCEPT_TIMEOUT_S
) -> socket.socket:
    """The client's data connection (its congestion control set first when it will send)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if cca:
        set_cca(s, cca, "this host (the client)")
    s.settimeout(timeout_s)
    s.connect(server)
    s.sendall(token)
    s.settimeout(None)
    return s
