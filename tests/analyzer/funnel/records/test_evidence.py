"""Each instance's evidence (``records/evidence.py``): index truth and its staleness, and a flat
``all_of`` / ``any_of`` deciding where the question failed."""

from __future__ import annotations

from ragfunnel.analyzer.store import Store
from tests.support.decisions import A_ID, B_ID, RIGHT, WRONG, Q, case, filler, one, ranked, run
from tests.support.traces import TraceBuilder


def test_all_of_fails_at_the_most_upstream_loss(store: Store, b: TraceBuilder) -> None:
    cands = ranked(30, **{A_ID: 2, B_ID: 25})
    reranked = [*filler(5, 100), A_ID]  # A_ID given to the reranker and moved to 6
    with b.question("q-017", Q) as q:
        q.retrieve(cands)
        q.rerank(reranked, input_ids=cands[:20])
        q.cut(reranked[:5], k=5)
        q.generate(reranked[:5], WRONG)
    r = one(run(store, b))
    ev = {e["id"]: e for e in r["evidence"]}
    assert ev[A_ID]["lost_at"] == "rerank" and ev[B_ID]["lost_at"] == "search"
    assert (r["first_failure"], r["failure_reason"]) == ("search", "rank 25 beyond rerank depth 20")


def test_any_of_fails_where_the_last_alternative_was_lost(store: Store, b: TraceBuilder) -> None:
    cands = ranked(30, **{A_ID: 2, B_ID: 25})
    reranked = [*filler(5, 100), A_ID]
    with b.question("q-017", Q) as q:
        q.retrieve(cands)
        q.rerank(reranked, input_ids=cands[:20])
        q.cut(reranked[:5], k=5)
        q.generate(reranked[:5], WRONG)
    r = one(run(store, b, case({"any_of": [A_ID, B_ID]})))
    assert (r["first_failure"], r["failure_reason"]) == ("rerank", "moved from rank 2 to 6 > 5")
    assert r["failure_item"] == A_ID


def test_any_of_with_one_alternative_in_prompt_lets_the_answer_decide(
    store: Store, b: TraceBuilder
) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve(ranked(30, **{A_ID: 2}))
        q.generate(ranked(30, **{A_ID: 2})[:5], RIGHT)
    r = one(run(store, b, case({"any_of": [A_ID, B_ID]})))
    assert r["first_failure"] == "ok"


def test_stale_index_truth_is_flagged_and_overruled(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], RIGHT)
    r = one(run(store, b, index_manifest=[A_ID]))
    assert r["first_failure"] == "ok" and "index_truth_stale" in r["flags"]
    assert all(e["in_index"] for e in r["evidence"])
