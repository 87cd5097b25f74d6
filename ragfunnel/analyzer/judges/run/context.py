"""The prompt's context prepared for the offline judge: folded text, words, facts, sentences.

Each chunk text is prepared once (and kept in a bounded cache, since the same chunks come back
question after question); the matching primitives — is this word in there, by stem or inside a
compound; which facts are there, and in which sentence — live here too. This module matches; it
never decides a verdict.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

from ragfunnel.analyzer.judges.offline.words import stem as snowball
from ragfunnel.analyzer.language.lexicon import NEGATIONS, fold
from ragfunnel.analyzer.language.terms import Fact, facts, negated

__all__ = ["Prepared", "Text", "prepare", "stem", "where", "word_in"]

_PUNCTUATION = ".,;:!?()[]{}\"'„“”«»/*`<>|"
_SENTENCE_END = re.compile(r"[.!?;:]\s+|\n+")
MIN_STEM = 4
_CACHE = 8192


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """A folded word's stem for a prefix search in either language, at least four letters long.

    The shorter of its English and German Snowball stems (the offline judge's stemmer,
    ``offline/words.py``): the signals do not know the context's language, and a prefix search
    finds a word by the shorter stem in both.
    """
    if len(word) <= MIN_STEM:
        return word
    root = min(snowball(word, False), snowball(word, True), key=len)
    return root if len(root) >= MIN_STEM else word[:MIN_STEM]


@dataclass
class Text:
    """Folded words of a text, as a set and as one space-padded string for prefix search."""

    words: frozenset[str]
    spaced: str

    @classmethod
    def of(cls, folded: str) -> Text:
        """The words of a folded text."""
        # split() and strip() beat a tokenising regex by half; the padded text serves the
        # prefix searches ("a word starting with this stem").
        words = {token.strip(_PUNCTUATION) for token in folded.split()}
        if "-" in folded:
            for token in [t for t in words if "-" in t]:
                words.update(token.split("-"))
                words.add(token.replace("-", ""))
        return cls(frozenset(words), " " + folded + " ")


def _direct(word: str, root: str, text: Text) -> bool:
    return (
        word in text.words
        or (len(root) >= MIN_STEM and " " + root in text.spaced)
        or (len(word) >= 6 and word in text.spaced)
    )


def _splits(word: str) -> list[tuple[str, str]]:
    """A compound's candidate (head, stemmed tail) pairs; none for words under eight letters."""
    if len(word) < 8:
        return []
    pairs = []
    for cut in range(4, len(word) - 3):
        tail = stem(word[cut:]).lstrip("s")
        if len(tail) >= MIN_STEM:
            pairs.append((" " + word[:cut], tail))
    return pairs


def word_in(word: str, text: Text, root: str | None = None) -> bool:
    """Whether a folded word is in ``text``: exactly, by stem, inside or split as a compound.

    ``root`` is the word's :func:`stem` when the caller has it already.
    """
    if _direct(word, stem(word) if root is None else root, text):
        return True
    return any(head in text.spaced and tail in text.spaced for head, tail in _splits(word))


def where(word: str, texts: list[Text]) -> set[int]:
    """The indexes of the texts holding ``word`` (see :func:`word_in`).

    Compound splits are tried only when no text holds the word directly.
    """
    root = stem(word)
    found = {i for i, text in enumerate(texts) if _direct(word, root, text)}
    if found:
        return found
    pairs = _splits(word)
    if not pairs:
        return found
    return {
        i for i, text in enumerate(texts)
        if any(head in text.spaced and tail in text.spaced for head, tail in pairs)
    }  # fmt: skip


@dataclass
class Prepared:
    """One chunk text, prepared.

    Attributes:
        folded: the folded text.
        text: its words.
        facts: its facts, each quoting the original text with its bound phrase.
        fact_starts: where each fact starts in the folded text.
    """

    folded: str
    text: Text
    facts: tuple[Fact, ...]
    fact_starts: tuple[int, ...]
    negated: bool
    _starts: list[int] | None = field(default=None, repr=False)
    _sentences: list[tuple[Text, str]] | None = field(default=None, repr=False)

    @property
    def starts(self) -> list[int]:
        """Where each sentence starts (found on first use)."""
        if self._starts is None:
            self._starts = [0, *(m.end() for m in _SENTENCE_END.finditer(self.folded))]
        return self._starts

    def fact_sentence(self, k: int) -> int:
        """The index of the sentence fact ``k`` is in."""
        return bisect.bisect_right(self.starts, self.fact_starts[k]) - 1

    def sentence_text(self, index: int) -> str:
        """The folded text of one sentence."""
        starts = self.starts
        end = starts[index + 1] if index + 1 < len(starts) else len(self.folded)
        return self.folded[starts[index] : end]

    def sentences(self) -> list[tuple[Text, str]]:
        """Each sentence's words and its first negation word (``""`` if none); built on demand."""
        if self._sentences is None:
            bounds = [*self.starts, len(self.folded)]
            out = []
            for a, b in itertools.pairwise(bounds):
                part = self.folded[a:b]
                words = frozenset(token.strip(_PUNCTUATION) for token in part.split())
                negation = negated(part) if self.negated else ""
                out.append((Text(words, " " + part + " "), negation))
            self._sentences = out
        return self._sentences


@lru_cache(maxsize=_CACHE)
def prepare(text: str) -> Prepared:
    """The prepared form of a chunk text (cached: chunks repeat across questions)."""
    folded = fold(text)
    source = text if len(text) == len(folded) else folded
    words = Text.of(folded)
    found = facts(folded, words.words)
    # The fact as written, with its bound phrase: what a message quotes from the context.
    quoted = tuple(replace(f, text=source[f.start : end]) for f, _, end in found)
    has_negation = bool(words.words & NEGATIONS) or "n't" in folded
    return Prepared(folded, words, quoted, tuple(s for _, s, _ in found), has_negation)
