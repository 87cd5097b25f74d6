"""A small hybrid pipeline (BM25 + dense, RRF, rerank, cut, generate) with the real decorators."""

from __future__ import annotations

import ragfunnel
from ragfunnel.analyzer.cases import Case, CaseSet, parse_evidence

DOCS = {
    "release-notes-4.2": {
        "release-notes-4.2#known-issues": "Firmware 4.2.0 and 4.2.1 need a manual reset.",
        "release-notes-4.2#fixes": "Wi-Fi drops fixed in 4.2.2.",
    },
    "runbook-reset": {"runbook-reset#scope": "The manual reset applies to gateways on 4.2.x."},
    "warranty": {"faq#warranty": "The warranty covers two years."},
}
CHUNKS = {cid: text for chunks in DOCS.values() for cid, text in chunks.items()}
INDEX: dict[str, str] = {}
"""What the retrievers can find: only chunks of ingested documents."""


@ragfunnel.ingest(index_version="v7")
def ingest(document_id: str) -> list[str]:
    INDEX.update(DOCS[document_id])
    return list(DOCS[document_id])


def _score(query: str, text: str) -> float:
    words = set(query.lower().strip("?").split())
    return len(words & set(text.lower().split())) / len(words)


@ragfunnel.retrieve(name="bm25")
def bm25(query: str, top_k: int = 4) -> list[tuple[str, float]]:
    ranked = sorted(((c, _score(query, t)) for c, t in INDEX.items()), key=lambda h: -h[1])
    return ranked[:top_k]


@ragfunnel.retrieve(name="dense")
def dense(query: str, top_k: int = 2) -> list[tuple[str, float]]:
    hits = [("faq#warranty", 0.7), ("release-notes-4.2#known-issues", 0.6)]
    return [hit for hit in hits if hit[0] in INDEX][:top_k]


@ragfunnel.retrieve(name="rrf", fused_from=["bm25", "dense"])
def hybrid(query: str) -> list[tuple[str, float]]:
    fused: dict[str, float] = {}
    for hits in (bm25(query), dense(query)):
        for rank, (chunk, _) in enumerate(hits, start=1):
            fused[chunk] = fused.get(chunk, 0.0) + 1 / (60 + rank)
    return sorted(fused.items(), key=lambda h: -h[1])


@ragfunnel.rerank(model="overlap")
def rerank(
    query: str, candidates: list[tuple[str, float]], top_n: int = 3
) -> list[tuple[str, float]]:
    scored = [(c, _score(query, CHUNKS[c])) for c, _ in candidates]
    return sorted(scored, key=lambda h: -h[1])[:top_n]


@ragfunnel.cut(k=2, threshold=0.15)
def gate(documents: list[tuple[str, float]], k: int = 2) -> list[tuple[str, float]]:
    kept = [hit for hit in documents[:k] if hit[1] >= 0.15]
    if not kept:
        ragfunnel.abstain("nothing above the threshold")
    return kept


@ragfunnel.generate(model="extractive")
def generate(question: str, context: list[tuple[str, float]]) -> str:
    return " ".join(CHUNKS[c] for c, _ in context)


@ragfunnel.question(id="question_id")
def answer(question_id: str, question: str) -> str:
    kept = gate(rerank(question, hybrid(question)))
    return generate(question, kept) if kept else "I don't know."


CASES = CaseSet.of(
    [
        Case(
            "q-017",
            "Which firmware versions need a manual reset?",
            parse_evidence({"all_of": ["release-notes-4.2#known-issues", "runbook-reset#scope"]}),
            facts=("4.2.0", "4.2.1"),
        ),
        Case("q-031", "Refund for a cancelled flight?", answerable=False),
        Case("q-032", "Parking prices downtown?", answerable=False),
    ]
)
