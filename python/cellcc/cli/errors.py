"""How the CLI reports failures: one line on stderr, never a traceback.

- A user mistake (bad scenario field, missing or unparsable file, unknown name
  in an option) prints ``error: <path>: got <value>; allowed: <...>`` and exits 2.
- An engine failure that is not the user's fault exits 1 with ``internal error: ...``.
- Ctrl-C / SIGTERM print ``interrupted`` and exit 128 + the signal number (130, 143).
  Set ``CELLCC_DEBUG=1`` to get the traceback instead.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager

import typer

from cellcc.errors import EngineError, ScenarioError, UserError

#: Exit code of a user mistake (the click/typer convention for usage errors).
EXIT_USER_ERROR = 2
#: Exit code of an engine failure.
EXIT_ENGINE_ERROR = 1
#: Exit code after a signal is 128 + its number (the shell's convention): Ctrl-C gives 130.
EXIT_SIGNAL_BASE = 128
EXIT_INTERRUPTED = EXIT_SIGNAL_BASE + signal.SIGINT


@contextmanager
def reported() -> Iterator[None]:
    """Turn the exceptions a command may raise into one line and an exit code."""
    try:
        yield
    except (ScenarioError, UserError) as e:
        _fail(f"error: {e}", EXIT_USER_ERROR, e)
    except EngineError as e:
        _fail(f"internal error: {e}", EXIT_ENGINE_ERROR, e)
    except KeyboardInterrupt as e:
        # cellcc.cli.signals.Interrupted carries the signal; a plain KeyboardInterrupt is Ctrl-C.
        _fail("interrupted", EXIT_SIGNAL_BASE + getattr(e, "signum", signal.SIGINT), e)


def _fail(line: str, code: int, cause: BaseException) -> None:
    if os.environ.get("CELLCC_DEBUG"):
        raise cause
    typer.echo(" ".join(line.split()), err=True)
    raise typer.Exit(code) from None
