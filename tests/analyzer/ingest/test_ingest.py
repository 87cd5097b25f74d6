"""Ingest: idempotency, bad input named by line, compression, folders and globs."""

from __future__ import annotations

import gc
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
import zstandard

from ragfunnel.analyzer.ingest import (
    MAX_VALUE_CHARS,
    IngestError,
    IngestSummary,
    ingest_lines,
    ingest_paths,
    spans_to_arrow,
)
from ragfunnel.analyzer.store import Store, StoreError
from tests.support.otlp_json import T0, count, line, span
from tests.support.recorder import recording

pytestmark = pytest.mark.usefixtures("converter")


def test_ingesting_a_folder_twice_adds_nothing_the_second_time(
    store: Store, tmp_path: Path
) -> None:
    (tmp_path / "a.jsonl").write_text(
        line(span(1), span(2, parent=1)) + "\n" + line(span(3)) + "\n"
    )
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.jsonl").write_text(line(span(4, trace=2)) + "\n")
    first = ingest_paths(store, [tmp_path])
    assert (first.read, first.inserted, first.duplicates, first.files) == (4, 4, 0, 2)
    assert count(store) == 4
    second = ingest_paths(store, [tmp_path])
    assert (second.read, second.inserted, second.files, second.unchanged) == (0, 0, 0, 2)
    assert second.describe() == (
        "0 spans read: 0 inserted, 0 duplicates; 2 files were already ingested and unchanged"
    )
    again = ingest_paths(store, [tmp_path], rescan=True)
    assert (again.read, again.inserted, again.duplicates) == (4, 0, 4)
    assert again.describe() == "4 spans read: 0 inserted, 4 duplicates"
    assert count(store) == 4


def test_an_ingest_into_a_store_of_few_parts_defers_the_engine_s_merges(store: Store) -> None:
    with recording(store) as recorder:
        ingest_lines(store, [line(span(1), span(2, parent=1)), line(span(3, trace=2))])
    statements = recorder.statements
    into = f"INSERT INTO {store.traces_table}"
    inserts = [n for n, sql in enumerate(statements) if sql.startswith(into)]
    assert inserts  # every insert runs with merges paused, resumed once all are written
    assert statements.index("SYSTEM STOP MERGES") < inserts[0]
    assert statements.index("SYSTEM START MERGES") > inserts[-1]


def test_a_collector_made_table_is_deduplicated_too(store: Store) -> None:
    # A row the collector wrote (same TraceId and SpanId), not through ragfunnel.
    store.command(
        f"INSERT INTO {store.traces_table} (Timestamp, TraceId, SpanId, SpanName) "
        "VALUES (fromUnixTimestamp64Nano({t:Int64}), {trace:String}, {span:String}, 'from collector')",
        {"t": T0 + 1000, "trace": f"{1:032x}", "span": f"{1:016x}"},
    )
    summary = ingest_lines(store, [line(span(1), span(2))])
    assert (summary.inserted, summary.duplicates) == (1, 1)
    assert count(store) == 2


def test_bad_lines_are_named_and_the_good_spans_kept(store: Store, tmp_path: Path) -> None:
    good = line(span(1), span(2))
    lines = [
        good,  # 1
        "this is not json",  # 2
        "",  # 3: blank lines are fine
        good,  # 4: the same batch again (at-least-once delivery)
        line(span(3, traceId="")),  # 5: no trace id
        line(span(4), span(5, attributes=[{"key": "n", "value": {"intValue": "twelve"}}])),  # 6:
        # span 5 is kept without that attribute (issue 31: salvage, don't skip)
        line(span(6, startTimeUnixNano=["wrong"])),  # 7: wrong JSON type
        json.dumps({"something": "else"}),  # 8
        line(span(7, endTimeUnixNano=str(T0))),  # 9: ends before it starts
    ]
    path = tmp_path / "bad.jsonl"
    path.write_bytes(
        ("\n".join(lines) + "\n").encode()
        + line(span(8, name="caf@")).encode().replace(b"caf@", b"caf\xe9")
        + b"\n"  # 10: a byte that is not UTF-8
        + line(span(9), span(10)).encode()[:-20]  # 11: cut, no newline (may still grow)
    )
    summary = ingest_paths(store, [path])
    problems = {skip.line: skip.reason for skip in summary.skipped}
    assert set(problems) == {2, 5, 6, 7, 8}, summary.skipped
    assert "invalid JSON" in problems[2]
    assert "no traceId" in problems[5]
    assert "intValue 'twelve' is not an integer: stored without it" in problems[6]
    assert "span 0000000000000005 kept" in problems[6]
    assert "startTimeUnixNano" in problems[7]
    assert "not a trace document" in problems[8]
    notes = {note.line: note.reason for note in summary.notes}
    assert "no newline yet" in notes[11]  # left for the next ingest, not a problem
    assert "end before start" in notes[9]
    assert "not UTF-8" in notes[10]
    assert (summary.read, summary.inserted, summary.duplicates) == (8, 6, 2)
    rows = store.query_arrow(f"SELECT SpanName, Duration FROM {store.traces_table}").to_pylist()
    durations = {r["SpanName"]: r["Duration"] for r in rows}
    assert set(durations) == {"span 1", "span 2", "span 4", "span 5", "span 7", "caf\ufffd"}
    assert durations["span 7"] == 0


def test_unpaired_surrogate_escapes_become_replacement_characters(store: Store) -> None:
    summary = ingest_lines(store, [line(span(1, name="a\ud800b"))])
    assert summary.inserted == 1
    assert "surrogate" in summary.notes[0].reason
    assert store.command(f"SELECT SpanName FROM {store.traces_table}") == "a\ufffdb"


def test_giant_values_are_cut_with_a_note(store: Store) -> None:
    huge = "x" * (MAX_VALUE_CHARS + 10)
    summary = ingest_lines(
        store, [line(span(1, attributes=[{"key": "blob", "value": {"stringValue": huge}}]))]
    )
    assert summary.inserted == 1
    assert "cut from 1,048,586 to 1,048,576 characters" in summary.notes[0].reason
    assert (
        store.command(f"SELECT length(SpanAttributes['blob']) FROM {store.traces_table}")
        == MAX_VALUE_CHARS
    )


@pytest.mark.parametrize(
    "compress", [gzip.compress, zstandard.ZstdCompressor().compress], ids=["gzip", "zstd"]
)
def test_compressed_files_are_recognised_by_content(
    store: Store, tmp_path: Path, compress: Any
) -> None:
    path = tmp_path / "spans.data"  # the name says nothing
    path.write_bytes(compress((line(span(1)) + "\n" + line(span(2)) + "\n").encode()))
    summary = ingest_paths(store, [path])
    assert (summary.inserted, summary.skipped) == (2, [])


def test_a_cut_gzip_file_keeps_what_came_before(store: Store, tmp_path: Path) -> None:
    body = "".join(line(span(n)) + "\n" for n in range(1, 200))
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(gzip.compress(body.encode())[:-12])
    summary = ingest_paths(store, [path])
    assert summary.inserted >= 150
    assert len(summary.skipped) == 1
    assert (
        "truncated or corrupt" in summary.skipped[0].reason
        or "truncated line" in summary.skipped[0].reason
    )


def test_folders_skip_hidden_and_non_json_files_and_globs_expand(
    store: Store, tmp_path: Path
) -> None:
    (tmp_path / "one.jsonl").write_text(line(span(1)) + "\n")
    (tmp_path / "two.json").write_text(line(span(2)) + "\n")
    (tmp_path / "notes.txt").write_text("hello\n")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "three.jsonl").write_text(line(span(3)) + "\n")
    summary = ingest_paths(store, [tmp_path])
    assert (summary.inserted, summary.files, summary.skipped) == (2, 2, [])
    summary = ingest_paths(store, [str(tmp_path / "*.json*"), tmp_path / "one.jsonl"], rescan=True)
    assert (summary.read, summary.files) == (2, 2)


def test_a_named_file_that_is_not_json_is_reported(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello\n")
    summary = ingest_paths(store, [path])
    assert [str(s) for s in summary.skipped] == [f"{path}:1: not a JSON trace file"]


def test_missing_paths_are_an_error(store: Store, tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="no such file"):
        ingest_paths(store, [tmp_path / "nope.jsonl"])


def test_pretty_printed_and_concatenated_documents(store: Store, tmp_path: Path) -> None:
    first = json.loads(line(span(1)))
    second = json.loads(line(span(2)))
    path = tmp_path / "pretty.json"
    path.write_text(
        json.dumps(first, indent=2) + "\n" + json.dumps(second, indent=2) + "\n{ broken\n"
    )
    summary = ingest_paths(store, [path])
    assert summary.inserted == 2
    assert [skip.line for skip in summary.skipped] == [
        len(json.dumps(first, indent=2).splitlines()) * 2 + 1
    ]


def test_events_links_trace_state_and_base64_ids(store: Store) -> None:
    body = span(
        1,
        traceState="vendor=a",
        events=[
            {
                "timeUnixNano": str(T0 + 10),
                "name": "e",
                "attributes": [{"key": "k", "value": {"boolValue": True}}],
            }
        ],
        links=[
            {"traceId": "AAAAAAAAAAAAAAAAAAAAAg==", "spanId": "AAAAAAAAAAM=", "traceState": "x=y"}
        ],
        status={"code": "STATUS_CODE_ERROR", "message": "bad"},
        kind="SPAN_KIND_CONSUMER",
    )
    summary = ingest_lines(store, [line(body)])
    assert summary.inserted == 1, summary.skipped
    row = store.query_arrow(f"SELECT * FROM {store.traces_table}").to_pylist()[0]
    assert row["TraceState"] == "vendor=a"
    assert row["Events.Name"] == ["e"] and row["Events.Attributes"] == [[("k", "true")]]
    assert row["Links.TraceId"] == [f"{2:032x}"] and row["Links.SpanId"] == [f"{3:016x}"]
    assert row["Links.TraceState"] == ["x=y"]
    assert (row["StatusCode"], row["StatusMessage"], row["SpanKind"]) == (
        "Error",
        "bad",
        "Consumer",
    )


def test_map_and_bytes_values_are_stringified_as_the_exporter_does() -> None:
    attributes = [
        {
            "key": "m",
            "value": {
                "kvlistValue": {
                    "values": [
                        {"key": "z", "value": {"doubleValue": 1.5}},
                        {
                            "key": "a",
                            "value": {
                                "arrayValue": {
                                    "values": [{"intValue": "1"}, {}, {"bytesValue": "AAE="}]
                                }
                            },
                        },
                    ]
                }
            },
        },
        {"key": "b", "value": {"bytesValue": "AAE"}},
        {"key": "nan", "value": {"doubleValue": "NaN"}},
        {"key": "nan_in_array", "value": {"arrayValue": {"values": [{"doubleValue": "Infinity"}]}}},
        {"key": "empty", "value": {}},
        {"key": "empty_array", "value": {"arrayValue": {}}},
    ]
    table = spans_to_arrow(line(span(1, attributes=attributes)))
    assert dict(table.column("SpanAttributes").to_pylist()[0]) == {
        "m": '{"a":[1,null,"AAE="],"z":1.5}',
        "b": "AAE=",
        "nan": "NaN",
        "nan_in_array": "",
        "empty": "",
        "empty_array": "[]",
    }


def test_summary_merge_and_describe() -> None:
    total = IngestSummary()
    total.merge(IngestSummary(read=3, inserted=2, duplicates=1, files=1))
    assert total.describe() == "3 spans read: 2 inserted, 1 duplicate"


def test_a_store_failure_surfaces_and_leaves_the_collector_on(store: Store) -> None:
    store.command(f"DROP TABLE {store.traces_table}")
    with pytest.raises(StoreError, match="otel_traces"):
        ingest_lines(store, [line(span(1))])
    assert gc.isenabled()


def test_the_public_api_is_pinned() -> None:
    from ragfunnel.analyzer import ingest

    assert sorted(ingest.__all__) == [
        "DEFAULT_TRACE_DIR",
        "IngestError",
        "IngestSummary",
        "MAX_VALUE_CHARS",
        "Skip",
        "TRACES_ARROW_SCHEMA",
        "expand_paths",
        "ingest_lines",
        "ingest_paths",
        "ingest_spans",
        "native_converter_available",
        "pull_from_jaeger",
        "spans_to_arrow",
    ]


def test_a_grown_file_is_read_on_from_where_the_last_ingest_stopped(
    store: Store, tmp_path: Path
) -> None:
    path = tmp_path / "spans-1.jsonl"
    cut = line(span(3)).encode()
    path.write_bytes((line(span(1)) + "\n" + line(span(2)) + "\n").encode() + cut[:30])
    first = ingest_paths(store, [path])
    assert first.inserted == 2
    assert first.skipped == []
    assert [(n.line, "no newline yet" in n.reason) for n in first.notes] == [(3, True)]
    with path.open("ab") as file:  # the writer finishes its line and goes on
        file.write(cut[30:] + b"\n" + b"not json\n" + line(span(4)).encode() + b"\n")
    second = ingest_paths(store, [path])
    assert (second.read, second.inserted, second.duplicates) == (2, 2, 0)
    assert [str(s) for s in second.skipped] == [
        f"{path}:4: invalid JSON: Expecting value (column 1)"
    ]
    third = ingest_paths(store, [path])
    assert (third.read, third.unchanged) == (0, 1)
    assert count(store) == 4


def test_a_rewritten_or_emptied_file_is_read_again_whole(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "spans.jsonl"
    path.write_text(line(span(1)) + "\n")
    assert ingest_paths(store, [path]).inserted == 1
    path.write_text(line(span(7)) + "\n" + line(span(8)) + "\n")  # same name, other content
    again = ingest_paths(store, [path])
    assert (again.read, again.inserted) == (2, 2)
    store.command(f"TRUNCATE TABLE {store.traces_table}")  # the spans are gone: read again
    restored = ingest_paths(store, [path])
    assert (restored.read, restored.inserted, restored.unchanged) == (2, 2, 0)


def test_compressed_files_are_passed_over_only_when_unchanged(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "spans.jsonl.gz"
    path.write_bytes(gzip.compress((line(span(1)) + "\n").encode()))
    assert ingest_paths(store, [path]).inserted == 1
    assert ingest_paths(store, [path]).unchanged == 1
    path.write_bytes(gzip.compress((line(span(1)) + "\n" + line(span(2)) + "\n").encode()))
    changed = ingest_paths(store, [path])
    assert (changed.read, changed.inserted, changed.duplicates) == (2, 1, 1)


def test_without_an_ingest_log_every_file_is_read_whole(store: Store, tmp_path: Path) -> None:
    store.command(f"CREATE TABLE {store.database}.ragfunnel_ingest_log (x UInt8) ENGINE = Memory")
    path = tmp_path / "spans.jsonl"
    path.write_text(line(span(1)) + "\n")
    first = ingest_paths(store, [path])
    assert first.inserted == 1
    assert "no ingest log kept" in first.notes[0].reason
    assert ingest_paths(store, [path]).duplicates == 1


def test_progress_bar_and_missing_end_times(store: Store, tmp_path: Path) -> None:
    body = span(1)
    del body["endTimeUnixNano"]
    path = tmp_path / "spans.jsonl"
    path.write_text(line(body) + "\n")
    summary = ingest_paths(store, [path], progress=True)
    assert summary.describe() == "1 span read: 1 inserted, 0 duplicates; 1 repaired"
    assert summary.notes[0].reason.endswith("no end time, Duration set to 0")


def test_small_files_share_an_insert_whatever_their_resources_and_scopes(
    store: Store, tmp_path: Path
) -> None:
    # One service with two resources, one scope name with two versions: the chunk the files
    # share must still give each dictionary column distinct values.
    for number, (version, host) in enumerate([("1", "a"), ("2", "b"), ("1", "b")]):
        document = json.loads(line(span(number + 1, trace=number + 1)))
        resource = document["resourceSpans"][0]
        resource["resource"]["attributes"].append({"key": "host", "value": {"stringValue": host}})
        resource["scopeSpans"][0]["scope"]["version"] = version
        (tmp_path / f"spans-{number}.jsonl").write_text(json.dumps(document) + "\n")
    summary = ingest_paths(store, [tmp_path])
    assert (summary.inserted, summary.skipped, summary.files) == (3, [], 3)
    rows = store.query_arrow(
        f"SELECT ServiceName, ScopeVersion FROM {store.traces_table} ORDER BY SpanId"
    ).to_pylist()
    assert [(r["ServiceName"], r["ScopeVersion"]) for r in rows] == [
        ("svc", "1"),
        ("svc", "2"),
        ("svc", "1"),
    ]
