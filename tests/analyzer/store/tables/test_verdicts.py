"""``store/tables/verdicts.py``: the verdict row, which verdict decides, the two layouts' reads."""

from __future__ import annotations

from datetime import datetime

from ragfunnel.analyzer.store.tables.verdicts import DECIDING_ORDER, deciding_rows


def test_one_rule_decides_among_an_answers_verdicts() -> None:
    """Issue 33: the rule was written in SQL, in batch.py and in review.py."""
    early, late = datetime(2026, 1, 1), datetime(2026, 1, 2)
    rows = [
        {"TraceId": "t", "QuestionKey": "q", "Judge": "llm:a", "JudgedAt": early},
        {"TraceId": "t", "QuestionKey": "q", "Judge": "offline", "JudgedAt": late},
        {"TraceId": "t", "QuestionKey": "q", "Judge": "llm:b", "JudgedAt": late},
        {"TraceId": "u", "QuestionKey": "q", "Judge": "offline", "JudgedAt": None},
    ]
    assert [r["Judge"] for r in deciding_rows(rows)] == ["llm:b", "offline"]
    assert [r["Judge"] for r in deciding_rows(rows[:2])] == ["llm:a"]
    assert "Judge != 'offline'" in DECIDING_ORDER and "JudgedAt" in DECIDING_ORDER
