"""What each stage records: the per-stage half of the decorators.

For every stage this module says which options it takes, which argument names it looks for when
an option is not given, and how the call's inputs and the return value become span attributes.
The generic machinery (sync/async/generators, span lifetime, error safety) lives in
``decorators.py``, which names only the question stage (it scopes the others).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragfunnel.instrumentation import contract as c
from ragfunnel.instrumentation.config import State
from ragfunnel.instrumentation.extract import (
    Ranked,
    Unread,
    answer_of,
    fast_ranked,
    field_of,
    ids_of,
    ranked,
)
from ragfunnel.instrumentation.redaction import (
    is_secret_name,
    redact,
    redact_ids,
    redact_urls,
    scrub_attributes,
)
from ragfunnel.instrumentation.safety import not_read
from ragfunnel.instrumentation.settings import MAX_EXTRA_ATTRIBUTES

Attributes = dict[str, Any]
Getter = Callable[[str], Any]
"""Resolves one option of a call: an argument's value, a callable's result, or a literal."""

_DOC_ARGS = ("documents", "docs", "candidates", "nodes", "results", "hits", "chunks", "passages")

# Options whose value, in decorator form, may name an argument of the decorated function (a
# string) or be a callable taking the function's arguments; the tuple lists the argument names
# looked for when the option is not given.
ARG_OPTIONS: dict[c.Stage, dict[str, tuple[str, ...]]] = {
    c.Stage.QUESTION: {
        "id": ("question_id", "qid"),
        "text": ("question", "query", "q", "text", "prompt"),
    },
    c.Stage.INGEST: {"document_id": ("document_id", "doc_id", "source", "path", "url")},
    c.Stage.RETRIEVE: {
        "query": ("query", "question", "q", "text"),
        "top_k": ("top_k", "k", "limit", "n"),
    },
    c.Stage.RERANK: {"input": _DOC_ARGS, "top_n": ("top_n", "k", "n", "top_k")},
    c.Stage.CUT: {
        "input": _DOC_ARGS,
        "k": ("k", "top_k", "top_n"),
        "threshold": ("threshold", "min_score"),
        "token_budget": ("token_budget", "max_tokens", "budget"),
    },
    c.Stage.GENERATE: {
        "context": ("context", "contexts", *_DOC_ARGS, "sources"),
        "mode": ("mode",),
        "sample_index": ("sample_index",),
    },
}

# Options that only ever take a literal (they describe the step, not the call).
LITERAL_OPTIONS: dict[c.Stage, frozenset[str]] = {
    c.Stage.QUESTION: frozenset(),
    c.Stage.INGEST: frozenset({"index_version"}),
    c.Stage.RETRIEVE: frozenset({"fused_from"}),
    c.Stage.RERANK: frozenset({"model"}),
    c.Stage.CUT: frozenset(),
    c.Stage.GENERATE: frozenset({"model"}),
}
COMMON_OPTIONS = frozenset({"name", "attributes"})
# Callables that read the return value when its shape is unusual: only where a value is read.
READER_OPTIONS: dict[c.Stage, frozenset[str]] = {
    c.Stage.QUESTION: frozenset(),
    c.Stage.INGEST: frozenset({"ids"}),
    c.Stage.RETRIEVE: frozenset({"ids", "scores"}),
    c.Stage.RERANK: frozenset({"ids", "scores"}),
    c.Stage.CUT: frozenset({"ids", "scores"}),
    c.Stage.GENERATE: frozenset({"text_of"}),
}


def allowed_options(stage: c.Stage) -> frozenset[str]:
    """Every option ``@ragfunnel.<stage>`` accepts (``text_of`` is spelt ``text`` by users)."""
    return COMMON_OPTIONS | READER_OPTIONS[stage] | set(ARG_OPTIONS[stage]) | LITERAL_OPTIONS[stage]


@dataclass
class Plan:
    """Everything decided once per decorated function (or ``stage()`` block)."""

    stage: c.Stage
    span_name: str
    static: Attributes
    sources: dict[str, Any] = field(default_factory=dict)
    ids: Callable[[Any], Any] | None = None
    scores: Callable[[Any], Any] | None = None
    text_of: Callable[[Any], Any] | None = None
    result_where: str = ""
    """Where a failure to read the result is counted (``"retrieve result extraction"``)."""

    fast: bool = False
    """No ``ids=``/``scores=`` reader: the result's shape alone decides how it is read."""

    def __post_init__(self) -> None:
        self.result_where = f"{self.stage.value} result extraction"  # once, not per call
        self.fast = self.ids is None and self.scores is None


def normalize_options(stage: c.Stage, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` as the plan reads them: outside a question, ``text`` is ``text_of``."""
    if stage is not c.Stage.QUESTION and "text" in options:
        options = {**options, "text_of": options["text"]}
        del options["text"]
    return options


def check_options(stage: c.Stage, options: Mapping[str, Any]) -> None:
    """Reject options the stage does not know, naming the ones it does."""
    allowed = allowed_options(stage)
    unknown = sorted(set(options) - allowed)
    if unknown:
        shown = sorted("text" if o == "text_of" else o for o in allowed)
        raise TypeError(
            f"@ragfunnel.{stage.value} got unknown option(s) {', '.join(unknown)}; "
            f"allowed: {', '.join(shown)} (see docs/span-contract.md, 'Decorator options')"
        )


def make_plan(stage: c.Stage, fn_name: str, options: Mapping[str, Any]) -> Plan:
    """Validate options and precompute the static attributes of a stage's spans."""
    check_options(stage, options)
    info = c.STAGES[stage]
    static: Attributes = {c.STAGE: stage.value, c.OPENINFERENCE_KIND: info.openinference_kind}
    if info.gen_ai_operation:
        static[c.GEN_AI_OPERATION] = info.gen_ai_operation
    name = options.get("name") or fn_name
    model = options.get("model")
    if stage is c.Stage.RETRIEVE:
        static[c.RETRIEVER_NAME] = name
        if options.get("fused_from"):
            static[c.RETRIEVER_FUSED_FROM] = [str(x) for x in options["fused_from"]]
    elif stage is c.Stage.RERANK and model:
        static[c.RERANKER_MODEL] = str(model)
    elif stage is c.Stage.GENERATE and model:
        static[c.GEN_AI_REQUEST_MODEL] = str(model)
    elif stage is c.Stage.INGEST and options.get("index_version") is not None:
        static[c.INDEX_VERSION] = str(options["index_version"])
    label = str(model) if model and not options.get("name") else name
    extra = options.get("attributes") or {}
    if not isinstance(extra, Mapping) or len(extra) > MAX_EXTRA_ATTRIBUTES:
        raise TypeError(
            f"@ragfunnel.{stage.value}(attributes=...) takes a mapping of at most "
            f"{MAX_EXTRA_ATTRIBUTES} attributes (the SDK would evict ragfunnel's own beyond that)"
        )
    static.update(scrub_attributes(extra))  # a credential-named entry is recorded as REDACTED
    sources = {k: options[k] for k in ARG_OPTIONS[stage] if options.get(k) is not None}
    return Plan(
        stage=stage,
        span_name=f"{stage.value} {label}",
        static=static,
        sources=sources,
        ids=options.get("ids"),
        scores=options.get("scores"),
        text_of=options.get("text_of"),
    )


CONTRACT_NAMES = frozenset(
    {n for options in ARG_OPTIONS.values() for o, names in options.items() for n in (o, *names)}
)
"""The contract's own option and argument names (``token_budget``, ``max_tokens``): never secrets."""


_MODES = frozenset(m.value for m in c.Mode)


def _is_secret(name: str) -> bool:
    return name not in CONTRACT_NAMES and is_secret_name(name)


def _check_named_argument(
    plan: Plan, option: str, source: str, signature: inspect.Signature
) -> None:
    """An explicitly named argument ragfunnel cannot use fails now, not silently per call."""
    where = f"@ragfunnel.{plan.stage.value}({option}={source!r})"
    if _is_secret(source):
        raise TypeError(
            f"{where}: {source!r} looks like a credential, and ragfunnel never reads such "
            "arguments; rename the argument or pass a callable that returns the value"
        )
    params = signature.parameters
    param = params.get(source)
    if param is None:
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            return  # it may arrive through **kwargs
        known = ", ".join(params) or "none readable"
        raise TypeError(f"{where} names no argument of the decorated function (it has: {known})")
    if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
        raise TypeError(
            f"{where} names {'*' if param.kind is param.VAR_POSITIONAL else '**'}{source}; "
            "ragfunnel reads named arguments only: name one, or pass a callable"
        )


def discover_arguments(plan: Plan, signature: inspect.Signature) -> None:
    """Check the argument names the user gave and fill in sources for the options not given.

    A discovered candidate whose name looks like a secret is never used, so that such a value is
    never read, whatever the capture settings; an explicitly named one is an error.
    """
    readable = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    names = [
        n for n, p in signature.parameters.items() if p.kind not in readable and not _is_secret(n)
    ]
    for option, candidates in ARG_OPTIONS[plan.stage].items():
        if option in plan.sources:
            source = plan.sources[option]
            if (
                option == "mode"
                and isinstance(source, str)
                and source not in signature.parameters
                and source in _MODES
            ):  # mode="oracle" / Mode.ORACLE: the step's mode itself, not an argument's name
                plan.sources[option] = c.Mode(source)
                continue
            if type(source) is str:
                _check_named_argument(plan, option, source, signature)
            continue
        for candidate in candidates:
            if candidate in names:
                plan.sources[option] = candidate
                break
    if plan.stage is c.Stage.QUESTION and "text" not in plan.sources:
        # Without a named text argument, a question's text is its first positional argument
        # (after self or cls) when that is a string — unless its name looks like a secret.
        params = list(signature.parameters)
        first = 1 if params and params[0] in ("self", "cls") else 0
        if len(params) <= first or not _is_secret(params[first]):
            plan.sources["text"] = _string_at(first)


def _string_at(index: int) -> Callable[..., str | None]:
    def text(*args: Any, **_kwargs: Any) -> str | None:
        value = args[index] if len(args) > index else None
        return value if isinstance(value, str) else None

    return text


def _content(st: State, attrs: Attributes, key: str, text: Any) -> None:
    if st.capture_content and isinstance(text, str):
        kept = redact(st.redact, key, text)
        if kept is not None:
            attrs[key] = kept


def _content_list(st: State, attrs: Attributes, key: str, texts: Sequence[str] | None) -> None:
    if st.capture_content and texts:
        kept = [redact(st.redact, key, t) for t in texts]
        attrs[key] = [t if t is not None else "" for t in kept]


def _put_ranked(attrs: Attributes, found: Ranked, ids_key: str = c.DOCUMENTS_IDS) -> None:
    attrs[ids_key] = found.ids if found.redacted else redact_ids(found.ids)
    if ids_key == c.DOCUMENTS_IDS and found.scores is not None:
        attrs[c.DOCUMENTS_SCORES] = found.scores


def _number(value: Any) -> int | float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return None


_CUT_OPTIONS = (
    ("k", c.CUT_K, int),
    ("threshold", c.CUT_THRESHOLD, float),
    ("token_budget", c.CUT_TOKEN_BUDGET, int),
)


def on_call(plan: Plan, st: State, get: Getter, attrs: Attributes) -> None:
    """Attributes known when the call starts (inputs and options).

    An option without a source (no argument of that name, no literal) is not even looked up:
    that was decided once, when the plan was made.
    """
    stage, sources = plan.stage, plan.sources
    if stage is c.Stage.QUESTION:
        text = get("text")
        given = get("id")
        qid = str(given) if given is not None else None
        if isinstance(text, str):
            attrs[c.QUESTION_HASH] = c.question_hash(text)
            qid = qid or c.derived_question_id(text)
            _content(st, attrs, c.QUESTION_TEXT, text)
        if qid is not None:  # else the decorator names the question after its trace
            attrs[c.QUESTION_ID] = qid
        attrs[c.RUN_ID] = st.run_id
        attrs.update(st.pipeline_attributes)
    elif stage is c.Stage.RETRIEVE:
        if st.capture_content:  # the argument is not even read otherwise
            _content(st, attrs, c.QUERY, get("query"))
        if "top_k" in sources and (top_k := _number(get("top_k"))) is not None:
            attrs[c.TOP_K] = int(top_k)
    elif stage in (c.Stage.RERANK, c.Stage.CUT):
        if "input" in sources and (given := get("input")) is not None:
            try:
                attrs[c.INPUT_IDS] = ids_of(given)  # URLs redacted
            except Unread as unread:
                not_read(f"{stage.value} input", unread)
        if stage is c.Stage.RERANK:
            if "top_n" in sources and (top_n := _number(get("top_n"))) is not None:
                attrs[c.TOP_N] = int(top_n)
        else:
            for option, key, kind in _CUT_OPTIONS:
                if option in sources and (value := _number(get(option))) is not None:
                    # The contract's types (an infinite budget stays a double).
                    attrs[key] = kind(value) if math.isfinite(value) else float(value)
    elif stage is c.Stage.GENERATE:
        context = get("context")
        if isinstance(context, str):
            _content_list(st, attrs, c.CONTEXT_TEXTS, [context])
        elif context is not None:
            try:
                found = ranked(context, texts=st.capture_content)
            except Unread as unread:
                not_read("generate context", unread)
            else:
                attrs[c.CONTEXT_IDS] = found.ids if found.redacted else redact_ids(found.ids)
                _content_list(st, attrs, c.CONTEXT_TEXTS, found.texts)
        mode = get("mode")
        mode = getattr(mode, "value", mode)  # a Mode member, or its value
        attrs[c.MODE] = mode if isinstance(mode, str) and mode else c.Mode.PIPELINE.value
        if (sample := _number(get("sample_index"))) is not None:
            attrs[c.SAMPLE_INDEX] = int(sample)
    elif stage is c.Stage.INGEST:
        document = get("document_id")
        if document is not None:
            attrs[c.DOCUMENT_ID] = redact_urls(str(document))
        if c.INDEX_VERSION not in attrs and (
            version := st.pipeline_attributes.get(c.PIPELINE_PREFIX + "index_version")
        ):
            attrs[c.INDEX_VERSION] = str(version)


_RANKING = frozenset({c.Stage.RETRIEVE, c.Stage.RERANK, c.Stage.CUT})
_SEQUENCES = frozenset({list, tuple})


def on_result(plan: Plan, st: State, result: Any, attrs: Attributes) -> None:
    """Attributes read from the return value."""
    stage = plan.stage
    if stage in _RANKING:
        # The usual list of pairs or ids, without building a Ranked on the way.
        if (
            plan.fast
            and type(result) in _SEQUENCES
            and result
            and (found := fast_ranked(result)) is not None
        ):
            attrs[c.DOCUMENTS_IDS], scores = found
            if scores is not None:
                attrs[c.DOCUMENTS_SCORES] = scores
            return
        _put_ranked(attrs, ranked(result, ids=plan.ids, scores=plan.scores))
    elif stage is c.Stage.INGEST:
        _put_ranked(attrs, ranked(result, ids=plan.ids), c.CHUNKS_IDS)
        for key, name in (
            (c.PAGES_WITHOUT_TEXT, "pages_without_text"),
            (c.PARTS_WITHOUT_TEXT, "parts_without_text"),
        ):
            count = field_of(result, name)
            if isinstance(count, int):
                attrs[key] = count
    elif stage is c.Stage.GENERATE:
        answer = answer_of(result, text=plan.text_of)
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


def stream_result(plan: Plan, items: list[Any]) -> Any:
    """Turn what a generator yielded into the value ``on_result`` reads.

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
