"""Every object the analyzer owns in a store, created by numbered revisions through :func:`migrate`.

The analyzer owns, next to the exporter's ``otel_traces``:

- the typed stage-span table and the materialized view on ``otel_traces`` that fills it
  (:mod:`.stage_table`; the view parses each stage span once, when it is inserted);
- the schema marker ``ragfunnel_schema``: one row per revision applied;
- the ingest log ``ragfunnel_ingest_log`` (what earlier ingests read of each file), which
  ``ingest`` also creates on its own (:func:`ensure_ingest_log`) when it first needs it;
- the judges' verdicts table and judge cache (:mod:`.verdict_tables`), revision 2, which
  ``ragfunnel judge`` applies when it first writes a verdict.

A revision is applied once, in order, and its marker row is written only when it finished, so an
interrupted revision is run again (each is written to resume, not to repeat). A revision that
replaces an object names the superseded one, which is dropped before the revision runs: a
store never keeps an old view feeding a table nobody reads.

This is the only module that issues DDL for analyzer objects; ``otel_traces`` itself is never
altered here. Nothing in the read path calls :func:`migrate` on a store the user did not ask to
prepare (docs/deployment.md lists who may write what).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragfunnel.analyzer.conventions import stage_select_sql
from ragfunnel.analyzer.store.connection import Store
from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.opening import StoreArg, takes_store
from ragfunnel.analyzer.store.part_format import COMPACT_PARTS
from ragfunnel.analyzer.store.stage_table import STAGE_COLUMNS, STAGE_TABLE, VIEW_NAME
from ragfunnel.analyzer.store.verdict_tables import CACHE_TABLE, VERDICTS_TABLE, verdict_tables_ddl

if TYPE_CHECKING:
    from ragfunnel.instrumentation.contract import Stage

__all__ = [
    "CURRENT_REVISION",
    "INGEST_LOG_TABLE",
    "MARKER_TABLE",
    "REVISIONS",
    "Migration",
    "Revision",
    "applied_markers",
    "applied_revision",
    "ensure_ingest_log",
    "migrate",
    "stage_select",
    "stage_table_ready",
    "verdicts_ready",
    "view_ddl",
]

MARKER_TABLE = "ragfunnel_schema"
INGEST_LOG_TABLE = "ragfunnel_ingest_log"

_INGEST_LOG_DDL = """
CREATE TABLE IF NOT EXISTS {table} (
    TracesTable String,
    Host String,
    Path String,
    Size UInt64,
    MtimeNs Int64,
    Head String,
    Offset UInt64,
    Line UInt64,
    Resumable Bool,
    Spans UInt64,
    Low Int64,
    High Int64,
    RecordedAt DateTime64(6) DEFAULT now64(6)
) ENGINE = MergeTree ORDER BY (TracesTable, Host, Path, RecordedAt)
"""


@dataclass(frozen=True)
class Revision:
    """One step of the analyzer's schema.

    Attributes:
        number: applied in increasing order; the store's revision is the highest applied.
        marker: the ``object`` of its row in the marker table.
        summary: what it does, for ``ragfunnel store migrate``.
        creates: the objects it makes, as (``TABLE`` or ``VIEW``, name).
        drops: superseded objects, as (``TABLE`` or ``VIEW``, name), dropped before it runs.
        apply: the statements, given the open store; must be safe to run again.
    """

    number: int
    marker: str
    summary: str
    creates: tuple[tuple[str, str], ...]
    apply: Callable[[Store], None]
    drops: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Migration:
    """What :func:`migrate` did: the revision before and after, and the revisions applied."""

    before: int
    after: int
    applied: tuple[Revision, ...]


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
    settings (:mod:`.part_format`).
    """
    columns = ",\n    ".join(f"{name} {kind}" for name, kind in STAGE_COLUMNS)
    table = quote(database, STAGE_TABLE)
    return [
        f"CREATE TABLE IF NOT EXISTS {table} (\n    {columns}\n) ENGINE = MergeTree "
        # Bucket first: the funnel aggregates a range of buckets at a time, reading only
        # their granules (memory stays bounded whatever the number of questions); then Stage,
        # so one-stage reads (discovery, ingest) skip the other stages within each bucket.
        "ORDER BY (Bucket, Stage, QuestionKey, TraceId, Timestamp)"
        + (f" SETTINGS {COMPACT_PARTS}" if compact_parts else ""),
        f"CREATE MATERIALIZED VIEW IF NOT EXISTS {quote(database, VIEW_NAME)} TO {table} AS "
        + stage_select(traces_table),
    ]


def _stage_spans(store: Store) -> None:
    # The view feeds the table from now on; the backfill copies what was stored before, skipping
    # rows already copied, so an interrupted backfill resumes.
    ensure_ingest_log(store)
    for statement in view_ddl(store.database, store.traces_table, compact_parts=store.embedded):
        store.command(statement)
    table = quote(store.database, STAGE_TABLE)
    store.command(
        f"INSERT INTO {table} {stage_select(store.traces_table)} "
        f"WHERE (TraceId, SpanId) NOT IN (SELECT TraceId, SpanId FROM {table})"
    )


def _verdict_tables(store: Store) -> None:
    for statement in verdict_tables_ddl(
        quote(store.database, VERDICTS_TABLE), quote(store.database, CACHE_TABLE)
    ):
        store.command(statement)


REVISIONS: tuple[Revision, ...] = (
    Revision(
        number=1,
        marker=STAGE_TABLE,
        summary=f"stage-span table {STAGE_TABLE}, filled from otel_traces by the view {VIEW_NAME}",
        creates=(("TABLE", STAGE_TABLE), ("VIEW", VIEW_NAME), ("TABLE", INGEST_LOG_TABLE)),
        apply=_stage_spans,
    ),
    Revision(
        number=2,
        marker=VERDICTS_TABLE,
        summary=f"judges' verdicts table {VERDICTS_TABLE} and judge cache {CACHE_TABLE}",
        creates=(("TABLE", VERDICTS_TABLE), ("TABLE", CACHE_TABLE)),
        apply=_verdict_tables,
    ),
)
"""The analyzer's revisions, oldest first; a new object or layout is a new revision at the end."""

CURRENT_REVISION = REVISIONS[-1].number


def _marker(store: Store) -> str:
    return quote(store.database, MARKER_TABLE)


def _has_table(store: Store, name: str) -> bool:
    found = store.query_arrow(
        "SELECT count() AS n FROM system.tables WHERE database = {db:String} AND name = {t:String}",
        {"db": store.database, "t": name},
    )
    return bool(found.column("n")[0].as_py())


def applied_revision(store: Store) -> int:
    """The highest revision applied to ``store`` (0 for none); reads only."""
    if not _has_table(store, MARKER_TABLE):
        return 0
    found = store.query_arrow(f"SELECT max(revision) AS r FROM {_marker(store)}")
    return int(found.column("r")[0].as_py() or 0)


def applied_markers(store: Store) -> set[str]:
    """The marker of every revision applied to ``store``; reads only."""
    if not _has_table(store, MARKER_TABLE):
        return set()
    found = store.query_arrow(f"SELECT DISTINCT object FROM {_marker(store)}")
    return set(found.column("object").to_pylist())


@takes_store("write")
def migrate(store: StoreArg, *, revisions: Sequence[Revision] = REVISIONS) -> Migration:
    """Bring ``store`` to the latest of ``revisions`` (the analyzer's own by default).

    Creates the marker table if missing, then applies, in order, each revision whose marker is
    absent: drops the objects it supersedes, runs it, and writes its marker row. Running it on
    a current store only reads the marker.

    Raises:
        StoreError: a statement failed (for instance, the user lacks CREATE TABLE rights).
    """
    assert isinstance(store, Store)  # takes_store opened it (a DSN or path: never created)
    marker = _marker(store)
    done = applied_markers(store)
    before = applied_revision(store)
    pending = tuple(r for r in sorted(revisions, key=lambda r: r.number) if r.marker not in done)
    if not pending:
        return Migration(before, before, ())
    store.command(
        f"CREATE TABLE IF NOT EXISTS {marker} (object String, revision UInt32, "
        "done DateTime DEFAULT now()) ENGINE = ReplacingMergeTree ORDER BY object"
    )
    for revision in pending:
        # Views first: a superseded view must stop feeding its table before the table goes.
        for kind, name in sorted(revision.drops, key=lambda d: d[0] != "VIEW"):
            store.command(f"DROP {'VIEW' if kind == 'VIEW' else 'TABLE'} IF EXISTS "
                          f"{quote(store.database, name)}")  # fmt: skip
        revision.apply(store)
        store.command(
            f"INSERT INTO {marker} (object, revision) VALUES ({{o:String}}, {{r:UInt32}})",
            {"o": revision.marker, "r": revision.number},
        )
    return Migration(before, max(before, pending[-1].number), pending)


def ensure_ingest_log(store: Store) -> str:
    """Create the ingest log if missing; returns its quoted qualified name."""
    table = quote(store.database, INGEST_LOG_TABLE)
    store.command(_INGEST_LOG_DDL.format(table=table))
    return table


def verdicts_ready(store: Store) -> bool:
    """Whether the verdicts table exists (something was judged); reads only."""
    return _has_table(store, VERDICTS_TABLE)


def stage_table_ready(store: Store) -> bool:
    """Whether the current stage table exists and its backfill finished; reads only."""
    return STAGE_TABLE in applied_markers(store) and _has_table(store, STAGE_TABLE)
