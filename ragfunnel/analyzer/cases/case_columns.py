"""Cases as columns: the shape the funnel consumes, built without a Python object per case.

A million cases as ``Case`` objects cost about a gigabyte and many seconds; as Arrow columns
they cost a tenth of that. :class:`CaseColumns` holds one row per case (id, question,
answerability, the distinct evidence ids and the shape of the evidence, facts, reference, the
line it was read from) and, sparsely, what columns cannot hold flat: nested evidence trees and
extra fields. :class:`ColumnBuilder` fills them from records (a quick check per record, the
full validation only for records the quick check does not vouch for) or from ``Case`` values.
Never reads files and never touches the store.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, cast

import polars as pl
import pyarrow as pa

from ragfunnel.analyzer.cases.case import Case
from ragfunnel.analyzer.cases.evidence import (
    AllOf,
    AnyOf,
    Evidence,
    Leaf,
    Quote,
    Span,
    document_leaf,
    evidence_ids,
)
from ragfunnel.analyzer.cases.problems import CaseProblem, EvidenceError
from ragfunnel.analyzer.cases.validation import FALSE, FIELDS, TRUE, Record, to_case
from ragfunnel.instrumentation.contract import normalize_question

__all__ = [
    "COLUMNS_SCHEMA",
    "LEAF_SCHEMA",
    "CaseColumns",
    "ColumnBuilder",
    "root_kind",
    "string_lists",
]

COLUMNS_SCHEMA = pl.Schema(
    {
        "id": pl.String(),
        "question": pl.String(),
        "answerable": pl.Boolean(),
        "items": pl.List(pl.String),
        "root_kind": pl.String(),
        "facts": pl.List(pl.String),
        "reference": pl.String(),
        "line": pl.Int32(),
    }
)
"""``items``: the distinct evidence ids in first-appearance order; ``root_kind``: ``leaf``,
``all`` or ``any`` for a single id or one flat group of distinct ids, ``nested`` otherwise
(the tree is in :attr:`CaseColumns.trees`), null without evidence; ``line``: null where the
format has no lines."""

LEAF_SCHEMA = pl.Schema(
    {
        "label": pl.String(),
        "document": pl.String(),
        "quote": pl.String(),
        "start": pl.Int64(),
        "end": pl.Int64(),
    }
)
"""One row per distinct document leaf of the flat rows: its label (the item), its document,
and its quote or its span."""

_FIELD_SET = frozenset(FIELDS)
_GROUP_KINDS = {"all_of": "all", "any_of": "any"}
_FLUSH_ROWS = 65_536
_EMPTY: tuple[str, ...] = ()


def root_kind(evidence: Evidence | None) -> str | None:
    """The ``root_kind`` of an evidence tree (see :data:`COLUMNS_SCHEMA`)."""
    if evidence is None:
        return None
    if isinstance(evidence, (Leaf, Quote, Span)):
        return "leaf"  # a document leaf is listed by its label (``CaseColumns.leaves``)
    ids = [child.id for child in evidence.children if isinstance(child, (Leaf, Quote, Span))]
    # A group naming one id twice weighs it twice in recall: the tree fold handles that.
    if len(ids) == len(evidence.children) == len(set(ids)):
        return "all" if isinstance(evidence, AllOf) else "any"
    return "nested"


@dataclass(frozen=True)
class CaseColumns:
    """Validated cases as one Arrow-backed table plus the parts that are not flat."""

    frame: pl.DataFrame
    """One row per case, in file order, with the columns of :data:`COLUMNS_SCHEMA`."""
    trees: Mapping[int, Evidence] = field(default_factory=dict)
    """Row → evidence tree, for the rows whose ``root_kind`` is ``nested``."""
    extras: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)
    """Row → extra (unknown but not misspelt) fields, for the rows that have any."""
    source: str = ""
    """The file the cases were read from (``Case.source`` is ``file:line``)."""
    leaf_table: pl.DataFrame = field(default_factory=LEAF_SCHEMA.to_frame)
    """The document leaves (a quote or a span) that items of flat rows stand for, by label
    (:data:`LEAF_SCHEMA`); resolved per index version (``resolution``), in bulk."""

    @cached_property
    def leaves(self) -> Mapping[str, Quote | Span]:
        """Label → document leaf (the rows of :attr:`leaf_table` as values)."""
        return {
            label: Quote(document, quote) if quote is not None else Span(document, start, end)
            for label, document, quote, start, end in self.leaf_table.iter_rows()
        }

    def __len__(self) -> int:
        return self.frame.height

    def case(self, row: int) -> Case:
        """The ``Case`` value of one row (0-based)."""
        (case_id, question, answerable, items, kind, facts, reference, line) = self.frame.row(row)
        evidence: Evidence | None
        if kind is None:
            evidence = None
        elif kind == "nested":
            evidence = self.trees[row]
        elif kind == "leaf":
            evidence = self.leaf(items[0])
        else:
            leaves = tuple(self.leaf(item) for item in items)
            evidence = AllOf(leaves) if kind == "all" else AnyOf(leaves)
        return Case(
            id=case_id,
            question=question,
            evidence=evidence,
            reference=reference,
            facts=tuple(facts),
            answerable=answerable,
            extra=dict(self.extras.get(row, {})),
            source=self.source + (f":{line}" if line else ""),
        )

    def leaf(self, item: str) -> Leaf | Quote | Span:
        """The leaf an item of a flat row stands for: a chunk id, or a document leaf's label."""
        found = self.leaves.get(item) if self.leaf_table.height else None
        return Leaf(item) if found is None else found

    def cases(self) -> tuple[Case, ...]:
        """Every row as a ``Case`` (a Python object each: for small sets and single lookups)."""
        return tuple(self.case(row) for row in range(self.frame.height))


class ColumnBuilder:
    """Collects cases row by row into flat lists, turned into Arrow every few thousand rows.

    :meth:`add_record` takes what a reader produced: records whose fields all have the plain
    shapes (string ids, one flat evidence group, string facts, ...) are checked and appended
    here in a few operations; any other record goes through the full validation
    (:func:`~ragfunnel.analyzer.cases.validation.to_case`), which appends its problems. The
    checks between cases (duplicate ids) and the question-normalisation check run vectorised
    in :meth:`build`.
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[CaseProblem] = []
        self._trees: dict[int, Evidence] = {}
        self._extras: dict[int, Mapping[str, Any]] = {}
        self._batches: list[pl.DataFrame] = []
        self._rows = 0
        self._near_misses: dict[str, bool] = {}
        self._labels: set[str] = set()
        self._leaf_rows: list[tuple[str, str, str | None, int | None, int | None]] = []
        self._leaf_tables: list[pl.DataFrame] = []
        self._reset()

    def _reset(self) -> None:
        self._ids: list[str] = []
        self._questions: list[str] = []
        self._answerable: list[bool] = []
        self._items: list[str] = []
        self._item_offsets: list[int] = [0]
        self._kinds: list[str | None] = []
        self._facts: list[str] = []
        self._fact_offsets: list[int] = [0]
        self._references: list[str | None] = []
        self._lines: list[int | None] = []

    def __len__(self) -> int:
        return self._rows + len(self._ids)

    def add_records(self, records: Iterable[Record]) -> None:
        """:meth:`add_record` for each record."""
        for record in records:
            self.add_record(record.data, record.line, record)

    def add_record(self, data: Any, line: int | None, record: Record | None = None) -> None:
        """Check one record and append its case, or append its problems to ``problems``."""
        if type(data) is not dict or not self._add_plain(data, line):
            case = to_case(record or Record(data, line), self.source, self.problems)
            if case is not None:
                self.add_case(case, line)

    def add_batch(self, batch: pl.DataFrame) -> None:
        """Append rows already checked (the columns of :data:`COLUMNS_SCHEMA`)."""
        self._flush()
        self._batches.append(batch)
        self._rows += batch.height

    def add_case(self, case: Case, line: int | None) -> None:
        """Append a case that is already valid."""
        kind = root_kind(case.evidence)
        row = len(self)
        if kind == "nested" and case.evidence is not None:
            self._trees[row] = case.evidence
        elif kind is not None and case.evidence is not None:
            for leaf in (case.evidence,) if kind == "leaf" else case.evidence.children:  # type: ignore[union-attr]
                if isinstance(leaf, (Quote, Span)):
                    self._register(leaf)
        if case.extra:
            self._extras[row] = case.extra
        self._append(
            case.id, case.question, case.answerable, evidence_ids(case.evidence), kind,
            case.facts, case.reference, line,
        )  # fmt: skip

    def _append(  # noqa: PLR0917 (one positional per column, on the hot path)
        self,
        case_id: str,
        question: str,
        answerable: bool,
        items: Iterable[str],
        kind: str | None,
        facts: Iterable[str],
        reference: str | None,
        line: int | None,
    ) -> None:
        self._ids.append(case_id)
        self._questions.append(question)
        self._answerable.append(answerable)
        self._items.extend(items)
        self._item_offsets.append(len(self._items))
        self._kinds.append(kind)
        self._facts.extend(facts)
        self._fact_offsets.append(len(self._facts))
        self._references.append(reference)
        self._lines.append(line)
        if len(self._ids) >= _FLUSH_ROWS:
            self._flush()

    def _add_plain(self, data: dict[Any, Any], line: int | None) -> bool:
        """Append a record in the plain shapes; False (nothing appended) for any other.

        Accepts exactly the records :func:`to_case` accepts with these shapes and builds the
        same values; every case it is unsure of is left to :func:`to_case`.
        """
        case_id = _plain_id(data.get("id"))
        question = data.get("question")
        if case_id is None or type(question) is not str or not question or question.isspace():
            return False
        evidence = data.get("evidence")
        items: list[str] | tuple[str, ...]
        if evidence is None:
            kind, items = None, _EMPTY
        elif (leaf := _plain_id(evidence) or self._plain_leaf(evidence)) is not None:
            kind, items = "leaf", (leaf,)
        else:
            if type(evidence) is list:
                kind, children = "all", evidence
            elif type(evidence) is dict and len(evidence) == 1:
                ((key, children),) = evidence.items()
                kind = _GROUP_KINDS.get(key)
                if kind is None or type(children) is not list:
                    return False
            else:
                return False
            ids = [_plain_id(child) for child in children]
            if None in ids:  # document leaves among the ids?
                ids = [
                    self._plain_leaf(child) if id_ is None else id_
                    for child, id_ in zip(children, ids, strict=True)
                ]
            if not ids or None in ids or len(set(ids)) != len(ids):
                return False
            items = cast("list[str]", ids)
        reference = data.get("reference")
        if reference is not None and type(reference) is not str:
            return False
        facts = data.get("facts")
        if facts is None:
            facts = _EMPTY
        elif type(facts) is str:
            facts = (facts,)
        elif type(facts) is not list:
            return False
        for fact in facts:
            if type(fact) is not str or not fact or fact.isspace():
                return False
        answerable = data.get("answerable")
        if answerable is None:
            answerable = True
        elif type(answerable) is str:
            word = answerable.strip().lower()
            if word not in TRUE and word not in FALSE:
                return False
            answerable = word in TRUE
        elif type(answerable) is not bool:
            return False
        if (kind is None) == answerable or (facts and not answerable):
            return False
        if not data.keys() <= _FIELD_SET:
            extra = self._plain_extra(data)
            if extra is None:
                return False
            if extra:
                self._extras[len(self)] = extra
        self._append(case_id, question, answerable, items, kind, facts, reference, line)
        return True

    def _plain_leaf(self, data: Any) -> str | None:
        """The label of a well-formed document leaf (registered), else None."""
        if type(data) is not dict or "document" not in data:
            return None
        try:
            leaf = document_leaf(data, "evidence")
        except EvidenceError:
            return None  # the full validation words the problem
        return self._register(leaf)

    def add_leaf_table(self, table: pl.DataFrame) -> None:
        """Register document leaves read in bulk (a frame of :data:`LEAF_SCHEMA`)."""
        if table.height:
            self._leaf_tables.append(table)

    def _register(self, leaf: Quote | Span) -> str:
        label = leaf.id
        if label not in self._labels:
            self._labels.add(label)
            if isinstance(leaf, Quote):
                self._leaf_rows.append((label, leaf.document, leaf.quote, None, None))
            else:
                self._leaf_rows.append((label, leaf.document, None, leaf.start, leaf.end))
        return label

    def _plain_extra(self, data: dict[Any, Any]) -> dict[str, Any] | None:
        extra: dict[str, Any] = {}
        for key, value in data.items():
            if key in _FIELD_SET:
                continue
            name = str(key)
            near = self._near_misses.get(name)
            if near is None:
                near = bool(difflib.get_close_matches(name, FIELDS, n=1, cutoff=0.75))
                self._near_misses[name] = near
            if near:
                return None
            extra[name] = value
        return extra

    def _flush(self) -> None:
        if not self._ids:
            return
        self._batches.append(
            pl.DataFrame(
                [
                    pl.Series("id", self._ids, pl.String),
                    pl.Series("question", self._questions, pl.String),
                    pl.Series("answerable", self._answerable, pl.Boolean),
                    string_lists("items", self._item_offsets, self._items),
                    pl.Series("root_kind", self._kinds, pl.String),
                    string_lists("facts", self._fact_offsets, self._facts),
                    pl.Series("reference", self._references, pl.String),
                    pl.Series("line", self._lines, pl.Int32),
                ]
            )
        )
        self._rows += len(self._ids)
        self._reset()

    def build(self) -> CaseColumns | None:
        """The columns, or None when a case is invalid.

        Invalid means ``problems`` were found or a check between cases failed; the caller then
        runs the reference validation, which words every problem.
        """
        columns = self.build_trusted()
        if self.problems:
            return None
        ids = columns.frame.get_column("id")
        if ids.len() and bool(ids.is_duplicated().any()):
            return None
        # Text with a letter or digit never normalises to nothing; check only the others.
        questions = columns.frame.get_column("question")
        bare = questions.filter(~questions.str.contains(r"[\p{L}\p{N}]"))
        if any(not normalize_question(q) for q in bare):
            return None
        return columns

    def build_trusted(self) -> CaseColumns:
        """The columns of the cases added so far, without the checks between cases."""
        self._flush()
        frame = (
            pl.concat(self._batches, rechunk=False) if self._batches else COLUMNS_SCHEMA.to_frame()
        )
        self._batches = []
        table = pl.DataFrame(self._leaf_rows, schema=LEAF_SCHEMA, orient="row")
        if self._leaf_tables:
            table = pl.concat([table, *self._leaf_tables], how="vertical").unique(
                "label", keep="first", maintain_order=True
            )
        return CaseColumns(frame, self._trees, self._extras, self.source, table)


def string_lists(
    name: str, offsets: Sequence[int], values: list[str], missing: pl.Series | None = None
) -> pl.Series:
    """A ``List(String)`` series from its flat values and its ``len + 1`` offsets.

    polars builds strings fast and lists of lists slowly, so Arrow joins the two. ``missing``
    (booleans) marks the rows that are null. Every array comes from polars: pyarrow imports
    pandas (0.3 s) the first time it converts Python values (``pa.array`` was 2 ms faster per
    32,768 cases than this).
    """
    lists = pa.ListArray.from_arrays(
        pl.Series(offsets, dtype=pl.Int32).to_arrow(),
        pl.Series(values, dtype=pl.String).to_arrow(),
        mask=missing.to_arrow() if missing is not None and missing.any() else None,
    )
    return cast(pl.Series, pl.from_arrow(lists)).alias(name)


def _plain_id(value: Any) -> str | None:
    """A chunk or case id that ``str(value).strip()`` would leave as it is, else None."""
    if type(value) is str:
        return value if value and not value[0].isspace() and not value[-1].isspace() else None
    if type(value) is int:
        return str(value)
    return None
