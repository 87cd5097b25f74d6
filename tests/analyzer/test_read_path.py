"""The read path never writes: on a read-only store, analyze, funnel, shapes, report and diff send
no CREATE, ALTER, DROP or INSERT, and the analysis they get (parsing otel_traces at read time)
equals the one from the stage table.

docs/deployment.md states the guarantee and the privileges each command needs.
"""

from __future__ import annotations

import inspect
import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from typer.testing import CliRunner

from ragfunnel.analyzer.cases import CaseSet
from ragfunnel.analyzer.cli import app
from ragfunnel.analyzer.funnel import READ_TIME_NOTICE, FunnelResult, Shapes, analyze, shapes
from ragfunnel.analyzer.funnel import analysis as analysis_module
from ragfunnel.analyzer.funnel.read import session as session_module
from ragfunnel.analyzer.store import Store, StoreError
from ragfunnel.analyzer.store.inventory import inventory
from ragfunnel.analyzer.store.migrations import CURRENT_REVISION
from ragfunnel.analyzer.store.tables.stage_spans import STAGE_TABLE

# The one test that imports test modules: it re-runs their trace scenarios at read time.
from tests.analyzer.funnel import test_analysis, test_run_summaries, test_shapes
from tests.analyzer.funnel.read.sql import test_cases, test_instances
from tests.analyzer.funnel.records import (
    test_answer_checks,
    test_decision_table,
    test_evidence,
    test_evidence_tree,
    test_finish,
    test_first_failure,
    test_metrics,
    test_rare_details,
)
from tests.support import decisions as decision_helpers
from tests.support.decisions import A_ID, B_ID, RIGHT, WRONG, Q, case, ranked
from tests.support.recorder import Recorder
from tests.support.traces import TraceBuilder

_STATEMENT = re.compile(r"\s*(\w+)(?:\s+(TEMPORARY))?(?:\s+TABLE)?(?:\s+IF\s+\w+(?:\s+\w+)?)?"
                        r"(?:\s+INTO)?\s+`?([\w.`-]+)?", re.IGNORECASE)  # fmt: skip
_WRITES = {"CREATE", "ALTER", "DROP", "INSERT", "TRUNCATE", "RENAME", "OPTIMIZE", "ATTACH",
           "DETACH", "EXCHANGE", "DELETE", "UPDATE", "GRANT", "REVOKE", "SYSTEM"}  # fmt: skip


def writes(statements: list[str]) -> list[str]:
    """The statements that write to a database: all but the session's temporary tables."""
    temporary: set[str] = set()
    found = []
    for sql in statements:
        match = _STATEMENT.match(sql)
        assert match, sql
        verb, is_temporary, target = match.group(1).upper(), match.group(2), match.group(3) or ""
        target = target.strip("`")
        if verb not in _WRITES:
            continue
        if verb in ("CREATE", "DROP") and is_temporary:
            temporary.add(target)
        elif not (verb == "INSERT" and target in temporary):
            found.append(sql)
    return found


@pytest.fixture(autouse=True)
def collector_filled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spans arrive as a collector writes them: ``ingest`` would migrate the embedded store."""
    monkeypatch.setattr(TraceBuilder, "into", TraceBuilder.as_collector_into)


@pytest.fixture
def read_only(store: Store, store_path: Path) -> Iterator[tuple[Store, Recorder]]:
    """The test's store again, opened read-only, with every statement recorded."""
    with Store.open(f"chdb://{store_path}", database=store.database, read_only=True) as opened:
        recorder = Recorder(opened.client)
        opened.client = recorder
        yield opened, recorder
        opened.client = recorder._client


@pytest.fixture
def b() -> TraceBuilder:
    return TraceBuilder()


def several_questions(b: TraceBuilder) -> CaseSet:
    """Four questions that fail in different places, and an ingest span for index truth."""
    b.ingest("release-notes-4.2", [A_ID, "f1", "f2"])
    with b.question("q-017", Q) as q:
        q.retrieve(ranked(20, **{A_ID: 2, B_ID: 15}), top_k=20)
        q.cut(ranked(20, **{A_ID: 2, B_ID: 15})[:5], k=5)
        q.generate(ranked(20, **{A_ID: 2, B_ID: 15})[:5], WRONG)
    with b.question("q-018", "Who resets the firmware?") as q:
        q.retrieve(ranked(10, **{A_ID: 1, B_ID: 2}), top_k=10)
        q.generate(ranked(10, **{A_ID: 1, B_ID: 2})[:3], RIGHT)
    with b.question("q-019", "Which runbook?", run="run-2") as q:
        q.retrieve(ranked(10), top_k=10)
        q.generate(ranked(10)[:3], WRONG)
    with b.question("q-live", "No case for me") as q:
        q.retrieve(ranked(5), top_k=5)
    cases = [case(), case(id="q-018", question="Who resets the firmware?"),
             case(id="q-019", question="Which runbook?")]  # fmt: skip
    return CaseSet.of(cases)


ROW_KEY = ("run_id", "question_id", "trace_id", "question_key", "mode", "occurrence", "started")
"""What tells two records apart: their order is the engine's (a parallel GROUP BY), not a promise."""


def _by_key(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.sort([c for c in ROW_KEY if c in frame.columns], nulls_last=True)


def assert_same_analysis(one: FunnelResult, other: FunnelResult) -> None:
    assert_frame_equal(_by_key(one.records), _by_key(other.records))
    for name in ("failures", "metrics"):
        assert_frame_equal(getattr(one, name), getattr(other, name))
    for name in ("index_truth", "k", "unmatched_questions", "unmatched_examples",
                 "cases_without_trace"):  # fmt: skip
        assert getattr(one, name) == getattr(other, name), name


def assert_same_shapes(one: Shapes, other: Shapes) -> None:
    assert_frame_equal(_by_key(one.records), _by_key(other.records))
    assert_frame_equal(one.summary, other.summary)


def test_analyze_funnel_and_shapes_on_a_read_only_store_write_nothing(
    store: Store, b: TraceBuilder, read_only: tuple[Store, Recorder]
) -> None:
    cases = several_questions(b)
    b.into(store)
    reader, recorder = read_only
    before = inventory(reader)

    result = analyze(reader, cases, k=[1, 5])
    one = analyze(reader, cases, question="q-017")  # what `ragfunnel funnel q-017` runs
    live = shapes(reader)
    single = shapes(reader, question="q-live")

    assert recorder.statements, "nothing was recorded: the recorder is not in the path"
    assert writes(recorder.statements) == []
    assert inventory(reader) == before
    assert not before.stage_table_current and before.object(STAGE_TABLE) is not None
    assert not before.object(STAGE_TABLE).exists  # type: ignore[union-attr]
    for found in (result, one, live, single):
        assert found.notices == (READ_TIME_NOTICE,)
    assert result.records.height == 3 and one.records.height == 1
    assert live.records.height == 4 and single.records.height == 1


def test_threshold_reasons_survive_many_batches_at_read_time(
    store: Store,
    b: TraceBuilder,
    read_only: tuple[Store, Recorder],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each batch's item scores come from its own funnel pass, while the next batch's pass
    # already runs on the worker thread: they must not be mixed up.
    monkeypatch.setattr(session_module, "READ_TIME_BATCH_INSTANCES", 2)
    monkeypatch.setattr(session_module, "BATCH_INSTANCES", 2)
    build, funnel = analysis_module.build_batch, session_module.Session.funnel
    fetched, built = [0], [0]

    def counted_funnel(self: Any, *args: Any, **kwargs: Any) -> pl.DataFrame:
        rows = funnel(self, *args, **kwargs)
        fetched[0] += 1
        return rows

    def late_build(*args: Any, **kwargs: Any) -> pl.DataFrame:
        # Build a batch only once the worker has fetched the next one (or 2 s have passed,
        # after the last batch): the worst order for anything the two share.
        built[0] += 1
        deadline = time.monotonic() + 2
        while fetched[0] <= built[0] and time.monotonic() < deadline:
            time.sleep(0.01)
        return build(*args, **kwargs)

    monkeypatch.setattr(session_module.Session, "funnel", counted_funnel)
    monkeypatch.setattr(analysis_module, "build_batch", late_build)
    cands = ranked(10, **{A_ID: 1, B_ID: 3})
    scores = [0.9, 0.8, 0.2, 0.1, 0.05, 0.04, 0.03, 0.02, 0.01, 0.0]
    cases = []
    for i in range(12):
        with b.question(f"q-{i:03d}", f"question {i}") as q:
            q.retrieve(cands, scores=scores)
            q.cut(cands[:2], input_ids=cands, k=5, threshold=0.4)
            q.generate(cands[:2], WRONG)
        cases.append(case(id=f"q-{i:03d}", question=f"question {i}"))
    b.into(store)
    reader, _ = read_only
    at_read_time = analyze(reader, CaseSet.of(cases))
    assert at_read_time.notices == (READ_TIME_NOTICE,)
    reasons = at_read_time.records.get_column("failure_reason").cast(pl.String).to_list()
    assert reasons == ["score 0.2 below threshold 0.4"] * 12
    assert_same_analysis(at_read_time, analyze(store, CaseSet.of(cases)))


def test_the_engine_refuses_writes_on_a_read_only_store(
    store: Store, read_only: tuple[Store, Recorder]
) -> None:
    reader, recorder = read_only
    with pytest.raises(StoreError, match=r"(?i)readonly"):
        reader.command(f"INSERT INTO {reader.traces_table} (TraceId) VALUES ('x')")
    with pytest.raises(StoreError, match=r"(?i)readonly"):
        reader.command(f"CREATE TABLE `{reader.database}`.`x` (a UInt8) ENGINE = Memory")
    assert writes(recorder.statements) == recorder.statements  # the recorder sees writes too
    # The session's own temporary tables still work: the analysis keeps its cases there.
    reader.command("CREATE TEMPORARY TABLE `_probe` (a UInt8) ENGINE = Memory")
    reader.command("DROP TEMPORARY TABLE `_probe`")


def test_read_time_and_stage_table_give_the_same_analysis(
    store: Store, b: TraceBuilder, read_only: tuple[Store, Recorder]
) -> None:
    cases = several_questions(b)
    b.into(store)
    reader, _ = read_only
    read_time = [
        analyze(reader, cases, k=[1, 5]),
        analyze(reader, cases, run="run-2"),
        analyze(reader, cases, question="q-017"),
    ]
    live = shapes(reader)
    assert all(r.notices == (READ_TIME_NOTICE,) for r in read_time)

    table = [  # the writable embedded store is migrated on first use
        analyze(store, cases, k=[1, 5]),
        analyze(store, cases, run="run-2"),
        analyze(store, cases, question="q-017"),
    ]
    assert inventory(store).stage_table_current
    assert all(r.notices == () for r in table)
    for one, other in zip(read_time, table, strict=True):
        assert_same_analysis(one, other)
    assert_same_shapes(live, shapes(store))
    # Once the table is current, a read-only store reads it too.
    assert analyze(reader, cases).notices == ()


def _scenarios(module: Any) -> list[Callable[..., None]]:
    """The module's trace-level tests that take just a store and a trace builder."""
    return [
        test
        for name, test in vars(module).items()
        if name.startswith("test_") and list(inspect.signature(test).parameters) == ["store", "b"]
    ]


SCENARIO_MODULES = (
    test_decision_table,
    test_answer_checks,
    test_first_failure,
    test_evidence,
    test_evidence_tree,
    test_rare_details,
    test_finish,
    test_metrics,
    test_instances,
    test_cases,
    test_run_summaries,
    test_shapes,
    test_analysis,
)
"""The funnel's test modules whose trace-level tests are re-run here at read time."""
SCENARIOS = [scenario for module in SCENARIO_MODULES for scenario in _scenarios(module)]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.__name__[5:] for s in SCENARIOS])
def test_every_trace_scenario_gives_the_same_analysis_at_read_time(
    scenario: Callable[..., None],
    store: Store,
    store_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each scenario's own assertions check the stage table's result; every analysis it runs is
    # first run at read time on a read-only twin of the store, and must come out the same.
    notices: list[tuple[str, ...]] = []

    def both_analyze(target: Store, cases: Any, **kw: Any) -> FunnelResult:
        with Store.open(f"chdb://{store_path}", database=target.database, read_only=True) as ro:
            read_time = analyze(ro, cases, **kw)
        notices.append(read_time.notices)
        from_table = analyze(target, cases, **kw)
        assert_same_analysis(read_time, from_table)
        return from_table

    def both_shapes(target: Store, **kw: Any) -> Shapes:
        with Store.open(f"chdb://{store_path}", database=target.database, read_only=True) as ro:
            read_time = shapes(ro, **kw)
        notices.append(read_time.notices)
        from_table = shapes(target, **kw)
        assert_same_shapes(read_time, from_table)
        return from_table

    monkeypatch.setattr(decision_helpers, "analyze", both_analyze)  # their run() helper
    for module in SCENARIO_MODULES:  # the tests that call analyze or shapes themselves
        if hasattr(module, "analyze"):
            monkeypatch.setattr(module, "analyze", both_analyze)
        if hasattr(module, "shapes"):
            monkeypatch.setattr(module, "shapes", both_shapes)
    scenario(store=store, b=TraceBuilder())
    assert notices and notices[0] == (READ_TIME_NOTICE,)  # the first did parse at read time


def test_the_cli_says_once_that_store_migrate_would_help(b: TraceBuilder, tmp_path: Path) -> None:
    several_questions(b)
    dsn = f"chdb://{tmp_path / 'cli'}"
    with Store.open(dsn, create=True) as opened:
        b.into(opened)
    runner = CliRunner()
    # An embedded store is the user's own: only --read-only keeps analysis from preparing it.
    for command in (["analyze"], ["funnel", "q-live"]):
        result = runner.invoke(app, [*command, "--store", dsn, "--read-only"])
        assert result.exit_code == 0, result.output
        assert result.stderr.count("note:") == 1, result.stderr
        assert f"ragfunnel {command[0]}: note: otel_traces was parsed at read time" in result.stderr
        assert "`ragfunnel store migrate` creates it" in result.stderr
    info = runner.invoke(app, ["store", "info", "--store", dsn])
    assert f"revision 0 of {CURRENT_REVISION} (ragfunnel store migrate)" in info.stdout
    assert "view not attached" in info.stdout

    result = runner.invoke(app, ["analyze", "--store", dsn])
    assert result.exit_code == 0, result.output
    assert "note:" not in result.stderr
    info = runner.invoke(app, ["store", "info", "--store", dsn])
    assert f"revision {CURRENT_REVISION} of {CURRENT_REVISION}\n" in info.stdout
    assert "view attached" in info.stdout


def test_a_bug_keeps_its_traceback(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from ragfunnel.analyzer import funnel as analyze_command  # the command imports it when run

    def broken(*args: Any, **kw: Any) -> Any:
        raise ValueError("a bug in polars")

    monkeypatch.setattr(analyze_command, "shapes", broken)
    with Store.open(f"chdb://{tmp_path / 'bug'}", create=True) as opened:
        assert opened.read_only is False
    result = CliRunner().invoke(app, ["analyze", "--store", f"chdb://{tmp_path / 'bug'}"])
    assert isinstance(result.exception, ValueError)
    assert "a bug in polars" not in result.stderr  # not turned into a one-line user error


def test_shapes_of_an_empty_read_only_store_write_nothing(
    store: Store, read_only: tuple[Store, Recorder]
) -> None:
    reader, recorder = read_only
    found = shapes(reader)
    assert found.records.height == 0
    assert writes(recorder.statements) == []
    assert pl.DataFrame(found.summary).height == 0


def test_report_and_diff_on_a_read_only_store_write_nothing(
    b: TraceBuilder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ragfunnel.analyzer.workflows import report_from_files

    several_questions(b)
    dsn = f"chdb://{tmp_path / 'report'}"
    with Store.open(dsn, create=True) as opened:
        b.into(opened)
    cases_file = tmp_path / "cases.jsonl"
    questions = (("q-017", Q), ("q-018", "Who resets the firmware?"), ("q-019", "Which runbook?"))
    evidence = {"all_of": [A_ID, B_ID]}
    lines = [
        json.dumps({"id": qid, "question": text, "evidence": evidence, "facts": ["4.2.0"]})
        for qid, text in questions
    ]
    cases_file.write_text("\n".join(lines) + "\n")
    recorders: list[Recorder] = []
    real_open = Store.open

    def recording_open(*args: Any, **kw: Any) -> Store:
        store = real_open(*args, **kw)
        recorders.append(Recorder(store.client))
        store.client = recorders[-1]
        return store

    monkeypatch.setattr(Store, "open", recording_open)
    for run in (None, ["run-1"], ["run-2"]):  # what `ragfunnel report` and `ragfunnel diff` run
        done = report_from_files(
            store=dsn, cases=cases_file, runs=run, index_manifest=None, k=None,
            jaeger_url=None, read_only=True, top=20, sample=50,
        )  # fmt: skip
        assert done.result.notices == (READ_TIME_NOTICE,)
    assert len(recorders) == 3 and all(r.statements for r in recorders)
    assert [writes(r.statements) for r in recorders] == [[], [], []]
