"""A foreign trace's run configuration reaches the report, read through the span conventions.

A LlamaIndex-shaped OpenInference trace names its model on the ``LLM`` span
(``llm.model_name``, ``llm.invocation_parameters``) and its reranker on the ``RERANKER`` span;
a GenAI ``chat`` span names its request (``gen_ai.request.model``, ``…temperature``). Such
traces have no run id: their questions report as the unnamed run, whose configuration is
what those spans recorded (docs/report.md, "Run configuration").
"""

from __future__ import annotations

import json
from pathlib import Path

from openinference.instrumentation import OITracer, TraceConfig
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from typer.testing import CliRunner

from ragfunnel.analyzer.cases import CaseSet
from ragfunnel.analyzer.cli import app
from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.report import pipeline_snapshots
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.workflows import report_from_store
from tests.support.decisions import A_ID, B_ID, Q, case
from tests.support.openinference import oi_question

PARAMETERS = {"temperature": 0.1, "max_tokens": 256}


def openinference_spans(*, model: str = "gpt-4o-mini") -> InMemorySpanExporter:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = OITracer(provider.get_tracer("llama_index"), config=TraceConfig())
    oi_question(tracer, Q, [A_ID, B_ID, "c#9"], reranked=[A_ID, B_ID], model=model,
                invocation_parameters=PARAMETERS)  # fmt: skip
    return exporter


def test_an_openinference_trace_s_model_and_parameters_are_its_run_configuration(
    tmp_path: Path,
) -> None:
    dsn = f"chdb://{tmp_path / 'store'}"
    with Store.open(dsn, create=True) as store:
        ingest_spans(store, openinference_spans().get_finished_spans())
    expected = {
        "llm.model_name": "gpt-4o-mini",
        "llm.invocation_parameters": json.dumps(PARAMETERS),
        "reranker.model_name": "bge-reranker",
        "reranker.top_k": "2",
    }
    reported = report_from_store(dsn, CaseSet.of([case()]))
    (run,) = reported.report.runs
    assert run.run_id == "" and run.config == expected

    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps([{"id": "q-017", "question": Q, "evidence": [A_ID, B_ID]}]))
    html = tmp_path / "report.html"
    result = CliRunner().invoke(
        app, ["report", "--store", dsn, "--cases", str(cases), "--html", str(html)],
        env={"COLUMNS": "200"},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "configuration: llm.invocation_parameters = " in result.stdout
    assert "llm.model_name = gpt-4o-mini" in result.stdout
    assert "reranker.model_name = bge-reranker" in result.stdout
    page = html.read_text(encoding="utf-8")
    for key in expected:
        assert f'<td class="mono setting">{key}</td>' in page
    assert "<td>gpt-4o-mini</td>" in page


def test_a_setting_that_changed_during_the_run_lists_each_value_by_traces(store: Store) -> None:
    exporter = openinference_spans()
    oi = openinference_spans(model="gpt-4o")
    ingest_spans(store, [*exporter.get_finished_spans(), *oi.get_finished_spans()])
    config = pipeline_snapshots(store, [""])[""]
    assert config["llm.model_name"] == ["gpt-4o (1 question)", "gpt-4o-mini (1 question)"]
    assert config["reranker.model_name"] == "bge-reranker"


def test_a_genai_chat_span_s_request_is_its_run_configuration(store: Store) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("genai-app")
    with tracer.start_as_current_span("ask"):
        with tracer.start_as_current_span(
            "retrieval", attributes={"gen_ai.operation.name": "retrieval",
                                     "gen_ai.retrieval.query.text": Q}
        ):  # fmt: skip
            pass
        with tracer.start_as_current_span(
            "chat", attributes={"gen_ai.operation.name": "chat",
                                "gen_ai.request.model": "llama-3-8b",
                                "gen_ai.request.temperature": 0.2,
                                "gen_ai.usage.input_tokens": 10}
        ):  # fmt: skip
            pass
    ingest_spans(store, exporter.get_finished_spans())
    config = pipeline_snapshots(store, [""])[""]
    assert config == {"gen_ai.request.model": "llama-3-8b", "gen_ai.request.temperature": "0.2"}


def test_ragfunnel_spans_of_a_run_are_not_read_as_the_unnamed_run(store: Store) -> None:
    from tests.support.traces import TraceBuilder

    b = TraceBuilder()
    with b.question("q-1", "What?", run="run-1", index_version="v7") as q:
        q.retrieve(["d#1"], top_k=1)
    b.into(store)
    assert pipeline_snapshots(store, ["run-1", ""]) == {"run-1": {"index_version": "v7"}, "": {}}
