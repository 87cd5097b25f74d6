"""Recovery: what can be read of a line or document the fast typed decoders refused.

A line or document that does not decode into the typed structs in one piece is parsed
generically (:func:`salvage`), routed by its shape (:func:`dispatch`: OTLP, a Jaeger export, an
error answer) and read piece by piece, so that its sound spans are kept and each bad one is
named with its place. Nothing here raises on bad input.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import msgspec

from ragfunnel.analyzer.ingest import jaeger
from ragfunnel.analyzer.ingest.deep_lines import read_deep_line
from ragfunnel.analyzer.ingest.depth import deeper_than
from ragfunnel.analyzer.ingest.otlp_structs import (
    ResourceSpans,
    Scope,
    ScopeSpans,
    Span,
    decode_envelope,
    decode_resource,
    decode_scope,
    decode_span,
)

if TYPE_CHECKING:
    from ragfunnel.analyzer.ingest.otlp import Sink

__all__ = ["dispatch", "salvage"]

_SURROGATE = re.compile("[\ud800-\udfff]")
_json_encode = msgspec.json.encode
_UNRECOGNISED = (
    "not a trace document: expected OTLP JSON (resourceSpans), a Jaeger API v3 answer (result) "
    "or a Jaeger UI export (data)"
)


def salvage(
    data: bytes, source: str, line: int, sink: Sink, *, last_line_unterminated: bool
) -> None:
    """Read a line the fast decoder refused, keeping whatever spans are sound."""
    if deeper_than(data):  # the generic decoders below recurse: never hand them a deep line
        read_deep_line(data, source, line, sink)
        return
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        sink.note(
            source, line, f"bytes that are not UTF-8 (first at byte {exc.start}) replaced by U+FFFD"
        )
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        if last_line_unterminated:
            sink.skip(
                source,
                line,
                "truncated line, no newline at the end (a writer stopped mid-line, or is still "
                f"writing it): {exc.msg}",
            )
        else:
            sink.skip(source, line, f"invalid JSON: {exc.msg} (column {exc.colno})")
        return
    if _has_surrogates(obj):
        sink.note(source, line, "unpaired UTF-16 surrogate escapes replaced by U+FFFD")
        obj = _replace_surrogates(obj)
    dispatch(obj, None, source, line, sink)


def dispatch(obj: Any, raw: bytes | None, source: str, line: int, sink: Sink) -> None:
    """Route a parsed JSON value by its shape."""
    if isinstance(obj, list):
        for item in obj:
            dispatch(item, None, source, line, sink)
        return
    if not isinstance(obj, dict):
        sink.skip(source, line, _UNRECOGNISED)
        return
    if "resourceSpans" in obj or isinstance(obj.get("result"), dict):
        if raw is not None:
            try:
                envelope = decode_envelope(raw)
            except msgspec.DecodeError:
                pass
            else:
                sink.add(envelope.resource_spans or [], source, line)
                return
        payload = obj.get("result") if "resourceSpans" not in obj else obj
        _salvage_otlp(
            payload.get("resourceSpans") if isinstance(payload, dict) else None, source, line, sink
        )
    elif "data" in obj or ("spans" in obj and "traceID" in obj):
        traces = obj.get("data", [obj])
        if not isinstance(traces, list):
            sink.skip(source, line, "Jaeger export: 'data' is not a list of traces")
            return
        for index, trace in enumerate(traces):
            document, problems = jaeger.trace_to_otlp(trace)
            for problem in problems:
                sink.skip(source, line, f"trace {index}: {problem}")
            if document:
                _salvage_otlp(document, source, line, sink)
    elif "error" in obj:
        error = obj["error"]
        message = error.get("message") if isinstance(error, dict) else error
        sink.skip(source, line, f"an error answer, not traces: {message}")
    else:
        sink.skip(source, line, _UNRECOGNISED)


def _salvage_otlp(resource_spans: Any, source: str, line: int, sink: Sink) -> None:
    """Decode an OTLP ``resourceSpans`` list piece by piece, skipping only the bad spans."""
    if not isinstance(resource_spans, list):
        sink.skip(source, line, "resourceSpans is not a list")
        return
    good: list[ResourceSpans] = []
    for r_index, rs in enumerate(resource_spans):
        if not isinstance(rs, dict):
            sink.skip(source, line, f"resourceSpans[{r_index}] is not an object")
            continue
        try:
            # Only null means absent: "" or [] is a broken resource, not an empty one.
            resource = decode_resource(_json_encode(_or_empty(rs.get("resource"), {})))
        except msgspec.DecodeError as exc:
            sink.skip(
                source, line, f"resourceSpans[{r_index}].resource: {_where(exc)}; its spans skipped"
            )
            continue
        scope_spans: list[ScopeSpans] = []
        scope_list = _or_empty(rs.get("scopeSpans"), [])
        if not isinstance(scope_list, list):
            sink.skip(source, line, f"resourceSpans[{r_index}].scopeSpans is not a list")
            continue
        for s_index, ss in enumerate(scope_list):
            where = f"resourceSpans[{r_index}].scopeSpans[{s_index}]"
            if not isinstance(ss, dict) or not isinstance(ss.get("spans", []), list):
                sink.skip(source, line, f"{where}: not an object with a list of spans")
                continue
            try:
                scope = decode_scope(_json_encode(_or_empty(ss.get("scope"), {})))
            except msgspec.DecodeError as exc:
                sink.skip(source, line, f"{where}.scope: {_where(exc)}; its spans skipped")
                continue
            spans = [
                decoded
                for p_index, span in enumerate(ss.get("spans", []))
                if (decoded := _decode_span(span, f"{where}.spans[{p_index}]", source, line, sink))
            ]
            scope_spans.append(ScopeSpans(scope=scope if scope != Scope() else None, spans=spans))
        good.append(ResourceSpans(resource=resource, scopeSpans=scope_spans))
    if good:
        sink.add(good, source, line)


def _or_empty(value: Any, empty: Any) -> Any:
    return empty if value is None else value


_OPTIONAL_FIELDS = ("attributes", "events", "links", "status", "traceState", "kind")
"""A span's fields it can be stored without: when one is malformed, the span is kept."""
_FIELD = re.compile(r"at `\$\.(\w+)(?:\[(\d+)\])?")


def _decode_span(span: Any, where: str, source: str, line: int, sink: Sink) -> Span | None:
    """The span decoded; without each malformed optional field (or list item), named."""
    span_id = span.get("spanId") if isinstance(span, dict) else None
    left_out: list[str] = []
    for _ in range(len(_OPTIONAL_FIELDS) + 64):  # each round removes a field or an item
        try:
            decoded = decode_span(_json_encode(span))
        except msgspec.DecodeError as exc:
            found = _FIELD.search(str(exc))
            if not isinstance(span, dict) or not found or found[1] not in _OPTIONAL_FIELDS:
                sink.skip(source, line, f"{where} (spanId {span_id!r}): {_where(exc)}")
                return None
            field, index = found[1], found[2]
            span = dict(span)
            value = span.pop(field)
            if index is not None and isinstance(value, list):
                span[field] = [item for i, item in enumerate(value) if i != int(index)]
                field = f"{field}[{index}]"  # the index in the list as it is now
            left_out.append(f"{_where(exc)}: stored without its {field}")
            continue
        for what in left_out:
            sink.skip(source, line, f"{where} (spanId {span_id!r}) kept: {what}")
        return decoded
    sink.skip(source, line, f"{where} (spanId {span_id!r}): too many malformed fields")
    return None


def _where(exc: msgspec.DecodeError) -> str:
    return str(exc).replace(" - at `$", " at `")


def _has_surrogates(obj: Any) -> bool:
    if isinstance(obj, str):
        return _SURROGATE.search(obj) is not None
    if isinstance(obj, list):
        return any(_has_surrogates(item) for item in obj)
    if isinstance(obj, dict):
        return any(_has_surrogates(k) or _has_surrogates(v) for k, v in obj.items())
    return False


def _replace_surrogates(obj: Any) -> Any:
    # Go's JSON decoder turns an unpaired surrogate escape into U+FFFD; so do we.
    if isinstance(obj, str):
        return _SURROGATE.sub("\ufffd", obj)
    if isinstance(obj, list):
        return [_replace_surrogates(item) for item in obj]
    if isinstance(obj, dict):
        return {_replace_surrogates(k): _replace_surrogates(v) for k, v in obj.items()}
    return obj
