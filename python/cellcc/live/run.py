"""`cellcc live run PLAN`: carry out a plan's runs for one place and period into a results store,
one session with the server per run:

    clock readings -> light packet trains (base RTT) -> saturator down, up (before)
    -> the TCP transfer -> saturator down, up (after) -> clock readings
    (interface counters every 100 ms and the radio every second throughout)

Before any traffic: the period's window (unless told), the byte caps (each run's estimate under
`max_run_bytes`, the invocation's under what is left of `max_day_bytes` today), and every CCA on
the host that will send it (this host for uploads, the server for downloads: its list comes from
one short `info` session). The store is the sweeps' (`catalogue.Store`): a run folder appears
whole by one rename, so a plan killed mid-way resumes with the runs it lacks, none lost or
repeated.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from cellcc.catalogue import Store, missing
from cellcc.errors import UserError

from . import host, radio, results
from .client import LiveClient, LiveError
from .config import load_client_key, utc_day
from .plan import SAMPLE_MS, Plan, RunItem


@dataclass(frozen=True)
class Outcome:
    planned: int
    ran: int
    skipped: int
    estimate_bytes: float


def day_bytes(store: Store, day: str) -> int:
    """Bytes the store's runs moved on UTC day `day`."""
    total = 0
    for key in store.complete_keys():
        path = store.run_dir(key) / "summary.json"
        summary = json.loads(path.read_text())["summary"] if path.is_file() else {}
        if summary.get("utc_day") == day:
            total += int(summary.get("moved_bytes", 0))
    return total


def select(
    plan: Plan, store: Store, place: str | None, period: str | None, outside_window: bool, now: datetime
) -> tuple[str, str, list[RunItem]]:
    """The place, the period and the runs of them the store lacks; refusals name the option."""
    if place is None:
        if len(plan.places) > 1:
            raise UserError("--place", "(none)", f"one of {', '.join(plan.places)} (where this host is now)")
        place = plan.places[0]
    if place not in plan.places:
        raise UserError("--place", json.dumps(place), f"one of {', '.join(plan.places)}")
    minute = now.hour * 60 + now.minute
    if period is None:
        current = [p for p in plan.periods if p.contains(minute)]
        if not current:
            windows = ", ".join(f"{p.name} {p.window}" for p in plan.periods)
            raise UserError(
                "--period",
                "(none)",
                f"a period whose window holds the local time {now:%H:%M} (the plan's: {windows}); "
                "or name one with --period and pass --outside-window",
            )
        period = current[0].name
    chosen = plan.period(period)
    if not chosen.contains(minute) and not outside_window:
        raise UserError(
            "--period",
            json.dumps(period),
            f"a period whose window ({chosen.window}) holds the local time {now:%H:%M}, "
            "or --outside-window to run it anyway",
        )
    runs = [r for r in plan.runs() if r.place == place and r.period == period]
    return place, period, missing(runs, store.complete_keys())


def check_bytes(plan: Plan, todo: list[RunItem], used_today: int) -> float:
    """The estimate of `todo`; refused (before any traffic) over either cap."""
    for r in todo:
        est = plan.run_bytes(r)
        if est > plan.max_run_bytes:
            raise UserError(
                "max_run_bytes",
                f"{plan.max_run_bytes:.4g}",
                f"at least run {r.cca} {r.direction}'s estimate of {est:.4g} bytes (transfer + saturator)",
            )
    total = sum(plan.run_bytes(r) for r in todo)
    if used_today + total > plan.max_day_bytes:
        raise UserError(
            "max_day_bytes",
            f"{plan.max_day_bytes:.4g}",
            f"at least the {used_today} bytes moved today (UTC) plus these {len(todo)} runs' estimate of "
            f"{total:.4g}; run fewer with --max-runs",
        )
    return total


def check_ccas(plan: Plan, todo: list[RunItem], server_ccas: list[str]) -> None:
    """Every CCA on the host that sends it; the error names the host that lacks it."""
    mine = host.available_ccas()
    for r in todo:
        where, have = ("this host (the client)", mine) if r.direction == "up" else ("the server", server_ccas)
        if r.cca not in have:
            raise UserError(
                "ccas",
                json.dumps(r.cca),
                f"a congestion control {where} offers for the {r.direction}link it sends: {', '.join(have) or 'none'}",
            )


def run_plan(
    plan: Plan,
    out: Path,
    *,
    place: str | None = None,
    period: str | None = None,
    outside_window: bool = False,
    max_runs: int | None = None,
    now: datetime | None = None,
    log: Callable[[str], None] = print,
) -> Outcome:
    store = Store.create(out)
    place, period, todo = select(plan, store, place, period, outside_window, now or datetime.now())
    planned = [r for r in plan.runs() if r.place == place and r.period == period]
    todo = todo[:max_runs] if max_runs is not None else todo
    estimate = check_bytes(plan, todo, day_bytes(store, utc_day()))
    store.write_manifest(plan.describe(), [_row(r) for r in plan.runs()])
    if not todo:
        return Outcome(len(planned), 0, len(planned), 0.0)
    key_id, key = load_client_key(plan.key)
    with session(plan, key_id, key) as c:
        server_ccas = c.info()["ccas"]
    check_ccas(plan, todo, server_ccas)
    log(f"{place}, {period}: {len(todo)} of {len(planned)} runs to do, about {estimate / 1e6:.0f} MB")
    for i, r in enumerate(todo, 1):
        started = time.monotonic()
        files = results.run_folder_files(measure(plan, r, key_id, key), f"{plan.name}-{r.key}")
        store.put(r.key, files)
        log(f"[{i}/{len(todo)}] round {r.round} {r.cca} {r.direction}: done in {time.monotonic() - started:.0f} s")
    return Outcome(len(planned), len(todo), len(planned) - len(todo), estimate)


#: How long a run waits for a busy server (a killed run's session winds down within seconds:
#: the server's probes stop a second after the acknowledgements do).
BUSY_WAIT_S = 30.0
BUSY_RETRY_S = 1.0


@contextmanager
def session(plan: Plan, key_id: str, key: bytes) -> Iterator[LiveClient]:
    """An open session, waiting up to BUSY_WAIT_S while the server serves another."""
    c = LiveClient(plan.server, key_id, key)
    deadline = time.monotonic() + BUSY_WAIT_S
    while True:
        try:
            c.open()
            break
        except LiveError as e:
            if "busy" not in str(e) or time.monotonic() > deadline:
                raise
        time.sleep(BUSY_RETRY_S)
    try:
        yield c
    finally:
        c.close()


def _row(r: RunItem) -> dict[str, Any]:
    return {
        "key": r.key,
        "seed": r.round,
        "place": r.place,
        "period": r.period,
        "cca": r.cca,
        "direction": r.direction,
        "round": r.round,
    }


def measure(plan: Plan, r: RunItem, key_id: str, key: bytes) -> dict[str, Any]:
    """One run, raw: everything `results.run_folder_files` needs."""
    t = plan.transfer[r.direction]
    rate = plan.rate_mbps
    provider = radio.provider_from(plan.radio)
    m: dict[str, Any] = {
        "item": {
            "key": r.key,
            "place": r.place,
            "period": r.period,
            "round": r.round,
            "cca": r.cca,
            "direction": r.direction,
        },
        "settings": plan.settings() | {"transfer": {d: [x.bytes, x.duration_s] for d, x in plan.transfer.items()}},
        "utc_day": utc_day(),
        "tags": plan.tags_of(r),
    }
    with session(plan, key_id, key) as c:
        m["server"] = c.info()
        m["client"] = host.provenance(plan.server[0])
        dev = plan.interface or m["client"].get("device")
        clock = c.clock()
        if plan.clock_error_bound_ms is not None:
            clock["bound_ns"] = plan.clock_error_bound_ms * 1e6
        m["clock"] = clock
        m["base_rtt_ms"] = c.base_rtt()
        cap_rate = rate or float(c.welcome["limits"]["max_rate_mbps"])
        moved = 0
        with host.CounterSampler(dev if isinstance(dev, str) else None) as counters, radio.RadioSampler(provider) as rs:
            m["capacity"] = {"before": {}, "after": {}}
            for d in ("down", "up"):
                m["capacity"]["before"][d] = c.saturate(d, plan.capacity_s, plan.packet_bytes, cap_rate)
            duration = t.duration_s if t.duration_s is not None else float(c.welcome["limits"]["max_duration_s"])
            m["tcp"] = c.tcp_test(r.direction, r.cca, t.bytes, duration, rate, SAMPLE_MS)
            for d in ("down", "up"):
                m["capacity"]["after"][d] = c.saturate(d, plan.capacity_s, plan.packet_bytes, cap_rate)
        m["clock_after"] = c.clock()
        moved += sum(x[d]["moved_bytes"] for x in m["capacity"].values() for d in x)
        moved += int(m["tcp"]["remote"]["moved_bytes"])
    m["moved_bytes"] = moved
    m["counters"] = {"device": dev, "rows": counters.rows, "unavailable": counters.unavailable}
    m["radio"] = {
        "provider": provider.name,
        "identity": _identity(provider),
        "rows": rs.rows,
        "unavailable": rs.unavailable(),
    }
    return m


def _identity(provider: radio.Provider) -> dict[str, Any]:
    try:
        return provider.identity()
    except Exception as e:  # the modem's identity is provenance, not a reason to lose the run
        return {"error": str(e)}
