"""Evidence and answers: numbered sources, an extractive generator that cites them, an LLM one.

The evidence builder numbers the chunks the cut let through (``[Source 1 – policy-2024-07.pdf]``)
so an answer can cite them. The offline generator answers with the sentences of the sources that
best match the question, each followed by its source number; the LLM generator sends the same
numbered evidence to any OpenAI-compatible endpoint. Neither traces: the pipeline does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ragfunnel.demo.retrieval import Hit
from ragfunnel.demo.tokens import is_code, sentences, stems

NOT_IN_SOURCES = "The sources do not answer this question."
MAX_SENTENCES = 4

SYSTEM_PROMPT = (
    "You answer questions about company policies using only the numbered sources. Cite every "
    "statement with its source number in brackets, like [1]. If the sources do not contain the "
    f"answer, reply exactly: {NOT_IN_SOURCES}"
)


@dataclass(frozen=True)
class Source:
    """One chunk in the prompt, numbered for citation."""

    number: int
    id: str
    file: str
    text: str

    @property
    def label(self) -> str:
        """How the prompt introduces it: ``[Source 1 – policy-2024-07.pdf]``."""
        return f"[Source {self.number} – {self.file}]"


def build_evidence(kept: Sequence[Hit]) -> list[Source]:
    """Number the kept chunks 1, 2, … in prompt order."""
    return [Source(n, h.id, h.chunk.file, h.chunk.text) for n, h in enumerate(kept, start=1)]


def evidence_block(sources: Sequence[Source]) -> str:
    """The evidence as the prompt shows it."""
    return "\n\n".join(f"{s.label}\n{s.text}" for s in sources)


@dataclass(frozen=True)
class Quote:
    """A sentence the extractive generator took, and the source it came from."""

    sentence: str
    source: Source
    position: int
    weight: float


def best_quotes(
    question: str, sources: Sequence[Source], idf: Callable[[str], float]
) -> list[Quote]:
    """The sentences that best cover the question, in prompt order.

    Greedy cover: each step takes the sentence whose not yet covered question stems weigh most
    (idf, codes twice), until no sentence adds any or MAX_SENTENCES are taken. A sentence must
    share two stems with the question (one for a short question); near-duplicates (the same
    rule in two versions) are skipped.
    """
    wanted = set(stems(question))
    needed = 1 if len(wanted) <= 3 else 2

    def weight(found: set[str]) -> float:
        return sum(idf(s) * (2 if is_code(s) else 1) for s in found)

    pool: list[tuple[Quote, set[str]]] = []
    for source in sources:
        for position, sentence in enumerate(sentences(source.text)):
            shared = wanted & set(stems(sentence))
            if len(shared) >= needed:
                pool.append((Quote(sentence, source, position, weight(shared)), shared))
    covered: set[str] = set()
    kept: list[Quote] = []
    while pool and len(kept) < MAX_SENTENCES:
        quote, shared = max(
            pool,
            # Ties go to the better-ranked source, then to the earlier sentence (rules come first).
            key=lambda item: (weight(item[1] - covered), -item[0].source.number, -item[0].position),
        )
        if not shared - covered:
            break
        pool = [item for item in pool if item[0] is not quote]
        if not any(_near_duplicate(quote.sentence, other.sentence) for other in kept):
            kept.append(quote)
            covered |= shared
    return sorted(kept, key=lambda q: (q.source.number, q.position))


def _near_duplicate(a: str, b: str) -> bool:
    """Two sentences saying nearly the same (version twins): half their stems or more shared."""
    first, second = set(stems(a)), set(stems(b))
    return len(first & second) >= 0.5 * len(first | second)


def extractive_answer(quotes: Sequence[Quote]) -> str:
    """The quotes in prompt order, each cited, then the list of the sources cited."""
    if not quotes:
        return NOT_IN_SOURCES
    body = " ".join(f"{q.sentence} [{q.source.number}]" for q in quotes)
    cited = "; ".join(
        f"[{s.number}] {s.file}" for s in sorted({q.source for q in quotes}, key=lambda s: s.number)
    )
    return f"{body}\nSources: {cited}"


def cited_numbers(answer: str) -> set[int]:
    """The source numbers an answer cites (``[2]``)."""
    return {int(n) for n in re.findall(r"\[(\d+)\]", answer)}


def chat_messages(question: str, sources: Sequence[Source]) -> list[dict[str, str]]:
    """The chat prompt for an LLM generator."""
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"{evidence_block(sources)}\n\nQuestion: {question}"},
    ]


def completion_text(completion: Any) -> str:
    """The answer text of an OpenAI ``ChatCompletion`` (empty when it has none)."""
    choices = getattr(completion, "choices", None) or []
    content = choices[0].message.content if choices else None
    return content or ""
