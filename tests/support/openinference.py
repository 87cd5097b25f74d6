"""LlamaIndex-shaped traces made with the real openinference-instrumentation helpers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from openinference.instrumentation import (
    Document,
    OITracer,
    get_llm_attributes,
    get_reranker_attributes,
    get_retriever_attributes,
)

from tests.support.decisions import RIGHT


def docs(ids: Sequence[str]) -> list[Document]:
    return [
        Document(id=i, score=round(1 - n / 100, 2), content=f"text of {i}")
        for n, i in enumerate(ids)
    ]


def oi_question(
    tracer: OITracer,
    question: str,
    retrieved: Sequence[str],
    *,
    reranked: Sequence[str] | None = None,
    answer: str = RIGHT,
    model: str = "gpt-4o-mini",
    invocation_parameters: dict[str, Any] | None = None,
) -> None:
    """A LlamaIndex-shaped trace: query CHAIN → RETRIEVER (with an empty RETRIEVER nested
    inside, as frameworks do) → RERANKER → LLM."""
    with tracer.start_as_current_span("query", openinference_span_kind="chain") as root:
        root.set_input(question)
        with tracer.start_as_current_span("retrieve", openinference_span_kind="retriever") as r:
            r.set_input(question)
            with tracer.start_as_current_span("vector_store", openinference_span_kind="retriever"):
                pass
            r.set_attributes(get_retriever_attributes(documents=docs(retrieved)))
        if reranked is not None:
            with tracer.start_as_current_span("rerank", openinference_span_kind="reranker") as rr:
                rr.set_attributes(
                    get_reranker_attributes(
                        query=question,
                        model_name="bge-reranker",
                        input_documents=docs(retrieved),
                        output_documents=docs(reranked),
                        top_k=len(reranked),
                    )
                )
        with tracer.start_as_current_span("llm", openinference_span_kind="llm") as llm:
            llm.set_attributes(
                get_llm_attributes(
                    model_name=model,
                    invocation_parameters=invocation_parameters,
                    output_messages=[{"role": "assistant", "content": answer}],
                )
            )
        root.set_output(answer)
