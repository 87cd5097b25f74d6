"""The ingest decorator records each chunk's character offsets when the chunks carry them
(issue 32: spans of a document resolve against any chunking): ``start``/``end``, LangChain's
``metadata["start_index"]`` (a real ``Document``, as ``RecursiveCharacterTextSplitter(
add_start_index=True)`` makes it), LlamaIndex's ``start_char_idx``/``end_char_idx``
(llama-index-core is not installed here: its fields, as in ``test_extract``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from langchain_core.documents import Document

import ragfunnel
from ragfunnel.instrumentation import contract as c
from ragfunnel.instrumentation.extract import chunk_offsets
from ragfunnel.testing import capture_spans

TEXT = "The hotel allowance is 120 EUR per night. Taxis are refunded up to 40 EUR."


@dataclass
class TextNode:  # the fields of LlamaIndex's TextNode that matter here
    node_id: str
    text: str
    start_char_idx: int | None
    end_char_idx: int | None

    def get_content(self) -> str:
        return self.text


@dataclass
class NodeWithScore:
    node: TextNode
    score: float


def _langchain() -> list[Document]:
    return [
        Document(page_content=TEXT[:41], metadata={"id": "p#0", "start_index": 0}),
        Document(page_content=TEXT[42:], metadata={"id": "p#1", "start_index": 42}),
    ]


def _llamaindex() -> list[TextNode]:
    return [TextNode("p#0", TEXT[:41], 0, 41), TextNode("p#1", TEXT[42:], 42, len(TEXT))]


@pytest.mark.parametrize(
    ("chunks", "offsets"),
    [
        (_langchain(), ([0, 42], [41, len(TEXT)])),  # the end from the text's length
        (_llamaindex(), ([0, 42], [41, len(TEXT)])),
        ([NodeWithScore(node, 1.0) for node in _llamaindex()], ([0, 42], [41, len(TEXT)])),
        (
            [{"id": "a", "start": 3, "end": 9}, {"id": "b", "text": "xyz", "start": 9}],
            ([3, 9], [9, 12]),
        ),
        ((Document(page_content="x", metadata={"start_index": 5}),), ([5], [6])),
    ],
)
def test_offsets_of_each_shape(chunks: Any, offsets: tuple[list[int], list[int]]) -> None:
    assert chunk_offsets(chunks) == offsets


@pytest.mark.parametrize(
    "chunks",
    [
        [],
        ["p#0", "p#1"],  # ids only
        [("p#0", 0.5)],
        [{"id": "a", "start": 0, "end": 4}, {"id": "b"}],  # some chunks only: none
        [TextNode("p#0", "x", None, None)],  # a LlamaIndex node without offsets
        [{"id": "a", "start": True, "end": 4}],  # a bool is no offset
        [{"id": "a", "start": 2}],  # a start, but no end and no text
    ],
)
def test_no_offsets_unless_every_chunk_has_them(chunks: Any) -> None:
    assert chunk_offsets(chunks) is None


@ragfunnel.ingest(document_id="document")
def split(document: str, chunks: list[Any]) -> list[Any]:
    return chunks


@pytest.mark.parametrize("make", [_langchain, _llamaindex])
def test_the_ingest_span_records_the_offsets_and_the_texts(make: Any) -> None:
    with capture_spans(capture_content=True) as captured:
        split("policy", make())
    (span,) = captured.spans
    attrs = dict(span.attributes or {})
    assert attrs[c.CHUNKS_IDS] == ("p#0", "p#1")
    assert attrs[c.CHUNKS_STARTS] == (0, 42)
    assert attrs[c.CHUNKS_ENDS] == (41, len(TEXT))
    assert attrs[c.CHUNKS_TEXTS] == (TEXT[:41], TEXT[42:])


def test_without_content_capture_the_texts_stay_out_but_offsets_are_kept() -> None:
    with capture_spans() as captured:
        split("policy", _langchain())
    attrs = dict(captured.spans[0].attributes or {})
    assert c.CHUNKS_TEXTS not in attrs
    assert attrs[c.CHUNKS_STARTS] == (0, 42)


def test_the_texts_pass_the_redaction_hook() -> None:
    with capture_spans(capture_content=True, redact=lambda key, text: text.upper()) as captured:
        split("policy", _langchain())
    assert captured.spans[0].attributes[c.CHUNKS_TEXTS][0] == TEXT[:41].upper()  # type: ignore[index]
