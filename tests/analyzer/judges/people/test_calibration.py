"""Calibration (judges/people/calibration.py): labelled review sheets read back, judges against people."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from ragfunnel.analyzer.judges.people.calibration import LabelError, calibrate, read_labels


def test_calibrate_from_csv_with_short_labels(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            ["review_id", "week", "claims", "judges", "human_labels", "claim_split_sensible"]
        )
        w.writerow(
            [
                "a",
                "2026-W49",
                json.dumps(["x", "y"]),
                json.dumps({"offline": ["supported", "unsupported"]}),
                "s; u",
                "ja",
            ]
        )
        w.writerow(
            ["b", "2026-W49", json.dumps(["z"]), json.dumps({"offline": ["supported"]}), "u", "no"]
        )
        w.writerow(
            ["c", "2026-W49", json.dumps(["w"]), json.dumps({"offline": ["supported"]}), "", ""]
        )
    result = calibrate(path)
    (offline,) = result.judges
    assert result.answers == 2 and offline.claims == 3
    assert offline.unsupported_precision.estimate == 1.0
    assert offline.unsupported_recall.estimate == 0.5
    assert result.split_sensible.estimate == 0.5


def test_bad_labels_name_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["week", "claims", "judges", "human_labels"])
        w.writerow(
            [
                "2026-W49",
                json.dumps(["x", "y"]),
                json.dumps({"offline": ["supported", "supported"]}),
                "s",
            ]
        )
        w.writerow(["2026-W49", json.dumps(["x"]), json.dumps({"offline": ["supported"]}), "maybe"])
    with pytest.raises(LabelError) as err:
        read_labels(path)
    message = str(err.value)
    assert f"{path}:2: field 'human_labels': 1 label for 2 claims" in message
    assert f"{path}:3: field 'human_labels': 'maybe' is not" in message
    with pytest.raises(LabelError, match="no labels file"):
        read_labels(tmp_path / "missing.csv")


def sheet_row(week: str, claims: list[str], judges: dict[str, Any], human: Any, **more: Any) -> str:
    row = {"week": week, "claims": claims, "judges": judges, "human_labels": human, **more}
    return json.dumps(row) + "\n"


def test_a_jsonl_sheet_with_uncertain_claims_and_weeks(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(
        sheet_row("2026-W48", ["a", "b"], {"offline": ["supported", "uncertain"],
                  "llm:m": [{"label": "supported"}, {"label": "unsupported"}]},
                  ["supported", "unsupported"], claim_split_sensible="yes")
        + "\n"
        + sheet_row("2026-W49", ["c"], {"offline": ["unsupported"], "llm:m": ["unsupported"],
                    "short:x": ["supported", "supported"]},  # a column of another length
                    ["p"], claim_split_sensible="nein")
        + sheet_row("2026-W49", ["d"], {"offline": ["supported"]}, [None]),  # not labelled yet
        encoding="utf-8",
    )  # fmt: skip
    rows = read_labels(path)
    assert [r.week for r in rows] == ["2026-W48", "2026-W49"]
    assert rows[1].human == ("partial",) and rows[1].split_sensible is False
    assert set(rows[1].judges) == {"offline", "llm:m"}  # the short column is left out
    result = calibrate(path)
    assert result.answers == 2 and result.split_sensible.estimate == 0.5
    llm, offline = result.judges  # sorted by name
    assert (llm.judge, llm.claims, llm.uncertain) == ("llm:m", 3, 0)
    assert llm.unsupported_precision.estimate == 0.5  # 'c' was partial to the people
    assert llm.unsupported_recall.estimate == 1.0
    assert offline.uncertain == 1 and offline.kappa.n == 2  # the doubt is outside the kappa
    assert offline.confusion["uncertain"]["unsupported"] == 1
    assert set(offline.kappa_by_week) == {"2026-W48", "2026-W49"}


def test_every_bad_row_of_a_jsonl_sheet_is_named(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(
        '{"week": "w", "claims": "not json", "judges": "{}", "human_labels": "s"}\n'
        + sheet_row("w", ["a"], [], "s")
        + sheet_row("w", ["a"], {"offline": ["maybe"]}, "s")
        + sheet_row("w", ["a"], {}, "s", claim_split_sensible="perhaps"),
        encoding="utf-8",
    )
    with pytest.raises(LabelError) as caught:
        read_labels(path)
    heading, *problems = str(caught.value).split("\n")
    assert heading == "4 problem(s) in the labels:"
    expected = [
        "field 'claims' or 'judges' is not valid JSON",
        "fields 'claims' (a list) and 'judges' (an object) are required",
        "field 'judges' (offline): 'maybe' is not",
        "field 'claim_split_sensible': 'perhaps' is not yes / no",
    ]
    for line, (problem, start) in enumerate(zip(problems, expected, strict=True), start=1):
        assert problem.startswith(f"  {path}:{line}: {start}")
    broken = tmp_path / "broken.jsonl"
    broken.write_text(sheet_row("w", ["a"], {}, "s") + "{cut\n", encoding="utf-8")
    with pytest.raises(LabelError, match=f"{broken}:2: not valid JSON"):
        read_labels(broken)
