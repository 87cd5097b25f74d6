"""What the report says and how: one formatting helper, a header that says what the page is,
counted nouns that agree, numbers at one precision (docs/report.md, "Numbers and words")."""

from __future__ import annotations

import dataclasses
import math
import re
from datetime import datetime

import pytest

from ragfunnel.analyzer.report import report_text, wording
from ragfunnel.analyzer.report.diff import diff_runs
from ragfunnel.analyzer.report.html import render_html
from tests.support.report_fixtures import Fixture, report_of, with_verdicts


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.2116, "0.212"), (0.722, "0.722"), (1.0, "1.00"), (1, "1"), (0.99, "0.990"),
        (0.0123456, "0.0123"), (0.000123456, "0.000123"), (12.345, "12.3"), (0.0, "0.00"),
        (1234.6, "1,235"), (math.nan, "—"), (None, "—"), (math.inf, "—"),
    ],
)  # fmt: skip
def test_numbers_have_one_precision(value: float | None, text: str) -> None:
    assert wording.number(value) == text


def test_percentages_counts_and_intervals() -> None:
    assert wording.percent(0.05128) == "5.1%"
    assert wording.percent(None) == "—" and wording.percent(math.nan) == "—"  # never "—%"
    assert wording.count(1, "answer") == "1 answer" and wording.count(2, "chunk") == "2 chunks"
    assert wording.count(0, "question") == "0 questions" and wording.count(12_000, "run") == (
        "12,000 runs"
    )
    assert wording.interval(0.2116, 0.722) == "0.212–0.722"
    assert wording.interval(0.392, 0.641, as_percent=True) == "39.2–64.1%"
    assert wording.interval(math.nan, 0.5) == "—"
    assert wording.signed(-0.2941) == "-0.294" and wording.signed(0.023) == "+0.0230"
    assert wording.more(20, 28, "in the exports") == "+8 more in the exports"
    assert wording.more(20, 20, "in the exports") is None


def test_page_header_names_runs_date_version_store_and_cases(runs: Fixture) -> None:
    report = report_of(runs, store="chdb:///somewhere/store")
    page = render_html(report)
    assert "<title>ragfunnel report: runs A, B, C</title>" in page
    built = re.search(r"<dt>Built</dt><dd>([^<]+?) by ragfunnel ([^<]+)</dd>", page)
    assert built is not None, "the header says when and by which version"
    stamp = datetime.fromisoformat(built.group(1))
    assert stamp.tzinfo is not None and stamp.utcoffset() is not None  # ISO 8601 with a zone
    assert built.group(2) == report.ragfunnel_version and report.ragfunnel_version
    assert '<dt>Store</dt><dd class="mono scroll path">chdb:///somewhere/store</dd>' in page
    assert f'<dt>Cases</dt><dd class="mono scroll path">{runs.cases.source}</dd>' in page.replace(
        "&lt;", "<"
    ).replace("&gt;", ">")
    only_b = runs.result.records.filter(runs.result.records["run_id"] == "B")
    one = render_html(report_of(runs, dataclasses.replace(runs.result, records=only_b)))
    assert "<title>ragfunnel report: run B</title>" in one
    diff = diff_runs(runs.result, "A", "B", snapshots=runs.snapshots)
    assert "<title>ragfunnel report: runs A, B, C · diff A → B</title>" in render_html(
        report, diff=diff
    )
    text = report_text(report)
    assert "runs A, B, C · 36 question records" in text
    assert (
        "store chdb:///somewhere/store" in text and f"ragfunnel {report.ragfunnel_version}" in text
    )


def test_counted_nouns_agree_in_page_and_terminal(runs: Fixture) -> None:
    report = report_of(runs, with_verdicts(runs.result))
    page = render_html(report)
    for wrong in (r"\b1 answers\b", r"\b1 chunks\b", r"\b1 questions\b", r"\b1 runs\b",
                  r"\(s\)</", "—%", r"\bnan\b"):  # fmt: skip
        assert not re.search(wrong, page), wrong
    assert re.search(r"Prompt: \d+ chunks?, in order", page)
    text = report_text(report)
    assert not re.search(r"\b1 answers\b|\b1 unsupported claims\b", text)
    assert "answer wrong" in text or "answers wrong" in text


def test_metric_numbers_share_one_precision(runs: Fixture) -> None:
    text = report_text(report_of(runs))
    rows = [line for line in text.splitlines() if line.startswith(("hit rate", "recall", "MRR"))]
    assert rows
    for row in rows:
        mean = row.split("│")[1].strip()
        assert mean == "—" or re.fullmatch(r"0\.\d{3}|1\.00|0\.00", mean), row
