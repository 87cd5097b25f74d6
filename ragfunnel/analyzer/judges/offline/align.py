"""Align one claim with the context and measure the evidence: the features the score reads.

The claim's content words (``words.py``; a leading attribution clause cut off) are weighed by
how informative they are in this context — inverse sentence frequency, ``log(1 + N / (1 + df))``
over the context's N sentences, a word the context lacks weighing as one it holds once — and
looked up by Snowball stem, inside a compound (``Pauschale`` in ``Hotelpauschale``) or as a
compound's parts. The best *window* is the sentence, or pair of adjacent sentences of one chunk,
holding the largest weighted share of the claim. The features (:data:`FEATURES`) are that
share, the share over the whole context, how many claim word pairs stand close together in the
context (word order and relations), the missing words and names (``names.py``), and what
the contradiction checks found (``checks.py``, which lists them).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from ragfunnel.analyzer.judges.offline.checks import AlignedClaim, Findings, run_checks
from ragfunnel.analyzer.judges.offline.features import DIALOGUE_FEATURES, dialogue_features
from ragfunnel.analyzer.judges.offline.hard import (
    ClaimFacts,
    FactCheck,
    neighbours,
    replaced_facts,
    widened_scope,
)
from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.offline.names import missing_names, swapped_nouns
from ragfunnel.analyzer.judges.offline.words import lead_in_end, stem
from ragfunnel.analyzer.language.lexicon import META_WORDS, STOPWORDS, TOKEN, fold
from ragfunnel.analyzer.language.terms import Fact, facts, key_words

__all__ = ["FEATURES", "FOUND_AT", "PARAPHRASE_FEATURES", "Evidence", "align", "read_facts"]

FEATURES = (
    "overlap", "window", "weighted", "proximity", "missing", "names_missing", "facts_absent",
    "facts_contradicted", "strong_qualifier", "negation", "tokens", *DIALOGUE_FEATURES,
)  # fmt: skip
"""The features, in the order of the fitted coefficients (``score.py``); the last two say what
the claim is (chit-chat, a question: ``features.py``)."""
PARAPHRASE_FEATURES = ("similarity",)
"""One more with the paraphrase embedding (``embed.py``), appended to :data:`FEATURES`: the
claim's cosine with its window."""
FOUND_AT = 0.3
"""A claim less than this share of whose weight the context holds (``weighted``; with the
embedding, the softened window share, :attr:`Evidence.found`) is never supported: the score
is calibrated on long claims and over-rates short ones made mostly of new words."""
COPIED = 0.75
"""A claim whose best window holds this share of its weight copies that window: a number of
the claim stated nowhere, where the window states another between the same words, is
contradicted in place (``hard.py``)."""
_SCAN = 200
"""A claim none of whose words is in the context is compared with this many sentences at most."""
_SOFT_FLOOR = 0.2
"""A cosine of the window's lacking words with the window below this adds nothing to
``soft_window``; above, ``(cosine - floor) / (1 - floor)`` of their weight."""

_NEAR = 4
_TOP = 3
_MAX_POSITIONS = 64


@dataclass
class Evidence:
    """One claim measured against the context.

    Attributes:
        values: the features, in :data:`FEATURES` order.
        missing: the content words found nowhere in the context.
        names: the names (capitalised words, acronyms) found nowhere (``names.py``).
        window: the best window's sentences.
        found: the share of the claim's weight the context holds (``weighted``), or with the
            embedding the window's share softened by paraphrase (``embed.py``).
        findings: what each contradiction check found (``checks.py``).
    """

    values: tuple[float, ...]
    missing: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    window: list[int] = field(default_factory=list)
    found: float = 1.0
    findings: Findings = field(default_factory=Findings)

    @property
    def facts(self) -> FactCheck:
        """The fact check (``hard.py``)."""
        return self.findings.facts

    @property
    def hard(self) -> list[str]:
        """The hard findings, each as a reader is told it.

        Those of every contradiction check (``checks.py``), or the contradicted facts and
        "none of its words is in the context". An unstated plain number, date or code is not
        one (:attr:`unstated`).
        """
        if self.values[0] == 0 and self.missing and self.found < FOUND_AT:
            # A contradicted fact is the more useful finding to show ("60 EUR a week (context:
            # 60 EUR a day)"), and it is one of the claim's words the context lacks.
            return [*self.facts.hard, "none of its words is in the context"]
        return self.findings.hard

    @property
    def unstated(self) -> list[str]:
        """The claim's facts the context neither states nor contradicts, and no hard finding."""
        return [f for f in self.facts.absent if f not in self.facts.hard]


def _near(a: str, b: str, index: ContextIndex) -> bool:
    first, second = index.positions.get(a), index.positions.get(b)
    if not first or not second:
        return False
    if len(first) > len(second):
        first, second = second, first
    for n, p in enumerate(first):
        if n >= _MAX_POSITIONS:
            return False
        for d in range(1, _NEAR + 1):
            if p + d in second or p - d in second:
                return True
    return False


def _window(found: list[tuple[float, set[int]]], index: ContextIndex) -> tuple[float, list[int]]:
    """The best window's summed weight and its sentences."""
    scores: dict[int, float] = {}
    for w, where in found:
        for sid in where:
            scores[sid] = scores.get(sid, 0.0) + w
    if not scores:
        return 0.0, []
    top = sorted(scores, key=lambda s: (-scores[s], s))[:_TOP]
    best, chosen = scores[top[0]], [top[0]]
    chunk_of = index.chunk_of
    for sid in top:
        for other in (sid - 1, sid + 1):
            if not 0 <= other < len(chunk_of) or chunk_of[other] != chunk_of[sid]:
                continue
            pair = (sid, other)
            total = sum(w for w, where in found if sid in where or other in where)
            if total > best + 1e-9:
                best, chosen = total, sorted(pair)
    return best, chosen


def read_facts(content: str) -> tuple[str, list[tuple[Fact, int, int]], ClaimFacts]:
    """A claim's folded text, its facts' spans in it, and its facts as ``check_facts`` reads them."""
    folded = fold(content)
    spans = facts(folded)
    same = len(folded) == len(content)
    claim_facts: ClaimFacts = [
        (
            f,
            (content if same else folded)[f.start : end],
            neighbours(folded, min(start, f.start), end),
        )
        for f, start, end in spans
    ]
    return folded, spans, claim_facts


def align(claim: str, index: ContextIndex) -> Evidence:
    """Measure one claim against the indexed context (see the module docstring)."""
    content = claim[lead_in_end(claim) :]
    folded, spans, claim_facts = read_facts(content)
    words = [w for w in key_words(folded, [(s, e) for _, s, e in spans]) if w not in META_WORDS]
    german = index.german
    n = max(1, len(index.sentences))
    full = math.log(1 + n / 2)
    roots = [stem(w, german) for w in words]
    found: list[tuple[float, set[int]]] = []
    missing: list[str] = []
    weighed: list[tuple[str, float, set[int] | None]] = []
    total = 0.0
    for word, root in zip(words, roots, strict=True):
        where = index.holding(word, root)
        if where is None:
            missing.append(word)
            total += full
            weighed.append((word, full, None))
        else:
            w = math.log(1 + n / (1 + len(where)))
            total += w
            found.append((w, where))
            weighed.append((word, w, where))
    best, window = _window(found, index)
    weighted = sum(w for w, _ in found) / total if total else 1.0
    in_window = best / total if total else 1.0
    coverage = 1 - len(missing) / len(words) if words else 1.0
    # Adjacent claim words standing close in the context too; a missing word breaks its pairs.
    gone = set(missing)
    pairs = list(itertools.pairwise(words))
    near = sum(
        a not in gone and b not in gone and _near(stem(a, german), stem(b, german), index)
        for a, b in pairs
    )
    proximity = near / len(pairs) if pairs else coverage

    names = missing_names(content, claim_facts, german, index)
    copied = in_window >= COPIED
    claim_read = AlignedClaim(
        content, folded, claim_facts, frozenset(TOKEN.findall(folded)), roots, missing, names,
        window, copied, coverage, index,
    )  # fmt: skip
    findings = run_checks(claim_read)
    checked = findings.facts
    values: tuple[float, ...] = (
        _overlap(folded, spans, len(checked.absent), index),
        in_window,
        weighted,
        proximity,
        math.log1p(len(missing)),
        min(len(names), 3),
        len(checked.absent) - checked.contradicted,
        checked.contradicted,
        len(findings.qualifiers),
        float(bool(findings.negation)),
        _token_share(folded, index),
        *dialogue_features(content, index),
    )
    share = weighted
    if index.embedder is not None:
        similarity, share = _paraphrase(content, weighed, best, window, index)
        values = (*values, similarity)
    # A swapped German noun, or a fact of the sentence replaced by a word of the claim's, holds
    # the verdict back without moving the score (``names.py``, ``hard.py``).
    names = [
        *names,
        *swapped_nouns(content, missing, index, window),
        *(replaced_facts(folded, missing, claim_facts, index, window) if copied else []),
        *widened_scope(folded, index, window),
    ]
    return Evidence(values, missing, names, window, share, findings)


def _paraphrase(content: str, weighed: list[tuple[str, float, set[int] | None]],
                best: float, window: list[int], index: ContextIndex) -> tuple[float, float]:  # fmt: skip
    """The claim's cosine with its window, and the window share softened (``embed.py``).

    The softened share adds, to the weight the window holds, the weight of the claim words it
    lacks times how close they are *together* in meaning to the window (the cosine of their
    bag of words with it, above :data:`_SOFT_FLOOR`): "physician prescribed medication" is
    close to "the doctor gave him drugs", "breakfast, parking and minibar" is far from "the
    hotel allowance is 120 EUR a night".
    """
    embedder = index.embedder
    assert embedder is not None
    claim = embedder.text(content)
    total = sum(w for _, w, _ in weighed)
    if not window:
        # No claim word in the context: the window is the sentence closest in meaning.
        scored = [
            (embedder.cosine(claim, [index.vector_of(sid)]), sid)
            for sid in range(min(len(index.sentences), _SCAN))
        ]
        if not scored:
            return 0.0, 0.0 if total else 1.0
        window = [max(scored)[1]]
    parts = [index.vector_of(sid) for sid in window]
    similarity = embedder.cosine(claim, parts)
    if not total:
        return similarity, 1.0
    chosen = set(window)
    lacking = [(word, w) for word, w, where in weighed if where is None or where.isdisjoint(chosen)]
    if not lacking:
        return similarity, best / total
    bag = embedder.cosine(embedder.text(" ".join(word for word, _ in lacking)), parts)
    closeness = max(0.0, (bag - _SOFT_FLOOR) / (1 - _SOFT_FLOOR))
    return similarity, (best + closeness * sum(w for _, w in lacking)) / total


def _token_share(folded: str, index: ContextIndex) -> float:
    """The share of all the claim's tokens, function words too, that the context has.

    Unlike ``overlap`` it counts "i", "my", "you", "think": a response that copies its
    knowledge sentence keeps them from it, one that adds an opinion brings its own (on BEGIN's
    dialogue responses this ranks 0.01 above the content-word share).
    """
    mine = TOKEN.findall(folded)
    if not mine:
        return 1.0
    seen = index.tokens
    return sum(t in seen for t in mine) / len(mine)


def _overlap(folded: str, spans: list[tuple[Fact, int, int]], absent: int,
             index: ContextIndex) -> float:  # fmt: skip
    """The plain share of the claim's tokens (no stopwords) in the context.

    Each fact counts as one token, found unless absent, so "22 Uhr" finds "22:00".
    """
    if spans:
        pieces, last = [], 0
        for _, start, end in sorted(spans, key=lambda s: s[1]):
            pieces.append(folded[last:start])
            last = max(last, end)
        pieces.append(folded[last:])
        folded = " ".join(pieces)
    mine = [t for t in TOKEN.findall(folded) if t not in STOPWORDS]
    total = len(mine) + len(spans)
    if not total:
        return 1.0
    seen = index.tokens
    return (sum(t in seen for t in mine) + len(spans) - absent) / total
