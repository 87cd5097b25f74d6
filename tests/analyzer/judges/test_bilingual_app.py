"""A bilingual travel-expense app written from the README, in three prompt shapes: no correct
answer is blamed on generation, and every planted fault lands on its stage (issue 34, Targets).

The app passes its prompt to ``@ragfunnel.generate`` as plain id strings, as ``(id, score)``
pairs, or as dicts with text; the first two record question and answer only and are judged
with ``--chunks``. Answers are written the way LLMs write them: "10 pm" for the fact 22:00,
"€5,000" for 5.000 EUR, "1. März 2025" for 1 March 2025, a German refusal with "leider".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

import ragfunnel
from ragfunnel.analyzer.cases import Case, CaseSet, parse_evidence
from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.store import Store
from ragfunnel.testing import capture_spans
from tests.support.app_outcomes import chunks_file, judged_records

CHUNKS = {
    "tep-en#hotel-cap": "The hotel allowance in London is 150 GBP per night, breakfast included.",
    "tep-en#taxi": "Taxi rides are reimbursed only between 22:00 and 06:00.",
    "tep-en#receipts": "Expenses above 5,000 EUR need the approval of a director.",
    "tep-en#alcohol": "Alcohol is never reimbursed.",
    "tep-de#km": "Für Fahrten mit dem Privatwagen erstatten wir 0,30 EUR pro Kilometer.",
    "tep-de#stichtag": "Die neue Reisekostenrichtlinie gilt ab dem 1. März 2025.",
    "tep-de#hotel": "Die Hotelpauschale in München beträgt 120 EUR pro Nacht.",
}
# question id → (question, gold chunk, facts, a correct answer as an LLM writes it)
QUESTIONS: dict[str, tuple[str, str, tuple[str, ...], str]] = {
    "en-london": ("What is the hotel allowance in London?", "tep-en#hotel-cap", ("150 GBP",),
                  "In London, the hotel allowance is £150 per night, and breakfast is included."),
    "en-taxi": ("When are taxi rides covered?", "tep-en#taxi", ("22:00", "06:00"),
                "Taxi rides are only covered between 10 pm and 6 am."),
    "en-receipts": ("Which expenses need a director's approval?", "tep-en#receipts",
                    ("5.000 EUR",), "Any expense above €5,000 needs a director's approval."),
    "de-km": ("Wie viel gibt es pro Kilometer mit dem Privatwagen?", "tep-de#km", ("0.30 EUR",),
              "Für Fahrten mit dem Privatwagen gibt es 0,30 € pro Kilometer."),
    "de-stichtag": ("Ab wann gilt die neue Richtlinie?", "tep-de#stichtag", ("1 March 2025",),
                    "Die neue Reisekostenrichtlinie gilt ab dem 1. März 2025."),
    "de-hotel": ("Wie hoch ist die Hotelpauschale in München?", "tep-de#hotel", ("120 Euro",),
                 "Die Hotelpauschale in München beträgt 120 Euro pro Nacht."),
}  # fmt: skip
NOISE = ["tep-en#alcohol", "tep-de#hotel", "tep-en#receipts"]


def _ranking(gold: str) -> list[tuple[str, float]]:
    others = [c for c in NOISE if c != gold][:2]
    return [(gold, 0.9), *((c, 0.5 - n / 10) for n, c in enumerate(others))]


SHAPES: dict[str, Callable[[list[tuple[str, float]]], Any]] = {
    "id strings": lambda kept: [cid for cid, _ in kept],
    "pairs": lambda kept: list(kept),
    "dicts": lambda kept: [{"id": cid, "text": CHUNKS[cid], "score": s} for cid, s in kept],
}


@ragfunnel.retrieve(name="bm25+tfidf", fused_from=["bm25", "tfidf"])
def _search(query: str, ranking: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    return list(ranking)


@ragfunnel.cut(k=2, threshold=0.3)
def _gate(documents: list[tuple[str, float]], k: int = 2) -> list[tuple[str, float]]:
    kept = [d for d in documents[:k] if d[1] >= 0.3]
    if not kept:
        ragfunnel.abstain("nothing above the threshold")
    return kept


@ragfunnel.generate(model="llm")
def _generate(question: str, context: Any, reply: str) -> str:
    return reply


@ragfunnel.question(id="question_id")
def _ask(question_id: str, question: str, ranking: list[tuple[str, float]], reply: str,
         shape: str) -> str:  # fmt: skip
    kept = _gate(_search(question, ranking))
    if not kept:
        return "Dazu habe ich leider keine Informationen."
    return _generate(question, SHAPES[shape](kept), reply)


def _cases() -> CaseSet:
    cases = [
        Case(qid, q, parse_evidence({"all_of": [gold]}), facts=facts)
        for qid, (q, gold, facts, _) in QUESTIONS.items()
    ]
    cases.append(Case("de-meal", "Wie hoch ist das Tagegeld in Tokio?", answerable=False))
    cases.append(Case("en-wine", "Is wine reimbursed at client dinners?",
                      parse_evidence({"all_of": ["tep-en#alcohol"]}), facts=("never",)))  # fmt: skip
    return CaseSet.of(cases)


PLANTED: dict[str, tuple[str, str]] = {
    # search: the gold chunk ranked below the cut; the model says it cannot tell.
    "en-london": ("search", "I'm afraid I cannot find the hotel allowance for London."),
    # generation: a changed number in a copied sentence.
    "de-km": ("generation", "Für Fahrten mit dem Privatwagen gibt es 0,50 € pro Kilometer."),
}


def _run(store: Store, shape: str, faulty: bool) -> None:
    capture: object = True if shape == "dicts" else ("question", "answer")
    with capture_spans(capture_content=capture, run_id=f"{shape}-{faulty}") as spans:  # type: ignore[arg-type]
        for qid, (question, gold, _, reply) in QUESTIONS.items():
            ranking = _ranking(gold)
            if faulty and qid in PLANTED:
                stage, wrong = PLANTED[qid]
                if stage == "search":
                    ranking = [(c, s) for c, s in ranking if c != gold] + [(gold, 0.05)]
                reply = wrong
            _ask(qid, question, ranking, reply, shape)
        _ask("de-meal", "Wie hoch ist das Tagegeld in Tokio?", [("tep-de#hotel", 0.1)],
             "unused", shape)  # fmt: skip
        _ask("en-wine", "Is wine reimbursed at client dinners?",
             [("tep-en#alcohol", 0.8), ("tep-de#hotel", 0.4)],
             "No. Alcohol is never reimbursed, so wine at client dinners is not covered either.",
             shape)  # fmt: skip
    ingest_spans(store, spans.spans)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_no_correct_answer_is_blamed_on_generation(
    store: Store, tmp_path: Path, shape: str
) -> None:
    chunks = chunks_file(tmp_path / "chunks.jsonl", CHUNKS)
    _run(store, shape, faulty=False)
    _run(store, shape, faulty=True)
    cases = _cases()
    outcome = judged_records(store, cases, chunks if shape != "dicts" else None)
    for qid in [*QUESTIONS, "de-meal", "en-wine"]:
        clean = outcome[(f"{shape}-False", qid)]
        assert clean["first_failure"] != "generation", (qid, clean["failure_reason"])
        # The wine answer adds an inference ("so wine … is not covered either") the offline
        # judge cannot check: an LLM judge decides it, generation is not blamed.
        allowed = {"ok", "needs_judge"} if qid == "en-wine" else {"ok"}
        assert clean["first_failure"] in allowed, (qid, clean["failure_reason"], clean["claims"])
        faulty = outcome[(f"{shape}-True", qid)]
        expected = {PLANTED[qid][0]} if qid in PLANTED else allowed
        assert faulty["first_failure"] in expected, (qid, faulty["failure_reason"])
