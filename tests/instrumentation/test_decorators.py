"""Each stage decorator on every kind of callable, with and without options."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import ragfunnel
from ragfunnel.instrumentation import contract as c
from ragfunnel.testing import CapturedSpans


def docs(n: int) -> list[tuple[str, float]]:
    return [(f"doc-{i}", 1.0 - i / 100) for i in range(n)]


@ragfunnel.retrieve(name="bm25")
def bm25(query: str, top_k: int = 5) -> list[tuple[str, float]]:
    return docs(top_k)


@ragfunnel.rerank(model="cross-encoder")
def rerank(
    query: str, candidates: list[tuple[str, float]], top_n: int = 3
) -> list[tuple[str, float]]:
    return list(reversed(candidates))[:top_n]


@ragfunnel.cut(k=2, threshold=0.5)
def gate(documents: list[tuple[str, float]]) -> list[tuple[str, float]]:
    return documents[:2]


@ragfunnel.generate(model="gpt-4o-mini")
def llm(question: str, context: list[tuple[str, float]]) -> str:
    return "answer from " + ",".join(d for d, _ in context)


@ragfunnel.question
def answer(question: str) -> str:
    found = bm25(question, top_k=10)
    return llm(question, gate(rerank(question, found)))


def test_pipeline_tree_and_attributes(spans: CapturedSpans) -> None:
    assert answer("Which firmware needs a reset?") == "answer from doc-9,doc-8"
    (root,) = spans.by_stage("question")
    assert root.name == "question answer"
    assert root.parent is None
    qid = root.attributes[c.QUESTION_ID]
    assert qid == c.derived_question_id("which firmware needs a reset")
    assert root.attributes[c.RUN_ID] == "test-run"
    children = [s for s in spans if s is not root]
    assert [s.name for s in children] == [
        "retrieve bm25",
        "rerank cross-encoder",
        "cut gate",
        "generate gpt-4o-mini",
    ]
    for span in children:
        assert span.parent is not None and span.parent.span_id == root.context.span_id
        assert span.attributes[c.QUESTION_ID] == qid
        assert c.SCHEMA not in span.attributes  # read together with the root, which has it
    assert root.attributes[c.SCHEMA] == c.SCHEMA_VERSION
    (ret,) = spans.attributes("retrieve")
    assert ret[c.TOP_K] == 10
    assert ret[c.DOCUMENTS_IDS][:2] == ("doc-0", "doc-1")
    assert ret[c.OPENINFERENCE_KIND] == "RETRIEVER"
    assert ret[c.GEN_AI_OPERATION] == "retrieval"
    (rr,) = spans.attributes("rerank")
    assert rr[c.INPUT_IDS] == ret[c.DOCUMENTS_IDS]
    assert rr[c.DOCUMENTS_IDS] == ("doc-9", "doc-8", "doc-7")
    assert rr[c.TOP_N] == 3
    (cut,) = spans.attributes("cut")
    assert cut[c.CUT_K] == 2 and cut[c.CUT_THRESHOLD] == 0.5
    assert cut[c.DOCUMENTS_IDS] == ("doc-9", "doc-8")
    (gen,) = spans.attributes("generate")
    assert gen[c.CONTEXT_IDS] == ("doc-9", "doc-8")
    assert gen[c.MODE] == "pipeline"
    assert gen[c.GEN_AI_REQUEST_MODEL] == "gpt-4o-mini"


def test_question_id_and_text_from_argument_names_or_callables(spans: CapturedSpans) -> None:
    @ragfunnel.question(id="case_id", text="prompt_text")
    def by_name(case_id: str, prompt_text: str) -> str:
        return prompt_text

    @ragfunnel.question(id=lambda item: item["id"], text=lambda item: item["q"])
    def by_callable(item: dict[str, str]) -> str:
        return item["q"]

    by_name("q-017", "Which firmware?")
    by_callable({"id": "q-031", "q": "Refund?"})
    ids = [a[c.QUESTION_ID] for a in spans.attributes("question")]
    assert ids == ["q-017", "q-031"]
    assert spans.attributes("question")[1][c.QUESTION_HASH] == c.question_hash("refund")


def test_question_without_id_or_text_is_named_after_its_trace(spans: CapturedSpans) -> None:
    @ragfunnel.question
    def run(n: int) -> int:
        return bm25("q", top_k=1) and n

    run(1)
    root = spans.by_stage("question")[0]
    qid = root.attributes[c.QUESTION_ID]
    assert qid == f"q-trace-{root.context.trace_id:032x}"
    assert spans.attributes("retrieve")[0][c.QUESTION_ID] == qid


def test_unknown_option_and_bad_argument_name_fail_at_decoration() -> None:
    with pytest.raises(TypeError, match="unknown option"):
        ragfunnel.retrieve(top_n=3)
    with pytest.raises(TypeError, match="names no argument"):

        @ragfunnel.retrieve(query="missing")
        def f(q: str) -> list[str]:
            return []


def test_methods_async_and_generators(spans: CapturedSpans) -> None:
    class Store:
        @ragfunnel.retrieve(name="dense")
        def search(self, query: str, k: int = 3) -> list[dict[str, Any]]:
            return [{"id": f"d{i}", "score": 0.5} for i in range(k)]

        @ragfunnel.retrieve(name="async-dense")
        async def asearch(self, query: str, k: int = 2) -> list[str]:
            await asyncio.sleep(0)
            return ["a", "b"][:k]

        @ragfunnel.retrieve(name="streamed")
        def stream(self, query: str) -> Any:
            yield "s1"
            yield "s2"

        @ragfunnel.retrieve(name="astreamed")
        async def astream(self, query: str) -> Any:
            yield "t1"
            await asyncio.sleep(0)
            yield "t2"

    store = Store()

    @ragfunnel.question
    async def ask(question: str) -> list[str]:
        store.search(question)
        await store.asearch(question)
        got = list(store.stream(question))
        got += [x async for x in store.astream(question)]
        return got

    assert asyncio.run(ask("q?")) == ["s1", "s2", "t1", "t2"]
    by_name = {s.name: s for s in spans}
    assert by_name["retrieve dense"].attributes[c.TOP_K] == 3
    assert by_name["retrieve dense"].attributes[c.DOCUMENTS_SCORES] == (0.5, 0.5, 0.5)
    assert by_name["retrieve async-dense"].attributes[c.DOCUMENTS_IDS] == ("a", "b")
    assert by_name["retrieve streamed"].attributes[c.DOCUMENTS_IDS] == ("s1", "s2")
    assert by_name["retrieve astreamed"].attributes[c.DOCUMENTS_IDS] == ("t1", "t2")
    root = by_name["question ask"]
    for name in (
        "retrieve dense",
        "retrieve async-dense",
        "retrieve streamed",
        "retrieve astreamed",
    ):
        assert by_name[name].parent.span_id == root.context.span_id


def test_exceptions_mark_the_stage_span_as_error(spans: CapturedSpans) -> None:
    @ragfunnel.rerank
    def broken(query: str, documents: list[str]) -> list[str]:
        raise RuntimeError("reranker down")

    with pytest.raises(RuntimeError, match="reranker down"):
        broken("q", ["a", "b"])
    (span,) = spans.by_stage("rerank")
    assert span.status.status_code.name == "ERROR"
    assert span.status.description == "RuntimeError"  # the message is content: capture is off
    assert span.attributes[c.INPUT_IDS] == ("a", "b")
    assert any(e.name == "exception" for e in span.events)


def test_stage_context_manager(spans: CapturedSpans) -> None:
    with ragfunnel.stage("question", id="q-9", text="What?"):
        with ragfunnel.stage("retrieve", name="bm25", top_k=3) as s:
            s.record([("x", 0.9), ("y", 0.8)])
        with ragfunnel.stage("cut", input=["x", "y"], k=1) as s:
            s.record(["x"])
    ret = spans.attributes("retrieve")[0]
    assert ret[c.DOCUMENTS_IDS] == ("x", "y") and ret[c.TOP_K] == 3
    assert ret[c.QUESTION_ID] == "q-9"
    cut = spans.attributes("cut")[0]
    assert cut[c.INPUT_IDS] == ("x", "y") and cut[c.DOCUMENTS_IDS] == ("x",) and cut[c.CUT_K] == 1


def test_abstain_marks_question_and_gate(spans: CapturedSpans) -> None:
    @ragfunnel.cut(threshold=0.7)
    def confidence_gate(documents: list[tuple[str, float]]) -> list[tuple[str, float]]:
        kept = [d for d in documents if d[1] >= 0.7]
        if not kept:
            ragfunnel.abstain("top score below threshold")
        return kept

    @ragfunnel.question(id="qid")
    def ask(qid: str) -> str:
        confidence_gate([("a", 0.2)])
        return "I don't know"

    ask("q-031")
    assert spans.attributes("cut")[0][c.ANSWER_ABSTAINED] is True
    root = spans.attributes("question")[0]
    assert root[c.ANSWER_ABSTAINED] is True
    assert root[c.ABSTAIN_REASON] == "top score below threshold"
    ragfunnel.abstain()  # outside any question and stage: nothing happens, nothing raises


def test_oracle_mode_and_sample_index(spans: CapturedSpans) -> None:
    @ragfunnel.generate(model="m")
    def gen(
        question: str, context: list[str], mode: str = "pipeline", sample_index: int = 0
    ) -> str:
        return "x"

    gen("q", ["gold-1"], mode="oracle")
    gen("q", ["a"], sample_index=2)
    first, second = spans.attributes("generate")
    assert first[c.MODE] == "oracle"
    assert second[c.SAMPLE_INDEX] == 2 and second[c.MODE] == "pipeline"


def test_ingest_records_chunks_and_index_version(spans: CapturedSpans) -> None:
    @ragfunnel.ingest(index_version="v3")
    def index(document_id: str, text: str) -> dict[str, Any]:
        return {"chunks": [{"id": f"{document_id}#{i}"} for i in range(3)], "pages_without_text": 1}

    index("manual.pdf", "...")
    (attrs,) = spans.attributes("ingest")
    assert attrs[c.DOCUMENT_ID] == "manual.pdf"
    assert attrs[c.CHUNKS_IDS] == ("manual.pdf#0", "manual.pdf#1", "manual.pdf#2")
    assert attrs[c.INDEX_VERSION] == "v3"
    assert attrs[c.PAGES_WITHOUT_TEXT] == 1
    assert spans.by_stage("ingest")[0].name == "ingest index"


def test_disabled_tracing_is_a_plain_call() -> None:
    ragfunnel.configure(enabled=False, exporter="none")
    assert answer("q") == "answer from doc-9,doc-8"
