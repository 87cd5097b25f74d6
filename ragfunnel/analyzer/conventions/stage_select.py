"""Span conventions: the SELECT that turns ``otel_traces`` rows into typed stage-span rows.

``otel_traces`` keeps every attribute as a string in one map, with id and score lists as JSON
text. This SELECT parses each stage span: ids become typed arrays plus 64-bit hashes of them
(the analysis compares hashes, not strings), scores become ``Array(Float64)``, and the
attributes the funnel needs become columns. The stage table's materialized view runs it on
insert (``ragfunnel.analyzer.store.migrations``); without the table, the analysis runs it at
read time as a subquery.

The same SELECT normalises spans ragfunnel did not write — OpenInference RETRIEVER / RERANKER /
LLM / CHAIN spans (flattened ``retrieval.documents.N.document.id``) and OpenTelemetry GenAI
``retrieval`` / ``chat`` spans (``gen_ai.retrieval.documents`` JSON) — into the same columns, so
the funnel has one input shape (docs/funnel.md lists the conventions). This module only builds
SQL text from constants of ours; it never sees user values and never talks to a store.
"""

from __future__ import annotations

from ragfunnel.instrumentation import contract as c

__all__ = ["BUCKETS", "stage_select_sql"]

BUCKETS = 16
"""Question instances are spread over this many buckets (``modulo(InstanceKey, BUCKETS)``)."""

# Attribute names of the conventions the analyzer reads but ragfunnel does not write. Kept here,
# once: OpenInference semantic conventions 0.1.x and OpenTelemetry GenAI (development status).
OI_INPUT_VALUE = "input.value"
OI_INPUT_MIME = "input.mime_type"
OI_OUTPUT_VALUE = "output.value"
OI_RETRIEVAL_DOCUMENTS = "retrieval.documents"
OI_RERANKER_INPUT = "reranker.input_documents"
OI_RERANKER_OUTPUT = "reranker.output_documents"
OI_RERANKER_MODEL = "reranker.model_name"
OI_RERANKER_TOP_K = "reranker.top_k"
OI_LLM_MODEL = "llm.model_name"
OI_LLM_OUTPUT_CONTENT = "llm.output_messages.0.message.content"
GEN_AI_RETRIEVAL_DOCUMENTS = "gen_ai.retrieval.documents"
GEN_AI_RETRIEVAL_QUERY = "gen_ai.retrieval.query.text"
GEN_AI_OUTPUT_MESSAGES = "gen_ai.output.messages"
GEN_AI_GENERATE_OPERATIONS = ("chat", "text_completion", "generate_content")


def _lit(text: str) -> str:
    """A ClickHouse string literal for a constant of ours (never for user input)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _a(name: str) -> str:
    return f"SpanAttributes[{_lit(name)}]"


def _has(name: str) -> str:
    return f"mapContains(SpanAttributes, {_lit(name)})"


def _regex_prefix(prefix: str) -> str:
    return "^" + prefix.replace(".", r"\.") + r"\."


def _oi_indexes(prefix: str) -> str:
    """The sorted distinct N of ``prefix.N.*`` keys (OpenInference's flattened documents)."""
    capture = _lit(_regex_prefix(prefix) + r"(\d+)\.")
    any_index = _lit(_regex_prefix(prefix) + r"\d+\.")
    return (
        f"arraySort(arrayDistinct(arrayMap(k -> toUInt32(extract(k, {capture})), "
        f"arrayFilter(k -> match(k, {any_index}), mapKeys(SpanAttributes)))))"
    )


def _oi_ids(prefix: str) -> str:
    return (
        f"arrayMap(n -> SpanAttributes[concat({_lit(prefix + '.')}, toString(n), "
        f"'.document.id')], {_oi_indexes(prefix)})"
    )


def _oi_scores(prefix: str) -> str:
    return (
        f"arrayMap(n -> ifNull(toFloat64OrNull(SpanAttributes[concat({_lit(prefix + '.')}, "
        f"toString(n), '.document.score')]), nan), {_oi_indexes(prefix)})"
    )


def _ids(name: str) -> str:
    return f"JSONExtract({_a(name)}, 'Array(String)')"


def _int(name: str) -> str:
    return f"accurateCastOrNull(toFloat64OrNull({_a(name)}), 'Int64')"


def _float(name: str) -> str:
    return f"toFloat64OrNull({_a(name)})"


_GENAI_DOCS = f"JSONExtractArrayRaw({_a(GEN_AI_RETRIEVAL_DOCUMENTS)})"
_OI_KIND = _a(c.OPENINFERENCE_KIND)
_GENAI_OP = _a(c.GEN_AI_OPERATION)
_GEN_OPS = ", ".join(_lit(op) for op in GEN_AI_GENERATE_OPERATIONS)

# Which rows become stage spans: ragfunnel's own, and the foreign kinds the funnel understands.
# A foreign CHAIN/AGENT span with an input may be the question root; the analysis picks the
# earliest one of each trace.
_WHERE = (
    f"{_a(c.STAGE)} != '' OR {_OI_KIND} IN ('RETRIEVER', 'RERANKER', 'LLM') "
    f"OR ({_OI_KIND} IN ('CHAIN', 'AGENT') AND {_a(OI_INPUT_VALUE)} != '') "
    f"OR {_GENAI_OP} IN ('retrieval', {_GEN_OPS})"
)

_SOURCE = f"multiIf({_a(c.STAGE)} != '', 'ragfunnel', {_OI_KIND} != '', 'openinference', 'genai')"
_STAGE = (
    f"multiIf(Source = 'ragfunnel', {_a(c.STAGE)}, "
    f"{_OI_KIND} = 'RETRIEVER', 'retrieve', {_OI_KIND} = 'RERANKER', 'rerank', "
    f"{_OI_KIND} = 'LLM', 'generate', {_OI_KIND} IN ('CHAIN', 'AGENT'), 'question', "
    f"{_GENAI_OP} = 'retrieval', 'retrieve', {_GENAI_OP} IN ({_GEN_OPS}), 'generate', '')"
)
_IDS = (
    "multiIf("
    f"Source = 'ragfunnel' AND Stage = 'generate', {_ids(c.CONTEXT_IDS)}, "
    f"Source = 'ragfunnel' AND Stage = 'ingest', {_ids(c.CHUNKS_IDS)}, "
    f"Source = 'ragfunnel', {_ids(c.DOCUMENTS_IDS)}, "
    f"Source = 'openinference' AND Stage = 'retrieve', {_oi_ids(OI_RETRIEVAL_DOCUMENTS)}, "
    f"Source = 'openinference' AND Stage = 'rerank', {_oi_ids(OI_RERANKER_OUTPUT)}, "
    f"Source = 'genai' AND Stage = 'retrieve', "
    f"arrayMap(d -> JSONExtract(d, 'id', 'String'), {_GENAI_DOCS}), "
    "CAST([], 'Array(String)'))"
)
_HAS_IDS = (
    "multiIf("
    f"Source = 'ragfunnel' AND Stage = 'generate', {_has(c.CONTEXT_IDS)}, "
    f"Source = 'ragfunnel' AND Stage = 'ingest', {_has(c.CHUNKS_IDS)}, "
    f"Source = 'ragfunnel', {_has(c.DOCUMENTS_IDS)}, "
    "Source = 'openinference' AND Stage IN ('retrieve', 'rerank'), notEmpty(Ids), "
    f"Source = 'genai' AND Stage = 'retrieve', {_has(GEN_AI_RETRIEVAL_DOCUMENTS)}, "
    "0)"
)
_SCORES = (
    "multiIf("
    f"Source = 'ragfunnel' AND Stage IN ('retrieve', 'rerank', 'cut'), "
    f"JSONExtract({_a(c.DOCUMENTS_SCORES)}, 'Array(Float64)'), "
    f"Source = 'openinference' AND Stage = 'retrieve', {_oi_scores(OI_RETRIEVAL_DOCUMENTS)}, "
    f"Source = 'openinference' AND Stage = 'rerank', {_oi_scores(OI_RERANKER_OUTPUT)}, "
    f"Source = 'genai' AND Stage = 'retrieve', "
    f"arrayMap(d -> if(JSONHas(d, 'score'), JSONExtractFloat(d, 'score'), nan), {_GENAI_DOCS}), "
    "CAST([], 'Array(Float64)'))"
)
_INPUT_IDS = (
    "multiIf("
    f"Source = 'ragfunnel' AND Stage IN ('rerank', 'cut'), {_ids(c.INPUT_IDS)}, "
    f"Source = 'openinference' AND Stage = 'rerank', {_oi_ids(OI_RERANKER_INPUT)}, "
    "CAST([], 'Array(String)'))"
)
_HAS_INPUT = (
    "multiIf("
    f"Source = 'ragfunnel' AND Stage IN ('rerank', 'cut'), {_has(c.INPUT_IDS)}, "
    f"Source = 'openinference' AND Stage = 'rerank', notEmpty({_oi_indexes(OI_RERANKER_INPUT)}), "
    "0)"
)
_NAME = (
    "multiIf("
    f"Stage = 'retrieve', if(Source = 'ragfunnel', {_a(c.RETRIEVER_NAME)}, SpanName), "
    f"Stage = 'rerank', if(Source = 'ragfunnel', {_a(c.RERANKER_MODEL)}, {_a(OI_RERANKER_MODEL)}), "
    f"Stage = 'generate', if(Source = 'openinference', {_a(OI_LLM_MODEL)}, "
    f"{_a(c.GEN_AI_REQUEST_MODEL)}), '')"
)
_ANSWER = (
    "multiIf("
    f"Source = 'ragfunnel', {_a(c.ANSWER_TEXT)}, "
    f"Source = 'openinference' AND {_has(OI_LLM_OUTPUT_CONTENT)}, {_a(OI_LLM_OUTPUT_CONTENT)}, "
    f"Source = 'openinference', {_a(OI_OUTPUT_VALUE)}, "
    f"JSONExtractString({_a(GEN_AI_OUTPUT_MESSAGES)}, 1, 'parts', 1, 'content'))"
)
_HAS_ANSWER = (
    "Stage = 'generate' AND multiIf("
    f"Source = 'ragfunnel', {_has(c.ANSWER_TEXT)}, "
    f"Source = 'openinference', {_has(OI_LLM_OUTPUT_CONTENT)} OR {_has(OI_OUTPUT_VALUE)}, "
    f"{_has(GEN_AI_OUTPUT_MESSAGES)})"
)

# Column expressions in table order. Later expressions refer to earlier aliases (Source, Stage,
# Ids), which ClickHouse resolves within one SELECT.
_EXPRESSIONS: dict[str, str] = {
    "Timestamp": "Timestamp",
    "TraceId": "TraceId",
    "SpanId": "SpanId",
    "ParentSpanId": "ParentSpanId",
    "Source": _SOURCE,
    "Stage": _STAGE,
    "QuestionKey": f"if(Source = 'ragfunnel', {_a(c.QUESTION_ID)}, concat('trace:', TraceId))",
    "InstanceKey": "cityHash64(TraceId, QuestionKey)",
    # modulo(), not %: run at read time, the SELECT goes through clickhouse-connect's
    # client-side parameter binding, which would read a % as a format character.
    "Bucket": f"toUInt8(modulo(InstanceKey, {BUCKETS}))",
    "StatusCode": "StatusCode",
    "StatusMessage": "StatusMessage",
    "RunId": _a(c.RUN_ID),
    "QuestionHash": _a(c.QUESTION_HASH),
    # Foreign traces: the root's input; a GenAI trace may have no root with an input, so its
    # retrieval query (or an OpenInference retriever's input) stands in when matching cases.
    "QuestionText": f"multiIf(Source = 'ragfunnel', {_a(c.QUESTION_TEXT)}, "
    f"Stage IN ('question', 'retrieve') AND Source = 'openinference', {_a(OI_INPUT_VALUE)}, "
    f"Stage = 'retrieve' AND Source = 'genai', {_a(GEN_AI_RETRIEVAL_QUERY)}, '')",
    "QuestionMime": f"if(Stage = 'question', {_a(OI_INPUT_MIME)}, '')",
    "IndexVersion": f"multiIf(Stage = 'question', {_a(c.PIPELINE_PREFIX + 'index_version')}, "
    f"Stage = 'ingest', {_a(c.INDEX_VERSION)}, '')",
    "Abstained": f"{_a(c.ANSWER_ABSTAINED)} = 'true'",
    "Name": _NAME,
    "FusedFrom": _ids(c.RETRIEVER_FUSED_FROM),
    "TopK": f"multiIf(Stage = 'retrieve', {_int(c.TOP_K)}, "
    f"Stage = 'rerank', if(Source = 'ragfunnel', {_int(c.TOP_N)}, {_int(OI_RERANKER_TOP_K)}), "
    "NULL)",
    "CutK": _int(c.CUT_K),
    "CutThreshold": _float(c.CUT_THRESHOLD),
    "CutTokenBudget": _float(c.CUT_TOKEN_BUDGET),
    "Ids": _IDS,
    "HasIds": _HAS_IDS,
    "IdHashes": "arrayMap(x -> cityHash64(x), Ids)",
    "Scores": _SCORES,
    "TopScore": "if(empty(Scores), nan, arrayMax(Scores))",
    "HasInput": _HAS_INPUT,
    "InputHashes": f"arrayMap(x -> cityHash64(x), {_INPUT_IDS})",
    "DocumentId": _a(c.DOCUMENT_ID),
    "Mode": f"if(Source = 'ragfunnel' AND {_a(c.MODE)} != '', {_a(c.MODE)}, 'pipeline')",
    "SampleIndex": _int(c.SAMPLE_INDEX),
    "HasAnswer": _HAS_ANSWER,
    "AnswerText": f"if(Stage = 'generate', {_ANSWER}, '')",
    "LogprobsMin": _float(c.LOGPROBS_MIN),
    "LowConfidence": _ids(c.LOGPROBS_LOW_CONFIDENCE),
}


def stage_select_sql(source_table: str) -> str:
    """The SELECT that turns ``source_table``'s ``otel_traces`` rows into stage-span rows.

    It must hold no ``%``: the analysis runs it as a subquery of queries with bound parameters.

    Its columns are the stage table's (``ragfunnel.analyzer.store.stage_table``), named, in
    dependency order; wrap it to fix another order. ``source_table`` is a quoted qualified
    name of ours, never user text.
    """
    exprs = ",\n    ".join(f"{expr} AS {name}" for name, expr in _EXPRESSIONS.items())
    return f"SELECT\n    {exprs}\nFROM {source_table}\nWHERE {_WHERE}"
