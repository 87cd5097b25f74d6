from __future__ import annotations

from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.judges.answers import read_answers
from ragfunnel.analyzer.store import Store
from ragfunnel.testing import capture_spans
from tests.support.judge_pipeline import ANY_TIME, BOTH, WORKED_RANKING, ask


def test_answers_come_with_their_context_and_samples(store: Store) -> None:
    with capture_spans(capture_content=True, run_id="r1") as spans:
        ask("hotel-taxi", "Was gilt für Hotel und Taxi?", WORKED_RANKING, ANY_TIME, samples=[BOTH])
    with capture_spans(run_id="r2") as hidden:
        ask("hotel-taxi", "Was gilt für Hotel und Taxi?", WORKED_RANKING, BOTH)
    ingest_spans(store, spans.spans + hidden.spans)
    answers = read_answers(store)
    assert answers.height == 2
    first = answers.filter(answers["run_id"] == "r1").row(0, named=True)
    assert first["answer"] == ANY_TIME  # sample 0 is the answer, sample 1 a signal
    assert first["sample_answers"] == [BOTH]
    assert first["context_ids"] == ["access-rights", "hotel-allowance", "taxi"]
    assert first["context_texts"][1] == "Die Hotelpauschale beträgt 120 EUR pro Nacht."
    assert first["question"] == "Was gilt für Hotel und Taxi?"
    assert first["model"] == "generator-model"
    assert first["has_answer"] and first["has_context"]
    second = read_answers(store, runs=["r2"]).row(0, named=True)
    assert not second["has_answer"] and not second["has_context"]  # content capture off
    assert read_answers(store, runs=["nope"]).is_empty()
