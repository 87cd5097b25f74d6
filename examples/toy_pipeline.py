"""A toy RAG pipeline instrumented with ragfunnel: five decorators, nothing else changed.

Run it: ``python examples/toy_pipeline.py``. Spans go to ``.ragfunnel/traces/spans-<pid>.jsonl``
(OTLP JSON lines) unless ``RAGFUNNEL_EXPORTER`` says otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import ragfunnel

CORPUS = {
    "release-notes-4.2#known-issues": "Firmware 4.2.0 and 4.2.1 need a manual reset after upgrade.",
    "runbook-reset#scope": "The manual reset applies to gateways on firmware 4.2.x only.",
    "release-notes-4.3#fixes": "Firmware 4.3.0 fixes the reset problem of 4.2.x.",
    "faq#warranty": "The warranty covers two years from the date of purchase.",
    "faq#shipping": "Orders ship within three business days.",
}


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9.]+", text.lower()))


@ragfunnel.ingest(index_version="v1")
def index_document(document_id: str, text: str) -> list[str]:
    return [document_id]  # one chunk per document in this toy


@dataclass(frozen=True)
class Hit:
    """A retrieved chunk: ragfunnel reads its ``id``, ``score`` and ``text``."""

    id: str
    text: str
    score: float


@ragfunnel.retrieve(name="keyword")
def search(query: str, top_k: int = 4) -> list[Hit]:
    q = words(query)
    hits = [Hit(doc_id, text, len(q & words(text)) / len(q)) for doc_id, text in CORPUS.items()]
    return sorted(hits, key=lambda hit: -hit.score)[:top_k]


@ragfunnel.cut(k=2, threshold=0.2)
def gate(documents: list[Hit], k: int = 2) -> list[Hit]:
    kept = [d for d in documents[:k] if d.score >= 0.2]
    if not kept:
        ragfunnel.abstain("no passage above the score threshold")
    return kept


@ragfunnel.generate(model="toy-extractive")
def generate(question: str, context: list[Hit]) -> str:
    # The chunks come with their text, so the span records it (content capture is on) and
    # `ragfunnel judge` can rate the answer against them.
    if not context:
        return "I don't know."
    return " ".join(hit.text for hit in context)


@ragfunnel.question(id="question_id", text="question")
def answer(question_id: str, question: str) -> str:
    return generate(question, gate(search(question)))


def main() -> None:
    # Content capture lets the analyzer check answers against each case's facts and the judges
    # rate them against their chunks. A service that must not export its corpus records
    # question and answer only, `capture_content=("question", "answer")`, and gives
    # `ragfunnel judge --chunks chunks.jsonl` the chunk texts; one that must not export any
    # text keeps capture off (the default), and its answers cannot be judged.
    ragfunnel.configure(
        service_name="toy-rag", capture_content=True, pipeline={"index_version": "v1", "k": 2}
    )
    for doc_id, text in CORPUS.items():
        index_document(doc_id, text)
    print(answer("q-017", "Which firmware versions need a manual reset?"))
    print(answer("q-031", "What is the refund for a cancelled flight?"))
    print(answer("q-052", "How do I upgrade the gateway firmware?"))
    ragfunnel.flush()


if __name__ == "__main__":
    main()
