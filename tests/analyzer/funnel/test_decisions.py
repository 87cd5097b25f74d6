"""One trace-level test per row of the decision table (docs/funnel.md §3–4), verdicts derived by hand.

Each test builds the question's spans, ingests them, runs ``analyze`` and checks
``first_failure`` and the exact reason. Candidate lists are padded with filler ids ``f1..``.
"""

from __future__ import annotations

from typing import Any

import pytest

from ragfunnel.analyzer.cases import Case, CaseSet
from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.store import Store
from tests.support.decisions import A_ID, B_ID, RIGHT, WRONG, Q, case, filler, one, ranked, run
from tests.support.traces import TraceBuilder


@pytest.fixture
def b() -> TraceBuilder:
    return TraceBuilder()


# --- the worked example of the acceptance criteria -------------------------------------------


def test_firmware_example_fails_at_search_with_the_exact_reason(
    store: Store, b: TraceBuilder
) -> None:
    cands = ranked(50, a=3, b=41)
    cands = [A_ID if x == "a" else B_ID if x == "b" else x for x in cands]
    with b.question("q-017", Q) as q:
        q.retrieve(cands, top_k=50)
        q.cut(cands[:10], input_ids=cands, k=10)
        q.generate(cands[:10], WRONG)
    r = one(run(store, b))
    assert r["first_failure"] == "search"
    assert r["failure_reason"] == "rank 41 > prompt cut at 10"
    assert r["failure_item"] == B_ID
    ev = {e["id"]: e for e in r["evidence"]}
    assert ev[A_ID]["candidate_rank"] == 3 and ev[A_ID]["in_prompt"]
    assert ev[B_ID]["candidate_rank"] == 41 and ev[B_ID]["lost_at"] == "search"
    assert r["trace_id"] and len(r["trace_id"]) == 32


# --- row 1: not in the index → ingestion ------------------------------------------------------


def test_not_indexed_is_ingestion(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve(ranked(10, **{A_ID: 1}), top_k=10)
        q.generate(ranked(10, **{A_ID: 1})[:5], WRONG)
    r = one(run(store, b, index_manifest=[A_ID, "f1", "f2"]))
    assert r["first_failure"] == "ingestion"
    assert r["failure_reason"] == "never indexed (parser, connector, scope)"
    assert r["failure_item"] == B_ID


def test_ingest_spans_give_truth_per_index_version(store: Store, b: TraceBuilder) -> None:
    b.ingest("release-notes-4.2", [A_ID], version="v2")
    b.ingest("runbook-reset", [B_ID], version="v1")  # indexed only in the old version
    with b.question("q-017", Q, index_version="v2") as q:
        q.retrieve(ranked(10, **{A_ID: 1}), top_k=10)
        q.generate([A_ID], WRONG)
    r = one(run(store, b))
    assert r["first_failure"] == "ingestion"
    ev = {e["id"]: e for e in r["evidence"]}
    assert ev[B_ID]["in_index"] is False and ev[A_ID]["in_index"] is True


# --- row 2: indexed, not a candidate → search --------------------------------------------------


def test_indexed_not_retrieved_is_search(store: Store, b: TraceBuilder) -> None:
    b.ingest("release-notes-4.2", [A_ID, B_ID])
    with b.question("q-017", Q) as q:
        q.retrieve(ranked(50, **{A_ID: 2}), top_k=50)
        q.generate([A_ID], WRONG)
    r = one(run(store, b))
    assert (r["first_failure"], r["failure_reason"]) == ("search", "not retrieved (top_k = 50)")


def test_without_index_truth_not_retrieved_is_ingestion_or_search(
    store: Store, b: TraceBuilder
) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve(ranked(20, **{A_ID: 2}))
        q.generate([A_ID], WRONG)
    r = one(run(store, b))
    assert r["first_failure"] == "ingestion_or_search"
    assert r["failure_reason"] == (
        "not retrieved (20 candidates); no index truth (ingest spans or --index-manifest) "
        "to tell ingestion from search"
    )
    assert {e["id"]: e["in_index"] for e in r["evidence"]} == {A_ID: True, B_ID: None}


# --- rows 3–4: a candidate ranked too low → search --------------------------------------------


def test_candidate_beyond_rerank_depth_is_search(store: Store, b: TraceBuilder) -> None:
    cands = ranked(40, **{A_ID: 1, B_ID: 25})
    with b.question("q-017", Q) as q:
        q.retrieve(cands)
        q.rerank(cands[:5], input_ids=cands[:20], top_n=5)
        q.cut(cands[:5], input_ids=cands[:5], k=5)
        q.generate(cands[:5], WRONG)
    r = one(run(store, b, index_manifest=cands))
    assert (r["first_failure"], r["failure_reason"]) == ("search", "rank 25 beyond rerank depth 20")


def test_no_reranker_rank_beyond_k_is_search(store: Store, b: TraceBuilder) -> None:
    cands = ranked(30, **{A_ID: 1, B_ID: 12})
    with b.question("q-017", Q) as q:
        q.retrieve(cands)
        q.generate(cands[:8], WRONG)  # no cut span: k is what reached the prompt
    r = one(run(store, b))
    assert (r["first_failure"], r["failure_reason"]) == ("search", "rank 12 > prompt cut at 8")
    assert r["k_prompt"] == 8 and r["prompt_source"] == "generate"


# --- row 5: given to the reranker, dropped or placed below k → rerank ------------------------


def test_reranker_moves_evidence_below_k(store: Store, b: TraceBuilder) -> None:
    cands = ranked(20, **{A_ID: 1, B_ID: 2})
    reranked = [A_ID, *filler(5, 100), B_ID, *filler(3, 200)]  # B_ID now at 7
    with b.question("q-017", Q) as q:
        q.retrieve(cands)
        q.rerank(reranked, input_ids=cands, top_n=10)
        q.cut(reranked[:5], input_ids=reranked, k=5)
        q.generate(reranked[:5], WRONG)
    r = one(run(store, b))
    assert (r["first_failure"], r["failure_reason"]) == ("rerank", "moved from rank 2 to 7 > 5")
    ev = {e["id"]: e for e in r["evidence"]}
    assert ev[B_ID]["rerank_rank"] == 7 and ev[B_ID]["candidate_rank"] == 2


def test_reranker_leaving_evidence_below_k_says_kept_not_moved(
    store: Store, b: TraceBuilder
) -> None:
    # The reranker gives B_ID the rank the retriever gave it, 7, below k = 5: it did not move
    # it, so the reason must not read "moved from rank 7 to 7 > 5".
    cands = ranked(20, **{A_ID: 1, B_ID: 7})
    with b.question("q-017", Q) as q:
        q.retrieve(cands)
        q.rerank(cands[:10], input_ids=cands, top_n=10)
        q.cut(cands[:5], input_ids=cands[:10], k=5)
        q.generate(cands[:5], WRONG)
    r = one(run(store, b))
    assert (r["first_failure"], r["failure_reason"]) == (
        "rerank",
        "kept at rank 7 > 5 by the reranker",
    )


def test_reranker_drops_evidence(store: Store, b: TraceBuilder) -> None:
    cands = ranked(20, **{A_ID: 1, B_ID: 2})
    with b.question("q-017", Q) as q:
        q.retrieve(cands)
        q.rerank([A_ID, *filler(4, 100)], top_n=5)  # no input ids: the candidates were given
        q.generate([A_ID, *filler(4, 100)], WRONG)
    r = one(run(store, b))
    assert r["first_failure"] == "rerank"
    assert r["failure_reason"] == "dropped by the reranker (was rank 2 of 20 given)"


# --- row 6: within k after the last ranking stage, not in the prompt → cut --------------------


def test_cut_threshold(store: Store, b: TraceBuilder) -> None:
    cands = ranked(10, **{A_ID: 1, B_ID: 3})
    scores = [0.9, 0.8, 0.2, 0.1, 0.05, 0.04, 0.03, 0.02, 0.01, 0.0]
    with b.question("q-017", Q) as q:
        q.retrieve(cands, scores=scores)
        q.cut(cands[:2], input_ids=cands, k=5, threshold=0.4)
        q.generate(cands[:2], WRONG)
    r = one(run(store, b))
    assert (r["first_failure"], r["failure_reason"]) == ("cut", "score 0.2 below threshold 0.4")


def test_cut_token_budget(store: Store, b: TraceBuilder) -> None:
    cands = ranked(10, **{A_ID: 1, B_ID: 4})
    with b.question("q-017", Q) as q:
        q.retrieve(cands)
        q.cut(cands[:3], input_ids=cands[:5], token_budget=512)  # no k: its 5 inputs are inside k
        q.generate(cands[:3], WRONG)
    r = one(run(store, b))
    assert (r["first_failure"], r["failure_reason"]) == ("cut", "over token budget 512")
    assert r["k_prompt"] == 5


def test_cut_other(store: Store, b: TraceBuilder) -> None:
    cands = ranked(10, **{A_ID: 1, B_ID: 2})
    with b.question("q-017", Q) as q:
        q.retrieve(cands)
        q.cut([A_ID, *cands[2:5]], input_ids=cands, k=5)
        q.generate([A_ID, *cands[2:5]], WRONG)
    r = one(run(store, b))
    assert (r["first_failure"], r["failure_reason"]) == (
        "cut",
        "dropped by the cut (ranked 2 ≤ k = 5)",
    )


def test_prompt_differs_from_ranking_without_cut_span(store: Store, b: TraceBuilder) -> None:
    cands = ranked(5, **{A_ID: 1, B_ID: 2})
    with b.question("q-017", Q) as q:
        q.retrieve(cands, top_k=5)
        q.generate([A_ID, *cands[2:5], "extra"], WRONG)  # the app swapped B_ID out
    r = one(run(store, b))
    assert r["first_failure"] == "cut"
    assert r["failure_reason"] == "ranked 2 ≤ k = 5 but not in the prompt (no cut span)"


# --- row 7: in the prompt → the answer decides -------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "expected", "reason"),
    [
        (RIGHT, "ok", "answer states every fact"),
        (WRONG, "generation", "answer misses fact(s): 4.2.1"),
        ("Firmware 4.2.0 and 4.2.10 need it.", "generation", "answer misses fact(s): 4.2.1"),
    ],
)
def test_evidence_in_prompt_answer_decides(
    store: Store, b: TraceBuilder, answer: str, expected: str, reason: str
) -> None:
    cands = ranked(10, **{A_ID: 1, B_ID: 2})
    with b.question("q-017", Q) as q:
        q.retrieve(cands)
        q.cut(cands[:5], k=5)
        q.generate(cands[:5], answer)
    r = one(run(store, b))
    assert (r["first_failure"], r["failure_reason"]) == (expected, reason)
    assert r["failure_item"] is None


def test_abstaining_despite_evidence_is_generation(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], "I cannot tell.")
        q.abstain()
    r = one(run(store, b))
    assert r["first_failure"] == "generation"
    assert r["failure_reason"] == "abstained although the evidence was in the prompt"
    assert r["answer_verdict"] == "abstained"


def test_generate_failure_is_generation(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], error="RateLimitError: slow down")
    r = one(run(store, b))
    assert r["first_failure"] == "generation"
    assert r["failure_reason"] == "generate failed: RateLimitError: slow down"
    assert "errors" in r["flags"] and r["errors"] == ["generate: RateLimitError: slow down"]


@pytest.mark.parametrize(
    ("kw", "answer", "reason"),
    [
        ({"facts": ()}, RIGHT, "the case has no facts or reference to check the answer against"),
        ({"facts": (), "reference": "4.2.0 and 4.2.1"}, "It is 4.2.0 plus 4.2.1.",
         "no facts, and the answer does not contain the reference verbatim"),
        ({}, None, "answer text not recorded (content capture off?)"),
    ],
)  # fmt: skip
def test_answer_that_cannot_be_checked_is_unjudged(
    store: Store, b: TraceBuilder, kw: dict[str, Any], answer: str | None, reason: str
) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], answer)
    r = one(run(store, b, case(**kw)))
    assert (r["first_failure"], r["failure_reason"]) == ("unjudged", reason)


def test_reference_containment_is_correct(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], "Yes: FIRMWARE 4.2.0 and 4.2.1 need a manual reset!")
    r = one(run(store, b, case(facts=(), reference=RIGHT)))
    assert (r["first_failure"], r["failure_reason"]) == ("ok", "answer contains the reference")


# --- evidence lost, answer right anyway → ok_without_evidence ----------------------------------


def test_ok_without_evidence(store: Store, b: TraceBuilder) -> None:
    cands = ranked(30, **{A_ID: 1, B_ID: 22})
    with b.question("q-017", Q) as q:
        q.retrieve(cands)
        q.generate(cands[:5], RIGHT)
    r = one(run(store, b))
    assert r["first_failure"] == "ok_without_evidence"
    assert r["failure_reason"] == (
        f"answer correct although {B_ID} was lost at search: rank 22 > prompt cut at 5"
    )
    assert r["failure_item"] == B_ID


# --- all_of / any_of / nesting -----------------------------------------------------------------


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


# --- unanswerable cases ---------------------------------------------------------------------


def unanswerable() -> Case:
    return Case("q-031", "What is the refund for a cancelled flight?", answerable=False)


def test_unanswerable_abstained_is_ok(store: Store, b: TraceBuilder) -> None:
    with b.question("q-031", "What is the refund for a cancelled flight?") as q:
        q.retrieve(["f1", "f2"], scores=[0.2, 0.1])
        q.cut([], input_ids=["f1", "f2"], threshold=0.5, abstained=True)
    r = one(run(store, b, unanswerable()))
    assert (r["first_failure"], r["failure_reason"]) == (
        "ok",
        "abstained on an unanswerable question",
    )
    assert r["hit_at_cut"] != r["hit_at_cut"]  # NaN: no expected evidence


def test_unanswerable_let_through_the_gate_is_cut(store: Store, b: TraceBuilder) -> None:
    with b.question("q-031", "What is the refund for a cancelled flight?") as q:
        q.retrieve(["f1", "f2"], scores=[0.8, 0.1])
        q.cut(["f1"], input_ids=["f1", "f2"], threshold=0.5)
        q.generate(["f1"], "The refund is 50 %.")
    r = one(run(store, b, unanswerable()))
    assert r["first_failure"] == "cut"
    assert r["failure_reason"] == (
        "the confidence gate let an unanswerable question through (top score 0.8, threshold 0.5)"
    )


def test_unanswerable_answered_without_gate_is_generation(store: Store, b: TraceBuilder) -> None:
    with b.question("q-031", "What is the refund for a cancelled flight?") as q:
        q.retrieve(["f1", "f2"])
        q.generate(["f1", "f2"], "The refund is 50 %.")
    r = one(run(store, b, unanswerable()))
    assert r["first_failure"] == "generation"
    assert (
        r["failure_reason"] == "answered an unanswerable question (no confidence gate to stop it)"
    )


# --- missing spans → incomplete_trace -----------------------------------------------------------


def test_missing_question_span(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q, root=False) as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], RIGHT)
    r = one(run(store, b))
    assert (r["first_failure"], r["failure_reason"]) == (
        "incomplete_trace",
        "missing: question span",
    )


def test_missing_retrieve_and_generate_spans(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.cut([A_ID, B_ID], k=5)
    r = one(run(store, b))
    assert r["first_failure"] == "incomplete_trace"
    assert r["failure_reason"] == "missing: retrieve span, generate span"
    assert r["missing"] == ["retrieve span", "generate span"]
    assert r["recall_at_cut"] != r["recall_at_cut"]  # NaN with a reason
    assert r["metrics_note_at_cut"] == "incomplete trace, missing: retrieve span, generate span"


def test_missing_prompt_ids(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID, B_ID])
        q.generate(None, RIGHT)
    r = one(run(store, b))
    assert r["failure_reason"] == (
        "missing: the prompt's ids (no cut span, no context ids on a generate span)"
    )
