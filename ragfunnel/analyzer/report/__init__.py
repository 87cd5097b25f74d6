"""Reports over funnel results: a diagnosis, one self-contained HTML file, exports, run diffs.

    from ragfunnel.analyzer.report import build_report, report_text

    report = build_report(analyze(store, "cases.yaml"), jaeger_url="http://localhost:16686")
    print(report_text(report))

docs/report.md is the contract: what each section says, the export schemas, the CI limits.
Besides the report: the comparison of two runs (``diff_runs``), the CI gate, the exports and the
terminal texts of an analysis (``summary_text``, ``describe_record`` …, from ``funnel_text``)
and the number formats the CLI shares with it (``number``, ``percent``, ``count``, ``more``, from
``wording``).
"""

from ragfunnel.analyzer.report.build import build_report
from ragfunnel.analyzer.report.contents import Report, RunReport, to_jsonable
from ragfunnel.analyzer.report.diff import RunDiff, diff_runs
from ragfunnel.analyzer.report.drilldown import check_jaeger_url
from ragfunnel.analyzer.report.exports import (
    diff_summary,
    summary,
    write_jsonl,
    write_parquet,
    write_summary,
)
from ragfunnel.analyzer.report.frames import report_frame
from ragfunnel.analyzer.report.funnel_text import (
    describe_record,
    describe_shape,
    shapes_text,
    summary_text,
)
from ragfunnel.analyzer.report.gate import check_limits, parse_limits
from ragfunnel.analyzer.report.html import write_html
from ragfunnel.analyzer.report.report_error import ReportError
from ragfunnel.analyzer.report.sources import (
    QuestionTexts,
    pipeline_snapshots,
    question_texts,
    textless_documents,
)
from ragfunnel.analyzer.report.terminal import render_diff, render_report, report_text
from ragfunnel.analyzer.report.wording import count, more, number, percent

__all__ = [
    "QuestionTexts",
    "Report",
    "ReportError",
    "RunDiff",
    "RunReport",
    "build_report",
    "check_jaeger_url",
    "check_limits",
    "count",
    "describe_record",
    "describe_shape",
    "diff_runs",
    "diff_summary",
    "more",
    "number",
    "parse_limits",
    "percent",
    "pipeline_snapshots",
    "question_texts",
    "render_diff",
    "render_report",
    "report_frame",
    "report_text",
    "shapes_text",
    "summary",
    "summary_text",
    "textless_documents",
    "to_jsonable",
    "write_html",
    "write_jsonl",
    "write_parquet",
    "write_summary",
]
