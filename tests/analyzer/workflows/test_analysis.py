"""``workflows/analysis.py``: a store's funnel with cases, its shapes without, one question's, and
the abstention sweep; runs and k as lists or tuples."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragfunnel.analyzer.cases import CaseSet
from ragfunnel.analyzer.errors import AnalyzerError
from ragfunnel.analyzer.funnel import FunnelResult, Shapes
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.workflows import (
    analyze_store,
    question_funnel,
    thresholds_from_store,
)
from tests.support.decisions import A_ID, B_ID, RIGHT, Q, case, ranked
from tests.support.traces import TraceBuilder


@pytest.fixture
def asked(store: Store) -> Store:
    """The firmware question asked in two runs, both answered from a ranking holding the evidence."""
    b = TraceBuilder()
    for run in ("run-1", "run-2"):
        with b.question("q-017", Q, run=run) as q:
            q.retrieve(ranked(10, **{A_ID: 1, B_ID: 2}), top_k=10)
            q.generate([A_ID, B_ID], RIGHT)
    b.into(store)
    return store


CASES = CaseSet.of([case()])


def test_with_cases_every_questions_funnel_of_the_runs_given(asked: Store) -> None:
    every = analyze_store(asked, CASES)
    assert isinstance(every, FunnelResult) and every.records.height == 2
    for runs in (["run-1"], ("run-1",)):
        one = analyze_store(asked, CASES, runs=runs, k=(5, 1))
        assert isinstance(one, FunnelResult)
        assert one.records.get_column("run_id").to_list() == ["run-1"]
    none_named = analyze_store(asked, CASES, runs=[])
    assert isinstance(none_named, FunnelResult) and none_named.records.height == 2


def test_without_cases_live_traffic_by_shape(asked: Store) -> None:
    found = analyze_store(asked, None)
    assert isinstance(found, Shapes)
    assert isinstance(analyze_store(asked, None, runs=["run-2"]), Shapes)


def test_one_questions_funnel_or_shape(asked: Store) -> None:
    one = question_funnel(asked, CASES, "q-017", runs=["run-2"])
    assert isinstance(one, FunnelResult)
    assert one.records.get_column("question_id").to_list() == ["q-017"]
    assert isinstance(question_funnel(asked, None, "q-017"), Shapes)


def test_a_chunk_file_is_read_for_the_cases_quotes(asked: Store, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-chunks.jsonl"
    with pytest.raises(AnalyzerError, match=f"{missing}: no such chunk file"):
        analyze_store(asked, CASES, chunks=missing)


def test_the_threshold_sweep_tells_its_steps(asked: Store) -> None:
    steps: list[str] = []
    found = thresholds_from_store(
        asked, CASES, runs=("run-1",), cost_ratio=2.0, progress=steps.append
    )
    assert steps == ["rebuilding every question's funnel", "sweeping the threshold"]
    assert found.abstention.cost_ratio == 2.0
    assert found.abstention.sweep.get_column("run_id").unique().to_list() == ["run-1"]
    assert list(found.abstention.recommended) == ["run-1"]
    assert isinstance(found.notices, tuple)
