"""The report as ONE self-contained HTML file: jinja2 with autoescape, charts as inline SVG.

The page has no script, loads nothing (a Content-Security-Policy of ``default-src 'none'``
says so to the browser too) and uses system fonts. Every text of a question, chunk, answer or
id reaches the page through jinja2's autoescape; charts are ``svg.py``'s escaped markup. This
module must never mark user text safe, and never add a script, a link to a stylesheet or a
font, or any URL other than the trace links, whose base is checked to be http(s).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from ragfunnel.analyzer.report import svg, wording
from ragfunnel.analyzer.report.contents import Report, RunReport
from ragfunnel.analyzer.report.distributions import FAITHFULNESS_BINS
from ragfunnel.analyzer.report.report_error import ReportError
from ragfunnel.analyzer.report.terminal import METRIC_NAMES, fmt, interval, runs_named, setting

__all__ = ["MAX_RUN_SECTIONS", "page_title", "render_html", "write_html"]

MAX_RUN_SECTIONS = 10
"""Runs beyond this many appear in the overview table only (the JSON summary has them all)."""

# C0 controls but tab, newline and carriage return, DEL and C1: not allowed raw in HTML text
# (a NUL in a question id reached the page raw, issue 19), and invisible where allowed.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _visible(value: Any) -> Any:
    """Every value a template prints, its control characters made visible (never raw).

    Each becomes a backslash, ``x`` and its two hex digits. Runs before autoescape.
    ``str.replace`` keeps a value's kind: on an escaped SVG chart (``Markup``) it escapes its
    arguments, so nothing is marked safe here.
    """
    if isinstance(value, str) and _CONTROL.search(value):
        for char in set(_CONTROL.findall(value)):
            value = value.replace(char, f"\\x{ord(char):02x}")
    return value


_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("ragfunnel.analyzer.report", "templates"),
    autoescape=True,
    finalize=_visible,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
CLIP = {"question": 2000, "answer": 4000, "chunk": 1000}
"""Characters of each text the page shows (the JSON summary keeps them whole): with 10 runs'
worst questions and the sample, the page stays far below 5 MB whatever the chunks weigh."""


def _clip(text: str | None, kind: str) -> str:
    if not text:
        return ""
    limit = CLIP[kind]
    if len(text) <= limit:
        return text
    return (
        f"{text[:limit]}… +{wording.count(len(text) - limit, 'more character')} in the JSON summary"
    )


HEADLINE = 160
"""Characters of a question's text its summary line shows (the drill-down shows it whole)."""


def _headline(text: str | None) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= HEADLINE else text[: HEADLINE - 1].rstrip() + "…"


_ENV.filters["clip"] = _clip
_ENV.filters["headline"] = _headline
_ENV.filters["fmt"] = fmt
_ENV.filters["setting"] = setting
_ENV.filters["pvalue"] = lambda p: f"{p:.2g}"
_ENV.filters["interval"] = interval
_ENV.filters["percent"] = wording.percent
_ENV.filters["count"] = wording.count
_ENV.filters["plural"] = wording.plural
_ENV.filters["more"] = wording.more


def _charts(run: RunReport) -> dict[str, Markup]:
    charts = {
        "funnel": svg.funnel_chart(run.funnel),
        "ranks": svg.rank_chart(run.ranks, run.cut_k),
        "metrics": svg.metric_panels(
            [(METRIC_NAMES.get(m.metric, m.metric), m) for m in run.metrics if m.at == "cut"],
            title="Retrieval metrics at the real cut, with 95% intervals",
        ),
    }
    gen = run.generation
    if gen is not None and gen.faithfulness is not None:
        charts["faithfulness_panel"] = svg.metric_panels(
            [("faithfulness", gen.faithfulness)], title="Faithfulness of judged answers"
        )
        charts["faithfulness"] = svg.histogram(
            list(gen.faithfulness_bins),
            FAITHFULNESS_BINS,
            title="Faithfulness per answer: supported claims / claims",
            x_label="faithfulness: each bin from its lower end up to its upper; 1.0 alone",
            y_label="answers",
        )
    if gen is not None and gen.confidence is not None:
        charts["confidence"] = svg.histogram(
            list(gen.confidence_bins),
            FAITHFULNESS_BINS,
            title=f"Confidence per answer: mean claim confidence (mean {gen.confidence.mean:.2f})",
            x_label="confidence: each bin from its lower end up to its upper; 1.0 alone",
            y_label="answers",
        )
    if run.abstention.curve:
        charts["risk"] = svg.risk_coverage(run.abstention.curve)
    return charts


def page_title(report: Report) -> str:
    """``ragfunnel report: run demo-faulty``: the page's title names what it reports on."""
    return f"ragfunnel report: {runs_named(report)}"


def render_html(report: Report, *, diff: Any = None, title: str | None = None) -> str:
    """The page's text. ``diff`` (a ``diff.RunDiff``) adds the paired comparison section.

    ``title`` defaults to ``page_title(report)``; with a diff it names both runs compared.
    """
    if title is None:
        title = page_title(report)
        if diff is not None:
            title += f" · diff {diff.run_a} → {diff.run_b}"
    sections = [(run, _charts(run)) for run in report.runs[:MAX_RUN_SECTIONS]]
    diff_chart = None
    if diff is not None:
        diff_chart = svg.delta_panels(
            [
                (METRIC_NAMES.get(d.metric, d.metric), d.delta, d.ci_low, d.ci_high)
                for d in diff.metrics
            ]
        )
    return _ENV.get_template("report.html.j2").render(
        title=title, report=report, sections=sections, hidden_runs=report.runs[MAX_RUN_SECTIONS:],
        diff=diff, diff_chart=diff_chart, metric_names=METRIC_NAMES,
    )  # fmt: skip


def write_html(report: Report, path: str | Path, *, diff: Any = None) -> Path:
    """Write the page to ``path`` (UTF-8) and return the path."""
    target = Path(path)
    try:
        target.write_text(render_html(report, diff=diff), encoding="utf-8")
    except OSError as exc:
        raise ReportError(
            f"{target}: cannot write the HTML report: {exc.strerror or exc}"
        ) from None
    return target
