"""What each stage records: the per-stage half of the decorators.

For every stage this module says which options it takes, which argument names it looks for when
an option is not given, and how the call's inputs and the return value become span attributes.
The generic machinery (sync/async/generators, span lifetime, error safety) lives in
``decorators.py``, which names only the question stage (it scopes the others).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ragfunnel.instrumentation import contract as c
from ragfunnel.instrumentation import span_attributes
from ragfunnel.instrumentation.redaction import is_secret_name, scrub_attributes
from ragfunnel.instrumentation.settings import MAX_EXTRA_ATTRIBUTES
from ragfunnel.instrumentation.span_attributes import Attributes, Getter

__all__ = ["Attributes", "Getter", "Plan", "make_plan"]

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
    c.Stage.GENERATE: frozenset({"ids", "text_of"}),
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

    read_as: str | None = None
    """``ids=True``/``ids=False``: plain strings are ids / texts, whatever they look like."""

    fast: bool = False
    """No ``ids=``/``scores=`` reader: the result's shape alone decides how it is read."""

    is_question: bool = False
    get: Getter = field(default=lambda option, args, kwargs: None)
    """Reads an option's value in a call: set by the decorator (or ``stage()``) that owns the plan."""
    on_call: span_attributes.OnCall = span_attributes.ON_CALL[c.Stage.QUESTION]
    """The stage's own reading of the call's inputs (``span_attributes.ON_CALL``)."""
    on_result: span_attributes.OnResult = span_attributes.ON_RESULT[c.Stage.QUESTION]
    """The stage's own reading of the return value (``span_attributes.ON_RESULT``)."""

    def __post_init__(self) -> None:
        # Everything a call would otherwise ask of the stage, decided once.
        self.result_where = f"{self.stage.value} result extraction"
        self.fast = self.ids is None and self.scores is None and self.read_as is None
        self.is_question = self.stage is c.Stage.QUESTION
        self.on_call = span_attributes.ON_CALL[self.stage]
        self.on_result = span_attributes.ON_RESULT[self.stage]


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
    ids = options.get("ids")
    read_as = None
    if isinstance(ids, bool):  # ids=True / ids=False: how plain strings are read
        read_as, ids = (c.READ_AS_IDS if ids else c.READ_AS_TEXTS), None
    return Plan(
        stage=stage,
        span_name=f"{stage.value} {label}",
        static=static,
        sources=sources,
        ids=ids,
        read_as=read_as,
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
