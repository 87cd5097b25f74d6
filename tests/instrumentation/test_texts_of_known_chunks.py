"""A prompt built from the retrieved documents' texts records the documents' ids.

The usual app keeps documents (dicts, LangChain ``Document``s, LlamaIndex nodes) up to the
prompt and hands the model their texts: ``generate(question, [d["text"] for d in docs])``.
Recorded as text ids, those chunks would never be "in the prompt", and the funnel would blame
the cut for evidence the model saw. Within a question, a text an earlier stage returned as a
document gets that document's id; anything else keeps its text id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from langchain_core.documents import Document

import ragfunnel
from ragfunnel.instrumentation import contract as c
from ragfunnel.testing import capture_spans

DOCS = {
    "policy#hotel": "The hotel allowance is 120 EUR per night in every city.",
    "policy#taxi": "Taxi rides are covered between 22:00 and 06:00 only.",
    "policy#meals": "Meals are covered up to 40 EUR a day on travel days.",
}


def _as_dicts() -> list[Any]:
    return [{"id": i, "text": t, "score": 1.0 - n / 10} for n, (i, t) in enumerate(DOCS.items())]


def _as_documents() -> list[Any]:
    return [Document(page_content=t, metadata={"id": i}) for i, t in DOCS.items()]


def _text_of(doc: Any) -> str:
    return str(doc["text"] if isinstance(doc, dict) else doc.page_content)


def _run(documents: Callable[[], list[Any]], prompt: Callable[[list[Any]], list[str]],
         in_question: bool = True) -> dict[str, Any]:  # fmt: skip
    @ragfunnel.retrieve(name="kw")
    def search(query: str) -> list[Any]:
        return documents()

    @ragfunnel.cut(k=2)
    def gate(documents: list[Any], k: int = 2) -> list[Any]:
        return documents[:k]

    @ragfunnel.generate(model="m")
    def generate(question: str, context: list[str]) -> str:
        return "answer"

    def pipeline(question: str) -> str:
        return generate(question, prompt(gate(search(question))))

    @ragfunnel.question(id="qid")
    def traced(qid: str, question: str) -> str:
        return pipeline(question)

    with capture_spans(capture_content=("question", "answer")) as spans:
        if in_question:
            traced("q-1", "What is covered?")
        else:
            pipeline("What is covered?")
    (attrs,) = spans.attributes("generate")
    return attrs


@pytest.mark.parametrize("documents", [_as_dicts, _as_documents], ids=["dicts", "documents"])
def test_texts_of_retrieved_documents_are_recorded_as_their_ids(
    documents: Callable[[], list[Any]],
) -> None:
    attrs = _run(documents, lambda docs: [_text_of(d) for d in docs])
    assert attrs[c.CONTEXT_IDS] == ("policy#hotel", "policy#taxi")
    assert attrs[c.CONTEXT_READ_AS] == "texts"
    assert c.CONTEXT_TEXTS not in attrs  # chunk text not captured: the kind was not chosen


def test_a_prompt_line_around_one_text_is_that_document() -> None:
    attrs = _run(_as_dicts, lambda docs: [f"[{n}] {d['text']}\n" for n, d in enumerate(docs, 1)])
    assert attrs[c.CONTEXT_IDS] == ("policy#hotel", "policy#taxi")


def test_a_text_no_stage_returned_keeps_its_text_id() -> None:
    other = "Parking at the airport is never covered."
    attrs = _run(_as_dicts, lambda docs: [docs[0]["text"], other])
    assert attrs[c.CONTEXT_IDS] == ("policy#hotel", c.text_id(other))


def test_a_line_holding_two_texts_is_no_single_document() -> None:
    both = " ".join(DOCS.values())
    attrs = _run(_as_dicts, lambda docs: [both])
    assert attrs[c.CONTEXT_IDS] == (c.text_id(both),)


def test_outside_a_question_texts_keep_text_ids() -> None:
    attrs = _run(_as_dicts, lambda docs: [d["text"] for d in docs], in_question=False)
    assert attrs[c.CONTEXT_IDS] == tuple(c.text_id(t) for t in list(DOCS.values())[:2])


def test_documents_a_retriever_yields_resolve_once_the_app_has_read_them() -> None:
    @ragfunnel.retrieve(name="kw")
    def search(query: str) -> Iterator[dict[str, Any]]:
        yield from _as_dicts()  # relayed to the app, recorded as it reads

    @ragfunnel.generate(model="m")
    def generate(question: str, context: list[str]) -> str:
        return "answer"

    @ragfunnel.question(id="qid")
    def answer(qid: str, question: str) -> str:
        docs = list(search(question))
        return generate(question, [d["text"] for d in docs])

    with capture_spans() as spans:
        answer("q-1", "What is covered?")
    (attrs,) = spans.attributes("generate")
    assert attrs[c.CONTEXT_IDS] == tuple(DOCS)


def test_a_rerank_input_of_texts_records_the_documents_ids() -> None:
    @ragfunnel.retrieve(name="kw")
    def search(query: str) -> list[dict[str, Any]]:
        return _as_dicts()

    @ragfunnel.rerank(input="passages")
    def rerank(query: str, passages: list[str]) -> list[tuple[str, float]]:
        return [(text, 1.0) for text in reversed(passages)]

    @ragfunnel.question(id="qid")
    def answer(qid: str, question: str) -> object:
        return rerank(question, [d["text"] for d in search(question)])

    with capture_spans() as spans:
        answer("q-1", "What is covered?")
    (attrs,) = spans.attributes("rerank")
    assert attrs[c.INPUT_IDS] == tuple(DOCS)


def test_the_app_sees_its_own_values() -> None:
    docs = _as_dicts()
    before = [dict(d) for d in docs]
    got: list[Any] = []

    @ragfunnel.retrieve(name="kw")
    def search(query: str) -> list[dict[str, Any]]:
        return docs

    @ragfunnel.generate(model="m")
    def generate(question: str, context: list[str]) -> str:
        got.append(context)
        return "answer"

    @ragfunnel.question(id="qid")
    def answer(qid: str, question: str) -> str:
        return generate(question, [d["text"] for d in search(question)])

    with capture_spans():
        assert answer("q-1", "What is covered?") == "answer"
    assert docs == before
    assert got == [[d["text"] for d in before]]
