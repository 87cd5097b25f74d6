"""A small decorated travel-policy assistant: the worked example's prompt, traced for real.

Chunks: access rights, hotel allowance 120 EUR, taxi from 22:00. ``ask`` runs one question with
a chosen answer (the "model" is a lookup), so tests decide what was answered.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

import ragfunnel
from ragfunnel.analyzer.cases import Case, CaseSet, parse_evidence
from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.store import Store
from ragfunnel.testing import capture_spans

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


def many_reply(n: int) -> str:
    """The ``n``-th of many answers: changed numbers and times, a refusal every 17th."""
    hotel = (120, 150, 80)[n % 3]
    taxi = ("ab 22 Uhr", "jederzeit", "ab 20 Uhr", "ab 22:00")[n % 4]
    if n % 17 == 0:
        return REFUSAL
    return f"Die Hotelpauschale beträgt {hotel} Euro; ein Taxi ist {taxi} erlaubt. Frage {n % 40}."


def record_many(store: Store, count: int) -> None:
    """``count`` traced answers (run ``r1``) in ``store``: prompts of three of the worked
    example's chunks in other orders, disagreeing samples on every fifth."""
    orders = itertools.cycle(itertools.permutations(CHUNKS, 3))
    with capture_spans(capture_content=True, run_id="r1") as spans:
        for n, order in zip(range(count), orders, strict=False):
            ranking = [(chunk, 0.9 - 0.1 * i) for i, chunk in enumerate(order)]
            samples = [many_reply(n + 1)] if n % 5 == 0 else []
            ask(f"q{n}", f"Frage {n}?", ranking, many_reply(n), samples)
    ingest_spans(store, spans.spans)


def without_time(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Verdict rows without their ``JudgedAt``, to compare two runs."""
    return [{k: v for k, v in r.items() if k != "JudgedAt"} for r in rows]
