"""The typed stage-span table the funnel reads, and the materialized view that fills it.

``otel_traces`` keeps every attribute as a string in one map, with id and score lists as JSON
text. Parsing that JSON for every question on every analysis is what makes a naive funnel query
slow, so the view ``ragfunnel_stage_spans_v1`` parses each stage span once, when it is inserted:
ids become typed arrays plus 64-bit hashes of them (the analysis compares hashes, not strings),
scores become ``Array(Float64)``, and the attributes the funnel needs become columns.

The same view normalises spans ragfunnel did not write (OpenInference, OpenTelemetry GenAI)
into the same columns, so the funnel has one input shape: its SELECT is assembled from the
convention declarations in ``ragfunnel.analyzer.conventions``.

:func:`ensure_views` creates the table and the view when the analyzer first opens a store and
backfills the rows that were stored before the view existed. Because the view hangs off
``otel_traces`` itself, a collector writing to a server keeps feeding it from then on. This
module only issues DDL and the backfill: it never reads funnel results.
"""

from __future__ import annotations

from ragfunnel.analyzer.conventions import BUCKETS, STAGE_COLUMNS, stage_select_sql
from ragfunnel.analyzer.store import Store

__all__ = [
    "BUCKETS",
    "STAGE_TABLE",
    "VIEW_NAME",
    "ensure_views",
    "stage_table",
    "view_ddl",
]

SCHEMA_REVISION = 1
"""Bumped when the view's SELECT changes; a new revision gets new objects and a fresh backfill."""

STAGE_TABLE = f"ragfunnel_stage_spans_v{SCHEMA_REVISION}"
VIEW_NAME = f"{STAGE_TABLE}_mv"
MARKER_TABLE = "ragfunnel_schema"

COLUMNS: tuple[tuple[str, str], ...] = (
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
    # Hashes do not compress: compressing them only costs every insert time.
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


assert tuple(name for name, _ in COLUMNS) == STAGE_COLUMNS


def _q(*names: str) -> str:
    return ".".join(f"`{n}`" for n in names)


def stage_table(store: Store) -> str:
    """The quoted qualified name of the typed stage-span table in ``store``'s database."""
    return _q(store.database, STAGE_TABLE)


def view_ddl(database: str, traces_table: str) -> list[str]:
    """The statements that create the typed table and its materialized view.

    Exposed for DBAs of clustered deployments, who may want to add ``ON CLUSTER`` and
    replicated engines before running them.
    """
    columns = ",\n    ".join(f"{name} {kind}" for name, kind in COLUMNS)
    table = _q(database, STAGE_TABLE)
    return [
        f"CREATE TABLE IF NOT EXISTS {table} (\n    {columns}\n) ENGINE = MergeTree "
        # Bucket first: the funnel aggregates a range of buckets at a time, reading only
        # their granules (memory stays bounded whatever the number of questions); then Stage,
        # so one-stage reads (discovery, ingest) skip the other stages within each bucket.
        "ORDER BY (Bucket, Stage, QuestionKey, TraceId, Timestamp)",
        f"CREATE MATERIALIZED VIEW IF NOT EXISTS {_q(database, VIEW_NAME)} TO {table} AS "
        + stage_select_sql(traces_table),
    ]


def ensure_views(store: Store) -> None:
    """Create the typed table and its view if missing, and backfill older rows once.

    The backfill copies the stage spans already in ``otel_traces`` that the table lacks; a
    marker row records that it finished, so an interrupted backfill is resumed (it skips rows
    already copied) rather than forgotten.
    """
    db = store.database
    marker = _q(db, MARKER_TABLE)
    store.command(
        f"CREATE TABLE IF NOT EXISTS {marker} (object String, revision UInt32, "
        "done DateTime DEFAULT now()) ENGINE = ReplacingMergeTree ORDER BY object"
    )
    done = store.query_arrow(
        f"SELECT count() AS n FROM {marker} WHERE object = {{o:String}} AND revision = {{r:UInt32}}",
        {"o": STAGE_TABLE, "r": SCHEMA_REVISION},
    )
    if done.column("n")[0].as_py() > 0:
        return
    for statement in view_ddl(db, store.traces_table):
        store.command(statement)
    table = stage_table(store)
    store.command(
        f"INSERT INTO {table} {stage_select_sql(store.traces_table)} "
        f"WHERE (TraceId, SpanId) NOT IN (SELECT TraceId, SpanId FROM {table})"
    )
    store.command(
        f"INSERT INTO {marker} (object, revision) VALUES ({{o:String}}, {{r:UInt32}})",
        {"o": STAGE_TABLE, "r": SCHEMA_REVISION},
    )
