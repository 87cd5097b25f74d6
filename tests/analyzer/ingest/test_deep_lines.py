"""``ingest/deep_lines.py``: a line nested too deep for a parser, read span by span.

Only the spans (or the resource or scope) nested too deep are rejected, each by its place in
the line; a deep line that is not OTLP's shape is rejected whole.
"""

from __future__ import annotations

import json
from typing import Any

from ragfunnel.analyzer.ingest.deep_lines import read_deep_line
from ragfunnel.analyzer.ingest.depth import MAX_DEPTH, SPAN_DEPTH
from tests.support.otlp_json import span
from tests.support.sink import Collected


def deep_value(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"stringValue": "x"}
    for _ in range(levels):
        value = {"arrayValue": {"values": [value]}}
    return value


def document(*spans: dict[str, Any], resource: dict[str, Any] | None = None) -> bytes:
    return json.dumps(
        {"resourceSpans": [{"resource": resource or {"attributes": []},
                            "scopeSpans": [{"scope": {"name": "s"}, "spans": list(spans)}]}]}
    ).encode()  # fmt: skip


def deep_span(n: int) -> dict[str, Any]:
    return span(n, attributes=[{"key": "deep", "value": deep_value(MAX_DEPTH // 2)}])


def read(data: bytes) -> Collected:
    sink = Collected()
    read_deep_line(data, "f.jsonl", 3, sink)
    return sink


def test_only_the_span_nested_too_deep_is_rejected_by_its_place() -> None:
    found = read(document(span(1), deep_span(2), span(3)))
    assert found.span_ids == [f"{1:016x}", f"{3:016x}"]
    assert found.skipped == [
        ("f.jsonl", 3, f"resourceSpans[0].scopeSpans[0].spans[1] (spanId '{2:016x}'): "
                       f"nested deeper than {SPAN_DEPTH} levels; span skipped"),
    ]  # fmt: skip


def test_a_resource_nested_too_deep_takes_its_spans_with_it() -> None:
    resource = {"attributes": [{"key": "deep", "value": deep_value(MAX_DEPTH // 2)}]}
    found = read(document(span(1), span(2), resource=resource))
    assert found.span_ids == []
    [(_, _, reason)] = found.skipped
    assert reason == (
        f"resourceSpans[0].resource: nested deeper than {SPAN_DEPTH} levels or invalid; "
        "its 2 span(s) skipped"
    )


def test_a_deep_line_of_another_shape_is_rejected_whole() -> None:
    found = read(b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1))
    assert found.span_ids == []
    assert found.skipped == [("f.jsonl", 3, f"nested deeper than {MAX_DEPTH} levels: not read")]
