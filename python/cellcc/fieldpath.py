"""Scenario field paths: name a field of a scenario document the way the engine's
errors do, and set it.

Grammar (dots between keys, an optional selector after a key that holds a list)::

    path     := segment ("." segment)*
    segment  := key ("[" selector "]")?
    selector := integer        the element at that index      flows[0].cca
              | "*"            every element                  flows[*].cca
              | identifier     the element whose `id` is it   links[bottleneck].delay_ms

Any field the engine's schema has can be named, so the same path works for the
fields the LTE cell adds later (``cells[0].ues[0].rlc.mode``). Only the *shape*
is checked here (a list where a selector is used, a selected element that
exists); whether the field exists and the value is allowed is the engine's
call, made when the edited scenario is validated.

>>> doc = {"links": [{"id": "a", "delay_ms": 1.0}, {"id": "b", "delay_ms": 2.0}]}
>>> set_path(doc, "links[b].delay_ms", 40.0)
>>> doc["links"][1]["delay_ms"]
40.0
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from cellcc.errors import UserError

__all__ = ["FieldPath", "parse_path", "set_path"]

_SEGMENT = re.compile(r"^(?P<key>[A-Za-z_][A-Za-z0-9_]*)(?:\[(?P<sel>[^\[\]]+)\])?$")
_ALLOWED = "a field path such as flows[*].cca, flows[0].cca or links[bottleneck].forward.queue.limit_bytes"


@dataclass(frozen=True)
class Segment:
    """One ``key[selector]`` step; ``selector`` is None, an int, ``"*"`` or an element id."""

    key: str
    selector: int | str | None


@dataclass(frozen=True)
class FieldPath:
    """A parsed path; ``text`` is what the user wrote (used in every error)."""

    text: str
    segments: tuple[Segment, ...]

    @property
    def leaf(self) -> str:
        """The last key: the default column name of a sweep axis (keeps its unit suffix)."""
        return self.segments[-1].key


def parse_path(text: str, where: str = "path") -> FieldPath:
    """Parse ``text``; a malformed path is a :class:`UserError` at ``where``."""
    if not isinstance(text, str) or not text:
        raise UserError(where, json.dumps(text), _ALLOWED)
    segments = []
    for part in text.split("."):
        m = _SEGMENT.match(part)
        if m is None:
            raise UserError(where, json.dumps(text), _ALLOWED)
        sel = m.group("sel")
        selector: int | str | None = int(sel) if sel is not None and sel.isdigit() else sel
        segments.append(Segment(m.group("key"), selector))
    return FieldPath(text, tuple(segments))


def set_path(doc: dict[str, Any], path: str | FieldPath, value: Any, where: str = "path") -> None:
    """Set every field ``path`` selects in ``doc`` (in place) to a copy of ``value``.

    Missing or null tables on the way are created (``forward.queue.limit_bytes``
    on a link without a queue); a selector on something that is not a list, an
    index out of range or an unknown id is a :class:`UserError` naming the path.
    """
    fp = parse_path(path, where) if isinstance(path, str) else path
    targets: list[dict[str, Any]] = [doc]
    for i, seg in enumerate(fp.segments):
        last = i == len(fp.segments) - 1
        if last and seg.selector is None:
            for t in targets:
                t[seg.key] = json.loads(json.dumps(value))
            return
        targets = [child for t in targets for child in _step(t, seg, last, fp, where, value)]


def _step(node: dict[str, Any], seg: Segment, last: bool, fp: FieldPath, where: str, value: Any) -> list[Any]:
    """The tables one segment selects below ``node`` (or, for a last selector, sets them)."""
    if not isinstance(node, dict):
        raise UserError(where, json.dumps(fp.text), f"{seg.key} is not inside a table here; {_ALLOWED}")
    if seg.selector is None:
        if not isinstance(node.get(seg.key), dict):
            node[seg.key] = {}
        return [node[seg.key]]
    items = node.get(seg.key)
    if not isinstance(items, list):
        raise UserError(where, json.dumps(fp.text), f"{seg.key} is not a list, so it takes no [selector]")
    indices = _select(items, seg, fp, where)
    if last:
        for k in indices:
            items[k] = json.loads(json.dumps(value))
        return []
    return [items[k] for k in indices]


def _select(items: list[Any], seg: Segment, fp: FieldPath, where: str) -> list[int]:
    if seg.selector == "*":
        return list(range(len(items)))
    if isinstance(seg.selector, int):
        if seg.selector >= len(items):
            raise UserError(
                where, json.dumps(fp.text), f"{seg.key} has {len(items)} element(s): index 0..{len(items) - 1}"
            )
        return [seg.selector]
    ids = [item.get("id") for item in items if isinstance(item, dict)]
    if seg.selector not in ids:
        known = ", ".join(str(i) for i in ids if i is not None) or "none"
        raise UserError(where, json.dumps(fp.text), f"an element id of {seg.key} ({known}), an index or *")
    return [ids.index(seg.selector)]
