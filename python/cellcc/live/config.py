"""Configuration of `cellcc live serve` and the key files both ends read.

Server file (TOML)::

    listen = "0.0.0.0"          # address of the control port
    port = 7510                 # control connections (TCP)
    data_port = 7511            # one test's data socket at a time (TCP and UDP); 0: any free port
    log = "live-sessions.jsonl" # one JSON line per session
    state = "live-quota.json"   # bytes moved per key and UTC day
    [limits]                    # every field optional; defaults below
    max_duration_s = 300
    [[keys]]
    id = "laptop"
    secret = "<64+ hex digits>" # `cellcc live keygen laptop` writes one

Client key file: the same `[[keys]]` table with one entry (`keygen` writes both at once).
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
import time
from collections import deque
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from cellcc.errors import UserError

from .protocol import MIN_KEY_BYTES

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

#: The control port's default (unassigned in the IANA registry; any free port will do).
DEFAULT_PORT = 7510


@dataclass(frozen=True)
class Limits:
    """Hard limits the server enforces, whatever a client asks."""

    #: Longest test: the seed's 293 MB download at 10 Mbit/s takes 234 s.
    max_duration_s: float = 300.0
    #: Most bytes one test moves: above the seed's 293 MB download.
    max_bytes: int = 400_000_000
    #: Fastest a test may send: LTE category 6's downlink peak (TS 36.306 Table 4.1-1, 301.5 Mbit/s).
    max_rate_mbps: float = 300.0
    #: Bytes per key per UTC day: the seed's plan moved ~189 GB over ~15 working days (~13 GB a day).
    daily_quota_bytes: int = 20_000_000_000
    #: New sessions per source address per minute (a plan opens one per run, a run lasts > 10 s).
    sessions_per_minute: int = 10
    #: An unauthenticated connection is closed after this long.
    auth_timeout_s: float = 5.0
    #: An authenticated connection with no request for this long is closed.
    idle_timeout_s: float = 30.0

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass
class ServerConfig:
    keys: dict[str, bytes]
    listen: str = "0.0.0.0"
    port: int = DEFAULT_PORT
    data_port: int = DEFAULT_PORT + 1
    log: Path = Path("live-sessions.jsonl")
    state: Path = Path("live-quota.json")
    limits: Limits = field(default_factory=Limits)


def _read_toml(path: Path, what: str) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(what, json.dumps(str(path)), f"a readable TOML file ({e.__class__.__name__})") from None
    except tomllib.TOMLDecodeError as e:
        raise UserError(str(path), "", f"valid TOML ({e})") from None


def parse_keys(doc: dict[str, Any], where: str) -> dict[str, bytes]:
    """`[[keys]]` entries as {id: secret}; each secret at least MIN_KEY_BYTES of hex."""
    entries = doc.get("keys")
    if not isinstance(entries, list) or not entries:
        raise UserError(f"{where}.keys", json.dumps(entries), "a non-empty array of {id, secret} tables")
    keys: dict[str, bytes] = {}
    for i, entry in enumerate(entries):
        path = f"{where}.keys[{i}]"
        if not isinstance(entry, dict) or set(entry) != {"id", "secret"}:
            raise UserError(path, json.dumps(entry), "a table with exactly `id` and `secret`")
        kid, secret = entry["id"], entry["secret"]
        if not isinstance(kid, str) or not kid or kid in keys:
            raise UserError(f"{path}.id", json.dumps(kid), "a non-empty text, unique")
        try:
            raw = bytes.fromhex(secret) if isinstance(secret, str) else b""
        except ValueError:
            raw = b""
        if len(raw) < MIN_KEY_BYTES:
            raise UserError(
                f"{path}.secret", '"…"', f"at least {MIN_KEY_BYTES} bytes as hex ({2 * MIN_KEY_BYTES} digits)"
            )
        keys[kid] = raw
    return keys


def load_server_config(path: Path) -> ServerConfig:
    doc = _read_toml(path, "--config")
    known = {"listen", "port", "data_port", "log", "state", "limits", "keys"}
    extra = sorted(set(doc) - known)
    if extra:
        raise UserError(extra[0], "", f"one of {', '.join(sorted(known))}")
    limits_doc = doc.get("limits", {})
    allowed = {f.name: f.type for f in fields(Limits)}
    for k, v in limits_doc.items():
        if k not in allowed:
            raise UserError(f"limits.{k}", json.dumps(v), f"one of {', '.join(allowed)}")
        if not isinstance(v, (int, float)) or isinstance(v, bool) or v <= 0:
            raise UserError(f"limits.{k}", json.dumps(v), "a number > 0")
    for k in ("port", "data_port"):
        v = doc.get(k, 0)
        if not isinstance(v, int) or not 0 <= v <= 65535:
            raise UserError(k, json.dumps(v), "a port number in [0, 65535]")
    base = path.parent
    return ServerConfig(
        keys=parse_keys(doc, "config"),
        listen=str(doc.get("listen", "0.0.0.0")),
        port=int(doc.get("port", DEFAULT_PORT)),
        data_port=int(doc.get("data_port", DEFAULT_PORT + 1)),
        log=base / doc.get("log", "live-sessions.jsonl"),
        state=base / doc.get("state", "live-quota.json"),
        limits=Limits(**limits_doc),
    )


def load_client_key(path: Path) -> tuple[str, bytes]:
    keys = parse_keys(_read_toml(path, "key"), "key")
    if len(keys) != 1:
        raise UserError("key.keys", str(len(keys)), "exactly one key in a client's key file")
    return next(iter(keys.items()))


def new_key_toml(key_id: str) -> str:
    """A key file with one fresh random secret (the same text serves server and client)."""
    return f'[[keys]]\nid = "{key_id}"\nsecret = "{secrets.token_hex(MIN_KEY_BYTES)}"\n'


def utc_day(now: float | None = None) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(now))


class QuotaLedger:
    """Bytes moved per key per UTC day, kept in a JSON file (temp file + rename)."""

    def __init__(self, path: Path):
        self.path = path
        self._doc: dict[str, dict[str, int]] = json.loads(path.read_text()) if path.is_file() else {}

    def used(self, key_id: str) -> int:
        return int(self._doc.get(utc_day(), {}).get(key_id, 0))

    def add(self, key_id: str, n: int) -> None:
        day = self._doc.setdefault(utc_day(), {})
        day[key_id] = int(day.get(key_id, 0)) + int(n)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        with os.fdopen(fd, "w") as f:
            json.dump(self._doc, f, sort_keys=True)
        os.replace(tmp, self.path)


class SourceLimiter:
    """At most `per_minute` new sessions per source address in any 60 s."""

    WINDOW_S = 60.0

    def __init__(self, per_minute: int):
        self.per_minute = per_minute
        self._seen: dict[str, deque[float]] = {}

    def allow(self, source: str, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        times = self._seen.setdefault(source, deque())
        while times and now - times[0] > self.WINDOW_S:
            times.popleft()
        if len(times) >= self.per_minute:
            return False
        times.append(now)
        return True
