"""``judge_store``: judge the stored answers with a policy and write the verdicts table.

Policies: ``offline`` (every answer, no network), ``llm`` (every answer through the LLM
judge), ``factcheck`` (every claim through a Yes/No fact-checking model), ``tiered`` (offline
and signals for all; flagged answers and a seeded random sample to the LLM, see
``tiered.py``). With cases, each answer's correctness is judged too: against its facts, else
its reference (by the LLM when one judged the answer, else offline).

Writing verdicts is what this function is for, so it writes unless ``write=False``; it never
touches ``otel_traces``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from ragfunnel.analyzer.cases import Case, CaseSet
from ragfunnel.analyzer.judges import tables
from ragfunnel.analyzer.judges.answers import read_answers
from ragfunnel.analyzer.judges.cache import StoreCache, VerdictCache
from ragfunnel.analyzer.judges.chunk_file import load_chunks
from ragfunnel.analyzer.judges.correctness import (
    Correctness,
    facts_correctness,
    reference_correctness,
)
from ragfunnel.analyzer.judges.llm import (
    Breaker,
    Endpoint,
    JudgeInput,
    LLMCorrectness,
    Usage,
    same_model_warning,
)
from ragfunnel.analyzer.judges.offline import OfflineJudge
from ragfunnel.analyzer.judges.protocol import BatchJudge, Judge, judge_all
from ragfunnel.analyzer.judges.run.outcome import (
    MAX_FAILED_SHARE,
    JudgeRun,
    SameModelWarning,
    count_textless,
)
from ragfunnel.analyzer.judges.run.policies import POLICIES, Policy, TieredPolicy, policy_named
from ragfunnel.analyzer.judges.run.signals import signals
from ragfunnel.analyzer.judges.run.tiered import DEFAULT_SAMPLE_RATE, Screened, estimates
from ragfunnel.analyzer.judges.run.verdict_row import verdict_row
from ragfunnel.analyzer.judges.verdict_types import (
    AnswerVerdict,
    Chunk,
    JudgeError,
    context_hash,
)
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.opening import StoreArg, takes_store
from ragfunnel.instrumentation.contract import question_hash

__all__ = ["MAX_FAILED_SHARE", "POLICIES", "JudgeRun", "SameModelWarning", "judge_store"]

#: How many answers go to the LLM judge between two progress reports: large enough to keep its
#: concurrency busy, small enough that the count moves.
PROGRESS_SLICE = 64

Progress = Callable[[str, int, int], None]
"""``progress(step, done, total)``: called as answers are judged (``cli/progress.py``)."""


def _case_of(cases: CaseSet | None, key: str, question: str | None) -> Case | None:
    if cases is None:
        return None
    found = cases.by_id(key)
    if found is None and question:
        wanted = question_hash(question)
        if wanted not in cases.ambiguous_hashes():
            found = next((c for c in cases if c.question_hash == wanted), None)
    return found


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
            screen counts answers one by one, the LLM judge in slices of
            :data:`PROGRESS_SLICE` answers as their calls return.

    Raises:
        JudgeError: an unknown policy, a missing endpoint, a bad ``sample_rate``, a bad chunk
            file.
    """
    assert isinstance(store, Store)  # takes_store opened it
    chosen = (
        policy
        if isinstance(policy, Policy)
        else policy_named(policy, sample_rate=sample_rate, seed=seed)
    )
    if chosen.needs_endpoint and endpoint is None:
        raise JudgeError(f"the {chosen.name} policy needs a judge endpoint (model, base URL, key)")
    chosen_runs = (runs,) if isinstance(runs, str) else tuple(runs or ())
    given = load_chunks(chunk_texts) if isinstance(chunk_texts, (str, Path)) else chunk_texts
    answers, oracle = _read(store, chosen_runs, given)
    result = JudgeRun(chosen.name, answers=len(answers))
    count_textless(result, answers)
    usable = [r for r in answers if r["has_answer"] and r["has_context"]]
    remote, grader = _connect(
        store, chosen, endpoint=endpoint, cache=cache, split=split, write=write, usable=usable,
        result=result,
    )  # fmt: skip
    prepared = _prepare(usable, oracle)
    report = progress or (lambda _step, _done, _total: None)
    offline: Judge = screen if screen is not None else OfflineJudge()
    first = _screen(chosen, offline, prepared, report) if chosen.screens else {}
    screened, escalate = _escalation(chosen, prepared, first, result)
    second = _ask(
        remote, prepared, escalate=escalate, screened=screened, report=report, result=result
    )
    _rows(
        chosen, cases, prepared=prepared, first=first, second=second, screened=screened,
        grader=grader, result=result,
    )  # fmt: skip
    _finish(chosen, remote, grader, screened, result)
    if write and result.rows:
        tables.ensure_tables(store)
        tables.insert_verdicts(store, result.rows)
    return result


Prepared = tuple[dict[str, Any], tuple[Chunk, ...], list[str]]
"""An answer to judge: its row of ``read_answers``, its prompt's chunks, its signals."""


def _read(
    store: Store, runs: tuple[str, ...], given: Mapping[str, str] | None
) -> tuple[list[dict[str, Any]], dict[tuple[str, str], str]]:
    """The pipeline answers to judge, and each question's oracle answer (for the signals)."""
    found = read_answers(store, runs=runs, modes=("pipeline", "oracle"), chunk_texts=given)
    oracle = {
        (r["trace_id"], r["question_key"]): r["answer"]
        for r in found.filter(pl.col("mode") == "oracle").iter_rows(named=True)
        if r["has_answer"]
    }
    return list(found.filter(pl.col("mode") == "pipeline").iter_rows(named=True)), oracle


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


def _prepare(usable: list[dict[str, Any]], oracle: Mapping[tuple[str, str], str]) -> list[Prepared]:
    """Each answer's prompt chunks and signals."""
    prepared = []
    for r in usable:
        chunks = tuple(
            Chunk(i, t) for i, t in zip(r["context_ids"], r["context_texts"], strict=True)
        )
        found_signals = signals(
            r["answer"], chunks, low_confidence=r["low_confidence"] or (),
            logprobs_min=r["logprobs_min"], sample_answers=r["sample_answers"] or (),
            oracle_answer=oracle.get((r["trace_id"], r["question_key"])),
        )  # fmt: skip
        prepared.append((r, chunks, found_signals))
    return prepared


def _screen(
    chosen: Policy, offline: Judge, prepared: list[Prepared], report: Progress
) -> dict[int, AnswerVerdict]:
    """The screening judge's verdict of every answer, counted on the progress bar."""
    first: dict[int, AnswerVerdict] = {}
    step = f"judging offline ({chosen.name})"
    every = max(1, len(prepared) // 200)  # at most a few hundred updates
    for n, (r, chunks, _) in enumerate(prepared):
        if n % every == 0:
            report(step, n, len(prepared))
        first[n] = offline.judge(r["answer"], chunks)
    report(step, len(prepared), len(prepared))
    return first


def _escalation(
    chosen: Policy, prepared: list[Prepared], first: Mapping[int, AnswerVerdict], result: JudgeRun
) -> tuple[dict[int, Screened], list[int]]:
    """Which answers the policy sends to the LLM, and why (counted in ``result``)."""
    screened: dict[int, Screened] = {}
    escalate: list[int] = []
    for n, (r, _, found_signals) in enumerate(prepared):
        key = f"{r['trace_id']}\x1f{r['question_key']}"
        decision = chosen.escalation(key, first.get(n), found_signals)
        if n in first:
            screened[n] = Screened(first[n], None, decision.sampled, bool(decision.reasons))
        for reason in [*decision.reasons, *(["random sample"] if decision.sampled else [])]:
            result.sent_to_llm[reason] = result.sent_to_llm.get(reason, 0) + 1
        if decision.send:
            escalate.append(n)
    return screened, escalate


def _ask(
    remote: BatchJudge | None, prepared: list[Prepared], *, escalate: list[int],
    screened: dict[int, Screened], report: Progress, result: JudgeRun,
) -> dict[int, AnswerVerdict]:  # fmt: skip
    """The LLM's verdicts of the escalated answers, in slices for the progress bar."""
    second: dict[int, AnswerVerdict] = {}
    if remote is None or not escalate:
        return second
    items = [JudgeInput(prepared[n][0]["answer"], prepared[n][1], prepared[n][0]["question"])
             for n in escalate]  # fmt: skip
    outcomes: list[AnswerVerdict | JudgeError] = []
    step = "asking the LLM judge"
    report(step, 0, len(items))
    for start in range(0, len(items), PROGRESS_SLICE):
        outcomes += judge_all(remote, items[start : start + PROGRESS_SLICE])
        report(step, len(outcomes), len(items))
    for n, outcome in zip(escalate, outcomes, strict=True):
        if isinstance(outcome, JudgeError):
            result.errors.append(f"{prepared[n][0]['trace_id']}: {outcome}")
        else:
            second[n] = outcome
            if n in screened:
                s = screened[n]
                screened[n] = Screened(s.offline, outcome, s.sampled, s.flagged)
    return second


def _rows(
    chosen: Policy, cases: CaseSet | None, *, prepared: list[Prepared],
    first: Mapping[int, AnswerVerdict], second: Mapping[int, AnswerVerdict],
    screened: Mapping[int, Screened], grader: LLMCorrectness | None, result: JudgeRun,
) -> None:  # fmt: skip
    """One verdict row per answer and judge, with its correctness, into ``result``."""
    for n, (r, chunks, found_signals) in enumerate(prepared):
        case = _case_of(cases, r["question_key"], r["question"])
        digest = context_hash(chunks)
        sampled = n in screened and screened[n].sampled
        verdicts = [v for v in (first.get(n), second.get(n)) if v is not None]
        if not verdicts:
            continue
        result.judged += 1
        result.abstained += int(verdicts[-1].abstained)
        for verdict in verdicts:
            graded_by = grader if verdict is second.get(n) else None
            correctness = _correctness(case, r, graded_by, result.errors)
            result.rows.append(
                verdict_row(
                    r, verdict, policy=chosen.name, context_hash=digest,
                    correctness=correctness, signals=found_signals, sampled=sampled,
                )
            )  # fmt: skip


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


def _correctness(
    case: Case | None, answer: dict[str, Any], grader: LLMCorrectness | None, errors: list[str]
) -> Correctness | None:
    if case is None or not case.answerable:
        return None
    if case.facts:
        return facts_correctness(answer["answer"], case.facts)
    if not case.reference:
        return None
    if grader is not None:
        try:
            return grader.judge(
                answer["question"] or case.question, answer["answer"], case.reference
            )
        except JudgeError as exc:
            # Recorded, and the deterministic check below still gives a verdict.
            errors.append(f"{answer['trace_id']}: correctness: {exc}")
    return reference_correctness(answer["answer"], case.reference)
