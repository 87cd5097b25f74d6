"""Where an analysis reads stage spans from: the stage table, or ``otel_traces`` parsed at read time.

The funnel and the judges read stage spans through this one choice (it sits in the store layer,
below both).

The read path never writes to a store the user did not ask to prepare:

- the stage table exists and is current (``ragfunnel.analyzer.store.schema``): read it;
- the store is the embedded one and writable: the user owns it, so it is migrated on first use
  (the view then parses every later insert);
- otherwise (a server, or a store opened read-only): the same SELECT that fills the stage table
  runs as a subquery of every funnel query, and the result says so once, in
  :data:`READ_TIME_NOTICE`.

Both sources give the same rows, so the same analysis (a test compares them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragfunnel.analyzer.store.migrations import migrate
from ragfunnel.analyzer.store.schema import stage_table_ready
from ragfunnel.analyzer.store.tables.stage_spans import STAGE_TABLE, stage_select, stage_table
from ragfunnel.instrumentation.contract import Stage

if TYPE_CHECKING:
    from ragfunnel.analyzer.store import Store

__all__ = ["READ_TIME_NOTICE", "StageSource", "stage_source"]

READ_TIME_NOTICE = (
    f"otel_traces was parsed at read time: the store has no current stage table "
    f"({STAGE_TABLE}); ragfunnel.analyzer.store.migrations.migrate(store) creates it, once, "
    "and makes every later analysis faster"
)
"""The notice of an analysis that parsed ``otel_traces`` itself (in API terms)."""


@dataclass(frozen=True)
class StageSource:
    """What the funnel queries read ``FROM``.

    Attributes:
        sql: the quoted stage table, or a parenthesised subquery over ``otel_traces``.
        read_time: whether spans are parsed at read time (no stage table used).
        question_sql: where the question and ingest rows are read from: the stage table, or at
            read time a subquery that reads only the spans that could be such rows (filter them on
            ``Stage`` still), so that the table's skip indexes pass over the others.
    """

    sql: str
    read_time: bool
    question_sql: str

    @property
    def notices(self) -> tuple[str, ...]:
        """What the analysis should tell its user about its source (nothing for the table)."""
        return (READ_TIME_NOTICE,) if self.read_time else ()


def stage_source(store: Store) -> StageSource:
    """Choose the stage spans' source for an analysis of ``store`` (see the module docstring)."""
    if stage_table_ready(store):
        return _table(store)
    if store.embedded and not store.read_only:
        migrate(store)
        return _table(store)
    return StageSource(
        f"({stage_select(store.traces_table)})",
        read_time=True,
        question_sql=f"({stage_select(store.traces_table, (Stage.QUESTION, Stage.INGEST))})",
    )


def _table(store: Store) -> StageSource:
    table = stage_table(store)
    return StageSource(table, read_time=False, question_sql=table)
