"""What a store holds: the traces table and every analyzer object, with revisions and row counts.

:func:`inventory` only reads what :mod:`.schema` reads (``system.tables`` and the schema
marker): it is safe on a production store opened by a user with SELECT rights alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragfunnel.analyzer.store.migrations import CURRENT_REVISION, REVISIONS
from ragfunnel.analyzer.store.schema import read_schema
from ragfunnel.analyzer.store.tables.ingest_log import INGEST_LOG_TABLE
from ragfunnel.analyzer.store.tables.judge_cache import CACHE_TABLE
from ragfunnel.analyzer.store.tables.markers import MARKER_TABLE
from ragfunnel.analyzer.store.tables.stage_spans import STAGE_TABLE, VIEW_NAME
from ragfunnel.analyzer.store.tables.verdicts import LEGACY_VERDICTS_TABLE, VERDICTS_TABLE

if TYPE_CHECKING:
    from ragfunnel.analyzer.store.connection import Store

__all__ = ["StoreInventory", "StoredObject", "inventory"]

_VIEW_ENGINE = "MaterializedView"


@dataclass(frozen=True)
class StoredObject:
    """One table or view.

    Attributes:
        name: its name in the store's database.
        role: what it is for, in a few words.
        engine: its ClickHouse engine (``MergeTree``, ``MaterializedView`` ...); empty if absent.
        rows: its row count, None for a view or an absent object.
    """

    name: str
    role: str
    engine: str
    rows: int | None

    @property
    def exists(self) -> bool:
        """Whether the object is in the store."""
        return bool(self.engine)


@dataclass(frozen=True)
class StoreInventory:
    """The answer of :func:`inventory`.

    Attributes:
        dsn: the store's DSN without its password.
        database: the database looked at.
        revision: the highest analyzer revision applied (0: none).
        current_revision: the revision this version of ragfunnel brings a store to.
        objects: the traces table, then every analyzer object, present or not, then leftovers
            of an older ragfunnel (``ragfunnel_*`` objects no revision makes any more).
        stage_table_current: the stage table of this version exists and finished its backfill,
            so analysis reads it instead of parsing ``otel_traces``.
    """

    dsn: str
    database: str
    revision: int
    current_revision: int
    objects: tuple[StoredObject, ...]
    stage_table_current: bool

    def object(self, name: str) -> StoredObject | None:
        """The object called ``name``, if listed."""
        return next((o for o in self.objects if o.name == name), None)

    @property
    def view_attached(self) -> bool:
        """Whether the view that parses every insert into ``otel_traces`` exists."""
        view = self.object(VIEW_NAME)
        return view is not None and view.engine == _VIEW_ENGINE


def inventory(store: Store) -> StoreInventory:
    """List what ``store`` holds of the traces table and the analyzer's objects; reads only."""
    schema = read_schema(store)
    found = schema.tables

    def listed(name: str, role: str) -> StoredObject:
        entry = found.get(name)
        if entry is None:
            return StoredObject(name, role, "", None)
        count = None if entry.engine == _VIEW_ENGINE else entry.rows
        return StoredObject(name, role, entry.engine, count)

    roles = {
        store.table: "spans (the collector's clickhouseexporter table)",
        MARKER_TABLE: "schema marker: the revisions applied",
        INGEST_LOG_TABLE: "ingest log: what earlier ingests read of each file",
        STAGE_TABLE: "typed stage spans the funnel reads",
        VIEW_NAME: f"parses each insert into {store.table} into {STAGE_TABLE}",
        VERDICTS_TABLE: "the judges' verdicts: one row per judged answer and judge",
        CACHE_TABLE: "judge cache: a judge never pays twice for the same verdict",
    }
    for revision in REVISIONS:
        for _, name in revision.creates:
            roles.setdefault(name, revision.summary)
    if LEGACY_VERDICTS_TABLE in found:
        roles[LEGACY_VERDICTS_TABLE] = (
            f"verdicts without confidences: ragfunnel store migrate copies them into {VERDICTS_TABLE}"
        )
    leftovers = sorted(n for n in found if n.startswith("ragfunnel_") and n not in roles)
    objects = [listed(name, role) for name, role in roles.items()]
    objects += [
        listed(name, "left by an older ragfunnel: no revision uses it") for name in leftovers
    ]
    return StoreInventory(
        dsn=store.dsn_redacted,
        database=store.database,
        revision=schema.revision,
        current_revision=CURRENT_REVISION,
        objects=tuple(objects),
        stage_table_current=schema.stage_table_current,
    )
