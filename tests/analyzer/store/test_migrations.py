"""Migrations: numbered revisions, applied once, superseded objects dropped; `ragfunnel store`."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.migrations import (
    CURRENT_REVISION,
    MARKER_TABLE,
    REVISIONS,
    Revision,
    applied_revision,
    migrate,
    stage_table_ready,
)
from ragfunnel.analyzer.store.part_format import PART_SETTINGS
from ragfunnel.analyzer.store.tables.judge_cache import CACHE_TABLE
from ragfunnel.analyzer.store.tables.stage_spans import STAGE_TABLE, VIEW_NAME, stage_table
from ragfunnel.analyzer.store.tables.verdicts import VERDICTS_TABLE
from tests.support.traces import TraceBuilder, few_questions


def tables(store: Store) -> dict[str, str]:
    rows = store.query_arrow(
        "SELECT name, engine FROM system.tables WHERE database = {db:String}",
        {"db": store.database},
    ).to_pylist()
    return {row["name"]: row["engine"] for row in rows}


@pytest.fixture(autouse=True)
def collector_filled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spans arrive as a collector writes them, into a store nothing has prepared yet."""
    monkeypatch.setattr(TraceBuilder, "into", TraceBuilder.as_collector_into)


def test_migrate_creates_every_object_once_and_backfills(store: Store) -> None:
    b = TraceBuilder()
    few_questions(b, 3)
    b.into(store)
    assert applied_revision(store) == 0 and not stage_table_ready(store)
    assert set(tables(store)) == {"otel_traces"}

    done = migrate(store)
    assert (done.before, done.after) == (0, CURRENT_REVISION)
    assert [r.number for r in done.applied] == [r.number for r in REVISIONS]
    found = tables(store)
    assert found[STAGE_TABLE] == "MergeTree" and found[VIEW_NAME] == "MaterializedView"
    assert found[MARKER_TABLE] == "ReplacingMergeTree"
    assert found[VERDICTS_TABLE] == found[CACHE_TABLE] == "ReplacingMergeTree"
    assert stage_table_ready(store)
    count = f"SELECT count() FROM {stage_table(store)}"
    assert store.command(count) == 6  # backfilled: 3 question + 3 retrieve spans

    again = migrate(store)
    assert again.applied == () and again.after == CURRENT_REVISION
    few_questions(b, 1)
    b.into(store)  # the view feeds the table from now on
    assert store.command(count) == 8


def test_ingest_migrates_the_embedded_store_before_it_inserts(tmp_path: Path) -> None:
    # The embedded store is the user's: its view parses spans as they arrive, so the first
    # analysis finds the stage table current instead of backfilling it from every span.
    b = TraceBuilder()
    few_questions(b, 3)
    with Store.open(f"chdb://{tmp_path / 'own'}", create=True) as opened:
        ingest_spans(opened, b.spans)
        assert applied_revision(opened) == 1 and stage_table_ready(opened)
        assert opened.command(f"SELECT count() FROM {stage_table(opened)}") == 6
        engines = opened.query_arrow(
            "SELECT engine_full FROM system.tables WHERE database = {db:String} "
            "AND name IN ('otel_traces', {stage:String})",
            {"db": opened.database, "stage": STAGE_TABLE},
        ).column("engine_full")
        # Every part stays compact however large it grows, merged a few at a time (part_format.py).
        assert [PART_SETTINGS in engine for engine in engines.to_pylist()] == [True, True]


def test_a_superseding_revision_drops_the_old_objects_first(store: Store) -> None:
    migrate(store)
    created: list[str] = []

    def toy(target: Store) -> None:
        assert VIEW_NAME not in tables(target), "the superseded view must be gone first"
        target.command(
            f"CREATE TABLE IF NOT EXISTS {quote(target.database, 'ragfunnel_toy_v2')} "
            "(a UInt8) ENGINE = MergeTree ORDER BY a"
        )
        created.append("ragfunnel_toy_v2")

    v2 = Revision(
        number=CURRENT_REVISION + 1,
        marker="ragfunnel_toy_v2",
        summary="toy table replacing the stage spans",
        creates=(("TABLE", "ragfunnel_toy_v2"),),
        drops=(("TABLE", STAGE_TABLE), ("VIEW", VIEW_NAME)),
        apply=toy,
    )
    done = migrate(store, revisions=(*REVISIONS, v2))
    assert [r.number for r in done.applied] == [CURRENT_REVISION + 1]
    assert (done.before, done.after) == (CURRENT_REVISION, CURRENT_REVISION + 1)
    found = tables(store)
    assert STAGE_TABLE not in found and VIEW_NAME not in found
    assert "ragfunnel_toy_v2" in found and created == ["ragfunnel_toy_v2"]
    assert applied_revision(store) == CURRENT_REVISION + 1
    assert migrate(store, revisions=(*REVISIONS, v2)).applied == ()


def test_an_interrupted_revision_runs_again(store: Store) -> None:
    calls: list[int] = []

    def flaky(target: Store) -> None:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("interrupted")

    revision = Revision(1, "ragfunnel_flaky", "flaky", (), flaky)
    with contextlib.suppress(RuntimeError):
        migrate(store, revisions=(revision,))
    assert applied_revision(store) == 0  # no marker row for an unfinished revision
    assert [r.number for r in migrate(store, revisions=(revision,)).applied] == [1]
    assert calls == [1, 1]
