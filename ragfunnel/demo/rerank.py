"""The demo's reranker: a cross-feature scorer of (question, chunk) pairs, scores in [0, 1].

A cross-encoder reads the question and the chunk together; offline, this scorer does the same
with features a cross-encoder learns: how much of the question's weighted vocabulary the chunk
covers, whether the section heading matches, whether every exact code of the question appears,
and the dense similarity. It only scores the bounded candidate list it is given; no tracing.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence

from ragfunnel.demo.corpus import Chunk
from ragfunnel.demo.retrieval import Hit
from ragfunnel.demo.tokens import is_code, stems, tokens

WEIGHTS = {"coverage": 0.55, "heading": 0.15, "codes": 0.2, "dense": 0.1}


class CrossFeatureScorer:
    """Scores candidates against a question; idf weights come from the indexed chunks."""

    def __init__(
        self, chunks: Sequence[Chunk], dense: Callable[[str, Sequence[str]], dict[str, float]]
    ):
        document_frequency: Counter[str] = Counter()
        for chunk in chunks:
            document_frequency.update(set(stems(f"{chunk.heading} {chunk.text}")))
        n = max(len(chunks), 1)
        self._idf = {s: math.log(1 + n / df) for s, df in document_frequency.items()}
        self._unseen_idf = math.log(1 + n)
        self._dense = dense

    def idf(self, stem: str) -> float:
        """Rarer stems weigh more; a stem the corpus never uses weighs most."""
        return self._idf.get(stem, self._unseen_idf)

    def score(self, question: str, chunk: Chunk, dense: float = 0.0) -> float:
        """The relevance of ``chunk`` to ``question`` in [0, 1]."""
        wanted = set(stems(question))
        if not wanted:
            return 0.0
        body = set(stems(f"{chunk.heading} {chunk.text}"))
        heading = set(stems(chunk.heading))
        total = sum(self.idf(s) for s in wanted)
        coverage = sum(self.idf(s) for s in wanted & body) / total
        heading_cover = sum(self.idf(s) for s in wanted & heading) / total
        codes = {t for t in tokens(question) if is_code(t)}
        text_tokens = set(tokens(f"{chunk.heading} {chunk.text}"))
        code_match = (len(codes & text_tokens) / len(codes)) if codes else coverage
        value = (
            WEIGHTS["coverage"] * coverage
            + WEIGHTS["heading"] * heading_cover
            + WEIGHTS["codes"] * code_match
            + WEIGHTS["dense"] * max(dense, 0.0)
        )
        return round(min(value, 1.0), 6)

    def rerank(self, question: str, candidates: Sequence[Hit]) -> list[Hit]:
        """``candidates`` re-scored and sorted, best first (ties keep the fused order)."""
        dense = self._dense(question, [h.id for h in candidates])
        scored = [
            Hit(h.id, self.score(question, h.chunk, dense.get(h.id, 0.0)), h.chunk)
            for h in candidates
        ]
        return sorted(scored, key=lambda h: -h.score)
