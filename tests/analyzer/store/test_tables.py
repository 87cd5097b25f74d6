"""Each module of ``store/tables/`` speaks only of its own table: its statements, recorded.

Every read and write a table module offers runs through a :class:`Recorder` on the client, on
a store with something in each table; each statement sent must name the module's table and no
other table the analyzer knows (the stage spans' statements may read ``otel_traces``, which
they are parsed from). A table module this file does not exercise fails the last test.
"""

from __future__ import annotations

import pkgutil
import re
import socket
from collections.abc import Callable

import pytest

from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store import tables as table_modules
from ragfunnel.analyzer.store.tables import (
    ingest_log,
    judge_cache,
    markers,
    stage_spans,
    traces,
    verdicts,
)
from ragfunnel.analyzer.store.tables.ingest_log import FileRecord
from tests.support.recorder import recording
from tests.support.traces import TraceBuilder, spans_to_arrow

ANALYZER_TABLES = {
    "ingest_log": {ingest_log.INGEST_LOG_TABLE},
    "judge_cache": {judge_cache.CACHE_TABLE},
    "markers": {markers.MARKER_TABLE},
    "stage_spans": {stage_spans.STAGE_TABLE, stage_spans.VIEW_NAME},
    "verdicts": {verdicts.VERDICTS_TABLE, verdicts.LEGACY_VERDICTS_TABLE},
}
"""Each analyzer table module's own tables (``traces`` owns the store's traces table)."""


_SYSTEM = re.compile(r"\bFROM system\.\w+ WHERE database = \{db:String\}")


def _names(statement: str, name: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", statement) is not None


def check_only_own(store: Store, module: str, statements: list[str]) -> None:
    own = {store.table} if module == "traces" else ANALYZER_TABLES[module]
    allowed = own | ({store.table} if module == "stage_spans" else set())
    others = {n for names in ANALYZER_TABLES.values() for n in names} | {store.table}
    assert statements, f"{module}: nothing was recorded"
    for statement in statements:
        # A look at the engine's catalogue (the table's columns, from ``schema``) names the
        # table as a bound value only.
        if not _SYSTEM.search(statement):
            assert any(_names(statement, name) for name in own), (module, statement)
        foreign = [n for n in others - allowed if _names(statement, n)]
        assert not foreign, f"{module} names {foreign}: {statement}"


@pytest.fixture
def filled(store: Store) -> Store:
    """A store with spans: a question with retrieve and generate spans, an ingest span."""
    b = TraceBuilder()
    b.ingest("doc", ["d#1"])
    with b.question("q-1", "What?", index_version="v1") as q:
        q.retrieve(["d#1", "d#2"], top_k=2)
        q.generate(["d#1"], "An answer.")
    b.as_collector_into(store)
    return store


def exercise_traces(store: Store) -> None:
    b = TraceBuilder()
    with b.question("q-2", "Why?", run="run-2") as q:
        q.retrieve(["x#1"], top_k=1)
    store.insert_traces(spans_to_arrow(b.spans))
    traces.prepare_traces(store, create=False)
    found = traces.time_range(store)
    assert found is not None
    low, high = found
    trace_ids = [str(t) for t in store.query_df(
        "SELECT DISTINCT TraceId FROM " + store.traces_table).get_column("TraceId")]  # fmt: skip
    assert traces.stored_starts(store, trace_ids)
    assert len(traces.span_starts(store, low, high)) > 0
    traces.chunk_texts(store, trace_ids)
    assert traces.run_settings(store, ["run-1"]).height
    traces.textless_ingests(store, ["v1"])


def exercise_stage_spans(store: Store) -> None:
    stage_spans.create_stage_spans(store)
    table = stage_spans.stage_table(store)
    assert stage_spans.time_range(store) is not None
    assert stage_spans.run_ids(store, table) == ["run-1"]
    assert stage_spans.run_ids(store, table, question_spans=True) == ["run-1"]
    assert stage_spans.generate_answers(store, table, runs=["run-1"]).height == 1
    trace_ids = stage_spans.generate_answers(store, table).get_column("TraceId").to_list()
    assert stage_spans.generate_answers(store, table, traces=trace_ids).height == 1
    assert stage_spans.generate_answers(store, table, traces=["0" * 32]).is_empty()
    assert stage_spans.question_texts(store, table, trace_ids).height == 1


def exercise_markers(store: Store) -> None:
    markers.create_markers(store)
    markers.write_marker(store, "something", 7)
    assert markers.read_markers(store) == {"something": 7}


def exercise_verdicts(store: Store) -> None:
    verdicts.create_legacy_verdicts(store)
    verdicts.create_verdicts(store)
    verdicts.copy_legacy_verdicts(store, present=True)
    row = {
        "TraceId": "t", "SpanId": "s", "QuestionKey": "q", "RunId": "run-1", "Mode": "pipeline",
        "Judge": "offline", "Policy": "p", "AnswerHash": "a", "ContextHash": "c", "Abstained": 0,
        "Faithfulness": 1.0, "Confidence": 0.9, "ClaimTexts": ["x"], "ClaimVerdicts": [1.0],
        "ClaimLabels": [verdicts.SUPPORTED], "ClaimSupportingIds": [["d#1"]], "ClaimMissing": [""],
        "ClaimConfidences": [0.9], "Correctness": "", "CorrectnessReason": "", "Signals": [],
        "Sampled": 0,
    }  # fmt: skip
    verdicts.insert_verdicts(store, [row])  # type: ignore[list-item]
    assert verdicts.read_verdicts(store).height == 1
    assert verdicts.read_verdicts(store, runs=["run-1"]).height == 1
    assert verdicts.deciding_verdict_rows(store, ["run-1"]).height == 1
    legacy = verdicts.LEGACY_VERDICTS_TABLE
    verdicts.create_legacy_verdicts(store)
    assert verdicts.read_verdicts(store, table=legacy).height == 0
    assert verdicts.deciding_verdict_rows(store, table=legacy).height == 0


def exercise_judge_cache(store: Store) -> None:
    judge_cache.create_cache(store)
    judge_cache.insert_cache_rows(store, [("k", "claim", "m", "v1", "{}")])
    assert judge_cache.cache_rows(store, ["m"]) == {"k": "{}"}


def exercise_ingest_log(store: Store) -> None:
    ingest_log.ensure_ingest_log(store)
    record = FileRecord(10, 1, "h", 10, 1, True, 3, 5, 6)
    ingest_log.insert_records(store, socket.gethostname(), [("/spans.jsonl", record)])
    assert ingest_log.latest_records(store, socket.gethostname()) == {"/spans.jsonl": record}


EXERCISES: dict[str, Callable[[Store], None]] = {
    "traces": exercise_traces,
    "stage_spans": exercise_stage_spans,
    "markers": exercise_markers,
    "verdicts": exercise_verdicts,
    "judge_cache": exercise_judge_cache,
    "ingest_log": exercise_ingest_log,
}


@pytest.mark.parametrize("module", sorted(EXERCISES))
def test_a_table_module_names_only_its_table(filled: Store, module: str) -> None:
    with recording(filled) as recorder:
        EXERCISES[module](filled)
    check_only_own(filled, module, recorder.statements)


def test_the_check_fails_on_a_statement_about_another_table(filled: Store) -> None:
    with recording(filled) as recorder:
        judge_cache.create_cache(filled)
        verdicts.create_verdicts(filled)
    with pytest.raises(AssertionError, match="judge_cache"):
        check_only_own(filled, "judge_cache", recorder.statements)


def test_every_table_module_is_exercised() -> None:
    found = {m.name for m in pkgutil.iter_modules(table_modules.__path__)}
    assert found == set(EXERCISES)
