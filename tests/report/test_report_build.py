"""The report model and terminal diagnosis on two planned runs with known faults."""

from __future__ import annotations

from conftest import Fixture

from ragfunnel.analyzer.report import build_report, report_text


def _report(runs: Fixture, **options: object):  # type: ignore[no-untyped-def]
    return build_report(
        runs.result, cases=runs.cases, snapshots=runs.snapshots,
        texts=lambda keys: {k: runs.texts[k] for k in keys if k in runs.texts},
        **options,  # type: ignore[arg-type]
    )  # fmt: skip


def test_diagnosis_counts_and_subreasons(runs: Fixture) -> None:
    report = _report(runs)
    a = report.run("A")
    print(report_text(report))
    assert a.questions == 12
    assert a.failed == 7


def test_html_and_diff_smoke(runs: Fixture, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from ragfunnel.analyzer.report.diff import diff_runs
    from ragfunnel.analyzer.report.html import write_html
    from ragfunnel.analyzer.report.terminal import diff_text

    report = _report(runs, jaeger_url="http://127.0.0.1:16686")
    d = diff_runs(runs.result, "A", "B", snapshots=runs.snapshots)
    print(diff_text(d))
    write_html(report, "/tmp/report-smoke.html", diff=d)
