"""Prepare a store, and see what it holds: ``ragfunnel store migrate`` and ``store info``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragfunnel.analyzer.store.inventory import StoreInventory, inventory
from ragfunnel.analyzer.store.migrations import Migration, migrate
from ragfunnel.analyzer.store.tables.stage_spans.repair import StageCheck, check_stage, repair_stage

if TYPE_CHECKING:
    from ragfunnel.analyzer.store import Store

__all__ = [
    "Migrated",
    "StageCheck",
    "StoreInfo",
    "StoreInventory",
    "migrate_store",
    "store_info",
]


@dataclass(frozen=True)
class Migrated:
    """The revisions applied, and the stage table's repair (None without a stage table)."""

    migration: Migration
    repair: StageCheck | None


@dataclass(frozen=True)
class StoreInfo:
    """What the store holds, and the stage table checked against ``otel_traces``."""

    inventory: StoreInventory
    stage: StageCheck | None


def migrate_store(store: Store) -> Migrated:
    """Bring ``store`` to the current revision, then repair a stage table out of step."""
    done = migrate(store)
    return Migrated(done, repair_stage(store))


def store_info(store: Store) -> StoreInfo:
    """The store's inventory and the stage table's check (reads only)."""
    return StoreInfo(inventory(store), check_stage(store))
