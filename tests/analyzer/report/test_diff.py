"""``diff_runs`` on runs whose transitions are known (report_pipeline.PLAN_A/B/C)."""

from __future__ import annotations

import math

import pytest

from ragfunnel.analyzer.report import ReportError
from ragfunnel.analyzer.report.diff import diff_runs
from ragfunnel.analyzer.report.terminal import diff_text
from tests.support.report_fixtures import Fixture, with_verdicts


def test_transitions_are_listed_with_their_questions(runs: Fixture) -> None:
    d = diff_runs(runs.result, "A", "B", snapshots=runs.snapshots)
    assert (d.paired, d.only_a, d.only_b) == (12, 0, 0)
    assert [(t.before, t.after, t.count, t.questions) for t in d.transitions] == [
        ("search", "ok", 2, ("q-05", "q-06")),
        ("cut", "ok", 1, ("q-09",)),
        ("ok", "generation", 1, ("q-02",)),
    ]
    m = d.mcnemar
    assert (m.fixed, m.broken, m.both_ok, m.both_failed) == (3, 1, 4, 4)
    assert m.p_value == pytest.approx(0.625)
    recall = next(x for x in d.metrics if x.metric == "recall")
    assert (recall.mean_a, recall.mean_b, recall.n) == (0.5, 0.8, 10)
    assert recall.delta == pytest.approx(0.3) and recall.ci_low <= 0.3 <= recall.ci_high
    assert [(c.setting, c.before, c.after) for c in d.config_changes] == [
        ("prompt_version", "p1", "p2")
    ]
    assert d.regressions() == []
    text = diff_text(d)
    assert "transitions: 2 moved search → ok, 1 moved cut → ok, 1 moved ok → generation" in text
    assert "  search → ok (2): q-05, q-06" in text
    assert "McNemar exact p = 0.625" in text and "prompt_version: p1 → p2" in text


def test_a_clear_regression_is_named(runs: Fixture) -> None:
    d = diff_runs(runs.result, "A", "C", snapshots=runs.snapshots)
    moved = {(t.before, t.after): t.questions for t in d.transitions}
    assert moved[("ok", "search")] == ("q-01", "q-02", "q-03", "q-10")
    assert moved[("generation", "search")] == ("q-04",)
    assert d.config_changes == ()
    (line,) = [r for r in d.regressions() if r.startswith("recall")]
    assert line.startswith("recall at cut fell by 0.500 (paired 95% CI -")
    recall = next(x for x in d.metrics if x.metric == "recall")
    assert recall.ci_high < 0
    # 4 broke, none fixed: p = 2 / 16 — not significant at 5 %, so McNemar alone does not fire.
    assert d.mcnemar.p_value == pytest.approx(0.125)
    assert not any(r.startswith("4 cases went") for r in d.regressions())
    assert any(r.startswith("4 cases went ok → failed") for r in d.regressions(alpha=0.2))


def test_faithfulness_is_compared_when_both_runs_have_it(runs: Fixture) -> None:
    d = diff_runs(with_verdicts(runs.result), "A", "B")
    faith = next(x for x in d.metrics if x.metric == "faithfulness")
    # Judged in both: q-01, q-02, q-03, q-04, q-10, q-11; only q-02 changed (1.0 → 0.5).
    assert faith.at == "answer" and faith.n == 6
    assert math.isclose(faith.delta, (0.5 - 1.0) / 6)


def test_unknown_run_is_a_clear_error(runs: Fixture) -> None:
    with pytest.raises(ReportError, match=r"run 'Z': no pipeline questions \(runs: A, B, C\)"):
        diff_runs(runs.result, "A", "Z")
