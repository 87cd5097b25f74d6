"""Numbers and counted nouns for people: the one place the report and the CLI format them.

Every number the terminal report, the HTML page, its charts, the diagnosis and
``ragfunnel threshold`` print goes through here, so one page never shows ``1`` beside
``1.000`` or ``0.2115–0.722``:

- counts with thousands separators and the noun agreeing (``1 answer``, ``2 answers``): the
  analyzer's one rule for them, :mod:`ragfunnel.analyzer.nouns`, re-exported here;
- ratios, scores and means to 3 significant digits (``0.725``, ``1.00``, ``0.0123``);
- percentages to one decimal (``5.1%``);
- a missing or undefined value as ``—``, never ``—%`` or ``nan``.

Hand-written rather than a library (``inflect``, ``babel``): the report needs a dozen nouns
and three number shapes, all in English; a dependency for that would outweigh the code.
"""

from __future__ import annotations

import math
from typing import Any

from ragfunnel.analyzer.nouns import count, plural

__all__ = [
    "MISSING",
    "count",
    "interval",
    "more",
    "number",
    "percent",
    "plural",
    "ratio",
    "signed",
]

MISSING = "—"
"""What a missing or undefined number reads as."""


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and not math.isfinite(value))


def ratio(value: float | None) -> str:
    """A ratio, score or mean to 3 significant digits: ``0.725``, ``1.00``, ``0.0123``, ``0.00``.

    Values of 1,000 and more (a latency, a cost) read as whole numbers with separators.
    """
    if _missing(value):
        return MISSING
    assert value is not None
    if value == 0:
        return "0.00"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    text = f"{value:#.3g}"
    if "e" in text:  # |value| < 0.001: still 3 significant digits, without an exponent
        digits = 2 - math.floor(math.log10(abs(value)))
        text = f"{value:.{digits}f}"
    return text.rstrip(".")


def signed(value: float | None) -> str:
    """A difference with its sign, as ``ratio`` would write it: ``+0.0230``, ``-0.294``."""
    if _missing(value):
        return MISSING
    assert value is not None
    text = ratio(abs(value))
    return text if value == 0 else ("+" if value > 0 else "-") + text


def percent(value: float | None) -> str:
    """A share in [0, 1] as a percentage to one decimal: ``5.1%``; ``—`` when undefined."""
    if _missing(value):
        return MISSING
    assert value is not None
    return f"{100 * value:.1f}%"


def number(value: Any) -> str:
    """Any value for people: a count (``1,234``), a ratio (``ratio``), text as it is."""
    if _missing(value):
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return ratio(value)
    return str(value)


def interval(low: float | None, high: float | None, *, as_percent: bool = False) -> str:
    """``0.588–0.824`` (or ``39.2–64.1%``); ``—`` when either end is undefined."""
    if _missing(low) or _missing(high):
        return MISSING
    assert low is not None
    assert high is not None
    if as_percent:
        return f"{100 * low:.1f}–{100 * high:.1f}%"
    return f"{ratio(low)}–{ratio(high)}"


def more(shown: int, total: int, where: str) -> str | None:
    """``+8 more in the JSON summary`` when a list of ``total`` shows ``shown``, else ``None``."""
    if total <= shown:
        return None
    return f"+{total - shown:,} more {where}"
