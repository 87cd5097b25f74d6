"""A prompt's context indexed for alignment: sentences, word stems and where they occur.

Built once per context (all chunks together) and shared by every claim of the answer: each
sentence's folded text, the chunk it belongs to, and for every content-word stem the sentences
and token positions holding it. Facts (numbers, dates, amounts, codes) and negations are read
per sentence only when a claim asks (most sentences are never asked about).

The index is assembled from its chunks prepared one by one (``prepared.py``): with a
:class:`~ragfunnel.analyzer.judges.offline.prepared.ChunkCache` a chunk seen in an earlier
prompt is not prepared again, nor are its sentences' facts, negations and vectors found again.
A stem's sentences and positions are merged across the chunks when a claim first looks it up
(a claim asks for a few dozen of a context's thousand stems): each chunk's ids offset by the
chunks before it and added in the order a build in one go adds them, so the sets are the same,
down to the order they iterate in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

from ragfunnel.analyzer.judges.offline.language_sample import german_sample, sample
from ragfunnel.analyzer.judges.offline.prepared import ChunkCache, PreparedChunk, prepare
from ragfunnel.analyzer.judges.offline.words import is_german, reads_german, stem
from ragfunnel.analyzer.judges.verdict_types import Chunk
from ragfunnel.analyzer.language.lexicon import DAYS, fold
from ragfunnel.analyzer.language.terms import Fact, days, negated

if TYPE_CHECKING:
    from ragfunnel.analyzer.judges.offline.embed import Embedder

__all__ = ["ContextIndex"]

_UNSEEN: set[int] = set()
_ABSENT = object()
T = TypeVar("T")


def _chunk_reads_german(folded: str) -> bool:
    return reads_german(sample(folded))


class _Merged(Mapping[str, set[int]]):
    """A stem's members across the chunks (sentences or positions), each set made on first use.

    ``parts``: each chunk's stems with the offset of its ids; ``side``: 0 for the sentences,
    1 for the positions. A stem no chunk holds is absent.
    """

    __slots__ = ("_made", "_parts", "_side")

    def __init__(self, parts: list[tuple[dict[str, tuple[tuple[int, ...], tuple[int, ...]]], int]],
                 side: int) -> None:  # fmt: skip
        self._parts = parts
        self._side = side
        self._made: dict[str, set[int] | None] = {}

    def _make(self, root: str) -> set[int] | None:
        out: set[int] | None = None
        side = self._side
        for stems, offset in self._parts:
            held = stems.get(root)
            if held is not None:
                if out is None:
                    out = set(map(offset.__add__, held[side]))
                else:
                    out.update(map(offset.__add__, held[side]))
        self._made[root] = out
        return out

    def get(self, root: str, default: Any = None) -> Any:
        found = self._made.get(root, _UNSEEN)
        if found is _UNSEEN:
            found = self._make(root)
        return default if found is None else found

    def __getitem__(self, root: str) -> set[int]:
        found = self.get(root)
        if found is None:
            raise KeyError(root)
        return found  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(root for stems, _ in self._parts for root in stems))

    def __len__(self) -> int:
        return sum(1 for _ in self)


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
    postings: Mapping[str, set[int]] = field(default_factory=dict)
    positions: Mapping[str, set[int]] = field(default_factory=dict)
    words: str = ""
    tokens: set[str] = field(default_factory=set)
    numeric: list[bool] = field(default_factory=list)
    word_stems: dict[str, str] = field(default_factory=dict)
    embedder: Embedder | None = None
    _parts: list[PreparedChunk] = field(default_factory=list, repr=False)
    _first: list[int] = field(default_factory=list, repr=False)

    @classmethod
    def of(
        cls,
        chunks: Iterable[Chunk],
        paraphrase: bool | None = None,
        cache: ChunkCache | None = None,
    ) -> ContextIndex:
        """Index the chunks.

        ``paraphrase``: use the paraphrase embedding (``True`` requires the extra), or not;
        ``None`` uses it when ``ragfunnel[paraphrase]`` is installed. ``cache``: where prepared
        chunks are kept and found (``prepared.py``); ``None`` prepares every chunk anew.
        """
        listed = list(chunks)
        if cache is None:
            texts = [fold(c.text) for c in listed]
            german = is_german(sample(" ".join(texts)))
        else:
            kept = [cache.entry(c.text) for c in listed]
            texts = [k.folded for k in kept]
            german = german_sample((k.folded, k.sample_reading()) for k in kept)
        index = cls([c.id for c in listed], texts, german, embedder=_embedder(paraphrase))
        if cache is None:
            parts = [prepare(c.text, t, german) for c, t in zip(listed, texts, strict=True)]
        else:
            parts = [
                cache.prepared_in(k, c.text, german) for c, k in zip(listed, kept, strict=True)
            ]
        index._assemble(parts)
        return index

    @cached_property
    def day_sentences(self) -> dict[int, set[int]]:
        """The sentences naming each day of the week, ranges spanned (``terms.days``)."""
        out: dict[int, set[int]] = {}
        if len(self._parts) != len(self.ids):  # not assembled from prepared chunks
            for sid, sentence in enumerate(self.sentences):
                for day in days(sentence):
                    out.setdefault(day, set()).add(sid)
            return out
        # Read once per chunk when it was prepared (``PreparedChunk.days``), in sentence order.
        for part, first in zip(self._parts, self._first, strict=True):
            for local, named in part.days:
                for day in named:
                    out.setdefault(day, set()).add(first + local)
        return out

    @cached_property
    def chunk_languages(self) -> frozenset[bool]:
        """Whether each chunk reads as German (``words.reads_german``), as a set.

        ``{False, True}`` for a prompt holding chunks of both languages. Read once per prepared
        chunk (``PreparedChunk.reads_german``).
        """
        if len(self._parts) != len(self.ids):  # not assembled from prepared chunks
            return frozenset(_chunk_reads_german(text) for text in self.chunk_text)
        out = set()
        for part, text in zip(self._parts, self.chunk_text, strict=True):
            if part.reads_german is None:
                part.reads_german = _chunk_reads_german(text)
            out.add(part.reads_german)
        return frozenset(out)

    def derived(self, sid: int, name: str, read: Callable[[int], T]) -> T:
        """``read(sid)``, kept with sentence ``sid``'s prepared chunk as ``name`` (first use).

        For a reading of one sentence that its chunk's text alone decides (as ``fact_spans``):
        a chunk that comes back in many prompts is read once. Shared: never change what it
        returns.
        """
        if len(self._parts) != len(self.ids):
            return read(sid)
        part, local = self._part(sid)
        key = (name, local)
        found = part.derived.get(key, _ABSENT)
        if found is _ABSENT:
            found = part.derived[key] = read(sid)
        return found  # type: ignore[no-any-return]

    def _assemble(self, parts: list[PreparedChunk]) -> None:
        """The index of the prepared chunks, sentence ids and positions offset chunk by chunk."""
        word_stems, sentences, chunk_of, first = (
            self.word_stems,
            self.sentences,
            self.chunk_of,
            self._first,
        )
        by_sentence, by_position = [], []
        pos = 0
        for ci, part in enumerate(parts):
            sid = len(sentences)
            first.append(sid)
            sentences.extend(part.sentences)
            self.written.extend(part.written)
            self.numeric.extend(part.numeric)
            chunk_of.extend([ci] * len(part.sentences))
            self.tokens.update(part.tokens)
            word_stems.update(part.word_stems)
            by_sentence.append((part.stems, sid))
            by_position.append((part.stems, pos))
            pos += part.length
        self.postings = _Merged(by_sentence, 0)
        self.positions = _Merged(by_position, 1)
        self._parts = parts
        self.words = " " + " ".join(word_stems) + " "

    def _part(self, sid: int) -> tuple[PreparedChunk, int]:
        ci = self.chunk_of[sid]
        return self._parts[ci], sid - self._first[ci]

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

    def holding(self, word: str, root: str) -> set[int] | None:
        """The sentences holding a word: by its stem ``root``, inside a compound or as one."""
        where = self.postings.get(root)
        if where:
            return where
        if len(word) >= 5:
            inside = self.containing(word if len(root) < 5 else root)
            if inside:
                return inside
        if len(word) >= 8:
            for cut in range(4, len(word) - 3):
                head, tail = word[:cut], stem(word[cut:], self.german).lstrip("s")
                if len(tail) >= 4 and " " + head in self.words:
                    inside = self.containing(tail)
                    if inside:
                        return inside
        named = DAYS.get(word)
        if named and all(d in self.day_sentences for d in named):  # "mon" in "Monday to Friday"
            return set().union(*(self.day_sentences[d] for d in named))
        return None

    def fact_spans(self, sid: int) -> list[tuple[Fact, int, int]]:
        """``terms.facts`` of one sentence's folded text, with spans (found on first use).

        Kept with the sentence's prepared chunk: the list is shared, read it, never change it.
        """
        part, local = self._part(sid)
        return part.sentence_facts(local)

    def facts_of(self, sid: int) -> list[Fact]:
        """The facts of one sentence, as written (found on first use, kept with its chunk)."""
        if not self.numeric[sid]:
            return []
        part, local = self._part(sid)
        found = part.facts.get(local)
        if found is None:
            text, written = self.sentences[sid], self.written[sid]
            source = written if len(written) == len(text) else text
            spans = self.fact_spans(sid)
            found = part.facts[local] = [f.written_as(source[f.start : end]) for f, _, end in spans]
        return found

    def vector_of(self, sid: int) -> Any:
        """One sentence's tokens and summed vector (``embed.py``; made on first use)."""
        if self.embedder is None:
            return None
        part, local = self._part(sid)
        found = part.vectors.get(local)
        if found is None:
            found = part.vectors[local] = self.embedder.text(self.written[sid])
        return found

    def negation_of(self, sid: int) -> str:
        """The first negation word of one sentence, or ``""``."""
        part, local = self._part(sid)
        found = part.negation.get(local)
        if found is None:
            found = part.negation[local] = negated(self.sentences[sid])
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
