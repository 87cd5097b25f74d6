"""The CI gate: limits parsed from the flags' text, one readable line per breach."""

from __future__ import annotations

import pytest

from ragfunnel.analyzer.report import ReportError
from ragfunnel.analyzer.report.gate import check_limits, parse_limits
from tests.support.report_fixtures import Fixture, report_of, with_verdicts


def test_breaches_name_the_run_the_value_and_the_flag(runs: Fixture) -> None:
    report = report_of(runs)
    limits = parse_limits(["share.search=0.10", "share.ingestion=0"], "over")
    limits += parse_limits(iter(["recall=0.4", "hit@5=0.9"]), "under")  # any iterable
    breaches = check_limits(report, limits)
    assert (
        "run A: share.search = 0.167 (2 of 12 questions) > 0.1: --fail-over share.search=0.10"
        in breaches
    )
    assert (
        "run A: share.ingestion = 0.0833 (1 of 12 questions) > 0: --fail-over share.ingestion=0"
        in breaches
    )
    assert not any(b.startswith("run B: share.search") for b in breaches)  # B fixed search
    assert any(b.startswith("run C: recall = 0 (10 questions) < 0.4") for b in breaches)
    assert any(b.startswith("run A: hit@5 = 0.6 (10 questions) < 0.9") for b in breaches)
    assert check_limits(report, parse_limits(["share.failed=0.95"], "over")) == []


def test_faithfulness_limit_needs_verdicts(runs: Fixture) -> None:
    limits = parse_limits(["faithfulness=0.85", "answer_correctness=0.5"], "under")
    unjudged = check_limits(report_of(runs), limits)
    assert (
        "run A: faithfulness cannot be checked (no judged answers): --fail-under faithfulness=0.85"
    ) in unjudged
    judged = report_of(runs, with_verdicts(runs.result))
    # A: (5 + 0.5) / 6 = 0.917, B: (7 + 2 · 0.5) / 9 = 0.889, C: only q-11 judged, 1.0.
    assert check_limits(judged, limits) == []
    assert check_limits(judged, parse_limits(["faithfulness=0.9"], "under")) == [
        "run B: faithfulness = 0.889 (9 judged answers) < 0.9: --fail-under faithfulness=0.9"
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("faithfulness", "expected NAME=NUMBER"),
        ("=0.3", "expected NAME=NUMBER"),
        ("faithfulness=high", "'high' is not a number"),
        ("faithfulness=nan", "finite number"),
        ("share.searhc=0.1", "unknown measure 'share.searhc'; known: share.ok"),
        ("recall@top=0.1", "unknown measure 'recall@top'"),
    ],
)
def test_bad_limits_are_clear_errors(text: str, message: str) -> None:
    with pytest.raises(ReportError, match=message.replace("(", r"\(")):
        parse_limits([text], "under")
