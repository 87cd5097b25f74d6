"""A prompt's context indexed for alignment: sentences, word stems and where they occur.

Built once per context (all chunks together) and shared by every claim of the answer: each
sentence's folded text, the chunk it belongs to, and for every content-word stem the sentences
and token positions holding it. Facts (numbers, dates, amounts, codes) and negations are read
per sentence only when a claim asks (most sentences are never asked about).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ragfunnel.analyzer.judges.offline.words import META, is_german, stem, tokens
from ragfunnel.analyzer.judges.verdict_types import Chunk
from ragfunnel.analyzer.language.lexicon import MONTHS, NEGATIONS, NUMBER_WORDS, STOPWORDS, fold
from ragfunnel.analyzer.language.terms import Fact, facts, may_hold_facts, negated

if TYPE_CHECKING:
    from ragfunnel.analyzer.judges.offline.embed import Embedder

__all__ = ["ContextIndex"]

_SENTENCE = re.compile(r"(?<=[.!?;])[\"'”’)\]]*\s+|\s*\n\s*")
_PLAIN = re.compile(r"[^\W_]+")
_ALPHA = re.compile(r"[^\W\d_]+")
_HYPHENATED = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")
_NUMBER_WORDS = frozenset(NUMBER_WORDS)
_LANGUAGE_SAMPLE = 400
_SKIP = STOPWORDS | META | NEGATIONS


_DAY = re.compile(r"(?<![\d.])\d{1,2}\.$")
_NEXT_WORD = re.compile(r"[^\W\d_]+")


def _date_dot(text: str, end: int, after: int) -> bool:
    """A German day's dot before its month ("1. März 2025"): no sentence end."""
    if not _DAY.search(text, max(0, end - 4), end):
        return False
    word = _NEXT_WORD.match(text, after)
    return word is not None and fold(word.group(0)) in MONTHS


def _spans(text: str) -> list[tuple[int, int]]:
    """Where each sentence of a text is (empty ones left out; "1. März" is no end)."""
    out, start = [], 0
    for m in _SENTENCE.finditer(text):
        if _date_dot(text, m.start(), m.end()):
            continue
        if m.start() > start:
            out.append((start, m.start()))
        start = m.end()
    if start < len(text):
        out.append((start, len(text)))
    return out


@dataclass
class ContextIndex:
    """The indexed context (see the module docstring).

    Attributes:
        ids: each chunk's id.
        chunk_text: each chunk's folded text.
        german: whether the context reads as German (its stems are German Snowball stems).
        sentences: each sentence's folded text, across chunks in order.
        written: each sentence as written (for quoting what the context says).
        chunk_of: the chunk of each sentence.
        postings: for each content-word stem, the sentences holding it.
        positions: for each content-word stem, its positions among the context's letter tokens.
        words: every folded content word, once, space-separated (for compound look-ups).
        word_stems: each content word's stem.
        tokens: every token (letters or digits) of the context, folded.
        numeric: whether each sentence can hold a fact (a digit, a number word, a currency).
        embedder: the paraphrase embedding (``embed.py``), or ``None`` to score without it.
    """

    ids: list[str]
    chunk_text: list[str]
    german: bool
    sentences: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    chunk_of: list[int] = field(default_factory=list)
    postings: dict[str, set[int]] = field(default_factory=dict)
    positions: dict[str, set[int]] = field(default_factory=dict)
    words: str = ""
    tokens: set[str] = field(default_factory=set)
    numeric: list[bool] = field(default_factory=list)
    word_stems: dict[str, str] = field(default_factory=dict)
    embedder: Embedder | None = None
    _vectors: dict[int, Any] = field(default_factory=dict, repr=False)
    _facts: dict[int, list[Fact]] = field(default_factory=dict, repr=False)
    _negation: dict[int, str] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, chunks: Iterable[Chunk], paraphrase: bool | None = None) -> ContextIndex:
        """Index the chunks.

        ``paraphrase``: use the paraphrase embedding (``True`` requires the extra), or not;
        ``None`` uses it when ``ragfunnel[paraphrase]`` is installed.
        """
        listed = list(chunks)
        texts = [fold(c.text) for c in listed]
        sample = tokens(" ".join(texts)[: _LANGUAGE_SAMPLE * 8])[:_LANGUAGE_SAMPLE]
        index = cls(
            [c.id for c in listed], texts, is_german(sample), embedder=_embedder(paraphrase)
        )
        index._build([c.text for c in listed])
        return index

    def _build(self, texts: list[str]) -> None:
        german, skip, numbers = self.german, _SKIP, _NUMBER_WORDS
        postings, positions, word_stems = self.postings, self.positions, self.word_stems
        sentences, written_out, chunk_of = self.sentences, self.written, self.chunk_of
        seen, numeric = self.tokens, self.numeric
        pos = 0
        for ci, text in enumerate(texts):
            folded = self.chunk_text[ci]
            same = len(folded) == len(text)
            for a, b in _spans(folded if same else text):
                written = text[a:b]
                sentence = folded[a:b] if same else fold(written)
                sid = len(sentences)
                sentences.append(sentence)
                written_out.append(written)
                chunk_of.append(ci)
                plain = _PLAIN.findall(sentence)
                seen.update(plain)
                words = _ALPHA.findall(sentence)
                # "15st 4lbs" holds two facts though none of its tokens is all digits.
                numeric.append(may_hold_facts(sentence) or not numbers.isdisjoint(words))
                if "-" in sentence:
                    words.extend(h.replace("-", "") for h in _HYPHENATED.findall(sentence))
                for word in words:
                    pos += 1
                    if word in skip:
                        continue
                    root = word_stems.get(word)
                    if root is None:
                        root = word_stems[word] = stem(word, german)
                    where = postings.get(root)
                    if where is None:
                        postings[root] = {sid}
                        positions[root] = {pos}
                    else:
                        where.add(sid)
                        positions[root].add(pos)
        self.words = " " + " ".join(word_stems) + " "

    def containing(self, part: str) -> set[int]:
        """The sentences holding a content word that contains ``part`` (a compound's piece)."""
        out: set[int] = set()
        start = self.words.find(part)
        while start >= 0:
            begin = self.words.rfind(" ", 0, start) + 1
            end = self.words.find(" ", start)
            out |= self.postings.get(self.word_stems[self.words[begin:end]], set())
            start = self.words.find(part, end)
        return out

    def facts_of(self, sid: int) -> list[Fact]:
        """The facts of one sentence (found on first use)."""
        if not self.numeric[sid]:
            return []
        found = self._facts.get(sid)
        if found is None:
            text, written = self.sentences[sid], self.written[sid]
            source = written if len(written) == len(text) else text
            found = [replace(f, text=source[f.start : end]) for f, _, end in facts(text)]
            self._facts[sid] = found
        return found

    def vector_of(self, sid: int) -> Any:
        """One sentence's tokens and summed vector (``embed.py``; made on first use)."""
        found = self._vectors.get(sid)
        if found is None and self.embedder is not None:
            found = self._vectors[sid] = self.embedder.text(self.written[sid])
        return found

    def negation_of(self, sid: int) -> str:
        """The first negation word of one sentence, or ``""``."""
        found = self._negation.get(sid)
        if found is None:
            found = self._negation[sid] = negated(self.sentences[sid])
        return found


def _embedder(paraphrase: bool | None) -> Embedder | None:
    if paraphrase is False:
        return None
    from ragfunnel.analyzer.judges.offline.embed import load

    found = load()
    if found is None and paraphrase:
        raise RuntimeError(
            "the paraphrase embedding needs the extra: pip install 'ragfunnel[paraphrase]'"
        )
    return found
