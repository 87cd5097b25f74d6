"""The judges' verdicts table ``ragfunnel_verdicts_v1``: its layout, its row, its reads and writes.

One row per judged answer (a generate span) and judge: the claims with their verdicts,
supporting ids and missing terms, the faithfulness, the answer's correctness and the signals
that flagged it. ``ragfunnel judge`` writes it (:func:`insert_verdicts`); the funnel reads the
deciding verdict of each answer (:func:`deciding_verdict_rows`), ``ragfunnel review`` and the
exporter every row (:func:`read_verdicts`), only when it exists. A ReplacingMergeTree table:
writing a verdict again replaces the old one. :mod:`..migrations` creates it (revision 2).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, cast

from ragfunnel.analyzer.store.dsn import quote

if TYPE_CHECKING:
    from collections.abc import Sequence

    import polars as pl
    import pyarrow as pa

    from ragfunnel.analyzer.store.connection import Store

__all__ = [
    "CLAIM_COLUMNS",
    "CLAIM_LABELS",
    "OFFLINE_JUDGE",
    "PARTIAL",
    "SUPPORTED",
    "UNCERTAIN",
    "UNSUPPORTED",
    "VERDICTS_TABLE",
    "VERDICT_COLUMNS",
    "VerdictRow",
    "create_verdicts",
    "deciding_verdict_rows",
    "insert_verdicts",
    "read_verdicts",
    "verdicts_ddl",
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
the funnel reads them back into its ``claims`` structs (``funnel/read/verdicts.py``)."""

VerdictRow = dict[str, Any]
"""One verdict row: the keys of :data:`VERDICT_COLUMNS` (``JudgedAt`` may be left out);
``judges/verdict_row.py`` builds it from a judge's verdict."""


def verdicts_ddl(verdicts: str) -> str:
    """The CREATE statement of the verdicts table, given its quoted qualified name."""
    columns = ",\n    ".join(f"`{n}` {t}" for n, t in VERDICT_COLUMNS)
    return (
        f"CREATE TABLE IF NOT EXISTS {verdicts} (\n    {columns}\n) "
        "ENGINE = ReplacingMergeTree(JudgedAt) ORDER BY (TraceId, QuestionKey, SpanId, Judge)"
    )


def _table(store: Store) -> str:
    return quote(store.database, VERDICTS_TABLE)


def create_verdicts(store: Store) -> None:
    """Create the verdicts table if missing (revision 2 of :mod:`..migrations`)."""
    store.command(verdicts_ddl(_table(store)))


def _arrow_types() -> list[tuple[str, pa.DataType]]:
    import pyarrow as pa

    arrow: dict[str, pa.DataType] = {
        "String": pa.string(), "LowCardinality(String)": pa.string(), "UInt8": pa.uint8(),
        "Nullable(Float64)": pa.float64(), "Array(String)": pa.list_(pa.string()),
        "Array(Float64)": pa.list_(pa.float64()),
        "Array(Array(String))": pa.list_(pa.list_(pa.string())),
        "DateTime64(3)": pa.timestamp("ms"),
    }  # fmt: skip
    return [(name, arrow[kind]) for name, kind in VERDICT_COLUMNS]


def insert_verdicts(store: Store, rows: Sequence[VerdictRow]) -> None:
    """Insert verdict rows in one block; ``JudgedAt`` defaults to now."""
    import pyarrow as pa

    if not rows:
        return
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    data = pa.table(
        {
            name: pa.array(
                [r.get(name, now) if name == "JudgedAt" else r[name] for r in rows], kind
            )
            for name, kind in _arrow_types()
        }
    )
    store.insert_arrow(VERDICTS_TABLE, data)


def read_verdicts(store: Store, *, runs: Sequence[str] = (), present: bool = True) -> pl.DataFrame:
    """The latest verdict rows (of every judge), optionally of some runs only.

    ``present=False`` (the table does not exist: :mod:`..schema`) gives an empty frame with
    the table's columns without asking the store.
    """
    import polars as pl
    import pyarrow as pa

    if not present:
        empty = pa.table({name: pa.array([], kind) for name, kind in _arrow_types()})
        return cast(pl.DataFrame, pl.from_arrow(empty))
    where = "WHERE RunId IN {runs:Array(String)}" if runs else ""
    return store.query_df(
        f"SELECT * FROM {_table(store)} FINAL {where}", {"runs": list(runs)} if runs else None
    )


def deciding_verdict_rows(store: Store, runs: Sequence[str] = ()) -> pl.DataFrame:
    """Per trace and question, the deciding verdict of its pipeline answer, as one tuple ``v``.

    The strongest judge's (an LLM or fact-checker over the offline judge), the latest one:
    ``TraceId``, ``QuestionKey`` and ``v`` = (judge, abstained, faithfulness, the claim columns
    of :data:`CLAIM_COLUMNS`, correctness, its reason). Call it only when the table exists.
    """
    run_filter = "AND RunId IN {runs:Array(String)}" if runs else ""
    return store.query_df(
        f"""
        SELECT TraceId, QuestionKey,
            argMax(tuple(Judge, Abstained, Faithfulness, {", ".join(c for c, _ in CLAIM_COLUMNS)},
                         Correctness, CorrectnessReason),
                   tuple(Judge != 'offline', JudgedAt)) AS v
        FROM {_table(store)} FINAL
        WHERE Mode = 'pipeline' {run_filter}
        GROUP BY TraceId, QuestionKey
        """,
        {"runs": list(runs)} if runs else None,
    )
