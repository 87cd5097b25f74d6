"""``ingest/depth.py``: nesting depth found without recursion, and a deep line's spans located."""

from __future__ import annotations

import json

from ragfunnel.analyzer.ingest.depth import MAX_DEPTH, deeper_than, split_spans


def nested(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


def test_depth_is_counted_by_brackets_outside_strings() -> None:
    assert not deeper_than(nested(MAX_DEPTH))
    assert deeper_than(nested(MAX_DEPTH + 1))
    assert deeper_than(nested(4), limit=3) and not deeper_than(nested(3), limit=3)
    quoted = json.dumps({"k": "[" * 500 + '\\"{' * 10}).encode()  # brackets in a string
    assert not deeper_than(quoted, limit=3)
    siblings = b"[" + b",".join([b"[[]]"] * 200) + b"]"  # many brackets, shallow
    assert not deeper_than(siblings, limit=3)


def _line(attribute_depth: int) -> bytes:
    value: object = {"stringValue": "x"}
    for _ in range(attribute_depth):
        value = {"arrayValue": {"values": [value]}}
    span = {"traceId": "a" * 32, "spanId": "b" * 16, "attributes": [{"key": "k", "value": value}]}
    plain = {"traceId": "a" * 32, "spanId": "c" * 16}
    return json.dumps(
        {
            "resourceSpans": [
                {
                    "resource": {"attributes": []},
                    "scopeSpans": [
                        {"scope": {"name": "s"}, "spans": [plain, span]},
                        {"scope": {"name": "empty"}, "spans": []},
                    ],
                }
            ]
        }
    ).encode()


def test_a_lines_spans_are_found_with_their_place_and_own_depth() -> None:
    data = _line(attribute_depth=50)
    found = split_spans(data)
    assert sorted(found.scope_lists) == [(0, 0), (0, 1)]
    assert set(found.resources) == {0} and set(found.scopes) == {(0, 0), (0, 1)}
    plain, deep = found.spans
    assert (plain.resource, plain.scope, plain.index) == (0, 0, 0)
    assert (deep.resource, deep.scope, deep.index) == (0, 0, 1)
    assert json.loads(data[plain.start : plain.end])["spanId"] == "c" * 16
    assert json.loads(data[deep.start : deep.end])["spanId"] == "b" * 16
    assert plain.depth == 1 and deep.depth > 100  # each counted from the span itself


def test_what_is_not_otlps_shape_has_no_spans() -> None:
    found = split_spans(b'{"data": [{"spans": [{"traceID": "x"}]}]}')
    assert found.spans == [] and found.scope_lists == set()
