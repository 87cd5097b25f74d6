"""Plain strings are read as ids or as texts, never both (issue 34, reproduction 1).

A generate context of ``["tep-en#hotel-cap", "tep-en#taxi"]`` used to be recorded as its own
chunk texts, so the judge rated every answer against the ids. Now strings without whitespace are
ids (no text recorded), strings with whitespace are texts (with text ids), the span says which
reading it took, and ``ids=True``/``ids=False``/an ``ids=`` callable override it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import ragfunnel
from ragfunnel.instrumentation import contract as c
from ragfunnel.testing import capture_spans

IDS = ["tep-en#hotel-cap", "tep-en#taxi"]
TEXTS = ["The hotel allowance is 120 EUR per night.", "Taxi rides are covered after 22:00."]


def _generate_attrs(context: object, **options: object) -> dict[str, object]:
    @ragfunnel.generate(model="m", **options)
    def generate(question: str, context: object) -> str:
        return "answer"

    with capture_spans(capture_content=True) as spans:
        generate("q", context)
    (attrs,) = spans.attributes("generate")
    return attrs


@pytest.mark.parametrize("shape", [list, tuple])
def test_id_strings_are_ids_and_never_their_own_text(shape: type) -> None:
    attrs = _generate_attrs(shape(IDS))
    assert attrs[c.CONTEXT_IDS] == tuple(IDS)
    assert c.CONTEXT_TEXTS not in attrs
    assert attrs[c.CONTEXT_READ_AS] == "ids"


def test_text_strings_are_texts_with_text_ids() -> None:
    attrs = _generate_attrs(TEXTS)
    assert attrs[c.CONTEXT_TEXTS] == tuple(TEXTS)
    assert attrs[c.CONTEXT_IDS] == tuple(c.text_id(t) for t in TEXTS)
    assert all(i.startswith("text:") and len(i) == 21 for i in attrs[c.CONTEXT_IDS])
    assert attrs[c.CONTEXT_READ_AS] == "texts"


def test_one_string_with_whitespace_makes_the_list_texts() -> None:
    attrs = _generate_attrs(["tep-en#taxi", "Taxi rides are covered after 22:00."])
    assert attrs[c.CONTEXT_READ_AS] == "texts"
    assert c.CONTEXT_TEXTS in attrs


def test_ids_true_reads_strings_with_spaces_as_ids() -> None:
    ids = ["Travel Policy.pdf#3", "Travel Policy.pdf#4"]
    attrs = _generate_attrs(ids, ids=True)
    assert attrs[c.CONTEXT_IDS] == tuple(ids)
    assert c.CONTEXT_TEXTS not in attrs
    assert attrs[c.CONTEXT_READ_AS] == "ids"


def test_ids_false_reads_one_word_chunks_as_texts() -> None:
    attrs = _generate_attrs(["Yes.", "No."], ids=False)
    assert attrs[c.CONTEXT_TEXTS] == ("Yes.", "No.")
    assert attrs[c.CONTEXT_READ_AS] == "texts"


def test_an_ids_callable_names_the_ids_of_a_context_of_texts() -> None:
    attrs = _generate_attrs(TEXTS, ids=lambda context: IDS)
    assert attrs[c.CONTEXT_IDS] == tuple(IDS)
    assert attrs[c.CONTEXT_TEXTS] == tuple(TEXTS)


def test_a_generator_context_is_left_unread() -> None:
    def chunks() -> Iterator[str]:
        yield from IDS

    attrs = _generate_attrs(chunks())
    assert c.CONTEXT_IDS not in attrs and c.CONTEXT_TEXTS not in attrs


def test_without_chunk_capture_texts_give_text_ids_and_no_text() -> None:
    @ragfunnel.generate(model="m")
    def generate(question: str, context: list[str]) -> str:
        return "answer"

    with capture_spans(capture_content=("question", "answer")) as spans:
        generate("q", TEXTS)
    (attrs,) = spans.attributes("generate")
    assert attrs[c.CONTEXT_IDS] == tuple(c.text_id(t) for t in TEXTS)
    assert c.CONTEXT_TEXTS not in attrs
    assert attrs[c.ANSWER_TEXT] == "answer"


def test_a_text_keeps_one_id_from_retriever_through_cut_to_prompt() -> None:
    @ragfunnel.retrieve(name="texts")
    def search(query: str) -> list[str]:
        return list(reversed(TEXTS))

    @ragfunnel.cut(k=1)
    def gate(documents: list[str]) -> list[str]:
        return documents[:1]

    @ragfunnel.generate(model="m")
    def generate(question: str, context: list[str]) -> str:
        return "answer"

    with capture_spans() as spans:
        generate("q", gate(search("q")))
    (retrieved,) = spans.attributes("retrieve")
    (cut,) = spans.attributes("cut")
    (prompt,) = spans.attributes("generate")
    assert retrieved[c.DOCUMENTS_IDS] == tuple(c.text_id(t) for t in reversed(TEXTS))
    assert retrieved[c.DOCUMENTS_READ_AS] == "texts"
    assert cut[c.INPUT_IDS] == retrieved[c.DOCUMENTS_IDS]
    assert cut[c.DOCUMENTS_IDS] == prompt[c.CONTEXT_IDS] == (c.text_id(TEXTS[1]),)
    # No text anywhere with capture off: text ids only.
    assert not any(t in str(a) for a in (retrieved, cut, prompt) for t in TEXTS)


def test_retrieved_id_strings_keep_the_fast_path_and_say_so_only_when_texts() -> None:
    @ragfunnel.retrieve(name="ids")
    def search(query: str) -> list[str]:
        return IDS

    with capture_spans() as spans:
        assert search("q") == IDS  # the app's value, untouched
    (attrs,) = spans.attributes("retrieve")
    assert attrs[c.DOCUMENTS_IDS] == tuple(IDS)
