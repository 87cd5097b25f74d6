"""The faults the demo can inject, and the settings the pipeline reads to inject them.

Each fault names the stage the analyzer must attribute it to (docs/funnel.md's decision table).
Index faults act on the whole index build (a document the parser fails on, the scanned page's
OCR returning nothing); question faults act on the questions the plan gives them (``.plan``
chooses which, and writes the injection log). Data only: nothing here traces or runs a model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ragfunnel.analyzer.errors import InvalidArgument


@dataclass(frozen=True)
class Fault:
    """One kind of fault: its name, the stage it must be blamed on, and what it does."""

    name: str
    stage: str
    what: str
    flag: str | None = None


FAULTS: dict[str, Fault] = {
    f.name: f
    for f in (
        Fault(
            "dropped_document",
            "ingestion",
            "the parser fails on a document: it never reaches the index",
        ),
        Fault(
            "empty_ocr",
            "ingestion",
            "OCR returns no text for the scanned page: its sections are never indexed",
        ),
        Fault(
            "small_k",
            "search",
            "the first-stage retrievers return their top 1 instead of their top 20",
        ),
        Fault(
            "inverted_reranker",
            "rerank",
            "a weak reranker: its scores are inverted, the best chunks sink",
        ),
        Fault(
            "shuffled_reranker", "rerank", "a broken reranker: a seeded shuffle of the candidates"
        ),
        Fault(
            "threshold_high",
            "cut",
            "the confidence threshold is 0.95: the gate abstains on a good answer",
        ),
        Fault(
            "threshold_low",
            "cut",
            "the confidence threshold is 0: the gate lets an unanswerable question through",
        ),
        Fault("changed_numbers", "generation", "the generator changes the numbers it quotes"),
        Fault(
            "added_qualifier",
            "generation",
            "the generator adds a qualifier the sources do not state ('at any time', 'jederzeit')",
        ),
        Fault(
            "stale_version",
            "generation",
            "a stale replica still holds the superseded POL-2023-02: both versions reach the prompt",
            flag="conflicting_sources",
        ),
    )
}
"""Every fault, by name. ``stale_version`` is blamed on generation when the answer quoted the
superseded version (``ok`` when it quoted the current one); the flag is expected either way."""

INDEX_FAULTS = frozenset({"dropped_document", "empty_ocr"})
LLM_UNPLANNED = frozenset({"changed_numbers", "added_qualifier", "stale_version"})
"""Faults whose truth depends on the generator's own words: not injected with an LLM."""
DEFAULT_FAULTS = tuple(FAULTS)

SMALL_K = 1
HIGH_THRESHOLD = 0.95
LOW_THRESHOLD = 0.0
QUALIFIERS = {"en": "at any time", "de": "jederzeit"}
"""What the ``added_qualifier`` fault appends to the first quoted sentence, by language."""
ALWAYS_WORDS = (
    "any time", "anytime", "at all times", "always", "24/7", "around the clock",
    "jederzeit", "zu jeder zeit", "immer", "stets", "rund um die uhr",
)  # fmt: skip
"""Ways to say "at any time": a case whose prompt says any of them gets no added qualifier."""
DROPPED_DOCUMENTS = ("vpn-runbook",)
"""The documents the ``dropped_document`` fault makes the parser fail on (document ids)."""
STALE_DOCUMENT = ("travel-policy", "2023-02")


class DemoError(InvalidArgument):
    """A demo option has a value it cannot take (the message names the option)."""


class FaultError(DemoError):
    """An unknown fault name (lists the known ones)."""


def check_faults(names: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """``names`` validated, in catalogue order."""
    unknown = sorted(set(names) - set(FAULTS))
    if unknown:
        raise FaultError(
            f"unknown fault(s) {', '.join(unknown)}; known: {', '.join(FAULTS)}",
            argument="faults",
        )
    return tuple(n for n in FAULTS if n in names)


@dataclass
class Injection:
    """What the pipeline injects: index faults for the whole build, one fault per question."""

    dropped_documents: frozenset[str] = frozenset()
    empty_ocr: bool = False
    questions: dict[str, str] = field(default_factory=dict)

    def fault_of(self, case_id: str) -> str | None:
        """The fault this question gets, if any."""
        return self.questions.get(case_id)
