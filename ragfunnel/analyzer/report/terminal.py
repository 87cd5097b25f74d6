"""The report and the run diff in a terminal, with rich: diagnosis first, then the tables.

Pure rendering of the report model; it must never compute a statistic (``build.py`` and
``diff.py`` do) or read a store. ``report_text``/``diff_text`` give the same as plain text.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ragfunnel.analyzer.report.diff import RunDiff, diff_lines
from ragfunnel.analyzer.report.model import MetricValue, Report, RunReport

__all__ = ["diff_text", "render_diff", "render_report", "report_text"]

MAX_RUNS = 10
WORST_SHOWN = 10
METRIC_NAMES = {
    "hit": "hit rate",
    "recall": "recall",
    "mrr": "MRR",
    "context_precision": "context precision",
    "average_precision": "AP (LlamaIndex)",
    "faithfulness": "faithfulness",
}


def fmt(value: Any, digits: int = 3) -> str:
    """A number for people: ``—`` for missing or NaN, trailing zeros dropped."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}".rstrip("0").rstrip(".") if value % 1 else f"{value:.0f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def setting(value: Any) -> str:
    """A configuration value for people: lists as ``a, b``."""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return "—" if value is None else str(value)


def interval(low: Any, high: Any, *, percent: bool = False) -> str:
    """``0.412–0.655`` (or ``41.2–65.5%``); ``—`` when undefined."""
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return "—"
    return f"{100 * low:.1f}–{100 * high:.1f}%" if percent else f"{low:.3f}–{high:.3f}"


def _table(title: str, columns: Sequence[str], numeric: Sequence[int] = ()) -> Table:
    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    for i, name in enumerate(columns):
        table.add_column(name, justify="right" if i in numeric else "left", overflow="fold")
    return table


def _metric_row(m: MetricValue) -> list[str]:
    note = f" ({m.n_undefined} undefined)" if m.n_undefined else ""
    return [METRIC_NAMES.get(m.metric, m.metric), fmt(m.mean), interval(m.ci_low, m.ci_high),
            f"{m.n:,}{note}", m.method]  # fmt: skip


def _run(run: RunReport) -> list[RenderableType]:
    out: list[RenderableType] = [
        Text(f"run {run.run_id or '(none)'} · {run.questions:,} questions", style="bold"),
        Text(run.diagnosis),
    ]
    shares = _table("first failure", ["stage", "count", "share", "95% CI"], (1, 2, 3))
    for s in run.shares:
        shares.add_row(s.stage, f"{s.count:,}", f"{100 * s.share:.1f}%",
                       interval(s.ci_low, s.ci_high, percent=True))  # fmt: skip
    out.append(shares)
    metrics = _table(
        f"retrieval at the real cut (k = {fmt(run.cut_k)})",
        ["metric", "mean", "95% CI", "n", "method"],
        (1, 2),
    )
    for m in run.metrics:
        if m.at == "cut":
            metrics.add_row(*_metric_row(m))
    out.append(metrics)
    gen = run.generation
    if gen is not None:
        table = _table("generation (judged answers, never averaged with retrieval)",
                       ["measure", "value", "95% CI", "n", "method"], (1, 2))  # fmt: skip
        if gen.faithfulness is not None:
            table.add_row(*_metric_row(gen.faithfulness))
        for label, n in sorted(gen.correctness.items()):
            table.add_row(f"answers {label}", f"{n:,}", "", "", "")
        if gen.unsupported_claims:
            table.add_row("unsupported claims", f"{gen.unsupported_claims:,}", "", "", "")
        out.append(table)
    if run.lost_evidence:
        lost = _table("evidence most often lost upstream", ["id", "lost at", "questions"], (2,))
        for item in run.lost_evidence:
            lost.add_row(escape(item.id), item.lost_at, f"{item.questions:,}")
        out.append(lost)
    if run.worst:
        worst = _table("worst questions", ["question", "first failure", "reason"])
        for w in run.worst[:WORST_SHOWN]:
            worst.add_row(escape(str(w["question_id"])), str(w["first_failure"]),
                          escape(str(w.get("failure_reason") or "")))  # fmt: skip
        out.append(worst)
    c = run.abstention.confusion
    out.append(
        Text(
            "abstention: answerable — answered "
            f"{c['answerable_answered']:,}, abstained {c['answerable_abstained']:,}; "
            f"unanswerable — answered {c['unanswerable_answered']:,}, "
            f"abstained {c['unanswerable_abstained']:,}"
        )
    )
    if run.config:
        settings = "; ".join(f"{k} = {setting(v)}" for k, v in run.config.items())
        out.append(Text(f"configuration: {settings}"))
    return out


def render_report(report: Report, console: Console) -> None:
    """Print the report: per run, the diagnosis, shares, metrics, losses, worst questions."""
    head = f"{report.total_records:,} question records; index truth: {report.index_truth}"
    console.print(Text(head))
    if report.unmatched_questions:
        console.print(Text(f"{report.unmatched_questions:,} questions in the store match no case"))
    if report.cases_without_trace:
        console.print(Text(f"{len(report.cases_without_trace):,} cases have no trace"))
    for run in report.runs[:MAX_RUNS]:
        console.print()
        console.print(Group(*_run(run)))
    if len(report.runs) > MAX_RUNS:
        console.print(Text(f"… and {len(report.runs) - MAX_RUNS:,} more runs (see --json)"))


def _plain(width: int) -> Console:
    return Console(record=True, width=width, color_system=None, force_terminal=False,
                   file=io.StringIO())  # fmt: skip


def report_text(report: Report, *, width: int = 110) -> str:
    """The terminal report as plain text."""
    console = _plain(width)
    render_report(report, console)
    return console.export_text()


def render_diff(diff: RunDiff, console: Console) -> None:
    """Print a run diff: transitions, McNemar, metric deltas, settings."""
    for line in diff_lines(diff):
        console.print(Text(line), soft_wrap=True)


def diff_text(diff: RunDiff, *, width: int = 110) -> str:
    """The run diff as plain text."""
    console = _plain(width)
    render_diff(diff, console)
    return console.export_text()
