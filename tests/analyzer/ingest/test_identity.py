"""A span is its trace id and span id: a second copy with other content is reported, not stored.

Issue 19, Why 10: the same trace and span id with a different start time in a second file was
stored twice and reported as "0 duplicates".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragfunnel.analyzer.ingest import ingest_paths
from ragfunnel.analyzer.store import Store
from tests.support.otlp_json import T0, count, line, span

pytestmark = pytest.mark.usefixtures("converter")


@pytest.mark.parametrize("shift_ns", [5_000, 3_600 * 10**9, 400 * 86_400 * 10**9])
def test_a_copy_with_another_start_time_is_counted_named_and_not_stored(
    store: Store, tmp_path: Path, shift_ns: int
) -> None:
    (tmp_path / "a.jsonl").write_text(line(span(1), span(2)) + "\n")
    moved = span(2, startTimeUnixNano=str(T0 + shift_ns), endTimeUnixNano=str(T0 + shift_ns + 9))
    ingest_paths(store, [tmp_path / "a.jsonl"])
    (tmp_path / "b.jsonl").write_text(line(moved, span(3)) + "\n")
    summary = ingest_paths(store, [tmp_path])
    assert count(store) == 3
    assert (summary.read, summary.inserted, summary.duplicates, summary.unchanged) == (2, 1, 1, 1)
    (problem,) = summary.skipped
    assert problem.file == str(tmp_path / "b.jsonl")
    assert "1 span(s) already stored with another start time" in problem.reason
    assert f"span {2:016x} of trace {1:032x}" in problem.reason
    assert "1 duplicate" in summary.describe()


def test_copies_read_in_the_same_ingest_are_stored_once(store: Store, tmp_path: Path) -> None:
    # Files read together share an insert: the second copy is dropped as it is read.
    (tmp_path / "a.jsonl").write_text(line(span(1), span(2)) + "\n")
    moved = span(2, startTimeUnixNano=str(T0 + 3_600 * 10**9))
    (tmp_path / "b.jsonl").write_text(line(moved, span(3)) + "\n")
    summary = ingest_paths(store, [tmp_path])
    assert count(store) == 3
    assert (summary.read, summary.inserted, summary.duplicates) == (4, 3, 1)


def test_a_copy_within_a_microsecond_is_a_plain_duplicate(store: Store, tmp_path: Path) -> None:
    # What Jaeger gives back: the same span, its start time cut to microseconds.
    (tmp_path / "a.jsonl").write_text(line(span(1, startTimeUnixNano=str(T0 + 1_234))) + "\n")
    ingest_paths(store, [tmp_path / "a.jsonl"])
    (tmp_path / "b.jsonl").write_text(line(span(1, startTimeUnixNano=str(T0 + 1_000))) + "\n")
    summary = ingest_paths(store, [tmp_path / "b.jsonl"])
    assert count(store) == 1 and summary.duplicates == 1 and summary.skipped == []


def test_trace_ids_are_looked_up_in_batches_and_every_batch_finds_its_copies(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A chunk's trace ids are bound into the lookup's text; past about a megabyte the embedded
    # engine took minutes, so they go in batches (here of ~28 ids, so 300 traces need 11).
    from ragfunnel.analyzer.ingest import writer

    monkeypatch.setattr(writer, "_ID_BATCH_BYTES", 1_000)
    batches = list(writer._id_batches([f"{n:032x}" for n in range(300)]))
    assert len(batches) == 11
    assert all(sum(len(i) + 3 for i in batch) <= 1_000 for batch in batches)
    assert [i for batch in batches for i in batch] == [f"{n:032x}" for n in range(300)]
    spans = [span(n, trace=n) for n in range(1, 301)]
    (tmp_path / "a.jsonl").write_text(line(*spans) + "\n")
    ingest_paths(store, [tmp_path / "a.jsonl"])
    moved = span(299, trace=299, startTimeUnixNano=str(T0 + 10**9))
    (tmp_path / "b.jsonl").write_text(line(*spans[:298], moved, span(301, trace=301)) + "\n")
    summary = ingest_paths(store, [tmp_path / "b.jsonl"])
    assert count(store) == 301
    assert (summary.inserted, summary.duplicates) == (1, 299)
    (problem,) = summary.skipped
    assert f"span {299:016x} of trace {299:032x}" in problem.reason
