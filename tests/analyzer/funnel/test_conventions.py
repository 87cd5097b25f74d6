"""Conventions beyond the decision table: hybrid retrieval, runs, repeats, retries, oracle runs,
flags, how traces find their case, per-question metrics, and live-traffic shapes."""

from __future__ import annotations

import math

import polars as pl
import pytest

from ragfunnel.analyzer.cases import Case, CaseSet, parse_evidence
from ragfunnel.analyzer.funnel import analyze, shapes
from ragfunnel.analyzer.store import Store
from tests.support.decisions import A_ID, B_ID, RIGHT, WRONG, Q, case, filler, one, ranked, run
from tests.support.traces import TraceBuilder


@pytest.fixture
def b() -> TraceBuilder:
    return TraceBuilder()


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


def test_several_runs_are_separate_records_and_summaries(store: Store, b: TraceBuilder) -> None:
    for run_id, answer in (("baseline", WRONG), ("new-prompt", RIGHT)):
        with b.question("q-017", Q, run=run_id) as q:
            q.retrieve([A_ID, B_ID])
            q.generate([A_ID, B_ID], answer)
    result = run(store, b)
    by_run = {r["run_id"]: r["first_failure"] for r in result.records.iter_rows(named=True)}
    assert by_run == {"baseline": "generation", "new-prompt": "ok"}
    failures = result.failures.select("run_id", "first_failure", "count").rows()
    assert sorted(failures) == [("baseline", "generation", 1), ("new-prompt", "ok", 1)]
    only = analyze(store, CaseSet.of([case()]), run="new-prompt")
    assert only.records.get_column("run_id").to_list() == ["new-prompt"]


def test_same_question_asked_twice_keeps_both_and_counts_the_latest(
    store: Store, b: TraceBuilder
) -> None:
    for answer in (WRONG, RIGHT):
        with b.question("q-017", Q) as q:
            q.retrieve([A_ID, B_ID])
            q.generate([A_ID, B_ID], answer)
    result = run(store, b)
    rows = result.records.sort("occurrence").select("occurrence", "latest", "first_failure").rows()
    assert rows == [(1, False, "generation"), (2, True, "ok")]
    assert result.failures.select("first_failure", "count").rows() == [("ok", 1)]
    assert len(set(result.records.get_column("trace_id"))) == 2


def test_retry_inside_a_trace_the_last_attempt_counts(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([], error="TimeoutError: vector store")
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], RIGHT)
    r = one(run(store, b))
    assert r["first_failure"] == "ok"
    assert set(r["flags"]) == {"retried", "errors"}
    assert r["errors"] == ["retrieve: TimeoutError: vector store"]


def test_a_failed_last_attempt_is_where_evidence_was_lost(store: Store, b: TraceBuilder) -> None:
    b.ingest("docs", [A_ID, B_ID])
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID, B_ID])
        q.retrieve([], error="TimeoutError: vector store")
        q.generate([], "I do not know.")
    r = one(run(store, b))
    assert r["first_failure"] == "search"
    assert r["failure_reason"] == "retrieve failed: TimeoutError: vector store"


def test_oracle_in_the_same_trace(store: Store, b: TraceBuilder) -> None:
    cands = ranked(20, **{A_ID: 1, B_ID: 2})
    with b.question("q-017", Q) as q:
        q.retrieve(cands)
        q.generate(cands[:5], WRONG)
        q.generate([A_ID, B_ID], RIGHT, mode="oracle")
    r = one(run(store, b))
    assert r["first_failure"] == "generation"
    assert r["oracle_verdict"] == "correct"
    assert r["oracle_note"] == "oracle right, pipeline wrong: the context was the problem"


def test_oracle_run_lends_its_verdict(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q, run="pipeline-run") as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], WRONG)
    with b.question("q-017", Q, run="oracle-run") as q:
        q.generate([A_ID, B_ID], WRONG, mode="oracle")
    result = run(store, b)
    rows = {r["mode"]: r for r in result.records.iter_rows(named=True)}
    assert rows["oracle"]["first_failure"] == "generation"
    assert rows["oracle"]["failure_reason"] == (
        "oracle run (gold evidence in the prompt): answer misses fact(s): 4.2.1"
    )
    assert rows["pipeline"]["oracle_verdict"] == "incorrect"
    assert rows["pipeline"]["oracle_note"] == "oracle wrong too: prompt, model or source text"
    assert math.isnan(rows["oracle"]["recall_at_cut"])
    assert set(result.failures.get_column("mode")) == {"pipeline", "oracle"}


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


def test_conflicting_sources_two_ingestions_of_one_document(store: Store, b: TraceBuilder) -> None:
    b.ingest("refund-policy", ["refund-policy#2023-s1", A_ID], version="v1")
    b.ingest("refund-policy", ["refund-policy#2024-s1", A_ID], version="v2")
    b.ingest("runbook-reset", [B_ID], version="v2")
    prompt = [A_ID, B_ID, "refund-policy#2023-s1", "refund-policy#2024-s1"]
    with b.question("q-017", Q, index_version="v2") as q:
        q.retrieve(prompt)
        q.generate(prompt, RIGHT)
    r = one(run(store, b))
    assert r["conflicting_documents"] == ["refund-policy"]
    assert "conflicting_sources" in r["flags"]


def test_stale_index_truth_is_flagged_and_overruled(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], RIGHT)
    r = one(run(store, b, index_manifest=[A_ID]))
    assert r["first_failure"] == "ok" and "index_truth_stale" in r["flags"]
    assert all(e["in_index"] for e in r["evidence"])


def test_traces_match_cases_by_derived_id_and_by_question_text(
    store: Store, b: TraceBuilder
) -> None:
    from ragfunnel.instrumentation.contract import derived_question_id

    with b.question(derived_question_id(Q), Q) as q:  # the decorators' id when none is given
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], RIGHT)
    with b.question("request-81723", "  which FIRMWARE versions need a manual reset ") as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], WRONG)
    with b.question("request-81724", "Something nobody asked for?") as q:
        q.retrieve(["f1"])
    result = run(store, b)
    assert sorted(result.records.get_column("first_failure")) == ["generation", "ok"]
    assert set(result.records.get_column("question_id")) == {"q-017"}
    assert result.unmatched_questions == 1
    assert result.unmatched_examples == ("request-81724",)


def test_ambiguous_question_text_does_not_match(store: Store, b: TraceBuilder) -> None:
    with b.question("request-1", Q) as q:
        q.retrieve([A_ID, B_ID])
    b.into(store)
    twins = CaseSet.of([case(), case(id="q-018")])
    result = analyze(store, twins)
    assert result.records.is_empty() and result.unmatched_questions == 1
    assert result.cases_without_trace == ("q-017", "q-018")


def test_per_question_metrics_at_the_cut_and_at_k(store: Store, b: TraceBuilder) -> None:
    # The prompt is [irrelevant, relevant, relevant]: context precision 7/12; reordered, 1.
    for order in (["f1", A_ID, B_ID], [A_ID, B_ID, "f1"]):
        with b.question("q-017", Q, run="-".join(order)) as q:
            q.retrieve([*order, *filler(7, 50)])
            q.generate(order, RIGHT)
    result = run(store, b, k=[1, 2])
    got = {r["run_id"]: r for r in result.records.iter_rows(named=True)}
    worse, better = got[f"f1-{A_ID}-{B_ID}"], got[f"{A_ID}-{B_ID}-f1"]
    assert worse["context_precision_at_cut"] == pytest.approx(7 / 12)
    assert better["context_precision_at_cut"] == 1.0
    assert worse["average_precision_at_cut"] == pytest.approx(7 / 12)
    assert (worse["mrr_at_cut"], better["mrr_at_cut"]) == (0.5, 1.0)
    assert (worse["recall_at_1"], worse["hit_at_1"]) == (0.0, 0.0)
    assert worse["recall_at_2"] == 0.5 and better["recall_at_2"] == 1.0
    assert math.isnan(worse["context_precision_at_1"])
    assert worse["metrics_note_at_1"] == "context precision: no relevant id in the list"
    metrics = result.metrics.filter(pl.col("metric") == "context_precision")
    assert set(metrics.get_column("at")) == {"cut", "1", "2"}


def test_metric_summary_has_intervals_and_counts_undefined(store: Store, b: TraceBuilder) -> None:
    with b.question("q-017", Q) as q:
        q.retrieve([A_ID, B_ID])
        q.generate([A_ID, B_ID], RIGHT)
    with b.question("q-031", "What is the refund for a cancelled flight?") as q:
        q.retrieve(["f1"])
        q.abstain()
    unanswerable = Case("q-031", "What is the refund for a cancelled flight?", answerable=False)
    result = run(store, b, case(), unanswerable)
    recall = result.metrics.filter((pl.col("metric") == "recall") & (pl.col("at") == "cut")).row(
        0, named=True
    )
    assert (recall["mean"], recall["n"], recall["n_undefined"]) == (1.0, 1, 1)
    hit = result.metrics.filter(pl.col("metric") == "hit").row(0, named=True)
    assert hit["method"] == "wilson" and hit["ci_low"] < 1.0


def test_shapes_summarise_live_traffic(store: Store, b: TraceBuilder) -> None:
    for i in range(3):
        with b.question(f"live-{i}", f"Question {i}?", run="prod") as q:
            q.retrieve(filler(20), scores=[0.9 - 0.01 * j for j in range(20)])
            if i < 2:
                q.cut(filler(5), k=5, threshold=0.5)
                q.generate(filler(5), "An answer.")
            else:
                q.cut([], k=5, threshold=0.95, abstained=True)
    with b.question("live-9", "Dropped root?", root=False) as q:
        q.retrieve(["f1"], error="boom")
    b.into(store)
    found = shapes(store)
    rows = {r["question_key"]: r for r in found.records.iter_rows(named=True)}
    assert rows["live-0"]["stages"] == ["retrieve", "cut", "generate"]
    assert rows["live-0"]["candidates"] == 20 and rows["live-0"]["top_score"] == 0.9
    assert rows["live-0"]["prompt_size"] == 5 and rows["live-2"]["abstained"]
    assert rows["live-2"]["missing"] == []
    assert rows["live-9"]["missing"] == ["question", "generate"]
    assert rows["live-9"]["failed_stages"] == ["retrieve"]
    summary = {(r["run_id"], r["measure"]): r for r in found.summary.iter_rows(named=True)}
    assert summary[("prod", "abstention rate")]["value"] == pytest.approx(1 / 3)
    assert summary[("prod", "mean candidates")]["value"] == 20.0
    assert shapes(store, run="prod").records.height == 3


def test_question_filter_returns_one_cases_records(store: Store, b: TraceBuilder) -> None:
    for qid in ("q-017", "q-018"):
        with b.question(qid, Q if qid == "q-017" else "Other?") as q:
            q.retrieve([A_ID, B_ID])
            q.generate([A_ID, B_ID], RIGHT)
    other = Case("q-018", "Other?", parse_evidence([A_ID]))
    result = run(store, b, case(), other, question="q-018")
    assert result.records.get_column("question_id").to_list() == ["q-018"]
    assert result.cases_without_trace == ()


def test_conflicting_sources_two_versions_ingested_together(store: Store, b: TraceBuilder) -> None:
    # One index build that holds two versions of one policy: same index version, same second.
    b.ingest("refund-policy", ["refund-policy#2023-s1"], version="v2")
    b.ingest("refund-policy", ["refund-policy#2024-s1"], version="v2")
    b.ingest("runbook-reset", [A_ID, B_ID], version="v2")
    prompt = [A_ID, B_ID, "refund-policy#2023-s1", "refund-policy#2024-s1"]
    with b.question("q-017", Q, index_version="v2") as q:
        q.retrieve(prompt)
        q.generate(prompt, RIGHT)
    r = one(run(store, b))
    assert r["conflicting_documents"] == ["refund-policy"]
    assert "conflicting_sources" in r["flags"]
