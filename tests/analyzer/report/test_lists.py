"""What the report lists and draws: worst questions by stage with every stage represented, a
"+N more" wherever a list is cut, sample rows named by run, evidence lost only by failed
questions, histogram bins that say what they hold, every chart with its axes and zero."""

from __future__ import annotations

import dataclasses
import re

import polars as pl
from markupsafe import escape

from ragfunnel.analyzer.report import report_text
from ragfunnel.analyzer.report.diff import diff_runs
from ragfunnel.analyzer.report.distributions import FAITHFULNESS_BINS
from ragfunnel.analyzer.report.findings import STAGE_ORDER
from ragfunnel.analyzer.report.html import render_html
from ragfunnel.analyzer.report.svg import delta_panels
from tests.support.report_fixtures import Fixture, report_of, with_verdicts


def test_worst_questions_by_stage_with_every_stage_represented(runs: Fixture) -> None:
    full = report_of(runs).run("A")
    stages = {q["first_failure"] for q in full.worst}
    assert stages == {"ingestion", "search", "rerank", "cut", "generation"}
    assert full.worst_total == 7
    for top in (5, 6):
        worst = report_of(runs, top=top).run("A").worst
        order = [STAGE_ORDER[q["first_failure"]] for q in worst]
        assert len(worst) == top and order == sorted(order), order
        assert {q["first_failure"] for q in worst} == stages  # each stage takes a turn
    # Within a stage: the lowest recall first, then the reason and the case id.
    cut = [q for q in full.worst if q["first_failure"] == "cut"]
    recalls = [q["metrics"]["recall_at_cut"] or 0.0 for q in cut]
    assert recalls == sorted(recalls)


def test_cut_lists_say_how_many_more_and_where(runs: Fixture) -> None:
    report = report_of(runs, top=3)
    page = render_html(report)
    assert "Worst questions: 3 of 7 failed or incomplete questions" in page
    assert (
        "+4 more failed or incomplete questions: --top N shows more; the records export "
        "(--jsonl, --parquet) has every question"
    ) in page
    text = report_text(report_of(runs, top=20))
    assert "+0 more" not in text
    terminal = report_text(report_of(runs, top=3))
    assert "+4 more failed or incomplete questions: --html lists up to --top per run" in terminal
    # The terminal shows at most WORST_SHOWN of them: the rest are counted, not dropped.
    many = dataclasses.replace(report.runs[0], worst=report.runs[0].worst * 4, worst_total=40)
    text = report_text(dataclasses.replace(report, runs=(many,)))
    assert "+30 more failed or incomplete questions" in text


def test_sample_rows_name_their_run(runs: Fixture) -> None:
    report = report_of(runs, sample=6)
    page = render_html(report)
    sample = page[page.index('<section id="sample">') :]
    labels = re.findall(r'<span class="run-label">run ([^<]+)</span>', sample)
    assert labels == [q["run_id"] for q in report.sample] and len(labels) == 6
    assert set(labels) <= {"A", "B", "C"}


def test_evidence_lost_counts_only_failed_questions(runs: Fixture) -> None:
    records = runs.result.records
    before = report_of(runs).run("A")
    assert any(e.lost_at == "search" for e in before.lost_evidence)
    # The questions that failed at search answered correctly after all: what they lost is no
    # loss to list (before, any question's lost item counted, answered right or not).
    search = (pl.col("run_id") == "A") & (pl.col("first_failure").cast(pl.String) == "search")
    answered = records.with_columns(
        first_failure=pl.when(search)
        .then(pl.lit("ok_without_evidence"))
        .otherwise(pl.col("first_failure").cast(pl.String))
        .cast(records.schema["first_failure"])
    )
    after = report_of(runs, dataclasses.replace(runs.result, records=answered)).run("A")
    assert [e for e in after.lost_evidence if e.lost_at == "search"] == []
    assert after.lost_total < before.lost_total


def test_faithfulness_bins_say_what_they_hold(runs: Fixture) -> None:
    assert FAITHFULNESS_BINS[-1] == "1.0" and FAITHFULNESS_BINS[-2] == "0.9–<1.0"
    assert len(FAITHFULNESS_BINS) == 11
    page = render_html(report_of(runs, with_verdicts(runs.result)))
    assert 'text-anchor="end">1.0</text>' in page and 'text-anchor="end">0.9–&lt;1.0</text>' in page


def test_every_chart_has_axes_and_zero(runs: Fixture) -> None:
    report = report_of(runs, with_verdicts(runs.result))
    page = render_html(report, diff=diff_runs(runs.result, "A", "B", snapshots=runs.snapshots))
    charts = re.findall(r"<svg .*?</svg>", page, re.S)
    assert len(charts) >= 15
    for chart in charts:
        title = re.search(r"<title>([^<]*)</title>", chart)
        assert re.search(r'class="(axis|frame)"', chart), title
        assert re.search(r">0(\.00)?</text>", chart), title


def test_metric_changes_chart_has_an_x_axis_through_zero() -> None:
    chart = str(delta_panels([("recall", -0.294, -0.412, -0.176), ("MRR", 0.01, -0.02, 0.04)]))
    assert chart.count('class="axis"') >= 6  # the axis and its five ticks
    for tick in ("-0.500", "-0.250", ">0.00<", "+0.250", "+0.500"):
        assert tick in chart, tick
    assert "change B − A (0: no change)" in chart
    assert "-0.294, CI -0.412 to -0.176" in chart


def test_correctness_and_its_reason_read_apart(runs: Fixture) -> None:
    page = render_html(report_of(runs, with_verdicts(runs.result)))
    assert "wrong — misses the fact" in page and "wrong misses the fact" not in page


def test_runs_in_the_order_they_ran_and_a_diff_in_the_order_asked(runs: Fixture) -> None:
    """Issue 31, Deliver 6: runs were listed by name, so a diff of A → B could show B first."""
    assert [r.run_id for r in report_of(runs).runs] == ["A", "B", "C"]  # as they ran
    # A run named later that ran first is listed first: B's questions a day earlier.
    earlier = runs.result.records.with_columns(
        started=pl.when(pl.col("run_id") == "B")
        .then(pl.col("started") - pl.duration(days=1))
        .otherwise(pl.col("started"))
    )
    result = dataclasses.replace(runs.result, records=earlier)
    assert [r.run_id for r in report_of(runs, result).runs] == ["B", "A", "C"]
    # A diff A → B lists A, then B, whichever ran first.
    asked = report_of(runs, result, run_order=["A", "B"]).runs
    assert [r.run_id for r in asked] == ["A", "B", "C"]
    assert "B, A, C</dd>" in render_html(report_of(runs, result))  # the page's header too


def test_worst_questions_show_their_question_text(runs: Fixture) -> None:
    report = report_of(runs)
    page = render_html(report)
    for worst in report.run("A").worst:
        if worst["question"]:
            headline = escape(" ".join(worst["question"].split())[:100])
            assert f'<span class="headline">{headline}' in page, headline  # escaped, as text
    assert report.run("A").worst[0]["question"]
