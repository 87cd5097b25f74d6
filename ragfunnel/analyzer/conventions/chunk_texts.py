"""How each convention lists a stage span's chunks with their texts: SQL expressions over a row.

The stage table keeps ids as hashes (what the funnel compares); the judges need the ids and the
texts the span recorded. Every rule whose ``documents`` declare where texts live (``texts`` of a
:class:`JsonList`, ``text_field`` of :class:`FlatDocuments` and :class:`JsonDocuments`) gives one
row per span; :func:`chunk_text_columns` gives the expressions of that row over one
``otel_traces`` row (its ``Rule`` number among them), and the store's SELECT
(``store/tables/traces.py``, ``chunk_texts``) runs them: ``TraceId``, ``SpanId``, ``Stage``,
``Started`` (ns), ``Ids`` and ``Texts`` (as many as the ids, ``''`` where a text is missing;
with texts but no ids, the ids are the 1-based positions). The rule numbers are those of
:func:`stage_select_sql`, so a span is read by the same convention and rule as the funnel reads
it. Expressions only: no statement, and it never talks to a store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragfunnel.analyzer.conventions import catalog
from ragfunnel.analyzer.conventions.assemble import (
    _by_rule,
    _check,
    _flat_field,
    _flat_indexes,
    _ids,
    _ids_present,
    _lit,
    _present,
    _rule_number,
)
from ragfunnel.analyzer.conventions.vocabulary import (
    Convention,
    Documents,
    FlatDocuments,
    JsonDocuments,
    JsonList,
)

__all__ = ["ChunkTextColumns", "chunk_text_columns", "has_texts"]

_NONE = "CAST([], 'Array(String)')"


def has_texts(docs: Documents | None) -> bool:
    """Whether ``docs`` declares where the chunks' texts are."""
    if isinstance(docs, JsonList):
        return docs.texts is not None
    return docs is not None and docs.text_field is not None


def _texts(docs: Documents) -> str:
    if isinstance(docs, JsonList):
        assert docs.texts is not None
        return f"JSONExtract(SpanAttributes[{_lit(docs.texts)}], 'Array(String)')"
    assert docs.text_field is not None
    if isinstance(docs, FlatDocuments):
        return f"arrayMap(n -> {_flat_field(docs, docs.text_field)}, {_flat_indexes(docs)})"
    assert isinstance(docs, JsonDocuments)
    return (
        f"arrayMap(d -> JSONExtract(d, {_lit(docs.text_field)}, 'String'), "
        f"JSONExtractArrayRaw(SpanAttributes[{_lit(docs.key)}]))"
    )


def _texts_present(docs: Documents) -> str:
    if isinstance(docs, JsonList) and docs.texts is not None:
        return f"({_ids_present(docs)} OR {_present(docs.texts)})"
    return _ids_present(docs)


@dataclass(frozen=True)
class ChunkTextColumns:
    """The expressions of a chunk-text row, over an ``otel_traces`` row.

    Attributes:
        rule: the row's rule number (as ``stage_select_sql`` numbers rules; 0 = none), to be
            named ``Rule`` — the other expressions read it.
        keep: true for a row whose rule declares where texts live.
        stage: the rule's stage.
        ids: the chunk ids the span lists (``Array(String)``).
        texts: the texts it lists (``Array(String)``).
        present: true when the span recorded ids or texts at all.
    """

    rule: str
    keep: str
    stage: str
    ids: str
    texts: str
    present: str


def chunk_text_columns(conventions: Sequence[Convention] | None = None) -> ChunkTextColumns | None:
    """The expressions of the module docstring; None when no rule declares where texts live."""
    conventions = catalog.CONVENTIONS if conventions is None else tuple(conventions)
    _check(conventions)
    rules = [(convention, rule) for convention in conventions for rule in convention.rules]
    docs = [rule.fields.over(convention.common).documents for convention, rule in rules]
    with_texts = [d if has_texts(d) else None for d in docs]
    numbers = [n for n, d in enumerate(with_texts, start=1) if d is not None]
    if not numbers:
        return None
    return ChunkTextColumns(
        rule=_rule_number(conventions),
        keep=f"Rule IN ({', '.join(str(n) for n in numbers)})",
        stage=_by_rule([_lit(rule.stage.value) for _, rule in rules], "''"),
        ids=_by_rule([None if d is None else _ids(d) for d in with_texts], _NONE),
        texts=_by_rule([None if d is None else _texts(d) for d in with_texts], _NONE),
        present=_by_rule([None if d is None else _texts_present(d) for d in with_texts], "0"),
    )
