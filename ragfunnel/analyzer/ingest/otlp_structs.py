"""OTLP JSON trace documents as typed msgspec structs.

Decoding into these structs validates every field's JSON type in C as it parses, so the reader
never walks untyped dicts on the fast path; a line that does not fit is re-read span by span to
name the exact problem. Field names are OTLP JSON's lowerCamelCase (the form the Python SDK's
file exporter, the collector's fileexporter and Jaeger's API v3 write); unknown fields are
ignored, as protobuf JSON parsers do.
"""

from __future__ import annotations

import msgspec

__all__ = [
    "AnyValue",
    "ArrayValue",
    "Envelope",
    "Event",
    "KeyValue",
    "KeyValueList",
    "Link",
    "Resource",
    "ResourceSpans",
    "Scope",
    "ScopeSpans",
    "Span",
    "Status",
    "decode_array",
    "decode_envelope",
    "decode_kvlist",
    "decode_resource",
    "decode_scope",
    "decode_span",
]


_NONE = msgspec.Raw()
"""Arrays and maps stay raw JSON until stringified: most are id lists that never need objects."""


class AnyValue(msgspec.Struct, gc=False):
    """One attribute value; exactly one field is set (none: the empty value)."""

    stringValue: str | None = None
    intValue: int | str | None = None
    doubleValue: float | str | None = None
    boolValue: bool | None = None
    arrayValue: msgspec.Raw = _NONE
    kvlistValue: msgspec.Raw = _NONE
    bytesValue: str | None = None


class ArrayValue(msgspec.Struct, gc=False):
    """OTLP JSON ``ArrayValue``."""

    values: list[AnyValue] = []


class KeyValue(msgspec.Struct, gc=False):
    """OTLP JSON ``KeyValue``."""

    key: str = ""
    value: AnyValue | None = None


class KeyValueList(msgspec.Struct, gc=False):
    """OTLP JSON ``KeyValueList``."""

    values: list[KeyValue] = []


class Status(msgspec.Struct, gc=False):
    """OTLP JSON ``Status``."""

    code: int | str = 0
    message: str = ""


class Event(msgspec.Struct, gc=False):
    """OTLP JSON ``Event``."""

    timeUnixNano: int | str = 0
    name: str = ""
    attributes: list[KeyValue] = []


class Link(msgspec.Struct, gc=False):
    """OTLP JSON ``Link``."""

    traceId: str = ""
    spanId: str = ""
    traceState: str = ""
    attributes: list[KeyValue] = []


class Span(msgspec.Struct, gc=False):
    """OTLP JSON ``Span``."""

    traceId: str = ""
    spanId: str = ""
    parentSpanId: str = ""
    traceState: str = ""
    name: str = ""
    kind: int | str = 0
    startTimeUnixNano: int | str = 0
    endTimeUnixNano: int | str = 0
    attributes: list[KeyValue] = []
    events: list[Event] = []
    links: list[Link] = []
    status: Status | None = None


class Scope(msgspec.Struct, gc=False):
    """OTLP JSON ``Scope``."""

    name: str = ""
    version: str = ""


class ScopeSpans(msgspec.Struct, gc=False):
    """OTLP JSON ``ScopeSpans``."""

    scope: Scope | None = None
    spans: list[Span] = []


class Resource(msgspec.Struct, gc=False):
    """OTLP JSON ``Resource``."""

    attributes: list[KeyValue] = []


class ResourceSpans(msgspec.Struct, gc=False):
    """OTLP JSON ``ResourceSpans``."""

    resource: Resource | None = None
    scopeSpans: list[ScopeSpans] = []


class _Result(msgspec.Struct, gc=False):
    resourceSpans: list[ResourceSpans] = []


class Envelope(msgspec.Struct, gc=False):
    """A top-level document: OTLP JSON, or Jaeger API v3's ``{"result": {...}}`` around it.

    Any other shape (Jaeger UI ``{"data": [...]}``, an API error) decodes with
    :attr:`resource_spans` None, and is handled by the generic reader.
    """

    resourceSpans: list[ResourceSpans] | None = None
    result: _Result | None = None

    @property
    def resource_spans(self) -> list[ResourceSpans] | None:
        """The OTLP resource spans, or None when this is not an OTLP document."""
        if self.resourceSpans is not None:
            return self.resourceSpans
        if self.result is not None:
            return self.result.resourceSpans
        return None


decode_array = msgspec.json.Decoder(ArrayValue).decode
decode_kvlist = msgspec.json.Decoder(KeyValueList).decode
decode_envelope = msgspec.json.Decoder(Envelope).decode
decode_resource = msgspec.json.Decoder(Resource).decode
decode_scope = msgspec.json.Decoder(Scope).decode
decode_span = msgspec.json.Decoder(Span).decode
