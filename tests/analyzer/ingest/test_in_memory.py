"""``ingest/in_memory.py``: lines, SDK spans and documents ingested or turned into rows in memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragfunnel.analyzer.ingest import IngestError, ingest_lines, ingest_spans, spans_to_arrow
from ragfunnel.analyzer.store import Store
from tests.support.otlp_json import count, line, span
from tests.support.traces import TraceBuilder, few_questions


def test_lines_as_text_or_bytes_from_any_iterable_with_or_without_newlines(store: Store) -> None:
    given = (text.encode() if n % 2 else text for n, text in enumerate(
        [line(span(1)), line(span(2)) + "\n", line(span(3), span(4))]))  # fmt: skip
    summary = ingest_lines(store, given, source="app.log")
    assert (summary.read, summary.inserted, summary.files) == (4, 4, 1)
    assert count(store) == 4
    again = ingest_lines(store, [line(span(1)), line(span(5))])
    assert (again.inserted, again.duplicates) == (1, 1)  # the stored span is not added again


def test_a_bad_line_is_skipped_naming_the_source_and_line(store: Store) -> None:
    summary = ingest_lines(store, [line(span(1)), "{not json", line(span(2, traceId="xyz"))],
                           source="app.log")  # fmt: skip
    assert summary.inserted == 1
    assert [(s.file, s.line) for s in summary.skipped] == [("app.log", 2), ("app.log", 3)]


def test_sdk_spans_are_ingested_once(store: Store) -> None:
    b = TraceBuilder()
    few_questions(b, 2)
    assert ingest_spans(store, b.spans).inserted == 4
    assert ingest_spans(store, b.spans).duplicates == 4
    assert ingest_spans(store, []).read == 0


def test_a_dsn_is_opened_created_and_closed_for_the_call(tmp_path: Path) -> None:
    dsn = f"chdb://{tmp_path / 'new'}"
    assert ingest_lines(dsn, [line(span(1))]).inserted == 1
    with Store.open(dsn) as reopened:
        assert count(reopened) == 1


def test_rows_in_memory_from_any_form_of_one_document() -> None:
    document = json.loads(line(span(1), span(2, parent=1)))
    from_dict = spans_to_arrow(document)
    assert from_dict.num_rows == 2
    assert spans_to_arrow(json.dumps(document)).equals(from_dict)
    assert spans_to_arrow(json.dumps(document).encode()).equals(from_dict)
    assert from_dict.column("ParentSpanId").to_pylist() == ["", f"{1:016x}"]
    assert spans_to_arrow([]).num_rows == 0


def test_rows_in_memory_refuse_a_span_that_cannot_be_converted() -> None:
    with pytest.raises(IngestError, match=r"<data>:1: .*traceId 'xyz'"):
        spans_to_arrow(line(span(1, traceId="xyz")))
