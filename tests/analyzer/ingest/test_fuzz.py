"""Ingest fuzzing: OTLP JSON and Jaeger JSON that other systems wrote, valid or not.

Whatever the input, ingest never crashes; every problem names its file and line and says why;
a span that was changed on its way in is either skipped or kept with a note — never inserted
half-parsed without a word; spans nobody touched come through exactly; and the native and
Python converters agree. The budget is bounded (examples below) so that CI stays fast.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragfunnel.analyzer.ingest import otlp
from ragfunnel.analyzer.ingest.chunking import Loader
from ragfunnel.analyzer.ingest.result import IngestSummary
from tests.support.converters import converter_switch

SOURCE = "<fuzz>"
T0_US = 1_800_000_000_000_000  # microseconds, as Jaeger writes them
HOSTILE = st.sampled_from(
    [None, "", "x", "zz" * 8, 5, -1, 1.5, 10**30, True, [], {}, [5], {"a": 1}, "\x00", "9" * 40]
)
BUDGET = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _read(lines: list[bytes], *, native: bool) -> tuple[list[dict[str, Any]], IngestSummary]:
    with converter_switch(native=native):
        summary = IngestSummary()
        loader = Loader(None, summary, chunk_spans=2**62)
        otlp.read_lines(iter(lines), SOURCE, loader)
        rows = loader.chunk().table.to_pylist()
    rows.sort(key=lambda row: (row["TraceId"], row["SpanId"]))
    return rows, summary


def _messages(summary: IngestSummary) -> tuple[list[str], list[str]]:
    return sorted(map(str, summary.skipped)), sorted(map(str, summary.notes))


def _read_both(lines: list[bytes]) -> tuple[list[dict[str, Any]], IngestSummary]:
    """Read natively and in Python: the two must agree on rows and on every message."""
    rows, summary = _read(lines, native=True)
    py_rows, py_summary = _read(lines, native=False)
    assert rows == py_rows
    assert _messages(summary) == _messages(py_summary)
    assert (summary.read, summary.duplicates) == (py_summary.read, py_summary.duplicates)
    for problem in [*summary.skipped, *summary.notes]:
        assert problem.file == SOURCE
        assert 1 <= problem.line <= len(lines), problem
        assert problem.reason.strip(), problem
    assert summary.read == len(rows) + summary.duplicates
    return rows, summary


def _lines_with_problems(summary: IngestSummary) -> set[int]:
    return {p.line for p in [*summary.skipped, *summary.notes]}


# --- OTLP JSON: a valid document, then one mutation somewhere in it -------------------------


@st.composite
def otlp_documents(draw: st.DrawFn) -> dict[str, Any]:
    trace = draw(
        st.text("0123456789abcdef", min_size=32, max_size=32).filter(lambda t: t.strip("0"))
    )
    count = draw(st.integers(1, 4))
    spans = []
    for index in range(count):
        start = 1_800_000_000_000_000_000 + draw(st.integers(0, 10**9))
        spans.append(
            {
                "traceId": trace,
                "spanId": f"{index + 1:016x}",
                "parentSpanId": "" if index == 0 else f"{1:016x}",
                "name": draw(st.sampled_from(["retrieve bm25", "generate m", "question ask"])),
                "kind": draw(st.integers(0, 5)),
                "startTimeUnixNano": str(start),
                "endTimeUnixNano": str(start + draw(st.integers(0, 10**6))),
                "attributes": [
                    {"key": "ragfunnel.stage", "value": {"stringValue": "retrieve"}},
                    {
                        "key": "ragfunnel.top_k",
                        "value": {"intValue": str(draw(st.integers(1, 50)))},
                    },
                    {
                        "key": "ragfunnel.documents.ids",
                        "value": {"arrayValue": {"values": [{"stringValue": "d1"}]}},
                    },
                ],
                "status": {"code": draw(st.integers(0, 2))},
            }
        )
    return {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [{"key": "service.name", "value": {"stringValue": "svc"}}]
                },
                "scopeSpans": [{"scope": {"name": "ragfunnel", "version": "1"}, "spans": spans}],
            }
        ]
    }


SPAN_FIELDS = [
    "traceId",
    "spanId",
    "parentSpanId",
    "name",
    "kind",
    "startTimeUnixNano",
    "endTimeUnixNano",
    "attributes",
    "status",
]


@st.composite
def mutations(draw: st.DrawFn, document: dict[str, Any]) -> tuple[dict[str, Any], int | None, bool]:
    """One change: a span field replaced or removed, an attribute broken, or an outer level.

    Returns the new document, the index of the span that was changed (None: all of them), and
    whether the change made the input invalid (a value of the wrong type or out of range, a
    required id removed) rather than different but valid (an optional field removed or null).
    """
    changed = copy.deepcopy(document)
    spans = changed["resourceSpans"][0]["scopeSpans"][0]["spans"]
    where = draw(st.sampled_from(["span", "span", "attribute", "resource", "scope"]))
    if where in ("resource", "scope"):
        value = draw(HOSTILE)
        if where == "resource":
            changed["resourceSpans"][0]["resource"] = value
        else:
            changed["resourceSpans"][0]["scopeSpans"][0]["scope"] = value
        return changed, None, value is not None and not isinstance(value, dict)
    index = draw(st.integers(0, len(spans) - 1))
    span = spans[index]
    if where == "attribute":
        attribute = span["attributes"][draw(st.integers(0, len(span["attributes"]) - 1))]
        part = draw(st.sampled_from(["key", "value", "inner"]))
        value = draw(HOSTILE)
        if part == "inner":
            kind = next(iter(attribute["value"]))
            attribute["value"][kind] = value
            return changed, index, _invalid(kind, value)
        attribute[part] = value
        return changed, index, _invalid("attribute " + part, value)
    field = draw(st.sampled_from(SPAN_FIELDS))
    if draw(st.booleans()):
        del span[field]
        return changed, index, field in ("traceId", "spanId")
    span[field] = draw(HOSTILE)
    return changed, index, _invalid(field, span[field])


_HEX = set("0123456789abcdef")


def _invalid(field: str, value: Any) -> bool:
    """Whether OTLP JSON forbids ``value`` in ``field`` (null is an absent field: allowed)."""
    if value is None:
        return field in ("traceId", "spanId", "attribute key")
    if field in ("traceId", "spanId", "parentSpanId"):
        size = 32 if field == "traceId" else 16
        valid_empty = field == "parentSpanId" and value == ""
        return not valid_empty and not (
            isinstance(value, str)
            and len(value) == size
            and set(value) <= _HEX
            and value.strip("0")
        )
    if field in ("startTimeUnixNano", "endTimeUnixNano", "intValue"):
        if isinstance(value, bool):
            return True
        number = value if isinstance(value, int) else None
        if isinstance(value, str) and value.isdigit():
            number = int(value)
        low = -(2**63) if field == "intValue" else 0
        return number is None or not low <= number < 2**64
    if field in ("name", "stringValue", "attribute key"):
        return not isinstance(value, str)
    if field == "kind":
        # A number or name the table does not know is stored as "", as the collector's
        # clickhouseexporter does (pdata's SpanKind.String()); only another type is invalid.
        return isinstance(value, bool) or not isinstance(value, (int, str))
    if field == "attributes":
        return not isinstance(value, list)
    return not isinstance(value, dict)  # status, attribute value, arrayValue


@BUDGET
@given(st.data())
def test_a_mutated_otlp_document_is_read_exactly_or_reported(data: st.DataObject) -> None:
    document = data.draw(otlp_documents())
    mutated, index, invalid = data.draw(mutations(document))
    original_rows, original = _read_both([json.dumps(document).encode() + b"\n"])
    assert not original.skipped and not original.notes
    rows, summary = _read_both([json.dumps(mutated).encode() + b"\n"])
    by_span = {row["SpanId"]: row for row in original_rows}
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    untouched = {s["spanId"] for i, s in enumerate(spans) if index is not None and i != index}
    got = {row["SpanId"]: row for row in rows}
    for span_id in untouched:
        assert got.get(span_id) == by_span[span_id], "a span nobody touched changed"
    changed_rows = [r for r in rows if r["SpanId"] not in untouched]
    expected_changed = [r for r in original_rows if r["SpanId"] not in untouched]
    if invalid and changed_rows != expected_changed:
        # An invalid input changed what was stored: that must have been said, on its line.
        assert _lines_with_problems(summary) == {1}, (
            changed_rows,
            expected_changed,
            _messages(summary),
        )


# --- Jaeger JSON: every field valid most of the time, hostile sometimes ----------------------


def sometimes(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``valid`` nine times in ten, else a hostile value."""
    return st.integers(0, 9).flatmap(lambda n: HOSTILE if n == 0 else valid)


CLEAN_TAGS = [("string", "v"), ("int64", 7), ("float64", 0.5), ("bool", True), ("binary", "AAE=")]
tag_values = st.sampled_from(CLEAN_TAGS)


@st.composite
def jaeger_tags(draw: st.DrawFn) -> list[Any]:
    tags: list[Any] = []
    for n in range(draw(st.integers(0, 3))):
        kind, value = draw(tag_values)
        tag = {"key": f"tag.{n}", "type": kind, "value": value}
        for field in ("key", "type", "value"):
            tag[field] = draw(sometimes(st.just(tag[field])))
        tags.append(draw(sometimes(st.just(tag))))
    return tags


@st.composite
def jaeger_spans(draw: st.DrawFn, trace: str, index: int) -> dict[str, Any]:
    span: dict[str, Any] = {
        "traceID": trace,
        "spanID": f"{index + 1:016x}",
        "operationName": draw(st.sampled_from(["retrieve bm25", "generate m"])),
        "references": (
            [] if index == 0 else [{"refType": "CHILD_OF", "traceID": trace, "spanID": f"{1:016x}"}]
        ),
        "startTime": T0_US + draw(st.integers(0, 10**6)),
        "duration": draw(st.integers(0, 10**6)),
        "tags": draw(jaeger_tags()),
        "logs": [
            {"timestamp": T0_US, "fields": [{"key": "event", "type": "string", "value": "e"}]}
        ],
        "processID": "p1",
    }
    for field in list(span):
        if draw(st.integers(0, 14)) == 0:
            if draw(st.booleans()):
                del span[field]
            else:
                span[field] = draw(HOSTILE)
    if "references" in span and isinstance(span["references"], list):
        span["references"] = [draw(sometimes(st.just(ref))) for ref in span["references"]]
    if "logs" in span and isinstance(span["logs"], list):
        span["logs"] = [draw(sometimes(st.just(log))) for log in span["logs"]]
    return draw(sometimes(st.just(span)))


@st.composite
def jaeger_documents(draw: st.DrawFn) -> dict[str, Any]:
    trace = draw(
        st.text("0123456789abcdef", min_size=32, max_size=32).filter(lambda t: t.strip("0"))
    )
    spans = [draw(jaeger_spans(trace, i)) for i in range(draw(st.integers(1, 3)))]
    process: Any = {"serviceName": "svc", "tags": draw(jaeger_tags())}
    processes = draw(sometimes(st.just({"p1": draw(sometimes(st.just(process)))})))
    trace_doc = draw(sometimes(st.just({"traceID": trace, "spans": spans, "processes": processes})))
    return {"data": [trace_doc]}


@BUDGET
@given(jaeger_documents())
def test_any_jaeger_export_is_read_or_reported(document: dict[str, Any]) -> None:
    lines = [json.dumps(document).encode() + b"\n"]
    rows, summary = _read_both(lines)
    trace = document["data"][0]
    spans = trace.get("spans") if isinstance(trace, dict) else None
    given_ids = {
        s.get("spanID")
        for s in spans or []
        if isinstance(s, dict) and isinstance(s.get("spanID"), str)
    }
    for row in rows:
        assert row["SpanId"] in {i.rjust(16, "0") for i in given_ids}
    clean = [s for s in spans or [] if _clean_jaeger_span(s)]
    got = {row["SpanId"]: row for row in rows}
    for span in clean:
        row = got.get(span["spanID"])
        if row is None:  # left out: it must be said why
            assert summary.skipped, span
            continue
        assert row["SpanName"] == span["operationName"]
        assert row["Duration"] == span["duration"] * 1000
        assert {key for key, _ in row["SpanAttributes"]} == {t["key"] for t in span["tags"]}


def _clean_jaeger_span(span: Any) -> bool:
    if not isinstance(span, dict):
        return False
    return (
        all(isinstance(span.get(k), str) for k in ("traceID", "spanID", "operationName"))
        and all(
            isinstance(span.get(k), int) and not isinstance(span.get(k), bool)
            for k in ("startTime", "duration")
        )
        and span["startTime"] > 0
        and span["duration"] >= 0  # a negative one is clamped to 0, with a note
        and isinstance(span.get("tags"), list)
        and all(_clean_tag(t) for t in span["tags"])
        and isinstance(span.get("references"), list)
        and all(isinstance(r, dict) and r.get("spanID") == f"{1:016x}" for r in span["references"])
        and isinstance(span.get("logs"), list)
        and all(isinstance(log, dict) and log.get("timestamp") == T0_US for log in span["logs"])
        and span.get("processID") == "p1"
    )


def _clean_tag(tag: Any) -> bool:
    return (
        isinstance(tag, dict)
        and isinstance(tag.get("key"), str)
        and tag.get("key", "").startswith("tag.")
        and (tag.get("type"), tag.get("value")) in CLEAN_TAGS
    )


def _jaeger_line(span_changes: dict[str, Any]) -> bytes:
    span = {
        "traceID": "ab" * 16,
        "spanID": "cd" * 8,
        "operationName": "op",
        "startTime": T0_US,
        "duration": 5,
        "processID": "p1",
        **span_changes,
    }
    processes = {"p1": {"serviceName": "svc", "tags": []}}
    return json.dumps({"data": [{"spans": [span], "processes": processes}]}).encode() + b"\n"


def test_jaeger_parts_that_are_not_objects_skip_the_span_with_a_reason() -> None:
    # Each of these crashed ingest with an AttributeError before.
    for changes in ({"logs": [5]}, {"references": [5]}, {"tags": [{"key": "k", "value": 1}, 7]}):
        lines = [_jaeger_line(changes)]
        rows, summary = _read_both(lines)
        assert summary.skipped, changes
    lines = [json.dumps({"data": [{"traceID": "ab" * 16, "spans": ["x"]}]}).encode() + b"\n"]
    rows, summary = _read_both(lines)
    assert rows == [] and "span 0 skipped: not an object" in str(summary.skipped[0])


def test_a_jaeger_tag_without_a_key_is_left_out_and_said() -> None:
    rows, summary = _read_both([_jaeger_line({"tags": ["x", {"key": "k", "value": "v"}]})])
    assert [key for key, _ in rows[0]["SpanAttributes"]] == ["k"]
    assert "1 tag(s) that are not objects with a key left out" in str(summary.skipped[0])
