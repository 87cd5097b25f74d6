"""The report and the run diff in a terminal, with rich: diagnosis first, then the tables.

Pure rendering of the report model; it must never compute a statistic (``build.py`` and
``diff.py`` do) or read a store. ``report_text``/``diff_text`` give the same as plain text.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ragfunnel.analyzer.report import wording
from ragfunnel.analyzer.report.contents import MetricValue, Report, RunReport
from ragfunnel.analyzer.report.diff import RunDiff, diff_lines

__all__ = [
    "diff_text",
    "header_lines",
    "render_diff",
    "render_report",
    "report_text",
    "runs_named",
]

MAX_RUNS = 10
WORST_SHOWN = 10
WORST_TEXT = 80
"""Characters of each worst question's text the terminal shows under its id."""
WORST_WHERE = "--html lists up to --top per run; --jsonl/--parquet have every question"
METRIC_NAMES = {
    "hit": "hit rate",
    "recall": "recall",
    "mrr": "MRR",
    "context_precision": "context precision",
    "average_precision": "AP (LlamaIndex)",
    "faithfulness": "faithfulness",
}


def fmt(value: Any) -> str:
    """A number for people (``wording.number``): ``—`` for missing or NaN."""
    return wording.number(value)


def setting(value: Any) -> str:
    """A configuration value for people: lists as ``a, b``."""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return "—" if value is None else str(value)


def interval(low: Any, high: Any, *, percent: bool = False) -> str:
    """``0.412–0.655`` (or ``41.2–65.5%``); ``—`` when undefined."""
    return wording.interval(low, high, as_percent=percent)


def _table(title: str, columns: Sequence[str], numeric: Sequence[int] = ()) -> Table:
    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    for i, name in enumerate(columns):
        table.add_column(name, justify="right" if i in numeric else "left", overflow="fold")
    return table


def _metric_row(m: MetricValue) -> list[str]:
    note = f", {m.n_undefined:,} undefined" if m.n_undefined else ""
    return [METRIC_NAMES.get(m.metric, m.metric), fmt(m.mean), interval(m.ci_low, m.ci_high),
            f"{m.n:,}{note}", m.method]  # fmt: skip


def _run(run: RunReport) -> list[RenderableType]:
    out: list[RenderableType] = [
        Text(
            f"run {run.run_id or '(none)'} · {wording.count(run.questions, 'question')}",
            style="bold",
        ),
        Text(run.diagnosis),
    ]
    shares = _table("first failure", ["stage", "count", "share", "95% CI"], (1, 2, 3))
    for s in run.shares:
        shares.add_row(s.stage, f"{s.count:,}", wording.percent(s.share),
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
        for score in (gen.faithfulness, gen.confidence):
            if score is not None:
                table.add_row(*_metric_row(score))
        for label, n in sorted(gen.correctness.items()):
            table.add_row(f"{wording.plural(n, 'answer')} {label}", f"{n:,}", "", "", "")
        if gen.unsupported_claims:
            table.add_row(wording.plural(gen.unsupported_claims, "unsupported claim"),
                          f"{gen.unsupported_claims:,}", "", "", "")  # fmt: skip
        out.append(table)
    if run.lost_evidence:
        lost = _table("evidence most often lost upstream", ["id", "lost at", "questions"], (2,))
        for item in run.lost_evidence:
            lost.add_row(escape(item.id), item.lost_at, f"{item.questions:,}")
        out.append(lost)
        cut = wording.more(
            len(run.lost_evidence), run.lost_total, "ids (--jsonl/--parquet have every item)"
        )
        if cut:
            out.append(Text(cut))
    if run.worst:
        worst = _table("worst questions", ["question", "first failure", "reason"])
        for w in run.worst[:WORST_SHOWN]:
            text = " ".join(str(w.get("question") or "").split())
            if len(text) > WORST_TEXT:
                text = text[: WORST_TEXT - 1].rstrip() + "…"
            asked = escape(str(w["question_id"])) + (f"\n{escape(text)}" if text else "")
            worst.add_row(asked, str(w["first_failure"]),
                          escape(str(w.get("failure_reason") or "")))  # fmt: skip
        out.append(worst)
        shown = min(len(run.worst), WORST_SHOWN)
        cut = wording.more(shown, run.worst_total, f"failed or incomplete questions: {WORST_WHERE}")
        if cut:
            out.append(Text(cut))
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


def runs_named(report: Report) -> str:
    """``run demo-faulty``, ``runs A, B``, or ``runs A, B, C and 9 more``."""
    ids = [run.run_id or "(none)" for run in report.runs]
    if not ids:
        return "no runs"
    shown = ", ".join(ids[:3]) + (f" and {len(ids) - 3:,} more" if len(ids) > 3 else "")
    return f"{wording.plural(len(ids), 'run')} {shown}"


def header_lines(report: Report) -> list[str]:
    """What the report is: its runs, when it was built, by which version, from what."""
    made = " · ".join(
        part
        for part in (
            f"built {report.generated_at}" if report.generated_at else "",
            f"ragfunnel {report.ragfunnel_version}" if report.ragfunnel_version else "",
            f"store {report.store}" if report.store else "",
            f"cases {report.cases_file}" if report.cases_file else "",
        )
        if part
    )
    counts = (
        f"{runs_named(report)} · {wording.count(report.total_records, 'question record')} · "
        f"index truth: {report.index_truth}"
    )
    return [counts, made] if made else [counts]


def render_report(report: Report, console: Console) -> None:
    """Print the report: per run, the diagnosis, shares, metrics, losses, worst questions."""
    for line in header_lines(report):
        console.print(Text(line))
    if report.unmatched_questions:
        unmatched = wording.count(report.unmatched_questions, "question")
        console.print(Text(f"{unmatched} in the store match no case"))
    if report.cases_without_trace:
        missing = len(report.cases_without_trace)
        have = "has" if missing == 1 else "have"
        console.print(Text(f"{wording.count(missing, 'case')} {have} no trace"))
    for run in report.runs[:MAX_RUNS]:
        console.print()
        console.print(Group(*_run(run)))
    cut = wording.more(MAX_RUNS, len(report.runs), "runs: --json has every run")
    if cut:
        console.print(Text(cut))


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
