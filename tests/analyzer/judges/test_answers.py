from __future__ import annotations

from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.judges.answers import read_answers
from ragfunnel.analyzer.store import Store
from ragfunnel.testing import capture_spans
from tests.support.judge_pipeline import ANY_TIME, BOTH, CHUNKS, WORKED_RANKING, ask


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


def test_a_chunk_file_fills_the_texts_spans_did_not_record(store: Store) -> None:
    with capture_spans(capture_content=("question", "answer"), run_id="r1") as spans:
        ask("q-1", "Was gilt für Hotel und Taxi?", WORKED_RANKING, BOTH)
        ask("q-2", "Und für das Taxi?", WORKED_RANKING, ANY_TIME)
    ingest_spans(store, spans.spans)
    bare = read_answers(store).sort("question_key").row(0, named=True)
    assert bare["has_answer"] and not bare["has_context"]
    assert bare["missing_texts"] == ["access-rights", "hotel-allowance", "taxi"]
    assert bare["filled_texts"] == []
    some = {"hotel-allowance": CHUNKS["hotel-allowance"], "taxi": CHUNKS["taxi"]}
    part = read_answers(store, runs=("r1",), chunk_texts=some).sort("question_key")
    assert part["missing_texts"].to_list() == [["access-rights"]] * 2
    assert part["filled_texts"].to_list() == [["hotel-allowance", "taxi"]] * 2
    full = read_answers(store, chunk_texts=CHUNKS).sort("question_key")
    assert full["has_context"].to_list() == [True, True]
    assert full["context_texts"][0].to_list()[2] == CHUNKS["taxi"]
    (trace,) = full.filter(full["question_key"] == "q-2")["trace_id"]
    only = read_answers(store, traces=[trace], chunk_texts=CHUNKS)
    assert only["question_key"].to_list() == ["q-2"]
    assert only["answer"].to_list() == [ANY_TIME]
