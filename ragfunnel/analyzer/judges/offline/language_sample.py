"""The language of a prompt, read from a sample of its first words.

A context reads as German when its sample holds German function words (``words.is_german``).
The sample is the first :data:`SAMPLE_TOKENS` tokens (``words.tokens``) of the first
:data:`SAMPLE_CHARS` characters of its chunks' folded texts joined by spaces.

Tokenising that text again for every prompt was 5 % of the judge's time when chunks repeat
(bench/RESULTS.md, "Issue 35, twenty-third session"). So each chunk's own sample is read once
(:func:`reading_of`, kept with the chunk in ``prepared.ChunkCache``): how many tokens it holds
and which of them are German function words. A prompt's sample is then put together from its
chunks' readings (:func:`german_sample`), with the same tokens, and the same answer, as
tokenising the joined text: a space joins the chunks and no token holds a space, so the joined
text's tokens are each chunk's tokens in turn. The chunk the sample's characters run out in is
tokenised again up to the cut, and so is a chunk met for the first time (its reading would cost
more than tokenising the part the sample takes: when no chunk repeats, it did).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass

from ragfunnel.analyzer.judges.offline.words import WORD_TOKEN, marks_german, tokens
from ragfunnel.analyzer.language.lexicon import GERMAN_MARKERS

__all__ = [
    "SAMPLE_CHARS",
    "SAMPLE_TOKENS",
    "SampleReading",
    "german_sample",
    "reading_of",
    "sample",
    "sample_counts",
]

SAMPLE_TOKENS = 400
"""Tokens a language sample holds at most."""
SAMPLE_CHARS = SAMPLE_TOKENS * 8
"""Characters of the text a language sample is taken from."""


def sample(folded: str) -> list[str]:
    """The language sample of one folded text."""
    return tokens(folded[:SAMPLE_CHARS])[:SAMPLE_TOKENS]


@dataclass(frozen=True)
class SampleReading:
    """One chunk's own sample (:func:`sample`), as a prompt's sample needs it.

    Attributes:
        count: how many tokens it holds.
        german: the positions (from 0, increasing) of the German function words among them.
    """

    count: int
    german: tuple[int, ...]


def reading_of(folded: str) -> SampleReading:
    """Read a chunk's folded text for the samples of the prompts that hold it."""
    found = sample(folded)
    return SampleReading(
        len(found), tuple(n for n, token in enumerate(found) if token in GERMAN_MARKERS)
    )


def german_sample(chunks: Iterable[tuple[str, SampleReading | None]]) -> bool:
    """Whether a prompt reads as German: ``words.is_german`` of its sample.

    ``chunks``: each chunk's folded text and its reading (``None``: none yet), in prompt
    order. The same answer as ``is_german(sample(" ".join(texts)))`` (see the module
    docstring).
    """
    return marks_german(*sample_counts(chunks))


def sample_counts(chunks: Iterable[tuple[str, SampleReading | None]]) -> tuple[int, int]:
    """The German function words in a prompt's sample, and its tokens (:func:`german_sample`)."""
    room, left, hits, count = SAMPLE_CHARS, SAMPLE_TOKENS, 0, 0
    for folded, reading in chunks:
        if room <= 0 or left <= 0:
            break
        if reading is not None and (len(folded) <= room or room == SAMPLE_CHARS):
            # Whole, or cut where the chunk's own sample is cut.
            taken = min(reading.count, left)
            hits += bisect_left(reading.german, taken)
        else:  # no reading yet, or the characters run out in this chunk: its tokens to the cut
            cut = WORD_TOKEN.findall(folded, 0, room)[:left]
            taken = len(cut)
            hits += sum(token in GERMAN_MARKERS for token in cut)
        count += taken
        left -= taken
        room -= len(folded) + 1
    return hits, count
