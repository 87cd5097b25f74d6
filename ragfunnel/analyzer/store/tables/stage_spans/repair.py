"""Keeping the stage table in step with ``otel_traces``: checking it, and repairing it.

The stage table is derived data: its materialized view parses each insert into ``otel_traces``.
But an insert and its view's insert commit separately, part by part, so a process killed in
between leaves spans in one table and not the other — and an ingest run again skips the spans
``otel_traces`` already holds, so the view would never see them. Two repairs close that gap:

- per chunk, while ingesting (:class:`StageMender`, used by the ingest writer): the stage rows of
  spans the chunk holds but ``otel_traces`` does not (the view committed, the table did not) are
  deleted before the chunk goes in, and the spans the chunk finds already stored but missing
  from the stage table are parsed into it from ``otel_traces``;
- for the whole store (:func:`check_stage`, :func:`repair_stage`): what ``ragfunnel store info``
  counts and ``ragfunnel store migrate`` repairs.

Why not the engine's insert deduplication tokens (``insert_deduplication_token`` with
``deduplicate_blocks_in_dependent_materialized_views``, which chdb supports): they let a *retried*
insert reach a view that missed it, but only when the retry is the same block. An ingest run
again is not: it leaves out the spans already stored (which is what makes a re-ingest add
nothing), and the collector's ``otel_traces`` has no deduplication window that ragfunnel may set
(it never alters that table). Both repairs here are idempotent statements on the two tables
themselves, so a kill during a repair is repaired by the next run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragfunnel.analyzer.store.schema import stage_table_ready
from ragfunnel.analyzer.store.tables.stage_spans import stage_select, stage_table

if TYPE_CHECKING:
    from collections.abc import Callable

    from ragfunnel.analyzer.store.connection import Store

__all__ = ["StageCheck", "StageMender", "check_stage", "repair_stage"]

REPAIR_HINT = "run `ragfunnel store migrate` to repair it"


@dataclass(frozen=True)
class StageCheck:
    """How the stage table compares with the stage spans of ``otel_traces``.

    Attributes:
        expected: distinct stage spans (TraceId, SpanId) in ``otel_traces``.
        rows: rows of the stage table.
        missing: stage spans of ``otel_traces`` the stage table lacks.
        extra: stage rows beyond one per stored span (repeated rows, or spans
            ``otel_traces`` does not hold).
    """

    expected: int
    rows: int
    missing: int
    extra: int

    @property
    def consistent(self) -> bool:
        """Whether every stage span is in the stage table exactly once, and nothing else."""
        return not self.missing and not self.extra

    def describe(self) -> str:
        """One line for ``store info``."""
        if self.consistent:
            return f"stage table in step with otel_traces: {self.rows:,} stage spans"
        return (
            f"stage table out of step with otel_traces (an ingest was interrupted?): "
            f"{self.expected:,} stage spans stored, {self.rows:,} stage rows, "
            f"{self.missing:,} missing, {self.extra:,} extra — {REPAIR_HINT}"
        )


def _stage(store: Store) -> str:
    return stage_table(store)


def check_stage(store: Store) -> StageCheck | None:
    """Count what the stage table lacks or has too much of; None without a stage table.

    Reads only, but parses every span's stage rule: about a second per million spans.
    """
    if not stage_table_ready(store):
        return None
    stage = _stage(store)
    expected_keys = f"SELECT DISTINCT TraceId, SpanId FROM ({stage_select(store.traces_table)})"
    row = store.query_arrow(
        f"SELECT (SELECT count() FROM ({expected_keys})) AS expected, "
        f"(SELECT count() FROM {stage}) AS rows, "
        f"(SELECT count() FROM ({expected_keys}) WHERE (TraceId, SpanId) NOT IN "
        f"(SELECT TraceId, SpanId FROM {stage})) AS missing"
    ).to_pylist()[0]
    expected, rows, missing = int(row["expected"]), int(row["rows"]), int(row["missing"])
    return StageCheck(expected, rows, missing, rows - (expected - missing))


def repair_stage(store: Store) -> StageCheck | None:
    """Bring the stage table in step with ``otel_traces``; returns what was found before.

    Deletes stage rows of spans ``otel_traces`` does not hold and every copy of a repeated one,
    then parses into the stage table each stored stage span it lacks. Nothing happens when the
    check finds the tables agree (or there is no stage table).
    """
    found = check_stage(store)
    if found is None or found.consistent:
        return found
    stage = _stage(store)
    if found.extra:
        store.command(
            f"DELETE FROM {stage} WHERE (TraceId, SpanId) NOT IN "
            f"(SELECT TraceId, SpanId FROM {store.traces_table}) OR (TraceId, SpanId) IN "
            f"(SELECT TraceId, SpanId FROM {stage} GROUP BY TraceId, SpanId HAVING count() > 1)"
        )
    store.command(
        f"INSERT INTO {stage} {stage_select(store.traces_table)} "
        f"WHERE (TraceId, SpanId) NOT IN (SELECT TraceId, SpanId FROM {stage}) "
        "LIMIT 1 BY TraceId, SpanId"
    )
    return found


class StageMender:
    """Per-chunk repair of the stage table during an ingest (see the module's docstring).

    Every statement is bounded by the chunk's trace ids and time window, so a chunk costs a
    query or two only when it lies where the store already holds rows.
    """

    def __init__(self, store: Store, before_delete: Callable[[], None] | None = None) -> None:
        self._store = store
        self._stage = _stage(store)
        self._before_delete = before_delete
        """Called before each ``DELETE``: a mutation, which runs only where merges may run."""
        self.deleted = 0

    def _where(self, keys_in: str) -> str:
        return (
            "Timestamp >= fromUnixTimestamp64Nano({low:Int64}) "
            "AND Timestamp <= fromUnixTimestamp64Nano({high:Int64}) "
            f"AND TraceId IN {{ids:Array(String)}}{keys_in}"
        )

    def drop_strays(self, window: dict[str, Any], new_keys: list[str]) -> None:
        """Delete stage rows of spans about to be inserted (``new_keys``, not in ``otel_traces``).

        They are left by an insert killed after its view committed and before the table did;
        the view will parse them again from this insert.
        """
        if not new_keys:
            return
        where = self._where(" AND concat(TraceId, SpanId) IN {keys:Array(String)}")
        params = {**window, "keys": new_keys}
        stray = self._store.command(f"SELECT count() FROM {self._stage} WHERE {where}", params)
        if stray:
            if self._before_delete is not None:
                self._before_delete()
            self._store.command(f"DELETE FROM {self._stage} WHERE {where}", params)
            self.deleted += int(stray) if isinstance(stray, int) else 0

    def restore(self, window: dict[str, Any]) -> None:
        """Parse into the stage table the stored spans of the chunk's traces that it lacks.

        Spans ``otel_traces`` held before this ingest (and the chunk repeats) were skipped by
        the insert, so the view did not see them again; a kill may have kept them from the
        stage table the first time.
        """
        where = self._where("")
        source = (
            f"(SELECT * FROM {self._store.traces_table} WHERE {where} AND (TraceId, SpanId) "
            f"NOT IN (SELECT TraceId, SpanId FROM {self._stage} WHERE {where}) "
            "LIMIT 1 BY TraceId, SpanId)"
        )
        self._store.command(f"INSERT INTO {self._stage} {stage_select(source)}", window)
