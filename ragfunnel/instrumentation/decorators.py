"""The decorators and the ``stage()`` context manager: one factory for every stage.

The factory inspects the wrapped callable once, at decoration time, and picks one of four
wrappers — function, coroutine function, generator function, async generator function. Stage
specifics come from ``stages.py``, a call's span lifetime from ``calls.py``. Guarantees
(docs/reliability.md): the app's return values and exceptions pass through untouched;
ragfunnel's own failures are counted, never raised into the app; a generator's span is current
only while the generator body runs, never across a ``yield``.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import AsyncGenerator, Callable, Generator, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar, overload

from opentelemetry import trace
from opentelemetry.trace import Span

from ragfunnel.instrumentation import config, stages
from ragfunnel.instrumentation import contract as c
from ragfunnel.instrumentation.calls import Call, begin
from ragfunnel.instrumentation.config import state
from ragfunnel.instrumentation.question_scope import CURRENT_QUESTION
from ragfunnel.instrumentation.relays import RELAYED, STREAMS, arelayed, passed_on, relayed
from ragfunnel.instrumentation.safety import internal_error
from ragfunnel.instrumentation.span_attributes import Getter

F = TypeVar("F", bound=Callable[..., Any])


class _Arguments:
    """Finds an option's value in a call without binding the whole signature per call."""

    def __init__(self, fn: Callable[..., Any], plan: stages.Plan):
        self.plan = plan
        try:
            signature = inspect.signature(fn)
        except (TypeError, ValueError):
            signature = inspect.Signature()
        stages.discover_arguments(plan, signature)
        params = list(signature.parameters.values())
        self.positions = {
            p.name: i
            for i, p in enumerate(params)
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        }
        self.defaults = {p.name: p.default for p in params if p.default is not p.empty}
        self.sources = plan.sources
        # Where each argument-named option is found, looked up once (an argument that can only
        # be passed by keyword has no position: one past any call's arguments).
        self.named = {
            option: (source, self.positions.get(source, sys.maxsize), self.defaults.get(source))
            for option, source in plan.sources.items()
            if type(source) is str  # an argument name (a Mode member is a literal)
        }
        plan.get = self.get  # bound once: no closure per call

    def get(self, option: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Any:
        """The value of ``option`` in a call (a :data:`span_attributes.Getter`)."""
        named = self.named.get(option)
        if named is not None:
            name, pos, default = named
            if name in kwargs:
                return kwargs[name]
            return args[pos] if pos < len(args) else default
        source = self.sources.get(option)
        if source is not None and callable(source):
            return source(*args, **kwargs)
        return source


def _literal(sources: Mapping[str, Any]) -> Getter:
    """The getter of a ``stage()`` block, whose options are the values themselves."""
    return lambda option, _args, _kwargs: sources.get(option)


def _start(
    plan: stages.Plan, arguments: _Arguments, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Call | None:
    """The call's span, started, when tracing is on."""
    st = state()
    return begin(plan, st, args, kwargs) if st.enabled else None


def _wrap(fn: Callable[..., Any], plan: stages.Plan) -> Callable[..., Any]:
    arguments = _Arguments(fn, plan)
    relays = plan.stage in RELAYED and plan.ids is None and plan.scores is None

    if inspect.isasyncgenfunction(fn):

        @functools.wraps(fn)
        async def agen_wrapper(*args: Any, **kwargs: Any) -> AsyncGenerator[Any, Any]:
            gen = fn(*args, **kwargs)
            call = _start(plan, arguments, args, kwargs)
            if call is None:
                async for item in gen:
                    yield item
                return
            relay = arelayed(call, gen)  # ``async for`` would not forward asend/athrow: by hand
            try:
                item = await relay.asend(None)
                while True:
                    try:
                        sent = yield item
                    except GeneratorExit:  # noqa: PERF203 - the relay's protocol, per item
                        await relay.aclose()
                        raise
                    except BaseException as exc:  # noqa: BLE001 - forwarded into the generator
                        item = await relay.athrow(exc)
                    else:
                        item = await relay.asend(sent)
            except StopAsyncIteration:
                return

        return agen_wrapper

    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def gen_wrapper(*args: Any, **kwargs: Any) -> Generator[Any, Any, Any]:
            gen = fn(*args, **kwargs)
            call = _start(plan, arguments, args, kwargs)
            if call is None:
                return (yield from gen)
            return (yield from relayed(call, gen))

        return gen_wrapper

    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            st = state()  # inlined, not _start: this is the path whose cost is measured
            if not st.enabled:
                return await fn(*args, **kwargs)
            call = begin(plan, st, args, kwargs, True)
            if call is None:
                return await fn(*args, **kwargs)
            try:
                result = await fn(*args, **kwargs)
            except BaseException as exc:
                call.fail(exc)
                raise
            if relays and type(result) in STREAMS:
                return passed_on(call, result)
            call.finish(result)
            return result

        return async_wrapper

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        # state(), inlined (it only adds the first call's configuration from the environment):
        # this is the path whose cost bench/overhead.py measures.
        st = config._state or state()
        if not st.enabled:
            return fn(*args, **kwargs)
        call = begin(plan, st, args, kwargs, True)  # and made current
        if call is None:
            return fn(*args, **kwargs)
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:
            call.fail(exc)
            raise
        if relays and type(result) in STREAMS:
            return passed_on(call, result)
        call.finish(result)
        return result

    return wrapper


def _factory(stage: c.Stage) -> Callable[..., Any]:
    def decorator(fn: Callable[..., Any] | None = None, /, **options: Any) -> Any:
        options = stages.normalize_options(stage, options)
        if fn is not None and not callable(fn):
            raise TypeError(
                f"@ragfunnel.{stage.value} decorates a callable; options are keyword-only"
            )
        stages.check_options(stage, options)

        def apply(target: Callable[..., Any]) -> Callable[..., Any]:
            name = getattr(target, "__name__", type(target).__name__)
            return _wrap(target, stages.make_plan(stage, name, options))

        return apply(fn) if fn is not None else apply

    decorator.__name__ = stage.value
    decorator.__qualname__ = stage.value
    decorator.__doc__ = _DOCS[stage]
    return decorator


_COMMON_DOC = """
    Works on functions, methods, coroutines and (async) generators; use bare or with keyword
    options. Every stage takes ``name`` (span name suffix) and ``attributes`` (extra static
    attributes); the ranking stages and ingest take ``ids=`` (and ranking stages ``scores=``)
    callables that read the return value when its shape is unusual (``generate``'s ``ids=``
    reads the context); ``ids=True``/``ids=False`` say that plain strings are ids / texts,
    which otherwise is told by whitespace (a string with none is an id). The return value and
    exceptions pass through unchanged; iterators are passed on unread, except a generator returned by a
    ranking stage, which is relayed and recorded as it is read. All options:
    docs/span-contract.md, "Decorator options".
"""

_DOCS = {
    c.Stage.QUESTION: "Trace one question end to end (the root of its funnel).\n\n"
    "    ``id=`` and ``text=`` name an argument or take a callable receiving the call's arguments;"
    " without an id, a stable one is derived from the normalised question text." + _COMMON_DOC,
    c.Stage.INGEST: "Trace indexing of one document: ``document_id=``, ``index_version=``; the"
    " return value lists the chunk ids." + _COMMON_DOC,
    c.Stage.RETRIEVE: "Trace a retriever: ``query=``, ``top_k=`` (argument names or values),"
    " ``fused_from=`` for hybrid fusion; the return value is the ranked list." + _COMMON_DOC,
    c.Stage.RERANK: "Trace a reranker: ``input=`` (argument holding the candidates), ``top_n=``,"
    " ``model=``; the return value is the reranked list." + _COMMON_DOC,
    c.Stage.CUT: "Trace the gate between ranking and prompt: ``input=``, ``k=``, ``threshold=``,"
    " ``token_budget=``; the return value is what enters the prompt, in prompt order."
    + _COMMON_DOC,
    c.Stage.GENERATE: "Trace the LLM call: ``context=`` (argument holding the prompt's chunks),"
    " ``model=``, ``mode=`` ('pipeline' or 'oracle'), ``sample_index=``; the answer is read from"
    " the return value (str, ``.text``, an OpenAI ChatCompletion with logprobs, or a stream);"
    " ``text=`` is a callable reading it from other shapes." + _COMMON_DOC,
}


class _Decorator:
    """Typing shim: ``@question`` and ``@question(...)`` both keep the wrapped signature."""

    def __init__(self, stage: c.Stage):
        self._impl = _factory(stage)
        self.__doc__ = self._impl.__doc__
        self.__name__ = stage.value

    @overload
    def __call__(self, fn: F, /) -> F: ...
    @overload
    def __call__(self, /, **options: Any) -> Callable[[F], F]: ...
    def __call__(self, fn: Any = None, /, **options: Any) -> Any:
        return self._impl(fn, **options)


question = _Decorator(c.Stage.QUESTION)
ingest = _Decorator(c.Stage.INGEST)
retrieve = _Decorator(c.Stage.RETRIEVE)
rerank = _Decorator(c.Stage.RERANK)
cut = _Decorator(c.Stage.CUT)
generate = _Decorator(c.Stage.GENERATE)


class StageHandle:
    """What ``with ragfunnel.stage(...) as s`` gives: record the step's output on its span."""

    def __init__(self, call: Call | None):
        self._call = call
        self._result: Any = None
        self._recorded = False

    def record(self, value: Any) -> None:
        """The step's output (ranked documents, chunk ids, or the answer)."""
        self._result, self._recorded = value, True

    def set_attribute(self, key: str, value: Any) -> None:
        """Set any extra attribute on the stage's span."""
        if self._call is not None:
            try:
                self._call.span.set_attribute(key, value)
            except Exception as exc:  # noqa: BLE001
                internal_error("StageHandle.set_attribute", exc)

    @property
    def span(self) -> Span:
        """The OpenTelemetry span (a non-recording one when tracing is off)."""
        return self._call.span if self._call is not None else trace.INVALID_SPAN


@contextmanager
def stage(kind: str | c.Stage, **options: Any) -> Iterator[StageHandle]:
    """Trace a block that cannot be decorated.

    Options are the decorator's, but as literal values: ``stage("retrieve", name="bm25",
    query=q, top_k=10)``, ``stage("question", id="q-1", text=q)``, ``stage("rerank",
    input=candidates)``, ``stage("generate", context=chunks, model="m")``. Call
    ``s.record(output)`` inside the block.
    """
    kind = c.Stage(kind)
    plan = stages.make_plan(kind, kind.value, stages.normalize_options(kind, options))
    plan.get = _literal(plan.sources)
    st = state()
    call = begin(plan, st, (), {}) if st.enabled else None
    handle = StageHandle(call)
    if call is None:
        yield handle
        return
    call.activate()
    try:
        yield handle
    except BaseException as exc:
        call.fail(exc)
        raise
    if handle._recorded:
        call.finish(handle._result)
    else:
        call.end()


def abstain(reason: str | None = None) -> None:
    """Mark the current question as abstained (the system declined to answer).

    Called inside a cut (a confidence gate that refuses) or generate step, the step's span is
    marked too, even outside a question. Outside any question and stage this does nothing.
    """
    try:
        current = CURRENT_QUESTION.get()
        attrs: dict[str, Any] = {c.ANSWER_ABSTAINED: True}
        if reason:
            attrs[c.ABSTAIN_REASON] = reason
        if current is not None:
            current.span.set_attributes(attrs)
        step = trace.get_current_span()  # the innermost step, when called inside one
        is_stage = c.STAGE in (getattr(step, "attributes", None) or {})
        if is_stage and step.is_recording() and (current is None or step is not current.span):
            step.set_attributes(attrs)
    except Exception as exc:  # noqa: BLE001
        internal_error("abstain", exc)
