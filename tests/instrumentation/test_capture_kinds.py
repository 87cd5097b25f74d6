"""Capture by kind (issue 34, Deliver 2): a service records the question and the answer, never
its corpus, and is judged with ``--chunks``; nothing of an unchosen kind reaches any span."""

from __future__ import annotations

import contextlib
import itertools
import logging
from collections.abc import Iterator

import pytest

import ragfunnel
from ragfunnel.instrumentation import contract as c
from ragfunnel.testing import capture_spans

QUESTION = "QMARK which hotel allowance applies?"
CHUNK = "CMARK The hotel allowance is 120 EUR per night."
ANSWER = "AMARK 120 EUR per night."
MARKS = {"question": "QMARK", "chunks": "CMARK", "answer": "AMARK"}


@ragfunnel.retrieve(name="kw")
def _search(query: str) -> list[dict[str, str]]:
    return [{"id": "hotel#1", "text": CHUNK}]


@ragfunnel.generate(model="m")
def _generate(question: str, context: list[dict[str, str]]) -> str:
    return ANSWER


@ragfunnel.rerank
def _failing(documents: list[dict[str, str]]) -> list[dict[str, str]]:
    raise RuntimeError(f"reranker down for {QUESTION} with {CHUNK}")


@ragfunnel.question(id="qid")
def _answer(qid: str, question: str) -> str:
    docs = _search(question)
    with contextlib.suppress(RuntimeError):
        _failing(docs)
    return _generate(question, docs)


def _everything_recorded(kinds: object) -> str:
    with capture_spans(capture_content=kinds) as spans:  # type: ignore[arg-type]
        assert _answer("q-1", QUESTION) == ANSWER
    parts = []
    for span in spans:
        parts.append(repr(dict(span.attributes or {})))
        parts.append(repr(span.status.description))
        parts += [repr(dict(e.attributes or {})) for e in span.events]
    return "\n".join(parts)


KIND_SETS = [
    frozenset(chosen) for n in range(len(MARKS) + 1) for chosen in itertools.combinations(MARKS, n)
]


@pytest.mark.parametrize("kinds", KIND_SETS, ids=lambda k: ",".join(sorted(k)) or "none")
@pytest.mark.parametrize("shape", ["tuple", "string", "generator"])
def test_only_the_chosen_kinds_are_recorded(kinds: frozenset[str], shape: str) -> None:
    if shape == "string":
        given: object = ",".join(sorted(kinds))
    elif shape == "generator":
        given = (k for k in sorted(kinds))
    else:
        given = tuple(sorted(kinds))
    recorded = _everything_recorded(given)
    for kind, mark in MARKS.items():
        assert (mark in recorded) == (kind in kinds), (kind, recorded)


def test_true_records_every_kind_and_exception_messages() -> None:
    recorded = _everything_recorded(True)
    assert all(mark in recorded for mark in MARKS.values())
    assert "reranker down" in recorded


def test_some_kinds_never_record_an_exception_message() -> None:
    recorded = _everything_recorded(("question", "chunks", "answer")[:2])
    assert "reranker down" not in recorded


def test_question_and_answer_only_records_ids_and_answer(caplog: pytest.LogCaptureFixture) -> None:
    with capture_spans(capture_content="question, answer") as spans:
        _answer("q-2", QUESTION)
    (gen,) = spans.attributes("generate")
    assert gen[c.CONTEXT_IDS] == ("hotel#1",)
    assert c.CONTEXT_TEXTS not in gen
    assert gen[c.ANSWER_TEXT] == ANSWER
    (root,) = spans.attributes("question")
    assert root[c.QUESTION_TEXT] == QUESTION


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("true", {"question", "chunks", "answer"}),
        ("off", set()),
        ("question,answer", {"question", "answer"}),
        (" Answer ", {"answer"}),
    ],
)
def test_the_environment_variable_takes_kinds(
    monkeypatch: pytest.MonkeyPatch, raw: str, expected: set[str]
) -> None:
    monkeypatch.setenv("RAGFUNNEL_CAPTURE_CONTENT", raw)
    previous = ragfunnel.instrumentation.config.current_state()
    try:
        state = ragfunnel.configure(exporter="none")
        got = {k for k in MARKS if getattr(state, f"capture_{k}")}
        assert got == expected
        assert state.capture_content == bool(expected)
    finally:
        ragfunnel.instrumentation.config.restore(previous)


def test_an_unknown_kind_in_the_environment_warns_and_captures_nothing(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("RAGFUNNEL_CAPTURE_CONTENT", "question,corpus")
    previous = ragfunnel.instrumentation.config.current_state()
    try:
        with caplog.at_level(logging.WARNING, logger="ragfunnel"):
            state = ragfunnel.configure(exporter="none")
        assert state.capture_content is False
        assert "RAGFUNNEL_CAPTURE_CONTENT" in caplog.text and "'corpus'" in caplog.text
    finally:
        ragfunnel.instrumentation.config.restore(previous)


def _kinds() -> Iterator[str]:
    yield "answer"


def test_an_explicit_generator_of_kinds_is_read_once() -> None:
    previous = ragfunnel.instrumentation.config.current_state()
    try:
        state = ragfunnel.configure(exporter="none", capture_content=_kinds())
        assert (state.capture_question, state.capture_chunks, state.capture_answer) == (
            False,
            False,
            True,
        )
    finally:
        ragfunnel.instrumentation.config.restore(previous)
