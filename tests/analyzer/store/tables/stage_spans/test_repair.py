"""``store/tables/stage_spans/repair.py``: the stage table checked and repaired against ``otel_traces``.

A killed ingest leaves the two tables out of step: stage rows missing (the table committed, the
view did not), stage rows of spans ``otel_traces`` lacks (the view committed, the table did not),
or repeated rows. Each case is made here by hand on a real store, then counted and repaired.
"""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.migrations import migrate
from ragfunnel.analyzer.store.tables.stage_spans import stage_table
from ragfunnel.analyzer.store.tables.stage_spans.repair import (
    REPAIR_HINT,
    StageCheck,
    StageMender,
    check_stage,
    repair_stage,
)
from tests.support.recorder import recording
from tests.support.traces import TraceBuilder, few_questions


@pytest.fixture
def prepared(store: Store) -> Store:
    """A migrated store whose view parsed three questions: six stage spans, in step."""
    migrate(store)
    b = TraceBuilder()
    few_questions(b, 3)
    b.as_collector_into(store)
    return store


def _traces(store: Store) -> list[str]:
    found = store.query_arrow(f"SELECT DISTINCT TraceId FROM {store.traces_table} ORDER BY 1")
    return [str(t) for t in found.column("TraceId").to_pylist()]


def _stage_keys(store: Store) -> list[tuple[str, str]]:
    rows = store.query_arrow(
        f"SELECT TraceId, SpanId FROM {stage_table(store)} ORDER BY TraceId, SpanId"
    ).to_pylist()
    return [(r["TraceId"], r["SpanId"]) for r in rows]


def _stored_keys(store: Store) -> list[tuple[str, str]]:
    rows = store.query_arrow(
        f"SELECT TraceId, SpanId FROM {store.traces_table} ORDER BY TraceId, SpanId"
    ).to_pylist()
    return [(r["TraceId"], r["SpanId"]) for r in rows]


def test_without_a_stage_table_there_is_nothing_to_check(store: Store) -> None:
    assert check_stage(store) is None
    assert repair_stage(store) is None


def test_a_stage_table_in_step_is_left_as_it_is(prepared: Store) -> None:
    found = check_stage(prepared)
    assert found == StageCheck(expected=6, rows=6, missing=0, extra=0) and found.consistent
    assert found.describe() == "stage table in step with otel_traces: 6 stage spans"
    with recording(prepared) as recorder:
        assert repair_stage(prepared) == found
    assert all(s.lstrip().startswith("SELECT") for s in recorder.statements)  # only the check


def test_missing_stage_rows_are_counted_and_parsed_back(prepared: Store) -> None:
    before = _stage_keys(prepared)
    lost = _traces(prepared)[0]
    prepared.command(
        f"DELETE FROM {stage_table(prepared)} WHERE TraceId = {{t:String}}", {"t": lost}
    )
    found = check_stage(prepared)
    assert found == StageCheck(expected=6, rows=4, missing=2, extra=0)
    assert not found.consistent
    assert found.describe() == (
        "stage table out of step with otel_traces (an ingest was interrupted?): 6 stage spans "
        f"stored, 4 stage rows, 2 missing, 0 extra — {REPAIR_HINT}"
    )
    assert repair_stage(prepared) == found  # what was found before
    assert _stage_keys(prepared) == before
    assert check_stage(prepared) == StageCheck(6, 6, 0, 0)


def test_repeated_rows_and_rows_of_unstored_spans_are_removed(prepared: Store) -> None:
    stage = stage_table(prepared)
    first, second = _traces(prepared)[:2]
    prepared.command(  # a repeated insert of one trace's rows
        f"INSERT INTO {stage} SELECT * FROM {stage} WHERE TraceId = {{t:String}}", {"t": first}
    )
    prepared.command(  # the spans of another trace lost from otel_traces, kept by the view
        f"DELETE FROM {prepared.traces_table} WHERE TraceId = {{t:String}}", {"t": second}
    )
    found = check_stage(prepared)
    assert found == StageCheck(expected=4, rows=8, missing=0, extra=4)
    repair_stage(prepared)
    assert _stage_keys(prepared) == _stored_keys(prepared)  # once each, and nothing else
    assert check_stage(prepared) == StageCheck(4, 4, 0, 0)


def test_a_repair_run_again_finds_nothing_to_do(prepared: Store) -> None:
    prepared.command(f"TRUNCATE TABLE {stage_table(prepared)}")
    assert repair_stage(prepared) == StageCheck(6, 0, 6, 0)
    assert repair_stage(prepared) == StageCheck(6, 6, 0, 0)


def _window(store: Store, traces: list[str]) -> dict[str, object]:
    row = store.query_arrow(
        "SELECT toUnixTimestamp64Nano(min(Timestamp)) AS low, "
        f"toUnixTimestamp64Nano(max(Timestamp)) AS high FROM {store.traces_table} "
        "WHERE TraceId IN {ids:Array(String)}",
        {"ids": traces},
    ).to_pylist()[0]
    return {"low": int(row["low"]), "high": int(row["high"]), "ids": traces}


def test_the_mender_drops_stage_rows_of_spans_about_to_be_inserted(prepared: Store) -> None:
    first, second = _traces(prepared)[:2]
    window = _window(prepared, [first, second])
    prepared.command(  # killed after the view committed, before otel_traces did
        f"DELETE FROM {prepared.traces_table} WHERE TraceId = {{t:String}}", {"t": first}
    )
    new_keys = [t + s for t, s in _stage_keys(prepared) if t == first]
    mender = StageMender(prepared)
    mender.drop_strays(window, [])  # nothing about to be inserted: nothing to do
    assert mender.deleted == 0 and len(_stage_keys(prepared)) == 6
    mender.drop_strays(window, new_keys)
    assert mender.deleted == 2
    assert [t for t, _ in _stage_keys(prepared)].count(first) == 0
    assert len(_stage_keys(prepared)) == 4  # the other traces' rows are kept
    mender.drop_strays(window, new_keys)  # gone already
    assert mender.deleted == 2


def test_the_mender_restores_stored_spans_the_view_never_saw(prepared: Store) -> None:
    first, second, third = _traces(prepared)
    prepared.command(
        f"DELETE FROM {stage_table(prepared)} WHERE TraceId IN {{t:Array(String)}}",
        {"t": [first, third]},
    )
    StageMender(prepared).restore(_window(prepared, [first, second]))
    traces = [t for t, _ in _stage_keys(prepared)]
    assert traces.count(first) == 2  # restored, once
    assert traces.count(second) == 2  # already there: not doubled
    assert traces.count(third) == 0  # not in the chunk's traces: left to the whole-store repair
