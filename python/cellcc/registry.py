"""The engine's congestion-control registry by name: listing and checking names given by users.

Kept apart from :mod:`cellcc.compare` so that ``cellcc ccas`` does not import pandas.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from cellcc import _core
from cellcc.errors import UserError

__all__ = ["parse_cca_list", "registered_ccas"]


def registered_ccas() -> list[str]:
    """Every algorithm the engine registers, in its order."""
    return [c["name"] for c in _core.ccas()]


def parse_cca_list(text: str | Sequence[str] | None) -> list[str]:
    """``"a,b"`` or ``["a", "b"]`` -> checked names; ``None`` -> every registered CCA."""
    known = registered_ccas()
    if text is None:
        return known
    names = [n.strip() for n in text.split(",")] if isinstance(text, str) else [str(n).strip() for n in text]
    names = [n for n in names if n]
    if not names:
        raise UserError("--cca", json.dumps(text), f"a comma-separated list of: {', '.join(known)}")
    for name in names:
        if name not in known:
            raise UserError("--cca", json.dumps(name), f"one of {', '.join(known)}")
    return list(dict.fromkeys(names))
