"""Validation (cases/validation.py): every problem of a case named by file, line, case and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragfunnel.analyzer.cases import (
    Case,
    CaseError,
    Leaf,
    load_cases,
)
from ragfunnel.analyzer.cases.validation import check_case_set
from tests.support.case_files import write


def test_yaml_problems_name_file_line_case_field(tmp_path: Path) -> None:
    text = """\
- id: ok-1
  question: Fine?
  evidence: [a]
- id: bad-1
  question: Broken evidence?
  evidence: {all_of: []}
- id: bad-2
  question: Typo?
  evidnce: [a]
- question: No id?
  evidence: [a]
- id: bad-3
  question: Answerable without evidence?
- id: ok-1
  question: Duplicate?
  evidence: [b]
"""
    with pytest.raises(CaseError) as info:
        load_cases(write(tmp_path, "c.yaml", text))
    problems = [str(p) for p in info.value.problems]
    name = str(tmp_path / "c.yaml")
    assert f"{name}:6: case 'bad-1': field 'evidence': evidence.all_of: empty group" in problems
    assert any(
        p.startswith(
            f"{name}:9: case 'bad-2': field 'evidnce': unknown field (did you mean 'evidence'"
        )
        for p in problems
    )
    assert any(p.startswith(f"{name}:10: field 'id': required") for p in problems)
    assert any(
        p.startswith(f"{name}:12: case 'bad-3': field 'evidence': required") for p in problems
    )
    assert any(p.startswith(f"{name}:14: case 'ok-1': field 'id': duplicate id") for p in problems)
    assert len(problems) == 5
    assert "5 problems in cases" in str(info.value)


def test_unanswerable_with_evidence_is_rejected(tmp_path: Path) -> None:
    text = "- {id: a, question: 'Q?', answerable: false, evidence: [x]}\n"
    with pytest.raises(CaseError, match=r"unanswerable case .* cannot require evidence"):
        load_cases(write(tmp_path, "c.yaml", text))


def test_a_bad_leaf_in_a_file_names_file_line_case_and_field(tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text(
        "- id: q1\n  question: Hotel?\n  evidence:\n    - {document: d, quote: ''}\n",
        encoding="utf-8",
    )
    with pytest.raises(CaseError) as caught:
        load_cases(path)
    assert "cases.yaml:4: case 'q1': field 'evidence': evidence[0].quote" in str(caught.value)


def test_cases_built_in_code_get_the_loaders_checks_all_at_once() -> None:
    cases = [
        Case("q1", "Hotel?", Leaf("a"), source="cases.yaml:3"),
        Case("q2", "Taxi?"),  # answerable without evidence
        Case("q1", "Again?", Leaf("b"), source="cases.yaml:9"),
        Case("q3", "?!", Leaf("c")),
        Case("q4", "Refund?", Leaf("d"), facts=("x",), answerable=False),
    ]
    with pytest.raises(CaseError) as caught:
        check_case_set(cases, "built in code")
    assert [str(p) for p in caught.value.problems] == [
        "built in code:9: case 'q1': field 'id': duplicate id (first defined at cases.yaml:3)",
        "built in code: case 'q2': field 'evidence': required for an answerable case: list the "
        "chunk ids a correct answer needs (all_of / any_of), or set answerable: false",
        "built in code: case 'q3': field 'question': empty after normalisation",
        "built in code: case 'q4': field 'evidence': an unanswerable case (answerable: false) "
        "cannot require evidence",
        "built in code: case 'q4': field 'facts': an unanswerable case (answerable: false) has "
        "no facts",
    ]
    check_case_set(cases[:1], "built in code")  # a sound set: no error
