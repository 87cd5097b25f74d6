"""The side queries' details merged into the records (``records/rare_details.py``): retriever
ranks of a hybrid search, samples and low-confidence tokens, conflicting sources."""

from __future__ import annotations

from typing import Any

from ragfunnel.analyzer.store import Store
from tests.support.decisions import A_ID, B_ID, RIGHT, WRONG, Q, one, ranked, run
from tests.support.traces import TraceBuilder


def test_hybrid_fusion_is_the_candidate_list_with_per_retriever_ranks(
    store: Store, b: TraceBuilder
) -> None:
    bm25 = ranked(20, **{A_ID: 3, B_ID: 15})
    dense = ranked(20, **{A_ID: 9})
    fused = ranked(20, **{A_ID: 1, B_ID: 12})
    with b.question("q-017", Q) as q:
        q.retrieve(bm25, name="bm25")
        q.retrieve(dense, name="dense")
        q.retrieve(fused, name="rrf", fused_from=["bm25", "dense"])
        q.generate(fused[:10], WRONG)
    r = one(run(store, b))
    assert (r["first_failure"], r["failure_reason"]) == ("search", "rank 12 > prompt cut at 10")
    ev = {e["id"]: e for e in r["evidence"]}
    assert ev[A_ID]["candidate_rank"] == 1
    assert ev[A_ID]["retriever_ranks"] == [
        {"retriever": "bm25", "rank": 3},
        {"retriever": "dense", "rank": 9},
    ]
    assert ev[B_ID]["retriever_ranks"] == [
        {"retriever": "bm25", "rank": 15},
        {"retriever": "dense", "rank": None},
    ]
    assert "retried" not in r["flags"]


def test_flags_low_confidence_and_sample_disagreement(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], RIGHT, sample_index=0, logprobs_min=-3.2,
                   low_confidence=["4.2.1"])  # fmt: skip
        q.generate([A_ID, B_ID], WRONG, sample_index=1)
        q.generate([A_ID, B_ID], RIGHT, sample_index=2)
    r = one(run(store, b))
    assert r["first_failure"] == "ok"  # sample 0 is the answer
    assert set(r["flags"]) == {"low_confidence", "sample_disagreement"}
    assert r["low_confidence_tokens"] == ["4.2.1"] and r["logprobs_min"] == -3.2
    assert r["sample_disagreement"] is True


BOTH = [A_ID, B_ID]


def sampled(
    store: Store, b: TraceBuilder, *samples: tuple[list[str], str | None, str | None]
) -> dict[str, Any]:
    """The record of one question answered by samples 0, 1, … in turn: (prompt, answer, error)."""
    with b.question("q-017", Q) as q:
        q.retrieve(BOTH)
        for index, (prompt, answer, error) in enumerate(samples):
            q.generate(prompt, answer, sample_index=index, error=error)
    return one(run(store, b))


def test_the_facts_check_reads_sample_0_when_a_later_sample_says_otherwise(
    store: Store, b: TraceBuilder
) -> None:
    """Sample 1 started later; the facts check reads sample 0's answer (the normalised text is
    made on the worker thread from the funnel row's answer)."""
    r = sampled(store, b, (BOTH, RIGHT, None), (BOTH, WRONG, None))
    assert (r["answer_verdict"], r["answer_reason"]) == ("correct", "answer states every fact")
    assert r["first_failure"] == "ok" and r["sample_disagreement"] is True


def test_a_wrong_sample_0_is_wrong_whatever_the_last_sample_says(
    store: Store, b: TraceBuilder
) -> None:
    r = sampled(store, b, (BOTH, WRONG, None), (BOTH, RIGHT, None))
    assert r["answer_verdict"] == "incorrect"
    assert r["answer_reason"] == "answer misses fact(s): 4.2.1"
    assert r["first_failure"] == "generation"


def test_a_failed_sample_0_is_a_failed_generate_though_a_later_sample_answered(
    store: Store, b: TraceBuilder
) -> None:
    r = sampled(store, b, (BOTH, None, "rate limited"), (BOTH, RIGHT, None))
    assert (r["answer_verdict"], r["answer_reason"]) == ("failed", "generate failed: rate limited")
    assert (r["first_failure"], r["failure_reason"]) == (
        "generation",
        "generate failed: rate limited",
    )


def test_when_every_sample_failed_the_message_is_sample_0s(store: Store, b: TraceBuilder) -> None:
    r = sampled(store, b, (BOTH, None, "rate limited"), (BOTH, None, "context too long"))
    assert (r["first_failure"], r["failure_reason"]) == (
        "generation",
        "generate failed: rate limited",
    )
    assert r["errors"] == ["generate: rate limited", "generate: context too long"]


def test_a_later_sample_that_failed_does_not_fail_a_right_sample_0(
    store: Store, b: TraceBuilder
) -> None:
    r = sampled(store, b, (BOTH, RIGHT, None), (BOTH, None, "rate limited"))
    assert (r["answer_verdict"], r["first_failure"]) == ("correct", "ok")
    assert r["errors"] == ["generate: rate limited"]  # still listed, and flagged
    assert "errors" in r["flags"]


def test_the_prompt_is_sample_0s(store: Store, b: TraceBuilder) -> None:
    r = sampled(store, b, (BOTH, RIGHT, None), ([A_ID], RIGHT, None))  # sample 1 saw less
    assert (r["first_failure"], r["k_prompt"]) == ("ok", 2)
    assert [e["in_prompt"] for e in r["evidence"]] == [True, True]


def assert_both_versions_conflict(store: Store, b: TraceBuilder) -> None:
    """Both versions of the refund policy in one prompt: the record names the conflict."""
    prompt = [A_ID, B_ID, "refund-policy#2023-s1", "refund-policy#2024-s1"]
    with b.question("q-017", Q, index_version="v2") as q:
        q.retrieve(prompt)
        q.generate(prompt, RIGHT)
    r = one(run(store, b))
    assert r["conflicting_documents"] == ["refund-policy"]
    assert "conflicting_sources" in r["flags"]


def test_conflicting_sources_two_ingestions_of_one_document(store: Store, b: TraceBuilder) -> None:
    b.ingest("refund-policy", ["refund-policy#2023-s1", A_ID], version="v1")
    b.ingest("refund-policy", ["refund-policy#2024-s1", A_ID], version="v2")
    b.ingest("runbook-reset", [B_ID], version="v2")
    assert_both_versions_conflict(store, b)


def test_conflicting_sources_two_versions_ingested_together(store: Store, b: TraceBuilder) -> None:
    # One index build that holds two versions of one policy: same index version, same second.
    b.ingest("refund-policy", ["refund-policy#2023-s1"], version="v2")
    b.ingest("refund-policy", ["refund-policy#2024-s1"], version="v2")
    b.ingest("runbook-reset", [A_ID, B_ID], version="v2")
    assert_both_versions_conflict(store, b)
