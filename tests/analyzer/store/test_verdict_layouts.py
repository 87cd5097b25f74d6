"""The verdicts table's two layouts: a store judged before claim confidences is read, then migrated.

Revision 2 created ``ragfunnel_verdicts_v1`` (no confidences); revision 3 copies its rows into
``ragfunnel_verdicts_v2`` and drops it. A store nobody migrated (a read-only server, say) is read
in its old layout, each answer's confidence being its faithfulness (a claim without a confidence
counts its verdict), and a store judged afresh stores the judge's own confidences.
"""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.export import verdict_attributes
from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.judges import OfflineJudge, tables
from ragfunnel.analyzer.judges.people.review import review_sheet
from ragfunnel.analyzer.judges.run.batch import judge_store
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.inventory import inventory
from ragfunnel.analyzer.store.migrations import CURRENT_REVISION, REVISIONS, migrate
from ragfunnel.analyzer.store.schema import read_schema, table_columns
from ragfunnel.analyzer.store.tables.verdicts import (
    ADDED_IN_V2,
    LEGACY_VERDICTS_TABLE,
    VERDICT_COLUMNS,
    VERDICTS_TABLE,
    create_verdicts,
    insert_verdicts,
)
from ragfunnel.testing import capture_spans
from tests.support.judge_pipeline import ANY_TIME, BOTH, CASES, WORKED_RANKING, ask


def _asked(store: Store) -> None:
    with capture_spans(capture_content=True, run_id="r1") as spans:
        ask("hotel-taxi", "Was gilt für Hotel und Taxi?", WORKED_RANKING, ANY_TIME)
        ask("hotel-taxi-facts", "Hotel und Taxi, kurz?", WORKED_RANKING, BOTH)
    ingest_spans(store, spans.spans)


def _judged_with_the_old_layout(store: Store) -> None:
    """What an older ragfunnel left: revisions 1 and 2 applied, verdicts in the old table."""
    migrate(store, revisions=REVISIONS[:2])
    rows = judge_store(store, write=False).rows
    create_verdicts(store)
    insert_verdicts(store, rows)
    legacy = ", ".join(f"`{n}`" for n, _ in VERDICT_COLUMNS if n not in ADDED_IN_V2)
    current, old = (
        quote(store.database, VERDICTS_TABLE),
        quote(store.database, LEGACY_VERDICTS_TABLE),
    )
    store.command(f"INSERT INTO {old} ({legacy}) SELECT {legacy} FROM {current}")
    store.command(f"DROP TABLE {current}")


RELEASED_V1 = {
    "TraceId": "String", "SpanId": "String", "QuestionKey": "String",
    "RunId": "LowCardinality(String)", "Mode": "LowCardinality(String)",
    "Judge": "LowCardinality(String)", "Policy": "LowCardinality(String)",
    "AnswerHash": "String", "ContextHash": "String", "Abstained": "UInt8",
    "Faithfulness": "Nullable(Float64)", "ClaimTexts": "Array(String)",
    "ClaimVerdicts": "Array(Float64)", "ClaimLabels": "Array(String)",
    "ClaimSupportingIds": "Array(Array(String))", "ClaimMissing": "Array(String)",
    "Correctness": "LowCardinality(String)", "CorrectnessReason": "String",
    "Signals": "Array(String)", "Sampled": "UInt8", "JudgedAt": "DateTime64(3)",
}  # fmt: skip
"""``ragfunnel_verdicts_v1`` as revision 2 released it (64ec22f), which stores in use hold."""


def _by_question(store: Store) -> dict[str, dict[str, object]]:
    return {r["question_id"]: r for r in analyze(store, CASES).records.iter_rows(named=True)}


def test_an_old_store_is_read_then_migrated_with_every_verdict(store: Store) -> None:
    _asked(store)
    _judged_with_the_old_layout(store)
    schema = read_schema(store)
    assert schema.revision == 2 and schema.verdicts_table == LEGACY_VERDICTS_TABLE
    assert table_columns(store, LEGACY_VERDICTS_TABLE) == RELEASED_V1

    # Read as it is: each answer's confidence is its faithfulness (no claim confidence known).
    old = _by_question(store)
    assert old["hotel-taxi"]["faithfulness"] == 0.5
    assert old["hotel-taxi"]["confidence"] == 0.5
    assert old["hotel-taxi-facts"]["confidence"] == old["hotel-taxi-facts"]["faithfulness"] == 1.0
    rows = {r["QuestionKey"]: r for r in tables.read_verdicts(store).iter_rows(named=True)}
    assert rows["hotel-taxi"]["Confidence"] == 0.5
    assert rows["hotel-taxi"]["ClaimConfidences"] == [None, None]
    assert [c for c, _ in VERDICT_COLUMNS] == list(tables.read_verdicts(store).columns)
    assert len(review_sheet(store, n=5, week="2026-W49")) == 2
    event = verdict_attributes(rows["hotel-taxi"])
    assert event["ragfunnel.evaluation.confidence"] == 0.5
    assert event["ragfunnel.evaluation.claims.confidence"] == [1.0, 0.0]  # the verdicts
    listed = inventory(store).object(LEGACY_VERDICTS_TABLE)
    assert listed is not None and listed.rows == 2 and "store migrate copies" in listed.role

    # A copy that did not finish (the current table holds one copied row, no marker yet): the
    # old table is read, and the copy run again leaves one row per verdict.
    create_verdicts(store)
    names = ", ".join(f"`{n}`" for n, _ in VERDICT_COLUMNS)
    values = ", ".join(ADDED_IN_V2.get(n, f"`{n}`") for n, _ in VERDICT_COLUMNS)
    current, old_table = (
        quote(store.database, VERDICTS_TABLE),
        quote(store.database, LEGACY_VERDICTS_TABLE),
    )
    store.command(
        f"INSERT INTO {current} ({names}) SELECT {values} FROM {old_table} "
        "WHERE QuestionKey = 'hotel-taxi'"
    )
    assert read_schema(store).verdicts_table == LEGACY_VERDICTS_TABLE
    assert _by_question(store)["hotel-taxi"]["confidence"] == 0.5

    done = migrate(store)
    assert [r.number for r in done.applied] == [3] and done.after == CURRENT_REVISION
    schema = read_schema(store)
    assert schema.verdicts_table == VERDICTS_TABLE and not schema.has(LEGACY_VERDICTS_TABLE)
    after = tables.read_verdicts(store)
    assert after.height == len(rows)
    copied = {r["QuestionKey"]: r for r in after.iter_rows(named=True)}
    assert copied.keys() == rows.keys()
    for key, row in rows.items():
        assert {**copied[key], "JudgedAt": None} == {**row, "JudgedAt": None}
    assert _by_question(store)["hotel-taxi"]["confidence"] == 0.5

    # Judged again: the judge's own confidences are stored, and the records carry their mean.
    judge_store(store)
    fresh = {r["QuestionKey"]: r for r in tables.read_verdicts(store).iter_rows(named=True)}
    verdict = OfflineJudge().judge(ANY_TIME, _prompt(store))
    claims = fresh["hotel-taxi"]["ClaimConfidences"]
    assert claims == pytest.approx([c.confidence for c in verdict.claims])
    assert fresh["hotel-taxi"]["Confidence"] == pytest.approx(verdict.confidence)
    event = verdict_attributes(fresh["hotel-taxi"])
    assert event["ragfunnel.evaluation.claims.confidence"] == pytest.approx(claims)
    assert event["ragfunnel.evaluation.confidence"] == pytest.approx(verdict.confidence)
    record = _by_question(store)["hotel-taxi"]
    assert record["faithfulness"] == 0.5
    assert record["confidence"] == pytest.approx(verdict.confidence)
    assert record["confidence"] != pytest.approx(0.5)


def _prompt(store: Store) -> list[tuple[str, str]]:
    (row,) = [
        r for r in review_sheet(store, n=5, week="2026-W49") if r["question_id"] == "hotel-taxi"
    ]
    return [(c["id"], c["text"]) for c in row["context"]]


def test_an_abstention_has_no_confidence(store: Store) -> None:
    with capture_spans(capture_content=True, run_id="r1") as spans:
        ask(
            "mileage",
            "Wie hoch ist die Kilometerpauschale?",
            WORKED_RANKING,
            "Dazu habe ich keine Informationen.",
        )
    ingest_spans(store, spans.spans)
    (row,) = judge_store(store).rows
    assert row["Abstained"] == 1 and row["Confidence"] is None and row["ClaimConfidences"] == []
    (record,) = analyze(store, CASES).records.iter_rows(named=True)
    assert record["confidence"] is None and record["faithfulness"] is None
