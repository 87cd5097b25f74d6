"""Nested evidence groups folded up their tree (``records/evidence_tree.py``)."""

from __future__ import annotations

from ragfunnel.analyzer.cases import CaseSet
from ragfunnel.analyzer.funnel import analyze
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
