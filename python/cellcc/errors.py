"""Errors a user can cause, and the engine's own exception classes.

Every user mistake is a :class:`ValueError` that names the field (or file or
option), the value given and what is allowed, in the engine's format::

    flows[0].cca: got "bbr9"; allowed: one of reno, newreno

:class:`ScenarioError` comes from the engine (the schema lives there);
:class:`UserError` covers what Python finds before the engine sees anything
(a missing file, bad TOML, an unknown name on the command line).
"""

from __future__ import annotations

from cellcc._core import EngineError, ScenarioError

__all__ = ["EngineError", "ScenarioError", "UserError", "format_problem"]


def format_problem(path: str, value: str, allowed: str) -> str:
    """The one-line message, exactly as the engine's ``ScenarioError`` renders it."""
    if not value:
        return f"{path}: {allowed}"
    return f"{path}: got {value}; allowed: {allowed}"


class UserError(ValueError):
    """A mistake in what the user gave, found on the Python side."""

    def __init__(self, path: str, value: str, allowed: str) -> None:
        super().__init__(format_problem(path, value, allowed))
        self.path = path
        self.value = value
        self.allowed = allowed
