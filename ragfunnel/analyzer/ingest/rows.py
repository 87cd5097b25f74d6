"""Spans to ``otel_traces`` rows, column by column, as the collector's clickhouseexporter writes them.

The rules (exporter v0.165 ``exporter_traces.go`` on pdata v1.71): ids in lowercase hex, an
all-zero parent id written as ``''``; ``Timestamp`` is the span start; ``Duration`` is end minus
start in nanoseconds; ``SpanKind`` and ``StatusCode`` are pdata's ``String()`` names
(``Internal``, ``Error``, …; an unknown number gives ``''``); ``ServiceName`` is the resource's
first ``service.name``; attribute values go through :func:`any_value_as_string`. Resource,
scope and span attributes keep their order, as the exporter's ordered maps do.

Where ragfunnel departs from the exporter, it is to protect the store, and it says so per span:
a span without a trace id, span id or start time is skipped (the exporter would store empty
ids); an end before the start gives ``Duration`` 0 (the exporter's unsigned subtraction would
wrap around to ~584 years); attribute values longer than :data:`MAX_VALUE_CHARS` are cut.

Rows accumulate as one tuple per span plus flat attribute lists, and become one Arrow table per
chunk: the insert is columnar, never row by row. Resources and scopes, shared by many spans, are
converted once and referenced by index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar, cast

import pyarrow as pa
import pyarrow.compute as pc

from ragfunnel.analyzer.ingest.arrow_columns import (
    TRACES_ARROW_SCHEMA,
    TS,
    MapColumn,
    dictionary_of,
)
from ragfunnel.analyzer.ingest.depth import VALUE_DEPTH, deeper_than
from ragfunnel.analyzer.ingest.otlp_structs import (
    AnyValue,
    Event,
    KeyValue,
    Link,
    ResourceSpans,
    Span,
)
from ragfunnel.analyzer.ingest.span_fields import (
    HEX_DIGITS,
    KINDS,
    STATUS_CODES,
    ZERO_SPAN,
    ZERO_TRACE,
    SpanProblem,
    hex_id,
    parse_time,
    same_start,
)
from ragfunnel.analyzer.ingest.values import InvalidValue, any_value_as_string, array_as_string
from ragfunnel.analyzer.store.arrow_values import strings
from ragfunnel.instrumentation.contract import SERVICE_NAME

T = TypeVar("T")
R = TypeVar("R")

__all__ = [
    "MAX_VALUE_CHARS",
    "TRACES_ARROW_SCHEMA",
    "Chunk",
    "RowBuilder",
    "Seen",
    "span_keys",
]

MAX_VALUE_CHARS = 1 << 20
"""Attribute values longer than this many characters (1 Mi) are cut, with a note."""

_ARRAY_CACHE = 4096  # distinct arrays remembered (a few MB)
_NO_SEPARATOR = strings([""])[0]  # a Python "" would make pyarrow import pandas


@dataclass
class Chunk:
    """Rows on their way to the store, with the time range de-duplication looks in."""

    table: pa.Table
    low: int
    """Earliest start time (ns)."""
    high: int
    """Latest start time (ns)."""
    source: str = ""
    """The file (or other source) the chunk's spans were read from, for messages."""

    def without(self, keys: list[str]) -> pa.Table:
        """The rows whose ``TraceId + SpanId`` is none of ``keys``."""
        known = pc.is_in(span_keys(self.table), value_set=strings(keys))
        return self.table.filter(pc.invert(known))


def span_keys(table: pa.Table) -> pa.Array:
    """Each row's identity, ``TraceId + SpanId`` (a chunk's, or some of its rows')."""
    return pc.binary_join_element_wise(
        table.column("TraceId"), table.column("SpanId"), _NO_SEPARATOR
    )


class Seen(Protocol):
    """The spans of a chunk so far: ``TraceId + SpanId`` to start time.

    A dict, or the native converter's map when both converters add to one chunk.
    """

    def get(self, key: str, /) -> int | None:
        """The start time (ns) of span ``key``, or None when it was not seen."""

    def __setitem__(self, key: str, start: int, /) -> None:
        """Remember span ``key`` and its start time."""

    def clear(self) -> None:
        """Forget every span."""


class RowBuilder:
    """Accumulates spans as ``otel_traces`` columns; :meth:`to_arrow` makes the chunk.

    Args:
        note: called with a message for each repair that kept a span (cut value, clock skew).
        seen: the spans of the chunk so far, when another builder adds to the same chunk.

    A span repeated within the chunk is counted in :attr:`duplicates` and not added again; if
    its start time differs from the first copy's, its key is added to :attr:`conflicts` too
    (which the caller reports and empties).
    """

    def __init__(
        self, note: Callable[[str], None] | None = None, *, seen: Seen | None = None
    ) -> None:
        self._note = note or _ignore
        self.seen: Seen = {} if seen is None else seen
        self.duplicates = 0
        self.conflicts: list[str] = []
        self._arrays: dict[bytes, str] = {}
        self._reset()

    def _reset(self) -> None:
        # One tuple per span: (start, trace, span, parent, state, name, kind, resource, scope,
        # duration, status code, status message).
        self._rows: list[tuple[int, str, str, str, str, str, str, int, int, int, str, str]] = []
        self.low = self.high = 0  # the start times' range so far
        self._resources: list[tuple[list[str], list[str], str]] = []
        self._resource_index: dict[tuple[tuple[str, ...], tuple[str, ...]], int] = {}
        self._scopes: list[tuple[str, str]] = []
        self._scope_index: dict[tuple[str, str], int] = {}
        self._attributes = MapColumn()
        self._event_offsets = [0]
        self._event_time: list[int] = []
        self._event_name: list[str] = []
        self._event_attributes = MapColumn()
        self._link_offsets = [0]
        self._link_trace: list[str] = []
        self._link_span: list[str] = []
        self._link_state: list[str] = []
        self._link_attributes = MapColumn()

    def __len__(self) -> int:
        return len(self._rows)

    def clear(self) -> None:
        """Forget the rows (after an insert) and the keys seen so far."""
        self._reset()
        self.seen.clear()

    def chunk(self) -> Chunk:
        """The rows so far as a :class:`Chunk` ready for the store; the builder is cleared."""
        starts = [row[0] for row in self._rows]
        chunk = Chunk(
            table=self.to_arrow(), low=min(starts, default=0), high=max(starts, default=0)
        )
        self.clear()
        return chunk

    def add_resource_spans(
        self, resource_spans: Iterable[ResourceSpans], problem: Callable[[str], None]
    ) -> int:
        """Add every span of a decoded OTLP document; returns how many spans it held.

        ``problem`` receives one message per span (or group of spans) that had to be skipped,
        and per span kept without a malformed attribute, event or link.
        """
        count = 0
        for rs in resource_spans:
            try:
                resource = self.resource(rs.resource.attributes if rs.resource else ())
            except SpanProblem as exc:
                spans = sum(len(ss.spans) for ss in rs.scopeSpans)
                count += spans
                problem(f"{spans} span(s) skipped: {exc}")
                continue
            for ss in rs.scopeSpans:
                scope = (
                    self.scope(ss.scope.name, ss.scope.version) if ss.scope else self.scope("", "")
                )
                for span in ss.spans:
                    count += 1
                    left_out: list[str] = []
                    try:
                        self.add_span(span, resource, scope, left_out)
                    except SpanProblem as exc:
                        problem(f"span {span.spanId or '?'} skipped: {exc}")
                    for what in left_out:
                        problem(f"span {span.spanId or '?'} kept: {what}")
        return count

    def resource(self, attributes: Sequence[KeyValue]) -> int:
        """The index of a resource, converted once for all the spans that share it."""
        keys, values = self._convert(attributes, "resource attribute")
        key = (tuple(keys), tuple(values))
        index = self._resource_index.get(key)
        if index is None:
            # pdata's Map.Get, which the exporter uses, finds the first entry with the key.
            service = next((v for k, v in zip(keys, values, strict=True) if k == SERVICE_NAME), "")
            index = self._resource_index[key] = len(self._resources)
            self._resources.append((keys, values, service))
        return index

    def scope(self, name: str, version: str) -> int:
        """The index of an instrumentation scope."""
        index = self._scope_index.get((name, version))
        if index is None:
            index = self._scope_index[name, version] = len(self._scopes)
            self._scopes.append((name, version))
        return index

    def add_span(
        self, span: Span, resource: int, scope: int, left_out: list[str] | None = None
    ) -> bool:
        """Add one span; returns False for a duplicate of a span already in this chunk.

        An attribute, event or link that cannot be read is left out, the span kept, and what was
        left out said in ``left_out`` (when given; else the span is skipped).

        Raises:
            SpanProblem: the span cannot become a row (its ids or start time).
        """
        trace_id = span.traceId
        if len(trace_id) != 32 or trace_id.strip(HEX_DIGITS) or trace_id == ZERO_TRACE:
            trace_id = hex_id(trace_id, 16, "traceId")  # not lowercase hex: the slow path
            if not trace_id:
                raise SpanProblem("no traceId")
        span_id = span.spanId
        if len(span_id) != 16 or span_id.strip(HEX_DIGITS) or span_id == ZERO_SPAN:
            span_id = hex_id(span_id, 8, "spanId")
            if not span_id:
                raise SpanProblem("no spanId")
        key = trace_id + span_id
        earlier = self.seen.get(key)
        if earlier is not None:
            self.duplicates += 1
            if not same_start(earlier, span.startTimeUnixNano):
                self.conflicts.append(key)
            return False
        parent = hex_id(span.parentSpanId, 8, "parentSpanId") if span.parentSpanId else ""
        start = parse_time(span.startTimeUnixNano, "startTimeUnixNano")
        if not start:
            raise SpanProblem("no startTimeUnixNano")
        end = parse_time(span.endTimeUnixNano, "endTimeUnixNano")
        keys, values = self._attributes_kept(span.attributes, left_out)
        events = self._kept(span.events, self._event, "event", left_out)
        links = self._kept(span.links, self._link, "link", left_out)
        status = span.status

        self.seen[key] = start
        if self._rows:
            self.low, self.high = min(self.low, start), max(self.high, start)
        else:
            self.low = self.high = start
        if end < start:
            problem = "no end time" if not end else "end before start (clock skew?)"
            self._note(f"span {span_id}: {problem}, Duration set to 0")
            end = start
        self._rows.append(
            (
                start,
                trace_id,
                span_id,
                parent,
                span.traceState,
                span.name,
                KINDS.get(span.kind, ""),
                resource,
                scope,
                end - start,
                STATUS_CODES.get(status.code, "") if status else "Unset",
                status.message if status else "",
            )
        )
        self._attributes.append(keys, values)
        for time, name, event_keys, event_values in events:
            self._event_time.append(time)
            self._event_name.append(name)
            self._event_attributes.append(event_keys, event_values)
        self._event_offsets.append(len(self._event_time))
        for link_trace, link_span, link_state, link_keys, link_values in links:
            self._link_trace.append(link_trace)
            self._link_span.append(link_span)
            self._link_state.append(link_state)
            self._link_attributes.append(link_keys, link_values)
        self._link_offsets.append(len(self._link_trace))
        return True

    def _attributes_kept(
        self, attributes: Sequence[KeyValue], left_out: list[str] | None
    ) -> tuple[list[str], list[str]]:
        """The span's attributes converted; with ``left_out``, those that cannot be are left out."""
        try:
            return self._convert(attributes, "attribute")
        except SpanProblem:
            if left_out is None:
                raise
        pairs = [_attempt(lambda kv: self._convert([kv], "attribute"), kv) for kv in attributes]
        left_out.extend(f"{p}: stored without it" for p in pairs if isinstance(p, SpanProblem))
        kept = [p for p in pairs if not isinstance(p, SpanProblem)]
        return [k for (k,), _ in kept], [v for _, (v,) in kept]

    def _kept(
        self,
        items: Sequence[T],
        convert: Callable[[T], R],
        what: str,
        left_out: list[str] | None,
    ) -> list[R]:
        """Each item converted; with ``left_out``, one that cannot be is left out and named."""
        try:
            return [convert(item) for item in items]
        except SpanProblem:
            if left_out is None:
                raise
        done = [_attempt(convert, item) for item in items]
        left_out.extend(
            f"{what} {index}: {result}: stored without it"
            for index, result in enumerate(done)
            if isinstance(result, SpanProblem)
        )
        return [result for result in done if not isinstance(result, SpanProblem)]

    def _event(self, event: Event) -> tuple[int, str, list[str], list[str]]:
        time = parse_time(event.timeUnixNano, "event timeUnixNano")
        keys, values = self._convert(event.attributes, "event attribute")
        return time, event.name, keys, values

    def _link(self, link: Link) -> tuple[str, str, str, list[str], list[str]]:
        keys, values = self._convert(link.attributes, "link attribute")
        trace_id = hex_id(link.traceId, 16, "link traceId")
        return trace_id, hex_id(link.spanId, 8, "link spanId"), link.traceState, keys, values

    def _convert(self, attributes: Sequence[KeyValue], what: str) -> tuple[list[str], list[str]]:
        # Comprehensions first: most values are strings and need no per-value Python code.
        if not attributes:
            return [], []
        keys = [kv.key for kv in attributes]
        try:
            texts = [kv.value.stringValue for kv in attributes]  # type: ignore[union-attr]
        except AttributeError:  # a key without a value
            texts = [None if kv.value is None else kv.value.stringValue for kv in attributes]
        if None in texts:
            for index, text in enumerate(texts):
                if text is None:
                    try:
                        texts[index] = self._as_string(attributes[index].value)
                    except InvalidValue as exc:
                        raise SpanProblem(f"{what} {keys[index]!r}: {exc}") from None
        values = cast("list[str]", texts)
        if max(map(len, values)) > MAX_VALUE_CHARS:
            for index, text in enumerate(values):
                if len(text) > MAX_VALUE_CHARS:
                    self._note(
                        f"{what} {keys[index]!r} cut from {len(text):,} to {MAX_VALUE_CHARS:,} characters"
                    )
                    values[index] = text[:MAX_VALUE_CHARS]
        return keys, values

    def _as_string(self, value: AnyValue | None) -> str:
        # A question's id lists recur from stage to stage (retrieve's output is rerank's input,
        # rerank's is the cut's...): stringify each distinct array once.
        if value is None or not value.arrayValue:
            if value is not None and value.kvlistValue:
                _check_depth(bytes(value.kvlistValue))
            return any_value_as_string(value)
        raw = bytes(value.arrayValue)
        text = self._arrays.get(raw)
        if text is None:
            _check_depth(raw)
            if len(self._arrays) >= _ARRAY_CACHE:
                self._arrays.clear()
            text = self._arrays[raw] = array_as_string(raw)
        return text

    def to_arrow(self) -> pa.Table:
        """The accumulated rows as one Arrow table with :data:`TRACES_ARROW_SCHEMA`."""
        string = pa.string()
        if self._rows:
            (
                start,
                trace,
                span,
                parent,
                state,
                name,
                kind,
                resource,
                scope,
                duration,
                code,
                message,
            ) = zip(*self._rows, strict=True)
        else:
            start = trace = span = parent = state = name = kind = resource = scope = ()
            duration = code = message = ()
        resources = MapColumn()
        for keys, values, _service in self._resources:
            resources.append(keys, values)
        resource_index = pa.array(resource, pa.int32())
        scope_index = pa.array(scope, pa.int32())
        event_offsets = pa.array(self._event_offsets, pa.int32())
        link_offsets = pa.array(self._link_offsets, pa.int32())
        columns = [
            pa.array(start, TS),
            pa.array(trace, string),
            pa.array(span, string),
            pa.array(parent, string),
            pa.array(state, string),
            pc.dictionary_encode(pa.array(name, string)),
            pc.dictionary_encode(pa.array(kind, string)),
            dictionary_of(resource_index, [r[2] for r in self._resources]),
            pc.take(resources.to_arrow(), resource_index),
            dictionary_of(scope_index, [s[0] for s in self._scopes]),
            dictionary_of(scope_index, [s[1] for s in self._scopes]),
            self._attributes.to_arrow(),
            pa.array(duration, pa.uint64()),
            pc.dictionary_encode(pa.array(code, string)),
            pa.array(message, string),
            pa.ListArray.from_arrays(event_offsets, pa.array(self._event_time, TS)),
            pa.ListArray.from_arrays(event_offsets, pa.array(self._event_name, string)),
            pa.ListArray.from_arrays(event_offsets, self._event_attributes.to_arrow()),
            pa.ListArray.from_arrays(link_offsets, pa.array(self._link_trace, string)),
            pa.ListArray.from_arrays(link_offsets, pa.array(self._link_span, string)),
            pa.ListArray.from_arrays(link_offsets, pa.array(self._link_state, string)),
            pa.ListArray.from_arrays(link_offsets, self._link_attributes.to_arrow()),
        ]
        return pa.Table.from_arrays(columns, schema=TRACES_ARROW_SCHEMA)


def _check_depth(raw: bytes) -> None:
    # The stringifiers recurse once per level: a value nested deeper costs its span.
    if deeper_than(raw, VALUE_DEPTH):
        raise InvalidValue(f"nested deeper than {VALUE_DEPTH} levels")


def _ignore(_message: str) -> None:
    """The default note sink."""


def _attempt(convert: Callable[[T], R], item: T) -> R | SpanProblem:
    """``convert(item)``, or the problem it raised."""
    try:
        return convert(item)
    except SpanProblem as exc:
        return exc
