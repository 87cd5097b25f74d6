"""The one shape every judge has: a name, and ``judge(answer, context)`` → :class:`AnswerVerdict`.

The offline judge, the LLM judge and the fact-checking judge all fit it, and so does any judge a
user writes (a test's stand-in, a house model): ``judge_store(..., screen=MyJudge())`` uses it
where the offline judge would be. Judges that call an endpoint also judge many answers at once
(:class:`BatchJudge`); for the others, answers are judged one by one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

from ragfunnel.analyzer.judges.verdict_types import AnswerVerdict, Chunk, JudgeError, JudgeInput

__all__ = ["BatchJudge", "Judge", "judge_all"]


@runtime_checkable
class Judge(Protocol):
    """Rates every claim of an answer against its context.

    ``name`` goes into each verdict row's ``Judge`` column: ``offline`` for the offline judge
    (the funnel lets any other judge's verdict decide over it), ``llm:<model>``,
    ``factcheck:<model>``, or a name of the user's own.
    """

    name: str

    def judge(self, answer: str, context: Iterable[Chunk | tuple[str, str] | str]) -> AnswerVerdict:
        """Rate every claim of ``answer`` against ``context``."""
        ...


@runtime_checkable
class BatchJudge(Judge, Protocol):
    """A judge that rates many answers at once, an error in place of each it could not."""

    def judge_many(self, items: Iterable[JudgeInput]) -> list[AnswerVerdict | JudgeError]:
        """Judge ``items`` in input order."""
        ...


def judge_all(judge: Judge, items: Sequence[JudgeInput]) -> list[AnswerVerdict | JudgeError]:
    """Judge ``items`` with ``judge``: in one batch when it can, else one by one."""
    if isinstance(judge, BatchJudge):
        return judge.judge_many(items)
    return [_one(judge, item) for item in items]


def _one(judge: Judge, item: JudgeInput) -> AnswerVerdict | JudgeError:
    try:
        return judge.judge(item.answer, item.context)
    except JudgeError as exc:
        return exc
