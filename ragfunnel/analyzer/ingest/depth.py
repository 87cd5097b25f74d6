"""Nesting depth, found without recursion: the cap that keeps every parser's recursion bounded.

JSON parsers recurse once per nesting level (Python's ``json``, msgspec and the native
converter alike), and so do the value stringifiers. A line nested deeper than
:data:`MAX_DEPTH` is therefore never handed to them whole: :func:`split_spans` finds its spans
by scanning brackets with an explicit stack, so that each span is decoded on its own and only
the spans nested too deep are rejected, each by its place in the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "MAX_DEPTH",
    "SPAN_DEPTH",
    "VALUE_DEPTH",
    "DeepLine",
    "SpanSlice",
    "deeper_than",
    "split_spans",
]

MAX_DEPTH = 128
"""Arrays and objects nested deeper than this are not read (an OTLP span needs about ten,
plus three per level of a nested attribute value). A line nested deeper is read span by span;
the native converter declines it, so both converters follow the same rule."""

SPAN_DEPTH = MAX_DEPTH - 7
"""A span, resource or scope of such a line that itself nests deeper than this is rejected (a
span sits seven levels down in its line: one within this limit is fine on a line of its own)."""

VALUE_DEPTH = SPAN_DEPTH - 4
"""An attribute value (an ``arrayValue`` or ``kvlistValue``) nesting deeper than this makes its
span rejected, on any line: it sits four levels down in its span."""

# A JSON string (escapes included) or a bracket; strings are skipped whole, so that brackets
# inside them do not count. The pattern is "unrolled": it does not backtrack.
_TOKENS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"(\s*:)?|[\[\]{}]', re.DOTALL)
_OPEN = frozenset(b"[{")
_QUOTE = 0x22


def deeper_than(data: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether ``data`` nests arrays and objects more than ``limit`` levels deep."""
    if data.count(b"[") + data.count(b"{") <= limit:
        return False  # too few brackets to nest that deep
    level = 0
    for match in _TOKENS.finditer(data):
        char = data[match.start()]
        if char in _OPEN:
            level += 1
            if level > limit:
                return True
        elif char != _QUOTE:  # a closing bracket
            level -= 1
    return False


@dataclass
class SpanSlice:
    """A span's bytes within a line, where it sits, and how deeply it nests."""

    resource: int
    scope: int
    index: int
    start: int
    end: int
    depth: int


@dataclass
class DeepLine:
    """The OTLP structure of a line found by scanning: resources, scopes and spans as slices."""

    resources: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    """Resource index → (start, end, depth) of its ``resource`` object."""
    scopes: dict[tuple[int, int], tuple[int, int, int]] = field(default_factory=dict)
    """(resource, scope) → (start, end, depth) of its ``scope`` object."""
    scope_lists: set[tuple[int, int]] = field(default_factory=set)
    """Every (resource, scope) met, with or without spans."""
    spans: list[SpanSlice] = field(default_factory=list)


# What a container sits under, from the top: an OTLP line is {"resourceSpans": [ {"resource":
# {...}, "scopeSpans": [ {"scope": {...}, "spans": [ {span} ]} ]} ]}, perhaps inside {"result":}.
_ROLES = {
    ("line", "resourceSpans"): "resource_list",
    ("line", "result"): "line",
    ("resource_list", None): "resource_spans",
    ("resource_spans", "resource"): "resource",
    ("resource_spans", "scopeSpans"): "scope_list",
    ("scope_list", None): "scope_spans",
    ("scope_spans", "scope"): "scope",
    ("scope_spans", "spans"): "span_list",
    ("span_list", None): "span",
}


class _Frame:
    __slots__ = ("count", "deepest", "level", "role", "start")

    def __init__(self, role: str, start: int, level: int) -> None:
        self.role = role
        self.start = start
        self.level = level
        self.deepest = level
        self.count = 0  # items of an array opened so far


def split_spans(data: bytes) -> DeepLine:
    """The resources, scopes and spans of an OTLP JSON line, found with an explicit stack.

    Only the brackets and keys are looked at; what is not OTLP's shape is passed over. Each
    span's depth is counted from the span itself.
    """
    found = DeepLine()
    stack: list[_Frame] = []
    key: bytes | None = None
    positions: list[int] = []  # index of each open frame in its parent array, per level
    for match in _TOKENS.finditer(data):
        start = match.start()
        char = data[start]
        if char == _QUOTE:
            colon = match.group(1)
            key = data[start + 1 : match.end(0) - len(colon) - 1] if colon else None
            continue
        if char in _OPEN:
            parent = stack[-1] if stack else None
            if parent is None:
                role = "line" if char == 0x7B else "other"
            else:
                listed = parent.role.endswith("_list")
                name = None if listed else (key or b"").decode("utf-8", "replace")
                role = _ROLES.get((parent.role, name), "other")
                if parent.role.endswith("_list"):
                    positions.append(parent.count)
                    parent.count += 1
                else:
                    positions.append(-1)
            stack.append(_Frame(role, start, len(stack) + 1))
            key = None
            continue
        if not stack:
            continue
        frame = stack.pop()
        index = positions.pop() if positions else -1
        if stack and frame.deepest > stack[-1].deepest:
            stack[-1].deepest = frame.deepest
        own_depth = frame.deepest - frame.level + 1
        _place(found, frame, positions, index=index, end=start + 1, own_depth=own_depth)
        key = None
    return found


def _place(
    found: DeepLine, frame: _Frame, positions: list[int], *, index: int, end: int, own_depth: int
) -> None:
    """Record a closed container if it is a resource, a scope or a span."""
    if frame.role not in ("resource", "scope", "span", "scope_spans"):
        return
    # positions[k] is the index of stack[k + 1] in its array (stack[0] is the line).
    indexes = [p for p in positions if p >= 0]
    if frame.role == "resource" and indexes:
        found.resources[indexes[0]] = (frame.start, end, own_depth)
    elif frame.role == "scope" and len(indexes) >= 2:
        found.scopes[indexes[0], indexes[1]] = (frame.start, end, own_depth)
    elif frame.role == "scope_spans" and indexes:
        found.scope_lists.add((indexes[0], index))
    elif frame.role == "span" and len(indexes) >= 2:
        found.spans.append(SpanSlice(indexes[0], indexes[1], index, frame.start, end, own_depth))
