"""A foreign trace's question, answer and prompt texts reach the report's drill-down.

They are read through the span conventions, as the funnel and the judges read them: an
OpenInference (LlamaIndex-shaped) trace records its question on the chain and retriever spans
(``input.value``), its answer on the LLM span's output messages and its chunks' texts on the
retriever's and reranker's documents; none of them carries a ``ragfunnel.*`` key.
"""

from __future__ import annotations

import json
from pathlib import Path

from openinference.instrumentation import OITracer, TraceConfig
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ragfunnel.analyzer.cases import CaseSet
from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.report import QuestionTexts, question_texts
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.workflows import Reported, report_from_store
from tests.support.decisions import A_ID, B_ID, Q, case
from tests.support.openinference import oi_question
from tests.support.traces import memory_tracing

WRONG = "Only firmware 3.9 needs a manual reset."


def _reported(tmp_path: Path, exporter: InMemorySpanExporter) -> tuple[Reported, QuestionTexts]:
    """The spans stored and reported on; the one question's texts as the report reads them."""
    dsn = f"chdb://{tmp_path / 'store'}"
    with Store.open(dsn, create=True) as store:
        ingest_spans(store, exporter.get_finished_spans())
        reported = report_from_store(store, CaseSet.of([case()]))
        records = reported.result.records
        keys = list(zip(records["trace_id"], records["question_key"], strict=True))
        (texts,) = question_texts(store, keys).values()
    return reported, texts


def test_an_openinference_trace_s_texts_are_in_its_drill_down(tmp_path: Path) -> None:
    provider, exporter = memory_tracing()
    tracer = OITracer(provider.get_tracer("llama_index"), config=TraceConfig())
    oi_question(tracer, Q, [A_ID, B_ID, "c#9"], reranked=[A_ID, B_ID], answer=WRONG)
    reported, texts = _reported(tmp_path, exporter)
    assert texts.question == Q
    assert texts.answer == WRONG
    assert texts.context_ids == (A_ID, B_ID)  # the reranker's output: the prompt
    assert texts.context_texts == (f"text of {A_ID}", f"text of {B_ID}")

    (run,) = reported.report.runs
    (shown,) = run.worst  # answered wrongly: drilled into
    assert shown["answer"] == WRONG
    assert [p["text"] for p in shown["prompt"]] == [f"text of {A_ID}", f"text of {B_ID}"]


def test_a_genai_trace_s_texts_are_in_its_drill_down(tmp_path: Path) -> None:
    """A GenAI-convention trace: the retrieval query stands in for the question, the chat span's
    output message is the answer, the retrieval's documents give the chunk texts."""
    provider, exporter = memory_tracing()
    tracer = provider.get_tracer("genai-app")
    documents = json.dumps([{"id": A_ID, "score": 0.9, "content": "Firmware 4.2.0 needs it."},
                            {"id": B_ID, "score": 0.5, "content": "Gateways on 4.2.x."}])  # fmt: skip
    output = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": WRONG}]}])
    with tracer.start_as_current_span("rag"):
        with tracer.start_as_current_span(
            "retrieval",
            attributes={"gen_ai.operation.name": "retrieval", "gen_ai.retrieval.query.text": Q,
                        "gen_ai.retrieval.documents": documents},
        ):  # fmt: skip
            pass
        with tracer.start_as_current_span(
            "chat", attributes={"gen_ai.operation.name": "chat", "gen_ai.output.messages": output}
        ):
            pass
    _, texts = _reported(tmp_path, exporter)
    assert (texts.question, texts.answer) == (Q, WRONG)
    assert texts.context_ids == (A_ID, B_ID)
    assert texts.context_texts == ("Firmware 4.2.0 needs it.", "Gateways on 4.2.x.")
