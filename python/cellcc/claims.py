"""Claims on a sweep's runs, so several ``cellcc sweep run`` processes share one store.

A process runs a run only while it holds that run's claim: the file
``<store>/.claims/<key>.claim`` with an exclusive ``flock`` on it. The kernel drops the lock
when its holder exits for any reason (``kill -9``, a crash, a power loss of the client), so a
claim whose file exists but whose lock can be taken is a crashed claimer's: the next process
that tries takes the run over. There is no time-out to tune and no heartbeat::

    process A                                process B
    acquire(k1): open + flock  -> held       acquire(k1): flock fails -> A has it; try k2
    run k1, put runs/key=k1 (one rename)     acquire(k2) -> held; run k2 ...
    release(k1): unlink, close               (A crashed instead? its lock is gone:
                                              B's next acquire(k1) takes it over)

The holder writes who it is into the file (pid, host, the process's start time) for a person
reading a stuck store; nothing decides by it. After taking a lock, :meth:`Claims.acquire`
checks that the file it locked is still the one at the path (the holder unlinks before it
unlocks, so a waiter may lock an orphan) and that the run is not complete by then.

``flock`` works on local file systems and, through POSIX locks, on NFS v4; stores on other
shared file systems should be run by one process at a time.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["CLAIMS_DIR", "WAIT_S", "Claims"]

#: How long a process with nothing of its own to run waits before it looks again at the runs
#: other processes hold, seconds: short against a run's seconds, long against a few stat calls.
WAIT_S = 0.2
#: Folder of the claim files inside a store (hidden: not a run folder, not a query view).
CLAIMS_DIR = ".claims"
#: The lock that serialises read-modify-write of a store's shared files (timings.json).
_STORE_LOCK = ".store.lock"


def _process_start_ticks(pid: int) -> str:
    """Field 22 of /proc/PID/stat (start time in clock ticks since boot), with the pid and host
    the identity of a process that a reused pid does not share; "" where /proc is absent."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return ""
    # The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    return stat.rsplit(")", 1)[1].split()[19]


class Claims:
    """The claims of one store (see the module doc)."""

    def __init__(self, store_root: Path) -> None:
        self.folder = store_root / CLAIMS_DIR
        self.folder.mkdir(parents=True, exist_ok=True)
        self._held: dict[str, int] = {}
        pid = os.getpid()
        self._identity = json.dumps(
            {"pid": pid, "host": socket.gethostname(), "start_ticks": _process_start_ticks(pid)}, sort_keys=True
        )

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.claim"

    def acquire(self, key: str, complete: Callable[[], bool]) -> bool:
        """Claim run ``key`` unless another live process holds it or ``complete()`` says it is done."""
        if key in self._held:
            return True
        path = self._path(key)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        if not _same_file(fd, path) or complete():
            # The holder released it (or it finished) between our open and our lock.
            _unlink_and_close(fd, path if _same_file(fd, path) else None)
            return False
        os.ftruncate(fd, 0)
        os.write(fd, (self._identity + "\n").encode("utf-8"))
        self._held[key] = fd
        return True

    def holder(self, key: str) -> str:
        """Who claims ``key`` (the claim file's text), or "" if nobody does."""
        try:
            return self._path(key).read_text(encoding="utf-8").strip()
        except OSError:
            return ""

    def is_held_elsewhere(self, key: str) -> bool:
        """True if a live process other than this one holds ``key``'s claim."""
        if key in self._held or not self._path(key).exists():
            return False
        try:
            fd = os.open(self._path(key), os.O_RDWR)
        except FileNotFoundError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)  # closing drops a lock we took
        return False

    def release(self, key: str) -> None:
        """Give up ``key`` (its run is stored, or this process stops): unlink, then unlock."""
        fd = self._held.pop(key, None)
        if fd is not None:
            _unlink_and_close(fd, self._path(key))

    def release_all(self) -> None:
        for key in list(self._held):
            self.release(key)

    @contextmanager
    def store_lock(self) -> Iterator[None]:
        """Hold the store-wide lock (blocking) for a read-modify-write of a shared file."""
        fd = os.open(self.folder / _STORE_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        here = path.stat()
    except FileNotFoundError:
        return False
    there = os.fstat(fd)
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _unlink_and_close(fd: int, path: Path | None) -> None:
    if path is not None:
        path.unlink(missing_ok=True)
    os.close(fd)
