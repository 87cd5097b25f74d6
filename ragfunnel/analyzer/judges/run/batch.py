"""``judge_store``: judge the stored answers with a policy and write the verdicts table.

Policies: ``offline`` (every answer, no network), ``llm`` (every answer through the LLM
judge), ``factcheck`` (every claim through a Yes/No fact-checking model), ``tiered`` (offline
and signals for all; flagged answers and a seeded random sample to the LLM, see
``tiered.py``). With cases, each answer's correctness is judged too: against its facts, else
its reference (by the LLM when one judged the answer, else offline).

The offline policy reads, judges and writes a page of answers at a time (``pages.py``), so its
memory is bounded at any number of answers; the others judge the whole run as one page. The
offline screen is spread over worker processes (``workers.py``) when the run is large enough.

Writing verdicts is what this function is for, so it writes unless ``write=False``; it never
touches ``otel_traces``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import polars as pl

from ragfunnel.analyzer.cases import CaseSet
from ragfunnel.analyzer.judges.answers import AnswerPages, read_answers
from ragfunnel.analyzer.judges.cache import StoreCache, VerdictCache
from ragfunnel.analyzer.judges.chunk_file import load_chunks
from ragfunnel.analyzer.judges.llm import (
    Breaker,
    Endpoint,
    LLMCorrectness,
    Usage,
    same_model_warning,
)
from ragfunnel.analyzer.judges.offline import OfflineJudge
from ragfunnel.analyzer.judges.protocol import BatchJudge, Judge
from ragfunnel.analyzer.judges.run.outcome import (
    MAX_FAILED_SHARE,
    JudgeRun,
    SameModelWarning,
)
from ragfunnel.analyzer.judges.run.pages import PROGRESS_SLICE, Page, PageRun, Progress, Screen
from ragfunnel.analyzer.judges.run.policies import POLICIES, Policy, TieredPolicy, policy_named
from ragfunnel.analyzer.judges.run.tiered import DEFAULT_SAMPLE_RATE, Screened, estimates
from ragfunnel.analyzer.judges.run.workers import (
    IN_PROCESS_BELOW,
    ScreenPool,
    default_workers,
    rare_collections,
    shippable,
)
from ragfunnel.analyzer.judges.verdict_types import (
    JudgeError,
)
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.opening import StoreArg, takes_store
from ragfunnel.analyzer.store.tables.stage_spans import STAGE_TABLE
from ragfunnel.analyzer.store.tables.verdicts import VerdictRow

__all__ = [
    "MAX_FAILED_SHARE",
    "POLICIES",
    "PROGRESS_SLICE",
    "JudgeRun",
    "SameModelWarning",
    "judge_store",
]


@takes_store("write")
def judge_store(
    store: StoreArg,
    *,
    policy: str | Policy = "offline",
    runs: str | Iterable[str] | None = None,
    cases: CaseSet | None = None,
    endpoint: Endpoint | None = None,
    sample_rate: float = DEFAULT_SAMPLE_RATE,
    seed: int = 0,
    split: str = "llm",
    cache: VerdictCache | None = None,
    write: bool = True,
    screen: Judge | None = None,
    chunk_texts: Mapping[str, str] | str | Path | None = None,
    progress: Progress | None = None,
    workers: int | None = 1,
    keep_rows: bool = True,
    on_rows: Callable[[list[VerdictRow]], None] | None = None,
) -> JudgeRun:
    """Judge every stored pipeline answer (of ``runs``) with ``policy``.

    Args:
        store: the store holding ``otel_traces`` (or its DSN or path, opened for the call and
            never created); the verdicts go beside it.
        policy: ``offline``, ``llm``, ``factcheck`` or ``tiered``, or a
            :class:`~ragfunnel.analyzer.judges.run.policies.Policy` (then ``sample_rate`` and
            ``seed`` are the policy's own).
        runs: only answers of these run ids (a string or an iterable); default all.
        cases: when given, each matched answer's correctness is judged as well.
        endpoint: the LLM (or fact-checker) endpoint; needed by every policy but ``offline``.
        sample_rate: the tiered policy's random share sent to the LLM (0 to 1).
        seed: the tiered sample's seed.
        split: how the LLM judge splits answers: ``llm`` or ``offline``.
        cache: the verdict cache; default the store's judge-cache table.
        write: insert the verdict rows (default) or only return them.
        screen: the judge of the offline and tiered policies (default :class:`OfflineJudge`);
            any :class:`~ragfunnel.analyzer.judges.protocol.Judge`.
        chunk_texts: chunk texts for prompts whose spans record ids only: a chunk file's path
            (``chunk_file.py``) or a mapping of chunk id → text.
        progress: called with ``(step, done, total)`` as answers are judged: the offline
            screen counts answers as they are judged (slice by slice with workers), the LLM
            judge in slices of :data:`PROGRESS_SLICE` answers as their calls return.
        workers: processes the offline screen (offline and tiered policies) is spread over:
            ``1`` (the default) judges in process; ``None`` one per usable core
            (:func:`~ragfunnel.analyzer.judges.run.workers.default_workers`). Used only for
            :data:`IN_PROCESS_BELOW` answers or more and a ``screen`` that is ``None`` or
            pickles (``run/workers.py``). The verdicts are the ones given in process.
            ``ragfunnel judge`` passes ``None`` unless told ``--workers``; here the default
            starts no processes unasked (docs/judges.md, "Both cores").
        keep_rows: keep every verdict row in the result's ``rows`` (default); ``False`` keeps
            none (``row_count`` and the means still hold), so the offline policy, which reads,
            judges and writes :data:`~ragfunnel.analyzer.judges.answers.PAGE_TRACES` traces at
            a time, holds one page in memory at any number of answers.
        on_rows: called with each page's verdict rows once they are made (and written): one
            page per :data:`~ragfunnel.analyzer.judges.answers.PAGE_TRACES` traces with the
            offline policy, one page of all rows with the others.

    Raises:
        JudgeError: an unknown policy, a missing endpoint, a bad ``sample_rate``, a bad chunk
            file.
        ValueError: ``workers`` below 1.
    """
    assert isinstance(store, Store)  # takes_store opened it
    chosen = (
        policy
        if isinstance(policy, Policy)
        else policy_named(policy, sample_rate=sample_rate, seed=seed)
    )
    if chosen.needs_endpoint and endpoint is None:
        raise JudgeError(f"the {chosen.name} policy needs a judge endpoint (model, base URL, key)")
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be 1 or more: {workers}")
    chosen_runs = (runs,) if isinstance(runs, str) else tuple(runs or ())
    given = load_chunks(chunk_texts) if isinstance(chunk_texts, (str, Path)) else chunk_texts
    result = JudgeRun(chosen.name)
    run = PageRun(
        store, chosen, cases, result=result, progress=progress or (lambda _s, _d, _t: None),
        write=write, keep_rows=keep_rows, on_rows=on_rows,
    )  # fmt: skip
    processes = workers or default_workers()
    blob = shippable(screen) if chosen.screens and processes > 1 else None
    # The spans are only read: their merges (an ingest leaves up to DEFERRED_PARTS parts) ran
    # beside the judge, its peak 2.2 GiB instead of 1.0 after a 300,000-answer ingest.
    with store.merges_paused(store.table, STAGE_TABLE), ScreenPool(blob or b"", processes) as pool:
        run.screen = Screen(screen if screen is not None else OfflineJudge(), pool, blob)
        if chosen.needs_endpoint:  # the whole run at once: the LLM's slices, the tiered sample
            found = read_answers(store, runs=chosen_runs, modes=_MODES, chunk_texts=given)
            run.total = found.filter(pl.col("mode") == "pipeline").height
            page = run.start(found)
            run.remote, run.grader = _connect(
                store, chosen, endpoint=endpoint, cache=cache, split=split, write=write,
                usable=page.usable, result=result,
            )  # fmt: skip
            run.finish(page)
        else:  # offline: page by page, the workers judging one while the next is read
            pages = AnswerPages(store, runs=chosen_runs, modes=_MODES, chunk_texts=given)
            run.total = pages.total
            if blob is not None and pages.total >= IN_PROCESS_BELOW:
                pool.start()  # the workers make their judges while the first page is read
            held: Page | None = None
            # With workers judging, this process reads and writes: it collects rarely meanwhile.
            with rare_collections() if pool.started else nullcontext():
                for found in pages:
                    page = run.start(found)
                    if held is not None:
                        run.finish(held)
                    held = page
                if held is not None:
                    run.finish(held)
    if chosen.screens:
        run.report(run.total, run.total)
    _finish(chosen, run.remote, run.grader, run.screened, result)
    return result


_MODES = ("pipeline", "oracle")


def _connect(
    store: Store, chosen: Policy, *, endpoint: Endpoint | None, cache: VerdictCache | None,
    split: str, write: bool, usable: list[dict[str, Any]], result: JudgeRun,
) -> tuple[BatchJudge | None, LLMCorrectness | None]:  # fmt: skip
    """The policy's LLM judge and correctness grader, sharing one cache and one breaker."""
    if endpoint is None or not chosen.needs_endpoint:
        return None, None
    if cache is None:
        cache = StoreCache(store, [endpoint.model], write=write)
    breaker = Breaker()  # one per run: a dead endpoint stops the judge and the grader
    remote = chosen.remote(endpoint, cache, split=split, breaker=breaker)
    grader = chosen.grader(endpoint, cache, breaker=breaker)
    message = same_model_warning(endpoint.model, {r["model"] for r in usable})
    if message:
        result.warnings.append(message)
        warnings.warn(message, SameModelWarning, stacklevel=3)
    return remote, grader


def _finish(
    chosen: Policy, remote: BatchJudge | None, grader: LLMCorrectness | None,
    screened: Mapping[int, Screened], result: JudgeRun,
) -> None:  # fmt: skip
    """The grader's cache written, the tiered estimates, the endpoint's usage."""
    if grader is not None:
        grader.cache.flush()
    if isinstance(chosen, TieredPolicy):
        result.estimates = estimates(list(screened.values()))
    if remote is not None:
        usage = Usage()
        for part in (getattr(remote, "usage", Usage()), grader.usage if grader else Usage()):
            usage.add(**part.as_dict())
        result.usage = usage.as_dict()
