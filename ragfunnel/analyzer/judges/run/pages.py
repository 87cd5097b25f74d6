"""One page of answers judged: read, screened, escalated, graded, its rows made and handed on.

``judge_store`` (``batch.py``) runs a :class:`PageRun` over the pages of its answers: the
offline policy over pages of :data:`~ragfunnel.analyzer.judges.answers.PAGE_TRACES` traces
(each page's rows written and handed to ``on_rows`` before the next but one is read), the
others over one page of every answer (the LLM's slices and the tiered sample need the whole
run). A page's screen verdicts come from the judge in process, or from the workers
(``workers.py``) while the next page is read; its signals are read once they are back, with the
conflicting sources the screen read beside each verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from ragfunnel.analyzer.cases import Case, CaseSet
from ragfunnel.analyzer.judges import tables
from ragfunnel.analyzer.judges.correctness import (
    Correctness,
    facts_correctness,
    reference_correctness,
)
from ragfunnel.analyzer.judges.llm import JudgeInput, LLMCorrectness
from ragfunnel.analyzer.judges.protocol import BatchJudge, Judge, judge_all
from ragfunnel.analyzer.judges.run.outcome import JudgeRun, count_textless
from ragfunnel.analyzer.judges.run.policies import Policy, TieredPolicy
from ragfunnel.analyzer.judges.run.signals import amounts_reader, signals
from ragfunnel.analyzer.judges.run.tiered import Screened
from ragfunnel.analyzer.judges.run.verdict_row import verdict_row
from ragfunnel.analyzer.judges.run.workers import (
    IN_PROCESS_BELOW,
    Pending,
    Screening,
    ScreenPool,
    screen_one,
)
from ragfunnel.analyzer.judges.verdict_types import AnswerVerdict, Chunk, JudgeError, context_hash
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.tables.verdicts import VerdictRow
from ragfunnel.instrumentation.contract import question_hash

__all__ = ["PROGRESS_SLICE", "Page", "PageRun", "Prepared", "Progress", "Screen"]

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


Prepared = tuple[dict[str, Any], tuple[Chunk, ...], list[str]]
"""An answer to judge: its row of ``read_answers``, its prompt's chunks, its signals."""


@dataclass
class Screen:
    """The screening judge, in process, or in the pool's workers when it ships (``blob``)."""

    judge: Judge
    pool: ScreenPool
    blob: bytes | None

    def send(
        self, usable: list[dict[str, Any]], prompts: list[tuple[Chunk, ...]]
    ) -> Pending | None:
        """The workers' verdicts on their way, or ``None``: judge these in process.

        In process when the judge does not ship, or when the workers are not started (the
        run has fewer than :data:`IN_PROCESS_BELOW` answers) and this page is as small.
        """
        if self.blob is None or (not self.pool.started and len(usable) < IN_PROCESS_BELOW):
            return None
        return self.pool.submit([(r["answer"], c) for r, c in zip(usable, prompts, strict=True)])


@dataclass
class Page:
    """A page of answers read, its screen verdicts perhaps under way in the workers.

    Attributes:
        usable: the answers to judge (each with an answer and a prompt), rows of ``read_answers``.
        prompts: each usable answer's prompt chunks.
        oracle: each question's oracle answer (for the signals).
        pending: the workers' verdicts on their way, if they judge this page.
    """

    usable: list[dict[str, Any]]
    prompts: list[tuple[Chunk, ...]]
    oracle: dict[tuple[str, str], str]
    pending: Pending | None = None

    def prepared(self, conflicts: Mapping[int, list[str]]) -> list[Prepared]:
        """Each answer with its chunks and signals; ``conflicts``: what the screen read, by answer."""
        return [
            (r, chunks, signals(r["answer"], chunks, conflicts=conflicts.get(n),
                                **_signal_inputs(r, self.oracle)))
            for n, (r, chunks) in enumerate(zip(self.usable, self.prompts, strict=True))
        ]  # fmt: skip


@dataclass
class PageRun:
    """One ``judge_store`` call's state across its pages."""

    store: Store
    chosen: Policy
    cases: CaseSet | None
    result: JudgeRun
    progress: Progress
    write: bool
    keep_rows: bool
    on_rows: Callable[[list[VerdictRow]], None] | None
    screen: Screen | None = None
    remote: BatchJudge | None = None
    grader: LLMCorrectness | None = None
    total: int = 0
    done: int = 0
    screened: dict[int, Screened] = field(default_factory=dict)
    filled: set[str] = field(default_factory=set)

    @property
    def step(self) -> str:
        """The progress bar's name of the screening step."""
        return f"judging offline ({self.chosen.name})"

    def report(self, done: int, total: int) -> None:
        """Move the screening step's bar."""
        self.progress(self.step, done, max(total, done))

    def start(self, found: pl.DataFrame) -> Page:
        """A page read: its answers counted, and sent to the workers when they judge."""
        answers, oracle = _split(found)
        self.result.answers += len(answers)
        count_textless(self.result, answers, self.filled)
        usable = [r for r in answers if r["has_answer"] and r["has_context"]]
        self.done += len(answers) - len(usable)
        prompts = _chunks(usable)
        assert self.screen is not None
        pending = self.screen.send(usable, prompts) if self.chosen.screens else None
        return Page(usable, prompts, oracle, pending)

    def finish(self, page: Page) -> None:
        """A page judged: its screen verdicts, the LLM's, its rows made, written and handed on."""
        screenings = self._first(page) if self.chosen.screens else {}
        first = {n: verdict for n, (verdict, _) in screenings.items()}
        prepared = page.prepared({n: found for n, (_, found) in screenings.items()})
        screened, escalate = _escalation(self.chosen, prepared, first, self.result)
        second = _ask(
            self.remote, prepared, escalate=escalate, screened=screened,
            report=self.progress, result=self.result,
        )  # fmt: skip
        rows = _rows(
            self.chosen, self.cases, prepared=prepared, first=first, second=second,
            screened=screened, grader=self.grader, result=self.result,
        )  # fmt: skip
        if isinstance(self.chosen, TieredPolicy):  # one page: the whole run
            self.screened = screened
        if self.write and rows:
            tables.ensure_tables(self.store)
            tables.insert_verdicts(self.store, rows)
        if self.on_rows is not None and rows:
            self.on_rows(rows)
        self.result.add_rows(rows, keep=self.keep_rows)

    def _first(self, page: Page) -> dict[int, Screening]:
        """The screening judge's verdict of every answer of the page, counted on the bar.

        Each with its prompt's conflicting sources, read from the chunks the judge prepared.
        """
        if page.pending is not None:

            def judged(n: int) -> None:
                self.done += n
                self.report(self.done, self.total)

            return dict(enumerate(page.pending.results(judged)))
        assert self.screen is not None
        first: dict[int, Screening] = {}
        amounts = amounts_reader(self.screen.judge)
        every = max(1, self.total // 200)  # at most a few hundred updates
        for n, (r, chunks) in enumerate(zip(page.usable, page.prompts, strict=True)):
            if (self.done + n) % every == 0:
                self.report(self.done + n, self.total)
            first[n] = screen_one(self.screen.judge, r["answer"], chunks, amounts)
        self.done += len(page.usable)
        self.report(self.done, self.total)
        return first


def _split(
    found: pl.DataFrame,
) -> tuple[list[dict[str, Any]], dict[tuple[str, str], str]]:
    """The pipeline answers to judge, and each question's oracle answer (for the signals)."""
    oracle = {
        (r["trace_id"], r["question_key"]): r["answer"]
        for r in found.filter(pl.col("mode") == "oracle").iter_rows(named=True)
        if r["has_answer"]
    }
    return list(found.filter(pl.col("mode") == "pipeline").iter_rows(named=True)), oracle


def _chunks(usable: list[dict[str, Any]]) -> list[tuple[Chunk, ...]]:
    """Each answer's prompt chunks."""
    return [
        tuple(Chunk(i, t) for i, t in zip(r["context_ids"], r["context_texts"], strict=True))
        for r in usable
    ]


def _signal_inputs(r: dict[str, Any], oracle: Mapping[tuple[str, str], str]) -> dict[str, Any]:
    """What :func:`signals` reads of an answer beside its text and chunks."""
    return {
        "low_confidence": r["low_confidence"] or (),
        "logprobs_min": r["logprobs_min"],
        "sample_answers": r["sample_answers"] or (),
        "oracle_answer": oracle.get((r["trace_id"], r["question_key"])),
    }


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
) -> list[VerdictRow]:  # fmt: skip
    """One verdict row per answer and judge, with its correctness (counted in ``result``)."""
    made: list[VerdictRow] = []
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
            made.append(
                verdict_row(
                    r, verdict, policy=chosen.name, context_hash=digest,
                    correctness=correctness, signals=found_signals, sampled=sampled,
                )
            )  # fmt: skip
    return made


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
