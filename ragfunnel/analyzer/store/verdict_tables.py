"""The layout of the judges' two tables beside ``otel_traces``: verdicts and the judge cache.

``ragfunnel_verdicts_v1`` holds one row per judged answer (a generate span) and judge: the
claims with their verdicts, supporting ids and missing terms, the faithfulness, the answer's
correctness and the signals that flagged it. ``ragfunnel judge`` writes it; the funnel reads it
when it exists. ``ragfunnel_judge_cache_v1`` maps cache keys (judge model, prompt version,
claim, context hash) to judge results. Both are ReplacingMergeTree tables: writing a verdict
again replaces the old one. Names and columns only; :mod:`.migrations` creates them.
"""

from __future__ import annotations

__all__ = [
    "CACHE_COLUMNS",
    "CACHE_TABLE",
    "CLAIM_COLUMNS",
    "CLAIM_LABELS",
    "OFFLINE_JUDGE",
    "PARTIAL",
    "SUPPORTED",
    "UNCERTAIN",
    "UNSUPPORTED",
    "VERDICTS_TABLE",
    "VERDICT_COLUMNS",
    "verdict_tables_ddl",
]

SUPPORTED = "supported"
PARTIAL = "partial"
UNSUPPORTED = "unsupported"
UNCERTAIN = "uncertain"
CLAIM_LABELS = (SUPPORTED, PARTIAL, UNSUPPORTED, UNCERTAIN)
"""The values of ``ClaimLabels``: what the judges write and the funnel reads (docs/judges.md)."""
OFFLINE_JUDGE = "offline"
"""The offline judge's value in ``Judge``; every other judge is ``llm:…`` or ``factcheck:…``."""

VERDICTS_TABLE = "ragfunnel_verdicts_v1"
CACHE_TABLE = "ragfunnel_judge_cache_v1"

VERDICT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("TraceId", "String"),
    ("SpanId", "String"),
    ("QuestionKey", "String"),
    ("RunId", "LowCardinality(String)"),
    ("Mode", "LowCardinality(String)"),
    ("Judge", "LowCardinality(String)"),
    ("Policy", "LowCardinality(String)"),
    ("AnswerHash", "String"),
    ("ContextHash", "String"),
    ("Abstained", "UInt8"),
    ("Faithfulness", "Nullable(Float64)"),
    ("ClaimTexts", "Array(String)"),
    ("ClaimVerdicts", "Array(Float64)"),
    ("ClaimLabels", "Array(String)"),
    ("ClaimSupportingIds", "Array(Array(String))"),
    ("ClaimMissing", "Array(String)"),
    ("Correctness", "LowCardinality(String)"),
    ("CorrectnessReason", "String"),
    ("Signals", "Array(String)"),
    ("Sampled", "UInt8"),
    ("JudgedAt", "DateTime64(3)"),
)
"""One row per judged answer and judge; ``Correctness`` is ``""`` when not judged."""

CLAIM_COLUMNS: tuple[tuple[str, str], ...] = (
    ("ClaimTexts", "text"),
    ("ClaimVerdicts", "verdict"),
    ("ClaimLabels", "label"),
    ("ClaimSupportingIds", "supporting_ids"),
    ("ClaimMissing", "missing"),
)
"""The per-claim columns (parallel arrays, one element per claim, in answer order) and the
claim field each holds: the judges fill them from their claim verdicts (``judges/verdict_row.py``),
the funnel reads them back into its ``claims`` structs (``funnel/judged.py``)."""

CACHE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("Key", "String"),
    ("Kind", "LowCardinality(String)"),
    ("Model", "LowCardinality(String)"),
    ("PromptVersion", "LowCardinality(String)"),
    ("Value", "String"),
    ("CreatedAt", "DateTime64(3) DEFAULT now64(3)"),
)


def verdict_tables_ddl(verdicts: str, cache: str) -> list[str]:
    """The CREATE statements of both tables, given their quoted qualified names."""
    verdict_columns = ",\n    ".join(f"`{n}` {t}" for n, t in VERDICT_COLUMNS)
    cache_columns = ",\n    ".join(f"`{n}` {t}" for n, t in CACHE_COLUMNS)
    return [
        f"CREATE TABLE IF NOT EXISTS {verdicts} (\n    {verdict_columns}\n) "
        "ENGINE = ReplacingMergeTree(JudgedAt) ORDER BY (TraceId, QuestionKey, SpanId, Judge)",
        f"CREATE TABLE IF NOT EXISTS {cache} (\n    {cache_columns}\n) "
        "ENGINE = ReplacingMergeTree(CreatedAt) ORDER BY Key",
    ]
