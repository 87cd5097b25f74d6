"""Issue 35: the offline judge prepares a chunk once, and the cache changes no verdict.

Prompts draw their chunks from one shared corpus, so the same chunks come back in many prompts
(as in a real app), in other orders and beside other chunks — and in German and English
contexts, whose stems differ. Every verdict must be the one a judge without a cache gives.
The cross-language path (``multilingual``) reads only the sentences as written, and is left out:
its encoder takes a quarter of a second per claim.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragfunnel.analyzer.judges import Chunk
from ragfunnel.analyzer.judges.offline import OfflineJudge
from ragfunnel.analyzer.judges.offline import prepared as prepared_module
from ragfunnel.analyzer.judges.offline.hard import neighbours, places
from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.offline.names import _initials
from ragfunnel.analyzer.judges.offline.prepared import (
    ChunkCache,
    chunk_text,
    prepare,
)
from ragfunnel.analyzer.judges.offline.words import reads_german, tokens
from ragfunnel.analyzer.judges.verdict_types import AnswerVerdict
from ragfunnel.analyzer.language.lexicon import LETTERS, fold
from ragfunnel.analyzer.language.terms import facts

CORPUS = [
    Chunk("hotel", "Die Hotelpauschale beträgt 120 EUR pro Nacht. Frühstück ist nicht enthalten."),
    Chunk("taxi", "Ein Taxi ist ab 22:00 Uhr erlaubt; vorher gilt der ÖPNV."),
    Chunk(
        "parking",
        "Parkgebühren am Flughafen werden bis 20 EUR pro Tag erstattet.\n"
        "Belege sind innerhalb von 30 Tagen einzureichen.",
    ),
    Chunk(
        "deadline",
        "Der Antrag ist bis zum 1. März 2025 einzureichen. Reise-Kosten ohne Beleg "
        "werden nicht erstattet.",
    ),
    Chunk(
        "laptop",
        "The service desk can lock a lost laptop remotely. Employees must report a "
        "lost device within 24 hours. Loaner laptops are available at the front desk.",
    ),
    Chunk(
        "leave",
        "Employees may carry over up to five unused days into the next year, provided "
        "their manager approves the request before the end of March.",
    ),
    Chunk(
        "travel",
        "Business travel above 500 EUR needs the approval of the department head. "
        "Economy class is the rule for flights under six hours; long-haul flights "
        "may be booked in premium economy.",
    ),
    Chunk(
        "badge",
        "Lost badges are replaced by facility management for a fee of 15 EUR. "
        "Visitors never receive a permanent badge.",
    ),
]
ANSWERS = [
    "Die Hotelpauschale beträgt 120 Euro pro Nacht. Ein Taxi ist jederzeit erlaubt.",
    "Die Hotelpauschale beträgt 150 EUR pro Nacht, Frühstück inklusive.",
    "Parkgebühren werden bis 20 EUR pro Tag erstattet. Belege sind binnen 60 Tagen einzureichen.",
    "Der Antrag ist bis zum 1. März 2025 einzureichen.",
    "The service desk locks a lost laptop remotely. A lost device must be reported within 48 "
    "hours.",
    "Employees may carry over five unused days if their manager approves. Loaner laptops are "
    "always available.",
    "Travel above 500 EUR needs the department head's approval. Long-haul flights are booked "
    "in business class.",
    "Visitors receive a permanent badge. A lost badge costs 15 EUR to replace.",
    "Dazu habe ich keine Informationen.",
]


def _workload(n: int, seed: int = 35) -> list[tuple[str, list[Chunk]]]:
    """``n`` answers, each against 2 to 5 chunks drawn from the shared corpus."""
    rng = random.Random(seed)
    return [(rng.choice(ANSWERS), rng.sample(CORPUS, rng.randint(2, 5))) for _ in range(n)]


def _judged(judge: OfflineJudge, work: list[tuple[str, list[Chunk]]]) -> list[AnswerVerdict]:
    # Contexts as the public API takes them: generators, (id, text) pairs, chunks.
    out = []
    for n, (answer, chunks) in enumerate(work):
        if n % 2:
            out.append(judge.judge(answer, ((c.id, c.text) for c in chunks)))
        else:
            out.append(judge.judge(answer, iter(chunks)))
    return out


@pytest.mark.parametrize("paraphrase", [False, True], ids=["plain", "paraphrase"])
def test_the_chunk_cache_changes_no_verdict(paraphrase: bool) -> None:
    work = _workload(120)
    uncached = _judged(OfflineJudge(paraphrase=paraphrase, multilingual=False, chunk_cache=0), work)
    cached = OfflineJudge(paraphrase=paraphrase, multilingual=False)
    again = _judged(cached, work)
    assert again == uncached
    assert cached.chunks is not None and cached.chunks.hits > 10 * cached.chunks.misses
    evicting = OfflineJudge(paraphrase=paraphrase, multilingual=False, chunk_cache=2, claim_cache=1)
    assert _judged(evicting, work) == uncached
    assert {c.label for v in uncached for c in v.claims} == {
        "supported",
        "unsupported",
        "uncertain",
    }
    assert any(v.abstained for v in uncached)


def test_an_index_assembled_from_cached_chunks_is_the_one_built_anew() -> None:
    cache = ChunkCache(4)
    for chunks in itertools.islice(itertools.permutations(CORPUS, 4), 0, 400, 7):
        fresh = ContextIndex.of(chunks, paraphrase=False)
        kept = ContextIndex.of(iter(chunks), paraphrase=False, cache=cache)
        for name in ("ids", "chunk_text", "german", "sentences", "written", "chunk_of",
                     "numeric", "tokens", "words", "word_stems"):  # fmt: skip
            assert getattr(kept, name) == getattr(fresh, name), name
        for name in ("postings", "positions"):
            mine, theirs = getattr(kept, name), getattr(fresh, name)
            assert list(mine) == list(theirs)
            # The same members, iterated in the same order (align.py stops after 64).
            assert all(list(mine[k]) == list(theirs[k]) for k in theirs)
        assert [kept.facts_of(s) for s in range(len(kept.sentences))] == [
            fresh.facts_of(s) for s in range(len(fresh.sentences))
        ]


def test_the_cache_is_bounded_and_drops_the_least_recently_used() -> None:
    cache = ChunkCache(3)
    texts = [c.text for c in CORPUS[:5]]
    for text in texts[:3]:
        cache.prepared(text, german=True)
    cache.prepared(texts[0], german=True)  # used again: now the most recent
    for text in texts[3:]:
        cache.prepared(text, german=True)
    assert len(cache) == 3 and cache.misses == 5 and cache.hits == 1
    cache.prepared(texts[0], german=True)  # kept
    assert cache.hits == 2
    cache.prepared(texts[1], german=True)  # dropped: prepared again
    assert cache.misses == 6 and len(cache) == 3
    # A context in the other language stems the chunk anew, under the same entry.
    cache.prepared(texts[1], german=False)
    assert cache.misses == 7 and len(cache) == 3


def test_a_judge_keeps_at_most_its_chunk_cache() -> None:
    judge = OfflineJudge(paraphrase=False, multilingual=False, chunk_cache=3)
    for answer, chunks in _workload(40):
        judge.judge(answer, chunks)
    assert judge.chunks is not None and len(judge.chunks) == 3


def _bad_sizes() -> Iterator[dict[str, int]]:
    yield {"chunk_cache": -1}
    yield {"claim_cache": 0}


@pytest.mark.parametrize("sizes", list(_bad_sizes()))
def test_bad_cache_sizes_are_refused(sizes: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="chunk_cache must be 0 or more"):
        OfflineJudge(paraphrase=False, multilingual=False, **sizes)
    with pytest.raises(ValueError, match="at least one chunk"):
        ChunkCache(0)


def test_a_chunk_is_cut_into_sentences_at_ends_and_line_breaks_not_at_a_days_dot() -> None:
    text = "Die Richtlinie gilt ab dem 1. März 2025. Sie gilt für alle.\nFragen an HR!"
    chunk = prepare(text, fold(text), german=True)
    assert chunk.sentences == (
        "die richtlinie gilt ab dem 1. marz 2025.",
        "sie gilt fur alle.",
        "fragen an hr!",
    )
    assert chunk.written[0] == "Die Richtlinie gilt ab dem 1. März 2025."
    assert chunk.numeric == (True, False, False)


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        # HotpotQA's "Sullivan County" paragraph was two sentences cut at "U.S.": among its
        # question's ten paragraphs, a claim copying it with "not" inserted was supported.
        ("Sullivan County is a county located in the U.S. state of New Hampshire. Its seat "
         "is Newport.", ("sullivan county is a county located in the u.s. state of new "
                         "hampshire.", "its seat is newport.")),
        ("Costs rose, e.g. the fees. Approx. two were lost.",
         ("costs rose, e.g. the fees.", "approx. two were lost.")),
        # A capital, a digit or a line break after the stop still ends the sentence.
        ("Paid by Dr. Smith. Fig. 2 shows it.\nsee below.",
         ("paid by dr.", "smith.", "fig.", "2 shows it.", "see below.")),
    ],
)  # fmt: skip
def test_a_full_stop_before_a_lowercase_word_ends_no_sentence(
    text: str, sentences: tuple[str, ...]
) -> None:
    assert prepare(text, fold(text), german=False).sentences == sentences
    # Folding that changes the length ("ß" → "ss") cuts the text as written: the same cut.
    long = "Die Straße in den U.S. ist lang. " + text
    assert prepare(long, fold(long), german=False).sentences[1:] == sentences


def test_content_stems_keep_their_sentences_and_positions_stopwords_do_not() -> None:
    text = "The fee is twelve dollars. Taxis run late, taxis run early."
    chunk = prepare(text, fold(text), german=False)
    assert chunk.numeric == (True, False)  # a number word is a fact
    assert chunk.stems["dollar"] == ((0,), (5,))
    assert chunk.stems["taxi"] == ((1,), (6, 9))
    assert "the" not in chunk.stems and "is" not in chunk.stems
    assert chunk.length == 11  # letter tokens: where the next chunk's positions start
    assert chunk.word_stems["dollars"] == "dollar"


def test_chunk_text_is_the_folded_text_with_or_without_a_cache() -> None:
    cache = ChunkCache(2)
    assert chunk_text(None, "Größe") == chunk_text(cache, "Größe") == "grosse"
    assert len(cache) == 1


DAY_CHUNKS = [
    Chunk("hours", "Das Büro ist montags bis freitags geöffnet. Am Wochenende bleibt es zu."),
    Chunk("desk", "The help desk answers Mon–Fri. On Sundays nobody answers.\nCall on weekdays."),
    Chunk("none", "Refunds take five days. A day pass costs 12 EUR."),
    Chunk("wrap", "Open Friday to Monday, closed Tuesday; mon1 is no day."),
]


def test_the_days_read_once_per_chunk_are_the_days_of_every_sentence() -> None:
    # ContextIndex.day_sentences from each chunk's days (prepared.py) against terms.days read
    # sentence by sentence, with and without a cache, in every order of the chunks.
    from ragfunnel.analyzer.language.terms import days

    cache = ChunkCache(3)
    for chunks in itertools.permutations(DAY_CHUNKS):
        for index in (ContextIndex.of(chunks, False), ContextIndex.of(chunks, False, cache)):
            expected: dict[int, set[int]] = {}
            for sid, sentence in enumerate(index.sentences):
                for day in days(sentence):
                    expected.setdefault(day, set()).add(sid)
            assert expected  # the chunks do name days
            found = index.day_sentences
            assert list(found) == list(expected)
            assert all(list(found[d]) == list(expected[d]) for d in expected)


def test_readings_kept_with_a_chunk_are_its_sentences_readings_in_any_prompt() -> None:
    # What the judge keeps with a prepared chunk (its language, each fact's neighbours, the
    # initials of each sentence's words) equals what a prompt without a cache reads anew, in
    # every order of the chunks and beside any others; a repeated chunk shares its readings.
    cache = ChunkCache(3)
    asked = [0]

    def counted(index: ContextIndex, sid: int) -> str:
        asked[0] += 1
        return index.sentences[sid]

    for chunks in itertools.islice(itertools.permutations([*CORPUS, CORPUS[2]], 4), 0, 600, 11):
        for index in (ContextIndex.of(chunks, False), ContextIndex.of(iter(chunks), False, cache)):
            assert index.chunk_languages == frozenset(
                reads_german(tokens(text[:3200])[:400]) for text in index.chunk_text
            )
            for sid, sentence in enumerate(index.sentences):
                assert places(index, sid) == tuple(
                    neighbours(sentence, min(start, fact.start), end)
                    for fact, start, end in facts(sentence)
                )
                assert index.derived(sid, "test", lambda s: _initials(index.sentences[s])) == (
                    _initials(sentence)
                )
    # Read once per sentence of a chunk and language, not once per prompt.
    index = ContextIndex.of([CORPUS[4], CORPUS[4]], False, ChunkCache(2))
    for sid in range(len(index.sentences)):
        assert index.derived(sid, "counted", lambda s: counted(index, s)) == index.sentences[sid]
    assert asked[0] == len(index.sentences) // 2


@pytest.mark.parametrize(
    ("text", "joined"),
    [
        ("Die Hotel-Pauschale gilt.", {"hotelpauschale"}),
        ("(Support-Team) and x1co-pay, see-also-this", {"supportteam", "copay", "seealsothis"}),
        ("a well-known, long-term plan", {"wellknown", "longterm"}),
        ("no hyphen - here, nor -x or y-", set()),
    ],
)
def test_a_hyphenated_word_is_also_kept_joined(text: str, joined: set[str]) -> None:
    """``prepare`` adds each hyphenated word without its hyphens, wherever it stands."""
    prepared = prepare(text, fold(text), german=False)
    letters = set(LETTERS.findall(fold(text)))
    assert set(prepared.word_stems) - letters == joined


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(
    [".", "!", "?", ";", '"', "'", "”", "’", ")", "]", " ", "  ", "\n", "\t", "a", "Ab", "1", "12",
     "1.", "märz", "März", "x.y", "\u00a0"]), max_size=30).map("".join))  # fmt: skip
def test_sentence_breaks_are_those_of_the_one_pattern(text: str) -> None:
    """Texts without a line break are cut by a faster pattern, at the very same breaks."""
    one_pattern = [(m.start(), m.end()) for m in prepared_module._SENTENCE.finditer(text)]
    assert list(prepared_module._breaks(text)) == one_pattern
