"""``ragfunnel threshold`` and the report's curve: one sweep, one risk, O(n log n).

The sweep sorts once and reads every count off cumulative sums; it must give exactly what
checking every threshold against every question gives (the old quadratic loop, kept here as
the reference), ties and both ends included.
"""

from __future__ import annotations

import math
import re
import time

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from ragfunnel.analyzer.cli import app
from ragfunnel.analyzer.cli.threshold import MAX_ROWS, threshold_text
from ragfunnel.analyzer.funnel.abstention import abstention, sweep
from ragfunnel.analyzer.report.frames import report_frame
from tests.support.report_fixtures import Fixture, report_of


def _naive(scores, answerable, known, wrong, thresholds):  # type: ignore[no-untyped-def]
    rows = []
    for t in thresholds:
        answered = [s >= t for s in scores]
        n_answered = sum(answered)
        through = sum(not a and ok for a, ok in zip(answerable, answered, strict=True))
        refused = sum(a and not ok for a, ok in zip(answerable, answered, strict=True))
        known_n = sum(k and ok for k, ok in zip(known, answered, strict=True))
        wrong_n = sum(w and k and ok for w, k, ok in zip(wrong, known, answered, strict=True))
        rows.append((n_answered, refused, through, through / n_answered if n_answered else math.nan,
                     wrong_n / known_n if known_n else math.nan))  # fmt: skip
    return rows


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fast_sweep_equals_the_quadratic_one(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 300
    scores = rng.choice(np.round(rng.random(80), 2), size=n)  # many ties
    answerable = rng.random(n) < 0.8
    known = ~answerable | (rng.random(n) < 0.7)
    wrong = ~answerable | (rng.random(n) < 0.3)
    thresholds = np.concatenate([np.unique(scores), [-1.0, 0.5, math.inf]])
    got = sweep(scores, answerable, thresholds, known=known, wrong=wrong)
    want = _naive(scores, answerable, known, wrong, thresholds)
    for i, (answered, refused, through, share, risk) in enumerate(want):
        assert got["answered"][i] == answered
        assert got["answerable_refused"][i] == refused
        assert got["unanswerable_answered"][i] == through
        for value, expected in ((got["unanswerable_share"][i], share), (got["risk"][i], risk)):
            assert (math.isnan(value) and math.isnan(expected)) or value == pytest.approx(expected)


def test_a_million_questions_sweep_in_seconds() -> None:
    rng = np.random.default_rng(7)
    n = 1_000_000
    scores = rng.random(n)
    answerable = rng.random(n) < 0.9
    start = time.perf_counter()
    result = sweep(scores, answerable, np.unique(scores), wrong=~answerable | (scores < 0.3))
    took = time.perf_counter() - start
    assert result["answered"][0] == n and result["answered"][-1] == 1
    assert took < 10, f"{took:.1f} s for a million distinct scores"


def test_threshold_and_report_curve_share_one_risk(runs: Fixture) -> None:
    report = report_of(runs)
    records = report_frame(runs.result)
    result = abstention(records)
    for run in report.runs:
        table = result.sweep.filter(pl.col("run_id") == run.run_id)
        by_threshold = {r["threshold"]: r for r in table.iter_rows(named=True)}
        assert run.abstention.curve
        for threshold, coverage, risk in run.abstention.curve:
            row = by_threshold[threshold]
            assert row["risk"] == pytest.approx(risk) and row["coverage"] == pytest.approx(coverage)


def test_threshold_text_names_both_measures_and_cuts_long_sweeps() -> None:
    n = 200
    rng = np.random.default_rng(3)
    records = pl.DataFrame(
        {
            "run_id": ["r"] * n,
            "answerable": (rng.random(n) < 0.8).tolist(),
            "abstained": [False] * n,
            "top_score": rng.random(n).tolist(),
            "cut_threshold": [0.5] * n,
            "answer_verdict": rng.choice(["correct", "incorrect"], n).tolist(),
        }
    )
    text = threshold_text(abstention(records))
    rows = [line for line in text.splitlines() if "%" in line]
    assert MAX_ROWS <= len(rows) <= MAX_ROWS + 2
    assert f"+{n + 3 - len(rows)} more thresholds: --csv OUT writes every one" in text
    assert "← pipeline" in text and "← recommended" in text
    assert "risk" in text and "unanswerable share" in text
    assert "%%" not in text and "—%" not in text
    assert all(re.fullmatch(r"\d+\.\d%|—", cell) for line in rows for cell in _percents(line))


def _percents(line: str) -> list[str]:
    return [cell for cell in line.split() if cell.endswith("%")]


def test_threshold_command_prints_one_decimal_percentages(runs: Fixture) -> None:
    result = CliRunner().invoke(
        app, ["threshold", "--store", runs.dsn, "--cases", str(runs.cases_file), "--run", "A"],
        env={"COLUMNS": "200"},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    cells = [cell for line in result.stdout.splitlines() for cell in _percents(line)]
    assert cells and all(re.fullmatch(r"\d+\.\d%", cell) for cell in cells), cells
