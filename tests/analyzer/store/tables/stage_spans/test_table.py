"""``store/tables/stage_spans/table.py``: the stage table, its view and backfill, and its reads."""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.part_format import PART_SETTINGS
from ragfunnel.analyzer.store.schema import table_columns
from ragfunnel.analyzer.store.tables.stage_spans import (
    STAGE_COLUMNS,
    STAGE_TABLE,
    TRACE_HASH,
    VIEW_NAME,
    answer_traces,
    create_stage_spans,
    generate_answers,
    ranked_ids,
    run_ids,
    run_versions,
    stage_table,
    time_range,
    view_ddl,
)
from tests.support.traces import TraceBuilder


@pytest.fixture
def staged(store: Store) -> Store:
    """Two runs: run-1 asks two questions (one answered), run-2 one, with another index."""
    b = TraceBuilder()
    with b.question("q-1", "What?", run="run-1", index_version="v1") as q:
        q.retrieve(["d#1", "d#2"], top_k=2)
        q.generate(["d#1"], "An answer.")
        q.generate(["d#1"], "Without context.", mode="closed_book")
    with b.question("q-2", "Why?", run="run-1", index_version="v1") as q:
        q.retrieve(["d#3"], top_k=1)
    with b.question("q-3", "How?", run="run-2", index_version="v2") as q:
        q.retrieve(["e#1"], top_k=1)
        q.generate(["e#1"], "Failed.", error="timeout")
    b.as_collector_into(store)
    create_stage_spans(store)
    return store


def _count(store: Store) -> int:
    found = store.command(f"SELECT count() FROM {stage_table(store)}")
    assert isinstance(found, int)
    return found


def test_the_statements_name_the_table_its_view_and_the_traces_they_read() -> None:
    table, view = view_ddl("db", "`db`.`spans`")
    assert table.startswith(f"CREATE TABLE IF NOT EXISTS `db`.`{STAGE_TABLE}` (")
    assert "ORDER BY (Bucket, Stage, QuestionKey, TraceId, Timestamp)" in table
    assert PART_SETTINGS not in table
    assert view.startswith(f"CREATE MATERIALIZED VIEW IF NOT EXISTS `db`.`{VIEW_NAME}` TO ")
    assert "FROM `db`.`spans`" in view
    compact, _ = view_ddl("db", "`db`.`spans`", compact_parts=True)
    assert compact.endswith(f"SETTINGS {PART_SETTINGS}")


def test_the_table_has_the_layout_s_columns_and_is_backfilled_once(staged: Store) -> None:
    found = table_columns(staged, STAGE_TABLE)
    assert list(found) == [name for name, _ in STAGE_COLUMNS]
    assert _count(staged) == 9  # 3 questions, 3 retrieves, 3 generates (two of q-1)
    create_stage_spans(staged)  # again, as an interrupted backfill resumes: nothing doubled
    assert _count(staged) == 9
    b = TraceBuilder()
    with b.question("q-4", "When?", run="run-3") as q:
        q.retrieve(["f#1"], top_k=1)
    b.as_collector_into(staged)  # the view parses what arrives after
    assert _count(staged) == 11


def test_runs_and_time_range(staged: Store) -> None:
    table = stage_table(staged)
    assert run_ids(staged, table) == ["run-1", "run-2"]
    assert run_ids(staged, table, question_spans=True) == ["run-1", "run-2"]
    low, high = time_range(staged)  # type: ignore[misc]
    row = staged.query_arrow(
        "SELECT toUnixTimestamp64Nano(min(Timestamp)) AS a, "
        f"toUnixTimestamp64Nano(max(Timestamp)) AS b FROM {table}"
    ).to_pylist()[0]
    assert (low, high) == (row["a"], row["b"]) and low < high


def test_an_empty_stage_table_has_no_time_range(store: Store) -> None:
    create_stage_spans(store)
    assert time_range(store) is None
    assert run_ids(store, stage_table(store)) == []


def test_the_answer_the_funnel_counts_per_question_and_mode(staged: Store) -> None:
    table = stage_table(staged)
    answers = generate_answers(staged, table)
    assert answers.height == 1  # q-3's generate failed, q-2 has none; closed_book not asked
    [answer] = answers.to_dicts()
    assert (answer["QuestionKey"], answer["Mode"]) == ("q-1", "pipeline")
    span_id, run, _, text, has_answer, *_ = answer["primary"].values()
    assert (run, text, has_answer) == ("run-1", "An answer.", 1) and len(span_id) == 16
    both = generate_answers(staged, table, modes=("pipeline", "closed_book"))
    assert sorted(both.get_column("Mode")) == ["closed_book", "pipeline"]
    assert generate_answers(staged, table, runs=["run-2"]).is_empty()
    assert generate_answers(staged, table, runs=["run-1"]).height == 1
    traces = answer_traces(staged, table)
    [hashed] = (
        staged.query_arrow(
            f"SELECT {TRACE_HASH} AS h FROM (SELECT {{t:String}} AS TraceId)",
            {"t": answer["TraceId"]},
        )
        .column("h")
        .to_pylist()
    )
    assert traces.to_dicts() == [{"TraceHash": hashed, "Pipeline": 1}]
    assert generate_answers(staged, table, trace_hashes=[hashed]).to_dicts() == [answer]
    assert generate_answers(staged, table, trace_hashes=[hashed + 1]).is_empty()
    assert generate_answers(staged, table, traces=["0" * 32]).is_empty()


def test_a_trace_is_ranked_when_every_one_of_its_strings_was_listed(staged: Store) -> None:
    table = stage_table(staged)
    by_question = {
        str(r["QuestionKey"]): str(r["TraceId"])
        for r in staged.query_arrow(
            f"SELECT DISTINCT QuestionKey, TraceId FROM {table} WHERE Stage = 'question'"
        ).to_pylist()
    }
    first, second = by_question["q-1"], by_question["q-2"]
    assert ranked_ids(staged, table, {first: ["d#1", "d#2"], second: ["d#1"]}) == {first}
    assert ranked_ids(staged, table, {first: ["d#1", "zzz"]}) == set()
    assert ranked_ids(staged, table, {}) == set()


def test_run_versions_count_questions_per_index_version(staged: Store) -> None:
    table = stage_table(staged)
    found = run_versions(staged, table, ["run-1", "run-2"]).to_dicts()
    assert found == [
        {"run_id": "run-1", "index_version": "v1", "questions": 2},
        {"run_id": "run-2", "index_version": "v2", "questions": 1},
    ]
    assert run_versions(staged, table, ["run-2"]).height == 1
    assert run_versions(staged, table, []).height == 2  # no runs: every run
