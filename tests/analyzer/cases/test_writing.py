"""Writing cases (cases/writing.py): every format reads back what was written."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragfunnel.analyzer.cases import (
    AllOf,
    Case,
    Leaf,
    Quote,
    Span,
    load_cases,
    write_cases,
)


@pytest.mark.parametrize("name", ["out.yaml", "out.json", "out.jsonl", "out.csv", "out.tsv"])
def test_written_cases_read_back_the_same(tmp_path: Path, name: str) -> None:
    cases = [
        Case("q1", "Hotel, per night?", AllOf((Quote("policy", 'He said "120"'), Leaf("faq#3"))),
             reference="120 EUR", facts=("120 EUR", "per night"), extra={"topic": "travel"}),
        Case("q2", "Taxi?", Span("policy", 40, 80)),
        Case("q3", "Parking?", None, answerable=False),
    ]  # fmt: skip
    write_cases(cases, tmp_path / name)
    back = load_cases(tmp_path / name)
    assert [(c.id, c.question, c.evidence, c.reference, c.facts, c.answerable) for c in back] == [
        (c.id, c.question, c.evidence, c.reference, c.facts, c.answerable) for c in cases
    ]
    assert back.by_id("q1").extra == {"topic": "travel"}  # type: ignore[union-attr]
