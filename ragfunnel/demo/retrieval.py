"""The demo's first-stage search: BM25 (bm25s), a dense LSA retriever, reciprocal-rank fusion.

The dense retriever learns its vectors from the corpus itself (TF-IDF over words, reduced by a
truncated SVD: latent semantic analysis), so it runs offline with no model download. Like an
embedding model, it sees words, not identifiers: tokens with digits are left out of its
vocabulary, which is why keyword search must be fused in. No tracing here (the pipeline's
decorated methods call these); never mutates the chunks it indexes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import bm25s
import numpy as np
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.preprocessing import normalize

from ragfunnel.demo.corpus import Chunk
from ragfunnel.demo.tokens import tokens

_WORDS_ONLY = r"(?u)\b[^\W\d_]{3,}\b"

RRF_K = 60
"""The rank offset of reciprocal-rank fusion (the value of Cormack et al., 2009)."""


@dataclass(frozen=True)
class Hit:
    """A chunk found by a search step, with that step's score."""

    id: str
    score: float
    chunk: Chunk

    @property
    def text(self) -> str:
        """The chunk's text (what a content-capturing span records)."""
        return self.chunk.text


def _searchable(chunk: Chunk) -> str:
    return f"{chunk.heading}. {chunk.text}"


class BM25Index:
    """Okapi BM25 over the chunks' tokens (codes kept whole, see :mod:`.text`)."""

    def __init__(self, chunks: Sequence[Chunk]):
        self.chunks = list(chunks)
        self._index = bm25s.BM25()
        self._index.index([tokens(_searchable(c)) for c in self.chunks], show_progress=False)
        self._vocab = {t for c in self.chunks for t in tokens(_searchable(c))}

    def search(self, query: str, top_k: int) -> list[Hit]:
        """The best ``top_k`` chunks with a positive score, best first."""
        terms = [t for t in tokens(query) if t in self._vocab]
        if not terms or not self.chunks:
            return []
        scores = self._index.get_scores(terms)
        order = np.argsort(-scores, kind="stable")[:top_k]
        return [
            Hit(self.chunks[i].id, float(scores[i]), self.chunks[i]) for i in order if scores[i] > 0
        ]


class DenseIndex:
    """Cosine similarity in an LSA space learned from the indexed chunks."""

    def __init__(
        self, chunks: Sequence[Chunk], *, dimensions: int = 48, min_similarity: float = 0.1
    ):
        self.chunks = list(chunks)
        self.min_similarity = min_similarity
        # Words only (letters, at least three): identifiers are not in an embedding's vocabulary.
        self._tfidf = TfidfVectorizer(token_pattern=_WORDS_ONLY, sublinear_tf=True)
        matrix = self._tfidf.fit_transform([_searchable(c) for c in self.chunks])
        self._svd = TruncatedSVD(n_components=min(dimensions, len(self.chunks) - 1), random_state=0)
        self._vectors = normalize(self._svd.fit_transform(matrix))

    def embed(self, text: str) -> np.ndarray:
        """The unit vector of ``text`` (all zeros when none of its words is known)."""
        vector: np.ndarray = normalize(self._svd.transform(self._tfidf.transform([text])))[0]
        return vector

    def search(self, query: str, top_k: int) -> list[Hit]:
        """The ``top_k`` most similar chunks at or above ``min_similarity``, best first."""
        similarity = self._vectors @ self.embed(query)
        order = np.argsort(-similarity, kind="stable")[:top_k]
        return [
            Hit(self.chunks[i].id, round(float(similarity[i]), 6), self.chunks[i])
            for i in order
            if similarity[i] >= self.min_similarity
        ]

    def similarity(self, query: str, chunk_ids: Sequence[str]) -> dict[str, float]:
        """Cosine similarity of ``query`` to each of ``chunk_ids`` that is indexed."""
        position = {c.id: i for i, c in enumerate(self.chunks)}
        vector = self.embed(query)
        return {
            cid: float(self._vectors[position[cid]] @ vector)
            for cid in chunk_ids
            if cid in position
        }


def reciprocal_rank_fusion(rankings: Sequence[Sequence[Hit]], top_k: int) -> list[Hit]:
    """Fuse ranked lists: each chunk scores the sum of 1 / (RRF_K + rank) over the lists."""
    scores: dict[str, float] = {}
    chunks: dict[str, Chunk] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking, start=1):
            scores[hit.id] = scores.get(hit.id, 0.0) + 1.0 / (RRF_K + rank)
            chunks[hit.id] = hit.chunk
    best = sorted(scores, key=lambda cid: -scores[cid])[:top_k]
    return [Hit(cid, round(scores[cid], 6), chunks[cid]) for cid in best]
