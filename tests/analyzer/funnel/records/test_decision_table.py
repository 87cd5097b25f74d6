"""The decision table's item survival codes and reasons (docs/funnel.md §3–4), one trace-level test per row
(``records/decision_table.py``), verdicts derived by hand.

Each test builds the question's spans, ingests them, runs ``analyze`` and checks
``first_failure`` and the exact reason. Candidate lists are padded with filler ids ``f1..``."""

from __future__ import annotations

import polars as pl

from ragfunnel.analyzer.funnel.records.decision_table import (
    CUT,
    LONG_SCHEMA,
    PROMPT,
    STAGES,
    long_items,
    needs_scores,
    number_text,
)
from ragfunnel.analyzer.store import Store
from tests.support.decisions import A_ID, B_ID, WRONG, Q, filler, one, ranked, run
from tests.support.traces import TraceBuilder


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


def test_one_candidate_is_counted_in_the_singular(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID])
        q.generate([A_ID], WRONG)
    r = one(run(store, b))
    assert r["failure_reason"] == (
        "not retrieved (1 candidate); no index truth (ingest spans or --index-manifest) "
        "to tell ingestion from search"
    )


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


# --- the table's helpers on hand-built frames ---------------------------------------------------


def test_number_text_drops_a_whole_numbers_point_and_rounds_the_rest() -> None:
    values = pl.Series([0.2, 5.0, 0.123456, 512.0, -3.0, float("nan"), float("inf"), None, 1e16])
    got = pl.DataFrame({"v": values}).select(number_text(pl.col("v"))).to_series().to_list()
    assert got[:-1] == ["0.2", "5", "0.1235", "512", "-3", "NaN", "inf", None]
    assert "e" in got[-1]  # beyond 1e15 a float stays a float: no integer cast overflows


def test_the_stage_names_follow_the_survival_codes() -> None:
    assert STAGES[PROMPT] == "prompt" and STAGES[0] == "ingestion" and len(STAGES) == PROMPT + 1


def test_long_items_keep_the_used_slots_in_instance_then_slot_order() -> None:
    wide = pl.DataFrame({"inst": pl.Series([1, 0], dtype=pl.UInt32)}).with_columns(
        *(pl.lit(None, dtype=dtype).alias(f"{name}_{j}")
          for name, dtype in list(LONG_SCHEMA.items())[2:] for j in range(2)),
    ).with_columns(
        item_0=pl.Series(["a", "c"]), item_1=pl.Series([None, "d"]),
        code_0=pl.Series([2, 5], dtype=pl.Int8),
    )  # fmt: skip
    long = long_items(wide, 2)
    assert long.select("inst", "j", "item", "code").rows() == [(0, 0, "c", 5), (0, 1, "d", None),
                                                                (1, 0, "a", 2)]  # fmt: skip
    assert dict(long.schema) == LONG_SCHEMA
    assert long_items(wide, 0).is_empty() and dict(long_items(wide, 0).schema) == LONG_SCHEMA


def test_scores_are_needed_only_for_items_lost_at_a_cut_with_a_threshold() -> None:
    frame = pl.DataFrame(
        {"cut_threshold": [0.5, None, 0.5], "code_0": [CUT, CUT, PROMPT], "code_1": [None, 2, 2]},
        schema={"cut_threshold": pl.Float64, "code_0": pl.Int8, "code_1": pl.Int8},
    )
    assert frame.select(needs_scores(2)).to_series().to_list() == [True, False, False]
