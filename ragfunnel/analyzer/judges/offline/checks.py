"""The offline judge's contradiction checks, listed in the order their findings are told.

Each check reads one claim aligned with its context (:class:`AlignedClaim`, made by
``align.py``) and looks for *contradiction*, not for reasons to doubt a paraphrase: a fact the
context states otherwise, a strong qualifier it lacks, a name it swaps, a negation it
disagrees with, an exception it never makes (docs/judges.md §2, "Hard checks"). Any finding is
*hard*: the claim is unsupported, whatever its score (``judge.py``). :data:`CHECKS` lists them;
:func:`run_checks` runs them into :class:`Findings`, one field per check.

A new check is its own module beside these (its rules there, its words in
``language/lexicon.py``), a function of an :class:`AlignedClaim` here with a one-line
docstring, its entry in :data:`CHECKS` with a field of :class:`Findings` of the same name, and
its test (``tests/analyzer/judges/offline/``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ragfunnel.analyzer.judges.offline.exception import exception_finding
from ragfunnel.analyzer.judges.offline.hard import (
    ClaimFacts,
    FactCheck,
    check_facts,
    missing_qualifiers,
)
from ragfunnel.analyzer.judges.offline.index import ContextIndex
from ragfunnel.analyzer.judges.offline.names import swapped_names
from ragfunnel.analyzer.judges.offline.negation import negation_finding
from ragfunnel.analyzer.language.terms import qualifiers

__all__ = ["CHECKS", "AlignedClaim", "Check", "Findings", "run_checks"]

T = TypeVar("T")


@dataclass(frozen=True)
class AlignedClaim:
    """One claim as the checks read it, aligned with its context.

    Attributes:
        content: the claim as written, a leading attribution clause cut off.
        folded: ``content`` folded (``lexicon.fold``).
        facts: its facts, each with its text and neighbouring words (``hard.py``).
        tokens: its folded tokens (letters or digits).
        roots: the stems of its content words, in order.
        missing: its content words the context holds nowhere.
        names: its names the context holds nowhere (``names.py``).
        window: the sentences it aligns with best.
        copied: the window holds so much of its weight that the claim copies it
            (``align.COPIED``).
        coverage: the share of its content words the context holds.
        index: the context.
    """

    content: str
    folded: str
    facts: ClaimFacts
    tokens: frozenset[str]
    roots: list[str]
    missing: list[str]
    names: list[str]
    window: list[int]
    copied: bool
    coverage: float
    index: ContextIndex


def facts(claim: AlignedClaim) -> FactCheck:
    """Numbers, dates, amounts, times and codes stated otherwise, or unstated (``hard.py``)."""
    return check_facts(claim.facts, claim.index, claim.window, claim.copied, claim.tokens)


def strong_qualifiers(claim: AlignedClaim) -> list[str]:
    """Strong absolute qualifiers ("always", "unlimited") the context lacks (``hard.py``)."""
    return missing_qualifiers(qualifiers(claim.folded), claim.index)[0]


def swapped(claim: AlignedClaim) -> list[str]:
    """Missing names where the aligned sentence names another in their place (``names.py``)."""
    return swapped_names(claim.names, claim.missing, claim.folded, claim.index, claim.window)


def negation(claim: AlignedClaim) -> str:
    """A negation the aligned clause disagrees with, or one inserted (``negation.py``)."""
    return negation_finding(claim.folded, claim.roots, claim.index, claim.window, claim.coverage)


def exception(claim: AlignedClaim) -> str:
    """An exception clause, or a condition turned around, the context lacks (``exception.py``)."""
    return exception_finding(claim.folded, claim.content, claim.index)


@dataclass(frozen=True)
class Check(Generic[T]):
    """One contradiction check.

    Attributes:
        name: the :class:`Findings` field that holds what it found.
        find: the check, run on one claim.
        told: its hard findings in what it found, each as a reader is told it.
    """

    name: str
    find: Callable[[AlignedClaim], T]
    told: Callable[[T], list[str]]

    @property
    def catches(self) -> str:
        """What it catches: the first line of its function's docstring."""
        return (self.find.__doc__ or "").strip().splitlines()[0]


def _fact_findings(found: FactCheck) -> list[str]:
    return found.hard


def _as_list(found: list[str]) -> list[str]:
    return found


def _one(found: str) -> list[str]:
    return [found] if found else []


CHECKS: tuple[Check[Any], ...] = (
    Check("facts", facts, _fact_findings),
    Check("qualifiers", strong_qualifiers, _as_list),
    Check("swapped", swapped, _as_list),
    Check("negation", negation, _one),
    Check("exception", exception, _one),
)
"""The contradiction checks, in the order a claim's hard findings are told (``missing``)."""


@dataclass
class Findings:
    """What each check of :data:`CHECKS` found for one claim, a field per check.

    Attributes:
        facts: the fact check (it also feeds the score's ``facts_absent`` and
            ``facts_contradicted``, and names the sentences where the facts were found).
        qualifiers: the strong qualifiers the context lacks, as written.
        swapped: the swapped names, each with the context's (``munich (context: Berlin)``).
        negation: a negation disagreement, as a reader is told it, or ``""``.
        exception: an exception clause or turned condition the context lacks, or ``""``.
    """

    facts: FactCheck = field(default_factory=FactCheck)
    qualifiers: list[str] = field(default_factory=list)
    swapped: list[str] = field(default_factory=list)
    negation: str = ""
    exception: str = ""

    @property
    def hard(self) -> list[str]:
        """Every check's hard findings, in :data:`CHECKS` order."""
        return [said for check in CHECKS for said in check.told(getattr(self, check.name))]


def run_checks(claim: AlignedClaim) -> Findings:
    """Run every check of :data:`CHECKS` on one claim."""
    return Findings(**{check.name: check.find(claim) for check in CHECKS})
