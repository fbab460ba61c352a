"""The control protocol of `cellcc live`: length-prefixed JSON frames, a pre-shared-key
challenge-response, and a MAC on every frame after it.

    client                                   server
      | ---- TCP connect ---------------------> |   (refused: busy, too many sessions from this source)
      | <--- hello {nonce_s}  ------------------ |   32 random bytes, fresh per connection
      | ---- auth {key_id, nonce_c, mac} ------> |   mac = HMAC-SHA256(key, tag|client|nonce_s|nonce_c|key_id)
      | <--- welcome {proof, limits} ----------- |   proof = HMAC-SHA256(key, tag|server|nonce_s|nonce_c|key_id)
      | ==== sealed frames: {seq, mac, ...} ==== |   mac = HMAC-SHA256(session key, direction|seq|body)

A recorded `auth` frame is worthless on another connection: its MAC covers that connection's
server nonce (RFC 2104 HMAC, RFC 6234 SHA-256; the shape of RFC 5802's nonce exchange without
the password hashing, as the key is random). After it every frame carries a sequence number and
a MAC under a session key derived from both nonces, so a frame cannot be injected, replayed or
reordered within the session. Nothing is encrypted: the measurements are not secret, and the key
never crosses the wire.

Frame: 4-byte big-endian length, then a UTF-8 JSON object with a string `type`. A frame longer
than the receiver's limit, or not such an object, ends the connection with an `error` frame.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import secrets
import socket
import struct
from typing import Any

#: Domain-separation tag of every MAC, with the protocol version in it.
TAG = b"cellcc-live-1"
VERSION = 1
#: Bytes of each nonce (NIST SP 800-90A: at least the security strength, 256 bits here).
NONCE_BYTES = 32
#: Smallest key accepted: HMAC-SHA256's output length (RFC 2104 §3: less weakens it).
MIN_KEY_BYTES = 32
#: The largest frame the server reads: requests are a few hundred bytes.
MAX_REQUEST_BYTES = 64 * 1024
#: The largest frame the client reads: a test's TCP_INFO readings (10 ms for up to the server's
#: longest test) travel in one frame.
MAX_REPLY_BYTES = 64 * 1024 * 1024
_LENGTH = struct.Struct("!I")


class ProtocolError(Exception):
    """A frame or message that breaks the protocol; the text is what the peer is told."""


def encode(msg: dict[str, Any]) -> bytes:
    body = json.dumps(msg, separators=(",", ":"), sort_keys=True).encode()
    return _LENGTH.pack(len(body)) + body


def decode(body: bytes) -> dict[str, Any]:
    try:
        msg = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ProtocolError(f"malformed frame: not UTF-8 JSON ({e.__class__.__name__})") from None
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        raise ProtocolError("malformed frame: expected a JSON object with a string `type`")
    return msg


def _check_length(n: int, max_bytes: int) -> None:
    if n > max_bytes:
        raise ProtocolError(f"oversize frame: {n} bytes, the limit is {max_bytes}")


async def read_frame(reader: asyncio.StreamReader, max_bytes: int) -> dict[str, Any]:
    """One frame from an asyncio stream; IncompleteReadError when the peer closed."""
    (n,) = _LENGTH.unpack(await reader.readexactly(_LENGTH.size))
    _check_length(n, max_bytes)
    return decode(await reader.readexactly(n))


def _recv_exactly(sock: socket.socket, n: int) -> bytes:
    parts, left = [], n
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise ConnectionError("the server closed the control connection")
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def recv_frame(sock: socket.socket, max_bytes: int) -> dict[str, Any]:
    """One frame from a blocking socket (the client's side)."""
    (n,) = _LENGTH.unpack(_recv_exactly(sock, _LENGTH.size))
    _check_length(n, max_bytes)
    return decode(_recv_exactly(sock, n))


def new_nonce() -> bytes:
    return secrets.token_bytes(NONCE_BYTES)


def _mac(key: bytes, *parts: bytes) -> str:
    return hmac.new(key, b"|".join((TAG, *parts)), hashlib.sha256).hexdigest()


def client_mac(key: bytes, nonce_s: bytes, nonce_c: bytes, key_id: str) -> str:
    """What the client proves it holds the key with."""
    return _mac(key, b"client", nonce_s, nonce_c, key_id.encode())


def server_proof(key: bytes, nonce_s: bytes, nonce_c: bytes, key_id: str) -> str:
    """What the server proves it holds the key with (the client checks it: no fake server)."""
    return _mac(key, b"server", nonce_s, nonce_c, key_id.encode())


def session_key(key: bytes, nonce_s: bytes, nonce_c: bytes) -> bytes:
    return hmac.new(key, b"|".join((TAG, b"session", nonce_s, nonce_c)), hashlib.sha256).digest()


def same(a: str, b: str) -> bool:
    """Constant-time comparison of two MACs (hex text)."""
    return hmac.compare_digest(a.encode(), b.encode())


def unhex(value: Any, what: str, size: int | None = None) -> bytes:
    """Hex text as bytes; a ProtocolError naming `what` otherwise."""
    try:
        raw = bytes.fromhex(value) if isinstance(value, str) else None
    except ValueError:
        raw = None
    if raw is None or (size is not None and len(raw) != size):
        raise ProtocolError(f"malformed frame: {what} must be {size or 'some'} bytes of hex")
    return raw


class Sealer:
    """MACs and sequence numbers of a session, for the side `sending_side` ("client" or
    "server"): `seal` what it sends, `open` what it receives from the other side."""

    def __init__(self, key: bytes, sending_side: str):
        self._key = key
        self._out_label = sending_side.encode()
        self._in_label = b"server" if sending_side == "client" else b"client"
        self._out_seq = 0
        self._in_seq = 0

    def _mac(self, label: bytes, seq: int, msg: dict[str, Any]) -> str:
        body = json.dumps(msg, separators=(",", ":"), sort_keys=True).encode()
        return _mac(self._key, label, str(seq).encode(), body)

    def seal(self, msg: dict[str, Any]) -> dict[str, Any]:
        assert not {"seq", "mac"} & set(msg), "`seq` and `mac` are the seal's own fields"
        self._out_seq += 1
        return {**msg, "seq": self._out_seq, "mac": self._mac(self._out_label, self._out_seq, msg)}

    def open(self, msg: dict[str, Any]) -> dict[str, Any]:
        body = {k: v for k, v in msg.items() if k not in ("seq", "mac")}
        seq, mac = msg.get("seq"), msg.get("mac")
        if not isinstance(seq, int) or not isinstance(mac, str):
            raise ProtocolError("malformed frame: a sealed frame needs an integer `seq` and a `mac`")
        if seq != self._in_seq + 1:
            raise ProtocolError(f"frame out of sequence: got {seq}, expected {self._in_seq + 1} (replayed?)")
        if not same(mac, self._mac(self._in_label, seq, body)):
            raise ProtocolError("bad frame MAC")
        self._in_seq = seq
        return body
