"""The judges' tables (judges/tables.py): written after the store's revisions, read never creating."""

from __future__ import annotations

from ragfunnel.analyzer.judges import AnswerVerdict, ClaimVerdict, tables
from ragfunnel.analyzer.judges.run.verdict_row import verdict_row
from ragfunnel.analyzer.store import Store


def test_reading_an_unjudged_store_creates_nothing(store: Store) -> None:
    frame = tables.read_verdicts(store)
    assert frame.height == 0
    assert {"TraceId", "QuestionKey", "Judge", "Faithfulness", "ClaimLabels"} <= set(frame.columns)
    assert not tables.table_exists(store, tables.VERDICTS_TABLE)
    assert not tables.table_exists(store, tables.CACHE_TABLE)


def test_ensure_tables_makes_both_and_reads_filter_by_run(store: Store) -> None:
    tables.ensure_tables(store)
    tables.ensure_tables(store)  # again: nothing pending
    assert tables.table_exists(store, tables.VERDICTS_TABLE)
    assert tables.table_exists(store, tables.CACHE_TABLE)
    assert not tables.table_exists(store, "no_such_table")
    assert tables.read_verdicts(store, runs=["run-1"]).height == 0
    verdict = AnswerVerdict((ClaimVerdict("Ein Taxi ist erlaubt", "supported"),), judge="offline")
    rows = [
        verdict_row(
            {
                "trace_id": f"t{n}",
                "span_id": "s",
                "question_key": "q",
                "run_id": run,
                "mode": "answer",
                "answer": "Ein Taxi ist erlaubt.",
            },
            verdict,
            policy="offline",
            context_hash="",
        )
        for n, run in enumerate(["run-1", "run-2", "run-2"])
    ]
    tables.insert_verdicts(store, rows)
    assert sorted(tables.read_verdicts(store)["TraceId"]) == ["t0", "t1", "t2"]
    assert sorted(tables.read_verdicts(store, runs=["run-2"])["TraceId"]) == ["t1", "t2"]
    assert tables.read_verdicts(store, runs=("run-1",))["ClaimLabels"].to_list() == [["supported"]]
