"""How traces find their case (``read/sql/cases.py``): by id, by the derived id, by question
text, never by an ambiguous text."""

from __future__ import annotations

from ragfunnel.analyzer.cases import CaseSet
from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.store import Store
from tests.support.decisions import A_ID, B_ID, RIGHT, WRONG, Q, case, run
from tests.support.traces import TraceBuilder


def test_traces_match_cases_by_derived_id_and_by_question_text(
    store: Store, b: TraceBuilder
) -> None:
    from ragfunnel.instrumentation.contract import derived_question_id

    with b.question(derived_question_id(Q), Q) as q:  # the decorators' id when none is given
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], RIGHT)
    with b.question("request-81723", "  which FIRMWARE versions need a manual reset ") as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], WRONG)
    with b.question("request-81724", "Something nobody asked for?") as q:
        q.retrieve(["f1"])
    result = run(store, b)
    assert sorted(result.records.get_column("first_failure")) == ["generation", "ok"]
    assert set(result.records.get_column("question_id")) == {"q-017"}
    assert result.unmatched_questions == 1
    assert result.unmatched_examples == ("request-81724",)


def test_ambiguous_question_text_does_not_match(store: Store, b: TraceBuilder) -> None:
    with b.question("request-1", Q) as q:
        q.retrieve([A_ID, B_ID])
    b.into(store)
    twins = CaseSet.of([case(), case(id="q-018")])
    result = analyze(store, twins)
    assert result.records.is_empty() and result.unmatched_questions == 1
    assert result.cases_without_trace == ("q-017", "q-018")
