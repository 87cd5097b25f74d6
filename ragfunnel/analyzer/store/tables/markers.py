"""The schema marker ``ragfunnel_schema``: one row per revision applied to a store.

:mod:`..migrations` writes a row when a revision finished; :mod:`..schema` reads them to tell
what a store has and whether it is current.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.statements import create_table

if TYPE_CHECKING:
    from ragfunnel.analyzer.store.connection import Store

__all__ = ["MARKER_TABLE", "create_markers", "markers_ddl", "read_markers", "write_marker"]

MARKER_TABLE = "ragfunnel_schema"

_COLUMNS = (("object", "String"), ("revision", "UInt32"), ("done", "DateTime DEFAULT now()"))


def markers_ddl(table: str) -> str:
    """The CREATE statement of the marker table, given its quoted qualified name."""
    return create_table(table, _COLUMNS, "ReplacingMergeTree ORDER BY object")


def _table(store: Store) -> str:
    return quote(store.database, MARKER_TABLE)


def create_markers(store: Store) -> None:
    """Create the marker table if missing."""
    store.command(markers_ddl(_table(store)))


def read_markers(store: Store) -> dict[str, int]:
    """Every marker row: the marker of a revision applied → its number. Reads only."""
    found = store.query_arrow(
        f"SELECT object, max(revision) AS r FROM {_table(store)} GROUP BY object"
    )
    return dict(zip(found.column("object").to_pylist(), found.column("r").to_pylist(), strict=True))


def write_marker(store: Store, marker: str, revision: int) -> None:
    """Record that the revision ``revision`` (marked ``marker``) finished."""
    store.command(
        f"INSERT INTO {_table(store)} (object, revision) VALUES ({{o:String}}, {{r:UInt32}})",
        {"o": marker, "r": revision},
    )
