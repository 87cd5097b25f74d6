"""A small RAG app traced with the real decorators, whose faults are planned per question.

Each case gets a plan: where its gold chunk lands among the candidates, where the reranker puts
it, its score at the gate, and whether the answer states the facts. Two runs of the same cases
with different plans give known stage transitions for the diff tests. Texts of questions,
chunks and answers carry hostile markup so the HTML report's escaping is exercised.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ragfunnel
from ragfunnel.analyzer.cases import Case, CaseSet, parse_evidence

XSS_SCRIPT = "<script>window.__pwned = 1</script>"
XSS_IMG = '<img src=x onerror="window.__pwned = 2">'
XSS_LINK = '<a href="javascript:window.__pwned = 3">click me</a>'
XSS_STYLE = "</style><style>body { display: none }</style>"

CANDIDATES = 30
RERANK_DEPTH = 20
CUT_K = 3
THRESHOLD = 0.3


@dataclass(frozen=True)
class Plan:
    """What happens to one question's gold chunk: ``None`` ranks mean "not there"."""

    candidate: int | None = 1
    reranked: int | None = 1
    score: float = 0.9
    answer_right: bool = True
    abstain: bool = False


OK = Plan()
INGESTION = Plan(candidate=None, reranked=None)
SEARCH = Plan(candidate=25, reranked=None)
RERANK = Plan(candidate=4, reranked=7)
CUT = Plan(candidate=2, reranked=2, score=0.1)
GENERATION = Plan(answer_right=False)

NEVER_INGESTED = "scan-2019#p1"


def _chunk(i: int) -> str:
    return f"gold-{i}#c1"


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    facts: tuple[str, ...]
    answerable: bool = True


QUESTIONS = [
    Question("q-01", "Which firmware versions need a manual reset?", ("4.2.0",)),
    Question("q-02", f"What does {XSS_SCRIPT} do?", ("nothing",)),
    Question("q-03", "How long is the warranty?", ("two years",)),
    Question("q-04", "Who approves refunds?", ("the manager",)),
    Question("q-05", f"Is {XSS_IMG} allowed?", ("never",)),
    Question("q-06", "What is the support phone number?", ("555-0100",)),
    Question("q-07", "Where is the data centre?", ("Frankfurt",)),
    Question("q-08", "Which scanner model was used in 2019?", ("S-200",)),
    Question("q-09", "How many vacation days do new staff get?", ("25",)),
    Question("q-10", f"Does {XSS_STYLE} break styles?", ("no",)),
    Question("q-11", "What is the refund for a cancelled flight?", (), answerable=False),
    Question("q-12", "What are the parking prices downtown?", (), answerable=False),
]

PLAN_A: dict[str, Plan] = {
    "q-01": OK, "q-02": OK, "q-03": OK, "q-04": GENERATION, "q-05": SEARCH, "q-06": SEARCH,
    "q-07": RERANK, "q-08": INGESTION, "q-09": CUT, "q-10": OK,
    "q-11": Plan(abstain=True), "q-12": Plan(),
}  # fmt: skip
"""Run A: 4 ok, 2 search, 1 each of ingestion, rerank, cut, generation; one gate leak."""

PLAN_B: dict[str, Plan] = {
    **PLAN_A, "q-05": OK, "q-06": OK, "q-02": GENERATION, "q-09": Plan(candidate=2, reranked=2),
}  # fmt: skip
"""Run B: q-05 and q-06 move search → ok, q-09 cut → ok, q-02 ok → generation."""

PLAN_C: dict[str, Plan] = {
    q.id: (SEARCH if q.answerable and q.id != "q-08" else PLAN_A[q.id]) for q in QUESTIONS
}
"""Run C: every indexed gold chunk falls out of search — a clear regression from A."""

CONFIG_A = {"index_version": "v1", "retriever": {"top_k": CANDIDATES}, "prompt_version": "p1"}
CONFIG_B = {"index_version": "v1", "retriever": {"top_k": CANDIDATES}, "prompt_version": "p2"}
CONFIG_C = {"index_version": "v1", "retriever": {"top_k": CANDIDATES}, "prompt_version": "p1"}


def cases() -> CaseSet:
    out = []
    for i, q in enumerate(QUESTIONS):
        if not q.answerable:
            out.append(Case(q.id, q.text, answerable=False))
            continue
        gold = NEVER_INGESTED if q.id == "q-08" else _chunk(i)
        out.append(Case(q.id, q.text, parse_evidence(gold), facts=q.facts))
    return CaseSet.of(out)


def _gold(question_id: str) -> str:
    i = next(n for n, q in enumerate(QUESTIONS) if q.id == question_id)
    return NEVER_INGESTED if question_id == "q-08" else _chunk(i)


def _text(chunk_id: str) -> str:
    if chunk_id.startswith("gold-"):
        q = QUESTIONS[int(chunk_id[5:].partition("#")[0])]
        # Every payload in the chunk texts too, answered facts included.
        return f"{q.text} The answer: {' '.join(q.facts)}. {XSS_LINK} {XSS_IMG}"
    return f"Filler passage {chunk_id} about nothing in particular."


@ragfunnel.ingest(index_version="v1")
def ingest(document_id: str) -> list[dict[str, str]]:
    return [{"id": f"{document_id}#c1", "text": _text(f"{document_id}#c1")}]


@dataclass
class Scanned:
    """What ingesting a scanned PDF without a text layer gives: no chunks, one empty page."""

    chunks: list[dict[str, str]]
    pages_without_text: int


@ragfunnel.ingest(index_version="v1")
def ingest_scan(document_id: str) -> Scanned:
    return Scanned([], pages_without_text=1)


def _fillers(question_id: str, n: int) -> list[str]:
    return [f"filler-{question_id}-{j}#c1" for j in range(n)]


@ragfunnel.retrieve(name="bm25")
def retrieve(query: str, question_id: str, plan: Plan, top_k: int = CANDIDATES) -> list[Any]:
    ids = _fillers(question_id, top_k)
    if plan.candidate is not None:
        ids.insert(plan.candidate - 1, _gold(question_id))
    ids = ids[:top_k]
    return [{"id": c, "score": 1.0 - r / 100} for r, c in enumerate(ids)]


@ragfunnel.rerank(model="cross-encoder")
def rerank(
    query: str, candidates: list[dict[str, Any]], plan: Plan, gold: str, top_n: int = 10
) -> list[Any]:
    others = [c["id"] for c in candidates if c["id"] != gold]
    ids = others[: top_n - 1] if plan.reranked is not None else others[:top_n]
    if plan.reranked is not None:
        ids.insert(plan.reranked - 1, gold)
    scores = [0.95 - r / 20 for r in range(len(ids))]
    if plan.reranked is not None:
        scores[plan.reranked - 1] = plan.score
    return [{"id": c, "score": s, "text": _text(c)} for c, s in zip(ids, scores, strict=True)]


@ragfunnel.cut(k=CUT_K, threshold=THRESHOLD)
def gate(documents: list[dict[str, Any]], unanswerable_abstains: bool) -> list[Any]:
    if unanswerable_abstains:
        ragfunnel.abstain("nothing above the threshold")
        return []
    return [d for d in documents[:CUT_K] if d["score"] >= THRESHOLD]


@ragfunnel.generate(model="extractive")
def generate(question: str, context: list[dict[str, Any]], right: bool, facts: str) -> str:
    said = facts if right else "I am not sure."
    return f"{said} See {XSS_LINK} and {XSS_SCRIPT} {XSS_STYLE}"


@ragfunnel.question(id="question_id")
def answer(question_id: str, question: str, plan: Plan, facts: str) -> str:
    candidates = retrieve(question, question_id, plan)
    reranked = rerank(question, candidates[:RERANK_DEPTH], plan, _gold(question_id))
    kept = gate(reranked, plan.abstain)
    if not kept:
        return "I don't know."
    # The app answers right only from the gold chunk: a lost chunk means a wrong answer.
    right = plan.answer_right and any(d["id"] == _gold(question_id) for d in kept)
    return generate(question, kept, right, facts)


def run_questions(plan: dict[str, Plan]) -> None:
    """Ingest every gold chunk (the scanned one yields none), then ask every question once."""
    for i, q in enumerate(QUESTIONS):
        if q.answerable and q.id != "q-08":
            ingest(f"gold-{i}")
    ingest_scan(NEVER_INGESTED.partition("#")[0])
    for q in QUESTIONS:
        answer(q.id, q.text, plan[q.id], " ".join(q.facts))
