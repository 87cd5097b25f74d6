"""The judge, threshold, review and calibrate commands, end to end from stored spans."""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragfunnel.analyzer.cli import app
from ragfunnel.analyzer.ingest import ingest_spans
from ragfunnel.analyzer.judges.run import batch
from ragfunnel.analyzer.store import Store
from ragfunnel.testing import capture_spans
from tests.support.cli_store import stored
from tests.support.fake_openai import FakeOpenAI
from tests.support.judge_pipeline import (
    ANY_TIME,
    REFERENCE,
    REFUSAL,
    WORKED_RANKING,
    ask,
    many_reply,
)
from tests.support.responders import responder

CASES = [
    {"id": "hotel-taxi", "question": "Was gilt für Hotel und Taxi?",
     "evidence": {"all_of": ["hotel-allowance", "taxi"]}, "reference": REFERENCE},
    {"id": "mileage", "question": "Wie hoch ist die Kilometerpauschale?", "answerable": False},
    {"id": "parking", "question": "Was kostet Parken am Flughafen?", "answerable": False},
]  # fmt: skip


def _asked() -> None:
    ask("hotel-taxi", "Was gilt für Hotel und Taxi?", WORKED_RANKING, ANY_TIME)
    # Unanswerable: one scores high enough to pass the 0.3 gate and answers, one is refused.
    ask("mileage", "Wie hoch ist die Kilometerpauschale?", [("parking", 0.35)], "20 EUR pro Tag.")
    ask("parking", "Was kostet Parken am Flughafen?", [("parking", 0.2)], REFUSAL)


def _store(tmp_path: Path) -> tuple[str, Path]:
    return stored(tmp_path, CASES, _asked)


def test_judge_then_analyze(tmp_path: Path) -> None:
    dsn, cases = _store(tmp_path)
    runner = CliRunner()
    out, summary = tmp_path / "verdicts.jsonl", tmp_path / "judge.json"
    result = runner.invoke(
        app,
        [
            "judge",
            "--store",
            dsn,
            "--cases",
            str(cases),
            "--jsonl",
            str(out),
            "--json",
            str(summary),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "2 answers, 2 judged (offline)" in result.stdout
    assert "wrote 2 verdict rows" in result.stdout
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert {r["QuestionKey"]: r["Faithfulness"] for r in rows}["hotel-taxi"] == 0.5
    assert all("T" in r["JudgedAt"] and r["JudgedAt"].endswith("+00:00") for r in rows)
    document = json.loads(summary.read_text(encoding="utf-8"))
    assert document["answers"] == 2 and document["judged"] == 2 and document["rows"] == 2
    records = tmp_path / "records.jsonl"
    analyzed = runner.invoke(
        app, ["analyze", "--store", dsn, "--cases", str(cases), "--jsonl", str(records)]
    )
    assert analyzed.exit_code == 0, analyzed.output
    taxi = next(
        r
        for r in map(json.loads, records.read_text(encoding="utf-8").splitlines())
        if r["question_id"] == "hotel-taxi"
    )
    assert taxi["first_failure"] == "generation"
    assert (
        taxi["failure_reason"] == "unsupported claim: 'Ein Taxi ist jederzeit erlaubt' (jederzeit)"
    )


def test_judge_with_the_llm_twice(tmp_path: Path) -> None:
    dsn, cases = _store(tmp_path)
    runner = CliRunner()
    with FakeOpenAI(responder) as server:
        args = ["judge", "--store", dsn, "--cases", str(cases), "--policy", "llm",
                "--judge-model", "judge-model", "--judge-base-url", server.base_url]  # fmt: skip
        first = runner.invoke(app, args, env={"RAGFUNNEL_JUDGE_API_KEY": "k"})
        assert first.exit_code == 0, first.output
        calls = len(server.requests)
        second = runner.invoke(app, args, env={"RAGFUNNEL_JUDGE_API_KEY": "k"})
        assert second.exit_code == 0, second.output
        assert len(server.requests) == calls
    assert f"calls {calls}" in first.stdout
    assert "calls 0 (0 retries)" in second.stdout


def test_judge_errors_are_one_line(tmp_path: Path) -> None:
    dsn, _ = _store(tmp_path)
    result = CliRunner().invoke(app, ["judge", "--store", dsn, "--policy", "llm"],
                                env={"RAGFUNNEL_JUDGE_MODEL": "", "OPENAI_MODEL": ""})  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr.startswith("ragfunnel judge: no judge model")


def test_threshold_sweep(tmp_path: Path) -> None:
    dsn, cases = _store(tmp_path)
    sweep = tmp_path / "sweep.csv"
    result = CliRunner().invoke(app, ["threshold", "--store", dsn, "--cases", str(cases),
                                      "--cost-ratio", "2", "--csv", str(sweep)])  # fmt: skip
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "answerable:   answered 1, abstained 0" in text
    assert "unanswerable: answered 1, abstained 1" in text
    assert "pipeline threshold 0.300; recommended 0.900 at cost ratio 2" in text
    assert "← pipeline" in text and "← recommended" in text
    assert sweep.read_text(encoding="utf-8").startswith("run_id,threshold,answered")


def test_review_and_calibrate(tmp_path: Path) -> None:
    dsn, cases = _store(tmp_path)
    runner = CliRunner()
    assert runner.invoke(app, ["judge", "--store", dsn, "--cases", str(cases)]).exit_code == 0
    sheet = tmp_path / "review.jsonl"
    result = runner.invoke(app, ["review", "--store", dsn, "--jsonl", str(sheet), "--csv",
                                 str(tmp_path / "review.csv"), "--week", "2026-W49"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "wrote 2 answers for review (2026-W49)" in result.stdout
    rows = [json.loads(line) for line in sheet.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row["human_labels"] = [
            "unsupported" if "jederzeit" in c else "supported" for c in row["claims"]
        ]
        row["claim_split_sensible"] = "yes"
    labelled = tmp_path / "labelled.jsonl"
    labelled.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = runner.invoke(app, ["calibrate", str(labelled)])
    assert report.exit_code == 0, report.output
    assert "2 labelled answers; claim split sensible: 100.0%" in report.stdout
    assert "offline: 3 claims, kappa 1.00" in report.stdout
    bad = runner.invoke(app, ["calibrate", str(tmp_path / "nope.csv")])
    assert bad.exit_code == 1 and bad.stderr.startswith("ragfunnel calibrate: no labels file")
    empty = runner.invoke(app, ["review", "--store", dsn])
    assert empty.exit_code == 2 and "give --csv and/or --jsonl" in empty.stderr


def test_judge_workers_write_the_same_rows_page_by_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 35: `--workers 2` (400 answers: past the in-process threshold) and `--workers 1`;
    without `--workers`, one per core."""
    started: list[int] = []

    class Counted(batch.ScreenPool):
        def start(self) -> ProcessPoolExecutor:
            if not self.started:
                started.append(self.workers)
            return super().start()

    monkeypatch.setattr(batch, "ScreenPool", Counted)
    monkeypatch.setattr(batch, "default_workers", lambda: 2)  # as on this 2-core machine

    def asked() -> None:
        for n in range(400):
            ranking = WORKED_RANKING if n % 2 else list(reversed(WORKED_RANKING))
            ask(f"q{n}", f"Frage {n}?", ranking, many_reply(n))

    dsn, _ = stored(tmp_path, [], asked)
    runner = CliRunner()
    found = {}
    for workers in ("1", "2", "default"):
        out, summary = tmp_path / f"rows-{workers}.jsonl", tmp_path / f"judge-{workers}.json"
        chosen = [] if workers == "default" else ["--workers", workers]
        result = runner.invoke(app, ["judge", "--store", dsn, *chosen, "--dry-run",
                                     "--jsonl", str(out), "--json", str(summary)])  # fmt: skip
        assert result.exit_code == 0, result.output
        assert f"wrote 400 verdict rows to {out}" in result.stdout
        assert json.loads(summary.read_text(encoding="utf-8"))["rows"] == 400
        rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        found[workers] = [{k: v for k, v in r.items() if k != "JudgedAt"} for r in rows]
    assert found["1"] == found["2"] == found["default"] and len(found["1"]) == 400
    assert started == [2, 2]  # --workers 1 starts none; the default as many as there are cores
    bad = runner.invoke(app, ["judge", "--store", dsn, "--workers", "0"])
    assert bad.exit_code == 2 and "--workers" in bad.output
    unwritable = tmp_path / "missing-folder" / "rows.jsonl"
    failed = runner.invoke(app, ["judge", "--store", dsn, "--jsonl", str(unwritable)])
    assert failed.exit_code == 1 and str(unwritable) in failed.output


def test_judging_nothing_says_whose_text_is_missing_and_how_to_give_it(tmp_path: Path) -> None:
    runner = CliRunner()
    cases: list[tuple[bool | tuple[str, ...], str, str]] = [
        (("question", "answer"), "without chunk text", "pass --chunks FILE"),  # corpus kept out
        (False, "without answer text", "record it: `configure(capture_content="),  # all off
    ]
    for capture, what, fix in cases:
        dsn = f"chdb://{tmp_path / what.replace(' ', '-')}"
        with capture_spans(capture_content=capture, run_id="r1") as spans:
            for n in range(3):
                ask(f"hotel-taxi-{n}", "Was gilt für Hotel und Taxi?", WORKED_RANKING, ANY_TIME)
        with Store.open(dsn, create=True) as store:
            ingest_spans(store, spans.spans)
        result = runner.invoke(app, ["judge", "--store", dsn, "--dry-run"])
        assert result.exit_code == 1, result.output
        failed = result.stderr.strip().splitlines()[-1]
        assert failed.startswith(f"ragfunnel judge: failed: judged none of the 3 answers: 3 {what}")
        assert fix in failed and "docs/judges.md" in failed, failed
        assert "(3 without text)" not in failed
        assert ("--chunks" in failed) == (what == "without chunk text")
