"""``store/inventory.py``: what a store holds, with engines, row counts, revision and leftovers.

It only reads (``ragfunnel store info`` runs it on production stores with SELECT rights alone).
"""

from __future__ import annotations

from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.inventory import StoredObject, inventory
from ragfunnel.analyzer.store.migrations import CURRENT_REVISION, REVISIONS, migrate
from ragfunnel.analyzer.store.tables.ingest_log import INGEST_LOG_TABLE
from ragfunnel.analyzer.store.tables.judge_cache import CACHE_TABLE
from ragfunnel.analyzer.store.tables.markers import MARKER_TABLE
from ragfunnel.analyzer.store.tables.stage_spans import STAGE_TABLE, VIEW_NAME
from ragfunnel.analyzer.store.tables.verdicts import LEGACY_VERDICTS_TABLE, VERDICTS_TABLE
from tests.support.recorder import recording
from tests.support.traces import TraceBuilder, few_questions


def test_inventory_lists_objects_rows_revision_and_leftovers(store: Store) -> None:
    b = TraceBuilder()
    few_questions(b, 2)
    b.as_collector_into(store)
    before = inventory(store)
    assert before.revision == 0 and not before.view_attached and not before.stage_table_current
    traces = before.object("otel_traces")
    assert traces is not None and traces.rows == 4 and traces.engine == "MergeTree"
    assert not before.object(STAGE_TABLE).exists  # type: ignore[union-attr]

    migrate(store)
    store.command(  # what an older ragfunnel could have left behind
        f"CREATE TABLE {quote(store.database, 'ragfunnel_stage_spans_v0')} (a UInt8) "
        "ENGINE = MergeTree ORDER BY a"
    )
    after = inventory(store)
    assert after.revision == CURRENT_REVISION and after.view_attached and after.stage_table_current
    assert after.object(STAGE_TABLE).rows == 4  # type: ignore[union-attr]
    assert after.object(VIEW_NAME).rows is None  # type: ignore[union-attr]
    leftover = after.object("ragfunnel_stage_spans_v0")
    assert leftover is not None and "older ragfunnel" in leftover.role


def test_every_analyzer_object_is_listed_present_or_not(store: Store) -> None:
    found = inventory(store)
    assert (found.dsn, found.database) == (store.dsn_redacted, store.database)
    assert found.current_revision == CURRENT_REVISION == REVISIONS[-1].number
    names = [o.name for o in found.objects]
    assert names[0] == store.table  # the traces table first
    expected = {MARKER_TABLE, INGEST_LOG_TABLE, STAGE_TABLE, VIEW_NAME, VERDICTS_TABLE, CACHE_TABLE}
    assert expected <= set(names) and len(names) == len(set(names))
    absent = [o for o in found.objects if o.name != store.table]
    assert all(not o.exists and o.engine == "" and o.rows is None for o in absent)
    assert all(o.role for o in found.objects)  # each says what it is for
    assert found.object("no_such_table") is None
    assert LEGACY_VERDICTS_TABLE not in names  # only listed while it is there to copy


def test_an_old_verdicts_table_is_listed_as_waiting_to_be_copied(store: Store) -> None:
    migrate(store, revisions=REVISIONS[:2])
    found = inventory(store)
    assert found.revision == 2
    legacy = found.object(LEGACY_VERDICTS_TABLE)
    assert legacy is not None and legacy.exists and legacy.rows == 0
    assert "ragfunnel store migrate copies them" in legacy.role
    migrate(store)
    assert inventory(store).object(LEGACY_VERDICTS_TABLE) is None  # copied, then dropped


def test_a_view_is_attached_only_when_the_stage_table_is_current(store: Store) -> None:
    migrate(store)
    assert inventory(store).view_attached
    store.command(f"DROP VIEW {quote(store.database, VIEW_NAME)}")
    found = inventory(store)
    assert not found.view_attached and found.stage_table_current
    view = found.object(VIEW_NAME)
    assert view == StoredObject(VIEW_NAME, view.role, "", None)  # type: ignore[union-attr]


def test_inventory_only_reads(store: Store) -> None:
    b = TraceBuilder()
    few_questions(b, 1)
    b.as_collector_into(store)
    with recording(store) as recorder:
        inventory(store)
    assert recorder.statements
    assert all(s.lstrip().upper().startswith("SELECT") for s in recorder.statements)
    assert inventory(store).revision == 0  # nothing was made by looking
