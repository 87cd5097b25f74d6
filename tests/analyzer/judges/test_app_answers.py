"""README-style apps (issue 34), English and German: their correct answers and planted faults.

- ``hr_finance_answers.json``: the third and fourth apps, HR, IT and travel-finance rules.
- ``clouddesk_answers.json``: the sixth, a subscription, pricing and support-hours FAQ written by
  a colleague from the README and docs alone.

Each correct answer — paraphrases, bullets, "No." and "I'm afraid not." answers, hedges,
sign-offs, other number, time, day and unit forms ("ninety days", "10 Uhr abends"), German
ordinals, a German claim in a prompt mixing languages — must never have an unsupported claim
(that would blame generation for a correct answer), with or without the paraphrase embedding;
each planted fault the judge catches must stay caught, and each it holds back (uncertain: a case
for a stronger judge) must never be supported. The faults it does not catch are in
bench/RESULTS.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ragfunnel.analyzer.judges.offline import OfflineJudge

_DATA = Path(__file__).parents[2] / "support" / "data"
APPS = {
    name: json.loads((_DATA / f"{name}_answers.json").read_text(encoding="utf-8"))
    for name in ("hr_finance", "clouddesk")
}


def _items(kind: str) -> list[tuple[str, dict[str, Any]]]:
    return [(name, item) for name, app in APPS.items() for item in app.get(kind, [])]


def _judged(app: str, item: dict[str, Any], paraphrase: bool) -> list[tuple[str, str, str]]:
    chunks: dict[str, str] = APPS[app]["chunks"]
    verdict = OfflineJudge(paraphrase=paraphrase).judge(
        item["answer"], ((i, chunks[i]) for i in item["prompt"])
    )
    return [(c.label, c.text, c.missing) for c in verdict.claims]


def _id(case: tuple[str, dict[str, Any]]) -> str:
    return f"{case[0]}: {case[1]['answer'][:40]}"


PARAPHRASE = pytest.mark.parametrize("paraphrase", [False, True], ids=["plain", "paraphrase"])


@PARAPHRASE
@pytest.mark.parametrize("case", _items("correct"), ids=_id)
def test_no_correct_answer_is_blamed_on_generation(
    case: tuple[str, dict[str, Any]], paraphrase: bool
) -> None:
    blamed = [c for c in _judged(*case, paraphrase) if c[0] == "unsupported"]
    assert not blamed, blamed


@PARAPHRASE
@pytest.mark.parametrize("case", _items("caught_faults"), ids=_id)
def test_a_planted_fault_the_judge_catches_stays_unsupported(
    case: tuple[str, dict[str, Any]], paraphrase: bool
) -> None:
    assert any(c[0] == "unsupported" for c in _judged(*case, paraphrase))


@PARAPHRASE
@pytest.mark.parametrize("case", _items("held_faults"), ids=_id)
def test_a_planted_fault_the_judge_holds_back_is_never_supported(
    case: tuple[str, dict[str, Any]], paraphrase: bool
) -> None:
    assert any(c[0] != "supported" for c in _judged(*case, paraphrase))


def test_every_app_has_answers_of_each_kind() -> None:
    for name, app in APPS.items():
        assert app["correct"] and app["caught_faults"], name
    assert len(_items("correct")) == 48 + 22
