"""Migrations: numbered revisions, applied once, superseded objects dropped; `ragfunnel store`."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragfunnel.analyzer.cli import app
from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.dsn import quote
from ragfunnel.analyzer.store.inventory import inventory
from ragfunnel.analyzer.store.migrations import (
    CURRENT_REVISION,
    MARKER_TABLE,
    REVISIONS,
    Revision,
    applied_revision,
    migrate,
    stage_table_ready,
)
from ragfunnel.analyzer.store.part_format import COMPACT_PARTS
from ragfunnel.analyzer.store.tables.judge_cache import CACHE_TABLE
from ragfunnel.analyzer.store.tables.stage_spans import STAGE_TABLE, VIEW_NAME, stage_table
from ragfunnel.analyzer.store.tables.verdicts import LEGACY_VERDICTS_TABLE, VERDICTS_TABLE
from tests.support.traces import TraceBuilder


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


def spans(b: TraceBuilder, n: int) -> None:
    for i in range(n):
        with b.question(f"q-{i}", f"question {i}") as q:
            q.retrieve([f"c{i}", "x"], top_k=2)


def test_migrate_creates_every_object_once_and_backfills(store: Store) -> None:
    b = TraceBuilder()
    spans(b, 3)
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
    spans(b, 1)
    b.into(store)  # the view feeds the table from now on
    assert store.command(count) == 8


def test_ingest_migrates_the_embedded_store_before_it_inserts(tmp_path: Path) -> None:
    # The embedded store is the user's: its view parses spans as they arrive, so the first
    # analysis finds the stage table current instead of backfilling it from every span.
    b = TraceBuilder()
    spans(b, 3)
    with Store.open(f"chdb://{tmp_path / 'own'}", create=True) as opened:
        ingest_spans(opened, b.spans)
        assert applied_revision(opened) == 1 and stage_table_ready(opened)
        assert opened.command(f"SELECT count() FROM {stage_table(opened)}") == 6
        engines = opened.query_arrow(
            "SELECT engine_full FROM system.tables WHERE database = {db:String} "
            "AND name IN ('otel_traces', {stage:String})",
            {"db": opened.database, "stage": STAGE_TABLE},
        ).column("engine_full")
        # Every part stays compact however large it grows (store/part_format.py).
        assert [COMPACT_PARTS in engine for engine in engines.to_pylist()] == [True, True]


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


def test_inventory_lists_objects_rows_revision_and_leftovers(store: Store) -> None:
    b = TraceBuilder()
    spans(b, 2)
    b.into(store)
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


def test_store_migrate_and_info_commands(tmp_path: Path) -> None:
    dsn = f"chdb://{tmp_path / 'st'}"
    runner = CliRunner()
    missing = runner.invoke(app, ["store", "info", "--store", dsn])
    assert missing.exit_code == 1
    assert missing.stderr.startswith("ragfunnel store info: there is no store at")
    assert "(--store or RAGFUNNEL_STORE)" in missing.stderr

    with Store.open(dsn, create=True) as opened:
        b = TraceBuilder()
        spans(b, 2)
        b.into(opened)
    info = runner.invoke(app, ["store", "info", "--store", dsn])
    assert info.exit_code == 0, info.output
    assert f"revision 0 of {CURRENT_REVISION} (ragfunnel store migrate)" in info.stdout
    assert "MergeTree, 4 rows" in info.stdout and "absent" in info.stdout

    first = runner.invoke(app, ["store", "migrate", "--store", dsn])
    assert first.exit_code == 0, first.output
    assert f"revision 1: stage-span table {STAGE_TABLE}" in first.stdout
    assert f"revision 2: judges' verdicts table {LEGACY_VERDICTS_TABLE}" in first.stdout
    assert (
        f"revision 3: verdicts table {VERDICTS_TABLE} with each claim's confidence" in first.stdout
    )
    assert f"revision 0 → {CURRENT_REVISION}" in first.stdout
    second = runner.invoke(app, ["store", "migrate", "--store", dsn])
    assert f"at revision {CURRENT_REVISION}, nothing to do" in second.stdout
    info = runner.invoke(app, ["store", "info", "--store", dsn])
    assert "view attached: new spans are parsed as they arrive" in info.stdout
    assert "absent" not in info.stdout


def test_store_subcommands_show_examples() -> None:
    runner = CliRunner()
    for name in ("migrate", "info"):
        result = runner.invoke(app, ["store", name, "--help"], env={"COLUMNS": "120"})
        assert result.exit_code == 0, result.output
        assert "Example" in result.output and f"ragfunnel store {name}" in result.output
