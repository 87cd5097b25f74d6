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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from ragfunnel.analyzer.cases import Case, CaseSet
from ragfunnel.analyzer.judges import tables
from ragfunnel.analyzer.judges.answers import ANSWER_TEXT_FIX, CHUNK_TEXT_FIX, read_answers
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
from ragfunnel.analyzer.stats import Estimate
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.opening import StoreArg, takes_store
from ragfunnel.analyzer.store.tables.verdicts import VerdictRow, deciding_rows
from ragfunnel.instrumentation.contract import question_hash

__all__ = ["MAX_FAILED_SHARE", "POLICIES", "JudgeRun", "SameModelWarning", "judge_store"]

#: How many answers go to the LLM judge between two progress reports: large enough to keep its
#: concurrency busy, small enough that the count moves.
PROGRESS_SLICE = 64

Progress = Callable[[str, int, int], None]
"""``progress(step, done, total)``: called as answers are judged (``cli/progress.py``)."""


MAX_FAILED_SHARE = 0.1
"""More than this share of failed LLM calls fails the run (``ragfunnel judge`` exits 1)."""


class SameModelWarning(UserWarning):
    """The judge model also generated the answers it judges."""


@dataclass
class JudgeRun:
    """What one ``judge_store`` call did.

    Attributes:
        policy: the policy used.
        answers: answers found; judged: answers with a verdict; abstained: answers without
            claims; without_content: answers not judged for lack of recorded text, of which
            without_answer_text had no answer text and without_chunk_text had the answer but
            no text for some chunk of its prompt (nor ids to find it by).
        filled_chunks, filled_answers: the chunks whose text the chunk file gave (missing, or
            recorded equal to the chunk's id), and the answers whose prompt held one.
        not_judged: per answer not judged for lack of text, what is missing and the fix.
        sent_to_llm: answers the tiered policy escalated (flagged or sampled), and why.
        rows: the verdict rows written (or that would be, with ``write=False``).
        usage: calls, tokens and cost of the LLM or fact-checking judge.
        estimates: the tiered policy's rates from its random sample.
        errors: answers the endpoint could not judge, with the reason.
        warnings: e.g. the judge model equals the generator's.
    """

    policy: str
    answers: int = 0
    judged: int = 0
    abstained: int = 0
    without_content: int = 0
    without_answer_text: int = 0
    without_chunk_text: int = 0
    filled_chunks: int = 0
    filled_answers: int = 0
    not_judged: list[str] = field(default_factory=list)
    sent_to_llm: dict[str, int] = field(default_factory=dict)
    rows: list[VerdictRow] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    estimates: dict[str, Estimate] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def failure(self) -> str | None:
        """Why this run failed, or ``None``: the reason ``ragfunnel judge`` exits 1.

        It failed when there were answers and none was judged, or when more than
        :data:`MAX_FAILED_SHARE` of the LLM calls failed (or were refused by the breaker).
        """
        if self.answers and not self.judged:
            return (f"judged none of the {self.answers:,} answers"
                    + (f" ({self.without_content:,} without text)" if self.without_content else ""))  # fmt: skip
        if self.usage:
            calls = self.usage["calls"] + self.usage["refused"]
            bad = self.usage["failed"] + self.usage["refused"]
            if calls and bad / calls > MAX_FAILED_SHARE:
                return (f"{bad:,} of {calls:,} judge calls failed, more than "
                        f"{MAX_FAILED_SHARE:.0%}")  # fmt: skip
        return None

    @property
    def faithfulness(self) -> float | None:
        """The mean faithfulness of the rows of the deciding judge (LLM over offline)."""
        values = [
            r["Faithfulness"] for r in deciding_rows(self.rows) if r["Faithfulness"] is not None
        ]
        return sum(values) / len(values) if values else None

    @property
    def confidence(self) -> float | None:
        """The mean confidence of the rows of the deciding judge; ``None`` if none has one.

        docs/judges.md, "Scores to rank answers by": the score to rank answers by.
        """
        values = [r["Confidence"] for r in deciding_rows(self.rows) if r["Confidence"] is not None]
        return sum(values) / len(values) if values else None


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
    found = read_answers(store, runs=chosen_runs, modes=("pipeline", "oracle"), chunk_texts=given)
    oracle = {
        (r["trace_id"], r["question_key"]): r["answer"]
        for r in found.filter(pl.col("mode") == "oracle").iter_rows(named=True)
        if r["has_answer"]
    }
    answers = list(found.filter(pl.col("mode") == "pipeline").iter_rows(named=True))
    result = JudgeRun(chosen.name, answers=len(answers))
    usable = [r for r in answers if r["has_answer"] and r["has_context"]]
    _count_textless(result, answers)

    remote: BatchJudge | None = None
    grader: LLMCorrectness | None = None
    if endpoint is not None and chosen.needs_endpoint:
        if cache is None:
            cache = StoreCache(store, [endpoint.model], write=write)
        breaker = Breaker()  # one per run: a dead endpoint stops the judge and the grader
        remote = chosen.remote(endpoint, cache, split=split, breaker=breaker)
        grader = chosen.grader(endpoint, cache, breaker=breaker)
        message = same_model_warning(endpoint.model, {r["model"] for r in usable})
        if message:
            result.warnings.append(message)
            warnings.warn(message, SameModelWarning, stacklevel=2)

    offline: Judge = screen if screen is not None else OfflineJudge()
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

    report = progress or (lambda _step, _done, _total: None)
    first: dict[int, AnswerVerdict] = {}
    if chosen.screens:
        step = f"judging offline ({chosen.name})"
        every = max(1, len(prepared) // 200)  # at most a few hundred updates
        for n, (r, chunks, _) in enumerate(prepared):
            if n % every == 0:
                report(step, n, len(prepared))
            first[n] = offline.judge(r["answer"], chunks)
        report(step, len(prepared), len(prepared))
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
    second: dict[int, AnswerVerdict] = {}
    if remote is not None and escalate:
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
                    r,
                    verdict,
                    policy=chosen.name,
                    context_hash=digest,
                    correctness=correctness,
                    signals=found_signals,
                    sampled=sampled,
                )
            )
    if grader is not None:
        grader.cache.flush()
    if isinstance(chosen, TieredPolicy):
        result.estimates = estimates(list(screened.values()))
    if remote is not None:
        usage = Usage()
        for part in (getattr(remote, "usage", Usage()), grader.usage if grader else Usage()):
            usage.add(**part.as_dict())
        result.usage = usage.as_dict()
    if write and result.rows:
        tables.ensure_tables(store)
        tables.insert_verdicts(store, result.rows)
    return result


def _count_textless(result: JudgeRun, answers: list[dict[str, Any]]) -> None:
    """Count the answers not judged for lack of text, and the chunk texts the file filled in.

    Each answer not judged is listed with what is missing and the fix.
    """
    filled = [r["filled_texts"] for r in answers if r["filled_texts"]]
    result.filled_chunks = len({chunk for chunks in filled for chunk in chunks})
    result.filled_answers = len(filled)
    for r in answers:
        where = f"{r['trace_id']} ({r['question_key']})"
        if not r["has_answer"]:
            result.without_answer_text += 1
            result.not_judged.append(f"{where}: no answer text: {ANSWER_TEXT_FIX}")
        elif not r["has_context"]:
            result.without_chunk_text += 1
            missing = r["missing_texts"] or []
            what = (
                f"no text for chunk(s) {', '.join(missing[:5])}"
                + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
                if missing
                else "no chunk ids or texts recorded for its prompt"
            )
            result.not_judged.append(f"{where}: {what}: {CHUNK_TEXT_FIX}")
    result.without_content = result.without_answer_text + result.without_chunk_text


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
