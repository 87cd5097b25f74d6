"""Jaeger's formats mapped back to OTLP, so they give the same ``otel_traces`` rows.

The Jaeger UI / ``/api/traces`` JSON (Jaeger's own model) is what the collector's Jaeger
translator (``pkg/translator/jaeger``) makes of OTLP spans; this module undoes it the way the
translator's ``ProtoToTraces`` does, so a span that went OTLP → Jaeger comes back as the row the
OTLP path writes:

- ``span.kind`` → SpanKind; ``otel.status_code`` / ``otel.status_description`` (and a boolean
  ``error`` tag) → status; ``otel.scope.name`` / ``.version`` → the scope;
  ``w3c.tracestate`` → TraceState; these tags leave the attributes.
- The process becomes the resource (``serviceName`` → ``service.name``, first); the first
  CHILD_OF reference in the same trace is the parent (else the first FOLLOWS_FROM), the other
  references become links; logs become events, the ``event`` field naming them.
- Tag types: string, bool, int64 (a string beyond 2^53), float64, binary (base64). Arrays and
  maps arrive as the JSON strings the exporter would have written anyway.

What Jaeger's format cannot carry is lost, and documented in docs/store.md: times are in
microseconds (the sub-microsecond part of Timestamp, Duration and event times is gone), link
attributes and link trace state, scope attributes, and the original attribute order of the
resource. Unlike the collector, an ``http.status_code`` never sets the status: spans that
came from OTLP had their status already.

Jaeger's API v3 (``/api/v3/traces``) answers in OTLP JSON and needs no mapping: it is fetched
by :mod:`.jaeger_api`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any, TypeVar

from ragfunnel.analyzer.ingest.values import go_json
from ragfunnel.instrumentation.contract import SERVICE_NAME

T = TypeVar("T")

__all__ = ["trace_to_otlp"]

_HTML_ESCAPES = ("\\u003c", "\\u003e", "\\u0026")
_KIND_NUMBERS = {"internal": 1, "server": 2, "client": 3, "producer": 4, "consumer": 5}
_NO_SERVICE = "OTLPResourceNoServiceName"


class _Unreadable(ValueError):
    """A span that cannot be mapped; the message names the field, in plain words."""


_MAX_MICROS = (2**63 - 1) // 1000  # the last microsecond DateTime64(9) can hold


def _micros(value: Any, what: str) -> int:
    """A Jaeger time or duration in microseconds, as a whole number in range."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise _Unreadable(f"{what} {value!r} is not a number")
    try:
        number = int(value) if isinstance(value, str) and value.isdigit() else value
        number = float(number) if isinstance(number, str) else number
        whole = int(number)
    except OverflowError:
        raise _Unreadable(f"{what} is out of range (too large to be a time)") from None
    except ValueError:
        raise _Unreadable(f"{what} {str(value)[:40]!r} is not a number of microseconds") from None
    if whole != number or not 0 <= whole <= _MAX_MICROS:
        raise _Unreadable(f"{what} {str(value)[:40]} is out of range (microseconds since 1970)")
    return whole


def _objects(value: Any, what: str) -> list[dict[str, Any]]:
    """A list of objects (tags, logs, references, fields); None is an empty one."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise _Unreadable(f"{what} is not a list")
    for index, item in enumerate(value):
        if not isinstance(item, dict):
            raise _Unreadable(f"{what}[{index}] is not an object")
    return value


def trace_to_otlp(trace: Any) -> tuple[list[dict[str, Any]], list[str]]:
    """One Jaeger UI trace as OTLP JSON ``resourceSpans``, and the problems met on the way.

    A span that cannot be mapped (no ids, no start time) is left out with a problem naming it.
    One whose optional field (tags, logs, references, process tags) is malformed is kept
    without that field (without the one tag, for a tag), with a problem naming the span and
    the field.
    """
    problems: list[str] = []
    if not isinstance(trace, dict) or not isinstance(trace.get("spans"), list):
        return [], ["not a Jaeger trace (no 'spans' list)"]
    found = trace.get("processes")
    processes: dict[str, Any] = found if isinstance(found, dict) else {}
    groups: dict[str, dict[tuple[str, str], list[dict[str, Any]]]] = {}
    resources: dict[str, list[dict[str, Any]]] = {}
    for index, span in enumerate(trace["spans"]):
        span_id = span.get("spanID") if isinstance(span, dict) else None
        if not isinstance(span, dict):
            problems.append(f"span {index} skipped: not an object")
            continue
        left_out: list[str] = []
        try:
            process_key, resource = _process(span, processes, left_out)
            scope, otlp_span = _span(span, left_out)
        except _Unreadable as exc:
            problems.append(f"span {index} (spanID {span_id!r}) skipped: {exc}")
            continue
        except (KeyError, TypeError, AttributeError, ValueError, OverflowError):
            # A shape no check above foresaw: say so plainly, never Python's internals.
            problems.append(
                f"span {index} (spanID {span_id!r}) skipped: not a Jaeger span "
                "(a field has an unexpected type)"
            )
            continue
        dropped = _tags_without_key(span)
        if dropped:  # the span is kept: say what was left out of it
            left_out.append(f"{dropped} tag(s) that are not objects with a key left out")
        problems.extend(f"span {index} (spanID {span_id!r}) kept: {what}" for what in left_out)
        resources.setdefault(process_key, resource)
        groups.setdefault(process_key, {}).setdefault(scope, []).append(otlp_span)
    resource_spans = [
        {
            "resource": {"attributes": resources[key]},
            "scopeSpans": [
                {"scope": {"name": name, "version": version}, "spans": spans}
                for (name, version), spans in scopes.items()
            ],
        }
        for key, scopes in groups.items()
    ]
    return resource_spans, problems


def _salvaged(read: Callable[[], T], field: str, left_out: list[str]) -> T | None:
    """``read()``, or ``None`` with a note in ``left_out`` when the optional field is malformed."""
    try:
        return read()
    except _Unreadable as exc:
        reason = str(exc)
    except (KeyError, TypeError, AttributeError, ValueError, OverflowError):
        reason = "a value has an unexpected type"
    left_out.append(f"{reason}: stored without its {field}")
    return None


def _process(
    span: dict[str, Any], processes: dict[str, Any], left_out: list[str]
) -> tuple[str, list[dict[str, Any]]]:
    process = span.get("process")
    key = json.dumps(process, sort_keys=True)
    if process is None:
        key = str(span.get("processID", ""))
        process = processes.get(key)
    if not isinstance(process, dict):
        return key, []
    service = process.get("serviceName") or ""
    if service == _NO_SERVICE:
        return key, []
    attributes = [{"key": SERVICE_NAME, "value": {"stringValue": str(service)}}] if service else []
    tags = _salvaged(
        lambda: _objects(process.get("tags"), "process tags"), "process tags", left_out
    )
    attributes += _tag_values(tags or [], left_out, "process tag")
    return key, attributes


def _tag_values(tags: list[Any], left_out: list[str], what: str) -> list[dict[str, Any]]:
    """Each tag as an OTLP key-value; a tag whose value is malformed is left out, named."""
    values = []
    for tag in tags:
        value = _salvaged(functools.partial(_key_value, tag), what, left_out)
        if value is not None:
            values.append(value)
    return values


def _span(span: dict[str, Any], left_out: list[str]) -> tuple[tuple[str, str], dict[str, Any]]:
    trace_id = _jaeger_id(span.get("traceID"), 32, "traceID")
    span_id = _jaeger_id(span.get("spanID"), 16, "spanID")
    if "startTime" not in span:
        raise _Unreadable("no startTime")
    start = _micros(span["startTime"], "startTime") * 1000
    end = start + _micros(span.get("duration") or 0, "duration") * 1000
    if end > _MAX_MICROS * 1000:
        raise _Unreadable(f"startTime + duration is out of range ({end // 1000} microseconds)")
    tags = _Tags(
        _salvaged(lambda: _objects_or_not(span.get("tags"), "tags"), "tags", left_out) or []
    )
    scope_name = tags.take("otel.scope.name")
    scope_version = tags.take("otel.scope.version") if scope_name is not None else None
    kind = tags.take("span.kind")
    status = _status(tags)
    trace_state = tags.take("w3c.tracestate")

    otlp: dict[str, Any] = {
        "traceId": trace_id,
        "spanId": span_id,
        "name": str(span.get("operationName", "")),
        "kind": _KIND_NUMBERS.get(str(kind), 0),
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(end),
        "attributes": _tag_values(tags.rest, left_out, "tag"),
    }
    if trace_state:
        otlp["traceState"] = str(trace_state)
    if status:
        otlp["status"] = status
    parent, links = _salvaged(
        lambda: _references(_objects(span.get("references"), "references"), trace_id),
        "references",
        left_out,
    ) or ("", [])
    if parent:
        otlp["parentSpanId"] = parent
    if links:
        otlp["links"] = links
    events = _salvaged(
        lambda: [_event(log) for log in _objects(span.get("logs"), "logs")], "logs", left_out
    )
    if events:
        otlp["events"] = events
    return (str(scope_name or ""), str(scope_version or "")), otlp


def _objects_or_not(value: Any, what: str) -> list[Any]:
    """A list (its items not checked: a tag that is not an object is counted apart); None: []."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise _Unreadable(f"{what} is not a list")
    return value


def _tags_without_key(span: dict[str, Any]) -> int:
    tags = span.get("tags") or []
    if not isinstance(tags, list):
        return 0
    return sum(1 for tag in tags if not (isinstance(tag, dict) and "key" in tag))


class _Tags:
    """A span's tags, from which the translator's special tags are taken out one by one."""

    def __init__(self, tags: list[Any]) -> None:
        self.rest = [tag for tag in tags if isinstance(tag, dict) and "key" in tag]

    def take(self, key: str, *, only_true_bool: bool = False) -> Any:
        """Remove the first tag named ``key`` and return its value (None when absent)."""
        for index, tag in enumerate(self.rest):
            if tag["key"] != key:
                continue
            if only_true_bool and not (tag.get("type") == "bool" and _bool(tag.get("value"))):
                return None
            del self.rest[index]
            return tag.get("value")
        return None


def _status(tags: _Tags) -> dict[str, Any] | None:
    # As ProtoToTraces' setInternalSpanStatus, less its http.status_code fallback: a true
    # "error" tag, else otel.status_code, sets the status; the description goes with it.
    error = tags.take("error", only_true_bool=True) is not None
    code_tag = tags.take("otel.status_code")
    if error:
        code = 2
    elif code_tag is not None:
        code = {"OK": 1, "ERROR": 2}.get(str(code_tag).upper(), 0)
    else:
        return None
    description = tags.take("otel.status_description")
    return {"code": code, "message": "" if description is None else str(description)}


def _references(references: list[Any], trace_id: str) -> tuple[str, list[dict[str, Any]]]:
    parent = ""
    parent_is_child_of = False
    normalised = []
    for ref in references:
        ref_trace = _jaeger_id(ref.get("traceID"), 32, "reference traceID")
        ref_span = _jaeger_id(ref.get("spanID"), 16, "reference spanID")
        child_of = str(ref.get("refType", "CHILD_OF")).upper() == "CHILD_OF"
        normalised.append((ref_trace, ref_span, child_of))
    # The parent, as jaeger-idl's Span.ParentSpanID(): the first CHILD_OF in the same trace,
    # else the first FOLLOWS_FROM in the same trace.
    for ref_trace, ref_span, child_of in normalised:
        if ref_trace == trace_id and child_of:
            parent, parent_is_child_of = ref_span, True
            break
    if not parent:
        parent = next((s for t, s, child_of in normalised if t == trace_id and not child_of), "")
    links = [
        {"traceId": ref_trace, "spanId": ref_span}
        for ref_trace, ref_span, child_of in normalised
        if not (child_of and ref_span == parent and parent_is_child_of)
    ]
    return parent, links


def _event(log: dict[str, Any]) -> dict[str, Any]:
    name = ""
    attributes = []
    for field in _objects(log.get("fields"), "log fields"):
        if field.get("key") == "event" and field.get("type", "string") == "string" and not name:
            name = str(field.get("value", ""))
        else:
            attributes.append(_key_value(field))
    if "timestamp" not in log:
        raise _Unreadable("a log without a timestamp")
    event: dict[str, Any] = {
        "timeUnixNano": str(_micros(log["timestamp"], "log timestamp") * 1000),
        "name": name,
    }
    if attributes:
        event["attributes"] = attributes
    return event


def _key_value(tag: dict[str, Any]) -> dict[str, Any]:
    kind = str(tag.get("type", "string")).lower()
    value: Any = tag.get("value")
    if "key" not in tag:
        raise _Unreadable("a tag or field without a key")
    if kind == "bool":
        typed: dict[str, Any] = {"boolValue": _bool(value)}
    elif kind == "int64":
        typed = {"intValue": str(_number(value, int, tag["key"]))}
    elif kind == "float64":
        typed = {"doubleValue": _number(value, float, tag["key"])}
    elif kind == "binary":
        typed = {"bytesValue": str(value)}
    else:
        typed = {"stringValue": _string_tag("" if value is None else str(value))}
    return {"key": str(tag["key"]), "value": typed}


def _string_tag(value: str) -> str:
    """Undo the HTML escaping of arrays and maps that Jaeger's translator stringified.

    Jaeger 1.76 builds on a pdata whose AsString used Go's default ``json.Marshal``, which
    writes ``<``, ``>`` and ``&`` as unicode escapes (``u003c`` …); the exporter's pdata
    no longer does. A string tag is re-encoded only when it is exactly such an encoding.
    """
    if value[:1] not in ("[", "{") or not any(escape in value for escape in _HTML_ESCAPES):
        return value
    try:
        parsed = json.loads(value)
        if go_json(parsed, escape_html=True) == value:
            return go_json(parsed)
    except (ValueError, TypeError):
        pass
    return value


def _number(value: Any, kind: type[int] | type[float], key: Any) -> Any:
    name = "an int64" if kind is int else "a float64"
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise _Unreadable(f"tag {str(key)[:60]!r}: {str(value)[:40]!r} is not {name}")
    try:
        return kind(value)
    except (ValueError, OverflowError):
        raise _Unreadable(f"tag {str(key)[:60]!r}: {str(value)[:40]!r} is not {name}") from None


def _bool(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.lower() == "true")


def _jaeger_id(value: Any, digits: int, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise _Unreadable(f"no {what}")
    if len(value) > digits:
        raise _Unreadable(f"{what} {value[:40]!r} is longer than {digits} hex digits")
    # Jaeger prints a 128-bit id whose high half is zero as 16 digits: pad it back.
    return value.lower().rjust(digits, "0")
