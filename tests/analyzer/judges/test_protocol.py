"""The judge protocol (judges/protocol.py): any judge object, judged one by one or as a batch."""

from __future__ import annotations

from collections.abc import Iterable

from ragfunnel.analyzer.judges import AnswerVerdict, Chunk, ClaimVerdict, JudgeError
from ragfunnel.analyzer.judges.protocol import BatchJudge, Judge, judge_all
from ragfunnel.analyzer.judges.verdict_types import JudgeInput, as_chunks

ITEMS = [
    JudgeInput("Taxi ab 22 Uhr.", (Chunk("taxi", "Ein Taxi ist ab 22:00 Uhr erlaubt."),)),
    JudgeInput("", ()),
    JudgeInput("Hotel 120 EUR.", (Chunk("hotel", "120 EUR pro Nacht."),)),
]


class OneByOne:
    """A user's judge: supported when the context is not empty, an error for an empty answer."""

    name = "house"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def judge(self, answer: str, context: Iterable[Chunk | tuple[str, str] | str]) -> AnswerVerdict:
        self.seen.append(answer)
        if not answer:
            raise JudgeError("empty answer")
        ids = tuple(chunk.id for chunk in as_chunks(context))
        return AnswerVerdict((ClaimVerdict(answer, "supported", ids),), judge=self.name)


class Batched(OneByOne):
    def judge_many(self, items: Iterable[JudgeInput]) -> list[AnswerVerdict | JudgeError]:
        work = list(items)
        self.seen.append(f"batch of {len(work)}")
        return [JudgeError("batched") for _ in work]


def test_a_plain_judge_is_asked_one_by_one_with_each_error_in_its_place() -> None:
    judge = OneByOne()
    assert isinstance(judge, Judge) and not isinstance(judge, BatchJudge)
    first, empty, last = judge_all(judge, ITEMS)
    assert isinstance(first, AnswerVerdict) and first.claims[0].supporting_ids == ("taxi",)
    assert isinstance(empty, JudgeError) and str(empty) == "empty answer"
    assert isinstance(last, AnswerVerdict) and last.judge == "house"
    assert judge.seen == ["Taxi ab 22 Uhr.", "", "Hotel 120 EUR."]


def test_a_batch_judge_gets_every_item_at_once() -> None:
    judge = Batched()
    assert isinstance(judge, BatchJudge)
    results = judge_all(judge, ITEMS)
    assert judge.seen == ["batch of 3"]
    assert [str(r) for r in results] == ["batched"] * 3
    assert judge_all(OneByOne(), []) == []
