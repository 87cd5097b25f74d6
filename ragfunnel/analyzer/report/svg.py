"""Charts as inline SVG, drawn here in Python: no script, no library, no request.

Each function takes the few numbers ``distributions.py`` computed and returns markup safe to
place in the page: every label goes through ``markupsafe.escape`` and every number is
formatted here, so no text of a question, chunk or id can become markup. It must never
emit ``<script>``, event attributes, ``<foreignObject>`` or any external reference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from markupsafe import Markup, escape

from ragfunnel.analyzer.report import wording
from ragfunnel.analyzer.report.contents import MetricValue

__all__ = [
    "delta_panels",
    "funnel_chart",
    "histogram",
    "metric_panels",
    "rank_chart",
    "risk_coverage",
]

_FONT = 13
WIDTH = 400
"""Every chart's width in its own units: it scales down to its card (its viewBox), and at
360–430 px a phone shows it at 0.77 of that or more, so 12-unit labels stay above 9 px."""
_PAD = 6
_LINE = 15
"""The height of one line of text, in chart units."""


def _n(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _text(x: float, y: float, label: object, *, anchor: str = "start", cls: str = "") -> str:
    klass = f' class="{cls}"' if cls else ""
    return (f'<text x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}"{klass}>'
            f"{escape(str(label))}</text>")  # fmt: skip


def _wrapped(text: str, chars: int) -> list[str]:
    """``text`` in lines of at most about ``chars`` characters, broken between words."""
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= chars:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def _svg(width: int, height: float, title: str, body: Sequence[str]) -> Markup:
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
            f'viewBox="0 0 {width} {_n(height)}" width="{width}" height="{_n(height)}" '
            f'font-size="{_FONT}"><title>{escape(title)}</title>')  # fmt: skip
    return Markup(head + "".join(body) + "</svg>")  # noqa: S704 - every part escaped above


def _y_axis(left: float, top: float, plot_h: float, peak: int, label: str) -> list[str]:
    """A vertical count axis at ``left``: its line, 0 at the baseline, ``peak`` at the top."""
    base = top + plot_h
    out = [f'<line class="axis" x1="{_n(left)}" y1="{_n(top)}" x2="{_n(left)}" y2="{_n(base)}"/>']
    for value, y in ((0, base), (peak, top)):
        out.append(
            f'<line class="axis" x1="{_n(left - 4)}" y1="{_n(y)}" x2="{_n(left)}" y2="{_n(y)}"/>'
        )
        out.append(_text(left - 6, y + 4, f"{value:,}", anchor="end", cls="tick"))
    out.append(f'<text class="tick" transform="translate({_n(left - 34)},{_n(top + plot_h / 2)}) '
               f'rotate(-90)" text-anchor="middle">{escape(label)}</text>')  # fmt: skip
    return out


def _x_labels(xs: Sequence[float], labels: Sequence[str], y: float) -> list[str]:
    """Bin labels under an axis, slanted down to the left of their tick.

    None runs off the right edge, whatever the last label says.
    """
    return [
        f'<text class="tick" transform="translate({_n(x + 4)},{_n(y)}) rotate(-40)" '
        f'text-anchor="end">{escape(label)}</text>'
        for x, label in zip(xs, labels, strict=True)
    ]


def _x_title(text: str, y: float, width: int) -> tuple[list[str], float]:
    """An axis title centred under a chart, wrapped to its width; and the height it takes."""
    lines = _wrapped(text, (width - 2 * _PAD) // 7)
    return [
        _text(width / 2, y + i * _LINE, line, anchor="middle", cls="tick")
        for i, line in enumerate(lines)
    ], len(lines) * _LINE


def funnel_chart(steps: Sequence[tuple[str, int]], *, width: int = WIDTH) -> Markup:
    """Horizontal bars from "asked" to "answered correctly", each with what it lost.

    Each step's name and count sit on a line above its bar, so the bars take the whole width.
    """
    row, bar_w = 40, width - 2 * _PAD
    total = max(steps[0][1] if steps else 0, 1)
    base = 6 + row * len(steps)
    body = [
        f'<line class="axis" x1="{_PAD}" y1="{base}" x2="{_PAD + bar_w}" y2="{base}"/>',
        _text(_PAD, base + 14, "0", cls="tick"),
        _text(_PAD + bar_w, base + 14, f"{total:,}", anchor="end", cls="tick"),
        _text(_PAD + bar_w / 2, base + 14, "questions", anchor="middle", cls="tick"),
    ]
    previous = None
    for i, (label, count) in enumerate(steps):
        y = 6 + i * row
        note = f"{count:,}"
        if previous is not None and previous > count:
            note += f", {previous - count:,} lost"
        body.append(_text(_PAD, y + 12, label))
        body.append(_text(_PAD + bar_w, y + 12, note, anchor="end", cls="value"))
        body.append(
            f'<rect class="bar stage-{i}" x="{_PAD}" y="{y + 17}" '
            f'width="{_n(max(bar_w * count / total, 1))}" height="16"/>'
        )
        previous = count
    return _svg(width, base + 20, "Where evidence was lost", body)


def rank_chart(bins: Sequence[tuple[str, int]], cut_k: int | None, *, width: int = WIDTH) -> Markup:
    """Gold evidence per rank bin, with the prompt cut drawn as a line after rank k."""
    top, plot_h, left = 26, 150, 52
    step = (width - left - _PAD) / max(len(bins), 1)
    base = top + plot_h
    slant = max((len(label) for label, _ in bins), default=1) * 5 + 14
    title, title_h = _x_title("rank after the last ranking stage", base + slant + 12, width)
    body = [
        f'<line class="axis" x1="{left}" y1="{base}" x2="{width - _PAD}" y2="{base}"/>',
        *_y_axis(left, top, plot_h, max((n for _, n in bins), default=0) or 1, "evidence items"),
        *_x_labels([left + (i + 0.5) * step for i in range(len(bins))],
                   [label for label, _ in bins], base + 12),
        *title,
    ]  # fmt: skip
    peak = max((n for _, n in bins), default=0) or 1
    for i, (label, n) in enumerate(bins):
        x = left + i * step
        h = plot_h * n / peak
        outside = not label[0].isdigit() or (cut_k is not None and _low(label) > cut_k)
        cls = "bar lost" if outside else "bar kept"
        body.append(f'<rect class="{cls}" x="{_n(x + 1)}" y="{_n(base - h)}" '
                    f'width="{_n(max(step - 2, 1))}" height="{_n(max(h, 0.5))}"/>')  # fmt: skip
        if n:
            body.append(_text(x + step / 2, base - h - 3, f"{n:,}", anchor="middle", cls="value"))
    if cut_k is not None:
        index = next(
            (i for i, (label, _) in enumerate(bins) if label[0].isdigit() and _low(label) > cut_k),
            None,
        )
        if index is not None:
            x = left + index * step
            body.append(f'<line class="cut" x1="{_n(x)}" y1="{top - 8}" x2="{_n(x)}" y2="{base}"/>')
            right = x > width / 2  # the label on the side with room
            body.append(_text(x - 4 if right else x + 4, top - 12, f"prompt cut: top {cut_k}",
                              anchor="end" if right else "start", cls="cut-label"))  # fmt: skip
    return _svg(
        width, base + slant + 12 + title_h, "Rank of the gold evidence after the last ranking stage",
        body,
    )  # fmt: skip


def _low(label: str) -> int:
    digits = "".join(ch for ch in label.split("–", maxsplit=1)[0] if ch.isdigit())
    return int(digits) if digits else 0


_ROW = 42
"""A row of metric or delta panels: its name and value on a line, its scale under them."""


def _panel_row(y: float, label: str, value: str, width: int) -> list[str]:
    return [
        _text(_PAD, y - 14, label),
        _text(width - _PAD, y - 14, value, anchor="end", cls="value"),
        f'<line class="track" x1="{_PAD}" y1="{_n(y)}" x2="{width - _PAD}" y2="{_n(y)}"/>',
    ]


def _scale(y_top: float, base: float, ticks: Sequence[tuple[float, str]], width: int) -> list[str]:
    """Grid lines from ``y_top`` to ``base`` at ``ticks`` (x, label), labelled under ``base``."""
    out = [f'<line class="axis" x1="{_PAD}" y1="{_n(base)}" x2="{width - _PAD}" y2="{_n(base)}"/>']
    for i, (x, label) in enumerate(ticks):
        anchor = "start" if i == 0 else "end" if i == len(ticks) - 1 else "middle"
        out.append(
            f'<line class="grid" x1="{_n(x)}" y1="{_n(y_top)}" x2="{_n(x)}" y2="{_n(base)}"/>'
        )
        out.append(
            f'<line class="axis" x1="{_n(x)}" y1="{_n(base)}" x2="{_n(x)}" y2="{_n(base + 4)}"/>'
        )
        out.append(_text(x, base + 16, label, anchor=anchor, cls="tick"))
    return out


def metric_panels(
    metrics: Sequence[tuple[str, MetricValue]], *, title: str, width: int = WIDTH
) -> Markup:
    """One row per metric on a 0–1 scale: the mean as a dot, its 95 % interval as a bar."""
    plot_w = width - 2 * _PAD

    def x(v: float) -> float:
        return _PAD + plot_w * min(max(v, 0.0), 1.0)

    base = 12 + _ROW * len(metrics)
    body = _scale(20, base, [(x(t), f"{t:g}") for t in (0.0, 0.25, 0.5, 0.75, 1.0)], width)
    for i, (label, m) in enumerate(metrics):
        y = 34 + i * _ROW
        text = "undefined"
        if math.isfinite(m.mean):
            text = wording.ratio(m.mean)
            if math.isfinite(m.ci_low):
                text += f", CI {wording.interval(m.ci_low, m.ci_high)}"
        body += _panel_row(y, label, text, width)
        if math.isfinite(m.ci_low) and math.isfinite(m.ci_high):
            body.append(f'<line class="interval" x1="{_n(x(m.ci_low))}" y1="{_n(y)}" '
                        f'x2="{_n(x(m.ci_high))}" y2="{_n(y)}"/>')  # fmt: skip
        if math.isfinite(m.mean):
            body.append(f'<circle class="point" cx="{_n(x(m.mean))}" cy="{_n(y)}" r="5"/>')
    return _svg(width, base + 20, title, body)


def delta_panels(
    deltas: Sequence[tuple[str, float, float, float]], *, width: int = WIDTH
) -> Markup:
    """Paired differences B − A with their intervals on a symmetric scale around zero.

    The x axis is drawn with its ticks (−span, −span/2, 0, +span/2, +span) and labelled.
    """
    plot_w = width - 2 * _PAD
    span = _nice(
        max([abs(v) for _, d, lo, hi in deltas for v in (d, lo, hi) if math.isfinite(v)] + [0.05])
    )

    def x(v: float) -> float:
        return _PAD + plot_w * (v + span) / (2 * span)

    base = 12 + _ROW * len(deltas)
    ticks = [(x(t), wording.signed(t)) for t in (-span, -span / 2, 0.0, span / 2, span)]
    body = [
        f'<line class="zero" x1="{_n(x(0))}" y1="20" x2="{_n(x(0))}" y2="{base}"/>',
        *_scale(20, base, ticks, width),
        _text(width / 2, base + 32, "change B − A (0: no change)", anchor="middle", cls="tick"),
    ]
    for i, (label, d, lo, hi) in enumerate(deltas):
        y = 34 + i * _ROW
        value = wording.signed(d) if math.isfinite(d) else "undefined"
        if math.isfinite(d) and math.isfinite(lo) and math.isfinite(hi):
            value += f", CI {wording.signed(lo)} to {wording.signed(hi)}"
        body += _panel_row(y, label, value, width)
        if math.isfinite(lo) and math.isfinite(hi):
            body.append(
                f'<line class="interval" x1="{_n(x(lo))}" y1="{y}" x2="{_n(x(hi))}" y2="{y}"/>'
            )
        if math.isfinite(d):
            cls = "point worse" if math.isfinite(hi) and hi < 0 else "point"
            body.append(f'<circle class="{cls}" cx="{_n(x(d))}" cy="{y}" r="5"/>')
    return _svg(width, base + 40, "Metric changes, B − A, with paired 95% intervals", body)


def _nice(value: float) -> float:
    """The smallest of 1, 2, 2.5 or 5 × 10ⁿ at least ``value``: round axis ends."""
    power = 10.0 ** math.floor(math.log10(value))
    return next(float(m * power) for m in (1, 2, 2.5, 5, 10) if m * power >= value - 1e-12)


def histogram(
    counts: Sequence[int],
    labels: Sequence[str],
    *,
    title: str,
    x_label: str,
    y_label: str,
    width: int = WIDTH,
) -> Markup:
    """Vertical bars of ``counts`` under ``labels``, with both axes, 0 and the peak marked."""
    top, plot_h, left = 20, 130, 52
    base = top + plot_h
    peak = max(counts, default=0) or 1
    step = (width - left - _PAD) / max(len(counts), 1)
    slant = max((len(label) for label in labels), default=1) * 5 + 14
    title_lines, title_h = _x_title(x_label, base + slant + 12, width)
    body = [
        f'<line class="axis" x1="{left}" y1="{base}" x2="{width - _PAD}" y2="{base}"/>',
        *_y_axis(left, top, plot_h, peak, y_label),
        *_x_labels([left + (i + 0.5) * step for i in range(len(labels))], labels, base + 12),
        *title_lines,
    ]
    for i, n in enumerate(counts):
        x = left + i * step
        h = plot_h * n / peak
        body.append(f'<rect class="bar kept" x="{_n(x + 1)}" y="{_n(base - h)}" '
                    f'width="{_n(max(step - 2, 1))}" height="{_n(max(h, 0.5))}"/>')  # fmt: skip
        if n:
            body.append(_text(x + step / 2, base - h - 3, f"{n:,}", anchor="middle", cls="value"))
    return _svg(width, base + slant + 12 + title_h, title, body)


def risk_coverage(curve: Sequence[tuple[float, float, float]], *, width: int = WIDTH) -> Markup:
    """Risk (share of wrong answers) against coverage (share answered) as a threshold falls."""
    size, left, top = width - 70, 50, 15
    plot = size - 30

    def px(cov: float, risk: float) -> str:
        return f"{_n(left + plot * cov)},{_n(top + plot * (1 - risk))}"

    body = [
        f'<rect class="frame" x="{left}" y="{top}" width="{plot}" height="{plot}"/>',
        _text(
            left + plot / 2,
            top + plot + 28,
            "coverage (share answered)",
            anchor="middle",
            cls="tick",
        ),
        f'<text class="tick" transform="translate(14,{_n(top + plot / 2)}) rotate(-90)" '
        f'text-anchor="middle">risk (share wrong)</text>',
    ]
    for tick in (0.0, 0.5, 1.0):
        body.append(
            _text(left + plot * tick, top + plot + 14, f"{tick:g}", anchor="middle", cls="tick")
        )
        body.append(
            _text(left - 6, top + plot * (1 - tick) + 4, f"{tick:g}", anchor="end", cls="tick")
        )
    if curve:
        points = " ".join(px(cov, risk) for _, cov, risk in curve)
        body.append(f'<polyline class="curve" points="{points}"/>')
        last = curve[-1]
        body.append(f'<circle class="point" cx="{_n(left + plot * last[1])}" '
                    f'cy="{_n(top + plot * (1 - last[2]))}" r="4"/>')  # fmt: skip
    return _svg(width, size + 20, "Risk against coverage of a top-score gate", body)
