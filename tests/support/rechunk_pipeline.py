"""A small pipeline over one corpus chunked two ways (issue 32: cases that survive re-chunking).

``run(store, version, sentences, tag)`` ingests the corpus into index ``version`` as chunks of
``sentences`` sentences with ids ``{document}{tag}{n}`` (offsets recorded), asks every question
of :data:`QUESTIONS` under run id ``version`` with content captured, and stores the spans.
"""

from __future__ import annotations

import re

import ragfunnel
from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.store import Store
from ragfunnel.testing import capture_spans

CORPUS = {
    "travel": (
        "The hotel allowance is 120 EUR per night. Taxis are refunded up to 40 EUR. "
        "Meals are paid as a per diem of 35 EUR. Trains travel second class."
    ),
    "it": "Laptops are replaced every four years. Passwords expire after ninety days.",
}
INDEX: dict[str, dict[str, str]] = {}


def chunk(document: str, sentences: int, tag: str) -> list[dict[str, object]]:
    """The document as chunks of ``sentences`` sentences, each with its start offset."""
    text = CORPUS[document]
    spans = [m.span() for m in re.finditer(r"\S[^.]*\.", text)]
    chunks: list[dict[str, object]] = []
    for n, first in enumerate(range(0, len(spans), sentences)):
        begin, end = spans[first][0], spans[min(first + sentences, len(spans)) - 1][1]
        chunks.append({"id": f"{document}{tag}{n}", "text": text[begin:end], "start": begin})
    return chunks


@ragfunnel.ingest(document_id="document")
def ingest(document: str, sentences: int, tag: str, drop: str = "") -> list[dict[str, object]]:
    chunks = [c for c in chunk(document, sentences, tag) if c["id"] != drop]
    INDEX.update({str(c["id"]): {"text": str(c["text"])} for c in chunks})
    return chunks


@ragfunnel.retrieve(name="keyword")
def search(query: str, top_k: int = 3) -> list[dict[str, object]]:
    words = set(query.lower().replace("?", "").split())
    hits = [
        {"id": i, "text": c["text"], "score": len(words & set(c["text"].lower().split()))}
        for i, c in INDEX.items()
    ]
    return sorted(hits, key=lambda h: -float(h["score"]))[:top_k]  # type: ignore[arg-type]


@ragfunnel.cut(k=1)
def gate(documents: list[dict[str, object]], k: int = 1) -> list[dict[str, object]]:
    return documents[:k]


@ragfunnel.generate(model="extractive")
def generate(question: str, context: list[dict[str, object]]) -> str:
    return " ".join(str(c["text"]) for c in context)


@ragfunnel.question(id="question_id")
def answer(question_id: str, question: str) -> str:
    return generate(question, gate(search(question)))


QUESTIONS = {
    "q-hotel": ("What is the hotel allowance per night?", "120 EUR"),
    "q-taxi": ("Up to how much are taxis refunded?", "40 EUR"),
    "q-pass": ("When do passwords expire?", "ninety days"),
}


def run(
    store: Store,
    version: str,
    sentences: int,
    tag: str,
    *,
    content: bool = True,
    drop: str = "",
    named: bool = True,
    ingested: bool = True,
    run_id: str | None = None,
) -> None:
    """One run (see the module); ``named=False`` leaves the index version out of the run's
    pipeline snapshot, ``ingested=False`` asks the questions of the index already built, under
    ``run_id`` (default: ``version``)."""
    if ingested:
        INDEX.clear()
    pipeline = {"index_version": version} if named else {}
    with capture_spans(capture_content=content, run_id=run_id or version, pipeline=pipeline) as s:
        for document in CORPUS if ingested else ():
            ingest(document, sentences, tag, drop)
        for qid, (question, _) in QUESTIONS.items():
            answer(qid, question)
    ingest_spans(store, s.spans)
