"""The demo pipeline's own behaviour, seen through the spans it emits (public decorators only)."""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.cases import AllOf, AnyOf, Case, load_cases
from ragfunnel.demo.answer import cited_numbers
from ragfunnel.demo.corpus import CASES_PATH, Document, load_documents
from ragfunnel.demo.faults import Injection
from ragfunnel.demo.pipeline import ABSTAINED, LLM, Pipeline, Settings
from ragfunnel.testing import capture_spans
from tests.support.chat_server import ChatServer

CASES = {case.id: case for case in load_cases(CASES_PATH)}


@pytest.fixture(scope="module")
def documents() -> list[Document]:
    return load_documents()


@pytest.fixture(scope="module")
def pipeline(documents: list[Document]) -> Pipeline:
    built = Pipeline(documents)
    built.build_index()  # outside capture_spans: tracing is off, the index is the same
    return built


def ask(pipeline: Pipeline, case_id: str) -> str:
    return pipeline.answer(case_id, CASES[case_id].question)


def _has(case: Case, kind: type) -> bool:
    return isinstance(case.evidence, kind) or (
        isinstance(case.evidence, (AllOf, AnyOf))
        and any(isinstance(child, kind) for child in case.evidence.children)
    )


def test_the_shipped_set_has_what_the_demo_needs(documents: list[Document]) -> None:
    cases = list(CASES.values())
    assert 45 <= len(cases) <= 60
    assert sum(not c.answerable for c in cases) >= 5
    assert any(_has(c, AllOf) for c in cases)
    assert any(_has(c, AnyOf) for c in cases)
    german = CASES["de-hotel-taxi"]
    assert (
        german.reference == "Die Hotelpauschale beträgt 120 Euro; ein Taxi ist ab 22 Uhr erlaubt."
    )
    assert sum(d.scanned for d in documents) == 1
    versions = {(d.id, d.version) for d in documents if d.id == "travel-policy"}
    assert versions == {("travel-policy", "2023-02"), ("travel-policy", "2024-07")}


def test_ingest_spans_one_per_document_with_stable_chunk_ids(documents: list[Document]) -> None:
    with capture_spans() as spans:
        Pipeline(documents).build_index()
        first = {
            a["ragfunnel.document.id"]: tuple(a.get("ragfunnel.chunks.ids", ()))
            for a in spans.attributes("ingest")
        }
        spans.clear()
        Pipeline(documents, injection=Injection(empty_ocr=True)).build_index()
        second = {a["ragfunnel.document.id"]: a for a in spans.attributes("ingest")}
    current = {d.id for d in documents}
    assert set(first) == current  # one span per document; the superseded version is skipped
    assert set(second) == current
    scanned = second["memo-2024-19"]
    assert scanned["ragfunnel.ingest.pages_without_text"] == 1
    assert tuple(scanned.get("ragfunnel.chunks.ids", ())) == ()
    assert first["memo-2024-19"]  # OCR read the page in the clean build
    assert all(
        first[d] == tuple(second[d]["ragfunnel.chunks.ids"]) for d in current - {"memo-2024-19"}
    )


def test_below_the_threshold_the_generator_is_never_called(pipeline: Pipeline) -> None:
    with capture_spans() as spans:
        answer = ask(pipeline, "none-parental-leave")
    assert answer == ABSTAINED
    assert spans.by_stage("generate") == []
    (cut,) = spans.attributes("cut")
    assert cut["ragfunnel.answer.abstained"] is True
    assert cut["ragfunnel.cut.threshold"] == Settings().threshold
    (rerank,) = spans.attributes("rerank")
    assert max(rerank["ragfunnel.documents.scores"]) < Settings().threshold
    (question,) = spans.attributes("question")
    assert question["ragfunnel.answer.abstained"] is True
    assert pipeline.outcomes["none-parental-leave"].generator_called is False


def test_above_the_threshold_the_answer_cites_its_sources(pipeline: Pipeline) -> None:
    with capture_spans() as spans:
        answer = ask(pipeline, "travel-hotel-and-taxi")
    (cut,) = spans.attributes("cut")
    (generate,) = spans.attributes("generate")
    prompt = list(generate["ragfunnel.context.ids"])
    assert prompt == list(cut["ragfunnel.documents.ids"])
    assert max(cut["ragfunnel.documents.scores"]) >= cut["ragfunnel.cut.threshold"]
    cited = cited_numbers(answer)
    assert cited and cited <= set(range(1, len(prompt) + 1))
    sources = answer.split("Sources:")[1]
    for n in cited:  # every cited number names its source file
        assert f"[{n}] " in sources
    assert "[1] policy-2024-07.pdf" in sources
    assert "120 EUR" in answer and "22:00" in answer


def test_fusion_keeps_an_exact_code_chunk_only_bm25_found(pipeline: Pipeline) -> None:
    with capture_spans() as spans:
        answer = ask(pipeline, "fw-e1742")
    by_name = {a["ragfunnel.retriever.name"]: a for a in spans.attributes("retrieve")}
    code_chunk = "runbook-fw-reset@3.1#error-code-fw-e1742"
    assert code_chunk in by_name["bm25"]["ragfunnel.documents.ids"]
    assert code_chunk not in list(by_name["lsa"].get("ragfunnel.documents.ids", ()))
    assert list(by_name["rrf"]["ragfunnel.retriever.fused_from"]) == ["bm25", "lsa"]
    assert code_chunk in by_name["rrf"]["ragfunnel.documents.ids"]
    assert code_chunk in spans.attributes("generate")[0]["ragfunnel.context.ids"]
    assert "checksum mismatch" in answer


def test_the_dense_retriever_finds_a_paraphrase(pipeline: Pipeline) -> None:
    with capture_spans() as spans:
        pipeline.answer("paraphrase", "accommodation cost per night on trips")
    by_name = {a["ragfunnel.retriever.name"]: a for a in spans.attributes("retrieve")}
    assert list(by_name["lsa"]["ragfunnel.documents.ids"])
    assert len(by_name["rrf"]["ragfunnel.documents.ids"]) <= Settings().depth


def test_an_openai_compatible_llm_gets_the_numbered_evidence(
    documents: list[Document], chat_server: ChatServer
) -> None:
    chat_server.reply = lambda _body: "The allowance is 120 EUR [1]."
    llm_pipeline = Pipeline(documents, llm=LLM(base_url=chat_server.url, model="local-model"))
    llm_pipeline.build_index()
    with capture_spans(capture_content=True) as spans:
        answer = ask(llm_pipeline, "travel-hotel")
    assert answer == "The allowance is 120 EUR [1]."
    (request,) = chat_server.requests
    assert request["model"] == "local-model"
    assert "[Source 1 – policy-2024-07.pdf]" in request["messages"][1]["content"]
    (generate,) = spans.attributes("generate")
    assert generate["gen_ai.request.model"] == "local-model"
    assert generate["gen_ai.usage.input_tokens"] == 50
    assert generate["ragfunnel.answer.text"] == answer


@pytest.mark.parametrize(
    ("case_id", "qualifier"),
    [("travel-hotel-and-taxi", "at any time"), ("de-hotel-taxi", "jederzeit")],
)
def test_the_added_qualifier_fault_appends_one_in_the_sources_language(
    documents: list[Document], pipeline: Pipeline, case_id: str, qualifier: str
) -> None:
    faulty = Pipeline(documents, injection=Injection(questions={case_id: "added_qualifier"}))
    faulty.build_index()
    clean, changed = ask(pipeline, case_id), ask(faulty, case_id)
    first_clean, first_changed = clean.split(" [")[0], changed.split(" [")[0]
    assert first_changed.startswith(first_clean.rstrip("."))
    assert first_changed.endswith(f"{qualifier}.") and qualifier not in clean
    # Only the first quoted sentence changes; the citations and the source list stay.
    assert changed.split(" [", 1)[1] == clean.split(" [", 1)[1]
