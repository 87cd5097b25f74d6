"""A prompt's language sample put together from its chunks' readings is the joined text's."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.offline.language_sample import (
    SAMPLE_CHARS,
    SAMPLE_TOKENS,
    german_sample,
    reading_of,
    sample,
    sample_counts,
)
from ragfunnel.analyzer.judges.offline.prepared import ChunkCache
from ragfunnel.analyzer.judges.offline.words import is_german
from ragfunnel.analyzer.judges.verdict_types import Chunk
from ragfunnel.analyzer.language.lexicon import GERMAN_MARKERS, fold

# Words that make a token, break one or join two: German function words, English ones, hyphens
# (a token the cut runs through, "hotel-pau|schale"), digits, punctuation and runs of spaces.
_PIECES = st.sampled_from(
    ["der", "die", "und", "nicht", "the", "and", "hotel", "-", "pauschale", "2024", "ä", "ß",
     " ", "  ", ".", ", ", "_", "\n", "x" * 37]
)  # fmt: skip
_TEXT = st.lists(_PIECES, max_size=400).map("".join)


def _joined(texts: list[str]) -> tuple[int, int]:
    found = sample(" ".join(texts))
    return sum(t in GERMAN_MARKERS for t in found), len(found)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(_TEXT, st.booleans()), max_size=8))
def test_the_sample_from_readings_is_the_joined_texts(chunks: list[tuple[str, bool]]) -> None:
    """Each chunk read before (a reading) or met for the first time (none): the same sample."""
    texts = [t for t, _ in chunks]
    read = [(t, reading_of(t) if kept else None) for t, kept in chunks]
    assert sample_counts(read) == _joined(texts)


def test_the_cut_falls_inside_a_token_inside_a_chunk_and_past_the_token_budget() -> None:
    long = "die hotel-pauschale und " * 200  # longer than the sample's characters alone
    cases = [
        [long],
        ["und " * 50, long],  # the characters run out inside the second chunk
        ["a" * (SAMPLE_CHARS - 3), "hotel-pauschale"],  # the cut runs through a hyphenated token
        ["a" * (SAMPLE_CHARS - 1), "der"],  # nothing of the second chunk is in the sample
        ["", "", "der die"],  # empty chunks still take their joining space
        ["the and " * (SAMPLE_TOKENS // 2 - 1), "der die das"],  # the tokens run out first
    ]
    for texts in cases:
        assert sample_counts((t, reading_of(t)) for t in texts) == _joined(texts), texts
        assert sample_counts((t, None) for t in texts) == _joined(texts), texts
        assert german_sample((t, reading_of(t)) for t in texts) == is_german(
            sample(" ".join(texts))
        )


def test_a_cached_prompt_reads_its_language_as_one_built_anew() -> None:
    german = "Die Pauschale beträgt 120 Euro pro Nacht und ist nicht erstattungsfähig. " * 3
    english = "The hotel allowance is 120 EUR a night and the policy does not change it. " * 3
    cache = ChunkCache(8)
    for texts in ([english, german], [german, english], [english * 6, german], [german] * 3):
        chunks = [Chunk(str(n), t) for n, t in enumerate(texts)]
        fresh = ContextIndex.of(chunks, paraphrase=False)
        kept = ContextIndex.of(iter(chunks), paraphrase=False, cache=cache)
        assert kept.german == fresh.german == is_german(sample(fold(" ".join(texts))))
    assert ContextIndex.of([Chunk("1", german)], paraphrase=False, cache=cache).german
    # A chunk is read for the sample when it comes back, not when it is first met.
    once, twice = cache.entry("Ein neuer Absatz und nicht mehr."), cache.entry(german)
    assert once.sample is None and twice.sample is not None
