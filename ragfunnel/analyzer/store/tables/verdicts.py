"""The judges' verdicts table ``ragfunnel_verdicts_v2``: its layout, its row, its reads and writes.

One row per judged answer (a generate span) and judge: the claims with their verdicts,
confidences, supporting ids and missing terms, the faithfulness and confidence, the answer's
correctness and the signals that flagged it. ``ragfunnel judge`` writes it
(:func:`insert_verdicts`); the funnel reads the deciding verdict of each answer
(:func:`deciding_verdict_rows`), ``ragfunnel review`` and the exporter every row
(:func:`read_verdicts`), only when it exists. A ReplacingMergeTree table: writing a verdict
again replaces the old one.

Layouts: revision 2 of :mod:`..migrations` created ``ragfunnel_verdicts_v1``
(:data:`LEGACY_VERDICTS_TABLE`, without confidences); revision 3 creates this layout, copies the
old rows into it (:func:`copy_legacy_verdicts`: a claim's confidence unknown, the answer's
confidence its faithfulness, as :attr:`AnswerVerdict.confidence` counts a claim without one) and
drops the old table. A store nobody migrated is still read: every read takes the table to read
from ``store/schema.py`` (``StoreSchema.verdicts_table``) and reads the old layout with the two
new columns filled the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, TypedDict, cast

from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.part_format import MERGES_BY_COLUMN
from ragfunnel.analyzer.store.statements import create_table, run_filter, run_parameters

if TYPE_CHECKING:
    from collections.abc import Sequence

    import polars as pl
    import pyarrow as pa

    from ragfunnel.analyzer.store.connection import Store

__all__ = [
    "ADDED_IN_V2",
    "CLAIM_COLUMNS",
    "CLAIM_LABELS",
    "DECIDING_FIELDS",
    "DECIDING_ORDER",
    "LEGACY_VERDICTS_TABLE",
    "OFFLINE_JUDGE",
    "PARTIAL",
    "SUPPORTED",
    "UNCERTAIN",
    "UNSUPPORTED",
    "VERDICTS_TABLE",
    "VERDICT_COLUMNS",
    "VerdictRow",
    "copy_legacy_verdicts",
    "create_legacy_verdicts",
    "create_verdicts",
    "deciding_rows",
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

DECIDING_ORDER = f"tuple(Judge != '{OFFLINE_JUDGE}', JudgedAt)"
"""Which of an answer's verdicts decides, as SQL: a stronger judge's (an LLM or fact-checker
over the offline judge), then the latest. :func:`deciding_rows` is the same rule over rows."""


def deciding_rows(rows: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The deciding verdict row of each answer (``TraceId``, ``QuestionKey``), in first-seen order.

    The rule of :data:`DECIDING_ORDER`: a judge other than the offline one wins over it, then
    the later ``JudgedAt``; rows without one (not yet written) count as later the later they come.
    """
    best: dict[tuple[str, str], Mapping[str, Any]] = {}
    for row in rows:
        key = (row["TraceId"], row["QuestionKey"])
        held = best.get(key)
        if held is None or _decides_over(row, held):
            best[key] = row
    return list(best.values())


def _decides_over(row: Mapping[str, Any], held: Mapping[str, Any]) -> bool:
    stronger, weaker = bool(row["Judge"] != OFFLINE_JUDGE), bool(held["Judge"] != OFFLINE_JUDGE)
    if stronger != weaker:
        return stronger
    at, held_at = row.get("JudgedAt"), held.get("JudgedAt")
    return at is None or held_at is None or bool(at >= held_at)


VERDICTS_TABLE = "ragfunnel_verdicts_v2"
"""The table's name carries its layout's version: a new layout is a new table (and revision)."""
LEGACY_VERDICTS_TABLE = "ragfunnel_verdicts_v1"
"""The layout before claim confidences (revision 2), read when a store was not migrated."""


class _Verdict(TypedDict):
    TraceId: str
    SpanId: str
    QuestionKey: str
    RunId: str
    Mode: str
    Judge: str
    Policy: str
    AnswerHash: str
    ContextHash: str
    Abstained: int
    Faithfulness: float | None  # the mean claim verdict; null for an abstention
    Confidence: float | None  # the mean claim confidence (else verdict); null for an abstention
    ClaimTexts: list[str]
    ClaimVerdicts: list[float]
    ClaimLabels: list[str]
    ClaimSupportingIds: list[list[str]]
    ClaimMissing: list[str]
    ClaimConfidences: list[float | None]  # 0–1 that the claim is supported; null: none given
    Correctness: str  # "" when not judged
    CorrectnessReason: str
    Signals: list[str]
    Sampled: int


class VerdictRow(_Verdict, total=False):
    """One verdict row: the table's columns by name, in table order (:data:`VERDICT_COLUMNS`).

    ``judges/run/verdict_row.py`` builds it from a judge's verdict; ``JudgedAt`` may be left out
    (the insert sets it). Rows read back (:func:`read_verdicts`) have the same keys.
    """

    JudgedAt: datetime


_SQL_TYPES: dict[str, str] = {
    "TraceId": "String", "SpanId": "String", "QuestionKey": "String",
    "RunId": "LowCardinality(String)", "Mode": "LowCardinality(String)",
    "Judge": "LowCardinality(String)", "Policy": "LowCardinality(String)",
    "AnswerHash": "String", "ContextHash": "String", "Abstained": "UInt8",
    "Faithfulness": "Nullable(Float64)", "Confidence": "Nullable(Float64)",
    "ClaimTexts": "Array(String)", "ClaimVerdicts": "Array(Float64)",
    "ClaimLabels": "Array(String)", "ClaimSupportingIds": "Array(Array(String))",
    "ClaimMissing": "Array(String)", "ClaimConfidences": "Array(Nullable(Float64))",
    "Correctness": "LowCardinality(String)", "CorrectnessReason": "String",
    "Signals": "Array(String)", "Sampled": "UInt8", "JudgedAt": "DateTime64(3)",
}  # fmt: skip

VERDICT_COLUMNS: tuple[tuple[str, str], ...] = tuple(
    (name, _SQL_TYPES[name]) for name in VerdictRow.__annotations__
)
"""The table's columns and types, in the order of :class:`VerdictRow`'s keys."""

ADDED_IN_V2: dict[str, str] = {
    "Confidence": "if(Abstained > 0, NULL, Faithfulness)",
    "ClaimConfidences": "arrayMap(t -> CAST(NULL, 'Nullable(Float64)'), ClaimTexts)",
}
"""The columns the old layout lacks, each with its value for an old row: no claim confidence,
so the answer's confidence is its faithfulness (each claim counts its verdict)."""

CLAIM_COLUMNS: tuple[tuple[str, str], ...] = (
    ("ClaimTexts", "text"),
    ("ClaimVerdicts", "verdict"),
    ("ClaimLabels", "label"),
    ("ClaimSupportingIds", "supporting_ids"),
    ("ClaimMissing", "missing"),
)
"""The per-claim columns the funnel's ``claims`` records hold (parallel arrays, one element per
claim, in answer order) and the claim field each holds: the judges fill them from their claim
verdicts (``judges/run/verdict_row.py``, with ``ClaimConfidences``), the funnel reads them back into
its ``claims`` structs (``funnel/read/verdicts.py``)."""

DECIDING_FIELDS: tuple[tuple[str, str], ...] = (
    ("Judge", "judge"), ("Abstained", "abstained"), ("Faithfulness", "faithfulness"),
    ("Confidence", "confidence"), *CLAIM_COLUMNS, ("Correctness", "correctness"),
    ("CorrectnessReason", "reason"),
)  # fmt: skip
"""The fields of the deciding verdict ``v`` (:func:`deciding_verdict_rows`), in order: each
column and the name the funnel reads it by (``funnel/read/verdicts.py``)."""


def _ddl(table: str, columns: Sequence[tuple[str, str]], settings: str = "") -> str:
    engine = "ReplacingMergeTree(JudgedAt) ORDER BY (TraceId, QuestionKey, SpanId, Judge)"
    return create_table(table, columns, engine, settings=settings)


def verdicts_ddl(verdicts: str, *, merges_by_column: bool = False) -> str:
    """The CREATE statement of the verdicts table, given its quoted qualified name.

    ``merges_by_column`` adds the embedded store's merge settings (``store/part_format.py``,
    ``MERGES_BY_COLUMN``): its merges run in the judge's own process.
    """
    return _ddl(verdicts, VERDICT_COLUMNS, MERGES_BY_COLUMN if merges_by_column else "")


def _table(store: Store, name: str = VERDICTS_TABLE) -> str:
    return quote(store.database, name)


def create_verdicts(store: Store) -> None:
    """Create the verdicts table if missing (revision 3 of :mod:`..migrations`)."""
    store.command(verdicts_ddl(_table(store), merges_by_column=store.embedded))


def create_legacy_verdicts(store: Store) -> None:
    """Create the old layout if missing (revision 2 of :mod:`..migrations`).

    Revision 3 then copies and drops it: a revision, once released, keeps doing what it did.
    """
    legacy = [(n, t) for n, t in VERDICT_COLUMNS if n not in ADDED_IN_V2]
    store.command(_ddl(_table(store, LEGACY_VERDICTS_TABLE), legacy))


def _select(table: str) -> str:
    """Every column of :data:`VERDICT_COLUMNS`, in order, from ``table`` (either layout)."""
    if table == VERDICTS_TABLE:
        return ", ".join(f"`{n}`" for n, _ in VERDICT_COLUMNS)
    return ", ".join(f"{ADDED_IN_V2[n]} AS `{n}`" if n in ADDED_IN_V2 else f"`{n}`"
                     for n, _ in VERDICT_COLUMNS)  # fmt: skip


def copy_legacy_verdicts(store: Store, *, present: bool) -> None:
    """Copy the old layout's rows into the verdicts table, then drop the old table.

    ``present``: whether the old table exists (``store/schema.py``); nothing to do when not.
    Safe to run again: rows copied twice are one row (same key and ``JudgedAt``) when read.
    """
    if not present:
        return
    legacy = _table(store, LEGACY_VERDICTS_TABLE)
    store.command(
        f"INSERT INTO {_table(store)} ({_select(VERDICTS_TABLE)}) "
        f"SELECT {_select(LEGACY_VERDICTS_TABLE)} FROM {legacy} FINAL"
    )
    store.command(f"DROP TABLE IF EXISTS {legacy}")


def _arrow_types() -> list[tuple[str, pa.DataType]]:
    import pyarrow as pa

    arrow: dict[str, pa.DataType] = {
        "String": pa.string(), "LowCardinality(String)": pa.string(), "UInt8": pa.uint8(),
        "Nullable(Float64)": pa.float64(), "Array(String)": pa.list_(pa.string()),
        "Array(Float64)": pa.list_(pa.float64()),
        "Array(Nullable(Float64))": pa.list_(pa.float64()),
        "Array(Array(String))": pa.list_(pa.list_(pa.string())),
        "DateTime64(3)": pa.timestamp("ms"),
    }  # fmt: skip
    return [(name, arrow[kind]) for name, kind in VERDICT_COLUMNS]


def insert_verdicts(store: Store, rows: Sequence[VerdictRow]) -> None:
    """Insert verdict rows in one block; ``JudgedAt`` defaults to now.

    Raises:
        KeyError: a row lacks a column (the message names the row and the column).
    """
    import pyarrow as pa

    if not rows:
        return
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    for number, row in enumerate(rows):
        lacking = [n for n, _ in VERDICT_COLUMNS if n != "JudgedAt" and n not in row]
        if lacking:
            raise KeyError(f"verdict row {number} lacks column(s) {', '.join(lacking)}")
    plain = cast("Sequence[dict[str, object]]", rows)
    data = pa.table(
        {
            name: pa.array([r.get(name, now) if name == "JudgedAt" else r[name] for r in plain],
                           kind)
            for name, kind in _arrow_types()
        }
    )  # fmt: skip
    store.insert_arrow(VERDICTS_TABLE, data)


def _source(store: Store, table: str) -> str:
    """What to read rows from: the table, or the old layout shaped like it."""
    if table == VERDICTS_TABLE:
        return f"{_table(store)} FINAL"
    return f"(SELECT {_select(table)} FROM {_table(store, table)} FINAL)"


def read_verdicts(
    store: Store, *, runs: Sequence[str] = (), table: str | None = VERDICTS_TABLE
) -> pl.DataFrame:
    """The latest verdict rows (of every judge), optionally of some runs only.

    ``table``: the table to read, :data:`VERDICTS_TABLE` or a store's old
    :data:`LEGACY_VERDICTS_TABLE` (read with the columns it lacks filled: :data:`ADDED_IN_V2`),
    as ``StoreSchema.verdicts_table`` says; ``None`` (nothing judged) gives an empty frame with
    the table's columns without asking the store.
    """
    import polars as pl
    import pyarrow as pa

    if table is None:
        empty = pa.table({name: pa.array([], kind) for name, kind in _arrow_types()})
        return cast(pl.DataFrame, pl.from_arrow(empty))
    return store.query_df(
        f"SELECT * FROM {_source(store, table)} {run_filter(runs)}", run_parameters(runs)
    )


def deciding_verdict_rows(
    store: Store, runs: Sequence[str] = (), *, table: str = VERDICTS_TABLE
) -> pl.DataFrame:
    """Per trace and question, the deciding verdict of its pipeline answer, as one tuple ``v``.

    The strongest judge's (an LLM or fact-checker over the offline judge), the latest one:
    ``TraceId``, ``QuestionKey`` and ``v``, the columns of :data:`DECIDING_FIELDS`. Call it
    only when the table exists; ``table`` as for :func:`read_verdicts`.
    """
    return store.query_df(
        f"""
        SELECT TraceId, QuestionKey,
            argMax(tuple({", ".join(c for c, _ in DECIDING_FIELDS)}), {DECIDING_ORDER}) AS v
        FROM {_source(store, table)}
        WHERE Mode = 'pipeline' {run_filter(runs, "AND")}
        GROUP BY TraceId, QuestionKey
        """,
        run_parameters(runs),
    )
