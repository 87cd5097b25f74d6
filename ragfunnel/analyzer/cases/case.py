"""One evaluation case, as a plain value.

No reading (``readers``) and no checking (``validation``) here: a ``Case`` is what they build.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ragfunnel.analyzer.cases.evidence import Evidence, evidence_ids
from ragfunnel.instrumentation.contract import question_hash

__all__ = ["Case"]


@dataclass(frozen=True)
class Case:
    """One evaluation case."""

    id: str
    question: str
    evidence: Evidence | None = None
    reference: str | None = None
    facts: tuple[str, ...] = ()
    answerable: bool = True
    extra: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""
    """Where the case was read, ``file:line``, for messages."""

    @cached_property
    def question_hash(self) -> str:
        """The contract's hash of the normalised question text (how traces without ids match)."""
        return question_hash(self.question)

    @property
    def evidence_ids(self) -> tuple[str, ...]:
        """The distinct required chunk ids, in the order the case lists them."""
        return evidence_ids(self.evidence)
