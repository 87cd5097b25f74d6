"""Return shapes the decorators understand without help (docs/span-contract.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from langchain_core.documents import Document
from openai.types.chat import ChatCompletion

import ragfunnel
from ragfunnel.instrumentation import contract as c
from ragfunnel.instrumentation.answer_values import answer_of
from ragfunnel.instrumentation.extract import ExtractionError, ids_of, ranked
from ragfunnel.testing import CapturedSpans


@dataclass
class Hit:
    id: str
    score: float


@dataclass
class TextNode:  # the fields of LlamaIndex's TextNode that matter here
    node_id: str
    text: str

    def get_content(self) -> str:
        return self.text


@dataclass
class NodeWithScore:  # LlamaIndex's wrapper: .node and .score
    node: TextNode
    score: float


@pytest.mark.parametrize(
    ("value", "ids", "scores"),
    [
        (["a", "b"], ["a", "b"], None),
        ([1, 2], ["1", "2"], None),
        ([("a", 0.9), ("b", 0.5)], ["a", "b"], [0.9, 0.5]),
        ([{"id": "a", "score": 2}, {"id": "b", "score": 1}], ["a", "b"], [2.0, 1.0]),
        ([Hit("a", 0.3), Hit("b", 0.2)], ["a", "b"], [0.3, 0.2]),
        ({"documents": [{"doc_id": "a"}]}, ["a"], None),
        ([NodeWithScore(TextNode("n1", "t"), 0.7)], ["n1"], [0.7]),
        ([{"id": "a", "score": 1.0}, {"id": "b"}], ["a", "b"], None),  # partial scores: dropped
        ([{"id": "a", "score": float("nan")}], ["a"], None),
    ],
)
def test_ranked_shapes(value: Any, ids: list[str], scores: list[float] | None) -> None:
    found = ranked(value)
    assert found.ids == ids
    assert found.scores == scores


def test_langchain_documents_use_metadata_id_and_page_content() -> None:
    docs = [
        Document(page_content="alpha", metadata={"id": "kb-1", "score": 0.8}),
        Document(page_content="beta", metadata={"id": "kb-2", "score": 0.4}),
    ]
    found = ranked(docs, texts=True)
    assert found.ids == ["kb-1", "kb-2"]
    assert found.scores == [0.8, 0.4]
    assert found.texts == ["alpha", "beta"]


def test_a_langchain_rerankers_relevance_score_is_the_rerank_score(spans: CapturedSpans) -> None:
    # LangChain document compressors (CohereRerank, FlashrankRerank, CrossEncoderReranker)
    # return the documents they keep with the score in metadata["relevance_score"].
    candidates = [
        Document(page_content="alpha", metadata={"id": "kb-1"}),
        Document(page_content="beta", metadata={"id": "kb-2"}),
    ]

    @ragfunnel.rerank(model="cross-encoder")
    def compress_documents(documents: list[Document], query: str) -> list[Document]:
        return [
            Document(page_content=d.page_content, metadata={**d.metadata, "relevance_score": s})
            for d, s in zip(reversed(documents), (0.93, 0.12), strict=True)
        ]

    kept = compress_documents(candidates, "q")
    assert [d.metadata["relevance_score"] for d in kept] == [0.93, 0.12]
    (span,) = spans.attributes("rerank")
    assert list(span[c.INPUT_IDS]) == ["kb-1", "kb-2"]
    assert list(span[c.DOCUMENTS_IDS]) == ["kb-2", "kb-1"]
    assert list(span[c.DOCUMENTS_SCORES]) == [0.93, 0.12]


def test_user_callables_take_over() -> None:
    value = {"rows": [["x", 3], ["y", 1]]}
    found = ranked(
        value, ids=lambda v: [r[0] for r in v["rows"]], scores=lambda v: [r[1] for r in v["rows"]]
    )
    assert found.ids == ["x", "y"]
    assert found.scores == [3.0, 1.0]


def test_unreadable_shapes_raise_a_clear_error() -> None:
    with pytest.raises(ExtractionError, match="no id found on object"):
        ranked([object()])
    with pytest.raises(ExtractionError, match="document list"):
        ranked(42)


def completion(logprobs: list[tuple[str, float]] | None) -> ChatCompletion:
    return ChatCompletion.model_validate(
        {
            "id": "c1",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "Firmware 4.2.0 and Berlin."},
                    "logprobs": None
                    if logprobs is None
                    else {
                        "content": [
                            {"token": t, "logprob": lp, "bytes": None, "top_logprobs": []}
                            for t, lp in logprobs
                        ]
                    },
                }
            ],
            "usage": {"prompt_tokens": 120, "completion_tokens": 9, "total_tokens": 129},
        }
    )


def test_openai_chat_completion_with_logprobs() -> None:
    answer = answer_of(
        completion([("Firmware", -0.01), (" 4.2.0", -1.2), (" and", -3.0), (" Berlin", -0.9)])
    )
    assert answer.text == "Firmware 4.2.0 and Berlin."
    assert answer.response_model == "gpt-4o-mini-2024-07-18"
    assert (answer.input_tokens, answer.output_tokens) == (120, 9)
    assert answer.logprob_min == -3.0
    # " and" is below p=0.5 but not a content token; "4.2.0" and "Berlin" are.
    assert answer.low_confidence == ["4.2.0", "Berlin"]


def test_generate_span_from_a_chat_completion(content_spans: CapturedSpans) -> None:
    @ragfunnel.generate(model="gpt-4o-mini")
    def call_llm(question: str, context: list[Document]) -> ChatCompletion:
        return completion(None)

    result = call_llm("q", [Document(page_content="ctx", metadata={"id": "kb-1"})])
    assert isinstance(result, ChatCompletion)
    (attrs,) = content_spans.attributes("generate")
    assert attrs[c.ANSWER_TEXT] == "Firmware 4.2.0 and Berlin."
    assert attrs[c.CONTEXT_IDS] == ("kb-1",)
    assert attrs[c.CONTEXT_TEXTS] == ("ctx",)
    assert attrs[c.GEN_AI_INPUT_TOKENS] == 120
    assert c.LOGPROBS_MIN not in attrs


def test_answer_shapes() -> None:
    assert answer_of("plain").text == "plain"
    assert answer_of({"answer": "from dict"}).text == "from dict"
    assert answer_of(Hit("x", 1.0), text=lambda h: h.id).text == "x"
    with pytest.raises(ExtractionError):
        answer_of(12)


@pytest.mark.parametrize(
    "value",
    [(x for x in ["g1"]), iter(["g1"]), map(str, [1]), {"documents": iter(["g1"])}],
    ids=["generator", "iterator", "map", "mapping-of-iterator"],
)
def test_one_shot_values_are_refused_not_consumed(value: Any) -> None:
    from ragfunnel.instrumentation.extract import Unread

    with pytest.raises(Unread, match="one-shot or lazy"):
        ranked(value)
    inner = value["documents"] if isinstance(value, dict) else value
    assert list(inner)  # still holds its item


class _LoudTuple(tuple):  # type: ignore[type-arg]
    """A tuple subclass whose own protocol methods are app code: reading them is logged."""

    calls: list[str] = []

    def __getitem__(self, key: Any) -> Any:
        self.calls.append("__getitem__")
        return super().__getitem__(key)

    def __iter__(self) -> Any:
        self.calls.append("__iter__")
        return super().__iter__()


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ([("a", 0.9), ("b", 0.5)], ["a", "b"]),  # the first column of plain pairs
        ([("a",), ("b", 0.5, "x")], ["a", "b"]),  # any length from 1
        (
            (("a", 1), ("https://u:pw@h/x", 2)),
            ["a", "https://REDACTED:REDACTED@h/x"],
        ),  # URLs redacted
        (["a", "b"], ["a", "b"]),
        ([{"id": "a"}, {"id": "b"}], ["a", "b"]),
        ([("a", 0.9), ()], ExtractionError),  # an empty tuple has no id, as before
        ([("a", 0.9), _LoudTuple(("b", 0.5))], ["a", "b"]),  # a subclass: the general path
    ],
)
def test_a_stage_inputs_ids(value: Any, expected: list[str] | type[Exception]) -> None:
    _LoudTuple.calls.clear()
    if isinstance(expected, list):
        assert ids_of(value) == expected
    else:
        with pytest.raises(expected):
            ids_of(value)
    assert "__iter__" not in _LoudTuple.calls  # the one-column split takes plain tuples only
