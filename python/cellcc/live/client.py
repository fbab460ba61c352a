"""The measuring host's side of one session with `cellcc live serve` (see protocol.py): connect,
authenticate (and check the server's proof), then ask for the server's facts, clock readings
and tests. Blocking sockets; one session per plan run.
"""

from __future__ import annotations

import contextlib
import socket
import time
from typing import Any

from . import tcp, udp
from .protocol import (
    MAX_REPLY_BYTES,
    ProtocolError,
    Sealer,
    client_mac,
    encode,
    new_nonce,
    recv_frame,
    same,
    server_proof,
    session_key,
    unhex,
)

#: How long the client waits for the server's greeting and short replies.
REPLY_TIMEOUT_S = 10.0
#: Beyond a test's own duration, how long the client waits for its result.
RESULT_GRACE_S = 30.0
#: Clock readings per estimate (the one with the shortest round trip is kept, as NTP's filter).
CLOCK_READINGS = 8


class LiveError(RuntimeError):
    """The server refused a request or ended the session; the text is the server's reason."""


def parse_address(text: str, default_port: int) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return (host, int(port)) if host and port.isdigit() else (text, default_port)


class LiveClient:
    def __init__(self, server: tuple[str, int], key_id: str, key: bytes):
        self.server = server
        self.key_id, self.key = key_id, key
        self.sock: socket.socket | None = None
        self.sealer: Sealer | None = None
        self.welcome: dict[str, Any] = {}

    def open(self) -> LiveClient:
        """Connect and authenticate (LiveError with the server's reason if refused)."""
        self.sock = socket.create_connection(self.server, timeout=REPLY_TIMEOUT_S)
        try:
            self._authenticate()
        except BaseException:
            self.sock.close()
            self.sock = None
            raise
        return self

    def close(self) -> None:
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.send({"type": "bye"})
            self.sock.close()
            self.sock = None

    def __enter__(self) -> LiveClient:
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()

    def _authenticate(self) -> None:
        hello = self.receive(sealed=False)
        nonce_s = unhex(hello.get("nonce"), "nonce", 32)
        nonce_c = new_nonce()
        self.send(
            {
                "type": "auth",
                "key_id": self.key_id,
                "nonce": nonce_c.hex(),
                "mac": client_mac(self.key, nonce_s, nonce_c, self.key_id),
            },
            sealed=False,
        )
        self.sealer = Sealer(session_key(self.key, nonce_s, nonce_c), "client")
        welcome = self.receive()
        if not same(str(welcome.get("proof")), server_proof(self.key, nonce_s, nonce_c, self.key_id)):
            raise LiveError("the server could not prove it holds the key: not the server you configured")
        self.welcome = welcome

    def send(self, msg: dict[str, Any], sealed: bool = True) -> None:
        assert self.sock is not None
        if sealed:
            assert self.sealer is not None
            msg = self.sealer.seal(msg)
        self.sock.sendall(encode(msg))

    def receive(self, sealed: bool = True, timeout_s: float = REPLY_TIMEOUT_S) -> dict[str, Any]:
        assert self.sock is not None
        self.sock.settimeout(timeout_s)
        msg = recv_frame(self.sock, MAX_REPLY_BYTES)
        if msg["type"] == "error":
            raise LiveError(f"the server ended the session: {msg.get('message')}")
        if sealed:
            assert self.sealer is not None
            try:
                msg = self.sealer.open(msg)
            except ProtocolError as e:
                raise LiveError(f"a reply failed its check: {e}") from None
        if msg["type"] == "refused":
            raise LiveError(f"the server refused: {msg.get('message')}")
        return msg

    def request(self, msg: dict[str, Any], timeout_s: float = REPLY_TIMEOUT_S) -> dict[str, Any]:
        self.send(msg)
        return self.receive(timeout_s=timeout_s)

    # -- what a run asks ----------------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        return self.request({"type": "info"})

    def clock(self) -> dict[str, float]:
        """Offset of the server's CLOCK_REALTIME over ours (ns) and its error bound (half the
        reading's round trip: the offset is exact only if both ways take equally long)."""
        best: tuple[int, float] | None = None
        for _ in range(CLOCK_READINGS):
            t1 = time.time_ns()
            r = self.request({"type": "clock", "t1": t1})
            t4 = time.time_ns()
            delay = (t4 - t1) - (r["t3"] - r["t2"])
            offset = ((r["t2"] - t1) + (r["t3"] - t4)) / 2
            if best is None or delay < best[0]:
                best = (delay, offset)
        assert best is not None
        return {"offset_ns": best[1], "bound_ns": best[0] / 2, "rtt_ns": float(best[0])}

    def _test(self, test: dict[str, Any]) -> tuple[dict[str, Any], bytes, tuple[str, int]]:
        ready = self.request({"type": "test", **test})
        return ready, bytes.fromhex(ready["token"]), (self.server[0], int(ready["port"]))

    def tcp_test(
        self, direction: str, cca: str, nbytes: int | None, duration_s: float, rate_mbps: float | None, sample_ms: float
    ) -> dict[str, Any]:
        """One transfer; `cca` is the sender's (the server's for a download). Both ends' records."""
        test = {
            "kind": "tcp",
            "direction": direction,
            "cca": cca,
            "bytes": nbytes,
            "duration_s": duration_s,
            "rate_mbps": rate_mbps,
            "sample_ms": sample_ms,
        }
        ready, token, addr = self._test(test)
        wait = float(ready["test"]["duration_s"]) + RESULT_GRACE_S
        conn = tcp.connect(addr, token, cca if direction == "up" else None)
        try:
            if direction == "down":
                local = tcp.receive(conn, wait, sample_ms)
                local["samples"] = {"columns": ["t_ns", "bytes", *tcp.agent.RECEIVER_FIELDS], "rows": local["samples"]}
            else:
                local = tcp.send(conn, nbytes, duration_s, rate_mbps * 1e6 if rate_mbps else None, sample_ms)
        finally:
            conn.close()
        remote = self.receive(timeout_s=wait)
        return {"local": local, "remote": remote, "test": ready["test"]}

    def saturate(self, direction: str, duration_s: float, packet_bytes: int, rate_mbps: float) -> dict[str, Any]:
        """Capacity recording in `direction`; the sender's log and the receiver's arrivals."""
        test = {
            "kind": "saturate",
            "direction": direction,
            "duration_s": duration_s,
            "packet_bytes": packet_bytes,
            "rate_mbps": rate_mbps,
        }
        _ready, token, addr = self._test(test)
        sock = udp.probe_socket()
        try:
            limits = udp.Limits(duration_s, int(self.welcome["limits"]["max_bytes"]), rate_mbps * 1e6, packet_bytes)
            if direction == "down":
                local = udp.saturate_receive(sock, token, limits, allowed_ip=addr[0], punch=addr)
            else:
                local = udp.saturate_send(sock, addr, token, limits).to_json()
        finally:
            sock.close()
        remote = self.receive(timeout_s=duration_s + RESULT_GRACE_S)
        sender, receiver = (remote, local) if direction == "down" else (local, remote)
        return {"sender": sender, "receiver": receiver, "moved_bytes": remote["moved_bytes"]}

    def base_rtt(self) -> list[float]:
        """RTTs (ms) of light packet trains to the server's echo."""
        count = udp.TRAINS * udp.TRAIN_LENGTH
        _, token, addr = self._test({"kind": "echo", "count": count, "duration_s": 5})
        sock = udp.probe_socket()
        try:
            rtts = udp.packet_trains(sock, addr, token)
        finally:
            sock.close()
        self.receive(timeout_s=RESULT_GRACE_S)
        return rtts
