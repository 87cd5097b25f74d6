"""The typed stage-span table the funnel reads (one row per stage span), and its view.

Its layout (:data:`STAGE_COLUMNS`), the statements that create it and the materialized view on
``otel_traces`` that fills it (:func:`view_ddl`, :func:`create_stage_spans`, which also
backfills the spans stored before), and the reads of stage rows that are not the funnel's own
aggregation: the runs a store holds, an ingest's time range, the answers the judges judge.
The SELECT that turns ``otel_traces`` rows into stage rows lives with the span conventions
(``conventions/assemble.py``); this module only runs it. Reads take the stage rows' source
(``StageSource.sql``: this table, or that SELECT as a subquery at read time).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING

from ragfunnel.analyzer.conventions import BUCKETS, stage_select_sql
from ragfunnel.analyzer.store import statements
from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.part_format import PART_SETTINGS

if TYPE_CHECKING:
    import polars as pl

    from ragfunnel.analyzer.store.connection import Store
    from ragfunnel.instrumentation.contract import Stage

__all__ = [
    "BUCKETS",
    "STAGE_COLUMNS",
    "STAGE_TABLE",
    "TRACE_HASH",
    "VIEW_NAME",
    "answer_traces",
    "create_stage_spans",
    "generate_answers",
    "question_texts",
    "ranked_ids",
    "run_ids",
    "run_versions",
    "stage_select",
    "stage_table",
    "time_range",
    "view_ddl",
]

STAGE_TABLE = "ragfunnel_stage_spans_v1"
"""The table's name carries its layout's version: a new layout is a new table (and revision)."""
VIEW_NAME = f"{STAGE_TABLE}_mv"
"""The materialized view on ``otel_traces`` that fills :data:`STAGE_TABLE` as spans arrive."""

STAGE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("Timestamp", "DateTime64(9) CODEC(Delta, ZSTD(1))"),
    ("TraceId", "String CODEC(ZSTD(1))"),
    ("SpanId", "String CODEC(ZSTD(1))"),
    ("ParentSpanId", "String CODEC(ZSTD(1))"),
    ("InstanceKey", "UInt64"),
    ("Bucket", "UInt8"),
    ("QuestionKey", "String CODEC(ZSTD(1))"),
    ("Source", "LowCardinality(String)"),
    ("Stage", "LowCardinality(String)"),
    ("StatusCode", "LowCardinality(String)"),
    ("StatusMessage", "String CODEC(ZSTD(1))"),
    ("RunId", "LowCardinality(String)"),
    ("QuestionHash", "String CODEC(ZSTD(1))"),
    ("QuestionText", "String CODEC(ZSTD(1))"),
    ("QuestionMime", "LowCardinality(String)"),
    ("IndexVersion", "LowCardinality(String)"),
    ("Abstained", "UInt8"),
    ("Name", "LowCardinality(String)"),
    ("FusedFrom", "Array(LowCardinality(String))"),
    ("TopK", "Nullable(Int64)"),
    ("CutK", "Nullable(Int64)"),
    ("CutThreshold", "Nullable(Float64)"),
    ("CutTokenBudget", "Nullable(Float64)"),
    ("HasIds", "UInt8"),
    ("Ids", "Array(String) CODEC(ZSTD(1))"),
    # Hashes do not compress: compressing them would only cost every insert time.
    ("IdHashes", "Array(UInt64) CODEC(NONE)"),
    ("Scores", "Array(Float64) CODEC(ZSTD(1))"),
    ("TopScore", "Float64"),
    ("HasInput", "UInt8"),
    ("InputHashes", "Array(UInt64) CODEC(NONE)"),
    ("DocumentId", "String CODEC(ZSTD(1))"),
    ("Mode", "LowCardinality(String)"),
    ("SampleIndex", "Nullable(Int64)"),
    ("HasAnswer", "UInt8"),
    ("AnswerText", "String CODEC(ZSTD(1))"),
    ("LogprobsMin", "Nullable(Float64)"),
    ("LowConfidence", "Array(String)"),
)
"""Column names and types (with codecs), in the order of the conventions' stage rows."""


def stage_table(store: Store) -> str:
    """The quoted qualified name of the typed stage-span table in ``store``'s database."""
    return quote(store.database, STAGE_TABLE)


def stage_select(traces_table: str, stages: Collection[Stage] | None = None) -> str:
    """The stage-span rows of ``traces_table``, columns in the stage table's order.

    With ``stages``, only the spans that could be of those stages are read (then filter on
    ``Stage``: see ``stage_select_sql``).
    """
    order = ", ".join(name for name, _ in STAGE_COLUMNS)
    # The inner SELECT computes in dependency order; the outer one fixes the table's order.
    return f"SELECT {order} FROM ({stage_select_sql(traces_table, stages=stages)})"


def view_ddl(database: str, traces_table: str, *, compact_parts: bool = False) -> list[str]:
    """The statements that create the typed stage table and its materialized view.

    Exposed for DBAs of clustered deployments, who may want to add ``ON CLUSTER`` and
    replicated engines before running them. ``compact_parts`` adds the embedded store's part
    settings (``store/part_format.py``).
    """
    columns = ",\n    ".join(f"{name} {kind}" for name, kind in STAGE_COLUMNS)
    table = quote(database, STAGE_TABLE)
    return [
        f"CREATE TABLE IF NOT EXISTS {table} (\n    {columns}\n) ENGINE = MergeTree "
        # Bucket first: the funnel aggregates a range of buckets at a time, reading only
        # their granules (memory stays bounded whatever the number of questions); then Stage,
        # so one-stage reads (discovery, ingest) skip the other stages within each bucket.
        "ORDER BY (Bucket, Stage, QuestionKey, TraceId, Timestamp)"
        + (f" SETTINGS {PART_SETTINGS}" if compact_parts else ""),
        f"CREATE MATERIALIZED VIEW IF NOT EXISTS {quote(database, VIEW_NAME)} TO {table} AS "
        + stage_select(traces_table),
    ]


def create_stage_spans(store: Store) -> None:
    """Create the stage table and its view, then backfill the spans stored before.

    The view feeds the table from then on; the backfill copies what was stored before,
    skipping rows already copied, so an interrupted backfill resumes.
    """
    for statement in view_ddl(store.database, store.traces_table, compact_parts=store.embedded):
        store.command(statement)
    table = stage_table(store)
    store.command(
        f"INSERT INTO {table} {stage_select(store.traces_table)} "
        f"WHERE (TraceId, SpanId) NOT IN (SELECT TraceId, SpanId FROM {table})"
    )


def time_range(store: Store) -> tuple[int, int] | None:
    """The first and last start (ns) of the stage table's rows; None when it is empty."""
    return statements.time_range(store, stage_table(store))


_QUESTION_TEXT = "argMinIf(QuestionText, tuple(Stage != 'question', Timestamp), QuestionText != '')"
"""A question's text over its question and retrieve rows: the question span's, else the
earliest retrieval query (OpenInference and GenAI traces often have no question span)."""


def question_texts(store: Store, source: str, trace_ids: Sequence[str]) -> pl.DataFrame:
    """The text of each question of these traces, from ``source``'s rows.

    Columns ``TraceId``, ``QuestionKey``, ``Question`` (the question span's text, else the
    earliest retrieval query; ``""`` when none was recorded), whether or not it was answered.
    """
    return store.query_df(
        f"""
        SELECT TraceId, QuestionKey, {_QUESTION_TEXT} AS Question
        FROM {source}
        WHERE Stage IN ('question', 'retrieve') AND TraceId IN {{traces:Array(String)}}
        GROUP BY TraceId, QuestionKey
        ORDER BY TraceId, QuestionKey
        """,
        {"traces": list(trace_ids)},
    )


def run_ids(store: Store, source: str, *, question_spans: bool = False) -> list[str]:
    """Every run id of a stage row of ``source``, sorted.

    ``question_spans``: only question and ingest rows (``source`` is then the source's
    ``question_sql``, which at read time parses only the spans that could be those).
    """
    where = "Stage IN ('question', 'ingest') AND " if question_spans else ""
    rows = store.query_arrow(
        f"SELECT DISTINCT RunId AS run FROM {source} WHERE {where}RunId != '' ORDER BY run"
    )
    return [str(r) for r in rows.column("run").to_pylist()]


TRACE_HASH = "cityHash64(TraceId)"
"""The expression a trace is paged by (``answer_traces``, ``generate_answers(trace_hashes=)``)."""


def generate_answers(
    store: Store,
    source: str,
    *,
    runs: Sequence[str] = (),
    modes: Sequence[str] = ("pipeline",),
    traces: Sequence[str] = (),
    trace_hashes: Sequence[int] = (),
) -> pl.DataFrame:
    """Per question instance and mode, the answer the funnel counts, from ``source``'s rows.

    The lowest-numbered sample's last successful generate span: ``TraceId``, ``QuestionKey``,
    ``Mode``, ``primary`` = (span id, run id, start ns, answer, has answer, model, lowest
    logprob, low-confidence tokens), ``SampleAnswers`` (the other samples' answers) and
    ``Question`` (the question span's text, else the retrieval query). With ``runs``, only
    instances of those runs; with ``traces``, only those traces; with ``trace_hashes``, only the
    traces of those :data:`TRACE_HASH` values (``answer_traces``' pages).
    """
    trace_filter = "AND TraceId IN {traces:Array(String)}" if traces else ""
    if trace_hashes:
        trace_filter += f" AND {TRACE_HASH} IN {{trace_hashes:Array(UInt64)}}"
    parameters: dict[str, object] = {"modes": list(modes), **statements.run_parameters(runs)}
    if traces:
        parameters["traces"] = list(traces)
    if trace_hashes:
        parameters["trace_hashes"] = list(trace_hashes)
    return store.query_df(
        f"""
    WITH gen AS (
        SELECT TraceId, SpanId, QuestionKey, Mode, ifNull(SampleIndex, 0) AS SampleIndex,
            toUnixTimestamp64Nano(Timestamp) AS Started, AnswerText AS Answer,
            HasAnswer, Name AS Model, LogprobsMin, LowConfidence
        FROM {source}
        WHERE Stage = 'generate' AND StatusCode != 'Error' {trace_filter}
    ),
    asked AS (
        SELECT TraceId, QuestionKey, {_QUESTION_TEXT} AS Question,
            anyIf(RunId, RunId != '') AS RunId
        FROM {source}
        WHERE Stage IN ('question', 'retrieve') AND TraceId IN (SELECT TraceId FROM gen)
        GROUP BY TraceId, QuestionKey
    ),
    questions AS (SELECT * FROM asked {statements.run_filter(runs)})
    SELECT TraceId, QuestionKey, Mode,
        argMin(tuple(SpanId, questions.RunId, Started, Answer, HasAnswer, Model, LogprobsMin,
                     LowConfidence),
               tuple(SampleIndex, -Started)) AS primary,
        arrayFilter(x -> x != primary.4, groupArrayIf(Answer, HasAnswer)) AS SampleAnswers,
        any(questions.Question) AS Question
    FROM gen {"INNER" if runs else "LEFT"} JOIN questions USING (TraceId, QuestionKey)
    WHERE Mode IN {{modes:Array(String)}}
    GROUP BY TraceId, QuestionKey, Mode
    ORDER BY TraceId, QuestionKey, Mode
    """,
        parameters,
    )


def answer_traces(
    store: Store, source: str, *, modes: Sequence[str] = ("pipeline",)
) -> pl.DataFrame:
    """The traces holding a generate answer of ``modes``, in the order their answers started.

    Columns ``TraceHash`` (the trace id's :data:`TRACE_HASH`) and ``Pipeline`` (how many question
    instances of the trace have a pipeline answer, before any run filter): the pages
    ``generate_answers(trace_hashes=...)`` is read in (``judges/answers.py``). By start (then
    hash), so that a page's spans lie close together in ``otel_traces`` (``traces.chunk_texts``).

    Traces and questions are grouped by their ids' hashes, not the 32-character ids: at 300,000
    answers, grouping the ids with an exact count of each trace's questions raised the process's
    peak by 111–143 MiB, grouping by hash by 56–79 MiB (reading the column alone: 40–45;
    bench/RESULTS.md, "Issue 35, eighteenth session"); the list held is 8 bytes a trace.

    Two traces whose ids share a hash share a page, so every trace is still read once; a trace's
    questions whose keys share a hash (within one trace) would count once in the progress total.
    """
    return store.query_df(
        f"""SELECT TraceHash, toInt64(sum(Pipeline)) AS Pipeline FROM (
        SELECT {TRACE_HASH} AS TraceHash, cityHash64(QuestionKey) AS Question,
            min(Timestamp) AS Started, max(Mode = 'pipeline') AS Pipeline
        FROM {source}
        WHERE Stage = 'generate' AND StatusCode != 'Error' AND Mode IN {{modes:Array(String)}}
        GROUP BY TraceHash, Question)
    GROUP BY TraceHash ORDER BY min(Started), TraceHash""",
        {"modes": list(modes)},
    )


def ranked_ids(store: Store, source: str, candidates: Mapping[str, Sequence[str]]) -> set[str]:
    """The traces of ``candidates`` whose rankings listed all of the trace's strings as ids.

    ``candidates`` maps a trace id to strings; a trace is kept when its retrieve, rerank or cut
    spans listed every one of them as a chunk id (compared by the ids' hashes).
    """
    if not candidates:
        return set()
    traces = list(candidates)
    frame = store.query_df(
        f"""SELECT TraceId, groupUniqArrayArray(IdHashes) AS Listed FROM {source}
    WHERE Stage IN ('retrieve', 'rerank', 'cut') AND TraceId IN {{traces:Array(String)}}
    GROUP BY TraceId""",
        {"traces": traces},
    )
    listed = {trace: set(hashes) for trace, hashes in frame.iter_rows()}
    strings = [list(candidates[t]) for t in traces]
    hashed = store.query_df(
        "SELECT arrayMap(s -> arrayMap(x -> cityHash64(x), s), {strings:Array(Array(String))}) AS h",
        {"strings": strings},
    ).item()
    return {t for t, h in zip(traces, hashed, strict=True) if set(h) <= listed.get(t, set())}


def run_versions(store: Store, question_rows: str, runs: Collection[str]) -> pl.DataFrame:
    """Per run, each index version its questions name and how many questions name it.

    Columns ``run_id``, ``index_version`` ("" where a root names none) and ``questions``.
    """
    return store.query_df(
        f"SELECT RunId AS run_id, IndexVersion AS index_version, "
        f"uniqExact(InstanceKey) AS questions FROM {question_rows} "
        f"WHERE Stage = 'question' {statements.run_filter(runs, 'AND')} "
        f"GROUP BY run_id, index_version ORDER BY run_id, questions DESC, index_version",
        statements.run_parameters(runs),
    )
