"""Helpers of the live-mode tests: a real `cellcc live serve` process on loopback (or in a
namespace), key files, and plans. Everything stays on 127.0.0.1 or inside namespaces the tests
create; every wait is bounded."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from cellcc.live.config import new_key_toml

REPO = Path(__file__).resolve().parents[1]
#: The installed console script beside this interpreter (the venv's).
CELLCC = [str(Path(sys.executable).parent / "cellcc")]
#: How long a server may take to print its address.
START_TIMEOUT_S = 20.0
_ANNOUNCE = re.compile(r"cellcc live server on (\S+):(\d+)")


def write_keys(folder: Path, key_id: str = "laptop") -> Path:
    path = folder / f"{key_id}.toml"
    path.write_text(new_key_toml(key_id))
    return path


def server_toml(folder: Path, key_file: Path, listen: str = "127.0.0.1", **limits: float) -> Path:
    """A server file on `listen` (any free ports), with `limits` over the defaults."""
    lines = [f'listen = "{listen}"', "port = 0", "data_port = 0", 'log = "sessions.jsonl"', 'state = "quota.json"']
    lines.append("[limits]")
    lines += [f"{k} = {v}" for k, v in {"sessions_per_minute": 1000, **limits}.items()]
    path = folder / "server.toml"
    path.write_text("\n".join(lines) + "\n\n" + key_file.read_text())
    return path


class ServerProcess:
    """`cellcc live serve --config FILE` in a child process (optionally `ip netns exec NS`)."""

    def __init__(self, config: Path, prefix: Sequence[str] = ()):
        self.config = config
        self.proc = subprocess.Popen(
            [*prefix, *CELLCC, "live", "serve", "--config", str(config)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=config.parent,
        )
        self.port = self._wait_announce()

    def _wait_announce(self) -> int:
        found: list[int] = []

        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                m = _ANNOUNCE.search(line)
                if m:
                    found.append(int(m.group(2)))
                    return

        t = threading.Thread(target=read, daemon=True)
        t.start()
        t.join(START_TIMEOUT_S)
        if not found:
            self.stop()
            raise RuntimeError(f"cellcc live serve did not start within {START_TIMEOUT_S} s")
        return found[0]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def log_lines(self) -> list[str]:
        path = self.config.parent / "sessions.jsonl"
        return path.read_text().splitlines() if path.is_file() else []


def plan_toml(folder: Path, server: str, key_file: Path, **over: str) -> Path:
    """A small plan (two CCAs, downlink, one round) with `over` replacing whole lines by key
    (None drops one)."""
    fields = {
        "name": '"test-plan"',
        "server": f'"{server}"',
        "key": f'"{key_file}"',
        "ccas": '["cubic", "reno"]',
        "directions": '["down"]',
        "repetitions": "1",
        "capacity_s": "0.3",
        "rate_mbps": "50",
        "expected_mbps": "{ down = 50, up = 50 }",
        "max_run_bytes": "1e8",
        "max_day_bytes": "1e10",
        "transfer": "{ down = { bytes = 2000000 }, up = { bytes = 2000000 } }",
    }
    fields.update(over)
    text = "\n".join(f"{k} = {v}" for k, v in fields.items() if v is not None)
    text += '\n\n[[places]]\nname = "lab"\n\n[[periods]]\nname = "any"\nwindow = "00:00-24:00"\n'
    path = folder / "plan.toml"
    path.write_text(text)
    return path
