"""``store/tables/verdicts.py``: the verdict row, which verdict decides, the two layouts' reads."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.schema import read_schema, table_columns
from ragfunnel.analyzer.store.tables.verdicts import (
    DECIDING_FIELDS,
    DECIDING_ORDER,
    LEGACY_VERDICTS_TABLE,
    VERDICT_COLUMNS,
    VERDICTS_TABLE,
    VerdictRow,
    copy_legacy_verdicts,
    create_legacy_verdicts,
    create_verdicts,
    deciding_rows,
    deciding_verdict_rows,
    insert_verdicts,
    read_verdicts,
)
from tests.support.recorder import recording


def row(**given: Any) -> VerdictRow:
    """A whole verdict row: one supported claim of confidence 0.8, by the offline judge."""
    made: dict[str, Any] = {
        "TraceId": "t", "SpanId": "s", "QuestionKey": "q", "RunId": "run-1", "Mode": "pipeline",
        "Judge": "offline", "Policy": "p", "AnswerHash": "a", "ContextHash": "c", "Abstained": 0,
        "Faithfulness": 1.0, "Confidence": 0.8, "ClaimTexts": ["x"], "ClaimVerdicts": [1.0],
        "ClaimLabels": ["supported"], "ClaimSupportingIds": [["d#1"]], "ClaimMissing": [""],
        "ClaimConfidences": [0.8], "Correctness": "", "CorrectnessReason": "", "Signals": [],
        "Sampled": 0,
    }  # fmt: skip
    made.update(given)
    return made  # type: ignore[return-value]


def test_one_rule_decides_among_an_answers_verdicts() -> None:
    """Issue 33: the rule was written in SQL, in batch.py and in review.py."""
    early, late = datetime(2026, 1, 1), datetime(2026, 1, 2)
    rows = [
        {"TraceId": "t", "QuestionKey": "q", "Judge": "llm:a", "JudgedAt": early},
        {"TraceId": "t", "QuestionKey": "q", "Judge": "offline", "JudgedAt": late},
        {"TraceId": "t", "QuestionKey": "q", "Judge": "llm:b", "JudgedAt": late},
        {"TraceId": "u", "QuestionKey": "q", "Judge": "offline", "JudgedAt": None},
    ]
    assert [r["Judge"] for r in deciding_rows(rows)] == ["llm:b", "offline"]
    assert [r["Judge"] for r in deciding_rows(rows[:2])] == ["llm:a"]
    assert "Judge != 'offline'" in DECIDING_ORDER and "JudgedAt" in DECIDING_ORDER


def test_the_table_has_the_row_s_columns_in_order(store: Store) -> None:
    assert [n for n, _ in VERDICT_COLUMNS] == list(VerdictRow.__annotations__)
    create_verdicts(store)
    assert list(table_columns(store, VERDICTS_TABLE).items()) == list(VERDICT_COLUMNS)


def test_a_row_is_written_and_read_back_whole(store: Store) -> None:
    create_verdicts(store)
    written = row(ClaimConfidences=[None], Signals=["sampled-out"])
    insert_verdicts(store, [written])
    [read] = read_verdicts(store).to_dicts()
    judged_at = read.pop("JudgedAt")
    assert read == written
    assert isinstance(judged_at, datetime)  # set by the insert


def test_a_row_lacking_a_column_is_refused_naming_it(store: Store) -> None:
    create_verdicts(store)
    lacking = dict(row())
    del lacking["Confidence"], lacking["Signals"]
    with pytest.raises(KeyError, match=r"verdict row 1 lacks column\(s\) Confidence, Signals"):
        insert_verdicts(store, [row(), lacking])  # type: ignore[list-item]
    assert read_verdicts(store).is_empty()  # nothing of the block was written


def test_no_rows_and_no_table_ask_nothing(store: Store) -> None:
    with recording(store) as recorder:
        insert_verdicts(store, [])
        empty = read_verdicts(store, table=None)
    assert recorder.statements == []
    assert empty.is_empty() and empty.columns == [n for n, _ in VERDICT_COLUMNS]


def test_a_verdict_written_again_replaces_the_old_and_runs_filter(store: Store) -> None:
    create_verdicts(store)
    insert_verdicts(store, [row(Faithfulness=0.0, JudgedAt=datetime(2026, 1, 1))])
    insert_verdicts(store, [row(Faithfulness=1.0, JudgedAt=datetime(2026, 1, 2))])
    insert_verdicts(store, [row(TraceId="u", RunId="run-2")])
    assert read_verdicts(store).height == 2
    [latest] = read_verdicts(store, runs=["run-1"]).to_dicts()
    assert latest["Faithfulness"] == 1.0
    assert read_verdicts(store, runs=("run-2", "run-3")).get_column("TraceId").to_list() == ["u"]


def test_the_deciding_verdict_of_each_pipeline_answer(store: Store) -> None:
    create_verdicts(store)
    insert_verdicts(
        store,
        [
            row(Judge="llm:m", Faithfulness=0.0, JudgedAt=datetime(2026, 1, 1)),
            row(Judge="offline", Faithfulness=1.0, JudgedAt=datetime(2026, 1, 2)),
            row(TraceId="u", Judge="offline", Faithfulness=0.5, RunId="run-2"),
            row(TraceId="w", Mode="closed_book", Judge="llm:m"),  # not the pipeline's answer
        ],
    )
    found = {r["TraceId"]: r["v"] for r in deciding_verdict_rows(store).to_dicts()}
    assert set(found) == {"t", "u"}
    decided = dict(zip([n for n, _ in DECIDING_FIELDS], found["t"].values(), strict=True))
    assert (decided["Judge"], decided["Faithfulness"]) == ("llm:m", 0.0)  # the stronger judge
    assert (decided["Confidence"], decided["ClaimLabels"]) == (0.8, ["supported"])
    only = deciding_verdict_rows(store, ["run-2"]).get_column("TraceId").to_list()
    assert only == ["u"]


def _legacy(store: Store, *rows: VerdictRow) -> None:
    """Rows as an older ragfunnel wrote them: the old layout, without confidences."""
    create_legacy_verdicts(store)
    create_verdicts(store)
    insert_verdicts(store, list(rows))
    kept = [n for n, _ in VERDICT_COLUMNS if n not in ("Confidence", "ClaimConfidences")]
    names = ", ".join(f"`{n}`" for n in kept)
    current = quote(store.database, VERDICTS_TABLE)
    old = quote(store.database, LEGACY_VERDICTS_TABLE)
    store.command(f"INSERT INTO {old} ({names}) SELECT {names} FROM {current}")
    store.command(f"TRUNCATE TABLE {current}")


def test_the_old_layout_is_read_with_the_confidences_it_lacks(store: Store) -> None:
    abstained = row(
        TraceId="u", Abstained=1, Faithfulness=None, ClaimTexts=[], ClaimVerdicts=[],
        ClaimLabels=[], ClaimSupportingIds=[], ClaimMissing=[], ClaimConfidences=[],
    )  # fmt: skip
    _legacy(store, row(Faithfulness=0.5), abstained)
    read = {r["TraceId"]: r for r in read_verdicts(store, table=LEGACY_VERDICTS_TABLE).to_dicts()}
    assert (read["t"]["Confidence"], read["t"]["ClaimConfidences"]) == (0.5, [None])
    assert (read["u"]["Confidence"], read["u"]["ClaimConfidences"]) == (None, [])
    assert deciding_verdict_rows(store, table=LEGACY_VERDICTS_TABLE).height == 2


def test_copying_the_old_layout_moves_every_row_once_then_drops_it(store: Store) -> None:
    _legacy(store, row(), row(TraceId="u"))
    expected = read_verdicts(store, table=LEGACY_VERDICTS_TABLE).sort("TraceId")
    copy_legacy_verdicts(store, present=True)
    assert not read_schema(store).has(LEGACY_VERDICTS_TABLE)
    assert read_verdicts(store).sort("TraceId").equals(expected)
    with recording(store) as recorder:
        copy_legacy_verdicts(store, present=False)  # nothing left to copy: nothing sent
    assert recorder.statements == []
