"""A small decorated travel-policy assistant: the worked example's prompt, traced for real.

Chunks: access rights, hotel allowance 120 EUR, taxi from 22:00. ``ask`` runs one question with
a chosen answer (the "model" is a lookup), so tests decide what was answered.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ragfunnel
from ragfunnel.analyzer.cases import Case, CaseSet, parse_evidence

CHUNKS = {
    "access-rights": "Zugriffsrechte für das Reiseportal beantragt man im IT-Ticketsystem.",
    "hotel-allowance": "Die Hotelpauschale beträgt 120 EUR pro Nacht.",
    "taxi": "Ein Taxi ist ab 22:00 Uhr erlaubt; vorher gilt der ÖPNV.",
    "parking": "Parkgebühren am Flughafen werden bis 20 EUR pro Tag erstattet.",
}
REFERENCE = "Die Hotelpauschale beträgt 120 Euro; ein Taxi ist ab 22 Uhr erlaubt."
BOTH = REFERENCE
ANY_TIME = "Die Hotelpauschale beträgt 120 Euro; ein Taxi ist jederzeit erlaubt."
REFUSAL = "Dazu habe ich keine Informationen."

CASES = CaseSet.of(
    [
        Case("hotel-taxi", "Was gilt für Hotel und Taxi?",
             parse_evidence({"all_of": ["hotel-allowance", "taxi"]}), reference=REFERENCE),
        Case("hotel-taxi-facts", "Hotel und Taxi, kurz?",
             parse_evidence({"all_of": ["hotel-allowance", "taxi"]}),
             facts=("120 Euro", "22 Uhr")),
        Case("mileage", "Wie hoch ist die Kilometerpauschale?", answerable=False),
    ]
)  # fmt: skip


@ragfunnel.retrieve(name="bm25")
def search(query: str, ranking: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    return list(ranking)


@ragfunnel.cut(k=3, threshold=0.3)
def gate(documents: list[tuple[str, float]], k: int = 3) -> list[tuple[str, float]]:
    kept = [d for d in documents[:k] if d[1] >= 0.3]
    if not kept:
        ragfunnel.abstain("nothing above the threshold")
    return kept


@ragfunnel.generate(model="generator-model")
def generate(
    question: str, context: list[dict[str, Any]], reply: str, sample_index: int = 0
) -> str:
    return reply


@ragfunnel.question(id="question_id")
def ask(question_id: str, question: str, ranking: Sequence[tuple[str, float]], reply: str,
        samples: Sequence[str] = ()) -> str:  # fmt: skip
    kept = gate(search(question, ranking))
    if not kept:
        return "Dazu habe ich keine Informationen."
    context = [{"id": cid, "text": CHUNKS[cid]} for cid, _ in kept]
    answer = generate(question, context, reply)
    for n, other in enumerate(samples, start=1):
        generate(question, context, other, sample_index=n)
    return answer


WORKED_RANKING = [("access-rights", 0.9), ("hotel-allowance", 0.8), ("taxi", 0.7)]
"""[irrelevant, relevant, relevant]: context precision (1/2 + 2/3) / 2 = 7/12."""
