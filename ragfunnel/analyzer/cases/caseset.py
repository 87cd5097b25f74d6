"""A validated set of cases, with the lookups the funnel needs.

A set holds its cases as columns (:class:`CaseColumns`, what the loaders build and what the
funnel reads) or as ``Case`` values (what code builds), and makes the other form only when
asked: iterating a million loaded cases builds a million objects, analyzing them does not.
Never reads files and never touches the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, cast

import polars as pl

from ragfunnel.analyzer.cases.case import Case
from ragfunnel.analyzer.cases.case_columns import CaseColumns, ColumnBuilder
from ragfunnel.analyzer.cases.validation import check_case_set
from ragfunnel.instrumentation.contract import question_hash

__all__ = ["CaseSet"]

_SCANS_BEFORE_INDEX = 8


class CaseSet:
    """Validated cases, with the lookups the funnel needs.

    ``CaseSet(cases, source)`` trusts its cases (use :meth:`of` to check them);
    :meth:`from_columns` wraps what a loader built.
    """

    def __init__(self, cases: Iterable[Case] = (), source: str = "") -> None:
        self.source = source
        self._cases: tuple[Case, ...] | None = tuple(cases)
        self._columns: CaseColumns | None = None
        self._index: dict[str, int] | None = None
        self._lookups = 0
        self.derived: dict[str, Any] = {}
        """Tables the analyzer derives from these cases, kept so repeated analyses reuse them."""

    @classmethod
    def from_columns(cls, columns: CaseColumns) -> CaseSet:
        """A case set over validated columns (no ``Case`` object is built until asked for)."""
        made = cls((), columns.source)
        made._cases, made._columns = None, columns
        return made

    @classmethod
    def of(cls, cases: Iterable[Case], source: str = "<memory>") -> CaseSet:
        """Build a case set from ``Case`` values, with the same checks as the file loader."""
        items = tuple(cases)
        check_case_set(items, source)
        return cls(items, source)

    @property
    def cases(self) -> tuple[Case, ...]:
        """Every case as a ``Case`` value (built on first use for loaded sets)."""
        if self._cases is None:
            self._cases = self.columns.cases()
        return self._cases

    @property
    def columns(self) -> CaseColumns:
        """The cases as columns (built on first use for sets made from ``Case`` values)."""
        if self._columns is None:
            builder = ColumnBuilder(self.source)
            for case in cast("tuple[Case, ...]", self._cases):
                builder.add_case(case, None)
            self._columns = builder.build_trusted()
        return self._columns

    def __len__(self) -> int:
        return len(self._cases) if self._cases is not None else len(self.columns)

    def __iter__(self) -> Iterator[Case]:
        return iter(self.cases)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CaseSet):
            return NotImplemented
        return self.source == other.source and self.cases == other.cases

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"CaseSet({len(self)} cases from {self.source!r})"

    def by_id(self, case_id: str) -> Case | None:
        """The case with this id, if any.

        The first few lookups in a loaded set scan the id column; later ones use an index
        built once (a dict of every id costs more than a handful of scans).
        """
        if self._index is None and self._cases is None and self._lookups < _SCANS_BEFORE_INDEX:
            self._lookups += 1
            rows = self.columns.frame.get_column("id").eq(case_id).arg_true()
            return self.columns.case(int(rows[0])) if rows.len() else None
        if self._index is None:
            ids = (
                [case.id for case in self._cases]
                if self._cases is not None
                else self.columns.frame.get_column("id").to_list()
            )
            self._index = dict(zip(ids, range(len(ids)), strict=True))  # the last one wins
        found = self._index.get(case_id)
        if found is None:
            return None
        return self._cases[found] if self._cases is not None else self.columns.case(found)

    def question_hashes(self) -> pl.Series:
        """Each case's question hash (the contract's, as traces carry it), in case order."""
        cached = self.derived.get("question_hashes")
        if cached is None:
            if self._cases is not None:
                hashes = [case.question_hash for case in self._cases]
            else:
                hashes = [question_hash(q) for q in self.columns.frame.get_column("question")]
            cached = pl.Series("question_hash", hashes, dtype=pl.String)
            self.derived["question_hashes"] = cached
        return cast(pl.Series, cached)

    def ambiguous_hashes(self) -> frozenset[str]:
        """Question hashes shared by several cases: traces without ids cannot match these."""
        cached = self.derived.get("ambiguous_hashes")
        if cached is None:
            hashes = self.question_hashes()
            cached = frozenset(hashes.filter(hashes.is_duplicated()).unique().to_list())
            self.derived["ambiguous_hashes"] = cached
        return cast("frozenset[str]", cached)
