"""The attributes a stage's span gets from its call's inputs and from its return value.

One function per stage and moment, picked once when the stage's plan is made (``stages.Plan``
holds them), so that a call runs its own stage's code without asking which stage it is. This is
the request path whose cost bench/RESULTS.md ("Decorator overhead") measures: everything that
can be decided at decoration time is decided there, and the ranked lists are read by
``extract.fast_ranked``'s C-level passes when their shape allows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ragfunnel.instrumentation import contract as c
from ragfunnel.instrumentation.answer_values import answer_of
from ragfunnel.instrumentation.config import State
from ragfunnel.instrumentation.extract import (
    Ranked,
    Unread,
    chunk_offsets,
    fast_ranked,
    field_of,
    ids_by_text,
    ids_of,
    items_of,
    ranked,
)
from ragfunnel.instrumentation.question_scope import remember, with_known_ids
from ragfunnel.instrumentation.redaction import redact, redact_ids, redact_urls
from ragfunnel.instrumentation.safety import not_read

if TYPE_CHECKING:
    from ragfunnel.instrumentation.stages import Plan

Attributes = dict[str, Any]
Getter = Callable[[str, tuple[Any, ...], Mapping[str, Any]], Any]
"""Resolves one option of a call from its ``(args, kwargs)``: an argument's value, a callable's
result, or a literal. Bound once per decorated function (no closure per call): ``Plan.get``."""

OnCall = Callable[["Plan", State, tuple[Any, ...], Mapping[str, Any], Attributes], None]
OnResult = Callable[["Plan", State, Any, Attributes], None]


def _content(st: State, attrs: Attributes, key: str, text: Any) -> None:
    """Record ``text`` under ``key``, through the hook (the caller checked the kind is captured)."""
    if isinstance(text, str):
        kept = redact(st.redact, key, text)
        if kept is not None:
            attrs[key] = kept


def _chunk_texts(st: State, attrs: Attributes, texts: Sequence[str] | None) -> None:
    if st.capture_chunks and texts:
        kept = [redact(st.redact, c.CONTEXT_TEXTS, t) for t in texts]
        attrs[c.CONTEXT_TEXTS] = [t if t is not None else "" for t in kept]


def _put_ranked(attrs: Attributes, found: Ranked, ids_key: str = c.DOCUMENTS_IDS) -> None:
    attrs[ids_key] = found.ids if found.redacted else redact_ids(found.ids)
    if ids_key == c.DOCUMENTS_IDS and found.scores is not None:
        attrs[c.DOCUMENTS_SCORES] = found.scores
    if found.read_as is not None:
        attrs[c.DOCUMENTS_READ_AS] = found.read_as


def _number(value: Any) -> int | float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return None


# --- at the start of a call ----------------------------------------------------------------
# An option without a source (no argument of that name, no literal) is not even looked up:
# that was decided once, when the plan was made.


def _question_call(
    plan: Plan, st: State, args: tuple[Any, ...], kw: Mapping[str, Any], attrs: Attributes
) -> None:
    text = plan.get("text", args, kw)
    given = plan.get("id", args, kw)
    qid = str(given) if given is not None else None
    if isinstance(text, str):
        attrs[c.QUESTION_HASH] = c.question_hash(text)
        qid = qid or c.derived_question_id(text)
        if st.capture_question:
            _content(st, attrs, c.QUESTION_TEXT, text)
    if qid is not None:  # else the decorator names the question after its trace
        attrs[c.QUESTION_ID] = qid
    attrs[c.RUN_ID] = st.run_id
    attrs.update(st.pipeline_attributes)


_TOP_K = c.TOP_K


def _retrieve_call(
    plan: Plan, st: State, args: tuple[Any, ...], kw: Mapping[str, Any], attrs: Attributes
) -> None:
    if st.capture_question:  # the argument is not even read otherwise
        _content(st, attrs, c.QUERY, plan.get("query", args, kw))
    if "top_k" in plan.sources:
        top_k = plan.get("top_k", args, kw)
        if type(top_k) is int:  # the usual case, without _number's checks
            attrs[_TOP_K] = top_k
        elif (number := _number(top_k)) is not None:
            attrs[_TOP_K] = int(number)


def _texts_known(found: Ranked, value: Any) -> None:
    """Texts an earlier stage of the question returned as documents get those documents' ids."""
    if found.read_as == _AS_TEXTS:
        found.ids = with_known_ids(items_of(value), found.ids, ids_by_text)


_AS_TEXTS, _TEXT_ID = c.READ_AS_TEXTS, c.TEXT_ID_PREFIX


def _input_ids(plan: Plan, args: tuple[Any, ...], kw: Mapping[str, Any], attrs: Attributes) -> None:
    if "input" in plan.sources and (given := plan.get("input", args, kw)) is not None:
        try:
            ids = ids_of(given, plan.read_as)  # URLs redacted
            if ids and ids[0].startswith(_TEXT_ID):  # read as texts
                ids = redact_ids(with_known_ids(items_of(given), ids, ids_by_text))
            attrs[c.INPUT_IDS] = ids
        except Unread as unread:
            not_read(f"{plan.stage.value} input", unread)


def _rerank_call(
    plan: Plan, st: State, args: tuple[Any, ...], kw: Mapping[str, Any], attrs: Attributes
) -> None:
    _input_ids(plan, args, kw, attrs)
    if "top_n" in plan.sources and (top_n := _number(plan.get("top_n", args, kw))) is not None:
        attrs[c.TOP_N] = int(top_n)


_CUT_OPTIONS = (
    ("k", c.CUT_K, int),
    ("threshold", c.CUT_THRESHOLD, float),
    ("token_budget", c.CUT_TOKEN_BUDGET, int),
)


def _cut_call(
    plan: Plan, st: State, args: tuple[Any, ...], kw: Mapping[str, Any], attrs: Attributes
) -> None:
    _input_ids(plan, args, kw, attrs)
    sources = plan.sources
    for option, key, kind in _CUT_OPTIONS:
        if option in sources and (value := _number(plan.get(option, args, kw))) is not None:
            # The contract's types (an infinite budget stays a double).
            attrs[key] = kind(value) if math.isfinite(value) else float(value)


def _generate_call(
    plan: Plan, st: State, args: tuple[Any, ...], kw: Mapping[str, Any], attrs: Attributes
) -> None:
    context = plan.get("context", args, kw)
    if isinstance(context, str):  # the prompt's text as one string: no ids to record
        _chunk_texts(st, attrs, [context])
    elif context is not None:
        try:
            found = ranked(context, ids=plan.ids, texts=st.capture_chunks, read_as=plan.read_as)
        except Unread as unread:
            not_read("generate context", unread)
        else:
            _texts_known(found, context)
            attrs[c.CONTEXT_IDS] = found.ids if found.redacted else redact_ids(found.ids)
            if found.read_as is not None:
                attrs[c.CONTEXT_READ_AS] = found.read_as
            _chunk_texts(st, attrs, found.texts)
    mode = plan.get("mode", args, kw)
    mode = getattr(mode, "value", mode)  # a Mode member, or its value
    attrs[c.MODE] = mode if isinstance(mode, str) and mode else c.Mode.PIPELINE.value
    if (sample := _number(plan.get("sample_index", args, kw))) is not None:
        attrs[c.SAMPLE_INDEX] = int(sample)


def _ingest_call(
    plan: Plan, st: State, args: tuple[Any, ...], kw: Mapping[str, Any], attrs: Attributes
) -> None:
    document = plan.get("document_id", args, kw)
    if document is not None:
        attrs[c.DOCUMENT_ID] = redact_urls(str(document))
    if c.INDEX_VERSION not in attrs and (
        version := st.pipeline_attributes.get(c.PIPELINE_PREFIX + "index_version")
    ):
        attrs[c.INDEX_VERSION] = str(version)


ON_CALL: dict[c.Stage, OnCall] = {
    c.Stage.QUESTION: _question_call,
    c.Stage.INGEST: _ingest_call,
    c.Stage.RETRIEVE: _retrieve_call,
    c.Stage.RERANK: _rerank_call,
    c.Stage.CUT: _cut_call,
    c.Stage.GENERATE: _generate_call,
}
"""Attributes known when the call starts (inputs and options), per stage."""


# --- from the return value -------------------------------------------------------------------

_IDS, _SCORES = c.DOCUMENTS_IDS, c.DOCUMENTS_SCORES


def _ranking_result(plan: Plan, st: State, result: Any, attrs: Attributes) -> None:
    # The usual list of pairs or ids, without building a Ranked on the way.
    cls = type(result)
    if plan.fast and (cls is list or cls is tuple) and result:
        found = fast_ranked(result)
        if found is not None:
            attrs[_IDS], scores = found
            if scores is not None:
                attrs[_SCORES] = scores
            if type(result[0]) is dict:
                remember(result)  # a later stage may pass their texts (question_scope)
            return
    read = ranked(result, ids=plan.ids, scores=plan.scores, read_as=plan.read_as)
    if read.read_as is None:
        if read.ids:
            remember(result)  # documents: a later stage may pass their texts (question_scope)
    else:
        _texts_known(read, result)
    _put_ranked(attrs, read)


def _ingest_result(plan: Plan, st: State, result: Any, attrs: Attributes) -> None:
    found = ranked(result, ids=plan.ids, texts=st.capture_chunks, read_as=plan.read_as)
    _put_ranked(attrs, found, c.CHUNKS_IDS)
    if st.capture_chunks and found.texts:  # resolve cases' quotes (docs/funnel.md, "Cases")
        kept = [redact(st.redact, c.CHUNKS_TEXTS, t) for t in found.texts]
        attrs[c.CHUNKS_TEXTS] = [t if t is not None else "" for t in kept]
    if plan.ids is None and (offsets := chunk_offsets(result)) is not None:
        attrs[c.CHUNKS_STARTS], attrs[c.CHUNKS_ENDS] = offsets
    for key, name in (
        (c.PAGES_WITHOUT_TEXT, "pages_without_text"),
        (c.PARTS_WITHOUT_TEXT, "parts_without_text"),
    ):
        count = field_of(result, name)
        if isinstance(count, int):
            attrs[key] = count


def _generate_result(plan: Plan, st: State, result: Any, attrs: Attributes) -> None:
    answer = answer_of(result, text=plan.text_of)
    if st.capture_answer:
        _content(st, attrs, c.ANSWER_TEXT, answer.text)
    if answer.response_model:
        attrs[c.GEN_AI_RESPONSE_MODEL] = answer.response_model
    if answer.input_tokens is not None:
        attrs[c.GEN_AI_INPUT_TOKENS] = answer.input_tokens
    if answer.output_tokens is not None:
        attrs[c.GEN_AI_OUTPUT_TOKENS] = answer.output_tokens
    if answer.logprob_min is not None:
        attrs[c.LOGPROBS_MIN] = answer.logprob_min
        attrs[c.LOGPROBS_LOW_CONFIDENCE] = answer.low_confidence or []


def _no_result(plan: Plan, st: State, result: Any, attrs: Attributes) -> None:
    """A question's return value is the app's: nothing of it is recorded."""


ON_RESULT: dict[c.Stage, OnResult] = {
    c.Stage.QUESTION: _no_result,
    c.Stage.INGEST: _ingest_result,
    c.Stage.RETRIEVE: _ranking_result,
    c.Stage.RERANK: _ranking_result,
    c.Stage.CUT: _ranking_result,
    c.Stage.GENERATE: _generate_result,
}
"""Attributes read from the return value, per stage."""


def stream_result(plan: Plan, items: list[Any]) -> Any:
    """Turn what a generator yielded into the value the stage's ``on_result`` reads.

    A streaming generate yields text chunks or chat-completion chunks: they are joined into one
    answer (with their logprobs). Other stages yield documents: the list is the result.
    """
    if plan.stage is not c.Stage.GENERATE or plan.text_of is not None:
        return items
    text: list[str] = []
    logprobs: list[Any] = []
    model = None
    for item in items:
        if isinstance(item, str):
            text.append(item)
            continue
        choices = field_of(item, "choices")
        if not choices:
            continue
        choice = choices[0]
        piece = field_of(field_of(choice, "delta"), "content")
        if isinstance(piece, str):
            text.append(piece)
        content = field_of(field_of(choice, "logprobs"), "content")
        if content:
            logprobs.extend(content)
        model = model or field_of(item, "model")
    return {
        "model": model,
        "choices": [{"message": {"content": "".join(text)}, "logprobs": {"content": logprobs}}],
    }
