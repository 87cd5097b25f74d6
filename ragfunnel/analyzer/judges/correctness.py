"""Answer correctness, kept apart from faithfulness: did the answer state the case's truth.

Faithfulness asks whether the prompt supports the answer; correctness asks whether the answer
states the case's truth. An answer that faithfully repeats an outdated chunk is faithful and
wrong; the two are never averaged.

- Against ``facts`` (deterministic): every fact stated → ``correct``; some → ``incomplete``
  (naming the missing ones); none → ``wrong``. A fact is stated by the one rule the funnel
  uses too (``ragfunnel.analyzer.cases.fact_text.states_fact``): whole tokens after one
  normalisation, so ``€120`` states the fact ``120 EUR`` and "HAUPTSTRASSE 5" states
  "Hauptstraße 5".
- Against ``reference``, offline: the reference is split into claims and each is checked
  against the answer as if the answer were the context. All found → ``correct``; a reference
  value the answer states differently → ``wrong``; none found → ``wrong``; otherwise
  ``incomplete``, naming the reference claims the answer lacks.
- Against ``reference`` with an LLM (prompt ``correctness-v1``): the model's verdict, cached
  (``llm/correctness_judge.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragfunnel.analyzer.cases.fact_text import states_fact
from ragfunnel.analyzer.judges.offline import judge_claim
from ragfunnel.analyzer.judges.verdict_types import SUPPORTED, Chunk
from ragfunnel.analyzer.language.claims import split_claims

__all__ = [
    "CORRECT",
    "INCOMPLETE",
    "WRONG",
    "Correctness",
    "facts_correctness",
    "reference_correctness",
]

CORRECT = "correct"
INCOMPLETE = "incomplete"
WRONG = "wrong"


@dataclass(frozen=True)
class Correctness:
    """One answer's correctness.

    Attributes:
        label: ``correct``, ``incomplete`` or ``wrong``.
        reason: why; for ``incomplete``, which part is missing.
        missing: the facts or reference claims the answer lacks.
    """

    label: str
    reason: str
    missing: tuple[str, ...] = ()


def facts_correctness(answer: str, facts: Sequence[str]) -> Correctness | None:
    """Correctness against a case's facts; ``None`` without facts."""
    if not facts:
        return None
    missing = tuple(f for f in facts if not states_fact(answer, f))
    if not missing:
        return Correctness(CORRECT, "states every fact")
    if len(missing) == len(facts):
        return Correctness(WRONG, "states none of the facts: " + ", ".join(missing), missing)
    return Correctness(INCOMPLETE, "misses: " + ", ".join(missing), missing)


def reference_correctness(answer: str, reference: str) -> Correctness | None:
    """Correctness against a reference answer, offline; ``None`` for an empty reference."""
    parts = split_claims(reference).claims
    if not parts:
        return None
    context = [Chunk("answer", answer)]
    verdicts = [judge_claim(part, context) for part in parts]
    missing = tuple(v.text for v in verdicts if v.label != SUPPORTED)
    contradicted = [v for v in verdicts if "(context: " in v.missing]
    if contradicted:
        first = contradicted[0]
        return Correctness(
            WRONG, f"contradicts the reference: {first.text!r} ({first.missing})", missing
        )
    if not missing:
        return Correctness(CORRECT, "states everything the reference states")
    if len(missing) == len(parts):
        return Correctness(WRONG, "states none of the reference", missing)
    return Correctness(
        INCOMPLETE, "misses part of the reference: " + "; ".join(repr(m) for m in missing), missing
    )
