"""The judges' verdicts as the funnel reads them (``read/verdicts.py``): the deciding judge per
answer, the claim to quote, the doubts counted, abstentions read as refusals, and no table read
as nothing judged."""

from __future__ import annotations

from typing import Any

import pytest

from ragfunnel.analyzer.funnel.read.verdicts import (
    DECIDING_VERDICT_COLUMNS,
    no_verdicts,
    read_verdicts,
)
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.tables.verdicts import (
    OFFLINE_JUDGE,
    VerdictRow,
    create_verdicts,
    insert_verdicts,
)


def verdict(
    trace: str, judge: str, claims: list[tuple[str, float, str]], **over: Any
) -> VerdictRow:
    """A verdict row of ``(text, verdict, label)`` claims; the rest of the columns plain."""
    row: dict[str, Any] = {
        "TraceId": trace, "SpanId": "s", "QuestionKey": "q-017", "RunId": "run-1",
        "Mode": "pipeline", "Judge": judge, "Policy": "p", "AnswerHash": "a", "ContextHash": "c",
        "Abstained": 0,
        "Faithfulness": sum(v for _, v, _ in claims) / len(claims) if claims else None,
        "Confidence": 0.7, "ClaimTexts": [c[0] for c in claims],
        "ClaimVerdicts": [c[1] for c in claims], "ClaimLabels": [c[2] for c in claims],
        "ClaimSupportingIds": [["a"] if c[1] else [] for c in claims],
        "ClaimMissing": ["" if c[1] == 1 else f"missing in {c[0]}" for c in claims],
        "ClaimConfidences": [None] * len(claims), "Correctness": "", "CorrectnessReason": "",
        "Signals": [], "Sampled": 0,
    }  # fmt: skip
    row.update(over)
    return row  # type: ignore[return-value]


@pytest.fixture
def judged(store: Store) -> Store:
    create_verdicts(store)
    offline = [("4.2.0 needs a reset", 1.0, "supported"), ("in 5 min", 0.5, "partial"),
               ("by anyone", 0.5, "uncertain")]  # fmt: skip
    llm = [("4.2.0 needs a reset", 1.0, "supported"), ("in 5 min", 0.5, "partial"),
           ("by anyone", 0.0, "unsupported")]  # fmt: skip
    insert_verdicts(
        store,
        [
            verdict("t-offline", OFFLINE_JUDGE, offline),
            verdict("t-both", OFFLINE_JUDGE, offline),
            verdict("t-both", "gpt-4o-mini", llm, Correctness="wrong",
                    CorrectnessReason="says 5 min"),
            verdict("t-refused", OFFLINE_JUDGE, [], Abstained=1, Faithfulness=None),
            verdict("t-oracle", OFFLINE_JUDGE, offline, Mode="oracle"),
            verdict("t-other-run", OFFLINE_JUDGE, offline, RunId="run-2"),
        ],
    )  # fmt: skip
    return store


def by_trace(store: Store, runs: Any = ()) -> dict[str, dict[str, Any]]:
    found = read_verdicts(store, runs)
    assert found.schema == no_verdicts().schema
    return {r["trace_id"]: r for r in found.iter_rows(named=True)}


def test_the_strongest_judge_decides_and_oracle_answers_are_left_out(judged: Store) -> None:
    rows = by_trace(judged)
    assert set(rows) == {"t-offline", "t-both", "t-refused", "t-other-run"}
    both = rows["t-both"]
    assert both["faithfulness"] == pytest.approx(0.5)
    assert (both["worst_claim"], both["worst_verdict"]) == ("by anyone", 0.0)
    assert both["worst_missing"] == "missing in by anyone"
    assert both["doubts"] == 0  # an LLM's partial is a verdict, not a doubt
    assert (both["judged_correctness"], both["judged_correctness_reason"]) == (
        "wrong", "says 5 min",
    )  # fmt: skip
    assert [c["judge"] for c in both["claims"]] == ["gpt-4o-mini"] * 3
    assert [c["label"] for c in both["claims"]] == ["supported", "partial", "unsupported"]


def test_the_offline_judges_partial_and_uncertain_claims_are_doubts(judged: Store) -> None:
    offline = by_trace(judged)["t-offline"]
    assert offline["doubts"] == 2
    assert (offline["worst_claim"], offline["worst_verdict"]) == ("in 5 min", 0.5)  # the first
    assert offline["judged_correctness"] is None  # "" is not judged
    assert offline["refused"] is False


def test_an_abstention_is_a_refusal_without_faithfulness(judged: Store) -> None:
    refused = by_trace(judged)["t-refused"]
    assert refused["refused"] is True
    assert (refused["faithfulness"], refused["confidence"]) == (None, None)
    assert refused["claims"] == [] and refused["doubts"] == 0


def test_runs_filter_the_verdicts(judged: Store) -> None:
    assert set(by_trace(judged, ["run-2"])) == {"t-other-run"}
    assert by_trace(judged, ("no-such-run",)) == {}


def test_a_store_without_the_verdicts_table_has_nothing_judged(store: Store) -> None:
    found = read_verdicts(store)
    assert found.is_empty()
    assert dict(found.schema) == DECIDING_VERDICT_COLUMNS
