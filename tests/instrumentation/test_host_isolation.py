"""Property: with ragfunnel or without, the app observes exactly the same (docs/reliability.md).

Same values (identity), same exceptions (identity, including the ones that are not errors), the
same side effects on arguments and return values — whatever their shape: iterators, generators,
async iterators, lazy iterables, objects whose every protocol method or attribute access raises —
and whatever goes wrong in a user's extractor or exporter.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

import ragfunnel
from ragfunnel.instrumentation import safety
from ragfunnel.testing import capture_spans

STAGES = ["question", "ingest", "retrieve", "rerank", "cut", "generate"]
INPUT_OF = {"rerank": "documents", "cut": "documents", "generate": "context"}
RELAYED = {"retrieve", "rerank", "cut"}  # a generator they return is relayed, not left unread


class HostileError(Exception):
    pass


@dataclass(eq=False)
class Hostile:
    """Every protocol method raises (and is logged); so does reading any missing attribute."""

    log: list[str] = field(default_factory=list)

    def _boom(self, name: str) -> Any:
        self.log.append(name)
        raise HostileError(name)

    def __iter__(self) -> Any:
        return self._boom("__iter__")

    def __len__(self) -> int:
        return self._boom("__len__")  # type: ignore[no-any-return]

    def __eq__(self, other: object) -> bool:
        return self._boom("__eq__")  # type: ignore[no-any-return]

    def __hash__(self) -> int:
        return self._boom("__hash__")  # type: ignore[no-any-return]

    def __bool__(self) -> bool:
        return self._boom("__bool__")  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return self._boom("__repr__")  # type: ignore[no-any-return]

    def __str__(self) -> str:
        return self._boom("__str__")  # type: ignore[no-any-return]

    def __getitem__(self, key: object) -> Any:
        return self._boom("__getitem__")

    def __getattr__(self, name: str) -> Any:
        raise HostileError(f"attribute {name}")


class Lazy:
    """An iterable of unknown kind that records each iteration (a lazy query result)."""

    def __init__(self, items: list[Any]):
        self.items = items
        self.iterations = 0

    def __iter__(self) -> Iterator[Any]:
        self.iterations += 1
        return iter(self.items)


async def _agen(items: list[Any]) -> AsyncIterator[Any]:
    for item in items:
        yield item


def _same(x: Any) -> Any:
    return x


def _collect(value: Any) -> list[Any]:
    async def run() -> list[Any]:
        return [x async for x in value]

    return asyncio.run(run())


plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["id", "score", "text", "documents", "x"]), inner)
        | st.tuples(inner, inner)
    ),
    max_leaves=10,
)
items = st.lists(
    st.text(max_size=4) | st.tuples(st.text(max_size=4), st.floats()) | plain, max_size=5
)


@dataclass
class Recipe:
    """How to build a fresh value, and what the app can observe of it afterwards."""

    kind: str
    payload: list[Any]

    def make(self) -> Any:
        p = self.payload
        return {
            "iterator": lambda: iter(p),
            "generator": lambda: (x for x in p),
            "map": lambda: map(_same, p),
            "lazy": lambda: Lazy(p),
            "async": lambda: _agen(p),
            "hostile": Hostile,
            "list_of_hostile": lambda: [*p, Hostile()],
            "dict_of_iterator": lambda: {"documents": iter(p)},
            "dict_of_hostile": lambda: {"documents": Hostile(), "text": Hostile()},
        }[self.kind]()

    def observe(self, value: Any) -> Any:
        """Everything the app could tell about the value after the call."""
        if self.kind in ("iterator", "generator", "map"):
            return list(value)
        if self.kind == "lazy":
            return (value.iterations, list(value))
        if self.kind == "async":
            return _collect(value)
        if self.kind == "hostile":
            return list(value.log)
        if self.kind == "list_of_hostile":
            return (len(value), list(value[-1].log))
        if self.kind == "dict_of_iterator":
            return list(value["documents"])
        return (list(value["documents"].log), list(value["text"].log))


recipes = st.builds(
    Recipe,
    kind=st.sampled_from(
        [
            "iterator",
            "generator",
            "map",
            "lazy",
            "async",
            "hostile",
            "list_of_hostile",
            "dict_of_iterator",
            "dict_of_hostile",
        ]
    ),
    payload=items,
)

PROPERTY = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _decorate(stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    return getattr(ragfunnel, stage)(fn)  # type: ignore[no-any-return]


@PROPERTY
@given(recipe=recipes, stage=st.sampled_from(STAGES), content=st.booleans())
def test_any_return_value_reaches_the_caller_untouched(
    recipe: Recipe, stage: str, content: bool
) -> None:
    safety.RERAISE = False  # odd shapes are counted internal errors, never raised

    def step(query: str, value: Any) -> Any:
        return value

    bare = recipe.make()
    expected = recipe.observe(step("q", bare))
    traced = _decorate(stage, step)
    with capture_spans(capture_content=content) as spans:
        value = recipe.make()
        got = traced("q", value)
        if recipe.kind in ("generator", "async") and stage in RELAYED:
            # A ranking stage relays a returned generator: the same items, recorded as read.
            assert recipe.observe(got) == expected
        else:
            assert got is value
            assert recipe.observe(value) == expected
    assert all(span.end_time is not None for span in spans)


@PROPERTY
@given(recipe=recipes, stage=st.sampled_from(sorted(INPUT_OF)), content=st.booleans())
def test_any_input_reaches_the_function_untouched(
    recipe: Recipe, stage: str, content: bool
) -> None:
    safety.RERAISE = False
    seen: list[Any] = []

    def body(question: str, value: Any) -> str:
        seen.append(value)
        seen.append(recipe.observe(value))  # the step consumes its input
        return "done"

    # The input is passed under the argument name the stage reads by itself.
    name = INPUT_OF[stage]
    plain_fn = _with_input_name(body, name)
    assert plain_fn("q", **{name: recipe.make()}) == "done"
    expected = seen[1]
    seen.clear()
    traced = _decorate(stage, _with_input_name(body, name))
    with capture_spans(capture_content=content):
        value = recipe.make()
        assert traced("q", **{name: value}) == "done"
    assert seen[0] is value
    assert seen[1] == expected


def _with_input_name(body: Callable[[str, Any], str], name: str) -> Callable[..., str]:
    if name == "documents":

        def by_documents(question: str, documents: Any) -> str:
            return body(question, documents)

        return by_documents

    def by_context(question: str, context: Any) -> str:
        return body(question, context)

    return by_context


class StrRaises(Exception):
    def __str__(self) -> str:
        raise HostileError("str of an exception")


class Custom(BaseException):
    pass


EXCEPTIONS: list[Callable[[], BaseException]] = [
    lambda: ValueError("app error"),
    KeyboardInterrupt,
    lambda: SystemExit(3),
    GeneratorExit,
    asyncio.CancelledError,
    lambda: Custom("not an Exception"),
    StrRaises,
]


@settings(max_examples=120, deadline=None)
@given(
    make=st.sampled_from(EXCEPTIONS),
    stage=st.sampled_from(STAGES),
    shape=st.sampled_from(["function", "coroutine", "generator", "async generator"]),
    before=st.integers(0, 2),
)
def test_any_exception_reaches_the_caller_as_the_same_object(
    make: Callable[[], BaseException], stage: str, shape: str, before: int
) -> None:
    safety.RERAISE = False
    error = make()
    fn = _raising(shape, error, before)
    traced = _decorate(stage, fn)
    with capture_spans() as spans:
        with pytest.raises(BaseException) as caught:  # any kind: identity is checked below
            _drive(shape, traced)
        assert caught.value is error
    assert spans.spans and all(span.end_time is not None for span in spans)


def _raising(shape: str, error: BaseException, before: int) -> Callable[..., Any]:
    if shape == "function":

        def function(query: str) -> Any:
            raise error

        return function
    if shape == "coroutine":

        async def coroutine(query: str) -> Any:
            await asyncio.sleep(0)
            raise error

        return coroutine
    if shape == "generator":

        def generator(query: str) -> Iterator[str]:
            yield from ["part"] * before
            raise error

        return generator

    async def agen(query: str) -> AsyncIterator[str]:
        for _ in range(before):
            yield "part"
        raise error

    return agen


def _drive(shape: str, traced: Callable[..., Any]) -> None:
    if shape == "function":
        traced("q")
    elif shape == "coroutine":
        asyncio.run(traced("q"))
    elif shape == "generator":
        list(traced("q"))
    else:
        _collect(traced("q"))


@settings(max_examples=60, deadline=None)
@given(
    error=st.sampled_from([KeyError("k"), TypeError("t"), HostileError("h"), RecursionError()]),
    which=st.sampled_from(["ids", "scores", "text"]),
    value=plain,
)
def test_a_broken_extractor_never_reaches_the_app(error: Exception, which: str, value: Any) -> None:
    safety.RERAISE = False

    def broken(result: Any) -> Any:
        raise error

    stage = "generate" if which == "text" else "retrieve"

    @getattr(ragfunnel, stage)(**{which: broken})
    def step(query: str) -> Any:
        return value

    with capture_spans():
        assert step("q") is value


class Raising(SpanExporter):
    def export(self, spans: Any) -> SpanExportResult:
        raise HostileError("exporter bug")

    def shutdown(self) -> None:
        pass


class Hanging(SpanExporter):
    def __init__(self) -> None:
        self.release = threading.Event()

    def export(self, spans: Any) -> SpanExportResult:
        self.release.wait(30)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        self.release.set()


@ragfunnel.retrieve(name="bm25")
def search(query: str) -> list[str]:
    return [query]


@pytest.mark.parametrize("batch", [True, False])
def test_an_exporter_that_raises_never_reaches_the_app(
    batch: bool, caplog: pytest.LogCaptureFixture
) -> None:
    safety.RERAISE = False
    ragfunnel.configure(exporter=Raising(), batch=batch)
    assert [search(f"q{i}") for i in range(20)] == [[f"q{i}"] for i in range(20)]
    ragfunnel.flush(2_000)


def test_an_exporter_that_hangs_never_blocks_the_app() -> None:
    exporter = Hanging()
    ragfunnel.configure(exporter=exporter)
    started = time.perf_counter()
    assert [search(f"q{i}") for i in range(5_000)] == [[f"q{i}"] for i in range(5_000)]
    elapsed = time.perf_counter() - started
    assert elapsed < 5.0  # 5,000 traced calls; the exporter is stuck for 30 s
    stats = ragfunnel.export_stats()
    assert stats.dropped > 0 and stats.queued + stats.dropped == 5_000
    exporter.release.set()
    assert ragfunnel.flush(10_000)
