"""The offline screen spread over worker processes: ``judge_store(..., workers=N)``.

Each worker process holds a judge of its own — a new :class:`OfflineJudge` (so a chunk cache of
its own), or a copy of the ``screen=`` judge the user gave when that judge pickles — and judges
contiguous slices of :data:`WORKER_SLICE` answers: answers that share chunks tend to sit near
each other, and a slice long enough keeps each worker's cache working. The verdicts come back in
input order, and are the ones the judge gives in process (the same input always gives the same
verdict). Each comes with its prompt's ``conflicting_sources`` (``signals.py``), read by the
worker from the chunks its judge has just prepared.

The workers start with ``forkserver`` (``spawn`` where there is none), never ``fork``: the
parent holds the store's engine threads (chDB), which a forked child would inherit in whatever
state they were; and they do not import the user's script (``_starting_workers``), so a script
that calls ``judge_store`` without an ``if __name__ == "__main__":`` guard works as in process.
Each worker imports the judge itself, from the parent's ``sys.path`` (the fork server preloads
nothing: Python 3.11's would import from its own path, another ragfunnel than the parent's when
the parent runs a source tree of its own). Starting them costs ~1.5 s (each worker imports the
judge and loads its models), so fewer than :data:`IN_PROCESS_BELOW` answers are judged in
process, as is every run with ``workers=1`` or with a ``screen=`` judge that does not pickle
(an :class:`OfflineJudge` instance holds caches that do not: pass ``screen=None`` for the
default judge in every worker).

A worker ends when the process that started it ends, however it ends (:func:`_watch`): a parent
killed outright runs no cleanup, and its workers would wait for tasks forever.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import select
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass

from ragfunnel.analyzer.judges.offline import OfflineJudge
from ragfunnel.analyzer.judges.protocol import Judge
from ragfunnel.analyzer.judges.run.signals import (
    AmountReader,
    amounts_reader,
    conflicting_sources,
)
from ragfunnel.analyzer.judges.verdict_types import AnswerVerdict, Chunk
from ragfunnel.environment_variables import defaults_for_children

__all__ = [
    "IN_PROCESS_BELOW",
    "MAX_WORKERS",
    "WORKER_GC_THRESHOLDS",
    "WORKER_SLICE",
    "Pending",
    "ScreenPool",
    "Screening",
    "default_workers",
    "rare_collections",
    "screen_one",
    "shippable",
]

WORKER_SLICE = 256
"""Answers per task a worker judges in one go (their verdicts come back together)."""

IN_PROCESS_BELOW = 400
"""Fewer answers than this are judged in process: starting the workers costs more than they
save (bench/RESULTS.md, "Issue 35: two cores and bounded memory")."""

MAX_WORKERS = 8
"""The default never starts more workers than this, whatever the cores."""

WORKER_GC_THRESHOLDS = (10_000, 50, 100)
"""A worker's garbage collector thresholds (Python's default: 700, 10, 10). A judge makes
almost no reference cycles (fewer than one in a thousand of the objects its collections looked
at), yet each full collection walks every object its chunk cache holds: with the default
thresholds they took 6–8 % of a worker's time when no chunk repeats (bench/RESULTS.md, "Issue
35, fourteenth session")."""

Item = tuple[str, tuple[Chunk, ...]]
"""An answer to screen: its text and its prompt's chunks."""

Screening = tuple[AnswerVerdict, list[str]]
"""An answer screened: its verdict and its prompt's ``conflicting_sources`` (``signals.py``)."""


def default_workers() -> int:
    """The cores this process may run on (``os.sched_getaffinity``), at most :data:`MAX_WORKERS`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_WORKERS))


def shippable(screen: Judge | None) -> bytes | None:
    """``screen`` pickled for the workers (``b""`` for the default judge).

    ``None`` when it does not pickle: it is used in process.
    """
    if screen is None:
        return b""
    try:
        blob = pickle.dumps(screen)
    except Exception:  # noqa: BLE001 - any reason not to pickle means "judge in process"
        return None
    # The workers do not import the user's script (see _starting_workers): nothing of it may be needed.
    return None if b"__main__" in blob else blob


_judge: Judge | None = None


def _watch(owner: int) -> None:
    """End this worker as soon as process ``owner`` (the pool's) has ended.

    A parent killed outright (``SIGKILL``, the kernel's OOM killer) runs no cleanup; its
    workers, blocked reading tasks from a queue whose write end they hold too, would wait
    forever with their judges (~300 MB each), and keep the fork server and the resource
    tracker alive (each ends with the last worker holding its pipe). A pidfd refers to that
    very process (a reused pid cannot fool it); where there is none, the pid is polled.
    """
    try:
        handle = os.pidfd_open(owner)
    except ProcessLookupError:
        os._exit(1)
    except (AttributeError, OSError):  # no pidfds: not Linux, or a kernel before 5.3
        while _alive(owner):
            time.sleep(1.0)
        os._exit(1)
    select.select([handle], [], [])  # readable once the process has ended
    os._exit(1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a process of another user holds the pid: ours has ended
        return False
    return True


def _start(blob: bytes, owner: int) -> None:
    """A worker's judge: the user's, unpickled, else a new :class:`OfflineJudge` (warmed up).

    The worker ends with ``owner``, the process that started it (:func:`_watch`).
    """
    threading.Thread(target=_watch, args=(owner,), name="ragfunnel-owner", daemon=True).start()
    global _judge  # noqa: PLW0603 - one judge per worker process, made once
    _judge = pickle.loads(blob) if blob else OfflineJudge()  # noqa: S301 - our own pickle
    if not blob:  # its models loaded now, while the parent reads the first page
        _judge.judge("Warm-up at 1 pm.", [Chunk("warm-up", "Warm-up at 1 pm.")])
    _collect_rarely()


@contextmanager
def rare_collections() -> Iterator[None]:
    """The garbage collector at :data:`WORKER_GC_THRESHOLDS` in the block, then as it was.

    For the process that reads and writes the pages while the workers judge: it makes no more
    reference cycles than they do, and its full collections walked everything it had imported
    (the engine, polars, pyarrow): 1.2 s of the 4.3 s of CPU it spent on 10,000 answers
    (bench/RESULTS.md, "Issue 35, twenty-third session").
    """
    before = gc.get_threshold()
    gc.set_threshold(*WORKER_GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _collect_rarely() -> None:
    """Tune this worker's garbage collector (:data:`WORKER_GC_THRESHOLDS`): the process is ours.

    What the worker has loaded by now (modules, models, the warm-up's caches) lives as long as
    it does: frozen, no collection looks at it again.
    """
    gc.freeze()
    gc.set_threshold(*WORKER_GC_THRESHOLDS)


def screen_one(
    judge: Judge, answer: str, chunks: tuple[Chunk, ...], amounts: AmountReader
) -> Screening:
    """``judge``'s verdict of ``answer``, and its prompt's conflicting sources.

    ``amounts``: ``signals.amounts_reader(judge)``, made once for many answers; it reads the
    sources from the chunks the judge has just prepared.
    """
    verdict = judge.judge(answer, chunks)
    return verdict, conflicting_sources(chunks, amounts)


def _judge_slice(items: Sequence[Item]) -> list[Screening]:
    assert _judge is not None  # _start made it
    amounts = amounts_reader(_judge)
    return [screen_one(_judge, answer, chunks, amounts) for answer, chunks in items]


ONE_THREAD = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "RAYON_NUM_THREADS": "1",
    "TOKENIZERS_PARALLELISM": "false",
}
"""A worker's numeric and tokenizer libraries run one thread each (unless the user set these):
two workers whose BLAS threads spin for free cores ran slower than one process
(bench/RESULTS.md, "Issue 35: two cores and bounded memory")."""


@contextmanager
def _starting_workers() -> Iterator[None]:
    """Workers started here run one thread each and do not run the user's script again.

    ``spawn`` and ``forkserver`` import the parent's ``__main__`` in each child (Python's rule:
    a script must guard its work with ``if __name__ == "__main__":``); a script calling
    ``judge_store`` unguarded would run again in every worker. The workers need nothing of it
    (a ``screen`` from it is judged in process, :func:`shippable`), so while they start,
    ``__main__`` is an empty module; and :data:`ONE_THREAD` is in the environment they (and
    the fork server, started with the first of them) inherit.
    """
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        with defaults_for_children(ONE_THREAD):
            yield
    finally:
        sys.modules["__main__"] = main


def _context() -> multiprocessing.context.BaseContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        # The server preloads nothing: each worker imports the judge itself, once its sys.path
        # is the parent's. Python 3.11's fork server ignores the parent's sys.path when it
        # preloads: a judge preloaded there came from wherever a bare ``python -c`` finds
        # ragfunnel, not from the tree the parent runs (bench/RESULTS.md, "Issue 35: the
        # workers' verdicts").
        context.set_forkserver_preload([])
        return context
    return multiprocessing.get_context("spawn")


@dataclass
class Pending:
    """Verdicts on their way back from the workers, slice by slice, in input order."""

    futures: list[Future[list[Screening]]]
    sizes: list[int]

    def results(self, judged: Callable[[int], None]) -> list[Screening]:
        """Wait for every slice; ``judged(n)`` is told as each slice of ``n`` answers returns."""
        position = {id(f): n for f, n in zip(self.futures, self.sizes, strict=True)}
        for future in as_completed(self.futures):
            judged(position[id(future)])
        return [v for future in self.futures for v in future.result()]


class ScreenPool:
    """``workers`` processes, each with its judge.

    Started on first use, stopped by :meth:`close` (or the ``with`` block).
    """

    def __init__(self, blob: bytes, workers: int) -> None:
        self._blob = blob
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    @property
    def started(self) -> bool:
        """Whether the workers are started (and so used for any page, however small)."""
        return self._pool is not None

    def start(self) -> ProcessPoolExecutor:
        """Start the workers now (they make their judges while the caller reads on)."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=_context(),
                initializer=_start,
                initargs=(self._blob, os.getpid()),
            )
            with _starting_workers():  # a worker is spawned per submit while none is idle
                for _ in range(self.workers):
                    self._pool.submit(int)
        return self._pool

    def submit(self, items: Sequence[Item]) -> Pending:
        """Send ``items`` to the workers in contiguous slices; the verdicts come in order."""
        pool = self.start()
        size = max(1, min(WORKER_SLICE, -(-len(items) // self.workers)))
        slices = [items[s : s + size] for s in range(0, len(items), size)]
        with _starting_workers():  # the workers start in submit, in this thread
            futures = [pool.submit(_judge_slice, s) for s in slices]
        return Pending(futures, [len(s) for s in slices])

    def close(self) -> None:
        """Stop the workers (waiting for the slices under way)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> ScreenPool:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
