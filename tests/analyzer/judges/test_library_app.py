"""A second bilingual app written from the README alone: a library's lending rules, answers as
LLMs write them, four prompt shapes — no correct answer blamed on generation, every planted
fault on its stage (issue 34, Targets).

Written as a new user would, it found what the travel-expense app did not: a prompt of the
retrieved documents' *texts* (``[d["text"] for d in docs]``) had every question blamed on the
cut; "drei Wochen, also 21 Tage", "von 8:00 bis 22:00 Uhr" (against "von 8 bis 22 Uhr"),
"€0.25 per item per day" and "two times" (fact: "twice") were contradictions or wrong facts;
"The reading room is not open on Sundays" (context: "closed") an inserted negation; and
"Leider habe ich dazu keine Informationen." a claim instead of an abstention; and "even if
another member has reserved the item" (context: "unless …") was judged faithful.
"""

from __future__ import annotations

from collections.abc import Callable
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
    "lib-en#loans": "Members may borrow up to 12 items at a time. The standard loan period is 21 days.",
    "lib-en#renew": "A loan can be renewed twice online, unless another member has reserved the item.",
    "lib-en#fines": "Late returns cost 0.25 EUR per day and item, capped at 10 EUR per item.",
    "lib-en#hours": "The reading room is open from 8 am to 10 pm on weekdays. On Sundays it is closed.",
    "lib-en#wifi": "Guest Wi-Fi requires a library card number; sessions last 4 hours.",
    "lib-de#ausleihe": "Mitglieder dürfen bis zu 12 Medien gleichzeitig ausleihen. Die Leihfrist beträgt 21 Tage.",
    "lib-de#gebuehren": "Verspätete Rückgaben kosten 0,25 € pro Tag und Medium, höchstens 10 € pro Medium.",
    "lib-de#oeffnung": "Der Lesesaal ist werktags von 8 bis 22 Uhr geöffnet. Sonntags bleibt er geschlossen.",
    "lib-de#ausweis": "Der Bibliotheksausweis kostet ab dem 1. März 2026 jährlich 15 Euro.",
}  # fmt: skip
# question id → (question, gold chunk, facts, a correct answer as an LLM writes it)
QUESTIONS: dict[str, tuple[str, str, tuple[str, ...], str]] = {
    "q-items": ("How many items can I borrow?", "lib-en#loans", ("12", "21 days"),
                "Great question! You can borrow up to twelve items at once, and each loan runs for 21 days."),
    "q-hours": ("When is the reading room open?", "lib-en#hours", ("22:00",),
                "The reading room opens at 08:00 and closes at 22:00 on weekdays; it is closed on Sundays."),
    "q-fines": ("What is the late fee?", "lib-en#fines", ("0.25 EUR", "10 EUR"),
                "Late returns are charged €0.25 per item per day, with a maximum of €10 per item."),
    "q-frist": ("Wie lange ist die Leihfrist?", "lib-de#ausleihe", ("21 Tage",),
                "Die Leihfrist beträgt drei Wochen, also 21 Tage."),
    "q-ausweis": ("Was kostet der Ausweis?", "lib-de#ausweis", ("15 EUR",),
                  "Seit dem 1.3.2026 kostet der Ausweis 15 € pro Jahr."),
    "q-offen": ("Wann hat der Lesesaal offen?", "lib-de#oeffnung", ("22 Uhr",),
                "Der Lesesaal ist montags bis freitags von 8:00 bis 22:00 Uhr offen, sonntags geschlossen."),
    "q-renew": ("How often can I renew?", "lib-en#renew", ("twice",),
                "You can renew a loan online two times, as long as nobody else has reserved the item."),
    "q-gebuehr": ("Wie hoch ist die Mahngebühr?", "lib-de#gebuehren", ("0,25 €",),
                  "Die Mahngebühr beträgt 0,25 € pro Tag und Medium, höchstens 10 €."),
    "q-wifi": ("How long is a Wi-Fi session?", "lib-en#wifi", ("4 hours",),
               "Guest Wi-Fi sessions last four hours and need a library card number."),
    "q-sunday": ("Is the reading room open on Sundays?", "lib-en#hours", (),
                 "No. The reading room is not open on Sundays."),
}  # fmt: skip
PLANTED: dict[str, str] = {  # generation faults: each must be blamed on generation
    "q-gebuehr": "Leider habe ich dazu keine Informationen.",
    "q-wifi": "Guest Wi-Fi sessions last 6 hours and need a library card number.",
    "q-renew": "You can renew a loan online twice, even if another member has reserved the item.",
}
NOISE = ["lib-en#wifi", "lib-de#ausweis"]


def _documents(gold: str) -> list[dict[str, Any]]:
    ids = [gold, *(c for c in NOISE if c != gold)][:2]
    return [{"id": i, "text": CHUNKS[i], "score": 0.9 - n / 10} for n, i in enumerate(ids)]


SHAPES: dict[str, Callable[[list[dict[str, Any]]], Any]] = {
    "dicts": lambda docs: docs,
    "texts of the documents": lambda docs: [d["text"] for d in docs],
    "numbered prompt lines": lambda docs: [f"[{n}] {d['text']}" for n, d in enumerate(docs, 1)],
    "id strings": lambda docs: [d["id"] for d in docs],
}


@ragfunnel.ingest(document_id="document")
def _index(document: str, chunks: list[str]) -> list[str]:
    return chunks


@ragfunnel.retrieve(name="kw")
def _search(query: str, gold: str) -> list[dict[str, Any]]:
    return _documents(gold)


@ragfunnel.cut(k=3)
def _gate(documents: list[dict[str, Any]], k: int = 3) -> list[dict[str, Any]]:
    return documents[:k]


@ragfunnel.generate(model="llm")
def _generate(question: str, context: Any, reply: str) -> str:
    return reply


@ragfunnel.question(id="question_id")
def _ask(question_id: str, question: str, gold: str, reply: str, shape: str) -> str:
    return _generate(question, SHAPES[shape](_gate(_search(question, gold))), reply)


def _run(store: Store, shape: str, faulty: bool) -> None:
    capture: bool | tuple[str, ...] = True if shape != "id strings" else ("question", "answer")
    run = f"{shape}-{'faulty' if faulty else 'clean'}"
    with capture_spans(
        capture_content=capture, run_id=run, pipeline={"index_version": "v1"}
    ) as spans:
        for document in sorted({c.split("#")[0] for c in CHUNKS}):
            _index(document, [c for c in CHUNKS if c.startswith(document + "#")])
        for qid, (question, gold, _, reply) in QUESTIONS.items():
            _ask(qid, question, gold, PLANTED.get(qid, reply) if faulty else reply, shape)
    ingest_spans(store, spans.spans)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_correct_answers_pass_and_planted_faults_are_generation(
    store: Store, tmp_path: Path, shape: str
) -> None:
    chunks = chunks_file(tmp_path / "chunks.jsonl", CHUNKS)
    _run(store, shape, faulty=False)
    _run(store, shape, faulty=True)
    cases = CaseSet.of(
        Case(qid, q, parse_evidence(gold), facts=facts)
        for qid, (q, gold, facts, _) in QUESTIONS.items()
    )
    outcome = judged_records(store, cases, chunks if shape == "id strings" else None)
    for qid in QUESTIONS:
        clean = outcome[(f"{shape}-clean", qid)]
        assert clean["first_failure"] == "ok", (qid, clean["failure_reason"], clean["claims"])
        faulty = outcome[(f"{shape}-faulty", qid)]
        expected = "generation" if qid in PLANTED else "ok"
        assert faulty["first_failure"] == expected, (qid, faulty["failure_reason"])
    refusal = outcome[(f"{shape}-faulty", "q-gebuehr")]
    assert refusal["failure_reason"] == "abstained although the evidence was in the prompt"
    assert refusal["answer_verdict"] == "abstained"
    assert outcome[(f"{shape}-faulty", "q-wifi")]["failure_reason"].startswith(
        "unsupported claim: 'Guest Wi-Fi sessions last 6 hours"
    )
