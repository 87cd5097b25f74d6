"""Every object the analyzer owns in a store, created by numbered revisions through :func:`migrate`.

The analyzer owns, next to the exporter's ``otel_traces``:

- the typed stage-span table and the materialized view on ``otel_traces`` that fills it
  (:mod:`.tables.stage_spans`; the view parses each stage span once, when it is inserted);
- the schema marker ``ragfunnel_schema`` (:mod:`.tables.markers`): one row per revision applied;
- the ingest log ``ragfunnel_ingest_log`` (:mod:`.tables.ingest_log`: what earlier ingests read
  of each file), which ``ingest`` also creates on its own (``ensure_ingest_log``) when it first
  needs it;
- the judges' verdicts table and judge cache (:mod:`.tables.verdicts`,
  :mod:`.tables.judge_cache`), revision 2, which ``ragfunnel judge`` applies when it first
  writes a verdict; revision 3 replaces the verdicts table by its layout with claim
  confidences, copying the rows over before it drops the old table.

A revision is applied once, in order, and its marker row is written only when it finished, so an
interrupted revision is run again (each is written to resume, not to repeat). A revision that
replaces an object names the superseded one, which is dropped before the revision runs: a
store never keeps an old view feeding a table nobody reads.

Each table's DDL lives in its module of :mod:`.tables`; this module orders the revisions and
decides, from :mod:`.schema`, which are pending. ``otel_traces`` itself is never altered here. Nothing in the read path calls :func:`migrate` on a store the user did not ask to
prepare (docs/deployment.md lists who may write what).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ragfunnel.analyzer.store.connection import Store
from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.opening import StoreArg, takes_store
from ragfunnel.analyzer.store.schema import (
    applied_markers,
    applied_revision,
    read_schema,
    stage_table_ready,
    verdicts_ready,
)
from ragfunnel.analyzer.store.tables.ingest_log import INGEST_LOG_TABLE, ensure_ingest_log
from ragfunnel.analyzer.store.tables.judge_cache import CACHE_TABLE, create_cache
from ragfunnel.analyzer.store.tables.markers import MARKER_TABLE, create_markers, write_marker
from ragfunnel.analyzer.store.tables.stage_spans import (
    STAGE_TABLE,
    VIEW_NAME,
    create_stage_spans,
    stage_select,
    view_ddl,
)
from ragfunnel.analyzer.store.tables.verdicts import (
    LEGACY_VERDICTS_TABLE,
    VERDICTS_TABLE,
    copy_legacy_verdicts,
    create_legacy_verdicts,
    create_verdicts,
)

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
"""``applied_*``, ``*_ready`` (from :mod:`.schema`), ``ensure_ingest_log``, ``stage_select``
and ``view_ddl`` (from :mod:`.tables`) are named here as well, where they were first."""


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


def _stage_spans(store: Store) -> None:
    ensure_ingest_log(store)
    create_stage_spans(store)


def _verdict_tables(store: Store) -> None:
    create_legacy_verdicts(store)
    create_cache(store)


def _verdict_confidences(store: Store) -> None:
    # Copied, not superseded through ``drops``: verdicts can cost LLM calls, and a superseded
    # object is dropped before its revision runs.
    create_verdicts(store)
    copy_legacy_verdicts(store, present=read_schema(store).has(LEGACY_VERDICTS_TABLE))


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
        marker=LEGACY_VERDICTS_TABLE,
        summary=f"judges' verdicts table {LEGACY_VERDICTS_TABLE} and judge cache {CACHE_TABLE}",
        # Its verdicts table is not listed: revision 3 copies and drops it, so a current store
        # lacks it by design (``store info`` lists it only while it is there to copy).
        creates=(("TABLE", CACHE_TABLE),),
        apply=_verdict_tables,
    ),
    Revision(
        number=3,
        marker=VERDICTS_TABLE,
        summary=f"verdicts table {VERDICTS_TABLE} with each claim's confidence "
        f"(the rows of {LEGACY_VERDICTS_TABLE} copied into it, then that table dropped)",
        creates=(("TABLE", VERDICTS_TABLE),),
        apply=_verdict_confidences,
    ),
)
"""The analyzer's revisions, oldest first; a new object or layout is a new revision at the end."""

CURRENT_REVISION = REVISIONS[-1].number


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
    schema = read_schema(store)
    done, before = set(schema.markers), schema.revision
    pending = tuple(r for r in sorted(revisions, key=lambda r: r.number) if r.marker not in done)
    if not pending:
        return Migration(before, before, ())
    create_markers(store)
    for revision in pending:
        # Views first: a superseded view must stop feeding its table before the table goes.
        for kind, name in sorted(revision.drops, key=lambda d: d[0] != "VIEW"):
            store.command(f"DROP {'VIEW' if kind == 'VIEW' else 'TABLE'} IF EXISTS "
                          f"{quote(store.database, name)}")  # fmt: skip
        revision.apply(store)
        write_marker(store, revision.marker, revision.number)
    return Migration(before, max(before, pending[-1].number), pending)
