"""Reports over funnel results: a diagnosis, one self-contained HTML file, exports, run diffs.

    from ragfunnel.analyzer.report import build_report, report_text

    report = build_report(analyze(store, "cases.yaml"), jaeger_url="http://localhost:16686")
    print(report_text(report))

docs/report.md is the contract: what each section says, the export schemas, the CI limits.
"""

from ragfunnel.analyzer.report.build import build_report
from ragfunnel.analyzer.report.contents import Report, RunReport, to_jsonable
from ragfunnel.analyzer.report.errors import ReportError
from ragfunnel.analyzer.report.frames import report_frame
from ragfunnel.analyzer.report.sources import (
    QuestionTexts,
    pipeline_snapshots,
    question_texts,
    textless_documents,
)
from ragfunnel.analyzer.report.terminal import render_report, report_text

__all__ = [
    "QuestionTexts",
    "Report",
    "ReportError",
    "RunReport",
    "build_report",
    "pipeline_snapshots",
    "question_texts",
    "render_report",
    "report_frame",
    "report_text",
    "textless_documents",
    "to_jsonable",
]
