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


def test_copies_in_two_files_of_one_ingest_are_stored_once_and_the_conflict_named(
    store: Store, tmp_path: Path
) -> None:
    # Files read together share a chunk: the second copy is dropped as it is read, and one
    # with another start time is named with its file and line.
    (tmp_path / "a.jsonl").write_text(line(span(1), span(2)) + "\n")
    moved = span(2, startTimeUnixNano=str(T0 + 3_600 * 10**9))
    (tmp_path / "b.jsonl").write_text(line(span(4)) + "\n" + line(moved, span(3)) + "\n")
    summary = ingest_paths(store, [tmp_path])
    assert count(store) == 4
    assert (summary.read, summary.inserted, summary.duplicates) == (5, 4, 1)
    (problem,) = summary.skipped
    assert (problem.file, problem.line) == (str(tmp_path / "b.jsonl"), 2)
    assert "1 span(s) already read in this ingest with another start time" in problem.reason
    assert f"span {2:016x} of trace {1:032x}" in problem.reason
    stored = store.command(
        f"SELECT toUnixTimestamp64Nano(Timestamp) FROM {store.traces_table} "
        f"WHERE SpanId = '{2:016x}'"
    )
    assert stored == T0 + 2 * 1000  # the first copy read is the one kept


def test_a_conflicting_copy_in_the_same_file_is_named_with_its_line(
    store: Store, tmp_path: Path
) -> None:
    moved = span(2, startTimeUnixNano=str(T0 + 10**9), endTimeUnixNano=str(T0 + 10**9 + 5))
    (tmp_path / "a.jsonl").write_text(
        line(span(1), span(2)) + "\n" + line(span(3)) + "\n" + line(moved, span(4)) + "\n"
    )
    summary = ingest_paths(store, [tmp_path / "a.jsonl"])
    assert count(store) == 4
    assert (summary.read, summary.inserted, summary.duplicates) == (5, 4, 1)
    (problem,) = summary.skipped
    assert (problem.file, problem.line) == (str(tmp_path / "a.jsonl"), 3)
    assert f"span {2:016x} of trace {1:032x}" in problem.reason


def test_conflicting_copies_within_one_line_are_counted_together(
    store: Store, tmp_path: Path
) -> None:
    moved = [span(n, startTimeUnixNano=str(T0 + 10**9 + n)) for n in (1, 2)]
    (tmp_path / "a.jsonl").write_text(line(span(1), span(2), *moved, span(3)) + "\n")
    summary = ingest_paths(store, [tmp_path / "a.jsonl"])
    assert count(store) == 3
    assert (summary.read, summary.inserted, summary.duplicates) == (5, 3, 2)
    (problem,) = summary.skipped
    assert problem.line == 1 and "2 span(s) already read in this ingest" in problem.reason


def test_identical_copies_in_one_ingest_are_plain_duplicates(store: Store, tmp_path: Path) -> None:
    # The same span again, or again with its start cut to microseconds (as Jaeger gives it back).
    cut = span(2, startTimeUnixNano=str(T0 + 2_000 - 999))
    (tmp_path / "a.jsonl").write_text(line(span(1), span(2)) + "\n" + line(span(1)) + "\n")
    (tmp_path / "b.jsonl").write_text(line(cut, span(1)) + "\n")
    summary = ingest_paths(store, [tmp_path])
    assert count(store) == 2
    assert (summary.read, summary.inserted, summary.duplicates) == (5, 2, 3)
    assert summary.skipped == []


def test_a_conflict_in_a_later_chunk_of_the_same_ingest_is_named(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A chunk is de-duplicated against what the ingest stored already (the writer's lookup).
    from ragfunnel.analyzer.ingest import chunking

    monkeypatch.setattr(chunking, "CHUNK_SPANS", 2)  # every line its own chunk
    moved = span(2, startTimeUnixNano=str(T0 + 10**9))
    (tmp_path / "a.jsonl").write_text(line(span(1), span(2)) + "\n")
    (tmp_path / "b.jsonl").write_text(line(moved, span(3)) + "\n")
    summary = ingest_paths(store, [tmp_path])
    assert count(store) == 3
    assert (summary.read, summary.inserted, summary.duplicates) == (4, 3, 1)
    (problem,) = summary.skipped
    assert problem.file == str(tmp_path / "b.jsonl")
    assert "1 span(s) already stored with another start time" in problem.reason
    assert f"span {2:016x} of trace {1:032x}" in problem.reason


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


def test_into_an_empty_store_only_traces_it_inserted_are_looked_up(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 35: an ingest into an empty embedded store looks up only the trace ids it may have
    # inserted itself; every copy is still found, and a store holding spans looks up all.
    from ragfunnel.analyzer.ingest import chunking
    from ragfunnel.analyzer.store.tables import traces

    looked_up: list[str] = []
    stored_starts = traces.stored_starts

    def spy(opened: Store, ids: list[str]) -> dict[str, int]:
        looked_up.extend(ids)
        return stored_starts(opened, ids)

    monkeypatch.setattr(traces, "stored_starts", spy)
    monkeypatch.setattr(chunking, "CHUNK_SPANS", 100)
    fresh = [span(n, trace=n) for n in range(1, 301)]  # 300 traces in 3 chunks
    split = span(1_000, trace=150)  # trace 150 again, in the last chunk: a new span of it
    moved = span(42, trace=42, startTimeUnixNano=str(T0 + 10**9))  # a conflicting copy
    lines = [line(*fresh[i : i + 100]) for i in range(0, 300, 100)]
    (tmp_path / "a.jsonl").write_text("\n".join([*lines, line(split, moved)]) + "\n")
    summary = ingest_paths(store, [tmp_path / "a.jsonl"])
    assert (summary.inserted, summary.duplicates) == (301, 1)
    (problem,) = summary.skipped
    assert f"span {42:016x} of trace {42:032x}" in problem.reason
    assert {f"{150:032x}", f"{42:032x}"} <= set(looked_up)
    assert len(looked_up) < 10  # not the 200 trace ids of the second and third chunks
    looked_up.clear()
    (tmp_path / "b.jsonl").write_text(line(*[span(n, trace=n) for n in range(301, 351)]) + "\n")
    ingest_paths(store, [tmp_path / "b.jsonl"])
    assert len(looked_up) == 50  # the store held spans: every trace id is looked up


def test_the_inserted_trace_set_misses_none_and_flags_few_others() -> None:
    from ragfunnel.analyzer.ingest.inserted_traces import InsertedTraces

    seen = InsertedTraces()
    inserted = [f"{n * 7919:032x}" for n in range(200_000)]
    seen.add(inserted[:100_000])
    seen.add(inserted[100_000:])
    assert seen.maybe(inserted) == inserted
    others = [f"{n * 7919 + 1:032x}" for n in range(100_000)]
    assert len(seen.maybe(others)) < 1_500  # about 0.6 % with 200,000 traces
    assert seen.maybe([]) == []
