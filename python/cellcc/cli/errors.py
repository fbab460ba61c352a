"""How the CLI reports failures: one line on stderr, never a traceback.

- A user mistake (bad scenario field, missing or unparsable file, unknown name
  in an option) prints ``error: <path>: got <value>; allowed: <...>`` and exits 2.
- An engine failure that is not the user's fault exits 1 with ``internal error: ...``.
  Set ``CELLCC_DEBUG=1`` to get the traceback instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import typer

from cellcc.errors import EngineError, ScenarioError, UserError

#: Exit code of a user mistake (the click/typer convention for usage errors).
EXIT_USER_ERROR = 2
#: Exit code of an engine failure.
EXIT_ENGINE_ERROR = 1
#: Exit code after Ctrl-C (128 + SIGINT).
EXIT_INTERRUPTED = 130


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
        _fail("interrupted", EXIT_INTERRUPTED, e)


def _fail(line: str, code: int, cause: BaseException) -> None:
    if os.environ.get("CELLCC_DEBUG"):
        raise cause
    typer.echo(" ".join(line.split()), err=True)
    raise typer.Exit(code) from None
