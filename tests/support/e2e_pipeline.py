"""The instrumented pipeline the end-to-end tests send through the real collector."""

from __future__ import annotations

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider

import ragfunnel

SERVICE = "ragfunnel-e2e"


def provider() -> TracerProvider:
    """A provider of the e2e service's own: other tests may have created the global one."""
    return TracerProvider(resource=Resource.create({"service.name": SERVICE}))


CORPUS = {f"doc-{i:02d}": f"passage {i}" for i in range(60)}


class RerankerDown(RuntimeError):
    pass


@ragfunnel.retrieve(name="bm25")
def search(query: str, top_k: int = 50) -> list[tuple[str, float]]:
    offset = sum(map(ord, query)) % 10
    ids = list(CORPUS)[offset : offset + top_k]
    return [(doc_id, round(1.0 - rank / 100, 4)) for rank, doc_id in enumerate(ids)]


@ragfunnel.rerank(model="toy-cross-encoder")
def rerank(
    query: str, documents: list[tuple[str, float]], top_n: int = 10
) -> list[tuple[str, float]]:
    if "fail" in query:
        raise RerankerDown("reranker unavailable")
    return sorted(documents[:20], key=lambda d: d[0], reverse=True)[:top_n]


@ragfunnel.cut(k=3)
def cut(documents: list[tuple[str, float]], k: int = 3) -> list[tuple[str, float]]:
    return documents[:k]


@ragfunnel.generate(model="toy-llm")
def generate(question: str, context: list[tuple[str, float]]) -> str:
    return "answer citing " + ", ".join(doc_id for doc_id, _ in context)


@ragfunnel.question(id="question_id", text="question")
def answer(question_id: str, question: str) -> str:
    candidates = search(question)
    try:
        ranked = rerank(question, candidates)
    except RerankerDown:
        ranked = candidates
    return generate(question, cut(ranked))
