"""The HotpotQA fault benchmark's pipeline: BM25 over HotpotQA with deterministic, injectable faults.

A benchmark helper, not part of the installed package: it reads ``../shared/data/hotpotqa``
(``RAGFUNNEL_HOTPOTQA`` overrides), which a user's clone does not have.

The corpus is the pool of HotpotQA paragraphs (their titles are stable, unique document ids);
retrieval is BM25 over it; the reranker, the cut and the reader are simple and deterministic, so
that a fault injected at one stage has exactly one right attribution. ``bench/faults.py`` uses
it as a regression check of the analyzer's decision table.

The reader simulates a two-hop model: it answers with the gold answer only when every supporting
paragraph is in its prompt, and otherwise says it cannot answer — so losing any evidence makes
the answer wrong, and the analyzer must name where the evidence was lost. The data is read from
``../shared/data/hotpotqa`` (or ``RAGFUNNEL_HOTPOTQA``); it is never copied into the project.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import ragfunnel

INDEX_VERSION = "hotpotqa-bm25-v1"
TOP_K = 50
CUT_K = 10
NO_ANSWER = "I cannot answer this from the provided passages."

FAULTS = ("none", "ingestion", "search", "rerank", "cut", "generation")
"""Each fault and, for the analyzer, the first failure it must be attributed to ("none" → ok)."""
EXPECTED = {"none": "ok", **{f: f for f in FAULTS if f != "none"}}

_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "his",
        "how",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "she",
        "that",
        "the",
        "their",
        "them",
        "they",
        "this",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "whose",
        "why",
        "with",
    ]
)
_WORD = re.compile(r"[a-z0-9]+")


def default_data_path() -> Path:
    """Where the shared HotpotQA sample lives (``RAGFUNNEL_HOTPOTQA`` overrides)."""
    env = os.environ.get("RAGFUNNEL_HOTPOTQA")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent.parent / "shared" / "data" / "hotpotqa"
        if candidate.is_dir():
            return candidate
    return Path("../shared/data/hotpotqa")


@dataclass(frozen=True)
class Question:
    """One HotpotQA question with its two supporting paragraphs (an ``all_of`` evidence set)."""

    id: str
    text: str
    answer: str
    gold: tuple[str, ...]


@dataclass
class Corpus:
    """Pooled paragraphs (title → text) and the questions over them."""

    paragraphs: dict[str, str]
    questions: list[Question]


def load(path: Path | None = None, limit: int | None = None) -> Corpus:
    """Read ``dev_subsampled.jsonl``; the corpus pools the paragraphs of every question read."""
    source = (path or default_data_path()) / "dev_subsampled.jsonl"
    if not source.is_file():
        raise FileNotFoundError(
            f"HotpotQA sample not found at {source}; set RAGFUNNEL_HOTPOTQA to its folder"
        )
    paragraphs: dict[str, str] = {}
    questions: list[Question] = []
    with source.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            for context in row["contexts"]:
                paragraphs.setdefault(context["title"], context["paragraph_text"])
            gold = tuple(c["title"] for c in row["contexts"] if c["is_supporting"])
            spans = row["answers_objects"][0]["spans"]
            questions.append(Question(row["question_id"], row["question_text"], spans[0], gold))
            if limit is not None and len(questions) >= limit:
                break
    return Corpus(paragraphs, questions)


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens without stop words."""
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]


class BM25:
    """Okapi BM25 (k1 = 1.2, b = 0.75) over an in-memory inverted index."""

    def __init__(self, documents: dict[str, str], k1: float = 1.2, b: float = 0.75):
        self.ids = list(documents)
        self.k1, self.b = k1, b
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        self.lengths: list[int] = []
        for doc, text in enumerate(documents.values()):
            counts = Counter(tokens(text))
            self.lengths.append(sum(counts.values()))
            for term, tf in counts.items():
                self.postings[term].append((doc, tf))
        self.avg = sum(self.lengths) / max(len(self.lengths), 1)
        n = len(self.ids)
        self.idf = {
            t: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in self.postings.items()
        }

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """The ``k`` best documents for ``query`` as ``(id, score)``, best first."""
        scores: dict[int, float] = defaultdict(float)
        for term in set(tokens(query)):
            idf = self.idf.get(term)
            if idf is None:
                continue
            for doc, tf in self.postings[term]:
                norm = tf + self.k1 * (1 - self.b + self.b * self.lengths[doc] / self.avg)
                scores[doc] += idf * tf * (self.k1 + 1) / norm
        best = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]
        return [(self.ids[doc], round(score, 6)) for doc, score in best]


@dataclass
class Plan:
    """Which fault each question gets, and what the experiment left out."""

    faults: dict[str, str] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)
    healthy: int = 0
    excluded: list[str] = field(default_factory=list)


class Pipeline:
    """The instrumented pipeline: ingest → retrieve → rerank → cut → generate."""

    def __init__(self, corpus: Corpus, plan: Plan | None = None):
        self.corpus = corpus
        self.plan = plan or Plan()
        self.bm25 = BM25(corpus.paragraphs)
        self.indexed = set(corpus.paragraphs) - self.plan.removed
        self._fault = "none"
        self._question: Question | None = None

    # The index: a paragraph that failed ingestion never reaches the search results.
    def index_all(self) -> None:
        """Trace the ingestion of every paragraph that makes it into the index.

        A bulk job outruns the bounded export queue (2,048 spans by default), and a dropped ingest
        span would read as "never indexed": flush every thousand documents.
        """
        for n, title in enumerate(t for t in self.corpus.paragraphs if t in self.indexed):
            self._ingest(title)
            if n % 1000 == 999:
                ragfunnel.flush()

    @ragfunnel.ingest(index_version=INDEX_VERSION)
    def _ingest(self, document_id: str) -> list[str]:
        return [document_id]

    @ragfunnel.retrieve(name="bm25")
    def retrieve(self, query: str, top_k: int = TOP_K) -> list[tuple[str, float]]:
        """BM25 top-k over the indexed paragraphs."""
        hits = [
            h
            for h in self.bm25.search(query, top_k + len(self.plan.removed))
            if h[0] in self.indexed
        ]
        if self._fault == "search":  # a broken embedding: the gold paragraph is never found
            hits = [h for h in hits if h[0] != self._lost()]
        return hits[:top_k]

    @ragfunnel.rerank(model="lexical-overlap")
    def rerank(self, query: str, documents: list[tuple[str, float]]) -> list[tuple[str, float]]:
        """Keep the retriever's order (a stable reranker), or bury the gold under a fault."""
        ranked = list(documents)
        if self._fault == "rerank":
            lost = self._lost()
            ranked = [d for d in ranked if d[0] != lost] + [d for d in ranked if d[0] == lost]
        n = len(ranked)
        return [(doc_id, round(1.0 - i / max(n, 1), 6)) for i, (doc_id, _) in enumerate(ranked)]

    @ragfunnel.cut(k=CUT_K, token_budget=2000)
    def cut(self, documents: list[tuple[str, float]]) -> list[tuple[str, float]]:
        """The top ``k``; under a fault, the gate drops the gold as if over the token budget."""
        kept = documents[:CUT_K]
        if self._fault == "cut":
            kept = [d for d in kept if d[0] != self._lost()]
        return kept

    @ragfunnel.generate(model="two-hop-reader")
    def generate(self, question: str, context: list[tuple[str, float]]) -> str:
        """Answer only with every supporting paragraph in the prompt (a two-hop reader)."""
        assert self._question is not None
        present = {doc_id for doc_id, _ in context}
        if self._fault == "generation" or not set(self._question.gold) <= present:
            return NO_ANSWER
        return self._question.answer

    @ragfunnel.question(id="question_id", text="text")
    def answer(self, question_id: str, text: str) -> str:
        """Answer one question end to end."""
        return self.generate(text, self.cut(self.rerank(text, self.retrieve(text))))

    def ask(self, question: Question) -> str:
        """Run one question under its planned fault."""
        self._question, self._fault = question, self.plan.faults.get(question.id, "none")
        try:
            return self.answer(question.id, question.text)
        finally:
            self._question, self._fault = None, "none"

    def _lost(self) -> str:
        assert self._question is not None
        return self._question.gold[-1]


def plan_faults(corpus: Corpus, faults: Sequence[str] = FAULTS) -> Plan:
    """Choose healthy questions and give each one fault, round robin.

    Healthy: without faults, both supporting paragraphs are in the prompt, so the unfaulted
    answer is right and an injected fault is the only thing that can go wrong. An ingestion
    fault removes a paragraph that no other selected question needs.
    """
    bm25 = BM25(corpus.paragraphs)
    healthy: list[Question] = []
    for q in corpus.questions:
        top = [doc_id for doc_id, _ in bm25.search(q.text, TOP_K)[:CUT_K]]
        if len(q.gold) == 2 and set(q.gold) <= set(top):
            healthy.append(q)
    needed = Counter(title for q in corpus.questions for title in q.gold)
    plan = Plan(healthy=len(healthy))
    for i, q in enumerate(healthy):
        fault = faults[i % len(faults)]
        if fault == "ingestion":
            if needed[q.gold[-1]] > 1:
                plan.excluded.append(q.id)
                continue
            plan.removed.add(q.gold[-1])
        plan.faults[q.id] = fault
    return plan


def cases_jsonl(corpus: Corpus, plan: Plan) -> Iterator[str]:
    """Evaluation cases (docs/funnel.md) for the planned questions, one JSON object a line."""
    for q in corpus.questions:
        if q.id in plan.faults:
            yield json.dumps(
                {
                    "id": q.id,
                    "question": q.text,
                    "evidence": {"all_of": list(q.gold)},
                    "reference": q.answer,
                    "facts": [q.answer],
                }
            )


def trace_plan(corpus: Corpus, plan: Plan) -> None:
    """Index the corpus and ask each question the plan gives a fault.

    The spans go wherever ragfunnel is configured to send them.
    """
    pipeline = Pipeline(corpus, plan)
    pipeline.index_all()
    for question in corpus.questions:
        if question.id in plan.faults:
            pipeline.ask(question)


def write_cases(path: Path, corpus: Corpus, plan: Plan) -> None:
    """The plan's evaluation cases, as JSON lines, in ``path``."""
    path.write_text("\n".join(cases_jsonl(corpus, plan)) + "\n", encoding="utf-8")
