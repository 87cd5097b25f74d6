"""Lines nested deeper than the cap, read span by span so that one deep value costs one span.

:func:`~.depth.split_spans` finds the line's resources, scopes and spans without parsing it;
each is then decoded on its own, and one nested deeper than :data:`~.depth.SPAN_DEPTH` is
rejected with its place in the line. A deep line that is not OTLP's shape is rejected whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import msgspec

from ragfunnel.analyzer.ingest.depth import MAX_DEPTH, SPAN_DEPTH, split_spans
from ragfunnel.analyzer.ingest.otlp_structs import (
    Resource,
    ResourceSpans,
    Scope,
    ScopeSpans,
    Span,
    decode_resource,
    decode_scope,
    decode_span,
)

if TYPE_CHECKING:
    from ragfunnel.analyzer.ingest.otlp import Sink

__all__ = ["read_deep_line"]

_T = TypeVar("_T")
_SPAN_ID = re.compile(rb'"spanId"\s*:\s*"([^"\\]{0,64})"')


def read_deep_line(data: bytes, source: str, line: int, sink: Sink) -> None:
    """Read an OTLP line (or document) nested deeper than :data:`MAX_DEPTH`, span by span."""
    found = split_spans(data)
    if not found.spans and not found.scope_lists:
        sink.skip(source, line, f"nested deeper than {MAX_DEPTH} levels: not read")
        return
    too_deep = f"nested deeper than {SPAN_DEPTH} levels"
    by_scope: dict[tuple[int, int], list[Span]] = {}
    for piece in found.spans:
        where = f"resourceSpans[{piece.resource}].scopeSpans[{piece.scope}].spans[{piece.index}]"
        raw = data[piece.start : piece.end]
        span_id = _SPAN_ID.search(raw[:4096])
        named = (
            f"{where} (spanId {span_id.group(1).decode('utf-8', 'replace')!r})"
            if span_id
            else where
        )
        if piece.depth > SPAN_DEPTH:
            sink.skip(source, line, f"{named}: {too_deep}; span skipped")
            continue
        try:
            by_scope.setdefault((piece.resource, piece.scope), []).append(decode_span(raw))
        except msgspec.DecodeError as exc:
            sink.skip(source, line, f"{named}: {str(exc).replace(' - at `$', ' at `')}")
    good: list[ResourceSpans] = []
    for r_index in sorted({r for r, _ in found.scope_lists} | {r for r, _ in by_scope}):
        resource = _part(data, found.resources.get(r_index), decode_resource, Resource())
        if resource is None:
            count = sum(len(v) for (r, _), v in by_scope.items() if r == r_index)
            sink.skip(
                source,
                line,
                f"resourceSpans[{r_index}].resource: {too_deep} or invalid; "
                f"its {count} span(s) skipped",
            )
            continue
        scopes: list[ScopeSpans] = []
        for s_index in sorted(s for r, s in found.scope_lists | set(by_scope) if r == r_index):
            scope = _part(data, found.scopes.get((r_index, s_index)), decode_scope, Scope())
            spans = by_scope.get((r_index, s_index), [])
            if scope is None:
                sink.skip(
                    source,
                    line,
                    f"resourceSpans[{r_index}].scopeSpans[{s_index}].scope: {too_deep} or "
                    f"invalid; its {len(spans)} span(s) skipped",
                )
                continue
            scopes.append(ScopeSpans(scope=scope if scope != Scope() else None, spans=spans))
        good.append(ResourceSpans(resource=resource, scopeSpans=scopes))
    if good:
        sink.add(good, source, line)


def _part(
    data: bytes,
    place: tuple[int, int, int] | None,
    decode: Callable[[bytes], _T],
    empty: _T,
) -> _T | None:
    """A resource or scope object decoded, ``empty`` when absent, None when it cannot be."""
    if place is None:
        return empty
    start, end, depth = place
    if depth > SPAN_DEPTH:
        return None
    try:
        return decode(data[start:end])
    except msgspec.DecodeError:
        return None
