"""Writing cases (cases/writing.py): every format reads back what was written."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragfunnel.analyzer.cases import (
    AllOf,
    AnyOf,
    Case,
    CaseError,
    Leaf,
    Quote,
    Span,
    case_to_data,
    cases_text,
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


def test_a_case_as_data_leaves_its_defaults_out() -> None:
    assert case_to_data(Case("q1", "Taxi?", Leaf("taxi"))) == {
        "id": "q1",
        "question": "Taxi?",
        "evidence": "taxi",
    }
    assert case_to_data(Case("q2", "Refund?", answerable=False, extra={"owner": "ops"})) == {
        "id": "q2",
        "question": "Refund?",
        "answerable": False,
        "owner": "ops",
    }


def test_csv_cells_hold_json_where_a_column_is_not_text_and_cases_may_be_a_generator() -> None:
    cases = (
        case
        for case in [
            Case("q1", "Hotel?", AnyOf((Leaf("a"), Leaf("b"))), reference="120 EUR",
                 facts=("120 EUR",), extra={"tags": ["x"]}),
            Case("q2", "Refund?", answerable=False),
        ]
    )  # fmt: skip
    assert cases_text(cases, "out.csv") == (
        "id,question,evidence,reference,facts,answerable,tags\n"
        'q1,Hotel?,"{""any_of"": [""a"", ""b""]}",120 EUR,"[""120 EUR""]",,"[""x""]"\n'
        "q2,Refund?,,,,false,\n"
    )
    tsv = cases_text([Case("q3", "Tab?", Leaf("c"))], Path("out.TSV"))
    assert tsv.splitlines()[1] == 'q3\tTab?\t"""c"""\t\t\t'


def test_an_unknown_extension_is_a_case_error_naming_the_file(tmp_path: Path) -> None:
    with pytest.raises(CaseError, match=r"out\.txt: unknown cases format"):
        write_cases([Case("q1", "Taxi?", Leaf("taxi"))], tmp_path / "out.txt")
    assert not (tmp_path / "out.txt").exists()
