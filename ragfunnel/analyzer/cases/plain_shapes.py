"""Plain JSON cases checked in bulk: typed decoding in C, the checks as column expressions.

Most cases of a large file have the plain shapes: string id and question, evidence a chunk id,
a list of ids or one ``all_of`` / ``any_of`` group of ids, string facts and reference, a
boolean ``answerable``, no other field. msgspec decodes such a case straight into a
:class:`PlainCase` (and refuses any other shape); :func:`plain_batch` turns a run of them into
one frame of :data:`~ragfunnel.analyzer.cases.case_columns.COLUMNS_SCHEMA` and, with
vectorised checks, flags every case whose values the full validation must see (blank or
padded ids, empty groups, an id named twice, evidence and answerability that disagree, ...).
A flagged case is never rejected here: the caller validates it in full. Never touches the store.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, cast

import msgspec
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from ragfunnel.analyzer.cases.case_columns import LEAF_SCHEMA, string_lists

__all__ = ["PLAIN_DECODER", "PlainCase", "PlainGroup", "PlainLeaf", "flagged_rows", "plain_batch"]


class PlainLeaf(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A document leaf inside a group: ``{document, quote}`` or ``{document, start, end}``."""

    document: str
    quote: str = None  # type: ignore[assignment]
    start: int = None  # type: ignore[assignment]
    end: int = None  # type: ignore[assignment]


class PlainGroup(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A one-level evidence group (both keys, or neither, is flagged), or one document leaf.

    None means "key absent": a JSON null is no list, so it fails to decode.
    """

    all_of: list[str | PlainLeaf] = None  # type: ignore[assignment]
    any_of: list[str | PlainLeaf] = None  # type: ignore[assignment]
    document: str = None  # type: ignore[assignment]
    quote: str = None  # type: ignore[assignment]
    start: int = None  # type: ignore[assignment]
    end: int = None  # type: ignore[assignment]


class PlainCase(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One case in the plain shapes (any other shape fails to decode)."""

    id: str
    question: str
    evidence: str | list[str | PlainLeaf] | PlainGroup | None = None
    reference: str | None = None
    facts: str | list[str] | None = None
    answerable: bool | None = None


PLAIN_DECODER = msgspec.json.Decoder(PlainCase)

# Python's str.strip() also strips \x1c-\x1f, which Unicode (and so the regex \s) does not
# call white space: flag both, and let the full validation decide.
_WS = r"[\s\x1c-\x1f]"
_PADDED = rf"^{_WS}|{_WS}$"
_BLANK = rf"^{_WS}*$"


LEAF_FRAME = LEAF_SCHEMA.to_frame()


def plain_batch(
    cases: Sequence[PlainCase], lines: pl.Series
) -> tuple[pl.DataFrame, list[int], pl.DataFrame]:
    """The cases as one frame, the rows the full validation must see, and the leaves.

    The leaves (a frame of ``case_columns.LEAF_SCHEMA``) are the document leaves that items'
    labels stand for.

    ``lines`` holds each case's line (or nulls). Flagged rows are in the frame too, with
    values that mean nothing: the caller replaces them.
    """
    # Inline expressions, no call per case: a Python call costs more than the whole row.
    evidence: list[Any] = [case.evidence for case in cases]
    kinds = [
        None if e is None else "leaf" if (k := e.__class__) is str else "all" if k is list
        else "leaf" if e.document is not None
        else "all" if e.any_of is None else "any" for e in evidence
    ]  # fmt: skip
    items = [
        [] if e is None else [e] if (k := e.__class__) is str else e if k is list
        else [e] if e.document is not None
        else e.all_of if e.any_of is None else e.any_of if e.all_of is None else None
        for e in evidence
    ]  # fmt: skip
    item_column, leaves, odd_rows = _items(items)
    facts: list[Any] = [case.facts for case in cases]
    frame = pl.DataFrame(
        [
            pl.Series("id", [case.id for case in cases], pl.String),
            pl.Series("question", [case.question for case in cases], pl.String),
            pl.Series("answerable", [case.answerable for case in cases], pl.Boolean),
            item_column,
            pl.Series("root_kind", kinds, pl.String),
            _strings(
                "facts", [[] if f is None else [f] if f.__class__ is str else f for f in facts]
            ),
            pl.Series("reference", [case.reference for case in cases], pl.String),
            lines.cast(pl.Int32).alias("line"),
        ]
    ).with_columns(pl.col("answerable").fill_null(True))
    rows = flagged_rows(frame)
    rows.update(odd_rows)
    return frame, sorted(rows), leaves


def flagged_rows(frame: pl.DataFrame) -> set[int]:
    """The rows of a plain frame whose values the full validation must see.

    Blank or padded ids, blank questions, a malformed group or one without items, an id
    named twice, evidence and answerability that disagree, facts of an unanswerable case,
    blank facts.
    """
    n_items = pl.col("items").list.len()
    flagged = frame.select(
        pl.col("id").str.contains(_PADDED)
        | (pl.col("id").str.len_bytes() == 0)
        | pl.col("question").str.contains(_BLANK)
        # a malformed group, a group without items, an id named twice (a tree, not flat)
        | pl.col("items").is_null()
        | (pl.col("root_kind").is_not_null() & (n_items == 0))
        # evidence iff answerable, no facts when unanswerable
        | (pl.col("root_kind").is_null() == pl.col("answerable"))
        | (~pl.col("answerable") & (pl.col("facts").list.len() > 0))
    ).to_series()
    rows = set(flagged.fill_null(True).arg_true().to_list())
    rows.update(_bad_values(frame.get_column("items"), _PADDED, distinct=True))
    rows.update(_bad_values(frame.get_column("facts"), _BLANK, distinct=False))
    return rows


def _items(lists: list[Any]) -> tuple[pl.Series, pl.DataFrame, list[int]]:
    """The ``items`` column with each document leaf as its label, the leaves, the odd rows.

    The leaves are a frame of ``case_columns.LEAF_SCHEMA``; the odd rows hold a leaf that is
    not plain (flagged).

    A plain leaf names a document and either a quote or a non-empty span, with nothing to
    strip; the full validation words every other shape. Column work, no call per leaf.
    """
    flat = [value for values in lists if values for value in values]
    ends = list(itertools.accumulate(0 if values is None else len(values) for values in lists))
    missing = pl.Series([values is None for values in lists], dtype=pl.Boolean)
    where = [i for i, value in enumerate(flat) if value.__class__ is not str]
    if not where:
        return string_lists("items", [0, *ends], flat, missing), LEAF_FRAME, []
    structs: list[Any] = [flat[i] for i in where]
    table = pl.DataFrame(
        {
            "document": [v.document for v in structs],
            "quote": [v.quote for v in structs],
            "start": [v.start for v in structs],
            "end": [v.end for v in structs],
            "group": [v.__class__ is PlainGroup and _is_group(v) for v in structs],
        },
        schema={"document": pl.String, "quote": pl.String, "start": pl.Int64, "end": pl.Int64,
                "group": pl.Boolean},
    )  # fmt: skip
    document, quote = pl.col("document"), pl.col("quote")
    start, end = pl.col("start"), pl.col("end")
    neat = document.str.len_bytes() > 0
    neat &= ~document.str.contains(_PADDED) & ~pl.col("group")
    quoted = quote.is_not_null() & start.is_null() & end.is_null()
    quoted &= (quote.str.len_bytes() > 0) & ~quote.str.contains(_PADDED)
    spanned = quote.is_null() & (start >= 0) & (end > start)
    table = table.with_columns(
        label=pl.when(neat & quoted)
        .then(pl.format('{} "{}"', document, quote))
        .when(neat & spanned.fill_null(False))
        .then(pl.format("{}[{}:{}]", document, start, end))
    )
    labels = table.get_column("label")
    for i, label in zip(where, labels.fill_null("").to_list(), strict=True):
        flat[i] = label
    column = string_lists("items", [0, *ends], flat, missing)
    bad = pl.Series(where, dtype=pl.Int64).filter(labels.is_null())
    odd_rows = (
        pl.Series(ends, dtype=pl.Int64).search_sorted(bad, side="right").to_list()
        if bad.len()
        else []
    )
    leaves = table.filter(pl.col("label").is_not_null()).select(
        "label", "document", "quote", "start", "end"
    )
    return column, leaves, odd_rows


def _is_group(value: PlainLeaf | PlainGroup) -> bool:
    """A ``{document, ...}`` that names a group too (not a plain leaf)."""
    if not isinstance(value, PlainGroup):
        return False
    groups: tuple[Any, Any] = (value.all_of, value.any_of)  # None when absent (see the class)
    return groups != (None, None)


def _bad_values(lists: pl.Series, pattern: str, *, distinct: bool) -> list[int]:
    """Rows with a value matching ``pattern`` or empty, or (``distinct``) one value twice."""
    flat = cast(pa.ListArray, lists.to_arrow())
    parents = pl.Series("row", pc.list_parent_indices(flat))
    values = cast(pl.Series, pl.from_arrow(pc.list_flatten(flat))).alias("value")
    bad = values.str.contains(pattern) | (values.str.len_bytes() == 0)
    if distinct:
        bad = bad | pl.DataFrame([parents, values]).is_duplicated()
    found: list[int] = parents.filter(bad).unique().to_list()
    return found


def _strings(name: str, lists: list[Any]) -> pl.Series:
    """Lists of strings (or None) as a ``List(String)`` series."""
    flat = [value for values in lists if values for value in values]
    ends = itertools.accumulate(0 if values is None else len(values) for values in lists)
    missing = pl.Series([values is None for values in lists], dtype=pl.Boolean)
    return string_lists(name, [0, *ends], flat, missing)
