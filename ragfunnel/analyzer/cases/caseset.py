"""A validated set of cases, with the lookups the funnel needs.

Never reads files and never touches the store.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ragfunnel.analyzer.cases.model import Case
from ragfunnel.analyzer.cases.validation import check_case_set

__all__ = ["CaseSet"]


@dataclass(frozen=True)
class CaseSet:
    """Validated cases, with the lookups the funnel needs."""

    cases: tuple[Case, ...]
    source: str = ""
    derived: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """Tables the analyzer derives from these cases, kept so repeated analyses reuse them."""

    def __len__(self) -> int:
        return len(self.cases)

    def __iter__(self) -> Iterator[Case]:
        return iter(self.cases)

    @cached_property
    def _index(self) -> dict[str, Case]:
        return {case.id: case for case in self.cases}

    def by_id(self, case_id: str) -> Case | None:
        """The case with this id, if any."""
        return self._index.get(case_id)

    def ambiguous_hashes(self) -> frozenset[str]:
        """Question hashes shared by several cases: traces without ids cannot match these."""
        seen = Counter(case.question_hash for case in self.cases)
        return frozenset(h for h, n in seen.items() if n > 1)

    @classmethod
    def of(cls, cases: Iterable[Case], source: str = "<memory>") -> CaseSet:
        """Build a case set from ``Case`` values, with the same checks as the file loader."""
        items = tuple(cases)
        check_case_set(items, source)
        return cls(items, source)
