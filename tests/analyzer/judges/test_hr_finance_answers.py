"""A third and fourth README-style app (issue 34): HR, IT and travel-finance rules, EN and DE.

Each correct answer — paraphrases, bullets, "No." answers, hedges, other number, time, day and
unit forms, German ordinals, a German claim in a prompt mixing languages — must never have an
unsupported claim (that would blame generation for a correct answer), with or without the
paraphrase embedding; each planted fault the judge catches must stay caught. The faults it
does not catch (a substituted non-fact phrase, an added qualifier) are in bench/RESULTS.md,
"Issue 34 (2026-12-04, fourth session)".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ragfunnel.analyzer.judges.offline import OfflineJudge

DATA = json.loads(
    (Path(__file__).parents[2] / "support" / "data" / "hr_finance_answers.json").read_text(
        encoding="utf-8"
    )
)
CHUNKS: dict[str, str] = DATA["chunks"]


def _judged(item: dict[str, Any], paraphrase: bool) -> list[tuple[str, str, str]]:
    judge = OfflineJudge(paraphrase=paraphrase)
    verdict = judge.judge(item["answer"], ((i, CHUNKS[i]) for i in item["prompt"]))
    return [(c.label, c.text, c.missing) for c in verdict.claims]


@pytest.mark.parametrize("paraphrase", [False, True], ids=["plain", "paraphrase"])
@pytest.mark.parametrize("item", DATA["correct"], ids=lambda i: i["answer"][:40])
def test_no_correct_answer_is_blamed_on_generation(item: dict[str, Any], paraphrase: bool) -> None:
    blamed = [c for c in _judged(item, paraphrase) if c[0] == "unsupported"]
    assert not blamed, blamed


@pytest.mark.parametrize("paraphrase", [False, True], ids=["plain", "paraphrase"])
@pytest.mark.parametrize("item", DATA["caught_faults"], ids=lambda i: i["answer"][:40])
def test_a_planted_fault_the_judge_catches_stays_unsupported(
    item: dict[str, Any], paraphrase: bool
) -> None:
    assert any(c[0] == "unsupported" for c in _judged(item, paraphrase))
