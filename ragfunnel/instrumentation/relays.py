"""Generators a stage returns or is: relayed to the app item by item, recorded when they end.

A relay yields what the app's generator yields, forwarding ``send``/``throw``/``close``; the
call's span is current only while the generator body runs, never across a ``yield``, and ends
when the generator is exhausted, raises or is closed, with what it yielded so far
(docs/reliability.md). ``decorators.py`` picks the relay; ``calls.Call`` records and ends.
"""

from __future__ import annotations

import types
import weakref
from collections.abc import AsyncGenerator, Generator
from typing import Any

from ragfunnel.instrumentation import contract as c
from ragfunnel.instrumentation.calls import Call

STREAMS = (types.GeneratorType, types.AsyncGeneratorType)
RELAYED = (c.Stage.RETRIEVE, c.Stage.RERANK, c.Stage.CUT)
"""Stages whose returned generator is relayed and recorded as it is read (without ``ids=``/
``scores=``, which take the whole value)."""


def relayed(call: Call, gen: Generator[Any, Any, Any]) -> Generator[Any, Any, Any]:
    """Yield what ``gen`` yields, sends and throws forwarded; record it all when it ends.

    The call's span is current only while ``gen`` runs, never across a ``yield``; it ends when
    ``gen`` is exhausted, raises, or is closed (what it yielded so far is recorded).
    """
    items: list[Any] = []
    sent: Any = None
    thrown: BaseException | None = None
    try:
        while True:
            call.activate()
            try:
                item = gen.throw(thrown) if thrown is not None else gen.send(sent)
            finally:
                call.deactivate()
            thrown = None
            items.append(item)
            try:
                sent = yield item
            except GeneratorExit:
                raise
            except BaseException as exc:  # noqa: BLE001 - forwarded into the generator
                thrown, sent = exc, None
    except StopIteration as stop:
        call.finish_stream(items)
        return stop.value
    except GeneratorExit:
        gen.close()
        call.finish_stream(items)
        raise
    except BaseException as exc:
        call.fail_stream(exc, items)
        raise


async def arelayed(call: Call, gen: AsyncGenerator[Any, Any]) -> AsyncGenerator[Any, Any]:
    """:func:`relayed` for an async generator."""
    items: list[Any] = []
    sent: Any = None
    thrown: BaseException | None = None
    try:
        while True:
            call.activate()
            try:
                item = await (gen.athrow(thrown) if thrown is not None else gen.asend(sent))
            finally:
                call.deactivate()
            thrown = None
            items.append(item)
            try:
                sent = yield item
            except GeneratorExit:
                raise
            except BaseException as exc:  # noqa: BLE001 - forwarded into the generator
                thrown, sent = exc, None
    except StopAsyncIteration:
        call.finish_stream(items)
    except GeneratorExit:
        await gen.aclose()
        call.finish_stream(items)
        raise
    except BaseException as exc:
        call.fail_stream(exc, items)
        raise


def passed_on(call: Call, result: Any) -> Any:
    """A generator returned by a ranking stage, relayed: the span ends when it does.

    A relay dropped before it was ever started is never closed by Python, so a finalizer ends
    the span then (with no ids: nothing was read).
    """
    call.deactivate()
    stream = (
        relayed(call, result) if type(result) is types.GeneratorType else arelayed(call, result)
    )
    weakref.finalize(stream, call.end_if_open)
    return stream
