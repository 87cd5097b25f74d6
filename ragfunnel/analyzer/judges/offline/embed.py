"""Paraphrase evidence from a small static embedding: WordLlama (optional, ``ragfunnel[paraphrase]``).

WordLlama (PyPI ``wordllama``, MIT) ships its weights in the wheel: a 32,000 × 256 token
embedding matrix (``l2_supercat_256``, 16 MB, distilled from large language models' input
embeddings) and its tokenizer, so it needs no model hub and no network. A text's vector is the
mean of its tokens' vectors (WordLlama's own pooling). Nothing here runs a neural network: a
text's vector is a cached tokenization and a sum, a few microseconds a sentence.

Two measures come from it (``align.py``): the cosine of the claim with its best window, a
feature of the score, and the window share *softened* by the cosine of the claim words the
window lacks with the window (``physician prescribed medication`` against ``the doctor gave
him drugs``), which decides whether a claim holds enough of its content to be supported.

:func:`load` returns ``None`` when the extra is not installed: the judge then scores without
them, with its own fitted coefficients (``score.py``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

__all__ = ["MODEL", "Embedder", "load"]

MODEL = "wordllama l2_supercat, 256 dimensions"
"""The model, as the docs name it."""
_PIECE_CACHE = 1 << 16


@dataclass
class _Text:
    """A text's summed token vector, its norm and its token count."""

    total: Any
    norm: float
    count: int


@dataclass
class Embedder:
    """WordLlama's token vectors and tokenizer, with a cache of each word's token ids.

    The tokenizer (SentencePiece BPE) never merges across a space, so a text's tokens are its
    space-separated pieces' tokens (a run of spaces counting as one): each piece is tokenized
    once and cached.

    Attributes:
        matrix: the token vectors.
        tokenizer: WordLlama's tokenizer (padding off).
    """

    matrix: np.ndarray
    tokenizer: Any
    _np: Any = field(repr=False, default=None)
    _pieces: dict[str, list[int]] = field(repr=False, default_factory=dict)

    def ids(self, text: str) -> list[int]:
        """A text's token ids."""
        pieces, out = self._pieces, list[int]()
        for piece in text.split():
            found = pieces.get(piece)
            if found is None:
                if len(pieces) >= _PIECE_CACHE:
                    pieces.clear()
                found = pieces[piece] = self.tokenizer.encode(piece, add_special_tokens=False).ids
            out.extend(found)
        return out

    def text(self, text: str) -> _Text:
        """A text's summed token vector."""
        ids = self.ids(text)
        if not ids:
            return _Text(None, 0.0, 0)
        total = self.matrix[ids].sum(axis=0)
        return _Text(total, float(self._np.sqrt(total @ total)), len(ids))

    def cosine(self, a: _Text, parts: list[_Text]) -> float:
        """The cosine of a text with the mean of others (0 when either is empty)."""
        parts = [p for p in parts if p.count]
        if not a.count or not parts:
            return 0.0
        if len(parts) == 1:
            other, norm = parts[0].total, parts[0].norm
        else:
            other = sum(p.total for p in parts)
            norm = float(self._np.sqrt(other @ other))
        return float(a.total @ other) / (a.norm * norm) if norm > 0 and a.norm > 0 else 0.0


@lru_cache(maxsize=1)
def load() -> Embedder | None:
    """The embedder, loaded once from the installed wheel; ``None`` without the extra.

    WordLlama 0.4's ``load`` looks for the tokenizer under ``tokenizer/`` in the package while
    the wheel ships it under ``tokenizers/`` (then it would try a download): the package folder
    is passed as its cache folder, where it finds both files. Importing wordllama calls
    ``logging.basicConfig``; the root logger's handlers and level are put back as they were.
    """
    try:
        import numpy as np
    except ImportError:
        return None
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        import wordllama  # type: ignore[import-untyped]
        from wordllama import WordLlama
    except ImportError:
        return None
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    model = WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
    tokenizer = model.tokenizer
    tokenizer.no_padding()
    return Embedder(np.ascontiguousarray(model.embedding, dtype=np.float32), tokenizer, np)
