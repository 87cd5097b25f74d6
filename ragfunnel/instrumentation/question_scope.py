"""The question a call runs under, and the chunks its stages returned.

A :class:`Question` is made current by ``@ragfunnel.question`` (``calls.py``) for everything the
question's code calls. Its stage spans copy its id; and the ranking stages' results (documents
with both an id and a text: dicts, LangChain ``Document``s, LlamaIndex nodes) are remembered by
reference, so that a later stage handed those chunks' *texts* as plain strings (``context=[doc
["text"] for doc in docs]``) records the chunks' ids, not text ids (docs/span-contract.md,
"Plain strings: ids or texts"). Nothing is read until such a list of texts comes: the request
path only appends a reference.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.trace import Span

__all__ = ["CURRENT_QUESTION", "Question", "remember", "with_known_ids"]


@dataclass
class Question:
    """The question a call runs under: its id (copied onto stage spans) and its root span.

    ``results`` holds the ranking stages' results whose items are documents, read only when a
    stage passes texts (:func:`with_known_ids`).
    """

    id: str
    span: Span
    results: list[Any] = field(default_factory=list)


CURRENT_QUESTION: contextvars.ContextVar[Question | None] = contextvars.ContextVar(
    "ragfunnel_question", default=None
)


def remember(result: Any) -> None:
    """Keep a reference to a ranking stage's documents for the current question, if any."""
    question = CURRENT_QUESTION.get()
    if question is not None:
        question.results.append(result)


_SHORTEST_QUOTED = 20
"""A prompt string is matched to a chunk it only contains when the chunk's text is at least
this long (a short text would be found inside too many prompt strings)."""


def with_known_ids(
    texts: Sequence[Any], ids: list[str], ids_by_text: Callable[[list[Any]], dict[str, str]]
) -> list[str]:
    """``ids`` (text ids) with each replaced by the chunk id an earlier stage gave its text.

    A string is the chunk when it equals the chunk's text (surrounding whitespace aside), or
    when it contains exactly one known chunk's text (a prompt line ``"[1] " + text``); any
    other string keeps its text id.
    """
    question = CURRENT_QUESTION.get()
    if question is None or not question.results:
        return ids
    known = ids_by_text(question.results)
    if not known:
        return ids
    out = []
    for text, given in zip(texts, ids, strict=True):
        found = None
        if isinstance(text, str):
            found = known.get(text.strip())
            if found is None:
                inside = {
                    cid
                    for chunk, cid in known.items()
                    if len(chunk) >= _SHORTEST_QUOTED and chunk in text
                }
                found = inside.pop() if len(inside) == 1 else None
        out.append(found if found is not None else given)
    return out
