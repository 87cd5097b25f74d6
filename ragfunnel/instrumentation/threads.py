"""Carrying the current question into threads and executors.

OpenTelemetry's context and ragfunnel's current question live in ``contextvars``. asyncio copies
them into every task, but a plain thread pool starts each job in an empty context, so a stage run
there would float free of its question. These helpers copy the caller's context into the job.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def with_context(fn: Callable[P, R]) -> Callable[P, R]:
    """Bind ``fn`` to a copy of the caller's context (question, span) for use in another thread."""
    ctx = contextvars.copy_context()

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        return ctx.run(fn, *args, **kwargs)

    return run


class ContextThreadPoolExecutor(ThreadPoolExecutor):
    """A ``ThreadPoolExecutor`` whose jobs run in the submitter's context.

    Drop-in: ``with ragfunnel.ContextThreadPoolExecutor(8) as pool: pool.map(answer, questions)``
    — each ``answer`` runs under the span that was current where ``map`` was called.
    """

    def submit(self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> Future[R]:
        """Submit ``fn`` to run in a copy of the caller's context."""
        ctx = contextvars.copy_context()
        return super().submit(ctx.run, fn, *args, **kwargs)  # type: ignore[arg-type]
