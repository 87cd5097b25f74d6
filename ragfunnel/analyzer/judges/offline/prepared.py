"""A chunk prepared once for the offline judge, and the bounded cache that keeps it.

Preparing a chunk — its sentences, their folded and written text, its tokens, the Snowball stem
of every content word and where each stem occurs — is most of the cost of indexing a prompt
(``index.py``). In a real app the same chunks come back in thousands of prompts, so a
:class:`ChunkCache` keeps each prepared chunk, keyed by a hash of its text (BLAKE2b, 16 bytes)
and of the one option that changes its preparation, the context's language (German or English
stems); the per-sentence facts, negation and paraphrase vectors are kept with it once asked for.
The cache is a least-recently-used one of :data:`CHUNK_CACHE` chunks by default.

A prepared chunk counts sentence ids and token positions from zero; ``ContextIndex`` offsets them
by the chunks before it, so an index assembled from prepared chunks is the one built in one go.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from hashlib import blake2b
from typing import Any

from ragfunnel.analyzer.judges.offline.language_sample import SampleReading, reading_of
from ragfunnel.analyzer.judges.offline.words import stem
from ragfunnel.analyzer.language.lexicon import (
    DAYS,
    LETTERS,
    META_WORDS,
    MONTHS,
    NEGATIONS,
    NUMBER_WORDS,
    STOPWORDS,
    TOKEN,
    fold,
)
from ragfunnel.analyzer.language.number_words import compound_number
from ragfunnel.analyzer.language.terms import Fact, days, facts, may_hold_facts

__all__ = [
    "CHUNK_CACHE",
    "CachedChunk",
    "ChunkCache",
    "PreparedChunk",
    "can_hold_facts",
    "chunk_text",
    "prepare",
    "sentence_spans",
]

CHUNK_CACHE = 1024
"""Prepared chunks a :class:`ChunkCache` keeps by default: a chunk of 200 words takes ~45 KiB
prepared, more with its facts and paraphrase vectors (a judge's peak memory grew by 33–110 MiB
on bench/judge_speed.py)."""

_SENTENCE = re.compile(r"(?<=[.!?;])[\"'”’)\]]*\s+|\s*\n\s*")
_AFTER_MARK = re.compile(r"[.!?;][\"'”’)\]]*\s+")
"""``_SENTENCE`` for a text without a line break, its match one character (the mark) earlier:
tried only at a mark instead of at every character, five times faster."""
_HYPHENATED = re.compile(r"(?<![^\W\d_])[^\W\d_]+(?:-[^\W\d_]+)+")
"""A hyphenated word ("hotel-pauschale"). It starts where a word does: tried from inside a
word, the pattern took the rest of the word and gave it back letter by letter (the same matches
in half the time; 3 % of the judge's time when no chunk repeats)."""
_NUMBER_WORDS = frozenset(NUMBER_WORDS)
_SKIP = STOPWORDS | META_WORDS | NEGATIONS
_DAY = re.compile(r"(?<![\d.])\d{1,2}\.$")


def _date_dot(text: str, end: int, after: int) -> bool:
    """A German day's dot before its month ("1. März 2025"): no sentence end."""
    if not _DAY.search(text, max(0, end - 4), end):
        return False
    word = LETTERS.match(text, after)
    return word is not None and fold(word.group(0)) in MONTHS


def _breaks(text: str) -> Iterator[tuple[int, int]]:
    """Where ``_SENTENCE`` matches in ``text``: its start and end."""
    if "\n" in text:
        return ((m.start(), m.end()) for m in _SENTENCE.finditer(text))
    # A match never holds a mark, so one found with its mark starts right after it.
    return ((m.start() + 1, m.end()) for m in _AFTER_MARK.finditer(text))


def _runs_on(cased: str, at: int, end: int) -> bool:
    """Whether a full stop and the space after it run on in one sentence: "the U.S. state of".

    A lowercase letter right after them (``cased``: the text as written) follows an abbreviation
    ("e.g. the", "approx. two", "et al. reported"). The answer's claim splitter
    (``language/claims.py``) also runs on past a quote or a bracket before the letter; read so,
    one more QAGS XSum sentence was judged unsupported (AUROC 0.712 → 0.694), so the context
    keeps the narrower rule. A line break ends the sentence whatever follows.
    """
    return (
        end < len(cased)
        and cased[end].islower()
        and cased[at - 1 : at] == "."
        and "\n" not in cased[at:end]
    )


def sentence_spans(text: str, cased: str | None = None) -> list[tuple[int, int]]:
    """Where each sentence of a text is (empty ones left out; "1. März" is no end).

    ``cased``: the text as written, when ``text`` is it or its folded form of the same length:
    then a full stop before a lowercase letter ends no sentence (:func:`_runs_on`).
    """
    out, start = [], 0
    for at, end in _breaks(text):
        if _date_dot(text, at, end) or (cased is not None and _runs_on(cased, at, end)):
            continue
        if at > start:
            out.append((start, at))
        start = end
    if start < len(text):
        out.append((start, len(text)))
    return out


def can_hold_facts(sentence: str, words: list[str]) -> bool:
    """Whether a folded sentence can state a fact (``terms.facts``); ``words``: its letter words.

    A digit or a currency sign, a number word, or a compound number: a sentence with none of
    these states no fact, and its facts are never looked for.
    """
    # "15st 4lbs" holds two facts though none of its tokens is all digits.
    return (
        may_hold_facts(sentence) or not _NUMBER_WORDS.isdisjoint(words) or compound_number(sentence)
    )


@dataclass
class PreparedChunk:
    """One chunk's text prepared for alignment, its ids and positions counted from zero.

    Held in tuples of strings and numbers, which the garbage collector stops tracking: a cache
    turning over thousands of chunks then adds almost nothing for its full collections to scan
    (with lists, they cost a fifth of the judge's time when no chunk repeats).

    Attributes:
        sentences: each sentence's folded text.
        written: each sentence as written.
        numeric: whether each sentence can hold a fact (:func:`can_hold_facts`).
        tokens: every token (letters or digits), folded.
        word_stems: each content word's stem, in the order the words first occur.
        stems: for each stem, in the order stems first occur, the sentences holding it and its
            positions among the chunk's letter tokens (from 1), each in increasing order.
        length: how many letter tokens the chunk has (where the next chunk's positions start).
        days: the sentences naming a day of the week, each with the days it names or spans
            (``terms.days``, in its order); the others name none.
        starts: where each sentence starts in the folded text, when folding kept the text's
            length (sentences are then slices of it); empty otherwise.
        spans, facts, negation, vectors: per sentence, found on first use (``ContextIndex``;
            ``spans`` through :meth:`sentence_facts`).
        reads_german: whether the chunk reads as German (``words.reads_german``), found on
            first use (``ContextIndex.chunk_languages``).
        derived: other readings of one sentence, by the reader's name and the sentence, found on
            first use (``ContextIndex.derived``).
        readings: readings of the whole chunk by other modules, by the reader's name, found on
            first use (the signals' amounts, ``run/signals.py``).
    """

    sentences: tuple[str, ...]
    written: tuple[str, ...]
    numeric: tuple[bool, ...]
    tokens: frozenset[str]
    word_stems: dict[str, str]
    stems: dict[str, tuple[tuple[int, ...], tuple[int, ...]]]
    length: int
    days: tuple[tuple[int, tuple[int, ...]], ...] = ()
    starts: tuple[int, ...] = ()
    spans: dict[int, list[tuple[Fact, int, int]]] = field(default_factory=dict, repr=False)
    facts: dict[int, list[Fact]] = field(default_factory=dict, repr=False)
    negation: dict[int, str] = field(default_factory=dict, repr=False)
    vectors: dict[int, Any] = field(default_factory=dict, repr=False)
    reads_german: bool | None = field(default=None, repr=False)
    derived: dict[tuple[str, int], Any] = field(default_factory=dict, repr=False)
    readings: dict[str, Any] = field(default_factory=dict, repr=False)

    def sentence_facts(self, local: int) -> list[tuple[Fact, int, int]]:
        """``terms.facts`` of sentence ``local`` (from zero), with spans: found once, then kept.

        Shared by every prompt holding the chunk: read the list, never change it.
        """
        found = self.spans.get(local)
        if found is None:
            found = self.spans[local] = facts(self.sentences[local])
        return found


def prepare(text: str, folded: str, german: bool) -> PreparedChunk:
    """Prepare one chunk: ``folded`` is ``fold(text)``, ``german`` the context's language."""
    skip = _SKIP
    stems: dict[str, tuple[list[int], list[int]]] = {}
    word_stems: dict[str, str] = {}
    sentences: list[str] = []
    written_out: list[str] = []
    numeric: list[bool] = []
    seen: set[str] = set()
    named: list[tuple[int, tuple[int, ...]]] = []
    same = len(folded) == len(text)
    starts: list[int] = []
    pos = 0
    for a, b in sentence_spans(folded if same else text, text):
        written = text[a:b]
        sentence = folded[a:b] if same else fold(written)
        sid = len(sentences)
        sentences.append(sentence)
        starts.append(a)
        written_out.append(written)
        seen.update(TOKEN.findall(sentence))
        words = LETTERS.findall(sentence)
        if not DAYS.keys().isdisjoint(words):  # the words terms.days reads: few sentences
            named.append((sid, tuple(days(sentence))))
        numeric.append(can_hold_facts(sentence, words))
        if "-" in sentence:
            words.extend(h.replace("-", "") for h in _HYPHENATED.findall(sentence))
        for word in words:
            pos += 1
            if word in skip:
                continue
            root = word_stems.get(word)
            if root is None:
                root = word_stems[word] = stem(word, german)
            where = stems.get(root)
            if where is None:
                stems[root] = ([sid], [pos])
            else:
                if where[0][-1] != sid:
                    where[0].append(sid)
                where[1].append(pos)
    return PreparedChunk(
        tuple(sentences), tuple(written_out), tuple(numeric), frozenset(seen), word_stems,
        {root: (tuple(ids), tuple(places)) for root, (ids, places) in stems.items()}, pos,
        tuple(named), tuple(starts) if same else (),
    )  # fmt: skip


def _key(text: str) -> bytes:
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


@dataclass
class CachedChunk:
    """What a :class:`ChunkCache` keeps of one chunk text.

    Attributes:
        folded: the folded text.
        by_language: the chunk prepared for a context of each language it was met in.
        sample: its reading for the language samples of the prompts that hold it
            (``language_sample.py``), found when the chunk comes back (:meth:`sample_reading`).
        met: how many prompts have asked for that reading (it is read in the second).
    """

    folded: str
    by_language: dict[bool, PreparedChunk] = field(default_factory=dict)
    sample: SampleReading | None = None
    met: int = 0

    def sample_reading(self) -> SampleReading | None:
        """The chunk's reading for a prompt's language sample, once the chunk comes back.

        ``None`` in the first prompt that asks (the sample tokenises what it takes of the
        chunk); read in the second, then kept.
        """
        if self.sample is None:
            self.met += 1
            if self.met < 2:
                return None
            self.sample = reading_of(self.folded)
        return self.sample


class ChunkCache:
    """Prepared chunks by a hash of their text, the least recently used dropped past ``size``.

    ``size``: how many chunks to keep (default :data:`CHUNK_CACHE`; at least 1). A chunk is
    prepared per language of the contexts it appears in (a German context stems it German).
    """

    def __init__(self, size: int = CHUNK_CACHE) -> None:
        if size < 1:
            raise ValueError(f"a chunk cache keeps at least one chunk, not {size}")
        self.size = size
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[bytes, CachedChunk] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def entry(self, text: str) -> CachedChunk:
        """What the cache keeps of a chunk text: found (now the most recent), or made now."""
        key = _key(text)
        entries = self._entries
        found = entries.get(key)
        if found is None:
            found = entries[key] = CachedChunk(fold(text))
            if len(entries) > self.size:
                entries.popitem(last=False)
        else:
            entries.move_to_end(key)
        return found

    def folded(self, text: str) -> str:
        """The chunk's folded text (kept with the chunk)."""
        return self.entry(text).folded

    def prepared(self, text: str, german: bool) -> PreparedChunk:
        """The chunk prepared for a context in this language: from the cache, or made now."""
        return self.prepared_in(self.entry(text), text, german)

    def prepared_in(self, entry: CachedChunk, text: str, german: bool) -> PreparedChunk:
        """:meth:`prepared` of ``text`` whose :meth:`entry` the caller holds (no second hash)."""
        found = entry.by_language.get(german)
        if found is None:
            self.misses += 1
            found = entry.by_language[german] = prepare(text, entry.folded, german)
        else:
            self.hits += 1
        return found

    def peek(self, text: str) -> tuple[str, PreparedChunk] | None:
        """The chunk's folded text and a prepared chunk of it, if kept; counts and moves nothing.

        The prepared chunk of either language: its sentences, their starts and facts are the
        same in both (only the stems differ).
        """
        entry = self._entries.get(_key(text))
        if entry is None or not entry.by_language:
            return None
        return entry.folded, next(iter(entry.by_language.values()))


def chunk_text(cache: ChunkCache | None, text: str) -> str:
    """The folded text of a chunk, through the cache when there is one."""
    return fold(text) if cache is None else cache.folded(text)
