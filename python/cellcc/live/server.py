"""`cellcc live serve`: the wired end of a live measurement.

One control connection per client (protocol.py), one session at a time; each test opens its
data socket on `data_port` (TCP for transfers, UDP for the saturator and packet trains) and
closes it when the test ends. What the server will do, whatever a client asks:

- talk only to the authenticated peer of the control connection: data connections and
  datagrams from any other address are dropped, and nothing is ever sent anywhere else; it
  never connects onward and runs no command a client names (a congestion control is a name the
  kernel looks up in its own list, checked against that list first);
- hard limits (`config.Limits`): duration, bytes and rate per test, one test at a time, a daily
  byte quota per key, new sessions per source per minute; an unauthenticated connection is
  closed after `auth_timeout_s`, an idle one after `idle_timeout_s`;
- its UDP saturator stops within ACK_TIMEOUT_S once the peer's acknowledgements stop;
- every session is logged as one JSON line: key id, peer, bytes, duration, how it ended.
"""

from __future__ import annotations

import asyncio
import json
import math
import secrets
import socket
import time
from dataclasses import dataclass, field
from typing import Any

from . import host, tcp, udp
from .config import QuotaLedger, ServerConfig, SourceLimiter
from .protocol import (
    MAX_REQUEST_BYTES,
    VERSION,
    ProtocolError,
    Sealer,
    client_mac,
    encode,
    new_nonce,
    read_frame,
    same,
    server_proof,
    session_key,
    unhex,
)

#: TCP_INFO period of a transfer (issue 33: the sender's TCP_INFO every 10 ms).
DEFAULT_SAMPLE_MS = 10.0
#: What a client may ask of the TCP_INFO period: no finer than 1 ms (each reading is a system call
#: on the server), no coarser than 1 s.
MIN_SAMPLE_MS, MAX_SAMPLE_MS = 1.0, 1000.0
#: Extra time a bytes-bound transfer or a receiver gets beyond what it asked, for the last ACKs.
GRACE_S = 5.0
#: Most packet-train echoes one request may ask for.
MAX_ECHOES = 100
ECHO_TIMEOUT_S = 10.0
TEST_KINDS = ("tcp", "saturate", "echo")
DIRECTIONS = ("down", "up")


class Refused(Exception):
    """A request the server will not carry out; the session goes on."""


@dataclass
class Session:
    peer: str
    started: float
    key_id: str = ""
    bytes: int = 0
    tests: int = 0
    end: str = "closed"
    sealer: Sealer | None = None
    notes: list[str] = field(default_factory=list)


class LiveServer:
    def __init__(self, config: ServerConfig, ccas: list[str] | None = None):
        self.config = config
        self.limits = config.limits
        self.ccas = ccas if ccas is not None else host.available_ccas()
        self.ledger = QuotaLedger(config.state)
        self.sources = SourceLimiter(self.limits.sessions_per_minute)
        self.active: Session | None = None
        self.server: asyncio.AbstractServer | None = None

    async def start(self) -> tuple[str, int]:
        self.server = await asyncio.start_server(self._connection, self.config.listen, self.config.port)
        addr = self.server.sockets[0].getsockname()
        return addr[0], addr[1]

    async def serve_forever(self) -> None:
        assert self.server is not None
        async with self.server:
            await self.server.serve_forever()

    # -- one connection ------------------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")[0]
        s = Session(peer=peer, started=time.time())
        try:
            if not self.sources.allow(peer):
                raise ProtocolError(
                    f"too many new sessions from {peer}: at most {self.limits.sessions_per_minute} a minute"
                )
            await self._authenticate(s, reader, writer)
            await self._requests(s, reader, writer)
        except ProtocolError as e:
            s.end = str(e)
            await self._send(writer, {"type": "error", "message": str(e)}, s if s.sealer else None)
        except (asyncio.IncompleteReadError, ConnectionError):
            s.end = "peer closed"
        except (TimeoutError, asyncio.TimeoutError):
            s.end = "timed out: " + ("idle" if s.sealer else "no authentication")
            await self._send(writer, {"type": "error", "message": s.end}, s if s.sealer else None)
        finally:
            if self.active is s:
                self.active = None
            writer.close()
            self._log(s)

    async def _send(self, writer: asyncio.StreamWriter, msg: dict[str, Any], s: Session | None = None) -> None:
        if s is not None and s.sealer is not None:
            msg = s.sealer.seal(msg)
        try:
            writer.write(encode(msg))
            await writer.drain()
        except ConnectionError:
            pass

    async def _authenticate(self, s: Session, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonce_s = new_nonce()
        await self._send(writer, {"type": "hello", "version": VERSION, "nonce": nonce_s.hex()})
        msg = await asyncio.wait_for(read_frame(reader, MAX_REQUEST_BYTES), self.limits.auth_timeout_s)
        if msg["type"] != "auth":
            raise ProtocolError(f"expected `auth`, got {msg['type']!r}")
        key_id = msg.get("key_id")
        nonce_c = unhex(msg.get("nonce"), "nonce", 32)
        key = self.config.keys.get(key_id) if isinstance(key_id, str) else None
        if (
            key is None
            or not isinstance(msg.get("mac"), str)
            or not same(msg["mac"], client_mac(key, nonce_s, nonce_c, key_id))
        ):
            raise ProtocolError("authentication failed")
        s.key_id = key_id
        s.sealer = Sealer(session_key(key, nonce_s, nonce_c), "server")
        # One session at a time, counted from authentication: a stranger cannot hold the server.
        if self.active is not None:
            raise ProtocolError(f"busy: serving another session (since {time.ctime(self.active.started)})")
        self.active = s
        welcome = {
            "type": "welcome",
            "proof": server_proof(key, nonce_s, nonce_c, key_id),
            "limits": self.limits.to_json(),
            "quota_left_bytes": self.limits.daily_quota_bytes - self.ledger.used(key_id),
        }
        await self._send(writer, welcome, s)

    async def _requests(self, s: Session, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        assert s.sealer is not None
        while True:
            raw = await asyncio.wait_for(read_frame(reader, MAX_REQUEST_BYTES), self.limits.idle_timeout_s)
            msg = s.sealer.open(raw)
            kind = msg["type"]
            if kind == "bye":
                s.end = "bye"
                return
            try:
                reply = await self._request(s, msg, writer)
            except Refused as e:
                s.notes.append(str(e))
                reply = {"type": "refused", "message": str(e)}
            await self._send(writer, reply, s)

    async def _request(self, s: Session, msg: dict[str, Any], writer: asyncio.StreamWriter) -> dict[str, Any]:
        kind = msg["type"]
        if kind == "info":
            return {"type": "info", "ccas": self.ccas, "host": host.provenance(s.peer)}
        if kind == "clock":
            t2 = time.time_ns()
            return {"type": "clock", "t1": msg.get("t1"), "t2": t2, "t3": time.time_ns()}
        if kind == "test":
            return await self._test(s, msg, writer)
        raise ProtocolError(f"unknown request type {kind!r}")

    # -- tests ---------------------------------------------------------------------------------

    def _check_test(self, s: Session, msg: dict[str, Any]) -> dict[str, Any]:
        """The test as the server will run it, or Refused saying which limit it breaks."""
        lim = self.limits
        kind, direction = msg.get("kind"), msg.get("direction")
        if kind not in TEST_KINDS:
            raise Refused(f"test kind {kind!r}: one of {', '.join(TEST_KINDS)}")
        if kind != "echo" and direction not in DIRECTIONS:
            raise Refused(f"direction {direction!r}: one of {', '.join(DIRECTIONS)}")
        duration = _number(msg, "duration_s", lim.max_duration_s)
        if duration > lim.max_duration_s:
            raise Refused(f"over-limit duration: {duration:g} s, the server's limit is {lim.max_duration_s:g} s")
        nbytes = msg.get("bytes")
        if nbytes is not None and (not isinstance(nbytes, int) or isinstance(nbytes, bool) or nbytes <= 0):
            raise Refused(f"bytes {nbytes!r}: a whole number > 0")
        if nbytes is not None and nbytes > lim.max_bytes:
            raise Refused(f"over-limit bytes: {nbytes}, the server's limit is {lim.max_bytes}")
        rate = _number(msg, "rate_mbps", lim.max_rate_mbps)
        if rate > lim.max_rate_mbps:
            raise Refused(f"over-limit rate: {rate:g} Mbit/s, the server's limit is {lim.max_rate_mbps:g}")
        cca = msg.get("cca")
        if kind == "tcp" and direction == "down" and (not isinstance(cca, str) or cca not in self.ccas):
            raise Refused(f"the server lacks the congestion control {cca!r}; it offers {', '.join(self.ccas)}")
        packet_bytes = int(_number(msg, "packet_bytes", udp.DEFAULT_PACKET_BYTES))
        if not udp.MIN_PACKET_BYTES <= packet_bytes <= udp.MAX_PACKET_BYTES:
            raise Refused(f"packet_bytes {packet_bytes}: between {udp.MIN_PACKET_BYTES} and {udp.MAX_PACKET_BYTES}")
        sample_ms = _number(msg, "sample_ms", DEFAULT_SAMPLE_MS)
        if not MIN_SAMPLE_MS <= sample_ms <= MAX_SAMPLE_MS:
            raise Refused(f"sample_ms {sample_ms:g}: between {MIN_SAMPLE_MS:g} and {MAX_SAMPLE_MS:g}")
        estimate = nbytes if nbytes is not None else min(lim.max_bytes, int(rate * 1e6 / 8 * duration))
        if kind == "echo":
            estimate = MAX_ECHOES * udp.MAX_ECHO_BYTES
        used = self.ledger.used(s.key_id)
        if used + estimate > lim.daily_quota_bytes:
            raise Refused(
                f"over the daily quota of key {s.key_id!r}: {used} of {lim.daily_quota_bytes} bytes used today (UTC), "
                f"this test may move up to {estimate}"
            )
        return {
            "kind": kind,
            "direction": direction,
            "duration_s": duration,
            "bytes": nbytes,
            "rate_mbps": rate,
            "cca": cca,
            "sample_ms": sample_ms,
            "packet_bytes": packet_bytes,
            "count": int(min(MAX_ECHOES, _number(msg, "count", MAX_ECHOES))),
        }

    async def _test(self, s: Session, msg: dict[str, Any], writer: asyncio.StreamWriter) -> dict[str, Any]:
        t = self._check_test(s, msg)
        token = secrets.token_bytes(tcp.TOKEN_BYTES if t["kind"] == "tcp" else udp.TOKEN_BYTES)
        bind = (self.config.listen, self.config.data_port)
        if t["kind"] == "tcp":
            sock = tcp.listener(bind, t["cca"] if t["direction"] == "down" else None)
        else:
            sock = udp.probe_socket(bind)
        try:
            await self._send(
                writer, {"type": "ready", "port": sock.getsockname()[1], "token": token.hex(), "test": t}, s
            )
            started = time.monotonic()
            try:
                result = await asyncio.to_thread(self._run_test, t, sock, token, s.peer)
            except OSError as e:  # TimeoutError too: the client's data connection never came
                raise Refused(f"the test ended without a result: {e}") from None
        finally:
            sock.close()
        moved = int(result.pop("moved_bytes", 0))
        s.bytes += moved
        s.tests += 1
        self.ledger.add(s.key_id, moved)
        return {"type": "result", "moved_bytes": moved, "wall_s": time.monotonic() - started, **result}

    def _run_test(self, t: dict[str, Any], sock: socket.socket, token: bytes, peer: str) -> dict[str, Any]:
        lim = self.limits
        rate_bps = t["rate_mbps"] * 1e6
        if t["kind"] == "echo":
            n = udp.echo_serve(sock, token, peer, t["count"], ECHO_TIMEOUT_S)
            return {"echoed": n, "moved_bytes": n * udp.MAX_ECHO_BYTES}
        if t["kind"] == "saturate":
            limits = udp.Limits(t["duration_s"], lim.max_bytes, rate_bps, t["packet_bytes"])
            if t["direction"] == "down":
                return self._saturate_down(sock, token, peer, limits)
            got = udp.saturate_receive(sock, token, limits, allowed_ip=peer)
            return {**got, "moved_bytes": len(got["data_seq"]) * t["packet_bytes"]}
        conn = tcp.accept_peer(sock, peer, token)
        try:
            if t["direction"] == "down":
                duration = t["duration_s"] if t["bytes"] is None else lim.max_duration_s
                out = tcp.send(conn, t["bytes"], duration, rate_bps, t["sample_ms"])
                return {**out, "moved_bytes": out["app_bytes_written"]}
            cap = t["bytes"] if t["bytes"] is not None else lim.max_bytes
            duration = (t["duration_s"] if t["bytes"] is None else lim.max_duration_s) + GRACE_S
            out = tcp.receive(conn, duration, t["sample_ms"], cap, rate_bps)
            out["samples"] = {"columns": ["t_ns", "bytes", *tcp.agent.RECEIVER_FIELDS], "rows": out["samples"]}
            return {**out, "moved_bytes": out["bytes"]}
        finally:
            conn.close()

    def _saturate_down(self, sock: socket.socket, token: bytes, peer: str, limits: udp.Limits) -> dict[str, Any]:
        addr = _punch_source(sock, token, peer)
        if addr is None:
            return {"stopped": "no punch datagram from the client", "moved_bytes": 0}
        log = udp.saturate_send(sock, addr, token, limits)
        return {**log.to_json(), "moved_bytes": len(log.send_ns) * limits.packet_bytes}

    def _log(self, s: Session) -> None:
        line = {
            "t": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(s.started)),
            "key_id": s.key_id or None,
            "peer": s.peer,
            "bytes": s.bytes,
            "tests": s.tests,
            "duration_s": round(time.time() - s.started, 3),
            "end": s.end,
            "refused": s.notes,
        }
        self.config.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.config.log, "a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")


def _punch_source(sock: socket.socket, token: bytes, peer: str) -> tuple[str, int] | None:
    """The address the client's punch datagram came from (its NAT mapping), if it came in time."""
    deadline = time.monotonic() + udp.FIRST_PACKET_TIMEOUT_S
    sock.settimeout(0.1)
    while time.monotonic() < deadline:
        try:
            data, addr = sock.recvfrom(udp.MAX_ECHO_BYTES)
        except TimeoutError:
            continue
        if addr[0] == peer and len(data) >= udp.HEADER.size:
            tok, kind, *_ = udp.HEADER.unpack(data[: udp.HEADER.size])
            if tok == token and kind == udp.KIND_PUNCH:
                return addr
    return None


def _number(msg: dict[str, Any], key: str, default: float) -> float:
    value = msg.get(key, default)
    if value is None:
        return float(default)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value <= 0:
        raise Refused(f"{key} {value!r}: a number > 0")
    return float(value)


def serve(config: ServerConfig, announce=print) -> None:
    """Run the server until interrupted."""

    async def main() -> None:
        server = LiveServer(config)
        host_, port = await server.start()
        data = config.data_port or "any free port"
        announce(f"cellcc live server on {host_}:{port} (data port {data}), ccas {' '.join(server.ccas)}")
        await server.serve_forever()

    asyncio.run(main())
