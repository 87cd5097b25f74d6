"""``ingest/salvage.py``: what can be read of a line the fast decoder refused, never raising.

Sound spans are kept; each bad one, or each malformed optional field a span is kept without,
is named with its place; a value that is not a trace document is named for what it is.
"""

from __future__ import annotations

from ragfunnel.analyzer.ingest.depth import MAX_DEPTH
from ragfunnel.analyzer.ingest.salvage import dispatch, salvage
from tests.support.otlp_json import line, span
from tests.support.sink import Collected


def salvaged(data: bytes | str, *, unterminated: bool = False) -> Collected:
    sink = Collected()
    raw = data.encode() if isinstance(data, str) else data
    salvage(raw, "f.jsonl", 7, sink, last_line_unterminated=unterminated)
    return sink


def test_invalid_json_is_named_with_its_column_or_as_a_cut_last_line() -> None:
    [(source, number, reason)] = salvaged('{"resourceSpans": [').skipped
    assert (source, number) == ("f.jsonl", 7) and reason.startswith("invalid JSON: ")
    assert "(column " in reason
    [(_, _, cut)] = salvaged('{"resourceSpans": [', unterminated=True).skipped
    assert cut.startswith("truncated line, no newline at the end")


def test_a_bad_span_is_skipped_by_name_and_the_sound_ones_kept() -> None:
    found = salvaged(line(span(1), span(2, spanId=12345), span(3)))
    assert found.span_ids == [f"{1:016x}", f"{3:016x}"]
    [(_, _, reason)] = found.skipped
    assert "(spanId 12345)" in reason


def test_a_malformed_optional_field_is_left_out_and_the_span_kept() -> None:
    found = salvaged(line(span(1, attributes="not a list")))
    assert found.span_ids == [f"{1:016x}"]
    [(_, _, reason)] = found.skipped
    assert f"(spanId '{1:016x}') kept:" in reason and "stored without its attributes" in reason


def test_bytes_that_are_not_utf8_are_replaced_with_a_note() -> None:
    data = line(span(1, name="cafe")).encode().replace(b'"cafe"', b'"caf\xe9"')  # Latin-1
    found = salvaged(data)
    assert found.span_ids == [f"{1:016x}"]
    [(_, _, note)] = found.notes
    assert note.startswith("bytes that are not UTF-8 (first at byte ")


def test_values_that_are_not_trace_documents_are_named() -> None:
    def reasons(value: object) -> list[str]:
        sink = Collected()
        dispatch(value, None, "f.jsonl", 1, sink)
        assert sink.span_ids == []
        return [reason for _, _, reason in sink.skipped]

    assert reasons({"error": {"message": "rate limited"}}) == [
        "an error answer, not traces: rate limited"
    ]
    assert reasons({"data": "nope"}) == ["Jaeger export: 'data' is not a list of traces"]
    [unknown] = reasons(42)
    assert unknown.startswith("not a trace document: expected OTLP JSON (resourceSpans)")
    assert reasons([42, {"x": 1}]) == [unknown, unknown]  # each item of a list


def test_a_line_too_deep_for_any_parser_is_read_without_recursing() -> None:
    value: object = {"stringValue": "x"}
    for _ in range(MAX_DEPTH):
        value = {"arrayValue": {"values": [value]}}
    deep = span(2, attributes=[{"key": "deep", "value": value}])
    found = salvaged(line(span(1), deep))
    assert found.span_ids == [f"{1:016x}"]  # the deep span rejected, named; the other kept
    assert len(found.skipped) == 1 and f"{2:016x}" in found.skipped[0][2]
