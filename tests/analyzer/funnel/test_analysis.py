"""``analyze`` itself (``analysis.py``): its options."""

from __future__ import annotations

from ragfunnel.analyzer.cases import Case, parse_evidence
from ragfunnel.analyzer.store import Store
from tests.support.decisions import A_ID, B_ID, RIGHT, Q, case, run
from tests.support.traces import TraceBuilder


def test_question_filter_returns_one_cases_records(store: Store, b: TraceBuilder) -> None:
    for qid in ("q-017", "q-018"):
        with b.question(qid, Q if qid == "q-017" else "Other?") as q:
            q.retrieve([A_ID, B_ID])
            q.generate([A_ID, B_ID], RIGHT)
    other = Case("q-018", "Other?", parse_evidence([A_ID]))
    result = run(store, b, case(), other, question="q-018")
    assert result.records.get_column("question_id").to_list() == ["q-018"]
    assert result.cases_without_trace == ()
