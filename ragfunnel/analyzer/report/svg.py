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

_FONT = 12
WIDE = 540
"""Charts at least this wide keep a minimum width on narrow screens (their card scrolls
sideways) rather than shrinking their labels below reading size."""


def _n(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _text(x: float, y: float, label: object, *, anchor: str = "start", cls: str = "") -> str:
    klass = f' class="{cls}"' if cls else ""
    return (f'<text x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}"{klass}>'
            f"{escape(str(label))}</text>")  # fmt: skip


def _svg(width: int, height: int, title: str, body: Sequence[str]) -> Markup:
    klass = "chart wide" if width >= WIDE else "chart"
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="{klass}" role="img" '
            f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
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
    out.append(f'<text class="tick" transform="translate({_n(left - 30)},{_n(top + plot_h / 2)}) '
               f'rotate(-90)" text-anchor="middle">{escape(label)}</text>')  # fmt: skip
    return out


def funnel_chart(steps: Sequence[tuple[str, int]], *, width: int = 560) -> Markup:
    """Horizontal bars from "asked" to "answered correctly", each with what it lost."""
    label_w, row, bar_w = 150, 30, width - 150 - 90
    total = max(steps[0][1] if steps else 0, 1)
    base = 10 + row * len(steps)
    body = [
        f'<line class="axis" x1="{label_w}" y1="6" x2="{label_w}" y2="{base}"/>',
        f'<line class="axis" x1="{label_w}" y1="{base}" x2="{label_w + bar_w}" y2="{base}"/>',
        _text(label_w, base + 14, "0", anchor="middle", cls="tick"),
        _text(label_w + bar_w, base + 14, f"{total:,}", anchor="middle", cls="tick"),
        _text(label_w + bar_w / 2, base + 14, "questions", anchor="middle", cls="tick"),
    ]
    previous = None
    for i, (label, count) in enumerate(steps):
        y = 10 + i * row
        w = bar_w * count / total
        body.append(_text(label_w - 8, y + 15, label, anchor="end"))
        body.append(
            f'<rect class="bar stage-{i}" x="{label_w}" y="{y}" width="{_n(max(w, 1))}" height="20"/>'
        )
        note = f"{count:,}"
        if previous is not None and previous > count:
            note += f", {previous - count:,} lost"
        body.append(_text(label_w + w + 6, y + 15, note, cls="value"))
        previous = count
    return _svg(width, base + 22, "Where evidence was lost", body)


def rank_chart(bins: Sequence[tuple[str, int]], cut_k: int | None, *, width: int = 640) -> Markup:
    """Gold evidence per rank bin, with the prompt cut drawn as a line after rank k."""
    height, top, bottom, left = 250, 20, 80, 56
    plot_h = height - top - bottom
    peak = max((n for _, n in bins), default=0) or 1
    step = (width - left - 40) / max(len(bins), 1)
    body = [
        f'<line class="axis" x1="{left}" y1="{top + plot_h}" x2="{width - 10}" y2="{top + plot_h}"/>',
        *_y_axis(left, top, plot_h, peak, "evidence items"),
        _text((left + width) / 2, height - 6, "rank after the last ranking stage", anchor="middle",
              cls="tick"),
    ]  # fmt: skip
    for i, (label, n) in enumerate(bins):
        x = left + i * step
        h = plot_h * n / peak
        outside = not label[0].isdigit() or (cut_k is not None and _low(label) > cut_k)
        cls = "bar lost" if outside else "bar kept"
        body.append(f'<rect class="{cls}" x="{_n(x + 2)}" y="{_n(top + plot_h - h)}" '
                    f'width="{_n(step - 4)}" height="{_n(max(h, 0.5))}"/>')  # fmt: skip
        if n:
            body.append(
                _text(x + step / 2, top + plot_h - h - 3, f"{n:,}", anchor="middle", cls="value")
            )
        body.append(
            f'<text class="tick" transform="translate({_n(x + step / 2)},{top + plot_h + 12}) '
            f'rotate(35)">{escape(label)}</text>'
        )
    if cut_k is not None:
        index = next(
            (i for i, (label, _) in enumerate(bins) if label[0].isdigit() and _low(label) > cut_k),
            None,
        )
        if index is not None:
            x = left + index * step
            body.append(
                f'<line class="cut" x1="{_n(x)}" y1="{top - 8}" x2="{_n(x)}" y2="{top + plot_h}"/>'
            )
            body.append(_text(x + 4, top, f"prompt cut: top {cut_k}", cls="cut-label"))
    return _svg(width, height, "Rank of the gold evidence after the last ranking stage", body)


def _low(label: str) -> int:
    digits = "".join(ch for ch in label.split("–", maxsplit=1)[0] if ch.isdigit())
    return int(digits) if digits else 0


def _panel_row(y: float, label: str, m: MetricValue, left: int, plot_w: int) -> list[str]:
    def x(v: float) -> float:
        return left + plot_w * min(max(v, 0.0), 1.0)

    out = [_text(left - 8, y + 4, label, anchor="end"),
           f'<line class="track" x1="{left}" y1="{_n(y)}" x2="{left + plot_w}" y2="{_n(y)}"/>']  # fmt: skip
    if math.isfinite(m.ci_low) and math.isfinite(m.ci_high):
        out.append(f'<line class="interval" x1="{_n(x(m.ci_low))}" y1="{_n(y)}" '
                   f'x2="{_n(x(m.ci_high))}" y2="{_n(y)}"/>')  # fmt: skip
    if math.isfinite(m.mean):
        out.append(f'<circle class="point" cx="{_n(x(m.mean))}" cy="{_n(y)}" r="5"/>')
        text = wording.ratio(m.mean)
        if math.isfinite(m.ci_low):
            text += f", CI {wording.interval(m.ci_low, m.ci_high)}"
        out.append(_text(left + plot_w + 8, y + 4, text, cls="value"))
    else:
        out.append(_text(left + plot_w + 8, y + 4, "undefined", cls="value"))
    return out


def metric_panels(
    metrics: Sequence[tuple[str, MetricValue]], *, title: str, width: int = 640
) -> Markup:
    """One row per metric on a 0–1 scale: the mean as a dot, its 95 % interval as a bar."""
    left, row, plot_w = 150, 28, width - 150 - 190
    base = 14 + row * len(metrics)
    body = [f'<line class="axis" x1="{left}" y1="{base}" x2="{left + plot_w}" y2="{base}"/>']
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = left + plot_w * tick
        body.append(
            f'<line class="grid" x1="{_n(x)}" y1="8" x2="{_n(x)}" y2="{14 + row * len(metrics)}"/>'
        )
        body.append(_text(x, 26 + row * len(metrics), f"{tick:g}", anchor="middle", cls="tick"))
    for i, (label, m) in enumerate(metrics):
        body += _panel_row(20 + i * row, label, m, left, plot_w)
    return _svg(width, 34 + row * len(metrics), title, body)


def delta_panels(deltas: Sequence[tuple[str, float, float, float]], *, width: int = 640) -> Markup:
    """Paired differences B − A with their intervals on a symmetric scale around zero.

    The x axis is drawn with its ticks (−span, −span/2, 0, +span/2, +span) and labelled.
    """
    left, row, plot_w = 150, 28, width - 150 - 190
    span = _nice(
        max([abs(v) for _, d, lo, hi in deltas for v in (d, lo, hi) if math.isfinite(v)] + [0.05])
    )

    def x(v: float) -> float:
        return left + plot_w * (v + span) / (2 * span)

    base = 10 + row * len(deltas)
    body = [
        f'<line class="zero" x1="{_n(x(0))}" y1="6" x2="{_n(x(0))}" y2="{base}"/>',
        f'<line class="axis" x1="{left}" y1="{base}" x2="{left + plot_w}" y2="{base}"/>',
        _text(left + plot_w / 2, base + 30, "change B − A (0: no change)", anchor="middle",
              cls="tick"),
    ]  # fmt: skip
    for tick in (-span, -span / 2, 0.0, span / 2, span):
        body.append(f'<line class="axis" x1="{_n(x(tick))}" y1="{base}" x2="{_n(x(tick))}" '
                    f'y2="{base + 4}"/>')  # fmt: skip
        body.append(_text(x(tick), base + 15, wording.signed(tick), anchor="middle", cls="tick"))
    for i, (label, d, lo, hi) in enumerate(deltas):
        y = 20 + i * row
        body.append(_text(left - 8, y + 4, label, anchor="end"))
        if math.isfinite(lo) and math.isfinite(hi):
            body.append(
                f'<line class="interval" x1="{_n(x(lo))}" y1="{y}" x2="{_n(x(hi))}" y2="{y}"/>'
            )
        if math.isfinite(d):
            cls = "point worse" if math.isfinite(hi) and hi < 0 else "point"
            body.append(f'<circle class="{cls}" cx="{_n(x(d))}" cy="{y}" r="5"/>')
            value = wording.signed(d)
            if math.isfinite(lo) and math.isfinite(hi):
                value += f", CI {wording.signed(lo)} to {wording.signed(hi)}"
            body.append(_text(left + plot_w + 8, y + 4, value, cls="value"))
    return _svg(width, base + 38, "Metric changes, B − A, with paired 95% intervals", body)


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
    width: int = 560,
) -> Markup:
    """Vertical bars of ``counts`` under ``labels``, with both axes, 0 and the peak marked."""
    height, top, bottom, left = 200, 20, 50, 56
    plot_h = height - top - bottom
    peak = max(counts, default=0) or 1
    step = (width - left - 10) / max(len(counts), 1)
    body = [
        f'<line class="axis" x1="{left}" y1="{top + plot_h}" x2="{width - 10}" y2="{top + plot_h}"/>',
        *_y_axis(left, top, plot_h, peak, y_label),
        _text((left + width) / 2, height - 6, x_label, anchor="middle", cls="tick"),
    ]
    for i, (n, label) in enumerate(zip(counts, labels, strict=True)):
        x = left + i * step
        h = plot_h * n / peak
        body.append(f'<rect class="bar kept" x="{_n(x + 2)}" y="{_n(top + plot_h - h)}" '
                    f'width="{_n(step - 4)}" height="{_n(max(h, 0.5))}"/>')  # fmt: skip
        if n:
            body.append(
                _text(x + step / 2, top + plot_h - h - 3, f"{n:,}", anchor="middle", cls="value")
            )
        body.append(
            f'<text class="tick" transform="translate({_n(x + step / 2)},{top + plot_h + 12}) '
            f'rotate(30)">{escape(label)}</text>'
        )
    return _svg(width, height, title, body)


def risk_coverage(curve: Sequence[tuple[float, float, float]], *, width: int = 420) -> Markup:
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
