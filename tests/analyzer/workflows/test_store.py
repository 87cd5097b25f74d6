"""``workflows/store.py``: ``store migrate`` brings a store current and repairs its stage table;
``store info`` lists what it holds and checks the stage table, reading only."""

from __future__ import annotations

from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.migrations import CURRENT_REVISION, REVISIONS
from ragfunnel.analyzer.store.tables.stage_spans import STAGE_TABLE, stage_table
from ragfunnel.analyzer.workflows import StageCheck, migrate_store, store_info
from tests.support.recorder import recording
from tests.support.traces import TraceBuilder, few_questions


def _collected(store: Store) -> None:
    b = TraceBuilder()
    few_questions(b, 2)
    b.as_collector_into(store)


def test_info_of_a_store_nobody_prepared_reads_only(store: Store) -> None:
    _collected(store)
    with recording(store) as recorder:
        info = store_info(store)
    assert all(s.lstrip().startswith("SELECT") for s in recorder.statements)
    assert info.stage is None  # no stage table to check
    assert info.inventory.revision == 0 and not info.inventory.stage_table_current
    assert info.inventory.object(store.table).rows == 4  # type: ignore[union-attr]


def test_migrate_brings_the_store_current_then_info_finds_it_in_step(store: Store) -> None:
    _collected(store)
    done = migrate_store(store)
    assert (done.migration.before, done.migration.after) == (0, CURRENT_REVISION)
    assert len(done.migration.applied) == len(REVISIONS)
    assert done.repair == StageCheck(expected=4, rows=4, missing=0, extra=0)  # backfilled whole
    info = store_info(store)
    assert info.inventory.revision == CURRENT_REVISION and info.inventory.view_attached
    assert info.stage is not None and info.stage.consistent
    again = migrate_store(store)
    assert again.migration.applied == () and again.repair == info.stage


def test_migrate_repairs_a_stage_table_an_interrupted_ingest_left(store: Store) -> None:
    _collected(store)
    migrate_store(store)
    store.command(f"TRUNCATE TABLE {stage_table(store)}")  # the view's inserts never committed
    assert store_info(store).stage == StageCheck(expected=4, rows=0, missing=4, extra=0)
    done = migrate_store(store)
    assert done.migration.applied == ()  # nothing to apply: the repair is what it did
    assert done.repair == StageCheck(expected=4, rows=0, missing=4, extra=0)  # what it found
    assert store_info(store).stage == StageCheck(expected=4, rows=4, missing=0, extra=0)
    assert STAGE_TABLE in {o.name for o in store_info(store).inventory.objects if o.exists}
