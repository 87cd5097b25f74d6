"""The layout of the typed stage-span table the funnel reads (one row per stage span).

Names and column types only: :mod:`.migrations` creates the table and its view, and the
SELECT that fills them lives with the span conventions (``ragfunnel.analyzer.conventions``).
Nothing here talks to a store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragfunnel.analyzer.conventions import BUCKETS
from ragfunnel.analyzer.store.dsn import quote

if TYPE_CHECKING:
    from ragfunnel.analyzer.store.connection import Store

__all__ = ["BUCKETS", "STAGE_COLUMNS", "STAGE_TABLE", "VIEW_NAME", "stage_table"]

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
