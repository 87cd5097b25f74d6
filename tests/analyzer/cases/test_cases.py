from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragfunnel.analyzer.cases import (
    AllOf,
    AnyOf,
    Case,
    CaseError,
    CaseSet,
    Leaf,
    evidence_to_data,
    load_cases,
    parse_evidence,
)
from ragfunnel.instrumentation.contract import question_hash

# The cases example of docs/funnel.md §1.
FUNNEL_DOC_YAML = """\
- id: q-017
  question: Which firmware versions need a manual reset?
  evidence: {all_of: [release-notes-4.2#known-issues, runbook-reset#scope]}
  reference: Firmware 4.2.0 and 4.2.1 need a manual reset.
  facts: ["4.2.0", "4.2.1"]
- id: q-031
  question: What is the refund for a cancelled flight?
  answerable: false
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_docs_example_loads(tmp_path: Path) -> None:
    cases = load_cases(write(tmp_path, "cases.yaml", FUNNEL_DOC_YAML))
    assert len(cases) == 2
    q17 = cases.by_id("q-017")
    assert q17 is not None
    assert q17.evidence == AllOf(
        (Leaf("release-notes-4.2#known-issues"), Leaf("runbook-reset#scope"))
    )
    assert q17.facts == ("4.2.0", "4.2.1")
    assert q17.reference == "Firmware 4.2.0 and 4.2.1 need a manual reset."
    assert q17.question_hash == question_hash("which firmware versions need a manual reset")
    assert q17.source.endswith("cases.yaml:1")
    q31 = cases.by_id("q-031")
    assert q31 is not None and not q31.answerable and q31.evidence is None


def test_nested_groups_and_shorthands() -> None:
    tree = parse_evidence({"all_of": ["a", {"any_of": ["b", {"all_of": ["c", "d"]}]}]})
    assert tree == AllOf((Leaf("a"), AnyOf((Leaf("b"), AllOf((Leaf("c"), Leaf("d")))))))
    assert parse_evidence(["a", "b"]) == AllOf((Leaf("a"), Leaf("b")))
    assert parse_evidence("a") == Leaf("a")
    assert evidence_to_data(tree) == {"all_of": ["a", {"any_of": ["b", {"all_of": ["c", "d"]}]}]}


def test_evidence_ids_are_distinct_in_order() -> None:
    case = Case("x", "q?", parse_evidence({"all_of": ["b", "a", {"any_of": ["a", "c"]}]}))
    assert case.evidence_ids == ("b", "a", "c")


@pytest.mark.parametrize(
    ("evidence", "message"),
    [
        ({"all_of": []}, "evidence.all_of: empty group"),
        ({"alll_of": ["a"]}, "did you mean 'all_of'"),
        ({"all_of": ["a"], "any_of": ["b"]}, "exactly one key"),
        ({"any_of": "a"}, "evidence.any_of: expected a list"),
        ({"all_of": ["a", None]}, "evidence.all_of[1]"),
        ({"all_of": ["a", ""]}, "empty chunk id"),
    ],
)
def test_bad_evidence_names_the_part(evidence: object, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_evidence(evidence)


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


def test_unanswerable_with_evidence_is_rejected(tmp_path: Path) -> None:
    text = "- {id: a, question: 'Q?', answerable: false, evidence: [x]}\n"
    with pytest.raises(CaseError, match=r"unanswerable case .* cannot require evidence"):
        load_cases(write(tmp_path, "c.yaml", text))


def test_unknown_extension_and_empty_file(tmp_path: Path) -> None:
    with pytest.raises(CaseError, match="unknown cases format"):
        load_cases(write(tmp_path, "c.txt", "x"))
    with pytest.raises(CaseError, match="no cases found"):
        load_cases(write(tmp_path, "c.yaml", ""))
    with pytest.raises(CaseError, match="cannot read"):
        load_cases(tmp_path / "missing.yaml")


def test_caseset_of_checks_and_ambiguous_hashes() -> None:
    a = Case("a", "Same question?", Leaf("x"))
    b = Case("b", "same   QUESTION", Leaf("y"))
    cases = CaseSet.of([a, b])
    assert cases.ambiguous_hashes() == {a.question_hash}
    with pytest.raises(CaseError, match="duplicate id"):
        CaseSet.of([a, a])
    with pytest.raises(CaseError, match="required for an answerable case"):
        CaseSet.of([Case("c", "No evidence?")])
