"""Reading the answer out of what a generate step returns: text, model, usage, logprobs.

A string, an OpenAI ``ChatCompletion`` (or any object or dict of its shape: ``choices[0]``
with ``message.content`` or ``text``, ``usage``, ``logprobs.content``), or an object with a
``text``/``content``/``answer``/``response``/``output`` string; ``text=`` overrides. Like
:mod:`.extract` (ids and scores), pure and never consuming: a stream raises
:class:`~ragfunnel.instrumentation.extract.Unread`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ragfunnel.instrumentation.contract import LOW_CONFIDENCE_PROBABILITY
from ragfunnel.instrumentation.extract import (
    ExtractionError,
    Unread,
    field_of,
    is_finite,
    is_stream,
)

__all__ = ["Answer", "answer_of", "is_content_token"]


@dataclass
class Answer:
    """What a generate step produced, as far as the return value tells."""

    text: str | None = None
    response_model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    logprob_min: float | None = None
    low_confidence: list[str] | None = None


_CONTENT_TOKEN = re.compile(r"^\s*(\d[\d.,:/-]*|[A-Z][\w'-]*)\s*$")


def is_content_token(token: str) -> bool:
    """Digits and capitalised words: the tokens whose low confidence hints at invention."""
    return _CONTENT_TOKEN.match(token) is not None


def answer_of(value: Any, *, text: Callable[[Any], Any] | None = None) -> Answer:
    """Read the answer text, usage and logprobs from a generate step's return value."""
    if is_stream(value):  # a stream returned by a plain function: the app reads it, not us
        raise Unread(value)
    if text is not None:
        out = text(value)
        return Answer(text=None if out is None else str(out))
    if isinstance(value, str):
        return Answer(text=value)
    choices = field_of(value, "choices")
    if isinstance(choices, Sequence) and not isinstance(choices, str) and choices:
        return _chat_completion(value, choices[0])
    for key in ("text", "content", "answer", "response", "output"):
        found = field_of(value, key)
        if isinstance(found, str):
            return Answer(text=found)
    raise ExtractionError(f"no answer text found on {type(value).__name__}; pass text=")


def _chat_completion(value: Any, choice: Any) -> Answer:
    message = field_of(choice, "message")
    content = field_of(message, "content") if message is not None else field_of(choice, "text")
    answer = Answer(text=content if isinstance(content, str) else None)
    model = field_of(value, "model")
    answer.response_model = model if isinstance(model, str) else None
    usage = field_of(value, "usage")
    if usage is not None:
        prompt = field_of(usage, "prompt_tokens")
        completion = field_of(usage, "completion_tokens")
        answer.input_tokens = prompt if isinstance(prompt, int) else None
        answer.output_tokens = completion if isinstance(completion, int) else None
    logprobs = field_of(choice, "logprobs")
    tokens = field_of(logprobs, "content") if logprobs is not None else None
    if isinstance(tokens, Sequence) and tokens:
        _read_logprobs(answer, tokens)
    return answer


def _read_logprobs(answer: Answer, tokens: Sequence[Any]) -> None:
    threshold = math.log(LOW_CONFIDENCE_PROBABILITY)
    lowest: float | None = None
    low: list[str] = []
    for entry in tokens:
        logprob = field_of(entry, "logprob")
        token = field_of(entry, "token")
        if not is_finite(logprob) or not isinstance(token, str):
            continue
        lp = float(logprob)
        lowest = lp if lowest is None else min(lowest, lp)
        if lp < threshold and is_content_token(token):
            low.append(token.strip())
    answer.logprob_min = lowest
    answer.low_confidence = low
