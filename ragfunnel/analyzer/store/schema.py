"""What a store has and what is current: the one answer every module asks for.

One look at ``system.tables`` (and the schema marker, when there is one) gives a
:class:`StoreSchema`: the tables and views of the store's database, the revisions applied, and
the questions the analyzer asks of them — is the stage table current, is its view attached,
was anything judged. :mod:`.migrations` decides what to apply from it; the stage source, the
ingest writer, the judges and the inventory read it instead of asking the store themselves.
It only reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragfunnel.analyzer.store.tables.judge_cache import CACHE_TABLE
from ragfunnel.analyzer.store.tables.markers import MARKER_TABLE, read_markers
from ragfunnel.analyzer.store.tables.stage_spans import STAGE_TABLE, VIEW_NAME
from ragfunnel.analyzer.store.tables.verdicts import LEGACY_VERDICTS_TABLE, VERDICTS_TABLE

if TYPE_CHECKING:
    from ragfunnel.analyzer.store.connection import Store

__all__ = [
    "StoreSchema",
    "TableEntry",
    "applied_markers",
    "applied_revision",
    "has_table",
    "read_schema",
    "stage_table_ready",
    "stage_view_attached",
    "table_columns",
    "verdicts_ready",
]


@dataclass(frozen=True)
class TableEntry:
    """One table or view of the store's database, as ``system.tables`` lists it."""

    name: str
    engine: str
    rows: int | None


@dataclass(frozen=True)
class StoreSchema:
    """The tables of a store's database and the analyzer revisions applied to it.

    Attributes:
        tables: every table and view of the database, by name.
        markers: the marker of each revision applied, with its number.
    """

    tables: dict[str, TableEntry]
    markers: dict[str, int]

    @property
    def revision(self) -> int:
        """The highest revision applied (0: none)."""
        return max(self.markers.values(), default=0)

    def has(self, name: str) -> bool:
        """Whether the database holds a table or view called ``name``."""
        return name in self.tables

    @property
    def stage_table_current(self) -> bool:
        """The stage table of this version exists and its backfill finished (its marker)."""
        return STAGE_TABLE in self.markers and self.has(STAGE_TABLE)

    @property
    def stage_view_attached(self) -> bool:
        """The current stage table and the view that feeds it both exist."""
        return self.stage_table_current and self.has(VIEW_NAME)

    @property
    def verdicts_table(self) -> str | None:
        """The verdicts table to read: the current layout, else the old one; None: neither.

        The old layout (``ragfunnel_verdicts_v1``, no confidences) is read while it exists and
        its copy into the current one has not finished (the revision's marker): a store nobody
        migrated, or one whose migration was interrupted, is read whole.
        """
        if self.has(LEGACY_VERDICTS_TABLE) and VERDICTS_TABLE not in self.markers:
            return LEGACY_VERDICTS_TABLE
        return VERDICTS_TABLE if self.has(VERDICTS_TABLE) else None

    @property
    def verdicts_present(self) -> bool:
        """A verdicts table exists (something was judged, or the judges' revision ran)."""
        return self.verdicts_table is not None

    @property
    def judge_cache_present(self) -> bool:
        """The judge cache exists."""
        return self.has(CACHE_TABLE)


def read_schema(store: Store) -> StoreSchema:
    """What ``store``'s database holds: one query, two when it has a schema marker."""
    rows = store.query_arrow(
        "SELECT name, engine, total_rows FROM system.tables WHERE database = {db:String}",
        {"db": store.database},
    ).to_pylist()
    tables = {
        str(row["name"]): TableEntry(
            str(row["name"]),
            str(row["engine"]),
            None if row["total_rows"] is None else int(row["total_rows"]),
        )
        for row in rows
    }
    markers = read_markers(store) if MARKER_TABLE in tables else {}
    return StoreSchema(tables, markers)


def table_columns(store: Store, table: str) -> dict[str, str]:
    """The columns of ``table`` in the store's database, name → type (empty if no table)."""
    result = store.query_arrow(
        "SELECT name, type FROM system.columns WHERE database = {db:String} AND table = {t:String}",
        {"db": store.database, "t": table},
    )
    names = result.column("name").to_pylist()
    types = result.column("type").to_pylist()
    return dict(zip(names, types, strict=True))


def has_table(store: Store, name: str) -> bool:
    """Whether ``name`` exists in the store's database; reads only."""
    return read_schema(store).has(name)


def applied_revision(store: Store) -> int:
    """The highest revision applied to ``store`` (0 for none); reads only."""
    return read_schema(store).revision


def applied_markers(store: Store) -> set[str]:
    """The marker of every revision applied to ``store``; reads only."""
    return set(read_schema(store).markers)


def verdicts_ready(store: Store) -> bool:
    """Whether the verdicts table exists (something was judged); reads only."""
    return read_schema(store).verdicts_present


def stage_table_ready(store: Store) -> bool:
    """Whether the current stage table exists and its backfill finished; reads only."""
    return read_schema(store).stage_table_current


def stage_view_attached(store: Store) -> bool:
    """Whether the current stage table and the view feeding it both exist; reads only."""
    return read_schema(store).stage_view_attached
