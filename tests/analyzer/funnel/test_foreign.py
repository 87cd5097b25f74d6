"""Spans ragfunnel did not write: OpenInference (made with the real openinference-instrumentation
helpers) and OpenTelemetry GenAI ``retrieval`` / ``chat`` spans feed the same funnel."""

from __future__ import annotations

import json

import pytest
from openinference.instrumentation import (
    OITracer,
    TraceConfig,
)
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragfunnel.analyzer.cases import CaseSet
from ragfunnel.analyzer.funnel import analyze
from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.tables.stage_spans import stage_table
from tests.support.decisions import A_ID, B_ID, RIGHT, WRONG, Q, case, filler, one
from tests.support.openinference import oi_question
from tests.support.traces import hashes


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def tracer(exporter: InMemorySpanExporter) -> OITracer:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return OITracer(provider.get_tracer("llama_index"), config=TraceConfig())


def test_openinference_trace_is_matched_by_text_and_attributed(
    store: Store, tracer: OITracer, exporter: InMemorySpanExporter
) -> None:
    retrieved = [*filler(3), A_ID, *filler(3, 10), B_ID]
    oi_question(tracer, "Which firmware versions need a manual reset", retrieved,
                reranked=[A_ID, *filler(2)], answer=WRONG)  # fmt: skip
    ingest_spans(store, exporter.get_finished_spans())
    r = one(analyze(store, CaseSet.of([case()])))
    assert r["question_id"] == "q-017" and r["question_key"].startswith("trace:")
    # No cut span: the prompt is the reranker's output (3 ids), so B_ID, candidate 8, given to
    # the reranker and dropped, was lost at rerank.
    assert r["prompt_source"] == "ranking" and r["k_prompt"] == 3
    assert r["first_failure"] == "rerank"
    assert r["failure_reason"] == "dropped by the reranker (was rank 8 of 8 given)"
    ev = {e["id"]: e for e in r["evidence"]}
    assert ev[A_ID]["candidate_rank"] == 4 and ev[A_ID]["rerank_rank"] == 1
    assert r["answer_verdict"] == "incorrect"
    assert r["missing"] == []


def test_openinference_nested_empty_retriever_does_not_hide_the_documents(
    store: Store, tracer: OITracer, exporter: InMemorySpanExporter
) -> None:
    oi_question(tracer, Q, [A_ID, B_ID])
    ingest_spans(store, exporter.get_finished_spans())
    r = one(analyze(store, CaseSet.of([case()])))
    assert r["first_failure"] == "ok" and r["candidates"] == 2
    assert "retried" not in r["flags"]


def test_openinference_documents_are_parsed_once_in_the_view(
    store: Store, tracer: OITracer, exporter: InMemorySpanExporter
) -> None:
    oi_question(tracer, Q, [A_ID, B_ID], reranked=[B_ID])
    ingest_spans(store, exporter.get_finished_spans())
    analyze(store, CaseSet.of([case()]))  # creates the view and backfills
    rows = store.query_arrow(
        f"SELECT Stage, Source, IdHashes AS Ids, Scores, HasInput, Name, AnswerText "
        f"FROM {stage_table(store)} "
        "WHERE Stage IN ('retrieve', 'rerank', 'generate') ORDER BY Timestamp"
    ).to_pylist()
    by_stage = {(r["Stage"], bool(r["Ids"])): r for r in rows}
    assert by_stage[("retrieve", True)]["Ids"] == hashes(store, [A_ID, B_ID])
    assert by_stage[("retrieve", True)]["Scores"] == [1.0, 0.99]
    assert by_stage[("rerank", True)]["Ids"] == hashes(store, [B_ID])
    assert by_stage[("rerank", True)]["HasInput"]
    assert by_stage[("rerank", True)]["Name"] == "bge-reranker"
    assert by_stage[("generate", False)]["AnswerText"] == RIGHT
    assert {r["Source"] for r in rows} == {"openinference"}


def test_genai_retrieval_and_chat_spans(store: Store) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("openllmetry")
    documents = json.dumps([{"id": A_ID, "score": 0.9}, {"id": "f1", "score": 0.5}])
    output = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": WRONG}]}])
    with tracer.start_as_current_span("rag"):
        with tracer.start_as_current_span(
            "retrieval",
            attributes={
                "gen_ai.operation.name": "retrieval",
                "gen_ai.retrieval.query.text": Q,
                "gen_ai.retrieval.documents": documents,
            },
        ):
            pass
        with tracer.start_as_current_span(
            "chat gpt-4o-mini",
            attributes={"gen_ai.operation.name": "chat", "gen_ai.output.messages": output},
        ):
            pass
    ingest_spans(store, exporter.get_finished_spans())
    r = one(analyze(store, CaseSet.of([case()]), index_manifest=[A_ID, "f1"]))
    assert r["question_id"] == "q-017"
    assert r["first_failure"] == "ingestion" and r["failure_item"] == B_ID
    assert r["prompt_source"] == "ranking" and r["candidates"] == 2
    assert r["answer_verdict"] == "incorrect"
    assert r["top_score"] == 0.9
