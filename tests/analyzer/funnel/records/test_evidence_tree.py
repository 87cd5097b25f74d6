"""Nested evidence groups folded up their tree (``records/evidence_tree.py``)."""

from __future__ import annotations

import polars as pl
import pytest

from ragfunnel.analyzer.cases import CaseSet
from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.funnel.records.evidence_tree import NODE_SCHEMA, evaluate, node_table
from ragfunnel.analyzer.store import Store
from tests.support.decisions import A_ID, B_ID, WRONG, Q, case, one, ranked
from tests.support.traces import TraceBuilder


def test_nested_groups(store: Store, b: TraceBuilder) -> None:
    c_id = "faq#reset"
    cands = ranked(30, **{A_ID: 1, B_ID: 12, c_id: 3})
    with b.question("q-017", Q) as q:
        q.retrieve(cands)
        q.generate(cands[:5], WRONG)
    b.into(store)
    # all_of[A, any_of[B, C]]: C (rank 3) is in the prompt, so the any_of survives and the
    # answer decides.
    survives = case({"all_of": [A_ID, {"any_of": [B_ID, c_id]}]})
    assert one(analyze(store, CaseSet.of([survives])))["first_failure"] == "generation"
    # any_of[all_of[A, B], all_of[B, M]]: the first group loses B at search (code 2), the
    # second also loses M, never retrieved without index truth (code 1, further upstream);
    # the any_of keeps the alternative that got furthest: search, decided by B.
    lost = case({"any_of": [{"all_of": [A_ID, B_ID]}, {"all_of": [B_ID, "missing#1"]}]})
    r = one(analyze(store, CaseSet.of([lost])))
    assert (r["first_failure"], r["failure_reason"]) == ("search", "rank 12 > prompt cut at 5")
    assert r["failure_item"] == B_ID


# --- the node table and the two folds on hand-built values ------------------------------------

NESTED = case({"all_of": ["a", {"any_of": ["b", "c"]}, "b"]})  # "b" twice: one item slot
FLAT = case({"any_of": ["x", "y"]})


def test_the_node_table_lists_parents_before_children() -> None:
    nodes = node_table([(4, NESTED), (7, case(answerable=False)), (9, FLAT)])
    rows = nodes.select("case_idx", "node", "parent", "kind", "j", "order", "depth").rows()
    assert rows == [
        (4, 0, -1, "all", -1, 0, 0),
        (4, 1, 0, "leaf", 0, 0, 1),
        (4, 2, 0, "any", -1, 1, 1),
        (4, 3, 2, "leaf", 1, 0, 2),
        (4, 4, 2, "leaf", 2, 1, 2),
        (4, 5, 0, "leaf", 1, 2, 1),  # the repeated id shares its slot
        (9, 0, -1, "any", -1, 0, 0),
        (9, 1, 0, "leaf", 0, 0, 1),
        (9, 2, 0, "leaf", 1, 1, 1),
    ]  # the unanswerable case has no tree
    assert dict(nodes.schema) == NODE_SCHEMA


def leaves(values: dict[tuple[int, int], list[float]]) -> pl.DataFrame:
    """Per-item values: {(case_idx, j): [value of instance 0, value of instance 1, ...]}."""
    rows = [(inst, case_idx, j, value) for (case_idx, j), per in values.items()
            for inst, value in enumerate(per)]  # fmt: skip
    return pl.DataFrame(rows, schema=["inst", "case_idx", "j", "value"], orient="row").with_columns(
        pl.col("case_idx").cast(pl.UInt32), pl.col("j").cast(pl.Int32)
    )


def test_survival_takes_the_first_loss_of_all_of_and_the_last_of_any_of() -> None:
    nodes = node_table([(0, NESTED)])
    # Instance 0: a in the prompt (5), b lost at search (2), c at rerank (3): any_of[b, c] = 3,
    # all_of[a, 3, b] = 2 decided by b. Instance 1: a lost at ingestion (0) decides.
    # Instance 2: ties go to the earlier child: all 5, decided by a.
    values = {(0, 0): [5, 0, 5], (0, 1): [2, 4, 5], (0, 2): [3, 1, 5]}
    out = evaluate(leaves(values), nodes, how="survival").sort("inst")
    assert out.rows() == [(0, 2.0, 1), (1, 0.0, 0), (2, 5.0, 0)]


def test_recall_averages_all_of_and_takes_the_best_of_any_of() -> None:
    nodes = node_table([(0, NESTED)])
    values = {(0, 0): [1, 0], (0, 1): [0, 0], (0, 2): [1, 0]}
    out = evaluate(leaves(values), nodes, how="recall").sort("inst")
    # all_of[a, any_of[b, c], b]: (1 + 1 + 0) / 3, then nothing found.
    assert out.columns == ["inst", "value"]
    assert out.get_column("value").to_list() == pytest.approx([2 / 3, 0.0])


def test_the_value_column_can_be_named_and_any_of_at_the_root() -> None:
    nodes = node_table([(3, FLAT)])
    frame = leaves({(3, 0): [2], (3, 1): [4]}).rename({"value": "code"})
    assert evaluate(frame, nodes, how="survival", value="code").rows() == [(0, 4.0, 1)]
