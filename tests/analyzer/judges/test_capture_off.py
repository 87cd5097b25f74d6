"""Capture off, said once: the diagnosis counts the answers recorded without text and gives the
one-line fix (``ragfunnel judge`` says the same, per answer: test_every_app.py)."""

from __future__ import annotations

from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.funnel.records.answer_checks import CAPTURE_FIX
from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.judges.answers import ANSWER_TEXT_FIX
from ragfunnel.analyzer.judges.run.batch import judge_store
from ragfunnel.analyzer.report.build import _without_text
from ragfunnel.analyzer.report.findings import diagnosis_text
from ragfunnel.analyzer.store import Store
from ragfunnel.testing import capture_spans
from tests.support.judge_pipeline import BOTH, CASES, WORKED_RANKING, ask


def test_the_diagnosis_names_the_answers_without_text_and_the_fix(store: Store) -> None:
    with capture_spans(capture_content=False, run_id="off") as spans:
        ask("hotel-taxi", "Was gilt für Hotel und Taxi?", WORKED_RANKING, BOTH)
        ask("hotel-taxi-facts", "Hotel und Taxi, kurz?", WORKED_RANKING, BOTH)
    ingest_spans(store, spans.spans)
    records = analyze(store, CASES).records
    assert set(records.get_column("first_failure").cast(str)) == {"unjudged"}
    without = _without_text(records)
    assert without == 2
    text = diagnosis_text(questions=2, findings=[], unjudged=2, without_text=without)
    assert text == (
        "Of 2 questions, 0 were answered wrongly or incompletely. 2 were recorded without "
        f"answer text, so nothing could judge them: {CAPTURE_FIX}."
    )
    assert "capture_content=True" in CAPTURE_FIX
    # The judge says how many, and the same fix.
    run = judge_store(store, cases=CASES)
    assert (run.answers, run.judged, run.without_answer_text) == (2, 0, 2)
    assert (run.failure or "").startswith("judged none of the 2 answers: 2 without answer text")
    assert all(note.endswith(ANSWER_TEXT_FIX) for note in run.not_judged)
