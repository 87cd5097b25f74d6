"""Decorator spans → OTLP gRPC → the real collector → the real Jaeger v2, read back over HTTP."""

from __future__ import annotations

import json
import time
import urllib.parse
from typing import Any

import pytest

import ragfunnel
from ragfunnel.instrumentation import contract as c
from tests.support.collector import Stack, get_json, wait_until
from tests.support.e2e_pipeline import SERVICE, answer, provider


@pytest.fixture
def traced(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> Stack:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", stack.otlp_grpc)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_INSECURE", "true")
    ragfunnel.configure(tracer_provider=provider(), exporter="otlp", run_id="e2e-jaeger")
    return stack


def tags(span: dict[str, Any]) -> dict[str, Any]:
    return {t["key"]: t["value"] for t in span["tags"]}


def jaeger_trace_of(stack: Stack, question_id: str) -> dict[str, Any]:
    def find() -> dict[str, Any] | None:
        query = urllib.parse.urlencode(
            {"service": SERVICE, "tags": f'{{"{c.QUESTION_ID}":"{question_id}"}}', "limit": 20}
        )
        found = get_json(f"{stack.query}/api/traces?{query}")["data"]
        # Stage spans of a question carry its id too: wait until the whole trace is in.
        complete = [t for t in found if len(t["spans"]) >= 5]
        return complete[0] if complete else None

    return wait_until(find, f"trace of {question_id} in Jaeger")


def test_jaeger_shows_the_question_tree_with_readable_attributes(traced: Stack) -> None:
    assert answer("q-jaeger-1", "which passage is relevant").startswith("answer citing")
    assert ragfunnel.flush()
    trace = jaeger_trace_of(traced, "q-jaeger-1")
    spans = {s["operationName"]: s for s in trace["spans"]}
    assert set(spans) == {
        "question answer",
        "retrieve bm25",
        "rerank toy-cross-encoder",
        "cut cut",
        "generate toy-llm",
    }
    root = spans["question answer"]
    assert root["references"] == []
    for name, span in spans.items():
        if name != "question answer":
            (ref,) = span["references"]
            assert ref["refType"] == "CHILD_OF" and ref["spanID"] == root["spanID"]
        assert trace["processes"][span["processID"]]["serviceName"] == SERVICE
    retrieve = tags(spans["retrieve bm25"])
    assert retrieve[c.STAGE] == "retrieve"
    assert retrieve[c.QUESTION_ID] == "q-jaeger-1"
    assert retrieve[c.TOP_K] == 50
    # Arrays arrive as one readable JSON tag each, all 50 ids in rank order.
    ids = json.loads(retrieve[c.DOCUMENTS_IDS])
    assert len(ids) == 50 and ids[0].startswith("doc-")
    assert len(json.loads(retrieve[c.DOCUMENTS_SCORES])) == 50
    assert not any(k.startswith("retrieval.documents.") for k in retrieve)
    assert tags(root)[c.RUN_ID] == "e2e-jaeger"
    operations = get_json(f"{traced.query}/api/services/{SERVICE}/operations")["data"]
    assert {"question answer", "retrieve bm25", "generate toy-llm"} <= set(operations)


def test_failing_stage_is_an_error_in_jaeger(traced: Stack) -> None:
    answer("q-jaeger-fail", "please fail the reranker")
    assert ragfunnel.flush()
    trace = jaeger_trace_of(traced, "q-jaeger-fail")
    spans = {s["operationName"]: s for s in trace["spans"]}
    rerank = tags(spans["rerank toy-cross-encoder"])
    assert rerank["otel.status_code"] == "ERROR"
    assert rerank["error"] is True
    assert rerank["otel.status_description"] == "RerankerDown"  # content capture off: type only
    assert any(
        log["fields"] and any(f["key"] == "exception.type" for f in log["fields"])
        for log in spans["rerank toy-cross-encoder"]["logs"]
    )
    assert "otel.status_code" not in tags(spans["question answer"])  # the app recovered


def test_api_v3_returns_otlp_with_typed_arrays(traced: Stack) -> None:
    answer("q-jaeger-v3", "v3 api question")
    assert ragfunnel.flush()
    jaeger_trace_of(traced, "q-jaeger-v3")
    now = time.time()
    query = urllib.parse.urlencode(
        {
            "query.service_name": SERVICE,
            "query.start_time_min": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now - 3600)),
            "query.start_time_max": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now + 60)),
            "query.num_traces": 100,
        }
    )
    result = get_json(f"{traced.query}/api/v3/traces?{query}")["result"]
    spans = [s for rs in result["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
    mine = [
        s
        for s in spans
        if {"key": c.QUESTION_ID, "value": {"stringValue": "q-jaeger-v3"}}
        in s.get("attributes", [])
        and s["name"] == "retrieve bm25"
    ]
    assert mine
    attrs = {a["key"]: a["value"] for a in mine[0]["attributes"]}
    assert len(attrs[c.DOCUMENTS_IDS]["arrayValue"]["values"]) == 50
