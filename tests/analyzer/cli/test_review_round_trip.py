"""Judge → review → label → calibrate through the CLI, with every outcome of the offline judge,
and the answer's confidence in the records and the CI gate.

The answer holds one claim the offline judge supports (the hotel allowance), one it finds
contradicted ("jederzeit") and one it cannot decide (who runs the travel portal: the context
names the portal but not that): the sheet's ``judges`` column says ``supported``,
``unsupported`` and ``uncertain``, and ``ragfunnel calibrate`` reads it back.
"""

from __future__ import annotations

import csv
import json
from functools import partial
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner, Result

from ragfunnel.analyzer.cli import app
from ragfunnel.analyzer.judges import OfflineJudge
from tests.support.cli_store import stored
from tests.support.judge_pipeline import CHUNKS, REFERENCE, WORKED_RANKING, ask

ANSWER = (
    "Die Hotelpauschale beträgt 120 Euro. Ein Taxi ist jederzeit erlaubt. "
    "Die Personalabteilung betreut das Reiseportal seit Jahren."
)
OUTCOMES = ["supported", "unsupported", "uncertain"]
CASES = [
    {"id": "hotel-taxi", "question": "Was gilt für Hotel und Taxi?",
     "evidence": {"all_of": ["hotel-allowance", "taxi"]}, "reference": REFERENCE},
]  # fmt: skip


def _judged(tmp_path: Path) -> tuple[str, Path]:
    asked = partial(ask, "hotel-taxi", "Was gilt für Hotel und Taxi?", WORKED_RANKING, ANSWER)
    dsn, cases = stored(tmp_path, CASES, asked)
    _invoke("judge", "--store", dsn, "--quiet")
    return dsn, cases


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("kind", ["csv", "jsonl"])
def test_review_label_calibrate_with_all_three_outcomes(tmp_path: Path, kind: str) -> None:
    dsn, _ = _judged(tmp_path)
    sheet = tmp_path / f"review.{kind}"
    _invoke("review", "--store", dsn, f"--{kind}", str(sheet), "--week", "2026-W49")

    labelled = tmp_path / f"labelled.{kind}"
    if kind == "csv":
        with sheet.open(encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
        (row,) = rows
        assert json.loads(row["judges"])["offline"] == OUTCOMES
        # The person agrees on the first two and finds the undecided claim unsupported.
        row["human_labels"] = "s; u; u"
        row["claim_split_sensible"] = "yes"
        with labelled.open("w", encoding="utf-8", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(row))
            writer.writeheader()
            writer.writerows(rows)
    else:
        (entry,) = [json.loads(line) for line in sheet.read_text(encoding="utf-8").splitlines()]
        assert [v["label"] for v in entry["judges"]["offline"]] == OUTCOMES
        entry["human_labels"] = ["supported", "unsupported", "unsupported"]
        entry["claim_split_sensible"] = "yes"
        labelled.write_text(json.dumps(entry, ensure_ascii=False) + "\n", encoding="utf-8")

    report = _invoke("calibrate", str(labelled))
    assert "1 labelled answer;" in report
    assert "offline: 3 claims, 1 uncertain (kappa over the other 2), kappa 1.00" in report
    assert "unsupported: precision 100.0%" in report
    lines = report.splitlines()
    uncertain = next(line for line in lines if line.strip().startswith("uncertain"))
    assert uncertain.split()[1:] == ["0", "0", "1"]  # judge uncertain, human unsupported


def test_calibrate_still_names_a_judge_label_it_cannot_read(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    row = {"week": "2026-W49", "claims": ["x"], "judges": {"offline": ["maybe"]},
           "human_labels": ["supported"]}  # fmt: skip
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["calibrate", str(path)])
    assert result.exit_code == 1
    assert f"{path}:1: field 'judges' (offline): 'maybe' is not supported / partial / " in (
        result.stderr
    )
    assert "unsupported / uncertain" in result.stderr


def test_records_carry_the_confidence_and_the_gate_checks_it(tmp_path: Path) -> None:
    dsn, cases = _judged(tmp_path)
    chunks = [(cid, CHUNKS[cid]) for cid, _ in WORKED_RANKING]
    expected = OfflineJudge().judge(ANSWER, chunks).confidence
    assert expected is not None

    judged = json.loads(_invoke("judge", "--store", dsn, "--json", "-"))
    assert judged["mean_confidence"] == pytest.approx(expected)
    assert f"mean confidence: {expected:.3f}" in _invoke("judge", "--store", dsn)

    jsonl, parquet = tmp_path / "records.jsonl", tmp_path / "records.parquet"
    _invoke("analyze", "--store", dsn, "--cases", str(cases), "--quiet",
            "--jsonl", str(jsonl), "--parquet", str(parquet))  # fmt: skip
    (record,) = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    assert record["faithfulness"] == pytest.approx(0.5)
    assert record["confidence"] == pytest.approx(expected)
    assert pl.read_parquet(parquet)["confidence"].to_list() == [pytest.approx(expected)]

    exported, summary = tmp_path / "export.jsonl", tmp_path / "summary.json"
    _invoke("report", "--store", dsn, "--cases", str(cases), "--quiet",
            "--jsonl", str(exported), "--json", str(summary))  # fmt: skip
    (row,) = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    assert row["confidence"] == pytest.approx(expected)
    (run,) = json.loads(summary.read_text(encoding="utf-8"))["runs"]
    assert run["generation"]["confidence"]["mean"] == pytest.approx(expected)
    assert sum(run["generation"]["confidence_bins"]) == 1

    bound = f"{expected + 0.05:.3f}"
    gate = _gate(dsn, cases, bound)
    assert gate.exit_code == 3, gate.output
    breach = f"confidence = {expected:.3g} (1 judged answer) < {float(bound):g}"
    assert breach in gate.output
    passed = _gate(dsn, cases, f"{expected - 0.05:.3f}")
    assert passed.exit_code == 0, passed.output


def _gate(dsn: str, cases: Path, bound: str) -> Result:
    return CliRunner().invoke(
        app,
        ["report", "--store", dsn, "--cases", str(cases), "--quiet",
         "--fail-under", f"confidence={bound}"],
    )  # fmt: skip
