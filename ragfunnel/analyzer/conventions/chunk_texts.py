"""The SELECT that reads each stage span's listed chunks with their texts, from the conventions.

The stage table keeps ids as hashes (what the funnel compares); the judges need the ids and the
texts the span recorded. Every rule whose ``documents`` declare where texts live (``texts`` of a
:class:`JsonList`, ``text_field`` of :class:`FlatDocuments` and :class:`JsonDocuments`) gives one
row per span: ``TraceId``, ``SpanId``, ``Stage``, ``Started`` (ns), ``Ids`` and ``Texts`` (as
many as the ids, ``''`` where a text is missing; with texts but no ids, the ids are the 1-based
positions). The rule numbers are those of :func:`stage_select_sql`, so a span is read by the
same convention and rule as the funnel reads it. SQL text only: it never talks to a store.
"""

from __future__ import annotations

from collections.abc import Sequence

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

__all__ = ["chunk_texts_sql", "has_texts"]

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


def chunk_texts_sql(source_table: str, conventions: Sequence[Convention] | None = None) -> str:
    """The SELECT of the module docstring over ``source_table`` (``otel_traces``' columns)."""
    conventions = catalog.CONVENTIONS if conventions is None else tuple(conventions)
    _check(conventions)
    rules = [(convention, rule) for convention in conventions for rule in convention.rules]
    docs = [rule.fields.over(convention.common).documents for convention, rule in rules]
    with_texts = [d if has_texts(d) else None for d in docs]
    numbers = [n for n, d in enumerate(with_texts, start=1) if d is not None]
    if not numbers:
        return (
            "SELECT '' AS TraceId, '' AS SpanId, '' AS Stage, toInt64(0) AS Started, "
            f"{_NONE} AS Ids, {_NONE} AS Texts WHERE 0"
        )
    ids = _by_rule([None if d is None else _ids(d) for d in with_texts], _NONE)
    texts = _by_rule([None if d is None else _texts(d) for d in with_texts], _NONE)
    present = _by_rule([None if d is None else _texts_present(d) for d in with_texts], "0")
    stage = _by_rule([_lit(rule.stage.value) for _, rule in rules], "''")
    keep = f"Rule IN ({', '.join(str(n) for n in numbers)})"
    return f"""SELECT TraceId, SpanId, Stage, Started,
    if(empty(RawIds) AND notEmpty(RawTexts),
       arrayMap(n -> toString(n), range(1, length(RawTexts) + 1)), RawIds) AS Ids,
    arrayMap(n -> if(n <= length(RawTexts), RawTexts[n], ''), range(1, length(Ids) + 1)) AS Texts
FROM (SELECT TraceId, SpanId, {stage} AS Stage,
        toUnixTimestamp64Nano(Timestamp) AS Started, {ids} AS RawIds, {texts} AS RawTexts
    FROM (SELECT *, {_rule_number(conventions)} AS Rule FROM {source_table})
    WHERE {keep} AND ({present}))"""
