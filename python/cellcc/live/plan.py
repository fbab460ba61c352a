"""A live plan (TOML): places x periods x CCAs x directions x repetitions, what each run moves,
and the byte caps. Pure: parsing, checking, expanding and estimating; `run.py` carries it out.

    name = "li-jie-4g"
    server = "203.0.113.7:7510"        # `cellcc live serve` (host:port)
    key = "laptop-key.toml"            # this host's key file (relative: to the plan's folder)
    ccas = ["cubic", "reno", "bbr"]
    directions = ["down", "up"]
    repetitions = 10                   # rounds; each round runs every CCA in a new random order
    seed = 1                           # of those orders
    warmup_s = 2                       # left out of the live summary's goodput
    capacity_s = 3                     # saturator before and after each run, per direction
    expected_mbps = { down = 30, up = 5 }   # for the byte estimate only
    max_run_bytes = 4e8
    max_day_bytes = 2e10
    interface = "wwan0"                # optional: default the route's device to the server
    radio = { provider = "modemmanager" }   # | "qmicli" (device) | "at" (port) | "none"
    transfer.down = { bytes = 293_000_000 }  # or { duration_s = 60 }
    transfer.up = { bytes = 21_460_000 }
    tags = { operator = "Sonera" }      # labels every run carries (places and periods may have their own)
    [[places]]
    name = "vamk"
    [[periods]]
    name = "early-morning"
    window = "06:00-07:30"             # local time; a run outside it is refused unless told

Every run has a key (a hash of the plan's name, its place, period, round, CCA and direction and of
the measurement settings), so a store resumes with the runs it lacks, as sweeps do.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cellcc.errors import UserError

from .config import DEFAULT_PORT, _read_toml
from .udp import DEFAULT_PACKET_BYTES

DIRECTIONS = ("down", "up")
RADIO_PROVIDERS = ("none", "modemmanager", "qmicli", "at")
#: The saturator sends up to this much more than the path carries: its window grows by 1.25x per
#: round until losses show the queue full (udp.py), so at most one round overshoots.
SATURATOR_OVERHEAD = 1.25
#: Issue 33: the sender's TCP_INFO every 10 ms.
SAMPLE_MS = 10.0
_WINDOW = re.compile(r"^(\d{1,2}):(\d{2})-(\d{1,2}):(\d{2})$")
_TOP = {
    "name",
    "description",
    "server",
    "key",
    "ccas",
    "directions",
    "repetitions",
    "seed",
    "warmup_s",
    "capacity_s",
    "expected_mbps",
    "max_run_bytes",
    "max_day_bytes",
    "interface",
    "radio",
    "transfer",
    "places",
    "periods",
    "packet_bytes",
    "rate_mbps",
    "clock_error_bound_ms",
    "tags",
}


@dataclass(frozen=True)
class Period:
    name: str
    #: Minutes after local midnight; the window may wrap past midnight.
    start_min: int
    end_min: int
    window: str

    def contains(self, minute: int) -> bool:
        if self.start_min <= self.end_min:
            return self.start_min <= minute < self.end_min
        return minute >= self.start_min or minute < self.end_min


@dataclass(frozen=True)
class Transfer:
    bytes: int | None
    duration_s: float | None


@dataclass(frozen=True)
class RunItem:
    key: str
    place: str
    period: str
    round: int
    cca: str
    direction: str


@dataclass
class Plan:
    doc: dict[str, Any]
    source: Path
    name: str
    server: tuple[str, int]
    key: Path
    ccas: list[str]
    directions: list[str]
    repetitions: int
    seed: int
    warmup_s: float
    capacity_s: float
    expected_mbps: dict[str, float]
    max_run_bytes: float
    max_day_bytes: float
    transfer: dict[str, Transfer]
    places: list[str]
    periods: list[Period]
    interface: str | None
    radio: dict[str, Any]
    packet_bytes: int
    rate_mbps: float | None
    clock_error_bound_ms: float | None
    #: Free-form labels: the plan's, each place's and each period's (a run carries all three).
    tags: dict[str, dict[str, Any]] = field(default_factory=dict)

    def tags_of(self, item: RunItem) -> dict[str, Any]:
        return {
            **self.tags.get("", {}),
            **self.tags.get(f"place:{item.place}", {}),
            **self.tags.get(f"period:{item.period}", {}),
        }

    @property
    def sha256(self) -> str:
        return hashlib.sha256(json.dumps(self.doc, sort_keys=True).encode()).hexdigest()

    def settings(self) -> dict[str, Any]:
        """What a run measures: a change here makes new runs (new keys), not a resumed store."""
        return {
            "transfer": {d: [t.bytes, t.duration_s] for d, t in sorted(self.transfer.items())},
            "warmup_s": self.warmup_s,
            "capacity_s": self.capacity_s,
            "packet_bytes": self.packet_bytes,
            "rate_mbps": self.rate_mbps,
        }

    def runs(self) -> list[RunItem]:
        """Every run, in the order they run: per place and period, round by round, each round's
        CCAs in their own random order (the channel drifts), directions as listed."""
        out = []
        settings = json.dumps(self.settings(), sort_keys=True)
        for place in self.places:
            for period in self.periods:
                for rnd in range(1, self.repetitions + 1):
                    order = list(self.ccas)
                    random.Random(f"{self.seed}:{place}:{period.name}:{rnd}").shuffle(order)
                    for cca in order:
                        for direction in self.directions:
                            ident = json.dumps([self.name, place, period.name, rnd, cca, direction, settings])
                            key = hashlib.sha256(ident.encode()).hexdigest()[:16]
                            out.append(RunItem(key, place, period.name, rnd, cca, direction))
        return out

    def transfer_bytes(self, direction: str) -> float:
        t = self.transfer[direction]
        return float(t.bytes) if t.bytes is not None else float(t.duration_s or 0) * self._bps(direction) / 8

    def _bps(self, direction: str) -> float:
        return self.expected_mbps[direction] * 1e6

    def run_bytes(self, item: RunItem) -> float:
        """Estimated bytes of one run: its transfer, and the saturator before and after it in
        both directions (at the expected rates, with its overshoot)."""
        probes = 2 * self.capacity_s * sum(self._bps(d) for d in DIRECTIONS) / 8 * SATURATOR_OVERHEAD
        return self.transfer_bytes(item.direction) + probes

    def describe(self) -> dict[str, Any]:
        """The store's sweep description (catalogue.Store), so `query` and `report` read it."""
        return {
            "name": self.name,
            "description": f"live plan {self.source.name}",
            "base": self.source.name,
            "base_sha256": self.sha256,
            "seeds": list(range(1, self.repetitions + 1)),
            "set": {},
            "axes": [
                {"path": "place", "column": "place", "values": self.places, "zip": None},
                {"path": "period", "column": "period", "values": [p.name for p in self.periods], "zip": None},
                {"path": "flows[0].cca", "column": "cca", "values": self.ccas, "zip": None},
                {"path": "direction", "column": "direction", "values": self.directions, "zip": None},
            ],
        }

    def period(self, name: str) -> Period:
        for p in self.periods:
            if p.name == name:
                return p
        raise UserError("--period", json.dumps(name), f"one of {', '.join(p.name for p in self.periods)}")


def _bad(path: str, value: Any, allowed: str) -> UserError:
    return UserError(path, json.dumps(value, default=str), allowed)


def _positive(doc: dict, key: str, default: float | None = None, integer: bool = False) -> Any:
    value = doc.get(key, default)
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
    if integer:
        ok = ok and float(value).is_integer()
    if not ok:
        raise _bad(key, value, "a whole number > 0" if integer else "a number > 0")
    return int(value) if integer else float(value)


def _names(doc: dict, key: str) -> list[str]:
    items = doc.get(key)
    if not isinstance(items, list) or not items or not all(isinstance(x, str) and x for x in items):
        raise _bad(key, items, "a non-empty list of names")
    if len(set(items)) != len(items):
        raise _bad(key, items, "names without repeats")
    return items


def _window(text: Any, where: str) -> tuple[int, int]:
    m = _WINDOW.match(text) if isinstance(text, str) else None
    if not m or int(m[1]) > 23 or int(m[3]) > 24 or int(m[2]) > 59 or int(m[4]) > 59:
        raise _bad(where, text, '"HH:MM-HH:MM" in local time, e.g. "06:00-07:30"')
    return int(m[1]) * 60 + int(m[2]), int(m[3]) * 60 + int(m[4])


def _transfer(doc: dict, directions: list[str]) -> dict[str, Transfer]:
    table = doc.get("transfer")
    if not isinstance(table, dict):
        raise _bad("transfer", table, "a table with `down` and/or `up`, each { bytes = N } or { duration_s = T }")
    out = {}
    for d in directions:
        t = table.get(d)
        if not isinstance(t, dict) or len(t) != 1 or next(iter(t)) not in ("bytes", "duration_s"):
            raise _bad(f"transfer.{d}", t, "{ bytes = N } or { duration_s = T }")
        if "bytes" in t:
            out[d] = Transfer(_positive(t, "bytes", integer=True), None)
        else:
            out[d] = Transfer(None, _positive(t, "duration_s"))
    return out


def load(path: Path) -> Plan:
    doc = _read_toml(path, "PLAN")
    extra = sorted(set(doc) - _TOP)
    if extra:
        raise _bad(extra[0], doc[extra[0]], f"one of {', '.join(sorted(_TOP))}")
    return parse(doc, path)


def parse(doc: dict[str, Any], path: Path) -> Plan:
    for key in ("name", "server", "key"):
        if not isinstance(doc.get(key), str) or not doc[key]:
            raise _bad(key, doc.get(key), "a non-empty text")
    host, _, port = doc["server"].rpartition(":")
    server = (host, int(port)) if host and port.isdigit() and int(port) < 65536 else (doc["server"], DEFAULT_PORT)
    directions = _names(doc, "directions") if "directions" in doc else list(DIRECTIONS)
    if any(d not in DIRECTIONS for d in directions):
        raise _bad("directions", directions, '"down" and/or "up"')
    expected = doc.get("expected_mbps")
    if not isinstance(expected, dict):
        raise _bad("expected_mbps", expected, "{ down = Mbit/s, up = Mbit/s } (for the byte estimate)")
    expected_mbps = {d: _positive(expected, d) for d in DIRECTIONS}
    places = doc.get("places")
    if not isinstance(places, list) or not places or not all(isinstance(p, dict) and p.get("name") for p in places):
        raise _bad("places", places, "a non-empty array of tables with a `name`")
    periods = []
    for i, p in enumerate(doc.get("periods") or []):
        if not isinstance(p, dict) or not isinstance(p.get("name"), str):
            raise _bad(f"periods[{i}]", p, "a table with a `name` and a `window`")
        start, end = _window(p.get("window"), f"periods[{i}].window")
        periods.append(Period(p["name"], start, end, p["window"]))
    if not periods:
        raise _bad("periods", doc.get("periods"), "a non-empty array of { name, window }")
    radio = doc.get("radio", {"provider": "none"})
    if not isinstance(radio, dict) or radio.get("provider") not in RADIO_PROVIDERS:
        raise _bad("radio.provider", (radio or {}).get("provider"), f"one of {', '.join(RADIO_PROVIDERS)}")
    bound = doc.get("clock_error_bound_ms")
    tags = {"": _tags(doc.get("tags", {}), "tags")}
    for i, p in enumerate(places):
        tags[f"place:{p['name']}"] = _tags(p.get("tags", {}), f"places[{i}].tags")
    for i, p in enumerate(doc["periods"]):
        tags[f"period:{p['name']}"] = _tags(p.get("tags", {}), f"periods[{i}].tags")
    return Plan(
        doc=doc,
        source=path,
        name=doc["name"],
        server=server,
        key=(path.parent / doc["key"]).expanduser(),
        ccas=_names(doc, "ccas"),
        directions=directions,
        repetitions=_positive(doc, "repetitions", 1, integer=True),
        seed=int(doc.get("seed", 1)),
        warmup_s=float(doc.get("warmup_s", 0.0)),
        capacity_s=_positive(doc, "capacity_s", 3.0),
        expected_mbps=expected_mbps,
        max_run_bytes=_positive(doc, "max_run_bytes"),
        max_day_bytes=_positive(doc, "max_day_bytes"),
        transfer=_transfer(doc, directions),
        places=[str(p["name"]) for p in places],
        periods=periods,
        interface=doc.get("interface"),
        radio=radio,
        packet_bytes=_positive(doc, "packet_bytes", DEFAULT_PACKET_BYTES, integer=True),
        rate_mbps=_positive(doc, "rate_mbps") if "rate_mbps" in doc else None,
        clock_error_bound_ms=_positive(doc, "clock_error_bound_ms") if bound is not None else None,
        tags=tags,
    )


def _tags(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict) or not all(isinstance(v, (str, int, float, bool)) for v in value.values()):
        raise _bad(where, value, "a table of labels (text, numbers or booleans)")
    return dict(value)
