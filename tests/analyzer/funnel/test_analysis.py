"""``analyze`` itself (``analysis.py``): its options."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ragfunnel.analyzer.cases import Case, CaseSet, parse_evidence
from ragfunnel.analyzer.errors import InvalidArgument
from ragfunnel.analyzer.funnel import DEFAULT_K, analyze
from ragfunnel.analyzer.funnel.analysis import case_tables
from ragfunnel.analyzer.store import Store
from tests.support.decisions import A_ID, B_ID, RIGHT, WRONG, Q, case, ranked, run
from tests.support.traces import TraceBuilder


def test_question_filter_returns_one_cases_records(store: Store, b: TraceBuilder) -> None:
    for qid in ("q-017", "q-018"):
        with b.question(qid, Q if qid == "q-017" else "Other?") as q:
            q.retrieve([A_ID, B_ID])
            q.generate([A_ID, B_ID], RIGHT)
    other = Case("q-018", "Other?", parse_evidence([A_ID]))
    result = run(store, b, case(), other, question="q-018")
    assert result.records.get_column("question_id").to_list() == ["q-018"]
    assert result.cases_without_trace == ()


def two_runs(b: TraceBuilder) -> None:
    """q-017 asked in run-1 (right) and run-2 (wrong); nothing ingested."""
    for run_id, answer in (("run-1", RIGHT), ("run-2", WRONG)):
        with b.question("q-017", Q, run=run_id) as q:
            q.retrieve(ranked(10, **{A_ID: 1, B_ID: 2}))
            q.generate([A_ID, B_ID], answer)


def test_runs_and_k_are_taken_from_any_iterable(store: Store) -> None:
    # Not a read-path scenario (tests/analyzer/test_read_path.py): a generator is read once.
    b = TraceBuilder()
    two_runs(b)
    b.into(store)
    cases = CaseSet.of(iter([case()]))
    result = analyze(store, cases, run=(r for r in ["run-2"]), k=(k for k in [5, 1, 5]))
    assert result.records.get_column("run_id").to_list() == ["run-2"]
    assert result.k == (1, 5)  # sorted, each once
    assert {c for c in result.records.columns if c.startswith("recall_at_")} == {
        "recall_at_cut", "recall_at_1", "recall_at_5",
    }  # fmt: skip
    assert set(result.metrics.get_column("at")) == {"cut", "1", "5"}
    both = analyze(store, cases, run=["run-1", "run-2"], k=3)
    assert sorted(both.records.get_column("run_id")) == ["run-1", "run-2"] and both.k == (3,)
    assert analyze(store, cases).k == DEFAULT_K
    assert both.record("q-017").height == 2 and both.record("q-999").is_empty()


@pytest.mark.parametrize("k", [0, [], [5, -1], "5", [2.5], 2.5, True, [3, None]])
def test_a_bad_k_is_an_invalid_argument_naming_k(store: Store, k: Any) -> None:
    with pytest.raises(InvalidArgument, match=r"k must be positive integers") as caught:
        analyze(store, CaseSet.of([case()]), k=k)
    assert caught.value.argument == "k"


@pytest.mark.parametrize("threshold", [-0.1, 1.5])
def test_a_faithfulness_threshold_outside_0_to_1_is_refused(store: Store, threshold: float) -> None:
    with pytest.raises(InvalidArgument, match="between 0 and 1") as caught:
        analyze(store, CaseSet.of([case()]), faithfulness_threshold=threshold)
    assert caught.value.argument == "faithfulness_threshold"


def test_cases_and_the_manifest_may_be_files(store: Store, tmp_path: Path) -> None:
    b = TraceBuilder()
    with b.question("q-017", Q) as q:
        q.retrieve(ranked(10, **{A_ID: 1}), top_k=10)
        q.generate([A_ID], WRONG)
    b.into(store)
    cases = tmp_path / "cases.yaml"
    cases.write_text(
        f'- id: q-017\n  question: "{Q}"\n  evidence: {{all_of: ["{A_ID}", "{B_ID}"]}}\n'
        '  facts: ["4.2.0", "4.2.1"]\n',
        encoding="utf-8",
    )
    manifest = tmp_path / "ids.txt"
    manifest.write_text(f"{A_ID}\n", encoding="utf-8")
    for given in (manifest, str(manifest), frozenset({A_ID})):
        result = analyze(store, str(cases), index_manifest=given)
        r = result.records.row(0, named=True)
        assert (r["first_failure"], r["failure_item"]) == ("ingestion", B_ID), given
        assert result.index_truth == "index manifest (1 expected id present)"
    without = analyze(store, cases)
    assert without.records.item(0, "first_failure") == "ingestion_or_search"
    assert without.index_truth.startswith("none")


def test_the_case_tables_are_built_once_per_case_set() -> None:
    nested = case({"all_of": [A_ID, {"any_of": [B_ID, "c"]}]}, id="q-n")
    cases = CaseSet.of([case(), nested, Case("q-u", "Unanswerable?", answerable=False)])
    frame, nodes = case_tables(cases)
    assert case_tables(cases)[0] is frame  # cached on the case set
    assert frame.select("case_idx", "question_id", "n_items", "root_kind").rows() == [
        (1, "q-017", 2, "all"), (2, "q-n", 3, "nested"), (3, "q-u", 0, None),
    ]  # fmt: skip
    assert set(nodes.get_column("case_idx")) == {2}  # only the nested tree needs its nodes
    assert "fact_norm_0" in frame.columns  # facts normalised once, for every batch
