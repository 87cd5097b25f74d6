"""The demo's RAG app: ingest → BM25 + LSA → fusion → rerank → gated cut → cited answer.

Instrumented only through the public ``ragfunnel`` decorators, as a user's app would be; the
faults of :mod:`.faults` are injected inside the app's own steps, so the spans show exactly what
a faulty app would emit. Besides its answers the app keeps an :class:`Outcome` per question (its
own view of what happened), which the fault plan reads to know each fault's effect. It must
never read the cases' evidence while answering.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import ragfunnel
import ragfunnel.environment_variables as env
from ragfunnel.demo.answer import (
    Source,
    best_quotes,
    build_evidence,
    chat_messages,
    completion_text,
    extractive_answer,
)
from ragfunnel.demo.corpus import Chunk, Document, split_sections
from ragfunnel.demo.faults import (
    HIGH_THRESHOLD,
    LOW_THRESHOLD,
    QUALIFIERS,
    SMALL_K,
    STALE_DOCUMENT,
    DemoError,
    Injection,
)
from ragfunnel.demo.rerank import CrossFeatureScorer
from ragfunnel.demo.retrieval import BM25Index, DenseIndex, Hit, reciprocal_rank_fusion

ABSTAINED = "I can't answer that from the policies I have; please ask the HR or IT service desk."


@dataclass(frozen=True)
class Settings:
    """The pipeline's knobs (also recorded in the trace's pipeline snapshot)."""

    top_k: int = 20
    """Each first-stage retriever's depth."""
    depth: int = 30
    """The fused candidate list the reranker scores (the bounded candidate set)."""
    k: int = 4
    """Chunks the cut lets into the prompt."""
    threshold: float = 0.36
    """The confidence gate: below this top rerank score the app abstains."""


@dataclass(frozen=True)
class LLM:
    """An OpenAI-compatible chat endpoint for the generator (offline extractive without it)."""

    base_url: str
    model: str
    api_key: str | None = None
    """None: ``OPENAI_API_KEY`` if set (a local server usually needs none)."""


Chunking = Callable[[Document, str], list[Chunk]]
"""How a document's text becomes chunks: ``corpus.split_sections`` (the cases' chunk ids) or
``corpus.split_windows`` (the re-chunked run)."""


class DocumentError(RuntimeError):
    """The (demo's) PDF parser could not read a document."""


@dataclass
class Ingested:
    """What one document's ingestion produced (read by the ingest decorator)."""

    chunks: list[Chunk]
    pages_without_text: int = 0


@dataclass
class Outcome:
    """The app's own record of one question (never sent anywhere; the fault plan reads it)."""

    case_id: str
    fault: str | None = None
    retrieved: dict[str, list[str]] = field(default_factory=dict)
    candidates: list[str] = field(default_factory=list)
    reranked: list[str] = field(default_factory=list)
    prompt: list[str] = field(default_factory=list)
    abstained: bool = False
    generator_called: bool = False
    answer: str = ""
    quoted: list[str] = field(default_factory=list)


@dataclass
class _Index:
    chunks: list[Chunk]
    bm25: BM25Index
    dense: DenseIndex
    scorer: CrossFeatureScorer


class Pipeline:
    """One index build and the question path over it."""

    def __init__(
        self,
        documents: Sequence[Document],
        *,
        injection: Injection | None = None,
        settings: Settings | None = None,
        llm: LLM | None = None,
        chunking: Chunking = split_sections,
    ):
        self.documents = list(documents)
        self.chunking = chunking
        self._languages = {d.file: d.language for d in self.documents}
        self.injection = injection or Injection()
        self.settings = settings or Settings()
        self.outcomes: dict[str, Outcome] = {}
        self._current: Outcome | None = None
        self._client: Any = None
        self._llm_generate: Callable[[str, list[Source]], Any] | None = None
        if llm is not None:
            self._client = _openai_client(llm)
            model = llm.model
            self._llm_generate = ragfunnel.generate(model=model)(self._call_llm)
            self._llm_model = model
        self._main: _Index | None = None
        self._replica: _Index | None = None

    # Ingestion -----------------------------------------------------------------------------

    def build_index(self) -> None:
        """Ingest the current version of every document (one ingest span each).

        A superseded version is skipped, unless some question is to be served by the stale
        replica, which also holds it. A document the parser fails on is left out.
        """
        latest: dict[str, str] = {}
        for doc in self.documents:
            latest[doc.id] = max(latest.get(doc.id, doc.version), doc.version)
        stale_wanted = "stale_version" in self.injection.questions.values()
        current: list[Chunk] = []
        stale: list[Chunk] = []
        for doc in self.documents:
            is_current = latest[doc.id] == doc.version
            if not is_current and not (stale_wanted and (doc.id, doc.version) == STALE_DOCUMENT):
                continue
            try:
                chunks = self.ingest(doc.id, doc).chunks
            except DocumentError:
                continue  # the span records the error; the index goes on without it
            (current if is_current else stale).extend(chunks)
        self._main = self._build(current)
        self._replica = self._build(current + stale) if stale else None

    @ragfunnel.ingest()
    def ingest(self, document_id: str, document: Document) -> Ingested:
        """Parse one document version into section chunks (OCR for a page without text)."""
        if document.id in self.injection.dropped_documents:
            raise DocumentError(f"{document.file}: cannot parse: unsupported PDF encryption")
        text = document.text_layer
        pages_without_text = 0
        if not text:
            text = self.ocr(document)
            pages_without_text = 0 if text else 1
        return Ingested(self.chunking(document, text), pages_without_text)

    def ocr(self, document: Document) -> str:
        """What OCR reads off the scanned page (the shipped body), or nothing under the fault."""
        return "" if self.injection.empty_ocr else document.body

    @staticmethod
    def _build(chunks: list[Chunk]) -> _Index:
        dense = DenseIndex(chunks)
        return _Index(
            chunks, BM25Index(chunks), dense, CrossFeatureScorer(chunks, dense.similarity)
        )

    def _index(self) -> _Index:
        assert self._main is not None, "build_index() first"
        if self._fault() == "stale_version" and self._replica is not None:
            return self._replica
        return self._main

    # Questions -------------------------------------------------------------------------------

    @ragfunnel.question(id="case_id", text="question")
    def answer(self, case_id: str, question: str) -> str:
        """Answer one question end to end; abstain when the evidence is too weak."""
        outcome = self.outcomes[case_id] = Outcome(case_id, self.injection.fault_of(case_id))
        self._current = outcome
        try:
            top_k = SMALL_K if outcome.fault == "small_k" else self.settings.top_k
            rankings = [self.bm25(question, top_k), self.lsa(question, top_k)]
            outcome.retrieved = {
                name: [h.id for h in r] for name, r in zip(("bm25", "lsa"), rankings, strict=True)
            }
            # Fusion cannot return more than the retrievers gave it: its depth says so.
            depth = min(self.settings.depth, top_k * len(rankings))
            fused = self.fuse(question, rankings, top_k=depth)
            outcome.candidates = [h.id for h in fused]
            reranked = self.rerank(question, fused)
            outcome.reranked = [h.id for h in reranked]
            kept = self.gate(reranked, k=self.settings.k, threshold=self._threshold())
            outcome.prompt = [h.id for h in kept]
            if not kept:
                outcome.abstained, outcome.answer = True, ABSTAINED
                return ABSTAINED
            sources = build_evidence(kept)
            outcome.generator_called = True
            outcome.answer = self._generate(question, sources)
            return outcome.answer
        finally:
            self._current = None

    @ragfunnel.retrieve(name="bm25")
    def bm25(self, query: str, top_k: int) -> list[Hit]:
        """Keyword search: exact codes and rare words."""
        return self._index().bm25.search(query, top_k)

    @ragfunnel.retrieve(name="lsa")
    def lsa(self, query: str, top_k: int) -> list[Hit]:
        """Dense search in the LSA space: paraphrases, no identifiers."""
        return self._index().dense.search(query, top_k)

    @ragfunnel.retrieve(name="rrf", fused_from=["bm25", "lsa"])
    def fuse(self, query: str, rankings: list[list[Hit]], top_k: int) -> list[Hit]:
        """Reciprocal-rank fusion of the two lists: the bounded candidate set."""
        return reciprocal_rank_fusion(rankings, top_k)

    @ragfunnel.rerank(model="cross-feature-v1")
    def rerank(self, query: str, candidates: list[Hit]) -> list[Hit]:
        """Score each (question, chunk) pair; the faults weaken or shuffle it."""
        ranked = self._index().scorer.rerank(query, candidates)
        fault = self._fault()
        if fault == "inverted_reranker":
            flipped = [Hit(h.id, round(1.0 - h.score, 6), h.chunk) for h in ranked]
            return sorted(flipped, key=lambda h: -h.score)
        if fault == "shuffled_reranker":
            order = list(ranked)
            seed = self._current.case_id if self._current else ""
            random.Random(seed).shuffle(order)  # noqa: S311 - reproducible, not cryptographic
            scores = sorted((h.score for h in ranked), reverse=True)
            return [Hit(h.id, s, h.chunk) for h, s in zip(order, scores, strict=True)]
        return ranked

    @ragfunnel.cut()
    def gate(self, documents: list[Hit], k: int, threshold: float) -> list[Hit]:
        """The top ``k``, or nothing (abstain) when the best score is below ``threshold``."""
        if not documents or documents[0].score < threshold:
            top = documents[0].score if documents else 0.0
            ragfunnel.abstain(
                f"top rerank score {top:.2f} below the confidence threshold {threshold}"
            )
            return []
        return documents[:k]

    def _generate(self, question: str, sources: list[Source]) -> str:
        if self._llm_generate is not None:
            return completion_text(self._llm_generate(question, sources))
        return self.extractive(question, sources)

    @ragfunnel.generate(model="extractive-v1")
    def extractive(self, question: str, sources: list[Source]) -> str:
        """Quote the best-matching sentences of the sources, each cited."""
        quotes = best_quotes(question, sources, self._index().scorer.idf)
        if self._current is not None:
            self._current.quoted = [q.source.id for q in quotes]
        if self._fault() == "changed_numbers":
            quotes = [replace(q, sentence=_change_numbers(q.sentence)) for q in quotes]
        if self._fault() == "added_qualifier" and quotes:
            first = quotes[0]
            language = self._languages.get(first.source.file, "en")
            quotes[0] = replace(first, sentence=_add_qualifier(first.sentence, language))
        return extractive_answer(quotes)

    def _call_llm(self, question: str, sources: list[Source]) -> Any:
        return self._client.chat.completions.create(
            model=self._llm_model, messages=chat_messages(question, sources), temperature=0
        )

    def _fault(self) -> str | None:
        return self._current.fault if self._current is not None else None

    def _threshold(self) -> float:
        fault = self._fault()
        if fault == "threshold_high":
            return HIGH_THRESHOLD
        if fault == "threshold_low":
            return LOW_THRESHOLD
        return self.settings.threshold


def _change_numbers(sentence: str) -> str:
    """Every number a quarter larger (at least one more), as a careless generator might say."""

    def bump(match: re.Match[str]) -> str:
        value = int(match.group())
        return match.group() if value == 0 else str(value + max(1, value // 4))

    return re.sub(r"\d+", bump, sentence)


def _add_qualifier(sentence: str, language: str) -> str:
    """The sentence with an absolute qualifier at its end: "… allowed, at any time."."""
    qualifier = QUALIFIERS.get(language, QUALIFIERS["en"])
    body = sentence.rstrip()
    end = body[-1] if body[-1:] in ".!" else ""
    joiner = ", und zwar " if language == "de" else ", "
    return f"{body.removesuffix(end)}{joiner}{qualifier}{end or '.'}"


def _openai_client(llm: LLM) -> Any:
    try:
        import openai
    except ImportError as exc:  # the judge extra brings it
        raise DemoError(
            "an LLM generator needs the openai package: pip install 'ragfunnel[judge]'",
            argument="llm",
        ) from exc
    key = llm.api_key or env.read("OPENAI_API_KEY") or "not-needed"
    return openai.OpenAI(base_url=llm.base_url, api_key=key)
