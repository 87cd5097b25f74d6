"""A killed ingest repairs itself: traces, stage rows and ingest log agree after any re-ingest.

An insert and its stage view's insert commit separately. These tests leave a store the way a
SIGKILL does — for real (a child process killed at several moments), and deterministically
(only one of the two tables holding a chunk) — then ingest again and compare every table.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ragfunnel.analyzer.cli.store import info_text
from ragfunnel.analyzer.ingest import ingest_paths
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.inventory import inventory
from ragfunnel.analyzer.store.migrations import INGEST_LOG_TABLE, migrate
from ragfunnel.analyzer.store.tables.stage_spans import STAGE_TABLE, VIEW_NAME, stage_table
from ragfunnel.analyzer.store.tables.stage_spans.repair import check_stage, repair_stage

T0 = 1_800_000_000_000_000_000
STAGES = ("retrieve", "rerank", "cut", "generate")


def question(number: int) -> list[dict[str, Any]]:
    """A question's root and four stage spans (five spans), as the decorators record them."""
    trace = f"{number + 1:032x}"
    root = f"{(number << 4) + 1:016x}"
    start = T0 + number * 1_000_000_000
    common = [
        {"key": "ragfunnel.question.id", "value": {"stringValue": f"q{number}"}},
        {"key": "ragfunnel.run.id", "value": {"stringValue": "run-1"}},
        {"key": "ragfunnel.schema.version", "value": {"stringValue": "1"}},
    ]
    ids = {"arrayValue": {"values": [{"stringValue": f"doc-{number}-{i}"} for i in range(3)]}}

    def one(span_id: str, stage: str, offset: int, parent: str | None) -> dict[str, Any]:
        span: dict[str, Any] = {
            "traceId": trace,
            "spanId": span_id,
            "name": stage,
            "kind": 1,
            "startTimeUnixNano": str(start + offset),
            "endTimeUnixNano": str(start + offset + 500),
            "attributes": [
                {"key": "ragfunnel.stage", "value": {"stringValue": stage}},
                *common,
                {"key": "ragfunnel.documents.ids", "value": ids},
            ],
        }
        if parent:
            span["parentSpanId"] = parent
        return span

    spans = [one(root, "question", 0, None)]
    spans += [
        one(f"{(number << 4) + 2 + i:016x}", stage, 1000 * (i + 1), root)
        for i, stage in enumerate(STAGES)
    ]
    return spans


def write_file(path: Path, first: int, questions: int, per_line: int = 20) -> int:
    """``questions`` questions from number ``first``, ``per_line`` spans a line; returns spans."""
    spans = [s for n in range(first, first + questions) for s in question(n)]
    with path.open("w") as out:
        for at in range(0, len(spans), per_line):
            document = {
                "resourceSpans": [
                    {
                        "resource": {
                            "attributes": [{"key": "service.name", "value": {"stringValue": "rag"}}]
                        },
                        "scopeSpans": [
                            {"scope": {"name": "ragfunnel"}, "spans": spans[at : at + per_line]}
                        ],
                    }
                ]
            }
            out.write(json.dumps(document, separators=(",", ":")) + "\n")
    return len(spans)


def value(store: Store, sql: str) -> int:
    found = store.command(sql)
    assert isinstance(found, int)
    return found


def assert_all_agree(store: Store, folder: Path, spans: int) -> None:
    """Every span once in otel_traces, every stage span once in the stage table, log complete."""
    traces, stage = store.traces_table, stage_table(store)
    assert value(store, f"SELECT count() FROM {traces}") == spans
    assert value(store, f"SELECT uniqExact(TraceId, SpanId) FROM {traces}") == spans
    assert value(store, f"SELECT count() FROM {stage}") == spans
    assert value(store, f"SELECT uniqExact(TraceId, SpanId) FROM {stage}") == spans
    questions = value(store, f"SELECT uniqExact(QuestionKey) FROM {stage}")
    assert questions == spans // 5
    check = check_stage(store)
    assert check is not None and check.consistent, check
    log = store.query_arrow(
        f"SELECT Path, argMax(Spans, RecordedAt) AS spans, argMax(Offset, RecordedAt) AS offset "
        f"FROM {store.database}.{INGEST_LOG_TABLE} GROUP BY Path"
    ).to_pylist()
    files = {str(p.resolve()): p.stat().st_size for p in folder.iterdir()}
    assert {row["Path"]: row["offset"] for row in log} == files
    assert sum(row["spans"] for row in log) == spans


@pytest.fixture
def folder(tmp_path: Path) -> tuple[Path, int]:
    traces = tmp_path / "traces"
    traces.mkdir()
    spans = write_file(traces / "a.jsonl", 0, 300)
    spans += write_file(traces / "b.jsonl", 300, 300)
    return traces, spans


# The child ingests with small chunks and prints a marker at each step the parent kills after.
CHILD = """
import sys
from ragfunnel.analyzer.ingest import chunking, ingest_paths
from ragfunnel.analyzer.ingest.ingest_log import IngestLog
from ragfunnel.analyzer.store import Store

chunking.CHUNK_SPANS = 400
insert, record = Store.insert_traces, IngestLog.record_many

def marked_insert(self, *args, **kwargs):
    print("insert", flush=True)
    insert(self, *args, **kwargs)
    print("inserted", flush=True)

def marked_record(self, records):
    record(self, records)
    if records:
        print("recorded", flush=True)

Store.insert_traces, IngestLog.record_many = marked_insert, marked_record
with Store.open("chdb://" + sys.argv[1], create=True) as store:
    ingest_paths(store, [sys.argv[2]])
print("done", flush=True)
"""


def killed_ingest(store_path: Path, folder: Path, marker: str, nth: int, delay: float) -> bool:
    """Run an ingest in a child and SIGKILL it at the ``nth`` ``marker``; False if it ended first."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, str(store_path), str(folder)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    ) as child:
        assert child.stdout is not None
        seen = 0
        for line in child.stdout:
            if line.strip() == marker:
                seen += 1
                if seen == nth:
                    time.sleep(delay)
                    child.send_signal(signal.SIGKILL)
                    break
        child.wait(timeout=120)
    return child.returncode == -signal.SIGKILL


@pytest.mark.parametrize(
    "kills",
    [
        # as the first insert starts; during the third; after an insert, before its log
        # record; after the first file was recorded, in the middle of the second
        [("insert", 1, 0.0), ("insert", 3, 0.02), ("inserted", 2, 0.0), ("recorded", 1, 0.0)],
    ],
)
def test_any_number_of_kills_then_one_ingest_leaves_every_table_in_step(
    tmp_path: Path, folder: tuple[Path, int], kills: list[tuple[str, int, float]]
) -> None:
    traces, spans = folder
    store_path = tmp_path / "store"
    killed = [killed_ingest(store_path, traces, *kill) for kill in kills]
    assert any(killed), "no child was killed: the kill points no longer match the ingest"
    with Store.open(f"chdb://{store_path}", create=True) as store:
        ingest_paths(store, [traces])
        assert_all_agree(store, traces, spans)
        # And a later ingest finds nothing to add or repair.
        again = ingest_paths(store, [traces], rescan=True)
        assert again.inserted == 0
        assert_all_agree(store, traces, spans)


def forget_ingests(store: Store) -> None:
    """What a kill before the ingest log's write leaves: no record of the files read."""
    store.command(f"TRUNCATE TABLE {store.database}.{INGEST_LOG_TABLE}")


@pytest.fixture(params=[None, 300], ids=["one batch", "batches of 8 ids"])
def id_batches(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """In batches of a few trace ids too: the repair binds a window's ids into its statements
    in batches, as the identity lookup does (a rescan of a million spans took minutes else)."""
    from ragfunnel.analyzer.ingest import writer

    if request.param is not None:
        monkeypatch.setattr(writer, "_ID_BATCH_BYTES", request.param)


def test_spans_the_view_never_saw_are_parsed_by_the_next_ingest(
    store: Store, folder: tuple[Path, int], id_batches: None
) -> None:
    traces, spans = folder
    migrate(store)
    view = f"{store.database}.{VIEW_NAME}"
    # The table's insert committed, its view's did not, and the ingest log was never written.
    store.command(f"DETACH TABLE {view}")
    ingest_paths(store, [traces / "a.jsonl"])
    store.command(f"ATTACH TABLE {view}")
    forget_ingests(store)
    check = check_stage(store)
    assert check is not None and check.missing == spans // 2 and not check.consistent
    summary = ingest_paths(store, [traces])
    assert summary.duplicates == spans // 2
    assert_all_agree(store, traces, spans)


def test_stage_rows_whose_spans_were_not_stored_are_not_doubled(
    store: Store, folder: tuple[Path, int], id_batches: None
) -> None:
    traces, spans = folder
    ingest_paths(store, [traces])
    # The view's insert committed, the table's did not: stage rows without their spans.
    store.command(
        f"DELETE FROM {store.traces_table} WHERE toUInt64(reinterpretAsUInt128(unhex(TraceId))) "
        "% 3 = 0"
    )
    forget_ingests(store)
    check = check_stage(store)
    assert check is not None and check.extra > 0
    ingest_paths(store, [traces])
    assert_all_agree(store, traces, spans)


def test_store_info_flags_a_stage_table_out_of_step_and_migrate_repairs_it(
    store: Store, folder: tuple[Path, int]
) -> None:
    traces, spans = folder
    ingest_paths(store, [traces])
    stage = stage_table(store)
    assert "in step with otel_traces" in info_text(inventory(store), check_stage(store))
    # A stage table missing a third of its rows and holding others twice.
    store.command(f"DELETE FROM {stage} WHERE Bucket % 3 = 0")
    store.command(f"INSERT INTO {stage} SELECT * FROM {stage} WHERE Bucket % 3 = 1")
    text = info_text(inventory(store), check_stage(store))
    assert "out of step" in text and "ragfunnel store migrate" in text
    found = repair_stage(store)
    assert found is not None and found.missing and found.extra
    assert_all_agree(store, traces, spans)
    assert repair_stage(store) == check_stage(store)  # nothing left to do


def test_store_migrate_repairs_from_the_command_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ragfunnel.analyzer.cli import app

    traces = tmp_path / "traces"
    traces.mkdir()
    spans = write_file(traces / "a.jsonl", 0, 40)
    dsn = f"chdb://{tmp_path / 'store'}"
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", str(traces), "--store", dsn]).exit_code == 0
    with Store.open(dsn, create=True) as store:
        store.command(f"TRUNCATE TABLE {stage_table(store)}")
    info = runner.invoke(app, ["store", "info", "--store", dsn])
    assert info.exit_code == 0 and f"{spans:,} missing" in info.output, info.output
    repaired = runner.invoke(app, ["store", "migrate", "--store", dsn])
    assert repaired.exit_code == 0 and "repaired" in repaired.output, repaired.output
    with Store.open(dsn, create=True) as store:
        assert_all_agree(store, traces, spans)
    assert STAGE_TABLE in runner.invoke(app, ["store", "info", "--store", dsn]).output
