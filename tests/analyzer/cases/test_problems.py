"""How a bad cases file is reported (cases/problems.py): located problems, all in one error."""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.cases import CaseError, CaseProblem
from ragfunnel.analyzer.cases.problems import MAX_PROBLEMS_SHOWN


def test_a_problem_names_what_its_format_knows() -> None:
    full = CaseProblem("cases.yaml", 4, "q-1", "evidence", "empty group", column=13)
    assert str(full) == "cases.yaml:4:13: case 'q-1': field 'evidence': empty group"
    assert str(CaseProblem("cases.json", None, "q-1", "id", "required", column=3)) == (
        "cases.json: case 'q-1': field 'id': required"  # no line: no column either
    )
    assert str(CaseProblem("cases.csv", 2, None, None, "cannot read")) == "cases.csv:2: cannot read"


def test_the_error_carries_every_problem_and_shows_the_first_ones() -> None:
    problems = (CaseProblem("c.jsonl", n, f"q{n}", "id", "duplicate id") for n in range(1, 31))
    error = CaseError(problems)  # any iterable, a generator too
    assert len(error.problems) == 30
    lines = str(error).split("\n")
    assert lines[0] == "30 problems in cases:"
    assert lines[1] == "  c.jsonl:1: case 'q1': field 'id': duplicate id"
    assert len(lines) == 1 + MAX_PROBLEMS_SHOWN + 1
    assert lines[-1] == "  ... and 5 more problems"
    six = CaseError(CaseProblem("c.jsonl", n, f"q{n}", "id", "dup") for n in range(1, 27))
    assert str(six).split("\n")[-1] == "  ... and 1 more problem"
    one = CaseError([CaseProblem("c.yaml", None, None, None, "empty file")])
    assert str(one) == "1 problem in cases:\n  c.yaml: empty file"


def test_the_error_is_still_a_value_error() -> None:
    with pytest.raises(ValueError, match="1 problem in cases"):
        raise CaseError([CaseProblem("c.yaml", 1, None, None, "bad")])
