"""The readers (cases/readers.py): YAML, JSON, JSON Lines and CSV records with their lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragfunnel.analyzer.cases import (
    AllOf,
    AnyOf,
    CaseError,
    Leaf,
    Quote,
    Span,
    load_cases,
)
from tests.support.case_files import QUOTE, write

EXPECTED = AllOf((Quote("travel-policy-2025", QUOTE["quote"]), Leaf("faq#3")))


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_yaml_syntax_error_has_line(tmp_path: Path) -> None:
    with pytest.raises(CaseError, match=r"c\.yaml:4:\d+: invalid YAML"):
        load_cases(write(tmp_path, "c.yaml", "- id: a\n  question: q\n  evidence: [a\n"))


def test_yaml_cases_key_and_extra_fields(tmp_path: Path) -> None:
    text = "version: 2\ncases:\n  - {id: a, question: 'Q?', evidence: x, tags: [billing]}\n"
    cases = load_cases(write(tmp_path, "c.yml", text))
    assert cases.cases[0].extra == {"tags": ["billing"]}
    assert cases.cases[0].evidence == Leaf("x")


def test_jsonl_reports_line_numbers(tmp_path: Path) -> None:
    lines = [
        json.dumps({"id": "a", "question": "Q1?", "evidence": {"any_of": ["x", "y"]}}),
        "",
        "{not json",
        json.dumps({"id": "b", "question": "Q2?", "evidence": ["x"], "answerable": "maybe"}),
    ]
    with pytest.raises(CaseError) as info:
        load_cases(write(tmp_path, "c.jsonl", "\n".join(lines)))
    problems = [str(p) for p in info.value.problems]
    assert any(p.startswith(f"{tmp_path / 'c.jsonl'}:3:2: invalid JSON") for p in problems)
    assert any(":4: case 'b': field 'answerable': expected true or false" in p for p in problems)


def test_json_array(tmp_path: Path) -> None:
    data = [{"id": 7, "question": "Seven?", "evidence": "s7", "facts": "seven"}]
    cases = load_cases(write(tmp_path, "c.json", json.dumps(data)))
    assert cases.cases[0].id == "7"
    assert cases.cases[0].facts == ("seven",)


def test_csv_flat_and_json_columns(tmp_path: Path) -> None:
    text = (
        "id,question,all_of,any_of,evidence,facts,answerable,reference\n"
        "a,First?,x;y,,,4.2.0;4.2.1,,Ref\n"
        "b,Second?,,p;q,,,true,\n"
        'c,Third?,,,"{""all_of"": [""x"", {""any_of"": [""y"", ""z""]}]}","[""1""]",,\n'
        "d,Fourth?,,,,,false,\n"
    )
    cases = load_cases(write(tmp_path, "c.csv", text))
    by = {c.id: c for c in cases}
    assert by["a"].evidence == AllOf((Leaf("x"), Leaf("y")))
    assert by["a"].facts == ("4.2.0", "4.2.1")
    assert by["b"].evidence == AnyOf((Leaf("p"), Leaf("q")))
    assert by["c"].evidence == AllOf((Leaf("x"), AnyOf((Leaf("y"), Leaf("z")))))
    assert by["c"].facts == ("1",)
    assert not by["d"].answerable


def test_csv_problem_line_and_conflicting_columns(tmp_path: Path) -> None:
    text = "id,question,all_of,any_of\na,First?,x,y\n"
    with pytest.raises(
        CaseError, match=r"c\.csv:2: case 'a': field 'evidence': give evidence in one"
    ):
        load_cases(write(tmp_path, "c.csv", text))


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "cases.yaml",
            "- id: q1\n  question: Hotel?\n  evidence:\n"
            "    all_of:\n      - document: travel-policy-2025\n"
            "        quote: The hotel allowance is 120 EUR per night\n      - faq#3\n",
        ),
        (
            "cases.json",
            json.dumps(
                [{"id": "q1", "question": "Hotel?", "evidence": {"all_of": [QUOTE, "faq#3"]}}]
            ),
        ),
        (
            "cases.jsonl",
            "// one case per line\n"
            + json.dumps({"id": "q1", "question": "Hotel?", "evidence": [QUOTE, "faq#3"]})
            + "\n",
        ),
        (
            "cases.csv",
            'id,question,evidence\nq1,Hotel?,"'
            + json.dumps([QUOTE, "faq#3"]).replace('"', '""')
            + '"\n',
        ),
    ],
)
def test_every_format_reads_document_leaves(tmp_path: Path, name: str, text: str) -> None:
    (case,) = load_cases(_write(tmp_path / name, text))
    assert case.evidence == EXPECTED
    assert case.evidence_ids == (
        'travel-policy-2025 "The hotel allowance is 120 EUR per night"',
        "faq#3",
    )


def test_csv_takes_one_document_leaf_in_plain_columns(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "cases.csv",
        "id,question,document,quote,start,end\n"
        "q1,Hotel?,travel-policy-2025,The hotel allowance is 120 EUR per night,,\n"
        "q2,Taxi?,travel-policy-2025,,1520,1575\n",
    )
    first, second = load_cases(path)
    assert first.evidence == Quote("travel-policy-2025", QUOTE["quote"])
    assert second.evidence == Span("travel-policy-2025", 1520, 1575)


def test_csv_refuses_a_document_column_beside_evidence(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "cases.csv", "id,question,evidence,document,quote\nq1,Hotel?,a#1,d,x\n"
    )
    with pytest.raises(CaseError, match=r"cases.csv:2: case 'q1': field 'evidence': give evidence"):
        load_cases(path)
