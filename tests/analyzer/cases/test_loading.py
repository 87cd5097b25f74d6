"""load_cases (cases/loading.py): the format by extension, the docs example, empty and unknown files."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ragfunnel.analyzer.cases import (
    AllOf,
    CaseError,
    Leaf,
    load_cases,
)
from ragfunnel.analyzer.cases.loading import format_of
from ragfunnel.instrumentation.contract import question_hash
from tests.support.case_files import write

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


def test_unknown_extension_and_empty_file(tmp_path: Path) -> None:
    with pytest.raises(CaseError, match=r"unknown cases format: .*\.ndjson or \.csv/\.tsv"):
        load_cases(write(tmp_path, "c.txt", "x"))
    with pytest.raises(CaseError, match="no cases found"):
        load_cases(write(tmp_path, "c.yaml", ""))
    with pytest.raises(CaseError, match="cannot read"):
        load_cases(tmp_path / "missing.yaml")


@pytest.mark.parametrize(
    ("name", "fmt"),
    [("c.yaml", "yaml"), ("c.YML", "yaml"), ("c.json", "json"), ("c.jsonl", "jsonl"),
     ("c.ndjson", "jsonl"), ("c.csv", "csv"), ("c.tsv", "csv")],
)  # fmt: skip
def test_the_format_is_the_extensions(name: str, fmt: str) -> None:
    assert format_of(Path(name)) == fmt


def test_a_tab_separated_file_loads_like_its_csv(tmp_path: Path) -> None:
    tsv = write(tmp_path, "c.tsv", "id\tquestion\tevidence\nq1\tHotel, per night?\ta;b\n")
    csv = write(tmp_path, "c.csv", 'id,question,evidence\nq1,"Hotel, per night?",a;b\n')
    (from_tsv,), (from_csv,) = load_cases(tsv).cases, load_cases(csv).cases
    assert from_tsv.source == f"{tsv}:2"
    assert dataclasses.replace(from_tsv, source="") == dataclasses.replace(from_csv, source="")
    assert from_tsv.question == "Hotel, per night?" and from_tsv.evidence_ids == ("a", "b")
