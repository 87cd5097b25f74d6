"""The one SELECT that turns ``otel_traces`` rows into stage rows, assembled from conventions.

Every declared convention contributes its rules; the SELECT first gives each row a ``Rule``
number (the first convention whose marker holds, then its first matching rule; 0 = no stage
span), keeps only rows with a rule, and computes each column as a ``multiIf`` over the rule
numbers. ClickHouse evaluates a ``multiIf`` branch only for the rows that take it, so a span
pays only for the attributes its own stage declares: the lookups in a span's attribute map
(each a scan of its keys) and the JSON parsing happen once per declared column, never for
columns its stage cannot have.

The same text serves the materialized view (``source_table`` = ``otel_traces``) and a read-time
subquery. Only constants of the declarations are spliced into SQL, as escaped literals; never a
user's value. This module builds SQL text only: it never talks to a store.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from ragfunnel.analyzer.conventions import catalog
from ragfunnel.analyzer.conventions.vocabulary import (
    Attr,
    Condition,
    Convention,
    Documents,
    FirstOf,
    FlatDocuments,
    Has,
    JsonDocuments,
    JsonList,
    JsonText,
    OneOf,
    SpanName,
    SpanNamed,
    StageFields,
    Text,
)
from ragfunnel.analyzer.errors import AnalyzerError
from ragfunnel.instrumentation.contract import Stage

__all__ = ["BUCKETS", "STAGE_COLUMN_NAMES", "ConventionError", "stage_select_sql"]

BUCKETS = 16
"""Question instances are spread over this many buckets (``InstanceKey % BUCKETS``)."""

STAGE_COLUMN_NAMES = (
    "Timestamp", "TraceId", "SpanId", "ParentSpanId", "InstanceKey", "Bucket", "QuestionKey",
    "Source", "Stage", "StatusCode", "StatusMessage", "RunId", "QuestionHash", "QuestionText",
    "QuestionMime", "IndexVersion", "Abstained", "Name", "FusedFrom", "TopK", "CutK",
    "CutThreshold", "CutTokenBudget", "HasIds", "Ids", "IdHashes", "Scores", "TopScore",
    "HasInput", "InputHashes", "DocumentId", "Mode", "SampleIndex", "HasAnswer", "AnswerText",
    "LogprobsMin", "LowConfidence",
)  # fmt: skip
"""The stage row's columns, in the stage table's order."""


class ConventionError(AnalyzerError):
    """A convention declaration that cannot be assembled (a duplicate name, no rules)."""


def _lit(text: str) -> str:
    """A ClickHouse string literal for a constant of a declaration (never for user input)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _a(key: str) -> str:
    return f"SpanAttributes[{_lit(key)}]"


def _present(key: str) -> str:
    return f"mapContains(SpanAttributes, {_lit(key)})"


def _condition(cond: Condition) -> str:
    if isinstance(cond, Has):
        return f"{_a(cond.key)} != ''"
    if isinstance(cond, OneOf):
        if len(cond.values) == 1:
            return f"{_a(cond.key)} = {_lit(cond.values[0])}"
        return f"{_a(cond.key)} IN ({', '.join(_lit(v) for v in cond.values)})"
    if isinstance(cond, SpanNamed):
        if len(cond.names) == 1:
            return f"SpanName = {_lit(cond.names[0])}"
        return f"SpanName IN ({', '.join(_lit(n) for n in cond.names)})"
    return "(" + " AND ".join(_condition(c) for c in cond.conditions) + ")"


# How an attribute is parsed for each kind of column.
def _text(value: Text) -> str:
    if isinstance(value, Attr):
        return _a(value.key)
    if isinstance(value, SpanName):
        return "SpanName"
    if isinstance(value, JsonText):
        path = ", ".join(str(p) if isinstance(p, int) else _lit(p) for p in value.path)
        return f"JSONExtractString({_a(value.key)}, {path})"
    *first, last = value.keys
    branches = "".join(f"{_present(k)}, {_a(k)}, " for k in first)
    return f"multiIf({branches}{_a(last)})" if first else _a(last)


def _text_present(value: Text) -> str:
    if isinstance(value, SpanName):
        return "1"
    keys = value.keys if isinstance(value, FirstOf) else (value.key,)
    return " OR ".join(_present(k) for k in keys)


def _int(value: Attr) -> str:
    return f"accurateCastOrNull(toFloat64OrNull({_a(value.key)}), 'Int64')"


def _float(value: Attr) -> str:
    return f"toFloat64OrNull({_a(value.key)})"


def _flag(value: Attr) -> str:
    return f"{_a(value.key)} = 'true'"


def _strings(value: Attr) -> str:
    return f"JSONExtract({_a(value.key)}, 'Array(String)')"


def _flat_indexes(docs: FlatDocuments) -> str:
    """The sorted distinct N of ``prefix.N.*`` keys."""
    prefix = "^" + docs.prefix.replace(".", r"\.") + r"\."
    capture, any_index = _lit(prefix + r"(\d+)\."), _lit(prefix + r"\d+\.")
    return (
        f"arraySort(arrayDistinct(arrayMap(k -> toUInt32(extract(k, {capture})), "
        f"arrayFilter(k -> match(k, {any_index}), mapKeys(SpanAttributes)))))"
    )


def _flat_field(docs: FlatDocuments, name: str) -> str:
    return f"SpanAttributes[concat({_lit(docs.prefix + '.')}, toString(n), {_lit('.' + name)})]"


def _ids(docs: Documents) -> str:
    if isinstance(docs, JsonList):
        return f"JSONExtract({_a(docs.ids)}, 'Array(String)')"
    if isinstance(docs, FlatDocuments):
        return f"arrayMap(n -> {_flat_field(docs, docs.id_field)}, {_flat_indexes(docs)})"
    return (
        f"arrayMap(d -> JSONExtract(d, {_lit(docs.id_field)}, 'String'), "
        f"JSONExtractArrayRaw({_a(docs.key)}))"
    )


def _scores(docs: Documents) -> str | None:
    if isinstance(docs, JsonList):
        return docs.scores and f"JSONExtract({_a(docs.scores)}, 'Array(Float64)')"
    if docs.score_field is None:
        return None
    if isinstance(docs, FlatDocuments):
        score = f"toFloat64OrNull({_flat_field(docs, docs.score_field)})"
        return f"arrayMap(n -> ifNull({score}, nan), {_flat_indexes(docs)})"
    field = _lit(docs.score_field)
    return (
        f"arrayMap(d -> if(JSONHas(d, {field}), JSONExtractFloat(d, {field}), nan), "
        f"JSONExtractArrayRaw({_a(docs.key)}))"
    )


def _ids_present(docs: Documents) -> str:
    if isinstance(docs, JsonList):
        return _present(docs.ids)
    if isinstance(docs, JsonDocuments):
        return _present(docs.key)
    return f"notEmpty({_flat_indexes(docs)})"


_NO_STRINGS = "CAST([], 'Array(String)')"
_NULL_INT = "CAST(NULL, 'Nullable(Int64)')"
_NULL_FLOAT = "CAST(NULL, 'Nullable(Float64)')"
_FALSE = "toUInt8(0)"

# What a stage row holds where its rule declares nothing.
_DEFAULTS: dict[str, str] = {
    "QuestionKey": "concat('trace:', TraceId)",
    **dict.fromkeys(
        ("RunId", "QuestionHash", "QuestionText", "QuestionMime", "IndexVersion"), "''"
    ),
    "Abstained": _FALSE,
    "Name": "''",
    "FusedFrom": _NO_STRINGS,
    "TopK": _NULL_INT,
    "CutK": _NULL_INT,
    "CutThreshold": _NULL_FLOAT,
    "CutTokenBudget": _NULL_FLOAT,
    "ListedIds": _NO_STRINGS,
    "HasIds": _FALSE,
    "Scores": "CAST([], 'Array(Float64)')",
    "HasInput": _FALSE,
    "InputIds": _NO_STRINGS,
    "DocumentId": "''",
    "Mode": "'pipeline'",
    "SampleIndex": _NULL_INT,
    "HasAnswer": _FALSE,
    "AnswerText": "''",
    "LogprobsMin": _NULL_FLOAT,
    "LowConfidence": _NO_STRINGS,
}


def _declared(f: StageFields) -> dict[str, str | None]:
    """Each column's expression for a rule with fields ``f`` (``None``: the default)."""

    def text(value: Text | None) -> str | None:
        return None if value is None else _text(value)

    def parsed(value: Attr | None, parse: Callable[[Attr], str]) -> str | None:
        return None if value is None else parse(value)

    docs, given = f.documents, f.input_documents
    mode = text(f.mode)
    return {
        "QuestionKey": text(f.question_key),
        "RunId": text(f.run_id),
        "QuestionHash": text(f.question_hash),
        "QuestionText": text(f.question_text),
        "QuestionMime": text(f.question_mime),
        "IndexVersion": text(f.index_version),
        "Abstained": parsed(f.abstained, _flag),
        "Name": text(f.name),
        "FusedFrom": parsed(f.fused_from, _strings),
        "TopK": parsed(f.top_k, _int),
        "CutK": parsed(f.cut_k, _int),
        "CutThreshold": parsed(f.cut_threshold, _float),
        "CutTokenBudget": parsed(f.cut_token_budget, _float),
        "ListedIds": None if docs is None else _ids(docs),
        "HasIds": None if docs is None else _ids_present(docs),
        "Scores": None if docs is None else _scores(docs),
        "HasInput": None if given is None else _ids_present(given),
        "InputIds": None if given is None else _ids(given),
        "DocumentId": text(f.document_id),
        "Mode": None if mode is None else f"if({mode} != '', {mode}, 'pipeline')",
        "SampleIndex": parsed(f.sample_index, _int),
        "HasAnswer": None if f.answer is None else _text_present(f.answer),
        "AnswerText": text(f.answer),
        "LogprobsMin": parsed(f.logprobs_min, _float),
        "LowConfidence": parsed(f.low_confidence, _strings),
    }


# Columns computed from other columns of the same row, after the per-rule ones.
_DERIVED: dict[str, str] = {
    "InstanceKey": "cityHash64(TraceId, QuestionKey)",
    # modulo(), not %: at read time the SELECT goes through clickhouse-connect's client-side
    # parameter binding, which would read a % as a format character.
    "Bucket": f"toUInt8(modulo(InstanceKey, {BUCKETS}))",
    "IdHashes": "arrayMap(x -> cityHash64(x), ListedIds)",
    "TopScore": "if(empty(Scores), nan, arrayMax(Scores))",
    "InputHashes": "arrayMap(x -> cityHash64(x), InputIds)",
}
_PASSTHROUGH = ("Timestamp", "TraceId", "SpanId", "ParentSpanId", "StatusCode", "StatusMessage")


def _by_rule(values: Sequence[str | None], default: str) -> str:
    """A ``multiIf`` over rule numbers (1-based positions in ``values``).

    Rules with the same expression share one branch; rules without one get the default.
    """
    groups: dict[str, list[int]] = {}
    for number, value in enumerate(values, start=1):
        groups.setdefault(default if value is None else value, []).append(number)
    if len(groups) == 1:
        return next(iter(groups))
    branches = []
    for expr, numbers in groups.items():
        if expr == default:
            continue
        test = f"Rule = {numbers[0]}" if len(numbers) == 1 else f"Rule IN {tuple(numbers)}"
        branches.append(f"{test}, {expr}")
    return f"multiIf({', '.join(branches)}, {default})"


def _rule_number(conventions: Sequence[Convention]) -> str:
    branches, number = [], 0
    for convention in conventions:
        inner = []
        for rule in convention.rules:
            number += 1
            inner.append(f"{_condition(rule.when)}, {number}")
        branches.append(f"{_condition(convention.marker)}, multiIf({', '.join(inner)}, 0)")
    return f"toUInt8(multiIf({', '.join(branches)}, 0))"


def _check(conventions: Sequence[Convention]) -> None:
    names = [c.name for c in conventions]
    if len(set(names)) != len(names):
        raise ConventionError(f"convention names repeat: {names}")
    if not conventions or any(not c.rules for c in conventions):
        raise ConventionError("every convention needs at least one stage rule")
    if sum(len(c.rules) for c in conventions) > 255:
        raise ConventionError("more than 255 stage rules in all")


def _could_be(conventions: Sequence[Convention], stages: Collection[Stage]) -> str:
    """A condition that every span of one of ``stages`` meets: its rule's, written out.

    Weaker than the rule number (a span an earlier rule takes passes too), but in terms of
    ``otel_traces``' own columns, which the table's skip indexes can use: the bloom filter on
    the attribute values skips every granule without the value a rule needs.
    """
    tests = []
    for convention in conventions:
        whens = [_condition(rule.when) for rule in convention.rules if rule.stage in stages]
        if whens:
            tests.append(f"({_condition(convention.marker)} AND ({' OR '.join(whens)}))")
    return " OR ".join(tests) or "0"


def stage_select_sql(
    source_table: str,
    conventions: Sequence[Convention] | None = None,
    *,
    stages: Collection[Stage] | None = None,
) -> str:
    """The SELECT that turns rows of ``source_table`` into stage rows (``STAGE_COLUMN_NAMES``).

    ``source_table`` is a quoted table name or a parenthesised subquery with the columns of
    ``otel_traces``. ``conventions`` defaults to ``catalog.CONVENTIONS`` (read at call time),
    the conventions the analyzer knows, in precedence order. With ``stages``, only spans that
    could be of those stages are read (:func:`_could_be`); the rows still include spans of
    other stages that meet a rule of these, so filter on ``Stage`` as well.
    """
    conventions = catalog.CONVENTIONS if conventions is None else tuple(conventions)
    _check(conventions)
    pre = "" if stages is None else f"\nWHERE {_could_be(conventions, stages)}"
    rules = [(convention, rule) for convention in conventions for rule in convention.rules]
    fields = [rule.fields.over(convention.common) for convention, rule in rules]
    exprs: dict[str, str] = {name: name for name in ("Rule", *_PASSTHROUGH)}
    exprs["Source"] = _by_rule([_lit(convention.name) for convention, _ in rules], "''")
    exprs["Stage"] = _by_rule([_lit(rule.stage.value) for _, rule in rules], "''")
    declared = [_declared(f) for f in fields]
    for name, default in _DEFAULTS.items():
        exprs[name] = _by_rule([d[name] for d in declared], default)
    derived = dict(_DERIVED)
    # Ids as text are kept for ingest spans only, where index truth reads them; every other
    # stage is compared by hash, and carrying its id strings into the table was most of what
    # the view cost an insert.
    kept = ["ListedIds" if rule.stage is Stage.INGEST else None for _, rule in rules]
    derived["Ids"] = _by_rule(kept, _NO_STRINGS)
    # Three levels, each naming only the columns of the one below: the engine's analyzer
    # copies an alias's whole expression into every place that names it in the same SELECT,
    # so ``Rule`` named by ~30 columns beside its definition made a query tree 8x the size
    # of this one, analysed and planned again on every insert the view sees. ``Rule != 0``
    # filters in the middle level: in the level that computes it, a read of the table moved
    # it into PREWHERE and computed the rule number twice (~30 % more time per span).
    per_rule = ",\n    ".join(f"{expr} AS {name}" for name, expr in exprs.items())
    final = ", ".join(
        f"{derived[name]} AS {name}" if name in derived else name for name in STAGE_COLUMN_NAMES
    )
    read = ", ".join((*_PASSTHROUGH, "SpanName", "SpanAttributes"))
    return (
        f"SELECT {final}\nFROM (SELECT\n    {per_rule}\n"
        f"FROM (SELECT {_rule_number(conventions)} AS Rule, {read}\n"
        f"FROM {source_table}{pre})\nWHERE Rule != 0)"
    )
