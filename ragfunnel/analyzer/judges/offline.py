"""The offline judge: deterministic, no network, conservative.

A claim is **supported** when everything it commits to is found in the prompt's context (all
chunks together; their order does not matter):

1. every *fact* — amount with its currency, quantity with its unit, time, date, version or
   code, plain number — with the same normalised value, and with the same *bound* word before
   it when the claim has one (``ab 22 Uhr`` needs ``ab``/``from``/``seit`` … before 22:00);
2. every *absolute qualifier* (``jederzeit``, ``immer``, ``nie``, ``always``, ``never``,
   ``any time``, ``all``, ``only``, ``must`` …), as any phrase of its group;
3. a *negation* (``nicht``, ``kein``, ``not``, ``never``, ``n't`` …) in a context sentence that
   shares most of the claim's words, and no negation in the best such sentence when the claim
   has none;
4. every *named entity* (capitalised words of English claims, acronyms, CamelCase names);
5. every *key word* (content words: not stopwords), matched exactly, by a light stem, inside a
   compound (``Pauschale`` in ``Hotelpauschale``) or as a compound's parts.

A failed 1–4 makes the claim **unsupported** and names the term (and, for a contradicted fact,
what the context says instead). With 1–4 met, missing key words make it **partial** when at
least half are found, else unsupported. docs/judges.md lists every rule with examples.

This judge never calls out, never learns, and gives the same verdict for the same input.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ragfunnel.analyzer.judges.claims import split_claims
from ragfunnel.analyzer.judges.context import Prepared, prepare, stem
from ragfunnel.analyzer.judges.context import where as find
from ragfunnel.analyzer.judges.lexicon import GERMAN_MARKERS, STOPWORDS, fold
from ragfunnel.analyzer.judges.model import (
    PARTIAL,
    SUPPORTED,
    UNSUPPORTED,
    AnswerVerdict,
    Chunk,
    ClaimVerdict,
    as_chunks,
)
from ragfunnel.analyzer.judges.terms import (
    Fact,
    facts,
    key_words,
    negated,
    qualifier_pattern,
    qualifiers,
)

__all__ = ["NAME", "OfflineJudge", "judge_claim"]

NAME = "offline"
PARTIAL_SHARE = 0.5
"""With every fact found, at least this share of key words makes a claim partial."""
NEGATED_SHARE = 0.6
"""A context sentence holding this share of a claim's words and a negation contradicts it."""

_ENTITY = re.compile(
    r"(?<![\w-])(?:[A-ZÄÖÜ]{2,}[a-zäöü]?|[a-zäöü]+[A-ZÄÖÜ]\w*|[A-ZÄÖÜ][a-zäöüß]+[A-ZÄÖÜ]\w*)"
    r"(?![\w-])"
)
_CAPITALISED = re.compile(r"(?<![\w-])[A-ZÄÖÜ][\w'-]+")

_Context = list[tuple[str, Prepared]]
_SCOPE = re.compile(r"[:;]\s+")
_LETTERS = re.compile(r"[^\W\d_]+")


def _hits(claim: Fact, chunk: Prepared) -> tuple[list[int], str]:
    """The chunk's facts matching the claim's (with its bound), and what it says instead."""
    keys = set(claim.keys)
    hits: list[int] = []
    instead = ""
    for k, fact in enumerate(chunk.facts):
        if claim.kind == "number":
            hit = bool(keys.intersection(fact.numbers))
        elif claim.kind == "date":
            hit = fact.kind == "date" and any(_same_date(key, fact.keys[0]) for key in keys)
        else:
            hit = fact.kind == claim.kind and bool(keys.intersection(fact.keys))
        if hit and (not claim.bound or fact.bound == claim.bound):
            hits.append(k)
        elif hit:
            instead = instead or fact.text
        elif (
            not instead
            and fact.kind == claim.kind
            and claim.kind in ("amount", "quantity")
            and _unit(fact) == _unit(claim)
        ):
            instead = fact.text
    return hits, instead


def _unit(fact: Fact) -> str:
    """An amount's currency (``EUR 120``) or a quantity's unit (``30 day``)."""
    parts = fact.keys[0].split(" ")
    return parts[0] if fact.kind == "amount" else parts[-1]


def _same_date(claim: str, context: str) -> bool:
    """Dates are ``YYYY-MM-DD`` with 0 for an unknown year or day: the claim's parts must match."""
    for mine, theirs in zip(claim.split("-"), context.split("-"), strict=True):
        if int(mine) and int(mine) != int(theirs):
            return False
    return True


def _entities(claim: str, german: bool) -> list[str]:
    found = [m.group(0) for m in _ENTITY.finditer(claim)]
    if not german:
        # A capitalised word that does not start the claim names something (English only:
        # German capitalises every noun).
        found.extend(
            m.group(0)
            for m in _CAPITALISED.finditer(claim)
            if m.start() > 0 and fold(m.group(0)) not in STOPWORDS
        )
    return list(dict.fromkeys(fold(e) for e in found))


@dataclass(frozen=True)
class _Outcome:
    label: str
    supporting: tuple[str, ...]
    missing: str
    confidence: float


@dataclass
class _Findings:
    """What the rules found so far: where each found term is, what failed, where facts are."""

    found_in: list[set[int]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    places: set[tuple[int, int]] = field(default_factory=set)


def _facts_found(
    spans: list[tuple[Fact, int, int]],
    claim: str,
    folded: str,
    anchors: list[str],
    chunks: _Context,
) -> _Findings:
    """Rule 1: each fact, with its bound, in a sentence that also holds another claim term."""
    out = _Findings()
    found_in, failures, places = out.found_in, out.failures, out.places
    roots = [stem(a) for a in anchors]
    same_length = len(folded) == len(claim)
    located: list[set[tuple[int, int]]] = []
    quoted: list[str] = []
    for fact, _, end in spans:
        where: set[tuple[int, int]] = set()
        instead = ""
        for i, (_, chunk) in enumerate(chunks):
            hits, other = _hits(fact, chunk)
            where.update((i, chunk.fact_sentence(k)) for k in hits)
            instead = instead or other
        written = claim[fact.start : end] if same_length else folded[fact.start : end]
        located.append(where)
        quoted.append(written)
        if not where:
            failures.append(f"{written} (context: {instead})" if instead else written)
    for n, where in enumerate(located):
        if not where:
            continue
        others = set().union(*(w for m, w in enumerate(located) if m != n))
        # A substring test: the claim's word stems in the sentence's text (cheap, and lenient).
        together = [
            (i, j) for i, j in where
            if (i, j) in others or any(r in chunks[i][1].sentence_text(j) for r in roots)
        ]  # fmt: skip
        if together or (not anchors and len(spans) == 1):
            found_in.append({i for i, _ in (together or where)})
            places.update(together or where)
        else:
            failures.append(f"{quoted[n]} (not stated together with the claim's other terms)")
    return out


def _judge(claim: str, chunks: _Context) -> _Outcome:
    folded = fold(claim)
    spans = facts(folded)
    words = key_words(folded, [(s, e) for _, s, e in spans])
    german = any(w in GERMAN_MARKERS for w in folded.split())
    entities = [e for e in _entities(claim, german) if not any(e in f.text for f, _, _ in spans)]
    findings = _facts_found(spans, claim, folded, words, chunks)
    found_in, failures, places = findings.found_in, findings.failures, findings.places

    for group, phrase in dict.fromkeys(qualifiers(folded)):
        pattern = qualifier_pattern(group)
        where = {i for i, (_, c) in enumerate(chunks) if pattern.search(c.folded)}
        if where:
            found_in.append(where)
        else:
            failures.append(phrase)

    texts = [c.text for _, c in chunks]
    for entity in entities:
        where = find(entity, texts)
        # Rule 4: with facts found, the entity is named where they are ("Basic plan" vs
        # "Premium plan … 99.9 %").
        beside = {i for i, j in places if i in where and entity in chunks[i][1].sentence_text(j)}
        if places and where and not beside:
            failures.append(f"{entity} (not stated together with the claim's facts)")
        elif where:
            found_in.append(beside or where)
        else:
            failures.append(entity)

    entity_set = set(entities)
    key = [w for w in words if w not in entity_set]
    missing = []
    for word in key:
        where = find(word, texts)
        if where:
            found_in.append(where)
        else:
            missing.append(word)
    share = 1 - len(missing) / len(key) if key else 1.0

    # Only chunks holding some of the claim's terms can negate it or carry its negation.
    relevant = sorted(set().union(*found_in)) if found_in else []
    polarity = _polarity(folded, words, [chunks[i] for i in relevant])
    if polarity:
        failures.append(polarity)

    supporting = _cover(found_in, chunks)
    # Confidence orders the verdicts, and the share of key words found orders within one.
    if failures:
        return _Outcome(UNSUPPORTED, supporting, "; ".join(failures), 0.1 * share)
    if not missing:
        return _Outcome(SUPPORTED, supporting, "", 1.0)
    why = "not in the context: " + ", ".join(missing)
    if share >= PARTIAL_SHARE:
        return _Outcome(PARTIAL, supporting, why, 0.4 + 0.3 * share)
    return _Outcome(UNSUPPORTED, supporting, why, 0.2 + 0.2 * share)


def _best(words: list[str], chunks: _Context, negated: bool) -> tuple[float, str]:
    """The best share of ``words`` in one sentence of the chunks with (or without) negations."""
    best, negation = 0.0, ""
    for _, chunk in chunks:
        if negated and not chunk.negated:
            continue
        for text, found in chunk.sentences():
            if bool(found) != negated:
                continue
            share = sum(w in text.words for w in words) / len(words)
            if share > best:
                best, negation = share, found
    return best, negation


def _polarity(folded: str, words: list[str], chunks: _Context) -> str:
    """Rule 3: a negation the context lacks, or a context sentence that negates the claim.

    Only sentences of chunks that contain a negation at all are read for the first test.
    """
    if not words:
        return ""
    claim_negation = negated(folded)
    if claim_negation:
        # A negation's scope ends at a colon or semicolon ("Do not run a factory reset: reflash
        # …"): the negated context sentence must hold the words of that part.
        part = next((p for p in _SCOPE.split(folded) if negated(p)), folded)
        in_part = set(_LETTERS.findall(part))
        scoped = [w for w in words if w in in_part] or words
        negated_share, _ = _best(scoped, chunks, negated=True)
        if negated_share >= PARTIAL_SHARE:
            return ""
        return f"negation '{claim_negation}' (the context does not negate it)"
    negated_share, negation = _best(words, chunks, negated=True)
    if negation and negated_share >= NEGATED_SHARE:
        plain_share, _ = _best(words, chunks, negated=False)
        if plain_share < negated_share:
            return f"the context negates it ('{negation}')"
    return ""


def _cover(found_in: list[set[int]], chunks: _Context) -> tuple[str, ...]:
    """The fewest chunks holding every found term, greedily, best first."""
    left = [s for s in found_in if s]
    chosen: list[int] = []
    while left:
        counts: dict[int, int] = {}
        for where in left:
            for i in where:
                counts[i] = counts.get(i, 0) + 1
        best = min(counts, key=lambda i: (-counts[i], i))
        chosen.append(best)
        left = [s for s in left if best not in s]
    return tuple(dict.fromkeys(chunks[i][0] for i in chosen))


def _prepared(context: Iterable[Chunk | tuple[str, str] | str]) -> _Context:
    return [(c.id, prepare(c.text)) for c in as_chunks(context)]


def judge_claim(claim: str, context: Iterable[Chunk | tuple[str, str] | str]) -> ClaimVerdict:
    """Rate one claim against a whole context (see the module docstring)."""
    chunks = _prepared(context)
    outcome = _judge(claim, chunks)
    return ClaimVerdict(claim, outcome.label, outcome.supporting, outcome.missing, NAME,
                        outcome.confidence)  # fmt: skip


class OfflineJudge:
    """Split an answer into claims and rate each against the context, offline.

    ``OfflineJudge().judge(answer, context)`` returns an :class:`AnswerVerdict`; an answer
    without claims (a refusal) is an abstention with ``faithfulness`` ``None``.
    """

    name = NAME

    def judge(self, answer: str, context: Iterable[Chunk | tuple[str, str] | str]) -> AnswerVerdict:
        """Rate every claim of ``answer`` against ``context``."""
        split = split_claims(answer)
        chunks = _prepared(context)
        verdicts = []
        for claim in split.claims:
            outcome = _judge(claim, chunks)
            verdicts.append(
                ClaimVerdict(
                    claim,
                    outcome.label,
                    outcome.supporting,
                    outcome.missing,
                    NAME,
                    outcome.confidence,
                )
            )
        return AnswerVerdict(tuple(verdicts), split.refusals, NAME)
