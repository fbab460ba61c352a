"""Ctrl-C and SIGTERM for `cellcc run` and `cellcc compare`: stop within moments, write
nothing, exit 128 + the signal's number (130 for SIGINT, 143 for SIGTERM).

Inside :func:`interruptible`, the first SIGINT or SIGTERM:

1. tells the engine to stop every run in this process (``_core.interrupt()``): a run
   on a worker thread stops at its next look, a few ms of wall time later;
2. terminates the worker processes of a process pool: they hold nothing worth saving
   (results come back to this process, which writes them atomically);
3. raises :class:`Interrupted` in the main thread. It unwinds through the writers'
   clean-up (temporary files removed, see :mod:`cellcc.store`) to
   :func:`cellcc.cli.errors.reported`, which prints one line and exits 128 + signal.

A second signal while that clean-up runs gets the default action: the process ends at once.
A signal that arrives while a process pool spawns its workers is acted on as soon as the
spawn is done, a few ms later (:class:`cellcc.runner.SpawnGuard` says why).
"""

from __future__ import annotations

import functools
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from cellcc import _core

__all__ = ["HANDLED", "Interrupted", "interruptible"]

#: The signals a command stops on.
HANDLED = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """A command was stopped by ``signum``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _terminate_workers() -> None:
    # Only a process that started a pool has imported multiprocessing; do not import it here.
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is None:
        return
    for child in multiprocessing.active_children():
        child.terminate()


def _on_signal(signum: int, frame: FrameType | None) -> None:
    # While a process pool spawns workers, act once it is done (see cellcc.runner.SpawnGuard).
    # Only a process that runs a pool has imported the runner (maybe partly, if the signal
    # lands while it is being imported); do not import it here.
    guard = getattr(sys.modules.get("cellcc.runner"), "SPAWNING", None)
    if guard is not None and guard.active:
        guard.pending = functools.partial(_on_signal, signum, frame)
        return
    for sig in HANDLED:
        signal.signal(sig, signal.SIG_DFL)
    _core.interrupt()
    _terminate_workers()
    raise Interrupted(signum)


@contextmanager
def interruptible() -> Iterator[None]:
    """Handle SIGINT and SIGTERM as the module doc says while the block runs (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in HANDLED}
    for sig in HANDLED:
        signal.signal(sig, _on_signal)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        _core.clear_interrupt()
